//! `squad lsp` through the real binary: the end-to-end suite of tests/lsp/ (a real LSP client,
//! pytest-lsp on pygls, driving the server as an editor does), and hand-built frames for what
//! no well-behaved client sends — broken framing, a huge `Content-Length`, bodies that are not
//! JSON, unknown methods, a 10 MB document, a client that vanishes — each under an address-space
//! limit, asserting an answer or a log line, never a panic, a hang or an unbounded allocation.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{binary, repo, sandboxed, temp_copy, text};

/// Time for anything the server is waited for.
const PATIENCE: Duration = Duration::from_secs(60);

/// The Python that runs tests/lsp/: `SQUAD_LSP_PYTHON` (what `.ci/run` sets), else the virtual
/// environment `scripts/lsp-test-env` makes (target/lsp-venv), made here on the first run so that
/// README's `cargo test --locked` is the whole story on a new machine (it needs Python 3 with
/// venv and PyPI; when it cannot, the test below fails and says why).
/// Returns it with what making the environment said when that failed.
fn python() -> (String, String) {
    if let Some(python) = std::env::var("SQUAD_LSP_PYTHON")
        .ok()
        .filter(|value| !value.is_empty())
    {
        return (python, String::new());
    }
    let venv = repo().join("target/lsp-venv/bin/python");
    let mut said = String::new();
    if !venv.is_file() {
        let made = Command::new(repo().join("scripts/lsp-test-env"))
            .current_dir(repo())
            .output();
        said = match made {
            Ok(output) if output.status.success() => String::new(),
            Ok(output) => format!(
                "scripts/lsp-test-env failed: {}{}",
                text(&output.stdout),
                text(&output.stderr)
            ),
            Err(error) => format!("scripts/lsp-test-env did not run: {error}"),
        };
    }
    if venv.is_file() {
        return (venv.display().to_string(), said);
    }
    ("python3".to_owned(), said)
}

#[test]
fn a_real_lsp_client_drives_the_server_end_to_end() {
    let (python, said) = python();
    let probe = Command::new(&python)
        .args(["-c", "import pytest, pytest_lsp, pygls, lsprotocol"])
        .output();
    let installed = probe.as_ref().is_ok_and(|output| output.status.success());
    assert!(
        installed,
        "the end-to-end tests of `squad lsp` need pytest-lsp: `{python}` cannot import it ({}).\n\
         This test runs `scripts/lsp-test-env` (a virtual environment with \
         tests/lsp/requirements.txt in target/lsp-venv, from PyPI; it needs python3 -m venv, \
         Debian's python3-venv) when neither SQUAD_LSP_PYTHON nor that environment exists. \
         {said}",
        match &probe {
            Ok(output) => text(&output.stderr),
            Err(error) => error.to_string(),
        }
    );
    let suite = repo().join("tests/lsp/test_squad_lsp.py");
    let cases = std::fs::read_to_string(&suite)
        .unwrap()
        .matches("\nasync def test_")
        .count();
    assert!(cases >= 12, "{cases} cases in {}", suite.display());
    let output = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/lsp"])
        .current_dir(repo())
        .env("SQUAD_BINARY", binary())
        .output()
        .expect("python runs");
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "tests/lsp failed:\n{stdout}\n{}",
        text(&output.stderr)
    );
    // Every case ran: none skipped, none left uncollected.
    assert!(
        stdout.contains(&format!("{cases} passed")) && !stdout.contains("skipped"),
        "expected {cases} passed:\n{stdout}"
    );
}

/// A server under an address-space limit, spoken to with hand-built frames.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    frames: Receiver<Value>,
    stderr: std::thread::JoinHandle<String>,
    _home: tempfile::TempDir,
}

impl Server {
    fn start(megabytes: u64) -> Server {
        let home = tempfile::tempdir().unwrap();
        let mut child = sandboxed("sh", home.path(), home.path())
            .env("SQUAD_CACHE_DIR", home.path().join("cache"))
            .arg("-c")
            .arg(format!("ulimit -v {}; exec \"$0\" lsp", megabytes * 1024))
            .arg(binary())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, frames) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(frame) = read_frame(&mut reader) {
                if sender.send(frame).is_err() {
                    return;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut log = String::new();
            let _ = stderr.read_to_string(&mut log);
            log
        });
        Server {
            stdin: child.stdin.take(),
            child,
            frames,
            stderr,
            _home: home,
        }
    }

    fn raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        self.raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.answer(&json!(id))
    }

    /// The next frame that `wanted` accepts (others are dropped).
    fn next(&self, what: &str, wanted: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.frames.recv_timeout(left) {
                Ok(frame) if wanted(&frame) => return frame,
                Ok(_) => {}
                Err(_) => panic!("no {what} from the server within {PATIENCE:?}"),
            }
        }
    }

    fn answer(&self, id: &Value) -> Value {
        self.next(&format!("answer to {id}"), |frame| {
            frame.get("id") == Some(id) && frame.get("method").is_none()
        })
    }

    /// Closes the input and waits for the exit: the status and the log.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not exit within {PATIENCE:?} of its input closing");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let log = self.stderr.join().unwrap();
        assert!(!log.contains("panicked"), "{log}");
        (status.code(), log)
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

