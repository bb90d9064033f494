//! `squad fix`: a package with one of each fixable error becomes valid, its comments kept;
//! `--dry-run` shows the diff and writes nothing; `--format json` carries the edits.

use super::{Workspace, assert_status, codes, stderr, stdout};

const MANIFEST: &str = "pm/expert-squad.jsonc";

/// The delivery template broken in every way `squad fix` repairs, each next to a comment.
fn broken(workspace: &Workspace) {
    workspace.new_package("pm", "delivery");
    let edits: [(&str, &str); 18] = [
        // A missing comma hides everything else until it is fixed.
        (
            "\"schema_version\": 1,",
            "\"schema_version\": \"1\" // the format\n",
        ),
        (
            "\"namespace\": \"acme\",",
            "\"namespace\": \"Acme Team\", // who publishes",
        ),
        (
            "\"version\": \"2026.12.01.1\",",
            "\"version\": \"2026.12.1.1\", // released today",
        ),
        ("\"readme\": \"README.md\",", "\"readme\": \"readme.md\","),
        (
            "\"instructions\": \"selector.md\"",
            "\"instructions\": \"selectors.md\"",
        ),
        (
            "\"product_pillars\": [\n    \"code\",\n    \"work\"\n  ]",
            "\"product_pillars\": [\n    \"work\", // first\n    \"code\"\n  ]",
        ),
        (
            "\"label\": \"Requirements Analyst\",",
            "\"lable\": \"Requirements Analyst\", // typo",
        ),
        (
            "\"base_role\": \"architect\",",
            "\"base_role\": \"architekt\",",
        ),
        (
            "\"prompt\": \"agents/architect/system.md\",",
            "\"prompt\": \"agents/architect/prompt.md\",",
        ),
        ("\"todowrite\"", "\"todowrit\""),
        (
            "\"execution_contract\": \"platform_integrity_review\",\n",
            "",
        ),
        (
            "\"package_skill_refs\": [\n          \"pm/shared/delivery-method\"\n        ],\n        \"default_tool_refs\": [],\n        \"package_tool_refs\": [],\n        \"default_mcp_server_refs\": [],\n        \"package_mcp_server_refs\": [],",
            "\"package_skill_refs\": [\n          \"pm/shared/delivery-method\",\n          \"pm/shared/delivery-method\"\n        ],\n        \"default_tool_refs\": [],\n        \"package_tool_refs\": [],\n        \"default_mcp_server_refs\": [],",
        ),
        (
            "\"deliver\": {",
            "\"Deliver_Change\": { // the only workflow",
        ),
        ("\"agent_id\": \"tester\",", "\"agent_id\": \"testr\","),
        ("\"build-service\": {", "\"Build_Service\": {"),
        (
            "\"depends_on\": [\n              \"build-interface\",\n              \"build-service\"\n            ]\n          },\n          \"review\"",
            "\"depends_on\": [\n              \"Build_Service\", // the service first\n              \"build-interface\"\n            ]\n          },\n          \"review\"",
        ),
        (
            "\"depends_on\": [\n              \"build-interface\",\n              \"build-service\"\n            ]\n          }\n        }",
            "\"depends_on\": [\n              \"build-interfce\",\n              \"Build_Service\"\n            ]\n          }\n        }",
        ),
        (
            "\"requirements\": {\n            \"agent_id\"",
            "\"requirements\": { // start here\n            \"agent_id\"",
        ),
    ];
    for (from, to) in edits {
        workspace.edit(MANIFEST, from, to);
    }
    workspace.edit(
        "pm/tools/summarize-changes.ts",
        "import { formatList } from \"../lib/format\";",
        "import { formatList } from \"../lib/format\";\nimport { readFileSync } from \"fs\"; // for later\nexport const read = readFileSync;",
    );
}

