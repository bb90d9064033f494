//! The policy keys of `squads.jsonc`: `trust` and `revoked`, `require_signatures`,
//! `deny_escalation`, `audit` with `accepted_findings` (PRJ-13), `minimum_release_age`
//! (PRJ-14) and `index`, each read with a diagnostic per problem.

use std::ops::Range;

use crate::diag::{Code, Diagnostic, Severity};
use crate::jsonc::{Kind, Member};

use super::*;

/// PRJ-13: the audit policy. Entries with problems are reported and left out.
pub(super) fn read_audit(
    severity: Option<&Member>,
    accepted: Option<&Member>,
    diagnostics: &mut Vec<Diagnostic>,
) -> AuditPolicy {
    let invalid = |span: Range<usize>, pointer: String, message: String| {
        diagnostic(Code::SquadsInvalidAudit, span, message)
            .pointer(pointer)
            .help("see docs/capabilities.md, \"The project policy\": `audit` is `error`, `warning`, `note` or `off`; an accepted finding names the squad, its package digest (`squad digest`), the code `squad audit` printed and a reason")
    };
    let mut policy = AuditPolicy::default();
    if let Some(member) = severity {
        match member.value.as_str() {
            Some("error") => policy.deny_at = Some(Severity::Error),
            Some("warning") => policy.deny_at = Some(Severity::Warning),
            Some("note") => policy.deny_at = Some(Severity::Note),
            Some("off") => policy.deny_at = None,
            Some(other) => diagnostics.push(invalid(
                member.value.span.clone(),
                "/audit".to_owned(),
                format!("`audit` is `{other}`, not `error`, `warning`, `note` or `off`"),
            )),
            None => {}
        }
    }
    let Some(Kind::Array(items)) = accepted.map(|member| &member.value.kind) else {
        return policy;
    };
    for (index, item) in items.iter().enumerate() {
        let pointer = format!("/accepted_findings/{index}");
        let Kind::Object(fields) = &item.kind else {
            diagnostics.push(invalid(
                item.span.clone(),
                pointer,
                format!(
                    "an accepted finding is an object, not {}",
                    item.kind.type_name()
                ),
            ));
            continue;
        };
        let field = |key: &str| fields.iter().rev().find(|field| field.key == key);
        if let Some(unknown) = fields.iter().find(|field| {
            !["squad", "package_digest", "code", "reason"].contains(&field.key.as_str())
        }) {
            diagnostics.push(invalid(
                unknown.key_span.clone(),
                format!("{pointer}/{}", unknown.key),
                format!("unknown key `{}` in an accepted finding", unknown.key),
            ));
            continue;
        }
        let text = |key: &str| field(key).and_then(|field| field.value.as_str());
        let squad = text("squad").and_then(|squad| Name::parse(squad).ok());
        let digest = text("package_digest").and_then(crate::digest::Sha256Digest::parse);
        let code = text("code")
            .and_then(Code::from_name)
            .filter(|code| code.rules().starts_with("AUD-"));
        let reason = text("reason").filter(|reason| !reason.trim().is_empty());
        let (Some(squad), Some(package_digest), Some(code), Some(reason)) =
            (squad, digest, code, reason)
        else {
            let missing: Vec<&str> = [
                (
                    "squad",
                    text("squad").and_then(|s| Name::parse(s).ok()).is_none(),
                ),
                (
                    "package_digest",
                    text("package_digest")
                        .and_then(crate::digest::Sha256Digest::parse)
                        .is_none(),
                ),
                (
                    "code",
                    text("code")
                        .and_then(Code::from_name)
                        .filter(|c| c.rules().starts_with("AUD-"))
                        .is_none(),
                ),
                (
                    "reason",
                    text("reason").filter(|r| !r.trim().is_empty()).is_none(),
                ),
            ]
            .into_iter()
            .filter(|(_, bad)| *bad)
            .map(|(key, _)| key)
            .collect();
            diagnostics.push(invalid(
                item.span.clone(),
                pointer,
                format!(
                    "an accepted finding needs a squad (`<namespace>/<id>`), a package digest (64 lowercase hex), an audit code and a reason: {} {} not",
                    missing.iter().map(|key| format!("`{key}`")).collect::<Vec<_>>().join(", "),
                    if missing.len() == 1 { "is" } else { "are" }
                ),
            ));
            continue;
        };
        policy.accepted.push(AcceptedFinding {
            squad,
            package_digest,
            code,
            reason: reason.to_owned(),
        });
    }
    policy
}

