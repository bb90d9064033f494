//! The author's loop through the real binary: from a folder that is no package to a squad a
//! teammate validates as an archive. One workspace per test: a temporary folder where the
//! author works, a temporary home, and a fixed date (SQUAD_TODAY) so versions are stable.

mod fix;
mod messages;
mod scaffold;
mod walk;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The date every command of these tests takes as today.
pub const TODAY: &str = "2026-12-01";

pub struct Workspace {
    pub dir: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace {
            dir: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// `squad ARGS` run in the workspace.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_in(self.dir.path(), args)
    }

    /// `squad ARGS` run in `cwd`, with a clean environment.
    pub fn run_in(&self, cwd: &Path, args: &[&str]) -> Output {
        crate::support::squad_command(args, cwd, self.home.path())
            .env("TMPDIR", self.home.path())
            .env("SQUAD_TODAY", TODAY)
            .output()
            .expect("failed to run squad")
    }

    /// A new package `dir` of namespace `acme` from `template`, checked to exist.
    pub fn new_package(&self, dir: &str, template: &str) -> PathBuf {
        let output = self.run(&["new", dir, "--namespace", "acme", "--template", template]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        self.path(dir)
    }

    pub fn read(&self, relative: &str) -> String {
        fs::read_to_string(self.path(relative)).unwrap()
    }

    pub fn write(&self, relative: &str, text: &str) {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// Replaces `from` by `to` in a file, once; `from` must be there, so a template that
    /// changes cannot make a test check nothing.
    pub fn edit(&self, relative: &str, from: &str, to: &str) {
        let text = self.read(relative);
        assert!(
            text.contains(from),
            "`{from}` is not in {relative}:\n{text}"
        );
        self.write(relative, &text.replacen(from, to, 1));
    }

    /// Every file under `relative` with its bytes, to prove that a refused command changed
    /// nothing.
    pub fn snapshot(&self, relative: &str) -> Vec<(PathBuf, Vec<u8>)> {
        let mut files = Vec::new();
        let mut pending = vec![self.path(relative)];
        while let Some(directory) = pending.pop() {
            for entry in fs::read_dir(&directory).unwrap() {
                let entry = entry.unwrap();
                if entry.file_type().unwrap().is_dir() {
                    pending.push(entry.path());
                } else {
                    files.push((entry.path(), fs::read(entry.path()).unwrap()));
                }
            }
        }
        files.sort();
        files
    }
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts the exit status, showing stderr when it is not the expected one.
#[track_caller]
pub fn assert_status(output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(output),
        stderr(output)
    );
}

/// The diagnostic codes `squad validate --format json` reports for `path`, errors first.
pub fn codes(workspace: &Workspace, path: &str) -> Vec<String> {
    let output = workspace.run(&["validate", "--format", "json", path]);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    document["packages"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|diagnostic| diagnostic["code"].as_str().unwrap().to_owned())
        .collect()
}
