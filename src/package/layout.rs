//! The package layout: where the source may live (VAL-1), what the root may hold (ROOT-1…3),
//! the texts every package needs (TXT-1…3) and the shape of `agents/` (AGD-1…3, PROJ-3).

use std::collections::BTreeSet;
use std::path::{Component, Path};

use super::Context;
use super::frontmatter;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::manifest::{MANIFEST_FILE, Manifest};
use crate::text::js_trim;

const TOP_LEVEL_FILES: [&str; 3] = [MANIFEST_FILE, "README.md", "selector.md"];
const TOP_LEVEL_DIRECTORIES: [&str; 6] = ["agents", "skills", "tools", "mcp", "lib", "assets"];
const AGENT_DIRECTORIES: [&str; 4] = ["skills", "tools", "mcp", "lib"];

/// VAL-1: a source package must not live inside OpenCorvus runtime storage or an installed
/// packages root, where the reference would refuse to import it.
pub fn check_source_location(root: &Path, diagnostics: &mut Diagnostics) {
    let Ok(canonical) = root.canonicalize() else {
        return;
    };
    let names: Vec<String> = canonical
        .components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let inside_storage = names.windows(2).any(|pair| {
        pair[0] == ".opencorvus"
            && matches!(
                pair[1].as_str(),
                ".r" | "runtime" | "worktrees" | "expert-squads" | "expert-squad-staging"
            )
    }) || names
        .iter()
        .any(|name| name == ".opencorvus-worktrees" || name == "expert-squad-staging")
        || crate::env::global_config_root().is_some_and(|config| {
            ["expert-squads", "expert-squad-staging"]
                .iter()
                .any(|child| canonical.starts_with(config.join(child)))
        });
    if inside_storage {
        diagnostics.push(
            Diagnostic::new(
                Code::SourceInRuntimeStorage,
                ".",
                format!(
                    "expert squad source directory `{}` is inside OpenCorvus runtime storage",
                    canonical.display()
                ),
            )
            .help("copy the package to a folder of its own and validate that copy"),
        );
    }
}

/// LIM-2 as `squad pack` and `squad publish` will apply it: a warning (a folder has no limits,
/// LIM-1), so CI is told before a release is refused. One rule with pack's
/// ([`crate::archive::reader::Limits::exceeded`]).
pub fn check_archive_limits(context: &mut Context) {
    let files: Vec<(String, u64)> = context
        .tree
        .files()
        .filter_map(|entry| {
            context
                .size(&entry.path)
                .map(|size| (entry.path.clone(), size))
        })
        .collect();
    for exceeded in crate::archive::reader::Limits::REFERENCE.exceeded(&files) {
        let file = exceeded.path.as_deref().unwrap_or(".");
        context.diagnostics.push(
            Diagnostic::new(
                Code::ArchiveLimit,
                file,
                format!("{} (LIM-2)", exceeded.message),
            )
            .help("`squad pack` and `squad publish` refuse a package beyond the reference's import limits; split large files or move them out of the package"),
        );
    }
}

