//! The dependencies are what Cargo.toml and deny.toml say.
//!
//! `rust-version` in Cargo.toml is true. Three things set the real minimum: the language
//! features the code uses (let chains, edition 2024: 1.88), the standard library APIs it calls
//! (held to `rust-version` by clippy's `incompatible_msrv` lint in `.ci/run`, which reads the
//! same field), and the dependencies' own `rust-version`, checked here. deny.toml's licences,
//! bans and sources are checked here too, against the lock file.

use std::path::PathBuf;
use std::process::Command;

use crate::support::{repo, text};

/// `1.88` or `1.87.0` as (major, minor, patch).
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|part| part.parse::<u64>().unwrap());
    let mut next = || parts.next().unwrap_or(0);
    (next(), next(), next())
}

#[test]
fn no_dependency_needs_a_newer_rust_than_rust_version() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(repo())
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let ours = packages
        .iter()
        .find(|package| package["name"] == "squad")
        .and_then(|package| package["rust_version"].as_str())
        .expect("Cargo.toml declares rust-version");
    let mut newer: Vec<String> = Vec::new();
    let mut declared = 0;
    for package in packages.iter().filter(|package| package["name"] != "squad") {
        let Some(needs) = package["rust_version"].as_str() else {
            continue;
        };
        declared += 1;
        if version(needs) > version(ours) {
            newer.push(format!(
                "{} {} needs {needs}",
                package["name"], package["version"]
            ));
        }
    }
    assert!(
        newer.is_empty(),
        "rust-version is {ours}, but {}",
        newer.join(", ")
    );
    assert!(
        declared >= 50,
        "only {declared} packages declare a rust-version"
    );
}

