//! The neighbouring agent formats of `seed-formats.md`: agents.play@1 plays, ck-brain router
//! contracts and router inputs, Open Floor envelopes, manifests and dialog events, AgentHandoff
//! payloads, and OpenCorvus collaboration definitions.
//!
//! Every format is checked into the same [`Diagnostic`]s as packages, addressed by JSON pointer
//! and positioned in the file. Rules a JSON Schema states produce the generic schema codes
//! (`missing-field`, `out-of-range`, …) with the schema keyword; the prose rules have their own
//! codes.

pub mod collab;
pub mod decimal;
pub mod document;
pub mod external;
pub mod handoff;
pub mod lint;
pub mod ofp;
pub mod play;
pub mod router;
pub mod shape;
pub mod squad;

use serde_json::Value;

use crate::diag::Diagnostic;
pub use document::Document;

/// What a document is. `Package` is an expert-squad package folder, checked by
/// [`crate::package::validate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// An expert-squad package folder (or its expert-squad.jsonc).
    Package,
    /// An OpenCorvus collaboration definition (several squads in stages).
    Collab,
    /// An OpenVibe agents.play@1 play.
    Play,
    /// A ck-brain-style router contract.
    RouterContract,
    /// A router's input: request + routes.
    RouterInput,
    /// An Open Floor conversation envelope.
    OfpEnvelope,
    /// An Open Floor assistant manifest.
    OfpManifest,
    /// An Open Floor dialog event.
    OfpDialogEvent,
    /// A ZeroClaw / AOS AgentHandoff payload.
    Handoff,
    /// A file whose kind could not be told because it could not be read as JSON.
    #[value(skip)]
    Unknown,
}

impl Kind {
    pub const ALL: &'static [Kind] = &[
        Kind::Package,
        Kind::Collab,
        Kind::Play,
        Kind::RouterContract,
        Kind::RouterInput,
        Kind::OfpEnvelope,
        Kind::OfpManifest,
        Kind::OfpDialogEvent,
        Kind::Handoff,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Package => "package",
            Kind::Collab => "collab",
            Kind::Play => "play",
            Kind::RouterContract => "router-contract",
            Kind::RouterInput => "router-input",
            Kind::OfpEnvelope => "ofp-envelope",
            Kind::OfpManifest => "ofp-manifest",
            Kind::OfpDialogEvent => "ofp-dialog-event",
            Kind::Handoff => "handoff",
            Kind::Unknown => "document",
        }
    }

    /// What the kind is, for messages.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Package => "package",
            Kind::Collab => "collaboration",
            Kind::Play => "play",
            Kind::RouterContract => "router contract",
            Kind::RouterInput => "router input",
            Kind::OfpEnvelope => "Open Floor envelope",
            Kind::OfpManifest => "Open Floor manifest",
            Kind::OfpDialogEvent => "Open Floor dialog event",
            Kind::Handoff => "handoff",
            Kind::Unknown => "document",
        }
    }
}

/// How strictly to check (seed-formats §0.3 item 6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Level {
    /// The upstream schema or field table exactly.
    Schema,
    /// The schema plus the prose rules it does not encode.
    #[default]
    Spec,
    /// Like spec, with the rules real-world samples break reported as warnings.
    Lenient,
}

/// Which Open Floor envelope schema to check against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SchemaVariant {
    /// The schema shipped in @openfloor/protocol (publishManifests), the seed's.
    #[default]
    Js,
    /// The docs repository's schema (publishManifest).
    Docs,
}

/// Options shared by every document check.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub level: Level,
    pub schema_variant: SchemaVariant,
}

/// Tells a document's kind from its content, in the order of seed-formats §0.3 item 7.
pub fn sniff(value: &Value) -> Option<Kind> {
    // A non-empty array of assistant manifests, as `squad ofp manifests --bare` writes.
    if let Some(items) = value.as_array() {
        let manifests = !items.is_empty()
            && items
                .iter()
                .all(|item| sniff(item) == Some(Kind::OfpManifest));
        return manifests.then_some(Kind::OfpManifest);
    }
    let object = value.as_object()?;
    let has = |key: &str| object.contains_key(key);
    for key in ["$schema", "$id"] {
        if let Some(kind) = object.get(key).and_then(Value::as_str).and_then(known_id) {
            return Some(kind);
        }
    }
    if has("openFloor") {
        return Some(Kind::OfpEnvelope);
    }
    if has("identification") && has("capabilities") {
        return Some(Kind::OfpManifest);
    }
    if has("id") && has("speakerUri") && has("span") && has("features") {
        return Some(Kind::OfpDialogEvent);
    }
    if has("roles") && (has("stop") || has("summary")) {
        return Some(Kind::Play);
    }
    if has("task_id") && has("definition_of_done") {
        return Some(Kind::Handoff);
    }
    let nested = |outer: &str, inner: &str| {
        object
            .get(outer)
            .and_then(Value::as_object)
            .is_some_and(|map| map.contains_key(inner))
    };
    if nested("input", "route_required") && nested("output", "states") {
        return Some(Kind::RouterContract);
    }
    if has("request") && has("routes") {
        return Some(Kind::RouterInput);
    }
    if has("stages") && (has("stage_execution") || has("schema_version")) {
        return Some(Kind::Collab);
    }
    if has("capability_projection") && has("schema_version") {
        return Some(Kind::Package);
    }
    None
}

