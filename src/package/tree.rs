//! Capturing the package tree: every entry under the root, without following links, with the
//! tree-wide rules applied on the way (FBD-1…3, names that are not UTF-8).
//!
//! The walk uses an explicit stack, so a hostile, deeply nested tree cannot overflow the stack.

use std::path::Path;

use crate::diag::{Code, Diagnostic, Diagnostics};

/// Version-control metadata a package folder holds when it is (the root of) a repository: the
/// repository's, not the package's. At the package root only, and whatever their type (a
/// worktree's or a submodule's `.git` is a file), they are left out of the tree as if absent, so
/// `validate`, `digest`, `pack`, `publish`, `sign` and `install` all see, hash and ship the same
/// files. The reference refuses every one of these names at the root (ROOT-3), so leaving them
/// out there changes the verdict or the digest of no folder the reference accepts; below the
/// root they are files like any other, judged as the reference judges them.
pub const VCS_METADATA: [&str; 10] = [
    ".bzr",
    ".bzrignore",
    ".git",
    ".gitattributes",
    ".gitignore",
    ".gitmodules",
    ".hg",
    ".hgignore",
    ".jj",
    ".svn",
];

/// Whether the package-relative `path` is, or is below, a version-control name at the root:
/// what the tree leaves out ([`VCS_METADATA`]).
pub fn is_version_control(path: &str) -> bool {
    VCS_METADATA.contains(&path.split('/').next().unwrap_or(path))
}

/// Names reserved for runtime storage (FBD-2).
pub const RUNTIME_INTERNAL_DIRECTORIES: [&str; 4] = [".opencorvus", ".r", "runtime", "worktrees"];
pub const METADATA_FILE: &str = ".opencorvus-meta.json";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Directory,
}

/// A regular file or directory of the package, by its root-relative `/`-separated path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub kind: EntryKind,
}

impl Entry {
    pub fn is_file(&self) -> bool {
        self.kind == EntryKind::File
    }

    pub fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }
}

/// Every acceptable entry of the tree, sorted by path (UTF-8 byte order). Entries that break a
/// tree rule are reported and left out, and so is everything below them.
#[derive(Debug, Default)]
pub struct Tree {
    pub entries: Vec<Entry>,
}

impl Tree {
    pub fn files(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|entry| entry.is_file())
    }

    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|entry| entry.path.as_str().cmp(path))
            .ok()
            .map(|index| &self.entries[index])
    }

    pub fn is_file(&self, path: &str) -> bool {
        self.get(path).is_some_and(Entry::is_file)
    }

    /// Files under the directory `prefix` (no trailing slash), at any depth.
    pub fn files_under<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a Entry> + 'a {
        let start = self
            .entries
            .partition_point(|entry| entry.path.as_str() < prefix);
        self.entries[start..]
            .iter()
            .take_while(move |entry| entry.path.starts_with(prefix))
            .filter(move |entry| {
                entry.is_file() && entry.path.as_bytes().get(prefix.len()) == Some(&b'/')
            })
    }
}

/// Walks `root` (which the caller has checked is a real directory).
pub fn capture(root: &Path, diagnostics: &mut Diagnostics) -> Tree {
    let mut entries = Vec::new();
    let mut pending: Vec<String> = vec![String::new()];
    while let Some(directory) = pending.pop() {
        let full = if directory.is_empty() {
            root.to_path_buf()
        } else {
            root.join(&directory)
        };
        let listing = match crate::fs::read_dir(&full) {
            Ok(listing) => listing,
            Err(error) => {
                diagnostics.push(unreadable(display_or_root(&directory), &error));
                continue;
            }
        };
        let mut children = Vec::new();
        for child in listing {
            match child {
                Ok(child) => children.push(child),
                Err(error) => diagnostics.push(unreadable(display_or_root(&directory), &error)),
            }
        }
        children.sort_by_key(|child| child.file_name());
        for child in children {
            let raw_name = child.file_name();
            let Some(name) = raw_name.to_str() else {
                let shown = raw_name.to_string_lossy();
                diagnostics.push(
                    Diagnostic::new(
                        Code::NonPortablePath,
                        join(&directory, &shown),
                        "file name is not valid UTF-8",
                    )
                    .help("rename the entry; package paths are UTF-8 text"),
                );
                continue;
            };
            if directory.is_empty() && is_version_control(name) {
                continue;
            }
            let path = join(&directory, name);
            // The directory entry's own type (no extra system call where the filesystem
            // reports it); links are not followed.
            let file_type = match child.file_type() {
                Ok(file_type) => file_type,
                Err(error) => {
                    diagnostics.push(unreadable(&path, &error));
                    continue;
                }
            };
            if name == METADATA_FILE {
                diagnostics.push(if directory.is_empty() {
                    Diagnostic::new(
                        Code::HostMetadataInSource,
                        &path,
                        "expert squad source package cannot provide Host-owned .opencorvus-meta.json",
                    )
                    .help("the installer writes this file; remove it from the source package")
                } else {
                    runtime_internal(&path, name)
                });
                continue;
            }
            if file_type.is_symlink() {
                diagnostics.push(
                    Diagnostic::new(Code::Symlink, &path, "symbolic links are not allowed")
                        .help("replace the link with a copy of the file or directory it points to"),
                );
            } else if file_type.is_dir() {
                if RUNTIME_INTERNAL_DIRECTORIES.contains(&name) {
                    diagnostics.push(runtime_internal(&path, name));
                    continue;
                }
                entries.push(Entry {
                    path: path.clone(),
                    kind: EntryKind::Directory,
                });
                pending.push(path);
            } else if file_type.is_file() {
                entries.push(Entry {
                    path,
                    kind: EntryKind::File,
                });
            } else {
                diagnostics.push(
                    Diagnostic::new(Code::SpecialFile, &path, "expected regular file")
                        .help("FIFOs, sockets and device files cannot be part of a package"),
                );
            }
        }
    }
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    Tree { entries }
}

fn runtime_internal(path: &str, name: &str) -> Diagnostic {
    Diagnostic::new(
        Code::RuntimeInternalEntry,
        path,
        format!("runtime-internal entry `{name}` is not allowed"),
    )
    .help("`.opencorvus`, `.r`, `runtime`, `worktrees` and `.opencorvus-meta.json` are reserved for OpenCorvus runtime storage; rename it")
}

fn unreadable(path: &str, error: &std::io::Error) -> Diagnostic {
    Diagnostic::new(
        Code::Unreadable,
        path,
        format!("cannot read `{path}`: {error}"),
    )
}

fn display_or_root(directory: &str) -> &str {
    if directory.is_empty() { "." } else { directory }
}

fn join(directory: &str, name: &str) -> String {
    if directory.is_empty() {
        name.to_owned()
    } else {
        format!("{directory}/{name}")
    }
}
