//! Schema vectors of package-format.md §10.4 against the minimal manifest (EX-1).

use super::check;
use crate::diag::Diagnostics;

const EX1: &str = include_str!("../../registry-fixtures/valid/minimal/expert-squad.jsonc");

#[track_caller]
fn codes(text: &str) -> Vec<&'static str> {
    let mut diagnostics = Diagnostics::default();
    check(text, &mut diagnostics);
    let mut codes: Vec<_> = diagnostics
        .into_sorted()
        .into_iter()
        .filter(|diagnostic| diagnostic.severity() == crate::diag::Severity::Error)
        .map(|diagnostic| diagnostic.code.as_str())
        .collect();
    codes.sort_unstable();
    codes
}

#[track_caller]
fn mutated(from: &str, to: &str) -> Vec<&'static str> {
    assert_eq!(EX1.matches(from).count(), 1, "{from}");
    codes(&EX1.replace(from, to))
}

#[test]
fn ex1_is_valid() {
    assert!(codes(EX1).is_empty());
}

#[test]
fn accepted_vectors() {
    // TV-38, TV-39, TV-53
    assert!(mutated(r#""label": "Minimal""#, r#""label": " ""#).is_empty());
    assert!(mutated(r#""label": "Worker""#, r#""label": "  Worker  ""#).is_empty());
    assert!(
        mutated(
            r#""label": "Minimal","#,
            r#""label": "Minimal", "description": "","#
        )
        .is_empty()
    );
}

#[test]
fn rejected_vectors() {
    // TV-40
    assert_eq!(
        mutated(r#""label": "Minimal","#, r#""label": "Minimal", "x": 1,"#),
        ["unknown-field"]
    );
    // TV-42
    assert_eq!(
        mutated(r#""worker": {"#, r#""shared": {"#),
        ["invalid-prompt-path", "reserved-id"]
    );
    assert_eq!(
        mutated(r#""worker": {"#, &format!("\"{}\": {{", "a".repeat(65))),
        ["invalid-id", "invalid-prompt-path"]
    );
    // TV-43: a base role outside the runtime templates
    assert_eq!(
        mutated(r#""base_role": "build""#, r#""base_role": "foo""#),
        ["unknown-base-role"]
    );
    // TV-44
    assert_eq!(
        mutated(r#"["work"]"#, r#"["work","code"]"#),
        ["unsorted-list"]
    );
    assert_eq!(
        mutated(r#"["work"]"#, r#"["work","work"]"#),
        ["duplicate-entry", "unsorted-list"]
    );
    assert_eq!(mutated(r#"["work"]"#, "[]"), ["empty-list"]);
    // TV-45
    assert_eq!(
        mutated(
            r#""built_in_tool_ids": [],
        "default_skill_refs""#,
            r#""built_in_tool_ids": ["read","read"],
        "default_skill_refs""#
        ),
        ["duplicate-entry"]
    );
    // TV-46
    assert_eq!(
        mutated(r#""readme": "README.md""#, r#""readme": "docs/README.md""#),
        ["invalid-literal"]
    );
    assert_eq!(
        mutated(
            r#""instructions": "selector.md""#,
            r#""instructions": "sel.md""#
        ),
        ["invalid-literal"]
    );
    assert_eq!(
        mutated(r#""schema_version": 1"#, r#""schema_version": 2"#),
        ["invalid-literal"]
    );
    // TV-47
    assert_eq!(
        mutated(
            r#""readme": "README.md","#,
            r#""readme": "README.md", "configuration": {"fields": [{"key": "A-b", "label": "l", "type": "text", "required": true}]},"#
        ),
        ["invalid-id"]
    );
    // TV-48
    assert_eq!(
        mutated(
            r#""virtual_workflows": {}"#,
            r#""virtual_workflows": {"W": {"label": "l", "description": "d", "nodes": {"n": {"agent_id": "worker", "description": "d", "depends_on": []}}}}"#
        ),
        ["invalid-id"]
    );
    // TV-50, TV-52
    assert_eq!(
        mutated(
            r#""virtual_workflows": {}"#,
            r#""virtual_workflows": {"w": {"label": "l", "description": "d", "nodes": {"n": {"agent_id": "orchestrator", "description": "d", "depends_on": []}}}}"#
        ),
        ["reserved-id"]
    );
    assert_eq!(
        mutated(
            r#""virtual_workflows": {}"#,
            r#""virtual_workflows": {"w": {"label": "l", "description": "d", "nodes": {"n": {"agent_id": "worker", "description": "d", "depends_on": ["n"]}}}}"#
        ),
        ["dependency-cycle", "self-dependency"]
    );
    // TV-54, TV-55
    assert_eq!(
        mutated(
            r#""label": "Minimal","#,
            r#""label": "Minimal", "name": "  ","#
        ),
        ["blank-string"]
    );
    // TV-56
    assert_eq!(
        mutated(
            r#""base_role": "orchestrator","#,
            r#""base_role": "orchestrator", "prompt": "x.md","#
        ),
        ["invalid-prompt-path"]
    );
    // STR-1: null for an optional field
    assert_eq!(
        mutated(
            r#""label": "Minimal","#,
            r#""label": "Minimal", "description": null,"#
        ),
        ["wrong-type"]
    );
}

#[test]
fn cycle_points_at_the_entry_that_closes_it() {
    let workflow = r#""virtual_workflows": {"w": {"label": "l", "description": "d", "nodes": {
        "p": {"agent_id": "worker", "description": "d", "depends_on": ["e"]},
        "e": {"agent_id": "worker", "description": "d", "depends_on": ["a", "l"]},
        "a": {"agent_id": "worker", "description": "d", "depends_on": ["p"]},
        "l": {"agent_id": "worker", "description": "d", "depends_on": ["p"]}}}}"#;
    let mut diagnostics = Diagnostics::default();
    let text = EX1.replace(r#""virtual_workflows": {}"#, workflow);
    check(&text, &mut diagnostics);
    let sorted = diagnostics.into_sorted();
    let messages: Vec<_> = sorted.iter().map(|d| d.message.as_str()).collect();
    // The whole cycle, in dependency order, as the reference's search meets it.
    assert_eq!(
        messages,
        ["virtual workflow `w` contains a dependency cycle: `a` -> `p` -> `e` -> `a`"]
    );
    let cycle = &sorted[0];
    let e_depends_on_a = text.find(r#"["a", "l"]"#).unwrap() + 1;
    assert_eq!(cycle.span, Some(e_depends_on_a..e_depends_on_a + 3));
    assert_eq!(
        cycle.pointer.as_deref(),
        Some("/capability_projection/virtual_workflows/w/nodes/e/depends_on/0")
    );
    assert_eq!(
        cycle.span_label.as_deref(),
        Some("`e` depends on `a`, which closes the cycle")
    );
    let labels: Vec<_> = cycle.labels.iter().map(|l| l.message.as_str()).collect();
    assert_eq!(labels, ["`a` depends on `p`", "`p` depends on `e`"]);
}

#[test]
fn five_thousand_agents_and_nodes() {
    let agent = r#"{"label": "A", "base_role": "build", "inherit_base_tools": false, "built_in_tool_ids": [], "default_skill_refs": [], "package_skill_refs": [], "default_tool_refs": [], "package_tool_refs": [], "default_mcp_server_refs": [], "package_mcp_server_refs": [], "default_mcp_tool_refs": [], "package_mcp_tool_refs": [], "default_mcp_prompt_refs": [], "package_mcp_prompt_refs": [], "default_mcp_resource_refs": [], "package_mcp_resource_refs": []}"#;
    let agents: Vec<String> = (0..5000).map(|i| format!("\"a{i}\": {agent}")).collect();
    // A chain: n1 depends on n0, n2 on n1, ... (worst case for a recursive search).
    let nodes: Vec<String> = (0..5000)
        .map(|i| {
            let deps = if i == 0 { String::new() } else { format!("\"n{}\"", i - 1) };
            format!("\"n{i}\": {{\"agent_id\": \"a{i}\", \"description\": \"d\", \"depends_on\": [{deps}]}}")
        })
        .collect();
    let text = EX1
        .replace(r#""agents": {"#, &format!("\"agents\": {{{},", agents.join(",")))
        .replace(r#""virtual_workflows": {}"#, &format!("\"virtual_workflows\": {{\"w\": {{\"label\": \"l\", \"description\": \"d\", \"nodes\": {{{}}}}}}}", nodes.join(",")));
    assert!(codes(&text).is_empty());
}

#[test]
fn declared_reads_the_last_of_duplicate_keys_and_only_strings() {
    let declared = super::declared(EX1).unwrap();
    assert_eq!(declared.namespace.as_deref(), Some("acme"));
    assert_eq!(declared.id.as_deref(), Some("minimal-squad"));
    assert!(declared.version.is_some());
    let text = r#"{ "id": "a", "namespace": "n", "id": "b", "version": "1", "version": 2 }"#;
    assert_eq!(
        super::declared(text),
        Some(super::Declared {
            namespace: Some("n".to_owned()),
            id: Some("b".to_owned()),
            version: None,
        })
    );
    assert_eq!(super::declared("{}"), Some(super::Declared::default()));
    assert_eq!(super::declared("[1]"), None);
    assert_eq!(super::declared("{ nope"), None);
}
