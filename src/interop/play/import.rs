//! `squad import play`: a play becomes a squad package (seed-formats §1.8). Roles become
//! agents, phases one workflow whose id is the squad id, checks review nodes; what a squad
//! cannot express goes to warnings and to the `play-extras.json` sidecar.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::model::{Play, Role};
use crate::diag::{Code, Diagnostic};
use crate::digest::Sha256Digest;
use crate::interop::document::{Document, join};
use crate::manifest::{IdKind, MANIFEST_FILE, RESOURCE_KEYS, id_problem};
use crate::new_package::NewError;
use crate::source::SourceFile;

/// The three rules every play keeps whatever it says (seed-formats §1.2), verbatim.
pub const INVARIANTS: [&str; 3] = [
    "A child's end never ends its parent.",
    "A person's message never waits behind new work.",
    "A child's budget is a slice of its parent's.",
];

#[derive(Debug, Clone)]
pub struct ImportOptions {
    pub namespace: String,
    /// `YYYY.MM.DD.N`; computed from today and the play's version when absent.
    pub version: String,
    /// Sorted and de-duplicated by the caller or here.
    pub pillars: Vec<String>,
    /// Play id or role id → squad id or agent id.
    pub renames: Vec<(String, String)>,
    /// Role id → base role.
    pub base_roles: Vec<(String, String)>,
    pub unroll_rounds: bool,
}

/// A converted play: the package files, the sidecar files and the warnings.
#[derive(Debug)]
pub struct Imported {
    pub squad_id: String,
    pub files: Vec<(String, Vec<u8>)>,
    /// `source.play.json` and `play-extras.json`.
    pub sidecars: Vec<(String, Vec<u8>)>,
    pub warnings: Vec<Diagnostic>,
}

/// What `squad import play` is asked for: the play file, the package folder to create, where
/// the sidecars go (default `<DIR>/../interop/openvibe/<id>`), and the conversion's options
/// (`version` is computed from today and the play when absent).
pub struct Request<'a> {
    pub file: &'a Path,
    pub dir: &'a Path,
    pub extras: Option<&'a Path>,
    pub namespace: String,
    pub version: Option<String>,
    pub pillars: Vec<String>,
    pub renames: Vec<(String, String)>,
    pub base_roles: Vec<(String, String)>,
    pub unroll_rounds: bool,
}

/// A package made from a play, and what to tell about it.
pub struct Done {
    pub play_id: String,
    pub namespace: String,
    pub squad_id: String,
    pub version: String,
    pub extras_dir: PathBuf,
    /// The play's notes and what the package cannot express, about the play's text.
    pub warnings: Vec<Diagnostic>,
    pub source: SourceFile,
}

/// Why a play did not become a package. Nothing was written, except where the package was
/// and a sidecar was not ([`ImportError::Sidecar`]).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read `{}`", .0.display())]
    Read(PathBuf, #[source] std::io::Error),
    /// Not JSON, or too large: the finding, about the text read.
    #[error("`{}` is not a play; nothing was written", path.display())]
    NotAPlay {
        path: PathBuf,
        diagnostics: Vec<Diagnostic>,
        /// The text the diagnostics point into.
        text: SourceFile,
    },
    #[error("`{}` is not a valid play; nothing was written", path.display())]
    InvalidPlay {
        path: PathBuf,
        diagnostics: Vec<Diagnostic>,
        /// The text the diagnostics point into.
        text: SourceFile,
    },
    #[error("--version `{version}`: {problem}")]
    Version {
        version: String,
        problem: crate::version::VersionError,
    },
    #[error("--pillar `{0}` is not a product pillar")]
    Pillar(String),
    /// A valid play that a squad cannot express (an id that cannot be one, for instance).
    #[error("`{}` cannot become a squad; nothing was written", path.display())]
    Unconvertible {
        path: PathBuf,
        diagnostics: Vec<Diagnostic>,
        /// The text the diagnostics point into.
        text: SourceFile,
    },
    #[error("--extras `{}` is inside the package; a package root holds only its own files", .0.display())]
    ExtrasInside(PathBuf),
    #[error("the imported package is not valid; nothing was created")]
    InvalidPackage(Box<crate::package::Report>),
    #[error(transparent)]
    Write(NewError),
    #[error("the package was created, but `{}` could not be written", .0.display())]
    Sidecar(PathBuf, #[source] std::io::Error),
}

impl ImportError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            ImportError::NotAPlay { .. }
            | ImportError::InvalidPlay { .. }
            | ImportError::Unconvertible { .. }
            | ImportError::InvalidPackage(_) => crate::error::Class::Refused,
            ImportError::Write(error) => error.class(),
            ImportError::Read(..)
            | ImportError::Version { .. }
            | ImportError::Pillar(_)
            | ImportError::ExtrasInside(_)
            | ImportError::Sidecar(..) => crate::error::Class::Failed,
        }
    }
}

