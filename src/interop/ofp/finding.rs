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

    /// A finding inside a nested document, reported under the rule that nests it (`code`); the
    /// inner rule stays in the message and the keyword is kept. It is an error, except for the
    /// deviations the official samples themselves carry (see [`Finding::is_sample_drift`]):
    /// seed-formats §3.6 records that every official sample passes `spec`, so those few are
    /// warnings and nothing else is.
    pub fn nested_under(self, code: Code, what: &str) -> Self {
        let inner = self.code.as_str();
        let warning = self.warning || self.is_sample_drift();
        Finding {
            code,
            message: format!("{what}: {} [{inner}]", self.message),
            warning,
            ..self
        }
    }

    /// What the official envelope samples do inside nested documents: utterance dialog events
    /// without `id` (example-getManifests2, example-getManifests3, example-grantFloor), and
    /// published manifests whose `supportedLayers` is a list, or whose identification lacks
    /// `organization` or `conversationalName` (example-publishManifests).
    fn is_sample_drift(&self) -> bool {
        let missing = |names: &[&str]| {
            self.keyword == Some("required")
                && self
                    .missing
                    .as_deref()
                    .is_some_and(|member| names.contains(&member))
        };
        missing(&["id"]) && !self.pointer.ends_with("/identification")
            || missing(&["organization", "conversationalName"])
                && self.pointer.ends_with("/identification")
            || self.keyword == Some("type") && self.pointer.ends_with("/supportedLayers")
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
