//! `squad install`, `squad uninstall` and `squad list`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::report::refused_package;
use super::validate::is_archive;
use super::{DataFormat, ExitStatus, Format};
use crate::digest::Sha256Digest;
use crate::install::activate::{ActivateError, activate};
use crate::install::scope::{Locations, Scope};
use crate::install::{
    InstallError, Operation, Options, install_archive, install_folder, list_scope, recover_scope,
    uninstall,
};
use crate::output::Printer;

/// Which scope to work in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ScopeArg {
    /// `<project>/.opencorvus/expert-squads`.
    Project,
    /// `<OPENCORVUS_HOME or the per-OS data directory>/config/expert-squads`.
    Global,
}

#[derive(Debug, clap::Args)]
pub struct ScopeArgs {
    /// The scope.
    #[arg(long, value_enum)]
    pub scope: ScopeArg,

    /// The project directory for `--scope project` [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,

    /// Give up waiting for another install of the same id after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub lock_timeout: Option<u64>,
}

/// Install a package folder or a `squad pack` archive into a project or the global scope.
///
/// The package is validated, copied into a staging directory beside the scope's packages, checked
/// again, and renamed into place; an existing installation is replaced only with `--expect`
/// equal to its digest, and identical bytes are "unchanged". Installing never activates a package.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad install my-squad --scope project
  squad install my-squad-expert-squad.zip --scope global
  squad install my-squad --scope project --expect <digest of the installed version>
  squad install oci://ghcr.io/acme/squads/acme/review:2026.12.01.1 --scope project
  squad install oci://ghcr.io/acme/squads/acme/review@sha256:<manifest digest> --scope global

From a registry, the package is resolved (a tag, a digest, or the newest version when neither
is given), checked to be a squad package, downloaded within the import limit and verified
against its descriptor, then installed with the registry's namespace, id, version and package
digest as expectations. The receipt records the reference and the manifest digest.")]
pub struct InstallArgs {
    /// A package folder, a `.zip` made by `squad pack`, or a registry reference
    /// `oci://HOST/BASE/<namespace>/<id>[:VERSION|@sha256:DIGEST]`.
    #[arg(value_name = "SOURCE")]
    pub source: PathBuf,

    #[command(flatten)]
    pub network: super::registry::NetworkArgs,

    #[command(flatten)]
    pub scope: ScopeArgs,

    /// Replace the installed package only if its digest is this one.
    #[arg(long, value_name = "DIGEST")]
    pub expect: Option<String>,

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

    /// Output format.
    /// Output format (sarif and github apply to the diagnostics of an invalid package).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Remove an installed package from a scope.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  squad uninstall my-squad --scope project")]
pub struct UninstallArgs {
    /// The package id.
    #[arg(value_name = "ID")]
    pub id: String,

    #[command(flatten)]
    pub scope: ScopeArgs,
}

/// List installed packages with their versions and digests.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad list
  squad list --scope global --format json")]
pub struct ListArgs {
    /// Only this scope [default: the project and the global scope].
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,

