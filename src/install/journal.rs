//! The replacement journal (INS-10) and its reconciliation after a crash (JNL-1…JNL-4), in the
//! reference's format, so either tool can recover the other's interrupted replacement. The
//! journal holds absolute paths (the reference's format); squad only acts on a journal whose
//! paths are exactly the canonical ones, and then works through the scope's open directories
//! by name, never through those paths.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::digest::Sha256Digest;
use crate::fs::dir::{Dir, Kind};

use super::scope::{Locations, OpenScope};

pub const PROTOCOL: &str = "opencorvus/expert-squad-package-replacement-intent@1";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Journal {
    pub protocol: String,
    #[serde(rename = "operationID")]
    pub operation_id: String,
    pub target: PathBuf,
    pub staging: PathBuf,
    pub backup: PathBuf,
    pub discard: PathBuf,
    pub installation_scope: String,
    pub project_directory: Option<PathBuf>,
    pub namespace: String,
    pub id: String,
    pub before_package_digest: String,
    pub after_package_digest: String,
}

/// `.<kind>-<namespace>-<id>-<operation>` in the scratch directory (LOC-2): the reference's
/// names, so either tool can recover the other's interrupted replacement (INT-2).
pub fn scratch_path(
    scratch: &Path,
    kind: &str,
    namespace: &str,
    id: &str,
    operation: &str,
) -> PathBuf {
    scratch.join(scratch_name(kind, namespace, id, operation))
}

/// The scratch entry name of [`scratch_path`].
pub fn scratch_name(kind: &str, namespace: &str, id: &str, operation: &str) -> String {
    format!(".{kind}-{namespace}-{id}-{operation}")
}

/// Whether `text` is a UUID in its 36-character text form.
pub fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.bytes().enumerate().all(|(index, byte)| match index {
            8 | 13 | 18 | 23 => byte == b'-',
            _ => byte.is_ascii_hexdigit(),
        })
}

/// JNL-2: a journal is acted on only when its paths are exactly the canonical ones for its own
/// (namespace, id, operation) in this scope, and its file name is its id's. A planted or
/// foreign journal could otherwise move or delete any directory.
fn check_canonical(
    journal: &Journal,
    path: &Path,
    id: &str,
    locations: &Locations,
) -> Result<(), String> {
    let valid_id =
        |text: &str| crate::manifest::id_problem(text, crate::manifest::IdKind::Plain).is_none();
    if !valid_id(&journal.namespace) || !valid_id(&journal.id) || !is_uuid(&journal.operation_id) {
        return Err(format!(
            "expert squad mutation journal `{}` names an invalid namespace, id or operation",
            path.display()
        ));
    }
    if journal.id != id {
        return Err(format!(
            "expert squad mutation journal `{}` is not the journal of `{}`",
            path.display(),
            journal.id
        ));
    }
    let target = locations.target(&journal.namespace, &journal.id);
    if journal.target != target {
        return Err(format!(
            "Expert squad mutation journal target does not equal {}",
            target.display()
        ));
    }
    // The backup's scratch name is the reference's `replace`.
    for (field, actual, kind) in [
        ("staging", &journal.staging, "staging"),
        ("backup", &journal.backup, "replace"),
        ("discard", &journal.discard, "discard"),
    ] {
        let expected = scratch_path(
            &locations.scratch,
            kind,
            &journal.namespace,
            &journal.id,
            &journal.operation_id,
        );
        if *actual != expected {
            return Err(format!(
                "Expert squad mutation journal {field} does not equal {}",
                expected.display()
            ));
        }
    }
    Ok(())
}

/// `<scratch>/.package-replacement-<id>.json`.
pub fn journal_path(scratch: &Path, id: &str) -> PathBuf {
    scratch.join(journal_name(id))
}

/// The journal's name in the scratch directory.
pub fn journal_name(id: &str) -> String {
    format!(".package-replacement-{id}.json")
}

/// Writes the journal into the scratch directory: an exclusive temporary file, renamed. The
/// caller makes it durable (with the staged package) before acting on it.
pub fn write(scratch: &Dir, journal: &Journal) -> std::io::Result<()> {
    let name = journal_name(&journal.id);
    let temporary = format!("{name}.{}.tmp", journal.operation_id);
    let bytes = serde_json::to_vec_pretty(journal).map_err(std::io::Error::other)?;
    let written = scratch
        .create_file(&temporary)
        .and_then(|mut file| file.write_all(&bytes))
        .and_then(|()| scratch.rename(&temporary, scratch, &name));
    if written.is_err() {
        let _ = scratch.remove_file(&temporary);
    }
    written
}

