//! The contract lint (seed-formats §2.4, R-* rules) and the contract model the runtime checks
//! read. The per-state required fields come from the contract file, never from constants: a
//! contract that adds a required field to `routed` must be honoured by the conformance check.

use serde_json::{Map, Value};

use super::Profile;
use crate::diag::{Code, Diagnostic};
use crate::interop::document::{Document, FILE, join};
use crate::interop::shape::{compact, wrong_type};

/// The five top-level keys of the validated contract JSON (§2.2).
pub const TOP_LEVEL: [&str; 5] = ["role", "input", "handoff", "output", "behavior"];

/// The four router states of ck-brain.
pub const STATES: [&str; 4] = [
    "routed",
    "unrouted",
    "invalid_configuration",
    "delegation_failed",
];

/// `behavior` of the ck-brain contract, key by key (§2.2).
pub fn ck_brain_behavior() -> [(&'static str, Value); 11] {
    [
        ("classification_source", Value::from("route.description")),
        (
            "route_name_semantics",
            Value::from("opaque_identifier_and_output_only"),
        ),
        ("ambiguous_intent", Value::from("unrouted")),
        ("max_routes_selected", Value::from(1)),
        ("max_delegations", Value::from(1)),
        ("direct_edits", Value::from(false)),
        ("direct_l3_delegation", Value::from(false)),
        ("invent_routes", Value::from(false)),
        ("preserve_delegated_result", Value::from(true)),
        ("delegation_completion", Value::from("terminal_completion")),
        (
            "delegated_result_source",
            Value::from("terminal_result_verbatim"),
        ),
    ]
}

/// What the runtime checks need from a contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contract {
    pub input_required: Vec<String>,
    pub input_optional: Vec<String>,
    pub min_routes: usize,
    pub route_required: Vec<String>,
    pub route_names_unique: bool,
    pub route_agents_non_empty: bool,
    pub handoff_required: Vec<String>,
    /// Each state with its `<state>_required` fields, in `output.states` order.
    pub states: Vec<(String, Vec<String>)>,
}

fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    value?
        .as_array()?
        .iter()
        .map(|item| item.as_str().map(str::to_owned))
        .collect()
}

fn owned(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| (*item).to_owned()).collect()
}

impl Contract {
    /// The seed's ck-brain contract: what a router input is checked against when no contract is
    /// given.
    pub fn ck_brain() -> Contract {
        Contract {
            input_required: owned(&["request", "routes"]),
            input_optional: owned(&["context"]),
            min_routes: 1,
            route_required: owned(&["name", "agent", "description"]),
            route_names_unique: true,
            route_agents_non_empty: true,
            handoff_required: owned(&["task", "context_notes", "constraints"]),
            states: vec![
                (
                    "routed".into(),
                    owned(&[
                        "status",
                        "route",
                        "agent",
                        "reason",
                        "handoff",
                        "delegated_result",
                    ]),
                ),
                (
                    "unrouted".into(),
                    owned(&["status", "reason", "candidates"]),
                ),
                ("invalid_configuration".into(), owned(&["status", "reason"])),
                (
                    "delegation_failed".into(),
                    owned(&["status", "route", "agent", "reason", "handoff", "error"]),
                ),
            ],
        }
    }

    /// The model of a contract value. Parts that are missing or malformed fall back to the
    /// ck-brain values; callers lint the contract first and refuse one with errors.
    pub fn from_value(value: &Value) -> Contract {
        let seed = Contract::ck_brain();
        let input = value.get("input");
        let get = |key: &str| input.and_then(|input| input.get(key));
        let output = value.get("output");
        let states = match strings(output.and_then(|output| output.get("states"))) {
            Some(names) => names
                .into_iter()
                .map(|name| {
                    let required = strings(
                        output.and_then(|output| output.get(format!("{name}_required").as_str())),
                    )
                    .unwrap_or_else(|| owned(&["status"]));
                    (name, required)
                })
                .collect(),
            None => seed.states,
        };
        Contract {
            input_required: strings(get("required")).unwrap_or(seed.input_required),
            input_optional: strings(get("optional")).unwrap_or(seed.input_optional),
            min_routes: get("min_routes")
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(seed.min_routes),
            route_required: strings(get("route_required")).unwrap_or(seed.route_required),
            route_names_unique: get("route_names_unique")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            route_agents_non_empty: get("route_agents_non_empty")
                .and_then(Value::as_bool)
                .unwrap_or(true),
            handoff_required: strings(
                value
                    .get("handoff")
                    .and_then(|handoff| handoff.get("required")),
            )
            .unwrap_or(seed.handoff_required),
            states,
        }
    }

