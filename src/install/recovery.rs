//! Recovery after a crash, under the id lock: an interrupted replacement is rolled back or
//! completed from its journal (JNL-1…JNL-4, [`super::journal`]), and the staging, backup and
//! discard directories crashed runs left in the scratch directory are removed — only squad's
//! and the reference's own names, only when no other id's lock may protect them
//! (security-cases §2.6 "Leftovers"). Everything happens through the scope's open directories.

use std::time::Duration;

use crate::fs::dir::Kind;

use super::journal;
use super::lock::IdLock;
use super::scope::{Locations, OpenScope};
use super::{InstallError, io};

/// Recovers an interrupted replacement of `id` (JNL-1) and removes leftovers of this id, with
/// its lock held.
pub(crate) fn recover(scope: &OpenScope, id: &str) -> Result<(), InstallError> {
    let Some(scratch) = scope.scratch() else {
        return Ok(());
    };
    let journal_name = journal::journal_name(id);
    if scratch
        .status(&journal_name)
        .map_err(io(&scratch.shown(&journal_name)))?
        .is_some()
    {
        journal::reconcile(scope, id).map_err(InstallError::Recovery)?;
    }
    let Ok(entries) = scratch.entries() else {
        return Ok(());
    };
    let temporary_prefix = format!("{journal_name}.");
    for (name, _) in entries {
        let Some(name) = name.to_str() else {
            continue;
        };
        // A journal's temporary file: the replacement never started.
        if name
            .strip_prefix(&temporary_prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .is_some_and(journal::is_uuid)
        {
            let _ = scratch.remove_file(name);
            continue;
        }
        let Some((kind, owners)) = scratch_owners(name) else {
            continue;
        };
        let Some((namespace, _)) = owners.iter().find(|(_, owner)| owner == id) else {
            continue;
        };
        // A backup no journal names is the old revision: it goes only when the package it
        // was taken from is installed.
        if kind == "replace" && !is_installed(scope, namespace, id) {
            continue;
        }
        // The same name may belong to another (namespace, id) pair, protected by another
        // lock: remove it only if every such lock can be taken now, without waiting.
        let mut others = Vec::new();
        let mut free = true;
        for (_, other) in owners.iter().filter(|(_, owner)| owner != id) {
            match IdLock::acquire(
                &scope.locations.locks,
                other,
                Some(Duration::ZERO),
                &mut |_| {},
            ) {
                Ok(lock) => others.push(lock),
                Err(_) => {
                    free = false;
                    break;
                }
            }
        }
        if free {
            let _ = scratch.remove_tree(name);
        }
        drop(others);
    }
    Ok(())
}

/// Whether `<namespace>/<id>` is a real directory in the scope's packages root.
fn is_installed(scope: &OpenScope, namespace: &str, id: &str) -> bool {
    scope
        .packages()
        .and_then(|packages| packages.open_dir(namespace).ok().flatten())
        .and_then(|namespace| namespace.status(id).ok().flatten())
        .is_some_and(|status| status.kind == Kind::Directory)
}

/// The kind (`staging`, `replace`, `discard`) of a scratch entry named
/// `.<kind>-<namespace>-<id>-<uuid>`, and every (namespace, id) pair that produces that name:
/// with `-` inside ids, `acme` + `foo-bar` and `acme-foo` + `bar` give the same name.
pub(crate) fn scratch_owners(name: &str) -> Option<(&'static str, Vec<(String, String)>)> {
    let (kind, rest) = ["staging", "replace", "discard"]
        .into_iter()
        .find_map(|kind| {
            name.strip_prefix(&format!(".{kind}-"))
                .map(|rest| (kind, rest))
        })?;
    let split = rest.len().checked_sub(37)?;
    let (pair, operation) = (rest.get(..split)?, rest.get(split..)?);
    let operation = operation.strip_prefix('-')?;
    if !journal::is_uuid(operation) {
        return None;
    }
    let valid =
        |text: &str| crate::manifest::id_problem(text, crate::manifest::IdKind::Plain).is_none();
    let owners: Vec<(String, String)> = pair
        .match_indices('-')
        .map(|(index, _)| (&pair[..index], &pair[index + 1..]))
        .filter(|(namespace, id)| valid(namespace) && valid(id))
        .map(|(namespace, id)| (namespace.to_owned(), id.to_owned()))
        .collect();
    (!owners.is_empty()).then_some((kind, owners))
}

/// Reconciles every replacement journal of a scope (JNL-4, as the reference does when it lists
/// a scope) and removes the staging and discard directories crashed runs left, each under its
/// id lock. Returns what could not be recovered.
pub fn recover_scope(locations: &Locations, lock_timeout: Option<Duration>) -> Vec<String> {
    let scope = match OpenScope::existing(locations) {
        Ok(Some(scope)) => scope,
        Ok(None) => return Vec::new(),
        Err(error) => return vec![crate::error::chain(&error)],
    };
    let Some(scratch) = scope.scratch() else {
        return Vec::new();
    };
    let Ok(entries) = scratch.entries() else {
        return Vec::new();
    };
    // Ids with a journal to reconcile or a staging or discard directory to remove.
    let mut ids: Vec<String> = entries
        .into_iter()
        .filter_map(|(name, _)| {
            let name = name.to_str()?.to_owned();
            name.strip_prefix(".package-replacement-")
                .and_then(|rest| rest.strip_suffix(".json"))
                .map(str::to_owned)
                .map(|id| vec![id])
                .or_else(|| {
                    scratch_owners(&name)
                        .map(|(_, owners)| owners.into_iter().map(|(_, id)| id).collect())
                })
        })
        .flatten()
        .collect();
    ids.sort();
    ids.dedup();
    let mut problems = Vec::new();
    for id in ids {
        match IdLock::acquire(&locations.locks, &id, lock_timeout, &mut |_| {}) {
            Ok(lock) => {
                if let Err(problem) = scope.check_in_place().and_then(|()| recover(&scope, &id)) {
                    problems.push(format!("{id}: {problem}"));
                }
                drop(lock);
            }
            Err(error) => problems.push(format!("{id}: {error}")),
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_names_are_the_reference_s_and_their_owners_are_every_split() {
        let operation = super::super::uuid();
        let path = journal::scratch_path(
            std::path::Path::new("/s"),
            "staging",
            "acme",
            "foo-bar",
            &operation,
        );
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(name, format!(".staging-acme-foo-bar-{operation}"));
        let (kind, owners) = scratch_owners(&name).unwrap();
        assert_eq!(kind, "staging");
        assert_eq!(
            owners,
            vec![
                ("acme".to_owned(), "foo-bar".to_owned()),
                ("acme-foo".to_owned(), "bar".to_owned())
            ]
        );
        let backup = format!(".replace-n-x-{operation}");
        assert_eq!(scratch_owners(&backup).unwrap().0, "replace");
        for other in [
            ".package-replacement-x.json".to_owned(),
            ".staging-a-b".to_owned(),
            ".staging-a-b-not-a-uuid-at-all-000000000000000".to_owned(),
            format!("staging-a-b-{operation}"),
            format!(".other-a-b-{operation}"),
            format!(".staging-A-b-{operation}"),
            format!(".staging-ab-{operation}"),
        ] {
            assert_eq!(scratch_owners(&other), None, "{other}");
        }
    }
}
