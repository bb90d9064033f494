//! `squad list` and `squad projects`: what is installed where, and the projects squad knows.

use std::path::PathBuf;
use std::time::Duration;

use super::args::{ScopeArg, opencorvus_root, scope_of};
use super::documents::{self, ListedPackage, Listing};
use super::report::{files_changed, verify_command};
use super::{DataFormat, ExitStatus};
use crate::install::scope::Scope;
use crate::output::Printer;

/// List installed packages with their versions and digests.
///
/// The package the project selects (`squad activate`) is marked `(active)`; one whose files
/// changed since it was installed is marked `(modified)` (`squad verify NAME` names the files);
/// one installed in the project that its squads.jsonc does not declare is marked
/// `(undeclared)`: the next `squad sync` removes it.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad list
  squad list --project ../app
  squad list --scope global --format json")]
pub struct ListArgs {
    /// Only this scope [default: the project and the global scope].
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,

    /// The project directory [default: the nearest folder at or above the current directory
    /// with `.opencorvus/squads.jsonc`, else the current directory].
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,

    /// How long to wait for an install holding an id whose crash leftovers need recovering;
    /// after that the listing goes on and says what it could not recover.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub lock_timeout: u64,

    /// Output format.
    #[arg(long, value_enum, default_value_t = DataFormat::Human)]
    pub format: DataFormat,
}

pub fn run_list(args: &ListArgs, printer: &Printer) -> ExitStatus {
    let root = match opencorvus_root(printer) {
        Ok(root) => root,
        Err(status) => return status,
    };
    let project = || match scope_of(ScopeArg::Project, args.project.as_deref(), printer) {
        Ok(Scope::Project(project)) => Ok(project),
        Ok(Scope::Global) => unreachable!("a project scope"),
        Err(status) => Err(status),
    };
    // The global scope alone reads a project's selection only when one is named.
    let selected = match (args.scope, &args.project) {
        (Some(ScopeArg::Global), None) => Ok(None),
        _ => project().map(Some),
    };
    let project = match selected {
        Ok(project) => project,
        Err(status) => return status,
    };
    let scopes: Vec<Scope> = match (args.scope, &project) {
        (Some(ScopeArg::Global), _) | (None, None) => vec![Scope::Global],
        (Some(ScopeArg::Project), Some(project)) => vec![Scope::Project(project.clone())],
        (None, Some(project)) => vec![Scope::Project(project.clone()), Scope::Global],
        (Some(ScopeArg::Project), None) => unreachable!("a project was resolved"),
    };
    let crate::project::ProjectListing {
        listing,
        undeclared,
    } = crate::project::list(
        &scopes,
        project.as_deref(),
        &root,
        Some(Duration::from_secs(args.lock_timeout)),
    );
    let is_undeclared = |listed: &crate::install::Listed| {
        matches!(listed.scope, Scope::Project(_))
            && undeclared.contains(&format!(
                "{}/{}",
                listed.package.installed.namespace, listed.package.installed.id
            ))
    };
    for warning in &listing.warnings {
        printer.warning(warning);
    }
    match args.format {
        DataFormat::Json => {
            let document = Listing {
                project: listing.project.as_deref(),
                active: listing.active.as_deref(),
                packages: listing
                    .packages
                    .iter()
                    .map(|listed| {
                        let installed = &listed.package.installed;
                        ListedPackage {
                            scope: listed.scope.name(),
                            namespace: &installed.namespace,
                            id: &installed.id,
                            version: installed.version.as_deref(),
                            package_digest: installed.package_digest.as_deref(),
                            root: &installed.root,
                            problem: installed.problem.as_deref(),
                            active: listed.active,
                            modified: listed.package.modified(),
                            changes: listed.package.changes().unwrap_or_default(),
                            origin: crate::install::receipts::origin(&root, &installed.root),
                            undeclared: is_undeclared(listed),
                        }
                    })
                    .collect(),
            };
            documents::print(printer, "list", document);
        }
        DataFormat::Human => {
            let mut text = String::new();
            for listed in &listing.packages {
                let installed = &listed.package.installed;
                let marks: Vec<&str> = [
                    listed.active.then_some("active"),
                    (listed.package.modified() == Some(true)).then_some("modified"),
                    is_undeclared(listed).then_some("undeclared"),
                ]
                .into_iter()
                .flatten()
                .collect();
                // Folder names and versions are whoever committed the scope's: neutralised here,
                // kept exact in the JSON.
                text.push_str(&format!(
                    "{:<8} {} {} {}{}\n",
                    listed.scope.name(),
                    installed.name(),
                    crate::text::shown(installed.version.as_deref().unwrap_or("-")),
                    installed
                        .package_digest
                        .as_deref()
                        .unwrap_or("(unreadable)"),
                    if marks.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", marks.join(", "))
                    }
                ));
            }
            printer.data(&text);
            if listing.packages.is_empty() && !printer.quiet {
                let places: Vec<String> = scopes.iter().map(Scope::to_string).collect();
                printer.human(&format!(
                    "no packages installed in {}\n",
                    places.join(" or in ")
                ));
            }
            for listed in &listing.packages {
                let installed = &listed.package.installed;
                if let Some(problem) = &installed.problem {
                    printer.warning(&format!(
                        "{}: {problem}",
                        crate::text::shown_path(&installed.root)
                    ));
                }
                if is_undeclared(listed) && !printer.quiet {
                    printer.human(&format!(
                        "note: {} is installed in the project but squads.jsonc does not declare it; `squad sync` removes it (`--keep-undeclared` keeps it)\n",
                        installed.name()
                    ));
                }
                let changes = listed.package.changes().unwrap_or_default();
                if listed.package.modified() == Some(true) && !printer.quiet {
                    let command = verify_command(
                        &installed.name(),
                        listed.scope.name(),
                        args.project.as_deref(),
                    );
                    printer.human(&format!(
                        "note: {} ({}) has {} since it was installed; `{command}` names them\n",
                        installed.name(),
                        listed.scope.name(),
                        files_changed(changes.len()),
                    ));
                }
            }
        }
    }
    ExitStatus::Success
}

/// List the project directories squad has worked in; global installs check their ids.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad projects                     every registered project, `(missing)` when it is gone")]
pub struct ProjectsArgs {}

pub fn run_projects(_args: &ProjectsArgs, printer: &Printer) -> ExitStatus {
    let root = match opencorvus_root(printer) {
        Ok(root) => root,
        Err(status) => return status,
    };
    let mut text = String::new();
    for project in crate::install::projects::registered(&root) {
        let note = if project.is_dir() { "" } else { "  (missing)" };
        text.push_str(&format!("{}{note}\n", crate::text::shown_path(&project)));
    }
    printer.data(&text);
    ExitStatus::Success
}
