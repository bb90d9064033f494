//! A validated squad package, seen as the neighbouring formats need it: ids, labels,
//! descriptions, agents and workflows, in manifest order.

use std::path::Path;

use serde_json::Value;

use super::document::{Document, display_pointer};
use crate::diag::{Code, Diagnostic};
use crate::manifest::MANIFEST_FILE;
use crate::package::{self, Report, ValidateError};

#[derive(Debug, Clone)]
pub struct Squad {
    pub namespace: String,
    pub id: String,
    pub version: String,
    pub label: String,
    pub description: Option<String>,
    /// `capability_projection.agents`, in manifest order.
    pub agents: Vec<Agent>,
    /// `capability_projection.virtual_workflows`, in manifest order.
    pub workflows: Vec<Workflow>,
    /// expert-squad.jsonc as parsed for this model, to place findings about the squad in it.
    /// `None` for a squad made from a bare value.
    pub manifest: Option<Document>,
}

#[derive(Debug, Clone)]
pub struct Agent {
    pub id: String,
    pub label: String,
    pub description: Option<String>,
    pub base_role: String,
}

#[derive(Debug, Clone)]
pub struct Workflow {
    pub id: String,
    pub label: String,
    pub description: Option<String>,
    /// In manifest order.
    pub nodes: Vec<Node>,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub id: String,
    pub agent_id: String,
    pub description: Option<String>,
    pub depends_on: Vec<String>,
}

/// Why a squad could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The folder could not be read.
    #[error(transparent)]
    Io(ValidateError),
    /// The package has errors; the report says which.
    #[error("package `{}` is invalid; run `squad validate {}`", .0.root.display(), .0.root.display())]
    Invalid(Box<Report>),
}

impl Squad {
    /// Validates the package at `root` and reads its model. An invalid package is refused.
    pub fn load(root: &Path) -> Result<(Squad, Report), LoadError> {
        let report = package::validate(root).map_err(LoadError::Io)?;
        if !report.is_valid() {
            return Err(LoadError::Invalid(Box::new(report)));
        }
        let Some(squad) = report
            .sources
            .get(MANIFEST_FILE)
            .and_then(|source| Document::parse(source.text.clone()).ok())
            .and_then(Squad::from_document)
        else {
            return Err(LoadError::Invalid(Box::new(report)));
        };
        Ok((squad, report))
    }

    /// The model of a parsed manifest that passed validation, keeping the document.
    pub fn from_document(manifest: Document) -> Option<Squad> {
        let mut squad = Squad::from_value(&manifest.value)?;
        squad.manifest = Some(manifest);
        Some(squad)
    }

    /// A finding about the manifest value at `pointer`, positioned there when the manifest
    /// document is known.
    pub fn at(&self, code: Code, pointer: &str, message: impl Into<String>) -> Diagnostic {
        match &self.manifest {
            Some(manifest) => Diagnostic {
                file: MANIFEST_FILE.to_owned(),
                ..manifest.at(code, pointer, message)
            },
            None => Diagnostic::new(code, MANIFEST_FILE, message).pointer(display_pointer(pointer)),
        }
    }

    /// The model of a manifest value that passed validation.
    pub fn from_value(manifest: &Value) -> Option<Squad> {
        let text =
            |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let projection = manifest.get("capability_projection")?;
        let agents = projection
            .get("agents")?
            .as_object()?
            .iter()
            .map(|(id, agent)| Agent {
                id: id.clone(),
                label: text(agent, "label").unwrap_or_else(|| id.clone()),
                description: text(agent, "description"),
                base_role: text(agent, "base_role").unwrap_or_default(),
            })
            .collect();
        let workflows = projection
            .get("virtual_workflows")?
            .as_object()?
            .iter()
            .map(|(id, workflow)| Workflow {
                id: id.clone(),
                label: text(workflow, "label").unwrap_or_else(|| id.clone()),
                description: text(workflow, "description"),
                nodes: workflow
                    .get("nodes")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .map(|(node_id, node)| Node {
                        id: node_id.clone(),
                        agent_id: text(node, "agent_id").unwrap_or_default(),
                        description: text(node, "description"),
                        depends_on: node
                            .get("depends_on")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter_map(|item| item.as_str().map(str::to_owned))
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        Some(Squad {
            namespace: text(manifest, "namespace")?,
            id: text(manifest, "id")?,
            version: text(manifest, "version")?,
            label: text(manifest, "label")?,
            description: text(manifest, "description"),
            agents,
            workflows,
            manifest: None,
        })
    }

    pub fn agent(&self, id: &str) -> Option<&Agent> {
        self.agents.iter().find(|agent| agent.id == id)
    }

    pub fn workflow(&self, id: &str) -> Option<&Workflow> {
        self.workflows.iter().find(|workflow| workflow.id == id)
    }
}

impl Workflow {
    /// Node ids in topological order, ties broken by node id (the order handoffs and plays
    /// list nodes in). The workflow is acyclic: it passed validation.
    pub fn topological_order(&self) -> Vec<&Node> {
        let mut done: Vec<&Node> = Vec::with_capacity(self.nodes.len());
        let mut remaining: Vec<&Node> = self.nodes.iter().collect();
        remaining.sort_by(|a, b| a.id.cmp(&b.id));
        while !remaining.is_empty() {
            let Some(index) = remaining.iter().position(|node| {
                node.depends_on
                    .iter()
                    .all(|dependency| done.iter().any(|finished| &finished.id == dependency))
            }) else {
                // Unreachable for a validated workflow; keep the rest in id order.
                done.append(&mut remaining);
                break;
            };
            done.push(remaining.remove(index));
        }
        done
    }

    /// The depth of each node: 0 for roots, else 1 + the deepest dependency (longest path).
    pub fn depths(&self) -> Vec<(&Node, usize)> {
        let mut depths: Vec<(&Node, usize)> = Vec::with_capacity(self.nodes.len());
        for node in self.topological_order() {
            let depth = node
                .depends_on
                .iter()
                .filter_map(|dependency| {
                    depths
                        .iter()
                        .find(|(other, _)| &other.id == dependency)
                        .map(|(_, depth)| depth + 1)
                })
                .max()
                .unwrap_or(0);
            depths.push((node, depth));
        }
        depths
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_package_loads_with_agents_and_workflows() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("registry-fixtures/valid/release-review");
        let (squad, _) = Squad::load(&root).unwrap();
        assert_eq!(squad.id, "release-review");
        assert_eq!(squad.agents.len(), 3);
        assert!(squad.agents.iter().all(|agent| agent.description.is_some()));
        let placed = squad.at(Code::RoutesNone, "/capability_projection/agents", "x");
        assert_eq!(placed.file, MANIFEST_FILE);
        let manifest = squad.manifest.as_ref().unwrap();
        let span = placed
            .span
            .expect("findings are placed in the kept manifest");
        assert!(manifest.source.text[span].starts_with('{'));
        let workflow = &squad.workflows[0];
        let order = workflow.topological_order();
        assert_eq!(order.len(), workflow.nodes.len());
        for (index, node) in order.iter().enumerate() {
            for dependency in &node.depends_on {
                assert!(order[..index].iter().any(|done| &done.id == dependency));
            }
        }
    }
}
