//! `squad fix` on a project's `squads.jsonc`: the machine-applicable suggestions of its
//! diagnostics (a misspelt key with one close match, a version written without its zeros)
//! applied in place as [`crate::fix`] applies a package's, pass after pass, every other byte
//! kept, and written atomically under the project lock. squads.lock is squad's and is never
//! "fixed": `squad sync` writes it.

use std::collections::HashMap;
use std::path::Path;

use crate::diag::Diagnostic;
use crate::fix::{Applied, Change, Plan};
use crate::package::Report;
use crate::source::SourceFile;

use super::{Project, ProjectError, declared, merge};

/// More passes than any chain of these fixes needs.
const MAX_PASSES: usize = 8;

/// `squads.jsonc` as `squad validate` would report it: its diagnostics and its text.
fn report(project: &Project, text: &str, diagnostics: Vec<Diagnostic>) -> Report {
    let mut sources = HashMap::new();
    sources.insert(declared::FILE.to_owned(), SourceFile::new(text.to_owned()));
    Report {
        root: project.root.clone(),
        diagnostics,
        sources,
        identity: None,
        tree: Default::default(),
        manifest: None,
        resources: Default::default(),
        modules: Default::default(),
    }
}

fn errors(diagnostics: &[Diagnostic]) -> usize {
    diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.severity() == crate::diag::Severity::Error)
        .count()
}

/// The diagnostics of `text`, conflict markers included.
fn check(text: &str) -> Vec<Diagnostic> {
    match merge::sides(text) {
        Some(_) => vec![
            Diagnostic::new(
                crate::diag::Code::SquadsSyntax,
                declared::FILE,
                "squads.jsonc has merge conflicts",
            )
            .help("resolve them in squads.jsonc first; `squad fix` does not choose between two branches"),
        ],
        None => declared::parse(text).1,
    }
}

/// Works out the fixes of the project's `squads.jsonc`; writes nothing. A pass that would
/// leave more errors than before is not taken.
pub fn plan(project: &Project) -> Result<Plan, ProjectError> {
    let path = project.declared_path();
    let before = super::read_optional(&path)?.ok_or(ProjectError::Undeclared(path))?;
    let mut text = before.clone();
    let mut diagnostics = check(&text);
    let mut applied = Vec::new();
    for _ in 0..MAX_PASSES {
        let suggestions: Vec<(&Diagnostic, &crate::diag::Suggestion)> = diagnostics
            .iter()
            .flat_map(|diagnostic| {
                diagnostic
                    .suggestions
                    .iter()
                    .filter(|suggestion| suggestion.is_machine_applicable())
                    .take(1)
                    .map(move |suggestion| (diagnostic, suggestion))
            })
            .collect();
        let (after, chosen) = crate::fix::apply(&text, suggestions.iter().map(|(_, s)| *s));
        if chosen.is_empty() {
            break;
        }
        let next = check(&after);
        if errors(&next) > errors(&diagnostics) {
            break;
        }
        applied.extend(chosen.iter().map(|&index| Applied {
            file: declared::FILE.to_owned(),
            code: suggestions[index].0.code,
            message: suggestions[index].1.message.clone(),
        }));
        text = after;
        diagnostics = next;
    }
    let changes = if text == before {
        Vec::new()
    } else {
        vec![Change {
            file: declared::FILE.to_owned(),
            before,
            after: text.clone(),
        }]
    };
    Ok(Plan {
        applied,
        changes,
        report: report(project, &text, diagnostics),
    })
}

/// Writes the plan's `squads.jsonc` atomically, under the project lock, if the file still holds
/// the text the plan started from; returns the file as it is now, checked.
pub fn write(
    project: &Project,
    plan: &Plan,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Report, ProjectError> {
    let config_root = project.config_root();
    let _guard = super::guard::ProjectGuard::acquire(&config_root, on_wait)
        .map_err(|error| ProjectError::Io(super::guard::path(&config_root), error))?;
    for change in &plan.changes {
        let current = super::read_optional(&project.declared_path())?;
        if current.as_deref() != Some(change.before.as_str()) {
            return Err(ProjectError::Io(
                project.declared_path(),
                std::io::Error::other(
                    "it changed while the fixes were worked out; nothing was written",
                ),
            ));
        }
        project.write_declared(&change.after)?;
    }
    let text = super::read_optional(&project.declared_path())?.unwrap_or_default();
    let diagnostics = check(&text);
    Ok(report(project, &text, diagnostics))
}
