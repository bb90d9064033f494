//! The author's loop, end to end, as docs/authoring.md tells it: a squad from `squad new` to
//! an archive a teammate validates and installs on a project of theirs. Each stage is a step of
//! its own, so the stages still to come (shipping a fix and replacing the installed version)
//! are steps added at the end.

use std::path::{Path, PathBuf};

use super::{Workspace, assert_status, codes, stderr, stdout};

/// The author's side: a workspace holding the package folder `postmortem`.
struct Author {
    workspace: Workspace,
    package: PathBuf,
}

impl Author {
    fn run(&self, args: &[&str]) -> std::process::Output {
        self.workspace.run_in(&self.package, args)
    }

    /// `squad ARGS` in the package, which must succeed; its stderr.
    fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert_status(&output, 0);
        stderr(&output)
    }
}

/// The teammate's side: another home, and a project of theirs.
struct Teammate {
    workspace: Workspace,
    project: PathBuf,
}

impl Teammate {
    fn new() -> Teammate {
        let workspace = Workspace::new();
        let project = workspace.path("shop");
        std::fs::create_dir_all(&project).unwrap();
        Teammate { workspace, project }
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        self.workspace.run_in(&self.project, args)
    }
}

fn start() -> Author {
    let workspace = Workspace::new();
    let output = workspace.run(&[
        "new",
        "postmortem",
        "--namespace",
        "acme",
        "--label",
        "Incident Postmortem",
    ]);
    assert_status(&output, 0);
    assert_eq!(
        stderr(&output),
        "     Created acme/postmortem 2026.12.01.1 from template `minimal` in postmortem\n"
    );
    let package = workspace.path("postmortem");
    Author { workspace, package }
}

/// The team: three agents in one workflow, the template's worker removed.
fn build_the_team(author: &Author) {
    author.ok(&[
        "scaffold",
        "agent",
        "analyst",
        "--role",
        "requirements",
        "--description",
        "Reconstructs the incident timeline.",
        "--workflow",
        "review",
    ]);
    author.ok(&[
        "scaffold",
        "agent",
        "writer",
        "--role",
        "build",
        "--description",
        "Drafts the postmortem.",
        "--workflow",
        "review",
        "--depends-on",
        "analyst",
    ]);
    author.ok(&[
        "scaffold",
        "agent",
        "reviewer",
        "--role",
        "integrity",
        "--description",
        "Checks the draft against the evidence.",
        "--workflow",
        "review",
        "--depends-on",
        "writer",
    ]);
    assert_eq!(codes(&author.workspace, "postmortem"), ["unused-agent"]);
    // The author removes the template's worker by hand (here through the same in-place edit).
    let manifest = author.package.join("expert-squad.jsonc");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let root = squad::jsonc::parse(&text).unwrap();
    let agents = &squad::jsonc::edit::member(
        &squad::jsonc::edit::member(&root, "capability_projection")
            .unwrap()
            .value,
        "agents",
    )
    .unwrap()
    .value;
    let text = squad::jsonc::edit::remove_member(&text, agents, "worker");
    std::fs::write(&manifest, text).unwrap();
    std::fs::remove_dir_all(author.package.join("agents/worker")).unwrap();
    assert!(codes(&author.workspace, "postmortem").is_empty());
}

fn equip_the_team(author: &Author) {
    author.ok(&[
        "scaffold",
        "skill",
        "timeline-method",
        "--description",
        "How to build an incident timeline.",
    ]);
    author.ok(&["scaffold", "tool", "summarize-timeline", "--for", "analyst"]);
    author.ok(&[
        "scaffold",
        "mcp",
        "tracker",
        "--url",
        "https://tracker.example/mcp",
        "--tool",
        "list_incidents",
        "--for",
        "analyst",
    ]);
    assert_eq!(
        codes(&author.workspace, "postmortem"),
        ["tools-not-compiled"]
    );
}

