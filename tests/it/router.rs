//! ck-brain router contracts through the binary (seed-formats §2.8): the contract lint, router
//! inputs, conformance of recorded runs, and routes derived from a squad.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{corpus, fixtures, squad, text};

fn router() -> PathBuf {
    fixtures().join("interop/router")
}

/// Runs squad from the repository and returns its exit code and JSON stdout.
fn run_json(args: &[&str]) -> (i32, Value) {
    let home = tempfile::tempdir().unwrap();
    let output = squad(args, &crate::support::repo(), home.path());
    let code = output.status.code().expect("squad exited by a signal");
    let value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{args:?}: stdout is not JSON ({error}); stderr:\n{}",
            text(&output.stderr)
        )
    });
    (code, value)
}

/// `(file name, pointer, code, severity)` of every diagnostic of a `--format json` report.
fn found(report: &Value, documents: &str) -> Vec<(String, String, String, String)> {
    report[documents]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|document| {
            let name = document["path"]
                .as_str()
                .and_then(|path| Path::new(path).file_name())
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            document["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |d| {
                    (
                        name.clone(),
                        d["pointer"].as_str().unwrap_or_default().to_owned(),
                        d["code"].as_str().unwrap().to_owned(),
                        d["severity"].as_str().unwrap().to_owned(),
                    )
                })
        })
        .collect()
}

fn path(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn contract(file: &Path, profile: &str) -> (i32, Vec<(String, String, String, String)>) {
    let (code, report) = run_json(&[
        "router",
        "contract",
        path(file),
        "--profile",
        profile,
        "--format",
        "json",
    ]);
    (code, found(&report, "packages"))
}

#[test]
fn the_seed_contract_passes_under_both_profiles() {
    let seed = router().join("contracts/valid/ck-brain.contract.json");
    for profile in ["generic", "ck-brain"] {
        let (code, diagnostics) = contract(&seed, profile);
        assert_eq!((code, diagnostics), (0, vec![]), "{profile}");
    }
    // Under ck-brain the two implementation files were found and checked.
    let (_, report) = run_json(&[
        "router",
        "contract",
        path(&seed),
        "--profile",
        "ck-brain",
        "--format",
        "json",
    ]);
    assert_eq!(report["packages"].as_array().unwrap().len(), 3);
    let (code, report) = run_json(&["validate", path(&seed), "--format", "json"]);
    assert_eq!(code, 0);
    assert_eq!(report["packages"][0]["kind"], "router-contract");
}

#[test]
fn one_failing_contract_per_rule() {
    let cases: &[(&str, &str, &str, &str, &str)] = &[
        ("r-role-missing", "generic", "/", "contract-role", "error"),
        (
            "r-role-not-router",
            "ck-brain",
            "/role",
            "contract-role",
            "error",
        ),
        (
            "r-in-req",
            "generic",
            "/input/required",
            "contract-in-req",
            "error",
        ),
        (
            "r-min",
            "generic",
            "/input/min_routes",
            "contract-min",
            "error",
        ),
        (
            "r-route-req",
            "generic",
            "/input/route_required",
            "contract-route-req",
            "error",
        ),
        (
            "r-handoff",
            "generic",
            "/handoff/required",
            "contract-handoff",
            "error",
        ),
        (
            "r-states-missing-state",
            "generic",
            "/output/states",
            "contract-states",
            "error",
        ),
        (
            "r-states-missing-required",
            "generic",
            "/output/unrouted_required",
            "contract-states",
            "error",
        ),
        (
            "r-states-required-without-status",
            "generic",
            "/output/routed_required",
            "contract-states",
            "error",
        ),
        (
            "r-behavior-two-routes",
            "ck-brain",
            "/behavior/max_routes_selected",
            "contract-behavior",
            "error",
        ),
        (
            "r-behavior-two-routes",
            "generic",
            "/behavior/max_routes_selected",
            "contract-behavior",
            "warning",
        ),
        (
            "r-behavior-missing",
            "generic",
            "/behavior/invent_routes",
            "contract-behavior",
            "error",
        ),
        ("r-role-not-router", "generic", "", "", ""),
    ];
    for (name, profile, pointer, code, severity) in cases {
        let file = router().join(format!("contracts/invalid/{name}.contract.json"));
        let (exit, diagnostics) = contract(&file, profile);
        let expected: Vec<_> = if code.is_empty() {
            vec![]
        } else {
            vec![(
                format!("{name}.contract.json"),
                (*pointer).to_owned(),
                (*code).to_owned(),
                (*severity).to_owned(),
            )]
        };
        assert_eq!(diagnostics, expected, "{name} under {profile}");
        let errors = *severity == "error";
        assert_eq!(exit, i32::from(errors), "{name} under {profile}");
    }
}

#[test]
fn implementation_files_are_checked() {
    let cases = [
        ("missing-md", "ck-brain", "ck-brain.md"),
        (
            "toml-without-developer-instructions",
            "generic",
            "ck-brain.toml",
        ),
        ("md-name-mismatch", "generic", "ck-brain.md"),
    ];
    for (name, profile, file) in cases {
        let contract_file = router().join(format!(
            "contracts/invalid-impl/{name}/ck-brain.contract.json"
        ));
        let (exit, diagnostics) = contract(&contract_file, profile);
        assert_eq!(exit, 1, "{name}");
        assert_eq!(
            diagnostics,
            vec![(
                file.into(),
                String::new(),
                "contract-impl".into(),
                "error".into()
            )],
            "{name}"
        );
    }
    // A generic contract declares no implementation: a missing one is not looked for.
    let missing = router().join("contracts/invalid-impl/missing-md/ck-brain.contract.json");
    assert_eq!(contract(&missing, "generic"), (0, vec![]));
    // An explicit file must exist.
    let (exit, report) = run_json(&[
        "router",
        "contract",
        path(&missing),
        "--implementation",
        "nowhere/router.md",
        "--format",
        "json",
    ]);
    assert_eq!(exit, 1);
    assert_eq!(found(&report, "packages")[0].2, "contract-impl");
}

fn check_case(name: &str, expect_unrouted: bool) -> (i32, Value) {
    let folder = router().join("cases").join(name);
    let input = folder.join("input.json");
    let output = folder.join("output.json");
    let result = folder.join("delegate_result.json");
    let mut args = vec![
        "router",
        "check",
        "--input",
        path(&input),
        "--output",
        path(&output),
        "--format",
        "json",
    ];
    if result.exists() {
        args.extend(["--delegate-result", path(&result)]);
    }
    if expect_unrouted {
        args.extend(["--expect", "unrouted"]);
    }
    let (code, report) = run_json(&args);
    (code, report)
}

/// A recorded run: its folder, whether it is marked ambiguous, and the expected findings.
type Case = (&'static str, bool, &'static [(&'static str, &'static str)]);

#[test]
fn recorded_runs_are_judged_rule_by_rule() {
    let cases: &[Case] = &[
        ("routed", false, &[]),
        ("delegation-failed", false, &[]),
        ("duplicate-names-invalid-configuration", false, &[]),
        ("ambiguous-unrouted", true, &[]),
        (
            "duplicate-names-routed",
            false,
            &[("/status", "router-config")],
        ),
        (
            "spurious-invalid-configuration",
            false,
            &[("/status", "router-config-spurious")],
        ),
        ("invented-route", false, &[("/route", "router-invented")]),
        ("wrong-agent", false, &[("/agent", "router-agent")]),
        ("two-routes", false, &[("/route", "router-one-route")]),
        (
            "unrouted-without-candidates",
            false,
            &[("/", "missing-field")],
        ),
        ("ambiguous-routed", true, &[("/status", "router-ambiguous")]),
        (
            "changed-result",
            false,
            &[("/delegated_result", "router-verbatim")],
        ),
        (
            "handoff-without-constraints",
            false,
            &[("/handoff", "router-handoff")],
        ),
        (
            "delegation-failed-with-fallback",
            false,
            &[
                ("/attempts", "router-one-delegation"),
                ("/fallback_route", "router-one-delegation"),
            ],
        ),
    ];
    for (name, expect_unrouted, expected) in cases {
        let (exit, report) = check_case(name, *expect_unrouted);
        let diagnostics: Vec<(String, String)> = found(&report, "documents")
            .into_iter()
            .map(|(_, pointer, code, _)| (pointer, code))
            .collect();
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(pointer, code)| ((*pointer).to_owned(), (*code).to_owned()))
            .collect();
        assert_eq!(diagnostics, expected, "{name}");
        assert_eq!(exit, i32::from(!expected.is_empty()), "{name}");
        assert_eq!(report["conforms"], expected.is_empty(), "{name}");
    }
    // An ambiguous case answered `unrouted` passes only when it is marked as such or not.
    assert_eq!(check_case("ambiguous-unrouted", false).0, 0);
}

