#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! `squad lsp`: the time from a `didChange` to the `publishDiagnostics` it causes, as an editor
//! waits for it, for the example package of registry-fixtures, a package of the corpus
//! (`SQUAD_CORPUS`; said and left out when unset) and a 5,000-agent manifest; beside each, a
//! cold `squad validate` of the same package in the same run, the baseline. Each edit inserts
//! or removes a space at the end of the manifest (an incremental change), so every one is a
//! whole re-check; the edits are spaced so that each is measured alone. Then a burst of ten
//! edits 20 ms apart on the large manifest: the time from the last edit to its diagnostics, and
//! how many checks were published for the ten (the others were debounced or abandoned).
//!
//! Run with `cargo bench --bench lsp`.

#[allow(dead_code)] // the registry helpers are for other benchmarks
mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{median, ms};

const RUNS: usize = 15;

struct Client {
    child: Child,
    stdin: ChildStdin,
    frames: Receiver<(Instant, Value)>,
    _home: tempfile::TempDir,
}

impl Client {
    fn start() -> Client {
        let home = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_squad"))
            .arg("lsp")
            .env("HOME", home.path())
            .env("SQUAD_CACHE_DIR", home.path().join("cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, frames) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(frame) = read_frame(&mut reader) {
                if sender.send((Instant::now(), frame)).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        let mut client = Client {
            child,
            stdin,
            frames,
            _home: home,
        };
        client.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"capabilities": {}}}));
        client.wait(|frame| frame["id"] == 1);
        client.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        client
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        self.stdin
            .write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())
            .unwrap();
        self.stdin.flush().unwrap();
    }

    fn wait(&self, wanted: impl Fn(&Value) -> bool) -> Instant {
        loop {
            let (at, frame) = self
                .frames
                .recv_timeout(Duration::from_secs(60))
                .expect("the server answers within a minute");
            if wanted(&frame) {
                return at;
            }
        }
    }

    fn published(&self, uri: &str, version: i64) -> Instant {
        self.wait(|frame| {
            frame["method"] == "textDocument/publishDiagnostics"
                && frame["params"]["uri"] == uri
                && frame["params"]["version"] == version
        })
    }

    fn stop(mut self) {
        self.send(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}));
        self.wait(|frame| frame["id"] == 2);
        self.send(json!({"jsonrpc": "2.0", "method": "exit"}));
        let _ = self.child.wait();
    }
}

fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// Where a space at the end of `text` goes: its last line and that line's length in UTF-16.
fn end_of(text: &str) -> (usize, usize) {
    let line = text.matches('\n').count();
    let last = text.rsplit('\n').next().unwrap_or_default();
    (line, last.encode_utf16().count())
}

fn change(uri: &str, version: i64, text: &str, add: bool) -> Value {
    let (line, character) = end_of(text);
    let (end, inserted) = if add {
        (character, " ")
    } else {
        (character + 1, "")
    };
    json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"range": {"start": {"line": line, "character": character},
                                      "end": {"line": line, "character": end}},
                            "text": inserted}]}})
}

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.canonicalize().unwrap().display())
}

/// The median time from a didChange of `root`'s manifest to its diagnostics.
fn edit_to_diagnostics(root: &Path) -> (Duration, Duration) {
    let manifest = root.join("expert-squad.jsonc");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let uri = uri_of(&manifest);
    let mut client = Client::start();
    client.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "jsonc", "version": 1, "text": text}}}),
    );
    let opened = Instant::now();
    let first = client.published(&uri, 1) - opened;
    let mut samples = Vec::new();
    for run in 0..RUNS {
        let version = run as i64 + 2;
        let message = change(&uri, version, &text, run % 2 == 0);
        let sent = Instant::now();
        client.send(message);
        samples.push(client.published(&uri, version) - sent);
        std::thread::sleep(Duration::from_millis(30) + samples[run]);
    }
    client.stop();
    (median(samples), first)
}

/// Ten edits `gap` apart: the time from the last to its diagnostics, and the checks published.
fn burst(root: &Path, gap: Duration) -> (Duration, usize) {
    let manifest = root.join("expert-squad.jsonc");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let uri = uri_of(&manifest);
    let mut client = Client::start();
    client.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "jsonc", "version": 1, "text": text}}}),
    );
    client.published(&uri, 1);
    let mut last = Instant::now();
    for edit in 0..10 {
        if edit > 0 {
            std::thread::sleep(gap);
        }
        last = Instant::now();
        client.send(change(&uri, edit + 2, &text, edit % 2 == 0));
    }
    let done = client.published(&uri, 11);
    // Publications of the manifest before the last one were for intermediate versions.
    let mut checks = 1;
    while let Ok((_, frame)) = client.frames.try_recv() {
        if frame["method"] == "textDocument/publishDiagnostics" && frame["params"]["uri"] == uri {
            checks += 1;
        }
    }
    client.stop();
    (done - last, checks)
}

fn validate_cold(root: &Path) -> Duration {
    median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                let status = Command::new(env!("CARGO_BIN_EXE_squad"))
                    .args(["validate", "--quiet"])
                    .arg(root)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .unwrap();
                assert!(status.code().is_some_and(|code| code <= 1));
                start.elapsed()
            })
            .collect(),
    )
}

fn report(what: &str, root: &Path) {
    let (edit, first) = edit_to_diagnostics(root);
    println!(
        "{what}: didChange -> publishDiagnostics {} (first check after didOpen {}); cold `squad validate` {}",
        ms(edit),
        ms(first),
        ms(validate_cold(root))
    );
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn main() {
    let scratch = tempfile::tempdir().unwrap();
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("registry-fixtures/valid/release-review");
    let example = scratch.path().join("release-review");
    copy(&fixture, &example);
    report("registry-fixtures/valid/release-review", &example);

    if std::env::var_os("SQUAD_CORPUS").is_some_and(|value| !value.is_empty()) {
        let corpus = support::corpus();
        for package in support::corpus_packages(&corpus, 2) {
            let name = package.file_name().unwrap().to_string_lossy().into_owned();
            let copied = scratch.path().join(&name);
            copy(&package, &copied);
            report(&format!("corpus package {name}"), &copied);
        }
    } else {
        println!("corpus packages: left out (set SQUAD_CORPUS to the corpus folder)");
    }

    let large = scratch.path().join("large");
    std::fs::create_dir_all(&large).unwrap();
    let manifest = support::synthetic_manifest(5000);
    std::fs::write(large.join("expert-squad.jsonc"), &manifest).unwrap();
    std::fs::write(large.join("README.md"), "# Big\n").unwrap();
    std::fs::write(large.join("selector.md"), "Pick it.\n").unwrap();
    report(
        &format!(
            "5,000 agents and nodes ({:.1} MB manifest)",
            manifest.len() as f64 / 1e6
        ),
        &large,
    );
    let (last, checks) = burst(&large, Duration::from_millis(20));
    println!(
        "  ten edits 20 ms apart on it: last edit -> its diagnostics {}; {checks} check(s) published for the ten",
        ms(last)
    );
}
