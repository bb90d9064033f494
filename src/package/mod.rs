//! Validation of a package folder: the reference's "validate folder" (layers S, T, R and the
//! Manager's source checks), read-only, reporting every problem at once.
//!
//! The steps mirror the reference pipeline (VAL-1…VAL-9): capture the tree, check the layout,
//! read the manifest, discover skills, tools and MCP servers from the files, then check every
//! projection's references against what was discovered and every discovered resource against
//! the projections. Each step works with whatever the earlier steps found valid.

mod advice;
mod date_parse;
pub mod encoded;
mod frontmatter;
mod layout;
mod mcp;
mod paths;
mod projections;
mod resources;
mod skills;
pub mod tool_parse;
pub mod tool_reach;
mod tools;
pub mod tree;
mod yaml;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use crate::digest::{DigestError, Progress, TreeDigest, digest_folder_with_progress};
use crate::manifest::{self, MANIFEST_FILE, Manifest};
use crate::source::{SourceFile, decode_lossy_owned};

pub use crate::path_rules::{fold as fold_path, length_problem, path_problem};
pub use resources::{CapabilityKind, Declared, Discovered};
pub use tree::Tree;

/// Who owns a resource: the whole package, or one agent (`orchestrator` for the scheduler).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Owner {
    Shared,
    Agent(String),
}

impl Owner {
    /// The ref segment after the package id.
    pub fn segment(&self) -> &str {
        match self {
            Owner::Shared => "shared",
            Owner::Agent(agent) => agent,
        }
    }
}

/// The outcome of validating one package.
#[derive(Debug)]
pub struct Report {
    pub root: PathBuf,
    /// Sorted by file, position and code.
    pub diagnostics: Vec<Diagnostic>,
    /// Text of the files diagnostics point into, and of every file the runtime gives a model to
    /// read (README, selector, prompts, the text files of skills), by package-relative path:
    /// what an audit reads, without a second read of the package.
    pub sources: HashMap<String, SourceFile>,
    /// Namespace, id and version, when the manifest declares them validly.
    pub identity: Option<Identity>,
    /// The captured tree (regular files and directories).
    pub tree: Tree,
    /// The valid parts of the manifest, when it parsed as an object.
    pub manifest: Option<Manifest>,
    /// The skills, tools and MCP servers found in the files.
    pub resources: resources::Discovered,
    /// Every tool file and file of a tool's closure that was parsed, by path: what capability
    /// reports and audits read of the code, without parsing it again.
    pub modules: std::collections::BTreeMap<String, tool_parse::ModuleInfo>,
}

/// Who a package is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub namespace: String,
    pub id: String,
    pub version: String,
}

impl Identity {
    /// `namespace/id version`, as status lines name a package.
    pub fn display(&self) -> String {
        format!("{}/{} {}", self.namespace, self.id, self.version)
    }
}

impl Report {
    pub fn is_valid(&self) -> bool {
        !crate::diag::has_errors(&self.diagnostics)
    }
}

/// Why a package could not be validated at all (as opposed to being invalid).
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    #[error("package folder `{}` does not exist", .0.display())]
    NotFound(PathBuf),
    #[error("`{}` is not a folder; a package is a folder that holds expert-squad.jsonc", .0.display())]
    NotADirectory(PathBuf),
    #[error("cannot read `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
    /// The caller no longer wanted the result (an editor's newer edit): see [`validate_overlay`].
    #[error("the check of `{}` was abandoned for a newer one", .0.display())]
    Cancelled(PathBuf),
}

/// The unsaved text of some files of a package, by package-relative `/`-separated path: what an
/// editor has open. Validation reads these texts instead of the files' bytes, and sees a file
/// that exists only here (a buffer not yet saved) as part of the tree, so a package is checked
/// as the editor shows it without copying it anywhere.
#[derive(Debug, Clone, Default)]
pub struct Overlay {
    files: BTreeMap<String, String>,
}

impl Overlay {
    /// Lays `text` over the file at `path` (package-relative, `/`-separated).
    pub fn insert(&mut self, path: impl Into<String>, text: impl Into<String>) {
        self.files.insert(path.into(), text.into());
    }

    /// The text laid over `path`, if any.
    pub fn get(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Every path with a text laid over it, in path order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }
}

impl From<ValidateError> for std::io::Error {
    fn from(error: ValidateError) -> std::io::Error {
        match error {
            ValidateError::Io(_, error) => error,
            other => std::io::Error::other(other.to_string()),
        }
    }
}

