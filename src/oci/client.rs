//! One repository of one registry, spoken to through the distribution API: manifests, blobs,
//! uploads and tags, with authentication negotiated on the first 401.

use std::io::Write;

use sha2::Digest as _;

use super::OciError;
use super::auth::{Challenge, TokenError, fetch_token, parse_challenge};
use super::credentials::{Credential, lookup};
use super::manifest::{Descriptor, IMAGE_MANIFEST, MAX_MANIFEST_BYTES};
use super::reference::Reference;
use crate::http::{Client, Method, Redirects, Request, Response, Secret, Url, authority};

/// What a repository session may do: asked for in Bearer token scopes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Pull,
    Push,
}

impl Access {
    fn actions(self) -> &'static str {
        match self {
            Access::Pull => "pull",
            Access::Push => "pull,push",
        }
    }
}

/// Where credentials come from.
#[derive(Debug, Clone)]
pub enum Credentials {
    /// Docker-style config files and helpers, looked up on the first challenge.
    Configured,
    /// These (`squad login` checks them before storing).
    Given(Credential),
}

/// A manifest as fetched: its exact bytes and their digest.
#[derive(Debug, Clone)]
pub struct FetchedManifest {
    pub bytes: Vec<u8>,
    pub digest: String,
    pub media_type: Option<String>,
}

/// A session with one repository.
/// Cloned, a session shares the credentials and token already negotiated, for a second
/// connection to the same repository.
#[derive(Clone)]
pub struct Repository<'c> {
    client: &'c Client,
    pub reference: Reference,
    base: Url,
    access: Access,
    credentials: Credentials,
    /// `None` until looked up; then the answer.
    credential: Option<Option<Credential>>,
    authorization: Option<Secret>,
    negotiated: bool,
}

/// Longest error body read for its message.
const ERROR_BODY_LIMIT: u64 = 64 * 1024;
/// What one tag list may hold, in all of its pages: a registry that pages forever, or sends
/// huge pages, is refused at these bounds, never followed until memory runs out. A squad
/// publishes one tag per version (and one per signed version on registries without the
/// referrers API), so 100,000 tags is years of daily releases.
pub const MAX_TAG_PAGES: usize = 1000;
pub const MAX_TAGS: usize = 100_000;
/// The bytes of all the pages together (one page may be all of them).
pub const MAX_TAG_LIST_BYTES: u64 = 16 * 1024 * 1024;

