//! From a source to judged bytes ready to install: the one road every command that brings a
//! squad in takes (`install`, `add`, `sync`, `update`).
//!
//! [`acquire`](Context::acquire) takes any [`Source`] kind, resolves it (a registry's tag, digest or newest
//! version), fetches its bytes through squad's [`Cache`] (a registry archive, an `https://`
//! archive, an install link's archive) or reads them once from the disk (a folder, an
//! archive), makes them a private copy that is validated and digested
//! ([`crate::install::Ready`]), and judges that copy: what the caller pinned ([`Pins`]: the
//! lock's digests, `--expect-*` flags, an install link's promises) and the project's
//! signature policy, over the statement of the very bytes that will be installed. A registry
//! squad is judged on what its manifest and config claim before its archive is downloaded,
//! and the archive is then checked to be what they claim. The install transaction is handed
//! that copy and nothing else ([`crate::install::install_ready`]).
//!
//! [`vouch`](Context::vouch) is the same judgement for a squad already installed as locked:
//! its signatures checked over the installed digest, whatever the lock records.
//!
//! Nothing a repository carries is evidence here: a lock's digests are pins the bytes must
//! match, never proof that they are signed; a `.minisig` is material for the policy to verify;
//! a local path is resolved and kept within the project's repository ([`Local`]).

mod local;
mod named;
pub mod signatures;
pub mod source;

use std::path::{Path, PathBuf};

use crate::cache::{Cache, CacheError};
use crate::digest::Sha256Digest;
use crate::http::{Client, Url};
use crate::install::receipts::Origin;
use crate::install::{Exact, InstallError, Ready};
use crate::oci::{Access, Credentials, Reference, Repository};
use crate::package::{Identity, Report};
use crate::share::exact::{self, DownloadError, Expected, Rules};
use crate::share::link::InstallLink;
use crate::share::{self, Resolved, ShareError, Transfers};
use crate::sign::{KeyId, Policy};

pub use local::Local;
pub use named::{Named, argument_or_installed};
pub use source::Source;

/// Why a source could not be acquired. Every variant names the source, the file or the server.
#[derive(Debug, thiserror::Error)]
pub enum AcquireError {
    /// The source cannot be used as written (a path out of the project, a bad reference).
    #[error("{0}")]
    Source(String),
    #[error(transparent)]
    Share(ShareError),
    #[error(transparent)]
    Download(DownloadError),
    #[error(transparent)]
    Cache(CacheError),
    #[error(transparent)]
    Install(InstallError),
    /// The bytes are not what was pinned, or the policy refused them.
    #[error("{message}")]
    Refused {
        message: String,
        hint: Option<String>,
    },
    /// `--offline`, and what is needed is not in the cache.
    #[error("{0}")]
    Offline(String),
    /// An argument that names no path and no installed package.
    #[error("{0}")]
    NotFound(String),
    #[error("cannot read `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
}

impl AcquireError {
    pub fn class(&self) -> crate::error::Class {
        use crate::error::Class;
        match self {
            AcquireError::Source(_) | AcquireError::Refused { .. } => Class::Refused,
            AcquireError::Share(error) => error.class(),
            AcquireError::Download(error) => error.class(),
            AcquireError::Cache(error) => error.class(),
            AcquireError::Install(error) => error.class(),
            AcquireError::Offline(_) | AcquireError::NotFound(_) | AcquireError::Io(..) => {
                Class::Failed
            }
        }
    }

    /// What to do about it, when squad can tell.
    pub fn hint(&self) -> Option<String> {
        match self {
            AcquireError::Share(error) => error.hint(),
            AcquireError::Refused { hint, .. } => hint.clone(),
            AcquireError::Offline(_) => {
                Some("run it once without --offline to fill the cache".to_owned())
            }
            AcquireError::Cache(CacheError::Corrupt { .. }) => {
                Some("the entry was removed; run the command again to download it anew".to_owned())
            }
            AcquireError::Install(InstallError::Invalid(_)) => {
                Some("run `squad validate` on it for details".to_owned())
            }
            AcquireError::Install(InstallError::OutsideProject(_)) => {
                Some(crate::install::scope::OutsideProject::HINT.to_owned())
            }
            _ => None,
        }
    }

