//! The manifest `expert-squad.jsonc`: its schema (layer S of the reference), checked over the
//! spanned JSONC tree, producing a [`Manifest`] model that keeps spans for later rules.
//!
//! The model is partial on purpose: a field that failed its check is `None` (or left out of a
//! list), and later rules work with whatever is valid, so one run reports every problem.

pub mod checker;
mod projection;
pub mod schema;
mod workflows;

use std::ops::Range;

use crate::diag::{Applicability, Code, Diagnostic, Diagnostics, Suggestion};
use crate::jsonc::{self, Kind, Node};
use crate::text::is_kebab_id;
use crate::version::{Version, VersionError};

use checker::{Checker, Item, child_pointer};
pub use projection::{
    AGENT_KEYS, EXECUTION_CONTRACTS, Projection, RESOURCE_KEYS, ResourceKind, SCHEDULER_KEYS,
};
pub use workflows::{NODE_KEYS, Node as WorkflowNode, WORKFLOW_KEYS, Workflow};

pub const MANIFEST_FILE: &str = "expert-squad.jsonc";

/// Ids of the embedded built-in packages (ID-5).
pub const BUILTIN_PACKAGE_IDS: [&str; 4] = ["base", "advanced", "research-studio", "squad-sdk"];

/// Agent ids the runtime keeps for itself (ID-3), plus the two names that collide with
/// runtime-internal directories (ID-6, a `squad` rule).
pub const RESERVED_AGENT_IDS: [&str; 5] = [
    "orchestrator",
    "shared",
    "universal-build",
    "runtime",
    "worktrees",
];

/// Names valid under ID-1 that break discovery as a namespace or id (ID-6).
const RUNTIME_INTERNAL_IDS: [&str; 2] = ["runtime", "worktrees"];

pub const MAX_ID_LENGTH: usize = 64;

/// The keys of every closed object of the manifest (MAN-F3). The validator and the JSON Schema
/// of `squad schema` both read them from here.
pub const SELECTOR_KEYS: [&str; 3] = ["summary", "selection_guidance", "instructions"];
pub const CONFIGURATION_KEYS: [&str; 1] = ["fields"];
pub const CONFIGURATION_FIELD_KEYS: [&str; 6] = [
    "key",
    "label",
    "description",
    "type",
    "required",
    "placeholder",
];
pub const CONFIGURATION_TYPES: [&str; 3] = ["boolean", "text", "secret"];
pub const CAPABILITY_PROJECTION_KEYS: [&str; 3] = ["scheduler", "agents", "virtual_workflows"];
pub const PRODUCT_PILLARS: [&str; 2] = ["code", "work"];
pub const SYSTEM_ROLES: [&str; 1] = ["expert_squad_generator"];
pub const ID_PATTERN: &str = "^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$";

pub const TOP_LEVEL_KEYS: [&str; 13] = [
    "schema_version",
    "namespace",
    "id",
    "name",
    "label",
    "description",
    "version",
    "product_pillars",
    "system_role",
    "readme",
    "selector",
    "configuration",
    "capability_projection",
];

/// The valid parts of a manifest.
#[derive(Debug, Default)]
pub struct Manifest {
    pub namespace: Option<Item>,
    pub id: Option<Item>,
    pub version: Option<Item>,
    pub label: Option<Item>,
    pub description: Option<Item>,
    pub scheduler: Option<Projection>,
    /// Every declared agent (even one whose key is invalid, so its directory is not "undeclared").
    pub agents: Vec<Projection>,
    /// Whether `capability_projection.agents` was a valid object, i.e. `agents` is complete.
    pub agents_known: bool,
    pub workflows: Vec<Workflow>,
    /// Agent id → index in `agents`, so lookups stay O(1) for packages with thousands of agents.
    agent_index: std::collections::HashMap<String, usize>,
    /// The parsed text, with spans: where a finding addressed by JSON pointer is shown.
    pub tree: Option<Node>,
}

impl Manifest {
    pub fn agent(&self, id: &str) -> Option<&Projection> {
        self.agent_index.get(id).map(|&index| &self.agents[index])
    }

    /// The scheduler and every agent.
    pub fn projections(&self) -> impl Iterator<Item = &Projection> {
        self.scheduler.iter().chain(self.agents.iter())
    }
}

