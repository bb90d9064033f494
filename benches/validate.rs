#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! Validation speed, measured against baselines taken in the same run (the machines are shared
//! and noisy, so only ratios are meaningful):
//!
//! 1. the whole corpus of real packages (`SQUAD_CORPUS`; skipped, and said, when unset) in one
//!    cold `squad validate` process, against one `cat` process reading the same files;
//! 2. one package, cold, against `cat` of that package;
//! 3. the fixture packages that hold package tools (every tool and lib file parsed), in one
//!    cold process, against `cat` of the same files;
//! 4. start-up: `squad --version`, and the size of the binary;
//! 5. a synthetic manifest of N agents and N workflow nodes (N = 1,000 and 5,000), in process,
//!    to show growth is linear;
//! 6. a one-line manifest with 8,000 unknown keys (about 100 KB, 8,000 diagnostics on one line),
//!    time and peak memory, against the same manifest without them (goal: under 0.5 s and
//!    100 MB). Peak memory is measured by GNU time (`/usr/bin/time`, Debian package `time`).
//!
//! Run with `cargo bench --bench validate`. Each figure is the median of several runs.
//! `SQUAD_BIN=path` measures another build of squad (for example one of main) instead of this
//! one; `SQUAD_BASELINE=path` times that other build beside this one on 1, 3 and 4, in the same
//! run, for before/after figures.

#[allow(dead_code)] // the registry helpers are for other benchmarks
mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 15;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time_command(program: &str, args: &[String]) -> Duration {
    median(
        (0..RUNS)
            .map(|_| support::time_quiet(Command::new(program).args(args), 1))
            .collect(),
    )
}

fn files_under(root: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path.to_string_lossy().into_owned());
        }
    }
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn time_synthetic(text: &str) -> Duration {
    median(
        (0..5)
            .map(|_| {
                let start = Instant::now();
                let mut diagnostics = squad::diag::Diagnostics::default();
                let manifest = squad::manifest::check(text, &mut diagnostics);
                let elapsed = start.elapsed();
                assert!(
                    manifest.is_some() && !diagnostics.has_errors(),
                    "synthetic manifest is valid"
                );
                elapsed
            })
            .collect(),
    )
}

