//! `--schema FILE`: a document checked against a local copy of its upstream JSON Schema too.
//! squad does not embed the agents.play@1 schema (AGPL-3.0-only) or the AgentHandoff schema (no
//! stated licence), so users who have them can still hold documents to their exact text.

use std::path::{Path, PathBuf};

use jsonschema::{Draft, Validator};
use serde_json::Value;

use super::shape::schema::findings;
use super::{Document, Kind, Level};
use crate::diag::Diagnostic;

/// A local schema file, read once and compiled once per draft it is used with, however many
/// documents a run checks against it. Errors are kept too: every document that needs the
/// schema reports the same failure.
pub struct ExternalSchema {
    path: PathBuf,
    schema: Option<Result<Value, String>>,
    validators: Vec<(Draft, bool, Result<Validator, String>)>,
}

impl ExternalSchema {
    /// Nothing is read until a document is checked.
    pub fn new(path: &Path) -> ExternalSchema {
        ExternalSchema {
            path: path.to_path_buf(),
            schema: None,
            validators: Vec::new(),
        }
    }

    /// Checks `document` of `kind` against the schema (the draft is the format's, never
    /// guessed from `$schema`; nothing is fetched). Findings the built-in rules already
    /// reported are left out: the same pointer, code, keyword and message, which
    /// [`super::shape`] words alike for both (two fields missing from one object are two
    /// findings, not one).
    pub fn check(
        &mut self,
        document: &Document,
        kind: Kind,
        level: Level,
        existing: &[Diagnostic],
    ) -> Result<Vec<Diagnostic>, String> {
        let (draft, formats) = match kind {
            // draft-07 annotates formats; squad asserts the deadline only from `spec` on (§4.3).
            Kind::Handoff => (Draft::Draft7, level != Level::Schema),
            // openvibe-contracts compiles with Ajv2020 and ajv-formats: formats are assertions.
            _ => (Draft::Draft202012, true),
        };
        let validator = self.validator(draft, formats).map_err(str::to_owned)?;
        let key = |d: &Diagnostic| (d.pointer.clone(), d.code, d.keyword, d.message.clone());
        let seen: Vec<_> = existing.iter().map(key).collect();
        Ok(findings(validator, &document.value, "")
            .into_iter()
            .map(|finding| finding.into_diagnostic(document))
            .filter(|diagnostic| !seen.contains(&key(diagnostic)))
            .collect())
    }

    fn validator(&mut self, draft: Draft, formats: bool) -> Result<&Validator, &str> {
        let index = match self
            .validators
            .iter()
            .position(|(d, f, _)| *d == draft && *f == formats)
        {
            Some(index) => index,
            None => {
                let path = &self.path;
                let compiled = self
                    .schema
                    .get_or_insert_with(|| read(path))
                    .as_ref()
                    .map_err(String::clone)
                    .and_then(|schema| {
                        jsonschema::options()
                            .with_draft(draft)
                            .should_validate_formats(formats)
                            .offline()
                            .build(schema)
                            .map_err(|error| {
                                format!("schema `{}` does not compile: {error}", path.display())
                            })
                    });
                self.validators.push((draft, formats, compiled));
                self.validators.len() - 1
            }
        };
        self.validators[index].2.as_ref().map_err(String::as_str)
    }
}

fn read(path: &Path) -> Result<Value, String> {
    let text = crate::fs::read_to_string(path)
        .map_err(|error| format!("cannot read schema `{}`: {error}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|error| format!("schema `{}` is not JSON: {error}", path.display()))
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
            ExternalSchema::new(&schema)
                .check(&document, Kind::Handoff, level, &[])
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
        assert!(
            ExternalSchema::new(&missing)
                .check(&document, Kind::Play, Level::Spec, &[])
                .is_err()
        );
    }

    #[test]
    fn a_finding_the_rules_made_is_left_out_and_another_at_the_same_place_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(&path, r#"{"type": "object", "required": ["id", "foo"]}"#).unwrap();
        let document = Document::parse("{}".to_owned()).unwrap();
        // What the built-in rules reported: `id` missing, in the shape module's words.
        let existing = [crate::interop::shape::missing_field("", "id").into_diagnostic(&document)];
        let found = ExternalSchema::new(&path)
            .check(&document, Kind::Play, Level::Spec, &existing)
            .unwrap();
        let messages: Vec<&str> = found.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["`/` is missing required field `foo`"]);
    }

    #[test]
    fn the_schema_is_read_and_compiled_once_per_run() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        std::fs::write(&path, r#"{"type": "object", "required": ["x"]}"#).unwrap();
        let mut schema = ExternalSchema::new(&path);
        let document = Document::parse("{}".to_owned()).unwrap();
        let first = schema
            .check(&document, Kind::Play, Level::Spec, &[])
            .unwrap();
        crate::fs::remove_file(&path).unwrap();
        let again = schema
            .check(&document, Kind::Play, Level::Spec, &[])
            .unwrap();
        assert_eq!(first, again);
        assert_eq!(first.len(), 1);
        assert_eq!(schema.validators.len(), 1);
    }
}
