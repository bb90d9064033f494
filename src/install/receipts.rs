//! Install receipts: the digest and per-file hashes of each installed package, kept outside
//! every packages root (`<R>/data/squad-receipts/<sha256 of the target path>.json`), so
//! `squad verify` can name each file that changed since the install. The directory tree stays
//! the source of truth; a missing receipt only means "cannot tell which file changed".

use std::path::{Path, PathBuf};

use crate::digest::{DigestDocument, Sha256Digest, TreeDigest};

fn receipt_path(opencorvus_root: &Path, target: &Path) -> PathBuf {
    let key = target
        .canonicalize()
        .unwrap_or_else(|_| target.to_path_buf());
    opencorvus_root
        .join("data")
        .join("squad-receipts")
        .join(format!(
            "{}.json",
            Sha256Digest::of(key.to_string_lossy().as_bytes()).hex()
        ))
}

/// Where an installed package came from, when not from a local path: a registry reference
/// and the manifest digest it resolved to.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Origin {
    pub reference: String,
    pub manifest_digest: String,
}

/// Records what was installed at `target`, in the JSON shape of `squad digest --files`, plus
/// its `origin` when it came from a registry.
pub fn write(
    opencorvus_root: &Path,
    target: &Path,
    tree: &TreeDigest,
    origin: Option<&Origin>,
) -> std::io::Result<()> {
    let path = receipt_path(opencorvus_root, target);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
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
    crate::fs::replace_file(
        &path,
        &serde_json::to_vec_pretty(&value).map_err(std::io::Error::other)?,
    )
}

/// The origin recorded in the receipt of the package installed at `target`, if any.
pub fn origin(opencorvus_root: &Path, target: &Path) -> Option<Origin> {
    let bytes = std::fs::read(find(opencorvus_root, target)?).ok()?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    serde_json::from_value(value.get("origin")?.clone()).ok()
}

/// The receipt of the package installed at `target`, if there is one.
pub fn find(opencorvus_root: &Path, target: &Path) -> Option<PathBuf> {
    let path = receipt_path(opencorvus_root, target);
    path.is_file().then_some(path)
}
