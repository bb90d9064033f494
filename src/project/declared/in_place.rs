//! `squads.jsonc` edited in place by `squad init`, `add`, `remove`, `update` and `trust`: one
//! member or element added, changed or removed, every other byte (comments, formatting) kept.

use crate::jsonc::{self, Kind, Node, edit};

use crate::acquire::source::Source;

use super::*;

/// `text` trusting `key` for `namespace` (`*`: all), until `expires` when given, and
/// requiring signatures when `require`: the `trust` object and the namespace's list are
/// created when absent, the key appended to the list; everything else keeps its bytes.
/// Returns the text unchanged when the key is trusted there already (with that expiry).
pub fn add_trusted(
    text: &str,
    namespace: &str,
    key: &crate::sign::PublicKey,
    expires: Option<crate::version::Date>,
    require: bool,
) -> Result<String, String> {
    let mut text = text.to_owned();
    if require {
        let root = parse_object(&text)?;
        let already = matches!(
            edit::member(&root, "require_signatures").map(|member| &member.value.kind),
            Some(Kind::Bool(true))
        );
        if !already {
            text = edit::set_member(&text, &root, "require_signatures", "true");
        }
    }
    let root = parse_object(&text)?;
    match edit::member(&root, "trust").map(|member| &member.value.kind) {
        Some(Kind::Object(_)) => {}
        Some(other) => return Err(format!("`trust` is {}, not an object", other.type_name())),
        None => text = edit::set_member(&text, &root, "trust", "{}"),
    }
    let entry = match expires {
        Some(date) => format!(
            "{{ \"key\": {}, \"expires\": \"{date}\" }}",
            serde_json::to_string(&key.base64).unwrap_or_default()
        ),
        None => serde_json::to_string(&key.base64).unwrap_or_default(),
    };
    let root = parse_object(&text)?;
    let trust = &edit::member(&root, "trust").expect("added above").value;
    let Some(list) = edit::member(trust, namespace) else {
        return Ok(edit::set_member(
            &text,
            trust,
            namespace,
            &format!("[{entry}]"),
        ));
    };
    let Kind::Array(items) = &list.value.kind else {
        return Err(format!("`trust.{namespace}` is not a list"));
    };
    let (policy, _) = parse(&text);
    if policy.policy.trusted.iter().any(|trusted| {
        trusted.namespace == namespace && trusted.key.id == key.id && trusted.expires == expires
    }) {
        return Ok(text);
    }
    Ok(match items.last() {
        Some(last) => edit::splice(&text, last.span.end..last.span.end, &format!(", {entry}")),
        None => edit::splice(&text, list.value.span.clone(), &format!("[{entry}]")),
    })
}

/// `text` without `key` in the trust lists of `namespace` (every namespace when `None`): each
/// entry of that key, a string or an object, is removed with its comma; everything else keeps
/// its bytes. Returns the text and how many entries went.
pub fn remove_trusted(
    text: &str,
    key: crate::sign::KeyId,
    namespace: Option<&str>,
) -> Result<(String, usize), String> {
    let is_key = |node: &Node| {
        let text = match &node.kind {
            Kind::Object(_) => edit::member(node, "key").and_then(|member| member.value.as_str()),
            _ => node.as_str(),
        };
        text.and_then(|text| crate::sign::PublicKey::parse(text).ok())
            .is_some_and(|parsed| parsed.id == key)
    };
    let root = parse_object(text)?;
    let Some(trust) = edit::member(&root, "trust") else {
        return Ok((text.to_owned(), 0));
    };
    let Kind::Object(lists) = &trust.value.kind else {
        return Err("`trust` is not an object".to_owned());
    };
    let names: Vec<String> = lists
        .iter()
        .map(|list| list.key.clone())
        .filter(|name| namespace.is_none_or(|wanted| wanted == name))
        .collect();
    let (mut text, mut removed) = (text.to_owned(), 0);
    for name in names {
        // Parsed again for each list: an edit moves the spans after it.
        let root = parse_object(&text)?;
        let trust = &edit::member(&root, "trust").expect("seen above").value;
        let list = &edit::member(trust, &name).expect("seen above").value;
        if let Kind::Array(entries) = &list.kind {
            removed += entries.iter().filter(|node| is_key(node)).count();
            text = edit::remove_elements(&text, list, &is_key);
        }
    }
    Ok((text, removed))
}

