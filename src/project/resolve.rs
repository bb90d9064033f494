//! Each source kind, resolved to what the lock records and to bytes ready to install, and a
//! locked squad's bytes obtained again and checked against the lock: from the cache when it has
//! them, else from the source. Bytes that differ from the lock (a moved tag, a changed folder or
//! archive, a tampered cache entry) are refused, naming the squad and both digests.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::cache::{Cache, CacheError};
use crate::digest::Sha256Digest;
use crate::http::{Client, Url};
use crate::install::receipts::Origin;
use crate::oci::{Access, Credentials, Reference, Repository};
use crate::package::Identity;
use crate::share::exact::{self, Expected, Rules};
use crate::share::link::InstallLink;
use crate::share::{self, Resolved, ShareError, Transfers};

use super::declared::{Declaration, Name};
use super::lockfile::Locked;
use super::signed;
use super::source::Source;
use super::{Failure, Project};

/// Where a squad's bytes are, ready for the install transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Artifact {
    Folder(PathBuf),
    Archive(PathBuf),
}

/// A source resolved: who the package is, what to lock, and its bytes.
#[derive(Debug, Clone)]
pub struct Resolution {
    pub identity: Identity,
    pub locked: Locked,
    pub artifact: Artifact,
}

/// What resolving and fetching use.
pub struct Context<'a> {
    pub project: &'a Project,
    pub cache: &'a Cache,
    /// `None` when offline.
    pub client: Option<&'a Client>,
    pub transfers: &'a dyn Transfers,
    /// The project's signature policy (from `squads.jsonc`).
    pub policy: &'a crate::sign::Policy,
}

/// The receipt's origin of a registry squad: the pinned reference and its manifest digest.
pub fn origin(declaration: &Declaration, locked: &Locked) -> Option<Origin> {
    match declaration.source {
        Source::Registry(_) => locked.manifest_digest().map(|digest| Origin {
            reference: locked.resolved.clone(),
            manifest_digest: digest.to_owned(),
        }),
        _ => None,
    }
}

/// Refuses a package that is not the squad its entry names.
pub fn check_name(name: &Name, identity: &Identity, source: &str) -> Result<(), Failure> {
    if identity.namespace == name.namespace && identity.id == name.id {
        return Ok(());
    }
    Err(Failure::refused(
        name.to_string(),
        format!(
            "`{source}` holds {}/{}, not {name}",
            identity.namespace, identity.id
        ),
    )
    .hint("declare it under its own name: `squad add` writes the name the package declares"))
}

fn share_failure(label: &str, error: ShareError) -> Failure {
    Failure {
        hint: error.hint(),
        ..Failure::of(label, &error, error.class())
    }
}

fn download_failure(label: &str, error: exact::DownloadError) -> Failure {
    Failure::of(label, &error, error.class())
}

/// The `sha256:` of a layer descriptor, as a digest.
fn layer_sha256(label: &str, resolved: &Resolved) -> Result<Sha256Digest, Failure> {
    resolved
        .layer
        .digest
        .strip_prefix("sha256:")
        .and_then(Sha256Digest::parse)
        .ok_or_else(|| {
            Failure::refused(
                label,
                format!("{}: the layer digest is not a sha256", resolved.pinned),
            )
        })
}

