//! `prompt_profile.active` in the project config `<project>/.opencorvus/opencorvus.jsonc`
//! (ACT-1, ACT-3): selection is separate from installation. Only that value changes; every
//! other byte of the config, comments included, is kept.

use std::path::Path;

use crate::jsonc::{self, Kind};

/// The config text with `prompt_profile.active` set to `id`.
pub fn set_active(text: Option<&str>, id: &str) -> Result<String, String> {
    let value = serde_json::to_string(id).map_err(|error| error.to_string())?;
    let Some(text) = text.filter(|text| !text.trim().is_empty()) else {
        return Ok(format!(
            "{{\n  \"prompt_profile\": {{ \"active\": {value} }}\n}}\n"
        ));
    };
    let root = jsonc::parse(text)
        .map_err(|error| format!("the config is not valid JSONC ({})", error.code))?;
    let Kind::Object(members) = &root.kind else {
        return Err("the config is not a JSON object".to_owned());
    };
    let splice = |at: std::ops::Range<usize>, with: &str| {
        format!("{}{with}{}", &text[..at.start], &text[at.end..])
    };
    match members
        .iter()
        .rev()
        .find(|member| member.key == "prompt_profile")
    {
        Some(profile) => {
            let Kind::Object(fields) = &profile.value.kind else {
                return Err("`prompt_profile` is not an object".to_owned());
            };
            match fields.iter().rev().find(|field| field.key == "active") {
                Some(active) => Ok(splice(active.value.span.clone(), &value)),
                None => {
                    let open = profile.value.span.start + 1;
                    let comma = if fields.is_empty() { "" } else { "," };
                    Ok(splice(open..open, &format!(" \"active\": {value}{comma}")))
                }
            }
        }
        None => {
            let open = root.span.start + 1;
            let comma = if members.is_empty() { "" } else { "," };
            Ok(splice(
                open..open,
                &format!("\n  \"prompt_profile\": {{ \"active\": {value} }}{comma}"),
            ))
        }
    }
}

/// The `prompt_profile.active` a config selects, if it names one.
pub fn active(text: &str) -> Option<String> {
    let root = jsonc::parse(text).ok()?;
    jsonc::to_value(&root)
        .get("prompt_profile")?
        .get("active")?
        .as_str()
        .map(str::to_owned)
}

/// UNI-2: after `id` was uninstalled, a project config that selected it selects `base` again
/// (the reference's route does the same). Returns whether the config was rewritten.
pub fn reset_if_active(project: &Path, id: &str) -> Result<bool, String> {
    let path = config_path(project);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(false);
    };
    if active(&text).as_deref() != Some(id) {
        return Ok(false);
    }
    let text = set_active(Some(&text), "base")?;
    crate::fs::replace_file(&path, text.as_bytes())
        .map_err(|error| format!("cannot write `{}`: {error}", path.display()))?;
    Ok(true)
}

/// The project config path.
pub fn config_path(project: &Path) -> std::path::PathBuf {
    project.join(".opencorvus").join("opencorvus.jsonc")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_only_the_active_value() {
        assert_eq!(
            set_active(None, "pkg").unwrap(),
            "{\n  \"prompt_profile\": { \"active\": \"pkg\" }\n}\n"
        );
        let text = "// mine\n{\n  \"model\": \"x\", // keep\n  \"prompt_profile\": { \"active\": \"base\" }\n}\n";
        assert_eq!(
            set_active(Some(text), "pkg").unwrap(),
            text.replace("\"base\"", "\"pkg\"")
        );
        let without = "{ /* c */ \"model\": \"x\" }";
        let edited = set_active(Some(without), "pkg").unwrap();
        let parsed = jsonc::to_value(&jsonc::parse(&edited).unwrap());
        assert_eq!(parsed["prompt_profile"]["active"], "pkg");
        assert_eq!(parsed["model"], "x");
        assert!(edited.contains("/* c */"));
        let empty_profile = "{\"prompt_profile\": {}}";
        let parsed = jsonc::to_value(
            &jsonc::parse(&set_active(Some(empty_profile), "pkg").unwrap()).unwrap(),
        );
        assert_eq!(parsed["prompt_profile"]["active"], "pkg");
        assert!(set_active(Some("[1]"), "pkg").is_err());
    }
}
