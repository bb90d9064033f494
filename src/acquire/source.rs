//! Where a squad comes from (PRJ-4…PRJ-8): a package folder or a `squad pack` archive, an
//! `oci://` registry reference, an `https://` archive (pinned by its SHA-256), or the
//! OpenCorvus website's install link. [`Source::parse`] reads one as `squads.jsonc` writes it
//! (local paths relative to the project, `/`-separated); [`Source::argument`] reads one as a
//! command line gives it (local paths as the shell gives them). Every command that takes a
//! source takes every kind, with the same rules.

use crate::http::Url;
use crate::oci::Reference;
use crate::share::link::InstallLink;
use crate::version::Version;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A package folder; the path is relative to the project, `/`-separated.
    Folder(String),
    /// A `.zip` archive made by `squad pack`, relative to the project.
    Archive(String),
    /// `oci://HOST/BASE/<namespace>/<id>`, with a version tag or a manifest digest, or neither.
    Registry(Reference),
    /// An archive served over HTTPS (plain HTTP to loopback hosts only).
    Https(Url),
    Link(Box<InstallLink>),
    /// Taken by its name from the project's index (`"index": true` in squads.jsonc, docs/
    /// index.md): the project resolves it to one of the sources above, and `squads.lock` pins
    /// what it resolved to. Never parsed from a source's text.
    Index,
}

/// The registry reference a command-line argument without `oci://` most likely meant: one that
/// is no existing path, whose first segment is a host (`ghcr.io`, `127.0.0.1:5000`,
/// `localhost`) and which reads as a reference once `oci://` is put before it.
pub fn registry_meant(text: &str) -> Option<String> {
    if std::path::Path::new(text).symlink_metadata().is_ok() || text.contains("://") {
        return None;
    }
    let (host, rest) = text.split_once('/')?;
    let host_like = host == "localhost" || host.contains('.') || host.contains(':');
    if !host_like || rest.is_empty() || host.starts_with('.') {
        return None;
    }
    let meant = format!("{}{text}", crate::oci::reference::SCHEME);
    crate::oci::Reference::parse(&meant).ok().map(|_| meant)
}

impl Source {
    /// Parses a source as written; the message says what is wrong and how to write it.
    pub fn parse(text: &str) -> Result<Source, String> {
        if text.trim().is_empty() {
            return Err("the source is empty".to_owned());
        }
        if crate::share::link::is_link(text) {
            return InstallLink::parse(text).map(|link| Source::Link(Box::new(link)));
        }
        if crate::oci::reference::is_reference(text) {
            let reference = Reference::parse(text)?;
            if let Some(tag) = &reference.tag {
                if Version::parse(tag).is_err() {
                    return Err(format!(
                        "the tag `{tag}` is not a version: a squad's tags are its versions (YYYY.MM.DD.N); name one, or none for the newest"
                    ));
                }
            }
            return Ok(Source::Registry(reference));
        }
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("https://") || lower.starts_with("http://") {
            let url =
                Url::parse(text).map_err(|error| format!("`{text}` is not a URL: {error}"))?;
            crate::share::link::check_archive_url(&url)?;
            return Ok(Source::Https(url));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(format!(
                "the `{scheme}://` scheme is not a source: use a folder or archive path, oci://, https:// or an opencorvus:// install link"
            ));
        }
        let bytes = text.as_bytes();
        let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
        if text.starts_with('/') || text.starts_with('\\') || drive || text.starts_with('~') {
            return Err(format!(
                "`{text}` is not relative to the project: an absolute path does not exist on another machine, and a committed file must not name one on whoever clones it"
            ));
        }
        if text.contains('\\') {
            return Err(format!(
                "`{text}` uses `\\`: separate path components with `/` on every platform"
            ));
        }
        if lower.ends_with(".zip") {
            Ok(Source::Archive(text.to_owned()))
        } else {
            Ok(Source::Folder(text.to_owned()))
        }
    }

    /// `folder`, `archive`, `registry`, `https` or `link`: the kind as JSON output names it.
    pub fn kind(&self) -> &'static str {
        match self {
            Source::Folder(_) => "folder",
            Source::Archive(_) => "archive",
            Source::Registry(_) => "registry",
            Source::Https(_) => "https",
            Source::Link(_) => "link",
            Source::Index => "index",
        }
    }

    /// The kind as people read it: [`Source::kind`], except that an archive URL is named by its
    /// scheme (`http` for a loopback `http://` one, never "https") and a link is an `install
    /// link`.
    pub fn noun(&self) -> &'static str {
        match self {
            Source::Https(url) if url.scheme() == "http" => "http",
            Source::Link(_) => "install link",
            other => other.kind(),
        }
    }

    /// Reads a source given on the command line: the remote kinds as [`Source::parse`] reads
    /// them, anything else a path to a folder or an archive (absolute or relative to the
    /// current directory, as the shell gives it).
    pub fn argument(text: &str) -> Result<Source, String> {
        let lower = text.to_ascii_lowercase();
        let remote = crate::oci::reference::is_reference(text)
            || crate::share::link::is_link(text)
            || lower.starts_with("https://")
            || lower.starts_with("http://");
        if remote {
            return Source::parse(text);
        }
        if text.trim().is_empty() {
            return Err("the source is empty".to_owned());
        }
        if let Some(meant) = registry_meant(text) {
            return Err(format!(
                "`{text}` is no folder or archive here; did you mean `{meant}`?"
            ));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            if !std::path::Path::new(text).exists() {
                return Err(format!(
                    "the `{scheme}://` scheme is not a source: use a folder or archive path, oci://, https:// or an opencorvus:// install link"
                ));
            }
        }
        if crate::snapshot::is_archive(std::path::Path::new(text)) {
            Ok(Source::Archive(text.to_owned()))
        } else {
            Ok(Source::Folder(text.to_owned()))
        }
    }

    /// Whether resolving the source needs the network.
    pub fn is_remote(&self) -> bool {
        matches!(
            self,
            Source::Registry(_) | Source::Https(_) | Source::Link(_) | Source::Index
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_recognised() {
        let kind = |text: &str| Source::parse(text).map(|source| source.kind());
        assert_eq!(kind("squads/review"), Ok("folder"));
        assert_eq!(kind("../shared/review"), Ok("folder"));
        assert_eq!(kind("vendor/review-expert-squad.ZIP"), Ok("archive"));
        assert_eq!(
            kind("oci://ghcr.io/acme/squads/acme/review"),
            Ok("registry")
        );
        assert_eq!(
            kind("oci://ghcr.io/acme/squads/acme/review:2026.12.01.1"),
            Ok("registry")
        );
        assert_eq!(kind("https://example.com/review.zip"), Ok("https"));
        assert_eq!(kind("http://127.0.0.1:8000/review.zip"), Ok("https"));
    }

    #[test]
    fn sources_that_cannot_travel_are_refused() {
        for (text, expected) in [
            ("", "empty"),
            ("/abs/review", "not relative"),
            ("C:\\squads\\review", "not relative"),
            ("~/review", "not relative"),
            ("squads\\review", "`/`"),
            ("oci://ghcr.io/acme/review:latest", "not a version"),
            ("oci://ghcr.io", "no repository"),
            ("http://example.com/review.zip", "plain HTTP"),
            ("https://user:pw@example.com/review.zip", "credentials"),
            ("https://example.com/review.zip#x", "fragment"),
            ("ftp://example.com/review.zip", "`ftp://` scheme"),
            ("opencorvus://expert-squad/install?id=x", "lacks"),
        ] {
            let error = Source::parse(text).expect_err(text);
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
