//! The project lock: commands that read `squads.jsonc` and `squads.lock` to change the project
//! (add, remove, sync, update) run one at a time per project. On Unix it is an advisory `flock`
//! on `.opencorvus/.squads-sync.lock`, which the kernel releases when the process ends however
//! it ends, so a killed sync never leaves a lock behind to wait for; elsewhere it is the install
//! lock's directory protocol ([`crate::install::lock`]), taken over once stale.

use std::path::{Path, PathBuf};

/// A held project lock; released when dropped.
pub struct ProjectGuard {
    #[cfg(unix)]
    _file: std::fs::File,
    #[cfg(not(unix))]
    _lock: crate::install::lock::IdLock,
}

/// The lock's path under `<project>/.opencorvus`.
pub fn path(config_root: &Path) -> PathBuf {
    config_root.join(".squads-sync.lock")
}

impl ProjectGuard {
    /// Takes the lock of the project whose `.opencorvus` directory is `config_root` (created if
    /// absent), waiting as long as another holder keeps it. `on_wait` is told once, if it has
    /// to wait.
    pub fn acquire(
        config_root: &Path,
        on_wait: &mut dyn FnMut(&Path),
    ) -> std::io::Result<ProjectGuard> {
        crate::install::scope::create_config_root(config_root, true)?;
        let path = path(config_root);
        #[cfg(unix)]
        {
            use rustix::fs::{FlockOperation, flock};
            use std::os::unix::fs::OpenOptionsExt;
            // Never through a link planted at the lock's name: it would create a file wherever
            // the link points.
            let file = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
                .open(&path)?;
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {}
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    on_wait(&path);
                    flock(&file, FlockOperation::LockExclusive)?;
                }
                Err(error) => return Err(error.into()),
            }
            Ok(ProjectGuard { _file: file })
        }
        #[cfg(not(unix))]
        {
            let lock =
                crate::install::lock::IdLock::acquire(config_root, ".squads-sync", None, on_wait)
                    .map_err(|error| std::io::Error::other(error.to_string()))?;
            let _ = path;
            Ok(ProjectGuard { _lock: lock })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_until_the_first_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(".opencorvus");
        let first = ProjectGuard::acquire(&root, &mut |_| panic!("nothing to wait for")).unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        let waiter = {
            let root = root.clone();
            std::thread::spawn(move || {
                let mut told = false;
                let guard = ProjectGuard::acquire(&root, &mut |_| told = true).unwrap();
                sender.send(told).unwrap();
                drop(guard);
            })
        };
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(receiver.try_recv().is_err(), "the second holder must wait");
        drop(first);
        assert!(receiver.recv().unwrap(), "it was told it had to wait");
        waiter.join().unwrap();
    }
}
