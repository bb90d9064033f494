//! `squad outdated` and `squad update`: newer versions of a project's registry squads, and moving
//! to them.

use super::args::{DEFAULT_JOBS, NetworkArgs, ProjectArgs, ProjectRun, project_of};
use super::documents::{self, Outdated, Updated};
use super::failures::{project_error as report_error, report_failures};
use super::report::{short, waiting};
use super::{DataFormat, ExitStatus, Format};
use crate::install::Operation;
use crate::output::Printer;
use crate::project::change;

/// List the project's registry squads that have newer versions published.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad outdated
  squad outdated --exit-code              in CI: exit 1 when something is outdated
  squad outdated --format json", project_exit_help!(), " With --exit-code, 1 also when a squad is outdated."))]
pub struct OutdatedArgs {
    /// Exit 1 when a registry squad has a newer version or its locked version's tag was moved
    /// to other bytes (as `git diff --exit-code`); without it, outdated exits 0 whenever it
    /// could look.
    #[arg(long)]
    pub exit_code: bool,

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
  squad update acme/review
  squad update --dry-run           what would move, and the grants each update adds
  squad update acme/review --accept-grants   take an update that widens the squad's grants
                                   (a project with deny_escalation refuses it otherwise)", project_exit_help!()))]
pub struct UpdateArgs {
    /// Only this squad: `<namespace>/<id>`, or its id.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,

    /// Under the project's `deny_escalation`: accept grants the new versions hold beyond those
    /// squads.lock accepted, and record them (review them first with `squad diff`).
    #[arg(long)]
    pub accept_grants: bool,

    /// Resolve the new versions and judge them, and say what would change (the grants each
    /// adds); install and write nothing. Exits as the real run would.
    #[arg(long)]
    pub dry_run: bool,

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

pub fn run_outdated(args: &OutdatedArgs, printer: &Printer) -> ExitStatus {
    let project = match project_of(&args.project, printer) {
        Ok(project) => project,
        Err(status) => return status,
    };
    let client = args.network.client();
    let format = Format::from(args.format);
    let cache = crate::cache::Cache::from_env();
    let (rows, failures) =
        match crate::project::outdated::outdated(&project, &client, cache.as_ref(), DEFAULT_JOBS) {
            Ok(found) => found,
            Err(error) => return report_error(printer, format, "outdated", &project, error),
        };
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "outdated",
            Outdated::new(&project.shown, &rows, &failures),
        ),
        DataFormat::Human => {
            let cells: Vec<[String; 4]> = rows
                .iter()
                .map(|row| {
                    let mut note = match (row.kind, row.newer.len(), row.pinned_by) {
                        ("registry", 0, _) => "up to date".to_owned(),
                        ("registry", count, pinned) => format!(
                            "{count} newer{}",
                            pinned
                                .map(|pin| format!(" (`squad update` moves the {pin})"))
                                .unwrap_or_default()
                        ),
                        _ => format!("{} source: not checked", row.noun),
                    };
                    if !row.held_back.is_empty() {
                        note.push_str(&format!(
                            "; held back by minimum_release_age: {}",
                            crate::project::cooldown::describe_all(
                                &row.held_back,
                                crate::env::now_utc()
                            )
                        ));
                    }
                    if let Some(now) = &row.tag_moved_to {
                        note.push_str(&format!(
                            "; its tag was moved to other bytes (manifest {}), which `squad update` takes",
                            crate::text::shown(now)
                        ));
                    }
                    // The locked version is squads.lock's word, which a commit can change.
                    let shown = |text: Option<&String>| {
                        crate::text::shown(text.map_or("-", String::as_str))
                    };
                    [
                        crate::text::shown(&row.name),
                        shown(row.locked.as_ref()),
                        shown(row.latest.as_ref()),
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
    let status = report_failures(printer, &failures);
    let outdated = rows
        .iter()
        .filter(|row| !row.newer.is_empty() || row.tag_moved_to.is_some())
        .count();
    if args.exit_code && outdated > 0 {
        printer.error(
            &format!(
                "{outdated} squad{} outdated (--exit-code)",
                if outdated == 1 { " is" } else { "s are" }
            ),
            Some("`squad update` moves to the newest and locks it"),
        );
        return status.max(ExitStatus::Failure);
    }
    status
}

pub fn run_update(args: &UpdateArgs, printer: &Printer) -> ExitStatus {
    let run = match ProjectRun::new(&args.project, printer) {
        Ok(run) => run,
        Err(status) => return status,
    };
    let client = args.network.client();
    let settings = run.settings(Some(&client), args.jobs);
    let format = Format::from(args.format);
    let request = change::UpdateRequest {
        only: args.name.as_deref(),
        accept_grants: args.accept_grants,
        dry_run: args.dry_run,
    };
    let report = match change::update(&run.project, &settings, &request, &mut waiting(printer)) {
        Ok(done) => done,
        Err(error) => return report_error(printer, format, "update", &run.project, error),
    };
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "update",
            Updated::new(&run.project.shown, args.dry_run, &report),
        ),
        DataFormat::Human => {
            for planned in &report.planned {
                let from = planned.from.as_deref().unwrap_or("unlocked");
                let adds = match planned.adds.as_deref() {
                    Some("") => "adds no grant".to_owned(),
                    Some(adds) => format!("adds {adds}"),
                    None => "grants not compared (nothing installed or recorded)".to_owned(),
                };
                let verb = if planned.refused {
                    "Would refuse"
                } else {
                    "Would update"
                };
                let moved = planned
                    .tag_moved_from
                    .as_deref()
                    .map(|before| {
                        format!(
                            " (its tag was moved from manifest {} to {})",
                            crate::text::shown(before),
                            crate::text::shown(
                                planned.resolved.rsplit('@').next().unwrap_or_default()
                            )
                        )
                    })
                    .unwrap_or_default();
                printer.status(
                    verb,
                    &format!("{} {from} -> {}{moved}: {adds}", planned.name, planned.to),
                );
                if let Some(note) = &planned.held_back_note {
                    printer.status("Held back", &format!("{} {note}", planned.name));
                }
            }
            for updated in &report.updated {
                let outcome = &updated.outcome;
                if let Some(note) = &updated.held_back_note {
                    printer.status("Held back", &format!("{} {note}", outcome.name));
                }
                let from = updated.from.as_deref().unwrap_or("unlocked");
                if outcome.operation == Operation::Unchanged && from == outcome.version {
                    printer.status(
                        "Unchanged",
                        &format!(
                            "{} {} (the newest{})",
                            outcome.name,
                            outcome.version,
                            if updated.held_back.is_empty() {
                                ""
                            } else {
                                " old enough"
                            }
                        ),
                    );
                } else if from == outcome.version {
                    let before = outcome
                        .before
                        .map_or("none".to_owned(), |digest| short(&digest));
                    let moved = updated
                        .tag_moved_from
                        .as_deref()
                        .map(|manifest| {
                            format!(
                                "its tag was moved from manifest {} to other bytes; ",
                                crate::text::shown(manifest)
                            )
                        })
                        .unwrap_or_default();
                    printer.status(
                        "Updated",
                        &format!(
                            "{} {from}: {moved}package digest {before}… -> {}… ({})",
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
    report_failures(printer, &report.failures)
}
