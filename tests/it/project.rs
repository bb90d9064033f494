//! A project's squads end to end with the real binary: `squad add`, `remove`, `sync`,
//! `outdated` and `update` for every source kind — registry squads against Debian's
//! `docker-registry`, `https://` sources and install links against Python's `http.server`,
//! both on 127.0.0.1 — with a lying server for what a real one will not do; `--locked` and
//! `--offline`; moved tags and tampered caches; comments kept in `squads.jsonc`; concurrent
//! syncs; and syncs killed at every phase.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;

use crate::http_support::StaticServer;
use crate::oci_support::{Auth, LyingServer, Registry, Seen, forward, respond};
use crate::registry::{assert_ok, template, variant};
use crate::support::Sandbox;
use crate::support::{copy_tree, fixtures, repo, text};

/// A sandbox with a project and a download cache of its own (or a shared one).
struct Proj {
    sandbox: Sandbox,
    cache: PathBuf,
}

impl Proj {
    fn new() -> Proj {
        let sandbox = Sandbox::new();
        let cache = sandbox.dir.path().join("cache");
        Proj::with_cache(sandbox, cache)
    }

    fn with_cache(sandbox: Sandbox, cache: PathBuf) -> Proj {
        Proj {
            sandbox: sandbox.with_env("SQUAD_CACHE_DIR", &cache),
            cache,
        }
    }

    /// Another project with the same cache.
    fn sharing_cache(&self) -> Proj {
        Proj::with_cache(Sandbox::new(), self.cache.clone())
    }

    /// Another project holding copies of this one's two files (a clone), with its own cache.
    fn clone_files(&self, shared_cache: bool) -> Proj {
        let clone = if shared_cache {
            self.sharing_cache()
        } else {
            Proj::new()
        };
        std::fs::create_dir_all(clone.root().join(".opencorvus")).unwrap();
        for file in ["squads.jsonc", "squads.lock"] {
            let from = self.root().join(".opencorvus").join(file);
            if from.exists() {
                std::fs::copy(from, clone.root().join(".opencorvus").join(file)).unwrap();
            }
        }
        clone
    }

    fn root(&self) -> PathBuf {
        self.sandbox.project()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = self.sandbox.command(args);
        command.arg("--project").arg(self.root());
        command
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn declared(&self) -> String {
        std::fs::read_to_string(self.root().join(".opencorvus/squads.jsonc")).unwrap_or_default()
    }

    fn write_declared(&self, text: &str) {
        std::fs::create_dir_all(self.root().join(".opencorvus")).unwrap();
        std::fs::write(self.root().join(".opencorvus/squads.jsonc"), text).unwrap();
    }

    fn lock_text(&self) -> String {
        std::fs::read_to_string(self.root().join(".opencorvus/squads.lock")).unwrap_or_default()
    }

    fn lock(&self) -> serde_json::Value {
        serde_json::from_str(&self.lock_text()).unwrap()
    }

    fn target(&self, name: &str) -> PathBuf {
        self.root().join(".opencorvus/expert-squads").join(name)
    }

    /// The package digest of what is installed under `name`, if anything.
    fn installed(&self, name: &str) -> Option<String> {
        let target = self.target(name);
        target
            .exists()
            .then(|| squad::install::directory_digest(&target).unwrap().hex())
    }

    /// The files and everything installed, for "nothing changed" comparisons.
    fn state(&self) -> (String, String, Vec<String>) {
        let mut installed = Vec::new();
        if let Ok(namespaces) = std::fs::read_dir(self.root().join(".opencorvus/expert-squads")) {
            for namespace in namespaces.flatten() {
                for id in std::fs::read_dir(namespace.path()).unwrap().flatten() {
                    installed.push(format!(
                        "{} {}",
                        id.path().display(),
                        squad::install::directory_digest(&id.path())
                            .map(|digest| digest.hex())
                            .unwrap_or_default()
                    ));
                }
            }
        }
        installed.sort();
        (self.declared(), self.lock_text(), installed)
    }
}

fn code(output: &Output) -> Option<i32> {
    output.status.code()
}

fn stderr(output: &Output) -> String {
    text(&output.stderr)
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}{}", text(&output.stdout), stderr(output)))
}

#[track_caller]
fn assert_code(output: &Output, expected: i32, what: &str) {
    assert_eq!(
        code(output),
        Some(expected),
        "{what}: {}{}",
        text(&output.stdout),
        stderr(output)
    );
}

fn digest(path: &Path) -> String {
    squad::install::directory_digest(path).unwrap().hex()
}

fn sha256(path: &Path) -> String {
    squad::digest::Sha256Digest::of_file(path).unwrap().hex()
}

/// Packs `package` to `archive` with the real binary.
fn pack(sandbox: &Sandbox, package: &Path, archive: &Path) {
    std::fs::create_dir_all(archive.parent().unwrap()).unwrap();
    let output = sandbox.run(&[
        "pack",
        package.to_str().unwrap(),
        "-o",
        archive.to_str().unwrap(),
        "--force",
    ]);
    assert_ok(&output, "pack");
}

/// Publishes with the real binary and returns the pinned reference it prints.
fn publish(sandbox: &Sandbox, package: &Path, base: &str) -> String {
    let output = sandbox.run(&["publish", package.to_str().unwrap(), base]);
    assert_ok(&output, &format!("publish {}", package.display()));
    text(&output.stdout).trim().to_owned()
}

