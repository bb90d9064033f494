//! What the server knows: the open documents (the editor's unsaved texts) and the packages they
//! belong to, each with its last check. A document belongs to the package of the nearest folder
//! above it that holds `expert-squad.jsonc` (on disk, or open in the editor); a document in no
//! package is checked on its own, as `squad validate FILE` checks a document of the
//! neighbouring formats.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lsp_types::Url;

use super::position::{Encoding, LineIndex};
use crate::manifest::{MANIFEST_FILE, Manifest};
use crate::package::{Overlay, Report};

/// How many folders above a document are searched for a manifest.
const MAX_ANCESTORS: usize = 64;

/// An open document.
#[derive(Debug)]
pub struct Document {
    pub uri: Url,
    /// The file it shows, for a `file:` URI.
    pub path: Option<PathBuf>,
    pub version: i32,
    pub text: String,
    pub index: LineIndex,
    /// The package folder it belongs to.
    pub package: Option<PathBuf>,
}

impl Document {
    pub fn new(uri: Url, version: i32, text: String, encoding: Encoding) -> Document {
        let path = uri.to_file_path().ok();
        let index = LineIndex::new(&text, encoding);
        Document {
            uri,
            path,
            version,
            text,
            index,
            package: None,
        }
    }

    pub fn set_text(&mut self, text: String, version: i32, encoding: Encoding) {
        self.index = LineIndex::new(&text, encoding);
        self.text = text;
        self.version = version;
    }

    /// The path relative to its package, `/`-separated.
    pub fn relative(&self) -> Option<String> {
        relative(self.package.as_deref()?, self.path.as_deref()?)
    }

    pub fn is_manifest(&self) -> bool {
        self.path
            .as_deref()
            .and_then(Path::file_name)
            .is_some_and(|name| name == MANIFEST_FILE)
    }
}

