//! `squad pack`: a validated package folder to its canonical ZIP (PACK-1…PACK-6), written
//! atomically next to its destination and never over an existing file unless asked.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use crate::archive::reader::Limits;
use crate::archive::writer::{self, Entry, Source};
use crate::digest::{PackageHasher, Sha256Digest, sort_for_digest};
use crate::package::{Identity, Report};

/// Files above this size are streamed from disk instead of read whole.
const STREAM_THRESHOLD: u64 = 8 << 20;

/// What `pack` produced.
#[derive(Debug, Clone)]
pub struct Packed {
    pub path: PathBuf,
    pub identity: Identity,
    pub package_digest: Sha256Digest,
    pub archive_sha256: Sha256Digest,
    pub file_count: usize,
    pub archive_bytes: u64,
}

/// Why packing failed; every variant names what failed.
#[derive(Debug)]
pub enum PackError {
    Limit(String),
    OutputInsidePackage(PathBuf),
    OutputExists(PathBuf),
    Io(PathBuf, std::io::Error),
    Other(String),
}

impl std::fmt::Display for PackError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PackError::Limit(message) => write!(f, "{message}"),
            PackError::OutputInsidePackage(path) => write!(
                f,
                "output `{}` is inside the package being packed",
                path.display()
            ),
            PackError::OutputExists(path) => {
                write!(f, "output `{}` already exists", path.display())
            }
            PackError::Io(path, error) => {
                write!(f, "cannot write or read `{}`: {error}", path.display())
            }
            PackError::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for PackError {}

/// The default archive name (PACK-6).
pub fn default_file_name(id: &str) -> String {
    format!("{id}-expert-squad.zip")
}

/// What [`validate_and_pack`] ended with.
#[derive(Debug)]
pub enum PackRun {
    Packed(Packed),
    /// The package is invalid: nothing was written.
    Invalid(Report),
    /// The folder could not be validated at all.
    Unreadable(crate::package::ValidateError),
    Failed(PackError),
}

/// One file read and compressed ahead of validation.
struct Prepared {
    bytes: Vec<u8>,
    compressed: writer::Compressed,
}

/// Validates `root` and packs it. Validation runs on its own thread while this one reads and
/// compresses the files it will need if the package is valid, so on two cores a pack costs
/// little more than the slower of the two.
/// `output` defaults to `<id>-expert-squad.zip` in the current directory.
pub fn validate_and_pack(
    root: &Path,
    output: Option<&Path>,
    force: bool,
    limits: &Limits,
) -> PackRun {
    let (validated, prepared) = std::thread::scope(|scope| {
        let validation = scope.spawn(|| crate::package::validate(root));
        let prepared = prepare(root, limits);
        (validation.join(), prepared)
    });
    let report = match validated {
        Ok(Ok(report)) => report,
        Ok(Err(error)) => return PackRun::Unreadable(error),
        Err(_) => {
            return PackRun::Failed(PackError::Other(
                "validation stopped unexpectedly".to_owned(),
            ));
        }
    };
    if !report.is_valid() {
        return PackRun::Invalid(report);
    }
    let output = match (output, &report.identity) {
        (Some(output), _) => output.to_path_buf(),
        (None, Some(identity)) => PathBuf::from(default_file_name(&identity.id)),
        (None, None) => {
            return PackRun::Failed(PackError::Other("the manifest has no valid id".to_owned()));
        }
    };
    match pack_prepared(&report, &output, force, limits, prepared) {
        Ok(packed) => PackRun::Packed(packed),
        Err(error) => PackRun::Failed(error),
    }
}

/// Reads and compresses every regular file of the tree, unless the package is beyond the limits
/// or holds a file large enough to stream (then packing does the work itself, after validation).
fn prepare(root: &Path, limits: &Limits) -> Option<HashMap<String, Prepared>> {
    let mut ignored = crate::diag::Diagnostics::default();
    let tree = crate::package::tree::capture(root, &mut ignored);
    let mut compressor = writer::Compressor::default();
    let mut prepared = HashMap::new();
    let mut total = 0u64;
    for entry in tree.files() {
        let bytes = fs::read(root.join(&entry.path)).ok()?;
        total += bytes.len() as u64;
        if bytes.len() as u64 > STREAM_THRESHOLD.min(limits.file_bytes)
            || total > limits.total_bytes
            || prepared.len() >= limits.entries
        {
            return None;
        }
        let compressed = compressor.compress(&bytes).ok()?;
        prepared.insert(entry.path.clone(), Prepared { bytes, compressed });
    }
    Some(prepared)
}

/// Packs a package that `report` found valid into `output`.
pub fn pack(
    report: &Report,
    output: &Path,
    force: bool,
    limits: &Limits,
) -> Result<Packed, PackError> {
    pack_prepared(report, output, force, limits, None)
}

