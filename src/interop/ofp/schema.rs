//! The vendored Open Floor schemas (`schemas/open-floor/`, attribution in its NOTICE.md),
//! compiled once with draft 2020-12 forced, formats off and no network, and their findings
//! mapped to squad's codes (seed-formats §0.3 items 1, 2, 4 and 5).

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, ValidationError, Validator};
use serde_json::Value;

use super::finding::Finding;
use crate::diag::Code;
use crate::interop::document::display_pointer;
use crate::interop::document::join;
use crate::interop::fields::{compact, type_name};

const ENVELOPE_JS: &str = include_str!(
    "../../../schemas/open-floor/openfloor-js/conversation-envelope/1.0.0/conversation-envelope-schema.json"
);
const ENVELOPE_DOCS: &str = include_str!(
    "../../../schemas/open-floor/docs/conversation-envelope/1.0.0/conversation-envelope-schema.json"
);
const MANIFEST: &str = include_str!(
    "../../../schemas/open-floor/docs/assistant-manifest/1.0.0/assistant-manifest-schema.json"
);
const DIALOG_EVENT: &str =
    include_str!("../../../schemas/open-floor/docs/dialog-event/1.0.2/dialog-event-schema.json");

/// One of the embedded schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// The envelope schema of @openfloor/protocol 0.0.4 (`publishManifests`), the seed's.
    EnvelopeJs,
    /// The docs repository's envelope schema (`publishManifest`).
    EnvelopeDocs,
    Manifest,
    DialogEvent,
}

impl Schema {
    const ALL: [Schema; 4] = [
        Schema::EnvelopeJs,
        Schema::EnvelopeDocs,
        Schema::Manifest,
        Schema::DialogEvent,
    ];

    fn text(self) -> &'static str {
        match self {
            Schema::EnvelopeJs => ENVELOPE_JS,
            Schema::EnvelopeDocs => ENVELOPE_DOCS,
            Schema::Manifest => MANIFEST,
            Schema::DialogEvent => DIALOG_EVENT,
        }
    }

    fn slot(self) -> &'static OnceLock<Result<Validator, String>> {
        static SLOTS: [OnceLock<Result<Validator, String>>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let index = Schema::ALL
            .iter()
            .position(|schema| *schema == self)
            .unwrap_or(0);
        &SLOTS[index]
    }

    /// The compiled validator, built on first use. An error here means the embedded text is
    /// broken, which the unit tests rule out; it is still a value, not a panic.
    pub fn validator(self) -> Result<&'static Validator, &'static str> {
        self.slot()
            .get_or_init(|| compile(self.text()))
            .as_ref()
            .map_err(String::as_str)
    }
}

fn compile(text: &str) -> Result<Validator, String> {
    let schema: Value = serde_json::from_str(text).map_err(|error| error.to_string())?;
    // The draft is forced: the dialog-event schema names a meta-schema that does not exist
    // (`https://openvoicenetwork.org/schema`), and detection must never decide verdicts.
    // `offline()`: the schemas' own `$id`s and `ref`s point at GitHub pages; nothing is fetched.
    // Formats are asserted (2020-12 only annotates them by default); the Open Floor schemas
    // declare none, so the official samples' `2023-06-14 02:06:07+00:00` times still pass.
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .offline()
        .build(&schema)
        .map_err(|error| error.to_string())
}

/// Validates `value` against `schema`; pointers are prefixed with `base` (the value's place in
/// the document, `""` for the whole document).
pub fn validate(schema: Schema, value: &Value, base: &str) -> Vec<Finding> {
    let validator = match schema.validator() {
        Ok(validator) => validator,
        Err(message) => {
            return vec![
                Finding::new(
                    Code::SchemaViolation,
                    base,
                    format!("squad's embedded Open Floor schema does not compile: {message}"),
                )
                .keyword("$schema"),
            ];
        }
    };
    findings(validator, value, base)
}

