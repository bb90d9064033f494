//! A tree of squads through CI, end to end with the real binary against Debian's
//! `docker-registry` on loopback: publish what changed, versions that move when bytes move
//! (against the registry and against the tree's versions record), and the commands that take
//! a tree (`pack`, `digest`). Every refusal asserts that nothing changed: the tree's bytes, the
//! record, and the registry's storage.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::install::listing;
use crate::oci_support::{Auth, Registry};
use crate::registry::template;
use crate::support::{Sandbox, copy_tree, corpus, text};

/// The day every test here runs on: after the corpus's and the templates' versions.
const TODAY: &str = "2026-12-01";

/// The first `count` corpus packages (by name, the runtime's built-in ids left out), copied
/// into `tree`.
fn corpus_tree(corpus: &Path, tree: &Path, count: usize) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.join("expert-squad.jsonc").is_file())
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|name| {
            !["base", "advanced", "research-studio", "squad-sdk"].contains(&name.as_str())
        })
        .collect();
    names.sort();
    names.truncate(count);
    assert_eq!(names.len(), count, "the corpus has {count} packages");
    for name in &names {
        copy_tree(&corpus.join(name), &tree.join(name));
    }
    names
}

/// The three templates as a tree.
fn template_tree(tree: &Path) -> Vec<String> {
    let names = ["delivery", "minimal", "planner-parallel"];
    for name in names {
        copy_tree(&template(name), &tree.join(name));
    }
    names.map(str::to_owned).to_vec()
}

