//! The package digest, "package-tree v1" (DG-1…DG-6): SHA-256 over a domain string and, for
//! every file in UTF-16 code-unit order of its path, the length-framed path and content.
//!
//! Folders are hashed as a stream: a reader thread opens and reads the files in order (and
//! hashes each one on its own when per-file digests are wanted) while the calling thread feeds
//! the package hash, so two cores share the work; files larger than `STREAM_THRESHOLD` are
//! streamed in chunks and never held in memory.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;

use sha2::{Digest, Sha256};

use crate::text::cmp_code_units;

/// The domain prefix of package-tree v1.
pub const DOMAIN: &[u8] = b"opencorvus.expert-squad.package-tree.v1";

/// Files up to this size are read whole; larger ones are streamed in chunks and never held in
/// memory, here and by `pack`. It is the reference's per-file import limit, so a package within
/// the limits is read whole.
pub(crate) const STREAM_THRESHOLD: u64 = 4 << 20;
const CHUNK: usize = 1 << 20;
/// Threads that open and read files while the calling thread hashes.
const READERS: usize = 2;
/// Files each reader may have read ahead of the hashing. A file's buffer is fresh memory
/// until the hashing frees it and the reader's next one reuses it, and fresh memory costs a
/// page fault per 4 KiB (about 1.5 µs each where this was measured): with 128 ahead, `squad
/// digest` of 499 files of 33 KB faulted 2,428 pages in all, with 8 ahead 661, and took
/// 24.4 ms instead of 26.1 (medians of 100 alternating runs, `perf stat`).
const BUFFERED: usize = 8;
/// Below this many files the calling thread reads them itself: two threads cost more to
/// start than they save on a few dozen small files (an install of a typical package).
const READ_ALONE_BELOW: usize = 48;

/// A SHA-256 value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sha256Digest(pub [u8; 32]);

impl Sha256Digest {
    pub fn hex(&self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut text = String::with_capacity(64);
        for byte in self.0 {
            text.push(DIGITS[usize::from(byte >> 4)] as char);
            text.push(DIGITS[usize::from(byte & 0x0f)] as char);
        }
        text
    }

    /// Parses 64 lowercase hex characters (`^[a-f0-9]{64}$`, as the reference enforces).
    pub fn parse(text: &str) -> Option<Sha256Digest> {
        // Each byte's value as a lower-case hex digit, 0xff for any other byte: a fingerprint
        // holds one digest per file, and a no-op sync of 1,000 squads reads 22,000 of them.
        const NIBBLES: [u8; 256] = {
            let mut table = [0xff; 256];
            let mut digit = 0;
            while digit < 10 {
                table[b'0' as usize + digit] = digit as u8;
                digit += 1;
            }
            let mut letter = 0;
            while letter < 6 {
                table[b'a' as usize + letter] = 10 + letter as u8;
                letter += 1;
            }
            table
        };
        let text = text.as_bytes();
        if text.len() != 64 {
            return None;
        }
        let mut bytes = [0u8; 32];
        let mut invalid = 0;
        for (byte, pair) in bytes.iter_mut().zip(text.chunks_exact(2)) {
            let (high, low) = (NIBBLES[usize::from(pair[0])], NIBBLES[usize::from(pair[1])]);
            invalid |= high | low;
            *byte = high << 4 | (low & 0x0f);
        }
        (invalid & 0xf0 == 0).then_some(Sha256Digest(bytes))
    }

    pub fn of(bytes: &[u8]) -> Sha256Digest {
        Sha256Digest(Sha256::digest(bytes).into())
    }

    /// The SHA-256 of a file's bytes, read in chunks rather than held in memory.
    pub fn of_file(path: &Path) -> std::io::Result<Sha256Digest> {
        let mut file = crate::fs::open(path)?;
        let mut hasher = Sha256::new();
        // No larger than the file (and one byte to see its end): a zeroed 1 MiB buffer per
        // small archive was 8% of a no-op sync of 1,000 squads.
        let size = file
            .metadata()
            .map_or(CHUNK as u64, |metadata| metadata.len());
        let mut buffer =
            vec![0u8; usize::try_from(size).map_or(CHUNK, |size| (size + 1).min(CHUNK))];
        loop {
            let read = file.read(&mut buffer)?;
            if read == 0 {
                return Ok(Sha256Digest(hasher.finalize().into()));
            }
            hasher.update(&buffer[..read]);
        }
    }
}

