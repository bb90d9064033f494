//! What a squad may make its agents do: its grants, the tools each agent ends up with, the
//! MCP servers it reaches and the package tools it runs, read from a validated package.
//!
//! The grants are the reference's thirteen lists of a projection node (scheduler and every
//! agent), plus `base_role` and `inherit_base_tools`, which pick a tool pool without being a
//! list (capabilities-notes §3; [`GRANT_LISTS`]). The effective tools of a node are what the
//! runtime resolves from them: the built-ins granted, the role's inherited set when
//! `inherit_base_tools` is true, the tools every projection receives (TOOL-RT), default host
//! tools, package tools and MCP tools. [`classes`] says which of those can run commands, write
//! files, reach the network, delegate or author squads.
//!
//! `squad show` prints [`Capabilities`]; `squad diff` ([`diff`]) and the project policy compare
//! two of them. Everything comes from the validation [`Report`] of the very copy that is judged
//! and installed; only [`diff`] reads that private copy, to tell UTF-8 text from other files.

pub mod accepted;
pub mod classes;
pub mod diff;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

pub use classes::Class;

use crate::manifest::{Projection, ResourceKind};
use crate::package::Report;
use crate::package::tool_parse::{DefaultExport, ImportKind, ModuleInfo};
use crate::tables::Role;

/// The thirteen grant lists, in the reference's order (capabilities-notes §3). A test holds
/// them to the projection schema's resource fields, so a new field needs a decision here.
pub const GRANT_LISTS: [ResourceKind; 13] = [
    ResourceKind::BuiltInTool,
    ResourceKind::DefaultSkill,
    ResourceKind::PackageSkill,
    ResourceKind::DefaultTool,
    ResourceKind::PackageTool,
    ResourceKind::DefaultMcpServer,
    ResourceKind::PackageMcpServer,
    ResourceKind::DefaultMcpTool,
    ResourceKind::PackageMcpTool,
    ResourceKind::DefaultMcpPrompt,
    ResourceKind::PackageMcpPrompt,
    ResourceKind::DefaultMcpResource,
    ResourceKind::PackageMcpResource,
];

/// Everything a squad may do, per node and in total.
#[derive(Debug, Clone, Serialize)]
pub struct Capabilities {
    pub namespace: String,
    pub id: String,
    pub version: String,
    pub package_digest: String,
    /// The scheduler first, then the agents by id.
    pub nodes: Vec<Node>,
    pub workflows: Vec<Workflow>,
    pub mcp_servers: Vec<McpServer>,
    pub tools: Vec<PackageTool>,
    pub total: Total,
}

/// One projection node: the scheduler or an agent.
#[derive(Debug, Clone, Serialize)]
pub struct Node {
    /// `scheduler`, or the agent's id.
    pub node: String,
    pub base_role: String,
    pub inherit_base_tools: bool,
    /// Each of the thirteen lists, by field name, sorted.
    pub grants: BTreeMap<&'static str, Vec<String>>,
    /// What the runtime resolves the grants to, by tool name.
    pub effective_tools: Vec<EffectiveTool>,
    /// The union of the effective tools' classes.
    pub classes: Vec<Class>,
    /// Whether a workflow node runs this agent (always true for the scheduler, which runs
    /// every workflow).
    pub in_a_workflow: bool,
}

/// How a node comes to have a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// Listed in `built_in_tool_ids`.
    Granted,
    /// In the base role's inherited set, with `inherit_base_tools: true`.
    Inherited,
    /// Given to every projection of the role by the runtime (TOOL-RT).
    Runtime,
    /// A default host tool (`default_tool_refs`).
    HostTool,
    /// A tool of the package (`package_tool_refs`).
    PackageTool,
    /// A tool of one of the package's MCP servers (`package_mcp_tool_refs`).
    McpTool,
    /// A tool of a host MCP server (`default_mcp_tool_refs`): the host decides what it does.
    HostMcpTool,
}

