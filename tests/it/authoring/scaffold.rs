//! `squad scaffold`: each generator edits the manifest in place and in its style, creates its
//! files, and leaves a valid package; every clash is refused with nothing touched.

use super::{Workspace, assert_status, codes, stderr};

/// A minimal package with comments where the generators write, to see them kept.
fn commented(workspace: &Workspace) -> std::path::PathBuf {
    let package = workspace.new_package("pm", "minimal");
    workspace.edit(
        "pm/expert-squad.jsonc",
        "\"agents\": {\n",
        "\"agents\": { // the team\n",
    );
    workspace.edit(
        "pm/expert-squad.jsonc",
        "\"virtual_workflows\": {}",
        "\"virtual_workflows\": {} /* none yet */",
    );
    package
}

#[test]
fn an_agent_is_declared_in_style_with_its_prompt_and_node() {
    let workspace = Workspace::new();
    let package = commented(&workspace);
    let before = workspace.read("pm/expert-squad.jsonc");
    let output = workspace.run_in(
        &package,
        &[
            "scaffold",
            "agent",
            "analyst",
            "--role",
            "requirements",
            "--label",
            "Timeline Analyst",
            "--description",
            "Reconstructs the incident timeline.",
            "--workflow",
            "respond",
        ],
    );
    assert_status(&output, 0);
    assert_eq!(
        stderr(&output),
        "       Added agent `analyst` (base role `requirements`) to expert-squad.jsonc\n     \
         Created agents/analyst/system.md\n       \
         Added workflow `respond` with node `analyst` (analyst)\n       \
         Valid acme/pm 2026.12.01.1 (0 errors, 0 warnings)\n"
    );
    let after = workspace.read("pm/expert-squad.jsonc");
    // Everything before the agents' closing brace is as it was, comments included.
    let kept = before.find("\n    },\n    \"virtual_workflows\"").unwrap();
    assert_eq!(&after[..kept], &before[..kept]);
    assert!(after.contains("\"agents\": { // the team\n"));
    assert!(after.contains(
        r#"      "analyst": {
        "label": "Timeline Analyst",
        "description": "Reconstructs the incident timeline.",
        "base_role": "requirements",
        "prompt": "agents/analyst/system.md",
        "inherit_base_tools": true,
        "built_in_tool_ids": [],
        "default_skill_refs": [],
        "package_skill_refs": [],"#
    ));
    assert!(after.contains(
        r#"    "virtual_workflows": {
      "respond": {
        "label": "Respond",
        "description": "The Respond workflow.",
        "nodes": {
          "analyst": {
            "agent_id": "analyst",
            "description": "Reconstructs the incident timeline.",
            "depends_on": []
          }
        }
      }
    } /* none yet */"#
    ));
    assert_eq!(
        workspace.read("pm/agents/analyst/system.md"),
        "You are the Timeline Analyst: Reconstructs the incident timeline.\n\nDo the task you are given end to end, check your own result, and report exactly what you did and what remains.\n"
    );
    // The template's worker is now in no workflow: a note, no error.
    assert_eq!(codes(&workspace, "pm"), ["unused-agent"]);
    // An integrity agent gets its execution contract.
    let output = workspace.run_in(
        &package,
        &[
            "scaffold",
            "agent",
            "reviewer",
            "--role",
            "integrity",
            "--workflow",
            "respond",
            "--depends-on",
            "analyst",
        ],
    );
    assert_status(&output, 0);
    assert!(workspace.read("pm/expert-squad.jsonc").contains(
        "\"base_role\": \"integrity\",\n        \"execution_contract\": \"platform_integrity_review\","
    ));
}

#[test]
fn skills_tools_and_servers_are_created_and_projected() {
    let workspace = Workspace::new();
    let package = commented(&workspace);
    let run = |args: &[&str]| {
        let output = workspace.run_in(&package, args);
        assert_status(&output, 0);
        stderr(&output)
    };
    let skill = run(&[
        "scaffold",
        "skill",
        "timeline-method",
        "--description",
        "How to build a timeline.",
    ]);
    assert!(
        skill.starts_with(
            "     Created skills/timeline-method/SKILL.md\n   Projected `pm/shared/timeline-method` (package_skill_refs) for orchestrator, worker\n"
        ),
        "{skill}"
    );
    assert_eq!(
        workspace.read("pm/skills/timeline-method/SKILL.md"),
        "---\nname: timeline-method\ndescription: How to build a timeline.\n---\n\n# Timeline Method\n\nThe steps to follow, the checks to make, and what a good result looks like.\n"
    );
    run(&["scaffold", "skill", "worker-notes", "--agent", "worker"]);
    run(&["scaffold", "tool", "summarize-timeline", "--for", "worker"]);
    let tool = workspace.read("pm/tools/summarize-timeline.ts");
    assert!(
        tool.starts_with(
            "import { tool } from \"@opencorvus-ai/plugin\";\n\nexport default tool({\n"
        ),
        "{tool}"
    );
    run(&[
        "scaffold",
        "mcp",
        "tracker",
        "--url",
        "https://tracker.example/mcp",
        "--tool",
        "list_incidents",
        "--prompt",
        "triage",
        "--for",
        "worker",
    ]);
    assert_eq!(
        workspace.read("pm/mcp/tracker.jsonc"),
        "// The tracker MCP server.\n{\n  \"type\": \"remote\",\n  \"url\": \"https://tracker.example/mcp\",\n  \"transport\": \"streamable-http\",\n  \"capabilities\": {\n    \"tools\": [\n      \"list_incidents\"\n    ],\n    \"prompts\": [\n      \"triage\"\n    ]\n  }\n}\n"
    );
    let manifest = workspace.read("pm/expert-squad.jsonc");
    // Empty arrays of a document that writes its lists on lines grow into lines.
    assert!(manifest.contains(
        "\"package_skill_refs\": [\n          \"pm/shared/timeline-method\",\n          \"pm/worker/worker-notes\"\n        ],"
    ), "{manifest}");
    assert!(
        manifest.contains(
            "\"package_mcp_server_refs\": [\n          \"pm/shared/tracker\"\n        ],"
        )
    );
    assert!(
        workspace
            .read("pm/agents/worker/skills/worker-notes/SKILL.md")
            .starts_with("---\nname: worker-notes\n")
    );
    // Only the note that tools are checked statically.
    assert_eq!(codes(&workspace, "pm"), ["tools-not-compiled"]);
}

