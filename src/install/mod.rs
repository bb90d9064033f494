//! Installing packages into a project or the global scope, at the reference's locations and
//! with its transaction (INS-1…INS-14, security-cases §2.5): validate, lock the id, recover an
//! interrupted replacement, check uniqueness and the digest CAS, copy into a same-filesystem
//! staging directory, re-digest it, sync it, and publish it with a no-replace rename. A
//! replacement first writes a durable journal and moves the old package aside, so a crash at any
//! point leaves either the old or the new package in place, never a mix.
//!
//! Project directories are registered as `squad` works in them, and a global install is refused
//! when a registered project has the id installed (GLB-3, GLB-4). Not yet here: exact-revision
//! expectations for archives, and receipts for `verify`.

pub mod activate;
pub mod journal;
pub mod lock;
pub mod projects;
pub mod receipts;
pub mod scope;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::archive::reader::{ArchiveError, Limits, read_package_file};
use crate::digest::{Sha256Digest, TreeDigest, digest_folder};
use crate::manifest::BUILTIN_PACKAGE_IDS;
use crate::package::{Identity, Report};

use journal::Journal;
use lock::{IdLock, LockError};
use scope::{Locations, Scope};

/// What an install did (RCP-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    Installed,
    Unchanged,
    Replaced,
}

#[derive(Debug, Clone)]
pub struct Receipt {
    pub operation: Operation,
    /// Things worth saying that did not stop the install.
    pub warnings: Vec<String>,
    pub identity: Identity,
    pub before: Option<Sha256Digest>,
    pub after: Sha256Digest,
    pub target: PathBuf,
}

/// Why an install was refused or failed. Nothing was changed in the scope in any case.
#[derive(Debug)]
pub enum InstallError {
    Invalid(Box<Report>),
    Archive(ArchiveError),
    BuiltinId(String),
    /// CAS-1, CAS-2, CAS-4: the installed digest is not the expected one.
    Conflict {
        id: String,
        scope: &'static str,
        expected: Option<Sha256Digest>,
        actual: Option<Sha256Digest>,
    },
    /// UNQ-1: the id is installed under another namespace in this scope.
    Duplicate {
        id: String,
        existing: PathBuf,
    },
    /// INS-6: the package installed at the target cannot be loaded, so it is never replaced.
    InvalidExisting {
        target: PathBuf,
        problem: String,
    },
    /// UNQ-1's strict listing: the packages root holds entries the runtime cannot list.
    MalformedScope {
        root: PathBuf,
        problems: Vec<String>,
    },
    /// The scope holds a folder whose name differs from the target's only by case: on a
    /// case-insensitive file system it is the same folder (security-cases #38).
    CaseCollision {
        target: String,
        existing: PathBuf,
    },
    NotInstalled(String),
    /// ZIP-8: the package is not the exact revision the caller expected.
    Mismatch {
        /// `namespace/id version` of the package that was read.
        package: String,
        what: &'static str,
        expected: String,
        actual: String,
    },
    /// GLB-3: a registered project has this id installed.
    ProjectHasId {
        project: PathBuf,
        installed: Box<Installed>,
    },
    Lock(LockError),
    Recovery(String),
    Io(PathBuf, std::io::Error),
}

impl std::fmt::Display for InstallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digest =
            |digest: &Option<Sha256Digest>| digest.map_or("absent".to_owned(), |d| d.hex());
        match self {
            InstallError::Invalid(_) => {
                f.write_str("the package is invalid; nothing was installed")
            }
            InstallError::Archive(error) => write!(f, "the archive was refused: {error}"),
            InstallError::BuiltinId(id) => write!(
                f,
                "expert squad package id `{id}` collides with a built-in expert squad id"
            ),
            InstallError::Conflict {
                id,
                scope,
                expected,
                actual,
            } => write!(
                f,
                "expert squad {id} {scope} installation digest is {}, expected {}",
                digest(actual),
                digest(expected)
            ),
            InstallError::Duplicate { id, existing } => write!(
                f,
                "expert squad package id `{id}` already exists at `{}`; the id is unique across namespaces",
                existing.display()
            ),
            InstallError::InvalidExisting { target, problem } => write!(
                f,
                "the package installed at `{}` cannot be loaded ({problem}); squad neither replaces nor removes an invalid install (INS-6, UNI-1): repair or remove it by hand",
                target.display()
            ),
            InstallError::MalformedScope { root, problems } => write!(
                f,
                "the packages root `{}` holds entries the runtime cannot list (UNQ-1, LOC-3): {}",
                root.display(),
                problems.join("; ")
            ),
            InstallError::CaseCollision { target, existing } => write!(
                f,
                "`{}` differs from `{target}` only by case; on a case-insensitive file system it is the same folder, so the install is refused rather than merged",
                existing.display()
            ),
            InstallError::NotInstalled(id) => write!(f, "`{id}` is not installed in this scope"),
            InstallError::Mismatch {
                package,
                what,
                expected,
                actual,
            } => {
                write!(
                    f,
                    "expert squad update {what} mismatch for {package}: expected {expected}, received {actual} (ZIP-8); nothing was installed"
                )
            }
            InstallError::ProjectHasId { project, installed } => write!(
                f,
                "project `{}` has `{}/{}` {} ({}) installed; a global install of the same id is refused",
                project.display(),
                installed.namespace,
                installed.id,
                installed.version.as_deref().unwrap_or("(no version)"),
                installed.package_digest.as_deref().unwrap_or("unreadable")
            ),
            InstallError::Lock(error) => error.fmt(f),
            InstallError::Recovery(message) => f.write_str(message),
            InstallError::Io(path, error) => write!(f, "`{}`: {error}", path.display()),
        }
    }
}

