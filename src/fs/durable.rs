//! Making what was written durable: a directory's entries, and a set of files and directories
//! all at once (one `syncfs` per file system on a quiet Linux machine, else each item's
//! `fsync` from several threads), measured in benches/install.rs.

use std::io;
use std::path::Path;

use super::dir;

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

/// Copies at least this large start their way to disk as soon as they are written
/// ([`start_sync`]). benches/digest_pack.rs, a package of 16 MiB: the sync before the publishing
/// rename took 15–17 ms after validation and the digest, 1.3–1.7 ms when this sync had run
/// meanwhile, and the install was 14–16 ms faster (medians of 30 alternating runs). A
/// package of 100 KB gained nothing measurable, and the cold sync of twenty of them would start
/// twenty `syncfs` at once: below this size the sync before the rename is left to do it all.
pub const EARLY_SYNC_BYTES: u64 = 4 << 20;

/// A sync of a whole file system running on its own thread ([`start_sync`]).
#[derive(Debug)]
pub struct EarlySync(std::thread::JoinHandle<io::Result<()>>);

impl EarlySync {
    /// Waits for the sync and says whether it wrote everything. Its error must fail the work
    /// it was started for: `syncfs` reports a write error to each open file description once,
    /// and not at all to a description opened after some sync saw it, so the later sync that
    /// makes the set durable (on descriptors opened later) may never hear of it.
    pub fn wait(self) -> io::Result<()> {
        self.0
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the early sync to disk panicked")))
    }
}

/// Starts, on another thread, the `syncfs` of the file system `directory` is on, when
/// [`sync_tree_at_once`] would sync that file system whole anyway (the same kernel, file system
/// and quiet-machine rules, `own_bytes` being what the caller wrote there), and the caller wrote
/// at least [`EARLY_SYNC_BYTES`]: the device then writes while the caller validates and hashes,
/// and the sync that makes the set durable before its rename finds almost nothing left to do.
/// It is only a head start: that sync still runs, and the caller [`EarlySync::wait`]s for this
/// one and fails on its error (a file system that refuses `syncfs` is no error: the later sync
/// then syncs each item). `None` where nothing was started.
pub fn start_sync(directory: &dir::Dir, own_bytes: u64) -> Option<EarlySync> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        if own_bytes < EARLY_SYNC_BYTES || !whole_sync_applies(directory.descriptor(), own_bytes) {
            return None;
        }
        // An open file description of its own, closed by the thread.
        let own = rustix::fs::openat(
            directory.descriptor(),
            ".",
            rustix::fs::OFlags::RDONLY
                | rustix::fs::OFlags::DIRECTORY
                | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .ok()?;
        std::thread::Builder::new()
            .name("early-sync".to_owned())
            .spawn(move || syncfs(&own).unwrap_or(Ok(())))
            .ok()
            .map(EarlySync)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (directory, own_bytes);
        None
    }
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
    if !syncfs_reports_errors() {
        return None;
    }
    let descriptors = files
        .iter()
        .map(|file| file.as_fd())
        .chain(directories.iter().map(|directory| directory.descriptor()));
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
    if !little_else_unwritten(own) {
        return None;
    }
    for (_, descriptor) in file_systems {
        if let Err(error) = syncfs(descriptor)? {
            return Some(Err(error));
        }
    }
    Some(Ok(()))
}

/// Whether one `syncfs` may make the items of `own_bytes` on the file system `descriptor` is on
/// durable ([`sync_all_at_once`]'s rules: the kernel, the file system, a quiet machine).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn whole_sync_applies(descriptor: std::os::fd::BorrowedFd<'_>, own_bytes: u64) -> bool {
    syncfs_reports_errors()
        && syncfs_is_fsync_of_all(descriptor)
        && little_else_unwritten(own_bytes)
}

/// Whether the machine holds little unwritten data besides the items' `own_bytes` (at most
/// `FOREIGN_UNWRITTEN_LIMIT` more); `false` when that cannot be told.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn little_else_unwritten(own_bytes: u64) -> bool {
    unwritten_bytes()
        .is_some_and(|unwritten| unwritten <= own_bytes.saturating_add(FOREIGN_UNWRITTEN_LIMIT))
}

/// `syncfs` of the file system `descriptor` is on; `None` where the file system refuses it
/// (then each item is `fsync`ed instead).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn syncfs(descriptor: impl std::os::fd::AsFd) -> Option<io::Result<()>> {
    match rustix::fs::syncfs(descriptor) {
        Ok(()) => Some(Ok(())),
        Err(rustix::io::Errno::NOSYS | rustix::io::Errno::OPNOTSUPP | rustix::io::Errno::INVAL) => {
            None
        }
        Err(error) => Some(Err(error.into())),
    }
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
    let sync = |item: &Item| match item {
        Item::File(file) => file.sync_all(),
        Item::Dir(directory) => directory.sync(),
    };
    // Every item is synced; the first failure is the answer.
    crate::jobs::map_jobs(SYNC_THREADS, &items, &sync)
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::ScratchDirectory;

    /// A small copy gets no head start; a large one does wherever the later sync would be one
    /// `syncfs`, and its sync answers.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn only_a_large_copy_starts_its_sync_early_and_the_sync_answers() {
        let scratch = tempfile::tempdir().unwrap();
        let directory = dir::Dir::open(scratch.path()).unwrap();
        assert!(start_sync(&directory, EARLY_SYNC_BYTES - 1).is_none());
        std::fs::write(
            scratch.path().join("large"),
            vec![7u8; EARLY_SYNC_BYTES as usize],
        )
        .unwrap();
        // Where the later sync would be one `syncfs`, the early one starts: checked, not hoped.
        let eligible = whole_sync_applies(directory.descriptor(), EARLY_SYNC_BYTES);
        let early = start_sync(&directory, EARLY_SYNC_BYTES);
        assert_eq!(early.is_some(), eligible);
        if let Some(early) = early {
            early.wait().unwrap();
        }
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn unwritten_data_is_dirty_and_writeback_together_or_unknown() {
        let meminfo = "MemTotal:       24576000 kB\nDirty:             20172 kB\nWriteback:            12 kB\nWritebackTmp:          0 kB\n";
        assert_eq!(parse_unwritten(meminfo), Some((20172 + 12) * 1024));
        assert_eq!(parse_unwritten("Dirty: 5 kB\n"), None);
        assert_eq!(parse_unwritten("Dirty: 5 MB\nWriteback: 0 kB\n"), None);
        assert!(unwritten_bytes().is_some(), "this machine's /proc/meminfo");
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
        let proc = dir::Dir::open(Path::new("/proc")).unwrap();
        assert!(!syncfs_is_fsync_of_all(proc.descriptor()), "procfs");
    }

    #[test]
    fn each_item_is_synced_on_its_own() {
        let scratch = ScratchDirectory::new("sync-each").unwrap();
        let mut files = Vec::new();
        for index in 0..40 {
            scratch.write(&format!("f{index}.md"), b"text").unwrap();
            files.push(std::fs::File::open(scratch.path().join(format!("f{index}.md"))).unwrap());
        }
        let root = dir::Dir::open(scratch.path()).unwrap();
        let files: Vec<&std::fs::File> = files.iter().collect();
        sync_each(&files, &[&root]).unwrap();
        sync_each(&[], &[]).unwrap();
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
        // Opened only when each item is synced on its own, which is always so off Linux (on
        // Linux, whole file systems are synced on a quiet machine, and they are not opened).
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        assert!(opened.get());
        sync_all_at_once(&[], &[]).unwrap();
    }
}
