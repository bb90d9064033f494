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
        record_reader();
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

/// Writes the running test's name to `SQUAD_RECORD_DATA_TESTS`'s file, when set: `.ci/run` runs
/// exactly those tests again without the data, to see each one pass and say it skipped, instead
/// of building and running the whole suite a second time.
fn record_reader() {
    use std::io::Write;
    let Some(file) = std::env::var_os("SQUAD_RECORD_DATA_TESTS").filter(|file| !file.is_empty())
    else {
        return;
    };
    let current = std::thread::current();
    let test = current.name().unwrap_or("a test");
    let mut record = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .unwrap_or_else(|error| panic!("SQUAD_RECORD_DATA_TESTS {file:?}: {error}"));
    // One write per line, so that tests recording at once do not interleave.
    record
        .write_all(format!("{test}\n").as_bytes())
        .unwrap_or_else(|error| panic!("SQUAD_RECORD_DATA_TESTS {file:?}: {error}"));
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
    let mut command = sandboxed(binary(), cwd, home);
    command.args(args);
    command
}

/// `program` (squad, or a shell that sets limits and execs squad) in the environment every test
/// runs squad in: nothing of the caller's but `PATH`, a home of the test's own with the
/// OpenCorvus root in it (`<home>/opencorvus`), no colour.
pub fn sandboxed(program: impl AsRef<std::ffi::OsStr>, cwd: &Path, home: &Path) -> Command {
    let mut command = Command::new(program);
    command
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("OPENCORVUS_HOME", home.join("opencorvus"))
        .env("NO_COLOR", "1");
    command
}

/// A sandbox for running squad: a temporary folder (`root`) with a home (with `~/.docker`,
/// and the OpenCorvus root at `home/opencorvus`) and a project, and the variables a test adds.
/// Commands run in `root` ([`Sandbox::new`]) or in the project ([`Sandbox::in_project`]).
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    /// `dir`'s path.
    pub root: PathBuf,
    pub env: Vec<(String, String)>,
    cwd: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::create_dir_all(root.join("project")).unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        Sandbox {
            cwd: root.clone(),
            dir,
            root,
            env: Vec::new(),
        }
    }

    /// A sandbox whose commands run in its project.
    pub fn in_project() -> Sandbox {
        let sandbox = Sandbox::new();
        Sandbox {
            cwd: sandbox.project(),
            ..sandbox
        }
    }

    pub fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    pub fn project(&self) -> PathBuf {
        self.root.join("project")
    }

    /// The OpenCorvus root (`OPENCORVUS_HOME`).
    pub fn opencorvus(&self) -> PathBuf {
        self.home().join("opencorvus")
    }

    pub fn with_env(mut self, name: &str, value: impl AsRef<std::ffi::OsStr>) -> Sandbox {
        self.env.push((
            name.to_owned(),
            value.as_ref().to_string_lossy().into_owned(),
        ));
        self
    }

    /// `program` in this sandbox's environment (see [`sandboxed`]).
    pub fn program(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = sandboxed(program, &self.cwd, &self.home());
        // Registry tests: a refused connection or a silent server fails fast.
        command
            .env("SQUAD_HTTP_TIMEOUT", "5")
            .env("SQUAD_NET_RETRY", "1");
        for (name, value) in &self.env {
            command.env(name, value);
        }
        command
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = self.program(binary());
        command.args(args);
        command
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Runs with `input` on stdin.
    pub fn run_with_input(&self, args: &[&str], input: &str) -> Output {
        use std::io::Write;
        use std::process::Stdio;
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A command that refuses before it reads its input closes the pipe first.
        if let Err(error) = child.stdin.take().unwrap().write_all(input.as_bytes()) {
            assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
        }
        child.wait_with_output().unwrap()
    }

    /// Every path under the OpenCorvus root and the project, sorted: a scope "exactly as it
    /// was" compares equal.
    pub fn snapshot(&self) -> Vec<String> {
        fn walk(path: &Path, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(path) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                out.push(path.display().to_string());
                if path.is_dir() {
                    walk(&path, out);
                }
            }
        }
        let mut paths = Vec::new();
        for root in [self.opencorvus(), self.project()] {
            walk(&root, &mut paths);
        }
        paths.sort();
        paths
    }
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

/// Compares `actual` with the whole of `tests/snapshots/<name>` (or, with
/// `SNAPSHOTS=overwrite`, writes it): for outputs whose every line is the contract.
#[track_caller]
pub fn assert_snapshot(name: &str, actual: &str) {
    let path = repo().join("tests/snapshots").join(name);
    if std::env::var_os("SNAPSHOTS").is_some_and(|value| value == "overwrite") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "no snapshot {}: run SNAPSHOTS=overwrite cargo test --test it and review it",
            path.display()
        )
    });
    if expected != actual {
        let diff = similar::TextDiff::from_lines(expected.as_str(), actual)
            .unified_diff()
            .header("expected", "actual")
            .to_string();
        panic!(
            "{} differs (SNAPSHOTS=overwrite rewrites it):\n{diff}",
            path.display()
        );
    }
}
