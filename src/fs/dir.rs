//! A directory held open, and every operation squad does below it done *relative to that
//! descriptor* with a single name: `mkdirat`, `openat`, `renameat2`, `unlinkat`, `fstatat`.
//! No path string is walked again from the root once a directory is open, and no link is
//! followed below it (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`): if another process renames an
//! opened directory or puts a link in its place, squad keeps working in the directory it opened
//! and never writes or deletes through the link (install/mod.rs, "threat model").
//!
//! Every name is one path component (no `/`, not `.` or `..`), so a lookup never crosses more
//! than the one entry it names: that is `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` by
//! construction, on every kernel, without `openat2`.
//!
//! Outside Unix the same operations are done by path (no directory descriptors there); only
//! Linux carries the guarantee.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What an entry is, links not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Directory,
    File,
    Link,
    /// FIFOs, sockets, devices.
    Other,
}

/// An entry's type and identity, links not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub kind: Kind,
    /// `(device, inode)`: the same pair means the same file.
    pub identity: (u64, u64),
    pub modified: SystemTime,
}

/// What a file's metadata says of its identity and content, for the install fingerprints
/// (install/fingerprint.rs): device and inode, mode, size, and the modification and change
/// times as `(seconds, nanoseconds)`. Writing a file's bytes, its mode or its times, or
/// replacing it, changes at least one of them; the change time (`ctime`) cannot be set back by
/// an unprivileged process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stamp {
    pub device: u64,
    pub inode: u64,
    pub mode: u32,
    pub size: u64,
    pub modified: (i64, i64),
    pub changed: (i64, i64),
}

/// The error for a link, or anything but a directory, where a directory is expected.
pub fn not_a_directory() -> io::Error {
    io::Error::other("is a symbolic link or not a directory; squad never works through it")
}

/// The error for anything but a regular file where a file is read (a FIFO would block the
/// reader forever, a device has side effects, a link leads elsewhere).
pub fn not_a_regular_file() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "is not a regular file (a link, FIFO, socket or device); refusing to read it",
    )
}

fn check_name(name: &str) -> io::Result<()> {
    if !is_single_name(name.as_bytes()) {
        return Err(not_a_single_name(name));
    }
    #[cfg(windows)]
    if name.contains(['\\', ':']) {
        return Err(not_a_single_name(name));
    }
    Ok(())
}

/// Whether `name` is one file name: not empty, `.` or `..`, and holding neither `/` nor NUL.
/// Byte by byte: a no-op `sync` asks it of every name of every installed package.
fn is_single_name(name: &[u8]) -> bool {
    !(name.is_empty()
        || name == b"."
        || name == b".."
        || name.iter().any(|&byte| byte == b'/' || byte == 0))
}

fn not_a_single_name(name: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("`{name}` is not a single file name"),
    )
}

/// An open directory. `path` is where it was when opened, for messages only: it is never used
/// to reach the directory again (outside Unix, where it must be).
#[derive(Debug)]
pub struct Dir {
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
    path: PathBuf,
}

