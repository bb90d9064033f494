use serde_json::{Value, json};

use super::export::{ExportOptions, export};
use super::import::{ImportOptions, convert};
use super::model::Play;
use crate::diag::{Code, Diagnostic, Severity};
use crate::interop::Level;
use crate::interop::document::Document;
use crate::interop::squad::Squad;

fn document(value: &Value) -> Document {
    Document::parse(serde_json::to_string_pretty(value).unwrap()).unwrap()
}

fn findings(value: &Value, level: Level) -> Vec<(String, Code, Severity)> {
    let mut out: Vec<Diagnostic> = Vec::new();
    super::check(&document(value), level, &mut out);
    out.into_iter()
        .map(|d| (d.pointer.clone().unwrap_or_default(), d.code, d.severity()))
        .collect()
}

fn errors(value: &Value) -> Vec<(String, Code)> {
    findings(value, Level::Spec)
        .into_iter()
        .filter(|(_, _, severity)| *severity == Severity::Error)
        .map(|(pointer, code, _)| (pointer, code))
        .collect()
}

fn base() -> Value {
    json!({
        "id": "p",
        "name": "P",
        "roles": [
            {"id": "a", "does": "Do a."},
            {"id": "b", "does": "Do b."}
        ],
        "stop": {"when": "done"}
    })
}

fn with(mut value: Value, key: &str, member: Value) -> Value {
    value[key] = member;
    value
}

#[test]
fn a_minimal_play_is_valid() {
    assert_eq!(findings(&base(), Level::Spec), vec![]);
}

#[test]
fn field_table_violations_carry_the_schema_keyword() {
    let cases: Vec<(Value, &str, Code)> = vec![
        (with(base(), "id", json!("A")), "/id", Code::PatternMismatch),
        (
            with(base(), "id", json!("a".repeat(62))),
            "/id",
            Code::PatternMismatch,
        ),
        (
            with(base(), "version", json!(0)),
            "/version",
            Code::OutOfRange,
        ),
        (
            with(base(), "version", json!(1.5)),
            "/version",
            Code::WrongType,
        ),
        (with(base(), "name", json!("")), "/name", Code::OutOfRange),
        (
            with(base(), "name", json!("n".repeat(121))),
            "/name",
            Code::OutOfRange,
        ),
        (
            with(base(), "summary", json!("")),
            "/summary",
            Code::OutOfRange,
        ),
        (
            with(base(), "extra", json!(1)),
            "/extra",
            Code::UnknownField,
        ),
        (
            with(base(), "roles", json!([{"id": "a"}])),
            "/roles/0",
            Code::MissingField,
        ),
        (
            with(
                base(),
                "roles",
                json!([{"id": "a", "does": "x", "model": "huge"}]),
            ),
            "/roles/0/model",
            Code::InvalidLiteral,
        ),
        (
            with(
                base(),
                "roles",
                json!([{"id": "a", "does": "x", "count": {"min": 0}}]),
            ),
            "/roles/0/count/min",
            Code::OutOfRange,
        ),
        (
            with(
                base(),
                "roles",
                json!([{"id": "a", "does": "x", "count": {"max": 65}}]),
            ),
            "/roles/0/count/max",
            Code::OutOfRange,
        ),
        (
            with(
                base(),
                "roles",
                json!([{"id": "a", "does": "x", "consults": 51}]),
            ),
            "/roles/0/consults",
            Code::OutOfRange,
        ),
        (
            with(
                base(),
                "roles",
                json!([{"id": "a", "does": "x", "color": "red"}]),
            ),
            "/roles/0/color",
            Code::UnknownField,
        ),
        (
            with(
                base(),
                "roles",
                json!(
                    (0..13)
                        .map(|i| json!({"id": format!("r{i}"), "does": "x"}))
                        .collect::<Vec<_>>()
                ),
            ),
            "/roles",
            Code::OutOfRange,
        ),
        (
            with(base(), "phases", json!([{"id": "x", "roles": []}])),
            "/phases/0/roles",
            Code::OutOfRange,
        ),
        (
            with(
                base(),
                "phases",
                json!([{"id": "x", "roles": ["a"], "parallel": "yes"}]),
            ),
            "/phases/0/parallel",
            Code::WrongType,
        ),
        (
            with(base(), "checks", json!([{"by": "a"}])),
            "/checks/0",
            Code::MissingField,
        ),
        (
            with(base(), "stop", json!({"when": "never"})),
            "/stop/when",
            Code::InvalidLiteral,
        ),
        (
            with(base(), "stop", json!({"when": "done", "rounds": 21})),
            "/stop/rounds",
            Code::OutOfRange,
        ),
        (
            with(base(), "budget", json!({"split": {"a": 0.5}, "cap": 1})),
            "/budget/cap",
            Code::UnknownField,
        ),
        (
            with(base(), "visibility", json!("secret")),
            "/visibility",
            Code::InvalidLiteral,
        ),
        (
            with(base(), "author", json!({"type": "user"})),
            "/author",
            Code::MissingField,
        ),
        (
            with(base(), "author", json!({"type": "robot", "id": "x"})),
            "/author/type",
            Code::InvalidLiteral,
        ),
    ];
    for (value, pointer, code) in cases {
        let found = errors(&value);
        assert!(
            found.contains(&(pointer.to_owned(), code)),
            "expected {code:?} at {pointer}, found {found:?}"
        );
    }
}