impl Context<'_> {
    fn client(&self, label: &str, why: impl FnOnce() -> String) -> Result<&Client, Failure> {
        self.client.ok_or_else(|| {
            Failure::operational(label, why())
                .hint("run it once without --offline to fill the cache")
        })
    }

    /// What `--offline` says of a locked archive the cache does not have.
    fn missing(&self, locked: &Locked, sha256: &Sha256Digest) -> String {
        format!(
            "its archive ({}, sha256 {sha256}) is not in the cache at `{}` (--offline)",
            locked.version,
            self.cache.root().display()
        )
    }

    /// The cached archive, checked; a tampered entry is refused (and removed, so a later
    /// download can replace it).
    fn cached(&self, label: &str, sha256: &Sha256Digest) -> Result<Option<PathBuf>, Failure> {
        self.cache.get(sha256).map_err(|error| match error {
            CacheError::Corrupt { .. } => Failure::refused(label, crate::error::chain(&error))
                .hint("the entry was removed; run the command again to download it anew"),
            CacheError::Io(..) => Failure::of(label, &error, error.class()),
        })
    }

    fn keep(&self, label: &str, sha256: &Sha256Digest, bytes: &[u8]) -> Result<PathBuf, Failure> {
        self.cache
            .put(sha256, bytes)
            .map_err(|error| Failure::operational(label, crate::error::chain(&error)))
    }

    /// Resolves a declaration anew (a squad not yet locked, `add`, `update`). With `newest`, a
    /// registry source resolves to its newest version whatever version it declares.
    pub fn resolve(
        &self,
        label: &str,
        declaration: &Declaration,
        newest: bool,
    ) -> Result<Resolution, Failure> {
        let mut resolution = self.resolve_source(label, declaration, newest)?;
        // A registry squad was judged before its download; the others are judged here.
        if self.policy.applies() && resolution.locked.signed_by.is_none() {
            let signatures = self.signatures_beside(label, &declaration.source)?;
            let locked = &resolution.locked;
            let statement = signed::statement(
                &resolution.identity.namespace,
                &resolution.identity.id,
                &locked.version,
                locked.package_digest,
            );
            resolution.locked.signed_by =
                Some(signed::judge(self.policy, label, &statement, &signatures)?);
        }
        Ok(resolution)
    }

    /// Under a policy that requires signatures, the key id that vouches for a locked squad:
    /// the one the lock records while the policy still trusts it (no network needed), else
    /// its signatures are found and judged again. Without such a policy, what the lock says.
    pub fn check_locked(
        &self,
        label: &str,
        name: &Name,
        declaration: &Declaration,
        locked: &Locked,
    ) -> Result<Option<String>, Failure> {
        if !self.policy.applies() {
            return Ok(locked.signed_by.clone());
        }
        let today = crate::env::today_utc();
        if let Some(id) = locked
            .signed_by
            .as_deref()
            .and_then(crate::sign::KeyId::parse)
        {
            if self.policy.still_trusts(&name.namespace, id, today).is_ok() {
                return Ok(Some(id.to_string()));
            }
        }
        let signatures = match &declaration.source {
            Source::Registry(_) => {
                let digest = locked.manifest_digest().ok_or_else(|| {
                    Failure::refused(label, "squads.lock records no manifest digest")
                })?;
                let client = self.client(label, || {
                    "checking its signature needs the registry (--offline)".to_owned()
                })?;
                let reference = Reference::parse(&locked.resolved)
                    .map_err(|message| Failure::refused(label, message))?;
                let mut session =
                    Repository::new(client, &reference, Access::Pull, Credentials::Configured);
                share::signature::find(&mut session, digest)
                    .map_err(|error| share_failure(label, error))?
            }
            other => self.signatures_beside(label, other)?,
        };
        let statement = signed::statement(
            &name.namespace,
            &name.id,
            &locked.version,
            locked.package_digest,
        );
        signed::judge(self.policy, label, &statement, &signatures).map(Some)
    }

    /// The signature published beside a source that is not a registry: `<path>.minisig` beside
    /// a folder or an archive, `<url>.minisig` beside an archive's URL (an `https://` source or
    /// an install link's archive).
    fn signatures_beside(&self, label: &str, source: &Source) -> Result<Vec<String>, Failure> {
        let url = match source {
            Source::Folder(path) | Source::Archive(path) => {
                return signed::sibling_signatures(label, &self.project.root.join(path));
            }
            Source::Https(url) => url,
            Source::Link(link) => &link.archive_url,
            Source::Registry(_) => return Ok(Vec::new()),
        };
        let client = self.client(label, || {
            "checking its signature needs the network (--offline)".to_owned()
        })?;
        exact::signature_beside(client, url)
            .map(|found| found.into_iter().collect())
            .map_err(|error| download_failure(label, error))
    }

    fn resolve_source(
        &self,
        label: &str,
        declaration: &Declaration,
        newest: bool,
    ) -> Result<Resolution, Failure> {
        match &declaration.source {
            Source::Folder(path) => self.resolve_folder(label, path, declaration),
            Source::Archive(path) => self.resolve_archive(label, path, declaration),
            Source::Registry(reference) => {
                self.resolve_registry(label, reference, declaration, newest)
            }
            Source::Https(url) => {
                let sha256 = declaration.sha256.ok_or_else(|| {
                    Failure::refused(label, "an https:// source needs its `sha256`")
                })?;
                let expected = Expected {
                    sha256,
                    bytes: None,
                    rules: Rules::Pinned,
                };
                let (path, bytes) = self.exact_archive(label, url, &expected, declaration)?;
                let (identity, package_digest) = share::identify_archive(&bytes)
                    .map_err(|message| Failure::refused(label, format!("{url}: {message}")))?;
                let locked = Locked {
                    source: declaration.source_text.clone(),
                    resolved: url.to_string(),
                    version: identity.version.clone(),
                    package_digest,
                    archive_sha256: Some(sha256),
                    archive_bytes: Some(bytes.len() as u64),
                    signed_by: None,
                };
                Ok(Resolution {
                    identity,
                    locked,
                    artifact: Artifact::Archive(path),
                })
            }
            Source::Link(link) => self.resolve_link(label, link, declaration),
        }
    }

    /// The bytes of a locked squad, checked against the lock.
    pub fn fetch(
        &self,
        label: &str,
        declaration: &Declaration,
        locked: &Locked,
    ) -> Result<Artifact, Failure> {
        match &declaration.source {
            Source::Folder(path) => {
                let folder = self.project.root.join(path);
                let shown = self.project.display(path);
                if !folder.is_dir() {
                    return Err(Failure::operational(
                        label,
                        format!("the folder `{shown}` does not exist"),
                    ));
                }
                let digest = crate::install::directory_digest(&folder)
                    .map_err(|problem| Failure::refused(label, format!("`{shown}`: {problem}")))?;
                if digest != locked.package_digest {
                    return Err(Failure::refused(
                        label,
                        format!(
                            "the folder `{shown}` changed since it was locked: its package digest is {digest}, squads.lock has {}",
                            locked.package_digest
                        ),
                    )
                    .hint(format!("`squad update {label}` locks what the folder holds now")));
                }
                Ok(Artifact::Folder(folder))
            }
            Source::Archive(path) => {
                let archive = self.project.root.join(path);
                let shown = self.project.display(path);
                let sha256 = Sha256Digest::of_file(&archive).map_err(|error| {
                    Failure::operational(label, format!("cannot read `{shown}`: {error}"))
                })?;
                if Some(sha256) != locked.archive_sha256 {
                    return Err(Failure::refused(
                        label,
                        format!(
                            "the archive `{shown}` changed since it was locked: its SHA-256 is {sha256}, squads.lock has {}",
                            locked
                                .archive_sha256
                                .map_or("none".to_owned(), |sha| sha.hex())
                        ),
                    )
                    .hint(format!("`squad update {label}` locks the archive as it is now")));
                }
                Ok(Artifact::Archive(archive))
            }
            Source::Registry(reference) => self.fetch_registry(label, reference, locked),
            Source::Https(url) => self.fetch_exact(label, url, Rules::Pinned, locked),
            Source::Link(link) => {
                self.fetch_exact(label, &link.archive_url, Rules::InstallLink, locked)
            }
        }
    }

    fn resolve_folder(
        &self,
        label: &str,
        path: &str,
        declaration: &Declaration,
    ) -> Result<Resolution, Failure> {
        let folder = self.project.root.join(path);
        let shown = self.project.display(path);
        let report = crate::package::validate(&folder)
            .map_err(|error| Failure::operational(label, format!("`{shown}`: {error}")))?;
        let identity = match (&report.identity, report.is_valid()) {
            (Some(identity), true) => identity.clone(),
            _ => {
                let mut failure =
                    Failure::refused(label, format!("the package `{shown}` is invalid"))
                        .hint("run `squad validate` on it for details");
                failure.report = Some(Box::new(report));
                return Err(failure);
            }
        };
        let files: Vec<String> = report
            .tree
            .files()
            .map(|entry| entry.path.clone())
            .collect();
        let package_digest = crate::digest::digest_folder(&folder, &files, false)
            .map_err(|error| Failure::operational(label, format!("`{shown}`: {}", error.message)))?
            .package_digest;
        Ok(Resolution {
            locked: Locked {
                source: declaration.source_text.clone(),
                resolved: path.to_owned(),
                version: identity.version.clone(),
                package_digest,
                archive_sha256: None,
                archive_bytes: None,
                signed_by: None,
            },
            identity,
            artifact: Artifact::Folder(folder),
        })
    }

    fn resolve_archive(
        &self,
        label: &str,
        path: &str,
        declaration: &Declaration,
    ) -> Result<Resolution, Failure> {
        let archive = self.project.root.join(path);
        let shown = self.project.display(path);
        let limit = crate::archive::reader::Limits::REFERENCE.archive_bytes;
        let size = crate::fs::metadata(&archive)
            .map_err(|error| {
                Failure::operational(label, format!("cannot read `{shown}`: {error}"))
            })?
            .len();
        if size > limit {
            return Err(Failure::refused(
                label,
                format!("`{shown}` is {size} bytes, more than the import limit of {limit}"),
            ));
        }
        let bytes = crate::fs::read(&archive).map_err(|error| {
            Failure::operational(label, format!("cannot read `{shown}`: {error}"))
        })?;
        let (identity, package_digest) = share::identify_archive(&bytes)
            .map_err(|message| Failure::refused(label, format!("`{shown}`: {message}")))?;
        Ok(Resolution {
            locked: Locked {
                source: declaration.source_text.clone(),
                resolved: path.to_owned(),
                version: identity.version.clone(),
                package_digest,
                archive_sha256: Some(Sha256Digest::of(&bytes)),
                archive_bytes: Some(bytes.len() as u64),
                signed_by: None,
            },
            identity,
            artifact: Artifact::Archive(archive),
        })
    }

    fn resolve_registry(
        &self,
        label: &str,
        reference: &Reference,
        declaration: &Declaration,
        newest: bool,
    ) -> Result<Resolution, Failure> {
        let client = self.client(label, || {
            format!(
                "{} is not in squads.lock, and resolving it needs the registry (--offline)",
                declaration.source_text
            )
        })?;
        let target = match (&declaration.version, newest) {
            (_, true) => reference.repository_only(),
            (Some(version), false) => reference.with_tag(version),
            (None, false) => reference.clone(),
        };
        let mut session = Repository::new(client, &target, Access::Pull, Credentials::Configured);
        let resolved =
            share::resolve(&mut session, &target).map_err(|error| share_failure(label, error))?;
        let sha256 = layer_sha256(label, &resolved)?;
        let config = &resolved.config;
        let package_digest = Sha256Digest::parse(&config.package_digest).ok_or_else(|| {
            Failure::refused(
                label,
                format!("{}: the package digest is not a SHA-256", resolved.pinned),
            )
        })?;
        // Judged before the download: a refused squad costs no archive transfer.
        let signed_by = match self.policy.applies() {
            true => {
                let signatures = share::signatures(&mut session, &resolved)
                    .map_err(|error| share_failure(label, error))?;
                let statement = signed::statement(
                    &config.namespace,
                    &config.id,
                    &config.version,
                    package_digest,
                );
                Some(signed::judge(self.policy, label, &statement, &signatures)?)
            }
            false => None,
        };
        let path = self.registry_archive(label, &mut session, &resolved, &sha256)?;
        Ok(Resolution {
            identity: Identity {
                namespace: config.namespace.clone(),
                id: config.id.clone(),
                version: config.version.clone(),
            },
            locked: Locked {
                source: declaration.source_text.clone(),
                resolved: resolved.pinned.to_string(),
                version: config.version.clone(),
                package_digest,
                archive_sha256: Some(sha256),
                archive_bytes: Some(resolved.layer.size),
                signed_by,
            },
            artifact: Artifact::Archive(path),
        })
    }

    /// A registry archive from the cache, or downloaded, verified and cached.
    fn registry_archive(
        &self,
        label: &str,
        session: &mut Repository<'_>,
        resolved: &Resolved,
        sha256: &Sha256Digest,
    ) -> Result<PathBuf, Failure> {
        if let Some(path) = self.cached(label, sha256)? {
            return Ok(path);
        }
        let bytes = share::download(session, resolved, self.transfers)
            .map_err(|error| share_failure(label, error))?;
        share::verify_archive(resolved, &bytes).map_err(|error| share_failure(label, error))?;
        self.keep(label, sha256, &bytes)
    }

    fn fetch_registry(
        &self,
        label: &str,
        reference: &Reference,
        locked: &Locked,
    ) -> Result<Artifact, Failure> {
        let sha256 = locked.archive_sha256.ok_or_else(|| {
            Failure::refused(
                label,
                "squads.lock records no archive SHA-256 for a registry squad",
            )
        })?;
        if let Some(path) = self.cached(label, &sha256)? {
            return Ok(Artifact::Archive(path));
        }
        let client = self.client(label, || self.missing(locked, &sha256))?;
        // The declared reference, at the locked version: a tag that moved is noticed.
        let target = match &reference.digest {
            Some(_) => reference.clone(),
            None => reference.repository_only().with_tag(&locked.version),
        };
        let mut session = Repository::new(client, &target, Access::Pull, Credentials::Configured);
        let resolved =
            share::resolve(&mut session, &target).map_err(|error| share_failure(label, error))?;
        let locked_manifest = locked.manifest_digest().unwrap_or("none");
        let layer = layer_sha256(label, &resolved)?;
        if resolved.manifest_digest != locked_manifest || layer != sha256 {
            return Err(Failure::refused(
                label,
                format!(
                    "{target} is manifest {} now (archive sha256 {layer}), but squads.lock has manifest {locked_manifest} (archive sha256 {sha256}): the tag was moved to other bytes, which are refused",
                    resolved.manifest_digest
                ),
            )
            .hint(format!(
                "if the new bytes are intended, `squad update {label}` locks them"
            )));
        }
        self.registry_archive(label, &mut session, &resolved, &sha256)
            .map(Artifact::Archive)
    }

    /// An exact archive (an https:// source or an install link): from the cache, or downloaded
    /// with the reference's rules and cached. Returns its path and bytes.
    fn exact_archive(
        &self,
        label: &str,
        url: &Url,
        expected: &Expected,
        declaration: &Declaration,
    ) -> Result<(PathBuf, Vec<u8>), Failure> {
        if let Some(path) = self.cached(label, &expected.sha256)? {
            let bytes = crate::fs::read(&path).map_err(|error| {
                Failure::operational(label, format!("`{}`: {error}", path.display()))
            })?;
            if let Some(declared) = expected.bytes.filter(|size| *size != bytes.len() as u64) {
                return Err(Failure::refused(
                    label,
                    format!(
                        "the archive with SHA-256 {} is {} bytes, not the {declared} declared",
                        expected.sha256,
                        bytes.len()
                    ),
                ));
            }
            return Ok((path, bytes));
        }
        let client = self.client(label, || {
            format!(
                "{} is not in the cache, and downloading it needs the network (--offline)",
                declaration.source_text
            )
        })?;
        let bytes = exact::download(client, url, expected, label, self.transfers)
            .map_err(|error| download_failure(label, error))?;
        let path = self.keep(label, &expected.sha256, &bytes)?;
        Ok((path, bytes))
    }

    fn fetch_exact(
        &self,
        label: &str,
        url: &Url,
        rules: Rules,
        locked: &Locked,
    ) -> Result<Artifact, Failure> {
        let sha256 = locked.archive_sha256.ok_or_else(|| {
            Failure::refused(
                label,
                "squads.lock records no archive SHA-256 for this squad",
            )
        })?;
        if let Some(path) = self.cached(label, &sha256)? {
            return Ok(Artifact::Archive(path));
        }
        let client = self.client(label, || self.missing(locked, &sha256))?;
        let expected = Expected {
            sha256,
            bytes: locked.archive_bytes,
            rules,
        };
        let bytes = exact::download(client, url, &expected, label, self.transfers)
            .map_err(|error| download_failure(label, error))?;
        self.keep(label, &sha256, &bytes).map(Artifact::Archive)
    }

    fn resolve_link(
        &self,
        label: &str,
        link: &InstallLink,
        declaration: &Declaration,
    ) -> Result<Resolution, Failure> {
        let expected = Expected {
            sha256: link.archive_sha256,
            bytes: Some(link.archive_bytes),
            rules: Rules::InstallLink,
        };
        let (path, bytes) = self.exact_archive(label, &link.archive_url, &expected, declaration)?;
        let (identity, package_digest) = share::identify_archive(&bytes).map_err(|message| {
            Failure::refused(label, format!("{}: {message}", link.archive_url))
        })?;
        let claimed = format!("{}/{} {}", link.namespace, link.id, link.version);
        let found = format!(
            "{}/{} {}",
            identity.namespace, identity.id, identity.version
        );
        if claimed != found || package_digest != link.package_digest {
            return Err(Failure::refused(
                label,
                format!(
                    "the install link promises {claimed} with package digest {}, but its archive holds {found} with package digest {package_digest}",
                    link.package_digest
                ),
            ));
        }
        Ok(Resolution {
            locked: Locked {
                source: declaration.source_text.clone(),
                resolved: link.archive_url.to_string(),
                version: identity.version.clone(),
                package_digest,
                archive_sha256: Some(link.archive_sha256),
                archive_bytes: Some(link.archive_bytes),
                signed_by: None,
            },
            identity,
            artifact: Artifact::Archive(path),
        })
    }
}

