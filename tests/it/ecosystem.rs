//! Fitting the ecosystem: SARIF and GitHub output, the manifest JSON Schema, completions and
//! the man page.

use crate::support::{corpus, fixtures, squad, text};

fn json_of(args: &[&str]) -> serde_json::Value {
    let home = tempfile::tempdir().unwrap();
    let output = squad(args, &fixtures(), home.path());
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", text(&output.stdout)))
}

fn fix_language_pattern(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::String(text) if text == "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$" => {
            serde_json::Value::String("^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".to_owned())
        }
        serde_json::Value::Array(items) => items.into_iter().map(fix_language_pattern).collect(),
        serde_json::Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| (k, fix_language_pattern(v)))
            .collect(),
        other => other,
    }
}

#[test]
fn sarif_output_validates_against_the_sarif_2_1_0_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../fixtures/sarif-schema-2.1.0.json")).unwrap();
    // The published schema's `run.language` pattern is not a valid ECMA-262 regular expression
    // (a stray `]`, a known erratum), so the schema does not load as is. That property plays no
    // part in our output; it is replaced by the pattern it evidently means.
    let schema = fix_language_pattern(schema);
    let validator = jsonschema::validator_for(&schema).unwrap();
    let sarif = json_of(&[
        "validate",
        "--format",
        "sarif",
        "invalid/dangling-ref--skill",
        "invalid/unknown-top-level-entry--license",
        "valid/accepted--duplicate-key-warning",
    ]);
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|error| error.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let dangling = results
        .iter()
        .find(|r| r["ruleId"] == "dangling-ref")
        .unwrap();
    assert_eq!(dangling["level"], "error");
    let region = &dangling["locations"][0]["physicalLocation"]["region"];
    assert_eq!(
        (region["startLine"].as_u64(), region["startColumn"].as_u64()),
        (Some(31), Some(70))
    );
    assert_eq!(
        dangling["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "invalid/dangling-ref--skill/expert-squad.jsonc"
    );
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "duplicate-key" && r["level"] == "warning")
    );
}