#[test]
fn semantic_rules_apply_at_spec_level_only() {
    let cases: Vec<(Value, &str, Code)> = vec![
        (
            with(
                base(),
                "roles",
                json!([{"id": "a", "does": "x"}, {"id": "a", "does": "y"}]),
            ),
            "/roles/1/id",
            Code::PlayRoleDup,
        ),
        (
            with(
                base(),
                "phases",
                json!([{"id": "x", "roles": ["a"]}, {"id": "x", "roles": ["b"]}]),
            ),
            "/phases/1/id",
            Code::PlayPhaseDup,
        ),
        (
            with(base(), "phases", json!([{"id": "x", "roles": ["zz"]}])),
            "/phases/0/roles/0",
            Code::PlayPhaseRole,
        ),
        (
            with(base(), "phases", json!([{"id": "x", "roles": ["a", "a"]}])),
            "/phases/0/roles/1",
            Code::PlayPhaseRoleDup,
        ),
        (
            with(base(), "checks", json!([{"by": "zz", "of": "a"}])),
            "/checks/0/by",
            Code::PlayCheckBy,
        ),
        (
            with(base(), "checks", json!([{"by": "a", "of": "zz"}])),
            "/checks/0/of",
            Code::PlayCheckOf,
        ),
        (
            with(base(), "checks", json!([{"by": "a", "of": "a"}])),
            "/checks/0",
            Code::PlayCheckSelf,
        ),
        (
            with(
                base(),
                "roles",
                json!([{"id": "a", "does": "x", "count": {"min": 5, "max": 2}}]),
            ),
            "/roles/0/count",
            Code::PlayCount,
        ),
        (
            with(base(), "budget", json!({"split": {"zz": 0.5}})),
            "/budget/split/zz",
            Code::PlaySplitRole,
        ),
        (
            with(base(), "budget", json!({"split": {"a": -0.1}})),
            "/budget/split/a",
            Code::PlaySplitNum,
        ),
        (
            with(base(), "budget", json!({"split": {"a": "half"}})),
            "/budget/split/a",
            Code::PlaySplitNum,
        ),
        (
            with(base(), "budget", json!({"split": {"a": 0.8, "b": 0.7}})),
            "/budget/split",
            Code::PlaySplitSum,
        ),
    ];
    for (value, pointer, code) in cases {
        assert!(
            errors(&value).contains(&(pointer.to_owned(), code)),
            "expected {code:?} at {pointer}, found {:?}",
            errors(&value)
        );
        assert!(
            !findings(&value, Level::Schema)
                .iter()
                .any(|(_, found, _)| *found == code),
            "{code:?} must not be reported at schema level"
        );
    }
}