#[test]
fn folder_and_archive_sources_are_added_synced_updated_and_removed_keeping_comments() {
    let project = Proj::new();
    let root = project.root();
    copy_tree(
        &fixtures().join("valid/minimal"),
        &root.join("squads/minimal"),
    );
    pack(
        &project.sandbox,
        &template("delivery"),
        &root.join("vendor/delivery.zip"),
    );
    let written = "// Our squads.\n{\n  // Local ones.\n  \"squads\": {\n  } // end of squads\n}\n";
    project.write_declared(written);

    // Paths are given from the current directory and written relative to the project.
    let output = project.run(&["add", "project/squads/minimal"]);
    assert_ok(&output, "add a folder");
    assert!(
        stderr(&output).contains("Added acme/minimal-squad"),
        "{}",
        stderr(&output)
    );
    assert!(stderr(&output).contains("Installed acme/minimal-squad 2026.08.20.1"));
    let output = project.run(&["add", "project/vendor/delivery.zip", "--format", "json"]);
    assert_ok(&output, "add an archive");
    let document = json(&output);
    assert_eq!(document["type"], "add");
    assert_eq!(document["declared"], "added");
    assert_eq!(document["squad"]["operation"], "installed");
    assert_eq!(document["squad"]["kind"], "archive");
    let declared = project.declared();
    for kept in ["// Our squads.", "// Local ones.", "} // end of squads"] {
        assert!(declared.contains(kept), "{kept} lost:\n{declared}");
    }
    assert!(declared.contains("\"acme/minimal-squad\": { \"source\": \"squads/minimal\" }"));
    assert!(declared.contains("\"example/delivery\": { \"source\": \"vendor/delivery.zip\" }"));
    let lock = project.lock();
    assert_eq!(lock["lock_version"], 1);
    let folder = &lock["squads"]["acme/minimal-squad"];
    assert_eq!(folder["resolved"], "squads/minimal");
    assert_eq!(
        folder["package_digest"],
        digest(&root.join("squads/minimal"))
    );
    assert!(folder.get("archive_sha256").is_none());
    let archive = &lock["squads"]["example/delivery"];
    assert_eq!(
        archive["archive_sha256"],
        sha256(&root.join("vendor/delivery.zip"))
    );
    assert_eq!(
        archive["archive_bytes"],
        std::fs::metadata(root.join("vendor/delivery.zip"))
            .unwrap()
            .len()
    );
    assert_eq!(
        project.installed("example/delivery").as_deref(),
        archive["package_digest"].as_str()
    );

    // A second sync changes nothing.
    let before = project.state();
    let output = project.run(&["sync"]);
    assert_ok(&output, "no-op sync");
    assert!(
        stderr(&output).contains("Synced 2 squads: 2 unchanged"),
        "{}",
        stderr(&output)
    );
    assert_eq!(project.state(), before);

    // What is missing is installed again; what the files do not mention is left alone.
    std::fs::remove_dir_all(project.target("example/delivery")).unwrap();
    let stranger = project.target("example/planner-parallel");
    copy_tree(&template("planner-parallel"), &stranger);
    let output = project.run(&["sync", "--format", "json"]);
    assert_ok(&output, "sync after a removal");
    let document = json(&output);
    let operations: Vec<&str> = document["squads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|squad| squad["operation"].as_str().unwrap())
        .collect();
    assert_eq!(operations, ["unchanged", "installed"], "by name");
    assert!(
        stranger.join("README.md").exists(),
        "an undeclared package was touched"
    );
    std::fs::remove_dir_all(&stranger).unwrap();

    // A changed folder is refused with both digests, until `update` locks it.
    let locked = digest(&root.join("squads/minimal"));
    let readme = root.join("squads/minimal/README.md");
    let mut bytes = std::fs::read(&readme).unwrap();
    bytes.extend_from_slice(b"\nA change.\n");
    std::fs::write(&readme, bytes).unwrap();
    let changed = digest(&root.join("squads/minimal"));
    let before = project.state();
    let output = project.run(&["sync"]);
    assert_code(&output, 1, "a changed folder");
    let message = stderr(&output);
    assert!(
        message.contains("acme/minimal-squad")
            && message.contains(&locked)
            && message.contains(&changed),
        "{message}"
    );
    assert_eq!(project.state(), before, "a refused sync changes nothing");
    let output = project.run(&["update", "acme/minimal-squad"]);
    assert_ok(&output, "update a folder");
    assert_eq!(
        project.lock()["squads"]["acme/minimal-squad"]["package_digest"],
        changed
    );
    assert_eq!(project.installed("acme/minimal-squad"), Some(changed));
    assert_eq!(
        project.declared(),
        before.0,
        "a folder's update leaves squads.jsonc as it is"
    );

    // A changed archive likewise.
    let scratch = project.sandbox.dir.path().join("packages");
    let other = variant(&scratch, "delivery", "2026.12.02.1", "");
    let old_sha = sha256(&root.join("vendor/delivery.zip"));
    pack(&project.sandbox, &other, &root.join("vendor/delivery.zip"));
    let new_sha = sha256(&root.join("vendor/delivery.zip"));
    let output = project.run(&["sync"]);
    assert_code(&output, 1, "a changed archive");
    assert!(
        stderr(&output).contains(&old_sha) && stderr(&output).contains(&new_sha),
        "{}",
        stderr(&output)
    );
    let output = project.run(&["update", "--format", "json"]);
    assert_ok(&output, "update everything");
    let document = json(&output);
    assert_eq!(document["type"], "update");
    assert_eq!(
        project.lock()["squads"]["example/delivery"]["version"],
        "2026.12.02.1"
    );
    assert_eq!(project.installed("example/delivery"), Some(digest(&other)));

    // Outdated checks registry squads only; these are listed as such.
    let output = project.run(&["outdated", "--format", "json"]);
    assert_ok(&output, "outdated");
    let rows = json(&output)["squads"].clone();
    assert_eq!(rows.as_array().unwrap().len(), 2);
    for row in rows.as_array().unwrap() {
        assert!(row["latest"].is_null() && row["newer"] == serde_json::json!([]));
        assert!(["folder", "archive"].contains(&row["kind"].as_str().unwrap()));
    }

    // Remove: from both files, uninstalled, comments kept.
    let output = project.run(&["remove", "minimal-squad"]);
    assert_ok(&output, "remove by id");
    assert!(
        stderr(&output).contains("Removed acme/minimal-squad from squads.jsonc and squads.lock")
    );
    assert_eq!(project.installed("acme/minimal-squad"), None);
    let output = project.run(&["remove", "example/delivery", "--format", "json"]);
    assert_ok(&output, "remove by name");
    assert!(json(&output)["uninstalled"].is_string());
    let declared = project.declared();
    for kept in ["// Our squads.", "// Local ones.", "} // end of squads"] {
        assert!(declared.contains(kept), "{kept} lost:\n{declared}");
    }
    assert!(
        !declared.contains("delivery") && !declared.contains("minimal"),
        "{declared}"
    );
    assert_eq!(project.lock()["squads"], serde_json::json!({}));
    let output = project.run(&["remove", "example/delivery"]);
    assert_code(&output, 1, "remove what is not declared");
    assert!(stderr(&output).contains("is not declared"));
}

#[test]
fn registry_squads_are_added_by_newest_version_tag_and_digest_then_outdated_and_updated() {
    let registry = Registry::start(Auth::None);
    let project = Proj::new();
    let base = registry.oci("squads");
    let scratch = project.sandbox.dir.path().join("packages");
    let names = ["minimal", "delivery", "planner-parallel"];
    let v1: Vec<PathBuf> = names
        .iter()
        .map(|name| variant(&scratch, name, "2026.12.01.1", ""))
        .collect();
    let pinned: Vec<String> = v1
        .iter()
        .map(|package| publish(&project.sandbox, package, &base))
        .collect();
    project.write_declared("// Registry squads.\n{\n  \"squads\": {} // none yet\n}\n");
    let repository = |name: &str| format!("{base}/example/{name}");
    assert_ok(
        &project.run(&["add", &repository("minimal")]),
        "add the newest",
    );
    assert_ok(
        &project.run(&["add", &format!("{}:2026.12.01.1", repository("delivery"))]),
        "add a version",
    );
    assert_ok(&project.run(&["add", &pinned[2]]), "add a digest");
    let declared = project.declared();
    assert!(declared.contains(&format!(
        "\"example/minimal\": {{ \"source\": \"{}\" }}",
        repository("minimal")
    )));
    assert!(declared.contains(&format!(
        "\"example/delivery\": {{ \"source\": \"{}\", \"version\": \"2026.12.01.1\" }}",
        repository("delivery")
    )));
    assert!(declared.contains(&format!(
        "\"example/planner-parallel\": {{ \"source\": \"{}\" }}",
        pinned[2]
    )));
    assert!(declared.starts_with("// Registry squads.\n") && declared.contains("} // none yet"));
    let lock = project.lock();
    for (name, pinned) in names.iter().zip(&pinned) {
        let locked = &lock["squads"][format!("example/{name}")];
        assert_eq!(locked["resolved"], pinned.as_str(), "{name}");
        assert_eq!(locked["version"], "2026.12.01.1");
        assert!(locked["archive_bytes"].as_u64().is_some());
    }

    let output = project.run(&["outdated", "--format", "json"]);
    assert_ok(&output, "outdated, up to date");
    for row in json(&output)["squads"].as_array().unwrap() {
        assert_eq!(row["newer"], serde_json::json!([]), "{row}");
        assert_eq!(row["latest"], "2026.12.01.1");
    }

    let v2: Vec<PathBuf> = names
        .iter()
        .map(|name| variant(&scratch, name, "2026.12.02.1", "\nv2\n"))
        .collect();
    let pinned_v2: Vec<String> = v2
        .iter()
        .map(|package| publish(&project.sandbox, package, &base))
        .collect();
    let output = project.run(&["outdated", "--format", "json"]);
    assert_ok(&output, "outdated");
    let rows = json(&output)["squads"].clone();
    let pins: Vec<(&str, &serde_json::Value)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            assert_eq!(row["newer"], serde_json::json!(["2026.12.02.1"]), "{row}");
            assert_eq!(row["locked"], "2026.12.01.1");
            (row["name"].as_str().unwrap(), &row["pinned_by"])
        })
        .collect();
    assert_eq!(
        pins,
        [
            ("example/delivery", &serde_json::json!("version")),
            ("example/minimal", &serde_json::Value::Null),
            ("example/planner-parallel", &serde_json::json!("digest")),
        ]
    );
    let output = project.run(&["outdated"]);
    let table = text(&output.stdout);
    let row: Vec<&str> = table
        .lines()
        .find(|line| line.starts_with("example/minimal "))
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(
        row,
        [
            "example/minimal",
            "2026.12.01.1",
            "2026.12.02.1",
            "1",
            "newer"
        ],
        "{table}"
    );

    // The lock holds until update moves it.
    let output = project.run(&["sync"]);
    assert!(
        stderr(&output).contains("3 unchanged"),
        "{}",
        stderr(&output)
    );
    let before = project.declared();
    let output = project.run(&["update", "example/minimal"]);
    assert_ok(&output, "update one");
    assert!(
        stderr(&output).contains("Updated example/minimal 2026.12.01.1 -> 2026.12.02.1"),
        "{}",
        stderr(&output)
    );
    assert_eq!(project.declared(), before, "no version is declared for it");
    assert_eq!(
        project.lock()["squads"]["example/minimal"]["resolved"],
        pinned_v2[0].as_str()
    );
    assert_eq!(project.installed("example/minimal"), Some(digest(&v2[0])));

    // Update moves a declared version and a digest in place; comments stay.
    let output = project.run(&["update"]);
    assert_ok(&output, "update all");
    let expected = before
        .replace(
            "\"version\": \"2026.12.01.1\"",
            "\"version\": \"2026.12.02.1\"",
        )
        .replace(&pinned[2], &pinned_v2[2]);
    assert_eq!(project.declared(), expected);
    for (index, name) in names.iter().enumerate() {
        let name = format!("example/{name}");
        assert_eq!(project.lock()["squads"][&name]["version"], "2026.12.02.1");
        assert_eq!(project.installed(&name), Some(digest(&v2[index])));
    }
    let output = project.run(&["outdated", "--format", "json"]);
    for row in json(&output)["squads"].as_array().unwrap() {
        assert_eq!(row["newer"], serde_json::json!([]), "{row}");
    }

    // A clone of the two files installs exactly the lock.
    let clone = project.clone_files(false);
    let output = clone.run(&["sync", "--locked"]);
    assert_ok(&output, "sync --locked of a clone");
    assert!(
        stderr(&output).contains("3 installed"),
        "{}",
        stderr(&output)
    );
    for (index, name) in names.iter().enumerate() {
        assert_eq!(
            clone.installed(&format!("example/{name}")),
            Some(digest(&v2[index]))
        );
    }

    let output = project.run(&["remove", "example/planner-parallel"]);
    assert_ok(&output, "remove");
    assert!(!project.declared().contains("planner-parallel"));
    assert!(project.declared().contains("// Registry squads."));
}

/// Puts `package` under `tag` in the repository of `reference`, as a publisher that ignores
/// version immutability would.
fn move_tag(registry: &Registry, repository: &str, tag: &str, package: &Path) {
    let client = squad::http::Client::new(squad::http::Transport::default());
    let (_, artifact) = squad::share::prepare(package).unwrap();
    let reference = squad::oci::Reference::parse(&registry.oci(repository)).unwrap();
    let mut session = squad::oci::Repository::new(
        &client,
        &reference,
        squad::oci::Access::Push,
        squad::oci::Credentials::Configured,
    );
    session
        .push_blob(&artifact.manifest.config, &artifact.config_bytes, &|_| {})
        .unwrap();
    session
        .push_blob(artifact.layer(), artifact.archive(), &|_| {})
        .unwrap();
    session
        .put_manifest(
            tag,
            &artifact.manifest_bytes,
            squad::oci::manifest::IMAGE_MANIFEST,
        )
        .unwrap();
}

/// Deletes the manifest `digest` of `repository` from the registry (which deletes untagged
/// manifests: `storage.delete.enabled`).
fn delete_manifest(registry: &Registry, repository: &str, digest: &str) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", registry.port)).unwrap();
    write!(
        stream,
        "DELETE /v2/{repository}/manifests/{digest} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        registry.host()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
}

