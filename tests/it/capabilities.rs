//! `squad show` and `squad diff` on real packages: for every package of the corpus, a copy with
//! one grant added to each grant list (and a new base role, and `inherit_base_tools` turned on)
//! is judged to widen the squad by exactly that entry, and a copy whose prompt alone changed is
//! not. The whole corpus goes through the library in threads (1,600 validations would take
//! minutes as processes); the binary is run on a few of the same variants for its exit status
//! and its documents.

use std::path::{Path, PathBuf};

use serde_json::Value;
use squad::capability::diff::{Diff, Side, compare};
use squad::capability::{Capabilities, GRANT_LISTS};
use squad::digest::FileRecord;
use squad::jsonc::edit::{member, push_element, set_member};
use squad::package::Report;

use crate::support::{assert_snapshot, copy_tree, corpus, fixtures, squad, text};

const MANIFEST: &str = "expert-squad.jsonc";

const TOOL: &str = "import { tool } from \"@opencorvus-ai/plugin\";\n\nexport default tool({\n  description: \"Added by a test\",\n  args: {},\n  async execute() {\n    return \"ok\";\n  },\n});\n";

const SERVER: &str = "{\n  \"type\": \"remote\",\n  \"url\": \"https://added.example/mcp\",\n  \"transport\": \"streamable-http\",\n  \"capabilities\": { \"tools\": [\"added\"], \"prompts\": [\"added\"], \"resources\": [\"added\"] }\n}\n";

const SKILL: &str = "---\nname: squad-added\ndescription: A skill a test adds to see it in a diff.\n---\n\n# Added\n\nNothing to do.\n";

/// A package as `diff` sees it: validated, digested with every file's record, and its
/// capabilities.
struct Judged {
    report: Report,
    files: Vec<FileRecord>,
    root: PathBuf,
    capabilities: Capabilities,
}

fn judge(root: &Path) -> Judged {
    let report = squad::package::validate(root).unwrap();
    assert!(
        report.is_valid(),
        "{} is invalid: {:?}",
        root.display(),
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity() == squad::diag::Severity::Error)
            .map(|d| format!("{} {}: {}", d.code.as_str(), d.file, d.message))
            .collect::<Vec<_>>()
    );
    let paths: Vec<String> = report
        .tree
        .files()
        .map(|entry| entry.path.clone())
        .collect();
    let tree = squad::digest::digest_folder(root, &paths, true).unwrap();
    let capabilities = squad::capability::of(&report, &tree.package_digest.hex()).unwrap();
    Judged {
        report,
        files: tree.files,
        root: root.to_path_buf(),
        capabilities,
    }
}

fn side(judged: &Judged) -> Side<'_> {
    Side {
        report: &judged.report,
        capabilities: &judged.capabilities,
        files: &judged.files,
        root: &judged.root,
    }
}

fn diff(old: &Judged, new: &Judged) -> Diff {
    compare(&side(old), &side(new)).unwrap()
}

/// Where in the manifest a change goes: the scheduler, or an agent by id.
#[derive(Clone)]
enum At {
    Scheduler,
    Agent(String),
}

fn edit(package: &Path, change: impl FnOnce(&str) -> String) {
    let path = package.join(MANIFEST);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, change(&text)).unwrap();
}

fn node_of<'a>(root: &'a squad::jsonc::Node, at: &At) -> &'a squad::jsonc::Node {
    let projection = &member(root, "capability_projection").unwrap().value;
    match at {
        At::Scheduler => &member(projection, "scheduler").unwrap().value,
        At::Agent(id) => {
            &member(&member(projection, "agents").unwrap().value, id)
                .unwrap()
                .value
        }
    }
}

fn push(text: &str, at: &At, field: &str, value: &str) -> String {
    let root = squad::jsonc::parse(text).unwrap();
    let array = &member(node_of(&root, at), field).unwrap().value;
    push_element(text, array, &format!("\"{value}\""))
}

/// One variant of a package: what it changes, and what `diff` must then say was added.
struct Variant {
    name: &'static str,
    /// The copy is the old side: the change could only be made by taking something away
    /// from the package (every corpus package already inherits a role's tools somewhere).
    reversed: bool,
    /// The grant list and the entry added, or `None` for the two pool fields.
    expected: Expected,
}

