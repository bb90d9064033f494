//! JSON Schemas (draft 2020-12) for editors: of `expert-squad.jsonc`, of an MCP server
//! declaration (`mcp/<server>.jsonc`) and of a skill's SKILL.md frontmatter, built from the same
//! key lists, enums and patterns the validator uses, with a `description` on every field (what
//! editors show on hover). They cover shapes; rules that need the package's files or the whole
//! manifest (refs, ownership, graphs, real dates, role tool tables) are left to
//! `squad validate`.

use serde_json::{Map, Value, json};

use super::{
    AGENT_KEYS, CAPABILITY_PROJECTION_KEYS, CONFIGURATION_FIELD_KEYS, CONFIGURATION_KEYS,
    CONFIGURATION_TYPES, EXECUTION_CONTRACTS, ID_PATTERN, MAX_ID_LENGTH, NODE_KEYS,
    PRODUCT_PILLARS, RESERVED_AGENT_IDS, RESOURCE_KEYS, SCHEDULER_KEYS, SELECTOR_KEYS,
    SYSTEM_ROLES, TOP_LEVEL_KEYS, WORKFLOW_KEYS,
};
use crate::tables::RUNTIME_TEMPLATE_IDS;

/// Where the schema says it lives; editors only need it to be stable.
pub const SCHEMA_ID: &str = "https://squad.dev/schemas/expert-squad-manifest-v1.json";
pub const MCP_SCHEMA_ID: &str = "https://squad.dev/schemas/expert-squad-mcp-v1.json";
pub const SKILL_SCHEMA_ID: &str =
    "https://squad.dev/schemas/expert-squad-skill-frontmatter-v1.json";

/// `schema` with a `description`.
fn d(mut schema: Value, description: &str) -> Value {
    if let Some(object) = schema.as_object_mut() {
        object.insert("description".to_owned(), json!(description));
    }
    schema
}

/// What each resource member of a projection holds, for its description.
fn resource_description(key: &str) -> &'static str {
    match key {
        "inherit_base_tools" => {
            "Also give the projection its base role's inherited tool set at runtime."
        }
        "built_in_tool_ids" => {
            "Core tools of the runtime this projection uses (e.g. `read`, `bash`); the base role decides which are allowed."
        }
        "default_skill_refs" => "Skills of the host: `default/skill/<name>`.",
        "package_skill_refs" => {
            "Skills of this package: `<id>/shared/<skill>` or `<id>/<this agent>/<skill>` (folders holding SKILL.md)."
        }
        "default_tool_refs" => {
            "Default host tools: `default/tool/<name>`, only for the roles that supply them."
        }
        "package_tool_refs" => {
            "Tools of this package: `<id>/shared/<tool>` or `<id>/<this agent>/<tool>` (tools/<tool>.ts)."
        }
        "default_mcp_server_refs" => {
            "Must be empty: name host MCP capabilities one by one instead."
        }
        "package_mcp_server_refs" => {
            "MCP servers of this package, mounted whole: `<id>/shared/<server>` (mcp/<server>.jsonc)."
        }
        "default_mcp_tool_refs" => "Tools of host MCP servers: `default/mcp/<server>/tool/<name>`.",
        "package_mcp_tool_refs" => {
            "Tools of this package's MCP servers: `<server ref>/tool/<name>`."
        }
        "default_mcp_prompt_refs" => {
            "Prompts of host MCP servers: `default/mcp/<server>/prompt/<name>`."
        }
        "package_mcp_prompt_refs" => {
            "Prompts of this package's MCP servers: `<server ref>/prompt/<name>`."
        }
        "default_mcp_resource_refs" => {
            "Resources of host MCP servers: `default/mcp/<server>/resource/<name>`."
        }
        "package_mcp_resource_refs" => {
            "Resources of this package's MCP servers: `<server ref>/resource/<name>`."
        }
        _ => "",
    }
}

fn closed(keys: &[&str], properties: Vec<(&str, Value)>, required: &[&str]) -> Value {
    let mut map = Map::new();
    for (key, schema) in properties {
        debug_assert!(keys.contains(&key), "{key} is not an allowed key");
        map.insert(key.to_owned(), schema);
    }
    json!({
        "type": "object",
        "properties": map,
        "required": required,
        "additionalProperties": false,
    })
}

