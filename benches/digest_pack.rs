#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! `squad digest` and `squad pack` against standard tools over the same bytes, in the same run
//! (ratios only; the machines are shared and noisy). Warm page cache; median of several runs.
//!
//! - digest of a package holding a 1 GiB asset (`expert-squad.jsonc` = `{}`, `README.md`,
//!   `assets/blob.bin`): `openssl dgst -sha256` and `sha256sum` of the asset, runs alternating;
//!   the digest itself is checked against `openssl dgst -sha256` of the package-tree v1 stream;
//! - digest of 100,000 small files: `find | xargs sha256sum`;
//! - pack of a package at the reference's import limits (about 16 MiB in 500 files) and of every
//!   corpus package (`SQUAD_CORPUS`; skipped, and said, when unset): Info-ZIP `zip -r -X -6`.
//! - `squad install` of the package at the limits: `cp -r` of the same tree + `sync -f`, one of
//!   each per round (squad first), 21 rounds after a warm-up; the ratio is the median of the
//!   rounds' own ratios.
//!
//! Run with `cargo bench --bench digest_pack`. Needs `openssl`, `sha256sum` and `zip` on PATH.
//! Scratch data goes to a temporary directory that is removed afterwards.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// Only some of the shared helpers are needed here.
#[allow(dead_code)]
#[path = "support.rs"]
mod support;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time_shell(script: &str, cwd: &Path, runs: usize) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                let status = Command::new("sh")
                    .arg("-c")
                    .arg(script)
                    .current_dir(cwd)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .expect("sh runs");
                let elapsed = start.elapsed();
                assert!(status.success(), "`{script}` failed");
                elapsed
            })
            .collect(),
    )
}

/// Times one process, started directly (no shell), after `prepare` ran outside the timed part.
/// Per-package runs are a few milliseconds, so a shell and an `rm` in the timed part would
/// weigh as much as the work measured.
fn time_process(
    program: &str,
    args: &[&str],
    cwd: &Path,
    runs: usize,
    prepare: &dyn Fn(),
) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                prepare();
                let start = Instant::now();
                let status = Command::new(program)
                    .args(args)
                    .current_dir(cwd)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status()
                    .expect("the program runs");
                let elapsed = start.elapsed();
                assert!(status.success(), "`{program} {args:?}` failed");
                elapsed
            })
            .collect(),
    )
}

fn ms(duration: Duration) -> String {
    format!("{:.0} ms", duration.as_secs_f64() * 1000.0)
}

fn ratio(ours: Duration, theirs: Duration) -> f64 {
    ours.as_secs_f64() / theirs.as_secs_f64()
}

fn write_package_at_limits(root: &Path) {
    // 500 files, about 16 MiB: README, selector, manifest, 497 skill files.
    support::write_bulk_package(root, &support::bulk_manifest(), 33_000, |index| index);
}

/// The two files the tree contract requires (ROOT-2), so `squad digest` accepts the folder.
fn required_files(root: &Path) {
    std::fs::create_dir_all(root).unwrap();
    for (name, content) in [("expert-squad.jsonc", "{}"), ("README.md", "# R\n")] {
        std::fs::write(root.join(name), content).unwrap();
    }
}

