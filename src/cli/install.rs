//! `squad install`: any source into a project or the global scope.

use super::args::{NetworkArgs, ScopeArg, ScopeArgs, install_options};
use super::documents;
use super::failures::{acquire_error, install_error};
use super::report::{Progress, drift_line, files_changed, shell_word, verify_command, waiting};
use super::{ExitStatus, Format};
use crate::acquire::{AcquireError, Installed};
use crate::digest::Sha256Digest;
use crate::install::{InstallError, Operation, Options};
use crate::output::Printer;
use crate::project::direct::{Direct, DirectError};

/// Install a squad from any source into a project or the global scope.
///
/// The package is validated, copied into a staging directory beside the scope's packages, checked
/// again, and renamed into place; an existing installation is replaced only with `--expect`
/// equal to its digest, or with `--replace`, and identical bytes are "unchanged". Installing
/// never activates a package.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad install my-squad --scope project
  squad install my-squad-2026.12.01.1-expert-squad.zip --scope global
  squad install my-squad --scope project --replace
  squad install my-squad --scope project --expect <digest of the installed version>
  squad install oci://ghcr.io/acme/squads/acme/review:2026.12.01.1 --scope project
  squad install oci://ghcr.io/acme/squads/acme/review@sha256:<manifest digest> --scope global

From a registry, the package is resolved (a tag, a digest, or the newest version when neither
is given), checked to be a squad package, downloaded within the import limit and verified
against its descriptor, then installed with the registry's namespace, id, version and package
digest as expectations. The receipt records the reference and the manifest digest.")]
pub struct InstallArgs {
    /// A package folder, a `.zip` made by `squad pack`, a registry reference
    /// `oci://HOST/BASE/<namespace>/<id>[:VERSION|@sha256:DIGEST]`, an `https://` archive (with
    /// --sha256), or an `opencorvus://expert-squad/install?…` link: every source `squad add`
    /// takes, with the same rules.
    #[arg(value_name = "SOURCE")]
    pub source: String,

    /// The SHA-256 of an `https://` archive (64 lowercase hex): its bytes are refused unless
    /// they hash to it.
    #[arg(long, value_name = "HEX")]
    pub sha256: Option<String>,

    #[command(flatten)]
    pub network: NetworkArgs,

    #[command(flatten)]
    pub scope: ScopeArgs,

    /// Replace the installed package only if its digest is this one.
    #[arg(long, value_name = "DIGEST")]
    pub expect: Option<String>,

    /// Replace whatever version of the package is installed (its digest, read under the
    /// install lock, is the expectation); installs it when none is.
    #[arg(long, conflicts_with = "expect")]
    pub replace: bool,

    /// Refuse unless the source's namespace is this one.
    #[arg(long, value_name = "NAMESPACE")]
    pub expect_namespace: Option<String>,

    /// Refuse unless the source's id is this one.
    #[arg(long, value_name = "ID")]
    pub expect_id: Option<String>,

    /// Refuse unless the source's version is this one.
    #[arg(long, value_name = "VERSION")]
    pub expect_version: Option<String>,

    /// Refuse unless the source's package digest is this one (before anything is written).
    #[arg(long, value_name = "DIGEST")]
    pub expect_digest: Option<String>,

