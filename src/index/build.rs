//! `squad index build SOURCE… -o DIR`: a static index of what registries, folders of archives
//! and trees of squads hold.
//!
//! Every version is read from its source: a registry's manifest and config (its package
//! digest, archive SHA-256 and size), its signatures (referrers), and the archive itself,
//! validated, for the capability summary; an archive's bytes, validated; a tree's packages,
//! packed. The index is then written beside what it was (`DIR`): only the files whose bytes
//! change are rewritten, the files the previous root named and the new one does not are
//! removed, and the root last, with a version one above the previous root's.
//!
//! Incremental: a version the previous index lists with the same location, package digest and
//! archive SHA-256 keeps its entry (capability summary, publish time, yanked flag) without its
//! archive being read again. That reuses the index's own earlier output, written by the same
//! publisher, and only for what the source still says byte for byte; its files are checked
//! against its root before anything is reused, and `--full` reads every archive again.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::capability::Summary;
use crate::digest::Sha256Digest;
use crate::http::Client;
use crate::oci::{Access, Credentials, Reference, Repository};
use crate::version::{Timestamp, Version};

use super::IndexError;
use super::format::{
    FileMeta, ROOT, ROOT_SIGNATURE, ROOT_TYPE, Root, SCHEMA_VERSION, Shard, SquadFile,
    VersionEntry, shard_path, squad_path,
};

/// Where an index's squads come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Every repository under `oci://HOST/BASE` (`BASE/<namespace>/<id>`), through the
    /// registry's catalog API.
    Registry(Reference),
    /// A file listing repositories, `oci://HOST/BASE/<namespace>/<id>` one per line (`#`
    /// comments), for registries whose catalog is closed.
    RegistryList(PathBuf),
    /// A folder of `squad pack` archives (`*.zip`), or one archive.
    Archives(PathBuf),
    /// A package folder or a folder of packages, packed here.
    Tree(PathBuf),
}

/// The largest repository list read, and the most repositories one build reads.
const MAX_LIST_BYTES: u64 = 4 * 1024 * 1024;
const MAX_REPOSITORIES: usize = 100_000;
/// The most archives one folder may hold for a build.
const MAX_ARCHIVES: usize = 100_000;

impl Source {
    /// Reads a SOURCE argument: `oci://…`, a folder, an archive, or a list file.
    pub fn parse(text: &str) -> Result<Source, IndexError> {
        if crate::oci::reference::is_reference(text) {
            let base = Reference::parse(text).map_err(IndexError::Usage)?;
            if base.tag.is_some() || base.digest.is_some() {
                return Err(IndexError::Usage(format!(
                    "`{text}` names a tag or digest; an index source is a registry base (oci://HOST/BASE)"
                )));
            }
            return Ok(Source::Registry(base));
        }
        let path = PathBuf::from(text);
        if crate::snapshot::is_archive(&path) {
            return Ok(Source::Archives(path));
        }
        if path.is_file() {
            return Ok(Source::RegistryList(path));
        }
        if !path.is_dir() {
            return Err(IndexError::Source {
                path,
                message: "not a folder, an archive or a list of repositories".to_owned(),
            });
        }
        match crate::package::locate(&path) {
            crate::package::Located::Package | crate::package::Located::Packages(_) => {
                Ok(Source::Tree(path))
            }
            crate::package::Located::NotAPackage => Ok(Source::Archives(path)),
        }
    }

    /// The source as given.
    pub fn shown(&self) -> String {
        match self {
            Source::Registry(base) => base.to_string(),
            Source::RegistryList(path) | Source::Archives(path) | Source::Tree(path) => {
                path.display().to_string()
            }
        }
    }
}

/// How to build.
pub struct Options<'a> {
    pub output: PathBuf,
    pub client: &'a Client,
    /// Signs the root (`index.json.minisig`).
    pub signer: Option<&'a crate::sign::SecretKey>,
    /// Days until the root expires.
    pub expires_in_days: u32,
    /// `namespace/id@version` to mark yanked, and to mark no longer yanked.
    pub yank: Vec<String>,
    pub unyank: Vec<String>,
    /// Read every archive again, reusing nothing of the previous index.
    pub full: bool,
    /// Repositories or archives read at once.
    pub jobs: usize,
    pub now: Timestamp,
}

