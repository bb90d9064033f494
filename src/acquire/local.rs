//! Where a local source may be read from: a path given on the command line as the shell gives
//! it, or a path a project's `squads.jsonc` names, relative to the project and kept within the
//! git work tree holding it (PRJ-5): a committed file never pulls a package from elsewhere on
//! the disk of whoever clones it.

use std::path::{Path, PathBuf};

use super::AcquireError;

/// How local paths are read: relative to `base`, and, for a project's files, kept within its
/// repository (`boundary`).
#[derive(Debug, Clone)]
pub struct Local {
    pub base: PathBuf,
    /// How `base` is shown (`.` or the `--project` given).
    pub shown: String,
    /// A local source must stay inside this folder, links and `..` resolved: `None` for a
    /// path the user typed, which squad takes as given.
    pub boundary: Option<PathBuf>,
    /// `base` with links and `..` resolved, when there is a boundary.
    resolved_base: PathBuf,
}

impl Local {
    /// Paths as the user gave them on the command line.
    pub fn given(base: PathBuf) -> Local {
        Local {
            resolved_base: base.clone(),
            base,
            shown: String::new(),
            boundary: None,
        }
    }

    /// Paths a project's `squads.jsonc` names: relative to the project, within the root of the
    /// git work tree holding it (the nearest folder at or above it with a `.git`), else within
    /// the project. A committed file may name a package elsewhere in its repository
    /// (`../squads/x` in a monorepo), never one elsewhere on the disk of whoever clones it.
    pub fn project(root: PathBuf, shown: String) -> Local {
        let resolved = crate::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
        let boundary = resolved
            .ancestors()
            .find(|folder| crate::fs::symlink_metadata(folder.join(".git")).is_ok())
            .unwrap_or(&resolved)
            .to_path_buf();
        Local {
            base: root,
            shown,
            boundary: Some(boundary),
            resolved_base: resolved,
        }
    }

    /// A local path as the user reads it.
    pub fn display(&self, path: &str) -> String {
        if self.shown.is_empty() {
            return path.to_owned();
        }
        crate::diag::sarif::display_file(&self.shown, path)
    }

    /// The folder or archive `path` names, checked to stay within the boundary.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, AcquireError> {
        let joined = self.base.join(path);
        let Some(boundary) = &self.boundary else {
            return Ok(joined);
        };
        let base = &self.resolved_base;
        let resolved = canonical_below(base, path)
            .or_else(|| crate::fs::canonicalize(&joined).ok())
            .unwrap_or_else(|| lexically_normal(&base.join(path)));
        if resolved.starts_with(boundary) {
            return Ok(joined);
        }
        let within = if boundary == base {
            format!("the project `{}`", boundary.display())
        } else {
            format!("the repository `{}`", boundary.display())
        };
        Err(AcquireError::Refused {
            message: format!(
                "`{}` leads to `{}`, outside {within}: a project's squads.jsonc names packages inside its own repository only",
                self.display(path),
                resolved.display()
            ),
            hint: Some(
                "copy the package into the repository, or publish it and name its oci:// or https:// source"
                    .to_owned(),
            ),
        })
    }
}

/// `base.join(relative)` with links resolved, for a canonical `base` and a `relative` path of
/// plain names none of which is a link: a look at each name below `base` instead of one at
/// every folder from the root (what `canonicalize` does, for each of a project's squads).
/// `None` when a name is `.`, `..`, a link or absent: then the caller canonicalizes.
fn canonical_below(base: &Path, relative: &str) -> Option<PathBuf> {
    let mut path = base.to_path_buf();
    for component in Path::new(relative).components() {
        let std::path::Component::Normal(name) = component else {
            return None;
        };
        path.push(name);
        if crate::fs::symlink_metadata(&path)
            .ok()?
            .file_type()
            .is_symlink()
        {
            return None;
        }
    }
    Some(path)
}

/// `path` with `.` and `..` taken away as written (no link followed): where a path that does
/// not exist would lead.
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_path_of_plain_names_is_canonical_below_a_canonical_base_and_a_link_is_left_to_canonicalize()
     {
        let scratch = tempfile::tempdir().unwrap();
        let base = scratch.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("archives")).unwrap();
        std::fs::write(base.join("archives/a.zip"), b"").unwrap();
        std::os::unix::fs::symlink("/", base.join("out")).unwrap();
        assert_eq!(
            canonical_below(&base, "archives/a.zip"),
            Some(base.join("archives/a.zip"))
        );
        assert_eq!(canonical_below(&base, "out/etc"), None);
        assert_eq!(canonical_below(&base, "archives/../out"), None);
        assert_eq!(canonical_below(&base, "archives/absent.zip"), None);
        let local = Local::project(base.clone(), ".".to_owned());
        assert!(local.resolve("archives/a.zip").is_ok());
        assert!(local.resolve("out/etc").is_err());
        assert!(local.resolve("archives/../out/etc").is_err());
    }
}
