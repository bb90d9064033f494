//! The argument groups several commands share (where to install, which project, how to reach a
//! registry) and their resolution into the library's values, with the errors said once.

use std::path::{Path, PathBuf};

use super::ExitStatus;
use crate::http::{Client, Transport};
use crate::install::PackageName;
use crate::install::scope::Scope;
use crate::output::Printer;
use crate::project::Project;

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

    /// The project directory for `--scope project` [default: the nearest folder at or above the
    /// current directory with `.opencorvus/squads.jsonc`, else the current directory].
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

    /// The project directory [default: the nearest folder at or above the current directory
    /// with `.opencorvus/squads.jsonc`, else the current directory].
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

/// The project found from the current directory (see [`crate::project::discover`]), as an
/// absolute path and as shown from here (`..`), said on stderr when it is above the current
/// directory; `None` when there is none.
fn discovered(printer: &Printer) -> Option<(PathBuf, String)> {
    let here = std::env::current_dir().ok()?.canonicalize().ok()?;
    let root = crate::project::discover(&here)?;
    let depth = here.strip_prefix(&root).ok()?.components().count();
    if depth == 0 {
        return Some((root, ".".to_owned()));
    }
    printer.status(
        "Project",
        &format!(
            "{} (the nearest folder above with .opencorvus/squads.jsonc)",
            root.display()
        ),
    );
    Some((root, vec![".."; depth].join("/")))
}

