//! The plain file-system operations the library uses, in one place (`clippy.toml` sends every
//! `std::fs` call here), so what squad touches on disk is read in this module and [`super::dir`]
//! alone. Reads never block on a FIFO or read a device; the rest forward to the standard
//! library unchanged, keeping its errors (callers add the path they were working on).

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::{Links, open_regular};

/// The bytes of a file squad was pointed at (an archive, a key, a receipt, a document): a link
/// to a regular file is followed; anything but a regular file is refused. Package files are
/// read with [`super::read_regular`], which refuses links too.
pub fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    let mut file = open_regular(path.as_ref(), Links::Follow)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read`] as UTF-8 text; `InvalidData` when it is not.
pub fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    String::from_utf8(read(path)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "is not valid UTF-8"))
}

/// A file squad was pointed at, opened for streaming ([`read`]'s rules).
pub fn open(path: impl AsRef<Path>) -> io::Result<std::fs::File> {
    open_regular(path.as_ref(), Links::Follow)
}

pub fn metadata(path: impl AsRef<Path>) -> io::Result<std::fs::Metadata> {
    std::fs::metadata(path)
}

pub fn symlink_metadata(path: impl AsRef<Path>) -> io::Result<std::fs::Metadata> {
    std::fs::symlink_metadata(path)
}

pub fn remove_dir(path: impl AsRef<Path>) -> io::Result<()> {
    std::fs::remove_dir(path)
}

pub fn read_link(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    std::fs::read_link(path)
}

pub fn read_dir(path: impl AsRef<Path>) -> io::Result<std::fs::ReadDir> {
    std::fs::read_dir(path)
}

pub fn canonicalize(path: impl AsRef<Path>) -> io::Result<PathBuf> {
    std::fs::canonicalize(path)
}

pub fn create_dir(path: impl AsRef<Path>) -> io::Result<()> {
    std::fs::create_dir(path)
}

pub fn create_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    std::fs::create_dir_all(path)
}

pub fn remove_file(path: impl AsRef<Path>) -> io::Result<()> {
    std::fs::remove_file(path)
}

pub fn remove_dir_all(path: impl AsRef<Path>) -> io::Result<()> {
    std::fs::remove_dir_all(path)
}

/// `rename(2)`, which replaces what is at `to`: for squad's own temporaries only; a package is
/// published with [`super::rename_no_replace`].
pub fn rename(from: impl AsRef<Path>, to: impl AsRef<Path>) -> io::Result<()> {
    std::fs::rename(from, to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_follow_a_link_to_a_file_and_refuse_a_fifo_and_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a");
        std::fs::write(&file, b"x").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read(&link).unwrap(), b"x");
        assert!(read(dir.path()).is_err());
        let fifo = dir.path().join("fifo");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        // Refused at once rather than blocking until a writer comes.
        assert!(read(&fifo).is_err());
        std::fs::write(&file, [0xff]).unwrap();
        assert_eq!(
            read_to_string(&file).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
    }
}
