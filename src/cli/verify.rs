//! `squad verify`: prove that a package is still what was recorded.

use std::path::PathBuf;

use serde::Serialize;

use super::digest::digest_path;
use super::{DataFormat, ExitStatus};
use crate::digest::Sha256Digest;
use crate::output::Printer;
use crate::verify::{Drift, DriftKind, Record, compare, load_record};

/// Recompute a package's digest and report every added, removed and changed file.
///
/// The expectation is a digest (--expect), or a record (--record): the JSON written by
/// `squad digest --files --format json`, or the archive `squad pack` made. For a package
/// installed by `squad install`, its install receipt is used when neither is given. A record names each
/// drifted file; a digest alone can only say that something changed. Exit status 1 on drift.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad digest pkg --files --format json > pkg.record.json
  squad verify pkg --record pkg.record.json
  squad verify pkg --record release-review-expert-squad.zip
  squad verify pkg --expect 615661b74036448d6e51c542120dc7c880a099742e9d9177139f8ff2cedd9be0")]
pub struct VerifyArgs {
    /// The package folder. Defaults to the current directory.
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,

    /// The expected package digest (64 lowercase hex characters).
    #[arg(long, value_name = "DIGEST")]
    pub expect: Option<String>,

    /// A record of the expected files: `squad digest --files --format json` output or a pack archive.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

#[derive(Serialize)]
struct JsonVerify {
    schema_version: u32,
    #[serde(rename = "type")]
    kind: &'static str,
    path: String,
    expected_digest: String,
    actual_digest: String,
    unchanged: bool,
    drift: Vec<Drift>,
}

pub fn run(args: &VerifyArgs, printer: &Printer) -> ExitStatus {
    let mut record = match &args.record {
        Some(path) => match load_record(path) {
            Ok(record) => Some(record),
            Err(message) => {
                printer.error(&message, None);
                return ExitStatus::Error;
            }
        },
        None => None,
    };
    if let Some(expect) = &args.expect {
        let Some(digest) = Sha256Digest::parse(expect) else {
            printer.error(
                &format!("`{expect}` is not a digest"),
                Some("a package digest is 64 lowercase hex characters"),
            );
            return ExitStatus::Error;
        };
        match &record {
            Some(record) if record.package_digest != digest => {
                printer.error(
                    "--expect and --record disagree about the package digest",
                    None,
                );
                return ExitStatus::Error;
            }
            Some(_) => {}
            None => {
                record = Some(Record {
                    package_digest: digest,
                    files: None,
                })
            }
        }
    }
    // An installed package: its install receipt.
    if record.is_none() {
        let receipt = crate::env::opencorvus_root()
            .and_then(|root| crate::install::receipts::find(&root, &args.path));
        if let Some(receipt) = receipt {
            match load_record(&receipt) {
                Ok(loaded) => record = Some(loaded),
                Err(message) => {
                    printer.error(&message, None);
                    return ExitStatus::Error;
                }
            }
        }
    }
    let Some(record) = record else {
        printer.error(
            &format!("no receipt or recorded digest for `{}`", args.path.display()),
            Some("pass --expect DIGEST, or --record FILE with the output of `squad digest --files --format json` or a pack archive"),
        );
        return ExitStatus::Error;
    };
    // The raw variant of the digest (DG-1): layout changes are drift, not errors.
    let actual = match digest_path(
        printer,
        super::Format::Human,
        &args.path,
        record.files.is_some(),
        false,
        &crate::archive::reader::Limits::REFERENCE,
    ) {
        Ok(actual) => actual,
        Err(status) => return status,
    };
    let unchanged = actual.package_digest == record.package_digest;
    let drift = match &record.files {
        Some(files) if !unchanged => compare(files, &actual.files),
        _ => Vec::new(),
    };
    match args.format {
        DataFormat::Json => {
            let document = JsonVerify {
                schema_version: crate::diag::json::SCHEMA_VERSION,
                kind: "verify",
                path: args.path.display().to_string(),
                expected_digest: record.package_digest.hex(),
                actual_digest: actual.package_digest.hex(),
                unchanged,
                drift,
            };
            printer.data(&(serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"));
        }
        DataFormat::Human => {
            let shown = args.path.display();
            if unchanged {
                printer.status(
                    "Verified",
                    &format!("{shown}: package digest {}", actual.package_digest),
                );
            } else {
                let mut text = String::new();
                for item in &drift {
                    let kind = match item.kind {
                        DriftKind::Added => "added",
                        DriftKind::Removed => "removed",
                        DriftKind::Changed => "changed",
                    };
                    text.push_str(&format!("{kind:>8}  {}\n", item.path));
                }
                printer.data(&text);
                let hint = record
                    .files
                    .is_none()
                    .then_some("pass --record to see which files changed");
                printer.error(
                    &format!(
                        "`{shown}` has drifted: expected package digest {}, found {}",
                        record.package_digest, actual.package_digest
                    ),
                    hint,
                );
            }
        }
    }
    if unchanged {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    }
}