#[derive(Debug, Clone, Serialize)]
pub struct EffectiveTool {
    /// The built-in id, host tool name, package tool ref or MCP tool ref.
    pub tool: String,
    pub origin: Origin,
    pub classes: Vec<Class>,
}

/// A workflow as the order its nodes can run in: each stage's nodes depend only on earlier
/// stages.
#[derive(Debug, Clone, Serialize)]
pub struct Workflow {
    pub id: String,
    pub stages: Vec<Vec<Stage>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Stage {
    pub node: String,
    pub agent: String,
}

/// A declared MCP server. Package servers are remote (MCP-1): a URL and a transport.
#[derive(Debug, Clone, Serialize)]
pub struct McpServer {
    pub reference: String,
    pub path: String,
    pub url: Option<String>,
    pub transport: Option<String>,
    /// Header names; their values are never shown.
    pub headers: Vec<String>,
    pub credential: Option<String>,
    pub oauth: bool,
    pub tools: Vec<String>,
    pub prompts: Vec<String>,
    pub resources: Vec<String>,
    /// The nodes granted the server or any of its tools, prompts or resources.
    pub held_by: Vec<String>,
}

/// A package tool and what its code reaches.
#[derive(Debug, Clone, Serialize)]
pub struct PackageTool {
    pub reference: String,
    pub path: String,
    /// Modules the tool's closure imports from outside the package (`node:fs`, …), sorted.
    pub modules: Vec<String>,
    /// Package files in the tool's closure besides its own, sorted.
    pub closure: Vec<String>,
    /// Whether its default export is a `tool(...)` call.
    pub default_export: bool,
    pub classes: Vec<Class>,
    pub held_by: Vec<String>,
}

/// The squad as a whole: the union of each grant list over all nodes, the base roles, whether
/// any node inherits its role's tools, and every class any node has.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Total {
    pub grants: BTreeMap<&'static str, Vec<String>>,
    pub base_roles: Vec<String>,
    pub inherit_base_tools: bool,
    pub classes: Vec<Class>,
}

/// What a squad may do, in a few fields: what an index entry and a search result carry (the
/// whole of [`Capabilities`] is `squad show`'s). Read back from an index, every field is the
/// index builder's word, shown neutralised.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    /// The capability class names any node has (`runs-commands`, …), in [`Class::ALL`] order.
    pub classes: Vec<String>,
    /// Agents, the scheduler left out.
    pub agents: usize,
    pub base_roles: Vec<String>,
    pub inherit_base_tools: bool,
    pub workflows: usize,
    /// The URLs of its MCP servers.
    pub mcp_servers: Vec<String>,
    pub package_tools: usize,
}

impl Summary {
    pub fn of(capabilities: &Capabilities) -> Summary {
        Summary {
            classes: Class::ALL
                .iter()
                .filter(|class| capabilities.total.classes.contains(class))
                .map(|class| class.name().to_owned())
                .collect(),
            agents: capabilities.nodes.len().saturating_sub(1),
            base_roles: capabilities.total.base_roles.clone(),
            inherit_base_tools: capabilities.total.inherit_base_tools,
            workflows: capabilities.workflows.len(),
            mcp_servers: capabilities
                .mcp_servers
                .iter()
                .filter_map(|server| server.url.clone())
                .collect(),
            package_tools: capabilities.tools.len(),
        }
    }
}