/// Every finding of `validator` on `value`, mapped to squad's codes with keyword and pointer.
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
            unknown_fields(&pointer, &at, &keys, out);
            return;
        }
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned);
            Finding::new(
                Code::MissingField,
                &pointer,
                format!("`{at}` is missing required field `{name}`"),
            )
            .missing(name)
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            unknown_fields(&pointer, &at, unexpected, out);
            return;
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(single) => single.as_str().to_owned(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|single| single.as_str())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            Finding::new(
                Code::WrongType,
                &pointer,
                format!(
                    "`{at}` must be of type {expected}, found {}",
                    type_name(instance)
                ),
            )
        }
        ValidationErrorKind::Enum { options } => Finding::new(
            Code::InvalidLiteral,
            &pointer,
            format!(
                "`{at}` must be one of {}, found {}",
                literals(options),
                compact(instance)
            ),
        ),
        ValidationErrorKind::Constant { expected_value } => Finding::new(
            Code::InvalidLiteral,
            &pointer,
            format!(
                "`{at}` must be {}, found {}",
                compact(expected_value),
                compact(instance)
            ),
        ),
        ValidationErrorKind::MaxProperties { limit } => Finding::new(
            Code::OutOfRange,
            &pointer,
            format!("`{at}` must have at most {limit} members"),
        ),
        ValidationErrorKind::MinProperties { limit } => Finding::new(
            Code::OutOfRange,
            &pointer,
            format!("`{at}` must have at least {limit} members"),
        ),
        ValidationErrorKind::MaxItems { .. }
        | ValidationErrorKind::MinItems { .. }
        | ValidationErrorKind::MaxLength { .. }
        | ValidationErrorKind::MinLength { .. }
        | ValidationErrorKind::Maximum { .. }
        | ValidationErrorKind::Minimum { .. }
        | ValidationErrorKind::ExclusiveMaximum { .. }
        | ValidationErrorKind::ExclusiveMinimum { .. } => Finding::new(
            Code::OutOfRange,
            &pointer,
            format!("`{at}` is out of range: {}", message(error)),
        ),
        ValidationErrorKind::Pattern { pattern } => Finding::new(
            Code::PatternMismatch,
            &pointer,
            format!("`{at}` must match `{pattern}`, found {}", compact(instance)),
        ),
        ValidationErrorKind::Format { format } => Finding::new(
            Code::InvalidFormat,
            &pointer,
            format!("`{at}` is not a valid {format}: {}", compact(instance)),
        ),
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