/// What a build did.
#[derive(Debug, Clone, Default)]
pub struct Built {
    pub output: PathBuf,
    pub version: u64,
    pub expires: String,
    pub squads: usize,
    pub versions: usize,
    /// Files written (their bytes changed or are new), the root last.
    pub written: Vec<String>,
    /// Files the previous root named and this one does not.
    pub removed: Vec<String>,
    /// Files whose bytes did not change.
    pub unchanged: usize,
    /// Versions whose archive was read (validated) by this build.
    pub read: usize,
    /// Versions whose entry was kept from the previous index.
    pub reused: usize,
    /// What was left out, and why (a tag that is not a squad, an invalid archive).
    pub skipped: Vec<String>,
    /// The key id that signed the root.
    pub signed_by: Option<String>,
}

/// One version as a source gave it.
struct Gathered {
    namespace: String,
    id: String,
    version: String,
    entry: VersionEntry,
    /// The version's manifest words, when its archive was read.
    about: Option<(Option<String>, Option<String>, Option<String>)>,
    /// A local archive to place in the index's `archives/` folder (its bytes, its path there).
    archive: Option<(Vec<u8>, String)>,
    source: String,
    /// Whether the entry was kept from the previous index (its archive not validated again).
    reused: bool,
}

/// The previous build's output, as far as it checks out against its own root.
#[derive(Default)]
struct Previous {
    root: Option<Root>,
    squads: BTreeMap<String, SquadFile>,
    /// `--full`: nothing derived from an archive is reused (publish times and yanked flags,
    /// which no archive says, still are).
    full: bool,
}

impl Previous {
    fn read(output: &Path) -> Result<Previous, IndexError> {
        let path = output.join(ROOT);
        let bytes = match crate::fs::read_regular(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Previous::default());
            }
            Err(error) => return Err(IndexError::Io(path, error)),
        };
        let root: Root = serde_json::from_slice(&bytes).map_err(|error| IndexError::Previous {
            path: path.clone(),
            message: error.to_string(),
        })?;
        let mut squads = BTreeMap::new();
        for (file, meta) in &root.files {
            if !file.starts_with("squads/") {
                continue;
            }
            // A file that is not what the root says is not reused: it is rebuilt.
            let Ok(bytes) = crate::fs::read_regular(&output.join(file)) else {
                continue;
            };
            if Sha256Digest::of(&bytes).hex() != meta.sha256 {
                continue;
            }
            if let Ok(squad) = serde_json::from_slice::<SquadFile>(&bytes) {
                squads.insert(squad.name(), squad);
            }
        }
        Ok(Previous {
            root: Some(root),
            squads,
            full: false,
        })
    }

    /// The previous entry of a version, to reuse instead of reading its archive again.
    fn reusable(&self, namespace: &str, id: &str, version: &str) -> Option<&VersionEntry> {
        if self.full {
            return None;
        }
        self.entry(namespace, id, version)
    }

    fn entry(&self, namespace: &str, id: &str, version: &str) -> Option<&VersionEntry> {
        self.squads
            .get(&format!("{namespace}/{id}"))?
            .versions
            .iter()
            .find(|entry| entry.version == version)
    }
}

/// What reading one archive found.
struct Judged {
    namespace: String,
    id: String,
    version: String,
    package_digest: Sha256Digest,
    about: (Option<String>, Option<String>, Option<String>),
    summary: Option<Summary>,
}

/// Reads an archive's bytes as `install` would (within the import limits, every entry judged,
/// the package validated on a private copy); with `summarise`, its capability summary too.
fn judge(bytes: &[u8], shown: &Path, summarise: bool) -> Result<Judged, String> {
    let limits = crate::archive::reader::Limits::REFERENCE;
    let package = crate::archive::reader::read_package(bytes, &limits)
        .map_err(|error| format!("not a usable package archive: {error}"))?;
    let manifest = package
        .files
        .iter()
        .find(|(path, _)| path == crate::manifest::MANIFEST_FILE)
        .map(|(_, bytes)| String::from_utf8_lossy(bytes).into_owned())
        .ok_or_else(|| "the archive holds no manifest".to_owned())?;
    let declared = crate::manifest::declared(&manifest).unwrap_or_default();
    let (Some(namespace), Some(id), Some(version)) =
        (declared.namespace, declared.id, declared.version)
    else {
        return Err("the manifest declares no namespace, id and version".to_owned());
    };
    let package_digest = crate::digest::digest_entries(&package.files);
    let summary = if summarise {
        let copy = crate::snapshot::of_archive_bytes(bytes, &crate::snapshot::scratch_parent())
            .map_err(|error| crate::error::chain(&error))?;
        let report = crate::package::validate_copy(copy.path(), shown, None)
            .map_err(|error| crate::error::chain(&error))?;
        if !report.is_valid() {
            let first = report
                .diagnostics
                .iter()
                .find(|diagnostic| diagnostic.severity() == crate::diag::Severity::Error)
                .map(|diagnostic| format!("{}: {}", diagnostic.code.as_str(), diagnostic.message))
                .unwrap_or_default();
            return Err(format!("the package is invalid ({first})"));
        }
        crate::capability::of(&report, &package_digest.hex())
            .map(|capabilities| Summary::of(&capabilities))
    } else {
        None
    };
    Ok(Judged {
        namespace,
        id,
        version,
        package_digest,
        about: super::format::about(&manifest),
        summary,
    })
}

