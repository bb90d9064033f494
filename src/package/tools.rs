//! Package tools checked statically (TL-1…TL-4, TLP-1) and the reachability of `lib/` and
//! `assets/` files (LIB-1, AST-1).
//!
//! The reference bundles each tool with Bun and derives its closure from the bundler. `squad`
//! parses every file of the closure with [`tool_parse`](super::tool_parse), reports what does
//! not parse, walks the same imports — static imports, re-exports, `import x = require()`,
//! literal `import()` and `require()` — and applies the same policy to the specifiers and to the
//! files they resolve to. It also checks that each tool's default export is a `tool(...)` call.
//! Bundling the code and running it are left to the runtime.

use std::collections::{HashMap, HashSet};

use super::resources::{Discovered, Tool};
use super::tool_parse::{self, DefaultExport, ImportKind, Language, ModuleInfo, PLUGIN_MODULE};
use super::{Context, Owner};
use crate::diag::{Code, Diagnostic};
use crate::source::SourceFile;

const ALLOWED_CORE_MODULES: [&str; 10] = [
    "node:assert",
    "node:buffer",
    "node:crypto",
    "node:os",
    "node:path",
    "node:url",
    "node:util",
    "node:zlib",
    "node:fs",
    "node:fs/promises",
];
const ALLOWED_BARE_MODULES: [&str; 2] = ["@opencorvus-ai/plugin", "typescript"];
const LIBRARY_EXTENSIONS: [&str; 3] = ["ts", "js", "json"];
const ASSET_EXTENSIONS: [&str; 8] = ["ts", "js", "json", "html", "md", "txt", "css", "svg"];

fn is_relative(specifier: &str) -> bool {
    specifier == "."
        || specifier == ".."
        || specifier.starts_with("./")
        || specifier.starts_with("../")
}

/// Files whose imports are followed (`\.(?:[cm]?[jt]sx?)$`).
fn is_tracked_code(path: &str) -> bool {
    Language::of(path).is_some()
}

/// The lower-cased extension: the reference compares `extname(path).toLowerCase()`.
fn extension(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.')
        .map_or(String::new(), |(_, extension)| {
            extension.to_ascii_lowercase()
        })
}

/// What the walk learnt about one file: its parse, or why it was not parsed.
type Parsed = Result<ModuleInfo, tool_parse::NotChecked>;

/// The closures walked so far.
#[derive(Default)]
struct Walk {
    parsed: HashMap<String, Parsed>,
    /// Files in some tool's closure.
    reached: HashSet<String>,
    /// Roots (`lib`, `assets`, `agents/<a>/lib`) a tool whose closure is not fully known may
    /// import from: a file that does not parse hides its imports.
    unknown_roots: HashSet<String>,
}

/// Returns every file that was parsed, by path.
pub fn check(
    context: &mut Context,
    discovered: &Discovered,
) -> std::collections::BTreeMap<String, ModuleInfo> {
    let mut walk = Walk::default();
    for tool in &discovered.tools {
        walk_tool(context, tool, &mut walk);
    }
    let library: Vec<String> = context
        .tree
        .files()
        .filter(|entry| {
            library_root(&entry.path).is_some_and(|root| !walk.unknown_roots.contains(&root))
        })
        .map(|entry| entry.path.clone())
        .collect();
    for path in library {
        if walk.reached.contains(&path) {
            continue;
        }
        let (code, message) = if path.starts_with("assets/") {
            (
                Code::UnreachableAsset,
                format!("`{path}`: package asset is not reachable from a projected tool"),
            )
        } else {
            (
                Code::UnreachableLibraryFile,
                format!("`{path}`: package library file is not reachable from a projected tool"),
            )
        };
        context.diagnostics.push(
            Diagnostic::new(code, &path, message)
                .help("lib/ and assets/ hold only files that a tool imports; delete it, or move model-readable material into a skill directory"),
        );
    }
    if let Some(first) = discovered.tools.first() {
        context.diagnostics.push(
            Diagnostic::new(
                Code::ToolsNotCompiled,
                &first.path,
                format!(
                    "{} package tool(s) parsed and checked statically: syntax, imports and default export; bundling them with Bun and running them are left to the OpenCorvus runtime",
                    discovered.tools.len()
                ),
            ),
        );
    }
    walk.parsed
        .into_iter()
        .filter_map(|(path, parsed)| Some((path, parsed.ok()?)))
        .collect()
}

