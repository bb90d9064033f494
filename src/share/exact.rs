//! Downloading one exact archive over HTTPS. For an install link squad follows the reference
//! client's rules (registry-notes §1.5): no redirect is followed, the answer must be `200` with
//! `Content-Type: application/zip` and exactly the link's `Content-Length`. An `https://` source
//! pinned by its SHA-256 may be redirected (release assets and object stores are), within the
//! transport rules (never to plain HTTP, credentials kept to the first host), and may be served
//! with any archive-like type. Either way the body is hashed as it streams, cut off past the
//! expected size (or the 18 MiB import limit), and its SHA-256 compared before anything opens
//! the archive.

use std::io::Write;

use sha2::Digest as _;

use super::Transfers;
use crate::digest::Sha256Digest;
use crate::http::{Client, HttpError, Method, Redirects, Request, Url, redacted};

/// What the archive must be.
#[derive(Debug, Clone)]
pub struct Expected {
    pub sha256: Sha256Digest,
    /// Its exact size, when known (an install link, or a lock entry).
    pub bytes: Option<u64>,
    pub rules: Rules,
}

/// Which download rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rules {
    /// An install link: the reference client's rules, exactly.
    InstallLink,
    /// An `https://` source pinned by its SHA-256: redirects followed, any type but a web page.
    Pinned,
}

/// Redirects an `https://` source may take before the archive.
const PINNED_REDIRECTS: u8 = 5;

#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    /// The server could not be reached, or answered with an error status.
    #[error(transparent)]
    Http(HttpError),
    #[error("{url} answered {status}")]
    Status { url: String, status: u16 },
    /// The server answered, with something that is not the archive expected.
    /// `message` may quote what the server sent (a content type); it is shown neutralised.
    #[error("{url}: {}", crate::text::remote(.message, 4 * crate::text::REMOTE_TEXT_CHARS))]
    Refused { url: String, message: String },
}

impl DownloadError {
    /// A download that could not happen at all, or bytes refused (a body beyond its limit
    /// included).
    pub fn class(&self) -> crate::error::Class {
        match self {
            DownloadError::Http(error)
                if matches!(error.kind, crate::http::ErrorKind::BodyTooLarge { .. }) =>
            {
                crate::error::Class::Refused
            }
            DownloadError::Http(_) | DownloadError::Status { .. } => crate::error::Class::Failed,
            DownloadError::Refused { .. } => crate::error::Class::Refused,
        }
    }
}

struct Hashing<'a> {
    bytes: &'a mut Vec<u8>,
    hasher: sha2::Sha256,
}