/// A moved tag warns and never blocks while the pinned bytes exist (issue 27, item 6); a
/// tampered cache entry is refused.
#[test]
fn a_moved_tag_warns_with_both_digests_and_a_tampered_cache_entry_is_refused() {
    let registry = Registry::start(Auth::None);
    let project = Proj::new();
    let scratch = project.sandbox.dir.path().join("packages");
    let v1 = variant(&scratch, "minimal", "2026.12.01.1", "");
    let pinned = publish(&project.sandbox, &v1, &registry.oci("squads"));
    let tagged = format!("{}:2026.12.01.1", registry.oci("squads/example/minimal"));
    assert_ok(&project.run(&["add", &tagged]), "add");
    let locked = project.lock()["squads"]["example/minimal"].clone();
    let archive_sha = locked["archive_sha256"].as_str().unwrap().to_owned();

    // A tampered cache entry: refused, naming both SHA-256s, and removed.
    let cached = project
        .cache
        .join("archives/sha256")
        .join(&archive_sha[..2])
        .join(format!("{archive_sha}.zip"));
    assert!(
        cached.is_file(),
        "the download is cached at {}",
        cached.display()
    );
    let tampered = Proj::clone_files(&project, true);
    let mut bytes = std::fs::read(&cached).unwrap();
    bytes[40] ^= 0xff;
    std::fs::write(&cached, &bytes).unwrap();
    let tampered_sha = squad::digest::Sha256Digest::of(&bytes).hex();
    let before = tampered.state();
    let output = tampered.run(&["sync"]);
    assert_code(&output, 1, "a tampered cache entry");
    let message = stderr(&output);
    assert!(
        message.contains("example/minimal")
            && message.contains(&archive_sha)
            && message.contains(&tampered_sha),
        "{message}"
    );
    assert_eq!(tampered.state(), before);
    assert!(!cached.exists(), "the tampered entry is removed");
    assert_ok(&tampered.run(&["sync"]), "the next sync downloads it anew");
    assert_eq!(sha256(&cached), archive_sha);

    // The tag now names other bytes: a clone without the cache fetches the pinned manifest by
    // its digest, installs the locked bytes, and says the tag moved, naming both manifests.
    let moved = variant(&scratch, "minimal", "2026.12.01.1", "\nother bytes\n");
    move_tag(&registry, "squads/example/minimal", "2026.12.01.1", &moved);
    let (_, artifact) = squad::share::prepare(&moved).unwrap();
    let old_manifest = pinned.rsplit('@').next().unwrap();
    let clone = project.clone_files(false);
    let output = clone.run(&["sync", "--locked"]);
    assert_ok(&output, "a moved tag does not block a locked sync");
    let message = stderr(&output);
    assert!(
        message.contains("warning: example/minimal: ")
            && message.contains(old_manifest)
            && message.contains(&artifact.manifest_digest)
            && message.contains("now names manifest"),
        "{message}"
    );
    assert_eq!(
        clone.installed("example/minimal").as_deref(),
        locked["package_digest"].as_str(),
        "the locked bytes, not the tag's"
    );
    assert_eq!(clone.lock_text(), project.lock_text());
    // outdated and update say the tag moved; update --dry-run changes nothing.
    let output = clone.run(&["outdated", "--format", "json"]);
    assert_ok(&output, "outdated");
    assert_eq!(
        json(&output)["squads"][0]["tag_moved_to"],
        artifact.manifest_digest.as_str()
    );
    let output = clone.run(&["update", "--dry-run"]);
    assert_ok(&output, "update --dry-run");
    assert!(
        stderr(&output).contains(&format!("its tag was moved from manifest {old_manifest}")),
        "{}",
        stderr(&output)
    );
    // Once the registry no longer has the pinned manifest, a cold sync refuses, naming both.
    delete_manifest(&registry, "squads/example/minimal", old_manifest);
    let cold = project.clone_files(false);
    let before = cold.state();
    let output = cold.run(&["sync", "--locked"]);
    assert_code(&output, 1, "the pinned manifest is gone");
    let message = stderr(&output);
    assert!(
        message.contains(&format!("no longer has manifest {old_manifest}"))
            && message.contains(&artifact.manifest_digest)
            && message.contains("squad update example/minimal"),
        "{message}"
    );
    assert_eq!(cold.state(), before, "nothing installed or written");
    // Where the locked bytes are installed or cached, nothing needs the registry.
    assert!(stderr(&project.run(&["sync"])).contains("1 unchanged"));
    assert_ok(&tampered.run(&["sync"]), "a warm cache");
    let output = clone.run(&["update"]);
    assert_ok(&output, "update takes the moved tag's bytes");
    assert!(
        stderr(&output).contains("its tag was moved from manifest"),
        "{}",
        stderr(&output)
    );
}

