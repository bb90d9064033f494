//! Drift between a package on disk and a record of what it should be: added, removed and
//! changed files by path.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::archive::reader::{Limits, read_package};
use crate::digest::{FileRecord, Sha256Digest, digest_entries_with_files};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DriftKind {
    Added,
    Removed,
    Changed,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Drift {
    pub kind: DriftKind,
    pub path: String,
}

/// What a package is expected to be.
#[derive(Debug, Clone)]
pub struct Record {
    pub package_digest: Sha256Digest,
    /// Per-file records, when known (a digest alone cannot say which file drifted).
    pub files: Option<Vec<FileRecord>>,
}

/// Every difference between `expected` and `actual` files, sorted by path.
pub fn compare(expected: &[FileRecord], actual: &[FileRecord]) -> Vec<Drift> {
    let expected: BTreeMap<&str, &FileRecord> =
        expected.iter().map(|f| (f.path.as_str(), f)).collect();
    let actual: BTreeMap<&str, &FileRecord> = actual.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut drift = Vec::new();
    for (path, record) in &expected {
        match actual.get(path) {
            None => drift.push(Drift {
                kind: DriftKind::Removed,
                path: (*path).to_owned(),
            }),
            Some(now) if now.sha256 != record.sha256 || now.size != record.size => {
                drift.push(Drift {
                    kind: DriftKind::Changed,
                    path: (*path).to_owned(),
                });
            }
            Some(_) => {}
        }
    }
    for path in actual.keys() {
        if !expected.contains_key(path) {
            drift.push(Drift {
                kind: DriftKind::Added,
                path: (*path).to_owned(),
            });
        }
    }
    drift.sort_by(|a, b| a.path.cmp(&b.path));
    drift
}

#[derive(Deserialize)]
struct DigestDocument {
    package_digest: String,
    #[serde(default)]
    files: Option<Vec<DigestFile>>,
}

#[derive(Deserialize)]
struct DigestFile {
    path: String,
    size: u64,
    sha256: String,
}

/// Reads a record: the JSON of `squad digest --files --format json`, or an archive made by
/// `squad pack`.
pub fn load_record(path: &Path) -> Result<Record, String> {
    let bytes = std::fs::read(path)
        .map_err(|error| format!("cannot read `{}`: {error}", path.display()))?;
    if bytes.starts_with(b"PK") {
        let package = read_package(&bytes, &Limits::REFERENCE)
            .map_err(|error| format!("`{}`: {error}", path.display()))?;
        let tree = digest_entries_with_files(&package.files);
        return Ok(Record {
            package_digest: tree.package_digest,
            files: Some(tree.files),
        });
    }
    let document: DigestDocument = serde_json::from_slice(&bytes).map_err(|error| {
        format!(
            "`{}` is neither a ZIP archive nor the JSON of `squad digest --format json`: {error}",
            path.display()
        )
    })?;
    let package_digest = Sha256Digest::parse(&document.package_digest).ok_or_else(|| {
        format!(
            "`{}`: package_digest is not 64 lowercase hex characters",
            path.display()
        )
    })?;
    let files = document
        .files
        .map(|files| {
            files
                .into_iter()
                .map(|file| {
                    Sha256Digest::parse(&file.sha256)
                        .map(|sha256| FileRecord {
                            path: file.path.clone(),
                            size: file.size,
                            sha256,
                        })
                        .ok_or_else(|| {
                            format!(
                                "`{}`: sha256 of `{}` is not 64 lowercase hex characters",
                                path.display(),
                                file.path
                            )
                        })
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    Ok(Record {
        package_digest,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &str, content: &[u8]) -> FileRecord {
        FileRecord {
            path: path.to_owned(),
            size: content.len() as u64,
            sha256: Sha256Digest::of(content),
        }
    }

    #[test]
    fn reports_each_kind_of_drift() {
        let before = [record("a", b"1"), record("b", b"2"), record("c", b"3")];
        let after = [record("a", b"1"), record("b", b"two"), record("d", b"4")];
        let drift = compare(&before, &after);
        assert_eq!(
            drift,
            [
                Drift {
                    kind: DriftKind::Changed,
                    path: "b".into()
                },
                Drift {
                    kind: DriftKind::Removed,
                    path: "c".into()
                },
                Drift {
                    kind: DriftKind::Added,
                    path: "d".into()
                },
            ]
        );
        assert!(compare(&before, &before).is_empty());
    }
}