#[test]
fn a_workflow_grows_node_by_node_with_sorted_dependencies() {
    let workspace = Workspace::new();
    let package = workspace.new_package("pm", "delivery");
    let run = |args: &[&str]| {
        let output = workspace.run_in(&package, args);
        assert_status(&output, 0);
        stderr(&output)
    };
    let added = run(&[
        "scaffold",
        "workflow",
        "deliver",
        "--agent",
        "tester",
        "--node",
        "retest",
        "--depends-on",
        "test,review",
        "--description",
        "Test again after the review.",
    ]);
    assert!(
        added.starts_with(
            "       Added node `retest` (tester) after `review`, `test` to workflow `deliver`\n"
        ),
        "{added}"
    );
    assert!(workspace.read("pm/expert-squad.jsonc").contains(
        "\"retest\": {\n            \"agent_id\": \"tester\",\n            \"description\": \"Test again after the review.\",\n            \"depends_on\": [\n              \"review\",\n              \"test\"\n            ]\n          }"
    ));
    assert!(
        codes(&workspace, "pm")
            .iter()
            .all(|code| code == "tools-not-compiled")
    );
}

#[test]
fn clashes_and_unknown_names_are_refused_untouched() {
    let workspace = Workspace::new();
    let package = workspace.new_package("pm", "delivery");
    let before = workspace.snapshot("pm");
    let refused: [(&[&str], &str); 12] = [
        (
            &["scaffold", "agent", "tester"],
            "error: agent `tester` is declared already; nothing was changed\n",
        ),
        (
            &["scaffold", "agent", "orchestrator"],
            "error: invalid agent id: dynamic agent id `orchestrator` is reserved\n",
        ),
        (
            &["scaffold", "agent", "qa", "--role", "tester"],
            "error: `tester` is not a base role\nhint: base roles: `delegated-worker`, `intent-analysis`, `requirements`, `architect`, `goal-workload-analyst`, `build`, `explore`, `deep-research`, `frontend-research`, `frontend-design`, `visual-qa`, `integrity`, `fact-check`\n",
        ),
        (
            &["scaffold", "agent", "qa", "--role", "biuld"],
            "error: `biuld` is not a base role\nhint: did you mean `build`?\n",
        ),
        (
            &["scaffold", "skill", "delivery-method"],
            "error: `skills/delivery-method/` exists already; nothing was changed\n",
        ),
        (
            &["scaffold", "skill", "Notes"],
            "error: invalid skill name `Notes`: use lower-kebab-case (it becomes a file name and part of a ref)\n",
        ),
        (
            &["scaffold", "tool", "summarize-changes"],
            "error: `tools/summarize-changes.ts` exists already; nothing was changed\n",
        ),
        (
            &["scaffold", "tool", "x", "--for", "testr"],
            "error: there is no agent `testr` in this package\nhint: did you mean `tester`?\n",
        ),
        (
            &["scaffold", "mcp", "tracker", "--url", "https://x.example"],
            "error: `mcp/tracker.jsonc` exists already; nothing was changed\n",
        ),
        (
            &["scaffold", "mcp", "wiki", "--url", "ftp://x.example"],
            "error: `ftp://x.example` is not an http: or https: URL; packages declare remote servers only\n",
        ),
        (
            &[
                "scaffold", "workflow", "deliver", "--agent", "tester", "--node", "test",
            ],
            "error: workflow `deliver` has a node `test` already; nothing was changed\n",
        ),
        (
            &[
                "scaffold",
                "workflow",
                "deliver",
                "--agent",
                "tester",
                "--node",
                "x",
                "--depends-on",
                "tset",
            ],
            "error: workflow `deliver` has no node `tset`\nhint: did you mean `test`?\n",
        ),
    ];
    for (args, message) in refused {
        let output = workspace.run_in(&package, args);
        assert_status(&output, 2);
        assert_eq!(stderr(&output), message, "{args:?}");
        assert!(
            workspace.snapshot("pm") == before,
            "{args:?} changed the package"
        );
    }
    // A local resource belongs to its agent only.
    let output = workspace.run_in(
        &package,
        &[
            "scaffold",
            "skill",
            "x",
            "--agent",
            "tester",
            "--for",
            "architect",
        ],
    );
    assert_status(&output, 2);
    assert!(stderr(&output).contains("can be projected only by `tester`"));
    // A manifest that does not parse is not edited.
    workspace.edit(
        "pm/expert-squad.jsonc",
        "\"schema_version\": 1,",
        "\"schema_version\": 1",
    );
    let broken = workspace.snapshot("pm");
    let output = workspace.run_in(&package, &["scaffold", "skill", "notes"]);
    assert_status(&output, 2);
    assert!(stderr(&output).starts_with("error: expert-squad.jsonc is not valid JSONC (a comma is missing); it cannot be edited until it is\n"));
    assert!(workspace.snapshot("pm") == broken);
    let leftovers: Vec<_> = std::fs::read_dir(workspace.home.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name.to_string_lossy().starts_with("squad-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
