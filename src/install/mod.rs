//! Installing packages into a project or the global scope, at the reference's locations and
//! with its transaction (INS-1…INS-14, security-cases §2.5), and removing them (UNI-1, UNI-2).
//!
//! An install goes through these modules, in this order:
//! - [`source`]: the package is read **once**, into a private directory under `<R>/tmp` (a
//!   folder copied file by file, regular files only; an archive's checked entries written).
//!   That copy is what is validated, digested, compared with the expectations (ZIP-8) and
//!   installed: the source folder may change meanwhile, it is not read again.
//! - [`transaction`]: open the scope's directories, lock the id (LCK-1), recover an interrupted
//!   replacement, check uniqueness (UNQ-1, GLB-3) and the digest CAS (CAS-1…CAS-5), move the
//!   copy into the scratch directory as the staging directory, make it durable, and publish it
//!   with a no-replace rename; a replacement first writes the journal and moves the old package
//!   aside (INS-10, INS-11).
//! - [`recovery`] with [`journal`]: an interrupted replacement rolled back or completed
//!   (JNL-1…JNL-4), and crash leftovers removed, each under its id lock.
//! - [`listing`]: the packages of a scope from its folders (DSC-1), the strict listing an install
//!   requires (UNQ-1, LOC-3), and the registered projects' checks (GLB-3, GLB-4, DSC-3).
//! - [`mod@uninstall`]: UNI-1 (a package whose files changed since its install receipt is kept
//!   unless forced), then UNI-2's reset of `prompt_profile.active`; [`activate`] sets it.
//! - [`scope`] (where things are), [`name`] (`namespace/id` or `id`, as users name an installed
//!   package), [`lock`], [`projects`], [`receipts`] (what was installed, file by file: what
//!   `verify`, `list`, `uninstall` and a repairing install compare with).
//!
//! # Threat model: who may write where while squad runs
//!
//! squad trusts the paths it is given — the project directory and the OpenCorvus root `<R>` —
//! and follows a link in them once, when it opens the scope's config root (`<project>/.opencorvus`
//! or `<R>/config`, security-cases #36). Everything below a config root is shared: OpenCorvus,
//! other squad processes, editors, sync tools and anything running in the project (an agent's
//! tool, a hostile package's script) may create, rename, delete or replace with a link any
//! entry of the packages root (`expert-squads/<namespace>/<id>`) and of the scratch directory
//! (`expert-squad-staging/`) at any moment. squad therefore:
//! - opens the config root, the packages root and the scratch directory **once** and does every
//!   mkdir, rename, exchange of names, unlink and recursive removal of an install, an uninstall,
//!   a journal recovery and a leftover cleanup relative to those descriptors, one name at a time,
//!   never following a link (`crate::fs::dir`: `mkdirat`, `openat(O_NOFOLLOW|O_DIRECTORY)`,
//!   `renameat2(RENAME_NOREPLACE)`, `unlinkat`, `fstatat(AT_SYMLINK_NOFOLLOW)`). A namespace or
//!   package directory is opened the same way, relative to its parent. If one of them is moved
//!   away and a link put in its place, squad keeps working in the directory it opened — wherever
//!   it now is — and never creates, moves or deletes anything through the link;
//! - refuses a link or a non-directory where it expects a directory, and checks, once it holds
//!   the id lock, that the scope's directories are still where it opened them (a scope moved
//!   while squad waited is refused, nothing changed);
//! - reads installed trees (digests, manifests, journal states) through the directory it opened
//!   (`/proc/self/fd/<n>` on Linux; the path where `/proc` is not mounted), and reads only
//!   regular files (no FIFO or device can block it);
//! - keeps its private copy of the source under `<R>/tmp` in a directory of its own; only the
//!   same user can write there, and squad does not defend against that user (nor against
//!   anyone who can write into `<R>` or the project directory itself).
//!
//! The id lock (`<R>/config/expert-squad-install-locks/<id>.lock`) serialises squad and
//! OpenCorvus on one id; it is taken through the locks directory opened once, and a stale entry
//! there that is not a removable lock directory is reported, never looped on.
//!
//! The scratch directory is shared by every id, so no id lock protects it: each squad process
//! holds a shared `flock` on the one it opened, and the last one done (the one that gets the
//! exclusive lock) removes it when it is empty, so a project is not left with an empty
//! `expert-squad-staging/`. A process that opened it just before it went sees that once it
//! holds its lock, and creates it again ([`scope::OpenScope`]).
//!
//! # Durability: what is on disk when `install` returns
//!
//! Before the first rename that touches the target, the staged package — every file and
//! directory — the scratch directory holding it, and for a replacement the journal, are on
//! disk (`fs::sync_tree_at_once`): on a quiet Linux machine by one `syncfs` of each file
//! system they are on, what `sync -f` does, else each `fsync`ed, concurrently from up to 16
//! threads (concurrent `fsync`s share journal commits). So a directory that appears at the
//! target path after a crash is always complete, and JNL-3 can always resolve an interrupted
//! replacement.
//! A replacement then syncs the old package's move aside, and the new package's arrival before
//! the backup goes (its commit point). At the end the namespace directory (and the packages root
//! when the namespace was created), the scratch directory and the receipts directory are
//! synced: when `install` returns, the new package is durably in place and a crash cannot bring
//! the old one back. The receipt for `squad verify` is written before the sync of the package
//! and renamed into place with it; if it is lost, the directory tree stays the truth. An
//! uninstall syncs once, after the package is gone.
//!
//! How a set is made durable, and when `syncfs` is trusted with it, is `fs/durable.rs`'s, with
//! its measurements (benches/install.rs). `syncfs` waits for every other process's writes to
//! the file system too (on a shared and loaded disk one took 39.7 ms where 16 concurrent
//! `fsync`s took 11.5), which is why it is kept to a quiet machine. There, a private copy of
//! 4 MiB or more gets a head start: its file system's `syncfs` starts on another thread as
//! soon as the copy is written, so the device writes while the copy is validated and hashed,
//! and the sync before the first rename finds little left (`fs::start_sync`; its error fails
//! the install as the later sync's would).
//!
//! # Hashing: each byte of an install hashed once per digest
//!
//! The package digest (package-tree v1, one SHA-256 over every framed file) and the receipt's
//! per-file SHA-256s are two hashes by definition, computed in one pass over each file on two
//! cores (`digest::digest_folder`). They were followed by a third: VFY-3 hashed the package
//! again once it was in place. Now each file of the private copy is stamped before it is
//! hashed ([`fingerprint`]), and after the publishing rename (the same inodes) the transaction
//! compares stamps instead: a file touched since has another change time, and a file stamped
//! within the clock tick it was written in is hashed again. A package that had to be copied to
//! another file system is stamped again there, and read back (VFY-2) as before.
//!
//! Validation and the digest read the private copy at the same time, on two cores ([`ready`]).

