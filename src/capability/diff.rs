//! What an update changes: two capability sets of the same squad, and their files.
//!
//! The judgement is the reference's rule for a new revision (capabilities-notes §3-§6), applied
//! to any update and reported instead of thrown: for each of the thirteen grant lists, the
//! union over all nodes may only shrink; the set of base roles may not grow;
//! `inherit_base_tools` may not go from false everywhere to true anywhere. An update that
//! breaks any of these [`widens`](Diff::widens) what the squad may do. Files are split as the
//! reference splits them: the mutable text closure (README, selector, prompts, and in each
//! skill folder `SKILL.md` and UTF-8 files under `references/` and `examples/`) and everything
//! else, frozen (tools, `lib/`, MCP declarations, assets, skill scripts), named one by one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;

use super::{Capabilities, Class, GRANT_LISTS, Node};
use crate::digest::{FileRecord, Sha256Digest};
use crate::package::Report;

/// One side of a comparison: a validated package, its capabilities, its file records, and the
/// folder holding its (private) copy, where text files are told from the others.
pub struct Side<'a> {
    pub report: &'a Report,
    pub capabilities: &'a Capabilities,
    pub files: &'a [FileRecord],
    pub root: &'a Path,
}

#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    pub namespace: String,
    pub id: String,
    pub old_version: String,
    pub new_version: String,
    /// The update adds a grant, a base role, or inheritance of a role's tools.
    pub widens: bool,
    /// Per grant list, what the union over all nodes gains and loses.
    pub grants_added: BTreeMap<&'static str, Vec<String>>,
    pub grants_removed: BTreeMap<&'static str, Vec<String>>,
    pub base_roles_added: Vec<String>,
    pub base_roles_removed: Vec<String>,
    /// `inherit_base_tools` goes from false on every node to true on some node.
    pub inherit_base_tools_gained: bool,
    pub classes_gained: Vec<Class>,
    pub classes_lost: Vec<Class>,
    /// Nodes added, removed, or whose grants, role, inheritance or classes changed.
    pub nodes: Vec<NodeChange>,
    pub mcp_servers: Vec<ServerChange>,
    pub tools: Vec<ToolChange>,
    /// Mutable text that changed (added, removed or edited), sorted.
    pub mutable_changed: Vec<String>,
    /// Executable and opaque files that changed, each with both SHA-256s.
    pub frozen_changed: Vec<FrozenFile>,
    // The reference's comparison record (capabilities-notes §6).
    pub parent_digest: String,
    pub candidate_digest: String,
    pub mutable_paths: Vec<String>,
    pub changed_paths: Vec<String>,
    pub frozen_files: Vec<FrozenFile>,
    pub diff_sha256: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    Added,
    Removed,
    Changed,
}