/// Writes a package around a synthetic manifest and times a cold `squad validate` of it.
fn time_package(squad_bin: &str, manifest: &str) -> Duration {
    let dir = std::env::temp_dir().join(format!(
        "squad-bench-{}-{}",
        std::process::id(),
        manifest.len()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("expert-squad.jsonc"), manifest).unwrap();
    std::fs::write(dir.join("README.md"), "# Big\n").unwrap();
    std::fs::write(dir.join("selector.md"), "Pick it.\n").unwrap();
    let elapsed = time_command(
        squad_bin,
        &[
            "validate".to_owned(),
            "--quiet".to_owned(),
            dir.to_string_lossy().into_owned(),
        ],
    );
    let output = Command::new(squad_bin)
        .args(["validate", "--quiet"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
    elapsed
}

/// The median wall time and the largest peak RSS of `runs` runs of a command, measured by GNU
/// time.
fn time_and_memory(program: &str, args: &[String], runs: usize) -> (Duration, u64) {
    let time = Path::new("/usr/bin/time");
    assert!(
        time.exists(),
        "peak memory is measured with GNU time: install /usr/bin/time (Debian package `time`)"
    );
    let report = std::env::temp_dir().join(format!("squad-bench-rss-{}", std::process::id()));
    let mut peak = 0;
    let mut samples = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let status = Command::new(time)
            .args(["-f", "%M", "-o"])
            .arg(&report)
            .arg(program)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("GNU time runs");
        samples.push(start.elapsed());
        assert!(
            status.code().is_some_and(|code| code <= 1),
            "{program} failed"
        );
        let text = std::fs::read_to_string(&report).unwrap();
        let kilobytes: u64 = text
            .lines()
            .last()
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or_else(|| panic!("no peak memory from GNU time: {text}"));
        peak = peak.max(kilobytes);
    }
    let _ = std::fs::remove_file(&report);
    (median(samples), peak)
}

/// A package whose manifest is `registry-fixtures/valid/minimal`'s on one line, followed by
/// `unknown` unknown top-level keys; returns its folder, to be removed by the caller.
fn one_line_package(unknown: usize) -> PathBuf {
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("registry-fixtures/valid/minimal");
    let dir = std::env::temp_dir().join(format!(
        "squad-bench-one-line-{}-{unknown}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let mut files = Vec::new();
    files_under(&fixture, &mut files);
    for file in files {
        let target = dir.join(Path::new(&file).strip_prefix(&fixture).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&file, target).unwrap();
    }
    let manifest = std::fs::read_to_string(fixture.join("expert-squad.jsonc")).unwrap();
    let mut manifest = manifest.replace('\n', " ").trim_end().to_owned();
    assert_eq!(manifest.pop(), Some('}'));
    for index in 0..unknown {
        manifest.push_str(&format!(",\"x{index:05}\":0"));
    }
    manifest.push('}');
    std::fs::write(dir.join("expert-squad.jsonc"), manifest).unwrap();
    dir
}

/// The corpus of real packages, from `SQUAD_CORPUS` (README.md, "Development"); relative
/// paths are taken from the repository root.
fn corpus() -> Option<PathBuf> {
    let path = std::env::var_os("SQUAD_CORPUS").filter(|value| !value.is_empty())?;
    Some(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
}

/// The fixture packages that hold package tools, and every file under them.
fn tool_packages() -> (Vec<String>, Vec<String>) {
    let valid = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("registry-fixtures/valid");
    let mut packages: Vec<PathBuf> = std::fs::read_dir(&valid)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("tools").is_dir())
        .collect();
    packages.sort();
    let mut files = Vec::new();
    for package in &packages {
        files_under(package, &mut files);
    }
    let packages = packages
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    (packages, files)
}

/// `squad` binaries to time: the one measured, and `SQUAD_BASELINE` if set.
fn binaries(squad_bin: &str) -> Vec<(&'static str, String)> {
    let mut list = vec![("squad", squad_bin.to_owned())];
    if let Ok(baseline) = std::env::var("SQUAD_BASELINE") {
        list.push(("baseline", baseline));
    }
    list
}

fn main() {
    let own_bin = env!("CARGO_BIN_EXE_squad").to_owned();
    let squad_bin = std::env::var("SQUAD_BIN").unwrap_or(own_bin);
    let squad_bin = squad_bin.as_str();
    println!("measuring {squad_bin}");
    match corpus() {
        Some(corpus) => corpus_figures(squad_bin, &corpus),
        None => println!(
            "corpus: skipped (set SQUAD_CORPUS to the OpenCorvus corpus folder for the corpus figures)"
        ),
    }
    tool_figures(squad_bin);
    synthetic_figures(squad_bin);
}

/// Parts 3 and 4: the fixture packages with tools, start-up and binary size.
fn tool_figures(squad_bin: &str) {
    let (tool_packages, tool_files) = tool_packages();
    let mut tool_args = vec!["validate".to_owned(), "--quiet".to_owned()];
    tool_args.extend(tool_packages.iter().cloned());
    println!(
        "fixture packages with tools: {} packages, {} files",
        tool_packages.len(),
        tool_files.len()
    );
    for (name, binary) in binaries(squad_bin) {
        let squad_tools = time_command(&binary, &tool_args);
        let cat_tools = time_command("cat", &tool_files);
        println!(
            "  {name} validate (one cold process): {}   cat of the same files: {}   ratio {:.2}x",
            ms(squad_tools),
            ms(cat_tools),
            squad_tools.as_secs_f64() / cat_tools.as_secs_f64()
        );
    }

    for (name, binary) in binaries(squad_bin) {
        let version = time_command(&binary, &["--version".to_owned()]);
        let size = std::fs::metadata(&binary).unwrap().len();
        println!(
            "start-up: {name} --version {}   binary {:.2} MB",
            ms(version),
            size as f64 / 1e6
        );
    }
}

/// Parts 1 and 2, and the JSONC parser over every corpus manifest.
fn corpus_figures(squad_bin: &str, corpus: &Path) {
    let mut packages: Vec<PathBuf> = std::fs::read_dir(corpus)
        .unwrap_or_else(|error| panic!("SQUAD_CORPUS {}: {error}", corpus.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    packages.sort();
    let mut all_files = Vec::new();
    files_under(corpus, &mut all_files);
    let bytes: u64 = all_files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();

    let mut validate_args = vec!["validate".to_owned(), "--quiet".to_owned()];
    validate_args.extend(packages.iter().map(|p| p.to_string_lossy().into_owned()));
    println!(
        "corpus: {} packages, {} files, {:.1} MB",
        packages.len(),
        all_files.len(),
        bytes as f64 / 1e6
    );
    for (name, binary) in binaries(squad_bin) {
        let squad_all = time_command(&binary, &validate_args);
        let cat_all = time_command("cat", &all_files);
        println!(
            "  {name} validate (one cold process): {}   cat of the same files: {}   ratio {:.2}x",
            ms(squad_all),
            ms(cat_all),
            squad_all.as_secs_f64() / cat_all.as_secs_f64()
        );
    }

    let one = corpus.join("actuarial-reserving");
    let mut one_files = Vec::new();
    files_under(&one, &mut one_files);
    let squad_one = time_command(
        squad_bin,
        &[
            "validate".to_owned(),
            "--quiet".to_owned(),
            one.to_string_lossy().into_owned(),
        ],
    );
    let cat_one = time_command("cat", &one_files);
    println!(
        "one package ({} files): squad validate {}   cat {}   ratio {:.2}x",
        one_files.len(),
        ms(squad_one),
        ms(cat_one),
        squad_one.as_secs_f64() / cat_one.as_secs_f64()
    );

    // The JSONC parser alone, over every corpus manifest (in memory, repeated).
    let manifests: Vec<String> = packages
        .iter()
        .map(|package| std::fs::read_to_string(package.join("expert-squad.jsonc")).unwrap())
        .collect();
    let total: usize = manifests.iter().map(String::len).sum();
    let parse = median(
        (0..15)
            .map(|_| {
                let start = Instant::now();
                for _ in 0..20 {
                    for manifest in &manifests {
                        assert!(squad::jsonc::parse(manifest).is_ok());
                    }
                }
                start.elapsed() / 20
            })
            .collect(),
    );
    println!(
        "JSONC parse of the {} corpus manifests ({:.2} MB): {}   {:.0} MB/s",
        manifests.len(),
        total as f64 / 1e6,
        ms(parse),
        total as f64 / 1e6 / parse.as_secs_f64()
    );
}

/// Parts 5 and 6: growth with the size of the manifest; and a one-line manifest full of unknown keys.
fn synthetic_figures(squad_bin: &str) {
    let small = support::synthetic_manifest(1000);
    let large = support::synthetic_manifest(5000);
    let (t_small, t_large) = (time_synthetic(&small), time_synthetic(&large));
    let (p_small, p_large) = (
        time_package(squad_bin, &small),
        time_package(squad_bin, &large),
    );
    println!(
        "synthetic package through `squad validate`: 1,000 {}   5,000 {}   growth {:.2}x for 5x the input",
        ms(p_small),
        ms(p_large),
        p_large.as_secs_f64() / p_small.as_secs_f64()
    );
    println!(
        "synthetic manifest: 1,000 agents+nodes ({:.1} MB) {}   5,000 ({:.1} MB) {}   growth {:.2}x for 5x the input",
        small.len() as f64 / 1e6,
        ms(t_small),
        large.len() as f64 / 1e6,
        ms(t_large),
        t_large.as_secs_f64() / t_small.as_secs_f64()
    );

    let invalid = one_line_package(8000);
    let valid = one_line_package(0);
    let manifest_bytes = std::fs::metadata(invalid.join("expert-squad.jsonc"))
        .unwrap()
        .len();
    let validate = |dir: &Path| vec!["validate".to_owned(), dir.to_string_lossy().into_owned()];
    let (t_invalid, rss_invalid) = time_and_memory(squad_bin, &validate(&invalid), 7);
    let (t_valid, rss_valid) = time_and_memory(squad_bin, &validate(&valid), 7);
    println!(
        "one-line manifest, 8,000 unknown keys ({:.0} KB): squad validate {} and {:.1} MB peak   \
         without them {} and {:.1} MB   ratio {:.2}x time, {:.2}x memory",
        manifest_bytes as f64 / 1e3,
        ms(t_invalid),
        rss_invalid as f64 / 1024.0,
        ms(t_valid),
        rss_valid as f64 / 1024.0,
        t_invalid.as_secs_f64() / t_valid.as_secs_f64(),
        rss_invalid as f64 / rss_valid as f64
    );
    std::fs::remove_dir_all(&invalid).unwrap();
    std::fs::remove_dir_all(&valid).unwrap();
}
