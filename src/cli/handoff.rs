//! `squad handoff`: ZeroClaw / AOS AgentHandoff payloads (seed-formats §4). Validate them,
//! against a squad and a clock if asked (D1), and scaffold one per workflow node (D2).

use std::path::{Path, PathBuf};

use super::inputs::check_document;
use super::report::{FIX_PACKAGE, write_output};
use super::report::{Failure, load_squad, report};
use super::{ExitStatus, Format};
use crate::interop::external::ExternalSchema;
use crate::interop::handoff::scaffold::{self, Extras};
use crate::interop::handoff::{self, datetime};
use crate::interop::squad::Squad;
use crate::interop::{Kind, Level, Options};
use crate::output::Printer;

/// Validate and scaffold AgentHandoff payloads (structured task delegations between agents).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad handoff validate interop/aos/handoffs/
  squad handoff validate task.json --squad pkg --now 2026-08-13T09:00:00Z
  squad handoff scaffold pkg --workflow review
  squad handoff scaffold pkg --workflow review --autonomy L1 -o interop/aos/handoffs")]
pub struct HandoffArgs {
    #[command(subcommand)]
    pub command: HandoffCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum HandoffCommand {
    Validate(ValidateArgs),
    Scaffold(ScaffoldArgs),
}

/// Check AgentHandoff payloads.
///
/// The AgentHandoff field table (draft-07, closed objects, task ids `^AOS-\d+$` with ASCII
/// digits only) and, at --level spec, the date-time deadline and three warnings.
///
/// A folder stands for the `.json` files directly in it. With --squad, `from` must be
/// `orchestrator` or an agent of the package (a worker is a warning: only the Orchestrator
/// dispatches workers) and `to` an agent. With --now, a deadline not after that instant is a
/// warning.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad handoff validate task.json
  squad handoff validate interop/aos/handoffs/ --squad pkg
  squad handoff validate task.json --now 2026-08-13T09:00:00Z --format json
  squad handoff validate task.json --level schema      formats are annotations
  squad handoff validate task.json --schema handoff.json   also the upstream schema text")]
pub struct ValidateArgs {
    /// Handoff files, or folders of them.
    #[arg(value_name = "FILE|DIR", required = true)]
    pub paths: Vec<PathBuf>,

    /// Check `from` and `to` against this package's agents.
    #[arg(long, value_name = "PKG")]
    pub squad: Option<PathBuf>,

    /// An RFC 3339 date-time; deadlines not after it are reported.
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,

    /// How strictly to check.
    #[arg(long, value_enum, default_value_t = Level::Spec)]
    pub level: Level,

    /// Also check against this local copy of the AgentHandoff JSON Schema (draft-07; formats
    /// asserted from --level spec on). squad does not embed its text.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,

    /// Exit 1 when there are warnings, too.
    #[arg(long)]
    pub deny_warnings: bool,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Write one skeleton handoff per node of a workflow.
///
/// In dependency order (ties by node id): from `orchestrator` to the node's agent, the node
/// description as goal and first definition_of_done item, the task ids of its dependencies as
/// inputs.
///
/// Without -o the handoffs are printed as one JSON array; with -o each is written to
/// `<DIR>/<task_id>.json`. Budgets and token caps are set only from a play's budget shares
/// (the `play-extras.json` an import from a play leaves in
/// `<workspace>/interop/openvibe/<squad-id>/`, or --extras) times --budget-eur and
/// --max-tokens; otherwise they are left out, never 0, which would forbid any spend.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad handoff scaffold pkg --workflow review                 a JSON array on stdout
  squad handoff scaffold pkg --workflow review -o handoffs     one file per handoff
  squad handoff scaffold pkg --workflow review --task-start 1400 --autonomy L1 --output-format report
  squad handoff scaffold pkg --workflow review --budget-eur 20 --max-tokens 200000")]
pub struct ScaffoldArgs {
    /// The package folder.
    #[arg(value_name = "PKG")]
    pub package: PathBuf,