pub mod activate;
pub mod config;
pub mod fingerprint;
pub mod journal;
pub mod listing;
pub mod lock;
pub mod name;
pub mod projects;
pub mod receipts;
pub mod recovery;
pub mod scope;
pub mod source;
pub mod transaction;
pub mod uninstall;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::archive::reader::ArchiveError;
use crate::digest::{Sha256Digest, TreeDigest};
use crate::env::failpoint;
use crate::fs::dir::Dir;
use crate::package::{Identity, Report};

pub use listing::{Inspected, Installed, Listed, Listing, identities, inspect, list, list_scope};
pub use name::PackageName;
pub use recovery::recover_scope;
pub use uninstall::{Removal, Uninstalled, uninstall};

use lock::LockError;
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
    /// The version of the package replaced, when there was one.
    pub before_version: Option<String>,
    pub after: Sha256Digest,
    pub target: PathBuf,
    /// A repair: the package installed is the one the install receipt recorded, put back over
    /// these files changed since (a package installed again unchanged is not a new release).
    pub restored: Option<Vec<crate::verify::Drift>>,
}

/// Why an install was refused or failed. Nothing was changed in the scope in any case.
#[derive(Debug)]
pub enum InstallError {
    Invalid(Box<Report>),
    Archive(ArchiveError),
    BuiltinId(String),
    /// CAS-1, CAS-2, CAS-4: the installed digest is not the expected one.
    Conflict {
        /// `namespace/id version` of the installed package (`namespace/id` when none is).
        package: String,
        scope: &'static str,
        expected: Option<Sha256Digest>,
        actual: Option<Sha256Digest>,
        /// When the source is what the install receipt says was installed: the number of
        /// files changed in the installed package since (installing would restore them).
        restores: Option<u32>,
    },
    /// An uninstall without `force` of a package whose files changed since its install
    /// receipt: removing it would lose those changes.
    Modified {
        /// `namespace/id version`.
        package: String,
        root: PathBuf,
        changes: Vec<crate::verify::Drift>,
    },
    /// The id is installed, under another namespace than the one named.
    OtherNamespace {
        wanted: String,
        installed: String,
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
    /// The project's config root is a link out of the project.
    OutsideProject(scope::OutsideProject),
    Lock(LockError),
    Recovery(String),
    /// The source cannot be read to be validated (absent, unreadable), with why.
    Unreadable(PathBuf, crate::package::ValidateError),
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
            InstallError::Archive(_) => f.write_str("the archive was refused"),
            InstallError::BuiltinId(id) => write!(
                f,
                "expert squad package id `{id}` collides with a built-in expert squad id"
            ),
            InstallError::Conflict {
                package: installed,
                scope,
                expected,
                actual,
                restores,
            } => {
                let place = match *scope {
                    "global" => "globally",
                    _ => "in this project",
                };
                match (actual, expected) {
                    (Some(actual), None) if restores.is_some() => write!(
                        f,
                        "{installed} is installed {place} with {} since it was installed (package digest {actual}); to restore it, expect that digest or replace whatever is installed",
                        files_changed(*restores)
                    ),
                    (Some(actual), None) => write!(
                        f,
                        "{installed} is installed {place} (package digest {actual}); to replace it, expect that digest or replace whatever is installed"
                    ),
                    (Some(actual), Some(expected)) => write!(
                        f,
                        "{installed} is installed {place} with package digest {actual}, not the expected {expected}; nothing was installed"
                    ),
                    (None, _) => write!(
                        f,
                        "{installed} is not installed {place}, but its package digest {} was expected; nothing was installed",
                        digest(expected)
                    ),
                }
            }
            InstallError::Modified {
                package,
                root,
                changes,
            } => write!(
                f,
                "{package} at `{}` has {} since it was installed; nothing was removed",
                root.display(),
                files_changed(u32::try_from(changes.len()).ok())
            ),
            InstallError::OtherNamespace { wanted, installed } => write!(
                f,
                "`{wanted}` is not installed in this scope; `{installed}` is (an id is unique in a scope)"
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
            InstallError::OutsideProject(error) => error.fmt(f),
            InstallError::Lock(error) => error.fmt(f),
            InstallError::Recovery(message) => f.write_str(message),
            InstallError::Unreadable(path, _) => write!(f, "cannot read `{}`", path.display()),
            InstallError::Io(path, _) => write!(f, "cannot read or write `{}`", path.display()),
        }
    }
}

