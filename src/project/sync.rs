//! `squad sync`: make the project scope match the lock. Squads not yet locked are resolved and
//! locked (unless `--locked`, which refuses instead and changes nothing); each squad whose
//! installed digest is not the locked one is fetched (cache first, downloads in parallel) and
//! checked against the lock, and only once every one is in hand are they installed, each
//! through the install transaction with the digest observed before as its compare-and-swap
//! expectation. Packages installed in the project that squads.jsonc does not declare are then
//! removed (unless `--keep-undeclared`), so the project holds exactly what the lock says.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::acquire::Acquired;
use crate::digest::Sha256Digest;
use crate::error::Class;
use crate::install::scope::Locations;
use crate::install::{InstallError, Operation, Options, install_ready};

use super::declared::{Declaration, Entry, Name};
use super::escalation::{self, Escalation};
use super::lockfile::{Lock, Locked};
use super::resolve::{self, Downloads};
use super::{Failure, Files, Project, ProjectError, Settings, Task, run_jobs};

/// What one squad's installation was, and what it is now.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub name: String,
    pub operation: Operation,
    pub version: String,
    /// `folder`, `archive`, `registry`, `https` or `link`.
    pub kind: &'static str,
    pub source: String,
    pub resolved: String,
    pub before: Option<Sha256Digest>,
    pub after: Sha256Digest,
    pub target: PathBuf,
}

/// What `sync` did.
#[derive(Debug, Default)]
pub struct SyncReport {
    /// One per declared squad, by name.
    pub outcomes: Vec<Outcome>,
    /// Squads that could not be brought in line; when any failed before installing, nothing
    /// was installed.
    pub failures: Vec<Failure>,
    /// Squads the lock had but the declaration no longer names: dropped from the lock, and
    /// their packages left installed.
    pub dropped: Vec<String>,
    pub lock_written: bool,
    /// What refused nothing but is worth saying: interrupted replacements that could not be
    /// recovered, a tag moved away from the locked bytes, a selection that could not be reset.
    pub warnings: Vec<String>,
    /// squads.lock held merge conflicts: what they came to (the squads locked differently by
    /// the two sides were resolved anew).
    pub merged: Option<super::merge::LockMerge>,
    /// Packages installed in the project that squads.jsonc does not declare: removed, or kept
    /// and why.
    pub undeclared: Vec<Undeclared>,
}

/// A package installed in the project that squads.jsonc does not declare (after `squad
/// remove`, a branch switch, a merge), and what `sync` did with it.
#[derive(Debug, Clone, Serialize)]
pub struct Undeclared {
    pub name: String,
    pub root: PathBuf,
    /// Uninstalled; otherwise kept, and `reason` says why.
    pub removed: bool,
    pub reason: Option<String>,
}

/// Removes the project's installed packages that squads.jsonc does not declare, so a sync
/// leaves exactly what the lock says (as `npm ci` and `uv sync` do). Kept: everything with
/// `keep` (`--keep-undeclared`); a package squad did not install (no install receipt: another
/// tool's, or copied by hand); one whose files changed since it was installed (removing it
/// would lose the changes; `squad uninstall --force` does that on purpose).
fn remove_undeclared(
    project: &Project,
    settings: &Settings<'_>,
    files: &Files,
    keep: bool,
    on_wait: &mut dyn FnMut(&Path),
) -> (Vec<Undeclared>, Vec<String>) {
    let locations = project.locations(&settings.opencorvus_root);
    let mut found = Vec::new();
    let mut warnings = Vec::new();
    let declared = files.declared.names();
    for installed in crate::install::identities(&locations) {
        let name = Name {
            namespace: installed.namespace.clone(),
            id: installed.id.clone(),
        };
        if declared.contains(&name) {
            continue;
        }
        let kept = |reason: String| Undeclared {
            name: name.to_string(),
            root: installed.root.clone(),
            removed: false,
            reason: Some(reason),
        };
        if keep {
            found.push(kept("--keep-undeclared".to_owned()));
            continue;
        }
        if crate::install::receipts::find(&settings.opencorvus_root, &installed.root).is_none() {
            found.push(kept(format!(
                "squad did not install it (it has no install receipt); `squad uninstall {} --scope project` removes it",
                name.id
            )));
            continue;
        }
        let options = settings.install_options(project);
        let package = crate::install::PackageName {
            namespace: Some(name.namespace.clone()),
            id: name.id.clone(),
        };
        let removal = crate::install::Removal { force: false };
        match crate::install::uninstall(&package, &options, &removal, on_wait) {
            Ok(removed) => {
                warnings.extend(removed.warnings);
                found.push(Undeclared {
                    name: name.to_string(),
                    root: removed.package.root,
                    removed: true,
                    reason: None,
                });
            }
            Err(InstallError::NotInstalled(_)) => {}
            Err(InstallError::Modified { changes, .. }) => found.push(kept(format!(
                "its files changed since it was installed ({} changed); `squad uninstall {} --scope project --force` removes it with them",
                changes.len(),
                name.id
            ))),
            Err(error) => found.push(kept(crate::error::chain(&error))),
        }
    }
    (found, warnings)
}