#[test]
fn one_of_each_fixable_error_is_fixed_with_the_comments_kept() {
    let workspace = Workspace::new();
    broken(&workspace);
    let before = workspace.read(MANIFEST);
    assert_eq!(
        codes(&workspace, "pm"),
        ["jsonc-syntax", "tools-not-compiled", "unsupported-module"]
    );

    // The dry run shows every change and writes nothing.
    let dry = workspace.run(&["fix", "pm", "--dry-run"]);
    assert_status(&dry, 0);
    assert_eq!(workspace.read(MANIFEST), before);
    let diff = stdout(&dry);
    assert!(
        diff.starts_with("--- a/pm/expert-squad.jsonc\n+++ b/pm/expert-squad.jsonc\n@@ "),
        "{diff}"
    );
    for line in [
        "-  \"schema_version\": \"1\" // the format",
        "+  \"schema_version\": 1, // the format",
        "+import { readFileSync } from \"node:fs\"; // for later",
    ] {
        assert!(
            diff.lines().any(|diff_line| diff_line == line),
            "{line} not in:\n{diff}"
        );
    }
    assert_eq!(
        stderr(&dry),
        "   Would fix 20 problems in 2 files (--dry-run: nothing was written)\n Would leave 0 errors, 0 warnings\n"
    );

    let output = workspace.run(&["fix", "pm"]);
    assert_status(&output, 0);
    assert_eq!(
        stderr(&output),
        "       Fixed pm/expert-squad.jsonc (19 fixes)\n       Fixed pm/tools/summarize-changes.ts (1 fix)\nnote[tools-not-compiled]: 2 package tool(s) parsed and checked statically: syntax, imports and default export; bundling them with Bun and running them are left to the OpenCorvus runtime\n  --> pm/tools/summarize-changes.ts\n\n       Valid acme-team/pm 2026.12.01.1 (0 errors, 0 warnings)\n"
    );
    assert_eq!(codes(&workspace, "pm"), ["tools-not-compiled"]);
    let fixed = workspace.read(MANIFEST);
    for kept in [
        "// Delivery Squad: scaffolded by `squad new --template delivery`.",
        "\"schema_version\": 1, // the format",
        "\"namespace\": \"acme-team\", // who publishes",
        "\"version\": \"2026.12.01.1\", // released today",
        "\"code\", // first\n    \"work\"",
        "\"label\": \"Requirements Analyst\", // typo",
        "\"deliver-change\": { // the only workflow",
        "\"requirements\": { // start here",
        "\"build-interface\", // the service first\n              \"build-service\"",
    ] {
        assert!(fixed.contains(kept), "`{kept}` not in:\n{fixed}");
    }
    assert!(
        workspace
            .read("pm/tools/summarize-changes.ts")
            .contains("from \"node:fs\"; // for later")
    );
    // Nothing is left to fix, and a second run says so.
    let again = workspace.run(&["fix", "pm"]);
    assert!(
        stderr(&again)
            .starts_with("       Fixed nothing: no problem of this package has a certain fix\n")
    );
    assert_eq!(workspace.read(MANIFEST), fixed);
}

#[test]
fn what_is_only_a_guess_is_suggested_but_not_applied() {
    let workspace = Workspace::new();
    workspace.new_package("pm", "delivery");
    workspace.edit(
        MANIFEST,
        "\"pm/shared/delivery-method\"\n      ],",
        "\"pm/shared/delivery-methd\"\n      ],",
    );
    let json = workspace.run(&["validate", "--format", "json", "pm"]);
    let document: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let dangling = document["packages"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|diagnostic| diagnostic["code"] == "dangling-ref")
        .unwrap()
        .clone();
    assert_eq!(
        dangling["suggestions"],
        serde_json::json!([{
            "message": "did you mean `pm/shared/delivery-method`?",
            "applicability": "maybe-incorrect",
            "edits": [{
                "start": dangling["start"],
                "end": dangling["end"],
                "replacement": "\"pm/shared/delivery-method\""
            }]
        }])
    );
    let output = workspace.run(&["fix", "pm"]);
    assert_status(&output, 1);
    assert!(workspace.read(MANIFEST).contains("delivery-methd"));
    assert!(stderr(&output).contains("help: did you mean `pm/shared/delivery-method`?"));
}

#[test]
fn json_output_lists_the_fixes_and_what_is_left() {
    let workspace = Workspace::new();
    workspace.new_package("pm", "minimal");
    workspace.edit(
        MANIFEST,
        "\"version\": \"2026.12.01.1\"",
        "\"version\": \"2026.12.1.1\"",
    );
    let output = workspace.run(&["fix", "pm", "--format", "json"]);
    assert_status(&output, 0);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["type"], "fix");
    assert_eq!(document["dry_run"], false);
    assert_eq!(
        document["fixes"],
        serde_json::json!([{"file": "expert-squad.jsonc", "code": "invalid-version", "message": "did you mean `2026.12.01.1`?"}])
    );
    assert_eq!(
        document["changed_files"],
        serde_json::json!(["expert-squad.jsonc"])
    );
    assert_eq!(document["packages"][0]["valid"], true);
    assert_eq!(document["summary"]["errors"], 0);
}
