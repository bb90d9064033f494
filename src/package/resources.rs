//! Resource discovery (REF-0…REF-5): the skills, tools and MCP servers a package contains,
//! found from its files, independently of the manifest.

use std::collections::{BTreeSet, HashMap};

use super::mcp;
use super::skills::{self, Skill};
use super::{Context, Owner};
use crate::diag::{Code, Diagnostic};
use crate::source::SourceFile;
use crate::text::is_kebab_id;

#[derive(Debug, Clone)]
pub struct Tool {
    pub reference: String,
    pub owner: Owner,
    pub path: String,
}

#[derive(Debug, Clone)]
pub struct Server {
    pub reference: String,
    pub owner: Owner,
    pub path: String,
    pub capabilities: mcp::Capabilities,
    /// False when the declaration itself is invalid: refs to the server still resolve, but its
    /// capabilities are unknown and not judged.
    pub valid: bool,
}

/// A typed MCP capability kind and its ref segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CapabilityKind {
    Tool,
    Prompt,
    Resource,
}

impl CapabilityKind {
    pub const ALL: [CapabilityKind; 3] = [
        CapabilityKind::Tool,
        CapabilityKind::Prompt,
        CapabilityKind::Resource,
    ];

    pub fn segment(self) -> &'static str {
        match self {
            CapabilityKind::Tool => "tool",
            CapabilityKind::Prompt => "prompt",
            CapabilityKind::Resource => "resource",
        }
    }
}

impl Server {
    pub fn capabilities(&self, kind: CapabilityKind) -> &[String] {
        match kind {
            CapabilityKind::Tool => &self.capabilities.tools,
            CapabilityKind::Prompt => &self.capabilities.prompts,
            CapabilityKind::Resource => &self.capabilities.resources,
        }
    }
}

/// Everything discovered in a package.
#[derive(Debug, Default)]
pub struct Discovered {
    pub skills: Vec<Skill>,
    pub tools: Vec<Tool>,
    pub servers: Vec<Server>,
}

/// A package ref of one kind, as the files of the package declare it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared<'a> {
    /// The ref (`<id>/<owner>/<name>`, or `<server ref>/tool/<name>` for a typed MCP ref).
    pub reference: String,
    pub owner: &'a Owner,
    /// The file that declares it: SKILL.md, the tool's file or the server's declaration.
    pub file: &'a str,
    /// For a typed MCP ref: the capability's kind and name in the server's declaration.
    pub capability: Option<(CapabilityKind, &'a str)>,
}

impl Discovered {
    /// Every ref of `kind` the package's files declare (none for the host's `default_*` kinds
    /// and built-in tools), in discovery order: what a projection's refs of that kind resolve
    /// against, as `squad validate` resolves them.
    pub fn declared(&self, kind: crate::manifest::ResourceKind) -> Vec<Declared<'_>> {
        use crate::manifest::ResourceKind;
        let typed = match kind {
            ResourceKind::PackageSkill => {
                return self
                    .skills
                    .iter()
                    .map(|skill| Declared {
                        reference: skill.reference.clone(),
                        owner: &skill.owner,
                        file: &skill.skill_md,
                        capability: None,
                    })
                    .collect();
            }
            ResourceKind::PackageTool => {
                return self
                    .tools
                    .iter()
                    .map(|tool| Declared {
                        reference: tool.reference.clone(),
                        owner: &tool.owner,
                        file: &tool.path,
                        capability: None,
                    })
                    .collect();
            }
            ResourceKind::PackageMcpServer => {
                return self
                    .servers
                    .iter()
                    .map(|server| Declared {
                        reference: server.reference.clone(),
                        owner: &server.owner,
                        file: &server.path,
                        capability: None,
                    })
                    .collect();
            }
            ResourceKind::PackageMcpTool => CapabilityKind::Tool,
            ResourceKind::PackageMcpPrompt => CapabilityKind::Prompt,
            ResourceKind::PackageMcpResource => CapabilityKind::Resource,
            _ => return Vec::new(),
        };
        self.servers
            .iter()
            .flat_map(|server| {
                server.capabilities(typed).iter().map(move |name| Declared {
                    reference: format!("{}/{}/{name}", server.reference, typed.segment()),
                    owner: &server.owner,
                    file: &server.path,
                    capability: Some((typed, name.as_str())),
                })
            })
            .collect()
    }
}

pub fn discover(context: &mut Context, id: &str) -> Discovered {
    let mut discovered = Discovered::default();
    let mut owners = vec![(Owner::Shared, String::new())];
    let agent_directories: BTreeSet<String> = context
        .tree
        .files_under("agents")
        .filter_map(|entry| {
            let relative = &entry.path["agents/".len()..];
            relative.split_once('/').map(|(agent, _)| agent.to_owned())
        })
        .collect();
    owners.extend(
        agent_directories
            .into_iter()
            .map(|agent| (Owner::Agent(agent.clone()), format!("agents/{agent}/"))),
    );
    for (owner, base) in &owners {
        let skills_root = format!("{base}skills");
        discovered
            .skills
            .extend(skills::discover(context, &skills_root, owner, id));
        discover_tools(
            context,
            &format!("{base}tools"),
            owner,
            id,
            &mut discovered.tools,
        );
        discover_servers(
            context,
            &format!("{base}mcp"),
            owner,
            id,
            &mut discovered.servers,
        );
    }
    discovered
}