/// The allowed import root a path lies in (`lib`, `assets` or `agents/<a>/lib`), if any.
fn library_root(path: &str) -> Option<String> {
    if path.starts_with("lib/") {
        return Some("lib".to_owned());
    }
    if path.starts_with("assets/") {
        return Some("assets".to_owned());
    }
    let rest = path.strip_prefix("agents/")?;
    let (agent, inside) = rest.split_once('/')?;
    inside
        .starts_with("lib/")
        .then(|| format!("agents/{agent}/lib"))
}

fn walk_tool(context: &mut Context, tool: &Tool, walk: &mut Walk) {
    let mut allowed = vec!["lib".to_owned(), "assets".to_owned()];
    if let Owner::Agent(owner) = &tool.owner {
        allowed.push(format!("agents/{owner}/lib"));
    }
    let mut visited: HashSet<String> = HashSet::new();
    let mut queue = vec![tool.path.clone()];
    while let Some(file) = queue.pop() {
        if !visited.insert(file.clone()) {
            continue;
        }
        if !walk.parsed.contains_key(&file) {
            let Some(parsed) = parse_file(context, &file) else {
                continue;
            };
            walk.parsed.insert(file.clone(), parsed);
        }
        // A file that does not parse hides imports, so what the tool reaches is not known.
        let parses = walk.parsed[&file]
            .as_ref()
            .is_ok_and(|info| info.syntax_errors.is_empty());
        if !parses {
            walk.unknown_roots.extend(allowed.iter().cloned());
        }
        let Ok(info) = &walk.parsed[&file] else {
            continue;
        };
        if file == tool.path && parses {
            if let Some(diagnostic) = default_export_problem(&file, &info.default_export) {
                context.diagnostics.push(diagnostic);
            }
        }
        for problem in &info.non_literal {
            let call = if problem.kind == ImportKind::Require {
                "require()"
            } else {
                "import()"
            };
            context.diagnostics.push(
                Diagnostic::new(Code::NonLiteralImport, &file, format!("dynamic {call} must take a single string literal"))
                    .span(problem.span.clone())
                    .span_label("not a string literal")
                    .help("tools are bundled ahead of time: name every module with a literal so its closure can be checked"),
            );
        }
        // The module policy (TL-4) applies to every import that is not type-only, used or not.
        // What the bundler then loads is another matter: TypeScript drops an import whose
        // bindings are never used as values (import elision), so such an import of a package
        // file is neither resolved nor followed. JavaScript keeps every import.
        let imports: Vec<(String, std::ops::Range<usize>, bool)> = info
            .imports
            .iter()
            .map(|record| (record.specifier.clone(), record.span.clone(), record.elided))
            .collect();
        for (specifier, span, elided) in imports {
            if elided && is_relative(&specifier) {
                continue;
            }
            let target = match resolve_relative(context, &file, &specifier, &allowed) {
                Ok(target) => target,
                Err((target, (code, message, help))) => {
                    let mut diagnostic = Diagnostic::new(code, &file, message)
                        .span(span.clone())
                        .help(help);
                    // `fs` for `node:fs`: the prefix goes in after the opening quote.
                    let prefixed = format!("node:{specifier}");
                    if code == Code::UnsupportedModule
                        && ALLOWED_CORE_MODULES.contains(&prefixed.as_str())
                    {
                        diagnostic = diagnostic.suggest(crate::diag::Suggestion::replace(
                            format!("write `{prefixed}`"),
                            span.start + 1..span.start + 1,
                            "node:",
                        ));
                    }
                    context.diagnostics.push(diagnostic);
                    target
                }
            };
            if let Some(target) = target {
                // In the closure even with an unsupported extension: that has its own diagnostic.
                walk.reached.insert(target.clone());
                if is_tracked_code(&target) {
                    queue.push(target);
                }
            }
        }
    }
}

