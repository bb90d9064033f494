//! Conformance of one recorded router run (§2.6): given the contract, the input the router saw
//! and the answer it gave, is the answer one the contract allows? Every finding is about the
//! answer (the output document).

use serde_json::{Map, Value};

use super::Contract;
use super::input::config_problems;
use crate::diag::{Code, Diagnostic};
use crate::interop::document::{Document, join};
use crate::interop::shape::compact;

/// One recorded run.
pub struct Case<'a> {
    pub contract: &'a Contract,
    pub input: &'a Document,
    pub output: &'a Document,
    /// The case is ambiguous on purpose: the answer must be `unrouted` (RC-AMBIGUOUS).
    pub expect_unrouted: bool,
    /// The delegate's terminal result, when recorded (RC-VERBATIM).
    pub delegate_result: Option<&'a Value>,
}

pub fn check(case: &Case, out: &mut Vec<Diagnostic>) {
    let doc = case.output;
    let Value::Object(answer) = &doc.value else {
        out.push(
            doc.at(Code::WrongType, "", "a router answer must be a JSON object")
                .keyword("type"),
        );
        return;
    };
    let Some(status) = state(case, answer, out) else {
        return;
    };
    if let Some(required) = case.contract.required_for(status) {
        for key in required {
            if !answer.contains_key(key) {
                out.push(
                    doc.at(
                        Code::MissingField,
                        "",
                        format!("a `{status}` answer must have `{key}`"),
                    )
                    .keyword("required"),
                );
            }
        }
    }
    let problems = config_problems(case.input, case.contract);
    if !problems.is_empty() {
        if status != "invalid_configuration" {
            out.push(
                doc.at(
                    Code::RouterConfig,
                    "/status",
                    format!(
                        "the routes are not a valid configuration, so the only acceptable status is `invalid_configuration`, not `{status}`"
                    ),
                )
                .help(format!("the input's problems: {}", problems.join("; "))),
            );
        }
        // Nothing else can be judged against routes that are not a configuration.
        return;
    }
    if status == "invalid_configuration" {
        out.push(doc.at(
            Code::RouterConfigSpurious,
            "/status",
            "the answer is `invalid_configuration`, but the routes are a valid configuration",
        ));
    }
    if case.expect_unrouted {
        ambiguous(doc, answer, status, out);
    }
    if status == "routed" || status == "delegation_failed" {
        selected(case, answer, out);
        handoff(case, answer, out);
    }
    if status == "delegation_failed" {
        one_delegation(doc, answer, out);
    }
    if status == "routed"
        && let (Some(expected), Some(found)) =
            (case.delegate_result, answer.get("delegated_result"))
        && expected != found
    {
        out.push(
            doc.at(
                Code::RouterVerbatim,
                "/delegated_result",
                "`delegated_result` is not the delegate's terminal result, verbatim",
            )
            .help(format!("the delegate returned {}", compact(expected))),
        );
    }
}

/// The answer's state, from `status` (the output schema's `oneOf` branch selector).
fn state<'v>(
    case: &Case,
    answer: &'v Map<String, Value>,
    out: &mut Vec<Diagnostic>,
) -> Option<&'v str> {
    let doc = case.output;
    let names: Vec<&str> = case
        .contract
        .states
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    match answer.get("status") {
        None => {
            out.push(
                doc.at(Code::MissingField, "", "the answer has no `status`")
                    .keyword("required"),
            );
            None
        }
        Some(Value::String(status)) if names.contains(&status.as_str()) => Some(status),
        Some(other) => {
            out.push(
                doc.at(
                    Code::SchemaViolation,
                    "/status",
                    format!(
                        "`status` must be one of the contract's states ({}), found {}",
                        names.join(", "),
                        compact(other)
                    ),
                )
                .keyword("oneOf"),
            );
            None
        }
    }
}

