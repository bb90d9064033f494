//! Install fingerprints: what the file system said of every file of an installed package when
//! squad last knew its bytes, so that a no-op `sync` and `list` can tell "unchanged since the
//! install" from a `stat` of each file instead of hashing every byte again (git's index and
//! cargo's fingerprints work the same way). docs/fingerprints.md says what it trusts and why.
//!
//! A fingerprint is kept beside the install receipt (`<receipt>.fingerprint`): the package
//! digest, the target it was taken of, and per file its path, SHA-256, and [`Stamp`] (device,
//! inode, mode, size, modification and change times). The order of the work is what makes a
//! stamp a proof: every file is **stamped, then the file system's clock is read on the same
//! file system, then the files are hashed**. A later change of a file's bytes, mode or times
//! gives it a change time from that clock, so at or past the reading; a file whose change time
//! is not strictly older than the reading could have changed again within the same tick of the
//! clock without its stamp moving, so it is *racy* and its bytes are hashed whenever it is
//! checked (git's "racy clean" entries).
//!
//! Directories are stamped too, after the publishing rename (stamp, clock, then a full walk
//! that lists them): adding, removing or renaming an entry changes its directory's stamp, so a
//! check lists only the package's root (where OpenCorvus may write `.opencorvus-meta.json`)
//! and stats every other directory and every file, one system call each.
//!
//! Reading one back trusts nothing it cannot check: a fingerprint that is absent, of another
//! version, for another target or digest, or whose checksum line does not match its body is
//! ignored, and the package is hashed in full. A fingerprint only ever says "the same as when
//! hashed": any difference (a file added, removed or replaced, a link, any field of a stamp)
//! means a full hash.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::digest::{FileRecord, Sha256Digest, TreeDigest, sort_for_digest};
use crate::fs::dir::{Dir, Kind, Stamp, Tree};
use crate::package::tree::{METADATA_FILE, VCS_METADATA};

/// The format of the fingerprint file; any other is ignored.
const VERSION: u32 = 2;

/// What was known of an installed package's files.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fingerprint {
    version: u32,
    /// The canonical path of the installed package, as its receipt names it.
    target: String,
    package_digest: Sha256Digest,
    /// The package's version, as validation read it from the bytes hashed.
    package_version: String,
    /// In digest order.
    files: Vec<Entry>,
    /// Every directory below the root that holds a file, stamped after the package was put
    /// in place (empty until then).
    directories: Vec<DirectoryEntry>,
    /// The names at the package's root (the root's version-control metadata and
    /// `.opencorvus-meta.json` left out), sorted.
    top: Vec<String>,
}

/// A directory of the package and its stamp.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct DirectoryEntry {
    path: String,
    stamp: Stamp,
    /// Changed within the clock tick it was stamped in: its entries are listed when checked.
    racy: bool,
}

/// One file: where it is, its bytes' SHA-256 and the stamp it had when they were hashed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Entry {
    path: String,
    sha256: Sha256Digest,
    stamp: Stamp,
    /// Changed within the clock tick it was stamped in: its stamp proves nothing.
    racy: bool,
}

/// Files stamped, then the clock read, before they are hashed.
pub struct Stamps {
    stamps: Vec<(String, Stamp)>,
    clock: (i64, i64),
}

/// Stamps the files `files` (package-relative) of the directory `dir`, then reads the file
/// system's clock in `dir`. Call it before hashing them.
pub fn stamp(dir: &Dir, files: &[String]) -> std::io::Result<Stamps> {
    let mut tree = Tree::reading(dir);
    let mut stamps = Vec::with_capacity(files.len());
    for path in files {
        let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
        match tree.directory(parent)?.stamp(name)? {
            Some((Kind::File, stamp)) => stamps.push((path.clone(), stamp)),
            _ => return Err(crate::fs::dir::not_a_regular_file()),
        }
    }
    let clock = dir.clock()?;
    Ok(Stamps { stamps, clock })
}

impl Stamps {
    /// The fingerprint of `tree`, hashed after these stamps were taken (with its file
    /// records); `None` when the two do not name the same files.
    pub fn seal(mut self, tree: &TreeDigest, version: &str) -> Option<Fingerprint> {
        sort_for_digest(&mut self.stamps, |(path, _)| path.as_str());
        if self.stamps.len() != tree.files.len() {
            return None;
        }
        let files = self
            .stamps
            .into_iter()
            .zip(&tree.files)
            .map(|((path, stamp), record)| {
                (path == record.path && stamp.size == record.size).then(|| Entry {
                    path,
                    sha256: record.sha256,
                    racy: stamp.changed >= self.clock,
                    stamp,
                })
            })
            .collect::<Option<Vec<Entry>>>()?;
        Some(Fingerprint {
            version: VERSION,
            target: String::new(),
            package_digest: tree.package_digest,
            package_version: version.to_owned(),
            files,
            directories: Vec::new(),
            top: Vec::new(),
        })
    }
}

