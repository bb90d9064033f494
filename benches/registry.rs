#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! Sharing through a registry against local work, in the same run (ratios only; the machines
//! are shared and noisy). A Debian `docker-registry` is started on 127.0.0.1 with a temporary
//! storage directory, as the tests do.
//!
//! - `squad publish` of a corpus package to an empty repository (validate, pack, push), against
//!   `squad pack` of the same package;
//! - `squad publish` again (the version is there: "unchanged");
//! - `squad install oci://…@sha256:…` into a fresh scope, against `squad install` of the same
//!   archive from disk, and against the network floor: one `curl` of the same manifest and
//!   blobs (one process, one connection) plus the install of the archive from disk (goal: at
//!   most 1.1x the floor).
//!
//! Run with `cargo bench --bench registry`. Needs `docker-registry` on PATH. The package is the
//! corpus's academic-paper-review when `SQUAD_CORPUS` is set, else the release-review fixture.

#[path = "support.rs"]
#[allow(dead_code)] // the corpus is optional here
mod support;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use support::{median, ms, start_registry};

const RUNS: usize = 15;

/// The median time of `runs` squad runs, each with a fresh home.
fn time_squad(args: &[String], home: &dyn Fn(usize) -> PathBuf, runs: usize) -> Duration {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    median(
        (0..runs)
            .map(|run| support::squad(&args, &home(run)).0)
            .collect(),
    )
}

fn main() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let package = match std::env::var_os("SQUAD_CORPUS").filter(|value| !value.is_empty()) {
        Some(corpus) => repo.join(corpus).join("academic-paper-review"),
        None => {
            println!(
                "SQUAD_CORPUS is not set: measuring registry-fixtures/valid/release-review instead of the corpus's academic-paper-review"
            );
            repo.join("registry-fixtures/valid/release-review")
        }
    };
    assert!(package.is_dir(), "no package at {}", package.display());
    let scratch = tempfile::tempdir().unwrap();
    let (_registry, port) = start_registry(scratch.path());
    let package_arg = package.to_str().unwrap().to_owned();
    let homes = scratch.path().join("homes");
    let fresh = |kind: &'static str| {
        let homes = homes.clone();
        move |run: usize| homes.join(format!("{kind}-{run}"))
    };
    let archive = scratch.path().join("package.zip");
    let status = Command::new(env!("CARGO_BIN_EXE_squad"))
        .args(["pack", &package_arg, "-o"])
        .arg(&archive)
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let archive_bytes = std::fs::metadata(&archive).unwrap().len();

    let pack = time_squad(
        &[
            "pack".into(),
            package_arg.clone(),
            "-o".into(),
            "out.zip".into(),
        ],
        &fresh("pack"),
        RUNS,
    );
    // Each publish goes to a new base, so every run pushes the blobs and the manifest.
    let counter = std::cell::Cell::new(0usize);
    let publish = median(
        (0..RUNS)
            .map(|_| {
                counter.set(counter.get() + 1);
                let base = format!("oci://127.0.0.1:{port}/run{}", counter.get());
                time_squad(
                    &["publish".into(), package_arg.clone(), base],
                    &fresh("publish"),
                    1,
                )
            })
            .collect(),
    );
    let base = format!("oci://127.0.0.1:{port}/squads");
    let output = Command::new(env!("CARGO_BIN_EXE_squad"))
        .args(["publish", &package_arg, &base])
        .output()
        .unwrap();
    assert!(output.status.success());
    let pinned = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let unchanged = time_squad(
        &["publish".into(), package_arg.clone(), base.clone()],
        &fresh("unchanged"),
        RUNS,
    );
    let install_args = |source: String| -> Vec<String> {
        vec![
            "install".into(),
            source,
            "--scope".into(),
            "project".into(),
            "--project".into(),
            "project".into(),
        ]
    };
    let local = time_squad(
        &install_args(archive.to_str().unwrap().to_owned()),
        &fresh("local"),
        RUNS,
    );
    let remote = time_squad(&install_args(pinned.clone()), &fresh("remote"), RUNS);
    // The network floor: the three requests squad makes, by curl in one process.
    let (repository, digest) = pinned.trim_start_matches("oci://").split_once('@').unwrap();
    let (host, name) = repository.split_once('/').unwrap();
    let manifest_url = format!("http://{host}/v2/{name}/manifests/{digest}");
    let accept = "Accept: application/vnd.oci.image.manifest.v1+json";
    let manifest = Command::new("curl")
        .args(["-sf", "-H", accept, &manifest_url])
        .output()
        .expect("curl runs");
    assert!(manifest.status.success());
    let manifest: serde_json::Value = serde_json::from_slice(&manifest.stdout).unwrap();
    let mut urls = vec![manifest_url.clone()];
    for blob in std::iter::once(&manifest["config"]).chain(manifest["layers"].as_array().unwrap()) {
        urls.push(format!(
            "http://{host}/v2/{name}/blobs/{}",
            blob["digest"].as_str().unwrap()
        ));
    }
    let curl = median(
        (0..RUNS)
            .map(|_| {
                let mut command = Command::new("curl");
                command.args(["-sfL", "-H", accept]);
                for url in &urls {
                    command.args(["-o", "/dev/null", url]);
                }
                let start = std::time::Instant::now();
                assert!(command.status().unwrap().success());
                start.elapsed()
            })
            .collect(),
    );
    println!(
        "package: {} ({archive_bytes} bytes archive), median of {RUNS} runs",
        package.display()
    );
    println!(
        "publish (validate, pack, push): {}   pack alone: {}   publish/pack {:.2}x",
        ms(publish),
        ms(pack),
        publish.as_secs_f64() / pack.as_secs_f64()
    );
    println!("publish again (unchanged): {}", ms(unchanged));
    println!(
        "install from the registry: {}   install of the same archive from disk: {}   registry/local {:.2}x (goal <= 1.5x)",
        ms(remote),
        ms(local),
        remote.as_secs_f64() / local.as_secs_f64()
    );
    println!(
        "network floor: curl of the manifest and its {} blobs {} + the local install {} = {}   registry install/floor {:.2}x (goal <= 1.1x)",
        urls.len() - 1,
        ms(curl),
        ms(local),
        ms(curl + local),
        remote.as_secs_f64() / (curl + local).as_secs_f64()
    );
}
