//! Transport errors: what failed, at which (redacted) URL.

use std::time::Duration;

use url::Url;

use super::url_rules::redacted;

/// What went wrong. A failure below squad (the socket, TLS, the request builder, the disk) is kept
/// as the source, so the `caused by:` lines show the library's own words.
#[derive(Debug, thiserror::Error)]
pub enum ErrorKind {
    /// `http://` to a host that is not loopback, without `--plain-http`.
    #[error(
        "refusing plain HTTP: only loopback hosts may be reached without TLS unless --plain-http is given"
    )]
    PlainHttpRefused,
    #[error("the `{0}` scheme is not supported")]
    UnsupportedScheme(String),
    #[error("host not found")]
    HostNotFound,
    #[error("connection refused")]
    ConnectionRefused,
    #[error("timed out waiting for the server")]
    Timeout(Duration),
    /// The request, or the command's network work, took longer than its deadline in all (the
    /// server kept sending, too slowly).
    #[error("{0}")]
    Deadline(Deadline),
    #[error("TLS failed")]
    Tls(#[source] Box<dyn std::error::Error + Send + Sync>),
    #[error("the connection failed")]
    Io(#[source] std::io::Error),
    /// A failure ureq reports that none of the others name.
    #[error("the request failed")]
    Transport(#[source] ureq::Error),
    /// The body is longer than allowed (`declared` when the `Content-Length` said so).
    #[error("{}", body_too_large(*.limit, *.declared))]
    BodyTooLarge { limit: u64, declared: Option<u64> },
    #[error("refused a redirect to {0}")]
    BadRedirect(String),
    #[error("more than {0} redirects")]
    TooManyRedirects(u8),
    /// The request could not be built (an invalid header value, for instance).
    #[error("invalid request")]
    Request(#[source] ureq::http::Error),
    /// Writing the received bytes failed.
    #[error("could not store the body")]
    Sink(#[source] std::io::Error),
}

/// Which deadline ended a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deadline {
    /// One request's (`SQUAD_HTTP_DEADLINE`).
    Request(Duration),
    /// All of one command's requests' (`SQUAD_NET_DEADLINE`).
    Total(Duration),
}

impl std::fmt::Display for Deadline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Deadline::Request(limit) => write!(
                f,
                "the request took more than the {} s one request may take (SQUAD_HTTP_DEADLINE) and was abandoned",
                limit.as_secs_f64()
            ),
            Deadline::Total(limit) => write!(
                f,
                "the command's network work took more than the {} s it may take (SQUAD_NET_DEADLINE) and was abandoned",
                limit.as_secs_f64()
            ),
        }
    }
}

fn body_too_large(limit: u64, declared: Option<u64>) -> String {
    match declared {
        Some(declared) => format!(
            "the server announced {declared} bytes, more than the {limit} allowed; refused before reading"
        ),
        None => format!("the body went past the {limit} bytes allowed and was cut off"),
    }
}

/// A request that did not get an answer, or whose answer broke a transport rule: shown as
/// `URL: what`, caused by the kind's own source.
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

    pub(super) fn from_io(url: &Url, error: std::io::Error, deadline: Deadline) -> HttpError {
        // ureq reports its own failures inside io errors while reading a body.
        let inner = error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<ureq::Error>());
        let kind = match inner {
            Some(ureq::Error::Timeout(ureq::Timeout::Global)) => ErrorKind::Deadline(deadline),
            Some(ureq::Error::Timeout(_)) => ErrorKind::Timeout(Duration::ZERO),
            _ if matches!(
                error.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) =>
            {
                ErrorKind::Timeout(Duration::ZERO)
            }
            _ => ErrorKind::Io(error),
        };
        HttpError::new(url, kind)
    }

    pub(super) fn from_ureq(
        url: &Url,
        error: ureq::Error,
        elapsed: Duration,
        deadline: Deadline,
    ) -> HttpError {
        let kind = match error {
            ureq::Error::HostNotFound => ErrorKind::HostNotFound,
            ureq::Error::ConnectionFailed => ErrorKind::ConnectionRefused,
            ureq::Error::Timeout(ureq::Timeout::Global) => ErrorKind::Deadline(deadline),
            ureq::Error::Timeout(_) => ErrorKind::Timeout(elapsed),
            ureq::Error::Io(error) => match error.kind() {
                std::io::ErrorKind::ConnectionRefused => ErrorKind::ConnectionRefused,
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock => {
                    ErrorKind::Timeout(elapsed)
                }
                _ => ErrorKind::Io(error),
            },
            ureq::Error::Tls(message) => ErrorKind::Tls(message.into()),
            ureq::Error::Rustls(error) => ErrorKind::Tls(Box::new(error)),
            ureq::Error::BodyExceedsLimit(limit) => ErrorKind::BodyTooLarge {
                limit,
                declared: None,
            },
            other => ErrorKind::Transport(other),
        };
        HttpError::new(url, kind)
    }

    /// Worth another attempt: the connection dropped or timed out.
    pub fn is_transient(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::ConnectionRefused
                | ErrorKind::Io(_)
                | ErrorKind::Transport(_)
                | ErrorKind::Timeout(_)
        )
    }
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.url, self.kind)
    }
}

/// The kind is part of this error's own line; its cause comes next.
impl std::error::Error for HttpError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.kind)
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn the_url_and_what_failed_come_first_and_the_library_s_words_are_the_cause() {
        let url = Url::parse("https://user:secret@registry.example/v2/").unwrap();
        let reset = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by peer");
        let error = HttpError::from_ureq(
            &url,
            ureq::Error::Io(reset),
            Duration::ZERO,
            Deadline::Request(Duration::ZERO),
        );
        assert!(!error.to_string().contains("secret"), "{error}");
        assert!(
            error
                .to_string()
                .ends_with("registry.example/v2/: the connection failed"),
            "{error}"
        );
        assert_eq!(error.source().unwrap().to_string(), "reset by peer");
        assert!(error.is_transient());

        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let error = HttpError::from_ureq(
            &url,
            ureq::Error::Io(refused),
            Duration::ZERO,
            Deadline::Request(Duration::ZERO),
        );
        assert!(matches!(error.kind, ErrorKind::ConnectionRefused));
        assert!(error.source().is_none());

        let disk = std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left");
        let error = HttpError::new(&url, ErrorKind::Sink(disk));
        assert!(error.to_string().ends_with(": could not store the body"));
        assert_eq!(error.source().unwrap().to_string(), "no space left");
        assert!(!error.is_transient());
    }
}