fn error_code(answer: &Value) -> i64 {
    answer["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {answer}"))
}

fn initialize(server: &mut Server, id: i64) -> Value {
    let answer = server.request(id, "initialize", json!({"capabilities": {}}));
    server.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    answer
}

/// The capabilities README.md's "In your editor" lists, between its markers.
fn readme_capabilities() -> Vec<String> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let (begin, end) = ("<!-- capabilities:begin -->", "<!-- capabilities:end -->");
    let start = readme
        .find(begin)
        .expect("README.md marks its capabilities list");
    let stop = readme.find(end).unwrap();
    readme[start..stop]
        .lines()
        .filter_map(|line| line.strip_prefix("- `"))
        .filter_map(|line| line.split('`').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn hostile_frames_get_error_answers_or_log_lines_and_never_a_panic() {
    let mut server = Server::start(512);
    // A body that is not JSON: a parse error, with a null id.
    server.raw(b"Content-Length: 5\r\n\r\n{bad}");
    let parse = server.answer(&Value::Null);
    assert_eq!(error_code(&parse), -32700, "{parse}");
    // Before `initialize`: refused as not initialized.
    let early = server.request(1, "textDocument/hover", json!({}));
    assert_eq!(error_code(&early), -32002, "{early}");
    // Framing the server cannot use is logged and skipped; the next frame is read as usual.
    server.raw(b"no colon in this header\r\n\r\n");
    server.raw(b"Content-Length: twelve\r\n\r\n");
    server.raw(&[b'H'; 100_000]);
    server.raw(b"\r\n\r\n");
    let answer = initialize(&mut server, 2);
    let mut announced: Vec<String> = answer["result"]["capabilities"]
        .as_object()
        .unwrap_or_else(|| panic!("{answer}"))
        .keys()
        .cloned()
        .collect();
    announced.sort();
    let mut listed = readme_capabilities();
    listed.sort();
    assert_eq!(announced, listed, "README.md lists other capabilities");
    assert!(announced.len() >= 8);
    // Unknown methods, a batch, an id that is no id, and params of the wrong shape.
    let unknown = server.request(3, "squad/noSuchMethod", json!({}));
    assert_eq!(error_code(&unknown), -32601, "{unknown}");
    server.send(json!([{"jsonrpc": "2.0", "id": 4, "method": "shutdown"}]));
    assert_eq!(error_code(&server.answer(&Value::Null)), -32600);
    server.send(json!({"jsonrpc": "2.0", "id": {"no": 1}, "method": "shutdown"}));
    assert_eq!(error_code(&server.answer(&Value::Null)), -32600);
    let shapeless = server.request(5, "textDocument/hover", json!({"textDocument": 5}));
    assert_eq!(error_code(&shapeless), -32602, "{shapeless}");
    server.send(json!({"jsonrpc": "2.0", "method": "squad/unknownNotification", "params": {}}));
    // A document outside any package, changed out of range, and one that was never opened.
    let outside = "file:///nowhere/notes.md";
    server.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": outside, "languageId": "markdown", "version": 1, "text": "é😀\n"}}}));
    server.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": outside, "version": 2},
        "contentChanges": [{"range": {"start": {"line": 99, "character": 99},
                                      "end": {"line": 0, "character": 1}}, "text": "x"}]}}),
    );
    server.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": "file:///never/opened.json", "version": 2},
        "contentChanges": [{"text": "{}"}]}}),
    );
    let hover = server.request(
        6,
        "textDocument/hover",
        json!({
        "textDocument": {"uri": outside}, "position": {"line": 0, "character": 1}}),
    );
    assert_eq!(hover["result"], Value::Null, "{hover}");
    let shutdown = server.request(7, "shutdown", Value::Null);
    assert_eq!(shutdown["result"], Value::Null, "{shutdown}");
    let late = server.request(8, "textDocument/hover", json!({}));
    assert_eq!(error_code(&late), -32600, "{late}");
    server.send(json!({"jsonrpc": "2.0", "method": "exit"}));
    let (status, log) = server.finish();
    assert_eq!(status, Some(0), "{log}");
    for said in [
        "malformed header line",
        "is not a number",
        "longer than",
        "ignored notification `squad/unknownNotification`",
        "which is not open",
    ] {
        assert!(log.contains(said), "the log does not say `{said}`:\n{log}");
    }
}