fn describe_closed(description: &str, schema: Value) -> Value {
    d(schema, description)
}

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

fn resource_properties() -> Vec<(&'static str, Value)> {
    RESOURCE_KEYS
        .iter()
        .map(|key| {
            let schema = if *key == "inherit_base_tools" {
                json!({ "type": "boolean" })
            } else {
                reference("refList")
            };
            (*key, d(schema, resource_description(key)))
        })
        .collect()
}

/// The schema document.
pub fn json_schema() -> Value {
    let mut scheduler_properties = vec![
        (
            "base_role",
            d(
                json!({ "const": "orchestrator" }),
                "Always `orchestrator`: the scheduler dispatches the agents.",
            ),
        ),
        (
            "prompt",
            d(
                json!({ "const": "agents/orchestrator/system.md" }),
                "The scheduler's own prompt, when it has one.",
            ),
        ),
    ];
    scheduler_properties.extend(resource_properties());
    let mut scheduler_required: Vec<&str> = vec!["base_role"];
    scheduler_required.extend(RESOURCE_KEYS);

    let mut agent_properties = vec![
        (
            "label",
            d(reference("nonBlank"), "The agent's display name."),
        ),
        (
            "description",
            d(
                reference("nonBlank"),
                "What the agent does, in a sentence (routes and plays are made from it).",
            ),
        ),
        (
            "base_role",
            d(
                json!({ "enum": RUNTIME_TEMPLATE_IDS }),
                "The runtime template the agent runs on; it decides the built-in tools the agent may project.",
            ),
        ),
        (
            "execution_contract",
            d(
                json!({ "enum": EXECUTION_CONTRACTS }),
                "`platform_integrity_review`, exactly when base_role is `integrity`.",
            ),
        ),
        (
            "prompt",
            d(
                json!({ "type": "string", "pattern": "^agents/[^/]+/system\\.md$" }),
                "The agent's prompt: exactly `agents/<agent id>/system.md`.",
            ),
        ),
    ];
    agent_properties.extend(resource_properties());
    let mut agent_required: Vec<&str> = vec!["label", "base_role"];
    agent_required.extend(RESOURCE_KEYS);
    let mut agent = closed(
        &[&AGENT_KEYS[..], &RESOURCE_KEYS[..]].concat(),
        agent_properties,
        &agent_required,
    );
    // AG-4a: the integrity role and its execution contract go together.
    agent["if"] = json!({ "properties": { "base_role": { "const": "integrity" } }, "required": ["base_role"] });
    agent["then"] = json!({ "required": ["execution_contract"] });
    agent["else"] = json!({ "not": { "required": ["execution_contract"] } });

    let field = closed(
        &CONFIGURATION_FIELD_KEYS,
        vec![
            (
                "key",
                d(
                    json!({ "type": "string", "pattern": "^[a-z][a-z0-9_]*$" }),
                    "The setting's key, unique in the package (snake_case).",
                ),
            ),
            (
                "label",
                d(
                    reference("nonBlank"),
                    "The setting's name, as people see it.",
                ),
            ),
            (
                "description",
                d(reference("nonBlank"), "What the setting is for."),
            ),
            (
                "type",
                d(
                    json!({ "enum": CONFIGURATION_TYPES }),
                    "`boolean`, `text`, or `secret` (text never shown back).",
                ),
            ),
            (
                "required",
                d(
                    json!({ "type": "boolean" }),
                    "Whether the setting must be filled in (the installer does not enforce it).",
                ),
            ),
            (
                "placeholder",
                d(
                    json!({ "type": "string" }),
                    "An example value shown in the empty field.",
                ),
            ),
        ],
        &["key", "label", "type", "required"],
    );
    let node = closed(
        &NODE_KEYS,
        vec![
            (
                "agent_id",
                d(
                    reference("agentId"),
                    "The agent that does this step: a key of capability_projection.agents.",
                ),
            ),
            (
                "description",
                d(reference("nonBlank"), "What this step does."),
            ),
            (
                "depends_on",
                d(
                    json!({ "type": "array", "items": reference("id"), "uniqueItems": true }),
                    "The nodes of this workflow that finish before this one starts, sorted (code-unit order); may be empty.",
                ),
            ),
        ],
        &NODE_KEYS,
    );
    let workflow = closed(
        &WORKFLOW_KEYS,
        vec![
            (
                "label",
                d(reference("nonBlank"), "The workflow's display name."),
            ),
            (
                "description",
                d(
                    reference("nonBlank"),
                    "When the Orchestrator should choose this workflow, and what it delivers.",
                ),
            ),
            (
                "nodes",
                d(
                    json!({
                        "type": "object",
                        "minProperties": 1,
                        "propertyNames": reference("id"),
                        "additionalProperties": reference("node"),
                    }),
                    "The steps, by node id (at least one); each runs once per task, after its depends_on.",
                ),
            ),
        ],
        &WORKFLOW_KEYS,
    );
    let pillar_choices: Vec<Value> = vec![
        json!([PRODUCT_PILLARS[0]]),
        json!([PRODUCT_PILLARS[1]]),
        json!(PRODUCT_PILLARS),
    ];
    let top = closed(
        &TOP_LEVEL_KEYS,
        vec![
            (
                "schema_version",
                d(
                    json!({ "const": 1 }),
                    "The manifest format's version: always 1.",
                ),
            ),
            (
                "namespace",
                d(
                    reference("id"),
                    "Who publishes the package (lower-kebab-case); the install folder's parent.",
                ),
            ),
            (
                "id",
                d(
                    reference("id"),
                    "The package's id (lower-kebab-case): its install folder and the prefix of every package ref.",
                ),
            ),
            (
                "name",
                d(
                    reference("nonBlank"),
                    "The display name, when it differs from label.",
                ),
            ),
            (
                "label",
                d(
                    json!({ "type": "string", "minLength": 1 }),
                    "The package's display label.",
                ),
            ),
            (
                "description",
                d(
                    json!({ "type": "string" }),
                    "What the squad is for (may be empty).",
                ),
            ),
            (
                "version",
                json!({
                    "type": "string",
                    "pattern": "^[0-9]{4}\\.[0-9]{2}\\.[0-9]{2}\\.[1-9][0-9]*$",
                    "description": "YYYY.MM.DD.N: a real UTC date (year 0100 or later) and a revision N >= 1. `squad version bump` stamps the next one."
                }),
            ),
            (
                "product_pillars",
                d(
                    json!({ "enum": pillar_choices }),
                    "Where the squad is offered: [\"code\"], [\"work\"] or [\"code\", \"work\"].",
                ),
            ),
            (
                "system_role",
                d(
                    json!({ "enum": SYSTEM_ROLES }),
                    "Only for a squad that generates squads.",
                ),
            ),
            (
                "readme",
                d(
                    json!({ "const": "README.md" }),
                    "Always README.md; its text (after any frontmatter) is appended to the Orchestrator's prompt.",
                ),
            ),
            (
                "selector",
                describe_closed(
                    "How the squad is chosen for a task.",
                    closed(
                        &SELECTOR_KEYS,
                        vec![
                            (
                                "summary",
                                d(
                                    json!({ "type": "string", "minLength": 1 }),
                                    "One line on what the squad does, for the selector.",
                                ),
                            ),
                            (
                                "selection_guidance",
                                d(
                                    json!({ "type": "string", "minLength": 1 }),
                                    "When to choose this squad over others.",
                                ),
                            ),
                            (
                                "instructions",
                                d(
                                    json!({ "const": "selector.md" }),
                                    "Always selector.md: longer selection guidance.",
                                ),
                            ),
                        ],
                        &SELECTOR_KEYS,
                    ),
                ),
            ),
            (
                "configuration",
                describe_closed(
                    "Settings the user gives the squad (shapes only; values live outside the package).",
                    closed(
                        &CONFIGURATION_KEYS,
                        vec![(
                            "fields",
                            d(
                                json!({ "type": "array", "minItems": 1, "items": reference("configurationField") }),
                                "The settings, at least one.",
                            ),
                        )],
                        &CONFIGURATION_KEYS,
                    ),
                ),
            ),
            (
                "capability_projection",
                describe_closed(
                    "The team: the scheduler, the agents and the workflows that bind them.",
                    closed(
                        &CAPABILITY_PROJECTION_KEYS,
                        vec![
                            (
                                "scheduler",
                                d(
                                    reference("scheduler"),
                                    "The Orchestrator: its prompt and its resources.",
                                ),
                            ),
                            (
                                "agents",
                                d(
                                    json!({
                                        "type": "object",
                                        "propertyNames": reference("agentId"),
                                        "additionalProperties": reference("agent"),
                                    }),
                                    "The workers, by agent id (lower-kebab-case; not orchestrator, shared or universal-build).",
                                ),
                            ),
                            (
                                "virtual_workflows",
                                d(
                                    json!({
                                        "type": "object",
                                        "propertyNames": reference("id"),
                                        "additionalProperties": reference("workflow"),
                                    }),
                                    "Workflows by id; `{}` means the Orchestrator dispatches agents directly.",
                                ),
                            ),
                        ],
                        &CAPABILITY_PROJECTION_KEYS,
                    ),
                ),
            ),
        ],
        &[
            "schema_version",
            "namespace",
            "id",
            "label",
            "version",
            "product_pillars",
            "readme",
            "selector",
            "capability_projection",
        ],
    );
    let mut schema = d(
        top,
        "expert-squad.jsonc: the manifest of an expert-squad package.",
    );
    let object = schema.as_object_mut().expect("an object");
    object.insert(
        "$schema".to_owned(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    object.insert("$id".to_owned(), json!(SCHEMA_ID));
    object.insert(
        "title".to_owned(),
        json!("expert-squad.jsonc (manifest v1)"),
    );
    object.insert(
        "$defs".to_owned(),
        json!({
            "id": { "type": "string", "pattern": ID_PATTERN, "maxLength": MAX_ID_LENGTH, "description": "A lower-kebab-case id of 1 to 64 characters." },
            "agentId": { "allOf": [reference("id"), { "not": { "enum": RESERVED_AGENT_IDS } }], "description": "An agent id: lower-kebab-case, and not one the runtime keeps." },
            "nonBlank": { "type": "string", "pattern": "[^\\s\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]", "description": "Text that is not only whitespace." },
            "refList": { "type": "array", "items": { "type": "string", "minLength": 1 }, "uniqueItems": true, "description": "Refs, each listed once." },
            "scheduler": d(closed(&[&SCHEDULER_KEYS[..], &RESOURCE_KEYS[..]].concat(), scheduler_properties, &scheduler_required), "The Orchestrator's projection: all 13 resource arrays are required."),
            "agent": d(agent, "An agent's projection: all 13 resource arrays are required."),
            "workflow": d(workflow, "A workflow: a graph of nodes, each run once per task."),
            "node": d(node, "One step of a workflow."),
            "configurationField": d(field, "One setting."),
        }),
    );
    schema
}

/// The schema of an MCP server declaration (`mcp/<server>.jsonc`, `agents/<a>/mcp/<server>.jsonc`).
pub fn mcp_schema() -> Value {
    let name_list = |what: &str| {
        d(
            json!({
                "type": "array",
                "items": { "type": "string", "minLength": 1, "pattern": "^[^/\\\\]+$" },
                "uniqueItems": true,
            }),
            &format!(
                "The {what} the server offers, by name (no `/` or `\\`); each becomes a typed ref `<server ref>/{}/<name>`.",
                what.trim_end_matches('s')
            ),
        )
    };
    let named = |kind: &str, description: &str| {
        d(
            json!({
                "type": "object",
                "properties": {
                    "type": { "const": kind, "description": "Where the credential goes." },
                    "name": d(json!({ "type": "string", "pattern": "\\S" }), "The query parameter or header that carries it."),
                },
                "required": ["type", "name"],
                "additionalProperties": false,
            }),
            description,
        )
    };
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": MCP_SCHEMA_ID,
        "title": "MCP server declaration of an expert-squad package",
        "description": "A remote MCP server the package's agents can mount: mcp/<server>.jsonc (shared) or agents/<agent>/mcp/<server>.jsonc.",
        "type": "object",
        "properties": {
            "type": d(json!({ "const": "remote" }), "Always `remote`: packages cannot start local servers."),
            "url": d(json!({ "type": "string", "pattern": "^[hH][tT][tT][pP][sS]?://" }), "The server's endpoint, an http:// or https:// URL."),
            "transport": d(json!({ "enum": ["streamable-http", "sse"] }), "How to talk to it: `streamable-http` or `sse` (server-sent events)."),
            "headers": d(json!({ "type": "object", "additionalProperties": { "type": "string" } }), "HTTP headers sent with every request, name to value."),
            "oauth": d(json!({ "oneOf": [
                { "const": false },
                {
                    "type": "object",
                    "properties": {
                        "clientId": { "type": "string", "description": "The OAuth client id." },
                        "clientSecret": { "type": "string", "description": "The OAuth client secret." },
                        "scope": { "type": "string", "description": "The scopes to ask for, space-separated." },
                    },
                    "additionalProperties": false,
                },
            ] }), "`false` to turn OAuth off, or the client to use."),
            "credential": d(json!({ "oneOf": [
                named("query", "A secret the user gives, sent as a query parameter."),
                named("header", "A secret the user gives, sent as a header."),
                {
                    "type": "object",
                    "properties": { "type": { "const": "bearer", "description": "Sent as `Authorization: Bearer <secret>`." } },
                    "required": ["type"],
                    "additionalProperties": false,
                    "description": "A secret the user gives, sent as a bearer token.",
                },
            ] }), "A static credential the user supplies at install time."),
            "timeout": d(json!({ "type": "integer", "exclusiveMinimum": 0 }), "How long to wait for the server, in milliseconds (a positive integer)."),
            "capabilities": d(json!({
                "type": "object",
                "properties": {
                    "tools": name_list("tools"),
                    "prompts": name_list("prompts"),
                    "resources": name_list("resources"),
                },
                "additionalProperties": false,
            }), "What the server offers; a missing list is empty. Mounting the server mounts all of it."),
        },
        "required": ["type", "url", "transport"],
        "additionalProperties": false,
    })
}

