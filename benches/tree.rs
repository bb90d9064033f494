#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! Publishing a tree of squads that has not changed, against asking the registry about each
//! squad, in the same run (ratios only; the machines are shared and noisy). A Debian
//! `docker-registry` is started on 127.0.0.1 with a temporary storage directory, and a tree of
//! 20 corpus packages is published to it once.
//!
//! - `squad publish TREE oci://…` of the 20, every one unchanged (each validated and packed,
//!   its version asked of the registry, nothing pushed), against 20 sequential
//!   `squad versions oci://…/<namespace>/<id>` (one process and one tag list per squad):
//!   goal at most 1.5x.
//!
//! Run with `SQUAD_CORPUS=<corpus folder> cargo bench --bench tree`. Needs `docker-registry` on
//! PATH; without `SQUAD_CORPUS` it stops and says so.

#[path = "support.rs"]
mod support;

use std::time::Duration;

use support::{median, ms, squad, start_registry};

const RUNS: usize = 11;
const PACKAGES: usize = 20;

fn main() {
    let corpus = support::corpus();
    let packages = support::corpus_packages(&corpus, PACKAGES);
    let scratch = tempfile::tempdir().unwrap();
    let (_registry, port) = start_registry(scratch.path());
    let base = format!("oci://127.0.0.1:{port}/squads");
    let tree = scratch.path().join("tree");
    for package in &packages {
        support::copy_tree(package, &tree.join(package.file_name().unwrap()));
    }
    let tree_arg = tree.to_str().unwrap().to_owned();
    let home = scratch.path().join("home");
    let (_, output) = squad(&["publish", &tree_arg, &base], &home);
    let references: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(references.len(), PACKAGES, "one pinned reference per squad");
    let repositories: Vec<String> = references
        .iter()
        .map(|reference| reference.split('@').next().unwrap().to_owned())
        .collect();

    let mut publish = Vec::new();
    let mut versions = Vec::new();
    // Interleaved, so that both see the same machine.
    for _ in 0..RUNS {
        let (elapsed, output) = squad(&["publish", &tree_arg, &base, "--format", "json"], &home);
        let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(document["summary"]["unchanged"], PACKAGES, "{document}");
        publish.push(elapsed);
        let total: Duration = repositories
            .iter()
            .map(|repository| squad(&["versions", repository], &home).0)
            .sum();
        versions.push(total);
    }
    let (publish, versions) = (median(publish), median(versions));
    println!("{PACKAGES} corpus squads, median of {RUNS} runs");
    println!(
        "publish of the unchanged tree: {}   {PACKAGES} `squad versions` calls: {}   publish/versions {:.2}x (goal <= 1.5x)",
        ms(publish),
        ms(versions),
        publish.as_secs_f64() / versions.as_secs_f64()
    );
}
