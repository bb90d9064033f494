//! Reporting diagnostics of one or more packages in the format asked for: rendered for people,
//! the versioned JSON document, SARIF 2.1.0, or GitHub Actions annotations. Every command that
//! reports diagnostics (validate, and pack, digest and new when a package is refused) goes
//! through here.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::{ExitStatus, Format};
use crate::diag::json::{JsonDiagnostics, SCHEMA_VERSION, Summary};
use crate::diag::limit::Limit;
use crate::diag::render::{Style, held_back, render};
use crate::diag::sarif::{PackageDiagnostics, display_file};
use crate::diag::{Diagnostic, Severity};
use crate::interop::squad::{LoadError, Squad};
use crate::output::{Printer, TransferBar};
use crate::package::Report;
use crate::share::Transfers;
use crate::source::SourceFile;
use crate::verify::{Drift, DriftKind};

/// What happened to one PATH argument.
pub struct Outcome<'a> {
    pub shown: String,
    pub result: Result<Checked<'a>, Failure>,
}

/// A package that was checked (valid or not).
pub struct Checked<'a> {
    /// What was checked: a package folder or a document of a neighbouring format.
    pub kind: crate::interop::Kind,
    /// `namespace/id version` of a package whose manifest says so.
    pub name: Option<&'a str>,
    pub diagnostics: &'a [Diagnostic],
    pub sources: &'a HashMap<String, SourceFile>,
    /// What was done to it: `validated`, or `audited` (validated, found valid, then audited:
    /// its diagnostics are the audit's findings).
    pub status: &'static str,
}

/// One input, checked, owning what it reports: commands build these and hand them to
/// [`report`], so none has to keep its own copy alive for the borrowing [`Checked`].
pub struct Inspected {
    pub kind: crate::interop::Kind,
    /// `namespace/id version` of a package whose manifest says so.
    pub name: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    pub sources: HashMap<String, SourceFile>,
}

impl Inspected {
    /// The findings about a single document, in file order.
    pub fn document(
        kind: crate::interop::Kind,
        mut diagnostics: Vec<Diagnostic>,
        source: SourceFile,
    ) -> Inspected {
        crate::interop::sort_by_span(&mut diagnostics);
        Inspected {
            kind,
            name: None,
            diagnostics,
            sources: HashMap::from([(crate::interop::document::FILE.to_owned(), source)]),
        }
    }

    /// A package's findings, named after the identity its manifest declares.
    pub fn package(report: Report) -> Inspected {
        Inspected {
            kind: crate::interop::Kind::Package,
            name: report
                .identity
                .as_ref()
                .map(crate::package::Identity::display),
            diagnostics: report.diagnostics,
            sources: report.sources,
        }
    }

    pub fn checked(&self) -> Checked<'_> {
        Checked {
            kind: self.kind,
            name: self.name.as_deref(),
            diagnostics: &self.diagnostics,
            sources: &self.sources,
            status: VALIDATED,
        }
    }
}

/// The status of an input that was checked.
pub const VALIDATED: &str = "validated";

/// The status of a valid package that was audited.
pub const AUDITED: &str = "audited";

/// A package that could not be checked at all.
pub struct Failure {
    pub message: String,
    pub hint: Option<&'static str>,
}

/// The document of `squad validate --format json` (docs/json-output.md).
#[derive(Serialize)]
pub struct ValidateDocument<'a> {
    schema_version: u32,
    packages: Vec<JsonPackage<'a>>,
    summary: JsonRunSummary,
}

#[derive(Serialize)]
struct JsonPackage<'a> {
    path: String,
    /// `package`, or the kind of document (`play`, `handoff`, …); absent when unreadable.
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    /// `validated`, `audited` (by `squad audit`), or `error` when the folder could not be read.
    status: &'static str,
    /// No error among the diagnostics; for an audited package, whether it was valid (always).
    valid: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    diagnostics: JsonDiagnostics<'a>,
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

fn is_valid(diagnostics: &[Diagnostic]) -> bool {
    !crate::diag::has_errors(diagnostics)
}

/// Whether findings fail a run: any error, or any warning when warnings are denied.
pub fn failing(diagnostics: &[Diagnostic], deny_warnings: bool) -> bool {
    diagnostics.iter().any(|diagnostic| {
        diagnostic.severity() == Severity::Error
            || (deny_warnings && diagnostic.severity() == Severity::Warning)
    })
}

