//! Go to definition, find references and rename, over a package: from a ref to the file that
//! declares it, from a node's agent or dependency to its declaration, from a prompt path to
//! the prompt; the other way from any of them (and from a resource's own file) to every place
//! that names it; and renaming an agent (with its folder) or a workflow node everywhere the
//! manifest names it.

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use lsp_types::{
    DocumentChangeOperation, DocumentChanges, Location, OneOf,
    OptionalVersionedTextDocumentIdentifier, RenameFile, ResourceOp, TextDocumentEdit, TextEdit,
    Url, WorkspaceEdit,
};

use super::cursor;
use super::model::{Occurrence, inner, occurrence_at, occurrences};
use super::position::{Encoding, LineIndex};
use super::workspace::Workspace;
use crate::manifest::checker::json_string;
use crate::manifest::{IdKind, MANIFEST_FILE, Manifest, ResourceKind, id_problem};
use crate::package::{CapabilityKind, Discovered};

/// A package as the features see it: its folder, its manifest (parsed, with the text its spans
/// point into) and what its last check found in the files.
pub struct View<'a> {
    pub root: &'a Path,
    pub manifest_uri: Url,
    pub manifest_text: &'a str,
    pub manifest: &'a Manifest,
    /// Whether the manifest's spans are of `manifest_text` (false while the text does not parse
    /// and an older version's model stands in).
    pub current: bool,
    pub discovered: Option<&'a Discovered>,
    pub encoding: Encoding,
}

impl View<'_> {
    pub fn id(&self) -> Option<&str> {
        self.manifest.id.as_ref().map(|id| id.value.as_str())
    }

    fn manifest_location(&self, span: &Range<usize>) -> Location {
        let index = LineIndex::new(self.manifest_text, self.encoding);
        Location::new(
            self.manifest_uri.clone(),
            index.range(self.manifest_text, span),
        )
    }

    fn file_location(&self, relative: &str) -> Option<Location> {
        Some(Location::new(
            Workspace::uri_of(self.root, relative)?,
            lsp_types::Range::default(),
        ))
    }
}

/// Where the thing at `offset` of the manifest is declared.
pub fn definition(view: &View, workspace: &Workspace, offset: usize) -> Vec<Location> {
    if let Some(occurrence) = occurrence_at(view.manifest, offset) {
        let found = match occurrence {
            Occurrence::NodeAgent(item) => view
                .manifest
                .agent(&item.value)
                .map(|agent| view.manifest_location(&agent.span)),
            Occurrence::Dependency(workflow, item) => workflow
                .nodes
                .iter()
                .find(|node| node.id == item.value)
                .map(|node| view.manifest_location(&node.key_span)),
            Occurrence::Reference(_, kind, item) => {
                resource_location(view, workspace, kind, &item.value)
            }
            Occurrence::Prompt(item) => existing_file(view, workspace, &item.value),
            Occurrence::AgentKey(_) | Occurrence::NodeKey(..) | Occurrence::BaseRole(..) => None,
        };
        return found.into_iter().collect();
    }
    // The two fixed file paths of the manifest.
    let at = cursor::locate(view.manifest_text, offset);
    let file = match at
        .path
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["readme"] => "README.md",
        ["selector", "instructions"] => "selector.md",
        _ => return Vec::new(),
    };
    existing_file(view, workspace, file).into_iter().collect()
}

fn existing_file(view: &View, workspace: &Workspace, relative: &str) -> Option<Location> {
    let in_tree = view.discovered.is_some()
        && (crate::fs::symlink_metadata(view.root.join(relative)).is_ok()
            || workspace
                .documents
                .contains_key(&Workspace::uri_of(view.root, relative)?));
    if !in_tree || relative.split('/').any(|part| part == "..") {
        return None;
    }
    view.file_location(relative)
}

