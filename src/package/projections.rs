//! What each projection references (TOOL-1/2, DREF, PREF-0…PREF-4) and whether every
//! discovered resource is projected (PROJ-1, PROJ-2), plus the skill-name clash the runtime
//! would refuse (SKL-5, a warning).

use std::collections::{HashMap, HashSet};

use super::resources::{CapabilityKind, Discovered};
use super::{Context, Owner};
use crate::diag::{Code, Diagnostic, Suggestion};
use crate::manifest::checker::Item;
use crate::manifest::checker::json_string;
use crate::manifest::{MANIFEST_FILE, Manifest, Projection, ResourceKind};
use crate::tables::{self, Role};
use crate::text::js_trim;

/// A resource a package ref can name.
struct Target<'a> {
    owner: &'a Owner,
    file: &'a str,
    /// For a typed MCP ref: the server's ref. For a server: itself.
    server: Option<&'a str>,
    /// False for capabilities of a server whose declaration is invalid (not judged).
    known: bool,
}

struct Index<'a> {
    by_kind: HashMap<ResourceKind, HashMap<String, Target<'a>>>,
    /// Servers whose declarations are invalid: typed refs under them are not judged.
    invalid_servers: HashSet<&'a str>,
}

impl<'a> Index<'a> {
    fn new(discovered: &'a Discovered) -> Self {
        let mut by_kind: HashMap<ResourceKind, HashMap<String, Target<'a>>> = HashMap::new();
        let mut insert = |kind, reference: String, target| {
            by_kind.entry(kind).or_default().insert(reference, target);
        };
        for skill in &discovered.skills {
            insert(
                ResourceKind::PackageSkill,
                skill.reference.clone(),
                Target {
                    owner: &skill.owner,
                    file: &skill.skill_md,
                    server: None,
                    known: true,
                },
            );
        }
        for tool in &discovered.tools {
            insert(
                ResourceKind::PackageTool,
                tool.reference.clone(),
                Target {
                    owner: &tool.owner,
                    file: &tool.path,
                    server: None,
                    known: true,
                },
            );
        }
        let mut invalid_servers = HashSet::new();
        for server in &discovered.servers {
            insert(
                ResourceKind::PackageMcpServer,
                server.reference.clone(),
                Target {
                    owner: &server.owner,
                    file: &server.path,
                    server: Some(&server.reference),
                    known: true,
                },
            );
            if !server.valid {
                invalid_servers.insert(server.reference.as_str());
            }
            for kind in CapabilityKind::ALL {
                for name in server.capabilities(kind) {
                    insert(
                        typed_kind(kind),
                        format!("{}/{}/{name}", server.reference, kind.segment()),
                        Target {
                            owner: &server.owner,
                            file: &server.path,
                            server: Some(&server.reference),
                            known: server.valid,
                        },
                    );
                }
            }
        }
        Index {
            by_kind,
            invalid_servers,
        }
    }

    fn get(&self, kind: ResourceKind, reference: &str) -> Option<&Target<'a>> {
        self.by_kind.get(&kind).and_then(|map| map.get(reference))
    }

    /// Refs of `kind` that a projection owned by `owner` may use, sorted.
    fn usable(&self, kind: ResourceKind, owner: &str) -> Vec<&str> {
        let mut refs: Vec<&str> = self
            .by_kind
            .get(&kind)
            .into_iter()
            .flatten()
            .filter(|(_, target)| match target.owner {
                Owner::Shared => true,
                Owner::Agent(agent) => agent == owner,
            })
            .map(|(reference, _)| reference.as_str())
            .collect();
        refs.sort_unstable();
        refs
    }
}

fn typed_kind(kind: CapabilityKind) -> ResourceKind {
    match kind {
        CapabilityKind::Tool => ResourceKind::PackageMcpTool,
        CapabilityKind::Prompt => ResourceKind::PackageMcpPrompt,
        CapabilityKind::Resource => ResourceKind::PackageMcpResource,
    }
}

fn capability_of(kind: ResourceKind) -> Option<CapabilityKind> {
    match kind {
        ResourceKind::PackageMcpTool => Some(CapabilityKind::Tool),
        ResourceKind::PackageMcpPrompt => Some(CapabilityKind::Prompt),
        ResourceKind::PackageMcpResource => Some(CapabilityKind::Resource),
        _ => None,
    }
}