/// `squad import play`: reads and checks the play, converts it, writes the package as `squad
/// new` does (staged, validated, renamed into place), then the sidecars beside it.
pub fn import(request: &Request<'_>, today: crate::version::Date) -> Result<Done, ImportError> {
    use crate::interop::document::{self, Read};
    let path = request.file.to_path_buf();
    let not_a_play = |unparsed: Box<document::Unparsed>| ImportError::NotAPlay {
        path: path.clone(),
        diagnostics: vec![unparsed.diagnostic],
        text: unparsed.source,
    };
    // The sidecar keeps the file's own bytes, even where they are not UTF-8.
    let (document, bytes) = match document::read_bytes(request.file) {
        Ok(Ok(bytes)) => match Document::from_bytes(&bytes) {
            Read::Parsed(document) => (document, bytes),
            Read::Unparsed(unparsed) => return Err(not_a_play(unparsed)),
        },
        Ok(Err(too_large)) => return Err(not_a_play(too_large)),
        Err(error) => return Err(ImportError::Read(path, error)),
    };
    let mut findings = document.notes.clone();
    super::check(&document, crate::interop::Level::Spec, &mut findings);
    let play = match Play::from_value(&document.value) {
        Some(play) if !crate::diag::has_errors(&findings) => play,
        _ => {
            return Err(ImportError::InvalidPlay {
                path,
                diagnostics: findings,
                text: document.source,
            });
        }
    };
    let version = match &request.version {
        Some(version) => match crate::version::Version::parse(version) {
            Ok(_) => version.clone(),
            Err(problem) => {
                return Err(ImportError::Version {
                    version: version.clone(),
                    problem,
                });
            }
        },
        None => default_version(&play, today),
    };
    if let Some(pillar) = request
        .pillars
        .iter()
        .find(|pillar| !crate::manifest::PRODUCT_PILLARS.contains(&pillar.as_str()))
    {
        return Err(ImportError::Pillar(pillar.clone()));
    }
    let options = ImportOptions {
        namespace: request.namespace.clone(),
        version,
        pillars: request.pillars.clone(),
        renames: request.renames.clone(),
        base_roles: request.base_roles.clone(),
        unroll_rounds: request.unroll_rounds,
    };
    let imported = match convert(&document, &bytes, &play, &options) {
        Ok(imported) => imported,
        Err(errors) => {
            return Err(ImportError::Unconvertible {
                path,
                diagnostics: errors,
                text: document.source,
            });
        }
    };
    let extras_dir = request.extras.map_or_else(
        || {
            let parent = request.dir.parent().unwrap_or(Path::new(""));
            parent
                .join("interop")
                .join("openvibe")
                .join(&imported.squad_id)
        },
        Path::to_path_buf,
    );
    if let Some((inside, _)) = std::path::absolute(&extras_dir)
        .ok()
        .zip(std::path::absolute(request.dir).ok())
        .filter(|(extras, dir)| extras.starts_with(dir))
    {
        return Err(ImportError::ExtrasInside(inside));
    }
    match crate::new_package::write_package(request.dir, &imported.files) {
        Ok(_) => {}
        Err(NewError::Invalid(report)) => return Err(ImportError::InvalidPackage(report)),
        Err(error) => return Err(ImportError::Write(error)),
    }
    write_sidecars(&extras_dir, &imported.sidecars)
        .map_err(|(path, error)| ImportError::Sidecar(path, error))?;
    let mut warnings = document.notes;
    warnings.extend(imported.warnings);
    Ok(Done {
        play_id: play.id,
        namespace: options.namespace,
        squad_id: imported.squad_id,
        version: options.version,
        extras_dir,
        warnings,
        source: document.source,
    })
}

