//! Reading a static index over HTTP(S), every check on every fetch:
//!
//! 1. the root (`index.json`) within [`super::MAX_ROOT_BYTES`], and, when a key is trusted
//!    (`--trust`, or the project's `index_key`), its signature (`index.json.minisig`) by that
//!    key over the root's exact bytes: another key, no signature, or a signature over other
//!    bytes is refused;
//! 2. the root itself: `type`, `schema_version`, every file's digest well formed, within
//!    [`super::MAX_FILES`] files of at most [`super::MAX_FILE_BYTES`];
//! 3. its expiry, against the clock;
//! 4. its version, against the last root squad saw of this index (kept in squad's cache): an
//!    older one is a rollback, another root with the same version an equivocation, both
//!    refused; a newer one is kept as the last seen;
//! 5. every other file: named by the root, at most the size it says, and hashed to the
//!    SHA-256 it says before a byte of it is parsed. Files are kept in the cache by SHA-256, so
//!    a file fetched once is not fetched again while the root names it.
//!
//! Offline, the last root kept in the cache is used (its signature checked again when a key is
//! trusted; an expired one is used, and said to be), with whatever files the cache holds.

use crate::cache::Cache;
use crate::digest::Sha256Digest;
use crate::http::{Client, Method, Redirects, Request, Url};
use crate::sign::{KeyId, PublicKey, Signature};
use crate::version::Timestamp;

use super::format::{ROOT, ROOT_SIGNATURE, ROOT_TYPE, Root, SCHEMA_VERSION, Shard, SquadFile};
use super::{IndexError, MAX_FILE_BYTES, MAX_FILES, MAX_ROOT_BYTES, MAX_SIGNATURE_BYTES};

/// How an index is read.
pub struct Access<'a> {
    /// `None`: offline, from the cache alone.
    pub client: Option<&'a Client>,
    pub cache: Option<&'a Cache>,
    /// The key that must have signed the root (`None`: the root's signature is not asked for).
    pub trust: Option<&'a PublicKey>,
    pub now: Timestamp,
}

/// An index whose root passed every check.
pub struct Index<'a> {
    access: Access<'a>,
    /// The index's base URL, ending with `/`.
    pub url: Url,
    pub root: Root,
    /// The key whose signature over the root verified.
    pub signed_by: Option<KeyId>,
    /// Offline, a root that has expired is used; this says so.
    pub expired: bool,
}

/// The index's base URL from what a person gives: the folder's URL, with or without its
/// trailing `/`, or the root's own URL.
pub fn base_url(text: &str) -> Result<Url, IndexError> {
    let trimmed = text.trim();
    let trimmed = trimmed.strip_suffix(ROOT).unwrap_or(trimmed);
    let with_slash = if trimmed.ends_with('/') {
        trimmed.to_owned()
    } else {
        format!("{trimmed}/")
    };
    let url = Url::parse(&with_slash)
        .map_err(|error| IndexError::Usage(format!("`{text}` is not a URL: {error}")))?;
    match url.scheme() {
        "https" | "http" => Ok(url),
        other => Err(IndexError::Usage(format!(
            "`{text}`: an index is served over https:// (or plain http:// on this machine), not {other}://"
        ))),
    }
}

fn get(client: &Client, url: &Url, limit: u64) -> Result<Option<Vec<u8>>, IndexError> {
    let response = client
        .send(&Request::new(Method::Get, url.clone()).with_redirects(Redirects::Follow(5)))
        .map_err(IndexError::Http)?;
    match response.status {
        200 => {}
        404 => return Ok(None),
        status => {
            return Err(IndexError::Status {
                url: crate::http::redacted(url),
                status,
            });
        }
    }
    response
        .read_to_vec(limit)
        .map(Some)
        .map_err(|error| match error.kind {
            crate::http::ErrorKind::BodyTooLarge { .. } => IndexError::File {
                url: crate::http::redacted(url),
                message: format!("more than the {limit} bytes allowed"),
            },
            _ => IndexError::Http(error),
        })
}

