//! How diagnostics look through the real binary: columns after wide characters and tabs, long
//! lines clipped around each span, the limit on what people are shown (while the machine formats
//! keep every diagnostic), and memory that stays bounded on a megabytes-long line.

use std::fs;
use std::path::Path;
use std::process::Output;

use crate::support::{squad, temp_copy, text};

/// A copy of `valid/minimal` whose manifest is `edit` of its text.
fn package_with(edit: impl FnOnce(String) -> String) -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, package) = temp_copy("valid/minimal");
    let manifest = package.join("expert-squad.jsonc");
    let text = fs::read_to_string(&manifest).unwrap();
    fs::write(&manifest, edit(text)).unwrap();
    (dir, package)
}

/// The minimal manifest on one line, with `members` added at the end of the top-level object.
fn one_line(text: String, members: &str) -> String {
    let text = text.replace('\n', " ");
    let text = text.trim_end();
    format!("{}, {members}}}", text.strip_suffix('}').unwrap())
}

fn validate(package: &Path, args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    let mut all = vec!["validate"];
    all.extend(args);
    all.push("package");
    squad(&all, package.parent().unwrap(), home.path())
}

#[test]
fn carets_follow_wide_characters_and_tabs() {
    let (_dir, package) = package_with(|text| {
        text.replace(
            "\"label\": \"Minimal\",",
            "\"label\": \"最小の😀\",\t\"lable\": 1,",
        )
    });
    let output = validate(&package, &[]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        r#"error[unknown-field]: unknown field `lable`
 --> package/expert-squad.jsonc:2:85
  |
2 |   "schema_version": 1, "namespace": "acme", "id": "minimal-squad", "label": "最小の😀",    "lable": 1,
  |                                                                                            ^^^^^^^ not allowed here
  = at `/lable`
help: did you mean `label`? This object already sets `label`

error: acme/minimal-squad 2026.08.20.1 is invalid: 1 error, 0 warnings
"#
    );
}

#[test]
fn a_long_one_line_manifest_is_clipped_around_each_span() {
    let (_dir, package) = package_with(|text| one_line(text, "\"colour\": 1, \"zzz\": 2"));
    let output = validate(&package, &[]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stderr),
        r#"error[unknown-field]: unknown field `colour`
 --> package/expert-squad.jsonc:1:1364
  |
1 | ...ce_refs": [] } },     "virtual_workflows": {}   } , "colour": 1, "zzz": 2}
  |                                                        ^^^^^^^^ not allowed here
  = at `/colour`
help: allowed fields: `schema_version`, `namespace`, `id`, `name`, `label`, `description`, `version`, `product_pillars`, `system_role`, `readme`, `selector`, `configuration`, `capability_projection`

error[unknown-field]: unknown field `zzz`
 --> package/expert-squad.jsonc:1:1377
  |
1 | ...] } },     "virtual_workflows": {}   } , "colour": 1, "zzz": 2}
  |                                                          ^^^^^ not allowed here
  = at `/zzz`
help: allowed fields: `schema_version`, `namespace`, `id`, `name`, `label`, `description`, `version`, `product_pillars`, `system_role`, `readme`, `selector`, `configuration`, `capability_projection`

error: acme/minimal-squad 2026.08.20.1 is invalid: 2 errors, 0 warnings
"#
    );
}