/// The scope; a project directory is made absolute (so it is registered the same from any
/// directory, GLB-4) and must exist: squad never creates a project. Without `--project`, the
/// project is the nearest folder at or above the current directory with
/// `.opencorvus/squads.jsonc`, else the current directory.
pub(super) fn scope_of(
    scope: ScopeArg,
    project: Option<&Path>,
    printer: &Printer,
) -> Result<Scope, ExitStatus> {
    match scope {
        ScopeArg::Project => {
            let found = match project {
                Some(_) => None,
                None => discovered(printer),
            };
            if let Some((root, _)) = found {
                return Ok(Scope::Project(root));
            }
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

/// Transport flags shared by the registry commands.
#[derive(Debug, Clone, clap::Args)]
pub struct NetworkArgs {
    /// Speak plain HTTP to a registry that is not on this machine (loopback registries always
    /// may): for a registry without TLS on a trusted network only.
    #[arg(long)]
    pub plain_http: bool,
}

impl NetworkArgs {
    pub fn client(&self) -> Client {
        Client::new(Transport {
            plain_http: self.plain_http,
            ..Transport::from_env()
        })
    }
}

/// Where the project is.
#[derive(Debug, Clone, clap::Args)]
pub struct ProjectArgs {
    /// The project directory, which holds `.opencorvus/` [default: the nearest folder at or
    /// above the current directory with `.opencorvus/squads.jsonc`].
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
}

/// The project a project command works on: `--project`, else the one found from the current
/// directory. None found is an error: a project command never makes a folder a project of its
/// own accord (`squad init` does, on purpose).
pub(super) fn project_of(args: &ProjectArgs, printer: &Printer) -> Result<Project, ExitStatus> {
    if args.project.is_some() {
        return project_here(args, printer);
    }
    match discovered(printer) {
        Some((root, shown)) => Ok(Project::new(root, shown)),
        None => {
            let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
            printer.error(
                &format!(
                    "no project here: neither `{}` nor any folder above it has .opencorvus/squads.jsonc",
                    here.display()
                ),
                Some("`squad init` makes this folder a project; --project DIR names one"),
            );
            Err(ExitStatus::Error)
        }
    }
}

/// The project at `--project` or the current directory, as given: nothing is looked for above
/// it (`squad init`).
pub(super) fn project_here(args: &ProjectArgs, printer: &Printer) -> Result<Project, ExitStatus> {
    let given = args.project.as_deref().unwrap_or(Path::new("."));
    let Scope::Project(root) = scope_of(ScopeArg::Project, Some(given), printer)? else {
        return Err(ExitStatus::Error);
    };
    Ok(Project::new(root, given.display().to_string()))
}

/// Where and how to install or uninstall, from `--scope`, `--project` and `--lock-timeout`.
pub(super) fn install_options(
    scope: &ScopeArgs,
    expect: Option<crate::digest::Sha256Digest>,
    printer: &Printer,
) -> Result<crate::install::Options, ExitStatus> {
    let root = opencorvus_root(printer)?;
    Ok(crate::install::Options {
        scope: scope_of(scope.scope, scope.project.as_deref(), printer)?,
        opencorvus_root: root,
        expect,
        replace: false,
        lock_timeout: scope.lock_timeout.map(std::time::Duration::from_secs),
        exact: crate::install::Exact::default(),
        origin: None,
    })
}

/// Downloads at once unless `--jobs` says otherwise.
pub(super) const DEFAULT_JOBS: usize = 8;

fn cache(printer: &Printer) -> Result<crate::cache::Cache, ExitStatus> {
    crate::cache::Cache::from_env().ok_or_else(|| {
        printer.error(
            "cannot tell where squad's download cache is",
            Some("set SQUAD_CACHE_DIR to a directory"),
        );
        ExitStatus::Error
    })
}

/// What every project command needs, built once per run.
pub(super) struct ProjectRun {
    pub(super) project: Project,
    pub(super) opencorvus_root: PathBuf,
    pub(super) cache: crate::cache::Cache,
    pub(super) progress: super::report::Progress,
}

impl ProjectRun {
    pub(super) fn new(args: &ProjectArgs, printer: &Printer) -> Result<ProjectRun, ExitStatus> {
        Ok(ProjectRun {
            project: project_of(args, printer)?,
            opencorvus_root: opencorvus_root(printer)?,
            cache: cache(printer)?,
            progress: super::report::Progress(crate::output::TransferBar::new(printer)),
        })
    }

    pub(super) fn settings<'a>(
        &'a self,
        client: Option<&'a crate::http::Client>,
        jobs: usize,
    ) -> crate::project::Settings<'a> {
        crate::project::Settings {
            opencorvus_root: self.opencorvus_root.clone(),
            cache: self.cache.clone(),
            client,
            jobs: jobs.max(1),
            transfers: &self.progress,
            lock_timeout: None,
        }
    }
}

/// A squad to look at (`show`, `diff`): where an installed name is looked for, and how a
/// remote source is reached.
#[derive(Debug, clap::Args)]
pub struct LookArgs {
    #[command(flatten)]
    pub lookup: LookupArgs,

    #[command(flatten)]
    pub network: NetworkArgs,
}

/// Reads and judges the squad `source` names, as `squad install` would, without installing
/// it; or the status to exit with after saying why (in `format`).
pub(super) fn look_at(
    source: &str,
    sha256: Option<&str>,
    args: &LookArgs,
    format: super::Format,
    printer: &Printer,
) -> Result<crate::acquire::Acquired, ExitStatus> {
    let sha256 = match sha256.map(crate::digest::Sha256Digest::parse) {
        Some(None) => {
            printer.error("--sha256 takes 64 lowercase hex characters", None);
            return Err(ExitStatus::Error);
        }
        Some(Some(digest)) => Some(digest),
        None => None,
    };
    let (_, scopes) = args.lookup.scopes(printer)?;
    let root = opencorvus_root(printer)?;
    let cache = crate::cache::Cache::from_env();
    let client = args.network.client();
    let progress = super::report::Progress(crate::output::TransferBar::new(printer));
    let look = crate::project::direct::Look {
        source,
        sha256,
        scopes: &scopes,
        opencorvus_root: &root,
        cache: cache.as_ref(),
        client: Some(&client),
        transfers: &progress,
    };
    crate::project::direct::look(&look).map_err(|error| match error {
        crate::project::direct::DirectError::Acquire(error) if error.report().is_some() => {
            let report = error.report().unwrap_or_else(|| unreachable!());
            super::report::refused_package(
                printer,
                format,
                &report.root.display().to_string(),
                &report.diagnostics,
                &report.sources,
            );
            printer.error(
                &format!("{source}: not a valid package, so it has no capabilities to show"),
                Some("`squad validate` says what to fix"),
            );
            ExitStatus::Failure
        }
        crate::project::direct::DirectError::Acquire(error) => {
            super::failures::acquire_error(printer, format, source, "", &error)
        }
        error => {
            printer.failure(&error, None);
            error.class().into()
        }
    })
}

/// Which index to read, and how it is trusted.
#[derive(Debug, Clone, clap::Args)]
pub struct IndexArgs {
    /// The index's URL (the folder that holds `index.json`, served over https://, or plain
    /// http:// on this machine) [default: the project's `index` in squads.jsonc].
    #[arg(long, value_name = "URL")]
    pub index: Option<String>,

    /// The minisign public key (`RW…`, or a `.pub` file) that must have signed the index's
    /// root [default: the project's `index_key`].
    #[arg(long, value_name = "KEY")]
    pub trust: Option<String>,

    /// Read nothing from the network: the last root of the index kept in squad's cache, and
    /// the files the cache holds.
    #[arg(long)]
    pub offline: bool,
}

/// The index `args` names (or the project's), opened with every check of its root; `None`
/// when no index is named anywhere. Errors are reported here.
pub(super) fn open_index<'a>(
    args: &IndexArgs,
    configured: Option<&crate::project::IndexConfig>,
    client: &'a Client,
    cache: Option<&'a crate::cache::Cache>,
    key: &'a mut Option<crate::sign::PublicKey>,
    printer: &Printer,
) -> Result<Option<crate::index::fetch::Index<'a>>, ExitStatus> {
    let url = match (&args.index, configured) {
        (Some(url), _) => url.clone(),
        (None, Some(configured)) => configured.url.clone(),
        (None, None) => return Ok(None),
    };
    let trust = match (&args.trust, configured.and_then(|c| c.key.as_ref())) {
        (Some(text), _) => Some(
            crate::sign::keys::public_key(text)
                .map_err(|error| super::failures::key_error(printer, &error))?,
        ),
        (None, Some(key)) if args.index.is_none() => Some(key.clone()),
        _ => None,
    };
    *key = trust;
    let access = crate::index::fetch::Access {
        client: (!args.offline).then_some(client),
        cache,
        trust: key.as_ref(),
        now: crate::env::now_utc(),
    };
    match crate::index::fetch::Index::open(&url, access) {
        Ok(index) => {
            if index.expired {
                printer.warning(&format!(
                    "the cached root of {} expired at {}; it is used because of --offline",
                    index.url, index.root.expires
                ));
            }
            if index.signed_by.is_none() {
                printer.detail(&format!(
                    "the root of {} was not signature-checked (no key is trusted for it)",
                    index.url
                ));
            }
            Ok(Some(index))
        }
        Err(error) => {
            printer.failure(&error, error.hint().as_deref());
            Err(error.class().into())
        }
    }
}

/// The project's `index` (the current directory's project, or `project`), when it declares
/// one and its squads.jsonc can be read.
pub(super) fn configured_index(project: Option<&Path>) -> Option<crate::project::IndexConfig> {
    let root = project
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        .canonicalize()
        .ok()?;
    Project::new(root, String::new())
        .read()
        .ok()?
        .declared
        .index
}
