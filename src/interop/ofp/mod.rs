//! Open Floor Protocol documents (seed-formats §3): envelopes, assistant manifests and dialog
//! events, checked against the vendored schemas plus the spec's prose rules; and the manifests
//! a squad publishes on an Open Floor (§3.7).

mod dialog;
mod envelope;
pub(crate) mod finding;
mod manifest;
pub mod publish;
pub(crate) mod schema;

use super::{Document, Level, Options};
use crate::diag::Diagnostic;
use crate::interop::shape::Finding;

pub use envelope::{PUBLISH, PUBLISH_DOCS};

pub fn check_envelope(document: &Document, options: &Options, out: &mut Vec<Diagnostic>) {
    let findings = envelope::check(&document.value, options.level, options.schema_variant);
    emit(document, findings, out);
}

pub fn check_manifest(document: &Document, options: &Options, out: &mut Vec<Diagnostic>) {
    let schema_only = options.level == Level::Schema;
    // An array of manifests (what `squad ofp manifests --bare` writes): each one is checked
    // where it is.
    let findings = match &document.value {
        serde_json::Value::Array(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .flat_map(|(index, item)| manifest::check(item, &format!("/{index}"), schema_only))
            .collect(),
        value => manifest::check(value, "", schema_only),
    };
    emit(document, findings, out);
}

pub fn check_dialog_event(document: &Document, options: &Options, out: &mut Vec<Diagnostic>) {
    let findings = dialog::check(&document.value, "", options.level == Level::Schema);
    emit(document, findings, out);
}

fn emit(document: &Document, findings: Vec<Finding>, out: &mut Vec<Diagnostic>) {
    out.extend(
        findings
            .into_iter()
            .map(|finding| finding.into_diagnostic(document)),
    );
}