    /// Output format (sarif and github apply to the diagnostics of an invalid package).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// The package digest a `flag` was given, if any, or the status to exit with after saying why.
fn digest_flag(
    flag: &str,
    value: Option<&str>,
    printer: &Printer,
) -> Result<Option<Sha256Digest>, ExitStatus> {
    value
        .map(|value| {
            Sha256Digest::parse(value).ok_or_else(|| {
                printer.error(
                    &format!("{flag} takes a package digest: 64 lowercase hex characters"),
                    None,
                );
                ExitStatus::Error
            })
        })
        .transpose()
}

/// CAS-1…CAS-4 refused the install: says what is installed and the exact command that
/// replaces it.
fn report_conflict(args: &InstallArgs, printer: &Printer, error: &InstallError) -> ExitStatus {
    let InstallError::Conflict {
        package: installed,
        scope,
        expected,
        actual,
        restores,
    } = error
    else {
        return install_error(
            printer,
            args.format,
            InstallError::Recovery(crate::error::chain(error)),
        );
    };
    let place = if *scope == "global" {
        "globally"
    } else {
        "in this project"
    };
    match (actual, expected) {
        (Some(actual), None) if restores.is_some() => {
            let name = installed.split(' ').next().unwrap_or(installed);
            printer.error(
                &format!(
                    "{installed} is installed {place} with {} since it was installed; to restore it: `{}`",
                    crate::install::files_changed(*restores),
                    install_command(args, Some(actual))
                ),
                Some(&format!(
                    "`{}` names the changed files; `--replace` restores whatever is installed, in one step",
                    verify_command(name, scope, args.scope.project.as_deref())
                )),
            );
        }
        (Some(actual), None) => {
            printer.error(
                &format!(
                    "{installed} is installed {place}; to replace it: `{}`",
                    install_command(args, Some(actual))
                ),
                Some("`--replace` replaces whatever version is installed, in one step"),
            );
        }
        (Some(actual), Some(_)) => printer.error(
            &error.to_string(),
            Some(&format!(
                "it changed since its digest was read; to replace what is installed now: `{}`",
                install_command(args, Some(actual))
            )),
        ),
        (None, _) => printer.error(
            &error.to_string(),
            Some(&format!("to install it: `{}`", install_command(args, None))),
        ),
    }
    error.class().into()
}

/// The `squad install` command line for this source and scope, with `--expect` when given.
fn install_command(args: &InstallArgs, expect: Option<&Sha256Digest>) -> String {
    let mut words = vec![
        "squad".to_owned(),
        "install".to_owned(),
        shell_word(&args.source),
        "--scope".to_owned(),
        match args.scope.scope {
            ScopeArg::Project => "project",
            ScopeArg::Global => "global",
        }
        .to_owned(),
    ];
    if let Some(project) = &args.scope.project {
        words.push("--project".to_owned());
        words.push(shell_word(&project.to_string_lossy()));
    }
    if let Some(expect) = expect {
        words.push("--expect".to_owned());
        words.push(expect.hex());
    }
    words.join(" ")
}

pub fn run_install(args: &InstallArgs, printer: &Printer) -> ExitStatus {
    let mut exact = crate::install::Exact {
        namespace: args.expect_namespace.clone(),
        id: args.expect_id.clone(),
        version: args.expect_version.clone(),
        digest: None,
    };
    // One after the other: a bad flag is the only error reported.
    let mut digests = [None, None, None];
    for (slot, (flag, value)) in digests.iter_mut().zip([
        ("--expect", &args.expect),
        ("--expect-digest", &args.expect_digest),
        ("--sha256", &args.sha256),
    ]) {
        match digest_flag(flag, value.as_deref(), printer) {
            Ok(digest) => *slot = digest,
            Err(status) => return status,
        }
    }
    let [expect, expect_digest, sha256] = digests;
    exact.digest = expect_digest;
    let mut options = match install_options(&args.scope, expect, printer) {
        Ok(options) => options,
        Err(status) => return status,
    };
    options.replace = args.replace;
    let client = args.network.client();
    let cache = crate::cache::Cache::from_env();
    let progress = Progress(crate::output::TransferBar::new(printer));
    let direct = Direct {
        source: &args.source,
        sha256,
        exact,
        options: &options,
        cache: cache.as_ref(),
        client: &client,
        transfers: &progress,
    };
    let installed = match crate::project::direct::install(&direct, &mut waiting(printer)) {
        Ok(installed) => installed,
        Err(DirectError::Acquire(AcquireError::Install(error @ InstallError::Conflict { .. }))) => {
            return report_conflict(args, printer, &error);
        }
        Err(DirectError::Acquire(AcquireError::Install(error))) => {
            return install_error(printer, args.format, error);
        }
        Err(DirectError::Acquire(error)) => {
            return acquire_error(
                printer,
                args.format,
                &args.source,
                "nothing was installed",
                &error,
            );
        }
        Err(error) => {
            let hint = matches!(error, DirectError::Policy(_))
                .then_some("`squad sync` shows what is wrong with the project's files");
            printer.failure(&error, hint);
            return error.class().into();
        }
    };
    print_installed(args.format, &options, installed, printer);
    ExitStatus::Success
}

/// What an install did, in `format`.
fn print_installed(format: Format, options: &Options, installed: Installed, printer: &Printer) {
    let receipt = installed.receipt;
    let origin = installed.origin;
    for warning in &receipt.warnings {
        if !printer.quiet {
            printer.warning(warning);
        }
    }
    let identity = &receipt.identity;
    match format {
        Format::Json => {
            let document = documents::Installed {
                operation: receipt.operation,
                scope: options.scope.name(),
                namespace: &identity.namespace,
                id: &identity.id,
                version: &identity.version,
                before_version: receipt.before_version.as_deref(),
                before: receipt.before.map(|digest| digest.hex()),
                after: receipt.after.hex(),
                target: &receipt.target,
                source: origin.as_ref().map(|origin| origin.reference.as_str()),
                manifest_digest: origin
                    .as_ref()
                    .map(|origin| origin.manifest_digest.as_str()),
                restored: receipt.restored.as_deref(),
                warnings: &receipt.warnings,
            };
            documents::print(printer, "install", document);
        }
        Format::Human | Format::Sarif | Format::Github => {
            let name = format!("{}/{}", identity.namespace, identity.id);
            let (version, target) = (&identity.version, receipt.target.display());
            let (verb, message) = match (receipt.operation, &receipt.restored) {
                (Operation::Installed, _) => ("Installed", format!("{name} {version} at {target}")),
                (Operation::Unchanged, _) => ("Unchanged", format!("{name} {version} at {target}")),
                (Operation::Replaced, Some(restored)) => (
                    "Restored",
                    format!(
                        "{name} {version} at {target} ({} since it was installed)",
                        files_changed(restored.len())
                    ),
                ),
                (Operation::Replaced, None) => (
                    "Replaced",
                    format!(
                        "{name} {} -> {version} at {target}",
                        receipt.before_version.as_deref().unwrap_or("(no version)")
                    ),
                ),
            };
            printer.status(verb, &message);
            for change in receipt.restored.iter().flatten() {
                printer.detail(drift_line(change).trim());
            }
            printer.data(&format!("{}\n", receipt.after));
        }
    }
}
