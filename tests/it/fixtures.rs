//! The fixture corpus: every package under `registry-fixtures/` is validated and its
//! diagnostics (code, severity, file, line, column) compared with `<case>.diagnostics.json`
//! beside it. `SNAPSHOTS=overwrite` rewrites the expectations. Invalid cases are named after the
//! codes they must produce (`<code>[+<code>]--<what>`), so a rewritten snapshot still cannot
//! hide a wrong verdict.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use crate::support::{fixtures, pinned};

fn cases(kind: &str) -> Vec<(String, std::path::PathBuf)> {
    let mut cases: Vec<_> = fs::read_dir(fixtures().join(kind))
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().unwrap().is_dir())
        .map(|entry| (entry.file_name().into_string().unwrap(), entry.path()))
        .collect();
    cases.sort();
    cases
}

fn check_snapshot(case: &Path, failures: &mut Vec<String>) {
    let actual = serde_json::to_string_pretty(&pinned(case)).unwrap() + "\n";
    let snapshot = case.with_extension("diagnostics.json");
    if std::env::var_os("SNAPSHOTS").is_some_and(|value| value == "overwrite") {
        fs::write(&snapshot, &actual).unwrap();
        return;
    }
    match fs::read_to_string(&snapshot) {
        Ok(expected) if expected == actual => {}
        Ok(expected) => failures.push(format!(
            "{}: diagnostics differ\n--- expected\n{expected}+++ actual\n{actual}",
            case.display()
        )),
        Err(_) => failures.push(format!(
            "{}: missing {}",
            case.display(),
            snapshot.display()
        )),
    }
}

#[test]
fn valid_fixtures_have_no_errors_and_match_snapshots() {
    let mut failures = Vec::new();
    for (name, case) in cases("valid") {
        let errors: Vec<_> = pinned(&case)
            .into_iter()
            .filter(|diagnostic| diagnostic.severity == "error")
            .collect();
        if !errors.is_empty() {
            failures.push(format!("{name}: expected no errors, got {errors:?}"));
        }
        check_snapshot(&case, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn invalid_fixtures_break_exactly_their_rule_and_match_snapshots() {
    let mut failures = Vec::new();
    let mut per_code: BTreeMap<String, usize> = BTreeMap::new();
    let cases = cases("invalid");
    for (name, case) in &cases {
        let (codes, _) = name
            .split_once("--")
            .expect("case names are <code>--<what>");
        let expected: BTreeSet<&str> = codes.split('+').collect();
        for code in &expected {
            assert!(
                squad::diag::Code::from_name(code).is_some(),
                "{name}: `{code}` is not a diagnostic code"
            );
            *per_code.entry((*code).to_owned()).or_default() += 1;
        }
        let actual: BTreeSet<String> = pinned(case)
            .into_iter()
            .filter(|diagnostic| diagnostic.severity == "error")
            .map(|diagnostic| diagnostic.code)
            .collect();
        let actual: BTreeSet<&str> = actual.iter().map(String::as_str).collect();
        if actual != expected {
            failures.push(format!(
                "{name}: expected error codes {expected:?}, got {actual:?}"
            ));
        }
        check_snapshot(case, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(cases.len() >= 120, "only {} invalid cases", cases.len());
    let thin: Vec<_> = per_code.iter().filter(|(_, count)| **count < 3).collect();
    assert!(
        thin.is_empty(),
        "codes with fewer than three cases: {thin:?}"
    );
}

#[test]
fn every_snapshot_belongs_to_a_case() {
    for kind in ["valid", "invalid"] {
        for entry in fs::read_dir(fixtures().join(kind)).unwrap() {
            let path = entry.unwrap().path();
            if let Some(name) = path
                .to_str()
                .and_then(|p| p.strip_suffix(".diagnostics.json"))
            {
                assert!(
                    Path::new(name).is_dir(),
                    "stale snapshot {}",
                    path.display()
                );
            }
        }
    }
}
