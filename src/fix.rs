//! `squad fix`: the machine-applicable suggestions of a package's diagnostics, applied in place
//! as `cargo fix` and `ruff --fix` do.
//!
//! Fixes are worked out on a copy of the package, pass after pass (one fix can reveal the
//! next: a repeat removed, then the list sorted), until no pass applies anything. Each edit is
//! a splice of the file's text, so comments and layout are kept. Only then are the changed
//! files written back, each atomically, and only if nobody changed them in the meantime.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use crate::diag::{Code, Diagnostic, Edit, Severity, Suggestion};
use crate::fs::ScratchDirectory;
use crate::package::{self, Report, ValidateError};

/// More passes than any chain of fixes needs (the longest is one missing resource array
/// added per pass); a bound keeps a fix that undoes another from looping.
const MAX_PASSES: usize = 32;

/// One suggestion that was applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub file: String,
    pub code: Code,
    pub message: String,
}

/// A file whose text the fixes changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub file: String,
    pub before: String,
    pub after: String,
}

/// What `squad fix` would do to a package.
#[derive(Debug)]
pub struct Plan {
    pub applied: Vec<Applied>,
    /// In path order.
    pub changes: Vec<Change>,
    /// The package as it would be after the fixes, checked on the copy.
    pub report: Report,
}

/// Why the fixes could not be worked out or written.
#[derive(Debug, thiserror::Error)]
pub enum FixError {
    #[error(transparent)]
    Validate(ValidateError),
    #[error("cannot {0}")]
    Io(String, #[source] std::io::Error),
    /// A file changed on disk between planning and writing.
    #[error("`{0}` changed while the fixes were worked out; nothing was written to it")]
    Changed(String),
}

/// Works out every fix of the package at `root` on a copy of it; writes nothing there.
pub fn plan(root: &Path) -> Result<Plan, FixError> {
    let first = package::validate(root).map_err(FixError::Validate)?;
    let scratch = ScratchDirectory::new("fix")
        .map_err(|error| FixError::Io("create a copy".into(), error))?;
    scratch
        .copy_tree(root)
        .map_err(|error| FixError::Io(format!("copy `{}`", root.display()), error))?;
    let mut originals: BTreeMap<String, String> = BTreeMap::new();
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    let mut applied = Vec::new();
    let mut report = first;
    for _ in 0..MAX_PASSES {
        let pass = apply_pass(root, &report, &mut texts);
        if pass.is_empty() {
            break;
        }
        for change in &pass {
            originals
                .entry(change.file.clone())
                .or_insert_with(|| change.before.clone());
            scratch
                .write(&change.file, change.after.as_bytes())
                .map_err(|error| FixError::Io(format!("write `{}`", change.file), error))?;
        }
        let next = package::validate(scratch.path()).map_err(FixError::Validate)?;
        // A fix must never make things worse; if a pass did, it is undone and the work stops.
        // A file that did not parse hid its other errors: once it parses, they are no regression.
        let was_unparsed = report
            .diagnostics
            .iter()
            .any(|diagnostic| diagnostic.code == Code::JsoncSyntax);
        if !was_unparsed && errors(&next.diagnostics) > errors(&report.diagnostics) {
            for change in &pass {
                texts.insert(change.file.clone(), change.before.clone());
                let _ = scratch.write(&change.file, change.before.as_bytes());
            }
            break;
        }
        applied.extend(pass.into_iter().flat_map(|change| change.applied));
        report = next;
    }
    report.root = root.to_path_buf();
    let changes = originals
        .into_iter()
        .filter_map(|(file, before)| {
            let after = texts.get(&file)?.clone();
            (after != before).then_some(Change {
                file,
                before,
                after,
            })
        })
        .collect();
    Ok(Plan {
        applied,
        changes,
        report,
    })
}

/// Writes the plan's changes into the package at `root`, each file atomically, refusing a file
/// that no longer holds the text the plan started from.
pub fn write(root: &Path, plan: &Plan) -> Result<(), FixError> {
    for change in &plan.changes {
        let path = root.join(&change.file);
        let current = crate::fs::read(&path)
            .map_err(|error| FixError::Io(format!("read `{}`", change.file), error))?;
        if current != change.before.as_bytes() {
            return Err(FixError::Changed(change.file.clone()));
        }
        crate::fs::replace_file(&path, change.after.as_bytes())
            .map_err(|error| FixError::Io(format!("write `{}`", change.file), error))?;
    }
    Ok(())
}

/// The diagnostics `squad fix` can resolve: those with a machine-applicable suggestion.
pub fn fixable(diagnostics: &[Diagnostic]) -> usize {
    diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.is_fixable())
        .count()
}