/// One finding per key, at the key, as the hand-written field tables report them.
fn unknown_fields(pointer: &str, at: &str, keys: &[String], out: &mut Vec<Finding>) {
    for key in keys {
        out.push(
            Finding::new(
                Code::UnknownField,
                &join(pointer, key),
                format!("unknown field `{key}` in `{at}`"),
            )
            .keyword("additionalProperties")
            .at_key(),
        );
    }
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

fn literals(options: &Value) -> String {
    match options {
        Value::Array(items) => items
            .iter()
            .map(|item| {
                format!(
                    "`{}`",
                    item.as_str()
                        .map_or_else(|| item.to_string(), str::to_owned)
                )
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => compact(other),
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

    fn pairs(schema: Schema, value: &Value) -> Vec<(String, Code, Option<&'static str>)> {
        validate(schema, value, "")
            .into_iter()
            .map(|finding| (finding.pointer, finding.code, finding.keyword))
            .collect()
    }

    #[test]
    fn every_embedded_schema_compiles_including_the_dialog_event_with_its_unknown_meta_schema() {
        for schema in Schema::ALL {
            assert!(schema.validator().is_ok(), "{schema:?}");
        }
        // The same schema without a forced draft is refused, which is why the draft is forced.
        let text: Value = serde_json::from_str(DIALOG_EVENT).unwrap();
        assert!(jsonschema::validator_for(&text).is_err());
    }

    #[test]
    fn findings_carry_the_pointer_code_and_keyword() {
        let envelope = json!({"openFloor": {
            "schema": {"version": 1},
            "conversation": {"id": "c"},
            "sender": {"speakerUri": "s"},
            "events": [{"eventType": "invite", "parameters": {"x": 1}}, {"eventType": "nope"}]
        }});
        let found = pairs(Schema::EnvelopeJs, &envelope);
        assert!(found.contains(&(
            "/openFloor/schema/version".into(),
            Code::WrongType,
            Some("type")
        )));
        assert!(found.contains(&(
            "/openFloor/events/0/parameters".into(),
            Code::OutOfRange,
            Some("maxProperties")
        )));
        assert!(found.contains(&(
            "/openFloor/events/0/parameters/x".into(),
            Code::UnknownField,
            Some("additionalProperties")
        )));
        assert!(found.contains(&(
            "/openFloor/events/1/eventType".into(),
            Code::InvalidLiteral,
            Some("enum")
        )));
        assert_eq!(found.len(), 4, "{found:?}");
        // Every member of a closed empty object is named, not just the first.
        let two = json!({"openFloor": {"schema": {"version": "1"}, "conversation": {"id": "c"},
            "sender": {"speakerUri": "s"}, "events": [{"eventType": "bye", "parameters": {"a": 1, "b": 2}}]}});
        let unknown: Vec<_> = pairs(Schema::EnvelopeDocs, &two)
            .into_iter()
            .filter(|(_, code, _)| *code == Code::UnknownField)
            .map(|(pointer, _, _)| pointer)
            .collect();
        assert_eq!(
            unknown,
            [
                "/openFloor/events/0/parameters/a",
                "/openFloor/events/0/parameters/b"
            ]
        );
    }

    #[test]
    fn the_two_envelope_variants_differ_only_in_the_publish_spelling() {
        let event = |name: &str| {
            json!({"openFloor": {"schema": {"version": "1.0.0"}, "conversation": {"id": "c"},
                "sender": {"speakerUri": "s"}, "events": [{"eventType": name}]}})
        };
        assert!(pairs(Schema::EnvelopeJs, &event("publishManifests")).is_empty());
        assert!(pairs(Schema::EnvelopeDocs, &event("publishManifest")).is_empty());
        assert_eq!(
            pairs(Schema::EnvelopeJs, &event("publishManifest")),
            [(
                "/openFloor/events/0/eventType".into(),
                Code::InvalidLiteral,
                Some("enum")
            )]
        );
        assert_eq!(
            pairs(Schema::EnvelopeDocs, &event("publishManifests")).len(),
            1
        );
    }

    #[test]
    fn formats_are_not_asserted_and_refs_are_not_followed() {
        // `"ref"` (not `$ref`) is an unknown keyword: any dialogEvent passes the schema.
        let envelope = json!({"openFloor": {"schema": {"version": "9.9"}, "conversation": {"id": "c"},
            "sender": {"speakerUri": "not a uri"},
            "events": [{"eventType": "utterance", "parameters": {"dialogEvent": 42}}]}});
        assert!(pairs(Schema::EnvelopeJs, &envelope).is_empty());
    }

    #[test]
    fn dialog_event_alternatives_are_schema_violations() {
        let event = json!({"id": "e", "speakerUri": "s", "span": {},
            "features": {"text": {"mimeType": "text/plain", "tokens": [{"confidence": 1}, {"value": null}]}}});
        let found = pairs(Schema::DialogEvent, &event);
        assert!(found.contains(&("/span".into(), Code::SchemaViolation, Some("anyOf"))));
        assert!(found.contains(&(
            "/features/text/tokens/0".into(),
            Code::SchemaViolation,
            Some("anyOf")
        )));
        assert!(found.contains(&(
            "/features/text/tokens/1/value".into(),
            Code::WrongType,
            Some("type")
        )));
    }

    #[test]
    fn nested_findings_are_prefixed_with_their_base() {
        let found = validate(Schema::Manifest, &json!({"capabilities": []}), "/a/0");
        assert_eq!(found[0].pointer, "/a/0");
        assert_eq!(found[0].missing.as_deref(), Some("identification"));
    }
}
