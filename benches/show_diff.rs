#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! `squad show` and `squad diff` against baselines taken in the same run (the machines are
//! shared and noisy, so only ratios are meaningful). `show` reads a squad exactly as an install
//! would (a private copy, validated) and then derives its capabilities; `diff` does that for two
//! squads and compares them. The baselines say what that reading costs beyond validation or
//! hashing of the same bytes.
//!
//! 1. The whole corpus (`SQUAD_CORPUS`; its 102 packages whose ids are not the runtime's built-in
//!    ones, which an install, and so `show`, refuses): one cold `squad show PKG` per package
//!    against one cold `squad validate PKG` per package, runs alternated; then in process,
//!    `project::direct::look` + `capability::of` of each against `package::validate` of each.
//!    Without `SQUAD_CORPUS` this part is skipped and says so.
//! 2. Two packages at the reference's import limits (just under 16 MiB in 500 files each; the newer
//!    one rewrites 50 of its files and grants `bash` to its agent): `squad diff OLD NEW` against
//!    `squad digest` of both (one process over the folder holding them) and `squad validate`
//!    of both, runs alternated.
//!
//! Run with `SQUAD_CORPUS=<corpus folder> cargo bench --bench show_diff`. Each figure is the
//! median of several runs. Scratch data goes to a temporary directory removed afterwards.

// Only some of the shared helpers are needed here.
#[allow(dead_code)]
#[path = "support.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use support::{median, ms};

const CORPUS_RUNS: usize = 5;
const IN_PROCESS_RUNS: usize = 9;
const DIFF_RUNS: usize = 9;

/// Runs squad with a private home and times it; exit 0 or 1 (a diff that widens) is success.
fn run(args: &[&str], home: &Path) -> Duration {
    support::time_quiet(
        Command::new(env!("CARGO_BIN_EXE_squad"))
            .args(args)
            .env("HOME", home)
            .env("OPENCORVUS_HOME", home.join("opencorvus"))
            .env("SQUAD_CACHE_DIR", home.join("cache")),
        1,
    )
}

/// Medians of each of `work`, run in turn `runs` times so that all see the same machine.
fn alternated(runs: usize, work: &mut [&mut dyn FnMut() -> Duration]) -> Vec<Duration> {
    let mut samples = vec![Vec::new(); work.len()];
    for _ in 0..runs {
        for (index, work) in work.iter_mut().enumerate() {
            samples[index].push(work());
        }
    }
    samples.into_iter().map(median).collect()
}

fn ratio(ours: Duration, baseline: Duration) -> String {
    format!("{:.2}×", ours.as_secs_f64() / baseline.as_secs_f64())
}

/// The corpus packages an install would take: all but the four whose ids are the runtime's
/// built-in ones (`show` reads a squad as an install does, and an install refuses those).
fn packages(corpus: &Path) -> Vec<PathBuf> {
    support::corpus_packages(corpus, 102)
}

/// A package at the import limits, as benches/digest_pack.rs writes it but filled to just under
/// the 16 MiB in all (LIM-2): 500 files (README, selector, manifest, prompt, skill and 494 skill
/// references of 33,950 bytes). With `newer`,
/// the next version: 50 references rewritten and `bash` granted to the agent.
fn package_at_limits(root: &Path, newer: bool) {
    let mut manifest = support::bulk_manifest();
    if newer {
        let worker = "\"prompt\": \"agents/worker/system.md\",\n        \"inherit_base_tools\": false, \"built_in_tool_ids\": []";
        assert!(
            manifest.contains(worker),
            "the fixture's agent is as expected"
        );
        manifest = manifest
            .replace(
                worker,
                &worker.replace(
                    "\"built_in_tool_ids\": []",
                    "\"built_in_tool_ids\": [\"bash\"]",
                ),
            )
            .replace("2026.08.20.1", "2026.08.20.2");
    }
    let seed = |index: u64| {
        if newer && index.is_multiple_of(10) {
            index + 1_000
        } else {
            index
        }
    };
    support::write_bulk_package(root, &manifest, 33_950, seed);
}