/// State shared by the validation steps of one package.
pub(crate) struct Context<'a> {
    pub root: &'a Path,
    pub tree: Tree,
    pub diagnostics: Diagnostics,
    pub sources: HashMap<String, SourceFile>,
    /// Texts read instead of the files' bytes (an editor's open buffers).
    pub overlay: Option<&'a Overlay>,
}

impl Context<'_> {
    /// The size of a package file as validation reads it: its overlay text's, else the file's.
    pub fn size(&self, path: &str) -> Option<u64> {
        if let Some(text) = self.overlay.and_then(|overlay| overlay.get(path)) {
            return Some(text.len() as u64);
        }
        crate::fs::symlink_metadata(self.root.join(path))
            .ok()
            .map(|metadata| metadata.len())
    }

    /// Reads a package file; an I/O failure becomes an `unreadable` diagnostic.
    pub fn read(&mut self, path: &str) -> Option<Vec<u8>> {
        if let Some(text) = self.overlay.and_then(|overlay| overlay.get(path)) {
            return Some(text.as_bytes().to_vec());
        }
        // A regular file only, never through a link: a FIFO swapped in after the tree was
        // captured must not block validation.
        let read = crate::fs::open_regular_seen(&self.root.join(path)).and_then(|mut file| {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut bytes).map(|_| bytes)
        });
        match read {
            Ok(bytes) => Some(bytes),
            Err(error) => {
                self.diagnostics.push(Diagnostic::new(
                    Code::Unreadable,
                    path,
                    format!("cannot read `{path}`: {error}"),
                ));
                None
            }
        }
    }

    /// Keeps the text of a file the runtime gives a model, unless a check kept it already.
    pub fn keep(&mut self, path: &str, text: String) {
        self.sources
            .entry(path.to_owned())
            .or_insert_with(|| SourceFile::new(text));
    }

    /// Keeps the text of a file no rule of the format reads (a skill's references), for the
    /// audit: decoded with replacement, and nothing reported when it cannot be read (the
    /// digest reads every file and says so).
    pub fn keep_quietly(&mut self, path: &str) {
        if self.sources.contains_key(path) {
            return;
        }
        let read = crate::fs::open_regular_seen(&self.root.join(path)).and_then(|mut file| {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut bytes).map(|_| bytes)
        });
        if let Ok(bytes) = read {
            let (text, _) = decode_lossy_owned(bytes);
            self.sources.insert(path.to_owned(), SourceFile::new(text));
        }
    }

    /// Reads a text file the way the Registry does: UTF-8 with replacement, with a warning
    /// when bytes had to be replaced.
    pub fn read_lossy(&mut self, path: &str) -> Option<String> {
        let bytes = self.read(path)?;
        let (text, replaced) = decode_lossy_owned(bytes);
        if replaced {
            self.diagnostics.push(
                Diagnostic::new(
                    Code::InvalidUtf8,
                    path,
                    format!("`{path}` is not valid UTF-8; invalid bytes read as U+FFFD"),
                )
                .help("save the file as UTF-8"),
            );
        }
        Some(text)
    }
}

/// Checks that `root` is a real directory: `Ok(false)` when it is a symbolic link (ROOT-1).
fn check_root_directory(root: &Path) -> Result<bool, ValidateError> {
    // `pkg/` would resolve a link at `pkg`: look at the entry itself.
    let metadata = match crate::fs::entry_path(root).symlink_metadata() {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(ValidateError::NotFound(root.to_path_buf()));
        }
        Err(error) => return Err(ValidateError::Io(root.to_path_buf(), error)),
    };
    if metadata.file_type().is_symlink() {
        return Ok(false);
    }
    if !metadata.is_dir() {
        return Err(ValidateError::NotADirectory(root.to_path_buf()));
    }
    Ok(true)
}

fn linked_root() -> Diagnostic {
    Diagnostic::new(Code::Symlink, ".", "the package root is a symbolic link")
        .help("use the folder the link points to")
}

/// The tree contract of a package digest (DG-1): FBD-1…3 always, and when `layout` the root
/// layout — ROOT-1, ROOT-2's two required files (`expert-squad.jsonc`, `README.md`) and ROOT-3,
/// nothing about `selector.md` or what the manifest says. `squad digest` checks the layout; the
/// raw variant used for drift and installed packages does not. A root `.opencorvus-meta.json`
/// is excluded, not refused (the installer writes it). Returns the captured tree and the
/// contract's diagnostics.
pub fn capture_contract(
    root: &Path,
    layout: bool,
) -> Result<(Tree, Vec<Diagnostic>), ValidateError> {
    capture_contract_below(root, layout, true)
}

