//! Completion in the manifest and in MCP declarations: field names and fixed values from the
//! JSON Schemas of `squad schema`; agent ids in workflow nodes; node ids in `depends_on`;
//! package refs from the files that exist, as the projection may use them; built-in tools and
//! default host tools from the role tables, for the projection's base role.

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, MarkupContent,
    MarkupKind, TextEdit,
};
use serde_json::Value;

use super::cursor::{self, At, Cursor};
use super::navigate::View;
use super::position::LineIndex;
use super::schema;
use crate::manifest::checker::json_string;
use crate::manifest::{Manifest, PRODUCT_PILLARS, Projection, ResourceKind};
use crate::package::Owner;
use crate::tables::{self, Role};

/// A candidate before it is placed in the text.
struct Candidate {
    label: String,
    /// What is written: a JSON literal.
    literal: String,
    kind: CompletionItemKind,
    detail: Option<String>,
    documentation: Option<String>,
}

/// The completions at `offset` of a manifest's `text`.
pub fn manifest(
    view: Option<&View>,
    text: &str,
    offset: usize,
    index: &LineIndex,
) -> Vec<CompletionItem> {
    let cursor = cursor::locate(text, offset);
    let root = crate::manifest::schema::json_schema();
    let mut candidates = match &cursor.at {
        At::Key { .. } | At::KeySlot => fields(&root, &cursor),
        At::Value { .. } | At::ValueSlot => {
            let special = view.map(|view| values_from_package(view, &cursor.path));
            match special {
                Some(Some(candidates)) => candidates,
                _ => fixed_values(&root, &cursor.path),
            }
        }
        At::Other => Vec::new(),
    };
    candidates.truncate(super::MAX_RESULTS);
    place(candidates, &cursor, text, offset, index)
}

/// The completions at `offset` of an MCP server declaration.
pub fn mcp(text: &str, offset: usize, index: &LineIndex) -> Vec<CompletionItem> {
    let cursor = cursor::locate(text, offset);
    let root = crate::manifest::schema::mcp_schema();
    let candidates = match &cursor.at {
        At::Key { .. } | At::KeySlot => fields(&root, &cursor),
        At::Value { .. } | At::ValueSlot => fixed_values(&root, &cursor.path),
        At::Other => Vec::new(),
    };
    place(candidates, &cursor, text, offset, index)
}

fn first_sentence(text: &str) -> String {
    match text.find(". ") {
        Some(end) => text[..=end].to_owned(),
        None => text.to_owned(),
    }
}

/// The fields the object at the cursor may have and does not have yet.
fn fields(root: &Value, cursor: &Cursor) -> Vec<Candidate> {
    let Some((object, _)) = schema::at(root, &cursor.path) else {
        return Vec::new();
    };
    let typing = match &cursor.at {
        At::Key { text, .. } => Some(text.as_str()),
        _ => None,
    };
    schema::fields(root, object)
        .into_iter()
        .filter(|(key, _)| {
            !cursor
                .siblings
                .iter()
                .any(|sibling| sibling == key && Some(key.as_str()) != typing)
        })
        .map(|(key, description)| Candidate {
            literal: json_string(&key),
            detail: Some(if schema::is_required(object, &key) {
                "required".to_owned()
            } else {
                "optional".to_owned()
            }),
            documentation: (!description.is_empty()).then(|| description.clone()),
            label: key,
            kind: CompletionItemKind::PROPERTY,
        })
        .collect()
}

/// The values the schema lists for the value at `path`.
fn fixed_values(root: &Value, path: &[String]) -> Vec<Candidate> {
    if path.len() == 2 && path[0] == "product_pillars" {
        return PRODUCT_PILLARS
            .iter()
            .map(|pillar| value_candidate(pillar, CompletionItemKind::ENUM_MEMBER, None))
            .collect();
    }
    let Some((value_schema, description)) = schema::at(root, path) else {
        return Vec::new();
    };
    schema::values(value_schema)
        .into_iter()
        .filter(|value| !value.is_array() && !value.is_object())
        .map(|value| Candidate {
            label: match &value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            },
            literal: value.to_string(),
            kind: CompletionItemKind::ENUM_MEMBER,
            detail: None,
            documentation: description.map(str::to_owned),
        })
        .collect()
}

fn value_candidate(value: &str, kind: CompletionItemKind, detail: Option<String>) -> Candidate {
    Candidate {
        label: value.to_owned(),
        literal: json_string(value),
        kind,
        detail,
        documentation: None,
    }
}

/// The projection a path inside `capability_projection` is in.
fn projection_at<'a>(manifest: &'a Manifest, path: &[String]) -> Option<&'a Projection> {
    match path.get(1).map(String::as_str) {
        Some("scheduler") => manifest.scheduler.as_ref(),
        Some("agents") => manifest.agent(path.get(2)?),
        _ => None,
    }
}