fn errors(diagnostics: &[Diagnostic]) -> usize {
    diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.severity() == Severity::Error)
        .count()
}

/// One file's changes in one pass.
struct PassChange {
    file: String,
    before: String,
    after: String,
    applied: Vec<Applied>,
}

/// Applies the non-overlapping machine-applicable suggestions of `report`, file by file.
/// `texts` holds the current text of every file changed so far.
fn apply_pass(
    root: &Path,
    report: &Report,
    texts: &mut BTreeMap<String, String>,
) -> Vec<PassChange> {
    let mut by_file: BTreeMap<&str, Vec<&Diagnostic>> = BTreeMap::new();
    for diagnostic in &report.diagnostics {
        if diagnostic.is_fixable() {
            by_file
                .entry(&diagnostic.file)
                .or_default()
                .push(diagnostic);
        }
    }
    let mut changes = Vec::new();
    for (file, diagnostics) in by_file {
        let Some(source) = report.sources.get(file) else {
            continue;
        };
        // The text as validated must be the file's bytes: a file read with replacement
        // characters is never written back.
        let before = match texts.get(file) {
            Some(text) => text.clone(),
            None => match crate::fs::read(root.join(file)) {
                Ok(bytes) if bytes == source.text.as_bytes() => source.text.clone(),
                _ => continue,
            },
        };
        if before != source.text {
            continue;
        }
        let suggestions: Vec<(&Diagnostic, &Suggestion)> = diagnostics
            .iter()
            .flat_map(|diagnostic| {
                diagnostic
                    .suggestions
                    .iter()
                    .filter(|suggestion| suggestion.is_machine_applicable())
                    .take(1)
                    .map(move |suggestion| (*diagnostic, suggestion))
            })
            .collect();
        let (after, chosen) = apply(&before, suggestions.iter().map(|(_, s)| *s));
        if chosen.is_empty() {
            continue;
        }
        let applied = chosen
            .iter()
            .map(|&index| Applied {
                file: file.to_owned(),
                code: suggestions[index].0.code,
                message: suggestions[index].1.message.clone(),
            })
            .collect();
        texts.insert(file.to_owned(), after.clone());
        changes.push(PassChange {
            file: file.to_owned(),
            before,
            after,
            applied,
        });
    }
    changes
}

