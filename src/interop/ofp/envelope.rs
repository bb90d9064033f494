//! The conversation envelope 1.0.0: the schema (either variant) and the rules of the spec's
//! prose that the schema does not encode (seed-formats §3.3, the O-* rows of §3.6).

use serde_json::{Map, Value};

use super::schema::{self, Schema};
use super::{dialog, manifest};
use crate::diag::Code;
use crate::interop::document::join;
use crate::interop::shape::Finding;
use crate::interop::shape::{compact, type_name};
use crate::interop::{Level, SchemaVariant};

/// The spellings of the manifests reply: the spec prose and openfloor-js say `publishManifests`,
/// the docs repository's schema and sample `publishManifest`.
pub const PUBLISH: &str = "publishManifests";
pub const PUBLISH_DOCS: &str = "publishManifest";

/// What a conversant may carry (the schema's item is not closed, see §3.2).
const CONVERSANT_KEYS: [&str; 2] = ["identification", "persistent_state"];

const SCOPES: [&str; 3] = ["internal", "external", "all"];

/// Every finding about an envelope at `level`.
pub fn check(value: &Value, level: Level, variant: SchemaVariant) -> Vec<Finding> {
    let schema = match variant {
        SchemaVariant::Js => Schema::EnvelopeJs,
        SchemaVariant::Docs => Schema::EnvelopeDocs,
    };
    if level == Level::Schema {
        return schema::validate(schema, value, "");
    }
    // O-PUBLISH-ALIAS: above `schema` both spellings are accepted, so the schema sees the one
    // it knows (and applies that event's parameter rules to the other); pointers are unchanged.
    let mut findings = match with_spelling(value, variant) {
        Some(renamed) => schema::validate(schema, &renamed, ""),
        None => schema::validate(schema, value, ""),
    };
    if level == Level::Lenient {
        for finding in &mut findings {
            if is_conversant_identity_gap(finding) {
                finding.warning = true;
            }
        }
    }
    spec_rules(value, &mut findings);
    findings
}

/// A copy of the envelope with every manifests reply spelled as `variant`'s schema spells it,
/// or `None` when nothing needs renaming.
fn with_spelling(value: &Value, variant: SchemaVariant) -> Option<Value> {
    let (wanted, other) = match variant {
        SchemaVariant::Js => (PUBLISH, PUBLISH_DOCS),
        SchemaVariant::Docs => (PUBLISH_DOCS, PUBLISH),
    };
    let events = value.get("openFloor")?.get("events")?.as_array()?;
    if !events
        .iter()
        .any(|event| event.get("eventType").and_then(Value::as_str) == Some(other))
    {
        return None;
    }
    let mut renamed = value.clone();
    let events = renamed
        .get_mut("openFloor")?
        .get_mut("events")?
        .as_array_mut()?;
    for event in events {
        if let Some(name) = event.get_mut("eventType")
            && name.as_str() == Some(other)
        {
            *name = Value::String(wanted.to_owned());
        }
    }
    Some(renamed)
}

/// Lenient: the Python library's user-proxy conversants have no `organization` or `synopsis`.
fn is_conversant_identity_gap(finding: &Finding) -> bool {
    let Some(index) = finding
        .pointer
        .strip_prefix("/openFloor/conversation/conversants/")
        .and_then(|rest| rest.strip_suffix("/identification"))
    else {
        return false;
    };
    finding.code == Code::MissingField
        && !index.is_empty()
        && index.bytes().all(|byte| byte.is_ascii_digit())
        && matches!(
            finding.missing.as_deref(),
            Some("organization" | "synopsis")
        )
}

fn spec_rules(value: &Value, out: &mut Vec<Finding>) {
    let Some(open_floor) = value.get("openFloor") else {
        return;
    };
    let Some(open_floor) = object_or_type_finding(open_floor, "/openFloor", out) else {
        return;
    };
    if let Some(conversation) = open_floor.get("conversation")
        && let Some(conversation) =
            object_or_type_finding(conversation, "/openFloor/conversation", out)
    {
        conversants(conversation, out);
    }
    if let Some(events) = open_floor.get("events").and_then(Value::as_array) {
        for (index, event) in events.iter().enumerate() {
            if let Some(event) = event.as_object() {
                self::event(event, &join("/openFloor/events", index), out);
            }
        }
    }
}

/// O-TYPE: the schema gives `openFloor` and `conversation` no `type`.
fn object_or_type_finding<'v>(
    value: &'v Value,
    pointer: &str,
    out: &mut Vec<Finding>,
) -> Option<&'v Map<String, Value>> {
    if let Some(object) = value.as_object() {
        return Some(object);
    }
    out.push(Finding::new(
        Code::OfpType,
        pointer,
        format!("`{pointer}` must be an object, found {}", type_name(value)),
    ));
    None
}