/// What is at one of the journal's paths.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Absent,
    Package(Sha256Digest),
    /// A directory that is not a complete package (an interrupted copy).
    Partial,
}

/// What is at `parent`/`name` (an absent parent: nothing).
fn state_at(parent: Option<&Dir>, name: &str, shown: &Path) -> Result<State, String> {
    let Some(parent) = parent else {
        return Ok(State::Absent);
    };
    let cannot = |error: std::io::Error| format!("cannot inspect `{}`: {error}", shown.display());
    match parent.status(name).map_err(cannot)? {
        None => Ok(State::Absent),
        Some(status) if status.kind != Kind::Directory => {
            Err(format!("`{}` is not a directory", shown.display()))
        }
        Some(_) => {
            let Some(directory) = parent.open_dir(name).map_err(cannot)? else {
                return Ok(State::Absent);
            };
            Ok(match super::tree_at(&directory, false) {
                Ok(tree) => State::Package(tree.package_digest),
                Err(_) => State::Partial,
            })
        }
    }
}

/// Reconciles the journal of `id` in the open scope (JNL-2, JNL-3): the replacement is rolled
/// back or completed, every step relative to the scope's directories. `Err` leaves everything
/// as it was.
pub fn reconcile(scope: &OpenScope, id: &str) -> Result<(), String> {
    let locations = &scope.locations;
    let name = journal_name(id);
    let path = &journal_path(&locations.scratch, id);
    let Some(scratch) = scope.scratch() else {
        return Err(format!(
            "cannot read `{}`: no scratch directory",
            path.display()
        ));
    };
    let mut text = Vec::new();
    scratch
        .open_file(&name)
        .and_then(|mut file| std::io::Read::read_to_end(&mut file, &mut text))
        .map_err(|error| format!("cannot read `{}`: {error}", path.display()))?;
    let journal: Journal = serde_json::from_slice(&text).map_err(|error| {
        format!(
            "expert squad package replacement journal `{}` is invalid: {error}",
            path.display()
        )
    })?;
    if journal.protocol != PROTOCOL {
        return Err(format!("`{}` is not a replacement journal", path.display()));
    }
    check_canonical(&journal, path, id, locations)?;
    let (Some(before), Some(after)) = (
        Sha256Digest::parse(&journal.before_package_digest),
        Sha256Digest::parse(&journal.after_package_digest),
    ) else {
        return Err(format!(
            "`{}`: journal digests are not 64 hex characters",
            path.display()
        ));
    };
    let names =
        |kind: &str| scratch_name(kind, &journal.namespace, &journal.id, &journal.operation_id);
    let (staging_name, backup_name, discard_name) =
        (names("staging"), names("replace"), names("discard"));
    let namespace = match scope.packages() {
        Some(packages) => packages.open_dir(&journal.namespace).map_err(|error| {
            format!(
                "cannot inspect `{}`: {error}",
                packages.shown(&journal.namespace).display()
            )
        })?,
        None => None,
    };
    let target = state_at(namespace.as_ref(), id, &journal.target)?;
    // Backup, staging and discard only ever hold `before` (backup) or `after` (the others), or
    // an interrupted copy or deletion of it. A deletion cut short can leave a tree that still
    // digests, to neither: that is a partial package, as the reference's load would find.
    let partial_unless = |state: State, expected: Sha256Digest| match state {
        State::Package(digest) if digest != expected => State::Partial,
        state => state,
    };
    let staging = partial_unless(
        state_at(Some(scratch), &staging_name, &journal.staging)?,
        after,
    );
    let backup = partial_unless(
        state_at(Some(scratch), &backup_name, &journal.backup)?,
        before,
    );
    let discard = partial_unless(
        state_at(Some(scratch), &discard_name, &journal.discard)?,
        after,
    );
    let disposable = |state: &State| {
        matches!(state, State::Absent | State::Partial) || *state == State::Package(after)
    };
    let remove = |name: &str, shown: &Path| {
        scratch
            .remove_tree(name)
            .map_err(|error| format!("cannot remove `{}`: {error}", shown.display()))
    };
    if target == State::Package(before)
        && backup == State::Absent
        && disposable(&staging)
        && disposable(&discard)
    {
        remove(&staging_name, &journal.staging)?;
        remove(&discard_name, &journal.discard)?;
    } else if backup == State::Package(before)
        && (target == State::Absent || target == State::Package(after))
        && disposable(&staging)
        && disposable(&discard)
    {
        // The namespace directory is still there (only its package moved); recreated if a
        // person removed it.
        let namespace = match namespace {
            Some(namespace) => namespace,
            None => scope
                .ensure_packages()
                .map_err(|error| error.to_string())?
                .ensure_dir(&journal.namespace)
                .map_err(|error| {
                    format!("cannot restore `{}`: {error}", journal.target.display())
                })?,
        };
        if target == State::Package(after) {
            remove(&discard_name, &journal.discard)?;
            namespace
                .rename_no_replace(id, scratch, &discard_name)
                .map_err(|error| format!("cannot move `{}`: {error}", journal.target.display()))?;
        }
        scratch
            .rename_no_replace(&backup_name, &namespace, id)
            .map_err(|error| format!("cannot restore `{}`: {error}", journal.target.display()))?;
        let _ = namespace.sync();
        remove(&staging_name, &journal.staging)?;
        remove(&discard_name, &journal.discard)?;
    } else if target == State::Package(after)
        && disposable(&staging)
        && matches!(backup, State::Absent | State::Partial)
        && discard == State::Absent
    {
        remove(&staging_name, &journal.staging)?;
        remove(&backup_name, &journal.backup)?;
    } else {
        return Err(
            "Expert squad package replacement journal has an unknown interrupted filesystem state"
                .to_owned(),
        );
    }
    let _ = scratch.sync();
    scratch
        .remove_file(&name)
        .map_err(|error| format!("cannot remove `{}`: {error}", path.display()))?;
    let _ = scratch.sync();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::scope::Scope;

    /// A package tree under `path`: a manifest and `files` more.
    fn tree(path: &Path, files: &[&str]) -> Sha256Digest {
        crate::fs::create_dir_all(path).unwrap();
        std::fs::write(path.join("expert-squad.jsonc"), "{}").unwrap();
        for file in files {
            std::fs::write(path.join(file), file).unwrap();
        }
        crate::install::directory_digest(path).unwrap()
    }

    #[test]
    fn a_backup_whose_deletion_was_cut_short_is_partial_and_the_replacement_committed() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        let locations = Locations::new(&Scope::Project(project.clone()), dir.path());
        crate::fs::create_dir_all(&locations.scratch).unwrap();
        let operation = "6e8913c8-5e4f-4159-9da6-22ff88caf80c";
        let path = |kind: &str| scratch_path(&locations.scratch, kind, "acme", "pkg", operation);
        let target = locations.target("acme", "pkg");
        let before = tree(&dir.path().join("old"), &["a.md", "b.md", "c.md"]);
        let after = tree(&target, &["a.md", "new.md"]);
        // The backup lost one file to an interrupted deletion: a tree with a third digest.
        let backup = path("replace");
        let remaining = tree(&backup, &["a.md", "b.md"]);
        assert!(remaining != before && remaining != after);
        let journal = Journal {
            protocol: PROTOCOL.to_owned(),
            operation_id: operation.to_owned(),
            target: target.clone(),
            staging: path("staging"),
            backup: backup.clone(),
            discard: path("discard"),
            installation_scope: "project".to_owned(),
            project_directory: Some(project),
            namespace: "acme".to_owned(),
            id: "pkg".to_owned(),
            before_package_digest: before.hex(),
            after_package_digest: after.hex(),
        };
        let scope = crate::install::scope::OpenScope::existing(&locations)
            .unwrap()
            .unwrap();
        write(scope.scratch().unwrap(), &journal).unwrap();
        reconcile(&scope, "pkg").unwrap();
        assert_eq!(crate::install::directory_digest(&target).unwrap(), after);
        assert!(!backup.exists());
        assert!(!journal_path(&locations.scratch, "pkg").exists());
    }
}
