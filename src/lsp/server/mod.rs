//! The loop: JSON-RPC over the framed input, requests dispatched to the features, notifications
//! updating the documents, and the checks of changed packages run when their time comes.

use std::io::{Read, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    DidSaveTextDocumentParams, HoverProviderCapability, InitializeParams, InitializeResult,
    MarkupKind, OneOf, RenameOptions, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::framing;
use super::navigate::EditSupport;
use super::position::Encoding;
use super::publish::ExplainPages;
use super::workspace::Workspace;

mod documents;
mod inbox;
mod requests;

use inbox::{Inbox, Incoming, Popped, read_loop};

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