enum Expected {
    Grant(&'static str, String),
    BaseRole(String),
    Inherit,
}

/// Makes, in `to`, the copy of `base` with `variant` applied; `None` when the package offers
/// no way to make that change validly (every role taken, inheritance already on, no role that
/// may project a host tool, the list that must stay empty).
fn make(base: &Judged, source: &Path, to: &Path, list: &str) -> Option<Variant> {
    copy_tree(source, to);
    let capabilities = &base.capabilities;
    let id = capabilities.id.clone();
    let union = |field: &str| capabilities.total.grants[field].clone();
    let roles: Vec<(At, String)> = capabilities
        .nodes
        .iter()
        .map(|node| {
            let at = if node.node == "scheduler" {
                At::Scheduler
            } else {
                At::Agent(node.node.clone())
            };
            (at, node.base_role.clone())
        })
        .collect();
    let grant = |field: &'static str, value: String, at: At| {
        edit(to, |text| push(text, &at, field, &value));
        Some(Variant {
            name: field,
            reversed: false,
            expected: Expected::Grant(field, value),
        })
    };
    let write = |path: &str, content: &str| {
        let full = to.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    };
    match list {
        "built_in_tool_ids" => {
            let held = union(list);
            roles
                .iter()
                .find_map(|(at, role)| {
                    let tool = squad::tables::projectable_list(role_of(role, at))
                        .into_iter()
                        .find(|tool| !held.iter().any(|held| held == tool))?;
                    Some((at.clone(), tool.to_owned()))
                })
                .and_then(|(at, tool)| grant("built_in_tool_ids", tool, at))
        }
        "default_tool_refs" => {
            let held = union(list);
            roles
                .iter()
                .find_map(|(at, role)| {
                    let At::Agent(_) = at else { return None };
                    let name = squad::tables::DEFAULT_HOST_TOOLS
                        .iter()
                        .find(|(tool, owner)| {
                            owner == role && !held.contains(&format!("default/tool/{tool}"))
                        })?
                        .0;
                    Some((at.clone(), format!("default/tool/{name}")))
                })
                .and_then(|(at, reference)| grant("default_tool_refs", reference, at))
        }
        // DREF-3: any element is refused, so no valid package can add one.
        "default_mcp_server_refs" => None,
        "default_skill_refs" => grant(
            list_name(list),
            "default/skill/squad-added".into(),
            At::Scheduler,
        ),
        "default_mcp_tool_refs" => grant(
            list_name(list),
            "default/mcp/squad-added/tool/added".into(),
            At::Scheduler,
        ),
        "default_mcp_prompt_refs" => grant(
            list_name(list),
            "default/mcp/squad-added/prompt/added".into(),
            At::Scheduler,
        ),
        "default_mcp_resource_refs" => grant(
            list_name(list),
            "default/mcp/squad-added/resource/added".into(),
            At::Scheduler,
        ),
        "package_skill_refs" => {
            write("skills/squad-added/SKILL.md", SKILL);
            grant(
                list_name(list),
                format!("{id}/shared/squad-added"),
                At::Scheduler,
            )
        }
        "package_tool_refs" => {
            write("tools/squad-added.ts", TOOL);
            grant(
                list_name(list),
                format!("{id}/shared/squad-added"),
                At::Scheduler,
            )
        }
        "package_mcp_server_refs" => {
            write("mcp/squad-added.json", SERVER);
            grant(
                list_name(list),
                format!("{id}/shared/squad-added"),
                At::Scheduler,
            )
        }
        "package_mcp_tool_refs" | "package_mcp_prompt_refs" | "package_mcp_resource_refs" => {
            let kind = list
                .trim_start_matches("package_mcp_")
                .trim_end_matches("_refs");
            // Only that kind: a declared capability nobody projects is an error.
            let only = format!("\"{kind}s\": [\"added\"]");
            write(
                "mcp/squad-added.json",
                &SERVER.replace(
                    "\"tools\": [\"added\"], \"prompts\": [\"added\"], \"resources\": [\"added\"]",
                    &only,
                ),
            );
            grant(
                list_name(list),
                format!("{id}/shared/squad-added/{kind}/added"),
                At::Scheduler,
            )
        }
        "base_role" => {
            let taken = &capabilities.total.base_roles;
            let role = squad::tables::RUNTIME_TEMPLATE_IDS
                .iter()
                .find(|role| **role != "integrity" && !taken.iter().any(|t| t == *role))?;
            let agent = format!(
                "{{ \"label\": \"Added\", \"description\": \"An agent a test adds.\", \"base_role\": \"{role}\", \"inherit_base_tools\": false, {} }}",
                squad::capability::GRANT_LISTS
                    .iter()
                    .map(|kind| format!("\"{}\": []", kind.field()))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            edit(to, |text| {
                let root = squad::jsonc::parse(text).unwrap();
                let projection = &member(&root, "capability_projection").unwrap().value;
                let agents = &member(projection, "agents").unwrap().value;
                set_member(text, agents, "squad-added", &agent)
            });
            Some(Variant {
                name: "base_role",
                reversed: false,
                expected: Expected::BaseRole((*role).to_owned()),
            })
        }
        "inherit_base_tools" => {
            let reversed = capabilities.total.inherit_base_tools;
            let value = if reversed { "false" } else { "true" };
            let nodes: Vec<At> = if reversed {
                roles.iter().map(|(at, _)| at.clone()).collect()
            } else {
                vec![At::Scheduler]
            };
            for at in nodes {
                edit(to, |text| {
                    let root = squad::jsonc::parse(text).unwrap();
                    set_member(text, node_of(&root, &at), "inherit_base_tools", value)
                });
            }
            Some(Variant {
                name: "inherit_base_tools",
                reversed,
                expected: Expected::Inherit,
            })
        }
        other => panic!("no variant for {other}"),
    }
}

fn role_of<'a>(role: &'a str, at: &At) -> squad::tables::Role<'a> {
    match at {
        At::Scheduler => squad::tables::Role::Scheduler,
        At::Agent(_) => squad::tables::Role::Worker(role),
    }
}

