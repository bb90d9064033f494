//! The audit of MCP declarations (AUD-M1…M3): how a package's remote servers are reached, and
//! credentials written into the declaration itself.
//!
//! A package declares how a credential is supplied (`credential: {type: bearer}`, `header`,
//! `query`; `oauth`), and the runtime asks the user for it. A value written into `headers`, the
//! URL or `oauth.clientSecret` is a secret shipped to everyone who installs the squad, and
//! used for all of them. A value is a placeholder, not a secret, when it says so (`${TOKEN}`,
//! `{env:TOKEN}`, `<your key>`, `YOUR_TOKEN`, `xxxx`). Messages never show a value.

use crate::diag::{Code, Diagnostics};
use crate::jsonc::{self, Kind, Member, Node};
use crate::manifest::checker::child_pointer;
use crate::package::Report;

/// Header names that carry credentials, compared in lower case.
const SECRET_HEADERS: [&str; 14] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "x-api-key",
    "api-key",
    "apikey",
    "x-auth-token",
    "x-access-token",
    "x-token",
    "token",
    "private-token",
    "x-goog-api-key",
    "x-functions-key",
    "ocp-apim-subscription-key",
];

/// Parts of a header or query parameter name that say it carries a credential.
const SECRET_WORDS: [&str; 9] = [
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "api-key",
    "api_key",
    "credential",
    "session",
];

/// Authorization schemes, before the credential itself.
const SCHEMES: [&str; 7] = [
    "bearer", "basic", "token", "bot", "apikey", "api-key", "digest",
];

/// How well-known tokens start, whatever header they are in, and what they are.
const TOKEN_PREFIXES: [(&str, &str); 14] = [
    ("github_pat_", "a GitHub token"),
    ("ghp_", "a GitHub token"),
    ("gho_", "a GitHub token"),
    ("ghs_", "a GitHub token"),
    ("ghu_", "a GitHub token"),
    ("glpat-", "a GitLab token"),
    ("sk-ant-", "an Anthropic API key"),
    ("sk-", "an API key (`sk-…`)"),
    ("xoxb-", "a Slack token"),
    ("xoxp-", "a Slack token"),
    ("AKIA", "an AWS access key id"),
    ("AIza", "a Google API key"),
    ("npm_", "an npm token"),
    ("pypi-", "a PyPI token"),
];

/// Words a placeholder starts with.
const PLACEHOLDER_WORDS: [&str; 20] = [
    "your",
    "my-",
    "my_",
    "example",
    "placeholder",
    "changeme",
    "change-me",
    "change_me",
    "replace",
    "redacted",
    "insert",
    "todo",
    "tbd",
    "none",
    "null",
    "undefined",
    "dummy",
    "sample",
    "fake",
    "<",
];

pub fn check(report: &Report, findings: &mut Diagnostics) {
    for server in &report.resources.servers {
        let Some(source) = report.sources.get(&server.path) else {
            continue;
        };
        let Ok(root) = jsonc::parse(&source.text) else {
            continue;
        };
        let file = server.path.as_str();
        if let Some(url) = last(&root, "url") {
            check_url(file, url, findings);
        }
        if let Some(Node {
            kind: Kind::Object(headers),
            ..
        }) = last(&root, "headers")
        {
            for header in headers {
                check_header(file, header, findings);
            }
        }
        if let Some(secret) = last(&root, "oauth").and_then(|oauth| last(oauth, "clientSecret")) {
            if secret.as_str().is_some_and(|value| !is_placeholder(value)) {
                findings.push(
                    super::finding(
                        Code::McpLiteralSecret,
                        file,
                        secret.span.clone(),
                        format!("`oauth.clientSecret` of `{file}` is a literal secret"),
                    )
                    .pointer("/oauth/clientSecret")
                    .span_label("a secret every install shares")
                    .help("leave `clientSecret` out (a public client), or write a placeholder the runtime fills in; rotate the secret that was published"),
                );
            }
        }
    }
}

