//! `rust-version` in Cargo.toml is true. Three things set the real minimum: the language features
//! the code uses (let chains, edition 2024: 1.88), the standard library APIs it calls (held to
//! `rust-version` by clippy's `incompatible_msrv` lint in `.ci/run`, which reads the same field),
//! and the dependencies' own `rust-version`, checked here.

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
