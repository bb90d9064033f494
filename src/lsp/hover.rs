//! Hover text: a field's description from the JSON Schema; for a package ref, the first lines
//! of the file that declares it; for a built-in or host tool, what it can do (its capability
//! classes) and which roles may project it; for an agent, its label and description; for a
//! diagnostic under the cursor, its explain page's summary.

use std::fmt::Write as _;

use super::cursor::{self, At};
use super::model::{Occurrence, occurrence_at};
use super::navigate::View;
use super::schema;
use super::workspace::Workspace;
use crate::capability::classes;
use crate::manifest::ResourceKind;
use crate::tables::{self, Role};

/// How many lines of a file a hover shows.
const PREVIEW_LINES: usize = 12;

/// What a diagnostic under the cursor says, with its explain summary.
pub fn diagnostic(code: &str, message: &str) -> String {
    let mut text = format!("**{code}**: {message}");
    if let Some(summary) = crate::diag::explain::summary(code) {
        let _ = write!(
            text,
            "\n\n{summary}\n\n`squad explain {code}` has an example and its fix."
        );
    }
    text
}

/// The hover text at `offset` of a JSON document checked against `root` (a JSON Schema).
pub fn schema_field(root: &serde_json::Value, text: &str, offset: usize) -> Option<String> {
    let cursor = cursor::locate(text, offset);
    let path = match &cursor.at {
        At::Key { text, .. } => {
            let mut path = cursor.path.clone();
            path.push(text.clone());
            path
        }
        At::Value { .. } => cursor.path.clone(),
        _ => return None,
    };
    let (_, description) = schema::at(root, &path)?;
    Some(format!("`{}`: {}", path.last()?, description?))
}

/// The hover text at `offset` of the manifest.
pub fn manifest(view: &View, workspace: &Workspace, offset: usize) -> Option<String> {
    if let Some(occurrence) = occurrence_at(view.manifest, offset) {
        if let Some(text) = occurrence_text(view, workspace, occurrence) {
            return Some(text);
        }
    }
    schema_field(
        &crate::manifest::schema::json_schema(),
        view.manifest_text,
        offset,
    )
}

fn occurrence_text(view: &View, workspace: &Workspace, occurrence: Occurrence) -> Option<String> {
    match occurrence {
        Occurrence::NodeAgent(item) => {
            let agent = view.manifest.agent(&item.value)?;
            Some(agent_text(agent))
        }
        Occurrence::AgentKey(agent) => Some(agent_text(agent)),
        Occurrence::BaseRole(projection, item) => {
            let role = if projection.is_scheduler {
                Role::Scheduler
            } else if tables::RUNTIME_TEMPLATE_IDS.contains(&item.value.as_str()) {
                Role::Worker(&item.value)
            } else {
                return None;
            };
            let projectable = tables::projectable_list(role);
            let inherited = tables::inherited(role);
            Some(format!(
                "base role `{}`: may project {} built-in tools ({}); `inherit_base_tools: true` adds {} of them",
                item.value,
                projectable.len(),
                projectable
                    .iter()
                    .map(|tool| format!("`{tool}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                inherited.len()
            ))
        }
        Occurrence::Reference(projection, ResourceKind::BuiltInTool, item) => {
            let classes = classes::of_built_in(&item.value);
            let mut text = format!("built-in tool `{}`: {}", item.value, classes_text(classes));
            let role = if projection.is_scheduler {
                Some(Role::Scheduler)
            } else {
                projection
                    .base_role
                    .as_ref()
                    .map(|role| role.value.as_str())
                    .filter(|role| tables::RUNTIME_TEMPLATE_IDS.contains(role))
                    .map(Role::Worker)
            };
            if let Some(role) = role {
                let may = tables::projectable_built_in(role, &item.value);
                let _ = write!(
                    text,
                    "\n\n{} {} project it.",
                    match role {
                        Role::Scheduler => "The orchestrator".to_owned(),
                        Role::Worker(role) => format!("Base role `{role}`"),
                    },
                    if may { "may" } else { "may not" }
                );
            }
            let roles: Vec<String> = tables::RUNTIME_TEMPLATE_IDS
                .iter()
                .filter(|role| tables::projectable_built_in(Role::Worker(role), &item.value))
                .map(|role| format!("`{role}`"))
                .collect();
            if !roles.is_empty() {
                let _ = write!(text, " Roles that may: {}.", roles.join(", "));
            }
            Some(text)
        }
        Occurrence::Reference(_, ResourceKind::DefaultTool, item) => {
            let name = item.value.strip_prefix("default/tool/")?;
            let role = tables::default_host_tool_role(name)?;
            Some(format!(
                "default host tool `{name}`: {}\n\nOnly base role `{role}` may project it.",
                classes_text(classes::of_host_tool(name))
            ))
        }
        Occurrence::Reference(_, kind, item) => {
            let declared = view.discovered?.declared(kind);
            let target = declared.iter().find(|d| d.reference == item.value)?;
            let preview = workspace
                .text_of(view.root, target.file)
                .map(|text| {
                    text.lines()
                        .take(PREVIEW_LINES)
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            let fence = if target.file.ends_with(".md") {
                "markdown"
            } else if target.file.ends_with(".ts") || target.file.ends_with(".js") {
                "typescript"
            } else {
                "jsonc"
            };
            Some(format!("`{}`\n\n```{fence}\n{preview}\n```", target.file))
        }
        Occurrence::Prompt(item) => {
            let preview = workspace.text_of(view.root, &item.value)?;
            Some(format!(
                "`{}`\n\n```markdown\n{}\n```",
                item.value,
                preview
                    .lines()
                    .take(PREVIEW_LINES)
                    .collect::<Vec<_>>()
                    .join("\n")
            ))
        }
        Occurrence::NodeKey(workflow, node) => Some(format!(
            "node `{}` of workflow `{}`{}",
            node.id,
            workflow.id,
            node.agent_id
                .as_ref()
                .map(|agent| format!(", run by agent `{}`", agent.value))
                .unwrap_or_default()
        )),
        Occurrence::Dependency(workflow, item) => {
            let node = workflow.nodes.iter().find(|node| node.id == item.value)?;
            Some(format!(
                "node `{}` of workflow `{}`{}",
                node.id,
                workflow.id,
                node.description
                    .as_ref()
                    .map(|description| format!(": {}", description.value))
                    .unwrap_or_default()
            ))
        }
    }
}

fn agent_text(agent: &crate::manifest::Projection) -> String {
    let mut text = format!("agent `{}`", agent.owner);
    if let Some(label) = &agent.label {
        let _ = write!(text, ": **{}**", label.value);
    }
    if let Some(role) = &agent.base_role {
        let _ = write!(text, " (base role `{}`)", role.value);
    }
    if let Some(description) = &agent.description {
        let _ = write!(text, "\n\n{}", description.value);
    }
    text
}

fn classes_text(list: &[classes::Class]) -> String {
    if list.is_empty() {
        return "in no capability class: it reads, plans, searches or talks, and changes nothing outside the conversation".to_owned();
    }
    list.iter()
        .map(|class| format!("{} ({})", class.name(), class.meaning()))
        .collect::<Vec<_>>()
        .join(", ")
}