impl Dir {
    /// Where the directory was when it was opened (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path of the entry `name`, for messages.
    pub fn shown(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Removes the entry `name` and everything below it; nothing to do when it is absent. A
    /// link is removed, never followed. Descriptor-relative all the way down, with an explicit
    /// stack, so a hostile deep tree cannot overflow the call stack.
    pub fn remove_tree(&self, name: &str) -> io::Result<()> {
        let top = match self.status(name)? {
            None => return Ok(()),
            Some(status) if status.kind == Kind::Directory => match self.open_dir(name)? {
                Some(top) => top,
                None => return Ok(()),
            },
            Some(_) => return self.remove_file(name),
        };
        let mut stack: Vec<(Dir, String)> = vec![(top, name.to_owned())];
        while let Some((current, _)) = stack.last() {
            let mut child = None;
            for (entry, kind) in current.entries()? {
                let Some(entry) = entry.to_str() else {
                    return Err(io::Error::other(format!(
                        "`{}` holds a name that is not UTF-8",
                        current.path.display()
                    )));
                };
                if kind == Kind::Directory {
                    child = Some((current.open_dir(entry)?, entry.to_owned()));
                    break;
                }
                match current.remove_file(entry) {
                    Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                    other => other?,
                }
            }
            match child {
                Some((Some(child), entry)) => stack.push((child, entry)),
                // Gone meanwhile: list again.
                Some((None, _)) => {}
                None => {
                    let (done, entry) = stack.pop().expect("the stack is not empty");
                    drop(done);
                    let parent = stack.last().map_or(self, |(parent, _)| parent);
                    match parent.remove_dir(&entry) {
                        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                        other => other?,
                    }
                }
            }
        }
        Ok(())
    }

    /// Creates the directory `name` (absent, or already a real directory) and opens it.
    pub fn ensure_dir(&self, name: &str) -> io::Result<Dir> {
        match self.create_dir(name) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
        self.open_dir(name)?
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }

    /// Replaces (or creates) the file `name` atomically: a synced temporary file beside it,
    /// renamed over it, keeping the old file's permissions; the directory is synced. A link at
    /// `name` is replaced, never written through.
    pub fn replace_file(&self, name: &str, bytes: &[u8]) -> io::Result<()> {
        use std::io::Write;
        check_name(name)?;
        let permissions = match self.status(name)? {
            Some(status) if status.kind == Kind::File => {
                Some(self.open_regular(name)?.metadata()?.permissions())
            }
            _ => None,
        };
        let (temporary, mut file) = (0..100u32)
            .find_map(|attempt| {
                let temporary = format!(".{name}.tmp-{}-{attempt}", std::process::id());
                match self.create_file(&temporary) {
                    Err(error) if error.kind() == io::ErrorKind::AlreadyExists => None,
                    result => Some(result.map(|file| (temporary, file))),
                }
            })
            .unwrap_or_else(|| {
                Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "no free temporary name beside it",
                ))
            })?;
        let result = (|| {
            file.write_all(bytes)?;
            if let Some(permissions) = permissions {
                file.set_permissions(permissions)?;
            }
            file.sync_all()?;
            self.rename(&temporary, self, name)?;
            self.sync()
        })();
        if result.is_err() {
            let _ = self.remove_file(&temporary);
        }
        result
    }

    /// Opens the regular file `name` for reading: anything else is refused before it is opened
    /// (a FIFO would block), and the open itself neither follows a link nor blocks.
    pub fn open_file(&self, name: &str) -> io::Result<File> {
        match self.status(name)? {
            Some(status) if status.kind == Kind::File => {}
            Some(_) => return Err(not_a_regular_file()),
            None => return Err(io::ErrorKind::NotFound.into()),
        }
        self.open_regular(name)
    }

    /// Renames `name` to `to`/`to_name`, failing with `AlreadyExists` if anything is there
    /// (even an empty directory, which a plain rename replaces).
    pub fn rename_no_replace(&self, name: &str, to: &Dir, to_name: &str) -> io::Result<()> {
        check_name(name)?;
        check_name(to_name)?;
        #[cfg(any(
            target_os = "linux",
            target_os = "android",
            target_os = "macos",
            target_os = "ios"
        ))]
        {
            use rustix::fs::{RenameFlags, renameat_with};
            match renameat_with(&self.fd, name, &to.fd, to_name, RenameFlags::NOREPLACE) {
                Ok(()) => return Ok(()),
                // No support in this file system: the id lock is held and the target's
                // absence was checked under it (security-cases §2.2), so check and rename.
                Err(
                    rustix::io::Errno::INVAL
                    | rustix::io::Errno::NOSYS
                    | rustix::io::Errno::OPNOTSUPP,
                ) => {}
                Err(error) => return Err(error.into()),
            }
        }
        if to.status(to_name)?.is_some() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "destination exists",
            ));
        }
        self.rename(name, to, to_name)
    }
}

#[cfg(unix)]
pub use unix::stamp_path;

/// No change times outside Unix: nothing is stamped, every source is hashed.
#[cfg(not(unix))]
pub fn stamp_path(_path: &Path) -> io::Result<Stamp> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(unix)]
mod unix {
    use std::os::fd::{AsFd, AsRawFd};

    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use rustix::io::Errno;

