//! One JSON document of a neighbouring format, parsed with spans so findings addressed by JSON
//! pointer can be shown at file:line:col.

use std::ops::Range;
use std::path::Path;

use serde_json::Value;

use crate::diag::{Code, Diagnostic};
use crate::jsonc::{self, Kind as NodeKind, Node};
use crate::source::{SourceFile, decode_lossy};

/// The most squad reads of one document. Real documents are a few kilobytes; this bounds the
/// memory a hostile file can take.
pub const MAX_DOCUMENT_BYTES: u64 = 16 * 1024 * 1024;

/// Diagnostics of a single document name the document itself, not a file inside it.
pub const FILE: &str = ".";

#[derive(Debug, Clone)]
pub struct Document {
    pub source: SourceFile,
    pub root: Node,
    pub value: Value,
    /// Findings about the file itself (not UTF-8), made when it was read. They hold whatever
    /// the document is checked as, so every check starts from them.
    pub notes: Vec<Diagnostic>,
}

/// A file as read: its document, or why it has none.
#[derive(Debug)]
pub enum Read {
    Parsed(Document),
    /// Not JSON, or too large: a finding to report about the file.
    Unparsed(Box<Unparsed>),
}

/// Why a document could not be parsed: a diagnostic to report (syntax, size), with the text
/// that was read, if any.
#[derive(Debug)]
pub struct Unparsed {
    pub diagnostic: Diagnostic,
    pub source: SourceFile,
}

impl Document {
    /// Parses JSON text (comments and trailing commas are tolerated, as in the manifest).
    pub fn parse(text: String) -> Result<Document, Box<Unparsed>> {
        let source = SourceFile::new(text);
        match jsonc::parse(&source.text) {
            Ok(root) => {
                let value = jsonc::to_value(&root);
                Ok(Document {
                    source,
                    root,
                    value,
                    notes: Vec::new(),
                })
            }
            Err(error) => Err(Box::new(Unparsed {
                diagnostic: crate::manifest::syntax_diagnostic(FILE, &error),
                source,
            })),
        }
    }

    /// A document already parsed, such as the manifest validation read.
    pub fn from_parsed(source: SourceFile, root: Node) -> Document {
        let value = jsonc::to_value(&root);
        Document {
            source,
            root,
            value,
            notes: Vec::new(),
        }
    }

    /// Parses a file's bytes. Text that is not UTF-8 is read on, as the manifest is, with
    /// invalid bytes as U+FFFD and a note saying so.
    pub fn from_bytes(bytes: &[u8]) -> Read {
        let (text, lossy) = decode_lossy(bytes);
        let mut document = match Document::parse(text) {
            Ok(document) => document,
            Err(unparsed) => return Read::Unparsed(unparsed),
        };
        if lossy {
            // JSON is UTF-8 (RFC 8259).
            document.notes.push(
                Diagnostic::new(
                    Code::InvalidUtf8,
                    FILE,
                    "the document is not valid UTF-8; invalid bytes were read as U+FFFD",
                )
                .help("save the file as UTF-8"),
            );
        }
        Read::Parsed(document)
    }

    /// Reads and parses a file; only an I/O failure is an error.
    pub fn read(path: &Path) -> std::io::Result<Read> {
        Ok(match read_bytes(path)? {
            Ok(bytes) => Document::from_bytes(&bytes),
            Err(too_large) => Read::Unparsed(too_large),
        })
    }

    /// The node at a JSON pointer (RFC 6901), if it exists.
    pub fn node(&self, pointer: &str) -> Option<&Node> {
        let mut node = &self.root;
        for token in tokens(pointer) {
            node = child(node, &token)?;
        }
        Some(node)
    }

    /// The span to show for a pointer: the value's span, or that of its nearest existing
    /// ancestor (a missing member is shown at the object that lacks it).
    pub fn span(&self, pointer: &str) -> Range<usize> {
        let mut node = &self.root;
        for token in tokens(pointer) {
            match child(node, &token) {
                Some(next) => node = next,
                None => break,
            }
        }
        node.span.clone()
    }

