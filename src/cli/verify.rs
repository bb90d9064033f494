//! `squad verify`: prove that a package is still what was recorded.

use std::path::PathBuf;

use super::args::{LookupArgs, opencorvus_root, package_name};
use super::documents::{self, SignatureChecked, Verified};
use super::inputs::digest_path;
use super::report::drift_line;
use super::{DataFormat, ExitStatus};
use crate::digest::{Sha256Digest, TreeDigest};
use crate::install::scope::Scope;
use crate::install::{InstallError, PackageName};
use crate::output::Printer;
use crate::verify::{Record, load_record};

/// Recompute a package's digest and report every added, removed and changed file.
///
/// The package is a folder or an archive, or an installed package named as `squad list` prints
/// it (`namespace/id`, or its id): looked for in the project, then globally, or where --scope
/// says. An existing path is read as a path unless --scope or --project is given.
///
/// The expectation is a digest (--expect), or a record (--record): the JSON written by
/// `squad digest --files --format json`, or the archive `squad pack` made. For a package
/// installed by `squad install`, its install receipt is used when neither is given. A record names each
/// drifted file; a digest alone can only say that something changed. Exit status 1 on drift.
///
/// With --locked, checks the whole project instead (read-only): every squad squads.lock
/// locks is installed with exactly the locked package digest and version and declared as it
/// was locked, and, under the project's signature policy, its signatures verify again over the
/// installed digest (a key revoked or expired since is refused); a `signed_by` naming a
/// revoked key is refused even without `require_signatures`. Exit 1 when any squad does not
/// match, 2 when a signature could not be looked for.
///
/// With --signature and --public-key, checks instead that a minisign signature (from `squad
/// sign`, `squad publish --sign` or `minisign -S` over `squad sign --statement`) was made by
/// that key over this package folder's or archive's identity and package digest: exit 0 when
/// it holds, 1 when it does not (another key, another package or version, an altered or
/// malformed signature).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad verify acme/review                 the installed package, against its install receipt
  squad verify review --scope global
  squad digest pkg --files --format json > pkg.record.json
  squad verify pkg --record pkg.record.json
  squad verify pkg --record review-2026.12.01.1-expert-squad.zip
  squad verify pkg --expect 615661b74036448d6e51c542120dc7c880a099742e9d9177139f8ff2cedd9be0
  squad verify review-expert-squad.zip --signature review-2026.12.01.1.squad.minisig --public-key acme.pub
  squad verify pkg --signature pkg.minisig --public-key RWQ… --format json
  squad verify --locked                    every squad of the project against squads.lock (CI)")]
pub struct VerifyArgs {
    /// A package folder or archive, or an installed package's `namespace/id` or id. Defaults
    /// to the current directory.
    #[arg(value_name = "PATH|NAME", default_value = ".")]
    pub path: PathBuf,

    /// The expected package digest (64 lowercase hex characters).
    #[arg(long, value_name = "DIGEST")]
    pub expect: Option<String>,

    /// A record of the expected files: `squad digest --files --format json` output or a pack archive.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,

    #[command(flatten)]
    pub lookup: LookupArgs,

    /// A minisign signature to check against the package's statement (needs --public-key).
    #[arg(long, value_name = "SIG", requires = "public_key", conflicts_with_all = ["expect", "record"])]
    pub signature: Option<PathBuf>,

    /// The signer's minisign public key: a `.pub` file or the `RW…` string.
    #[arg(long, value_name = "FILE", requires = "signature")]
    pub public_key: Option<String>,

    /// Verify every squad of the project (--project, else the one found from here) against
    /// squads.lock, signatures and revocations included.
    #[arg(long, conflicts_with_all = ["expect", "record", "signature", "scope"])]
    pub locked: bool,

    /// With --locked: use no network (signatures from squad's cache only).
    #[arg(long, requires = "locked")]
    pub offline: bool,

