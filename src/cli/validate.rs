//! `squad validate`: check package folders, and documents of the neighbouring formats, against
//! every rule and report all problems at once.

use std::path::{Path, PathBuf};

use super::report::{Failure, Inspected, report};
use super::{ExitStatus, Format};
use crate::diag::Diagnostic;
use crate::interop::document::{Document, Read};
use crate::interop::external::ExternalSchema;
use crate::interop::{self, Kind, Level, Options, SchemaVariant};
use crate::manifest::MANIFEST_FILE;
use crate::output::Printer;
use crate::package;

/// Check expert-squad packages, and plays, router contracts, Open Floor documents, handoffs and
/// collaborations, reporting every problem with file:line:col.
///
/// A folder is a package. A file is recognised by its content (an Open Floor envelope has
/// `openFloor`, a play has `roles` and `stop`, …) unless --kind says what it is. Validation is
/// read-only. Each problem has a stable code (`squad explain CODE` describes it); errors make
/// the input invalid, warnings and notes do not.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad validate                                validate the package in the current directory
  squad validate pkgs/a pkgs/b                  validate several packages
  squad validate fan-out.play.json              a play, recognised by its content
  squad validate --kind handoff task.json       say what the file is
  squad validate --level lenient envelope.json  real-world Open Floor samples
  squad validate --schema play.v1.json x.json   also against a local upstream schema
  squad validate --format json . > report.json  machine-readable report
  squad validate --format sarif . > squad.sarif upload to code scanning
  squad validate --format github .              annotations in a GitHub Actions run")]
pub struct ValidateArgs {
    /// Package folders (each holds expert-squad.jsonc) or documents. Defaults to the current
    /// directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// What the inputs are; by default told from each file's content.
    #[arg(long, value_enum)]
    pub kind: Option<Kind>,

    /// How strictly to check documents of the neighbouring formats.
    #[arg(long, value_enum, default_value_t = Level::Spec)]
    pub level: Level,

    /// The Open Floor envelope schema to check against.
    #[arg(long, value_enum, default_value_t = SchemaVariant::Js)]
    pub schema_variant: SchemaVariant,

    /// Also check documents against this local copy of their upstream JSON Schema (for
    /// example the agents.play@1 or AgentHandoff schema, which squad does not embed). The
    /// format's draft is used; nothing is fetched.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,

