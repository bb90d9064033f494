//! The cross-process install lock per package id, with the reference's protocol (LCK-1) so
//! `squad` and a running OpenCorvus serialise on the same lock: `mkdir <locks>/<id>.lock`; while
//! held, its mtime is refreshed every few seconds; a lock whose mtime is older than the stale
//! window is taken over. Before committing, the holder checks that the lock is still its own
//! (the directory exists with the mtime it last wrote): a lock taken over meanwhile is
//! "compromised" and the operation must fail. Held locks are refreshed every 5 s by a thread
//! that stops at once when the lock is dropped.
//!
//! The lock path is reached through the locks directory, opened once (`fs::dir`); a file, a
//! link or a non-empty directory at the lock path is never mistaken for a lock: when it is
//! stale it is an error that names it.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::fs::dir::{Dir, Kind};

/// After this long without a refresh a lock is stale (proper-lockfile's default).
pub const STALE_AFTER: Duration = Duration::from_secs(10);

/// The stale window: [`STALE_AFTER`], or `SQUAD_LOCK_STALE_MS` (a test hook, so crash tests
/// need not wait ten seconds for each killed holder). Held locks are refreshed at half of it.
fn stale_after() -> Duration {
    crate::env::lock_stale_millis()
        .map_or(STALE_AFTER, |millis| Duration::from_millis(millis.max(100)))
}

/// Why the lock could not be taken or kept.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("timed out waiting for the install lock `{}`", .0.display())]
    Timeout(PathBuf),
    #[error("the install lock `{}` was taken over by another process", .0.display())]
    Compromised(PathBuf),
    /// A stale entry at the lock path that `rmdir` cannot remove (a file, a link, a directory
    /// with something in it): neither squad nor OpenCorvus made it, so nobody will release it.
    #[error("the install lock `{}` is stale but cannot be removed; it is not an empty lock directory, so neither squad nor OpenCorvus made it: remove it by hand", .0.display())]
    Unremovable(PathBuf, #[source] io::Error),
    #[error("cannot use the install lock `{}`", .0.display())]
    Io(PathBuf, #[source] io::Error),
}

/// A held lock; released when dropped.
pub struct IdLock {
    locks: Arc<Dir>,
    name: String,
    /// The mtime this holder last wrote; `None` once compromised.
    stamp: Arc<Mutex<Option<SystemTime>>>,
    /// Dropping it stops the refresher at once (its `recv_timeout` returns).
    stop: Option<mpsc::Sender<()>>,
    refresher: Option<std::thread::JoinHandle<()>>,
}

impl IdLock {
    /// Takes the lock for `id` in `locks_dir`, waiting up to `timeout` (forever when `None`) with
    /// randomised back-off. `on_wait` is called once if the lock is busy (to say "Blocking").
    ///
    /// Every pass goes through the back-off and the deadline: a lock that is stale but cannot
    /// be removed is an error naming it, never a busy loop.
    pub fn acquire(
        locks_dir: &Path,
        id: &str,
        timeout: Option<Duration>,
        on_wait: &mut dyn FnMut(&Path),
    ) -> Result<IdLock, LockError> {
        crate::fs::create_dir_all(locks_dir)
            .map_err(|error| LockError::Io(locks_dir.to_path_buf(), error))?;
        let locks = Arc::new(
            Dir::open(locks_dir).map_err(|error| LockError::Io(locks_dir.to_path_buf(), error))?,
        );
        let name = format!("{id}.lock");
        let path = locks.shown(&name);
        let started = Instant::now();
        let mut delay = Duration::from_millis(25);
        let mut announced = false;
        let mut jitter = seed();
        let mut took_over = false;
        loop {
            match locks.create_dir(&name) {
                Ok(()) => {
                    let stamp =
                        stamp(&locks, &name).map_err(|error| LockError::Io(path.clone(), error))?;
                    return Ok(IdLock::held(locks, name, stamp));
                }
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                    if is_stale(&locks, &name) {
                        // Take over: remove the stale directory and race for it again. Two
                        // processes taking over at once can both succeed, as with the
                        // reference's proper-lockfile; the loser finds out at `check()`, which
                        // every commit step calls.
                        match locks.remove_dir(&name) {
                            Ok(()) => {}
                            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                            Err(error) => return Err(LockError::Unremovable(path, error)),
                        }
                        // One immediate retry after a takeover; a lock that keeps coming back
                        // stale goes through the back-off like any busy lock.
                        if !took_over {
                            took_over = true;
                            continue;
                        }
                    }
                }
                Err(error) => return Err(LockError::Io(path, error)),
            }
            if !announced {
                on_wait(&path);
                announced = true;
            }
            if timeout.is_some_and(|timeout| started.elapsed() >= timeout) {
                return Err(LockError::Timeout(path));
            }
            jitter = jitter
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let spread = delay.as_millis() as u64 / 2 + 1;
            std::thread::sleep(delay / 2 + Duration::from_millis((jitter >> 33) % spread));
            delay = (delay.mul_f64(1.2)).min(Duration::from_millis(250));
        }
    }

    fn held(locks: Arc<Dir>, name: String, stamp: SystemTime) -> IdLock {
        let stamp = Arc::new(Mutex::new(Some(stamp)));
        let (stop, stopped) = mpsc::channel::<()>();
        let refresher = {
            let (locks, name, stamp) = (locks.clone(), name.clone(), stamp.clone());
            let refresh_every = stale_after() / 2;
            std::thread::spawn(move || {
                // Sleeps until the next refresh or until the holder drops the sender.
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(refresh_every)
                {
                    let Ok(mut guard) = stamp.lock() else { return };
                    match *guard {
                        Some(last) if mtime(&locks, &name) == Some(last) => {
                            *guard = self::stamp(&locks, &name).ok();
                        }
                        // Someone else owns it now: never refresh their lock.
                        _ => *guard = None,
                    }
                }
            })
        };
        IdLock {
            locks,
            name,
            stamp,
            stop: Some(stop),
            refresher: Some(refresher),
        }
    }

    /// Fails when the lock is no longer this holder's (removed, or taken over and re-stamped).
    pub fn check(&self) -> Result<(), LockError> {
        let guard = self
            .stamp
            .lock()
            .map_err(|_| LockError::Compromised(self.path()))?;
        match *guard {
            Some(last) if mtime(&self.locks, &self.name) == Some(last) => Ok(()),
            _ => Err(LockError::Compromised(self.path())),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.locks.shown(&self.name)
    }
}

impl Drop for IdLock {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(refresher) = self.refresher.take() {
            let _ = refresher.join();
        }
        // Remove the lock only while it is still ours.
        if self.check().is_ok() {
            let _ = self.locks.remove_dir(&self.name);
        }
    }
}