/// The schema of a skill's SKILL.md frontmatter (the YAML between the leading `---` lines).
pub fn skill_schema() -> Value {
    let mut tools: Vec<&str> = crate::tables::CORE_TOOL_IDS.to_vec();
    tools.extend(
        crate::tables::DEFAULT_HOST_TOOLS
            .iter()
            .map(|(tool, _)| *tool),
    );
    tools.sort_unstable();
    let strings = |description: &str| {
        d(
            json!({ "type": "array", "items": { "type": "string" } }),
            description,
        )
    };
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SKILL_SCHEMA_ID,
        "title": "SKILL.md frontmatter of an expert-squad package",
        "description": "The YAML block that opens SKILL.md. Keys the format does not know are dropped, not refused.",
        "type": "object",
        "properties": {
            "name": d(json!({ "type": "string", "minLength": 1, "pattern": "^[^\\s/\\\\](?:[^/\\\\\\r\\n]*[^\\s/\\\\])?$" }), "The skill's name, how the runtime shows it and tells skills apart: usually its folder's name, in lower-kebab-case. No `/`, `\\`, line breaks or surrounding spaces."),
            "description": d(json!({ "type": "string", "pattern": "\\S" }), "When an agent should use the skill."),
            "aliases": d(json!({ "type": "array", "items": { "type": "string", "pattern": "\\S" } }), "Other names the skill answers to."),
            "license": d(json!({ "type": "string" }), "The skill's licence, e.g. `MIT` (a LICENSE file may sit in the skill's folder)."),
            "compatibility": d(json!({ "type": "string", "minLength": 1, "maxLength": 500 }), "What the skill needs to work, in 1 to 500 characters."),
            "metadata": d(json!({ "type": "object", "additionalProperties": { "type": "string" } }), "Free key-value text; values that are not strings are dropped."),
            "platforms": d(json!({ "type": "array", "items": { "enum": ["windows", "macos", "linux"] } }), "The operating systems the skill is for; none means all."),
            "auto_detect": d(json!({
                "type": "object",
                "properties": {
                    "files": strings("File names or globs whose presence suggests the skill."),
                    "deps": strings("Dependencies whose presence suggests the skill."),
                    "task_signals": d(json!({
                        "type": "object",
                        "properties": {
                            "has_attachment_image": d(json!({ "type": "boolean" }), "The task comes with an image."),
                            "request_contains_url": d(json!({ "type": "boolean" }), "The request holds a URL."),
                            "package_has_script": strings("Scripts of package.json that suggest the skill."),
                            "request_text_any": strings("Words of the request that suggest the skill."),
                        },
                    }), "Signals of the task that suggest the skill."),
                },
            }), "When the runtime offers the skill by itself."),
            "priority": d(json!({ "type": "number" }), "Order among skills offered together (higher first; default 0)."),
            "required_tools": d(json!({ "type": "array", "items": { "enum": tools } }), "Tools the skill relies on: core tool ids or default host tools."),
            "expires_at": d(json!({ "type": ["string", "number"] }), "When the skill stops being offered: a date, or milliseconds since 1970."),
        },
        "required": ["name", "description"],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validator(schema: &Value) -> jsonschema::Validator {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(schema)
            .unwrap()
    }

    /// Every member of every `properties`, at any depth, with where it is.
    fn undescribed(schema: &Value, at: &str, out: &mut Vec<String>) {
        match schema {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    for (key, property) in properties {
                        if property.get("description").is_none() {
                            out.push(format!("{at}/{key}"));
                        }
                    }
                }
                // Conditions restate fields described where they are defined.
                for (key, value) in map {
                    if !["if", "then", "else", "not"].contains(&key.as_str()) {
                        undescribed(value, &format!("{at}/{key}"), out);
                    }
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    undescribed(item, &format!("{at}/{index}"), out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn every_field_is_described() {
        for schema in [json_schema(), mcp_schema(), skill_schema()] {
            let mut missing = Vec::new();
            undescribed(&schema, "", &mut missing);
            assert!(missing.is_empty(), "{}: {missing:?}", schema["$id"]);
        }
    }

    #[test]
    fn the_mcp_schema_agrees_with_the_validator() {
        let schema = validator(&mcp_schema());
        for valid in [
            json!({"type": "remote", "url": "https://x.test/mcp", "transport": "sse"}),
            json!({"type": "remote", "url": "http://x", "transport": "streamable-http", "oauth": false,
                "credential": {"type": "header", "name": "X-Key"}, "timeout": 5000, "headers": {"a": "b"},
                "capabilities": {"tools": ["a b", "c.d"], "prompts": []}}),
            json!({"type": "remote", "url": "https://x", "transport": "sse", "credential": {"type": "bearer"}, "oauth": {"scope": "s"}}),
        ] {
            assert!(schema.is_valid(&valid), "{valid}");
        }
        for invalid in [
            json!({"type": "local", "url": "https://x", "transport": "sse"}),
            json!({"type": "remote", "url": "ftp://x", "transport": "sse"}),
            json!({"type": "remote", "url": "https://x", "transport": "sse", "enabled": true}),
            json!({"type": "remote", "url": "https://x", "transport": "sse", "timeout": 0}),
            json!({"type": "remote", "url": "https://x", "transport": "sse", "oauth": true}),
            json!({"type": "remote", "url": "https://x", "transport": "sse", "credential": {"type": "bearer", "name": "x"}}),
            json!({"type": "remote", "url": "https://x", "transport": "sse", "credential": {"type": "query"}}),
            json!({"type": "remote", "url": "https://x", "transport": "sse", "capabilities": {"tools": ["a/b"]}}),
            json!({"type": "remote", "url": "https://x", "transport": "sse", "capabilities": {"tools": ["a", "a"]}}),
            json!({"type": "remote", "url": "https://x"}),
        ] {
            assert!(!schema.is_valid(&invalid), "{invalid}");
        }
        let template = include_str!("../../templates/delivery/mcp/tracker.jsonc");
        let template = crate::jsonc::to_value(&crate::jsonc::parse(template).unwrap());
        assert!(schema.is_valid(&template));
    }

    #[test]
    fn the_skill_schema_agrees_with_the_validator() {
        let schema = validator(&skill_schema());
        for valid in [
            json!({"name": "a", "description": "b"}),
            json!({"name": "a b", "description": "b", "required_tools": ["read", "webpage_extract"],
                "platforms": ["linux"], "priority": 2, "metadata": {"a": "1"}, "unknown": true}),
        ] {
            assert!(schema.is_valid(&valid), "{valid}");
        }
        for invalid in [
            json!({"name": "a"}),
            json!({"name": " a", "description": "b"}),
            json!({"name": "a/b", "description": "b"}),
            json!({"name": "a", "description": "  "}),
            json!({"name": "a", "description": "b", "required_tools": ["nope"]}),
            json!({"name": "a", "description": "b", "platforms": ["beos"]}),
        ] {
            assert!(!schema.is_valid(&invalid), "{invalid}");
        }
    }
}