/// Reads and parses a tracked code file, reporting its syntax errors (or why it was not parsed)
/// once; `None` when it cannot be read.
fn parse_file(context: &mut Context, file: &str) -> Option<Parsed> {
    let text = context.read_lossy(file)?;
    let language = Language::of(file).unwrap_or(Language::TYPESCRIPT);
    let parsed = tool_parse::parse(&text, language);
    match &parsed {
        Ok(info) => {
            for error in &info.syntax_errors {
                let mut diagnostic = Diagnostic::new(Code::ToolSyntax, file, &error.message)
                    .span(error.span.clone());
                if let Some(label) = &error.label {
                    diagnostic = diagnostic.span_label(label);
                }
                for (span, text) in &error.related {
                    diagnostic = diagnostic.label(span.clone(), text);
                }
                if let Some(help) = &error.help {
                    diagnostic = diagnostic.help(help);
                }
                context.diagnostics.push(diagnostic.help(
                    "the OpenCorvus runtime compiles every tool and the files it imports with Bun, which refuses a file that does not parse",
                ));
            }
        }
        Err(not_checked) => context.diagnostics.push(
            Diagnostic::new(
                Code::ToolsNotCompiled,
                file,
                format!("`{file}` was not parsed: {}", not_checked.reason),
            )
            .as_warning()
            .help("its syntax and imports, and the files it imports, are left to the OpenCorvus runtime"),
        ),
    }
    context
        .sources
        .insert(file.to_owned(), SourceFile::new(text));
    Some(parsed)
}

/// The tool ABI (TL-5): the runtime loads a tool from its module's default export, a tool
/// definition made by `tool({...})`.
fn default_export_problem(file: &str, export: &DefaultExport) -> Option<Diagnostic> {
    let help = format!(
        "write `export default tool({{ description, args, execute }})` with `import {{ tool }} from \"{PLUGIN_MODULE}\"`; the runtime loads the tool from this export"
    );
    match export {
        DefaultExport::ToolCall => None,
        DefaultExport::Missing => Some(
            Diagnostic::new(
                Code::ToolDefaultExport,
                file,
                format!("`{file}` has no default export, so it defines no tool"),
            )
            .help(help),
        ),
        DefaultExport::Other { span, what } => Some(
            Diagnostic::new(
                Code::ToolDefaultExport,
                file,
                format!("the default export of `{file}` is {what}, not a `tool(...)` call"),
            )
            .span(span.clone())
            .span_label("the runtime expects a tool definition here")
            .help(help),
        ),
    }
}

type ImportProblem = (Code, String, String);

type Resolution = Result<Option<String>, (Option<String>, ImportProblem)>;

