//! `prompt_profile.active` in the project config `<project>/.opencorvus/opencorvus.jsonc`
//! (ACT-1, ACT-3): selection is separate from installation. Only that value changes; every
//! other byte of the config, comments included, is kept — and a config squad cannot read
//! exactly (not UTF-8, not a regular file, unreadable) is never rewritten: only a missing
//! config means "no config".

use std::path::{Path, PathBuf};

use crate::fs::dir::Dir;

use super::config::{CONFIG_FILE, config_path, config_root, read_config, set_active};

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

impl From<super::config::ConfigError> for ActivateError {
    fn from(error: super::config::ConfigError) -> ActivateError {
        match error {
            super::config::ConfigError::Config { path, problem } => {
                ActivateError::Config { path, problem }
            }
            super::config::ConfigError::Io(path, error) => ActivateError::Io(path, error),
        }
    }
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
        if !name.names(&installed.namespace, &installed.id) {
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
    super::scope::create_config_root(&root, true)
        .map_err(|error| ActivateError::Io(root.clone(), error))?;
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
