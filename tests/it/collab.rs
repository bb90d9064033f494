//! Collaboration definitions (package-format §9 and the vectors of §10) through the real binary.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::{fixtures, squad, text};

fn base() -> Value {
    let path = fixtures().join("interop/collab/example-delivery.collab.json");
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

/// Runs `squad collab validate` on `value` with both example squads; returns the exit code and
/// the (pointer, code) of every finding.
fn check(value: &Value, dir: &Path) -> (i32, Vec<(String, String)>) {
    let file = dir.join("c.json");
    fs::write(&file, serde_json::to_string_pretty(value).unwrap()).unwrap();
    let squads = fixtures().join("interop/collab/squads");
    let output = squad(
        &[
            "collab",
            "validate",
            file.to_str().unwrap(),
            "--squad",
            squads.join("source-squad").to_str().unwrap(),
            "--squad",
            squads.join("delivery-squad").to_str().unwrap(),
            "--format",
            "json",
        ],
        dir,
        dir,
    );
    let document: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("not JSON: {}", text(&output.stderr)));
    let found = document["packages"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["pointer"].as_str().unwrap_or_default().to_owned(),
                d["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (output.status.code().unwrap(), found)
}

fn one(pointer: &str, code: &str) -> (i32, Vec<(String, String)>) {
    (1, vec![(pointer.to_owned(), code.to_owned())])
}

#[test]
fn accepted_collaborations() {
    let dir = tempfile::tempdir().unwrap();
    // TV-4: two stages connected by evidence.
    assert_eq!(check(&base(), dir.path()), (0, vec![]));
    // TV-3: one stage consuming an external input.
    let mut single = base();
    single["stages"] = json!([{"id": "delivery", "squad_id": "source-squad", "workflow_id": "delivery", "depends_on": [], "consumes": ["source-brief"], "produces": ["accepted-delivery"]}]);
    assert_eq!(check(&single, dir.path()), (0, vec![]));
    // TV-13: two stages on the same squad and workflow, chained.
    let mut same = base();
    same["stages"][1]["squad_id"] = json!("source-squad");
    assert_eq!(check(&same, dir.path()), (0, vec![]));
    // TV-64: producing a key equal to an external input is allowed.
    let mut shadow = base();
    shadow["stages"][0]["produces"] = json!(["source-brief", "source-evidence"]);
    assert_eq!(check(&shadow, dir.path()), (0, vec![]));
    // Evidence flows transitively along dependency chains.
    let mut chain = base();
    chain["stages"].as_array_mut().unwrap().push(json!({"id": "audit", "squad_id": "delivery-squad", "workflow_id": "delivery", "depends_on": ["delivery"], "consumes": ["source-evidence"], "produces": ["audit-report"]}));
    assert_eq!(check(&chain, dir.path()), (0, vec![]));
}

#[test]
fn each_rule_is_reported_where_it_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let mutate = |edit: &dyn Fn(&mut Value)| {
        let mut value = base();
        edit(&mut value);
        check(&value, dir.path())
    };
    // TV-3 with no stage.
    assert_eq!(mutate(&|v| v["stages"] = json!([])), {
        let mut expected = one("/outputs/0", "collab-output");
        expected
            .1
            .push(("/stages".into(), "collab-no-stages".into()));
        expected
    });
    // TV-12, one mutation at a time.
    assert_eq!(
        mutate(&|v| v["stages"][1]["squad_id"] = json!("missing")),
        one("/stages/1/squad_id", "collab-unknown-squad")
    );
    assert_eq!(
        mutate(&|v| v["stages"][1]["workflow_id"] = json!("missing")),
        one("/stages/1/workflow_id", "collab-unknown-workflow")
    );
    let later = mutate(&|v| v["stages"][0]["depends_on"] = json!(["delivery"]));
    assert_eq!(later.0, 1);
    assert!(
        later
            .1
            .contains(&("/stages/0/depends_on/0".into(), "collab-depends-on".into())),
        "{later:?}"
    );
    assert_eq!(
        mutate(&|v| v["stages"][1]["consumes"] = json!(["missing-evidence"])),
        one("/stages/1/consumes/0", "collab-evidence")
    );
    let double = mutate(&|v| v["stages"][1]["produces"] = json!(["source-evidence"]));
    assert!(
        double.1.contains(&(
            "/stages/1/produces/0".into(),
            "collab-double-producer".into()
        )),
        "{double:?}"
    );
    assert_eq!(
        mutate(&|v| v["stages"][1]["id"] = json!("Delivery Stage")),
        {
            // The stage id is not canonical, so the later dependency on it cannot resolve either.
            one("/stages/1/id", "collab-id")
        }
    );
    // TV-14.
    assert_eq!(
        mutate(&|v| v["stage_execution"] = json!("shared_task")),
        one("/stage_execution", "collab-stage-execution")
    );
    // TV-63: an output that only an external input names.
    assert_eq!(
        mutate(&|v| v["outputs"] = json!(["source-brief"])),
        one("/outputs/0", "collab-output")
    );
    // The other rules.
    assert_eq!(
        mutate(&|v| v["schema_version"] = json!(2)),
        one("/schema_version", "collab-schema-version")
    );
    assert_eq!(
        mutate(&|v| v["id"] = json!("Not Canonical")),
        one("/id", "collab-id")
    );
    assert_eq!(
        mutate(&|v| v["label"] = json!("  ")),
        one("/label", "collab-label")
    );
    assert_eq!(
        mutate(&|v| v["inputs"] = json!(["source-brief", "source-brief"])),
        one("/inputs/1", "collab-duplicate")
    );
    assert_eq!(
        mutate(&|v| v["stages"][1]["id"] = json!("source")),
        one("/stages/1/id", "collab-duplicate")
    );
    assert_eq!(mutate(&|v| v["stages"][0]["produces"] = json!([])), {
        let mut expected = one("/stages/0/produces", "collab-no-evidence");
        expected
            .1
            .push(("/stages/1/consumes/0".into(), "collab-evidence".into()));
        expected
    });
    assert_eq!(
        mutate(&|v| v["stages"][0]["depends_on"] = json!(["source"])),
        one("/stages/0/depends_on/0", "collab-depends-on")
    );
    assert_eq!(
        mutate(&|v| v["stages"][0]["consumes"] = json!(42)),
        one("/stages/0/consumes", "wrong-type")
    );
}

#[test]
fn all_problems_are_reported_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut value = base();
    value["stage_execution"] = json!("shared_task");
    value["stages"][1]["squad_id"] = json!("missing");
    value["stages"][1]["consumes"] = json!(["missing-evidence"]);
    let (status, found) = check(&value, dir.path());
    assert_eq!(status, 1);
    let codes: Vec<&str> = found.iter().map(|(_, code)| code.as_str()).collect();
    assert_eq!(
        codes,
        [
            "collab-stage-execution",
            "collab-unknown-squad",
            "collab-evidence"
        ]
    );
}