    #[command(flatten)]
    pub network: super::args::NetworkArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// What is verified.
enum Subject {
    Path(PathBuf),
    Installed {
        scope: Scope,
        package: Box<crate::install::Inspected>,
    },
}

pub fn run(args: &VerifyArgs, printer: &Printer) -> ExitStatus {
    if args.locked {
        return run_locked(args, printer);
    }
    if let (Some(signature), Some(key)) = (&args.signature, &args.public_key) {
        return run_signature(args, signature, key, printer);
    }
    let given = match given_record(args, printer) {
        Ok(given) => given,
        Err(status) => return status,
    };
    let subject = match subject(args, printer) {
        Ok(subject) => subject,
        Err(status) => return status,
    };
    let record = match (given, &subject) {
        (Some(record), _) => record,
        (None, Subject::Path(path)) => match receipt_of(path, printer) {
            Ok(record) => record,
            Err(status) => return status,
        },
        (None, Subject::Installed { package, .. }) => match &package.record {
            Some(record) => record.clone(),
            None => {
                printer.error(
                    &format!(
                        "`{}` has no install receipt: squad did not install it, or its receipt was lost",
                        package.installed.label()
                    ),
                    Some("pass --expect DIGEST, or --record FILE with the output of `squad digest --files --format json` or a pack archive"),
                );
                return ExitStatus::Error;
            }
        },
    };
    let (actual, shown) = match &subject {
        // The raw variant of the digest (DG-1): layout changes are drift, not errors.
        Subject::Path(path) => match digest_path(
            printer,
            super::Format::Human,
            path,
            record.files.is_some(),
            false,
            &crate::archive::reader::Limits::REFERENCE,
        ) {
            Ok(actual) => (actual, path.display().to_string()),
            Err(status) => return status,
        },
        Subject::Installed { scope, package } => match &package.tree {
            Some(tree) => (
                tree.clone(),
                format!("{} ({})", package.installed.label(), scope.name()),
            ),
            None => {
                printer.error(
                    &format!(
                        "the package at `{}` cannot be read as a package tree",
                        package.installed.root.display()
                    ),
                    Some("`squad digest` on that folder says why"),
                );
                return ExitStatus::Error;
            }
        },
    };
    report(args, printer, &subject, &record, &actual, &shown)
}

/// The record --record and --expect give, if any; they must agree.
fn given_record(args: &VerifyArgs, printer: &Printer) -> Result<Option<Record>, ExitStatus> {
    let mut record = match &args.record {
        Some(path) => match load_record(path) {
            Ok(record) => Some(record),
            Err(message) => {
                printer.error(&message, None);
                return Err(ExitStatus::Error);
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
            return Err(ExitStatus::Error);
        };
        match &record {
            Some(record) if record.package_digest != digest => {
                printer.error(
                    "--expect and --record disagree about the package digest",
                    None,
                );
                return Err(ExitStatus::Error);
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
    Ok(record)
}

/// A path that exists is a path, unless --scope or --project asks for an installed package;
/// anything else must name an installed package.
fn subject(args: &VerifyArgs, printer: &Printer) -> Result<Subject, ExitStatus> {
    let lookup = args.lookup.scope.is_some() || args.lookup.project.is_some();
    let exists = args.path.symlink_metadata().is_ok();
    if !lookup && exists {
        return Ok(Subject::Path(args.path.clone()));
    }
    let text = args.path.to_str().unwrap_or_default();
    if !lookup && PackageName::parse(text).is_err() {
        printer.error(
            &format!("`{}` does not exist", args.path.display()),
            Some("name a package folder or archive, or an installed package as `squad list` prints it"),
        );
        return Err(ExitStatus::Error);
    }
    let name = package_name(text, printer)?;
    let root = opencorvus_root(printer)?;
    let (_, scopes) = args.lookup.scopes(printer)?;
    match crate::install::inspect(&name, &scopes, &root) {
        Ok((scope, package)) => Ok(Subject::Installed {
            scope,
            package: Box::new(package),
        }),
        Err(InstallError::NotInstalled(_)) => {
            let places: Vec<String> = scopes.iter().map(Scope::to_string).collect();
            let path = if exists || lookup {
                ""
            } else {
                "no such path, and "
            };
            printer.error(
                &format!(
                    "`{name}`: {path}not installed in {}",
                    places.join(" or in ")
                ),
                Some("`squad list` shows what is installed"),
            );
            Err(ExitStatus::Error)
        }
        Err(error) => {
            printer.failure(&error, None);
            Err(ExitStatus::Error)
        }
    }
}

/// The install receipt of the package at `path`, when it is an installed package.
fn receipt_of(path: &std::path::Path, printer: &Printer) -> Result<Record, ExitStatus> {
    let receipt =
        crate::env::opencorvus_root().and_then(|root| crate::install::receipts::find(&root, path));
    match receipt.map(|receipt| load_record(&receipt)) {
        Some(Ok(record)) => Ok(record),
        Some(Err(message)) => {
            printer.error(&message, None);
            Err(ExitStatus::Error)
        }
        None => {
            printer.error(
                &format!("no receipt or recorded digest for `{}`", path.display()),
                Some("pass --expect DIGEST, or --record FILE with the output of `squad digest --files --format json` or a pack archive"),
            );
            Err(ExitStatus::Error)
        }
    }
}

fn report(
    args: &VerifyArgs,
    printer: &Printer,
    subject: &Subject,
    record: &Record,
    actual: &TreeDigest,
    shown: &str,
) -> ExitStatus {
    let drift = record.drift(actual);
    let unchanged = drift.is_none();
    let drift = drift.unwrap_or_default();
    match args.format {
        DataFormat::Json => {
            let (path, package, scope) = match subject {
                Subject::Path(path) => (path.display().to_string(), None, None),
                Subject::Installed { scope, package } => (
                    package.installed.root.display().to_string(),
                    Some(format!(
                        "{}/{}",
                        package.installed.namespace, package.installed.id
                    )),
                    Some(scope.name()),
                ),
            };
            let document = Verified {
                path,
                package,
                scope,
                expected_digest: record.package_digest.hex(),
                actual_digest: actual.package_digest.hex(),
                unchanged,
                drift,
            };
            documents::print(printer, "verify", document);
        }
        DataFormat::Human => {
            if unchanged {
                printer.status(
                    "Verified",
                    &format!("{shown}: package digest {}", actual.package_digest),
                );
            } else {
                let text: String = drift.iter().map(drift_line).collect();
                printer.data(&text);
                let hint = record
                    .files
                    .is_none()
                    .then_some("pass --record to see which files changed");
                let quoted = match subject {
                    Subject::Path(_) => format!("`{shown}`"),
                    Subject::Installed { .. } => shown.to_owned(),
                };
                printer.error(
                    &format!(
                        "{quoted} has drifted: expected package digest {}, found {}",
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

/// `--signature`: whether the signature is the key's, over this package's statement.
fn run_signature(
    args: &VerifyArgs,
    signature_path: &std::path::Path,
    key: &str,
    printer: &Printer,
) -> ExitStatus {
    let key = match crate::sign::keys::public_key(key) {
        Ok(key) => key,
        Err(error) => {
            printer.failure(&error, error.hint());
            return ExitStatus::Error;
        }
    };
    let statement = match crate::sign::statement_of(&args.path) {
        Ok(statement) => statement,
        Err(error) => {
            printer.failure(&error, None);
            return error.class().into();
        }
    };
    let text = match crate::sign::keys::read_small(signature_path) {
        Ok(text) => text,
        Err(error) => {
            printer.failure(&error, None);
            return ExitStatus::Error;
        }
    };
    let parsed = crate::sign::Signature::parse(&text);
    let outcome = parsed.as_ref().map_err(|error| {
        format!(
            "`{}` is not a minisign signature: {error}",
            signature_path.display()
        )
    });
    let outcome = outcome.and_then(|signature| {
        signature
            .verify(&key, statement.text().as_bytes())
            .map_err(|error| format!("{error}"))
    });
    let signature_key = parsed
        .as_ref()
        .ok()
        .map(|signature| signature.key_id.to_string());
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "verify-signature",
            SignatureChecked {
                path: args.path.display().to_string(),
                signature_file: signature_path,
                signed: (&statement).into(),
                key_id: key.id.to_string(),
                signature_key_id: signature_key,
                trusted_comment: parsed
                    .as_ref()
                    .ok()
                    .map(|signature| signature.trusted_comment.as_str()),
                verified: outcome.is_ok(),
                error: outcome.as_ref().err().map(String::as_str),
            },
        ),
        DataFormat::Human => match &outcome {
            Ok(()) => printer.status(
                "Verified",
                &format!(
                    "{}: signed by key {} (package digest {})",
                    statement.identity(),
                    key.id,
                    statement.package_digest
                ),
            ),
            Err(message) => printer.error(
                &format!(
                    "the signature does not hold for {} ({}): {message}",
                    statement.identity(),
                    args.path.display()
                ),
                Some("`squad sign --statement PKG` prints what the signature must cover"),
            ),
        },
    }
    match outcome {
        Ok(()) => ExitStatus::Success,
        Err(_) => ExitStatus::Failure,
    }
}

/// `squad verify --locked`: the project against its lock.
fn run_locked(args: &VerifyArgs, printer: &Printer) -> ExitStatus {
    if args.path != std::path::Path::new(".") {
        printer.error(
            "--locked verifies the whole project; it takes no PATH or NAME",
            Some("`squad verify NAME` verifies one installed package"),
        );
        return ExitStatus::Error;
    }
    let project = super::args::ProjectArgs {
        project: args.lookup.project.clone(),
    };
    let run = match super::args::ProjectRun::new(&project, printer) {
        Ok(run) => run,
        Err(status) => return status,
    };
    let client = (!args.offline).then(|| args.network.client());
    let settings = run.settings(client.as_ref(), 1);
    let format = super::Format::from(args.format);
    let report = match crate::project::check::check(
        &run.project,
        &settings,
        &mut super::report::waiting(printer),
    ) {
        Ok(report) => report,
        Err(error) => {
            return super::failures::project_error(printer, format, "verify", &run.project, error);
        }
    };
    let failed: Vec<&crate::project::check::Checked> = report.failed().collect();
    let status = failed.iter().fold(ExitStatus::Success, |status, checked| {
        status.max(if checked.operational {
            ExitStatus::Error
        } else {
            ExitStatus::Failure
        })
    });
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "verify-locked",
            documents::LockVerified {
                project: &run.project.shown,
                status: match status {
                    ExitStatus::Success => "ok",
                    ExitStatus::Failure => "refused",
                    ExitStatus::Error => "error",
                },
                squads: &report.squads,
            },
        ),
        DataFormat::Human => {
            for checked in &report.squads {
                let version = checked.version.as_deref().unwrap_or("-");
                if checked.problems.is_empty() {
                    let signed = checked
                        .signed_by
                        .as_deref()
                        .map(|key| format!(", signed by key {key}"))
                        .unwrap_or_default();
                    printer.status(
                        "Verified",
                        &format!("{} {version} (as locked{signed})", checked.name),
                    );
                }
            }
            for checked in &failed {
                printer.error(
                    &format!("{}: {}", checked.name, checked.problems.join("; ")),
                    None,
                );
            }
        }
    }
    let lock = run.project.display(crate::project::lockfile::FILE);
    if failed.is_empty() {
        printer.status(
            "Verified",
            &format!(
                "{} squad{} against {lock}",
                report.squads.len(),
                crate::text::plural(report.squads.len())
            ),
        );
    } else {
        printer.error(
            &format!(
                "{} of {} squad{} {} not match {lock}",
                failed.len(),
                report.squads.len(),
                crate::text::plural(report.squads.len()),
                if failed.len() == 1 { "does" } else { "do" }
            ),
            Some("each line says what does not match; `squad sync --locked` installs exactly the locked bytes, and a revoked signer needs the publisher's new signature"),
        );
    }
    status
}
