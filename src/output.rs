//! The only module that prints. Data (JSON documents) goes to stdout; human text (diagnostics,
//! progress, errors) goes to stderr, so `--format json` output can be piped as is.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{IsTerminal, Write};

use annotate_snippets::renderer::{DEFAULT_ERROR_STYLE, DEFAULT_HELP_STYLE};
use anstyle::{AnsiColor, Effects, Style};

/// When to colour human output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when stderr is a terminal and NO_COLOR is not set.
    Auto,
    Always,
    Never,
}

/// The styles of the lines the printer writes itself, cargo's: `error` and `hint` as the
/// diagnostics' `error` and `help` (see `diag::render`), status verbs bold green.
const ERROR: Style = DEFAULT_ERROR_STYLE;
const HINT: Style = DEFAULT_HELP_STYLE;
const STATUS: Style = AnsiColor::BrightGreen.on_default().effects(Effects::BOLD);

#[derive(Debug, Clone, Copy)]
pub struct Printer {
    pub color: bool,
    /// Only errors: no warnings, notes or status lines.
    pub quiet: bool,
    /// Extra detail lines.
    pub verbose: bool,
}

impl Printer {
    pub fn new(choice: ColorChoice, quiet: bool, verbose: bool) -> Printer {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => std::io::stderr().is_terminal() && !crate::env::no_color(),
        };
        Printer {
            color,
            quiet,
            verbose,
        }
    }

    /// The width human diagnostics are fitted to: the terminal's when stderr is one, else
    /// rustc's default of 140 columns (piped output and logs do not depend on a window).
    pub fn width(&self) -> usize {
        let stderr = std::io::stderr();
        if stderr.is_terminal() {
            if let Ok(size) = rustix::termios::tcgetwinsize(&stderr) {
                if size.ws_col > 0 {
                    return usize::from(size.ws_col).max(40);
                }
            }
        }
        annotate_snippets::renderer::DEFAULT_TERM_WIDTH
    }

    /// A line shown only with `--verbose`: one line, neutralised as [`Printer::status`] is.
    pub fn detail(&self, text: &str) {
        if self.verbose {
            self.human(&format!("{:>12} {}\n", "Info", one_line(text)));
        }
    }

    /// Writes data to stdout. A closed pipe (e.g. `| head`) is not an error worth reporting.
    pub fn data(&self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
    }

    /// Stdout for data written piece by piece (a long document streamed as it is produced),
    /// buffered; flushed when dropped.
    pub fn data_stream(&self) -> impl Write {
        std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock())
    }

    /// The standard streams as a protocol spoken over them uses them (`squad lsp`): stdin to
    /// read messages from, stdout to write them to (each message is flushed whole), and
    /// stderr for the log lines the client shows.
    pub fn protocol_streams(
        &self,
    ) -> (
        Box<dyn std::io::Read + Send>,
        impl Write + use<>,
        impl Write + use<>,
    ) {
        (
            Box::new(std::io::stdin()),
            std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock()),
            std::io::stderr().lock(),
        )
    }

    /// Writes human text to stderr. Styles pass only when colour is on: `anstream` strips them
    /// otherwise (and translates them for a Windows console).
    pub fn human(&self, text: &str) {
        let choice = if self.color {
            anstream::ColorChoice::Always
        } else {
            anstream::ColorChoice::Never
        };
        let mut stderr = anstream::AutoStream::new(std::io::stderr().lock(), choice);
        let _ = stderr.write_all(text.as_bytes());
    }

    fn paint(&self, text: &str, style: Style) -> String {
        if self.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    /// `error: …` with a `hint` line, for operations that failed.
    pub fn error(&self, message: &str, hint: Option<&str>) {
        self.human(&self.error_text(message, &[], hint));
    }

    /// `error: …`, a `caused by: …` line for each of `causes`, then the hint: an error kept as
    /// its messages (a squad's failure among others).
    pub fn error_caused(&self, message: &str, causes: &[String], hint: Option<&str>) {
        self.human(&self.error_text(message, causes, hint));
    }

    /// `error: …` for a failed operation, then a `caused by: …` line for each error in its
    /// source chain, then the hint.
    pub fn failure(&self, error: &(dyn std::error::Error + 'static), hint: Option<&str>) {
        self.human(&self.failure_text(error, hint));
    }

    /// [`Printer::failure`] with `note` after the error's own line (`nothing was installed`).
    pub fn failure_noting(
        &self,
        error: &(dyn std::error::Error + 'static),
        note: &str,
        hint: Option<&str>,
    ) {
        self.failure_labelled("", error, note, hint);
    }

    /// [`Printer::failure_noting`] about one source or squad, named as
    /// [`crate::error::labelled`] names it.
    pub fn failure_labelled(
        &self,
        label: &str,
        error: &(dyn std::error::Error + 'static),
        note: &str,
        hint: Option<&str>,
    ) {
        let message = crate::error::labelled(label, &error.to_string());
        let message = if note.is_empty() {
            message
        } else {
            format!("{message}; {note}")
        };
        self.human(&self.error_text(&message, &causes(error), hint));
    }

    fn failure_text(
        &self,
        error: &(dyn std::error::Error + 'static),
        hint: Option<&str>,
    ) -> String {
        self.error_text(&error.to_string(), &causes(error), hint)
    }

    /// Messages, causes and hints may quote other programs and servers; whatever escaped
    /// neutralising where it was made is neutralised here (only squad's own line breaks stay).
    fn error_text(&self, message: &str, causes: &[String], hint: Option<&str>) -> String {
        use crate::text::lines_safe_to_show as safe;
        let mut text = format!("{}: {}\n", self.paint("error", ERROR), safe(message));
        for cause in causes {
            text.push_str(&format!(
                "  {} {}\n",
                self.paint("caused by:", ERROR),
                safe(cause)
            ));
        }
        if let Some(hint) = hint {
            text.push_str(&format!("{}: {}\n", self.paint("hint", HINT), safe(hint)));
        }
        text
    }

    /// `warning: …`, printed even when quiet as errors are. Warnings may quote files and
    /// servers; as in [`Printer::error`], whatever escaped neutralising where the warning was
    /// made is neutralised here.
    pub fn warning(&self, message: &str) {
        let message = crate::text::lines_safe_to_show(message);
        self.human(&format!("warning: {message}\n"));
    }

    /// A `help: …` line of its own, after a command's output (not when quiet).
    pub fn hint(&self, text: &str) {
        if self.quiet {
            return;
        }
        self.human(&format!("{}: {text}\n", self.paint("help", HINT)));
    }

    /// A cargo-style status line: a right-aligned verb, then the message (not when quiet).
    pub fn status(&self, verb: &str, message: &str) {
        if self.quiet {
            return;
        }
        self.human(&self.status_text(verb, message));
    }

    /// A status line is one line of squad's: the names, versions and paths its message quotes
    /// (a manifest's, a folder's, a server's) cannot break it into two, even when the place
    /// that quoted them did not neutralise them.
    fn status_text(&self, verb: &str, message: &str) -> String {
        let verb = self.paint(&format!("{verb:>12}"), STATUS);
        format!("{verb} {}\n", one_line(message))
    }
}

/// `text` with every character [`crate::text::remote`] escapes escaped, line breaks too.
fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if crate::text::is_safe_to_show(text) {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(crate::text::remote(text, usize::MAX))
    }
}

/// The messages of an error's sources, in order.
use crate::error::causes;

/// A progress line on stderr for long work: shown only on a terminal, only after the work has
/// taken a second, redrawn in place, and erased when the work ends.
pub struct ProgressLine {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ProgressLine {
    /// Starts a display of `describe()`, polled a few times a second.
    pub fn start(describe: impl Fn() -> String + Send + 'static) -> ProgressLine {
        use std::sync::atomic::{AtomicBool, Ordering};
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        if !std::io::stderr().is_terminal() {
            return ProgressLine { stop, thread: None };
        }
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let started = std::time::Instant::now();
            let mut shown = false;
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(100));
                if started.elapsed() >= std::time::Duration::from_secs(1) {
                    eprint!("\r\x1b[2K{}", describe());
                    shown = true;
                }
            }
            if shown {
                eprint!("\r\x1b[2K");
            }
        });
        ProgressLine {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A progress bar for one transfer at a time, on stderr: drawn only on a terminal and not
/// when quiet, redrawn at most ten times a second, erased when the transfer ends. Without a
/// terminal (a CI log), a long transfer prints a heartbeat line instead (what, how much, how
/// long), at most one every `SQUAD_HEARTBEAT` seconds (10 by default), and none for a
/// transfer shorter than that.
pub struct TransferBar {
    enabled: bool,
    heartbeat: Option<std::time::Duration>,
    state: std::sync::Mutex<BarState>,
}

#[derive(Default)]
struct BarState {
    label: String,
    total: u64,
    drawn: Option<std::time::Instant>,
    /// When the transfer began (kept when a label or total changes mid-way).
    started: Option<std::time::Instant>,
    /// When the last heartbeat line was printed.
    beat: Option<std::time::Instant>,
}

impl TransferBar {
    pub fn new(printer: &Printer) -> TransferBar {
        let terminal = std::io::stderr().is_terminal();
        TransferBar {
            enabled: !printer.quiet && terminal,
            heartbeat: (!printer.quiet && !terminal).then(crate::env::heartbeat),
            state: std::sync::Mutex::new(BarState::default()),
        }
    }

    pub fn begin(&self, label: &str, total: u64) {
        if let Ok(mut state) = self.state.lock() {
            *state = BarState {
                label: label.to_owned(),
                total,
                drawn: None,
                started: state.started.or_else(|| Some(std::time::Instant::now())),
                beat: state.beat,
            };
        }
        self.advance(0);
    }

    pub fn advance(&self, done: u64) {
        if let Some(every) = self.heartbeat {
            self.beat(done, every);
        }
        if !self.enabled {
            return;
        }
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let now = std::time::Instant::now();
        let due = state
            .drawn
            .is_none_or(|at| now.duration_since(at) >= std::time::Duration::from_millis(100));
        if due || done == state.total {
            state.drawn = Some(now);
            eprint!("\r\x1b[2K{}", render_bar(&state.label, done, state.total));
        }
    }

    pub fn end(&self) {
        if self.enabled && self.state.lock().is_ok_and(|state| state.drawn.is_some()) {
            eprint!("\r\x1b[2K");
        }
        if let Ok(mut state) = self.state.lock() {
            state.started = None;
            state.beat = None;
        }
    }

    /// A heartbeat line when `every` has passed since the transfer began or since the last one.
    fn beat(&self, done: u64, every: std::time::Duration) {
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let now = std::time::Instant::now();
        let Some(started) = state.started else {
            return;
        };
        let last = state.beat.unwrap_or(started);
        if now.duration_since(last) < every || (state.total > 0 && done >= state.total) {
            return;
        }
        state.beat = Some(now);
        eprintln!(
            "{}",
            heartbeat_line(&state.label, done, state.total, now.duration_since(started))
        );
    }
}

/// `Downloading acme/x 2026.12.01.1: 1.2 MiB of 4.0 MiB after 10 s`, the verb aligned as status
/// lines are; the label is a server's or a package's words, neutralised.
pub fn heartbeat_line(label: &str, done: u64, total: u64, elapsed: std::time::Duration) -> String {
    let (verb, what) = label.split_once(' ').unwrap_or((label, ""));
    let what = if what.is_empty() {
        String::new()
    } else {
        format!(" {}", crate::text::shown(what))
    };
    let amount = if total > 0 {
        format!("{} of {}", human_bytes(done), human_bytes(total))
    } else {
        format!("{} so far", human_bytes(done))
    };
    format!("{verb:>12}{what}: {amount} after {} s", elapsed.as_secs())
}

/// `Downloading acme/x [=========>          ] 1.2 MiB / 2.5 MiB`
pub fn render_bar(label: &str, done: u64, total: u64) -> String {
    const WIDTH: u64 = 24;
    let filled = (done.min(total) * WIDTH)
        .checked_div(total)
        .unwrap_or(WIDTH);
    let mut bar = "=".repeat(filled as usize);
    if filled < WIDTH {
        bar.push('>');
        bar.push_str(&" ".repeat((WIDTH - filled - 1) as usize));
    }
    format!(
        "{label:>12} [{bar}] {} / {}",
        human_bytes(done),
        human_bytes(total)
    )
}

/// Bytes for people: `512 B`, `12.3 KiB`, `4.0 MiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_show_the_share_done() {
        assert_eq!(
            render_bar("Downloading", 512 * 1024, 1024 * 1024),
            " Downloading [============>           ] 512.0 KiB / 1.0 MiB"
        );
        assert!(render_bar("x", 10, 10).contains("[========================] 10 B / 10 B"));
        assert!(render_bar("x", 0, 0).contains("[========================]"));
        assert_eq!(human_bytes(1023), "1023 B");
    }

    #[test]
    fn heartbeats_say_what_how_much_and_how_long() {
        let ten = std::time::Duration::from_secs(10);
        assert_eq!(
            heartbeat_line(
                "Downloading acme/x 2026.12.01.1",
                1024 * 1024,
                4 * 1024 * 1024,
                ten
            ),
            " Downloading acme/x 2026.12.01.1: 1.0 MiB of 4.0 MiB after 10 s"
        );
        assert_eq!(
            heartbeat_line("Downloading", 10, 0, ten),
            " Downloading: 10 B so far after 10 s"
        );
    }

    #[test]
    fn no_bar_when_quiet() {
        let printer = Printer::new(ColorChoice::Never, true, false);
        assert!(!TransferBar::new(&printer).enabled);
    }

    #[derive(Debug)]
    struct Layer(&'static str, Option<Box<Layer>>);

    impl std::fmt::Display for Layer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Layer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|layer| layer as _)
        }
    }

    #[test]
    fn status_lines_stay_one_line() {
        let printer = Printer::new(ColorChoice::Never, false, false);
        assert_eq!(
            printer.status_text("Removed", "acme/x 1\n     Installed evil\u{1b}[2J"),
            "     Removed acme/x 1\\n     Installed evil\\u{1b}[2J\n"
        );
        assert_eq!(
            printer.status_text("Installed", "acme/x 2026.12.01.1 (é)"),
            "   Installed acme/x 2026.12.01.1 (é)\n"
        );
    }

    #[test]
    fn failures_list_their_causes() {
        let printer = Printer::new(ColorChoice::Never, false, false);
        let error = Layer(
            "cannot install `x`",
            Some(Box::new(Layer(
                "cannot read `x/a.md`",
                Some(Box::new(Layer("permission denied", None))),
            ))),
        );
        assert_eq!(
            printer.failure_text(&error, Some("check the permissions")),
            "error: cannot install `x`\n  caused by: cannot read `x/a.md`\n  caused by: permission denied\nhint: check the permissions\n"
        );
    }
}

/// `value` as pretty JSON text with a final newline, safe to show on a terminal: serde escapes
/// C0 controls in strings, but a package's or a server's words may also hold DEL, C1 controls,
/// bidirectional overrides and zero-width characters, which a terminal would act on. Those are
/// written as `\uXXXX` escapes (the same JSON value). Outside strings, pretty JSON holds no such
/// character, so every one found is inside a string.
pub fn json_text(value: &impl serde::Serialize) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    let mut safe = String::with_capacity(text.len() + 1);
    for c in text.chars() {
        if c != '\n' && crate::text::is_invisible(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                safe.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            safe.push(c);
        }
    }
    safe.push('\n');
    safe
}

#[cfg(test)]
mod json_tests {
    #[test]
    fn json_text_escapes_what_a_terminal_would_act_on_and_keeps_the_value() {
        let value = serde_json::json!({"name": "a\u{1b}[2J\u{7f}\u{85}\u{202e}b\n", "n": 1});
        let text = super::json_text(&value);
        assert!(
            !text
                .chars()
                .any(|c| c != '\n' && crate::text::is_invisible(c)),
            "{text}"
        );
        assert!(text.contains(r"a\u001b[2J\u007f\u0085\u202eb\n"), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }
}
