//! No input panics: hostile manifests give diagnostics, not crashes.

use std::fs;

use crate::support::{error_codes, squad, temp_copy, text};

fn with_manifest(bytes: &[u8]) -> Vec<String> {
    let (_dir, package) = temp_copy("valid/minimal");
    fs::write(package.join("expert-squad.jsonc"), bytes).unwrap();
    error_codes(&package)
}

#[test]
fn truncated_manifests() {
    let manifest =
        fs::read(crate::support::fixtures().join("valid/release-review/expert-squad.jsonc"))
            .unwrap();
    for end in (0..manifest.len()).step_by(97) {
        let codes = with_manifest(&manifest[..end]);
        assert!(!codes.is_empty(), "truncated at {end} was accepted");
    }
}

#[test]
fn binary_and_non_utf8_manifests() {
    assert_eq!(
        with_manifest(&[0, 159, 146, 150, 255, 254, 0, 1]),
        ["jsonc-syntax"]
    );
    let mut latin1 =
        fs::read(crate::support::fixtures().join("valid/minimal/expert-squad.jsonc")).unwrap();
    let at = latin1.windows(7).position(|w| w == b"Minimal").unwrap();
    latin1[at + 1] = 0xe9;
    // Invalid UTF-8 is read with replacement, as the reference does: a warning, still valid.
    assert_eq!(with_manifest(&latin1), Vec::<String>::new());
    let (_dir, package) = temp_copy("valid/minimal");
    fs::write(package.join("expert-squad.jsonc"), &latin1).unwrap();
    let codes: Vec<_> = crate::support::pinned(&package)
        .into_iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(codes, ["invalid-utf8"]);
}

#[test]
fn deeply_nested_manifest_through_the_binary() {
    let (dir, package) = temp_copy("valid/minimal");
    let nested = format!(
        "{{\"label\": {}{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    fs::write(package.join("expert-squad.jsonc"), nested).unwrap();
    let home = tempfile::tempdir().unwrap();
    let output = squad(&["validate", "package"], dir.path(), home.path());
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("nested deeper than"));
    let nested_objects = "{\"a\":".repeat(10_000) + "1" + &"}".repeat(10_000);
    assert_eq!(with_manifest(nested_objects.as_bytes()), ["jsonc-syntax"]);
}

#[test]
fn deeply_nested_readme_frontmatter_is_refused_as_in_skill_md() {
    let (dir, package) = temp_copy("valid/minimal");
    let deep = format!("---\n{}x\n---\n# Minimal\n", "- ".repeat(200_000));
    fs::write(package.join("README.md"), deep).unwrap();
    let home = tempfile::tempdir().unwrap();
    let output = squad(&["validate", "package"], dir.path(), home.path());
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(
        text(&output.stderr).contains("readme: invalid frontmatter: YAML nested too deeply"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(error_codes(&package), ["readme-frontmatter"]);
}

#[test]
fn huge_manifest() {
    // 50 MB: a valid manifest padded with a long comment, then with a huge string value.
    let manifest =
        fs::read_to_string(crate::support::fixtures().join("valid/minimal/expert-squad.jsonc"))
            .unwrap();
    let padded = format!("/*{}*/{manifest}", "x".repeat(50 << 20));
    assert_eq!(with_manifest(padded.as_bytes()), Vec::<String>::new());
    let huge_value = manifest.replace("\"Minimal\"", &format!("\"{}\"", "y".repeat(50 << 20)));
    assert_eq!(with_manifest(huge_value.as_bytes()), Vec::<String>::new());
}

#[test]
fn wrong_shapes_everywhere() {
    for text in [
        "null",
        "1",
        "\"x\"",
        "[]",
        "{}",
        "{\"capability_projection\": {\"agents\": {\"a\": null}, \"virtual_workflows\": {\"w\": {\"nodes\": {\"n\": []}}}, \"scheduler\": 7}}",
    ] {
        let codes = with_manifest(text.as_bytes());
        assert!(!codes.is_empty(), "{text} was accepted");
    }
}