/// `path` relative to `root`, `/`-separated, when it is inside it.
pub fn relative(root: &Path, path: &Path) -> Option<String> {
    let inside = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = inside
        .components()
        .map(|component| match component {
            std::path::Component::Normal(name) => name.to_str(),
            _ => None,
        })
        .collect();
    let parts = parts?;
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// A package with an open document, and its last check.
#[derive(Debug)]
pub struct Package {
    pub root: PathBuf,
    /// Whether the package changed since its last check, and when to check it.
    pub due: Option<Instant>,
    /// How long its last complete check took: half of it is the wait after an edit (the
    /// debounce).
    pub last_check: Duration,
    /// How many checks in a row were abandoned for a newer edit.
    pub abandoned: u32,
    /// The documents that hold its diagnostics now.
    pub published: BTreeSet<Url>,
    pub report: Option<Report>,
    /// The version of each open document the report was made from.
    pub checked: BTreeMap<Url, i32>,
}

impl Package {
    fn new(root: PathBuf) -> Package {
        Package {
            root,
            due: Some(Instant::now()),
            last_check: Duration::ZERO,
            abandoned: 0,
            published: BTreeSet::new(),
            report: None,
            checked: BTreeMap::new(),
        }
    }
}

/// The parsed manifest of an open document, as of one version.
#[derive(Debug)]
pub struct Model {
    pub version: i32,
    /// The manifest of this version, when it parsed; else the last version that did.
    pub manifest: Option<Manifest>,
    /// Whether `manifest` is of this version (not an older one kept while the text is broken).
    pub current: bool,
}

#[derive(Debug)]
pub struct Workspace {
    pub encoding: Encoding,
    pub documents: HashMap<Url, Document>,
    pub packages: BTreeMap<PathBuf, Package>,
    /// Documents in no package with diagnostics published.
    pub standalone_published: BTreeSet<Url>,
    pub models: HashMap<Url, Model>,
}

impl Workspace {
    pub fn new(encoding: Encoding) -> Workspace {
        Workspace {
            encoding,
            documents: HashMap::new(),
            packages: BTreeMap::new(),
            standalone_published: BTreeSet::new(),
            models: HashMap::new(),
        }
    }

    /// The package folder of a file: the nearest folder above it with a manifest on disk or
    /// open in the editor.
    pub fn package_root_of(&self, path: &Path) -> Option<PathBuf> {
        let open_manifests: BTreeSet<&Path> = self
            .documents
            .values()
            .filter(|document| document.is_manifest())
            .filter_map(|document| document.path.as_deref()?.parent())
            .collect();
        path.ancestors()
            .skip(1)
            .take(MAX_ANCESTORS)
            .find(|folder| {
                open_manifests.contains(folder)
                    || crate::fs::symlink_metadata(folder.join(MANIFEST_FILE))
                        .is_ok_and(|metadata| metadata.is_file())
            })
            .map(Path::to_path_buf)
    }

    /// Works out again which package each document is in (after a manifest appeared or went),
    /// registers the packages that have documents and forgets those that have none. Returns
    /// the packages forgotten, whose diagnostics are to be cleared.
    pub fn refresh_packages(&mut self) -> Vec<Package> {
        let roots: Vec<(Url, Option<PathBuf>)> = self
            .documents
            .values()
            .map(|document| {
                let root = document
                    .path
                    .as_deref()
                    .and_then(|path| self.package_root_of(path));
                (document.uri.clone(), root)
            })
            .collect();
        for (uri, root) in roots {
            if let Some(document) = self.documents.get_mut(&uri) {
                if document.package != root {
                    document.package = root.clone();
                }
            }
            if let Some(root) = root {
                self.packages
                    .entry(root.clone())
                    .or_insert_with(|| Package::new(root));
            }
        }
        let used: BTreeSet<PathBuf> = self
            .documents
            .values()
            .filter_map(|document| document.package.clone())
            .collect();
        let gone: Vec<PathBuf> = self
            .packages
            .keys()
            .filter(|root| !used.contains(*root))
            .cloned()
            .collect();
        gone.iter()
            .filter_map(|root| self.packages.remove(root))
            .collect()
    }

    /// Marks the package of `root` as changed: it is checked once no edit came for half as long
    /// as its last check took (at most [`super::MAX_DEBOUNCE`]); a burst of keystrokes is
    /// checked once, and a check under way when a newer edit comes is abandoned anyway.
    pub fn touch(&mut self, root: &Path, now: Instant) {
        if let Some(package) = self.packages.get_mut(root) {
            // A burst of edits moves the check to after the last of them.
            package.due = Some(now + (package.last_check / 2).min(super::MAX_DEBOUNCE));
        }
    }

    /// The open documents of a package as an overlay, and their versions.
    pub fn overlay(&self, root: &Path) -> (Overlay, BTreeMap<Url, i32>) {
        let mut overlay = Overlay::default();
        let mut versions = BTreeMap::new();
        for document in self.documents.values() {
            if document.package.as_deref() != Some(root) {
                continue;
            }
            if let Some(relative) = document.relative() {
                overlay.insert(relative, document.text.clone());
                versions.insert(document.uri.clone(), document.version);
            }
        }
        (overlay, versions)
    }

    /// The URI of a package file.
    pub fn uri_of(root: &Path, relative: &str) -> Option<Url> {
        let mut path = root.to_path_buf();
        for part in relative
            .split('/')
            .filter(|part| !part.is_empty() && *part != ".")
        {
            path.push(part);
        }
        Url::from_file_path(path).ok()
    }

    /// The text of a package file as the editor shows it: the open document's, else the text
    /// the last check read, else the file's.
    pub fn text_of(&self, root: &Path, relative: &str) -> Option<String> {
        let uri = Self::uri_of(root, relative)?;
        if let Some(document) = self.documents.get(&uri) {
            return Some(document.text.clone());
        }
        if let Some(source) = self
            .packages
            .get(root)
            .and_then(|package| package.report.as_ref())
            .and_then(|report| report.sources.get(relative))
        {
            return Some(source.text.clone());
        }
        let bytes = crate::fs::read_regular(&root.join(relative)).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// The manifest of the open document `uri`, parsed for its current version (or the last
    /// version that parsed, while the text is broken).
    pub fn model(&mut self, uri: &Url) -> Option<&Model> {
        let document = self.documents.get(uri)?;
        let fresh = self
            .models
            .get(uri)
            .is_some_and(|model| model.version == document.version);
        if !fresh {
            let mut ignored = crate::diag::Diagnostics::default();
            let parsed = crate::manifest::check(&document.text, &mut ignored)
                .filter(|manifest| manifest.tree.is_some());
            let previous = self.models.remove(uri).and_then(|model| model.manifest);
            let current = parsed.is_some();
            self.models.insert(
                uri.clone(),
                Model {
                    version: document.version,
                    manifest: parsed.or(previous),
                    current,
                },
            );
        }
        self.models.get(uri)
    }
}