/// What a walk of an installed package found, against a fingerprint.
enum Verdict {
    /// Every file is as stamped; these entries (racy) must still be hashed.
    Same(Vec<usize>),
    /// Something differs or cannot be read.
    Differs,
}

impl Fingerprint {
    pub fn package_digest(&self) -> Sha256Digest {
        self.package_digest
    }

    /// The version the package's manifest declares.
    pub fn package_version(&self) -> &str {
        &self.package_version
    }

    /// The package digest and every file's record, as a hash of the package would give them.
    pub fn tree(&self) -> TreeDigest {
        TreeDigest {
            package_digest: self.package_digest,
            files: self
                .files
                .iter()
                .map(|entry| FileRecord {
                    path: entry.path.clone(),
                    size: entry.stamp.size,
                    sha256: entry.sha256,
                })
                .collect(),
        }
    }

    /// Whether the package open at `package` is the one this fingerprint was taken of: the
    /// same names at its root, every directory and file below with the same stamp (a racy
    /// directory listed, a racy file hashed).
    pub fn vouches_for(&self, package: &Dir) -> bool {
        if self.top.is_empty() || self.top_names(package).as_ref() != Some(&self.top) {
            return false;
        }
        for directory in &self.directories {
            match package.stamp_below(&directory.path) {
                Ok(Some((Kind::Directory, stamp))) if stamp == directory.stamp => {}
                _ => return false,
            }
            if directory.racy {
                // Its listing is not proven by its stamp: the whole walk lists every one.
                return match self.walk(package) {
                    Verdict::Same(racy) => {
                        racy.iter().all(|&index| self.same_bytes(package, index))
                    }
                    Verdict::Differs => false,
                };
            }
        }
        self.files
            .iter()
            .enumerate()
            .all(|(index, entry)| match package.stamp_below(&entry.path) {
                Ok(Some((Kind::File, stamp))) if stamp == entry.stamp => {
                    !entry.racy || self.same_bytes(package, index)
                }
                _ => false,
            })
    }

