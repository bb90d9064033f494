//! `squad init`: make a folder a project on purpose.

use super::args::{ProjectArgs, project_here};
use super::documents::{self, Initialized};
use super::failures::project_error as report_error;
use super::report::waiting;
use super::{DataFormat, ExitStatus};
use crate::output::Printer;

/// Make the current directory (or --project DIR) a project: `.opencorvus/squads.jsonc`,
/// declaring no squad yet, and `.opencorvus/.gitignore` for what squad keeps there that must
/// not be committed.
///
/// Each file is written only when absent, so running it again changes nothing. Project
/// commands (`add`, `sync`, `list`, …) run in this folder or below it use this project from
/// then on, even inside another project: a nested project is made here, and only here.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:
  squad init
  squad init --project services/api
  squad init --format json", project_exit_help!()))]
pub struct InitArgs {
    #[command(flatten)]
    pub project: ProjectArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

pub fn run(args: &InitArgs, printer: &Printer) -> ExitStatus {
    let project = match project_here(&args.project, printer) {
        Ok(project) => project,
        Err(status) => return status,
    };
    let done = match crate::project::change::init(&project, &mut waiting(printer)) {
        Ok(done) => done,
        Err(error) => return report_error(printer, args.format.into(), "init", &project, error),
    };
    let declared = project.display(crate::project::declared::FILE);
    match args.format {
        DataFormat::Json => documents::print(
            printer,
            "init",
            Initialized {
                project: &project.shown,
                created: done.created,
                gitignore: done.gitignore,
                enclosing: done.enclosing.as_deref(),
            },
        ),
        DataFormat::Human => {
            if done.created {
                printer.status("Created", &declared);
            } else {
                printer.status(
                    "Unchanged",
                    &format!("{declared} exists: this folder is a project already"),
                );
            }
            if done.gitignore {
                printer.status("Created", &project.display(".opencorvus/.gitignore"));
            }
        }
    }
    if let Some(enclosing) = &done.enclosing {
        if args.format == DataFormat::Human {
            printer.warning(&format!(
                "this folder is inside the project `{}`; squad commands run here or below now use this one",
                enclosing.display()
            ));
        }
    }
    ExitStatus::Success
}
