//! Removing an installed package (UNI-1) and the selections that named it (UNI-2). The package
//! is checked, renamed out of the packages root into the scratch directory (so it disappears
//! at once) and deleted there, all through the scope's open directories. A package whose files
//! changed since its install receipt is kept unless the removal is forced: those changes exist
//! nowhere else.

use std::path::{Path, PathBuf};

use super::listing::{self, Installed};
use super::lock::IdLock;
use super::name::PackageName;
use super::scope::{Locations, OpenScope, Scope};
use super::{InstallError, Options, failpoint, io, journal, projects, receipts, recovery};

/// How to uninstall.
#[derive(Debug, Clone, Default)]
pub struct Removal {
    /// Remove the package even if its files changed since it was installed.
    pub force: bool,
}

/// What an uninstall did.
#[derive(Debug)]
pub struct Uninstalled {
    /// The package removed, with its version.
    pub package: Installed,
    /// With `force`: the changes since the install that went with it.
    pub discarded: Vec<crate::verify::Drift>,
    /// The configs whose `prompt_profile.active` went back to `base` (UNI-2).
    pub reset: Vec<PathBuf>,
    /// Configs that selected the id but could not be reset, and why.
    pub warnings: Vec<String>,
}

/// Removes the installed package `name` from a scope (UNI-1): under the lock, the package must
/// be the canonical real directory, load, and (unless `removal.force`) have no file changed
/// since its install receipt; then projects that selected it select `base` again (UNI-2).
pub fn uninstall(
    name: &PackageName,
    options: &Options,
    removal: &Removal,
    on_wait: &mut dyn FnMut(&Path),
) -> Result<Uninstalled, InstallError> {
    let id = name.id.as_str();
    let locations = options.locations();
    if let Scope::Project(project) = &options.scope {
        let _ = projects::register(&options.opencorvus_root, project);
    }
    let not_installed = || InstallError::NotInstalled(id.to_owned());
    let scope = OpenScope::existing(&locations)?.ok_or_else(not_installed)?;
    let lock = IdLock::acquire(&locations.locks, id, options.lock_timeout, on_wait)
        .map_err(InstallError::Lock)?;
    scope.check_in_place()?;
    recovery::recover(&scope, id)?;
    let packages = scope.packages().ok_or_else(not_installed)?;
    let mut installed = listing::scan(packages, false)
        .installed
        .into_iter()
        .find(|installed| installed.id == id)
        .ok_or_else(not_installed)?;
    if !name.names(&installed.namespace, &installed.id) {
        return Err(InstallError::OtherNamespace {
            wanted: name.to_string(),
            installed: format!("{}/{}", installed.namespace, installed.id),
        });
    }
    // UNI-1: the root is the canonical real directory (the walk never follows a link) and the
    // package loads; a corrupt package is not removed (the reference refuses too).
    let namespace = packages
        .open_dir(&installed.namespace)
        .map_err(io(&packages.shown(&installed.namespace)))?
        .ok_or_else(not_installed)?;
    let package = namespace
        .open_dir(id)
        .map_err(io(&installed.root))?
        .ok_or_else(not_installed)?;
    let invalid = |problem: String| InstallError::InvalidExisting {
        target: installed.root.clone(),
        problem,
    };
    let manifest = listing::read_manifest_at(&package, &installed.namespace, id);
    if let Some(problem) = manifest.problem {
        return Err(invalid(problem));
    }
    installed.version = manifest.version;
    let tree = super::tree_at(&package, true).map_err(invalid)?;
    installed.package_digest = Some(tree.package_digest.hex());
    let discarded = receipts::record(&options.opencorvus_root, &installed.root)
        .and_then(|record| record.drift(&tree));
    if let Some(changes) = &discarded {
        if !removal.force {
            return Err(InstallError::Modified {
                package: installed.label(),
                root: installed.root.clone(),
                changes: changes.clone(),
            });
        }
    }
    let scratch = scope.ensure_scratch()?;
    let discard = journal::scratch_name("discard", &installed.namespace, id, &super::uuid());
    failpoint("uninstall-checked");
    lock.check().map_err(InstallError::Lock)?;
    let receipt = receipts::find(&options.opencorvus_root, &installed.root);
    // The entry checked above, unless it was swapped meanwhile; whatever is there now moves
    // into the scratch directory, and a link is removed there, never followed.
    let same = namespace
        .status(id)
        .ok()
        .flatten()
        .map(|status| status.identity)
        == package.own_status().ok().map(|status| status.identity);
    if !same {
        return Err(InstallError::Io(
            installed.root.clone(),
            std::io::Error::other("was replaced while squad was checking it; nothing was removed"),
        ));
    }
    namespace
        .rename_no_replace(id, scratch, &discard)
        .map_err(io(&installed.root))?;
    // An empty namespace directory is removed too; discovery does not need it.
    let emptied = namespace.entries().is_ok_and(|entries| entries.is_empty())
        && packages.remove_dir(&installed.namespace).is_ok();
    drop(package);
    scratch
        .remove_tree(&discard)
        .map_err(io(&scratch.shown(&discard)))?;
    // Synced once, at the end: until then a crash may bring the package back, which is what
    // an uninstall that did not return promised.
    let synced: Vec<&crate::fs::dir::Dir> = if emptied {
        vec![packages, scratch]
    } else {
        vec![&namespace, scratch]
    };
    crate::fs::sync_all_at_once(&[], &synced).map_err(io(scratch.path()))?;
    if let Some(receipt) = receipt {
        receipts::forget_fingerprint(&receipt);
        let _ = crate::fs::remove_file(receipt);
    }
    drop(lock);
    let (reset, warnings) = reset_selections(id, options, &scope);
    Ok(Uninstalled {
        package: installed,
        discarded: discarded.unwrap_or_default(),
        reset,
        warnings,
    })
}

/// UNI-2: projects that selected the removed id select `base` again, unless the id is still
/// installed where they would find it: a project uninstall touches the current project (not
/// when the id is also installed globally); a global uninstall touches every registered project
/// without a project install of the id. Returns the configs reset and the warnings.
fn reset_selections(id: &str, options: &Options, scope: &OpenScope) -> (Vec<PathBuf>, Vec<String>) {
    let installed = |scope: &Scope| {
        listing::identities(&Locations::new(scope, &options.opencorvus_root))
            .iter()
            .any(|installed| installed.id == id)
    };
    let projects: Vec<PathBuf> = match &options.scope {
        Scope::Project(project) if !installed(&Scope::Global) => vec![project.clone()],
        Scope::Project(_) => Vec::new(),
        Scope::Global => projects::registered(&options.opencorvus_root)
            .into_iter()
            .filter(|project| project.is_dir() && !installed(&Scope::Project(project.clone())))
            .collect(),
    };
    let (mut reset, mut warnings) = (Vec::new(), Vec::new());
    for project in projects {
        // This uninstall's own project: through the config root it opened.
        let outcome = match &options.scope {
            Scope::Project(_) => super::config::reset_in(scope.config(), id),
            Scope::Global => super::config::reset_if_active(&project, id),
        };
        match outcome {
            Ok(true) => reset.push(super::config::config_path(&project)),
            Ok(false) => {}
            Err(message) => warnings.push(message),
        }
    }
    (reset, warnings)
}
