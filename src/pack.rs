//! `squad pack`: a validated package folder to its canonical ZIP (PACK-1…PACK-6), written
//! atomically next to its destination and never over an existing file unless asked.

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use crate::archive::reader::Limits;
use crate::archive::writer::{self, Entry, Source};
use crate::diag::Code;
use crate::digest::{DigestError, STREAM_THRESHOLD, Sha256Digest, digest_mixed};
use crate::package::{Identity, Report};

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
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// The package is invalid: nothing was packed.
    #[error("package `{}` is invalid; nothing was packed", .0.root.display())]
    Invalid(Box<Report>),
    /// The folder could not be read into its private copy.
    #[error(transparent)]
    Snapshot(crate::snapshot::SnapshotError),
    #[error("cannot create the output directory `{}`", .0.display())]
    OutputDirectory(PathBuf, #[source] std::io::Error),
    #[error("{0}")]
    Limit(String),
    #[error("output `{}` is inside the package being packed", .0.display())]
    OutputInsidePackage(PathBuf),
    #[error("output `{}` already exists", .0.display())]
    OutputExists(PathBuf),
    #[error("cannot write or read `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
    #[error(transparent)]
    Read(DigestError),
    #[error("{0}")]
    Other(String),
}

impl PackError {
    /// A package beyond the archive limits is refused; anything else kept the archive from
    /// being written.
    pub fn class(&self) -> crate::error::Class {
        match self {
            PackError::Limit(_) | PackError::Invalid(_) => crate::error::Class::Refused,
            PackError::Snapshot(error) => error.class(),
            _ => crate::error::Class::Failed,
        }
    }
}

/// The default archive name: PACK-6's `<id>-expert-squad.zip` with the version in it, so the
/// archives of two releases never overwrite each other (the reference's own export names
/// nothing on disk). It is also the OCI layer's title when the archive is published.
pub fn default_file_name(identity: &Identity) -> String {
    format!("{}-{}-expert-squad.zip", identity.id, identity.version)
}

/// Where `-o` puts an archive: the default name in the current directory when `output` is
/// not given, or inside `output` when it is a directory — an existing one, or one named with
/// a trailing separator (`dist/`), created if needed — else `output` itself.
pub fn output_path(output: Option<&Path>, identity: &Identity) -> std::io::Result<PathBuf> {
    let name = default_file_name(identity);
    let Some(output) = output else {
        return Ok(PathBuf::from(name));
    };
    let trailing = output
        .as_os_str()
        .to_string_lossy()
        .ends_with(std::path::is_separator);
    if trailing {
        crate::fs::create_dir_all(output)?;
    }
    if trailing || output.is_dir() {
        return Ok(output.join(name));
    }
    Ok(output.to_path_buf())
}

/// Packs the package folder `folder`: read once into a private copy, validated there, and
/// packed from that copy (what was validated is what is packed) to `output` (see
/// [`output_path`]).
pub fn pack_folder(
    folder: &Path,
    output: Option<&Path>,
    force: bool,
    limits: &Limits,
) -> Result<Packed, PackError> {
    let judged = crate::snapshot::read_folder(folder, &crate::snapshot::scratch_parent()).map_err(
        |error| match error {
            crate::snapshot::SnapshotError::Invalid(report) => PackError::Invalid(report),
            other => PackError::Snapshot(other),
        },
    )?;
    let report = judged.report;
    let identity = match (&report.identity, report.is_valid()) {
        (Some(identity), true) => identity.clone(),
        _ => return Err(PackError::Invalid(Box::new(report))),
    };
    let path = output_path(output, &identity).map_err(|error| {
        PackError::OutputDirectory(output.unwrap_or(Path::new(".")).to_path_buf(), error)
    })?;
    pack(
        &report,
        judged.snapshot.path(),
        &identity,
        &path,
        force,
        limits,
    )
}

