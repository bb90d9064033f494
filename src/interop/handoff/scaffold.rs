//! D2 (§4.5): one skeleton handoff per workflow node, in topological order (ties by node id),
//! from the Orchestrator (which dispatches every node) to the node's agent.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::ORCHESTRATOR;
use crate::interop::document::{Document, Read, join};
use crate::interop::squad::{Squad, Workflow};

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub task_start: u64,
    /// Decimal text of a number >= 0.
    pub budget_eur: Option<String>,
    pub max_tokens: Option<u64>,
    pub autonomy: Option<String>,
    pub output_format: Option<String>,
}

/// What an imported play left beside the package that a handoff can use (`play-extras.json`,
/// §1.8): budget shares per role and check bars.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// Role (= agent id) and the exact decimal text of its share.
    pub shares: Vec<(String, String)>,
    /// `(of, bar)`: the bar the work of role `of` is checked against.
    pub bars: Vec<(String, String)>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Handoff {
    pub task_id: String,
    pub from: String,
    pub to: String,
    pub goal: String,
    pub inputs: Vec<String>,
    #[serde(skip_serializing_if = "Constraints::is_empty")]
    pub constraints: Constraints,
    pub definition_of_done: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_format: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Constraints {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_eur: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autonomy: Option<String>,
}

impl Constraints {
    fn is_empty(&self) -> bool {
        self.budget_eur.is_none() && self.max_tokens.is_none() && self.autonomy.is_none()
    }
}

/// Where an import from a play puts its sidecar: `<workspace>/interop/openvibe/<squad-id>/`
/// beside the package folder (§0.2).
pub fn default_extras_path(package: &Path, squad_id: &str) -> PathBuf {
    let root = crate::fs::canonicalize(package).unwrap_or_else(|_| package.to_path_buf());
    root.parent()
        .unwrap_or(Path::new("."))
        .join("interop/openvibe")
        .join(squad_id)
        .join("play-extras.json")
}

/// Reads `play-extras.json`. Shares come from `budget.split` (the play's budget object) or a
/// `budget` that is the split itself; bars from `checks[]` `{of, bar}`. Anything else in the
/// file is ignored: it belongs to the importer.
pub fn read_extras(path: &Path) -> Result<Extras, String> {
    let document = match Document::read(path) {
        Ok(Read::Parsed(document)) => document,
        Ok(Read::Unparsed(unparsed)) => {
            return Err(format!(
                "`{}`: {}",
                path.display(),
                unparsed.diagnostic.message
            ));
        }
        Err(error) => return Err(format!("cannot read `{}`: {error}", path.display())),
    };
    let mut extras = Extras::default();
    let budget = document.value.get("budget");
    let (split, pointer) = match budget.and_then(|budget| budget.get("split")) {
        Some(split) => (Some(split), "/budget/split"),
        None => (budget, "/budget"),
    };
    if let Some(Value::Object(split)) = split {
        for key in split.keys() {
            if let Some(text) = document.number_text(&join(pointer, key)) {
                extras.shares.push((key.clone(), text.to_owned()));
            }
        }
    }
    for check in document
        .value
        .get("checks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let (Some(of), Some(bar)) = (
            check.get("of").and_then(Value::as_str),
            check.get("bar").and_then(Value::as_str),
        ) && !bar.trim().is_empty()
        {
            extras.bars.push((of.to_owned(), bar.to_owned()));
        }
    }
    Ok(extras)
}

