//! The OpenCorvus website's install link,
//! `opencorvus://expert-squad/install?namespace=…&id=…&version=…&packageDigest=…&archiveSha256=…&archiveBytes=…&archiveUrl=…`,
//! with the reference desktop client's rules for it (registry-notes §1.5): the whole link at
//! most 4096 characters; each of the seven parameters exactly once and no others; identity
//! segments and the version in their patterns; both digests 64 lowercase hex; `archiveBytes` at
//! most the 18 MiB import limit; the archive URL HTTPS, or plain HTTP to a loopback host, with
//! no credentials and no fragment. The download itself is [`super::exact`].

use crate::digest::Sha256Digest;
use crate::http::Url;

pub const SCHEME: &str = "opencorvus:";
/// The longest link the reference accepts, in UTF-16 code units as JavaScript counts them.
pub const MAX_LENGTH: usize = 4096;
const PARAMETERS: [&str; 7] = [
    "namespace",
    "id",
    "version",
    "packageDigest",
    "archiveSha256",
    "archiveBytes",
    "archiveUrl",
];

/// A checked install link: one exact revision and where its archive is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallLink {
    pub namespace: String,
    pub id: String,
    pub version: String,
    pub package_digest: Sha256Digest,
    pub archive_sha256: Sha256Digest,
    pub archive_bytes: u64,
    pub archive_url: Url,
}

/// Whether a source is meant as an install link.
pub fn is_link(text: &str) -> bool {
    text.get(..SCHEME.len())
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case(SCHEME))
}

/// `^[a-z0-9](?:[a-z0-9._-]{0,126}[a-z0-9])?$`
fn is_identity_segment(text: &str) -> bool {
    let edge = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    segment(text, edge, |b| edge(b) || matches!(b, b'.' | b'_' | b'-'))
}

/// `^[A-Za-z0-9](?:[A-Za-z0-9._+-]{0,126}[A-Za-z0-9])?$`
fn is_version_segment(text: &str) -> bool {
    let edge = |b: u8| b.is_ascii_alphanumeric();
    segment(text, edge, |b| {
        edge(b) || matches!(b, b'.' | b'_' | b'+' | b'-')
    })
}

fn segment(text: &str, edge: impl Fn(u8) -> bool, inner: impl Fn(u8) -> bool) -> bool {
    let bytes = text.as_bytes();
    match bytes {
        [] => false,
        [only] => edge(*only),
        [first, middle @ .., last] => {
            bytes.len() <= 128 && edge(*first) && edge(*last) && middle.iter().all(|b| inner(*b))
        }
    }
}

/// An archive URL the reference would fetch: HTTPS, or HTTP to a loopback host; no
/// credentials, no fragment.
pub fn check_archive_url(url: &Url) -> Result<(), String> {
    let shown = crate::http::redacted(url);
    match url.scheme() {
        "https" => {}
        "http" if crate::http::is_loopback(url) => {}
        "http" => {
            return Err(format!(
                "`{shown}` is plain HTTP to a host that is not loopback; archives travel over HTTPS"
            ));
        }
        other => return Err(format!("`{shown}`: the `{other}` scheme is not supported")),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!("`{shown}` carries credentials; the URL must not"));
    }
    if url.fragment().is_some() {
        return Err(format!("`{shown}` has a fragment (`#…`); the URL must not"));
    }
    if url.host().is_none() {
        return Err(format!("`{shown}` has no host"));
    }
    Ok(())
}