impl Write for Hashing<'_> {
    fn write(&mut self, buffer: &[u8]) -> std::io::Result<usize> {
        self.hasher.update(buffer);
        self.bytes.extend_from_slice(buffer);
        Ok(buffer.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Downloads the archive at `url` and checks it is exactly `expected`. `label` names it in the
/// progress display.
pub fn download(
    client: &Client,
    url: &Url,
    expected: &Expected,
    label: &str,
    transfers: &dyn Transfers,
) -> Result<Vec<u8>, DownloadError> {
    let shown = redacted(url);
    let refused = |message: String| DownloadError::Refused {
        url: shown.clone(),
        message,
    };
    super::link::check_archive_url(url).map_err(&refused)?;
    let redirects = match expected.rules {
        Rules::InstallLink => Redirects::Refuse,
        Rules::Pinned => Redirects::Follow(PINNED_REDIRECTS),
    };
    let response = client
        .send(&Request::new(Method::Get, url.clone()).with_redirects(redirects))
        .map_err(DownloadError::Http)?;
    match response.status {
        200 => {}
        301 | 302 | 303 | 307 | 308 => {
            return Err(refused(format!(
                "answered {} (a redirect{}); an archive source must serve the archive itself",
                response.status,
                response
                    .header("location")
                    .and_then(|location| url.join(location).ok())
                    .map(|location| format!(" to {}", redacted(&location)))
                    .unwrap_or_default()
            )));
        }
        status => return Err(DownloadError::Status { url: shown, status }),
    }
    if response.url != *url && expected.rules == Rules::InstallLink {
        return Err(refused(format!(
            "the answer came from {}, not the URL asked",
            redacted(&response.url)
        )));
    }
    let content_type = response
        .header("content-type")
        .map(|value| {
            value
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    match expected.rules {
        Rules::InstallLink if content_type != "application/zip" => {
            return Err(refused(format!(
                "the Content-Type is `{content_type}`, not `application/zip`"
            )));
        }
        // A login page or an error page answered with 200: say so rather than "wrong SHA-256".
        Rules::Pinned if content_type == "text/html" => {
            return Err(refused(
                "the answer is a web page (`text/html`), not an archive; is the URL the archive's own?"
                    .to_owned(),
            ));
        }
        _ => {}
    }
    let import_limit = crate::archive::reader::Limits::REFERENCE.archive_bytes;
    let limit = match (expected.bytes, response.content_length()) {
        (Some(bytes), Some(declared)) if declared != bytes => {
            return Err(refused(format!(
                "the Content-Length is {declared} bytes, but the archive is {bytes} bytes"
            )));
        }
        // The link's rule; a pinned source's size is checked once the body is read.
        (Some(_), None) if expected.rules == Rules::InstallLink => {
            return Err(refused(
                "the answer has no Content-Length; the exact size is required".to_owned(),
            ));
        }
        (Some(bytes), _) => bytes,
        (None, _) => import_limit,
    };
    if limit > import_limit {
        return Err(refused(format!(
            "the archive is {limit} bytes, more than the import limit of {import_limit}"
        )));
    }
    let mut bytes = Vec::with_capacity(limit.min(1 << 20) as usize);
    let mut sink = Hashing {
        bytes: &mut bytes,
        hasher: sha2::Sha256::new(),
    };
    transfers.begin(
        &format!("Downloading {label}"),
        response.content_length().unwrap_or(0),
    );
    let copied = response.copy_to(&mut sink, limit, &mut |done| transfers.advance(done));
    transfers.end();
    let received = copied.map_err(|error| match error.kind {
        crate::http::ErrorKind::BodyTooLarge { .. } => refused(format!(
            "the body went past the {limit} bytes expected and was cut off"
        )),
        _ => DownloadError::Http(error),
    })?;
    let actual = Sha256Digest(sink.hasher.finalize().into());
    if let Some(bytes) = expected.bytes.filter(|bytes| *bytes != received) {
        return Err(refused(format!(
            "received {received} bytes, but the archive is {bytes} bytes"
        )));
    }
    if actual != expected.sha256 {
        return Err(refused(format!(
            "the archive's SHA-256 is {actual}, expected {}: refusing bytes that are not the ones declared",
            expected.sha256
        )));
    }
    Ok(bytes)
}

/// The signature published beside an archive URL: `<url>.minisig`, as `minisign -S` names the
/// file it writes beside the archive (without the archive's query, which signs or names the
/// archive itself). `None` when the server has none: 404, 410, or the 403 object stores answer
/// for a missing object.
pub fn signature_beside(client: &Client, url: &Url) -> Result<Option<String>, DownloadError> {
    let mut beside = url.clone();
    beside.set_path(&format!("{}.minisig", url.path()));
    beside.set_query(None);
    let shown = redacted(&beside);
    let response = client
        .send(
            &Request::new(Method::Get, beside.clone())
                .with_redirects(Redirects::Follow(PINNED_REDIRECTS)),
        )
        .map_err(DownloadError::Http)?;
    match response.status {
        200 => {}
        403 | 404 | 410 => return Ok(None),
        status => return Err(DownloadError::Status { url: shown, status }),
    }
    let bytes = response
        .read_to_vec(crate::sign::minisig::MAX_FILE_BYTES as u64)
        .map_err(|error| match error.kind {
            crate::http::ErrorKind::BodyTooLarge { .. } => DownloadError::Refused {
                url: shown.clone(),
                message: "it is larger than a minisign signature".to_owned(),
            },
            _ => DownloadError::Http(error),
        })?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}