/// The key ids of minisign signature texts (those that cannot be read are left out).
fn key_ids(signatures: &[String]) -> Vec<String> {
    let mut ids: Vec<String> = signatures
        .iter()
        .filter_map(|text| crate::sign::Signature::parse(text).ok())
        .map(|signature| signature.key_id.to_string())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Builds (or rebuilds) the index in `options.output` from `sources`.
pub fn build(sources: &[Source], options: &Options<'_>) -> Result<Built, IndexError> {
    let output = &options.output;
    crate::fs::create_dir_all(output).map_err(|error| IndexError::Io(output.clone(), error))?;
    let mut previous = Previous::read(output)?;
    previous.full = options.full;
    let mut built = Built {
        output: output.clone(),
        ..Built::default()
    };
    let mut gathered: Vec<Gathered> = Vec::new();
    for source in sources {
        let found = match source {
            Source::Registry(base) => {
                let repositories = catalog(options.client, base)?;
                from_registry(&repositories, options, &previous, &mut built)?
            }
            Source::RegistryList(path) => {
                let repositories = repository_list(path)?;
                from_registry(&repositories, options, &previous, &mut built)?
            }
            Source::Archives(path) => from_archives(path, options, &previous, &mut built)?,
            Source::Tree(path) => from_tree(path, options, &previous, &mut built)?,
        };
        gathered.extend(found);
    }
    write_index(gathered, options, &previous, built)
}

/// The repositories `BASE/<namespace>/<id>` under a registry base, from its catalog.
fn catalog(client: &Client, base: &Reference) -> Result<Vec<Reference>, IndexError> {
    let mut session = Repository::new(client, base, Access::Pull, Credentials::Configured);
    let names = session
        .catalog_all()
        .map_err(|error| IndexError::Share(crate::share::ShareError::Oci(error)))?;
    let prefix = if base.repository.is_empty() {
        String::new()
    } else {
        format!("{}/", base.repository)
    };
    let mut repositories = Vec::new();
    for name in names {
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        if crate::manifest::squad_name(rest).is_ok() && rest.matches('/').count() == 1 {
            let parts: Vec<&str> = rest.split('/').collect();
            repositories.push(base.join(&parts));
        }
    }
    Ok(repositories)
}

/// The repositories a list file names.
fn repository_list(path: &Path) -> Result<Vec<Reference>, IndexError> {
    let invalid = |message: String| IndexError::Source {
        path: path.to_path_buf(),
        message,
    };
    let metadata =
        crate::fs::metadata(path).map_err(|error| IndexError::Io(path.to_path_buf(), error))?;
    if metadata.len() > MAX_LIST_BYTES {
        return Err(invalid(format!(
            "{} bytes, more than the {MAX_LIST_BYTES} a list of repositories may be",
            metadata.len()
        )));
    }
    let bytes =
        crate::fs::read_regular(path).map_err(|error| IndexError::Io(path.to_path_buf(), error))?;
    let text = String::from_utf8(bytes).map_err(|_| invalid("not UTF-8 text".to_owned()))?;
    let mut repositories = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let reference = Reference::parse(line)
            .map_err(|error| invalid(format!("line {}: {error}", number + 1)))?;
        if reference.target().is_some() {
            return Err(invalid(format!(
                "line {}: a repository, without tag or digest",
                number + 1
            )));
        }
        repositories.push(reference);
        if repositories.len() > MAX_REPOSITORIES {
            return Err(invalid(format!(
                "more than {MAX_REPOSITORIES} repositories"
            )));
        }
    }
    Ok(repositories)
}

