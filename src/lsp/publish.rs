//! Diagnostics as the editor gets them: a check's [`Diagnostic`]s grouped by the document they
//! point into, positioned in the text that was checked, with the code's explain page linked.
//! The codes, messages and spans are validation's own; help lines and labels travel as
//! related information, since editors show only the message in place.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};

use lsp_types::{
    CodeDescription, Diagnostic as LspDiagnostic, DiagnosticRelatedInformation, DiagnosticSeverity,
    Location, NumberOrString, Url,
};

use super::position::{Encoding, LineIndex};
use super::workspace::Workspace;
use crate::diag::{Code, Diagnostic, Severity};
use crate::jsonc::{Kind, Node};
use crate::manifest::MANIFEST_FILE;
use crate::package::Report;

/// The `source` of every diagnostic the server publishes.
pub const SOURCE: &str = "squad";

/// The explain pages, written once each as files the editor can open from a diagnostic's
/// `codeDescription` link (a `squad explain CODE` text, in squad's cache folder).
#[derive(Debug, Default)]
pub struct ExplainPages {
    folder: Option<PathBuf>,
    written: HashMap<Code, Option<Url>>,
}

impl ExplainPages {
    pub fn new(cache: Option<PathBuf>) -> ExplainPages {
        ExplainPages {
            folder: cache.map(|cache| cache.join("explain").join(env!("CARGO_PKG_VERSION"))),
            written: HashMap::new(),
        }
    }

    /// The URI of `code`'s page, written there first if it is not yet.
    pub fn uri(&mut self, code: Code) -> Option<Url> {
        if let Some(uri) = self.written.get(&code) {
            return uri.clone();
        }
        let uri = self.folder.as_ref().and_then(|folder| {
            let page = crate::diag::explain::page(code.as_str())?;
            let path = folder.join(format!("{}.md", code.as_str()));
            let current = crate::fs::read_regular(&path).ok();
            if current.as_deref() != Some(page.as_bytes()) {
                crate::fs::create_dir_all(folder).ok()?;
                crate::fs::replace_file(&path, page.as_bytes()).ok()?;
            }
            Url::from_file_path(&path).ok()
        });
        self.written.insert(code, uri.clone());
        uri
    }
}

/// Where a diagnostic is shown: the document and the byte span in its text.
pub struct Placed {
    pub uri: Url,
    pub relative: String,
    pub span: Option<Range<usize>>,
}

/// The document a diagnostic of the package at `root` is shown in: its own file when that is
/// a file of the package; else the manifest, at the value its pointer names (a missing file, a
/// folder, the package itself).
pub fn place(root: &Path, report: &Report, diagnostic: &Diagnostic) -> Option<Placed> {
    let is_file =
        report.tree.is_file(&diagnostic.file) || report.sources.contains_key(&diagnostic.file);
    if is_file {
        return Some(Placed {
            uri: Workspace::uri_of(root, &diagnostic.file)?,
            relative: diagnostic.file.clone(),
            span: diagnostic.span.clone(),
        });
    }
    let span = diagnostic.pointer.as_deref().and_then(|pointer| {
        let tree = report.manifest.as_ref()?.tree.as_ref()?;
        pointer_span(tree, pointer)
    });
    Some(Placed {
        uri: Workspace::uri_of(root, MANIFEST_FILE)?,
        relative: MANIFEST_FILE.to_owned(),
        span,
    })
}

/// The span of the value at a JSON pointer (RFC 6901) of a parsed document.
pub fn pointer_span(root: &Node, pointer: &str) -> Option<Range<usize>> {
    let mut node = root;
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        node = match &node.kind {
            Kind::Object(members) => {
                &members
                    .iter()
                    .rev()
                    .find(|member| member.key == token)?
                    .value
            }
            Kind::Array(items) => items.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(node.span.clone())
}

pub fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
    }
}

/// One diagnostic for the editor, positioned in `text` (the text that was checked).
pub fn to_lsp(
    diagnostic: &Diagnostic,
    uri: &Url,
    span: Option<&Range<usize>>,
    text: &str,
    index: &LineIndex,
    pages: &mut ExplainPages,
) -> LspDiagnostic {
    let range = match span {
        Some(span) if span.end <= text.len() => index.range(text, span),
        _ => lsp_types::Range::default(),
    };
    let mut related = Vec::new();
    for label in &diagnostic.labels {
        if label.span.end <= text.len() && span.is_some() {
            related.push(DiagnosticRelatedInformation {
                location: Location::new(uri.clone(), index.range(text, &label.span)),
                message: label.message.clone(),
            });
        }
    }
    if let Some(label) = &diagnostic.span_label {
        related.push(DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), range),
            message: label.clone(),
        });
    }
    for help in &diagnostic.help {
        related.push(DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), range),
            message: format!("help: {help}"),
        });
    }
    LspDiagnostic {
        range,
        severity: Some(severity(diagnostic.severity())),
        code: Some(NumberOrString::String(diagnostic.code.as_str().to_owned())),
        code_description: pages
            .uri(diagnostic.code)
            .map(|href| CodeDescription { href }),
        source: Some(SOURCE.to_owned()),
        message: diagnostic.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: diagnostic
            .pointer
            .as_ref()
            .map(|pointer| serde_json::json!({ "pointer": pointer })),
    }
}

/// Every diagnostic of a package's report, by the document it is shown in. `texts` are the
/// texts of the open documents (by package-relative path); the others come from the report.
pub fn package_diagnostics(
    root: &Path,
    report: &Report,
    texts: &BTreeMap<String, String>,
    encoding: Encoding,
    pages: &mut ExplainPages,
) -> BTreeMap<Url, Vec<LspDiagnostic>> {
    let mut by_document: BTreeMap<Url, Vec<LspDiagnostic>> = BTreeMap::new();
    let mut indexes: HashMap<String, LineIndex> = HashMap::new();
    for diagnostic in &report.diagnostics {
        let Some(placed) = place(root, report, diagnostic) else {
            continue;
        };
        let text = texts.get(&placed.relative).map(String::as_str).or_else(|| {
            report
                .sources
                .get(&placed.relative)
                .map(|s| s.text.as_str())
        });
        // A file-level finding about a file whose text was not read has no span to place.
        let text = text.unwrap_or_default();
        let index = indexes
            .entry(placed.relative.clone())
            .or_insert_with(|| LineIndex::new(text, encoding));
        let lsp = to_lsp(
            diagnostic,
            &placed.uri,
            placed.span.as_ref(),
            text,
            index,
            pages,
        );
        by_document.entry(placed.uri).or_default().push(lsp);
    }
    by_document
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_find_values() {
        let text = r#"{"a": {"b~/c": [1, "x"]}}"#;
        let root = crate::jsonc::parse(text).unwrap();
        let span = pointer_span(&root, "/a/b~0~1c/1").unwrap();
        assert_eq!(&text[span], "\"x\"");
        assert_eq!(pointer_span(&root, ""), Some(0..text.len()));
        assert_eq!(pointer_span(&root, "/a/zz"), None);
        assert_eq!(pointer_span(&root, "/a/b~0~1c/9"), None);
    }
}
