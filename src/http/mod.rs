//! A small synchronous HTTP client for everything squad fetches or sends over the network:
//! OCI registries today, `https://` archive sources and signature referrers next. It wraps
//! `ureq` (rustls with the system's trust roots) and adds the rules squad needs on every
//! request, in one place:
//!
//! - transport: `https://` always; plain `http://` only to loopback hosts or when the caller
//!   allows it explicitly ([`Transport::plain_http`]);
//! - timeouts on connect and on every read, so a server that stops sending cannot hang squad;
//!   a deadline for each whole request, its body included ([`Transport::request_deadline`]),
//!   so a server that sends one byte a second cannot either; and a deadline for all the
//!   network work of one command ([`Transport::total_deadline`], counted from the client's
//!   creation), so a command that holds a lock (a project's sync) always ends;
//! - bounded retries with backoff on 429 and 5xx answers and on dropped connections, honouring
//!   `Retry-After` (capped);
//! - redirects per request ([`Redirects`]): never followed unless asked, at most a few hops,
//!   never from `https` to plain `http`, and the `Authorization` header is dropped as soon as a
//!   hop leaves the original origin, scheme, host and port (blob downloads are often
//!   redirected to object storage);
//! - bounded bodies ([`Response::read_to_vec`], [`Response::copy_to`]): a `Content-Length`
//!   above the allowed size is refused before reading, and a longer stream is cut off;
//! - secrets ([`Secret`]) never appear in `Debug`, `Display` or errors.
//!
//! Nothing here runs unless a command goes to the network: building a [`Client`] is cheap and
//! TLS is set up on the first `https://` connection, so offline commands pay nothing.

mod error;
mod url_rules;

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use error::{Deadline, ErrorKind, HttpError};
pub use url::Url;
pub use url_rules::{authority, is_loopback, redacted};

/// A credential or token. Its text is reachable only through [`Secret::expose`], so it cannot
/// end up in a log line or an error message by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(text: impl Into<String>) -> Secret {
        Secret(text.into())
    }

    /// The secret text, for the one place that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// How requests travel: shared by every request of one [`Client`].
#[derive(Debug, Clone)]
pub struct Transport {
    /// Allow plain `http://` to any host (`--plain-http`); loopback hosts always may.
    pub plain_http: bool,
    pub connect_timeout: Duration,
    /// Longest wait for any single read (response headers or the next body bytes).
    pub read_timeout: Duration,
    /// Longest time one request may take, from connecting to the body's last byte, each of
    /// its redirects and retries counted alone.
    pub request_deadline: Duration,
    /// Longest time all the requests of one [`Client`] may take together, from its creation:
    /// retries, redirects and sleeps included.
    pub total_deadline: Duration,
    /// Retries after the first attempt, for 429, 5xx and dropped connections.
    pub retries: u32,
    /// First backoff; doubled at each retry.
    pub backoff: Duration,
    /// Longest `Retry-After` honoured; a server asking for more gets this.
    pub max_retry_after: Duration,
}

