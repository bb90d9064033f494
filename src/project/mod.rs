//! A project's squads. `<project>/.opencorvus/squads.jsonc` declares them, written by people
//! and by `squad add` ([`declared`]); `<project>/.opencorvus/squads.lock` records the exact
//! bytes each resolved to, written only by squad ([`lockfile`]); [`sync`] makes the project
//! scope match the lock, and [`change`] adds, removes and updates squads in both files.
//!
//! Every command holds the project lock ([`guard`]) while it works, resolves and downloads
//! before it installs anything ([`resolve`], with squad's content-addressed [`crate::cache`]),
//! installs through the install transaction with the digest it observed as the compare-and-swap
//! expectation, and writes each file atomically. A command killed at any point leaves every
//! package complete (old or new) and both files parseable; the next sync finishes the job.

pub mod by_index;
pub mod change;
pub mod check;
pub mod cooldown;
pub mod declared;
pub mod direct;
pub mod escalation;
pub mod findings;
pub mod fix;
pub mod guard;
pub mod lockfile;
pub mod merge;
pub mod outdated;
pub mod resolve;
pub mod sources;
pub mod sync;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cache::Cache;
use crate::diag::Diagnostic;
use crate::http::Client;
use crate::install::scope::{Locations, Scope};
use crate::package::Report;
use crate::share::Transfers;
use crate::source::SourceFile;

pub use declared::IndexConfig;
use declared::{Declared, Name};
use lockfile::Lock;

/// A project directory and how to show it.
#[derive(Debug, Clone)]
pub struct Project {
    /// The directory, absolute (it is registered and compared as such).
    pub root: PathBuf,
    /// The directory as the user gave it (`.` by default), for messages and diagnostics.
    pub shown: String,
    /// How its local sources are read ([`Project::local`]): found once per process, since
    /// finding the repository's root stats every folder above the project.
    local: std::sync::OnceLock<crate::acquire::Local>,
}

/// The project's two files as read, with their text.
#[derive(Debug, Clone, Default)]
pub struct Files {
    /// `None` when there is no `squads.jsonc`.
    pub declared_text: Option<String>,
    pub declared: Declared,
    pub lock_text: Option<String>,
    pub lock: Lock,
    /// `squads.lock` held merge conflicts, and `lock` is what they came to (read for `sync`).
    pub lock_merge: Option<merge::LockMerge>,
}

/// One squad that could not be resolved, fetched or installed.
#[derive(Debug)]
pub struct Failure {
    pub name: String,
    /// What went wrong, without the name (see [`crate::error::labelled`]) and without causes.
    pub message: String,
    /// The messages of the error's causes, outermost first (`caused by:` lines).
    pub causes: Vec<String>,
    pub hint: Option<String>,
    /// Refused content or a refused change (exit 1), rather than work that could not be done
    /// at all: the network, the disk (exit 2).
    pub refused: bool,
    /// The diagnostics of a package that is invalid.
    pub report: Option<Box<Report>>,
}

impl Failure {
    pub fn refused(name: impl Into<String>, message: impl Into<String>) -> Failure {
        Failure {
            name: name.into(),
            message: message.into(),
            causes: Vec::new(),
            hint: None,
            refused: true,
            report: None,
        }
    }

    pub fn operational(name: impl Into<String>, message: impl Into<String>) -> Failure {
        Failure {
            refused: false,
            ..Failure::refused(name, message)
        }
    }

