//! The invalid and accepted fixture cases, as a table: each case is a valid fixture package
//! (`registry-fixtures/valid/<base>`) and the change that breaks exactly one rule (or, for the
//! accepted cases, a change the reference accepts although it looks wrong).
//!
//! The table is the one generator of the cases. The fixture tests build every case in a
//! temporary folder from it and compare its diagnostics with `<case>.diagnostics.json`; beside
//! that snapshot, `<case>.change` states the change in one line. Only the cases that docs, the
//! explain pages and tests show by path ([`KEPT`]) are also committed as folders, and a test
//! checks that the table still makes them byte for byte. `SNAPSHOTS=overwrite cargo test --test it
//! fixtures` rewrites the snapshots, the `.change` lines and the kept folders.
//!
//! Invalid cases are named `<code>[+<code>]--<what>`: the error codes the case must produce.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::{copy_tree, fixtures};

pub const FULL: &str = "release-review";
pub const MIN: &str = "minimal";
pub const MANIFEST: &str = "expert-squad.jsonc";
const TOOL: &str = "tools/summarize-changes.ts";
const AGENT_TOOL: &str = "agents/builder/tools/check-build.ts";

/// The 13 resource arrays every projection writes out.
const ARRAYS: [&str; 13] = [
    "built_in_tool_ids",
    "default_skill_refs",
    "package_skill_refs",
    "default_tool_refs",
    "package_tool_refs",
    "default_mcp_server_refs",
    "package_mcp_server_refs",
    "default_mcp_tool_refs",
    "package_mcp_tool_refs",
    "default_mcp_prompt_refs",
    "package_mcp_prompt_refs",
    "default_mcp_resource_refs",
    "package_mcp_resource_refs",
];

/// The cases also committed as folders, because the README, a command shown on an explain page
/// or a test names them by path. The explain pages build the cases they show
/// (`scripts/make-explain-pages.py`).
pub const KEPT: &[&str] = &[
    "absolute-import--file-url",
    "accepted--builtin-id-warning",
    "accepted--duplicate-key-warning",
    "blank-file--prompt",
    "dangling-ref--skill",
    "missing-file--readme",
    "unknown-field--agent-status",
    "unknown-top-level-entry--license",
];