#[test]
fn a_huge_content_length_is_skipped_in_bounded_memory() {
    // 256 MB of address space: allocating the declared terabyte, or even the 64 MB sent,
    // twice over, would fail.
    let mut server = Server::start(256);
    initialize(&mut server, 1);
    server.raw(b"Content-Length: 1000000000000\r\n\r\n");
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..64 {
        server.raw(&chunk);
    }
    let (status, log) = server.finish();
    assert_eq!(status, Some(1), "no shutdown came: {log}");
    assert!(log.contains("larger than"), "{log}");
    assert!(log.contains("without `shutdown`"), "{log}");
}

#[test]
fn a_ten_megabyte_document_is_checked() {
    let (_dir, package) = temp_copy("valid/release-review");
    let readme = package.join("README.md");
    let line = "A line of a very long README, repeated to make ten megabytes of text.\n";
    let big = line.repeat(10_000_000 / line.len() + 1);
    std::fs::write(&readme, &big).unwrap();
    let mut server = Server::start(1024);
    initialize(&mut server, 1);
    let uri = file_uri(&readme);
    server.send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": big}}}),
    );
    let published = server.next("diagnostics of the README", |frame| {
        frame["method"] == "textDocument/publishDiagnostics" && frame["params"]["uri"] == uri
    });
    let codes: Vec<&str> = published["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|diagnostic| diagnostic["code"].as_str())
        .collect();
    assert_eq!(codes, ["archive-limit"], "{published}");
    let (status, log) = server.finish();
    assert_eq!(status, Some(1), "{log}");
}

#[test]
fn the_server_exits_when_the_client_vanishes() {
    // Its input closed mid-session.
    let mut server = Server::start(512);
    initialize(&mut server, 1);
    let (status, log) = server.finish();
    assert_eq!(status, Some(1), "{log}");
    // Nobody reads its output: a write fails, and it stops.
    let mut server = Server::start(512);
    drop(std::mem::replace(&mut server.frames, channel().1));
    let (_dir, package) = temp_copy("valid/release-review");
    let manifest = package.join("expert-squad.jsonc");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let started = Instant::now();
    for id in 1..200 {
        if server.child.try_wait().unwrap().is_some() {
            break;
        }
        // Large answers fill the pipe nobody reads until a write fails.
        let _ = write_message(
            &mut server,
            json!({"jsonrpc": "2.0", "id": id, "method": "initialize",
            "params": {"capabilities": {}, "padding": text}}),
        );
        std::thread::sleep(Duration::from_millis(5));
        assert!(started.elapsed() < PATIENCE, "the server still runs");
    }
    let (status, _log) = server.finish();
    assert!(status.is_some(), "the server was killed, not stopped");
}

fn write_message(server: &mut Server, message: Value) -> std::io::Result<()> {
    let body = message.to_string();
    let stdin = server.stdin.as_mut().unwrap();
    stdin.write_all(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes())?;
    stdin.flush()
}

fn file_uri(path: &Path) -> String {
    let path: PathBuf = path.canonicalize().unwrap();
    format!("file://{}", path.display())
}

#[test]
fn the_catalog_entry_maps_the_manifest_to_the_schema_squad_prints() {
    let home = tempfile::tempdir().unwrap();
    let output = crate::support::squad(&["schema"], home.path(), home.path());
    assert!(output.status.success());
    let schema: Value = serde_json::from_slice(&output.stdout).unwrap();
    let catalog: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("editors/catalog.json")).unwrap(),
    )
    .unwrap();
    let entries = catalog["schemas"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["url"], schema["$id"]);
    assert_eq!(entries[0]["fileMatch"][0], "expert-squad.jsonc");
    // README.md shows the same entry, in the block after the file's link.
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let after = &readme[readme.find("(editors/catalog.json)").unwrap()..];
    let block = after
        .split("```json\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let shown: Value = serde_json::from_str(block).unwrap();
    assert_eq!(shown, entries[0]);
}
