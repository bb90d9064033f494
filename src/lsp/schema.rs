//! The JSON Schemas of `squad schema`, read the way an editor reads them: the subschema at a
//! path, its description, its fields and its allowed values. Completion and hover take their
//! field names, enums and descriptions from here, so they say what the schema says.

use serde_json::Value;

/// The subschema at `path` (object keys and array indices) of `root`, with `$ref`s resolved,
/// and the description written beside the last step (where `squad schema` puts it).
pub fn at<'a>(root: &'a Value, path: &[String]) -> Option<(&'a Value, Option<&'a str>)> {
    let mut schema = resolve(root, root);
    let mut description = schema.get("description").and_then(Value::as_str);
    for step in path {
        let next = schema
            .get("properties")
            .and_then(|properties| properties.get(step))
            .or_else(|| schema.get("additionalProperties").filter(|v| v.is_object()))
            .or_else(|| schema.get("items").filter(|v| v.is_object()))?;
        description = next.get("description").and_then(Value::as_str).or_else(|| {
            resolve(root, next)
                .get("description")
                .and_then(Value::as_str)
        });
        schema = resolve(root, next);
    }
    Some((schema, description))
}

/// `schema` with `$ref` (to `#/$defs/…`) and a leading `allOf` followed.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut schema = schema;
    for _ in 0..8 {
        if let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix("#/"))
        {
            let mut node = root;
            for part in target.split('/') {
                match node.get(part) {
                    Some(next) => node = next,
                    None => return schema,
                }
            }
            schema = node;
        } else if let Some(first) = schema
            .get("allOf")
            .and_then(Value::as_array)
            .and_then(|all| all.first())
        {
            schema = first;
        } else {
            break;
        }
    }
    schema
}

/// The fields an object at this schema may have, with their descriptions, in schema order.
pub fn fields(root: &Value, schema: &Value) -> Vec<(String, String)> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(key, property)| {
                    let description = property
                        .get("description")
                        .and_then(Value::as_str)
                        .or_else(|| {
                            resolve(root, property)
                                .get("description")
                                .and_then(Value::as_str)
                        })
                        .unwrap_or_default();
                    (key.clone(), description.to_owned())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the object at this schema has a field `key` the schema requires.
pub fn is_required(schema: &Value, key: &str) -> bool {
    schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|required| required.iter().any(|name| name == key))
}

/// The values the schema allows, when it lists them (`const`, `enum` of scalars, booleans).
pub fn values(schema: &Value) -> Vec<Value> {
    if let Some(constant) = schema.get("const") {
        return vec![constant.clone()];
    }
    if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
        return choices.clone();
    }
    if schema.get("type").and_then(Value::as_str) == Some("boolean") {
        return vec![Value::Bool(true), Value::Bool(false)];
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(steps: &[&str]) -> Vec<String> {
        steps.iter().map(|step| (*step).to_owned()).collect()
    }

    #[test]
    fn the_manifest_schema_is_walked_through_records_and_refs() {
        let root = crate::manifest::schema::json_schema();
        let (agent, _) = at(&root, &path(&["capability_projection", "agents", "x"])).unwrap();
        let names: Vec<String> = fields(&root, agent).into_iter().map(|(k, _)| k).collect();
        assert!(names.contains(&"base_role".to_owned()), "{names:?}");
        assert!(names.contains(&"package_skill_refs".to_owned()));
        let (role, description) = at(
            &root,
            &path(&["capability_projection", "agents", "x", "base_role"]),
        )
        .unwrap();
        assert!(description.unwrap().contains("runtime template"));
        assert!(values(role).contains(&Value::from("build")));
        let (depends, _) = at(
            &root,
            &path(&[
                "capability_projection",
                "virtual_workflows",
                "w",
                "nodes",
                "n",
                "depends_on",
            ]),
        )
        .unwrap();
        assert_eq!(depends["type"], "array");
        assert!(at(&root, &path(&["no-such-key"])).is_none());
    }
}