fn known_id(id: &str) -> Option<Kind> {
    let id = id.trim_end_matches('#');
    match id {
        "https://openvibe.network/contracts/agents/play.v1.json" => Some(Kind::Play),
        "https://zeroclaw.dev/schemas/handoff.json" => Some(Kind::Handoff),
        _ if id.ends_with("conversation-envelope-schema.json") => Some(Kind::OfpEnvelope),
        _ if id.ends_with("assistant-manifest-schema.json") => Some(Kind::OfpManifest),
        _ if id.ends_with("dialog-event-schema.json") => Some(Kind::OfpDialogEvent),
        _ => None,
    }
}

/// Orders findings as they appear in the file; findings without a span (about the whole file)
/// come first, and equal spans keep the order the rules found them in.
pub fn sort_by_span(diagnostics: &mut [Diagnostic]) {
    diagnostics
        .sort_by_key(|diagnostic| diagnostic.span.as_ref().map(|span| (span.start, span.end)));
}

/// Checks one parsed document as `kind` (any kind but `Package`, which is a folder).
pub fn check(document: &Document, kind: Kind, options: &Options) -> Vec<Diagnostic> {
    let mut diagnostics = document.notes.clone();
    match kind {
        Kind::Package | Kind::Unknown => {}
        Kind::Collab => collab::check_document(document, None, &mut diagnostics),
        Kind::Play => play::check(document, options.level, &mut diagnostics),
        // R-IMPL needs the contract's folder, so only `squad router contract` runs it.
        Kind::RouterContract => {
            router::contract::lint(document, router::Profile::Generic, &mut diagnostics)
        }
        Kind::RouterInput => router::check_input(document, options, &mut diagnostics),
        Kind::OfpEnvelope => ofp::check_envelope(document, options, &mut diagnostics),
        Kind::OfpManifest => ofp::check_manifest(document, options, &mut diagnostics),
        Kind::OfpDialogEvent => ofp::check_dialog_event(document, options, &mut diagnostics),
        Kind::Handoff => handoff::check(document, options, &mut diagnostics),
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sniffing_follows_the_documented_order() {
        assert_eq!(sniff(&json!({"openFloor": {}})), Some(Kind::OfpEnvelope));
        assert_eq!(
            sniff(&json!({"identification": {}, "capabilities": []})),
            Some(Kind::OfpManifest)
        );
        assert_eq!(
            sniff(&json!({"id": "x", "speakerUri": "u", "span": {}, "features": {}})),
            Some(Kind::OfpDialogEvent)
        );
        assert_eq!(sniff(&json!({"roles": [], "stop": {}})), Some(Kind::Play));
        assert_eq!(
            sniff(&json!({"roles": [], "summary": "s"})),
            Some(Kind::Play)
        );
        assert_eq!(
            sniff(&json!({"task_id": "AOS-1", "definition_of_done": []})),
            Some(Kind::Handoff)
        );
        assert_eq!(
            sniff(&json!({"input": {"route_required": []}, "output": {"states": []}})),
            Some(Kind::RouterContract)
        );
        assert_eq!(
            sniff(&json!({"request": "r", "routes": []})),
            Some(Kind::RouterInput)
        );
        assert_eq!(
            sniff(&json!({"schema_version": 1, "stages": []})),
            Some(Kind::Collab)
        );
        assert_eq!(
            sniff(&json!({"$schema": "https://zeroclaw.dev/schemas/handoff.json"})),
            Some(Kind::Handoff)
        );
        assert_eq!(sniff(&json!({"name": "x"})), None);
        assert_eq!(sniff(&json!([1, 2])), None);
    }
}
