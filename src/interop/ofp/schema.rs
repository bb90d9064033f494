//! The vendored Open Floor schemas (`schemas/open-floor/`, attribution in its NOTICE.md),
//! compiled once with draft 2020-12 forced, formats off and no network; their findings are
//! mapped to squad's codes by [`crate::interop::shape::schema`] (seed-formats §0.3 items 1, 2, 4
//! and 5).

use std::sync::OnceLock;

use jsonschema::{Draft, Validator};
use serde_json::Value;

use crate::diag::Code;
use crate::interop::shape::Finding;
use crate::interop::shape::schema::findings;

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
