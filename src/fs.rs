//! Filesystem operations that must be atomic: publishing a staged directory without ever
//! replacing what is at the destination, and syncing what was written.

use std::io;
use std::path::Path;

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
    match path.symlink_metadata() {
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

/// Replaces (or creates) a file atomically: a synced temporary file beside it, renamed over it,
/// keeping the old file's permissions; the directory is synced.
pub fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let directory = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = directory.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&temporary);
    let result = (|| {
        write_new_synced(&temporary, bytes)?;
        if let Ok(metadata) = std::fs::metadata(path) {
            std::fs::set_permissions(&temporary, metadata.permissions())?;
        }
        std::fs::rename(&temporary, path)?;
        sync_directory(directory);
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