/// The server part of a typed MCP ref: the text before the last `/tool/`, `/prompt/` or `/resource/`.
fn server_part(reference: &str, kind: CapabilityKind) -> Option<&str> {
    let marker = format!("/{}/", kind.segment());
    reference.rfind(&marker).map(|index| &reference[..index])
}

pub fn check(context: &mut Context, manifest: &Manifest, id: &str, discovered: &Discovered) {
    let index = Index::new(discovered);
    for projection in manifest.projections() {
        check_projection(context, projection, id, &index);
    }
    check_completeness(context, manifest, discovered);
    check_skill_names(context, manifest, discovered);
}

fn error(code: Code, item: &Item, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, MANIFEST_FILE, message)
        .span(item.span.clone())
        .pointer(item.pointer.clone())
}

fn check_projection(context: &mut Context, projection: &Projection, id: &str, index: &Index) {
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
    let role_name = match role {
        Some(Role::Scheduler) => "the orchestrator (scheduler)".to_owned(),
        Some(Role::Worker(role)) => format!("base role `{role}`"),
        None => String::new(),
    };
    for item in projection.refs(ResourceKind::BuiltInTool) {
        if !tables::is_core_tool(&item.value) {
            let mut diagnostic = error(
                Code::UnknownBuiltInTool,
                item,
                format!("unknown built-in tool `{}`", item.value),
            )
            .span_label("not a core tool id");
            // The tools this role may project first: a typo most likely means one of them.
            let close = role
                .and_then(|role| crate::text::closest(&item.value, tables::projectable_list(role)))
                .or_else(|| crate::text::closest(&item.value, tables::CORE_TOOL_IDS));
            if let Some(close) = close {
                diagnostic = diagnostic.suggest(Suggestion::replace(
                    format!("did you mean `{close}`?"),
                    item.span.clone(),
                    json_string(close),
                ));
            }
            context.diagnostics.push(diagnostic);
        } else if let Some(role) = role {
            if !tables::projectable_built_in(role, &item.value) {
                context.diagnostics.push(
                    error(
                        Code::ToolNotSuppliedByRole,
                        item,
                        format!(
                            "built-in tool `{}` is not supplied by this base-role runtime template",
                            item.value
                        ),
                    )
                    .span_label(format!("not available to {role_name}"))
                    .help(format!(
                        "{role_name} can project: {}",
                        tables::projectable_list(role).join(", ")
                    )),
                );
            }
        }
    }
    for item in projection.refs(ResourceKind::DefaultSkill) {
        let valid = item
            .value
            .strip_prefix("default/skill/")
            .is_some_and(|name| {
                !name.is_empty() && !name.contains(['/', '\\', '\r', '\n']) && js_trim(name) == name
            });
        if !valid {
            context.diagnostics.push(
                error(Code::InvalidDefaultRef, item, format!("default skill ref `{}` must match default/skill/<name>", item.value))
                    .help("<name> is a non-empty skill name without `/`, `\\`, line breaks or surrounding whitespace"),
            );
        }
    }
    for item in projection.refs(ResourceKind::DefaultTool) {
        let Some(name) = default_name(&item.value, "default/tool/") else {
            context.diagnostics.push(error(
                Code::InvalidDefaultRef,
                item,
                format!(
                    "default tool ref `{}` must match default/tool/<name>",
                    item.value
                ),
            ));
            continue;
        };
        match tables::default_host_tool_role(name) {
            None => {
                let tools = tables::DEFAULT_HOST_TOOLS.iter().map(|(tool, _)| *tool);
                let diagnostic = error(
                    Code::UnknownDefaultTool,
                    item,
                    format!("unknown default host tool `{name}`"),
                );
                context
                    .diagnostics
                    .push(match crate::text::closest(name, tools.clone()) {
                        Some(close) => diagnostic.suggest(Suggestion::replace(
                            format!("did you mean `{close}`?"),
                            item.span.clone(),
                            json_string(&format!("default/tool/{close}")),
                        )),
                        None => diagnostic.help(format!(
                            "default host tools: {}",
                            tools.collect::<Vec<_>>().join(", ")
                        )),
                    });
            }
            Some(owner_role) => {
                let supplied = matches!(role, Some(Role::Worker(role)) if role == owner_role);
                if role.is_some() && !supplied {
                    context.diagnostics.push(
                        error(Code::ToolNotSuppliedByRole, item, format!("default host tool `{name}` is not supplied by this base-role runtime template"))
                            .span_label(format!("only base role `{owner_role}` supplies it")),
                    );
                }
            }
        }
    }
    let default_servers = projection.refs(ResourceKind::DefaultMcpServer);
    for item in default_servers {
        if default_name(&item.value, "default/mcp/").is_none() {
            context.diagnostics.push(error(
                Code::InvalidDefaultRef,
                item,
                format!(
                    "default MCP server ref `{}` must match default/mcp/<server>",
                    item.value
                ),
            ));
        }
    }
    if let Some(first) = default_servers.first() {
        context.diagnostics.push(
            error(Code::DefaultMcpServerUnsupported, first, "default_mcp_server_refs is not supported; project default_mcp_tool_refs, default_mcp_prompt_refs, or default_mcp_resource_refs instead")
                .help("leave default_mcp_server_refs empty and list the capabilities you need, e.g. `default/mcp/<server>/tool/<name>`"),
        );
    }
    for (kind, capability) in [
        (ResourceKind::DefaultMcpTool, CapabilityKind::Tool),
        (ResourceKind::DefaultMcpPrompt, CapabilityKind::Prompt),
        (ResourceKind::DefaultMcpResource, CapabilityKind::Resource),
    ] {
        for item in projection.refs(kind) {
            let valid = item.value.strip_prefix("default/mcp/").is_some_and(|rest| {
                let parts: Vec<&str> = rest.split('/').collect();
                parts.len() == 3
                    && parts[1] == capability.segment()
                    && [parts[0], parts[2]]
                        .iter()
                        .all(|part| !part.is_empty() && !part.contains('\\'))
            });
            if !valid {
                context.diagnostics.push(error(
                    Code::InvalidDefaultRef,
                    item,
                    format!(
                        "default MCP {0} ref `{1}` must match default/mcp/<server>/{0}/<name>",
                        capability.segment(),
                        item.value
                    ),
                ));
            }
        }
    }
    let mounted: HashSet<&str> = projection
        .refs(ResourceKind::PackageMcpServer)
        .iter()
        .map(|item| item.value.as_str())
        .collect();
    for kind in [
        ResourceKind::PackageSkill,
        ResourceKind::PackageTool,
        ResourceKind::PackageMcpServer,
        ResourceKind::PackageMcpTool,
        ResourceKind::PackageMcpPrompt,
        ResourceKind::PackageMcpResource,
    ] {
        for item in projection.refs(kind) {
            check_package_ref(context, projection, id, index, kind, item, &mounted);
        }
    }
}