/// Parses and checks a root's bytes.
fn parse_root(url: &str, bytes: &[u8]) -> Result<Root, IndexError> {
    let invalid = |message: String| IndexError::Root {
        url: url.to_owned(),
        message,
    };
    let root: Root = serde_json::from_slice(bytes).map_err(|error| invalid(error.to_string()))?;
    if root.kind != ROOT_TYPE {
        return Err(invalid(format!(
            "its type is `{}`, not `{ROOT_TYPE}`",
            root.kind
        )));
    }
    if root.schema_version != SCHEMA_VERSION {
        return Err(invalid(format!(
            "schema_version {} is not one this squad reads ({SCHEMA_VERSION})",
            root.schema_version
        )));
    }
    if root.files.len() > MAX_FILES {
        return Err(invalid(format!("it names more than {MAX_FILES} files")));
    }
    for (path, meta) in &root.files {
        if Sha256Digest::parse(&meta.sha256).is_none() {
            return Err(invalid(format!(
                "the SHA-256 of `{path}` is not 64 lowercase hex"
            )));
        }
        if meta.bytes > MAX_FILE_BYTES {
            return Err(invalid(format!(
                "`{path}` is {} bytes, more than the {MAX_FILE_BYTES} a file may be",
                meta.bytes
            )));
        }
        let safe = !path.is_empty()
            && path
                .split('/')
                .all(|part| !part.is_empty() && part != "." && part != "..")
            && path
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || b"-_./".contains(&byte));
        if !safe {
            return Err(invalid(format!(
                "`{}` is not a path an index file may have",
                crate::text::remote(path, 120)
            )));
        }
    }
    for (what, value) in [("built", &root.built), ("expires", &root.expires)] {
        if Timestamp::parse(value).is_none() {
            return Err(invalid(format!(
                "`{what}` is not YYYY-MM-DDTHH:MM:SSZ: `{}`",
                crate::text::remote(value, 60)
            )));
        }
    }
    Ok(root)
}

/// Checks a root's signature by `key` over `bytes`.
fn check_signature(
    url: &str,
    bytes: &[u8],
    signature: Option<&str>,
    key: &PublicKey,
) -> Result<KeyId, IndexError> {
    let refused = |message: String| IndexError::Signature {
        url: url.to_owned(),
        message,
    };
    let text = signature.ok_or_else(|| {
        refused(format!(
            "it has no signature ({ROOT_SIGNATURE}), and key {} must sign it",
            key.id
        ))
    })?;
    let signature = Signature::parse(text)
        .map_err(|error| refused(format!("its signature cannot be read: {error}")))?;
    if signature.key_id != key.id {
        return Err(refused(format!(
            "it is signed by key {}, not by the trusted key {}",
            signature.key_id, key.id
        )));
    }
    signature
        .verify(key, bytes)
        .map_err(|error| refused(error.to_string()))?;
    Ok(key.id)
}

