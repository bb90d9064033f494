//! A project's files as a merge left them: git's conflict markers (`<<<<<<<`, `|||||||`,
//! `=======`, `>>>>>>>` at the start of a line) recognised in `squads.jsonc` and `squads.lock`
//! and said as such, with the line, rather than as a JSON syntax error.
//!
//! `squads.jsonc` is people's file: a conflict in it is theirs to resolve, and squad says where.
//! `squads.lock` is squad's: [`merge_lock`] reads each side of every conflict as a whole lock
//! (the text outside the conflicts with that side's lines), keeps what both sides lock alike or
//! only one side locks (a claim like any lock entry: re-checked against its bytes), and leaves
//! out the squads the two sides lock differently, which `squad sync` then resolves anew. As
//! cargo and npm regenerate a conflicted lock, nothing needs deleting.

use std::collections::BTreeMap;
use std::ops::Range;

use super::lockfile::{Lock, Locked};

/// One conflict: where its `<<<<<<<` line is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// 1-based line of the `<<<<<<<` marker.
    pub line: usize,
    /// The marker line's byte range.
    pub span: Range<usize>,
}

/// A text with conflict markers, split into its two sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sides {
    pub conflicts: Vec<Conflict>,
    /// The text outside the conflicts with the first side's lines ("ours", `HEAD`).
    pub ours: String,
    /// ... with the second side's lines ("theirs"). A diff3 base section goes to neither.
    pub theirs: String,
    /// Every conflict ends with a `>>>>>>>` line.
    pub complete: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Both,
    Ours,
    Base,
    Theirs,
}

/// Whether `line` (without its terminator) is the marker `marker` (seven of one character),
/// alone or followed by a space and a label.
fn is_marker(line: &str, marker: &str) -> bool {
    let line = line.trim_end_matches('\r');
    line == marker
        || line
            .strip_prefix(marker)
            .is_some_and(|rest| rest.starts_with(' '))
}

/// The two sides of `text`, or `None` when it holds no conflict marker.
pub fn sides(text: &str) -> Option<Sides> {
    // Most files hold no conflict: one search of the text instead of copying it line by line.
    if !text.contains("<<<<<<<") {
        return None;
    }
    let mut sides = Sides {
        conflicts: Vec::new(),
        ours: String::new(),
        theirs: String::new(),
        complete: true,
    };
    let mut part = Part::Both;
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end_matches('\n');
        let span = offset..offset + bare.len();
        offset += line.len();
        match part {
            Part::Both if is_marker(bare, "<<<<<<<") => {
                sides.conflicts.push(Conflict {
                    line: index + 1,
                    span,
                });
                part = Part::Ours;
            }
            Part::Ours if is_marker(bare, "|||||||") => part = Part::Base,
            Part::Ours | Part::Base if is_marker(bare, "=======") => part = Part::Theirs,
            Part::Theirs if is_marker(bare, ">>>>>>>") => part = Part::Both,
            Part::Both => {
                sides.ours.push_str(line);
                sides.theirs.push_str(line);
            }
            Part::Ours => sides.ours.push_str(line),
            Part::Base => {}
            Part::Theirs => sides.theirs.push_str(line),
        }
    }
    if sides.conflicts.is_empty() {
        return None;
    }
    sides.complete = part == Part::Both;
    Some(sides)
}

/// What [`merge_lock`] made of a conflicted lock.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LockMerge {
    /// The lines of the conflicts' `<<<<<<<` markers.
    pub lines: Vec<usize>,
    /// Squads both sides lock, differently: left out of the merged lock, to be resolved anew.
    pub conflicted: Vec<String>,
    /// Squads kept: locked alike by both sides, or by one side only.
    pub kept: usize,
}

/// The lock a conflicted `squads.lock` comes to (see the module docs), or why its sides cannot
/// be read as locks.
pub fn merge_lock(sides: &Sides) -> Result<(Lock, LockMerge), String> {
    if !sides.complete {
        return Err("a conflict has no closing `>>>>>>>` line".to_owned());
    }
    let read = |text: &str, which: &str| {
        Lock::parse(text).map_err(|diagnostic| {
            format!(
                "its {which} side is not a lock squad can read ({})",
                diagnostic.message
            )
        })
    };
    let ours = read(&sides.ours, "first")?;
    let theirs = read(&sides.theirs, "second")?;
    let mut merged: BTreeMap<String, Locked> = BTreeMap::new();
    let mut conflicted = Vec::new();
    let names: std::collections::BTreeSet<&String> =
        ours.squads.keys().chain(theirs.squads.keys()).collect();
    for name in names {
        match (ours.squads.get(name), theirs.squads.get(name)) {
            (Some(one), Some(other)) if one != other => conflicted.push(name.clone()),
            (Some(locked), _) | (None, Some(locked)) => {
                merged.insert(name.clone(), locked.clone());
            }
            (None, None) => {}
        }
    }
    let kept = merged.len();
    Ok((
        Lock { squads: merged },
        LockMerge {
            lines: sides
                .conflicts
                .iter()
                .map(|conflict| conflict.line)
                .collect(),
            conflicted,
            kept,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_split_a_text_into_its_two_sides() {
        let text = "a\n<<<<<<< HEAD\nb\n||||||| base\nx\n=======\nc\n>>>>>>> topic\nd\n";
        let sides = sides(text).unwrap();
        assert_eq!(sides.ours, "a\nb\nd\n");
        assert_eq!(sides.theirs, "a\nc\nd\n");
        assert_eq!(sides.conflicts.len(), 1);
        assert_eq!(sides.conflicts[0].line, 2);
        assert_eq!(&text[sides.conflicts[0].span.clone()], "<<<<<<< HEAD");
        assert!(sides.complete);
        assert_eq!(
            super::sides("a\n=======\nb\n"),
            None,
            "a lone ======= is text"
        );
        assert!(!super::sides("<<<<<<< HEAD\nb\n").unwrap().complete);
        assert_eq!(super::sides("<<<<<<<<< not a marker\n"), None);
    }
}