    use super::*;

    // The field types of `stat` differ between targets.
    #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
    fn status_of(stat: &rustix::fs::Stat) -> Status {
        let kind = match FileType::from_raw_mode(stat.st_mode as rustix::fs::RawMode) {
            FileType::Directory => Kind::Directory,
            FileType::RegularFile => Kind::File,
            FileType::Symlink => Kind::Link,
            _ => Kind::Other,
        };
        let modified = i64::from(stat.st_mtime).try_into().ok().map_or(
            SystemTime::UNIX_EPOCH,
            |seconds: u64| {
                SystemTime::UNIX_EPOCH
                    + std::time::Duration::new(
                        seconds,
                        u32::try_from(stat.st_mtime_nsec).unwrap_or(0),
                    )
            },
        );
        Status {
            kind,
            identity: (u64::from(stat.st_dev), u64::from(stat.st_ino)),
            modified,
        }
    }

    // The field types of `stat` differ between targets.
    #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
    fn stamp_of(stat: &rustix::fs::Stat) -> Stamp {
        Stamp {
            device: u64::from(stat.st_dev),
            inode: u64::from(stat.st_ino),
            mode: stat.st_mode as u32,
            size: stat.st_size as u64,
            modified: (i64::from(stat.st_mtime), stat.st_mtime_nsec as i64),
            changed: (i64::from(stat.st_ctime), stat.st_ctime_nsec as i64),
        }
    }

    /// The [`Stamp`] of the file at `path`, links on the way and at the end followed.
    pub fn stamp_path(path: &Path) -> io::Result<Stamp> {
        Ok(stamp_of(&rustix::fs::stat(path)?))
    }

    fn directory_flags() -> OFlags {
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
    }

    impl Dir {
        /// Opens the directory at `path`, following links on the way: the roots squad is given
        /// are followed once, and everything below them is reached through this descriptor.
        pub fn open(path: &Path) -> io::Result<Dir> {
            let fd = rustix::fs::open(
                path,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(Dir {
                fd,
                path: path.to_path_buf(),
            })
        }

        /// Opens the directory at `path` when it is one, its last name not followed: `None`
        /// when absent, an error when it is a link or not a directory. One system call where a
        /// look, then an open, would take two (a no-op `sync` opens every installed package).
        pub fn open_real(path: &Path) -> io::Result<Option<Dir>> {
            match rustix::fs::open(path, directory_flags(), Mode::empty()) {
                Ok(fd) => Ok(Some(Dir {
                    fd,
                    path: path.to_path_buf(),
                })),
                Err(Errno::NOENT) => Ok(None),
                Err(Errno::LOOP | Errno::NOTDIR) => Err(not_a_directory()),
                Err(error) => Err(error.into()),
            }
        }

        /// Opens the child directory `name`; `None` when absent, an error when it is a link
        /// or not a directory.
        pub fn open_dir(&self, name: &str) -> io::Result<Option<Dir>> {
            check_name(name)?;
            match rustix::fs::openat(&self.fd, name, directory_flags(), Mode::empty()) {
                Ok(fd) => Ok(Some(Dir {
                    fd,
                    path: self.path.join(name),
                })),
                Err(Errno::NOENT) => Ok(None),
                Err(Errno::LOOP | Errno::NOTDIR) => Err(not_a_directory()),
                Err(error) => Err(error.into()),
            }
        }

        /// Creates the directory `name` (`AlreadyExists` if anything is there).
        pub fn create_dir(&self, name: &str) -> io::Result<()> {
            check_name(name)?;
            rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o755))?;
            Ok(())
        }

