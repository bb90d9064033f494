//! `squad new` and `squad version` through the real binary.

use std::fs;
use std::path::Path;

use crate::support::{squad, text};

fn squad_on(day: &str, args: &[&str], cwd: &Path, home: &Path) -> std::process::Output {
    crate::support::squad_command(args, cwd, home)
        .env("SQUAD_TODAY", day)
        .output()
        .unwrap()
}

/// Names in `dir` that start with a dot: staging or temporary leftovers.
fn hidden_entries(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect()
}

#[test]
fn list_templates_prints_one_per_line_name_first() {
    let home = tempfile::tempdir().unwrap();
    let output = squad(&["new", "--list-templates"], home.path(), home.path());
    assert_eq!(output.status.code(), Some(0));
    let names: Vec<String> = text(&output.stdout)
        .lines()
        .map(|line| line.split_whitespace().next().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["minimal", "planner-parallel", "delivery"]);
}

#[test]
fn every_template_scaffolds_a_valid_package_that_packs() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    for template in ["minimal", "planner-parallel", "delivery"] {
        for extra in [
            &[][..],
            &["--id", "renamed-squad", "--label", "Renamed"][..],
        ] {
            let dir = format!("{template}-{}", extra.len());
            let mut args = vec![
                "new",
                dir.as_str(),
                "--namespace",
                "acme",
                "--template",
                template,
            ];
            args.extend_from_slice(extra);
            let output = squad_on("2026-11-30", &args, work.path(), home.path());
            assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
            let report = squad::package::validate(&work.path().join(&dir)).unwrap();
            let problems: Vec<_> = report
                .diagnostics
                .iter()
                .filter(|d| d.severity() != squad::diag::Severity::Note)
                .collect();
            assert!(problems.is_empty(), "{template}: {problems:?}");
            let identity = report.identity.unwrap();
            assert_eq!(identity.version, "2026.11.30.1");
            let expected_id = if extra.is_empty() {
                dir.clone()
            } else {
                "renamed-squad".to_owned()
            };
            assert_eq!(identity.id, expected_id);
            let archive = format!("{dir}.zip");
            let output = squad(&["pack", &dir, "-o", &archive], work.path(), home.path());
            assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
            // Installs into a temporary project, from the folder and from the archive.
            let project = work.path().join(format!("project-{dir}"));
            fs::create_dir_all(&project).unwrap();
            for source in [work.path().join(&dir), work.path().join(&archive)] {
                let scope_project = project.to_str().unwrap();
                let output = squad(
                    &[
                        "install",
                        source.to_str().unwrap(),
                        "--scope",
                        "project",
                        "--project",
                        scope_project,
                    ],
                    work.path(),
                    home.path(),
                );
                assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
            }
        }
    }
    assert!(hidden_entries(work.path()).is_empty());
}

#[test]
fn new_refuses_and_leaves_nothing_behind() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let cwd = work.path();
    // An existing empty directory, and a non-empty one: refused, untouched.
    fs::create_dir(cwd.join("empty")).unwrap();
    fs::create_dir(cwd.join("full")).unwrap();
    fs::write(cwd.join("full/keep.txt"), "keep").unwrap();
    for dir in ["empty", "full"] {
        let output = squad(&["new", dir, "--namespace", "acme"], cwd, home.path());
        assert_eq!(output.status.code(), Some(2));
        assert!(
            text(&output.stderr).contains("already exists"),
            "{}",
            text(&output.stderr)
        );
    }
    assert_eq!(fs::read_dir(cwd.join("empty")).unwrap().count(), 0);
    assert_eq!(
        fs::read_to_string(cwd.join("full/keep.txt")).unwrap(),
        "keep"
    );
    // DIR inside a file.
    fs::write(cwd.join("a-file"), "x").unwrap();
    let output = squad(
        &["new", "a-file/pkg", "--namespace", "acme", "--id", "pkg"],
        cwd,
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("is a file"),
        "{}",
        text(&output.stderr)
    );
    // Invalid namespace and id: the message shows the pattern.
    for args in [
        ["new", "ok", "--namespace", "Acme"],
        ["new", "Bad_Name", "--namespace", "acme"],
    ] {
        let output = squad(&args, cwd, home.path());
        assert_eq!(output.status.code(), Some(2));
        assert!(
            text(&output.stderr).contains("^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$"),
            "{}",
            text(&output.stderr)
        );
    }
    // A version that is not a real date; an unknown template.
    let output = squad(
        &[
            "new",
            "v",
            "--namespace",
            "acme",
            "--version",
            "2026.02.29.1",
        ],
        cwd,
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("real calendar date"));
    let output = squad(
        &["new", "t", "--namespace", "acme", "--template", "nope"],
        cwd,
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    for absent in ["ok", "Bad_Name", "v", "t"] {
        assert!(!cwd.join(absent).exists(), "{absent} was created");
    }
    assert!(hidden_entries(cwd).is_empty(), "{:?}", hidden_entries(cwd));
}