#[test]
fn past_the_limits_people_see_a_count_and_machines_see_everything() {
    const KEYS: usize = 1000;
    let members: Vec<String> = (0..KEYS)
        .map(|index| format!("\"x{index:05}\": 0"))
        .collect();
    let (_dir, package) = package_with(|text| one_line(text, &members.join(", ")));

    let output = validate(&package, &[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert_eq!(
        stderr.matches("error[unknown-field]").count(),
        squad::diag::limit::PER_CODE
    );
    assert!(stderr.contains(&format!(
        "\n… and {} more `unknown-field` errors in package/expert-squad.jsonc (`--verbose` shows them all)\n\nerror: acme/minimal-squad 2026.08.20.1 is invalid: {KEYS} errors, 0 warnings\n",
        KEYS - squad::diag::limit::PER_CODE
    )), "{stderr}");

    let output = validate(&package, &["--verbose"]);
    let stderr = text(&output.stderr);
    assert_eq!(stderr.matches("error[unknown-field]").count(), KEYS);
    assert!(!stderr.contains("more `unknown-field`"), "{stderr}");

    let output = validate(&package, &["--format", "json"]);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let diagnostics = document["packages"][0]["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), KEYS);
    assert_eq!(
        diagnostics[KEYS - 1]["pointer"],
        format!("/x{:05}", KEYS - 1)
    );

    let output = validate(&package, &["--format", "sarif"]);
    let sarif: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), KEYS);

    let output = validate(&package, &["--format", "github"]);
    assert_eq!(text(&output.stdout).lines().count(), KEYS);
}

#[test]
fn the_limits_count_each_code_of_each_file() {
    // 40 repeated pillars (each a `duplicate-entry` and an `unsorted-list`) and 25 unknown keys:
    // each code is shown up to its limit until the file's limit is reached, and each has its own
    // count of the rest.
    let pillars = vec!["\"work\""; 41].join(", ");
    let members: Vec<String> = (0..25).map(|index| format!("\"x{index:02}\": 0")).collect();
    let (_dir, package) = package_with(|text| {
        let text = text.replace(
            "\"product_pillars\": [\"work\"]",
            &format!("\"product_pillars\": [{pillars}]"),
        );
        one_line(text, &members.join(", "))
    });
    let output = validate(&package, &["--format", "json"]);
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let diagnostics = document["packages"][0]["diagnostics"].as_array().unwrap();
    let count = |code: &str| {
        diagnostics
            .iter()
            .filter(|diagnostic| diagnostic["code"] == code)
            .count()
    };
    let codes = ["duplicate-entry", "unsorted-list", "unknown-field"];
    assert_eq!(codes.map(count), [40, 40, 25]);
    assert_eq!(diagnostics.len(), 105);

    let stderr = text(&validate(&package, &[]).stderr);
    let (per_code, per_file) = (squad::diag::limit::PER_CODE, squad::diag::limit::PER_FILE);
    let shown = [per_code, per_code, per_file - 2 * per_code];
    assert_eq!(
        codes.map(|code| stderr.matches(&format!("error[{code}]")).count()),
        shown
    );
    let held_back: String = codes
        .iter()
        .zip([40, 40, 25])
        .zip(shown)
        .map(|((code, all), shown)| {
            format!(
                "… and {} more `{code}` errors in package/expert-squad.jsonc (`--verbose` shows them all)\n",
                all - shown
            )
        })
        .collect();
    assert!(
        stderr.ends_with(&format!(
            "{held_back}\nerror: acme/minimal-squad 2026.08.20.1 is invalid: 105 errors, 0 warnings\nhelp: 40 problems can be fixed automatically: `squad fix package` (`--dry-run` shows the changes first)\n"
        )),
        "{stderr}"
    );
}

/// Runs the binary with its address space limited to `megabytes`, as `ulimit -v` does.
fn squad_limited(megabytes: u64, args: &[&str], cwd: &Path) -> Output {
    let home = tempfile::tempdir().unwrap();
    crate::support::sandboxed("sh", cwd, home.path())
        .arg("-c")
        .arg(format!(
            "ulimit -v {}; exec \"$0\" \"$@\"",
            megabytes * 1024
        ))
        .arg(crate::support::binary())
        .args(args)
        .output()
        .expect("failed to run squad")
}

#[test]
fn a_megabytes_long_line_renders_in_bounded_memory() {
    // 5,000 unknown keys on one 2.4 MB line: rendering each diagnostic with its whole line
    // would need 12 GB; each format must get through in 512 MB of address space.
    const KEYS: usize = 5_000;
    let value = "v".repeat(470);
    let members: Vec<String> = (0..KEYS)
        .map(|index| format!("\"x{index:05}\":\"{value}\""))
        .collect();
    let (_dir, package) = package_with(|text| one_line(text, &members.join(",")));
    let size = fs::metadata(package.join("expert-squad.jsonc"))
        .unwrap()
        .len();
    assert!(size > 2_400_000, "{size} bytes");
    let cwd = package.parent().unwrap();
    for format in ["human", "json", "sarif", "github"] {
        let output = squad_limited(512, &["validate", "--format", format, "package"], cwd);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{format}: {stderr}");
        match format {
            "human" => assert!(
                stderr.ends_with(&format!(
                    "error: acme/minimal-squad 2026.08.20.1 is invalid: {KEYS} errors, 0 warnings\n"
                )),
                "{stderr}"
            ),
            "github" => assert_eq!(text(&output.stdout).lines().count(), KEYS),
            _ => {
                let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
                assert!(document.is_object(), "{format}");
            }
        }
    }
    // With every diagnostic shown, each costs its neighbourhood, not its line.
    let output = squad_limited(512, &["--verbose", "validate", "package"], cwd);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    assert!(text(&output.stderr).lines().all(|line| line.len() < 400));
}