/// What is installed under a squad's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installed {
    Absent,
    Digest(Sha256Digest),
    /// A package that cannot be digested; squad never replaces it (INS-6).
    Unreadable(PathBuf, String),
}

impl Installed {
    pub fn digest(&self) -> Option<Sha256Digest> {
        match self {
            Installed::Digest(digest) => Some(*digest),
            _ => None,
        }
    }

    /// What is installed at `<namespace>/<id>` in a scope, every file hashed (what `verify`
    /// reports).
    pub fn of(locations: &Locations, name: &Name) -> Installed {
        Installed::read(locations, name, None).0
    }

    /// [`Installed::of`], told by the package's install fingerprint when it vouches for the
    /// package (install/fingerprint.rs, docs/fingerprints.md), else hashed: what a `sync`
    /// compares with its lock. `packages_root` is the scope's packages root made canonical
    /// once (where receipts are found), and the version is the manifest's when the
    /// fingerprint vouched for the package.
    pub fn of_fingerprinted(
        locations: &Locations,
        name: &Name,
        (opencorvus_root, packages_root): (&Path, Option<&Path>),
    ) -> (Installed, Option<String>) {
        Installed::read(locations, name, Some((opencorvus_root, packages_root)))
    }

    fn read(
        locations: &Locations,
        name: &Name,
        fingerprinted: Option<(&Path, Option<&Path>)>,
    ) -> (Installed, Option<String>) {
        let target = locations.target(&name.namespace, &name.id);
        let package = match crate::fs::dir::Dir::open_real(&target) {
            Ok(None) => return (Installed::Absent, None),
            Ok(Some(package)) => package,
            Err(error) => {
                return (
                    Installed::Unreadable(target, crate::error::chain(&error)),
                    None,
                );
            }
        };
        let digest = match fingerprinted {
            Some((opencorvus_root, packages_root)) => {
                let canonical = packages_root.map(|root| root.join(&name.namespace).join(&name.id));
                crate::install::installed_digest(opencorvus_root, &package, canonical.as_deref())
            }
            None => crate::install::open_directory_digest(&package).map(|digest| (digest, None)),
        };
        match digest {
            Ok((digest, version)) => (Installed::Digest(digest), version),
            Err(problem) => (Installed::Unreadable(target, problem), None),
        }
    }
}

fn install_failure(name: &str, error: InstallError) -> Failure {
    match error {
        InstallError::Invalid(report) => {
            let mut failure =
                Failure::refused(name, "the package is invalid; nothing was installed")
                    .hint("run `squad validate` on the source for details");
            failure.report = Some(report);
            failure
        }
        error @ InstallError::Conflict { .. } => Failure::of(name, &error, Class::Refused)
            .hint("the package changed while squad worked on it; run the command again"),
        error => Failure::of(name, &error, error.class()),
    }
}

