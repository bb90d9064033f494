//! `squad digest`: the package's identity, computed exactly as the reference does.

use std::path::PathBuf;

use super::documents::{self, DigestedInTree, DigestedTree, TreeSummary};
use super::inputs::digest_path;
use super::{ExitStatus, Format};
use crate::archive::reader::Limits;
use crate::digest::DigestDocument;
use crate::output::Printer;
use crate::snapshot::is_archive;

/// Print the package digest (SHA-256, package-tree v1) of a folder or of a `squad pack` archive;
/// or of every package of a tree (a folder whose child folders are packages), one line each.
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
  squad digest release-review-2026.11.30.1-expert-squad.zip --format json
  squad digest squads/                  `<digest>  <folder>` for every package of the tree

Exit status: 0 digested, 1 a package breaks the tree contract (over a tree: any of them), 2
usage or I/O error.")]
pub struct DigestArgs {
    /// A package folder, a folder of packages, or a `.zip` made by `squad pack`. Defaults to
    /// the current directory.
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

pub fn run(args: &DigestArgs, printer: &Printer) -> ExitStatus {
    let limits = if args.no_limits {
        Limits::NONE
    } else {
        Limits::REFERENCE
    };
    if !is_archive(&args.path) {
        if let crate::package::Located::Packages(packages) = crate::package::locate(&args.path) {
            return digest_tree(args, &packages, printer);
        }
    }
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
            printer.data(&crate::output::json_text(&document));
        }
        Format::Human | Format::Sarif | Format::Github => {
            // A folder's file names are whoever made the files' (the archive reader refuses
            // such names, a folder cannot): each listed on its own line, neutralised. The
            // JSON keeps them exact.
            let mut text = String::new();
            for file in &tree.files {
                text.push_str(&format!(
                    "{}  {:>10}  {}\n",
                    file.sha256,
                    file.size,
                    crate::text::remote(&file.path, usize::MAX)
                ));
            }
            text.push_str(&tree.package_digest.hex());
            text.push('\n');
            printer.data(&text);
        }
    }
    ExitStatus::Success
}

fn digest_tree(
    args: &DigestArgs,
    packages: &[std::path::PathBuf],
    printer: &Printer,
) -> ExitStatus {
    let outcomes = crate::tree::digests(packages);
    match args.format {
        Format::Json => documents::print(
            printer,
            "digest-tree",
            DigestedTree {
                path: args.path.display().to_string(),
                packages: documents::tree_packages(&outcomes, |tree| DigestedInTree {
                    status: "digested",
                    package_digest: tree.package_digest.hex(),
                }),
                summary: TreeSummary {
                    packages: outcomes.len(),
                    failed: outcomes
                        .iter()
                        .filter(|outcome| outcome.result.is_err())
                        .count(),
                },
            },
        ),
        Format::Human | Format::Sarif | Format::Github => {
            let mut text = String::new();
            for outcome in &outcomes {
                if let Ok(tree) = &outcome.result {
                    text.push_str(&format!(
                        "{}  {}\n",
                        tree.package_digest.hex(),
                        crate::text::remote(&outcome.shown(), usize::MAX)
                    ));
                }
            }
            printer.data(&text);
        }
    }
    super::failures::report_package_failures(printer, args.format, &outcomes)
}
