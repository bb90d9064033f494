//! agents.play@1 through the real binary: the seed fixtures, import and export.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::support::{fixtures, squad, text};

fn play_fixture(name: &str) -> String {
    fixtures()
        .join("interop/play")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Runs `squad validate --format json` and returns the exit code and (pointer, code) pairs.
fn validate(args: &[&str], cwd: &Path) -> (i32, Vec<(String, String, String)>) {
    let mut all = vec!["validate", "--format", "json"];
    all.extend_from_slice(args);
    let output = squad(&all, cwd, cwd);
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
                d["keyword"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    (output.status.code().unwrap(), found)
}

#[test]
fn the_six_seed_fixtures_get_their_verdicts() {
    let home = tempfile::tempdir().unwrap();
    for name in [
        "valid/advisor.json",
        "valid/fan-out.json",
        "valid/grader-loop.json",
    ] {
        assert_eq!(
            validate(&[&play_fixture(name)], home.path()),
            (0, vec![]),
            "{name}"
        );
    }
    let expected = [
        (
            "rejected/a-share-over-the-whole.json",
            "/budget/split",
            "play-split-sum",
            "",
        ),
        (
            "rejected/no-roles.json",
            "/roles",
            "out-of-range",
            "minItems",
        ),
        (
            "rejected/no-way-to-stop.json",
            "/",
            "missing-field",
            "required",
        ),
    ];
    for (name, pointer, code, keyword) in expected {
        let (status, found) = validate(&[&play_fixture(name)], home.path());
        assert_eq!(status, 1, "{name}");
        assert_eq!(
            found,
            vec![(pointer.into(), code.into(), keyword.into())],
            "{name}"
        );
    }
    // The field table sets no per-share maximum: the over-budget play passes the schema level.
    let (status, found) = validate(
        &[
            "--level",
            "schema",
            &play_fixture("rejected/a-share-over-the-whole.json"),
        ],
        home.path(),
    );
    assert_eq!((status, found), (0, vec![]));
}

#[test]
fn the_decimal_sum_vector_passes_and_an_over_budget_split_fails() {
    let home = tempfile::tempdir().unwrap();
    let write = |name: &str, split: &str| {
        let path = home.path().join(name);
        let roles: Vec<String> = ["a", "b", "c", "d"]
            .iter()
            .map(|id| format!(r#"{{"id": "{id}", "does": "x"}}"#))
            .collect();
        fs::write(
            &path,
            format!(
                r#"{{"id": "p", "name": "P", "roles": [{}], "stop": {{"when": "done"}}, "budget": {{"split": {split}}}}}"#,
                roles.join(",")
            ),
        )
        .unwrap();
        path.to_string_lossy().into_owned()
    };
    let exact = write("exact.json", r#"{"a": 0.2, "b": 0.4, "c": 0.3, "d": 0.1}"#);
    assert_eq!(validate(&[&exact], home.path()), (0, vec![]));
    let over = write("over.json", r#"{"a": 0.8, "b": 0.7, "c": 0.7}"#);
    assert_eq!(
        validate(&[&over], home.path()),
        (
            1,
            vec![("/budget/split".into(), "play-split-sum".into(), "".into())]
        )
    );
}

fn files_under(root: &Path) -> Vec<String> {
    let mut files: Vec<String> = walkdir::WalkDir::new(root)
        .into_iter()
        .map(|entry| entry.unwrap())
        .filter(|entry| !entry.file_type().is_dir())
        .map(|entry| {
            let relative = entry.path().strip_prefix(root).unwrap();
            relative.to_string_lossy().replace('\\', "/")
        })
        .collect();
    files.sort();
    files
}

fn manifest(package: &Path) -> Value {
    let text = fs::read_to_string(package.join("expert-squad.jsonc")).unwrap();
    let body: String = text
        .lines()
        .filter(|line| !line.starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&body).unwrap()
}

#[test]
fn importing_each_valid_fixture_gives_a_valid_package_and_exports_back_to_a_valid_play() {
    let workspace = tempfile::tempdir().unwrap();
    for (name, roles) in [
        ("advisor", vec!["advisor", "executor"]),
        ("fan-out", vec!["merger", "splitter", "worker"]),
        ("grader-loop", vec!["doer", "grader"]),
    ] {
        let package = workspace.path().join(name);
        let output = squad(
            &[
                "import",
                "play",
                &play_fixture(&format!("valid/{name}.json")),
                package.to_str().unwrap(),
                "--version",
                "2026.01.01.1",
            ],
            workspace.path(),
            workspace.path(),
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "{name}: {}",
            text(&output.stderr)
        );
        // Only the grader loop repeats, which a workflow cannot.
        assert_eq!(
            text(&output.stderr)
                .matches("warning[import-play-loop]")
                .count(),
            usize::from(name == "grader-loop"),
            "{name}: {}",
            text(&output.stderr)
        );
        // Exactly the files of seed-formats §1.8; the sidecar lies outside the package.
        let mut expected = vec![
            "README.md".to_owned(),
            "agents/orchestrator/system.md".to_owned(),
            "expert-squad.jsonc".to_owned(),
            "selector.md".to_owned(),
        ];
        expected.extend(roles.iter().map(|role| format!("agents/{role}/system.md")));
        expected.sort();
        assert_eq!(files_under(&package), expected, "{name}");
        let sidecar = workspace.path().join("interop/openvibe").join(name);
        assert_eq!(
            fs::read(sidecar.join("source.play.json")).unwrap(),
            fs::read(play_fixture(&format!("valid/{name}.json"))).unwrap()
        );
        let extras: Value =
            serde_json::from_slice(&fs::read(sidecar.join("play-extras.json")).unwrap()).unwrap();
        assert_eq!(extras["source_sha256"].as_str().unwrap().len(), 64);
        // The package validates with no error and no warning.
        let output = squad(
            &["validate", package.to_str().unwrap()],
            workspace.path(),
            workspace.path(),
        );
        assert_eq!(output.status.code(), Some(0));
        assert!(
            text(&output.stderr).contains("(0 errors, 0 warnings)"),
            "{}",
            text(&output.stderr)
        );
        // And its workflow exports to a valid play.
        let exported = workspace.path().join(format!("{name}.exported.json"));
        let output = squad(
            &[
                "export",
                "play",
                package.to_str().unwrap(),
                "--workflow",
                name,
                "-o",
                exported.to_str().unwrap(),
            ],
            workspace.path(),
            workspace.path(),
        );
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert_eq!(
            validate(
                &["--kind", "play", exported.to_str().unwrap()],
                workspace.path()
            ),
            (0, vec![])
        );
    }
    // The worked example of seed-formats §1.9.
    let fan_out = manifest(&workspace.path().join("fan-out"));
    assert_eq!(fan_out["namespace"], "openvibe");
    assert_eq!(fan_out["label"], "Fan-out");
    assert_eq!(
        fan_out["description"],
        "Split the work across many small agents, then merge."
    );
    let nodes = &fan_out["capability_projection"]["virtual_workflows"]["fan-out"]["nodes"];
    assert_eq!(
        nodes,
        &serde_json::json!({
            "split-splitter": { "agent_id": "splitter", "description": "split: Split the work into parts that do not touch each other.", "depends_on": [] },
            "work-worker": { "agent_id": "worker", "description": "work: Do one part.", "depends_on": ["split-splitter"] },
            "merge-merger": { "agent_id": "merger", "description": "merge: Merge the parts and check they fit.", "depends_on": ["work-worker"] }
        })
    );
    let worker = &fan_out["capability_projection"]["agents"]["worker"];
    assert_eq!(worker["label"], "worker");
    assert_eq!(worker["base_role"], "delegated-worker");
    let grader = manifest(&workspace.path().join("grader-loop"));
    let nodes = grader["capability_projection"]["virtual_workflows"]["grader-loop"]["nodes"]
        .as_object()
        .unwrap();
    assert_eq!(
        nodes.keys().collect::<Vec<_>>(),
        ["do-doer", "check-grader"]
    );
    assert_eq!(
        nodes["check-grader"]["depends_on"],
        serde_json::json!(["do-doer"])
    );
    let orchestrator = fs::read_to_string(
        workspace
            .path()
            .join("grader-loop/agents/orchestrator/system.md"),
    )
    .unwrap();
    assert!(orchestrator.contains("A child's budget is a slice of its parent's."));
    assert!(orchestrator.contains("at most 4 rounds"));
    let advisor = manifest(&workspace.path().join("advisor"));
    let nodes = advisor["capability_projection"]["virtual_workflows"]["advisor"]["nodes"]
        .as_object()
        .unwrap();
    assert_eq!(nodes.keys().collect::<Vec<_>>(), ["work-executor"]);
    let prompt =
        fs::read_to_string(workspace.path().join("advisor/agents/advisor/system.md")).unwrap();
    assert!(prompt.contains("at most 3 times"), "{prompt}");
}

#[test]
fn import_warns_about_what_a_squad_cannot_express() {
    let workspace = tempfile::tempdir().unwrap();
    let output = squad(
        &[
            "import",
            "play",
            &play_fixture("valid/fan-out.json"),
            "fan-out",
            "--version",
            "2026.01.01.1",
        ],
        workspace.path(),
        workspace.path(),
    );
    let stderr = text(&output.stderr);
    assert_eq!(
        stderr.matches("warning[import-play-model]").count(),
        3,
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("warning[import-play-count]").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("at `/roles/1/count`"));
}

#[test]
fn import_refuses_invalid_plays_and_existing_folders_and_leaves_nothing() {
    let workspace = tempfile::tempdir().unwrap();
    let output = squad(
        &[
            "import",
            "play",
            &play_fixture("rejected/no-roles.json"),
            "empty",
        ],
        workspace.path(),
        workspace.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("out-of-range"));
    assert_eq!(
        fs::read_dir(workspace.path()).unwrap().count(),
        0,
        "nothing written"
    );
    fs::create_dir(workspace.path().join("taken")).unwrap();
    let output = squad(
        &[
            "import",
            "play",
            &play_fixture("valid/advisor.json"),
            "taken",
        ],
        workspace.path(),
        workspace.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("already exists"));
    assert_eq!(files_under(workspace.path()), Vec::<String>::new());
    let names: Vec<_> = fs::read_dir(workspace.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("taken")],
        "no staging or sidecar left"
    );
    let reserved = workspace.path().join("reserved.json");
    fs::write(&reserved, r#"{"id": "p", "name": "P", "roles": [{"id": "orchestrator", "does": "x"}], "stop": {"when": "done"}}"#).unwrap();
    let output = squad(
        &["import", "play", "reserved.json", "p"],
        workspace.path(),
        workspace.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("import-play-agent-id"));
    assert!(text(&output.stderr).contains("--rename orchestrator="));
    let output = squad(
        &[
            "import",
            "play",
            "reserved.json",
            "p",
            "--rename",
            "orchestrator=lead",
            "--version",
            "2026.01.01.1",
        ],
        workspace.path(),
        workspace.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(workspace.path().join("p/agents/lead/system.md").is_file());
}

#[test]
fn export_refuses_unknown_workflows_and_agents_without_descriptions() {
    let home = tempfile::tempdir().unwrap();
    let package = fixtures().join("valid/release-review");
    let output = squad(
        &[
            "export",
            "play",
            package.to_str().unwrap(),
            "--workflow",
            "nope",
        ],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("has no workflow `nope`"),
        "{}",
        text(&output.stderr)
    );
    // The other half: an agent without a description (and more a play cannot hold).
    let (exit, found, stdout) = export("too-long", "review");
    assert_eq!(exit, 1);
    assert!(stdout.is_empty(), "nothing is exported: {stdout}");
    assert_eq!(
        found,
        [
            "error[export-play-id]",
            "error[export-play-name]",
            "error[export-role-id]",
            "error[export-role-name]",
            "error[export-does]",
        ]
    );
}

/// Exports a workflow of a package under `registry-fixtures/interop/play/export/`: the exit
/// code, the diagnostics' `severity[code]` heads in order, and stdout.
fn export(package: &str, workflow: &str) -> (i32, Vec<String>, String) {
    let home = tempfile::tempdir().unwrap();
    let package = play_fixture(&format!("export/{package}"));
    let output = squad(
        &["export", "play", &package, "--workflow", workflow],
        home.path(),
        home.path(),
    );
    let stderr = text(&output.stderr);
    let found = stderr
        .lines()
        .filter(|line| line.starts_with("error[") || line.starts_with("warning["))
        .map(|line| line.split_once(']').unwrap().0.to_owned() + "]")
        .collect();
    (output.status.code().unwrap(), found, text(&output.stdout))
}

#[test]
fn export_refuses_workflows_wider_or_deeper_than_a_play() {
    let (exit, found, stdout) = export("large", "wide");
    assert_eq!(
        (exit, found, stdout.as_str()),
        (1, vec!["error[export-roles]".to_owned()], "")
    );
    let (exit, found, stdout) = export("large", "deep");
    assert_eq!(
        (exit, found, stdout.as_str()),
        (1, vec!["error[export-phases]".to_owned()], "")
    );
}

#[test]
fn export_lists_an_agent_once_per_phase_and_says_so() {
    let (exit, found, stdout) = export("large", "twins");
    assert_eq!(exit, 0);
    assert_eq!(found, ["warning[export-dup-role]"]);
    let play: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        play["phases"],
        serde_json::json!([
            {"id": "phase-1", "roles": ["a01"], "parallel": true},
            {"id": "phase-2", "roles": ["a02"], "parallel": false},
        ])
    );
}

fn import(workspace: &Path, play: &str, dir: &str, extra: &[&str]) -> std::process::Output {
    let file = workspace.join(format!("{dir}.json"));
    fs::write(&file, play).unwrap();
    let mut args = vec![
        "import",
        "play",
        file.to_str().unwrap(),
        dir,
        "--version",
        "2026.01.01.1",
    ];
    args.extend_from_slice(extra);
    squad(&args, workspace, workspace)
}

#[test]
fn import_copies_text_verbatim_and_declares_no_order_for_empty_phases() {
    let workspace = tempfile::tempdir().unwrap();
    let output = import(
        workspace.path(),
        r#"{"id": "bl", "name": "  ", "summary": " ", "roles": [{"id": "a", "does": "x"}], "phases": [], "stop": {"when": "done"}}"#,
        "bl",
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let manifest = manifest(&workspace.path().join("bl"));
    assert_eq!(manifest["label"], "  ");
    assert_eq!(manifest["description"], " ");
    assert!(
        manifest.get("name").is_none(),
        "a blank name is left out (MAN-4)"
    );
    assert_eq!(manifest["selector"]["summary"], " ");
    assert_eq!(
        manifest["capability_projection"]["virtual_workflows"],
        serde_json::json!({})
    );
}

#[test]
fn a_rename_onto_another_role_is_a_diagnostic() {
    let workspace = tempfile::tempdir().unwrap();
    let output = import(
        workspace.path(),
        r#"{"id": "rn", "name": "R", "roles": [{"id": "a", "does": "x"}, {"id": "b", "does": "y"}], "stop": {"when": "done"}}"#,
        "rn",
        &["--rename", "a=b"],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("error[import-play-agent-id]"),
        "{}",
        text(&output.stderr)
    );
    assert!(!workspace.path().join("rn").exists());
}

#[test]
fn the_sidecar_keeps_the_bytes_and_the_exact_shares_for_handoff_scaffold() {
    use sha2::{Digest, Sha256};
    let workspace = tempfile::tempdir().unwrap();
    let mut play = br#"{"id": "ex", "name": "Ex", "summary": "caf"#.to_vec();
    play.push(0xFF); // not UTF-8: read with a replacement character, kept verbatim
    play.extend_from_slice(
        br#"", "roles": [{"id": "a", "does": "Do a."}, {"id": "b", "does": "Do b."}],
        "phases": [{"id": "go", "roles": ["a", "b"]}], "stop": {"when": "done"},
        "budget": {"split": {"a": 1e-7, "b": 0.1000000000000000000001}}}"#,
    );
    let file = workspace.path().join("ex.json");
    fs::write(&file, &play).unwrap();
    let output = squad(
        &["validate", "--format", "json", "ex.json"],
        workspace.path(),
        workspace.path(),
    );
    assert_eq!(output.status.code(), Some(0));
    assert!(text(&output.stdout).contains("invalid-utf8"));
    let output = squad(
        &[
            "import",
            "play",
            "ex.json",
            "ex",
            "--version",
            "2026.01.01.1",
        ],
        workspace.path(),
        workspace.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let sidecar = workspace.path().join("interop/openvibe/ex");
    assert_eq!(fs::read(sidecar.join("source.play.json")).unwrap(), play);
    let extras_text = fs::read_to_string(sidecar.join("play-extras.json")).unwrap();
    let extras: Value = serde_json::from_str(&extras_text).unwrap();
    let expected: String = Sha256::digest(&play)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(extras["source_sha256"], expected.as_str());
    assert!(extras_text.contains("\"a\": 1e-7"), "{extras_text}");
    assert!(
        extras_text.contains("\"b\": 0.1000000000000000000001"),
        "{extras_text}"
    );
    let output = squad(
        &[
            "handoff",
            "scaffold",
            "ex",
            "--workflow",
            "ex",
            "--budget-eur",
            "10",
            "--max-tokens",
            "1000000000",
        ],
        workspace.path(),
        workspace.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let handoffs: Value = serde_json::from_slice(&output.stdout).unwrap();
    let of = |agent: &str| {
        handoffs
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["to"] == agent)
            .unwrap()["constraints"]
            .clone()
    };
    assert_eq!(of("a")["max_tokens"], 100);
    assert_eq!(of("a")["budget_eur"].as_f64(), Some(0.000001));
    assert_eq!(of("b")["max_tokens"], 100_000_000);
}
