//! A squad named on the command line to look at: a source, or an installed package.

use std::path::{Path, PathBuf};

use super::{AcquireError, Source};
use crate::install::InstallError;

/// What a command-line argument naming a squad to look at names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    Source(Source),
    /// The folder of an installed package.
    Installed(PathBuf),
}

/// A command-line argument naming a squad to look at (`squad show`, `squad diff`): any source
/// [`Source::argument`] reads, or, when no such path exists, a package installed in one of
/// `scopes` by `namespace/id` or id (the first scope that has the id, as the runtime looks).
pub fn argument_or_installed(
    text: &str,
    scopes: &[crate::install::scope::Scope],
    opencorvus_root: &Path,
) -> Result<Named, AcquireError> {
    let source = Source::argument(text).map_err(AcquireError::Source)?;
    let Source::Folder(path) = &source else {
        return Ok(Named::Source(source));
    };
    if crate::fs::symlink_metadata(Path::new(path)).is_ok() {
        return Ok(Named::Source(source));
    }
    let Ok(name) = crate::install::name::PackageName::parse(text) else {
        return Err(AcquireError::NotFound(
            "no such path: name a package folder or archive, a remote source, or an installed package as `squad list` prints it".to_owned(),
        ));
    };
    match crate::install::inspect(&name, scopes, opencorvus_root) {
        Ok((_, inspected)) => Ok(Named::Installed(inspected.installed.root)),
        Err(InstallError::NotInstalled(_)) => Err(AcquireError::NotFound(format!(
            "no such path, and not installed in {}",
            scopes
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" or in ")
        ))),
        Err(error) => Err(AcquireError::Install(error)),
    }
}