fn ambiguous(doc: &Document, answer: &Map<String, Value>, status: &str, out: &mut Vec<Diagnostic>) {
    if status != "unrouted" {
        out.push(doc.at(
            Code::RouterAmbiguous,
            "/status",
            format!("this case is ambiguous and must be answered `unrouted` with candidates, not `{status}`"),
        ));
    } else if let Some(candidates) = answer.get("candidates")
        && candidates.as_array().is_none_or(|items| items.is_empty())
    {
        out.push(doc.at(
            Code::RouterAmbiguous,
            "/candidates",
            format!(
                "an ambiguous request must list its candidate routes, found {}",
                compact(candidates)
            ),
        ));
    }
}

/// The selected route: one (RC-ONE-ROUTE), declared (RC-INVENTED), with its own agent (RC-AGENT).
fn selected(case: &Case, answer: &Map<String, Value>, out: &mut Vec<Diagnostic>) {
    let doc = case.output;
    let name = match answer.get("route") {
        None => return,
        Some(Value::String(name)) => name.as_str(),
        Some(Value::Object(route)) if route.get("name").is_some_and(Value::is_string) => {
            route["name"].as_str().unwrap_or_default()
        }
        Some(other) => {
            out.push(doc.at(
                Code::RouterOneRoute,
                "/route",
                format!(
                    "`route` must name exactly one route (a single name), found {}",
                    compact(other)
                ),
            ));
            return;
        }
    };
    let routes = case
        .input
        .value
        .get("routes")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let Some(route) = routes
        .iter()
        .find(|route| route.get("name").and_then(Value::as_str) == Some(name))
    else {
        out.push(doc.at(
            Code::RouterInvented,
            "/route",
            format!(
                "route {} is not one of the input's routes; routes must not be invented",
                compact(&Value::from(name))
            ),
        ));
        return;
    };
    let expected = route.get("agent");
    if let Some(agent) = answer.get("agent")
        && Some(agent) != expected
    {
        out.push(doc.at(
            Code::RouterAgent,
            "/agent",
            format!(
                "`agent` is {}, but route {} delegates to {}",
                compact(agent),
                compact(&Value::from(name)),
                expected.map(compact).unwrap_or_default()
            ),
        ));
    }
}

/// The handoff validates against the generated handoff schema: `required` = handoff.required.
fn handoff(case: &Case, answer: &Map<String, Value>, out: &mut Vec<Diagnostic>) {
    let doc = case.output;
    let Some(handoff) = answer.get("handoff") else {
        return;
    };
    let Value::Object(handoff) = handoff else {
        out.push(doc.at(
            Code::RouterHandoff,
            "/handoff",
            format!("`handoff` must be an object, found {}", compact(handoff)),
        ));
        return;
    };
    for key in &case.contract.handoff_required {
        if !handoff.contains_key(key) {
            out.push(doc.at(
                Code::RouterHandoff,
                "/handoff",
                format!("the handoff lacks `{key}`, which the contract requires"),
            ));
        }
    }
}

/// Keys a recorded answer could use to report a retry or a fallback; max_delegations: 1 allows
/// neither.
const FALLBACK_KEYS: [&str; 5] = [
    "fallback",
    "fallback_route",
    "fallback_routes",
    "fallback_agent",
    "next_route",
];