/// The capabilities of a valid package; `None` when the report has no manifest or identity
/// (an invalid package has no capabilities worth stating).
pub fn of(report: &Report, package_digest: &str) -> Option<Capabilities> {
    let manifest = report.manifest.as_ref()?;
    let identity = report.identity.as_ref()?;
    let tools: Vec<PackageTool> = report
        .resources
        .tools
        .iter()
        .map(|tool| package_tool(&tool.reference, &tool.path, &report.modules))
        .collect();
    let tool_classes: BTreeMap<&str, &[Class]> = tools
        .iter()
        .map(|tool| (tool.reference.as_str(), tool.classes.as_slice()))
        .collect();
    // A server ref mounts every capability the server declares (PREF-0).
    let server_tools: BTreeMap<&str, &[String]> = report
        .resources
        .servers
        .iter()
        .map(|server| {
            (
                server.reference.as_str(),
                server.capabilities.tools.as_slice(),
            )
        })
        .collect();
    let in_workflows: BTreeSet<&str> = manifest
        .workflows
        .iter()
        .flat_map(|workflow| &workflow.nodes)
        .filter_map(|node| node.agent_id.as_ref().map(|agent| agent.value.as_str()))
        .collect();
    let mut projections: Vec<&Projection> = manifest.scheduler.iter().collect();
    let mut agents: Vec<&Projection> = manifest.agents.iter().collect();
    agents.sort_by(|a, b| a.owner.cmp(&b.owner));
    projections.extend(agents);
    let nodes: Vec<Node> = projections
        .into_iter()
        .map(|projection| {
            node(
                projection,
                &tool_classes,
                &server_tools,
                projection.is_scheduler || in_workflows.contains(projection.owner.as_str()),
            )
        })
        .collect();
    let mcp_servers = report
        .resources
        .servers
        .iter()
        .map(|server| McpServer {
            reference: server.reference.clone(),
            path: server.path.clone(),
            url: server.capabilities.url.clone(),
            transport: server.capabilities.transport.clone(),
            headers: server.capabilities.headers.clone(),
            credential: server.capabilities.credential.clone(),
            oauth: server.capabilities.oauth,
            tools: server.capabilities.tools.clone(),
            prompts: server.capabilities.prompts.clone(),
            resources: server.capabilities.resources.clone(),
            held_by: holders(&nodes, |list, item| {
                (list == ResourceKind::PackageMcpServer.field() && item == server.reference)
                    || item.starts_with(&format!("{}/", server.reference))
            }),
        })
        .collect();
    let tools = tools
        .into_iter()
        .map(|mut tool| {
            tool.held_by = holders(&nodes, |list, item| {
                list == ResourceKind::PackageTool.field() && item == tool.reference
            });
            tool
        })
        .collect();
    let total = total(&nodes);
    Some(Capabilities {
        namespace: identity.namespace.clone(),
        id: identity.id.clone(),
        version: identity.version.clone(),
        package_digest: package_digest.to_owned(),
        nodes,
        workflows: workflows(manifest),
        mcp_servers,
        tools,
        total,
    })
}

fn holders(nodes: &[Node], holds: impl Fn(&str, &str) -> bool) -> Vec<String> {
    nodes
        .iter()
        .filter(|node| {
            node.grants
                .iter()
                .any(|(list, items)| items.iter().any(|item| holds(list, item)))
        })
        .map(|node| node.node.clone())
        .collect()
}

