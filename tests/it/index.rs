//! Static indexes end to end with the real binary: built from Debian's `docker-registry` on
//! loopback and from a folder of archives, served by `python3 -m http.server`, searched,
//! shown and used by `squad add`; the root's four refusals (a wrong key, an expired root, a
//! rollback, a file whose digest differs), each leaving the project and squad's cache as they
//! were; and a rebuild after one publish rewriting one squad's file and the root.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::http_support::StaticServer;
use crate::install::listing;
use crate::oci_support::{Auth, Registry};
use crate::registry::{template, variant};
use crate::support::{Sandbox, copy_tree, text};

struct World {
    sandbox: Sandbox,
    registry: Registry,
    server: StaticServer,
    site: PathBuf,
    public: String,
}

impl World {
    /// Three template squads published to a registry; a second version of example/minimal in
    /// a folder of archives; an index of both, signed, served over HTTP.
    fn new() -> World {
        let registry = Registry::start(Auth::None);
        let sandbox = Sandbox::new()
            .with_env("SQUAD_TODAY", "2026-12-03")
            .with_env("SQUAD_CACHE_DIR", Path::new("cache"));
        let root = sandbox.root.clone();
        let tree = root.join("squads");
        for name in ["delivery", "minimal", "planner-parallel"] {
            copy_tree(&template(name), &tree.join(name));
        }
        let base = registry.oci("squads");
        run(&sandbox, &["publish", tree.to_str().unwrap(), &base], 0);
        let dist = root.join("dist");
        std::fs::create_dir_all(&dist).unwrap();
        let newer = variant(
            &root.join("variants"),
            "minimal",
            "2026.12.02.1",
            "\nnewer\n",
        );
        run(
            &sandbox,
            &[
                "pack",
                newer.to_str().unwrap(),
                "-o",
                &format!("{}/", dist.display()),
            ],
            0,
        );
        let (secret, public) = (root.join("index.key"), root.join("index.pub"));
        run(
            &sandbox,
            &[
                "key",
                "generate",
                "--secret-key",
                secret.to_str().unwrap(),
                "--public-key",
                public.to_str().unwrap(),
                "--unencrypted",
            ],
            0,
        );
        let site = root.join("site");
        let built = json(
            &sandbox,
            &[
                "index",
                "build",
                &base,
                dist.to_str().unwrap(),
                "-o",
                site.join("index").to_str().unwrap(),
                "--sign",
                secret.to_str().unwrap(),
            ],
            0,
        );
        assert_eq!(built["squads"], 3, "{built}");
        assert_eq!(built["versions"], 4, "{built}");
        assert_eq!(built["version"], 1);
        assert!(built["signed_by"].is_string());
        let server = StaticServer::start(&site);
        World {
            sandbox,
            registry,
            server,
            site,
            public: public.to_str().unwrap().to_owned(),
        }
    }

    fn url(&self) -> String {
        self.server.url("index/")
    }

    fn index_dir(&self) -> PathBuf {
        self.site.join("index")
    }

    /// Everything a refusal must leave as it was: the project and squad's cache.
    fn state(&self) -> Vec<String> {
        let mut state = self.sandbox.snapshot();
        state.extend(listing(&self.sandbox.root.join("cache")));
        for file in listing(&self.sandbox.root.join("cache")) {
            let path = self.sandbox.root.join("cache").join(&file);
            if path.is_file() {
                state.push(format!("{file}: {:?}", std::fs::read(&path).unwrap()));
            }
        }
        state
    }
}

fn run(sandbox: &Sandbox, args: &[&str], code: i32) -> (String, String) {
    let output = sandbox.run(args);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(
        output.status.code(),
        Some(code),
        "{args:?}: {stdout}{stderr}"
    );
    (stdout, stderr)
}

fn json(sandbox: &Sandbox, args: &[&str], code: i32) -> Value {
    let mut args = args.to_vec();
    args.extend(["--format", "json"]);
    let (stdout, stderr) = run(sandbox, &args, code);
    serde_json::from_str(&stdout)
        .unwrap_or_else(|error| panic!("{args:?}: {error}: {stdout}{stderr}"))
}

