//! A package read once (INS-1, INS-9, ZIP-7): a folder copied file by file, or an archive's
//! checked entries written, into a private directory of squad's. Whatever judges a package —
//! validation, the digest, a signature, an install's expectations — and whatever ships it —
//! `install`, `pack`, `publish`, `sign` — works on that copy, so what was judged is what is
//! shipped, whatever happens to the source meanwhile (a manifest swapped between two reads
//! could otherwise be packed, pushed or installed unvalidated).
//!
//! Only regular files are read, without following links or blocking on a FIFO; a source whose
//! tree breaks the rules (links, FIFOs, runtime-internal names) is validated in place instead,
//! for the diagnostics, and never copied. The copy's directory is made by `tempfile` under the
//! parent the caller names (`<R>/tmp` for installs, so that it can be renamed into the scope's
//! scratch directory on the same file system; the system's temporary directory otherwise),
//! named `squad-source-<pid>-<random>` so that a crashed process's copies are recognised and
//! removed by the next squad.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::archive::reader::{ArchiveError, Limits, read_package};
use crate::fs::dir::{Dir, Kind, Tree};
use crate::package::{Report, ValidateError};

/// squad's prefix for its private copies, followed by the process id and a random part: the
/// reference's `expert-squad-archive-*` directories are never touched (security-cases §2.6).
/// `squad-archive-` is the prefix of earlier versions, cleaned too.
const PREFIXES: [&str; 2] = ["squad-source-", "squad-archive-"];

/// Why a package could not be read into a private copy.
#[derive(Debug)]
pub enum SnapshotError {
    /// The source breaks the tree rules (links, special files): the validator's full report.
    Invalid(Box<Report>),
    /// The archive was refused (ZIP-1…ZIP-6, the limits).
    Archive(ArchiveError),
    /// The source changed while it was read (a file replaced by a link, say).
    Changed(PathBuf),
    /// The source cannot be validated at all (absent, unreadable).
    Validate(PathBuf, ValidateError),
    Io(PathBuf, io::Error),
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SnapshotError::Invalid(report) => {
                write!(f, "the package `{}` is invalid", report.root.display())
            }
            SnapshotError::Archive(_) => f.write_str("the archive was refused"),
            SnapshotError::Changed(path) => write!(
                f,
                "`{}` changed while it was read; nothing was done",
                path.display()
            ),
            SnapshotError::Validate(path, _) => write!(f, "cannot read `{}`", path.display()),
            SnapshotError::Io(path, _) => write!(f, "cannot read or write `{}`", path.display()),
        }
    }
}

impl std::error::Error for SnapshotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SnapshotError::Archive(error) => Some(error),
            SnapshotError::Validate(_, error) => Some(error),
            SnapshotError::Io(_, error) => Some(error),
            _ => None,
        }
    }
}

impl SnapshotError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            SnapshotError::Invalid(_) | SnapshotError::Archive(_) => crate::error::Class::Refused,
            _ => crate::error::Class::Failed,
        }
    }
}

/// A package folder read once and validated on its copy: the copy is what is digested, packed,
/// signed or installed from here on, and `report` names the folder.
pub struct Judged {
    pub snapshot: Snapshot,
    pub report: Report,
}

/// Reads the package folder `folder` once into a private copy under `parent` and validates
/// the copy (the location rule on the folder itself).
pub fn read_folder(folder: &Path, parent: &Path) -> Result<Judged, SnapshotError> {
    let folder = crate::fs::entry_path(folder);
    let snapshot = of_folder(&folder, parent)?;
    let report = crate::package::validate_copy(snapshot.path(), &folder, Some(&folder))
        .map_err(|error| SnapshotError::Validate(folder.clone(), error))?;
    Ok(Judged { snapshot, report })
}

/// A package archive read once within the import limits, its checked entries written into a
/// private copy under `parent`, and that copy validated: what sign and verify judge of an
/// archive, as [`read_folder`] is for a folder.
pub fn read_archive_judged(archive: &Path, parent: &Path) -> Result<Judged, SnapshotError> {
    let bytes = read_archive(archive)?;
    let snapshot = of_archive_bytes(&bytes, parent)?;
    let report = crate::package::validate_copy(snapshot.path(), archive, None)
        .map_err(|error| SnapshotError::Validate(archive.to_path_buf(), error))?;
    Ok(Judged { snapshot, report })
}

/// Where squad keeps the private copies of commands that do not install (pack, publish,
/// sign): the system's temporary directory.
pub fn scratch_parent() -> PathBuf {
    crate::env::temporary_directory()
}

/// Whether `path` names a package archive (a `.zip` that is not a folder) rather than a folder.
pub fn is_archive(path: &Path) -> bool {
    path.extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("zip"))
        && !path.is_dir()
}

