//! One JSON document of a neighbouring format, parsed with spans so findings addressed by JSON
//! pointer can be shown at file:line:col.

use std::ops::Range;
use std::path::Path;

use serde_json::Value;

use crate::diag::{Code, Diagnostic};
use crate::jsonc::{self, Kind as NodeKind, Node};
use crate::source::SourceFile;

/// The most squad reads of one document. Real documents are a few kilobytes; this bounds the
/// memory a hostile file can take.
pub const MAX_DOCUMENT_BYTES: u64 = 16 * 1024 * 1024;

/// Diagnostics of a single document name the document itself, not a file inside it.
pub const FILE: &str = ".";

#[derive(Debug)]
pub struct Document {
    pub source: SourceFile,
    pub root: Node,
    pub value: Value,
    /// The file was not valid UTF-8; invalid bytes were read as U+FFFD.
    pub lossy: bool,
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
                    lossy: false,
                })
            }
            Err(error) => Err(Box::new(Unparsed {
                diagnostic: crate::manifest::syntax_diagnostic(FILE, &error),
                source,
            })),
        }
    }

    /// Reads and parses a file. `Err(Ok(..))` is a document that is not JSON or too large (a
    /// finding); `Err(Err(..))` an I/O failure.
    pub fn read(path: &Path) -> Result<Document, Result<Box<Unparsed>, std::io::Error>> {
        let size = std::fs::metadata(path).map_err(Err)?.len();
        if size > MAX_DOCUMENT_BYTES {
            return Err(Ok(Box::new(Unparsed {
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
        let bytes = std::fs::read(path).map_err(Err)?;
        let (text, lossy) = match String::from_utf8(bytes) {
            Ok(text) => (text, false),
            Err(error) => (String::from_utf8_lossy(error.as_bytes()).into_owned(), true),
        };
        let mut document = Document::parse(text).map_err(Ok)?;
        document.lossy = lossy;
        Ok(document)
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

/// `""` (the whole document) is shown as `/`, as the reference validators do.
pub fn display_pointer(pointer: &str) -> String {
    if pointer.is_empty() {
        "/".to_owned()
    } else {
        pointer.to_owned()
    }
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
    fn broken_json_is_a_syntax_diagnostic() {
        let unparsed = Document::parse("{\"a\": ".to_owned()).unwrap_err();
        assert_eq!(unparsed.diagnostic.code, Code::JsoncSyntax);
    }
}
