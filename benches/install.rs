#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! `squad install` and `squad uninstall` of a corpus package against `cp -r` + `sync -f` and
//! `rm -r` + `sync -f` of the same folder, in the same run, alternating (ratios only: the
//! machines are shared and noisy; medians of many runs). The goal's install is a project's
//! first (it creates `.opencorvus` and its `.gitignore`); a second install into the project
//! it made is reported beside it, and so is the floor of what an install promises: the same
//! folder copied, `syncfs`, renamed into place and its directory `fsync`ed, all in this process,
//! plus the start of a process that does nothing. Also measured here:
//!
//! - the ways to make a staged package durable before the publishing rename, all keeping the
//!   same promise (every file and directory on disk first): `fsync` of each file and directory,
//!   the same from several threads, and one `syncfs` of the file system, with 0 to 64 MiB of
//!   another process's data unwritten on the same disk. fs::sync_all_at_once keeps the fastest
//!   and says when;
//! - taking and dropping the install lock (its refresher thread must stop at once).
//!
//! Run with `SQUAD_CORPUS=<…/corpus/opencorvus> cargo bench --bench install`. The package is
//! `academic-paper-review` (22 files), or `SQUAD_BENCH_PACKAGE`. Scratch data goes to a
//! temporary directory under `target/` (a real disk: `/tmp` may be a tmpfs, where a sync costs
//! nothing) that is removed afterwards.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 21;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn ratio(ours: Duration, theirs: Duration) -> f64 {
    ours.as_secs_f64() / theirs.as_secs_f64()
}

/// Runs the programs one after the other and returns the time they took together.
fn time_programs(programs: &[(&str, Vec<&str>)], cwd: &Path, env: &[(&str, &Path)]) -> Duration {
    let start = Instant::now();
    for (program, args) in programs {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(cwd)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.output().expect("the program runs");
        assert!(
            output.status.success(),
            "`{program} {args:?}` failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    start.elapsed()
}

/// Every file of `root`, relative, with `/`.
fn files_of(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        for entry in std::fs::read_dir(root.join(&relative)).unwrap() {
            let entry = entry.unwrap();
            let path = relative.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                pending.push(path);
            } else {
                files.push(path.to_string_lossy().into_owned());
            }
        }
    }
    files.sort();
    files
}

/// Writes `files` into the new directory `to`, creating parents, and
/// returns the directories created, deepest last.
fn write_tree(files: &[(String, Vec<u8>)], to: &Path) -> Vec<PathBuf> {
    let mut directories = vec![to.to_path_buf()];
    std::fs::create_dir(to).unwrap();
    for (file, bytes) in files {
        let target = to.join(file);
        let parent = target.parent().unwrap().to_path_buf();
        if !directories.contains(&parent) {
            std::fs::create_dir_all(&parent).unwrap();
            directories.push(parent);
        }
        std::fs::write(&target, bytes).unwrap();
    }
    directories
}

#[derive(Clone, Copy, Debug)]
enum Durability {
    EachFile,
    EachFileThreads(usize),
    Syncfs,
}

fn make_durable(
    root: &Path,
    files: &[(String, Vec<u8>)],
    directories: &[PathBuf],
    how: Durability,
) {
    let sync = |path: &Path| std::fs::File::open(path).unwrap().sync_all().unwrap();
    match how {
        Durability::EachFile => {
            for (file, _) in files {
                sync(&root.join(file));
            }
            for directory in directories.iter().rev() {
                sync(directory);
            }
        }
        Durability::EachFileThreads(threads) => {
            let paths: Vec<PathBuf> = files
                .iter()
                .map(|(file, _)| root.join(file))
                .chain(directories.iter().cloned())
                .collect();
            std::thread::scope(|scope| {
                for chunk in paths.chunks(paths.len().div_ceil(threads.min(paths.len()))) {
                    scope.spawn(move || {
                        for path in chunk {
                            sync(path);
                        }
                    });
                }
            });
        }
        Durability::Syncfs => {
            let directory = std::fs::File::open(root).unwrap();
            rustix::fs::syncfs(&directory).unwrap();
        }
    }
}

