#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! Start-up against its floor, in the same run (ratios only; the machines are shared and
//! noisy): `squad --version` and `squad validate` of the smallest fixture package against a
//! hello world built here with `rustc -O` (goal: `--version` at most 1.2x), runs alternating,
//! medians of many.
//!
//! Run with `cargo bench --bench startup`. Needs `rustc` on PATH (cargo's own).

#[path = "support.rs"]
#[allow(dead_code)] // neither the registry nor the corpus is needed here
mod support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use support::median;

fn ms(duration: Duration) -> String {
    format!("{:.3} ms", duration.as_secs_f64() * 1000.0)
}

const RUNS: usize = 201;

fn run(program: &Path, args: &[&str]) -> Duration {
    support::time_quiet(Command::new(program).args(args), 0)
}

fn main() {
    let scratch = tempfile::tempdir().unwrap();
    let source = scratch.path().join("hello.rs");
    std::fs::write(&source, "fn main() { println!(\"hello\"); }\n").unwrap();
    let hello = scratch.path().join("hello");
    let status = Command::new("rustc")
        .args(["-O", "-o"])
        .arg(&hello)
        .arg(&source)
        .status()
        .expect("rustc runs");
    assert!(status.success());
    let squad = Path::new(env!("CARGO_BIN_EXE_squad"));
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("registry-fixtures/valid/minimal");
    let package = package.to_str().unwrap();
    let (mut floor, mut version, mut validate) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        floor.push(run(&hello, &[]));
        version.push(run(squad, &["--version"]));
        validate.push(run(squad, &["validate", package]));
    }
    let (floor, version, validate) = (median(floor), median(version), median(validate));
    println!("median of {RUNS} runs each, alternating");
    println!(
        "`squad --version`: {}   hello world (rustc -O): {}   {:.2}x (goal <= 1.2x)",
        ms(version),
        ms(floor),
        version.as_secs_f64() / floor.as_secs_f64()
    );
    println!(
        "`squad validate` of registry-fixtures/valid/minimal: {}   {:.2}x the hello world",
        ms(validate),
        validate.as_secs_f64() / floor.as_secs_f64()
    );
}
