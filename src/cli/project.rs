//! `squad add`, `squad remove`, `squad sync`, `squad outdated` and `squad update`: a project's
//! squads, declared in `.opencorvus/squads.jsonc` and locked in `.opencorvus/squads.lock`.

use std::path::PathBuf;

use super::args::{DEFAULT_JOBS, NetworkArgs, ProjectArgs, ProjectRun};
use super::documents::{self, Added, Removed, Synced};
use super::failures::{project_error as report_error, report_failures};
use super::report::{outcome_line, verb, waiting};
use super::{DataFormat, ExitStatus, Format};
use crate::digest::Sha256Digest;
use crate::install::Operation;
use crate::output::Printer;
use crate::project::change::{self, AddRequest};

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
  squad add 'opencorvus://expert-squad/install?namespace=acme&id=review&…'
  squad add acme/review                  by name, from the project's `index` (docs/index.md)", project_exit_help!()))]
pub struct AddArgs {
    /// A package folder or `.zip` archive (a path from the current directory), an
    /// `oci://HOST/BASE/<namespace>/<id>[:VERSION|@sha256:DIGEST]` reference, an `https://`
    /// archive URL (with --sha256), an `opencorvus://expert-squad/install?…` link, or a
    /// squad's name (`namespace/id`, or an id) in the project's `index`.
    #[arg(value_name = "SOURCE")]
    pub source: String,

    /// The SHA-256 of the archive an `https://` SOURCE serves (64 lowercase hex).
    #[arg(long, value_name = "HEX")]
    pub sha256: Option<String>,

    /// Under the project's `deny_escalation`: accept grants beyond those squads.lock accepted
    /// for this squad, and record them (review them first with `squad diff`).
    #[arg(long)]
    pub accept_grants: bool,

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
  squad remove review                    the id alone, when it is unambiguous", project_exit_help!()))]
pub struct RemoveArgs {
    /// The squad: `<namespace>/<id>`, or its id.
    #[arg(value_name = "NAME")]
    pub name: String,

    /// Remove it even if its installed files changed since it was installed (without it, such
    /// a squad is refused and neither file is touched).
    #[arg(long)]
    pub force: bool,

    #[command(flatten)]
    pub project: ProjectArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

/// Make the project's installed squads match squads.lock.
///
/// Installs what is missing and replaces what differs (only if it is still what was observed:
/// compare-and-swap on the installed digest), and removes the packages installed in the
/// project that squads.jsonc does not declare (unless --keep-undeclared; one squad did not
/// install, or whose files changed, is kept with a warning). Squads declared but not yet locked are resolved and locked, unless --locked, which
/// refuses instead and changes nothing: the mode for CI. A registry squad is fetched by the
/// manifest digest the lock pins: a tag moved to other bytes is a warning naming both digests,
/// not a refusal, while the registry has the pinned manifest. Bytes that differ from the lock (a
/// changed folder or archive, a tampered cache entry) are refused with both digests. Downloads go to the cache first (in parallel), and nothing is installed unless
/// every one succeeded. A second sync needs no network; --offline uses only the cache.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad sync
  squad sync --locked                    in CI: exactly what squads.lock says, or exit 1
  squad sync --offline                   from the download cache only
  squad sync --locked --format json", project_exit_help!()))]
pub struct SyncArgs {
    /// Refuse (exit 1, nothing changed) when squads.lock does not lock exactly what
    /// squads.jsonc declares, instead of resolving and rewriting it.
    #[arg(long)]
    pub locked: bool,

    /// Use no network: local sources and the download cache only.
    #[arg(long)]
    pub offline: bool,

    /// Leave installed the project's packages that squads.jsonc does not declare (by default
    /// sync removes them, so the project holds exactly what squads.lock says).
    #[arg(long)]
    pub keep_undeclared: bool,

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

pub fn run_add(args: &AddArgs, printer: &Printer) -> ExitStatus {
    let run = match ProjectRun::new(&args.project, printer) {
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
        accept_grants: args.accept_grants,
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
        Format::Json => documents::print(
            printer,
            "add",
            Added::new(
                &run.project.shown,
                added.declared,
                &added.outcome,
                &added.held_back,
            ),
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
            if let Some(note) = &added.held_back_note {
                printer.status("Held back", &format!("{} {note}", added.name));
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
    let run = match ProjectRun::new(&args.project, printer) {
        Ok(run) => run,
        Err(status) => return status,
    };
    let settings = run.settings(None, 1);
    let format = Format::from(args.format);
    let removed = match change::remove(
        &run.project,
        &settings,
        &args.name,
        args.force,
        &mut waiting(printer),
    ) {
        Ok(removed) => removed,
        Err(error) => return report_error(printer, format, "remove", &run.project, error),
    };
    for warning in &removed.warnings {
        printer.warning(warning);
    }
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "remove",
            Removed::new(&run.project.shown, &removed),
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
    let run = match ProjectRun::new(&args.project, printer) {
        Ok(run) => run,
        Err(status) => return status,
    };
    let client = (!args.offline).then(|| args.network.client());
    let settings = run.settings(client.as_ref(), args.jobs);
    let request = crate::project::sync::SyncRequest {
        locked: args.locked,
        keep_undeclared: args.keep_undeclared,
    };
    let report =
        match crate::project::sync::sync(&run.project, &settings, request, &mut waiting(printer)) {
            Ok(report) => report,
            Err(error) => return report_error(printer, args.format, "sync", &run.project, error),
        };
    for warning in &report.warnings {
        printer.warning(warning);
    }
    if let Some(merged) = &report.merged {
        let lines: Vec<String> = merged.lines.iter().map(ToString::to_string).collect();
        let anew = if merged.conflicted.is_empty() {
            String::new()
        } else {
            format!(
                "; resolved anew what they lock differently: {}",
                merged.conflicted.join(", ")
            )
        };
        printer.status(
            "Merged",
            &format!(
                "the conflicts of {} (line {}): kept the {} squad{} both branches lock alike or one alone locks{anew}",
                run.project.display(crate::project::lockfile::FILE),
                lines.join(", "),
                merged.kept,
                crate::text::plural(merged.kept)
            ),
        );
    }
    if args.format == Format::Json {
        documents::print(
            printer,
            "sync",
            Synced::new(&run.project.shown, args.locked, args.offline, &report),
        );
    } else {
        for outcome in &report.outcomes {
            outcome_line(printer, outcome);
        }
        for name in &report.dropped {
            printer.status(
                "Unlocked",
                &format!("{name}: no longer declared in squads.jsonc"),
            );
        }
        for undeclared in &report.undeclared {
            match &undeclared.reason {
                None => printer.status(
                    "Removed",
                    &format!(
                        "{}: not declared in squads.jsonc (uninstalled from {})",
                        undeclared.name,
                        undeclared.root.display()
                    ),
                ),
                Some(reason) if args.keep_undeclared => printer.status(
                    "Kept",
                    &format!(
                        "{}: not declared in squads.jsonc ({reason})",
                        undeclared.name
                    ),
                ),
                Some(reason) => printer.warning(&format!(
                    "kept {}, which squads.jsonc does not declare: {reason}",
                    undeclared.name
                )),
            }
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