impl<'a> Index<'a> {
    /// Fetches (or, offline, takes from the cache) the root of the index at `url` and checks
    /// it: signature, shape, expiry and version (see the module documentation).
    pub fn open(url: &str, access: Access<'a>) -> Result<Index<'a>, IndexError> {
        let base = base_url(url)?;
        let root_url = base
            .join(ROOT)
            .map_err(|error| IndexError::Usage(error.to_string()))?;
        let shown = crate::http::redacted(&root_url);
        let key = base.as_str().to_owned();
        let kept = access
            .cache
            .and_then(|cache| cache.index_root(&key, MAX_ROOT_BYTES));
        let (bytes, signature) = match access.client {
            Some(client) => {
                let bytes = get(client, &root_url, MAX_ROOT_BYTES)?
                    .ok_or_else(|| IndexError::NotFound { url: shown.clone() })?;
                let signature = match access.trust {
                    Some(_) => {
                        let signature_url = base
                            .join(ROOT_SIGNATURE)
                            .map_err(|error| IndexError::Usage(error.to_string()))?;
                        get(client, &signature_url, MAX_SIGNATURE_BYTES)?
                            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                    }
                    None => None,
                };
                (bytes, signature)
            }
            None => kept.clone().ok_or_else(|| IndexError::NotCached {
                what: format!("the index {shown}"),
            })?,
        };
        let signed_by = match access.trust {
            Some(key) => Some(check_signature(&shown, &bytes, signature.as_deref(), key)?),
            None => None,
        };
        let root = parse_root(&shown, &bytes)?;
        let expires = Timestamp::parse(&root.expires).unwrap_or(Timestamp(i64::MIN));
        let expired = expires <= access.now;
        if expired && access.client.is_some() {
            return Err(IndexError::Expired {
                url: shown,
                expires: root.expires.clone(),
                now: access.now.to_string(),
            });
        }
        if let Some((kept_bytes, _)) = &kept {
            if let Ok(seen) = parse_root(&shown, kept_bytes) {
                if root.version < seen.version {
                    return Err(IndexError::Rollback {
                        url: shown,
                        seen: seen.version,
                        got: root.version,
                    });
                }
                if root.version == seen.version && kept_bytes != &bytes {
                    return Err(IndexError::Equivocation {
                        url: shown,
                        version: root.version,
                    });
                }
            }
        }
        let newer = kept
            .as_ref()
            .is_none_or(|(kept_bytes, _)| *kept_bytes != bytes);
        if let (Some(cache), true, Some(_)) = (access.cache, newer, access.client) {
            cache
                .keep_index_root(&key, &bytes, signature.as_deref())
                .map_err(IndexError::Cache)?;
        }
        Ok(Index {
            access,
            url: base,
            root,
            signed_by,
            expired,
        })
    }

    /// The URL of a file of the index.
    pub fn file_url(&self, path: &str) -> Result<Url, IndexError> {
        self.url
            .join(path)
            .map_err(|error| IndexError::Usage(format!("`{path}`: {error}")))
    }

    /// The bytes of the file at `path`, which the root must name (`None` when it does not):
    /// from the cache when it holds them, else fetched; checked against the root's size and
    /// SHA-256 either way.
    pub fn file(&self, path: &str) -> Result<Option<Vec<u8>>, IndexError> {
        let Some(meta) = self.root.files.get(path) else {
            return Ok(None);
        };
        let url = self.file_url(path)?;
        let shown = crate::http::redacted(&url);
        let Some(sha256) = Sha256Digest::parse(&meta.sha256) else {
            return Err(IndexError::Root {
                url: shown,
                message: "a digest is not 64 lowercase hex".to_owned(),
            });
        };
        if let Some(cache) = self.access.cache {
            // A cached file that is not its name's bytes is removed; fetch it again.
            if let Ok(Some(bytes)) = cache.index_file(&sha256) {
                return Ok(Some(bytes));
            }
        }
        let Some(client) = self.access.client else {
            return Err(IndexError::NotCached {
                what: format!("`{path}` of the index"),
            });
        };
        // Bounded by the largest file an index may have, not by what the root says: a file of
        // another size is then reported with its real size and digest.
        let bytes = get(client, &url, MAX_FILE_BYTES)?
            .ok_or_else(|| IndexError::NotFound { url: shown.clone() })?;
        let actual = Sha256Digest::of(&bytes);
        if actual != sha256 || bytes.len() as u64 != meta.bytes {
            return Err(IndexError::Digest {
                url: shown,
                expected: meta.sha256.clone(),
                expected_bytes: meta.bytes,
                actual: actual.hex(),
                bytes: bytes.len() as u64,
            });
        }
        if let Some(cache) = self.access.cache {
            // The cache is a convenience: an index read works without it.
            let _ = cache.keep_index_file(&sha256, &bytes);
        }
        Ok(Some(bytes))
    }

    /// The file of the squad `namespace/id`, when the index has one.
    pub fn squad(&self, namespace: &str, id: &str) -> Result<Option<SquadFile>, IndexError> {
        let path = super::format::squad_path(namespace, id);
        let Some(bytes) = self.file(&path)? else {
            return Ok(None);
        };
        let file: SquadFile = serde_json::from_slice(&bytes).map_err(|error| IndexError::File {
            url: self.shown(&path),
            message: error.to_string(),
        })?;
        if file.namespace != namespace || file.id != id {
            return Err(IndexError::File {
                url: self.shown(&path),
                message: format!(
                    "it describes {}/{}, not {namespace}/{id}",
                    crate::text::remote(&file.namespace, 80),
                    crate::text::remote(&file.id, 80)
                ),
            });
        }
        Ok(Some(file))
    }

    /// The squad `name` names: `namespace/id` exactly, or an id alone when exactly one
    /// namespace has it. Never a similar name: one that is not there is an error that lists
    /// the similar names a search finds.
    pub fn find(&self, name: &str) -> Result<SquadFile, IndexError> {
        let shown = self.url.to_string();
        if let Ok((namespace, id)) = crate::manifest::squad_name(name) {
            if let Some(file) = self.squad(namespace, id)? {
                return Ok(file);
            }
        } else if crate::text::is_kebab_id(name) {
            let hits = super::search::search_index(self, name, super::search::MAX_RESULTS)?;
            let exact: Vec<String> = hits
                .iter()
                .filter(|hit| hit.exact && hit.id == name)
                .map(super::search::Hit::name)
                .collect();
            match exact.as_slice() {
                [one] => {
                    let (namespace, id) = one.split_once('/').unwrap_or_default();
                    if let Some(file) = self.squad(namespace, id)? {
                        return Ok(file);
                    }
                }
                [] => {}
                _ => {
                    return Err(IndexError::Ambiguous {
                        index: shown,
                        id: name.to_owned(),
                        names: exact,
                    });
                }
            }
        } else {
            return Err(IndexError::Usage(format!(
                "`{}` is not a squad's name: `<namespace>/<id>`, or an id",
                crate::text::remote(name, 80)
            )));
        }
        let similar = self.similar(name);
        Err(IndexError::NoSquad {
            index: shown,
            name: name.to_owned(),
            similar,
        })
    }

    /// Up to three names of the index close to `name` (by edit distance of the whole name, or
    /// of the id to an id alone), from the shard of its id's first two characters: for a
    /// "similar names" line, never to be used in its place.
    pub fn similar(&self, name: &str) -> Vec<String> {
        let id = name.rsplit('/').next().unwrap_or(name);
        let Some(first) = super::format::tokens(id).into_iter().next() else {
            return Vec::new();
        };
        let Ok(Some(shard)) = self.shard(&first) else {
            return Vec::new();
        };
        let names: std::collections::BTreeSet<&str> = shard
            .words
            .values()
            .flatten()
            .map(|(name, _)| name.as_str())
            .collect();
        let limit = (name.chars().count() / 3).clamp(2, 4);
        let mut close: Vec<(usize, &str)> = names
            .into_iter()
            .map(|candidate| {
                let compared = if name.contains('/') {
                    candidate
                } else {
                    candidate.rsplit('/').next().unwrap_or(candidate)
                };
                (crate::text::edit_distance(name, compared), candidate)
            })
            .filter(|(distance, _)| *distance <= limit)
            .collect();
        close.sort();
        close
            .into_iter()
            .take(3)
            .map(|(_, name)| name.to_owned())
            .collect()
    }

    /// The search shard of `word`'s first two characters, when the index has one.
    pub fn shard(&self, word: &str) -> Result<Option<Shard>, IndexError> {
        let path = super::format::shard_path(word);
        let Some(bytes) = self.file(&path)? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|error| IndexError::File {
                url: self.shown(&path),
                message: error.to_string(),
            })
    }

    fn shown(&self, path: &str) -> String {
        self.file_url(path)
            .map(|url| crate::http::redacted(&url))
            .unwrap_or_else(|_| path.to_owned())
    }

    /// Where a version's archive is, as a source `squad install` takes: a registry reference
    /// as it is, a relative location resolved against the index.
    pub fn source_of(&self, location: &str) -> Result<String, IndexError> {
        if crate::oci::reference::is_reference(location) {
            return Ok(location.to_owned());
        }
        let url = self.url.join(location).map_err(|error| IndexError::File {
            url: self.url.to_string(),
            message: format!(
                "the location `{}` is not a URL: {error}",
                crate::text::remote(location, 120)
            ),
        })?;
        Ok(url.to_string())
    }
}
