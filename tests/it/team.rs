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
    let read = squad::archive::reader::read_package(
        &bytes,
        &squad::archive::reader::Limits::REFERENCE,
    )
    .unwrap();
    let names: Vec<&str> = read.files.iter().map(|(name, _)| name.as_str()).collect();
    assert!(
        names.iter().all(|name| !name.contains(".git")),
        "{names:?}"
    );
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
    assert!(stderr(&output).contains("per-file limit"), "{}", stderr(&output));
    assert!(!archive.exists());
}
