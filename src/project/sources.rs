//! The SHA-256 of a project's local archive sources, remembered with their stamps (device,
//! inode, mode, size, modification and change times) so that a no-op `sync` does not hash
//! every archive again to check that it still holds the locked bytes: one `stat` each instead.
//! The same rules as the install fingerprints (docs/fingerprints.md): the stamp is taken before
//! the hash, and only a file whose change time was at least `SETTLED` (two seconds) older than the clock
//! when it was stamped is remembered (a change after the hash then gives it a later change
//! time, whatever the file system's clock granularity); the file is kept in
//! `<R>/data/squad-sources/<SHA-256 of the project's path>.json`, a line with the SHA-256 of
//! the rest first, and is ignored when that does not match. Not synced: lost, it costs a hash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::digest::Sha256Digest;
use crate::fs::dir::Stamp;

/// How much older than the clock a file's change time must be for its stamp to prove it.
const SETTLED: Duration = Duration::from_secs(2);

/// One archive: its stamp and its bytes' SHA-256 when stamped.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Known {
    stamp: Stamp,
    sha256: Sha256Digest,
}

/// The archives of one project, by absolute path.
#[derive(Debug)]
pub struct Sources {
    path: PathBuf,
    known: Mutex<BTreeMap<String, Known>>,
    changed: Mutex<bool>,
}

impl Sources {
    /// What was remembered for the project at `project_root` (nothing when the file is
    /// absent, damaged or edited).
    pub fn read(opencorvus_root: &Path, project_root: &Path) -> Sources {
        let path = opencorvus_root
            .join("data")
            .join("squad-sources")
            .join(format!(
                "{}.json",
                Sha256Digest::of(project_root.to_string_lossy().as_bytes()).hex()
            ));
        let known = crate::digest::read_sealed(&path)
            .and_then(|sealed| serde_json::from_slice(sealed.body()).ok())
            .unwrap_or_default();
        Sources {
            path,
            known: Mutex::new(known),
            changed: Mutex::new(false),
        }
    }

    /// The SHA-256 of the archive at `archive`: the remembered one when its stamp has not
    /// moved, else hashed (and remembered when its stamp can prove it later).
    pub fn sha256(&self, archive: &Path) -> std::io::Result<Sha256Digest> {
        let key = archive.to_string_lossy().into_owned();
        let now = SystemTime::now();
        let Ok(stamp) = crate::fs::dir::stamp_path(archive) else {
            return Sha256Digest::of_file(archive);
        };
        if let Ok(known) = self.known.lock() {
            if let Some(known) = known.get(&key).filter(|known| known.stamp == stamp) {
                return Ok(known.sha256);
            }
        }
        let sha256 = Sha256Digest::of_file(archive)?;
        let settled = now
            .checked_sub(SETTLED)
            .and_then(|settled| settled.duration_since(SystemTime::UNIX_EPOCH).ok())
            .is_some_and(|settled| {
                (stamp.changed.0, stamp.changed.1)
                    < (
                        i64::try_from(settled.as_secs()).unwrap_or(i64::MAX),
                        i64::from(settled.subsec_nanos()),
                    )
            });
        if settled {
            if let (Ok(mut known), Ok(mut changed)) = (self.known.lock(), self.changed.lock()) {
                known.insert(key, Known { stamp, sha256 });
                *changed = true;
            }
        }
        Ok(sha256)
    }

    /// Writes what was learnt, when anything was.
    pub fn write(self) {
        let changed = self.changed.into_inner().unwrap_or(false);
        let Ok(known) = self.known.into_inner() else {
            return;
        };
        if !changed {
            return;
        }
        let Ok(body) = serde_json::to_vec(&known) else {
            return;
        };
        let _ = crate::fs::create_dir_all(crate::fs::parent_directory(&self.path))
            .and_then(|()| crate::digest::write_sealed(&self.path, &body));
    }
}