    pub fn required_for(&self, state: &str) -> Option<&[String]> {
        self.states
            .iter()
            .find(|(name, _)| name == state)
            .map(|(_, required)| required.as_slice())
    }
}

/// Lints a contract document (every R-* rule but R-IMPL, which needs the file system).
pub fn lint(doc: &Document, profile: Profile, out: &mut Vec<Diagnostic>) {
    let Value::Object(root) = &doc.value else {
        out.push(
            doc.at(
                Code::WrongType,
                "",
                "a router contract must be a JSON object",
            )
            .keyword("type"),
        );
        return;
    };
    for key in root.keys() {
        if !TOP_LEVEL.contains(&key.as_str()) {
            // The seed's contract has exactly five keys; more is unusual, not wrong.
            let pointer = join("", key);
            out.push(
                Diagnostic::new(
                    Code::UnknownField,
                    FILE,
                    format!("unknown field `{key}`: a ck-brain contract has role, input, handoff, output and behavior"),
                )
                .span(doc.key_span(&pointer))
                .pointer(pointer)
                .keyword("additionalProperties")
                .as_warning(),
            );
        }
    }
    role(doc, root, profile, out);
    let input = section(doc, root, "input", out);
    includes(
        doc,
        input,
        "/input/required",
        &["request", "routes"],
        Code::ContractInReq,
        out,
    );
    min_routes(doc, input, out);
    includes(
        doc,
        input,
        "/input/route_required",
        &["name", "agent", "description"],
        Code::ContractRouteReq,
        out,
    );
    let handoff = section(doc, root, "handoff", out);
    includes(
        doc,
        handoff,
        "/handoff/required",
        &["task", "context_notes", "constraints"],
        Code::ContractHandoff,
        out,
    );
    let output = section(doc, root, "output", out);
    states(doc, output, out);
    let behavior = section(doc, root, "behavior", out);
    behaviors(doc, behavior, profile, out);
}

fn role(doc: &Document, root: &Map<String, Value>, profile: Profile, out: &mut Vec<Diagnostic>) {
    match root.get("role") {
        None => out.push(doc.at(Code::ContractRole, "", "the contract has no `role`")),
        Some(Value::String(role)) if !crate::text::js_trim(role).is_empty() => {
            if profile == Profile::CkBrain && role != "router-orchestrator" {
                out.push(doc.at(
                    Code::ContractRole,
                    "/role",
                    format!(
                        "`role` must be `router-orchestrator` under --profile ck-brain, found {}",
                        compact(&Value::from(role.as_str()))
                    ),
                ));
            }
        }
        Some(other) => out.push(doc.at(
            Code::ContractRole,
            "/role",
            format!(
                "`role` must be a non-blank string, found {}",
                compact(other)
            ),
        )),
    }
}

/// A top-level section as an object; a wrong type is reported here, a missing one by the rules
/// that need its members (each names the member it misses).
fn section<'v>(
    doc: &Document,
    root: &'v Map<String, Value>,
    key: &str,
    out: &mut Vec<Diagnostic>,
) -> Option<&'v Map<String, Value>> {
    match root.get(key)? {
        Value::Object(map) => Some(map),
        other => {
            out.push(wrong_type(&join("", key), &["object"], other).into_diagnostic(doc));
            None
        }
    }
}

fn member<'v>(section: Option<&'v Map<String, Value>>, pointer: &str) -> Option<&'v Value> {
    let key = pointer.rsplit('/').next().unwrap_or_default();
    section?.get(key)
}