#[test]
fn github_output_annotates_files() {
    let home = tempfile::tempdir().unwrap();
    let output = squad(
        &[
            "validate",
            "--format",
            "github",
            "invalid/unknown-field--agent-status",
            "invalid/missing-file--readme",
        ],
        &fixtures(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        text(&output.stdout),
        "::error file=invalid/unknown-field--agent-status/expert-squad.jsonc,line=66,col=9,endLine=66,endColumn=17,title=squad unknown-field::unknown field `status`%0Ahelp: allowed fields: `label`, `description`, `base_role`, `execution_contract`, `prompt`, `inherit_base_tools`, `built_in_tool_ids`, `default_skill_refs`, `package_skill_refs`, `default_tool_refs`, `package_tool_refs`, `default_mcp_server_refs`, `package_mcp_server_refs`, `default_mcp_tool_refs`, `package_mcp_tool_refs`, `default_mcp_prompt_refs`, `package_mcp_prompt_refs`, `default_mcp_resource_refs`, `package_mcp_resource_refs`
::notice file=invalid/unknown-field--agent-status/tools/summarize-changes.ts,title=squad tools-not-compiled::2 package tool(s) parsed and checked statically: syntax, imports and default export; bundling them with Bun and running them are left to the OpenCorvus runtime
::error file=invalid/missing-file--readme/README.md,title=squad missing-file::expert squad package root: missing README.md%0Ahelp: create `README.md` at the package root
::notice file=invalid/missing-file--readme/tools/summarize-changes.ts,title=squad tools-not-compiled::2 package tool(s) parsed and checked statically: syntax, imports and default export; bundling them with Bun and running them are left to the OpenCorvus runtime
"
    );
}

fn manifest_value(path: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    squad::jsonc::to_value(&squad::jsonc::parse(&text).unwrap())
}

#[test]
fn json_schema_accepts_the_corpus() {
    let Some(corpus) = corpus() else { return };
    let validator = jsonschema::validator_for(&json_of(&["schema"])).unwrap();
    let mut checked = 0;
    for entry in std::fs::read_dir(corpus).unwrap() {
        let path = entry.unwrap().path().join("expert-squad.jsonc");
        if !path.exists() {
            continue;
        }
        let manifest = manifest_value(&path);
        let errors: Vec<String> = validator
            .iter_errors(&manifest)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        checked += 1;
    }
    assert!(checked >= 100);
}

#[test]
fn json_schema_accepts_the_templates_and_rejects_unknown_keys() {
    let schema = json_of(&["schema"]);
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let validator = jsonschema::validator_for(&schema).unwrap();
    for template in ["minimal", "planner-parallel", "delivery"] {
        let manifest = manifest_value(
            &crate::support::repo()
                .join("templates")
                .join(template)
                .join("expert-squad.jsonc"),
        );
        assert!(validator.is_valid(&manifest), "{template}");
    }
    let base = manifest_value(&fixtures().join("valid/release-review/expert-squad.jsonc"));
    for pointer in [
        "",
        "/selector",
        "/capability_projection/scheduler",
        "/capability_projection/agents/builder",
        "/capability_projection/virtual_workflows/release/nodes/build",
    ] {
        let mut mutated = base.clone();
        mutated
            .pointer_mut(pointer)
            .unwrap()
            .as_object_mut()
            .unwrap()
            .insert("unexpected".into(), serde_json::json!(1));
        assert!(
            !validator.is_valid(&mutated),
            "unknown key accepted at `{pointer}`"
        );
    }
    for (pointer, value) in [
        ("/id", serde_json::json!("Bad Id")),
        ("/product_pillars", serde_json::json!(["work", "code"])),
        (
            "/capability_projection/agents/builder/base_role",
            serde_json::json!("nope"),
        ),
    ] {
        let mut mutated = base.clone();
        *mutated.pointer_mut(pointer).unwrap() = value;
        assert!(!validator.is_valid(&mutated), "`{pointer}` accepted");
    }
}

/// Every command of the clap tree below `squad`, as its path of names (`["router", "routes"]`),
/// parents before children; clap's own `help` subcommands are left out.
fn command_paths() -> Vec<Vec<String>> {
    fn walk(command: &clap::Command, path: &[String], paths: &mut Vec<Vec<String>>) {
        for sub in command.get_subcommands() {
            if sub.get_name() == "help" {
                continue;
            }
            let mut child = path.to_vec();
            child.push(sub.get_name().to_owned());
            paths.push(child.clone());
            walk(sub, &child, paths);
        }
    }
    let mut paths = Vec::new();
    walk(&command_tree(), &[], &mut paths);
    paths
}

fn command_tree() -> clap::Command {
    let mut command = squad::cli::command();
    command.build();
    command
}

/// The command at `path`.
fn command_at(path: &[String]) -> clap::Command {
    let mut command = command_tree();
    for name in path {
        command = command.find_subcommand(name).unwrap().clone();
    }
    command
}

/// The names a command takes after `path`: its subcommands, or else its long options.
fn completions_expected(path: &[String]) -> Vec<String> {
    let command = command_at(path);
    let subcommands: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_owned())
        .collect();
    if !subcommands.is_empty() {
        return subcommands;
    }
    command
        .get_arguments()
        .filter(|argument| !argument.is_hide_set())
        .filter_map(|argument| argument.get_long())
        .map(|long| format!("--{long}"))
        .collect()
}

#[test]
fn the_command_tree_is_what_the_readme_lists() {
    let paths = command_paths();
    let top: Vec<&str> = paths
        .iter()
        .filter(|path| path.len() == 1)
        .map(|path| path[0].as_str())
        .collect();
    // Every top-level command is in README.md's table (a forgotten command fails here).
    let readme = std::fs::read_to_string(crate::support::repo().join("README.md")).unwrap();
    for name in &top {
        assert!(
            readme.contains(&format!("`squad {name}")),
            "README.md does not list `squad {name}`"
        );
    }
    assert!(
        top.len() >= 22,
        "only {} top-level commands: {top:?}",
        top.len()
    );
    assert!(paths.len() >= 33, "only {} commands", paths.len());
}

