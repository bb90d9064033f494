#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! The audit's cost, against validation of the same packages in the same run (the machines are
//! shared and noisy, so only ratios are meaningful). An audit is a validation, then the
//! capability report and the audit's rules over what validation kept; the goal is that it costs
//! at most half a validation again (audit ≤ 1.5 × validate).
//!
//! 1. The whole corpus (`SQUAD_CORPUS`, 106 packages of prompts and skills, 4.8 MB), one cold
//!    process each: `squad audit` of the corpus folder against `squad validate` of it, runs
//!    alternated so that both see the same machine.
//! 2. In process, the same packages: `package::validate` of each against `audit::audit_path`
//!    of each, and the audit alone (`capability::of` and `audit::run` over reports already
//!    made), with the bytes of prompt text it read.
//! 3. A package with a tool that uses every global the audit looks for, in process: validation
//!    against the audit.
//!
//! Run with `SQUAD_CORPUS=<corpus folder> cargo bench --bench audit`; without `SQUAD_CORPUS`
//! it stops and says so. Each figure is the median of several runs.

// Only some of the shared helpers are needed here.
#[allow(dead_code)]
#[path = "support.rs"]
mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use support::{median, ms};

const RUNS: usize = 15;

fn run(args: &[&str]) -> Duration {
    support::time_quiet(Command::new(env!("CARGO_BIN_EXE_squad")).args(args), 1)
}

/// Medians of `validate` and `audit`, each run alternating with the other.
fn alternated(
    mut validate: impl FnMut() -> Duration,
    mut audit: impl FnMut() -> Duration,
) -> (Duration, Duration) {
    let mut validated = Vec::new();
    let mut audited = Vec::new();
    for _ in 0..RUNS {
        validated.push(validate());
        audited.push(audit());
    }
    (median(validated), median(audited))
}

fn ratio(audit: Duration, validate: Duration) -> String {
    format!("{:.2}×", audit.as_secs_f64() / validate.as_secs_f64())
}

fn packages(corpus: &Path) -> Vec<PathBuf> {
    let mut packages: Vec<PathBuf> = std::fs::read_dir(corpus)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("expert-squad.jsonc").is_file())
        .collect();
    packages.sort();
    assert_eq!(packages.len(), 106, "the corpus has 106 packages");
    packages
}

/// A copy of the fixture `release-review` whose tool uses what the tool rules look for.
fn tool_package(dir: &Path) -> PathBuf {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("registry-fixtures/valid/release-review");
    let package = dir.join("release-review");
    for entry in walk(&fixture) {
        let target = package.join(entry.strip_prefix(&fixture).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &target).unwrap();
    }
    let tool = package.join("tools/summarize-changes.ts");
    let text = std::fs::read_to_string(&tool).unwrap();
    let body = "{ const r = await fetch(\"https://x.example\"); Bun.spawn([\"ls\"]); const e = process.env.HOME; const b = Bun; b.write(\"x\", \"y\"); }\n";
    let lines: String = (0..500).map(|_| format!("    {body}")).collect();
    let text = text.replace(
        "  async execute(args: { changes: string[] }) {\n",
        &format!("  async execute(args: {{ changes: string[] }}) {{\n{lines}"),
    );
    std::fs::write(&tool, text).unwrap();
    package
}

fn walk(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

fn main() {
    let corpus = support::corpus();
    let corpus_arg = corpus.to_str().unwrap();

    // 1. Cold processes over the whole corpus.
    let (validated, audited) = alternated(
        || run(&["validate", corpus_arg]),
        || run(&["audit", corpus_arg]),
    );
    println!(
        "corpus, cold process: validate {}, audit {}: audit = {} validate (goal ≤ 1.50×)",
        ms(validated),
        ms(audited),
        ratio(audited, validated)
    );

    // 2. In process, the same packages.
    let packages = packages(&corpus);
    let (validated, audited) = alternated(
        || {
            let start = Instant::now();
            for package in &packages {
                let report = squad::package::validate(package).unwrap();
                assert!(report.is_valid());
            }
            start.elapsed()
        },
        || {
            let start = Instant::now();
            for package in &packages {
                let audited = squad::audit::audit_path(package).unwrap();
                assert!(audited.findings.is_empty());
            }
            start.elapsed()
        },
    );
    let reports: Vec<_> = packages
        .iter()
        .map(|package| squad::package::validate(package).unwrap())
        .collect();
    let text: usize = reports
        .iter()
        .flat_map(|report| report.sources.values())
        .map(|source| source.text.len())
        .sum();
    let alone = median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                for report in &reports {
                    let capabilities = squad::capability::of(report, "").unwrap();
                    assert!(squad::audit::run(report, &capabilities).is_empty());
                }
                start.elapsed()
            })
            .collect(),
    );
    println!(
        "corpus, in process: validate {}, audit {}: audit = {} validate; the audit alone {} over {:.1} MB of text ({:.0} MB/s)",
        ms(validated),
        ms(audited),
        ratio(audited, validated),
        ms(alone),
        text as f64 / 1e6,
        text as f64 / 1e6 / alone.as_secs_f64()
    );

    // 3. A tool full of what the tool rules look for.
    let dir = tempfile::tempdir().unwrap();
    let package = tool_package(dir.path());
    let (validated, audited) = alternated(
        || {
            let start = Instant::now();
            let report = squad::package::validate(&package).unwrap();
            assert!(report.is_valid(), "{:?}", report.diagnostics);
            start.elapsed()
        },
        || {
            let start = Instant::now();
            let audited = squad::audit::audit_path(&package).unwrap();
            assert!(audited.findings.len() >= 4, "{:?}", audited.findings);
            start.elapsed()
        },
    );
    println!(
        "a tool of 500 lines using fetch, Bun.spawn, Bun.write and process.env: validate {}, audit {}: audit = {} validate",
        ms(validated),
        ms(audited),
        ratio(audited, validated)
    );
}
