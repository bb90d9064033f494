//! ZeroClaw / AOS AgentHandoff payloads (seed-formats §4): the field table of the draft-07
//! schema, hand-written because the schema's licence is unstated (§0.3 item 5), the spec-level
//! rules, and the checks against a squad and a clock (D1).

pub mod datetime;
pub mod scaffold;

use serde_json::{Map, Value};

use super::shape::{fields::Fields, invalid_format};
use super::squad::Squad;
use super::{Document, Level, Options};
use crate::diag::{Code, Diagnostic};

/// The top-level members (the object is closed).
pub const FIELDS: [&str; 10] = [
    "task_id",
    "from",
    "to",
    "goal",
    "inputs",
    "constraints",
    "definition_of_done",
    "output_format",
    "needs_approval_for",
    "context_refs",
];
pub const REQUIRED: [&str; 5] = ["task_id", "from", "to", "goal", "definition_of_done"];
pub const CONSTRAINTS: [&str; 4] = ["budget_eur", "max_tokens", "deadline", "autonomy"];
pub const AUTONOMY: [&str; 3] = ["L0", "L1", "L2"];
pub const OUTPUT_FORMATS: [&str; 5] = [
    "aos_deliverable",
    "report",
    "draft",
    "review_verdict",
    "data",
];
pub const TASK_ID_PATTERN: &str = "^AOS-\\d+$";

/// The agent every squad handoff may come from: only the Orchestrator dispatches workers.
pub const ORCHESTRATOR: &str = "orchestrator";

/// `^AOS-\d+$` with ECMA-262 semantics: `\d` is ASCII only and `$` matches only at the very end
/// (no trailing newline), unlike Python's `re`.
pub fn is_task_id(text: &str) -> bool {
    text.strip_prefix("AOS-")
        .is_some_and(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
}

pub fn check(document: &Document, options: &Options, out: &mut Vec<Diagnostic>) {
    let Some(map) = schema(document, out) else {
        return;
    };
    if options.level != Level::Schema {
        spec(document, map, options.level, out);
    }
}

/// The field table (§4.2), every keyword of the schema but `format`.
fn schema<'v>(doc: &'v Document, out: &mut Vec<Diagnostic>) -> Option<&'v Map<String, Value>> {
    let mut fields = Fields::new(doc, out);
    let map = fields.object("", &doc.value, &FIELDS, &REQUIRED, false)?;
    if let Some(value) = map.get("task_id")
        && let Some(text) = fields.string("/task_id", value, 0, None)
        && !is_task_id(text)
    {
        fields.pattern("/task_id", TASK_ID_PATTERN, text);
    }
    for key in ["from", "to", "goal"] {
        if let Some(value) = map.get(key) {
            fields.string(&format!("/{key}"), value, 1, None);
        }
    }
    for key in ["inputs", "needs_approval_for", "context_refs"] {
        if let Some(value) = map.get(key) {
            fields.strings(&format!("/{key}"), value, 0, None);
        }
    }
    if let Some(value) = map.get("definition_of_done") {
        fields.strings("/definition_of_done", value, 1, None);
    }
    if let Some(value) = map.get("output_format") {
        fields.one_of("/output_format", value, &OUTPUT_FORMATS);
    }
    if let Some(value) = map.get("constraints")
        && let Some(constraints) = fields.object("/constraints", value, &CONSTRAINTS, &[], false)
    {
        if let Some(value) = constraints.get("budget_eur") {
            fields.number("/constraints/budget_eur", value, 0.0, None);
        }
        if let Some(value) = constraints.get("max_tokens") {
            fields.integer("/constraints/max_tokens", value, 0.0, None);
        }
        if let Some(value) = constraints.get("deadline") {
            fields.string("/constraints/deadline", value, 0, None);
        }
        if let Some(value) = constraints.get("autonomy") {
            fields.one_of("/constraints/autonomy", value, &AUTONOMY);
        }
    }
    Some(map)
}