    /// The workflow (a key of capability_projection.virtual_workflows).
    #[arg(long, value_name = "WF")]
    pub workflow: String,

    /// The number of the first task id (AOS-<N>).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub task_start: u64,

    /// The whole budget in EUR, split by the play's budget shares.
    #[arg(long, value_name = "X")]
    pub budget_eur: Option<String>,

    /// The whole token cap, split by the play's budget shares.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,

    /// constraints.autonomy of every handoff.
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(crate::interop::handoff::AUTONOMY))]
    pub autonomy: Option<String>,

    /// output_format of every handoff.
    #[arg(long, value_name = "F", value_parser = clap::builder::PossibleValuesParser::new(crate::interop::handoff::OUTPUT_FORMATS))]
    pub output_format: Option<String>,

    /// The play-extras.json to take budget shares and check bars from.
    #[arg(long, value_name = "FILE")]
    pub extras: Option<PathBuf>,

    /// Write `<task_id>.json` files into this folder instead of printing.
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,

    /// Replace handoff files that already exist in the output folder.
    #[arg(long)]
    pub force: bool,
}

pub fn run(args: &HandoffArgs, printer: &Printer) -> ExitStatus {
    match &args.command {
        HandoffCommand::Validate(args) => run_validate(args, printer),
        HandoffCommand::Scaffold(args) => run_scaffold(args, printer),
    }
}

/// The files a path argument stands for: itself, or the `.json` files directly in a folder.
fn expand(path: &Path) -> Result<Vec<PathBuf>, String> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = crate::fs::read_dir(path)
        .map_err(|error| format!("cannot read folder `{}`: {error}", path.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|file| file.is_file() && file.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("folder `{}` holds no .json files", path.display()));
    }
    Ok(files)
}

fn run_validate(args: &ValidateArgs, printer: &Printer) -> ExitStatus {
    let now = match args
        .now
        .as_deref()
        .map(|text| (text, datetime::parse(text)))
    {
        None => None,
        Some((_, Some(instant))) => Some(instant),
        Some((text, None)) => {
            printer.error(
                &format!("--now `{text}` is not an RFC 3339 date-time"),
                Some("write it like 2026-08-13T09:00:00Z"),
            );
            return ExitStatus::Error;
        }
    };
    let squad: Option<Squad> = match &args.squad {
        None => None,
        Some(path) => match load_squad(
            path,
            printer,
            &format!("package `{}` is invalid", path.display()),
            Some(FIX_PACKAGE),
        ) {
            Ok((squad, _)) => Some(squad),
            Err(status) => return status,
        },
    };
    let options = Options {
        level: args.level,
        ..Options::default()
    };
    let mut schema = args.schema.as_deref().map(ExternalSchema::new);
    let mut results = Vec::new();
    for path in &args.paths {
        match expand(path) {
            Err(message) => results.push((
                path.display().to_string(),
                Err(Failure {
                    message,
                    hint: None,
                }),
            )),
            Ok(files) => {
                for file in files {
                    let checked = check_document(
                        &file,
                        Some(Kind::Handoff),
                        &options,
                        schema.as_mut(),
                        |doc, diagnostics| {
                            if let Some(squad) = &squad {
                                handoff::check_squad(doc, squad, diagnostics);
                            }
                            if let Some(now) = &now {
                                handoff::check_deadline(doc, now, diagnostics);
                            }
                        },
                    );
                    results.push((file.display().to_string(), checked));
                }
            }
        }
    }
    report(printer, args.format, args.deny_warnings, results)
}