/// ROOT-2's two required files and ROOT-3: with ROOT-1 and FBD-1…3 (checked while the tree is
/// captured), the tree contract a package digest requires (DG-1). `selector.md` is not part of
/// it: validation requires it ([`check_texts`]), the digest does not.
pub fn check_root(context: &mut Context) {
    let top_level: Vec<(String, bool)> = context
        .tree
        .entries
        .iter()
        .filter(|entry| !entry.path.contains('/'))
        .map(|entry| (entry.path.clone(), entry.is_file()))
        .collect();
    for (name, is_file) in &top_level {
        let diagnostic = if TOP_LEVEL_FILES.contains(&name.as_str()) {
            (!is_file).then(|| {
                Diagnostic::new(
                    Code::WrongEntryType,
                    name,
                    format!("top-level entry `{name}` must be a file"),
                )
            })
        } else if TOP_LEVEL_DIRECTORIES.contains(&name.as_str()) {
            is_file.then(|| {
                Diagnostic::new(
                    Code::WrongEntryType,
                    name,
                    format!("top-level entry `{name}` must be a directory"),
                )
            })
        } else {
            Some(
                Diagnostic::new(
                    Code::UnknownTopLevelEntry,
                    name,
                    format!("unknown top-level entry `{name}`"),
                )
                .help("the package root may hold only expert-squad.jsonc, README.md, selector.md and the directories agents/, skills/, tools/, mcp/, lib/, assets/; keep other files outside the package"),
            )
        };
        if let Some(diagnostic) = diagnostic {
            context.diagnostics.push(diagnostic);
        }
    }
    for (file, what) in [
        (
            MANIFEST_FILE,
            "expert squad package root: missing expert-squad.jsonc",
        ),
        ("README.md", "expert squad package root: missing README.md"),
    ] {
        missing_root_file(context, file, what);
    }
}

fn missing_root_file(context: &mut Context, file: &str, what: &str) {
    if context.tree.get(file).is_none() {
        context.diagnostics.push(
            Diagnostic::new(Code::MissingFile, file, what)
                .help(format!("create `{file}` at the package root")),
        );
    }
}

/// TXT-1…TXT-3 and AGD-3: README, selector and prompts exist and are not blank, and every
/// `agents/<a>/system.md` has a prompt declaration.
pub fn check_texts(context: &mut Context, manifest: Option<&Manifest>) {
    // Checked through `selector.instructions` in the reference, so a validation rule only.
    missing_root_file(
        context,
        "selector.md",
        "selector.instructions: referenced file does not exist",
    );
    if context.tree.is_file("README.md") {
        if let Some(text) = context.read_lossy("README.md") {
            let block = frontmatter::split(&text);
            // The runtime parses the block (gray-matter with js-yaml), so a broken one fails.
            if let Some(Err(error)) = block.as_ref().map(|block| block.data()) {
                let end = (error.offset + 1).min(text.len());
                context.diagnostics.push(
                    Diagnostic::new(
                        Code::ReadmeFrontmatter,
                        "README.md",
                        format!("readme: invalid frontmatter: {}", error.message),
                    )
                    .span(error.offset..end)
                    .help("README.md may start with a YAML block between `---` lines; fix it or remove it"),
                );
            }
            let content = block.as_ref().map_or(text.as_str(), |block| block.content);
            if js_trim(content).is_empty() {
                context.diagnostics.push(
                    Diagnostic::new(Code::BlankFile, "README.md", "readme: referenced file is blank")
                        .help("README.md is the runtime prompt appended to the Orchestrator; write it (a YAML frontmatter block alone counts as blank)"),
                );
            }
            context.keep("README.md", text);
        }
    }
    if context.tree.is_file("selector.md") {
        if let Some(text) = context.read_lossy("selector.md") {
            if js_trim(&text).is_empty() {
                context.diagnostics.push(
                    Diagnostic::new(
                        Code::BlankFile,
                        "selector.md",
                        "selector.instructions: referenced file is blank",
                    )
                    .help("selector.md tells the runtime when to choose this squad; write it"),
                );
            }
            context.keep("selector.md", text);
        }
    }
    let Some(manifest) = manifest else {
        return;
    };
    // An agent whose key is invalid (say `orchestrator`) has its own diagnostic; judging its
    // files would only repeat it.
    for projection in manifest
        .projections()
        .filter(|projection| projection.key_valid)
    {
        let path = format!("agents/{}/system.md", projection.owner);
        let declared_canonical = projection
            .prompt
            .as_ref()
            .is_some_and(|prompt| prompt.value == path);
        let exists = context.tree.get(&path);
        if declared_canonical {
            let prompt = projection.prompt.as_ref().expect("checked above");
            match exists {
                None => context.diagnostics.push(
                    Diagnostic::new(
                        Code::MissingFile,
                        MANIFEST_FILE,
                        format!(
                            "{}.prompt: referenced file `{path}` does not exist",
                            projection.context()
                        ),
                    )
                    .span(prompt.span.clone())
                    .pointer(prompt.pointer.clone())
                    .help(format!("create `{path}`, or remove the prompt declaration")),
                ),
                Some(entry) if !entry.is_file() => context.diagnostics.push(Diagnostic::new(
                    Code::WrongEntryType,
                    &path,
                    format!("agents.{}.system.md: expected file", projection.owner),
                )),
                Some(_) => {
                    if let Some(text) = context.read_lossy(&path) {
                        if js_trim(&text).is_empty() {
                            context.diagnostics.push(Diagnostic::new(
                                Code::BlankFile,
                                &path,
                                format!(
                                    "{}.prompt: referenced file is blank",
                                    projection.context()
                                ),
                            ));
                        }
                        context.keep(&path, text);
                    }
                }
            }
        } else if !projection.prompt_declared && exists.is_some_and(|entry| entry.is_file()) {
            context.diagnostics.push(
                Diagnostic::new(
                    Code::UndeclaredPrompt,
                    &path,
                    format!("agents.{}.system.md: file requires a prompt declaration on its capability projection", projection.owner),
                )
                .help(format!("add \"prompt\": \"{path}\" to {}", projection.pointer_display())),
            );
        }
    }
}

