//! The hostile-archive corpus (security-cases §3.1, §3.4; package-format §8.6): every archive in
//! tests/fixtures/archives/ is read by the checked reader with the reference limits and gets the
//! verdict cases.json gives it, naming the offending entry; nothing panics, whole or truncated.
//! Regenerate with `python3 scripts/make-hostile-archives.py`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use serde::Deserialize;
use squad::archive::reader::{ArchiveError, ArchivePackage, Limits, read_package};

use crate::support::{repo, squad, text};

#[derive(Debug, Deserialize)]
struct Index {
    cases: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    file: String,
    /// "refused", "accepted", or "accepted-by-reader" (passed on by the reader; package
    /// validation and installation must refuse it).
    verdict: String,
    /// The entry name the error must show in backticks, as the reader displays it.
    entry: Option<String>,
    /// When no entry is at fault: a phrase the message must contain.
    message: Option<String>,
    row: String,
    description: String,
    /// Set when the reader is known to get the verdict wrong: the test then checks it still
    /// does, so a fix is noticed and the marker removed.
    known_bug: Option<String>,
}

fn directory() -> PathBuf {
    repo().join("tests/fixtures/archives")
}

fn cases() -> Vec<(Case, Vec<u8>)> {
    let index = std::fs::read_to_string(directory().join("cases.json")).unwrap();
    let index: Index = serde_json::from_str(&index).unwrap();
    // Every test loops over these: an emptied or truncated index must fail, not pass vacuously.
    assert!(
        index.cases.len() >= 130,
        "cases.json lists only {} archives",
        index.cases.len()
    );
    index
        .cases
        .into_iter()
        .map(|case| {
            let bytes = std::fs::read(directory().join(&case.file))
                .unwrap_or_else(|error| panic!("{}: {error}", case.file));
            (case, bytes)
        })
        .collect()
}

/// Reads `bytes`, turning a panic into an `Err` that says so.
fn read(bytes: &[u8]) -> Result<Result<ArchivePackage, ArchiveError>, String> {
    catch_unwind(AssertUnwindSafe(|| read_package(bytes, &Limits::REFERENCE))).map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default()
    })
}

#[test]
fn every_fixture_is_listed() {
    let listed: std::collections::BTreeSet<String> =
        cases().into_iter().map(|(case, _)| case.file).collect();
    let present: std::collections::BTreeSet<String> = std::fs::read_dir(directory())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".zip"))
        .collect();
    assert_eq!(listed, present);
    let size: u64 = std::fs::read_dir(directory())
        .unwrap()
        .map(|entry| entry.unwrap().metadata().unwrap().len())
        .sum();
    assert!(size < 2 << 20, "the fixtures take {size} bytes");
}

#[test]
fn every_fixture_gets_its_verdict() {
    let mut failures = Vec::new();
    for (case, bytes) in cases() {
        let label = format!("{} (#{}, {})", case.file, case.row, case.description);
        let result = match read(&bytes) {
            Ok(result) => result,
            Err(panic) => {
                failures.push(format!("{label}: PANIC {panic}"));
                continue;
            }
        };
        let refused = case.verdict == "refused";
        assert!(
            refused || ["accepted", "accepted-by-reader"].contains(&case.verdict.as_str()),
            "{label}: unknown verdict {}",
            case.verdict
        );
        if let Some(bug) = &case.known_bug {
            if result.is_err() == refused {
                failures.push(format!(
                    "{label}: known bug fixed ({bug}); remove `known_bug` from cases.json"
                ));
            }
            continue;
        }
        match (result, refused) {
            (Ok(package), false) => {
                if !package
                    .files
                    .iter()
                    .any(|(path, _)| path == "expert-squad.jsonc")
                {
                    failures.push(format!("{label}: accepted without a root manifest"));
                }
            }
            (Ok(_), true) => failures.push(format!("{label}: accepted, expected refused")),
            (Err(error), false) => {
                failures.push(format!("{label}: refused, expected accepted: {error}"));
            }
            (Err(error), true) => {
                let message = error.to_string();
                if let Some(entry) = &case.entry {
                    if !message.contains(&format!("archive entry `{entry}`")) {
                        failures.push(format!(
                            "{label}: the error does not name `{entry}`: {message}"
                        ));
                    }
                }
                if let Some(phrase) = &case.message {
                    if !message.contains(phrase.as_str()) {
                        failures.push(format!(
                            "{label}: the error does not say `{phrase}`: {message}"
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn truncated_fixtures_never_panic() {
    let mut failures = Vec::new();
    for (case, bytes) in cases() {
        let len = bytes.len();
        let mut ends = vec![0, 1, 4, 22, len / 3, len / 2, len.saturating_sub(23)];
        ends.extend([len.saturating_sub(22), len.saturating_sub(1)]);
        // Also every cut inside the end record and the last central record.
        ends.extend(len.saturating_sub(80)..len);
        ends.retain(|end| *end < len);
        ends.sort_unstable();
        ends.dedup();
        for end in ends {
            match read(&bytes[..end]) {
                Err(panic) => failures.push(format!("{} cut at {end}: PANIC {panic}", case.file)),
                // A cut valid archive loses its end record. (A refused one may be cut back to a
                // valid archive: trailing data, a comment.)
                Ok(Ok(_)) if case.verdict != "refused" => {
                    failures.push(format!("{} cut at {end}: accepted", case.file));
                }
                Ok(_) => {}
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn corrupted_bytes_never_panic() {
    // Every byte of three accepted archives (plain, data descriptors, zip.js-like extras),
    // flipped: refused or accepted, never a panic.
    let mut failures = Vec::new();
    let mut corrupted = 0;
    for (case, bytes) in cases() {
        if ![
            "ok-wrapper-layout.zip",
            "ok-data-descriptor-unsigned.zip",
            "ok-zipjs-like.zip",
        ]
        .contains(&case.file.as_str())
        {
            continue;
        }
        corrupted += 1;
        for at in 0..bytes.len() {
            let mut corrupt = bytes.clone();
            corrupt[at] ^= 0xff;
            if let Err(panic) = read(&corrupt) {
                failures.push(format!("{} byte {at} flipped: PANIC {panic}", case.file));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    assert_eq!(
        corrupted, 3,
        "an archive to corrupt is missing from cases.json"
    );
}

#[test]
fn digest_refuses_hostile_archives() {
    let home = tempfile::tempdir().unwrap();
    for file in [
        "dotdot.zip",
        "symlink.zip",
        "duplicate-different-bytes.zip",
        "crc-mismatch-stored.zip",
        "overlap-two-cd-records-one-lfh.zip",
        "trailing-data.zip",
        "random-garbage.zip",
        "layout-wrapper-mismatch.zip",
    ] {
        let path = directory().join(file);
        let output = squad(
            &["digest", path.to_str().unwrap()],
            home.path(),
            home.path(),
        );
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{file}: {stderr}");
        assert!(
            stderr.contains("is not a usable package archive"),
            "{file}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{file}: {}", text(&output.stdout));
    }
    // The two accepted layouts hold the same files, so they have the same digest.
    let digest = |file: &str| {
        let path = directory().join(file);
        let output = squad(
            &["digest", path.to_str().unwrap()],
            home.path(),
            home.path(),
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "{file}: {}",
            text(&output.stderr)
        );
        text(&output.stdout)
    };
    assert_eq!(
        digest("ok-root-layout.zip"),
        digest("ok-wrapper-layout.zip")
    );
}