/// bash runs the completion script: at every command, completing an empty word offers each
/// subcommand, and completing `--` offers each long option of a leaf command.
#[test]
fn bash_completion_offers_every_subcommand_and_option() {
    let home = tempfile::tempdir().unwrap();
    let output = squad(&["completions", "bash"], home.path(), home.path());
    assert_eq!(output.status.code(), Some(0));
    let script = home.path().join("squad.bash");
    std::fs::write(&script, &output.stdout).unwrap();
    let mut probes = vec![Vec::new()];
    probes.extend(command_paths());
    let mut program = format!("source '{}'\n", script.display());
    for path in &probes {
        let word = if command_at(path).has_subcommands() {
            ""
        } else {
            "--"
        };
        let mut words = vec!["squad".to_owned()];
        words.extend(path.iter().cloned());
        let previous = words.last().unwrap().clone();
        words.push(word.to_owned());
        program.push_str(&format!(
            "COMP_WORDS=({}); COMP_CWORD={}; COMPREPLY=(); _squad squad '{word}' '{previous}'; echo \"@@ ${{COMPREPLY[*]}}\"\n",
            words
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join(" "),
            words.len() - 1
        ));
    }
    let output = std::process::Command::new("bash")
        .arg("-c")
        .arg(&program)
        .output()
        .expect("bash runs the completion script");
    let stdout = text(&output.stdout);
    let replies: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("@@ "))
        .collect();
    assert_eq!(replies.len(), probes.len(), "{}", text(&output.stderr));
    for (path, reply) in probes.iter().zip(&replies) {
        let offered: Vec<&str> = reply.split_whitespace().collect();
        for expected in completions_expected(path) {
            assert!(
                offered.contains(&expected.as_str()),
                "`squad {} ` does not offer `{expected}`: {offered:?}",
                path.join(" ")
            );
        }
    }
}

/// The other shells' scripts cannot be run here; each must hold every command in its own
/// notation, so that a command missing from the tree or misplaced in it fails.
#[test]
fn completions_and_man_page_cover_every_command() {
    let home = tempfile::tempdir().unwrap();
    let script = |shell: &str| {
        let output = squad(&["completions", shell], home.path(), home.path());
        assert_eq!(output.status.code(), Some(0), "{shell}");
        text(&output.stdout)
    };
    let (zsh, fish, powershell, elvish) = (
        script("zsh"),
        script("fish"),
        script("powershell"),
        script("elvish"),
    );
    let output = squad(&["man"], home.path(), home.path());
    let page = text(&output.stdout);
    assert!(page.starts_with(".ie") || page.contains(".TH"), "not roff");
    let paths = command_paths();
    for path in &paths {
        let (name, parents) = path.split_last().unwrap();
        let joined = |separator: &str| path.join(separator);
        let checks = [
            (
                "zsh",
                zsh.contains(&format!(
                    "_squad__subcmd__{}_commands()",
                    joined("__subcmd__")
                )) && zsh.contains(&format!("\n'{name}:")),
            ),
            (
                "fish",
                match parents {
                    [] => fish.contains(&format!("__fish_squad_needs_command\" -f -a \"{name}\"")),
                    _ => fish.lines().any(|line| {
                        line.contains(&format!(
                            "__fish_squad_using_subcommand {}",
                            parents.join(" ")
                        )) && line.contains(&format!("-f -a \"{name}\""))
                    }),
                },
            ),
            (
                "powershell",
                powershell.contains(&format!("'squad;{}'", joined(";")))
                    && powershell.contains(&format!("[CompletionResult]::new('{name}',")),
            ),
            (
                "elvish",
                elvish.contains(&format!("&'squad;{}'=", joined(";")))
                    && elvish.contains(&format!("cand {name} ")),
            ),
            ("man", page.contains(&format!("squad\\-{}", joined("\\-")))),
        ];
        for (shell, found) in checks {
            assert!(found, "{shell} misses `squad {}`", path.join(" "));
        }
    }
}

#[test]
fn every_subcommand_has_help_with_examples() {
    let home = tempfile::tempdir().unwrap();
    let commands = command_paths();
    for command in &commands {
        let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
        args.push("--help");
        let output = squad(&args, home.path(), home.path());
        let sub = command.join(" ");
        assert_eq!(output.status.code(), Some(0), "{sub}");
        assert!(
            text(&output.stdout).contains("Example"),
            "`squad {sub} --help` has no example"
        );
    }
    assert!(commands.len() >= 33, "only {} commands", commands.len());
}

#[test]
fn explain_prints_a_page_and_refuses_unknown_codes() {
    let home = tempfile::tempdir().unwrap();
    let output = squad(&["explain", "dependency-cycle"], home.path(), home.path());
    assert_eq!(output.status.code(), Some(0));
    let page = text(&output.stdout);
    assert!(
        page.contains("## Failing example") && page.contains("## Fixed") && page.contains("GR-4")
    );
    assert_eq!(
        squad(&["explain", "nope"], home.path(), home.path())
            .status
            .code(),
        Some(2)
    );
}