/// Installs an acquired squad (its judged copy, with what was judged as the expectations),
/// replacing `before` (the digest observed, or nothing).
pub(crate) fn install(
    settings: &Settings<'_>,
    project: &Project,
    entry: (&Name, &Declaration),
    locked: &Locked,
    acquired: Acquired,
    before: Option<Sha256Digest>,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Outcome, Failure> {
    let (name, declaration) = entry;
    let options = Options {
        expect: before,
        exact: acquired.exact(),
        origin: acquired
            .origin
            .clone()
            .or_else(|| resolve::origin(declaration, locked)),
        ..settings.install_options(project)
    };
    let receipt = install_ready(acquired.ready, &options, on_wait)
        .map_err(|error| install_failure(&name.to_string(), error))?;
    Ok(Outcome {
        name: name.to_string(),
        operation: receipt.operation,
        version: receipt.identity.version,
        kind: declaration.source.kind(),
        source: declaration.source_text.clone(),
        resolved: locked.resolved.clone(),
        before: receipt.before,
        after: receipt.after,
        target: receipt.target,
    })
}

/// An outcome for a squad already installed as locked.
pub(crate) fn unchanged(
    locations: &Locations,
    entry: (&Name, &Declaration),
    locked: &Locked,
) -> Outcome {
    let (name, declaration) = entry;
    Outcome {
        name: name.to_string(),
        operation: Operation::Unchanged,
        version: locked.version.clone(),
        kind: declaration.source.kind(),
        source: declaration.source_text.clone(),
        resolved: locked.resolved.clone(),
        before: Some(locked.package_digest),
        after: locked.package_digest,
        target: locations.target(&name.namespace, &name.id),
    }
}

/// The lock's version is a claim like the rest of it: a squad installed as locked (its digest
/// is the locked one) must declare the locked version, or the lock would make `sync` report,
/// and `outdated` compare against, a version that is not installed.
fn pinned_identity(
    project: &Project,
    settings: &Settings<'_>,
    (name, vouched_version): (&Name, Option<&str>),
    locked: &Locked,
) -> Result<(), Failure> {
    // The install fingerprint's record of the manifest's version when it vouched for the
    // package's bytes, else the manifest read.
    let declared = match vouched_version {
        Some(version) => crate::manifest::Declared {
            version: Some(version.to_owned()),
            ..Default::default()
        },
        None => {
            let manifest = project
                .locations(&settings.opencorvus_root)
                .target(&name.namespace, &name.id)
                .join(crate::manifest::MANIFEST_FILE);
            crate::fs::read_regular_to_string(&manifest)
                .ok()
                .and_then(|text| crate::manifest::declared(&text))
                .unwrap_or_default()
        }
    };
    if declared.version.as_deref() == Some(locked.version.as_str()) {
        return Ok(());
    }
    Err(Failure::refused(
        name.to_string(),
        format!(
            "squads.lock records version {} for the package it pins ({}), which declares {}",
            locked.version,
            locked.package_digest.hex(),
            declared
                .version
                .map_or("no version".to_owned(), |version| crate::text::remote(&version, 80)),
        ),
    )
    .hint(format!(
        "squads.lock is written by squad only: restore it from version control, or run `squad update {name}` to lock what is installed"
    )))
}

/// The total grants of the package installed for `name`, read into a private copy and
/// validated as installed packages are.
fn installed_grants(
    project: &Project,
    settings: &Settings<'_>,
    name: &Name,
) -> Result<crate::capability::Total, Failure> {
    let target = project
        .locations(&settings.opencorvus_root)
        .target(&name.namespace, &name.id);
    let acquired = resolve::Acquirer {
        project,
        settings,
        policy: &crate::sign::Policy::default(),
        installs: false,
    }
    .installed(&name.to_string(), &target)?;
    Ok(escalation::capabilities(name, &acquired)?.total)
}

/// One place where the files disagree, for `--locked`: what, and where (the declaration's key
/// in squads.jsonc, or the entry's in squads.lock), for annotations.
struct Disagreement {
    line: String,
    file: &'static str,
    span: Option<std::ops::Range<usize>>,
}

/// The span of `"name"` as a key in `text` (the lock entry of a squad).
fn key_span(text: Option<&str>, name: &str) -> Option<std::ops::Range<usize>> {
    let quoted = serde_json::to_string(name).ok()?;
    let at = text?.find(&format!("{quoted}:"))?;
    Some(at..at + quoted.len())
}

/// Where the files disagree, for `--locked`.
fn disagreements(files: &Files) -> Vec<Disagreement> {
    let mut found = Vec::new();
    let declared = |entry: &Entry, line: String| Disagreement {
        line,
        file: super::declared::FILE,
        span: Some(entry.span.clone()),
    };
    for entry in &files.declared.entries {
        let name = entry.name.to_string();
        match files.lock.squads.get(&name) {
            None => found.push(declared(entry, format!("{name} is declared but not locked"))),
            Some(locked)
                if !locked.agrees_with(&entry.declaration)
                    && locked.source == entry.declaration.source_text
                    && entry
                        .declaration
                        .version
                        .as_ref()
                        .is_none_or(|version| *version == locked.version) =>
            {
                found.push(Disagreement {
                    line: format!(
                        "{name}: squads.lock resolves it to {}, which is not what its declared source {} can resolve to",
                        crate::text::remote(&locked.resolved, crate::text::REMOTE_TEXT_CHARS),
                        entry.declaration.source_text
                    ),
                    file: super::lockfile::FILE,
                    span: key_span(files.lock_text.as_deref(), &name),
                })
            }
            Some(locked) if !locked.agrees_with(&entry.declaration) => found.push(declared(
                entry,
                format!(
                    "{name}: squads.jsonc asks for {}{}, squads.lock has {} {}",
                    entry.declaration.source_text,
                    entry
                        .declaration
                        .version
                        .as_ref()
                        .map(|version| format!(" {version}"))
                        .unwrap_or_default(),
                    crate::text::remote(&locked.source, crate::text::REMOTE_TEXT_CHARS),
                    locked.version
                ),
            )),
            Some(_) => {}
        }
    }
    let declared = files.declared.names();
    for name in files.lock.squads.keys() {
        if Name::parse(name).is_ok_and(|name| !declared.contains(&name)) {
            found.push(Disagreement {
                line: format!("{name} is locked but no longer declared"),
                file: super::lockfile::FILE,
                span: key_span(files.lock_text.as_deref(), name),
            });
        }
    }
    found
}

/// `--locked` refusing what `found` lists, with a diagnostic for each (PLK-2), so CI
/// annotates the line (`--format github`, `sarif`).
fn refuse_locked(files: &Files, found: Vec<Disagreement>) -> ProjectError {
    let mut sources = std::collections::HashMap::new();
    for (file, text) in [
        (super::declared::FILE, &files.declared_text),
        (super::lockfile::FILE, &files.lock_text),
    ] {
        if let Some(text) = text {
            sources.insert(
                file.to_owned(),
                crate::source::SourceFile::new(text.clone()),
            );
        }
    }
    let diagnostics = found
        .iter()
        .map(|disagreement| {
            let diagnostic = crate::diag::Diagnostic::new(
                crate::diag::Code::SquadsLockInvalid,
                disagreement.file,
                disagreement.line.clone(),
            )
            .help("run `squad sync` without --locked to lock what squads.jsonc declares, and commit squads.lock");
            match &disagreement.span {
                Some(span) => diagnostic.span(span.clone()),
                None => diagnostic,
            }
        })
        .collect();
    ProjectError::Disagree {
        lines: found.into_iter().map(|found| found.line).collect(),
        diagnostics,
        sources,
    }
}

/// The work one squad needs before anything is installed.
enum Step {
    /// Installed as locked: vouched for again, nothing fetched (unless its local source moved).
    Done(Locked),
    /// Resolve anew: not locked, or the lock no longer agrees.
    Resolve,
    /// Acquire the locked bytes.
    Fetch(Locked),
}

/// A squad whose bytes are in hand: what to lock, and what to install (if anything).
struct Ready {
    locked: Locked,
    /// Boxed: an acquired package is 2 KiB, and a no-op sync of 1,000 squads moved a million
    /// bytes of `None`s about.
    acquired: Option<Box<Acquired>>,
}

/// What `squad sync` is asked to do.
#[derive(Debug, Clone, Copy, Default)]
pub struct SyncRequest {
    /// `--locked`: refuse when the files disagree, instead of resolving.
    pub locked: bool,
    /// `--keep-undeclared`: leave installed the packages squads.jsonc does not declare.
    pub keep_undeclared: bool,
}

pub fn sync(
    project: &Project,
    settings: &Settings<'_>,
    request: SyncRequest,
    on_wait: &mut (dyn FnMut(&Path) + Send),
) -> Result<SyncReport, ProjectError> {
    let locked_only = request.locked;
    let (_guard, files) = project.lock_and_read_merging(true, true, on_wait)?;
    if let (true, Some(merged)) = (locked_only, &files.lock_merge) {
        let text = files.lock_text.as_deref().unwrap_or_default();
        let conflicts = super::merge::sides(text)
            .map(|sides| sides.conflicts)
            .unwrap_or_default();
        let found = merged
            .lines
            .iter()
            .map(|line| Disagreement {
                line: format!("squads.lock has merge conflicts at line {line}"),
                file: super::lockfile::FILE,
                span: conflicts
                    .iter()
                    .find(|conflict| conflict.line == *line)
                    .map(|conflict| conflict.span.clone()),
            })
            .collect();
        return Err(refuse_locked(&files, found));
    }
    if locked_only {
        let found = disagreements(&files);
        if !found.is_empty() {
            return Err(refuse_locked(&files, found));
        }
    }
    let mut report = SyncReport {
        merged: files.lock_merge.clone(),
        ..SyncReport::default()
    };
    let locations = project.locations(&settings.opencorvus_root);
    report.warnings = crate::install::recover_scope(&locations, settings.lock_timeout)
        .into_iter()
        .map(|problem| format!("interrupted replacement not recovered: {problem}"))
        .collect();
    crate::env::failpoint("sync-planned");
    let entries = &files.declared.entries;
    // Made canonical once: where each installed package's receipt and fingerprint are found.
    let packages_root = locations.packages_root.canonicalize().ok();
    let (installed, vouched_versions): (Vec<Installed>, Vec<Option<String>>) = run_jobs(
        settings.jobs,
        entries
            .iter()
            .map(|entry| {
                let locations = &locations;
                let roots = (settings.opencorvus_root.as_path(), packages_root.as_deref());
                Box::new(move || Installed::of_fingerprinted(locations, &entry.name, roots))
                    as Task<'_, (Installed, Option<String>)>
            })
            .collect(),
    )
    .into_iter()
    .unzip();
    let steps: Vec<Step> = entries
        .iter()
        .zip(&installed)
        .map(|(entry, installed)| {
            let locked = files
                .lock
                .squads
                .get(&entry.name.to_string())
                .filter(|locked| locked.agrees_with(&entry.declaration));
            match locked {
                None => Step::Resolve,
                Some(locked) if installed.digest() == Some(locked.package_digest) => {
                    Step::Done(locked.clone())
                }
                Some(locked) => Step::Fetch(locked.clone()),
            }
        })
        .collect();
    let escalation = Escalation {
        deny: files.declared.deny_escalation,
        accept: false,
    };
    let cooldown = super::cooldown::Cooldown::of(files.declared.minimum_release_age.as_ref());
    // Local archives remembered with their stamps, so that an unchanged one is not hashed.
    let sources = super::sources::Sources::read(&settings.opencorvus_root, &project.root);
    let ready = prepare(
        (project, &sources),
        settings,
        (
            &files.declared.policy,
            escalation,
            &files.declared.audit,
            &files.lock,
            locked_only,
            files.declared.index.as_ref(),
            cooldown.as_ref(),
        ),
        entries,
        &steps,
        (&installed, &vouched_versions),
    );
    sources.write();
    let mut prepared = Vec::new();
    for (entry, result) in entries.iter().zip(ready) {
        match result {
            Ok(ready) => {
                if let Some(acquired) = &ready.acquired {
                    report.warnings.extend(
                        acquired
                            .warnings
                            .iter()
                            .map(|warning| format!("{}: {warning}", entry.name)),
                    );
                }
                prepared.push((entry, ready));
            }
            Err(failure) => report.failures.push(failure),
        }
    }
    if !report.failures.is_empty() {
        return Ok(report);
    }
    crate::env::failpoint("sync-fetched");
    // Installs of different ids are independent transactions: run at once, their syncs to
    // disk overlap.
    let on_wait = std::sync::Mutex::new(on_wait);
    let mut locks = Vec::new();
    let mut tasks: Vec<Task<'_, Result<Outcome, Failure>>> = Vec::new();
    for ((entry, ready), installed) in prepared.into_iter().zip(&installed) {
        let on_wait = &on_wait;
        let locations = &locations;
        locks.push((entry, ready.locked.clone()));
        tasks.push(Box::new(move || {
            let key = (&entry.name, &entry.declaration);
            match (ready.acquired, installed) {
                (_, Installed::Digest(digest)) if *digest == ready.locked.package_digest => {
                    Ok(unchanged(locations, key, &ready.locked))
                }
                (_, Installed::Unreadable(target, problem)) => Err(Failure::refused(
                    entry.name.to_string(),
                    format!(
                        "the package installed at `{}` cannot be read ({problem}); squad does not replace it",
                        target.display()
                    ),
                )
                .hint("repair or remove it by hand, then sync again")),
                (Some(acquired), installed) => install(
                    settings,
                    project,
                    key,
                    &ready.locked,
                    *acquired,
                    installed.digest(),
                    &mut |path: &Path| {
                        if let Ok(mut on_wait) = on_wait.lock() {
                            on_wait(path);
                        }
                    },
                ),
                (None, _) => Err(Failure::operational(
                    entry.name.to_string(),
                    "nothing to install from",
                )),
            }
        }));
    }
    let outcomes = run_jobs(settings.jobs, tasks);
    let mut lock = Lock::default();
    for ((entry, locked), outcome) in locks.into_iter().zip(outcomes) {
        match outcome {
            Ok(outcome) => {
                lock.squads.insert(entry.name.to_string(), locked);
                report.outcomes.push(outcome);
            }
            Err(failure) => {
                // What was locked before stays locked.
                if let Some(previous) = files.lock.squads.get(&entry.name.to_string()) {
                    lock.squads.insert(entry.name.to_string(), previous.clone());
                }
                report.failures.push(failure);
            }
        }
    }
    crate::env::failpoint("sync-installed");
    if report.failures.is_empty() {
        let on_wait = on_wait
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (undeclared, warnings) =
            remove_undeclared(project, settings, &files, request.keep_undeclared, on_wait);
        report.undeclared = undeclared;
        report.warnings.extend(warnings);
    }
    let declared = files.declared.names();
    report.dropped = files
        .lock
        .squads
        .keys()
        .filter(|name| !lock.squads.contains_key(*name))
        .filter(|name| Name::parse(name).is_ok_and(|name| !declared.contains(&name)))
        .cloned()
        .collect();
    // Under --locked the lock agrees already; nothing is written, not even a missing empty lock.
    if !locked_only
        && (lock != files.lock || files.lock_text.is_none() || files.lock_merge.is_some())
    {
        project.write_lock(&lock)?;
        report.lock_written = true;
    }
    Ok(report)
}

/// Whether a squad's local source (a folder or an archive) still holds the bytes locked; a
/// remote source's bytes are fixed by their digests.
fn local_unchanged(
    project: &Project,
    sources: &super::sources::Sources,
    declaration: &Declaration,
    locked: &Locked,
) -> bool {
    use crate::acquire::Source;
    let local = project.local();
    match &declaration.source {
        Source::Folder(path) => local.resolve(path).is_ok_and(|folder| {
            crate::install::directory_digest(&folder)
                .is_ok_and(|digest| digest == locked.package_digest)
        }),
        Source::Archive(path) => local.resolve(path).is_ok_and(|archive| {
            sources
                .sha256(&archive)
                .is_ok_and(|sha| Some(sha) == locked.archive_sha256)
        }),
        _ => true,
    }
}

/// Resolves or fetches every squad that needs it, on `settings.jobs` threads.
fn prepare(
    (project, sources): (&Project, &super::sources::Sources),
    settings: &Settings<'_>,
    (policy, escalation, audit, lock, locked_only, index, cooldown): (
        &crate::sign::Policy,
        Escalation,
        &super::declared::AuditPolicy,
        &Lock,
        bool,
        Option<&super::declared::IndexConfig>,
        Option<&super::cooldown::Cooldown<'_>>,
    ),
    entries: &[Entry],
    steps: &[Step],
    (installed, vouched_versions): (&[Installed], &[Option<String>]),
) -> Vec<Result<Ready, Failure>> {
    if steps.iter().any(|step| !matches!(step, Step::Done(_))) {
        crate::audit::prepare();
    }
    let downloads = Downloads::new(settings.transfers);
    let tasks: Vec<Task<'_, Result<Ready, Failure>>> = entries
        .iter()
        .zip(steps)
        .zip(installed.iter().zip(vouched_versions))
        .map(|((entry, step), (installed, vouched_version))| {
            let downloads = &downloads;
            Box::new(move || {
                let job = downloads.job();
                let label = entry.name.to_string();
                let declaration = &entry.declaration;
                match step {
                    // Installed as locked: vouched for again over the installed digest (the
                    // policy may have changed; the lock's `signed_by` is only a record). A local
                    // source is checked still to hold the locked bytes.
                    Step::Done(locked)
                        if local_unchanged(project, sources, declaration, locked) =>
                    {
                        pinned_identity(
                            project,
                            settings,
                            (&entry.name, vouched_version.as_deref()),
                            locked,
                        )?;
                        let mut locked = locked.clone();
                        if escalation.deny {
                            let total = installed_grants(project, settings, &entry.name)?;
                            locked.capabilities = escalation::hold(
                                escalation,
                                &entry.name,
                                &locked,
                                &total,
                                locked_only,
                            )?;
                        }
                        if policy.applies() {
                            locked.signed_by = resolve::Acquirer {
                                project,
                                settings,
                                policy,
                                installs: false,
                            }
                            .vouch(
                                &entry.name,
                                &resolve::as_locked(declaration, &locked),
                                &locked,
                            )?;
                        }
                        Ok(Ready {
                            locked,
                            acquired: None,
                        })
                    }
                    Step::Done(locked) | Step::Fetch(locked) => {
                        let pins = resolve::pins(&entry.name, locked);
                        let acquired = resolve::Acquirer {
                            project,
                            settings,
                            policy,
                            // A squad installed as locked is read again, not installed.
                            installs: matches!(step, Step::Fetch(_)),
                        }
                        .acquire(
                            &job,
                            &label,
                            &resolve::as_locked(declaration, locked),
                            &pins,
                            false,
                        )?;
                        let mut locked = locked.clone();
                        if policy.applies() {
                            locked.signed_by = acquired.signed_by.map(|id| id.to_string());
                        }
                        let capabilities = escalation::capabilities(&entry.name, &acquired)?;
                        super::findings::judge(audit, &entry.name, &acquired, &capabilities)?;
                        let total = capabilities.total;
                        locked.capabilities = escalation::hold(
                            escalation,
                            &entry.name,
                            &locked,
                            &total,
                            locked_only,
                        )?;
                        Ok(Ready {
                            locked,
                            acquired: Some(Box::new(acquired)),
                        })
                    }
                    Step::Resolve => {
                        // A squad of the project's index: the source and pins it gives; a
                        // registry squad without a version under a cooldown: the newest old
                        // enough (PRJ-14).
                        let (concrete, pins, held_back) = match &declaration.source {
                            crate::acquire::Source::Index => super::by_index::resolve_declared(
                                index,
                                settings,
                                &entry.name,
                                declaration.version.as_deref(),
                                cooldown,
                            )?,
                            _ => super::cooldown::registry_unnamed(
                                cooldown,
                                settings,
                                index,
                                &label,
                                declaration,
                                false,
                            )?
                            .unwrap_or_else(|| {
                                (
                                    declaration.clone(),
                                    resolve::declared_pins(declaration),
                                    Vec::new(),
                                )
                            }),
                        };
                        let mut acquired = resolve::Acquirer {
                            project,
                            settings,
                            policy,
                            installs: true,
                        }
                        .acquire(&job, &label, &concrete, &pins, false)?;
                        if let Some(cooldown) = cooldown.filter(|_| !held_back.is_empty()) {
                            // Said with sync's warnings, which name the squad.
                            acquired.warnings.push(super::cooldown::note(
                                &held_back,
                                &acquired.identity().version,
                                cooldown,
                            ));
                        }
                        resolve::check_name(
                            &entry.name,
                            acquired.identity(),
                            &declaration.source_text,
                        )?;
                        let needed = installed.digest() != Some(acquired.package_digest());
                        let mut locked = resolve::locked(declaration, &acquired);
                        let capabilities = escalation::capabilities(&entry.name, &acquired)?;
                        super::findings::judge(audit, &entry.name, &acquired, &capabilities)?;
                        let total = capabilities.total;
                        locked.capabilities = escalation::judge(
                            escalation,
                            &entry.name,
                            &locked.version,
                            lock.squads.get(&label),
                            &total,
                        )?;
                        Ok(Ready {
                            locked,
                            acquired: needed.then(|| Box::new(acquired)),
                        })
                    }
                }
            }) as Task<'_, Result<Ready, Failure>>
        })
        .collect();
    let results = run_jobs(settings.jobs, tasks);
    downloads.end();
    results
}
