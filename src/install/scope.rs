//! Installation scopes and their on-disk locations (LOC-1…LOC-3), identical to the reference's
//! so a package installed by `squad` is found by OpenCorvus and the reverse; and a scope's
//! directories held open ([`OpenScope`]), through which every install, uninstall and recovery
//! works (install/mod.rs, "threat model").

use std::cell::OnceCell;
use std::io;
use std::path::{Path, PathBuf};

use crate::fs::dir::Dir;

use super::InstallError;

/// The packages root's name in a config root.
pub const PACKAGES_ROOT: &str = "expert-squads";
/// The scratch directory's name in a config root.
pub const SCRATCH: &str = "expert-squad-staging";

/// Where a package is installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// `<project>/.opencorvus`.
    Project(PathBuf),
    /// `<R>/config`.
    Global,
}

impl Scope {
    /// `project` or `global`, as `squad list` and the JSON documents name scopes.
    pub fn name(&self) -> &'static str {
        match self {
            Scope::Project(_) => "project",
            Scope::Global => "global",
        }
    }
}

impl std::fmt::Display for Scope {
    /// For messages: "project `/work/app`" or "the global scope".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scope::Project(project) => write!(f, "project `{}`", project.display()),
            Scope::Global => f.write_str("the global scope"),
        }
    }
}

/// The directories of one scope, resolved against an OpenCorvus root `<R>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// `<project>/.opencorvus` or `<R>/config`.
    pub config_root: PathBuf,
    /// `<config root>/expert-squads`: only `<namespace>/<id>/` directories live here.
    pub packages_root: PathBuf,
    /// `<config root>/expert-squad-staging`: staging, backups, discards and journals.
    pub scratch: PathBuf,
    /// `<R>/config/expert-squad-install-locks`: global even for project installs.
    pub locks: PathBuf,
    /// `<R>/tmp`: private extraction directories of archive imports.
    pub temporary: PathBuf,
    /// The project directory, for a project scope: its config root must stay inside it.
    pub project: Option<PathBuf>,
}

/// The file squad writes in a project's `.opencorvus` when it creates the folder: what squad
/// keeps there that must not be committed (docs/project-files.md, "Committing and merging").
pub const GITIGNORE: &str = ".gitignore";

/// What [`GITIGNORE`] holds: the installed packages, the install scratch directory, the
/// project lock and the temporary files of atomic writes. `squads.jsonc`, `squads.lock` and
/// `opencorvus.jsonc` are not in it: they are the project's to commit.
pub const GITIGNORE_TEXT: &str = "\
# Written by squad when it created this folder: what squad keeps here and makes again
# (`squad sync` installs the packages from squads.lock). Commit squads.jsonc and squads.lock;
# commit opencorvus.jsonc too if the team shares the active squad it selects.
/expert-squads/
/expert-squad-staging/
/.squads-sync.lock
/.*.tmp-*
";