/// Every version of every repository, `options.jobs` repositories at once.
fn from_registry(
    repositories: &[Reference],
    options: &Options<'_>,
    previous: &Previous,
    built: &mut Built,
) -> Result<Vec<Gathered>, IndexError> {
    if repositories.len() > MAX_REPOSITORIES {
        return Err(IndexError::Usage(format!(
            "more than {MAX_REPOSITORIES} repositories to index"
        )));
    }
    let read = |repository: &Reference| one_repository(repository, options, previous);
    let mut gathered = Vec::new();
    for result in crate::jobs::map_jobs(options.jobs.max(1), repositories, &read) {
        let (found, skipped) = result?;
        built.skipped.extend(skipped);
        gathered.extend(found);
    }
    Ok(gathered)
}

type Found = (Vec<Gathered>, Vec<String>);

fn one_repository(
    repository: &Reference,
    options: &Options<'_>,
    previous: &Previous,
) -> Result<Found, IndexError> {
    let share = IndexError::Share;
    let mut session = Repository::new(
        options.client,
        repository,
        Access::Pull,
        Credentials::Configured,
    );
    let tags = session
        .tags()
        .map_err(|error| share(crate::share::ShareError::Oci(error)))?;
    let mut versions: Vec<Version> = tags
        .iter()
        .filter_map(|tag| Version::parse(tag).ok())
        .collect();
    versions.sort_by(|a, b| b.cmp(a));
    versions.dedup();
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    let name = format!(
        "{}/{}",
        repository.repository.rsplit('/').nth(1).unwrap_or_default(),
        repository.repository.rsplit('/').next().unwrap_or_default()
    );
    // The newest version's words are the squad's: kept from the previous index when it was
    // the newest there too, else read from its archive.
    let previous_newest = previous
        .squads
        .get(&name)
        .and_then(|file| file.versions.first())
        .map(|entry| entry.version.clone());
    for (position, parsed) in versions.into_iter().enumerate() {
        let version = parsed.to_string();
        // When the previous index had this version or a newer one as the squad's newest, its
        // words are the index's already.
        let needs_words = position == 0
            && previous_newest
                .as_deref()
                .and_then(|newest| Version::parse(newest).ok())
                .is_none_or(|newest| newest < parsed);
        let tagged = repository.with_tag(&version);
        let resolved = match crate::share::resolve(&mut session, &tagged) {
            Ok(resolved) => resolved,
            Err(crate::share::ShareError::Refused { message, .. }) => {
                skipped.push(format!("{tagged}: {}", crate::text::remote(&message, 300)));
                continue;
            }
            Err(error) => return Err(share(error)),
        };
        let config = &resolved.config;
        let location = resolved.pinned.to_string();
        let signatures =
            key_ids(&crate::share::signatures(&mut session, &resolved).map_err(share)?);
        let reusable = previous
            .reusable(&config.namespace, &config.id, &version)
            .filter(|entry| {
                entry.location == location
                    && entry.package_digest == config.package_digest
                    && entry.archive_sha256 == config.archive_sha256
            });
        let reused = reusable.is_some() && !needs_words;
        let (capabilities, about) = match reusable.filter(|_| !needs_words) {
            Some(entry) => (entry.capabilities.clone(), None),
            None => {
                let bytes = crate::share::download(&mut session, &resolved, &crate::share::Silent)
                    .map_err(share)?;
                crate::share::verify_archive(&resolved, &bytes).map_err(share)?;
                match judge(&bytes, Path::new(&location), reusable.is_none()) {
                    Ok(judged) => (
                        judged
                            .summary
                            .or_else(|| reusable.map(|entry| entry.capabilities.clone()))
                            .unwrap_or_default(),
                        Some(judged.about),
                    ),
                    Err(message) => {
                        skipped.push(format!("{location}: {message}"));
                        continue;
                    }
                }
            }
        };
        found.push(Gathered {
            namespace: config.namespace.clone(),
            id: config.id.clone(),
            version: version.clone(),
            entry: VersionEntry {
                version,
                package_digest: config.package_digest.clone(),
                archive_sha256: config.archive_sha256.clone(),
                archive_bytes: config.archive_bytes,
                location,
                signatures,
                published: String::new(),
                yanked: false,
                capabilities,
            },
            about,
            archive: None,
            source: repository.to_string(),
            reused,
        });
    }
    Ok((found, skipped))
}