/// AGD-1, AGD-2 and PROJ-3, over the files below `agents/` (a directory without files is
/// invisible to these rules, as in the reference, ROOT-3a).
pub fn check_agent_directories(context: &mut Context, manifest: &Manifest) {
    let mut reported: BTreeSet<String> = BTreeSet::new();
    let mut diagnostics = Vec::new();
    for entry in context.tree.files_under("agents") {
        let relative = &entry.path["agents/".len()..];
        let Some((agent, inside)) = relative.split_once('/') else {
            diagnostics.push(
                Diagnostic::new(
                    Code::WrongEntryType,
                    &entry.path,
                    format!("agents.{relative}: expected directory"),
                )
                .help("agents/ holds one directory per agent: agents/<agent-id>/system.md"),
            );
            continue;
        };
        let agent_directory = format!("agents/{agent}");
        if agent != "orchestrator"
            && manifest.agents_known
            && manifest.agent(agent).is_none()
            && reported.insert(agent_directory.clone())
        {
            diagnostics.push(
                Diagnostic::new(
                    Code::UndeclaredAgentDirectory,
                    &agent_directory,
                    format!(
                        "agents.{agent}: directory requires capability_projection.agents.{agent}"
                    ),
                )
                .help(format!(
                    "declare agent `{agent}` in the manifest, or remove the directory"
                )),
            );
        }
        let (first, nested) = match inside.split_once('/') {
            Some((first, _)) => (first, true),
            None => (inside, false),
        };
        let first_path = format!("{agent_directory}/{first}");
        let problem = if first == "system.md" {
            nested.then(|| {
                Diagnostic::new(
                    Code::WrongEntryType,
                    &first_path,
                    format!("agents.{agent}.system.md: expected file"),
                )
            })
        } else if AGENT_DIRECTORIES.contains(&first) {
            (!nested).then(|| {
                Diagnostic::new(
                    Code::WrongEntryType,
                    &first_path,
                    format!("agents.{agent}.{first}: expected directory"),
                )
            })
        } else {
            Some(
                Diagnostic::new(Code::UnexpectedAgentEntry, &first_path, format!("agents.{agent}.{first}: unexpected package entry"))
                    .help("an agent directory holds only system.md and the directories skills/, tools/, mcp/, lib/"),
            )
        };
        if let Some(problem) = problem {
            if reported.insert(first_path) {
                diagnostics.push(problem);
            }
        }
    }
    for diagnostic in diagnostics {
        context.diagnostics.push(diagnostic);
    }
}
