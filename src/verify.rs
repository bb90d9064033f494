//! Drift between a package on disk and a record of what it should be: added, removed and
//! changed files by path.

use std::collections::BTreeMap;
use std::path::Path;

use crate::archive::reader::{Limits, read_package};
use crate::digest::{
    DigestDocument, FileRecord, Sha256Digest, TreeDigest, digest_entries_with_files,
};

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

impl Record {
    /// How the package `actual` differs from this record: `None` when it is the recorded
    /// package; else each added, removed and changed file (none named when the record has no
    /// per-file hashes, so `actual` needs its files only when the record has them).
    pub fn drift(&self, actual: &TreeDigest) -> Option<Vec<Drift>> {
        if actual.package_digest == self.package_digest {
            return None;
        }
        Some(
            self.files
                .as_ref()
                .map(|files| compare(files, &actual.files))
                .unwrap_or_default(),
        )
    }
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

/// Reads a record: the JSON of `squad digest --files --format json`, or an archive made by
/// `squad pack`.
pub fn load_record(path: &Path) -> Result<Record, String> {
    let bytes = crate::fs::read(path)
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
    Ok(Record {
        package_digest: document.package_digest,
        files: document.files.map(std::borrow::Cow::into_owned),
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

    #[test]
    fn a_record_with_a_malformed_hash_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("record.json");
        let good = Sha256Digest::of(b"x").hex();
        std::fs::write(
            &path,
            format!(
                "{{\"package_digest\":\"{good}\",\"files\":[{{\"path\":\"a\",\"size\":1,\"sha256\":\"{good}\"}}]}}"
            ),
        )
        .unwrap();
        let record = load_record(&path).unwrap();
        assert_eq!(record.package_digest.hex(), good);
        assert_eq!(record.files.unwrap()[0].sha256.hex(), good);
        for bad in [good.to_uppercase(), good[1..].to_owned()] {
            std::fs::write(
                &path,
                format!(
                    "{{\"package_digest\":\"{good}\",\"files\":[{{\"path\":\"a\",\"size\":1,\"sha256\":\"{bad}\"}}]}}"
                ),
            )
            .unwrap();
            let error = load_record(&path).unwrap_err();
            assert!(error.contains("64 lowercase hex"), "{error}");
            std::fs::write(&path, format!("{{\"package_digest\":\"{bad}\"}}")).unwrap();
            assert!(load_record(&path).is_err());
        }
    }
}