/// The spec level (§4.3): the `date-time` format asserted, and three warnings.
fn spec(doc: &Document, map: &Map<String, Value>, level: Level, out: &mut Vec<Diagnostic>) {
    let constraints = map.get("constraints").and_then(Value::as_object);
    if let Some(Value::String(deadline)) = constraints.and_then(|c| c.get("deadline"))
        && datetime::parse(deadline).is_none()
    {
        let diagnostic = invalid_format(
            "/constraints/deadline",
            "date-time",
            &Value::from(deadline.as_str()),
        )
        .into_diagnostic(doc)
        .help("an RFC 3339 date-time with an offset, such as 2026-08-13T17:00:00Z");
        out.push(if level == Level::Lenient {
            diagnostic.as_warning()
        } else {
            diagnostic
        });
    }
    if let Some(items) = map.get("definition_of_done").and_then(Value::as_array) {
        for (index, item) in items.iter().enumerate() {
            if item
                .as_str()
                .is_some_and(|text| crate::text::js_trim(text).is_empty())
            {
                out.push(doc.at(
                    Code::HandoffDodBlank,
                    &format!("/definition_of_done/{index}"),
                    "a blank definition_of_done item cannot be verified",
                ));
            }
        }
    }
    let approvals: Vec<(usize, &str)> = map
        .get("needs_approval_for")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(index, item)| item.as_str().map(|text| (index, text)))
        .collect();
    for (position, (index, action)) in approvals.iter().enumerate() {
        if let Some((first, _)) = approvals[..position]
            .iter()
            .find(|(_, other)| other == action)
        {
            out.push(
                doc.at(
                    Code::HandoffApprovalDup,
                    &format!("/needs_approval_for/{index}"),
                    format!("action `{action}` is already listed at `/needs_approval_for/{first}`"),
                )
                .label(
                    doc.span(&format!("/needs_approval_for/{first}")),
                    "first listed here",
                ),
            );
        }
    }
    if let Some(budget) = constraints
        .and_then(|c| c.get("budget_eur"))
        .and_then(Value::as_f64)
        && budget == 0.0
        && approvals.iter().any(|(_, action)| *action == "spend")
    {
        out.push(
            doc.at(
                Code::HandoffZeroBudgetSpend,
                "/constraints/budget_eur",
                "`budget_eur` is 0, which means no spend is allowed, yet `spend` needs approval",
            )
            .help("give the task a budget, or drop `spend` from needs_approval_for"),
        );
    }
}

