//! The fixture corpus: the base packages under `registry-fixtures/valid/` and every case of the
//! table in `fixture_cases.rs`, built in a temporary folder, are validated and their diagnostics
//! (code, severity, file, line, column) compared with `<case>.diagnostics.json`; `<case>.change`
//! states each case's change in one line; the folders committed for the docs are what the table
//! makes. `SNAPSHOTS=overwrite` rewrites the snapshots, the change lines and the kept folders.
//! Invalid cases are named after the codes they must produce (`<code>[+<code>]--<what>`), so a
//! rewritten snapshot still cannot hide a wrong verdict.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use squad::diag::Code;

use crate::fixture_cases::{self, Case, KEPT};
use crate::support::{Pinned, fixtures, pinned};

fn overwrite() -> bool {
    std::env::var_os("SNAPSHOTS").is_some_and(|value| value == "overwrite")
}

/// The base packages the cases are made from: `valid/` folders that are not accepted cases.
fn bases() -> Vec<String> {
    let mut bases: Vec<String> = fs::read_dir(fixtures().join("valid"))
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().unwrap().is_dir())
        .map(|entry| entry.file_name().into_string().unwrap())
        .filter(|name| !name.starts_with("accepted--"))
        .collect();
    bases.sort();
    bases
}

/// Every case built once, with its diagnostics, shared by the tests below.
fn validated() -> &'static [(Case, Vec<Pinned>)] {
    static CASES: OnceLock<Vec<(Case, Vec<Pinned>)>> = OnceLock::new();
    CASES.get_or_init(|| {
        let scratch = tempfile::tempdir().unwrap();
        fixture_cases::all()
            .into_iter()
            .map(|case| {
                let folder = scratch.path().join(case.name);
                case.materialize(&folder);
                let diagnostics = pinned(&folder);
                (case, diagnostics)
            })
            .collect()
    })
}

/// Compares (or, with `SNAPSHOTS=overwrite`, writes) one expectation file.
fn check_file(path: &Path, actual: &str, failures: &mut Vec<String>) {
    if overwrite() {
        fs::write(path, actual).unwrap();
        return;
    }
    match fs::read_to_string(path) {
        Ok(expected) if expected == actual => {}
        Ok(expected) => failures.push(format!(
            "{}: differs\n--- expected\n{expected}+++ actual\n{actual}",
            path.display()
        )),
        Err(_) => failures.push(format!("missing {}", path.display())),
    }
}

fn snapshot(diagnostics: &[Pinned]) -> String {
    serde_json::to_string_pretty(diagnostics).unwrap() + "\n"
}

/// The snapshot and the change line of a case.
fn check_case(case: &Case, diagnostics: &[Pinned], failures: &mut Vec<String>) {
    let folder = fixtures().join(case.kind());
    check_file(
        &folder.join(format!("{}.diagnostics.json", case.name)),
        &snapshot(diagnostics),
        failures,
    );
    check_file(
        &folder.join(format!("{}.change", case.name)),
        &case.change_line(),
        failures,
    );
}

#[test]
fn valid_fixtures_have_no_errors_and_match_snapshots() {
    let mut failures = Vec::new();
    let bases = bases();
    assert_eq!(bases, ["minimal", "release-review"]);
    let mut checked = 0;
    for base in &bases {
        let package = fixtures().join("valid").join(base);
        let diagnostics = pinned(&package);
        if diagnostics.iter().any(|d| d.severity == "error") {
            failures.push(format!("{base}: expected no errors, got {diagnostics:?}"));
        }
        check_file(
            &package.with_extension("diagnostics.json"),
            &snapshot(&diagnostics),
            &mut failures,
        );
        checked += 1;
    }
    for (case, diagnostics) in validated()
        .iter()
        .filter(|(case, _)| case.kind() == "valid")
    {
        if diagnostics.iter().any(|d| d.severity == "error") {
            failures.push(format!(
                "{}: expected no errors, got {diagnostics:?}",
                case.name
            ));
        }
        check_case(case, diagnostics, &mut failures);
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(checked, bases.len() + fixture_cases::accepted().len());
    assert!(checked >= 30, "only {checked} valid packages");
}

#[test]
fn invalid_fixtures_break_exactly_their_rule_and_match_snapshots() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (case, diagnostics) in validated()
        .iter()
        .filter(|(case, _)| case.kind() == "invalid")
    {
        let expected: BTreeSet<&str> = case.expected_errors().into_iter().collect();
        for code in &expected {
            assert!(
                Code::from_name(code).is_some(),
                "{}: `{code}` is not a diagnostic code",
                case.name
            );
        }
        let actual: BTreeSet<&str> = diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.severity == "error")
            .map(|diagnostic| diagnostic.code.as_str())
            .collect();
        if actual != expected {
            failures.push(format!(
                "{}: expected error codes {expected:?}, got {actual:?}",
                case.name
            ));
        }
        check_case(case, diagnostics, &mut failures);
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 120, "only {checked} invalid cases");
}