/// A digest travels in JSON as its hex text; reading it back is as strict as [`Sha256Digest::parse`].
impl serde::Serialize for Sha256Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.hex())
    }
}

impl<'de> serde::Deserialize<'de> for Sha256Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Read in place, not into a `String` first: a lock holds thousands.
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Sha256Digest;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a SHA-256: 64 lowercase hex characters")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Sha256Digest, E> {
                Sha256Digest::parse(text).ok_or_else(|| {
                    E::custom(format!(
                        "`{text}` is not a SHA-256: 64 lowercase hex characters"
                    ))
                })
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

impl std::fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.hex())
    }
}

/// Writes a cache file squad keeps for itself: a line with the SHA-256 of `body`, then `body`.
/// Not synced: lost or torn in a crash, it no longer matches its line and is only rebuilt.
pub fn write_sealed(path: &Path, body: &[u8]) -> std::io::Result<()> {
    let mut bytes = Sha256Digest::of(body).hex().into_bytes();
    bytes.push(b'\n');
    bytes.extend_from_slice(body);
    crate::fs::replace_file_unsynced(path, &bytes)
}

/// The body of a file [`write_sealed`] wrote; `None` when it is absent, unreadable, or its
/// first line is not the SHA-256 of the rest (truncated, garbled or edited).
pub fn read_sealed(path: &Path) -> Option<Sealed> {
    let bytes = crate::fs::read_own(path).ok()?;
    let newline = bytes.iter().position(|&byte| byte == b'\n')?;
    let checksum = Sha256Digest::parse(std::str::from_utf8(&bytes[..newline]).ok()?)?;
    if Sha256Digest::of(&bytes[newline + 1..]) != checksum {
        return None;
    }
    Some(Sealed {
        bytes,
        body: newline + 1,
    })
}

/// A file [`read_sealed`] read and checked, kept as read: its body is not moved to the front
/// (a no-op sync reads 1,000 fingerprints of 6 KB).
pub struct Sealed {
    bytes: Vec<u8>,
    body: usize,
}

impl Sealed {
    pub fn body(&self) -> &[u8] {
        &self.bytes[self.body..]
    }

    /// The whole file as text, and where its body starts; `None` when it is not UTF-8.
    pub fn into_text(self) -> Option<(String, usize)> {
        Some((String::from_utf8(self.bytes).ok()?, self.body))
    }
}

/// One file's own digest, for `--files` and drift reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileRecord {
    pub path: String,
    pub size: u64,
    pub sha256: Sha256Digest,
}

/// The package digest plus, when asked for, every file's record (in digest order).
#[derive(Debug, Clone)]
pub struct TreeDigest {
    pub package_digest: Sha256Digest,
    pub files: Vec<FileRecord>,
}

/// The JSON of `squad digest --format json` and of an install receipt (`type` tells which),
/// which `squad verify --record` reads back: one type, so writers and reader cannot disagree.
/// Only `package_digest` is required on input.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct DigestDocument<'a> {
    #[serde(default)]
    pub schema_version: u32,
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub path: String,
    /// `folder` or `archive` for `squad digest`; receipts leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub package_digest: Sha256Digest,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<std::borrow::Cow<'a, [FileRecord]>>,
}

/// A failure to read a file while hashing, with the path that failed.
#[derive(Debug)]
pub struct DigestError {
    pub path: PathBuf,
    pub message: String,
}

impl std::fmt::Display for DigestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot read `{}`: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for DigestError {}

/// Incremental package-tree v1 hasher; files must be added in code-unit order.
pub struct PackageHasher {
    hasher: Sha256,
}

impl Default for PackageHasher {
    fn default() -> Self {
        let mut hasher = Sha256::new();
        hasher.update(DOMAIN);
        PackageHasher { hasher }
    }
}