fn write_sidecars(
    dir: &Path,
    files: &[(String, Vec<u8>)],
) -> Result<(), (PathBuf, std::io::Error)> {
    crate::fs::create_dir_all(dir).map_err(|error| (dir.to_path_buf(), error))?;
    for (name, bytes) in files {
        let path = dir.join(name);
        crate::fs::replace_file(&path, bytes).map_err(|error| (path.clone(), error))?;
    }
    Ok(())
}

/// The version a play gets when `--version` is not given: today + the play's version.
pub fn default_version(play: &Play, today: crate::version::Date) -> String {
    format!(
        "{:04}.{:02}.{:02}.{}",
        today.year,
        today.month,
        today.day,
        play.version.unwrap_or(1).max(1)
    )
}

struct NodeOut {
    id: String,
    agent: String,
    description: String,
    depends_on: BTreeSet<String>,
}

/// Converts a valid play. Errors (ids that cannot be squad ids, blank instructions) are
/// returned all at once, positioned in the play.
/// `source` is the play file's bytes, kept verbatim in `source.play.json` and hashed for
/// `source_sha256`.
pub fn convert(
    document: &Document,
    source: &[u8],
    play: &Play,
    options: &ImportOptions,
) -> Result<Imported, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let renamed = |id: &str| -> String {
        options
            .renames
            .iter()
            .find(|(old, _)| old == id)
            .map_or_else(|| id.to_owned(), |(_, new)| new.clone())
    };
    let squad_id = renamed(&play.id);
    if let Some((_, problem)) = id_problem(&squad_id, IdKind::Package) {
        errors.push(
            document
                .at(
                    Code::ImportPlayId,
                    "/id",
                    format!("the play id cannot be the squad id: {problem}"),
                )
                .help(format!(
                    "pass --rename {}=NEW-ID with a lower-kebab-case id",
                    play.id
                )),
        );
    }
    let mut agent_ids: HashMap<&str, String> = HashMap::new();
    for (index, role) in play.roles.iter().enumerate() {
        let pointer = join("/roles", index);
        let agent = renamed(&role.id);
        if let Some((_, problem)) = id_problem(&agent, IdKind::Agent) {
            errors.push(
                document
                    .at(
                        Code::ImportPlayAgentId,
                        &join(&pointer, "id"),
                        format!("role id cannot be an agent id: {problem}"),
                    )
                    .help(format!("pass --rename {}=NEW-ID", role.id)),
            );
        }
        if role.does.trim().is_empty() {
            errors.push(document.at(
                Code::ImportPlayDoes,
                &join(&pointer, "does"),
                format!(
                    "role `{}` has blank instructions; its prompt would be blank",
                    role.id
                ),
            ));
        }
        if role.count_min.unwrap_or(1) > 1 || role.count_max.unwrap_or(1) > 1 {
            warnings.push(document.at(
                Code::ImportPlayCount,
                &join(&pointer, "count"),
                format!(
                    "role `{}` may run {} at once; a squad node runs once per Task (kept in play-extras.json and the prompt)",
                    role.id,
                    count_text(role)
                ),
            ));
        }
        if role.model.is_some() {
            warnings.push(document.at(
                Code::ImportPlayModel,
                &join(&pointer, "model"),
                format!("role `{}`'s model hint has no manifest field; it is kept in play-extras.json and the prompt", role.id),
            ));
        }
        if role.agent.is_some() {
            warnings.push(document.at(
                Code::ImportPlayAgent,
                &join(&pointer, "agent"),
                format!("role `{}`'s fixed agent has no manifest field; it is kept in play-extras.json and the prompt", role.id),
            ));
        }
        if let Some((other, _)) = agent_ids.iter().find(|(_, taken)| **taken == agent) {
            errors.push(
                document
                    .at(
                        Code::ImportPlayAgentId,
                        &join(&pointer, "id"),
                        format!("role `{}` would become agent `{agent}`, which role `{other}` already is", role.id),
                    )
                    .help("each role needs its own agent id: check the --rename arguments"),
            );
        }
        agent_ids.insert(role.id.as_str(), agent);
    }
    for (role, _) in &options.base_roles {
        if play.role(role).is_none() {
            errors.push(document.at(
                Code::ImportPlayAgentId,
                "/roles",
                format!("--base-role names `{role}`, which is not a role of the play"),
            ));
        }
    }
    let unroll = options.unroll_rounds && play.stop_when == "rounds" && play.stop_rounds.is_some();
    if matches!(play.stop_when.as_str(), "passes" | "rounds") && !unroll {
        warnings.push(document.at(
            Code::ImportPlayLoop,
            "/stop",
            format!(
                "the play repeats ({}); a squad workflow runs once per Task, so the rule goes into the Orchestrator prompt",
                stop_sentence(play)
            ),
        ));
    }
    let agent_of = |role: &str| {
        agent_ids
            .get(role)
            .cloned()
            .unwrap_or_else(|| role.to_owned())
    };
    let nodes = build_nodes(document, play, &agent_of, unroll, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let workflows = match nodes {
        None => Map::new(),
        Some(nodes) => {
            let mut node_map = Map::new();
            for node in nodes {
                node_map.insert(
                    node.id,
                    json!({
                        "agent_id": node.agent,
                        "description": node.description,
                        "depends_on": node.depends_on.into_iter().collect::<Vec<_>>(),
                    }),
                );
            }
            let mut workflow = Map::new();
            workflow.insert(
                "label".into(),
                Value::String(non_blank(&play.name).unwrap_or(&squad_id).to_owned()),
            );
            workflow.insert(
                "description".into(),
                Value::String(summary_or_name(play).unwrap_or(&squad_id).to_owned()),
            );
            workflow.insert("nodes".into(), Value::Object(node_map));
            let mut workflows = Map::new();
            workflows.insert(squad_id.clone(), Value::Object(workflow));
            workflows
        }
    };
    let manifest = manifest(play, options, &squad_id, &agent_of, workflows);
    let text = format!(
        "// Imported from the agents.play@1 play `{}` by `squad import play`.\n// What a squad cannot express (model hints, counts, budget shares, loops) is in\n// interop/openvibe/{squad_id}/play-extras.json beside this package.\n{}\n",
        play.id,
        serde_json::to_string_pretty(&manifest).unwrap_or_default()
    );
    let lead = summary_or_name(play).unwrap_or(&squad_id).to_owned();
    let title = non_blank(&play.name).unwrap_or(&squad_id);
    let mut files = vec![
        (MANIFEST_FILE.to_owned(), text.into_bytes()),
        (
            "README.md".to_owned(),
            format!("# {title}\n\n{lead}\n").into_bytes(),
        ),
        (
            "selector.md".to_owned(),
            format!("{lead}\n\n{}\n", stop_sentence(play)).into_bytes(),
        ),
        (
            "agents/orchestrator/system.md".to_owned(),
            orchestrator_prompt(play, document, &squad_id, &agent_of).into_bytes(),
        ),
    ];
    for role in &play.roles {
        files.push((
            format!("agents/{}/system.md", agent_of(&role.id)),
            role_prompt(play, role, &agent_of).into_bytes(),
        ));
    }
    let mut shares = Vec::new();
    let extras = extras(play, document, source, &agent_of, &mut shares);
    let sidecars = vec![
        ("source.play.json".to_owned(), source.to_vec()),
        (
            "play-extras.json".to_owned(),
            extras_text(&extras, &shares).into_bytes(),
        ),
    ];
    warnings.sort_by_key(|warning| warning.span.as_ref().map(|span| span.start));
    Ok(Imported {
        squad_id,
        files,
        sidecars,
        warnings,
    })
}

