//! How squads travel. Through OCI registries: `publish` (validate, pack, push), `fetch`
//! (resolve, verify and download the archive that `install` and `pull` use) and `versions`.
//! As one exact archive over HTTPS ([`exact`]), named by an `https://` source or the OpenCorvus
//! website's install link ([`link`]). The invariants are the reference's: `(namespace, id,
//! version)` is bound to one package digest forever (a version tag is never moved to another
//! package), the archive's SHA-256 is a transport check, and the package digest is re-derived
//! after unpacking.

pub mod artifact;
pub mod exact;
mod fetch;
pub mod link;
mod publish;
pub mod signature;
pub mod tree;

use std::path::PathBuf;

use crate::oci::{Access, Credentials, OciError, Reference, Repository};
use crate::pack::PackError;
use crate::package::Report;
use crate::version::Version;

pub use artifact::{About, Artifact, SquadConfig};
pub use fetch::*;
pub use publish::*;

/// Told about each transfer, for a progress display.
pub trait Transfers {
    fn begin(&self, label: &str, total: u64);
    fn advance(&self, done: u64);
    fn end(&self);
}

/// No progress display.
pub struct Silent;

impl Transfers for Silent {
    fn begin(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn end(&self) {}
}

/// Why sharing failed. Every variant names the package, the reference or the registry.
#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    /// A reference that cannot be used for this command.
    #[error("{0}")]
    Reference(String),
    #[error("package `{}` is invalid; nothing was published", .0.root.display())]
    Invalid(Box<Report>),
    #[error(transparent)]
    Pack(PackError),
    #[error("cannot read or write `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
    /// The package folder could not be read once into a private copy.
    #[error(transparent)]
    Snapshot(crate::snapshot::SnapshotError),
    #[error(transparent)]
    Oci(OciError),
    #[error("{0} was not found")]
    NotFound(String),
    /// The registry has no such repository; `close` is the one of its catalog a typo most
    /// likely meant, when the registry lists its repositories.
    #[error("{repository} does not exist")]
    NoRepository {
        repository: String,
        close: Option<String>,
    },
    /// The registry holds something that is not an acceptable squad package.
    /// `message` quotes what the registry served; it is shown neutralised.
    #[error("{reference} was refused: {}", crate::text::remote(.message, 4 * crate::text::REMOTE_TEXT_CHARS))]
    Refused { reference: String, message: String },
    /// The version is published with another package digest.
    #[error(
        "{reference} is already published with package digest {published}; this package's digest is {local}"
    )]
    Conflict {
        reference: String,
        published: String,
        local: String,
    },
}

impl ShareError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            ShareError::Reference(_)
            | ShareError::Io(..)
            | ShareError::NotFound(_)
            | ShareError::NoRepository { .. } => crate::error::Class::Failed,
            ShareError::Oci(error) => error.class(),
            ShareError::Pack(error) => error.class(),
            ShareError::Snapshot(error) => error.class(),
            ShareError::Invalid(_) | ShareError::Refused { .. } | ShareError::Conflict { .. } => {
                crate::error::Class::Refused
            }
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            ShareError::Oci(error) => error.hint(),
            ShareError::Conflict { .. } => Some(
                "a published version is immutable: run `squad version bump` and publish again"
                    .to_owned(),
            ),
            ShareError::Invalid(_) => Some("run `squad validate` for details".to_owned()),
            ShareError::NotFound(_) => {
                Some("`squad versions oci://…/<namespace>/<id>` lists what is published".to_owned())
            }
            ShareError::NoRepository {
                close: Some(close), ..
            } => Some(format!("did you mean {close}?")),
            ShareError::NoRepository { .. } => Some(
                "check the spelling: squads are at oci://HOST/BASE/<namespace>/<id>".to_owned(),
            ),
            _ => None,
        }
    }
}

impl From<OciError> for ShareError {
    fn from(error: OciError) -> ShareError {
        ShareError::Oci(error)
    }
}

