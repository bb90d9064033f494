//! `squad version bump` and `squad version check`: revisions as the reference stamps them.

use std::path::{Path, PathBuf};

use super::ExitStatus;
use crate::manifest::MANIFEST_FILE;
use crate::output::Printer;
use crate::release::CheckError;
use crate::version::{Version, locate_in_manifest, splice_version};

/// Work with the package's version (YYYY.MM.DD.N).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad version bump                 stamp the next revision of today's date
  squad version check --published dist/pkg.zip")]
pub struct VersionArgs {
    #[command(subcommand)]
    pub command: VersionCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum VersionCommand {
    /// Stamp the next version: today's UTC date, revision N+1 if the version is already dated
    /// today, else 1. A version dated after today is refused (a bump never goes backwards).
    /// Only the version string changes; comments and layout are kept byte for byte. An invalid
    /// version is repaired: `2026.12.1.1` is read as `2026.12.01.1`, anything else is replaced
    /// by today's first revision.
    #[command(after_help = "Example:
  squad version bump my-squad      2026.11.30.1 -> 2026.11.30.2 when run the same day")]
    Bump {
        /// The package folder. Defaults to the current directory.
        #[arg(value_name = "PATH", default_value = ".")]
        path: PathBuf,
    },
    /// Check the version for CI: a real date, not after today; with --published, also that the
    /// bytes did not change since that archive without a new version.
    #[command(after_help = "Examples:
  squad version check
  squad version check pkg --published dist/pkg-2026.12.01.1-expert-squad.zip")]
    Check {
        /// The package folder. Defaults to the current directory.
        #[arg(value_name = "PATH", default_value = ".")]
        path: PathBuf,
        /// The last published archive (made by `squad pack`).
        #[arg(long, value_name = "ARCHIVE")]
        published: Option<PathBuf>,
    },
}

pub fn run(args: &VersionArgs, printer: &Printer) -> ExitStatus {
    match &args.command {
        VersionCommand::Bump { path } => bump(path, printer),
        VersionCommand::Check { path, published } => check(path, published.as_deref(), printer),
    }
}

fn read_manifest(path: &Path, printer: &Printer) -> Result<(PathBuf, String), ExitStatus> {
    let manifest = path.join(MANIFEST_FILE);
    // A regular file only: a FIFO would hang, a link would be rewritten as a file.
    let bytes = crate::fs::read_regular(&manifest).map_err(|error| {
        printer.error(
            &format!("cannot read `{}`: {error}", manifest.display()),
            None,
        );
        ExitStatus::Error
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        printer.error(
            &format!(
                "`{}` is not valid UTF-8; it cannot be rewritten safely",
                manifest.display()
            ),
            None,
        );
        ExitStatus::Failure
    })?;
    Ok((manifest, text))
}

/// The version and the span of its literal, so a bump splices without parsing again.
fn current_version(
    manifest: &Path,
    text: &str,
    printer: &Printer,
) -> Result<(std::ops::Range<usize>, Version), ExitStatus> {
    let (span, value) = locate_in_manifest(text).map_err(|message| {
        printer.error(&format!("`{}`: {message}", manifest.display()), None);
        ExitStatus::Failure
    })?;
    let version = Version::parse(&value).map_err(|error| {
        let hint = match crate::version::repaired(&value) {
            Some(repaired) => format!(
                "did you mean `{repaired}`? `squad fix` writes it so; `squad version bump` stamps a new version"
            ),
            None => "`squad version bump` replaces it with today's date".to_owned(),
        };
        printer.error(
            &format!("`{}`: version `{value}`: {error}", manifest.display()),
            Some(&hint),
        );
        ExitStatus::Failure
    })?;
    Ok((span, version))
}

/// The manifest's path, text and valid current version, or the status to exit with (after
/// saying why).
fn read_versioned_manifest(
    path: &Path,
    printer: &Printer,
) -> Result<(PathBuf, String, std::ops::Range<usize>, Version), ExitStatus> {
    let (manifest, text) = read_manifest(path, printer)?;
    let (span, current) = current_version(&manifest, &text, printer)?;
    Ok((manifest, text, span, current))
}

fn bump(path: &Path, printer: &Printer) -> ExitStatus {
    let (manifest, text) = match read_manifest(path, printer) {
        Ok(read) => read,
        Err(status) => return status,
    };
    let (span, value) = match locate_in_manifest(&text) {
        Ok(found) => found,
        Err(message) => {
            printer.error(
                &format!("`{}`: {message}", manifest.display()),
                Some("write `\"version\": \"YYYY.MM.DD.1\"` at the top level of the manifest, then bump"),
            );
            return ExitStatus::Failure;
        }
    };
    let today = crate::env::today_utc();
    // An invalid version is repaired: written with its zeros when that makes it valid, else
    // replaced by today's first revision.
    let (current, repaired) = match Version::parse(&value) {
        Ok(current) => (Some(current), None),
        Err(_) => match crate::version::repaired(&value).and_then(|v| Version::parse(&v).ok()) {
            Some(current) => (Some(current.clone()), Some(current.to_string())),
            None => (None, None),
        },
    };
    let next = match current.map(|current| current.bump(today)) {
        Some(Ok(next)) => next,
        Some(Err(message)) => {
            printer.error(
                &format!("`{}`: {message}", manifest.display()),
                Some("set the version by hand (or check the system clock); nothing was changed"),
            );
            return ExitStatus::Failure;
        }
        None => Version {
            year: today.year,
            month: today.month,
            day: today.day,
            revision: "1".to_owned(),
        },
    };
    let rewritten = splice_version(&text, span, &next.to_string());
    if let Err(error) = crate::fs::replace_file(&manifest, rewritten.as_bytes()) {
        printer.error(
            &format!("cannot write `{}`: {error}", manifest.display()),
            None,
        );
        return ExitStatus::Error;
    }
    let name = crate::manifest::declared(&text)
        .and_then(|declared| Some(format!("{}/{} ", declared.namespace?, declared.id?)))
        .unwrap_or_default();
    let before = match (&repaired, Version::parse(&value).is_ok()) {
        (_, true) => value.clone(),
        (Some(repaired), false) => format!("{value} (read as {repaired})"),
        (None, false) => format!("{value} (not a valid version)"),
    };
    printer.status("Bumped", &format!("{name}{before} -> {next}"));
    printer.data(&format!("{next}\n"));
    ExitStatus::Success
}

fn check(path: &Path, published: Option<&Path>, printer: &Printer) -> ExitStatus {
    let (_, text, _, current) = match read_versioned_manifest(path, printer) {
        Ok(read) => read,
        Err(status) => return status,
    };
    if let Err(error) =
        crate::release::check(path, &text, &current, crate::env::today_utc(), published)
    {
        let hint = match error {
            CheckError::Future { .. } => Some("`squad version bump` stamps today's date"),
            CheckError::Unbumped { .. } => {
                Some("run `squad version bump`: a published (namespace, id, version) is immutable")
            }
            _ => None,
        };
        printer.failure(&error, hint);
        return error.class().into();
    }
    let name = crate::manifest::declared(&text)
        .and_then(|declared| Some(format!("{}/{} ", declared.namespace?, declared.id?)))
        .unwrap_or_default();
    printer.status("Checked", &format!("{name}version {current}"));
    ExitStatus::Success
}