impl From<crate::snapshot::SnapshotError> for InstallError {
    fn from(error: crate::snapshot::SnapshotError) -> InstallError {
        use crate::snapshot::SnapshotError;
        match error {
            SnapshotError::Invalid(report) => InstallError::Invalid(report),
            SnapshotError::Archive(error) => InstallError::Archive(error),
            SnapshotError::Changed(path) => InstallError::Recovery(format!(
                "`{}` changed while it was read; nothing was installed",
                path.display()
            )),
            SnapshotError::Validate(path, error) => InstallError::Unreadable(path, error),
            SnapshotError::Io(path, error) => InstallError::Io(path, error),
        }
    }
}

impl InstallError {
    /// Only the disk, the lock and recovery keep an install from being done; everything else
    /// is a refusal.
    pub fn class(&self) -> crate::error::Class {
        match self {
            InstallError::Lock(_)
            | InstallError::Recovery(_)
            | InstallError::Unreadable(..)
            | InstallError::Io(..) => crate::error::Class::Failed,
            _ => crate::error::Class::Refused,
        }
    }
}

// By hand rather than derived: the conflict messages are worked out, not templates.
impl std::error::Error for InstallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            InstallError::Archive(error) => Some(error),
            // The lock's message stands in for this one, so its cause is this one's.
            InstallError::Lock(error) => error.source(),
            InstallError::Unreadable(_, error) => Some(error),
            InstallError::Io(_, error) => Some(error),
            _ => None,
        }
    }
}

