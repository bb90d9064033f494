//! A finding before it is positioned in a file: what every shape check produces, whether a JSON
//! Schema or a hand-written table states the rule. Open Floor documents nest other documents, so
//! their checks run at a base pointer and may re-code findings before they become
//! [`Diagnostic`]s.

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
