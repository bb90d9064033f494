//! The install transaction (INS-3…INS-14, security-cases §2.5): with the scope's directories
//! open and the id locked, recover, check, stage, make durable and publish. A replacement
//! writes the journal and moves the old package aside first, so a crash at any point leaves
//! either the old or the new package in place, never a mix (§2.6). Every step on the scope is
//! relative to the directories opened at the start (install/mod.rs, "threat model").

use std::path::Path;

use crate::digest::{Sha256Digest, TreeDigest};
use crate::fs::dir::{Dir, Kind};
use crate::package::Identity;

use super::fingerprint::{self, Fingerprint};
use super::journal::{self, Journal};
use super::lock::IdLock;
use super::scope::{OpenScope, Scope};
use super::{
    InstallError, Operation, Options, Receipt, failpoint, io, listing, projects, receipts,
    recovery, tree_at, uuid,
};
use crate::snapshot::Snapshot as Copy;

/// The scratch names of one operation (LOC-2), as the reference makes them.
struct Names {
    staging: String,
    backup: String,
    discard: String,
}

impl Names {
    fn new(identity: &Identity, operation: &str) -> Names {
        let name =
            |kind: &str| journal::scratch_name(kind, &identity.namespace, &identity.id, operation);
        Names {
            staging: name("staging"),
            backup: name("replace"),
            discard: name("discard"),
        }
    }
}

/// Publishes the validated private `copy` (its `files`, digest `tree` and the fingerprint taken
/// as it was hashed) as `identity`.
pub(super) fn publish(
    mut copy: Copy,
    files: &[String],
    (tree, fingerprint): (TreeDigest, Option<Fingerprint>),
    identity: &Identity,
    options: &Options,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Receipt, InstallError> {
    let digest = tree.package_digest;
    let locations = options.locations();
    let target = locations.target(&identity.namespace, &identity.id);
    let scope = OpenScope::for_install(&locations)?;
    let lock = IdLock::acquire(
        &locations.locks,
        &identity.id,
        options.lock_timeout,
        on_wait,
    )
    .map_err(InstallError::Lock)?;
    failpoint("locked");
    scope.check_in_place()?;
    recovery::recover(&scope, &identity.id)?;
    listing::check_unique(&scope, identity)?;
    let mut overrides = Vec::new();
    match &options.scope {
        Scope::Global => overrides = listing::check_projects(options, identity)?,
        Scope::Project(project) => {
            if projects::register(&options.opencorvus_root, project).unwrap_or(false) {
                overrides = listing::overrides_of(options, project);
            }
        }
    }
    // Never through a link: the namespace directory is opened without following one, and the
    // target is looked at through it (INS-6, security-cases #36).
    let namespace = match scope.packages() {
        Some(packages) => packages
            .open_dir(&identity.namespace)
            .map_err(|error| InstallError::Io(packages.shown(&identity.namespace), error))?,
        None => None,
    };
    let installed = existing(namespace.as_ref(), identity, &target)?;
    let before = installed
        .as_ref()
        .map(|installed| installed.tree.package_digest);
    let installed_version = installed
        .as_ref()
        .and_then(|installed| installed.version.clone());
    // `--replace`: the digest just read, under the lock, is the expectation.
    let expected = if options.replace {
        before
    } else {
        options.expect
    };
    // A repair: the source is what the receipt says was installed, so only the installed
    // files changed; which ones, read before the new receipt replaces the old.
    let restored = installed.as_ref().and_then(|installed| {
        receipts::record(&options.opencorvus_root, &target)
            .filter(|record| record.package_digest == digest)
            .and_then(|record| record.drift(&installed.tree))
    });
    // CAS-1 … CAS-5, in the reference's order.
    let name = format!("{}/{}", identity.namespace, identity.id);
    let conflict = |actual| InstallError::Conflict {
        package: match &installed_version {
            Some(version) => format!("{name} {version}"),
            None => name.clone(),
        },
        scope: options.scope_name(),
        expected,
        actual,
        restores: restored
            .as_ref()
            .map(|changes| u32::try_from(changes.len()).unwrap_or(u32::MAX)),
    };
    match (before, expected) {
        (Some(actual), Some(expected)) if actual != expected => return Err(conflict(Some(actual))),
        (None, Some(_)) => return Err(conflict(None)),
        (Some(actual), _) if actual == digest => {
            return Ok(Receipt {
                operation: Operation::Unchanged,
                warnings: Vec::new(),
                identity: identity.clone(),
                before,
                before_version: installed_version,
                after: digest,
                target,
                restored: None,
            });
        }
        (Some(actual), None) => return Err(conflict(Some(actual))),
        _ => {}
    }
    let packages = scope.ensure_packages()?;
    let scratch = scope.ensure_scratch()?;
    let mut warnings = overrides;
    // The receipt lets `verify` name changed files later; written now, synced with the package
    // and put in place with it. The tree is the truth if it cannot be written.
    let receipt = crate::fs::entry_path(packages.path())
        .canonicalize()
        .and_then(|root| {
            receipts::prepare(
                &options.opencorvus_root,
                &root.join(&identity.namespace).join(&identity.id),
                &tree,
                options.origin.as_ref(),
            )
        })
        .map_err(|problem| {
            warnings.push(format!(
                "installed, but the receipt for `squad verify` was not written: {problem}"
            ))
        })
        .ok();
    let operation_id = uuid();
    let names = Names::new(identity, &operation_id);
    let result = stage(
        &mut copy,
        files,
        scratch,
        &names.staging,
        (&tree, fingerprint, identity),
    )
    .and_then(|(staged, fingerprint)| {
        failpoint("staged");
        commit(Commit {
            scope: &scope,
            namespace,
            identity,
            target: &target,
            names: &names,
            staged: &staged,
            files,
            bytes: tree.files.iter().map(|file| file.size).sum(),
            before,
            after: digest,
            options,
            operation_id: &operation_id,
            lock: &lock,
            receipt,
            fingerprint,
        })
    });
    if result.is_err() {
        let _ = scratch.remove_tree(&names.staging);
    }
    let (operation, problems) = result?;
    drop(lock);
    warnings.extend(problems);
    if operation == Operation::Replaced
        && restored.is_none()
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
        before_version: installed_version,
        after: digest,
        target,
        restored,
    })
}