fn non_blank(text: &str) -> Option<&str> {
    (!crate::text::js_trim(text).is_empty()).then_some(text)
}

fn summary_or_name(play: &Play) -> Option<&str> {
    play.summary
        .as_deref()
        .and_then(non_blank)
        .or_else(|| non_blank(&play.name))
}

fn count_text(role: &Role) -> String {
    match (role.count_min, role.count_max) {
        (Some(min), Some(max)) => format!("{min} to {max}"),
        (Some(min), None) => format!("at least {min}"),
        (None, Some(max)) => format!("up to {max}"),
        (None, None) => "one".to_owned(),
    }
}

/// The stop rule as one sentence for prompts and the selector.
pub fn stop_sentence(play: &Play) -> String {
    let cap = |rounds: Option<u64>| {
        rounds.map_or(String::new(), |rounds| {
            format!(" Stop after at most {rounds} rounds.")
        })
    };
    match play.stop_when.as_str() {
        "done" => "Finish when the workflow completes.".to_owned(),
        "person" => "Finish only when the person says so.".to_owned(),
        "passes" => format!(
            "Finish when the checks pass; until then, run the work again with the checkers' notes.{}",
            cap(play.stop_rounds)
        ),
        _ => match play.stop_rounds {
            Some(rounds) => format!("Finish after {rounds} rounds of the workflow."),
            None => "Finish after the number of rounds the person sets.".to_owned(),
        },
    }
}

