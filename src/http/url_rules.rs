//! What a URL is allowed to be, and how it is shown.

use url::{Host, Url};

/// Whether the URL's host is this machine: `localhost`, `127.0.0.0/8` or `[::1]`.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(address)) => address.is_loopback(),
        Some(Host::Ipv6(address)) => address.is_loopback(),
        None => false,
    }
}

/// `host[:port]` of a URL, with the scheme's default port made explicit so that
/// `https://h` and `https://h:443` are the same authority.
pub fn authority(url: &Url) -> String {
    let host = match url.host() {
        Some(Host::Ipv6(address)) => format!("[{address}]"),
        Some(host) => host.to_string().to_ascii_lowercase(),
        None => String::new(),
    };
    match url.port_or_known_default() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    }
}

/// The URL as it may be shown: no user info, and no query (upload locations and signed
/// object-storage URLs carry tokens there).
pub fn redacted(url: &Url) -> String {
    let mut shown = url.clone();
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    let had_query = shown.query().is_some();
    shown.set_query(None);
    shown.set_fragment(None);
    let mut text = shown.to_string();
    if had_query {
        text.push_str("?…");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_urls_carry_no_secrets() {
        let url = Url::parse("https://user:pw@blobs.example/x?X-Amz-Signature=abc#f").unwrap();
        assert_eq!(redacted(&url), "https://blobs.example/x?…");
    }

    #[test]
    fn authorities_compare_with_default_ports() {
        let a = Url::parse("https://Reg.example/v2/").unwrap();
        let b = Url::parse("https://reg.example:443/v2/x").unwrap();
        let c = Url::parse("https://reg.example:5000/v2/").unwrap();
        let d = Url::parse("http://reg.example/v2/").unwrap();
        assert_eq!(authority(&a), authority(&b));
        assert_ne!(authority(&a), authority(&c));
        assert_ne!(authority(&a), authority(&d));
    }
}