#[test]
fn lenient_level_downgrades_self_checks_rounds_and_unknown_fields() {
    let value = with(
        with(base(), "checks", json!([{"by": "a", "of": "a"}])),
        "extra",
        json!(true),
    );
    let value = with(value, "stop", json!({"when": "rounds"}));
    let spec = findings(&value, Level::Spec);
    assert!(spec.contains(&("/checks/0".into(), Code::PlayCheckSelf, Severity::Error)));
    assert!(spec.contains(&("/extra".into(), Code::UnknownField, Severity::Error)));
    assert!(spec.contains(&("/stop".into(), Code::PlayStopRounds, Severity::Warning)));
    let lenient = findings(&value, Level::Lenient);
    assert!(
        lenient
            .iter()
            .all(|(_, _, severity)| *severity == Severity::Warning),
        "{lenient:?}"
    );
    assert_eq!(lenient.len(), 3);
}

#[test]
fn budget_shares_are_summed_in_decimal() {
    let exact = with(
        with(
            base(),
            "roles",
            json!(["a", "b", "c", "d"].map(|id| json!({"id": id, "does": "x"}))),
        ),
        "budget",
        json!({"split": {"a": 0.2, "b": 0.4, "c": 0.3, "d": 0.1}}),
    );
    assert_eq!(errors(&exact), vec![]);
    let over = with(
        with(
            base(),
            "roles",
            json!(["a", "b", "c"].map(|id| json!({"id": id, "does": "x"}))),
        ),
        "budget",
        json!({"split": {"a": 0.8, "b": 0.7, "c": 0.7}}),
    );
    assert_eq!(
        errors(&over),
        vec![("/budget/split".to_owned(), Code::PlaySplitSum)]
    );
}

#[test]
fn a_share_too_large_for_a_double_is_still_a_number_and_summed() {
    // `1e400` and `-1e400` are JSON numbers that no f64 holds.
    let value = with(base(), "budget", json!({"split": {"a": "HUGE"}}));
    let errors_of = |number: &str| {
        let text = serde_json::to_string_pretty(&value)
            .unwrap()
            .replace("\"HUGE\"", number);
        let mut out: Vec<Diagnostic> = Vec::new();
        super::check(&Document::parse(text).unwrap(), Level::Spec, &mut out);
        out.into_iter()
            .map(|d| (d.pointer.unwrap_or_default(), d.code, d.message))
            .collect::<Vec<_>>()
    };
    let huge = errors_of("1e400");
    assert_eq!(huge.len(), 1, "{huge:?}");
    assert_eq!(
        (huge[0].0.as_str(), huge[0].1),
        ("/budget/split", Code::PlaySplitSum)
    );
    let negative = errors_of("-1e400");
    assert_eq!(negative.len(), 1, "{negative:?}");
    assert_eq!(negative[0].1, Code::PlaySplitNum);
    assert!(negative[0].2.contains("found -1e400"), "{negative:?}");
    assert!(errors_of("-0e5").is_empty());
}

fn options() -> ImportOptions {
    ImportOptions {
        namespace: "openvibe".into(),
        version: "2026.01.01.1".into(),
        pillars: vec![],
        renames: vec![],
        base_roles: vec![],
        unroll_rounds: false,
    }
}

/// Imports a play in memory and reads the manifest back as a squad.
fn import(value: &Value, options: &ImportOptions) -> Result<Squad, Vec<(String, Code)>> {
    let doc = document(value);
    let play = Play::from_value(&doc.value).expect("valid play");
    let imported = convert(&doc, doc.source.text.as_bytes(), &play, options).map_err(|errors| {
        errors
            .into_iter()
            .map(|d| (d.pointer.unwrap_or_default(), d.code))
            .collect::<Vec<_>>()
    })?;
    let manifest = &imported.files[0].1;
    Ok(Squad::from_text(std::str::from_utf8(manifest).unwrap()).unwrap())
}

fn import_errors(value: &Value) -> Vec<(String, Code)> {
    import(value, &options()).err().unwrap_or_default()
}

