//! Reading the package to install exactly once (INS-1, INS-9, ZIP-7): a folder is copied file by
//! file, an archive's checked entries are written, into a private directory under `<R>/tmp`.
//! Validation, the digest, the expectations and the install all use that copy, so what was
//! validated is what gets installed, whatever happens to the source meanwhile (a manifest
//! swapped between two reads could otherwise install a package `validate` refuses).
//!
//! Only regular files are read, without following links or blocking on a FIFO; a source whose
//! tree breaks the rules (links, FIFOs, runtime-internal names) is validated in place instead,
//! for the diagnostics, and never copied. The copy is renamed into the scope's scratch
//! directory as the staging directory when both are on one file system (no second copy), and
//! removed otherwise when the install ends.

use std::collections::HashMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::archive::reader::{Limits, read_package};
use crate::fs::dir::{Dir, Kind};

use super::scope::Locations;
use super::{InstallError, io, uuid};

/// squad's prefix for its private copies under `<R>/tmp`, followed by the process id and a
/// UUID: the reference's `expert-squad-archive-*` directories are never touched
/// (security-cases §2.6). `squad-archive-` is the prefix of earlier versions, cleaned too.
const PREFIXES: [&str; 2] = ["squad-source-", "squad-archive-"];

/// A private copy of a package, removed when dropped unless it was moved into a scope.
pub struct Copy {
    parent: Dir,
    name: String,
    dir: Dir,
    path: PathBuf,
    moved: bool,
}

impl Copy {
    /// A new empty private directory under `<R>/tmp`; stale copies of squad processes that no
    /// longer run are removed first.
    fn create(locations: &Locations) -> Result<Copy, InstallError> {
        let root = &locations.temporary;
        crate::fs::create_dir_all(root).map_err(io(root))?;
        let parent = Dir::open(root).map_err(io(root))?;
        remove_stale(&parent);
        let name = format!("{}{}-{}", PREFIXES[0], std::process::id(), uuid());
        parent.create_dir(&name).map_err(io(&parent.shown(&name)))?;
        let dir = parent
            .open_dir(&name)
            .and_then(|dir| dir.ok_or_else(|| io::ErrorKind::NotFound.into()))
            .map_err(io(&parent.shown(&name)))?;
        Ok(Copy {
            path: parent.shown(&name),
            parent,
            name,
            dir,
            moved: false,
        })
    }