        /// The entry `name`, links not followed; `None` when absent.
        pub fn status(&self, name: &str) -> io::Result<Option<Status>> {
            check_name(name)?;
            match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => Ok(Some(status_of(&stat))),
                Err(Errno::NOENT) => Ok(None),
                Err(error) => Err(error.into()),
            }
        }

        /// This directory's own status.
        pub fn own_status(&self) -> io::Result<Status> {
            Ok(status_of(&rustix::fs::fstat(&self.fd)?))
        }

        /// This directory's own [`Stamp`].
        pub fn own_stamp(&self) -> io::Result<Stamp> {
            Ok(stamp_of(&rustix::fs::fstat(&self.fd)?))
        }

        /// The entry `name`'s kind and [`Stamp`], links not followed; `None` when absent.
        pub fn stamp(&self, name: &str) -> io::Result<Option<(Kind, Stamp)>> {
            check_name(name)?;
            match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => Ok(Some((status_of(&stat).kind, stamp_of(&stat)))),
                Err(Errno::NOENT) => Ok(None),
                Err(error) => Err(error.into()),
            }
        }

        /// [`Dir::stamp`] of the entry at the `/`-separated `relative` path below this
        /// directory, in one system call; the last name is not followed when it is a link.
        /// The names on the way are resolved by the kernel, so a caller that must not pass
        /// through a link checks each directory on the way itself (its own stamp says so).
        pub fn stamp_below(&self, relative: &str) -> io::Result<Option<(Kind, Stamp)>> {
            for name in relative.as_bytes().split(|&byte| byte == b'/') {
                if !is_single_name(name) {
                    return Err(not_a_single_name(&String::from_utf8_lossy(name)));
                }
            }
            match rustix::fs::statat(&self.fd, relative, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => Ok(Some((status_of(&stat).kind, stamp_of(&stat)))),
                Err(Errno::NOENT | Errno::NOTDIR) => Ok(None),
                Err(error) => Err(error.into()),
            }
        }

        /// The file system's clock, read where this directory is: its times set to now by the
        /// kernel, and the change time it recorded (the clock every later change of a file on
        /// this file system is stamped with, at the file system's granularity).
        pub fn clock(&self) -> io::Result<(i64, i64)> {
            // Looked at first: where the file system keeps multigrain timestamps (ext4, XFS,
            // Btrfs and tmpfs since Linux 6.13), a change to an inode whose times were read
            // is stamped with the fine-grained time, not the start of the clock tick, and no
            // later change anywhere on the file system is stamped earlier. The reading is then
            // "now", and what changed earlier in the same tick is not racy.
            rustix::fs::fstat(&self.fd)?;
            let now = rustix::fs::Timespec {
                tv_sec: 0,
                tv_nsec: rustix::fs::UTIME_NOW,
            };
            rustix::fs::futimens(
                &self.fd,
                &rustix::fs::Timestamps {
                    last_access: rustix::fs::Timespec {
                        tv_sec: 0,
                        tv_nsec: rustix::fs::UTIME_OMIT,
                    },
                    last_modification: now,
                },
            )?;
            Ok(stamp_of(&rustix::fs::fstat(&self.fd)?).changed)
        }

        /// Every entry but `.` and `..`, with its kind (links not followed), in directory order.
        pub fn entries(&self) -> io::Result<Vec<(OsString, Kind)>> {
            use std::os::unix::ffi::OsStrExt;
            let mut entries = Vec::new();
            for entry in rustix::fs::Dir::read_from(&self.fd)? {
                let entry = entry?;
                let name = entry.file_name().to_bytes();
                if name == b"." || name == b".." {
                    continue;
                }
                let name = std::ffi::OsStr::from_bytes(name).to_owned();
                let kind = match entry.file_type() {
                    FileType::Directory => Kind::Directory,
                    FileType::RegularFile => Kind::File,
                    FileType::Symlink => Kind::Link,
                    FileType::Unknown => match name.to_str() {
                        Some(text) => self.status(text)?.map_or(Kind::Other, |s| s.kind),
                        None => Kind::Other,
                    },
                    _ => Kind::Other,
                };
                entries.push((name, kind));
            }
            Ok(entries)
        }

        /// Creates the new file `name` for writing (`AlreadyExists` if anything is there, a
        /// link included).
        pub fn create_file(&self, name: &str) -> io::Result<File> {
            check_name(name)?;
            let fd = rustix::fs::openat(
                &self.fd,
                name,
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::from_raw_mode(0o644),
            )?;
            Ok(File::from(fd))
        }

        /// Opens `name` without following a link and without blocking on a FIFO, and keeps
        /// it only if it is a regular file.
        pub(super) fn open_regular(&self, name: &str) -> io::Result<File> {
            check_name(name)?;
            let fd = rustix::fs::openat(
                &self.fd,
                name,
                OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|error| match error {
                Errno::LOOP => not_a_regular_file(),
                other => other.into(),
            })?;
            if status_of(&rustix::fs::fstat(&fd)?).kind != Kind::File {
                return Err(not_a_regular_file());
            }
            Ok(File::from(fd))
        }

        /// Renames `name` to `to`/`to_name`, replacing what is there as `rename(2)` does.
        pub fn rename(&self, name: &str, to: &Dir, to_name: &str) -> io::Result<()> {
            check_name(name)?;
            check_name(to_name)?;
            rustix::fs::renameat(&self.fd, name, &to.fd, to_name)?;
            Ok(())
        }

        pub fn remove_file(&self, name: &str) -> io::Result<()> {
            check_name(name)?;
            rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?;
            Ok(())
        }

        /// Removes the empty directory `name`.
        pub fn remove_dir(&self, name: &str) -> io::Result<()> {
            check_name(name)?;
            rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR)?;
            Ok(())
        }

        /// Takes a shared advisory lock on this directory (`flock`), held until it is closed:
        /// squad processes working in a shared directory hold it so that none removes the
        /// directory under another ([`Dir::try_lock_exclusive`]).
        pub fn lock_shared(&self) -> io::Result<()> {
            rustix::fs::flock(&self.fd, rustix::fs::FlockOperation::LockShared)?;
            Ok(())
        }

        /// Takes the exclusive lock without waiting; `false` when another holder has it (a
        /// shared lock this descriptor held is given up either way, as `flock` converts).
        pub fn try_lock_exclusive(&self) -> io::Result<bool> {
            match rustix::fs::flock(
                &self.fd,
                rustix::fs::FlockOperation::NonBlockingLockExclusive,
            ) {
                Ok(()) => Ok(true),
                Err(Errno::WOULDBLOCK) => Ok(false),
                Err(error) => Err(error.into()),
            }
        }

        /// Flushes the directory's entries to disk.
        pub fn sync(&self) -> io::Result<()> {
            rustix::fs::fsync(&self.fd)?;
            Ok(())
        }

        /// The descriptor, for what works on any open file (the file system it is on).
        pub fn descriptor(&self) -> std::os::fd::BorrowedFd<'_> {
            self.fd.as_fd()
        }

        /// Sets the directory's mtime to now and returns what the file system recorded.
        pub fn touch(&self) -> io::Result<SystemTime> {
            let file = File::from(self.fd.try_clone()?);
            file.set_modified(SystemTime::now())?;
            Ok(self.own_status()?.modified)
        }

        /// A path that reaches this very directory for code that can only take paths (the
        /// package digest, the validator): `/proc/self/fd/<n>` on Linux, which the kernel
        /// resolves to the open directory itself, not by walking its old path again. Where
        /// `/proc` is not mounted, the path it was opened at.
        pub fn reading_path(&self) -> PathBuf {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            {
                static PROC: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
                if *PROC.get_or_init(|| Path::new("/proc/self/fd").is_dir()) {
                    return PathBuf::from(format!("/proc/self/fd/{}", self.fd.as_fd().as_raw_fd()));
                }
            }
            self.path.clone()
        }
    }
}

