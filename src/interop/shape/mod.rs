//! One way to check the shape of an interop document. A rule that a JSON Schema keyword states
//! (`type`, `required`, closed objects, `enum`, lengths and ranges, `pattern`) becomes a
//! [`Finding`] through the constructors here, whether the schema's text is embedded and run by
//! the `jsonschema` crate ([`schema`]: Open Floor, `--schema FILE`) or written as a table in
//! Rust ([`fields`]: plays, handoffs, router documents, collaborations, projects, for schemas
//! squad may not embed). Either way a break has the same code, keyword and wording, so a user
//! who adds `--schema` sees the same finding once, not two phrasings of it.

pub mod fields;
mod finding;
pub mod schema;

use serde_json::Value;

use crate::diag::Code;
use crate::interop::document::{display_pointer, join};
pub use finding::Finding;

/// A value of the wrong JSON type: `expected` lists JSON Schema type names (`"object"`,
/// `"integer"`, …), any of which would do.
pub fn wrong_type(pointer: &str, expected: &[&str], found: &Value) -> Finding {
    let expected = expected
        .iter()
        .map(|name| match *name {
            "null" => "null".to_owned(),
            name @ ("object" | "array" | "integer") => format!("an {name}"),
            name => format!("a {name}"),
        })
        .collect::<Vec<_>>()
        .join(" or ");
    Finding::new(
        Code::WrongType,
        pointer,
        format!(
            "`{}` must be {expected}, found {}",
            display_pointer(pointer),
            type_name(found)
        ),
    )
    .keyword("type")
}

/// An object without a member its schema requires.
pub fn missing_field(pointer: &str, member: &str) -> Finding {
    Finding::new(
        Code::MissingField,
        pointer,
        format!(
            "`{}` is missing required field `{member}`",
            display_pointer(pointer)
        ),
    )
    .keyword("required")
    .missing(member.to_owned())
}

/// A member a closed object does not allow, shown at its key.
pub fn unknown_field(object: &str, key: &str) -> Finding {
    Finding::new(
        Code::UnknownField,
        &join(object, key),
        format!("unknown field `{key}` in `{}`", display_pointer(object)),
    )
    .keyword("additionalProperties")
    .at_key()
}

/// A value outside an `enum` (or a `const`, a one-item list).
pub fn not_allowed(pointer: &str, allowed: &[Value], found: &Value) -> Finding {
    let allowed = allowed
        .iter()
        .map(|item| {
            format!(
                "`{}`",
                item.as_str()
                    .map_or_else(|| item.to_string(), str::to_owned)
            )
        })
        .collect::<Vec<_>>();
    let what = match allowed.as_slice() {
        [one] => one.clone(),
        many => format!("one of {}", many.join(", ")),
    };
    Finding::new(
        Code::InvalidLiteral,
        pointer,
        format!(
            "`{}` must be {what}, found {}",
            display_pointer(pointer),
            compact(found)
        ),
    )
    .keyword("enum")
}

/// A size or a number a schema bounds.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    MinLength(u64),
    MaxLength(u64),
    MinItems(u64),
    MaxItems(u64),
    MinProperties(u64),
    MaxProperties(u64),
    /// The limits of numbers, as their JSON text.
    Minimum(String),
    Maximum(String),
    ExclusiveMinimum(String),
    ExclusiveMaximum(String),
}

impl Bound {
    pub fn keyword(&self) -> &'static str {
        match self {
            Bound::MinLength(_) => "minLength",
            Bound::MaxLength(_) => "maxLength",
            Bound::MinItems(_) => "minItems",
            Bound::MaxItems(_) => "maxItems",
            Bound::MinProperties(_) => "minProperties",
            Bound::MaxProperties(_) => "maxProperties",
            Bound::Minimum(_) => "minimum",
            Bound::Maximum(_) => "maximum",
            Bound::ExclusiveMinimum(_) => "exclusiveMinimum",
            Bound::ExclusiveMaximum(_) => "exclusiveMaximum",
        }
    }
}