fn run_scaffold(args: &ScaffoldArgs, printer: &Printer) -> ExitStatus {
    if let Some(budget) = &args.budget_eur
        && crate::interop::decimal::scaled(budget.trim()).is_none()
    {
        printer.error(
            &format!("--budget-eur `{budget}` is not a plain decimal number >= 0"),
            Some("write it like 25 or 12.50"),
        );
        return ExitStatus::Error;
    }
    let (squad, _) = match load_squad(
        &args.package,
        printer,
        &format!("package `{}` is invalid", args.package.display()),
        Some(FIX_PACKAGE),
    ) {
        Ok(loaded) => loaded,
        Err(status) => return status,
    };
    let Some(workflow) = squad.workflow(&args.workflow) else {
        let known: Vec<&str> = squad.workflows.iter().map(|w| w.id.as_str()).collect();
        printer.error(
            &format!(
                "package `{}` has no workflow `{}`; its workflows: {}",
                args.package.display(),
                args.workflow,
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ),
            None,
        );
        return ExitStatus::Error;
    };
    let extras = match extras(args, &squad, printer) {
        Ok(extras) => extras,
        Err(status) => return status,
    };
    let options = scaffold::Options {
        task_start: args.task_start,
        budget_eur: args.budget_eur.clone(),
        max_tokens: args.max_tokens,
        autonomy: args.autonomy.clone(),
        output_format: args.output_format.clone(),
    };
    let handoffs = scaffold::scaffold(&squad, workflow, &options, extras.as_ref());
    match &args.output {
        None => {
            let text = crate::output::json_text(&handoffs);
            write_output(printer, None, &text)
        }
        Some(folder) => write_folder(printer, folder, &handoffs, args.force),
    }
}

/// The play sidecar, when there is one. Budget options without it cannot be split: say so
/// rather than invent shares.
fn extras(
    args: &ScaffoldArgs,
    squad: &Squad,
    printer: &Printer,
) -> Result<Option<Extras>, ExitStatus> {
    let path = args
        .extras
        .clone()
        .unwrap_or_else(|| scaffold::default_extras_path(&args.package, &squad.id));
    if args.extras.is_none() && !path.is_file() {
        if args.budget_eur.is_some() || args.max_tokens.is_some() {
            printer.status(
                "Skipped",
                &format!(
                    "budget shares: no play-extras.json at `{}`, so budget_eur and max_tokens are left out",
                    path.display()
                ),
            );
        }
        return Ok(None);
    }
    match scaffold::read_extras(&path) {
        Ok(extras) => Ok(Some(extras)),
        Err(message) => {
            printer.error(&message, None);
            Err(ExitStatus::Error)
        }
    }
}

fn write_folder(
    printer: &Printer,
    folder: &Path,
    handoffs: &[scaffold::Handoff],
    force: bool,
) -> ExitStatus {
    if let Err(error) = crate::fs::create_dir_all(folder) {
        printer.error(
            &format!("cannot create `{}`: {error}", folder.display()),
            None,
        );
        return ExitStatus::Error;
    }
    let files: Vec<(PathBuf, String)> = handoffs
        .iter()
        .map(|handoff| {
            (
                folder.join(format!("{}.json", handoff.task_id)),
                serde_json::to_string_pretty(handoff).unwrap_or_default() + "\n",
            )
        })
        .collect();
    // Refuse before writing anything: a scaffold must not overwrite handoffs being filled in.
    let existing: Vec<String> = files
        .iter()
        .filter(|(path, _)| path.exists())
        .map(|(path, _)| path.display().to_string())
        .collect();
    if !force && !existing.is_empty() {
        printer.error(
            &format!("these files exist already: {}", existing.join(", ")),
            Some("pass --force to replace them, or choose another folder or --task-start"),
        );
        return ExitStatus::Error;
    }
    for (path, text) in &files {
        if let Err(error) = crate::fs::replace_file(path, text.as_bytes()) {
            printer.error(&format!("cannot write `{}`: {error}", path.display()), None);
            return ExitStatus::Error;
        }
    }
    printer.status(
        "Wrote",
        &format!("{} handoffs to {}", files.len(), folder.display()),
    );
    ExitStatus::Success
}
