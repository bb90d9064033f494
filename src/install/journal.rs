//! The replacement journal (INS-10) and its reconciliation after a crash (JNL-1…JNL-4), in the
//! reference's format, so either tool can recover the other's interrupted replacement.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::digest::Sha256Digest;

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
    match path.symlink_metadata() {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(State::Absent),
        Err(error) => Err(format!("cannot inspect `{}`: {error}", path.display())),
        Ok(metadata) if metadata.file_type().is_symlink() || !metadata.is_dir() => {
            Err(format!("`{}` is not a directory", path.display()))
        }
        Ok(_) => Ok(match super::directory_digest(path) {
            Ok(digest) => State::Package(digest),
            Err(_) => State::Partial,
        }),
    }
}

/// How reconciliation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    RolledBack,
    Committed,
}

/// Reconciles the journal at `path` (JNL-3). `Err` leaves everything as it was.
pub fn reconcile(path: &Path) -> Result<Outcome, String> {
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
    let outcome = if target == State::Package(before)
        && backup == State::Absent
        && disposable(&staging)
        && disposable(&discard)
    {
        remove(&journal.staging)?;
        remove(&journal.discard)?;
        Outcome::RolledBack
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
        Outcome::RolledBack
    } else if target == State::Package(after)
        && disposable(&staging)
        && matches!(backup, State::Absent | State::Partial)
        && discard == State::Absent
    {
        remove(&journal.staging)?;
        remove(&journal.backup)?;
        Outcome::Committed
    } else {
        return Err(
            "Expert squad package replacement journal has an unknown interrupted filesystem state"
                .to_owned(),
        );
    };
    if let Some(parent) = journal.target.parent() {
        crate::fs::sync_directory(parent);
    }
    std::fs::remove_file(path)
        .map_err(|error| format!("cannot remove `{}`: {error}", path.display()))?;
    if let Some(parent) = path.parent() {
        crate::fs::sync_directory(parent);
    }
    Ok(outcome)
}