#[cfg(not(unix))]
mod portable {
    use super::*;

    fn kind_of(file_type: std::fs::FileType) -> Kind {
        if file_type.is_symlink() {
            Kind::Link
        } else if file_type.is_dir() {
            Kind::Directory
        } else if file_type.is_file() {
            Kind::File
        } else {
            Kind::Other
        }
    }

    impl Dir {
        pub fn open(path: &Path) -> io::Result<Dir> {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(not_a_directory());
            }
            Ok(Dir {
                path: path.to_path_buf(),
            })
        }

        pub fn open_real(path: &Path) -> io::Result<Option<Dir>> {
            match std::fs::symlink_metadata(path) {
                Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(error) => Err(error),
                Ok(metadata) if metadata.is_dir() => Ok(Some(Dir {
                    path: path.to_path_buf(),
                })),
                Ok(_) => Err(not_a_directory()),
            }
        }

        pub fn open_dir(&self, name: &str) -> io::Result<Option<Dir>> {
            match self.status(name)? {
                None => Ok(None),
                Some(status) if status.kind == Kind::Directory => Ok(Some(Dir {
                    path: self.path.join(name),
                })),
                Some(_) => Err(not_a_directory()),
            }
        }

        pub fn create_dir(&self, name: &str) -> io::Result<()> {
            check_name(name)?;
            std::fs::create_dir(self.path.join(name))
        }

