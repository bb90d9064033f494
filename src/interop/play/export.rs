//! `squad export play`: one workflow of a squad becomes an agents.play@1 play (seed-formats
//! §1.10). The DAG is layered by longest path from the roots; each layer is a phase.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::diag::{Code, Diagnostic};
use crate::interop::squad::{Squad, Workflow};

#[derive(Debug, Clone, Default)]
pub struct ExportOptions {
    pub play_version: Option<u64>,
    pub visibility: Option<String>,
    pub author_type: Option<String>,
    pub author_id: Option<String>,
}

const MAX_SLUG: usize = 61;

/// A node of one layer: its id, its agent and its dependencies.
type LayerNode<'a> = (&'a str, &'a str, &'a [String]);

/// The play, with warnings; or every reason it cannot be written.
pub fn export(
    squad: &Squad,
    workflow: &Workflow,
    options: &ExportOptions,
) -> Result<(Value, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let pointer = |path: &str| format!("/capability_projection/{path}");
    let finding = |code: Code, at: String, message: String| squad.at(code, &at, message);
    if squad.id.chars().count() > MAX_SLUG {
        errors.push(finding(
            Code::ExportPlayId,
            "/id".into(),
            format!(
                "squad id `{}` is longer than the 61 characters of a play id",
                squad.id
            ),
        ));
    }
    if squad.label.chars().count() > 120 {
        errors.push(finding(
            Code::ExportPlayName,
            "/label".into(),
            "the squad label is longer than the 120 characters of a play name".into(),
        ));
    }
    let agents: BTreeSet<&str> = workflow
        .nodes
        .iter()
        .map(|node| node.agent_id.as_str())
        .collect();
    if agents.len() > 12 || agents.is_empty() {
        errors.push(finding(
            Code::ExportRoles,
            pointer(&format!("virtual_workflows/{}", workflow.id)),
            format!(
                "workflow `{}` uses {} agents; a play has 1 to 12 roles",
                workflow.id,
                agents.len()
            ),
        ));
    }
    let mut roles = Vec::new();
    for id in &agents {
        let Some(agent) = squad.agent(id) else {
            continue;
        };
        let at = pointer(&format!("agents/{id}"));
        if id.chars().count() > MAX_SLUG {
            errors.push(finding(
                Code::ExportRoleId,
                at.clone(),
                format!("agent id `{id}` is longer than the 61 characters of a role id"),
            ));
        }
        if agent.label.chars().count() > 80 {
            errors.push(finding(
                Code::ExportRoleName,
                format!("{at}/label"),
                format!("agent `{id}`'s label is longer than the 80 characters of a role name"),
            ));
        }
        match agent.description.as_deref() {
            Some(does) if !does.is_empty() && does.chars().count() <= 2000 => {
                roles.push(json!({"id": id, "name": agent.label, "does": does}));
            }
            Some(_) => errors.push(finding(Code::ExportDoes, format!("{at}/description"), format!("agent `{id}`'s description is longer than the 2000 characters of a role's `does`"))),
            None => errors.push(
                finding(Code::ExportDoes, at, format!("agent `{id}` has no description to become the role's `does`"))
                    .help("add a description to the agent: it is what the role does"),
            ),
        }
    }
    let depths = workflow.depths();
    let mut layers: BTreeMap<usize, Vec<LayerNode>> = BTreeMap::new();
    for (node, depth) in &depths {
        layers.entry(*depth).or_default().push((
            node.id.as_str(),
            node.agent_id.as_str(),
            node.depends_on.as_slice(),
        ));
    }
    if layers.len() > 20 {
        errors.push(finding(
            Code::ExportPhases,
            pointer(&format!("virtual_workflows/{}", workflow.id)),
            format!(
                "workflow `{}` is {} layers deep; a play has at most 20 phases",
                workflow.id,
                layers.len()
            ),
        ));
    }
    let mut phases = Vec::new();
    let mut previous: BTreeSet<&str> = BTreeSet::new();
    let mut sparse = Vec::new();
    for (depth, nodes) in &layers {
        let mut roles_in_layer: BTreeSet<&str> = BTreeSet::new();
        for (id, agent, depends_on) in nodes {
            if !roles_in_layer.insert(agent) {
                warnings.push(finding(
                    Code::ExportDupRole,
                    pointer(&format!("virtual_workflows/{}/nodes/{id}", workflow.id)),
                    format!(
                        "agent `{agent}` backs two nodes of phase-{}; the phase lists it once",
                        depth + 1
                    ),
                ));
            }
            let depends: BTreeSet<&str> = depends_on.iter().map(String::as_str).collect();
            // Sparser only: a node that also depends on earlier layers loses nothing in a phase.
            if *depth > 0 && !previous.is_subset(&depends) {
                sparse.push(*id);
            }
        }
        phases.push(json!({
            "id": format!("phase-{}", depth + 1),
            "roles": roles_in_layer.iter().collect::<Vec<_>>(),
            "parallel": nodes.len() > 1,
        }));
        previous = nodes.iter().map(|(id, _, _)| *id).collect();
    }
    if !sparse.is_empty() {
        warnings.push(finding(
            Code::ExportEdges,
            pointer(&format!("virtual_workflows/{}", workflow.id)),
            format!(
                "node{} {} do{} not depend on exactly the previous layer; the play's phases order more strictly than the workflow",
                if sparse.len() == 1 { "" } else { "s" },
                sparse.join(", "),
                if sparse.len() == 1 { "es" } else { "" }
            ),
        ));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut play = Map::new();
    play.insert("id".into(), json!(squad.id));
    play.insert("version".into(), json!(options.play_version.unwrap_or(1)));
    play.insert("name".into(), json!(squad.label));
    if let Some(summary) = squad
        .description
        .as_deref()
        .filter(|summary| !summary.is_empty() && summary.chars().count() <= 1000)
    {
        play.insert("summary".into(), json!(summary));
    }
    play.insert("roles".into(), Value::Array(roles));
    play.insert("phases".into(), Value::Array(phases));
    play.insert("stop".into(), json!({"when": "done"}));
    if let Some(visibility) = &options.visibility {
        play.insert("visibility".into(), json!(visibility));
    }
    if let (Some(kind), Some(id)) = (&options.author_type, &options.author_id) {
        play.insert("author".into(), json!({"type": kind, "id": id}));
    }
    Ok((Value::Object(play), warnings))
}
