//! A finding before it is positioned in a file. Open Floor documents nest other documents (an
//! utterance carries a dialog event, publishManifests carries manifests), so the same checks
//! run at a base pointer and their findings may be re-coded (O-UTTERANCE-DE, …) or downgraded
//! before they become [`Diagnostic`]s.

use crate::diag::{Code, Diagnostic};
use crate::interop::Document;
use crate::interop::document::{FILE, display_pointer};

#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub code: Code,
    /// The instance's JSON pointer in the whole document.
    pub pointer: String,
    /// The JSON Schema keyword, for schema findings.
    pub keyword: Option<&'static str>,
    pub message: String,
    /// Reported as a warning whatever the code's severity.
    pub warning: bool,
    /// Shown at the member's key rather than its value (unknown fields).
    pub at_key: bool,
    /// For `required`: the missing member.
    pub missing: Option<String>,
}

impl Finding {
    pub fn new(code: Code, pointer: &str, message: impl Into<String>) -> Self {
        Finding {
            code,
            pointer: pointer.to_owned(),
            keyword: None,
            message: message.into(),
            warning: false,
            at_key: false,
            missing: None,
        }
    }

    pub fn keyword(mut self, keyword: &'static str) -> Self {
        self.keyword = Some(keyword);
        self
    }

    pub fn at_key(mut self) -> Self {
        self.at_key = true;
        self
    }

    pub fn missing(mut self, member: String) -> Self {
        self.missing = Some(member);
        self
    }

    /// A finding inside a nested document, reported under the rule that nests it (`code`) and
    /// as a warning: the official samples themselves nest documents that break their schemas
    /// (utterances without `id`, manifests with a list as `supportedLayers`), and seed-formats
    /// §3.6 records that every official sample passes `spec`. The inner rule stays in the
    /// message and the keyword is kept.
    pub fn nested_under(self, code: Code, what: &str) -> Self {
        let inner = self.code.as_str();
        Finding {
            code,
            message: format!("{what}: {} [{inner}]", self.message),
            warning: true,
            ..self
        }
    }

    pub fn into_diagnostic(self, document: &Document) -> Diagnostic {
        let mut diagnostic = if self.at_key {
            Diagnostic::new(self.code, FILE, self.message)
                .span(document.key_span(&self.pointer))
                .pointer(display_pointer(&self.pointer))
        } else {
            document.at(self.code, &self.pointer, self.message)
        };
        if let Some(keyword) = self.keyword {
            diagnostic = diagnostic.keyword(keyword);
        }
        if self.warning {
            diagnostic = diagnostic.as_warning();
        }
        diagnostic
    }
}
