//! `squad digest`, `squad pack` and `squad verify` through the real binary and the library.

use std::fs;
use std::path::Path;

use squad::archive::reader::{Limits, read_package};
use squad::digest::digest_entries;

use crate::support::{copy_tree, corpus, fixtures, squad, temp_copy, text};

fn stdout_line(output: &std::process::Output) -> String {
    text(&output.stdout).trim().to_owned()
}

#[test]
fn digest_matches_the_reference_vector() {
    // DG-V 6: the reference's own digest of this package.
    let Some(corpus) = corpus() else { return };
    let home = tempfile::tempdir().unwrap();
    let output = squad(&["digest", "actuarial-reserving"], &corpus, home.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        stdout_line(&output),
        "615661b74036448d6e51c542120dc7c880a099742e9d9177139f8ff2cedd9be0"
    );
}

#[test]
fn every_corpus_package_has_the_same_digest_packed() {
    let Some(corpus) = corpus() else { return };
    let out = tempfile::tempdir().unwrap();
    let mut packages: Vec<_> = fs::read_dir(corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    packages.sort();
    assert!(
        packages.len() >= 100,
        "only {} corpus packages",
        packages.len()
    );
    for package in &packages {
        let report = squad::package::validate(package).unwrap();
        let paths: Vec<String> = report
            .tree
            .files()
            .map(|entry| entry.path.clone())
            .collect();
        let folder = squad::digest::digest_folder(package, &paths, false)
            .unwrap()
            .package_digest;
        let archive = out.path().join(format!(
            "{}.zip",
            package.file_name().unwrap().to_string_lossy()
        ));
        let packed = squad::pack::pack(
            &report,
            package,
            report.identity.as_ref().unwrap(),
            &archive,
            false,
            &Limits::REFERENCE,
        )
        .unwrap();
        assert_eq!(packed.package_digest, folder, "{}", package.display());
        let read = read_package(&fs::read(&archive).unwrap(), &Limits::REFERENCE).unwrap();
        assert_eq!(digest_entries(&read.files), folder, "{}", package.display());
        // A copy with other mtimes and modes packs to the same bytes.
        let copy = out.path().join("copy").join(package.file_name().unwrap());
        copy_tree(package, &copy);
        touch_and_chmod(&copy);
        let copied = squad::package::validate(&copy).unwrap();
        let second = out.path().join("second.zip");
        let _ = fs::remove_file(&second);
        squad::pack::pack(
            &copied,
            &copy,
            copied.identity.as_ref().unwrap(),
            &second,
            false,
            &Limits::REFERENCE,
        )
        .unwrap();
        assert_eq!(
            fs::read(&archive).unwrap(),
            fs::read(&second).unwrap(),
            "{}",
            package.display()
        );
    }
}

/// Gives every file another mtime and mode.
fn touch_and_chmod(root: &Path) {
    for entry in walkdir::WalkDir::new(root) {
        let entry = entry.unwrap();
        if entry.file_type().is_dir() {
            continue;
        }
        let path = entry.path();
        let file = fs::File::options().write(true).open(path).unwrap();
        file.set_modified(
            std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_234_567_890),
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(path, fs::Permissions::from_mode(0o600)).unwrap();
        }
    }
}

