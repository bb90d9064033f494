//! `squad collab validate`: check a collaboration definition against the squads it composes.

use std::path::PathBuf;

use super::report::{Inspected, report};
use super::{ExitStatus, Format};
use crate::diag::{Code, Diagnostic, Severity};
use crate::interop::Kind;
use crate::interop::collab::{check_document, duplicate_squads};
use crate::interop::document::{self, Document, Read};
use crate::interop::squad::{LoadError, Squad};
use crate::output::Printer;

/// Work with collaboration definitions: several squads' workflows as the stages of one delivery.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad collab validate delivery.collab.json --squad squads/research --squad squads/build")]
pub struct CollabArgs {
    #[command(subcommand)]
    pub command: CollabCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum CollabCommand {
    Validate(CollabValidateArgs),
}

/// Check a collaboration definition against the real squads it composes, reporting every
/// problem at once.
///
/// Checks schema_version 1, stage_execution "mission_task", canonical ids and evidence keys, at
/// least one stage, unique stage ids, dependencies only on earlier stages, every stage's squad
/// and workflow among the --squad packages, every consumed key available from the inputs or an
/// earlier dependency, every stage producing new evidence, every output produced by a stage
/// (package-format §9, COL-1…COL-13). Each --squad package is validated first.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad collab validate delivery.collab.json --squad squads/research --squad squads/build
  squad collab validate delivery.collab.json --squad squads/* --format json")]
pub struct CollabValidateArgs {
    /// The collaboration definition (JSON or JSONC).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// A squad package folder the stages may name; repeatable.
    #[arg(long = "squad", value_name = "PKG", num_args = 1..)]
    pub squads: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(args: &CollabArgs, printer: &Printer) -> ExitStatus {
    match &args.command {
        CollabCommand::Validate(args) => validate(args, printer),
    }
}

fn validate(args: &CollabValidateArgs, printer: &Printer) -> ExitStatus {
    let shown = args.file.display().to_string();
    let mut squads = Vec::new();
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    let mut broken = false;
    for path in &args.squads {
        match Squad::load(path) {
            Ok((squad, _)) => squads.push(squad),
            Err(LoadError::Invalid(report)) => {
                broken = true;
                let errors = report
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity() == Severity::Error)
                    .count();
                diagnostics.push(
                    Diagnostic::new(
                        Code::CollabManifest,
                        document::FILE,
                        format!(
                            "squad `{}` is invalid ({errors} error{})",
                            path.display(),
                            crate::text::plural(errors)
                        ),
                    )
                    .help(format!("`squad validate {}` lists them", path.display())),
                );
            }
            Err(LoadError::Io(error)) => {
                printer.failure(&error, None);
                return ExitStatus::Error;
            }
        }
    }
    for message in duplicate_squads(&squads) {
        diagnostics.push(Diagnostic::new(
            Code::CollabDuplicateManifest,
            document::FILE,
            message,
        ));
    }
    let document = match Document::read(&args.file) {
        Ok(Read::Parsed(document)) => document,
        Ok(Read::Unparsed(unparsed)) => {
            diagnostics.push(unparsed.diagnostic);
            return finish(printer, args.format, &shown, diagnostics, unparsed.source);
        }
        Err(error) => {
            printer.error(&format!("cannot read `{shown}`: {error}"), None);
            return ExitStatus::Error;
        }
    };
    let mut found = document.notes.clone();
    // Squad and workflow ids cannot be trusted against a partial set of squads; the invalid
    // squads were reported above; without any `--squad` there is nothing to check them with.
    let checked = !broken && !args.squads.is_empty();
    check_document(&document, checked.then_some(&squads), &mut found);
    diagnostics.extend(found);
    finish(printer, args.format, &shown, diagnostics, document.source)
}

fn finish(
    printer: &Printer,
    format: Format,
    shown: &str,
    diagnostics: Vec<Diagnostic>,
    source: crate::source::SourceFile,
) -> ExitStatus {
    let inspected = Inspected::document(Kind::Collab, diagnostics, source);
    report(
        printer,
        format,
        false,
        vec![(shown.to_owned(), Ok(inspected))],
    )
}