/// Nodes of the one workflow, or `None` when the play declares no order (no phases, no checks).
fn build_nodes(
    document: &Document,
    play: &Play,
    agent_of: &dyn Fn(&str) -> String,
    unroll: bool,
    errors: &mut Vec<Diagnostic>,
) -> Option<Vec<NodeOut>> {
    if play.phases.is_none() && play.checks.is_empty() {
        return None;
    }
    let mut nodes: Vec<NodeOut> = Vec::new();
    let mut taken: HashSet<String> = HashSet::new();
    let mut add = |node: NodeOut,
                   pointer: &str,
                   nodes: &mut Vec<NodeOut>,
                   errors: &mut Vec<Diagnostic>| {
        if let Some((_, problem)) = id_problem(&node.id, IdKind::Plain) {
            errors.push(
                document
                    .at(Code::ImportPlayNodeId, pointer, format!("generated node id is invalid: {problem}"))
                    .help(format!("node ids are <phase id>-<role id>; shorten the role with --rename {}=SHORTER", node.agent)),
            );
        } else if !taken.insert(node.id.clone()) {
            errors.push(document.at(
                Code::ImportPlayNodeId,
                pointer,
                format!("generated node id `{}` is not unique (phase and role ids join to the same string)", node.id),
            ));
        } else {
            nodes.push(node);
        }
    };
    match &play.phases {
        Some(phases) => {
            let rounds = if unroll {
                play.stop_rounds.unwrap_or(1)
            } else {
                1
            };
            let mut terminal: BTreeSet<String> = BTreeSet::new();
            for round in 1..=rounds {
                let suffix = if unroll {
                    format!("-r{round}")
                } else {
                    String::new()
                };
                for (index, phase) in phases.iter().enumerate() {
                    let pointer = join("/phases", index);
                    let label = phase
                        .name
                        .as_deref()
                        .and_then(non_blank)
                        .unwrap_or(&phase.id);
                    let mut this_phase = BTreeSet::new();
                    let mut previous: Option<String> = None;
                    for role in &phase.roles {
                        let agent = agent_of(role);
                        let id = format!("{}-{agent}{suffix}", phase.id);
                        let depends_on = match (&previous, phase.parallel) {
                            (Some(previous), false) => BTreeSet::from([previous.clone()]),
                            _ => terminal.clone(),
                        };
                        let does = play.role(role).map_or("", |role| role.does.trim());
                        add(
                            NodeOut {
                                id: id.clone(),
                                agent,
                                description: format!("{label}: {does}"),
                                depends_on,
                            },
                            &pointer,
                            &mut nodes,
                            errors,
                        );
                        if phase.parallel {
                            this_phase.insert(id);
                        } else {
                            previous = Some(id);
                        }
                    }
                    terminal = if phase.parallel {
                        this_phase
                    } else {
                        previous.into_iter().collect()
                    };
                }
            }
        }
        None => {
            for (index, role) in play.roles.iter().enumerate() {
                let agent = agent_of(&role.id);
                add(
                    NodeOut {
                        id: agent.clone(),
                        agent,
                        description: role.does.trim().to_owned(),
                        depends_on: BTreeSet::new(),
                    },
                    &join("/roles", index),
                    &mut nodes,
                    errors,
                );
            }
        }
    }
    for (index, check) in play.checks.iter().enumerate() {
        let pointer = join("/checks", index);
        let by = agent_of(&check.by);
        let of = agent_of(&check.of);
        let of_nodes: BTreeSet<String> = nodes
            .iter()
            .filter(|node| node.agent == of)
            .map(|node| node.id.clone())
            .collect();
        let ancestors = |id: &str, nodes: &[NodeOut]| -> HashSet<String> {
            let mut seen = HashSet::new();
            let mut stack = vec![id.to_owned()];
            while let Some(current) = stack.pop() {
                if let Some(node) = nodes.iter().find(|node| node.id == current) {
                    for dependency in &node.depends_on {
                        if seen.insert(dependency.clone()) {
                            stack.push(dependency.clone());
                        }
                    }
                }
            }
            seen
        };
        let reviewer = nodes.iter().position(|node| {
            node.agent == by && {
                let before = ancestors(&node.id, &nodes);
                of_nodes.iter().all(|of_node| before.contains(of_node))
            }
        });
        match reviewer {
            Some(position) => {
                if let Some(bar) = check.bar.as_deref().and_then(non_blank) {
                    let node = &mut nodes[position];
                    node.description = format!("{} Bar for {of}: {}", node.description, bar.trim());
                }
            }
            None => {
                let base = format!("check-{by}-{of}");
                let mut id = base.clone();
                let mut counter = 2;
                while nodes.iter().any(|node| node.id == id) {
                    id = format!("{base}-{counter}");
                    counter += 1;
                }
                let description = match check.bar.as_deref().and_then(non_blank) {
                    Some(bar) => format!("Check {of}: {}", bar.trim()),
                    None => format!("Check {of}"),
                };
                add(
                    NodeOut {
                        id,
                        agent: by,
                        description,
                        depends_on: of_nodes,
                    },
                    &pointer,
                    &mut nodes,
                    errors,
                );
            }
        }
    }
    // `"phases": []` without checks declares no order either: direct dispatch.
    (!nodes.is_empty()).then_some(nodes)
}

