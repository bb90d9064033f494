//! Virtual workflows (WF, ND) and their dependency graph rules (GR-1…GR-4).
//!
//! The cycle search reproduces the reference's depth-first search (node ids in code-unit order,
//! edges in `depends_on` order) so the ids it names are the ones the reference names; it runs
//! iteratively, so a 5,000-node chain is no deeper on the stack than a 5-node one.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::checker::{Checker, Item, child_pointer};
use super::{IdKind, check_id, check_key};
use crate::diag::Code;
use crate::jsonc::Node as JsonNode;
use crate::text::cmp_code_units;

pub const WORKFLOW_KEYS: [&str; 3] = ["label", "description", "nodes"];
pub const NODE_KEYS: [&str; 3] = ["agent_id", "description", "depends_on"];

#[derive(Debug, Clone)]
pub struct Workflow {
    pub id: String,
    pub key_span: Range<usize>,
    pub pointer: String,
    pub nodes: Vec<Node>,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub id: String,
    pub key_span: Range<usize>,
    pub pointer: String,
    pub agent_id: Option<Item>,
    /// The valid dependency ids, first occurrences only.
    pub depends_on: Vec<Item>,
}

/// Checks `virtual_workflows` (shape, ids, canonical order) and returns the workflows.
pub fn check(checker: &mut Checker, node: &JsonNode, pointer: &str) -> Vec<Workflow> {
    let Some(record) = checker.record(node, pointer) else {
        return Vec::new();
    };
    let mut workflows = Vec::with_capacity(record.members.len());
    for member in &record.members {
        let workflow_pointer = child_pointer(pointer, &member.key);
        check_key(checker, member, &workflow_pointer, IdKind::Plain);
        let Some(object) = checker.object(&member.value, &workflow_pointer, &WORKFLOW_KEYS) else {
            continue;
        };
        for key in ["label", "description"] {
            if let Some(value) = checker.required(&object, key) {
                checker.non_blank(value, &object.pointer_of(key));
            }
        }
        let mut workflow = Workflow {
            id: member.key.clone(),
            key_span: member.key_span.clone(),
            pointer: workflow_pointer,
            nodes: Vec::new(),
        };
        if let Some(nodes) = checker.required(&object, "nodes") {
            let nodes_pointer = object.pointer_of("nodes");
            if let Some(nodes_record) = checker.record(nodes, &nodes_pointer) {
                if nodes_record.members.is_empty() {
                    let diagnostic = checker
                        .at(Code::EmptyList, nodes.span.clone(), &nodes_pointer, "virtual workflow requires at least one node")
                        .help("add a node, or remove the workflow (`virtual_workflows: {}` means direct dispatch)");
                    checker.push(diagnostic);
                }
                for node_member in &nodes_record.members {
                    let node_pointer = child_pointer(&nodes_pointer, &node_member.key);
                    check_key(checker, node_member, &node_pointer, IdKind::Plain);
                    if let Some(node) = check_node(checker, node_member, node_pointer) {
                        workflow.nodes.push(node);
                    }
                }
            }
        }
        workflows.push(workflow);
    }
    workflows
}

fn check_node(
    checker: &mut Checker,
    member: &crate::jsonc::Member,
    pointer: String,
) -> Option<Node> {
    let object = checker.object(&member.value, &pointer, &NODE_KEYS)?;
    let agent_id = checker
        .required(&object, "agent_id")
        .and_then(|value| checker.item(value, &object.pointer_of("agent_id")))
        .filter(|item| check_id(checker, item, IdKind::Agent));
    if let Some(value) = checker.required(&object, "description") {
        checker.non_blank(value, &object.pointer_of("description"));
    }
    let mut depends_on: Vec<Item> = Vec::new();
    if let Some(value) = checker.required(&object, "depends_on") {
        let list_pointer = object.pointer_of("depends_on");
        if let Some(elements) = checker.array(value, &list_pointer) {
            let mut all_valid = true;
            let mut items = Vec::with_capacity(elements.len());
            for (index, element) in elements.iter().enumerate() {
                let element_pointer = child_pointer(&list_pointer, &index.to_string());
                match checker.item(element, &element_pointer) {
                    Some(item) if check_id(checker, &item, IdKind::Plain) => items.push(item),
                    _ => all_valid = false,
                }
            }
            if all_valid {
                check_canonical_order(checker, &items, &list_pointer);
            }
            let mut seen = HashSet::new();
            depends_on = items
                .into_iter()
                .filter(|item| seen.insert(item.value.clone()))
                .collect();
        }
    }
    Some(Node {
        id: member.key.clone(),
        key_span: member.key_span.clone(),
        pointer,
        agent_id,
        depends_on,
    })
}