/// O-CONVERSANT-KEYS: the conversant item is open (its `additionalProperties` sits inside
/// `properties`), so misspellings such as `persistentState` pass the schema unseen.
fn conversants(conversation: &Map<String, Value>, out: &mut Vec<Finding>) {
    let Some(conversants) = conversation.get("conversants").and_then(Value::as_array) else {
        return;
    };
    for (index, conversant) in conversants.iter().enumerate() {
        let Some(conversant) = conversant.as_object() else {
            continue;
        };
        let pointer = join("/openFloor/conversation/conversants", index);
        for key in conversant.keys() {
            if !CONVERSANT_KEYS.contains(&key.as_str()) {
                let hint = if key == "persistentState" {
                    " (the schema spells it `persistent_state`)"
                } else {
                    ""
                };
                out.push(
                    Finding::new(
                        Code::OfpConversantKeys,
                        &join(&pointer, key),
                        format!("a conversant has no field `{key}`{hint}; it is not validated"),
                    )
                    .at_key(),
                );
            }
        }
    }
}

fn event(event: &Map<String, Value>, pointer: &str, out: &mut Vec<Finding>) {
    let name = match event.get("eventType") {
        None => {
            out.push(Finding::new(
                Code::OfpEventType,
                pointer,
                "the event has no `eventType`; the spec makes it mandatory",
            ));
            None
        }
        Some(name) => name.as_str(),
    };
    let to = event.get("to");
    if let Some(Value::Object(to)) = to
        && !to.contains_key("speakerUri")
        && !to.contains_key("serviceUrl")
    {
        out.push(Finding::new(
            Code::OfpToEmpty,
            &join(pointer, "to"),
            "`to` names neither `speakerUri` nor `serviceUrl`",
        ));
    }
    if let Some(reason) = event.get("reason").and_then(Value::as_str) {
        reason_tokens(name.unwrap_or(""), reason, &join(pointer, "reason"), out);
    }
    let parameters = event.get("parameters").and_then(Value::as_object);
    let parameters_pointer = join(pointer, "parameters");
    match name {
        Some("invite") if to.is_none() => out.push(Finding::new(
            Code::OfpInviteTo,
            pointer,
            "an invite without `to` invites every conversant; the spec says `to` is mandatory",
        )),
        Some(PUBLISH_DOCS) => out.push(Finding::new(
            Code::OfpPublishAlias,
            &join(pointer, "eventType"),
            "`publishManifest` is the docs schema's spelling; the spec says `publishManifests`",
        )),
        Some(retired @ ("findAssistant" | "proposeAssistant")) => {
            let renamed = if retired == "findAssistant" {
                "getManifests"
            } else {
                PUBLISH
            };
            out.push(Finding::new(
                Code::OfpRetired,
                &join(pointer, "eventType"),
                format!("`{retired}` was renamed `{renamed}` in 0.9.4"),
            ));
        }
        _ => {}
    }
    match name {
        Some("utterance") => utterance(parameters, &parameters_pointer, pointer, out),
        Some("context") => {
            if let Some(history) = parameters
                .and_then(|parameters| parameters.get("dialogHistory"))
                .and_then(Value::as_array)
            {
                let history_pointer = join(&parameters_pointer, "dialogHistory");
                for (index, item) in history.iter().enumerate() {
                    // A non-object item is the schema's finding (`items: {type: object}`).
                    if item.is_object() {
                        out.extend(
                            dialog::check(item, &join(&history_pointer, index), false)
                                .into_iter()
                                .map(|finding| {
                                    finding
                                        .nested_under(Code::OfpContextDe, "in a dialogHistory item")
                                }),
                        );
                    }
                }
            }
        }
        Some("getManifests") => {
            if let Some(Value::String(scope)) =
                parameters.and_then(|parameters| parameters.get("recommendScope"))
                && !SCOPES.contains(&scope.as_str())
            {
                out.push(Finding::new(
                    Code::OfpScope,
                    &join(&parameters_pointer, "recommendScope"),
                    format!(
                        "recommendScope must be internal, external or all, found {}",
                        compact(&Value::String(scope.clone()))
                    ),
                ));
            }
        }
        Some(PUBLISH | PUBLISH_DOCS) => {
            if let Some(parameters) = parameters {
                for list in ["servicingManifests", "discoveryManifests"] {
                    if let Some(manifests) = parameters.get(list) {
                        published(manifests, &join(&parameters_pointer, list), out);
                    }
                }
            }
        }
        _ => {}
    }
}

