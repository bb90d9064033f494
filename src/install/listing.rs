//! The installed packages of a scope, from its folders (DSC-1): the cheap listing (folder names
//! only), the described listing (versions and digests) for `squad list`, and the strict listing
//! an install requires (UNQ-1, LOC-3), with the checks built on it — one id per scope, and a
//! global install against every registered project (GLB-3, GLB-4, DSC-3).
//!
//! The walk goes through the scope's packages root opened once, never following a link.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::digest::TreeDigest;
use crate::fs::dir::{Dir, Kind};
use crate::package::Identity;
use crate::text::shown;
use crate::verify::{Drift, Record};

use super::name::PackageName;
use super::scope::{Locations, OpenScope, Scope};
use super::{InstallError, Options, directory_digest, projects, receipts, tree_at};

/// An installed package as discovery sees it (DSC-1).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Installed {
    pub namespace: String,
    pub id: String,
    pub version: Option<String>,
    pub package_digest: Option<String>,
    pub root: PathBuf,
    /// Why the runtime will not load it, when discovery can tell (MAN-R4: the folder names
    /// must be the manifest's namespace and id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Every `<namespace>/<id>` directory of a scope, sorted, from the folder names alone (cheap:
/// nothing is read or hashed; see [`Installed::described`]).
pub fn identities(locations: &Locations) -> Vec<Installed> {
    match OpenScope::existing(locations) {
        Ok(Some(scope)) => scope
            .packages()
            .map(|packages| scan(packages, false).installed)
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// An installed package read through its directory: its version, digest and folder problem,
/// its files, and what its install receipt recorded.
#[derive(Debug, Clone)]
pub struct Inspected {
    pub installed: Installed,
    /// Every file's record; `None` when the tree cannot be read or breaks the contract.
    pub tree: Option<TreeDigest>,
    /// The install receipt's record; `None` when squad did not install it (or lost the
    /// receipt), so what changed cannot be told.
    pub record: Option<Record>,
}

impl Inspected {
    /// Whether the package changed since it was installed: `None` when that cannot be told,
    /// else the changed files (empty when unchanged).
    pub fn changes(&self) -> Option<Vec<Drift>> {
        let (tree, record) = (self.tree.as_ref()?, self.record.as_ref()?);
        Some(record.drift(tree).unwrap_or_default())
    }

    /// Whether the package changed since it was installed (`None`: cannot tell).
    pub fn modified(&self) -> Option<bool> {
        let (tree, record) = (self.tree.as_ref()?, self.record.as_ref()?);
        Some(tree.package_digest != record.package_digest)
    }
}

/// Reads the package `installed` names (from a scan) through its package directory; when
/// `fingerprinted`, its install fingerprint may stand for hashing it (`list`; never `verify`).
fn inspect_in(
    packages: &Dir,
    mut installed: Installed,
    opencorvus_root: &Path,
    fingerprinted: bool,
) -> Inspected {
    let package = packages
        .open_dir(&installed.namespace)
        .ok()
        .flatten()
        .and_then(|namespace| namespace.open_dir(&installed.id).ok().flatten());
    let Some(package) = package else {
        installed.problem = Some("no readable expert-squad.jsonc".to_owned());
        return Inspected {
            installed,
            tree: None,
            record: None,
        };
    };
    let manifest = read_manifest_at(&package, &installed.namespace, &installed.id);
    installed.version = manifest.version;
    installed.problem = manifest.problem;
    // The install fingerprint's word when it vouches for every file (install/fingerprint.rs):
    // the package is the one installed with its receipt (a fingerprint is written with its
    // receipt and removed when another replaces it), so the receipt need not be read. Else
    // every file hashed, and the receipt read.
    let vouched = fingerprinted
        .then(|| receipts::fingerprint(opencorvus_root, &installed.root))
        .flatten()
        .filter(|fingerprint| fingerprint.vouches_for(&package))
        .map(|fingerprint| fingerprint.tree());
    let (tree, record) = match vouched {
        Some(tree) => {
            let record = Record {
                package_digest: tree.package_digest,
                files: Some(tree.files.clone()),
            };
            (Some(tree), Some(record))
        }
        None => (
            tree_at(&package, true).ok(),
            receipts::record(opencorvus_root, &installed.root),
        ),
    };
    installed.package_digest = tree.as_ref().map(|tree| tree.package_digest.hex());
    Inspected {
        installed,
        tree,
        record,
    }
}

/// Every package of a scope with its version and digest, sorted; each read through the
/// packages root opened once, on as many threads as there are cores (each package is a
/// manifest, a fingerprint and a stat per file: system calls, which overlap).
pub fn list_scope(locations: &Locations, opencorvus_root: &Path) -> Vec<Inspected> {
    let Ok(Some(scope)) = OpenScope::existing(locations) else {
        return Vec::new();
    };
    let Some(packages) = scope.packages() else {
        return Vec::new();
    };
    let tasks: Vec<crate::jobs::Task<'_, Inspected>> = scan(packages, false)
        .installed
        .into_iter()
        .map(|installed| {
            Box::new(move || inspect_in(packages, installed, opencorvus_root, true))
                as crate::jobs::Task<'_, Inspected>
        })
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    crate::jobs::run_jobs(cores, tasks)
}

/// The package `name` in the first of `scopes` that has its id, read as [`list_scope`] reads
/// it but every file hashed (`verify` trusts no fingerprint). The runtime looks in the project before the global scope, so that is the order to
/// give. A name whose id is installed under another namespace is an error naming it.
pub fn inspect(
    name: &PackageName,
    scopes: &[Scope],
    opencorvus_root: &Path,
) -> Result<(Scope, Inspected), InstallError> {
    for scope in scopes {
        let locations = Locations::new(scope, opencorvus_root);
        let Some(open) = OpenScope::existing(&locations)? else {
            continue;
        };
        let Some(packages) = open.packages() else {
            continue;
        };
        let Some(installed) = scan(packages, false)
            .installed
            .into_iter()
            .find(|installed| installed.id == name.id)
        else {
            continue;
        };
        if !name.names(&installed.namespace, &installed.id) {
            return Err(InstallError::OtherNamespace {
                wanted: name.to_string(),
                installed: installed.name(),
            });
        }
        return Ok((
            scope.clone(),
            inspect_in(packages, installed, opencorvus_root, false),
        ));
    }
    Err(InstallError::NotInstalled(name.to_string()))
}

/// What `squad list` shows: the packages of some scopes, which one the project selects, and
/// which changed since they were installed.
#[derive(Debug)]
pub struct Listing {
    /// The project whose packages and selection were read; `None` for the global scope alone.
    pub project: Option<PathBuf>,
    /// The project's `prompt_profile.active`, when it names one.
    pub active: Option<String>,
    pub packages: Vec<Listed>,
    /// What could not be recovered or read, each said once.
    pub warnings: Vec<String>,
}

/// One row of a [`Listing`].
#[derive(Debug)]
pub struct Listed {
    pub scope: Scope,
    pub package: Inspected,
    /// The package the runtime loads for the project's selection: the id's project install,
    /// else its global one.
    pub active: bool,
}

/// Lists `scopes` (each recovered first, JNL-4, waiting at most `lock_timeout` for an id's
/// lock); `project` is the project whose selection is read.
pub fn list(
    scopes: &[Scope],
    project: Option<&Path>,
    opencorvus_root: &Path,
    lock_timeout: Option<Duration>,
) -> Listing {
    let mut warnings = Vec::new();
    let active = match project.map(super::config::selected) {
        Some(Ok(active)) => active,
        Some(Err(error)) => {
            warnings.push(crate::error::chain(&error));
            None
        }
        None => None,
    };
    let mut packages = Vec::new();
    for scope in scopes {
        let locations = Locations::new(scope, opencorvus_root);
        for problem in super::recover_scope(&locations, lock_timeout) {
            warnings.push(format!("interrupted replacement not recovered: {problem}"));
        }
        for package in list_scope(&locations, opencorvus_root) {
            packages.push(Listed {
                scope: scope.clone(),
                package,
                active: false,
            });
        }
    }
    // Project first, as the runtime resolves an id; only a package it can load. A project
    // install that is not listed still shadows a global one.
    let shadowed = |id: &str| {
        project.is_some_and(|project| {
            !scopes
                .iter()
                .any(|scope| matches!(scope, Scope::Project(_)))
                && has_loadable(
                    &Locations::new(&Scope::Project(project.to_path_buf()), opencorvus_root),
                    id,
                )
        })
    };
    if let Some(active) = active.as_deref().filter(|active| !shadowed(active)) {
        let chosen = [true, false].into_iter().find_map(|project_scope| {
            packages.iter().position(|listed| {
                matches!(listed.scope, Scope::Project(_)) == project_scope
                    && listed.package.installed.id == *active
                    && listed.package.installed.problem.is_none()
            })
        });
        if let Some(index) = chosen {
            packages[index].active = true;
        }
    }
    Listing {
        project: project.map(Path::to_path_buf),
        active,
        packages,
        warnings,
    }
}

/// One walk of a scope's packages root.
#[derive(Default)]
pub(crate) struct Scan {
    /// Every `<namespace>/<id>` directory, sorted; fields past the folder names are not filled.
    pub installed: Vec<Installed>,
    /// When strict, why the runtime cannot list the scope, in name order.
    pub problems: Vec<String>,
}

/// The package directories of the packages root `packages` and, when `strict`, UNQ-1's strict
/// listing (LOC-3): every child of the packages root is a namespace directory and every
/// grandchild a package whose manifest names its folders. The reference cannot list a scope
/// that breaks this, so squad does not install into it. One walk serves both, so every
/// manifest is read only once.
pub(crate) fn scan(packages: &Dir, strict: bool) -> Scan {
    let mut scan = Scan::default();
    let Ok(mut namespaces) = packages.entries() else {
        if strict {
            scan.problems
                .push("the packages root cannot be read".to_owned());
        }
        return scan;
    };
    namespaces.sort_by(|a, b| a.0.cmp(&b.0));
    let valid =
        |name: &str| crate::manifest::id_problem(name, crate::manifest::IdKind::Package).is_none();
    for (name, kind) in namespaces {
        let name = name.to_string_lossy().into_owned();
        // Links are never followed: a linked namespace or package is not part of the scope.
        if kind != Kind::Directory {
            if strict {
                scan.problems
                    .push(format!("`{}` is not a namespace directory", shown(&name)));
            }
            continue;
        }
        if strict && !valid(&name) {
            scan.problems
                .push(format!("`{}` is not a valid namespace", shown(&name)));
        }
        let ids = match packages.open_dir(&name) {
            Ok(Some(namespace)) => namespace.entries().ok().map(|ids| (ids, namespace)),
            // Gone since the packages root was read (its last package uninstalled meanwhile).
            Ok(None) => continue,
            Err(_) => None,
        };
        let Some((mut ids, namespace)) = ids else {
            if strict {
                scan.problems
                    .push(format!("`{}` cannot be read", shown(&name)));
            }
            continue;
        };
        ids.sort_by(|a, b| a.0.cmp(&b.0));
        if strict
            && ids
                .iter()
                .any(|(id, _)| id.as_os_str() == crate::manifest::MANIFEST_FILE)
        {
            scan.problems.push(format!(
                "`{}` holds expert-squad.jsonc: direct package roots are not supported; expected <namespace>/<id>",
                shown(&name)
            ));
        }
        for (id_name, kind) in ids {
            let id_name = id_name.to_string_lossy().into_owned();
            let is_dir = kind == Kind::Directory;
            // A stray manifest beside the packages is reported once, for its namespace.
            if strict && id_name != crate::manifest::MANIFEST_FILE {
                if !is_dir {
                    scan.problems.push(format!(
                        "`{}/{}` is not a package directory",
                        shown(&name),
                        shown(&id_name)
                    ));
                } else if let Some(problem) = match namespace.open_dir(&id_name) {
                    Ok(Some(package)) => read_manifest_at(&package, &name, &id_name).problem,
                    // Gone since its directory was read: a concurrent install of that id is
                    // replacing it (or an uninstall removing it). Not there is no problem.
                    Ok(None) => None,
                    Err(_) => Some("cannot be read".to_owned()),
                } {
                    scan.problems.push(format!(
                        "`{}/{}`: {problem}",
                        shown(&name),
                        shown(&id_name)
                    ));
                }
            }
            if is_dir {
                scan.installed.push(Installed {
                    namespace: name.clone(),
                    root: packages.shown(&name).join(&id_name),
                    id: id_name,
                    version: None,
                    package_digest: None,
                    problem: None,
                });
            }
        }
    }
    scan.installed
        .sort_by(|a, b| (&a.namespace, &a.id).cmp(&(&b.namespace, &b.id)));
    scan
}

impl Installed {
    /// `namespace/id version` (`namespace/id` when the version is not known), for messages.
    /// The folder names and the manifest's version are whoever committed them: shown
    /// neutralised.
    pub fn label(&self) -> String {
        match &self.version {
            Some(version) => format!("{} {}", self.name(), crate::text::shown(version)),
            None => self.name(),
        }
    }

    /// `namespace/id`, from the folder names, for messages (neutralised as [`Self::label`]).
    pub fn name(&self) -> String {
        format!(
            "{}/{}",
            crate::text::shown(&self.namespace),
            crate::text::shown(&self.id)
        )
    }

    /// With the manifest's version and the package digest filled in.
    pub fn described(self) -> Installed {
        let mut described = self.inspected();
        described.package_digest = directory_digest(&described.root)
            .ok()
            .map(|digest| digest.hex());
        described
    }

    /// With the manifest's version and folder problem filled in; nothing is hashed.
    pub fn inspected(mut self) -> Installed {
        let manifest = read_manifest(&self.root, &self.namespace, &self.id);
        self.version = manifest.version;
        self.problem = manifest.problem;
        self
    }

    /// Why the runtime will not load this package (MAN-R4), if it will not.
    pub fn folder_problem(&self) -> Option<String> {
        read_manifest(&self.root, &self.namespace, &self.id).problem
    }
}

/// An installed manifest, read and parsed once.
pub(crate) struct InstalledManifest {
    pub version: Option<String>,
    /// MAN-R4: `<namespace>/<id>` folder names equal the manifest's namespace and id; `Some`
    /// says why the runtime will not load the package.
    pub problem: Option<String>,
}

fn read_manifest(root: &Path, folder_namespace: &str, folder_id: &str) -> InstalledManifest {
    match Dir::open(&crate::fs::entry_path(root)) {
        Ok(package) => read_manifest_at(&package, folder_namespace, folder_id),
        Err(_) => InstalledManifest {
            version: None,
            problem: Some("no readable expert-squad.jsonc".to_owned()),
        },
    }
}

/// The manifest of the package directory `package` (a regular file only: a FIFO there must
/// not hang a listing).
pub(crate) fn read_manifest_at(
    package: &Dir,
    folder_namespace: &str,
    folder_id: &str,
) -> InstalledManifest {
    let mut bytes = Vec::new();
    let read = package
        .open_file(crate::manifest::MANIFEST_FILE)
        .and_then(|mut file| std::io::Read::read_to_end(&mut file, &mut bytes));
    if read.is_err() {
        return InstalledManifest {
            version: None,
            problem: Some("no readable expert-squad.jsonc".to_owned()),
        };
    }
    // The version is shown whatever the encoding, as before; the runtime reads manifests
    // strictly, so one that is not UTF-8 cannot be loaded.
    let (text, replaced) = crate::source::decode_lossy(&bytes);
    let declared = crate::manifest::declared(&text).unwrap_or_default();
    let problem = match (replaced, declared.namespace, declared.id) {
        (true, _, _) => Some("no readable expert-squad.jsonc".to_owned()),
        (false, Some(namespace), Some(id)) if namespace == folder_namespace && id == folder_id => {
            None
        }
        (false, Some(namespace), Some(id)) => Some(format!(
            "folder `{}/{}` is not the manifest's `{}/{}` (MAN-R4); the runtime will not load it",
            shown(folder_namespace),
            shown(folder_id),
            shown(&namespace),
            shown(&id)
        )),
        (false, _, _) => Some("the manifest has no valid namespace and id".to_owned()),
    };
    InstalledManifest {
        version: declared.version,
        problem,
    }
}

/// UNQ-1: one id per scope, whatever the namespace, and a scope the runtime can list.
pub(crate) fn check_unique(scope: &OpenScope, identity: &Identity) -> Result<(), InstallError> {
    let Some(packages) = scope.packages() else {
        return Ok(());
    };
    let scan = scan(packages, true);
    for installed in scan.installed {
        let same_but_case = installed.id.eq_ignore_ascii_case(&identity.id)
            && installed
                .namespace
                .eq_ignore_ascii_case(&identity.namespace);
        if same_but_case
            && (installed.id != identity.id || installed.namespace != identity.namespace)
        {
            return Err(InstallError::CaseCollision {
                target: format!("{}/{}", identity.namespace, identity.id),
                existing: installed.root,
            });
        }
        if installed.id == identity.id && installed.namespace != identity.namespace {
            return Err(InstallError::Duplicate {
                id: identity.id.clone(),
                existing: installed.root,
            });
        }
    }
    if !scan.problems.is_empty() {
        return Err(InstallError::MalformedScope {
            root: scope.locations.packages_root.clone(),
            problems: scan.problems,
        });
    }
    Ok(())
}

/// GLB-3: a global install of an id that a registered project has installed is refused (the
/// project's copy would shadow it there). Projects that no longer exist are skipped.
/// Returns a warning for each registered project that no longer exists; one that exists but
/// cannot be listed strictly fails the install, as UNQ-1 does for the target scope.
pub(crate) fn check_projects(
    options: &Options,
    identity: &Identity,
) -> Result<Vec<String>, InstallError> {
    let mut warnings = Vec::new();
    for project in projects::registered(&options.opencorvus_root) {
        if !project.is_dir() {
            warnings.push(format!(
                "registered project `{}` no longer exists; it was not checked (`squad projects` lists them)",
                project.display()
            ));
            continue;
        }
        let locations = Locations::new(&Scope::Project(project.clone()), &options.opencorvus_root);
        let Some(scope) = OpenScope::existing(&locations)? else {
            continue;
        };
        let Some(packages) = scope.packages() else {
            continue;
        };
        let scan = scan(packages, true);
        if !scan.problems.is_empty() {
            return Err(InstallError::MalformedScope {
                root: locations.packages_root,
                problems: scan.problems,
            });
        }
        if let Some(installed) = scan
            .installed
            .into_iter()
            .find(|installed| installed.id == identity.id)
        {
            return Err(InstallError::ProjectHasId {
                project,
                installed: Box::new(installed.described()),
            });
        }
    }
    Ok(warnings)
}

/// DSC-3 `project_overrides_global`: when a project is first registered, the ids it has
/// installed that the global scope also has (the project's copy wins there).
pub(crate) fn overrides_of(options: &Options, project: &Path) -> Vec<String> {
    let global = identities(&Locations::new(&Scope::Global, &options.opencorvus_root));
    identities(&Locations::new(
        &Scope::Project(project.to_path_buf()),
        &options.opencorvus_root,
    ))
    .into_iter()
    .filter_map(|local| {
        let g = global
            .iter()
            .find(|g| g.id == local.id)?
            .clone()
            .inspected();
        let local = local.inspected();
        let version = |installed: &Installed| shown(installed.version.as_deref().unwrap_or("-"));
        Some(format!(
            "project_overrides_global: `{}` in this project ({} {}) overrides the global {} {}",
            shown(&local.id),
            local.name(),
            version(&local),
            g.name(),
            version(&g)
        ))
    })
    .collect()
}

/// Whether `id` is installed in `scope` as a package the runtime can load (ACT-2: a folder
/// the runtime will not load is not an installed package).
pub fn has_loadable(locations: &Locations, id: &str) -> bool {
    identities(locations)
        .into_iter()
        .filter(|installed| installed.id == id)
        .any(|installed| installed.folder_problem().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_manifest_is_read_once_for_its_version_and_folder_problem() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join(crate::manifest::MANIFEST_FILE);
        let read = || read_manifest(dir.path(), "acme", "pkg");
        assert_eq!(
            read().problem.as_deref(),
            Some("no readable expert-squad.jsonc")
        );
        std::fs::write(
            &manifest,
            r#"{"namespace": "acme", "id": "pkg", "version": "1.0.0"}"#,
        )
        .unwrap();
        assert_eq!(
            (read().version.as_deref(), read().problem),
            (Some("1.0.0"), None)
        );
        std::fs::write(&manifest, r#"{"namespace": "acme", "id": "other"}"#).unwrap();
        assert!(read().problem.unwrap().contains("`acme/other` (MAN-R4)"));
        std::fs::write(&manifest, r#"{"namespace": "acme"}"#).unwrap();
        assert_eq!(
            read().problem.as_deref(),
            Some("the manifest has no valid namespace and id")
        );
        // Not UTF-8: the version still shows, but the runtime cannot read it.
        let mut bytes =
            br#"{"namespace": "acme", "id": "pkg", "version": "2.0.0", "x": ""#.to_vec();
        bytes.extend_from_slice(b"\xff\"}");
        std::fs::write(&manifest, bytes).unwrap();
        assert_eq!(read().version.as_deref(), Some("2.0.0"));
        assert_eq!(
            read().problem.as_deref(),
            Some("no readable expert-squad.jsonc")
        );
    }
}