/// Creates a scope's config root when it is absent; a project's (`<project>/.opencorvus`) is
/// given its [`GITIGNORE`] by the command that creates it, never rewritten afterwards (it is the
/// project's then). `Ok(true)` when the folder was created.
pub fn create_config_root(config_root: &Path, project: bool) -> io::Result<bool> {
    match crate::fs::symlink_metadata(config_root) {
        Ok(_) => return Ok(false),
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    crate::fs::create_dir_all(config_root)?;
    if project {
        write_gitignore(config_root)?;
    }
    Ok(true)
}

/// Writes `.opencorvus/.gitignore` unless a file of that name is there (another command that
/// created the folder at the same moment wrote it).
pub fn write_gitignore(config_root: &Path) -> io::Result<bool> {
    match crate::fs::write_new_synced(&config_root.join(GITIGNORE), GITIGNORE_TEXT.as_bytes()) {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(error) => Err(error),
    }
}

/// A project's `.opencorvus` (or another directory squad writes below a project) that is a
/// link leading out of the project. A clone can carry such a link; following it would write
/// the lock and the installs wherever it points (the global scope, another project), so
/// squad refuses it. A link that stays inside the project is followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{}` is a link to `{}`, outside the project: squad writes a project's files only inside the project", link.display(), target.display())]
pub struct OutsideProject {
    pub link: PathBuf,
    pub target: PathBuf,
}

impl OutsideProject {
    pub const HINT: &'static str = "a link committed to a repository is not followed out of it; if you made the link, use the folder it points to as a real `.opencorvus` folder, or point --project at the project that owns it";
}

/// Refuses `path` (below `project`) when it is a link whose target is outside `project`. A
/// path that is absent, a real directory or a link that stays inside is fine.
pub fn check_inside(project: &Path, path: &Path) -> io::Result<Result<(), OutsideProject>> {
    match crate::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {}
        Ok(_) => return Ok(Ok(())),
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Ok(())),
        Err(error) => return Err(error),
    }
    let project = crate::fs::canonicalize(project)?;
    let outside = |target: PathBuf| {
        Ok(Err(OutsideProject {
            link: path.to_path_buf(),
            target,
        }))
    };
    match crate::fs::canonicalize(path) {
        Ok(target) if target.starts_with(&project) && target != project => Ok(Ok(())),
        Ok(target) => outside(target),
        // A dangling link: where it would lead, as written.
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            outside(crate::fs::read_link(path)?)
        }
        Err(error) => Err(error),
    }
}

impl Locations {
    /// The locations of `scope`, given the OpenCorvus root `<R>`.
    pub fn new(scope: &Scope, opencorvus_root: &Path) -> Locations {
        let config_root = match scope {
            Scope::Project(project) => project.join(".opencorvus"),
            Scope::Global => opencorvus_root.join("config"),
        };
        Locations {
            project: match scope {
                Scope::Project(project) => Some(project.clone()),
                Scope::Global => None,
            },
            packages_root: config_root.join(PACKAGES_ROOT),
            scratch: config_root.join(SCRATCH),
            locks: opencorvus_root
                .join("config")
                .join("expert-squad-install-locks"),
            temporary: opencorvus_root.join("tmp"),
            config_root,
        }
    }

    /// For a project scope, refuses a config root that is a link out of the project
    /// ([`OutsideProject`]); the global scope's is the user's to place.
    pub fn check_config_root(&self) -> Result<(), InstallError> {
        let Some(project) = &self.project else {
            return Ok(());
        };
        check_inside(project, &self.config_root)
            .map_err(super::io(&self.config_root))?
            .map_err(InstallError::OutsideProject)
    }

    /// `<packages root>/<namespace>/<id>`.
    pub fn target(&self, namespace: &str, id: &str) -> PathBuf {
        self.packages_root.join(namespace).join(id)
    }
}

/// A scope's config root, opened once (following a link in its path, security-cases #36), and
/// its packages root and scratch directory opened relative to it (never through a link) when
/// they exist or once created.
pub struct OpenScope {
    pub locations: Locations,
    config: Dir,
    packages: OnceCell<Dir>,
    scratch: OnceCell<Dir>,
}

impl OpenScope {
    /// For an install: the config root is created when absent; the packages root and scratch
    /// directory are opened if present ([`OpenScope::ensure_packages`] and
    /// [`OpenScope::ensure_scratch`] create them once the install is going ahead).
    pub fn for_install(locations: &Locations) -> Result<OpenScope, InstallError> {
        locations.check_config_root()?;
        let root = &locations.config_root;
        create_config_root(root, locations.project.is_some()).map_err(super::io(root))?;
        OpenScope::opened(locations, Dir::open(root).map_err(super::io(root))?)
    }

    /// For an uninstall, a recovery or a listing: nothing is created; `None` when the scope has
    /// no config root.
    pub fn existing(locations: &Locations) -> Result<Option<OpenScope>, InstallError> {
        locations.check_config_root()?;
        let root = &locations.config_root;
        match Dir::open(root) {
            Ok(config) => OpenScope::opened(locations, config).map(Some),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(InstallError::Io(root.clone(), error)),
        }
    }

