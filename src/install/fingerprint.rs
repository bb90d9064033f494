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
//! Directories are stamped too, the root with them, after the publishing rename (stamp, clock,
//! then a full walk that lists them): adding, removing or renaming an entry changes its
//! directory's stamp, so a check stats every directory and every file, one system call each,
//! and lists the root only when its stamp moved (OpenCorvus may write `.opencorvus-meta.json`
//! there, which the digest leaves out).
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
use crate::package::tree::{METADATA_FILE, is_version_control};

/// The first line of a fingerprint's body: what it is and the format's version, 3; any other
/// is ignored (version 2 was JSON, which took most of a no-op `sync`'s time to parse: the text
/// of [`Fingerprint::encode`] reads several times faster).
const HEADER: &str = "squad-fingerprint 3";

/// What was known of an installed package's files.
#[derive(Debug, Clone)]
pub struct Fingerprint {
    package_digest: Sha256Digest,
    /// The package's version, as validation read it from the bytes hashed.
    package_version: String,
    /// The text every path and name below is a [`Span`] of: the file's text when read back,
    /// so that reading one allocates no string per entry (a no-op `sync` of 1,000 squads reads
    /// some 30,000 entries), or the names one after another when taken at install.
    text: String,
    /// In digest order.
    files: Vec<Entry>,
    /// Every directory below the root that holds a file, stamped after the package was put
    /// in place (empty until then).
    directories: Vec<DirectoryEntry>,
    /// The names at the package's root (the root's version-control metadata and
    /// `.opencorvus-meta.json` left out), sorted.
    top: Vec<Span>,
    /// The root's own stamp, taken with the directories' when it was not racy: while it
    /// holds, no name was added to or taken from the root, which need not be listed.
    root: Option<Stamp>,
}

/// Where a path or name is in a fingerprint's text.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
}

/// A directory of the package and its stamp.
#[derive(Debug, Clone)]
struct DirectoryEntry {
    path: Span,
    stamp: Stamp,
    /// Changed within the clock tick it was stamped in: its entries are listed when checked.
    racy: bool,
}