impl PackageHasher {
    /// Starts a file: its framed path and content length.
    pub fn begin_file(&mut self, path: &str, size: u64) {
        let path_bytes = path.as_bytes();
        self.hasher.update((path_bytes.len() as u32).to_be_bytes());
        self.hasher.update(path_bytes);
        self.hasher.update(size.to_be_bytes());
    }

    pub fn content(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
    }

    pub fn finish(self) -> Sha256Digest {
        Sha256Digest(self.hasher.finalize().into())
    }
}

/// Sorts paths the way the digest orders them (code-unit order, DG-3).
pub fn sort_for_digest<T>(items: &mut [T], path: impl Fn(&T) -> &str) {
    items.sort_by(|a, b| cmp_code_units(path(a), path(b)));
}

/// The digest of an in-memory file map (DG-5), in any input order.
pub fn digest_entries(entries: &[(String, Vec<u8>)]) -> Sha256Digest {
    let Ok(digest) = hash_sorted(
        entries,
        |entry| entry.0.as_str(),
        |hasher, (path, content)| -> Result<(), std::convert::Infallible> {
            hasher.begin_file(path, content.len() as u64);
            hasher.content(content);
            Ok(())
        },
    );
    digest
}

/// The digest of files each either held in memory (`Some`) or left on disk under `root`
/// (`None`, streamed), in any input order.
pub(crate) fn digest_mixed(
    root: &Path,
    files: &[(&str, Option<&[u8]>)],
) -> Result<Sha256Digest, DigestError> {
    hash_sorted(
        files,
        |file| file.0,
        |hasher, (path, content)| {
            match content {
                Some(content) => {
                    hasher.begin_file(path, content.len() as u64);
                    hasher.content(content);
                }
                None => {
                    stream_large(root, path, hasher, false, &Progress::default())?;
                }
            }
            Ok(())
        },
    )
}

/// Feeds `items` to one package hasher in digest order.
fn hash_sorted<T, E>(
    items: &[T],
    path: impl Fn(&T) -> &str,
    mut add: impl FnMut(&mut PackageHasher, &T) -> Result<(), E>,
) -> Result<Sha256Digest, E> {
    let mut order: Vec<&T> = items.iter().collect();
    sort_for_digest(&mut order, |item| path(item));
    let mut hasher = PackageHasher::default();
    for item in order {
        add(&mut hasher, item)?;
    }
    Ok(hasher.finish())
}

/// The digest of an in-memory file map with every file's record (in digest order).
pub fn digest_entries_with_files(entries: &[(String, Vec<u8>)]) -> TreeDigest {
    let mut files: Vec<FileRecord> = entries
        .iter()
        .map(|(path, content)| FileRecord {
            path: path.clone(),
            size: content.len() as u64,
            sha256: Sha256Digest::of(content),
        })
        .collect();
    sort_for_digest(&mut files, |file| file.path.as_str());
    TreeDigest {
        package_digest: digest_entries(entries),
        files,
    }
}

enum Loaded {
    Whole(Vec<u8>, Option<Sha256Digest>),
    /// Too large to hold: the hashing thread streams it itself.
    Large,
}

/// Hashes the files `paths` (root-relative, `/`-separated) of the folder `root`.
pub fn digest_folder(
    root: &Path,
    paths: &[String],
    with_files: bool,
) -> Result<TreeDigest, DigestError> {
    digest_folder_with_progress(root, paths, with_files, &Progress::default())
}

/// Counts of work done, readable from another thread (for a progress display).
#[derive(Debug, Default)]
pub struct Progress {
    /// Files to hash, known once the list is.
    pub total: AtomicU64,
    pub files: AtomicU64,
    pub bytes: AtomicU64,
}