/// GR-2: strictly ascending in code-unit order.
fn check_canonical_order(checker: &mut Checker, items: &[Item], pointer: &str) {
    let mut reported_order = false;
    let mut seen: HashMap<&str, &Item> = HashMap::new();
    for (index, item) in items.iter().enumerate() {
        if let Some(first) = seen.get(item.value.as_str()) {
            let diagnostic = checker
                .at(
                    Code::DuplicateEntry,
                    item.span.clone(),
                    &item.pointer,
                    format!("depends_on repeats `{}`", item.value),
                )
                .span_label("repeated here")
                .label(first.span.clone(), "first listed here");
            checker.push(diagnostic);
        } else {
            seen.insert(&item.value, item);
        }
        if index > 0
            && !reported_order
            && cmp_code_units(&items[index - 1].value, &item.value).is_ge()
        {
            reported_order = true;
            let mut sorted: Vec<&str> = items.iter().map(|item| item.value.as_str()).collect();
            sorted.sort_by(|a, b| cmp_code_units(a, b));
            sorted.dedup();
            let diagnostic = checker
                .at(
                    Code::UnsortedList,
                    item.span.clone(),
                    pointer,
                    "depends_on must be canonically sorted",
                )
                .span_label(format!(
                    "`{}` must come before `{}`",
                    item.value,
                    items[index - 1].value
                ))
                .help(format!(
                    "write it as [{}]",
                    sorted
                        .iter()
                        .map(|id| format!("\"{id}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            checker.push(diagnostic);
        }
    }
}

/// GR-1, GR-3 and GR-4 for every workflow. `agents` is `None` when the agent record itself was
/// invalid, in which case node → agent references cannot be judged.
pub fn check_graph(checker: &mut Checker, workflows: &[Workflow], agents: Option<&HashSet<&str>>) {
    for workflow in workflows {
        let node_ids: HashMap<&str, usize> = workflow
            .nodes
            .iter()
            .enumerate()
            .map(|(index, node)| (node.id.as_str(), index))
            .collect();
        for node in &workflow.nodes {
            if let (Some(agent), Some(agents)) = (&node.agent_id, agents) {
                if !agents.contains(agent.value.as_str()) {
                    let mut known: Vec<&str> = agents.iter().copied().collect();
                    known.sort_unstable();
                    let diagnostic = checker
                        .at(
                            Code::UnknownAgent,
                            agent.span.clone(),
                            &agent.pointer,
                            format!(
                                "node `{}` references unknown projected agent `{}`",
                                node.id, agent.value
                            ),
                        )
                        .span_label("not a key of capability_projection.agents")
                        .help(if known.is_empty() {
                            "declare the agent under capability_projection.agents".to_owned()
                        } else {
                            format!("declared agents: {}", known.join(", "))
                        });
                    checker.push(diagnostic);
                }
            }
            for dependency in &node.depends_on {
                if dependency.value == node.id {
                    let diagnostic = checker.at(
                        Code::SelfDependency,
                        dependency.span.clone(),
                        &dependency.pointer,
                        format!("node `{}` cannot depend on itself", node.id),
                    );
                    checker.push(diagnostic);
                } else if !node_ids.contains_key(dependency.value.as_str()) {
                    let diagnostic = checker
                        .at(
                            Code::UnknownDependency,
                            dependency.span.clone(),
                            &dependency.pointer,
                            format!(
                                "node `{}` references unknown dependency `{}`",
                                node.id, dependency.value
                            ),
                        )
                        .span_label(format!(
                            "no node `{}` in workflow `{}`",
                            dependency.value, workflow.id
                        ))
                        .help("depends_on names nodes of the same workflow");
                    checker.push(diagnostic);
                }
            }
        }
        if let Some(cycle) = find_cycles(workflow, &node_ids) {
            let diagnostic = checker
                .at(
                    Code::DependencyCycle,
                    workflow.key_span.clone(),
                    &workflow.pointer,
                    format!(
                        "virtual workflow `{}` contains a dependency cycle involving {}",
                        workflow.id,
                        cycle.involving.join(", ")
                    ),
                )
                .help(format!("cycle: {}", cycle.path.join(" -> ")));
            checker.push(diagnostic);
        }
    }
}

struct Cycles {
    /// Nodes at which the search met a back edge, in code-unit order (the reference's message).
    involving: Vec<String>,
    /// The first cycle found, as node ids from its start back to its start.
    path: Vec<String>,
}

fn find_cycles(workflow: &Workflow, node_ids: &HashMap<&str, usize>) -> Option<Cycles> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Visiting,
        Done,
    }
    let nodes = &workflow.nodes;
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by(|&a, &b| cmp_code_units(&nodes[a].id, &nodes[b].id));
    let edges: Vec<Vec<usize>> = nodes
        .iter()
        .map(|node| {
            node.depends_on
                .iter()
                .filter_map(|dependency| node_ids.get(dependency.value.as_str()).copied())
                .collect()
        })
        .collect();
    let mut state = vec![State::New; nodes.len()];
    let mut involving: Vec<usize> = Vec::new();
    let mut first_path: Option<Vec<usize>> = None;
    // Explicit DFS stack of (node, next edge index).
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for &start in &order {
        if state[start] != State::New {
            continue;
        }
        state[start] = State::Visiting;
        stack.push((start, 0));
        while let Some((current, edge)) = stack.last_mut() {
            let current = *current;
            if let Some(&next) = edges[current].get(*edge) {
                *edge += 1;
                match state[next] {
                    State::New => {
                        state[next] = State::Visiting;
                        stack.push((next, 0));
                    }
                    State::Visiting => {
                        involving.push(next);
                        if first_path.is_none() {
                            let from = stack
                                .iter()
                                .position(|&(node, _)| node == next)
                                .unwrap_or(0);
                            let mut path: Vec<usize> =
                                stack[from..].iter().map(|&(node, _)| node).collect();
                            path.push(next);
                            first_path = Some(path);
                        }
                    }
                    State::Done => {}
                }
            } else {
                state[current] = State::Done;
                stack.pop();
            }
        }
    }
    let path = first_path?;
    let mut involving: Vec<String> = involving
        .into_iter()
        .map(|index| nodes[index].id.clone())
        .collect();
    involving.sort_by(|a, b| cmp_code_units(a, b));
    involving.dedup();
    Some(Cycles {
        involving,
        path: path
            .into_iter()
            .map(|index| nodes[index].id.clone())
            .collect(),
    })
}