fn node(
    projection: &Projection,
    package_tools: &BTreeMap<&str, &[Class]>,
    server_tools: &BTreeMap<&str, &[String]>,
    in_a_workflow: bool,
) -> Node {
    let base_role = projection
        .base_role
        .as_ref()
        .map_or_else(String::new, |role| role.value.clone());
    let inherit = projection.inherit_base_tools.unwrap_or(false);
    let grants: BTreeMap<&'static str, Vec<String>> = GRANT_LISTS
        .iter()
        .map(|kind| {
            let mut items: Vec<String> = projection
                .refs(*kind)
                .iter()
                .map(|item| item.value.clone())
                .collect();
            items.sort();
            (kind.field(), items)
        })
        .collect();
    let role = if projection.is_scheduler {
        Role::Scheduler
    } else {
        Role::Worker(&base_role)
    };
    let mut tools: BTreeMap<String, EffectiveTool> = BTreeMap::new();
    let mut add = |tool: String, origin: Origin, classes: &[Class]| {
        tools.entry(tool.clone()).or_insert_with(|| EffectiveTool {
            tool,
            origin,
            classes: classes.to_vec(),
        });
    };
    for id in &grants[ResourceKind::BuiltInTool.field()] {
        add(id.clone(), Origin::Granted, classes::of_built_in(id));
    }
    if inherit {
        for id in crate::tables::inherited(role) {
            add(id.to_owned(), Origin::Inherited, classes::of_built_in(id));
        }
    }
    for id in crate::tables::always(role) {
        add((*id).to_owned(), Origin::Runtime, classes::of_built_in(id));
    }
    for reference in &grants[ResourceKind::DefaultTool.field()] {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        add(
            name.to_owned(),
            Origin::HostTool,
            classes::of_host_tool(name),
        );
    }
    for reference in &grants[ResourceKind::PackageTool.field()] {
        let classes = package_tools
            .get(reference.as_str())
            .copied()
            .unwrap_or(&[]);
        add(reference.clone(), Origin::PackageTool, classes);
    }
    // A package's MCP servers are remote: every call of their tools leaves the machine.
    for server in &grants[ResourceKind::PackageMcpServer.field()] {
        for tool in server_tools.get(server.as_str()).copied().unwrap_or(&[]) {
            add(
                format!("{server}/tool/{tool}"),
                Origin::McpTool,
                &[Class::ReachesNetwork],
            );
        }
    }
    for reference in &grants[ResourceKind::PackageMcpTool.field()] {
        add(reference.clone(), Origin::McpTool, &[Class::ReachesNetwork]);
    }
    for reference in &grants[ResourceKind::DefaultMcpTool.field()] {
        add(reference.clone(), Origin::HostMcpTool, &[]);
    }
    let effective_tools: Vec<EffectiveTool> = tools.into_values().collect();
    let classes: BTreeSet<Class> = effective_tools
        .iter()
        .flat_map(|tool| tool.classes.iter().copied())
        .collect();
    Node {
        node: if projection.is_scheduler {
            "scheduler".to_owned()
        } else {
            projection.owner.clone()
        },
        base_role,
        inherit_base_tools: inherit,
        grants,
        effective_tools,
        classes: classes.into_iter().collect(),
        in_a_workflow,
    }
}

fn total(nodes: &[Node]) -> Total {
    let mut grants: BTreeMap<&'static str, BTreeSet<String>> = GRANT_LISTS
        .iter()
        .map(|kind| (kind.field(), BTreeSet::new()))
        .collect();
    let mut base_roles = BTreeSet::new();
    let mut classes = BTreeSet::new();
    let mut inherit = false;
    for node in nodes {
        for (list, items) in &node.grants {
            grants
                .entry(list)
                .or_default()
                .extend(items.iter().cloned());
        }
        base_roles.insert(node.base_role.clone());
        classes.extend(node.classes.iter().copied());
        inherit |= node.inherit_base_tools;
    }
    Total {
        grants: grants
            .into_iter()
            .map(|(list, items)| (list, items.into_iter().collect()))
            .collect(),
        base_roles: base_roles.into_iter().collect(),
        inherit_base_tools: inherit,
        classes: classes.into_iter().collect(),
    }
}

/// Each workflow's nodes in stages (Kahn's algorithm over `depends_on`, ids in order within a
/// stage). A valid package has no cycle; were there one, its nodes would be left out.
fn workflows(manifest: &crate::manifest::Manifest) -> Vec<Workflow> {
    manifest
        .workflows
        .iter()
        .map(|workflow| {
            let mut done: BTreeSet<&str> = BTreeSet::new();
            let mut stages = Vec::new();
            loop {
                let mut stage: Vec<Stage> = workflow
                    .nodes
                    .iter()
                    .filter(|node| !done.contains(node.id.as_str()))
                    .filter(|node| {
                        node.depends_on
                            .iter()
                            .all(|dependency| done.contains(dependency.value.as_str()))
                    })
                    .map(|node| Stage {
                        node: node.id.clone(),
                        agent: node
                            .agent_id
                            .as_ref()
                            .map_or_else(String::new, |agent| agent.value.clone()),
                    })
                    .collect();
                if stage.is_empty() {
                    break;
                }
                stage.sort_by(|a, b| a.node.cmp(&b.node));
                done.extend(
                    workflow
                        .nodes
                        .iter()
                        .filter(|node| stage.iter().any(|s| s.node == node.id))
                        .map(|node| node.id.as_str()),
                );
                stages.push(stage);
            }
            Workflow {
                id: workflow.id.clone(),
                stages,
            }
        })
        .collect()
}