#[test]
fn version_bump_follows_the_clock_and_keeps_every_other_byte() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let cwd = work.path();
    fs::create_dir(cwd.join("pkg")).unwrap();
    let original = "// a comment that must survive\n{\n  \"schema_version\" : 1,   \"version\":\"2026.08.13.1\" , /* here too */\n\t\"id\": \"x\"\n}\n";
    fs::write(cwd.join("pkg/expert-squad.jsonc"), original).unwrap();
    let bump = |day: &str| {
        let output = squad_on(day, &["version", "bump", "pkg"], cwd, home.path());
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        text(&output.stdout).trim().to_owned()
    };
    assert_eq!(bump("2026-08-19"), "2026.08.19.1");
    assert_eq!(bump("2026-08-19"), "2026.08.19.2");
    for _ in 0..8 {
        bump("2026-08-19");
    }
    assert_eq!(bump("2026-08-19"), "2026.08.19.11");
    assert_eq!(bump("2026-08-20"), "2026.08.20.1");
    let after = fs::read_to_string(cwd.join("pkg/expert-squad.jsonc")).unwrap();
    assert_eq!(after, original.replace("2026.08.13.1", "2026.08.20.1"));
    assert!(hidden_entries(&cwd.join("pkg")).is_empty());
}

#[test]
fn version_check_for_ci() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let cwd = work.path();
    assert_eq!(
        squad_on(
            "2026-11-30",
            &["new", "pkg", "--namespace", "acme"],
            cwd,
            home.path()
        )
        .status
        .code(),
        Some(0)
    );
    assert_eq!(
        squad_on("2026-11-30", &["version", "check", "pkg"], cwd, home.path())
            .status
            .code(),
        Some(0)
    );
    // Dated after today.
    assert_eq!(
        squad_on("2026-11-29", &["version", "check", "pkg"], cwd, home.path())
            .status
            .code(),
        Some(1)
    );
    // Published, then changed without a bump: refused; after a bump: fine.
    assert_eq!(
        squad(&["pack", "pkg", "-o", "pub.zip"], cwd, home.path())
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        squad_on(
            "2026-11-30",
            &["version", "check", "pkg", "--published", "pub.zip"],
            cwd,
            home.path()
        )
        .status
        .code(),
        Some(0)
    );
    fs::write(cwd.join("pkg/README.md"), "# changed\n").unwrap();
    let output = squad_on(
        "2026-11-30",
        &["version", "check", "pkg", "--published", "pub.zip"],
        cwd,
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("version bump"));
    assert_eq!(
        squad_on("2026-12-01", &["version", "bump", "pkg"], cwd, home.path())
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        squad_on(
            "2026-12-01",
            &["version", "check", "pkg", "--published", "pub.zip"],
            cwd,
            home.path()
        )
        .status
        .code(),
        Some(0)
    );
}
