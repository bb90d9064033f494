//! `squad pack`: the canonical, byte-reproducible ZIP of a valid package.

use std::path::PathBuf;

use super::documents::{self, Packed, PackedInTree, PackedTree, TreeSummary};
use super::report::refused_package;
use super::{ExitStatus, Format};
use crate::archive::reader::Limits;
use crate::output::Printer;
use crate::pack::{PackError, pack_folder};

/// Validate a package folder and write its canonical ZIP archive; or every package of a tree
/// (a folder whose child folders are packages), each archive under its default name in the
/// output directory.
///
/// The archive holds `<namespace>/<id>/<path>` entries in UTF-8 byte order, with fixed
/// timestamps and permissions and no extra fields: packing the same package twice gives the
/// same bytes on any machine. An invalid package is not packed. A package beyond the
/// reference's import limits (512 entries, 4 MiB per file, 16 MiB in all, 18 MiB archive) is
/// refused unless --no-limits is given.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad pack                          writes <id>-<version>-expert-squad.zip here
  squad pack pkg -o dist/             the same name, inside dist/ (created if needed)
  squad pack pkg -o dist/pkg.zip      chooses the output file
  squad pack pkg -o dist/pkg.zip --force   replaces an existing output
  squad pack squads/ -o dist/         every package of the tree, one archive each

Exit status: 0 packed, 1 an invalid package or one beyond the limits (over a tree: any of its
packages; the others are packed), 2 usage or I/O error.")]
pub struct PackArgs {
    /// The package folder, or a folder of packages. Defaults to the current directory.
    #[arg(value_name = "PATH", default_value = ".")]
    pub path: PathBuf,

    /// Output file, or a directory for the default name (an existing one, or a path ending
    /// in `/`; for a tree, always a directory) [default: <id>-<version>-expert-squad.zip in
    /// the current directory].
    #[arg(short, long, value_name = "FILE|DIR/")]
    pub output: Option<PathBuf>,

    /// Replace an existing output file.
    #[arg(long)]
    pub force: bool,

    /// Pack even beyond the reference's import limits.
    #[arg(long)]
    pub no_limits: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(args: &PackArgs, printer: &Printer) -> ExitStatus {
    let limits = if args.no_limits {
        Limits::NONE
    } else {
        Limits::REFERENCE
    };
    let tree = match super::inputs::tree(&args.path, args.format, printer) {
        Ok(tree) => tree,
        Err(status) => return status,
    };
    if tree.is_tree {
        return pack_tree(args, &tree, &limits, printer);
    }
    match pack_folder(&args.path, args.output.as_deref(), args.force, &limits) {
        Ok(packed) => {
            match args.format {
                Format::Json => {
                    let document = Packed {
                        path: packed.path.display().to_string(),
                        namespace: packed.identity.namespace,
                        id: packed.identity.id,
                        version: packed.identity.version,
                        package_digest: packed.package_digest.hex(),
                        archive_sha256: packed.archive_sha256.hex(),
                        file_count: packed.file_count,
                        bytes: packed.archive_bytes,
                    };
                    documents::print(printer, "packed", document);
                }
                Format::Human | Format::Sarif | Format::Github => {
                    printer.status(
                        "Packed",
                        &format!(
                            "{}/{} {} ({} files, {} bytes) to {}",
                            packed.identity.namespace,
                            packed.identity.id,
                            packed.identity.version,
                            packed.file_count,
                            packed.archive_bytes,
                            packed.path.display()
                        ),
                    );
                    printer.data(&format!(
                        "archive_sha256  {}\npackage_digest  {}\n",
                        packed.archive_sha256, packed.package_digest
                    ));
                }
            }
            ExitStatus::Success
        }
        Err(PackError::Invalid(report)) => {
            let shown = args.path.display().to_string();
            refused_package(
                printer,
                args.format,
                &shown,
                &report.diagnostics,
                &report.sources,
            );
            printer.error(
                &format!("package `{shown}` is invalid; nothing was packed"),
                Some("run `squad validate` for details"),
            );
            ExitStatus::Failure
        }
        Err(error) => {
            let hint = match &error {
                PackError::OutputExists(_) => {
                    Some("pass --force to replace it, or choose another path with -o")
                }
                PackError::OutputInsidePackage(_) => {
                    Some("write the archive outside the package folder")
                }
                _ => None,
            };
            printer.failure(&error, hint);
            error.class().into()
        }
    }
}

fn pack_tree(
    args: &PackArgs,
    tree: &crate::tree::Tree,
    limits: &Limits,
    printer: &Printer,
) -> ExitStatus {
    let outcomes =
        match crate::pack::pack_tree(&tree.packages, args.output.as_deref(), args.force, limits) {
            Ok(outcomes) => outcomes,
            Err(error) => {
                printer.failure(&error, None);
                return error.class().into();
            }
        };
    let output = args
        .output
        .as_ref()
        .map_or_else(|| ".".to_owned(), |output| output.display().to_string());
    match args.format {
        Format::Json => documents::print(
            printer,
            "pack-tree",
            PackedTree {
                path: args.path.display().to_string(),
                output,
                packages: documents::tree_packages(&outcomes, |packed| PackedInTree {
                    status: "packed",
                    archive: packed.path.display().to_string(),
                    namespace: packed.identity.namespace.clone(),
                    id: packed.identity.id.clone(),
                    version: packed.identity.version.clone(),
                    package_digest: packed.package_digest.hex(),
                    archive_sha256: packed.archive_sha256.hex(),
                    file_count: packed.file_count,
                    bytes: packed.archive_bytes,
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
            for outcome in &outcomes {
                if let Ok(packed) = &outcome.result {
                    printer.status(
                        "Packed",
                        &format!(
                            "{}/{} {} ({} files, {} bytes) to {}",
                            packed.identity.namespace,
                            packed.identity.id,
                            packed.identity.version,
                            packed.file_count,
                            packed.archive_bytes,
                            packed.path.display()
                        ),
                    );
                    printer.data(&format!("{}\n", packed.path.display()));
                }
            }
        }
    }
    super::failures::report_package_failures(printer, args.format, &outcomes)
}
