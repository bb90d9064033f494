//! Filesystem operations squad relies on: publishing a staged directory without ever replacing
//! what is at the destination, syncing what was written, reading only regular files, and
//! ([`dir`]) working below an open directory without walking its path again.

// The one home of file-system calls (clippy.toml).
#![allow(clippy::disallowed_methods)]

pub mod dir;
mod plain;

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

/// Flushes a directory's entries (new names, renames) to disk. Best effort where directories
/// cannot be opened (Windows).
pub fn sync_directory(path: &Path) {
    if let Ok(directory) = std::fs::File::open(path) {
        let _ = directory.sync_all();
    }
}

/// Threads [`sync_all_at_once`] uses at most, when it syncs item by item (the fastest count
/// measured).
const SYNC_THREADS: usize = 16;

/// Unwritten data on the machine, beyond the items' own, up to which [`sync_all_at_once`]
/// syncs whole file systems: as far as measured, one `syncfs` was never slower than the
/// `fsync`s of the items themselves (see there).
#[cfg(any(target_os = "linux", target_os = "android"))]
const FOREIGN_UNWRITTEN_LIMIT: u64 = 64 << 20;

/// Flushes every file and directory given to disk, all at once.
///
/// On Linux 5.8 and later (whose `syncfs` reports write errors), for items on ext4, XFS,
/// Btrfs, F2FS or tmpfs (whose `syncfs` writes what `fsync` of each item would), and while the
/// machine holds little unwritten data besides the items' own (the
/// `Dirty` and `Writeback` of `/proc/meminfo`, at most `FOREIGN_UNWRITTEN_LIMIT` more), with
/// one `syncfs` of each file system the items are on: what `sync -f` does, one pass and one
/// cache flush of the device instead of one per item. It waits for other processes' writes to
/// that file system too, which is why it is kept to a quiet machine. benches/install.rs, the
/// same 22 files and 8 directories with another file written (unsynced) on the same disk just
/// before, medians on this project's ext4 disk (discard, no journal): with 0, 1, 16 and 64 MiB
/// of such data, `fsync`s from 16 threads took 1.9, 2.0, 6.8 and 29.7 ms, and `syncfs` 1.0,
/// 1.1, 5.7 and 28.4 ms (a Python test of the same gave 4.1, 3.6, 7.0 and 26.8 against 0.4,
/// 0.5, 4.5 and 24.8 ms). Since Linux 5.8 `syncfs` reports a write error of any file on the
/// file system that no one has seen: one in another program's file fails the install too,
/// which on a disk that loses writes is the safe answer.
///
/// Otherwise (more unwritten data, another system, `syncfs` refused) each item is `fsync`ed,
/// from up to 16 threads: each `fsync` waits for a journal commit or a device flush, and
/// concurrent ones share it, so the set is durable in about the time of one or two. Every
/// file's writeback is started first, all of them, before the first `fsync` waits
/// (`posix_fadvise(POSIX_FADV_DONTNEED)`, which on Linux starts the writeback of a file's dirty
/// pages without waiting, as `sync_file_range(SYNC_FILE_RANGE_WRITE)` does; rustix has no
/// `sync_file_range` and squad forbids `unsafe`; pages being written are not dropped). The
/// `fsync`s then wait for writes already under way, in parallel on the device. Measured for
/// 499 files of 33 KB on this project's ext4 disk, medians of 9 runs: `fsync`s from 16
/// threads 34.3 ms; the same after `sync_file_range(WRITE)` of every file 22.1 ms; after
/// `fadvise(DONTNEED)` 20.6 ms.
pub fn sync_all_at_once(files: &[&std::fs::File], directories: &[&dir::Dir]) -> io::Result<()> {
    sync_tree_at_once(files, directories, 0, || Ok(Vec::new()))
}

/// [`sync_all_at_once`] of `files`, `directories`, and the files `open_left_out` opens, of
/// `left_out_bytes` in all, each in one of `directories`. When whole file systems are synced,
/// those files are synced with their directories' and never opened: a package's hundreds of
/// files are not opened only to find the file system they are on (and opening hundreds of
/// files at once grows the process's descriptor table, which waits for an RCU grace period
/// each time it doubles once threads have run: 4.4 and 6.6 ms at 256 and 512 descriptors,
/// traced for a package of 499 files).
pub fn sync_tree_at_once(
    files: &[&std::fs::File],
    directories: &[&dir::Dir],
    left_out_bytes: u64,
    open_left_out: impl FnOnce() -> io::Result<Vec<std::fs::File>>,
) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if let Some(synced) = sync_file_systems(files, directories, left_out_bytes) {
        return synced;
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = left_out_bytes;
    let left_out = open_left_out()?;
    let files: Vec<&std::fs::File> = files.iter().copied().chain(&left_out).collect();
    if files.is_empty() && directories.is_empty() {
        return Ok(());
    }
    sync_each(&files, directories)
}

