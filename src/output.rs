//! The only module that prints. Data (JSON documents) goes to stdout; human text (diagnostics,
//! progress, errors) goes to stderr, so `--format json` output can be piped as is.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{IsTerminal, Write};

/// When to colour human output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colour when stderr is a terminal and NO_COLOR is not set.
    Auto,
    Always,
    Never,
}

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

    /// A line shown only with `--verbose`.
    pub fn detail(&self, text: &str) {
        if self.verbose {
            self.human(&format!("{:>12} {text}\n", "Info"));
        }
    }

    /// Writes data to stdout. A closed pipe (e.g. `| head`) is not an error worth reporting.
    pub fn data(&self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
    }

    /// Writes human text to stderr.
    pub fn human(&self, text: &str) {
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(text.as_bytes());
    }

    /// `error: …` with `caused by`/`hint` lines, for operations that failed.
    pub fn error(&self, message: &str, hint: Option<&str>) {
        let label = if self.color {
            "\x1b[1;31merror\x1b[0m"
        } else {
            "error"
        };
        let mut text = format!("{label}: {message}\n");
        if let Some(hint) = hint {
            text.push_str(&format!("hint: {hint}\n"));
        }
        self.human(&text);
    }

    /// A cargo-style status line: a right-aligned verb, then the message (not when quiet).
    pub fn status(&self, verb: &str, message: &str) {
        if self.quiet {
            return;
        }
        let verb = if self.color {
            format!("\x1b[1;32m{verb:>12}\x1b[0m")
        } else {
            format!("{verb:>12}")
        };
        self.human(&format!("{verb} {message}\n"));
    }
}

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
/// when quiet, redrawn at most ten times a second, erased when the transfer ends.
pub struct TransferBar {
    enabled: bool,
    state: std::sync::Mutex<BarState>,
}

#[derive(Default)]
struct BarState {
    label: String,
    total: u64,
    drawn: Option<std::time::Instant>,
}

impl TransferBar {
    pub fn new(printer: &Printer) -> TransferBar {
        TransferBar {
            enabled: !printer.quiet && std::io::stderr().is_terminal(),
            state: std::sync::Mutex::new(BarState::default()),
        }
    }

    pub fn begin(&self, label: &str, total: u64) {
        if let Ok(mut state) = self.state.lock() {
            *state = BarState {
                label: label.to_owned(),
                total,
                drawn: None,
            };
        }
        self.advance(0);
    }

    pub fn advance(&self, done: u64) {
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
    }
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
    fn no_bar_when_quiet() {
        let printer = Printer::new(ColorChoice::Never, true, false);
        assert!(!TransferBar::new(&printer).enabled);
    }
}
