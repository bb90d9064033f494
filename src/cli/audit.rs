//! `squad audit`: static findings about what a squad would make its agents do, before it is
//! installed.

use std::path::{Path, PathBuf};

use super::documents::AuditDocument;
use super::inputs::not_a_package;
use super::report::{
    AUDITED, Checked, Failure, Outcome, VALIDATED, annotations, print_diagnostics, print_json,
};
use super::{ExitStatus, Format};
use crate::audit::{Audited, audit_path};
use crate::diag::json::Summary;
use crate::diag::{Diagnostic, Severity};
use crate::error::Class;
use crate::manifest::MANIFEST_FILE;
use crate::output::Printer;
use crate::package::{self, Located};

/// Audit squad packages before trusting them: what their tools, MCP servers, prompts and
/// grants would make the agents do.
///
/// Each package is validated first; an invalid one reports its validation errors and is not
/// audited. A valid one is read for tools that reach the network, start programs, write
/// files, read the environment or run code made at run time or hidden in base64; MCP servers
/// over plain HTTP or with credentials written in; prompts and skills that tell the agent to
/// ignore its instructions, hide things from the user, read credentials, send data to a URL
/// or pipe a download into a shell, or that hold invisible text; and agents that no workflow
/// runs but hold powerful tools. A quoted example (a code block, inline code, a blockquote
/// marked as an example) is reported one severity lower than the same words as an
/// instruction. Nothing is run and nothing is written. `squad explain CODE` explains each
/// finding.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad audit                               audit the package in the current directory
  squad audit pkgs/                         every package in a folder of packages
  squad audit acme-review-expert-squad.zip  an archive, read as install reads it
  squad audit --deny warning .              fail on warnings too
  squad audit --format json . > audit.json  machine-readable findings
  squad audit --format sarif . > audit.sarif  upload to code scanning

Exit status: 0 no finding at or above --deny, 1 such a finding, an invalid package or a refused \
archive, 2 usage or I/O error.")]
pub struct AuditArgs {
    /// Package folders, folders of packages, or `.zip` archives. Defaults to the current
    /// directory.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// The least severity of a finding that fails the run (exit 1).
    #[arg(long, value_enum, default_value_t = Deny::Error)]
    pub deny: Deny,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// The least severity that fails an audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Deny {
    Error,
    Warning,
    Note,
}

impl Deny {
    fn severity(self) -> Severity {
        match self {
            Deny::Error => Severity::Error,
            Deny::Warning => Severity::Warning,
            Deny::Note => Severity::Note,
        }
    }

    fn name(self) -> &'static str {
        self.severity().as_str()
    }

    /// Whether `diagnostics` hold a finding at or above this severity.
    fn fails(self, diagnostics: &[Diagnostic]) -> bool {
        diagnostics
            .iter()
            .any(|diagnostic| diagnostic.severity() <= self.severity())
    }
}

/// One PATH (or one package of a folder of packages), audited or not.
struct Input {
    shown: String,
    result: Result<Audited, (Failure, Class)>,
}

pub fn run(args: &AuditArgs, printer: &Printer) -> ExitStatus {
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    // What each input is, said in order; then each package is audited on its own, on every
    // core at once, reported in order.
    enum Audit {
        Package(PathBuf),
        NotAPackage(PathBuf),
    }
    let mut audits = Vec::new();
    for path in &paths {
        // A manifest names its package, as for validate.
        let path = match path.file_name() {
            Some(name) if name == MANIFEST_FILE && path.is_file() => path
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf(),
            _ => path.clone(),
        };
        match package::locate(&path) {
            Located::Package => audits.push(Audit::Package(path)),
            Located::Packages(children) => {
                printer.detail(&format!(
                    "`{}` holds no {MANIFEST_FILE}; auditing the {} packages in it",
                    path.display(),
                    children.len()
                ));
                audits.extend(children.into_iter().map(Audit::Package));
            }
            Located::NotAPackage => audits.push(Audit::NotAPackage(path)),
        }
    }
    let audit = |audit: &Audit| match audit {
        Audit::Package(path) => audit_one(path),
        Audit::NotAPackage(path) => Input {
            shown: path.display().to_string(),
            result: Err((
                Failure {
                    message: not_a_package(path),
                    hint: None,
                },
                Class::Failed,
            )),
        },
    };
    let inputs = crate::jobs::map_jobs(crate::jobs::cores(), &audits, &audit);
    report(printer, args, &inputs)
}

fn audit_one(path: &Path) -> Input {
    Input {
        shown: path.display().to_string(),
        result: audit_path(path).map_err(|error| {
            let class = error.class();
            (
                Failure {
                    message: crate::error::chain(&error),
                    hint: None,
                },
                class,
            )
        }),
    }
}

/// What an outcome lists: an audited package's findings, an invalid one's validation.
fn listed(audited: &Audited) -> &[Diagnostic] {
    if audited.was_audited() {
        &audited.findings
    } else {
        &audited.report.diagnostics
    }
}