/// One `syncfs` of each file system the items are on, when the machine's other unwritten
/// data is small ([`sync_all_at_once`]); `None` when it is not, cannot be told, or the file
/// system refuses `syncfs`: then the caller syncs each item. `left_out_bytes` are the bytes
/// of files not given, each in one of `directories`.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn sync_file_systems(
    files: &[&std::fs::File],
    directories: &[&dir::Dir],
    left_out_bytes: u64,
) -> Option<io::Result<()>> {
    use std::os::fd::AsFd;
    let descriptors = files
        .iter()
        .map(|file| file.as_fd())
        .chain(directories.iter().map(|directory| directory.descriptor()));
    if !syncfs_reports_errors() {
        return None;
    }
    let mut own = left_out_bytes;
    let mut file_systems = Vec::new();
    for descriptor in descriptors {
        let status = match rustix::fs::fstat(descriptor) {
            Ok(status) => status,
            Err(error) => return Some(Err(error.into())),
        };
        own = own.saturating_add(u64::try_from(status.st_size).unwrap_or(0));
        #[allow(clippy::useless_conversion)] // `st_dev`'s type differs between targets
        let device = u64::from(status.st_dev);
        if !file_systems.iter().any(|(seen, _)| *seen == device) {
            if !syncfs_is_fsync_of_all(descriptor) {
                return None;
            }
            file_systems.push((device, descriptor));
        }
    }
    if unwritten_bytes()? > own.saturating_add(FOREIGN_UNWRITTEN_LIMIT) {
        return None;
    }
    for (_, descriptor) in file_systems {
        match rustix::fs::syncfs(descriptor) {
            Ok(()) => {}
            Err(
                rustix::io::Errno::NOSYS | rustix::io::Errno::OPNOTSUPP | rustix::io::Errno::INVAL,
            ) => return None,
            Err(error) => return Some(Err(error.into())),
        }
    }
    Some(Ok(()))
}

/// Whether the running kernel's `syncfs` reports write errors (Linux 5.8 and later): before,
/// it returned success whatever writeback found, where each file's `fsync` failed.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn syncfs_reports_errors() -> bool {
    static REPORTS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *REPORTS.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .ok()
            .and_then(|release| kernel_at_least(&release, (5, 8)))
            .unwrap_or(false)
    })
}

/// Whether a kernel release (`6.18.44-fc-v1252`) is `at_least` major.minor; `None` when it
/// cannot be read.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn kernel_at_least(release: &str, at_least: (u32, u32)) -> Option<bool> {
    let mut numbers = release.trim().split(['.', '-']);
    let major: u32 = numbers.next()?.parse().ok()?;
    let minor: u32 = numbers.next()?.parse().ok()?;
    Some((major, minor) >= at_least)
}

/// Whether the file system `descriptor` is on writes every file's data and metadata to the
/// device on `syncfs`, as `fsync` of each would: ext2/3/4, XFS, Btrfs and F2FS, and tmpfs
/// (where neither has anything to write). Not FUSE, whose `syncfs` asks nothing of the daemon,
/// nor stacked file systems such as eCryptfs, whose `syncfs` leaves the lower one unsynced:
/// there each item is `fsync`ed.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn syncfs_is_fsync_of_all(descriptor: std::os::fd::BorrowedFd<'_>) -> bool {
    const SYNCFS_FILE_SYSTEMS: [i64; 5] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // XFS
        0x9123_683E, // Btrfs
        0xF2F5_2010, // F2FS
        0x0102_1994, // tmpfs
    ];
    // `f_type`'s width and sign differ between targets; the magic numbers are 32 bits.
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    rustix::fs::fstatfs(descriptor)
        .is_ok_and(|status| SYNCFS_FILE_SYSTEMS.contains(&((status.f_type as i64) & 0xFFFF_FFFF)))
}