/// The package installed at the target: every file's record, and its version.
struct Existing {
    tree: TreeDigest,
    version: Option<String>,
}

/// INS-6: the package installed at the target, read through its namespace directory: its
/// files and version, `None` when nothing is installed. A link, a file, or a package the
/// runtime cannot load is refused, never replaced.
fn existing(
    namespace: Option<&Dir>,
    identity: &Identity,
    target: &Path,
) -> Result<Option<Existing>, InstallError> {
    let Some(namespace) = namespace else {
        return Ok(None);
    };
    let package = match namespace.status(&identity.id).map_err(io(target))? {
        None => return Ok(None),
        Some(status) if status.kind != Kind::Directory => {
            return Err(InstallError::Io(
                target.to_path_buf(),
                std::io::Error::other(
                    "the installed package path is not a directory (a link or a file)",
                ),
            ));
        }
        Some(_) => namespace
            .open_dir(&identity.id)
            .map_err(io(target))?
            .ok_or_else(|| {
                InstallError::Io(target.to_path_buf(), std::io::ErrorKind::NotFound.into())
            })?,
    };
    let invalid = |problem: String| InstallError::InvalidExisting {
        target: target.to_path_buf(),
        problem,
    };
    // check_unique's strict listing already refuses such a target; this stays for what that
    // walk cannot see (a packages root it could not list), and the same read gives the
    // installed version.
    let manifest = listing::read_manifest_at(&package, &identity.namespace, &identity.id);
    if let Some(problem) = manifest.problem {
        return Err(invalid(problem));
    }
    let tree = tree_at(&package, true).map_err(invalid)?;
    Ok(Some(Existing {
        tree,
        version: manifest.version,
    }))
}