/// "1 file changed", "3 files changed"; "changed" when the files are not known.
pub fn files_changed(count: Option<u32>) -> String {
    match count {
        Some(0) | None => "changed".to_owned(),
        Some(1) => "1 file changed".to_owned(),
        Some(count) => format!("{count} files changed"),
    }
}

/// Where and how to install.
#[derive(Debug, Clone)]
pub struct Options {
    pub scope: Scope,
    pub opencorvus_root: PathBuf,
    /// `--expect`: the digest of the installed package a replacement must match.
    pub expect: Option<Sha256Digest>,
    /// `--replace`: whatever is installed is replaced; its digest, read under the id lock,
    /// is the expectation (there is no gap in which another install could slip in).
    pub replace: bool,
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
    /// Whether anything is expected at all.
    pub fn is_given(&self) -> bool {
        self.namespace.is_some()
            || self.id.is_some()
            || self.version.is_some()
            || self.digest.is_some()
    }

    /// Compares in the reference's order: namespace, id, version, digest.
    pub fn check(&self, identity: &Identity, digest: Sha256Digest) -> Result<(), InstallError> {
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
    /// The directories of the scope this installs into.
    pub fn locations(&self) -> Locations {
        Locations::new(&self.scope, &self.opencorvus_root)
    }

    fn scope_name(&self) -> &'static str {
        self.scope.name()
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> InstallError + '_ {
    move |error| InstallError::Io(path.to_path_buf(), error)
}

/// The raw package digest of an installed directory (DG-1: the root `.opencorvus-meta.json` is
/// left out); errors when the tree breaks the contract (links, special files).
pub fn directory_digest(root: &Path) -> Result<Sha256Digest, String> {
    tree_at_path(root, false).map(|tree| tree.package_digest)
}

/// [`directory_digest`] of the directory open at `package`, read through that descriptor.
pub fn open_directory_digest(package: &Dir) -> Result<Sha256Digest, String> {
    tree_at(package, false).map(|tree| tree.package_digest)
}

/// [`directory_digest`] of the installed package open at `package`, told by its fingerprint
/// when one vouches for it (install/fingerprint.rs), else hashed. What a no-op `sync` compares
/// with its lock. `canonical` is the package's path made canonical (where the receipt is
/// found), when known; with the version the manifest declares when the fingerprint vouched for
/// the package.
pub fn installed_digest(
    opencorvus_root: &Path,
    package: &Dir,
    canonical: Option<&Path>,
) -> Result<(Sha256Digest, Option<String>), String> {
    let fingerprint = match canonical {
        Some(canonical) => receipts::fingerprint_at(opencorvus_root, canonical),
        None => receipts::fingerprint(opencorvus_root, package.path()),
    };
    if let Some(fingerprint) = fingerprint {
        if fingerprint.vouches_for(package) {
            return Ok((
                fingerprint.package_digest(),
                Some(fingerprint.package_version().to_owned()),
            ));
        }
    }
    open_directory_digest(package).map(|digest| (digest, None))
}

fn tree_at_path(root: &Path, with_files: bool) -> Result<TreeDigest, String> {
    crate::package::contract_digest(root, false, with_files, &Default::default())
        .map_err(|error| error.to_string())
}

/// [`directory_digest`] of a directory squad holds open, read through that descriptor; with
/// every file's record when `with_files`. Messages name the directory's path.
fn tree_at(directory: &Dir, with_files: bool) -> Result<TreeDigest, String> {
    let reading = directory.reading_path();
    crate::package::open_directory_digest(&reading, with_files).map_err(|error| {
        error.to_string().replace(
            &*reading.to_string_lossy(),
            &directory.path().to_string_lossy(),
        )
    })
}

/// A random UUID v4 string: an install operation's id. It names the journal entry and the
/// staging and backup directories of one operation together, and outlives the process (the
/// next run recovers by it), so it cannot be a `tempfile` name, which is one path chosen and
/// created at once. The OS's random source makes two operations' ids differ even across
/// machines sharing a file system; should it fail, the clock and the process id still do.
fn uuid() -> String {
    let mut bytes = [0u8; 32];
    if getrandom::fill(&mut bytes[..16]).is_err() {
        let seed = format!(
            "{}-{:?}-{:?}",
            std::process::id(),
            std::time::SystemTime::now(),
            std::thread::current().id()
        );
        bytes = Sha256Digest::of(seed.as_bytes()).0;
    }
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

/// Installs the package folder `source`. Each of its files is read once, into a private copy;
/// that copy is validated and is what gets installed.
pub fn install_folder(
    source: &Path,
    options: &Options,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Receipt, InstallError> {
    options.locations().check_config_root()?;
    let source = crate::fs::entry_path(source);
    let copy = crate::snapshot::of_folder(&source, &options.locations().temporary)?;
    install_copy(copy, &source, Some(&source), options, on_wait)
}

/// Installs the package archive `archive` (ZIP-1…ZIP-10): checked in memory, its files written
/// into a private directory under `<R>/tmp`, and installed from there.
pub fn install_archive(
    archive: &Path,
    options: &Options,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Receipt, InstallError> {
    options.locations().check_config_root()?;
    let copy = crate::snapshot::of_archive(archive, &options.locations().temporary)?;
    install_copy(copy, archive, None, options, on_wait)
}

/// [`install_archive`] for an archive already in memory (a registry download), named `shown`
/// in messages: it is never written to disk as a whole, so nothing of it can be left behind.
pub fn install_archive_bytes(
    bytes: &[u8],
    shown: &Path,
    options: &Options,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Receipt, InstallError> {
    options.locations().check_config_root()?;
    let copy = crate::snapshot::of_archive_bytes(bytes, &options.locations().temporary)?;
    install_copy(copy, shown, None, options, on_wait)
}

/// A package ready to install: its private copy, validated (valid, not a built-in id) and
/// digested, each file's record kept for the receipt. What judges a package before an install
/// (expectations, a signature policy) judges this, and this is what gets installed.
pub struct Ready {
    pub copy: crate::snapshot::Snapshot,
    pub report: Report,
    pub identity: Identity,
    pub files: Vec<String>,
    pub tree: TreeDigest,
    /// Every file's stamp, taken before it was hashed: the transaction checks the installed
    /// package against it instead of hashing it again, and keeps it for `sync` and `list`.
    pub fingerprint: Option<fingerprint::Fingerprint>,
}

impl std::fmt::Debug for Ready {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ready")
            .field("identity", &self.identity)
            .field("package_digest", &self.tree.package_digest)
            .finish_non_exhaustive()
    }
}

impl Ready {
    pub fn package_digest(&self) -> Sha256Digest {
        self.tree.package_digest
    }
}

/// Validates and digests a private copy (reported as `shown`; `folder` is the source folder
/// whose location VAL rules check).
///
/// The two read the same private copy at once, on two cores: the digest takes the files the
/// copy was written with ([`crate::snapshot::Snapshot::files`]), validation finds the files it
/// holds, and the package is ready only when the two lists agree. Squad's own directory, which
/// nothing else writes, so the bytes validated are the bytes hashed (for 499 files of 33 KB
/// the two took 24 and 18 ms one after the other).
///
/// A copy `to_install` that is large starts its way to disk meanwhile
/// ([`crate::fs::start_sync`]); its sync's error is the copy's.
pub fn ready(
    copy: crate::snapshot::Snapshot,
    shown: &Path,
    folder: Option<&Path>,
    to_install: bool,
) -> Result<Ready, InstallError> {
    let early = to_install
        .then(|| crate::fs::start_sync(copy.dir(), copy.bytes()))
        .flatten();
    let (validated, digested) = crate::jobs::join(
        || crate::package::validate_copy(copy.path(), shown, folder),
        || stamp_and_digest(&copy),
    );
    // Its error fails whatever the package: the write error it saw may be another file's on
    // that file system, which no later sync would hear of (fs::EarlySync::wait).
    if let Some(Err(error)) = early.map(crate::fs::EarlySync::wait) {
        return Err(InstallError::Io(copy.path().to_path_buf(), error));
    }
    let report = validated.map_err(|error| InstallError::Unreadable(shown.to_path_buf(), error))?;
    if !report.is_valid() {
        return Err(InstallError::Invalid(Box::new(report)));
    }
    let Some(identity) = report.identity.clone() else {
        return Err(InstallError::Invalid(Box::new(report)));
    };
    if crate::manifest::BUILTIN_PACKAGE_IDS.contains(&identity.id.as_str()) {
        return Err(InstallError::BuiltinId(identity.id));
    }
    let files: Vec<String> = report
        .tree
        .files()
        .map(|entry| entry.path.clone())
        .collect();
    let (stamps, tree) = digested?;
    let mut written: Vec<&String> = copy.files().iter().collect();
    written.sort();
    if !files.iter().eq(written.iter().copied()) {
        return Err(InstallError::Recovery(format!(
            "`{}` does not hold the files written into it; nothing was installed",
            copy.path().display()
        )));
    }
    let fingerprint = stamps.and_then(|stamps| stamps.seal(&tree, &identity.version));
    Ok(Ready {
        copy,
        report,
        identity,
        files,
        tree,
        fingerprint,
    })
}

/// The copy's files stamped, then hashed (install/fingerprint.rs): a file changed after its
/// stamp is told by its stamp, whatever the hash saw. The digest is of the very bytes
/// validation reads, with each file's record for the receipt.
fn stamp_and_digest(
    copy: &crate::snapshot::Snapshot,
) -> Result<(Option<fingerprint::Stamps>, TreeDigest), InstallError> {
    let stamps = fingerprint::stamp(copy.dir(), copy.files()).ok();
    let tree = crate::digest::digest_folder(copy.path(), copy.files(), true).map_err(|error| {
        InstallError::Io(error.path.clone(), std::io::Error::other(error.message))
    })?;
    Ok((stamps, tree))
}

/// Installs a package made [`Ready`]: the expectations are checked against what was validated
/// and digested, and that copy is published.
pub fn install_ready(
    ready: Ready,
    options: &Options,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Receipt, InstallError> {
    options.locations().check_config_root()?;
    options
        .exact
        .check(&ready.identity, ready.tree.package_digest)?;
    transaction::publish(
        ready.copy,
        &ready.files,
        (ready.tree, ready.fingerprint),
        &ready.identity,
        options,
        on_wait,
    )
}

/// Validates and digests the private copy, checks the expectations, and publishes the copy.
fn install_copy(
    copy: crate::snapshot::Snapshot,
    shown: &Path,
    folder: Option<&Path>,
    options: &Options,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Receipt, InstallError> {
    install_ready(ready(copy, shown, folder, true)?, options, on_wait)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An archive made from a git checkout (`zip -r` of it) carries `.gitignore` and `.git/` at
    /// its root: written into the copy, left out of the package's files, its digest and its
    /// validation alike, so it installs as the same package.
    #[test]
    fn version_control_files_at_an_archive_root_are_not_the_package_s() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("registry-fixtures/valid/release-review");
        let mut files: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(&fixture)
            .into_iter()
            .map(Result::unwrap)
            .filter(|entry| entry.file_type().is_file())
            .map(|entry| {
                let relative = entry.path().strip_prefix(&fixture).unwrap();
                (
                    format!("acme/release-review/{}", relative.to_string_lossy()),
                    std::fs::read(entry.path()).unwrap(),
                )
            })
            .collect();
        let entries = |files: &[(String, Vec<u8>)]| {
            crate::archive::writer::archive_of(
                &files
                    .iter()
                    .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
                    .collect::<Vec<_>>(),
            )
        };
        let plain = entries(&files);
        files.push((
            "acme/release-review/.gitignore".to_owned(),
            b"target/\n".to_vec(),
        ));
        files.push((
            "acme/release-review/.git/HEAD".to_owned(),
            b"ref: refs/heads/main\n".to_vec(),
        ));
        let with_git = entries(&files);
        let scratch = crate::fs::ScratchDirectory::new("vcs-archive").unwrap();
        let ready = |bytes: &[u8]| {
            let copy = crate::snapshot::of_archive_bytes(bytes, scratch.path()).unwrap();
            ready(copy, Path::new("release-review.zip"), None, true)
        };
        let plain = ready(&plain).unwrap();
        let with_git = ready(&with_git).unwrap();
        assert!(with_git.copy.path().join(".gitignore").is_file());
        assert!(!with_git.files.iter().any(|file| file.starts_with(".git")));
        assert_eq!(with_git.package_digest(), plain.package_digest());
    }

    /// A copy large enough for its sync's head start is made ready, to install (the sync
    /// started and awaited) or to look at, with the digest of the folder it came from.
    #[test]
    fn a_large_copy_to_install_is_ready_with_its_early_sync_awaited() {
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("registry-fixtures/valid/minimal");
        let source = tempfile::tempdir().unwrap();
        let root = source.path().join("minimal");
        crate::fs::copy_tree(&fixture, &root).unwrap();
        let manifest = std::fs::read_to_string(root.join("expert-squad.jsonc")).unwrap();
        std::fs::write(
            root.join("expert-squad.jsonc"),
            manifest.replace(
                "\"package_skill_refs\": [], \"default_tool_refs\": []",
                "\"package_skill_refs\": [\"minimal-squad/shared/bulk\"], \"default_tool_refs\": []",
            ),
        )
        .unwrap();
        std::fs::create_dir_all(root.join("skills/bulk/references")).unwrap();
        std::fs::write(
            root.join("skills/bulk/SKILL.md"),
            "---\nname: bulk\ndescription: Bulk data.\n---\nBulk.\n",
        )
        .unwrap();
        let reference = "evidence of the release review\n".repeat(1_000);
        let count = crate::fs::EARLY_SYNC_BYTES as usize / reference.len() + 1;
        for index in 0..count {
            std::fs::write(
                root.join(format!("skills/bulk/references/r{index:03}.md")),
                &reference,
            )
            .unwrap();
        }
        let scratch = crate::fs::ScratchDirectory::new("early-sync").unwrap();
        for to_install in [true, false] {
            let copy = crate::snapshot::of_folder(&root, scratch.path()).unwrap();
            assert!(copy.bytes() >= crate::fs::EARLY_SYNC_BYTES);
            let ready = ready(copy, &root, Some(&root), to_install).unwrap();
            assert_eq!(ready.package_digest(), directory_digest(&root).unwrap());
        }
    }
}
