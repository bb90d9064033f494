//! The one path policy `squad` applies at validate, pack and install (PATH-S), as diagnostics:
//! the rules themselves are [`crate::path_rules`], which the ZIP reader applies too.

use std::collections::HashMap;

use super::tree::Tree;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::path_rules::{
    MAX_NAME_BYTES, MAX_PATH_CHARS, fold, length_problem, path_problem, segment_problem,
};

/// Applies PATH-S to every entry of the tree.
pub fn check(tree: &Tree, diagnostics: &mut Diagnostics) {
    let mut folded: HashMap<String, &str> = HashMap::with_capacity(tree.entries.len());
    for entry in &tree.entries {
        // Each directory is an entry of its own, so checking the last segment covers every
        // segment of every path exactly once.
        let name = entry.name();
        let problem = if entry.path == name {
            path_problem(name)
        } else {
            segment_problem(name)
        };
        if let Some(problem) = problem {
            diagnostics.push(
                Diagnostic::new(
                    Code::NonPortablePath,
                    &entry.path,
                    format!("package path `{}` {problem}", entry.path),
                )
                .help("package paths must be portable: NFC, no `<>:\"|?*\\` or control characters, no trailing dot or space, no Windows device names"),
            );
        }
        if let Some(problem) = length_problem(&entry.path) {
            diagnostics.push(
                Diagnostic::new(Code::LongPath, &entry.path, format!("package path {problem}"))
                    .help(format!("installed under `<scope>/<namespace>/<id>/`, it must fit Windows' 260-character limit; keep names under {MAX_NAME_BYTES} bytes and paths under {MAX_PATH_CHARS} characters")),
            );
        }
        if let Some(first) = folded.insert(fold(&entry.path), &entry.path) {
            diagnostics.push(
                Diagnostic::new(
                    Code::PathCaseCollision,
                    &entry.path,
                    format!("`{}` and `{first}` differ only by case", entry.path),
                )
                .help(
                    "they would overwrite each other on a case-insensitive filesystem; rename one",
                ),
            );
        }
    }
}
