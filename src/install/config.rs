//! A project's OpenCorvus config, `<project>/.opencorvus/opencorvus.jsonc`, as squad reads and
//! edits it: the package it selects (`prompt_profile.active`, ACT-1, ACT-3), set by
//! `activate`, read by `list`, reset by `uninstall` (UNI-2). Only that value is ever changed;
//! every other byte of the config, comments included, is kept, and a config squad cannot read
//! exactly is never overwritten.

use std::path::{Path, PathBuf};

use crate::fs::dir::Dir;
use crate::jsonc::{self, Kind, edit};

/// A config squad cannot read exactly, or cannot read at all.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The config exists but cannot be edited without losing something; it was left as is.
    #[error("`{}`: {problem}; nothing was changed", path.display())]
    Config { path: PathBuf, problem: String },
    #[error("cannot read or write `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
}

/// The id the project's config selects (`prompt_profile.active`), if it names one; the config
/// is read through its directory, as `activate` does.
pub fn selected(project: &Path) -> Result<Option<String>, ConfigError> {
    let root = config_root(project);
    let directory = match Dir::open(&root) {
        Ok(directory) => directory,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(ConfigError::Io(root, error)),
    };
    Ok(read_config(&directory)?.as_deref().and_then(active))
}

/// The config's name in a project's config root.
pub(super) const CONFIG_FILE: &str = "opencorvus.jsonc";

/// `<project>/.opencorvus`, opened once (a link there followed, as for installs) for the
/// config to be read and replaced through it.
pub(super) fn config_root(project: &Path) -> PathBuf {
    project.join(".opencorvus")
}

/// The text of the config in the config root `directory`; `None` only when there is no
/// config. Anything else squad cannot read exactly (not UTF-8, not a regular file, unreadable)
/// is an error, so the config is never overwritten with the user's settings lost.
pub(super) fn read_config(directory: &Dir) -> Result<Option<String>, ConfigError> {
    let path = directory.shown(CONFIG_FILE);
    let refuse = |problem: String| ConfigError::Config {
        path: path.clone(),
        problem,
    };
    let mut bytes = Vec::new();
    let read = directory
        .open_file(CONFIG_FILE)
        .and_then(|mut file| std::io::Read::read_to_end(&mut file, &mut bytes));
    match read {
        Ok(_) => String::from_utf8(bytes).map(Some).map_err(|_| {
            refuse(
                "is not valid UTF-8, so squad cannot edit it without losing your other settings"
                    .to_owned(),
            )
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) if error.kind() == std::io::ErrorKind::InvalidInput => {
            Err(refuse(error.to_string()))
        }
        Err(error) => Err(ConfigError::Io(path.clone(), error)),
    }
}

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
    if !matches!(root.kind, Kind::Object(_)) {
        return Err("the config is not a JSON object".to_owned());
    }
    // A new key goes first, so no other line of the config changes.
    match edit::member(&root, "prompt_profile") {
        Some(profile) if matches!(profile.value.kind, Kind::Object(_)) => {
            Ok(edit::prepend_member(text, &profile.value, "active", &value))
        }
        Some(_) => Err("`prompt_profile` is not an object".to_owned()),
        None => Ok(edit::prepend_member(
            text,
            &root,
            "prompt_profile",
            &format!("{{ \"active\": {value} }}"),
        )),
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
    // A registered project's `.opencorvus` may be a link a cloned repository carries: it is
    // followed only inside that project, as every other writer below a project does.
    match super::scope::check_inside(project, &config_root(project)) {
        Ok(Ok(())) => {}
        Ok(Err(outside)) => {
            return Err(format!(
                "{outside}; its config was not edited: if it selects `{id}`, select another package by hand"
            ));
        }
        Err(error) => {
            return Err(format!(
                "cannot read `{}`: {error}; if it selects `{id}`, select another package by hand",
                config_root(project).display()
            ));
        }
    }
    match Dir::open(&config_root(project)) {
        Ok(directory) => reset_in(&directory, id),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(format!(
            "cannot read `{}`: {error}; if it selects `{id}`, select another package by hand",
            config_path(project).display()
        )),
    }
}

/// [`reset_if_active`] for the config root `directory`, already open (an uninstall's own
/// project).
pub(crate) fn reset_in(directory: &Dir, id: &str) -> Result<bool, String> {
    let text = match read_config(directory) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(false),
        Err(error) => {
            return Err(format!(
                "{error}; if it selects `{id}`, select another package by hand"
            ));
        }
    };
    if active(&text).as_deref() != Some(id) {
        return Ok(false);
    }
    let text = set_active(Some(&text), "base")?;
    directory
        .replace_file(CONFIG_FILE, text.as_bytes())
        .map_err(|error| {
            format!(
                "cannot write `{}`: {error}",
                directory.shown(CONFIG_FILE).display()
            )
        })?;
    Ok(true)
}

/// The project config path.
pub fn config_path(project: &Path) -> PathBuf {
    config_root(project).join(CONFIG_FILE)
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
