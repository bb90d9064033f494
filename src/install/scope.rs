//! Installation scopes and their on-disk locations (LOC-1…LOC-3), identical to the reference's
//! so a package installed by `squad` is found by OpenCorvus and the reverse.

use std::path::{Path, PathBuf};

/// Where a package is installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// `<project>/.opencorvus`.
    Project(PathBuf),
    /// `<R>/config`.
    Global,
}

/// The directories of one scope, resolved against an OpenCorvus root `<R>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locations {
    /// `<config root>/expert-squads`: only `<namespace>/<id>/` directories live here.
    pub packages_root: PathBuf,
    /// `<config root>/expert-squad-staging`: staging, backups, discards and journals.
    pub scratch: PathBuf,
    /// `<R>/config/expert-squad-install-locks`: global even for project installs.
    pub locks: PathBuf,
    /// `<R>/tmp`: private extraction directories of archive imports.
    pub temporary: PathBuf,
}

impl Locations {
    /// The locations of `scope`, given the OpenCorvus root `<R>`.
    pub fn new(scope: &Scope, opencorvus_root: &Path) -> Locations {
        let config_root = match scope {
            Scope::Project(project) => project.join(".opencorvus"),
            Scope::Global => opencorvus_root.join("config"),
        };
        Locations {
            packages_root: config_root.join("expert-squads"),
            scratch: config_root.join("expert-squad-staging"),
            locks: opencorvus_root
                .join("config")
                .join("expert-squad-install-locks"),
            temporary: opencorvus_root.join("tmp"),
        }
    }

    /// `<packages root>/<namespace>/<id>`.
    pub fn target(&self, namespace: &str, id: &str) -> PathBuf {
        self.packages_root.join(namespace).join(id)
    }
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
}
