//! What versioning needs of a package folder, read once: its manifest text, the version
//! literal's place and value, its identity, its package digest and its content digest (CD-1:
//! the digest that ignores the version, so that only a change of content counts).
//!
//! Both digests are computed in one pass over the files of the tree contract, the manifest's
//! bytes being the text read to find the version: the version judged and the content digested
//! come from one read.

use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::digest::{PackageHasher, Sha256Digest, sort_for_digest};
use crate::manifest::MANIFEST_FILE;
use crate::package::{ContractDigestError, capture_contract};
use crate::version::{Version, locate_in_manifest, without_version};

/// The domain prefix of CD-1's content digest (package-format.md, CD-1).
pub const CONTENT_DOMAIN: &[u8] = b"opencorvus/expert-squad-content@1";

/// A package folder as versioning sees it.
#[derive(Debug, Clone)]
pub struct Versioned {
    pub path: PathBuf,
    /// The manifest's text, as read.
    pub text: String,
    /// Where the version literal is in `text`.
    pub span: Range<usize>,
    pub version: Version,
    pub namespace: String,
    pub id: String,
    pub package_digest: Sha256Digest,
    pub content_digest: Sha256Digest,
}

impl Versioned {
    /// `namespace/id`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.namespace, self.id)
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.path.join(MANIFEST_FILE)
    }
}

/// Why a package folder cannot be versioned.
#[derive(Debug, thiserror::Error)]
pub enum ContentError {
    #[error("cannot read `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
    /// The manifest is not UTF-8, has no usable version literal, or no identity.
    #[error("`{}`: {message}", path.display())]
    Manifest { path: PathBuf, message: String },
    /// The version is not a valid version.
    #[error("`{}`: version `{value}`: {problem}", path.display())]
    Version {
        path: PathBuf,
        value: String,
        problem: crate::version::VersionError,
    },
    #[error(transparent)]
    Contract(ContractDigestError),
}

impl ContentError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            ContentError::Io(..) => crate::error::Class::Failed,
            ContentError::Contract(ContractDigestError::Contract(_)) => {
                crate::error::Class::Refused
            }
            ContentError::Contract(_) => crate::error::Class::Failed,
            ContentError::Manifest { .. } | ContentError::Version { .. } => {
                crate::error::Class::Refused
            }
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            ContentError::Version { value, .. } => Some(match crate::version::repaired(value) {
                Some(repaired) => format!(
                    "did you mean `{repaired}`? `squad fix` writes it so; `squad version bump` stamps a new version"
                ),
                None => "`squad version bump` replaces it with today's date".to_owned(),
            }),
            ContentError::Contract(_) => Some("run `squad validate` for details".to_owned()),
            _ => None,
        }
    }
}

/// Reads the manifest of `path` as a regular file (a FIFO would hang, a link would be rewritten
/// as a file) and finds its version literal.
pub fn read_manifest(path: &Path) -> Result<(String, Range<usize>, String), ContentError> {
    let manifest = path.join(MANIFEST_FILE);
    let bytes = crate::fs::read_regular(&manifest)
        .map_err(|error| ContentError::Io(manifest.clone(), error))?;
    let text = String::from_utf8(bytes).map_err(|_| ContentError::Manifest {
        path: manifest.clone(),
        message: "not valid UTF-8; it cannot be rewritten safely".to_owned(),
    })?;
    let (span, value) = locate_in_manifest(&text).map_err(|message| ContentError::Manifest {
        path: manifest.clone(),
        message,
    })?;
    Ok((text, span, value))
}

/// Reads the package folder `path` for versioning: manifest, version, identity and both
/// digests.
pub fn read(path: &Path) -> Result<Versioned, ContentError> {
    let (text, span, value) = read_manifest(path)?;
    let manifest = path.join(MANIFEST_FILE);
    let version = Version::parse(&value).map_err(|problem| ContentError::Version {
        path: manifest.clone(),
        value: value.clone(),
        problem,
    })?;
    let declared = crate::manifest::declared(&text).unwrap_or_default();
    let (Some(namespace), Some(id)) = (declared.namespace, declared.id) else {
        return Err(ContentError::Manifest {
            path: manifest,
            message: "the manifest declares no `namespace` and `id`".to_owned(),
        });
    };
    for (what, value) in [("namespace", &namespace), ("id", &id)] {
        if let Some((_, problem)) =
            crate::manifest::id_problem(value, crate::manifest::IdKind::Package)
        {
            return Err(ContentError::Manifest {
                path: manifest,
                message: format!("{what} `{}`: {problem}", crate::text::remote(value, 80)),
            });
        }
    }
    let (package_digest, content_digest) = digests(path, &text)?;
    Ok(Versioned {
        path: path.to_path_buf(),
        text,
        span,
        version,
        namespace,
        id,
        package_digest,
        content_digest,
    })
}