fn bytes_under(root: &Path) -> u64 {
    std::fs::read_dir(root)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                bytes_under(&entry.path())
            } else {
                entry.metadata().unwrap().len()
            }
        })
        .sum()
}

fn show_of_the_corpus(corpus: &Path, home: &Path) {
    let packages = packages(corpus);
    let args: Vec<&str> = packages.iter().map(|path| path.to_str().unwrap()).collect();

    // 1a. Cold processes, one per package.
    let medians = alternated(
        CORPUS_RUNS,
        &mut [
            &mut || {
                args.iter()
                    .map(|package| run(&["validate", package], home))
                    .sum()
            },
            &mut || {
                args.iter()
                    .map(|package| run(&["show", package], home))
                    .sum()
            },
        ],
    );
    let (validated, shown) = (medians[0], medians[1]);
    println!(
        "corpus, a cold process per package ({} packages): validate {}, show {}: show = {} validate",
        packages.len(),
        ms(validated),
        ms(shown),
        ratio(shown, validated)
    );

    // 1b. In process: the same reading without process start-up.
    let opencorvus = home.join("opencorvus");
    let medians = alternated(
        IN_PROCESS_RUNS,
        &mut [
            &mut || {
                let start = Instant::now();
                for package in &packages {
                    let report = squad::package::validate(package).unwrap();
                    assert!(report.is_valid());
                }
                start.elapsed()
            },
            &mut || {
                let start = Instant::now();
                for package in &args {
                    let acquired = squad::project::direct::look(&squad::project::direct::Look {
                        source: package,
                        sha256: None,
                        scopes: &[],
                        opencorvus_root: &opencorvus,
                        cache: None,
                        client: None,
                        transfers: &squad::share::Silent,
                    })
                    .unwrap();
                    let digest = acquired.package_digest().hex();
                    assert!(squad::capability::of(&acquired.ready.report, &digest).is_some());
                }
                start.elapsed()
            },
        ],
    );
    let (validated, shown) = (medians[0], medians[1]);
    println!(
        "corpus, in process: package::validate {}, look + capability::of {}: show = {} validate",
        ms(validated),
        ms(shown),
        ratio(shown, validated)
    );
}

fn diff_at_the_limits(dir: &Path, home: &Path) {
    let pair = dir.join("pair");
    let (old, new) = (pair.join("old"), pair.join("new"));
    package_at_limits(&old, false);
    package_at_limits(&new, true);
    let (old_arg, new_arg, pair_arg) = (
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        pair.to_str().unwrap(),
    );
    // The figures mean something only if the diff finds what was changed.
    let output = Command::new(env!("CARGO_BIN_EXE_squad"))
        .args(["diff", old_arg, new_arg, "--format", "json"])
        .env("HOME", home)
        .env("OPENCORVUS_HOME", home.join("opencorvus"))
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "the diff widens: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let changed = document["changed_paths"].as_array().map_or(0, Vec::len);
    assert!(changed >= 50, "{changed} paths changed");

    let medians = alternated(
        DIFF_RUNS,
        &mut [
            &mut || run(&["digest", pair_arg], home),
            &mut || run(&["validate", old_arg, new_arg], home),
            &mut || run(&["diff", old_arg, new_arg], home),
        ],
    );
    let (digested, validated, diffed) = (medians[0], medians[1], medians[2]);
    println!(
        "two packages at the import limits ({:.1} MiB and {:.1} MiB, 500 files each, {changed} paths changed): digest of both {}, validate of both {}, diff {}: diff = {} digest, {} validate",
        bytes_under(&old) as f64 / 1048576.0,
        bytes_under(&new) as f64 / 1048576.0,
        ms(digested),
        ms(validated),
        ms(diffed),
        ratio(diffed, digested),
        ratio(diffed, validated)
    );
}

fn main() {
    let scratch = tempfile::tempdir().expect("temporary directory");
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    match std::env::var_os("SQUAD_CORPUS").filter(|value| !value.is_empty()) {
        Some(_) => show_of_the_corpus(&support::corpus(), &home),
        None => println!(
            "SKIPPED show of the corpus: SQUAD_CORPUS is not set (the corpus folder, README.md \"Development\")"
        ),
    }
    diff_at_the_limits(scratch.path(), &home);
}