/// A cold locked sync asks for each locked manifest once: through its tag, whose bytes hash to
/// the locked digest, so no request by digest (and no `HEAD` for where the tag is) follows;
/// then the config and the archive. Once the tag names other bytes, the pinned manifest is
/// asked for by its digest as well. An in-test server counts the requests and forwards them
/// to Debian's `docker-registry`.
#[test]
fn a_cold_locked_sync_asks_for_each_manifest_once_while_its_tag_stays() {
    let registry = Registry::start(Auth::None);
    let port: u16 = registry.host().rsplit(':').next().unwrap().parse().unwrap();
    // While `failing` holds a status, the proxy answers a request for a manifest by tag with it.
    let failing = Arc::new(std::sync::Mutex::new(None::<&'static str>));
    let fail = failing.clone();
    let proxy = LyingServer::start(
        "127.0.0.1",
        Arc::new(move |seen: &Seen, stream: &mut std::net::TcpStream| {
            let by_tag = seen.path.contains("/manifests/") && !seen.path.contains("sha256:");
            match *fail.lock().unwrap() {
                Some(status) if by_tag => respond(stream, status, &[], b"{}"),
                _ => forward(port, seen, stream),
            }
        }),
    );
    let base = format!("oci://{}", proxy.address);
    let project = Proj::new();
    let scratch = project.sandbox.dir.path().join("packages");
    let package = variant(&scratch, "minimal", "2026.12.01.1", "");
    publish(&project.sandbox, &package, &format!("{base}/squads"));
    let tagged = format!("{base}/squads/example/minimal:2026.12.01.1");
    assert_ok(&project.run(&["add", &tagged]), "add");
    let locked = project.lock()["squads"]["example/minimal"].clone();
    let manifest = locked["resolved"]
        .as_str()
        .unwrap()
        .rsplit('@')
        .next()
        .unwrap()
        .to_owned();

    // The requests made since `from`, and those of them for a manifest.
    let asked = |from: usize| -> (Vec<String>, Vec<String>) {
        let requests: Vec<String> = proxy.seen()[from..]
            .iter()
            .map(|seen| format!("{} {}", seen.method, seen.path))
            .collect();
        let manifests = requests
            .iter()
            .filter(|request| request.contains("/manifests/"))
            .cloned()
            .collect();
        (requests, manifests)
    };
    let by_tag = "GET /v2/squads/example/minimal/manifests/2026.12.01.1".to_owned();
    let before = proxy.seen().len();
    let cold = project.clone_files(false);
    let output = cold.run(&["sync", "--locked"]);
    assert_ok(&output, "a cold locked sync");
    assert!(!stderr(&output).contains("warning"), "{}", stderr(&output));
    let (requests, manifests) = asked(before);
    assert_eq!(manifests, std::slice::from_ref(&by_tag), "{requests:#?}");
    assert_eq!(
        requests.iter().filter(|r| r.contains("/blobs/")).count(),
        2,
        "the config and the archive: {requests:#?}"
    );
    assert_eq!(
        cold.installed("example/minimal").as_deref(),
        locked["package_digest"].as_str()
    );

    // The tag moved: asked through the tag, then the pinned manifest by its digest.
    let moved = variant(&scratch, "minimal", "2026.12.01.1", "\nother bytes\n");
    move_tag(&registry, "squads/example/minimal", "2026.12.01.1", &moved);
    let before = proxy.seen().len();
    let colder = project.clone_files(false);
    let output = colder.run(&["sync", "--locked"]);
    assert_ok(&output, "a moved tag does not block a locked sync");
    assert!(
        stderr(&output).contains("now names manifest"),
        "{}",
        stderr(&output)
    );
    let (requests, manifests) = asked(before);
    assert_eq!(
        manifests,
        [
            by_tag,
            format!("GET /v2/squads/example/minimal/manifests/{manifest}")
        ],
        "{requests:#?}"
    );
    assert_eq!(
        colder.installed("example/minimal").as_deref(),
        locked["package_digest"].as_str(),
        "the locked bytes, not the tag's"
    );

    // An answer about the tag that cannot be read says nothing of the tag: the pinned manifest
    // is asked for by its digest. A refusal of the credentials fails the sync at once.
    *failing.lock().unwrap() = Some("500 Internal Server Error");
    let broken = project.clone_files(false);
    let output = broken.run(&["sync", "--locked"]);
    assert_ok(&output, "a tag the registry cannot answer for");
    assert!(!stderr(&output).contains("warning"), "{}", stderr(&output));
    assert_eq!(
        broken.installed("example/minimal").as_deref(),
        locked["package_digest"].as_str()
    );
    *failing.lock().unwrap() = Some("403 Forbidden");
    let denied = project.clone_files(false);
    let before = proxy.seen().len();
    let output = denied.run(&["sync", "--locked"]);
    assert_code(&output, 2, "a registry that denies the repository");
    assert!(stderr(&output).contains("403"), "{}", stderr(&output));
    let (requests, _) = asked(before);
    assert_eq!(
        requests.len(),
        1,
        "nothing asked after the refusal: {requests:#?}"
    );
    assert_eq!(denied.installed("example/minimal"), None);
}

#[test]
fn offline_sync_works_from_a_warm_cache_and_names_what_a_cold_one_misses() {
    let registry = Registry::start(Auth::None);
    let project = Proj::new();
    let scratch = project.sandbox.dir.path().join("packages");
    for name in ["minimal", "delivery"] {
        let package = variant(&scratch, name, "2026.12.01.1", "");
        publish(&project.sandbox, &package, &registry.oci("squads"));
        assert_ok(
            &project.run(&["add", &registry.oci(&format!("squads/example/{name}"))]),
            name,
        );
    }
    let output = project.sandbox.run(&["cache", "dir"]);
    assert_eq!(text(&output.stdout).trim(), project.cache.to_str().unwrap());
    drop(registry);

    let warm = project.clone_files(true);
    let output = warm.run(&["sync", "--offline"]);
    assert_ok(&output, "offline from a warm cache");
    assert!(
        stderr(&output).contains("2 installed"),
        "{}",
        stderr(&output)
    );
    let online = project.clone_files(true);
    assert_ok(
        &online.run(&["sync", "--locked"]),
        "a warm cache needs no registry",
    );

    let cold = project.clone_files(false);
    let before = cold.state();
    let output = cold.run(&["sync", "--offline"]);
    assert_code(&output, 2, "offline with a cold cache");
    let message = stderr(&output);
    for name in ["example/minimal", "example/delivery"] {
        assert!(
            message.contains(&format!(
                "error: {name}: its archive (2026.12.01.1, sha256 "
            )),
            "{message}"
        );
    }
    assert!(
        message.contains(&format!("not in the cache at `{}`", cold.cache.display())),
        "{message}"
    );
    assert!(message.contains("nothing was installed"), "{message}");
    assert_eq!(cold.state(), before);

    // An entry not yet locked needs the registry to resolve.
    let declared = cold.declared().replace(
        "\"example/delivery\": {",
        "\"example/other\": { \"source\": \"oci://127.0.0.1:1/squads/example/other\" },\n    \"example/delivery\": {",
    );
    cold.write_declared(&declared);
    let output = cold.run(&["sync", "--offline"]);
    assert_code(&output, 2, "offline resolution");
    assert!(
        stderr(&output).contains(
            "resolving oci://127.0.0.1:1/squads/example/other needs the registry (--offline)"
        ),
        "{}",
        stderr(&output)
    );

    let output = project.sandbox.run(&["cache", "clean"]);
    assert_ok(&output, "cache clean");
    assert!(
        stderr(&output).contains("Removed 2 archives"),
        "{}",
        stderr(&output)
    );
    let output = warm.run(&["sync", "--offline"]);
    assert_ok(&output, "installed already: no archive needed");
}

/// Builds an install link for the archive at `url`.
fn install_link(
    identity: (&str, &str, &str),
    package_digest: &str,
    archive_sha: &str,
    bytes: u64,
    url: &str,
) -> String {
    let encoded: String = url::form_urlencoded::byte_serialize(url.as_bytes()).collect();
    format!(
        "opencorvus://expert-squad/install?namespace={}&id={}&version={}&packageDigest={package_digest}&archiveSha256={archive_sha}&archiveBytes={bytes}&archiveUrl={encoded}",
        identity.0, identity.1, identity.2
    )
}

#[test]
fn https_sources_and_install_links_download_from_a_real_http_server() {
    let served = tempfile::tempdir().unwrap();
    let project = Proj::new();
    pack(
        &project.sandbox,
        &template("minimal"),
        &served.path().join("minimal.zip"),
    );
    pack(
        &project.sandbox,
        &template("delivery"),
        &served.path().join("delivery.zip"),
    );
    let server = StaticServer::start(served.path());
    let minimal_url = server.url("minimal.zip");
    let minimal_sha = sha256(&served.path().join("minimal.zip"));
    let delivery_sha = sha256(&served.path().join("delivery.zip"));
    let delivery_bytes = std::fs::metadata(served.path().join("delivery.zip"))
        .unwrap()
        .len();
    let delivery_digest = digest(&template("delivery"));

    let output = project.run(&["add", &minimal_url]);
    assert_code(&output, 2, "an https source without its SHA-256");
    assert!(stderr(&output).contains("--sha256"));
    let output = project.run(&["add", &minimal_url, "--sha256", &delivery_sha]);
    assert_code(&output, 1, "the wrong SHA-256");
    assert!(
        stderr(&output).contains(&minimal_sha) && stderr(&output).contains(&delivery_sha),
        "{}",
        stderr(&output)
    );
    assert!(
        !project.root().join(".opencorvus/squads.jsonc").exists(),
        "nothing declared"
    );
    let output = project.run(&["add", &minimal_url, "--sha256", &minimal_sha]);
    assert_ok(&output, "add an https source");
    assert!(project.declared().contains(&format!(
        "\"example/minimal\": {{ \"source\": \"{minimal_url}\", \"sha256\": \"{minimal_sha}\" }}"
    )));
    let locked = &project.lock()["squads"]["example/minimal"];
    assert_eq!(locked["resolved"], minimal_url.as_str());
    assert_eq!(locked["archive_sha256"], minimal_sha.as_str());

    let version = "2026.11.30.1";
    let link = install_link(
        ("example", "delivery", version),
        &delivery_digest,
        &delivery_sha,
        delivery_bytes,
        &server.url("delivery.zip"),
    );
    // The link's promises are checked against the archive.
    let wrong_size = install_link(
        ("example", "delivery", version),
        &delivery_digest,
        &delivery_sha,
        delivery_bytes + 1,
        &server.url("delivery.zip"),
    );
    let output = project.run(&["add", &wrong_size]);
    assert_code(&output, 1, "a link whose size is not the archive's");
    assert!(
        stderr(&output).contains("Content-Length"),
        "{}",
        stderr(&output)
    );
    let wrong_digest = install_link(
        ("example", "delivery", version),
        &minimal_sha,
        &delivery_sha,
        delivery_bytes,
        &server.url("delivery.zip"),
    );
    let output = project.run(&["add", &wrong_digest]);
    assert_code(
        &output,
        1,
        "a link whose package digest is not the archive's",
    );
    assert!(
        stderr(&output).contains("promises example/delivery"),
        "{}",
        stderr(&output)
    );
    // Now cached: a link that says another size is refused all the same.
    let output = project.run(&["add", &wrong_size]);
    assert_code(&output, 1, "a cached archive of another size");
    assert!(stderr(&output).contains("not the"), "{}", stderr(&output));
    let output = project.run(&["add", &format!("{link}&extra=1")]);
    assert_code(&output, 2, "a link with another parameter");
    assert!(stderr(&output).contains("parameter `extra`"));
    let output = project.run(&["add", &link]);
    assert_ok(&output, "add an install link");
    assert!(project.declared().contains(&format!(
        "\"example/delivery\": {{ \"source\": \"{link}\" }}"
    )));
    assert_eq!(
        project.installed("example/delivery"),
        Some(delivery_digest.clone())
    );

    let output = project.run(&["outdated"]);
    assert_ok(&output, "outdated");
    let table = text(&output.stdout);
    assert!(
        // A loopback http:// archive is not called https (issue 27).
        table.contains("http source: not checked")
            && !table.contains("https")
            && table.contains("install link source: not checked"),
        "{table}"
    );
    let output = project.run(&["update"]);
    assert_ok(&output, "update re-resolves");
    assert!(
        stderr(&output).contains("Unchanged example/minimal"),
        "{}",
        stderr(&output)
    );

    // The server is gone: the cache serves a second project; a cold one cannot.
    drop(server);
    let warm = project.clone_files(true);
    let output = warm.run(&["sync", "--locked"]);
    assert_ok(&output, "sync from the cache, the server stopped");
    assert_eq!(warm.installed("example/delivery"), Some(delivery_digest));
    let cold = project.clone_files(false);
    let output = cold.run(&["sync"]);
    assert_code(&output, 2, "the server stopped, a cold cache");
    assert!(
        stderr(&output).contains("connection refused"),
        "{}",
        stderr(&output)
    );

    let output = project.run(&["remove", "example/delivery"]);
    assert_ok(&output, "remove a link squad");
    let output = project.run(&["remove", "minimal"]);
    assert_ok(&output, "remove an https squad");
    assert_eq!(project.lock()["squads"], serde_json::json!({}));
}

#[test]
fn a_server_that_lies_about_an_archive_is_refused() {
    let project = Proj::new();
    let served = tempfile::tempdir().unwrap();
    let archive = served.path().join("minimal.zip");
    pack(&project.sandbox, &template("minimal"), &archive);
    let bytes = Arc::new(std::fs::read(&archive).unwrap());
    let sha = sha256(&archive);
    let package_digest = digest(&template("minimal"));
    let lies: [(&str, &str); 6] = [
        ("content-type", "is `text/html`, not `application/zip`"),
        ("length", "Content-Length is"),
        ("no-length", "no Content-Length"),
        ("redirect", "a redirect to"),
        ("bytes", "SHA-256 is"),
        ("longer", "cut off"),
    ];
    let mut refused = 0;
    for (lie, expected) in lies {
        let served_bytes = bytes.clone();
        let handler: Arc<crate::oci_support::Handler> = Arc::new(
            move |seen: &crate::oci_support::Seen, stream: &mut std::net::TcpStream| {
                use std::io::Write;
                let zip = ("content-type", "application/zip".to_owned());
                match lie {
                    "content-type" => respond(
                        stream,
                        "200 OK",
                        &[("content-type", "text/html".to_owned())],
                        &served_bytes,
                    ),
                    "length" => {
                        let head = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: application/zip\r\ncontent-length: {}\r\n\r\n",
                            served_bytes.len() - 1
                        );
                        let _ = stream.write_all(head.as_bytes());
                        let _ = stream.write_all(&served_bytes[..served_bytes.len() - 1]);
                    }
                    "no-length" => {
                        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/zip\r\nconnection: close\r\n\r\n");
                        let _ = stream.write_all(&served_bytes);
                        let _ = stream.shutdown(std::net::Shutdown::Both);
                    }
                    "redirect" if seen.path == "/minimal.zip" => respond(
                        stream,
                        "302 Found",
                        &[("location", "/real.zip".to_owned())],
                        b"",
                    ),
                    "bytes" => {
                        let mut other = served_bytes.to_vec();
                        other[30] ^= 0xff;
                        respond(stream, "200 OK", &[zip], &other);
                    }
                    "longer" => {
                        // No length, and more than the import limit: cut off, never held whole.
                        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/zip\r\nconnection: close\r\n\r\n");
                        let chunk = vec![0u8; 1 << 20];
                        for _ in 0..19 {
                            if stream.write_all(&chunk).is_err() {
                                break;
                            }
                        }
                        let _ = stream.shutdown(std::net::Shutdown::Both);
                    }
                    _ => respond(stream, "200 OK", &[zip], &served_bytes),
                }
            },
        );
        let server = LyingServer::start("127.0.0.1", handler);
        let url = format!("http://{}/minimal.zip", server.address);
        let link = install_link(
            ("example", "minimal", "2026.11.30.1"),
            &package_digest,
            &sha,
            bytes.len() as u64,
            &url,
        );
        let source = if lie == "longer" { url.clone() } else { link };
        let mut args = vec!["add", source.as_str()];
        if lie == "longer" {
            args.extend(["--sha256", sha.as_str()]);
        }
        let output = project.run(&args);
        assert_code(&output, 1, lie);
        assert!(
            stderr(&output).contains(expected),
            "{lie}: {}",
            stderr(&output)
        );
        assert!(
            !project.root().join(".opencorvus/squads.jsonc").exists(),
            "{lie}: declared"
        );
        assert!(
            project.installed("example/minimal").is_none(),
            "{lie}: installed"
        );
        refused += 1;
    }
    assert_eq!(refused, lies.len());

    // An https:// source pinned by its SHA-256 may be redirected and served with any archive
    // type and no Content-Length, as release assets are, when added and when synced cold with
    // its size locked; a web page instead of the archive is refused by name.
    for page in ["application/octet-stream", "text/html"] {
        let served_bytes = bytes.clone();
        let handler: Arc<crate::oci_support::Handler> = Arc::new(
            move |seen: &crate::oci_support::Seen, stream: &mut std::net::TcpStream| {
                if seen.path == "/minimal.zip" {
                    respond(
                        stream,
                        "302 Found",
                        &[("location", "/assets/7/minimal.zip".to_owned())],
                        b"",
                    );
                } else {
                    use std::io::Write;
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: {page}\r\nconnection: close\r\n\r\n"
                    );
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(&served_bytes);
                    let _ = stream.shutdown(std::net::Shutdown::Both);
                }
            },
        );
        let server = LyingServer::start("127.0.0.1", handler);
        let url = format!("http://{}/minimal.zip", server.address);
        let project = Proj::new();
        let output = project.run(&["add", &url, "--sha256", &sha]);
        if page == "text/html" {
            assert_code(&output, 1, page);
            assert!(stderr(&output).contains("web page"), "{}", stderr(&output));
            assert!(project.installed("example/minimal").is_none());
        } else {
            assert_ok(&output, "a redirected release asset");
            assert_eq!(
                project.installed("example/minimal"),
                Some(package_digest.clone())
            );
            let cold = project.clone_files(false);
            assert_ok(&cold.run(&["sync", "--locked"]), "a cold sync of the asset");
            assert_eq!(
                cold.installed("example/minimal"),
                Some(package_digest.clone())
            );
        }
    }
}