/// [`capture_contract`], with the root's own check (ROOT-1) only when `check_root`: a
/// directory the caller holds open and reads through `/proc/self/fd/<n>` (a link by nature)
/// was checked when it was opened.
fn capture_contract_below(
    root: &Path,
    layout: bool,
    check_root: bool,
) -> Result<(Tree, Vec<Diagnostic>), ValidateError> {
    let mut diagnostics = Diagnostics::default();
    if check_root && !check_root_directory(root)? {
        diagnostics.push(linked_root());
        return Ok((Tree::default(), diagnostics.into_sorted()));
    }
    let tree = tree::capture(root, &mut diagnostics);
    let mut context = Context {
        root,
        tree,
        diagnostics,
        sources: HashMap::new(),
        overlay: None,
    };
    if layout {
        layout::check_root(&mut context);
    }
    let diagnostics = context
        .diagnostics
        .into_sorted()
        .into_iter()
        .filter(|diagnostic| diagnostic.code != Code::HostMetadataInSource)
        .collect();
    Ok((context.tree, diagnostics))
}

/// Why a folder has no contract digest.
#[derive(Debug, thiserror::Error)]
pub enum ContractDigestError {
    #[error(transparent)]
    Root(ValidateError),
    /// The tree breaks the contract: every diagnostic of the capture, at least one an error,
    /// so a caller can render them all.
    #[error("{}", first_error(.0))]
    Contract(Vec<Diagnostic>),
    #[error(transparent)]
    Read(DigestError),
}

fn first_error(diagnostics: &[Diagnostic]) -> &str {
    diagnostics
        .iter()
        .find(|diagnostic| diagnostic.severity() == Severity::Error)
        .map_or("the tree breaks the contract", |d| &d.message)
}

/// The package digest of the folder `root` under the tree contract ([`capture_contract`] with
/// `layout`), refused when the contract reports an error: `squad digest`, `squad verify`,
/// `squad version check` and the installer's check of an installed directory all mean this
/// one rule by "the digest of a folder".
pub fn contract_digest(
    root: &Path,
    layout: bool,
    with_files: bool,
    progress: &Progress,
) -> Result<TreeDigest, ContractDigestError> {
    contract_digest_below(root, layout, with_files, progress, true)
}

/// The raw [`contract_digest`] (no root layout) of a directory the caller opened as a real
/// directory and reads through a path that reaches that very directory (`fs::dir::Dir::
/// reading_path`): the root is not looked at again.
pub fn open_directory_digest(
    reading_path: &Path,
    with_files: bool,
) -> Result<TreeDigest, ContractDigestError> {
    contract_digest_below(reading_path, false, with_files, &Progress::default(), false)
}

fn contract_digest_below(
    root: &Path,
    layout: bool,
    with_files: bool,
    progress: &Progress,
    check_root: bool,
) -> Result<TreeDigest, ContractDigestError> {
    let (tree, diagnostics) =
        capture_contract_below(root, layout, check_root).map_err(ContractDigestError::Root)?;
    if crate::diag::has_errors(&diagnostics) {
        return Err(ContractDigestError::Contract(diagnostics));
    }
    let paths: Vec<String> = tree.files().map(|entry| entry.path.clone()).collect();
    digest_folder_with_progress(root, &paths, with_files, progress)
        .map_err(ContractDigestError::Read)
}

/// What a folder given as "a package" turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// It holds a manifest, or is no folder at all (validation says what is wrong with it).
    Package,
    /// It holds no manifest, but some of its direct children do: a folder of packages, in
    /// name order.
    Packages(Vec<PathBuf>),
    /// A folder without a manifest, in it or in any child: not a package.
    NotAPackage,
}

/// Tells a package folder from a folder of packages and from a folder that is neither, so
/// that no command reports a folder that has no manifest as a broken package.
pub fn locate(path: &Path) -> Located {
    if !path.is_dir() || path.join(MANIFEST_FILE).symlink_metadata().is_ok() {
        return Located::Package;
    }
    let mut children: Vec<PathBuf> = match crate::fs::read_dir(path) {
        Ok(entries) => entries
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
            .map(|entry| entry.path())
            .filter(|child| child.join(MANIFEST_FILE).is_file())
            .collect(),
        Err(_) => return Located::Package,
    };
    if children.is_empty() {
        return Located::NotAPackage;
    }
    children.sort();
    Located::Packages(children)
}