/// H-FROM, H-TO and W-H-FROM-WORKER: the handoff's agents against a squad.
pub fn check_squad(doc: &Document, squad: &Squad, out: &mut Vec<Diagnostic>) {
    let agents = || {
        squad
            .agents
            .iter()
            .map(|agent| agent.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(Value::String(from)) = doc.value.get("from") {
        if squad.agent(from).is_some() {
            out.push(doc.at(
                Code::HandoffFromWorker,
                "/from",
                format!("`{from}` is a worker of squad `{}`; in a squad only the Orchestrator dispatches workers", squad.id),
            ));
        } else if from != ORCHESTRATOR {
            out.push(
                doc.at(
                    Code::HandoffFrom,
                    "/from",
                    format!(
                        "`{from}` is neither `{ORCHESTRATOR}` nor an agent of squad `{}`",
                        squad.id
                    ),
                )
                .help(format!("the squad's agents: {}", agents())),
            );
        }
    }
    if let Some(Value::String(to)) = doc.value.get("to")
        && squad.agent(to).is_none()
    {
        out.push(
            doc.at(
                Code::HandoffTo,
                "/to",
                format!("`{to}` is not an agent of squad `{}`", squad.id),
            )
            .help(format!("the squad's agents: {}", agents())),
        );
    }
}

/// H-DEADLINE-PAST: a deadline that is not after `now`. Only a deadline that parses is judged;
/// a malformed one is the format finding's business.
pub fn check_deadline(doc: &Document, now: &datetime::Instant, out: &mut Vec<Diagnostic>) {
    let deadline = doc
        .value
        .get("constraints")
        .and_then(|constraints| constraints.get("deadline"))
        .and_then(Value::as_str);
    if let Some(text) = deadline
        && let Some(instant) = datetime::parse(text)
        && instant <= *now
    {
        out.push(doc.at(
            Code::HandoffDeadlinePast,
            "/constraints/deadline",
            format!("the deadline {text} is not after now"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Severity;
    use serde_json::json;

    fn findings(value: &Value, level: Level) -> Vec<(String, Code, Severity)> {
        let doc = Document::parse(value.to_string()).unwrap();
        let mut out = Vec::new();
        check(
            &doc,
            &Options {
                level,
                ..Options::default()
            },
            &mut out,
        );
        out.iter()
            .map(|d| (d.pointer.clone().unwrap_or_default(), d.code, d.severity()))
            .collect()
    }

    fn minimal() -> Value {
        json!({"task_id": "AOS-1", "from": "orchestrator", "to": "a", "goal": "g", "definition_of_done": ["x"]})
    }

    #[test]
    fn the_task_id_pattern_has_ecma_semantics() {
        for good in ["AOS-0", "AOS-1423", "AOS-007"] {
            assert!(is_task_id(good), "{good}");
        }
        for bad in [
            "AOS-", "AOS-١٢", "AOS-12\n", "aos-1", "TASK-1", " AOS-1", "AOS-1a", "AOS-+1", "AOS-１",
        ] {
            assert!(!is_task_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn the_minimal_handoff_passes() {
        assert_eq!(findings(&minimal(), Level::Spec), vec![]);
    }

    #[test]
    fn the_deadline_format_is_asserted_only_above_schema_level() {
        let mut value = minimal();
        value["constraints"] = json!({"deadline": "tomorrow"});
        assert_eq!(findings(&value, Level::Schema), vec![]);
        let at = "/constraints/deadline".to_owned();
        assert_eq!(
            findings(&value, Level::Spec),
            vec![(at.clone(), Code::InvalidFormat, Severity::Error)]
        );
        assert_eq!(
            findings(&value, Level::Lenient),
            vec![(at, Code::InvalidFormat, Severity::Warning)]
        );
    }

    #[test]
    fn spec_warnings() {
        let mut value = minimal();
        value["definition_of_done"] = json!(["", "ok"]);
        value["needs_approval_for"] = json!(["spend", "publish", "spend"]);
        value["constraints"] = json!({"budget_eur": 0});
        let found = findings(&value, Level::Spec);
        assert_eq!(
            found,
            vec![
                (
                    "/definition_of_done/0".into(),
                    Code::HandoffDodBlank,
                    Severity::Warning
                ),
                (
                    "/needs_approval_for/2".into(),
                    Code::HandoffApprovalDup,
                    Severity::Warning
                ),
                (
                    "/constraints/budget_eur".into(),
                    Code::HandoffZeroBudgetSpend,
                    Severity::Warning
                ),
            ]
        );
        assert_eq!(findings(&value, Level::Schema), vec![]);
    }

    #[test]
    fn wrong_types_everywhere_are_findings() {
        let value = json!({"task_id": 1, "from": [], "to": {}, "goal": null, "inputs": "x",
            "constraints": {"budget_eur": "1", "max_tokens": 1.5, "deadline": 3, "autonomy": 2},
            "definition_of_done": {}, "output_format": [], "needs_approval_for": [1], "context_refs": 0});
        let found = findings(&value, Level::Spec);
        assert_eq!(found.len(), 13, "{found:#?}");
        assert!(
            found
                .iter()
                .all(|(_, _, severity)| *severity == Severity::Error)
        );
        assert_eq!(findings(&json!([]), Level::Spec).len(), 1);
    }
}