impl Default for Transport {
    fn default() -> Transport {
        Transport {
            plain_http: false,
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            // An 18 MiB archive at 128 KiB/s, with room to spare.
            request_deadline: Duration::from_secs(300),
            total_deadline: Duration::from_secs(1800),
            retries: 3,
            backoff: Duration::from_millis(250),
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl Transport {
    /// The defaults, with `SQUAD_HTTP_TIMEOUT` (seconds, for connect and read),
    /// `SQUAD_HTTP_DEADLINE` (seconds, one whole request), `SQUAD_NET_DEADLINE` (seconds, all of
    /// a command's requests) and `SQUAD_NET_RETRY` (count) applied when set.
    pub fn from_env() -> Transport {
        let mut transport = Transport::default();
        if let Some(seconds) = crate::env::http_timeout() {
            transport.connect_timeout = seconds;
            transport.read_timeout = seconds;
        }
        if let Some(seconds) = crate::env::http_deadline() {
            transport.request_deadline = seconds;
        }
        if let Some(seconds) = crate::env::net_deadline() {
            transport.total_deadline = seconds;
        }
        if let Some(retries) = crate::env::net_retry() {
            transport.retries = retries;
        }
        transport
    }
}

/// What a request does with a redirect answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redirects {
    /// A 3xx answer is returned to the caller as is.
    Refuse,
    /// GET and HEAD follow up to this many hops; `Authorization` goes no further than the
    /// original origin (scheme, host and port).
    Follow(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// One request. Build it with [`Request::new`] and the `with_*` methods.
#[derive(Clone)]
pub struct Request<'a> {
    pub method: Method,
    pub url: Url,
    pub headers: Vec<(&'static str, String)>,
    /// Sent as `Authorization` to the request's host only.
    pub authorization: Option<&'a Secret>,
    pub body: &'a [u8],
    /// Told how many body bytes have been sent so far.
    pub upload_progress: Option<&'a dyn Fn(u64)>,
    pub redirects: Redirects,
}

impl std::fmt::Debug for Request<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Request")
            .field("method", &self.method)
            .field("url", &redacted(&self.url))
            .field("headers", &self.headers)
            .field("authorization", &self.authorization)
            .field("body_bytes", &self.body.len())
            .field("redirects", &self.redirects)
            .finish()
    }
}

impl<'a> Request<'a> {
    pub fn new(method: Method, url: Url) -> Request<'a> {
        Request {
            method,
            url,
            headers: Vec::new(),
            authorization: None,
            body: &[],
            upload_progress: None,
            redirects: Redirects::Refuse,
        }
    }

    pub fn with_upload_progress(mut self, progress: &'a dyn Fn(u64)) -> Request<'a> {
        self.upload_progress = Some(progress);
        self
    }

    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Request<'a> {
        self.headers.push((name, value.into()));
        self
    }

    pub fn with_authorization(mut self, authorization: Option<&'a Secret>) -> Request<'a> {
        self.authorization = authorization;
        self
    }

    pub fn with_body(mut self, body: &'a [u8]) -> Request<'a> {
        self.body = body;
        self
    }

    pub fn with_redirects(mut self, redirects: Redirects) -> Request<'a> {
        self.redirects = redirects;
        self
    }
}

/// A response whose body has not been read yet.
pub struct Response {
    pub status: u16,
    /// The URL that answered (after redirects).
    pub url: Url,
    headers: ureq::http::HeaderMap,
    body: ureq::Body,
    /// The deadline its body is read under.
    deadline: Deadline,
}

impl std::fmt::Debug for Response {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Response")
            .field("status", &self.status)
            .field("url", &redacted(&self.url))
            .finish_non_exhaustive()
    }
}

impl Response {
    /// A header's value, when present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// Every value of a header (e.g. several `Link` or `WWW-Authenticate` lines).
    pub fn headers(&self, name: &str) -> Vec<&str> {
        self.headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .collect()
    }

    /// The declared `Content-Length`, if any and valid.
    pub fn content_length(&self) -> Option<u64> {
        self.header("content-length")
            .and_then(|value| value.trim().parse().ok())
    }

    /// The whole body, at most `limit` bytes (see [`Response::copy_to`]).
    pub fn read_to_vec(self, limit: u64) -> Result<Vec<u8>, HttpError> {
        let mut bytes = Vec::new();
        self.copy_to(&mut bytes, limit, &mut |_| {})?;
        Ok(bytes)
    }

