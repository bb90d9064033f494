//! A checked ZIP reader for package archives. It parses the central directory itself and
//! cross-checks every local header, instead of trusting a library's extract-all
//! (security-cases §3.2): names are judged raw, sizes are counted while inflating, and anything
//! ambiguous — duplicates, overlaps, gaps, trailing data, links, encryption, odd methods, CRC or
//! size mismatches — is refused with the entry's name. Nothing is written anywhere.

use std::collections::HashMap;
use std::io::Read;

use flate2::bufread::DeflateDecoder;

use crate::manifest::MANIFEST_FILE;
use crate::path_rules::fold as fold_path;
use crate::source::decode_lossy;

/// The reference's import limits (LIM-2).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub archive_bytes: u64,
    pub entries: usize,
    pub file_bytes: u64,
    pub total_bytes: u64,
}

impl Limits {
    pub const REFERENCE: Limits = Limits {
        archive_bytes: 18 * 1024 * 1024,
        entries: 512,
        file_bytes: 4 * 1024 * 1024,
        total_bytes: 16 * 1024 * 1024,
    };

    /// No limits beyond what the ZIP format itself allows.
    pub const NONE: Limits = Limits {
        archive_bytes: u64::MAX,
        entries: usize::MAX,
        file_bytes: u64::MAX,
        total_bytes: u64::MAX,
    };
}

/// A package's file beyond one of [`Limits`]: the file, when one is to blame, and what is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exceeded {
    pub path: Option<String>,
    pub message: String,
}

impl Limits {
    /// Every limit the files of a package (root-relative path and size) go beyond as a packed
    /// archive (one entry per file, as `squad pack` writes it): the one rule both `validate`
    /// (a warning, since folders have no limits, LIM-1) and `pack` (a refusal) apply. The
    /// archive's own size follows from these within the ZIP framing of 512 entries.
    pub fn exceeded(&self, files: &[(String, u64)]) -> Vec<Exceeded> {
        let mut found = Vec::new();
        if files.len() > self.entries {
            found.push(Exceeded {
                path: None,
                message: format!(
                    "the package has {} files, more than the limit of {} entries",
                    files.len(),
                    self.entries
                ),
            });
        }
        for (path, size) in files.iter().filter(|(_, size)| *size > self.file_bytes) {
            found.push(Exceeded {
                path: Some(path.clone()),
                message: format!(
                    "`{path}` is {size} bytes, more than the per-file limit of {}",
                    self.file_bytes
                ),
            });
        }
        let total: u64 = files.iter().map(|(_, size)| size).sum();
        if total > self.total_bytes {
            found.push(Exceeded {
                path: None,
                message: format!(
                    "the files total {total} bytes, more than the limit of {}",
                    self.total_bytes
                ),
            });
        }
        found
    }
}

/// Most path segments an entry may have (security-cases §3.1 #9).
const MAX_DEPTH: usize = 32;

/// Why an archive was refused. `entry` names the offending entry when there is one, as the
/// archive spells it; the message shows it, and any other name it quotes, through
/// [`crate::text::shown`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveError {
    pub entry: Option<String>,
    pub message: String,
}