/// The handoffs of one workflow.
pub fn scaffold(
    squad: &Squad,
    workflow: &Workflow,
    options: &Options,
    extras: Option<&Extras>,
) -> Vec<Handoff> {
    let order = workflow.topological_order();
    let task_id = |index: usize| format!("AOS-{}", u128::from(options.task_start) + index as u128);
    order
        .iter()
        .enumerate()
        .map(|(index, node)| {
            let goal = node
                .description
                .as_deref()
                .filter(|text| !text.trim().is_empty())
                .or_else(|| {
                    squad
                        .agent(&node.agent_id)
                        .and_then(|agent| agent.description.as_deref())
                        .filter(|text| !text.trim().is_empty())
                })
                .map(str::to_owned)
                .unwrap_or_else(|| {
                    format!("Complete node `{}` of workflow `{}`.", node.id, workflow.id)
                });
            let mut definition_of_done = vec![goal.clone()];
            let share = extras.and_then(|extras| {
                definition_of_done.extend(
                    extras
                        .bars
                        .iter()
                        .filter(|(of, _)| *of == node.agent_id)
                        .map(|(_, bar)| bar.clone()),
                );
                extras
                    .shares
                    .iter()
                    .find(|(role, _)| *role == node.agent_id)
                    .map(|(_, share)| share.as_str())
            });
            let inputs = node
                .depends_on
                .iter()
                .filter_map(|dependency| order.iter().position(|other| &other.id == dependency))
                .map(task_id)
                .collect();
            // Never 0 by default: a budget of 0 means "no spend allowed".
            let constraints = Constraints {
                budget_eur: share
                    .zip(options.budget_eur.as_deref())
                    .and_then(|(share, budget)| crate::interop::decimal::product(share, budget))
                    .and_then(|text| text.parse().ok()),
                max_tokens: share.zip(options.max_tokens).and_then(|(share, tokens)| {
                    crate::interop::decimal::floor_times(share, tokens)
                }),
                autonomy: options.autonomy.clone(),
            };
            Handoff {
                task_id: task_id(index),
                from: ORCHESTRATOR.to_owned(),
                to: node.agent_id.clone(),
                goal,
                inputs,
                constraints,
                definition_of_done,
                output_format: options.output_format.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interop::squad::{Agent, Node};

    fn squad() -> Squad {
        let agent = |id: &str| Agent {
            id: id.into(),
            label: id.into(),
            description: Some(format!("{id} does things")),
            base_role: "delegated-worker".into(),
        };
        let node = |id: &str, depends: &[&str], description: Option<&str>| Node {
            id: id.into(),
            agent_id: id.into(),
            description: description.map(str::to_owned),
            depends_on: depends.iter().map(|d| (*d).to_owned()).collect(),
        };
        Squad {
            namespace: "n".into(),
            id: "s".into(),
            version: "2026.01.01.1".into(),
            label: "S".into(),
            description: None,
            agents: vec![agent("c"), agent("a"), agent("b")],
            workflows: vec![Workflow {
                id: "w".into(),
                label: "W".into(),
                description: None,
                nodes: vec![
                    node("c", &["a", "b"], Some("join")),
                    node("b", &[], None),
                    node("a", &[], Some("  ")),
                ],
            }],
            manifest: crate::interop::document::Document::parse("{}".to_owned()).unwrap(),
        }
    }

    #[test]
    fn handoffs_follow_the_topological_order_and_dependencies() {
        let squad = squad();
        let handoffs = scaffold(
            &squad,
            &squad.workflows[0],
            &Options {
                task_start: 7,
                ..Options::default()
            },
            None,
        );
        let ids: Vec<_> = handoffs
            .iter()
            .map(|h| (h.task_id.as_str(), h.to.as_str()))
            .collect();
        assert_eq!(ids, [("AOS-7", "a"), ("AOS-8", "b"), ("AOS-9", "c")]);
        assert_eq!(handoffs[2].inputs, ["AOS-7", "AOS-8"]);
        assert_eq!(handoffs[0].goal, "a does things");
        assert!(
            handoffs
                .iter()
                .all(|h| h.constraints.is_empty() && h.from == ORCHESTRATOR)
        );
    }

    #[test]
    fn shares_apply_only_with_the_option() {
        let squad = squad();
        let extras = Extras {
            shares: vec![("c".into(), "0.1".into())],
            bars: vec![("c".into(), "cites every source".into())],
        };
        let options = Options {
            budget_eur: Some("30".into()),
            max_tokens: Some(1000),
            ..Options::default()
        };
        let handoffs = scaffold(&squad, &squad.workflows[0], &options, Some(&extras));
        assert_eq!(handoffs[2].constraints.budget_eur, Some(3.0));
        assert_eq!(handoffs[2].constraints.max_tokens, Some(100));
        assert_eq!(
            handoffs[2].definition_of_done,
            ["join", "cites every source"]
        );
        assert!(handoffs[0].constraints.is_empty());
        let handoffs = scaffold(
            &squad,
            &squad.workflows[0],
            &Options::default(),
            Some(&extras),
        );
        assert!(handoffs[2].constraints.is_empty());
    }
}
