//! One regression test (or more) for each way found to break squad as an attacker or an unlucky
//! user would — hostile folders, races, planted files — each reproduced deterministically with
//! real processes. Races are made deterministic by holding the id lock (squad opens the scope,
//! says "Blocking" and waits) or by a failpoint that waits on a FIFO, while the test changes
//! the file system; then squad is let go. A squad that hangs is killed and the test fails.
//!
//! Findings: F1 writes and deletes through a link swapped in mid-install; F2 installs what was
//! not validated; F3 spins on an unremovable stale lock; F5 overwrites an unreadable config; F6
//! (archives) is in archives.rs; F7 `pkg/` bypasses the linked-root check; F8 hangs on a FIFO;
//! and `version bump` of a future-dated version goes backwards.

#![cfg(unix)]

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::install::{Sandbox, listing};
use crate::support::{copy_tree, text};

const ID: &str = "minimal-squad";
/// Long enough for any of these commands on a loaded machine; a hang is far longer.
const LIMIT: Duration = Duration::from_secs(60);

/// A running squad, its stderr read line by line on a thread.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
    said: String,
}

impl Running {
    fn start(command: &mut Command) -> Running {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("squad starts");
        let stderr = child.stderr.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            lines,
            said: String::new(),
        }
    }

    /// Reads stderr until a line contains `wanted`; kills squad and fails when it never comes.
    fn wait_for(&mut self, wanted: &str) {
        let deadline = Instant::now() + LIMIT;
        while Instant::now() < deadline {
            match self.lines.recv_timeout(Duration::from_millis(100)) {
                Ok(line) => {
                    self.said.push_str(&line);
                    self.said.push('\n');
                    if line.contains(wanted) {
                        return;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        panic!("squad never said `{wanted}`; it said:\n{}", self.said);
    }

    /// Waits for squad to exit; a squad still running after [`LIMIT`] hangs: it is killed and
    /// the test fails. Returns the exit code and all of stderr.
    fn finish(mut self) -> (Option<i32>, String) {
        let deadline = Instant::now() + LIMIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(200)) {
                    self.said.push_str(&line);
                    self.said.push('\n');
                }
                return (status.code(), self.said);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                while let Ok(line) = self.lines.try_recv() {
                    self.said.push_str(&line);
                    self.said.push('\n');
                }
                panic!(
                    "squad hung (killed after {LIMIT:?}); it said:\n{}",
                    self.said
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// `squad ARGS` in the sandbox, run to the end (or killed as hung).
fn run(sandbox: &Sandbox, args: &[&str]) -> (Option<i32>, String) {
    Running::start(&mut sandbox.command(args)).finish()
}

fn lock_path(sandbox: &Sandbox, id: &str) -> PathBuf {
    sandbox
        .root
        .join("home/opencorvus/config/expert-squad-install-locks")
        .join(format!("{id}.lock"))
}

/// Holds the id lock as another installer would (an empty lock directory).
fn hold_lock(sandbox: &Sandbox, id: &str) -> PathBuf {
    let lock = lock_path(sandbox, id);
    fs::create_dir_all(&lock).unwrap();
    lock
}

/// Starts `squad ARGS` while the test holds the id lock, and returns once squad says it is
/// waiting for it: by then squad has read its source and opened the scope.
fn waiting_for_the_lock(sandbox: &Sandbox, args: &[&str]) -> (Running, PathBuf) {
    let lock = hold_lock(sandbox, ID);
    let mut running = Running::start(sandbox.command(args).env("SQUAD_LOCK_STALE_MS", "600000"));
    running.wait_for("Blocking");
    (running, lock)
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo (coreutils) must be installed for these tests");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Starts `squad ARGS` stopped at the failpoint `phase` (it waits on a FIFO), and returns once
/// it is there, with the FIFO that lets it go on.
fn paused_at(sandbox: &Sandbox, args: &[&str], phase: &str) -> (Running, PathBuf) {
    let fifo = sandbox.root.join(format!("resume-{phase}"));
    mkfifo(&fifo);
    let mut running = Running::start(
        sandbox
            .command(args)
            .env("SQUAD_FAILPOINT", phase)
            .env("SQUAD_FAILPOINT_RESUME", &fifo),
    );
    running.wait_for(&format!("failpoint {phase}"));
    (running, fifo)
}

/// Lets a squad stopped at a failpoint go on: opens its FIFO for writing and closes it (without
/// blocking when nobody reads it).
fn resume(fifo: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let opened = fs::File::options()
            .write(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(fifo);
        if opened.is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every path under `root` with the text of each file, to show nothing changed there.
fn snapshot(root: &Path) -> Vec<(String, Option<String>)> {
    listing(root)
        .into_iter()
        .map(|path| {
            let full = root.join(&path);
            let content =
                (full.is_file() && !full.is_symlink()).then(|| text(&fs::read(&full).unwrap()));
            (path, content)
        })
        .collect()
}

/// A folder outside every scope holding, at `at`, a copy of `package` (say, the user's own
/// source folder), plus a file the user cares about when `precious`. Without it the copy has
/// the installed package's digest, so it passes every check made before the lock.
fn outside_with_a_package(sandbox: &Sandbox, package: &Path, at: &str, precious: bool) -> PathBuf {
    let outside = sandbox.root.join("outside");
    copy_tree(package, &outside.join(at));
    if precious {
        fs::write(outside.join(at).join("precious.txt"), "keep me").unwrap();
    }
    outside
}

/// Moves the project's `.opencorvus` away and links `outside` in its place.
fn swap_config_root(sandbox: &Sandbox, outside: &Path) -> PathBuf {
    let config = sandbox.root.join("project/.opencorvus");
    let moved = sandbox.root.join("project/.opencorvus-moved");
    fs::rename(&config, &moved).unwrap();
    std::os::unix::fs::symlink(outside, &config).unwrap();
    moved
}

fn install_args(package: &Path) -> Vec<&str> {
    vec!["install", package.to_str().unwrap(), "--scope", "project"]
}

// ---- F1: a link swapped in for a scope directory is never written or deleted through. ----

/// F1, fresh install: the project's `.opencorvus` replaced by a link to an outside folder
/// while squad waits for the lock. Before: the package, staging and scratch directories were
/// written into the outside folder.
#[test]
fn f1_a_fresh_install_never_writes_through_a_config_root_swapped_while_waiting() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    fs::create_dir_all(sandbox.root.join("project/.opencorvus")).unwrap();
    let outside = sandbox.root.join("outside");
    fs::create_dir_all(&outside).unwrap();
    let (running, lock) = waiting_for_the_lock(&sandbox, &install_args(&package));
    let moved = swap_config_root(&sandbox, &outside);
    fs::remove_dir(&lock).unwrap();
    let (code, stderr) = running.finish();
    assert!(
        listing(&outside).is_empty(),
        "written outside the scope: {:?}",
        listing(&outside)
    );
    assert_ne!(code, Some(0), "{stderr}");
    assert!(stderr.contains("was moved or replaced"), "{stderr}");
    assert!(!moved.join("expert-squads/acme").exists());
}

/// F1, replacement: the outside folder holds a copy of the installed package. Before: squad
/// moved the outside folder to its "backup" and deleted it.
#[test]
fn f1_a_replacement_never_moves_or_deletes_through_a_config_root_swapped_while_waiting() {
    let sandbox = Sandbox::in_project();
    let v1 = sandbox.package("valid/minimal", "v1", "");
    let v2 = sandbox.package("valid/minimal", "v2", "more\n");
    let d1 = sandbox.digest(&v1);
    assert_eq!(run(&sandbox, &install_args(&v1)).0, Some(0));
    let outside = outside_with_a_package(&sandbox, &v1, "expert-squads/acme/minimal-squad", false);
    let before = snapshot(&outside);
    let mut args = install_args(&v2);
    args.extend(["--expect", &d1]);
    let (running, lock) = waiting_for_the_lock(&sandbox, &args);
    let moved = swap_config_root(&sandbox, &outside);
    fs::remove_dir(&lock).unwrap();
    let (code, stderr) = running.finish();
    assert_eq!(
        snapshot(&outside),
        before,
        "changed outside the scope: {stderr}"
    );
    assert_ne!(code, Some(0), "{stderr}");
    assert_eq!(
        sandbox.digest(&moved.join("expert-squads/acme/minimal-squad")),
        d1
    );
}

/// F1, uninstall. Before: squad deleted the outside copy.
#[test]
fn f1_an_uninstall_never_deletes_through_a_config_root_swapped_while_waiting() {
    let sandbox = Sandbox::in_project();
    let v1 = sandbox.package("valid/minimal", "v1", "");
    let d1 = sandbox.digest(&v1);
    assert_eq!(run(&sandbox, &install_args(&v1)).0, Some(0));
    let outside = outside_with_a_package(&sandbox, &v1, "expert-squads/acme/minimal-squad", false);
    let before = snapshot(&outside);
    let (running, lock) = waiting_for_the_lock(&sandbox, &["uninstall", ID, "--scope", "project"]);
    let moved = swap_config_root(&sandbox, &outside);
    fs::remove_dir(&lock).unwrap();
    let (code, stderr) = running.finish();
    assert_eq!(
        snapshot(&outside),
        before,
        "changed outside the scope: {stderr}"
    );
    assert_ne!(code, Some(0), "{stderr}");
    assert_eq!(
        sandbox.digest(&moved.join("expert-squads/acme/minimal-squad")),
        d1
    );
}

/// F1, leftover cleanup: the outside folder holds what looks like a crashed install's staging
/// directory. Before: squad deleted it.
#[test]
fn f1_leftover_cleanup_never_deletes_through_a_config_root_swapped_while_waiting() {
    let sandbox = Sandbox::in_project();
    let v1 = sandbox.package("valid/minimal", "v1", "");
    assert_eq!(run(&sandbox, &install_args(&v1)).0, Some(0));
    let outside = sandbox.root.join("outside");
    let leftover = outside.join(
        "expert-squad-staging/.staging-acme-minimal-squad-0f8c5a1e-1b2c-4d3e-8f4a-5b6c7d8e9f00",
    );
    fs::create_dir_all(&leftover).unwrap();
    fs::write(leftover.join("precious.txt"), "keep me").unwrap();
    let before = snapshot(&outside);
    let (running, lock) = waiting_for_the_lock(&sandbox, &install_args(&v1));
    swap_config_root(&sandbox, &outside);
    fs::remove_dir(&lock).unwrap();
    let (code, stderr) = running.finish();
    assert_eq!(
        snapshot(&outside),
        before,
        "changed outside the scope: {stderr}"
    );
    assert_ne!(code, Some(0), "{stderr}");
}

/// Moves the packages root's `acme` away and links `outside` in its place.
fn swap_namespace(sandbox: &Sandbox, outside: &Path) -> PathBuf {
    let namespace = sandbox.packages_root().join("acme");
    let moved = sandbox.packages_root().join("acme-moved");
    fs::rename(&namespace, &moved).unwrap();
    std::os::unix::fs::symlink(outside, &namespace).unwrap();
    moved
}

/// F1 as the issue found it: the namespace directory swapped for a link while the package is
/// staged (after every check). Before: the old package's place was taken through the link —
/// the outside folder moved to the backup and deleted. Now the namespace directory squad opened
/// gets the new package, wherever it was moved.
#[test]
fn f1_a_namespace_swapped_mid_replacement_is_never_followed() {
    let sandbox = Sandbox::in_project();
    let v1 = sandbox.package("valid/minimal", "v1", "");
    let v2 = sandbox.package("valid/minimal", "v2", "more\n");
    let (d1, d2) = (sandbox.digest(&v1), sandbox.digest(&v2));
    assert_eq!(run(&sandbox, &install_args(&v1)).0, Some(0));
    let outside = outside_with_a_package(&sandbox, &v1, ID, true);
    let before = snapshot(&outside);
    let mut args = install_args(&v2);
    args.extend(["--expect", &d1]);
    let (running, fifo) = paused_at(&sandbox, &args, "staged");
    let moved = swap_namespace(&sandbox, &outside);
    resume(&fifo);
    let (code, stderr) = running.finish();
    assert_eq!(
        snapshot(&outside),
        before,
        "changed outside the scope: {stderr}"
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(sandbox.digest(&moved.join(ID)), d2);
}

/// F1, fresh install into an existing namespace swapped mid-install. Before: the package was
/// written into the outside folder.
#[test]
fn f1_a_namespace_swapped_mid_fresh_install_is_never_followed() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let digest = sandbox.digest(&package);
    fs::create_dir_all(sandbox.packages_root().join("acme")).unwrap();
    let outside = sandbox.root.join("outside");
    fs::create_dir_all(&outside).unwrap();
    let (running, fifo) = paused_at(&sandbox, &install_args(&package), "staged");
    let moved = swap_namespace(&sandbox, &outside);
    resume(&fifo);
    let (code, stderr) = running.finish();
    assert!(
        listing(&outside).is_empty(),
        "written outside the scope: {:?}",
        listing(&outside)
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(sandbox.digest(&moved.join(ID)), digest);
}

/// F1, uninstall: the namespace swapped after the package was checked. The package squad
/// checked is removed from where it now is; the outside folder stays.
#[test]
fn f1_a_namespace_swapped_mid_uninstall_is_never_followed() {
    let sandbox = Sandbox::in_project();
    let v1 = sandbox.package("valid/minimal", "v1", "");
    assert_eq!(run(&sandbox, &install_args(&v1)).0, Some(0));
    let outside = outside_with_a_package(&sandbox, &v1, ID, true);
    let before = snapshot(&outside);
    let (running, fifo) = paused_at(
        &sandbox,
        &["uninstall", ID, "--scope", "project"],
        "uninstall-checked",
    );
    let moved = swap_namespace(&sandbox, &outside);
    resume(&fifo);
    let (code, stderr) = running.finish();
    assert_eq!(
        snapshot(&outside),
        before,
        "changed outside the scope: {stderr}"
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!moved.join(ID).exists());
}

// ---- F2: what is installed is what was validated. ----

/// F2: the source folder is read once. Its manifest replaced (by another valid package's)
/// while squad waits for the lock, what was validated is what gets installed. Before: the
/// folder was read again after the lock (and a swap between the first two reads installed a
/// manifest `validate` refused); here it failed with "package bytes changed".
#[test]
fn f2_the_bytes_validated_are_the_bytes_installed() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let digest = sandbox.digest(&package);
    let manifest = package.join("expert-squad.jsonc");
    let original = fs::read_to_string(&manifest).unwrap();
    let other = sandbox.root.join("other.jsonc");
    fs::write(&other, original.replace(ID, "other-squad")).unwrap();
    let (running, lock) = waiting_for_the_lock(&sandbox, &install_args(&package));
    fs::rename(&other, &manifest).unwrap();
    fs::remove_dir(&lock).unwrap();
    let (code, stderr) = running.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let target = sandbox.target("acme", ID);
    assert_eq!(sandbox.digest(&target), digest);
    assert_eq!(
        fs::read_to_string(target.join("expert-squad.jsonc")).unwrap(),
        original
    );
}

// ---- F3: a stale lock that cannot be removed is an error naming it. ----

/// Ages `path` itself (a link too) past every stale window.
fn age(path: &Path) {
    let long_ago = rustix::fs::Timespec {
        tv_sec: 1_000_000_000,
        tv_nsec: 0,
    };
    let times = rustix::fs::Timestamps {
        last_access: long_ago,
        last_modification: long_ago,
    };
    rustix::fs::utimensat(
        rustix::fs::CWD,
        path,
        &times,
        rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
    )
    .unwrap();
}

/// F3: a file, a non-empty directory or a link at the lock path, stale, for install,
/// uninstall and list. Before: squad spun at 100% CPU forever, whatever --lock-timeout said.
#[test]
fn f3_an_unremovable_stale_lock_is_an_error_naming_it() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    assert_eq!(run(&sandbox, &install_args(&package)).0, Some(0));
    let lock = lock_path(&sandbox, ID);
    let scratch = sandbox
        .root
        .join("project/.opencorvus/expert-squad-staging");
    // A crash leftover, so that `list` takes the lock to clean it.
    let leftover = scratch.join(".staging-acme-minimal-squad-0f8c5a1e-1b2c-4d3e-8f4a-5b6c7d8e9f00");
    // What is at the lock path, the command run, and how the entry is made.
    type Case<'a> = (&'a str, &'a [&'a str], &'a dyn Fn());
    let cases: [Case; 3] = [
        (
            "a file",
            &["install", package.to_str().unwrap(), "--scope", "project"],
            &|| fs::write(&lock, "x").unwrap(),
        ),
        (
            "a non-empty directory",
            &[
                "uninstall",
                ID,
                "--scope",
                "project",
                "--lock-timeout",
                "600",
            ],
            &|| {
                fs::create_dir_all(lock.join("inside")).unwrap();
            },
        ),
        ("a link", &["list", "--scope", "project"], &|| {
            fs::create_dir_all(&leftover).unwrap();
            std::os::unix::fs::symlink("elsewhere", &lock).unwrap();
        }),
    ];
    for (what, args, make) in cases {
        make();
        age(&lock);
        let (code, stderr) = run(&sandbox, args);
        assert!(
            stderr.contains(&lock.display().to_string()) && stderr.contains("cannot be removed"),
            "{what}, {args:?}: {stderr}"
        );
        if args[0] == "list" {
            // The listing goes on and says what it could not recover.
            assert_eq!(code, Some(0), "{stderr}");
        } else {
            assert_eq!(code, Some(2), "{what}: {stderr}");
        }
        let _ = fs::remove_dir_all(&lock).or_else(|_| fs::remove_file(&lock));
    }
}

// ---- F5 and F8: configs and manifests squad cannot read exactly are never rewritten. ----

/// F5: a config that is not UTF-8 is left byte for byte; activate refuses. Before: it was
/// replaced by a new config holding only `prompt_profile`, the user's settings lost.
#[test]
fn f5_activate_never_overwrites_a_config_it_cannot_read() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    assert_eq!(run(&sandbox, &install_args(&package)).0, Some(0));
    let config = sandbox.root.join("project/.opencorvus/opencorvus.jsonc");
    let latin1 = b"{ \"model\": \"caf\xe9\", \"theme\": \"dark\" }\n";
    fs::write(&config, latin1).unwrap();
    let (code, stderr) = run(&sandbox, &["activate", ID]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("not valid UTF-8"), "{stderr}");
    assert_eq!(fs::read(&config).unwrap(), latin1);
}

/// F8: a FIFO where squad reads a config (activate, uninstall's reset) or a manifest
/// (version bump) is refused at once. Before: squad blocked forever opening it.
#[test]
fn f8_a_fifo_where_a_file_is_read_is_refused_without_hanging() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    assert_eq!(run(&sandbox, &install_args(&package)).0, Some(0));
    let config = sandbox.root.join("project/.opencorvus/opencorvus.jsonc");
    mkfifo(&config);
    let (code, stderr) = run(&sandbox, &["activate", ID]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    // Uninstall removes the package and says the selection could not be checked.
    let (code, stderr) = run(&sandbox, &["uninstall", ID, "--scope", "project"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("warning:") && stderr.contains("not a regular file"),
        "{stderr}"
    );
    assert!(!sandbox.target("acme", ID).exists());
    let manifest = package.join("expert-squad.jsonc");
    fs::remove_file(&manifest).unwrap();
    mkfifo(&manifest);
    let (code, stderr) = run(&sandbox, &["version", "bump", package.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
}

/// F8, staging: a source file replaced by a FIFO while squad waits for the lock. Before:
/// staging read it after the lock and hung, holding the lock. Now the source was read before.
#[test]
fn f8_a_source_file_replaced_by_a_fifo_never_hangs_the_install() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let digest = sandbox.digest(&package);
    let (running, lock) = waiting_for_the_lock(&sandbox, &install_args(&package));
    fs::remove_file(package.join("README.md")).unwrap();
    mkfifo(&package.join("README.md"));
    fs::remove_dir(&lock).unwrap();
    let (code, stderr) = running.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(sandbox.digest(&sandbox.target("acme", ID)), digest);
    // And a FIFO already there is refused as part of the package, at once.
    let (code, stderr) = run(&sandbox, &install_args(&package));
    assert_eq!(code, Some(1), "{stderr}");
}

// ---- F7: `pkg/` is the link `pkg`. ----

/// F7: a package root that is a link is refused whether or not the path ends in `/`. Before:
/// `validate pkg/`, `digest pkg/` and `install pkg/` followed the link and accepted it.
#[test]
fn f7_a_trailing_slash_does_not_hide_a_linked_package_root() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let link = sandbox.root.join("link");
    std::os::unix::fs::symlink(&package, &link).unwrap();
    let mut checked = 0;
    for shown in [
        link.to_str().unwrap().to_owned(),
        format!("{}/", link.display()),
        format!("{}//", link.display()),
        format!("{}/.", link.display()),
    ] {
        for args in [
            vec!["validate", shown.as_str()],
            vec!["digest", shown.as_str()],
            vec!["install", shown.as_str(), "--scope", "project"],
        ] {
            let (code, stderr) = run(&sandbox, &args);
            assert_ne!(code, Some(0), "{args:?} accepted a linked root: {stderr}");
            assert!(stderr.contains("symbolic link"), "{args:?}: {stderr}");
            checked += 1;
        }
    }
    assert_eq!(checked, 12);
    assert!(!sandbox.packages_root().join("acme").exists());
}

// ---- `version bump` never goes backwards. ----

/// Before: a version dated in the future was bumped to today's `.1`, a lower version.
#[test]
fn a_bump_of_a_future_dated_version_is_refused_and_changes_nothing() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let manifest = package.join("expert-squad.jsonc");
    let future = fs::read_to_string(&manifest)
        .unwrap()
        .replace("2026.08.20.1", "9999.12.31.1");
    assert!(future.contains("9999.12.31.1"));
    fs::write(&manifest, &future).unwrap();
    let output = sandbox
        .command(&["version", "bump", package.to_str().unwrap()])
        .env("SQUAD_TODAY", "2026-08-21")
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("9999.12.31.1 is dated after today (2026-08-21)"),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(&manifest).unwrap(), future);
}
