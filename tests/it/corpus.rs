//! TV-C: every real package of the shared corpus validates with no error, and with no warning
//! but the one that marks the four embedded built-in packages.

use crate::support::{corpus, pinned};

#[test]
fn every_corpus_package_is_valid() {
    let Some(root) = corpus() else { return };
    let mut packages: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    packages.sort();
    assert!(
        packages.len() >= 100,
        "only {} corpus packages",
        packages.len()
    );
    let mut failures = Vec::new();
    for package in &packages {
        let name = package.file_name().unwrap().to_string_lossy().into_owned();
        let builtin = ["base", "advanced", "research-studio", "squad-sdk"].contains(&name.as_str());
        for diagnostic in pinned(package) {
            let allowed = diagnostic.code == "builtin-id-collision" && builtin;
            if diagnostic.severity != "note" && !allowed {
                failures.push(format!("{name}: {diagnostic:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
