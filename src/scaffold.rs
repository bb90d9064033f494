//! `squad scaffold`: new pieces of an existing package — an agent with its prompt, a skill, a
//! tool, an MCP server declaration, a workflow node — written as a person would write them.
//!
//! The manifest is edited in place through [`crate::jsonc::edit`], so its comments and layout
//! stay as they were; new files are created, never replaced. A piece that clashes with an id or
//! a file of the package is refused before anything is touched, and the result is validated on
//! a copy of the package before the real one is written: a scaffold never leaves a package with
//! an error it did not have.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::diag::{Diagnostic, Severity};
use crate::fs::dir::{Dir, Tree};
use crate::jsonc::{self, Kind, Node, edit};
use crate::manifest::{IdKind, MANIFEST_FILE, RESOURCE_KEYS, id_problem};
use crate::package::{self, Report};
use crate::tables::RUNTIME_TEMPLATE_IDS;
use crate::text::{closest, cmp_code_units, is_kebab_id};

/// The scheduler's owner id, as `--for` and `--agent` name it.
pub const SCHEDULER: &str = "orchestrator";

/// What to add.
#[derive(Debug, Clone)]
pub enum Piece {
    Agent(AgentSpec),
    Skill(ResourceSpec),
    Tool(ResourceSpec),
    Mcp(McpSpec),
    Node(NodeSpec),
}

/// A new agent: its projection and its prompt, and optionally a node that runs it.
#[derive(Debug, Clone)]
pub struct AgentSpec {
    pub id: String,
    pub role: String,
    pub label: Option<String>,
    pub description: Option<String>,
    /// A node of this id in that workflow, after those nodes.
    pub workflow: Option<String>,
    pub depends_on: Vec<String>,
}

/// A new skill or tool: shared, or local to `owner`, projected by `projections` (all
/// projections for a shared one, the owner for a local one, when empty).
#[derive(Debug, Clone)]
pub struct ResourceSpec {
    pub name: String,
    pub owner: Option<String>,
    pub projections: Vec<String>,
    pub description: Option<String>,
}

/// A new remote MCP server declaration, mounted whole by its projections.
#[derive(Debug, Clone)]
pub struct McpSpec {
    pub resource: ResourceSpec,
    pub url: String,
    pub transport: String,
    pub tools: Vec<String>,
    pub prompts: Vec<String>,
    pub resources: Vec<String>,
}

/// A new node of a workflow (and the workflow, when it does not exist yet).
#[derive(Debug, Clone)]
pub struct NodeSpec {
    pub workflow: String,
    /// The node id [default: the agent's id].
    pub node: Option<String>,
    pub agent: String,
    pub depends_on: Vec<String>,
    pub description: Option<String>,
    pub workflow_label: Option<String>,
    pub workflow_description: Option<String>,
}

/// The package as the piece would leave it: the new manifest text, the new files, and what
/// was done, in words.
#[derive(Debug, Clone)]
pub struct Plan {
    pub before: String,
    pub manifest: String,
    pub files: Vec<(String, String)>,
    pub actions: Vec<String>,
}

/// Why a piece was not added. Nothing was written in any case.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The manifest cannot be read or edited (missing, not UTF-8, not JSONC, no id, …).
    #[error("{0}")]
    Manifest(String),
    /// An argument is not valid (an id that is not kebab-case, a URL that is not http…).
    #[error("{0}")]
    Argument(String),
    /// Something of that name exists already.
    #[error("{0}; nothing was changed")]
    Clash(String),
    /// A name that should exist does not; with its closest match, or what exists.
    #[error("{message}")]
    Unknown {
        message: String,
        close: Option<String>,
        /// What the known names are, and the names.
        listing: &'static str,
        known: Vec<String>,
    },
    /// The result would have errors the package did not have: those errors, on the copy.
    #[error("the result would not be a valid package; nothing was changed")]
    Breaks(Box<Report>, Vec<Diagnostic>),
    #[error("cannot write `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
}

impl GenerateError {
    /// Only a change that would break the package is refused; the rest is a request that
    /// cannot be carried out.
    pub fn class(&self) -> crate::error::Class {
        match self {
            GenerateError::Breaks(..) => crate::error::Class::Refused,
            _ => crate::error::Class::Failed,
        }
    }