/// One progress display for many downloads at once: the bytes of every transfer add up.
pub struct Downloads<'a> {
    display: &'a (dyn Transfers + Sync),
    total: AtomicU64,
    done: AtomicU64,
}

impl<'a> Downloads<'a> {
    pub fn new(display: &'a (dyn Transfers + Sync)) -> Downloads<'a> {
        Downloads {
            display,
            total: AtomicU64::new(0),
            done: AtomicU64::new(0),
        }
    }

    /// The [`Transfers`] of one download.
    pub fn job(&self) -> Download<'_, 'a> {
        Download {
            downloads: self,
            seen: AtomicU64::new(0),
        }
    }

    /// Erases the display.
    pub fn end(&self) {
        self.display.end();
    }
}

/// One download of [`Downloads`].
pub struct Download<'d, 'a> {
    downloads: &'d Downloads<'a>,
    seen: AtomicU64,
}

impl Transfers for Download<'_, '_> {
    fn begin(&self, _label: &str, total: u64) {
        let downloads = self.downloads;
        let total = downloads.total.fetch_add(total, Ordering::Relaxed) + total;
        downloads.display.begin("Downloading", total);
        downloads
            .display
            .advance(downloads.done.load(Ordering::Relaxed));
    }

    fn advance(&self, done: u64) {
        let before = self.seen.swap(done, Ordering::Relaxed);
        let downloads = self.downloads;
        let now = downloads
            .done
            .fetch_add(done.saturating_sub(before), Ordering::Relaxed)
            + done.saturating_sub(before);
        downloads.display.advance(now);
    }

    fn end(&self) {}
}
