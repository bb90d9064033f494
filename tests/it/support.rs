//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde::Serialize;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures() -> PathBuf {
    repo().join("registry-fixtures")
}

/// Data the repository does not ship, found through one environment variable each (README.md,
/// "Development"). `.ci/run` sets every variable; a bare clone runs without them, and each test
/// that needs the data says on the terminal that it was skipped and how to run it.
pub struct External {
    pub variable: &'static str,
    pub what: &'static str,
}

/// The 106 real packages of the OpenCorvus corpus (the folder that holds `academic-paper-review/`).
pub const CORPUS: External = External {
    variable: "SQUAD_CORPUS",
    what: "the OpenCorvus corpus of real packages",
};

/// The seed documents of the neighbouring formats (`003_71bf42da6adc9071.txt`, ...).
pub const SEEDS: External = External {
    variable: "SQUAD_SEEDS",
    what: "the seed documents of the neighbouring formats",
};

impl External {
    /// The folder, or `None` once the skip has been reported. A variable that is set but does
    /// not name a folder is a mistake, not a reason to skip: it fails the test.
    pub fn path(&self) -> Option<PathBuf> {
        let value = std::env::var_os(self.variable).filter(|value| !value.is_empty());
        let Some(value) = value else {
            skipped(&format!(
                "needs {}: set {} to its folder to run it",
                self.what, self.variable
            ));
            return None;
        };
        // Relative to the repository, where `cargo test` runs the tests.
        let path = repo().join(value);
        assert!(
            path.is_dir(),
            "{} is set to {}, which is not a folder",
            self.variable,
            path.display()
        );
        Some(path)
    }
}

/// The corpus folder, or `None` after reporting the skip.
pub fn corpus() -> Option<PathBuf> {
    CORPUS.path()
}

/// The seeds folder, or `None` after reporting the skip.
pub fn seeds() -> Option<PathBuf> {
    SEEDS.path()
}

/// Reports a skipped test where it shows: the test harness captures `eprintln!`, not writes
/// to the process's standard error, so the line appears in `cargo test`'s own output.
pub fn skipped(reason: &str) {
    use std::io::Write;
    let current = std::thread::current();
    let test = current.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {reason}");
}

/// The binary under test: this build's, or `SQUAD_TEST_BINARY` (to see a regression test fail
/// on an older squad, as each hardening test was).
pub fn binary() -> std::ffi::OsString {
    std::env::var_os("SQUAD_TEST_BINARY").unwrap_or_else(|| env!("CARGO_BIN_EXE_squad").into())
}

/// Runs the real binary with a clean, sandboxed environment.
pub fn squad(args: &[&str], cwd: &Path, home: &Path) -> Output {
    squad_command(args, cwd, home)
        .output()
        .expect("failed to run squad")
}

/// The command [`squad`] runs.
pub fn squad_command(args: &[&str], cwd: &Path, home: &Path) -> Command {
    let mut command = Command::new(binary());
    command
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("OPENCORVUS_HOME", home.join("opencorvus"))
        .env("NO_COLOR", "1");
    command
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A diagnostic reduced to what fixtures pin: code, severity and position.
#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Pinned {
    pub code: String,
    pub severity: String,
    pub file: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

/// Validates a package through the library and pins its diagnostics.
pub fn pinned(package: &Path) -> Vec<Pinned> {
    let report = squad::package::validate(package).expect("package folder is readable");
    report
        .diagnostics
        .iter()
        .map(|diagnostic| {
            let position = diagnostic.span.as_ref().and_then(|span| {
                report
                    .sources
                    .get(&diagnostic.file)
                    .map(|source| source.position(span.start))
            });
            Pinned {
                code: diagnostic.code.as_str().to_owned(),
                severity: diagnostic.severity().as_str().to_owned(),
                file: diagnostic.file.clone(),
                line: position.map(|position| position.line),
                column: position.map(|position| position.column),
            }
        })
        .collect()
}

/// Copies a directory tree (regular files and directories only).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A temporary copy of a fixture package, for making an invalid case on the fly.
pub fn temp_copy(fixture: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("package");
    copy_tree(&fixtures().join(fixture), &package);
    (dir, package)
}

/// The error codes of a package.
pub fn error_codes(package: &Path) -> Vec<String> {
    pinned(package)
        .into_iter()
        .filter(|diagnostic| diagnostic.severity == "error")
        .map(|diagnostic| diagnostic.code)
        .collect()
}

/// The prefix (`setpriv ... --`, or nothing) under which permission bits apply to a command, or
/// `None` where nothing here makes them apply. A user other than root needs no prefix. Root
/// ignores permission bits while it holds CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH; `setpriv`
/// drops both from the bounding set of the one command, which needs only CAP_SETPCAP, so it
/// works in an unprivileged container too.
#[cfg(unix)]
pub fn permission_bits_prefix() -> Option<&'static [String]> {
    use std::os::unix::fs::PermissionsExt;
    static PREFIX: std::sync::OnceLock<Option<Vec<String>>> = std::sync::OnceLock::new();
    PREFIX
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let secret = dir.path().join("secret");
            std::fs::write(&secret, "x").unwrap();
            std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
            let runs = |prefix: &[String], program: &str, arg: Option<&Path>| {
                let (first, rest) = match prefix.split_first() {
                    Some((first, rest)) => (first.as_str(), rest),
                    None => (program, &[][..]),
                };
                let mut command = Command::new(first);
                command.args(rest);
                if !prefix.is_empty() {
                    command.arg(program);
                }
                command.args(arg);
                command.output().is_ok_and(|output| output.status.success())
            };
            let setpriv: Vec<String> = [
                "setpriv",
                "--bounding-set=-dac_override,-dac_read_search",
                "--",
            ]
            .map(str::to_owned)
            .to_vec();
            // `true` runs under the prefix, so a failing `cat` is the permission bits.
            [Vec::new(), setpriv]
                .into_iter()
                .find(|prefix| runs(prefix, "true", None) && !runs(prefix, "cat", Some(&secret)))
        })
        .as_deref()
}

/// `command`, run under `prefix` (see [`permission_bits_prefix`]).
pub fn prefixed(prefix: &[String], command: &Command) -> Command {
    let mut wrapped = match prefix.split_first() {
        Some((first, rest)) => {
            let mut wrapped = Command::new(first);
            wrapped.args(rest).arg(command.get_program());
            wrapped
        }
        None => Command::new(command.get_program()),
    };
    wrapped.args(command.get_args()).env_clear();
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            wrapped.env(key, value);
        }
    }
    if let Some(directory) = command.get_current_dir() {
        wrapped.current_dir(directory);
    }
    wrapped
}
