//! Filesystem operations squad relies on: publishing a staged directory without ever replacing
//! what is at the destination, syncing what was written (`durable.rs`), reading only regular
//! files, and ([`dir`]) working below an open directory without walking its path again.

// The one home of file-system calls (clippy.toml).
#![allow(clippy::disallowed_methods)]

pub mod dir;
mod durable;
mod plain;

pub use durable::{
    EARLY_SYNC_BYTES, EarlySync, start_sync, sync_all_at_once, sync_directory, sync_tree_at_once,
};

pub use plain::{
    canonicalize, create_dir, create_dir_all, metadata, open, read, read_dir, read_link,
    read_to_string, remove_dir, remove_dir_all, remove_file, rename, symlink_metadata,
};

use std::io;
use std::path::{Path, PathBuf};

/// `path` naming the entry itself: trailing separators and `.` components dropped. `lstat` of
/// `pkg/` resolves a link at `pkg`, so every check that the entry is not a link uses this.
pub fn entry_path(path: &Path) -> PathBuf {
    let normalised: PathBuf = path.components().collect();
    if normalised.as_os_str().is_empty() {
        path.to_path_buf()
    } else {
        normalised
    }
}

/// Whether [`open_regular`] follows a link at the path itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Package files, manifests, configs squad rewrites: a link is refused, never followed.
    Refuse,
    /// A file the user names on the command line (an archive): a link to a regular file is
    /// read.
    Follow,
}

/// Opens the file at `path` for reading only if it is a regular file: its type is checked
/// before the open (a FIFO would hang squad forever, a device read has side effects), and the
/// open itself never blocks on a FIFO swapped in meanwhile (`O_NONBLOCK`, then `fstat`); with
/// [`Links::Refuse`] a link is refused (`lstat`, then `O_NOFOLLOW`).
pub fn open_regular(path: &Path, links: Links) -> io::Result<std::fs::File> {
    open_regular_sized(path, links).map(|(file, _)| file)
}

/// [`open_regular`], with the size the opened file had.
fn open_regular_sized(path: &Path, links: Links) -> io::Result<(std::fs::File, u64)> {
    let path = entry_path(path);
    let metadata = match links {
        Links::Refuse => std::fs::symlink_metadata(&path)?,
        Links::Follow => std::fs::metadata(&path)?,
    };
    if !metadata.file_type().is_file() {
        return Err(dir::not_a_regular_file());
    }
    open_checked_sized(&path, links)
}

/// [`open_regular`] without the look before the open, for a file a tree walk has just seen
/// as a regular file (the validator's and the digest's reads, one system call less per file):
/// the open still neither follows a link nor blocks on a FIFO swapped in since, and what it
/// opened is still checked.
pub fn open_regular_seen(path: &Path) -> io::Result<std::fs::File> {
    open_checked(path, Links::Refuse)
}

fn open_checked(path: &Path, links: Links) -> io::Result<std::fs::File> {
    open_checked_sized(path, links).map(|(file, _)| file)
}

/// [`open_checked`], with the size the opened file had.
fn open_checked_sized(path: &Path, links: Links) -> io::Result<(std::fs::File, u64)> {
    // Outside Unix there is no flag for either; the checks after the open remain.
    #[cfg(not(unix))]
    let _ = links;
    let mut options = std::fs::File::options();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = rustix::fs::OFlags::NONBLOCK;
        if links == Links::Refuse {
            flags |= rustix::fs::OFlags::NOFOLLOW;
        }
        options.custom_flags(flags.bits() as i32);
    }
    let file = options.open(path).map_err(|error| {
        // ELOOP: a link was put there after the check.
        #[cfg(unix)]
        if error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
            return dir::not_a_regular_file();
        }
        error
    })?;
    let metadata = file.metadata()?;
    if !metadata.file_type().is_file() {
        return Err(dir::not_a_regular_file());
    }
    Ok((file, metadata.len()))
}

/// Copies what is left of `from` to the end of `to`, both regular files, and returns how many
/// bytes: by `copy_file_range` on Linux (in the kernel, as `std::io::copy` does, without its
/// two looks at the files first: a package's copy opens and checks both itself), else by
/// `std::io::copy`.
pub fn copy_contents(from: &mut std::fs::File, to: &mut std::fs::File) -> io::Result<u64> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let mut copied: u64 = 0;
        loop {
            match rustix::fs::copy_file_range(&*from, None, &*to, None, 1 << 30) {
                // Nothing at all copied may mean a file system that cannot say (procfs, some
                // FUSE ones): the standard library reads it instead, and so does this.
                Ok(0) if copied == 0 => return std::io::copy(from, to),
                Ok(0) => return Ok(copied),
                Ok(count) => copied += count as u64,
                Err(rustix::io::Errno::INTR) => {}
                // Where the kernel cannot (another file system before Linux 5.19, a file
                // system without it): the rest through user space.
                Err(
                    rustix::io::Errno::XDEV
                    | rustix::io::Errno::NOSYS
                    | rustix::io::Errno::OPNOTSUPP
                    | rustix::io::Errno::INVAL
                    | rustix::io::Errno::PERM,
                ) => return Ok(copied + std::io::copy(from, to)?),
                Err(error) => return Err(error.into()),
            }
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    std::io::copy(from, to)
}

