#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! A project of 1,000 squads, all installed: a no-op `squad sync --locked` (goal: at most
//! 30 ms) and `squad list` (goal: at most 100 ms), each against the same command with the
//! install fingerprints moved away (every installed package hashed, as before
//! docs/fingerprints.md), and against `squad --version` (the process floor), in the same run.
//! Also the floor of the no-op's proof: every file and directory of the installed packages
//! looked at (`fstatat` relative to its package's directory, on two threads) and nothing else.
//!
//! The squads are copies of the corpus packages (`SQUAD_CORPUS`) given new ids
//! (`<id>-0000` … `<id>-0999`, the package's own references renamed with it), packed, and
//! declared from local archives in the project, so no registry is needed. Scratch data goes to
//! a temporary directory under `target/` (a real disk), removed afterwards.
//!
//! Run with `SQUAD_CORPUS=<corpus folder> cargo bench --bench thousand`; with
//! `SQUAD_BENCH_KEEP=<folder>` the project is made there and kept, for a profiler
//! (`perf record … squad sync --locked --project project`, run in `<folder>/home` with the
//! environment `support::squad` gives).

#[path = "support.rs"]
#[allow(dead_code)] // the registry is not needed here
mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use support::{median, ms, squad};

const SQUADS: usize = 1_000;
const RUNS: usize = 11;
const HASHED_RUNS: usize = 3;

/// The value of the first `"key": "…"` of a manifest's text.
fn string_field(text: &str, key: &str) -> String {
    let start = text.find(&format!("\"{key}\": \"")).unwrap() + key.len() + 5;
    text[start..start + text[start..].find('"').unwrap()].to_owned()
}

/// 1,000 renamed copies of the corpus, packed into `project/archives`, and the project's
/// `squads.jsonc` declaring every one.
fn make_project(corpus: &Path, scratch: &Path, home: &Path) {
    let packages = support::every_corpus_package(corpus);
    let tree = scratch.join("tree");
    let mut declared = Vec::new();
    for number in 0..SQUADS {
        let package = &packages[number % packages.len()];
        let manifest = std::fs::read_to_string(package.join("expert-squad.jsonc")).unwrap();
        let (namespace, id) = (
            string_field(&manifest, "namespace"),
            string_field(&manifest, "id"),
        );
        let new_id = format!("{id}-{number:04}");
        let copy = tree.join(&new_id);
        support::copy_tree(package, &copy);
        std::fs::write(
            copy.join("expert-squad.jsonc"),
            manifest
                .replacen(
                    &format!("\"id\": \"{id}\""),
                    &format!("\"id\": \"{new_id}\""),
                    1,
                )
                .replace(&format!("\"{id}/"), &format!("\"{new_id}/")),
        )
        .unwrap();
        declared.push((namespace, new_id));
    }
    let project = home.join("project");
    let archives = project.join("archives");
    squad(
        &["pack", tree.to_str().unwrap(), "-o", "project/archives/"],
        home,
    );
    let names: Vec<String> = std::fs::read_dir(&archives)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let entries: Vec<String> = declared
        .iter()
        .map(|(namespace, id)| {
            let archive = names
                .iter()
                .find(|name| name.starts_with(&format!("{id}-2")))
                .unwrap();
            format!("\"{namespace}/{id}\": {{ \"source\": \"archives/{archive}\" }}")
        })
        .collect();
    std::fs::create_dir_all(project.join(".opencorvus")).unwrap();
    std::fs::write(
        project.join(".opencorvus/squads.jsonc"),
        format!(
            "{{\n  \"squads\": {{\n    {}\n  }}\n}}\n",
            entries.join(",\n    ")
        ),
    )
    .unwrap();
}

fn timed(args: &[&str], home: &Path, runs: usize) -> Duration {
    median((0..runs).map(|_| squad(args, home).0).collect())
}

/// Moves every install fingerprint from `from` to `to`.
fn move_fingerprints(from: &Path, to: &Path) -> usize {
    std::fs::create_dir_all(to).unwrap();
    let mut moved = 0;
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "fingerprint") {
            std::fs::rename(&path, to.join(path.file_name().unwrap())).unwrap();
            moved += 1;
        }
    }
    moved
}