#[test]
fn a_broken_contract_stops_the_check() {
    let folder = router().join("cases/routed");
    let contract_file = router().join("contracts/invalid/r-min.contract.json");
    let (exit, report) = run_json(&[
        "router",
        "check",
        "--contract",
        path(&contract_file),
        "--input",
        path(&folder.join("input.json")),
        "--output",
        path(&folder.join("output.json")),
        "--format",
        "json",
    ]);
    assert_eq!(exit, 1);
    let diagnostics = found(&report, "documents");
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].2, "contract-min");
    // The seed contract given explicitly behaves as the default.
    let seed = router().join("contracts/valid/ck-brain.contract.json");
    let (exit, _) = run_json(&[
        "router",
        "check",
        "--contract",
        path(&seed),
        "--input",
        path(&folder.join("input.json")),
        "--output",
        path(&folder.join("output.json")),
        "--format",
        "json",
    ]);
    assert_eq!(exit, 0);
}

#[test]
fn router_inputs_are_validated() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("valid/three-routes", &[]),
        ("valid/minimal", &[]),
        ("invalid/no-routes", &[("/routes", "out-of-range")]),
        (
            "invalid/duplicate-names",
            &[("/routes/1/name", "router-config")],
        ),
        (
            "invalid/blank-agent",
            &[("/routes/0/agent", "pattern-mismatch")],
        ),
        (
            "invalid/route-without-description",
            &[("/routes/2", "missing-field")],
        ),
        ("invalid/routes-missing", &[("/", "missing-field")]),
    ];
    for (name, expected) in cases {
        let file = router().join(format!("inputs/{name}.json"));
        let (exit, report) = run_json(&[
            "validate",
            "--kind",
            "router-input",
            "--format",
            "json",
            path(&file),
        ]);
        let diagnostics: Vec<(String, String)> = found(&report, "packages")
            .into_iter()
            .map(|(_, pointer, code, _)| (pointer, code))
            .collect();
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(pointer, code)| ((*pointer).to_owned(), (*code).to_owned()))
            .collect();
        assert_eq!(diagnostics, expected, "{name}");
        assert_eq!(exit, i32::from(!expected.is_empty()), "{name}");
    }
}