/// The bytes of the archive at `archive`, read once within the import limit (a larger file is
/// refused before it is read; a FIFO or a device before it is opened).
pub fn read_archive(archive: &Path) -> Result<Vec<u8>, SnapshotError> {
    // An archive that cannot be read is an I/O failure (exit 2), not a refused archive.
    let mut file =
        crate::fs::open_regular(archive, crate::fs::Links::Follow).map_err(io(archive))?;
    let limit = Limits::REFERENCE.archive_bytes;
    let size = file.metadata().map_err(io(archive))?.len();
    if size > limit {
        return Err(SnapshotError::Archive(ArchiveError {
            entry: None,
            message: format!("archive is {size} bytes, more than the limit of {limit}"),
        }));
    }
    let mut bytes = Vec::new();
    file.by_ref()
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(io(archive))?;
    Ok(bytes)
}

fn io(path: &Path) -> impl Fn(io::Error) -> SnapshotError + '_ {
    move |error| SnapshotError::Io(path.to_path_buf(), error)
}

/// A private copy of a package, removed when dropped unless it was moved away.
pub struct Snapshot {
    parent: Dir,
    name: String,
    dir: Dir,
    path: PathBuf,
    moved: bool,
    /// The parent, when this copy created it: removed again when empty, so that a refused
    /// command leaves no trace.
    created_parent: Option<PathBuf>,
    /// The regular files squad wrote into the copy, package-relative.
    files: Vec<String>,
    /// The bytes written into those files.
    bytes: u64,
}

impl Snapshot {
    /// A new empty private directory under `parent` (created if absent); stale copies of
    /// squad processes that no longer run are removed first.
    pub fn create(parent: &Path) -> Result<Snapshot, SnapshotError> {
        let created_parent = (!parent.exists()).then(|| parent.to_path_buf());
        let mut attempts = 0;
        let (opened, directory) = loop {
            crate::fs::create_dir_all(parent).map_err(io(parent))?;
            let opened = Dir::open(parent).map_err(io(parent))?;
            remove_stale(&opened);
            match tempfile::Builder::new()
                .prefix(&format!("{}{}-", PREFIXES[0], std::process::id()))
                .rand_bytes(12)
                .tempdir_in(parent)
            {
                Ok(directory) => break (opened, directory),
                // Another squad process removed the parent it had created, empty, meanwhile.
                Err(error) if error.kind() == io::ErrorKind::NotFound && attempts < 10 => {
                    attempts += 1;
                }
                Err(error) => return Err(SnapshotError::Io(parent.to_path_buf(), error)),
            }
        };
        // Kept by name, removed by squad itself (descriptor-relative) when dropped.
        let path = directory.keep();
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or_default()
            .to_owned();
        let dir = opened
            .open_dir(&name)
            .and_then(|dir| dir.ok_or_else(|| io::ErrorKind::NotFound.into()))
            .map_err(io(&path))?;
        Ok(Snapshot {
            path,
            parent: opened,
            name,
            dir,
            moved: false,
            created_parent,
            files: Vec::new(),
            bytes: 0,
        })
    }

    /// Where the copy is, for the validator and the digest (squad's own directory).
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// The package's regular files written into the copy, package-relative, in the order
    /// written (version-control files at the root left out, as the tree walk leaves them): what
    /// can be digested before the copy's validation says which files it holds (the two must
    /// agree).
    pub fn files(&self) -> &[String] {
        &self.files
    }

    /// The bytes written into the copy's files.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Moves the copy to `to`/`name`; `Ok(false)` when `to` is on another file system (the
    /// caller copies instead).
    pub fn move_to(&mut self, to: &Dir, name: &str) -> io::Result<bool> {
        match self.parent.rename_no_replace(&self.name, to, name) {
            Ok(()) => {
                self.moved = true;
                Ok(true)
            }
            Err(error) if is_cross_device(&error) => Ok(false),
            Err(error) => Err(error),
        }
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        if !self.moved {
            let _ = self.parent.remove_tree(&self.name);
        }
        // Only when empty: another process's copy in it keeps it.
        if let Some(parent) = &self.created_parent {
            let _ = crate::fs::remove_dir(parent);
        }
    }
}

fn is_cross_device(error: &io::Error) -> bool {
    #[cfg(unix)]
    {
        error.raw_os_error() == Some(rustix::io::Errno::XDEV.raw_os_error())
    }
    #[cfg(not(unix))]
    {
        error.kind() == io::ErrorKind::CrossesDevices
    }
}