fn list_name(list: &str) -> &'static str {
    GRANT_LISTS
        .iter()
        .map(|kind| kind.field())
        .find(|field| *field == list)
        .unwrap()
}

/// Every change a variant may make: the thirteen lists, then the two pool fields.
fn changes() -> Vec<&'static str> {
    let mut changes: Vec<&'static str> = GRANT_LISTS.iter().map(|kind| kind.field()).collect();
    changes.extend(["base_role", "inherit_base_tools"]);
    changes
}

/// Checks one variant's diff: it widens, by exactly the expected entry.
fn check(package: &str, variant: &Variant, diff: &Diff) {
    let what = format!("{package}, {}", variant.name);
    assert!(diff.widens, "{what}: not judged to widen");
    match &variant.expected {
        Expected::Grant(list, entry) => {
            let expected: std::collections::BTreeMap<&str, Vec<String>> =
                [(*list, vec![entry.clone()])].into_iter().collect();
            assert_eq!(diff.grants_added, expected, "{what}");
            assert!(
                diff.base_roles_added.is_empty() && !diff.inherit_base_tools_gained,
                "{what}"
            );
        }
        Expected::BaseRole(role) => {
            assert!(
                diff.grants_added.is_empty(),
                "{what}: {:?}",
                diff.grants_added
            );
            assert_eq!(diff.base_roles_added, vec![role.clone()], "{what}");
            assert!(!diff.inherit_base_tools_gained, "{what}");
        }
        Expected::Inherit => {
            assert!(
                diff.grants_added.is_empty(),
                "{what}: {:?}",
                diff.grants_added
            );
            assert!(diff.base_roles_added.is_empty(), "{what}");
            assert!(diff.inherit_base_tools_gained, "{what}");
        }
    }
    assert!(
        diff.grants_removed.is_empty(),
        "{what}: {:?}",
        diff.grants_removed
    );
}

/// A prompt edit is mutable text: nothing widens, and the prompt is named as such.
fn check_prompt_only(base: &Judged, source: &Path, to: &Path) {
    copy_tree(source, to);
    let prompt = base
        .report
        .manifest
        .as_ref()
        .and_then(|manifest| manifest.scheduler.as_ref())
        .map(|scheduler| format!("agents/{}/system.md", scheduler.owner))
        .filter(|path| source.join(path).is_file())
        .unwrap_or_else(|| "README.md".to_owned());
    let mut text = std::fs::read_to_string(to.join(&prompt)).unwrap();
    text.push_str("\nOne more sentence of guidance.\n");
    std::fs::write(to.join(&prompt), text).unwrap();
    let diff = diff(base, &judge(to));
    assert!(!diff.widens, "{}: a prompt edit widens", source.display());
    assert_eq!(diff.mutable_changed, vec![prompt.clone()]);
    assert!(diff.mutable_paths.contains(&prompt));
    assert!(diff.frozen_changed.is_empty(), "{:?}", diff.frozen_changed);
    assert_eq!(diff.changed_paths, vec![prompt]);
}