    /// The names at the root of `package`, without what the digest leaves out, sorted.
    fn top_names(&self, package: &Dir) -> Option<Vec<String>> {
        let mut names = Vec::new();
        for (name, _) in package.entries().ok()? {
            let name = name.into_string().ok()?;
            if name != METADATA_FILE && !VCS_METADATA.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names.sort();
        Some(names)
    }

    /// The package's directories below its root (those that hold a file), sorted.
    fn directory_paths(&self) -> Vec<String> {
        let mut paths = std::collections::BTreeSet::new();
        for entry in &self.files {
            let mut path = entry.path.as_str();
            while let Some((parent, _)) = path.rsplit_once('/') {
                if !paths.insert(parent.to_owned()) {
                    break;
                }
                path = parent;
            }
        }
        paths.into_iter().collect()
    }

    /// Checks the package just put in place against the stamps taken before it was hashed,
    /// with a full walk, and completes the fingerprint: its directories stamped (stamp, clock
    /// read in `clock`, then the walk lists them), its racy files stamped again (stamp, clock,
    /// then hash), so that a fingerprint taken within one clock tick of the files' writing is
    /// a proof once written. `clock` must be on the package's file system.
    pub fn confirm(&mut self, package: &Dir, clock: &Dir) -> bool {
        let mut directories = Vec::new();
        for path in self.directory_paths() {
            match package.stamp_below(&path) {
                Ok(Some((Kind::Directory, stamp))) => directories.push((path, stamp)),
                _ => return false,
            }
        }
        let Ok(now) = clock.clock() else {
            return false;
        };
        let racy = match self.walk(package) {
            Verdict::Same(racy) => racy,
            Verdict::Differs => return false,
        };
        let Some(top) = self.top_names(package) else {
            return false;
        };
        self.top = top;
        self.directories = directories
            .into_iter()
            .map(|(path, stamp)| DirectoryEntry {
                path,
                racy: stamp.changed >= now,
                stamp,
            })
            .collect();
        if racy.is_empty() {
            return true;
        }
        let mut tree = Tree::reading(package);
        let mut fresh = Vec::new();
        for &index in &racy {
            let path = &self.files[index].path;
            let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
            match tree.directory(parent).and_then(|dir| dir.stamp(name)) {
                Ok(Some((Kind::File, stamp))) => fresh.push(stamp),
                _ => return false,
            }
        }
        let Ok(now) = clock.clock() else {
            return false;
        };
        for (&index, stamp) in racy.iter().zip(fresh) {
            if !self.same_bytes(package, index) {
                return false;
            }
            let entry = &mut self.files[index];
            entry.racy = stamp.changed >= now;
            entry.stamp = stamp;
        }
        true
    }

    fn same_bytes(&self, package: &Dir, index: usize) -> bool {
        let entry = &self.files[index];
        let mut bytes = Vec::new();
        Tree::reading(package)
            .open_file(&entry.path)
            .and_then(|mut file| file.read_to_end(&mut bytes))
            .is_ok_and(|_| {
                bytes.len() as u64 == entry.stamp.size && Sha256Digest::of(&bytes) == entry.sha256
            })
    }

    /// Every file below `package` (the root's version-control metadata and `.opencorvus-meta.
    /// json` left out, as the digest leaves them out), stamped and compared.
    fn walk(&self, package: &Dir) -> Verdict {
        let mut found: Vec<(String, Stamp)> = Vec::with_capacity(self.files.len());
        let mut pending: Vec<(String, Option<Dir>)> = vec![(String::new(), None)];
        while let Some((prefix, opened)) = pending.pop() {
            let dir = opened.as_ref().unwrap_or(package);
            let Ok(entries) = dir.entries() else {
                return Verdict::Differs;
            };
            for (name, kind) in entries {
                let Some(name) = name.to_str() else {
                    return Verdict::Differs;
                };
                if prefix.is_empty() && (name == METADATA_FILE || VCS_METADATA.contains(&name)) {
                    continue;
                }
                let path = if prefix.is_empty() {
                    name.to_owned()
                } else {
                    format!("{prefix}/{name}")
                };
                match kind {
                    Kind::Directory => match dir.open_dir(name) {
                        Ok(Some(child)) => pending.push((path, Some(child))),
                        _ => return Verdict::Differs,
                    },
                    Kind::File => match dir.stamp(name) {
                        Ok(Some((Kind::File, stamp))) => found.push((path, stamp)),
                        _ => return Verdict::Differs,
                    },
                    Kind::Link | Kind::Other => return Verdict::Differs,
                }
            }
        }
        if found.len() != self.files.len() {
            return Verdict::Differs;
        }
        sort_for_digest(&mut found, |(path, _)| path.as_str());
        let mut racy = Vec::new();
        for (index, ((path, stamp), entry)) in found.iter().zip(&self.files).enumerate() {
            if *path != entry.path || *stamp != entry.stamp {
                return Verdict::Differs;
            }
            if entry.racy {
                racy.push(index);
            }
        }
        Verdict::Same(racy)
    }
}

/// Where the fingerprint of the package whose receipt is `receipt` is kept.
pub fn path_beside(receipt: &Path) -> PathBuf {
    receipt.with_extension("fingerprint")
}

/// Writes `fingerprint` for `target` (the receipt's path of the package) at `path`: a line
/// with the SHA-256 of the body, then the body. Not synced: a fingerprint lost or torn in a
/// crash only means a full hash next time.
pub fn write(path: &Path, target: &str, fingerprint: &Fingerprint) -> std::io::Result<()> {
    let mut fingerprint = fingerprint.clone();
    fingerprint.target = target.to_owned();
    let body = serde_json::to_vec(&fingerprint).map_err(std::io::Error::other)?;
    let mut bytes = Sha256Digest::of(&body).hex().into_bytes();
    bytes.push(b'\n');
    bytes.extend(body);
    crate::fs::replace_file_unsynced(path, &bytes)
}

/// The fingerprint at `path` for the package at `target`, when it can be used at all: its
/// checksum matches its body, it is of this version and of this target.
pub fn read(path: &Path, target: &str) -> Option<Fingerprint> {
    let bytes = crate::fs::read_regular(path).ok()?;
    let newline = bytes.iter().position(|&byte| byte == b'\n')?;
    let (checksum, body) = (&bytes[..newline], &bytes[newline + 1..]);
    if Sha256Digest::of(body).hex().as_bytes() != checksum {
        return None;
    }
    let fingerprint: Fingerprint = serde_json::from_slice(body).ok()?;
    (fingerprint.version == VERSION && fingerprint.target == target).then_some(fingerprint)
}
