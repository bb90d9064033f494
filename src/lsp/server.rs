//! The loop: JSON-RPC over the framed input, requests dispatched to the features, notifications
//! updating the documents, and the checks of changed packages run when their time comes.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, CompletionOptions, CompletionParams, CompletionResponse,
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, GotoDefinitionParams,
    GotoDefinitionResponse, Hover, HoverContents, HoverParams, HoverProviderCapability,
    InitializeParams, InitializeResult, MarkupContent, MarkupKind, OneOf, PrepareRenameResponse,
    PublishDiagnosticsParams, ReferenceParams, RenameOptions, RenameParams, ServerCapabilities,
    ServerInfo, TextDocumentPositionParams, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Url,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::actions::{self, Shown, Target};
use super::framing::{self, Frame};
use super::navigate::{self, EditSupport, View};
use super::position::{Encoding, LineIndex};
use super::publish::{self, ExplainPages};
use super::workspace::{Document, Package, Workspace};
use super::{complete, hover};
use crate::manifest::{MANIFEST_FILE, Manifest};
use crate::package::{self, ValidateError};

// JSON-RPC's and LSP's error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;
const SERVER_NOT_INITIALIZED: i64 = -32002;
const REQUEST_FAILED: i64 = -32803;

/// A request's failure, sent as its response's `error`.
#[derive(Debug)]
struct RpcError {
    code: i64,
    message: String,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
        }
    }
}

/// What the reader thread hands over.
enum Incoming {
    Message(Value),
    /// A frame that is not a message (the text says why); `parse` when its body was read but is
    /// not JSON, which deserves a parse-error response.
    Broken {
        why: String,
        parse: bool,
    },
}

/// The queue between the reader thread and the main thread, bounded in bytes.
struct Inbox {
    state: Mutex<Queue>,
    ready: Condvar,
    room: Condvar,
}

struct Queue {
    items: VecDeque<(Incoming, usize)>,
    bytes: usize,
    closed: bool,
}

enum Popped {
    Item(Incoming),
    Timeout,
    Closed,
}

impl Inbox {
    fn new() -> Inbox {
        Inbox {
            state: Mutex::new(Queue {
                items: VecDeque::new(),
                bytes: 0,
                closed: false,
            }),
            ready: Condvar::new(),
            room: Condvar::new(),
        }
    }

    fn push(&self, item: Incoming, bytes: usize) {
        let Ok(mut queue) = self.state.lock() else {
            return;
        };
        // A message waits for room unless the queue is empty: one message of any allowed
        // size always gets through.
        while !queue.items.is_empty() && queue.bytes + bytes > super::MAX_QUEUED_BYTES {
            queue = match self.room.wait(queue) {
                Ok(queue) => queue,
                Err(_) => return,
            };
        }
        queue.bytes += bytes;
        queue.items.push_back((item, bytes));
        self.ready.notify_one();
    }

    fn close(&self) {
        if let Ok(mut queue) = self.state.lock() {
            queue.closed = true;
            self.ready.notify_all();
        }
    }

    fn pop(&self, timeout: Option<Duration>) -> Popped {
        let Ok(mut queue) = self.state.lock() else {
            return Popped::Closed;
        };
        let deadline = timeout.map(|timeout| Instant::now() + timeout);
        loop {
            if let Some((item, bytes)) = queue.items.pop_front() {
                queue.bytes -= bytes;
                self.room.notify_one();
                return Popped::Item(item);
            }
            if queue.closed {
                return Popped::Closed;
            }
            queue = match deadline {
                None => match self.ready.wait(queue) {
                    Ok(queue) => queue,
                    Err(_) => return Popped::Closed,
                },
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Popped::Timeout;
                    }
                    match self.ready.wait_timeout(queue, left) {
                        Ok((queue, _)) => queue,
                        Err(_) => return Popped::Closed,
                    }
                }
            };
        }
    }

    fn is_empty(&self) -> bool {
        self.state
            .lock()
            .map_or(true, |queue| queue.items.is_empty())
    }
}

/// Methods that change a document: the reader counts them, so that a check under way knows a
/// newer edit has come.
fn is_edit(message: &Value) -> bool {
    matches!(
        message.get("method").and_then(Value::as_str),
        Some(
            "textDocument/didChange"
                | "textDocument/didOpen"
                | "textDocument/didClose"
                | "workspace/didChangeWatchedFiles"
        )
    )
}