/// PRJ-11: the signature policy. Entries with problems are reported and left out.
/// `index` (a URL an index can be read from) and `index_key` (a minisign public key).
pub(super) fn read_index(
    index: Option<&Member>,
    key: Option<&Member>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<IndexConfig> {
    let key = key.and_then(|member| {
        let text = member.value.as_str()?;
        match crate::sign::PublicKey::parse(text) {
            Ok(key) => Some(key),
            Err(error) => {
                diagnostics.push(
                    diagnostic(
                        Code::SquadsInvalidTrust,
                        member.value.span.clone(),
                        format!("`index_key` is not a minisign public key: {error}"),
                    )
                    .pointer("/index_key")
                    .help("the key is the `RW…` line of the index publisher's minisign .pub file"),
                );
                None
            }
        }
    });
    let member = index?;
    let url = member.value.as_str()?;
    if let Err(error) = crate::index::fetch::base_url(url) {
        diagnostics.push(
            diagnostic(
                Code::SquadsInvalidSource,
                member.value.span.clone(),
                format!("`index`: {error}"),
            )
            .pointer("/index"),
        );
        return None;
    }
    Some(IndexConfig {
        url: url.to_owned(),
        key,
    })
}

pub(super) fn read_policy(
    require: Option<&Member>,
    trust: Option<&Member>,
    revoked: Option<&Member>,
    diagnostics: &mut Vec<Diagnostic>,
) -> crate::sign::Policy {
    use crate::sign::{KeyId, PublicKey, Trusted, policy::ANY_NAMESPACE};
    let mut policy = crate::sign::Policy {
        require_signatures: matches!(
            require.map(|member| &member.value.kind),
            Some(Kind::Bool(true))
        ),
        ..crate::sign::Policy::default()
    };
    let invalid = |span: Range<usize>, message: String| {
        diagnostic(Code::SquadsInvalidTrust, span, message)
            .help("a key is the `RW…` line of a minisign .pub file (`squad trust add` writes it); see docs/signatures.md")
    };
    if let Some(Kind::Object(namespaces)) = trust.map(|member| &member.value.kind) {
        for (index, namespace) in namespaces.iter().enumerate() {
            // Two lists for one namespace would both be trusted, and an edit of one would leave
            // the other: the file is refused until there is one.
            if let Some(first) = namespaces[..index]
                .iter()
                .find(|earlier| earlier.key == namespace.key)
            {
                diagnostics.push(
                    diagnostic(
                        Code::SquadsDuplicate,
                        namespace.key_span.clone(),
                        format!(
                            "`trust` lists the namespace `{}` twice; give its keys in one list",
                            namespace.key
                        ),
                    )
                    .label(first.key_span.clone(), "first listed here")
                    .pointer(format!(
                        "/trust/{}",
                        namespace.key.replace('~', "~0").replace('/', "~1")
                    ))
                    .help(
                        "move the keys of the second list into the first, then delete the second",
                    ),
                );
                continue;
            }
            if namespace.key != ANY_NAMESPACE {
                if let Some((_, problem)) =
                    crate::manifest::id_problem(&namespace.key, crate::manifest::IdKind::Package)
                {
                    diagnostics.push(invalid(
                        namespace.key_span.clone(),
                        format!("`{}` is not a namespace or `*`: {problem}", namespace.key),
                    ));
                    continue;
                }
            }
            let Kind::Array(keys) = &namespace.value.kind else {
                diagnostics.push(invalid(
                    namespace.value.span.clone(),
                    format!(
                        "the keys trusted for `{}` are a list, not {}",
                        namespace.key,
                        namespace.value.kind.type_name()
                    ),
                ));
                continue;
            };
            for node in keys {
                let (key_text, key_span, expires) = match &node.kind {
                    Kind::String(_) => (node.as_str().unwrap_or_default(), node.span.clone(), None),
                    Kind::Object(fields) => {
                        let field =
                            |name: &str| fields.iter().rev().find(|field| field.key == name);
                        if let Some((later, first)) =
                            fields.iter().enumerate().find_map(|(at, later)| {
                                fields[..at]
                                    .iter()
                                    .find(|earlier| earlier.key == later.key)
                                    .map(|first| (later, first))
                            })
                        {
                            diagnostics.push(
                                diagnostic(
                                    Code::SquadsDuplicate,
                                    later.key_span.clone(),
                                    format!("`{}` is given twice; give it once", later.key),
                                )
                                .label(first.key_span.clone(), "first given here"),
                            );
                            continue;
                        }
                        if let Some(other) = fields
                            .iter()
                            .find(|field| field.key != "key" && field.key != "expires")
                        {
                            diagnostics.push(invalid(
                                other.key_span.clone(),
                                format!(
                                    "unknown key `{}`: a trusted key has `key` and `expires`",
                                    other.key
                                ),
                            ));
                            continue;
                        }
                        let Some(key) = field("key").filter(|key| key.value.as_str().is_some())
                        else {
                            diagnostics.push(invalid(
                                node.span.clone(),
                                "a trusted key object needs `key`, a string".to_owned(),
                            ));
                            continue;
                        };
                        let expires = match field("expires") {
                            None => None,
                            Some(expires) => {
                                let text = expires.value.as_str().unwrap_or_default();
                                match crate::version::Date::parse(text) {
                                    Some(date) => Some(date),
                                    None => {
                                        diagnostics.push(invalid(
                                            expires.value.span.clone(),
                                            format!("`expires` is `{text}`, not a YYYY-MM-DD date"),
                                        ));
                                        continue;
                                    }
                                }
                            }
                        };
                        (
                            key.value.as_str().unwrap_or_default(),
                            key.value.span.clone(),
                            expires,
                        )
                    }
                    other => {
                        diagnostics.push(invalid(
                            node.span.clone(),
                            format!(
                                "a trusted key is a string or an object, not {}",
                                other.type_name()
                            ),
                        ));
                        continue;
                    }
                };
                match PublicKey::parse(key_text) {
                    Ok(key) => policy.trusted.push(Trusted {
                        key,
                        namespace: namespace.key.clone(),
                        expires,
                    }),
                    Err(error) => diagnostics.push(invalid(
                        key_span,
                        format!("not a minisign public key: {error}"),
                    )),
                }
            }
        }
    }
    if let Some(Kind::Array(entries)) = revoked.map(|member| &member.value.kind) {
        for node in entries {
            let text = node.as_str().unwrap_or_default();
            let id = KeyId::parse(text).or_else(|| PublicKey::parse(text).ok().map(|key| key.id));
            match id {
                Some(id) => policy.revoked.push(id),
                None => diagnostics.push(invalid(
                    node.span.clone(),
                    "a revoked key is a key id (16 hex digits) or a minisign public key".to_owned(),
                )),
            }
        }
    }
    policy
}