/// Makes the validated copy the staging directory `staging` in the scratch directory: renamed
/// when on the same file system (the very bytes validated and digested, in squad's private
/// directory, their fingerprint still theirs), else copied through descriptors, stamped and
/// read back (VFY-2). Returns it, open, with its fingerprint.
fn stage(
    copy: &mut Copy,
    files: &[String],
    scratch: &Dir,
    staging: &str,
    (tree, fingerprint, identity): (&TreeDigest, Option<Fingerprint>, &Identity),
) -> Result<(Dir, Option<Fingerprint>), InstallError> {
    let digest = tree.package_digest;
    let shown = scratch.shown(staging);
    let open = |scratch: &Dir| {
        scratch
            .open_dir(staging)
            .and_then(|dir| dir.ok_or_else(|| std::io::ErrorKind::NotFound.into()))
            .map_err(io(&shown))
    };
    if copy.move_to(scratch, staging).map_err(io(&shown))? {
        return Ok((open(scratch)?, fingerprint));
    }
    scratch.create_dir(staging).map_err(io(&shown))?;
    let staged = open(scratch)?;
    super::source::copy_files(copy.dir(), files, &staged).map_err(io(&shown))?;
    let stamps = fingerprint::stamp(&staged, files).ok();
    let read_back = tree_at(&staged, false).map_err(InstallError::Recovery)?;
    if read_back.package_digest != digest {
        return Err(InstallError::Recovery(
            "package bytes changed during import".to_owned(),
        ));
    }
    // The same bytes as hashed before (the same package digest), so the same file records.
    Ok((
        staged,
        stamps.and_then(|stamps| stamps.seal(tree, &identity.version)),
    ))
}

/// Everything a commit works with.
struct Commit<'a> {
    scope: &'a OpenScope,
    namespace: Option<Dir>,
    identity: &'a Identity,
    target: &'a Path,
    names: &'a Names,
    staged: &'a Dir,
    files: &'a [String],
    /// The staged files' bytes in all.
    bytes: u64,
    before: Option<Sha256Digest>,
    after: Sha256Digest,
    options: &'a Options,
    operation_id: &'a str,
    lock: &'a IdLock,
    receipt: Option<receipts::Pending>,
    fingerprint: Option<Fingerprint>,
}

/// Makes the staged package durable before the first rename that touches the target: every
/// file and directory of it, the scratch directory that holds it, and the journal and the
/// receipt's temporary file when there are, synced all at once (`fs::sync_tree_at_once`: the
/// staged files are opened only when they are synced one by one).
fn durable(commit: &Commit, scratch: &Dir, journal: Option<&str>) -> Result<(), InstallError> {
    let staged = commit.staged;
    let mut files = Vec::new();
    if let Some(journal) = journal {
        files.push(
            scratch
                .open_file(journal)
                .map_err(io(&scratch.shown(journal)))?,
        );
    }
    let mut files: Vec<&std::fs::File> = files.iter().collect();
    if let Some(receipt) = &commit.receipt {
        files.push(receipt.file());
    }
    let tree = super::source::open_directories(staged, commit.files).map_err(io(staged.path()))?;
    let mut directories: Vec<&Dir> = tree.iter().collect();
    directories.extend([staged, scratch]);
    crate::fs::sync_tree_at_once(&files, &directories, commit.bytes, || {
        super::source::open_files(staged, commit.files)
    })
    .map_err(io(staged.path()))
}