    fn opened(locations: &Locations, config: Dir) -> Result<OpenScope, InstallError> {
        let scope = OpenScope {
            locations: locations.clone(),
            config,
            packages: OnceCell::new(),
            scratch: OnceCell::new(),
        };
        if let Some(dir) = scope
            .config
            .open_dir(PACKAGES_ROOT)
            .map_err(|error| refused(&locations.packages_root, error))?
        {
            let _ = scope.packages.set(dir);
        }
        if let Some(dir) = scope.open_scratch(false)? {
            let _ = scope.scratch.set(dir);
        }
        Ok(scope)
    }

    /// The scratch directory, opened (created first when `create`) and held with a shared
    /// lock, so no other squad process removes it while this one works in it (see the `Drop`
    /// below). One removed between the open and the lock is opened again; `None` when absent.
    fn open_scratch(&self, create: bool) -> Result<Option<Dir>, InstallError> {
        let path = &self.locations.scratch;
        for _ in 0..100 {
            let dir = if create {
                match self.config.ensure_dir(SCRATCH) {
                    // Another squad process removed it, empty, between the mkdir and the open.
                    Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
                    result => Some(result),
                }
            } else {
                self.config.open_dir(SCRATCH).transpose()
            };
            let Some(dir) = dir.transpose().map_err(|error| refused(path, error))? else {
                return Ok(None);
            };
            dir.lock_shared().map_err(super::io(path))?;
            let here = self.config.status(SCRATCH).map_err(super::io(path))?;
            let own = dir.own_status().map_err(super::io(path))?;
            if here.is_some_and(|here| here.identity == own.identity) {
                return Ok(Some(dir));
            }
        }
        Err(InstallError::Io(
            path.clone(),
            io::Error::other("keeps being removed and created again by another process"),
        ))
    }

    /// The config root, as opened.
    pub fn config(&self) -> &Dir {
        &self.config
    }

    /// The packages root, if it exists.
    pub fn packages(&self) -> Option<&Dir> {
        self.packages.get()
    }

    /// The scratch directory, if it exists.
    pub fn scratch(&self) -> Option<&Dir> {
        self.scratch.get()
    }

    /// The packages root, created if absent.
    pub fn ensure_packages(&self) -> Result<&Dir, InstallError> {
        self.ensure(&self.packages, PACKAGES_ROOT, &self.locations.packages_root)
    }

    /// The scratch directory, created if absent, on the packages root's file system (the
    /// publishing rename could not be atomic across two, EXDEV).
    pub fn ensure_scratch(&self) -> Result<&Dir, InstallError> {
        let scratch = self.ensure(&self.scratch, SCRATCH, &self.locations.scratch)?;
        let packages = self.ensure_packages()?;
        let device = |dir: &Dir| {
            dir.own_status()
                .map(|status| status.identity.0)
                .map_err(super::io(dir.path()))
        };
        if device(scratch)? != device(packages)? {
            return Err(InstallError::Io(
                self.locations.scratch.clone(),
                io::Error::other(format!(
                    "the scratch directory is on another file system than `{}`, so the final rename could not be atomic (EXDEV)",
                    self.locations.packages_root.display()
                )),
            ));
        }
        Ok(scratch)
    }