#[test]
fn invalid_or_duplicate_squads_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let file = fixtures().join("interop/collab/example-delivery.collab.json");
    let source = fixtures().join("interop/collab/squads/source-squad");
    let output = squad(
        &[
            "collab",
            "validate",
            file.to_str().unwrap(),
            "--squad",
            source.to_str().unwrap(),
            "--squad",
            source.to_str().unwrap(),
        ],
        dir.path(),
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("collab-duplicate-manifest"), "{stderr}");
    let broken = fixtures().join("invalid/blank-file--prompt");
    let output = squad(
        &[
            "collab",
            "validate",
            file.to_str().unwrap(),
            "--squad",
            broken.to_str().unwrap(),
        ],
        dir.path(),
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("collab-manifest"),
        "{}",
        text(&output.stderr)
    );
    assert!(
        text(&output.stderr).contains("(1 error)") || !text(&output.stderr).contains("(1 errors)"),
        "{}",
        text(&output.stderr)
    );
    // Without any --squad, squad and workflow ids are not checked, and the note says so.
    let output = squad(
        &["collab", "validate", file.to_str().unwrap()],
        dir.path(),
        dir.path(),
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("collab-squads-unchecked"), "{stderr}");
    assert!(!stderr.contains("collab-unknown-squad"), "{stderr}");
    // Plain `squad validate` checks what it can and says what it could not.
    let output = squad(
        &["validate", file.to_str().unwrap()],
        dir.path(),
        dir.path(),
    );
    assert_eq!(output.status.code(), Some(0));
    assert!(text(&output.stderr).contains("note[collab-squads-unchecked]"));
}