#[test]
fn every_corpus_package_widens_by_exactly_the_grant_added_to_it() {
    let Some(corpus) = corpus() else { return };
    let mut packages: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join(MANIFEST).is_file())
        .collect();
    packages.sort();
    assert_eq!(packages.len(), 106, "the corpus has 106 packages");
    let scratch = tempfile::tempdir().unwrap();
    let results: Vec<(usize, std::collections::BTreeMap<&str, usize>)> =
        std::thread::scope(|scope| {
            let workers = 4;
            let chunks: Vec<Vec<PathBuf>> = (0..workers)
                .map(|worker| {
                    packages
                        .iter()
                        .skip(worker)
                        .step_by(workers)
                        .cloned()
                        .collect()
                })
                .collect();
            let handles: Vec<_> = chunks
                .into_iter()
                .enumerate()
                .map(|(worker, chunk)| {
                    let scratch = scratch.path().join(worker.to_string());
                    scope.spawn(move || {
                        let mut made = std::collections::BTreeMap::new();
                        let mut prompts = 0;
                        for package in chunk {
                            let name = package.file_name().unwrap().to_string_lossy().into_owned();
                            let base = judge(&package);
                            for change in changes() {
                                let to = scratch.join(format!("{name}-{change}"));
                                if let Some(variant) = make(&base, &package, &to, change) {
                                    let copy = judge(&to);
                                    let judged = if variant.reversed {
                                        diff(&copy, &base)
                                    } else {
                                        diff(&base, &copy)
                                    };
                                    check(&name, &variant, &judged);
                                    *made.entry(change).or_insert(0) += 1;
                                }
                                std::fs::remove_dir_all(&to).unwrap();
                            }
                            let to = scratch.join(format!("{name}-prompt"));
                            check_prompt_only(&base, &package, &to);
                            std::fs::remove_dir_all(&to).unwrap();
                            prompts += 1;
                        }
                        (prompts, made)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().unwrap())
                .collect()
        });
    let prompts: usize = results.iter().map(|(prompts, _)| prompts).sum();
    let mut made: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for (_, counts) in &results {
        for (change, count) in counts {
            *made.entry(change).or_insert(0) += count;
        }
    }
    assert_eq!(prompts, 106);
    // Every list that a valid package can add to was added to in every package; the rest say
    // how many packages offer the change (see `make`).
    for change in changes() {
        let count = made.get(change).copied().unwrap_or(0);
        match change {
            "default_mcp_server_refs" => assert_eq!(count, 0),
            // Only visual-qa, frontend-design and frontend-research may project a host tool;
            // one package holds every role but integrity, which needs a contract.
            "default_tool_refs" | "base_role" => {
                let least = if change == "base_role" { 105 } else { 2 };
                assert!(count >= least, "{change}: only {count} of 106 packages");
            }
            _ => assert_eq!(count, 106, "{change}"),
        }
    }
    assert!(made.values().sum::<usize>() >= 106 * 12, "{made:?}");
}

/// The binary: `show` prints the capabilities document, `diff` exits 1 on a widening update
/// and 0 on a prompt edit, with the same judgement as the library.
#[test]
fn show_and_diff_through_the_binary() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let base = fixtures().join("valid/release-review");
    let output = squad(
        &["show", base.to_str().unwrap(), "--format", "json"],
        work.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let shown: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(shown["type"], "show");
    assert_eq!(shown["id"], "release-review");
    let builder = shown["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|node| node["node"] == "builder")
        .unwrap();
    let bash = builder["effective_tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["tool"] == "bash")
        .unwrap();
    assert_eq!(bash["classes"][0], "runs-commands");
    // A server ref mounts every tool the server declares.
    assert!(
        builder["effective_tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool["tool"] == "release-review/shared/tracker/tool/list_issues")
    );
    // The summary is the contract a person reads: compared whole.
    let human = squad(
        &["show", "registry-fixtures/valid/release-review"],
        &crate::support::repo(),
        home.path(),
    );
    assert_eq!(human.status.code(), Some(0), "{}", text(&human.stderr));
    assert_snapshot("show-release-review.txt", &text(&human.stdout));

    let judged = judge(&base);
    let widened = work.path().join("widened");
    let variant = make(&judged, &base, &widened, "built_in_tool_ids").unwrap();
    let output = squad(
        &[
            "diff",
            base.to_str().unwrap(),
            widened.to_str().unwrap(),
            "--format",
            "json",
        ],
        work.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["type"], "diff");
    let Expected::Grant(list, entry) = &variant.expected else {
        unreachable!()
    };
    assert_eq!(document["grants_added"][list], serde_json::json!([entry]));
    assert_eq!(document["widens"], true);
    assert_eq!(document["diff_sha256"].as_str().unwrap().len(), 64);
    let human = squad(
        &["diff", base.to_str().unwrap(), widened.to_str().unwrap()],
        work.path(),
        home.path(),
    );
    assert_eq!(human.status.code(), Some(1));
    assert!(text(&human.stdout).contains(&format!("{list}: +{entry}")));
    assert_snapshot("diff-release-review-widened.txt", &text(&human.stdout));
    assert!(text(&human.stderr).contains("widens what acme/release-review may do"));

    let edited = work.path().join("edited");
    check_prompt_only(&judged, &base, &edited);
    let output = squad(
        &["diff", base.to_str().unwrap(), edited.to_str().unwrap()],
        work.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("mutable text changed: agents/orchestrator/system.md"));

    // Two different squads are not compared.
    let other = fixtures().join("valid/minimal");
    let output = squad(
        &["diff", base.to_str().unwrap(), other.to_str().unwrap()],
        work.path(),
        home.path(),
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("are different squads"),
        "{}",
        text(&output.stderr)
    );
}