/// A package tool's closure: the files its relative imports reach among the parsed modules,
/// the outside modules they import and the runtime globals they use, and the classes those
/// give it.
fn package_tool(
    reference: &str,
    path: &str,
    modules: &BTreeMap<String, ModuleInfo>,
) -> PackageTool {
    let mut closure = BTreeSet::new();
    let mut outside = BTreeSet::new();
    let mut globals = BTreeSet::new();
    let mut queue = vec![path.to_owned()];
    let mut seen = BTreeSet::new();
    while let Some(file) = queue.pop() {
        if !seen.insert(file.clone()) {
            continue;
        }
        let Some(info) = modules.get(&file) else {
            continue;
        };
        if file != path {
            closure.insert(file.clone());
        }
        globals.extend(info.reach.globals.iter().map(|use_| use_.path.as_str()));
        for import in &info.imports {
            if import.elided && import.kind == ImportKind::Import {
                continue;
            }
            if import.specifier.starts_with('.') {
                if let Some(target) = resolve(&file, &import.specifier, modules) {
                    queue.push(target);
                }
            } else {
                outside.insert(import.specifier.clone());
            }
        }
    }
    // `Bun.spawn.call(…)` uses `Bun.spawn`: each leading part of a path is looked up.
    let prefixes = |path: &'_ str| {
        let ends: Vec<usize> = path.match_indices('.').map(|(at, _)| at).collect();
        ends.into_iter()
            .map(|end| path[..end].to_owned())
            .chain([path.to_owned()])
            .collect::<Vec<_>>()
    };
    let classes: BTreeSet<Class> = outside
        .iter()
        .flat_map(|module| classes::of_module(module).iter().copied())
        .chain(globals.iter().flat_map(|path| {
            prefixes(path)
                .into_iter()
                .flat_map(|prefix| classes::of_global(&prefix).iter().copied())
        }))
        .collect();
    PackageTool {
        reference: reference.to_owned(),
        path: path.to_owned(),
        modules: outside.into_iter().collect(),
        closure: closure.into_iter().collect(),
        default_export: modules
            .get(path)
            .is_some_and(|info| info.default_export == DefaultExport::ToolCall),
        classes: classes.into_iter().collect(),
        held_by: Vec::new(),
    }
}

/// The parsed module a relative specifier of `from` names, trying the extensions the bundler
/// tries.
fn resolve(from: &str, specifier: &str, modules: &BTreeMap<String, ModuleInfo>) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for segment in specifier.split('/') {
        match segment {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    let base = parts.join("/");
    [
        "",
        ".ts",
        ".tsx",
        ".mts",
        ".cts",
        ".js",
        ".mjs",
        ".cjs",
        "/index.ts",
        "/index.js",
    ]
    .iter()
    .map(|suffix| format!("{base}{suffix}"))
    .find(|candidate| modules.contains_key(candidate))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grant lists are exactly the projection's resource fields less `inherit_base_tools`
    /// (which [`Node`] carries apart): a field added to the schema fails here until it is
    /// classified.
    #[test]
    fn the_grant_lists_are_the_projection_schemas_resource_fields() {
        let mut fields: Vec<&str> = GRANT_LISTS.iter().map(|kind| kind.field()).collect();
        fields.insert(0, "inherit_base_tools");
        let mut schema = crate::manifest::RESOURCE_KEYS.to_vec();
        fields.sort_unstable();
        schema.sort_unstable();
        assert_eq!(fields, schema);
        assert_eq!(
            GRANT_LISTS.iter().collect::<BTreeSet<_>>().len(),
            ResourceKind::ALL.len()
        );
    }
}