/// Reports every input in `format` and returns the exit status: 2 when an input could not be
/// checked, else 1 when one fails (see [`failing`]), else 0.
pub fn report(
    printer: &Printer,
    format: Format,
    deny_warnings: bool,
    results: Vec<(String, Result<Inspected, Failure>)>,
) -> ExitStatus {
    let mut status = ExitStatus::Success;
    for (_, result) in &results {
        status = status.max(match result {
            Ok(inspected) if failing(&inspected.diagnostics, deny_warnings) => ExitStatus::Failure,
            Ok(_) => ExitStatus::Success,
            Err(_) => ExitStatus::Error,
        });
    }
    let outcomes: Vec<Outcome> = results
        .iter()
        .map(|(shown, result)| Outcome {
            shown: shown.clone(),
            result: match result {
                Ok(inspected) => Ok(inspected.checked()),
                Err(failure) => Err(Failure {
                    message: failure.message.clone(),
                    hint: failure.hint,
                }),
            },
        })
        .collect();
    emit(printer, format, &outcomes);
    status
}

/// Reports every outcome in `format`. Human summaries (and failures in every format but JSON)
/// go to stderr; documents and annotations go to stdout, written as they are produced.
pub fn emit(printer: &Printer, format: Format, outcomes: &[Outcome]) {
    match format {
        Format::Human => {
            for outcome in outcomes {
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
            summary(printer, outcomes);
            fix_hint(printer, outcomes);
        }
        Format::Json => {
            // A closed pipe is not worth reporting (see `Printer::data`).
            let mut out = printer.data_stream();
            let _ = out
                .write_all(crate::output::json_text(&json(outcomes)).as_bytes())
                .and_then(|()| out.flush());
        }
        Format::Sarif | Format::Github => {
            annotations(printer, format, outcomes);
            for outcome in outcomes {
                if let Err(failure) = &outcome.result {
                    printer.error(&failure.message, failure.hint);
                }
            }
            summary(printer, outcomes);
        }
    }
}

/// The diagnostics of every checked outcome as SARIF or as GitHub annotations, on stdout.
pub fn annotations(printer: &Printer, format: Format, outcomes: &[Outcome]) {
    let packages: Vec<PackageDiagnostics> = outcomes
        .iter()
        .filter_map(|outcome| {
            outcome
                .result
                .as_ref()
                .ok()
                .map(|checked| PackageDiagnostics {
                    shown: &outcome.shown,
                    diagnostics: checked.diagnostics,
                    sources: checked.sources,
                })
        })
        .collect();
    let mut out = printer.data_stream();
    let written = if format == Format::Sarif {
        out.write_all(crate::output::json_text(&crate::diag::sarif::document(&packages)).as_bytes())
    } else {
        crate::diag::github::write_commands(&mut out, &packages)
    };
    // A closed pipe is not worth reporting (see `Printer::data`).
    let _ = written.and_then(|()| out.flush());
}

/// Loads a package for the interop commands. An invalid package is reported with `refusal`
/// and `hint` after its diagnostics (exit 1); an unreadable one is a failure (exit 2).
pub fn load_squad(
    path: &Path,
    printer: &Printer,
    refusal: &str,
    hint: Option<&str>,
) -> Result<(Squad, Report), ExitStatus> {
    match Squad::load(path) {
        Ok(loaded) => Ok(loaded),
        Err(LoadError::Invalid(report)) => {
            let shown = path.display().to_string();
            print_diagnostics(printer, &shown, &report.diagnostics, &report.sources);
            printer.error(refusal, hint);
            Err(ExitStatus::Failure)
        }
        Err(LoadError::Io(error)) => {
            printer.failure(&error, None);
            Err(ExitStatus::Error)
        }
    }
}

/// The diagnostics of a package a command refused (pack, install, digest): rendered on stderr
/// for people, or as the machine document asked for, without a summary line (the command
/// says what it refused).
pub fn refused_package(
    printer: &Printer,
    format: Format,
    shown: &str,
    diagnostics: &[Diagnostic],
    sources: &HashMap<String, SourceFile>,
) {
    match format {
        Format::Human => print_diagnostics(printer, shown, diagnostics, sources),
        format => emit(
            printer,
            format,
            &[Outcome {
                shown: shown.to_owned(),
                result: Ok(Checked {
                    diagnostics,
                    sources,
                    kind: crate::interop::Kind::Package,
                    name: None,
                    status: VALIDATED,
                }),
            }],
        ),
    }
}

/// A project's diagnostics (squads.jsonc, squads.lock) in `format`: on stderr for people, as
/// annotations or SARIF on stdout for CI; no summary line, since the files are not a package
/// (the error that follows says what stopped the command). JSON is the command's own document.
pub fn project_diagnostics(
    printer: &Printer,
    format: Format,
    shown: &str,
    diagnostics: &[Diagnostic],
    sources: &HashMap<String, SourceFile>,
) {
    let packages = [PackageDiagnostics {
        shown,
        diagnostics,
        sources,
    }];
    let mut out = printer.data_stream();
    let written = match format {
        Format::Human => {
            drop(out);
            print_diagnostics(printer, shown, diagnostics, sources);
            return;
        }
        Format::Json => return,
        Format::Sarif => out.write_all(
            crate::output::json_text(&crate::diag::sarif::document(&packages)).as_bytes(),
        ),
        Format::Github => crate::diag::github::write_commands(&mut out, &packages),
    };
    // A closed pipe is not worth reporting (see `Printer::data`).
    let _ = written.and_then(|()| out.flush());
}

/// Renders diagnostics to stderr one by one as they are rendered (errors only when the printer
/// is quiet), within the [`Limit`] of what people are shown unless the printer is verbose.
pub fn print_diagnostics(
    printer: &Printer,
    shown: &str,
    diagnostics: &[Diagnostic],
    sources: &HashMap<String, SourceFile>,
) {
    let style = Style {
        color: printer.color,
        width: printer.width(),
    };
    let mut limit = Limit::new(printer.verbose);
    let mut file: Option<&str> = None;
    let print_held_back = |limit: &mut Limit, file: Option<&str>| {
        let lines: String = limit
            .take_held_back()
            .iter()
            .map(|held| held_back(held, &display_file(shown, file.unwrap_or("."))))
            .collect();
        if !lines.is_empty() {
            printer.human(&(lines + "\n"));
        }
    };
    for diagnostic in diagnostics {
        if printer.quiet && diagnostic.severity() != Severity::Error {
            continue;
        }
        if file != Some(diagnostic.file.as_str()) {
            print_held_back(&mut limit, file);
            file = Some(&diagnostic.file);
        }
        if limit.admit(diagnostic) {
            let source = sources.get(&diagnostic.file);
            let mut text = render(
                diagnostic,
                &display_file(shown, &diagnostic.file),
                source,
                style,
            );
            text.push('\n');
            printer.human(&text);
        }
    }
    print_held_back(&mut limit, file);
}

/// The counts of findings, as summary lines give them.
fn counts(summary: Summary) -> String {
    format!(
        "{} error{}, {} warning{}",
        summary.errors,
        crate::text::plural(summary.errors),
        summary.warnings,
        crate::text::plural(summary.warnings)
    )
}

/// What a summary line calls one input: the package's `namespace/id version` when its
/// manifest says so, else its kind and path (a package in `.` by its folder's name).
fn subject(shown: &str, checked: &Checked) -> String {
    if let Some(name) = checked.name {
        return name.to_owned();
    }
    let shown = if shown == "." {
        std::env::current_dir()
            .ok()
            .and_then(|directory| {
                directory
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| shown.to_owned())
    } else {
        shown.to_owned()
    };
    format!("{} `{shown}`", checked.kind.noun())
}

/// One summary line for the whole run: the input's own for one input, else the count of
/// valid and invalid inputs with the invalid ones named.
fn summary(printer: &Printer, outcomes: &[Outcome]) {
    let checked: Vec<(&str, &Checked)> = outcomes
        .iter()
        .filter_map(|outcome| {
            outcome
                .result
                .as_ref()
                .ok()
                .map(|checked| (outcome.shown.as_str(), checked))
        })
        .collect();
    if let [(shown, checked)] = checked.as_slice() {
        if outcomes.len() == 1 {
            let line = format!(
                "{} ({})",
                subject(shown, checked),
                counts(Summary::of(checked.diagnostics))
            );
            if is_valid(checked.diagnostics) {
                printer.status("Valid", &line);
            } else {
                printer.error(
                    &format!(
                        "{} is invalid: {}",
                        subject(shown, checked),
                        counts(Summary::of(checked.diagnostics))
                    ),
                    None,
                );
            }
            return;
        }
    }
    if checked.is_empty() {
        return;
    }
    let mut totals = Summary::default();
    for (_, checked) in &checked {
        totals.merge(Summary::of(checked.diagnostics));
    }
    let first_kind = checked[0].1.kind;
    let noun = if checked
        .iter()
        .all(|(_, checked)| checked.kind == first_kind)
    {
        format!("{}s", first_kind.noun())
    } else {
        "inputs".to_owned()
    };
    let invalid: Vec<String> = checked
        .iter()
        .filter(|(_, checked)| !is_valid(checked.diagnostics))
        .map(|(shown, checked)| match checked.name {
            // `namespace/id` is enough to tell packages apart in a list.
            Some(name) => name.split(' ').next().unwrap_or(name).to_owned(),
            None => (*shown).to_owned(),
        })
        .collect();
    let unchecked = outcomes.len() - checked.len();
    let unchecked = if unchecked == 0 {
        String::new()
    } else {
        format!("; {unchecked} could not be checked")
    };
    if invalid.is_empty() {
        let line = format!("{} {noun} ({}){unchecked}", checked.len(), counts(totals));
        if unchecked.is_empty() {
            printer.status("Valid", &line);
        } else {
            printer.error(&format!("{line} valid"), None);
        }
        return;
    }
    let mut named: Vec<String> = invalid
        .iter()
        .take(5)
        .map(|name| format!("`{name}`"))
        .collect();
    if invalid.len() > 5 {
        named.push(format!("and {} more", invalid.len() - 5));
    }
    printer.error(
        &format!(
            "{} of {} {noun} {} invalid ({}): {}{unchecked}",
            invalid.len(),
            checked.len(),
            if invalid.len() == 1 { "is" } else { "are" },
            named.join(", "),
            counts(totals)
        ),
        None,
    );
}

/// A `help:` line when `squad fix` can resolve some of the errors and warnings shown.
fn fix_hint(printer: &Printer, outcomes: &[Outcome]) {
    let mut fixable = 0;
    let mut packages: Vec<&str> = Vec::new();
    for outcome in outcomes {
        let Ok(checked) = &outcome.result else {
            continue;
        };
        // Only a folder can be fixed in place (not an archive, not a document).
        if checked.kind != crate::interop::Kind::Package || !Path::new(&outcome.shown).is_dir() {
            continue;
        }
        let count = checked
            .diagnostics
            .iter()
            .filter(|diagnostic| {
                diagnostic.is_fixable()
                    && (diagnostic.severity() != Severity::Note)
                    && !(printer.quiet && diagnostic.severity() != Severity::Error)
            })
            .count();
        if count > 0 {
            fixable += count;
            packages.push(&outcome.shown);
        }
    }
    if fixable == 0 {
        return;
    }
    let command = match packages.as_slice() {
        [only] if *only == "." => "squad fix".to_owned(),
        [only] => format!("squad fix {only}"),
        _ => "squad fix PATH".to_owned(),
    };
    printer.hint(&format!(
        "{fixable} problem{} can be fixed automatically: `{command}` (`--dry-run` shows the changes first)",
        if fixable == 1 { "" } else { "s" }
    ));
}

/// The `--format json` document of one checked input, for other commands to extend.
pub fn validate_document<'a>(shown: &str, inspected: &'a Inspected) -> ValidateDocument<'a> {
    json(&[Outcome {
        shown: shown.to_owned(),
        result: Ok(inspected.checked()),
    }])
}