fn read_loop(input: Box<dyn Read + Send>, inbox: &Inbox, edits: &AtomicU64) {
    let mut input = BufReader::with_capacity(64 * 1024, input);
    loop {
        match framing::read_frame(&mut input) {
            Ok(Frame::Message(body)) => {
                let bytes = body.len();
                match serde_json::from_slice::<Value>(&body) {
                    Ok(message) => {
                        let edit = is_edit(&message);
                        inbox.push(Incoming::Message(message), bytes);
                        // Counted once queued: a check abandoned for it finds it waiting.
                        if edit {
                            edits.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    Err(error) => inbox.push(
                        Incoming::Broken {
                            why: format!("the message is not JSON: {error}"),
                            parse: true,
                        },
                        0,
                    ),
                }
            }
            Ok(Frame::Malformed(why)) => inbox.push(Incoming::Broken { why, parse: false }, 0),
            Ok(Frame::End) | Err(_) => {
                inbox.close();
                return;
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Uninitialized,
    Running,
    ShutDown,
}

/// Serves one client over `input` and `output`, writing what it should know of to `log`, until
/// the client sends `exit` or closes the input. Returns the exit status: 0 after a `shutdown`
/// request, 1 otherwise (as the protocol says).
pub fn serve(input: Box<dyn Read + Send>, output: &mut dyn Write, log: &mut dyn Write) -> u8 {
    let inbox = Arc::new(Inbox::new());
    let edits = Arc::new(AtomicU64::new(0));
    {
        let inbox = inbox.clone();
        let edits = edits.clone();
        // The thread ends when the input does; the process may exit before that.
        let _ = std::thread::Builder::new()
            .name("lsp-reader".into())
            .spawn(move || read_loop(input, &inbox, &edits));
    }
    let mut server = Server {
        output,
        log,
        workspace: Workspace::new(Encoding::Utf16),
        pages: ExplainPages::new(crate::env::cache_dir()),
        phase: Phase::Uninitialized,
        support: EditSupport::default(),
        watch_files: false,
        markdown_hover: false,
        markdown_completion: false,
        edits,
        gone: false,
        requests_sent: 0,
    };
    loop {
        if server.gone {
            server.note("the client is gone (its input no longer takes messages); exiting");
            return 1;
        }
        // A check whose time came runs once the input is quiet, or anyway once it is late by
        // the longest debounce: a client that never pauses still gets its diagnostics.
        if let Some(due) = server.next_due() {
            let now = Instant::now();
            if due <= now && (inbox.is_empty() || now - due > super::MAX_DEBOUNCE) {
                server.check_due();
                continue;
            }
        }
        let timeout = server
            .next_due()
            .map(|due| due.saturating_duration_since(Instant::now()));
        match inbox.pop(timeout) {
            Popped::Item(item) => {
                if let Some(status) = server.incoming(item) {
                    return status;
                }
            }
            Popped::Timeout => {}
            Popped::Closed => {
                let status = if server.phase == Phase::ShutDown {
                    0
                } else {
                    1
                };
                if status != 0 {
                    server.note("the client closed the connection without `shutdown`; exiting");
                }
                return status;
            }
        }
    }
}

struct Server<'a> {
    output: &'a mut dyn Write,
    log: &'a mut dyn Write,
    workspace: Workspace,
    pages: ExplainPages,
    phase: Phase,
    support: EditSupport,
    watch_files: bool,
    /// Whether the client shows Markdown in hovers, and in completion items' documentation.
    markdown_hover: bool,
    markdown_completion: bool,
    edits: Arc<AtomicU64>,
    /// The output failed: nobody reads what the server writes.
    gone: bool,
    requests_sent: u64,
}

fn params<T: DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params)
        .map_err(|error| RpcError::new(INVALID_PARAMS, format!("invalid params: {error}")))
}

fn to_value(value: impl serde::Serialize) -> Result<Value, RpcError> {
    serde_json::to_value(value).map_err(|error| RpcError::new(INTERNAL_ERROR, error.to_string()))
}

impl Server<'_> {
    fn note(&mut self, text: &str) {
        let _ = writeln!(self.log, "squad lsp: {text}");
        let _ = self.log.flush();
    }

    fn send(&mut self, message: &Value) {
        if self.gone {
            return;
        }
        let body = match serde_json::to_vec(message) {
            Ok(body) => body,
            Err(_) => return,
        };
        if framing::write_frame(self.output, &body).is_err() {
            self.gone = true;
        }
    }

    fn respond(&mut self, id: Value, result: Result<Value, RpcError>) {
        let message = match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(error) => json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": error.code, "message": error.message},
            }),
        };
        self.send(&message);
    }

    fn notify(&mut self, method: &str, params: impl serde::Serialize) {
        let Ok(params) = serde_json::to_value(params) else {
            return;
        };
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Handles one item of the input; `Some(status)` ends the loop.
    fn incoming(&mut self, item: Incoming) -> Option<u8> {
        let message = match item {
            Incoming::Message(message) => message,
            Incoming::Broken { why, parse } => {
                self.note(&format!("ignored input: {why}"));
                if parse {
                    self.respond(Value::Null, Err(RpcError::new(PARSE_ERROR, why)));
                }
                return None;
            }
        };
        let Value::Object(mut object) = message else {
            self.respond(
                Value::Null,
                Err(RpcError::new(INVALID_REQUEST, "a message is a JSON object")),
            );
            return None;
        };
        let id = object.remove("id");
        let method = object
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let params = object.remove("params").unwrap_or(Value::Null);
        match (method, id) {
            (Some(method), Some(id)) => {
                if !(id.is_number() || id.is_string()) {
                    self.respond(
                        Value::Null,
                        Err(RpcError::new(
                            INVALID_REQUEST,
                            "a request's id is a number or a string",
                        )),
                    );
                    return None;
                }
                let result = self.guarded(&method, params, true);
                self.respond(id, result);
                None
            }
            (Some(method), None) => {
                if method == "exit" {
                    return Some(if self.phase == Phase::ShutDown { 0 } else { 1 });
                }
                if let Err(error) = self.guarded(&method, params, false) {
                    self.note(&format!("notification `{method}`: {}", error.message));
                }
                None
            }
            // A response to one of the server's requests (its registrations): nothing to do.
            (None, Some(_)) if object.contains_key("result") || object.contains_key("error") => {
                None
            }
            _ => {
                self.respond(
                    Value::Null,
                    Err(RpcError::new(
                        INVALID_REQUEST,
                        "a message has a `method` or is a response",
                    )),
                );
                None
            }
        }
    }

    /// Runs a request or notification, a panic becoming an internal error instead of the
    /// end of the server.
    fn guarded(&mut self, method: &str, params: Value, request: bool) -> Result<Value, RpcError> {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if request {
                self.request(method, params)
            } else {
                self.notification(method, params).map(|()| Value::Null)
            }
        }));
        outcome.unwrap_or_else(|_| {
            Err(RpcError::new(
                INTERNAL_ERROR,
                format!("internal error while handling `{method}`"),
            ))
        })
    }

    fn request(&mut self, method: &str, raw: Value) -> Result<Value, RpcError> {
        match self.phase {
            Phase::Uninitialized if method != "initialize" => {
                return Err(RpcError::new(
                    SERVER_NOT_INITIALIZED,
                    "the server is not initialized: send `initialize` first",
                ));
            }
            Phase::Running if method == "initialize" => {
                return Err(RpcError::new(
                    INVALID_REQUEST,
                    "the server is initialized already",
                ));
            }
            Phase::ShutDown => {
                return Err(RpcError::new(
                    INVALID_REQUEST,
                    "the server is shut down: only `exit` is expected",
                ));
            }
            _ => {}
        }
        match method {
            "initialize" => self.initialize(params(raw)?),
            "shutdown" => {
                self.phase = Phase::ShutDown;
                Ok(Value::Null)
            }
            "textDocument/hover" => to_value(self.hover(params(raw)?)),
            "textDocument/completion" => to_value(self.completion(params(raw)?)),
            "textDocument/definition" => to_value(self.definition(params(raw)?)),
            "textDocument/references" => to_value(self.references(params(raw)?)),
            "textDocument/codeAction" => to_value(self.code_action(params(raw)?)),
            "textDocument/prepareRename" => to_value(self.prepare_rename(params(raw)?)),
            "textDocument/rename" => to_value(self.rename(params(raw)?)?),
            _ => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!(
                    "squad lsp has no method `{}`",
                    crate::text::remote(method, 100)
                ),
            )),
        }
    }

    fn notification(&mut self, method: &str, raw: Value) -> Result<(), RpcError> {
        if self.phase == Phase::Uninitialized {
            return Ok(());
        }
        match method {
            "initialized" => self.register_watchers(),
            "textDocument/didOpen" => self.did_open(params(raw)?),
            "textDocument/didChange" => self.did_change(params(raw)?),
            "textDocument/didClose" => self.did_close(params(raw)?),
            "textDocument/didSave" => {
                let saved: DidSaveTextDocumentParams = params(raw)?;
                self.touch_document(&saved.text_document.uri);
            }
            "workspace/didChangeWatchedFiles" => self.files_changed(params(raw)?),
            _ if method.starts_with("$/") => {}
            _ => self.note(&format!(
                "ignored notification `{}`",
                crate::text::remote(method, 100)
            )),
        }
        Ok(())
    }

    fn initialize(&mut self, params: InitializeParams) -> Result<Value, RpcError> {
        let capabilities = &params.capabilities;
        let encoding = Encoding::negotiate(
            capabilities
                .general
                .as_ref()
                .and_then(|general| general.position_encodings.as_deref()),
        );
        self.workspace = Workspace::new(encoding);
        let workspace_edit = capabilities
            .workspace
            .as_ref()
            .and_then(|workspace| workspace.workspace_edit.as_ref());
        let operations = workspace_edit
            .and_then(|edit| edit.resource_operations.as_deref())
            .unwrap_or_default();
        self.support = EditSupport {
            document_changes: workspace_edit
                .and_then(|edit| edit.document_changes)
                .unwrap_or(false),
            rename_files: operations.contains(&lsp_types::ResourceOperationKind::Rename),
            create_files: operations.contains(&lsp_types::ResourceOperationKind::Create),
        };
        self.watch_files = capabilities
            .workspace
            .as_ref()
            .and_then(|workspace| workspace.did_change_watched_files.as_ref())
            .and_then(|watched| watched.dynamic_registration)
            .unwrap_or(false);
        let text_document = capabilities.text_document.as_ref();
        self.markdown_hover = text_document
            .and_then(|text| text.hover.as_ref())
            .and_then(|hover| hover.content_format.as_deref())
            .is_some_and(|formats| formats.contains(&MarkupKind::Markdown));
        self.markdown_completion = text_document
            .and_then(|text| text.completion.as_ref())
            .and_then(|completion| completion.completion_item.as_ref())
            .and_then(|item| item.documentation_format.as_deref())
            .is_some_and(|formats| formats.contains(&MarkupKind::Markdown));
        self.phase = Phase::Running;
        to_value(InitializeResult {
            capabilities: capabilities_announced(encoding),
            server_info: Some(ServerInfo {
                name: "squad".to_owned(),
                version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            }),
        })
    }

    /// Asks the client to report files created, changed and deleted on disk (a quick fix that
    /// created a file, a folder renamed), when it can.
    fn register_watchers(&mut self) {
        if !self.watch_files {
            return;
        }
        self.requests_sent += 1;
        let id = format!("squad-{}", self.requests_sent);
        self.send(&json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "client/registerCapability",
            "params": {"registrations": [{
                "id": "squad-watched-files",
                "method": "workspace/didChangeWatchedFiles",
                "registerOptions": {"watchers": [{"globPattern": "**/*"}]},
            }]},
        }));
    }

    // --- Documents -----------------------------------------------------------------------

    fn did_open(&mut self, params: DidOpenTextDocumentParams) {
        let item = params.text_document;
        if item.text.len() > super::MAX_DOCUMENT_BYTES {
            self.note(&format!(
                "`{}` is larger than the {} bytes kept open ({} bytes); it is checked as saved on disk",
                item.uri, super::MAX_DOCUMENT_BYTES, item.text.len()
            ));
            return;
        }
        if self.workspace.documents.len() >= super::MAX_OPEN_DOCUMENTS
            && !self.workspace.documents.contains_key(&item.uri)
        {
            self.note(&format!(
                "more than {} documents open; `{}` is not followed",
                super::MAX_OPEN_DOCUMENTS,
                item.uri
            ));
            return;
        }
        let encoding = self.workspace.encoding;
        let document = Document::new(item.uri.clone(), item.version, item.text, encoding);
        self.workspace.documents.insert(item.uri.clone(), document);
        // A manifest opened may make a package of the documents around it.
        self.refresh_packages();
        self.touch_document(&item.uri);
    }

    fn did_change(&mut self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let encoding = self.workspace.encoding;
        let Some(document) = self.workspace.documents.get_mut(&uri) else {
            self.note(&format!(
                "a change of `{uri}`, which is not open, was ignored"
            ));
            return;
        };
        if params.content_changes.len() > super::MAX_CHANGES {
            let count = params.content_changes.len();
            self.close_unusable(
                &uri,
                &format!(
                    "{count} changes in one edit (at most {})",
                    super::MAX_CHANGES
                ),
            );
            return;
        }
        let mut text = std::mem::take(&mut document.text);
        for change in params.content_changes {
            match change.range {
                Some(range) => {
                    let index = LineIndex::new(&text, encoding);
                    let span = index.span(&text, range);
                    text.replace_range(span, &change.text);
                }
                None => text = change.text,
            }
            if text.len() > super::MAX_DOCUMENT_BYTES {
                break;
            }
        }
        if text.len() > super::MAX_DOCUMENT_BYTES {
            self.close_unusable(
                &uri,
                &format!("larger than {} bytes", super::MAX_DOCUMENT_BYTES),
            );
            return;
        }
        document.set_text(text, params.text_document.version, encoding);
        self.touch_document(&uri);
    }

    /// Stops following a document the server can no longer keep in step with the editor: it
    /// is checked from the file on disk.
    fn close_unusable(&mut self, uri: &Url, why: &str) {
        self.note(&format!(
            "`{uri}` is no longer followed: {why}; it is checked as saved on disk"
        ));
        self.forget(uri);
    }

    fn did_close(&mut self, params: DidCloseTextDocumentParams) {
        self.forget(&params.text_document.uri);
    }

    fn forget(&mut self, uri: &Url) {
        let Some(document) = self.workspace.documents.remove(uri) else {
            return;
        };
        self.workspace.models.remove(uri);
        if document.package.is_none() && self.workspace.standalone_published.remove(uri) {
            self.publish(uri.clone(), Vec::new(), None);
        }
        self.refresh_packages();
        if let Some(root) = document.package {
            self.workspace.touch(&root, Instant::now());
        }
    }

    fn files_changed(&mut self, params: DidChangeWatchedFilesParams) {
        self.refresh_packages();
        let now = Instant::now();
        let roots: Vec<PathBuf> = self.workspace.packages.keys().cloned().collect();
        for change in params.changes.iter().take(super::MAX_CHANGES) {
            let Ok(path) = change.uri.to_file_path() else {
                continue;
            };
            for root in &roots {
                if path.starts_with(root) {
                    self.workspace.touch(root, now);
                }
            }
        }
    }

    fn refresh_packages(&mut self) {
        for gone in self.workspace.refresh_packages() {
            for uri in gone.published {
                self.publish(uri, Vec::new(), None);
            }
        }
    }

    /// Marks the document's package changed, or checks a document in no package at once.
    fn touch_document(&mut self, uri: &Url) {
        let Some(document) = self.workspace.documents.get(uri) else {
            return;
        };
        match document.package.clone() {
            Some(root) => self.workspace.touch(&root, Instant::now()),
            None => self.check_standalone(uri),
        }
    }

    // --- Checks --------------------------------------------------------------------------

    fn next_due(&self) -> Option<Instant> {
        self.workspace
            .packages
            .values()
            .filter_map(|package| package.due)
            .min()
    }

    /// Checks the package whose time has come first.
    fn check_due(&mut self) {
        let now = Instant::now();
        let Some(root) = self
            .workspace
            .packages
            .values()
            .filter(|package| package.due.is_some_and(|due| due <= now))
            .min_by_key(|package| package.due)
            .map(|package| package.root.clone())
        else {
            return;
        };
        self.check(&root, true);
    }

    /// Checks a package now (abandoned for a newer edit when `cancellable`) and publishes
    /// its diagnostics.
    fn check(&mut self, root: &Path, cancellable: bool) {
        let Some(abandoned) = self.workspace.packages.get(root).map(|p| p.abandoned) else {
            return;
        };
        let (overlay, versions) = self.workspace.overlay(root);
        let edits = self.edits.clone();
        let start = edits.load(Ordering::SeqCst);
        let may_abandon = cancellable && abandoned < super::MAX_ABANDONED;
        let cancelled = move || may_abandon && edits.load(Ordering::SeqCst) != start;
        let started = Instant::now();
        let result = package::validate_overlay(root, &overlay, &cancelled);
        let elapsed = started.elapsed();
        match result {
            Ok(report) => self.publish_report(root, report, versions, elapsed),
            Err(ValidateError::Cancelled(_)) => {
                if let Some(package) = self.workspace.packages.get_mut(root) {
                    package.abandoned += 1;
                    package.due = Some(Instant::now());
                }
            }
            Err(error) => {
                self.note(&format!(
                    "cannot check `{}`: {}",
                    root.display(),
                    crate::error::chain(&error)
                ));
                let published = self.workspace.packages.get_mut(root).map(|package| {
                    package.due = None;
                    package.report = None;
                    std::mem::take(&mut package.published)
                });
                for uri in published.into_iter().flatten() {
                    self.publish(uri, Vec::new(), None);
                }
            }
        }
    }

    fn publish_report(
        &mut self,
        root: &Path,
        report: package::Report,
        versions: BTreeMap<Url, i32>,
        elapsed: Duration,
    ) {
        let texts: BTreeMap<String, String> = self
            .workspace
            .documents
            .values()
            .filter(|document| document.package.as_deref() == Some(root))
            .filter_map(|document| Some((document.relative()?, document.text.clone())))
            .collect();
        let mut by_document = publish::package_diagnostics(
            root,
            &report,
            &texts,
            self.workspace.encoding,
            &mut self.pages,
        );
        // Every open document of the package hears the verdict, an empty one included: the
        // editor then knows it was checked.
        for uri in versions.keys() {
            by_document.entry(uri.clone()).or_default();
        }
        let previous = self
            .workspace
            .packages
            .get(root)
            .map(|package| package.published.clone())
            .unwrap_or_default();
        let mut published = std::collections::BTreeSet::new();
        for (uri, diagnostics) in by_document {
            published.insert(uri.clone());
            let version = versions.get(&uri).copied();
            self.publish(uri, diagnostics, version);
        }
        for uri in previous.difference(&published) {
            let version = versions.get(uri).copied();
            self.publish(uri.clone(), Vec::new(), version);
        }
        if let Some(package) = self.workspace.packages.get_mut(root) {
            package.published = published;
            package.report = Some(report);
            package.checked = versions;
            package.last_check = elapsed;
            package.abandoned = 0;
            package.due = None;
        }
    }

    fn publish(
        &mut self,
        uri: Url,
        mut diagnostics: Vec<lsp_types::Diagnostic>,
        version: Option<i32>,
    ) {
        if diagnostics.len() > super::MAX_DIAGNOSTICS_PER_DOCUMENT {
            let more = diagnostics.len() - super::MAX_DIAGNOSTICS_PER_DOCUMENT;
            diagnostics.truncate(super::MAX_DIAGNOSTICS_PER_DOCUMENT);
            diagnostics.push(lsp_types::Diagnostic {
                severity: Some(lsp_types::DiagnosticSeverity::INFORMATION),
                source: Some(publish::SOURCE.to_owned()),
                message: format!("… and {more} more; `squad validate` lists every one"),
                ..lsp_types::Diagnostic::default()
            });
        }
        self.notify(
            "textDocument/publishDiagnostics",
            PublishDiagnosticsParams {
                uri,
                diagnostics,
                version,
            },
        );
    }

    /// A document in no package: checked as the document of a neighbouring format its content
    /// says it is, as `squad validate FILE` checks it.
    fn check_standalone(&mut self, uri: &Url) {
        let Some(document) = self.workspace.documents.get(uri) else {
            return;
        };
        let name = uri
            .path()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !(name.ends_with(".json") || name.ends_with(".jsonc")) {
            return;
        }
        let interop_place = uri.path().contains("/interop/")
            || [
                ".play.json",
                ".collab.json",
                ".contract.json",
                ".handoff.json",
            ]
            .iter()
            .any(|suffix| name.ends_with(suffix));
        let (diagnostics, source) = match crate::interop::Document::parse(document.text.clone()) {
            Ok(parsed) => match crate::interop::sniff(&parsed.value) {
                Some(kind) if kind != crate::interop::Kind::Package => (
                    crate::interop::check(&parsed, kind, &crate::interop::Options::default()),
                    parsed.source,
                ),
                _ => (Vec::new(), parsed.source),
            },
            Err(unparsed) if interop_place => (vec![unparsed.diagnostic], unparsed.source),
            Err(unparsed) => (Vec::new(), unparsed.source),
        };
        let index = LineIndex::new(&source.text, self.workspace.encoding);
        let version = document.version;
        let lsp: Vec<lsp_types::Diagnostic> = diagnostics
            .iter()
            .map(|diagnostic| {
                publish::to_lsp(
                    diagnostic,
                    uri,
                    diagnostic.span.as_ref(),
                    &source.text,
                    &index,
                    &mut self.pages,
                )
            })
            .collect();
        let had = self.workspace.standalone_published.contains(uri);
        if lsp.is_empty() && !had {
            return;
        }
        if lsp.is_empty() {
            self.workspace.standalone_published.remove(uri);
        } else {
            self.workspace.standalone_published.insert(uri.clone());
        }
        self.publish(uri.clone(), lsp, Some(version));
    }

    /// Makes sure the package's last check is of the documents as they are now.
    fn ensure_checked(&mut self, root: &Path) {
        let stale = self
            .workspace
            .packages
            .get(root)
            .is_some_and(|package| package.report.is_none() || package.due.is_some());
        if stale {
            self.check(root, false);
        }
    }

    // --- Features ------------------------------------------------------------------------

    /// Runs `feature` with the package view of the document `uri`.
    fn with_view<R>(
        &mut self,
        uri: &Url,
        fresh: bool,
        feature: impl FnOnce(&View, &Workspace, &Document) -> R,
    ) -> Option<R> {
        let root = self.workspace.documents.get(uri)?.package.clone()?;
        let has_report = self
            .workspace
            .packages
            .get(&root)
            .is_some_and(|package| package.report.is_some());
        if fresh || !has_report {
            self.ensure_checked(&root);
        }
        let manifest_uri = Workspace::uri_of(&root, MANIFEST_FILE)?;
        let owned: Option<(String, Manifest)> =
            if self.workspace.documents.contains_key(&manifest_uri) {
                self.workspace.model(&manifest_uri);
                None
            } else {
                let text = self.workspace.text_of(&root, MANIFEST_FILE)?;
                let mut ignored = crate::diag::Diagnostics::default();
                let manifest = crate::manifest::check(&text, &mut ignored)?;
                Some((text, manifest))
            };
        let workspace = &self.workspace;
        let (text, manifest, current) = match &owned {
            Some((text, manifest)) => (text.as_str(), manifest, true),
            None => {
                let model = workspace.models.get(&manifest_uri)?;
                let document = workspace.documents.get(&manifest_uri)?;
                (
                    document.text.as_str(),
                    model.manifest.as_ref()?,
                    model.current,
                )
            }
        };
        let discovered = workspace
            .packages
            .get(&root)
            .and_then(|package| package.report.as_ref())
            .map(|report| &report.resources);
        let view = View {
            root: &root,
            manifest_uri,
            manifest_text: text,
            manifest,
            current,
            discovered,
            encoding: workspace.encoding,
        };
        let document = workspace.documents.get(uri)?;
        Some(feature(&view, workspace, document))
    }

    fn offset_of(&self, uri: &Url, position: lsp_types::Position) -> Option<usize> {
        let document = self.workspace.documents.get(uri)?;
        Some(document.index.offset(&document.text, position))
    }

    fn hover(&mut self, params: HoverParams) -> Option<Hover> {
        let uri = params.text_document_position_params.text_document.uri;
        let offset = self.offset_of(&uri, params.text_document_position_params.position)?;
        let mut parts: Vec<String> = self.diagnostics_at(&uri, offset);
        let document = self.workspace.documents.get(&uri)?;
        if document.package.is_some() {
            let relative = document.relative().unwrap_or_default();
            let text = self.with_view(&uri, false, |view, workspace, document| {
                if document.is_manifest() {
                    hover::manifest(view, workspace, offset)
                } else if is_mcp_declaration(&relative) {
                    hover::schema_field(
                        &crate::manifest::schema::mcp_schema(),
                        &document.text,
                        offset,
                    )
                } else {
                    None
                }
            });
            parts.extend(text.flatten());
        }
        if parts.is_empty() {
            return None;
        }
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: if self.markdown_hover {
                    MarkupKind::Markdown
                } else {
                    MarkupKind::PlainText
                },
                value: parts.join("\n\n---\n\n"),
            }),
            range: None,
        })
    }

    /// The explain summaries of the diagnostics of the last check under `offset` of `uri`.
    fn diagnostics_at(&mut self, uri: &Url, offset: usize) -> Vec<String> {
        let Some(root) = self
            .workspace
            .documents
            .get(uri)
            .and_then(|d| d.package.clone())
        else {
            return Vec::new();
        };
        let Some(package) = self.workspace.packages.get(&root) else {
            return Vec::new();
        };
        let (Some(report), Some(document)) =
            (package.report.as_ref(), self.workspace.documents.get(uri))
        else {
            return Vec::new();
        };
        if package.checked.get(uri) != Some(&document.version) {
            return Vec::new();
        }
        report
            .diagnostics
            .iter()
            .filter_map(|diagnostic| {
                let placed = publish::place(&root, report, diagnostic)?;
                let span = placed.span?;
                (placed.uri == *uri && span.start <= offset && offset <= span.end)
                    .then(|| hover::diagnostic(diagnostic.code.as_str(), &diagnostic.message))
            })
            .take(8)
            .collect()
    }

    fn completion(&mut self, params: CompletionParams) -> Option<CompletionResponse> {
        let uri = params.text_document_position.text_document.uri;
        let offset = self.offset_of(&uri, params.text_document_position.position)?;
        let document = self.workspace.documents.get(&uri)?;
        let relative = document.relative().unwrap_or_default();
        let markdown = self.markdown_completion;
        let mut items = if document.is_manifest() {
            let items = self.with_view(&uri, false, |view, _, document| {
                complete::manifest(Some(view), &document.text, offset, &document.index)
            });
            match items {
                Some(items) => items,
                None => {
                    let document = self.workspace.documents.get(&uri)?;
                    complete::manifest(None, &document.text, offset, &document.index)
                }
            }
        } else if is_mcp_declaration(&relative) {
            complete::mcp(&document.text, offset, &document.index)
        } else {
            return None;
        };
        if !markdown {
            for item in &mut items {
                if let Some(lsp_types::Documentation::MarkupContent(content)) =
                    item.documentation.take()
                {
                    item.documentation = Some(lsp_types::Documentation::String(content.value));
                }
            }
        }
        Some(CompletionResponse::List(lsp_types::CompletionList {
            is_incomplete: false,
            items,
        }))
    }

    fn definition(&mut self, params: GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
        let uri = params.text_document_position_params.text_document.uri;
        let offset = self.offset_of(&uri, params.text_document_position_params.position)?;
        let locations = self.with_view(&uri, false, |view, workspace, document| {
            if document.is_manifest() {
                navigate::definition(view, workspace, offset)
            } else {
                Vec::new()
            }
        })?;
        (!locations.is_empty()).then_some(GotoDefinitionResponse::Array(locations))
    }

    fn references(&mut self, params: ReferenceParams) -> Option<Vec<lsp_types::Location>> {
        let uri = params.text_document_position.text_document.uri;
        let offset = self.offset_of(&uri, params.text_document_position.position)?;
        let include = params.context.include_declaration;
        self.with_view(&uri, false, |view, _, document| {
            let relative = document.relative().unwrap_or_default();
            navigate::references(view, &relative, offset, include)
        })
    }

    fn prepare_rename(
        &mut self,
        params: TextDocumentPositionParams,
    ) -> Option<PrepareRenameResponse> {
        let uri = params.text_document.uri;
        let offset = self.offset_of(&uri, params.position)?;
        self.with_view(&uri, false, |view, _, document| {
            if !document.is_manifest() {
                return None;
            }
            let (span, placeholder) = navigate::prepare_rename(view, offset)?;
            Some(PrepareRenameResponse::RangeWithPlaceholder {
                range: document.index.range(&document.text, &span),
                placeholder,
            })
        })
        .flatten()
    }

    fn rename(&mut self, params: RenameParams) -> Result<lsp_types::WorkspaceEdit, RpcError> {
        let uri = params.text_document_position.text_document.uri;
        let Some(offset) = self.offset_of(&uri, params.text_document_position.position) else {
            return Err(RpcError::new(
                REQUEST_FAILED,
                format!("`{uri}` is not open"),
            ));
        };
        let support = self.support;
        let new_name = params.new_name;
        let result = self.with_view(&uri, false, |view, workspace, document| {
            if !document.is_manifest() {
                return Err("rename an agent or a node in expert-squad.jsonc".to_owned());
            }
            let version = workspace
                .documents
                .get(&view.manifest_uri)
                .map(|manifest| manifest.version);
            navigate::rename(view, offset, &new_name, version, support)
        });
        match result {
            Some(Ok(edit)) => Ok(edit),
            Some(Err(message)) => Err(RpcError::new(REQUEST_FAILED, message)),
            None => Err(RpcError::new(
                REQUEST_FAILED,
                "the document is not part of a package with a manifest",
            )),
        }
    }

    fn code_action(&mut self, params: CodeActionParams) -> Option<Vec<CodeActionOrCommand>> {
        let uri = params.text_document.uri;
        let root = self.workspace.documents.get(&uri)?.package.clone()?;
        self.ensure_checked(&root);
        let workspace = &self.workspace;
        let document = workspace.documents.get(&uri)?;
        let package: &Package = workspace.packages.get(&root)?;
        if package.checked.get(&uri) != Some(&document.version) {
            return None;
        }
        let report = package.report.as_ref()?;
        let relative = document.relative()?;
        let mut shown = Vec::new();
        for diagnostic in &report.diagnostics {
            let Some(placed) = publish::place(&root, report, diagnostic) else {
                continue;
            };
            if placed.uri != uri {
                continue;
            }
            let lsp = publish::to_lsp(
                diagnostic,
                &uri,
                placed.span.as_ref(),
                &document.text,
                &document.index,
                &mut self.pages,
            );
            shown.push(Shown {
                diagnostic,
                lsp,
                span: placed.span,
            });
        }
        let target = Target {
            root: &root,
            uri: &uri,
            relative: &relative,
            text: &document.text,
            index: &document.index,
        };
        let span = document.index.span(&document.text, params.range);
        let actions = actions::actions(
            &target,
            report,
            &shown,
            &span,
            params.context.only.as_deref(),
            self.support,
        );
        Some(
            actions
                .into_iter()
                .map(CodeActionOrCommand::CodeAction)
                .collect(),
        )
    }
}

/// Whether a package file is an MCP server declaration (`mcp/<server>.jsonc` of the package or
/// of an agent).
fn is_mcp_declaration(relative: &str) -> bool {
    let parts: Vec<&str> = relative.split('/').collect();
    let in_mcp = matches!(parts.as_slice(), ["mcp", _] | ["agents", _, "mcp", _]);
    in_mcp && (relative.ends_with(".json") || relative.ends_with(".jsonc"))
}

/// What the server announces it can do (README.md lists the same).
fn capabilities_announced(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["\"".to_owned(), "/".to_owned()]),
            ..CompletionOptions::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::SOURCE_FIX_ALL,
            ]),
            ..CodeActionOptions::default()
        })),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        ..ServerCapabilities::default()
    }
}