/// What an install promises, done as plainly as it can be in this process: `source` copied to a
/// staging directory, that on disk (one `syncfs`), renamed into place, and the rename on disk
/// (an `fsync` of the directory). Squad's two barriers, without validation, digest, receipt,
/// lock or fingerprint.
fn contract_floor(source: &Path, dir: &Path) -> Duration {
    let staged = dir.join("floor-staged");
    let placed = dir.join("floor");
    let _ = std::fs::remove_dir_all(&placed);
    let start = Instant::now();
    squad::fs::copy_tree(source, &staged).unwrap();
    rustix::fs::syncfs(std::fs::File::open(&staged).unwrap()).unwrap();
    std::fs::rename(&staged, &placed).unwrap();
    std::fs::File::open(dir).unwrap().sync_all().unwrap();
    start.elapsed()
}

fn main() {
    let squad = env!("CARGO_BIN_EXE_squad");
    let corpus = std::env::var_os("SQUAD_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("set SQUAD_CORPUS to the corpus of real packages (…/shared/corpus/opencorvus)")
        });
    let name =
        std::env::var("SQUAD_BENCH_PACKAGE").unwrap_or_else(|_| "academic-paper-review".to_owned());
    let package = corpus.join(&name);
    assert!(
        package.is_dir(),
        "{} is not a package folder",
        package.display()
    );
    let target_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target_dir).unwrap();
    let scratch = tempfile::tempdir_in(&target_dir).expect("temporary directory");
    let dir = scratch.path();
    // The source on the same disk as the destination, as a package being developed would be.
    let source = dir.join("source");
    squad::fs::copy_tree(&package, &source).unwrap();
    let files: Vec<(String, Vec<u8>)> = files_of(&source)
        .into_iter()
        .map(|file| {
            let bytes = std::fs::read(source.join(&file)).unwrap();
            (file, bytes)
        })
        .collect();
    let bytes: usize = files.iter().map(|(_, content)| content.len()).sum();
    println!(
        "package {name}: {} files, {} bytes; {RUNS} runs each, alternating, medians",
        files.len(),
        bytes
    );

    // Install and uninstall against cp -r + sync -f and rm -r + sync -f.
    let project = dir.join("project");
    let home = dir.join("home");
    std::fs::create_dir_all(&project).unwrap();
    let copy_target = dir.join("copy");
    let env = [("OPENCORVUS_HOME", home.as_path())];
    let source_arg = source.to_str().unwrap();
    let copy_arg = copy_target.to_str().unwrap();
    let (mut install, mut uninstall, mut cp_sync, mut rm_sync, mut install_again) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut contract = Vec::new();
    // One warm-up of each, so every side starts with a warm page cache.
    for round in 0..=RUNS {
        let _ = std::fs::remove_dir_all(&copy_target);
        let _ = std::fs::remove_dir_all(project.join(".opencorvus"));
        let cp = time_programs(
            &[
                ("cp", vec!["-r", source_arg, copy_arg]),
                ("sync", vec!["-f", copy_arg]),
            ],
            dir,
            &[],
        );
        let ours = time_programs(
            &[(squad, vec!["install", source_arg, "--scope", "project"])],
            &project,
            &env,
        );
        let rm = time_programs(
            &[
                ("rm", vec!["-r", copy_arg]),
                ("sync", vec!["-f", dir.to_str().unwrap()]),
            ],
            dir,
            &[],
        );
        let removed = time_programs(
            &[(squad, vec!["uninstall", &name, "--scope", "project"])],
            &project,
            &env,
        );
        // Again, into the project the first install made: no `.opencorvus` to create, no
        // `.gitignore` to write and sync.
        let again = time_programs(
            &[(squad, vec!["install", source_arg, "--scope", "project"])],
            &project,
            &env,
        );
        time_programs(
            &[(squad, vec!["uninstall", &name, "--scope", "project"])],
            &project,
            &env,
        );
        let floor = contract_floor(&source, dir);
        if round > 0 {
            contract.push(floor);
            cp_sync.push(cp);
            install.push(ours);
            rm_sync.push(rm);
            uninstall.push(removed);
            install_again.push(again);
        }
    }
    let (install, uninstall, cp_sync, rm_sync, install_again) = (
        median(install),
        median(uninstall),
        median(cp_sync),
        median(rm_sync),
        median(install_again),
    );
    let spawn = median(
        (0..RUNS)
            .map(|_| time_programs(&[("true", vec![])], dir, &[]))
            .collect(),
    );
    println!(
        "install:   squad {}   cp -r + sync -f {}   squad/baseline {:.2}x (goal <= 1.3x)",
        ms(install),
        ms(cp_sync),
        ratio(install, cp_sync)
    );
    println!(
        "install into a project that exists: squad {}   squad/baseline {:.2}x",
        ms(install_again),
        ratio(install_again, cp_sync)
    );
    println!(
        "uninstall: squad {}   rm -r + sync -f {}   squad/baseline {:.2}x",
        ms(uninstall),
        ms(rm_sync),
        ratio(uninstall, rm_sync)
    );
    println!("(starting a process that does nothing: {})", ms(spawn));
    let floor = median(contract) + spawn;
    println!(
        "install into a project that exists, against its floor (copy, syncfs, rename, fsync of the directory in one process, plus a process start: {}): squad/floor {:.2}x",
        ms(floor),
        ratio(install_again, floor)
    );

    // Durability of a staged copy: the same files written, then made durable several ways,
    // with more and more of another process's data written (not synced) on the same file
    // system just before: `syncfs` waits for that too (fs::sync_all_at_once).
    let items = files.len() + 8;
    let strategies = [
        Durability::EachFile,
        Durability::EachFileThreads(4),
        Durability::EachFileThreads(16),
        // One thread per file and directory.
        Durability::EachFileThreads(items),
        Durability::Syncfs,
    ];
    let foreign_file = dir.join("foreign");
    for foreign_mib in [0usize, 1, 16, 64] {
        let foreign = vec![b'x'; foreign_mib << 20];
        // Fewer rounds with much foreign data: each writes it once per strategy.
        let rounds = if foreign_mib > 1 { 9 } else { RUNS };
        let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); strategies.len()];
        let mut written = Vec::new();
        for round in 0..=rounds {
            for (index, how) in strategies.iter().enumerate() {
                if foreign_mib > 0
                    && matches!(how, Durability::EachFile | Durability::EachFileThreads(4))
                {
                    continue;
                }
                let staged = dir.join(format!("staged-{index}"));
                let _ = std::fs::remove_dir_all(&staged);
                if foreign_mib > 0 {
                    rustix::fs::syncfs(std::fs::File::open(dir).unwrap()).unwrap();
                    std::fs::write(&foreign_file, &foreign).unwrap();
                }
                let start = Instant::now();
                let directories = write_tree(&files, &staged);
                let wrote = start.elapsed();
                make_durable(&staged, &files, &directories, *how);
                if round > 0 {
                    samples[index].push(start.elapsed());
                    written.push(wrote);
                }
            }
        }
        println!(
            "durable staging of the same files, {foreign_mib} MiB of other data unwritten (writing the files takes {}):",
            ms(median(written))
        );
        let measured: Vec<(Durability, Duration)> = strategies
            .iter()
            .zip(samples)
            .filter(|(_, samples)| !samples.is_empty())
            .map(|(how, samples)| (*how, median(samples)))
            .collect();
        let fastest = measured.iter().map(|(_, took)| *took).min().unwrap();
        for (how, took) in measured {
            println!(
                "  {:<22} {}   {:.2}x the fastest",
                format!("{how:?}"),
                ms(took),
                ratio(took, fastest)
            );
        }
    }
    let _ = std::fs::remove_file(&foreign_file);

    // The install lock: taken and dropped (the refresher thread stops at once).
    let locks = dir.join("locks");
    let lock = median(
        (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                let held = squad::install::lock::IdLock::acquire(&locks, "pkg", None, &mut |_| {})
                    .unwrap();
                drop(held);
                start.elapsed()
            })
            .collect(),
    );
    println!("install lock, acquire + drop: {}", ms(lock));
}