/// One change to a copy of the base package.
#[derive(Debug, Clone)]
pub enum Op {
    /// Replace the one occurrence of `old` in `file` (a second or no occurrence is a mistake
    /// in the table) with `new`.
    Replace {
        file: &'static str,
        old: String,
        new: String,
    },
    /// Write `file` (and its directories) with these bytes.
    Write(&'static str, Vec<u8>),
    Prepend(&'static str, Vec<u8>),
    Append(&'static str, Vec<u8>),
    Remove(&'static str),
    /// Turn every line ending of `file` into CRLF.
    Crlf(&'static str),
}

#[derive(Debug, Clone)]
pub struct Case {
    pub name: &'static str,
    pub base: &'static str,
    pub ops: Vec<Op>,
}

impl Case {
    /// The kind of case: `invalid` or `valid` (the accepted cases).
    pub fn kind(&self) -> &'static str {
        if self.name.starts_with("accepted--") {
            "valid"
        } else {
            "invalid"
        }
    }

    /// The error codes the name promises (none for accepted cases).
    pub fn expected_errors(&self) -> Vec<&'static str> {
        match self.kind() {
            "invalid" => {
                let (codes, _) = self
                    .name
                    .split_once("--")
                    .expect("case names are <code>--<what>");
                codes.split('+').collect()
            }
            _ => Vec::new(),
        }
    }

    /// Builds the case in `into`, which must not exist yet.
    pub fn materialize(&self, into: &Path) {
        copy_tree(&fixtures().join("valid").join(self.base), into);
        for op in &self.ops {
            op.apply(self.name, into);
        }
    }

    /// The one-line statement of the change, as `<case>.change` holds it.
    pub fn change_line(&self) -> String {
        let ops: Vec<Value> = self.ops.iter().map(Op::describe).collect();
        serde_json::to_string(&json!({ "base": self.base, "change": ops })).unwrap() + "\n"
    }
}

impl Op {
    fn apply(&self, case: &str, root: &Path) {
        match self {
            Op::Replace { file, old, new } => {
                let path = root.join(file);
                let text = fs::read_to_string(&path).unwrap();
                let found = text.matches(old.as_str()).count();
                assert_eq!(
                    found, 1,
                    "{case}: expected one {old:?} in {file}, found {found}"
                );
                fs::write(&path, text.replacen(old.as_str(), new, 1)).unwrap();
            }
            Op::Write(file, bytes) => {
                let path = root.join(file);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, bytes).unwrap();
            }
            Op::Prepend(file, bytes) | Op::Append(file, bytes) => {
                let path = root.join(file);
                let existing = fs::read(&path).unwrap();
                let joined = match self {
                    Op::Prepend(..) => [bytes.as_slice(), &existing].concat(),
                    _ => [existing.as_slice(), bytes].concat(),
                };
                fs::write(&path, joined).unwrap();
            }
            Op::Remove(file) => fs::remove_file(root.join(file)).unwrap(),
            Op::Crlf(file) => {
                let path = root.join(file);
                let text = String::from_utf8(fs::read(&path).unwrap()).unwrap();
                fs::write(&path, text.replace("\r\n", "\n").replace('\n', "\r\n")).unwrap();
            }
        }
    }

    fn describe(&self) -> Value {
        let content = |bytes: &[u8]| match std::str::from_utf8(bytes) {
            Ok(text) => json!({ "text": text }),
            Err(_) => json!({ "bytes": bytes }),
        };
        let with = |mut value: Value, key: &str, file: &str| {
            value[key] = json!(file);
            value
        };
        match self {
            Op::Replace { file, old, new } => json!({ "in": file, "replace": old, "with": new }),
            Op::Write(file, bytes) => with(content(bytes), "write", file),
            Op::Prepend(file, bytes) => with(content(bytes), "prepend", file),
            Op::Append(file, bytes) => with(content(bytes), "append", file),
            Op::Remove(file) => json!({ "remove": file }),
            Op::Crlf(file) => json!({ "crlf": file }),
        }
    }
}

fn case(name: &'static str, base: &'static str, ops: Vec<Op>) -> Case {
    Case { name, base, ops }
}

fn sub_in(file: &'static str, old: &str, new: &str) -> Op {
    Op::Replace {
        file,
        old: old.to_owned(),
        new: new.to_owned(),
    }
}

fn sub(old: &str, new: &str) -> Op {
    sub_in(MANIFEST, old, new)
}

fn write(file: &'static str, content: impl AsRef<[u8]>) -> Op {
    Op::Write(file, content.as_ref().to_vec())
}

fn prepend(file: &'static str, content: impl AsRef<[u8]>) -> Op {
    Op::Prepend(file, content.as_ref().to_vec())
}

fn append(file: &'static str, content: impl AsRef<[u8]>) -> Op {
    Op::Append(file, content.as_ref().to_vec())
}

fn remove(file: &'static str) -> Op {
    Op::Remove(file)
}

fn crlf(file: &'static str) -> Op {
    Op::Crlf(file)
}

/// A new agent (every array empty) at the start of `capability_projection.agents`.
fn add_agent(key: &str, base_role: &str) -> Op {
    let arrays: Vec<String> = ARRAYS
        .iter()
        .map(|name| format!("\"{name}\": []"))
        .collect();
    sub(
        r#""agents": {"#,
        &format!(
            "\"agents\": {{\n      \"{key}\": {{\"label\": \"Extra\", \"base_role\": \"{base_role}\", \"inherit_base_tools\": false, {}}},",
            arrays.join(", ")
        ),
    )
}

/// An import line at the top of a tool.
fn imports_in(file: &'static str, line: &str) -> Op {
    prepend(file, format!("{line}\n"))
}

fn imports(line: &str) -> Op {
    imports_in(TOOL, line)
}

fn version(value: &str) -> Op {
    sub(
        r#""version": "2026.11.30.1""#,
        &format!("\"version\": \"{value}\""),
    )
}

/// A SKILL.md with this frontmatter and a one-line body.
fn skill(file: &'static str, frontmatter: &str) -> Op {
    write(file, format!("---\n{frontmatter}---\n\nBody.\n"))
}

/// Every case that breaks a rule. One line per case: the table reads as a list of changes.
#[rustfmt::skip]
pub fn invalid() -> Vec<Case> {
    vec![
        // MAN-F2: syntax
        case("jsonc-syntax--byte-order-mark", FULL, vec![prepend(MANIFEST, "\u{feff}")]),
        case("jsonc-syntax--single-quoted-key", FULL, vec![sub(r#""label": "Release Review""#, r#"'label': "Release Review""#)]),
        case("jsonc-syntax--unquoted-key", FULL, vec![sub(r#""label": "Release Review""#, r#"label: "Release Review""#)]),
        case("jsonc-syntax--missing-comma", FULL, vec![sub(r#""namespace": "acme","#, r#""namespace": "acme""#)]),
        case("jsonc-syntax--hash-comment", FULL, vec![prepend(MANIFEST, "# comment\n")]),
        case("jsonc-syntax--no-break-space", FULL, vec![sub(r#""namespace": "acme""#, "\"namespace\":\u{a0}\"acme\"")]),
        case("jsonc-syntax--trailing-text", FULL, vec![append(MANIFEST, "\nextra\n")]),
        case("jsonc-syntax--second-object", FULL, vec![append(MANIFEST, "{}\n")]),
        case("jsonc-syntax--unterminated-comment", FULL, vec![append(MANIFEST, "/* never closed\n")]),
        case("jsonc-syntax--tab-in-string", FULL, vec![sub(r#""label": "Release Review""#, "\"label\": \"Release\tReview\"")]),
        case("jsonc-syntax--nan", MIN, vec![sub(r#""schema_version": 1"#, r#""schema_version": NaN"#)]),
        case("jsonc-syntax--empty-file", MIN, vec![write(MANIFEST, "")]),
        case("jsonc-syntax--invalid-escape", MIN, vec![sub(r#""label": "Minimal""#, r#""label": "Min\qimal""#)]),
        case("jsonc-syntax--mcp-declaration", FULL, vec![sub_in("mcp/tracker.jsonc", r#""timeout": 30000,"#, r#""timeout": 30000,,"#)]),
        // MAN-F3: closed objects
        case("unknown-field--top-level-agents", FULL, vec![sub(r#""readme": "README.md","#, "\"readme\": \"README.md\",\n  \"agents\": {},")]),
        case("unknown-field--scheduler-label", FULL, vec![sub(r#""base_role": "orchestrator","#, "\"base_role\": \"orchestrator\",\n      \"label\": \"Scheduler\",")]),
        case("unknown-field--agent-status", FULL, vec![sub(r#""label": "Builder","#, "\"label\": \"Builder\",\n        \"status\": \"active\",")]),
        case("unknown-field--node-active-flag", FULL, vec![sub(r#""description": "Build and record evidence.","#, r#""description": "Build and record evidence.", "active": true,"#)]),
        case("unknown-field--selector-extra", FULL, vec![sub(r#""instructions": "selector.md","#, "\"instructions\": \"selector.md\",\n    \"priority\": 1,")]),
        case("unknown-field--workflow-default", FULL, vec![sub(r#""label": "Release","#, "\"label\": \"Release\",\n        \"default\": true,")]),
        case("unknown-field--configuration-field-value", FULL, vec![sub(r#""required": false, "placeholder""#, r#""required": false, "value": "x", "placeholder""#)]),
        case("unknown-field--mcp-enabled", FULL, vec![sub_in("mcp/tracker.jsonc", r#""type": "remote","#, "\"type\": \"remote\",\n  \"enabled\": true,")]),
        // Required fields
        case("missing-field--label", MIN, vec![sub(r#""label": "Minimal","#, "")]),
        case("missing-field--scheduler-array", FULL, vec![sub("\"package_tool_refs\": [],\n      \"default_mcp_server_refs\"", r#""default_mcp_server_refs""#)]),
        case("missing-field--agent-inherit-base-tools", FULL, vec![sub(r#""inherit_base_tools": false,"#, "")]),
        case("missing-field--node-depends-on", FULL, vec![sub(r#""description": "Review everything.", "depends_on": ["build", "security-review"]"#, r#""description": "Review everything.""#)]),
        case("missing-field--virtual-workflows", MIN, vec![sub(",\n    \"virtual_workflows\": {}", "")]),
        case("missing-field--mcp-transport", FULL, vec![sub_in("agents/reviewer/mcp/evidence.json", r#""transport": "sse","#, "")]),
        // Types (STR-1: optional fields are absent, never null)
        case("wrong-type--schema-version-string", MIN, vec![sub(r#""schema_version": 1"#, r#""schema_version": "1""#)]),
        case("wrong-type--name-null", FULL, vec![sub(r#""name": "Release Review""#, r#""name": null"#)]),
        case("wrong-type--built-in-tool-ids-string", FULL, vec![sub(r#""built_in_tool_ids": ["skill"]"#, r#""built_in_tool_ids": "skill""#)]),
        case("wrong-type--inherit-base-tools-string", FULL, vec![sub(r#""inherit_base_tools": false"#, r#""inherit_base_tools": "false""#)]),
        case("wrong-type--depends-on-string", FULL, vec![sub("\"depends_on\": [\"requirements\"] },\n          \"security-review\"", "\"depends_on\": \"requirements\" },\n          \"security-review\"")]),
        case("wrong-type--manifest-is-array", MIN, vec![write(MANIFEST, "[]\n")]),
        case("wrong-type--mcp-headers-number", FULL, vec![sub_in("mcp/tracker.jsonc", r#""timeout": 30000,"#, "\"timeout\": 30000,\n  \"headers\": { \"X-Team\": 7 },")]),
        // Fixed values
        case("invalid-literal--schema-version-2", MIN, vec![sub(r#""schema_version": 1"#, r#""schema_version": 2"#)]),
        case("invalid-literal--readme-path", FULL, vec![sub(r#""readme": "README.md""#, r#""readme": "docs/README.md""#)]),
        case("invalid-literal--system-role", FULL, vec![sub(r#""readme": "README.md","#, "\"readme\": \"README.md\",\n  \"system_role\": \"generator\",")]),
        case("invalid-literal--scheduler-base-role", FULL, vec![sub(r#""base_role": "orchestrator""#, r#""base_role": "build""#)]),
        case("invalid-literal--execution-contract", FULL, vec![sub(r#""execution_contract": "platform_integrity_review""#, r#""execution_contract": "review""#)]),
        case("invalid-literal--configuration-type", FULL, vec![sub(r#""type": "secret""#, r#""type": "number""#)]),
        case("invalid-literal--selector-instructions", FULL, vec![sub(r#""instructions": "selector.md""#, r#""instructions": "sel.md""#)]),
        case("invalid-literal--mcp-type-local", FULL, vec![sub_in("mcp/tracker.jsonc", r#""type": "remote""#, r#""type": "local""#)]),
        case("invalid-literal--mcp-timeout-zero", FULL, vec![sub_in("mcp/tracker.jsonc", r#""timeout": 30000"#, r#""timeout": 0"#)]),
        // STR-1: empty and blank strings
        case("blank-string--label-empty", MIN, vec![sub(r#""label": "Minimal""#, r#""label": """#)]),
        case("blank-string--agent-label-blank", FULL, vec![sub(r#""label": "Builder""#, r#""label": "   ""#)]),
        case("blank-string--name-blank", FULL, vec![sub(r#""name": "Release Review""#, r#""name": "  ""#)]),
        case("blank-string--node-description", FULL, vec![sub(r#""description": "Review everything.""#, r#""description": " \t""#)]),
        case("blank-string--workflow-label", FULL, vec![sub(r#""label": "Release","#, r#""label": " ","#)]),
        case("blank-string--selector-summary", MIN, vec![sub(r#""summary": "s""#, r#""summary": """#)]),
        case("blank-string--built-in-tool-id-empty", FULL, vec![sub(r#""built_in_tool_ids": ["skill"]"#, r#""built_in_tool_ids": [""]"#)]),
        // ID-1…ID-4, LIM-3
        case("invalid-id--id-with-space", MIN, vec![sub(r#""id": "minimal-squad""#, r#""id": "Invalid ID""#)]),
        case("invalid-id--namespace-upper-case", MIN, vec![sub(r#""namespace": "acme""#, r#""namespace": "Acme""#)]),
        case("invalid-id--id-65-characters", MIN, vec![sub(r#""id": "minimal-squad""#, r#""id": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa""#)]),
        case("invalid-id--id-double-hyphen", MIN, vec![sub(r#""id": "minimal-squad""#, r#""id": "minimal--squad""#)]),
        case("invalid-id--workflow-id", FULL, vec![sub(r#""release": {"#, r#""Release": {"#)]),
        case("invalid-id--node-id", FULL, vec![sub(r#""final-review": {"#, r#""final_review": {"#)]),
        case("invalid-id--configuration-key", FULL, vec![sub(r#""key": "tracker_url""#, r#""key": "A-b""#)]),
        case("invalid-id--agent-key-trailing-hyphen", FULL, vec![add_agent("extra-", "build")]),
        // ID-3, ID-6
        case("reserved-id--agent-orchestrator", FULL, vec![add_agent("orchestrator", "build")]),
        case("reserved-id--agent-universal-build", FULL, vec![add_agent("universal-build", "build")]),
        case("reserved-id--agent-shared", FULL, vec![add_agent("shared", "build")]),
        case("reserved-id--node-agent-orchestrator", FULL, vec![sub(r#""agent_id": "requirements-analyst""#, r#""agent_id": "orchestrator""#)]),
        case("reserved-id--package-id-runtime", MIN, vec![sub(r#""id": "minimal-squad""#, r#""id": "runtime""#)]),
        case("reserved-id--namespace-worktrees", MIN, vec![sub(r#""namespace": "acme""#, r#""namespace": "worktrees""#)]),
        // VER-1, VER-2
        case("invalid-version--one-digit-month", FULL, vec![version("2026.1.01.1")]),
        case("invalid-version--revision-zero", FULL, vec![version("2026.01.01.0")]),
        case("invalid-version--leading-zero-revision", FULL, vec![version("2026.01.01.01")]),
        case("invalid-version--semver", FULL, vec![version("1.2.3")]),
        case("invalid-version-date--not-a-leap-year", FULL, vec![version("2026.02.29.1")]),
        case("invalid-version-date--two-digit-year", FULL, vec![version("0099.12.31.1")]),
        case("invalid-version-date--month-13", FULL, vec![version("2026.13.01.1")]),
        case("invalid-version-date--day-zero", FULL, vec![version("2026.01.00.1")]),
        // MAN-8, CFG-1, WF-3
        case("empty-list--product-pillars", FULL, vec![sub(r#""product_pillars": ["code", "work"]"#, r#""product_pillars": []"#)]),
        case("empty-list--configuration-fields", MIN, vec![sub(r#""readme": "README.md","#, r#""readme": "README.md", "configuration": { "fields": [] },"#)]),
        case("empty-list--workflow-nodes", MIN, vec![sub(r#""virtual_workflows": {}"#, r#""virtual_workflows": { "flow": { "label": "Flow", "description": "d", "nodes": {} } }"#)]),
        // RES-U, CFG-3, MAN-8, GR-2
        case("duplicate-entry--built-in-tool-ids", FULL, vec![sub(r#""built_in_tool_ids": ["skill"]"#, r#""built_in_tool_ids": ["skill", "skill"]"#)]),
        case("duplicate-entry--package-skill-refs", FULL, vec![sub("\"package_skill_refs\": [\"release-review/shared/release-method\"],\n      \"default_tool_refs\"", "\"package_skill_refs\": [\"release-review/shared/release-method\", \"release-review/shared/release-method\"],\n      \"default_tool_refs\"")]),
        case("duplicate-entry--configuration-key", FULL, vec![sub(r#""key": "tracker_token""#, r#""key": "tracker_url""#)]),
        case("duplicate-entry--mcp-capability", FULL, vec![sub_in("mcp/tracker.jsonc", r#""tools": ["list_issues"]"#, r#""tools": ["list_issues", "list_issues"]"#)]),
        case("duplicate-entry+unsorted-list--pillars-repeat", FULL, vec![sub(r#""product_pillars": ["code", "work"]"#, r#""product_pillars": ["work", "work"]"#)]),
        case("duplicate-entry+unsorted-list--depends-on-repeat", FULL, vec![sub(r#""depends_on": ["build", "security-review"]"#, r#""depends_on": ["build", "build", "security-review"]"#)]),
        case("unsorted-list--product-pillars", FULL, vec![sub(r#""product_pillars": ["code", "work"]"#, r#""product_pillars": ["work", "code"]"#)]),
        case("unsorted-list--depends-on", FULL, vec![sub(r#""depends_on": ["build", "security-review"]"#, r#""depends_on": ["security-review", "build"]"#)]),
        case("unsorted-list--depends-on-hyphen-before-digit", FULL, vec![sub(r#""depends_on": ["build", "security-review"]"#, r#""depends_on": ["build", "build-2", "build0"]"#), sub(r#""security-review": {"#, "\"build-2\": { \"agent_id\": \"builder\", \"description\": \"Second build.\", \"depends_on\": [] },\n          \"build0\": { \"agent_id\": \"builder\", \"description\": \"Zeroth build.\", \"depends_on\": [] },\n          \"security-review\": {"), sub(r#""build-2", "build0""#, r#""build0", "build-2""#)]),
        // AG-3a, AG-4a
        case("unknown-base-role--foo", FULL, vec![sub(r#""base_role": "requirements""#, r#""base_role": "foo""#)]),
        case("unknown-base-role--orchestrator-for-agent", FULL, vec![sub(r#""base_role": "requirements""#, r#""base_role": "orchestrator""#)]),
        case("unknown-base-role--upper-case", FULL, vec![sub(r#""base_role": "build""#, r#""base_role": "Build""#)]),
        case("execution-contract-mismatch--integrity-without-contract", FULL, vec![sub(r#""execution_contract": "platform_integrity_review","#, "")]),
        case("execution-contract-mismatch--contract-on-build", FULL, vec![sub(r#""base_role": "build","#, "\"base_role\": \"build\",\n        \"execution_contract\": \"platform_integrity_review\",")]),
        case("execution-contract-mismatch--integrity-added-without-contract", FULL, vec![add_agent("auditor", "integrity")]),
        // MAN-R2
        case("invalid-prompt-path--scheduler-x-md", FULL, vec![sub(r#""prompt": "agents/orchestrator/system.md""#, r#""prompt": "x.md""#)]),
        case("invalid-prompt-path--other-owner", FULL, vec![sub(r#""prompt": "agents/builder/system.md""#, r#""prompt": "agents/reviewer/system.md""#)]),
        case("invalid-prompt-path--case", FULL, vec![sub(r#""prompt": "agents/builder/system.md""#, r#""prompt": "agents/builder/SYSTEM.md""#)]),
        // TOOL-1
        case("unknown-built-in-tool--typo", FULL, vec![sub(r#""built_in_tool_ids": ["skill"]"#, r#""built_in_tool_ids": ["skil"]"#)]),
        case("unknown-built-in-tool--hyphenated", FULL, vec![sub(r#""built_in_tool_ids": ["dispatch_agent", "manage_task", "read"]"#, r#""built_in_tool_ids": ["dispatch-agent", "manage_task", "read"]"#)]),
        case("unknown-built-in-tool--default-host-tool", FULL, vec![sub(r#""built_in_tool_ids": ["skill"]"#, r#""built_in_tool_ids": ["webpage_extract"]"#)]),
        case("tool-not-supplied-by-role--scheduler-write", FULL, vec![sub(r#""built_in_tool_ids": ["dispatch_agent", "manage_task", "read"]"#, r#""built_in_tool_ids": ["dispatch_agent", "manage_task", "read", "write"]"#)]),
        case("tool-not-supplied-by-role--integrity-bash", FULL, vec![sub(r#""built_in_tool_ids": ["skill"]"#, r#""built_in_tool_ids": ["bash", "skill"]"#)]),
        case("tool-not-supplied-by-role--requirements-bash", FULL, vec![sub(r#""built_in_tool_ids": ["todowrite"]"#, r#""built_in_tool_ids": ["bash"]"#)]),
        case("tool-not-supplied-by-role--build-default-tool", FULL, vec![sub("\"default_tool_refs\": [],\n        \"package_tool_refs\": [\"release-review/shared/summarize-changes\"", "\"default_tool_refs\": [\"default/tool/webpage_extract\"],\n        \"package_tool_refs\": [\"release-review/shared/summarize-changes\"")]),
        case("tool-not-supplied-by-role--scheduler-default-tool", MIN, vec![sub("\"built_in_tool_ids\": [],\n      \"default_skill_refs\": [], \"package_skill_refs\": [], \"default_tool_refs\": []", "\"built_in_tool_ids\": [],\n      \"default_skill_refs\": [], \"package_skill_refs\": [], \"default_tool_refs\": [\"default/tool/webpage_compile\"]")]),
        // DREF-1…6, TOOL-2
        case("invalid-default-ref--skills-plural", FULL, vec![sub(r#""default/skill/writing""#, r#""default/skills/writing""#)]),
        case("invalid-default-ref--skill-name-space", FULL, vec![sub(r#""default/skill/writing""#, r#""default/skill/ writing""#)]),
        case("invalid-default-ref--mcp-tools-plural", FULL, vec![sub(r#""default/mcp/github/tool/search_issues""#, r#""default/mcp/github/tools/search_issues""#)]),
        case("invalid-default-ref--tool-with-slash", FULL, vec![sub("\"default_tool_refs\": [],\n        \"package_tool_refs\": [\"release-review/shared/summarize-changes\"", "\"default_tool_refs\": [\"default/tool/a/b\"],\n        \"package_tool_refs\": [\"release-review/shared/summarize-changes\"")]),
        case("unknown-default-tool--nope", FULL, vec![sub("\"default_tool_refs\": [],\n        \"package_tool_refs\": [\"release-review/shared/summarize-changes\"", "\"default_tool_refs\": [\"default/tool/nope\"],\n        \"package_tool_refs\": [\"release-review/shared/summarize-changes\"")]),
        case("unknown-default-tool--core-tool-name", FULL, vec![sub("\"default_tool_refs\": [],\n        \"package_tool_refs\": [\"release-review/shared/summarize-changes\"", "\"default_tool_refs\": [\"default/tool/bash\"],\n        \"package_tool_refs\": [\"release-review/shared/summarize-changes\"")]),
        case("unknown-default-tool--frontend-design-tool-typo", FULL, vec![sub(r#""base_role": "build""#, r#""base_role": "frontend-design""#), sub(r#""built_in_tool_ids": ["bash", "read", "work_artifact_author"]"#, r#""built_in_tool_ids": ["bash", "read"]"#), sub("\"default_tool_refs\": [],\n        \"package_tool_refs\": [\"release-review/shared/summarize-changes\"", "\"default_tool_refs\": [\"default/tool/create_visual_region_atlas\"],\n        \"package_tool_refs\": [\"release-review/shared/summarize-changes\"")]),
        case("default-mcp-server-unsupported--github", FULL, vec![sub("\"default_mcp_server_refs\": [],\n        \"package_mcp_server_refs\": [],\n        \"default_mcp_tool_refs\": [\"default/mcp/github", "\"default_mcp_server_refs\": [\"default/mcp/github\"],\n        \"package_mcp_server_refs\": [],\n        \"default_mcp_tool_refs\": [\"default/mcp/github")]),
        case("default-mcp-server-unsupported--scheduler", MIN, vec![sub("\"default_mcp_server_refs\": [], \"package_mcp_server_refs\": [], \"default_mcp_tool_refs\": [],\n      \"package_mcp_tool_refs\": [], \"default_mcp_prompt_refs\": [], \"package_mcp_prompt_refs\": [],\n      \"default_mcp_resource_refs\": [], \"package_mcp_resource_refs\": [] },", "\"default_mcp_server_refs\": [\"default/mcp/docs\"], \"package_mcp_server_refs\": [], \"default_mcp_tool_refs\": [],\n      \"package_mcp_tool_refs\": [], \"default_mcp_prompt_refs\": [], \"package_mcp_prompt_refs\": [],\n      \"default_mcp_resource_refs\": [], \"package_mcp_resource_refs\": [] },")]),
        case("default-mcp-server-unsupported--two-servers", FULL, vec![sub("\"default_mcp_server_refs\": [],\n        \"package_mcp_server_refs\": [],\n        \"default_mcp_tool_refs\": [\"default/mcp/github", "\"default_mcp_server_refs\": [\"default/mcp/a\", \"default/mcp/b\"],\n        \"package_mcp_server_refs\": [],\n        \"default_mcp_tool_refs\": [\"default/mcp/github")]),
        // PREF-1
        case("foreign-package-ref--other-id", FULL, vec![sub("\"package_skill_refs\": [\"release-review/shared/release-method\"],\n      \"default_tool_refs\"", "\"package_skill_refs\": [\"release-review/shared/release-method\", \"other-squad/shared/release-method\"],\n      \"default_tool_refs\"")]),
        case("foreign-package-ref--namespace-instead-of-id", FULL, vec![sub(r#""package_tool_refs": ["release-review/shared/summarize-changes","#, r#""package_tool_refs": ["acme/shared/summarize-changes", "release-review/shared/summarize-changes","#)]),
        case("foreign-package-ref--default-prefix-in-package-array", FULL, vec![sub("\"default_mcp_tool_refs\": [],\n        \"package_mcp_tool_refs\": [\"release-review/reviewer", "\"default_mcp_tool_refs\": [],\n        \"package_mcp_tool_refs\": [\"default/mcp/x/tool/y\", \"release-review/reviewer")]),
        case("dangling-ref--skill", FULL, vec![sub("\"package_skill_refs\": [\"release-review/shared/release-method\"],\n      \"default_tool_refs\"", "\"package_skill_refs\": [\"release-review/shared/release-method\", \"release-review/shared/missing-method\"],\n      \"default_tool_refs\"")]),
        case("dangling-ref--tool", FULL, vec![sub(r#""package_tool_refs": ["release-review/shared/summarize-changes","#, r#""package_tool_refs": ["release-review/shared/summarize", "release-review/shared/summarize-changes","#)]),
        case("dangling-ref--mcp-capability", FULL, vec![sub(r#""package_mcp_tool_refs": ["release-review/shared/tracker/tool/list_issues"]"#, r#""package_mcp_tool_refs": ["release-review/shared/tracker/tool/list_issues", "release-review/shared/tracker/tool/close_issue"]"#)]),
        case("dangling-ref--kind-mismatch", FULL, vec![sub(r#""package_mcp_prompt_refs": ["release-review/reviewer/evidence/prompt/review_template"]"#, r#""package_mcp_prompt_refs": ["release-review/reviewer/evidence/prompt/review_template", "release-review/reviewer/evidence/tool/fetch_evidence"]"#)]),
        case("dangling-ref--server", FULL, vec![sub(r#""package_mcp_server_refs": ["release-review/shared/tracker"]"#, r#""package_mcp_server_refs": ["release-review/shared/tracker", "release-review/shared/wiki"]"#)]),
        // PREF-2, PREF-3
        case("ref-not-owned--agent-skill", FULL, vec![sub(r#""package_skill_refs": ["release-review/shared/release-method", "release-review/shared/checklists/security"]"#, r#""package_skill_refs": ["release-review/builder/build-notes", "release-review/shared/release-method", "release-review/shared/checklists/security"]"#)]),
        case("ref-not-owned--agent-tool", FULL, vec![sub("\"default_tool_refs\": [],\n        \"package_tool_refs\": [],\n        \"default_mcp_server_refs\": [],\n        \"package_mcp_server_refs\": [],\n        \"default_mcp_tool_refs\": [],\n        \"package_mcp_tool_refs\": [\"release-review/reviewer", "\"default_tool_refs\": [],\n        \"package_tool_refs\": [\"release-review/builder/check-build\"],\n        \"default_mcp_server_refs\": [],\n        \"package_mcp_server_refs\": [],\n        \"default_mcp_tool_refs\": [],\n        \"package_mcp_tool_refs\": [\"release-review/reviewer")]),
        case("ref-not-owned--agent-mcp-tool", FULL, vec![sub(r#""package_mcp_tool_refs": ["release-review/shared/tracker/tool/list_issues"]"#, r#""package_mcp_tool_refs": ["release-review/reviewer/evidence/tool/fetch_evidence", "release-review/shared/tracker/tool/list_issues"]"#)]),
        case("ref-not-owned--scheduler-agent-skill", FULL, vec![sub("\"package_skill_refs\": [\"release-review/shared/release-method\"],\n      \"default_tool_refs\"", "\"package_skill_refs\": [\"release-review/builder/build-notes\", \"release-review/shared/release-method\"],\n      \"default_tool_refs\"")]),
        case("mcp-mounted-twice--tool", FULL, vec![sub("\"package_mcp_server_refs\": [\"release-review/shared/tracker\"],\n        \"default_mcp_tool_refs\": [],\n        \"package_mcp_tool_refs\": []", "\"package_mcp_server_refs\": [\"release-review/shared/tracker\"],\n        \"default_mcp_tool_refs\": [],\n        \"package_mcp_tool_refs\": [\"release-review/shared/tracker/tool/list_issues\"]")]),
        case("mcp-mounted-twice--prompt", FULL, vec![sub("\"package_mcp_server_refs\": [],\n        \"default_mcp_tool_refs\": [],\n        \"package_mcp_tool_refs\": [\"release-review/reviewer", "\"package_mcp_server_refs\": [\"release-review/reviewer/evidence\"],\n        \"default_mcp_tool_refs\": [],\n        \"package_mcp_tool_refs\": [\"release-review/reviewer"), sub(r#""package_mcp_tool_refs": ["release-review/reviewer/evidence/tool/fetch_evidence"]"#, r#""package_mcp_tool_refs": []"#), sub(r#""package_mcp_resource_refs": ["release-review/reviewer/evidence/resource/ledger"]"#, r#""package_mcp_resource_refs": []"#)]),
        case("mcp-mounted-twice--resource", FULL, vec![sub("\"package_mcp_server_refs\": [],\n        \"default_mcp_tool_refs\": [],\n        \"package_mcp_tool_refs\": [\"release-review/reviewer", "\"package_mcp_server_refs\": [\"release-review/reviewer/evidence\"],\n        \"default_mcp_tool_refs\": [],\n        \"package_mcp_tool_refs\": [\"release-review/reviewer"), sub(r#""package_mcp_tool_refs": ["release-review/reviewer/evidence/tool/fetch_evidence"]"#, r#""package_mcp_tool_refs": []"#), sub(r#""package_mcp_prompt_refs": ["release-review/reviewer/evidence/prompt/review_template"]"#, r#""package_mcp_prompt_refs": []"#)]),
        // PROJ-1, PROJ-2
        case("unprojected-resource--shared-skill", FULL, vec![sub(r#", "release-review/shared/checklists/security"]"#, "]")]),
        case("unprojected-resource--agent-skill", FULL, vec![sub(r#""package_skill_refs": ["release-review/builder/build-notes", "release-review/shared/release-method"]"#, r#""package_skill_refs": ["release-review/shared/release-method"]"#)]),
        case("unprojected-resource--agent-tool", FULL, vec![sub(r#", "release-review/builder/check-build"]"#, "]")]),
        case("unprojected-resource--agent-mcp-prompt", FULL, vec![sub(r#""package_mcp_prompt_refs": ["release-review/reviewer/evidence/prompt/review_template"]"#, r#""package_mcp_prompt_refs": []"#)]),
        case("unprojected-resource--new-shared-skill", FULL, vec![skill("skills/extra/SKILL.md", "name: extra\ndescription: An extra skill.\n")]),
        case("unprojected-resource--shared-server", FULL, vec![sub(r#""package_mcp_server_refs": ["release-review/shared/tracker"]"#, r#""package_mcp_server_refs": []"#), sub(r#""package_mcp_tool_refs": ["release-review/shared/tracker/tool/list_issues"]"#, r#""package_mcp_tool_refs": []"#)]),
        case("unprojected-resource--scheduler-local-skill", FULL, vec![skill("agents/orchestrator/skills/dispatch/SKILL.md", "name: dispatch\ndescription: Dispatch rules.\n")]),
        // GR-1, GR-3, GR-4
        case("unknown-agent--ghost", FULL, vec![sub(r#""agent_id": "requirements-analyst""#, r#""agent_id": "ghost""#)]),
        case("unknown-agent--scheduler-as-node", MIN, vec![sub(r#""virtual_workflows": {}"#, r#""virtual_workflows": { "flow": { "label": "Flow", "description": "d", "nodes": { "n": { "agent_id": "workers", "description": "d", "depends_on": [] } } } }"#)]),
        case("unknown-agent--case", FULL, vec![sub(r#""agent_id": "builder""#, r#""agent_id": "builders""#)]),
        case("unknown-dependency--missing-node", FULL, vec![sub("\"depends_on\": [\"requirements\"] },\n          \"security-review\"", "\"depends_on\": [\"missing-node\", \"requirements\"] },\n          \"security-review\"")]),
        case("unknown-dependency--other-workflow", FULL, vec![sub(r#""virtual_workflows": {"#, "\"virtual_workflows\": {\n      \"hotfix\": { \"label\": \"Hotfix\", \"description\": \"Build only.\", \"nodes\": { \"patch\": { \"agent_id\": \"builder\", \"description\": \"Patch.\", \"depends_on\": [\"requirements\"] } } },")]),
        case("unknown-dependency--typo", FULL, vec![sub(r#""depends_on": ["build", "security-review"]"#, r#""depends_on": ["build", "security-reviews"]"#)]),
        case("self-dependency+dependency-cycle--build", FULL, vec![sub("\"depends_on\": [\"requirements\"] },\n          \"security-review\"", "\"depends_on\": [\"build\", \"requirements\"] },\n          \"security-review\"")]),
        case("self-dependency+dependency-cycle--single-node", MIN, vec![sub(r#""virtual_workflows": {}"#, r#""virtual_workflows": { "flow": { "label": "Flow", "description": "d", "nodes": { "n": { "agent_id": "worker", "description": "d", "depends_on": ["n"] } } } }"#)]),
        case("self-dependency+dependency-cycle--final", FULL, vec![sub(r#""depends_on": ["build", "security-review"]"#, r#""depends_on": ["build", "final-review", "security-review"]"#)]),
        case("dependency-cycle--two-nodes", FULL, vec![sub(r#""description": "Write acceptance criteria.", "depends_on": []"#, r#""description": "Write acceptance criteria.", "depends_on": ["build"]"#)]),
        case("dependency-cycle--through-join", FULL, vec![sub(r#""description": "Write acceptance criteria.", "depends_on": []"#, r#""description": "Write acceptance criteria.", "depends_on": ["final-review"]"#)]),
        case("dependency-cycle--three-nodes", MIN, vec![sub(r#""virtual_workflows": {}"#, r#""virtual_workflows": { "flow": { "label": "Flow", "description": "d", "nodes": { "a": { "agent_id": "worker", "description": "d", "depends_on": ["c"] }, "b": { "agent_id": "worker", "description": "d", "depends_on": ["a"] }, "c": { "agent_id": "worker", "description": "d", "depends_on": ["b"] } } } }"#)]),
        // ROOT-2, AGD-3
        case("missing-file--readme", FULL, vec![remove("README.md")]),
        case("missing-file--selector", FULL, vec![remove("selector.md")]),
        case("missing-file--agent-prompt", FULL, vec![remove("agents/requirements-analyst/system.md")]),
        case("missing-file--manifest", MIN, vec![remove(MANIFEST)]),
        // TXT-1…3
        case("blank-file--readme-whitespace", FULL, vec![write("README.md", "  \n\t\n")]),
        case("blank-file--readme-only-frontmatter", FULL, vec![write("README.md", "---\ntitle: Release Review\n---\n\n")]),
        case("blank-file--selector", FULL, vec![write("selector.md", "\n")]),
        case("blank-file--prompt", FULL, vec![write("agents/builder/system.md", " \n")]),
        case("readme-frontmatter--invalid-yaml", FULL, vec![write("README.md", "---\ntitle: [unclosed\n---\n\n# Release Review\n")]),
        case("readme-frontmatter--duplicate-key", FULL, vec![write("README.md", "---\ntitle: a\ntitle: b\n---\n\n# Release Review\n")]),
        case("readme-frontmatter--unknown-engine", FULL, vec![write("README.md", "--- toml\ntitle = 1\n---\n\n# Release Review\n")]),
        // ROOT-3
        case("unknown-top-level-entry--license", FULL, vec![write("LICENSE", "MIT\n")]),
        case("unknown-top-level-entry--npmignore", FULL, vec![write(".npmignore", "node_modules\n")]),
        case("unknown-top-level-entry--docs-directory", FULL, vec![write("docs/guide.md", "# Guide\n")]),
        case("unknown-top-level-entry--notes", MIN, vec![write("NOTES.md", "# x\n")]),
        case("wrong-entry-type--readme-directory", FULL, vec![remove("README.md"), write("README.md/index.md", "# R\n")]),
        case("wrong-entry-type--lib-file", MIN, vec![write("lib", "x\n")]),
        case("wrong-entry-type--file-in-agents", FULL, vec![write("agents/notes.md", "# notes\n")]),
        case("wrong-entry-type--tools-subdirectory", FULL, vec![write("tools/helpers/util.ts", "export const x = 1;\n")]),
        case("wrong-entry-type--agent-lib-file", FULL, vec![write("agents/reviewer/lib", "x\n")]),
        case("host-metadata-in-source--root", FULL, vec![write(".opencorvus-meta.json", "{}\n")]),
        case("host-metadata-in-source--empty", MIN, vec![write(".opencorvus-meta.json", "")]),
        case("host-metadata-in-source--directory", MIN, vec![write(".opencorvus-meta.json/x", "{}\n")]),
        // FBD-2
        case("runtime-internal-entry--runtime-in-skill", FULL, vec![write("skills/release-method/references/runtime/notes.md", "x\n")]),
        case("runtime-internal-entry--r-in-lib", FULL, vec![write("agents/builder/lib/.r/cache.json", "{}\n")]),
        case("runtime-internal-entry--nested-metadata", FULL, vec![write("skills/release-method/.opencorvus-meta.json", "{}\n")]),
        case("runtime-internal-entry--top-level-worktrees", FULL, vec![write("worktrees/a.md", "x\n")]),
        case("runtime-internal-entry--opencorvus-directory", FULL, vec![write("skills/release-method/.opencorvus/x.md", "x\n")]),
        // AGD-1, AGD-2, PROJ-3
        case("undeclared-agent-directory--ghost", FULL, vec![write("agents/ghost/system.md", "You are a ghost.\n")]),
        case("undeclared-agent-directory--ghost-skill", FULL, vec![skill("agents/ghost/skills/haunt/SKILL.md", "name: haunt\ndescription: Haunt.\n")]),
        case("undeclared-agent-directory--helper", MIN, vec![write("agents/helper/system.md", "Helper.\n")]),
        case("unexpected-agent-entry--notes", FULL, vec![write("agents/builder/notes.md", "x\n")]),
        case("unexpected-agent-entry--assets", FULL, vec![write("agents/builder/assets/data.json", "{}\n")]),
        case("unexpected-agent-entry--readme", FULL, vec![write("agents/reviewer/README.md", "x\n")]),
        case("undeclared-prompt--scheduler", FULL, vec![sub(r#""prompt": "agents/orchestrator/system.md","#, "")]),
        case("undeclared-prompt--agent", FULL, vec![sub(r#""prompt": "agents/builder/system.md","#, "")]),
        case("undeclared-prompt--minimal-scheduler", MIN, vec![write("agents/orchestrator/system.md", "You orchestrate.\n")]),
        // SKL-1…SKL-4
        case("skill-layout--loose-file", FULL, vec![write("skills/notes.md", "x\n")]),
        case("skill-layout--skill-md-at-root", FULL, vec![skill("skills/SKILL.md", "name: root\ndescription: Root.\n")]),
        case("skill-layout--group-file", FULL, vec![write("skills/checklists/README.md", "x\n")]),
        case("skill-layout--agent-skills-loose-file", FULL, vec![write("agents/builder/skills/notes.md", "x\n")]),
        case("skill-unsafe-path--leading-space", FULL, vec![write("skills/release-method/ notes.md", "x\n")]),
        case("skill-unsafe-path--leading-space-agent-skill", FULL, vec![write("agents/builder/skills/build-notes/ log.md", "x\n")]),
        case("skill-unsafe-path--leading-no-break-space", FULL, vec![write("skills/checklists/security/\u{a0}extra.md", "x\n")]),
        case("nested-skill-md--in-references", FULL, vec![skill("skills/release-method/references/SKILL.md", "name: inner\ndescription: Inner.\n")]),
        case("nested-skill-md--lower-case", FULL, vec![write("skills/release-method/references/skill.md", "x\n")]),
        case("nested-skill-md--mixed-case-deep", FULL, vec![write("skills/checklists/security/a/Skill.MD", "x\n")]),
        case("skill-not-utf8--latin1", FULL, vec![write("skills/checklists/security/SKILL.md", b"---\nname: security-checklist\ndescription: Caf\xe9 checks.\n---\n")]),
        case("skill-not-utf8--utf16-bom", FULL, vec![write("agents/builder/skills/build-notes/SKILL.md", b"\xff\xfe-\x00-\x00-\x00")]),
        case("skill-not-utf8--truncated-sequence-in-body", FULL, vec![append("skills/release-method/SKILL.md", b"\nEnd \xe2\x82\n")]),
        case("skill-frontmatter--missing", FULL, vec![write("skills/checklists/security/SKILL.md", "# Security checklist\n")]),
        case("skill-frontmatter--no-description", FULL, vec![skill("skills/checklists/security/SKILL.md", "name: security-checklist\n")]),
        case("skill-frontmatter--name-with-slash", FULL, vec![skill("skills/checklists/security/SKILL.md", "name: checklists/security\ndescription: d\n")]),
        case("skill-frontmatter--unknown-required-tool", FULL, vec![skill("skills/checklists/security/SKILL.md", "name: security-checklist\ndescription: d\nrequired_tools: [read, shell]\n")]),
        case("skill-frontmatter--invalid-yaml", FULL, vec![skill("skills/checklists/security/SKILL.md", "name: [unclosed\ndescription: d\n")]),
        case("skill-frontmatter--name-is-a-date", FULL, vec![skill("skills/checklists/security/SKILL.md", "name: 2024-01-01\ndescription: d\n")]),
        case("skill-frontmatter--duplicate-key", FULL, vec![skill("skills/checklists/security/SKILL.md", "name: security-checklist\ndescription: d\nname: again\n")]),
        case("skill-frontmatter--unknown-tag", FULL, vec![skill("skills/checklists/security/SKILL.md", "name: security-checklist\ndescription: !important d\n")]),
        case("skill-frontmatter--second-document", FULL, vec![write("skills/checklists/security/SKILL.md", "---\nname: security-checklist\ndescription: d\n...\nbody\n")]),
        case("skill-frontmatter--name-null", FULL, vec![skill("skills/checklists/security/SKILL.md", "name:\ndescription: d\n")]),
        case("skill-frontmatter--expires-at-day-32", FULL, vec![skill("skills/checklists/security/SKILL.md", "name: security-checklist\ndescription: d\nexpires_at: \"2026-01-32\"\n")]),
        case("skill-frontmatter--expires-at-word", FULL, vec![skill("skills/checklists/security/SKILL.md", "name: security-checklist\ndescription: d\nexpires_at: soon 2\n")]),
        // REF-3, REF-4, REF-5
        case("unsupported-tool-extension--mts", FULL, vec![write("tools/extra.mts", "export default 1;\n")]),
        case("unsupported-tool-extension--markdown", FULL, vec![write("tools/README.md", "# tools\n")]),
        case("unsupported-tool-extension--agent-tsx", FULL, vec![write("agents/builder/tools/view.tsx", "export default 1;\n")]),
        case("invalid-tool-id--pascal-case", FULL, vec![write("tools/Report.ts", "export default 1;\n")]),
        case("invalid-tool-id--test-file", FULL, vec![write("tools/summarize-changes.test.ts", "export default 1;\n")]),
        case("invalid-tool-id--declaration-file", FULL, vec![write("tools/types.d.ts", "export {};\n")]),
        case("duplicate-resource--tool-ts-and-js", FULL, vec![write("tools/summarize-changes.js", "export default 1;\n")]),
        case("duplicate-resource--mcp-json-and-jsonc", FULL, vec![write("mcp/tracker.json", "{\"type\": \"remote\", \"url\": \"https://x.example\", \"transport\": \"sse\"}\n")]),
        case("duplicate-resource--agent-tool-ts-and-js", FULL, vec![write("agents/builder/tools/check-build.js", "export default 1;\n")]),
        case("unsupported-mcp-extension--yaml", FULL, vec![write("mcp/wiki.yaml", "type: remote\n")]),
        case("unsupported-mcp-extension--agent-text", FULL, vec![write("agents/reviewer/mcp/notes.txt", "x\n")]),
        case("unsupported-mcp-extension--no-extension", FULL, vec![write("mcp/wiki", "{}\n")]),
        case("invalid-url--ftp", FULL, vec![sub_in("mcp/tracker.jsonc", r#""url": "https://tracker.example/mcp""#, r#""url": "ftp://tracker.example/mcp""#)]),
        case("invalid-url--not-a-url", FULL, vec![sub_in("mcp/tracker.jsonc", r#""url": "https://tracker.example/mcp""#, r#""url": "tracker""#)]),
        case("invalid-url--javascript", FULL, vec![sub_in("agents/reviewer/mcp/evidence.json", r#""url": "https://evidence.example/mcp""#, r#""url": "javascript:alert(1)""#)]),
        case("invalid-resource-name--capability-slash", FULL, vec![sub_in("agents/reviewer/mcp/evidence.json", r#""resources": ["ledger"]"#, r#""resources": ["ledger", "a/b"]"#)]),
        case("invalid-resource-name--capability-backslash", FULL, vec![sub_in("mcp/tracker.jsonc", r#""prompts": []"#, r#""prompts": ["a\\b"]"#)]),
        case("invalid-resource-name--tool-backslash", FULL, vec![sub_in("mcp/tracker.jsonc", r#""tools": ["list_issues"]"#, r#""tools": ["list_issues", "x\\y"]"#)]),
        // TL-2…TL-4
        case("import-crosses-boundary--sibling-tool", FULL, vec![imports(r#"import "./helper";"#)]),
        case("import-crosses-boundary--skill-file", FULL, vec![imports("import text from \"../skills/release-method/references/evidence.md\";\nexport const evidence = text;")]),
        case("import-crosses-boundary--other-agent-lib", FULL, vec![imports("import { digestLabel } from \"../agents/builder/lib/digest\";\nexport const label = digestLabel;")]),
        case("import-crosses-boundary--manifest", FULL, vec![imports_in(AGENT_TOOL, "import manifest from \"../../../expert-squad.jsonc\";\nexport const raw = manifest;")]),
        case("import-crosses-boundary--outside-package", FULL, vec![imports("import x from \"../../secret.ts\";\nexport const secret = x;")]),
        case("unsupported-module--fs-without-node-prefix", FULL, vec![imports("import { readFileSync } from \"fs\";\nexport const read = readFileSync;")]),
        case("unsupported-module--child-process", FULL, vec![imports_in(AGENT_TOOL, "import { exec } from \"node:child_process\";\nexport const run = exec;")]),
        case("unsupported-module--zod", FULL, vec![imports("import { z } from \"zod\";\nexport const schema = z.string();")]),
        case("unsupported-module--require-in-lib", FULL, vec![prepend("lib/format.ts", "const _ = require(\"lodash\");\n")]),
        case("unsupported-module--unused-import", FULL, vec![imports(r#"import { z } from "zod";"#)]),
        case("unsupported-module--inline-type-specifier", FULL, vec![imports(r#"import { type ToolContext } from "@opencorvus-ai/plugin/tool";"#)]),
        case("import-crosses-boundary--unused-in-javascript", FULL, vec![write("tools/probe.js", "import { q } from \"../skills/release-method/references/evidence.md\";\nexport default 1;\n"), sub(r#""package_tool_refs": ["release-review/shared/summarize-changes", "release-review/builder/check-build"]"#, r#""package_tool_refs": ["release-review/shared/summarize-changes", "release-review/builder/check-build", "release-review/shared/probe"]"#)]),
        case("unsupported-module--plugin-subpath", FULL, vec![imports(r#"export { tool as t } from "@opencorvus-ai/plugin/tool";"#)]),
        case("unsupported-import-extension--csv", FULL, vec![write("lib/data.csv", "a,b\n"), imports("import data from \"../lib/data.csv\";\nexport const rows = data;")]),
        case("unsupported-import-extension--png-asset", FULL, vec![write("assets/logo.png", "PNG"), imports("import logo from \"../assets/logo.png\";\nexport const image = logo;")]),
        case("unsupported-import-extension--mjs-lib", FULL, vec![write("lib/extra.mjs", "export const x = 1;\n"), imports("import { x } from \"../lib/extra.mjs\";\nexport const extra = x;")]),
        case("non-literal-import--dynamic-import", FULL, vec![append(TOOL, "export async function load(name: string) { return import(name); }\n")]),
        case("non-literal-import--require-variable", FULL, vec![append("lib/format.ts", "export const loader = (m: string) => require(m);\n")]),
        case("non-literal-import--template-substitution", FULL, vec![append(AGENT_TOOL, "export const later = (v: string) => import(`../lib/${v}`);\n")]),
        case("absolute-import--unix-path", FULL, vec![imports(r#"import "/etc/hosts";"#)]),
        case("absolute-import--file-url", FULL, vec![imports("import x from \"file:///tmp/x.ts\";\nexport const file = x;")]),
        case("absolute-import--windows-drive", FULL, vec![imports("import x from \"C:\\\\tools\\\\x.ts\";\nexport const windows = x;")]),
        case("unresolved-import--missing-lib", FULL, vec![imports("import { y } from \"../lib/missing\";\nexport const missing = y;")]),
        case("unresolved-import--json-without-extension", FULL, vec![write("lib/data.json", "{}\n"), imports("import data from \"../lib/data\";\nexport const first = data;"), imports("import data2 from \"../lib/data.json\";\nexport const second = data2;")]),
        case("unresolved-import--missing-asset", FULL, vec![imports("import page from \"../assets/page.html\";\nexport const html = page;")]),
        case("unsupported-module--value-import-beside-type-import", FULL, vec![imports("import { type ZodType, z } from \"zod\";\nexport const schema: ZodType = z.string();")]),
        case("unsupported-module--re-export-all", FULL, vec![imports(r#"export * from "node:child_process";"#)]),
        case("unsupported-module--import-equals-require", FULL, vec![imports_in(AGENT_TOOL, "import cp = require(\"node:child_process\");\nexport const run = cp.exec;")]),
        // TLP-1: every tool and every file it imports parses
        case("tool-syntax--stray-semicolon", FULL, vec![sub_in(TOOL, "  args: {},", "  args: {};")]),
        case("tool-syntax--lib-file", FULL, vec![append("lib/format.ts", "export const joined = (items: string[] => items.join(\", \");\n")]),
        case("tool-syntax--redeclared-binding", FULL, vec![append(TOOL, "const limit = 10;\nconst limit = 20;\n")]),
        case("tool-syntax--javascript-tool-with-types", MIN, vec![write("tools/ping.js", "import { tool } from \"@opencorvus-ai/plugin\";\nexport default tool({ description: \"ping\", args: {}, async execute(args: object) { return \"pong\"; } });\n"), sub("\"package_tool_refs\": [],\n        \"default_mcp_server_refs\"", "\"package_tool_refs\": [\"minimal-squad/shared/ping\"],\n        \"default_mcp_server_refs\"")]),
        case("tool-syntax+unsupported-import-extension--tsx-lib", FULL, vec![write("lib/view.tsx", "export const view = (text: string) => <p><b>{text}</p>;\n"), imports("import { view } from \"../lib/view.tsx\";\nexport const rendered = view;")]),
        // LIB-1, AST-1
        case("unreachable-library-file--unused-lib", FULL, vec![write("lib/unused.ts", "export const unused = 1;\n")]),
        case("unreachable-library-file--gitkeep", FULL, vec![write("lib/.gitkeep", "")]),
        case("unreachable-library-file--agent-lib", FULL, vec![write("agents/builder/lib/old.ts", "export {};\n")]),
        case("unreachable-library-file--type-only-import", FULL, vec![write("lib/shapes.ts", "export interface Shape { kind: string }\n"), imports(r#"import type { Shape } from "../lib/shapes";"#)]),
        case("unreachable-library-file--unused-binding", FULL, vec![write("lib/extra.ts", "export const q = 1;\n"), imports(r#"import { q } from "../lib/extra";"#)]),
        case("unreachable-library-file--type-specifier-only", FULL, vec![write("lib/extra.ts", "export interface Q { a: string }\n"), imports("import { type Q } from \"../lib/extra\";\nexport type R = Q;")]),
        case("unreachable-asset--unused-template", FULL, vec![write("assets/unused.md", "# unused\n")]),
        case("unreachable-asset--ds-store", FULL, vec![write("assets/.DS_Store", "\0\0")]),
        case("unreachable-asset--nested", FULL, vec![write("assets/report/old/template.md", "# old\n")]),
        // PATH-S
        case("non-portable-path+skill-unsafe-path--colon", FULL, vec![write("skills/release-method/references/a:b.md", "x\n")]),
        case("non-portable-path--windows-device-name", FULL, vec![write("skills/release-method/references/nul.txt", "x\n")]),
        case("non-portable-path--trailing-dot", FULL, vec![write("skills/release-method/references/notes.", "x\n")]),
        case("non-portable-path--nfd-name", FULL, vec![write("skills/release-method/references/cafe\u{301}.md", "x\n")]),
        case("non-portable-path--question-mark", FULL, vec![write("skills/release-method/references/why?.md", "x\n")]),
        case("path-case-collision--skill-reference", FULL, vec![write("skills/release-method/references/Evidence.md", "x\n")]),
        case("path-case-collision--lib", FULL, vec![write("lib/Format.ts", "export {};\n"), imports(r#"import "../lib/Format";"#)]),
        case("path-case-collision--directory-case", FULL, vec![write("skills/release-method/References/more.md", "x\n")]),
    ]
}

/// Variants the reference accepts although they look wrong: each validates without errors.
#[rustfmt::skip]
pub fn accepted() -> Vec<Case> {
    vec![
        case("accepted--duplicate-key-warning", MIN, vec![sub(r#""label": "Minimal","#, r#""label": "First", "label": "Minimal","#)]),
        case("accepted--skill-expires-at-legacy-date", FULL, vec![skill("skills/checklists/security/SKILL.md", "name: security-checklist\ndescription: d\nexpires_at: Dec 31 2026\n")]),
        case("accepted--skill-description-underscored-digits", FULL, vec![skill("skills/checklists/security/SKILL.md", "name: security-checklist\ndescription: 1_000\n")]),
        case("accepted--builtin-id-warning", MIN, vec![sub(r#""id": "minimal-squad""#, r#""id": "base""#)]),
        case("accepted--label-only-whitespace", MIN, vec![sub(r#""label": "Minimal""#, r#""label": " ""#)]),
        case("accepted--agent-label-padded", MIN, vec![sub(r#""label": "Worker""#, r#""label": "  Worker  ""#)]),
        case("accepted--node-ids-with-reserved-names", MIN, vec![sub(r#""virtual_workflows": {}"#, r#""virtual_workflows": { "shared": { "label": "L", "description": "d", "nodes": { "orchestrator": { "agent_id": "worker", "description": "d", "depends_on": [] }, "universal-build": { "agent_id": "worker", "description": "d", "depends_on": ["orchestrator"] } } } }"#)]),
        case("accepted--description-empty", MIN, vec![sub(r#""label": "Minimal","#, r#""label": "Minimal", "description": "","#)]),
        case("accepted--escaped-key-and-one-point-zero", MIN, vec![sub(r#""schema_version": 1, "namespace": "acme", "id""#, r#""schema_version": 1.0, "namespace": "acme", "\u0069d""#)]),
        case("accepted--depends-on-code-unit-order", MIN, vec![sub(r#""virtual_workflows": {}"#, r#""virtual_workflows": { "flow": { "label": "L", "description": "d", "nodes": { "a": { "agent_id": "worker", "description": "d", "depends_on": [] }, "a-b": { "agent_id": "worker", "description": "d", "depends_on": [] }, "a0": { "agent_id": "worker", "description": "d", "depends_on": [] }, "ab": { "agent_id": "worker", "description": "d", "depends_on": [] }, "z": { "agent_id": "worker", "description": "d", "depends_on": ["a", "a-b", "a0", "ab"] } } } }"#)]),
        case("accepted--leap-day-and-year-0100", MIN, vec![sub(r#""version": "2026.08.20.1""#, r#""version": "2024.02.29.123456789012345678901""#)]),
        case("accepted--year-0100", MIN, vec![sub(r#""version": "2026.08.20.1""#, r#""version": "0100.01.01.1""#)]),
        case("accepted--nested-skill-group", FULL, vec![write("skills/checklists/privacy/SKILL.md", "---\nname: privacy-checklist\ndescription: Privacy checks.\n---\n"), sub(r#""release-review/shared/checklists/security"]"#, r#""release-review/shared/checklists/privacy", "release-review/shared/checklists/security"]"#)]),
        case("accepted--js-tool-and-json-mcp", MIN, vec![write("tools/ping.js", "import { tool } from \"@opencorvus-ai/plugin\";\nexport default tool({ description: \"ping\", args: {}, async execute() { return \"pong\"; } });\n"), write("mcp/Docs Server.json", "{\"type\": \"remote\", \"url\": \"http://docs.example:8080/mcp\", \"transport\": \"sse\", \"capabilities\": {\"tools\": [\"search docs\", \"v1.read\"]}}\n"), sub("\"package_tool_refs\": [],\n        \"default_mcp_server_refs\": [], \"package_mcp_server_refs\": []", "\"package_tool_refs\": [\"minimal-squad/shared/ping\"],\n        \"default_mcp_server_refs\": [], \"package_mcp_server_refs\": [\"minimal-squad/shared/Docs Server\"]")]),
        case("accepted--readme-with-frontmatter", MIN, vec![write("README.md", "---\ntitle: Minimal\n---\n\n# Minimal\n\nDispatch the worker.\n")]),
        case("accepted--crlf-line-endings", MIN, vec![crlf(MANIFEST), crlf("README.md")]),
        case("accepted--artifact-tools-in-built-ins", MIN, vec![sub("\"built_in_tool_ids\": [],\n        \"default_skill_refs\"", "\"built_in_tool_ids\": [\"artifact_publish\", \"work_artifact_author\"],\n        \"default_skill_refs\"")]),
        case("accepted--skill-name-conflict-warning", FULL, vec![write("skills/checklists/security/SKILL.md", "---\nname: release-method\ndescription: Security checks every release must pass.\n---\n")]),
        case("accepted--default-refs", FULL, vec![sub(r#""default_skill_refs": ["default/skill/writing"]"#, r#""default_skill_refs": ["default/skill/writing", "default/skill/Any Name.v2"]"#), sub("\"default_mcp_prompt_refs\": [],\n        \"package_mcp_prompt_refs\": [\"release-review/reviewer", "\"default_mcp_prompt_refs\": [\"default/mcp/github/prompt/triage\"],\n        \"package_mcp_prompt_refs\": [\"release-review/reviewer")]),
        case("accepted--visual-qa-default-tool", MIN, vec![sub(r#""base_role": "build""#, r#""base_role": "visual-qa""#), sub("\"default_tool_refs\": [], \"package_tool_refs\": [],\n        \"default_mcp_server_refs\"", "\"default_tool_refs\": [\"default/tool/browser_preview_layout_geometry\"], \"package_tool_refs\": [],\n        \"default_mcp_server_refs\"")]),
        case("accepted--long-path-warning", FULL, vec![write("skills/release-method/references/deep-directory-name-00/deep-directory-name-01/deep-directory-name-02/deep-directory-name-03/deep-directory-name-04/deep-directory-name-05/deep-directory-name-06/deep-directory-name-07/deep-directory-name-08/deep-directory-name-09/notes.md", "x\n")]),
        // LIM-1, LIM-2: a folder beyond the archive limits is valid, with a warning.
        // (The size limits need files of megabytes: team::validate_warns_about_what_pack_and_publish_refuse.)
        case("accepted--archive-limit-entries", FULL, (0..513).map(|n| write(Box::leak(format!("skills/release-method/references/note-{n:03}.md").into_boxed_str()), "x\n")).collect()),
        case("accepted--archive-limit-entries-in-two-skills", FULL, (0..600).map(|n| write(Box::leak(format!("skills/{}/references/note-{n:03}.md", if n % 2 == 0 { "release-method" } else { "checklists/security" }).into_boxed_str()), "x\n")).collect()),
        case("accepted--archive-limit-entries-agent-skill", FULL, (0..520).map(|n| write(Box::leak(format!("agents/builder/skills/build-notes/references/n{n}.txt").into_boxed_str()), "")).collect()),
        case("accepted--readme-closing-line-content", MIN, vec![write("README.md", "---\ntitle: Minimal\n--- Dispatch the worker.\n")]),
        case("accepted--frontmatter-tab-after-colon", FULL, vec![write("skills/checklists/security/SKILL.md", "---\nname:\tsecurity-checklist\ndescription:\t'Security checks.'\n---\n")]),
        case("accepted--frontmatter-merge-key-and-json", FULL, vec![write("skills/checklists/security/SKILL.md", "---\nbase: &base {license: MIT}\nmetadata:\n  <<: *base\nname: security-checklist\ndescription: d\n---\n"), write("agents/builder/skills/build-notes/SKILL.md", "---json\n{\"name\": \"build-notes\", \"description\": \"Build notes.\"}\n---\n")]),
        case("accepted--upper-case-asset-extension", FULL, vec![write("assets/page.HTML", "<p>x</p>\n"), prepend(TOOL, "import page from \"../assets/page.HTML\";\nexport const pageLength = page.length;\n")]),
        case("accepted--unused-import-is-elided", FULL, vec![imports(r#"import unused from "../skills/release-method/SKILL.md";"#)]),
        case("accepted--lib-directory-index", FULL, vec![write("lib/index.ts", "export * from \"./format\";\n"), sub_in(TOOL, r#"import { formatList } from "../lib/format";"#, r#"import { formatList } from "../lib";"#)]),
        case("accepted--non-null-assertion-division", FULL, vec![append("lib/format.ts", "export const average = (totals: Map<string, number>, key: string, runs: number) => totals.get(key)! / runs;\nexport const label = (n: number) => `${n} ms/run`;\n")]),
        case("accepted--default-export-not-a-tool-warning", FULL, vec![sub_in(TOOL, "export default tool({", "export default ({")]),
        case("accepted--type-only-tool-import-warning", FULL, vec![sub_in(AGENT_TOOL, "import { tool } from", "import type { tool } from")]),
        case("accepted--named-tool-export-warning", FULL, vec![sub_in(TOOL, "export default tool({", "export const summarize = tool({")]),
        case("accepted--javascript-keeps-unused-import", FULL, vec![write("lib/extra.ts", "export const q = 1;\n"), write("tools/probe.js", "import { q } from \"../lib/extra.js\";\nexport default 1;\n"), sub(r#""package_tool_refs": ["release-review/shared/summarize-changes", "release-review/builder/check-build"]"#, r#""package_tool_refs": ["release-review/shared/summarize-changes", "release-review/builder/check-build", "release-review/shared/probe"]"#)]),
        case("accepted--type-only-import-of-unsupported-module", FULL, vec![imports("import type { ZodType } from \"zod\";\nexport type Schema = ZodType;")]),
        case("accepted--import-used-only-as-a-type-is-elided", FULL, vec![imports("import { CheckResult } from \"../agents/builder/tools/check-build\";\nexport type Results = CheckResult[];")]),
        case("accepted--re-export-from-lib", FULL, vec![imports(r#"export { formatList as formatItems } from "../lib/format";"#)]),
        case("accepted--import-equals-require", FULL, vec![imports("import format = require(\"../lib/format\");\nexport const formatAll = format.formatList;")]),
        case("accepted--empty-optional-objects", MIN, vec![sub(r#""readme": "README.md","#, r#""readme": "README.md", "system_role": "expert_squad_generator", "name": "Minimal Squad","#)]),
        // Warnings: each shown by three cases at least.
        case("accepted--duplicate-key-in-mcp-declaration", FULL, vec![sub_in("mcp/tracker.jsonc", r#""timeout": 30000,"#, r#""timeout": 1000, "timeout": 30000,"#)]),
        case("accepted--duplicate-key-in-agent", MIN, vec![sub(r#""label": "Worker""#, r#""label": "Helper", "label": "Worker""#)]),
        case("accepted--builtin-id-advanced", MIN, vec![sub(r#""id": "minimal-squad""#, r#""id": "advanced""#)]),
        case("accepted--builtin-id-squad-sdk", MIN, vec![sub(r#""id": "minimal-squad""#, r#""id": "squad-sdk""#)]),
        case("accepted--skill-name-conflict-agent-local", FULL, vec![write("agents/builder/skills/build-notes/SKILL.md", "---\nname: release-method\ndescription: How the builder records build evidence.\n---\n")]),
        case("accepted--skill-name-conflict-nested-group", FULL, vec![write("skills/checklists/privacy/SKILL.md", "---\nname: security-checklist\ndescription: Privacy checks.\n---\n"), sub(r#""release-review/shared/checklists/security"]"#, r#""release-review/shared/checklists/privacy", "release-review/shared/checklists/security"]"#)]),
        case("accepted--long-path-in-agent-skill", FULL, vec![write("agents/builder/skills/build-notes/references/a-directory-name-long-enough-to-matter-00/a-directory-name-long-enough-to-matter-01/a-directory-name-long-enough-to-matter-02/a-directory-name-long-enough-to-matter-03/a-directory-name-long-enough-to-matter-04/notes.md", "x\n")]),
        case("accepted--long-path-file-name", FULL, vec![write("skills/checklists/security/references/a-file-name-that-says-far-more-than-it-needs-to-about-security-checks-and-why-they-matter-for-every-release-of-the-product-and-for-every-team-that-builds-it-again-and-again-until-the-path-is-too-long-for-windows.md", "x\n")]),
        case("accepted--invalid-utf8-readme", MIN, vec![write("README.md", b"# Minimal\n\nCaf\xe9 dispatch.\n")]),
        case("accepted--invalid-utf8-selector", MIN, vec![write("selector.md", b"Pick for minimal t\xe2\x82sks.\n")]),
        case("accepted--invalid-utf8-prompt", MIN, vec![write("agents/worker/system.md", b"You are the w\xf6rker.\n")]),
        // Notes: an agent no workflow runs.
        case("accepted--unused-agent-reviewer", FULL, vec![sub(r#""security-review": { "agent_id": "reviewer""#, r#""security-review": { "agent_id": "builder""#), sub(r#""final-review": { "agent_id": "reviewer""#, r#""final-review": { "agent_id": "builder""#)]),
        case("accepted--unused-agent-analyst", FULL, vec![sub(r#""requirements": { "agent_id": "requirements-analyst""#, r#""requirements": { "agent_id": "reviewer""#)]),
        case("accepted--unused-agent-builder", FULL, vec![sub(r#""build": { "agent_id": "builder""#, r#""build": { "agent_id": "reviewer""#)]),
    ]
}

/// Every case, invalid then accepted.
pub fn all() -> Vec<Case> {
    let mut all = invalid();
    all.extend(accepted());
    all
}