/// O-UTTERANCE-DE and O-UTTERANCE-TEXT. The schema's link to the dialog-event schema is
/// spelled `ref`, so it checks nothing.
fn utterance(
    parameters: Option<&Map<String, Value>>,
    parameters_pointer: &str,
    event_pointer: &str,
    out: &mut Vec<Finding>,
) {
    let pointer = join(parameters_pointer, "dialogEvent");
    let Some(dialog_event) = parameters.and_then(|parameters| parameters.get("dialogEvent")) else {
        let at = if parameters.is_some() {
            parameters_pointer
        } else {
            event_pointer
        };
        out.push(
            Finding::new(
                Code::OfpUtteranceDe,
                at,
                "an utterance carries no `parameters.dialogEvent`",
            )
            .keyword("required"),
        );
        return;
    };
    if !dialog_event.is_object() {
        out.push(
            Finding::new(
                Code::OfpUtteranceDe,
                &pointer,
                format!(
                    "the utterance's dialogEvent must be a dialog event (an object), found {}",
                    type_name(dialog_event)
                ),
            )
            .keyword("type"),
        );
        return;
    }
    out.extend(
        dialog::check(dialog_event, &pointer, false)
            .into_iter()
            .map(|finding| {
                finding.nested_under(Code::OfpUtteranceDe, "in the utterance's dialog event")
            }),
    );
    let text = dialog_event
        .get("features")
        .and_then(|features| features.get("text"));
    if text
        .and_then(|text| text.get("mimeType"))
        .and_then(Value::as_str)
        != Some("text/plain")
    {
        out.push(Finding::new(
            Code::OfpUtteranceText,
            &join(&pointer, "features"),
            "an utterance's dialog event needs a `text` feature with mimeType `text/plain`",
        ));
    }
}

/// O-MANIFESTS: a list of manifest objects, each with an optional score in [0, 1]. Inside a
/// manifest, what breaks the manifest schema or M-* is a warning (see
/// [`Finding::nested_under`]): the official publishManifests sample does.
fn published(manifests: &Value, pointer: &str, out: &mut Vec<Finding>) {
    let Some(items) = manifests.as_array() else {
        out.push(
            Finding::new(
                Code::OfpManifests,
                pointer,
                format!(
                    "published manifests must be a list of assistant manifests, found {}",
                    type_name(manifests)
                ),
            )
            .keyword("type"),
        );
        return;
    };
    for (index, item) in items.iter().enumerate() {
        let item_pointer = join(pointer, index);
        if !item.is_object() {
            out.push(
                Finding::new(
                    Code::OfpManifests,
                    &item_pointer,
                    format!(
                        "a published manifest must be an object, found {}",
                        type_name(item)
                    ),
                )
                .keyword("type"),
            );
            continue;
        }
        if let Some(score) = item.get("score") {
            let in_range = score
                .as_f64()
                .is_some_and(|score| (0.0..=1.0).contains(&score));
            if !in_range {
                out.push(Finding::new(
                    Code::OfpManifests,
                    &join(&item_pointer, "score"),
                    format!(
                        "a manifest's score must be a number in [0, 1], found {}",
                        compact(score)
                    ),
                ));
            }
        }
        out.extend(
            manifest::check(item, &item_pointer, false)
                .into_iter()
                .map(|finding| finding.nested_under(Code::OfpManifests, "in a published manifest")),
        );
    }
}

