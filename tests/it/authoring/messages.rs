//! Wrong places and wrong inputs, and messages that finish the job: each did-you-mean, the
//! cycle's caret, JSONC syntax in words, skill names, unused agents, explain by rule.

use std::fs;

use super::{Workspace, assert_status, codes, stderr, stdout};

#[test]
fn a_folder_without_a_manifest_is_not_a_package() {
    let workspace = Workspace::new();
    workspace.write("notes/README.md", "# Notes\n");
    workspace.write("notes/docs/guide.md", "text\n");
    let output = workspace.run(&["validate", "notes"]);
    assert_status(&output, 2);
    assert_eq!(
        stderr(&output),
        "error: `notes` is not a squad package (no expert-squad.jsonc); create one with `squad new`\n"
    );
    // The same from inside it, and for the other commands that need one package.
    let output = workspace.run_in(&workspace.path("notes"), &["validate"]);
    assert_status(&output, 2);
    assert_eq!(
        stderr(&output),
        "error: `.` is not a squad package (no expert-squad.jsonc); create one with `squad new`\n"
    );
    for args in [
        &["fix", "notes"][..],
        &["scaffold", "skill", "x", "--package", "notes"][..],
    ] {
        let output = workspace.run(args);
        assert_status(&output, 2);
        assert!(
            stderr(&output).contains("is not a squad package"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn a_folder_of_packages_is_validated_package_by_package_with_one_summary() {
    let workspace = Workspace::new();
    workspace.new_package("squads/alpha", "minimal");
    workspace.new_package("squads/beta", "minimal");
    workspace.write("squads/README.md", "not a package\n");
    let output = workspace.run(&["validate", "squads"]);
    assert_status(&output, 0);
    assert_eq!(
        stderr(&output),
        "       Valid 2 packages (0 errors, 0 warnings)\n"
    );
    workspace.edit(
        "squads/beta/expert-squad.jsonc",
        "\"version\": \"2026.12.01.1\"",
        "\"version\": \"2026.12.1.1\"",
    );
    let output = workspace.run(&["validate", "squads"]);
    assert_status(&output, 1);
    let text = stderr(&output);
    assert!(
        text.ends_with("error: 1 of 2 packages is invalid (`squads/beta`): 1 error, 0 warnings\nhelp: 1 problem can be fixed automatically: `squad fix squads/beta` (`--dry-run` shows the changes first)\n"),
        "{text}"
    );
    // Several paths give one summary line too, naming packages by namespace/id.
    let output = workspace.run(&["validate", "squads/alpha", "squads/alpha"]);
    assert_eq!(
        stderr(&output),
        "       Valid 2 packages (0 errors, 0 warnings)\n"
    );
}

#[test]
fn status_lines_name_the_package_not_its_folder() {
    let workspace = Workspace::new();
    let package = workspace.new_package("pm", "minimal");
    let output = workspace.run_in(&package, &["validate"]);
    assert_status(&output, 0);
    assert_eq!(
        stderr(&output),
        "       Valid acme/pm 2026.12.01.1 (0 errors, 0 warnings)\n"
    );
    let output = workspace.run_in(&package, &["version", "check"]);
    assert_eq!(
        stderr(&output),
        "     Checked acme/pm version 2026.12.01.1\n"
    );
}

#[test]
fn an_archive_is_validated_with_positions_inside_it() {
    let workspace = Workspace::new();
    workspace.new_package("pm", "minimal");
    assert_status(&workspace.run(&["pack", "pm", "-o", "pm.zip"]), 0);
    let output = workspace.run(&["validate", "pm.zip"]);
    assert_status(&output, 0);
    assert_eq!(
        stderr(&output),
        "       Valid acme/pm 2026.12.01.1 (0 errors, 0 warnings)\n"
    );
    // An archive of an invalid package (packed with a broken manifest by another tool).
    let bytes = fs::read(workspace.path("pm.zip")).unwrap();
    let package =
        squad::archive::reader::read_package(&bytes, &squad::archive::reader::Limits::REFERENCE)
            .unwrap();
    let mut entries: Vec<squad::archive::writer::Entry> = package
        .files
        .into_iter()
        .map(|(path, content)| {
            let content = if path == "expert-squad.jsonc" {
                String::from_utf8(content)
                    .unwrap()
                    .replace("\"agent_id\"", "\"agent\"")
                    .replace(
                        "\"base_role\": \"delegated-worker\"",
                        "\"base_role\": \"delegated-workr\"",
                    )
                    .into_bytes()
            } else {
                content
            };
            squad::archive::writer::Entry {
                name: format!("acme/pm/{path}"),
                source: squad::archive::writer::Source::Bytes(content),
            }
        })
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let mut written = std::io::Cursor::new(Vec::new());
    squad::archive::writer::write(&mut written, &entries, 1).unwrap();
    fs::write(workspace.path("broken.zip"), written.into_inner()).unwrap();
    let output = workspace.run(&["validate", "broken.zip"]);
    assert_status(&output, 1);
    let text = stderr(&output);
    assert!(
        text.contains("--> broken.zip/expert-squad.jsonc:48:22"),
        "{text}"
    );
    assert!(
        !text.contains("squad fix"),
        "an archive cannot be fixed in place: {text}"
    );
    assert!(
        text.contains("help: did you mean `delegated-worker`?"),
        "{text}"
    );
    // Nothing is left in the temporary directory.
    let leftovers: Vec<_> = fs::read_dir(workspace.home.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name.to_string_lossy().starts_with("squad-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // What is no archive at all is refused as such.
    workspace.write("junk.zip", "PK but not a zip");
    let output = workspace.run(&["validate", "junk.zip"]);
    assert_status(&output, 2);
    assert!(stderr(&output).starts_with("error: `junk.zip` is not a usable package archive"));
}

#[test]
fn verify_names_a_path_that_does_not_exist() {
    let workspace = Workspace::new();
    let output = workspace.run(&["verify", "no/such/pkg"]);
    assert_status(&output, 2);
    assert_eq!(
        stderr(&output),
        "error: `no/such/pkg` does not exist\nhint: name a package folder or archive, or an installed package as `squad list` prints it\n"
    );
}

#[test]
fn a_missing_comma_is_shown_at_the_end_of_its_line_in_words() {
    let workspace = Workspace::new();
    workspace.new_package("pm", "minimal");
    workspace.edit(
        "pm/expert-squad.jsonc",
        "\"label\": \"Worker\",",
        "\"label\": \"Worker\"",
    );
    let output = workspace.run(&["validate", "pm"]);
    assert_status(&output, 1);
    assert_eq!(
        stderr(&output),
        r#"error[jsonc-syntax]: invalid JSONC: a comma is missing
  --> pm/expert-squad.jsonc:46:26
   |
46 |         "label": "Worker"
   |                          ^ expected `,` here
help: separate the members of an object and the elements of an array with `,` (a trailing one is allowed)
help: add the missing `,`

error: package `pm` is invalid: 1 error, 0 warnings
help: 1 problem can be fixed automatically: `squad fix pm` (`--dry-run` shows the changes first)
"#
    );
}

#[test]
fn a_cycle_is_pointed_at_the_dependency_that_closes_it() {
    let workspace = Workspace::new();
    let package = workspace.new_package("pm", "minimal");
    for args in [
        &[
            "scaffold",
            "agent",
            "writer",
            "--role",
            "build",
            "--workflow",
            "respond",
        ][..],
        &[
            "scaffold",
            "agent",
            "reviewer",
            "--role",
            "fact-check",
            "--workflow",
            "respond",
            "--depends-on",
            "writer",
        ][..],
    ] {
        assert_status(&workspace.run_in(&package, args), 0);
    }
    workspace.edit(
        "pm/expert-squad.jsonc",
        "\"description\": \"The Writer step.\",\n            \"depends_on\": []",
        "\"description\": \"The Writer step.\",\n            \"depends_on\": [\n              \"reviewer\"\n            ]",
    );
    let output = workspace.run_in(&package, &["validate"]);
    assert_status(&output, 1);
    assert_eq!(
        stderr(&output),
        r#"error[dependency-cycle]: virtual workflow `respond` contains a dependency cycle: `reviewer` -> `writer` -> `reviewer`
   --> expert-squad.jsonc:118:15
    |
118 |               "reviewer"
    |               ^^^^^^^^^^ `writer` depends on `reviewer`, which closes the cycle
...
125 |               "writer"
    |               -------- `reviewer` depends on `writer`
    = at `/capability_projection/virtual_workflows/respond/nodes/writer/depends_on/0`
help: each arrow reads "depends on"; remove one of these dependencies, or merge two of the nodes into one

error: acme/pm 2026.12.01.1 is invalid: 1 error, 0 warnings
"#
    );
}

/// The `help:` lines of `squad validate PATH`.
fn helps(workspace: &Workspace, path: &str) -> Vec<String> {
    stderr(&workspace.run(&["validate", path]))
        .lines()
        .filter_map(|line| line.strip_prefix("help: "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn did_you_mean_wherever_the_candidates_are_known() {
    let workspace = Workspace::new();
    workspace.new_package("pm", "delivery");
    let manifest = "pm/expert-squad.jsonc";
    let cases: [(&str, &str, &str); 8] = [
        (
            "\"agent_id\": \"tester\"",
            "\"agent_id\": \"testr\"",
            "did you mean `tester`?",
        ),
        (
            "\"base_role\": \"architect\"",
            "\"base_role\": \"architekt\"",
            "did you mean `architect`?",
        ),
        (
            "\"pm/shared/delivery-method\"\n      ],",
            "\"pm/shared/delivery-methd\"\n      ],",
            "did you mean `pm/shared/delivery-method`?",
        ),
        (
            "\"version\": \"2026.12.01.1\"",
            "\"version\": \"2026.12.1.1\"",
            "did you mean `2026.12.01.1`?",
        ),
        ("\"todowrite\"", "\"todowrit\"", "did you mean `todowrite`?"),
        (
            "\"build-service\"\n            ]\n          },\n          \"review\"",
            "\"build-servce\"\n            ]\n          },\n          \"review\"",
            "did you mean `build-service`?",
        ),
        (
            "\"inherit_base_tools\": false",
            "\"inherit_base_tool\": false, \"inherit_base_tools\": false",
            "did you mean `inherit_base_tools`? This object already sets `inherit_base_tools`",
        ),
        (
            "\"readme\": \"README.md\"",
            "\"readme\": \"readme.md\"",
            "write `README.md`",
        ),
    ];
    for (from, to, help) in cases {
        let before = workspace.read(manifest);
        workspace.edit(manifest, from, to);
        let found = helps(&workspace, "pm");
        assert!(found.iter().any(|line| line == help), "{to}: {found:?}");
        workspace.write(manifest, &before);
    }
    // A name with no close match lists what there is instead.
    workspace.edit(manifest, "\"agent_id\": \"tester\"", "\"agent_id\": \"qa\"");
    let found = helps(&workspace, "pm");
    assert!(
        found
            .iter()
            .any(|line| line.starts_with("declared agents: architect, integrity-reviewer")),
        "{found:?}"
    );
}

#[test]
fn explain_lists_without_a_code_opens_rules_and_guesses() {
    let workspace = Workspace::new();
    let list = workspace.run(&["explain"]);
    assert_status(&list, 0);
    assert_eq!(
        stdout(&list).lines().count(),
        squad::diag::Code::ALL.len(),
        "one line per code"
    );
    assert!(stdout(&list).starts_with("jsonc-syntax                      error    "));
    let rule = workspace.run(&["explain", "GR-4"]);
    assert_status(&rule, 0);
    assert!(stdout(&rule).starts_with("# `dependency-cycle` (error)\n"));
    assert!(!stdout(&rule).contains("registry-fixtures"));
    let several = workspace.run(&["explain", "GR-2"]);
    assert_eq!(
        stdout(&several),
        "rule GR-2 is checked by 2 codes; `squad explain CODE` explains each:\n\
         duplicate-entry                   error    a list repeats an element\n\
         unsorted-list                     error    a list must be strictly ascending (canonically sorted)\n"
    );
    let typo = workspace.run(&["explain", "dependancy-cycle"]);
    assert_status(&typo, 2);
    assert_eq!(
        stderr(&typo),
        "error: there is no diagnostic code or rule `dependancy-cycle`\nhint: did you mean `dependency-cycle`? (`squad explain` lists every code)\n"
    );
    assert_status(&workspace.run(&["explain", "note[unused-agent]"]), 0);
}

#[test]
fn a_skill_name_gets_help_when_missing_and_a_note_when_it_does_not_fit() {
    let workspace = Workspace::new();
    let package = workspace.new_package("pm", "minimal");
    let output = workspace.run_in(&package, &["scaffold", "skill", "timeline-method"]);
    assert_status(&output, 0);
    let skill = "pm/skills/timeline-method/SKILL.md";
    workspace.edit(skill, "name: timeline-method\n", "");
    let found = helps(&workspace, "pm");
    assert!(
        found.contains(&"add `name: timeline-method` to the frontmatter: a skill is usually named after its folder".to_owned()),
        "{found:?}"
    );
    workspace.edit(skill, "---\n", "---\nname: delivery-method\n");
    assert_eq!(codes(&workspace, "pm"), ["skill-name-style"]);
    let text = stderr(&workspace.run(&["validate", "pm"]));
    assert!(
        text.starts_with("note[skill-name-style]: skill `pm/shared/timeline-method` is named `delivery-method`, which does not name its folder `timeline-method`\n --> pm/skills/timeline-method/SKILL.md:2:7\n"),
        "{text}"
    );
    for fitting in ["timeline-method", "pm-timeline-method"] {
        workspace.edit(skill, "name: delivery-method", &format!("name: {fitting}"));
        assert!(codes(&workspace, "pm").is_empty(), "{fitting}");
        workspace.edit(skill, &format!("name: {fitting}"), "name: delivery-method");
    }
    workspace.edit(skill, "name: delivery-method", "name: Timeline_Method");
    assert_eq!(codes(&workspace, "pm"), ["skill-name-style"]);
}

#[test]
fn an_agent_no_workflow_runs_gets_a_note_once_the_package_is_valid() {
    let workspace = Workspace::new();
    let package = workspace.new_package("pm", "minimal");
    assert!(
        codes(&workspace, "pm").is_empty(),
        "no workflow: direct dispatch"
    );
    let output = workspace.run_in(
        &package,
        &[
            "scaffold",
            "agent",
            "writer",
            "--role",
            "build",
            "--workflow",
            "respond",
        ],
    );
    assert_status(&output, 0);
    assert_eq!(codes(&workspace, "pm"), ["unused-agent"]);
    let text = stderr(&workspace.run(&["validate", "pm"]));
    assert!(
        text.contains("help: add it to a workflow (`squad scaffold workflow respond --agent worker`), or remove it if the squad does not need it\n"),
        "{text}"
    );
    // With an error elsewhere the note waits.
    workspace.edit(
        "pm/expert-squad.jsonc",
        "\"readme\": \"README.md\"",
        "\"readme\": \"README\"",
    );
    assert_eq!(codes(&workspace, "pm"), ["invalid-literal"]);
}

#[test]
fn version_bump_repairs_an_invalid_version() {
    let workspace = Workspace::new();
    workspace.new_package("pm", "minimal");
    workspace.edit(
        "pm/expert-squad.jsonc",
        "\"2026.12.01.1\"",
        "\"2026.12.1.1\"",
    );
    let check = workspace.run(&["version", "check", "pm"]);
    assert_status(&check, 1);
    assert!(
        stderr(&check).contains("hint: did you mean `2026.12.01.1`?"),
        "{}",
        stderr(&check)
    );
    let bump = workspace.run(&["version", "bump", "pm"]);
    assert_status(&bump, 0);
    assert_eq!(
        stderr(&bump),
        "      Bumped acme/pm 2026.12.1.1 (read as 2026.12.01.1) -> 2026.12.01.2\n"
    );
    workspace.edit("pm/expert-squad.jsonc", "\"2026.12.01.2\"", "\"soon\"");
    let bump = workspace.run(&["version", "bump", "pm"]);
    assert_eq!(
        stderr(&bump),
        "      Bumped acme/pm soon (not a valid version) -> 2026.12.01.1\n"
    );
    assert!(
        workspace
            .read("pm/expert-squad.jsonc")
            .contains("\"version\": \"2026.12.01.1\"")
    );
}

#[test]
fn new_sets_the_readme_title_and_refuses_a_future_version() {
    let workspace = Workspace::new();
    let output = workspace.run(&[
        "new",
        "pm",
        "--namespace",
        "acme",
        "--label",
        "Incident Postmortem",
    ]);
    assert_status(&output, 0);
    assert!(
        workspace
            .read("pm/README.md")
            .starts_with("# Incident Postmortem\n")
    );
    let output = workspace.run(&[
        "new",
        "later",
        "--namespace",
        "acme",
        "--version",
        "2026.12.02.1",
    ]);
    assert_status(&output, 2);
    assert_eq!(
        stderr(&output),
        "error: version 2026.12.02.1 is dated after today (2026-12-01 UTC); `squad version check` would refuse it\n"
    );
    assert!(!workspace.path("later").exists());
}

#[test]
fn export_play_takes_the_only_workflow() {
    let workspace = Workspace::new();
    workspace.new_package("pm", "planner-parallel");
    let output = workspace.run(&["export", "play", "pm"]);
    assert_status(&output, 0);
    let play: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(play["id"], "pm");
    workspace.new_package("solo", "minimal");
    let output = workspace.run(&["export", "play", "solo"]);
    assert_status(&output, 2);
    assert!(stderr(&output).contains("declares no workflow to export"));
}

#[test]
fn the_bare_manifests_of_ofp_validate_as_manifests() {
    let workspace = Workspace::new();
    workspace.new_package("pm", "delivery");
    let output = workspace.run(&[
        "ofp",
        "manifests",
        "pm",
        "--service-url",
        "https://agents.example",
        "--organization",
        "Acme",
        "--bare",
        "-o",
        "bare.json",
    ]);
    assert_status(&output, 0);
    let output = workspace.run(&["validate", "bare.json"]);
    assert_status(&output, 0);
    assert_eq!(
        stderr(&output),
        "       Valid Open Floor manifest `bare.json` (0 errors, 0 warnings)\n"
    );
    let help = stdout(&workspace.run(&["ofp", "manifests", "--help"]));
    assert!(
        help.contains("`squad validate` checks it as manifests"),
        "{help}"
    );
}

#[test]
fn help_lists_global_options_apart_and_says_what_verbose_shows() {
    let workspace = Workspace::new();
    let help = stdout(&workspace.run(&["validate", "--help"]));
    let (own, global) = help
        .split_once("Global options:")
        .expect("a Global options section");
    assert!(own.contains("--format"));
    assert!(!own.contains("--quiet") && global.contains("--quiet") && global.contains("--color"));
    assert!(global.contains("the files validation read, each fix `squad fix` made"));
    workspace.new_package("pm", "minimal");
    let verbose = stderr(&workspace.run(&["-v", "validate", "pm"]));
    // The manifest, README.md, selector.md and the two prompts: every text the runtime gives a
    // model is kept, for the audit.
    assert!(
        verbose.contains("        Info pm: package acme/pm 2026.12.01.1; read 5 text files ("),
        "{verbose}"
    );
}

#[test]
fn schemas_of_mcp_declarations_and_skill_frontmatter_describe_every_field() {
    let workspace = Workspace::new();
    for (kind, id) in [
        ("mcp", "https://squad.dev/schemas/expert-squad-mcp-v1.json"),
        (
            "skill",
            "https://squad.dev/schemas/expert-squad-skill-frontmatter-v1.json",
        ),
    ] {
        let output = workspace.run(&["schema", kind]);
        assert_status(&output, 0);
        let schema: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(schema["$id"], id);
        let properties = schema["properties"].as_object().unwrap();
        assert!(
            properties
                .values()
                .all(|field| field["description"].is_string())
        );
    }
    let mcp: serde_json::Value =
        serde_json::from_slice(&workspace.run(&["schema", "mcp"]).stdout).unwrap();
    assert!(
        mcp["properties"]["timeout"]["description"]
            .as_str()
            .unwrap()
            .contains("milliseconds")
    );
}