/// [`digest_folder`], counting hashed files and bytes into `progress` as it goes.
pub fn digest_folder_with_progress(
    root: &Path,
    paths: &[String],
    with_files: bool,
    progress: &Progress,
) -> Result<TreeDigest, DigestError> {
    progress.total.store(paths.len() as u64, Ordering::Relaxed);
    let mut order: Vec<&String> = paths.iter().collect();
    sort_for_digest(&mut order, |path| path.as_str());
    if order.len() < READ_ALONE_BELOW {
        return hash_in_order(root, &order, with_files, progress, |index| {
            load(root, order[index], with_files)
        });
    }
    // Opening and reading many small files is system-call bound, so READERS threads read
    // interleaved slices of the sorted list (reader k takes files k, k+READERS, …) and the
    // calling thread takes their results round-robin, which restores the order.
    let mut senders = Vec::with_capacity(READERS);
    let mut receivers = Vec::with_capacity(READERS);
    for _ in 0..READERS {
        let (sender, receiver) = mpsc::sync_channel::<Result<Loaded, DigestError>>(BUFFERED);
        senders.push(sender);
        receivers.push(receiver);
    }
    std::thread::scope(|scope| {
        for (reader, sender) in senders.into_iter().enumerate() {
            let order = &order;
            scope.spawn(move || {
                for path in order.iter().skip(reader).step_by(READERS) {
                    let loaded = load(root, path, with_files);
                    let failed = loaded.is_err();
                    if sender.send(loaded).is_err() || failed {
                        return;
                    }
                }
            });
        }
        // The receivers move into the reading closure, so they are dropped with it (and any
        // reader blocked on a full channel is released) before the scope joins the readers,
        // even on an error.
        let order = &order;
        hash_in_order(root, order, with_files, progress, move |index| {
            receivers[index % READERS].recv().map_err(|_| DigestError {
                path: root.join(order[index]),
                message: "reader stopped".to_owned(),
            })?
        })
    })
}

/// Hashes the files of `order` as `loaded` gives each one (by its index), in order.
fn hash_in_order(
    root: &Path,
    order: &[&String],
    with_files: bool,
    progress: &Progress,
    mut loaded: impl FnMut(usize) -> Result<Loaded, DigestError>,
) -> Result<TreeDigest, DigestError> {
    let mut hasher = PackageHasher::default();
    let mut files = Vec::new();
    for (index, path) in order.iter().enumerate() {
        let loaded = loaded(index)?;
        let record = match loaded {
            Loaded::Whole(bytes, own) => {
                hasher.begin_file(path, bytes.len() as u64);
                hasher.content(&bytes);
                progress
                    .bytes
                    .fetch_add(bytes.len() as u64, Ordering::Relaxed);
                own.map(|sha256| FileRecord {
                    path: (*path).clone(),
                    size: bytes.len() as u64,
                    sha256,
                })
            }
            Loaded::Large => stream_large(root, path, &mut hasher, with_files, progress)?,
        };
        progress.files.fetch_add(1, Ordering::Relaxed);
        files.extend(record);
    }
    Ok(TreeDigest {
        package_digest: hasher.finish(),
        files,
    })
}

fn io_error(path: PathBuf, error: std::io::Error) -> DigestError {
    DigestError {
        path,
        message: error.to_string(),
    }
}

/// Opens a package file: a regular file only, never through a link, never blocking on a FIFO.
fn open_file(full: &Path) -> Result<File, DigestError> {
    crate::fs::open_regular_seen(full).map_err(|error| io_error(full.to_path_buf(), error))
}