    /// Streams the body into `sink`, refusing a `Content-Length` above `limit` before reading
    /// and cutting the stream off as soon as it goes past `limit`. `progress` receives the
    /// running byte count. Returns the number of bytes written.
    pub fn copy_to(
        self,
        sink: &mut dyn Write,
        limit: u64,
        progress: &mut dyn FnMut(u64),
    ) -> Result<u64, HttpError> {
        let url = self.url.clone();
        let self_deadline = self.deadline;
        if let Some(declared) = self.content_length() {
            if declared > limit {
                return Err(HttpError::new(
                    &url,
                    ErrorKind::BodyTooLarge {
                        limit,
                        declared: Some(declared),
                    },
                ));
            }
        }
        // ureq's own limit is lifted: ours is applied below, with a clear error.
        let mut reader = self.body.into_with_config().limit(u64::MAX).reader();
        let mut buffer = vec![0u8; 64 * 1024];
        let mut total: u64 = 0;
        loop {
            let read = match reader.read(&mut buffer) {
                Ok(0) => break,
                Ok(read) => read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(HttpError::from_io(&url, error, self_deadline)),
            };
            total += read as u64;
            if total > limit {
                return Err(HttpError::new(
                    &url,
                    ErrorKind::BodyTooLarge {
                        limit,
                        declared: None,
                    },
                ));
            }
            sink.write_all(&buffer[..read])
                .map_err(|error| HttpError::new(&url, ErrorKind::Sink(error)))?;
            progress(total);
        }
        Ok(total)
    }
}

/// A client: one connection pool and one transport policy. Cheap to build.
pub struct Client {
    agent: ureq::Agent,
    transport: Transport,
    /// When the client was made: [`Transport::total_deadline`] counts from here.
    created: Instant,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("transport", &self.transport)
            .finish_non_exhaustive()
    }
}

/// Statuses worth another attempt.
fn is_transient(status: u16) -> bool {
    status == 429 || status == 408 || (500..600).contains(&status) && status != 501
}

impl Client {
    pub fn new(transport: Transport) -> Client {
        use ureq::tls::{RootCerts, TlsConfig, TlsProvider};
        let tls = TlsConfig::builder()
            .provider(TlsProvider::Rustls)
            .root_certs(RootCerts::PlatformVerifier)
            .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .build();
        let agent = ureq::Agent::config_builder()
            .tls_config(tls)
            .http_status_as_error(false)
            .max_redirects(0)
            .max_redirects_will_error(false)
            .timeout_connect(Some(transport.connect_timeout))
            .timeout_per_read(Some(transport.read_timeout))
            .timeout_per_write(Some(transport.read_timeout))
            .user_agent(concat!("squad/", env!("CARGO_PKG_VERSION")))
            // Bodies are digested byte for byte: no transparent decompression.
            .accept_encoding(ureq::config::AutoHeaderValue::None)
            .build()
            .new_agent();
        Client {
            agent,
            transport,
            created: Instant::now(),
        }
    }

    /// How long the next request may take: its own deadline, or what is left of the client's.
    fn allowance(&self, url: &Url) -> Result<(Duration, Deadline), HttpError> {
        let left = self.time_left();
        if left.is_zero() {
            return Err(HttpError::new(
                url,
                ErrorKind::Deadline(Deadline::Total(self.transport.total_deadline)),
            ));
        }
        Ok(if left < self.transport.request_deadline {
            (left, Deadline::Total(self.transport.total_deadline))
        } else {
            let deadline = self.transport.request_deadline;
            (deadline, Deadline::Request(deadline))
        })
    }

    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// What is left of [`Transport::total_deadline`]: how long the rest of the command's
    /// network work may take, whatever it waits for on the way (a credential helper too).
    pub fn time_left(&self) -> Duration {
        self.transport
            .total_deadline
            .saturating_sub(self.created.elapsed())
    }

    /// Whether `url` may be used: `https`, or `http` to a loopback host or with
    /// [`Transport::plain_http`].
    pub fn check_url(&self, url: &Url) -> Result<(), HttpError> {
        match url.scheme() {
            "https" => Ok(()),
            "http" if self.transport.plain_http || is_loopback(url) => Ok(()),
            "http" => Err(HttpError::new(url, ErrorKind::PlainHttpRefused)),
            other => Err(HttpError::new(
                url,
                ErrorKind::UnsupportedScheme(other.to_owned()),
            )),
        }
    }