/// The package digest of the files `paths` under `root`, by `openssl dgst -sha256` over the
/// package-tree v1 stream (DG-1…4) written out here, not by squad's code.
fn openssl_package_digest(root: &Path, paths: &[&str]) -> String {
    use std::io::Write;
    let mut sorted = paths.to_vec();
    sorted.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
    let mut child = Command::new("openssl")
        .args(["dgst", "-sha256", "-r"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("openssl runs");
    let mut stdin = std::io::BufWriter::new(child.stdin.take().unwrap());
    stdin
        .write_all(b"opencorvus.expert-squad.package-tree.v1")
        .unwrap();
    for path in sorted {
        let mut file = std::fs::File::open(root.join(path)).unwrap();
        let size = file.metadata().unwrap().len();
        stdin.write_all(&(path.len() as u32).to_be_bytes()).unwrap();
        stdin.write_all(path.as_bytes()).unwrap();
        stdin.write_all(&size.to_be_bytes()).unwrap();
        std::io::copy(&mut file, &mut stdin).unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

/// Medians of `scripts` run in turn, `runs` rounds, so that drift in the machine's load
/// weighs on each alike.
fn alternate(scripts: &[&str], cwd: &Path, runs: usize) -> Vec<Duration> {
    let mut samples = vec![Vec::new(); scripts.len()];
    for _ in 0..runs {
        for (script, samples) in scripts.iter().zip(samples.iter_mut()) {
            samples.push(time_shell(script, cwd, 1));
        }
    }
    samples.into_iter().map(median).collect()
}

fn main() {
    let squad = env!("CARGO_BIN_EXE_squad");
    let scratch = tempfile::tempdir().expect("temporary directory");
    let dir = scratch.path();

    // A package holding a 1 GiB asset.
    let big = dir.join("big");
    std::fs::create_dir_all(big.join("assets")).unwrap();
    required_files(&big);
    let status = Command::new("sh")
        .arg("-c")
        .arg("head -c 1073741824 /dev/urandom > assets/blob.bin")
        .current_dir(&big)
        .status()
        .unwrap();
    assert!(status.success());
    let digest = Command::new(squad)
        .args(["digest", "."])
        .current_dir(&big)
        .output()
        .unwrap();
    assert!(digest.status.success());
    assert_eq!(
        String::from_utf8_lossy(&digest.stdout).trim(),
        openssl_package_digest(
            &big,
            &["expert-squad.jsonc", "README.md", "assets/blob.bin"]
        ),
        "squad digest of the 1 GiB package"
    );
    let times = alternate(
        &[
            &format!("{squad} digest ."),
            "openssl dgst -sha256 assets/blob.bin",
            "sha256sum assets/blob.bin",
        ],
        &big,
        5,
    );
    let (squad_big, openssl_big, sha256sum_big) = (times[0], times[1], times[2]);
    println!(
        "digest, package with a 1 GiB asset: squad {}   openssl {}   sha256sum {}   squad/openssl {:.2}x   squad/sha256sum {:.2}x",
        ms(squad_big),
        ms(openssl_big),
        ms(sha256sum_big),
        ratio(squad_big, openssl_big),
        ratio(squad_big, sha256sum_big)
    );
    std::fs::remove_dir_all(&big).unwrap();

    // 100,000 small files.
    let small = dir.join("small");
    required_files(&small);
    for index in 0..100_000u64 {
        let directory = small.join(format!("skills/s{:03}/references", index / 1000));
        if index % 1000 == 0 {
            std::fs::create_dir_all(&directory).unwrap();
        }
        std::fs::write(
            directory.join(format!("f{index:06}.md")),
            support::text_like(index, 200 + (index % 1800) as usize),
        )
        .unwrap();
    }
    let squad_small = time_shell(&format!("{squad} digest ."), &small, 5);
    let xargs_small = time_shell("find . -type f -print0 | xargs -0 sha256sum", &small, 5);
    println!(
        "digest, 100,000 small files: squad {}   find | xargs sha256sum {}   ratio {:.2}x",
        ms(squad_small),
        ms(xargs_small),
        ratio(squad_small, xargs_small)
    );
    std::fs::remove_dir_all(&small).unwrap();

    // Pack at the import limits.
    let limits = dir.join("limits");
    write_package_at_limits(&limits);
    let squad_pack = time_shell(
        &format!("rm -f ../out.zip && {squad} pack . -o ../out.zip"),
        &limits,
        7,
    );
    let zip_pack = time_shell(
        "rm -f ../out-info.zip && zip -q -r -X -6 ../out-info.zip .",
        &limits,
        7,
    );
    println!(
        "pack, package at the import limits (500 files, 16 MiB): squad {}   zip -r -X -6 {}   zip/squad {:.2}x faster",
        ms(squad_pack),
        ms(zip_pack),
        ratio(zip_pack, squad_pack)
    );

    // Install the package at the import limits: squad validates, stages, digests, syncs and
    // renames; the baseline copies the same tree and syncs its file system. Alternating, so
    // that a slow moment of the machine weighs on both (one warm-up round first).
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let home = dir.join("home");
    let copy = dir.join("copy");
    let (mut squad_runs, mut cp_runs) = (Vec::new(), Vec::new());
    for round in 0..=21 {
        let _ = std::fs::remove_dir_all(project.join(".opencorvus"));
        let start = Instant::now();
        let status = Command::new(squad)
            .args(["install", limits.to_str().unwrap(), "--scope", "project"])
            .current_dir(&project)
            .env("OPENCORVUS_HOME", &home)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        let squad_took = start.elapsed();
        assert!(status.success(), "squad install failed");
        let _ = std::fs::remove_dir_all(&copy);
        let start = Instant::now();
        let status = Command::new("sh")
            .args([
                "-c",
                &format!(
                    "cp -r {} {} && sync -f {}",
                    limits.display(),
                    copy.display(),
                    copy.display()
                ),
            ])
            .current_dir(dir)
            .status()
            .unwrap();
        let cp_took = start.elapsed();
        assert!(status.success(), "cp -r + sync -f failed");
        if round > 0 {
            squad_runs.push(squad_took);
            cp_runs.push(cp_took);
        }
    }
    // The disk's speed swings between rounds (the baseline alone took 64-150 ms on one
    // machine): each round's two runs are compared, and the ratio is the median of those.
    let mut paired: Vec<f64> = squad_runs
        .iter()
        .zip(&cp_runs)
        .map(|(squad, cp)| ratio(*squad, *cp))
        .collect();
    paired.sort_by(f64::total_cmp);
    let (squad_install, cp_sync) = (median(squad_runs), median(cp_runs));
    println!(
        "install, package at the import limits (21 rounds): squad {}   cp -r + sync -f {}   squad/cp per round: median {:.2}x, quartiles {:.2}x-{:.2}x (goal <= 1.5x)",
        ms(squad_install),
        ms(cp_sync),
        paired[paired.len() / 2],
        paired[paired.len() / 4],
        paired[paired.len() * 3 / 4]
    );

    // Pack every corpus package (`SQUAD_CORPUS`, README.md "Development").
    let Some(corpus) = std::env::var_os("SQUAD_CORPUS").filter(|value| !value.is_empty()) else {
        println!(
            "pack, each corpus package: skipped (set SQUAD_CORPUS to the OpenCorvus corpus folder)"
        );
        return;
    };
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(corpus);
    let mut packages: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap_or_else(|error| panic!("SQUAD_CORPUS {}: {error}", corpus.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    packages.sort();
    let mut ratios = Vec::new();
    let (mut ours_total, mut theirs_total, mut spawn_total) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for package in &packages {
        let ours_zip = dir.join("o.zip");
        let theirs_zip = dir.join("i.zip");
        let ours = time_process(
            squad,
            &["pack", ".", "-o", ours_zip.to_str().unwrap()],
            package,
            7,
            &|| {
                let _ = std::fs::remove_file(&ours_zip);
            },
        );
        let theirs = time_process(
            "zip",
            &["-q", "-r", "-X", "-6", theirs_zip.to_str().unwrap(), "."],
            package,
            7,
            &|| {
                let _ = std::fs::remove_file(&theirs_zip);
            },
        );
        // A process that does nothing: the part of each run neither program can change.
        let spawn = time_process("true", &[], package, 7, &|| {});
        spawn_total += spawn;
        ours_total += ours;
        theirs_total += theirs;
        ratios.push(ratio(theirs, ours));
    }
    ratios.sort_by(|a, b| a.total_cmp(b));
    println!(
        "pack, each of {} corpus packages: squad {} in all   zip {} in all   (starting `true` {} in all)   zip/squad per package: min {:.2}x  median {:.2}x  max {:.2}x",
        packages.len(),
        ms(ours_total),
        ms(theirs_total),
        ms(spawn_total),
        ratios[0],
        ratios[ratios.len() / 2],
        ratios[ratios.len() - 1]
    );
}