    /// Exit 1 when there are warnings, too.
    #[arg(long)]
    pub deny_warnings: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(args: &ValidateArgs, printer: &Printer) -> ExitStatus {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let options = Options {
        level: args.level,
        schema_variant: args.schema_variant,
    };
    let mut schema = args.schema.as_deref().map(ExternalSchema::new);
    let mut results = Vec::new();
    for path in &paths {
        // A folder without a manifest is a folder of packages, or no package at all.
        let located = match args.kind {
            None | Some(Kind::Package) => package::locate(path),
            Some(_) => package::Located::Package,
        };
        match located {
            package::Located::Package => results.push((
                path.display().to_string(),
                check_path(path, args.kind, &options, schema.as_mut()),
            )),
            package::Located::Packages(children) => {
                printer.detail(&format!(
                    "`{}` holds no {MANIFEST_FILE}; validating the {} packages in it",
                    path.display(),
                    children.len()
                ));
                for child in children {
                    results.push((child.display().to_string(), check_package(&child)));
                }
            }
            package::Located::NotAPackage => results.push((
                path.display().to_string(),
                Err(Failure {
                    message: not_a_package(path),
                    hint: None,
                }),
            )),
        }
    }
    for (shown, result) in &results {
        if let Ok(inspected) = result {
            describe(printer, shown, inspected);
        }
    }
    report(printer, args.format, args.deny_warnings, results)
}

/// The refusal for a folder that holds no manifest, in it or in any child.
pub(super) fn not_a_package(path: &Path) -> String {
    format!(
        "`{}` is not a squad package (no {MANIFEST_FILE}); create one with `squad new`",
        path.display()
    )
}

/// With `--verbose`, what was read for one input.
fn describe(printer: &Printer, shown: &str, inspected: &Inspected) {
    if !printer.verbose {
        return;
    }
    let mut files: Vec<&String> = inspected.sources.keys().collect();
    files.sort();
    let bytes: usize = inspected
        .sources
        .values()
        .map(|source| source.text.len())
        .sum();
    let what = match &inspected.name {
        Some(name) => format!("{} {name}", inspected.kind.noun()),
        None => inspected.kind.noun().to_owned(),
    };
    printer.detail(&format!(
        "{shown}: {what}; read {} text file{} ({bytes} bytes){}{}; {} diagnostic{}",
        files.len(),
        crate::text::plural(files.len()),
        if files.is_empty() { "" } else { ": " },
        files
            .iter()
            .map(|file| file.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        inspected.diagnostics.len(),
        crate::text::plural(inspected.diagnostics.len()),
    ));
}

fn check_path(
    path: &Path,
    kind: Option<Kind>,
    options: &Options,
    schema: Option<&mut ExternalSchema>,
) -> Result<Inspected, Failure> {
    let shown = path.display();
    if path.is_dir() {
        if kind.is_some_and(|kind| kind != Kind::Package) {
            return Err(Failure {
                message: format!("`{shown}` is a folder; only a package is a folder"),
                hint: Some("pass the document's file, or drop --kind"),
            });
        }
        return check_package(path);
    }
    if crate::snapshot::is_archive(path) {
        return match package::validate_archive(path) {
            Ok(report) => Ok(Inspected::package(report)),
            Err(package::ArchiveValidateError::Archive(error)) => Err(Failure {
                message: format!("`{shown}` is not a usable package archive: {error}"),
                hint: Some(
                    "archives are read within the reference's import limits, with the checks `squad install` makes",
                ),
            }),
            Err(error) => Err(Failure {
                message: crate::error::chain(&error),
                hint: None,
            }),
        };
    }
    if path.file_name().is_some_and(|name| name == MANIFEST_FILE)
        && kind.is_none_or(|kind| kind == Kind::Package)
    {
        let parent = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty());
        return check_package(parent.unwrap_or(Path::new(".")));
    }
    if !path.exists() {
        if kind.is_some_and(|kind| kind != Kind::Package) {
            return Err(Failure {
                message: format!("`{shown}` does not exist"),
                hint: None,
            });
        }
        return check_package(path);
    }
    check_document(path, kind, options, schema, |_, _| {})
}

/// Checks the document at `path` as `kind`, or as what its content says it is, against
/// `schema` too when given; `also` adds the findings of checks only the caller knows about.
/// A file that is not JSON is a finding; one that cannot be read, or whose kind cannot be
/// told, a failure.
pub(super) fn check_document(
    path: &Path,
    kind: Option<Kind>,
    options: &Options,
    schema: Option<&mut ExternalSchema>,
    also: impl FnOnce(&Document, &mut Vec<Diagnostic>),
) -> Result<Inspected, Failure> {
    let shown = path.display();
    let document = match Document::read(path) {
        Ok(Read::Parsed(document)) => document,
        Ok(Read::Unparsed(_)) if kind.is_none() && !is_json_name(path) => {
            return Err(Failure {
                message: format!(
                    "`{shown}` is not a folder (a package is a folder that holds {MANIFEST_FILE}) nor a JSON document"
                ),
                hint: Some("pass --kind to check the file as a document of that kind"),
            });
        }
        Ok(Read::Unparsed(unparsed)) => {
            // Not JSON, or too large: a finding about the file, whatever kind it was meant to be.
            return Ok(Inspected::document(
                kind.unwrap_or(Kind::Unknown),
                vec![unparsed.diagnostic],
                unparsed.source,
            ));
        }
        Err(error) => {
            return Err(Failure {
                message: format!("cannot read `{shown}`: {error}"),
                hint: None,
            });
        }
    };
    let kind = match kind.or_else(|| interop::sniff(&document.value)) {
        Some(Kind::Package) => {
            return Err(Failure {
                message: format!("`{shown}` is a manifest; validate its package folder instead"),
                hint: Some("a package is checked as a whole: `squad validate DIR`"),
            });
        }
        Some(kind) => kind,
        None => {
            return Err(Failure {
                message: format!(
                    "cannot tell what kind of document `{shown}` is; pass --kind with one of: {}",
                    Kind::ALL
                        .iter()
                        .map(|kind| kind.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                hint: Some("`squad validate --help` lists what each kind is"),
            });
        }
    };
    let mut diagnostics = interop::check(&document, kind, options);
    if let Some(schema) = schema {
        let extra = schema
            .check(&document, kind, options.level, &diagnostics)
            .map_err(|message| Failure {
                message,
                hint: None,
            })?;
        diagnostics.extend(extra);
    }
    also(&document, &mut diagnostics);
    Ok(Inspected::document(kind, diagnostics, document.source))
}

fn check_package(path: &Path) -> Result<Inspected, Failure> {
    match package::validate(path) {
        Ok(report) => Ok(Inspected::package(report)),
        Err(error) => Err(Failure {
            message: crate::error::chain(&error),
            hint: None,
        }),
    }
}

fn is_json_name(path: &Path) -> bool {
    path.extension().is_some_and(|extension| {
        extension.eq_ignore_ascii_case("json") || extension.eq_ignore_ascii_case("jsonc")
    })
}