    fn ensure<'a>(
        &'a self,
        cell: &'a OnceCell<Dir>,
        name: &str,
        path: &Path,
    ) -> Result<&'a Dir, InstallError> {
        if let Some(dir) = cell.get() {
            return Ok(dir);
        }
        let dir = if name == SCRATCH {
            self.open_scratch(true)?.ok_or_else(|| {
                InstallError::Io(path.to_path_buf(), io::ErrorKind::NotFound.into())
            })?
        } else {
            self.config
                .ensure_dir(name)
                .map_err(|error| refused(path, error))?
        };
        Ok(cell.get_or_init(|| dir))
    }

    /// Called once the id lock is held. Fails when a directory this scope opened is no longer
    /// at its path: the config root moved (or a link to elsewhere put in its place), or the
    /// packages root or scratch directory replaced. squad keeps working in what it opened
    /// either way; this makes a scope moved while squad waited for the lock an error before
    /// anything is changed. A packages root or scratch directory created meanwhile (by the
    /// install that held the lock) is opened now.
    pub fn check_in_place(&self) -> Result<(), InstallError> {
        let moved = |path: &Path| {
            InstallError::Io(
                path.to_path_buf(),
                io::Error::other(
                    "was moved or replaced while squad was working in it; nothing was changed",
                ),
            )
        };
        let own = |dir: &Dir| dir.own_status().map(|status| status.identity);
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let root = &self.locations.config_root;
            let here = crate::fs::metadata(root).map_err(|_| moved(root))?;
            if Some((here.dev(), here.ino())) != own(&self.config).ok() {
                return Err(moved(root));
            }
        }
        for (name, cell, path) in [
            (PACKAGES_ROOT, &self.packages, &self.locations.packages_root),
            (SCRATCH, &self.scratch, &self.locations.scratch),
        ] {
            match cell.get() {
                Some(dir) => {
                    let here = self.config.status(name).ok().flatten();
                    if here.map(|status| status.identity) != own(dir).ok() {
                        return Err(moved(path));
                    }
                }
                None => {
                    let opened = if name == SCRATCH {
                        self.open_scratch(false)?
                    } else {
                        self.config
                            .open_dir(name)
                            .map_err(|error| refused(path, error))?
                    };
                    if let Some(dir) = opened {
                        let _ = cell.set(dir);
                    }
                }
            }
        }
        Ok(())
    }
}

/// An empty scratch directory is not left behind in a project: it goes when the last squad
/// process working in it is done — the one that gets the exclusive lock while every other
/// holds the shared one — and only if it is still the directory this scope opened. A squad
/// process that opened it just before is not harmed: it locks, sees the name gone and creates
/// it again (`open_scratch`). A non-empty directory is never removed.
impl Drop for OpenScope {
    fn drop(&mut self) {
        // `rmdir` itself refuses a directory that is not empty.
        let Some(scratch) = self.scratch.get() else {
            return;
        };
        let same = |scratch: &Dir| {
            let here = self.config.status(SCRATCH).ok().flatten();
            here.map(|status| status.identity)
                == scratch.own_status().ok().map(|status| status.identity)
        };
        if scratch.try_lock_exclusive().unwrap_or(false) && same(scratch) {
            let _ = self.config.remove_dir(SCRATCH);
        }
    }
}

/// A link or a file where a scope directory belongs is refused, naming it.
fn refused(path: &Path, error: io::Error) -> InstallError {
    InstallError::Io(path.to_path_buf(), error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_follow_the_reference() {
        let root = Path::new("/home/u/.local/share/opencorvus");
        let project = Locations::new(&Scope::Project(PathBuf::from("/work/app")), root);
        assert_eq!(
            project.packages_root,
            Path::new("/work/app/.opencorvus/expert-squads")
        );
        assert_eq!(
            project.scratch,
            Path::new("/work/app/.opencorvus/expert-squad-staging")
        );
        assert_eq!(
            project.locks,
            root.join("config/expert-squad-install-locks")
        );
        assert_eq!(
            project.target("acme", "pkg"),
            Path::new("/work/app/.opencorvus/expert-squads/acme/pkg")
        );
        let global = Locations::new(&Scope::Global, root);
        assert_eq!(global.packages_root, root.join("config/expert-squads"));
        assert_eq!(global.locks, project.locks);
    }

    /// Parallel installs into one project (`squad sync`): each scope that is dropped removes
    /// the empty scratch directory when it is the last user, while another is creating it.
    /// None of them may fail because the directory went between its mkdir and its open.
    #[test]
    fn scratch_directory_removed_by_a_neighbour_is_created_again() {
        let home = tempfile::tempdir().unwrap();
        let project = home.path().join("app");
        let locations = Locations::new(&Scope::Project(project), &home.path().join("data"));
        std::thread::scope(|threads| {
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    threads.spawn(|| {
                        for _ in 0..300 {
                            let scope = OpenScope::for_install(&locations).unwrap();
                            scope.ensure_scratch().unwrap();
                        }
                    })
                })
                .collect();
            for worker in workers {
                worker.join().unwrap();
            }
        });
        assert!(
            !locations.scratch.exists(),
            "the last scope removes the empty scratch directory"
        );
    }
}
