//! docs/json-output.md held to the binary: one scenario runs the real `squad` (against Debian's
//! `docker-registry` on 127.0.0.1) and keeps every `--format json` document it prints, and
//! every ```json example of the doc is compared, by shape, with the real document of its kind.
//!
//! Shape, not values: an example shows made-up digests, paths and counts. Objects must have the
//! same keys both ways, unless the example holds the key `"..."` (a deliberate elision: then
//! only the example's keys must exist); values must have the same JSON type, `null` on either
//! side matching anything (an optional value may be absent in one run and present in another);
//! arrays compare their first elements when both have one.

use std::path::Path;

use serde_json::Value;

use crate::http_support::StaticServer;
use crate::oci_support::{Auth, Registry};
use crate::registry::variant;
use crate::support::Sandbox;
use crate::support::{fixtures, repo, text};

/// The ```json blocks of docs/json-output.md. Adding one means the scenario must print a
/// document of its kind; this count says that every block was found and checked.
const EXAMPLES: usize = 41;

/// A ```json block of the doc.
struct Example {
    heading: String,
    line: usize,
    value: Value,
}

impl Example {
    fn place(&self) -> String {
        format!(
            "docs/json-output.md:{} (under \"{}\")",
            self.line, self.heading
        )
    }
}

fn examples() -> Vec<Example> {
    let doc = std::fs::read_to_string(repo().join("docs/json-output.md")).unwrap();
    let mut examples = Vec::new();
    let mut heading = "the introduction".to_owned();
    let mut block: Option<(usize, String)> = None;
    for (index, line) in doc.lines().enumerate() {
        match &mut block {
            Some((start, text)) if line.trim() == "```" => {
                let value = serde_json::from_str(text).unwrap_or_else(|error| {
                    panic!("docs/json-output.md:{start} (under \"{heading}\") is not JSON: {error}")
                });
                examples.push(Example {
                    heading: heading.clone(),
                    line: *start,
                    value,
                });
                block = None;
            }
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
            None if line.trim() == "```json" => block = Some((index + 1, String::new())),
            None if line.starts_with('#') => {
                heading = line.trim_start_matches('#').trim().to_owned();
            }
            None => {}
        }
    }
    assert!(
        block.is_none(),
        "docs/json-output.md ends inside a ```json block"
    );
    examples
}

/// Which document a value is: its `type`, or for the two documents without one, the command.
fn kind(document: &Value) -> String {
    match document.get("type").and_then(Value::as_str) {
        Some(kind) => kind.to_owned(),
        None if document.get("conforms").is_some() => "router check".to_owned(),
        None => "validate".to_owned(),
    }
}