/// Copies the package folder `source` into a new private directory, each regular file read
/// once. A tree that breaks the rules is refused with the validator's full report.
pub fn of_folder(source: &Path, parent: &Path) -> Result<Snapshot, SnapshotError> {
    let invalid = || match crate::package::validate(source) {
        Ok(report) if report.is_valid() => Err(SnapshotError::Changed(source.to_path_buf())),
        Ok(report) => Err(SnapshotError::Invalid(Box::new(report))),
        Err(error) => Err(SnapshotError::Validate(source.to_path_buf(), error)),
    };
    match crate::fs::real_directory(source).map_err(io(source))? {
        crate::fs::RealDirectory::Absent => {
            return Err(SnapshotError::Validate(
                source.to_path_buf(),
                ValidateError::NotFound(source.to_path_buf()),
            ));
        }
        crate::fs::RealDirectory::Refused => return invalid(),
        crate::fs::RealDirectory::Present(_) => {}
    }
    let mut diagnostics = crate::diag::Diagnostics::default();
    let tree = crate::package::tree::capture(source, &mut diagnostics);
    if !diagnostics.into_sorted().is_empty() {
        return invalid();
    }
    let mut copy = Snapshot::create(parent)?;
    let mut files = Vec::new();
    let mut bytes = 0;
    let mut writer = Tree::writing(copy.dir());
    for entry in &tree.entries {
        let from = source.join(&entry.path);
        if !entry.is_file() {
            writer.directory(&entry.path).map_err(io(&from))?;
            continue;
        }
        // Just seen as a regular file by the walk: opened without a second look, and still
        // checked to be one.
        let mut file = match crate::fs::open_regular_seen(&from) {
            Ok(file) => file,
            // Replaced since the walk (by a link, a FIFO…): the validator says what it is now.
            Err(error) if error.kind() == io::ErrorKind::InvalidInput => return invalid(),
            Err(error) => return Err(SnapshotError::Io(from, error)),
        };
        let mut to = writer.create_file(&entry.path).map_err(io(&from))?;
        bytes += crate::fs::copy_contents(&mut file, &mut to).map_err(io(&from))?;
        files.push(entry.path.clone());
    }
    drop(writer);
    copy.files = files;
    copy.bytes = bytes;
    crate::env::failpoint("package-read");
    Ok(copy)
}

/// Checks the archive `archive` (ZIP-1…ZIP-6) and writes its files into a new private
/// directory (ZIP-7).
pub fn of_archive(archive: &Path, parent: &Path) -> Result<Snapshot, SnapshotError> {
    of_archive_bytes(&read_archive(archive)?, parent)
}

/// [`of_archive`] for the bytes of an archive.
pub fn of_archive_bytes(bytes: &[u8], parent: &Path) -> Result<Snapshot, SnapshotError> {
    let package = read_package(bytes, &Limits::REFERENCE).map_err(SnapshotError::Archive)?;
    let mut copy = Snapshot::create(parent)?;
    let mut writer = Tree::writing(copy.dir());
    for (path, content) in &package.files {
        let shown = copy.path().join(path);
        use std::io::Write;
        writer
            .create_file(path)
            .and_then(|mut file| file.write_all(content))
            .map_err(io(&shown))?;
    }
    drop(writer);
    copy.bytes = package
        .files
        .iter()
        .map(|(_, content)| content.len() as u64)
        .sum();
    // Version-control files at the root are written but are not the package's: the tree walk
    // of validation and of every digest leaves them out, and so does this list.
    copy.files = package
        .files
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| !crate::package::tree::is_version_control(path))
        .collect();
    Ok(copy)
}

/// The hidden temporary file earlier versions downloaded a registry archive to, before
/// installing it: `.squad-download.zip.tmp-<pid>-<attempt>` (a crash could leave one).
const DOWNLOAD_PREFIX: &str = ".squad-download.zip.tmp-";

/// Removes the private copies of squad processes that no longer run (a crash or a kill during
/// an install), and their downloads.
fn remove_stale(temporary: &Dir) {
    let Ok(entries) = temporary.entries() else {
        return;
    };
    for (name, kind) in entries {
        let Some(name) = name.to_str() else { continue };
        let download = name
            .strip_prefix(DOWNLOAD_PREFIX)
            .and_then(|rest| rest.split_once('-'))
            .filter(|(_, attempt)| attempt.parse::<u32>().is_ok())
            .and_then(|(pid, _)| pid.parse::<u32>().ok());
        if let Some(pid) = download {
            if kind == Kind::File && pid != std::process::id() && !process_is_running(pid) {
                let _ = temporary.remove_file(name);
            }
            continue;
        }
        let Some(pid) = PREFIXES
            .iter()
            .find_map(|prefix| name.strip_prefix(prefix))
            .and_then(|rest| rest.split_once('-'))
            .filter(|(_, random)| !random.is_empty() && !random.contains('-') || is_uuid(random))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if kind == Kind::Directory && pid != std::process::id() && !process_is_running(pid) {
            let _ = temporary.remove_tree(name);
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

/// The random part of earlier versions' copies: a UUID (8-4-4-4-12 hex digits).
fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups.iter().zip([8, 4, 4, 4, 12]).all(|(group, length)| {
            group.len() == length && group.bytes().all(|b| b.is_ascii_hexdigit())
        })
}