impl std::fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.entry {
            Some(entry) => write!(f, "archive entry `{}`: {}", shown(entry), self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// An entry name as a message quotes it. The name is the archive maker's, and a refusal names
/// it before (or because) its characters are judged: whichever road printed the error (a
/// registry, a URL, an install link, a local file, `validate`, `digest`), the name must not
/// break or colour a line, nor flood the terminal.
fn shown(name: &str) -> String {
    crate::text::shown(name)
}

impl std::error::Error for ArchiveError {}

fn fail<T>(entry: Option<&str>, message: impl Into<String>) -> Result<T, ArchiveError> {
    Err(ArchiveError {
        entry: entry.map(str::to_owned),
        message: message.into(),
    })
}

/// A package read from an archive: its files, package-relative, in archive order.
#[derive(Debug, Clone)]
pub struct ArchivePackage {
    /// The `<namespace>/<id>` wrapper the entries were stripped of, if any (ZIP-5).
    pub wrapper: Option<(String, String)>,
    pub files: Vec<(String, Vec<u8>)>,
}

struct CentralEntry {
    name: String,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
    offset: u64,
    is_directory: bool,
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    bytes
        .get(at..at + 2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

const NOT_A_ZIP: &str = "not a valid ZIP archive";

/// Reads an archive file and checks it, refusing a file larger than the limit before reading it.
pub fn read_package_file(
    path: &std::path::Path,
    limits: &Limits,
) -> Result<ArchivePackage, ArchiveError> {
    let io = |error: std::io::Error| ArchiveError {
        entry: None,
        message: format!("cannot read `{}`: {error}", path.display()),
    };
    let size = crate::fs::metadata(path).map_err(io)?.len();
    if size > limits.archive_bytes {
        return fail(
            None,
            format!(
                "archive is {size} bytes, more than the limit of {}",
                limits.archive_bytes
            ),
        );
    }
    let bytes = crate::fs::read(path).map_err(io)?;
    read_package(&bytes, limits)
}

/// Reads and checks a package archive.
pub fn read_package(bytes: &[u8], limits: &Limits) -> Result<ArchivePackage, ArchiveError> {
    if bytes.len() as u64 > limits.archive_bytes {
        return fail(
            None,
            format!(
                "archive is {} bytes, more than the limit of {}",
                bytes.len(),
                limits.archive_bytes
            ),
        );
    }
    let entries = central_directory(bytes, limits)?;
    check_names(&entries)?;
    let files = extract(bytes, &entries, limits)?;
    strip_wrapper(files)
}

fn central_directory(bytes: &[u8], limits: &Limits) -> Result<Vec<CentralEntry>, ArchiveError> {
    // The end record must close the archive exactly: no comment, nothing after it.
    let Some(end) = bytes.len().checked_sub(22) else {
        return fail(None, NOT_A_ZIP);
    };
    if u32_at(bytes, end) != Some(0x0605_4b50) {
        return fail(
            None,
            format!(
                "{NOT_A_ZIP}: no end-of-central-directory record at the end (trailing data or an archive comment)"
            ),
        );
    }
    let field = |at: usize| u16_at(bytes, end + at).unwrap_or(0);
    let (disk, cd_disk, on_disk, total) = (field(4), field(6), field(8), field(10));
    let cd_size = u64::from(u32_at(bytes, end + 12).unwrap_or(0));
    let cd_offset = u64::from(u32_at(bytes, end + 16).unwrap_or(0));
    if field(20) != 0 {
        return fail(None, "archive comments are not accepted");
    }
    if disk != 0 || cd_disk != 0 || on_disk != total {
        return fail(None, "multi-disk archives are not supported");
    }
    if total == u16::MAX || cd_size == u64::from(u32::MAX) || cd_offset == u64::from(u32::MAX) {
        return fail(None, "ZIP64 archives are not supported");
    }
    if cd_offset + cd_size != end as u64 {
        return fail(
            None,
            format!("{NOT_A_ZIP}: the central directory does not end where the end record starts"),
        );
    }
    if usize::from(total) > limits.entries {
        return fail(
            None,
            format!(
                "archive has {total} entries, more than the limit of {}",
                limits.entries
            ),
        );
    }
    let mut entries = Vec::with_capacity(usize::from(total));
    let mut at = cd_offset as usize;
    for _ in 0..total {
        if u32_at(bytes, at) != Some(0x0201_4b50) {
            return fail(None, format!("{NOT_A_ZIP}: damaged central directory"));
        }
        let made_by = u16_at(bytes, at + 4).unwrap_or(0);
        let flags = u16_at(bytes, at + 8).unwrap_or(0);
        let method = u16_at(bytes, at + 10).unwrap_or(0);
        let crc = u32_at(bytes, at + 16).unwrap_or(0);
        let compressed = u64::from(u32_at(bytes, at + 20).unwrap_or(0));
        let size = u64::from(u32_at(bytes, at + 24).unwrap_or(0));
        let name_len = usize::from(u16_at(bytes, at + 28).unwrap_or(0));
        let extra_len = usize::from(u16_at(bytes, at + 30).unwrap_or(0));
        let comment_len = usize::from(u16_at(bytes, at + 32).unwrap_or(0));
        let start_disk = u16_at(bytes, at + 34).unwrap_or(0);
        let external = u32_at(bytes, at + 38).unwrap_or(0);
        let offset = u64::from(u32_at(bytes, at + 42).unwrap_or(0));
        let Some(raw_name) = bytes.get(at + 46..at + 46 + name_len) else {
            return fail(None, format!("{NOT_A_ZIP}: damaged central directory"));
        };
        let Ok(name) = std::str::from_utf8(raw_name) else {
            return fail(
                Some(&String::from_utf8_lossy(raw_name)),
                "name is not valid UTF-8",
            );
        };
        let extra = bytes
            .get(at + 46 + name_len..at + 46 + name_len + extra_len)
            .unwrap_or(&[]);
        if has_zip64_field(extra)
            || compressed == u64::from(u32::MAX)
            || size == u64::from(u32::MAX)
            || offset == u64::from(u32::MAX)
        {
            return fail(Some(name), "ZIP64 entries are not supported");
        }
        if start_disk != 0 {
            return fail(Some(name), "multi-disk archives are not supported");
        }
        if flags & 0x0041 != 0 {
            return fail(Some(name), "encrypted entries are not supported");
        }
        if method != 0 && method != 8 {
            return fail(
                Some(name),
                format!("compression method {method} is not supported (only stored and DEFLATE)"),
            );
        }
        let unix_mode = if made_by >> 8 == 3 { external >> 16 } else { 0 };
        let file_type = unix_mode & 0o170000;
        let is_directory = name.ends_with('/')
            || file_type == 0o040000
            || (external & 0x10 != 0 && made_by >> 8 == 0);
        if file_type != 0 && file_type != 0o100000 && file_type != 0o040000 {
            let kind = if file_type == 0o120000 {
                "a symbolic link"
            } else {
                "not a regular file or directory"
            };
            return fail(Some(name), format!("entry is {kind}"));
        }
        if is_directory && (size != 0 || compressed > 2) {
            return fail(Some(name), "directory entry has content");
        }
        entries.push(CentralEntry {
            name: name.to_owned(),
            flags,
            method,
            crc,
            compressed,
            size,
            offset,
            is_directory,
        });
        at += 46 + name_len + extra_len + comment_len;
    }
    if at as u64 != cd_offset + cd_size {
        return fail(
            None,
            format!("{NOT_A_ZIP}: the central directory size does not match its entries"),
        );
    }
    Ok(entries)
}

fn has_zip64_field(extra: &[u8]) -> bool {
    let mut at = 0;
    while at + 4 <= extra.len() {
        let id = u16_at(extra, at).unwrap_or(0);
        let len = usize::from(u16_at(extra, at + 2).unwrap_or(0));
        if id == 0x0001 {
            return true;
        }
        at += 4 + len;
    }
    false
}

/// Names are judged raw: no normalisation hides a traversal (security-cases §3.1 #1-4, 11-17).
fn check_names(entries: &[CentralEntry]) -> Result<(), ArchiveError> {
    let mut exact: HashMap<&str, ()> = HashMap::new();
    let mut folded: HashMap<String, (&str, bool)> = HashMap::new();
    for entry in entries {
        let name = entry.name.as_str();
        let path = name.strip_suffix('/').unwrap_or(name);
        if exact.insert(path, ()).is_some() {
            return fail(Some(name), "duplicate entry name");
        }
        if name.contains('\\') {
            return fail(Some(name), "backslash in entry name");
        }
        if name.starts_with('/') {
            return fail(Some(name), "absolute entry name");
        }
        if name.contains(':') {
            return fail(Some(name), "drive or colon in entry name");
        }
        if let Some(bad) = name.chars().find(|c| crate::text::is_invisible(*c)) {
            return fail(
                Some(name),
                format!(
                    "control or format character U+{:04X} in entry name",
                    bad as u32
                ),
            );
        }
        let segments: Vec<&str> = path.split('/').collect();
        if segments
            .iter()
            .any(|segment| segment.is_empty() || *segment == "." || *segment == "..")
        {
            return fail(Some(name), "empty, `.` or `..` path segment");
        }
        if segments.len() > MAX_DEPTH {
            return fail(Some(name), format!("more than {MAX_DEPTH} path segments"));
        }
        if let Some(problem) = crate::path_rules::path_problem(path) {
            return fail(Some(name), format!("path {problem}"));
        }
        if let Some(problem) = crate::path_rules::length_problem(path) {
            return fail(Some(name), format!("path {problem}"));
        }
        if let Some((first, _)) = folded.insert(fold_path(path), (name, entry.is_directory)) {
            return fail(
                Some(name),
                format!(
                    "collides with `{}` (names differ only by case or normalisation)",
                    shown(first)
                ),
            );
        }
    }
    // A file may not also be a directory of other entries (`a` and `a/b`), and one directory may
    // not be spelt two ways (`Docs/a.md` and `docs/b.md`).
    let mut directories: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut spellings: HashMap<String, &str> = HashMap::new();
    for entry in entries {
        let path = entry.name.strip_suffix('/').unwrap_or(&entry.name);
        let mut end = 0;
        while let Some(slash) = path[end..].find('/') {
            end += slash;
            let directory = &path[..end];
            let key = fold_path(directory);
            if let Some(first) = spellings.insert(key.clone(), directory) {
                if first != directory {
                    return fail(
                        Some(&entry.name),
                        format!(
                            "directory `{}` collides with `{}` (names differ only by case or normalisation)",
                            shown(directory),
                            shown(first)
                        ),
                    );
                }
            }
            directories.insert(key);
            end += 1;
        }
    }
    for (key, (name, is_directory)) in &folded {
        if !is_directory && directories.contains(key) {
            return fail(Some(name), "is both a file and a directory");
        }
    }
    Ok(())
}

fn extract(
    bytes: &[u8],
    entries: &[CentralEntry],
    limits: &Limits,
) -> Result<Vec<(String, Vec<u8>)>, ArchiveError> {
    // Local records must tile the archive from offset 0 to the central directory, in order,
    // without gaps or overlaps: nothing is hidden between or inside them.
    let mut by_offset: Vec<&CentralEntry> = entries.iter().collect();
    by_offset.sort_by_key(|entry| entry.offset);
    let mut expected_offset = 0u64;
    let mut total = 0u64;
    let mut files = Vec::new();
    let mut previous: Option<&str> = None;
    let cd_start = entries_end(bytes);
    for entry in by_offset {
        let name = Some(entry.name.as_str());
        if entry.offset != expected_offset {
            let after = previous.map_or(String::new(), |previous: &str| {
                format!(" (after `{}`, whose sizes may be wrong)", shown(previous))
            });
            return fail(
                name,
                format!(
                    "local header is not where the previous entry ends: overlap, gap or prepended data{after}"
                ),
            );
        }
        previous = Some(entry.name.as_str());
        let at = entry.offset as usize;
        if u32_at(bytes, at) != Some(0x0403_4b50) {
            return fail(name, "local header is missing");
        }
        let flags = u16_at(bytes, at + 6).unwrap_or(0);
        let method = u16_at(bytes, at + 8).unwrap_or(0);
        let name_len = usize::from(u16_at(bytes, at + 26).unwrap_or(0));
        let extra_len = usize::from(u16_at(bytes, at + 28).unwrap_or(0));
        let local_name = bytes.get(at + 30..at + 30 + name_len).unwrap_or(&[]);
        if local_name != entry.name.as_bytes() || flags != entry.flags || method != entry.method {
            return fail(name, "local header disagrees with the central directory");
        }
        let extra = bytes
            .get(at + 30 + name_len..at + 30 + name_len + extra_len)
            .unwrap_or(&[]);
        if has_zip64_field(extra) {
            return fail(name, "ZIP64 entries are not supported");
        }
        let uses_descriptor = flags & 0x0008 != 0;
        let local = (
            u32_at(bytes, at + 14),
            u32_at(bytes, at + 18),
            u32_at(bytes, at + 22),
        );
        let central = (
            Some(entry.crc),
            Some(entry.compressed as u32),
            Some(entry.size as u32),
        );
        // With a data descriptor the local fields may be zero (written before the data was
        // known); any other value must agree, or a streaming reader would see other data.
        let deferred = uses_descriptor && local == (Some(0), Some(0), Some(0));
        if !deferred && local != central {
            return fail(
                name,
                "local header sizes or CRC disagree with the central directory",
            );
        }
        let data_start = at + 30 + name_len + extra_len;
        let data_end = data_start as u64 + entry.compressed;
        if data_end > cd_start as u64 {
            return fail(name, "entry data runs past the end of the archive");
        }
        let data = &bytes[data_start..data_end as usize];
        expected_offset = data_end;
        if uses_descriptor {
            expected_offset = descriptor_end(bytes, data_end as usize, entry)?;
        }
        if entry.is_directory {
            continue;
        }
        if entry.size > limits.file_bytes {
            return fail(
                name,
                format!(
                    "declares {} bytes, more than the per-file limit of {}",
                    entry.size, limits.file_bytes
                ),
            );
        }
        let content = inflate(data, entry, limits.file_bytes)?;
        total += content.len() as u64;
        if total > limits.total_bytes {
            return fail(
                name,
                format!(
                    "the files unpack to more than the total limit of {} bytes",
                    limits.total_bytes
                ),
            );
        }
        files.push((entry.name.clone(), content));
    }
    if expected_offset != cd_start as u64 {
        return fail(
            None,
            "data between the last entry and the central directory",
        );
    }
    Ok(files)
}

/// Where the central directory starts (already validated by [`central_directory`]).
fn entries_end(bytes: &[u8]) -> usize {
    let end = bytes.len() - 22;
    u32_at(bytes, end + 16).unwrap_or(0) as usize
}

fn descriptor_end(bytes: &[u8], at: usize, entry: &CentralEntry) -> Result<u64, ArchiveError> {
    let name = Some(entry.name.as_str());
    let start = if u32_at(bytes, at) == Some(0x0807_4b50) {
        at + 4
    } else {
        at
    };
    let descriptor = (
        u32_at(bytes, start),
        u32_at(bytes, start + 4),
        u32_at(bytes, start + 8),
    );
    if descriptor
        != (
            Some(entry.crc),
            Some(entry.compressed as u32),
            Some(entry.size as u32),
        )
    {
        return fail(name, "data descriptor disagrees with the central directory");
    }
    Ok(start as u64 + 12)
}

fn inflate(data: &[u8], entry: &CentralEntry, file_limit: u64) -> Result<Vec<u8>, ArchiveError> {
    let name = Some(entry.name.as_str());
    // Count what actually comes out; never trust the declared size (zip bombs).
    let cap = entry.size.min(file_limit);
    let mut content = Vec::with_capacity(cap.min(1 << 24) as usize);
    // How much of the entry's compressed data the DEFLATE stream used.
    let mut consumed = data.len() as u64;
    let read = match entry.method {
        0 => {
            content.extend_from_slice(data);
            Ok(data.len())
        }
        _ => {
            let mut decoder = DeflateDecoder::new(data);
            let read = (&mut decoder).take(cap + 1).read_to_end(&mut content);
            consumed = decoder.total_in();
            read
        }
    };
    if read.is_err() {
        return fail(name, "corrupt DEFLATE data");
    }
    // Bytes after the end of the stream but inside the compressed size are invisible here and
    // visible to a streaming reader, which may find a whole other entry there (uv
    // CVE-2025-54368): the stream must use exactly the declared compressed size.
    if content.len() as u64 <= cap && consumed != data.len() as u64 {
        return fail(
            name,
            format!(
                "the DEFLATE stream ends {} bytes before the entry's compressed size; other readers would see what follows it",
                data.len() as u64 - consumed.min(data.len() as u64)
            ),
        );
    }
    if content.len() as u64 != entry.size {
        return fail(
            name,
            format!(
                "unpacks to {}{} bytes but declares {}",
                content.len(),
                if content.len() as u64 > cap { "+" } else { "" },
                entry.size
            ),
        );
    }
    if crc32fast::hash(&content) != entry.crc {
        return fail(name, "CRC mismatch: the data is corrupt");
    }
    Ok(content)
}

/// ZIP-5: a root-layout archive is used as is; otherwise every entry must sit under one
/// `<namespace>/<id>/` wrapper that matches the manifest inside it.
fn strip_wrapper(files: Vec<(String, Vec<u8>)>) -> Result<ArchivePackage, ArchiveError> {
    if files.is_empty() {
        return fail(None, "no files found in the archive");
    }
    if files.iter().any(|(path, _)| path == MANIFEST_FILE) {
        return Ok(ArchivePackage {
            wrapper: None,
            files,
        });
    }
    let layout_error =
        "archive must contain expert-squad.jsonc at its root or inside <namespace>/<id>/";
    let mut files = files;
    let mut wrapper = Vec::new();
    for level in 0..2 {
        let first = files[0].0.split('/').next().unwrap_or("").to_owned();
        if files
            .iter()
            .any(|(path, _)| !path.starts_with(&format!("{first}/")))
        {
            return fail(None, layout_error);
        }
        for (path, _) in files.iter_mut() {
            *path = path[first.len() + 1..].to_owned();
        }
        let has_manifest = files.iter().any(|(path, _)| path == MANIFEST_FILE);
        if level == 0 && has_manifest {
            return fail(
                None,
                format!(
                    "wrapper `{}/` is not supported; expected a root manifest or <namespace>/<id>/",
                    shown(&first)
                ),
            );
        }
        wrapper.push(first);
        if level == 1 && !has_manifest {
            return fail(None, layout_error);
        }
    }
    let (namespace, id) = (wrapper[0].clone(), wrapper[1].clone());
    let manifest = &files
        .iter()
        .find(|(path, _)| path == MANIFEST_FILE)
        .expect("checked above")
        .1;
    let matches = crate::manifest::declared(&decode_lossy(manifest).0).is_some_and(|declared| {
        declared.namespace.as_deref() == Some(namespace.as_str())
            && declared.id.as_deref() == Some(id.as_str())
    });
    if !matches {
        return fail(
            None,
            format!(
                "wrapper `{}/` must match the manifest's namespace and id",
                shown(&format!("{namespace}/{id}"))
            ),
        );
    }
    Ok(ArchivePackage {
        wrapper: Some((namespace, id)),
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::writer::archive_of as archive;

    const MANIFEST: &[u8] = br#"{"namespace": "acme", "id": "pkg"}"#;

    #[test]
    fn reads_what_the_writer_writes() {
        let bytes = archive(&[
            ("acme/pkg/README.md", b"# R\n"),
            ("acme/pkg/expert-squad.jsonc", MANIFEST),
        ]);
        let package = read_package(&bytes, &Limits::REFERENCE).unwrap();
        assert_eq!(package.wrapper, Some(("acme".to_owned(), "pkg".to_owned())));
        assert_eq!(
            package.files[0],
            ("README.md".to_owned(), b"# R\n".to_vec())
        );
    }

    #[track_caller]
    fn refused(bytes: &[u8]) -> String {
        read_package(bytes, &Limits::REFERENCE)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn refuses_hostile_names_and_layouts() {
        for name in [
            "../evil",
            "a/../../evil",
            "/etc/x",
            "C:/x",
            "a\\b",
            "a//b",
            "./a",
            "a/\u{7}b",
            "a/nul.txt",
            "e\u{301}.md",
        ] {
            let bytes = archive(&[(name, b"x"), ("expert-squad.jsonc", MANIFEST)]);
            assert!(
                read_package(&bytes, &Limits::REFERENCE).is_err(),
                "{name:?} accepted"
            );
        }
        assert!(
            refused(&archive(&[
                ("Skill.md", b"x"),
                ("skill.md", b"y"),
                ("expert-squad.jsonc", MANIFEST)
            ]))
            .contains("collides")
        );
        assert!(
            refused(&archive(&[
                ("a", b"x"),
                ("a/b", b"y"),
                ("expert-squad.jsonc", MANIFEST)
            ]))
            .contains("both a file and a directory")
        );
        assert!(
            refused(&archive(&[("other/pkg/expert-squad.jsonc", MANIFEST)])).contains("must match")
        );
        assert!(refused(&archive(&[("pkg/expert-squad.jsonc", MANIFEST)])).contains("wrapper"));
        assert!(refused(&archive(&[("README.md", b"x")])).contains("expert-squad.jsonc"));
    }

    #[test]
    fn names_in_refusals_cannot_break_lines_or_flood() {
        let long = format!("{}:", "a".repeat(5000));
        for name in [
            "a\nerror: forged:",
            "a\u{1b}[2J\\b",
            "\u{202e}a/../b",
            long.as_str(),
        ] {
            let message = refused(&archive(&[(name, b"x"), ("expert-squad.jsonc", MANIFEST)]));
            assert!(message.starts_with("archive entry `"), "{message}");
            assert!(crate::text::is_safe_to_show(&message), "{message:?}");
            assert!(message.chars().count() < 400, "{message}");
        }
        let message = refused(&archive(&[
            ("Skill.md", b"x"),
            ("skill.md", b"y"),
            ("expert-squad.jsonc", MANIFEST),
        ]));
        assert_eq!(
            message,
            "archive entry `skill.md`: collides with `Skill.md` (names differ only by case or normalisation)"
        );
    }

    #[test]
    fn refuses_tampered_bytes() {
        let good = archive(&[("expert-squad.jsonc", MANIFEST), ("z.txt", b"stored")]);
        // Flip a data byte: CRC mismatch.
        let mut bad = good.clone();
        let at = bad.windows(6).position(|w| w == b"stored").unwrap();
        bad[at] ^= 1;
        assert!(refused(&bad).contains("CRC"));
        // Trailing data after the end record.
        let mut trailing = good.clone();
        trailing.extend_from_slice(b"junk");
        assert!(refused(&trailing).contains("end-of-central-directory"));
        // Prepended data.
        let mut prepended = b"junk".to_vec();
        prepended.extend_from_slice(&good);
        assert!(read_package(&prepended, &Limits::REFERENCE).is_err());
        // Truncations.
        for end in (0..good.len()).step_by(7) {
            assert!(
                read_package(&good[..end], &Limits::REFERENCE).is_err(),
                "truncated at {end}"
            );
        }
    }

    #[test]
    fn counts_inflated_bytes() {
        let zeros = vec![0u8; 5 << 20];
        let bytes = archive(&[("expert-squad.jsonc", MANIFEST), ("big.bin", &zeros)]);
        assert!(refused(&bytes).contains("per-file limit"));
        assert!(read_package(&bytes, &Limits::NONE).is_ok());
    }
}
