//! Dialog event 1.0.2: the prose rules the schema leaves out (seed-formats §3.2, §3.6): a span
//! has startTime xor startOffset and at most one of endTime and endOffset (D-SPAN-XOR), a
//! token's confidence is in [0, 1] (D-CONFIDENCE), a feature's encoding is ISO-8859-1 or UTF-8
//! (D-ENCODING). Values of the wrong type are left to the schema.

use serde_json::Value;

use super::schema::{self, Schema};
use crate::diag::Code;
use crate::interop::document::join;
use crate::interop::shape::Finding;
use crate::interop::shape::compact;

/// The encodings the spec names. Charset names are case-insensitive (RFC 2978), so `utf-8`
/// is accepted too.
const ENCODINGS: [&str; 2] = ["ISO-8859-1", "UTF-8"];

/// The schema findings plus, unless `schema_only`, the prose rules, for the dialog event at
/// `base`.
pub fn check(value: &Value, base: &str, schema_only: bool) -> Vec<Finding> {
    let mut findings = schema::validate(Schema::DialogEvent, value, base);
    if !schema_only {
        spec_rules(value, base, &mut findings);
    }
    findings
}

fn spec_rules(value: &Value, base: &str, out: &mut Vec<Finding>) {
    let Some(event) = value.as_object() else {
        return;
    };
    if let Some(span) = event.get("span") {
        span_xor(span, &join(base, "span"), out);
    }
    let Some(features) = event.get("features").and_then(Value::as_object) else {
        return;
    };
    for (name, feature) in features {
        let feature_pointer = join(&join(base, "features"), name);
        let Some(feature) = feature.as_object() else {
            continue;
        };
        if let Some(encoding) = feature.get("encoding").and_then(Value::as_str)
            && !ENCODINGS
                .iter()
                .any(|known| known.eq_ignore_ascii_case(encoding))
        {
            out.push(Finding::new(
                Code::OfpDialogEncoding,
                &join(&feature_pointer, "encoding"),
                format!(
                    "encoding {} is neither ISO-8859-1 nor UTF-8",
                    compact(&Value::String(encoding.to_owned()))
                ),
            ));
        }
        let Some(tokens) = feature.get("tokens").and_then(Value::as_array) else {
            continue;
        };
        for (index, token) in tokens.iter().enumerate() {
            let token_pointer = join(&join(&feature_pointer, "tokens"), index);
            let Some(token) = token.as_object() else {
                continue;
            };
            if let Some(confidence) = token.get("confidence").and_then(Value::as_f64)
                && !(0.0..=1.0).contains(&confidence)
            {
                out.push(Finding::new(
                    Code::OfpDialogConfidence,
                    &join(&token_pointer, "confidence"),
                    format!("confidence {confidence} is outside [0, 1]"),
                ));
            }
            if let Some(span) = token.get("span") {
                span_xor(span, &join(&token_pointer, "span"), out);
            }
        }
    }
}

/// Both starts, or both ends, is ambiguous. Neither start is the schema's `anyOf` finding
/// already, so it is not reported twice.
fn span_xor(span: &Value, pointer: &str, out: &mut Vec<Finding>) {
    let Some(span) = span.as_object() else {
        return;
    };
    for (first, second) in [("startTime", "startOffset"), ("endTime", "endOffset")] {
        if span.contains_key(first) && span.contains_key(second) {
            out.push(Finding::new(
                Code::OfpDialogSpanXor,
                pointer,
                format!("a span has either `{first}` or `{second}`, not both"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codes(value: &Value) -> Vec<(String, Code)> {
        check(value, "", false)
            .into_iter()
            .map(|finding| (finding.pointer, finding.code))
            .collect()
    }

    fn event(span: Value, feature: Value) -> Value {
        json!({"id": "e", "speakerUri": "s", "span": span, "features": {"text": feature}})
    }

    #[test]
    fn a_valid_event_has_no_findings() {
        let value = event(
            json!({"startTime": "2025-01-01T00:00:00Z", "endOffset": "PT1S"}),
            json!({"mimeType": "text/plain", "encoding": "utf-8",
                   "tokens": [{"value": "hi", "confidence": 1.0}]}),
        );
        assert_eq!(codes(&value), []);
    }

    #[test]
    fn span_both_starts_or_both_ends_break_the_xor() {
        let feature = json!({"mimeType": "text/plain", "tokens": [{"value": "x",
            "span": {"startOffset": "PT0S", "endTime": "t", "endOffset": "PT1S"}}]});
        let value = event(json!({"startTime": "t", "startOffset": "PT0S"}), feature);
        assert_eq!(
            codes(&value),
            [
                ("/span".to_owned(), Code::OfpDialogSpanXor),
                (
                    "/features/text/tokens/0/span".to_owned(),
                    Code::OfpDialogSpanXor
                )
            ]
        );
        // Schema level: both pass (anyOf only needs one of them).
        assert!(check(&value, "", true).is_empty());
    }

    #[test]
    fn confidence_and_encoding_are_checked() {
        let value = event(
            json!({"startTime": "t"}),
            json!({"mimeType": "text/plain", "encoding": "UTF-16",
                   "tokens": [{"value": "x", "confidence": 1.5}, {"value": "y", "confidence": -0.1}]}),
        );
        assert_eq!(
            codes(&value),
            [
                (
                    "/features/text/encoding".to_owned(),
                    Code::OfpDialogEncoding
                ),
                (
                    "/features/text/tokens/0/confidence".to_owned(),
                    Code::OfpDialogConfidence
                ),
                (
                    "/features/text/tokens/1/confidence".to_owned(),
                    Code::OfpDialogConfidence
                )
            ]
        );
    }

    #[test]
    fn an_empty_span_is_reported_once_by_the_schema() {
        let value = event(
            json!({}),
            json!({"mimeType": "text/plain", "tokens": [{"value": "x"}]}),
        );
        assert_eq!(codes(&value), [("/span".to_owned(), Code::SchemaViolation)]);
    }
}
