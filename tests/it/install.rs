//! `squad install`, `uninstall` and `list` with real processes: flows, refusals, every corpus
//! package from its folder and its archive, kills at every phase, and concurrent installs.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub(crate) use crate::support::Sandbox;
use crate::support::{copy_tree, corpus, fixtures, text};

/// What the install tests ask of the one sandbox (crate::support::Sandbox), which they run in
/// its project.
impl Sandbox {
    pub(crate) fn packages_root(&self) -> PathBuf {
        self.root.join("project/.opencorvus/expert-squads")
    }

    pub(crate) fn target(&self, namespace: &str, id: &str) -> PathBuf {
        self.packages_root().join(namespace).join(id)
    }

    pub(crate) fn digest(&self, path: &Path) -> String {
        let output = self.run(&["digest", path.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        text(&output.stdout).trim().to_owned()
    }

    /// Runs `squad ARGS` with the failpoint `phase`, waits until the process reports it has
    /// reached it, and SIGKILLs it there. Panics when the phase is never reached.
    fn kill_at(&self, args: &[&str], phase: &str) {
        let mut child = self
            .command(args)
            .env("SQUAD_FAILPOINT", phase)
            .env("SQUAD_LOCK_STALE_MS", "100")
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let mut reader = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 && !line.contains("failpoint") {
            line.clear();
        }
        let reached = line.contains(&format!("failpoint {phase}"));
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(reached, "phase {phase} was never reached: {line}");
    }

    /// A copy of a fixture package inside the sandbox, optionally with an edited README.
    pub(crate) fn package(&self, fixture: &str, name: &str, readme_extra: &str) -> PathBuf {
        let path = self.root.join(name);
        copy_tree(&fixtures().join(fixture), &path);
        if !readme_extra.is_empty() {
            let readme = path.join("README.md");
            let mut text = fs::read_to_string(&readme).unwrap();
            text.push_str(readme_extra);
            fs::write(readme, text).unwrap();
        }
        path
    }
}

/// Every path under a directory, relative, sorted.
pub(crate) fn listing(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(directory) = pending.pop() {
        let Ok(entries) = fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            out.push(
                path.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
            if path.is_dir() && !path.is_symlink() {
                pending.push(path);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn install_replace_list_uninstall() {
    let sandbox = Sandbox::in_project();
    let v1 = sandbox.package("valid/minimal", "v1", "");
    let v2 = sandbox.package("valid/minimal", "v2", "more\n");
    let (d1, d2) = (sandbox.digest(&v1), sandbox.digest(&v2));
    let install = |source: &Path, extra: &[&str]| {
        let mut args = vec!["install", source.to_str().unwrap(), "--scope", "project"];
        args.extend_from_slice(extra);
        sandbox.run(&args)
    };
    let output = install(&v1, &[]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("Installed acme/minimal-squad"));
    assert_eq!(sandbox.digest(&sandbox.target("acme", "minimal-squad")), d1);
    // Same bytes: unchanged, nothing written.
    let output = install(&v1, &[]);
    assert!(
        text(&output.stderr).contains("Unchanged"),
        "{}",
        text(&output.stderr)
    );
    // Other bytes without --expect, or with a wrong one: a conflict naming both digests.
    let output = install(&v2, &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains(&format!("--expect {d1}`")),
        "{}",
        text(&output.stderr)
    );
    let output = install(&v2, &["--expect", &d2]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains(&format!("not the expected {d2}")));
    // The right --expect replaces.
    let output = install(&v2, &["--expect", &d1]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("Replaced"));
    assert_eq!(sandbox.digest(&sandbox.target("acme", "minimal-squad")), d2);
    // Only <namespace>/<id> directories in the packages root; no leftovers in scratch.
    assert_eq!(
        listing(&sandbox.packages_root())[..2],
        ["acme".to_owned(), "acme/minimal-squad".to_owned()]
    );
    assert!(
        listing(
            &sandbox
                .root
                .join("project/.opencorvus/expert-squad-staging")
        )
        .is_empty()
    );
    let list = sandbox.run(&["list", "--format", "json"]);
    let document: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(document["packages"][0]["package_digest"], d2);
    assert_eq!(document["packages"][0]["scope"], "project");
    let output = sandbox.run(&["uninstall", "minimal-squad", "--scope", "project"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(!sandbox.target("acme", "minimal-squad").exists());
    assert_eq!(
        sandbox
            .run(&["uninstall", "minimal-squad", "--scope", "project"])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn refusals_write_nothing() {
    let sandbox = Sandbox::in_project();
    let before = listing(&sandbox.root.join("project"));
    // An invalid package.
    let invalid = sandbox.package("invalid/dangling-ref--skill", "invalid", "");
    assert_eq!(
        sandbox
            .run(&["install", invalid.to_str().unwrap(), "--scope", "project"])
            .status
            .code(),
        Some(1)
    );
    // A built-in id.
    let builtin = sandbox.package("valid/accepted--builtin-id-warning", "builtin", "");
    let output = sandbox.run(&["install", builtin.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("built-in"));
    // Hostile archives.
    for archive in [
        "dotdot.zip",
        "symlink-then-file-through-it.zip",
        "bomb-64mib.zip",
        "crc-mismatch-stored.zip",
        "duplicate-same-bytes.zip",
        "deflate-hides-an-entry.zip",
        "deflate-trailing-junk.zip",
    ] {
        let path = crate::support::repo()
            .join("tests/fixtures/archives")
            .join(archive);
        assert!(path.is_file(), "{archive} is not a fixture");
        let output = sandbox.run(&["install", path.to_str().unwrap(), "--scope", "project"]);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{archive}: {}",
            text(&output.stderr)
        );
    }
    assert_eq!(listing(&sandbox.root.join("project")), before);
    // Nor is anything left in the private temporary directory.
    let tmp = sandbox.root.join("home/opencorvus/tmp");
    assert!(listing(&tmp).is_empty(), "{:?}", listing(&tmp));
}

/// A failure says what could not be done, then each cause on a `caused by:` line of its own.
#[test]
fn failures_name_their_causes() {
    let sandbox = Sandbox::in_project();
    let archive = crate::support::repo().join("tests/fixtures/archives/dotdot.zip");
    let output = sandbox.run(&["install", archive.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        "error: the archive was refused\n  caused by: archive entry `../evil`: empty, `.` or `..` path segment\n"
    );
    // OpenCorvus's data root is a file, so its private temporary directory cannot be made.
    fs::write(sandbox.root.join("home/opencorvus"), "").unwrap();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    let tmp = sandbox.root.join("home/opencorvus/tmp");
    assert!(
        stderr.starts_with(&format!(
            "error: cannot read or write `{}`\n  caused by: Not a directory",
            tmp.display()
        )),
        "{stderr}"
    );
}

#[cfg(unix)]
#[test]
fn a_link_at_the_target_is_refused_and_not_followed() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let outside = sandbox.root.join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::create_dir_all(sandbox.packages_root().join("acme")).unwrap();
    std::os::unix::fs::symlink(&outside, sandbox.target("acme", "minimal-squad")).unwrap();
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("acme/minimal-squad"));
    assert!(listing(&outside).is_empty());
}

#[cfg(unix)]
#[test]
fn a_linked_namespace_directory_is_refused() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let outside = sandbox.root.join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::create_dir_all(sandbox.packages_root()).unwrap();
    std::os::unix::fs::symlink(&outside, sandbox.packages_root().join("acme")).unwrap();
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("`acme` is not a namespace directory"));
    assert!(listing(&outside).is_empty());
    // Nor does uninstall follow it.
    fs::create_dir_all(outside.join("foo")).unwrap();
    fs::write(outside.join("foo/keep.txt"), "x").unwrap();
    let output = sandbox.run(&["uninstall", "foo", "--scope", "project"]);
    assert_ne!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        outside.join("foo/keep.txt").exists(),
        "uninstall deleted through a link"
    );
}

#[test]
fn an_existing_empty_directory_or_file_at_the_target_is_never_replaced() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let target = sandbox.target("acme", "minimal-squad");
    fs::create_dir_all(&target).unwrap();
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        listing(&target).is_empty(),
        "the empty directory was replaced"
    );
    // Not even with an expectation that names the empty tree's digest (INS-6).
    let empty = "77926254e3ae3da6a2bb3b9e6bdebbd18b4d56d8a5a5c2a44f03c0d2a8f0e7cb";
    let output = sandbox.run(&[
        "install",
        package.to_str().unwrap(),
        "--scope",
        "project",
        "--expect",
        empty,
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        listing(&target).is_empty(),
        "the empty directory was replaced"
    );
    fs::remove_dir(&target).unwrap();
    fs::write(&target, "a file").unwrap();
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert_eq!(fs::read_to_string(&target).unwrap(), "a file");
}

/// INS-6 with MAN-R4: a package at the target whose manifest names another package is refused
/// by the strict listing of the scope before any digest is compared, with or without
/// `--expect`, and stays as it was.
#[test]
fn a_target_whose_manifest_names_another_package_is_refused_and_kept() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let target = sandbox.target("acme", "minimal-squad");
    copy_tree(&package, &target);
    let manifest = target.join("expert-squad.jsonc");
    let renamed = fs::read_to_string(&manifest)
        .unwrap()
        .replace("\"id\": \"minimal-squad\"", "\"id\": \"other-squad\"");
    fs::write(&manifest, &renamed).unwrap();
    let installed = sandbox.digest(&target);
    for expect in [None, Some(installed.as_str())] {
        let mut args = vec!["install", package.to_str().unwrap(), "--scope", "project"];
        args.extend(
            expect
                .map(|digest| ["--expect", digest])
                .into_iter()
                .flatten(),
        );
        let output = sandbox.run(&args);
        assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
        let stderr = text(&output.stderr);
        assert!(
            stderr.contains("holds entries the runtime cannot list"),
            "{stderr}"
        );
        assert!(stderr.contains("acme/other-squad"), "{stderr}");
        assert_eq!(fs::read_to_string(&manifest).unwrap(), renamed);
    }
}

#[test]
fn an_id_is_unique_across_namespaces_in_a_scope() {
    let sandbox = Sandbox::in_project();
    let first = sandbox.package("valid/minimal", "first", "");
    let second = sandbox.package("valid/minimal", "second", "");
    let manifest = second.join("expert-squad.jsonc");
    fs::write(
        &manifest,
        fs::read_to_string(&manifest)
            .unwrap()
            .replace("\"namespace\": \"acme\"", "\"namespace\": \"other\""),
    )
    .unwrap();
    assert_eq!(
        sandbox
            .run(&["install", first.to_str().unwrap(), "--scope", "project"])
            .status
            .code(),
        Some(0)
    );
    let output = sandbox.run(&["install", second.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("unique across namespaces"));
}

#[test]
fn every_corpus_package_installs_from_its_folder_and_its_archive() {
    let Some(corpus) = corpus() else { return };
    let sandbox = Sandbox::in_project();
    let mut packages: Vec<PathBuf> = fs::read_dir(corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    packages.sort();
    let builtin = ["base", "advanced", "research-studio", "squad-sdk"];
    let options = |scope, home: &str| squad::install::Options {
        scope,
        opencorvus_root: sandbox.root.join(home).join("opencorvus"),
        expect: None,
        replace: false,
        lock_timeout: Some(std::time::Duration::from_secs(30)),
        exact: Default::default(),
        origin: None,
    };
    let project = squad::install::scope::Scope::Project(sandbox.root.join("project"));
    // The archives go to the global scope of a second OpenCorvus root: under the first, the
    // global install would be refused, since the project (now registered there) has every id
    // (GLB-3).
    let global = squad::install::scope::Scope::Global;
    let mut targets = Vec::new();
    let mut installed = 0;
    for package in &packages {
        let name = package.file_name().unwrap().to_string_lossy().into_owned();
        if builtin.contains(&name.as_str()) {
            continue;
        }
        let receipt =
            squad::install::install_folder(package, &options(project.clone(), "home"), &mut |_| {})
                .unwrap();
        assert_eq!(
            receipt.operation,
            squad::install::Operation::Installed,
            "{name}"
        );
        let report = squad::package::validate(package).unwrap();
        let archive = sandbox.root.join(format!("{name}.zip"));
        squad::pack::pack(
            &report,
            package,
            report.identity.as_ref().unwrap(),
            &archive,
            false,
            &squad::archive::reader::Limits::REFERENCE,
        )
        .unwrap();
        let from_archive = squad::install::install_archive(
            &archive,
            &options(global.clone(), "home2"),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(
            from_archive.after, receipt.after,
            "{name}: the archive installs the same bytes"
        );
        targets.push(("home", receipt.target.clone()));
        targets.push(("home2", from_archive.target.clone()));
        installed += 1;
    }
    assert!(installed >= 100);
    // `squad verify` passes on every installed copy, against its install receipt.
    for (home, target) in &targets {
        let output = crate::support::squad(
            &["verify", target.to_str().unwrap()],
            &sandbox.root,
            &sandbox.root.join(home),
        );
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}: {}",
            target.display(),
            text(&output.stderr)
        );
    }
    // Nothing but <namespace>/<id> directories in either packages root.
    for root in [
        sandbox.packages_root(),
        sandbox.root.join("home2/opencorvus/config/expert-squads"),
    ] {
        for entry in listing(&root) {
            let depth = entry.matches('/').count();
            assert!(
                depth >= 1 || fs::metadata(root.join(&entry)).unwrap().is_dir(),
                "{entry}"
            );
        }
    }
}

const PHASES: [&str; 6] = [
    "locked",
    "staged",
    "journal-written",
    "old-moved",
    "new-in-place",
    "backup-removed",
];

#[cfg(unix)]
#[test]
fn killed_installs_never_leave_a_partial_package() {
    let sandbox = Sandbox::in_project();
    let versions = [
        sandbox.package("valid/minimal", "v0", ""),
        sandbox.package("valid/minimal", "v1", "another revision\n"),
    ];
    let digests = [sandbox.digest(&versions[0]), sandbox.digest(&versions[1])];
    let target = sandbox.target("acme", "minimal-squad");
    assert_eq!(
        sandbox
            .run(&[
                "install",
                versions[0].to_str().unwrap(),
                "--scope",
                "project"
            ])
            .status
            .code(),
        Some(0)
    );
    let mut kills = 0;
    for round in 0..34 {
        for phase in PHASES {
            // The installed version, after any recovery.
            let list = sandbox
                .command(&["list", "--scope", "project", "--format", "json"])
                .env("SQUAD_LOCK_STALE_MS", "100")
                .output()
                .unwrap();
            let document: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
            let current = document["packages"][0]["package_digest"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let installed = digests
                .iter()
                .position(|digest| *digest == current)
                .unwrap_or_else(|| {
                    panic!("round {round} {phase}: installed digest `{current}` is neither version")
                });
            let next = 1 - installed;
            sandbox.kill_at(
                &[
                    "install",
                    versions[next].to_str().unwrap(),
                    "--scope",
                    "project",
                    "--expect",
                    &digests[installed],
                    "--lock-timeout",
                    "20",
                ],
                phase,
            );
            kills += 1;
            // Never a partial package: absent (only while the old one is set aside) or complete.
            if target.exists() {
                let digest = sandbox.digest(&target);
                assert!(
                    digests.contains(&digest),
                    "round {round} {phase}: partial package {digest}"
                );
            } else {
                assert_eq!(
                    phase, "old-moved",
                    "round {round}: the package vanished at {phase}"
                );
            }
        }
    }
    assert!(kills >= 200);
    // A final recovery leaves exactly one complete version and no scratch leftovers.
    let list = sandbox
        .command(&["list", "--scope", "project", "--format", "json"])
        .env("SQUAD_LOCK_STALE_MS", "100")
        .output()
        .unwrap();
    let document: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert!(
        digests
            .iter()
            .any(|d| d == document["packages"][0]["package_digest"].as_str().unwrap())
    );
    let scratch = listing(
        &sandbox
            .root
            .join("project/.opencorvus/expert-squad-staging"),
    );
    assert!(
        scratch.is_empty(),
        "crash leftovers not cleaned: {scratch:?}"
    );
}

#[test]
fn concurrent_installs_serialise() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "same", "");
    let children: Vec<_> = (0..8)
        .map(|_| {
            sandbox
                .command(&["install", package.to_str().unwrap(), "--scope", "project"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outcomes: Vec<String> = children
        .into_iter()
        .map(|child| text(&child.wait_with_output().unwrap().stderr))
        .collect();
    assert_eq!(
        outcomes.iter().filter(|o| o.contains("Installed")).count(),
        1,
        "{outcomes:?}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| o.contains("Unchanged")).count(),
        7,
        "{outcomes:?}"
    );

    // Eight different packages at once: all installed.
    let packages: Vec<PathBuf> = (0..8)
        .map(|index| {
            let path = sandbox.package("valid/minimal", &format!("p{index}"), "");
            let manifest = path.join("expert-squad.jsonc");
            fs::write(
                &manifest,
                fs::read_to_string(&manifest)
                    .unwrap()
                    .replace("minimal-squad", &format!("squad-{index}")),
            )
            .unwrap();
            path
        })
        .collect();
    // All spawned before any is waited for, so they really run at once.
    let children: Vec<_> = packages
        .iter()
        .map(|path| {
            sandbox
                .command(&["install", path.to_str().unwrap(), "--scope", "global"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    }
    let list = sandbox.run(&["list", "--scope", "global", "--format", "json"]);
    let document: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(document["packages"].as_array().unwrap().len(), 8);
}

#[test]
fn global_installs_check_registered_projects_and_activate_selects() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    // A project-scope install registers the project.
    assert_eq!(
        sandbox
            .run(&["install", package.to_str().unwrap(), "--scope", "project"])
            .status
            .code(),
        Some(0)
    );
    let projects = text(&sandbox.run(&["projects"]).stdout);
    assert!(projects.trim_end().ends_with("project"), "{projects}");
    // GLB-3: the same id globally is refused, naming the project and its revision.
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "global"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("has `acme/minimal-squad` 2026.08.20.1"),
        "{}",
        text(&output.stderr)
    );
    assert!(
        !sandbox
            .root
            .join("home/opencorvus/config/expert-squads/acme")
            .exists()
    );
    // Activate writes prompt_profile.active and keeps the rest of the config.
    let config = sandbox.root.join("project/.opencorvus/opencorvus.jsonc");
    fs::write(
        &config,
        "// my settings\n{\n  \"model\": \"m\" // keep\n}\n",
    )
    .unwrap();
    let output = sandbox.run(&["activate", "minimal-squad"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let written = fs::read_to_string(&config).unwrap();
    assert!(
        written.starts_with("// my settings\n{") && written.contains("\"model\": \"m\" // keep"),
        "{written}"
    );
    let value = squad::jsonc::to_value(&squad::jsonc::parse(&written).unwrap());
    assert_eq!(value["prompt_profile"]["active"], "minimal-squad");
    assert_eq!(
        sandbox.run(&["activate", "not-installed"]).status.code(),
        Some(1)
    );
    // Installing never changes the selection.
    let other = sandbox.package("valid/minimal", "other", "x\n");
    let digest = sandbox.digest(&sandbox.target("acme", "minimal-squad"));
    assert_eq!(
        sandbox
            .run(&[
                "install",
                other.to_str().unwrap(),
                "--scope",
                "project",
                "--expect",
                &digest
            ])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(fs::read_to_string(&config).unwrap(), written);
    // After the project uninstalls it, the global install goes through.
    assert_eq!(
        sandbox
            .run(&["uninstall", "minimal-squad", "--scope", "project"])
            .status
            .code(),
        Some(0)
    );
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "global"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

#[test]
fn exact_expectations_and_the_same_version_warning() {
    let sandbox = Sandbox::in_project();
    let v1 = sandbox.package("valid/minimal", "v1", "");
    let v2 = sandbox.package("valid/minimal", "v2", "changed\n");
    let output = sandbox.run(&["pack", v1.to_str().unwrap(), "-o", "v1.zip"]);
    assert_eq!(output.status.code(), Some(0));
    let d1 = sandbox.digest(&v1);
    let wrong = "0".repeat(64);
    // ZIP-8: a wrong digest, namespace or version is refused before anything enters the scope.
    for (flag, value, what) in [
        ("--expect-digest", wrong.as_str(), "package digest mismatch"),
        ("--expect-namespace", "other", "namespace mismatch"),
        ("--expect-version", "2026.01.01.1", "version mismatch"),
    ] {
        let output = sandbox.run(&["install", "v1.zip", "--scope", "project", flag, value]);
        assert_eq!(output.status.code(), Some(1), "{flag}");
        assert!(
            text(&output.stderr).contains(what),
            "{}",
            text(&output.stderr)
        );
        assert!(!sandbox.packages_root().exists());
    }
    let output = sandbox.run(&[
        "install",
        "v1.zip",
        "--scope",
        "project",
        "--expect-digest",
        &d1,
        "--expect-id",
        "minimal-squad",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // Same version, other bytes: replaced with --expect, with a warning (AUTH-8).
    let output = sandbox.run(&[
        "install",
        v2.to_str().unwrap(),
        "--scope",
        "project",
        "--expect",
        &d1,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr)
            .contains("warning: the package changed but its version `2026.08.20.1` did not"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn verify_uses_the_install_receipt() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/release-review", "pkg", "");
    assert_eq!(
        sandbox
            .run(&["install", package.to_str().unwrap(), "--scope", "project"])
            .status
            .code(),
        Some(0)
    );
    let target = sandbox.target("acme", "release-review");
    let target_text = target.to_str().unwrap();
    let output = sandbox.run(&["verify", target_text]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    fs::write(target.join("README.md"), "# tampered\n").unwrap();
    fs::write(
        target.join("skills/release-method/references/extra.md"),
        "x\n",
    )
    .unwrap();
    fs::remove_file(target.join("lib/types.ts")).unwrap();
    let output = sandbox.run(&["verify", target_text]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stdout),
        " changed  README.md\n removed  lib/types.ts\n   added  skills/release-method/references/extra.md\n"
    );
    // A folder that was never installed has no receipt.
    let output = sandbox.run(&["verify", package.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("no receipt"));
}

#[test]
fn registering_a_project_reports_overrides_of_global_packages() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    // Installed globally while the project was unknown to squad...
    assert_eq!(
        sandbox
            .run(&["install", package.to_str().unwrap(), "--scope", "global"])
            .status
            .code(),
        Some(0)
    );
    // ...and present in the project (put there by another tool).
    copy_tree(&package, &sandbox.target("acme", "minimal-squad"));
    // The first project-scope operation registers the project and reports the override.
    let other = sandbox.package("valid/release-review", "other", "");
    let output = sandbox.run(&["install", other.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("project_overrides_global: `minimal-squad`"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn install_reports_an_invalid_package_in_the_format_asked_for() {
    let sandbox = Sandbox::in_project();
    let invalid = sandbox.package("invalid/dangling-ref--skill", "invalid", "");
    let output = sandbox.run(&[
        "install",
        invalid.to_str().unwrap(),
        "--scope",
        "project",
        "--format",
        "sarif",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let sarif: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert!(
        sarif["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["ruleId"] == "dangling-ref")
    );
    let output = sandbox.run(&[
        "install",
        invalid.to_str().unwrap(),
        "--scope",
        "project",
        "--format",
        "github",
    ]);
    assert!(
        text(&output.stdout).starts_with("::error file="),
        "{}",
        text(&output.stdout)
    );
}

/// security-cases §4 #32: the file-size limit makes the staging writes fail the way a full disk
/// does (EFBIG instead of ENOSPC; SIGXFSZ is ignored so the write returns an error).
#[cfg(unix)]
#[test]
fn a_full_disk_leaves_the_scope_untouched() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package(
        "valid/minimal",
        "pkg",
        &"Padding for a large README.\n".repeat(8_000),
    );
    // A first install creates the scope's directories, so only the failing install is compared.
    let small = sandbox.package("valid/minimal", "small", "");
    let output = sandbox.run(&["install", small.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let uninstall = sandbox.run(&["uninstall", "minimal-squad", "--scope", "project"]);
    assert_eq!(
        uninstall.status.code(),
        Some(0),
        "{}",
        text(&uninstall.stderr)
    );
    let before = listing(&sandbox.root.join("project"));
    let output = sandbox
        .program("/bin/sh")
        .args(["-c", "trap '' XFSZ; ulimit -f 64; exec \"$0\" \"$@\""])
        .arg(crate::support::binary())
        .args(["install", package.to_str().unwrap(), "--scope", "project"])
        .output()
        .unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("README.md"),
        "the error names the file that failed: {stderr}"
    );
    assert_eq!(
        listing(&sandbox.root.join("project")),
        before,
        "staging left behind"
    );
    // With room again, the same install succeeds.
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

/// Makes a directory read-only to squad for the duration of a test: permission bits, under the
/// prefix that makes them apply to root too (`support::permission_bits_prefix`), or `chattr +i`
/// where no prefix does. Restores the directory on drop.
#[cfg(unix)]
struct ReadOnly {
    path: PathBuf,
    /// What squad runs under.
    prefix: &'static [String],
    immutable: bool,
}

#[cfg(unix)]
impl ReadOnly {
    /// The guard, or `None` when nothing here makes the directory read-only to squad.
    fn new(path: &Path) -> Option<ReadOnly> {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o555)).unwrap();
        let guard = |prefix, immutable| ReadOnly {
            path: path.to_path_buf(),
            prefix,
            immutable,
        };
        if let Some(prefix) = crate::support::permission_bits_prefix() {
            return Some(guard(prefix, false));
        }
        let probe = path.join(".probe");
        let immutable = Command::new("chattr").arg("+i").arg(path).output();
        if immutable.is_ok_and(|output| output.status.success()) && fs::write(&probe, b"").is_err()
        {
            return Some(guard(&[], true));
        }
        let _ = fs::remove_file(&probe);
        None
    }

    /// `command`, run under the prefix.
    fn wrap(&self, command: &Command) -> Command {
        crate::support::prefixed(self.prefix, command)
    }
}

#[cfg(unix)]
impl Drop for ReadOnly {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if self.immutable {
            let _ = Command::new("chattr").arg("-i").arg(&self.path).output();
        }
        let _ = fs::set_permissions(&self.path, fs::Permissions::from_mode(0o755));
    }
}

/// security-cases §4 #33: a read-only namespace directory is reported with its path, and
/// nothing is left behind.
#[cfg(unix)]
#[test]
fn a_read_only_destination_is_reported_with_its_path() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    // A first install creates the scope's own directories (locks, staging root).
    assert_eq!(
        sandbox
            .run(&["install", package.to_str().unwrap(), "--scope", "project"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        sandbox
            .run(&["uninstall", "minimal-squad", "--scope", "project"])
            .status
            .code(),
        Some(0)
    );
    let namespace = sandbox.packages_root().join("acme");
    fs::create_dir_all(&namespace).unwrap();
    let before = listing(&sandbox.root.join("project"));
    let Some(guard) = ReadOnly::new(&namespace) else {
        crate::support::skipped(
            "nothing here makes a directory read-only to root (setpriv cannot drop \
             CAP_DAC_OVERRIDE and chattr +i is refused)",
        );
        return;
    };
    let install = sandbox.command(&["install", package.to_str().unwrap(), "--scope", "project"]);
    let output = guard.wrap(&install).output().unwrap();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("acme"),
        "the error names the path: {stderr}"
    );
    assert_eq!(
        listing(&sandbox.root.join("project")),
        before,
        "something was left behind"
    );
}

/// "Leftovers of a crashed run are cleaned by the next run, only those squad made": any id's
/// staging directory goes at the next `list`; entries squad did not make stay.
#[test]
fn the_next_run_cleans_only_squad_s_own_leftovers_of_any_id() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let scratch = sandbox
        .root
        .join("project/.opencorvus/expert-squad-staging");
    // The reference's names (LOC-2): `.staging-<ns>-<id>-<uuid>`.
    let ours = scratch.join(".staging-acme-crashed-squad-0f8c5a1e-1b2c-4d3e-8f4a-5b6c7d8e9f00");
    let theirs = scratch.join(".staging-acme-other-by-another-tool");
    // A name that another (namespace, id) pair could own is left while that id's lock is held.
    let shared = scratch.join(".staging-acme-held-squad-0f8c5a1e-1b2c-4d3e-8f4a-5b6c7d8e9f01");
    let held_lock = sandbox
        .root
        .join("home/opencorvus/config/expert-squad-install-locks/held-squad.lock");
    fs::create_dir_all(&held_lock).unwrap();
    fs::create_dir_all(&shared).unwrap();
    for dir in [&ours, &theirs] {
        fs::create_dir_all(dir).unwrap();
        fs::write(dir.join("README.md"), "half-written").unwrap();
    }
    // The held lock stays held for this run (no stale takeover, no waiting).
    let output = sandbox
        .command(&["list", "--scope", "project", "--lock-timeout", "0"])
        .env("SQUAD_LOCK_STALE_MS", "600000")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(!ours.exists(), "squad's crash leftover was not removed");
    assert!(theirs.exists(), "an entry squad did not make was removed");
    assert!(
        shared.exists(),
        "a staging directory another id's lock may protect was removed"
    );
    fs::remove_dir(&held_lock).unwrap();
    let output = sandbox.run(&["list", "--scope", "project"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        !shared.exists(),
        "once no lock protects it, the leftover goes"
    );
}

/// security-cases §3.3 #38: a hand-made folder that differs from the target only by case is a
/// folder/manifest mismatch for `list` and a refusal for `install`, never a merge.
#[test]
fn a_folder_differing_only_by_case_is_reported_and_never_merged() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let odd = sandbox.packages_root().join("Acme/Minimal-Squad");
    crate::support::copy_tree(&package, &odd);
    let before = listing(&sandbox.root.join("project"));
    let output = sandbox.run(&["list", "--scope", "project", "--format", "json"]);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let problem = document["packages"][0]["problem"]
        .as_str()
        .unwrap_or_default();
    assert!(problem.contains("MAN-R4"), "{document}");
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("only by case"));
    assert_eq!(listing(&sandbox.root.join("project")), before);
}

/// security-cases §3.3 #31: killed between the final rename and the receipt, the package is
/// installed (the directory is the truth): `list` shows it and `verify` says it has no receipt.
#[test]
fn a_crash_before_the_receipt_leaves_an_installed_package_without_one() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let digest = sandbox.digest(&package);
    sandbox.kill_at(
        &["install", package.to_str().unwrap(), "--scope", "project"],
        "new-in-place",
    );
    let list = sandbox
        .command(&["list", "--scope", "project", "--format", "json"])
        .env("SQUAD_LOCK_STALE_MS", "100")
        .output()
        .unwrap();
    let document: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(document["packages"][0]["package_digest"], digest.as_str());
    let target = sandbox.target("acme", "minimal-squad");
    let output = sandbox.run(&["verify", target.to_str().unwrap()]);
    assert!(
        text(&output.stderr).contains("no receipt"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(
        sandbox
            .run(&["verify", target.to_str().unwrap(), "--expect", &digest])
            .status
            .code(),
        Some(0)
    );
}

/// security-cases §3.3 #36: a linked OpenCorvus root is followed once, and so is a project's
/// `.opencorvus` that stays inside the project; one that leads out of the project is refused
/// (a clone can carry it). Only the packages root, namespace and target may never be links.
#[cfg(unix)]
#[test]
fn linked_roots_are_followed_once() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let real_home = sandbox.root.join("real-opencorvus");
    let outside = sandbox.root.join("real-project-state");
    let real_project = sandbox.root.join("project/state/opencorvus");
    fs::create_dir_all(&real_home).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::create_dir_all(&real_project).unwrap();
    std::os::unix::fs::symlink(&outside, sandbox.root.join("project/.opencorvus")).unwrap();
    let output = sandbox
        .command(&["install", package.to_str().unwrap(), "--scope", "global"])
        .env("OPENCORVUS_HOME", &real_home)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let linked_home = sandbox.root.join("linked-opencorvus");
    std::os::unix::fs::symlink(&real_home, &linked_home).unwrap();
    let output = sandbox
        .command(&["list", "--scope", "global", "--format", "json"])
        .env("OPENCORVUS_HOME", &linked_home)
        .output()
        .unwrap();
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["packages"][0]["id"], "minimal-squad", "{document}");
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("outside the project"),
        "{}",
        text(&output.stderr)
    );
    assert!(
        listing(&outside).is_empty(),
        "nothing was written through the link"
    );
    fs::remove_file(sandbox.root.join("project/.opencorvus")).unwrap();
    std::os::unix::fs::symlink("state/opencorvus", sandbox.root.join("project/.opencorvus"))
        .unwrap();
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(
        real_project
            .join("expert-squads/acme/minimal-squad/expert-squad.jsonc")
            .is_file()
    );
}

/// JNL-2: a journal whose paths are not the canonical ones for its id is never acted on, so a
/// planted journal cannot move or delete anything.
#[test]
fn a_journal_with_foreign_paths_is_refused_and_nothing_moves() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let digest = sandbox.digest(&package);
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let victim = sandbox.root.join("victim");
    fs::create_dir_all(&victim).unwrap();
    fs::write(victim.join("data.txt"), "precious").unwrap();
    // A link inside makes it look like an interrupted copy ("partial"), which a rollback
    // would delete.
    #[cfg(unix)]
    std::os::unix::fs::symlink("data.txt", victim.join("link")).unwrap();
    let scratch = sandbox
        .root
        .join("project/.opencorvus/expert-squad-staging");
    let target = sandbox.target("acme", "minimal-squad");
    let journal = serde_json::json!({
        "protocol": "opencorvus/expert-squad-package-replacement-intent@1",
        "operationID": "0f8c5a1e-1b2c-4d3e-8f4a-5b6c7d8e9f00",
        "target": target,
        "staging": victim,
        "backup": scratch.join("nowhere-1"),
        "discard": scratch.join("nowhere-2"),
        "installationScope": "project",
        "projectDirectory": sandbox.root.join("project"),
        "namespace": "acme",
        "id": "minimal-squad",
        "beforePackageDigest": digest,
        "afterPackageDigest": "0".repeat(64),
    });
    let journal_path = scratch.join(".package-replacement-minimal-squad.json");
    // An install leaves no empty scratch directory; the planted journal brings one back.
    fs::create_dir_all(&scratch).unwrap();
    fs::write(&journal_path, journal.to_string()).unwrap();
    let output = sandbox.run(&["list", "--scope", "project"]);
    assert!(
        text(&output.stderr).contains("does not equal"),
        "{}",
        text(&output.stderr)
    );
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_ne!(output.status.code(), Some(0));
    assert!(
        text(&output.stderr).contains("does not equal"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(
        fs::read_to_string(victim.join("data.txt")).unwrap(),
        "precious"
    );
    assert!(target.join("expert-squad.jsonc").is_file());
    assert!(
        journal_path.exists(),
        "the journal is left for a person to look at"
    );
}

/// security-cases #36, §2.2: the scratch directory is never a link (staging would land outside
/// the scope, and a rename across file systems is not atomic).
#[cfg(unix)]
#[test]
fn a_linked_scratch_directory_is_refused() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let outside = sandbox.root.join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::create_dir_all(sandbox.root.join("project/.opencorvus")).unwrap();
    std::os::unix::fs::symlink(
        &outside,
        sandbox
            .root
            .join("project/.opencorvus/expert-squad-staging"),
    )
    .unwrap();
    let output = sandbox.run(&["install", package.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("expert-squad-staging"),
        "{}",
        text(&output.stderr)
    );
    assert!(
        listing(&outside).is_empty(),
        "something was staged through the link"
    );
    assert!(!sandbox.target("acme", "minimal-squad").exists());
}

/// security-cases §2.6: squad removes its own stale archive extractions (those of processes
/// that no longer run), never the reference's `expert-squad-archive-*`.
#[test]
fn stale_archive_extractions_of_squad_are_removed_and_the_reference_s_kept() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let archive = sandbox.root.join("pkg.zip");
    let output = sandbox.run(&[
        "pack",
        package.to_str().unwrap(),
        "-o",
        archive.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let tmp = sandbox.root.join("home/opencorvus/tmp");
    // A process id no process has: beyond the kernel's largest.
    let ours = tmp.join("squad-archive-4194305-0f8c5a1e-1b2c-4d3e-8f4a-5b6c7d8e9f00");
    let theirs = tmp.join("expert-squad-archive-0f8c5a1e");
    for dir in [&ours, &theirs] {
        fs::create_dir_all(dir).unwrap();
        fs::write(dir.join("README.md"), "left over").unwrap();
    }
    let output = sandbox.run(&["install", archive.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(!ours.exists(), "squad's stale extraction was kept");
    assert!(theirs.exists(), "the reference's extraction was removed");
    let names: Vec<String> = fs::read_dir(&tmp)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["expert-squad-archive-0f8c5a1e".to_owned()],
        "this run's extraction was left"
    );
}

/// GLB-4 and UNI-2: a relative --project is registered as an absolute path, a missing one is
/// refused, and uninstalling the selected package selects `base` again.
#[test]
fn projects_are_registered_absolutely_and_uninstall_resets_the_selection() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    fs::create_dir_all(sandbox.root.join("home/rel")).unwrap();
    let output = sandbox
        .command(&[
            "install",
            package.to_str().unwrap(),
            "--scope",
            "project",
            "--project",
            "../home/rel",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let output = sandbox.run(&["projects"]);
    let projects = text(&output.stdout);
    assert!(
        projects.contains(
            &sandbox
                .root
                .join("home/rel")
                .canonicalize()
                .unwrap()
                .display()
                .to_string()
        ),
        "{projects}"
    );
    // From anywhere, the global install now sees that project.
    let output = sandbox
        .command(&["install", package.to_str().unwrap(), "--scope", "global"])
        .current_dir(&sandbox.root)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let output = sandbox.run(&[
        "install",
        package.to_str().unwrap(),
        "--scope",
        "project",
        "--project",
        "no/such/dir",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(
        !sandbox.root.join("project/no").exists(),
        "a missing project was created"
    );
    // Select, then uninstall: the selection falls back to base.
    let project = sandbox.root.join("project");
    assert_eq!(
        sandbox
            .run(&["install", package.to_str().unwrap(), "--scope", "project"])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        sandbox.run(&["activate", "minimal-squad"]).status.code(),
        Some(0)
    );
    let output = sandbox.run(&["uninstall", "minimal-squad", "--scope", "project"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let config = fs::read_to_string(project.join(".opencorvus/opencorvus.jsonc")).unwrap();
    assert!(config.contains("\"active\": \"base\""), "{config}");
    // A folder without a package cannot be selected.
    fs::create_dir_all(sandbox.packages_root().join("x/ghost")).unwrap();
    let output = sandbox.run(&["activate", "ghost"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
}

/// security-cases #18: modes stored in an archive (setuid, world-writable) are never applied.
#[cfg(unix)]
#[test]
fn archive_modes_are_ignored() {
    use std::os::unix::fs::PermissionsExt;
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let archive = sandbox.root.join("pkg.zip");
    let output = sandbox.run(&[
        "pack",
        package.to_str().unwrap(),
        "-o",
        archive.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // Every central-directory record claims a setuid, world-writable regular file.
    let mut bytes = fs::read(&archive).unwrap();
    let mut patched = 0;
    let mut at = 0;
    while let Some(offset) = bytes[at..].windows(4).position(|w| w == b"PK\x01\x02") {
        let record = at + offset;
        bytes[record + 38..record + 42].copy_from_slice(&((0o104777u32) << 16).to_le_bytes());
        patched += 1;
        at = record + 4;
    }
    assert!(patched >= 4);
    fs::write(&archive, &bytes).unwrap();
    let output = sandbox.run(&["install", archive.to_str().unwrap(), "--scope", "project"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let target = sandbox.target("acme", "minimal-squad");
    for file in ["expert-squad.jsonc", "README.md", "selector.md"] {
        let mode = fs::metadata(target.join(file))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o7000, 0, "{file}: special bits {mode:o}");
        assert_eq!(mode & 0o002, 0, "{file}: world-writable {mode:o}");
    }
}

/// security-cases #30 for a fresh install: killed at any phase, the target is absent or
/// complete, the next `list` leaves no scratch behind, and the next install succeeds.
#[cfg(unix)]
#[test]
fn killed_fresh_installs_leave_nothing_partial() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let digest = sandbox.digest(&package);
    let target = sandbox.target("acme", "minimal-squad");
    let scratch = sandbox
        .root
        .join("project/.opencorvus/expert-squad-staging");
    for round in 0..5 {
        for phase in ["locked", "staged", "new-in-place"] {
            sandbox.kill_at(
                &["install", package.to_str().unwrap(), "--scope", "project"],
                phase,
            );
            let list = sandbox
                .command(&["list", "--scope", "project", "--format", "json"])
                .env("SQUAD_LOCK_STALE_MS", "100")
                .output()
                .unwrap();
            let document: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
            let packages = document["packages"].as_array().unwrap();
            if target.exists() {
                assert_eq!(
                    packages[0]["package_digest"],
                    digest.as_str(),
                    "round {round} {phase}"
                );
            } else {
                assert!(packages.is_empty(), "round {round} {phase}");
            }
            assert!(
                listing(&scratch).is_empty(),
                "round {round} {phase}: {:?}",
                listing(&scratch)
            );
            let output = sandbox
                .command(&["install", package.to_str().unwrap(), "--scope", "project"])
                .env("SQUAD_LOCK_STALE_MS", "100")
                .output()
                .unwrap();
            assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
            let output = sandbox.run(&["uninstall", "minimal-squad", "--scope", "project"]);
            assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        }
    }
}

/// Bad input (issue #4): a missing source folder or archive is an I/O error naming the path,
/// and the scope is left as it was.
#[test]
fn a_missing_source_is_an_error_naming_it() {
    let sandbox = Sandbox::in_project();
    let before = listing(&sandbox.root);
    for source in ["no-such-package", "no-such-package.zip"] {
        let path = sandbox.root.join(source);
        let output = sandbox.run(&["install", path.to_str().unwrap(), "--scope", "project"]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{source}: {}",
            text(&output.stderr)
        );
        assert!(
            text(&output.stderr).contains(source),
            "{}",
            text(&output.stderr)
        );
    }
    assert_eq!(listing(&sandbox.root), before);
}

/// security-cases §2.2: the private copy of the source lives under `<R>/tmp`; when the scope is
/// on another file system it cannot be renamed into the scratch directory, so it is copied
/// there through descriptors and read back before it is published (VFY-2).
#[cfg(target_os = "linux")]
#[test]
fn a_scope_on_another_file_system_gets_a_checked_copy() {
    let sandbox = Sandbox::in_project();
    let package = sandbox.package("valid/minimal", "pkg", "");
    let digest = sandbox.digest(&package);
    // /dev/shm is a tmpfs on Linux; the sandbox (and so <R>/tmp) is on another file system.
    let other = tempfile::tempdir_in("/dev/shm").expect("/dev/shm must exist for this test");
    use std::os::unix::fs::MetadataExt;
    assert_ne!(
        fs::metadata(other.path()).unwrap().dev(),
        fs::metadata(&sandbox.root).unwrap().dev(),
        "this test needs /dev/shm on another file system than the temporary directory"
    );
    let output = sandbox.run(&[
        "install",
        package.to_str().unwrap(),
        "--scope",
        "project",
        "--project",
        other.path().to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let target = other
        .path()
        .join(".opencorvus/expert-squads/acme/minimal-squad");
    assert_eq!(sandbox.digest(&target), digest);
    assert!(listing(&other.path().join(".opencorvus/expert-squad-staging")).is_empty());
    assert!(listing(&sandbox.root.join("home/opencorvus/tmp")).is_empty());
}

#[test]
fn a_url_needs_its_pin_and_never_prints_a_secret() {
    let sandbox = Sandbox::in_project();
    for (source, needle) in [
        (
            "https://127.0.0.1:9/squad.zip",
            "needs the SHA-256 of its archive",
        ),
        (
            "opencorvus://expert-squad/install?x=1",
            "only namespace, id, version",
        ),
        // Credentials and a query are secrets typed in the wrong place: never printed.
        (
            "https://user:s3cr3t@127.0.0.1:9/squad.zip?token=t0ken",
            "credentials",
        ),
    ] {
        let output = sandbox.run(&["install", source, "--scope", "project"]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{source}: {}",
            text(&output.stderr)
        );
        let stderr = text(&output.stderr);
        assert!(stderr.contains(needle), "{stderr}");
        assert!(!stderr.contains("No such file"), "{stderr}");
        assert!(
            !stderr.contains("s3cr3t") && !stderr.contains("t0ken"),
            "{stderr}"
        );
    }
    let output = sandbox.run(&[
        "install",
        "oci://bob:hunter2@127.0.0.1:1/squads/a/b:1",
        "--scope",
        "project",
    ]);
    let stderr = text(&output.stderr);
    assert!(!stderr.contains("hunter2"), "{stderr}");
    assert!(stderr.contains("squad login 127.0.0.1:1"), "{stderr}");
}