/// An SPDX licence expression (`A OR (B AND C)`, `X WITH exception`, and the old `A/B`)
/// satisfied by the `allowed` licences.
fn licence_allowed(expression: &str, allowed: &[String]) -> bool {
    let spaced = expression
        .replace('/', " OR ")
        .replace('(', " ( ")
        .replace(')', " ) ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut at = 0;
    let value = any_of(&tokens, &mut at, allowed);
    assert_eq!(
        at,
        tokens.len(),
        "cannot read the licence expression `{expression}`"
    );
    value
}

fn any_of(tokens: &[&str], at: &mut usize, allowed: &[String]) -> bool {
    let mut value = all_of(tokens, at, allowed);
    while tokens.get(*at) == Some(&"OR") {
        *at += 1;
        value |= all_of(tokens, at, allowed);
    }
    value
}

fn all_of(tokens: &[&str], at: &mut usize, allowed: &[String]) -> bool {
    let mut value = one(tokens, at, allowed);
    while tokens.get(*at) == Some(&"AND") {
        *at += 1;
        value &= one(tokens, at, allowed);
    }
    value
}

fn one(tokens: &[&str], at: &mut usize, allowed: &[String]) -> bool {
    let token = tokens[*at];
    *at += 1;
    if token == "(" {
        let value = any_of(tokens, at, allowed);
        assert_eq!(tokens.get(*at), Some(&")"), "unbalanced licence expression");
        *at += 1;
        return value;
    }
    let mut licence = token.to_owned();
    if tokens.get(*at) == Some(&"WITH") {
        licence = format!("{licence} WITH {}", tokens[*at + 1]);
        *at += 2;
    }
    allowed.contains(&licence)
}

#[test]
fn the_licence_expression_reader_follows_spdx() {
    let allowed = vec![
        "MIT".to_owned(),
        "Apache-2.0 WITH LLVM-exception".to_owned(),
    ];
    assert!(licence_allowed("MIT OR Apache-2.0", &allowed));
    assert!(licence_allowed("Apache-2.0/MIT", &allowed));
    assert!(!licence_allowed("Apache-2.0", &allowed));
    assert!(!licence_allowed(
        "(MIT OR Apache-2.0) AND Unicode-3.0",
        &allowed
    ));
    assert!(licence_allowed(
        "Apache-2.0 WITH LLVM-exception OR BSL-1.0",
        &allowed
    ));
    assert!(!licence_allowed("GPL-2.0-only AND MIT", &allowed));
}

/// deny.toml's licences, bans and sources, applied to every package of the lock file (the
/// part of `cargo deny check` that needs no network; deny.toml says why CI does it this way).
#[test]
fn every_dependency_meets_deny_toml() {
    let policy: toml::Table =
        toml::from_str(&std::fs::read_to_string(repo().join("deny.toml")).unwrap()).unwrap();
    let strings = |value: &toml::Value| -> Vec<String> {
        value
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item.as_str().unwrap().to_owned())
            .collect()
    };
    let allowed = strings(&policy["licenses"]["allow"]);
    let registries = strings(&policy["sources"]["allow-registry"]);
    let banned: Vec<String> = policy["bans"]["deny"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ban| ban["name"].as_str().unwrap().to_owned())
        .collect();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(repo())
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut problems = Vec::new();
    let mut checked = 0;
    for package in metadata["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        let version = package["version"].as_str().unwrap();
        if name == "squad" {
            continue;
        }
        checked += 1;
        match package["license"].as_str() {
            Some(licence) if licence_allowed(licence, &allowed) => {}
            licence => problems.push(format!("{name} {version}: licence {licence:?}")),
        }
        if banned.iter().any(|ban| ban == name) {
            problems.push(format!("{name} {version}: banned in deny.toml"));
        }
        match package["source"].as_str() {
            Some(source)
                if registries
                    .iter()
                    .any(|registry| source == format!("registry+{registry}")) => {}
            source => problems.push(format!("{name} {version}: source {source:?}")),
        }
    }
    let manifest: toml::Table =
        toml::from_str(&std::fs::read_to_string(repo().join("Cargo.toml")).unwrap()).unwrap();
    for table in ["dependencies", "dev-dependencies", "build-dependencies"] {
        for (name, requirement) in manifest
            .get(table)
            .and_then(|t| t.as_table())
            .into_iter()
            .flatten()
        {
            let version = requirement
                .as_str()
                .or_else(|| requirement.get("version").and_then(|v| v.as_str()));
            if version.is_none_or(|version| version.trim() == "*") {
                problems.push(format!("{table}.{name} has no version, or `*`"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "deny.toml is not met:\n{}",
        problems.join("\n")
    );
    assert!(checked >= 200, "only {checked} packages in the lock");
}

/// `.ci/run` runs again, without the data, only the tests that recorded reading it through
/// `support::External`: that is honest only while no other test (or the code) can reach the data
/// another way, by a variable or by the `../shared` folder CI keeps beside the repository.
#[test]
fn only_the_support_module_reaches_for_the_data() {
    let needles = [
        "SQUAD_CORPUS",
        "SQUAD_SEEDS",
        "SQUAD_SHARED",
        "shared/corpus",
        "shared/seeds",
    ];
    let allowed = [
        repo().join("tests/it/support.rs"),
        repo().join("tests/it/toolchain.rs"),
    ];
    let mut seen = 0;
    let mut offenders = Vec::new();
    for path in files_below(&[repo().join("src"), repo().join("tests")]) {
        let Ok(content) = std::fs::read_to_string(&path) else {
            continue; // not text: a fixture's binary asset
        };
        seen += 1;
        if allowed.contains(&path) {
            continue;
        }
        for needle in needles {
            if content.contains(needle) {
                offenders.push(format!("{} names {needle}", path.display()));
            }
        }
    }
    assert!(seen > 200, "only {seen} text files under src/ and tests/");
    assert!(
        offenders.is_empty(),
        "read the data through tests/it/support.rs's External, so that .ci/run knows the test \
         reads it:\n{}",
        offenders.join("\n")
    );
}

/// Every file below `folders`, at any depth.
fn files_below(folders: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = folders.to_vec();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// Every Debian package a test requires (`oci_support::require(program, package)`) is one that
/// `.ci/run` installs and that README.md names under its two commands.
#[test]
fn every_tool_a_test_requires_is_installed_by_ci_and_named_in_the_readme() {
    let ci = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    let packages_block = ci
        .split("PACKAGES=(")
        .nth(1)
        .and_then(|rest| rest.split("\n)").next())
        .expect(".ci/run lists PACKAGES=( ... )");
    let installed: Vec<&str> = packages_block
        .lines()
        .flat_map(|line| line.split('#').next().unwrap_or("").split_whitespace())
        .collect();
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let opening: String = readme.lines().take(16).collect::<Vec<_>>().join("\n");
    let mut required = std::collections::BTreeSet::new();
    for path in files_below(&[repo().join("tests/it")]) {
        if path.ends_with("toolchain.rs") {
            continue; // this test's own words
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for call in text.split("require(\"").skip(1) {
            // require("program", "package")
            let mut quoted = call.split('"');
            let (Some(_program), Some(comma), Some(package)) =
                (quoted.next(), quoted.next(), quoted.next())
            else {
                continue;
            };
            if comma.trim() == "," {
                required.insert(package.to_owned());
            }
        }
    }
    // The LSP client's virtual environment (scripts/lsp-test-env).
    required.insert("python3-venv".to_owned());
    assert!(required.len() >= 7, "only {required:?} found required");
    for package in &required {
        assert!(
            installed.contains(&package.as_str()),
            ".ci/run does not install {package}: {installed:?}"
        );
        assert!(
            opening.contains(&format!("`{package}`")),
            "README.md's opening does not name {package}"
        );
    }
}
