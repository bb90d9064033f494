//! The places of a manifest the server navigates between: agent keys, workflow nodes, the
//! agents and nodes they name, resource refs and prompt paths, each with its span in the text.
//! Built from validation's [`Manifest`] (which keeps spans), so a ref means here exactly what
//! it means to `squad validate`.

use std::ops::Range;

use crate::manifest::checker::Item;
use crate::manifest::{Manifest, Projection, ResourceKind, Workflow, WorkflowNode};

/// Something of the manifest under the cursor.
#[derive(Debug, Clone, Copy)]
pub enum Occurrence<'a> {
    /// An agent's key in `capability_projection.agents`.
    AgentKey(&'a Projection),
    /// A node's key in its workflow.
    NodeKey(&'a Workflow, &'a WorkflowNode),
    /// A node's `agent_id`.
    NodeAgent(&'a Item),
    /// An entry of a node's `depends_on`.
    Dependency(&'a Workflow, &'a Item),
    /// An element of one of a projection's 13 resource arrays.
    Reference(&'a Projection, ResourceKind, &'a Item),
    /// A projection's `prompt`.
    Prompt(&'a Item),
    /// A projection's `base_role`.
    BaseRole(&'a Projection, &'a Item),
}

impl Occurrence<'_> {
    /// The span of the string literal (quotes included).
    pub fn span(&self) -> Range<usize> {
        match self {
            Occurrence::AgentKey(projection) => projection.span.clone(),
            Occurrence::NodeKey(_, node) => node.key_span.clone(),
            Occurrence::NodeAgent(item)
            | Occurrence::Dependency(_, item)
            | Occurrence::Reference(_, _, item)
            | Occurrence::Prompt(item)
            | Occurrence::BaseRole(_, item) => item.span.clone(),
        }
    }
}

fn contains(span: &Range<usize>, offset: usize) -> bool {
    span.start <= offset && offset <= span.end
}

/// Everything of the manifest that can be under a cursor, in no particular order.
pub fn occurrences(manifest: &Manifest) -> Vec<Occurrence<'_>> {
    let mut all = Vec::new();
    for projection in manifest.projections() {
        if !projection.is_scheduler {
            all.push(Occurrence::AgentKey(projection));
        }
        if let Some(prompt) = &projection.prompt {
            all.push(Occurrence::Prompt(prompt));
        }
        if let Some(role) = &projection.base_role {
            all.push(Occurrence::BaseRole(projection, role));
        }
        for kind in ResourceKind::ALL {
            for item in projection.refs(kind) {
                all.push(Occurrence::Reference(projection, kind, item));
            }
        }
    }
    for workflow in &manifest.workflows {
        for node in &workflow.nodes {
            all.push(Occurrence::NodeKey(workflow, node));
            if let Some(agent) = &node.agent_id {
                all.push(Occurrence::NodeAgent(agent));
            }
            for dependency in &node.depends_on {
                all.push(Occurrence::Dependency(workflow, dependency));
            }
        }
    }
    all
}

/// What is at byte `offset` of the manifest's text.
pub fn occurrence_at(manifest: &Manifest, offset: usize) -> Option<Occurrence<'_>> {
    occurrences(manifest)
        .into_iter()
        .filter(|occurrence| contains(&occurrence.span(), offset))
        .min_by_key(|occurrence| occurrence.span().len())
}

/// The span of a literal's content, without its quotes (what a rename replaces in place).
pub fn inner(span: &Range<usize>) -> Range<usize> {
    if span.len() >= 2 {
        span.start + 1..span.end - 1
    } else {
        span.clone()
    }
}