/// The value of the last member named `key` of an object (the reference keeps the last).
fn last<'n>(node: &'n Node, key: &str) -> Option<&'n Node> {
    match &node.kind {
        Kind::Object(members) => members
            .iter()
            .rev()
            .find(|member| member.key == key)
            .map(|member| &member.value),
        _ => None,
    }
}

fn check_url(file: &str, node: &Node, findings: &mut Diagnostics) {
    let Some(text) = node.as_str() else {
        return;
    };
    let Ok(url) = url::Url::parse(text) else {
        return;
    };
    let loopback = match url.host() {
        Some(url::Host::Domain(domain)) => domain == "localhost" || domain.ends_with(".localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback() || ip.is_unspecified(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => true,
    };
    if url.scheme() == "http" && !loopback {
        findings.push(
            super::finding(
                Code::McpPlainHttp,
                file,
                node.span.clone(),
                format!(
                    "MCP server `{}` is reached over plain http://",
                    url.host_str().unwrap_or_default()
                ),
            )
            .pointer("/url")
            .span_label("not encrypted")
            .help("use https://: over plain HTTP, anyone on the way can read and change the agent's requests, the server's answers and any credential sent"),
        );
    }
    let password = (!url.password().unwrap_or_default().is_empty()
        && !is_placeholder(url.password().unwrap_or_default()))
    .then(|| "a password".to_owned());
    let parameter = url
        .query_pairs()
        .find(|(name, value)| is_secret_name(name) && value.len() >= 6 && !is_placeholder(value))
        .map(|(name, _)| format!("the query parameter `{}`", super::quote(&name, 40)));
    if let Some(what) = password.or(parameter) {
        findings.push(
            super::finding(
                Code::McpLiteralSecret,
                file,
                node.span.clone(),
                format!("the URL of `{file}` holds a credential: {what}"),
            )
            .pointer("/url")
            .span_label("a secret every install shares")
            .help("remove it from the URL and declare `\"credential\": { \"type\": \"query\", \"name\": \"…\" }`: the runtime asks the user for it; rotate the secret that was published"),
        );
    }
}

fn check_header(file: &str, header: &Member, findings: &mut Diagnostics) {
    let Some(value) = header.value.as_str() else {
        return;
    };
    let Some(what) = secret_in(&header.key, value) else {
        return;
    };
    let name = super::quote(&header.key, 60);
    findings.push(
        super::finding(
            Code::McpLiteralSecret,
            file,
            header.value.span.clone(),
            format!("header `{name}` of `{file}` holds {what} as a literal value"),
        )
        .pointer(child_pointer("/headers", &header.key))
        .span_label("a secret every install shares")
        .help("declare how the credential is supplied instead, `\"credential\": { \"type\": \"bearer\" }` (or `header` with its name): the runtime asks the user for it; rotate the secret that was published"),
    );
}

/// What secret a header holds, in words, if it holds one.
fn secret_in(name: &str, value: &str) -> Option<&'static str> {
    let credential = strip_scheme(value.trim());
    if is_placeholder(credential) {
        return None;
    }
    if let Some((_, kind)) = TOKEN_PREFIXES
        .iter()
        .find(|(prefix, _)| credential.starts_with(prefix) && credential.len() >= 16)
    {
        return Some(kind);
    }
    let jwt = credential.starts_with("eyJ") && credential.matches('.').count() == 2;
    if jwt {
        return Some("a JSON Web Token");
    }
    (is_secret_name(name) && credential.len() >= 6).then_some("a credential")
}

fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_HEADERS.contains(&lower.as_str())
        || SECRET_WORDS.iter().any(|word| lower.contains(word))
        || lower.ends_with("-key")
        || lower.ends_with("_key")
        || lower == "key"
}

/// The credential of an `Authorization`-style value, without its scheme.
fn strip_scheme(value: &str) -> &str {
    let Some((scheme, rest)) = value.split_once(' ') else {
        return value;
    };
    if SCHEMES
        .iter()
        .any(|known| scheme.eq_ignore_ascii_case(known))
    {
        rest.trim()
    } else {
        value
    }
}

