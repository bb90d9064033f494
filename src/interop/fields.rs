//! Hand-written field tables: the JSON Schema keywords (type, required, closed objects, lengths,
//! ranges, enums) for formats whose schema text squad does not embed (agents.play@1 is
//! AGPL-3.0-only; the AgentHandoff schema states no licence), so every format reports schema
//! breaks with the same codes and keywords.

use serde_json::{Map, Value};

use super::document::{Document, display_pointer, join};
use crate::diag::{Code, Diagnostic};

/// Pushes schema-level findings about one document.
pub struct Fields<'a> {
    pub doc: &'a Document,
    pub out: &'a mut Vec<Diagnostic>,
}

/// JSON Schema's type names, for messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) if is_integer_number(number) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_integer_number(number: &serde_json::Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// A JSON Schema `integer`: any number without a fractional part (`1.0` included).
pub fn as_integer(value: &Value) -> Option<f64> {
    match value {
        Value::Number(number) if is_integer_number(number) => number.as_f64(),
        _ => None,
    }
}

impl<'a> Fields<'a> {
    pub fn new(doc: &'a Document, out: &'a mut Vec<Diagnostic>) -> Self {
        Fields { doc, out }
    }

    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.out.push(diagnostic);
    }

    fn wrong_type(&mut self, pointer: &str, value: &Value, expected: &str) {
        let diagnostic = self
            .doc
            .at(
                Code::WrongType,
                pointer,
                format!(
                    "`{}` must be {expected}, found {}",
                    display_pointer(pointer),
                    type_name(value)
                ),
            )
            .keyword("type");
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
            self.wrong_type(pointer, value, "an object");
            return None;
        };
        for key in map.keys() {
            if !allowed.contains(&key.as_str()) {
                let member = join(pointer, key);
                let mut diagnostic = Diagnostic::new(
                    Code::UnknownField,
                    super::document::FILE,
                    format!("unknown field `{key}` in `{}`", display_pointer(pointer)),
                )
                .span(self.doc.key_span(&member))
                .pointer(member)
                .keyword("additionalProperties")
                .help(format!("allowed fields: {}", allowed.join(", ")));
                if unknown_as_warning {
                    diagnostic = diagnostic.as_warning();
                }
                self.out.push(diagnostic);
            }
        }
        for key in required {
            if !map.contains_key(*key) {
                let diagnostic = self
                    .doc
                    .at(
                        Code::MissingField,
                        pointer,
                        format!(
                            "`{}` is missing required field `{key}`",
                            display_pointer(pointer)
                        ),
                    )
                    .keyword("required");
                self.out.push(diagnostic);
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
            self.wrong_type(pointer, value, "a string");
            return None;
        };
        let length = text.chars().count();
        if length < min {
            self.range(
                pointer,
                "minLength",
                format!("must be at least {min} character{} long", plural(min)),
            );
        } else if let Some(max) = max.filter(|max| length > *max) {
            self.range(
                pointer,
                "maxLength",
                format!("must be at most {max} characters long (it has {length})"),
            );
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
        let Some(number) = as_integer(value) else {
            self.wrong_type(pointer, value, "an integer");
            return None;
        };
        self.bounds(pointer, number, min, max);
        Some(number)
    }

    /// A number in `min..=max`.
    pub fn number(
        &mut self,
        pointer: &str,
        value: &Value,
        min: f64,
        max: Option<f64>,
    ) -> Option<f64> {
        let Some(number) = value.as_f64() else {
            self.wrong_type(pointer, value, "a number");
            return None;
        };
        self.bounds(pointer, number, min, max);
        Some(number)
    }

    fn bounds(&mut self, pointer: &str, number: f64, min: f64, max: Option<f64>) {
        if number < min {
            self.range(pointer, "minimum", format!("must be at least {min}"));
        } else if let Some(max) = max.filter(|max| number > *max) {
            self.range(pointer, "maximum", format!("must be at most {max}"));
        }
    }

    pub fn boolean(&mut self, pointer: &str, value: &Value) -> Option<bool> {
        let Value::Bool(flag) = value else {
            self.wrong_type(pointer, value, "a boolean");
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
                let diagnostic = self
                    .doc
                    .at(
                        Code::InvalidLiteral,
                        pointer,
                        format!(
                            "`{}` must be one of {}, found {}",
                            display_pointer(pointer),
                            allowed
                                .iter()
                                .map(|item| format!("`{item}`"))
                                .collect::<Vec<_>>()
                                .join(", "),
                            compact(value)
                        ),
                    )
                    .keyword("enum");
                self.out.push(diagnostic);
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
            self.wrong_type(pointer, value, "an array");
            return None;
        };
        if items.len() < min {
            self.range(
                pointer,
                "minItems",
                format!("must have at least {min} item{}", plural(min)),
            );
        } else if let Some(max) = max.filter(|max| items.len() > *max) {
            self.range(
                pointer,
                "maxItems",
                format!("must have at most {max} items (it has {})", items.len()),
            );
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

    fn range(&mut self, pointer: &str, keyword: &'static str, message: String) {
        let diagnostic = self
            .doc
            .at(
                Code::OutOfRange,
                pointer,
                format!("`{}` {message}", display_pointer(pointer)),
            )
            .keyword(keyword);
        self.out.push(diagnostic);
    }

    /// A string that breaks a `pattern`.
    pub fn pattern(&mut self, pointer: &str, pattern: &str, text: &str) {
        let diagnostic = self
            .doc
            .at(
                Code::PatternMismatch,
                pointer,
                format!(
                    "`{}` must match `{pattern}`, found {}",
                    display_pointer(pointer),
                    compact(&Value::String(text.to_owned()))
                ),
            )
            .keyword("pattern");
        self.out.push(diagnostic);
    }
}

/// A value in one short line, for messages.
pub fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

/// `s` unless there is exactly one.
pub fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// The play slug `^[a-z][a-z0-9-]{0,60}$`.
pub fn is_slug(text: &str) -> bool {
    let bytes = text.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 61
        && bytes[0].is_ascii_lowercase()
        && bytes[1..]
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_the_play_pattern() {
        for good in ["a", "a-", "a--b", "a1", &"a".repeat(61)] {
            assert!(is_slug(good), "{good}");
        }
        for bad in ["", "1a", "A", "a_b", &"a".repeat(62), "é"] {
            assert!(!is_slug(bad), "{bad}");
        }
    }

    #[test]
    fn integers_include_whole_floats() {
        assert_eq!(as_integer(&serde_json::json!(1.0)), Some(1.0));
        assert_eq!(as_integer(&serde_json::json!(1.5)), None);
        assert_eq!(as_integer(&serde_json::json!("1")), None);
    }
}
