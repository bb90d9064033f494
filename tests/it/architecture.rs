//! The shape of the source tree, held by tests: no import cycle between the top-level modules of
//! `src/`, no command file importing another, and ARCHITECTURE.md's module table naming every
//! top-level module (and nothing that is gone).
//!
//! The import graph is read from the source text: every `crate::NAME` path, including each
//! name of a `use crate::{a, b::c}` group, with comments left out. It is a deliberate
//! over-approximation (a path in a unit test counts as much as one in the library), so a cycle
//! can only be missed through `super::super::` paths that climb out of a top-level module,
//! which the tree does not use.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::repo;

/// Files of `src/cli/` that every command may use: argument groups, rendering, error
/// reporting, input checks and the JSON documents. Every other file of `src/cli/` is a
/// command's own.
const SHARED_CLI: &[&str] = &["mod", "args", "report", "failures", "inputs", "documents"];

/// One import: from a file, at a line, of a top-level module.
#[derive(Debug, Clone)]
struct Import {
    file: String,
    line: usize,
}

/// The top-level modules declared in `src/lib.rs`.
fn top_level_modules() -> Vec<String> {
    let lib = std::fs::read_to_string(repo().join("src/lib.rs")).unwrap();
    let modules: Vec<String> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("pub mod "))
        .map(|rest| rest.trim_end_matches(';').to_owned())
        .collect();
    assert!(modules.len() >= 30, "src/lib.rs declares {modules:?}");
    modules
}

fn rust_files(folder: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
}

/// The text without `//` comments (doc comments name modules in links, not imports). String
/// literals are kept: a `//` inside one only shortens what is searched on that line.
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn identifier_at(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The first names of every item of a use group that starts just after its `{`.
fn group_names(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut depth = 0usize;
    let mut item_start = 0;
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                names.push(identifier_at(text[item_start..at].trim_start()));
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                names.push(identifier_at(text[item_start..at].trim_start()));
                item_start = at + 1;
            }
            _ => {}
        }
    }
    names.retain(|name| !name.is_empty());
    names
}

/// Every `crate::NAME` (or `PREFIX::NAME`) path in `text`, with its 1-based line.
fn paths_after(text: &str, prefix: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices(prefix) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let line = text[..at].matches('\n').count() + 1;
        let rest = &text[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            found.extend(group_names(group).into_iter().map(|n| (n.to_owned(), line)));
        } else {
            found.push((identifier_at(rest).to_owned(), line));
        }
    }
    found
}

/// The graph between top-level modules: module → (module it imports → the imports).
type Graph = BTreeMap<String, BTreeMap<String, Vec<Import>>>;

