//! A validated squad package, seen as the neighbouring formats need it: ids, labels,
//! descriptions, agents and workflows, in manifest order.

use std::path::Path;

use super::document::Document;
use crate::diag::{Code, Diagnostic};
use crate::manifest::checker::Item;
use crate::manifest::{MANIFEST_FILE, Manifest};
use crate::package::{self, Report, ValidateError};
use crate::source::SourceFile;

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
    /// expert-squad.jsonc as parsed by validation, to place findings about the squad in it.
    pub manifest: Document,
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
        let mut report = package::validate(root).map_err(LoadError::Io)?;
        if !report.is_valid() {
            return Err(LoadError::Invalid(Box::new(report)));
        }
        let squad = match (report.manifest.take(), report.sources.get(MANIFEST_FILE)) {
            (Some(manifest), Some(source)) => Squad::from_manifest(manifest, source.clone()),
            _ => None,
        };
        match squad {
            Some(squad) => Ok((squad, report)),
            None => Err(LoadError::Invalid(Box::new(report))),
        }
    }

    /// The model of a manifest that passed validation, read from validation's own model so
    /// that the two never disagree; `source` is the manifest's text, to place findings in.
    /// `None` when the manifest lacks what every squad has (its identity and label).
    pub fn from_manifest(mut manifest: Manifest, source: SourceFile) -> Option<Squad> {
        let text = |item: &Option<Item>| item.as_ref().map(|item| item.value.clone());
        let agents = manifest
            .agents
            .iter()
            .map(|agent| Agent {
                id: agent.owner.clone(),
                label: text(&agent.label).unwrap_or_else(|| agent.owner.clone()),
                description: text(&agent.description),
                base_role: text(&agent.base_role).unwrap_or_default(),
            })
            .collect();
        let workflows = manifest
            .workflows
            .iter()
            .map(|workflow| Workflow {
                id: workflow.id.clone(),
                label: text(&workflow.label).unwrap_or_else(|| workflow.id.clone()),
                description: text(&workflow.description),
                nodes: workflow
                    .nodes
                    .iter()
                    .map(|node| Node {
                        id: node.id.clone(),
                        agent_id: text(&node.agent_id).unwrap_or_default(),
                        description: text(&node.description),
                        depends_on: node
                            .depends_on
                            .iter()
                            .map(|item| item.value.clone())
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        let document = Document::from_parsed(source, manifest.tree.take()?);
        Some(Squad {
            namespace: text(&manifest.namespace)?,
            id: text(&manifest.id)?,
            version: text(&manifest.version)?,
            label: text(&manifest.label)?,
            description: text(&manifest.description),
            agents,
            workflows,
            manifest: document,
        })
    }

    /// The model of manifest text, whatever its findings: for tests that need a squad without
    /// a package around it.
    #[cfg(test)]
    pub fn from_text(text: &str) -> Option<Squad> {
        let mut ignored = crate::diag::Diagnostics::default();
        let manifest = crate::manifest::check(text, &mut ignored)?;
        Squad::from_manifest(manifest, SourceFile::new(text.to_owned()))
    }

    /// A finding about the manifest value at `pointer`, positioned there.
    pub fn at(&self, code: Code, pointer: &str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: MANIFEST_FILE.to_owned(),
            ..self.manifest.at(code, pointer, message)
        }
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
        let manifest = &squad.manifest;
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
