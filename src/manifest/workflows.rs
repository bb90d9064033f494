//! Virtual workflows (WF, ND) and their dependency graph rules (GR-1…GR-4).
//!
//! The cycle search reproduces the reference's depth-first search (node ids in code-unit order,
//! edges in `depends_on` order) so the ids it names are the ones the reference names; it runs
//! iteratively, so a 5,000-node chain is no deeper on the stack than a 5-node one.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::checker::{Checker, Item, child_pointer, json_string, remove_element, reorder_elements};
use super::{IdKind, check_id, check_id_renamable};
use crate::diag::{Applicability, Code, Diagnostic, Edit, Suggestion};
use crate::jsonc::Node as JsonNode;
use crate::text::cmp_code_units;

pub const WORKFLOW_KEYS: [&str; 3] = ["label", "description", "nodes"];
pub const NODE_KEYS: [&str; 3] = ["agent_id", "description", "depends_on"];

#[derive(Debug, Clone)]
pub struct Workflow {
    pub id: String,
    pub key_span: Range<usize>,
    pub pointer: String,
    pub label: Option<Item>,
    pub description: Option<Item>,
    pub nodes: Vec<Node>,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub id: String,
    pub key_span: Range<usize>,
    pub pointer: String,
    pub agent_id: Option<Item>,
    pub description: Option<Item>,
    /// The valid dependency ids, first occurrences only.
    pub depends_on: Vec<Item>,
}

/// Checks `virtual_workflows` (shape, ids, canonical order) and returns the workflows.
pub fn check(checker: &mut Checker, node: &JsonNode, pointer: &str) -> Vec<Workflow> {
    let Some(record) = checker.record(node, pointer) else {
        return Vec::new();
    };
    let mut workflows = Vec::with_capacity(record.members.len());
    let workflow_ids: HashSet<&str> = record.members.iter().map(|m| m.key.as_str()).collect();
    for member in &record.members {
        let workflow_pointer = child_pointer(pointer, &member.key);
        // Nothing in a package names a workflow, so renaming its key is the whole fix.
        check_id_renamable(
            checker,
            &key_item(member, &workflow_pointer),
            IdKind::Plain,
            &|id| workflow_ids.contains(id),
            &|_| Vec::new(),
        );
        let Some(object) = checker.object(&member.value, &workflow_pointer, &WORKFLOW_KEYS) else {
            continue;
        };
        let [label, description] = ["label", "description"].map(|key| {
            checker
                .required(&object, key)
                .and_then(|value| checker.non_blank(value, &object.pointer_of(key)))
        });
        let mut workflow = Workflow {
            id: member.key.clone(),
            key_span: member.key_span.clone(),
            pointer: workflow_pointer,
            label,
            description,
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
                let node_ids: HashSet<&str> = nodes_record
                    .members
                    .iter()
                    .map(|m| m.key.as_str())
                    .collect();
                // A node is also named by the `depends_on` lists of its workflow: gathered once,
                // so a workflow of n nodes costs n, not n².
                let literals = dependency_literals(&nodes_record.members);
                for node_member in &nodes_record.members {
                    let node_pointer = child_pointer(&nodes_pointer, &node_member.key);
                    let references = literals
                        .get(node_member.key.as_str())
                        .map(Vec::as_slice)
                        .unwrap_or_default();
                    check_id_renamable(
                        checker,
                        &key_item(node_member, &node_pointer),
                        IdKind::Plain,
                        &|id| node_ids.contains(id),
                        &|new| {
                            references
                                .iter()
                                .map(|span| Edit {
                                    span: span.clone(),
                                    replacement: json_string(new),
                                })
                                .collect()
                        },
                    );
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

/// The record key of `member` as an item.
fn key_item(member: &crate::jsonc::Member, pointer: &str) -> Item {
    Item {
        value: member.key.clone(),
        span: member.key_span.clone(),
        escaped: true,
        pointer: pointer.to_owned(),
    }
}

/// The spans of the `depends_on` string literals among raw node members, by the id they name.
fn dependency_literals<'a>(
    nodes: &[&'a crate::jsonc::Member],
) -> HashMap<&'a str, Vec<Range<usize>>> {
    let mut spans: HashMap<&str, Vec<Range<usize>>> = HashMap::new();
    for node in nodes {
        let Some(depends_on) = crate::jsonc::edit::member(&node.value, "depends_on") else {
            continue;
        };
        if let crate::jsonc::Kind::Array(items) = &depends_on.value.kind {
            for item in items {
                if let Some(id) = item.as_str() {
                    spans.entry(id).or_default().push(item.span.clone());
                }
            }
        }
    }
    spans
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
    let description = checker
        .required(&object, "description")
        .and_then(|value| checker.non_blank(value, &object.pointer_of("description")));
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
        description,
        depends_on,
    })
}

/// GR-2: strictly ascending in code-unit order.
fn check_canonical_order(checker: &mut Checker, items: &[Item], pointer: &str) {
    let mut reported_order = false;
    let mut seen: HashMap<&str, &Item> = HashMap::new();
    let spans: Vec<Range<usize>> = items.iter().map(|item| item.span.clone()).collect();
    let values: Vec<&str> = items.iter().map(|item| item.value.as_str()).collect();
    let mut canonical = values.clone();
    canonical.sort_by(|a, b| cmp_code_units(a, b));
    let repeats = canonical.windows(2).any(|pair| pair[0] == pair[1]);
    for (index, item) in items.iter().enumerate() {
        if let Some(first) = seen.get(item.value.as_str()) {
            let mut diagnostic = checker
                .at(
                    Code::DuplicateEntry,
                    item.span.clone(),
                    &item.pointer,
                    format!("depends_on repeats `{}`", item.value),
                )
                .span_label("repeated here")
                .label(first.span.clone(), "first listed here");
            if let Some(edit) = remove_element(checker.text, &spans, index) {
                diagnostic = diagnostic.suggest(Suggestion {
                    message: format!("remove the repeated `{}`", item.value),
                    edits: vec![edit],
                    applicability: Applicability::MachineApplicable,
                });
            }
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
            let mut diagnostic = checker
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
            // With a repeat, its removal comes first; the order is fixed on the next pass.
            if !repeats {
                let message = diagnostic.help.last().cloned().unwrap_or_default();
                diagnostic = diagnostic.suggest(Suggestion {
                    message,
                    edits: reorder_elements(&spans, &values, &canonical),
                    applicability: Applicability::MachineApplicable,
                });
            }
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
                    let mut diagnostic = checker
                        .at(
                            Code::UnknownAgent,
                            agent.span.clone(),
                            &agent.pointer,
                            format!(
                                "node `{}` references unknown projected agent `{}`",
                                node.id, agent.value
                            ),
                        )
                        .span_label("not a key of capability_projection.agents");
                    diagnostic = match crate::text::closest(&agent.value, known.iter().copied()) {
                        Some(close) => diagnostic
                            .suggest(Suggestion::replace(
                                format!("did you mean `{close}`?"),
                                agent.span.clone(),
                                json_string(close),
                            )),
                        None if known.is_empty() => diagnostic.help(
                            "declare the agent under capability_projection.agents (`squad scaffold agent`)",
                        ),
                        None => diagnostic.help(format!("declared agents: {}", known.join(", "))),
                    };
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
                    let others = workflow
                        .nodes
                        .iter()
                        .map(|other| other.id.as_str())
                        .filter(|other| *other != node.id);
                    let close = crate::text::closest(&dependency.value, others);
                    let mut diagnostic = checker
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
                    if let Some(close) = close {
                        diagnostic = diagnostic.suggest(Suggestion::replace(
                            format!("did you mean `{close}`?"),
                            dependency.span.clone(),
                            json_string(close),
                        ));
                    }
                    checker.push(diagnostic);
                }
            }
        }
        if let Some(cycle) = find_cycle(workflow, &node_ids) {
            let diagnostic = cycle_diagnostic(checker, workflow, &cycle);
            checker.push(diagnostic);
        }
    }
}

