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

/// Runs the real binary with a clean, sandboxed environment.
pub fn squad(args: &[&str], cwd: &Path, home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_squad"))
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("OPENCORVUS_HOME", home.join("opencorvus"))
        .env("NO_COLOR", "1")
        .output()
        .expect("failed to run squad")
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
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
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
