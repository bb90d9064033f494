//! `squad add`, `squad remove`, `squad sync`, `squad outdated` and `squad update`: a project's
//! squads, declared in `.opencorvus/squads.jsonc` and locked in `.opencorvus/squads.lock`.

use std::path::{Path, PathBuf};

use super::install::{ScopeArg, opencorvus_root, scope_of};
use super::registry::{NetworkArgs, Progress};
use super::report::{print_diagnostics, refused_package};
use super::{DataFormat, ExitStatus, Format};
use crate::cache::Cache;
use crate::digest::Sha256Digest;
use crate::install::Operation;
use crate::install::scope::Scope;
use crate::output::{Printer, TransferBar};
use crate::project::change::{self, AddRequest};
use crate::project::sync::Outcome;
use crate::project::{Failure, Project, ProjectError, Settings};

/// Downloads at once unless `--jobs` says otherwise.
const DEFAULT_JOBS: usize = 8;

/// The exit statuses every project command's `--help` ends with (a literal: help text is not
/// formatted at start-up).
macro_rules! exit_help {
    () => {
        "\n\nExit status: 0 done, 1 refused (squads.jsonc or squads.lock cannot be used, the files \
disagree under --locked, bytes that differ from the lock, an invalid package), 2 usage, network or \
I/O error (an offline sync that misses an archive in the cache)."
    };
}

/// Where the project is.
#[derive(Debug, Clone, clap::Args)]
pub struct ProjectArgs {
    /// The project directory, which holds `.opencorvus/` [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// Declare a squad in the project, install it, and lock it.
///
/// SOURCE is resolved, checked and installed into the project scope, then recorded in
/// `.opencorvus/squads.jsonc` (created if absent; edited in place, comments kept) under the
/// `<namespace>/<id>` its manifest declares, and its exact bytes in `.opencorvus/squads.lock`.
/// A registry reference with a version tag is declared with that `version`; without one, the
/// newest version is installed and locked, and `squad update` moves to a newer one later.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad add oci://ghcr.io/acme/squads/acme/review                 the newest version
  squad add oci://ghcr.io/acme/squads/acme/review:2026.12.01.1    exactly this version
  squad add squads/release-review                                 a folder of this project
  squad add vendor/review-expert-squad.zip
  squad add https://example.com/review.zip --sha256 <64 hex>
  squad add 'opencorvus://expert-squad/install?namespace=acme&id=review&…'", exit_help!()))]
pub struct AddArgs {
    /// A package folder or `.zip` archive (a path from the current directory), an
    /// `oci://HOST/BASE/<namespace>/<id>[:VERSION|@sha256:DIGEST]` reference, an `https://`
    /// archive URL (with --sha256), or an `opencorvus://expert-squad/install?…` link.
    #[arg(value_name = "SOURCE")]
    pub source: String,

    /// The SHA-256 of the archive an `https://` SOURCE serves (64 lowercase hex).
    #[arg(long, value_name = "HEX")]
    pub sha256: Option<String>,

    #[command(flatten)]
    pub project: ProjectArgs,

    #[command(flatten)]
    pub network: NetworkArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Remove a squad from the project: forget it in both files and uninstall it.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad remove acme/review
  squad remove review                    the id alone, when it is unambiguous", exit_help!()))]
pub struct RemoveArgs {
    /// The squad: `<namespace>/<id>`, or its id.
    #[arg(value_name = "NAME")]
    pub name: String,

    #[command(flatten)]
    pub project: ProjectArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// Make the project's installed squads match squads.lock.
///
/// Installs what is missing and replaces what differs (only if it is still what was observed:
/// compare-and-swap on the installed digest); packages the files do not mention are left
/// alone. Squads declared but not yet locked are resolved and locked, unless --locked, which
/// refuses instead and changes nothing: the mode for CI. Bytes that differ from the lock (a
/// moved tag, a changed folder or archive, a tampered cache entry) are refused with both
/// digests. Downloads go to the cache first (in parallel), and nothing is installed unless
/// every one succeeded. A second sync needs no network; --offline uses only the cache.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad sync
  squad sync --locked                    in CI: exactly what squads.lock says, or exit 1
  squad sync --offline                   from the download cache only
  squad sync --locked --format json", exit_help!()))]
pub struct SyncArgs {
    /// Refuse (exit 1, nothing changed) when squads.lock does not lock exactly what
    /// squads.jsonc declares, instead of resolving and rewriting it.
    #[arg(long)]
    pub locked: bool,

