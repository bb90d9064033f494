//! MCP server declarations `mcp/<server>.json[c]` (MCP-1, MCP-2): a closed schema for a remote
//! server and the capabilities it offers to the package's projections.

use crate::diag::{Code, Diagnostics};
use crate::jsonc::{self, Kind, Node};
use crate::manifest::checker::{Checker, child_pointer};
use crate::manifest::syntax_diagnostic;

/// The capability lists of a valid declaration (missing lists are empty), and where and how
/// the server is reached: what a capability report shows of it.
#[derive(Debug, Default, Clone)]
pub struct Capabilities {
    pub tools: Vec<String>,
    pub prompts: Vec<String>,
    pub resources: Vec<String>,
    /// `url`, when it is a string.
    pub url: Option<String>,
    /// `transport`, when it is a string.
    pub transport: Option<String>,
    /// The names of the `headers` given (their values are not kept: they may be secrets).
    pub headers: Vec<String>,
    /// The `credential` type (`query`, `bearer`, `header`), when one is declared.
    pub credential: Option<String>,
    /// Whether `oauth` is an object (the runtime then authorises with it).
    pub oauth: bool,
}

/// Checks one declaration; returns its capabilities when the declaration is valid enough to
/// project from (its capability lists are well formed).
pub fn check(file: &str, text: &str, diagnostics: &mut Diagnostics) -> Option<Capabilities> {
    let mut checker = Checker {
        file: file.to_owned(),
        text,
        diagnostics,
    };
    let root = match jsonc::parse(text) {
        Ok(root) => root,
        Err(error) => {
            checker.push(syntax_diagnostic(file, &error));
            return None;
        }
    };
    let object = checker.object(
        &root,
        "",
        &[
            "type",
            "url",
            "transport",
            "headers",
            "oauth",
            "credential",
            "timeout",
            "capabilities",
        ],
    )?;
    if let Some(node) = checker.required(&object, "type") {
        checker.literal(node, "/type", &["remote"]);
    }
    if let Some(node) = checker.required(&object, "url") {
        check_url(&mut checker, node);
    }
    if let Some(node) = checker.required(&object, "transport") {
        checker.literal(node, "/transport", &["streamable-http", "sse"]);
    }
    if let Some(node) = object.get("headers") {
        if let Some(headers) = checker.record(node, "/headers") {
            for member in &headers.members {
                checker.string(&member.value, &child_pointer("/headers", &member.key));
            }
        }
    }
    if let Some(node) = object.get("oauth") {
        check_oauth(&mut checker, node);
    }
    if let Some(node) = object.get("credential") {
        check_credential(&mut checker, node);
    }
    if let Some(node) = object.get("timeout") {
        match node.kind {
            Kind::Number(value)
                if value > 0.0 && value.fract() == 0.0 && value <= 9_007_199_254_740_991.0 => {}
            Kind::Number(_) => {
                let diagnostic = checker.at(
                    Code::InvalidLiteral,
                    node.span.clone(),
                    "/timeout",
                    "timeout must be a positive integer (milliseconds)",
                );
                checker.push(diagnostic);
            }
            _ => checker.wrong_type(node, "/timeout", "number"),
        }
    }
    let text_of = |key: &str| {
        object
            .get(key)
            .and_then(|node| node.as_str())
            .map(str::to_owned)
    };
    let mut capabilities = Capabilities {
        url: text_of("url"),
        transport: text_of("transport"),
        headers: match object.get("headers").map(|node| &node.kind) {
            Some(Kind::Object(members)) => members.iter().map(|m| m.key.clone()).collect(),
            _ => Vec::new(),
        },
        credential: match object.get("credential").map(|node| &node.kind) {
            Some(Kind::Object(members)) => members
                .iter()
                .rev()
                .find(|member| member.key == "type")
                .and_then(|member| member.value.as_str())
                .map(str::to_owned),
            _ => None,
        },
        oauth: matches!(
            object.get("oauth").map(|node| &node.kind),
            Some(Kind::Object(_))
        ),
        ..Capabilities::default()
    };
    if let Some(node) = object.get("capabilities") {
        let lists = checker.object(node, "/capabilities", &["tools", "prompts", "resources"])?;
        for (key, slot) in [
            ("tools", &mut capabilities.tools),
            ("prompts", &mut capabilities.prompts),
            ("resources", &mut capabilities.resources),
        ] {
            let Some(list) = lists.get(key) else {
                continue;
            };
            let pointer = lists.pointer_of(key);
            let items = checker.unique_strings(list, &pointer, &format!("capabilities.{key}"))?;
            for item in items {
                if item.value.contains(['/', '\\']) {
                    let diagnostic = checker.at(
                        Code::InvalidResourceName,
                        item.span.clone(),
                        &item.pointer,
                        format!(
                            "capability name `{}` must not contain `/` or `\\`",
                            item.value
                        ),
                    );
                    checker.push(diagnostic);
                } else {
                    slot.push(item.value);
                }
            }
        }
    }
    Some(capabilities)
}