impl InstallLink {
    pub fn parse(text: &str) -> Result<InstallLink, String> {
        let length = text.encode_utf16().count();
        if length > MAX_LENGTH {
            return Err(format!(
                "the install link is {length} characters long; at most {MAX_LENGTH} are accepted"
            ));
        }
        let link = Url::parse(text).map_err(|error| format!("not a valid link: {error}"))?;
        if link.scheme() != "opencorvus"
            || link.host_str() != Some("expert-squad")
            || link.path() != "/install"
            || link.port().is_some()
            || !link.username().is_empty()
            || link.password().is_some()
        {
            return Err(
                "an install link is `opencorvus://expert-squad/install?…` exactly".to_owned(),
            );
        }
        if link.fragment().is_some() {
            return Err("the install link has a fragment (`#…`)".to_owned());
        }
        let mut values: [Option<String>; 7] = Default::default();
        for (name, value) in link.query_pairs() {
            let Some(index) = PARAMETERS.iter().position(|known| *known == name) else {
                return Err(format!(
                    "the install link has a parameter `{name}`; only {} are allowed",
                    PARAMETERS.join(", ")
                ));
            };
            if values[index].replace(value.into_owned()).is_some() {
                return Err(format!("the install link gives `{name}` more than once"));
            }
        }
        let [
            Some(namespace),
            Some(id),
            Some(version),
            Some(package_digest),
            Some(archive_sha256),
            Some(archive_bytes),
            Some(archive_url),
        ] = values
        else {
            let missing: Vec<&str> = PARAMETERS
                .iter()
                .zip(&values)
                .filter(|(_, value)| value.is_none())
                .map(|(name, _)| *name)
                .collect();
            return Err(format!(
                "the install link lacks {}; each of the seven parameters is required",
                missing.join(", ")
            ));
        };
        for (name, value) in [("namespace", &namespace), ("id", &id)] {
            if !is_identity_segment(value) {
                return Err(format!(
                    "the install link's {name} `{value}` is not an identity segment (lowercase letters, digits, `.`, `_`, `-`)"
                ));
            }
        }
        if !is_version_segment(&version) {
            return Err(format!(
                "the install link's version `{version}` is not a valid version"
            ));
        }
        let digest = |name: &str, value: &str| {
            Sha256Digest::parse(value).ok_or_else(|| {
                format!("the install link's {name} is not 64 lowercase hex characters")
            })
        };
        let package_digest = digest("packageDigest", &package_digest)?;
        let archive_sha256 = digest("archiveSha256", &archive_sha256)?;
        let limit = crate::archive::reader::Limits::REFERENCE.archive_bytes;
        let archive_bytes = Some(&archive_bytes)
            .filter(|text| !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|text| text.parse::<u64>().ok())
            .filter(|bytes| (1..=limit).contains(bytes))
            .ok_or_else(|| {
                format!(
                    "the install link's archiveBytes `{archive_bytes}` is not a size from 1 to {limit} bytes (the import limit)"
                )
            })?;
        let archive_url = Url::parse(&archive_url)
            .map_err(|error| format!("the install link's archiveUrl is not a URL: {error}"))?;
        check_archive_url(&archive_url)?;
        Ok(InstallLink {
            namespace,
            id,
            version,
            package_digest,
            archive_sha256,
            archive_bytes,
            archive_url,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA_A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const SHA_B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    fn link(query: &str) -> String {
        format!("opencorvus://expert-squad/install?{query}")
    }

    fn good() -> String {
        format!(
            "namespace=acme&id=review&version=2026.12.01.1&packageDigest={SHA_A}&archiveSha256={SHA_B}&archiveBytes=1884&archiveUrl=https%3A%2F%2Fopencorvus.example%2Fa.zip"
        )
    }

    #[test]
    fn a_valid_link_parses() {
        let parsed = InstallLink::parse(&link(&good())).unwrap();
        assert_eq!(
            (parsed.namespace.as_str(), parsed.id.as_str()),
            ("acme", "review")
        );
        assert_eq!(parsed.archive_bytes, 1884);
        assert_eq!(
            parsed.archive_url.as_str(),
            "https://opencorvus.example/a.zip"
        );
        assert!(is_link("opencorvus://x") && is_link("OpenCorvus://x") && !is_link("oci://x"));
        let loopback = good().replace(
            "https%3A%2F%2Fopencorvus.example",
            "http%3A%2F%2F127.0.0.1%3A8080",
        );
        assert!(InstallLink::parse(&link(&loopback)).is_ok());
    }

    #[test]
    fn every_rule_of_the_reference_is_enforced() {
        let cases: Vec<(String, &str)> = vec![
            (link(&format!("{}&id=other", good())), "more than once"),
            (link(&format!("{}&extra=1", good())), "parameter `extra`"),
            (link(&good().replace("&id=review", "")), "lacks id"),
            (link(&good().replace("acme", "Acme")), "identity segment"),
            (
                link(&good().replace("review", "-review")),
                "identity segment",
            ),
            (
                link(&good().replace("2026.12.01.1", "2026.12.01.1-")),
                "version",
            ),
            (
                link(&good().replace(SHA_A, &SHA_A.to_uppercase())),
                "packageDigest",
            ),
            (link(&good().replace(SHA_B, &SHA_B[1..])), "archiveSha256"),
            (
                link(&good().replace("1884", "18874369")),
                "archiveBytes `18874369`",
            ),
            (link(&good().replace("1884", "+1884")), "archiveBytes"),
            (link(&good().replace("1884", "0")), "archiveBytes"),
            (
                link(&good().replace("https%3A%2F%2F", "http%3A%2F%2F")),
                "plain HTTP",
            ),
            (
                link(&good().replace("https%3A%2F%2F", "https%3A%2F%2Fu%3Ap%40")),
                "credentials",
            ),
            (link(&good().replace("a.zip", "a.zip%23x")), "fragment"),
            (
                link(&good().replace("https%3A%2F%2F", "ftp%3A%2F%2F")),
                "scheme",
            ),
            (format!("{}#top", link(&good())), "fragment"),
            (
                format!("opencorvus://expert-squad/other?{}", good()),
                "exactly",
            ),
            (format!("opencorvus://x/install?{}", good()), "exactly"),
            (
                link(&format!(
                    "{}&archiveUrl=https%3A%2F%2Fx%2F{}",
                    good().replace("&archiveUrl=https%3A%2F%2Fopencorvus.example%2Fa.zip", ""),
                    "a".repeat(4000)
                )),
                "at most 4096",
            ),
        ];
        for (text, expected) in &cases {
            let error = InstallLink::parse(text).expect_err(text);
            assert!(error.contains(expected), "{text}: {error}");
        }
        assert_eq!(cases.len(), 19);
    }
}