impl std::error::Error for InstallError {}

/// Where and how to install.
#[derive(Debug, Clone)]
pub struct Options {
    pub scope: Scope,
    pub opencorvus_root: PathBuf,
    /// `--expect`: the digest of the installed package a replacement must match.
    pub expect: Option<Sha256Digest>,
    pub lock_timeout: Option<Duration>,
    /// ZIP-8: the exact revision the source must be (each checked when given).
    pub exact: Exact,
    /// Recorded in the receipt: the registry reference the package came from.
    pub origin: Option<receipts::Origin>,
}

/// `--expect-namespace`, `--expect-id`, `--expect-version`, `--expect-digest`.
#[derive(Debug, Clone, Default)]
pub struct Exact {
    pub namespace: Option<String>,
    pub id: Option<String>,
    pub version: Option<String>,
    pub digest: Option<Sha256Digest>,
}

impl Exact {
    /// Compares in the reference's order: namespace, id, version, digest.
    fn check(&self, identity: &Identity, digest: Sha256Digest) -> Result<(), InstallError> {
        let checks = [
            (
                "namespace",
                self.namespace.clone(),
                identity.namespace.clone(),
            ),
            ("identity", self.id.clone(), identity.id.clone()),
            ("version", self.version.clone(), identity.version.clone()),
            ("package digest", self.digest.map(|d| d.hex()), digest.hex()),
        ];
        for (what, expected, actual) in checks {
            if let Some(expected) = expected {
                if expected != actual {
                    return Err(InstallError::Mismatch {
                        package: format!(
                            "{}/{} {}",
                            identity.namespace, identity.id, identity.version
                        ),
                        what,
                        expected,
                        actual,
                    });
                }
            }
        }
        Ok(())
    }
}

impl Options {
    fn locations(&self) -> Locations {
        Locations::new(&self.scope, &self.opencorvus_root)
    }

    fn scope_name(&self) -> &'static str {
        match self.scope {
            Scope::Project(_) => "project",
            Scope::Global => "global",
        }
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> InstallError + '_ {
    move |error| InstallError::Io(path.to_path_buf(), error)
}

/// The raw package digest of an installed directory (DG-1: the root `.opencorvus-meta.json` is
/// left out); errors when the tree breaks the contract (links, special files).
pub fn directory_digest(root: &Path) -> Result<Sha256Digest, String> {
    directory_tree(root, false).map(|tree| tree.package_digest)
}

/// [`directory_digest`], with every file's record when `with_files`.
fn directory_tree(root: &Path, with_files: bool) -> Result<TreeDigest, String> {
    crate::package::contract_digest(root, false, with_files, &Default::default())
        .map_err(|error| error.to_string())
}

/// A test hook: `SQUAD_FAILPOINT=<phase>` stops the process at that phase (it says so on
/// stderr and waits to be killed), so crash tests can interrupt an install anywhere.
fn failpoint(phase: &str) {
    if std::env::var("SQUAD_FAILPOINT").is_ok_and(|wanted| wanted == phase) {
        #[allow(clippy::print_stderr)]
        {
            eprintln!("failpoint {phase}");
        }
        std::thread::sleep(Duration::from_secs(120));
    }
}