impl<'c> Repository<'c> {
    pub fn new(
        client: &'c Client,
        reference: &Reference,
        access: Access,
        credentials: Credentials,
    ) -> Repository<'c> {
        Repository {
            client,
            base: reference.base_url(client.transport().plain_http),
            reference: reference.repository_only(),
            access,
            credentials,
            credential: None,
            authorization: None,
            negotiated: false,
        }
    }

    /// `host[:port]` of the registry.
    pub fn registry(&self) -> &str {
        &self.reference.registry
    }

    fn url(&self, path: &str) -> Url {
        self.base
            .join(&format!("v2/{}/{path}", self.reference.repository))
            .unwrap_or_else(|_| self.base.clone())
    }

    fn protocol(&self, message: impl Into<String>) -> OciError {
        OciError::Protocol {
            registry: self.registry().to_owned(),
            message: message.into(),
        }
    }

    /// A body that broke its bounds is the registry's fault (refused content); a body that
    /// stopped arriving is a transport failure.
    fn body_error(&self, what: &str, error: crate::http::HttpError) -> OciError {
        match error.kind {
            crate::http::ErrorKind::BodyTooLarge { .. } => {
                self.protocol(format!("{what}: {error}"))
            }
            _ => OciError::Http(error),
        }
    }

    fn credential(&mut self) -> Result<Option<Credential>, OciError> {
        if let Some(credential) = &self.credential {
            return Ok(credential.clone());
        }
        let found = match &self.credentials {
            Credentials::Given(credential) => Some(credential.clone()),
            Credentials::Configured => {
                lookup(self.registry(), self.client.time_left()).map_err(OciError::Credentials)?
            }
        };
        self.credential = Some(found.clone());
        Ok(found)
    }

    fn unauthorized(&self, status: u16) -> OciError {
        OciError::Unauthorized {
            status,
            registry: self.registry().to_owned(),
            repository: self.reference.repository.clone(),
            with_credentials: self.credential.as_ref().is_some_and(Option::is_some),
        }
    }

    /// Answers a 401's challenge; afterwards requests carry the authorization.
    fn negotiate(&mut self, response: &Response, scoped: bool) -> Result<(), OciError> {
        let challenges: Vec<Challenge> = response
            .headers("www-authenticate")
            .into_iter()
            .filter_map(parse_challenge)
            .collect();
        let challenge = challenges
            .iter()
            .find(|c| matches!(c, Challenge::Bearer { .. }))
            .or_else(|| challenges.first())
            .cloned();
        let credential = self.credential()?;
        match challenge {
            Some(Challenge::Basic) => match credential {
                Some(credential) => self.authorization = Some(credential.basic()),
                None => return Err(self.unauthorized(401)),
            },
            Some(Challenge::Bearer { realm, service, .. }) => {
                let realm_url = Url::parse(&realm).ok();
                let withheld = credential.is_some()
                    && realm_url.as_ref().is_some_and(|realm| {
                        !super::auth::may_receive_credentials(&self.base, realm)
                    });
                let credential = credential.filter(|_| !withheld);
                let scope = scoped.then(|| {
                    format!(
                        "repository:{}:{}",
                        self.reference.repository,
                        self.access.actions()
                    )
                });
                let token = fetch_token(
                    self.client,
                    &realm,
                    service.as_deref(),
                    scope.as_deref(),
                    credential.as_ref(),
                )
                .map_err(|error| match error {
                    TokenError::Http(error) => OciError::Http(error),
                    TokenError::Status(401 | 403, url) if withheld => self.protocol(format!(
                        "its token endpoint {url} is plain HTTP on another origin than the registry's, and refused an anonymous token; squad sends the credentials stored for {} elsewhere than the registry's origin only over HTTPS",
                        self.registry()
                    )),
                    TokenError::Status(401 | 403, _) => self.unauthorized(401),
                    TokenError::Status(status, url) => {
                        self.protocol(format!("the token endpoint {url} answered {status}"))
                    }
                    TokenError::Invalid(message) => self.protocol(message),
                })?;
                self.authorization = Some(token);
            }
            Some(Challenge::Other(scheme)) => {
                return Err(self.protocol(format!(
                    "asks for `{scheme}` authentication, which squad does not speak"
                )));
            }
            None => {
                return Err(
                    self.protocol("answered 401 without a usable WWW-Authenticate challenge")
                );
            }
        }
        Ok(())
    }

    /// Sends a request with the session's authorization, negotiating it on the first 401.
    fn send(&mut self, request: Request<'_>) -> Result<Response, OciError> {
        self.send_scoped(request, true)
    }

    fn send_scoped(&mut self, request: Request<'_>, scoped: bool) -> Result<Response, OciError> {
        let registry_host = authority(&self.base);
        // Authorization is for the registry itself; an upload location elsewhere goes without.
        let own = authority(&request.url) == registry_host;
        let attempt = |session: &Repository<'_>| {
            let authorization = session.authorization.as_ref().filter(|_| own);
            session
                .client
                .send(&request.clone().with_authorization(authorization))
                .map_err(OciError::Http)
        };
        let response = attempt(self)?;
        if response.status != 401 || self.negotiated || !own {
            return Ok(response);
        }
        self.negotiated = true;
        self.negotiate(&response, scoped)?;
        let response = attempt(self)?;
        if response.status == 401 {
            return Err(self.unauthorized(401));
        }
        Ok(response)
    }

    /// The error for an unexpected answer: its status and the registry's error code.
    fn failure(&self, what: &str, response: Response) -> OciError {
        let status = response.status;
        if status == 401 {
            return self.unauthorized(status);
        }
        if status == 403 {
            return OciError::Denied {
                registry: self.registry().to_owned(),
                repository: self.reference.repository.clone(),
            };
        }
        let body = response.read_to_vec(ERROR_BODY_LIMIT).unwrap_or_default();
        let detail = serde_json::from_slice::<serde_json::Value>(&body)
            .ok()
            .and_then(|value| {
                let first = value.get("errors")?.get(0)?;
                let code = first.get("code").and_then(|v| v.as_str()).unwrap_or("");
                let message = first.get("message").and_then(|v| v.as_str()).unwrap_or("");
                Some(
                    format!("{code}: {message}")
                        .chars()
                        .take(300)
                        .collect::<String>(),
                )
            });
        OciError::Status {
            registry: self.registry().to_owned(),
            what: what.to_owned(),
            status,
            detail,
        }
    }

    /// Checks that the registry answers and the credentials work (`GET /v2/`).
    pub fn ping(&mut self) -> Result<(), OciError> {
        let url = self
            .base
            .join("v2/")
            .map_err(|_| self.protocol("invalid base URL"))?;
        let response = self.send_scoped(Request::new(Method::Get, url), false)?;
        match response.status {
            200..=299 => Ok(()),
            _ => Err(self.failure("the API version check", response)),
        }
    }

    /// The manifest at `target` (a tag or a digest), or `None` when the registry has none.
    /// Its bytes are bounded and, when `target` is a digest, checked against it.
    pub fn manifest(&mut self, target: &str) -> Result<Option<FetchedManifest>, OciError> {
        self.manifest_of_type(target, IMAGE_MANIFEST)
    }

    /// [`Repository::manifest`] for another media type (`accept`), such as an image index.
    pub fn manifest_of_type(
        &mut self,
        target: &str,
        accept: &str,
    ) -> Result<Option<FetchedManifest>, OciError> {
        let response = self.send(self.manifest_request(Method::Get, target, accept))?;
        match response.status {
            200 => {}
            404 => return Ok(None),
            _ => return Err(self.failure(&format!("the manifest `{target}`"), response)),
        }
        let announced = response.header("docker-content-digest").map(str::to_owned);
        let media_type = response
            .header("content-type")
            .map(|value| value.split(';').next().unwrap_or("").trim().to_owned());
        let bytes = response
            .read_to_vec(MAX_MANIFEST_BYTES)
            .map_err(|error| self.body_error(&format!("the manifest `{target}`"), error))?;
        let digest = super::manifest::sha256_digest(&bytes);
        if super::reference::is_valid_digest(target) && digest != target {
            return Err(self.protocol(format!(
                "the manifest asked for as {target} has digest {digest}"
            )));
        }
        // The header is optional; when present it must tell the truth.
        if let Some(announced) = announced.filter(|value| value.starts_with("sha256:")) {
            if announced != digest {
                return Err(self.protocol(format!(
                    "the manifest `{target}` was announced as {announced} but its bytes are {digest}"
                )));
            }
        }
        Ok(Some(FetchedManifest {
            bytes,
            digest,
            media_type,
        }))
    }

    /// The digest of the manifest the tag `tag` names, or `None` when there is no such tag:
    /// asked with `HEAD` (the registry answers with a `Docker-Content-Digest` header and no
    /// body, which costs it less than the manifest), else read and hashed with a `GET` where
    /// the answer names no valid digest or the registry does not take `HEAD` (400, 405, 501);
    /// any other failure is the error a `GET` would have met, not a second try. The digest is
    /// the registry's word, not checked against bytes: for what a tag names now (`outdated`'s
    /// line and exit status, a refusal's message), never for the bytes squad installs, whose
    /// digest squad computes ([`Repository::manifest`]) and checks.
    pub fn manifest_digest(&mut self, tag: &str) -> Result<Option<String>, OciError> {
        let response = self.send(self.manifest_request(Method::Head, tag, IMAGE_MANIFEST))?;
        match response.status {
            404 => return Ok(None),
            200 => {
                if let Some(digest) = response
                    .header("docker-content-digest")
                    .filter(|digest| super::reference::is_valid_digest(digest))
                {
                    return Ok(Some(digest.to_owned()));
                }
            }
            400 | 405 | 501 => {}
            _ => return Err(self.failure(&format!("the manifest `{tag}`"), response)),
        }
        Ok(self.manifest(tag)?.map(|fetched| fetched.digest))
    }

    /// A request for the manifest at `target` (a tag or a digest) of the media type `accept`.
    fn manifest_request(&self, method: Method, target: &str, accept: &str) -> Request<'static> {
        // Distribution 2.8 answers 404 for an OCI manifest unless the Accept header names it.
        Request::new(method, self.url(&format!("manifests/{target}")))
            .with_header("accept", accept)
            .with_redirects(Redirects::Follow(5))
    }

    /// Whether the repository has the blob `digest` (`HEAD`).
    pub fn blob_exists(&mut self, digest: &str) -> Result<bool, OciError> {
        let url = self.url(&format!("blobs/{digest}"));
        let response =
            self.send(Request::new(Method::Head, url).with_redirects(Redirects::Follow(5)))?;
        match response.status {
            200 => Ok(true),
            404 => Ok(false),
            _ => Err(self.failure(&format!("the blob {digest}"), response)),
        }
    }

    /// Streams the blob `descriptor` names into `sink`, refusing more than its size (or
    /// `limit`, the smaller) and checking its size and SHA-256 at the end.
    pub fn fetch_blob(
        &mut self,
        descriptor: &Descriptor,
        limit: u64,
        sink: &mut dyn Write,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), OciError> {
        let digest = &descriptor.digest;
        if !super::reference::is_valid_digest(digest) {
            return Err(self.protocol(format!("`{digest}` is not a sha256 digest")));
        }
        if descriptor.size > limit {
            return Err(self.protocol(format!(
                "the blob {digest} is {} bytes, more than the {limit} allowed",
                descriptor.size
            )));
        }
        let url = self.url(&format!("blobs/{digest}"));
        let response =
            self.send(Request::new(Method::Get, url).with_redirects(Redirects::Follow(5)))?;
        if response.status != 200 {
            return Err(self.failure(&format!("the blob {digest}"), response));
        }
        let mut hashing = HashingWriter {
            inner: sink,
            hasher: sha2::Sha256::new(),
        };
        let received = response
            .copy_to(&mut hashing, descriptor.size, progress)
            .map_err(|error| self.body_error(&format!("the blob {digest}"), error))?;
        if received != descriptor.size {
            return Err(self.protocol(format!(
                "the blob {digest} is {received} bytes, but its descriptor says {}",
                descriptor.size
            )));
        }
        let actual = format!("sha256:{}", hex(&hashing.hasher.finalize()));
        if &actual != digest {
            return Err(self.protocol(format!(
                "the blob asked for as {digest} has digest {actual}: refusing bytes that are not the ones published"
            )));
        }
        Ok(())
    }

    /// Uploads a blob unless the repository has it (`HEAD` first): a monolithic upload,
    /// `POST` to open it and `PUT` with the bytes and digest to close it. Returns whether
    /// bytes were sent.
    pub fn push_blob(
        &mut self,
        descriptor: &Descriptor,
        bytes: &[u8],
        progress: &dyn Fn(u64),
    ) -> Result<bool, OciError> {
        let digest = &descriptor.digest;
        if self.blob_exists(digest)? {
            return Ok(false);
        }
        let url = self.url("blobs/uploads/");
        let response = self.send(Request::new(Method::Post, url))?;
        match response.status {
            // Complete already (a registry that mounted or deduplicated it).
            201 => return Ok(false),
            202 => {}
            _ => return Err(self.failure(&format!("starting the upload of {digest}"), response)),
        }
        let location = response
            .header("location")
            .ok_or_else(|| self.protocol("opened an upload without a Location"))?;
        let mut target = self
            .base
            .join(location)
            .map_err(|_| self.protocol(format!("gave an invalid upload Location `{location}`")))?;
        target.query_pairs_mut().append_pair("digest", digest);
        let request = Request::new(Method::Put, target)
            .with_header("content-type", "application/octet-stream")
            .with_body(bytes)
            .with_upload_progress(progress);
        let response = self.send(request)?;
        match response.status {
            201 | 204 => Ok(true),
            _ => Err(self.failure(&format!("the upload of {digest}"), response)),
        }
    }

    /// Stores a manifest under `tag` and returns its digest, checked against the registry's.
    pub fn put_manifest(
        &mut self,
        tag: &str,
        bytes: &[u8],
        media_type: &str,
    ) -> Result<String, OciError> {
        self.put_manifest_answered(tag, bytes, media_type)
            .map(|(digest, _)| digest)
    }

    /// [`Repository::put_manifest`], also returning whether the registry answered with an
    /// `OCI-Subject` header: it indexes the manifest's `subject` for the referrers API itself.
    pub fn put_manifest_answered(
        &mut self,
        tag: &str,
        bytes: &[u8],
        media_type: &str,
    ) -> Result<(String, bool), OciError> {
        let digest = super::manifest::sha256_digest(bytes);
        let url = self.url(&format!("manifests/{tag}"));
        let request = Request::new(Method::Put, url)
            .with_header("content-type", media_type)
            .with_body(bytes);
        let response = self.send(request)?;
        if !matches!(response.status, 200..=202) {
            return Err(self.failure(&format!("storing the manifest `{tag}`"), response));
        }
        if let Some(announced) = response
            .header("docker-content-digest")
            .filter(|value| value.starts_with("sha256:"))
        {
            if announced != digest {
                return Err(self.protocol(format!(
                    "stored the manifest as {announced}, not as its digest {digest}"
                )));
            }
        }
        let indexed = response.header("oci-subject").is_some();
        Ok((digest, indexed))
    }

    /// The referrers of the manifest `digest` with `artifact_type` through the referrers API
    /// (distribution spec 1.1), or `None` when the registry lacks the API (it answers 404, as
    /// CNCF distribution 2.8 does, or 400/405): the caller falls back on the tag schema.
    pub fn referrers(
        &mut self,
        digest: &str,
        artifact_type: &str,
    ) -> Result<Option<Vec<u8>>, OciError> {
        let mut url = self.url(&format!("referrers/{digest}"));
        url.query_pairs_mut()
            .append_pair("artifactType", artifact_type);
        let request = Request::new(Method::Get, url)
            .with_header("accept", super::manifest::IMAGE_INDEX)
            .with_redirects(Redirects::Follow(5));
        let response = self.send(request)?;
        match response.status {
            200 => {}
            400 | 404 | 405 => return Ok(None),
            _ => return Err(self.failure(&format!("the referrers of {digest}"), response)),
        }
        let body = response
            .read_to_vec(MAX_MANIFEST_BYTES)
            .map_err(|error| self.body_error(&format!("the referrers of {digest}"), error))?;
        Ok(Some(body))
    }

    /// Every tag, following `Link: <…>; rel="next"` pages when the registry paginates, within
    /// [`MAX_TAG_PAGES`], [`MAX_TAGS`] and [`MAX_TAG_LIST_BYTES`]. A next page on another
    /// host, or one already read (a loop), is refused.
    pub fn tags(&mut self) -> Result<Vec<String>, OciError> {
        Ok(self.tags_of_repository()?.unwrap_or_default())
    }

    /// The registry's repositories, from the first page of its catalog (`/v2/_catalog`, at
    /// most 1,000 names within the list's bounds), for "did you mean" hints; `None` where the
    /// registry does not answer it (many do not, or ask for a scope the session's credentials
    /// lack).
    pub fn catalog(&mut self) -> Option<Vec<String>> {
        let url = self.base.join("v2/_catalog?n=1000").ok()?;
        self.paged_list(url, "repositories", "the catalog", true, false)
            .ok()
            .flatten()
            .map(|mut names| {
                names.truncate(1000);
                names
            })
    }

    /// Every repository of the registry (`GET /v2/_catalog`, where the registry allows it),
    /// paged and bounded as [`Repository::tags`] is: within [`MAX_TAG_PAGES`] pages,
    /// [`MAX_TAGS`] names and [`MAX_TAG_LIST_BYTES`] bytes. A registry without a catalog has
    /// none (an empty list).
    pub fn catalog_all(&mut self) -> Result<Vec<String>, OciError> {
        let mut url = self
            .base
            .join("v2/_catalog")
            .map_err(|_| self.protocol("invalid base URL"))?;
        url.query_pairs_mut().append_pair("n", "1000");
        Ok(self
            .paged_list(url, "repositories", "the catalog", false, true)?
            .unwrap_or_default())
    }

    /// [`Repository::tags`], or `None` when the registry answers that the repository does not
    /// exist (404 for its tag list).
    pub fn tags_of_repository(&mut self) -> Result<Option<Vec<String>>, OciError> {
        let url = self.url("tags/list");
        let what = format!("the tag list of {}", self.reference.repository);
        self.paged_list(url, "tags", &what, true, true)
    }

    /// The strings of `field` over every page from `url` on (only the first without `all`),
    /// within the bounds of [`Repository::tags`]; `None` when the first page is a 404.
    fn paged_list(
        &mut self,
        mut url: Url,
        field: &str,
        what: &str,
        scoped: bool,
        all: bool,
    ) -> Result<Option<Vec<String>>, OciError> {
        let mut seen = std::collections::HashSet::new();
        let mut items = Vec::new();
        let mut bytes_left = MAX_TAG_LIST_BYTES;
        let too_many = |session: &Repository<'_>, why: String| {
            session.protocol(format!(
                "{what} {why}; squad reads no further (a registry that pages forever is refused)"
            ))
        };
        for _ in 0..MAX_TAG_PAGES {
            seen.insert(url.to_string());
            let response = self.send_scoped(Request::new(Method::Get, url.clone()), scoped)?;
            match response.status {
                200 => {}
                404 if items.is_empty() && seen.len() == 1 => return Ok(None),
                404 => return Ok(Some(items)),
                _ => return Err(self.failure(what, response)),
            }
            let next = response
                .headers("link")
                .into_iter()
                .find_map(next_link)
                .and_then(|link| url.join(&link).ok());
            let body = response
                .read_to_vec(bytes_left)
                .map_err(|error| match error.kind {
                    crate::http::ErrorKind::BodyTooLarge { .. } => too_many(
                        self,
                        format!("is more than {MAX_TAG_LIST_BYTES} bytes in all"),
                    ),
                    _ => OciError::Http(error),
                })?;
            bytes_left -= body.len() as u64;
            let page: serde_json::Value = serde_json::from_slice(&body)
                .map_err(|_| self.protocol(format!("answered {what} that is not JSON")))?;
            if let Some(page_items) = page.get(field).and_then(|v| v.as_array()) {
                if items.len() + page_items.len() > MAX_TAGS {
                    return Err(too_many(self, format!("has more than {MAX_TAGS} {field}")));
                }
                items.extend(
                    page_items
                        .iter()
                        .filter_map(|item| item.as_str().map(str::to_owned)),
                );
            }
            // No next page, or a last page that names itself.
            let Some(next) = next.filter(|next| *next != url && all) else {
                return Ok(Some(items));
            };
            if authority(&next) != authority(&self.base) {
                return Err(self.protocol(format!(
                    "{what}'s next page is on another host ({}); squad follows pages on the registry only",
                    crate::http::redacted(&next)
                )));
            }
            if seen.contains(next.as_str()) {
                return Err(too_many(
                    self,
                    "links back to a page already read".to_owned(),
                ));
            }
            url = next;
        }
        Err(too_many(
            self,
            format!("has more than {MAX_TAG_PAGES} pages"),
        ))
    }
}

