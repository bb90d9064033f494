//! Finding what is published: a static index of squads that any web server or CDN can serve
//! (docs/index.md has the format and why it is so).
//!
//! OCI registries have no search API, so squad writes one small file per `namespace/id` with
//! every version's digests, archive location, size, signatures' key ids, publish time,
//! capability summary and yanked flag ([`format::SquadFile`]), search shards by the first two
//! characters of each word ([`format::Shard`]), and a root naming every file's SHA-256 and
//! size, with a version and an expiry, signed with minisign when asked ([`format::Root`]): the
//! crates.io sparse index's layout (one file per package, fetched alone), with a TUF-style
//! root over it (a client checks the root's signature, expiry and version, and every file
//! against the root).
//!
//! - [`build`]: `squad index build`, from registries, folders of archives and trees of squads,
//!   rewriting only the files whose bytes change;
//! - [`fetch`]: the client side, every check on every fetch, the last root seen kept in
//!   squad's cache against rollbacks;
//! - [`search`]: ranking by id, name, label and description, over an index, the cache, or the
//!   installed packages.

pub mod build;
pub mod fetch;
pub mod format;
pub mod search;

use std::path::PathBuf;

/// The largest root read: about 110 bytes per squad, so several hundred thousand squads.
pub const MAX_ROOT_BYTES: u64 = 64 * 1024 * 1024;
/// The largest root signature read (a minisign signature is about 300 bytes).
pub const MAX_SIGNATURE_BYTES: u64 = 4 * 1024;
/// The largest file a root may name (a squad's file, a shard).
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// The most files a root may name.
pub const MAX_FILES: usize = 2_000_000;

/// Why an index could not be built or used. Every variant names the index, the file or the
/// source concerned.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("cannot read or write `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
    #[error(transparent)]
    Http(crate::http::HttpError),
    #[error("{url} was not found (404)")]
    NotFound { url: String },
    #[error("{url} answered {status}")]
    Status { url: String, status: u16 },
    /// The root cannot be read as a root.
    #[error("the index root {url} is not usable: {}", crate::text::remote(.message, 300))]
    Root { url: String, message: String },
    /// The root's signature is missing, by another key, or does not verify.
    #[error("the index root {url} is refused: {}", crate::text::remote(.message, 300))]
    Signature { url: String, message: String },
    #[error("the index root {url} expired at {expires} (it is {now})")]
    Expired {
        url: String,
        expires: String,
        now: String,
    },
    /// An older root than one seen before: a server (or a cache in front of it) serving an
    /// old state of the index.
    #[error(
        "the index root {url} is version {got}, older than version {seen} seen before: refusing a rollback"
    )]
    Rollback { url: String, seen: u64, got: u64 },
    /// Two different roots with one version.
    #[error(
        "the index root {url} is version {version}, but not the version {version} seen before: two different roots with one version"
    )]
    Equivocation { url: String, version: u64 },
    /// A file whose bytes are not the ones the root names.
    #[error(
        "{url} has SHA-256 {actual} and {bytes} bytes, but the index root says {expected} and {expected_bytes} bytes"
    )]
    Digest {
        url: String,
        expected: String,
        expected_bytes: u64,
        actual: String,
        bytes: u64,
    },
    /// A file that cannot be read as what its path says it is.
    #[error("{url} is not usable: {}", crate::text::remote(.message, 300))]
    File { url: String, message: String },
    /// The offline copy of an index lacks what was asked for.
    #[error("{what} is not in squad's cache; run without --offline to fetch it")]
    NotCached { what: String },
    #[error(transparent)]
    Share(crate::share::ShareError),
    #[error(transparent)]
    Cache(crate::cache::CacheError),
    #[error(transparent)]
    Key(crate::sign::keys::KeyError),
    /// A source of `index build` that cannot be used.
    #[error("`{}`: {message}", path.display())]
    Source { path: PathBuf, message: String },
    /// Two sources give one version of a squad with different bytes.
    #[error(
        "{} {} is {} in `{}` but {} in `{}`: one version, two packages",
        .0.name, .0.version, .0.first, .0.first_source, .0.second, .0.second_source
    )]
    Conflict(Box<Conflicting>),
    /// The output directory's previous root cannot be read: the next version is unknown.
    #[error("the previous root `{}` cannot be read: {message}", path.display())]
    Previous { path: PathBuf, message: String },
    /// No squad of that name in the index; `similar` are names a search finds, never used in
    /// its place.
    #[error("{index} has no squad {name}{}", similar_names(.similar))]
    NoSquad {
        index: String,
        name: String,
        similar: Vec<String>,
    },
    /// An id alone that several namespaces have.
    #[error("{index} has {} squads with the id `{id}`: {}; name one as `<namespace>/<id>`", .names.len(), .names.join(", "))]
    Ambiguous {
        index: String,
        id: String,
        names: Vec<String>,
    },
    #[error("{0}")]
    Usage(String),
}

/// One version of a squad that two sources give with different package digests.
#[derive(Debug)]
pub struct Conflicting {
    pub name: String,
    pub version: String,
    pub first: String,
    pub first_source: String,
    pub second: String,
    pub second_source: String,
}

fn similar_names(similar: &[String]) -> String {
    if similar.is_empty() {
        String::new()
    } else {
        format!(" (similar names: {})", similar.join(", "))
    }
}

impl IndexError {
    pub fn class(&self) -> crate::error::Class {
        use crate::error::Class::{Failed, Refused};
        match self {
            IndexError::Io(..)
            | IndexError::Http(_)
            | IndexError::NotFound { .. }
            | IndexError::Status { .. }
            | IndexError::NotCached { .. }
            | IndexError::NoSquad { .. }
            | IndexError::Ambiguous { .. }
            | IndexError::Usage(_) => Failed,
            IndexError::Share(error) => error.class(),
            IndexError::Cache(error) => error.class(),
            IndexError::Key(error) => error.class(),
            IndexError::Root { .. }
            | IndexError::Signature { .. }
            | IndexError::Expired { .. }
            | IndexError::Rollback { .. }
            | IndexError::Equivocation { .. }
            | IndexError::Digest { .. }
            | IndexError::File { .. }
            | IndexError::Source { .. }
            | IndexError::Conflict(_)
            | IndexError::Previous { .. } => Refused,
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            IndexError::Signature { .. } => Some(
                "the key that signs the index is the one its publisher gives; check --trust or the project's `index_key`"
                    .to_owned(),
            ),
            IndexError::Expired { .. } => Some(
                "the index's publisher rebuilds it before it expires; ask them, or use another index"
                    .to_owned(),
            ),
            IndexError::Rollback { .. } | IndexError::Equivocation { .. } => Some(
                "squad keeps the last root it saw of each index in its cache; a server that goes back is not believed"
                    .to_owned(),
            ),
            IndexError::Digest { .. } => Some(
                "the server (or a cache in front of it) served bytes the signed root does not name"
                    .to_owned(),
            ),
            IndexError::Previous { .. } => Some(
                "restore the output directory's index.json from the last build (clients refuse a root version lower than one they saw)"
                    .to_owned(),
            ),
            IndexError::NoSquad { .. } => Some(
                "`squad search WORDS --index URL` finds squads by their words; a similar name is never taken in the one asked for's place"
                    .to_owned(),
            ),
            IndexError::Share(error) => error.hint(),
            IndexError::Key(error) => error.hint().map(str::to_owned),
            _ => None,
        }
    }
}
