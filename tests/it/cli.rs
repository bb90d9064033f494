//! The real binary: exit codes, rendered output, JSON output, and the rules that need a real
//! filesystem (links, special files, empty directories, odd names, read-only validation).

use std::fs;
use std::path::Path;

use crate::support::{error_codes, fixtures, squad, temp_copy, text};

#[test]
fn valid_package_exits_zero() {
    let home = tempfile::tempdir().unwrap();
    let output = squad(&["validate", "valid/minimal"], &fixtures(), home.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stderr),
        "       Valid acme/minimal-squad 2026.08.20.1 (0 errors, 0 warnings)\n"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn invalid_package_renders_every_problem_with_positions() {
    let (_dir, package) = temp_copy("valid/minimal");
    let manifest = package.join("expert-squad.jsonc");
    let text_before = fs::read_to_string(&manifest).unwrap();
    let broken = text_before
        .replace(
            "\"label\": \"Minimal\"",
            "\"label\": \"Minimal\", \"lable\": 1",
        )
        .replace(
            "\"version\": \"2026.08.20.1\"",
            "\"version\": \"2026.02.30.1\"",
        );
    fs::write(&manifest, broken).unwrap();
    fs::write(package.join("LICENSE"), "MIT").unwrap();
    let home = tempfile::tempdir().unwrap();
    let output = squad(
        &["validate", "package"],
        package.parent().unwrap(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        r#"error[unknown-top-level-entry]: unknown top-level entry `LICENSE`
  --> package/LICENSE
help: the package root may hold only expert-squad.jsonc, README.md, selector.md and the directories agents/, skills/, tools/, mcp/, lib/, assets/; keep other files outside the package

error[unknown-field]: unknown field `lable`
 --> package/expert-squad.jsonc:2:88
  |
2 |   "schema_version": 1, "namespace": "acme", "id": "minimal-squad", "label": "Minimal", "lable": 1,
  |                                                                                        ^^^^^^^ not allowed here
  = at `/lable`
help: did you mean `label`? This object already sets `label`

error[invalid-version-date]: version date must be a real calendar date
 --> package/expert-squad.jsonc:3:14
  |
3 |   "version": "2026.02.30.1", "product_pillars": ["work"], "readme": "README.md",
  |              ^^^^^^^^^^^^^^
  = at `/version`
help: versions are YYYY.MM.DD.N: a real UTC date (year 0100 or later) and a revision N >= 1 without leading zeros, e.g. `2026.08.20.1`
help: `squad version bump` stamps today's date

error: package `package` is invalid: 3 errors, 0 warnings
"#
    );
}

#[test]
fn json_output_is_one_versioned_document() {
    let home = tempfile::tempdir().unwrap();
    let output = squad(
        &[
            "validate",
            "--format",
            "json",
            "valid/minimal",
            "invalid/dangling-ref--skill",
        ],
        &fixtures(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stderr.is_empty(), "{}", text(&output.stderr));
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["schema_version"], 1);
    assert_eq!(document["summary"]["packages"], 2);
    assert_eq!(document["summary"]["valid"], 1);
    assert_eq!(document["summary"]["invalid"], 1);
    let packages = document["packages"].as_array().unwrap();
    assert_eq!(packages[0]["valid"], true);
    let diagnostic = packages[1]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|diagnostic| diagnostic["code"] == "dangling-ref")
        .unwrap();
    assert_eq!(diagnostic["severity"], "error");
    assert_eq!(diagnostic["file"], "expert-squad.jsonc");
    assert_eq!(
        diagnostic["pointer"],
        "/capability_projection/scheduler/package_skill_refs/1"
    );
    assert_eq!(diagnostic["start"]["line"], 31);
    assert_eq!(diagnostic["start"]["column"], 70);
    assert!(diagnostic["start"]["offset"].as_u64().unwrap() > 0);
}

#[test]
fn missing_folder_is_an_io_error_naming_the_path() {
    let home = tempfile::tempdir().unwrap();
    let output = squad(&["validate", "no/such/package"], &fixtures(), home.path());
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        "error: package folder `no/such/package` does not exist\n"
    );
}

