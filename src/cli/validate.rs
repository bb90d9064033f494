//! `squad validate`: check package folders against every rule of the package format and report
//! all problems at once.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{ExitStatus, Format};
use crate::diag::json::{JsonDiagnostic, SCHEMA_VERSION, Summary};
use crate::diag::render::{Style, render};
use crate::output::Printer;
use crate::package::{self, Report};

/// Check expert-squad package folders and report every problem with file:line:col.
///
/// Validation is read-only: it writes nothing anywhere. Each problem has a stable code (see
/// docs/diagnostics.md); errors make the package invalid, warnings and notes do not.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad validate                              validate the package in the current directory
  squad validate pkgs/a pkgs/b                validate several packages
  squad validate --format json . > report.json  machine-readable report for CI")]
pub struct ValidateArgs {
    /// Package folders (each holds expert-squad.jsonc). Defaults to the current directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Print only errors (human format).
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Serialize)]
struct JsonDocument {
    schema_version: u32,
    packages: Vec<JsonPackage>,
    summary: JsonRunSummary,
}

#[derive(Serialize)]
struct JsonPackage {
    path: String,
    /// `validated`, or `error` when the folder could not be read.
    status: &'static str,
    valid: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    diagnostics: Vec<JsonDiagnostic>,
    summary: Summary,
}

#[derive(Serialize)]
struct JsonRunSummary {
    packages: usize,
    valid: usize,
    invalid: usize,
    failed: usize,
    #[serde(flatten)]
    diagnostics: Summary,
}

pub fn run(args: &ValidateArgs, printer: &Printer) -> ExitStatus {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let mut status = ExitStatus::Success;
    let mut packages = Vec::new();
    let mut totals = Summary::default();
    for path in &paths {
        let shown = path.display().to_string();
        let outcome = if is_archive(path) {
            Err((
                format!("`{shown}` is a ZIP archive; validating archives is not supported yet"),
                Some(
                    "unzip it and validate the folder, or use `squad install`'s archive checks once available",
                ),
            ))
        } else {
            package::validate(path).map_err(|error| (error.to_string(), None))
        };
        match outcome {
            Ok(report) => {
                let summary = Summary::of(&report.diagnostics);
                totals.merge(summary);
                if !report.is_valid() {
                    status = status.max(ExitStatus::Failure);
                }
                match args.format {
                    Format::Human => print_human(printer, &shown, &report, summary, args.quiet),
                    Format::Json => packages.push(json_package(&shown, &report, summary)),
                }
            }
            Err((message, hint)) => {
                status = status.max(ExitStatus::Error);
                match args.format {
                    Format::Human => printer.error(&message, hint),
                    Format::Json => packages.push(JsonPackage {
                        path: shown,
                        status: "error",
                        valid: false,
                        error: Some(message),
                        diagnostics: Vec::new(),
                        summary: Summary::default(),
                    }),
                }
            }
        }
    }
    if args.format == Format::Json {
        let valid = packages.iter().filter(|package| package.valid).count();
        let failed = packages
            .iter()
            .filter(|package| package.status == "error")
            .count();
        let document = JsonDocument {
            schema_version: SCHEMA_VERSION,
            summary: JsonRunSummary {
                packages: packages.len(),
                valid,
                invalid: packages.len() - valid - failed,
                failed,
                diagnostics: totals,
            },
            packages,
        };
        let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
        text.push('\n');
        printer.data(&text);
    }
    status
}

pub(super) fn is_archive(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("zip"))
        && !path.is_dir()
}

/// Renders diagnostics to stderr (errors only when `quiet`).
pub(super) fn print_diagnostics(
    printer: &Printer,
    shown: &str,
    diagnostics: &[crate::diag::Diagnostic],
    sources: &std::collections::HashMap<String, crate::source::SourceFile>,
    quiet: bool,
) {
    let style = Style {
        color: printer.color,
    };
    let mut text = String::new();
    for diagnostic in diagnostics {
        if quiet && diagnostic.severity() != crate::diag::Severity::Error {
            continue;
        }
        let source = sources.get(&diagnostic.file);
        text.push_str(&render(
            diagnostic,
            &display_file(shown, &diagnostic.file),
            source,
            style,
        ));
        text.push('\n');
    }
    printer.human(&text);
}

/// The path of a package file as the user should read it.
fn display_file(package: &str, file: &str) -> String {
    if file == "." {
        package.to_owned()
    } else if package == "." {
        file.to_owned()
    } else {
        format!("{}/{file}", package.trim_end_matches('/'))
    }
}

fn print_human(printer: &Printer, shown: &str, report: &Report, summary: Summary, quiet: bool) {
    print_diagnostics(printer, shown, &report.diagnostics, &report.sources, quiet);
    let counts = format!(
        "{} error{}, {} warning{}",
        summary.errors,
        plural(summary.errors),
        summary.warnings,
        plural(summary.warnings)
    );
    if report.is_valid() {
        if !quiet {
            printer.status("Valid", &format!("{shown} ({counts})"));
        }
    } else {
        printer.error(&format!("package `{shown}` is invalid: {counts}"), None);
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

fn json_package(shown: &str, report: &Report, summary: Summary) -> JsonPackage {
    JsonPackage {
        path: shown.to_owned(),
        status: "validated",
        valid: report.is_valid(),
        error: None,
        diagnostics: report
            .diagnostics
            .iter()
            .map(|diagnostic| JsonDiagnostic::new(diagnostic, report.sources.get(&diagnostic.file)))
            .collect(),
        summary,
    }
}