/// One file: where it is, its bytes' SHA-256 and the stamp it had when they were hashed.
#[derive(Debug, Clone)]
struct Entry {
    path: Span,
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
        let mut text = String::new();
        let files = self
            .stamps
            .into_iter()
            .zip(&tree.files)
            .map(|((path, stamp), record)| {
                (path == record.path && stamp.size == record.size).then(|| Entry {
                    path: Span::push(&mut text, &path),
                    sha256: record.sha256,
                    racy: stamp.changed >= self.clock,
                    stamp,
                })
            })
            .collect::<Option<Vec<Entry>>>()?;
        Some(Fingerprint {
            package_digest: tree.package_digest,
            package_version: version.to_owned(),
            text,
            files,
            directories: Vec::new(),
            top: Vec::new(),
            root: None,
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

impl Span {
    /// `name` added at the end of `text`.
    fn push(text: &mut String, name: &str) -> Span {
        let start = text.len();
        text.push_str(name);
        Span {
            start,
            end: text.len(),
        }
    }

    /// Where `part`, a slice of `text`, is in it.
    fn within(text: &str, part: &str) -> Span {
        debug_assert!(text.as_bytes().as_ptr_range().contains(&part.as_ptr()) || part.is_empty());
        let start = part.as_ptr() as usize - text.as_ptr() as usize;
        Span {
            start,
            end: start + part.len(),
        }
    }
}

/// Two fingerprints are the same when they say the same, wherever their names are kept (what
/// the tests compare).
#[cfg(test)]
impl PartialEq for Fingerprint {
    fn eq(&self, other: &Fingerprint) -> bool {
        fn names(fingerprint: &Fingerprint) -> Vec<&str> {
            let top = fingerprint.top.iter().map(|&name| fingerprint.at(name));
            let directories = fingerprint
                .directories
                .iter()
                .map(|entry| fingerprint.at(entry.path));
            let files = fingerprint
                .files
                .iter()
                .map(|entry| fingerprint.at(entry.path));
            top.chain(directories).chain(files).collect()
        }
        let stamps = |fingerprint: &Fingerprint| {
            let directories = fingerprint
                .directories
                .iter()
                .map(|entry| (entry.stamp, entry.racy, None));
            let files = fingerprint
                .files
                .iter()
                .map(|entry| (entry.stamp, entry.racy, Some(entry.sha256)));
            directories.chain(files).collect::<Vec<_>>()
        };
        self.package_digest == other.package_digest
            && self.package_version == other.package_version
            && self.root == other.root
            && self.top.len() == other.top.len()
            && self.directories.len() == other.directories.len()
            && names(self) == names(other)
            && stamps(self) == stamps(other)
    }
}

#[cfg(test)]
impl Eq for Fingerprint {}

impl Fingerprint {
    /// The path or name at `span`.
    fn at(&self, span: Span) -> &str {
        &self.text[span.start..span.end]
    }

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
                    path: self.at(entry.path).to_owned(),
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
        if self.top.is_empty() {
            return false;
        }
        // Listing a directory costs several times a look at it (ext4 hashes every name).
        let root_unchanged = self
            .root
            .is_some_and(|stamp| package.own_stamp().is_ok_and(|now| now == stamp));
        if !root_unchanged
            && !self.top_names(package).is_some_and(|names| {
                names.len() == self.top.len()
                    && names
                        .iter()
                        .zip(&self.top)
                        .all(|(name, &top)| name == self.at(top))
            })
        {
            return false;
        }
        for directory in &self.directories {
            match package.stamp_below(self.at(directory.path)) {
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
        self.files.iter().enumerate().all(|(index, entry)| {
            match package.stamp_below(self.at(entry.path)) {
                Ok(Some((Kind::File, stamp))) if stamp == entry.stamp => {
                    !entry.racy || self.same_bytes(package, index)
                }
                _ => false,
            }
        })
    }

    /// The names at the root of `package`, without what the digest leaves out, sorted.
    fn top_names(&self, package: &Dir) -> Option<Vec<String>> {
        let mut names = Vec::new();
        for (name, _) in package.entries().ok()? {
            let name = name.into_string().ok()?;
            if !left_out_at_root(&name) {
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
            let mut path = self.at(entry.path);
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
        let Ok(root) = package.own_stamp() else {
            return false;
        };
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
        self.top = top
            .iter()
            .map(|name| Span::push(&mut self.text, name))
            .collect();
        self.root = (root.changed < now).then_some(root);
        self.directories = directories
            .into_iter()
            .map(|(path, stamp)| DirectoryEntry {
                path: Span::push(&mut self.text, &path),
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
            let path = self.at(self.files[index].path);
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
            .open_file(self.at(entry.path))
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
                if prefix.is_empty() && left_out_at_root(name) {
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
            if path != self.at(entry.path) || *stamp != entry.stamp {
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
/// with the SHA-256 of the body, then the body (`Fingerprint::encode`). Not synced: a
/// fingerprint lost or torn in a crash only means a full hash next time. A package whose
/// names a line cannot hold gets none.
pub fn write(path: &Path, target: &str, fingerprint: &Fingerprint) -> std::io::Result<()> {
    let body = fingerprint
        .encode(target)
        .ok_or_else(|| std::io::Error::other("a name holds a line break"))?;
    crate::digest::write_sealed(path, body.as_bytes())
}

/// The fingerprint at `path` for the package at `target`, when it can be used at all: its
/// checksum matches its body, it is of this version and of this target.
pub fn read(path: &Path, target: &str) -> Option<Fingerprint> {
    let (text, body) = crate::digest::read_sealed(path)?.into_text()?;
    Fingerprint::decode(text, body, target)
}

impl Fingerprint {
    /// The body of the fingerprint file, a line each:
    ///
    /// ```text
    /// squad-fingerprint 3
    /// target <the package's canonical path>
    /// digest <package digest>
    /// version <the manifest's version>
    /// root <stamp> .                                (when it was not racy)
    /// top <name>                                    (each name at the root)
    /// dir <r|-> <stamp> <path>                      (each directory below it)
    /// file <r|-> <sha256> <stamp> <path>            (each file, in digest order)
    /// ```
    ///
    /// where `<stamp>` is the device, inode, mode, size, modification and change times
    /// (seconds, nanoseconds) in decimal, and `r` marks a racy entry. `None` when a name or the
    /// version holds a line break.
    fn encode(&self, target: &str) -> Option<String> {
        use std::fmt::Write;
        let texts = [target, self.package_version.as_str()].into_iter();
        let names = self.top.iter().map(|&name| self.at(name));
        let paths = self.directories.iter().map(|entry| self.at(entry.path));
        let files = self.files.iter().map(|entry| self.at(entry.path));
        if texts
            .chain(names)
            .chain(paths)
            .chain(files)
            .any(|text| text.contains(['\n', '\r']))
        {
            return None;
        }
        let mut body = String::with_capacity(128 + 160 * self.files.len());
        let _ = write!(
            body,
            "{HEADER}\ntarget {target}\ndigest {}\nversion {}\n",
            self.package_digest.hex(),
            self.package_version
        );
        if let Some(root) = &self.root {
            let _ = writeln!(body, "root {} .", StampText(root));
        }
        for &name in &self.top {
            let _ = writeln!(body, "top {}", self.at(name));
        }
        let racy = |racy: bool| if racy { 'r' } else { '-' };
        for entry in &self.directories {
            let _ = writeln!(
                body,
                "dir {} {} {}",
                racy(entry.racy),
                StampText(&entry.stamp),
                self.at(entry.path)
            );
        }
        for entry in &self.files {
            let _ = writeln!(
                body,
                "file {} {} {} {}",
                racy(entry.racy),
                entry.sha256.hex(),
                StampText(&entry.stamp),
                self.at(entry.path)
            );
        }
        Some(body)
    }

    /// The fingerprint [`Fingerprint::encode`] wrote for `target`, the body of `text` from
    /// byte `body` on; `None` for anything else. Its names stay in `text`.
    fn decode(text: String, body: usize, target: &str) -> Option<Fingerprint> {
        let whole = text.as_str();
        let mut lines = whole
            .get(body..)?
            .strip_suffix('\n')?
            .split('\n')
            .peekable();
        if lines.next()? != HEADER || lines.next()?.strip_prefix("target ")? != target {
            return None;
        }
        let package_digest = Sha256Digest::parse(lines.next()?.strip_prefix("digest ")?)?;
        let package_version = lines.next()?.strip_prefix("version ")?.to_owned();
        let mut root = None;
        if let Some(rest) = lines.peek().and_then(|line| line.strip_prefix("root ")) {
            match stamp_of(rest)? {
                (stamp, ".") => root = Some(stamp),
                _ => return None,
            }
            lines.next();
        }
        let mut top = Vec::new();
        while let Some(name) = lines.peek().and_then(|line| line.strip_prefix("top ")) {
            top.push(Span::within(whole, name));
            lines.next();
        }
        let mut directories = Vec::new();
        while let Some(rest) = lines.peek().and_then(|line| line.strip_prefix("dir ")) {
            let (racy, rest) = racy_of(rest)?;
            let (stamp, path) = stamp_of(rest)?;
            directories.push(DirectoryEntry {
                path: Span::within(whole, path),
                stamp,
                racy,
            });
            lines.next();
        }
        let mut files = Vec::new();
        for line in lines {
            let (racy, rest) = racy_of(line.strip_prefix("file ")?)?;
            let (sha256, rest) = rest.split_once(' ')?;
            let (stamp, path) = stamp_of(rest)?;
            files.push(Entry {
                path: Span::within(whole, path),
                sha256: Sha256Digest::parse(sha256)?,
                stamp,
                racy,
            });
        }
        Some(Fingerprint {
            package_digest,
            package_version,
            text,
            files,
            directories,
            top,
            root,
        })
    }
}

/// A name at a package's root that its digest leaves out (DG-1): OpenCorvus's metadata file and
/// version-control files.
fn left_out_at_root(name: &str) -> bool {
    name == METADATA_FILE || is_version_control(name)
}

/// A stamp as [`Fingerprint::encode`] writes it.
struct StampText<'a>(&'a Stamp);

impl std::fmt::Display for StampText<'_> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stamp = self.0;
        write!(
            formatter,
            "{} {} {} {} {} {} {} {}",
            stamp.device,
            stamp.inode,
            stamp.mode,
            stamp.size,
            stamp.modified.0,
            stamp.modified.1,
            stamp.changed.0,
            stamp.changed.1
        )
    }
}

/// `r ` or `- ` at the start of `text`, and the rest.
fn racy_of(text: &str) -> Option<(bool, &str)> {
    match text.as_bytes() {
        [b'r', b' ', ..] => Some((true, &text[2..])),
        [b'-', b' ', ..] => Some((false, &text[2..])),
        _ => None,
    }
}

/// The stamp at the start of `text` ([`StampText`]), and the non-empty rest after its space.
fn stamp_of(text: &str) -> Option<(Stamp, &str)> {
    let mut fields = Fields(text.as_bytes());
    let stamp = Stamp {
        device: fields.unsigned()?,
        inode: fields.unsigned()?,
        mode: u32::try_from(fields.unsigned()?).ok()?,
        size: fields.unsigned()?,
        modified: (fields.signed()?, fields.signed()?),
        changed: (fields.signed()?, fields.signed()?),
    };
    let path = &text[text.len() - fields.0.len()..];
    (!path.is_empty()).then_some((stamp, path))
}

/// Decimal fields, each followed by one space, read from the front. A fingerprint has eight
/// per line and thousands of lines: read byte by byte, not split and parsed.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    /// Digits as Rust writes a `u64` (no sign, no leading zero but in `0`), then a space.
    fn unsigned(&mut self) -> Option<u64> {
        let digits = self.0.iter().position(|&byte| byte == b' ')?;
        let (number, rest) = self.0.split_at(digits);
        if number.is_empty() || number.len() > 20 || (number[0] == b'0' && number.len() > 1) {
            return None;
        }
        let mut value: u64 = 0;
        for &digit in number {
            if !digit.is_ascii_digit() {
                return None;
            }
            value = value
                .checked_mul(10)?
                .checked_add(u64::from(digit - b'0'))?;
        }
        self.0 = &rest[1..];
        Some(value)
    }

    /// An `i64` as Rust writes one (`-` for a negative, never `-0`), then a space.
    fn signed(&mut self) -> Option<i64> {
        match self.0.strip_prefix(b"-") {
            Some(rest) => {
                self.0 = rest;
                let magnitude = self.unsigned()?;
                (magnitude != 0)
                    .then(|| 0i64.checked_sub_unsigned(magnitude))
                    .flatten()
            }
            None => i64::try_from(self.unsigned()?).ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(inode: u64) -> Stamp {
        Stamp {
            device: 65024,
            inode,
            mode: 0o100644,
            size: 12,
            modified: (1_796_430_478, 899_335_548),
            changed: (-1, 0),
        }
    }

    fn fingerprint() -> Fingerprint {
        let mut text = String::new();
        let mut name = |name: &str| Span::push(&mut text, name);
        let files = vec![
            Entry {
                path: name("README.md"),
                sha256: Sha256Digest([1; 32]),
                stamp: stamp(1),
                racy: false,
            },
            Entry {
                path: name("skills/a b/SKILL.md"),
                sha256: Sha256Digest([2; 32]),
                stamp: stamp(2),
                racy: true,
            },
        ];
        let directories = vec![DirectoryEntry {
            path: name("skills/a b"),
            stamp: stamp(3),
            racy: false,
        }];
        let top = vec![name("README.md"), name("skills")];
        Fingerprint {
            package_digest: Sha256Digest([7; 32]),
            package_version: "2026.12.01.1".to_owned(),
            text,
            files,
            directories,
            top,
            root: Some(stamp(4)),
        }
    }

    /// What decoding `body` (a whole fingerprint body) for `target` gives.
    fn decode(body: &str, target: &str) -> Option<Fingerprint> {
        let text = format!("checksum\n{body}");
        Fingerprint::decode(text, "checksum\n".len(), target)
    }

    #[test]
    fn a_fingerprint_reads_back_as_written_for_its_target_only() {
        let written = fingerprint();
        let body = written.encode("/p/acme/a").unwrap();
        assert_eq!(decode(&body, "/p/acme/a"), Some(written.clone()));
        assert_eq!(decode(&body, "/p/acme/b"), None);
        let without_root = Fingerprint {
            root: None,
            ..written.clone()
        };
        let body = without_root.encode("/p/acme/a").unwrap();
        assert_eq!(decode(&body, "/p/acme/a"), Some(without_root));
    }

    #[test]
    fn anything_but_what_encode_writes_is_refused() {
        let body = fingerprint().encode("/p").unwrap();
        let edits = [
            body.replace("squad-fingerprint 3", "squad-fingerprint 2"),
            body.replace("squad-fingerprint 3", "squad-fingerprint 03"),
            body.replace("squad-fingerprint 3", "squad-fingerprint +3"),
            body.replace("file - ", "file x "),
            body.replace(" 65024 1 ", " +65024 1 "),
            body.replace(" 65024 1 ", " 65024 -1 "),
            body.replace(" 33188 ", " 4294967296 "),
            body.replace("top skills\n", "top skills\nbottom x\n"),
            body.replace("\ndir ", "\nfile "),
            body.replace("README.md\n", "\n"),
            body.trim_end().to_owned(),
            format!("{body}\n"),
            body.replace(&Sha256Digest([1; 32]).hex(), &"1".repeat(63)),
        ];
        for (index, edited) in edits.iter().enumerate() {
            assert_ne!(&body, edited, "edit {index} changed nothing");
            assert_eq!(decode(edited, "/p"), None, "edit {index}");
        }
    }

    #[test]
    fn a_name_with_a_line_break_gets_no_fingerprint() {
        let mut broken = fingerprint();
        broken.files[0].path = Span::push(&mut broken.text, "READ\nME.md");
        assert_eq!(broken.encode("/p"), None);
        assert_eq!(fingerprint().encode("/p\r"), None);
    }
}