#[test]
fn a_file_is_not_a_package_and_a_broken_archive_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let output = squad(
        &["validate", "valid/minimal/README.md"],
        &fixtures(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("is not a folder"));
    let archive = home.path().join("package.zip");
    fs::write(&archive, b"PK").unwrap();
    let output = squad(
        &["validate", archive.to_str().unwrap()],
        &fixtures(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("is not a usable package archive"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn default_path_is_the_current_directory() {
    let home = tempfile::tempdir().unwrap();
    let output = squad(
        &["validate"],
        &fixtures().join("valid/minimal"),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

#[test]
fn colour_only_when_asked() {
    let home = tempfile::tempdir().unwrap();
    let plain = squad(
        &["validate", "invalid/unknown-field--agent-status"],
        &fixtures(),
        home.path(),
    );
    assert!(!text(&plain.stderr).contains('\x1b'));
    let coloured = squad(
        &[
            "validate",
            "--color",
            "always",
            "invalid/unknown-field--agent-status",
        ],
        &fixtures(),
        home.path(),
    );
    let coloured = text(&coloured.stderr);
    assert!(
        coloured.contains("\x1b[1m\x1b[91merror[unknown-field]"),
        "{coloured}"
    );
    // Colour changes nothing but the styles.
    assert_eq!(
        anstream::adapter::strip_str(&coloured).to_string(),
        text(&plain.stderr)
    );
}

#[test]
fn help_explains_exit_codes() {
    let home = tempfile::tempdir().unwrap();
    let output = squad(&["validate", "--help"], &fixtures(), home.path());
    let help = text(&output.stdout);
    assert!(help.contains("--format"), "{help}");
    let output = squad(&["--help"], &fixtures(), home.path());
    assert!(text(&output.stdout).contains("Exit status:"));
}

/// Lists every path with its bytes (files) or nothing (directories), to prove nothing changed.
fn snapshot(root: &Path) -> Vec<(String, Option<Vec<u8>>)> {
    let mut entries: Vec<_> = walkdir::WalkDir::new(root)
        .min_depth(1)
        .into_iter()
        .map(|entry| {
            let entry = entry.unwrap();
            let path = entry.path();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let bytes = (!entry.file_type().is_dir()).then(|| fs::read(path).unwrap());
            (relative, bytes)
        })
        .collect();
    entries.sort();
    entries
}

#[test]
fn validation_writes_nothing() {
    let (dir, package) = temp_copy("valid/release-review");
    let home = tempfile::tempdir().unwrap();
    let before = (snapshot(dir.path()), snapshot(home.path()));
    let output = squad(&["validate", "package"], dir.path(), home.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!((snapshot(dir.path()), snapshot(home.path())), before);
    drop(package);
}

#[cfg(unix)]
#[test]
fn symlinks_and_special_files_are_refused() {
    let (_dir, package) = temp_copy("valid/release-review");
    std::os::unix::fs::symlink(
        "../README.md",
        package.join("skills/release-method/references/link.md"),
    )
    .unwrap();
    assert_eq!(error_codes(&package), ["symlink"]);

    let (_dir, package) = temp_copy("valid/minimal");
    let fifo = package.join("agents/worker/pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(error_codes(&package), ["special-file"]);
}

/// VAL-3: a file squad may not read is an error naming it, not a crash or a skipped file.
#[cfg(unix)]
#[test]
fn an_unreadable_file_is_reported() {
    use std::os::unix::fs::PermissionsExt;
    let Some(prefix) = crate::support::permission_bits_prefix() else {
        crate::support::skipped(
            "nothing here makes a file unreadable to root (setpriv cannot drop CAP_DAC_OVERRIDE)",
        );
        return;
    };
    let (dir, package) = temp_copy("valid/minimal");
    let prompt = package.join("agents/worker/system.md");
    fs::set_permissions(&prompt, fs::Permissions::from_mode(0o000)).unwrap();
    let command = crate::support::squad_command(
        &["validate", "--format", "json", package.to_str().unwrap()],
        dir.path(),
        dir.path(),
    );
    let output = crate::support::prefixed(prefix, &command).output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("not JSON: {}", text(&output.stderr)));
    let diagnostics = report["packages"][0]["diagnostics"].as_array().unwrap();
    let unreadable: Vec<_> = diagnostics
        .iter()
        .filter(|d| d["code"] == "unreadable")
        .collect();
    assert_eq!(unreadable.len(), 1, "{diagnostics:?}");
    assert_eq!(unreadable[0]["file"], "agents/worker/system.md");
    assert_eq!(output.status.code(), Some(1));
}

#[cfg(unix)]
#[test]
fn a_linked_package_root_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("linked");
    std::os::unix::fs::symlink(fixtures().join("valid/minimal"), &link).unwrap();
    assert_eq!(error_codes(&link), ["symlink"]);
}

#[cfg(target_os = "linux")]
#[test]
fn file_names_that_are_not_utf8_are_refused() {
    use std::os::unix::ffi::OsStrExt;
    let (_dir, package) = temp_copy("valid/release-review");
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.md");
    fs::write(
        package.join("skills/release-method/references").join(name),
        "x",
    )
    .unwrap();
    assert_eq!(error_codes(&package), ["non-portable-path"]);
}

#[test]
fn empty_directories_follow_the_reference() {
    // ROOT-3a: a directory without files is invisible to the agent and resource rules...
    let (_dir, package) = temp_copy("valid/release-review");
    for empty in [
        "agents/undeclared",
        "agents/builder/other",
        "tools/sub",
        "mcp/sub",
        "skills/empty-group",
    ] {
        fs::create_dir_all(package.join(empty)).unwrap();
    }
    assert_eq!(error_codes(&package), Vec::<String>::new());
    // ...but not to the root allow-list or the runtime-internal names.
    fs::create_dir(package.join("docs")).unwrap();
    fs::create_dir_all(package.join("skills/release-method/runtime")).unwrap();
    let mut codes = error_codes(&package);
    codes.sort();
    assert_eq!(codes, ["runtime-internal-entry", "unknown-top-level-entry"]);
}

#[test]
fn sources_inside_runtime_storage_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let installed = dir
        .path()
        .join("project/.opencorvus/expert-squads/acme/minimal-squad");
    crate::support::copy_tree(&fixtures().join("valid/minimal"), &installed);
    assert_eq!(error_codes(&installed), ["source-in-runtime-storage"]);
}