fn projection(base_role: &str, prompt: &str, tools: &[&str]) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("base_role".into(), json!(base_role));
    if base_role == "integrity" {
        map.insert(
            "execution_contract".into(),
            json!("platform_integrity_review"),
        );
    }
    map.insert("prompt".into(), json!(prompt));
    for key in RESOURCE_KEYS {
        let value = match key {
            "inherit_base_tools" => json!(true),
            "built_in_tool_ids" => json!(tools),
            _ => json!([]),
        };
        map.insert(key.into(), value);
    }
    map
}

fn manifest(
    play: &Play,
    options: &ImportOptions,
    squad_id: &str,
    agent_of: &dyn Fn(&str) -> String,
    workflows: Map<String, Value>,
) -> Value {
    // The play's text is copied verbatim (seed-formats §1.8); only `name` is left out when it
    // is blank, as MAN-4 requires.
    let lead = play.summary.as_deref().unwrap_or(&play.name);
    let mut top = Map::new();
    top.insert("schema_version".into(), json!(1));
    top.insert("namespace".into(), json!(options.namespace));
    top.insert("id".into(), json!(squad_id));
    if let Some(name) = non_blank(&play.name) {
        top.insert("name".into(), json!(name));
    }
    top.insert("label".into(), json!(play.name));
    if let Some(summary) = &play.summary {
        top.insert("description".into(), json!(summary));
    }
    top.insert("version".into(), json!(options.version));
    let pillars: BTreeSet<&str> = options.pillars.iter().map(String::as_str).collect();
    let pillars: Vec<&str> = if pillars.is_empty() {
        vec!["work"]
    } else {
        pillars.into_iter().collect()
    };
    top.insert("product_pillars".into(), json!(pillars));
    top.insert("readme".into(), json!("README.md"));
    top.insert(
        "selector".into(),
        json!({"summary": lead, "selection_guidance": lead, "instructions": "selector.md"}),
    );
    let mut agents = Map::new();
    for role in &play.roles {
        let id = agent_of(&role.id);
        let base = options
            .base_roles
            .iter()
            .find(|(name, _)| *name == role.id || *name == id)
            .map_or("delegated-worker", |(_, base)| base.as_str());
        let mut agent = Map::new();
        agent.insert(
            "label".into(),
            json!(role.name.as_deref().and_then(non_blank).unwrap_or(&id)),
        );
        if let Some(does) = non_blank(role.does.trim()) {
            agent.insert("description".into(), json!(does));
        }
        agent.extend(projection(base, &format!("agents/{id}/system.md"), &[]));
        agents.insert(id, Value::Object(agent));
    }
    top.insert(
        "capability_projection".into(),
        json!({
            "scheduler": Value::Object(projection("orchestrator", "agents/orchestrator/system.md", &["dispatch_agent"])),
            "agents": Value::Object(agents),
            "virtual_workflows": Value::Object(workflows),
        }),
    );
    Value::Object(top)
}

