//! `squad uninstall`: a package removed from a scope, unless it was changed since it was
//! installed.

use super::args::{ScopeArgs, install_options, package_name};
use super::failures::install_error;
use super::report::waiting;
use super::{ExitStatus, Format};
use crate::install::{Removal, uninstall};
use crate::output::Printer;

/// Remove an installed package from a scope.
///
/// A package whose files were changed since it was installed (see `squad verify`) is kept,
/// and the changed files are listed: those changes exist nowhere else. `--force` removes it
/// anyway. A project that selected the package selects `base` again. `--scope` is required:
/// the same id may be installed in the project and globally, and a deletion never guesses
/// which (`squad list` shows both).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad uninstall acme/my-squad --scope project
  squad uninstall my-squad --scope global
  squad uninstall my-squad --scope project --force    even with local changes")]
pub struct UninstallArgs {
    /// The package: `namespace/id` as `squad list` prints it, or its id.
    #[arg(value_name = "NAME")]
    pub name: String,

    #[command(flatten)]
    pub scope: ScopeArgs,

    /// Remove it even if its files changed since it was installed (the changes are lost).
    #[arg(long)]
    pub force: bool,
}

pub fn run_uninstall(args: &UninstallArgs, printer: &Printer) -> ExitStatus {
    let name = match package_name(&args.name, printer) {
        Ok(name) => name,
        Err(status) => return status,
    };
    let options = match install_options(&args.scope, None, printer) {
        Ok(options) => options,
        Err(status) => return status,
    };
    let removal = Removal { force: args.force };
    match uninstall(&name, &options, &removal, &mut waiting(printer)) {
        Ok(done) => {
            printer.status(
                "Removed",
                &format!(
                    "{} from {}",
                    done.package.label(),
                    done.package.root.display()
                ),
            );
            if !done.discarded.is_empty() && !printer.quiet {
                let files: Vec<String> = done
                    .discarded
                    .iter()
                    .map(|change| crate::text::shown(&change.path))
                    .collect();
                printer.warning(&format!(
                    "discarded the changes made since the install to {}",
                    files.join(", ")
                ));
            }
            for config in &done.reset {
                printer.status(
                    "Reset",
                    &format!(
                        "prompt_profile.active of {} from `{}` to `base`",
                        config.display(),
                        done.package.id
                    ),
                );
            }
            for warning in &done.warnings {
                printer.warning(warning);
            }
            ExitStatus::Success
        }
        Err(error) => install_error(printer, Format::Human, error),
    }
}
