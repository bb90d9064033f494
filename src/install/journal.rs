//! The replacement journal (INS-10) and its reconciliation after a crash (JNL-1…JNL-4), in the
//! reference's format, so either tool can recover the other's interrupted replacement.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::digest::Sha256Digest;

use super::scope::Locations;

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
    scratch.join(format!(".{kind}-{namespace}-{id}-{operation}"))
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
fn check_canonical(journal: &Journal, path: &Path, locations: &Locations) -> Result<(), String> {
    let valid_id =
        |text: &str| crate::manifest::id_problem(text, crate::manifest::IdKind::Plain).is_none();
    if !valid_id(&journal.namespace) || !valid_id(&journal.id) || !is_uuid(&journal.operation_id) {
        return Err(format!(
            "expert squad mutation journal `{}` names an invalid namespace, id or operation",
            path.display()
        ));
    }
    if path != journal_path(&locations.scratch, &journal.id) {
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
    scratch.join(format!(".package-replacement-{id}.json"))
}

/// Writes the journal durably: an exclusive temporary file, synced, renamed, directory synced.
pub fn write(path: &Path, journal: &Journal) -> std::io::Result<()> {
    let directory = path.parent().unwrap_or(Path::new("."));
    let temporary = directory.join(format!(
        "{}.{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        journal.operation_id
    ));
    let bytes = serde_json::to_vec_pretty(journal).map_err(std::io::Error::other)?;
    crate::fs::write_new_synced(&temporary, &bytes)?;
    if let Err(error) = std::fs::rename(&temporary, path) {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    crate::fs::sync_directory(directory);
    Ok(())
}

/// What is at one of the journal's paths.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    Absent,
    Package(Sha256Digest),
    /// A directory that is not a complete package (an interrupted copy).
    Partial,
}

fn state_at(path: &Path) -> Result<State, String> {
    match crate::fs::real_directory(path) {
        Ok(crate::fs::RealDirectory::Absent) => Ok(State::Absent),
        Err(error) => Err(format!("cannot inspect `{}`: {error}", path.display())),
        Ok(crate::fs::RealDirectory::Refused) => {
            Err(format!("`{}` is not a directory", path.display()))
        }
        Ok(crate::fs::RealDirectory::Present(_)) => Ok(match super::directory_digest(path) {
            Ok(digest) => State::Package(digest),
            Err(_) => State::Partial,
        }),
    }
}

/// Reconciles the journal of `id` in the scope at `locations` (JNL-2, JNL-3): the
/// replacement is rolled back or completed. `Err` leaves everything as it was.
pub fn reconcile(locations: &Locations, id: &str) -> Result<(), String> {
    let path = &journal_path(&locations.scratch, id);
    let text = std::fs::read(path)
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
    check_canonical(&journal, path, locations)?;
    let (Some(before), Some(after)) = (
        Sha256Digest::parse(&journal.before_package_digest),
        Sha256Digest::parse(&journal.after_package_digest),
    ) else {
        return Err(format!(
            "`{}`: journal digests are not 64 hex characters",
            path.display()
        ));
    };
    let target = state_at(&journal.target)?;
    let staging = state_at(&journal.staging)?;
    let backup = state_at(&journal.backup)?;
    let discard = state_at(&journal.discard)?;
    let disposable = |state: &State| {
        matches!(state, State::Absent | State::Partial) || *state == State::Package(after)
    };
    let remove = |target: &Path| {
        if target.exists() {
            std::fs::remove_dir_all(target)
                .map_err(|error| format!("cannot remove `{}`: {error}", target.display()))
        } else {
            Ok(())
        }
    };
    if target == State::Package(before)
        && backup == State::Absent
        && disposable(&staging)
        && disposable(&discard)
    {
        remove(&journal.staging)?;
        remove(&journal.discard)?;
    } else if backup == State::Package(before)
        && (target == State::Absent || target == State::Package(after))
        && disposable(&staging)
        && disposable(&discard)
    {
        if target == State::Package(after) {
            remove(&journal.discard)?;
            std::fs::rename(&journal.target, &journal.discard)
                .map_err(|error| format!("cannot move `{}`: {error}", journal.target.display()))?;
        }
        crate::fs::rename_no_replace(&journal.backup, &journal.target)
            .map_err(|error| format!("cannot restore `{}`: {error}", journal.target.display()))?;
        remove(&journal.staging)?;
        remove(&journal.discard)?;
    } else if target == State::Package(after)
        && disposable(&staging)
        && matches!(backup, State::Absent | State::Partial)
        && discard == State::Absent
    {
        remove(&journal.staging)?;
        remove(&journal.backup)?;
    } else {
        return Err(
            "Expert squad package replacement journal has an unknown interrupted filesystem state"
                .to_owned(),
        );
    }
    if let Some(parent) = journal.target.parent() {
        crate::fs::sync_directory(parent);
    }
    std::fs::remove_file(path)
        .map_err(|error| format!("cannot remove `{}`: {error}", path.display()))?;
    if let Some(parent) = path.parent() {
        crate::fs::sync_directory(parent);
    }
    Ok(())
}