/// Codes no package folder can show from a table of changes: they need a condition of the
/// file system or of the folder's place, and each is tested where that condition is made.
const NEEDS_A_REAL_FILE_SYSTEM: [(Code, &str); 4] = [
    (
        Code::Unreadable,
        "a file squad may not read: cli::an_unreadable_file_is_reported",
    ),
    (
        Code::Symlink,
        "a symbolic link: cli::symlinks_and_special_files_are_refused",
    ),
    (
        Code::SpecialFile,
        "a FIFO: cli::symlinks_and_special_files_are_refused",
    ),
    (
        Code::SourceInRuntimeStorage,
        "a folder inside runtime storage: cli::sources_inside_runtime_storage_are_refused",
    ),
];

/// The codes of package validation: every code before the first code of the neighbouring
/// formats, in the code table's order.
fn package_codes() -> &'static [Code] {
    let end = Code::ALL
        .iter()
        .position(|code| *code == Code::OutOfRange)
        .unwrap();
    &Code::ALL[..end]
}

#[test]
fn every_package_code_has_three_cases_or_a_stated_reason() {
    let mut per_code: BTreeMap<Code, usize> = BTreeMap::new();
    for (_, diagnostics) in validated() {
        let codes: BTreeSet<Code> = diagnostics
            .iter()
            .map(|diagnostic| Code::from_name(&diagnostic.code).unwrap())
            .collect();
        for code in codes {
            *per_code.entry(code).or_default() += 1;
        }
    }
    let exempt: BTreeMap<Code, &str> = NEEDS_A_REAL_FILE_SYSTEM.into_iter().collect();
    let mut thin = Vec::new();
    for code in package_codes() {
        let count = per_code.get(code).copied().unwrap_or(0);
        match exempt.get(code) {
            Some(_) if count > 0 => thin.push(format!(
                "{}: exempt, but {count} case(s) show it: drop the exemption",
                code.as_str()
            )),
            Some(_) => {}
            None if count < 3 => thin.push(format!("{}: {count} case(s)", code.as_str())),
            None => {}
        }
    }
    assert_eq!(package_codes().len(), 76, "the package codes changed");
    assert!(
        thin.is_empty(),
        "codes with fewer than three cases: {thin:?}"
    );
}

/// Every file of a tree, by relative path, with its bytes. Directories count through their
/// files only, as in git, which keeps no empty directory.
fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|entry| entry.unwrap())
        .filter(|entry| !entry.file_type().is_dir())
        .map(|entry| {
            let relative = entry.path().strip_prefix(root).unwrap().to_path_buf();
            (relative, fs::read(entry.path()).unwrap())
        })
        .collect()
}

#[test]
fn kept_folders_are_what_the_table_makes() {
    let cases: BTreeMap<&str, Case> = fixture_cases::all()
        .into_iter()
        .map(|case| (case.name, case))
        .collect();
    let scratch = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for name in KEPT {
        let case = cases
            .get(name)
            .unwrap_or_else(|| panic!("kept case `{name}` is not in the table"));
        let made = scratch.path().join(name);
        case.materialize(&made);
        let committed = fixtures().join(case.kind()).join(name);
        if overwrite() {
            let _ = fs::remove_dir_all(&committed);
            case.materialize(&committed);
        } else if tree(&made) != tree(&committed) {
            failures.push(format!(
                "registry-fixtures/{}/{name} is not what the table makes",
                case.kind()
            ));
        }
    }
    // No other case folder is committed.
    let mut folders = Vec::new();
    for kind in ["invalid", "valid"] {
        for entry in fs::read_dir(fixtures().join(kind)).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            if entry.file_type().unwrap().is_dir() && cases.contains_key(name.as_str()) {
                folders.push(name);
            }
        }
    }
    folders.sort();
    let mut kept: Vec<String> = KEPT.iter().map(|name| (*name).to_owned()).collect();
    kept.sort();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(folders, kept, "committed case folders and KEPT differ");
}

#[test]
fn every_expectation_belongs_to_a_case_and_every_case_has_its_files() {
    let mut expected: BTreeSet<PathBuf> = BTreeSet::new();
    for case in fixture_cases::all() {
        for extension in ["diagnostics.json", "change"] {
            expected.insert(
                fixtures()
                    .join(case.kind())
                    .join(format!("{}.{extension}", case.name)),
            );
        }
    }
    for base in bases() {
        expected.insert(
            fixtures()
                .join("valid")
                .join(format!("{base}.diagnostics.json")),
        );
    }
    let mut found = BTreeSet::new();
    for kind in ["valid", "invalid"] {
        for entry in fs::read_dir(fixtures().join(kind)).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                found.insert(entry.path());
            }
        }
    }
    let stale: Vec<_> = found.difference(&expected).collect();
    if overwrite() {
        for path in &stale {
            fs::remove_file(path).unwrap();
        }
        return;
    }
    assert!(stale.is_empty(), "files of no case: {stale:?}");
    let missing: Vec<_> = expected.difference(&found).collect();
    assert!(missing.is_empty(), "missing: {missing:?}");
}
