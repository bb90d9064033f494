//! Installed packages by name, with the real binary: replacing (the exact command, `--replace`,
//! a repair), uninstalling a package changed since its install, `namespace/id` or `id` for
//! `activate`, `uninstall` and `verify`, what `list` marks and says, and the archive's
//! versioned name.

use std::fs;
use std::path::{Path, PathBuf};

use crate::install::Sandbox;
use crate::support::{copy_tree, fixtures, text};

const MINIMAL: &str = "acme/minimal-squad";

/// A copy of `valid/minimal` at `<sandbox>/<name>` with `version`, optionally with README
/// bytes added.
fn minimal(sandbox: &Sandbox, name: &str, version: &str, readme_extra: &str) -> PathBuf {
    let path = sandbox.root.join(name);
    copy_tree(&fixtures().join("valid/minimal"), &path);
    let manifest = path.join("expert-squad.jsonc");
    let manifest_text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        manifest_text.replace("\"2026.08.20.1\"", &format!("\"{version}\"")),
    )
    .unwrap();
    if !readme_extra.is_empty() {
        let mut readme = fs::read_to_string(path.join("README.md")).unwrap();
        readme.push_str(readme_extra);
        fs::write(path.join("README.md"), readme).unwrap();
    }
    path
}

fn ok(output: &std::process::Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stderr)
}

fn scratch(sandbox: &Sandbox) -> PathBuf {
    sandbox
        .root
        .join("project/.opencorvus/expert-squad-staging")
}

fn project(sandbox: &Sandbox) -> PathBuf {
    sandbox.root.join("project").canonicalize().unwrap()
}