/// The machine's data written but not yet on disk: `Dirty` plus `Writeback` of
/// `/proc/meminfo`, in bytes; `None` when they cannot be read.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn unwritten_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_unwritten(&text)
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn parse_unwritten(meminfo: &str) -> Option<u64> {
    let mut total: u64 = 0;
    let mut found = 0;
    for line in meminfo.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        if key == "Dirty" || key == "Writeback" {
            let kilobytes: u64 = value.trim().strip_suffix("kB")?.trim_end().parse().ok()?;
            total = total.saturating_add(kilobytes.saturating_mul(1024));
            found += 1;
        }
    }
    (found == 2).then_some(total)
}

/// Each item `fsync`ed, from up to [`SYNC_THREADS`] threads, every file's writeback started
/// first ([`sync_all_at_once`]).
fn sync_each(files: &[&std::fs::File], directories: &[&dir::Dir]) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    for file in files {
        // Advice only: a file system that ignores it is synced all the same below.
        let _ = rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::DontNeed);
    }
    enum Item<'a> {
        File(&'a std::fs::File),
        Dir(&'a dir::Dir),
    }
    let items: Vec<Item> = files
        .iter()
        .map(|file| Item::File(file))
        .chain(directories.iter().map(|directory| Item::Dir(directory)))
        .collect();
    let threads = items.len().min(SYNC_THREADS);
    let per_thread = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(per_thread)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk.iter().try_for_each(|item| match item {
                        Item::File(file) => file.sync_all(),
                        Item::Dir(directory) => directory.sync(),
                    })
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|_| Err(io::Error::other("a sync thread panicked")))
            })
            .collect::<io::Result<Vec<()>>>()
            .map(|_| ())
    })
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
        for entry in walkdir::WalkDir::new(from).min_depth(1) {
            let entry = entry.map_err(io::Error::other)?;
            let relative = entry.path().strip_prefix(from).map_err(io::Error::other)?;
            let kind = entry.file_type();
            if kind.is_dir() {
                std::fs::create_dir(self.path().join(relative))?;
            } else if kind.is_file() {
                std::fs::copy(entry.path(), self.path().join(relative))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn unwritten_data_is_dirty_and_writeback_together_or_unknown() {
        let meminfo = "MemTotal:       24576000 kB\nDirty:             20172 kB\nWriteback:            12 kB\nWritebackTmp:          0 kB\n";
        assert_eq!(parse_unwritten(meminfo), Some((20172 + 12) * 1024));
        assert_eq!(parse_unwritten("Dirty: 5 kB\n"), None);
        assert_eq!(parse_unwritten("Dirty: 5 MB\nWriteback: 0 kB\n"), None);
        assert!(unwritten_bytes().is_some(), "this machine's /proc/meminfo");
    }

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

    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn syncfs_is_trusted_from_linux_5_8_on_the_file_systems_that_write_everything() {
        assert_eq!(kernel_at_least("6.18.44-fc-v1252", (5, 8)), Some(true));
        assert_eq!(kernel_at_least("5.8.0", (5, 8)), Some(true));
        assert_eq!(kernel_at_least("5.4.0-150-generic\n", (5, 8)), Some(false));
        assert_eq!(
            kernel_at_least("4.18.0-553.el8_10.x86_64", (5, 8)),
            Some(false)
        );
        assert_eq!(kernel_at_least("", (5, 8)), None);
        // The file system of this very directory: whatever it is, the answer is a fast bool.
        let scratch = ScratchDirectory::new("syncfs-kind").unwrap();
        let directory = dir::Dir::open(scratch.path()).unwrap();
        let _ = syncfs_is_fsync_of_all(directory.descriptor());
        let proc = dir::Dir::open(Path::new("/proc")).unwrap();
        assert!(!syncfs_is_fsync_of_all(proc.descriptor()), "procfs");
    }

    #[test]
    fn a_tree_is_synced_with_its_left_out_files_or_they_are_opened() {
        let scratch = ScratchDirectory::new("sync-tree").unwrap();
        scratch.write("a/b.md", b"text").unwrap();
        let root = dir::Dir::open(scratch.path()).unwrap();
        let inner = dir::Dir::open(&scratch.path().join("a")).unwrap();
        let opened = std::cell::Cell::new(false);
        sync_tree_at_once(&[], &[&root, &inner], 4, || {
            opened.set(true);
            Ok(vec![std::fs::File::open(scratch.path().join("a/b.md"))?])
        })
        .unwrap();
        // Opened only when each item is synced on its own: never where whole file systems are.
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        assert!(opened.get());
        let _ = opened.get();
        sync_all_at_once(&[], &[]).unwrap();
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