/// Why a package archive could not be validated.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveValidateError {
    /// The archive itself is refused (not a ZIP, unsafe entries, beyond the limits).
    #[error(transparent)]
    Archive(crate::archive::reader::ArchiveError),
    #[error("cannot unpack into `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
}

/// Validates the package in the archive at `archive` (a `squad pack` ZIP, read within the
/// reference's import limits, with every archive check install makes): unpacked into a private
/// temporary folder, validated there, and the folder removed. The report's files are paths
/// inside the archive's package.
pub fn validate_archive(archive: &Path) -> Result<Report, ArchiveValidateError> {
    let package = crate::archive::reader::read_package_file(
        archive,
        &crate::archive::reader::Limits::REFERENCE,
    )
    .map_err(ArchiveValidateError::Archive)?;
    let scratch = crate::fs::ScratchDirectory::new("validate")
        .map_err(|error| ArchiveValidateError::Io(std::env::temp_dir(), error))?;
    for (path, bytes) in &package.files {
        scratch
            .write(path, bytes)
            .map_err(|error| ArchiveValidateError::Io(scratch.path().join(path), error))?;
    }
    let mut report = validate(scratch.path())
        .map_err(|error| ArchiveValidateError::Io(scratch.path().to_path_buf(), error.into()))?;
    report.root = archive.to_path_buf();
    Ok(report)
}

/// Validates the package folder at `root`. Writes nothing.
pub fn validate(root: &Path) -> Result<Report, ValidateError> {
    validate_files(root, root, Some(root), None, &|| false)
}

/// Validates the package folder at `root` as an editor shows it: the texts of `overlay` read
/// instead of those files' bytes (see [`Overlay`]). `cancelled` is asked between the steps;
/// once it says yes, the check stops with [`ValidateError::Cancelled`] (a newer edit made its
/// result useless). Writes nothing.
pub fn validate_overlay(
    root: &Path,
    overlay: &Overlay,
    cancelled: &dyn Fn() -> bool,
) -> Result<Report, ValidateError> {
    validate_files(root, root, Some(root), Some(overlay), cancelled)
}

/// Validates `copy`, the installer's private copy of a package: the files are read from the
/// copy, the report names `shown` (the folder or archive the user gave), and the location
/// rule is checked on `folder`, the source folder, when there is one.
pub fn validate_copy(
    copy: &Path,
    shown: &Path,
    folder: Option<&Path>,
) -> Result<Report, ValidateError> {
    validate_files(copy, shown, folder, None, &|| false)
}

fn validate_files(
    root: &Path,
    shown: &Path,
    location: Option<&Path>,
    overlay: Option<&Overlay>,
    cancelled: &dyn Fn() -> bool,
) -> Result<Report, ValidateError> {
    let stop = || {
        if cancelled() {
            Err(ValidateError::Cancelled(shown.to_path_buf()))
        } else {
            Ok(())
        }
    };
    let mut diagnostics = Diagnostics::default();
    if !check_root_directory(root)? {
        diagnostics.push(linked_root());
        return Ok(Report {
            root: shown.to_path_buf(),
            diagnostics: diagnostics.into_sorted(),
            sources: HashMap::new(),
            identity: None,
            tree: Tree::default(),
            manifest: None,
            resources: Default::default(),
            modules: Default::default(),
        });
    }
    if let Some(location) = location {
        layout::check_source_location(location, &mut diagnostics);
    }
    let mut tree = tree::capture(root, &mut diagnostics);
    if let Some(overlay) = overlay {
        add_unsaved_files(root, &mut tree, overlay);
    }
    stop()?;
    let mut context = Context {
        root,
        tree,
        diagnostics,
        sources: HashMap::new(),
        overlay,
    };
    paths::check(&context.tree, &mut context.diagnostics);
    layout::check_root(&mut context);
    layout::check_archive_limits(&mut context);
    let manifest = read_manifest(&mut context);
    stop()?;
    layout::check_texts(&mut context, manifest.as_ref());
    if let Some(manifest) = &manifest {
        layout::check_agent_directories(&mut context, manifest);
    }
    let id = manifest
        .as_ref()
        .and_then(|manifest| manifest.id.as_ref())
        .map(|id| id.value.clone());
    let discovered = resources::discover(&mut context, id.as_deref().unwrap_or("<id>"));
    stop()?;
    if let (Some(manifest), Some(id)) = (&manifest, &id) {
        projections::check(&mut context, manifest, id, &discovered);
    }
    stop()?;
    let modules = tools::check(&mut context, &discovered);
    advice::check(&mut context, manifest.as_ref(), &discovered);
    let identity = manifest.as_ref().and_then(|manifest| {
        Some(Identity {
            namespace: manifest.namespace.as_ref()?.value.clone(),
            id: manifest.id.as_ref()?.value.clone(),
            version: manifest.version.as_ref()?.value.clone(),
        })
    });
    Ok(Report {
        root: shown.to_path_buf(),
        diagnostics: context.diagnostics.into_sorted(),
        sources: context.sources,
        identity,
        tree: context.tree,
        manifest,
        resources: discovered,
        modules,
    })
}

