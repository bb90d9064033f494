//! `squad import play` and `squad export play`: convert between agents.play@1 plays and squad
//! packages.

use std::collections::HashMap;
use std::path::PathBuf;

use super::ExitStatus;
use super::report::{load_squad, print_diagnostics};
use crate::diag::Diagnostic;
use crate::interop::document::{self, Document};
use crate::interop::play::export::{ExportOptions, export};
use crate::interop::play::import::{self, ImportError};
use crate::interop::{Level, play};
use crate::new_package::NewError;
use crate::output::Printer;
use crate::source::SourceFile;

/// Turn a document of another format into a squad package.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad import play fan-out.json squads/fan-out
  squad import play review.json squads/review --namespace acme --version 2026.12.01.1")]
pub struct ImportArgs {
    #[command(subcommand)]
    pub what: ImportCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum ImportCommand {
    Play(ImportPlayArgs),
}

/// Turn an agents.play@1 play into a new squad package.
///
/// Roles become agents (base role delegated-worker), phases one workflow whose id is the squad
/// id, checks review nodes. The package is written like `squad new` writes one: staged beside
/// DIR, validated, then renamed into place; DIR must not exist. The play as read and what the
/// manifest cannot hold (model hints, counts, budget shares, stop rules) go to
/// `interop/openvibe/<id>/` beside DIR. The play must be valid first.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad import play fan-out.json squads/fan-out
  squad import play plays/review.json squads/review --namespace acme --version 2026.12.01.1
  squad import play loop.json squads/loop --unroll-rounds
  squad import play x.json squads/x --rename orchestrator=lead   role id reserved by squads")]
pub struct ImportPlayArgs {
    /// The play (JSON).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Where to create the package; must not exist.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// The package namespace.
    #[arg(long, default_value = "openvibe")]
    pub namespace: String,

    /// YYYY.MM.DD.N; default today's UTC date and the play's version (or 1).
    #[arg(long)]
    pub version: Option<String>,

    /// A product pillar (code or work); repeatable. Default: work.
    #[arg(long = "pillar", value_name = "PILLAR")]
    pub pillars: Vec<String>,

    /// OLD=NEW: use NEW for a play or role id that cannot be a squad or agent id.
    #[arg(long = "rename", value_name = "OLD=NEW", value_parser = pair)]
    pub renames: Vec<(String, String)>,

    /// ROLE=BASE: the base role of a role's agent (default delegated-worker).
    #[arg(long = "base-role", value_name = "ROLE=BASE", value_parser = pair)]
    pub base_roles: Vec<(String, String)>,

    /// Where to write source.play.json and play-extras.json (default
    /// `<DIR>/../interop/openvibe/<id>`).
    #[arg(long, value_name = "DIR")]
    pub extras: Option<PathBuf>,

    /// For `stop.when: rounds`: repeat the phases once per round instead of warning.
    #[arg(long)]
    pub unroll_rounds: bool,
}

fn pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((old, new)) if !old.is_empty() && !new.is_empty() => {
            Ok((old.to_owned(), new.to_owned()))
        }
        _ => Err(format!("expected OLD=NEW, found `{text}`")),
    }
}

/// Turn a squad package into a document of another format.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad export play squads/review --workflow review
  squad export play squads/review --workflow review -o review.play.json")]
pub struct ExportArgs {
    #[command(subcommand)]
    pub what: ExportCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum ExportCommand {
    Play(ExportPlayArgs),
}

/// Write one workflow of a squad as an agents.play@1 play.
///
/// Roles are the agents the workflow's nodes use (sorted by id; `does` is the agent's
/// description). Nodes are layered by their longest path from the roots; each layer is a
/// phase, parallel when it has several nodes. The play stops when done. The result is checked
/// as a play before it is written.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad export play squads/review                              its only workflow, printed
  squad export play squads/review --workflow review            print the play
  squad export play squads/review --workflow review -o review.play.json
  squad export play . --workflow delivery --visibility public --author-type user --author-id usr_1")]
pub struct ExportPlayArgs {
    /// The package folder.
    #[arg(value_name = "PKG")]
    pub package: PathBuf,

    /// The workflow to export [default: the package's only workflow].
    #[arg(long)]
    pub workflow: Option<String>,

    /// Write to FILE instead of stdout (replaced atomically).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// The play's integer version.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub play_version: u64,

    /// private or public.
    #[arg(long, value_parser = ["private", "public"])]
    pub visibility: Option<String>,

    /// user, agent or service (with --author-id).
    #[arg(long, value_parser = ["user", "agent", "service"], requires = "author_id")]
    pub author_type: Option<String>,