fn pack_bytes(package: &Path, cwd: &Path) -> Vec<u8> {
    let home = tempfile::tempdir().unwrap();
    let archive = cwd.join("out.zip");
    let _ = fs::remove_file(&archive);
    let output = squad(
        &[
            "pack",
            package.to_str().unwrap(),
            "-o",
            archive.to_str().unwrap(),
        ],
        cwd,
        home.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    fs::read(archive).unwrap()
}

#[cfg(unix)]
#[test]
fn pack_is_byte_reproducible() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, package) = temp_copy("valid/release-review");
    let first = pack_bytes(&package, dir.path());
    // Touch, chmod and copy the tree: nothing of it may reach the archive.
    let copy = dir.path().join("elsewhere/deeper/release-review");
    copy_tree(&package, &copy);
    for entry in [
        "README.md",
        "tools/summarize-changes.ts",
        "skills/release-method/SKILL.md",
    ] {
        let path = copy.join(entry);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        let file = fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(
            std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(2_000_000_000),
        )
        .unwrap();
    }
    let second = pack_bytes(&copy, dir.path());
    assert_eq!(first, second);
    // The archives of two fixtures, pinned: a backend or writer change shows up here.
    assert_eq!(
        squad::digest::Sha256Digest::of(&first).hex(),
        "32993ac768184a036627fd6f2000a2b48c4bb1b9f4e2124499ec73fb12a20b47"
    );
    let minimal = pack_bytes(&fixtures().join("valid/minimal"), dir.path());
    assert_eq!(
        squad::digest::Sha256Digest::of(&minimal).hex(),
        "579f78538c899a54187c3f47054bea8136a7958f6323844ceb86bd2bef2634ba"
    );
}

