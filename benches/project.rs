#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! A project's squads against per-package installs, in the same run (ratios only; the machines
//! are shared and noisy). A Debian `docker-registry` is started on 127.0.0.1 with a temporary
//! storage directory, and 20 corpus packages are published to it.
//!
//! - a cold `squad sync --locked` of the 20 (empty cache, nothing installed), against 20
//!   sequential `squad install oci://…@sha256:…` of the same packages (goal: at least 2x
//!   faster), and the same sync with one download at a time (`-j 1`);
//! - a no-op `squad sync --locked` of the 20 (goal: at most 30 ms).
//!
//! Run with `SQUAD_CORPUS=<corpus folder> cargo bench --bench project`. Needs `docker-registry`
//! on PATH; without `SQUAD_CORPUS` it stops and says so.

#[path = "support.rs"]
mod support;

use std::path::Path;
use std::time::Instant;

use support::{median, ms, squad, start_registry};

/// Cold runs of each kind (each installs 20 packages).
const COLD_RUNS: usize = 5;
const NOOP_RUNS: usize = 21;
const PACKAGES: usize = 20;

/// A fresh home holding a project with the two files of `from`.
fn clone_project(from: &Path, home: &Path) {
    let files = home.join("project/.opencorvus");
    std::fs::create_dir_all(&files).unwrap();
    for name in ["squads.jsonc", "squads.lock"] {
        std::fs::copy(from.join(".opencorvus").join(name), files.join(name)).unwrap();
    }
}

fn main() {
    let corpus = support::corpus();
    let packages = support::corpus_packages(&corpus, PACKAGES);
    let scratch = tempfile::tempdir().unwrap();
    let (_registry, port) = start_registry(scratch.path());
    let base = format!("oci://127.0.0.1:{port}/squads");
    let publisher = scratch.path().join("publisher");
    let mut pinned = Vec::new();
    let mut entries = Vec::new();
    for package in &packages {
        let (_, output) = squad(&["publish", package.to_str().unwrap(), &base], &publisher);
        let reference = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        let repository = reference.split('@').next().unwrap().to_owned();
        let name = repository.rsplitn(3, '/').take(2).collect::<Vec<_>>();
        entries.push(format!(
            "\"{}/{}\": {{ \"source\": \"{repository}\" }}",
            name[1], name[0]
        ));
        pinned.push(reference);
    }
    // The committed files: squads.jsonc and the lock a first sync writes.
    let origin = scratch.path().join("origin");
    std::fs::create_dir_all(origin.join("project/.opencorvus")).unwrap();
    std::fs::write(
        origin.join("project/.opencorvus/squads.jsonc"),
        format!(
            "{{\n  \"squads\": {{\n    {}\n  }}\n}}\n",
            entries.join(",\n    ")
        ),
    )
    .unwrap();
    squad(&["sync", "--project", "project"], &origin);
    let origin = origin.join("project");

    let homes = scratch.path().join("homes");
    let mut sequential = Vec::new();
    let mut cold = Vec::new();
    let mut serial = Vec::new();
    // Interleaved, so a slow moment of the machine weighs on every kind alike.
    for run in 0..COLD_RUNS {
        let home = homes.join(format!("install-{run}"));
        let start = Instant::now();
        for reference in &pinned {
            squad(
                &[
                    "install",
                    reference,
                    "--scope",
                    "project",
                    "--project",
                    "project",
                ],
                &home,
            );
        }
        sequential.push(start.elapsed());
        let home = homes.join(format!("sync-{run}"));
        clone_project(&origin, &home);
        let (elapsed, output) = squad(&["sync", "--locked", "--project", "project"], &home);
        assert!(String::from_utf8_lossy(&output.stderr).contains("20 installed"));
        cold.push(elapsed);
        let home = homes.join(format!("serial-{run}"));
        clone_project(&origin, &home);
        serial.push(
            squad(
                &["sync", "--locked", "-j", "1", "--project", "project"],
                &home,
            )
            .0,
        );
    }
    let warm = homes.join("sync-0");
    let noop = median(
        (0..NOOP_RUNS)
            .map(|_| squad(&["sync", "--locked", "--project", "project"], &warm).0)
            .collect(),
    );
    let (sequential, cold, serial) = (median(sequential), median(cold), median(serial));
    println!(
        "{PACKAGES} corpus packages from a loopback registry, median of {COLD_RUNS} cold runs"
    );
    println!(
        "cold `squad sync --locked`: {}   20 sequential `squad install oci://…`: {}   speed-up {:.2}x (goal >= 2x)",
        ms(cold),
        ms(sequential),
        sequential.as_secs_f64() / cold.as_secs_f64()
    );
    println!(
        "cold `squad sync --locked -j 1`: {}   parallel downloads gain {:.2}x",
        ms(serial),
        serial.as_secs_f64() / cold.as_secs_f64()
    );
    println!(
        "no-op `squad sync --locked` of the {PACKAGES}: {} (median of {NOOP_RUNS}; goal <= 30 ms)",
        ms(noop)
    );
}
