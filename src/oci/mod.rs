//! OCI registries through the distribution API, synchronously over [`crate::http`]:
//! references ([`reference`](mod@reference)), manifests and descriptors with canonical bytes
//! ([`manifest`]), credentials where container tools keep them ([`credentials`]), the 401
//! challenge flow ([`auth`]) and a repository session ([`client::Repository`]). Nothing here
//! knows about squads; [`crate::share`] lays squad packages out as OCI artifacts.

pub mod auth;
pub mod client;
pub mod credentials;
pub mod manifest;
pub mod reference;

pub use client::{Access, Credentials, FetchedManifest, Repository};
pub use reference::Reference;

/// Why talking to a registry failed. Every variant names the registry; none holds a secret.
#[derive(Debug)]
pub enum OciError {
    /// No answer, or an answer that broke a transport rule.
    Http(crate::http::HttpError),
    Credentials(credentials::CredentialError),
    /// 401: no credentials, or ones the registry refused.
    Unauthorized {
        status: u16,
        registry: String,
        repository: String,
        with_credentials: bool,
    },
    /// 403.
    Denied {
        registry: String,
        repository: String,
    },
    /// Any other unexpected status, with the registry's error code and message.
    Status {
        registry: String,
        what: String,
        status: u16,
        detail: Option<String>,
    },
    /// The registry broke the protocol or served bytes that are not what they claim.
    Protocol {
        registry: String,
        message: String,
    },
}

impl OciError {
    /// The registry could not be used at all, or what it served was refused.
    pub fn class(&self) -> crate::error::Class {
        match self {
            OciError::Protocol { .. } => crate::error::Class::Refused,
            OciError::Http(_)
            | OciError::Credentials(_)
            | OciError::Unauthorized { .. }
            | OciError::Denied { .. }
            | OciError::Status { .. } => crate::error::Class::Failed,
        }
    }

    /// What to do about it, when squad can tell.
    pub fn hint(&self) -> Option<String> {
        match self {
            OciError::Unauthorized {
                registry,
                with_credentials: false,
                ..
            } => Some(format!(
                "run `squad login {registry} -u USER --password-stdin` (in CI: SQUAD_REGISTRY_HOST and SQUAD_REGISTRY_TOKEN)"
            )),
            OciError::Unauthorized { registry, .. } => Some(format!(
                "the credentials were refused; run `squad login {registry} -u USER --password-stdin` again"
            )),
            OciError::Denied { .. } => {
                Some("the credentials lack access to this repository".to_owned())
            }
            OciError::Http(error)
                if matches!(error.kind, crate::http::ErrorKind::PlainHttpRefused) =>
            {
                Some("pass --plain-http if this registry really has no TLS".to_owned())
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for OciError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OciError::Http(error) => error.fmt(f),
            OciError::Credentials(error) => error.fmt(f),
            OciError::Unauthorized {
                status,
                registry,
                repository,
                ..
            } => {
                write!(f, "{status} from {registry} for {repository}")?;
                match self.hint() {
                    Some(hint) => write!(f, ": {hint}"),
                    None => Ok(()),
                }
            }
            OciError::Denied {
                registry,
                repository,
            } => write!(f, "403 from {registry} for {repository}: access denied"),
            OciError::Status {
                registry,
                what,
                status,
                detail,
            } => {
                write!(f, "{registry} answered {status} for {what}")?;
                match detail {
                    // The registry's own words: shown neutralised, never as they came.
                    Some(detail) => write!(
                        f,
                        " ({})",
                        crate::text::remote(detail, crate::text::REMOTE_TEXT_CHARS)
                    ),
                    None => Ok(()),
                }
            }
            // Messages quote what the registry served (media types, config fields, digests).
            OciError::Protocol { registry, message } => write!(
                f,
                "{registry}: {}",
                crate::text::remote(message, 4 * crate::text::REMOTE_TEXT_CHARS)
            ),
        }
    }
}

// By hand rather than derived: an unauthorized answer's message carries its hint.
impl std::error::Error for OciError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        // The transport's and the credentials' messages stand in for this one.
        match self {
            OciError::Http(error) => error.source(),
            OciError::Credentials(error) => error.source(),
            _ => None,
        }
    }
}
