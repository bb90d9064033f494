//! `squad new`: start a correct package in one command.

use std::path::PathBuf;

use super::ExitStatus;
use super::report::print_diagnostics;
use crate::new_package::{DESCRIPTIONS, NewError, NewOptions, create};
use crate::output::Printer;
use crate::version::Version;

/// Create a package from a template: manifest, prompts, README, selector, and more.
///
/// The id defaults to DIR's name and the version to today's UTC date, revision 1. The result is
/// validated before it appears; DIR must not exist (not even as an empty directory), and on any
/// failure nothing is left behind.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad new --list-templates
  squad new my-squad --namespace acme
  squad new squads/review --namespace acme --id code-review --template delivery --label \"Code Review\"")]
pub struct NewArgs {
    /// The directory to create.
    #[arg(value_name = "DIR", required_unless_present = "list_templates")]
    pub dir: Option<PathBuf>,

    /// The package namespace (lower-kebab-case).
    #[arg(long, required_unless_present = "list_templates")]
    pub namespace: Option<String>,

    /// The package id (lower-kebab-case) [default: DIR's name].
    #[arg(long)]
    pub id: Option<String>,

    /// The template to start from (see --list-templates).
    #[arg(long, default_value = "minimal")]
    pub template: String,

    /// The display label [default: the template's].
    #[arg(long)]
    pub label: Option<String>,

    /// The version, YYYY.MM.DD.N [default: today (UTC) .1].
    #[arg(long)]
    pub version: Option<String>,

    /// List the templates, one per line: name, then what it holds.
    #[arg(long, exclusive = true)]
    pub list_templates: bool,
}

pub fn run(args: &NewArgs, printer: &Printer) -> ExitStatus {
    if args.list_templates {
        let mut text = String::new();
        for (name, description) in DESCRIPTIONS {
            text.push_str(&format!("{name:<18}{description}\n"));
        }
        printer.data(&text);
        return ExitStatus::Success;
    }
    let (Some(dir), Some(namespace)) = (&args.dir, &args.namespace) else {
        printer.error(
            "DIR and --namespace are required",
            Some("see `squad new --help`"),
        );
        return ExitStatus::Error;
    };
    let id = match &args.id {
        Some(id) => id.clone(),
        None => match dir.file_name() {
            Some(name) => name.to_string_lossy().into_owned(),
            None => {
                printer.error(
                    &format!("cannot take an id from `{}`", dir.display()),
                    Some("pass --id"),
                );
                return ExitStatus::Error;
            }
        },
    };
    let version = args.version.clone().unwrap_or_else(|| {
        let today = crate::env::today_utc();
        Version {
            year: today.year,
            month: today.month,
            day: today.day,
            revision: "1".to_owned(),
        }
        .to_string()
    });
    let options = NewOptions {
        template: args.template.clone(),
        namespace: namespace.clone(),
        id,
        label: args.label.clone(),
        version,
    };
    match create(dir, &options) {
        Ok(_) => {
            printer.status(
                "Created",
                &format!(
                    "{}/{} {} from template `{}` in {}",
                    options.namespace,
                    options.id,
                    options.version,
                    options.template,
                    dir.display()
                ),
            );
            ExitStatus::Success
        }
        Err(NewError::Invalid(report)) => {
            print_diagnostics(
                printer,
                &dir.display().to_string(),
                &report.diagnostics,
                &report.sources,
            );
            printer.error(
                "the scaffolded package is not valid; nothing was created",
                None,
            );
            ExitStatus::Failure
        }
        Err(error) => {
            let hint = match &error {
                NewError::UnknownTemplate(_) => Some("`squad new --list-templates` lists them"),
                NewError::Exists(_) => Some("choose a directory that does not exist yet"),
                _ => None,
            };
            printer.failure(&error, hint);
            error.class().into()
        }
    }
}