#[test]
fn ids_a_squad_cannot_take_are_import_errors() {
    for id in ["a-", "a--b", "runtime"] {
        assert_eq!(
            import_errors(&with(base(), "id", json!(id))),
            vec![("/id".to_owned(), Code::ImportPlayId)],
            "{id}"
        );
    }
    for id in ["a-", "a--b", "orchestrator", "runtime"] {
        let value = with(base(), "roles", json!([{"id": id, "does": "x"}]));
        assert_eq!(
            import_errors(&value),
            vec![("/roles/0/id".to_owned(), Code::ImportPlayAgentId)],
            "{id}"
        );
    }
    let mut renamed = options();
    renamed.renames = vec![("orchestrator".into(), "lead".into())];
    let value = with(
        base(),
        "roles",
        json!([{"id": "orchestrator", "does": "x"}]),
    );
    let squad = import(&value, &renamed).unwrap();
    assert_eq!(squad.agents[0].id, "lead");
}

#[test]
fn generated_node_ids_must_be_valid_and_unique() {
    let long = "r".repeat(61);
    let value = with(
        with(base(), "roles", json!([{"id": long, "does": "x"}])),
        "phases",
        json!([{"id": "p".repeat(61), "roles": [long]}]),
    );
    assert_eq!(
        import_errors(&value),
        vec![("/phases/0".to_owned(), Code::ImportPlayNodeId)]
    );
    let value = with(
        with(
            base(),
            "roles",
            json!([{"id": "c", "does": "x"}, {"id": "b-c", "does": "y"}]),
        ),
        "phases",
        json!([{"id": "a-b", "roles": ["c"]}, {"id": "a", "roles": ["b-c"]}]),
    );
    assert_eq!(
        import_errors(&value),
        vec![("/phases/1".to_owned(), Code::ImportPlayNodeId)]
    );
}

#[test]
fn sequential_phases_chain_and_parallel_phases_fan_out() {
    let value = with(
        with(
            base(),
            "roles",
            json!(["a", "b", "c", "d"].map(|id| json!({"id": id, "does": "x"}))),
        ),
        "phases",
        json!([
            {"id": "one", "roles": ["a", "b"]},
            {"id": "two", "roles": ["c", "d"], "parallel": true},
            {"id": "three", "roles": ["a"]}
        ]),
    );
    let squad = import(&value, &options()).unwrap();
    let nodes: Vec<(String, Vec<String>)> = squad.workflows[0]
        .nodes
        .iter()
        .map(|node| (node.id.clone(), node.depends_on.clone()))
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        nodes,
        vec![
            ("one-a".into(), s(&[])),
            ("one-b".into(), s(&["one-a"])),
            ("two-c".into(), s(&["one-b"])),
            ("two-d".into(), s(&["one-b"])),
            ("three-a".into(), s(&["two-c", "two-d"])),
        ]
    );
}

#[test]
fn checks_attach_to_a_later_node_or_add_a_check_node() {
    // No phases: one node per role plus a check node (a does not come after b).
    let value = with(
        base(),
        "checks",
        json!([{"by": "a", "of": "b", "bar": "Good."}]),
    );
    let squad = import(&value, &options()).unwrap();
    let workflow = &squad.workflows[0];
    let check = workflow
        .nodes
        .iter()
        .find(|node| node.id == "check-a-b")
        .unwrap();
    assert_eq!(check.agent_id, "a");
    assert_eq!(check.depends_on, vec!["b".to_owned()]);
    assert_eq!(check.description.as_deref(), Some("Check b: Good."));
    assert_eq!(workflow.nodes.len(), 3);
}

#[test]
fn rounds_can_be_unrolled() {
    let value = with(
        with(base(), "phases", json!([{"id": "do", "roles": ["a", "b"]}])),
        "stop",
        json!({"when": "rounds", "rounds": 2}),
    );
    let mut unrolled = options();
    unrolled.unroll_rounds = true;
    let squad = import(&value, &unrolled).unwrap();
    let ids: Vec<(&str, &[String])> = squad.workflows[0]
        .nodes
        .iter()
        .map(|node| (node.id.as_str(), node.depends_on.as_slice()))
        .collect();
    assert_eq!(ids[0], ("do-a-r1", &[][..]));
    assert_eq!(ids[2].0, "do-a-r2");
    assert_eq!(ids[2].1, &["do-b-r1".to_owned()][..]);
}