/// How an identifier is used, which decides the rules it must follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdKind {
    /// Package id or namespace (ID-1, ID-2, plus ID-6).
    Package,
    /// Agent key or node `agent_id` (ID-3).
    Agent,
    /// Workflow, node or dependency id (ID-4).
    Plain,
}

/// Checks an identifier; returns the diagnostic message when it is invalid.
pub fn id_problem(value: &str, kind: IdKind) -> Option<(Code, String)> {
    if value.chars().count() > MAX_ID_LENGTH {
        return Some((
            Code::InvalidId,
            format!("`{value}` is longer than {MAX_ID_LENGTH} characters"),
        ));
    }
    if !is_kebab_id(value) {
        return Some((
            Code::InvalidId,
            format!("`{value}` is not a lower-kebab-case id"),
        ));
    }
    match kind {
        IdKind::Agent if RESERVED_AGENT_IDS.contains(&value) => Some((
            Code::ReservedId,
            format!("dynamic agent id `{value}` is reserved"),
        )),
        IdKind::Package if RUNTIME_INTERNAL_IDS.contains(&value) => Some((
            Code::ReservedId,
            format!(
                "`{value}` is the name of a runtime-internal directory and would break discovery of the whole scope"
            ),
        )),
        _ => None,
    }
}

/// A squad's name `<namespace>/<id>`, both package ids: its two parts, or what is wrong
/// with it. The project's files, the versions record and the index all name squads so.
pub fn squad_name(text: &str) -> Result<(&str, &str), String> {
    let Some((namespace, id)) = text.split_once('/') else {
        return Err(format!("`{text}` is not `<namespace>/<id>`"));
    };
    for part in [namespace, id] {
        if let Some((_, problem)) = id_problem(part, IdKind::Package) {
            return Err(format!("`{text}`: {problem}"));
        }
    }
    Ok((namespace, id))
}

const ID_HELP: &str =
    "ids match ^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$ (lower-kebab-case, 1-64 characters)";

/// Pushes a diagnostic when `item` is not a valid id of `kind`; returns whether it is valid.
pub fn check_id(checker: &mut Checker, item: &Item, kind: IdKind) -> bool {
    match id_diagnostic(checker, item, kind) {
        None => true,
        Some(diagnostic) => {
            checker.push(diagnostic);
            false
        }
    }
}

/// The diagnostic for `item` when it is not a valid id of `kind`, not yet pushed.
pub fn id_diagnostic(checker: &Checker, item: &Item, kind: IdKind) -> Option<Diagnostic> {
    let (code, message) = id_problem(&item.value, kind)?;
    let diagnostic = checker.at(code, item.span.clone(), &item.pointer, message);
    Some(if code == Code::ReservedId {
        diagnostic.help("choose another id")
    } else {
        diagnostic.help(ID_HELP)
    })
}

/// Pushes a diagnostic when `item` is not a valid id of `kind`, with a fix that renames it to
/// its kebab-case form (and `also` everywhere else it is written, as edits for a new id) when
/// that form is a valid id not in `taken`. Returns whether the id is valid.
pub fn check_id_renamable(
    checker: &mut Checker,
    item: &Item,
    kind: IdKind,
    taken: &dyn Fn(&str) -> bool,
    also: &dyn Fn(&str) -> Vec<crate::diag::Edit>,
) -> bool {
    let Some(mut diagnostic) = id_diagnostic(checker, item, kind) else {
        return true;
    };
    let renamed = crate::text::to_kebab_id(&item.value)
        .filter(|renamed| id_problem(renamed, kind).is_none() && !taken(renamed));
    if let (Some(renamed), Code::InvalidId) = (renamed, diagnostic.code) {
        let mut edits = vec![crate::diag::Edit {
            span: item.span.clone(),
            replacement: checker::json_string(&renamed),
        }];
        edits.extend(also(&renamed));
        diagnostic = diagnostic.suggest(Suggestion {
            message: format!("rename `{}` to `{renamed}`", item.value),
            edits,
            applicability: Applicability::MachineApplicable,
        });
    }
    checker.push(diagnostic);
    false
}

/// Checks a record key as an id (the reference reports "Invalid key in record").
pub fn check_key(
    checker: &mut Checker,
    member: &jsonc::Member,
    pointer: &str,
    kind: IdKind,
) -> bool {
    let item = Item {
        value: member.key.clone(),
        span: member.key_span.clone(),
        escaped: true,
        pointer: pointer.to_owned(),
    };
    check_id(checker, &item, kind)
}

