//! `--schema FILE`: a document checked against a local copy of its upstream JSON Schema too.
//! squad does not embed the agents.play@1 schema (AGPL-3.0-only) or the AgentHandoff schema (no
//! stated licence), so users who have them can still hold documents to their exact text.

use std::path::Path;

use jsonschema::Draft;
use serde_json::Value;

use super::ofp::schema::findings;
use super::{Document, Kind, Level};
use crate::diag::Diagnostic;

/// Compiles the schema at `path` for documents of `kind` (the draft is the format's, never
/// guessed from `$schema`; nothing is fetched) and checks `document` against it. Findings the
/// built-in rules already reported (same pointer, code and keyword) are left out.
pub fn check_with_schema(
    document: &Document,
    path: &Path,
    kind: Kind,
    level: Level,
    existing: &[Diagnostic],
) -> Result<Vec<Diagnostic>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read schema `{}`: {error}", path.display()))?;
    let schema: Value = serde_json::from_str(&text)
        .map_err(|error| format!("schema `{}` is not JSON: {error}", path.display()))?;
    let (draft, formats) = match kind {
        // draft-07 annotates formats; squad asserts the deadline only from `spec` on (§4.3).
        Kind::Handoff => (Draft::Draft7, level != Level::Schema),
        // openvibe-contracts compiles with Ajv2020 and ajv-formats: formats are assertions.
        _ => (Draft::Draft202012, true),
    };
    let validator = jsonschema::options()
        .with_draft(draft)
        .should_validate_formats(formats)
        .offline()
        .build(&schema)
        .map_err(|error| format!("schema `{}` does not compile: {error}", path.display()))?;
    let key = |d: &Diagnostic| (d.pointer.clone(), d.code, d.keyword);
    let seen: Vec<_> = existing.iter().map(key).collect();
    Ok(findings(&validator, &document.value, "")
        .into_iter()
        .map(|finding| finding.into_diagnostic(document))
        .filter(|diagnostic| !seen.contains(&key(diagnostic)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Code;

    #[test]
    fn a_local_schema_adds_its_findings_once() {
        let dir = tempfile::tempdir().unwrap();
        let schema = dir.path().join("handoff.json");
        std::fs::write(
            &schema,
            r#"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                "required": ["task_id", "priority"],
                "properties": {"task_id": {"type": "string", "pattern": "^AOS-\\d+$"},
                               "deadline": {"type": "string", "format": "date-time"}}}"#,
        )
        .unwrap();
        let document =
            Document::parse(r#"{"task_id": "AOS-١٢", "deadline": "soon"}"#.to_owned()).unwrap();
        let found = |level| {
            check_with_schema(&document, &schema, Kind::Handoff, level, &[])
                .unwrap()
                .into_iter()
                .map(|d| (d.pointer.unwrap_or_default(), d.code))
                .collect::<Vec<_>>()
        };
        let spec = found(Level::Spec);
        assert!(
            spec.contains(&("/".to_owned(), Code::MissingField)),
            "{spec:?}"
        );
        assert!(
            spec.contains(&("/task_id".to_owned(), Code::PatternMismatch)),
            "{spec:?}"
        );
        assert!(
            spec.contains(&("/deadline".to_owned(), Code::InvalidFormat)),
            "{spec:?}"
        );
        assert!(
            !found(Level::Schema)
                .iter()
                .any(|(_, code)| *code == Code::InvalidFormat)
        );
        let missing = dir.path().join("none.json");
        assert!(check_with_schema(&document, &missing, Kind::Play, Level::Spec, &[]).is_err());
    }
}