fn report(printer: &Printer, args: &AuditArgs, inputs: &[Input]) -> ExitStatus {
    let names: Vec<Option<String>> = inputs
        .iter()
        .map(|input| {
            let audited = input.result.as_ref().ok()?;
            audited
                .report
                .identity
                .as_ref()
                .map(crate::package::Identity::display)
        })
        .collect();
    let outcomes: Vec<Outcome> = inputs
        .iter()
        .zip(&names)
        .map(|(input, name)| Outcome {
            shown: input.shown.clone(),
            result: match &input.result {
                Ok(audited) => Ok(Checked {
                    kind: crate::interop::Kind::Package,
                    name: name.as_deref(),
                    diagnostics: listed(audited),
                    sources: &audited.report.sources,
                    status: if audited.was_audited() {
                        AUDITED
                    } else {
                        VALIDATED
                    },
                }),
                Err((failure, _)) => Err(Failure {
                    message: failure.message.clone(),
                    hint: failure.hint,
                }),
            },
        })
        .collect();
    let mut status = ExitStatus::Success;
    for input in inputs {
        status = status.max(match &input.result {
            Ok(audited) if !audited.was_audited() => ExitStatus::Failure,
            Ok(audited) if args.deny.fails(&audited.findings) => ExitStatus::Failure,
            Ok(_) => ExitStatus::Success,
            Err((_, class)) => (*class).into(),
        });
    }
    match args.format {
        Format::Json => print_json(
            printer,
            &AuditDocument {
                report: super::report::document(&outcomes),
                kind: "audit",
                deny: args.deny.name(),
                passed: status == ExitStatus::Success,
            },
        ),
        Format::Human => {
            for outcome in &outcomes {
                match &outcome.result {
                    Ok(checked) => print_diagnostics(
                        printer,
                        &outcome.shown,
                        checked.diagnostics,
                        checked.sources,
                    ),
                    Err(failure) => printer.error(&failure.message, failure.hint),
                }
            }
            summary(printer, args.deny, inputs, &names);
        }
        Format::Sarif | Format::Github => {
            annotations(printer, args.format, &outcomes);
            for outcome in &outcomes {
                if let Err(failure) = &outcome.result {
                    printer.error(&failure.message, failure.hint);
                }
            }
            summary(printer, args.deny, inputs, &names);
        }
    }
    status
}

/// "1 error, 2 warnings, 0 notes".
fn counts(summary: Summary) -> String {
    let plural = crate::text::plural;
    format!(
        "{} error{}, {} warning{}, {} note{}",
        summary.errors,
        plural(summary.errors),
        summary.warnings,
        plural(summary.warnings),
        summary.notes,
        plural(summary.notes)
    )
}

/// The run's last line: what was audited and whether it passed.
fn summary(printer: &Printer, deny: Deny, inputs: &[Input], names: &[Option<String>]) {
    let mut totals = Summary::default();
    let mut failing = Vec::new();
    let mut invalid = Vec::new();
    let mut audited = 0;
    for (input, name) in inputs.iter().zip(names) {
        let Ok(result) = &input.result else { continue };
        // `namespace/id` is enough to tell packages apart in a list.
        let name = name
            .as_deref()
            .and_then(|name| name.split(' ').next())
            .unwrap_or(&input.shown)
            .to_owned();
        if !result.was_audited() {
            invalid.push(name);
            continue;
        }
        audited += 1;
        totals.merge(Summary::of(&result.findings));
        if deny.fails(&result.findings) {
            failing.push(name);
        }
    }
    let unread = inputs.len() - audited - invalid.len();
    let mut tail = String::new();
    if !invalid.is_empty() {
        tail.push_str(&format!(
            "; {} invalid, not audited ({}): run `squad validate`",
            invalid.len(),
            listing(&invalid)
        ));
    }
    if unread > 0 {
        tail.push_str(&format!("; {unread} could not be read"));
    }
    let subject = match (audited, names.first()) {
        (1, Some(Some(name))) if inputs.len() == 1 => name.clone(),
        (count, _) => format!("{count} package{}", crate::text::plural(count)),
    };
    if failing.is_empty() && tail.is_empty() {
        if audited > 0 {
            printer.status("Audited", &format!("{subject} ({})", counts(totals)));
        }
        return;
    }
    if failing.is_empty() {
        printer.error(
            &format!("audited {subject} ({}){tail}", counts(totals)),
            None,
        );
        return;
    }
    let message = if audited == 1 && inputs.len() == 1 {
        format!(
            "{subject} has findings at or above `{}` ({}){tail}",
            deny.name(),
            counts(totals)
        )
    } else {
        format!(
            "{} of {subject} {} findings at or above `{}` ({}): {}{tail}",
            failing.len(),
            if failing.len() == 1 { "has" } else { "have" },
            deny.name(),
            counts(totals),
            listing(&failing)
        )
    };
    printer.error(
        &message,
        Some("`squad explain CODE` says why each finding matters and how to resolve it"),
    );
}

/// Up to five names, then how many more.
fn listing(names: &[String]) -> String {
    let mut shown: Vec<String> = names
        .iter()
        .take(5)
        .map(|name| format!("`{name}`"))
        .collect();
    if names.len() > 5 {
        shown.push(format!("and {} more", names.len() - 5));
    }
    shown.join(", ")
}