    /// Sends a request, retrying transient failures and following redirects as it says.
    pub fn send(&self, request: &Request<'_>) -> Result<Response, HttpError> {
        let mut url = request.url.clone();
        let origin = authority(&url);
        let mut method = request.method;
        let mut body = request.body;
        let mut hops = 0u8;
        loop {
            self.check_url(&url)?;
            // Authorization belongs to the original origin; a hop elsewhere goes without it.
            let authorization = request.authorization.filter(|_| authority(&url) == origin);
            let response = self.send_with_retries(method, &url, request, authorization, body)?;
            let redirect = matches!(response.status, 301 | 302 | 303 | 307 | 308);
            let Redirects::Follow(max) = request.redirects else {
                return Ok(response);
            };
            if !redirect || !matches!(request.method, Method::Get | Method::Head) {
                return Ok(response);
            }
            let Some(location) = response.header("location") else {
                return Ok(response);
            };
            let next = url.join(location).map_err(|_| {
                HttpError::new(
                    &url,
                    ErrorKind::BadRedirect("an invalid Location".to_owned()),
                )
            })?;
            hops += 1;
            if hops > max {
                return Err(HttpError::new(&url, ErrorKind::TooManyRedirects(max)));
            }
            if url.scheme() == "https" && next.scheme() != "https" {
                return Err(HttpError::new(
                    &url,
                    ErrorKind::BadRedirect(format!("a downgrade to {}", redacted(&next))),
                ));
            }
            if response.status == 303 {
                method = Method::Get;
                body = &[];
            }
            url = next;
        }
    }

    fn send_with_retries(
        &self,
        method: Method,
        url: &Url,
        request: &Request<'_>,
        authorization: Option<&Secret>,
        body: &[u8],
    ) -> Result<Response, HttpError> {
        let mut attempt = 0u32;
        loop {
            let result = self.send_once(method, url, request, authorization, body);
            let wait = match &result {
                Ok(response) if is_transient(response.status) => {
                    retry_after(response.header("retry-after"))
                        .map(|wait| wait.min(self.transport.max_retry_after))
                }
                Err(error) if error.is_transient() => None,
                _ => return result,
            };
            if attempt >= self.transport.retries {
                return result;
            }
            let backoff = self.transport.backoff * 2u32.saturating_pow(attempt);
            std::thread::sleep(wait.unwrap_or(backoff).min(self.time_left()));
            attempt += 1;
        }
    }

    fn send_once(
        &self,
        method: Method,
        url: &Url,
        request: &Request<'_>,
        authorization: Option<&Secret>,
        body: &[u8],
    ) -> Result<Response, HttpError> {
        let mut builder = ureq::http::Request::builder()
            .method(method.as_str())
            .uri(url.as_str());
        for (name, value) in &request.headers {
            builder = builder.header(*name, value.as_str());
        }
        if let Some(secret) = authorization {
            builder = builder.header("authorization", secret.expose());
        }
        let started = Instant::now();
        let (allowed, deadline) = self.allowance(url)?;
        let invalid = |error: ureq::http::Error| HttpError::new(url, ErrorKind::Request(error));
        let result = match request.upload_progress.filter(|_| !body.is_empty()) {
            // A counted reader; the explicit length keeps the upload length-delimited.
            Some(progress) => {
                let mut reader = ProgressReader {
                    remaining: body,
                    sent: 0,
                    progress,
                };
                let http_request = builder
                    .header("content-length", body.len().to_string())
                    .body(ureq::SendBody::from_reader(&mut reader))
                    .map_err(invalid)?;
                run_within(&self.agent, http_request, allowed)
            }
            None => run_within(&self.agent, builder.body(body).map_err(invalid)?, allowed),
        };
        let response = result
            .map_err(|error| HttpError::from_ureq(url, error, started.elapsed(), deadline))?;
        let (parts, body) = response.into_parts();
        Ok(Response {
            status: parts.status.as_u16(),
            url: url.clone(),
            headers: parts.headers,
            body,
            deadline,
        })
    }
}