/// The `--format json` document of every outcome, for other commands to extend.
pub fn document<'a>(outcomes: &[Outcome<'a>]) -> ValidateDocument<'a> {
    json(outcomes)
}

fn json<'a>(outcomes: &[Outcome<'a>]) -> ValidateDocument<'a> {
    let mut totals = Summary::default();
    let packages: Vec<JsonPackage> = outcomes
        .iter()
        .map(|outcome| match &outcome.result {
            Ok(checked) => {
                let summary = Summary::of(checked.diagnostics);
                totals.merge(summary);
                JsonPackage {
                    path: outcome.shown.clone(),
                    kind: Some(checked.kind.as_str()),
                    status: checked.status,
                    valid: checked.status == AUDITED || is_valid(checked.diagnostics),
                    error: None,
                    diagnostics: JsonDiagnostics {
                        diagnostics: checked.diagnostics,
                        sources: Some(checked.sources),
                    },
                    summary,
                }
            }
            Err(failure) => JsonPackage {
                path: outcome.shown.clone(),
                kind: None,
                status: "error",
                valid: false,
                error: Some(failure.message.clone()),
                diagnostics: JsonDiagnostics {
                    diagnostics: &[],
                    sources: None,
                },
                summary: Summary::default(),
            },
        })
        .collect();
    let valid = packages.iter().filter(|package| package.valid).count();
    let failed = packages
        .iter()
        .filter(|package| package.status == "error")
        .count();
    ValidateDocument {
        schema_version: SCHEMA_VERSION,
        summary: JsonRunSummary {
            packages: packages.len(),
            valid,
            invalid: packages.len() - valid - failed,
            failed,
            diagnostics: totals,
        },
        packages,
    }
}