/// seed-formats §1.11 item 5: plays whose phases cover every role, whose multi-role phases are
/// parallel and which have no checks keep their roles and phase partition through import and
/// export.
#[test]
fn import_then_export_keeps_roles_and_phase_partition() {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    for case in 0..300 {
        let role_count = 1 + next(12);
        let roles: Vec<String> = (0..role_count).map(|i| format!("role{i}")).collect();
        // Partition the roles, in a shuffled order, into 1..=min(n, 20) phases.
        let mut order = roles.clone();
        for i in (1..order.len()).rev() {
            order.swap(i, next(i + 1));
        }
        let mut phases: Vec<Vec<String>> = Vec::new();
        for role in order {
            if phases.is_empty() || (phases.len() < 20 && next(3) == 0) {
                phases.push(vec![role]);
            } else {
                let last = phases.len() - 1;
                let index = if next(2) == 0 {
                    last
                } else {
                    next(phases.len())
                };
                phases[index].push(role);
            }
        }
        let play = json!({
            "id": format!("case-{case}"),
            "name": format!("Case {case}"),
            "roles": roles.iter().map(|id| json!({"id": id, "does": format!("Do {id}.")})).collect::<Vec<_>>(),
            "phases": phases.iter().enumerate().map(|(k, roles)| json!({
                "id": format!("p{k}"),
                "roles": roles,
                "parallel": roles.len() > 1 || next(2) == 0,
            })).collect::<Vec<_>>(),
            "stop": {"when": "done"}
        });
        assert_eq!(errors(&play), vec![], "case {case} is not a valid play");
        let squad = import(&play, &options()).unwrap();
        let (exported, _) = export(&squad, &squad.workflows[0], &ExportOptions::default()).unwrap();
        let exported_roles: Vec<&str> = exported["roles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        let mut expected_roles: Vec<&str> = roles.iter().map(String::as_str).collect();
        expected_roles.sort_unstable();
        assert_eq!(exported_roles, expected_roles, "case {case}");
        let partition: Vec<Vec<String>> = exported["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|phase| {
                phase["roles"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_str().unwrap().to_owned())
                    .collect()
            })
            .collect();
        let expected: Vec<Vec<String>> = phases
            .iter()
            .map(|roles| {
                let mut roles = roles.clone();
                roles.sort();
                roles
            })
            .collect();
        assert_eq!(partition, expected, "case {case}");
        assert_eq!(
            errors(&exported),
            vec![],
            "case {case}: the export is not a valid play"
        );
    }
}

#[test]
fn export_warns_only_when_edges_are_sparser_than_the_phases() {
    let squad_with = |edges: &[(&str, &[&str])]| {
        let agents: serde_json::Map<String, Value> = edges
            .iter()
            .map(|(id, _)| {
                (
                    (*id).to_owned(),
                    json!({"label": id, "description": "Does it.", "base_role": "build"}),
                )
            })
            .collect();
        let nodes: serde_json::Map<String, Value> = edges
            .iter()
            .map(|(id, deps)| {
                (
                    (*id).to_owned(),
                    json!({"agent_id": id, "depends_on": deps}),
                )
            })
            .collect();
        Squad::from_text(
            &json!({
                "namespace": "n", "id": "s", "version": "2026.01.01.1", "label": "S",
                "capability_projection": {"agents": agents, "virtual_workflows": {"w": {"label": "W", "nodes": nodes}}}
            })
            .to_string(),
        )
        .unwrap()
    };
    let warnings = |squad: &Squad| -> Vec<Code> {
        let (_, warnings) = export(squad, &squad.workflows[0], &ExportOptions::default()).unwrap();
        warnings.into_iter().map(|d| d.code).collect()
    };
    // Denser (c also depends on a, two layers up): nothing is lost.
    assert_eq!(
        warnings(&squad_with(&[
            ("a", &[]),
            ("b", &["a"]),
            ("c", &["a", "b"])
        ])),
        vec![]
    );
    // Sparser (c waits for a only, but its phase comes after b's).
    assert_eq!(
        warnings(&squad_with(&[("a", &[]), ("b", &[]), ("c", &["a"])])),
        vec![Code::ExportEdges]
    );
}
