//! Install receipts: the digest and per-file hashes of each installed package, kept outside
//! every packages root (`<R>/data/squad-receipts/<sha256 of the target path>.json`), so
//! `squad verify` can name each file that changed since the install. The directory tree stays
//! the source of truth; a missing receipt only means "cannot tell which file changed".

use std::path::{Path, PathBuf};

use crate::digest::{DigestDocument, Sha256Digest, TreeDigest};

use super::fingerprint::{self, Fingerprint};

fn receipt_path(opencorvus_root: &Path, target: &Path) -> PathBuf {
    let key = target
        .canonicalize()
        .unwrap_or_else(|_| target.to_path_buf());
    receipt_path_of(opencorvus_root, &key)
}

/// [`receipt_path`] of a target already canonical.
fn receipt_path_of(opencorvus_root: &Path, key: &Path) -> PathBuf {
    // Built in one buffer: a no-op `sync` finds 1,000 fingerprints beside their receipts.
    let name = Sha256Digest::of(key.to_string_lossy().as_bytes()).hex();
    let mut path = PathBuf::with_capacity(opencorvus_root.as_os_str().len() + 96);
    path.push(opencorvus_root);
    path.push("data");
    path.push("squad-receipts");
    path.push(name);
    path.set_extension("json");
    path
}

/// Where an installed package came from, when not from a local path: a registry reference
/// and the manifest digest it resolved to.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Origin {
    pub reference: String,
    pub manifest_digest: String,
}

/// A receipt written to a temporary file beside its place, renamed there only once the package
/// is installed (so a failed install leaves the previous receipt). The transaction syncs the
/// temporary file with the staged package and the directory with the publishing rename.
pub struct Pending {
    temporary: PathBuf,
    path: PathBuf,
    /// The target as the receipt names it.
    target: String,
    file: std::fs::File,
    committed: bool,
}

/// Prepares the record of what will be installed at `target` (its canonical path), in the JSON
/// shape of `squad digest --files`, plus its `origin` when it came from a registry.
pub fn prepare(
    opencorvus_root: &Path,
    target: &Path,
    tree: &TreeDigest,
    origin: Option<&Origin>,
) -> std::io::Result<Pending> {
    let path = receipt_path(opencorvus_root, target);
    crate::fs::create_dir_all(crate::fs::parent_directory(&path))?;
    // A receipt must name its target exactly: a path that is not UTF-8 gets none.
    let shown = target
        .to_str()
        .ok_or_else(|| std::io::Error::other("path contains invalid UTF-8 characters"))?;
    let document = DigestDocument {
        schema_version: crate::diag::json::SCHEMA_VERSION,
        kind: "receipt".to_owned(),
        path: shown.to_owned(),
        source: None,
        package_digest: tree.package_digest,
        files: Some(tree.files.as_slice().into()),
    };
    let mut value = serde_json::to_value(&document).map_err(std::io::Error::other)?;
    if let (Some(origin), Some(object)) = (origin, value.as_object_mut()) {
        object.insert(
            "origin".to_owned(),
            serde_json::to_value(origin).map_err(std::io::Error::other)?,
        );
    }
    let bytes = serde_json::to_vec_pretty(&value).map_err(std::io::Error::other)?;
    // Kept by hand: the transaction syncs the file with the package and renames it at its
    // commit point; `Pending` removes it when dropped uncommitted.
    let (mut file, temporary) = crate::fs::create_beside(&path)?
        .keep()
        .map_err(|error| error.error)?;
    let pending = Pending {
        temporary,
        path,
        target: shown.to_owned(),
        file: file.try_clone()?,
        committed: false,
    };
    std::io::Write::write_all(&mut file, &bytes)?;
    Ok(pending)
}

impl Pending {
    /// The temporary file, to be synced before the package is published.
    pub fn file(&self) -> &std::fs::File {
        &self.file
    }

    /// The directory the receipt goes in, to be synced after [`Pending::commit`].
    pub fn directory(&self) -> &Path {
        crate::fs::parent_directory(&self.path)
    }

    /// Puts the receipt in place (replacing an earlier one); an earlier package's
    /// fingerprint goes, so that none is kept for a package it was not taken of.
    pub fn commit(&mut self) -> std::io::Result<()> {
        let _ = crate::fs::remove_file(fingerprint::path_beside(&self.path));
        crate::fs::rename(&self.temporary, &self.path)?;
        self.committed = true;
        Ok(())
    }

    /// Writes the fingerprint of the package just installed beside its receipt.
    pub fn keep_fingerprint(&self, fingerprint: &Fingerprint) -> std::io::Result<()> {
        fingerprint::write(
            &fingerprint::path_beside(&self.path),
            &self.target,
            fingerprint,
        )
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.committed {
            let _ = crate::fs::remove_file(&self.temporary);
        }
    }
}

/// The origin recorded in the receipt of the package installed at `target`, if any.
pub fn origin(opencorvus_root: &Path, target: &Path) -> Option<Origin> {
    let bytes = crate::fs::read(find(opencorvus_root, target)?).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    serde_json::from_value(value.get("origin")?.clone()).ok()
}

/// What the receipt of the package installed at `target` recorded, if there is a readable
/// one: compared with the package now there ([`crate::verify::Record::drift`]) it names each
/// file changed since the install, for `verify`, `list`, `uninstall` and a repairing install.
pub fn record(opencorvus_root: &Path, target: &Path) -> Option<crate::verify::Record> {
    crate::verify::load_record(&find(opencorvus_root, target)?).ok()
}

/// The fingerprint of the package installed at `target`, when there is a usable one (see
/// [`fingerprint::read`]).
pub fn fingerprint(opencorvus_root: &Path, target: &Path) -> Option<Fingerprint> {
    fingerprint_at(opencorvus_root, &target.canonicalize().ok()?)
}

/// [`fingerprint()`] of a target whose canonical path the caller knows.
pub fn fingerprint_at(opencorvus_root: &Path, canonical: &Path) -> Option<Fingerprint> {
    let path = fingerprint::path_beside(&receipt_path_of(opencorvus_root, canonical));
    fingerprint::read(&path, canonical.to_str()?)
}

/// Removes the fingerprint of the package installed at `target`, with its receipt.
pub fn forget_fingerprint(receipt: &Path) {
    let _ = crate::fs::remove_file(fingerprint::path_beside(receipt));
}

/// The receipt of the package installed at `target`, if there is one.
pub fn find(opencorvus_root: &Path, target: &Path) -> Option<PathBuf> {
    let path = receipt_path(opencorvus_root, target);
    path.is_file().then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_receipt_is_named_by_the_sha256_of_its_target() {
        let target = Path::new("/home/me/project/.opencorvus/expert-squads/acme/a");
        let root = Path::new("/root/opencorvus");
        let joined = root.join("data").join("squad-receipts").join(format!(
            "{}.json",
            Sha256Digest::of(target.to_str().unwrap().as_bytes()).hex()
        ));
        assert_eq!(
            receipt_path_of(root, target).as_os_str(),
            joined.as_os_str()
        );
    }
}