    /// Use no network: local sources and the download cache only.
    #[arg(long)]
    pub offline: bool,

    /// Downloads at once.
    #[arg(long, short = 'j', value_name = "N", default_value_t = DEFAULT_JOBS)]
    pub jobs: usize,

    #[command(flatten)]
    pub project: ProjectArgs,

    #[command(flatten)]
    pub network: NetworkArgs,

    /// Output format (sarif and github apply to problems in squads.jsonc and squads.lock).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// List the project's registry squads that have newer versions published.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad outdated
  squad outdated --format json", exit_help!()))]
pub struct OutdatedArgs {
    #[command(flatten)]
    pub project: ProjectArgs,

    #[command(flatten)]
    pub network: NetworkArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// Move squads to their newest version and lock it.
///
/// Registry squads resolve to the newest version published; a `version`, tag or digest that
/// squads.jsonc declares moves with it (edited in place). Other sources are locked again as
/// they are now (a folder's or an archive's current content). The new versions are installed
/// (compare-and-swap on the installed digest), then both files are written.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad update                     every squad
  squad update acme/review", exit_help!()))]
pub struct UpdateArgs {
    /// Only this squad: `<namespace>/<id>`, or its id.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,

    /// Downloads at once.
    #[arg(long, short = 'j', value_name = "N", default_value_t = DEFAULT_JOBS)]
    pub jobs: usize,

    #[command(flatten)]
    pub project: ProjectArgs,

    #[command(flatten)]
    pub network: NetworkArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

pub(super) fn project_of(args: &ProjectArgs, printer: &Printer) -> Result<Project, ExitStatus> {
    let Scope::Project(root) = scope_of(ScopeArg::Project, args.project.as_deref(), printer)?
    else {
        return Err(ExitStatus::Error);
    };
    let shown = args
        .project
        .as_ref()
        .map_or_else(|| ".".to_owned(), |path| path.display().to_string());
    Ok(Project::new(root, shown))
}

fn cache(printer: &Printer) -> Result<Cache, ExitStatus> {
    Cache::from_env().ok_or_else(|| {
        printer.error(
            "cannot tell where squad's download cache is",
            Some("set SQUAD_CACHE_DIR to a directory"),
        );
        ExitStatus::Error
    })
}

/// What every project command needs, built once per run.
struct Run {
    project: Project,
    opencorvus_root: PathBuf,
    cache: Cache,
    progress: Progress,
}

impl Run {
    fn new(args: &ProjectArgs, printer: &Printer) -> Result<Run, ExitStatus> {
        Ok(Run {
            project: project_of(args, printer)?,
            opencorvus_root: opencorvus_root(printer)?,
            cache: cache(printer)?,
            progress: Progress(TransferBar::new(printer)),
        })
    }

