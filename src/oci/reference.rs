//! `oci://HOST[:PORT]/PATH[:TAG|@sha256:HEX]` references, as Helm writes them.

use crate::http::Url;

/// A parsed reference. `registry` is `host[:port]` as given; `repository` the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub registry: String,
    pub repository: String,
    pub tag: Option<String>,
    /// `sha256:<64 hex>`.
    pub digest: Option<String>,
}

pub const SCHEME: &str = "oci://";

/// Whether a command-line argument is meant as a registry reference.
pub fn is_reference(text: &str) -> bool {
    text.starts_with(SCHEME)
}

/// Distribution's repository component grammar: `[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*`.
fn component_problem(component: &str) -> Option<&'static str> {
    if component.is_empty() {
        return Some("an empty path component");
    }
    let bytes = component.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if !alnum(bytes[0]) || !alnum(bytes[bytes.len() - 1]) {
        return Some("a path component must start and end with a lowercase letter or digit");
    }
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if alnum(b) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !alnum(bytes[i]) {
            i += 1;
        }
        let separator = &component[start..i];
        let dashes = separator.bytes().all(|b| b == b'-');
        if !(separator == "." || separator == "_" || separator == "__" || dashes) {
            return Some(
                "path components hold lowercase letters and digits separated by `.`, `_`, `__` or dashes",
            );
        }
    }
    None
}

