//! When a package's version must move: `squad version check` compares a package with what was
//! published under its version (CD-1: the content, with the version literal blanked, must not
//! change without a new version) and refuses versions dated in the future.

use std::path::{Path, PathBuf};

use crate::digest::{Progress, Sha256Digest, digest_entries_with_files};
use crate::manifest::MANIFEST_FILE;
use crate::version::{Date, Version, locate_in_manifest, without_version};

/// Why a package's version does not pass `squad version check`.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("version {current} is dated after today ({today} UTC)")]
    Future { current: Version, today: Date },
    /// CD-1: the content changed since the version was published.
    #[error("the package changed since {version} was published, but its version did not")]
    Unbumped { version: String },
    /// The published archive could not be read within the import limits.
    #[error("cannot read `{}`", .0.display())]
    Archive(PathBuf, #[source] crate::snapshot::SnapshotError),
    /// The published archive or a manifest in it cannot be read as a package.
    #[error("`{}`: {message}", path.display())]
    Unreadable { path: PathBuf, message: String },
    #[error(transparent)]
    Folder(crate::package::ContractDigestError),
}

impl CheckError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            CheckError::Future { .. } | CheckError::Unbumped { .. } => crate::error::Class::Refused,
            _ => crate::error::Class::Failed,
        }
    }
}

/// `squad version check`: `current`, the version of the package folder `path`, is not dated
/// after `today`, and when `published` (the last published archive) is given, the package did
/// not change since without a new version (CD-1).
///
/// `manifest` is the manifest's text as the caller read it to find `current`: the comparison
/// uses that text, so the version judged and the content compared come from one read.
pub fn check(
    path: &Path,
    manifest: &str,
    current: &Version,
    today: Date,
    published: Option<&Path>,
) -> Result<(), CheckError> {
    if current.date() > today {
        return Err(CheckError::Future {
            current: current.clone(),
            today,
        });
    }
    if let Some(archive) = published {
        let (version, same_content) = unchanged_since(path, manifest, archive)?;
        if !same_content && version == current.to_string() {
            return Err(CheckError::Unbumped { version });
        }
    }
    Ok(())
}

/// The published version, and whether the folder's bytes equal the archive's, ignoring the
/// manifest's version string (the reference's content digest does the same, CD-1).
fn unchanged_since(
    path: &Path,
    manifest: &str,
    archive: &Path,
) -> Result<(String, bool), CheckError> {
    let unreadable = |path: &Path, message: String| CheckError::Unreadable {
        path: path.to_path_buf(),
        message,
    };
    // Within the import limit, and never a FIFO or a device.
    let bytes = crate::snapshot::read_archive(archive)
        .map_err(|error| CheckError::Archive(archive.to_path_buf(), error))?;
    let package =
        crate::archive::reader::read_package(&bytes, &crate::archive::reader::Limits::REFERENCE)
            .map_err(|error| unreadable(archive, error.to_string()))?;
    let mut published: Vec<(String, Vec<u8>)> = package.files;
    let mut published_version = String::new();
    for (file, content) in published.iter_mut() {
        if file == MANIFEST_FILE {
            let text = String::from_utf8_lossy(content).into_owned();
            let (_, version) =
                locate_in_manifest(&text).map_err(|message| unreadable(archive, message))?;
            published_version = version;
            *content = without_version(&text)
                .map_err(|message| unreadable(archive, message))?
                .into_bytes();
        }
    }
    // Equal records (path, size, SHA-256) in digest order mean equal package digests, so the
    // folder is hashed file by file instead of held in memory; each side's manifest record is
    // that of its version-blanked text.
    let published = digest_entries_with_files(&published).files;
    let mut local = crate::package::contract_digest(path, false, true, &Progress::default())
        .map_err(CheckError::Folder)?
        .files;
    if let Some(record) = local.iter_mut().find(|file| file.path == MANIFEST_FILE) {
        let content = without_version(manifest)
            .map_err(|message| unreadable(&path.join(MANIFEST_FILE), message))?
            .into_bytes();
        record.size = content.len() as u64;
        record.sha256 = Sha256Digest::of(&content);
    }
    Ok((published_version, published == local))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_refuses_a_future_date_and_fails_on_an_unreadable_archive() {
        let current = Version::parse("2026.12.02.1").unwrap();
        let folder = Path::new("no-such-folder");
        let error = check(folder, "", &current, date(2026, 12, 1), None).unwrap_err();
        assert_eq!(error.class(), crate::error::Class::Refused);
        assert_eq!(
            error.to_string(),
            "version 2026.12.02.1 is dated after today (2026-12-01 UTC)"
        );
        assert!(check(folder, "", &current, date(2026, 12, 2), None).is_ok());
        let missing = Path::new("no-such-archive.zip");
        let error = check(folder, "", &current, date(2026, 12, 2), Some(missing)).unwrap_err();
        assert_eq!(error.class(), crate::error::Class::Failed);
        assert_eq!(error.to_string(), "cannot read `no-such-archive.zip`");
    }

    fn date(year: u32, month: u32, day: u32) -> Date {
        Date { year, month, day }
    }
}