/// The package digest and the content digest of the folder `root` whose manifest's text is
/// `manifest`, in one pass over the files of the tree contract.
pub fn digests(root: &Path, manifest: &str) -> Result<(Sha256Digest, Sha256Digest), ContentError> {
    let (tree, diagnostics) = capture_contract(root, true)
        .map_err(|error| ContentError::Contract(ContractDigestError::Root(error)))?;
    if crate::diag::has_errors(&diagnostics) {
        return Err(ContentError::Contract(ContractDigestError::Contract(
            diagnostics,
        )));
    }
    let blanked = without_version(manifest).map_err(|message| ContentError::Manifest {
        path: root.join(MANIFEST_FILE),
        message,
    })?;
    let mut paths: Vec<String> = tree.files().map(|entry| entry.path.clone()).collect();
    sort_for_digest(&mut paths, |path| path.as_str());
    let mut package = PackageHasher::default();
    let mut content = Sha256::new();
    content.update(CONTENT_DOMAIN);
    for path in &paths {
        if path == MANIFEST_FILE {
            package.begin_file(path, manifest.len() as u64);
            package.content(manifest.as_bytes());
            content.update(format!("{path} {} ", blanked.len()).as_bytes());
            content.update(blanked.as_bytes());
            continue;
        }
        let full = root.join(path);
        let mut file = crate::fs::open_regular(&full, crate::fs::Links::Refuse)
            .map_err(|error| ContentError::Io(full.clone(), error))?;
        let size = file
            .metadata()
            .map_err(|error| ContentError::Io(full.clone(), error))?
            .len();
        package.begin_file(path, size);
        content.update(format!("{path} {size} ").as_bytes());
        let mut buffer = vec![0u8; 256 * 1024];
        let mut read_total = 0u64;
        loop {
            let read = file
                .read(&mut buffer)
                .map_err(|error| ContentError::Io(full.clone(), error))?;
            if read == 0 {
                break;
            }
            read_total += read as u64;
            package.content(&buffer[..read]);
            content.update(&buffer[..read]);
        }
        if read_total != size {
            return Err(ContentError::Io(
                full,
                std::io::Error::other("the file changed size while it was read"),
            ));
        }
    }
    Ok((package.finish(), Sha256Digest(content.finalize().into())))
}

/// The content digest (CD-1) of files held in memory (an archive's), any order.
pub fn content_digest_of_entries(entries: &[(String, Vec<u8>)]) -> Result<Sha256Digest, String> {
    let mut order: Vec<&(String, Vec<u8>)> = entries.iter().collect();
    sort_for_digest(&mut order, |entry| entry.0.as_str());
    let mut content = Sha256::new();
    content.update(CONTENT_DOMAIN);
    for (path, bytes) in order {
        if path == MANIFEST_FILE {
            let blanked = without_version(&String::from_utf8_lossy(bytes))?;
            content.update(format!("{path} {} ", blanked.len()).as_bytes());
            content.update(blanked.as_bytes());
        } else {
            content.update(format!("{path} {} ", bytes.len()).as_bytes());
            content.update(bytes);
        }
    }
    Ok(Sha256Digest(content.finalize().into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(dir: &Path, version: &str, readme: &str) -> PathBuf {
        let root = dir.join("p");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join(MANIFEST_FILE),
            format!("{{\n  \"namespace\": \"acme\",\n  \"id\": \"p\",\n  \"version\": \"{version}\"\n}}\n"),
        )
        .unwrap();
        std::fs::write(root.join("README.md"), readme).unwrap();
        root
    }

    #[test]
    fn the_content_digest_ignores_the_version_and_nothing_else() {
        let one = tempfile::tempdir().unwrap();
        let two = tempfile::tempdir().unwrap();
        let three = tempfile::tempdir().unwrap();
        let a = read(&package(one.path(), "2026.12.01.1", "# P\n")).unwrap();
        let b = read(&package(two.path(), "2026.12.09.3", "# P\n")).unwrap();
        let c = read(&package(three.path(), "2026.12.01.1", "# P!\n")).unwrap();
        assert_eq!(a.content_digest, b.content_digest);
        assert_ne!(a.package_digest, b.package_digest);
        assert_ne!(a.content_digest, c.content_digest);
        assert_eq!((a.namespace.as_str(), a.id.as_str()), ("acme", "p"));
        // The package digest is the one `squad digest` computes.
        let digest = crate::package::contract_digest(
            &a.path,
            true,
            false,
            &crate::digest::Progress::default(),
        )
        .unwrap();
        assert_eq!(a.package_digest, digest.package_digest);
        // And the content digest of the same files in memory is the same.
        let entries: Vec<(String, Vec<u8>)> = vec![
            ("README.md".to_owned(), b"# P\n".to_vec()),
            (MANIFEST_FILE.to_owned(), a.text.clone().into_bytes()),
        ];
        assert_eq!(
            content_digest_of_entries(&entries).unwrap(),
            a.content_digest
        );
    }

    #[test]
    fn a_manifest_without_identity_or_with_a_bad_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = package(dir.path(), "2026.12.1.1", "# P\n");
        let error = read(&root).unwrap_err();
        assert_eq!(error.class(), crate::error::Class::Refused);
        assert!(error.hint().unwrap().contains("2026.12.01.1"), "{error}");
        std::fs::write(root.join(MANIFEST_FILE), "{\"version\": \"2026.12.01.1\"}").unwrap();
        let error = read(&root).unwrap_err();
        assert!(error.to_string().contains("no `namespace`"), "{error}");
    }
}
