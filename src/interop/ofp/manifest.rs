//! Assistant manifest 1.0.0: the schema requires only serviceUrl, organization and
//! conversationalName in `identification`; the spec's table (and the JS object model) also makes
//! `speakerUri` (M-SPEAKER) and `synopsis` (M-SYNOPSIS) mandatory.

use serde_json::Value;

use super::schema::{self, Schema};
use crate::diag::Code;
use crate::interop::document::join;
use crate::interop::shape::Finding;

/// The schema findings plus, unless `schema_only`, M-SPEAKER and M-SYNOPSIS, for the manifest
/// at `base`.
pub fn check(value: &Value, base: &str, schema_only: bool) -> Vec<Finding> {
    let mut findings = schema::validate(Schema::Manifest, value, base);
    if schema_only {
        return findings;
    }
    // A missing or mistyped `identification` is the schema's finding already.
    if let Some(identification) = value.get("identification").and_then(Value::as_object) {
        let pointer = join(base, "identification");
        for (member, code) in [
            ("speakerUri", Code::OfpManifestSpeaker),
            ("synopsis", Code::OfpManifestSynopsis),
        ] {
            if !identification.contains_key(member) {
                findings.push(Finding::new(
                    code,
                    &pointer,
                    format!("the manifest's identification has no `{member}`; the spec makes it mandatory"),
                ));
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(value: &Value, schema_only: bool) -> Vec<(String, Code)> {
        check(value, "", schema_only)
            .into_iter()
            .map(|finding| (finding.pointer, finding.code))
            .collect()
    }

    #[test]
    fn speaker_and_synopsis_are_spec_rules() {
        let value = json!({"identification": {"serviceUrl": "u", "organization": "o",
            "conversationalName": "n"}, "capabilities": []});
        assert_eq!(codes(&value, true), []);
        assert_eq!(
            codes(&value, false),
            [
                ("/identification".to_owned(), Code::OfpManifestSpeaker),
                ("/identification".to_owned(), Code::OfpManifestSynopsis)
            ]
        );
    }

    #[test]
    fn capabilities_follow_the_schema() {
        let value = json!({"identification": {"serviceUrl": "u", "organization": "o",
            "conversationalName": "n", "speakerUri": "s", "synopsis": "x"},
            "capabilities": [{"keyphrases": [], "supportedLayers": ["text"]}]});
        assert_eq!(
            codes(&value, false),
            [
                ("/capabilities/0".to_owned(), Code::MissingField),
                (
                    "/capabilities/0/supportedLayers".to_owned(),
                    Code::WrongType
                )
            ]
        );
    }
}
