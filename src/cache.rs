//! squad's content-addressed download cache: every archive downloaded for a project is kept under
//! its SHA-256 (`<cache>/archives/sha256/<2 hex>/<64 hex>.zip`), so a second sync needs no network
//! and `squad sync --offline` works from it. An entry is written through a synced temporary file
//! renamed into place, and its bytes are hashed again on every read: a file whose SHA-256 is not
//! its name is never used, whatever put it there.
//!
//! Beside the archives, the signatures found for a squad (`<cache>/signatures/sha256/<2 hex>/
//! <64 hex>.json`, by the SHA-256 of the statement they sign): a signature is its own
//! evidence, checked against the project's keys at every use, so keeping it lets an offline
//! sync judge a locked squad by its signature as an online one does. A file there that is
//! not a list of signatures, or whose signatures do not verify, is never believed.
//!
//! And the files of static indexes (`<cache>/indexes/files/<2 hex>/<64 hex>.json`, by SHA-256,
//! checked on every read as archives are), with the last root seen of each index
//! (`<cache>/indexes/roots/<SHA-256 of its URL>.json` and its `.minisig`): squad refuses a
//! root older than that one (docs/index.md says why the cache is the place for it).

use std::path::{Path, PathBuf};

use crate::digest::Sha256Digest;

/// The cache's root directory and what lives in it.
#[derive(Debug, Clone)]
pub struct Cache {
    root: PathBuf,
}

/// Why the cache could not serve or keep an archive.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// A cached file's bytes are not the ones its name promises; it was removed.
    #[error("the cached archive `{}` has SHA-256 {actual}, not {expected}: it was changed after it was downloaded, and was removed", path.display())]
    Corrupt {
        path: PathBuf,
        expected: Sha256Digest,
        actual: Sha256Digest,
    },
    #[error("cannot use the cache at `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
}

impl CacheError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            CacheError::Corrupt { .. } => crate::error::Class::Refused,
            CacheError::Io(..) => crate::error::Class::Failed,
        }
    }
}

/// What `clean` removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Cleaned {
    pub files: u64,
    pub bytes: u64,
}

/// The subdirectories `clean` empties: archives and the signatures found for them.
const ARCHIVES: &str = "archives";
const SIGNATURES: &str = "signatures";
/// Index files by SHA-256 (`indexes/files`), which `clean` empties, and the last root seen of
/// each index (`indexes/roots`), which it keeps: forgetting a root would let a server roll
/// the index back unnoticed.
const INDEXES: &str = "indexes";
/// The largest signature list read back (a minisign signature is about 300 bytes).
const MAX_SIGNATURES_BYTES: u64 = 64 * 1024;
/// Temporary files older than this are left over from a killed process.
const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(3600);

impl Cache {
    pub fn new(root: PathBuf) -> Cache {
        Cache { root }
    }

