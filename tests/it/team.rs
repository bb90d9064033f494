//! A team's loop through the real binary (issue 27): an author's package folder that is a git
//! repository, a consumer project in git (found from a subfolder, ignored where it must be,
//! merged on two branches), a CI machine that syncs by digest and reads exit codes, and the
//! small truths commands tell on the way.
//!
//! See: issue 27, "The team's loop: a project that lives in git, CI that never blocks on a
//! recoverable state, and commands that tell the truth".

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::registry::template;
use crate::support::{Sandbox, copy_tree, text};

fn code(output: &Output) -> Option<i32> {
    output.status.code()
}

fn stderr(output: &Output) -> String {
    text(&output.stderr)
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

fn path(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Every file below `root`, relative and sorted, with its bytes: a tree "exactly as it was"
/// compares equal.
fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let relative = entry.path().strip_prefix(root).unwrap();
            found.push((
                relative.to_string_lossy().into_owned(),
                std::fs::read(entry.path()).unwrap(),
            ));
        }
    }
    found
}

/// A copy of a template package that is the root of a git repository: a `.git` folder and the
/// files a repository keeps beside the package's.
fn package_in_git(dir: &Path) -> PathBuf {
    let package = dir.join("review");
    copy_tree(&template("minimal"), &package);
    std::fs::create_dir_all(package.join(".git/objects")).unwrap();
    std::fs::write(package.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(package.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    std::fs::write(package.join(".gitignore"), "*.zip\n").unwrap();
    std::fs::write(package.join(".gitattributes"), "* text=auto\n").unwrap();
    package
}

#[test]
fn a_package_folder_that_is_a_git_repository_is_validated_digested_packed_and_installed_without_its_metadata()
 {
    let sandbox = Sandbox::new();
    let package = package_in_git(sandbox.root.as_path());
    let plain = sandbox.root.join("plain");
    copy_tree(&template("minimal"), &plain);

    let output = sandbox.run(&["validate", path(&package)]);
    assert_code(&output, 0, "a package that is a git repository validates");
    let digest = |folder: &Path| {
        let output = sandbox.run(&["digest", path(folder)]);
        assert_code(&output, 0, "digest");
        text(&output.stdout).trim().to_owned()
    };
    assert_eq!(
        digest(&package),
        digest(&plain),
        "the repository's files are not part of the package digest"
    );

    let archive = sandbox.root.join("out/review.zip");
    std::fs::create_dir_all(archive.parent().unwrap()).unwrap();
    let output = sandbox.run(&["pack", path(&package), "-o", path(&archive)]);
    assert_code(&output, 0, "pack");
    let bytes = std::fs::read(&archive).unwrap();
    let read =
        squad::archive::reader::read_package(&bytes, &squad::archive::reader::Limits::REFERENCE)
            .unwrap();
    let names: Vec<&str> = read.files.iter().map(|(name, _)| name.as_str()).collect();
    assert!(names.iter().all(|name| !name.contains(".git")), "{names:?}");
    assert_eq!(digest(&archive), digest(&plain));

    let before = files(&package);
    let output = sandbox.run(&[
        "install",
        path(&package),
        "--scope",
        "project",
        "--project",
        path(&sandbox.project()),
    ]);
    assert_code(&output, 0, "install");
    let installed = sandbox
        .project()
        .join(".opencorvus/expert-squads/example/minimal");
    assert!(installed.join("expert-squad.jsonc").is_file());
    for name in [".git", ".gitignore", ".gitattributes"] {
        assert!(!installed.join(name).exists(), "{name} was installed");
    }
    assert_eq!(files(&package), before, "the package folder is untouched");
}

#[test]
fn validate_warns_about_what_pack_and_publish_refuse() {
    let sandbox = Sandbox::new();
    let package = sandbox.root.join("big");
    copy_tree(&template("minimal"), &package);
    let notes = package.join("skills");
    std::fs::create_dir_all(&notes).unwrap();
    // A skill with a reference of 5 MiB: over the reference's 4 MiB a file (LIM-2).
    let skill = notes.join("archive");
    std::fs::create_dir_all(skill.join("references")).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: archive\ndescription: Old notes.\n---\n\n# Archive\n",
    )
    .unwrap();
    std::fs::write(
        skill.join("references/log.txt"),
        vec![b'x'; 5 * 1024 * 1024],
    )
    .unwrap();
    let manifest = package.join("expert-squad.jsonc");
    let written = std::fs::read_to_string(&manifest).unwrap();
    let projected = written.replacen(
        "\"package_skill_refs\": []",
        "\"package_skill_refs\": [\"minimal/shared/archive\"]",
        1,
    );
    assert_ne!(projected, written, "the template projects no skill yet");
    std::fs::write(&manifest, projected).unwrap();

    let output = sandbox.run(&["validate", path(&package)]);
    assert_code(&output, 0, "a folder has no limits (LIM-1): valid");
    let message = stderr(&output);
    assert!(
        message.contains("warning[archive-limit]")
            && message.contains("skills/archive/references/log.txt")
            && message.contains("per-file limit"),
        "{message}"
    );
    let output = sandbox.run(&["validate", path(&package), "--deny-warnings"]);
    assert_code(&output, 1, "CI that denies warnings is red");
    let output = sandbox.run(&["validate", path(&package), "--format", "github"]);
    assert!(
        text(&output.stdout).contains("::warning file=")
            && text(&output.stdout).contains("title=squad archive-limit"),
        "{}",
        text(&output.stdout)
    );
    // What validate warned about is what pack refuses.
    let archive = sandbox.root.join("big.zip");
    let output = sandbox.run(&["pack", path(&package), "-o", path(&archive)]);
    assert_code(&output, 1, "pack refuses");
    assert!(
        stderr(&output).contains("per-file limit"),
        "{}",
        stderr(&output)
    );
    assert!(!archive.exists());
}

/// Makes `folder` a project that declares no squad, by hand (as `squad init` would, so an older
/// squad without `init` runs the same test up to what it is about).
fn declare_nothing(folder: &Path) {
    std::fs::create_dir_all(folder.join(".opencorvus")).unwrap();
    std::fs::write(
        folder.join(".opencorvus/squads.jsonc"),
        "// The squads this project uses.\n{\n  \"squads\": {\n  }\n}\n",
    )
    .unwrap();
}

/// Runs squad in the sandbox's environment, in `cwd`.
fn run_in(sandbox: &Sandbox, cwd: &Path, args: &[&str]) -> Output {
    sandbox.command(args).current_dir(cwd).output().unwrap()
}

/// Every path below `root`, sorted: "nothing else changed" compares equal.
fn paths(root: &Path) -> Vec<String> {
    // A root that is not there (yet) has no paths.
    let mut found: Vec<String> = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .map(|entry| entry.path().display().to_string())
        .collect();
    found.sort();
    found
}

#[test]
fn project_commands_find_the_project_from_a_subfolder_and_only_init_makes_one() {
    let sandbox = Sandbox::new();
    let app = sandbox.root.join("app");
    let deeper = app.join("src/deeper");
    std::fs::create_dir_all(&deeper).unwrap();
    copy_tree(&template("minimal"), &app.join("squads/minimal"));

    // No project anywhere above: add refuses, and makes none.
    let before = paths(&sandbox.root);
    let output = run_in(&sandbox, &deeper, &["add", "../../squads/minimal"]);
    assert_code(&output, 2, "add without a project");
    assert!(
        stderr(&output).contains("no project here") && stderr(&output).contains("squad init"),
        "{}",
        stderr(&output)
    );
    assert_eq!(paths(&sandbox.root), before, "nothing was created");

    // `squad init` makes one on purpose.
    let output = run_in(&sandbox, &app, &["init"]);
    assert_code(&output, 0, "init");
    assert!(app.join(".opencorvus/squads.jsonc").is_file());
    let output = run_in(&sandbox, &app, &["init"]);
    assert_code(&output, 0, "init again");
    assert!(stderr(&output).contains("Unchanged"), "{}", stderr(&output));

    // From a subfolder, every project command uses it and says so.
    let output = run_in(&sandbox, &deeper, &["add", "../../squads/minimal"]);
    assert_code(&output, 0, "add from a subfolder");
    let message = stderr(&output);
    assert!(
        message.contains(&format!(
            "Project {}",
            app.canonicalize().unwrap().display()
        )) && message.contains("Added example/minimal to ../../.opencorvus/squads.jsonc"),
        "{message}"
    );
    assert!(!deeper.join(".opencorvus").exists(), "no nested project");
    let declared = std::fs::read_to_string(app.join(".opencorvus/squads.jsonc")).unwrap();
    assert!(
        declared.contains("\"source\": \"squads/minimal\""),
        "{declared}"
    );
    let output = run_in(&sandbox, &deeper, &["list"]);
    assert_code(&output, 0, "list");
    assert!(
        text(&output.stdout).contains("project  example/minimal"),
        "{}",
        text(&output.stdout)
    );
    for args in [
        &["sync", "--locked"][..],
        &["outdated"],
        &["update", "--dry-run"],
        &["verify", "minimal"],
    ] {
        let output = run_in(&sandbox, &deeper, args);
        assert_code(&output, 0, &args.join(" "));
    }

    // --project still wins over what is found.
    let other = sandbox.root.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let output = run_in(&sandbox, &deeper, &["sync", "--project", path(&other)]);
    assert_code(&output, 2, "sync of a named folder that declares nothing");
    assert!(
        stderr(&output).contains(path(&other)),
        "{}",
        stderr(&output)
    );

    // A nested project is made only by init, and is then the nearest.
    let output = run_in(&sandbox, &app.join("src"), &["init"]);
    assert_code(&output, 0, "init of a nested project");
    assert!(
        stderr(&output).contains("inside the project"),
        "{}",
        stderr(&output)
    );
    let output = run_in(&sandbox, &deeper, &["remove", "example/minimal"]);
    assert_code(&output, 1, "the nested project declares nothing");
    assert!(
        app.join(".opencorvus/expert-squads/example/minimal")
            .is_dir(),
        "the outer project's squad stays"
    );
}

#[test]
fn the_command_that_creates_opencorvus_writes_its_gitignore_and_no_other_touches_it() {
    let sandbox = Sandbox::new();
    let package = sandbox.root.join("minimal");
    copy_tree(&template("minimal"), &package);
    let ignore_of = |project: &Path| project.join(".opencorvus/.gitignore");
    let ignored = |project: &Path| std::fs::read_to_string(ignore_of(project)).unwrap();

    // Whichever command creates .opencorvus writes it: add, install into a project, init.
    let added = sandbox.root.join("added");
    copy_tree(&package, &added.join("minimal"));
    let output = sandbox.run(&[
        "add",
        path(&added.join("minimal")),
        "--project",
        path(&added),
    ]);
    assert_code(&output, 0, "add");
    let installed = sandbox.root.join("installed");
    std::fs::create_dir_all(&installed).unwrap();
    let output = sandbox.run(&[
        "install",
        path(&package),
        "--scope",
        "project",
        "--project",
        path(&installed),
    ]);
    assert_code(&output, 0, "install --scope project");
    for project in [&added, &installed] {
        let text = ignored(project);
        for line in [
            "/expert-squads/",
            "/expert-squad-staging/",
            "/.squads-sync.lock",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} in {text}");
        }
        for committed in ["squads.jsonc", "squads.lock", "opencorvus.jsonc"] {
            assert!(
                !text
                    .lines()
                    .any(|l| !l.starts_with('#') && l.contains(committed)),
                "{committed} is committed: {text}"
            );
        }
    }

    // A .opencorvus that exists already is the project's: its .gitignore is not written (or
    // rewritten) by a sync or an add.
    let own = sandbox.root.join("own");
    std::fs::create_dir_all(own.join(".opencorvus")).unwrap();
    copy_tree(&package, &own.join("minimal"));
    let output = sandbox.run(&["add", path(&own.join("minimal")), "--project", path(&own)]);
    assert_code(&output, 0, "add to an existing .opencorvus");
    assert!(!ignore_of(&own).exists());
    std::fs::write(ignore_of(&added), "# ours\n").unwrap();
    let output = sandbox.run(&["sync", "--project", path(&added)]);
    assert_code(&output, 0, "sync");
    assert_eq!(ignored(&added), "# ours\n");
    // `squad init` writes a missing one on purpose.
    let output = sandbox.run(&["init", "--project", path(&own)]);
    assert_code(&output, 0, "init");
    assert!(ignored(&own).contains("/expert-squads/"));
}