/// The archives of a folder (or one archive), `options.jobs` at once.
fn from_archives(
    path: &Path,
    options: &Options<'_>,
    previous: &Previous,
    built: &mut Built,
) -> Result<Vec<Gathered>, IndexError> {
    let archives: Vec<PathBuf> = if path.is_dir() {
        let mut archives: Vec<PathBuf> = crate::fs::read_dir(path)
            .map_err(|error| IndexError::Io(path.to_path_buf(), error))?
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| crate::snapshot::is_archive(path))
            .collect();
        archives.sort();
        archives
    } else {
        vec![path.to_path_buf()]
    };
    if archives.len() > MAX_ARCHIVES {
        return Err(IndexError::Source {
            path: path.to_path_buf(),
            message: format!("more than {MAX_ARCHIVES} archives"),
        });
    }
    let read = |archive: &PathBuf| one_archive(archive, previous);
    let mut gathered = Vec::new();
    for result in crate::jobs::map_jobs(options.jobs.max(1), &archives, &read) {
        match result? {
            Ok(one) => gathered.push(one),
            Err(skipped) => built.skipped.push(skipped),
        }
    }
    Ok(gathered)
}

fn one_archive(
    archive: &Path,
    previous: &Previous,
) -> Result<Result<Gathered, String>, IndexError> {
    let bytes = crate::snapshot::read_archive(archive).map_err(|error| IndexError::Source {
        path: archive.to_path_buf(),
        message: crate::error::chain(&error),
    })?;
    let sha256 = Sha256Digest::of(&bytes).hex();
    let shown = archive.display().to_string();
    let first = match judge(&bytes, archive, false) {
        Ok(judged) => judged,
        Err(message) => return Ok(Err(format!("{shown}: {message}"))),
    };
    let file_name = crate::pack::default_file_name(&crate::package::Identity {
        namespace: first.namespace.clone(),
        id: first.id.clone(),
        version: first.version.clone(),
    });
    let location = format!("archives/{}/{file_name}", first.namespace);
    let reusable = previous
        .reusable(&first.namespace, &first.id, &first.version)
        .filter(|entry| {
            entry.location == location
                && entry.archive_sha256 == sha256
                && entry.package_digest == first.package_digest.hex()
        })
        .cloned();
    let reused = reusable.is_some();
    let (capabilities, judged) = match reusable {
        Some(entry) => (entry.capabilities, first),
        None => match judge(&bytes, archive, true) {
            Ok(judged) => (judged.summary.clone().unwrap_or_default(), judged),
            Err(message) => return Ok(Err(format!("{shown}: {message}"))),
        },
    };
    if crate::manifest::squad_name(&format!("{}/{}", judged.namespace, judged.id)).is_err()
        || Version::parse(&judged.version).is_err()
    {
        return Ok(Err(format!("{shown}: not a valid identity")));
    }
    let mut signature_path = crate::fs::entry_path(archive).into_os_string();
    signature_path.push(".minisig");
    let signatures = match crate::sign::keys::read_small(Path::new(&signature_path)) {
        Ok(text) => key_ids(&[text]),
        Err(_) => Vec::new(),
    };
    Ok(Ok(Gathered {
        namespace: judged.namespace.clone(),
        id: judged.id.clone(),
        version: judged.version.clone(),
        entry: VersionEntry {
            version: judged.version.clone(),
            package_digest: judged.package_digest.hex(),
            archive_sha256: sha256,
            archive_bytes: bytes.len() as u64,
            location: location.clone(),
            signatures,
            published: String::new(),
            yanked: false,
            capabilities,
        },
        about: Some(judged.about),
        archive: Some((bytes, location)),
        source: shown,
        reused,
    }))
}

/// The packages of a tree, packed into a private directory and read as archives.
fn from_tree(
    path: &Path,
    options: &Options<'_>,
    previous: &Previous,
    built: &mut Built,
) -> Result<Vec<Gathered>, IndexError> {
    let tree = crate::tree::find(path).map_err(|error| IndexError::Source {
        path: path.to_path_buf(),
        message: error.to_string(),
    })?;
    let scratch = crate::fs::ScratchDirectory::new("index")
        .map_err(|error| IndexError::Io(std::env::temp_dir(), error))?;
    let limits = crate::archive::reader::Limits::REFERENCE;
    let outcomes = crate::pack::pack_tree(&tree.packages, Some(scratch.path()), true, &limits)
        .map_err(|error| IndexError::Source {
            path: path.to_path_buf(),
            message: crate::error::chain(&error),
        })?;
    for outcome in &outcomes {
        if let Err(failure) = &outcome.result {
            built
                .skipped
                .push(format!("{}: {}", outcome.shown(), failure.chain()));
        }
    }
    from_archives(scratch.path(), options, previous, built)
}