/// Runs a request that must end, its body read, within `allowed`: a body that trickles in
/// ends there.
fn run_within<S: ureq::AsSendBody>(
    agent: &ureq::Agent,
    request: ureq::http::Request<S>,
    allowed: Duration,
) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
    use ureq::RequestExt as _;
    request
        .with_agent(agent)
        .configure()
        .timeout_global(Some(allowed))
        .run()
}

struct ProgressReader<'a> {
    remaining: &'a [u8],
    sent: u64,
    progress: &'a dyn Fn(u64),
}

impl Read for ProgressReader<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.remaining.read(buffer)?;
        self.sent += read as u64;
        (self.progress)(self.sent);
        Ok(read)
    }
}

/// `Retry-After` as a delay: seconds, or an HTTP date in the future.
fn retry_after(value: Option<&str>) -> Option<Duration> {
    let value = value?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let when = httpdate_seconds(value)?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_secs();
    Some(Duration::from_secs(when.saturating_sub(now)))
}

/// Seconds since the epoch of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only date
/// form HTTP/1.1 servers send.
fn httpdate_seconds(text: &str) -> Option<u64> {
    let mut parts = text.split_whitespace();
    let (_, day, month, year, time, zone) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if zone != "GMT" || parts.next().is_some() {
        return None;
    }
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|name| *name == month)? as u32
        + 1;
    let (day, year): (u32, i64) = (day.parse().ok()?, year.parse().ok()?);
    let mut clock = time.split(':').map(|part| part.parse::<u64>().ok());
    let (hours, minutes, seconds) = (clock.next()??, clock.next()??, clock.next()??);
    let year = u32::try_from(year).ok()?;
    let days = crate::version::Date { year, month, day }.days_since_epoch()?;
    u64::try_from(days)
        .ok()
        .map(|days| days * 86_400 + hours * 3_600 + minutes * 60 + seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_do_not_print() {
        let secret = Secret::new("hunter2");
        assert_eq!(format!("{secret:?}"), "Secret(<redacted>)");
        let request = Request::new(Method::Get, Url::parse("https://r.example/v2/").unwrap())
            .with_authorization(Some(&secret));
        assert!(!format!("{request:?}").contains("hunter2"));
    }

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        assert_eq!(retry_after(Some(" 3 ")), Some(Duration::from_secs(3)));
        assert_eq!(retry_after(Some("soon")), None);
        assert_eq!(retry_after(None), None);
        assert_eq!(
            retry_after(Some("Sun, 06 Nov 1994 08:49:37 GMT")),
            Some(Duration::ZERO)
        );
        assert_eq!(
            httpdate_seconds("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(784_111_777)
        );
    }

    #[test]
    fn transient_statuses() {
        for status in [429, 500, 502, 503, 504, 408] {
            assert!(is_transient(status), "{status}");
        }
        for status in [200, 201, 301, 400, 401, 403, 404, 501] {
            assert!(!is_transient(status), "{status}");
        }
    }

    #[test]
    fn plain_http_only_to_loopback_unless_allowed() {
        let client = Client::new(Transport::default());
        for ok in [
            "https://ghcr.io/v2/",
            "http://127.0.0.1:5000/v2/",
            "http://127.8.9.10/v2/",
            "http://localhost:5000/v2/",
            "http://[::1]:5000/v2/",
        ] {
            assert!(client.check_url(&Url::parse(ok).unwrap()).is_ok(), "{ok}");
        }
        for refused in [
            "http://ghcr.io/v2/",
            "http://10.0.0.1/v2/",
            "http://localhost.example.com/v2/",
            "ftp://127.0.0.1/",
        ] {
            assert!(
                client.check_url(&Url::parse(refused).unwrap()).is_err(),
                "{refused}"
            );
        }
        let plain = Client::new(Transport {
            plain_http: true,
            ..Transport::default()
        });
        assert!(
            plain
                .check_url(&Url::parse("http://registry.internal/v2/").unwrap())
                .is_ok()
        );
    }
}