/// Stages are synced in this order, each before the next step can be seen after a crash
/// (security-cases §2.6): the staged package and the journal; the old package moved aside;
/// the new one in place (the commit point of a replacement follows); the backup and the
/// journal gone, with the receipt in place. Returns the operation and what did not stop it.
fn commit(mut commit: Commit) -> Result<(Operation, Vec<String>), InstallError> {
    let mut warnings = Vec::new();
    let scope = commit.scope;
    let identity = commit.identity;
    let target = commit.target;
    let names = commit.names;
    let (before, after, lock) = (commit.before, commit.after, commit.lock);
    let id = identity.id.as_str();
    let locations = &scope.locations;
    let scratch = scope.ensure_scratch()?;
    let packages = scope.ensure_packages()?;
    let journal_name = journal::journal_name(id);
    let sync = |directories: &[&Dir]| {
        crate::fs::sync_all_at_once(&[], directories).map_err(io(scratch.path()))
    };
    if let Some(before) = before {
        let namespace = commit
            .namespace
            .as_ref()
            .expect("a replaced package has a namespace directory");
        let path = |name: &str| locations.scratch.join(name);
        let entry = Journal {
            protocol: journal::PROTOCOL.to_owned(),
            operation_id: commit.operation_id.to_owned(),
            target: target.to_path_buf(),
            staging: path(&names.staging),
            backup: path(&names.backup),
            discard: path(&names.discard),
            installation_scope: commit.options.scope_name().to_owned(),
            project_directory: match &commit.options.scope {
                Scope::Project(project) => Some(project.clone()),
                Scope::Global => None,
            },
            namespace: identity.namespace.clone(),
            id: id.to_owned(),
            before_package_digest: before.hex(),
            after_package_digest: after.hex(),
        };
        journal::write(scratch, &entry).map_err(io(&path(&journal_name)))?;
        durable(&commit, scratch, Some(&journal_name))?;
        failpoint("journal-written");
        let moved = lock.check().map_err(InstallError::Lock).and_then(|()| {
            namespace
                .rename_no_replace(id, scratch, &names.backup)
                .map_err(io(target))
        });
        if let Err(error) = moved {
            let _ = journal::reconcile(scope, id);
            return Err(error);
        }
        sync(&[namespace, scratch])?;
        failpoint("old-moved");
    } else {
        durable(&commit, scratch, None)?;
    }
    // A fresh install may need the namespace directory: created here, opened without following
    // a link, and synced in its parent below.
    let created_namespace = commit.namespace.is_none();
    if created_namespace {
        commit.namespace = Some(
            packages
                .ensure_dir(&identity.namespace)
                .map_err(|error| InstallError::Io(packages.shown(&identity.namespace), error))?,
        );
    }
    let namespace = commit.namespace.as_ref().expect("just set");
    let published = lock.check().map_err(InstallError::Lock).and_then(|()| {
        scratch
            .rename_no_replace(&names.staging, namespace, id)
            .map_err(io(target))
    });
    if let Err(error) = published {
        if before.is_some() {
            journal::reconcile(scope, id).map_err(InstallError::Recovery)?;
        }
        return Err(error);
    }
    // The commit point of a replacement: the new package is durably in place before the
    // backup goes. A fresh install syncs once, below.
    if before.is_some() {
        sync(&[namespace, scratch])?;
    }
    failpoint("new-in-place");
    // VFY-3: the package now at the target, read through its namespace directory: the same
    // files as stamped before they were hashed, each with the same stamp (racy ones hashed
    // again), or else hashed in full.
    let package = namespace.open_dir(id).map_err(io(target))?.ok_or_else(|| {
        InstallError::Io(target.to_path_buf(), std::io::ErrorKind::NotFound.into())
    })?;
    let vouched = commit
        .fingerprint
        .as_mut()
        .is_some_and(|fingerprint| fingerprint.confirm(&package, scratch));
    if !vouched {
        commit.fingerprint = None;
    }
    let installed_digest = if vouched {
        after
    } else {
        tree_at(&package, false)
            .map_err(InstallError::Recovery)?
            .package_digest
    };
    if installed_digest != after {
        if before.is_some() {
            journal::reconcile(scope, id).map_err(InstallError::Recovery)?;
        } else {
            // A fresh install that is not what was validated does not stay.
            namespace
                .rename_no_replace(id, scratch, &names.discard)
                .and_then(|()| scratch.remove_tree(&names.discard))
                .map_err(io(target))?;
        }
        return Err(InstallError::Recovery(
            "the installed package does not have the staged digest".to_owned(),
        ));
    }
    if before.is_some() {
        let backup = scratch.shown(&names.backup);
        scratch.remove_tree(&names.backup).map_err(io(&backup))?;
        failpoint("backup-removed");
        // Either removal may reach the disk first: a backup without its journal is a leftover
        // (removed under the lock next time), a journal without its backup is committed.
        scratch
            .remove_file(&journal_name)
            .map_err(io(&scratch.shown(&journal_name)))?;
    }
    // The receipt goes in place with the package; its directory is synced with the scope's.
    let fingerprint = commit.fingerprint.take();
    let receipt_directory = match commit.receipt.as_mut().map(|receipt| {
        receipt.commit().and_then(|()| {
            // A cache: without it, `sync` and `list` hash the package.
            if let Some(fingerprint) = &fingerprint {
                let _ = receipt.keep_fingerprint(fingerprint);
            }
            Dir::open(receipt.directory())
        })
    }) {
        Some(Ok(directory)) => Some(directory),
        Some(Err(problem)) => {
            warnings.push(format!(
                "installed, but the receipt for `squad verify` was not written: {problem}"
            ));
            None
        }
        None => None,
    };
    let mut directories = vec![namespace, scratch];
    if created_namespace {
        directories.push(packages);
    }
    directories.extend(receipt_directory.as_ref());
    if let Err(problem) = sync(&directories) {
        warnings.push(format!(
            "installed, but the last sync failed, so the install may not survive a crash: {problem}"
        ));
    }
    let operation = if before.is_some() {
        Operation::Replaced
    } else {
        Operation::Installed
    };
    Ok((operation, warnings))
}