#[test]
fn locked_sync_refuses_files_that_disagree_and_changes_nothing() {
    let project = Proj::new();
    let root = project.root();
    copy_tree(
        &fixtures().join("valid/minimal"),
        &root.join("squads/minimal"),
    );
    copy_tree(&template("delivery"), &root.join("squads/delivery"));
    assert_ok(&project.run(&["add", "project/squads/minimal"]), "add");
    let declared = project.declared();
    let lock = project.lock_text();
    let cases = [
        (
            declared.replace(
                "\"acme/minimal-squad\"",
                "\"example/delivery\": { \"source\": \"squads/delivery\" },\n    \"acme/minimal-squad\"",
            ),
            "example/delivery is declared but not locked",
        ),
        (
            declared.replace("\"squads/minimal\"", "\"./squads/minimal\""),
            "acme/minimal-squad: squads.jsonc asks for ./squads/minimal, squads.lock has squads/minimal 2026.08.20.1",
        ),
        (
            declared.replace("\"acme/minimal-squad\": { \"source\": \"squads/minimal\" },", ""),
            "acme/minimal-squad is locked but no longer declared",
        ),
    ];
    for (text, expected) in &cases {
        project.write_declared(text);
        let before = project.state();
        let output = project.run(&["sync", "--locked"]);
        assert_code(&output, 1, expected);
        assert!(stderr(&output).contains(expected), "{}", stderr(&output));
        assert!(stderr(&output).contains("nothing was changed"));
        let output = project.run(&["sync", "--locked", "--format", "json"]);
        assert_code(&output, 1, expected);
        let document = json(&output);
        assert_eq!(document["status"], "refused");
        assert_eq!(document["disagreements"][0], *expected);
        assert_eq!(project.state(), before, "--locked wrote something");
    }
    // Without --locked, the first case is resolved and locked.
    project.write_declared(&cases[0].0);
    let output = project.run(&["sync"]);
    assert_ok(&output, "sync locks the new squad");
    assert!(
        stderr(&output).contains("1 installed, 1 unchanged"),
        "{}",
        stderr(&output)
    );
    assert!(project.lock_text() != lock);
    assert_ok(&project.run(&["sync", "--locked"]), "now the files agree");
    // The lock drops a squad no longer declared, and sync uninstalls its package (issue 27).
    project.write_declared(&cases[0].0.replace(
        "\"acme/minimal-squad\": { \"source\": \"squads/minimal\" },",
        "",
    ));
    let output = project.run(&["sync"]);
    assert_ok(&output, "sync drops an undeclared squad from the lock");
    assert!(
        stderr(&output).contains("Unlocked acme/minimal-squad"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("Removed acme/minimal-squad: not declared in squads.jsonc"),
        "{}",
        stderr(&output)
    );
    assert!(project.lock()["squads"].get("acme/minimal-squad").is_none());
    assert!(project.installed("acme/minimal-squad").is_none());
}

#[test]
fn bad_project_files_are_reported_with_file_line_and_column() {
    let cases: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("projects/cases.json")).unwrap(),
    )
    .unwrap();
    let sandbox = Sandbox::new();
    let mut checked = 0;
    for case in &cases {
        let name = case["project"].as_str().unwrap();
        let code = case["code"].as_str().unwrap();
        let line = case["line"].as_u64().unwrap();
        let directory = format!("registry-fixtures/projects/{name}");
        let file = if code == "squads-lock-invalid" {
            "squads.lock"
        } else {
            "squads.jsonc"
        };
        let mut command = sandbox.command(&["sync", "--project", &directory]);
        let output = command.current_dir(repo()).output().unwrap();
        assert_code(&output, 1, name);
        let message = stderr(&output);
        assert!(
            message.contains(&format!("error[{code}]")),
            "{name}: {message}"
        );
        assert!(
            message.contains(&format!("{directory}/.opencorvus/{file}:{line}:")),
            "{name}: {message}"
        );
        let mut command = sandbox.command(&["sync", "--project", &directory, "--format", "json"]);
        let output = command.current_dir(repo()).output().unwrap();
        let document = json(&output);
        let diagnostic = &document["packages"][0]["diagnostics"][0];
        assert_eq!(diagnostic["code"], code, "{name}");
        assert_eq!(diagnostic["file"], format!(".opencorvus/{file}"), "{name}");
        assert_eq!(diagnostic["start"]["line"], line, "{name}");
        let mut command = sandbox.command(&["sync", "--project", &directory, "--format", "github"]);
        let output = command.current_dir(repo()).output().unwrap();
        assert!(
            text(&output.stdout)
                .contains(&format!("file={directory}/.opencorvus/{file},line={line}")),
            "{name}: {}",
            text(&output.stdout)
        );
        checked += 1;
    }
    assert_eq!(checked, 12, "one case per squads-* code");

    // A broken file is never edited.
    let project = Proj::new();
    let broken = "{\n  \"squads\": {\n    \"acme/x\": { \"sourse\": \"x\" }\n  }\n}\n";
    project.write_declared(broken);
    copy_tree(
        &fixtures().join("valid/minimal"),
        &project.root().join("squads/minimal"),
    );
    let output = project.run(&["add", "project/squads/minimal"]);
    assert_code(&output, 1, "add to a broken file");
    assert!(
        stderr(&output).contains(".opencorvus/squads.jsonc:3:17"),
        "{}",
        stderr(&output)
    );
    assert_eq!(project.declared(), broken);
    assert!(project.installed("acme/minimal-squad").is_none());
}