fn one_delegation(doc: &Document, answer: &Map<String, Value>, out: &mut Vec<Diagnostic>) {
    if let Some(attempts) = answer.get("attempts") {
        let count = match attempts {
            Value::Array(items) => Some(items.len() as f64),
            other => crate::interop::shape::as_integer(other),
        };
        if count != Some(1.0) {
            out.push(doc.at(
                Code::RouterOneDelegation,
                "/attempts",
                format!(
                    "a delegation_failed answer reports exactly one attempt, found {}",
                    compact(attempts)
                ),
            ));
        }
    }
    for key in FALLBACK_KEYS {
        if answer.get(key).is_some_and(|value| !value.is_null()) {
            out.push(doc.at(
                Code::RouterOneDelegation,
                &join("", key),
                format!("`{key}`: after a failed delegation the router stops; it does not fall back to another route"),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(
        input: Value,
        output: Value,
        expect_unrouted: bool,
        delegate: Option<Value>,
    ) -> Vec<(String, Code)> {
        let contract = Contract::ck_brain();
        let input = Document::parse(input.to_string()).unwrap();
        let output = Document::parse(output.to_string()).unwrap();
        let case = Case {
            contract: &contract,
            input: &input,
            output: &output,
            expect_unrouted,
            delegate_result: delegate.as_ref(),
        };
        let mut out = Vec::new();
        check(&case, &mut out);
        out.iter()
            .map(|d| (d.pointer.clone().unwrap_or_default(), d.code))
            .collect()
    }

    fn input() -> Value {
        json!({"request": "fix the build", "routes": [
            {"name": "build", "agent": "builder", "description": "fixes builds"},
            {"name": "docs", "agent": "writer", "description": "writes docs"}]})
    }

    fn routed() -> Value {
        json!({"status": "routed", "route": "build", "agent": "builder", "reason": "r",
               "handoff": {"task": "t", "context_notes": "c", "constraints": []},
               "delegated_result": "done"})
    }

    #[test]
    fn a_correct_routed_answer_passes() {
        assert_eq!(run(input(), routed(), false, Some(json!("done"))), vec![]);
    }

    #[test]
    fn each_rule_is_found() {
        let mut duplicate = input();
        duplicate["routes"][1]["name"] = json!("build");
        assert_eq!(
            run(duplicate.clone(), routed(), false, None),
            vec![("/status".into(), Code::RouterConfig)]
        );
        assert_eq!(
            run(
                duplicate,
                json!({"status": "invalid_configuration", "reason": "dup"}),
                false,
                None
            ),
            vec![]
        );
        assert_eq!(
            run(
                input(),
                json!({"status": "invalid_configuration", "reason": "x"}),
                false,
                None
            ),
            vec![("/status".into(), Code::RouterConfigSpurious)]
        );
        let mut answer = routed();
        answer["route"] = json!("deploy");
        assert_eq!(
            run(input(), answer, false, None),
            vec![("/route".into(), Code::RouterInvented)]
        );
        let mut answer = routed();
        answer["agent"] = json!("writer");
        assert_eq!(
            run(input(), answer, false, None),
            vec![("/agent".into(), Code::RouterAgent)]
        );
        let mut answer = routed();
        answer["route"] = json!(["build", "docs"]);
        assert_eq!(
            run(input(), answer, false, None),
            vec![("/route".into(), Code::RouterOneRoute)]
        );
        let mut answer = routed();
        answer["handoff"] = json!({"task": "t"});
        assert_eq!(run(input(), answer, false, None).len(), 2);
        assert_eq!(
            run(
                input(),
                json!({"status": "unrouted", "reason": "r"}),
                false,
                None
            ),
            vec![("/".into(), Code::MissingField)]
        );
        assert_eq!(
            run(input(), routed(), true, None),
            vec![("/status".into(), Code::RouterAmbiguous)]
        );
        assert_eq!(
            run(input(), routed(), false, Some(json!("done."))),
            vec![("/delegated_result".into(), Code::RouterVerbatim)]
        );
        let mut failed = routed();
        failed["status"] = json!("delegation_failed");
        failed["error"] = json!("timeout");
        failed["attempts"] = json!(2);
        failed["fallback_route"] = json!("docs");
        assert_eq!(
            run(input(), failed, false, None),
            vec![
                ("/attempts".into(), Code::RouterOneDelegation),
                ("/fallback_route".into(), Code::RouterOneDelegation)
            ]
        );
    }

    #[test]
    fn garbage_answers_are_findings() {
        for answer in [
            json!([]),
            json!({"status": 1}),
            json!({"status": "routed", "route": 5, "handoff": 3}),
        ] {
            assert!(!run(input(), answer, false, None).is_empty());
        }
        assert!(!run(json!("x"), routed(), false, None).is_empty());
    }
}