/// `squad pack` of every package of a tree, each to its default name inside the directory
/// `output` (the current directory without one; created when it does not exist), one outcome
/// each: an invalid package is not packed, and the others are.
pub fn pack_tree(
    packages: &[PathBuf],
    output: Option<&Path>,
    force: bool,
    limits: &Limits,
) -> Result<Vec<crate::tree::Outcome<Packed>>, PackError> {
    let directory = output.unwrap_or(Path::new("."));
    if directory
        .symlink_metadata()
        .is_ok_and(|metadata| !metadata.is_dir())
    {
        return Err(PackError::Other(format!(
            "output `{}` is not a directory: a tree's archives go into one, each under its default name",
            directory.display()
        )));
    }
    crate::fs::create_dir_all(directory)
        .map_err(|error| PackError::OutputDirectory(directory.to_path_buf(), error))?;
    Ok(packages
        .iter()
        .map(|package| crate::tree::Outcome {
            path: package.clone(),
            result: pack_folder(package, Some(directory), force, limits).map_err(|error| {
                let class = error.class();
                let hint = match &error {
                    PackError::Invalid(_) => Some("run `squad validate` for details".to_owned()),
                    PackError::OutputExists(_) => Some(
                        "pass --force to replace it, or choose another directory with -o"
                            .to_owned(),
                    ),
                    _ => None,
                };
                let failure = crate::tree::PackageFailure::of(&error, class, hint);
                match error {
                    PackError::Invalid(report) => failure.with_report(Some(report)),
                    _ => failure,
                }
            }),
        })
        .collect())
}

/// Packs a package that `report` found valid, with the `identity` its manifest declares, into
/// `output`. The files are read from `files`, the private copy that was validated (see
/// [`crate::snapshot`]); `report.root`, the folder the user named, is only where the output
/// must not be.
pub fn pack(
    report: &Report,
    files_root: &Path,
    identity: &Identity,
    output: &Path,
    force: bool,
    limits: &Limits,
) -> Result<Packed, PackError> {
    check_output(&report.root, output, force)?;
    let (entries, package_digest) = entries(report, files_root, identity, limits)?;
    let file_count = entries.len();
    // Dropped on any early return, the temporary file goes with it.
    let temporary = write_temporary(output, &entries)?;
    let io = |error| PackError::Io(temporary.path().to_path_buf(), error);
    let archive_bytes = crate::fs::metadata(temporary.path()).map_err(io)?.len();
    check_archive_size(archive_bytes, limits)?;
    let archive_sha256 = Sha256Digest::of_file(temporary.path()).map_err(io)?;
    publish(temporary, output, force)?;
    Ok(Packed {
        path: output.to_path_buf(),
        identity: identity.clone(),
        package_digest,
        archive_sha256,
        file_count,
        archive_bytes,
    })
}

/// [`pack`] into memory: the archive's bytes, for `publish`, which sends them and keeps no
/// file (nothing is written, nothing synced to disk). `Packed::path` is the default file name.
pub fn pack_bytes(
    report: &Report,
    files_root: &Path,
    identity: &Identity,
    limits: &Limits,
) -> Result<(Packed, Vec<u8>), PackError> {
    let (entries, package_digest) = entries(report, files_root, identity, limits)?;
    let mut cursor = std::io::Cursor::new(Vec::new());
    writer::write(&mut cursor, &entries, 0)
        .map_err(|error| PackError::Io(files_root.to_path_buf(), error))?;
    let bytes = cursor.into_inner();
    check_archive_size(bytes.len() as u64, limits)?;
    let packed = Packed {
        path: PathBuf::from(default_file_name(identity)),
        identity: identity.clone(),
        package_digest,
        archive_sha256: Sha256Digest::of(&bytes),
        file_count: entries.len(),
        archive_bytes: bytes.len() as u64,
    };
    Ok((packed, bytes))
}

fn check_archive_size(archive_bytes: u64, limits: &Limits) -> Result<(), PackError> {
    if archive_bytes > limits.archive_bytes {
        return Err(PackError::Limit(format!(
            "the archive would be {archive_bytes} bytes, more than the reference's import limit of {} (LIM-2)",
            limits.archive_bytes
        )));
    }
    Ok(())
}