/// Values that depend on the package: `None` when the path is not one of them.
fn values_from_package(view: &View, path: &[String]) -> Option<Vec<Candidate>> {
    let steps: Vec<&str> = path.iter().map(String::as_str).collect();
    let manifest = view.manifest;
    match steps.as_slice() {
        [
            "capability_projection",
            "virtual_workflows",
            _,
            "nodes",
            _,
            "agent_id",
        ] => Some(
            manifest
                .agents
                .iter()
                .map(|agent| {
                    value_candidate(
                        &agent.owner,
                        CompletionItemKind::VALUE,
                        agent.label.as_ref().map(|label| label.value.clone()),
                    )
                })
                .collect(),
        ),
        [
            "capability_projection",
            "virtual_workflows",
            workflow,
            "nodes",
            node,
            "depends_on",
            _,
        ] => Some(
            manifest
                .workflows
                .iter()
                .filter(|candidate| candidate.id == *workflow)
                .flat_map(|workflow| &workflow.nodes)
                .filter(|candidate| candidate.id != *node)
                .map(|candidate| {
                    value_candidate(
                        &candidate.id,
                        CompletionItemKind::VALUE,
                        candidate
                            .agent_id
                            .as_ref()
                            .map(|agent| format!("runs {}", agent.value)),
                    )
                })
                .collect(),
        ),
        ["capability_projection", "scheduler" | "agents", ..] => {
            let projection = projection_at(manifest, path)?;
            let field_at = if projection.is_scheduler { 2 } else { 3 };
            let field = *steps.get(field_at)?;
            if field == "prompt" && steps.len() == field_at + 1 {
                return Some(vec![value_candidate(
                    &format!("agents/{}/system.md", projection.owner),
                    CompletionItemKind::FILE,
                    None,
                )]);
            }
            if steps.len() != field_at + 2 {
                return None;
            }
            let kind = ResourceKind::ALL
                .into_iter()
                .find(|kind| kind.field() == field)?;
            Some(resource_values(view, projection, kind))
        }
        _ => None,
    }
}

fn role_of(projection: &Projection) -> Option<Role<'_>> {
    if projection.is_scheduler {
        return Some(Role::Scheduler);
    }
    projection
        .base_role
        .as_ref()
        .map(|role| role.value.as_str())
        .filter(|role| tables::RUNTIME_TEMPLATE_IDS.contains(role))
        .map(Role::Worker)
}

fn resource_values(view: &View, projection: &Projection, kind: ResourceKind) -> Vec<Candidate> {
    let listed: Vec<&str> = projection
        .refs(kind)
        .iter()
        .map(|item| item.value.as_str())
        .collect();
    let mut candidates: Vec<Candidate> = match kind {
        ResourceKind::BuiltInTool => {
            let tools = match role_of(projection) {
                Some(role) => tables::projectable_list(role),
                None => tables::CORE_TOOL_IDS.to_vec(),
            };
            tools
                .into_iter()
                .map(|tool| {
                    let classes = crate::capability::classes::of_built_in(tool);
                    let detail = if classes.is_empty() {
                        "built-in tool".to_owned()
                    } else {
                        classes
                            .iter()
                            .map(|class| class.name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    value_candidate(tool, CompletionItemKind::FUNCTION, Some(detail))
                })
                .collect()
        }
        ResourceKind::DefaultTool => {
            let role = projection
                .base_role
                .as_ref()
                .map(|role| role.value.as_str());
            tables::DEFAULT_HOST_TOOLS
                .iter()
                .filter(|(_, owner)| Some(*owner) == role)
                .map(|(tool, owner)| {
                    value_candidate(
                        &format!("default/tool/{tool}"),
                        CompletionItemKind::FUNCTION,
                        Some(format!("host tool of `{owner}`")),
                    )
                })
                .collect()
        }
        _ => view
            .discovered
            .map(|discovered| {
                discovered
                    .declared(kind)
                    .into_iter()
                    .filter(|declared| match declared.owner {
                        Owner::Shared => true,
                        Owner::Agent(agent) => *agent == projection.owner,
                    })
                    .map(|declared| {
                        value_candidate(
                            &declared.reference,
                            CompletionItemKind::FILE,
                            Some(declared.file.to_owned()),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
    };
    candidates.retain(|candidate| !listed.contains(&candidate.label.as_str()));
    candidates
}

/// The candidates as completion items that replace the literal under the cursor, or insert
/// at the cursor.
fn place(
    candidates: Vec<Candidate>,
    cursor: &Cursor,
    text: &str,
    offset: usize,
    index: &LineIndex,
) -> Vec<CompletionItem> {
    let (span, is_key_slot) = match &cursor.at {
        At::Key { span, .. } | At::Value { span, .. } => (span.clone(), false),
        At::KeySlot => (offset..offset, true),
        _ => (offset..offset, false),
    };
    let range = index.range(text, &span);
    candidates
        .into_iter()
        .enumerate()
        .map(|(order, candidate)| {
            let new_text = if is_key_slot {
                format!("{}: ", candidate.literal)
            } else {
                candidate.literal.clone()
            };
            CompletionItem {
                label: candidate.label,
                kind: Some(candidate.kind),
                detail: candidate.detail.map(|detail| first_sentence(&detail)),
                documentation: candidate.documentation.map(|text| {
                    Documentation::MarkupContent(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: text,
                    })
                }),
                sort_text: Some(format!("{order:05}")),
                filter_text: Some(candidate.literal),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, new_text))),
                ..CompletionItem::default()
            }
        })
        .collect()
}
