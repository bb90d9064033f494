//! The cross-process install lock per package id, with the reference's protocol (LCK-1) so
//! `squad` and a running OpenCorvus serialise on the same lock: `mkdir <locks>/<id>.lock`; while
//! held, its mtime is refreshed every few seconds; a lock whose mtime is older than the stale
//! window is taken over. Before committing, the holder checks that the lock is still its own
//! (the directory exists with the mtime it last wrote): a lock taken over meanwhile is
//! "compromised" and the operation must fail. Held locks are refreshed every 5 s.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// After this long without a refresh a lock is stale (proper-lockfile's default).
pub const STALE_AFTER: Duration = Duration::from_secs(10);

/// The stale window: [`STALE_AFTER`], or `SQUAD_LOCK_STALE_MS` (a test hook, so crash tests
/// need not wait ten seconds for each killed holder). Held locks are refreshed at half of it.
fn stale_after() -> Duration {
    std::env::var("SQUAD_LOCK_STALE_MS")
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
        .map_or(STALE_AFTER, |millis| Duration::from_millis(millis.max(100)))
}

/// Why the lock could not be taken or kept.
#[derive(Debug)]
pub enum LockError {
    Timeout(PathBuf),
    Compromised(PathBuf),
    Io(PathBuf, io::Error),
}

impl std::fmt::Display for LockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockError::Timeout(path) => write!(
                f,
                "timed out waiting for the install lock `{}`",
                path.display()
            ),
            LockError::Compromised(path) => write!(
                f,
                "the install lock `{}` was taken over by another process",
                path.display()
            ),
            LockError::Io(path, error) => write!(
                f,
                "cannot use the install lock `{}`: {error}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for LockError {}

/// A held lock; released when dropped.
pub struct IdLock {
    path: PathBuf,
    /// The mtime this holder last wrote; `None` once compromised.
    stamp: Arc<Mutex<Option<SystemTime>>>,
    stop: Arc<AtomicBool>,
    refresher: Option<std::thread::JoinHandle<()>>,
}

impl IdLock {
    /// Takes the lock for `id` in `locks_dir`, waiting up to `timeout` (forever when `None`) with
    /// randomised back-off. `on_wait` is called once if the lock is busy (to say "Blocking").
    pub fn acquire(
        locks_dir: &Path,
        id: &str,
        timeout: Option<Duration>,
        on_wait: &mut dyn FnMut(&Path),
    ) -> Result<IdLock, LockError> {
        let path = locks_dir.join(format!("{id}.lock"));
        fs::create_dir_all(locks_dir)
            .map_err(|error| LockError::Io(locks_dir.to_path_buf(), error))?;
        let started = Instant::now();
        let mut delay = Duration::from_millis(25);
        let mut announced = false;
        let mut jitter = seed();
        loop {
            match fs::create_dir(&path) {
                Ok(()) => {
                    let stamp = touch(&path).map_err(|error| LockError::Io(path.clone(), error))?;
                    return Ok(IdLock::held(path, stamp));
                }
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                    if is_stale(&path) {
                        // Take over: remove the stale directory and race for it again. Two
                        // processes taking over at once can both succeed, as with the
                        // reference's proper-lockfile; the loser finds out at `check()`, which
                        // every commit step calls.
                        let _ = fs::remove_dir(&path);
                        continue;
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

    fn held(path: PathBuf, stamp: SystemTime) -> IdLock {
        let stamp = Arc::new(Mutex::new(Some(stamp)));
        let stop = Arc::new(AtomicBool::new(false));
        let refresher = {
            let (path, stamp, stop) = (path.clone(), stamp.clone(), stop.clone());
            let refresh_every = stale_after() / 2;
            std::thread::spawn(move || {
                let tick = (refresh_every / 4).min(Duration::from_millis(100));
                let mut waited = Duration::ZERO;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(tick);
                    waited += tick;
                    if waited < refresh_every {
                        continue;
                    }
                    waited = Duration::ZERO;
                    let Ok(mut guard) = stamp.lock() else { return };
                    match *guard {
                        Some(last) if mtime(&path) == Some(last) => *guard = touch(&path).ok(),
                        // Someone else owns it now: never refresh their lock.
                        _ => *guard = None,
                    }
                }
            })
        };
        IdLock {
            path,
            stamp,
            stop,
            refresher: Some(refresher),
        }
    }

    /// Fails when the lock is no longer this holder's (removed, or taken over and re-stamped).
    pub fn check(&self) -> Result<(), LockError> {
        let guard = self
            .stamp
            .lock()
            .map_err(|_| LockError::Compromised(self.path.clone()))?;
        match *guard {
            Some(last) if mtime(&self.path) == Some(last) => Ok(()),
            _ => Err(LockError::Compromised(self.path.clone())),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for IdLock {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(refresher) = self.refresher.take() {
            let _ = refresher.join();
        }
        // Remove the lock only while it is still ours.
        if self.check().is_ok() {
            let _ = fs::remove_dir(&self.path);
        }
    }
}

fn mtime(path: &Path) -> Option<SystemTime> {
    fs::metadata(path)
        .and_then(|metadata| metadata.modified())
        .ok()
}

/// Sets the lock directory's mtime to now and returns what the filesystem recorded.
fn touch(path: &Path) -> io::Result<SystemTime> {
    let directory = fs::File::open(path)?;
    directory.set_modified(SystemTime::now())?;
    directory.metadata()?.modified()
}

fn is_stale(path: &Path) -> bool {
    let window = stale_after();
    mtime(path).is_some_and(|modified| {
        SystemTime::now()
            .duration_since(modified)
            .is_ok_and(|age| age > window)
    })
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
        fs::File::open(old.path())
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