    /// The span of a member's key (`"key"`), or of the value when the pointer names an array
    /// item or the root.
    pub fn key_span(&self, pointer: &str) -> Range<usize> {
        let Some((parent, last)) = pointer.rsplit_once('/') else {
            return self.root.span.clone();
        };
        let last = unescape(last);
        if let Some(Node {
            kind: NodeKind::Object(members),
            ..
        }) = self.node(parent)
            && let Some(member) = members.iter().rev().find(|member| member.key == last)
        {
            return member.key_span.clone();
        }
        self.span(pointer)
    }

    /// The exact source text of a number, for arithmetic that must not go through f64.
    pub fn number_text(&self, pointer: &str) -> Option<&str> {
        let node = self.node(pointer)?;
        match node.kind {
            NodeKind::Number(_) => self.source.text.get(node.span.clone()),
            _ => None,
        }
    }

    /// A diagnostic about the value at `pointer`, positioned at it.
    pub fn at(&self, code: Code, pointer: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(code, FILE, message)
            .span(self.span(pointer))
            .pointer(display_pointer(pointer))
    }
}

/// A document file's bytes, unless it is larger than squad reads (a finding).
pub fn read_bytes(path: &Path) -> std::io::Result<Result<Vec<u8>, Box<Unparsed>>> {
    let size = crate::fs::metadata(path)?.len();
    if size > MAX_DOCUMENT_BYTES {
        return Ok(Err(Box::new(Unparsed {
            diagnostic: Diagnostic::new(
                Code::DocumentTooLarge,
                FILE,
                format!(
                    "the document is {size} bytes; squad reads documents of at most {MAX_DOCUMENT_BYTES} bytes"
                ),
            ),
            source: SourceFile::new(String::new()),
        })));
    }
    crate::fs::read(path).map(Ok)
}

/// `""` (the whole document) is shown as `/`, as the reference validators do.
pub fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}

/// Appends one reference token to a pointer, escaping `~` and `/`.
pub fn join(pointer: &str, token: impl std::fmt::Display) -> String {
    let token = token.to_string().replace('~', "~0").replace('/', "~1");
    format!("{pointer}/{token}")
}

fn tokens(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .filter(move |_| !pointer.is_empty() && pointer != "/")
        .map(unescape)
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

fn child<'a>(node: &'a Node, token: &str) -> Option<&'a Node> {
    match &node.kind {
        NodeKind::Object(members) => members
            .iter()
            .rev()
            .find(|member| member.key == token)
            .map(|member| &member.value),
        NodeKind::Array(items) => token
            .parse::<usize>()
            .ok()
            .and_then(|index| items.get(index)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(text: &str) -> Document {
        Document::parse(text.to_owned()).unwrap()
    }

    #[test]
    fn pointers_find_values_and_fall_back_to_the_nearest_ancestor() {
        let doc = document(r#"{"a": {"b/c": [1, 22]}, "x~y": true}"#);
        assert_eq!(&doc.source.text[doc.span("/a/b~1c/1")], "22");
        assert_eq!(&doc.source.text[doc.span("/x~0y")], "true");
        assert_eq!(
            &doc.source.text[doc.span("/a/missing")],
            r#"{"b/c": [1, 22]}"#
        );
        assert_eq!(&doc.source.text[doc.key_span("/a")], r#""a""#);
        assert_eq!(doc.span(""), 0..doc.source.text.len());
        assert_eq!(doc.number_text("/a/b~1c/1"), Some("22"));
        assert_eq!(join("/a", "b/c~"), "/a/b~1c~0");
    }

    #[test]
    fn bytes_that_are_not_utf8_are_read_on_with_a_note() {
        let Read::Parsed(doc) = Document::from_bytes(b"{\"a\": \"\xff\"}") else {
            panic!("not parsed");
        };
        assert_eq!(doc.value["a"], "\u{FFFD}");
        assert_eq!(doc.notes.len(), 1);
        assert_eq!(doc.notes[0].code, Code::InvalidUtf8);
        let Read::Parsed(doc) = Document::from_bytes(b"{}") else {
            panic!("not parsed");
        };
        assert!(doc.notes.is_empty());
    }

    #[test]
    fn broken_json_is_a_syntax_diagnostic() {
        let unparsed = Document::parse("{\"a\": ".to_owned()).unwrap_err();
        assert_eq!(unparsed.diagnostic.code, Code::JsoncSyntax);
    }
}