        pub fn status(&self, name: &str) -> io::Result<Option<Status>> {
            check_name(name)?;
            match std::fs::symlink_metadata(self.path.join(name)) {
                Ok(metadata) => Ok(Some(Status {
                    kind: kind_of(metadata.file_type()),
                    identity: (0, 0),
                    modified: metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                })),
                Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(error) => Err(error),
            }
        }

        /// No change times here: fingerprints are not trusted, every package is hashed.
        pub fn stamp(&self, _name: &str) -> io::Result<Option<(Kind, Stamp)>> {
            Err(io::ErrorKind::Unsupported.into())
        }

        pub fn stamp_below(&self, _relative: &str) -> io::Result<Option<(Kind, Stamp)>> {
            Err(io::ErrorKind::Unsupported.into())
        }

        pub fn own_stamp(&self) -> io::Result<Stamp> {
            Err(io::ErrorKind::Unsupported.into())
        }

        pub fn clock(&self) -> io::Result<(i64, i64)> {
            Err(io::ErrorKind::Unsupported.into())
        }

        pub fn own_status(&self) -> io::Result<Status> {
            let metadata = std::fs::symlink_metadata(&self.path)?;
            Ok(Status {
                kind: kind_of(metadata.file_type()),
                identity: (0, 0),
                modified: metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            })
        }

        pub fn entries(&self) -> io::Result<Vec<(OsString, Kind)>> {
            let mut entries = Vec::new();
            for entry in std::fs::read_dir(&self.path)? {
                let entry = entry?;
                entries.push((entry.file_name(), kind_of(entry.file_type()?)));
            }
            Ok(entries)
        }

        pub fn create_file(&self, name: &str) -> io::Result<File> {
            check_name(name)?;
            File::options()
                .write(true)
                .create_new(true)
                .open(self.path.join(name))
        }

        pub(super) fn open_regular(&self, name: &str) -> io::Result<File> {
            check_name(name)?;
            let file = File::open(self.path.join(name))?;
            if !file.metadata()?.is_file() {
                return Err(not_a_regular_file());
            }
            Ok(file)
        }

        pub fn rename(&self, name: &str, to: &Dir, to_name: &str) -> io::Result<()> {
            check_name(name)?;
            check_name(to_name)?;
            std::fs::rename(self.path.join(name), to.path.join(to_name))
        }

        pub fn remove_file(&self, name: &str) -> io::Result<()> {
            check_name(name)?;
            std::fs::remove_file(self.path.join(name))
        }

        pub fn remove_dir(&self, name: &str) -> io::Result<()> {
            check_name(name)?;
            std::fs::remove_dir(self.path.join(name))
        }

        /// No advisory locks here: nothing is ever removed on the strength of one.
        pub fn lock_shared(&self) -> io::Result<()> {
            Ok(())
        }

        pub fn try_lock_exclusive(&self) -> io::Result<bool> {
            Ok(false)
        }

        pub fn sync(&self) -> io::Result<()> {
            crate::fs::sync_directory(&self.path);
            Ok(())
        }

        pub fn touch(&self) -> io::Result<SystemTime> {
            let file = File::open(&self.path)?;
            file.set_modified(SystemTime::now())?;
            file.metadata()?.modified()
        }

