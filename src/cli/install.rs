//! `squad install`, `squad uninstall`, `squad list` and `squad activate`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::report::refused_package;
use super::verify::drift_line;
use super::{DataFormat, ExitStatus, Format};
use crate::digest::Sha256Digest;
use crate::install::activate::{ActivateError, activate};
use crate::install::scope::Scope;
use crate::install::{InstallError, Operation, Options, PackageName, Removal, list, uninstall};
use crate::output::Printer;
use crate::verify::Drift;

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

/// Where to look for an installed package named on the command line.
#[derive(Debug, clap::Args)]
pub struct LookupArgs {
    /// Look only in this scope [default: the project, then the global scope, as OpenCorvus
    /// does].
    #[arg(long, value_enum)]
    pub scope: Option<ScopeArg>,

    /// The project directory [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

impl LookupArgs {
    /// The project, and the scopes to look in, in order.
    pub(super) fn scopes(&self, printer: &Printer) -> Result<(PathBuf, Vec<Scope>), ExitStatus> {
        let Scope::Project(project) =
            scope_of(ScopeArg::Project, self.project.as_deref(), printer)?
        else {
            unreachable!("a project scope")
        };
        let scopes = match self.scope {
            Some(ScopeArg::Project) => vec![Scope::Project(project.clone())],
            Some(ScopeArg::Global) => vec![Scope::Global],
            None => vec![Scope::Project(project.clone()), Scope::Global],
        };
        Ok((project, scopes))
    }
}

/// The package name argument, or the status to exit with after saying why.
pub(super) fn package_name(text: &str, printer: &Printer) -> Result<PackageName, ExitStatus> {
    PackageName::parse(text).map_err(|problem| {
        printer.error(&problem, Some("name a package as `squad list` prints it"));
        ExitStatus::Error
    })
}

/// Install a package folder or a `squad pack` archive into a project or the global scope.
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
    pub network: super::registry::NetworkArgs,

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

/// List installed packages with their versions and digests.
///
/// The package the project selects (`squad activate`) is marked `(active)`; one whose files
/// changed since it was installed is marked `(modified)` (`squad verify NAME` names the files).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  squad list
  squad list --project ../app
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
        replace: false,
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

/// The document of `squad install --format json` (docs/json-output.md).
#[derive(Serialize)]
struct JsonInstall<'a> {
    schema_version: u32,
    #[serde(rename = "type")]
    kind: &'static str,
    operation: Operation,
    scope: &'static str,
    namespace: &'a str,
    id: &'a str,
    version: &'a str,
    before_version: Option<&'a str>,
    before: Option<String>,
    after: String,
    target: &'a Path,
    source: Option<&'a str>,
    manifest_digest: Option<&'a str>,
    restored: Option<&'a [Drift]>,
    warnings: &'a [String],
}