/// What a manifest says its package is, without any schema check: what discovery, install and
/// archive import compare with folder names and installed versions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declared {
    pub namespace: Option<String>,
    pub id: Option<String>,
    pub version: Option<String>,
}

/// The namespace, id and version a manifest declares; `None` when the text is not JSONC or not
/// an object. Of duplicate keys the last wins, as in the reference, and a field whose last
/// member is not a string is `None` even if an earlier one is.
pub fn declared(text: &str) -> Option<Declared> {
    let root = jsonc::parse(text).ok()?;
    let Kind::Object(members) = &root.kind else {
        return None;
    };
    let field = |key: &str| {
        members
            .iter()
            .rev()
            .find(|member| member.key == key)
            .and_then(|member| member.value.as_str())
            .map(str::to_owned)
    };
    Some(Declared {
        namespace: field("namespace"),
        id: field("id"),
        version: field("version"),
    })
}

/// Parses and checks the manifest text. Returns `None` when the text is not JSONC or not an
/// object; otherwise the valid parts.
pub fn check(text: &str, diagnostics: &mut Diagnostics) -> Option<Manifest> {
    let mut checker = Checker {
        file: MANIFEST_FILE.to_owned(),
        text,
        diagnostics,
    };
    let root = match jsonc::parse(text) {
        Ok(root) => root,
        Err(error) => {
            checker.push(syntax_diagnostic(MANIFEST_FILE, &error));
            return None;
        }
    };
    let object = checker.object(&root, "", &TOP_LEVEL_KEYS)?;
    let mut manifest = Manifest::default();

    if let Some(node) = checker.required(&object, "schema_version") {
        check_schema_version(&mut checker, node, &object.pointer_of("schema_version"));
    }
    for (key, slot) in [
        ("namespace", &mut manifest.namespace),
        ("id", &mut manifest.id),
    ] {
        if let Some(node) = checker.required(&object, key) {
            let pointer = object.pointer_of(key);
            if let Some(item) = checker.item(node, &pointer) {
                // The namespace is written nowhere else in a package; the id prefixes every ref.
                let valid = if key == "namespace" {
                    check_id_renamable(&mut checker, &item, IdKind::Package, &|_| false, &|_| {
                        Vec::new()
                    })
                } else {
                    check_id(&mut checker, &item, IdKind::Package)
                };
                if valid {
                    *slot = Some(item);
                }
            }
        }
    }
    if let Some(id) = &manifest.id {
        if BUILTIN_PACKAGE_IDS.contains(&id.value.as_str()) {
            let diagnostic = checker
                .at(
                    Code::BuiltinIdCollision,
                    id.span.clone(),
                    &id.pointer,
                    format!("expert squad package id `{}` collides with a built-in expert squad id", id.value),
                )
                .help(format!(
                    "the ids {} belong to packages embedded in OpenCorvus; `squad install` refuses them, so pick another id unless this is that built-in package",
                    BUILTIN_PACKAGE_IDS.map(|id| format!("`{id}`")).join(", ")
                ));
            checker.push(diagnostic);
        }
    }
    if let Some(node) = object.get("name") {
        checker.non_blank(node, &object.pointer_of("name"));
    }
    if let Some(node) = checker.required(&object, "label") {
        manifest.label = checker.non_empty(node, &object.pointer_of("label"));
    }
    if let Some(node) = object.get("description") {
        manifest.description = checker.item(node, &object.pointer_of("description"));
    }
    if let Some(node) = checker.required(&object, "version") {
        manifest.version = check_version(&mut checker, node, &object.pointer_of("version"));
    }
    if let Some(node) = checker.required(&object, "product_pillars") {
        check_product_pillars(&mut checker, node, &object.pointer_of("product_pillars"));
    }
    if let Some(node) = object.get("system_role") {
        checker.literal(node, &object.pointer_of("system_role"), &SYSTEM_ROLES);
    }
    if let Some(node) = checker.required(&object, "readme") {
        checker.literal(node, &object.pointer_of("readme"), &["README.md"]);
    }
    if let Some(node) = checker.required(&object, "selector") {
        check_selector(&mut checker, node, &object.pointer_of("selector"));
    }
    if let Some(node) = object.get("configuration") {
        check_configuration(&mut checker, node, &object.pointer_of("configuration"));
    }
    if let Some(node) = checker.required(&object, "capability_projection") {
        check_capability_projection(
            &mut checker,
            node,
            &object.pointer_of("capability_projection"),
            &mut manifest,
        );
    }
    manifest.tree = Some(root);
    Some(manifest)
}