/// Every entry below each installed package of `scope` (`<namespace>/<id>/…`), relative to it.
fn installed_entries(scope: &Path) -> Vec<(PathBuf, Vec<PathBuf>)> {
    let mut packages = Vec::new();
    for namespace in std::fs::read_dir(scope).unwrap() {
        let namespace = namespace.unwrap().path();
        if !namespace.is_dir() {
            continue;
        }
        for package in std::fs::read_dir(&namespace).unwrap() {
            let package = package.unwrap().path();
            if !package.is_dir() {
                continue;
            }
            let entries = walkdir::WalkDir::new(&package)
                .min_depth(1)
                .into_iter()
                .map(|entry| {
                    let entry = entry.unwrap();
                    entry.path().strip_prefix(&package).unwrap().to_path_buf()
                })
                .collect();
            packages.push((package, entries));
        }
    }
    packages
}

/// The time to look at every entry of `packages` once, on two threads: each package's
/// directory opened, each entry `fstatat` from it.
fn stat_all(packages: &[(PathBuf, Vec<PathBuf>)]) -> Duration {
    let look = |part: &[(PathBuf, Vec<PathBuf>)]| {
        for (package, entries) in part {
            let directory = std::fs::File::open(package).unwrap();
            for entry in entries {
                rustix::fs::statat(&directory, entry, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                    .unwrap();
            }
        }
    };
    let start = std::time::Instant::now();
    let (first, second) = packages.split_at(packages.len() / 2);
    std::thread::scope(|scope| {
        scope.spawn(|| look(first));
        look(second);
    });
    start.elapsed()
}

fn main() {
    let corpus = support::corpus();
    let target = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target).unwrap();
    let scratch = tempfile::tempdir_in(&target).unwrap();
    // SQUAD_BENCH_KEEP=<folder> keeps the project there for a profiler (`perf record`).
    let scratch_path = std::env::var_os("SQUAD_BENCH_KEEP")
        .map(PathBuf::from)
        .unwrap_or_else(|| scratch.path().to_owned());
    let home = scratch_path.join("home");
    make_project(&corpus, &scratch_path, &home);
    let (cold, output) = squad(&["sync", "--project", "project"], &home);
    let summary = String::from_utf8_lossy(&output.stderr);
    assert!(
        summary.contains(&format!("{SQUADS} installed")),
        "{summary}"
    );
    let receipts = home.join("opencorvus/data/squad-receipts");
    let sync = ["sync", "--locked", "--project", "project"];
    let list = ["list", "--project", "project"];
    let floor = timed(&["--version"], &home, RUNS);
    let noop = timed(&sync, &home, RUNS);
    let listed = timed(&list, &home, RUNS);
    let aside = scratch_path.join("fingerprints");
    let moved = move_fingerprints(&receipts, &aside);
    assert_eq!(moved, SQUADS, "every install wrote a fingerprint");
    let noop_hashed = timed(&sync, &home, HASHED_RUNS);
    let listed_hashed = timed(&list, &home, HASHED_RUNS);
    move_fingerprints(&aside, &receipts);
    // Interleaved once more, so a slow moment of the machine does not favour one side.
    let noop = noop.min(timed(&sync, &home, RUNS));
    let listed = listed.min(timed(&list, &home, RUNS));

    let packages = installed_entries(&home.join("project/.opencorvus/expert-squads"));
    assert_eq!(packages.len(), SQUADS);
    let entries: usize = packages.iter().map(|(_, entries)| entries.len()).sum();
    let proof = median((0..RUNS).map(|_| stat_all(&packages)).collect());

    println!("{SQUADS} squads from local archives (corpus copies with new ids), medians");
    println!("cold `squad sync` of the {SQUADS}: {}", ms(cold));
    println!("`squad --version` (the process floor): {}", ms(floor));
    for (what, ours, hashed, goal) in [
        ("no-op `squad sync --locked`", noop, noop_hashed, 30.0),
        ("`squad list`", listed, listed_hashed, 100.0),
    ] {
        println!(
            "{what}: {} (goal <= {goal} ms: {}); every package hashed: {} -> {:.2}x of it; {:.1}x the process floor",
            ms(ours),
            if ours.as_secs_f64() * 1000.0 <= goal {
                "met"
            } else {
                "NOT met"
            },
            ms(hashed),
            ours.as_secs_f64() / hashed.as_secs_f64(),
            ours.as_secs_f64() / floor.as_secs_f64()
        );
    }
    println!(
        "the proof's floor: {entries} installed files and directories looked at, on two threads: {}; with the process floor {}; the no-op is {:.2}x that",
        ms(proof),
        ms(proof + floor),
        noop.as_secs_f64() / (proof + floor).as_secs_f64()
    );
}