/// The lock directory's mtime; `None` when there is no lock directory (a file or a link at
/// the lock path is no lock of this holder's).
fn mtime(locks: &Dir, name: &str) -> Option<SystemTime> {
    match locks.status(name) {
        Ok(Some(status)) if status.kind == Kind::Directory => Some(status.modified),
        _ => None,
    }
}

/// Sets the lock directory's mtime to now and returns what the filesystem recorded.
fn stamp(locks: &Dir, name: &str) -> io::Result<SystemTime> {
    locks
        .open_dir(name)?
        .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?
        .touch()
}

/// Whatever is at the lock path, links not followed, counts by its own mtime.
fn is_stale(locks: &Dir, name: &str) -> bool {
    let window = stale_after();
    matches!(locks.status(name), Ok(Some(status)) if SystemTime::now()
        .duration_since(status.modified)
        .is_ok_and(|age| age > window))
}

fn seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ u64::from(std::process::id()).rotate_left(32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_at_a_time_and_release_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let first = IdLock::acquire(dir.path(), "pkg", None, &mut |_| {}).unwrap();
        assert!(dir.path().join("pkg.lock").is_dir());
        let mut waited = false;
        let second = IdLock::acquire(
            dir.path(),
            "pkg",
            Some(Duration::from_millis(200)),
            &mut |_| waited = true,
        );
        assert!(matches!(second, Err(LockError::Timeout(_))));
        assert!(waited, "the caller is told it is waiting");
        first.check().unwrap();
        drop(first);
        assert!(!dir.path().join("pkg.lock").exists());
        IdLock::acquire(dir.path(), "pkg", Some(Duration::from_secs(1)), &mut |_| {}).unwrap();
    }

    #[test]
    fn a_stale_lock_is_taken_over_and_the_old_holder_sees_it() {
        let dir = tempfile::tempdir().unwrap();
        let old = IdLock::acquire(dir.path(), "pkg", None, &mut |_| {}).unwrap();
        // Age the lock past the stale window, as a crashed holder would leave it.
        let aged = SystemTime::now() - STALE_AFTER - Duration::from_secs(5);
        std::fs::File::open(old.path())
            .unwrap()
            .set_modified(aged)
            .unwrap();
        let new =
            IdLock::acquire(dir.path(), "pkg", Some(Duration::from_secs(2)), &mut |_| {}).unwrap();
        assert!(matches!(old.check(), Err(LockError::Compromised(_))));
        new.check().unwrap();
        drop(old);
        assert!(
            dir.path().join("pkg.lock").is_dir(),
            "the old holder must not remove the new lock"
        );
    }

    /// A file, a link or a directory with something in it at the lock path is no lock anyone
    /// releases: once stale it is an error naming it (without a timeout, an endless busy loop
    /// before), and while fresh it is waited for only until the deadline.
    #[test]
    fn an_unremovable_stale_lock_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("pkg.lock");
        let set_mtime = |when: SystemTime| {
            #[cfg(unix)]
            if crate::fs::symlink_metadata(&lock).unwrap().is_symlink() {
                let seconds = when
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .unwrap()
                    .as_secs() as i64;
                let time = rustix::fs::Timespec {
                    tv_sec: seconds,
                    tv_nsec: 0,
                };
                let times = rustix::fs::Timestamps {
                    last_access: time,
                    last_modification: time,
                };
                rustix::fs::utimensat(
                    rustix::fs::CWD,
                    &lock,
                    &times,
                    rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                )
                .unwrap();
                return;
            }
            std::fs::File::open(&lock)
                .unwrap()
                .set_modified(when)
                .unwrap();
        };
        let mut cases = vec!["a file", "a non-empty directory"];
        if cfg!(unix) {
            cases.push("a link");
        }
        for what in &cases {
            match *what {
                "a file" => std::fs::write(&lock, "x").unwrap(),
                "a non-empty directory" => {
                    crate::fs::create_dir(&lock).unwrap();
                    std::fs::write(lock.join("x"), "x").unwrap();
                }
                _ => {
                    #[cfg(unix)]
                    std::os::unix::fs::symlink(dir.path().join("elsewhere"), &lock).unwrap();
                }
            }
            set_mtime(SystemTime::now() - STALE_AFTER - Duration::from_secs(5));
            let error = match IdLock::acquire(dir.path(), "pkg", None, &mut |_| {}) {
                Err(error) => error,
                Ok(_) => panic!("{what}: taken as a lock"),
            };
            assert!(
                matches!(&error, LockError::Unremovable(path, _) if *path == lock),
                "{what}: {error}"
            );
            assert!(error.to_string().contains("remove it by hand"), "{error}");
            // Fresh, it is waited for, up to the deadline.
            set_mtime(SystemTime::now());
            let error = IdLock::acquire(
                dir.path(),
                "pkg",
                Some(Duration::from_millis(100)),
                &mut |_| {},
            )
            .err()
            .unwrap();
            assert!(matches!(error, LockError::Timeout(_)), "{what}: {error}");
            if crate::fs::symlink_metadata(&lock).unwrap().is_dir() {
                crate::fs::remove_dir_all(&lock).unwrap();
            } else {
                crate::fs::remove_file(&lock).unwrap();
            }
        }
        assert_eq!(cases.len(), if cfg!(unix) { 3 } else { 2 });
    }

    #[test]
    fn contending_threads_serialise() {
        let dir = tempfile::tempdir().unwrap();
        let inside = Arc::new(Mutex::new(0u32));
        let max = Arc::new(Mutex::new(0u32));
        std::thread::scope(|scope| {
            for _ in 0..6 {
                let (inside, max) = (inside.clone(), max.clone());
                let path = dir.path().to_path_buf();
                scope.spawn(move || {
                    let lock =
                        IdLock::acquire(&path, "pkg", Some(Duration::from_secs(20)), &mut |_| {})
                            .unwrap();
                    {
                        let mut count = inside.lock().unwrap();
                        *count += 1;
                        let mut highest = max.lock().unwrap();
                        *highest = (*highest).max(*count);
                    }
                    std::thread::sleep(Duration::from_millis(20));
                    *inside.lock().unwrap() -= 1;
                    drop(lock);
                });
            }
        });
        assert_eq!(*max.lock().unwrap(), 1);
    }
}