#[test]
fn two_syncs_of_one_project_run_one_after_the_other() {
    let registry = Registry::start(Auth::None);
    let project = Proj::new();
    let scratch = project.sandbox.dir.path().join("packages");
    let names = ["minimal", "delivery", "planner-parallel"];
    let mut entries = Vec::new();
    for name in names {
        let package = variant(&scratch, name, "2026.12.01.1", "");
        publish(&project.sandbox, &package, &registry.oci("squads"));
        entries.push(format!(
            "\"example/{name}\": {{ \"source\": \"{}\" }}",
            registry.oci(&format!("squads/example/{name}"))
        ));
    }
    copy_tree(
        &fixtures().join("valid/minimal"),
        &project.root().join("squads/minimal"),
    );
    entries.push("\"acme/minimal-squad\": { \"source\": \"squads/minimal\" }".to_owned());
    project.write_declared(&format!(
        "{{\n  \"squads\": {{\n    {}\n  }}\n}}\n",
        entries.join(",\n    ")
    ));
    for round in 0..3 {
        let children: Vec<_> = (0..2)
            .map(|_| {
                project
                    .command(&["sync", "--format", "json"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outputs: Vec<Output> = children
            .into_iter()
            .map(|child| child.wait_with_output().unwrap())
            .collect();
        let mut installed = 0;
        for output in &outputs {
            assert_ok(output, &format!("round {round}"));
            installed += json(output)["squads"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|squad| squad["operation"] != "unchanged")
                .count();
        }
        assert_eq!(installed, 4, "round {round}: each squad installed once");
        assert_eq!(project.lock()["squads"].as_object().unwrap().len(), 4);
        // Start again from nothing installed and no lock.
        std::fs::remove_dir_all(project.root().join(".opencorvus/expert-squads")).unwrap();
        std::fs::remove_file(project.root().join(".opencorvus/squads.lock")).unwrap();
    }
}

/// Phases a sync is killed at (`SQUAD_FAILPOINT`): its own, the cache's, the install
/// transaction's and the lock file's.
const PHASES: [&str; 11] = [
    "sync-planned",
    "cache-temporary-written",
    "sync-fetched",
    "locked",
    "staged",
    "journal-written",
    "old-moved",
    "new-in-place",
    "backup-removed",
    "sync-installed",
    "lock-temporary-written",
];

/// Runs `squad sync` until it reaches `phase` (or, with a delay, for that long) and SIGKILLs it.
/// Returns whether the phase was reached.
fn kill_sync(project: &Proj, phase: Option<&str>, delay: std::time::Duration) -> bool {
    let mut command = project.command(&["sync"]);
    command
        .env("SQUAD_LOCK_STALE_MS", "100")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(phase) = phase {
        command.env("SQUAD_FAILPOINT", phase);
    }
    let mut child = command.spawn().unwrap();
    let reached = match phase {
        Some(phase) => {
            let mut reader = BufReader::new(child.stderr.take().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && !line.contains("failpoint") {
                line.clear();
            }
            line.contains(&format!("failpoint {phase}"))
        }
        None => {
            std::thread::sleep(delay);
            true
        }
    };
    let _ = child.kill();
    child.wait().unwrap();
    reached
}

#[cfg(unix)]
#[test]
fn syncs_killed_at_every_phase_leave_complete_packages_and_readable_files() {
    let registry = Registry::start(Auth::None);
    let project = Proj::new();
    let root = project.root();
    let scratch = project.sandbox.dir.path().join("packages");
    // Two states of three squads: a registry version, a folder, an archive.
    let registry_versions = [
        variant(&scratch, "minimal", "2026.12.01.1", ""),
        variant(&scratch, "minimal", "2026.12.02.1", "\nv2\n"),
    ];
    for package in &registry_versions {
        publish(&project.sandbox, package, &registry.oci("squads"));
    }
    for (index, extra) in ["", "\nv2\n"].iter().enumerate() {
        let folder = variant(&scratch, "delivery", "2026.12.01.1", extra);
        copy_tree(&folder, &root.join(format!("squads/delivery-{index}")));
        let archive = variant(
            &scratch,
            "planner-parallel",
            &format!("2026.12.0{}.1", index + 1),
            extra,
        );
        pack(
            &project.sandbox,
            &archive,
            &root.join(format!("vendor/planner-{index}.zip")),
        );
    }
    let digests = |name: &str| -> [String; 2] {
        match name {
            "example/minimal" => [digest(&registry_versions[0]), digest(&registry_versions[1])],
            "example/delivery" => [
                digest(&root.join("squads/delivery-0")),
                digest(&root.join("squads/delivery-1")),
            ],
            _ => [0, 1].map(|index| {
                let output = project.sandbox.run(&[
                    "digest",
                    root.join(format!("vendor/planner-{index}.zip"))
                        .to_str()
                        .unwrap(),
                ]);
                text(&output.stdout).trim().to_owned()
            }),
        }
    };
    let names = [
        "example/delivery",
        "example/minimal",
        "example/planner-parallel",
    ];
    let expected: Vec<[String; 2]> = names.iter().map(|name| digests(name)).collect();
    // Which of its two versions each squad is declared at, in `names` order.
    let state = |versions: [usize; 3]| {
        format!(
            "// Killed and synced again.\n{{\n  \"squads\": {{\n    \"example/minimal\": {{ \"source\": \"{}\", \"version\": \"2026.12.0{}.1\" }},\n    \"example/delivery\": {{ \"source\": \"squads/delivery-{}\" }},\n    \"example/planner-parallel\": {{ \"source\": \"vendor/planner-{}.zip\" }}\n  }}\n}}\n",
            registry.oci("squads/example/minimal"),
            versions[1] + 1,
            versions[0],
            versions[2]
        )
    };
    let mut current = [0usize; 3];
    project.write_declared(&state(current));
    assert_ok(&project.run(&["sync"]), "first sync");
    let check = |what: &str, allowed_absent: bool| {
        // Both files parse, and every package is complete: one of its two versions.
        let declared = project.declared();
        let (_, diagnostics) = squad::project::declared::parse(&declared);
        assert!(
            diagnostics.is_empty(),
            "{what}: squads.jsonc: {diagnostics:?}"
        );
        squad::project::lockfile::Lock::parse(&project.lock_text())
            .unwrap_or_else(|error| panic!("{what}: squads.lock: {error:?}"));
        for (name, versions) in names.iter().zip(&expected) {
            match project.installed(name) {
                Some(found) => assert!(
                    versions.contains(&found),
                    "{what}: {name} is partial ({found})"
                ),
                None => assert!(allowed_absent, "{what}: {name} vanished"),
            }
        }
    };
    // The next sync finishes the job: exactly the declared versions, locked, no leftovers.
    let finish = |what: &str, current: [usize; 3]| {
        let output = project
            .command(&["sync"])
            .env("SQUAD_LOCK_STALE_MS", "100")
            .output()
            .unwrap();
        if !output.status.success() {
            let scratch = root.join(".opencorvus/expert-squad-staging");
            let mut listing = String::new();
            for entry in std::fs::read_dir(&scratch).unwrap().flatten() {
                let path = entry.path();
                let state = if path.is_dir() {
                    squad::install::directory_digest(&path)
                        .map(|d| d.hex())
                        .unwrap_or_else(|e| format!("partial: {e}"))
                } else {
                    std::fs::read_to_string(&path).unwrap_or_default()
                };
                listing.push_str(&format!("{}: {state}\n", path.display()));
            }
            for name in names {
                listing.push_str(&format!("target {name}: {:?}\n", project.installed(name)));
            }
            panic!(
                "{what}: the next sync failed\n{}\nscratch and targets:\n{listing}expected {expected:?}",
                stderr(&output)
            );
        }
        check(what, false);
        for ((name, versions), index) in names.iter().zip(&expected).zip(current) {
            assert_eq!(
                project.installed(name).as_ref(),
                Some(&versions[index]),
                "{what}: {name}"
            );
        }
        assert_eq!(
            project.lock()["squads"]["example/minimal"]["version"],
            format!("2026.12.0{}.1", current[1] + 1)
        );
        let leftovers: Vec<String> = std::fs::read_dir(root.join(".opencorvus"))
            .unwrap()
            .flatten()
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.contains(".tmp-"))
            .collect();
        assert!(leftovers.is_empty(), "{what}: {leftovers:?}");
    };
    let mut kills = 0;
    let mut reached: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
    for round in 0..5 {
        for phase in PHASES {
            // One squad changes per sync (each kind in turn; a download for the cache's
            // phase), so the install phases are reached for every kind of source.
            let changed = if phase == "cache-temporary-written" {
                let _ = std::fs::remove_dir_all(&project.cache);
                1
            } else {
                round % 3
            };
            current[changed] = 1 - current[changed];
            project.write_declared(&state(current));
            let what = format!("round {round}, {phase}, {} changed", names[changed]);
            assert!(
                kill_sync(&project, Some(phase), std::time::Duration::ZERO),
                "{what}: never reached"
            );
            *reached.entry((phase, names[changed])).or_default() += 1;
            kills += 1;
            check(&what, phase == "old-moved");
            finish(&what, current);
        }
    }
    // Kills at arbitrary moments, between the phases, with every squad changing.
    // (Kills like these found a backup whose deletion was cut short classified as a package.)
    for (index, millis) in [
        5u64, 20, 40, 60, 80, 100, 130, 160, 190, 220, 250, 280, 310, 350, 400,
    ]
    .iter()
    .enumerate()
    {
        current = current.map(|version| 1 - version);
        project.write_declared(&state(current));
        if index % 2 == 0 {
            let _ = std::fs::remove_dir_all(&project.cache);
        }
        kill_sync(&project, None, std::time::Duration::from_millis(*millis));
        kills += 1;
        let what = format!("killed after {millis} ms");
        check(&what, true);
        finish(&what, current);
    }
    let install_phases = &PHASES[3..9];
    for name in names {
        for phase in install_phases {
            assert!(
                reached.contains_key(&(*phase, name)),
                "{name} was never killed at {phase}"
            );
        }
    }
    assert!(kills >= 60, "{kills} kills");
}

/// Every file below `root` with its bytes, for comparing two installs of one source.
fn files_of(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.push((relative, std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// The first line of what a refusal says, without the command's own words about what it left
/// undone (`install` adds "; nothing was installed", `add` a summary line of its own).
fn first_error_line(output: &Output) -> String {
    let line = stderr(output)
        .lines()
        .find(|line| line.starts_with("error"))
        .unwrap_or_default()
        .to_owned();
    line.trim_end_matches("; nothing was installed").to_owned()
}

#[test]
fn install_and_add_take_every_source_kind_alike() {
    let registry = Registry::start(Auth::None);
    let served = tempfile::tempdir().unwrap();
    let by_install = Proj::new();
    let by_add = Proj::new();
    let scratch = by_install.sandbox.dir.path().join("packages");
    let base = registry.oci("squads");

    // One package per kind, so that each kind's install can be told apart.
    let folder = variant(&scratch, "minimal", "2026.12.01.1", "");
    let archive = scratch.join("delivery.zip");
    pack(
        &by_install.sandbox,
        &variant(&scratch, "delivery", "2026.12.01.1", ""),
        &archive,
    );
    let published = publish(
        &by_install.sandbox,
        &variant(&scratch, "planner-parallel", "2026.12.01.1", ""),
        &base,
    );
    let https_package = variant(
        &served.path().join("src"),
        "minimal",
        "2026.12.02.1",
        "\nhttps\n",
    );
    pack(
        &by_install.sandbox,
        &https_package,
        &served.path().join("https.zip"),
    );
    let link_package = variant(
        &served.path().join("src"),
        "delivery",
        "2026.12.02.1",
        "\nlink\n",
    );
    pack(
        &by_install.sandbox,
        &link_package,
        &served.path().join("link.zip"),
    );
    let server = StaticServer::start(served.path());
    let https_sha = sha256(&served.path().join("https.zip"));
    let link_zip = served.path().join("link.zip");
    let link = install_link(
        ("example", "delivery", "2026.12.02.1"),
        &digest(&link_package),
        &sha256(&link_zip),
        std::fs::metadata(&link_zip).unwrap().len(),
        &server.url("link.zip"),
    );

    // Local sources inside each project (a committed squads.jsonc may not reach outside it).
    let local = |project: &Proj| -> (String, String) {
        copy_tree(&folder, &project.root().join("squads/minimal"));
        std::fs::create_dir_all(project.root().join("vendor")).unwrap();
        std::fs::copy(&archive, project.root().join("vendor/delivery.zip")).unwrap();
        (
            project.root().join("squads/minimal").display().to_string(),
            project
                .root()
                .join("vendor/delivery.zip")
                .display()
                .to_string(),
        )
    };
    let (install_folder, install_archive) = local(&by_install);
    let (add_folder, add_archive) = local(&by_add);
    let https_url = server.url("https.zip");
    let kinds: Vec<(&str, Vec<String>, Vec<String>, &str)> = vec![
        (
            "folder",
            vec![install_folder],
            vec![add_folder],
            "example/minimal",
        ),
        (
            "archive",
            vec![install_archive],
            vec![add_archive],
            "example/delivery",
        ),
        (
            "registry",
            vec![published.clone()],
            vec![published],
            "example/planner-parallel",
        ),
        (
            "https",
            vec![https_url.clone(), "--sha256".into(), https_sha.clone()],
            vec![https_url.clone(), "--sha256".into(), https_sha.clone()],
            "example/minimal",
        ),
        ("link", vec![link.clone()], vec![link], "example/delivery"),
    ];
    let mut compared = 0;
    for (kind, install_args, add_args, name) in &kinds {
        let mut args = vec!["install"];
        args.extend(install_args.iter().map(String::as_str));
        args.extend(["--scope", "project", "--replace"]);
        assert_ok(&by_install.run(&args), &format!("install {kind}"));
        let mut args = vec!["add"];
        args.extend(add_args.iter().map(String::as_str));
        assert_ok(&by_add.run(&args), &format!("add {kind}"));
        let installed = by_install.installed(name).unwrap();
        assert_eq!(
            by_add.installed(name),
            Some(installed),
            "{kind}: the same package digest"
        );
        assert_eq!(
            files_of(&by_install.target(name)),
            files_of(&by_add.target(name)),
            "{kind}: the same files"
        );
        // add then declares something else for the same name; the next kind replaces it.
        assert_ok(&by_add.run(&["remove", name]), &format!("remove {kind}"));
        compared += 1;
    }
    assert_eq!(compared, 5, "every source kind");

    // The same problem gets the same error from both commands.
    let zeros = "0".repeat(64);
    let problems: Vec<(&str, Vec<&str>)> = vec![
        (
            "an https source without its SHA-256",
            vec![https_url.as_str()],
        ),
        (
            "an https source with another archive's SHA-256",
            vec![https_url.as_str(), "--sha256", &zeros],
        ),
        (
            "a registry repository that does not exist",
            vec!["oci://127.0.0.1:1/x/y"],
        ),
    ];
    for (what, source) in problems {
        let mut args = vec!["install"];
        args.extend(source.iter().copied());
        args.extend(["--scope", "project"]);
        let installed = by_install.run(&args);
        let mut args = vec!["add"];
        args.extend(source.iter().copied());
        let added = by_add.run(&args);
        assert_eq!(
            code(&installed),
            code(&added),
            "{what}: {}{}",
            stderr(&installed),
            stderr(&added)
        );
        assert_ne!(code(&installed), Some(0), "{what}");
        assert_eq!(
            first_error_line(&installed),
            first_error_line(&added),
            "{what}:\n{}\n{}",
            stderr(&installed),
            stderr(&added)
        );
    }
}

/// `deny_escalation`: an update that gives an agent a shell is refused (dry run too), taken
/// with --accept-grants and recorded; a lock edited to another accepted set, or stripped of
/// it, is refused by `sync --locked`; a direct install may not go beyond the record either.
/// Nothing changes on any refusal.
#[test]
fn a_project_that_denies_escalation_refuses_an_update_that_adds_a_grant_until_accepted() {
    let registry = Registry::start(Auth::None);
    let project = Proj::new();
    let base = registry.oci("squads");
    let scratch = project.sandbox.dir.path().join("packages");
    // v1: the worker without a shell; v2: the template as it is, with `bash`.
    let v1 = variant(&scratch, "minimal", "2026.12.01.1", "");
    let manifest = v1.join("expert-squad.jsonc");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let text = text.replace(
        "          \"write\",\n          \"bash\"\n",
        "          \"write\"\n",
    );
    std::fs::write(&manifest, text).unwrap();
    publish(&project.sandbox, &v1, &base);
    project.write_declared("{\n  \"deny_escalation\": true,\n  \"squads\": {}\n}\n");
    let repository = format!("{base}/example/minimal");
    assert_ok(&project.run(&["add", &repository]), "add v1");
    let record =
        |project: &Proj| project.lock()["squads"]["example/minimal"]["capabilities"].clone();
    let v1_record = record(&project);
    assert!(
        !v1_record["grants"]["built_in_tool_ids"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool == "bash"),
        "{v1_record}"
    );
    assert_eq!(project.lock()["lock_version"], 3);
    let v1_lock = project.lock_text();

    let v2 = variant(&scratch, "minimal", "2026.12.02.1", "");
    publish(&project.sandbox, &v2, &base);
    let before = project.state();
    for args in [
        vec!["update", "example/minimal"],
        vec!["update", "--dry-run"],
    ] {
        let output = project.run(&args);
        assert_code(&output, 1, "an update that adds a shell");
        assert!(
            stderr(&output).contains("built_in_tool_ids +bash"),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("--accept-grants"),
            "{}",
            stderr(&output)
        );
        assert_eq!(project.state(), before, "{args:?}: nothing changed");
    }
    assert!(stderr(&project.run(&["update", "--dry-run"])).contains("Would refuse"));

    let output = project.run(&["update", "example/minimal", "--accept-grants"]);
    assert_ok(&output, "accepted");
    assert_eq!(
        project.lock()["squads"]["example/minimal"]["version"],
        "2026.12.02.1"
    );
    let v2_record = record(&project);
    assert!(
        v2_record["grants"]["built_in_tool_ids"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool == "bash")
    );
    assert_ok(&project.run(&["sync", "--locked"]), "the accepted lock");

    // The lock edited back to the narrower record, the wider bytes kept.
    let lock_path = project.root().join(".opencorvus/squads.lock");
    let mut edited = project.lock();
    edited["squads"]["example/minimal"]["capabilities"] = v1_record.clone();
    std::fs::write(
        &lock_path,
        serde_json::to_string_pretty(&edited).unwrap() + "\n",
    )
    .unwrap();
    let before = project.state();
    for args in [vec!["sync", "--locked"], vec!["sync"]] {
        let output = project.run(&args);
        assert_code(&output, 1, "a record narrower than the bytes");
        assert!(
            stderr(&output).contains("holds grants it did not accept: built_in_tool_ids +bash"),
            "{args:?}: {}",
            stderr(&output)
        );
        assert_eq!(project.state(), before, "{args:?}: nothing changed");
    }
    // verify --locked judges the record against the installed bytes too.
    let output = project.run(&["verify", "--locked"]);
    assert_code(
        &output,
        1,
        "verify --locked of a record narrower than the bytes",
    );
    assert!(
        crate::support::text(&output.stdout)
            .contains("holds grants it did not accept: built_in_tool_ids +bash")
            || stderr(&output).contains("holds grants it did not accept: built_in_tool_ids +bash"),
        "{}{}",
        crate::support::text(&output.stdout),
        stderr(&output)
    );
    assert_eq!(project.state(), before, "verify changes nothing");
    // The set edited without its digest: the lock cannot be used.
    let mut forged = edited.clone();
    forged["squads"]["example/minimal"]["capabilities"] = v2_record.clone();
    forged["squads"]["example/minimal"]["capabilities"]["sha256"] = v1_record["sha256"].clone();
    std::fs::write(
        &lock_path,
        serde_json::to_string_pretty(&forged).unwrap() + "\n",
    )
    .unwrap();
    let output = project.run(&["sync", "--locked"]);
    assert_code(&output, 1, "a record edited without its digest");
    assert!(
        stderr(&output).contains("the record was edited"),
        "{}",
        stderr(&output)
    );
    // No record at all: --locked cannot accept anything.
    let mut stripped = edited.clone();
    stripped["squads"]["example/minimal"]
        .as_object_mut()
        .unwrap()
        .remove("capabilities");
    std::fs::write(
        &lock_path,
        serde_json::to_string_pretty(&stripped).unwrap() + "\n",
    )
    .unwrap();
    let output = project.run(&["sync", "--locked"]);
    assert_code(&output, 1, "no record");
    assert!(
        stderr(&output).contains("records no accepted grants"),
        "{}",
        stderr(&output)
    );
    // Outside --locked, the record of the bytes the lock pins is written.
    assert_ok(&project.run(&["sync"]), "a first record");
    assert_eq!(record(&project), v2_record);
    assert_ok(
        &project.run(&["verify", "--locked"]),
        "the record and the bytes agree",
    );

    // A direct install into a project whose lock accepted less is refused.
    let other = Proj::new();
    other.write_declared("{\n  \"deny_escalation\": true,\n  \"squads\": {}\n}\n");
    assert_ok(
        &other.run(&["add", &format!("{repository}:2026.12.01.1")]),
        "add v1",
    );
    assert_eq!(other.lock_text().len(), v1_lock.len());
    let before = other.state();
    let output = other.run(&[
        "install",
        &format!("{repository}:2026.12.02.1"),
        "--scope",
        "project",
        "--replace",
    ]);
    assert_code(&output, 1, "a direct install beyond the record");
    assert!(
        stderr(&output).contains("built_in_tool_ids +bash"),
        "{}",
        stderr(&output)
    );
    assert_eq!(other.state(), before);
}

/// The audit policy (PRJ-13): a squad whose audit finds an error is refused by `add` (nothing
/// declared, locked or installed) until the finding is accepted for its package digest; the
/// next version's finding counts again; `audit: "off"` lets it through; `install --scope
/// project` meets the same bar.
#[test]
fn a_project_refuses_a_squad_whose_audit_finds_an_error_until_that_version_is_accepted() {
    let project = Proj::new();
    let package = project.root().join("squads/release-review");
    copy_tree(&fixtures().join("valid/release-review"), &package);
    let tool = package.join("tools/summarize-changes.ts");
    let text = std::fs::read_to_string(&tool).unwrap().replace(
        "return template.replace",
        "await Bun.spawn([\"git\", \"log\"]).exited;\n    return template.replace",
    );
    std::fs::write(&tool, text).unwrap();
    project.write_declared("{\n  \"squads\": {}\n}\n");
    let before = project.state();
    let source = "project/squads/release-review";
    let output = project.run(&["add", source]);
    assert_code(&output, 1, "an audit error");
    assert!(
        stderr(&output).contains("error[tool-spawns-process] tools/summarize-changes.ts:"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("accepted_findings"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        project.state(),
        before,
        "nothing declared, locked or installed"
    );
    let output = project.run(&[
        "install",
        &package.display().to_string(),
        "--scope",
        "project",
    ]);
    assert_code(&output, 1, "a direct install meets the same bar");
    assert!(
        stderr(&output).contains("tool-spawns-process"),
        "{}",
        stderr(&output)
    );
    assert_eq!(project.state(), before);

    // Accepted for this version: added.
    let digest = digest(&package);
    let accepting = |digest: &str| {
        format!(
            "{{\n  \"accepted_findings\": [\n    {{ \"squad\": \"acme/release-review\", \"package_digest\": \"{digest}\", \"code\": \"tool-spawns-process\", \"reason\": \"it reads the git log to summarise a release\" }}\n  ],\n  \"squads\": {{}}\n}}\n"
        )
    };
    project.write_declared(&accepting(&digest));
    assert_ok(&project.run(&["add", source]), "an accepted finding");
    assert_eq!(
        project.installed("acme/release-review"),
        Some(digest.clone())
    );

    // The next version's finding counts again: sync refuses it and keeps what is installed.
    let readme = package.join("README.md");
    let text = std::fs::read_to_string(&readme).unwrap() + "\nA new version.\n";
    std::fs::write(&readme, text).unwrap();
    let output = project.run(&["update", "acme/release-review", "--dry-run"]);
    assert_code(&output, 1, "the dry run exits as the real run would");
    assert!(
        stderr(&output).contains("Would refuse"),
        "{}",
        stderr(&output)
    );
    let output = project.run(&["update", "acme/release-review"]);
    assert_code(&output, 1, "a new digest");
    assert!(
        stderr(&output).contains("tool-spawns-process"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        project.installed("acme/release-review"),
        Some(digest.clone())
    );

    // A bar of `off` lets it through.
    let declared = project
        .declared()
        .replacen("{\n", "{\n  \"audit\": \"off\",\n", 1);
    project.write_declared(&declared);
    assert_ok(
        &project.run(&["update", "acme/release-review"]),
        "audit off",
    );
    assert_ne!(project.installed("acme/release-review"), Some(digest));
}

/// The install fingerprints (install/fingerprint.rs, docs/fingerprints.md): what the file
/// system said of each file of the installed `acme/minimal-squad`, kept beside its receipt.
fn fingerprint_of(project: &Proj) -> PathBuf {
    let receipts = project.sandbox.opencorvus().join("data/squad-receipts");
    std::fs::read_dir(&receipts)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.extension().is_some_and(|ext| ext == "fingerprint"))
        .expect("the install wrote a fingerprint")
}

/// Flips one byte of `file` in place and puts its modification time back: the same size and
/// mtime, so only its change time (which no unprivileged process can set) tells.
fn edit_keeping_size_and_mtime(file: &Path) {
    use std::os::unix::fs::MetadataExt;
    let before = std::fs::metadata(file).unwrap();
    let mut bytes = std::fs::read(file).unwrap();
    bytes[0] ^= 0x20;
    std::fs::write(file, &bytes).unwrap();
    std::fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(before.modified().unwrap())
        .unwrap();
    let after = std::fs::metadata(file).unwrap();
    assert_eq!(
        (after.len(), after.modified().unwrap(), after.ino()),
        (before.len(), before.modified().unwrap(), before.ino())
    );
    assert_ne!(
        (after.ctime(), after.ctime_nsec()),
        (before.ctime(), before.ctime_nsec())
    );
}

/// A project with `acme/minimal-squad` added from a folder, and its installed README.
fn fingerprinted_project() -> (Proj, PathBuf) {
    let project = Proj::new();
    copy_tree(
        &fixtures().join("valid/minimal"),
        &project.root().join("squads/minimal"),
    );
    assert_ok(&project.run(&["add", "project/squads/minimal"]), "add");
    let readme = project.target("acme/minimal-squad").join("README.md");
    (project, readme)
}

/// The edit is noticed (by `list` and by `sync --locked`, which puts the locked bytes back).
/// A `sync --locked` of `project` that succeeds and whose summary says `says`.
fn sync_says(project: &Proj, says: &str, what: &str) {
    let output = project.run(&["sync", "--locked"]);
    assert_ok(&output, what);
    assert!(
        stderr(&output).contains(says),
        "{what}: the sync did not say {says:?}:\n{}",
        stderr(&output)
    );
}

fn assert_edit_noticed(project: &Proj, readme: &Path, pristine: &[u8], what: &str) {
    let output = project.run(&["list"]);
    assert!(
        text(&output.stdout).contains("(modified)"),
        "{what}: list missed the edit:\n{}",
        text(&output.stdout)
    );
    sync_says(project, "1 replaced", what);
    assert_eq!(std::fs::read(readme).unwrap(), pristine, "{what}");
}

#[test]
fn a_no_op_sync_notices_an_edit_that_kept_the_size_and_the_modification_time() {
    let (project, readme) = fingerprinted_project();
    let pristine = std::fs::read(&readme).unwrap();
    fingerprint_of(&project);
    sync_says(&project, "1 unchanged", "no-op sync");
    let output = project.run(&["list"]);
    assert!(!text(&output.stdout).contains("(modified)"));

    edit_keeping_size_and_mtime(&readme);
    assert_edit_noticed(
        &project,
        &readme,
        &pristine,
        "an edit that kept size and mtime",
    );

    // Replaced by a file of the same size and mtime: a new inode (and change time).
    let before = std::fs::metadata(&readme).unwrap();
    let mut bytes = pristine.clone();
    bytes[0] ^= 0x20;
    let replacement = readme.with_extension("new");
    std::fs::write(&replacement, &bytes).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&replacement)
        .unwrap()
        .set_modified(before.modified().unwrap())
        .unwrap();
    std::fs::rename(&replacement, &readme).unwrap();
    assert_edit_noticed(&project, &readme, &pristine, "a file replaced");
}

/// The root is listed on every check: OpenCorvus's own `.opencorvus-meta.json` written there
/// changes nothing (the digest leaves it out), a file added is noticed.
#[test]
fn a_file_added_at_the_root_is_noticed_and_the_metadata_file_is_not_a_change() {
    let (project, readme) = fingerprinted_project();
    let pristine = std::fs::read(&readme).unwrap();
    let root = readme.parent().unwrap();
    std::fs::write(root.join(".opencorvus-meta.json"), b"{}").unwrap();
    sync_says(&project, "1 unchanged", "sync after the metadata file");
    std::fs::write(root.join("notes.md"), b"added\n").unwrap();
    sync_says(&project, "1 replaced", "sync after a file added");
    assert!(!root.join("notes.md").exists());
    assert_eq!(std::fs::read(&readme).unwrap(), pristine);
}

#[test]
fn a_tampered_fingerprint_only_causes_a_full_hash_never_a_skip() {
    use std::os::unix::fs::MetadataExt;
    let (project, readme) = fingerprinted_project();
    let pristine = std::fs::read(&readme).unwrap();
    type Tamper = fn(&[u8], &std::fs::Metadata) -> Vec<u8>;
    let tampers: [(&str, Tamper); 4] = [
        // The edited file's new stamp written in, the checksum line left as it was.
        // (`file <racy> <sha256> <device> <inode> <mode> <size> <mtime s ns> <ctime s ns> <path>`)
        ("stamp rewritten", |bytes, now| {
            let text = String::from_utf8(bytes.to_vec()).unwrap();
            let mut rewritten = 0;
            let lines: Vec<String> = text
                .lines()
                .map(|line| {
                    let mut fields: Vec<String> = line.split(' ').map(str::to_owned).collect();
                    if fields[0] == "file" && fields.last().unwrap() == "README.md" {
                        fields[4] = now.ino().to_string();
                        fields[9] = now.ctime().to_string();
                        fields[10] = now.ctime_nsec().to_string();
                        rewritten += 1;
                    }
                    fields.join(" ")
                })
                .collect();
            assert_eq!(rewritten, 1, "{text}");
            format!("{}\n", lines.join("\n")).into_bytes()
        }),
        ("truncated", |bytes, _| bytes[..bytes.len() / 2].to_vec()),
        ("garbage", |_, _| b"not a fingerprint\n{}".to_vec()),
        ("checksum of nothing", |bytes, _| {
            let text = String::from_utf8(bytes.to_vec()).unwrap();
            let (_, body) = text.split_once('\n').unwrap();
            format!("{}\n{body}", "0".repeat(64)).into_bytes()
        }),
    ];
    for (what, tamper) in tampers {
        let fingerprint = fingerprint_of(&project);
        edit_keeping_size_and_mtime(&readme);
        let now = std::fs::metadata(&readme).unwrap();
        let bytes = std::fs::read(&fingerprint).unwrap();
        std::fs::write(&fingerprint, tamper(&bytes, &now)).unwrap();
        assert_edit_noticed(&project, &readme, &pristine, what);
    }
}

/// project/sources.rs: a local archive remembered with its stamp is not hashed again, and one
/// rewritten in place with the same size and modification time is still noticed (its change
/// time moved), so `sync --locked` refuses it instead of trusting the remembered SHA-256.
#[test]
fn a_remembered_archive_rewritten_with_the_same_size_and_mtime_is_hashed_again() {
    let project = Proj::new();
    let archive = project.root().join("vendor/delivery.zip");
    pack(&project.sandbox, &template("delivery"), &archive);
    assert_ok(&project.run(&["add", "project/vendor/delivery.zip"]), "add");
    // Remembered only once its change time is two seconds old.
    std::thread::sleep(std::time::Duration::from_millis(2_100));
    assert_ok(&project.run(&["sync", "--locked"]), "sync that remembers");
    let remembered = project.sandbox.opencorvus().join("data/squad-sources");
    assert_eq!(std::fs::read_dir(&remembered).unwrap().count(), 1);
    assert_ok(
        &project.run(&["sync", "--locked"]),
        "sync that trusts the stamp",
    );

    // The same size and mtime, other bytes (a stored file's content, so still a readable ZIP
    // whose checks squad applies once it hashes it).
    let before = std::fs::metadata(&archive).unwrap();
    let mut bytes = std::fs::read(&archive).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    std::fs::write(&archive, &bytes).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&archive)
        .unwrap()
        .set_modified(before.modified().unwrap())
        .unwrap();
    let output = project.run(&["sync", "--locked"]);
    assert_ne!(code(&output), Some(0), "{}", stderr(&output));
}