pub fn run_install(args: &InstallArgs, printer: &Printer) -> ExitStatus {
    // One after the other: a bad flag is the only error reported.
    let mut pins = crate::acquire::Pins {
        by: "the command line",
        ..Default::default()
    };
    for (flag, value, slot) in [
        (
            "--expect-digest",
            args.expect_digest.as_deref(),
            &mut pins.exact.digest,
        ),
        ("--sha256", args.sha256.as_deref(), &mut pins.archive_sha256),
    ] {
        match digest_flag(flag, value, printer) {
            Ok(digest) => {
                *slot = digest;
            }
            Err(status) => return status,
        }
    }
    let expect = match digest_flag("--expect", args.expect.as_deref(), printer) {
        Ok(expect) => expect,
        Err(status) => return status,
    };
    pins.exact.namespace = args.expect_namespace.clone();
    pins.exact.id = args.expect_id.clone();
    pins.exact.version = args.expect_version.clone();
    let source = match crate::acquire::Source::argument(&args.source) {
        Ok(source) => source,
        Err(message) => {
            printer.error(&message, None);
            return ExitStatus::Error;
        }
    };
    if matches!(source, crate::acquire::Source::Https(_)) && pins.archive_sha256.is_none() {
        printer.error(
            "an https:// source needs the SHA-256 of its archive: pass --sha256 <64 hex>",
            Some("the SHA-256 pins the bytes: whatever the server sends later, only these install"),
        );
        return ExitStatus::Error;
    }
    if let (Some(_), false) = (
        &pins.archive_sha256,
        matches!(source, crate::acquire::Source::Https(_)),
    ) {
        printer.error(
            &format!(
                "--sha256 is for https:// sources; a {} source is checked by its own digests",
                source.kind()
            ),
            None,
        );
        return ExitStatus::Error;
    }
    let mut options = match options(
        &args.scope,
        expect,
        crate::install::Exact::default(),
        printer,
    ) {
        Ok(options) => options,
        Err(status) => return status,
    };
    options.replace = args.replace;
    let policy = match project_policy(&options.scope, printer) {
        Ok(policy) => policy.unwrap_or_default(),
        Err(status) => return status,
    };
    let client = args.network.client();
    let cache = crate::cache::Cache::from_env();
    let progress = super::registry::Progress(crate::output::TransferBar::new(printer));
    let local = crate::acquire::Local::given(PathBuf::new());
    let temporary = options.locations().temporary;
    let context = crate::acquire::Context {
        cache: cache.as_ref(),
        client: Some(&client),
        transfers: &progress,
        policy: &policy,
        temporary: &temporary,
        local: &local,
    };
    let label = args.source.clone();
    let request = crate::acquire::Request {
        label: &label,
        source: &source,
        version: None,
        newest: false,
        pins: &pins,
    };
    let installed = context.install(&request, &options, &mut waiting(printer));
    let installed = match installed {
        Ok(installed) => installed,
        Err(crate::acquire::AcquireError::Install(error @ InstallError::Conflict { .. })) => {
            return report_conflict(args, printer, &error);
        }
        Err(crate::acquire::AcquireError::Install(error)) => {
            return report_error(printer, args.format, error);
        }
        Err(error) => {
            if let Some(report) = error.report() {
                refused_package(
                    printer,
                    args.format,
                    &report.root.display().to_string(),
                    &report.diagnostics,
                    &report.sources,
                );
            }
            printer.failure_noting(&error, "nothing was installed", error.hint().as_deref());
            return error.class().into();
        }
    };
    let receipt = installed.receipt;
    options.origin = installed.origin;
    for warning in &receipt.warnings {
        if !printer.quiet {
            printer.human(&format!("warning: {warning}\n"));
        }
    }
    let identity = &receipt.identity;
    match args.format {
        Format::Json => {
            let document = JsonInstall {
                schema_version: crate::diag::json::SCHEMA_VERSION,
                kind: "install",
                operation: receipt.operation,
                scope: options.scope.name(),
                namespace: &identity.namespace,
                id: &identity.id,
                version: &identity.version,
                before_version: receipt.before_version.as_deref(),
                before: receipt.before.map(|digest| digest.hex()),
                after: receipt.after.hex(),
                target: &receipt.target,
                source: options
                    .origin
                    .as_ref()
                    .map(|origin| origin.reference.as_str()),
                manifest_digest: options
                    .origin
                    .as_ref()
                    .map(|origin| origin.manifest_digest.as_str()),
                restored: receipt.restored.as_deref(),
                warnings: &receipt.warnings,
            };
            printer.data(&(serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"));
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
    ExitStatus::Success
}

/// "1 file changed", "3 files changed".
fn files_changed(count: usize) -> String {
    crate::install::files_changed(Some(u32::try_from(count).unwrap_or(u32::MAX)))
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
        return report_error(
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

/// The `squad verify` command line for an installed package.
fn verify_command(name: &str, scope: &str, project: Option<&Path>) -> String {
    let mut command = format!("squad verify {name} --scope {scope}");
    if let Some(project) = project.filter(|_| scope == "project") {
        command.push_str(&format!(
            " --project {}",
            shell_word(&project.to_string_lossy())
        ));
    }
    command
}

/// `word` as a POSIX shell reads it back: unchanged when it is plain, else single-quoted.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:@%+=,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The signature policy of the project installed into, when it requires signatures.
fn project_policy(
    scope: &Scope,
    printer: &Printer,
) -> Result<Option<crate::sign::Policy>, ExitStatus> {
    let Scope::Project(root) = scope else {
        return Ok(None);
    };
    let project = crate::project::Project::new(root.clone(), root.display().to_string());
    match project.read() {
        Ok(files) if files.declared.policy.applies() => Ok(Some(files.declared.policy)),
        Ok(_) => Ok(None),
        Err(error) => {
            printer.error(
                &format!("{error}: its signature policy cannot be applied; nothing was installed"),
                Some("`squad sync` shows what is wrong with the project's files"),
            );
            Err(ExitStatus::Failure)
        }
    }
}

pub fn run_uninstall(args: &UninstallArgs, printer: &Printer) -> ExitStatus {
    let name = match package_name(&args.name, printer) {
        Ok(name) => name,
        Err(status) => return status,
    };
    let options = match options(&args.scope, None, crate::install::Exact::default(), printer) {
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
                let files: Vec<&str> = done
                    .discarded
                    .iter()
                    .map(|change| change.path.as_str())
                    .collect();
                printer.human(&format!(
                    "warning: discarded the changes made since the install to {}\n",
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
                printer.human(&format!("warning: {warning}\n"));
            }
            ExitStatus::Success
        }
        Err(error) => report_error(printer, Format::Human, error),
    }
}

/// The document of `squad list --format json` (docs/json-output.md).
#[derive(Serialize)]
struct JsonList<'a> {
    schema_version: u32,
    #[serde(rename = "type")]
    kind: &'static str,
    /// The project whose packages and selection were read (`null`: the global scope alone).
    project: Option<&'a Path>,
    /// The project's `prompt_profile.active`.
    active: Option<&'a str>,
    packages: Vec<JsonListed<'a>>,
}

#[derive(Serialize)]
struct JsonListed<'a> {
    scope: &'static str,
    namespace: &'a str,
    id: &'a str,
    version: Option<&'a str>,
    package_digest: Option<&'a str>,
    root: &'a Path,
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<&'a str>,
    active: bool,
    /// `null` when there is no install receipt to compare with.
    modified: Option<bool>,
    changes: Vec<Drift>,
    /// The registry reference and manifest digest the receipt recorded (`null`: a local
    /// install, or no receipt).
    origin: Option<crate::install::receipts::Origin>,
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
    let listing = list(
        &scopes,
        project.as_deref(),
        &root,
        Some(Duration::from_secs(args.lock_timeout)),
    );
    for warning in &listing.warnings {
        printer.human(&format!("warning: {warning}\n"));
    }
    match args.format {
        DataFormat::Json => {
            let document = JsonList {
                schema_version: crate::diag::json::SCHEMA_VERSION,
                kind: "list",
                project: listing.project.as_deref(),
                active: listing.active.as_deref(),
                packages: listing
                    .packages
                    .iter()
                    .map(|listed| {
                        let installed = &listed.package.installed;
                        JsonListed {
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
                        }
                    })
                    .collect(),
            };
            printer.data(&(serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"));
        }
        DataFormat::Human => {
            let mut text = String::new();
            for listed in &listing.packages {
                let installed = &listed.package.installed;
                let marks: Vec<&str> = [
                    listed.active.then_some("active"),
                    (listed.package.modified() == Some(true)).then_some("modified"),
                ]
                .into_iter()
                .flatten()
                .collect();
                text.push_str(&format!(
                    "{:<8} {}/{} {} {}{}\n",
                    listed.scope.name(),
                    installed.namespace,
                    installed.id,
                    installed.version.as_deref().unwrap_or("-"),
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
                    printer.human(&format!(
                        "warning: {}: {problem}\n",
                        installed.root.display()
                    ));
                }
                let changes = listed.package.changes().unwrap_or_default();
                if listed.package.modified() == Some(true) && !printer.quiet {
                    let command = verify_command(
                        &format!("{}/{}", installed.namespace, installed.id),
                        listed.scope.name(),
                        args.project.as_deref(),
                    );
                    printer.human(&format!(
                        "note: {}/{} ({}) has {} since it was installed; `{command}` names them\n",
                        installed.namespace,
                        installed.id,
                        listed.scope.name(),
                        files_changed(changes.len()),
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
                printer.human(&format!("warning: {warning}\n"));
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
