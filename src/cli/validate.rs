//! `squad validate`: check package folders, and documents of the neighbouring formats, against
//! every rule and report all problems at once.

use std::path::PathBuf;

use super::{ExitStatus, Format};
use crate::interop::{Kind, Level, Options, SchemaVariant};
use crate::output::Printer;

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
    let options = Options {
        level: args.level,
        schema_variant: args.schema_variant,
    };
    super::inputs::validate(
        &args.paths,
        args.kind,
        &options,
        args.schema.as_deref(),
        args.deny_warnings,
        args.format,
        printer,
    )
}