    /// A failure of the class of the error that caused it, with the error's causes.
    pub fn of(
        name: impl Into<String>,
        error: &(dyn std::error::Error + 'static),
        class: crate::error::Class,
    ) -> Failure {
        Failure {
            refused: class == crate::error::Class::Refused,
            causes: crate::error::causes(error),
            ..Failure::refused(name, error.to_string())
        }
    }

    /// The message and its causes as one line, as JSON documents carry it.
    pub fn chain(&self) -> String {
        let mut text = self.message.clone();
        for cause in &self.causes {
            text.push_str(": ");
            text.push_str(cause);
        }
        text
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Failure {
        self.hint = Some(hint.into());
        self
    }
}

/// Why a project command did nothing, or not all of its work.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// `squads.jsonc` or `squads.lock` has problems; nothing was done.
    #[error("squads.jsonc or squads.lock cannot be used as written; nothing was changed")]
    Invalid {
        diagnostics: Vec<Diagnostic>,
        sources: HashMap<String, SourceFile>,
    },
    /// The project declares no squads (`squads.jsonc` is absent).
    #[error("`{}` does not exist: the project declares no squads", .0.display())]
    Undeclared(PathBuf),
    /// A squad named on the command line is not declared.
    #[error("`{0}` is not declared in squads.jsonc")]
    NotDeclared(String),
    /// `--locked`: the files disagree; nothing was done. Each line says where.
    #[error("squads.lock does not match squads.jsonc (--locked); nothing was changed:\n  {}", .lines.join("\n  "))]
    Disagree {
        lines: Vec<String>,
        /// The same, as diagnostics at the lines concerned (for annotations).
        diagnostics: Vec<Diagnostic>,
        sources: HashMap<String, SourceFile>,
    },
    /// Squads that could not be resolved, fetched or installed; nothing was changed.
    #[error("{} squad{} could not be brought in line", .0.len(), crate::text::plural(.0.len()))]
    Failed(Vec<Failure>),
    /// The files were written, and then what should have followed failed.
    #[error("{} squad{} could not be brought in line; squads.jsonc and squads.lock were written", .0.len(), crate::text::plural(.0.len()))]
    PartlyDone(Vec<Failure>),
    /// A command-line argument that cannot be used.
    #[error("{0}")]
    Usage(String),
    /// `.opencorvus` is a link out of the project; nothing was written.
    #[error(transparent)]
    OutsideProject(crate::install::scope::OutsideProject),
    #[error("cannot read or write `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
}

impl ProjectError {
    /// Squads that failed are as bad as the worst of them.
    pub fn class(&self) -> crate::error::Class {
        match self {
            ProjectError::Invalid { .. }
            | ProjectError::NotDeclared(_)
            | ProjectError::Disagree { .. }
            | ProjectError::OutsideProject(_) => crate::error::Class::Refused,
            ProjectError::Failed(failures) | ProjectError::PartlyDone(failures)
                if failures.iter().all(|f| f.refused) =>
            {
                crate::error::Class::Refused
            }
            ProjectError::Failed(_)
            | ProjectError::PartlyDone(_)
            | ProjectError::Undeclared(_)
            | ProjectError::Usage(_)
            | ProjectError::Io(..) => crate::error::Class::Failed,
        }
    }
}

/// How a command reaches what it needs.
pub struct Settings<'a> {
    /// OpenCorvus's data root `<R>` (install locks and temporary extractions live there).
    pub opencorvus_root: PathBuf,
    pub cache: Cache,
    /// `None` when offline: only the cache and local sources are used.
    pub client: Option<&'a Client>,
    /// Downloads at once.
    pub jobs: usize,
    pub transfers: &'a (dyn Transfers + Sync),
    /// How long an install waits for another holding the same id (`None`: as long as it takes).
    pub lock_timeout: Option<Duration>,
}

impl Settings<'_> {
    /// How squad installs into and removes from `project`'s scope, expecting nothing of what
    /// is there and pinning nothing: callers that do set those fields.
    pub fn install_options(&self, project: &Project) -> crate::install::Options {
        crate::install::Options {
            scope: project.scope(),
            opencorvus_root: self.opencorvus_root.clone(),
            expect: None,
            replace: false,
            lock_timeout: self.lock_timeout,
            exact: Default::default(),
            origin: None,
        }
    }
}

/// The project a command run in `start` works on when none is named: the nearest folder at or
/// above `start` (made absolute) whose `.opencorvus/squads.jsonc` exists, as cargo, npm, uv
/// and git find theirs; the walk stops at the file-system root. `None` when there is none.
pub fn discover(start: &Path) -> Option<PathBuf> {
    let start = crate::fs::canonicalize(start).ok()?;
    start
        .ancestors()
        .find(|folder| crate::fs::symlink_metadata(folder.join(declared::FILE)).is_ok())
        .map(Path::to_path_buf)
}

/// What `squad list` shows: the listing, and which of the project's packages its
/// `squads.jsonc` does not declare (by `<namespace>/<id>`; none when the project declares no
/// squads or its file cannot be read, since then nothing tells declared from not).
pub struct ProjectListing {
    pub listing: crate::install::Listing,
    pub undeclared: std::collections::BTreeSet<String>,
}

/// Lists `scopes` as [`crate::install::list`] does, marking the project's undeclared packages:
/// the next `squad sync` removes them (`--keep-undeclared` keeps them).
pub fn list(
    scopes: &[Scope],
    project: Option<&Path>,
    opencorvus_root: &Path,
    lock_timeout: Option<Duration>,
) -> ProjectListing {
    let listing = crate::install::list(scopes, project, opencorvus_root, lock_timeout);
    let declared = project.and_then(|root| {
        let text = read_optional(&root.join(declared::FILE)).ok()??;
        let (declared, problems) = declared::parse(&text);
        (merge::sides(&text).is_none() && !crate::diag::has_errors(&problems)).then_some(declared)
    });
    let undeclared = match declared.as_ref().map(Declared::names) {
        Some(declared) => listing
            .packages
            .iter()
            .filter(|listed| matches!(listed.scope, Scope::Project(_)))
            .map(|listed| Name {
                namespace: listed.package.installed.namespace.clone(),
                id: listed.package.installed.id.clone(),
            })
            .filter(|name| !declared.contains(name))
            .map(|name| name.to_string())
            .collect(),
        None => Default::default(),
    };
    ProjectListing {
        listing,
        undeclared,
    }
}