/// The target of a `Link` header value with `rel="next"`.
pub fn next_link(value: &str) -> Option<String> {
    value.split(',').find_map(|part| {
        let (target, params) = part.trim().split_once(';')?;
        let target = target.trim().strip_prefix('<')?.strip_suffix('>')?;
        params
            .split(';')
            .any(|param| {
                let param = param.trim().replace(' ', "");
                param == "rel=\"next\"" || param == "rel=next"
            })
            .then(|| target.to_owned())
    })
}

struct HashingWriter<'a> {
    inner: &'a mut dyn Write,
    hasher: sha2::Sha256,
}

impl Write for HashingWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.hasher.update(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_headers_give_the_next_page() {
        assert_eq!(
            next_link(r#"</v2/a/tags/list?last=b&n=2>; rel="next""#).as_deref(),
            Some("/v2/a/tags/list?last=b&n=2")
        );
        assert_eq!(
            next_link(r#"<https://x/prev>; rel="prev", </v2/a/tags/list?last=c>; rel=next"#)
                .as_deref(),
            Some("/v2/a/tags/list?last=c")
        );
        assert_eq!(next_link("garbage"), None);
    }

    /// A registry on 127.0.0.1 that answers `HEAD` of a manifest with `head` (a status line
    /// and headers) and its `GET` with `body`, until it has answered `requests` requests or
    /// for at most ten seconds; the request lines it saw come back on join.
    fn registry(
        requests: usize,
        head: String,
        body: &'static [u8],
    ) -> (String, std::thread::JoinHandle<Vec<String>>) {
        use std::io::{BufRead, BufReader};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let thread = std::thread::spawn(move || {
            let mut seen = Vec::new();
            listener.set_nonblocking(true).unwrap();
            let started = std::time::Instant::now();
            while started.elapsed() < std::time::Duration::from_secs(10) && seen.len() < requests {
                let Ok((stream, _)) = listener.accept() else {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    continue;
                };
                stream.set_nonblocking(false).unwrap();
                stream
                    .set_read_timeout(Some(std::time::Duration::from_secs(5)))
                    .unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut stream = stream;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        break;
                    }
                    loop {
                        let mut header = String::new();
                        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                            break;
                        }
                    }
                    let answer = if line.starts_with("HEAD ") {
                        format!("{head}\r\ncontent-length: {}\r\n\r\n", body.len()).into_bytes()
                    } else {
                        let mut answer = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: {IMAGE_MANIFEST}\r\ncontent-length: {}\r\n\r\n",
                            body.len()
                        )
                        .into_bytes();
                        answer.extend_from_slice(body);
                        answer
                    };
                    seen.push(line.trim_end().to_owned());
                    if stream.write_all(&answer).is_err() || seen.len() == requests {
                        break;
                    }
                }
            }
            seen
        });
        (address, thread)
    }

    /// What `manifest_digest` of the tag `1` says with a registry that answers `HEAD` with
    /// `head`, and the requests it made (`requests` are expected).
    fn digest_of_tag(
        head: &str,
        requests: usize,
    ) -> Result<(Option<String>, Vec<String>), OciError> {
        let (address, registry) = registry(requests, head.to_owned(), b"{\"schemaVersion\":2}");
        let client = Client::new(crate::http::Transport {
            retries: 0,
            ..crate::http::Transport::default()
        });
        let reference = Reference::parse(&format!("oci://{address}/squads/a/b")).unwrap();
        let mut session =
            Repository::new(&client, &reference, Access::Pull, Credentials::Configured);
        let digest = session.manifest_digest("1");
        drop(session);
        drop(client);
        let seen = registry.join().unwrap();
        digest.map(|digest| (digest, seen))
    }

    #[test]
    fn a_tag_is_asked_with_head_and_read_with_get_only_when_the_answer_names_no_digest() {
        let named = format!("sha256:{}", "ab".repeat(32));
        let head = format!("HTTP/1.1 200 OK\r\ndocker-content-digest: {named}");
        let (digest, seen) = digest_of_tag(&head, 1).unwrap();
        assert_eq!(digest.as_deref(), Some(named.as_str()));
        assert_eq!(seen, ["HEAD /v2/squads/a/b/manifests/1 HTTP/1.1"]);

        let hashed = super::super::manifest::sha256_digest(b"{\"schemaVersion\":2}");
        for head in [
            "HTTP/1.1 200 OK",
            "HTTP/1.1 200 OK\r\ndocker-content-digest: sha256:short",
            "HTTP/1.1 405 Method Not Allowed",
        ] {
            let (digest, seen) = digest_of_tag(head, 2).unwrap();
            assert_eq!(digest.as_deref(), Some(hashed.as_str()), "{head}");
            assert_eq!(
                seen,
                [
                    "HEAD /v2/squads/a/b/manifests/1 HTTP/1.1",
                    "GET /v2/squads/a/b/manifests/1 HTTP/1.1"
                ],
                "{head}"
            );
        }

        let (digest, seen) = digest_of_tag("HTTP/1.1 404 Not Found", 1).unwrap();
        assert_eq!(digest, None);
        assert_eq!(seen.len(), 1);

        // A refusal is the answer, not a reason to ask again.
        assert!(digest_of_tag("HTTP/1.1 403 Forbidden", 1).is_err());
    }
}
