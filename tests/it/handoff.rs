//! AgentHandoff payloads through the binary (seed-formats §4.6): the field table, the spec
//! level, the squad and clock checks, and scaffolding from a workflow.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{corpus, fixtures, repo, seeds, squad, text};

fn handoffs() -> PathBuf {
    fixtures().join("interop/handoff")
}

fn path(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `(pointer, code, keyword, severity)` of every diagnostic, and the exit code.
fn validate(args: &[&str]) -> (i32, Vec<(String, String, String, String)>) {
    let home = tempfile::tempdir().unwrap();
    let mut all = vec!["handoff", "validate", "--format", "json"];
    all.extend_from_slice(args);
    let output = squad(&all, &repo(), home.path());
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{args:?}: {}", text(&output.stderr)));
    let diagnostics = report["packages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|package| package["diagnostics"].as_array().unwrap().clone())
        .map(|d| {
            (
                d["pointer"].as_str().unwrap_or_default().to_owned(),
                d["code"].as_str().unwrap().to_owned(),
                d["keyword"].as_str().unwrap_or_default().to_owned(),
                d["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (output.status.code().unwrap(), diagnostics)
}

fn one(
    pointer: &str,
    code: &str,
    keyword: &str,
    severity: &str,
) -> Vec<(String, String, String, String)> {
    vec![(pointer.into(), code.into(), keyword.into(), severity.into())]
}

#[test]
fn valid_handoffs_pass_at_every_level() {
    for name in [
        "full",
        "minimal",
        "max-tokens-zero",
        "budget-zero",
        "task-id-zero",
        "dod-blank",
    ] {
        let file = handoffs().join(format!("valid/{name}.json"));
        for level in ["schema", "spec", "lenient"] {
            let (exit, diagnostics) = validate(&["--level", level, path(&file)]);
            assert_eq!(exit, 0, "{name} at {level}: {diagnostics:?}");
            let expected = if name == "dod-blank" && level != "schema" {
                one("/definition_of_done/0", "handoff-dod-blank", "", "warning")
            } else {
                vec![]
            };
            assert_eq!(diagnostics, expected, "{name} at {level}");
        }
    }
}

#[test]
fn each_invalid_handoff_breaks_its_rule() {
    let cases = [
        (
            "dod-empty",
            "/definition_of_done",
            "out-of-range",
            "minItems",
        ),
        ("task-id-task", "/task_id", "pattern-mismatch", "pattern"),
        (
            "task-id-arabic-digits",
            "/task_id",
            "pattern-mismatch",
            "pattern",
        ),
        (
            "task-id-trailing-newline",
            "/task_id",
            "pattern-mismatch",
            "pattern",
        ),
        (
            "extra-field",
            "/priority",
            "unknown-field",
            "additionalProperties",
        ),
        (
            "extra-constraint",
            "/constraints/currency",
            "unknown-field",
            "additionalProperties",
        ),
        (
            "autonomy-l3",
            "/constraints/autonomy",
            "invalid-literal",
            "enum",
        ),
        (
            "output-format-memo",
            "/output_format",
            "invalid-literal",
            "enum",
        ),
        (
            "max-tokens-negative",
            "/constraints/max_tokens",
            "out-of-range",
            "minimum",
        ),
        ("inputs-number", "/inputs/0", "wrong-type", "type"),
        (
            "deadline-tomorrow",
            "/constraints/deadline",
            "invalid-format",
            "format",
        ),
    ];
    for (name, pointer, code, keyword) in cases {
        let file = handoffs().join(format!("invalid/{name}.json"));
        let (exit, diagnostics) = validate(&[path(&file)]);
        assert_eq!(exit, 1, "{name}");
        assert_eq!(diagnostics, one(pointer, code, keyword, "error"), "{name}");
        // Sniffed by content through `squad validate` too.
        let home = tempfile::tempdir().unwrap();
        let output = squad(&["validate", path(&file)], home.path(), home.path());
        assert_eq!(output.status.code(), Some(1), "{name}");
    }
    // Formats are annotations at schema level; lenient keeps the finding as a warning.
    let deadline = handoffs().join("invalid/deadline-tomorrow.json");
    assert_eq!(
        validate(&["--level", "schema", path(&deadline)]),
        (0, vec![])
    );
    assert_eq!(
        validate(&["--level", "lenient", path(&deadline)]),
        (
            0,
            one(
                "/constraints/deadline",
                "invalid-format",
                "format",
                "warning"
            )
        )
    );
}

/// The valid and invalid handoff fixtures (all of them: a test that loops over them must not
/// pass on an emptied folder).
fn fixture_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for folder in ["valid", "invalid"] {
        for entry in std::fs::read_dir(handoffs().join(folder)).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    files.sort();
    assert_eq!(files.len(), 17, "the handoff fixtures changed: {files:?}");
    files
}

/// The seed's schema text, read from the shared seed for the test only (squad does not embed
/// it: its licence is unstated).
fn seed_schema() -> Option<Value> {
    let seed = std::fs::read_to_string(seeds()?.join("003_71bf42da6adc9071.txt")).unwrap();
    // The seed is a rendered page: the schema follows the last "JSON" heading, with a `|`
    // line between source lines.
    let start = seed.rfind("JSON\n").unwrap() + 5;
    let json: String = seed[start..]
        .lines()
        .filter(|line| line.trim() != "|")
        .collect::<Vec<_>>()
        .join("\n");
    Some(serde_json::from_str(&json).unwrap())
}

#[test]
fn verdicts_agree_with_a_draft_07_validator_on_the_seed_schema() {
    let Some(schema) = seed_schema() else { return };
    // The crate asserts formats by default under draft-07; squad's schema level does not.
    let annotating = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .should_validate_formats(false)
        .build(&schema)
        .unwrap();
    let asserting = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    for file in fixture_files() {
        let instance: Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for (level, validator) in [("schema", &annotating), ("spec", &asserting)] {
            let (exit, _) = validate(&["--level", level, path(&file)]);
            assert_eq!(
                exit == 0,
                validator.is_valid(&instance),
                "{} at {level}",
                file.display()
            );
        }
    }
}

#[test]
fn deadlines_agree_with_the_validator_s_date_time_format() {
    let Some(schema) = seed_schema() else { return };
    let asserting = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let minimal: Value = serde_json::from_str(
        &std::fs::read_to_string(handoffs().join("valid/minimal.json")).unwrap(),
    )
    .unwrap();
    for deadline in [
        "2026-08-13T17:00:00Z",
        "2026-08-13t17:00:00z",
        "2026-08-13T17:00:00.250+02:00",
        "2024-02-29T00:00:00-00:00",
        "1998-12-31T23:59:60Z",
        "2023-06-14 02:06:07+00:00",
        "2026-08-13T17:00:00",
        "2023-02-29T00:00:00Z",
        "2026-08-13T25:00:00Z",
        "2026-08-13T17:00:00+0200",
        "2026-08-13",
        "tomorrow",
    ] {
        let mut instance = minimal.clone();
        instance["constraints"] = serde_json::json!({ "deadline": deadline });
        let file = home.path().join("deadline.json");
        std::fs::write(&file, instance.to_string()).unwrap();
        let (exit, _) = validate(&[path(&file)]);
        assert_eq!(exit == 0, asserting.is_valid(&instance), "{deadline}");
    }
}

#[test]
fn squad_and_clock_checks() {
    let home = tempfile::tempdir().unwrap();
    let package = fixtures().join("valid/release-review");
    let write = |name: &str, edit: &dyn Fn(&mut Value)| {
        let mut value: Value = serde_json::from_str(
            &std::fs::read_to_string(handoffs().join("valid/full.json")).unwrap(),
        )
        .unwrap();
        value["to"] = "reviewer".into();
        edit(&mut value);
        let file = home.path().join(format!("{name}.json"));
        std::fs::write(&file, value.to_string()).unwrap();
        file
    };
    let good = write("good", &|_| {});
    let worker = write("worker", &|v| v["from"] = "builder".into());
    let stranger = write("stranger", &|v| v["from"] = "ads-lead".into());
    let to_orchestrator = write("to-orchestrator", &|v| v["to"] = "orchestrator".into());
    let squad_args = |file: &Path| validate(&["--squad", path(&package), path(file)]);
    assert_eq!(squad_args(&good), (0, vec![]));
    assert_eq!(
        squad_args(&worker),
        (0, one("/from", "handoff-from-worker", "", "warning"))
    );
    assert_eq!(
        squad_args(&stranger),
        (1, one("/from", "handoff-from", "", "error"))
    );
    assert_eq!(
        squad_args(&to_orchestrator),
        (1, one("/to", "handoff-to", "", "error"))
    );
    // Without --squad the agents are not checked.
    assert_eq!(validate(&[path(&stranger)]), (0, vec![]));

    // The full fixture's deadline is 2026-09-01T17:00:00+02:00 = 15:00Z.
    let before = validate(&["--now", "2026-09-01T14:59:59Z", path(&good)]);
    assert_eq!(before, (0, vec![]));
    for now in ["2026-09-01T15:00:00Z", "2027-01-01T00:00:00+01:00"] {
        assert_eq!(
            validate(&["--now", now, path(&good)]),
            (
                0,
                one(
                    "/constraints/deadline",
                    "handoff-deadline-past",
                    "",
                    "warning"
                )
            ),
            "{now}"
        );
    }
    assert_eq!(
        validate(&[
            "--now",
            "2027-01-01T00:00:00Z",
            "--deny-warnings",
            path(&good)
        ])
        .0,
        1
    );
    let output = squad(
        &["handoff", "validate", "--now", "soon", path(&good)],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_folder_stands_for_its_json_files() {
    let (exit, diagnostics) = validate(&[path(&handoffs().join("valid"))]);
    assert_eq!(exit, 0);
    assert_eq!(diagnostics.len(), 1); // dod-blank's warning
    let (exit, diagnostics) = validate(&[path(&handoffs().join("invalid"))]);
    assert_eq!(exit, 1);
    assert_eq!(diagnostics.len(), 11);
    let empty = tempfile::tempdir().unwrap();
    let output = squad(
        &["handoff", "validate", path(empty.path())],
        empty.path(),
        empty.path(),
    );
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn scaffold_of_the_academic_paper_review_workflow_is_golden() {
    let Some(corpus) = corpus() else { return };
    let home = tempfile::tempdir().unwrap();
    let package = corpus.join("academic-paper-review");
    let output = squad(
        &[
            "handoff",
            "scaffold",
            path(&package),
            "--workflow",
            "academic-paper-review",
        ],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let golden =
        std::fs::read_to_string(handoffs().join("golden/academic-paper-review.handoffs.json"))
            .unwrap();
    assert_eq!(text(&output.stdout), golden);
    let scaffolded: Vec<Value> = serde_json::from_str(&golden).unwrap();
    assert_eq!(scaffolded.len(), 8);
    let editor = scaffolded
        .iter()
        .find(|h| h["to"] == "paper-review-integration-editor")
        .unwrap();
    assert_eq!(editor["inputs"].as_array().unwrap().len(), 5);
    assert_eq!(editor["task_id"], "AOS-8");
    // Inputs name earlier handoffs only, and never a budget by default.
    for (index, handoff) in scaffolded.iter().enumerate() {
        assert_eq!(handoff["task_id"], format!("AOS-{}", index + 1));
        assert_eq!(handoff["from"], "orchestrator");
        assert!(handoff.get("constraints").is_none());
        for input in handoff["inputs"].as_array().unwrap() {
            let earlier = scaffolded[..index].iter().any(|h| &h["task_id"] == input);
            assert!(earlier, "{input} of {}", handoff["task_id"]);
        }
    }
}

#[test]
fn scaffolded_files_pass_validation_against_their_squad() {
    let home = tempfile::tempdir().unwrap();
    let package = fixtures().join("valid/release-review");
    let out = home.path().join("handoffs");
    let args = [
        "handoff",
        "scaffold",
        path(&package),
        "--workflow",
        "release",
        "--task-start",
        "1400",
        "--autonomy",
        "L1",
        "--output-format",
        "review_verdict",
        "--budget-eur",
        "30",
        "-o",
        path(&out),
    ];
    let output = squad(&args, home.path(), home.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // No play sidecar: the budget cannot be split, and that is said.
    assert!(text(&output.stderr).contains("play-extras.json"));
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "one handoff per node of `release`");
    assert_eq!(names[0], "AOS-1400.json");
    let first: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("AOS-1400.json")).unwrap()).unwrap();
    assert_eq!(first["constraints"], serde_json::json!({"autonomy": "L1"}));
    assert_eq!(first["output_format"], "review_verdict");
    assert_eq!(
        validate(&["--squad", path(&package), path(&out)]),
        (0, vec![])
    );
    // A second run does not overwrite what authors may have filled in.
    let output = squad(&args, home.path(), home.path());
    assert_eq!(output.status.code(), Some(2));
    let mut forced = args.to_vec();
    forced.push("--force");
    assert_eq!(
        squad(&forced, home.path(), home.path()).status.code(),
        Some(0)
    );
    let unknown = squad(
        &["handoff", "scaffold", path(&package), "--workflow", "nope"],
        home.path(),
        home.path(),
    );
    assert_eq!(unknown.status.code(), Some(2));
    let bad_budget = squad(
        &[
            "handoff",
            "scaffold",
            path(&package),
            "--workflow",
            "release",
            "--budget-eur",
            "-1",
        ],
        home.path(),
        home.path(),
    );
    assert_eq!(bad_budget.status.code(), Some(2));
}

#[test]
fn play_budget_shares_split_the_budget() {
    let workspace = tempfile::tempdir().unwrap();
    let package = workspace.path().join("release-review");
    crate::support::copy_tree(&fixtures().join("valid/release-review"), &package);
    let sidecar = workspace.path().join("interop/openvibe/release-review");
    std::fs::create_dir_all(&sidecar).unwrap();
    std::fs::write(
        sidecar.join("play-extras.json"),
        r#"{"budget": {"split": {"reviewer": 0.1, "builder": 0.25}},
            "checks": [{"by": "reviewer", "of": "builder", "bar": "Every claim is listed."}]}"#,
    )
    .unwrap();
    let run = |extra: &[&str]| -> Vec<Value> {
        let mut args = vec![
            "handoff",
            "scaffold",
            "release-review",
            "--workflow",
            "release",
        ];
        args.extend_from_slice(extra);
        let output = squad(&args, workspace.path(), workspace.path());
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let split = run(&["--budget-eur", "30", "--max-tokens", "1000"]);
    let by_agent = |handoffs: &[Value], agent: &str| {
        handoffs.iter().find(|h| h["to"] == agent).cloned().unwrap()
    };
    let editor = by_agent(&split, "reviewer");
    assert_eq!(
        editor["constraints"],
        serde_json::json!({"budget_eur": 3.0, "max_tokens": 100})
    );
    let planner = by_agent(&split, "builder");
    assert_eq!(
        planner["constraints"],
        serde_json::json!({"budget_eur": 7.5, "max_tokens": 250})
    );
    assert_eq!(planner["definition_of_done"].as_array().unwrap().len(), 2);
    // A role without a share gets no budget, not 0.
    assert!(
        by_agent(&split, "requirements-analyst")
            .get("constraints")
            .is_none()
    );
    // Shares without the options set nothing.
    let plain = run(&[]);
    assert!(plain.iter().all(|h| h.get("constraints").is_none()));
}

#[test]
fn garbage_never_panics() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path();
    let samples: Vec<(&str, Vec<u8>)> = vec![
        ("binary", vec![0, 159, 146, 150, 255, 254]),
        ("empty", vec![]),
        ("deep", "[".repeat(100_000).into_bytes()),
        ("number", b"1e999999".to_vec()),
        ("types", br#"{"task_id": {}, "from": 1, "to": null, "goal": [], "inputs": {}, "constraints": [], "definition_of_done": "x", "output_format": 1, "needs_approval_for": [[]], "context_refs": true}"#.to_vec()),
        ("numbers", br#"{"task_id": "AOS-1", "from": "a", "to": "b", "goal": "g", "definition_of_done": ["x"], "constraints": {"budget_eur": 1e400, "max_tokens": 18446744073709551616000, "deadline": "9999-12-31T23:59:60-23:59"}}"#.to_vec()),
    ];
    let package = fixtures().join("valid/release-review");
    for (name, bytes) in &samples {
        let file = dir.join(format!("{name}.json"));
        std::fs::write(&file, bytes).unwrap();
        for args in [
            vec![
                "handoff",
                "validate",
                path(&file),
                "--squad",
                path(&package),
                "--now",
                "2026-01-01T00:00:00Z",
            ],
            vec!["validate", "--kind", "handoff", path(&file)],
        ] {
            let output = squad(&args, dir, dir);
            let code = output.status.code();
            assert!(
                matches!(code, Some(0..=2)),
                "{name}: {code:?} {}",
                text(&output.stderr)
            );
        }
    }
}

#[test]
fn a_local_copy_of_the_seed_schema_finds_nothing_the_field_table_missed() {
    let Some(seed) = seed_schema() else { return };
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("handoff.json");
    std::fs::write(&schema, seed.to_string()).unwrap();
    for file in fixture_files() {
        for level in ["schema", "spec"] {
            let plain = validate(&["--level", level, path(&file)]);
            let with_schema = validate(&["--level", level, "--schema", path(&schema), path(&file)]);
            assert_eq!(plain, with_schema, "{} at {level}", file.display());
        }
    }
    // Through `squad validate` too, and a schema that cannot be read is a usage error.
    let home = tempfile::tempdir().unwrap();
    let minimal = handoffs().join("valid/minimal.json");
    let output = squad(
        &["validate", "--schema", path(&schema), path(&minimal)],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let missing = dir.path().join("missing.json");
    let output = squad(
        &["validate", "--schema", path(&missing), path(&minimal)],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("missing.json"));
}
