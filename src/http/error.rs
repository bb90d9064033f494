//! Transport errors: what failed, at which (redacted) URL.

use std::time::Duration;

use url::Url;

use super::url_rules::redacted;

#[derive(Debug)]
pub enum ErrorKind {
    /// `http://` to a host that is not loopback, without `--plain-http`.
    PlainHttpRefused,
    UnsupportedScheme(String),
    HostNotFound,
    ConnectionFailed(String),
    Timeout(Duration),
    Tls(String),
    Io(String),
    /// The body is longer than allowed (`declared` when the `Content-Length` said so).
    BodyTooLarge {
        limit: u64,
        declared: Option<u64>,
    },
    BadRedirect(String),
    TooManyRedirects(u8),
    /// The request could not be built (an invalid header value, for instance).
    Request(String),
    /// Writing the received bytes failed.
    Sink(String),
}

/// A request that did not get an answer, or whose answer broke a transport rule.
#[derive(Debug)]
pub struct HttpError {
    /// The URL as it may be shown (see [`redacted`]).
    pub url: String,
    pub kind: ErrorKind,
}

impl HttpError {
    pub fn new(url: &Url, kind: ErrorKind) -> HttpError {
        HttpError {
            url: redacted(url),
            kind,
        }
    }

    pub(super) fn from_io(url: &Url, error: std::io::Error) -> HttpError {
        let kind = match error.kind() {
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
                ErrorKind::Timeout(Duration::ZERO)
            }
            _ => ErrorKind::Io(error.to_string()),
        };
        // ureq reports its own failures inside io errors while reading a body.
        let kind = match error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<ureq::Error>())
        {
            Some(ureq::Error::Timeout(_)) => ErrorKind::Timeout(Duration::ZERO),
            _ => kind,
        };
        HttpError::new(url, kind)
    }

    pub(super) fn from_ureq(url: &Url, error: ureq::Error, elapsed: Duration) -> HttpError {
        let kind = match error {
            ureq::Error::HostNotFound => ErrorKind::HostNotFound,
            ureq::Error::ConnectionFailed => ErrorKind::ConnectionFailed("refused".to_owned()),
            ureq::Error::Timeout(_) => ErrorKind::Timeout(elapsed),
            ureq::Error::Io(error) => match error.kind() {
                std::io::ErrorKind::ConnectionRefused => {
                    ErrorKind::ConnectionFailed("refused".to_owned())
                }
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
                    ErrorKind::Timeout(elapsed)
                }
                _ => ErrorKind::Io(error.to_string()),
            },
            ureq::Error::Tls(message) => ErrorKind::Tls(message.to_owned()),
            ureq::Error::Rustls(error) => ErrorKind::Tls(error.to_string()),
            ureq::Error::BodyExceedsLimit(limit) => ErrorKind::BodyTooLarge {
                limit,
                declared: None,
            },
            other => ErrorKind::Io(other.to_string()),
        };
        HttpError::new(url, kind)
    }

    /// Worth another attempt: the connection dropped or timed out.
    pub fn is_transient(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::ConnectionFailed(_) | ErrorKind::Io(_) | ErrorKind::Timeout(_)
        )
    }
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = &self.url;
        match &self.kind {
            ErrorKind::PlainHttpRefused => write!(
                f,
                "refusing plain HTTP to {url}: only loopback hosts may be reached without TLS unless --plain-http is given"
            ),
            ErrorKind::UnsupportedScheme(scheme) => {
                write!(f, "{url}: the `{scheme}` scheme is not supported")
            }
            ErrorKind::HostNotFound => write!(f, "{url}: host not found"),
            ErrorKind::ConnectionFailed(why) => write!(f, "{url}: connection failed ({why})"),
            ErrorKind::Timeout(_) => write!(f, "{url}: timed out waiting for the server"),
            ErrorKind::Tls(message) => write!(f, "{url}: TLS failed: {message}"),
            ErrorKind::Io(message) => write!(f, "{url}: {message}"),
            ErrorKind::BodyTooLarge {
                limit,
                declared: Some(declared),
            } => write!(
                f,
                "{url}: the server announced {declared} bytes, more than the {limit} allowed; refused before reading"
            ),
            ErrorKind::BodyTooLarge {
                limit,
                declared: None,
            } => write!(
                f,
                "{url}: the body went past the {limit} bytes allowed and was cut off"
            ),
            ErrorKind::BadRedirect(what) => write!(f, "{url}: refused a redirect to {what}"),
            ErrorKind::TooManyRedirects(max) => {
                write!(f, "{url}: more than {max} redirects")
            }
            ErrorKind::Request(message) => write!(f, "{url}: invalid request: {message}"),
            ErrorKind::Sink(message) => write!(f, "{url}: could not store the body: {message}"),
        }
    }
}

impl std::error::Error for HttpError {}