/// The repository's tags that are squad versions, newest first.
fn version_tags(session: &mut Repository<'_>) -> Result<Vec<Version>, ShareError> {
    let Some(tags) = session.tags_of_repository()? else {
        return Err(no_repository(session));
    };
    Ok(versions_of(&tags))
}

/// The tags that are squad versions, newest first.
fn versions_of(tags: &[String]) -> Vec<Version> {
    let mut versions: Vec<Version> = tags
        .iter()
        .filter_map(|tag| Version::parse(tag).ok())
        .collect();
    versions.sort_by(|a, b| b.cmp(a));
    versions.dedup();
    versions
}

/// The session's repository does not exist: said with the registry's nearest repository, when
/// its catalog answers.
fn no_repository(session: &mut Repository<'_>) -> ShareError {
    let reference = session.reference.repository_only();
    let wanted = reference.repository.clone();
    let close = session.catalog().and_then(|names| {
        crate::text::closest(&wanted, names.iter().map(String::as_str)).map(|name| {
            Reference {
                repository: name.to_owned(),
                ..reference.clone()
            }
            .to_string()
        })
    });
    ShareError::NoRepository {
        repository: reference.to_string(),
        close: close.map(|close| crate::text::shown(&close)),
    }
}

/// One published version.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Listed {
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifest_digest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package_digest: Option<String>,
    /// Why the tag is not a squad package, when digests were asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// The versions published at `reference` (`oci://HOST/BASE/<namespace>/<id>`), newest first;
/// with `digests`, each one's manifest and package digest.
pub fn versions(
    client: &crate::http::Client,
    reference: &Reference,
    digests: bool,
) -> Result<Vec<Listed>, ShareError> {
    if reference.tag.is_some() || reference.digest.is_some() {
        return Err(ShareError::Reference(format!(
            "`{reference}` names a tag or digest; versions takes the repository (oci://HOST/BASE/<namespace>/<id>)"
        )));
    }
    let mut session = Repository::new(client, reference, Access::Pull, Credentials::Configured);
    let mut listed = Vec::new();
    for version in version_tags(&mut session)? {
        let version = version.to_string();
        let mut entry = Listed {
            version: version.clone(),
            manifest_digest: None,
            package_digest: None,
            problem: None,
        };
        if digests {
            match resolve(&mut session, &reference.with_tag(&version)) {
                Ok(resolved) => {
                    entry.manifest_digest = Some(resolved.manifest_digest);
                    entry.package_digest = Some(resolved.config.package_digest);
                }
                Err(ShareError::Refused { message, .. }) => entry.problem = Some(message),
                Err(error) => return Err(error),
            }
        }
        listed.push(entry);
    }
    Ok(listed)
}

/// What a registry holds of one squad: its newest version, and the version asked for (or the
/// newest) resolved and checked.
#[derive(Debug, Clone, Default)]
pub struct Lookup {
    /// The newest version tag, when there is any.
    pub newest: Option<String>,
    /// The version asked for (without one, the newest), when it is published.
    pub resolved: Option<Resolved>,
}

/// Looks up the squad `<namespace>/<id>` under `base`: its newest version, and `version` (or
/// the newest) resolved to its manifest and config. A repository that does not exist holds
/// nothing, which is no error.
pub fn lookup(
    client: &crate::http::Client,
    base: &Reference,
    namespace: &str,
    id: &str,
    version: Option<&str>,
) -> Result<Lookup, ShareError> {
    let repository = base.join(&[namespace, id]);
    let mut session = Repository::new(client, &repository, Access::Pull, Credentials::Configured);
    // A repository that does not exist holds nothing yet: no error here.
    let Some(tags) = session.tags_of_repository()? else {
        return Ok(Lookup::default());
    };
    let tags = versions_of(&tags);
    let newest = tags.first().map(Version::to_string);
    let wanted = match version {
        Some(version) => tags
            .iter()
            .any(|tag| tag.to_string() == version)
            .then(|| version.to_owned()),
        None => newest.clone(),
    };
    let resolved = match wanted {
        Some(tag) => Some(resolve(&mut session, &repository.with_tag(&tag))?),
        None => None,
    };
    Ok(Lookup { newest, resolved })
}
