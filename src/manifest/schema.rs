//! A JSON Schema (draft 2020-12) of `expert-squad.jsonc` for editors, built from the same key
//! lists, enums and patterns the validator uses. It covers the manifest's shape; rules that need
//! the package's files or the whole manifest (refs, ownership, graphs, real dates, role tool
//! tables) are left to `squad validate`.

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

fn reference(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

fn resource_properties() -> Vec<(&'static str, Value)> {
    RESOURCE_KEYS
        .iter()
        .map(|key| {
            let schema = if *key == "inherit_base_tools" {
                json!({ "type": "boolean", "description": "Add the base role's inherited tool set at runtime." })
            } else {
                reference("refList")
            };
            (*key, schema)
        })
        .collect()
}

/// The schema document.
pub fn json_schema() -> Value {
    let mut scheduler_properties = vec![
        ("base_role", json!({ "const": "orchestrator" })),
        (
            "prompt",
            json!({ "const": "agents/orchestrator/system.md" }),
        ),
    ];
    scheduler_properties.extend(resource_properties());
    let mut scheduler_required: Vec<&str> = vec!["base_role"];
    scheduler_required.extend(RESOURCE_KEYS);

    let mut agent_properties = vec![
        ("label", reference("nonBlank")),
        ("description", reference("nonBlank")),
        ("base_role", json!({ "enum": RUNTIME_TEMPLATE_IDS })),
        ("execution_contract", json!({ "enum": EXECUTION_CONTRACTS })),
        (
            "prompt",
            json!({ "type": "string", "pattern": "^agents/[^/]+/system\\.md$" }),
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
                json!({ "type": "string", "pattern": "^[a-z][a-z0-9_]*$" }),
            ),
            ("label", reference("nonBlank")),
            ("description", reference("nonBlank")),
            ("type", json!({ "enum": CONFIGURATION_TYPES })),
            ("required", json!({ "type": "boolean" })),
            ("placeholder", json!({ "type": "string" })),
        ],
        &["key", "label", "type", "required"],
    );
    let node = closed(
        &NODE_KEYS,
        vec![
            ("agent_id", reference("agentId")),
            ("description", reference("nonBlank")),
            (
                "depends_on",
                json!({ "type": "array", "items": reference("id"), "uniqueItems": true }),
            ),
        ],
        &NODE_KEYS,
    );
    let workflow = closed(
        &WORKFLOW_KEYS,
        vec![
            ("label", reference("nonBlank")),
            ("description", reference("nonBlank")),
            (
                "nodes",
                json!({
                    "type": "object",
                    "minProperties": 1,
                    "propertyNames": reference("id"),
                    "additionalProperties": reference("node"),
                }),
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
            ("schema_version", json!({ "const": 1 })),
            ("namespace", reference("id")),
            ("id", reference("id")),
            ("name", reference("nonBlank")),
            ("label", json!({ "type": "string", "minLength": 1 })),
            ("description", json!({ "type": "string" })),
            (
                "version",
                json!({
                    "type": "string",
                    "pattern": "^[0-9]{4}\\.[0-9]{2}\\.[0-9]{2}\\.[1-9][0-9]*$",
                    "description": "YYYY.MM.DD.N: a real UTC date (year 0100 or later) and a revision N >= 1."
                }),
            ),
            ("product_pillars", json!({ "enum": pillar_choices })),
            ("system_role", json!({ "enum": SYSTEM_ROLES })),
            ("readme", json!({ "const": "README.md" })),
            (
                "selector",
                closed(
                    &SELECTOR_KEYS,
                    vec![
                        ("summary", json!({ "type": "string", "minLength": 1 })),
                        (
                            "selection_guidance",
                            json!({ "type": "string", "minLength": 1 }),
                        ),
                        ("instructions", json!({ "const": "selector.md" })),
                    ],
                    &SELECTOR_KEYS,
                ),
            ),
            (
                "configuration",
                closed(
                    &CONFIGURATION_KEYS,
                    vec![(
                        "fields",
                        json!({ "type": "array", "minItems": 1, "items": reference("configurationField") }),
                    )],
                    &CONFIGURATION_KEYS,
                ),
            ),
            (
                "capability_projection",
                closed(
                    &CAPABILITY_PROJECTION_KEYS,
                    vec![
                        ("scheduler", reference("scheduler")),
                        (
                            "agents",
                            json!({
                                "type": "object",
                                "propertyNames": reference("agentId"),
                                "additionalProperties": reference("agent"),
                            }),
                        ),
                        (
                            "virtual_workflows",
                            json!({
                                "type": "object",
                                "propertyNames": reference("id"),
                                "additionalProperties": reference("workflow"),
                            }),
                        ),
                    ],
                    &CAPABILITY_PROJECTION_KEYS,
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
    let mut schema = top;
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
            "id": { "type": "string", "pattern": ID_PATTERN, "maxLength": MAX_ID_LENGTH },
            "agentId": { "allOf": [reference("id"), { "not": { "enum": RESERVED_AGENT_IDS } }] },
            "nonBlank": { "type": "string", "pattern": "[^\\s\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]" },
            "refList": { "type": "array", "items": { "type": "string", "minLength": 1 }, "uniqueItems": true },
            "scheduler": closed(&[&SCHEDULER_KEYS[..], &RESOURCE_KEYS[..]].concat(), scheduler_properties, &scheduler_required),
            "agent": agent,
            "workflow": workflow,
            "node": node,
            "configurationField": field,
        }),
    );
    schema
}