/// `prefix<name>` with a name free of `/` and `\`.
fn default_name<'a>(value: &'a str, prefix: &str) -> Option<&'a str> {
    value
        .strip_prefix(prefix)
        .filter(|name| !name.is_empty() && !name.contains(['/', '\\']))
}

fn check_package_ref(
    context: &mut Context,
    projection: &Projection,
    id: &str,
    index: &Index,
    kind: ResourceKind,
    item: &Item,
    mounted: &HashSet<&str>,
) {
    let reference = item.value.as_str();
    let Some(rest) = reference
        .strip_prefix(id)
        .and_then(|rest| rest.strip_prefix('/'))
    else {
        context.diagnostics.push(
            error(Code::ForeignPackageRef, item, format!("package ref `{reference}` must be namespaced by `{id}`"))
                .span_label(format!("does not start with `{id}/`"))
                .help(format!("package refs start with the package id: `{id}/shared/<name>` or `{id}/<agent>/<name>`")),
        );
        return;
    };
    let capability = capability_of(kind);
    let target = index.get(kind, reference);
    let Some(target) = target else {
        // A typed ref under a server whose declaration is invalid is not judged: the declaration
        // has its own diagnostics.
        if let Some(capability) = capability {
            if server_part(reference, capability)
                .is_some_and(|server| index.invalid_servers.contains(server))
            {
                return;
            }
        }
        let what = match kind {
            ResourceKind::PackageSkill => "skill",
            ResourceKind::PackageTool => "tool",
            ResourceKind::PackageMcpServer => "MCP server",
            ResourceKind::PackageMcpTool => "MCP tool",
            ResourceKind::PackageMcpPrompt => "MCP prompt",
            _ => "MCP resource",
        };
        let usable = index.usable(kind, &projection.owner);
        let mut diagnostic = error(
            Code::DanglingRef,
            item,
            format!("package ref `{reference}` is not declared in this package"),
        )
        .span_label(format!("no {what} `{rest}` in this package"));
        let close = crate::text::closest(reference, usable.iter().copied());
        diagnostic = if let Some(close) = close {
            // Maybe the name is misspelt, maybe the resource is still to be written.
            diagnostic.suggest(
                Suggestion::replace(
                    format!("did you mean `{close}`?"),
                    item.span.clone(),
                    json_string(close),
                )
                .maybe_incorrect(),
            )
        } else if usable.is_empty() {
            diagnostic.help(expected_location(kind, id))
        } else {
            diagnostic.help(format!(
                "{what}s this projection can use: {}",
                usable
                    .iter()
                    .take(8)
                    .map(|r| format!("`{r}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        };
        context.diagnostics.push(diagnostic);
        return;
    };
    if !target.known {
        return;
    }
    if let Owner::Agent(owner) = target.owner {
        if *owner != projection.owner {
            context.diagnostics.push(
                error(
                    Code::RefNotOwned,
                    item,
                    format!(
                        "package ref `{reference}` must be shared or owned by {}",
                        projection.context()
                    ),
                )
                .span_label(format!("owned by agents.{owner}"))
                .help(format!(
                    "move `{}` under the shared directories to let several agents use it",
                    target.file
                )),
            );
            return;
        }
    }
    if let (Some(capability), Some(server)) = (capability, target.server) {
        if mounted.contains(server) {
            context.diagnostics.push(
                error(Code::McpMountedTwice, item, format!("package MCP {} ref `{reference}` is already mounted by package_mcp_server_refs", capability.segment()))
                    .help(format!("package_mcp_server_refs mounts every capability of `{server}`; remove either the server or this ref")),
            );
        }
    }
}

fn expected_location(kind: ResourceKind, id: &str) -> String {
    match kind {
        ResourceKind::PackageSkill => format!("`{id}/shared/<skill>` is skills/<skill>/SKILL.md; `{id}/<agent>/<skill>` is agents/<agent>/skills/<skill>/SKILL.md"),
        ResourceKind::PackageTool => format!("`{id}/shared/<tool>` is tools/<tool>.ts; `{id}/<agent>/<tool>` is agents/<agent>/tools/<tool>.ts"),
        ResourceKind::PackageMcpServer => format!("`{id}/shared/<server>` is mcp/<server>.jsonc; `{id}/<agent>/<server>` is agents/<agent>/mcp/<server>.jsonc"),
        _ => "typed MCP refs are `<server-ref>/tool|prompt|resource/<name>`, where <name> is listed in the declaration's capabilities".to_owned(),
    }
}

/// PROJ-1 and PROJ-2.
fn check_completeness(context: &mut Context, manifest: &Manifest, discovered: &Discovered) {
    let projection_of = |owner: &str| -> Option<&Projection> {
        if owner == "orchestrator" {
            manifest.scheduler.as_ref()
        } else {
            manifest.agent(owner)
        }
    };
    let in_refs = |projection: &Projection, kind: ResourceKind, reference: &str| {
        projection
            .refs(kind)
            .iter()
            .any(|item| item.value == reference)
    };
    let all: Vec<&Projection> = manifest.projections().collect();
    // The union is judged only when every projection could be read.
    let union_complete = manifest.scheduler.is_some() && manifest.agents_known;
    let mut report = |file: &str, message: String, help: String| {
        context
            .diagnostics
            .push(Diagnostic::new(Code::UnprojectedResource, file, message).help(help));
    };
    for skill in &discovered.skills {
        check_one(
            &skill.owner,
            &skill.reference,
            &skill.skill_md,
            ResourceKind::PackageSkill,
            "skill",
            &projection_of,
            &all,
            union_complete,
            &in_refs,
            &mut report,
        );
    }
    for tool in &discovered.tools {
        check_one(
            &tool.owner,
            &tool.reference,
            &tool.path,
            ResourceKind::PackageTool,
            "tool",
            &projection_of,
            &all,
            union_complete,
            &in_refs,
            &mut report,
        );
    }
    for server in &discovered.servers {
        let typed_under = |projection: &Projection| {
            CapabilityKind::ALL.iter().any(|&capability| {
                projection.refs(typed_kind(capability)).iter().any(|item| {
                    server_part(&item.value, capability) == Some(server.reference.as_str())
                })
            })
        };
        let selects_server = |projection: &Projection| {
            in_refs(
                projection,
                ResourceKind::PackageMcpServer,
                &server.reference,
            ) || typed_under(projection)
        };
        let candidates: Vec<&Projection> = match &server.owner {
            Owner::Shared if union_complete => all.clone(),
            Owner::Shared => continue,
            Owner::Agent(owner) => match projection_of(owner) {
                Some(projection) => vec![projection],
                None => continue,
            },
        };
        let label = match &server.owner {
            Owner::Shared => "Shared package MCP server",
            Owner::Agent(_) => "agent-local MCP server",
        };
        if !candidates
            .iter()
            .any(|projection| selects_server(projection))
        {
            report(
                &server.path,
                format!("{label} `{}` is not projected", server.reference),
                projection_help(&server.owner, "package_mcp_server_refs", &server.reference),
            );
            continue;
        }
        if !server.valid {
            continue;
        }
        for capability in CapabilityKind::ALL {
            for name in server.capabilities(capability) {
                let reference = format!("{}/{}/{name}", server.reference, capability.segment());
                let selected = candidates.iter().any(|projection| {
                    in_refs(
                        projection,
                        ResourceKind::PackageMcpServer,
                        &server.reference,
                    ) || in_refs(projection, typed_kind(capability), &reference)
                });
                if !selected {
                    let label = match &server.owner {
                        Owner::Shared => format!("Shared package MCP {}", capability.segment()),
                        Owner::Agent(_) => format!("agent-local MCP {}", capability.segment()),
                    };
                    let field = typed_kind(capability).field();
                    report(
                        &server.path,
                        format!("{label} `{reference}` is not projected"),
                        projection_help(&server.owner, field, &reference),
                    );
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_one<'m>(
    owner: &Owner,
    reference: &str,
    file: &str,
    kind: ResourceKind,
    what: &str,
    projection_of: &dyn Fn(&str) -> Option<&'m Projection>,
    all: &[&Projection],
    union_complete: bool,
    in_refs: &dyn Fn(&Projection, ResourceKind, &str) -> bool,
    report: &mut dyn FnMut(&str, String, String),
) {
    match owner {
        Owner::Shared => {
            if union_complete
                && !all
                    .iter()
                    .any(|projection| in_refs(projection, kind, reference))
            {
                report(
                    file,
                    format!("Shared package {what} `{reference}` is not projected"),
                    projection_help(owner, kind.field(), reference),
                );
            }
        }
        Owner::Agent(agent) => {
            if let Some(projection) = projection_of(agent) {
                if !in_refs(projection, kind, reference) {
                    report(
                        file,
                        format!("agent-local {what} `{reference}` is not projected"),
                        projection_help(owner, kind.field(), reference),
                    );
                }
            }
        }
    }
}

fn projection_help(owner: &Owner, field: &str, reference: &str) -> String {
    match owner {
        Owner::Shared => format!(
            "add `\"{reference}\"` to `{field}` of the scheduler or of an agent that uses it, or remove the file"
        ),
        Owner::Agent(agent) if agent == "orchestrator" => format!(
            "add `\"{reference}\"` to `capability_projection.scheduler.{field}`, or remove the file"
        ),
        Owner::Agent(agent) => format!(
            "add `\"{reference}\"` to `capability_projection.agents.{agent}.{field}`, or remove the file"
        ),
    }
}

/// SKL-5: two projected skills with one frontmatter name clash at runtime.
fn check_skill_names(context: &mut Context, manifest: &Manifest, discovered: &Discovered) {
    let names: HashMap<&str, &str> = discovered
        .skills
        .iter()
        .filter_map(|skill| {
            skill
                .name
                .as_deref()
                .map(|name| (skill.reference.as_str(), name))
        })
        .collect();
    for projection in manifest.projections() {
        let mut seen: HashMap<&str, &Item> = HashMap::new();
        for item in projection.refs(ResourceKind::PackageSkill) {
            let Some(name) = names.get(item.value.as_str()) else {
                continue;
            };
            if let Some(first) = seen.insert(name, item) {
                context.diagnostics.push(
                    error(
                        Code::SkillNameConflict,
                        item,
                        format!(
                            "{} projects skill name `{name}` from both `{}` and `{}`",
                            projection.context(),
                            first.value,
                            item.value
                        ),
                    )
                    .label(first.span.clone(), "first skill with this name")
                    .help("give each skill a distinct `name` in its SKILL.md frontmatter"),
                );
            }
        }
    }
}