/// The files directly inside `directory`; files deeper down are reported once per
/// sub-directory ("expected file").
fn direct_files(context: &mut Context, directory: &str) -> Vec<String> {
    let mut direct = Vec::new();
    let mut nested: BTreeSet<String> = BTreeSet::new();
    for entry in context.tree.files_under(directory) {
        let relative = &entry.path[directory.len() + 1..];
        match relative.split_once('/') {
            None => direct.push(entry.path.clone()),
            Some((sub, _)) => {
                nested.insert(format!("{directory}/{sub}"));
            }
        }
    }
    for sub in nested {
        let shown = directory.replace('/', ".");
        context.diagnostics.push(
            Diagnostic::new(
                Code::WrongEntryType,
                &sub,
                format!("{shown}: `{sub}` must be a file, found a directory"),
            )
            .help(format!(
                "{directory}/ holds files only; shared code belongs in lib/, data in assets/"
            )),
        );
    }
    direct
}

fn discover_tools(
    context: &mut Context,
    directory: &str,
    owner: &Owner,
    id: &str,
    tools: &mut Vec<Tool>,
) {
    let mut seen: HashMap<String, String> = HashMap::new();
    for path in direct_files(context, directory) {
        let name = &path[directory.len() + 1..];
        let Some(tool_id) = name
            .strip_suffix(".ts")
            .or_else(|| name.strip_suffix(".js"))
        else {
            context.diagnostics.push(
                Diagnostic::new(
                    Code::UnsupportedToolExtension,
                    &path,
                    format!("unsupported tool extension: `{name}`"),
                )
                .help("a tool is a `.ts` or `.js` file named after its id; helpers go in lib/"),
            );
            continue;
        };
        if !is_kebab_id(tool_id) {
            context.diagnostics.push(
                Diagnostic::new(Code::InvalidToolId, &path, format!("tool id `{tool_id}` is not a lower-kebab-case id"))
                    .help("name tool files like `fetch-report.ts`; ids match ^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$"),
            );
            continue;
        }
        let reference = format!("{id}/{}/{tool_id}", owner.segment());
        // A duplicate is reported but still walked, so its imports count for reachability.
        if let Some(first) = seen.insert(reference.clone(), path.clone()) {
            context
                .diagnostics
                .push(duplicate(&path, &reference, &first));
        }
        tools.push(Tool {
            reference,
            owner: owner.clone(),
            path,
        });
    }
}

fn discover_servers(
    context: &mut Context,
    directory: &str,
    owner: &Owner,
    id: &str,
    servers: &mut Vec<Server>,
) {
    let mut seen: HashMap<String, String> = HashMap::new();
    for path in direct_files(context, directory) {
        let name = &path[directory.len() + 1..];
        let Some(server_id) = name
            .strip_suffix(".jsonc")
            .or_else(|| name.strip_suffix(".json"))
        else {
            context.diagnostics.push(
                Diagnostic::new(
                    Code::UnsupportedMcpExtension,
                    &path,
                    format!("unsupported MCP definition extension: `{name}`"),
                )
                .help("an MCP server declaration is `<server>.json` or `<server>.jsonc`"),
            );
            continue;
        };
        if server_id.is_empty() || server_id.contains('\\') {
            context.diagnostics.push(Diagnostic::new(
                Code::InvalidResourceName,
                &path,
                format!("MCP server id `{server_id}` must be non-empty without `/` or `\\`"),
            ));
            continue;
        }
        let Some(text) = context.read_lossy(&path) else {
            continue;
        };
        let capabilities = mcp::check(&path, &text, &mut context.diagnostics);
        context.sources.insert(path.clone(), SourceFile::new(text));
        let reference = format!("{id}/{}/{server_id}", owner.segment());
        if let Some(first) = seen.insert(reference.clone(), path.clone()) {
            context
                .diagnostics
                .push(duplicate(&path, &reference, &first));
        }
        servers.push(Server {
            reference,
            owner: owner.clone(),
            path,
            valid: capabilities.is_some(),
            capabilities: capabilities.unwrap_or_default(),
        });
    }
}

fn duplicate(path: &str, reference: &str, first: &str) -> Diagnostic {
    Diagnostic::new(
        Code::DuplicateResource,
        path,
        format!("duplicate package ref `{reference}`"),
    )
    .help(format!(
        "`{first}` already declares it; keep one of the two files"
    ))
}