/// The distribution-spec tag grammar: `[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}`.
pub fn is_valid_tag(tag: &str) -> bool {
    let bytes = tag.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 128
        && (bytes[0].is_ascii_alphanumeric() || bytes[0] == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// `sha256:` and 64 lowercase hex digits.
pub fn is_valid_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

impl Reference {
    pub fn parse(text: &str) -> Result<Reference, String> {
        let rest = text
            .strip_prefix(SCHEME)
            .ok_or_else(|| format!("`{text}` is not an `oci://HOST/PATH` reference"))?;
        // Never echoed: a `user:password@` in the host part is a secret typed in the wrong place.
        let authority = rest.split('/').next().unwrap_or_default();
        if let Some((_, host)) = authority.rsplit_once('@') {
            return Err(format!(
                "an oci:// reference carries no credentials (oci://…@{host}/…); run `squad login {host}` instead"
            ));
        }
        let (registry, path) = rest.split_once('/').ok_or_else(|| {
            format!("`{text}` has no repository path after the registry host (oci://HOST/PATH)")
        })?;
        if registry.is_empty() {
            return Err(format!("`{text}` has no registry host"));
        }
        Url::parse(&format!("https://{registry}/"))
            .ok()
            .filter(|url| url.host().is_some() && url.path() == "/" && url.username().is_empty())
            .ok_or_else(|| format!("`{registry}` is not a valid registry host[:port]"))?;
        let (name_and_tag, digest) = match path.split_once('@') {
            Some((name, digest)) => (name, Some(digest.to_owned())),
            None => (path, None),
        };
        if let Some(digest) = &digest {
            if !is_valid_digest(digest) {
                return Err(format!(
                    "`{digest}` is not a digest: expected sha256: and 64 lowercase hex digits"
                ));
            }
        }
        let last_slash = name_and_tag.rfind('/').map_or(0, |at| at + 1);
        let (repository, tag) = match name_and_tag[last_slash..].find(':') {
            Some(at) => (
                &name_and_tag[..last_slash + at],
                Some(name_and_tag[last_slash + at + 1..].to_owned()),
            ),
            None => (name_and_tag, None),
        };
        for component in repository.split('/') {
            if let Some(problem) = component_problem(component) {
                return Err(format!(
                    "`{repository}` is not a valid repository path: {problem}"
                ));
            }
        }
        if let Some(tag) = &tag {
            if !is_valid_tag(tag) {
                return Err(format!(
                    "`{tag}` is not a valid tag (letters, digits, `_`, `.` and `-`, at most 128)"
                ));
            }
        }
        Ok(Reference {
            registry: registry.to_ascii_lowercase(),
            repository: repository.to_owned(),
            tag,
            digest,
        })
    }

    /// The same registry and repository, without tag or digest.
    pub fn repository_only(&self) -> Reference {
        Reference {
            tag: None,
            digest: None,
            ..self.clone()
        }
    }

    /// The child repository `<repository>/<segments…>`.
    pub fn join(&self, segments: &[&str]) -> Reference {
        let mut repository = self.repository.clone();
        for segment in segments {
            repository.push('/');
            repository.push_str(segment);
        }
        Reference {
            repository,
            ..self.repository_only()
        }
    }

    pub fn with_tag(&self, tag: &str) -> Reference {
        Reference {
            tag: Some(tag.to_owned()),
            digest: None,
            ..self.clone()
        }
    }

    pub fn with_digest(&self, digest: &str) -> Reference {
        Reference {
            tag: None,
            digest: Some(digest.to_owned()),
            ..self.clone()
        }
    }

    /// What to ask the registry for: the digest when pinned, else the tag.
    pub fn target(&self) -> Option<&str> {
        self.digest.as_deref().or(self.tag.as_deref())
    }

    /// The registry's base URL: `https://`, or `http://` for loopback hosts and `--plain-http`.
    pub fn base_url(&self, plain_http: bool) -> Url {
        let plain = Url::parse(&format!("http://{}/", self.registry)).ok();
        let loopback = plain.as_ref().is_some_and(crate::http::is_loopback);
        let scheme = if plain_http || loopback {
            "http"
        } else {
            "https"
        };
        // The host was checked by `parse`.
        Url::parse(&format!("{scheme}://{}/", self.registry))
            .unwrap_or_else(|_| Url::parse("https://invalid.invalid/").expect("a valid URL"))
    }
}

impl std::fmt::Display for Reference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{SCHEME}{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn parses_tags_digests_ports_and_nested_paths() {
        let r =
            Reference::parse("oci://127.0.0.1:5000/acme/squads/acme/review:2026.12.01.1").unwrap();
        assert_eq!(r.registry, "127.0.0.1:5000");
        assert_eq!(r.repository, "acme/squads/acme/review");
        assert_eq!(r.tag.as_deref(), Some("2026.12.01.1"));
        assert_eq!(r.digest, None);
        let pinned = Reference::parse(&format!("oci://ghcr.io/org/review@{DIGEST}")).unwrap();
        assert_eq!(pinned.digest.as_deref(), Some(DIGEST));
        assert_eq!(pinned.target(), Some(DIGEST));
        let both = Reference::parse(&format!("oci://[::1]:5000/a/b:1.0@{DIGEST}")).unwrap();
        assert_eq!(
            (both.registry.as_str(), both.tag.as_deref()),
            ("[::1]:5000", Some("1.0"))
        );
        let bare = Reference::parse("oci://localhost/base").unwrap();
        assert_eq!((&bare.tag, &bare.digest), (&None, &None));
        assert_eq!(
            bare.join(&["acme", "review"]).to_string(),
            "oci://localhost/base/acme/review"
        );
        for text in [
            "oci://127.0.0.1:5000/acme/review:2026.12.01.1",
            &format!("oci://ghcr.io/org/review@{DIGEST}"),
        ] {
            assert_eq!(Reference::parse(text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn refuses_what_a_registry_would_not_take() {
        for bad in [
            "127.0.0.1:5000/acme",
            "https://ghcr.io/acme",
            "oci://ghcr.io",
            "oci:///acme",
            "oci://ghcr.io/",
            "oci://ghcr.io/Acme/review",
            "oci://ghcr.io/acme//review",
            "oci://ghcr.io/acme/-review",
            "oci://ghcr.io/acme/review:",
            "oci://ghcr.io/acme/review:+1",
            "oci://ghcr.io/acme/review@sha256:abc",
            "oci://ghcr.io/acme/review@md5:0123",
            "oci://user@ghcr.io/acme",
            "oci://gh cr.io/acme",
        ] {
            assert!(Reference::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn loopback_registries_speak_plain_http() {
        let base = |text: &str, plain| Reference::parse(text).unwrap().base_url(plain);
        assert_eq!(base("oci://127.0.0.1:5000/a", false).scheme(), "http");
        assert_eq!(base("oci://localhost/a", false).scheme(), "http");
        assert_eq!(base("oci://[::1]:5000/a", false).scheme(), "http");
        assert_eq!(base("oci://ghcr.io/a", false).scheme(), "https");
        assert_eq!(base("oci://registry.lan:5000/a", true).scheme(), "http");
    }
}