/// The diagnostic for a JSONC syntax error in `file`.
pub fn syntax_diagnostic(file: &str, error: &jsonc::SyntaxError) -> Diagnostic {
    syntax_diagnostic_with(Code::JsoncSyntax, file, error)
}

/// [`syntax_diagnostic`] under another code, for JSONC files that are not part of a package
/// (`squads.jsonc`).
pub fn syntax_diagnostic_with(code: Code, file: &str, error: &jsonc::SyntaxError) -> Diagnostic {
    let message = match error.code {
        "NestingTooDeep" => format!(
            "invalid JSONC: values nested deeper than {} levels",
            jsonc::MAX_DEPTH
        ),
        _ => format!("invalid JSONC: {}", error.message()),
    };
    let label = match error.code {
        "CommaExpected" => "expected `,` here",
        "NestingTooDeep" => "too deep",
        "ColonExpected" => "expected `:`",
        "CloseBraceExpected" => "expected `}`",
        "CloseBracketExpected" => "expected `]`",
        "PropertyNameExpected" => "expected `\"key\"`",
        "ValueExpected" => "expected a value",
        "EndOfFileExpected" => "nothing may follow the top-level value",
        "UnexpectedEndOfComment" | "UnexpectedEndOfString" => "never closed",
        "InvalidCharacter" => "write it as an escape such as `\\t`",
        _ => error.message(),
    };
    let diagnostic = Diagnostic::new(code, file, message)
        .span(error.span.clone())
        .span_label(label);
    match error.code {
        "InvalidSymbol" if error.span.start == 0 => diagnostic.help(
            "JSONC allows // and /* */ comments and trailing commas; a UTF-8 byte order mark or other Unicode space is not allowed",
        ),
        "InvalidSymbol" => diagnostic.help(
            "only space, tab, CR and LF may separate tokens; strings and keys use double quotes; comments are // or /* */",
        ),
        "CommaExpected" => diagnostic
            .help(
                "separate the members of an object and the elements of an array with `,` (a trailing one is allowed)",
            )
            .suggest(Suggestion::replace(
                "add the missing `,`",
                error.span.clone(),
                ",",
            )),
        _ => diagnostic,
    }
}

fn check_schema_version(checker: &mut Checker, node: &Node, pointer: &str) {
    match node.kind {
        Kind::Number(1.0) => {}
        Kind::Number(_) => {
            let diagnostic = checker
                .at(
                    Code::InvalidLiteral,
                    node.span.clone(),
                    pointer,
                    "schema_version must be 1",
                )
                .span_label("only manifest schema version 1 exists")
                .suggest(Suggestion::replace("write `1`", node.span.clone(), "1"));
            checker.push(diagnostic);
        }
        Kind::String(ref string) if string.value.trim() == "1" => {
            let diagnostic = checker
                .at(
                    Code::WrongType,
                    node.span.clone(),
                    pointer,
                    "expected the number 1, found string",
                )
                .span_label("expected the number 1")
                .suggest(Suggestion::replace(
                    "write the number `1`",
                    node.span.clone(),
                    "1",
                ));
            checker.push(diagnostic);
        }
        _ => checker.wrong_type(node, pointer, "the number 1"),
    }
}

fn check_version(checker: &mut Checker, node: &Node, pointer: &str) -> Option<Item> {
    let item = checker.item(node, pointer)?;
    match Version::parse(&item.value) {
        Ok(_) => Some(item),
        Err(error) => {
            let code = match error {
                VersionError::Pattern => Code::InvalidVersion,
                VersionError::Date => Code::InvalidVersionDate,
            };
            let mut diagnostic = checker
                .at(code, item.span.clone(), pointer, error.to_string())
                .help("versions are YYYY.MM.DD.N: a real UTC date (year 0100 or later) and a revision N >= 1 without leading zeros, e.g. `2026.08.20.1`");
            match crate::version::repaired(&item.value) {
                Some(repaired) => {
                    diagnostic = diagnostic.suggest(Suggestion::replace(
                        format!("did you mean `{repaired}`?"),
                        item.span.clone(),
                        checker::json_string(&repaired),
                    ));
                }
                None => {
                    diagnostic = diagnostic.help("`squad version bump` stamps today's date");
                }
            }
            checker.push(diagnostic);
            None
        }
    }
}