/// O-REASON-TOKEN: `@word` tokens the spec documents for each event type.
fn reason_tokens(event_type: &str, reason: &str, pointer: &str, out: &mut Vec<Finding>) {
    let documented: &[&str] = match event_type {
        "uninvite" => &["timedOut", "brokenPolicy", "error"],
        "declineInvite" => &["outOfDomain", "unavailable", "refused", "error"],
        "revokeFloor" => &["timedOut", "brokenPolicy", "override", "error"],
        "yieldFloor" => &["outOfDomain", "complete", "timedOut", "refused", "error"],
        _ => &[],
    };
    for token in tokens(reason) {
        if !documented.contains(&token) {
            let known = if documented.is_empty() {
                format!("`{event_type}` documents no reason tokens")
            } else {
                format!(
                    "`{event_type}` documents {}",
                    documented
                        .iter()
                        .map(|token| format!("@{token}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            out.push(Finding::new(
                Code::OfpReasonToken,
                pointer,
                format!("reason token `@{token}` is not documented: {known}"),
            ));
        }
    }
}

/// The `@[a-zA-Z0-9_]+` tokens of a reason. An `@` inside a word (`me@example.com`) is not a
/// token.
fn tokens(reason: &str) -> Vec<&str> {
    let word = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
    let bytes = reason.as_bytes();
    let mut found = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'@' && (index == 0 || !word(bytes[index - 1])) {
            let start = index + 1;
            let mut end = start;
            while end < bytes.len() && word(bytes[end]) {
                end += 1;
            }
            if end > start {
                // ASCII boundaries, so the slice is on char boundaries.
                found.push(&reason[start..end]);
            }
            index = end.max(index + 1);
        } else {
            index += 1;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn envelope(events: Value) -> Value {
        json!({"openFloor": {"schema": {"version": "1.0.0"}, "conversation": {"id": "c"},
            "sender": {"speakerUri": "tag:a.example,2025:x"}, "events": events}})
    }

    fn found(value: &Value, level: Level) -> Vec<(String, Code, bool)> {
        check(value, level, SchemaVariant::Js)
            .into_iter()
            .map(|finding| (finding.pointer, finding.code, finding.warning))
            .collect()
    }

    #[test]
    fn reason_tokens_are_words_after_an_at_sign() {
        assert_eq!(
            tokens("@brokenPolicy: x, @a_1 and me@example.com @ @"),
            ["brokenPolicy", "a_1"]
        );
        assert_eq!(tokens("@é@x"), ["x"]);
    }

    #[test]
    fn undocumented_reason_tokens_are_warnings() {
        let value = envelope(json!([
            {"eventType": "yieldFloor", "reason": "@complete"},
            {"eventType": "yieldFloor", "reason": "@override"},
            {"eventType": "bye", "reason": "@error"}
        ]));
        let codes = found(&value, Level::Spec);
        assert_eq!(
            codes,
            [
                (
                    "/openFloor/events/1/reason".to_owned(),
                    Code::OfpReasonToken,
                    false
                ),
                (
                    "/openFloor/events/2/reason".to_owned(),
                    Code::OfpReasonToken,
                    false
                )
            ]
        );
    }

    #[test]
    fn publish_alias_is_accepted_with_a_warning_and_its_parameters_are_still_closed() {
        let value = envelope(json!([{"eventType": "publishManifest", "parameters": {"x": 1}}]));
        assert_eq!(
            found(&value, Level::Schema),
            [(
                "/openFloor/events/0/eventType".to_owned(),
                Code::InvalidLiteral,
                false
            )]
        );
        assert_eq!(
            found(&value, Level::Spec),
            [
                (
                    "/openFloor/events/0/parameters/x".to_owned(),
                    Code::UnknownField,
                    false
                ),
                (
                    "/openFloor/events/0/eventType".to_owned(),
                    Code::OfpPublishAlias,
                    false
                )
            ]
        );
    }

    #[test]
    fn retired_events_and_invites_without_to_are_warned_about() {
        let value = envelope(json!([{"eventType": "findAssistant"}, {"eventType": "invite"}]));
        assert_eq!(
            found(&value, Level::Spec),
            [
                (
                    "/openFloor/events/0/eventType".to_owned(),
                    Code::OfpRetired,
                    false
                ),
                ("/openFloor/events/1".to_owned(), Code::OfpInviteTo, false)
            ]
        );
    }

    #[test]
    fn lenient_downgrades_only_organization_and_synopsis_of_conversants() {
        let mut value = envelope(json!([]));
        value["openFloor"]["conversation"]["conversants"] =
            json!([{"identification": {"speakerUri": "s", "conversationalName": "n"}}]);
        let spec = found(&value, Level::Spec);
        assert_eq!(spec.len(), 3, "{spec:?}");
        assert!(
            spec.iter()
                .all(|(_, code, warning)| *code == Code::MissingField && !warning)
        );
        let lenient = found(&value, Level::Lenient);
        let errors: Vec<_> = lenient.iter().filter(|(_, _, warning)| !warning).collect();
        assert_eq!(errors.len(), 1, "serviceUrl stays an error: {lenient:?}");
    }

    #[test]
    fn conversant_pointer_match_is_exact() {
        let finding = |pointer: &str| {
            Finding::new(Code::MissingField, pointer, "m").missing("organization".to_owned())
        };
        assert!(is_conversant_identity_gap(&finding(
            "/openFloor/conversation/conversants/12/identification"
        )));
        for other in [
            "/openFloor/conversation/conversants//identification",
            "/openFloor/conversation/conversants/x/identification",
            "/openFloor/conversation/conversants/0/identification/extra",
        ] {
            assert!(!is_conversant_identity_gap(&finding(other)), "{other}");
        }
    }
}