    fn settings<'a>(
        &'a self,
        client: Option<&'a crate::http::Client>,
        jobs: usize,
    ) -> Settings<'a> {
        Settings {
            opencorvus_root: self.opencorvus_root.clone(),
            cache: self.cache.clone(),
            client,
            jobs: jobs.max(1),
            transfers: &self.progress,
            lock_timeout: None,
        }
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

fn short(digest: &Sha256Digest) -> String {
    digest.hex()[..12].to_owned()
}

fn json(printer: &Printer, value: &serde_json::Value) {
    printer.data(&(serde_json::to_string_pretty(value).unwrap_or_default() + "\n"));
}

/// The JSON of failures.
fn failures_json(failures: &[Failure]) -> serde_json::Value {
    failures
        .iter()
        .map(|failure| {
            serde_json::json!({
                "name": failure.name,
                "message": failure.message,
                "hint": failure.hint,
                "refused": failure.refused,
            })
        })
        .collect()
}

/// Reports failures on stderr (with an invalid package's diagnostics) and returns the status.
fn report_failures(printer: &Printer, failures: &[Failure]) -> ExitStatus {
    let mut status = ExitStatus::Success;
    for failure in failures {
        if let Some(report) = &failure.report {
            print_diagnostics(
                printer,
                &report.root.display().to_string(),
                &report.diagnostics,
                &report.sources,
            );
        }
        // A squad not yet named goes by its source, which a transport error names already.
        let message = if failure.message.starts_with(&failure.name) {
            failure.message.clone()
        } else {
            format!("{}: {}", failure.name, failure.message)
        };
        printer.error(&message, failure.hint.as_deref());
        status = status.max(if failure.refused {
            ExitStatus::Failure
        } else {
            ExitStatus::Error
        });
    }
    status
}

/// Reports an error that stopped a command, in `format`, and returns the status.
pub(super) fn report_error(
    printer: &Printer,
    format: Format,
    command: &str,
    project: &Project,
    error: ProjectError,
) -> ExitStatus {
    let machine = format == Format::Json;
    let document = |status: &str, extra: serde_json::Value| {
        let mut value = serde_json::json!({
            "schema_version": crate::diag::json::SCHEMA_VERSION,
            "type": command,
            "project": project.shown,
            "status": status,
            "error": crate::error::chain(&error),
        });
        if let (Some(object), serde_json::Value::Object(extra)) = (value.as_object_mut(), extra) {
            object.extend(extra);
        }
        value
    };
    let status = error.class().into();
    match &error {
        ProjectError::Invalid {
            diagnostics,
            sources,
        } => {
            refused_package(printer, format, &project.shown, diagnostics, sources);
            printer.error(
                &error.to_string(),
                Some("fix what the diagnostics point at; `squad explain CODE` says more"),
            );
        }
        ProjectError::Failed(failures) => {
            if machine {
                json(
                    printer,
                    &document(
                        "failed",
                        serde_json::json!({ "failures": failures_json(failures) }),
                    ),
                );
            }
            report_failures(printer, failures);
            printer.error(&format!("{error}; nothing was changed"), None);
        }
        ProjectError::Disagree(lines) => {
            if machine {
                json(
                    printer,
                    &document("refused", serde_json::json!({ "disagreements": lines })),
                );
            }
            printer.error(
                &error.to_string(),
                Some("run `squad sync` without --locked to lock what squads.jsonc declares, and commit squads.lock"),
            );
        }
        ProjectError::NotDeclared(_) => {
            if machine {
                json(printer, &document("refused", serde_json::json!({})));
            }
            printer.error(
                &error.to_string(),
                Some("`squad sync --verbose` lists the declared squads"),
            );
        }
        ProjectError::Undeclared(_) => {
            if machine {
                json(printer, &document("error", serde_json::json!({})));
            }
            printer.error(
                &error.to_string(),
                Some("`squad add SOURCE` declares a first squad"),
            );
        }
        ProjectError::OutsideProject(_) => {
            if machine {
                json(printer, &document("refused", serde_json::json!({})));
            }
            printer.error(
                &format!("{error}; nothing was changed"),
                Some(crate::install::scope::OutsideProject::HINT),
            );
        }
        ProjectError::Usage(_) | ProjectError::Io(..) => {
            if machine {
                json(printer, &document("error", serde_json::json!({})));
            }
            printer.failure(&error, None);
        }
    }
    status
}

fn verb(operation: Operation) -> &'static str {
    match operation {
        Operation::Installed => "Installed",
        Operation::Replaced => "Replaced",
        Operation::Unchanged => "Unchanged",
    }
}

/// The status line of one squad's outcome; unchanged ones only with --verbose.
fn outcome_line(printer: &Printer, outcome: &Outcome) {
    let what = format!(
        "{} {} ({})",
        outcome.name, outcome.version, outcome.resolved
    );
    match (outcome.operation, outcome.before) {
        (Operation::Unchanged, _) => printer.detail(&format!("unchanged {what}")),
        (Operation::Replaced, Some(before)) => {
            printer.status("Replaced", &format!("{what}, was {}…", short(&before)))
        }
        (operation, _) => printer.status(verb(operation), &what),
    }
}

fn outcome_json(outcome: &Outcome) -> serde_json::Value {
    let mut value = serde_json::to_value(outcome).unwrap_or_default();
    value["target"] = serde_json::json!(outcome.target);
    value
}

pub fn run_add(args: &AddArgs, printer: &Printer) -> ExitStatus {
    let run = match Run::new(&args.project, printer) {
        Ok(run) => run,
        Err(status) => return status,
    };
    let sha256 = match args.sha256.as_deref().map(Sha256Digest::parse) {
        Some(None) => {
            printer.error("--sha256 takes 64 lowercase hex characters", None);
            return ExitStatus::Error;
        }
        Some(Some(digest)) => Some(digest),
        None => None,
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let request = AddRequest {
        source: &args.source,
        sha256,
        cwd: &cwd,
    };
    let client = args.network.client();
    let settings = run.settings(Some(&client), 1);
    let added = match change::add(&run.project, &settings, &request, &mut waiting(printer)) {
        Ok(added) => added,
        Err(error) => return report_error(printer, args.format, "add", &run.project, error),
    };
    match args.format {
        Format::Json => json(
            printer,
            &serde_json::json!({
                "schema_version": crate::diag::json::SCHEMA_VERSION,
                "type": "add",
                "project": run.project.shown,
                "status": "ok",
                "declared": added.declared,
                "squad": outcome_json(&added.outcome),
            }),
        ),
        _ => {
            let file = run.project.display(crate::project::declared::FILE);
            match added.declared {
                change::Declared::Added => {
                    printer.status("Added", &format!("{} to {file}", added.name))
                }
                change::Declared::Changed => {
                    printer.status("Changed", &format!("{} in {file}", added.name))
                }
                change::Declared::Unchanged => {
                    printer.status("Declared", &format!("{} already, as in {file}", added.name))
                }
            }
            let outcome = &added.outcome;
            let what = format!(
                "{} {} ({})",
                outcome.name, outcome.version, outcome.resolved
            );
            printer.status(verb(outcome.operation), &what);
        }
    }
    ExitStatus::Success
}

pub fn run_remove(args: &RemoveArgs, printer: &Printer) -> ExitStatus {
    let run = match Run::new(&args.project, printer) {
        Ok(run) => run,
        Err(status) => return status,
    };
    let settings = run.settings(None, 1);
    let format = Format::from(args.format);
    let removed = match change::remove(&run.project, &settings, &args.name, &mut waiting(printer)) {
        Ok(removed) => removed,
        Err(error) => return report_error(printer, format, "remove", &run.project, error),
    };
    for warning in &removed.warnings {
        printer.human(&format!("warning: {warning}\n"));
    }
    match args.format {
        DataFormat::Json => json(
            printer,
            &serde_json::json!({
                "schema_version": crate::diag::json::SCHEMA_VERSION,
                "type": "remove",
                "project": run.project.shown,
                "status": "ok",
                "name": removed.name,
                "declared": removed.declared,
                "locked": removed.locked,
                "uninstalled": removed.uninstalled,
                "reset": removed.reset,
            }),
        ),
        DataFormat::Human => {
            let files: Vec<&str> = [
                (removed.declared, "squads.jsonc"),
                (removed.locked, "squads.lock"),
            ]
            .iter()
            .filter(|(present, _)| *present)
            .map(|(_, file)| *file)
            .collect();
            if !files.is_empty() {
                printer.status(
                    "Removed",
                    &format!("{} from {}", removed.name, files.join(" and ")),
                );
            }
            if let Some(root) = &removed.uninstalled {
                printer.status(
                    "Uninstalled",
                    &format!("{} from {}", removed.name, root.display()),
                );
            }
            let id = removed.name.rsplit('/').next().unwrap_or_default();
            for config in &removed.reset {
                printer.status(
                    "Reset",
                    &format!(
                        "prompt_profile.active of {} from `{id}` to `base`",
                        config.display()
                    ),
                );
            }
        }
    }
    ExitStatus::Success
}

pub fn run_sync(args: &SyncArgs, printer: &Printer) -> ExitStatus {
    let run = match Run::new(&args.project, printer) {
        Ok(run) => run,
        Err(status) => return status,
    };
    let client = (!args.offline).then(|| args.network.client());
    let settings = run.settings(client.as_ref(), args.jobs);
    let report = match crate::project::sync::sync(
        &run.project,
        &settings,
        args.locked,
        &mut waiting(printer),
    ) {
        Ok(report) => report,
        Err(error) => return report_error(printer, args.format, "sync", &run.project, error),
    };
    for warning in &report.warnings {
        printer.human(&format!(
            "warning: interrupted replacement not recovered: {warning}\n"
        ));
    }
    if args.format == Format::Json {
        let status = if report.failures.is_empty() {
            "ok"
        } else {
            "failed"
        };
        json(
            printer,
            &serde_json::json!({
                "schema_version": crate::diag::json::SCHEMA_VERSION,
                "type": "sync",
                "project": run.project.shown,
                "status": status,
                "locked": args.locked,
                "offline": args.offline,
                "squads": report.outcomes.iter().map(outcome_json).collect::<Vec<_>>(),
                "failures": failures_json(&report.failures),
                "dropped": report.dropped,
                "lock_written": report.lock_written,
            }),
        );
    } else {
        for outcome in &report.outcomes {
            outcome_line(printer, outcome);
        }
        for name in &report.dropped {
            let id = name.rsplit('/').next().unwrap_or(name);
            printer.status(
                "Unlocked",
                &format!(
                    "{name}: no longer declared; its package stays installed (`squad uninstall {id} --scope project` removes it)"
                ),
            );
        }
    }
    let status = report_failures(printer, &report.failures);
    if status != ExitStatus::Success {
        let nothing = if report.outcomes.is_empty() {
            "; nothing was installed"
        } else {
            ""
        };
        printer.error(
            &format!(
                "{} squad{} could not be synced{nothing}",
                report.failures.len(),
                crate::text::plural(report.failures.len())
            ),
            None,
        );
        return status;
    }
    let count = |operation: Operation| {
        report
            .outcomes
            .iter()
            .filter(|outcome| outcome.operation == operation)
            .count()
    };
    let mut summary = format!(
        "{} squad{}",
        report.outcomes.len(),
        crate::text::plural(report.outcomes.len())
    );
    let parts: Vec<String> = [
        (Operation::Installed, "installed"),
        (Operation::Replaced, "replaced"),
        (Operation::Unchanged, "unchanged"),
    ]
    .iter()
    .map(|(operation, word)| (count(*operation), word))
    .filter(|(count, _)| *count > 0)
    .map(|(count, word)| format!("{count} {word}"))
    .collect();
    if !parts.is_empty() {
        summary.push_str(&format!(": {}", parts.join(", ")));
    }
    if report.lock_written {
        summary.push_str(&format!(
            "; wrote {}",
            run.project.display(crate::project::lockfile::FILE)
        ));
    }
    printer.status("Synced", &summary);
    status
}

pub fn run_outdated(args: &OutdatedArgs, printer: &Printer) -> ExitStatus {
    let project = match project_of(&args.project, printer) {
        Ok(project) => project,
        Err(status) => return status,
    };
    let client = args.network.client();
    let format = Format::from(args.format);
    let (rows, failures) = match crate::project::outdated::outdated(&project, &client, DEFAULT_JOBS)
    {
        Ok(found) => found,
        Err(error) => return report_error(printer, format, "outdated", &project, error),
    };
    match args.format {
        DataFormat::Json => json(
            printer,
            &serde_json::json!({
                "schema_version": crate::diag::json::SCHEMA_VERSION,
                "type": "outdated",
                "project": project.shown,
                "status": if failures.is_empty() { "ok" } else { "failed" },
                "squads": rows,
                "failures": failures_json(&failures),
            }),
        ),
        DataFormat::Human => {
            let cells: Vec<[String; 4]> = rows
                .iter()
                .map(|row| {
                    let note = match (row.kind, row.newer.len(), row.pinned_by) {
                        ("registry", 0, _) => "up to date".to_owned(),
                        ("registry", count, pinned) => format!(
                            "{count} newer{}",
                            pinned
                                .map(|pin| format!(" (`squad update` moves the {pin})"))
                                .unwrap_or_default()
                        ),
                        (kind, _, _) => format!("{kind} source: not checked"),
                    };
                    [
                        row.name.clone(),
                        row.locked.clone().unwrap_or_else(|| "-".to_owned()),
                        row.latest.clone().unwrap_or_else(|| "-".to_owned()),
                        note,
                    ]
                })
                .collect();
            let header = [
                "name".to_owned(),
                "locked".to_owned(),
                "latest".to_owned(),
                "".to_owned(),
            ];
            let widths: Vec<usize> = (0..3)
                .map(|column| {
                    std::iter::once(&header)
                        .chain(&cells)
                        .map(|row| row[column].chars().count())
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let mut text = String::new();
            for row in std::iter::once(&header).chain(&cells) {
                let line = format!(
                    "{:<w0$}  {:<w1$}  {:<w2$}  {}",
                    row[0],
                    row[1],
                    row[2],
                    row[3],
                    w0 = widths[0],
                    w1 = widths[1],
                    w2 = widths[2]
                );
                text.push_str(line.trim_end());
                text.push('\n');
            }
            printer.data(&text);
        }
    }
    report_failures(printer, &failures)
}

pub fn run_update(args: &UpdateArgs, printer: &Printer) -> ExitStatus {
    let run = match Run::new(&args.project, printer) {
        Ok(run) => run,
        Err(status) => return status,
    };
    let client = args.network.client();
    let settings = run.settings(Some(&client), args.jobs);
    let format = Format::from(args.format);
    let (updated, failures) = match change::update(
        &run.project,
        &settings,
        args.name.as_deref(),
        &mut waiting(printer),
    ) {
        Ok(done) => done,
        Err(error) => return report_error(printer, format, "update", &run.project, error),
    };
    match args.format {
        DataFormat::Json => {
            let squads: Vec<serde_json::Value> = updated
                .iter()
                .map(|updated| {
                    let mut value = outcome_json(&updated.outcome);
                    value["from"] = serde_json::json!(updated.from);
                    value["declaration_changed"] = serde_json::json!(updated.declaration_changed);
                    value
                })
                .collect();
            json(
                printer,
                &serde_json::json!({
                    "schema_version": crate::diag::json::SCHEMA_VERSION,
                    "type": "update",
                    "project": run.project.shown,
                    "status": if failures.is_empty() { "ok" } else { "failed" },
                    "squads": squads,
                    "failures": failures_json(&failures),
                }),
            );
        }
        DataFormat::Human => {
            for updated in &updated {
                let outcome = &updated.outcome;
                let from = updated.from.as_deref().unwrap_or("unlocked");
                if outcome.operation == Operation::Unchanged && from == outcome.version {
                    printer.status(
                        "Unchanged",
                        &format!("{} {} (the newest)", outcome.name, outcome.version),
                    );
                } else if from == outcome.version {
                    let before = outcome
                        .before
                        .map_or("none".to_owned(), |digest| short(&digest));
                    printer.status(
                        "Updated",
                        &format!(
                            "{} {from}: package digest {before}… -> {}… ({})",
                            outcome.name,
                            short(&outcome.after),
                            outcome.resolved
                        ),
                    );
                } else {
                    printer.status(
                        "Updated",
                        &format!(
                            "{} {from} -> {} ({})",
                            outcome.name, outcome.version, outcome.resolved
                        ),
                    );
                }
            }
        }
    }
    report_failures(printer, &failures)
}