/// The progress bar as [`Transfers`].
pub struct Progress(pub TransferBar);

impl Transfers for Progress {
    fn begin(&self, label: &str, total: u64) {
        self.0.begin(label, total);
    }
    fn advance(&self, done: u64) {
        self.0.advance(done);
    }
    fn end(&self) {
        self.0.end();
    }
}

pub(super) fn waiting(printer: &Printer) -> impl FnMut(&Path) + '_ {
    move |lock: &Path| {
        printer.status(
            "Blocking",
            &format!("waiting for another squad command on `{}`", lock.display()),
        );
    }
}

/// Prints one JSON document on stdout.
pub fn print_json(printer: &Printer, value: &impl serde::Serialize) {
    printer.data(&crate::output::json_text(value));
}

/// A drifted file as `verify` lists it: `{kind:>8}  {path}`.
pub(super) fn drift_line(drift: &Drift) -> String {
    let kind = match drift.kind {
        DriftKind::Added => "added",
        DriftKind::Removed => "removed",
        DriftKind::Changed => "changed",
    };
    // The path is a file's name in a package folder, or a record's: whoever made them chose it.
    format!(
        "{kind:>8}  {}\n",
        crate::text::remote(&drift.path, usize::MAX)
    )
}

/// What to do about an invalid package given to an interop command.
pub(super) const FIX_PACKAGE: &str =
    "fix the errors above; `squad validate` checks the package alone";