#[test]
fn routes_of_the_academic_paper_review_squad_are_golden() {
    let Some(corpus) = corpus() else { return };
    let home = tempfile::tempdir().unwrap();
    let package = corpus.join("academic-paper-review");
    let output = squad(
        &["router", "routes", path(&package)],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let golden =
        std::fs::read_to_string(router().join("golden/academic-paper-review.routes.json")).unwrap();
    assert_eq!(text(&output.stdout), golden);
    let routes: Vec<Value> = serde_json::from_str(&golden).unwrap();
    assert_eq!(routes.len(), 8);
    let names: Vec<&str> = routes.iter().map(|r| r["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    assert!(routes.iter().all(|r| r["name"] == r["agent"]));
}

#[test]
fn routes_with_a_request_are_a_valid_router_input() {
    let home = tempfile::tempdir().unwrap();
    let package = fixtures().join("valid/release-review");
    let file = home.path().join("input.json");
    let output = squad(
        &[
            "router",
            "routes",
            path(&package),
            "--request",
            "Check the statistics of my preprint",
            "-o",
            path(&file),
        ],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(output.stdout.is_empty());
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(written["request"], "Check the statistics of my preprint");
    // Recognised by content, with no finding.
    let output = squad(
        &["validate", path(&file), "--format", "json"],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["packages"][0]["kind"], "router-input");
    assert_eq!(report["summary"]["warnings"], 0);
}

#[test]
fn a_squad_without_descriptions_or_agents_has_no_routes() {
    let home = tempfile::tempdir().unwrap();
    let minimal = fixtures().join("valid/minimal");
    let output = squad(
        &["router", "routes", path(&minimal)],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert!(text(&output.stderr).contains("error[routes-desc]"));

    let (_dir, package) = crate::support::temp_copy("valid/minimal");
    let manifest = package.join("expert-squad.jsonc");
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    value["capability_projection"]["agents"] = serde_json::json!({});
    value["capability_projection"]["virtual_workflows"] = serde_json::json!({});
    std::fs::write(&manifest, value.to_string()).unwrap();
    std::fs::remove_dir_all(package.join("agents/worker")).unwrap();
    let output = squad(
        &["router", "routes", path(&package)],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("error[routes-none]"));
    // An invalid package is reported as such.
    std::fs::write(&manifest, "{").unwrap();
    let output = squad(
        &["router", "routes", path(&package)],
        home.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn garbage_never_panics() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path();
    let deep = "[".repeat(100_000);
    let nested = "{\"routes\":".repeat(120) + "1" + &"}".repeat(120);
    let samples: Vec<(&str, Vec<u8>)> = vec![
        ("binary", vec![0, 159, 146, 150, 255, 254]),
        ("empty", vec![]),
        ("deep", deep.into_bytes()),
        ("nested", nested.into_bytes()),
        ("array", b"[1, 2, 3]".to_vec()),
        ("types", br#"{"role": 1, "input": [], "output": {"states": "x"}, "behavior": null, "request": {}, "routes": [1, "x", {"name": []}], "status": ["routed"], "route": {}, "handoff": 1}"#.to_vec()),
    ];
    for (name, bytes) in &samples {
        std::fs::write(dir.join(format!("{name}.json")), bytes).unwrap();
    }
    for (name, _) in &samples {
        let file = format!("{name}.json");
        for args in [
            vec!["router", "contract", &file, "--profile", "ck-brain"],
            vec!["validate", "--kind", "router-contract", &file],
            vec!["validate", "--kind", "router-input", &file],
            vec!["router", "check", "--input", &file, "--output", &file],
            vec![
                "router",
                "check",
                "--contract",
                &file,
                "--input",
                &file,
                "--output",
                &file,
            ],
            vec![
                "router",
                "check",
                "--input",
                "types.json",
                "--output",
                &file,
                "--delegate-result",
                &file,
            ],
        ] {
            let output = squad(&args, dir, dir);
            let code = output.status.code();
            assert!(
                matches!(code, Some(0..=2)),
                "{args:?} exited {code:?}: {}",
                text(&output.stderr)
            );
            assert!(!text(&output.stderr).contains("panicked"), "{args:?}");
        }
    }
    let output = squad(&["router", "routes", "nowhere"], dir, dir);
    assert_eq!(output.status.code(), Some(2));
}