    /// The hint for the error, when there is one worth giving.
    pub fn hint(&self) -> Option<String> {
        match self {
            GenerateError::Unknown {
                close: Some(close), ..
            } => Some(format!("did you mean `{close}`?")),
            GenerateError::Unknown { known, .. } if known.is_empty() => None,
            GenerateError::Unknown { known, listing, .. } => Some(format!(
                "{listing}: {}",
                known
                    .iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            GenerateError::Manifest(_) => {
                Some("`squad validate` shows what is wrong; `squad fix` repairs what it can".into())
            }
            _ => None,
        }
    }
}

/// Works out the edits and files for `piece` in the package at `root`; writes nothing.
pub fn plan(root: &Path, piece: &Piece) -> Result<Plan, GenerateError> {
    let path = root.join(MANIFEST_FILE);
    let bytes = crate::fs::read(&path).map_err(|error| {
        GenerateError::Manifest(format!("cannot read `{}`: {error}", path.display()))
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        GenerateError::Manifest(format!(
            "`{}` is not valid UTF-8; it cannot be edited safely",
            path.display()
        ))
    })?;
    let mut draft = Draft::new(root, text)?;
    match piece {
        Piece::Agent(spec) => draft.agent(spec)?,
        Piece::Skill(spec) => draft.skill(spec)?,
        Piece::Tool(spec) => draft.tool(spec)?,
        Piece::Mcp(spec) => draft.mcp(spec)?,
        Piece::Node(spec) => draft.node(spec)?,
    }
    Ok(draft.finish())
}

/// Checks `plan` on a copy of the package, then writes it: new files first (never replacing
/// one), then the manifest, atomically and only if it still holds the text the plan edited.
/// Returns the package's validation afterwards.
pub fn apply(root: &Path, plan: &Plan) -> Result<Report, GenerateError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |error| GenerateError::Io(path, error)
    };
    let before = package::validate(root).map_err(|error| {
        GenerateError::Manifest(format!("cannot validate `{}`: {error}", root.display()))
    })?;
    let scratch =
        crate::fs::ScratchDirectory::new("scaffold").map_err(io(&std::env::temp_dir()))?;
    scratch.copy_tree(root).map_err(io(root))?;
    scratch
        .write(MANIFEST_FILE, plan.manifest.as_bytes())
        .map_err(io(&root.join(MANIFEST_FILE)))?;
    for (file, content) in &plan.files {
        scratch
            .write(file, content.as_bytes())
            .map_err(io(&root.join(file)))?;
    }
    let after = package::validate(scratch.path())
        .map_err(|error| GenerateError::Manifest(format!("cannot validate the result: {error}")))?;
    let new_errors = new_errors(&before.diagnostics, &after.diagnostics);
    if !new_errors.is_empty() {
        return Err(GenerateError::Breaks(Box::new(after), new_errors));
    }
    // Every write is relative to the package folder opened once, one name at a time: a link
    // anywhere below it (a linked `agents/`) is refused, never written through, and whatever
    // was created before the refusal is taken back.
    let package = Dir::open(root).map_err(io(root))?;
    let mut tree = Tree::writing(&package);
    let mut created: Vec<&str> = Vec::new();
    let result = (|| {
        for (file, content) in &plan.files {
            let target = root.join(file);
            let mut written = tree.create_file(file).map_err(io(&target))?;
            created.push(file);
            written
                .write_all(content.as_bytes())
                .and_then(|()| written.sync_all())
                .map_err(io(&target))?;
        }
        let manifest = root.join(MANIFEST_FILE);
        let mut current = Vec::new();
        package
            .open_file(MANIFEST_FILE)
            .and_then(|mut file| file.read_to_end(&mut current))
            .map_err(io(&manifest))?;
        if current != plan.before.as_bytes() {
            return Err(GenerateError::Clash(format!(
                "`{}` changed while the piece was worked out",
                manifest.display()
            )));
        }
        package
            .replace_file(MANIFEST_FILE, plan.manifest.as_bytes())
            .map_err(io(&manifest))
    })();
    if let Err(error) = result {
        for file in created.iter().rev() {
            let _ = tree.remove_file(file);
        }
        tree.remove_created_directories();
        return Err(error);
    }
    package::validate(root).map_err(|error| {
        GenerateError::Manifest(format!("cannot validate `{}`: {error}", root.display()))
    })
}