/// Every file under a folder with its bytes: "nothing changed" compares equal.
fn contents(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(root)
        .into_iter()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| {
            (
                entry
                    .path()
                    .strip_prefix(root)
                    .unwrap()
                    .display()
                    .to_string(),
                std::fs::read(entry.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

struct Run {
    sandbox: Sandbox,
}

impl Run {
    fn new() -> Run {
        Run {
            sandbox: Sandbox::new().with_env("SQUAD_TODAY", TODAY),
        }
    }

    fn tree(&self) -> PathBuf {
        self.sandbox.root.join("squads")
    }

    /// Runs squad, expecting exit `code`, and returns its JSON document.
    fn json(&self, args: &[&str], code: i32) -> Value {
        let mut args = args.to_vec();
        args.extend(["--format", "json"]);
        let output = self.sandbox.run(&args);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{args:?}: {}{}",
            text(&output.stdout),
            text(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
            panic!(
                "{args:?}: not one JSON document ({error}): {}",
                text(&output.stdout)
            )
        })
    }

    fn run(&self, args: &[&str], code: i32) -> (String, String) {
        let output = self.sandbox.run(args);
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert_eq!(
            output.status.code(),
            Some(code),
            "{args:?}: {stdout}{stderr}"
        );
        (stdout, stderr)
    }
}

/// The `status` of each package of a tree document, by its folder's name.
fn statuses(document: &Value) -> Vec<(String, String)> {
    document["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| {
            let path = package["path"].as_str().unwrap();
            (
                path.rsplit('/').next().unwrap().to_owned(),
                package["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn count(document: &Value, status: &str) -> usize {
    statuses(document)
        .iter()
        .filter(|(_, found)| found == status)
        .count()
}

/// Appends a line to a package's README: content that moved, version that did not.
fn edit(package: &Path) {
    let readme = package.join("README.md");
    let mut bytes = std::fs::read(&readme).unwrap();
    bytes.extend_from_slice(b"\nA late edit.\n");
    std::fs::write(readme, bytes).unwrap();
}

fn version_of(package: &Path) -> String {
    let text = std::fs::read_to_string(package.join("expert-squad.jsonc")).unwrap();
    squad::version::locate_in_manifest(&text).unwrap().1
}

/// Issue 25's acceptance: a tree of 20 corpus packages published; one edited without a bump
/// is named by `version check` (exit 1); `version bump --changed` bumps exactly it and a second
/// run changes nothing; publishing again pushes one package and reports 19 unchanged.
#[test]
fn a_tree_of_twenty_corpus_squads_publishes_what_changed_and_versions_move_with_bytes() {
    let Some(corpus) = corpus() else {
        return;
    };
    let registry = Registry::start(Auth::None);
    let run = Run::new();
    let tree = run.tree();
    let names = corpus_tree(&corpus, &tree, 20);
    let base = registry.oci("squads");
    let tree_arg = tree.to_str().unwrap();

    let published = run.json(&["publish", tree_arg, &base], 0);
    assert_eq!(published["type"], "publish-tree");
    assert_eq!(published["status"], "ok");
    assert_eq!(statuses(&published).len(), 20);
    assert_eq!(count(&published, "pushed"), 20, "{published}");
    for package in published["packages"].as_array().unwrap() {
        let reference = package["reference"].as_str().unwrap();
        assert!(
            reference.starts_with(&format!(
                "{base}/{}/{}@sha256:",
                package["namespace"].as_str().unwrap(),
                package["id"].as_str().unwrap()
            )),
            "{reference}"
        );
    }
    let checked = run.json(&["version", "check", tree_arg, "--registry", &base], 0);
    assert_eq!(count(&checked, "ok"), 20, "{checked}");

    // One package edited without a bump: named, exit 1, nothing changed.
    let edited = tree.join(&names[7]);
    edit(&edited);
    let before = contents(&tree);
    let (_, stderr) = run.run(&["version", "check", tree_arg, "--registry", &base], 1);
    assert!(
        stderr.contains(&format!("{}: builtin/{} ", edited.display(), names[7]))
            && stderr.contains("the bytes moved since it was published, but its version did not"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("error:").count(), 1, "{stderr}");
    let checked = run.json(&["version", "check", tree_arg, "--registry", &base], 1);
    assert_eq!(
        statuses(&checked)
            .into_iter()
            .filter(|(_, status)| status != "ok")
            .collect::<Vec<_>>(),
        vec![(names[7].clone(), "unbumped".to_owned())]
    );
    assert_eq!(contents(&tree), before, "version check writes nothing");

    // A publish now would overwrite a version with other bytes: refused as a whole.
    let storage = listing(registry.dir.path());
    let refused = run.json(&["publish", tree_arg, &base], 1);
    assert_eq!(refused["status"], "refused");
    assert_eq!(count(&refused, "failed"), 1, "{refused}");
    assert_eq!(count(&refused, "unchanged"), 19, "{refused}");
    assert_eq!(listing(registry.dir.path()), storage, "nothing was pushed");

    // `version bump --changed` against the registry bumps exactly the edited one.
    let bumped = run.json(
        &[
            "version",
            "bump",
            "--changed",
            tree_arg,
            "--registry",
            &base,
        ],
        0,
    );
    assert_eq!(bumped["summary"]["bumped"], 1, "{bumped}");
    assert_eq!(
        statuses(&bumped)
            .into_iter()
            .filter(|(_, status)| status != "unchanged")
            .collect::<Vec<_>>(),
        vec![(names[7].clone(), "bumped".to_owned())]
    );
    assert_eq!(version_of(&edited), "2026.12.01.1");
    let after_bump = contents(&tree);
    let again = run.json(
        &[
            "version",
            "bump",
            "--changed",
            tree_arg,
            "--registry",
            &base,
        ],
        0,
    );
    assert_eq!(again["summary"]["bumped"], 0, "{again}");
    assert_eq!(count(&again, "unchanged"), 19, "{again}");
    assert_eq!(count(&again, "ahead"), 1, "{again}");
    assert_eq!(contents(&tree), after_bump, "a second run changes nothing");
    run.json(&["version", "check", tree_arg, "--registry", &base], 0);

    // Publishing again pushes one package; 19 are unchanged, which is no error.
    let republished = run.json(&["publish", tree_arg, &base], 0);
    assert_eq!(count(&republished, "pushed"), 1, "{republished}");
    assert_eq!(count(&republished, "unchanged"), 19, "{republished}");
    assert_eq!(republished["summary"]["pushed"], 1);
    assert_eq!(republished["summary"]["unchanged"], 19);
    let (stdout, _) = run.run(&["publish", tree_arg, &base], 0);
    assert_eq!(
        stdout.lines().count(),
        20,
        "one pinned reference per package: {stdout}"
    );
}

/// The versions record: `bump --changed` records the tree, stamps exactly what moved under the
/// recorded version, and a second run changes nothing; `check` holds the tree to it.
#[test]
fn the_versions_record_stamps_exactly_what_moved_and_a_second_run_changes_nothing() {
    let run = Run::new();
    let tree = run.tree();
    template_tree(&tree);
    let tree_arg = tree.to_str().unwrap();
    let record = tree.join("squad-versions.json");

    let first = run.json(&["version", "bump", "--changed", tree_arg], 0);
    assert_eq!(count(&first, "new"), 3, "{first}");
    assert!(first["record_written"].as_bool().unwrap());
    assert!(record.is_file());
    run.json(&["version", "check", tree_arg], 0);

    edit(&tree.join("minimal"));
    let before = contents(&tree);
    let checked = run.json(&["version", "check", tree_arg], 1);
    assert_eq!(
        statuses(&checked)
            .into_iter()
            .filter(|(_, status)| status != "ok")
            .collect::<Vec<_>>(),
        vec![("minimal".to_owned(), "unbumped".to_owned())]
    );
    assert_eq!(contents(&tree), before, "version check writes nothing");

    let dry = run.json(&["version", "bump", "--changed", tree_arg, "--dry-run"], 0);
    assert_eq!(dry["summary"]["bumped"], 1);
    assert_eq!(contents(&tree), before, "a dry run writes nothing");

    let bumped = run.json(&["version", "bump", "--changed", tree_arg], 0);
    assert_eq!(
        statuses(&bumped),
        vec![
            ("delivery".to_owned(), "unchanged".to_owned()),
            ("minimal".to_owned(), "bumped".to_owned()),
            ("planner-parallel".to_owned(), "unchanged".to_owned()),
        ]
    );
    assert_eq!(version_of(&tree.join("minimal")), "2026.12.01.1");
    assert_eq!(version_of(&tree.join("delivery")), "2026.11.30.1");
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert!(
        recorded.contains("\"example/minimal\": { \"version\": \"2026.12.01.1\""),
        "{recorded}"
    );
    let after = contents(&tree);
    let again = run.json(&["version", "bump", "--changed", tree_arg], 0);
    assert_eq!(count(&again, "unchanged"), 3, "{again}");
    assert!(!again["record_written"].as_bool().unwrap());
    assert_eq!(contents(&tree), after, "a second run changes nothing");
    run.json(&["version", "check", tree_arg], 0);

    // A version bumped by hand is not yet recorded: check says so, bump --changed records it.
    let manifest = tree.join("delivery/expert-squad.jsonc");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("2026.11.30.1", "2026.11.30.2")).unwrap();
    let checked = run.json(&["version", "check", tree_arg], 1);
    assert!(
        statuses(&checked).contains(&("delivery".to_owned(), "unrecorded".to_owned())),
        "{checked}"
    );
    let recorded = run.json(&["version", "bump", "--changed", tree_arg], 0);
    assert!(
        statuses(&recorded).contains(&("delivery".to_owned(), "ahead".to_owned())),
        "{recorded}"
    );
    run.json(&["version", "check", tree_arg], 0);

    // A folder removed from the tree drops out of the record.
    std::fs::remove_dir_all(tree.join("planner-parallel")).unwrap();
    let dropped = run.json(&["version", "bump", "--changed", tree_arg], 0);
    assert_eq!(
        dropped["dropped"],
        serde_json::json!(["example/planner-parallel"])
    );
}

/// A record is a claim: one squad did not write (a key given twice, a digest that is not
/// one) is refused with its place, and nothing is written.
#[test]
fn a_versions_record_squad_did_not_write_is_refused_and_nothing_changes() {
    let run = Run::new();
    let tree = run.tree();
    template_tree(&tree);
    let tree_arg = tree.to_str().unwrap();
    run.json(&["version", "bump", "--changed", tree_arg], 0);
    let record = tree.join("squad-versions.json");
    let text = std::fs::read_to_string(&record).unwrap();
    let line = text
        .lines()
        .find(|line| line.contains("example/minimal"))
        .unwrap()
        .to_owned();
    let doubled = text.replacen(&line, &format!("{line}\n{line}"), 1);
    std::fs::write(&record, &doubled).unwrap();
    edit(&tree.join("minimal"));
    let before = contents(&tree);
    for args in [
        vec!["version", "bump", "--changed", tree_arg],
        vec!["version", "check", tree_arg],
    ] {
        let (_, stderr) = run.run(&args, 1);
        assert!(
            stderr.contains(&format!(
                "`{}`:7:5: `example/minimal` is given twice",
                record.display()
            )),
            "{stderr}"
        );
        assert_eq!(contents(&tree), before, "{args:?} changed the tree");
    }
    let forged = text.replace(
        &line,
        "    \"example/minimal\": { \"version\": \"2026.11.30.1\", \"content_digest\": \"not-a-digest\" },",
    );
    std::fs::write(&record, &forged).unwrap();
    let (_, stderr) = run.run(&["version", "bump", "--changed", tree_arg], 1);
    assert!(
        stderr.contains("content_digest is not 64 lowercase hex"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&record).unwrap(), forged);
}

/// A tree with an invalid package is not published: nothing is pushed, and the valid packages
/// are reported as not pushed.
#[test]
fn a_tree_with_an_invalid_package_pushes_nothing() {
    let registry = Registry::start(Auth::None);
    let run = Run::new();
    let tree = run.tree();
    template_tree(&tree);
    std::fs::remove_file(tree.join("minimal/README.md")).unwrap();
    let base = registry.oci("squads");
    let storage = listing(registry.dir.path());
    let refused = run.json(&["publish", tree.to_str().unwrap(), &base], 1);
    assert_eq!(refused["status"], "refused");
    assert_eq!(
        statuses(&refused),
        vec![
            ("delivery".to_owned(), "not-pushed".to_owned()),
            ("minimal".to_owned(), "failed".to_owned()),
            ("planner-parallel".to_owned(), "not-pushed".to_owned()),
        ]
    );
    assert_eq!(listing(registry.dir.path()), storage, "nothing was pushed");
    let (_, stderr) = run.run(&["publish", tree.to_str().unwrap(), &base], 1);
    assert!(stderr.contains("nothing was pushed"), "{stderr}");

    // Two folders of one squad: refused too.
    std::fs::remove_dir_all(tree.join("minimal")).unwrap();
    copy_tree(&template("delivery"), &tree.join("delivery-again"));
    let refused = run.json(&["publish", tree.to_str().unwrap(), &base], 1);
    assert!(
        refused["packages"][1]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("is also the squad in"),
        "{refused}"
    );
    assert_eq!(listing(registry.dir.path()), storage, "nothing was pushed");
}

/// `pack` and `digest` take a tree: one archive, one digest line per package.
#[test]
fn pack_and_digest_take_a_tree() {
    let run = Run::new();
    let tree = run.tree();
    let names = template_tree(&tree);
    let tree_arg = tree.to_str().unwrap();
    let dist = run.sandbox.root.join("dist");
    let packed = run.json(&["pack", tree_arg, "-o", dist.to_str().unwrap()], 0);
    assert_eq!(packed["type"], "pack-tree");
    assert_eq!(count(&packed, "packed"), 3);
    let (stdout, _) = run.run(&["digest", tree_arg], 0);
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    for (line, name) in stdout.lines().zip(&names) {
        let (digest, path) = line.split_once("  ").unwrap();
        assert_eq!(path, tree.join(name).display().to_string());
        let archive = packed["packages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|package| package["id"] == name.as_str())
            .unwrap();
        assert_eq!(archive["package_digest"], digest);
    }
    // Packing again refuses to overwrite each archive (exit 2), and writes nothing.
    let before = contents(&dist);
    run.run(&["pack", tree_arg, "-o", dist.to_str().unwrap()], 2);
    assert_eq!(contents(&dist), before);
}