    /// The diagnostics of a package found invalid.
    pub fn report(&self) -> Option<&Report> {
        match self {
            AcquireError::Install(InstallError::Invalid(report)) => Some(report),
            AcquireError::Share(ShareError::Invalid(report)) => Some(report),
            _ => None,
        }
    }

    pub fn into_report(self) -> Option<Box<Report>> {
        match self {
            AcquireError::Install(InstallError::Invalid(report))
            | AcquireError::Share(ShareError::Invalid(report)) => Some(report),
            _ => None,
        }
    }
}

impl From<ShareError> for AcquireError {
    fn from(error: ShareError) -> AcquireError {
        AcquireError::Share(error)
    }
}

impl From<InstallError> for AcquireError {
    fn from(error: InstallError) -> AcquireError {
        AcquireError::Install(error)
    }
}

/// A squad of the project's index reaches acquiring only once the project resolved it to a
/// source (project::by_index): the index is the project's, not the source's.
fn index_unresolved() -> AcquireError {
    AcquireError::Source(
        "a squad declared with `\"index\": true` is resolved through the project's index first"
            .to_owned(),
    )
}

impl From<crate::snapshot::SnapshotError> for AcquireError {
    fn from(error: crate::snapshot::SnapshotError) -> AcquireError {
        AcquireError::Install(error.into())
    }
}

/// What the bytes must be: each checked when given.
#[derive(Debug, Clone, Default)]
pub struct Pins {
    /// Namespace, id, version and package digest (ZIP-8).
    pub exact: Exact,
    pub archive_sha256: Option<Sha256Digest>,
    pub archive_bytes: Option<u64>,
    /// A registry squad's manifest digest.
    pub manifest_digest: Option<String>,
    /// Who pinned them, for messages: `squads.lock`, or the command line.
    pub by: &'static str,
    /// How to take the new bytes when they are wanted (`squad update NAME`).
    pub update_hint: Option<String>,
}

/// One source to acquire.
pub struct Request<'r> {
    /// How messages name the squad (`namespace/id`, or the source).
    pub label: &'r str,
    pub source: &'r Source,
    /// For a registry source without tag or digest: the version wanted.
    pub version: Option<&'r str>,
    /// For a registry source: its newest version, whatever it names.
    pub newest: bool,
    pub pins: &'r Pins,
}

/// A source acquired: the judged copy, and what a lock records of it.
#[derive(Debug)]
pub struct Acquired {
    pub ready: Ready,
    /// `oci://…@sha256:<manifest digest>`, the archive URL, or the local path.
    pub resolved: String,
    pub archive_sha256: Option<Sha256Digest>,
    pub archive_bytes: Option<u64>,
    /// The key whose signature verified, under a policy that requires signatures.
    pub signed_by: Option<KeyId>,
    /// A registry squad's reference and manifest digest, for the install receipt.
    pub origin: Option<Origin>,
    /// What is worth saying but refuses nothing: a tag that moved away from the locked bytes.
    pub warnings: Vec<String>,
}

impl Acquired {
    pub fn identity(&self) -> &Identity {
        &self.ready.identity
    }

    pub fn package_digest(&self) -> Sha256Digest {
        self.ready.package_digest()
    }

    /// The expectations its install is made with: exactly what was judged.
    pub fn exact(&self) -> Exact {
        let identity = self.identity();
        Exact {
            namespace: Some(identity.namespace.clone()),
            id: Some(identity.id.clone()),
            version: Some(identity.version.clone()),
            digest: Some(self.package_digest()),
        }
    }
}

/// What acquiring uses.
pub struct Context<'a> {
    /// `None`: nothing is cached (no cache directory can be told).
    pub cache: Option<&'a Cache>,
    /// `None` when offline: only the cache and local sources are used.
    pub client: Option<&'a Client>,
    pub transfers: &'a (dyn Transfers + Sync),
    /// The project's signature policy (the default policy asks nothing).
    pub policy: &'a Policy,
    /// Where private copies are made (`<R>/tmp`, on the scopes' file system).
    pub temporary: &'a Path,
    pub local: &'a Local,
    /// Whether the copies made are to be installed: a large one then starts its way to disk
    /// as soon as it is written ([`crate::install::ready`]); a look only reads it.
    pub installs: bool,
}

/// What [`Context::install`] did.
#[derive(Debug)]
pub struct Installed {
    pub receipt: crate::install::Receipt,
    /// A registry squad's reference and manifest digest.
    pub origin: Option<Origin>,
    /// The key that vouched for it, under a signature policy.
    pub signed_by: Option<KeyId>,
}