/// The first cycle of a workflow, pointed at the `depends_on` entry that closes it (the edge
/// the search found last), with every other edge of the cycle labelled.
fn cycle_diagnostic(checker: &Checker, workflow: &Workflow, cycle: &[String]) -> Diagnostic {
    let node = |id: &str| workflow.nodes.iter().find(|node| node.id == id);
    // The entry of `from`'s depends_on that names `to`.
    let edge = |from: &str, to: &str| {
        node(from).and_then(|node| node.depends_on.iter().find(|item| item.value == to))
    };
    let shown = cycle
        .iter()
        .map(|id| format!("`{id}`"))
        .collect::<Vec<_>>()
        .join(" -> ");
    let message = format!(
        "virtual workflow `{}` contains a dependency cycle: {shown}",
        workflow.id
    );
    let last = cycle.len().saturating_sub(2);
    let closing = cycle
        .get(last)
        .zip(cycle.get(last + 1))
        .and_then(|(from, to)| edge(from, to).map(|item| (from, to, item)));
    let Some((from, to, item)) = closing else {
        return checker.at(
            Code::DependencyCycle,
            workflow.key_span.clone(),
            &workflow.pointer,
            message,
        );
    };
    let mut diagnostic = checker
        .at(
            Code::DependencyCycle,
            item.span.clone(),
            &item.pointer,
            message,
        )
        .span_label(if from == to {
            format!("`{from}` depends on itself")
        } else {
            format!("`{from}` depends on `{to}`, which closes the cycle")
        });
    for pair in cycle[..last].iter().zip(&cycle[1..=last]) {
        if let Some(item) = edge(pair.0, pair.1) {
            diagnostic = diagnostic.label(
                item.span.clone(),
                format!("`{}` depends on `{}`", pair.0, pair.1),
            );
        }
    }
    diagnostic.help("each arrow reads \"depends on\"; remove one of these dependencies, or merge two of the nodes into one")
}

/// The first cycle the reference's search meets (node ids in code-unit order, edges in
/// `depends_on` order), as node ids from its start back to its start.
fn find_cycle(workflow: &Workflow, node_ids: &HashMap<&str, usize>) -> Option<Vec<String>> {
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
                        let from = stack
                            .iter()
                            .position(|&(node, _)| node == next)
                            .unwrap_or(0);
                        let mut path: Vec<String> = stack[from..]
                            .iter()
                            .map(|&(node, _)| nodes[node].id.clone())
                            .collect();
                        path.push(nodes[next].id.clone());
                        return Some(path);
                    }
                    State::Done => {}
                }
            } else {
                state[current] = State::Done;
                stack.pop();
            }
        }
    }
    None
}