/// `text` with the suggestions applied that touch nothing an earlier one touched (in order of
/// their first edit), and the indices of those applied. A suggestion is applied whole or not
/// at all; two edits that touch, even at one point, conflict.
pub fn apply<'a>(
    text: &str,
    suggestions: impl IntoIterator<Item = &'a Suggestion>,
) -> (String, Vec<usize>) {
    let mut candidates: Vec<(usize, &Suggestion)> = suggestions.into_iter().enumerate().collect();
    candidates.sort_by_key(|(index, suggestion)| {
        (
            suggestion.edits.iter().map(|edit| edit.span.start).min(),
            *index,
        )
    });
    let mut taken: Vec<Range<usize>> = Vec::new();
    let mut edits: Vec<&Edit> = Vec::new();
    let mut chosen = Vec::new();
    'candidates: for (index, suggestion) in candidates {
        let valid = suggestion.edits.iter().all(|edit| {
            edit.span.start <= edit.span.end
                && edit.span.end <= text.len()
                && text.is_char_boundary(edit.span.start)
                && text.is_char_boundary(edit.span.end)
        });
        if !valid || suggestion.edits.is_empty() {
            continue;
        }
        for (position, edit) in suggestion.edits.iter().enumerate() {
            let touches =
                |span: &Range<usize>| edit.span.start <= span.end && span.start <= edit.span.end;
            if taken.iter().any(touches)
                || suggestion.edits[..position]
                    .iter()
                    .any(|other| touches(&other.span))
            {
                continue 'candidates;
            }
        }
        taken.extend(suggestion.edits.iter().map(|edit| edit.span.clone()));
        edits.extend(&suggestion.edits);
        chosen.push(index);
    }
    edits.sort_by_key(|edit| std::cmp::Reverse(edit.span.start));
    let mut out = text.to_owned();
    for edit in edits {
        out.replace_range(edit.span.clone(), &edit.replacement);
    }
    chosen.sort_unstable();
    (out, chosen)
}

/// A unified diff of a change, with `a/` and `b/` paths under `shown`, as `git diff` prints.
pub fn unified_diff(shown: &str, change: &Change) -> String {
    let path = crate::diag::sarif::display_file(shown, &change.file);
    similar::TextDiff::from_lines(&change.before, &change.after)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace(span: Range<usize>, with: &str) -> Suggestion {
        Suggestion::replace("r", span, with)
    }

    #[test]
    fn overlapping_suggestions_wait_for_the_next_pass() {
        let text = "[\"b\", \"a\", \"a\"]";
        let suggestions = [
            replace(1..4, "\"a\""),
            replace(6..9, "\"b\""),
            replace(6..9, "\"c\""),
            replace(9..10, ""),
        ];
        let (out, chosen) = apply(text, &suggestions);
        // The third edits what the second edits; the fourth touches its end.
        assert_eq!(chosen, [0, 1]);
        assert_eq!(out, "[\"a\", \"b\", \"a\"]");
    }

    #[test]
    fn insertions_and_multi_edit_suggestions_apply_whole() {
        let text = "import a from \"fs\";";
        let insert = Suggestion::replace("n", 15..15, "node:");
        let (out, chosen) = apply(text, [&insert]);
        assert_eq!(
            (out.as_str(), chosen),
            ("import a from \"node:fs\";", vec![0])
        );
        let rename = Suggestion {
            message: "rename".into(),
            edits: vec![
                Edit {
                    span: 0..1,
                    replacement: "x".into(),
                },
                Edit {
                    span: 4..5,
                    replacement: "y".into(),
                },
            ],
            applicability: crate::diag::Applicability::MachineApplicable,
        };
        // The rename starts first, so the replacement that overlaps its second edit waits.
        let blocked = replace(4..5, "z");
        let (out, chosen) = apply("a b c d", [&blocked, &rename]);
        assert_eq!((out.as_str(), chosen), ("x b y d", vec![1]));
        let out_of_range = replace(10..12, "x");
        assert_eq!(apply("abc", [&out_of_range]).1, Vec::<usize>::new());
    }

    #[test]
    fn diffs_read_like_git() {
        let change = Change {
            file: "expert-squad.jsonc".into(),
            before: "{\n  \"a\": [\"b\", \"a\"]\n}\n".into(),
            after: "{\n  \"a\": [\"a\", \"b\"]\n}\n".into(),
        };
        assert_eq!(
            unified_diff("pkg", &change),
            "--- a/pkg/expert-squad.jsonc\n+++ b/pkg/expert-squad.jsonc\n@@ -1,3 +1,3 @@\n {\n-  \"a\": [\"b\", \"a\"]\n+  \"a\": [\"a\", \"b\"]\n }\n"
        );
    }
}