/// Writes `text` to `path` atomically, or to stdout without a path.
pub(super) fn write_output(printer: &Printer, path: Option<&Path>, text: &str) -> ExitStatus {
    match path {
        None => {
            printer.data(text);
            ExitStatus::Success
        }
        Some(path) => match crate::fs::replace_file(path, text.as_bytes()) {
            Ok(()) => {
                printer.status("Wrote", &path.display().to_string());
                ExitStatus::Success
            }
            Err(error) => {
                printer.error(&format!("cannot write `{}`: {error}", path.display()), None);
                ExitStatus::Error
            }
        },
    }
}

/// "1 file changed", "3 files changed".
pub fn files_changed(count: usize) -> String {
    crate::install::files_changed(Some(u32::try_from(count).unwrap_or(u32::MAX)))
}

/// The `squad verify` command line for an installed package.
pub fn verify_command(name: &str, scope: &str, project: Option<&Path>) -> String {
    let mut command = format!("squad verify {name} --scope {scope}");
    if let Some(project) = project.filter(|_| scope == "project") {
        command.push_str(&format!(
            " --project {}",
            shell_word(&project.to_string_lossy())
        ));
    }
    command
}

/// `word` as a POSIX shell reads it back: unchanged when it is plain, else single-quoted.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

pub fn short(digest: &crate::digest::Sha256Digest) -> String {
    digest.hex()[..12].to_owned()
}

pub fn verb(operation: crate::install::Operation) -> &'static str {
    match operation {
        crate::install::Operation::Installed => "Installed",
        crate::install::Operation::Replaced => "Replaced",
        crate::install::Operation::Unchanged => "Unchanged",
    }
}

/// The status line of one squad's outcome; unchanged ones only with --verbose.
pub fn outcome_line(printer: &Printer, outcome: &crate::project::sync::Outcome) {
    let what = format!(
        "{} {} ({})",
        outcome.name, outcome.version, outcome.resolved
    );
    match (outcome.operation, outcome.before) {
        (crate::install::Operation::Unchanged, _) => printer.detail(&format!("unchanged {what}")),
        (crate::install::Operation::Replaced, Some(before)) => {
            printer.status("Replaced", &format!("{what}, was {}…", short(&before)))
        }
        (operation, _) => printer.status(verb(operation), &what),
    }
}
