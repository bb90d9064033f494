//! The `--format json` document. Its shape is versioned by [`SCHEMA_VERSION`] and documented in
//! `docs/json-output.md`; these types are separate from [`Diagnostic`] so that internal changes
//! never leak into the contract.

use std::collections::HashMap;

use serde::{Serialize, Serializer};

use super::{Applicability, Diagnostic, Severity};
use crate::source::{Position, SourceFile};

/// Bumped on any incompatible change of the JSON output.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Serialize)]
pub struct JsonPosition {
    pub line: usize,
    pub column: usize,
    pub offset: usize,
}

impl From<Position> for JsonPosition {
    fn from(position: Position) -> Self {
        JsonPosition {
            line: position.line,
            column: position.column,
            offset: position.offset,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct JsonLabel {
    pub start: JsonPosition,
    pub end: JsonPosition,
    pub message: String,
}

#[derive(Debug, Serialize)]
pub struct JsonDiagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    /// Package-relative path of the file concerned.
    pub file: String,
    pub pointer: Option<String>,
    /// The JSON Schema keyword broken, for schema-level findings in interop documents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<&'static str>,
    pub start: Option<JsonPosition>,
    pub end: Option<JsonPosition>,
    pub label: Option<String>,
    pub labels: Vec<JsonLabel>,
    pub help: Vec<String>,
    /// Fixes, as rustc's suggestions: replacements of ranges of `file`.
    pub suggestions: Vec<JsonSuggestion>,
}

#[derive(Debug, Serialize)]
pub struct JsonSuggestion {
    pub message: String,
    pub applicability: Applicability,
    pub edits: Vec<JsonEdit>,
}

#[derive(Debug, Serialize)]
pub struct JsonEdit {
    pub start: JsonPosition,
    pub end: JsonPosition,
    pub replacement: String,
}

#[derive(Debug, Default, Serialize, Clone, Copy)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
}

impl Summary {
    pub fn of(diagnostics: &[Diagnostic]) -> Summary {
        let mut summary = Summary::default();
        for diagnostic in diagnostics {
            summary.add(diagnostic.severity());
        }
        summary
    }

    fn add(&mut self, severity: Severity) {
        match severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
            Severity::Note => self.notes += 1,
        }
    }

    pub fn merge(&mut self, other: Summary) {
        self.errors += other.errors;
        self.warnings += other.warnings;
        self.notes += other.notes;
    }
}

impl JsonDiagnostic {
    pub fn new(diagnostic: &Diagnostic, source: Option<&SourceFile>) -> Self {
        let (start, end) = match (source, &diagnostic.span) {
            (Some(source), Some(span)) => (
                Some(source.position(span.start).into()),
                Some(source.position(span.end).into()),
            ),
            _ => (None, None),
        };
        let labels = match source {
            Some(source) => diagnostic
                .labels
                .iter()
                .map(|label| JsonLabel {
                    start: source.position(label.span.start).into(),
                    end: source.position(label.span.end).into(),
                    message: label.message.clone(),
                })
                .collect(),
            None => Vec::new(),
        };
        let suggestions = match source {
            Some(source) => diagnostic
                .suggestions
                .iter()
                .map(|suggestion| JsonSuggestion {
                    message: suggestion.message.clone(),
                    applicability: suggestion.applicability,
                    edits: suggestion
                        .edits
                        .iter()
                        .map(|edit| JsonEdit {
                            start: source.position(edit.span.start).into(),
                            end: source.position(edit.span.end).into(),
                            replacement: edit.replacement.clone(),
                        })
                        .collect(),
                })
                .collect(),
            None => Vec::new(),
        };
        JsonDiagnostic {
            code: diagnostic.code.as_str(),
            severity: diagnostic.severity(),
            message: diagnostic.message.clone(),
            file: diagnostic.file.clone(),
            pointer: diagnostic.pointer.clone(),
            keyword: diagnostic.keyword,
            start,
            end,
            label: diagnostic.span_label.clone(),
            labels,
            help: diagnostic.help.clone(),
            suggestions,
        }
    }
}

/// The diagnostics of one input, each turned into a [`JsonDiagnostic`] as it is written, so that
/// a document of many thousand diagnostics is streamed instead of built in memory first.
pub struct JsonDiagnostics<'a> {
    pub diagnostics: &'a [Diagnostic],
    pub sources: Option<&'a HashMap<String, SourceFile>>,
}

impl Serialize for JsonDiagnostics<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.diagnostics.iter().map(|diagnostic| {
            JsonDiagnostic::new(
                diagnostic,
                self.sources
                    .and_then(|sources| sources.get(&diagnostic.file)),
            )
        }))
    }
}