/// The errors of `after` that `before` did not have (compared by code, file and message, as
/// positions move when the manifest grows).
fn new_errors(before: &[Diagnostic], after: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut known: HashMap<(crate::diag::Code, &str, &str), usize> = HashMap::new();
    for diagnostic in before.iter().filter(|d| d.severity() == Severity::Error) {
        *known
            .entry((diagnostic.code, &diagnostic.file, &diagnostic.message))
            .or_default() += 1;
    }
    after
        .iter()
        .filter(|diagnostic| diagnostic.severity() == Severity::Error)
        .filter(|diagnostic| {
            match known.get_mut(&(diagnostic.code, &diagnostic.file, &diagnostic.message)) {
                Some(count) if *count > 0 => {
                    *count -= 1;
                    false
                }
                _ => true,
            }
        })
        .cloned()
        .collect()
}

/// `incident-review` as `Incident Review`.
pub fn title_case(id: &str) -> String {
    id.split('-')
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The manifest being edited and the files being added.
struct Draft<'a> {
    root: &'a Path,
    before: String,
    text: String,
    id: String,
    files: Vec<(String, String)>,
    actions: Vec<String>,
}

impl<'a> Draft<'a> {
    fn new(root: &'a Path, text: String) -> Result<Draft<'a>, GenerateError> {
        let tree = jsonc::parse(&text).map_err(|error| {
            GenerateError::Manifest(format!(
                "{MANIFEST_FILE} is not valid JSONC ({error}); it cannot be edited until it is"
            ))
        })?;
        let id = edit::member(&tree, "id")
            .and_then(|member| member.value.as_str())
            .filter(|id| id_problem(id, IdKind::Package).is_none())
            .ok_or_else(|| {
                GenerateError::Manifest(format!(
                    "{MANIFEST_FILE} has no valid `id`; package refs start with it"
                ))
            })?
            .to_owned();
        Ok(Draft {
            root,
            before: text.clone(),
            text,
            id,
            files: Vec::new(),
            actions: Vec::new(),
        })
    }

    fn finish(self) -> Plan {
        Plan {
            before: self.before,
            manifest: self.text,
            files: self.files,
            actions: self.actions,
        }
    }

    fn tree(&self) -> Result<Node, GenerateError> {
        jsonc::parse(&self.text).map_err(|error| {
            GenerateError::Manifest(format!("an edit broke the manifest ({error})"))
        })
    }

    /// The node at `path` (object keys from the root), which must be an object.
    fn object_at(tree: &Node, path: &[&str]) -> Result<Node, GenerateError> {
        let mut node = tree;
        for key in path {
            node = &edit::member(node, key)
                .ok_or_else(|| {
                    GenerateError::Manifest(format!("{MANIFEST_FILE} has no `{}`", path.join(".")))
                })?
                .value;
        }
        match node.kind {
            Kind::Object(_) => Ok(node.clone()),
            _ => Err(GenerateError::Manifest(format!(
                "`{}` in {MANIFEST_FILE} is not an object",
                path.join(".")
            ))),
        }
    }

    fn keys(object: &Node) -> Vec<String> {
        match &object.kind {
            Kind::Object(members) => members.iter().map(|member| member.key.clone()).collect(),
            _ => Vec::new(),
        }
    }

    fn agents(&self) -> Result<Vec<String>, GenerateError> {
        let tree = self.tree()?;
        Ok(Self::keys(&Self::object_at(
            &tree,
            &["capability_projection", "agents"],
        )?))
    }

    /// Sets `key` of the object at `path` to `value`, written pretty at its depth.
    fn set(&mut self, path: &[&str], key: &str, value: &Value) -> Result<(), GenerateError> {
        let tree = self.tree()?;
        let object = Self::object_at(&tree, path)?;
        let indentation = edit::member_indentation(&self.text, &object);
        let rendered = edit::pretty(
            value,
            edit::indent_unit(&self.text),
            &indentation,
            edit::newline_of(&self.text),
        );
        self.text = edit::set_member(&self.text, &object, key, &rendered);
        Ok(())
    }

    fn create(&mut self, file: String, content: String) -> Result<(), GenerateError> {
        if self.root.join(&file).symlink_metadata().is_ok() {
            return Err(GenerateError::Clash(format!("`{file}` exists already")));
        }
        self.actions.push(format!("created {file}"));
        self.files.push((file, content));
        Ok(())
    }

    fn check_owner(&self, name: &str, what: &'static str) -> Result<(), GenerateError> {
        if name == SCHEDULER {
            return Ok(());
        }
        let agents = self.agents()?;
        if agents.iter().any(|agent| agent == name) {
            return Ok(());
        }
        let mut known = vec![SCHEDULER.to_owned()];
        known.extend(agents);
        Err(GenerateError::Unknown {
            message: format!("there is no {what} `{name}` in this package"),
            listing: "its agents",
            close: closest(name, known.iter().map(String::as_str)).map(str::to_owned),
            known,
        })
    }

    fn agent(&mut self, spec: &AgentSpec) -> Result<(), GenerateError> {
        if let Some((_, problem)) = id_problem(&spec.id, IdKind::Agent) {
            return Err(GenerateError::Argument(format!(
                "invalid agent id: {problem}"
            )));
        }
        if !RUNTIME_TEMPLATE_IDS.contains(&spec.role.as_str()) {
            return Err(GenerateError::Unknown {
                message: format!("`{}` is not a base role", spec.role),
                listing: "base roles",
                close: closest(&spec.role, RUNTIME_TEMPLATE_IDS).map(str::to_owned),
                known: RUNTIME_TEMPLATE_IDS
                    .iter()
                    .map(|r| (*r).to_owned())
                    .collect(),
            });
        }
        if self.agents()?.contains(&spec.id) {
            return Err(GenerateError::Clash(format!(
                "agent `{}` is declared already",
                spec.id
            )));
        }
        let directory = format!("agents/{}", spec.id);
        if self.root.join(&directory).symlink_metadata().is_ok() {
            return Err(GenerateError::Clash(format!(
                "`{directory}/` exists already"
            )));
        }
        let label = spec.label.clone().unwrap_or_else(|| title_case(&spec.id));
        let prompt = format!("{directory}/system.md");
        let mut agent = Map::new();
        agent.insert("label".into(), json!(label));
        if let Some(description) = &spec.description {
            agent.insert("description".into(), json!(description));
        }
        agent.insert("base_role".into(), json!(spec.role));
        if spec.role == "integrity" {
            agent.insert(
                "execution_contract".into(),
                json!(crate::manifest::EXECUTION_CONTRACTS[0]),
            );
        }
        agent.insert("prompt".into(), json!(prompt));
        agent.insert("inherit_base_tools".into(), json!(true));
        for key in RESOURCE_KEYS.iter().skip(1) {
            agent.insert((*key).into(), json!([]));
        }
        self.set(
            &["capability_projection", "agents"],
            &spec.id,
            &Value::Object(agent),
        )?;
        self.actions.push(format!(
            "added agent `{}` (base role `{}`) to {MANIFEST_FILE}",
            spec.id, spec.role
        ));
        self.create(prompt, prompt_text(&label, spec.description.as_deref()))?;
        if let Some(workflow) = &spec.workflow {
            self.node(&NodeSpec {
                workflow: workflow.clone(),
                node: None,
                agent: spec.id.clone(),
                depends_on: spec.depends_on.clone(),
                description: None,
                workflow_label: None,
                workflow_description: None,
            })?;
        }
        Ok(())
    }

    fn node(&mut self, spec: &NodeSpec) -> Result<(), GenerateError> {
        let node_id = spec.node.clone().unwrap_or_else(|| spec.agent.clone());
        for (what, id) in [("workflow", &spec.workflow), ("node", &node_id)] {
            if let Some((_, problem)) = id_problem(id, IdKind::Plain) {
                return Err(GenerateError::Argument(format!(
                    "invalid {what} id: {problem}"
                )));
            }
        }
        let tree = self.tree()?;
        let agents = Self::object_at(&tree, &["capability_projection", "agents"])?;
        let Some(agent) = edit::member(&agents, &spec.agent) else {
            let known = Self::keys(&agents);
            return Err(GenerateError::Unknown {
                message: format!("there is no agent `{}` in this package", spec.agent),
                listing: "its agents",
                close: closest(&spec.agent, known.iter().map(String::as_str)).map(str::to_owned),
                known,
            });
        };
        let agent_label = edit::member(&agent.value, "label")
            .and_then(|label| label.value.as_str())
            .map_or_else(|| title_case(&spec.agent), str::to_owned);
        let description = spec
            .description
            .clone()
            .or_else(|| {
                edit::member(&agent.value, "description")
                    .and_then(|d| d.value.as_str())
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| format!("The {agent_label} step."));
        let workflows = Self::object_at(&tree, &["capability_projection", "virtual_workflows"])?;
        let existing = edit::member(&workflows, &spec.workflow).map(|member| member.value.clone());
        let nodes: Vec<String> = existing
            .as_ref()
            .and_then(|workflow| edit::member(workflow, "nodes"))
            .map(|nodes| Self::keys(&nodes.value))
            .unwrap_or_default();
        if nodes.contains(&node_id) {
            return Err(GenerateError::Clash(format!(
                "workflow `{}` has a node `{node_id}` already",
                spec.workflow
            )));
        }
        let mut depends_on: Vec<&str> = Vec::new();
        for dependency in &spec.depends_on {
            if !nodes.contains(dependency) {
                return Err(GenerateError::Unknown {
                    listing: "its nodes",
                    message: if existing.is_some() {
                        format!("workflow `{}` has no node `{dependency}`", spec.workflow)
                    } else {
                        format!(
                            "workflow `{}` does not exist yet, so no node `{dependency}` to depend on",
                            spec.workflow
                        )
                    },
                    close: closest(dependency, nodes.iter().map(String::as_str)).map(str::to_owned),
                    known: nodes.clone(),
                });
            }
            depends_on.push(dependency);
        }
        depends_on.sort_by(|a, b| cmp_code_units(a, b));
        depends_on.dedup();
        let node = json!({
            "agent_id": spec.agent,
            "description": description,
            "depends_on": depends_on,
        });
        let after = if depends_on.is_empty() {
            String::new()
        } else {
            format!(
                " after {}",
                depends_on
                    .iter()
                    .map(|id| format!("`{id}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        if existing.is_some() {
            self.set(
                &[
                    "capability_projection",
                    "virtual_workflows",
                    &spec.workflow,
                    "nodes",
                ],
                &node_id,
                &node,
            )?;
            self.actions.push(format!(
                "added node `{node_id}` ({}){after} to workflow `{}`",
                spec.agent, spec.workflow
            ));
        } else {
            let label = spec
                .workflow_label
                .clone()
                .unwrap_or_else(|| title_case(&spec.workflow));
            let description = spec
                .workflow_description
                .clone()
                .unwrap_or_else(|| format!("The {label} workflow."));
            let workflow = json!({
                "label": label,
                "description": description,
                "nodes": { node_id.clone(): node },
            });
            self.set(
                &["capability_projection", "virtual_workflows"],
                &spec.workflow,
                &workflow,
            )?;
            self.actions.push(format!(
                "added workflow `{}` with node `{node_id}` ({})",
                spec.workflow, spec.agent
            ));
        }
        Ok(())
    }

    /// The owner segment and the projections of a new resource, checked.
    fn placement(
        &self,
        spec: &ResourceSpec,
        kind: &str,
    ) -> Result<(String, Vec<String>), GenerateError> {
        if !is_kebab_id(&spec.name) {
            return Err(GenerateError::Argument(format!(
                "invalid {kind} name `{}`: use lower-kebab-case (it becomes a file name and part of a ref)",
                spec.name
            )));
        }
        if let Some(owner) = &spec.owner {
            self.check_owner(owner, "agent")?;
        }
        for projection in &spec.projections {
            self.check_owner(projection, "agent")?;
        }
        let projections = match (&spec.owner, spec.projections.is_empty()) {
            (Some(owner), true) => vec![owner.clone()],
            (Some(owner), false) => {
                if let Some(other) = spec.projections.iter().find(|p| *p != owner) {
                    return Err(GenerateError::Argument(format!(
                        "a {kind} of agent `{owner}` can be projected only by `{owner}`, not `{other}`; leave out --agent to make it shared"
                    )));
                }
                spec.projections.clone()
            }
            (None, false) => spec.projections.clone(),
            (None, true) => {
                let mut all = vec![SCHEDULER.to_owned()];
                all.extend(self.agents()?);
                all
            }
        };
        let segment = spec.owner.clone().unwrap_or_else(|| "shared".to_owned());
        Ok((segment, projections))
    }

    /// The folder a resource kind lives in, for `owner`.
    fn folder(owner: &Option<String>, kind: &str) -> String {
        match owner {
            Some(owner) => format!("agents/{owner}/{kind}"),
            None => kind.to_owned(),
        }
    }

    /// Adds `reference` to `field` of every projection in `projections`.
    fn project(
        &mut self,
        reference: &str,
        field: &str,
        projections: &[String],
    ) -> Result<(), GenerateError> {
        for projection in projections {
            let path: Vec<&str> = if projection == SCHEDULER {
                vec!["capability_projection", "scheduler"]
            } else {
                vec!["capability_projection", "agents", projection]
            };
            let tree = self.tree()?;
            let object = Self::object_at(&tree, &path)?;
            let literal = serde_json::to_string(reference).unwrap_or_default();
            match edit::member(&object, field) {
                Some(member) => match &member.value.kind {
                    Kind::Array(items) => {
                        if items.iter().any(|item| item.as_str() == Some(reference)) {
                            continue;
                        }
                        self.text = edit::push_element(&self.text, &member.value, &literal);
                    }
                    _ => {
                        return Err(GenerateError::Manifest(format!(
                            "`{}.{field}` is not an array",
                            path.join(".")
                        )));
                    }
                },
                None => {
                    self.text =
                        edit::set_member(&self.text, &object, field, &format!("[{literal}]"));
                }
            }
        }
        self.actions.push(format!(
            "projected `{reference}` ({field}) for {}",
            projections.join(", ")
        ));
        Ok(())
    }

    fn skill(&mut self, spec: &ResourceSpec) -> Result<(), GenerateError> {
        let (segment, projections) = self.placement(spec, "skill")?;
        let directory = format!("{}/{}", Self::folder(&spec.owner, "skills"), spec.name);
        if self.root.join(&directory).symlink_metadata().is_ok() {
            return Err(GenerateError::Clash(format!(
                "`{directory}/` exists already"
            )));
        }
        let content = skill_text(&spec.name, spec.description.as_deref());
        self.create(format!("{directory}/SKILL.md"), content)?;
        let reference = format!("{}/{segment}/{}", self.id, spec.name);
        self.project(&reference, "package_skill_refs", &projections)
    }

    fn tool(&mut self, spec: &ResourceSpec) -> Result<(), GenerateError> {
        let (segment, projections) = self.placement(spec, "tool")?;
        let folder = Self::folder(&spec.owner, "tools");
        for extension in ["ts", "js"] {
            let file = format!("{folder}/{}.{extension}", spec.name);
            if self.root.join(&file).symlink_metadata().is_ok() {
                return Err(GenerateError::Clash(format!("`{file}` exists already")));
            }
        }
        let content = tool_text(&spec.name, spec.description.as_deref());
        self.create(format!("{folder}/{}.ts", spec.name), content)?;
        let reference = format!("{}/{segment}/{}", self.id, spec.name);
        self.project(&reference, "package_tool_refs", &projections)
    }

    fn mcp(&mut self, spec: &McpSpec) -> Result<(), GenerateError> {
        let (segment, projections) = self.placement(&spec.resource, "MCP server")?;
        url::Url::parse(&spec.url)
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https"))
            .ok_or_else(|| {
                GenerateError::Argument(format!(
                    "`{}` is not an http: or https: URL; packages declare remote servers only",
                    spec.url
                ))
            })?;
        if !matches!(spec.transport.as_str(), "streamable-http" | "sse") {
            return Err(GenerateError::Argument(format!(
                "transport `{}` is not `streamable-http` or `sse`",
                spec.transport
            )));
        }
        for name in spec
            .tools
            .iter()
            .chain(&spec.prompts)
            .chain(&spec.resources)
        {
            if name.is_empty() || name.contains(['/', '\\']) {
                return Err(GenerateError::Argument(format!(
                    "capability name `{name}` must be non-empty, without `/` or `\\`"
                )));
            }
        }
        let folder = Self::folder(&spec.resource.owner, "mcp");
        for extension in ["jsonc", "json"] {
            let file = format!("{folder}/{}.{extension}", spec.resource.name);
            if self.root.join(&file).symlink_metadata().is_ok() {
                return Err(GenerateError::Clash(format!("`{file}` exists already")));
            }
        }
        let content = mcp_text(spec);
        self.create(format!("{folder}/{}.jsonc", spec.resource.name), content)?;
        let reference = format!("{}/{segment}/{}", self.id, spec.resource.name);
        self.project(&reference, "package_mcp_server_refs", &projections)
    }
}

/// The prompt `squad scaffold agent` writes for an agent labelled `label`.
pub fn prompt_text(label: &str, description: Option<&str>) -> String {
    let mut text = format!("You are the {label}");
    if let Some(description) = description {
        text.push_str(&format!(": {}", description.trim_end_matches('.')));
    }
    text.push_str(".\n\nDo the task you are given end to end, check your own result, and report exactly what you did and what remains.\n");
    text
}

/// The SKILL.md `squad scaffold skill` writes for the skill `name`.
pub fn skill_text(name: &str, description: Option<&str>) -> String {
    let description = description.map_or_else(
        || {
            format!(
                "When and how to apply the {} method.",
                title_case(name).to_lowercase()
            )
        },
        str::to_owned,
    );
    format!(
        "---\nname: {name}\ndescription: {}\n---\n\n# {}\n\nThe steps to follow, the checks to make, and what a good result looks like.\n",
        yaml_scalar(&description),
        title_case(name)
    )
}

/// The tool `squad scaffold tool` writes for the tool `name`: a default export of `tool(...)`.
pub fn tool_text(name: &str, description: Option<&str>) -> String {
    let description = description.map_or_else(|| title_case(name), str::to_owned);
    format!(
        "import {{ tool }} from \"@opencorvus-ai/plugin\";\n\nexport default tool({{\n  description: {},\n  args: {{}},\n  async execute(args: {{ input: string }}) {{\n    return args.input;\n  }},\n}});\n",
        serde_json::to_string(&description).unwrap_or_default()
    )
}

/// The declaration `squad scaffold mcp` writes: a remote server with its capabilities.
pub fn mcp_text(spec: &McpSpec) -> String {
    let mut capabilities = Map::new();
    for (key, names) in [
        ("tools", &spec.tools),
        ("prompts", &spec.prompts),
        ("resources", &spec.resources),
    ] {
        if !names.is_empty() {
            capabilities.insert(key.into(), json!(names));
        }
    }
    let declaration = json!({
        "type": "remote",
        "url": spec.url,
        "transport": spec.transport,
        "capabilities": capabilities,
    });
    let comment = spec
        .resource
        .description
        .clone()
        .unwrap_or_else(|| format!("The {} MCP server.", spec.resource.name));
    format!(
        "// {comment}\n{}\n",
        serde_json::to_string_pretty(&declaration).unwrap_or_default()
    )
}

/// A one-line YAML scalar: plain when that reads back as the same string, else double-quoted.
fn yaml_scalar(text: &str) -> String {
    let plain = !text.is_empty()
        && !text.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@` ".contains(c))
        && !text.contains(": ")
        && !text.contains(" #")
        && !text.ends_with([' ', ':'])
        && !text.contains(['\n', '\r'])
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "null" | "on" | "off" | "~"
        )
        && text.parse::<f64>().is_err();
    if plain {
        text.to_owned()
    } else {
        serde_json::to_string(text).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_titles() {
        assert_eq!(title_case("incident-review"), "Incident Review");
        assert_eq!(title_case("qa2"), "Qa2");
    }

    #[test]
    fn yaml_scalars_stay_strings() {
        assert_eq!(yaml_scalar("How to triage."), "How to triage.");
        assert_eq!(yaml_scalar("yes"), "\"yes\"");
        assert_eq!(yaml_scalar("a: b"), "\"a: b\"");
        assert_eq!(yaml_scalar("2026"), "\"2026\"");
        assert_eq!(yaml_scalar("- item"), "\"- item\"");
    }

    #[test]
    fn new_errors_are_told_from_old_ones_by_their_words() {
        use crate::diag::Code;
        let old = Diagnostic::new(Code::MissingField, "x", "missing `a`");
        let new = Diagnostic::new(Code::MissingField, "x", "missing `b`");
        let only = std::slice::from_ref(&old);
        assert!(new_errors(only, only).is_empty());
        assert_eq!(new_errors(only, &[old.clone(), new.clone()]), [new]);
        assert_eq!(new_errors(&[], &[old.clone(), old.clone()]).len(), 2);
    }
}
