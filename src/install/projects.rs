//! The project directories `squad` has worked in (GLB-4), so a global install can check the id
//! against every one of them (GLB-3). One small file per project under `<R>/data/squad-projects/`
//! (named by the SHA-256 of the path), so concurrent registrations never lose each other and
//! nothing is written inside a packages root.

use std::path::{Path, PathBuf};

use crate::digest::Sha256Digest;

fn registry(opencorvus_root: &Path) -> PathBuf {
    opencorvus_root.join("data").join("squad-projects")
}

/// Records `project` (an absolute, canonical directory). Returns whether it was new.
pub fn register(opencorvus_root: &Path, project: &Path) -> std::io::Result<bool> {
    let directory = registry(opencorvus_root);
    crate::fs::create_dir_all(&directory)?;
    let text = project.to_string_lossy().into_owned();
    let file = directory.join(Sha256Digest::of(text.as_bytes()).hex());
    if file.exists() {
        return Ok(false);
    }
    // Its temporary name starts with `.`, which `registered` skips.
    crate::fs::replace_file(&file, text.as_bytes())?;
    Ok(true)
}

/// Every registered project directory, sorted.
pub fn registered(opencorvus_root: &Path) -> Vec<PathBuf> {
    let mut projects: Vec<PathBuf> = crate::fs::read_dir(registry(opencorvus_root))
        .map(|entries| {
            entries
                .flatten()
                .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
                .filter_map(|entry| crate::fs::read_to_string(entry.path()).ok())
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default();
    projects.sort();
    projects
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_once_and_lists() {
        let dir = tempfile::tempdir().unwrap();
        assert!(register(dir.path(), Path::new("/work/b")).unwrap());
        assert!(register(dir.path(), Path::new("/work/a")).unwrap());
        assert!(!register(dir.path(), Path::new("/work/a")).unwrap());
        assert_eq!(
            registered(dir.path()),
            [PathBuf::from("/work/a"), PathBuf::from("/work/b")]
        );
    }
}