fn orchestrator_prompt(
    play: &Play,
    document: &Document,
    squad_id: &str,
    agent_of: &dyn Fn(&str) -> String,
) -> String {
    let mut text = format!(
        "# {}: orchestrator\n\nYou run the agents.play@1 play `{}` as the squad `{squad_id}`.",
        non_blank(&play.name).unwrap_or(squad_id),
        play.id
    );
    if let Some(summary) = play.summary.as_deref().and_then(non_blank) {
        text.push(' ');
        text.push_str(summary.trim());
    }
    text.push_str("\n\n## Rules that hold whatever the play says\n\n");
    for rule in INVARIANTS {
        text.push_str(&format!("- {rule}\n"));
    }
    text.push_str(&format!("\n## When to stop\n\n{}\n", stop_sentence(play)));
    if !play.split.is_empty() {
        text.push_str("\n## Budget\n\nGive each role this share of your budget, at most:\n\n");
        for (role, share) in &play.split {
            text.push_str(&format!(
                "- `{}`: {}\n",
                agent_of(role),
                share_text(document, role, share)
            ));
        }
    }
    let notes: Vec<String> = play
        .roles
        .iter()
        .filter_map(|role| {
            let mut parts = Vec::new();
            if role.count_min.is_some() || role.count_max.is_some() {
                parts.push(format!("may run {} at once", count_text(role)));
            }
            if let Some(consults) = role.consults {
                parts.push(format!("may be consulted at most {consults} times"));
            }
            if let Some(model) = &role.model {
                parts.push(format!("has the model hint {}", model_words(model)));
            }
            if let Some(agent) = &role.agent {
                parts.push(format!("is always the agent `{agent}`"));
            }
            (!parts.is_empty())
                .then(|| format!("- `{}` {}.\n", agent_of(&role.id), parts.join("; ")))
        })
        .collect();
    if !notes.is_empty() {
        text.push_str("\n## Roles\n\n");
        text.push_str(&notes.concat());
    }
    text
}

fn model_words(model: &str) -> &'static str {
    match model {
        "small" => "`small` (the cheapest model that can do it)",
        "strong" => "`strong` (the best model available)",
        "same" => "`same` (the parent's model)",
        _ => "`other-family` (a model of another family than the one it checks)",
    }
}