/// Adds to `tree` the overlay's files that do not exist on disk (an editor's buffer not saved
/// yet), with their folders, as the tree capture would have found them once saved. A path that
/// names anything on disk (a link, a folder, a file the capture refused) is left as captured.
fn add_unsaved_files(root: &Path, tree: &mut Tree, overlay: &Overlay) {
    let mut added = false;
    for path in overlay.paths() {
        let portable = !path.is_empty()
            && path.split('/').all(|part| {
                !part.is_empty() && part != "." && part != ".." && !part.contains('\\')
            });
        if !portable || tree.get(path).is_some() {
            continue;
        }
        if crate::fs::symlink_metadata(root.join(path)).is_ok() {
            continue;
        }
        let mut blocked = false;
        let mut folder = String::new();
        let parts: Vec<&str> = path.split('/').collect();
        let mut folders = Vec::new();
        for part in &parts[..parts.len() - 1] {
            if !folder.is_empty() {
                folder.push('/');
            }
            folder.push_str(part);
            match tree.get(&folder) {
                Some(entry) if entry.is_file() => blocked = true,
                Some(_) => {}
                None if crate::fs::symlink_metadata(root.join(&folder)).is_ok() => blocked = true,
                None => folders.push(folder.clone()),
            }
        }
        if blocked {
            continue;
        }
        for folder in folders {
            tree.entries.push(tree::Entry {
                path: folder,
                kind: tree::EntryKind::Directory,
            });
        }
        tree.entries.push(tree::Entry {
            path: path.to_owned(),
            kind: tree::EntryKind::File,
        });
        added = true;
    }
    if added {
        tree.entries.sort_by(|a, b| a.path.cmp(&b.path));
        tree.entries.dedup_by(|a, b| a.path == b.path);
    }
}

