//! B1 (§2.7): a squad's scheduler is a router and its agents are the routes. One route per
//! agent, sorted by agent id; the agent id is the exact dispatch target, so it is both the
//! route's opaque name and its agent.

use serde::Serialize;

use crate::diag::{Code, Diagnostic};
use crate::interop::document::join;
use crate::interop::squad::Squad;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Route {
    pub name: String,
    pub agent: String,
    pub description: String,
}

/// A complete router input document.
#[derive(Debug, Serialize)]
pub struct Input<'a> {
    pub request: &'a str,
    pub routes: &'a [Route],
}

/// The routes of a squad, or why it has none a router could classify: an agent without a
/// description (E-ROUTE-DESC) or no agent at all (E-ROUTE-NONE).
pub fn derive(squad: &Squad) -> Result<Vec<Route>, Vec<Diagnostic>> {
    let at = |code: Code, pointer: &str, message: String| squad.at(code, pointer, message);
    if squad.agents.is_empty() {
        return Err(vec![
            at(
                Code::RoutesNone,
                "/capability_projection/agents",
                format!(
                    "squad `{}` has no agents, and a router needs at least one route (min_routes: 1)",
                    squad.id
                ),
            )
            .help("declare an agent under capability_projection.agents"),
        ]);
    }
    let mut agents: Vec<_> = squad.agents.iter().collect();
    agents.sort_by(|a, b| a.id.cmp(&b.id));
    let mut routes = Vec::with_capacity(agents.len());
    let mut problems = Vec::new();
    for agent in agents {
        match agent.description.as_deref().filter(|d| !crate::text::js_trim(d).is_empty()) {
            Some(description) => routes.push(Route {
                name: agent.id.clone(),
                agent: agent.id.clone(),
                description: description.to_owned(),
            }),
            None => problems.push(
                at(
                    Code::RoutesDesc,
                    &join("/capability_projection/agents", &agent.id),
                    format!(
                        "agent `{}` has no description; a router classifies requests only by route descriptions",
                        agent.id
                    ),
                )
                .help("add a `description` saying what requests this agent takes"),
            ),
        }
    }
    if problems.is_empty() {
        Ok(routes)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interop::squad::Agent;

    fn squad(agents: &[(&str, Option<&str>)]) -> Squad {
        Squad {
            namespace: "n".into(),
            id: "s".into(),
            version: "2026.01.01.1".into(),
            label: "S".into(),
            description: None,
            agents: agents
                .iter()
                .map(|(id, description)| Agent {
                    id: (*id).into(),
                    label: (*id).into(),
                    description: description.map(str::to_owned),
                    base_role: "delegated-worker".into(),
                })
                .collect(),
            workflows: Vec::new(),
            manifest: crate::interop::document::Document::parse("{}".to_owned()).unwrap(),
        }
    }

    #[test]
    fn routes_are_sorted_by_agent_id() {
        let routes = derive(&squad(&[("b", Some("B")), ("a", Some("A"))])).unwrap();
        let names: Vec<_> = routes.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(routes[0].agent, "a");
        assert_eq!(routes[0].description, "A");
    }

    #[test]
    fn a_missing_description_or_no_agent_is_an_error() {
        let errors = derive(&squad(&[("a", None), ("b", Some("  "))])).unwrap_err();
        assert_eq!(errors.len(), 2);
        assert!(errors.iter().all(|d| d.code == Code::RoutesDesc));
        let errors = derive(&squad(&[])).unwrap_err();
        assert_eq!(errors[0].code, Code::RoutesNone);
    }
}
