//! Documents of the neighbouring formats through `squad validate`: the explain-page examples,
//! telling kinds apart, and hostile input.

use std::fs;

use serde_json::Value;

use crate::support::{fixtures, squad, text};

const KINDS: [&str; 8] = [
    "collab",
    "play",
    "router-contract",
    "router-input",
    "ofp-envelope",
    "ofp-manifest",
    "ofp-dialog-event",
    "handoff",
];

fn codes(stdout: &[u8]) -> Vec<String> {
    let document: Value = serde_json::from_slice(stdout).expect("JSON output");
    document["packages"][0]["diagnostics"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|d| d["code"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_example_document_produces_its_code() {
    let home = tempfile::tempdir().unwrap();
    let examples = fixtures().join("interop/examples");
    let cases: Vec<Value> =
        serde_json::from_slice(&fs::read(examples.join("cases.json")).unwrap()).unwrap();
    assert!(cases.len() >= 30, "only {} example cases", cases.len());
    for case in cases {
        let code = case["code"].as_str().unwrap();
        let file = examples.join(case["file"].as_str().unwrap());
        let mut args = vec!["validate", "--format", "json"];
        args.extend(
            case["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap()),
        );
        args.push(file.to_str().unwrap());
        let output = squad(&args, home.path(), home.path());
        let found = codes(&output.stdout);
        assert!(found.iter().any(|c| c == code), "{code}: found {found:?}");
    }
}

#[test]
fn a_document_of_no_known_kind_is_a_usage_error_that_lists_the_kinds() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("thing.json");
    fs::write(&file, r#"{"name": "not a format squad knows"}"#).unwrap();
    let output = squad(
        &["validate", file.to_str().unwrap()],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("cannot tell what kind of document"),
        "{stderr}"
    );
    for kind in KINDS {
        assert!(stderr.contains(kind), "{kind} not listed: {stderr}");
    }
}

#[test]
fn hostile_documents_get_diagnostics_for_every_kind() {
    let home = tempfile::tempdir().unwrap();
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    let big = format!("{{\"pad\": \"{}\"}}", "x".repeat(17 * 1024 * 1024));
    let inputs: Vec<(&str, Vec<u8>, &str)> = vec![
        ("broken.json", b"{\"roles\": [".to_vec(), "jsonc-syntax"),
        (
            "binary.json",
            vec![0, 159, 146, 150, 255, 0, 1],
            "jsonc-syntax",
        ),
        ("deep.json", deep.into_bytes(), "jsonc-syntax"),
        ("big.json", big.into_bytes(), "document-too-large"),
        ("empty.json", Vec::new(), "jsonc-syntax"),
    ];
    for (name, bytes, expected) in &inputs {
        let file = home.path().join(name);
        fs::write(&file, bytes).unwrap();
        for kind in KINDS {
            let output = squad(
                &[
                    "validate",
                    "--format",
                    "json",
                    "--kind",
                    kind,
                    file.to_str().unwrap(),
                ],
                home.path(),
                home.path(),
            );
            assert_eq!(
                output.status.code(),
                Some(1),
                "{name} as {kind}: {}",
                text(&output.stderr)
            );
            assert_eq!(
                codes(&output.stdout),
                vec![expected.to_string()],
                "{name} as {kind}"
            );
        }
    }
}

#[test]
fn every_kind_survives_values_of_every_wrong_type() {
    let home = tempfile::tempdir().unwrap();
    let values = [
        "null",
        "true",
        "1",
        "-1.5e300",
        "\"text\"",
        "[]",
        "{}",
        "[{}]",
        "[[[]]]",
        r#"{"a": {"b": [null, 1, "x", {}]}}"#,
    ];
    // Every top-level key any format knows, with each wrong value in turn.
    let keys = [
        "id",
        "name",
        "roles",
        "phases",
        "checks",
        "stop",
        "budget",
        "author",
        "task_id",
        "from",
        "to",
        "goal",
        "definition_of_done",
        "constraints",
        "inputs",
        "openFloor",
        "identification",
        "capabilities",
        "speakerUri",
        "span",
        "features",
        "input",
        "output",
        "handoff",
        "behavior",
        "request",
        "routes",
        "schema_version",
        "stage_execution",
        "stages",
        "outputs",
    ];
    for (index, value) in values.iter().enumerate() {
        let members: Vec<String> = keys
            .iter()
            .map(|key| format!("\"{key}\": {value}"))
            .collect();
        let file = home.path().join(format!("wrong-{index}.json"));
        fs::write(&file, format!("{{{}}}", members.join(", "))).unwrap();
        for kind in KINDS {
            let output = squad(
                &["validate", "--kind", kind, file.to_str().unwrap()],
                home.path(),
                home.path(),
            );
            let code = output.status.code();
            assert!(
                code == Some(0) || code == Some(1),
                "{kind} on {value}: {code:?} {}",
                text(&output.stderr)
            );
            assert!(
                !text(&output.stderr).contains("panicked"),
                "{kind} on {value}"
            );
        }
        // And the value as the whole document.
        let whole = home.path().join(format!("whole-{index}.json"));
        fs::write(&whole, value).unwrap();
        for kind in KINDS {
            let output = squad(
                &["validate", "--kind", kind, whole.to_str().unwrap()],
                home.path(),
                home.path(),
            );
            assert_eq!(
                output.status.code(),
                Some(1),
                "{kind} on the document {value}"
            );
        }
    }
}

#[test]
fn levels_kinds_and_deny_warnings_on_the_command_line() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("loop.json");
    fs::write(
        &file,
        r#"{"id": "p", "name": "P", "roles": [{"id": "a", "does": "x"}], "checks": [{"by": "a", "of": "a"}], "stop": {"when": "rounds"}}"#,
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let run = |args: &[&str]| squad(args, home.path(), home.path());
    // spec: the self-check is an error.
    let output = run(&["validate", "--format", "json", path]);
    assert_eq!(output.status.code(), Some(1));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["packages"][0]["kind"], "play");
    // lenient: only warnings, unless they are denied.
    assert_eq!(
        run(&["validate", "--level", "lenient", path]).status.code(),
        Some(0)
    );
    assert_eq!(
        run(&["validate", "--level", "lenient", "--deny-warnings", path])
            .status
            .code(),
        Some(1)
    );
    // schema: no semantic rule at all.
    let output = run(&["validate", "--level", "schema", "--format", "json", path]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(codes(&output.stdout), Vec::<String>::new());
    // A folder is a package; --kind cannot make it a document.
    let output = run(&["validate", "--kind", "play", home.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("is a folder"));
    // A wrong --kind gives that kind's diagnostics, not a crash.
    let output = run(&["validate", "--format", "json", "--kind", "handoff", path]);
    assert_eq!(output.status.code(), Some(1));
    assert!(codes(&output.stdout).contains(&"missing-field".to_owned()));
}

/// `file` with a byte that is not UTF-8 put into its first string.
fn spoil_utf8(file: &std::path::Path) {
    let mut bytes = fs::read(file).unwrap();
    let at = bytes.iter().position(|&b| b == b'"').unwrap() + 1;
    bytes.insert(at, 0xFF);
    fs::write(file, bytes).unwrap();
}

/// Every command that reads a document says when it is not UTF-8, not only `squad validate`.
#[test]
fn every_command_reports_a_document_that_is_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let has_warning = |args: &[&str]| {
        let output = squad(args, dir.path(), dir.path());
        let stdout = text(&output.stdout);
        assert!(
            stdout.contains("\"code\": \"invalid-utf8\"")
                || stdout.contains(" invalid-utf8 warning: "),
            "{args:?}: {stdout}{}",
            text(&output.stderr)
        );
    };

    let collab = dir.path().join("c.json");
    fs::copy(
        fixtures().join("interop/collab/example-delivery.collab.json"),
        &collab,
    )
    .unwrap();
    spoil_utf8(&collab);
    let squads = fixtures().join("interop/collab/squads");
    has_warning(&[
        "collab",
        "validate",
        collab.to_str().unwrap(),
        "--squad",
        squads.join("source-squad").to_str().unwrap(),
        "--squad",
        squads.join("delivery-squad").to_str().unwrap(),
        "--format",
        "json",
    ]);

    let workspace = dir.path().join("ws");
    crate::support::copy_tree(&fixtures().join("interop/workspace"), &workspace);
    let contract = workspace.join("interop/ck/ck-brain.contract.json");
    spoil_utf8(&contract);
    let contract = contract.to_str().unwrap();
    has_warning(&["router", "contract", contract, "--format", "json"]);

    let case = fixtures().join("interop/router/cases/routed");
    for spoilt in ["input.json", "output.json", "delegate_result.json"] {
        let run = dir.path().join(spoilt.trim_end_matches(".json"));
        crate::support::copy_tree(&case, &run);
        spoil_utf8(&run.join(spoilt));
        let file = |name: &str| run.join(name).to_str().unwrap().to_owned();
        has_warning(&[
            "router",
            "check",
            "--input",
            &file("input.json"),
            "--output",
            &file("output.json"),
            "--delegate-result",
            &file("delegate_result.json"),
            "--format",
            "json",
        ]);
    }

    // The contract above is spoilt; so is a recorded run. lint prints `path#pointer CODE ...`.
    spoil_utf8(&workspace.join("interop/ck/cases/routed.json"));
    let output = squad(
        &["lint", workspace.to_str().unwrap()],
        dir.path(),
        dir.path(),
    );
    let stdout = text(&output.stdout);
    for file in [
        "interop/ck/ck-brain.contract.json",
        "interop/ck/cases/routed.json",
    ] {
        assert!(
            stdout.contains(&format!("{file}#/ invalid-utf8 warning: ")),
            "{file}: {stdout}"
        );
    }
}