/// The file (and the place in it, for an MCP capability) that declares a package ref.
fn resource_location(
    view: &View,
    workspace: &Workspace,
    kind: ResourceKind,
    reference: &str,
) -> Option<Location> {
    let declared = view.discovered?.declared(kind);
    let target = declared.iter().find(|d| d.reference == reference)?;
    let mut location = view.file_location(target.file)?;
    if let Some((capability, name)) = target.capability {
        if let Some(text) = workspace.text_of(view.root, target.file) {
            if let Some(span) = capability_span(&text, capability, name) {
                location.range = LineIndex::new(&text, view.encoding).range(&text, &span);
            }
        }
    }
    Some(location)
}

/// Where an MCP declaration lists a capability's name.
fn capability_span(text: &str, kind: CapabilityKind, name: &str) -> Option<Range<usize>> {
    let root = crate::jsonc::parse(text).ok()?;
    let capabilities = crate::jsonc::edit::member(&root, "capabilities")?;
    let list = crate::jsonc::edit::member(&capabilities.value, &format!("{}s", kind.segment()))?;
    match &list.value.kind {
        crate::jsonc::Kind::Array(items) => items
            .iter()
            .find(|item| item.as_str() == Some(name))
            .map(|item| item.span.clone()),
        _ => None,
    }
}

/// Every place of the manifest that names what is at `offset` of the document `relative`
/// (the manifest, or a resource's own file), with its declaration when asked.
pub fn references(
    view: &View,
    relative: &str,
    offset: usize,
    include_declaration: bool,
) -> Vec<Location> {
    let all = occurrences(view.manifest);
    let mut spans: Vec<Range<usize>> = Vec::new();
    let mut files: Vec<String> = Vec::new();
    if relative == MANIFEST_FILE {
        let Some(occurrence) = occurrence_at(view.manifest, offset) else {
            return Vec::new();
        };
        match occurrence {
            Occurrence::AgentKey(agent) => {
                if include_declaration {
                    spans.push(agent.span.clone());
                }
                spans.extend(agent_uses(&all, &agent.owner));
            }
            Occurrence::NodeAgent(item) => {
                if include_declaration {
                    if let Some(agent) = view.manifest.agent(&item.value) {
                        spans.push(agent.span.clone());
                    }
                }
                spans.extend(agent_uses(&all, &item.value));
            }
            Occurrence::NodeKey(workflow, node) => {
                if include_declaration {
                    spans.push(node.key_span.clone());
                }
                spans.extend(dependency_uses(&all, &workflow.id, &node.id));
            }
            Occurrence::Dependency(workflow, item) => {
                if include_declaration {
                    if let Some(node) = workflow.nodes.iter().find(|node| node.id == item.value) {
                        spans.push(node.key_span.clone());
                    }
                }
                spans.extend(dependency_uses(&all, &workflow.id, &item.value));
            }
            Occurrence::Reference(_, kind, item) => {
                spans.extend(reference_uses(&all, kind, &item.value));
                if include_declaration {
                    if let Some(declared) = view.discovered.and_then(|discovered| {
                        discovered
                            .declared(kind)
                            .into_iter()
                            .find(|declared| declared.reference == item.value)
                            .map(|declared| declared.file.to_owned())
                    }) {
                        files.push(declared);
                    }
                }
            }
            Occurrence::Prompt(item) | Occurrence::BaseRole(_, item) => {
                let prompt = matches!(occurrence, Occurrence::Prompt(..));
                spans.extend(all.iter().filter_map(|other| match other {
                    Occurrence::Prompt(other) if prompt && other.value == item.value => {
                        Some(other.span.clone())
                    }
                    Occurrence::BaseRole(_, other) if !prompt && other.value == item.value => {
                        Some(other.span.clone())
                    }
                    _ => None,
                }));
            }
        }
    } else {
        // A resource's own file: every ref that resolves to it; a prompt: every projection
        // that declares it.
        if let Some(discovered) = view.discovered {
            for kind in ResourceKind::ALL {
                for declared in discovered.declared(kind) {
                    if declared.file == relative {
                        spans.extend(reference_uses(&all, kind, &declared.reference));
                    }
                }
            }
        }
        spans.extend(all.iter().filter_map(|occurrence| match occurrence {
            Occurrence::Prompt(item) if item.value == relative => Some(item.span.clone()),
            _ => None,
        }));
    }
    spans.sort_by_key(|span| (span.start, span.end));
    spans.dedup();
    spans.truncate(super::MAX_RESULTS);
    let mut locations: Vec<Location> = files
        .iter()
        .filter_map(|file| view.file_location(file))
        .collect();
    locations.extend(spans.iter().map(|span| view.manifest_location(span)));
    locations
}