/// `git` in `repo`, with an identity of its own; its output when it must succeed.
fn git(repo: &Path, args: &[&str]) -> Output {
    let program = crate::oci_support::require("git", "git");
    std::process::Command::new(program)
        .current_dir(repo)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args(["-c", "user.name=squad", "-c", "user.email=squad@localhost"])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "merge.conflictStyle=merge",
        ])
        .args(args)
        .output()
        .unwrap()
}

#[track_caller]
fn git_ok(repo: &Path, args: &[&str]) {
    let output = git(repo, args);
    assert_code(&output, 0, &format!("git {}", args.join(" ")));
}

#[test]
fn two_adds_on_two_branches_merge_and_sync_resolves_only_what_the_branches_lock_differently() {
    let sandbox = Sandbox::new();
    let repo = sandbox.root.join("app");
    for name in ["minimal", "delivery", "planner-parallel"] {
        copy_tree(&template(name), &repo.join("squads").join(name));
    }
    git_ok(&repo, &["init", "-q"]);
    let squad = |args: &[&str]| run_in(&sandbox, &repo, args);
    declare_nothing(&repo);
    assert_code(&squad(&["add", "squads/minimal"]), 0, "add on main");
    git_ok(&repo, &["add", "-A"]);
    git_ok(&repo, &["commit", "-qm", "base"]);

    // Two branches: each adds a squad and locks its own edit of the same folder squad.
    let lock_of = |branch: &str| -> serde_json::Value {
        let output = git(
            &repo,
            &["show", &format!("{branch}:.opencorvus/squads.lock")],
        );
        serde_json::from_slice(&output.stdout).unwrap()
    };
    for (branch, added, edit) in [
        ("one", "squads/delivery", "one\n"),
        ("two", "squads/planner-parallel", "two\n"),
    ] {
        git_ok(&repo, &["checkout", "-q", "-b", branch, "main"]);
        assert_code(&squad(&["add", added]), 0, added);
        let readme = repo.join("squads/minimal/README.md");
        let mut text = std::fs::read_to_string(&readme).unwrap();
        text.push_str(edit);
        std::fs::write(&readme, text).unwrap();
        assert_code(&squad(&["update", "example/minimal"]), 0, "update");
        git_ok(&repo, &["add", "-A"]);
        git_ok(&repo, &["commit", "-qm", branch]);
    }
    let merged = git(&repo, &["merge", "one", "-m", "merge"]);
    assert_code(&merged, 1, "the merge stops on the folder and the lock");
    let output = git(&repo, &["diff", "--name-only", "--diff-filter=U"]);
    let conflicted = text(&output.stdout);
    assert!(
        !conflicted.contains("squads.jsonc") && conflicted.contains("squads.lock"),
        "{conflicted}"
    );
    let declared = std::fs::read_to_string(repo.join(".opencorvus/squads.jsonc")).unwrap();
    for name in [
        "example/delivery",
        "example/minimal",
        "example/planner-parallel",
    ] {
        assert_eq!(declared.matches(name).count(), 1, "{declared}");
    }

    // Every command names the conflict; --locked refuses; nothing changes.
    let state = || (paths(&repo), files(&repo.join(".opencorvus")));
    let before = state();
    let lock = std::fs::read_to_string(repo.join(".opencorvus/squads.lock")).unwrap();
    let line = lock
        .lines()
        .position(|line| line.starts_with("<<<<<<<"))
        .unwrap()
        + 1;
    let conflict = format!("squads.lock has merge conflicts at line {line}");
    let output = squad(&["sync", "--locked"]);
    assert_code(&output, 1, "sync --locked of a conflicted lock");
    assert!(stderr(&output).contains(&conflict), "{}", stderr(&output));
    let output = squad(&["remove", "example/delivery"]);
    assert_code(&output, 1, "remove with a conflicted lock");
    assert!(
        stderr(&output).contains(&conflict) && stderr(&output).contains("`squad sync` resolves"),
        "{}",
        stderr(&output)
    );
    assert!(!stderr(&output).contains("delete"), "{}", stderr(&output));
    assert_eq!(state(), before, "nothing changed");

    // The folder's conflict is people's; the lock's is squad's.
    git_ok(&repo, &["checkout", "--theirs", "squads/minimal/README.md"]);
    let output = squad(&["sync"]);
    assert_code(&output, 0, "sync resolves the lock");
    let message = stderr(&output);
    assert!(
        message.contains(&format!("(line {line})"))
            && message.contains("kept the 2 squads")
            && message.contains("resolved anew what they lock differently: example/minimal"),
        "{message}"
    );
    let resolved: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo.join(".opencorvus/squads.lock")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        resolved["squads"]["example/delivery"],
        lock_of("one")["squads"]["example/delivery"]
    );
    assert_eq!(
        resolved["squads"]["example/planner-parallel"],
        lock_of("two")["squads"]["example/planner-parallel"]
    );
    let digest = {
        let output = squad(&["digest", "squads/minimal"]);
        text(&output.stdout).trim().to_owned()
    };
    assert_eq!(
        resolved["squads"]["example/minimal"]["package_digest"],
        digest
    );
    assert_code(&squad(&["sync", "--locked"]), 0, "the resolved lock holds");

    // A conflict in squads.jsonc is said as one, at its line.
    std::fs::write(
        repo.join(".opencorvus/squads.jsonc"),
        "{\n  \"squads\": {\n<<<<<<< HEAD\n    \"example/a\": { \"source\": \"squads/a\" },\n=======\n    \"example/b\": { \"source\": \"squads/b\" },\n>>>>>>> other\n  }\n}\n",
    )
    .unwrap();
    let output = squad(&["sync"]);
    assert_code(&output, 1, "a conflicted squads.jsonc");
    assert!(
        stderr(&output).contains("squads.jsonc has merge conflicts at line 3"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn what_squads_jsonc_no_longer_declares_is_marked_by_list_and_removed_by_sync() {
    let sandbox = Sandbox::new();
    let app = sandbox.root.join("app");
    for name in ["minimal", "delivery"] {
        copy_tree(&template(name), &app.join("squads").join(name));
    }
    let squad = |args: &[&str]| run_in(&sandbox, &app, args);
    declare_nothing(&app);
    assert_code(&squad(&["add", "squads/minimal"]), 0, "add minimal");
    let config = app.join(".opencorvus");
    let before_delivery = files(&config)
        .into_iter()
        .filter(|(path, _)| path.starts_with("squads."))
        .collect::<Vec<_>>();
    let switch_back = || {
        for (path, bytes) in &before_delivery {
            std::fs::write(config.join(path), bytes).unwrap();
        }
    };
    let installed = |name: &str| config.join("expert-squads/example").join(name);
    assert_code(&squad(&["add", "squads/delivery"]), 0, "add delivery");

    // A branch switch back to before the add: both files no longer name it.
    switch_back();
    let output = squad(&["list"]);
    assert_code(&output, 0, "list");
    let listed = text(&output.stdout);
    assert!(
        listed
            .lines()
            .any(|line| line.contains("example/delivery") && line.ends_with("(undeclared)")),
        "{listed}"
    );
    assert!(
        !listed
            .lines()
            .any(|line| line.contains("example/minimal") && line.contains("undeclared")),
        "{listed}"
    );
    assert!(
        stderr(&output).contains("`squad sync` removes it"),
        "{}",
        stderr(&output)
    );
    let output = squad(&["list", "--format", "json"]);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let undeclared: Vec<(String, bool)> = document["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| {
            (
                package["id"].as_str().unwrap().to_owned(),
                package["undeclared"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        undeclared,
        [("delivery".to_owned(), true), ("minimal".to_owned(), false)]
    );

    // --keep-undeclared keeps it; a plain sync --locked leaves exactly what the lock says.
    let output = squad(&["sync", "--keep-undeclared"]);
    assert_code(&output, 0, "sync --keep-undeclared");
    assert!(installed("delivery").is_dir());
    let output = squad(&["sync", "--locked"]);
    assert_code(&output, 0, "sync --locked");
    assert!(
        stderr(&output).contains("Removed example/delivery: not declared in squads.jsonc"),
        "{}",
        stderr(&output)
    );
    assert!(!installed("delivery").exists());
    assert!(installed("minimal").is_dir());

    // What sync does not remove: a package whose files changed, one squad did not install.
    assert_code(&squad(&["add", "squads/delivery"]), 0, "add delivery again");
    std::fs::write(installed("delivery").join("README.md"), "# mine\n").unwrap();
    switch_back();
    let hand = config.join("expert-squads/example/planner-parallel");
    copy_tree(&template("planner-parallel"), &hand);
    let output = squad(&["sync"]);
    assert_code(&output, 0, "sync keeps what it must not remove");
    let message = stderr(&output);
    assert!(
        message.contains("kept example/delivery") && message.contains("files changed"),
        "{message}"
    );
    assert!(
        message.contains("kept example/planner-parallel")
            && message.contains("squad did not install it"),
        "{message}"
    );
    assert_eq!(
        std::fs::read_to_string(installed("delivery").join("README.md")).unwrap(),
        "# mine\n"
    );
    assert!(hand.is_dir());
}

#[test]
fn remove_of_a_locally_edited_squad_changes_nothing_unless_forced() {
    let sandbox = Sandbox::new();
    let app = sandbox.root.join("app");
    copy_tree(&template("minimal"), &app.join("squads/minimal"));
    let squad = |args: &[&str]| run_in(&sandbox, &app, args);
    declare_nothing(&app);
    assert_code(&squad(&["add", "squads/minimal"]), 0, "add");
    let target = app.join(".opencorvus/expert-squads/example/minimal");
    std::fs::write(target.join("README.md"), "# edited here\n").unwrap();

    let before = (paths(&app), files(&app.join(".opencorvus")));
    let output = squad(&["remove", "example/minimal"]);
    assert_code(&output, 1, "remove of an edited squad");
    let message = stderr(&output);
    assert!(
        message.contains("README.md") && message.contains("--force"),
        "{message}"
    );
    assert_eq!(
        (paths(&app), files(&app.join(".opencorvus"))),
        before,
        "neither file nor the package changed"
    );

    let output = squad(&["remove", "example/minimal", "--force"]);
    assert_code(&output, 0, "remove --force");
    assert!(!target.exists());
    let declared = std::fs::read_to_string(app.join(".opencorvus/squads.jsonc")).unwrap();
    assert!(!declared.contains("example/minimal"), "{declared}");
    assert!(!stderr(&output).contains("nothing was changed"));
}

/// An unencrypted key pair made by squad: (secret, public).
fn keys(sandbox: &Sandbox, name: &str) -> (PathBuf, PathBuf) {
    let secret = sandbox.root.join(format!("{name}.key"));
    let public = sandbox.root.join(format!("{name}.pub"));
    let output = sandbox.run(&[
        "key",
        "generate",
        "--secret-key",
        path(&secret),
        "--public-key",
        path(&public),
        "--unencrypted",
    ]);
    assert_code(&output, 0, "key generate");
    (secret, public)
}

#[test]
fn signatures_travel_with_pull_and_sign_under_the_name_add_looks_for() {
    let registry = crate::oci_support::Registry::start(crate::oci_support::Auth::None);
    // The download cache is the sandbox home's.
    let sandbox = Sandbox::new();
    let (secret, public) = keys(&sandbox, "acme");
    let app = sandbox.root.join("app");
    std::fs::create_dir_all(&app).unwrap();
    let squad = |args: &[&str]| run_in(&sandbox, &app, args);
    declare_nothing(&app);
    let output = squad(&[
        "trust",
        "add",
        path(&public),
        "--namespace",
        "example",
        "--require-signatures",
    ]);
    assert_code(&output, 0, "trust add");

    // `sign` writes `<folder>.minisig` by default: `add` finds it.
    let folder = app.join("squads/minimal");
    copy_tree(&template("minimal"), &folder);
    let output = squad(&["sign", "squads/minimal", "--key", path(&secret)]);
    assert_code(&output, 0, "sign");
    assert!(app.join("squads/minimal.minisig").is_file());
    assert_code(&squad(&["add", "squads/minimal"]), 0, "add a signed folder");

    // `pull` writes the registry's signature beside the archive: `add` of the archive finds it.
    let delivery = sandbox.root.join("delivery");
    copy_tree(&template("delivery"), &delivery);
    let output = sandbox.run(&[
        "publish",
        path(&delivery),
        &registry.oci("squads"),
        "--sign",
        path(&secret),
    ]);
    assert_code(&output, 0, "publish --sign");
    let output = squad(&[
        "pull",
        &registry.oci("squads/example/delivery:2026.11.30.1"),
        "-o",
        "vendor/",
        "--format",
        "json",
    ]);
    assert_code(&output, 0, "pull");
    let pulled: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let archive = app.join("vendor/delivery-2026.11.30.1-expert-squad.zip");
    let signature = app.join("vendor/delivery-2026.11.30.1-expert-squad.zip.minisig");
    assert_eq!(
        pulled["signature_file"],
        "vendor/delivery-2026.11.30.1-expert-squad.zip.minisig"
    );
    assert!(archive.is_file() && signature.is_file());
    let output = squad(&["add", "vendor/delivery-2026.11.30.1-expert-squad.zip"]);
    assert_code(
        &output,
        0,
        "add the pulled archive under require_signatures",
    );
    let output = sandbox.run(&[
        "verify",
        path(&archive),
        "--signature",
        path(&signature),
        "--public-key",
        path(&public),
    ]);
    assert_code(&output, 0, "the pulled signature verifies");

    // An unsigned squad pulls no signature, and writes nothing beside the archive.
    let planner = sandbox.root.join("planner");
    copy_tree(&template("planner-parallel"), &planner);
    let output = sandbox.run(&["publish", path(&planner), &registry.oci("squads")]);
    assert_code(&output, 0, "publish unsigned");
    let output = squad(&[
        "pull",
        &registry.oci("squads/example/planner-parallel:2026.11.30.1"),
        "-o",
        "vendor/",
        "--format",
        "json",
    ]);
    assert_code(&output, 0, "pull unsigned");
    let pulled: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(pulled["signature_file"], serde_json::Value::Null);
    assert!(
        !app.join("vendor/planner-parallel-2026.11.30.1-expert-squad.zip.minisig")
            .exists()
    );
}

#[test]
fn ci_gets_credentials_from_the_environment_exit_codes_that_mean_something_and_annotations() {
    use crate::oci_support::{Auth, Registry};
    let registry = Registry::start(Auth::Htpasswd("ci", "s3cret-token"));
    let host = registry.host();
    let sandbox = Sandbox::new();
    let secret = "s3cret-token";
    let shows_no_secret = |output: &Output| {
        let all = format!("{}{}", text(&output.stdout), stderr(output));
        assert!(!all.contains(secret), "the token was printed: {all}");
    };
    let package = sandbox.root.join("minimal");
    copy_tree(&template("minimal"), &package);

    // No credentials: refused, and the hint names -u.
    let output = sandbox.run(&["publish", path(&package), &registry.oci("squads")]);
    assert_code(&output, 2, "publish without credentials");
    assert!(
        stderr(&output).contains(&format!("squad login {host} -u USER --password-stdin")),
        "{}",
        stderr(&output)
    );
    // A token for no named registry is refused, never sent anywhere.
    let tokened = |sandbox: Sandbox| {
        sandbox
            .with_env("SQUAD_REGISTRY_USERNAME", "ci")
            .with_env("SQUAD_REGISTRY_TOKEN", secret)
    };
    let output = tokened(Sandbox::new()).run(&["publish", path(&package), &registry.oci("squads")]);
    assert_code(&output, 2, "a token without its host");
    assert!(
        stderr(&output).contains("SQUAD_REGISTRY_HOST"),
        "{}",
        stderr(&output)
    );
    shows_no_secret(&output);
    // SQUAD_REGISTRY_HOST + SQUAD_REGISTRY_TOKEN: no login, nothing stored, never printed.
    let ci = tokened(Sandbox::new()).with_env("SQUAD_REGISTRY_HOST", &host);
    let output = ci.run(&["publish", path(&package), &registry.oci("squads")]);
    assert_code(&output, 0, "publish with a token from the environment");
    shows_no_secret(&output);
    assert!(!ci.home().join(".docker").exists(), "nothing was stored");
    // DOCKER_AUTH_CONFIG, as runners pass it.
    let auth = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(format!("ci:{secret}"))
    };
    let docker = Sandbox::new().with_env(
        "DOCKER_AUTH_CONFIG",
        format!("{{\"auths\":{{\"{host}\":{{\"auth\":\"{auth}\"}}}}}}"),
    );
    let output = docker.run(&["versions", &registry.oci("squads/example/minimal")]);
    assert_code(&output, 0, "versions with DOCKER_AUTH_CONFIG");
    shows_no_secret(&output);

    // versions of a repository that does not exist is an error, with the catalog's nearest.
    let output = ci.run(&["versions", &registry.oci("squads/example/minimul")]);
    assert_code(&output, 2, "versions of a missing repository");
    assert!(
        stderr(&output).contains("does not exist")
            && stderr(&output).contains(&format!(
                "did you mean {}?",
                registry.oci("squads/example/minimal")
            )),
        "{}",
        stderr(&output)
    );
    // login exits as documented: 1 when the registry refuses the credentials.
    let output =
        Sandbox::new().run_with_input(&["login", &host, "-u", "ci", "--password-stdin"], "wrong\n");
    assert_code(&output, 1, "login with a wrong password");
    let help = sandbox.run(&["login", "--help"]);
    assert!(
        text(&help.stdout).contains("1 the registry refused the credentials"),
        "{}",
        text(&help.stdout)
    );

    // A project: outdated --exit-code, update --dry-run, verify --locked, annotations.
    let app = ci.root.join("app");
    declare_nothing(&app);
    let squad = |args: &[&str]| run_in(&ci, &app, args);
    assert_code(
        &squad(&["add", &registry.oci("squads/example/minimal")]),
        0,
        "add",
    );
    let newer = crate::registry::variant(&ci.root, "minimal", "2026.12.01.1", "\nv2\n");
    assert_code(
        &ci.run(&["publish", path(&newer), &registry.oci("squads")]),
        0,
        "publish v2",
    );
    assert_code(&squad(&["outdated"]), 0, "outdated reports");
    let output = squad(&["outdated", "--exit-code"]);
    assert_code(&output, 1, "outdated --exit-code");
    assert!(
        stderr(&output).contains("1 squad is outdated"),
        "{}",
        stderr(&output)
    );
    let before = (paths(&app), files(&app.join(".opencorvus")));
    let output = squad(&["update", "--dry-run"]);
    assert_code(&output, 0, "update --dry-run");
    assert!(
        stderr(&output).contains("Would update example/minimal 2026.11.30.1 -> 2026.12.01.1"),
        "{}",
        stderr(&output)
    );
    assert_eq!((paths(&app), files(&app.join(".opencorvus"))), before);

    let output = squad(&["verify", "--locked"]);
    assert_code(&output, 0, "verify --locked");
    assert!(
        stderr(&output).contains("Verified 1 squad against .opencorvus/squads.lock"),
        "{}",
        stderr(&output)
    );
    let installed = app.join(".opencorvus/expert-squads/example/minimal");
    std::fs::write(installed.join("README.md"), "# changed\n").unwrap();
    let output = squad(&["verify", "--locked", "--format", "json"]);
    assert_code(&output, 1, "verify --locked of a changed package");
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["status"], "refused");
    assert!(
        document["squads"][0]["problems"][0]
            .as_str()
            .unwrap()
            .contains("is not the locked"),
        "{document}"
    );

    let declared = std::fs::read_to_string(app.join(".opencorvus/squads.jsonc")).unwrap();
    std::fs::write(
        app.join(".opencorvus/squads.jsonc"),
        declared.replace(
            "\n  }\n}",
            "\n    \"example/other\": { \"source\": \"squads/other\" },\n  }\n}",
        ),
    )
    .unwrap();
    let output = squad(&["sync", "--locked", "--format", "github"]);
    assert_code(&output, 1, "sync --locked that disagrees");
    let annotations = text(&output.stdout);
    assert!(
        annotations.starts_with("::error file=.opencorvus/squads.jsonc,line=")
            && annotations.contains("example/other is declared but not locked"),
        "{annotations}"
    );
}

#[test]
fn a_long_transfer_without_a_terminal_prints_a_heartbeat_at_a_bounded_rate() {
    use crate::oci_support::{LyingServer, Seen};
    use std::io::Write;
    let sandbox = Sandbox::new().with_env("SQUAD_HEARTBEAT", "1");
    let archive = sandbox.root.join("minimal.zip");
    let output = sandbox.run(&["pack", path(&template("minimal")), "-o", path(&archive)]);
    assert_code(&output, 0, "pack");
    let bytes = std::fs::read(&archive).unwrap();
    let sha256 = squad::digest::Sha256Digest::of(&bytes).hex();
    // The archive in ten pieces, 350 ms apart: about 3.5 s in all.
    let served = std::sync::Arc::new(bytes);
    let handler = {
        let served = served.clone();
        move |_: &Seen, stream: &mut std::net::TcpStream| {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/zip\r\ncontent-length: {}\r\n\r\n",
                served.len()
            );
            let _ = stream.write_all(head.as_bytes());
            for piece in served.chunks(served.len().div_ceil(10)) {
                let _ = stream.write_all(piece);
                let _ = stream.flush();
                std::thread::sleep(std::time::Duration::from_millis(350));
            }
        }
    };
    let server = LyingServer::start("127.0.0.1", std::sync::Arc::new(handler));
    let url = format!("http://{}/minimal.zip", server.address);
    let started = std::time::Instant::now();
    let output = sandbox.run(&[
        "install",
        &url,
        "--sha256",
        &sha256,
        "--scope",
        "project",
        "--project",
        path(&sandbox.project()),
    ]);
    let elapsed = started.elapsed().as_secs();
    assert_code(&output, 0, "install of a slow archive");
    let message = stderr(&output);
    let beats: Vec<&str> = message
        .lines()
        .filter(|line| line.trim_start().starts_with("Downloading") && line.contains(" after "))
        .collect();
    assert!(!beats.is_empty(), "no heartbeat: {message}");
    assert!(
        beats.len() as u64 <= elapsed + 1,
        "{} heartbeats in {elapsed} s: {message}",
        beats.len()
    );
    for beat in &beats {
        assert!(
            beat.contains(&url) && beat.contains(" of ") && beat.ends_with(" s"),
            "{beat}"
        );
    }
    // A fast transfer prints none.
    let quick = Sandbox::new().with_env("SQUAD_HEARTBEAT", "60");
    let output = quick.run(&[
        "install",
        &url,
        "--sha256",
        &sha256,
        "--scope",
        "project",
        "--project",
        path(&quick.project()),
    ]);
    assert_code(&output, 0, "install");
    assert!(!stderr(&output).contains(" after "), "{}", stderr(&output));
}

#[test]
fn verify_locked_judges_signatures_and_revocations_of_every_locked_squad() {
    let sandbox = Sandbox::new();
    let (secret, public) = keys(&sandbox, "acme");
    let app = sandbox.root.join("app");
    declare_nothing(&app);
    let squad = |args: &[&str]| run_in(&sandbox, &app, args);
    copy_tree(&template("minimal"), &app.join("squads/minimal"));
    assert_code(
        &squad(&[
            "sign",
            "squads/minimal",
            "--key",
            path(&secret),
            "-o",
            "squads/minimal.minisig",
        ]),
        0,
        "sign",
    );
    assert_code(
        &squad(&[
            "trust",
            "add",
            path(&public),
            "--namespace",
            "example",
            "--require-signatures",
        ]),
        0,
        "trust add",
    );
    assert_code(&squad(&["add", "squads/minimal"]), 0, "add signed");
    let output = squad(&["verify", "--locked"]);
    assert_code(&output, 0, "verify --locked");
    assert!(
        stderr(&output).contains("signed by key"),
        "{}",
        stderr(&output)
    );

    // The key is revoked: every squad it vouched for is refused, without any sync.
    let id = {
        let text = std::fs::read_to_string(app.join(".opencorvus/squads.lock")).unwrap();
        let lock: serde_json::Value = serde_json::from_str(&text).unwrap();
        lock["squads"]["example/minimal"]["signed_by"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_code(&squad(&["trust", "revoke", &id]), 0, "revoke");
    let before = (paths(&app), files(&app.join(".opencorvus")));
    let output = squad(&["verify", "--locked"]);
    assert_code(&output, 1, "verify --locked with the key revoked");
    let message = stderr(&output);
    assert!(
        message.contains("example/minimal") && message.contains(&id) && message.contains("revoke"),
        "{message}"
    );
    assert_eq!(
        (paths(&app), files(&app.join(".opencorvus"))),
        before,
        "read-only"
    );
    // A sync refuses it too, and its hint is about the revocation, not about trusting a key.
    let output = squad(&["sync"]);
    assert_code(&output, 1, "sync with the key revoked");
    let hint = stderr(&output)
        .lines()
        .find(|line| line.starts_with("hint:"))
        .unwrap_or_default()
        .to_owned();
    assert!(
        hint.contains("squad trust revoke") && !hint.contains("trust add"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn small_truths_missing_scheme_repository_typos_fix_of_squads_jsonc_and_http_sources() {
    use crate::http_support::StaticServer;
    use crate::oci_support::{Auth, Registry};
    let registry = Registry::start(Auth::None);
    let sandbox = Sandbox::new();
    let app = sandbox.root.join("app");
    declare_nothing(&app);
    let squad = |args: &[&str]| run_in(&sandbox, &app, args);
    let package = sandbox.root.join("minimal");
    copy_tree(&template("minimal"), &package);
    assert_code(
        &sandbox.run(&["publish", path(&package), &registry.oci("squads")]),
        0,
        "publish",
    );
    // The project lock a refused command may leave is bookkeeping, not the project.
    let state = || {
        let project: Vec<String> = paths(&app)
            .into_iter()
            .filter(|path| !path.ends_with(".squads-sync.lock"))
            .collect();
        (project, paths(&sandbox.opencorvus()))
    };
    let before = state();

    // A reference without oci:// is no path: "did you mean".
    let bare = format!("{}/squads/example/minimal", registry.host());
    let meant = format!("did you mean `oci://{bare}`?");
    for output in [
        squad(&["add", &bare]),
        squad(&["install", &bare, "--scope", "global"]),
    ] {
        assert_code(&output, 2, "a reference without oci://");
        assert!(stderr(&output).contains(&meant), "{}", stderr(&output));
    }
    // A typo in the repository, with a tag too: the registry's catalog says what was meant.
    let output = squad(&["add", &registry.oci("squads/example/minimall:2026.11.30.1")]);
    assert_code(&output, 2, "a repository typo");
    assert!(
        stderr(&output).contains(&format!(
            "did you mean {}?",
            registry.oci("squads/example/minimal")
        )),
        "{}",
        stderr(&output)
    );
    assert_eq!(state(), before, "nothing changed");

    // An http:// (loopback) archive is not called an https source.
    let served = sandbox.root.join("served");
    std::fs::create_dir_all(&served).unwrap();
    let archive = served.join("minimal.zip");
    assert_code(
        &sandbox.run(&["pack", path(&package), "-o", path(&archive)]),
        0,
        "pack",
    );
    let sha256 = squad::digest::Sha256Digest::of_file(&archive)
        .unwrap()
        .hex();
    let server = StaticServer::start(&served);
    let url = server.url("minimal.zip");
    let output = squad(&["add", &url]);
    assert_code(&output, 2, "an http:// source without --sha256");
    assert!(
        stderr(&output).contains("an http:// archive source needs the SHA-256"),
        "{}",
        stderr(&output)
    );
    assert_code(&squad(&["add", &url, "--sha256", &sha256]), 0, "add");
    let output = squad(&["outdated"]);
    assert_code(&output, 0, "outdated");
    let table = text(&output.stdout);
    assert!(
        table.contains("http source: not checked") && !table.contains("https"),
        "{table}"
    );

    // squad fix works on squads.jsonc: a misspelt key and a version without its zeros.
    let declared = app.join(".opencorvus/squads.jsonc");
    let written = std::fs::read_to_string(&declared).unwrap();
    let broken = written.replacen(
        "{\n  \"squads\"",
        "{\n  // ours\n  \"require_signatres\": false,\n  \"squads\"",
        1,
    )
    .replacen(
        "\n  }\n}",
        &format!(
            "\n    \"example/other\": {{ \"source\": \"{}\", \"version\": \"2026.12.1.1\" }},\n  }}\n}}",
            registry.oci("squads/example/other")
        ),
        1,
    );
    assert_ne!(broken, written);
    std::fs::write(&declared, &broken).unwrap();
    assert_code(
        &squad(&["sync", "--locked"]),
        1,
        "the broken file is refused",
    );
    let output = squad(&["fix", "--dry-run"]);
    assert_code(&output, 0, "fix --dry-run");
    assert!(
        text(&output.stdout).contains("+  \"require_signatures\": false,")
            && text(&output.stdout).contains("\"version\": \"2026.12.01.1\""),
        "{}",
        text(&output.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(&declared).unwrap(),
        broken,
        "dry run"
    );
    let output = squad(&["fix", ".opencorvus/squads.jsonc"]);
    assert_code(&output, 0, "fix");
    let fixed = std::fs::read_to_string(&declared).unwrap();
    assert_eq!(
        fixed,
        broken
            .replace("require_signatres", "require_signatures")
            .replace("2026.12.1.1", "2026.12.01.1"),
        "only the two fixes, comments kept"
    );
    let output = squad(&["fix"]);
    assert_code(&output, 0, "fix again");
    assert!(
        stderr(&output).contains("Fixed nothing"),
        "{}",
        stderr(&output)
    );
}