fn check_product_pillars(checker: &mut Checker, node: &Node, pointer: &str) {
    let Some(elements) = checker.array(node, pointer) else {
        return;
    };
    let mut pillars: Vec<(String, Range<usize>)> = Vec::new();
    let mut all_valid = true;
    for (index, element) in elements.iter().enumerate() {
        match checker.literal(
            element,
            &child_pointer(pointer, &index.to_string()),
            &PRODUCT_PILLARS,
        ) {
            Some(item) => pillars.push((item.value, element.span.clone())),
            None => all_valid = false,
        }
    }
    if !all_valid {
        return;
    }
    if pillars.is_empty() {
        let diagnostic = checker
            .at(
                Code::EmptyList,
                node.span.clone(),
                pointer,
                "product_pillars requires at least one product pillar",
            )
            .help("use [\"code\"], [\"work\"] or [\"code\", \"work\"]");
        checker.push(diagnostic);
        return;
    }
    let spans: Vec<Range<usize>> = pillars.iter().map(|(_, span)| span.clone()).collect();
    let values: Vec<&str> = pillars.iter().map(|(value, _)| value.as_str()).collect();
    let mut sorted = values.clone();
    sorted.sort_unstable();
    let repeats = sorted.windows(2).any(|pair| pair[0] == pair[1]);
    for (index, window) in pillars.windows(2).enumerate() {
        let [(previous, previous_span), (current, span)] = window else {
            continue;
        };
        if previous == current {
            let mut diagnostic = checker
                .at(
                    Code::DuplicateEntry,
                    span.clone(),
                    pointer,
                    format!("product_pillars repeats `{current}`"),
                )
                .label(previous_span.clone(), "first listed here");
            if let Some(edit) = checker::remove_element(checker.text, &spans, index + 1) {
                diagnostic = diagnostic.suggest(Suggestion {
                    message: format!("remove the repeated `{current}`"),
                    edits: vec![edit],
                    applicability: Applicability::MachineApplicable,
                });
            }
            checker.push(diagnostic);
        }
        if previous >= current {
            let mut diagnostic = checker
                .at(
                    Code::UnsortedList,
                    span.clone(),
                    pointer,
                    "product_pillars must be canonically sorted",
                )
                .span_label(format!("`{current}` must come after `{previous}`"))
                .help("use [\"code\"], [\"work\"] or [\"code\", \"work\"]");
            if !repeats {
                diagnostic = diagnostic.suggest(Suggestion {
                    message: format!(
                        "write it as [{}]",
                        sorted
                            .iter()
                            .map(|pillar| format!("\"{pillar}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    edits: checker::reorder_elements(&spans, &values, &sorted),
                    applicability: Applicability::MachineApplicable,
                });
            }
            checker.push(diagnostic);
        }
    }
}

fn check_selector(checker: &mut Checker, node: &Node, pointer: &str) {
    let Some(object) = checker.object(node, pointer, &SELECTOR_KEYS) else {
        return;
    };
    for key in ["summary", "selection_guidance"] {
        if let Some(value) = checker.required(&object, key) {
            checker.non_empty(value, &object.pointer_of(key));
        }
    }
    if let Some(value) = checker.required(&object, "instructions") {
        if let Some(item) = checker.item(value, &object.pointer_of("instructions")) {
            if item.value != "selector.md" {
                let diagnostic = checker
                    .at(
                        Code::InvalidLiteral,
                        item.span.clone(),
                        &item.pointer,
                        "selector instructions must be top-level selector.md",
                    )
                    .span_label("expected `selector.md`")
                    .suggest(Suggestion::replace(
                        "write `selector.md`",
                        item.span.clone(),
                        "\"selector.md\"",
                    ));
                checker.push(diagnostic);
            }
        }
    }
}

fn check_configuration(checker: &mut Checker, node: &Node, pointer: &str) {
    let Some(object) = checker.object(node, pointer, &CONFIGURATION_KEYS) else {
        return;
    };
    let Some(fields_node) = checker.required(&object, "fields") else {
        return;
    };
    let fields_pointer = object.pointer_of("fields");
    let Some(fields) = checker.array(fields_node, &fields_pointer) else {
        return;
    };
    if fields.is_empty() {
        let diagnostic = checker
            .at(
                Code::EmptyList,
                fields_node.span.clone(),
                &fields_pointer,
                "configuration requires at least one field",
            )
            .help("remove `configuration` when the package needs no settings");
        checker.push(diagnostic);
    }
    let mut keys: Vec<Item> = Vec::new();
    for (index, field) in fields.iter().enumerate() {
        let field_pointer = child_pointer(&fields_pointer, &index.to_string());
        let Some(field) = checker.object(field, &field_pointer, &CONFIGURATION_FIELD_KEYS) else {
            continue;
        };
        if let Some(key) = checker.required(&field, "key") {
            if let Some(item) = checker.item(key, &field.pointer_of("key")) {
                if is_config_key(&item.value) {
                    if let Some(first) = keys.iter().find(|first| first.value == item.value) {
                        let diagnostic = checker
                            .at(
                                Code::DuplicateEntry,
                                item.span.clone(),
                                &item.pointer,
                                format!("configuration repeats `{}`", item.value),
                            )
                            .label(first.span.clone(), "first declared here");
                        checker.push(diagnostic);
                    } else {
                        keys.push(item);
                    }
                } else {
                    let diagnostic = checker.at(
                        Code::InvalidId,
                        item.span.clone(),
                        &item.pointer,
                        format!(
                            "configuration key `{}` must match ^[a-z][a-z0-9_]*$",
                            item.value
                        ),
                    );
                    checker.push(diagnostic);
                }
            }
        }
        if let Some(label) = checker.required(&field, "label") {
            checker.non_blank(label, &field.pointer_of("label"));
        }
        if let Some(description) = field.get("description") {
            checker.non_blank(description, &field.pointer_of("description"));
        }
        if let Some(kind) = checker.required(&field, "type") {
            checker.literal(kind, &field.pointer_of("type"), &CONFIGURATION_TYPES);
        }
        if let Some(required) = checker.required(&field, "required") {
            checker.boolean(required, &field.pointer_of("required"));
        }
        if let Some(placeholder) = field.get("placeholder") {
            checker.item(placeholder, &field.pointer_of("placeholder"));
        }
    }
}

fn is_config_key(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes.next().is_some_and(|first| first.is_ascii_lowercase())
        && bytes.all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_')
}

fn check_capability_projection(
    checker: &mut Checker,
    node: &Node,
    pointer: &str,
    manifest: &mut Manifest,
) {
    let Some(object) = checker.object(node, pointer, &CAPABILITY_PROJECTION_KEYS) else {
        return;
    };
    if let Some(scheduler) = checker.required(&object, "scheduler") {
        manifest.scheduler =
            projection::check_scheduler(checker, scheduler, &object.pointer_of("scheduler"));
    }
    if let Some(agents) = checker.required(&object, "agents") {
        let agents_pointer = object.pointer_of("agents");
        if let Some(record) = checker.record(agents, &agents_pointer) {
            manifest.agents_known = true;
            for member in &record.members {
                let agent_pointer = child_pointer(&agents_pointer, &member.key);
                let key_valid = check_key(checker, member, &agent_pointer, IdKind::Agent);
                if let Some(agent) =
                    projection::check_agent(checker, member, &agent_pointer, key_valid)
                {
                    manifest.agents.push(agent);
                }
            }
        }
    }
    if let Some(workflows) = checker.required(&object, "virtual_workflows") {
        let workflows_pointer = object.pointer_of("virtual_workflows");
        manifest.workflows = workflows::check(checker, workflows, &workflows_pointer);
    }
    manifest.agent_index = manifest
        .agents
        .iter()
        .enumerate()
        .map(|(index, agent)| (agent.owner.clone(), index))
        .collect();
    let agent_ids: Option<std::collections::HashSet<&str>> = manifest.agents_known.then(|| {
        manifest
            .agents
            .iter()
            .map(|agent| agent.owner.as_str())
            .collect()
    });
    workflows::check_graph(checker, &manifest.workflows, agent_ids.as_ref());
}

#[cfg(test)]
mod tests;