fn agent_uses(all: &[Occurrence], agent: &str) -> Vec<Range<usize>> {
    all.iter()
        .filter_map(|occurrence| match occurrence {
            Occurrence::NodeAgent(item) if item.value == agent => Some(item.span.clone()),
            _ => None,
        })
        .collect()
}

fn dependency_uses(all: &[Occurrence], workflow: &str, node: &str) -> Vec<Range<usize>> {
    all.iter()
        .filter_map(|occurrence| match occurrence {
            Occurrence::Dependency(w, item) if w.id == workflow && item.value == node => {
                Some(item.span.clone())
            }
            _ => None,
        })
        .collect()
}

fn reference_uses(all: &[Occurrence], kind: ResourceKind, reference: &str) -> Vec<Range<usize>> {
    all.iter()
        .filter_map(|occurrence| match occurrence {
            Occurrence::Reference(_, other_kind, item)
                if *other_kind == kind && item.value == reference =>
            {
                Some(item.span.clone())
            }
            _ => None,
        })
        .collect()
}

/// What can be renamed at `offset`: the id's span (without quotes) and the id.
pub fn prepare_rename(view: &View, offset: usize) -> Option<(Range<usize>, String)> {
    if !view.current {
        return None;
    }
    match occurrence_at(view.manifest, offset)? {
        Occurrence::AgentKey(agent) => Some((inner(&agent.span), agent.owner.clone())),
        Occurrence::NodeAgent(item) | Occurrence::Dependency(_, item) => {
            Some((inner(&item.span), item.value.clone()))
        }
        Occurrence::NodeKey(_, node) => Some((inner(&node.key_span), node.id.clone())),
        _ => None,
    }
}

/// What a client can apply of a workspace edit.
#[derive(Debug, Clone, Copy, Default)]
pub struct EditSupport {
    /// `workspace.workspaceEdit.documentChanges`.
    pub document_changes: bool,
    /// `rename` among `workspace.workspaceEdit.resourceOperations`.
    pub rename_files: bool,
    /// `create` among them.
    pub create_files: bool,
}