/// A value that breaks `bound`. Counts are what JSON Schema counts: characters are code points.
pub fn out_of_range(pointer: &str, bound: Bound, found: &Value) -> Finding {
    let count = |limit: u64, one: &str, many: &str| {
        format!("{limit} {}", if limit == 1 { one } else { many })
    };
    let has = match found {
        Value::String(text) => text.chars().count(),
        Value::Array(items) => items.len(),
        Value::Object(members) => members.len(),
        _ => 0,
    };
    let detail = match &bound {
        Bound::MinLength(limit) => format!(
            "must be at least {} long",
            count(*limit, "character", "characters")
        ),
        Bound::MaxLength(limit) => format!(
            "must be at most {} long (it has {has})",
            count(*limit, "character", "characters")
        ),
        Bound::MinItems(limit) => format!("must have at least {}", count(*limit, "item", "items")),
        Bound::MaxItems(limit) => format!(
            "must have at most {} (it has {has})",
            count(*limit, "item", "items")
        ),
        Bound::MinProperties(limit) => {
            format!("must have at least {}", count(*limit, "member", "members"))
        }
        Bound::MaxProperties(limit) => format!(
            "must have at most {} (it has {has})",
            count(*limit, "member", "members")
        ),
        Bound::Minimum(limit) => format!("must be at least {limit}, found {}", compact(found)),
        Bound::Maximum(limit) => format!("must be at most {limit}, found {}", compact(found)),
        Bound::ExclusiveMinimum(limit) => {
            format!("must be greater than {limit}, found {}", compact(found))
        }
        Bound::ExclusiveMaximum(limit) => {
            format!("must be less than {limit}, found {}", compact(found))
        }
    };
    Finding::new(
        Code::OutOfRange,
        pointer,
        format!("`{}` {detail}", display_pointer(pointer)),
    )
    .keyword(bound.keyword())
}

/// A string that does not match a `pattern`.
pub fn pattern_mismatch(pointer: &str, pattern: &str, found: &Value) -> Finding {
    Finding::new(
        Code::PatternMismatch,
        pointer,
        format!(
            "`{}` must match `{pattern}`, found {}",
            display_pointer(pointer),
            compact(found)
        ),
    )
    .keyword("pattern")
}

/// A string that is not of its `format` (`date-time`, `uri`, …).
pub fn invalid_format(pointer: &str, format: &str, found: &Value) -> Finding {
    Finding::new(
        Code::InvalidFormat,
        pointer,
        format!(
            "`{}` is not a valid {format}: {}",
            display_pointer(pointer),
            compact(found)
        ),
    )
    .keyword("format")
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

/// A value in one short line, for messages.
pub fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_include_whole_floats() {
        assert_eq!(as_integer(&json!(1.0)), Some(1.0));
        assert_eq!(as_integer(&json!(1.5)), None);
        assert_eq!(as_integer(&json!("1")), None);
    }

    #[test]
    fn messages_name_the_place_the_rule_and_what_was_found() {
        let cases = [
            (
                wrong_type("/a", &["object"], &json!([])),
                "`/a` must be an object, found array",
            ),
            (
                wrong_type("", &["string", "null"], &json!(1)),
                "`/` must be a string or null, found integer",
            ),
            (
                missing_field("/a", "id"),
                "`/a` is missing required field `id`",
            ),
            (unknown_field("/a", "x"), "unknown field `x` in `/a`"),
            (
                not_allowed("/k", &[json!("a"), json!("b")], &json!("c")),
                "`/k` must be one of `a`, `b`, found \"c\"",
            ),
            (
                not_allowed("/k", &[json!(1)], &json!(2)),
                "`/k` must be `1`, found 2",
            ),
            (
                out_of_range("/s", Bound::MaxLength(2), &json!("abc")),
                "`/s` must be at most 2 characters long (it has 3)",
            ),
            (
                out_of_range("/s", Bound::MinItems(1), &json!([])),
                "`/s` must have at least 1 item",
            ),
            (
                out_of_range("/n", Bound::Minimum("1".into()), &json!(0)),
                "`/n` must be at least 1, found 0",
            ),
            (
                pattern_mismatch("/p", "^a$", &json!("b")),
                "`/p` must match `^a$`, found \"b\"",
            ),
        ];
        for (finding, message) in cases {
            assert_eq!(finding.message, message);
        }
        assert_eq!(unknown_field("/a", "x").pointer, "/a/x");
        assert!(unknown_field("/a", "x").at_key);
    }
}
