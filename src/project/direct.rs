//! `squad install SOURCE --scope …`: one source installed directly, outside `squads.jsonc`,
//! through the same road as `add` ([`crate::acquire`]), with the same rules for every source
//! kind; into a project, under that project's signature policy.

use std::path::{Path, PathBuf};

use crate::acquire::{self, AcquireError, Installed, Local, Pins, Request, Source};
use crate::digest::Sha256Digest;
use crate::install::Options;
use crate::install::scope::Scope;
use crate::share::Transfers;

use super::{Project, ProjectError};

/// One source to install, as the command line gives it.
pub struct Direct<'a> {
    pub source: &'a str,
    /// An `https://` archive's SHA-256.
    pub sha256: Option<Sha256Digest>,
    /// `--expect-namespace`, `--expect-id`, `--expect-version`, `--expect-digest`.
    pub exact: crate::install::Exact,
    /// Where, and what an existing installation must be.
    pub options: &'a Options,
    /// `None`: no cache (its directory cannot be told).
    pub cache: Option<&'a crate::cache::Cache>,
    pub client: &'a crate::http::Client,
    pub transfers: &'a (dyn Transfers + Sync),
}

/// Why a direct install did not happen.
#[derive(Debug, thiserror::Error)]
pub enum DirectError {
    /// The source or a flag cannot be used as given.
    #[error("{0}")]
    Usage(String),
    /// The project's files cannot be read, so its signature policy cannot be applied.
    #[error("{0}: its signature policy cannot be applied; nothing was installed")]
    Policy(#[source] ProjectError),
    #[error(transparent)]
    Acquire(AcquireError),
}

impl DirectError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            DirectError::Usage(_) => crate::error::Class::Failed,
            DirectError::Policy(_) => crate::error::Class::Refused,
            DirectError::Acquire(error) => error.class(),
        }
    }
}

/// The signature policy of the project a scope is (the default policy, which asks nothing,
/// for the global scope).
pub fn policy_of(scope: &Scope) -> Result<crate::sign::Policy, ProjectError> {
    let Scope::Project(root) = scope else {
        return Ok(crate::sign::Policy::default());
    };
    let project = Project::new(root.clone(), root.display().to_string());
    Ok(project.read()?.declared.policy)
}

/// Installs one source into `direct.options.scope`.
pub fn install(
    direct: &Direct<'_>,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Installed, DirectError> {
    let source = Source::argument(direct.source).map_err(DirectError::Usage)?;
    match (&source, direct.sha256) {
        (Source::Https(_), None) => {
            return Err(DirectError::Usage(
                "an https:// source needs the SHA-256 of its archive: pass --sha256 <64 hex>"
                    .to_owned(),
            ));
        }
        (Source::Https(_), Some(_)) | (_, None) => {}
        (other, Some(_)) => {
            return Err(DirectError::Usage(format!(
                "--sha256 is for https:// sources; a {} source is checked by its own digests",
                other.kind()
            )));
        }
    }
    let policy = policy_of(&direct.options.scope).map_err(DirectError::Policy)?;
    let pins = Pins {
        exact: direct.exact.clone(),
        archive_sha256: direct.sha256,
        by: "the command line",
        ..Pins::default()
    };
    let local = Local::given(PathBuf::new());
    let temporary = direct.options.locations().temporary;
    let context = acquire::Context {
        cache: direct.cache,
        client: Some(direct.client),
        transfers: direct.transfers,
        policy: &policy,
        temporary: &temporary,
        local: &local,
    };
    let request = Request {
        label: direct.source,
        source: &source,
        version: None,
        newest: false,
        pins: &pins,
    };
    context
        .install(&request, direct.options, on_wait)
        .map_err(DirectError::Acquire)
}
