//! docs/ci.md's recipes, run: their shell steps are `scripts/ci-example`, and this test runs it
//! against Debian's `docker-registry` on loopback as the push, tag and consumer jobs do, so the
//! recipes cannot drift from what squad does.

use serde_json::Value;

use crate::oci_support::{Auth, Registry};
use crate::registry::template;
use crate::support::{Sandbox, copy_tree, repo, text};

/// The subcommands docs/ci.md's recipes call; each is run below.
const STEPS: [&str; 3] = ["check", "publish", "consume"];

fn script(sandbox: &Sandbox, args: &[&str], code: i32) -> (String, String) {
    let mut command = sandbox.program("bash");
    command.arg(repo().join("scripts/ci-example")).args(args);
    let output = command.output().unwrap();
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(
        output.status.code(),
        Some(code),
        "{args:?}: {stdout}{stderr}"
    );
    (stdout, stderr)
}

#[test]
fn the_ci_recipes_call_only_the_steps_this_test_runs() {
    let doc = std::fs::read_to_string(repo().join("docs/ci.md")).unwrap();
    let called: Vec<&str> = doc
        .split("scripts/ci-example ")
        .skip(1)
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|word| word.chars().all(|c| c.is_ascii_lowercase()))
        .collect();
    assert!(called.len() >= 9, "docs/ci.md calls {called:?}");
    for step in &called {
        assert!(
            STEPS.contains(step),
            "docs/ci.md calls `scripts/ci-example {step}`"
        );
    }
    for step in STEPS {
        assert!(called.contains(&step), "docs/ci.md never calls `{step}`");
    }
}

#[test]
fn the_ci_script_checks_publishes_what_changed_and_consumes_against_a_registry() {
    let registry = Registry::start(Auth::None);
    let base = registry.oci("squads");
    let sandbox = Sandbox::new()
        .with_env("SQUAD", env!("CARGO_BIN_EXE_squad"))
        .with_env("SQUAD_TODAY", "2026-12-01")
        .with_env("SQUAD_CACHE_DIR", "cache");
    let root = sandbox.root.clone();
    let squads = root.join("squads");
    for name in ["delivery", "minimal", "planner-parallel"] {
        copy_tree(&template(name), &squads.join(name));
    }
    let squads_arg = squads.to_str().unwrap();
    let (secret, public) = (root.join("ci.key"), root.join("ci.pub"));
    let generated = sandbox.run(&[
        "key",
        "generate",
        "--secret-key",
        secret.to_str().unwrap(),
        "--public-key",
        public.to_str().unwrap(),
        "--unencrypted",
    ]);
    assert_eq!(
        generated.status.code(),
        Some(0),
        "{}",
        text(&generated.stderr)
    );
    let sandbox = sandbox.with_env("SQUAD_SIGNING_KEY", &secret);

    // Every push: valid, SARIF written, nothing published yet.
    script(&sandbox, &["check", squads_arg, &base], 0);
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("squad.sarif")).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let audit: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("squad-audit.sarif")).unwrap())
            .unwrap();
    assert_eq!(audit["version"], "2.1.0");

    // A tag: everything pushed, signed, and an index built.
    let index = root.join("site/index");
    script(
        &sandbox,
        &["publish", squads_arg, &base, index.to_str().unwrap()],
        0,
    );
    let published: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("published.json")).unwrap())
            .unwrap();
    let statuses = |document: &Value| -> Vec<String> {
        document["packages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|package| package["status"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(statuses(&published), ["pushed", "pushed", "pushed"]);
    assert!(published["packages"][0]["signature"]["key_id"].is_string());
    assert!(index.join("index.json").is_file() && index.join("index.json.minisig").is_file());

    // A consumer: a project that locked one of them installs exactly it.
    let project = sandbox.project();
    let init = sandbox.run(&["init", "--project", project.to_str().unwrap()]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init.stderr));
    let reference = published["packages"][1]["reference"].as_str().unwrap();
    let added = sandbox.run(&["add", reference, "--project", project.to_str().unwrap()]);
    assert_eq!(added.status.code(), Some(0), "{}", text(&added.stderr));
    std::fs::remove_dir_all(project.join(".opencorvus/expert-squads")).unwrap();
    script(&sandbox, &["consume", project.to_str().unwrap()], 0);
    assert!(
        project
            .join(".opencorvus/expert-squads/example/minimal/expert-squad.jsonc")
            .is_file()
    );

    // A squad edited without a bump: the push job fails naming it, the tag job publishes nothing.
    let readme = squads.join("delivery/README.md");
    std::fs::write(
        &readme,
        std::fs::read_to_string(&readme).unwrap() + "\nedited\n",
    )
    .unwrap();
    let (_, stderr) = script(&sandbox, &["check", squads_arg, &base], 1);
    assert!(
        stderr.contains("example/delivery 2026.11.30.1: the bytes moved since it was published"),
        "{stderr}"
    );
    script(&sandbox, &["publish", squads_arg, &base], 1);
    // Bumped: the tag job pushes that one squad; the others are unchanged.
    let bumped = sandbox.run(&[
        "version",
        "bump",
        "--changed",
        squads_arg,
        "--registry",
        &base,
    ]);
    assert_eq!(bumped.status.code(), Some(0), "{}", text(&bumped.stderr));
    script(&sandbox, &["publish", squads_arg, &base], 0);
    let published: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("published.json")).unwrap())
            .unwrap();
    assert_eq!(statuses(&published), ["pushed", "unchanged", "unchanged"]);
    assert_eq!(published["packages"][0]["version"], "2026.12.01.1");
}
