#![allow(clippy::disallowed_methods)] // benchmarks set up files directly
#![allow(clippy::print_stdout)]
//! The cost of signature verification during a sync, against a same-run baseline (ratios only;
//! the machines are shared and noisy). A Debian `docker-registry` is started on 127.0.0.1 and
//! 20 corpus packages are published to it twice: signed (`publish --sign`, referrers through
//! the tag schema) and unsigned, under two bases.
//!
//! - a cold `squad sync` of the 20 signed squads in a project that requires signatures, against
//!   a cold sync of the 20 unsigned ones without a policy: the difference per squad is what
//!   finding and checking a signature costs (goal: under 1 ms each, network included);
//! - in process, `Policy::check` of one squad's signature (parse, key lookup, Ed25519).
//!
//! Run with `SQUAD_CORPUS=<corpus folder> cargo bench --bench signing`. Needs `docker-registry`
//! on PATH; without `SQUAD_CORPUS` it stops and says so.

#[path = "support.rs"]
mod support;

use std::path::Path;
use std::time::Instant;

use support::{median, ms, squad, start_registry};

const RUNS: usize = 5;
const PACKAGES: usize = 20;
const CHECKS: usize = 2000;

fn project(home: &Path, policy: &str, entries: &[String]) {
    let files = home.join("project/.opencorvus");
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(
        files.join("squads.jsonc"),
        format!(
            "{{\n  {policy}\n  \"squads\": {{\n    {}\n  }}\n}}\n",
            entries.join(",\n    ")
        ),
    )
    .unwrap();
}

fn main() {
    let corpus = support::corpus();
    let packages = support::corpus_packages(&corpus, PACKAGES);
    let scratch = tempfile::tempdir().unwrap();
    let (_registry, port) = start_registry(scratch.path());
    let publisher = scratch.path().join("publisher");
    std::fs::create_dir_all(&publisher).unwrap();
    let (_, generated) = squad(
        &[
            "key",
            "generate",
            "--secret-key",
            "bench.key",
            "--public-key",
            "bench.pub",
            "--unencrypted",
            "--format",
            "json",
        ],
        &publisher,
    );
    let generated: serde_json::Value = serde_json::from_slice(&generated.stdout).unwrap();
    let public_key = generated["public_key"].as_str().unwrap().to_owned();
    let mut signed = Vec::new();
    let mut plain = Vec::new();
    for (base, entries, sign) in [("signed", &mut signed, true), ("plain", &mut plain, false)] {
        let base = format!("oci://127.0.0.1:{port}/{base}");
        for package in &packages {
            let package = package.to_str().unwrap();
            let mut args = vec!["publish", package, &base];
            if sign {
                args.extend(["--sign", "bench.key"]);
            }
            let (_, output) = squad(&args, &publisher);
            let reference = String::from_utf8_lossy(&output.stdout).trim().to_owned();
            let repository = reference.split('@').next().unwrap().to_owned();
            let name = repository.rsplitn(3, '/').take(2).collect::<Vec<_>>();
            entries.push(format!(
                "\"{}/{}\": {{ \"source\": \"{repository}\" }}",
                name[1], name[0]
            ));
        }
    }
    let policy =
        format!("\"require_signatures\": true,\n  \"trust\": {{ \"*\": [\"{public_key}\"] }},");
    let homes = scratch.path().join("homes");
    let mut with = Vec::new();
    let mut without = Vec::new();
    // Interleaved, so a slow moment of the machine weighs on both alike.
    for run in 0..RUNS {
        let home = homes.join(format!("signed-{run}"));
        project(&home, &policy, &signed);
        with.push(squad(&["sync", "--project", "project"], &home).0);
        let lock = std::fs::read_to_string(home.join("project/.opencorvus/squads.lock")).unwrap();
        assert_eq!(
            lock.matches("\"signed_by\"").count(),
            PACKAGES,
            "every squad verified"
        );
        let home = homes.join(format!("plain-{run}"));
        project(&home, "", &plain);
        without.push(squad(&["sync", "--project", "project"], &home).0);
    }
    let with = median(with);
    let without = median(without);
    let per_squad = with.saturating_sub(without) / PACKAGES as u32;
    println!("cold sync of {PACKAGES} squads, median of {RUNS}:");
    println!("  unsigned, no policy (baseline)   {}", ms(without));
    println!(
        "  signed, signatures required      {}  ({:.2}x)",
        ms(with),
        with.as_secs_f64() / without.as_secs_f64()
    );
    println!(
        "  signature cost per squad         {}  (goal: under 1 ms)",
        ms(per_squad)
    );

    // In process: one squad's check.
    let (public, secret) = squad::sign::minisig::generate(None).unwrap();
    let key = squad::sign::SecretKeyFile::parse(&secret)
        .unwrap()
        .unlock(None)
        .unwrap();
    let statement = squad::sign::Statement {
        namespace: "acme".to_owned(),
        id: "review".to_owned(),
        version: "2026.12.01.1".to_owned(),
        package_digest: squad::digest::Sha256Digest::of(b"package"),
    };
    let signature = squad::sign::minisig::sign(
        &key,
        statement.text().as_bytes(),
        &statement.trusted_comment(),
    )
    .unwrap()
    .text()
    .to_owned();
    let policy = squad::sign::Policy {
        require_signatures: true,
        trusted: vec![squad::sign::Trusted {
            key: public,
            namespace: "*".to_owned(),
            expires: None,
        }],
        revoked: Vec::new(),
    };
    let today = squad::env::today_utc();
    let signatures = [signature];
    let start = Instant::now();
    for _ in 0..CHECKS {
        assert!(policy.check(&statement, &signatures, today).is_ok());
    }
    let each = start.elapsed() / CHECKS as u32;
    println!(
        "in process, Policy::check of one signature: {:.1} µs",
        each.as_secs_f64() * 1e6
    );
}