fn status(document: &Value) -> Option<&str> {
    document.get("status").and_then(Value::as_str)
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Where `example` and `real` differ in shape, one line per difference, each naming the JSON
/// pointer of the value concerned.
fn differences(example: &Value, real: &Value, pointer: &str, found: &mut Vec<String>) {
    let at = |key: &str| format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
    match (example, real) {
        (Value::Null, _) | (_, Value::Null) => {}
        (Value::Object(example), Value::Object(real)) => {
            for (key, value) in example.iter().filter(|(key, _)| *key != "...") {
                match real.get(key) {
                    Some(real) => differences(value, real, &at(key), found),
                    None => found.push(format!("{}: in the example, not in the output", at(key))),
                }
            }
            if !example.contains_key("...") {
                for (key, value) in real.iter().filter(|(key, _)| !example.contains_key(*key)) {
                    found.push(format!(
                        "{}: in the output ({value}), not in the example",
                        at(key)
                    ));
                }
            }
        }
        (Value::Array(example), Value::Array(real)) => {
            if let (Some(example), Some(real)) = (example.first(), real.first()) {
                differences(example, real, &format!("{pointer}/0"), found);
            }
        }
        (example, real) if type_name(example) == type_name(real) => {}
        (example, real) => found.push(format!(
            "{}: the example has {} ({example}), the output {} ({real})",
            if pointer.is_empty() { "/" } else { pointer },
            type_name(example),
            type_name(real)
        )),
    }
}

#[test]
fn shapes_differ_by_keys_and_types_but_not_by_values_nulls_or_elided_keys() {
    let compare = |example: Value, real: Value| {
        let mut found = Vec::new();
        differences(&example, &real, "", &mut found);
        found
    };
    let same = serde_json::json!({ "a": 1, "b": [{ "c": "x" }], "d": null, "e": true });
    let other = serde_json::json!({ "a": 2, "b": [{ "c": "y" }, {}], "d": {}, "e": false });
    assert_eq!(compare(same.clone(), other), Vec::<String>::new());
    assert_eq!(
        compare(
            same.clone(),
            serde_json::json!({ "a": 1, "b": [], "d": 1, "e": true, "f": 0 })
        ),
        ["/f: in the output (0), not in the example"]
    );
    assert_eq!(
        compare(
            same,
            serde_json::json!({ "a": "1", "b": [{ "c/d": 1 }], "d": 1 })
        ),
        [
            "/a: the example has a number (1), the output a string (\"1\")",
            "/b/0/c: in the example, not in the output",
            "/b/0/c~1d: in the output (1), not in the example",
            "/e: in the example, not in the output",
        ]
    );
    let elided = serde_json::json!({ "a": 1, "...": "as above" });
    assert_eq!(
        compare(elided.clone(), serde_json::json!({ "a": 3, "z": 1 })),
        Vec::<String>::new()
    );
    assert_eq!(
        compare(elided, serde_json::json!({ "z": 1 })),
        ["/a: in the example, not in the output"]
    );
    assert_eq!(
        compare(serde_json::json!([1]), serde_json::json!({})),
        ["/: the example has an array ([1]), the output an object ({})"]
    );
}

#[test]
fn every_json_example_in_the_docs_has_the_shape_the_binary_prints() {
    let examples = examples();
    let real = Scenario::run();
    let mut problems = Vec::new();
    let mut matched = vec![false; real.len()];
    for example in &examples {
        let kind = kind(&example.value);
        let wanted = status(&example.value);
        let candidates: Vec<usize> = (0..real.len())
            .filter(|&index| self::kind(&real[index]) == kind)
            .filter(|&index| wanted.is_none() || status(&real[index]) == wanted)
            .collect();
        if candidates.is_empty() {
            problems.push(format!(
                "{}: the scenario printed no `{kind}` document{}",
                example.place(),
                wanted
                    .map(|status| format!(" with status `{status}`"))
                    .unwrap_or_default()
            ));
            continue;
        }
        // Every document of the kind: a `null` in one run (no signature, nothing before) may
        // be a value in another, and the example must fit both.
        let mut found = Vec::new();
        for &index in &candidates {
            matched[index] = true;
            differences(&example.value, &real[index], "", &mut found);
        }
        found.dedup();
        problems.extend(
            found
                .into_iter()
                .map(|difference| format!("{}: {difference}", example.place())),
        );
    }
    // The inverse: a document the binary prints but the doc shows no example of.
    for (document, _) in real.iter().zip(&matched).filter(|(_, matched)| !**matched) {
        problems.push(format!(
            "no example in docs/json-output.md for the `{}` document{}: {document}",
            kind(document),
            status(document)
                .map(|status| format!(" with status `{status}`"))
                .unwrap_or_default()
        ));
    }
    assert!(
        problems.is_empty(),
        "docs/json-output.md disagrees with the binary:\n{}",
        problems.join("\n")
    );
    assert_eq!(
        examples.len(),
        EXAMPLES,
        "docs/json-output.md has {} ```json blocks; every one was checked, update EXAMPLES",
        examples.len()
    );
}

/// The documents of one run through every command that prints one.
struct Scenario {
    sandbox: Sandbox,
    documents: Vec<Value>,
}

impl Scenario {
    /// Runs squad with `args`, expecting exit `code` and one JSON document on stdout.
    fn json(&mut self, args: &[&str], code: i32) -> Value {
        let output = self.sandbox.run(args);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{args:?}: {}{}",
            text(&output.stdout),
            text(&output.stderr)
        );
        let document: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            panic!(
                "{args:?}: stdout is not one JSON document ({error}): {}{}",
                text(&output.stdout),
                text(&output.stderr)
            )
        });
        self.documents.push(document.clone());
        document
    }

    /// [`Scenario::json`] of a command of the project at `project`.
    fn in_project(&mut self, project: &str, args: &[&str], code: i32) -> Value {
        let mut args = args.to_vec();
        args.extend(["--project", project, "--format", "json"]);
        self.json(&args, code)
    }

    fn run() -> Vec<Value> {
        let registry = Registry::start(Auth::None);
        let sandbox = Sandbox::new();
        let cache = sandbox.dir.path().join("cache");
        let mut run = Scenario {
            sandbox: sandbox.with_env("SQUAD_CACHE_DIR", &cache),
            documents: Vec::new(),
        };
        let dir = run.sandbox.dir.path().to_path_buf();
        let scratch = dir.join("packages");
        let path = |path: &Path| path.to_str().unwrap().to_owned();

        // A package with one certain fix (a version written with a leading zero).
        let fixable = path(&variant(&scratch, "minimal", "2026.12.01.01", ""));
        run.json(&["validate", &fixable, "--format", "json"], 1);
        run.json(&["fix", &fixable, "--dry-run", "--format", "json"], 0);
        let case = fixtures().join("interop/router/cases/wrong-agent");
        run.json(
            &[
                "router",
                "check",
                "--input",
                &path(&case.join("input.json")),
                "--output",
                &path(&case.join("output.json")),
                "--format",
                "json",
            ],
            1,
        );

        // A package: digested, packed, changed and verified against its record.
        let package = variant(&scratch, "minimal", "2026.12.01.1", "");
        let pkg = path(&package);
        let digested = run.json(&["digest", &pkg, "--files", "--format", "json"], 0);
        let record = dir.join("record.json");
        std::fs::write(&record, digested.to_string()).unwrap();
        let archive = path(&dir.join("minimal.zip"));
        run.json(&["pack", &pkg, "-o", &archive, "--format", "json"], 0);
        run.json(&["audit", &archive, "--format", "json"], 0);
        let changed = variant(&scratch, "minimal", "2026.12.01.1", "\nchanged\n");
        run.json(&["show", &archive, "--format", "json"], 0);
        // An update that gives the scheduler a browser, and changes a prompt.
        let widened = variant(&scratch, "minimal", "2026.12.02.1", "");
        let manifest = widened.join("expert-squad.jsonc");
        let text = std::fs::read_to_string(&manifest).unwrap();
        let text = text.replacen(
            "\"built_in_tool_ids\": [",
            "\"built_in_tool_ids\": [\"browser_preview\", ",
            1,
        );
        std::fs::write(&manifest, text).unwrap();
        let prompt = widened.join("agents/orchestrator/system.md");
        let text = std::fs::read_to_string(&prompt).unwrap() + "\nAsk before you run a command.\n";
        std::fs::write(&prompt, text).unwrap();
        run.json(&["diff", &pkg, &path(&widened), "--format", "json"], 1);
        run.json(
            &[
                "verify",
                &path(&changed),
                "--record",
                &path(&record),
                "--format",
                "json",
            ],
            1,
        );

        // Keys and signatures.
        let (secret, public) = (path(&dir.join("acme.key")), path(&dir.join("acme.pub")));
        let generated = run.json(
            &[
                "key",
                "generate",
                "--secret-key",
                &secret,
                "--public-key",
                &public,
                "--unencrypted",
                "--format",
                "json",
            ],
            0,
        );
        let key_id = generated["key_id"].as_str().unwrap().to_owned();
        let signature = path(&dir.join("minimal.minisig"));
        run.json(
            &[
                "sign", &pkg, "--key", &secret, "-o", &signature, "--format", "json",
            ],
            0,
        );
        run.json(&["sign", &pkg, "--statement", "--format", "json"], 0);
        run.json(
            &[
                "verify",
                &pkg,
                "--signature",
                &signature,
                "--public-key",
                &public,
                "--format",
                "json",
            ],
            0,
        );

        // A registry: published (signed), listed, pulled, installed.
        let base = registry.oci("squads");
        let published = run.json(
            &[
                "publish", &pkg, &base, "--sign", &secret, "--format", "json",
            ],
            0,
        );
        let pinned = published["reference"].as_str().unwrap().to_owned();
        let repository = format!("{base}/example/minimal");
        run.json(&["versions", &repository, "--format", "json"], 0);
        let pulled = path(&dir.join("pulled.zip"));
        run.json(
            &[
                "pull",
                &format!("{repository}:2026.12.01.1"),
                "-o",
                &pulled,
                "--format",
                "json",
            ],
            0,
        );
        let installs = path(&dir.join("installs"));
        std::fs::create_dir_all(&installs).unwrap();
        run.json(
            &[
                "install",
                &pinned,
                "--scope",
                "project",
                "--project",
                &installs,
                "--format",
                "json",
            ],
            0,
        );
        run.json(&["list", "--project", &installs, "--format", "json"], 0);

        // A tree of squads: packed, digested, recorded and checked, published; an index of
        // the registry, served, searched and shown.
        let tree = dir.join("tree");
        variant(&tree, "delivery", "2026.12.01.1", "");
        variant(&tree, "planner-parallel", "2026.12.01.1", "");
        let tree_arg = path(&tree);
        let packed = format!("{}/", path(&dir.join("packed")));
        run.json(&["pack", &tree_arg, "-o", &packed, "--format", "json"], 0);
        run.json(&["digest", &tree_arg, "--format", "json"], 0);
        run.json(
            &[
                "version",
                "bump",
                "--changed",
                &tree_arg,
                "--format",
                "json",
            ],
            0,
        );
        run.json(&["version", "check", &tree_arg, "--format", "json"], 0);
        run.json(&["publish", &tree_arg, &base, "--format", "json"], 0);
        let site = dir.join("site");
        run.json(
            &[
                "index",
                "build",
                &base,
                "-o",
                &path(&site.join("index")),
                "--format",
                "json",
            ],
            0,
        );
        let server = StaticServer::start(&site);
        let index = server.url("index/");
        run.json(
            &["search", "delivery", "--index", &index, "--format", "json"],
            0,
        );
        run.json(
            &[
                "show",
                "example/delivery",
                "--index",
                &index,
                "--format",
                "json",
            ],
            0,
        );
        drop(server);

        // A project's squads: added, outdated once v2 is out, updated, synced, removed.
        let project = path(&run.sandbox.project());
        run.in_project(&project, &["init"], 0);
        run.in_project(&project, &["add", &repository], 0);
        let newer = variant(&scratch, "minimal", "2026.12.02.1", "\nv2\n");
        run.json(&["publish", &path(&newer), &base, "--format", "json"], 0);
        run.in_project(&project, &["outdated"], 0);
        run.in_project(&project, &["update", "--dry-run"], 0);
        run.in_project(&project, &["update"], 0);
        run.in_project(&project, &["sync"], 0);
        run.in_project(&project, &["verify", "--locked"], 0);
        let failed = run.in_project(&project, &["add", &format!("{base}/example/absent")], 2);
        assert_eq!(failed["status"], "failed", "{failed}");
        run.in_project(&project, &["remove", "example/minimal"], 0);
        run.in_project(
            &project,
            &["trust", "add", &public, "--namespace", "example"],
            0,
        );
        run.in_project(&project, &["trust", "revoke", &key_id], 0);
        run.in_project(&project, &["trust", "remove", &public], 0);

        // Projects that stop: files that disagree under --locked, and no squads.jsonc at all.
        let disagreeing = dir.join("disagreeing");
        std::fs::create_dir_all(disagreeing.join(".opencorvus")).unwrap();
        std::fs::write(
            disagreeing.join(".opencorvus/squads.jsonc"),
            format!(
                "{{ \"squads\": {{ \"example/minimal\": {{ \"source\": \"{repository}\" }} }} }}\n"
            ),
        )
        .unwrap();
        let disagreeing = path(&disagreeing);
        let refused = run.json(
            &[
                "sync",
                "--locked",
                "--project",
                &disagreeing,
                "--format",
                "json",
            ],
            1,
        );
        assert_eq!(refused["status"], "refused", "{refused}");
        let empty = path(&dir.join("empty"));
        std::fs::create_dir_all(&empty).unwrap();
        run.json(&["sync", "--project", &empty, "--format", "json"], 2);

        drop(registry);
        run.documents
    }
}