        pub fn reading_path(&self) -> PathBuf {
            self.path.clone()
        }
    }
}

/// Splits `relative` into its parent directory path (`""` at the root) and its file name.
fn split(relative: &str) -> (&str, &str) {
    relative.rsplit_once('/').unwrap_or(("", relative))
}

/// Package-relative, `/`-separated paths below an open directory, reached one name at a time:
/// each parent directory is created (when writing) or opened (when reading) once, never
/// through a link, so a link planted anywhere on the way is refused instead of followed.
pub struct Tree<'a> {
    root: &'a Dir,
    directories: HashMap<String, Dir>,
    create: bool,
    /// The directories this writer created, in order (for undoing its work).
    created: Vec<String>,
}

impl<'a> Tree<'a> {
    pub fn writing(root: &'a Dir) -> Tree<'a> {
        Tree {
            root,
            directories: HashMap::new(),
            create: true,
            created: Vec::new(),
        }
    }

    pub fn reading(root: &'a Dir) -> Tree<'a> {
        Tree {
            create: false,
            ..Tree::writing(root)
        }
    }

    /// The directory at `relative`, created if needed when writing.
    pub fn directory(&mut self, relative: &str) -> io::Result<&Dir> {
        if relative.is_empty() {
            return Ok(self.root);
        }
        if !self.directories.contains_key(relative) {
            let (parent, name) = split(relative);
            let create = self.create;
            let parent = self.directory(parent)?;
            let directory = if create {
                let made = match parent.create_dir(name) {
                    Ok(()) => true,
                    Err(error) if error.kind() == io::ErrorKind::AlreadyExists => false,
                    Err(error) => return Err(error),
                };
                let opened = parent
                    .open_dir(name)?
                    .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
                if made {
                    self.created.push(relative.to_owned());
                }
                opened
            } else {
                parent
                    .open_dir(name)?
                    .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?
            };
            self.directories.insert(relative.to_owned(), directory);
        }
        Ok(&self.directories[relative])
    }

    /// Creates the new file at `relative` (`AlreadyExists` when anything is there).
    pub fn create_file(&mut self, relative: &str) -> io::Result<File> {
        let (parent, name) = split(relative);
        self.directory(parent)?.create_file(name)
    }

    /// Opens the regular file at `relative` for reading.
    pub fn open_file(&mut self, relative: &str) -> io::Result<File> {
        let (parent, name) = split(relative);
        self.directory(parent)?.open_file(name)
    }

    /// Removes the file at `relative`, reached the same way.
    pub fn remove_file(&mut self, relative: &str) -> io::Result<()> {
        let (parent, name) = split(relative);
        self.directory(parent)?.remove_file(name)
    }

    /// Removes the directories this writer created, deepest first, when they are empty.
    pub fn remove_created_directories(&mut self) {
        let created = std::mem::take(&mut self.created);
        for relative in created.iter().rev() {
            self.directories.remove(relative);
            let (parent, name) = split(relative);
            if let Ok(parent) = self.directory(parent) {
                let _ = parent.remove_dir(name);
            }
        }
    }

    /// Every directory opened on the way.
    pub fn into_directories(self) -> Vec<Dir> {
        self.directories.into_values().collect()
    }
}

#[cfg(test)]
mod tests {

    #[cfg(unix)]
    #[test]
    fn stamp_below_reaches_only_names_below() {
        let scratch = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(scratch.path().join("a/b")).unwrap();
        std::fs::write(scratch.path().join("a/b/c.md"), b"c").unwrap();
        let dir = Dir::open(scratch.path()).unwrap();
        assert!(matches!(
            dir.stamp_below("a/b/c.md"),
            Ok(Some((Kind::File, _)))
        ));
        assert!(matches!(
            dir.stamp_below("a/b"),
            Ok(Some((Kind::Directory, _)))
        ));
        assert!(matches!(dir.stamp_below("a/x.md"), Ok(None)));
        for refused in ["", "/a", "a//b", "a/./b", "a/../a/b", "..", "a/b/", "a/\0"] {
            assert!(dir.stamp_below(refused).is_err(), "{refused:?}");
        }
    }
    use super::*;

    #[test]
    fn works_below_the_directory_it_opened_even_after_a_swap() {
        let dir = tempfile::tempdir().unwrap();
        let scope = dir.path().join("scope");
        std::fs::create_dir(&scope).unwrap();
        let opened = Dir::open(&scope).unwrap();
        let child = opened.ensure_dir("ns").unwrap();
        // Someone moves the scope away and puts a link to another directory in its place.
        let moved = dir.path().join("moved");
        let outside = dir.path().join("outside");
        std::fs::rename(&scope, &moved).unwrap();
        std::fs::create_dir(&outside).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, &scope).unwrap();
        use std::io::Write;
        child.create_file("a").unwrap().write_all(b"x").unwrap();
        opened.ensure_dir("other").unwrap();
        assert!(moved.join("ns/a").is_file() && moved.join("other").is_dir());
        #[cfg(unix)]
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        opened.remove_tree("ns").unwrap();
        assert!(!moved.join("ns").exists());
    }

    #[test]
    fn links_and_files_are_never_opened_as_directories_nor_followed_for_removal() {
        let dir = tempfile::tempdir().unwrap();
        let root = Dir::open(dir.path()).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep"), "x").unwrap();
        std::fs::write(dir.path().join("file"), "x").unwrap();
        assert!(root.open_dir("file").is_err());
        assert!(root.open_dir("absent").unwrap().is_none());
        assert!(root.ensure_dir("file").is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
            assert!(root.open_dir("link").is_err());
            assert_eq!(root.status("link").unwrap().unwrap().kind, Kind::Link);
            // A tree holding a link to the outside: the link goes, the outside stays.
            std::fs::create_dir_all(dir.path().join("tree/a/b")).unwrap();
            std::fs::write(dir.path().join("tree/a/b/f"), "x").unwrap();
            std::os::unix::fs::symlink(outside.path(), dir.path().join("tree/a/out")).unwrap();
            root.remove_tree("tree").unwrap();
            root.remove_tree("link").unwrap();
            assert!(!dir.path().join("tree").exists() && !dir.path().join("link").exists());
            assert!(outside.path().join("keep").is_file());
        }
        root.remove_tree("absent").unwrap();
        assert!(root.open_file("file").is_ok());
        for bad in ["", ".", "..", "a/b"] {
            assert_eq!(
                root.status(bad).unwrap_err().kind(),
                io::ErrorKind::InvalidInput
            );
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let root = Dir::open(dir.path()).unwrap();
        let error = root.open_file("fifo").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
        // The open itself does not block either, when the FIFO appears after the check.
        let error = root.open_regular("fifo").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn replace_file_keeps_permissions_and_replaces_a_link_without_following_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = Dir::open(dir.path()).unwrap();
        root.replace_file("c.json", b"one").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let path = dir.path().join("c.json");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
            root.replace_file("c.json", b"two").unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), b"two");
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o640);
            let outside = tempfile::tempdir().unwrap();
            std::fs::write(outside.path().join("target"), "keep").unwrap();
            std::os::unix::fs::symlink(outside.path().join("target"), dir.path().join("l"))
                .unwrap();
            root.replace_file("l", b"new").unwrap();
            assert_eq!(
                std::fs::read_to_string(outside.path().join("target")).unwrap(),
                "keep"
            );
            assert!(!dir.path().join("l").is_symlink());
        }
        let names: Vec<_> = root
            .entries()
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert!(
            names
                .iter()
                .all(|name| !name.to_string_lossy().contains(".tmp-")),
            "{names:?}"
        );
    }

    #[test]
    fn no_replace_refuses_an_empty_directory() {
        let dir = tempfile::tempdir().unwrap();
        let root = Dir::open(dir.path()).unwrap();
        root.create_dir("from").unwrap();
        root.create_dir("to").unwrap();
        let error = root.rename_no_replace("from", &root, "to").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists);
        root.remove_dir("to").unwrap();
        root.rename_no_replace("from", &root, "to").unwrap();
        assert!(dir.path().join("to").is_dir());
    }
}