/// A random UUID v4 string for scratch names and journals.
fn uuid() -> String {
    let mut seed = Vec::new();
    seed.extend_from_slice(&std::process::id().to_le_bytes());
    seed.extend_from_slice(&format!("{:?}", std::time::SystemTime::now()).into_bytes());
    seed.extend_from_slice(&format!("{:?}", std::thread::current().id()).into_bytes());
    let address = &seed as *const Vec<u8> as usize;
    seed.extend_from_slice(&address.to_le_bytes());
    let mut bytes = Sha256Digest::of(&seed).0;
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex = Sha256Digest(bytes).hex();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// Installs the package folder `source`.
pub fn install_folder(
    source: &Path,
    options: &Options,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Receipt, InstallError> {
    let report = crate::package::validate(source).map_err(|error| {
        InstallError::Io(
            source.to_path_buf(),
            std::io::Error::other(error.to_string()),
        )
    })?;
    if !report.is_valid() {
        return Err(InstallError::Invalid(Box::new(report)));
    }
    let Some(identity) = report.identity.clone() else {
        return Err(InstallError::Invalid(Box::new(report)));
    };
    if BUILTIN_PACKAGE_IDS.contains(&identity.id.as_str()) {
        return Err(InstallError::BuiltinId(identity.id));
    }
    let files: Vec<String> = report
        .tree
        .files()
        .map(|entry| entry.path.clone())
        .collect();
    let digest = digest_folder(source, &files, false)
        .map_err(|error| {
            InstallError::Io(error.path.clone(), std::io::Error::other(error.message))
        })?
        .package_digest;
    options.exact.check(&identity, digest)?;
    publish(source, &files, &identity, digest, options, on_wait)
}

/// Installs the package archive `archive` (ZIP-1…ZIP-10): checked in memory, extracted into a
/// private directory under `<R>/tmp`, installed from there, and the directory removed.
pub fn install_archive(
    archive: &Path,
    options: &Options,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Receipt, InstallError> {
    // An archive that cannot be opened is an I/O failure (exit 2), not a refused archive.
    std::fs::File::open(archive).map_err(io(archive))?;
    let package = read_package_file(archive, &Limits::REFERENCE).map_err(InstallError::Archive)?;
    let temporary_root = options.locations().temporary;
    std::fs::create_dir_all(&temporary_root).map_err(io(&temporary_root))?;
    remove_stale_extractions(&temporary_root);
    let extracted =
        temporary_root.join(format!("{ARCHIVE_PREFIX}{}-{}", std::process::id(), uuid()));
    std::fs::create_dir(&extracted).map_err(io(&extracted))?;
    let result = (|| {
        for (path, bytes) in &package.files {
            let target = extracted.join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            crate::fs::write_new_synced(&target, bytes).map_err(io(&target))?;
        }
        install_folder(&extracted, options, on_wait)
    })();
    let _ = std::fs::remove_dir_all(&extracted);
    // Diagnostics name the archive, not the private directory it was checked in.
    result.map_err(|error| match error {
        InstallError::Invalid(mut report) => {
            report.root = archive.to_path_buf();
            InstallError::Invalid(report)
        }
        other => other,
    })
}

/// squad's own prefix for archive extractions under `<R>/tmp`, followed by the process id: the
/// reference's `expert-squad-archive-*` directories are never touched (security-cases §2.6).
const ARCHIVE_PREFIX: &str = "squad-archive-";

/// Removes the extraction directories of squad processes that no longer run (a crash or a
/// kill during an archive install).
fn remove_stale_extractions(temporary_root: &Path) {
    let Ok(entries) = std::fs::read_dir(temporary_root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(ARCHIVE_PREFIX)
            .and_then(|rest| rest.split_once('-'))
            .filter(|(_, operation)| journal::is_uuid(operation))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !process_is_running(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(unix)]
fn process_is_running(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    // EPERM means it exists under another user.
    !matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

#[cfg(not(unix))]
fn process_is_running(_pid: u32) -> bool {
    true
}

fn publish(
    source: &Path,
    files: &[String],
    identity: &Identity,
    digest: Sha256Digest,
    options: &Options,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Receipt, InstallError> {
    let locations = options.locations();
    let target = locations.target(&identity.namespace, &identity.id);
    let lock = IdLock::acquire(
        &locations.locks,
        &identity.id,
        options.lock_timeout,
        on_wait,
    )
    .map_err(InstallError::Lock)?;
    failpoint("locked");
    recover(&locations, &identity.id)?;
    check_unique(&locations, identity)?;
    let mut overrides = Vec::new();
    match &options.scope {
        Scope::Global => overrides = check_projects(options, identity)?,
        Scope::Project(project) => {
            if projects::register(&options.opencorvus_root, project).unwrap_or(false) {
                overrides = overrides_of(options, project);
            }
        }
    }
    // Never write through a link: not at the packages root, the namespace directory or the
    // target (security-cases #36).
    for directory in [
        &locations.packages_root,
        &target.parent().unwrap_or(&target).to_path_buf(),
    ] {
        if matches!(
            crate::fs::real_directory(directory),
            Ok(crate::fs::RealDirectory::Refused)
        ) {
            return Err(InstallError::Io(
                directory.to_path_buf(),
                std::io::Error::other(
                    "is a link or not a directory; refusing to install through it",
                ),
            ));
        }
    }
    let (before, installed_version) = match crate::fs::real_directory(&target) {
        Ok(crate::fs::RealDirectory::Absent) => (None, None),
        Err(error) => return Err(InstallError::Io(target.clone(), error)),
        Ok(crate::fs::RealDirectory::Refused) => {
            return Err(InstallError::Io(
                target.clone(),
                std::io::Error::other(
                    "the installed package path is not a directory (a link or a file)",
                ),
            ));
        }
        Ok(crate::fs::RealDirectory::Present(_)) => {
            let invalid = |problem: String| InstallError::InvalidExisting {
                target: target.clone(),
                problem,
            };
            // check_unique's strict listing already refuses such a target; this stays for
            // what that walk cannot see (a packages root it could not list), and the same
            // read gives the installed version.
            let manifest = read_manifest(&target, &identity.namespace, &identity.id);
            if let Some(problem) = manifest.problem {
                return Err(invalid(problem));
            }
            (
                Some(directory_digest(&target).map_err(invalid)?),
                manifest.version,
            )
        }
    };
    // CAS-1 … CAS-5, in the reference's order.
    let conflict = |actual| InstallError::Conflict {
        id: identity.id.clone(),
        scope: options.scope_name(),
        expected: options.expect,
        actual,
    };
    match (before, options.expect) {
        (Some(actual), Some(expected)) if actual != expected => return Err(conflict(Some(actual))),
        (None, Some(_)) => return Err(conflict(None)),
        (Some(actual), _) if actual == digest => {
            return Ok(Receipt {
                operation: Operation::Unchanged,
                warnings: Vec::new(),
                identity: identity.clone(),
                before,
                after: digest,
                target,
            });
        }
        (Some(actual), None) => return Err(conflict(Some(actual))),
        _ => {}
    }
    std::fs::create_dir_all(&locations.scratch).map_err(io(&locations.scratch))?;
    std::fs::create_dir_all(&locations.packages_root).map_err(io(&locations.packages_root))?;
    check_scratch(&locations)?;
    let operation_id = uuid();
    let name = |kind: &str| {
        journal::scratch_path(
            &locations.scratch,
            kind,
            &identity.namespace,
            &identity.id,
            &operation_id,
        )
    };
    let (staging, backup, discard) = (name("staging"), name("replace"), name("discard"));
    let result = stage(source, files, &staging, digest).and_then(|()| {
        failpoint("staged");
        commit(
            &locations,
            identity,
            &target,
            &staging,
            &backup,
            &discard,
            before,
            digest,
            options,
            &operation_id,
            &lock,
        )
    });
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    let (operation, installed) = result?;
    drop(lock);
    // The receipt lets `verify` name changed files later; the tree is the truth if this fails.
    let mut warnings = overrides;
    if let Err(problem) = receipts::write(
        &options.opencorvus_root,
        &target,
        &installed,
        options.origin.as_ref(),
    ) {
        warnings.push(format!(
            "installed, but the receipt for `squad verify` was not written: {problem}"
        ));
    }
    if operation == Operation::Replaced
        && installed_version.as_deref() == Some(identity.version.as_str())
    {
        warnings.push(format!(
            "the package changed but its version `{}` did not; run `squad version bump` before publishing (a published version is immutable)",
            identity.version
        ));
    }
    Ok(Receipt {
        operation,
        warnings,
        identity: identity.clone(),
        before,
        after: digest,
        target,
    })
}

/// Copies the files into a new staging directory, syncs them, and checks the staged digest.
fn stage(
    source: &Path,
    files: &[String],
    staging: &Path,
    digest: Sha256Digest,
) -> Result<(), InstallError> {
    std::fs::create_dir(staging).map_err(io(staging))?;
    let mut directories = std::collections::BTreeSet::new();
    for file in files {
        let from = source.join(file);
        let to = staging.join(file);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
            directories.insert(parent.to_path_buf());
        }
        let bytes = std::fs::read(&from).map_err(io(&from))?;
        crate::fs::write_new_synced(&to, &bytes).map_err(io(&to))?;
    }
    for directory in directories.iter().rev() {
        crate::fs::sync_directory(directory);
    }
    crate::fs::sync_directory(staging);
    let staged = directory_digest(staging).map_err(InstallError::Recovery)?;
    if staged != digest {
        return Err(InstallError::Recovery(
            "package bytes changed during import".to_owned(),
        ));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn commit(
    locations: &Locations,
    identity: &Identity,
    target: &Path,
    staging: &Path,
    backup: &Path,
    discard: &Path,
    before: Option<Sha256Digest>,
    after: Sha256Digest,
    options: &Options,
    operation_id: &str,
    lock: &IdLock,
) -> Result<(Operation, TreeDigest), InstallError> {
    let journal_path = journal::journal_path(&locations.scratch, &identity.id);
    if let Some(before) = before {
        let entry = Journal {
            protocol: journal::PROTOCOL.to_owned(),
            operation_id: operation_id.to_owned(),
            target: target.to_path_buf(),
            staging: staging.to_path_buf(),
            backup: backup.to_path_buf(),
            discard: discard.to_path_buf(),
            installation_scope: options.scope_name().to_owned(),
            project_directory: match &options.scope {
                Scope::Project(project) => Some(project.clone()),
                Scope::Global => None,
            },
            namespace: identity.namespace.clone(),
            id: identity.id.clone(),
            before_package_digest: before.hex(),
            after_package_digest: after.hex(),
        };
        journal::write(&journal_path, &entry).map_err(io(&journal_path))?;
        failpoint("journal-written");
        let moved = lock
            .check()
            .map_err(InstallError::Lock)
            .and_then(|()| std::fs::rename(target, backup).map_err(io(target)));
        if let Err(error) = moved {
            let _ = journal::reconcile(locations, &identity.id);
            return Err(error);
        }
        crate::fs::sync_directory(&locations.scratch);
        failpoint("old-moved");
    }
    let namespace_dir = target
        .parent()
        .unwrap_or(&locations.packages_root)
        .to_path_buf();
    let published = std::fs::create_dir_all(&namespace_dir)
        .map_err(io(&namespace_dir))
        .and_then(|()| lock.check().map_err(InstallError::Lock))
        .and_then(|()| crate::fs::rename_no_replace(staging, target).map_err(io(target)));
    if let Err(error) = published {
        if before.is_some() {
            journal::reconcile(locations, &identity.id).map_err(InstallError::Recovery)?;
        }
        return Err(error);
    }
    crate::fs::sync_directory(&namespace_dir);
    crate::fs::sync_directory(&locations.packages_root);
    failpoint("new-in-place");
    // Digested once with every file's record: the check here, the receipt afterwards.
    let installed = directory_tree(target, true).map_err(InstallError::Recovery)?;
    if installed.package_digest != after {
        if before.is_some() {
            journal::reconcile(locations, &identity.id).map_err(InstallError::Recovery)?;
        }
        return Err(InstallError::Recovery(
            "the installed package does not have the staged digest".to_owned(),
        ));
    }
    if before.is_some() {
        std::fs::remove_dir_all(backup).map_err(io(backup))?;
        crate::fs::sync_directory(&locations.scratch);
        failpoint("backup-removed");
        std::fs::remove_file(&journal_path).map_err(io(&journal_path))?;
        crate::fs::sync_directory(&locations.scratch);
        return Ok((Operation::Replaced, installed));
    }
    Ok((Operation::Installed, installed))
}

/// Recovers an interrupted replacement of `id` (JNL-1) and removes leftovers of this id, with
/// its lock held (security-cases §2.6 "Leftovers").
fn recover(locations: &Locations, id: &str) -> Result<(), InstallError> {
    let journal_path = journal::journal_path(&locations.scratch, id);
    if journal_path.exists() {
        journal::reconcile(locations, id).map_err(InstallError::Recovery)?;
    }
    let Ok(entries) = std::fs::read_dir(&locations.scratch) else {
        return Ok(());
    };
    let journal_name = format!(".package-replacement-{id}.json.");
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        // A journal's temporary file: the replacement never started.
        if name
            .strip_prefix(&journal_name)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .is_some_and(journal::is_uuid)
        {
            let _ = std::fs::remove_file(entry.path());
            continue;
        }
        let Some((kind, owners)) = scratch_owners(&name) else {
            continue;
        };
        let Some((namespace, _)) = owners.iter().find(|(_, owner)| owner == id) else {
            continue;
        };
        // A backup no journal names is the old revision: it goes only when the package it
        // was taken from is installed.
        if kind == "replace" && !locations.target(namespace, id).is_dir() {
            continue;
        }
        // The same name may belong to another (namespace, id) pair, protected by another
        // lock: remove it only if every such lock can be taken now, without waiting.
        let mut others = Vec::new();
        let mut free = true;
        for (_, other) in owners.iter().filter(|(_, owner)| owner != id) {
            match IdLock::acquire(&locations.locks, other, Some(Duration::ZERO), &mut |_| {}) {
                Ok(lock) => others.push(lock),
                Err(_) => {
                    free = false;
                    break;
                }
            }
        }
        if free {
            let _ = std::fs::remove_dir_all(entry.path());
        }
        drop(others);
    }
    Ok(())
}

/// The kind (`staging`, `replace`, `discard`) of a scratch entry named
/// `.<kind>-<namespace>-<id>-<uuid>`, and every (namespace, id) pair that produces that name:
/// with `-` inside ids, `acme` + `foo-bar` and `acme-foo` + `bar` give the same name.
fn scratch_owners(name: &str) -> Option<(&'static str, Vec<(String, String)>)> {
    let (kind, rest) = ["staging", "replace", "discard"]
        .into_iter()
        .find_map(|kind| {
            name.strip_prefix(&format!(".{kind}-"))
                .map(|rest| (kind, rest))
        })?;
    let split = rest.len().checked_sub(37)?;
    let (pair, operation) = (rest.get(..split)?, rest.get(split..)?);
    let operation = operation.strip_prefix('-')?;
    if !journal::is_uuid(operation) {
        return None;
    }
    let valid =
        |text: &str| crate::manifest::id_problem(text, crate::manifest::IdKind::Plain).is_none();
    let owners: Vec<(String, String)> = pair
        .match_indices('-')
        .map(|(index, _)| (&pair[..index], &pair[index + 1..]))
        .filter(|(namespace, id)| valid(namespace) && valid(id))
        .map(|(namespace, id)| (namespace.to_owned(), id.to_owned()))
        .collect();
    (!owners.is_empty()).then_some((kind, owners))
}

/// Reconciles every replacement journal of a scope (JNL-4, as the reference does when it lists
/// a scope) and removes the staging and discard directories crashed runs left, each under its
/// id lock. Returns what could not be recovered.
pub fn recover_scope(locations: &Locations, lock_timeout: Option<Duration>) -> Vec<String> {
    let mut problems = Vec::new();
    let Ok(entries) = std::fs::read_dir(&locations.scratch) else {
        return problems;
    };
    // Ids with a journal to reconcile or a staging or discard directory to remove.
    let mut ids: Vec<String> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_prefix(".package-replacement-")
                .and_then(|rest| rest.strip_suffix(".json"))
                .map(str::to_owned)
                .map(|id| vec![id])
                .or_else(|| {
                    scratch_owners(&name)
                        .map(|(_, owners)| owners.into_iter().map(|(_, id)| id).collect())
                })
        })
        .flatten()
        .collect();
    ids.sort();
    ids.dedup();
    for id in ids {
        match IdLock::acquire(&locations.locks, &id, lock_timeout, &mut |_| {}) {
            Ok(lock) => {
                if let Err(problem) = recover(locations, &id) {
                    problems.push(format!("{id}: {problem}"));
                }
                drop(lock);
            }
            Err(error) => problems.push(format!("{id}: {error}")),
        }
    }
    problems
}

/// GLB-3: a global install of an id that a registered project has installed is refused (the
/// project's copy would shadow it there). Projects that no longer exist are skipped.
/// Returns a warning for each registered project that no longer exists; one that exists but
/// cannot be listed strictly fails the install, as UNQ-1 does for the target scope.
fn check_projects(options: &Options, identity: &Identity) -> Result<Vec<String>, InstallError> {
    let mut warnings = Vec::new();
    for project in projects::registered(&options.opencorvus_root) {
        if !project.is_dir() {
            warnings.push(format!(
                "registered project `{}` no longer exists; it was not checked (`squad projects` lists them)",
                project.display()
            ));
            continue;
        }
        let locations = Locations::new(&Scope::Project(project.clone()), &options.opencorvus_root);
        let scan = scan(&locations, true);
        if !scan.problems.is_empty() {
            return Err(InstallError::MalformedScope {
                root: locations.packages_root,
                problems: scan.problems,
            });
        }
        if let Some(installed) = scan
            .installed
            .into_iter()
            .find(|installed| installed.id == identity.id)
        {
            return Err(InstallError::ProjectHasId {
                project,
                installed: Box::new(installed.described()),
            });
        }
    }
    Ok(warnings)
}

/// DSC-3 `project_overrides_global`: when a project is first registered, the ids it has
/// installed that the global scope also has (the project's copy wins there).
fn overrides_of(options: &Options, project: &Path) -> Vec<String> {
    let global = identities(&Locations::new(&Scope::Global, &options.opencorvus_root));
    identities(&Locations::new(&Scope::Project(project.to_path_buf()), &options.opencorvus_root))
        .into_iter()
        .filter_map(|local| {
            let g = global.iter().find(|g| g.id == local.id)?.clone().inspected();
            let local = local.inspected();
            Some(format!(
                "project_overrides_global: `{}` in this project ({}/{} {}) overrides the global {}/{} {}",
                local.id,
                local.namespace,
                local.id,
                local.version.as_deref().unwrap_or("-"),
                g.namespace,
                g.id,
                g.version.as_deref().unwrap_or("-")
            ))
        })
        .collect()
}

/// Staging happens in the scratch directory and ends with a rename into the packages root: the
/// scratch must be a real directory (never staged through a link, security-cases #36) on the
/// same file system, or the rename would fail after the copy (EXDEV).
fn check_scratch(locations: &Locations) -> Result<(), InstallError> {
    let refuse = |message: &str| {
        Err(InstallError::Io(
            locations.scratch.clone(),
            std::io::Error::other(message.to_owned()),
        ))
    };
    let metadata = match crate::fs::real_directory(&locations.scratch) {
        Ok(crate::fs::RealDirectory::Present(metadata)) => metadata,
        Ok(crate::fs::RealDirectory::Refused) => {
            return refuse(
                "the scratch directory is a link or not a directory; refusing to stage through it",
            );
        }
        // It was created just before; gone again means someone else removed it.
        Ok(crate::fs::RealDirectory::Absent) => {
            return Err(InstallError::Io(
                locations.scratch.clone(),
                std::io::ErrorKind::NotFound.into(),
            ));
        }
        Err(error) => return Err(InstallError::Io(locations.scratch.clone(), error)),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let root =
            std::fs::metadata(&locations.packages_root).map_err(io(&locations.packages_root))?;
        if root.dev() != metadata.dev() {
            return refuse(&format!(
                "the scratch directory is on another file system than `{}`, so the final rename could not be atomic (EXDEV)",
                locations.packages_root.display()
            ));
        }
    }
    Ok(())
}

/// UNQ-1: one id per scope, whatever the namespace.
fn check_unique(locations: &Locations, identity: &Identity) -> Result<(), InstallError> {
    let scan = scan(locations, true);
    for installed in scan.installed {
        let same_but_case = installed.id.eq_ignore_ascii_case(&identity.id)
            && installed
                .namespace
                .eq_ignore_ascii_case(&identity.namespace);
        if same_but_case
            && (installed.id != identity.id || installed.namespace != identity.namespace)
        {
            return Err(InstallError::CaseCollision {
                target: format!("{}/{}", identity.namespace, identity.id),
                existing: installed.root,
            });
        }
        if installed.id == identity.id && installed.namespace != identity.namespace {
            return Err(InstallError::Duplicate {
                id: identity.id.clone(),
                existing: installed.root,
            });
        }
    }
    if !scan.problems.is_empty() {
        return Err(InstallError::MalformedScope {
            root: locations.packages_root.clone(),
            problems: scan.problems,
        });
    }
    Ok(())
}

/// An installed package as discovery sees it (DSC-1).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Installed {
    pub namespace: String,
    pub id: String,
    pub version: Option<String>,
    pub package_digest: Option<String>,
    pub root: PathBuf,
    /// Why the runtime will not load it, when discovery can tell (MAN-R4: the folder names
    /// must be the manifest's namespace and id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Every `<namespace>/<id>` directory of a scope, sorted, from the folder names alone (cheap:
/// nothing is read or hashed; see [`Installed::described`]).
pub fn identities(locations: &Locations) -> Vec<Installed> {
    scan(locations, false).installed
}

/// One walk of a scope's packages root.
#[derive(Default)]
struct Scan {
    /// Every `<namespace>/<id>` directory, sorted; fields past the folder names are not filled.
    installed: Vec<Installed>,
    /// When strict, why the runtime cannot list the scope, in walk order.
    problems: Vec<String>,
}

/// The package directories of a scope and, when `strict`, UNQ-1's strict listing (LOC-3):
/// every child of the packages root is a namespace directory and every grandchild a package
/// whose manifest names its folders. The reference cannot list a scope that breaks this, so
/// squad does not install into it. One walk serves both, so every manifest is read only once.
fn scan(locations: &Locations, strict: bool) -> Scan {
    let mut scan = Scan::default();
    let Ok(namespaces) = std::fs::read_dir(&locations.packages_root) else {
        return scan;
    };
    let valid =
        |name: &str| crate::manifest::id_problem(name, crate::manifest::IdKind::Package).is_none();
    for namespace in namespaces.flatten() {
        let name = namespace.file_name().to_string_lossy().into_owned();
        // Links are never followed: a linked namespace or package is not part of the scope.
        if !namespace.file_type().is_ok_and(|kind| kind.is_dir()) {
            if strict {
                scan.problems
                    .push(format!("`{name}` is not a namespace directory"));
            }
            continue;
        }
        if strict {
            if !valid(&name) {
                scan.problems
                    .push(format!("`{name}` is not a valid namespace"));
            }
            if namespace
                .path()
                .join(crate::manifest::MANIFEST_FILE)
                .exists()
            {
                scan.problems.push(format!(
                    "`{name}` holds expert-squad.jsonc: direct package roots are not supported; expected <namespace>/<id>"
                ));
            }
        }
        let Ok(ids) = std::fs::read_dir(namespace.path()) else {
            if strict {
                scan.problems.push(format!("`{name}` cannot be read"));
            }
            continue;
        };
        for id in ids.flatten() {
            let id_name = id.file_name().to_string_lossy().into_owned();
            let is_dir = id.file_type().is_ok_and(|kind| kind.is_dir());
            // A stray manifest beside the packages is reported once, for its namespace.
            if strict && id_name != crate::manifest::MANIFEST_FILE {
                if !is_dir {
                    scan.problems
                        .push(format!("`{name}/{id_name}` is not a package directory"));
                } else if let Some(problem) = folder_problem(&id.path(), &name, &id_name) {
                    scan.problems.push(format!("`{name}/{id_name}`: {problem}"));
                }
            }
            if is_dir {
                scan.installed.push(Installed {
                    namespace: name.clone(),
                    id: id_name,
                    version: None,
                    package_digest: None,
                    root: id.path(),
                    problem: None,
                });
            }
        }
    }
    scan.installed
        .sort_by(|a, b| (&a.namespace, &a.id).cmp(&(&b.namespace, &b.id)));
    scan
}

impl Installed {
    /// With the manifest's version and the package digest filled in.
    pub fn described(self) -> Installed {
        let mut described = self.inspected();
        described.package_digest = directory_digest(&described.root)
            .ok()
            .map(|digest| digest.hex());
        described
    }

    /// With the manifest's version and folder problem filled in; nothing is hashed.
    pub fn inspected(mut self) -> Installed {
        let manifest = read_manifest(&self.root, &self.namespace, &self.id);
        self.version = manifest.version;
        self.problem = manifest.problem;
        self
    }

    /// Why the runtime will not load this package (MAN-R4), if it will not.
    pub fn folder_problem(&self) -> Option<String> {
        folder_problem(&self.root, &self.namespace, &self.id)
    }
}

/// An installed manifest, read and parsed once.
struct InstalledManifest {
    version: Option<String>,
    /// MAN-R4: `<namespace>/<id>` folder names equal the manifest's namespace and id; `Some`
    /// says why the runtime will not load the package.
    problem: Option<String>,
}

fn read_manifest(root: &Path, folder_namespace: &str, folder_id: &str) -> InstalledManifest {
    let Ok(bytes) = std::fs::read(root.join(crate::manifest::MANIFEST_FILE)) else {
        return InstalledManifest {
            version: None,
            problem: Some("no readable expert-squad.jsonc".to_owned()),
        };
    };
    // The version is shown whatever the encoding, as before; the runtime reads manifests
    // strictly, so one that is not UTF-8 cannot be loaded.
    let (text, replaced) = crate::source::decode_lossy(&bytes);
    let declared = crate::manifest::declared(&text).unwrap_or_default();
    let problem = match (replaced, declared.namespace, declared.id) {
        (true, _, _) => Some("no readable expert-squad.jsonc".to_owned()),
        (false, Some(namespace), Some(id)) if namespace == folder_namespace && id == folder_id => {
            None
        }
        (false, Some(namespace), Some(id)) => Some(format!(
            "folder `{folder_namespace}/{folder_id}` is not the manifest's `{namespace}/{id}` (MAN-R4); the runtime will not load it"
        )),
        (false, _, _) => Some("the manifest has no valid namespace and id".to_owned()),
    };
    InstalledManifest {
        version: declared.version,
        problem,
    }
}

/// MAN-R4 for the package at `root`, see [`InstalledManifest::problem`].
fn folder_problem(root: &Path, folder_namespace: &str, folder_id: &str) -> Option<String> {
    read_manifest(root, folder_namespace, folder_id).problem
}

/// Every package of a scope with its version and digest, sorted.
pub fn list_scope(locations: &Locations) -> Vec<Installed> {
    identities(locations)
        .into_iter()
        .map(Installed::described)
        .collect()
}

/// Removes the installed package `id` from a scope (UNI-1): under the lock, it is renamed out
/// of the packages root first (so it disappears at once), then deleted.
pub fn uninstall(
    id: &str,
    options: &Options,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Installed, InstallError> {
    let locations = options.locations();
    if let Scope::Project(project) = &options.scope {
        let _ = projects::register(&options.opencorvus_root, project);
    }
    let lock = IdLock::acquire(&locations.locks, id, options.lock_timeout, on_wait)
        .map_err(InstallError::Lock)?;
    recover(&locations, id)?;
    let installed = identities(&locations)
        .into_iter()
        .find(|installed| installed.id == id)
        .ok_or_else(|| InstallError::NotInstalled(id.to_owned()))?;
    // UNI-1: the root is the canonical real directory and the package loads; a corrupt
    // package is not removed (the reference refuses too).
    if installed.root != locations.target(&installed.namespace, id) {
        return Err(InstallError::NotInstalled(id.to_owned()));
    }
    let invalid = |problem: String| InstallError::InvalidExisting {
        target: installed.root.clone(),
        problem,
    };
    if let Some(problem) = folder_problem(&installed.root, &installed.namespace, id) {
        return Err(invalid(problem));
    }
    directory_digest(&installed.root).map_err(invalid)?;
    std::fs::create_dir_all(&locations.scratch).map_err(io(&locations.scratch))?;
    check_scratch(&locations)?;
    let discard = journal::scratch_path(
        &locations.scratch,
        "discard",
        &installed.namespace,
        id,
        &uuid(),
    );
    lock.check().map_err(InstallError::Lock)?;
    let receipt = receipts::find(&options.opencorvus_root, &installed.root);
    std::fs::rename(&installed.root, &discard).map_err(io(&installed.root))?;
    if let Some(parent) = installed.root.parent() {
        crate::fs::sync_directory(parent);
        // An empty namespace directory is removed too; discovery does not need it.
        let _ = std::fs::remove_dir(parent);
    }
    std::fs::remove_dir_all(&discard).map_err(io(&discard))?;
    if let Some(receipt) = receipt {
        let _ = std::fs::remove_file(receipt);
    }
    drop(lock);
    Ok(installed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_manifest_is_read_once_for_its_version_and_folder_problem() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join(crate::manifest::MANIFEST_FILE);
        let read = || read_manifest(dir.path(), "acme", "pkg");
        assert_eq!(
            read().problem.as_deref(),
            Some("no readable expert-squad.jsonc")
        );
        std::fs::write(
            &manifest,
            r#"{"namespace": "acme", "id": "pkg", "version": "1.0.0"}"#,
        )
        .unwrap();
        assert_eq!(
            (read().version.as_deref(), read().problem),
            (Some("1.0.0"), None)
        );
        std::fs::write(&manifest, r#"{"namespace": "acme", "id": "other"}"#).unwrap();
        assert!(read().problem.unwrap().contains("`acme/other` (MAN-R4)"));
        std::fs::write(&manifest, r#"{"namespace": "acme"}"#).unwrap();
        assert_eq!(
            read().problem.as_deref(),
            Some("the manifest has no valid namespace and id")
        );
        // Not UTF-8: the version still shows, but the runtime cannot read it.
        let mut bytes =
            br#"{"namespace": "acme", "id": "pkg", "version": "2.0.0", "x": ""#.to_vec();
        bytes.extend_from_slice(b"\xff\"}");
        std::fs::write(&manifest, bytes).unwrap();
        assert_eq!(read().version.as_deref(), Some("2.0.0"));
        assert_eq!(
            read().problem.as_deref(),
            Some("no readable expert-squad.jsonc")
        );
    }

    #[test]
    fn scratch_names_are_the_reference_s_and_their_owners_are_every_split() {
        let operation = uuid();
        let path = journal::scratch_path(Path::new("/s"), "staging", "acme", "foo-bar", &operation);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name, format!(".staging-acme-foo-bar-{operation}"));
        let (kind, owners) = scratch_owners(&name).unwrap();
        assert_eq!(kind, "staging");
        assert_eq!(
            owners,
            vec![
                ("acme".to_owned(), "foo-bar".to_owned()),
                ("acme-foo".to_owned(), "bar".to_owned())
            ]
        );
        let backup = format!(".replace-n-x-{operation}");
        assert_eq!(scratch_owners(&backup).unwrap().0, "replace");
        for other in [
            ".package-replacement-x.json".to_owned(),
            ".staging-a-b".to_owned(),
            ".staging-a-b-not-a-uuid-at-all-000000000000000".to_owned(),
            format!("staging-a-b-{operation}"),
            format!(".other-a-b-{operation}"),
            format!(".staging-A-b-{operation}"),
            format!(".staging-ab-{operation}"),
        ] {
            assert_eq!(scratch_owners(&other), None, "{other}");
        }
    }
}