#[test]
fn a_refused_replacement_names_the_installed_version_and_the_command_that_replaces_it() {
    let sandbox = Sandbox::in_project();
    minimal(&sandbox, "v1", "2026.08.20.1", "");
    minimal(&sandbox, "v2", "2026.08.20.2", "");
    ok(&sandbox.run(&["install", "../v1", "--scope", "project"]));
    let d1 = sandbox.digest(&sandbox.target("acme", "minimal-squad"));
    let output = sandbox.run(&["install", "../v2", "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1));
    let command = format!("squad install ../v2 --scope project --expect {d1}");
    assert_eq!(
        text(&output.stderr),
        format!(
            "error: {MINIMAL} 2026.08.20.1 is installed in this project; to replace it: `{command}`\n\
             hint: `--replace` replaces whatever version is installed, in one step\n"
        )
    );
    // The command it gives is the one that works.
    let words: Vec<&str> = command.split(' ').skip(1).collect();
    let stderr = ok(&sandbox.run(&words));
    assert!(stderr.contains("Replaced acme/minimal-squad 2026.08.20.1 -> 2026.08.20.2"));
    // A stale expectation says what is there now, and how to replace that.
    let d2 = sandbox.digest(&sandbox.target("acme", "minimal-squad"));
    let output = sandbox.run(&[
        "install",
        "../v1",
        "--scope",
        "project",
        "--project",
        ".",
        "--expect",
        &d1,
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "error: {MINIMAL} 2026.08.20.2 is installed in this project with package digest {d2}, not the expected {d1}; nothing was installed\n\
             hint: it changed since its digest was read; to replace what is installed now: `squad install ../v1 --scope project --project . --expect {d2}`\n"
        )
    );
    // Nothing installed, yet an expectation: the command without it.
    fs::create_dir(sandbox.root.join("other")).unwrap();
    let output = sandbox.run(&[
        "install",
        "../v1",
        "--scope",
        "project",
        "--project",
        "../other",
        "--expect",
        &d1,
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "error: {MINIMAL} is not installed in this project, but its package digest {d1} was expected; nothing was installed\n\
             hint: to install it: `squad install ../v1 --scope project --project ../other`\n"
        )
    );
    // Paths a shell would split are quoted.
    let spaced = sandbox.root.join("my squad");
    copy_tree(&sandbox.root.join("v1"), &spaced);
    let output = sandbox.run(&["install", "../my squad", "--scope", "project"]);
    assert!(
        text(&output.stderr).contains("`squad install '../my squad' --scope project --expect "),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn replace_takes_the_installed_digest_and_reports_old_and_new_versions() {
    let sandbox = Sandbox::in_project();
    let v1 = minimal(&sandbox, "v1", "2026.08.20.1", "");
    let v2 = minimal(&sandbox, "v2", "2026.08.20.2", "");
    let target = sandbox.target("acme", "minimal-squad");
    let install = |source: &Path, extra: &[&str]| {
        let mut args = vec!["install", source.to_str().unwrap(), "--scope", "project"];
        args.extend_from_slice(extra);
        sandbox.run(&args)
    };
    // Nothing installed: --replace installs.
    let stderr = ok(&install(&v1, &["--replace"]));
    assert!(stderr.contains("Installed acme/minimal-squad 2026.08.20.1 at"));
    let d1 = sandbox.digest(&target);
    let output = install(&v2, &["--replace", "--format", "json"]);
    let stderr = ok(&output);
    assert_eq!(stderr, "", "no warning: the version changed");
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let d2 = sandbox.digest(&target);
    assert_eq!(document["operation"], "replaced");
    assert_eq!(document["scope"], "project");
    assert_eq!(document["before_version"], "2026.08.20.1");
    assert_eq!(document["version"], "2026.08.20.2");
    assert_eq!(document["before"], d1.as_str());
    assert_eq!(document["after"], d2.as_str());
    assert_eq!(document["restored"], serde_json::Value::Null);
    // Back again, in human words: old -> new.
    let output = install(&v1, &["--replace"]);
    assert_eq!(
        ok(&output),
        format!(
            "    Replaced {MINIMAL} 2026.08.20.2 -> 2026.08.20.1 at {}\n",
            target.display()
        )
    );
    assert_eq!(text(&output.stdout), format!("{d1}\n"));
    // The same bytes again are unchanged, --replace or not.
    assert!(ok(&install(&v1, &["--replace"])).contains("Unchanged"));
    // --replace and --expect are one or the other.
    let output = install(&v2, &["--replace", "--expect", &d1]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("cannot be used with"));
    assert_eq!(sandbox.digest(&target), d1);
}

#[test]
fn repairing_a_modified_install_restores_it_without_a_version_warning() {
    let sandbox = Sandbox::in_project();
    let v1 = minimal(&sandbox, "v1", "2026.08.20.1", "");
    let target = sandbox.target("acme", "minimal-squad");
    ok(&sandbox.run(&["install", v1.to_str().unwrap(), "--scope", "project"]));
    let d1 = sandbox.digest(&target);
    fs::write(target.join("README.md"), "# edited in place\n").unwrap();
    fs::write(target.join("notes.md"), "mine\n").unwrap();
    // (Not a valid package folder any more, so its digest is the raw one `list` shows.)
    let list = sandbox.run(&["list", "--scope", "project", "--format", "json"]);
    let list: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    let edited = list["packages"][0]["package_digest"]
        .as_str()
        .unwrap()
        .to_owned();
    // Without --replace: what changed, and the command that restores it.
    let output = sandbox.run(&["install", "../v1", "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "error: {MINIMAL} 2026.08.20.1 is installed in this project with 2 files changed since it was installed; to restore it: `squad install ../v1 --scope project --expect {edited}`\n\
             hint: `squad verify {MINIMAL} --scope project` names the changed files; `--replace` restores whatever is installed, in one step\n"
        )
    );
    let output = sandbox.run(&[
        "install",
        v1.to_str().unwrap(),
        "--scope",
        "project",
        "--replace",
    ]);
    assert_eq!(
        ok(&output),
        format!(
            "    Restored {MINIMAL} 2026.08.20.1 at {} (2 files changed since it was installed)\n",
            target.display()
        ),
        "a repair is not a new version: no warning"
    );
    assert_eq!(sandbox.digest(&target), d1);
    let output = sandbox.run(&[
        "install",
        v1.to_str().unwrap(),
        "--scope",
        "project",
        "--replace",
        "--format",
        "json",
    ]);
    assert!(ok(&output).is_empty());
    ok(&sandbox.run(&["verify", MINIMAL]));
    // JSON names what a repair put back.
    fs::write(target.join("README.md"), "# again\n").unwrap();
    let output = sandbox.run(&[
        "install",
        v1.to_str().unwrap(),
        "--scope",
        "project",
        "--replace",
        "--format",
        "json",
    ]);
    ok(&output);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        document["restored"],
        serde_json::json!([{ "kind": "changed", "path": "README.md" }])
    );
    // Other bytes under the same version still get the warning.
    let changed = minimal(&sandbox, "changed", "2026.08.20.1", "more\n");
    let stderr = ok(&sandbox.run(&[
        "install",
        changed.to_str().unwrap(),
        "--scope",
        "project",
        "--replace",
    ]));
    assert!(
        stderr.contains("warning: the package changed but its version `2026.08.20.1` did not"),
        "{stderr}"
    );
}

#[test]
fn uninstall_keeps_a_modified_install_unless_forced_and_lists_the_changes() {
    let sandbox = Sandbox::in_project();
    let v1 = minimal(&sandbox, "v1", "2026.08.20.1", "");
    let target = sandbox.target("acme", "minimal-squad");
    ok(&sandbox.run(&["install", v1.to_str().unwrap(), "--scope", "project"]));
    fs::write(target.join("README.md"), "# edited in place\n").unwrap();
    fs::write(target.join("notes.md"), "mine\n").unwrap();
    fs::remove_file(target.join("selector.md")).unwrap();
    let before = crate::install::listing(&target);
    let output = sandbox.run(&["uninstall", MINIMAL, "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        format!(
            "error: {MINIMAL} 2026.08.20.1 at `{}` has 3 files changed since it was installed; nothing was removed\n \
             changed  README.md\n   \
             added  notes.md\n \
             removed  selector.md\n\
             hint: pass --force to remove it with these changes, or copy what you need first\n",
            target.display()
        )
    );
    assert_eq!(crate::install::listing(&target), before);
    assert_eq!(
        fs::read_to_string(target.join("notes.md")).unwrap(),
        "mine\n"
    );
    let output = sandbox.run(&["uninstall", MINIMAL, "--scope", "project", "--force"]);
    assert_eq!(
        ok(&output),
        format!(
            "     Removed {MINIMAL} 2026.08.20.1 from {}\n\
             warning: discarded the changes made since the install to README.md, notes.md, selector.md\n",
            target.display()
        )
    );
    assert!(!target.exists());
    // An unmodified install goes without --force.
    ok(&sandbox.run(&["install", v1.to_str().unwrap(), "--scope", "project"]));
    let stderr = ok(&sandbox.run(&["uninstall", MINIMAL, "--scope", "project"]));
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn activate_uninstall_and_verify_take_namespace_and_id_or_the_id() {
    let sandbox = Sandbox::in_project();
    let v1 = minimal(&sandbox, "v1", "2026.08.20.1", "");
    let project = project(&sandbox);
    let config = project.join(".opencorvus/opencorvus.jsonc");
    ok(&sandbox.run(&["install", v1.to_str().unwrap(), "--scope", "project"]));
    // activate: namespace/id, or the id; the status line names what the runtime will load.
    for name in [MINIMAL, "minimal-squad"] {
        assert_eq!(
            ok(&sandbox.run(&["activate", name])),
            format!(
                "   Activated {MINIMAL} 2026.08.20.1 (project) in {}\n",
                config.display()
            )
        );
    }
    let output = sandbox.run(&["activate", "other/minimal-squad"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "error: `other/minimal-squad` is not installed; `acme/minimal-squad` is (an id is unique in a scope)\n"
    );
    let output = sandbox.run(&["activate", "minimal-squad", "--scope", "global"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "error: `minimal-squad` is not installed globally\nhint: install it first with `squad install`\n"
    );
    // A misspelt id: the installed (or built-in) id it most likely meant.
    let output = sandbox.run(&["activate", "minimal-sqaud"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        "error: `minimal-sqaud` is not installed in this project or globally\nhint: did you mean `minimal-squad`?\n"
    );
    let output = sandbox.run(&["activate", "advanced-x"]);
    assert_eq!(
        text(&output.stderr),
        "error: `advanced-x` is not installed in this project or globally\nhint: did you mean `advanced`?\n"
    );
    assert_eq!(
        ok(&sandbox.run(&["activate", "base"])),
        format!("   Activated base (built in) in {}\n", config.display())
    );
    // From another directory, with --project.
    let elsewhere = sandbox.root.join("home");
    let output = sandbox
        .command(&[
            "activate",
            MINIMAL,
            "--project",
            project.to_str().unwrap(),
            "--scope",
            "project",
        ])
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    ok(&output);
    // verify: by name, against the install receipt.
    let target = sandbox.target("acme", "minimal-squad");
    for args in [
        vec!["verify", MINIMAL],
        vec!["verify", "minimal-squad", "--scope", "project"],
    ] {
        assert_eq!(
            ok(&sandbox.run(&args)),
            format!(
                "    Verified {MINIMAL} 2026.08.20.1 (project): package digest {}\n",
                sandbox.digest(&target)
            )
        );
    }
    let output = sandbox
        .command(&[
            "verify",
            "minimal-squad",
            "--project",
            project.to_str().unwrap(),
            "--format",
            "json",
        ])
        .current_dir(&elsewhere)
        .output()
        .unwrap();
    ok(&output);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["package"], MINIMAL);
    assert_eq!(document["scope"], "project");
    assert_eq!(document["unchanged"], true);
    fs::write(target.join("README.md"), "# edited\n").unwrap();
    let output = sandbox.run(&["verify", "minimal-squad"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stdout), " changed  README.md\n");
    let output = sandbox.run(&["verify", "other/minimal-squad"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        "error: `other/minimal-squad` is not installed in this scope; `acme/minimal-squad` is (an id is unique in a scope)\n"
    );
    let output = sandbox.run(&["verify", "minimal-squad", "--scope", "global"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        "error: `minimal-squad`: not installed in the global scope\nhint: `squad list` shows what is installed\n"
    );
    // A path that exists is a path; one that does not, and is no name, is said not to exist.
    let output = sandbox.run(&["verify", "no/such/dir"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        "error: `no/such/dir` does not exist\nhint: name a package folder or archive, or an installed package as `squad list` prints it\n"
    );
    // uninstall: a wrong namespace removes nothing; the right name does, forced past the edit.
    let output = sandbox.run(&["uninstall", "other/minimal-squad", "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(target.exists());
    let output = sandbox.run(&["uninstall", "./minimal-squad", "--scope", "project"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).starts_with(
            "error: `./minimal-squad` is not a package name (`namespace/id` or `id`): "
        ),
        "{}",
        text(&output.stderr)
    );
    ok(&sandbox.run(&["uninstall", MINIMAL, "--scope", "project", "--force"]));
    assert!(!target.exists());
    // The global scope, by id.
    ok(&sandbox.run(&["install", v1.to_str().unwrap(), "--scope", "global"]));
    ok(&sandbox.run(&["verify", "minimal-squad", "--scope", "global"]));
    let stderr = ok(&sandbox.run(&["activate", MINIMAL]));
    assert!(stderr.contains("(global)"), "{stderr}");
    ok(&sandbox.run(&["uninstall", "minimal-squad", "--scope", "global"]));
}

#[test]
fn list_marks_the_active_and_modified_packages_says_when_empty_and_names_its_project() {
    let sandbox = Sandbox::in_project();
    let project = project(&sandbox);
    let output = sandbox.run(&["list"]);
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        ok(&output),
        format!(
            "no packages installed in project `{}` or in the global scope\n",
            project.display()
        )
    );
    assert_eq!(
        ok(&sandbox.run(&["list", "--scope", "global"])),
        "no packages installed in the global scope\n"
    );
    let output = sandbox.run(&["list", "--format", "json"]);
    ok(&output);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        document,
        serde_json::json!({
            "schema_version": 1,
            "type": "list",
            "project": project,
            "active": null,
            "packages": [],
        })
    );
    // A project install (selected, then edited) and a global one of another id.
    let local = minimal(&sandbox, "local", "2026.08.20.1", "");
    let global = sandbox.package("valid/release-review", "global", "");
    ok(&sandbox.run(&["install", global.to_str().unwrap(), "--scope", "global"]));
    ok(&sandbox.run(&["install", local.to_str().unwrap(), "--scope", "project"]));
    ok(&sandbox.run(&["activate", MINIMAL]));
    let target = sandbox.target("acme", "minimal-squad");
    let global_target = sandbox
        .root
        .join("home/opencorvus/config/expert-squads/acme/release-review");
    let (local_digest, global_digest) = (sandbox.digest(&target), sandbox.digest(&global_target));
    let output = sandbox.run(&["list"]);
    assert_eq!(
        text(&output.stdout),
        format!(
            "project  {MINIMAL} 2026.08.20.1 {local_digest} (active)\n\
             global   acme/release-review 2026.11.30.1 {global_digest}\n"
        )
    );
    assert_eq!(ok(&output), "");
    fs::write(target.join("README.md"), "# edited\n").unwrap();
    let edited = sandbox.digest(&target);
    let output = sandbox.run(&["list"]);
    assert_eq!(
        text(&output.stdout),
        format!(
            "project  {MINIMAL} 2026.08.20.1 {edited} (active, modified)\n\
             global   acme/release-review 2026.11.30.1 {global_digest}\n"
        )
    );
    assert_eq!(
        ok(&output),
        format!(
            "note: {MINIMAL} (project) has 1 file changed since it was installed; `squad verify {MINIMAL} --scope project` names them\n"
        )
    );
    let output = sandbox.run(&["list", "--format", "json"]);
    ok(&output);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["project"], project.to_str().unwrap());
    assert_eq!(document["active"], "minimal-squad");
    let packages = document["packages"].as_array().unwrap();
    assert_eq!(packages.len(), 2);
    assert_eq!(packages[0]["scope"], "project");
    assert_eq!(packages[0]["active"], true);
    assert_eq!(packages[0]["modified"], true);
    assert_eq!(
        packages[0]["changes"],
        serde_json::json!([{ "kind": "changed", "path": "README.md" }])
    );
    assert_eq!(packages[1]["scope"], "global");
    assert_eq!(packages[1]["active"], false);
    assert_eq!(packages[1]["modified"], false);
    assert_eq!(packages[1]["changes"], serde_json::json!([]));
    // The global scope alone reads no project, unless one is named.
    let output = sandbox.run(&["list", "--scope", "global", "--format", "json"]);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["project"], serde_json::Value::Null);
    assert_eq!(document["packages"].as_array().unwrap().len(), 1);
    // The global package selected: active there, unless the project has the id.
    ok(&sandbox.run(&["activate", "acme/release-review"]));
    let output = sandbox.run(&[
        "list",
        "--scope",
        "global",
        "--project",
        project.to_str().unwrap(),
    ]);
    assert_eq!(
        text(&output.stdout),
        format!("global   acme/release-review 2026.11.30.1 {global_digest} (active)\n")
    );
    // A package another tool installed has no receipt: not said to be modified.
    let other = sandbox.packages_root().join("acme/hand-made");
    copy_tree(&fixtures().join("valid/minimal"), &other);
    let manifest = other.join("expert-squad.jsonc");
    let manifest_text = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        manifest_text.replace("\"minimal-squad\"", "\"hand-made\""),
    )
    .unwrap();
    let output = sandbox.run(&["list", "--scope", "project", "--format", "json"]);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["packages"][0]["id"], "hand-made");
    assert_eq!(document["packages"][0]["modified"], serde_json::Value::Null);
}

#[test]
fn no_empty_scratch_directory_is_left_behind() {
    let sandbox = Sandbox::in_project();
    let v1 = minimal(&sandbox, "v1", "2026.08.20.1", "");
    let v2 = minimal(&sandbox, "v2", "2026.08.20.2", "");
    let source = |path: &Path| path.to_str().unwrap().to_owned();
    for args in [
        vec![
            "install".to_owned(),
            source(&v1),
            "--scope".into(),
            "project".into(),
        ],
        // Refused: a conflict.
        vec![
            "install".to_owned(),
            source(&v2),
            "--scope".into(),
            "project".into(),
        ],
        vec![
            "install".to_owned(),
            source(&v2),
            "--scope".into(),
            "project".into(),
            "--replace".into(),
        ],
        vec!["list".to_owned()],
        vec![
            "uninstall".to_owned(),
            MINIMAL.into(),
            "--scope".into(),
            "project".into(),
        ],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        sandbox.run(&args);
        assert!(
            !scratch(&sandbox).exists(),
            "after `squad {}`",
            args.join(" ")
        );
    }
    // One that holds something is kept.
    fs::create_dir_all(scratch(&sandbox).join("kept-by-another-tool")).unwrap();
    ok(&sandbox.run(&["install", &source(&v1), "--scope", "project"]));
    assert!(scratch(&sandbox).join("kept-by-another-tool").is_dir());
}

/// Installs of different ids into one project at once share its scratch directory; each that
/// finishes removes it when it is empty, and none may lose it under another.
#[test]
fn concurrent_installs_of_different_ids_share_the_scratch_directory() {
    let sandbox = Sandbox::in_project();
    let packages: Vec<(String, PathBuf)> = (0..4)
        .map(|index| {
            let id = format!("squad-{index}");
            let path = sandbox.root.join(&id);
            copy_tree(&fixtures().join("valid/minimal"), &path);
            let manifest = path.join("expert-squad.jsonc");
            let manifest_text = fs::read_to_string(&manifest).unwrap();
            fs::write(
                &manifest,
                manifest_text.replace("\"minimal-squad\"", &format!("\"{id}\"")),
            )
            .unwrap();
            (id, path)
        })
        .collect();
    let mut rounds = 0;
    for _ in 0..5 {
        let children: Vec<_> = packages
            .iter()
            .map(|(_, path)| {
                sandbox
                    .command(&["install", path.to_str().unwrap(), "--scope", "project"])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().unwrap();
            assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        }
        let children: Vec<_> = packages
            .iter()
            .map(|(id, _)| {
                sandbox
                    .command(&["uninstall", id, "--scope", "project"])
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().unwrap();
            assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        }
        assert!(!scratch(&sandbox).exists());
        rounds += 1;
    }
    assert_eq!(rounds, 5);
}

#[test]
fn pack_writes_the_versioned_name_in_the_directory_given() {
    let sandbox = Sandbox::in_project();
    let package = minimal(&sandbox, "pkg", "2026.08.20.1", "");
    let name = "minimal-squad-2026.08.20.1-expert-squad.zip";
    let cwd = sandbox.root.join("project");
    // The default: here.
    let stderr = ok(&sandbox.run(&["pack", package.to_str().unwrap()]));
    assert!(stderr.ends_with(&format!(" to {name}\n")), "{stderr}");
    assert!(cwd.join(name).is_file());
    // -o DIR/: inside it, created; an existing directory without the slash too.
    let stderr = ok(&sandbox.run(&["pack", package.to_str().unwrap(), "-o", "dist/"]));
    assert!(stderr.ends_with(&format!(" to dist/{name}\n")), "{stderr}");
    assert!(cwd.join("dist").join(name).is_file());
    let output = sandbox.run(&["pack", package.to_str().unwrap(), "-o", "dist"]);
    assert_eq!(output.status.code(), Some(2), "an existing archive is kept");
    assert!(text(&output.stderr).contains(&format!("output `dist/{name}` already exists")));
    // Another release gets its own file beside it.
    let next = minimal(&sandbox, "next", "2026.08.20.2", "");
    ok(&sandbox.run(&["pack", next.to_str().unwrap(), "-o", "dist"]));
    let mut names: Vec<String> = fs::read_dir(cwd.join("dist"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [name, "minimal-squad-2026.08.20.2-expert-squad.zip"]);
    // The name is also the title of the layer a registry holds.
    let (_, artifact) = squad::share::prepare(&package).unwrap();
    assert_eq!(
        artifact.layer().annotations.as_ref().unwrap()["org.opencontainers.image.title"],
        name
    );
}

#[test]
fn install_help_says_output_format_once() {
    let sandbox = Sandbox::in_project();
    let output = sandbox.run(&["install", "--help"]);
    let help = text(&output.stdout);
    assert_eq!(help.matches("Output format").count(), 1, "{help}");
    assert!(help.contains("--replace"));
}

/// A registry install is extracted from memory: nothing of the download reaches `<R>/tmp`, and
/// a download file an earlier version left there after a crash goes at the next install. A
/// pull into a directory gets the versioned name.
#[test]
fn a_registry_install_writes_no_download_file_and_stale_ones_are_removed() {
    use crate::oci_support::{Auth, Registry};
    let registry = Registry::start(Auth::None);
    let sandbox = crate::support::Sandbox::new();
    let package = crate::support::repo().join("templates/minimal");
    let output = sandbox.run(&[
        "publish",
        package.to_str().unwrap(),
        &registry.oci("squads"),
    ]);
    ok(&output);
    let reference = text(&output.stdout)
        .lines()
        .last()
        .unwrap()
        .trim()
        .to_owned();
    let tmp = sandbox.opencorvus().join("tmp");
    fs::create_dir_all(&tmp).unwrap();
    // A process that has ended, and this one (running: its file stays).
    let mut ended = std::process::Command::new("true").spawn().unwrap();
    let dead = ended.id();
    ended.wait().unwrap();
    let stale = tmp.join(format!(".squad-download.zip.tmp-{dead}-0"));
    let live = tmp.join(format!(".squad-download.zip.tmp-{}-0", std::process::id()));
    fs::write(&stale, "half a download").unwrap();
    fs::write(&live, "in progress").unwrap();
    let project = sandbox.project();
    ok(&sandbox.run(&[
        "install",
        &reference,
        "--scope",
        "project",
        "--project",
        project.to_str().unwrap(),
    ]));
    let left: Vec<String> = fs::read_dir(&tmp)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, [live.file_name().unwrap().to_string_lossy()]);
    // `pull -o DIR/` names the archive as `pack` does.
    let stderr = ok(&sandbox.run(&["pull", &reference, "-o", "pulled/"]));
    let name = "minimal-2026.11.30.1-expert-squad.zip";
    assert!(stderr.contains(&format!(" to pulled/{name}\n")), "{stderr}");
    assert!(sandbox.dir.path().join("pulled").join(name).is_file());
}