/// `pointer` is a string array that contains every one of `needed`.
fn includes(
    doc: &Document,
    section: Option<&Map<String, Value>>,
    pointer: &str,
    needed: &[&str],
    code: Code,
    out: &mut Vec<Diagnostic>,
) {
    let Some(value) = member(section, pointer) else {
        out.push(doc.at(
            code,
            pointer,
            format!("`{pointer}` is missing; it must list {}", list(needed)),
        ));
        return;
    };
    let Some(items) = strings(Some(value)) else {
        out.push(doc.at(
            code,
            pointer,
            format!(
                "`{pointer}` must be an array of strings, found {}",
                compact(value)
            ),
        ));
        return;
    };
    let missing: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|name| !items.iter().any(|item| item == name))
        .collect();
    if !missing.is_empty() {
        out.push(doc.at(
            code,
            pointer,
            format!("`{pointer}` must include {}", list(&missing)),
        ));
    }
}

fn min_routes(doc: &Document, input: Option<&Map<String, Value>>, out: &mut Vec<Diagnostic>) {
    let pointer = "/input/min_routes";
    match member(input, pointer) {
        None => out.push(doc.at(
            Code::ContractMin,
            pointer,
            "`/input/min_routes` is missing; it must be an integer >= 1",
        )),
        Some(value) => {
            let whole = crate::interop::shape::as_integer(value);
            if !whole.is_some_and(|n| n >= 1.0) {
                out.push(doc.at(
                    Code::ContractMin,
                    pointer,
                    format!(
                        "`/input/min_routes` must be an integer >= 1, found {}",
                        compact(value)
                    ),
                ));
            }
        }
    }
}

fn states(doc: &Document, output: Option<&Map<String, Value>>, out: &mut Vec<Diagnostic>) {
    let pointer = "/output/states";
    let declared = match member(output, pointer) {
        None => {
            out.push(doc.at(
                Code::ContractStates,
                pointer,
                format!("`/output/states` is missing; it must be {}", list(&STATES)),
            ));
            Vec::new()
        }
        Some(value) => match strings(Some(value)) {
            None => {
                out.push(doc.at(
                    Code::ContractStates,
                    pointer,
                    format!(
                        "`/output/states` must be an array of strings, found {}",
                        compact(value)
                    ),
                ));
                Vec::new()
            }
            Some(declared) => {
                let missing: Vec<&str> = STATES
                    .iter()
                    .copied()
                    .filter(|state| !declared.iter().any(|item| item == state))
                    .collect();
                let extra: Vec<&str> = declared
                    .iter()
                    .map(String::as_str)
                    .filter(|item| !STATES.contains(item))
                    .collect();
                if !missing.is_empty() {
                    out.push(doc.at(
                        Code::ContractStates,
                        pointer,
                        format!("`/output/states` lacks {}", list(&missing)),
                    ));
                }
                if !extra.is_empty() {
                    out.push(doc.at(
                        Code::ContractStates,
                        pointer,
                        format!(
                            "`/output/states` has states a ck-brain router does not answer: {}",
                            list(&extra)
                        ),
                    ));
                }
                declared
            }
        },
    };
    // Every state of the four and every declared one needs its required list.
    let mut names: Vec<&str> = STATES.to_vec();
    for state in &declared {
        if !names.contains(&state.as_str()) {
            names.push(state);
        }
    }
    for state in names {
        let key = format!("{state}_required");
        let pointer = join("/output", &key);
        match output.and_then(|output| output.get(&key)) {
            None => out.push(doc.at(
                Code::ContractStates,
                &pointer,
                format!("`{pointer}` is missing: state `{state}` needs its required fields, `status` first"),
            )),
            Some(value) => match strings(Some(value)) {
                None => out.push(doc.at(
                    Code::ContractStates,
                    &pointer,
                    format!("`{pointer}` must be an array of strings, found {}", compact(value)),
                )),
                Some(items) if !items.iter().any(|item| item == "status") => out.push(doc.at(
                    Code::ContractStates,
                    &pointer,
                    format!("`{pointer}` must include `status`, which carries the state"),
                )),
                Some(_) => {}
            },
        }
    }
}