fn import_graph() -> Graph {
    let modules: BTreeSet<String> = top_level_modules().into_iter().collect();
    let src = repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let relative = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let owner = relative
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_owned();
        if !modules.contains(&owner) {
            continue; // lib.rs and main.rs sit above every module
        }
        let text = without_comments(&std::fs::read_to_string(&file).unwrap());
        for (name, line) in paths_after(&text, "crate::") {
            if name != owner && modules.contains(&name) {
                graph
                    .entry(owner.clone())
                    .or_default()
                    .entry(name)
                    .or_default()
                    .push(Import {
                        file: format!("src/{relative}"),
                        line,
                    });
            }
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, node: &'g str) {
            let index = self.index.len();
            self.index.insert(node, index);
            self.low.insert(node, index);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.graph.get(node).into_iter().flatten() {
                if !self.index.contains_key(next.as_str()) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next.as_str()]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next.as_str()) {
                    let low = self.low[node].min(self.index[next.as_str()]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                while let Some(member) = self.stack.pop() {
                    self.on_stack.remove(member);
                    component.push(member.to_owned());
                    if member == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.found
}

fn edges(pairs: &[(&str, &str)]) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in pairs {
        graph
            .entry((*from).to_owned())
            .or_default()
            .insert((*to).to_owned());
        graph.entry((*to).to_owned()).or_default();
    }
    graph
}

#[test]
fn the_cycle_finder_finds_planted_cycles_and_nothing_else() {
    let acyclic = edges(&[("cli", "install"), ("install", "fs"), ("cli", "fs")]);
    assert!(cycles(&acyclic).is_empty());
    let planted = edges(&[
        ("cli", "install"),
        ("install", "listing"),
        ("listing", "name"),
        ("name", "install"),
        ("env", "version"),
        ("version", "env"),
        ("cli", "fs"),
    ]);
    assert_eq!(
        cycles(&planted),
        vec![vec!["install", "listing", "name"], vec!["env", "version"]]
    );
    let text = "use crate::{fs::{self, read}, env,\n  version::Date};\nlet x = crate::oci::Reference::parse(a);\nmy_crate::ignored;";
    let found: Vec<(String, usize)> = paths_after(text, "crate::");
    assert_eq!(
        found,
        [("fs", 1), ("env", 1), ("version", 1), ("oci", 3)]
            .map(|(name, line)| (name.to_owned(), line))
    );
}

#[test]
fn no_import_cycle_between_top_level_modules() {
    let graph = import_graph();
    assert!(
        graph.len() >= 20,
        "the import graph has only {} modules",
        graph.len()
    );
    let plain: BTreeMap<String, BTreeSet<String>> = graph
        .iter()
        .map(|(from, to)| (from.clone(), to.keys().cloned().collect()))
        .collect();
    let found = cycles(&plain);
    let mut report = String::new();
    for component in &found {
        report.push_str(&format!("cycle between {}:\n", component.join(", ")));
        for from in component {
            for to in component {
                if let Some(imports) = graph.get(from).and_then(|to_map| to_map.get(to)) {
                    let first = &imports[0];
                    report.push_str(&format!(
                        "  {from} -> {to} ({}:{}{})\n",
                        first.file,
                        first.line,
                        if imports.len() > 1 {
                            format!(" and {} more", imports.len() - 1)
                        } else {
                            String::new()
                        }
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "Put what both sides need in a module below them:\n{report}"
    );
}

#[test]
fn no_command_file_imports_another() {
    let cli = repo().join("src/cli");
    let mut files = Vec::new();
    rust_files(&cli, &mut files);
    let commands: BTreeSet<String> = files
        .iter()
        .map(|file| file.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|stem| !SHARED_CLI.contains(&stem.as_str()))
        .collect();
    assert!(commands.len() >= 25, "{commands:?}");
    let mut offences = Vec::new();
    for file in &files {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        if stem == "mod" {
            continue; // dispatch names every command
        }
        let text = without_comments(&std::fs::read_to_string(file).unwrap());
        let mut imported = paths_after(&text, "super::");
        imported.extend(paths_after(&text, "crate::cli::"));
        for (name, line) in imported {
            if name != stem && commands.contains(&name) {
                offences.push(format!("src/cli/{stem}.rs:{line} imports cli::{name}"));
            }
        }
    }
    assert!(
        offences.is_empty(),
        "a command file uses another's code; move it to src/cli/{{args,report,failures,inputs}}.rs or into the library:\n{}",
        offences.join("\n")
    );
}

#[test]
fn architecture_md_maps_every_top_level_module() {
    let text = std::fs::read_to_string(repo().join("ARCHITECTURE.md")).unwrap();
    let table = text
        .split("## Modules")
        .nth(1)
        .expect("ARCHITECTURE.md has a `## Modules` section")
        .split("\n## ")
        .next()
        .unwrap();
    let mut named = BTreeSet::new();
    for row in table.lines().filter(|line| line.starts_with("| `")) {
        let first = row.split('|').nth(1).unwrap();
        for name in first.split('`').skip(1).step_by(2) {
            named.insert(name.to_owned());
        }
    }
    let src = repo().join("src");
    for name in &named {
        assert!(
            src.join(name).exists(),
            "ARCHITECTURE.md's module table names `{name}`, which is not in src/"
        );
    }
    let modules = top_level_modules();
    let missing: Vec<&String> = modules
        .iter()
        .filter(|module| {
            !named.contains(&format!("{module}/")) && !named.contains(&format!("{module}.rs"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's module table has no row for {missing:?} (name each as `module/` or `module.rs` in a row's first column)"
    );
}
