//! `squad lint WORKSPACE` over the example workspace of registry-fixtures/interop/workspace.

use serde_json::Value;

use crate::support::{fixtures, squad, text};

#[test]
fn every_interop_file_is_checked_by_its_place_and_reported_on_one_line() {
    let home = tempfile::tempdir().unwrap();
    let workspace = fixtures().join("interop/workspace");
    let output = squad(
        &["lint", workspace.to_str().unwrap()],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let lines: Vec<(String, String)> = text(&output.stdout)
        .lines()
        .map(|line| {
            let mut parts = line.splitn(3, ' ');
            (
                parts.next().unwrap().to_owned(),
                parts.next().unwrap().to_owned(),
            )
        })
        .collect();
    let expected = [
        ("interop/aos/handoffs/bad.json#/task_id", "pattern-mismatch"),
        (
            "interop/ck/cases/ambiguous-routed.json#/output/status",
            "router-ambiguous",
        ),
        (
            "interop/ck/cases/wrong-agent.json#/output/agent",
            "router-agent",
        ),
        (
            "interop/misc/example-delivery.collab.json#/",
            "collab-squads-unchecked",
        ),
        ("interop/misc/unknown.json#/", "unknown-kind"),
        (
            "interop/ofp/envelopes/no-event-type.json#/openFloor/events/0",
            "ofp-eventtype",
        ),
        (
            "interop/openvibe/over.play.json#/budget/split",
            "play-split-sum",
        ),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(at, code)| ((*at).to_owned(), (*code).to_owned()))
        .collect();
    assert_eq!(lines, expected);
    // The JSON document lists every file checked, sidecars and implementation files excepted.
    let output = squad(
        &["lint", workspace.to_str().unwrap(), "--format", "json"],
        home.path(),
        home.path(),
    );
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let kinds: Vec<&str> = document["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.len(), 14, "{kinds:?}");
    for kind in [
        "play",
        "router-contract",
        "router-input",
        "ofp-envelope",
        "ofp-manifest",
        "ofp-dialog-event",
        "handoff",
        "collab",
        "document",
    ] {
        assert!(kinds.contains(&kind), "no {kind} in {kinds:?}");
    }
    assert!(!text(&output.stdout).contains("play-extras.json"));
}

#[test]
fn a_folder_without_interop_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let output = squad(
        &["lint", home.path().to_str().unwrap()],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("no interop/ folder"));
}