fn pack_prepared(
    report: &Report,
    output: &Path,
    force: bool,
    limits: &Limits,
    prepared: Option<HashMap<String, Prepared>>,
) -> Result<Packed, PackError> {
    let identity = report.identity.clone().ok_or_else(|| {
        PackError::Other("the manifest has no valid namespace, id and version".to_owned())
    })?;
    check_output(&report.root, output, force)?;
    let paths: Vec<&str> = report
        .tree
        .files()
        .map(|entry| entry.path.as_str())
        .collect();
    // Use what was prepared only if it covers exactly the files validation saw.
    let prepared = prepared.filter(|prepared| {
        prepared.len() == paths.len() && paths.iter().all(|path| prepared.contains_key(*path))
    });
    let mut sources: Vec<(String, Source)> = Vec::with_capacity(paths.len());
    let mut contents: Vec<(String, Content)> = Vec::with_capacity(paths.len());
    match prepared {
        Some(mut prepared) => {
            let files: Vec<(String, u64)> = paths
                .iter()
                .map(|path| (path.to_string(), prepared[*path].bytes.len() as u64))
                .collect();
            check_limits(&files, limits)?;
            for path in paths {
                let Prepared { bytes, compressed } = prepared.remove(path).expect("checked above");
                sources.push((path.to_owned(), Source::Compressed(compressed)));
                contents.push((path.to_owned(), Content::Bytes(bytes)));
            }
        }
        None => {
            let mut files: Vec<(String, u64)> = Vec::with_capacity(paths.len());
            for path in &paths {
                let full = report.root.join(path);
                let size = fs::metadata(&full)
                    .map_err(|error| PackError::Io(full.clone(), error))?
                    .len();
                files.push((path.to_string(), size));
            }
            check_limits(&files, limits)?;
            for (path, size) in files {
                let full = report.root.join(&path);
                if size > STREAM_THRESHOLD {
                    sources.push((path.clone(), Source::File(full)));
                    contents.push((path, Content::File));
                } else {
                    let bytes =
                        fs::read(&full).map_err(|error| PackError::Io(full.clone(), error))?;
                    sources.push((path.clone(), Source::Bytes(bytes.clone())));
                    contents.push((path, Content::Bytes(bytes)));
                }
            }
        }
    }
    let package_digest = digest_contents(&report.root, &contents)?;
    drop(contents);
    let prefix = format!("{}/{}/", identity.namespace, identity.id);
    let mut entries: Vec<Entry> = sources
        .into_iter()
        .map(|(path, source)| Entry {
            name: format!("{prefix}{path}"),
            source,
        })
        .collect();
    // PACK-4: UTF-8 byte order of the full entry name.
    entries.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    let file_count = entries.len();
    let (temporary, archive_sha256) = write_temporary(output, &entries)?;
    let archive_bytes = fs::metadata(&temporary).map(|m| m.len()).unwrap_or(0);
    let result = (|| {
        if archive_bytes > limits.archive_bytes {
            return Err(PackError::Limit(format!(
                "the archive would be {archive_bytes} bytes, more than the reference's import limit of {} (LIM-2)",
                limits.archive_bytes
            )));
        }
        publish(&temporary, output, force)?;
        Ok(Packed {
            path: output.to_path_buf(),
            identity,
            package_digest,
            archive_sha256,
            file_count,
            archive_bytes,
        })
    })();
    let _ = fs::remove_file(&temporary);
    result
}

/// A file's content for the package digest: in memory, or streamed from disk.
enum Content {
    Bytes(Vec<u8>),
    File,
}

fn check_output(root: &Path, output: &Path, force: bool) -> Result<(), PackError> {
    let parent = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let canonical_parent = parent
        .canonicalize()
        .map_err(|error| PackError::Io(parent.to_path_buf(), error))?;
    let canonical_root = root
        .canonicalize()
        .map_err(|error| PackError::Io(root.to_path_buf(), error))?;
    if canonical_parent.starts_with(&canonical_root) {
        return Err(PackError::OutputInsidePackage(output.to_path_buf()));
    }
    match output.symlink_metadata() {
        Ok(metadata) if metadata.is_dir() => Err(PackError::Other(format!(
            "output `{}` is a directory",
            output.display()
        ))),
        Ok(_) if !force => Err(PackError::OutputExists(output.to_path_buf())),
        _ => Ok(()),
    }
}

fn check_limits(files: &[(String, u64)], limits: &Limits) -> Result<(), PackError> {
    let hint = "(LIM-2: the reference refuses to import it; pass --no-limits to pack anyway)";
    if files.len() > limits.entries {
        return Err(PackError::Limit(format!(
            "the package has {} files, more than the limit of {} entries {hint}",
            files.len(),
            limits.entries
        )));
    }
    if let Some((path, size)) = files.iter().find(|(_, size)| *size > limits.file_bytes) {
        return Err(PackError::Limit(format!(
            "`{path}` is {size} bytes, more than the per-file limit of {} {hint}",
            limits.file_bytes
        )));
    }
    let total: u64 = files.iter().map(|(_, size)| size).sum();
    if total > limits.total_bytes {
        return Err(PackError::Limit(format!(
            "the files total {total} bytes, more than the limit of {} {hint}",
            limits.total_bytes
        )));
    }
    if let Some((path, _)) = files
        .iter()
        .find(|(path, _)| crate::package::length_problem(path).is_some())
    {
        return Err(PackError::Limit(format!(
            "`{path}` is too long to install everywhere (names up to 255 bytes, paths up to 240 characters)"
        )));
    }
    Ok(())
}