    /// The cache the environment names (see [`crate::env::cache_dir`]).
    pub fn from_env() -> Option<Cache> {
        crate::env::cache_dir().map(Cache::new)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the archive with this SHA-256 is kept.
    pub fn archive_path(&self, sha256: &Sha256Digest) -> PathBuf {
        let hex = sha256.hex();
        self.root
            .join(ARCHIVES)
            .join("sha256")
            .join(&hex[..2])
            .join(format!("{hex}.zip"))
    }

    /// Where the signatures of the statement with this SHA-256 are kept.
    pub fn signatures_path(&self, statement: &Sha256Digest) -> PathBuf {
        let hex = statement.hex();
        self.root
            .join(SIGNATURES)
            .join("sha256")
            .join(&hex[..2])
            .join(format!("{hex}.json"))
    }

    /// The signatures kept for a statement (their `.minisig` texts); `None` when there are
    /// none, or the file is not what squad writes.
    pub fn signatures(&self, statement: &Sha256Digest) -> Option<Vec<String>> {
        let path = self.signatures_path(statement);
        let metadata = crate::fs::metadata(&path).ok()?;
        if metadata.len() > MAX_SIGNATURES_BYTES {
            return None;
        }
        let bytes = crate::fs::read(&path).ok()?;
        serde_json::from_slice::<Vec<String>>(&bytes).ok()
    }

    /// Keeps the signatures found for a statement, replacing what was kept.
    pub fn keep_signatures(
        &self,
        statement: &Sha256Digest,
        signatures: &[String],
    ) -> Result<(), CacheError> {
        let path = self.signatures_path(statement);
        let directory = crate::fs::parent_directory(&path).to_path_buf();
        let io = |error| CacheError::Io(directory.clone(), error);
        self.create_root().map_err(io)?;
        crate::fs::create_dir_all(&directory).map_err(io)?;
        let text = serde_json::to_vec(signatures).unwrap_or_default();
        crate::fs::replace_file(&path, &text).map_err(|error| CacheError::Io(path, error))
    }

    /// The bytes of the cached archive with this SHA-256, read once and checked; `None` when
    /// absent. A file whose bytes do not match is removed and reported. The bytes returned
    /// are the ones hashed: a caller never reads the entry a second time, so a file swapped
    /// after the check is never used.
    pub fn get(&self, sha256: &Sha256Digest) -> Result<Option<Vec<u8>>, CacheError> {
        get_checked(self.archive_path(sha256), sha256)
    }

    /// Keeps `bytes`, which must hash to `sha256`, and returns where.
    pub fn put(&self, sha256: &Sha256Digest, bytes: &[u8]) -> Result<PathBuf, CacheError> {
        self.put_checked(self.archive_path(sha256), sha256, bytes)
    }

    /// Where the index file (a squad's file or a search shard) with this SHA-256 is kept.
    pub fn index_file_path(&self, sha256: &Sha256Digest) -> PathBuf {
        let hex = sha256.hex();
        self.root
            .join(INDEXES)
            .join("files")
            .join(&hex[..2])
            .join(format!("{hex}.json"))
    }

    /// The cached index file with this SHA-256, checked as archives are.
    pub fn index_file(&self, sha256: &Sha256Digest) -> Result<Option<Vec<u8>>, CacheError> {
        get_checked(self.index_file_path(sha256), sha256)
    }

    /// Keeps an index file, which must hash to `sha256`. Written whole but not synced: an
    /// index file is small, hashed again on every read, and fetched again when it is not its
    /// name's bytes, so a search does not wait for the disk.
    pub fn keep_index_file(&self, sha256: &Sha256Digest, bytes: &[u8]) -> Result<(), CacheError> {
        let path = self.index_file_path(sha256);
        let actual = Sha256Digest::of(bytes);
        if actual != *sha256 {
            return Err(CacheError::Corrupt {
                path,
                expected: *sha256,
                actual,
            });
        }
        let directory = crate::fs::parent_directory(&path).to_path_buf();
        let io = |error| CacheError::Io(directory.clone(), error);
        self.create_root().map_err(io)?;
        crate::fs::create_dir_all(&directory).map_err(io)?;
        crate::fs::replace_file_unsynced(&path, bytes).map_err(|error| CacheError::Io(path, error))
    }

    /// Where the last root seen of the index at `url` is kept, with its signature: by the
    /// SHA-256 of the URL, so that each index has its own.
    fn index_root_path(&self, url: &str) -> PathBuf {
        let hex = Sha256Digest::of(url.as_bytes()).hex();
        self.root
            .join(INDEXES)
            .join("roots")
            .join(format!("{hex}.json"))
    }

    /// The last root seen of the index at `url`, and its signature's text; `None` when none
    /// was kept (or what is there is larger than `limit`, the largest root).
    pub fn index_root(&self, url: &str, limit: u64) -> Option<(Vec<u8>, Option<String>)> {
        let path = self.index_root_path(url);
        let metadata = crate::fs::metadata(&path).ok()?;
        if metadata.len() > limit {
            return None;
        }
        let root = crate::fs::read_regular(&path).ok()?;
        let signature = crate::fs::read_regular(&path.with_extension("json.minisig"))
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok());
        Some((root, signature))
    }

    /// Keeps the root of the index at `url` (and its signature) as the last one seen.
    pub fn keep_index_root(
        &self,
        url: &str,
        root: &[u8],
        signature: Option<&str>,
    ) -> Result<(), CacheError> {
        let path = self.index_root_path(url);
        let directory = crate::fs::parent_directory(&path).to_path_buf();
        let io = |error| CacheError::Io(directory.clone(), error);
        self.create_root().map_err(io)?;
        crate::fs::create_dir_all(&directory).map_err(io)?;
        let signature_path = path.with_extension("json.minisig");
        // The signature first: a root kept without its own signature would not verify offline.
        match signature {
            Some(text) => crate::fs::replace_file(&signature_path, text.as_bytes())
                .map_err(|error| CacheError::Io(signature_path.clone(), error))?,
            None => match crate::fs::remove_file(&signature_path) {
                Ok(()) => {}
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(CacheError::Io(signature_path, error)),
            },
        }
        crate::fs::replace_file(&path, root).map_err(|error| CacheError::Io(path, error))
    }