#[derive(Debug, Clone, Serialize)]
pub struct NodeChange {
    pub node: String,
    pub change: Change,
    pub grants_added: BTreeMap<&'static str, Vec<String>>,
    pub grants_removed: BTreeMap<&'static str, Vec<String>>,
    /// `[old, new]` when the base role changed.
    pub base_role: Option<[String; 2]>,
    /// `[old, new]` when `inherit_base_tools` changed.
    pub inherit_base_tools: Option<[bool; 2]>,
    pub classes_gained: Vec<Class>,
    pub classes_lost: Vec<Class>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ServerChange {
    pub reference: String,
    pub change: Change,
    /// `[old, new]` of what changed: where it is and how it is reached.
    pub url: Option<[Option<String>; 2]>,
    pub transport: Option<[Option<String>; 2]>,
    pub headers: Option<[Vec<String>; 2]>,
    pub tools_added: Vec<String>,
    pub tools_removed: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ToolChange {
    pub reference: String,
    pub change: Change,
    pub modules_added: Vec<String>,
    pub modules_removed: Vec<String>,
    pub classes_gained: Vec<Class>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FrozenFile {
    pub path: String,
    pub parent_sha256: Option<String>,
    pub candidate_sha256: Option<String>,
}

/// Why two squads cannot be compared.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{old} and {new} are different squads: diff compares two versions of one namespace/id")]
pub struct NotTheSameSquad {
    pub old: String,
    pub new: String,
}

fn added<T: Ord + Clone>(old: &[T], new: &[T]) -> Vec<T> {
    let old: BTreeSet<&T> = old.iter().collect();
    new.iter()
        .filter(|item| !old.contains(item))
        .cloned()
        .collect()
}

fn lists_added(
    old: &BTreeMap<&'static str, Vec<String>>,
    new: &BTreeMap<&'static str, Vec<String>>,
) -> BTreeMap<&'static str, Vec<String>> {
    GRANT_LISTS
        .iter()
        .map(|kind| kind.field())
        .filter_map(|list| {
            let empty = Vec::new();
            let gained = added(
                old.get(list).unwrap_or(&empty),
                new.get(list).unwrap_or(&empty),
            );
            (!gained.is_empty()).then_some((list, gained))
        })
        .collect()
}

/// Compares `old` with `new`, two versions of one squad.
pub fn compare(old: &Side<'_>, new: &Side<'_>) -> Result<Diff, NotTheSameSquad> {
    let (before, after) = (old.capabilities, new.capabilities);
    if (&before.namespace, &before.id) != (&after.namespace, &after.id) {
        return Err(NotTheSameSquad {
            old: format!("{}/{}", before.namespace, before.id),
            new: format!("{}/{}", after.namespace, after.id),
        });
    }
    let grants_added = lists_added(&before.total.grants, &after.total.grants);
    let grants_removed = lists_added(&after.total.grants, &before.total.grants);
    let base_roles_added = added(&before.total.base_roles, &after.total.base_roles);
    let base_roles_removed = added(&after.total.base_roles, &before.total.base_roles);
    let inherit_base_tools_gained =
        !before.total.inherit_base_tools && after.total.inherit_base_tools;
    let widens =
        !grants_added.is_empty() || !base_roles_added.is_empty() || inherit_base_tools_gained;
    let (mutable_paths, mutable_changed, frozen_files, frozen_changed, changed_paths) =
        files(old, new);
    let parent_digest = before.package_digest.clone();
    let candidate_digest = after.package_digest.clone();
    let diff_sha256 = record_sha256(
        &parent_digest,
        &candidate_digest,
        &changed_paths,
        &frozen_files,
    );
    Ok(Diff {
        namespace: after.namespace.clone(),
        id: after.id.clone(),
        old_version: before.version.clone(),
        new_version: after.version.clone(),
        widens,
        grants_added,
        grants_removed,
        base_roles_added,
        base_roles_removed,
        inherit_base_tools_gained,
        classes_gained: added(&before.total.classes, &after.total.classes),
        classes_lost: added(&after.total.classes, &before.total.classes),
        nodes: nodes(&before.nodes, &after.nodes),
        mcp_servers: servers(before, after),
        tools: tools(before, after),
        mutable_changed,
        frozen_changed,
        parent_digest,
        candidate_digest,
        mutable_paths,
        changed_paths,
        frozen_files,
        diff_sha256,
    })
}

fn nodes(old: &[Node], new: &[Node]) -> Vec<NodeChange> {
    let old_by: BTreeMap<&str, &Node> = old.iter().map(|node| (node.node.as_str(), node)).collect();
    let new_by: BTreeMap<&str, &Node> = new.iter().map(|node| (node.node.as_str(), node)).collect();
    let names: BTreeSet<&str> = old_by.keys().chain(new_by.keys()).copied().collect();
    let empty = BTreeMap::new();
    let mut changes = Vec::new();
    for name in names {
        let (before, after) = (old_by.get(name), new_by.get(name));
        let before_grants = before.map_or(&empty, |node| &node.grants);
        let after_grants = after.map_or(&empty, |node| &node.grants);
        let classes = |node: Option<&&Node>| node.map_or(Vec::new(), |node| node.classes.clone());
        let change = NodeChange {
            node: name.to_owned(),
            change: match (before, after) {
                (None, _) => Change::Added,
                (_, None) => Change::Removed,
                _ => Change::Changed,
            },
            grants_added: lists_added(before_grants, after_grants),
            grants_removed: lists_added(after_grants, before_grants),
            base_role: match (before, after) {
                (Some(b), Some(a)) if b.base_role != a.base_role => {
                    Some([b.base_role.clone(), a.base_role.clone()])
                }
                _ => None,
            },
            inherit_base_tools: match (before, after) {
                (Some(b), Some(a)) if b.inherit_base_tools != a.inherit_base_tools => {
                    Some([b.inherit_base_tools, a.inherit_base_tools])
                }
                _ => None,
            },
            classes_gained: added(&classes(before), &classes(after)),
            classes_lost: added(&classes(after), &classes(before)),
        };
        let unchanged = change.change == Change::Changed
            && change.grants_added.is_empty()
            && change.grants_removed.is_empty()
            && change.base_role.is_none()
            && change.inherit_base_tools.is_none()
            && change.classes_gained.is_empty()
            && change.classes_lost.is_empty();
        if !unchanged {
            changes.push(change);
        }
    }
    changes
}

fn servers(old: &Capabilities, new: &Capabilities) -> Vec<ServerChange> {
    let old_by: BTreeMap<&str, _> = old
        .mcp_servers
        .iter()
        .map(|s| (s.reference.as_str(), s))
        .collect();
    let new_by: BTreeMap<&str, _> = new
        .mcp_servers
        .iter()
        .map(|s| (s.reference.as_str(), s))
        .collect();
    let names: BTreeSet<&str> = old_by.keys().chain(new_by.keys()).copied().collect();
    let mut changes = Vec::new();
    for name in names {
        let (before, after) = (old_by.get(name), new_by.get(name));
        let pair = |value: fn(&super::McpServer) -> Option<String>| match (before, after) {
            (Some(b), Some(a)) if value(b) != value(a) => Some([value(b), value(a)]),
            _ => None,
        };
        let tools =
            |server: Option<&&super::McpServer>| server.map_or(Vec::new(), |s| s.tools.clone());
        let change = ServerChange {
            reference: name.to_owned(),
            change: match (before, after) {
                (None, _) => Change::Added,
                (_, None) => Change::Removed,
                _ => Change::Changed,
            },
            url: pair(|server| server.url.clone()),
            transport: pair(|server| server.transport.clone()),
            headers: match (before, after) {
                (Some(b), Some(a)) if b.headers != a.headers => {
                    Some([b.headers.clone(), a.headers.clone()])
                }
                _ => None,
            },
            tools_added: added(&tools(before), &tools(after)),
            tools_removed: added(&tools(after), &tools(before)),
        };
        let unchanged = change.change == Change::Changed
            && change.url.is_none()
            && change.transport.is_none()
            && change.headers.is_none()
            && change.tools_added.is_empty()
            && change.tools_removed.is_empty();
        if !unchanged {
            changes.push(change);
        }
    }
    changes
}

fn tools(old: &Capabilities, new: &Capabilities) -> Vec<ToolChange> {
    let old_by: BTreeMap<&str, _> = old
        .tools
        .iter()
        .map(|t| (t.reference.as_str(), t))
        .collect();
    let new_by: BTreeMap<&str, _> = new
        .tools
        .iter()
        .map(|t| (t.reference.as_str(), t))
        .collect();
    let names: BTreeSet<&str> = old_by.keys().chain(new_by.keys()).copied().collect();
    let mut changes = Vec::new();
    for name in names {
        let (before, after) = (old_by.get(name), new_by.get(name));
        let modules =
            |tool: Option<&&super::PackageTool>| tool.map_or(Vec::new(), |t| t.modules.clone());
        let classes =
            |tool: Option<&&super::PackageTool>| tool.map_or(Vec::new(), |t| t.classes.clone());
        let change = ToolChange {
            reference: name.to_owned(),
            change: match (before, after) {
                (None, _) => Change::Added,
                (_, None) => Change::Removed,
                _ => Change::Changed,
            },
            modules_added: added(&modules(before), &modules(after)),
            modules_removed: added(&modules(after), &modules(before)),
            classes_gained: added(&classes(before), &classes(after)),
        };
        let unchanged = change.change == Change::Changed
            && change.modules_added.is_empty()
            && change.modules_removed.is_empty()
            && change.classes_gained.is_empty();
        if !unchanged {
            changes.push(change);
        }
    }
    changes
}

/// The mutable text closure a side declares (capabilities-notes §4).
fn mutable_closure(side: &Side<'_>) -> BTreeSet<String> {
    let mut paths: BTreeSet<String> = ["README.md", "selector.md"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    if let Some(manifest) = &side.report.manifest {
        for projection in manifest.scheduler.iter().chain(&manifest.agents) {
            paths.insert(format!("agents/{}/system.md", projection.owner));
            if let Some(prompt) = &projection.prompt {
                paths.insert(prompt.value.clone());
            }
        }
    }
    for skill in &side.report.resources.skills {
        paths.insert(skill.skill_md.clone());
        let folder = skill
            .skill_md
            .rsplit_once('/')
            .map_or("", |(folder, _)| folder);
        for record in side.files {
            let inside = ["references/", "examples/"]
                .iter()
                .any(|sub| record.path.starts_with(&format!("{folder}/{sub}")));
            if inside && is_utf8(&side.root.join(&record.path)) {
                paths.insert(record.path.clone());
            }
        }
    }
    paths
}

/// Whether a file of a private copy is UTF-8 text (what the reference lets an evolution edit).
fn is_utf8(path: &Path) -> bool {
    crate::fs::read(path).is_ok_and(|bytes| std::str::from_utf8(&bytes).is_ok())
}

type Files = (
    Vec<String>,
    Vec<String>,
    Vec<FrozenFile>,
    Vec<FrozenFile>,
    Vec<String>,
);

/// The mutable paths, the mutable ones that changed, every frozen file with both SHA-256s, the
/// frozen ones that changed, and every changed path.
fn files(old: &Side<'_>, new: &Side<'_>) -> Files {
    let mut mutable = mutable_closure(old);
    mutable.extend(mutable_closure(new));
    let sha = |side: &Side<'_>| -> BTreeMap<String, Sha256Digest> {
        side.files
            .iter()
            .map(|record| (record.path.clone(), record.sha256))
            .collect()
    };
    let (before, after) = (sha(old), sha(new));
    let paths: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    let mut changed = Vec::new();
    let mut mutable_changed = Vec::new();
    let mut frozen_files = Vec::new();
    let mut frozen_changed = Vec::new();
    for path in paths {
        let (b, a) = (before.get(path), after.get(path));
        let differs = b != a;
        if differs {
            changed.push(path.clone());
        }
        if mutable.contains(path) {
            if differs {
                mutable_changed.push(path.clone());
            }
            continue;
        }
        if path == crate::manifest::MANIFEST_FILE {
            continue;
        }
        let file = FrozenFile {
            path: path.clone(),
            parent_sha256: b.map(|digest| digest.hex()),
            candidate_sha256: a.map(|digest| digest.hex()),
        };
        if differs {
            frozen_changed.push(file.clone());
        }
        frozen_files.push(file);
    }
    let present = |path: &String| before.contains_key(path) || after.contains_key(path);
    let mutable_paths = mutable.into_iter().filter(present).collect();
    (
        mutable_paths,
        mutable_changed,
        frozen_files,
        frozen_changed,
        changed,
    )
}

/// SHA-256 of the canonical JSON (keys sorted, no spaces) of the record's core, as the
/// reference computes `diff_sha256`.
fn record_sha256(
    parent: &str,
    candidate: &str,
    changed: &[String],
    frozen: &[FrozenFile],
) -> String {
    let frozen: Vec<serde_json::Value> = frozen
        .iter()
        .map(|file| {
            serde_json::json!({
                "candidate_sha256": file.candidate_sha256,
                "parent_sha256": file.parent_sha256,
                "path": file.path,
            })
        })
        .collect();
    let core = serde_json::json!({
        "candidate_digest": candidate,
        "changed_paths": changed,
        "frozen_files": frozen,
        "parent_digest": parent,
    });
    Sha256Digest::of(canonical(&core).as_bytes()).hex()
}

/// JSON with object keys in code-point order and no whitespace.
fn canonical(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let members: Vec<String> = keys
                .into_iter()
                .map(|key| {
                    format!(
                        "{}:{}",
                        serde_json::Value::String(key.clone()),
                        canonical(&map[key])
                    )
                })
                .collect();
            format!("{{{}}}", members.join(","))
        }
        serde_json::Value::Array(items) => {
            format!(
                "[{}]",
                items.iter().map(canonical).collect::<Vec<_>>().join(",")
            )
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_and_drops_spaces() {
        let value = serde_json::json!({"b": [1, {"d": null, "c": "x"}], "a": true});
        assert_eq!(
            canonical(&value),
            r#"{"a":true,"b":[1,{"c":"x","d":null}]}"#
        );
    }
}
