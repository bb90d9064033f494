//! Registry authentication: the `WWW-Authenticate` challenge of a 401, answered with Basic
//! credentials or with a Bearer token from the challenge's realm (distribution's token flow:
//! `GET <realm>?service=<service>&scope=repository:<name>:<actions>`, anonymous or with the
//! credentials as Basic).

use std::collections::BTreeMap;

use super::credentials::Credential;
use crate::http::{Client, HttpError, Method, Redirects, Request, Secret, Url};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Challenge {
    Basic,
    Bearer {
        realm: String,
        service: Option<String>,
        scope: Option<String>,
    },
    Other(String),
}

/// Parses one `WWW-Authenticate` value: a scheme, then `key=value` or `key="quoted value"`
/// parameters separated by commas.
pub fn parse_challenge(header: &str) -> Option<Challenge> {
    let header = header.trim();
    let (scheme, rest) = header
        .split_once(char::is_whitespace)
        .unwrap_or((header, ""));
    let params = parse_params(rest);
    match scheme.to_ascii_lowercase().as_str() {
        "" => None,
        "basic" => Some(Challenge::Basic),
        "bearer" => Some(Challenge::Bearer {
            realm: params.get("realm")?.clone(),
            service: params.get("service").cloned(),
            scope: params.get("scope").cloned(),
        }),
        other => Some(Challenge::Other(other.to_owned())),
    }
}

fn parse_params(text: &str) -> BTreeMap<String, String> {
    let mut params = BTreeMap::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
            chars.next();
        }
        let key: String = std::iter::from_fn(|| chars.next_if(|c| *c != '=' && *c != ','))
            .collect::<String>()
            .trim()
            .to_ascii_lowercase();
        if key.is_empty() {
            break;
        }
        if chars.next_if_eq(&'=').is_none() {
            continue;
        }
        let mut value = String::new();
        if chars.next_if_eq(&'"').is_some() {
            while let Some(c) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next()),
                    '"' => break,
                    c => value.push(c),
                }
            }
        } else {
            value = std::iter::from_fn(|| chars.next_if(|c| *c != ','))
                .collect::<String>()
                .trim()
                .to_owned();
        }
        params.insert(key, value);
    }
    params
}

/// Whether the stored credentials of the registry at `registry` may go to the token endpoint
/// `realm` that its challenge names: always to the registry's own origin (scheme, host and
/// port), and anywhere else only over HTTPS. Docker sends them wherever the realm points, even
/// over plain HTTP to a loopback address; a registry (or whoever answers in its name) cannot
/// make squad send a password in the clear to a server of its choosing. The host alone is not
/// enough: another port of a loopback host is another server, which any local user may run,
/// and `https://host` naming `http://host/token` would be a downgrade.
pub fn may_receive_credentials(registry: &Url, realm: &Url) -> bool {
    realm.scheme() == "https" || crate::http::authority(realm) == crate::http::authority(registry)
}

/// Why a token could not be had.
#[derive(Debug)]
pub enum TokenError {
    Http(HttpError),
    /// The token endpoint answered with this status.
    Status(u16, String),
    Invalid(String),
}

/// Gets a Bearer token for `scope` from `realm` (anonymous when `credential` is `None`).
pub fn fetch_token(
    client: &Client,
    realm: &str,
    service: Option<&str>,
    scope: Option<&str>,
    credential: Option<&Credential>,
) -> Result<Secret, TokenError> {
    let mut url = Url::parse(realm)
        .map_err(|_| TokenError::Invalid(format!("the token realm `{realm}` is not a URL")))?;
    {
        let mut query = url.query_pairs_mut();
        if let Some(service) = service {
            query.append_pair("service", service);
        }
        if let Some(scope) = scope {
            query.append_pair("scope", scope);
        }
        if let Some(credential) = credential {
            query.append_pair("account", &credential.username);
        }
    }
    let basic = credential.map(Credential::basic);
    let request = Request::new(Method::Get, url.clone())
        .with_authorization(basic.as_ref())
        .with_header("accept", "application/json")
        .with_redirects(Redirects::Follow(3));
    let response = client.send(&request).map_err(TokenError::Http)?;
    let status = response.status;
    let body = response
        .read_to_vec(1024 * 1024)
        .map_err(TokenError::Http)?;
    if status != 200 {
        return Err(TokenError::Status(status, crate::http::redacted(&url)));
    }
    let value: serde_json::Value = serde_json::from_slice(&body).map_err(|_| {
        TokenError::Invalid("the token endpoint answered something that is not JSON".to_owned())
    })?;
    value
        .get("token")
        .or_else(|| value.get("access_token"))
        .and_then(|token| token.as_str())
        .filter(|token| !token.is_empty())
        .map(|token| Secret::new(format!("Bearer {token}")))
        .ok_or_else(|| TokenError::Invalid("the token endpoint's answer has no `token`".to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_go_to_the_registrys_origin_or_over_https() {
        let url = |text: &str| Url::parse(text).unwrap();
        let registry = url("http://127.0.0.1:5000/");
        for (realm, allowed) in [
            ("http://127.0.0.1:5000/token", true),
            ("http://127.0.0.1:5001/token", false),
            ("http://127.0.0.2:5000/token", false),
            ("https://127.0.0.1:5001/token", true),
            ("https://auth.example/token", true),
        ] {
            assert_eq!(
                may_receive_credentials(&registry, &url(realm)),
                allowed,
                "{realm}"
            );
        }
        let registry = url("https://registry.example/");
        assert!(may_receive_credentials(
            &registry,
            &url("https://registry.example:443/token")
        ));
        assert!(!may_receive_credentials(
            &registry,
            &url("http://registry.example/token")
        ));
        assert!(may_receive_credentials(
            &url("http://LOCALHOST:5000/"),
            &url("http://localhost:5000/t")
        ));
    }

    #[test]
    fn challenges_parse_with_quoted_commas() {
        assert_eq!(
            parse_challenge(
                r#"Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push""#
            ),
            Some(Challenge::Bearer {
                realm: "https://auth.example/token".to_owned(),
                service: Some("registry.example".to_owned()),
                scope: Some("repository:a/b:pull,push".to_owned()),
            })
        );
        assert_eq!(
            parse_challenge(r#"Basic realm="squad-test""#),
            Some(Challenge::Basic)
        );
        assert_eq!(
            parse_challenge("bearer realm=http://127.0.0.1:1/t"),
            Some(Challenge::Bearer {
                realm: "http://127.0.0.1:1/t".to_owned(),
                service: None,
                scope: None
            })
        );
        assert_eq!(parse_challenge("Bearer service=x"), None);
        assert_eq!(
            parse_challenge("Negotiate"),
            Some(Challenge::Other("negotiate".to_owned()))
        );
        assert_eq!(parse_challenge(""), None);
    }
}
