//! `squad validate`: check package folders against every rule of the package format and report
//! all problems at once.

use std::path::{Path, PathBuf};

use super::report::{Checked, Failure, Outcome, emit};
use super::{ExitStatus, Format};
use crate::output::Printer;
use crate::package::{self, Report};

/// Check expert-squad package folders and report every problem with file:line:col.
///
/// Validation is read-only: it writes nothing anywhere. Each problem has a stable code
/// (`squad explain CODE` describes it); errors make the package invalid, warnings and notes do
/// not.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad validate                                validate the package in the current directory
  squad validate pkgs/a pkgs/b                  validate several packages
  squad validate --format json . > report.json  machine-readable report
  squad validate --format sarif . > squad.sarif upload to code scanning
  squad validate --format github .              annotations in a GitHub Actions run")]
pub struct ValidateArgs {
    /// Package folders (each holds expert-squad.jsonc). Defaults to the current directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

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
    let mut status = ExitStatus::Success;
    let results: Vec<(String, Result<Report, Failure>)> = paths
        .iter()
        .map(|path| {
            let shown = path.display().to_string();
            let result = if is_archive(path) {
                Err(Failure {
                    message: format!(
                        "`{shown}` is a ZIP archive; validating archives is not supported yet"
                    ),
                    hint: Some("unzip it and validate the folder"),
                })
            } else {
                package::validate(path).map_err(|error| Failure {
                    message: error.to_string(),
                    hint: None,
                })
            };
            (shown, result)
        })
        .collect();
    let outcomes: Vec<Outcome> = results
        .iter()
        .map(|(shown, result)| Outcome {
            shown: shown.clone(),
            result: match result {
                Ok(report) => {
                    if !report.is_valid() {
                        status = status.max(ExitStatus::Failure);
                    }
                    Ok(Checked {
                        diagnostics: &report.diagnostics,
                        sources: &report.sources,
                    })
                }
                Err(failure) => {
                    status = status.max(ExitStatus::Error);
                    Err(Failure {
                        message: failure.message.clone(),
                        hint: failure.hint,
                    })
                }
            },
        })
        .collect();
    emit(printer, args.format, &outcomes);
    status
}

pub(super) fn is_archive(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("zip"))
        && !path.is_dir()
}
