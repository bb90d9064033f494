//! `squad lint [WORKSPACE]`: check every interop file of an authoring workspace.

use std::collections::HashMap;
use std::path::PathBuf;

use super::report::{Inspected, failing, report};
use super::{ExitStatus, Format};
use crate::diag::Severity;
use crate::interop::document::FILE;
use crate::interop::lint::lint;
use crate::interop::{Level, Options, SchemaVariant};
use crate::output::Printer;

/// Check every document of the other formats kept in a workspace's interop/ folder.
///
/// Files are told apart by where they lie: interop/openvibe/ holds plays (its
/// play-extras.json sidecars are skipped), interop/ck/ router contracts (*.contract.json, with
/// their implementations/ files) and recorded runs (cases/*.json: {input, output, expect?,
/// delegate_result?}, judged against the workspace's one contract or ck-brain's),
/// interop/ofp/{envelopes,manifests,dialog-events}/ Open Floor documents and
/// interop/aos/handoffs/ AgentHandoff payloads. Anything else is told by its content. One line
/// per finding: `path#/json/pointer CODE message`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad lint                        the workspace in the current directory
  squad lint ws --format json       one JSON document with every file's findings
  squad lint ws --level lenient     real-world Open Floor samples")]
pub struct LintArgs {
    /// The workspace: the folder that holds interop/ (and the packages beside it).
    #[arg(value_name = "WORKSPACE", default_value = ".")]
    pub workspace: PathBuf,

    /// How strictly to check.
    #[arg(long, value_enum, default_value_t = Level::Spec)]
    pub level: Level,

    /// The Open Floor envelope schema to check against.
    #[arg(long, value_enum, default_value_t = SchemaVariant::Js)]
    pub schema_variant: SchemaVariant,

    /// Exit 1 when there are warnings, too.
    #[arg(long)]
    pub deny_warnings: bool,

    /// Output format (`human` prints one line per finding on stdout).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(args: &LintArgs, printer: &Printer) -> ExitStatus {
    let options = Options {
        level: args.level,
        schema_variant: args.schema_variant,
    };
    let linted = match lint(&args.workspace, &options) {
        Ok(linted) => linted,
        Err(message) => {
            printer.error(&message, None);
            return ExitStatus::Error;
        }
    };
    if args.format == Format::Human {
        let mut text = String::new();
        for file in &linted {
            for diagnostic in &file.diagnostics {
                if printer.quiet && diagnostic.severity() != Severity::Error {
                    continue;
                }
                let pointer = diagnostic.pointer.as_deref().unwrap_or("/");
                let severity = match diagnostic.severity() {
                    Severity::Error => String::new(),
                    other => format!("{}: ", other.as_str()),
                };
                // Paths, pointers and messages quote the workspace's files: one line each.
                text.push_str(&format!(
                    "{}#{} {} {severity}{}\n",
                    crate::text::remote(&file.path, usize::MAX),
                    crate::text::remote(pointer, usize::MAX),
                    diagnostic.code.as_str(),
                    crate::text::remote(&diagnostic.message, usize::MAX)
                ));
            }
        }
        printer.data(&text);
        let errors = linted
            .iter()
            .flat_map(|file| &file.diagnostics)
            .filter(|d| d.severity() == Severity::Error)
            .count();
        printer.status(
            "Linted",
            &format!(
                "{} files in {}: {errors} errors",
                linted.len(),
                args.workspace.display()
            ),
        );
        if linted
            .iter()
            .any(|file| failing(&file.diagnostics, args.deny_warnings))
        {
            ExitStatus::Failure
        } else {
            ExitStatus::Success
        }
    } else {
        let results = linted
            .into_iter()
            .map(|file| {
                (
                    args.workspace.join(&file.path).display().to_string(),
                    Ok(Inspected {
                        kind: file.kind,
                        name: None,
                        diagnostics: file.diagnostics,
                        sources: HashMap::from([(FILE.to_owned(), file.source)]),
                    }),
                )
            })
            .collect();
        report(printer, args.format, args.deny_warnings, results)
    }
}
