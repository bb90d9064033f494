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