/// Groups the versions by squad, merges them with what the previous index says (publish
/// times, yanked flags), and writes every file whose bytes change, the root last.
fn write_index(
    gathered: Vec<Gathered>,
    options: &Options<'_>,
    previous: &Previous,
    mut built: Built,
) -> Result<Built, IndexError> {
    let output = &options.output;
    let now = options.now.to_string();
    let mut squads: BTreeMap<String, Vec<Gathered>> = BTreeMap::new();
    for one in gathered {
        let name = format!("{}/{}", one.namespace, one.id);
        let versions = squads.entry(name.clone()).or_default();
        if let Some(first) = versions.iter().find(|other| other.version == one.version) {
            if first.entry.package_digest != one.entry.package_digest {
                return Err(IndexError::Conflict(Box::new(super::Conflicting {
                    name,
                    version: one.version,
                    first: first.entry.package_digest.clone(),
                    first_source: first.source.clone(),
                    second: one.entry.package_digest,
                    second_source: one.source,
                })));
            }
            continue;
        }
        versions.push(one);
    }
    let yanks = |list: &[String]| -> Result<BTreeSet<(String, String)>, IndexError> {
        list.iter()
            .map(|text| {
                let (name, version) = text.split_once('@').ok_or_else(|| {
                    IndexError::Usage(format!("`{text}` is not `<namespace>/<id>@<version>`"))
                })?;
                Ok((name.to_owned(), version.to_owned()))
            })
            .collect()
    };
    let (yank, unyank) = (yanks(&options.yank)?, yanks(&options.unyank)?);
    for (name, version) in yank.iter().chain(&unyank) {
        let known = squads
            .get(name)
            .is_some_and(|versions| versions.iter().any(|one| one.version == *version));
        if !known {
            return Err(IndexError::Usage(format!(
                "{name}@{version} is not in the index, so it cannot be yanked or unyanked"
            )));
        }
    }
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut archives: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut shards: BTreeMap<String, Shard> = BTreeMap::new();
    for (name, mut versions) in squads {
        versions.sort_by(|a, b| {
            let order = |v: &str| Version::parse(v).ok();
            order(&b.version).cmp(&order(&a.version))
        });
        let (namespace, id) = (versions[0].namespace.clone(), versions[0].id.clone());
        let previous_file = previous.squads.get(&name);
        // The newest version's words; when its archive was not read (its entry was kept), the
        // words the previous index had for the squad.
        let about = match &versions[0].about {
            Some(about) => about.clone(),
            None => previous_file.map_or((None, None, None), |file| {
                (
                    file.name.clone(),
                    file.label.clone(),
                    file.description.clone(),
                )
            }),
        };
        let mut entries = Vec::new();
        for mut one in versions {
            let before = previous
                .entry(&namespace, &id, &one.version)
                .filter(|entry| entry.package_digest == one.entry.package_digest);
            one.entry.published =
                before.map_or_else(|| now.clone(), |entry| entry.published.clone());
            let key = (name.clone(), one.version.clone());
            one.entry.yanked = if unyank.contains(&key) {
                false
            } else {
                yank.contains(&key) || before.is_some_and(|entry| entry.yanked)
            };
            if one.reused {
                built.reused += 1;
            } else {
                built.read += 1;
            }
            if let Some((bytes, location)) = one.archive.take() {
                archives.insert(location, bytes);
            }
            entries.push(one.entry);
        }
        built.versions += entries.len();
        let file = SquadFile {
            schema_version: SCHEMA_VERSION,
            namespace: namespace.clone(),
            id: id.clone(),
            name: about.0,
            label: about.1,
            description: about.2,
            versions: entries,
        };
        for (word, fields) in file.words() {
            shards
                .entry(shard_path(&word))
                .or_insert_with(|| Shard {
                    schema_version: SCHEMA_VERSION,
                    words: BTreeMap::new(),
                })
                .words
                .entry(word)
                .or_default()
                .push((name.clone(), fields));
        }
        files.insert(squad_path(&namespace, &id), file.render());
        built.squads += 1;
    }
    for (path, shard) in shards {
        files.insert(path, shard.render());
    }
    // The archives the index points at, then the files, then the root: a client that reads the
    // new root finds everything it names.
    let previous_archives: BTreeSet<String> = previous
        .squads
        .values()
        .flat_map(|file| &file.versions)
        .map(|entry| entry.location.clone())
        .filter(|location| location.starts_with("archives/"))
        .collect();
    let mut unsynced = Vec::new();
    for (location, bytes) in &archives {
        if write_if_changed(output, location, bytes)? {
            unsynced.push(output.join(location));
        }
    }
    let mut root_files = BTreeMap::new();
    for (path, bytes) in &files {
        if write_if_changed(output, path, bytes)? {
            unsynced.push(output.join(path));
            built.written.push(path.clone());
        } else {
            built.unchanged += 1;
        }
        root_files.insert(
            path.clone(),
            FileMeta {
                sha256: Sha256Digest::of(bytes).hex(),
                bytes: bytes.len() as u64,
            },
        );
    }
    let version = previous.root.as_ref().map_or(1, |root| root.version + 1);
    let root = Root {
        schema_version: SCHEMA_VERSION,
        kind: ROOT_TYPE.to_owned(),
        version,
        built: now.clone(),
        expires: options
            .now
            .plus(i64::from(options.expires_in_days) * 86_400)
            .to_string(),
        squads: built.squads,
        files: root_files,
    };
    let root_bytes = root.render();
    // Every file the root names on disk before the root that names them.
    crate::fs::sync_files(&unsynced).map_err(|error| IndexError::Io(output.clone(), error))?;
    write_if_changed_synced(output, ROOT, &root_bytes)?;
    built.written.push(ROOT.to_owned());
    let signature_path = output.join(ROOT_SIGNATURE);
    match options.signer {
        Some(key) => {
            let signature = crate::sign::minisig::sign(key, &root_bytes, &root.signature_comment())
                .map_err(|error| IndexError::Usage(format!("signing the root: {error}")))?;
            write_if_changed_synced(output, ROOT_SIGNATURE, signature.text().as_bytes())?;
            built.written.push(ROOT_SIGNATURE.to_owned());
            built.signed_by = Some(key.public.id.to_string());
        }
        None => match crate::fs::remove_file(&signature_path) {
            Ok(()) => built.removed.push(ROOT_SIGNATURE.to_owned()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(IndexError::Io(signature_path, error)),
        },
    }
    // What the previous root named and this one does not, and archives no longer pointed at.
    let stale: Vec<String> = previous
        .root
        .iter()
        .flat_map(|root| root.files.keys())
        .filter(|path| !files.contains_key(*path))
        .cloned()
        .chain(
            previous_archives
                .into_iter()
                .filter(|location| !archives.contains_key(location)),
        )
        .collect();
    for path in stale {
        let full = output.join(&path);
        match crate::fs::remove_file(&full) {
            Ok(()) => built.removed.push(path),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(IndexError::Io(full, error)),
        }
    }
    built.version = version;
    built.expires = root.expires;
    Ok(built)
}

/// Writes `bytes` at `output/path` atomically (renamed into place whole, synced later with the
/// rest, before the root) unless the file holds them already; returns whether it wrote.
fn write_if_changed(output: &Path, path: &str, bytes: &[u8]) -> Result<bool, IndexError> {
    write_file(output, path, bytes, crate::fs::replace_file_unsynced)
}

/// [`write_if_changed`], synced before it returns: the root and its signature.
fn write_if_changed_synced(output: &Path, path: &str, bytes: &[u8]) -> Result<bool, IndexError> {
    write_file(output, path, bytes, crate::fs::replace_file)
}

fn write_file(
    output: &Path,
    path: &str,
    bytes: &[u8],
    write: fn(&Path, &[u8]) -> std::io::Result<()>,
) -> Result<bool, IndexError> {
    let full = output.join(path);
    if crate::fs::read_regular(&full).is_ok_and(|existing| existing == bytes) {
        return Ok(false);
    }
    let parent = crate::fs::parent_directory(&full).to_path_buf();
    crate::fs::create_dir_all(&parent).map_err(|error| IndexError::Io(parent, error))?;
    write(&full, bytes).map_err(|error| IndexError::Io(full, error))?;
    Ok(true)
}