fn role_prompt(play: &Play, role: &Role, agent_of: &dyn Fn(&str) -> String) -> String {
    let mut text = format!("{}\n", role.does.trim());
    let mut lines = Vec::new();
    if let Some(model) = &role.model {
        lines.push(format!("- Model hint: {}.", model_words(model)));
    }
    if let Some(agent) = &role.agent {
        lines.push(format!("- This role is always the agent `{agent}`."));
    }
    if role.count_min.is_some() || role.count_max.is_some() {
        lines.push(format!(
            "- {} of you may run at once.",
            capitalise(&count_text(role))
        ));
    }
    if let Some(consults) = role.consults {
        lines.push(format!(
            "- Other roles may consult you at most {consults} times."
        ));
    }
    for check in play.checks.iter().filter(|check| check.by == role.id) {
        match check.bar.as_deref().and_then(non_blank) {
            Some(bar) => lines.push(format!(
                "- You check the work of `{}` against this bar: {}",
                agent_of(&check.of),
                bar.trim()
            )),
            None => lines.push(format!(
                "- You check the work of `{}`.",
                agent_of(&check.of)
            )),
        }
    }
    if !lines.is_empty() {
        text.push('\n');
        text.push_str(&lines.join("\n"));
        text.push('\n');
    }
    text
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

fn extras(
    play: &Play,
    document: &Document,
    source: &[u8],
    agent_of: &dyn Fn(&str) -> String,
    shares: &mut Vec<(String, String)>,
) -> Value {
    let mut roles = Map::new();
    for role in &play.roles {
        let mut kept = Map::new();
        for key in ["model", "agent", "count", "consults"] {
            if let Some(value) = role.raw.get(key) {
                kept.insert(key.into(), value.clone());
            }
        }
        if !kept.is_empty() {
            roles.insert(agent_of(&role.id), Value::Object(kept));
        }
    }
    let mut extras = Map::new();
    extras.insert("format".into(), json!("agents.play@1"));
    extras.insert("play_id".into(), json!(play.id));
    extras.insert(
        "source_sha256".into(),
        json!(Sha256Digest::of(source).hex()),
    );
    extras.insert("roles".into(), Value::Object(roles));
    let mut stop = Map::new();
    stop.insert("when".into(), json!(play.stop_when));
    if let Some(rounds) = play.stop_rounds {
        stop.insert("rounds".into(), json!(rounds));
    }
    extras.insert("stop".into(), Value::Object(stop));
    if !play.checks.is_empty() {
        extras.insert(
            "checks".into(),
            Value::Array(
                play.checks
                    .iter()
                    .map(|check| {
                        let mut item = Map::new();
                        item.insert("by".into(), json!(agent_of(&check.by)));
                        item.insert("of".into(), json!(agent_of(&check.of)));
                        if let Some(bar) = &check.bar {
                            item.insert("bar".into(), json!(bar));
                        }
                        Value::Object(item)
                    })
                    .collect(),
            ),
        );
    }
    if !play.split.is_empty() {
        let mut split = Map::new();
        for (index, (role, share)) in play.split.iter().enumerate() {
            let marker = format!("\u{1}squad-share-{index}\u{1}");
            shares.push((marker.clone(), share_text(document, role, share)));
            split.insert(agent_of(role), Value::String(marker));
        }
        extras.insert("budget".into(), json!({ "split": split }));
    }
    if let Some(visibility) = &play.visibility {
        extras.insert("visibility".into(), json!(visibility));
    }
    if let Some(author) = &play.author {
        extras.insert("author".into(), author.clone());
    }
    Value::Object(extras)
}

/// A budget share exactly as the play wrote it (`0.1000000000000000000001` stays that, not
/// the nearest f64).
fn share_text(document: &Document, role: &str, share: &Value) -> String {
    document
        .number_text(&join("/budget/split", role))
        .map_or_else(|| share.to_string(), str::to_owned)
}

/// Serialises the extras with each budget share written as its exact source text. Shares go in
/// as unique string markers and are swapped for the number text after serialisation.
fn extras_text(extras: &Value, shares: &[(String, String)]) -> String {
    let mut text = serde_json::to_string_pretty(extras).unwrap_or_default();
    for (marker, number) in shares {
        let quoted = serde_json::to_string(marker).unwrap_or_default();
        if text.matches(&quoted).count() == 1 {
            text = text.replace(&quoted, number);
        }
    }
    text + "\n"
}
