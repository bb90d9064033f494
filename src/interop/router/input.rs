//! Router input documents: `{request, routes, context?}` checked as the input schema generated
//! from a contract would (§2.5), plus route-name uniqueness, which JSON Schema cannot state
//! (RC-CONFIG).

use serde_json::Value;

use super::Contract;
use crate::diag::{Code, Diagnostic, Severity};
use crate::interop::Level;
use crate::interop::document::{Document, join};
use crate::interop::shape::{compact, fields::Fields, missing_field, wrong_type};

/// The route fields ck-brain gives a meaning to; each is a string when present.
const STRING_FIELDS: [&str; 3] = ["name", "agent", "description"];

/// Checks a whole input document.
pub fn check(doc: &Document, contract: &Contract, level: Level, out: &mut Vec<Diagnostic>) {
    let mut allowed: Vec<&str> = contract
        .input_required
        .iter()
        .chain(&contract.input_optional)
        .map(String::as_str)
        .collect();
    allowed.extend(["request", "routes"]);
    let required: Vec<&str> = contract
        .input_required
        .iter()
        .map(String::as_str)
        .filter(|key| *key != "routes")
        .collect();
    let mut fields = Fields::new(doc, out);
    // Unknown input fields are warnings (§2.5); `routes` is reported by the routes check.
    if fields
        .object("", &doc.value, &allowed, &required, true)
        .is_some()
    {
        check_routes(doc, contract, level, out);
    }
}

/// Checks `routes` alone: every finding is a reason the configuration is invalid, the only case
/// in which a router may answer `invalid_configuration`.
pub fn check_routes(doc: &Document, contract: &Contract, level: Level, out: &mut Vec<Diagnostic>) {
    let Some(routes) = doc.value.get("routes") else {
        out.push(
            doc.at(
                Code::MissingField,
                "",
                "the input has no `routes`; a router needs at least one",
            )
            .keyword("required"),
        );
        return;
    };
    let mut fields = Fields::new(doc, out);
    let Some(items) = fields.array("/routes", routes, contract.min_routes, None) else {
        return;
    };
    let route_required: Vec<&str> = contract.route_required.iter().map(String::as_str).collect();
    let mut names: Vec<(&str, String)> = Vec::new();
    for (index, route) in items.iter().enumerate() {
        let pointer = join("/routes", index);
        // Routes are open objects: only the required members are checked.
        let Value::Object(map) = route else {
            out.push(wrong_type(&pointer, &["object"], route).into_diagnostic(doc));
            continue;
        };
        for key in &route_required {
            if !map.contains_key(*key) {
                out.push(missing_field(&pointer, key).into_diagnostic(doc));
            }
        }
        for key in STRING_FIELDS {
            let Some(value) = map.get(key) else { continue };
            let member = join(&pointer, key);
            let mut fields = Fields::new(doc, out);
            let min = usize::from(key == "agent" && contract.route_agents_non_empty);
            let Some(text) = fields.string(&member, value, min, None) else {
                continue;
            };
            if key == "agent"
                && contract.route_agents_non_empty
                && !text.is_empty()
                && crate::text::js_trim(text).is_empty()
            {
                fields.pattern(&member, "\\S", text);
            }
            if key == "name" {
                names.push((text, member));
            }
        }
    }
    if level == Level::Schema || !contract.route_names_unique {
        return;
    }
    for (index, (name, pointer)) in names.iter().enumerate() {
        if let Some((_, first)) = names[..index].iter().find(|(other, _)| other == name) {
            let diagnostic = doc
                .at(
                    Code::RouterConfig,
                    pointer,
                    format!(
                        "route name {} is already used at `{first}`; route names must be unique",
                        compact(&Value::from(*name))
                    ),
                )
                .label(doc.span(first), "first used here");
            out.push(if level == Level::Lenient {
                diagnostic.as_warning()
            } else {
                diagnostic
            });
        }
    }
}

/// Why a configuration is invalid, one reason per finding; empty when it is valid.
pub fn config_problems(doc: &Document, contract: &Contract) -> Vec<String> {
    let mut found = Vec::new();
    check_routes(doc, contract, Level::Spec, &mut found);
    found
        .into_iter()
        .filter(|d| d.severity() == Severity::Error)
        .map(|d| d.message)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(text: &str, level: Level) -> Vec<(String, Code, Severity)> {
        let doc = Document::parse(text.to_owned()).unwrap();
        let mut out = Vec::new();
        check(&doc, &Contract::ck_brain(), level, &mut out);
        out.iter()
            .map(|d| (d.pointer.clone().unwrap_or_default(), d.code, d.severity()))
            .collect()
    }

    const ROUTE: &str = r#"{"name": "a", "agent": "x", "description": "d"}"#;

    #[test]
    fn a_blank_agent_is_blank_as_ecma_262_defines_it() {
        let route = |agent: &str| {
            format!(
                r#"{{"request": "r", "routes": [{{"name": "a", "agent": "{agent}", "description": "d"}}]}}"#
            )
        };
        let codes = |text: &str| -> Vec<Code> {
            findings(text, Level::Spec)
                .into_iter()
                .map(|(_, code, _)| code)
                .collect()
        };
        // U+FEFF is ECMAScript whitespace (not Rust's); U+0085 is Rust's (not ECMAScript's).
        assert_eq!(codes(&route("\u{feff}")), vec![Code::PatternMismatch]);
        assert_eq!(codes(&route(" \u{3000}")), vec![Code::PatternMismatch]);
        assert_eq!(codes(&route("\u{85}")), vec![]);
    }

    #[test]
    fn a_complete_input_passes() {
        let text = format!(r#"{{"request": "r", "routes": [{ROUTE}], "context": {{}}}}"#);
        assert_eq!(findings(&text, Level::Spec), vec![]);
    }

    #[test]
    fn each_configuration_break_is_found() {
        use Code::*;
        use Severity::*;
        assert_eq!(
            findings(r#"{"request": "r", "routes": []}"#, Level::Spec),
            vec![("/routes".into(), OutOfRange, Error)]
        );
        assert_eq!(
            findings(r#"{"request": "r"}"#, Level::Spec),
            vec![("/".into(), MissingField, Error)]
        );
        let text = format!(r#"{{"request": "r", "routes": [{ROUTE}, {ROUTE}], "extra": 1}}"#);
        assert_eq!(
            findings(&text, Level::Spec),
            vec![
                ("/extra".into(), UnknownField, Warning),
                ("/routes/1/name".into(), RouterConfig, Error)
            ]
        );
        assert_eq!(
            findings(&text, Level::Lenient)[1],
            ("/routes/1/name".into(), RouterConfig, Warning)
        );
        assert_eq!(findings(&text, Level::Schema).len(), 1);
        assert_eq!(
            findings(
                r#"{"request": "r", "routes": [{"name": "a", "agent": " ", "more": 1}, {"name": "b", "agent": ""}]}"#,
                Level::Spec
            ),
            vec![
                ("/routes/0".into(), MissingField, Error),
                ("/routes/0/agent".into(), PatternMismatch, Error),
                ("/routes/1".into(), MissingField, Error),
                ("/routes/1/agent".into(), OutOfRange, Error),
            ]
        );
    }

    #[test]
    fn wrong_types_are_findings_not_panics() {
        for text in [
            "[]",
            "\"x\"",
            r#"{"request": 1, "routes": {}}"#,
            r#"{"request": 1, "routes": [1, null, [], {"name": 5, "agent": [], "description": {}}]}"#,
        ] {
            assert!(!findings(text, Level::Spec).is_empty(), "{text}");
        }
    }
}