/// Whether a value stands for a credential supplied elsewhere rather than being one.
fn is_placeholder(value: &str) -> bool {
    let value = value.trim();
    let lower = value.to_ascii_lowercase();
    value.is_empty()
        || ["${", "{{", "{env:", "{file:", "$env:"]
            .iter()
            .any(|marker| lower.contains(marker))
        || value.starts_with('$')
        || (value.starts_with('%') && value.ends_with('%'))
        || PLACEHOLDER_WORDS.iter().any(|word| lower.starts_with(word))
        || value
            .chars()
            .all(|c| matches!(c, 'x' | 'X' | '*' | '.' | '-' | '_' | '…'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_credentials_in_headers() {
        assert_eq!(
            secret_in("Authorization", "Bearer abcdef123456"),
            Some("a credential")
        );
        assert_eq!(secret_in("x-api-key", "k3y-v4lue-9"), Some("a credential"));
        assert_eq!(
            secret_in("X-Custom", "ghp_0123456789abcdefABCDEF"),
            Some("a GitHub token")
        );
        assert_eq!(
            secret_in(
                "X-Trace",
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl"
            ),
            Some("a JSON Web Token")
        );
        assert_eq!(
            secret_in("Cookie", "session=8f7a6b5c4d"),
            Some("a credential")
        );
    }

    #[test]
    fn placeholders_and_plain_headers_are_not_secrets() {
        for (name, value) in [
            ("Authorization", "Bearer ${TRACKER_TOKEN}"),
            ("Authorization", "Bearer {env:TRACKER_TOKEN}"),
            ("Authorization", "Bearer <your token>"),
            ("x-api-key", "YOUR_API_KEY"),
            ("x-api-key", "$API_KEY"),
            ("x-api-key", "xxxxxxxx"),
            ("x-api-key", ""),
            ("Accept", "application/json"),
            ("X-Client", "squad/1.0"),
            ("Authorization", "Bearer abc"),
        ] {
            assert_eq!(secret_in(name, value), None, "{name}: {value}");
        }
    }

    fn found(declaration: &str) -> Vec<(Code, String)> {
        let mut findings = Diagnostics::default();
        let root = jsonc::parse(declaration).unwrap();
        if let Some(url) = last(&root, "url") {
            check_url("mcp/s.jsonc", url, &mut findings);
        }
        if let Some(Node {
            kind: Kind::Object(headers),
            ..
        }) = last(&root, "headers")
        {
            for header in headers {
                check_header("mcp/s.jsonc", header, &mut findings);
            }
        }
        findings
            .into_sorted()
            .into_iter()
            .map(|d| (d.code, d.message))
            .collect()
    }

    #[test]
    fn urls_over_plain_http_and_with_credentials() {
        assert_eq!(
            found(r#"{"url": "http://tracker.example.net/mcp"}"#),
            [(
                Code::McpPlainHttp,
                "MCP server `tracker.example.net` is reached over plain http://".to_owned()
            )]
        );
        for quiet in [
            r#"{"url": "https://tracker.example.net/mcp"}"#,
            r#"{"url": "http://localhost:8080/mcp"}"#,
            r#"{"url": "http://127.0.0.1/mcp"}"#,
            r#"{"url": "http://[::1]:9/mcp"}"#,
            r#"{"url": "https://x.example/mcp?format=json&key=${KEY}"}"#,
        ] {
            assert_eq!(found(quiet), [], "{quiet}");
        }
        assert_eq!(
            found(r#"{"url": "https://x.example/mcp?api_key=0123456789"}"#),
            [(
                Code::McpLiteralSecret,
                "the URL of `mcp/s.jsonc` holds a credential: the query parameter `api_key`"
                    .to_owned()
            )]
        );
        assert_eq!(
            found(r#"{"url": "https://me:hunter22@x.example/mcp"}"#),
            [(
                Code::McpLiteralSecret,
                "the URL of `mcp/s.jsonc` holds a credential: a password".to_owned()
            )]
        );
    }

    #[test]
    fn messages_never_show_the_value() {
        let found = found(r#"{"headers": {"Authorization": "Bearer s3cr3t-v4lue"}}"#);
        assert_eq!(found.len(), 1);
        assert!(!found[0].1.contains("s3cr3t"), "{found:?}");
    }
}