/// Renames the agent or workflow node at `offset` to `new_name` everywhere the manifest names
/// it; an agent's folder `agents/<id>/` moves with it when the client can rename files.
pub fn rename(
    view: &View,
    offset: usize,
    new_name: &str,
    manifest_version: Option<i32>,
    support: EditSupport,
) -> Result<WorkspaceEdit, String> {
    if !view.current {
        return Err(format!(
            "{MANIFEST_FILE} does not parse as it is; fix its syntax before renaming"
        ));
    }
    let Some(occurrence) = occurrence_at(view.manifest, offset) else {
        return Err("only an agent id or a workflow node id can be renamed".into());
    };
    let all = occurrences(view.manifest);
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut folder: Option<(String, String)> = None;
    let agent = match occurrence {
        Occurrence::AgentKey(agent) => Some(agent.owner.clone()),
        Occurrence::NodeAgent(item) => Some(item.value.clone()),
        _ => None,
    };
    let node = match occurrence {
        Occurrence::NodeKey(workflow, node) => Some((workflow, node.id.clone())),
        Occurrence::Dependency(workflow, item) => Some((workflow, item.value.clone())),
        _ => None,
    };
    match (agent, node) {
        (Some(old), _) => {
            if let Some((_, problem)) = id_problem(new_name, IdKind::Agent) {
                return Err(format!("`{new_name}` cannot be an agent id: {problem}"));
            }
            if new_name != old && view.manifest.agent(new_name).is_some() {
                return Err(format!("an agent `{new_name}` exists already"));
            }
            let Some(agent) = view.manifest.agent(&old) else {
                return Err(format!("there is no agent `{old}` to rename"));
            };
            edits.push((agent.span.clone(), json_string(new_name)));
            for span in agent_uses(&all, &old) {
                edits.push((span, json_string(new_name)));
            }
            let old_prompt = format!("agents/{old}/system.md");
            let id = view.id().unwrap_or_default();
            let old_prefix = format!("{id}/{old}/");
            for occurrence in &all {
                match occurrence {
                    Occurrence::Prompt(item) if item.value == old_prompt => {
                        edits.push((
                            item.span.clone(),
                            json_string(&format!("agents/{new_name}/system.md")),
                        ));
                    }
                    Occurrence::Reference(_, _, item)
                        if !id.is_empty() && item.value.starts_with(&old_prefix) =>
                    {
                        let renamed =
                            format!("{id}/{new_name}/{}", &item.value[old_prefix.len()..]);
                        edits.push((item.span.clone(), json_string(&renamed)));
                    }
                    _ => {}
                }
            }
            let (from, to) = (format!("agents/{old}"), format!("agents/{new_name}"));
            if new_name != old
                && crate::fs::symlink_metadata(view.root.join(&from)).is_ok_and(|m| m.is_dir())
            {
                if crate::fs::symlink_metadata(view.root.join(&to)).is_ok() {
                    return Err(format!("`{to}/` exists already"));
                }
                folder = Some((from, to));
            }
        }
        (None, Some((workflow, old))) => {
            if let Some((_, problem)) = id_problem(new_name, IdKind::Plain) {
                return Err(format!("`{new_name}` cannot be a node id: {problem}"));
            }
            if new_name != old && workflow.nodes.iter().any(|node| node.id == new_name) {
                return Err(format!(
                    "workflow `{}` has a node `{new_name}` already",
                    workflow.id
                ));
            }
            let Some(node) = workflow.nodes.iter().find(|node| node.id == old) else {
                return Err(format!("workflow `{}` has no node `{old}`", workflow.id));
            };
            edits.push((node.key_span.clone(), json_string(new_name)));
            for span in dependency_uses(&all, &workflow.id, &old) {
                edits.push((span, json_string(new_name)));
            }
        }
        (None, None) => {
            return Err("only an agent id or a workflow node id can be renamed".into());
        }
    }
    edits.sort_by_key(|(span, _)| span.start);
    edits.dedup_by(|a, b| a.0 == b.0);
    let index = LineIndex::new(view.manifest_text, view.encoding);
    let text_edits: Vec<TextEdit> = edits
        .iter()
        .map(|(span, text)| TextEdit::new(index.range(view.manifest_text, span), text.clone()))
        .collect();
    if !support.document_changes {
        let mut changes = HashMap::new();
        changes.insert(view.manifest_uri.clone(), text_edits);
        return Ok(WorkspaceEdit::new(changes));
    }
    let mut operations = vec![DocumentChangeOperation::Edit(TextDocumentEdit {
        text_document: OptionalVersionedTextDocumentIdentifier {
            uri: view.manifest_uri.clone(),
            version: manifest_version,
        },
        edits: text_edits.into_iter().map(OneOf::Left).collect(),
    })];
    if let (Some((from, to)), true) = (folder, support.rename_files) {
        if let (Some(old_uri), Some(new_uri)) = (
            Workspace::uri_of(view.root, &from),
            Workspace::uri_of(view.root, &to),
        ) {
            operations.push(DocumentChangeOperation::Op(ResourceOp::Rename(
                RenameFile {
                    old_uri,
                    new_uri,
                    options: None,
                    annotation_id: None,
                },
            )));
        }
    }
    Ok(WorkspaceEdit {
        changes: None,
        document_changes: Some(DocumentChanges::Operations(operations)),
        change_annotations: None,
    })
}