fn check_url(checker: &mut Checker, node: &Node) {
    let Some(item) = checker.item(node, "/url") else {
        return;
    };
    let problem = match url::Url::parse(&item.value) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => None,
        Ok(url) => Some(format!(
            "protocol `{}:` is not http: or https:",
            url.scheme()
        )),
        Err(error) => Some(format!("not a URL ({error})")),
    };
    if let Some(problem) = problem {
        let diagnostic = checker
            .at(
                Code::InvalidUrl,
                item.span.clone(),
                "/url",
                format!("url `{}`: {problem}", item.value),
            )
            .help("packages declare remote MCP servers only: an http:// or https:// URL");
        checker.push(diagnostic);
    }
}

fn check_oauth(checker: &mut Checker, node: &Node) {
    if matches!(node.kind, Kind::Bool(false)) {
        return;
    }
    if !matches!(node.kind, Kind::Object(_)) {
        checker.wrong_type(node, "/oauth", "`false` or an object");
        return;
    }
    let Some(object) = checker.object(node, "/oauth", &["clientId", "clientSecret", "scope"])
    else {
        return;
    };
    for key in ["clientId", "clientSecret", "scope"] {
        if let Some(value) = object.get(key) {
            checker.string(value, &object.pointer_of(key));
        }
    }
}

fn check_credential(checker: &mut Checker, node: &Node) {
    let Some(kind) = (match &node.kind {
        Kind::Object(members) => members
            .iter()
            .rev()
            .find(|member| member.key == "type")
            .map(|member| &member.value),
        _ => {
            checker.wrong_type(node, "/credential", "object");
            return;
        }
    }) else {
        let object = checker.object(node, "/credential", &["type", "name"]);
        if let Some(object) = object {
            checker.required(&object, "type");
        }
        return;
    };
    let Some(kind) = checker.literal(kind, "/credential/type", &["query", "bearer", "header"])
    else {
        return;
    };
    let allowed: &[&str] = if kind.value == "bearer" {
        &["type"]
    } else {
        &["type", "name"]
    };
    let Some(object) = checker.object(node, "/credential", allowed) else {
        return;
    };
    if kind.value != "bearer" {
        if let Some(name) = checker.required(&object, "name") {
            checker.non_blank(name, "/credential/name");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str) -> Vec<&'static str> {
        let mut diagnostics = Diagnostics::default();
        check("mcp/s.jsonc", text, &mut diagnostics);
        diagnostics
            .into_sorted()
            .into_iter()
            .map(|d| d.code.as_str())
            .collect()
    }

    #[test]
    fn valid_declarations() {
        assert!(
            codes(r#"{"type":"remote","url":"https://x.test/mcp","transport":"sse"}"#).is_empty()
        );
        assert!(
            codes(
                r#"{"type":"remote","url":"http://x","transport":"streamable-http","oauth":false,
            "credential":{"type":"header","name":"X-Key"},"timeout":5000,"headers":{"a":"b"},
            "capabilities":{"tools":["a b","c.d"],"prompts":[]}}"#
            )
            .is_empty()
        );
        assert!(codes(r#"{"type":"remote","url":"https://x","transport":"sse","credential":{"type":"bearer"},"oauth":{"scope":"s"}}"#).is_empty());
    }

    #[test]
    fn invalid_declarations() {
        assert_eq!(
            codes(r#"{"type":"local","url":"https://x","transport":"sse"}"#),
            ["invalid-literal"]
        );
        assert_eq!(
            codes(r#"{"type":"remote","url":"ftp://x","transport":"sse"}"#),
            ["invalid-url"]
        );
        assert_eq!(
            codes(r#"{"type":"remote","url":"nope","transport":"sse"}"#),
            ["invalid-url"]
        );
        assert_eq!(
            codes(r#"{"type":"remote","url":"https://x","transport":"sse","enabled":true}"#),
            ["unknown-field"]
        );
        assert_eq!(
            codes(r#"{"type":"remote","url":"https://x","transport":"sse","timeout":0}"#),
            ["invalid-literal"]
        );
        assert_eq!(
            codes(r#"{"type":"remote","url":"https://x","transport":"sse","oauth":true}"#),
            ["wrong-type"]
        );
        assert_eq!(
            codes(
                r#"{"type":"remote","url":"https://x","transport":"sse","credential":{"type":"bearer","name":"x"}}"#
            ),
            ["unknown-field"]
        );
        assert_eq!(
            codes(
                r#"{"type":"remote","url":"https://x","transport":"sse","credential":{"type":"query"}}"#
            ),
            ["missing-field"]
        );
        assert_eq!(
            codes(
                r#"{"type":"remote","url":"https://x","transport":"sse","capabilities":{"tools":["a/b"]}}"#
            ),
            ["invalid-resource-name"]
        );
        assert_eq!(
            codes(
                r#"{"type":"remote","url":"https://x","transport":"sse","capabilities":{"tools":["a","a"]}}"#
            ),
            ["duplicate-entry"]
        );
        assert_eq!(
            codes(r#"{"type":"remote","url":"https://x"}"#),
            ["missing-field"]
        );
    }
}