fn digest_contents(root: &Path, contents: &[(String, Content)]) -> Result<Sha256Digest, PackError> {
    let mut order: Vec<&(String, Content)> = contents.iter().collect();
    sort_for_digest(&mut order, |item| item.0.as_str());
    let mut hasher = PackageHasher::default();
    for (path, content) in order {
        match content {
            Content::Bytes(bytes) => {
                hasher.begin_file(path, bytes.len() as u64);
                hasher.content(bytes);
            }
            Content::File => stream_into(&mut hasher, root, path)?,
        }
    }
    Ok(hasher.finish())
}

fn stream_into(hasher: &mut PackageHasher, root: &Path, path: &str) -> Result<(), PackError> {
    use std::io::Read;
    let full = root.join(path);
    let mut file = File::open(&full).map_err(|error| PackError::Io(full.clone(), error))?;
    let size = file
        .metadata()
        .map_err(|error| PackError::Io(full.clone(), error))?
        .len();
    hasher.begin_file(path, size);
    let mut buffer = vec![0u8; 1 << 20];
    let mut total = 0;
    loop {
        let read = file
            .read(&mut buffer)
            .map_err(|error| PackError::Io(full.clone(), error))?;
        if read == 0 {
            break;
        }
        total += read as u64;
        hasher.content(&buffer[..read]);
    }
    if total != size {
        return Err(PackError::Other(format!(
            "`{path}` changed while it was packed"
        )));
    }
    Ok(())
}

/// Writes the archive into `file` and returns its SHA-256. Archives within the import limits
/// are built in memory and written at once (and hashed without reading them back); one with
/// streamed entries is written through a buffer and read back to hash.
///
/// The file is not fsync-ed: a pack is a reproducible build output, published by link or
/// rename, so a killed process never leaves a partial archive under the final name; surviving
/// a power cut is left to the filesystem, as cargo and zip do.
fn write_archive(mut file: File, entries: &[Entry]) -> std::io::Result<Sha256Digest> {
    use std::io::{Read, Seek, Write};
    let streamed = entries
        .iter()
        .any(|entry| matches!(entry.source, Source::File(_)));
    if !streamed {
        let mut buffer = std::io::Cursor::new(Vec::new());
        writer::write(&mut buffer, entries, 0)?;
        let bytes = buffer.into_inner();
        file.write_all(&bytes)?;
        return Ok(Sha256Digest::of(&bytes));
    }
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    writer::write(&mut writer, entries, 0)?;
    let mut file = writer.into_inner().map_err(|error| error.into_error())?;
    file.seek(std::io::SeekFrom::Start(0))?;
    let mut hasher = crate::digest::StreamHasher::default();
    let mut chunk = vec![0u8; 1 << 20];
    loop {
        let read = file.read(&mut chunk)?;
        if read == 0 {
            break;
        }
        hasher.update(&chunk[..read]);
    }
    Ok(hasher.finish())
}

/// Writes the archive to a unique temporary file beside `output`.
fn write_temporary(output: &Path, entries: &[Entry]) -> Result<(PathBuf, Sha256Digest), PackError> {
    let parent = output
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for attempt in 0..100u32 {
        let temporary = parent.join(format!(".{name}.tmp-{}-{attempt}", std::process::id()));
        let file = match File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&temporary)
        {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(PackError::Io(temporary, error)),
        };
        let written = write_archive(file, entries);
        return match written {
            Ok(archive_sha256) => Ok((temporary, archive_sha256)),
            Err(error) => {
                let _ = fs::remove_file(&temporary);
                Err(PackError::Io(temporary, error))
            }
        };
    }
    Err(PackError::Other(format!(
        "cannot create a temporary file beside `{}`",
        output.display()
    )))
}

/// Moves the finished archive into place: never over an existing file unless `force`.
fn publish(temporary: &Path, output: &Path, force: bool) -> Result<(), PackError> {
    if force {
        fs::rename(temporary, output)
            .map_err(|error| PackError::Io(output.to_path_buf(), error))?;
    } else {
        // A hard link fails if the destination exists, atomically: a no-replace publish.
        match fs::hard_link(temporary, output) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(PackError::OutputExists(output.to_path_buf()));
            }
            Err(error) => return Err(PackError::Io(output.to_path_buf(), error)),
        }
    }
    Ok(())
}
