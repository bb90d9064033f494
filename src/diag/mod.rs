//! Diagnostics: what is wrong with a package, as data.
//!
//! Checks push [`Diagnostic`]s into a [`Diagnostics`] collector instead of stopping at the first
//! problem. Each diagnostic names its file (package-relative, `/`-separated), an optional byte
//! span in that file, the JSON pointer of the manifest value it concerns, and hints. Rendering
//! (human, JSON, SARIF or GitHub annotations) happens once, at the end, in [`render`] (with the
//! [`limit`] of what people are shown), [`json`], [`sarif`] and [`github`]; [`explain`] holds
//! the page of each code.

mod code;
pub mod docs;
pub mod explain;
pub mod github;
pub mod json;
pub mod limit;
pub mod render;
pub mod sarif;

pub use code::Code;

use std::ops::Range;

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A secondary span in the same file, with its own message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub span: Range<usize>,
    pub message: String,
}

/// How sure a [`Suggestion`] is, in rustc's terms: `squad fix` applies only machine-applicable
/// ones; the others are shown (and written to JSON) for people and editors to choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// The change is what the rule wants and nothing else: safe to apply unattended.
    MachineApplicable,
    /// Probably right (for example the one close match of a misspelt name), but a person should
    /// look first.
    MaybeIncorrect,
}

/// One replacement of a byte range of the diagnostic's file; an empty range inserts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Edit {
    pub span: Range<usize>,
    pub replacement: String,
}

/// A fix for a diagnostic, as rustc's suggestions are: what it does, in words, and the edits of
/// the diagnostic's file that do it (applied together, never overlapping).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Suggestion {
    pub message: String,
    pub edits: Vec<Edit>,
    pub applicability: Applicability,
}

impl Suggestion {
    /// A machine-applicable suggestion of one replacement.
    pub fn replace(
        message: impl Into<String>,
        span: Range<usize>,
        replacement: impl Into<String>,
    ) -> Suggestion {
        Suggestion {
            message: message.into(),
            edits: vec![Edit {
                span,
                replacement: replacement.into(),
            }],
            applicability: Applicability::MachineApplicable,
        }
    }

    pub fn maybe_incorrect(mut self) -> Suggestion {
        self.applicability = Applicability::MaybeIncorrect;
        self
    }

    pub fn is_machine_applicable(&self) -> bool {
        self.applicability == Applicability::MachineApplicable
    }
}

/// One problem found in a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub message: String,
    /// Package-relative path with `/` separators; `.` for the package root itself.
    pub file: String,
    pub span: Option<Range<usize>>,
    /// Text shown under the primary span.
    pub span_label: Option<String>,
    /// JSON pointer of the manifest (or declaration) value concerned, e.g. `/capability_projection/agents/x`.
    pub pointer: Option<String>,
    pub labels: Vec<Label>,
    pub help: Vec<String>,
    /// Fixes of this file that resolve the problem (see `squad fix`).
    pub suggestions: Vec<Suggestion>,
    /// The JSON Schema keyword a schema-level finding breaks (`required`, `minItems`, …).
    pub keyword: Option<&'static str>,
    /// A severity other than the code's own: `--level lenient` turns some errors into warnings.
    pub severity_override: Option<Severity>,
}

impl Diagnostic {
    pub fn new(code: Code, file: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            message: message.into(),
            file: file.into(),
            span: None,
            span_label: None,
            pointer: None,
            labels: Vec::new(),
            help: Vec::new(),
            suggestions: Vec::new(),
            keyword: None,
            severity_override: None,
        }
    }

    pub fn severity(&self) -> Severity {
        self.severity_override.unwrap_or(self.code.severity())
    }

    pub fn keyword(mut self, keyword: &'static str) -> Self {
        self.keyword = Some(keyword);
        self
    }

    /// Reports this diagnostic as a warning whatever its code's severity.
    pub fn as_warning(mut self) -> Self {
        self.severity_override = Some(Severity::Warning);
        self
    }

    pub fn span(mut self, span: Range<usize>) -> Self {
        self.span = Some(span);
        self
    }

    pub fn span_label(mut self, text: impl Into<String>) -> Self {
        self.span_label = Some(text.into());
        self
    }

    pub fn pointer(mut self, pointer: impl Into<String>) -> Self {
        self.pointer = Some(pointer.into());
        self
    }

    pub fn label(mut self, span: Range<usize>, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn help(mut self, text: impl Into<String>) -> Self {
        self.help.push(text.into());
        self
    }

    /// Adds a fix. Its message becomes a `help:` line too (unless one says the same), so every
    /// output shows it; `--format json` also carries the edits.
    pub fn suggest(mut self, suggestion: Suggestion) -> Self {
        if !self.help.contains(&suggestion.message) {
            self.help.push(suggestion.message.clone());
        }
        self.suggestions.push(suggestion);
        self
    }

    /// Whether `squad fix` can resolve this diagnostic unattended.
    pub fn is_fixable(&self) -> bool {
        self.suggestions
            .iter()
            .any(Suggestion::is_machine_applicable)
    }
}

/// Whether any of `diagnostics` is an error (warnings and notes never make a result invalid).
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics
        .iter()
        .any(|diagnostic| diagnostic.severity() == Severity::Error)
}

/// Collects diagnostics during validation.
#[derive(Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.items.push(diagnostic);
    }

    pub fn has_errors(&self) -> bool {
        has_errors(&self.items)
    }

    /// Sorted by file, then position (file-level diagnostics first), then code; exact duplicates
    /// (the same rule reached twice through one cause) are dropped.
    pub fn into_sorted(mut self) -> Vec<Diagnostic> {
        self.items.sort_by(|a, b| {
            (
                &a.file,
                a.span.as_ref().map(|s| (s.start, s.end)),
                a.code,
                &a.message,
            )
                .cmp(&(
                    &b.file,
                    b.span.as_ref().map(|s| (s.start, s.end)),
                    b.code,
                    &b.message,
                ))
        });
        self.items.dedup();
        self.items
    }
}
