//! `squad digest`: the package's identity, computed exactly as the reference does.

use std::path::{Path, PathBuf};

use super::report::refused_package;
use super::{ExitStatus, Format};
use crate::archive::reader::{Limits, read_package_file};
use crate::digest::{
    DigestDocument, Progress, TreeDigest, digest_entries, digest_entries_with_files,
};
use crate::output::{Printer, ProgressLine};
use crate::package::{ContractDigestError, contract_digest};
use crate::snapshot::is_archive;
use std::sync::atomic::Ordering;

/// Print the package digest (SHA-256, package-tree v1) of a folder or of a `squad pack` archive.
///
/// The digest covers the exact bytes of every file, ordered by UTF-16 code units of their
/// paths; the manifest's content plays no role, so a package in progress, or with a broken
/// manifest, still has a digest. The folder must keep the tree contract: expert-squad.jsonc and
/// README.md at the root (selector.md is not needed), only the allowed top-level entries, no
/// links, no runtime-internal entries. A folder and the archive `squad pack` makes of it have
/// the same digest.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad digest                          digest of the package in the current directory
  squad digest pkg --files              every file with its own SHA-256 and size
  squad digest release-review-2026.11.30.1-expert-squad.zip --format json")]
pub struct DigestArgs {
    /// A package folder or a `.zip` made by `squad pack`. Defaults to the current directory.
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,

    /// Also list every file with its SHA-256 and size.
    #[arg(long)]
    pub files: bool,

    /// Read an archive beyond the reference's import limits (512 entries, 4 MiB per file,
    /// 16 MiB in all); without it such an archive is refused, so a ZIP bomb cannot fill memory.
    #[arg(long)]
    pub no_limits: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Digests a folder under the raw tree contract, rendering contract violations on failure.
/// The root `.opencorvus-meta.json` of an installed package is excluded, not refused (DG-1).
pub(super) fn digest_path(
    printer: &Printer,
    format: Format,
    path: &Path,
    with_files: bool,
    check_root: bool,
    limits: &Limits,
) -> Result<TreeDigest, ExitStatus> {
    let shown = path.display().to_string();
    if is_archive(path) {
        let package = read_package_file(path, limits).map_err(|error| {
            printer.error(
                &format!("`{shown}` is not a usable package archive: {error}"),
                Some("archives are read within the reference's import limits; pass --no-limits for one packed with --no-limits"),
            );
            ExitStatus::Failure
        })?;
        return Ok(if with_files {
            digest_entries_with_files(&package.files)
        } else {
            TreeDigest {
                package_digest: digest_entries(&package.files),
                files: Vec::new(),
            }
        });
    }
    let progress = std::sync::Arc::new(Progress::default());
    let display = {
        let progress = progress.clone();
        ProgressLine::start(move || {
            format!(
                "    Digesting {}/{} files, {} MiB",
                progress.files.load(Ordering::Relaxed),
                progress.total.load(Ordering::Relaxed),
                progress.bytes.load(Ordering::Relaxed) >> 20
            )
        })
    };
    let result = contract_digest(path, check_root, with_files, &progress);
    // The progress line is erased before anything else is printed.
    drop(display);
    match result {
        Ok(tree) => Ok(tree),
        Err(ContractDigestError::Contract(diagnostics)) => {
            refused_package(printer, format, &shown, &diagnostics, &Default::default());
            printer.error(
                &format!("`{shown}` breaks the package tree contract; it has no digest"),
                None,
            );
            Err(ExitStatus::Failure)
        }
        Err(error) => {
            printer.failure(&error, None);
            Err(ExitStatus::Error)
        }
    }
}

pub fn run(args: &DigestArgs, printer: &Printer) -> ExitStatus {
    let limits = if args.no_limits {
        Limits::NONE
    } else {
        Limits::REFERENCE
    };
    let tree = match digest_path(printer, args.format, &args.path, args.files, true, &limits) {
        Ok(tree) => tree,
        Err(status) => return status,
    };
    match args.format {
        Format::Json => {
            let document = DigestDocument {
                schema_version: crate::diag::json::SCHEMA_VERSION,
                kind: "digest".to_owned(),
                path: args.path.display().to_string(),
                source: Some(
                    if is_archive(&args.path) {
                        "archive"
                    } else {
                        "folder"
                    }
                    .to_owned(),
                ),
                package_digest: tree.package_digest,
                files: args.files.then(|| tree.files.as_slice().into()),
            };
            printer.data(&(serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"));
        }
        Format::Human | Format::Sarif | Format::Github => {
            let mut text = String::new();
            for file in &tree.files {
                text.push_str(&format!(
                    "{}  {:>10}  {}\n",
                    file.sha256, file.size, file.path
                ));
            }
            text.push_str(&tree.package_digest.hex());
            text.push('\n');
            printer.data(&text);
        }
    }
    ExitStatus::Success
}
