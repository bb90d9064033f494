//! `prompt_profile.active` in the project config `<project>/.opencorvus/opencorvus.jsonc`
//! (ACT-1, ACT-3): selection is separate from installation. Only that value changes; every
//! other byte of the config, comments included, is kept — and a config squad cannot read
//! exactly (not UTF-8, not a regular file, unreadable) is never rewritten: only a missing
//! config means "no config".

use std::path::{Path, PathBuf};

use crate::fs::dir::Dir;
use crate::jsonc::{self, Kind, edit};

use super::listing::{Installed, has_loadable, identities};
use super::name::PackageName;
use super::scope::{Locations, Scope};

/// Why `activate` changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum ActivateError {
    /// Not a valid package id (ID-1).
    #[error("invalid id: {0}")]
    InvalidId(String),
    /// Not built in, and not installed (loadable) where it was looked for: `place` is "in
    /// this project or globally", "in this project" or "globally".
    #[error("`{name}` is not installed {place}")]
    NotInstalled {
        name: String,
        place: &'static str,
        /// The installed or built-in id closest to the one named, when one is close enough.
        close: Option<String>,
    },
    /// The id is installed, under another namespace than the one named.
    #[error("`{wanted}` is not installed; `{installed}` is (an id is unique in a scope)")]
    OtherNamespace { wanted: String, installed: String },
    /// The config exists but cannot be edited without losing something; it was left as is.
    #[error("`{}`: {problem}; nothing was changed", path.display())]
    Config { path: PathBuf, problem: String },
    #[error(transparent)]
    OutsideProject(super::scope::OutsideProject),
    #[error("cannot read or write `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
}

impl ActivateError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            ActivateError::InvalidId(_) | ActivateError::Io(..) => crate::error::Class::Failed,
            ActivateError::NotInstalled { .. }
            | ActivateError::OtherNamespace { .. }
            | ActivateError::Config { .. }
            | ActivateError::OutsideProject(_) => crate::error::Class::Refused,
        }
    }
}

/// What `activate` selected.
#[derive(Debug)]
pub struct Activated {
    /// The config written.
    pub config: PathBuf,
    /// The installed package the runtime now loads for the project, and its scope; `None` for
    /// a built-in id.
    pub package: Option<(Scope, Installed)>,
    /// Things worth saying that did not stop it.
    pub warnings: Vec<String>,
}

/// Selects `name` for the project (ACT-1): a built-in id, or a package installed where
/// `scope` says (`None`: the project, then the global scope, the runtime's order) that the
/// runtime can load. The config records the id alone; the namespace, when named, must be the
/// installed package's.
pub fn activate(
    name: &PackageName,
    project: &Path,
    scope: Option<&Scope>,
    opencorvus_root: &Path,
) -> Result<Activated, ActivateError> {
    let id = name.id.as_str();
    if let Some((_, problem)) = crate::manifest::id_problem(id, crate::manifest::IdKind::Package) {
        return Err(ActivateError::InvalidId(problem));
    }
    let project_scope = Scope::Project(project.to_path_buf());
    let (scopes, place) = match scope {
        Some(Scope::Project(_)) => (vec![project_scope.clone()], "in this project"),
        Some(Scope::Global) => (vec![Scope::Global], "globally"),
        None => (
            vec![project_scope.clone(), Scope::Global],
            "in this project or globally",
        ),
    };
    let builtin = name.namespace.is_none() && crate::manifest::BUILTIN_PACKAGE_IDS.contains(&id);
    let mut package = None;
    let mut warnings = Vec::new();
    if !builtin {
        // Each scope is listed once: for the package, and when it is not there, for the ids a
        // misspelt name may have meant.
        let mut found = None;
        let mut known: Vec<String> = Vec::new();
        for scope in &scopes {
            let mut listed = identities(&Locations::new(scope, opencorvus_root));
            if let Some(at) = listed
                .iter()
                .position(|installed| installed.id == id && installed.folder_problem().is_none())
            {
                found = Some((scope.clone(), listed.swap_remove(at).inspected()));
                break;
            }
            known.extend(listed.into_iter().map(|installed| installed.id));
        }
        let Some((scope, installed)) = found else {
            known.extend(
                crate::manifest::BUILTIN_PACKAGE_IDS
                    .iter()
                    .map(|id| (*id).to_owned()),
            );
            known.sort();
            known.dedup();
            let close = crate::text::closest(id, known.iter().map(String::as_str));
            return Err(ActivateError::NotInstalled {
                name: name.to_string(),
                place,
                close: close.map(str::to_owned),
            });
        };
        if !name.names(&installed) {
            return Err(ActivateError::OtherNamespace {
                wanted: name.to_string(),
                installed: format!("{}/{}", installed.namespace, installed.id),
            });
        }
        if scope == Scope::Global
            && has_loadable(&Locations::new(&project_scope, opencorvus_root), id)
        {
            warnings.push(format!(
                "this project has its own `{id}` installed, and the runtime loads the project's before the global one"
            ));
        }
        package = Some((scope, installed));
    }
    let config = config_path(project);
    let root = config_root(project);
    super::scope::check_inside(project, &root)
        .map_err(|error| ActivateError::Io(root.clone(), error))?
        .map_err(ActivateError::OutsideProject)?;
    crate::fs::create_dir_all(&root).map_err(|error| ActivateError::Io(root.clone(), error))?;
    let directory = Dir::open(&root).map_err(|error| ActivateError::Io(root.clone(), error))?;
    let existing = read_config(&directory)?;
    let text = set_active(existing.as_deref(), id).map_err(|problem| ActivateError::Config {
        path: config.clone(),
        problem,
    })?;
    directory
        .replace_file(CONFIG_FILE, text.as_bytes())
        .map_err(|error| ActivateError::Io(config.clone(), error))?;
    let _ = super::projects::register(opencorvus_root, project);
    Ok(Activated {
        config,
        package,
        warnings,
    })
}

/// The id the project's config selects (`prompt_profile.active`), if it names one; the config
/// is read through its directory, as `activate` does.
pub fn selected(project: &Path) -> Result<Option<String>, ActivateError> {
    let root = config_root(project);
    let directory = match Dir::open(&root) {
        Ok(directory) => directory,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(ActivateError::Io(root, error)),
    };
    Ok(read_config(&directory)?.as_deref().and_then(active))
}

/// The config's name in a project's config root.
const CONFIG_FILE: &str = "opencorvus.jsonc";

/// `<project>/.opencorvus`, opened once (a link there followed, as for installs) for the
/// config to be read and replaced through it.
fn config_root(project: &Path) -> PathBuf {
    project.join(".opencorvus")
}

/// The text of the config in the config root `directory`; `None` only when there is no
/// config. Anything else squad cannot read exactly (not UTF-8, not a regular file, unreadable)
/// is an error, so the config is never overwritten with the user's settings lost.
fn read_config(directory: &Dir) -> Result<Option<String>, ActivateError> {
    let path = directory.shown(CONFIG_FILE);
    let refuse = |problem: String| ActivateError::Config {
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
        Err(error) => Err(ActivateError::Io(path.clone(), error)),
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