fn read_optional(path: &Path) -> Result<Option<String>, ProjectError> {
    match crate::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            ProjectError::Io(
                path.to_path_buf(),
                std::io::Error::other("the file is not valid UTF-8"),
            )
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(ProjectError::Io(path.to_path_buf(), error)),
    }
}

impl Project {
    pub fn new(root: PathBuf, shown: impl Into<String>) -> Project {
        Project {
            root,
            shown: shown.into(),
            local: std::sync::OnceLock::new(),
        }
    }

    /// How the local sources `squads.jsonc` names are read: relative to the project, kept
    /// within its repository.
    pub fn local(&self) -> &crate::acquire::Local {
        self.local
            .get_or_init(|| crate::acquire::Local::project(self.root.clone(), self.shown.clone()))
    }

    /// `<project>/.opencorvus`.
    pub fn config_root(&self) -> PathBuf {
        self.root.join(".opencorvus")
    }

    pub fn declared_path(&self) -> PathBuf {
        self.root.join(declared::FILE)
    }

    pub fn lock_path(&self) -> PathBuf {
        self.root.join(lockfile::FILE)
    }

    pub fn scope(&self) -> Scope {
        Scope::Project(self.root.clone())
    }

    pub fn locations(&self, opencorvus_root: &Path) -> Locations {
        Locations::new(&self.scope(), opencorvus_root)
    }

    /// A project-relative path as the user reads it (`shown/…`).
    pub fn display(&self, relative: &str) -> String {
        crate::diag::sarif::display_file(&self.shown, relative)
    }

    /// Reads both files; any error in either is reported with every other one. Merge
    /// conflicts in either are reported as such ([`merge`]).
    pub fn read(&self) -> Result<Files, ProjectError> {
        self.read_merging(false)
    }

    /// [`Project::read`]; with `merge_lock`, a `squads.lock` with merge conflicts is read as
    /// what its sides agree on ([`merge::merge_lock`]) instead of being refused.
    fn read_merging(&self, merge_lock: bool) -> Result<Files, ProjectError> {
        let (declared_text, lock_text) = self.read_texts()?;
        Self::parse_merging(declared_text, lock_text, merge_lock)
    }

    /// The texts of `squads.jsonc` and `squads.lock`, `None` where absent.
    fn read_texts(&self) -> Result<(Option<String>, Option<String>), ProjectError> {
        Ok((
            read_optional(&self.declared_path())?,
            read_optional(&self.lock_path())?,
        ))
    }

    /// [`Project::read_merging`] of texts read.
    fn parse_merging(
        declared_text: Option<String>,
        lock_text: Option<String>,
        merge_lock: bool,
    ) -> Result<Files, ProjectError> {
        use crate::diag::Code;
        let mut files = Files {
            declared_text,
            lock_text,
            ..Files::default()
        };
        let mut diagnostics = Vec::new();
        if let Some(text) = &files.declared_text {
            match merge::sides(text) {
                Some(sides) => diagnostics.extend(sides.conflicts.iter().map(|conflict| {
                    Diagnostic::new(
                        Code::SquadsSyntax,
                        declared::FILE,
                        format!("squads.jsonc has merge conflicts at line {}", conflict.line),
                    )
                    .span(conflict.span.clone())
                    .help("resolve them in squads.jsonc, as it is your file (each squad is one line: where both branches added a squad, keep both lines), then run `squad sync`")
                })),
                None => {
                    let (declared, found) = declared::parse(text);
                    files.declared = declared;
                    diagnostics.extend(found);
                }
            }
        }
        if let Some(text) = &files.lock_text {
            match merge::sides(text) {
                Some(sides) => match merge::merge_lock(&sides) {
                    Ok((lock, merged)) if merge_lock => {
                        files.lock = lock;
                        files.lock_merge = Some(merged);
                    }
                    Ok(_) => diagnostics.extend(sides.conflicts.iter().map(|conflict| {
                        Diagnostic::new(
                            Code::SquadsLockInvalid,
                            lockfile::FILE,
                            format!("squads.lock has merge conflicts at line {}", conflict.line),
                        )
                        .span(conflict.span.clone())
                        .help("`squad sync` resolves them: it keeps what both branches lock alike and resolves only the squads they lock differently; then commit squads.lock")
                    })),
                    Err(why) => diagnostics.extend(sides.conflicts.iter().map(|conflict| {
                        Diagnostic::new(
                            Code::SquadsLockInvalid,
                            lockfile::FILE,
                            format!(
                                "squads.lock has merge conflicts at line {} that squad cannot resolve: {why}",
                                conflict.line
                            ),
                        )
                        .span(conflict.span.clone())
                        .help("take one branch's lock whole (`git checkout --ours .opencorvus/squads.lock`, or `--theirs`), then run `squad sync`")
                    })),
                },
                None => match Lock::parse(text) {
                    Ok(lock) => files.lock = lock,
                    Err(diagnostic) => diagnostics.push(*diagnostic),
                },
            }
        }
        if crate::diag::has_errors(&diagnostics) {
            // Lines are counted only to show a diagnostic.
            let mut sources = HashMap::new();
            for (file, text) in [
                (declared::FILE, &files.declared_text),
                (lockfile::FILE, &files.lock_text),
            ] {
                if let Some(text) = text {
                    sources.insert(file.to_owned(), SourceFile::new(text.clone()));
                }
            }
            return Err(ProjectError::Invalid {
                diagnostics,
                sources,
            });
        }
        Ok(files)
    }

