//! A JSON Schema's findings, from the `jsonschema` crate, as squad's [`Finding`]s: the same
//! codes, keywords and wording as the hand-written tables of [`super::fields`].

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use super::{
    Bound, Finding, compact, invalid_format, missing_field, not_allowed, out_of_range,
    pattern_mismatch, unknown_field, wrong_type,
};
use crate::diag::Code;
use crate::interop::document::display_pointer;

/// Every finding of `validator` on `value`, with pointers prefixed by `base` (the value's place
/// in the document, `""` for the whole document).
pub fn findings(validator: &Validator, value: &Value, base: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    for error in validator.iter_errors(value) {
        map_error(&error, value, base, &mut findings);
    }
    findings
}

fn map_error(error: &ValidationError<'_>, root: &Value, base: &str, out: &mut Vec<Finding>) {
    let pointer = format!("{base}{}", error.instance_path().as_str());
    let instance = error.instance();
    let at = display_pointer(&pointer).to_owned();
    let number = |limit: &Value| compact(limit);
    let finding = match error.kind() {
        // `additionalProperties: false` beside no `properties` is compiled to a false schema
        // reported once at the object; every member of that object is unexpected.
        ValidationErrorKind::FalseSchema
            if error
                .schema_path()
                .as_str()
                .ends_with("/additionalProperties") =>
        {
            let keys = root
                .pointer(error.instance_path().as_str())
                .and_then(Value::as_object)
                .map(|object| object.keys().cloned().collect::<Vec<_>>())
                .unwrap_or_default();
            out.extend(keys.iter().map(|key| unknown_field(&pointer, key)));
            return;
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            out.extend(unexpected.iter().map(|key| unknown_field(&pointer, key)));
            return;
        }
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            missing_field(&pointer, &name)
        }
        ValidationErrorKind::Type { kind } => {
            let expected: Vec<&str> = match kind {
                TypeKind::Single(single) => vec![single.as_str()],
                TypeKind::Multiple(set) => set.iter().map(|single| single.as_str()).collect(),
            };
            wrong_type(&pointer, &expected, instance)
        }
        ValidationErrorKind::Enum { options } => match options.as_ref() {
            Value::Array(items) => not_allowed(&pointer, items, instance),
            other => not_allowed(&pointer, std::slice::from_ref(other), instance),
        },
        ValidationErrorKind::Constant { expected_value } => {
            not_allowed(&pointer, std::slice::from_ref(expected_value), instance)
        }
        ValidationErrorKind::MinLength { limit } => {
            out_of_range(&pointer, Bound::MinLength(*limit), instance)
        }
        ValidationErrorKind::MaxLength { limit } => {
            out_of_range(&pointer, Bound::MaxLength(*limit), instance)
        }
        ValidationErrorKind::MinItems { limit } => {
            out_of_range(&pointer, Bound::MinItems(*limit), instance)
        }
        ValidationErrorKind::MaxItems { limit } => {
            out_of_range(&pointer, Bound::MaxItems(*limit), instance)
        }
        ValidationErrorKind::MinProperties { limit } => {
            out_of_range(&pointer, Bound::MinProperties(*limit), instance)
        }
        ValidationErrorKind::MaxProperties { limit } => {
            out_of_range(&pointer, Bound::MaxProperties(*limit), instance)
        }
        ValidationErrorKind::Minimum { limit } => {
            out_of_range(&pointer, Bound::Minimum(number(limit)), instance)
        }
        ValidationErrorKind::Maximum { limit } => {
            out_of_range(&pointer, Bound::Maximum(number(limit)), instance)
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            out_of_range(&pointer, Bound::ExclusiveMinimum(number(limit)), instance)
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            out_of_range(&pointer, Bound::ExclusiveMaximum(number(limit)), instance)
        }
        ValidationErrorKind::Pattern { pattern } => pattern_mismatch(&pointer, pattern, instance),
        ValidationErrorKind::Format { format } => invalid_format(&pointer, format, instance),
        ValidationErrorKind::UniqueItems => Finding::new(
            Code::DuplicateEntry,
            &pointer,
            format!("`{at}` repeats an item"),
        ),
        ValidationErrorKind::AnyOf { .. } => Finding::new(
            Code::SchemaViolation,
            &pointer,
            format!("`{at}` matches none of the alternatives its schema allows (anyOf)"),
        ),
        _ => Finding::new(
            Code::SchemaViolation,
            &pointer,
            format!("`{at}` breaks its schema: {}", message(error)),
        ),
    };
    out.push(finding.keyword(keyword(error.kind().keyword())));
}

/// The crate's own message, cut to one short line: it can quote the whole instance.
fn message(error: &ValidationError<'_>) -> String {
    let text = error.to_string();
    if text.chars().count() > 120 {
        format!("{}…", text.chars().take(120).collect::<String>())
    } else {
        text
    }
}

/// The JSON Schema keyword as a `'static` name (diagnostics keep `&'static str`).
fn keyword(name: &str) -> &'static str {
    const KNOWN: &[&str] = &[
        "additionalItems",
        "additionalProperties",
        "anyOf",
        "allOf",
        "const",
        "contains",
        "contentEncoding",
        "contentMediaType",
        "enum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "falseSchema",
        "format",
        "maxItems",
        "maximum",
        "maxLength",
        "maxProperties",
        "minItems",
        "minimum",
        "minLength",
        "minProperties",
        "multipleOf",
        "not",
        "oneOf",
        "pattern",
        "propertyNames",
        "required",
        "type",
        "unevaluatedItems",
        "unevaluatedProperties",
        "uniqueItems",
        "$ref",
    ];
    KNOWN
        .iter()
        .copied()
        .find(|known| *known == name)
        .unwrap_or("schema")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_s_findings_read_like_the_tables() {
        let schema = json!({
            "type": "object",
            "required": ["id"],
            "additionalProperties": false,
            "properties": {
                "id": {"type": "string", "minLength": 1},
                "n": {"type": "integer", "minimum": 1},
                "kind": {"enum": ["a", "b"]}
            }
        });
        let validator = jsonschema::options().offline().build(&schema).unwrap();
        let found = findings(
            &validator,
            &json!({"id": "", "n": 0, "kind": "c", "extra": 1}),
            "/base",
        );
        let mut messages: Vec<(&str, Option<&str>, &str)> = found
            .iter()
            .map(|f| (f.pointer.as_str(), f.keyword, f.message.as_str()))
            .collect();
        messages.sort();
        assert_eq!(
            messages,
            [
                (
                    "/base/extra",
                    Some("additionalProperties"),
                    "unknown field `extra` in `/base`"
                ),
                (
                    "/base/id",
                    Some("minLength"),
                    "`/base/id` must be at least 1 character long"
                ),
                (
                    "/base/kind",
                    Some("enum"),
                    "`/base/kind` must be one of `a`, `b`, found \"c\""
                ),
                (
                    "/base/n",
                    Some("minimum"),
                    "`/base/n` must be at least 1, found 0"
                ),
            ]
        );
        let missing = findings(&validator, &json!({}), "");
        assert_eq!(missing[0].missing.as_deref(), Some("id"));
    }
}