    /// Where the copy is, for the validator and the digest (squad's own directory).
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn dir(&self) -> &Dir {
        &self.dir
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

impl Drop for Copy {
    fn drop(&mut self) {
        if !self.moved {
            let _ = self.parent.remove_tree(&self.name);
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
pub fn copy_folder(source: &Path, locations: &Locations) -> Result<Copy, InstallError> {
    let invalid = || match crate::package::validate(source) {
        Ok(report) if report.is_valid() => Err(InstallError::Recovery(format!(
            "`{}` changed while it was read; nothing was installed",
            source.display()
        ))),
        Ok(report) => Err(InstallError::Invalid(Box::new(report))),
        Err(error) => Err(validate_error(source, error)),
    };
    match crate::fs::real_directory(source).map_err(io(source))? {
        crate::fs::RealDirectory::Absent => {
            return Err(validate_error(
                source,
                crate::package::ValidateError::NotFound(source.to_path_buf()),
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
    let copy = Copy::create(locations)?;
    let mut writer = Below::writing(copy.dir());
    for entry in &tree.entries {
        let from = source.join(&entry.path);
        if !entry.is_file() {
            writer.directory(&entry.path).map_err(io(&from))?;
            continue;
        }
        let mut file = match crate::fs::open_regular(&from, crate::fs::Links::Refuse) {
            Ok(file) => file,
            // Replaced since the walk (by a link, a FIFO…): the validator says what it is now.
            Err(error) if error.kind() == io::ErrorKind::InvalidInput => return invalid(),
            Err(error) => return Err(InstallError::Io(from, error)),
        };
        let mut to = writer.create_file(&entry.path).map_err(io(&from))?;
        std::io::copy(&mut file, &mut to).map_err(io(&from))?;
    }
    Ok(copy)
}

fn validate_error(source: &Path, error: crate::package::ValidateError) -> InstallError {
    InstallError::Io(
        source.to_path_buf(),
        io::Error::other(crate::error::chain(&error)),
    )
}

/// Checks the archive `archive` (ZIP-1…ZIP-6) and writes its files into a new private
/// directory (ZIP-7).
pub fn extract_archive(archive: &Path, locations: &Locations) -> Result<Copy, InstallError> {
    // An archive that cannot be read is an I/O failure (exit 2), not a refused archive; a
    // FIFO or a device is refused before it is opened.
    let mut file =
        crate::fs::open_regular(archive, crate::fs::Links::Follow).map_err(io(archive))?;
    let limit = Limits::REFERENCE.archive_bytes;
    let size = file.metadata().map_err(io(archive))?.len();
    if size > limit {
        return Err(InstallError::Archive(
            crate::archive::reader::ArchiveError {
                entry: None,
                message: format!("archive is {size} bytes, more than the limit of {limit}"),
            },
        ));
    }
    let mut bytes = Vec::new();
    file.by_ref()
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(io(archive))?;
    extract_archive_bytes(&bytes, locations)
}

/// [`extract_archive`] for the bytes of an archive.
pub fn extract_archive_bytes(bytes: &[u8], locations: &Locations) -> Result<Copy, InstallError> {
    let package = read_package(bytes, &Limits::REFERENCE).map_err(InstallError::Archive)?;
    let copy = Copy::create(locations)?;
    let mut writer = Below::writing(copy.dir());
    for (path, content) in &package.files {
        let shown = copy.path().join(path);
        use std::io::Write;
        writer
            .create_file(path)
            .and_then(|mut file| file.write_all(content))
            .map_err(io(&shown))?;
    }
    Ok(copy)
}

/// Copies `files` (package-relative) from `from` into `to` through descriptors on both sides.
pub fn copy_files(from: &Dir, files: &[String], to: &Dir) -> io::Result<()> {
    let mut reader = Below::reading(from);
    let mut writer = Below::writing(to);
    for file in files {
        let mut source = reader.open_file(file)?;
        let mut target = writer.create_file(file)?;
        std::io::copy(&mut source, &mut target)?;
    }
    Ok(())
}

/// Opens `files` under `root` and every directory on their way (for syncing them): regular
/// files only, never through a link.
pub fn open_tree(root: &Dir, files: &[String]) -> io::Result<(Vec<std::fs::File>, Vec<Dir>)> {
    let mut reader = Below::reading(root);
    let mut opened = Vec::with_capacity(files.len());
    for file in files {
        opened.push(reader.open_file(file)?);
    }
    Ok((opened, reader.directories.into_values().collect()))
}

/// Splits `relative` into its parent directory path (`""` at the root) and its file name.
fn split(relative: &str) -> (&str, &str) {
    relative.rsplit_once('/').unwrap_or(("", relative))
}

/// Package-relative paths below a directory, through descriptors: each parent directory is
/// created (when writing) or opened (when reading, never through a link) once.
struct Below<'a> {
    root: &'a Dir,
    directories: HashMap<String, Dir>,
    create: bool,
}

impl<'a> Below<'a> {
    fn writing(root: &'a Dir) -> Below<'a> {
        Below {
            root,
            directories: HashMap::new(),
            create: true,
        }
    }

    fn reading(root: &'a Dir) -> Below<'a> {
        Below {
            create: false,
            ..Below::writing(root)
        }
    }

    /// The directory at `relative`, created if needed when writing.
    fn directory(&mut self, relative: &str) -> io::Result<&Dir> {
        if relative.is_empty() {
            return Ok(self.root);
        }
        if !self.directories.contains_key(relative) {
            let (parent, name) = split(relative);
            let create = self.create;
            let parent = self.directory(parent)?;
            let directory = if create {
                parent.ensure_dir(name)?
            } else {
                parent
                    .open_dir(name)?
                    .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?
            };
            self.directories.insert(relative.to_owned(), directory);
        }
        Ok(&self.directories[relative])
    }

    fn create_file(&mut self, relative: &str) -> io::Result<std::fs::File> {
        let (parent, name) = split(relative);
        self.directory(parent)?.create_file(name)
    }

    fn open_file(&mut self, relative: &str) -> io::Result<std::fs::File> {
        let (parent, name) = split(relative);
        self.directory(parent)?.open_file(name)
    }
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
            .filter(|(_, operation)| super::journal::is_uuid(operation))
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