    /// Takes the project lock, then reads the files again: what another command wrote while
    /// this one waited is what it works from. The files are checked once before waiting, so a
    /// broken file is reported at once, and, when `declared_only`, a project without
    /// `squads.jsonc` is refused before anything is created in it.
    pub fn lock_and_read(
        &self,
        declared_only: bool,
        on_wait: &mut dyn FnMut(&Path),
    ) -> Result<(guard::ProjectGuard, Files), ProjectError> {
        self.lock_and_read_merging(declared_only, false, on_wait)
    }

    /// [`Project::lock_and_read`], reading a `squads.lock` with merge conflicts as what its
    /// sides agree on when `merge_lock` (`squad sync`).
    pub fn lock_and_read_merging(
        &self,
        declared_only: bool,
        merge_lock: bool,
        on_wait: &mut dyn FnMut(&Path),
    ) -> Result<(guard::ProjectGuard, Files), ProjectError> {
        let config_root = self.config_root();
        crate::install::scope::check_inside(&self.root, &config_root)
            .map_err(|error| ProjectError::Io(config_root.clone(), error))?
            .map_err(ProjectError::OutsideProject)?;
        let undeclared = |files: &Files| declared_only && files.declared_text.is_none();
        let before = self.read_merging(merge_lock)?;
        if undeclared(&before) {
            return Err(ProjectError::Undeclared(self.declared_path()));
        }
        let guard = guard::ProjectGuard::acquire(&config_root, on_wait)
            .map_err(|error| ProjectError::Io(guard::path(&config_root), error))?;
        remove_stale_temporaries(&config_root);
        // The same bytes read the same: parsed again only when another command changed them.
        let (declared_text, lock_text) = self.read_texts()?;
        let files = if declared_text == before.declared_text && lock_text == before.lock_text {
            before
        } else {
            Self::parse_merging(declared_text, lock_text, merge_lock)?
        };
        if undeclared(&files) {
            return Err(ProjectError::Undeclared(self.declared_path()));
        }
        Ok((guard, files))
    }

    /// Writes `squads.jsonc` atomically.
    pub fn write_declared(&self, text: &str) -> Result<(), ProjectError> {
        let path = self.declared_path();
        crate::fs::replace_file_then(&path, text.as_bytes(), &|| {
            crate::env::failpoint("squads-temporary-written")
        })
        .map_err(|error| ProjectError::Io(path, error))
    }

    /// Writes `squads.lock` atomically.
    pub fn write_lock(&self, lock: &Lock) -> Result<(), ProjectError> {
        let path = self.lock_path();
        crate::fs::replace_file_then(&path, lock.render().as_bytes(), &|| {
            crate::env::failpoint("lock-temporary-written")
        })
        .map_err(|error| ProjectError::Io(path, error))
    }
}

/// Temporary files a killed command left beside `squads.jsonc` and `squads.lock`. Every writer
/// of those files holds the project lock, so under it any such file is a leftover.
fn remove_stale_temporaries(config_root: &Path) {
    let Ok(entries) = crate::fs::read_dir(config_root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(".squads.jsonc.tmp-") || name.starts_with(".squads.lock.tmp-") {
            let _ = crate::fs::remove_file(entry.path());
        }
    }
}

// The bounded thread pool every project command downloads with lives in `crate::jobs`.
pub(crate) use crate::jobs::{Task, run_jobs};