#[test]
fn an_index_of_a_registry_and_a_folder_is_served_searched_shown_and_used_by_add() {
    let world = World::new();
    let sandbox = &world.sandbox;
    let url = world.url();

    // Search: ranked, exact identity first, the signature checked.
    let found = json(
        sandbox,
        &[
            "search",
            "minimal",
            "--index",
            &url,
            "--trust",
            &world.public,
        ],
        0,
    );
    assert!(found["signed_by"].is_string(), "{found}");
    let results = found["results"].as_array().unwrap();
    assert_eq!(results[0]["namespace"], "example");
    assert_eq!(results[0]["id"], "minimal");
    assert_eq!(results[0]["exact"], true);
    assert_eq!(results[0]["version"], "2026.12.02.1");
    let words = json(sandbox, &["search", "planner parallel", "--index", &url], 0);
    let names: Vec<&str> = words["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["id"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["planner-parallel"]);
    // A name that is not there is never substituted by a similar one.
    let (_, stderr) = run(sandbox, &["show", "example/minimals", "--index", &url], 2);
    assert!(
        stderr.contains("has no squad example/minimals (similar names: example/minimal)"),
        "{stderr}"
    );

    // Show: both versions, one in the registry, one beside the index.
    let shown = json(
        sandbox,
        &[
            "show",
            "example/minimal",
            "--index",
            &url,
            "--trust",
            &world.public,
        ],
        0,
    );
    let versions = shown["squad"]["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2, "{shown}");
    assert_eq!(versions[0]["version"], "2026.12.02.1");
    assert_eq!(
        versions[0]["location"],
        "archives/example/minimal-2026.12.02.1-expert-squad.zip"
    );
    let registry_location = versions[1]["location"].as_str().unwrap();
    assert!(
        registry_location.starts_with(&format!(
            "{}/example/minimal@sha256:",
            world.registry.oci("squads")
        )),
        "{registry_location}"
    );
    assert!(versions[0]["capabilities"]["agents"].is_number());
    let (stdout, _) = run(sandbox, &["show", "minimal", "--index", &url], 0);
    assert!(stdout.starts_with("example/minimal"), "{stdout}");
    assert!(stdout.contains("Versions (2, newest first):"), "{stdout}");

    // Add by name from the project's index: the newest version (the folder's archive), and a
    // registry squad, each pinned to what the index says.
    let project = sandbox.project();
    std::fs::create_dir_all(project.join(".opencorvus")).unwrap();
    let key = std::fs::read_to_string(&world.public).unwrap();
    let key = key.lines().nth(1).unwrap();
    std::fs::write(
        project.join(".opencorvus/squads.jsonc"),
        format!(
            "{{\n  // the team's index\n  \"index\": \"{url}\",\n  \"index_key\": \"{key}\"\n}}\n"
        ),
    )
    .unwrap();
    let project_arg = project.to_str().unwrap();
    let added = json(
        sandbox,
        &["add", "example/minimal", "--project", project_arg],
        0,
    );
    assert_eq!(added["squad"]["version"], "2026.12.02.1", "{added}");
    let added = json(sandbox, &["add", "delivery", "--project", project_arg], 0);
    assert_eq!(added["squad"]["version"], "2026.11.30.1", "{added}");
    let declared = std::fs::read_to_string(project.join(".opencorvus/squads.jsonc")).unwrap();
    assert!(declared.contains("// the team's index"), "{declared}");
    assert!(
        declared.contains(&format!(
            "\"example/minimal\": {{ \"source\": \"{url}archives/example/minimal-2026.12.02.1-expert-squad.zip\", \"sha256\": \""
        )),
        "{declared}"
    );
    assert!(
        declared.contains(&format!(
            "\"example/delivery\": {{ \"source\": \"{}/example/delivery\", \"version\": \"2026.11.30.1\" }}",
            world.registry.oci("squads")
        )),
        "{declared}"
    );
    let lock: Value = serde_json::from_str(
        &std::fs::read_to_string(project.join(".opencorvus/squads.lock")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        lock["squads"]["example/minimal"]["package_digest"],
        versions[0]["package_digest"]
    );
    assert!(
        lock["squads"]["example/delivery"]["resolved"]
            .as_str()
            .unwrap()
            .contains("@sha256:")
    );
    // The lock alone brings them back: a fresh sync of the project needs no index.
    run(sandbox, &["sync", "--locked", "--project", project_arg], 0);

    // Offline: the cached copy of the index and the installed squads.
    let offline = json(
        sandbox,
        &["search", "delivery", "--offline", "--project", project_arg],
        0,
    );
    let places: Vec<&str> = offline["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["found_in"].as_str().unwrap())
        .collect();
    assert_eq!(places, ["index", "installed"], "{offline}");
}

/// Each refusal of the root, and of a file, with the project and the cache unchanged.
#[test]
fn the_root_is_checked_on_every_fetch_and_each_refusal_changes_nothing() {
    let world = World::new();
    let sandbox = &world.sandbox;
    let url = world.url();
    let index = world.index_dir();
    // A first look keeps version 1 of the root as the last one seen.
    run(
        sandbox,
        &[
            "search",
            "minimal",
            "--index",
            &url,
            "--trust",
            &world.public,
        ],
        0,
    );
    let before = world.state();

    // 1. Another key than the one that signed it.
    let other = sandbox.root.join("other.pub");
    run(
        sandbox,
        &[
            "key",
            "generate",
            "--secret-key",
            sandbox.root.join("other.key").to_str().unwrap(),
            "--public-key",
            other.to_str().unwrap(),
            "--unencrypted",
        ],
        0,
    );
    let (_, stderr) = run(
        sandbox,
        &[
            "search",
            "minimal",
            "--index",
            &url,
            "--trust",
            other.to_str().unwrap(),
        ],
        1,
    );
    assert!(stderr.contains("not by the trusted key"), "{stderr}");
    assert_eq!(world.state(), before, "a wrong key changed something");
    // A root without its signature, when a key is trusted.
    let signature = index.join("index.json.minisig");
    let kept_signature = std::fs::read(&signature).unwrap();
    std::fs::remove_file(&signature).unwrap();
    let (_, stderr) = run(
        sandbox,
        &[
            "search",
            "minimal",
            "--index",
            &url,
            "--trust",
            &world.public,
        ],
        1,
    );
    assert!(stderr.contains("it has no signature"), "{stderr}");
    std::fs::write(&signature, &kept_signature).unwrap();
    assert_eq!(world.state(), before);

    // 2. An expired root.
    let (_, stderr) = {
        let output = sandbox
            .command(&["search", "minimal", "--index", &url])
            .env("SQUAD_NOW", "2099-01-01T00:00:00Z")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
        (text(&output.stdout), text(&output.stderr))
    };
    assert!(stderr.contains("expired at"), "{stderr}");
    assert_eq!(world.state(), before, "an expired root changed something");

    // 3. A rollback: version 2 seen, then version 1 served again.
    let old_root = std::fs::read(index.join("index.json")).unwrap();
    let old_signature = kept_signature.clone();
    json(
        sandbox,
        &[
            "index",
            "build",
            &world.registry.oci("squads"),
            sandbox.root.join("dist").to_str().unwrap(),
            "-o",
            index.to_str().unwrap(),
            "--sign",
            sandbox.root.join("index.key").to_str().unwrap(),
        ],
        0,
    );
    run(
        sandbox,
        &[
            "search",
            "minimal",
            "--index",
            &url,
            "--trust",
            &world.public,
        ],
        0,
    );
    let seen = world.state();
    let new_root = std::fs::read(index.join("index.json")).unwrap();
    let new_signature = std::fs::read(&signature).unwrap();
    std::fs::write(index.join("index.json"), &old_root).unwrap();
    std::fs::write(&signature, &old_signature).unwrap();
    let (_, stderr) = run(
        sandbox,
        &[
            "search",
            "minimal",
            "--index",
            &url,
            "--trust",
            &world.public,
        ],
        1,
    );
    assert!(
        stderr.contains("is version 1, older than version 2 seen before: refusing a rollback"),
        "{stderr}"
    );
    assert_eq!(world.state(), seen, "a rollback changed something");
    // Back to version 2.
    std::fs::write(index.join("index.json"), &new_root).unwrap();
    std::fs::write(&signature, &new_signature).unwrap();

    // 4. A file whose bytes are not the ones the root names.
    let file = index.join("squads/example/delivery.json");
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(b" ");
    std::fs::write(&file, bytes).unwrap();
    let seen = world.state();
    let (_, stderr) = run(sandbox, &["show", "example/delivery", "--index", &url], 1);
    assert!(stderr.contains("but the index root says"), "{stderr}");
    assert_eq!(world.state(), seen, "a bad file changed something");
}

/// A rebuild after one publish rewrites that squad's file and the root, and reads one archive.
#[test]
fn a_rebuild_after_one_publish_rewrites_one_squad_file_and_the_root() {
    let world = World::new();
    let sandbox = &world.sandbox;
    let base = world.registry.oci("squads");
    let args = |full: bool| {
        let mut args = vec![
            "index".to_owned(),
            "build".to_owned(),
            base.clone(),
            sandbox.root.join("dist").to_str().unwrap().to_owned(),
            "-o".to_owned(),
            world.index_dir().to_str().unwrap().to_owned(),
        ];
        if full {
            args.push("--full".to_owned());
        }
        args
    };
    let rebuild = |full: bool| {
        let owned = args(full);
        let args: Vec<&str> = owned.iter().map(String::as_str).collect();
        json(sandbox, &args, 0)
    };
    let unchanged = rebuild(false);
    assert_eq!(
        unchanged["written"],
        serde_json::json!(["index.json"]),
        "{unchanged}"
    );
    assert_eq!(
        unchanged["removed"],
        serde_json::json!(["index.json.minisig"])
    );
    assert_eq!(unchanged["read"], 0, "nothing new was read: {unchanged}");

    let newer = variant(
        &sandbox.root.join("v3"),
        "delivery",
        "2026.12.03.1",
        "\nv3\n",
    );
    run(sandbox, &["publish", newer.to_str().unwrap(), &base], 0);
    let rebuilt = rebuild(false);
    assert_eq!(
        rebuilt["written"],
        serde_json::json!(["squads/example/delivery.json", "index.json"]),
        "{rebuilt}"
    );
    assert_eq!(rebuilt["read"], 1, "{rebuilt}");
    assert_eq!(rebuilt["version"], 3);
    let full = rebuild(true);
    assert_eq!(full["written"], serde_json::json!(["index.json"]), "{full}");
    assert_eq!(full["read"], 5, "{full}");
}

/// A squad declared by name (`"index": true`) is resolved through the project's index at
/// `sync`, and squads.lock pins what it resolved to: a later `sync --locked` needs no index.
#[test]
fn sync_takes_squads_by_name_from_the_projects_index_and_the_lock_pins_them() {
    let world = World::new();
    let sandbox = &world.sandbox;
    let url = world.url();
    let project = sandbox.project();
    let project_arg = project.to_str().unwrap();
    std::fs::create_dir_all(project.join(".opencorvus")).unwrap();
    let key = std::fs::read_to_string(&world.public).unwrap();
    let key = key.lines().nth(1).unwrap().to_owned();
    let declared = format!(
        "{{\n  \"index\": \"{url}\",\n  \"index_key\": \"{key}\",\n  \"squads\": {{\n    \"example/minimal\": {{ \"index\": true }},\n    \"example/delivery\": {{ \"index\": true, \"version\": \"2026.11.30.1\" }}\n  }}\n}}\n"
    );
    std::fs::write(project.join(".opencorvus/squads.jsonc"), &declared).unwrap();
    // Not locked yet: --locked refuses and changes nothing (the project lock's own file aside).
    let files = || {
        let mut state = world.state();
        state.retain(|path| !path.ends_with(".squads-sync.lock"));
        state
    };
    let before = files();
    let refused = json(sandbox, &["sync", "--locked", "--project", project_arg], 1);
    assert_eq!(refused["status"], "refused", "{refused}");
    assert_eq!(files(), before);

    let synced = json(sandbox, &["sync", "--project", project_arg], 0);
    let versions: Vec<(&str, &str)> = synced["squads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|squad| {
            (
                squad["name"].as_str().unwrap(),
                squad["version"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        versions,
        [
            ("example/delivery", "2026.11.30.1"),
            ("example/minimal", "2026.12.02.1")
        ],
        "{synced}"
    );
    let lock: Value = serde_json::from_str(
        &std::fs::read_to_string(project.join(".opencorvus/squads.lock")).unwrap(),
    )
    .unwrap();
    let minimal = &lock["squads"]["example/minimal"];
    assert_eq!(minimal["source"], "index");
    assert_eq!(
        minimal["resolved"],
        format!("{url}archives/example/minimal-2026.12.02.1-expert-squad.zip")
    );
    let delivery = &lock["squads"]["example/delivery"];
    assert!(
        delivery["resolved"].as_str().unwrap().starts_with(&format!(
            "{}/example/delivery@sha256:",
            world.registry.oci("squads")
        )),
        "{lock}"
    );
    assert_eq!(
        std::fs::read_to_string(project.join(".opencorvus/squads.jsonc")).unwrap(),
        declared,
        "sync does not rewrite squads.jsonc"
    );

    // A newer version published and the index rebuilt: outdated lists it for the index squad
    // (pinned by its declared version), and update takes it and moves the version with it.
    let newer = variant(
        &sandbox.root.join("v3"),
        "delivery",
        "2026.12.03.1",
        "\nv3\n",
    );
    let base = world.registry.oci("squads");
    run(sandbox, &["publish", newer.to_str().unwrap(), &base], 0);
    let secret = sandbox.root.join("index.key");
    let index_dir = world.index_dir();
    json(
        sandbox,
        &[
            "index",
            "build",
            &base,
            sandbox.root.join("dist").to_str().unwrap(),
            "-o",
            index_dir.to_str().unwrap(),
            "--sign",
            secret.to_str().unwrap(),
        ],
        0,
    );
    let outdated = json(sandbox, &["outdated", "--project", project_arg], 0);
    let rows: Vec<(&str, &str, &Value, &Value, &Value)> = outdated["squads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["name"].as_str().unwrap(),
                row["kind"].as_str().unwrap(),
                &row["latest"],
                &row["newer"],
                &row["pinned_by"],
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "example/delivery",
                "index",
                &Value::from("2026.12.03.1"),
                &serde_json::json!(["2026.12.03.1"]),
                &Value::from("version")
            ),
            (
                "example/minimal",
                "index",
                &Value::from("2026.12.02.1"),
                &serde_json::json!([]),
                &Value::Null
            ),
        ],
        "{outdated}"
    );
    let updated = json(
        sandbox,
        &["update", "example/delivery", "--project", project_arg],
        0,
    );
    assert_eq!(
        std::fs::read_to_string(project.join(".opencorvus/squads.jsonc")).unwrap(),
        declared.replace("2026.11.30.1", "2026.12.03.1"),
        "update moves the declared version: {updated}"
    );
    let lock: Value = serde_json::from_str(
        &std::fs::read_to_string(project.join(".opencorvus/squads.lock")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        lock["squads"]["example/delivery"]["version"],
        "2026.12.03.1"
    );
    let outdated = json(sandbox, &["outdated", "--project", project_arg], 0);
    assert!(
        outdated["squads"]
            .as_array()
            .unwrap()
            .iter()
            .all(|row| row["newer"] == serde_json::json!([])),
        "{outdated}"
    );

    // The index gone: the lock alone brings them back.
    let World { server, .. } = world;
    drop(server);
    std::fs::remove_dir_all(project.join(".opencorvus/expert-squads")).unwrap();
    let again = json(sandbox, &["sync", "--locked", "--project", project_arg], 0);
    assert_eq!(again["squads"].as_array().unwrap().len(), 2, "{again}");
}