fn read_manifest(context: &mut Context) -> Option<Manifest> {
    if !context.tree.is_file(MANIFEST_FILE) {
        return None;
    }
    let text = context.read_lossy(MANIFEST_FILE)?;
    let manifest = manifest::check(&text, &mut context.diagnostics);
    context
        .sources
        .insert(MANIFEST_FILE.to_owned(), SourceFile::new(text));
    manifest
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn the_digest_contract_asks_for_the_two_root_files_only() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(MANIFEST_FILE), "{}").unwrap();
        let (_, diagnostics) = capture_contract(dir.path(), true).unwrap();
        let codes: Vec<(Code, &str)> = diagnostics
            .iter()
            .map(|d| (d.code, d.file.as_str()))
            .collect();
        assert_eq!(codes, [(Code::MissingFile, "README.md")]);
        fs::write(dir.path().join("README.md"), "").unwrap();
        let (_, diagnostics) = capture_contract(dir.path(), true).unwrap();
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        // Validation still asks for selector.md.
        let report = validate(dir.path()).unwrap();
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.code == Code::MissingFile && d.file == "selector.md"),
            "{:?}",
            report.diagnostics
        );
    }

    #[test]
    fn contract_digest_is_the_folder_digest_and_refuses_a_broken_contract() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("README.md"), "# R\n").unwrap();
        let tree = contract_digest(dir.path(), false, true, &Progress::default()).unwrap();
        assert_eq!(
            tree.package_digest,
            crate::digest::digest_entries(&[("README.md".to_owned(), b"# R\n".to_vec())])
        );
        assert_eq!(tree.files.len(), 1);
        fs::create_dir(dir.path().join("runtime")).unwrap();
        let error = contract_digest(dir.path(), false, false, &Progress::default()).unwrap_err();
        assert!(
            matches!(&error, ContractDigestError::Contract(diagnostics) if !diagnostics.is_empty()),
            "{error}"
        );
        assert!(error.to_string().contains("runtime"), "{error}");
    }

    fn release_review() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("release-review");
        let fixture =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("registry-fixtures/valid/release-review");
        let mut pending = vec![PathBuf::new()];
        while let Some(relative) = pending.pop() {
            fs::create_dir_all(root.join(&relative)).unwrap();
            for entry in fs::read_dir(fixture.join(&relative)).unwrap() {
                let entry = entry.unwrap();
                let child = relative.join(entry.file_name());
                if entry.file_type().unwrap().is_dir() {
                    pending.push(child);
                } else {
                    fs::copy(entry.path(), root.join(&child)).unwrap();
                }
            }
        }
        (dir, root)
    }

    fn errors(report: &Report) -> Vec<(Code, String)> {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity() == Severity::Error)
            .map(|d| (d.code, d.file.clone()))
            .collect()
    }

    #[test]
    fn an_overlay_is_read_instead_of_the_files() {
        let (_dir, root) = release_review();
        let clean = validate_overlay(&root, &Overlay::default(), &|| false).unwrap();
        assert!(clean.is_valid(), "{:?}", clean.diagnostics);
        let manifest = fs::read_to_string(root.join(MANIFEST_FILE)).unwrap();
        let mut overlay = Overlay::default();
        overlay.insert(
            MANIFEST_FILE,
            manifest.replace("\"bash\", \"read\"", "\"bash\", \"raed\""),
        );
        let report = validate_overlay(&root, &overlay, &|| false).unwrap();
        assert_eq!(
            errors(&report),
            [(Code::UnknownBuiltInTool, MANIFEST_FILE.to_owned())]
        );
        // The text the diagnostics point into is the overlay's.
        assert!(report.sources[MANIFEST_FILE].text.contains("raed"));
        // Nothing was written.
        assert_eq!(
            fs::read_to_string(root.join(MANIFEST_FILE)).unwrap(),
            manifest
        );
    }

    #[test]
    fn an_unsaved_file_of_the_overlay_is_part_of_the_tree() {
        let (_dir, root) = release_review();
        let manifest = fs::read_to_string(root.join(MANIFEST_FILE)).unwrap();
        let projected = manifest.replacen(
            "\"package_skill_refs\": [\"release-review/shared/release-method\"]",
            "\"package_skill_refs\": [\"release-review/shared/new-method\", \"release-review/shared/release-method\"]",
            1,
        );
        assert_ne!(projected, manifest);
        let mut overlay = Overlay::default();
        overlay.insert(MANIFEST_FILE, projected);
        let dangling = validate_overlay(&root, &overlay, &|| false).unwrap();
        assert_eq!(
            errors(&dangling),
            [(Code::DanglingRef, MANIFEST_FILE.to_owned())]
        );
        overlay.insert(
            "skills/new-method/SKILL.md",
            "---\nname: new-method\ndescription: How to apply the new method.\n---\n\n# New Method\n",
        );
        let report = validate_overlay(&root, &overlay, &|| false).unwrap();
        assert!(report.is_valid(), "{:?}", report.diagnostics);
        assert!(report.tree.is_file("skills/new-method/SKILL.md"));
        assert!(!root.join("skills/new-method").exists());
        // A path that climbs out, or that a file on disk blocks, is not added.
        overlay.insert("../outside.md", "x");
        overlay.insert("README.md/inside.md", "x");
        let report = validate_overlay(&root, &overlay, &|| false).unwrap();
        assert!(report.tree.get("../outside.md").is_none());
        assert!(report.tree.get("README.md/inside.md").is_none());
    }

    #[test]
    fn a_cancelled_check_stops_with_cancelled() {
        let (_dir, root) = release_review();
        let asked = std::cell::Cell::new(0);
        let result = validate_overlay(&root, &Overlay::default(), &|| {
            asked.set(asked.get() + 1);
            asked.get() > 2
        });
        assert!(
            matches!(result, Err(ValidateError::Cancelled(_))),
            "{result:?}"
        );
        assert_eq!(asked.get(), 3);
    }
}