fn load(root: &Path, path: &str, with_files: bool) -> Result<Loaded, DigestError> {
    let full = root.join(path);
    let mut file = open_file(&full)?;
    let size = file
        .metadata()
        .map_err(|error| io_error(full.clone(), error))?
        .len();
    if size > STREAM_THRESHOLD {
        return Ok(Loaded::Large);
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.read_to_end(&mut bytes)
        .map_err(|error| io_error(full, error))?;
    let own = with_files.then(|| Sha256Digest::of(&bytes));
    Ok(Loaded::Whole(bytes, own))
}

/// Frames and streams the file `path` under `root` into `hasher`, in chunks.
pub(crate) fn stream_large(
    root: &Path,
    path: &str,
    hasher: &mut PackageHasher,
    with_files: bool,
    progress: &Progress,
) -> Result<Option<FileRecord>, DigestError> {
    let full = root.join(path);
    let mut file = open_file(&full)?;
    let size = file
        .metadata()
        .map_err(|error| io_error(full.clone(), error))?
        .len();
    hasher.begin_file(path, size);
    let mut own = with_files.then(Sha256::new);
    let mut buffer = vec![0u8; CHUNK];
    let mut total = 0u64;
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(|error| io_error(full.clone(), error))?;
        if read == 0 {
            break;
        }
        total += read as u64;
        if total > size {
            break;
        }
        hasher.content(&buffer[..read]);
        progress.bytes.fetch_add(read as u64, Ordering::Relaxed);
        if let Some(own) = own.as_mut() {
            own.update(&buffer[..read]);
        }
    }
    if total != size {
        return Err(DigestError {
            path: full,
            message: "the file changed size while it was read".to_owned(),
        });
    }
    Ok(own.map(|own| FileRecord {
        path: path.to_owned(),
        size,
        sha256: Sha256Digest(own.finalize().into()),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(list: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
        list.iter()
            .map(|(path, content)| ((*path).to_owned(), content.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn reference_vectors() {
        // DG-V 1-4.
        assert_eq!(
            digest_entries(&[]).hex(),
            "77926254109683bc110a349cbaa08d3995b2b47e67b85329ebeb0861dc59ef76"
        );
        assert_eq!(
            digest_entries(&entries(&[("README.md", "# R\n")])).hex(),
            "2bf45c60e872ab8b0d9f7eb82db3e18047560f343e77a99bbb7719ec6ad2e7f3"
        );
        assert_eq!(
            digest_entries(&entries(&[("b.txt", "B"), ("a/c.txt", "C"), ("A.txt", "")])).hex(),
            "49e19fb95d7bdbd413ff6c76a952edd7cbf51b411ff60cfa9154b5e4d825f2df"
        );
        assert_eq!(
            digest_entries(&entries(&[("\u{FF21}.txt", "x"), ("\u{1F600}.txt", "y")])).hex(),
            "1692b036b609c9eb8c348d9f2c9962d684c918a595ad649d35eb583003da5596"
        );
    }

    #[test]
    fn byte_order_would_give_the_wrong_digest() {
        let mut hasher = PackageHasher::default();
        for (path, content) in [("\u{FF21}.txt", "x"), ("\u{1F600}.txt", "y")] {
            hasher.begin_file(path, 1);
            hasher.content(content.as_bytes());
        }
        assert_eq!(
            hasher.finish().hex(),
            "91ec11e9d4ff610f960f9837442c787948f7adc11ae961d083d30b44c9e67300"
        );
    }

    #[test]
    fn folder_digest_matches_entries_and_streams_large_files() {
        let dir = tempfile::tempdir().unwrap();
        crate::fs::create_dir(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("b.txt"), "B").unwrap();
        std::fs::write(dir.path().join("a/c.txt"), "C").unwrap();
        std::fs::write(dir.path().join("A.txt"), "").unwrap();
        let paths = vec!["b.txt".to_owned(), "a/c.txt".to_owned(), "A.txt".to_owned()];
        let tree = digest_folder(dir.path(), &paths, true).unwrap();
        assert_eq!(
            tree.package_digest.hex(),
            "49e19fb95d7bdbd413ff6c76a952edd7cbf51b411ff60cfa9154b5e4d825f2df"
        );
        assert_eq!(
            tree.files
                .iter()
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>(),
            ["A.txt", "a/c.txt", "b.txt"]
        );
        assert_eq!(tree.files[2].sha256, Sha256Digest::of(b"B"));

        let big = vec![7u8; (STREAM_THRESHOLD as usize) + 12_345];
        std::fs::write(dir.path().join("big.bin"), &big).unwrap();
        let tree = digest_folder(dir.path(), &["big.bin".to_owned()], true).unwrap();
        assert_eq!(
            tree.package_digest,
            digest_entries(&[("big.bin".to_owned(), big.clone())])
        );
        assert_eq!(tree.files[0].sha256, Sha256Digest::of(&big));
        assert_eq!(
            Sha256Digest::of_file(&dir.path().join("big.bin")).unwrap(),
            Sha256Digest::of(&big)
        );
    }

    #[test]
    fn a_few_files_read_alone_and_many_read_by_threads_digest_alike() {
        let dir = tempfile::tempdir().unwrap();
        let mut entries = Vec::new();
        for index in 0..READ_ALONE_BELOW * 2 {
            let (name, content) = (format!("f{index}.md"), format!("file {index}"));
            std::fs::write(dir.path().join(&name), &content).unwrap();
            entries.push((name, content.into_bytes()));
        }
        for count in [READ_ALONE_BELOW - 1, READ_ALONE_BELOW, entries.len()] {
            let paths: Vec<String> = entries[..count]
                .iter()
                .map(|(name, _)| name.clone())
                .collect();
            let tree = digest_folder(dir.path(), &paths, true).unwrap();
            assert_eq!(
                tree.package_digest,
                digest_entries(&entries[..count]),
                "{count}"
            );
            assert_eq!(tree.files.len(), count);
        }
    }

    #[test]
    fn missing_file_names_its_path() {
        let dir = tempfile::tempdir().unwrap();
        // Many readable files after the missing one: the readers must not block forever.
        let mut paths = vec!["a-missing.md".to_owned()];
        for index in 0..2_000 {
            let name = format!("f{index}.md");
            std::fs::write(dir.path().join(&name), "x").unwrap();
            paths.push(name);
        }
        let error = digest_folder(dir.path(), &paths, false).unwrap_err();
        assert!(error.to_string().contains("a-missing.md"), "{error}");
        let error = digest_folder(dir.path(), &["nope.md".to_owned()], false).unwrap_err();
        assert!(error.to_string().contains("nope.md"), "{error}");
    }

    #[test]
    fn digest_document_keeps_its_field_order_and_reads_back_strictly() {
        let files = [FileRecord {
            path: "README.md".to_owned(),
            size: 1,
            sha256: Sha256Digest::of(b"x"),
        }];
        let document = DigestDocument {
            schema_version: 1,
            kind: "digest".to_owned(),
            path: "pkg".to_owned(),
            source: Some("folder".to_owned()),
            package_digest: Sha256Digest::of(b""),
            files: Some(files[..].into()),
        };
        let text = serde_json::to_string(&document).unwrap();
        assert_eq!(
            text,
            format!(
                "{{\"schema_version\":1,\"type\":\"digest\",\"path\":\"pkg\",\"source\":\"folder\",\
                 \"package_digest\":\"{}\",\"files\":[{{\"path\":\"README.md\",\"size\":1,\
                 \"sha256\":\"{}\"}}]}}",
                Sha256Digest::of(b""),
                Sha256Digest::of(b"x")
            )
        );
        let read: DigestDocument = serde_json::from_str(&text).unwrap();
        assert_eq!(read.files.as_deref(), Some(&files[..]));
        let upper = text.replace(
            &Sha256Digest::of(b"x").hex(),
            &Sha256Digest::of(b"x").hex().to_uppercase(),
        );
        assert!(serde_json::from_str::<DigestDocument>(&upper).is_err());
        let minimal: DigestDocument = serde_json::from_str(&format!(
            "{{\"package_digest\":\"{}\"}}",
            Sha256Digest::of(b"")
        ))
        .unwrap();
        assert!(minimal.files.is_none());
    }

    #[test]
    fn hex_round_trip_is_strict() {
        let digest = Sha256Digest::of(b"x");
        assert_eq!(Sha256Digest::parse(&digest.hex()), Some(digest));
        assert_eq!(Sha256Digest::parse(&digest.hex().to_uppercase()), None);
        assert_eq!(Sha256Digest::parse("abc"), None);
        // 64 bytes, one pair of them not two lower-case hex digits.
        for stray in ["0g", ":0", "/0", "`0", "@0", " 0", "\u{e9}"] {
            let text = format!("{}{stray}", &digest.hex()[..62]);
            assert_eq!(text.len(), 64);
            assert_eq!(Sha256Digest::parse(&text), None, "{text:?}");
        }
    }
}
