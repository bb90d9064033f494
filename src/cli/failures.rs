//! How a command reports what stopped it: the library's errors (a project's, an install's, an
//! acquisition's, a registry's, a key's) rendered once, in the command's format, with their
//! hints, an invalid package's diagnostics and the exit status their class gives.

use super::documents::{self, ProjectStopped};
use super::report::{drift_line, print_diagnostics, project_diagnostics, refused_package};
use super::{ExitStatus, Format};
use crate::install::InstallError;
use crate::output::Printer;
use crate::project::{Failure as ProjectFailure, Project, ProjectError};
use crate::share::ShareError;

/// Reports a sharing error and returns the status to exit with.
pub fn report_share_error(printer: &Printer, format: Format, error: ShareError) -> ExitStatus {
    if let ShareError::Invalid(report) = &error {
        let shown = report.root.display().to_string();
        refused_package(
            printer,
            format,
            &shown,
            &report.diagnostics,
            &report.sources,
        );
    }
    printer.failure(&error, error.hint().as_deref());
    error.class().into()
}

/// Reports failures on stderr (with an invalid package's diagnostics) and returns the status.
pub fn report_failures(printer: &Printer, failures: &[ProjectFailure]) -> ExitStatus {
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
        let message = crate::error::labelled(&failure.name, &failure.message);
        printer.error_caused(&message, &failure.causes, failure.hint.as_deref());
        status = status.max(if failure.refused {
            ExitStatus::Failure
        } else {
            ExitStatus::Error
        });
    }
    status
}

/// Reports an error that stopped a command, in `format`, and returns the status. `command` is
/// the `type` of the document the command prints when it succeeds.
pub fn project_error(
    printer: &Printer,
    format: Format,
    command: &'static str,
    project: &Project,
    error: ProjectError,
) -> ExitStatus {
    let machine = format == Format::Json;
    let stopped = |status: &'static str| ProjectStopped {
        project: &project.shown,
        status,
        error: crate::error::chain(&error),
        failures: None,
        disagreements: None,
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
                let body = ProjectStopped {
                    failures: Some(documents::failures(failures)),
                    ..stopped("failed")
                };
                documents::print(printer, command, body);
            }
            report_failures(printer, failures);
            printer.error(&format!("{error}; nothing was changed"), None);
        }
        ProjectError::PartlyDone(failures) => {
            if machine {
                let body = ProjectStopped {
                    failures: Some(documents::failures(failures)),
                    ..stopped("failed")
                };
                documents::print(printer, command, body);
            }
            report_failures(printer, failures);
            printer.error(&error.to_string(), None);
        }
        ProjectError::Disagree {
            lines,
            diagnostics,
            sources,
        } => {
            match format {
                Format::Json => {
                    let body = ProjectStopped {
                        disagreements: Some(lines),
                        ..stopped("refused")
                    };
                    documents::print(printer, command, body);
                }
                // CI annotates each line that disagrees.
                Format::Github | Format::Sarif => {
                    project_diagnostics(printer, format, &project.shown, diagnostics, sources);
                }
                Format::Human => {}
            }
            printer.error(
                &error.to_string(),
                Some("run `squad sync` without --locked to lock what squads.jsonc declares, and commit squads.lock"),
            );
        }
        ProjectError::NotDeclared(_) => {
            if machine {
                documents::print(printer, command, stopped("refused"));
            }
            printer.error(
                &error.to_string(),
                Some("`squad sync --verbose` lists the declared squads"),
            );
        }
        ProjectError::Undeclared(_) => {
            if machine {
                documents::print(printer, command, stopped("error"));
            }
            printer.error(
                &error.to_string(),
                Some("`squad add SOURCE` declares a first squad"),
            );
        }
        ProjectError::OutsideProject(_) => {
            if machine {
                documents::print(printer, command, stopped("refused"));
            }
            printer.error(
                &format!("{error}; nothing was changed"),
                Some(crate::install::scope::OutsideProject::HINT),
            );
        }
        ProjectError::Usage(_) | ProjectError::Io(..) => {
            if machine {
                documents::print(printer, command, stopped("error"));
            }
            printer.failure(&error, None);
        }
    }
    status
}

/// Reports an install transaction's refusal or failure, in `format`; returns the status.
pub fn install_error(printer: &Printer, format: Format, error: InstallError) -> ExitStatus {
    let status = error.class().into();
    match &error {
        InstallError::Invalid(report) => {
            let shown = report.root.display().to_string();
            refused_package(
                printer,
                format,
                &shown,
                &report.diagnostics,
                &report.sources,
            );
            printer.error(
                "the package is invalid; nothing was installed",
                Some("run `squad validate` for details"),
            );
        }
        InstallError::ProjectHasId { .. } => printer.failure(
            &error,
            Some("a project may override a global package only if the global one came first; uninstall it from that project, or install globally before"),
        ),
        InstallError::Conflict { .. } => printer.failure(
            &error,
            Some("pass --expect with the installed digest (see `squad list`) to replace it"),
        ),
        InstallError::Modified { changes, .. } => {
            let mut message = error.to_string();
            for change in changes {
                message.push('\n');
                message.push_str(drift_line(change).trim_end());
            }
            printer.error(
                &message,
                Some("pass --force to remove it with these changes, or copy what you need first"),
            );
        }
        InstallError::OutsideProject(_) => printer.failure(
            &error,
            Some(crate::install::scope::OutsideProject::HINT),
        ),
        _ => printer.failure(&error, None),
    }
    status
}

/// Reports a source that could not be acquired (an invalid package's diagnostics first), in
/// `format`; returns the status.
pub fn acquire_error(
    printer: &Printer,
    format: Format,
    label: &str,
    note: &str,
    error: &crate::acquire::AcquireError,
) -> ExitStatus {
    if let Some(report) = error.report() {
        refused_package(
            printer,
            format,
            &report.root.display().to_string(),
            &report.diagnostics,
            &report.sources,
        );
    }
    printer.failure_labelled(label, error, note, error.hint().as_deref());
    error.class().into()
}

/// Reports a key, signature or password that could not be had; returns the status.
pub fn key_error(printer: &Printer, error: &crate::sign::keys::KeyError) -> ExitStatus {
    printer.failure(error, error.hint());
    error.class().into()
}

/// Reports the failed packages of a tree run on stderr (an invalid package with its
/// diagnostics), each named by its folder, and returns the worst status among them.
pub fn report_package_failures<T>(
    printer: &Printer,
    format: Format,
    outcomes: &[crate::tree::Outcome<T>],
) -> ExitStatus {
    let mut status = ExitStatus::Success;
    for outcome in outcomes {
        let Err(failure) = &outcome.result else {
            continue;
        };
        let shown = outcome.shown();
        if let Some(report) = &failure.report {
            if format == Format::Human {
                print_diagnostics(printer, &shown, &report.diagnostics, &report.sources);
            }
        }
        let message = crate::error::labelled(&shown, &failure.message);
        printer.error_caused(&message, &failure.causes, failure.hint.as_deref());
        status = status.max(failure.class.into());
    }
    status
}