/// The archive's entries (PACK-4 order) and the package digest of the files read from
/// `files_root`, the copy `report` judged.
fn entries(
    report: &Report,
    files_root: &Path,
    identity: &Identity,
    limits: &Limits,
) -> Result<(Vec<Entry>, Sha256Digest), PackError> {
    let mut files: Vec<(String, u64)> = Vec::new();
    for entry in report.tree.files() {
        let full = files_root.join(&entry.path);
        let size = crate::fs::symlink_metadata(&full)
            .map_err(|error| PackError::Io(full.clone(), error))?
            .len();
        files.push((entry.path.clone(), size));
    }
    check_limits(&files, limits)?;
    check_lengths(report)?;
    let mut sources = Vec::with_capacity(files.len());
    for (path, size) in &files {
        let full = files_root.join(path);
        let source = if *size > STREAM_THRESHOLD {
            Source::File(full)
        } else {
            Source::Bytes(
                crate::fs::read_regular(&full)
                    .map_err(|error| PackError::Io(full.clone(), error))?,
            )
        };
        sources.push((path.clone(), source));
    }
    let contents: Vec<(&str, Option<&[u8]>)> = sources
        .iter()
        .map(|(path, source)| match source {
            Source::Bytes(bytes) => (path.as_str(), Some(bytes.as_slice())),
            Source::File(_) => (path.as_str(), None),
        })
        .collect();
    let package_digest = digest_mixed(files_root, &contents).map_err(PackError::Read)?;
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
    Ok((entries, package_digest))
}

fn check_output(root: &Path, output: &Path, force: bool) -> Result<(), PackError> {
    let parent = crate::fs::parent_directory(output);
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
    match limits.exceeded(files).into_iter().next() {
        Some(exceeded) => Err(PackError::Limit(format!(
            "{} (LIM-2: the reference refuses to import it; pass --no-limits to pack anyway)",
            exceeded.message
        ))),
        None => Ok(()),
    }
}

/// Validation only warns about a path too long to install everywhere (PATH-S); an archive
/// would carry it to every machine, so pack refuses it.
fn check_lengths(report: &Report) -> Result<(), PackError> {
    match report
        .diagnostics
        .iter()
        // Directories are not archived, only the files below them.
        .find(|diagnostic| {
            diagnostic.code == Code::LongPath && report.tree.is_file(&diagnostic.file)
        }) {
        Some(long) => Err(PackError::Limit(format!(
            "`{}` is too long to install everywhere: {}",
            long.file, long.message
        ))),
        None => Ok(()),
    }
}

/// Writes the archive to a unique temporary file beside `output` and syncs it; the file goes
/// away if it is dropped before it is published.
fn write_temporary(output: &Path, entries: &[Entry]) -> Result<tempfile::NamedTempFile, PackError> {
    let mut temporary = crate::fs::create_beside(output)
        .map_err(|error| PackError::Io(output.to_path_buf(), error))?;
    let mut writer = BufWriter::with_capacity(1 << 20, temporary.as_file_mut());
    let written = writer::write(&mut writer, entries, 0)
        .and_then(|()| writer.into_inner().map_err(|error| error.into_error()))
        .and_then(|file| file.sync_all());
    if let Err(error) = written {
        return Err(PackError::Io(temporary.path().to_path_buf(), error));
    }
    Ok(temporary)
}

/// Moves the finished archive into place: never over an existing file unless `force`.
fn publish(
    temporary: tempfile::NamedTempFile,
    output: &Path,
    force: bool,
) -> Result<(), PackError> {
    match crate::fs::publish_file(temporary, output, force) {
        Ok(()) => Ok(()),
        Err(error) if !force && error.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(PackError::OutputExists(output.to_path_buf()))
        }
        Err(error) => Err(PackError::Io(output.to_path_buf(), error)),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn the_default_name_carries_the_version_and_a_directory_output_gets_it() {
        let identity = Identity {
            namespace: "acme".to_owned(),
            id: "review".to_owned(),
            version: "2026.12.01.3".to_owned(),
        };
        let name = "review-2026.12.01.3-expert-squad.zip";
        assert_eq!(default_file_name(&identity), name);
        assert_eq!(output_path(None, &identity).unwrap(), Path::new(name));
        let dir = tempfile::tempdir().unwrap();
        let existing = dir.path().join("existing");
        fs::create_dir(&existing).unwrap();
        assert_eq!(
            output_path(Some(&existing), &identity).unwrap(),
            existing.join(name)
        );
        let new = dir.path().join("new/dist/");
        assert_eq!(
            output_path(Some(&new), &identity).unwrap(),
            dir.path().join("new/dist").join(name)
        );
        assert!(dir.path().join("new/dist").is_dir());
        let file = dir.path().join("out.zip");
        assert_eq!(output_path(Some(&file), &identity).unwrap(), file);
        assert!(!file.exists());
    }
}