/// `text` with `key` in its `revoked` list (created when absent), everything else keeping its
/// bytes. Returns the text unchanged when the key is revoked there already.
pub fn add_revoked(text: &str, key: crate::sign::KeyId) -> Result<String, String> {
    let (policy, _) = parse(text);
    if policy.policy.revoked.contains(&key) {
        return Ok(text.to_owned());
    }
    let mut text = text.to_owned();
    let root = parse_object(&text)?;
    match edit::member(&root, "revoked").map(|member| &member.value.kind) {
        Some(Kind::Array(_)) => {}
        Some(other) => return Err(format!("`revoked` is {}, not a list", other.type_name())),
        None => text = edit::set_member(&text, &root, "revoked", "[]"),
    }
    let root = parse_object(&text)?;
    let list = &edit::member(&root, "revoked").expect("added above").value;
    Ok(edit::push_element(&text, list, &format!("\"{key}\"")))
}

/// The `squads.jsonc` of a project that declares no squad yet (`squad init`).
pub const EMPTY_FILE: &str = "\
// The squads this project uses. `squad add`, `squad remove` and `squad update` edit this
// file in place and keep your comments; `squad sync` installs exactly what squads.lock
// records. Commit both files.
{
  \"squads\": {
  }
}
";

/// A new `squads.jsonc` declaring one squad.
pub fn new_file(name: &Name, declaration: &Declaration) -> String {
    set_entry(EMPTY_FILE, name, declaration).unwrap_or_else(|_| EMPTY_FILE.to_owned())
}

pub(super) fn parse_object(text: &str) -> Result<Node, String> {
    let root = jsonc::parse(text)
        .map_err(|error| format!("squads.jsonc is not valid JSONC ({})", error.code))?;
    if !matches!(root.kind, Kind::Object(_)) {
        return Err("squads.jsonc is not an object".to_owned());
    }
    Ok(root)
}

/// The `squads` object of a file's text, added when absent.
pub(super) fn with_squads(text: &str) -> Result<String, String> {
    let root = parse_object(text)?;
    if edit::member(&root, "squads").is_some() {
        return Ok(text.to_owned());
    }
    Ok(edit::set_member(text, &root, "squads", "{}"))
}

/// `text` declaring `name` with `declaration`: an existing entry keeps its comments and has
/// only its keys rewritten; a new one goes on a line of its own at its sorted place, with a
/// trailing comma, so an add changes no other line and two adds on two branches merge
/// (docs/project-files.md, "Committing and merging").
pub fn set_entry(text: &str, name: &Name, declaration: &Declaration) -> Result<String, String> {
    let mut text = with_squads(text)?;
    let key = name.to_string();
    let entry = |text: &str| -> Result<Option<Node>, String> {
        let root = parse_object(text)?;
        let squads = edit::member(&root, "squads").map(|member| member.value.clone());
        Ok(squads.and_then(|squads| edit::member(&squads, &key).map(|m| m.value.clone())))
    };
    match entry(&text)? {
        Some(existing) if matches!(existing.kind, Kind::Object(_)) => {
            let fields = match declaration.source {
                Source::Index => [
                    ("index", Some("true".to_owned())),
                    (
                        "version",
                        declaration.version.clone().map(|v| quote_json(&v)),
                    ),
                    ("source", None),
                ],
                _ => [
                    ("source", Some(quote_json(&declaration.source_text))),
                    (
                        "version",
                        declaration.version.clone().map(|v| quote_json(&v)),
                    ),
                    (
                        "sha256",
                        declaration.sha256.map(|digest| quote_json(&digest.hex())),
                    ),
                ],
            };
            for (field, value) in fields {
                let Some(object) = entry(&text)? else { break };
                text = match value {
                    Some(value) => edit::set_member(&text, &object, field, &value),
                    None => edit::remove_member(&text, &object, field),
                };
            }
            Ok(text)
        }
        _ => {
            let root = parse_object(&text)?;
            let squads = &edit::member(&root, "squads").expect("added above").value;
            Ok(edit::insert_member_sorted(
                &text,
                squads,
                &key,
                &declaration.to_json(),
            ))
        }
    }
}

pub(super) fn quote_json(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// `text` without the entry `name` (its comments stay).
pub fn remove_entry(text: &str, name: &Name) -> Result<String, String> {
    let root = parse_object(text)?;
    match edit::member(&root, "squads") {
        Some(squads) => Ok(edit::remove_member(text, &squads.value, &name.to_string())),
        None => Ok(text.to_owned()),
    }
}