#[test]
fn pack_refuses_bad_outputs_and_writes_nothing() {
    let (dir, package) = temp_copy("valid/minimal");
    let home = tempfile::tempdir().unwrap();
    let cwd = dir.path();
    // Output inside the package.
    let output = squad(
        &["pack", "package", "-o", "package/agents/x.zip"],
        cwd,
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("inside the package"));
    assert!(!package.join("agents/x.zip").exists());
    // Existing output: refused, untouched; replaced with --force.
    fs::write(cwd.join("taken.zip"), "keep").unwrap();
    let output = squad(&["pack", "package", "-o", "taken.zip"], cwd, home.path());
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(fs::read_to_string(cwd.join("taken.zip")).unwrap(), "keep");
    let output = squad(
        &["pack", "package", "-o", "taken.zip", "--force"],
        cwd,
        home.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(fs::read(cwd.join("taken.zip")).unwrap().starts_with(b"PK"));
    // Missing folder; a path that is a file; an invalid package.
    assert_eq!(
        squad(&["pack", "nope"], cwd, home.path()).status.code(),
        Some(2)
    );
    assert_eq!(
        squad(&["pack", "taken.zip"], cwd, home.path())
            .status
            .code(),
        Some(2)
    );
    fs::write(package.join("LICENSE"), "x").unwrap();
    let output = squad(&["pack", "package", "-o", "invalid.zip"], cwd, home.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(!cwd.join("invalid.zip").exists());
    // No temporary files left behind.
    let leftovers: Vec<_> = fs::read_dir(cwd)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn pack_refuses_packages_beyond_the_import_limits() {
    let (dir, package) = temp_copy("valid/release-review");
    // 5 MiB asset: over the 4 MiB per-file limit. It must be imported to be valid.
    fs::write(package.join("assets/big.txt"), vec![b'a'; 5 << 20]).unwrap();
    let tool = package.join("tools/summarize-changes.ts");
    let source = fs::read_to_string(&tool).unwrap();
    fs::write(
        &tool,
        format!(
            "import big from \"../assets/big.txt\";\nexport const bigLength = big.length;\n{source}"
        ),
    )
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let output = squad(
        &["pack", "package", "-o", "big.zip"],
        dir.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("per-file limit"),
        "{}",
        text(&output.stderr)
    );
    let output = squad(
        &[
            "pack",
            "package",
            "-o",
            "big.zip",
            "--no-limits",
            "--format",
            "json",
        ],
        dir.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    // The big file is streamed, not read whole, by pack's digest: it must still agree.
    let packed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let folder = squad(&["digest", "package"], dir.path(), home.path());
    assert_eq!(packed["package_digest"], stdout_line(&folder));
}

#[test]
fn pack_refuses_a_path_validate_warns_is_too_long() {
    let (dir, package) = temp_copy("valid/release-review");
    let long = format!("{}/{}/x.txt", "a".repeat(120), "b".repeat(120));
    fs::create_dir_all(package.join("assets").join(&long).parent().unwrap()).unwrap();
    fs::write(package.join("assets").join(&long), "x").unwrap();
    let tool = package.join("tools/summarize-changes.ts");
    let source = fs::read_to_string(&tool).unwrap();
    fs::write(
        &tool,
        format!("import long from \"../assets/{long}\";\nexport const longLength = long.length;\n{source}"),
    )
    .unwrap();
    assert!(crate::support::error_codes(&package).is_empty());
    let home = tempfile::tempdir().unwrap();
    let output = squad(
        &["pack", "package", "-o", "long.zip", "--no-limits"],
        dir.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains(
            "too long to install everywhere: package path is 254 characters long, more than 240"
        ),
        "{}",
        text(&output.stderr)
    );
    assert!(!dir.path().join("long.zip").exists());
}

#[test]
fn digest_of_folder_and_archive_agree_and_list_files() {
    let (dir, package) = temp_copy("valid/release-review");
    let home = tempfile::tempdir().unwrap();
    let folder = squad(&["digest", "package"], dir.path(), home.path());
    squad(&["pack", "package", "-o", "p.zip"], dir.path(), home.path());
    let archive = squad(&["digest", "p.zip"], dir.path(), home.path());
    assert_eq!(stdout_line(&folder), stdout_line(&archive));
    let listed = squad(
        &["digest", "package", "--files", "--format", "json"],
        dir.path(),
        home.path(),
    );
    let document: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(document["package_digest"], stdout_line(&folder));
    let files = document["files"].as_array().unwrap();
    assert_eq!(files.len(), 19);
    drop(package);
    assert_eq!(files[0]["path"], "README.md");
}

/// SHA-256 by `sha256sum` over the package-tree v1 stream (DG-1…4) of `files`, written out here
/// from the spec rather than by squad's own code.
fn reference_digest(files: &[(&str, &[u8])]) -> String {
    use std::io::Write;
    let mut sorted = files.to_vec();
    // DG-3: UTF-16 code-unit order.
    sorted.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    let mut stream = b"opencorvus.expert-squad.package-tree.v1".to_vec();
    for (path, content) in sorted {
        stream.extend_from_slice(&(path.len() as u32).to_be_bytes());
        stream.extend_from_slice(path.as_bytes());
        stream.extend_from_slice(&(content.len() as u64).to_be_bytes());
        stream.extend_from_slice(content);
    }
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum (coreutils) is needed by this test");
    child.stdin.take().unwrap().write_all(&stream).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    text(&output.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

#[test]
fn a_tree_of_the_two_required_files_has_a_digest() {
    // ROOT-2's two files are the whole contract: no selector.md, and `{}` is a manifest enough.
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let package = dir.path().join("package");
    fs::create_dir(&package).unwrap();
    fs::write(package.join("expert-squad.jsonc"), "{}").unwrap();
    fs::write(package.join("README.md"), "# R\n").unwrap();
    let expected = reference_digest(&[("expert-squad.jsonc", b"{}"), ("README.md", b"# R\n")]);
    let output = squad(&["digest", "package"], dir.path(), home.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(stdout_line(&output), expected);
    let verified = squad(
        &["verify", "package", "--expect", &expected],
        dir.path(),
        home.path(),
    );
    assert_eq!(
        verified.status.code(),
        Some(0),
        "{}",
        text(&verified.stderr)
    );
    // Validation still asks for the selector.
    let validated = squad(&["validate", "package"], dir.path(), home.path());
    assert_eq!(validated.status.code(), Some(1));
    assert!(
        text(&validated.stderr).contains("selector.md"),
        "{}",
        text(&validated.stderr)
    );

    fs::remove_file(package.join("README.md")).unwrap();
    let output = squad(&["digest", "package"], dir.path(), home.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("missing README.md"),
        "{}",
        text(&output.stderr)
    );
}

/// The acceptance case of the digest's speed, as a correctness test: a package holding a 1 GiB
/// asset (sparse, so it costs no disk) digests to what `sha256sum` computes over the
/// package-tree v1 stream written out here, streamed rather than held in memory.
#[test]
fn a_package_holding_a_one_gib_asset_has_the_reference_digest() {
    use std::io::Write;
    const SIZE: u64 = 1 << 30;
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let package = dir.path().join("package");
    fs::create_dir_all(package.join("assets")).unwrap();
    fs::write(package.join("expert-squad.jsonc"), "{}").unwrap();
    fs::write(package.join("README.md"), "# R\n").unwrap();
    fs::File::create(package.join("assets/blob.bin"))
        .unwrap()
        .set_len(SIZE)
        .unwrap();
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum (coreutils) is needed by this test");
    {
        let mut stdin = std::io::BufWriter::new(child.stdin.take().unwrap());
        stdin
            .write_all(b"opencorvus.expert-squad.package-tree.v1")
            .unwrap();
        // DG-3: UTF-16 code-unit order.
        for (path, length) in [
            ("README.md", 4u64),
            ("assets/blob.bin", SIZE),
            ("expert-squad.jsonc", 2),
        ] {
            stdin.write_all(&(path.len() as u32).to_be_bytes()).unwrap();
            stdin.write_all(path.as_bytes()).unwrap();
            stdin.write_all(&length.to_be_bytes()).unwrap();
            match path {
                "README.md" => stdin.write_all(b"# R\n").unwrap(),
                "expert-squad.jsonc" => stdin.write_all(b"{}").unwrap(),
                _ => {
                    let zeros = vec![0u8; 1 << 20];
                    for _ in 0..SIZE / zeros.len() as u64 {
                        stdin.write_all(&zeros).unwrap();
                    }
                }
            }
        }
    }
    let reference = child.wait_with_output().unwrap();
    assert!(reference.status.success());
    let expected = text(&reference.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    let output = squad(&["digest", "package"], dir.path(), home.path());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(stdout_line(&output), expected);
}

#[test]
fn digest_ignores_the_manifest_but_not_the_tree_contract() {
    let (dir, package) = temp_copy("valid/minimal");
    let home = tempfile::tempdir().unwrap();
    fs::write(package.join("expert-squad.jsonc"), "{ broken").unwrap();
    assert_eq!(
        squad(&["digest", "package"], dir.path(), home.path())
            .status
            .code(),
        Some(0)
    );
    fs::create_dir_all(package.join("agents/worker/runtime")).unwrap();
    let output = squad(&["digest", "package"], dir.path(), home.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains("runtime-internal-entry"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn verify_names_each_drifted_file() {
    let (dir, package) = temp_copy("valid/release-review");
    let home = tempfile::tempdir().unwrap();
    let record = squad(
        &["digest", "package", "--files", "--format", "json"],
        dir.path(),
        home.path(),
    );
    fs::write(dir.path().join("record.json"), &record.stdout).unwrap();
    squad(&["pack", "package", "-o", "p.zip"], dir.path(), home.path());
    let digest =
        serde_json::from_slice::<serde_json::Value>(&record.stdout).unwrap()["package_digest"]
            .as_str()
            .unwrap()
            .to_owned();

    for record in ["record.json", "p.zip"] {
        let output = squad(
            &["verify", "package", "--record", record],
            dir.path(),
            home.path(),
        );
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    }
    assert_eq!(
        squad(
            &["verify", "package", "--expect", &digest],
            dir.path(),
            home.path()
        )
        .status
        .code(),
        Some(0)
    );

    fs::write(package.join("README.md"), "# edited\n").unwrap();
    fs::write(
        package.join("skills/release-method/references/new.md"),
        "new\n",
    )
    .unwrap();
    fs::remove_file(package.join("lib/types.ts")).unwrap();
    for record in ["record.json", "p.zip"] {
        let output = squad(
            &["verify", "package", "--record", record],
            dir.path(),
            home.path(),
        );
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(
            text(&output.stdout),
            " changed  README.md\n removed  lib/types.ts\n   added  skills/release-method/references/new.md\n"
        );
    }
    let output = squad(
        &["verify", "package", "--expect", &digest],
        dir.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("has drifted"));
    let output = squad(&["verify", "package"], dir.path(), home.path());
    assert_eq!(output.status.code(), Some(2));
    let output = squad(
        &["verify", "package", "--expect", "ABC"],
        dir.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
}