    fn put_checked(
        &self,
        path: PathBuf,
        sha256: &Sha256Digest,
        bytes: &[u8],
    ) -> Result<PathBuf, CacheError> {
        use std::io::Write;
        let actual = Sha256Digest::of(bytes);
        if actual != *sha256 {
            return Err(CacheError::Corrupt {
                path,
                expected: *sha256,
                actual,
            });
        }
        let directory = crate::fs::parent_directory(&path).to_path_buf();
        let io = |error| CacheError::Io(directory.clone(), error);
        self.create_root().map_err(io)?;
        crate::fs::create_dir_all(&directory).map_err(io)?;
        remove_stale_temporaries(&directory);
        let mut temporary = crate::fs::create_beside(&path).map_err(io)?;
        let written = temporary
            .write_all(bytes)
            .and_then(|()| temporary.as_file().sync_all())
            .and_then(|()| {
                crate::env::failpoint("cache-temporary-written");
                // Same bytes under the same name: replacing a concurrent writer's copy is fine.
                crate::fs::publish_file(temporary, &path, true)
            });
        if let Err(error) = written {
            return Err(CacheError::Io(path, error));
        }
        Ok(path)
    }

    /// Creates the root with a `CACHEDIR.TAG`, so backup tools skip it.
    fn create_root(&self) -> std::io::Result<()> {
        if self.root.join("CACHEDIR.TAG").is_file() {
            return Ok(());
        }
        crate::fs::create_dir_all(&self.root)?;
        let tag = "Signature: 8a477f597d28d172789f06886806bc55\n# This is squad's download cache: https://bford.info/cachedir/\n";
        crate::fs::replace_file(&self.root.join("CACHEDIR.TAG"), tag.as_bytes())
    }

    /// Removes every cached archive and signature (and nothing else under the root, which may
    /// be a directory the user named).
    pub fn clean(&self) -> Result<Cleaned, CacheError> {
        let mut cleaned = Cleaned::default();
        for directory in [
            self.root.join(ARCHIVES),
            self.root.join(SIGNATURES),
            self.root.join(INDEXES).join("files"),
        ] {
            count(&directory, &mut cleaned);
            match crate::fs::remove_dir_all(&directory) {
                Ok(()) => {}
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(CacheError::Io(directory, error)),
            }
        }
        Ok(cleaned)
    }
}

/// The bytes at `path`, which must hash to `sha256` (else the file is removed and reported);
/// `None` when absent.
fn get_checked(path: PathBuf, sha256: &Sha256Digest) -> Result<Option<Vec<u8>>, CacheError> {
    let bytes = match crate::fs::read_regular(&path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(CacheError::Io(path, error)),
    };
    let actual = Sha256Digest::of(&bytes);
    if actual != *sha256 {
        let _ = crate::fs::remove_file(&path);
        return Err(CacheError::Corrupt {
            path,
            expected: *sha256,
            actual,
        });
    }
    Ok(Some(bytes))
}

fn count(path: &Path, cleaned: &mut Cleaned) {
    let Ok(entries) = crate::fs::read_dir(path) else {
        return;
    };
    for entry in entries.flatten() {
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => count(&entry.path(), cleaned),
            Ok(_) => {
                cleaned.files += 1;
                cleaned.bytes += entry.metadata().map_or(0, |metadata| metadata.len());
            }
            Err(_) => {}
        }
    }
}

/// Temporary files a killed writer left beside the archives (`.<name>.tmp-<pid>-<n>`).
fn remove_stale_temporaries(directory: &Path) {
    let Ok(entries) = crate::fs::read_dir(directory) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let stale = entry
            .metadata()
            .and_then(|metadata| metadata.modified())
            .ok()
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMPORARY);
        if name.starts_with('.') && name.contains(".tmp-") && stale {
            let _ = crate::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archives_are_kept_by_sha256_and_checked_on_every_read() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path().join("cache"));
        let bytes = b"PK archive bytes";
        let sha = Sha256Digest::of(bytes);
        assert!(cache.get(&sha).unwrap().is_none());
        let path = cache.put(&sha, bytes).unwrap();
        assert_eq!(path, cache.archive_path(&sha));
        assert!(path.starts_with(dir.path().join("cache/archives/sha256")));
        assert!(dir.path().join("cache/CACHEDIR.TAG").is_file());
        assert_eq!(cache.get(&sha).unwrap(), Some(bytes.to_vec()));
        // Bytes that are not the name's are refused on the way in and on the way out.
        let wrong = Sha256Digest::of(b"other");
        assert!(matches!(
            cache.put(&wrong, bytes),
            Err(CacheError::Corrupt { .. })
        ));
        std::fs::write(&path, b"tampered").unwrap();
        let error = cache.get(&sha).unwrap_err();
        assert!(error.to_string().contains(&sha.hex()), "{error}");
        assert!(!path.exists(), "a corrupt entry is removed");
        cache.put(&sha, bytes).unwrap();
        let cleaned = cache.clean().unwrap();
        assert_eq!(
            cleaned,
            Cleaned {
                files: 1,
                bytes: bytes.len() as u64
            }
        );
        assert!(cache.get(&sha).unwrap().is_none());
        assert!(dir.path().join("cache/CACHEDIR.TAG").is_file());
        assert_eq!(cache.clean().unwrap(), Cleaned::default());
    }
}
