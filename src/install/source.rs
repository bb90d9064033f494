//! What the install transaction does with files below the directories it holds open: copy a
//! snapshot's files into staging, and open every staged file and directory to sync them.

use std::io;

use crate::fs::dir::{Dir, Tree};

/// Copies `files` (package-relative) from `from` into `to` through descriptors on both sides.
pub fn copy_files(from: &Dir, files: &[String], to: &Dir) -> io::Result<()> {
    let mut reader = Tree::reading(from);
    let mut writer = Tree::writing(to);
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
    let mut reader = Tree::reading(root);
    let mut opened = Vec::with_capacity(files.len());
    for file in files {
        opened.push(reader.open_file(file)?);
    }
    Ok((opened, reader.into_directories()))
}