    /// The project directory [default: the current directory].
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

/// The scope; a project directory is made absolute (so it is registered the same from any
/// directory, GLB-4) and must exist: squad never creates a project.
pub(super) fn scope_of(
    scope: ScopeArg,
    project: Option<&Path>,
    printer: &Printer,
) -> Result<Scope, ExitStatus> {
    match scope {
        ScopeArg::Project => {
            let given = project.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            match given.canonicalize() {
                Ok(path) if path.is_dir() => Ok(Scope::Project(path)),
                Ok(path) => {
                    printer.error(
                        &format!("project directory `{}` is not a directory", path.display()),
                        None,
                    );
                    Err(ExitStatus::Error)
                }
                Err(error) => {
                    printer.error(
                        &format!(
                            "project directory `{}` cannot be used: {error}",
                            given.display()
                        ),
                        Some("pass --project with an existing directory"),
                    );
                    Err(ExitStatus::Error)
                }
            }
        }
        ScopeArg::Global => Ok(Scope::Global),
    }
}

/// OpenCorvus's data root `<R>`, or the status to exit with after saying why.
pub(super) fn opencorvus_root(printer: &Printer) -> Result<PathBuf, ExitStatus> {
    crate::env::opencorvus_root().ok_or_else(|| {
        printer.error(
            "cannot tell where OpenCorvus keeps its data",
            Some("set OPENCORVUS_HOME to an absolute directory"),
        );
        ExitStatus::Error
    })
}

fn options(
    scope: &ScopeArgs,
    expect: Option<Sha256Digest>,
    exact: crate::install::Exact,
    printer: &Printer,
) -> Result<Options, ExitStatus> {
    let root = opencorvus_root(printer)?;
    Ok(Options {
        scope: scope_of(scope.scope, scope.project.as_deref(), printer)?,
        opencorvus_root: root,
        expect,
        lock_timeout: scope.lock_timeout.map(Duration::from_secs),
        exact,
        origin: None,
    })
}

pub(super) fn waiting(printer: &Printer) -> impl FnMut(&Path) + '_ {
    move |lock: &Path| {
        printer.status(
            "Blocking",
            &format!("waiting for the install lock `{}`", lock.display()),
        )
    }
}

fn report_error(printer: &Printer, format: Format, error: InstallError) -> ExitStatus {
    match error {
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
            ExitStatus::Failure
        }
        InstallError::ProjectHasId { .. } => {
            printer.error(
                &error.to_string(),
                Some("a project may override a global package only if the global one came first; uninstall it from that project, or install globally before"),
            );
            ExitStatus::Failure
        }
        InstallError::Conflict { .. } => {
            printer.error(
                &error.to_string(),
                Some("pass --expect with the installed digest (see `squad list`) to replace it"),
            );
            ExitStatus::Failure
        }
        error @ (InstallError::Mismatch { .. }
        | InstallError::Archive(_)
        | InstallError::BuiltinId(_)
        | InstallError::Duplicate { .. }
        | InstallError::CaseCollision { .. }
        | InstallError::InvalidExisting { .. }
        | InstallError::MalformedScope { .. }
        | InstallError::NotInstalled(_)) => {
            printer.error(&error.to_string(), None);
            ExitStatus::Failure
        }
        error => {
            printer.error(&error.to_string(), None);
            ExitStatus::Error
        }
    }
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

pub fn run_install(args: &InstallArgs, printer: &Printer) -> ExitStatus {
    // One after the other: a bad --expect is the only error reported.
    let expect = match digest_flag("--expect", args.expect.as_deref(), printer) {
        Ok(expect) => expect,
        Err(status) => return status,
    };
    let expect_digest = match digest_flag("--expect-digest", args.expect_digest.as_deref(), printer)
    {
        Ok(digest) => digest,
        Err(status) => return status,
    };
    let exact = crate::install::Exact {
        namespace: args.expect_namespace.clone(),
        id: args.expect_id.clone(),
        version: args.expect_version.clone(),
        digest: expect_digest,
    };
    let mut options = match options(&args.scope, expect, exact, printer) {
        Ok(options) => options,
        Err(status) => return status,
    };
    let mut wait = waiting(printer);
    let result = match args.source.to_str() {
        Some(reference) if crate::oci::reference::is_reference(reference) => {
            match install_from_registry(reference, args, &mut options, printer, &mut wait) {
                Ok(result) => result,
                Err(status) => return status,
            }
        }
        _ if is_archive(&args.source) => install_archive(&args.source, &options, &mut wait),
        _ => install_folder(&args.source, &options, &mut wait),
    };
    let receipt = match result {
        Ok(receipt) => receipt,
        Err(error) => return report_error(printer, args.format, error),
    };
    for warning in &receipt.warnings {
        if !printer.quiet {
            printer.human(&format!("warning: {warning}\n"));
        }
    }
    match args.format {
        Format::Json => {
            let document = serde_json::json!({
                "schema_version": crate::diag::json::SCHEMA_VERSION,
                "type": "install",
                "operation": receipt.operation,
                "namespace": receipt.identity.namespace,
                "id": receipt.identity.id,
                "version": receipt.identity.version,
                "before": receipt.before.map(|digest| digest.hex()),
                "after": receipt.after.hex(),
                "target": receipt.target,
                "source": options.origin.as_ref().map(|origin| &origin.reference),
                "manifest_digest": options.origin.as_ref().map(|origin| &origin.manifest_digest),
                "warnings": receipt.warnings,
            });
            printer.data(&(serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"));
        }
        Format::Human | Format::Sarif | Format::Github => {
            let verb = match receipt.operation {
                Operation::Installed => "Installed",
                Operation::Unchanged => "Unchanged",
                Operation::Replaced => "Replaced",
            };
            printer.status(
                verb,
                &format!(
                    "{}/{} {} at {}",
                    receipt.identity.namespace,
                    receipt.identity.id,
                    receipt.identity.version,
                    receipt.target.display()
                ),
            );
            printer.data(&format!("{}\n", receipt.after));
        }
    }
    ExitStatus::Success
}

/// Downloads a registry reference's archive into the scope's temporary directory and installs
/// it with the registry config's identity and package digest as expectations (ZIP-8), which
/// must agree with any `--expect-*` flag. `Err` is the status to exit with, already reported.
fn install_from_registry(
    reference: &str,
    args: &InstallArgs,
    options: &mut Options,
    printer: &Printer,
    wait: &mut dyn FnMut(&Path),
) -> Result<Result<crate::install::Receipt, InstallError>, ExitStatus> {
    let (_, resolved, bytes) = super::registry::fetch(reference, &args.network, printer)
        .map_err(|error| super::registry::report_share_error(printer, args.format, error))?;
    let config = &resolved.config;
    let given = &options.exact;
    let package_digest = Sha256Digest::parse(&config.package_digest);
    for (flag, wanted, published) in [
        (
            "--expect-namespace",
            given.namespace.clone(),
            config.namespace.clone(),
        ),
        ("--expect-id", given.id.clone(), config.id.clone()),
        (
            "--expect-version",
            given.version.clone(),
            config.version.clone(),
        ),
        (
            "--expect-digest",
            given.digest.map(|digest| digest.hex()),
            config.package_digest.clone(),
        ),
    ] {
        if wanted.as_ref().is_some_and(|wanted| *wanted != published) {
            printer.error(
                &format!(
                    "{} is {published}, not the {flag} given; nothing was installed",
                    resolved.pinned
                ),
                None,
            );
            return Err(ExitStatus::Failure);
        }
    }
    options.exact = crate::install::Exact {
        namespace: Some(config.namespace.clone()),
        id: Some(config.id.clone()),
        version: Some(config.version.clone()),
        digest: package_digest,
    };
    options.origin = Some(crate::install::receipts::Origin {
        reference: resolved.pinned.to_string(),
        manifest_digest: resolved.manifest_digest.clone(),
    });
    let temporary = Locations::new(&options.scope, &options.opencorvus_root).temporary;
    let written = std::fs::create_dir_all(&temporary)
        .and_then(|()| crate::fs::create_beside(&temporary.join("squad-download.zip")))
        .and_then(|(path, mut file)| {
            use std::io::Write;
            let result = file.write_all(&bytes).and_then(|()| file.sync_all());
            match result {
                Ok(()) => Ok(path),
                Err(error) => {
                    let _ = std::fs::remove_file(&path);
                    Err(error)
                }
            }
        });
    let archive = match written {
        Ok(path) => path,
        Err(error) => {
            printer.error(
                &format!(
                    "cannot write the download to `{}`: {error}",
                    temporary.display()
                ),
                None,
            );
            return Err(ExitStatus::Error);
        }
    };
    let result = install_archive(&archive, options, wait);
    let _ = std::fs::remove_file(&archive);
    Ok(result)
}

pub fn run_uninstall(args: &UninstallArgs, printer: &Printer) -> ExitStatus {
    let options = match options(&args.scope, None, crate::install::Exact::default(), printer) {
        Ok(options) => options,
        Err(status) => return status,
    };
    match uninstall(&args.id, &options, &mut waiting(printer)) {
        Ok(done) => {
            printer.status(
                "Removed",
                &format!(
                    "{}/{} from {}",
                    done.package.namespace,
                    done.package.id,
                    done.package.root.display()
                ),
            );
            for config in &done.reset {
                printer.status(
                    "Reset",
                    &format!(
                        "prompt_profile.active of {} from `{}` to `base`",
                        config.display(),
                        args.id
                    ),
                );
            }
            for warning in &done.warnings {
                printer.human(&format!("warning: {warning}\n"));
            }
            ExitStatus::Success
        }
        Err(error) => report_error(printer, Format::Human, error),
    }
}

pub fn run_list(args: &ListArgs, printer: &Printer) -> ExitStatus {
    let root = match opencorvus_root(printer) {
        Ok(root) => root,
        Err(status) => return status,
    };
    let project = || scope_of(ScopeArg::Project, args.project.as_deref(), printer);
    let scopes: Vec<(&str, Scope)> = match args.scope {
        Some(ScopeArg::Project) => match project() {
            Ok(scope) => vec![("project", scope)],
            Err(status) => return status,
        },
        Some(ScopeArg::Global) => vec![("global", Scope::Global)],
        None => match project() {
            Ok(scope) => vec![("project", scope), ("global", Scope::Global)],
            Err(status) => return status,
        },
    };
    let mut rows = Vec::new();
    for (name, scope) in &scopes {
        let locations = Locations::new(scope, &root);
        for problem in recover_scope(&locations, Some(Duration::from_secs(args.lock_timeout))) {
            printer.human(&format!(
                "warning: interrupted replacement not recovered: {problem}\n"
            ));
        }
        for installed in list_scope(&locations) {
            rows.push((*name, installed));
        }
    }
    match args.format {
        DataFormat::Json => {
            let packages: Vec<serde_json::Value> = rows
                .iter()
                .map(|(scope, installed)| {
                    let mut value = serde_json::to_value(installed).unwrap_or_default();
                    value["scope"] = serde_json::json!(scope);
                    value
                })
                .collect();
            let document = serde_json::json!({ "schema_version": crate::diag::json::SCHEMA_VERSION, "type": "list", "packages": packages });
            printer.data(&(serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"));
        }
        DataFormat::Human => {
            let mut text = String::new();
            for (scope, installed) in &rows {
                text.push_str(&format!(
                    "{scope:<8} {}/{} {} {}\n",
                    installed.namespace,
                    installed.id,
                    installed.version.as_deref().unwrap_or("-"),
                    installed
                        .package_digest
                        .as_deref()
                        .unwrap_or("(unreadable)")
                ));
            }
            printer.data(&text);
            for (_, installed) in &rows {
                if let Some(problem) = &installed.problem {
                    printer.human(&format!(
                        "warning: {}: {problem}\n",
                        installed.root.display()
                    ));
                }
            }
        }
    }
    ExitStatus::Success
}

/// Select the package a project's Orchestrator uses.
///
/// Writes `prompt_profile.active` in `<project>/.opencorvus/opencorvus.jsonc`, keeping every other
/// byte of it. Installing never does this.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  squad activate my-squad")]
pub struct ActivateArgs {
    /// The package id (installed in the project or globally, or a built-in id).
    #[arg(value_name = "ID")]
    pub id: String,

    /// The project directory [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

pub fn run_activate(args: &ActivateArgs, printer: &Printer) -> ExitStatus {
    let root = match opencorvus_root(printer) {
        Ok(root) => root,
        Err(status) => return status,
    };
    let Ok(Scope::Project(project)) = scope_of(ScopeArg::Project, args.project.as_deref(), printer)
    else {
        return ExitStatus::Error;
    };
    match activate(&args.id, &project, &root) {
        Ok(config) => {
            printer.status("Activated", &format!("{} in {}", args.id, config.display()));
            ExitStatus::Success
        }
        Err(error) => {
            let (help, status) = match &error {
                ActivateError::InvalidId(_) | ActivateError::Io(..) => (None, ExitStatus::Error),
                ActivateError::NotInstalled(_) => (
                    Some("install it first with `squad install`"),
                    ExitStatus::Failure,
                ),
                ActivateError::Config { .. } => (None, ExitStatus::Failure),
            };
            printer.error(&error.to_string(), help);
            status
        }
    }
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
        text.push_str(&format!("{}{note}\n", project.display()));
    }
    printer.data(&text);
    ExitStatus::Success
}
