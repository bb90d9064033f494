//! `squad activate`: the package a project's Orchestrator uses.

use super::ExitStatus;
use super::args::{LookupArgs, opencorvus_root, package_name};
use crate::install::activate::{ActivateError, activate};
use crate::output::Printer;

/// Select the package a project's Orchestrator uses.
///
/// Writes `prompt_profile.active` in `<project>/.opencorvus/opencorvus.jsonc`, keeping every other
/// byte of it. Installing never does this. The package is looked for in the project, then in
/// the global scope, as OpenCorvus does; the config records its id.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad activate acme/my-squad
  squad activate my-squad --project ../app
  squad activate acme/my-squad --scope global    only a global install will do
  squad activate base                            back to the built-in squad")]
pub struct ActivateArgs {
    /// The package: `namespace/id` as `squad list` prints it, its id, or a built-in id.
    #[arg(value_name = "NAME")]
    pub name: String,

    #[command(flatten)]
    pub lookup: LookupArgs,
}

pub fn run_activate(args: &ActivateArgs, printer: &Printer) -> ExitStatus {
    let root = match opencorvus_root(printer) {
        Ok(root) => root,
        Err(status) => return status,
    };
    let name = match package_name(&args.name, printer) {
        Ok(name) => name,
        Err(status) => return status,
    };
    let (project, scopes) = match args.lookup.scopes(printer) {
        Ok(found) => found,
        Err(status) => return status,
    };
    let only = args.lookup.scope.map(|_| &scopes[0]);
    match activate(&name, &project, only, &root) {
        Ok(activated) => {
            let what = match &activated.package {
                Some((scope, installed)) => format!("{} ({})", installed.label(), scope.name()),
                None => format!("{} (built in)", name.id),
            };
            printer.status(
                "Activated",
                &format!("{what} in {}", activated.config.display()),
            );
            for warning in &activated.warnings {
                printer.warning(warning);
            }
            ExitStatus::Success
        }
        Err(error) => {
            let help = match &error {
                ActivateError::NotInstalled {
                    close: Some(close), ..
                } => Some(format!("did you mean `{close}`?")),
                ActivateError::NotInstalled { .. } => {
                    Some("install it first with `squad install`".to_owned())
                }
                _ => None,
            };
            printer.failure(&error, help.as_deref());
            error.class().into()
        }
    }
}
