//! Hand-written field tables: the JSON Schema keywords (type, required, closed objects, lengths,
//! ranges, enums) for formats whose schema text squad does not embed (agents.play@1 is
//! AGPL-3.0-only; the AgentHandoff schema states no licence). Each break is made by the same
//! constructors as an embedded schema's (see [`super`]).

use serde_json::{Map, Value};

use super::{
    Bound, Finding, as_integer, missing_field, not_allowed, out_of_range, pattern_mismatch,
    unknown_field, wrong_type,
};
use crate::diag::Diagnostic;
use crate::interop::document::{Document, join};

/// Pushes schema-level findings about one document.
pub struct Fields<'a> {
    pub doc: &'a Document,
    pub out: &'a mut Vec<Diagnostic>,
}

impl<'a> Fields<'a> {
    pub fn new(doc: &'a Document, out: &'a mut Vec<Diagnostic>) -> Self {
        Fields { doc, out }
    }

    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.out.push(diagnostic);
    }

    fn report(&mut self, finding: Finding) {
        let diagnostic = finding.into_diagnostic(self.doc);
        self.out.push(diagnostic);
    }

    /// An object with the given members. Unknown members are errors (`additionalProperties:
    /// false`), or warnings when `unknown_as_warning`; missing required ones are errors.
    pub fn object<'v>(
        &mut self,
        pointer: &str,
        value: &'v Value,
        allowed: &[&str],
        required: &[&str],
        unknown_as_warning: bool,
    ) -> Option<&'v Map<String, Value>> {
        let Value::Object(map) = value else {
            self.report(wrong_type(pointer, &["object"], value));
            return None;
        };
        for key in map.keys() {
            if !allowed.contains(&key.as_str()) {
                let mut finding = unknown_field(pointer, key);
                finding.warning = unknown_as_warning;
                let diagnostic = finding
                    .into_diagnostic(self.doc)
                    .help(format!("allowed fields: {}", allowed.join(", ")));
                self.out.push(diagnostic);
            }
        }
        for key in required {
            if !map.contains_key(*key) {
                self.report(missing_field(pointer, key));
            }
        }
        Some(map)
    }

    /// A string of `min..=max` characters (code points, as JSON Schema counts them).
    pub fn string<'v>(
        &mut self,
        pointer: &str,
        value: &'v Value,
        min: usize,
        max: Option<usize>,
    ) -> Option<&'v str> {
        let Value::String(text) = value else {
            self.report(wrong_type(pointer, &["string"], value));
            return None;
        };
        let length = text.chars().count();
        if length < min {
            self.report(out_of_range(pointer, Bound::MinLength(min as u64), value));
        } else if let Some(max) = max.filter(|max| length > *max) {
            self.report(out_of_range(pointer, Bound::MaxLength(max as u64), value));
        }
        Some(text)
    }

    /// An integer in `min..=max`.
    pub fn integer(
        &mut self,
        pointer: &str,
        value: &Value,
        min: f64,
        max: Option<f64>,
    ) -> Option<f64> {
        self.bounded(pointer, value, "integer", as_integer(value), min, max)
    }

    /// A number in `min..=max`.
    pub fn number(
        &mut self,
        pointer: &str,
        value: &Value,
        min: f64,
        max: Option<f64>,
    ) -> Option<f64> {
        self.bounded(pointer, value, "number", value.as_f64(), min, max)
    }

    /// `number`, the value read as `kind`, in `min..=max`.
    fn bounded(
        &mut self,
        pointer: &str,
        value: &Value,
        kind: &str,
        number: Option<f64>,
        min: f64,
        max: Option<f64>,
    ) -> Option<f64> {
        let Some(number) = number else {
            self.report(wrong_type(pointer, &[kind], value));
            return None;
        };
        if number < min {
            self.report(out_of_range(
                pointer,
                Bound::Minimum(min.to_string()),
                value,
            ));
        } else if let Some(max) = max.filter(|max| number > *max) {
            self.report(out_of_range(
                pointer,
                Bound::Maximum(max.to_string()),
                value,
            ));
        }
        Some(number)
    }

    pub fn boolean(&mut self, pointer: &str, value: &Value) -> Option<bool> {
        let Value::Bool(flag) = value else {
            self.report(wrong_type(pointer, &["boolean"], value));
            return None;
        };
        Some(*flag)
    }

    /// A string that is one of `allowed`.
    pub fn one_of<'v>(
        &mut self,
        pointer: &str,
        value: &'v Value,
        allowed: &[&str],
    ) -> Option<&'v str> {
        match value.as_str() {
            Some(text) if allowed.contains(&text) => Some(text),
            _ => {
                let allowed: Vec<Value> = allowed.iter().map(|item| Value::from(*item)).collect();
                self.report(not_allowed(pointer, &allowed, value));
                None
            }
        }
    }

    /// An array of `min..=max` items.
    pub fn array<'v>(
        &mut self,
        pointer: &str,
        value: &'v Value,
        min: usize,
        max: Option<usize>,
    ) -> Option<&'v [Value]> {
        let Value::Array(items) = value else {
            self.report(wrong_type(pointer, &["array"], value));
            return None;
        };
        if items.len() < min {
            self.report(out_of_range(pointer, Bound::MinItems(min as u64), value));
        } else if let Some(max) = max.filter(|max| items.len() > *max) {
            self.report(out_of_range(pointer, Bound::MaxItems(max as u64), value));
        }
        Some(items)
    }

    /// An array of strings, each `min_length..` characters long.
    pub fn strings<'v>(
        &mut self,
        pointer: &str,
        value: &'v Value,
        min_items: usize,
        max_items: Option<usize>,
    ) -> Vec<(String, &'v str)> {
        let mut strings = Vec::new();
        if let Some(items) = self.array(pointer, value, min_items, max_items) {
            for (index, item) in items.iter().enumerate() {
                let item_pointer = join(pointer, index);
                if let Some(text) = self.string(&item_pointer, item, 0, None) {
                    strings.push((item_pointer, text));
                }
            }
        }
        strings
    }

    /// A string that breaks a `pattern`.
    pub fn pattern(&mut self, pointer: &str, pattern: &str, text: &str) {
        self.report(pattern_mismatch(
            pointer,
            pattern,
            &Value::String(text.to_owned()),
        ));
    }
}