/// What a locked registry squad's tag names now ([`Context::locked_by_tag`]).
enum Tagged {
    /// The locked manifest itself, fetched through the tag.
    Locked(crate::oci::FetchedManifest),
    /// Another manifest, or none: the warning that says so.
    Moved(String),
    /// No tag to ask, or no answer to read.
    Unknown,
}

/// The `sha256:` of a layer descriptor, as a digest.
fn layer_sha256(resolved: &Resolved) -> Result<Sha256Digest, AcquireError> {
    resolved
        .layer
        .digest
        .strip_prefix("sha256:")
        .and_then(Sha256Digest::parse)
        .ok_or_else(|| AcquireError::Refused {
            message: format!("{}: the layer digest is not a sha256", resolved.pinned),
            hint: None,
        })
}

impl Context<'_> {
    fn client(&self, why: impl FnOnce() -> String) -> Result<&Client, AcquireError> {
        self.client.ok_or_else(|| AcquireError::Offline(why()))
    }

    /// The cached archive with this SHA-256, checked (a tampered entry is refused and removed).
    fn cached(&self, sha256: &Sha256Digest) -> Result<Option<Vec<u8>>, AcquireError> {
        match self.cache {
            Some(cache) => cache.get(sha256).map_err(AcquireError::Cache),
            None => Ok(None),
        }
    }

    fn keep(&self, sha256: &Sha256Digest, bytes: &[u8]) -> Result<(), AcquireError> {
        if let Some(cache) = self.cache {
            cache.put(sha256, bytes).map_err(AcquireError::Cache)?;
        }
        Ok(())
    }

    /// The private copy of archive bytes, validated and digested.
    fn ready_archive(&self, bytes: &[u8], shown: &Path) -> Result<Ready, AcquireError> {
        let copy = crate::snapshot::of_archive_bytes(bytes, self.temporary)?;
        Ok(crate::install::ready(copy, shown, None, self.installs)?)
    }

    /// Acquires one source: resolved, fetched, made a validated private copy, and judged
    /// against the pins and the signature policy.
    pub fn acquire(&self, request: &Request<'_>) -> Result<Acquired, AcquireError> {
        let mut acquired = match request.source {
            Source::Folder(path) => self.folder(request, path)?,
            Source::Archive(path) => self.archive(request, path)?,
            Source::Registry(reference) => self.registry(request, reference)?,
            Source::Https(url) => {
                let sha256 = request.pins.archive_sha256.ok_or_else(|| {
                    AcquireError::Source(format!(
                        "an {}:// archive source needs the SHA-256 of its archive (`sha256` in squads.jsonc, --sha256 on the command line)",
                        url.scheme()
                    ))
                })?;
                let expected = Expected {
                    sha256,
                    bytes: request.pins.archive_bytes,
                    rules: Rules::Pinned,
                };
                self.exact_archive(request, url, &expected)?
            }
            Source::Link(link) => self.link(request, link)?,
            Source::Index => return Err(index_unresolved()),
        };
        request
            .pins
            .exact
            .check(acquired.identity(), acquired.package_digest())?;
        if self.policy.applies() && acquired.signed_by.is_none() {
            let identity = acquired.identity().clone();
            acquired.signed_by = self.vouch(
                request.source,
                &identity,
                acquired.package_digest(),
                acquired
                    .origin
                    .as_ref()
                    .map(|origin| origin.manifest_digest.as_str()),
            )?;
        }
        Ok(acquired)
    }

    /// Acquires a source and installs exactly the copy that was judged, with what was judged
    /// (identity and package digest) as the install's expectations; `options` says where, and
    /// what an existing installation must be (`--expect`, `--replace`).
    pub fn install(
        &self,
        request: &Request<'_>,
        options: &crate::install::Options,
        on_wait: &mut dyn FnMut(&Path),
    ) -> Result<Installed, AcquireError> {
        self.install_judged(request, options, on_wait, &|_| Ok(()))
    }

    /// [`Context::install`], with one more judgement of the acquired copy before anything is
    /// installed (the project's capability policy).
    pub fn install_judged(
        &self,
        request: &Request<'_>,
        options: &crate::install::Options,
        on_wait: &mut dyn FnMut(&Path),
        judge: &dyn Fn(&Acquired) -> Result<(), AcquireError>,
    ) -> Result<Installed, AcquireError> {
        // A scope that cannot be written is refused before anything is fetched.
        options.locations().check_config_root()?;
        let acquired = self.acquire(request)?;
        judge(&acquired)?;
        let mut options = options.clone();
        options.exact = acquired.exact();
        options.origin = acquired.origin.clone();
        let receipt = crate::install::install_ready(acquired.ready, &options, on_wait)?;
        Ok(Installed {
            receipt,
            origin: acquired.origin,
            signed_by: acquired.signed_by,
        })
    }

    /// Under a policy that requires signatures, the key that vouches for a squad with this
    /// identity and package digest (already installed, or about to be): its signatures found
    /// where its source keeps them (for a registry squad, the referrers of `manifest_digest`
    /// in the declared repository; cached ones first) and verified over its statement. `None`
    /// without such a policy.
    pub fn vouch(
        &self,
        source: &Source,
        identity: &Identity,
        package_digest: Sha256Digest,
        manifest_digest: Option<&str>,
    ) -> Result<Option<KeyId>, AcquireError> {
        if !self.policy.applies() {
            return Ok(None);
        }
        let statement = signatures::statement(
            &identity.namespace,
            &identity.id,
            &identity.version,
            package_digest,
        );
        let local = match source {
            Source::Folder(path) | Source::Archive(path) => Some(self.local.resolve(path)?),
            _ => None,
        };
        if let Some(path) = local {
            let found = signatures::beside_path(&path)?;
            return signatures::judge(self.policy, &statement, &found).map(Some);
        }
        let key = signatures::cache_key(&statement);
        // Kept signatures first: they are verified like any other, and a refused one is looked
        // for anew.
        if let Some(kept) = self.cache.and_then(|cache| cache.signatures(&key)) {
            if let Ok(id) = signatures::judge(self.policy, &statement, &kept) {
                return Ok(Some(id));
            }
        }
        let client = self.client(|| {
            format!(
                "checking the signature of {} needs the network, and it is not in the cache (--offline)",
                statement.identity()
            )
        })?;
        let found = match source {
            Source::Registry(reference) => {
                let digest = manifest_digest.ok_or_else(|| AcquireError::Refused {
                    message: "no manifest digest is known to find its signatures by".to_owned(),
                    hint: None,
                })?;
                // The declared repository, never one a lock names.
                let subject = reference.repository_only().with_digest(digest);
                let mut session =
                    Repository::new(client, &subject, Access::Pull, Credentials::Configured);
                share::signature::find(&mut session, digest)?
            }
            Source::Https(url) => self.signature_beside_url(client, url)?,
            Source::Link(link) => self.signature_beside_url(client, &link.archive_url)?,
            Source::Index => return Err(index_unresolved()),
            Source::Folder(_) | Source::Archive(_) => unreachable!("judged above"),
        };
        let verdict = signatures::judge(self.policy, &statement, &found);
        if verdict.is_ok() {
            if let Some(cache) = self.cache {
                // The cache is a convenience: a signature that cannot be kept is found again.
                let _ = cache.keep_signatures(&key, &found);
            }
        }
        verdict.map(Some)
    }

    fn signature_beside_url(
        &self,
        client: &Client,
        url: &Url,
    ) -> Result<Vec<String>, AcquireError> {
        exact::signature_beside(client, url)
            .map(|found| found.into_iter().collect())
            .map_err(AcquireError::Download)
    }

    /// An installed package, read into a private copy and validated as a package that sits
    /// where installs go (the rule that a source folder is not inside runtime storage does not
    /// apply to what is installed there).
    pub fn installed(&self, root: &Path) -> Result<Acquired, AcquireError> {
        let copy = crate::snapshot::of_folder(&crate::fs::entry_path(root), self.temporary)?;
        let ready = crate::install::ready(copy, root, None, self.installs)?;
        Ok(Acquired {
            ready,
            resolved: root.display().to_string(),
            archive_sha256: None,
            archive_bytes: None,
            signed_by: None,
            origin: None,
            warnings: Vec::new(),
        })
    }

    fn folder(&self, request: &Request<'_>, path: &str) -> Result<Acquired, AcquireError> {
        let folder = self.local.resolve(path)?;
        let shown = self.local.display(path);
        let copy = crate::snapshot::of_folder(&crate::fs::entry_path(&folder), self.temporary)?;
        let ready = crate::install::ready(copy, Path::new(&shown), Some(&folder), self.installs)?;
        if let Some(pinned) = request.pins.exact.digest {
            if ready.package_digest() != pinned {
                return Err(AcquireError::Refused {
                    message: format!(
                        "the folder `{shown}` changed since it was locked: its package digest is {}, {} has {pinned}",
                        ready.package_digest(),
                        request.pins.by
                    ),
                    hint: request.pins.update_hint.clone(),
                });
            }
        }
        Ok(Acquired {
            ready,
            resolved: path.to_owned(),
            archive_sha256: None,
            archive_bytes: None,
            signed_by: None,
            origin: None,
            warnings: Vec::new(),
        })
    }

    fn archive(&self, request: &Request<'_>, path: &str) -> Result<Acquired, AcquireError> {
        let archive = self.local.resolve(path)?;
        let shown = self.local.display(path);
        let bytes = crate::snapshot::read_archive(&archive)?;
        let sha256 = Sha256Digest::of(&bytes);
        if let Some(pinned) = request
            .pins
            .archive_sha256
            .filter(|pinned| *pinned != sha256)
        {
            return Err(AcquireError::Refused {
                message: format!(
                    "the archive `{shown}` changed since it was locked: its SHA-256 is {sha256}, {} has {pinned}",
                    request.pins.by
                ),
                hint: request.pins.update_hint.clone(),
            });
        }
        let ready = self.ready_archive(&bytes, Path::new(&shown))?;
        Ok(Acquired {
            ready,
            resolved: path.to_owned(),
            archive_sha256: Some(sha256),
            archive_bytes: Some(bytes.len() as u64),
            signed_by: None,
            origin: None,
            warnings: Vec::new(),
        })
    }

    fn registry(
        &self,
        request: &Request<'_>,
        reference: &Reference,
    ) -> Result<Acquired, AcquireError> {
        let pins = request.pins;
        // Locked and cached: no network needed; the bytes are what the lock pinned.
        if let (Some(sha256), Some(manifest)) = (pins.archive_sha256, &pins.manifest_digest) {
            if let Some(bytes) = self.cached(&sha256)? {
                let pinned = reference.repository_only().with_digest(manifest);
                let ready = self.ready_archive(&bytes, Path::new(&pinned.to_string()))?;
                return Ok(Acquired {
                    ready,
                    resolved: pinned.to_string(),
                    archive_sha256: Some(sha256),
                    archive_bytes: Some(bytes.len() as u64),
                    signed_by: None,
                    origin: Some(Origin {
                        reference: pinned.to_string(),
                        manifest_digest: manifest.clone(),
                    }),
                    warnings: Vec::new(),
                });
            }
        }
        let client = self.client(|| match (&pins.manifest_digest, pins.archive_sha256) {
            (Some(_), Some(sha256)) => format!(
                "its archive ({}, sha256 {sha256}) is not in the cache{} (--offline)",
                pins.exact.version.as_deref().unwrap_or("?"),
                self.cache
                    .map(|cache| format!(" at `{}`", cache.root().display()))
                    .unwrap_or_default()
            ),
            _ => format!("resolving {reference} needs the registry (--offline)"),
        })?;
        let target = match (&pins.manifest_digest, request.newest, request.version) {
            // Locked: the locked manifest, in the declared repository, whatever a tag names now
            // (a tag moved to other bytes is a warning, never a blocker while the pinned bytes
            // are there): asked for through its tag first, by its digest otherwise.
            (Some(locked), _, _) => reference.repository_only().with_digest(locked),
            (None, true, _) => reference.repository_only(),
            (None, false, Some(version)) => reference.with_tag(version),
            (None, false, None) => reference.clone(),
        };
        let mut session = Repository::new(client, &target, Access::Pull, Credentials::Configured);
        let judge_first =
            self.policy.applies() || pins.exact.is_given() || pins.manifest_digest.is_some();
        let mut warnings = Vec::new();
        let (resolved, downloaded) = if judge_first {
            let tagged = match &pins.manifest_digest {
                Some(locked) => Self::locked_by_tag(&mut session, reference, pins, locked)?,
                None => Tagged::Unknown,
            };
            let resolved = match tagged {
                Tagged::Locked(fetched) => share::check_resolved(&mut session, &target, fetched),
                Tagged::Moved(warning) => {
                    warnings.push(warning);
                    share::resolve(&mut session, &target)
                }
                Tagged::Unknown => share::resolve(&mut session, &target),
            };
            let resolved = match (resolved, &pins.manifest_digest) {
                (Err(ShareError::NotFound(_)), Some(locked)) => {
                    return Err(self.locked_manifest_gone(&mut session, reference, pins, locked));
                }
                (resolved, _) => resolved?,
            };
            (resolved, None)
        } else {
            // Nothing to judge before the download: the archive comes with the config, at once.
            let (resolved, bytes) = share::fetch(client, &target, self.transfers)?;
            (resolved, Some(bytes))
        };
        let sha256 = layer_sha256(&resolved)?;
        if let Some(locked) = &pins.manifest_digest {
            let archive = pins
                .archive_sha256
                .map_or("none".to_owned(), |sha| sha.hex());
            if resolved.manifest_digest != *locked || Some(sha256) != pins.archive_sha256 {
                return Err(AcquireError::Refused {
                    message: format!(
                        "{target} is manifest {} with archive sha256 {sha256}, but {} has manifest {locked} with archive sha256 {archive}: the lock does not describe the bytes it pins, which are refused",
                        resolved.manifest_digest, pins.by
                    ),
                    hint: pins.update_hint.clone(),
                });
            }
        }
        let config = &resolved.config;
        let package_digest =
            Sha256Digest::parse(&config.package_digest).ok_or_else(|| AcquireError::Refused {
                message: format!("{}: the package digest is not a SHA-256", resolved.pinned),
                hint: None,
            })?;
        let claimed = Identity {
            namespace: config.namespace.clone(),
            id: config.id.clone(),
            version: config.version.clone(),
        };
        // Judged before the download: a refused squad costs no archive transfer.
        pins.exact.check(&claimed, package_digest)?;
        let signed_by = match self.policy.applies() {
            true => {
                let statement = signatures::statement(
                    &claimed.namespace,
                    &claimed.id,
                    &claimed.version,
                    package_digest,
                );
                let found = share::signatures(&mut session, &resolved)?;
                let id = signatures::judge(self.policy, &statement, &found)?;
                if let Some(cache) = self.cache {
                    let _ = cache.keep_signatures(&signatures::cache_key(&statement), &found);
                }
                Some(id)
            }
            false => None,
        };
        let bytes = match downloaded {
            Some(bytes) => bytes,
            None => match self.cached(&sha256)? {
                Some(bytes) => bytes,
                None => share::download(&mut session, &resolved, self.transfers)?,
            },
        };
        // The archive is the package the config names, whoever served it.
        share::verify_archive(&resolved, &bytes)?;
        self.keep(&sha256, &bytes)?;
        let ready = self.ready_archive(&bytes, Path::new(&resolved.pinned.to_string()))?;
        Ok(Acquired {
            ready,
            resolved: resolved.pinned.to_string(),
            archive_sha256: Some(sha256),
            archive_bytes: Some(resolved.layer.size),
            signed_by,
            origin: Some(Origin {
                reference: resolved.pinned.to_string(),
                manifest_digest: resolved.manifest_digest.clone(),
            }),
            warnings,
        })
    }

    /// Asks the registry for a locked squad's manifest by the tag it was resolved through (the
    /// declared tag, else its version, which is its tag). While the tag still names the locked
    /// manifest (its bytes hash to the locked digest: computed, not announced), those bytes are
    /// the pinned ones, and a second request by digest would only fetch them again. A tag moved
    /// or gone is a warning naming both digests; an answer about the tag that cannot be read
    /// (another status, bytes that are not what they claim) says nothing here. Either way the
    /// pinned manifest is then asked for by its digest: the pinned bytes are what counts, never
    /// the tag. What would fail the request by digest as well (no connection, credentials the
    /// registry refuses or squad cannot get) fails here, with its own words and hint.
    fn locked_by_tag(
        session: &mut Repository<'_>,
        reference: &Reference,
        pins: &Pins,
        locked: &str,
    ) -> Result<Tagged, AcquireError> {
        if reference.digest.is_some() {
            return Ok(Tagged::Unknown);
        }
        let Some(tag) = reference.tag.clone().or_else(|| pins.exact.version.clone()) else {
            return Ok(Tagged::Unknown);
        };
        let tagged = reference.repository_only().with_tag(&tag);
        Ok(match session.manifest(&tag) {
            Ok(Some(fetched)) if fetched.digest == locked => Tagged::Locked(fetched),
            Ok(Some(fetched)) => Tagged::Moved(format!(
                "{tagged} now names manifest {}, not manifest {locked} which {} pins: the pinned bytes were used; {}",
                fetched.digest,
                pins.by,
                pins.update_hint
                    .as_deref()
                    .unwrap_or("update to take the new bytes if they are intended")
            )),
            Ok(None) => Tagged::Moved(format!(
                "{tagged} no longer exists; manifest {locked}, which {} pins, was used",
                pins.by
            )),
            Err(crate::oci::OciError::Status { .. } | crate::oci::OciError::Protocol { .. }) => {
                Tagged::Unknown
            }
            Err(error) => return Err(ShareError::Oci(error).into()),
        })
    }

    /// The refusal of a locked registry squad whose pinned manifest the registry no longer
    /// has, saying what its tag names now, if anything.
    fn locked_manifest_gone(
        &self,
        session: &mut Repository<'_>,
        reference: &Reference,
        pins: &Pins,
        locked: &str,
    ) -> AcquireError {
        let repository = reference.repository_only();
        let tag = reference
            .tag
            .clone()
            .or_else(|| pins.exact.version.clone())
            .filter(|_| reference.digest.is_none());
        let now = tag.as_ref().and_then(|tag| {
            share::tag_digest(session, tag)
                .ok()
                .flatten()
                .map(|digest| format!("; its tag {tag} names manifest {digest} now"))
        });
        AcquireError::Refused {
            message: format!(
                "{repository} no longer has manifest {locked}, which {} pins{}",
                pins.by,
                now.unwrap_or_default()
            ),
            hint: pins.update_hint.clone(),
        }
    }

    /// An exact archive (an https:// source or an install link's): from the cache, or
    /// downloaded with its rules and cached.
    fn exact_archive(
        &self,
        request: &Request<'_>,
        url: &Url,
        expected: &Expected,
    ) -> Result<Acquired, AcquireError> {
        let bytes = match self.cached(&expected.sha256)? {
            Some(bytes) => {
                if let Some(declared) = expected.bytes.filter(|size| *size != bytes.len() as u64) {
                    return Err(AcquireError::Refused {
                        message: format!(
                            "the archive with SHA-256 {} is {} bytes, not the {declared} declared",
                            expected.sha256,
                            bytes.len()
                        ),
                        hint: None,
                    });
                }
                bytes
            }
            None => {
                let client = self.client(|| {
                    format!(
                        "{} is not in the cache, and downloading it needs the network (--offline)",
                        crate::http::redacted(url)
                    )
                })?;
                let bytes = exact::download(client, url, expected, request.label, self.transfers)
                    .map_err(AcquireError::Download)?;
                self.keep(&expected.sha256, &bytes)?;
                bytes
            }
        };
        let ready = self.ready_archive(&bytes, Path::new(&crate::http::redacted(url)))?;
        Ok(Acquired {
            ready,
            resolved: url.to_string(),
            archive_sha256: Some(expected.sha256),
            archive_bytes: Some(bytes.len() as u64),
            signed_by: None,
            origin: None,
            warnings: Vec::new(),
        })
    }

    fn link(&self, request: &Request<'_>, link: &InstallLink) -> Result<Acquired, AcquireError> {
        let expected = Expected {
            sha256: link.archive_sha256,
            bytes: Some(link.archive_bytes),
            rules: Rules::InstallLink,
        };
        let acquired = self.exact_archive(request, &link.archive_url, &expected)?;
        let claimed = format!("{}/{} {}", link.namespace, link.id, link.version);
        let identity = acquired.identity();
        let found = format!(
            "{}/{} {}",
            identity.namespace, identity.id, identity.version
        );
        if claimed != found || acquired.package_digest() != link.package_digest {
            return Err(AcquireError::Refused {
                message: format!(
                    "the install link promises {claimed} with package digest {}, but its archive holds {found} with package digest {}",
                    link.package_digest,
                    acquired.package_digest()
                ),
                hint: None,
            });
        }
        Ok(acquired)
    }
}