    /// The author's id (with --author-type).
    #[arg(long, requires = "author_type")]
    pub author_id: Option<String>,
}

pub fn run_import(args: &ImportArgs, printer: &Printer) -> ExitStatus {
    match &args.what {
        ImportCommand::Play(args) => import_play(args, printer),
    }
}

pub fn run_export(args: &ExportArgs, printer: &Printer) -> ExitStatus {
    match &args.what {
        ExportCommand::Play(args) => export_play(args, printer),
    }
}

fn report(printer: &Printer, shown: &str, diagnostics: &[Diagnostic], source: SourceFile) {
    let sources = HashMap::from([(document::FILE.to_owned(), source)]);
    print_diagnostics(printer, shown, diagnostics, &sources);
}

fn import_play(args: &ImportPlayArgs, printer: &Printer) -> ExitStatus {
    let shown = args.file.display().to_string();
    let request = import::Request {
        file: &args.file,
        dir: &args.dir,
        extras: args.extras.as_deref(),
        namespace: args.namespace.clone(),
        version: args.version.clone(),
        pillars: args.pillars.clone(),
        renames: args.renames.clone(),
        base_roles: args.base_roles.clone(),
        unroll_rounds: args.unroll_rounds,
    };
    let done = match import::import(&request, crate::env::today_utc()) {
        Ok(done) => done,
        Err(error) => {
            let hint = match &error {
                ImportError::NotAPlay {
                    diagnostics, text, ..
                }
                | ImportError::Unconvertible {
                    diagnostics, text, ..
                } => {
                    report(printer, &shown, diagnostics, text.clone());
                    None
                }
                ImportError::InvalidPlay {
                    diagnostics, text, ..
                } => {
                    report(printer, &shown, diagnostics, text.clone());
                    Some("`squad validate --kind play FILE` checks a play")
                }
                ImportError::InvalidPackage(report) => {
                    let dir_shown = args.dir.display().to_string();
                    print_diagnostics(printer, &dir_shown, &report.diagnostics, &report.sources);
                    None
                }
                ImportError::Pillar(_) => Some("pillars are code and work"),
                ImportError::Write(NewError::Exists(_)) => {
                    Some("choose a directory that does not exist yet")
                }
                ImportError::Sidecar(..) => Some(
                    "the package is complete; the sidecar only records what the manifest cannot hold",
                ),
                _ => None,
            };
            printer.failure(&error, hint);
            return error.class().into();
        }
    };
    report(printer, &shown, &done.warnings, done.source);
    printer.status(
        "Imported",
        &format!(
            "play `{}` as {}/{} {} in {} (extras in {})",
            done.play_id,
            done.namespace,
            done.squad_id,
            done.version,
            args.dir.display(),
            done.extras_dir.display()
        ),
    );
    ExitStatus::Success
}

fn export_play(args: &ExportPlayArgs, printer: &Printer) -> ExitStatus {
    let shown = args.package.display().to_string();
    let (squad, report) = match load_squad(
        &args.package,
        printer,
        &format!("package `{shown}` is invalid; nothing was exported"),
        None,
    ) {
        Ok(loaded) => loaded,
        Err(status) => return status,
    };
    let known: Vec<&str> = squad.workflows.iter().map(|w| w.id.as_str()).collect();
    let chosen = match (&args.workflow, known.as_slice()) {
        (Some(workflow), _) => workflow.clone(),
        (None, [only]) => (*only).to_owned(),
        (None, []) => {
            printer.error(
                &format!("package `{shown}` declares no workflow to export"),
                Some("virtual_workflows is empty; `squad scaffold workflow` adds one"),
            );
            return ExitStatus::Error;
        }
        (None, several) => {
            printer.error(
                &format!(
                    "package `{shown}` has {} workflows; say which with --workflow",
                    several.len()
                ),
                Some(&format!("its workflows: {}", several.join(", "))),
            );
            return ExitStatus::Error;
        }
    };
    let Some(workflow) = squad.workflow(&chosen) else {
        let hint = match crate::text::closest(&chosen, known.iter().copied()) {
            Some(close) => format!("did you mean `{close}`?"),
            None if known.is_empty() => {
                "the package declares no workflow (virtual_workflows is empty)".to_owned()
            }
            None => format!("its workflows: {}", known.join(", ")),
        };
        printer.error(
            &format!("package `{shown}` has no workflow `{chosen}`"),
            Some(&hint),
        );
        return ExitStatus::Error;
    };
    let options = ExportOptions {
        play_version: Some(args.play_version),
        visibility: args.visibility.clone(),
        author_type: args.author_type.clone(),
        author_id: args.author_id.clone(),
    };
    let (value, warnings) = match export(&squad, workflow, &options) {
        Ok(exported) => exported,
        Err(errors) => {
            print_diagnostics(printer, &shown, &errors, &report.sources);
            printer.error(
                &format!("workflow `{chosen}` cannot be a play; nothing was exported"),
                None,
            );
            return ExitStatus::Failure;
        }
    };
    print_diagnostics(printer, &shown, &warnings, &report.sources);
    let text = serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
    // The export must be a valid play: check it as `squad validate` would.
    if let Ok(document) = Document::parse(text.clone()) {
        let mut findings = Vec::new();
        play::check(&document, Level::Spec, &mut findings);
        if crate::diag::has_errors(&findings) {
            let source = document.source.clone();
            self::report(printer, "<exported play>", &findings, source);
            printer.error("the exported play is not valid; nothing was written", None);
            return ExitStatus::Failure;
        }
    }
    match &args.output {
        None => printer.data(&text),
        Some(path) => {
            if let Err(error) = crate::fs::replace_file(path, text.as_bytes()) {
                printer.error(&format!("cannot write `{}`: {error}", path.display()), None);
                return ExitStatus::Error;
            }
            printer.status(
                "Exported",
                &format!("workflow `{}` of {} to {}", chosen, shown, path.display()),
            );
        }
    }
    ExitStatus::Success
}