/// Applies TL-2…TL-4 to one specifier: the package file it brings into the closure (if any),
/// and with `Err` the problem with it.
fn resolve_relative(
    context: &Context,
    importer: &str,
    specifier: &str,
    allowed: &[String],
) -> Resolution {
    if !is_relative(specifier) {
        return check_external(specifier)
            .map(|()| None)
            .map_err(|problem| (None, problem));
    }
    let base = importer
        .rsplit_once('/')
        .map_or("", |(directory, _)| directory);
    let crosses = || {
        (
            Code::ImportCrossesBoundary,
            format!("relative import `{specifier}` crosses its owner boundary"),
            format!(
                "tools may import only from {}",
                allowed
                    .iter()
                    .map(|root| format!("`{root}/`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    };
    let Some(target) = normalize(base, specifier) else {
        return Err((None, crosses()));
    };
    let Some(root) = allowed.iter().find(|root| {
        // The root itself counts: `../lib` resolves to `lib/index.ts`.
        target == root.as_str()
            || (target.starts_with(root.as_str())
                && target.as_bytes().get(root.len()) == Some(&b'/'))
    }) else {
        return Err((None, crosses()));
    };
    let Some(resolved) = candidates(&target)
        .into_iter()
        .find(|candidate| context.tree.is_file(candidate))
    else {
        return Err((
            None,
            (
                Code::UnresolvedImport,
                format!("relative import `{specifier}` does not resolve to a file of the package"),
                format!(
                    "looked for `{target}` (an import without extension resolves to .ts or .js)"
                ),
            ),
        ));
    };
    let allowed_extensions: &[&str] = if root == "assets" {
        &ASSET_EXTENSIONS
    } else {
        &LIBRARY_EXTENSIONS
    };
    if !allowed_extensions.contains(&extension(&resolved).as_str()) {
        let problem = (
            Code::UnsupportedImportExtension,
            format!("library dependency `{resolved}` has unsupported extension"),
            format!(
                "files under `{root}/` may be {}",
                allowed_extensions
                    .iter()
                    .map(|e| format!(".{e}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
        return Err((Some(resolved), problem));
    }
    Ok(Some(resolved))
}

fn check_external(specifier: &str) -> Result<(), ImportProblem> {
    let bytes = specifier.as_bytes();
    let absolute = specifier.starts_with('/')
        || specifier.starts_with('\\')
        || specifier.starts_with("file:")
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':');
    if absolute {
        return Err((
            Code::AbsoluteImport,
            format!("import of absolute path `{specifier}` is not allowed"),
            "import package files with a relative path into lib/ or assets/".to_owned(),
        ));
    }
    if specifier.starts_with("node:") {
        if ALLOWED_CORE_MODULES.contains(&specifier) {
            return Ok(());
        }
        return Err((
            Code::UnsupportedModule,
            format!("imports unsupported core module `{specifier}`"),
            format!(
                "available core modules: {}",
                ALLOWED_CORE_MODULES.join(", ")
            ),
        ));
    }
    if ALLOWED_BARE_MODULES.contains(&specifier) {
        return Ok(());
    }
    let hint = if ALLOWED_CORE_MODULES.contains(&format!("node:{specifier}").as_str()) {
        format!("write `node:{specifier}`")
    } else {
        format!(
            "tools may import {} and {}; bundle other code into lib/",
            ALLOWED_BARE_MODULES.join(", "),
            ALLOWED_CORE_MODULES.join(", ")
        )
    };
    Err((
        Code::UnsupportedModule,
        format!("imports unsupported bare module `{specifier}`"),
        hint,
    ))
}

/// Joins a relative specifier onto a directory; `None` when it climbs above the root.
fn normalize(base: &str, specifier: &str) -> Option<String> {
    let mut segments: Vec<&str> = base
        .split('/')
        .filter(|segment| !segment.is_empty())
        .collect();
    for segment in specifier.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            other => segments.push(other),
        }
    }
    Some(segments.join("/"))
}

/// The files an import may mean, in Bun's order: the path itself, then with `.ts`/`.js`, a
/// `.js` import of a `.ts` file, then a directory's index.
fn candidates(target: &str) -> Vec<String> {
    let mut list = vec![target.to_owned()];
    list.push(format!("{target}.ts"));
    list.push(format!("{target}.js"));
    if let Some(stem) = target.strip_suffix(".js") {
        list.push(format!("{stem}.ts"));
    }
    list.push(format!("{target}/index.ts"));
    list.push(format!("{target}/index.js"));
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_within_root() {
        assert_eq!(normalize("tools", "../lib/a").as_deref(), Some("lib/a"));
        assert_eq!(normalize("tools", "./../../x"), None);
        assert_eq!(
            normalize("agents/a/tools", "../lib/x.ts").as_deref(),
            Some("agents/a/lib/x.ts")
        );
    }

    #[test]
    fn external_policy() {
        assert!(check_external("node:path").is_ok());
        assert!(check_external("@opencorvus-ai/plugin").is_ok());
        assert!(check_external("typescript").is_ok());
        assert_eq!(
            check_external("node:child_process").unwrap_err().0,
            Code::UnsupportedModule
        );
        assert_eq!(check_external("fs").unwrap_err().0, Code::UnsupportedModule);
        assert_eq!(
            check_external("@opencorvus-ai/plugin/tool").unwrap_err().0,
            Code::UnsupportedModule
        );
        assert_eq!(
            check_external("/etc/passwd").unwrap_err().0,
            Code::AbsoluteImport
        );
        assert_eq!(check_external("C:\\x").unwrap_err().0, Code::AbsoluteImport);
        assert_eq!(
            check_external("file:///x").unwrap_err().0,
            Code::AbsoluteImport
        );
    }

    #[test]
    fn tracked_code_extensions() {
        for yes in ["a.ts", "a.js", "a.mjs", "a.cts", "a.tsx", "a.jsx"] {
            assert!(is_tracked_code(yes), "{yes}");
        }
        for no in ["a.json", "a.md", "a", "a.mts.txt"] {
            assert!(!is_tracked_code(no), "{no}");
        }
    }
}