/// Realistic slips, found and fixed.
fn make_mistakes_and_fix_them(author: &Author) {
    let workspace = &author.workspace;
    let manifest = "postmortem/expert-squad.jsonc";
    workspace.edit(manifest, "\"label\": \"Writer\"", "\"lable\": \"Writer\"");
    workspace.edit(
        manifest,
        "\"description\": \"Checks the draft against the evidence.\",\n            \"depends_on\": [\n              \"writer\"\n            ]",
        "\"description\": \"Checks the draft against the evidence.\",\n            \"depends_on\": [\n              \"writer\",\n              \"analyst\"\n            ]",
    );
    workspace.edit(
        "postmortem/tools/summarize-timeline.ts",
        "import { tool } from \"@opencorvus-ai/plugin\";",
        "import { tool } from \"@opencorvus-ai/plugin\";\nimport { readFileSync } from \"fs\";\nexport const read = readFileSync;",
    );
    let output = author.run(&["validate"]);
    assert_status(&output, 1);
    let text = stderr(&output);
    assert!(
        text.ends_with("error: acme/postmortem 2026.12.01.1 is invalid: 4 errors, 0 warnings\nhelp: 3 problems can be fixed automatically: `squad fix` (`--dry-run` shows the changes first)\n"),
        "{text}"
    );
    let page = author.run(&["explain", "unsorted-list"]);
    assert!(stdout(&page).contains("## Fixed"));
    let fixed = author.ok(&["fix"]);
    assert!(
        fixed.ends_with("       Valid acme/postmortem 2026.12.01.1 (0 errors, 0 warnings)\n"),
        "{fixed}"
    );
}

/// Version, pack; returns the archive and the digest the author announces.
fn release(author: &Author) -> (PathBuf, String) {
    let bumped = author.run(&["version", "bump"]);
    assert_status(&bumped, 0);
    assert_eq!(stdout(&bumped), "2026.12.01.2\n");
    author.ok(&["version", "check"]);
    let archive = author.workspace.path("postmortem.zip");
    let packed = author.run(&["pack", "-o", archive.to_str().unwrap()]);
    assert_status(&packed, 0);
    let digest = stdout(&packed)
        .lines()
        .find_map(|line| line.strip_prefix("package_digest  "))
        .unwrap()
        .to_owned();
    (archive, digest)
}

/// The teammate checks what arrived, as the guide says, then installs and activates it.
fn receive(teammate: &Teammate, archive: &Path, digest: &str) {
    let received = teammate.workspace.path("postmortem.zip");
    std::fs::copy(archive, &received).unwrap();
    let shown = received.to_str().unwrap();
    let output = teammate.workspace.run(&["validate", "postmortem.zip"]);
    assert_status(&output, 0);
    assert_eq!(
        stderr(&output),
        "note[tools-not-compiled]: 1 package tool(s) parsed and checked statically: syntax, imports and default export; bundling them with Bun and running them are left to the OpenCorvus runtime\n  --> postmortem.zip/tools/summarize-timeline.ts\n\n       Valid acme/postmortem 2026.12.01.2 (0 errors, 0 warnings)\n"
    );
    let output = teammate.run(&["digest", shown]);
    assert_eq!(stdout(&output).trim(), digest);
    let project = teammate.project.to_str().unwrap();
    assert_status(
        &teammate.run(&["install", shown, "--scope", "project", "--project", project]),
        0,
    );
    assert_status(
        &teammate.run(&["activate", "postmortem", "--project", project]),
        0,
    );
    let list = teammate.run(&["list", "--project", project, "--format", "json"]);
    assert!(
        stdout(&list).contains("\"2026.12.01.2\""),
        "{}",
        stdout(&list)
    );
}

#[test]
fn a_squad_from_new_to_a_teammates_project() {
    let author = start();
    build_the_team(&author);
    equip_the_team(&author);
    make_mistakes_and_fix_them(&author);
    let (archive, digest) = release(&author);
    let teammate = Teammate::new();
    receive(&teammate, &archive, &digest);
}