fn behaviors(
    doc: &Document,
    behavior: Option<&Map<String, Value>>,
    profile: Profile,
    out: &mut Vec<Diagnostic>,
) {
    for (key, expected) in ck_brain_behavior() {
        let pointer = join("/behavior", key);
        match behavior.and_then(|behavior| behavior.get(key)) {
            None => out.push(doc.at(
                Code::ContractBehavior,
                &pointer,
                format!("`{pointer}` is missing; ck-brain has {expected}"),
            )),
            Some(value) if *value != expected => {
                let diagnostic = doc.at(
                    Code::ContractBehavior,
                    &pointer,
                    format!("`{pointer}` is {}; ck-brain has {expected}", compact(value)),
                );
                // A generic router may choose other behaviour; the ck-brain profile may not.
                out.push(match profile {
                    Profile::CkBrain => diagnostic,
                    Profile::Generic => diagnostic.as_warning(),
                });
            }
            Some(_) => {}
        }
    }
}

fn list(items: &[&str]) -> String {
    items
        .iter()
        .map(|item| format!("`{item}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Severity;

    pub(crate) const SEED: &str = include_str!(
        "../../../registry-fixtures/interop/router/contracts/valid/ck-brain.contract.json"
    );

    fn lint_text(text: &str, profile: Profile) -> Vec<(String, Code, Severity)> {
        let doc = Document::parse(text.to_owned()).unwrap();
        let mut out = Vec::new();
        lint(&doc, profile, &mut out);
        out.iter()
            .map(|d| (d.pointer.clone().unwrap_or_default(), d.code, d.severity()))
            .collect()
    }

    fn edited(edit: impl FnOnce(&mut Value)) -> String {
        let mut value: Value = serde_json::from_str(SEED).unwrap();
        edit(&mut value);
        value.to_string()
    }

    #[test]
    fn the_seed_contract_passes_both_profiles() {
        assert_eq!(lint_text(SEED, Profile::Generic), vec![]);
        assert_eq!(lint_text(SEED, Profile::CkBrain), vec![]);
        let model = Contract::from_value(&serde_json::from_str(SEED).unwrap());
        assert_eq!(model, Contract::ck_brain());
    }

    #[test]
    fn a_different_behavior_is_a_warning_unless_the_profile_is_ck_brain() {
        let text = edited(|v| v["behavior"]["max_routes_selected"] = 2.into());
        let pointer = "/behavior/max_routes_selected".to_owned();
        assert_eq!(
            lint_text(&text, Profile::Generic),
            vec![(pointer.clone(), Code::ContractBehavior, Severity::Warning)]
        );
        assert_eq!(
            lint_text(&text, Profile::CkBrain),
            vec![(pointer, Code::ContractBehavior, Severity::Error)]
        );
    }

    #[test]
    fn states_are_read_from_the_contract() {
        let text = edited(|v| {
            v["output"]["routed_required"]
                .as_array_mut()
                .unwrap()
                .push("trace".into())
        });
        let model = Contract::from_value(&serde_json::from_str(&text).unwrap());
        assert!(
            model
                .required_for("routed")
                .unwrap()
                .contains(&"trace".to_owned())
        );
    }

    #[test]
    fn a_missing_state_and_a_missing_required_list_are_r_states() {
        let text = edited(|v| {
            v["output"]["states"].as_array_mut().unwrap().pop();
            v["output"]
                .as_object_mut()
                .unwrap()
                .remove("unrouted_required");
        });
        let found = lint_text(&text, Profile::Generic);
        assert!(found.contains(&(
            "/output/states".into(),
            Code::ContractStates,
            Severity::Error
        )));
        assert!(found.contains(&(
            "/output/unrouted_required".into(),
            Code::ContractStates,
            Severity::Error
        )));
    }

    #[test]
    fn garbage_never_panics() {
        for text in [
            "[]",
            "1",
            "null",
            r#"{"input": 1, "output": [], "behavior": "x", "role": 5}"#,
        ] {
            let found = lint_text(text, Profile::CkBrain);
            assert!(!found.is_empty(), "{text}");
        }
    }
}
