//! What the install transaction does with files below the directories it holds open: copy a
//! snapshot's files into staging, and open the staged directories and files to sync them.

use std::io;

use crate::fs::dir::{Dir, Tree};

/// Copies `files` (package-relative) from `from` into `to` through descriptors on both sides.
pub fn copy_files(from: &Dir, files: &[String], to: &Dir) -> io::Result<()> {
    let mut reader = Tree::reading(from);
    let mut writer = Tree::writing(to);
    for file in files {
        let mut source = reader.open_file(file)?;
        let mut target = writer.create_file(file)?;
        crate::fs::copy_contents(&mut source, &mut target)?;
    }
    Ok(())
}

/// Opens every directory on the way to `files` under `root` (for syncing them), never through
/// a link.
pub fn open_directories(root: &Dir, files: &[String]) -> io::Result<Vec<Dir>> {
    let mut reader = Tree::reading(root);
    for file in files {
        reader.directory(file.rsplit_once('/').map_or("", |(parent, _)| parent))?;
    }
    Ok(reader.into_directories())
}

/// Opens `files` under `root` (for syncing them): regular files only, never through a link.
pub fn open_files(root: &Dir, files: &[String]) -> io::Result<Vec<std::fs::File>> {
    let mut reader = Tree::reading(root);
    files.iter().map(|file| reader.open_file(file)).collect()
}