/// The bytes of the regular file at `path` ([`open_regular`], links refused).
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    let (file, size) = open_regular_sized(path, Links::Refuse)?;
    read_opened(&file, size)
}

/// The bytes of `file`, opened with `size` bytes: room for them and one byte more, so that the
/// read ends without asking the file's size again (`File::read_to_end` would, with two more
/// system calls); a file that grew meanwhile is still read to its end.
fn read_opened(file: &std::fs::File, size: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
    file.take(u64::MAX).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read_regular`] of a file squad keeps itself under its data directory (a fingerprint read
/// for every installed squad by a no-op `sync`): without the look before the open, which is
/// there against a device put where a file is read, and a device in squad's own data is put
/// there by someone who can write squad's files (src/install/mod.rs, "threat model"). The open
/// still neither follows a link nor blocks, and what it opened must be a regular file.
pub fn read_own(path: &Path) -> io::Result<Vec<u8>> {
    let (file, size) = open_checked_sized(path, Links::Refuse)?;
    read_opened(&file, size)
}

/// The text of the regular file at `path` (links refused); `InvalidData` when it is not UTF-8.
pub fn read_regular_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read_regular(path)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "is not valid UTF-8"))
}

/// Renames `from` to `to`, failing with `AlreadyExists` if anything exists at `to` — even an
/// empty directory created a moment earlier, which plain `rename` would silently replace.
///
/// Linux and Android use `renameat2(RENAME_NOREPLACE)`, macOS and iOS `renameatx_np(RENAME_EXCL)`.
/// Elsewhere (and on Linux filesystems without the flag) the fallback checks, then renames: a
/// narrow race remains there, as in the reference.
pub fn rename_no_replace(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios"
    ))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(
                rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS | rustix::io::Errno::OPNOTSUPP,
            ) => {}
            Err(error) => return Err(error.into()),
        }
    }
    if to.symlink_metadata().is_ok() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "destination exists",
        ));
    }
    std::fs::rename(from, to)
}

/// What [`real_directory`] found at a path.
#[derive(Debug)]
pub enum RealDirectory {
    Absent,
    /// A directory that is not a link, with its metadata.
    Present(std::fs::Metadata),
    /// A link (to anything) or something that is not a directory: never written through.
    Refused,
}

/// Whether `path` is a real directory, without following a link at `path` itself; errors other
/// than its absence are returned.
pub fn real_directory(path: &Path) -> io::Result<RealDirectory> {
    match entry_path(path).symlink_metadata() {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(RealDirectory::Absent),
        Err(error) => Err(error),
        Ok(metadata) if metadata.file_type().is_symlink() || !metadata.is_dir() => {
            Ok(RealDirectory::Refused)
        }
        Ok(metadata) => Ok(RealDirectory::Present(metadata)),
    }
}

/// Writes `bytes` to `path` (which must not exist) and syncs the file.
pub fn write_new_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut file = std::fs::File::options()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// The directory `path` is in: `.` for a bare file name.
pub fn parent_directory(path: &Path) -> &Path {
    path.parent()
        .filter(|parent| !parent.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// `.<name of path>.<kind>-`: the prefix of a temporary entry beside `path`. The leading `.`
/// hides it, and the name says whose it is if a crash leaves it behind.
fn beside_prefix(path: &Path, kind: &str) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!(".{name}.{kind}-")
}

/// A new, empty file beside `path` (`.<name>.tmp-XXXXXX`), to be written and then renamed onto
/// it: the same directory keeps the rename on one file system, so it is atomic. `tempfile` picks
/// the unique name; the file is removed when the value is dropped unless it was persisted. Its
/// mode is the one a plain new file gets (0o666 less the umask), not tempfile's private 0o600.
pub fn create_beside(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    create_file_beside(path, 0o666)
}

/// [`create_beside`] for a file only its owner may read (mode 0600 on Unix) from the start.
pub fn create_private_beside(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    create_file_beside(path, 0o600)
}

fn create_file_beside(path: &Path, mode: u32) -> io::Result<tempfile::NamedTempFile> {
    let prefix = beside_prefix(path, "tmp");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    builder.tempfile_in(parent_directory(path))
}

/// Moves a finished temporary file from [`create_beside`] onto `path`, over what is there when
/// `replace`, else failing with `AlreadyExists` (tempfile renames with `RENAME_NOREPLACE`, as
/// [`rename_no_replace`] does); then syncs the directory.
pub fn publish_file(
    temporary: tempfile::NamedTempFile,
    path: &Path,
    replace: bool,
) -> io::Result<()> {
    let moved = if replace {
        temporary.persist(path)
    } else {
        temporary.persist_noclobber(path)
    };
    moved.map_err(|error| error.error)?;
    sync_directory(parent_directory(path));
    Ok(())
}

/// A new, empty directory beside `path` (`.<name>.staging-XXXXXX`), where a tree is built before
/// it is renamed onto `path`. It is removed with its contents when the value is dropped, unless
/// it was kept.
pub fn create_directory_beside(path: &Path) -> io::Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix(&beside_prefix(path, "staging"))
        .tempdir_in(parent_directory(path))
}

/// Replaces (or creates) a file atomically: a synced temporary file beside it, renamed over it,
/// keeping the old file's permissions; the directory is synced. Nothing is left on failure.
pub fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_file_then(path, bytes, &|| {})
}

/// [`replace_file`], calling `before_rename` once the temporary file is complete and synced
/// (crash tests stop there).
pub fn replace_file_then(path: &Path, bytes: &[u8], before_rename: &dyn Fn()) -> io::Result<()> {
    use std::io::Write;
    let mut temporary = create_beside(path)?;
    temporary.write_all(bytes)?;
    temporary.as_file().sync_all()?;
    if let Ok(metadata) = std::fs::metadata(path) {
        std::fs::set_permissions(temporary.path(), metadata.permissions())?;
    }
    before_rename();
    publish_file(temporary, path, true)
}

/// [`replace_file`] without its syncs: the file is renamed into place whole, but may not be
/// on disk yet. For many files written together and made durable at once afterwards
/// ([`sync_files`]), as an index build writes them before its root.
pub fn replace_file_unsynced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut temporary = create_beside(path)?;
    temporary.write_all(bytes)?;
    if let Ok(metadata) = std::fs::metadata(path) {
        std::fs::set_permissions(temporary.path(), metadata.permissions())?;
    }
    temporary.persist(path).map_err(|error| error.error)?;
    Ok(())
}

/// Flushes the files at `paths` and the directories they are in to disk, all at once
/// ([`sync_all_at_once`], a few hundred files open at a time): what [`replace_file_unsynced`]
/// wrote, made durable together.
pub fn sync_files(paths: &[PathBuf]) -> io::Result<()> {
    let mut directories: Vec<&Path> = paths.iter().map(|path| parent_directory(path)).collect();
    directories.sort();
    directories.dedup();
    for chunk in paths.chunks(256) {
        let files = chunk
            .iter()
            .map(std::fs::File::open)
            .collect::<io::Result<Vec<_>>>()?;
        let files: Vec<&std::fs::File> = files.iter().collect();
        sync_all_at_once(&files, &[])?;
    }
    for chunk in directories.chunks(256) {
        let opened = chunk
            .iter()
            .map(|directory| dir::Dir::open(directory))
            .collect::<io::Result<Vec<_>>>()?;
        let opened: Vec<&dir::Dir> = opened.iter().collect();
        sync_all_at_once(&[], &opened)?;
    }
    Ok(())
}

/// [`replace_file`] for a file only its owner may read (mode 0600 on Unix), such as stored
/// credentials: the temporary file is restricted before the first byte is written.
pub fn replace_private_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut temporary = create_private_beside(path)?;
    temporary.write_all(bytes)?;
    temporary.as_file().sync_all()?;
    publish_file(temporary, path, true)
}

/// A private directory of squad's under the system's temporary directory
/// (`squad-<what>-XXXXXX`), removed with everything in it when dropped: where an archive is
/// unpacked to be checked, or a copy of a package is edited and checked before the real one is
/// touched.
#[derive(Debug)]
pub struct ScratchDirectory {
    directory: tempfile::TempDir,
}

impl ScratchDirectory {
    pub fn new(what: &str) -> io::Result<ScratchDirectory> {
        let directory = tempfile::Builder::new()
            .prefix(&format!("squad-{what}-"))
            .tempdir()?;
        Ok(ScratchDirectory { directory })
    }

    pub fn path(&self) -> &Path {
        self.directory.path()
    }

    /// Writes `bytes` at the relative `path` inside, creating its directories.
    pub fn write(&self, path: &str, bytes: &[u8]) -> io::Result<()> {
        let target = self.path().join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(target, bytes)
    }

    /// Copies the regular files and directories of `from` (never following a link) inside.
    pub fn copy_tree(&self, from: &Path) -> io::Result<()> {
        copy_tree(from, self.path())
    }
}

/// Copies the regular files and directories of `from` into `to` (created if absent), never
/// following a link: a link, a FIFO or a device is left out.
pub fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.map_err(io::Error::other)?;
        let relative = entry.path().strip_prefix(from).map_err(io::Error::other)?;
        let kind = entry.file_type();
        if kind.is_dir() {
            std::fs::create_dir_all(to.join(relative))?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), to.join(relative))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contents_are_copied_whole_from_where_the_reader_is() {
        let scratch = ScratchDirectory::new("copy-contents").unwrap();
        for (index, size) in [0usize, 1, 4095, 4096, 200_001].into_iter().enumerate() {
            let bytes: Vec<u8> = (0..size).map(|at| (at % 251) as u8).collect();
            let from = format!("from-{index}");
            scratch.write(&from, &bytes).unwrap();
            let mut reader = std::fs::File::open(scratch.path().join(&from)).unwrap();
            let mut writer =
                std::fs::File::create(scratch.path().join(format!("to-{index}"))).unwrap();
            assert_eq!(
                copy_contents(&mut reader, &mut writer).unwrap(),
                size as u64
            );
            drop(writer);
            assert_eq!(
                std::fs::read(scratch.path().join(format!("to-{index}"))).unwrap(),
                bytes
            );
        }
        // From where the reader stands, after what it has read.
        let mut reader = std::fs::File::open(scratch.path().join("from-4")).unwrap();
        std::io::Read::read_exact(&mut reader, &mut [0; 10]).unwrap();
        let mut writer = std::fs::File::create(scratch.path().join("rest")).unwrap();
        assert_eq!(
            copy_contents(&mut reader, &mut writer).unwrap(),
            200_001 - 10
        );
    }

    #[test]
    fn refuses_an_existing_destination_even_an_empty_directory() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from");
        let to = dir.path().join("to");
        std::fs::create_dir(&from).unwrap();
        std::fs::write(from.join("x"), "x").unwrap();
        std::fs::create_dir(&to).unwrap();
        let error = rename_no_replace(&from, &to).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        assert!(from.join("x").exists());
        std::fs::remove_dir(&to).unwrap();
        rename_no_replace(&from, &to).unwrap();
        assert!(to.join("x").exists() && !from.exists());
    }

    #[test]
    fn only_a_real_directory_is_present() {
        let dir = tempfile::tempdir().unwrap();
        let found = |name: &str| real_directory(&dir.path().join(name)).unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        std::fs::write(dir.path().join("f"), "x").unwrap();
        assert!(matches!(found("d"), RealDirectory::Present(m) if m.is_dir()));
        assert!(matches!(found("f"), RealDirectory::Refused));
        assert!(matches!(found("none"), RealDirectory::Absent));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("d"), dir.path().join("l")).unwrap();
            assert!(matches!(found("l"), RealDirectory::Refused));
        }
    }

    #[test]
    fn replace_file_keeps_permissions_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.json");
        replace_file(&path, b"one").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        }
        let before = std::fs::metadata(&path).unwrap().permissions();
        replace_file(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions(), before);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f.json"]);
    }

    #[test]
    fn temporaries_beside_a_file_are_distinct_and_go_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.zip");
        let first = create_beside(&path).unwrap();
        let second = create_beside(&path).unwrap();
        let staging = create_directory_beside(&path).unwrap();
        assert_ne!(first.path(), second.path());
        assert_eq!(first.path().parent(), Some(dir.path()));
        let name = |path: &Path| path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name(first.path()).starts_with(".out.zip.tmp-"));
        assert!(name(staging.path()).starts_with(".out.zip.staging-"));
        #[cfg(unix)]
        {
            // The modes of a plain new file and directory, not tempfile's private ones.
            use std::os::unix::fs::PermissionsExt;
            let umask = {
                let probe = dir.path().join("probe");
                std::fs::write(&probe, "").unwrap();
                let mode = std::fs::metadata(&probe).unwrap().permissions().mode();
                std::fs::remove_file(&probe).unwrap();
                0o666 & !mode & 0o777
            };
            let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(first.path()), 0o666 & !umask);
            assert_eq!(mode(staging.path()), 0o777 & !umask);
        }
        drop((first, second, staging));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
