//! How squads travel. Through OCI registries: `publish` (validate, pack, push), `fetch`
//! (resolve, verify and download the archive that `install` and `pull` use) and `versions`.
//! As one exact archive over HTTPS ([`exact`]), named by an `https://` source or the OpenCorvus
//! website's install link ([`link`]). The invariants are the reference's: `(namespace, id,
//! version)` is bound to one package digest forever (a version tag is never moved to another
//! package), the archive's SHA-256 is a transport check, and the package digest is re-derived
//! after unpacking.

pub mod artifact;
pub mod exact;
pub mod link;
pub mod signature;
pub mod tree;

use std::path::{Path, PathBuf};

use crate::archive::reader::Limits;
use crate::oci::manifest::{Descriptor, IMAGE_MANIFEST, Manifest};
use crate::oci::{Access, Credentials, OciError, Reference, Repository};
use crate::pack::PackError;
use crate::package::{Identity, Report};
use crate::version::Version;

pub use artifact::{About, Artifact, SquadConfig};

/// Told about each transfer, for a progress display.
pub trait Transfers {
    fn begin(&self, label: &str, total: u64);
    fn advance(&self, done: u64);
    fn end(&self);
}

/// No progress display.
pub struct Silent;

impl Transfers for Silent {
    fn begin(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
    fn end(&self) {}
}

/// Why sharing failed. Every variant names the package, the reference or the registry.
#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    /// A reference that cannot be used for this command.
    #[error("{0}")]
    Reference(String),
    #[error("package `{}` is invalid; nothing was published", .0.root.display())]
    Invalid(Box<Report>),
    #[error(transparent)]
    Pack(PackError),
    #[error("cannot read or write `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
    /// The package folder could not be read once into a private copy.
    #[error(transparent)]
    Snapshot(crate::snapshot::SnapshotError),
    #[error(transparent)]
    Oci(OciError),
    #[error("{0} was not found")]
    NotFound(String),
    /// The registry has no such repository; `close` is the one of its catalog a typo most
    /// likely meant, when the registry lists its repositories.
    #[error("{repository} does not exist")]
    NoRepository {
        repository: String,
        close: Option<String>,
    },
    /// The registry holds something that is not an acceptable squad package.
    /// `message` quotes what the registry served; it is shown neutralised.
    #[error("{reference} was refused: {}", crate::text::remote(.message, 4 * crate::text::REMOTE_TEXT_CHARS))]
    Refused { reference: String, message: String },
    /// The version is published with another package digest.
    #[error(
        "{reference} is already published with package digest {published}; this package's digest is {local}"
    )]
    Conflict {
        reference: String,
        published: String,
        local: String,
    },
}

impl ShareError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            ShareError::Reference(_)
            | ShareError::Io(..)
            | ShareError::NotFound(_)
            | ShareError::NoRepository { .. } => crate::error::Class::Failed,
            ShareError::Oci(error) => error.class(),
            ShareError::Pack(error) => error.class(),
            ShareError::Snapshot(error) => error.class(),
            ShareError::Invalid(_) | ShareError::Refused { .. } | ShareError::Conflict { .. } => {
                crate::error::Class::Refused
            }
        }
    }

    pub fn hint(&self) -> Option<String> {
        match self {
            ShareError::Oci(error) => error.hint(),
            ShareError::Conflict { .. } => Some(
                "a published version is immutable: run `squad version bump` and publish again"
                    .to_owned(),
            ),
            ShareError::Invalid(_) => Some("run `squad validate` for details".to_owned()),
            ShareError::NotFound(_) => {
                Some("`squad versions oci://…/<namespace>/<id>` lists what is published".to_owned())
            }
            ShareError::NoRepository {
                close: Some(close), ..
            } => Some(format!("did you mean {close}?")),
            ShareError::NoRepository { .. } => Some(
                "check the spelling: squads are at oci://HOST/BASE/<namespace>/<id>".to_owned(),
            ),
            _ => None,
        }
    }
}

impl From<OciError> for ShareError {
    fn from(error: OciError) -> ShareError {
        ShareError::Oci(error)
    }
}

/// What `publish` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PublishStatus {
    Pushed,
    /// The version was there with the same package digest; nothing was pushed.
    Unchanged,
    /// `--dry-run`: the version is not there yet; nothing was sent.
    DryRun,
    /// A tree's publish was refused before anything was sent: this package was not pushed.
    NotPushed,
}

#[derive(Debug)]
pub struct Published {
    pub status: PublishStatus,
    pub identity: Identity,
    /// `oci://HOST/BASE/<namespace>/<id>@sha256:<manifest digest>`.
    pub pinned: Reference,
    pub artifact: Artifact,
    /// Blobs sent (config and layer) when pushed.
    pub uploaded: Vec<String>,
    /// The signature attached with `--sign`.
    pub signature: Option<signature::Attached>,
}

/// The base must be a repository path without tag or digest: the version is the tag.
pub fn publish_base(text: &str) -> Result<Reference, ShareError> {
    let base = Reference::parse(text).map_err(ShareError::Reference)?;
    if base.tag.is_some() || base.digest.is_some() {
        return Err(ShareError::Reference(format!(
            "`{text}` names a tag or digest; publish takes the base (oci://HOST/BASE): the package goes to BASE/<namespace>/<id>:<version>"
        )));
    }
    Ok(base)
}

/// The artifact of the package folder `package`: validated, then packed to the exact bytes
/// `squad pack` writes.
pub fn prepare(package: &Path) -> Result<(Identity, Artifact), ShareError> {
    let judged = crate::snapshot::read_folder(package, &crate::snapshot::scratch_parent())
        .map_err(|error| match error {
            crate::snapshot::SnapshotError::Invalid(report) => ShareError::Invalid(report),
            other => ShareError::Snapshot(other),
        })?;
    let report = judged.report;
    if !report.is_valid() {
        return Err(ShareError::Invalid(Box::new(report)));
    }
    let Some(identity) = report.identity.clone() else {
        return Err(ShareError::Invalid(Box::new(report)));
    };
    let about = report
        .sources
        .get(crate::manifest::MANIFEST_FILE)
        .map(|source| About::from_manifest(&source.text))
        .unwrap_or_default();
    let (packed, archive) = crate::pack::pack_bytes(
        &report,
        judged.snapshot.path(),
        &identity,
        &Limits::REFERENCE,
    )
    .map_err(ShareError::Pack)?;
    let name = crate::pack::default_file_name(&identity);
    let artifact = artifact::build(&identity, packed.package_digest, &archive, &name, &about);
    Ok((identity, artifact.with_archive(archive)))
}

/// Pushes the package folder `package` to `base/<namespace>/<id>:<version>`, unless that
/// version is there already (same package digest: unchanged; another: a conflict).
///
/// With `signer`, the statement of the package is signed before anything is sent (a key
/// that cannot sign stops the publish early) and attached to the manifest as a referrer, also
/// when the version was published already.
pub fn publish(
    client: &crate::http::Client,
    package: &Path,
    base: &Reference,
    dry_run: bool,
    transfers: &dyn Transfers,
    signer: Option<&crate::sign::SecretKey>,
) -> Result<Published, ShareError> {
    let prepared = prepare_signed(package, signer)?;
    let planned = plan(client, base, prepared, dry_run)?;
    push(planned, dry_run, transfers)
}

/// A package ready to publish: validated, packed and (with a key) signed.
pub struct Prepared {
    pub identity: Identity,
    pub artifact: Artifact,
    signed: Option<crate::sign::Signature>,
}

/// [`prepare`], then the statement signed with `signer` when given: a key that cannot sign
/// stops the publish before anything is sent.
pub fn prepare_signed(
    package: &Path,
    signer: Option<&crate::sign::SecretKey>,
) -> Result<Prepared, ShareError> {
    let (identity, artifact) = prepare(package)?;
    let signed = match signer {
        Some(key) => Some(sign_published(key, &identity, &artifact)?),
        None => None,
    };
    Ok(Prepared {
        identity,
        artifact,
        signed,
    })
}

/// What the registry holds of a prepared package's version, and the session that asked.
pub struct Planned<'c> {
    session: Repository<'c>,
    prepared: Prepared,
    repository: Reference,
    /// The version published already with the same package digest, or `None`: to push.
    existing: Option<Resolved>,
}

impl Planned<'_> {
    pub fn identity(&self) -> &Identity {
        &self.prepared.identity
    }

    /// Whether the version is there already with the same bytes.
    pub fn is_unchanged(&self) -> bool {
        self.existing.is_some()
    }

    /// What a run that pushes nothing reports of this package.
    pub fn held(self, status: PublishStatus) -> Published {
        let pinned = match &self.existing {
            Some(resolved) => self.repository.with_digest(&resolved.manifest_digest),
            None => self
                .repository
                .with_digest(&self.prepared.artifact.manifest_digest),
        };
        Published {
            status: if self.existing.is_some() {
                PublishStatus::Unchanged
            } else {
                status
            },
            identity: self.prepared.identity,
            pinned,
            artifact: self.prepared.artifact,
            uploaded: Vec::new(),
            signature: None,
        }
    }
}

/// Asks the registry for the version of a prepared package: not there (to push), there with
/// the same package digest (unchanged), or there with another ([`ShareError::Conflict`]). A
/// dry run reads the tag too (with pull access only), so that it says what a real publish
/// would do.
pub fn plan<'c>(
    client: &'c crate::http::Client,
    base: &Reference,
    prepared: Prepared,
    dry_run: bool,
) -> Result<Planned<'c>, ShareError> {
    let repository = base.join(&[&prepared.identity.namespace, &prepared.identity.id]);
    let version = prepared.identity.version.clone();
    let access = if dry_run { Access::Pull } else { Access::Push };
    let mut session = Repository::new(client, &repository, access, Credentials::Configured);
    let tagged = repository.with_tag(&version);
    let existing = match session.manifest(&version) {
        // Registries that answer 401 or 403 to a pull from a repository that does not exist
        // yet (Docker Hub among them): a real publish creates it, so a dry run goes on.
        Err(OciError::Unauthorized { .. } | OciError::Denied { .. }) if dry_run => None,
        other => other?,
    };
    let existing = match existing {
        Some(existing) => {
            let resolved = check_resolved(&mut session, &tagged, existing)?;
            if resolved.config.package_digest != prepared.artifact.config.package_digest {
                return Err(ShareError::Conflict {
                    reference: tagged.to_string(),
                    published: resolved.config.package_digest,
                    local: prepared.artifact.config.package_digest.clone(),
                });
            }
            Some(resolved)
        }
        None => None,
    };
    Ok(Planned {
        session,
        prepared,
        repository,
        existing,
    })
}

/// Pushes a planned package (blobs the registry lacks, then the manifest under its version)
/// unless it is unchanged, and attaches its signature; a dry run sends nothing.
pub fn push(
    planned: Planned<'_>,
    dry_run: bool,
    transfers: &dyn Transfers,
) -> Result<Published, ShareError> {
    let Planned {
        mut session,
        prepared,
        repository,
        existing,
    } = planned;
    let version = prepared.identity.version.clone();
    let mut published = Published {
        status: PublishStatus::DryRun,
        identity: prepared.identity,
        pinned: repository.with_digest(&prepared.artifact.manifest_digest),
        artifact: prepared.artifact,
        uploaded: Vec::new(),
        signature: None,
    };
    // The manifest a signature is about: the one published already, or the one pushed now.
    let subject = if let Some(resolved) = existing {
        published.status = PublishStatus::Unchanged;
        published.pinned = repository.with_digest(&resolved.manifest_digest);
        Descriptor {
            annotations: None,
            artifact_type: None,
            digest: resolved.manifest_digest.clone(),
            media_type: IMAGE_MANIFEST.to_owned(),
            size: resolved.manifest_size,
        }
    } else {
        if dry_run {
            return Ok(published);
        }
        let artifact = &published.artifact;
        let config = &artifact.manifest.config;
        if session.push_blob(config, &artifact.config_bytes, &|_| {})? {
            published.uploaded.push(config.digest.clone());
        }
        let layer = artifact.layer();
        transfers.begin(
            &format!(
                "Uploading {}/{}",
                published.identity.namespace, published.identity.id
            ),
            layer.size,
        );
        let pushed = session.push_blob(layer, artifact.archive(), &|done| transfers.advance(done));
        transfers.end();
        if pushed? {
            published.uploaded.push(layer.digest.clone());
        }
        let digest = session.put_manifest(&version, &artifact.manifest_bytes, IMAGE_MANIFEST)?;
        published.status = PublishStatus::Pushed;
        published.pinned = repository.with_digest(&digest);
        Descriptor::of(IMAGE_MANIFEST, &published.artifact.manifest_bytes)
    };
    if let Some(signed) = prepared.signed.as_ref().filter(|_| !dry_run) {
        published.signature = Some(signature::attach(
            &mut session,
            &subject,
            signed,
            &signature_title(&published.identity),
        )?);
    }
    Ok(published)
}

/// A package as a tree's publish first sees it: validated in place and digested, before any
/// private copy is made. A package the registry holds with this digest is never copied or
/// packed; one that must be pushed is read again into a private copy, and must still be this.
#[derive(Debug, Clone)]
pub struct Look {
    pub path: PathBuf,
    pub identity: Identity,
    pub package_digest: crate::digest::Sha256Digest,
}

/// Validates the package folder `package` where it is and digests it.
pub fn look(package: &Path) -> Result<Look, ShareError> {
    let report = crate::package::validate(package).map_err(|error| {
        ShareError::Snapshot(crate::snapshot::SnapshotError::Validate(
            package.to_path_buf(),
            error,
        ))
    })?;
    let identity = match (&report.identity, report.is_valid()) {
        (Some(identity), true) => identity.clone(),
        _ => return Err(ShareError::Invalid(Box::new(report))),
    };
    let digest =
        crate::package::contract_digest(package, true, false, &crate::digest::Progress::default())
            .map_err(|error| {
                ShareError::Io(
                    package.to_path_buf(),
                    std::io::Error::other(error.to_string()),
                )
            })?;
    Ok(Look {
        path: package.to_path_buf(),
        identity,
        package_digest: digest.package_digest,
    })
}

/// What the registry answered about a looked-at package's version, and the session that asked.
pub struct Asked<'c> {
    session: Repository<'c>,
    repository: Reference,
    pub look: Look,
    /// The version published already with the same package digest (`None`: to push).
    pub existing: Option<Resolved>,
}

/// [`plan`] for a [`Look`]: the version's tag asked for, a conflict refused.
pub fn ask<'c>(
    client: &'c crate::http::Client,
    base: &Reference,
    look: Look,
    dry_run: bool,
) -> Result<Asked<'c>, ShareError> {
    let repository = base.join(&[&look.identity.namespace, &look.identity.id]);
    let version = look.identity.version.clone();
    let access = if dry_run { Access::Pull } else { Access::Push };
    let mut session = Repository::new(client, &repository, access, Credentials::Configured);
    let tagged = repository.with_tag(&version);
    let existing = match session.manifest(&version) {
        Err(OciError::Unauthorized { .. } | OciError::Denied { .. }) if dry_run => None,
        other => other?,
    };
    let existing = match existing {
        Some(existing) => {
            let resolved = check_resolved(&mut session, &tagged, existing)?;
            if resolved.config.package_digest != look.package_digest.hex() {
                return Err(ShareError::Conflict {
                    reference: tagged.to_string(),
                    published: resolved.config.package_digest,
                    local: look.package_digest.hex(),
                });
            }
            Some(resolved)
        }
        None => None,
    };
    Ok(Asked {
        session,
        repository,
        look,
        existing,
    })
}

impl<'c> Asked<'c> {
    /// A package the registry holds with the same bytes: unchanged, nothing pushed; with
    /// `signer` (and not a dry run), its signature attached as for one package.
    pub fn unchanged(
        mut self,
        signer: Option<&crate::sign::SecretKey>,
        dry_run: bool,
    ) -> Result<Published, ShareError> {
        let resolved = self
            .existing
            .take()
            .ok_or_else(|| ShareError::Reference("the version is not published".to_owned()))?;
        let artifact = Artifact::published(&resolved);
        let identity = self.look.identity.clone();
        let mut published = Published {
            status: PublishStatus::Unchanged,
            pinned: self.repository.with_digest(&resolved.manifest_digest),
            identity,
            artifact,
            uploaded: Vec::new(),
            signature: None,
        };
        if let Some(key) = signer.filter(|_| !dry_run) {
            let signed = sign_published(key, &published.identity, &published.artifact)?;
            let subject = Descriptor {
                annotations: None,
                artifact_type: None,
                digest: resolved.manifest_digest.clone(),
                media_type: IMAGE_MANIFEST.to_owned(),
                size: resolved.manifest_size,
            };
            published.signature = Some(signature::attach(
                &mut self.session,
                &subject,
                &signed,
                &signature_title(&published.identity),
            )?);
        }
        Ok(published)
    }

    /// A package to push, read into its private copy and packed: it must still be the package
    /// that was looked at (else the publish is refused, nothing sent).
    pub fn prepared(self, prepared: Prepared) -> Result<Planned<'c>, ShareError> {
        if prepared.identity != self.look.identity
            || prepared.artifact.config.package_digest != self.look.package_digest.hex()
        {
            return Err(ShareError::Reference(format!(
                "`{}` changed while it was published (it was {}/{} {} with package digest {}); nothing was sent",
                self.look.path.display(),
                self.look.identity.namespace,
                self.look.identity.id,
                self.look.identity.version,
                self.look.package_digest.hex()
            )));
        }
        Ok(Planned {
            session: self.session,
            prepared,
            repository: self.repository,
            existing: None,
        })
    }
}

fn signature_title(identity: &Identity) -> String {
    crate::sign::default_signature_name(&identity.id, &identity.version)
}

/// Signs the statement of a package about to be published.
fn sign_published(
    key: &crate::sign::SecretKey,
    identity: &Identity,
    artifact: &Artifact,
) -> Result<crate::sign::Signature, ShareError> {
    let package_digest = crate::digest::Sha256Digest::parse(&artifact.config.package_digest)
        .ok_or_else(|| ShareError::Reference("the package digest is not a SHA-256".to_owned()))?;
    let statement = crate::sign::Statement {
        namespace: identity.namespace.clone(),
        id: identity.id.clone(),
        version: identity.version.clone(),
        package_digest,
    };
    crate::sign::minisig::sign(
        key,
        statement.text().as_bytes(),
        &statement.trusted_comment(),
    )
    .map_err(|error| ShareError::Reference(format!("signing failed: {error}")))
}

/// The manifest digest the tag `tag` of the session's repository names, or `None` when the
/// repository has no such tag.
pub fn tag_digest(session: &mut Repository<'_>, tag: &str) -> Result<Option<String>, ShareError> {
    Ok(session.manifest(tag)?.map(|fetched| fetched.digest))
}

/// The signatures attached to a resolved squad, found with a session of its own (`squad pull`).
pub fn signatures_of(
    client: &crate::http::Client,
    resolved: &Resolved,
) -> Result<Vec<String>, ShareError> {
    let mut session = Repository::new(
        client,
        &resolved.pinned,
        Access::Pull,
        Credentials::Configured,
    );
    signatures(&mut session, resolved)
}

/// The signatures attached to a resolved squad (their `.minisig` texts).
pub fn signatures(
    session: &mut Repository<'_>,
    resolved: &Resolved,
) -> Result<Vec<String>, ShareError> {
    signature::find(session, &resolved.manifest_digest)
}

/// A squad package as a registry describes it.
#[derive(Debug, Clone)]
pub struct Resolved {
    /// `oci://…@sha256:<manifest digest>`.
    pub pinned: Reference,
    pub manifest_digest: String,
    /// The manifest's size in bytes (a referrer's `subject` names it).
    pub manifest_size: u64,
    pub config: SquadConfig,
    pub layer: Descriptor,
    /// The manifest, parsed, and its exact bytes.
    pub manifest: Manifest,
    pub manifest_bytes: Vec<u8>,
}

fn refused(reference: &Reference, message: impl Into<String>) -> ShareError {
    ShareError::Refused {
        reference: reference.to_string(),
        message: message.into(),
    }
}

/// Whether a manifest answer's `Content-Type` lets the body speak for itself: the OCI manifest
/// type, or a generic type from a registry or proxy that ignores `Accept` (the body's own
/// `mediaType` is checked next). Another specific type (an index, a Docker manifest) is not
/// one squad published.
fn is_manifest_content_type(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    essence.is_empty()
        || essence == IMAGE_MANIFEST
        || ["application/json", "application/octet-stream", "text/plain"]
            .contains(&essence.as_str())
}

/// Checks a fetched manifest and its config (artifact type, media types, config fields, and
/// that the package is the one the repository path and tag name).
fn check_resolved(
    session: &mut Repository<'_>,
    reference: &Reference,
    fetched: crate::oci::FetchedManifest,
) -> Result<Resolved, ShareError> {
    let (manifest, layer) = read_manifest(reference, &fetched)?;
    check_config(session, reference, fetched, &manifest, layer)
}

/// A fetched manifest, checked as a squad artifact's: its media type, its JSON, and the one
/// layer it names.
fn read_manifest(
    reference: &Reference,
    fetched: &crate::oci::FetchedManifest,
) -> Result<(Manifest, Descriptor), ShareError> {
    if let Some(media_type) = fetched.media_type.as_deref() {
        if !is_manifest_content_type(media_type) {
            return Err(refused(
                reference,
                format!("the registry served a `{media_type}`, not an OCI image manifest"),
            ));
        }
    }
    let manifest: Manifest = serde_json::from_slice(&fetched.bytes)
        .map_err(|error| refused(reference, format!("the manifest is not valid: {error}")))?;
    let layer = artifact::check_manifest(&manifest)
        .map_err(|message| refused(reference, message))?
        .clone();
    Ok((manifest, layer))
}

/// Fetches and checks the config a manifest names, and that the package is the one the
/// repository path and tag name.
fn check_config(
    session: &mut Repository<'_>,
    reference: &Reference,
    fetched: crate::oci::FetchedManifest,
    manifest: &Manifest,
    layer: Descriptor,
) -> Result<Resolved, ShareError> {
    let mut config_bytes = Vec::new();
    session
        .fetch_blob(
            &manifest.config,
            artifact::MAX_CONFIG_BYTES,
            &mut config_bytes,
            &mut |_| {},
        )
        .map_err(|error| match error {
            OciError::Protocol { message, .. } => refused(reference, message),
            other => ShareError::Oci(other),
        })?;
    let config = artifact::parse_config(&config_bytes, &layer)
        .map_err(|message| refused(reference, message))?;
    let path: Vec<&str> = reference.repository.rsplitn(3, '/').collect();
    if path.len() < 2 || path[1] != config.namespace || path[0] != config.id {
        return Err(refused(
            reference,
            format!(
                "the package is {}/{}, but the repository path does not end with {}/{}",
                config.namespace, config.id, config.namespace, config.id
            ),
        ));
    }
    if let Some(tag) = &reference.tag {
        if reference.digest.is_none() && *tag != config.version {
            return Err(refused(
                reference,
                format!("the tag `{tag}` holds version {}", config.version),
            ));
        }
    }
    Ok(Resolved {
        pinned: reference.repository_only().with_digest(&fetched.digest),
        manifest_size: fetched.bytes.len() as u64,
        manifest_digest: fetched.digest,
        config,
        layer,
        manifest: manifest.clone(),
        manifest_bytes: fetched.bytes,
    })
}

/// Resolves a reference (a tag, a digest, or neither: the newest version) to a checked
/// squad package.
pub fn resolve(
    session: &mut Repository<'_>,
    reference: &Reference,
) -> Result<Resolved, ShareError> {
    let (reference, fetched) = manifest_of(session, reference)?;
    check_resolved(session, &reference, fetched)
}

/// The manifest a reference names (without tag or digest: its newest version), with the
/// reference to it.
fn manifest_of(
    session: &mut Repository<'_>,
    reference: &Reference,
) -> Result<(Reference, crate::oci::FetchedManifest), ShareError> {
    let reference = match reference.target() {
        Some(_) => reference.clone(),
        None => {
            let newest = version_tags(session)?
                .into_iter()
                .next()
                .ok_or_else(|| ShareError::NotFound(format!("a version of {reference}")))?;
            reference.with_tag(&newest.to_string())
        }
    };
    let target = reference.target().unwrap_or_default().to_owned();
    let Some(fetched) = session.manifest(&target)? else {
        // A typo in the repository says so, rather than that a version is missing.
        if matches!(session.tags_of_repository(), Ok(None)) {
            return Err(no_repository(session));
        }
        return Err(ShareError::NotFound(reference.to_string()));
    };
    Ok((reference, fetched))
}

/// Downloads the package archive of a resolved reference, within the import limit, and
/// checks its size and SHA-256 against the descriptor.
pub fn download(
    session: &mut Repository<'_>,
    resolved: &Resolved,
    transfers: &dyn Transfers,
) -> Result<Vec<u8>, ShareError> {
    let label = format!(
        "Downloading {}/{} {}",
        resolved.config.namespace, resolved.config.id, resolved.config.version
    );
    download_layer(
        session,
        &resolved.pinned,
        &resolved.layer,
        &label,
        transfers,
    )
}

fn download_layer(
    session: &mut Repository<'_>,
    reference: &Reference,
    layer: &Descriptor,
    label: &str,
    transfers: &dyn Transfers,
) -> Result<Vec<u8>, ShareError> {
    let limit = Limits::REFERENCE.archive_bytes;
    if layer.size > limit {
        return Err(refused(
            reference,
            format!(
                "the archive is {} bytes, more than the import limit of {limit} (LIM-2)",
                layer.size
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(layer.size as usize);
    transfers.begin(label, layer.size);
    let result = session.fetch_blob(layer, limit, &mut bytes, &mut |done| {
        transfers.advance(done)
    });
    transfers.end();
    result.map_err(|error| match error {
        OciError::Protocol { message, .. } => refused(reference, message),
        other => ShareError::Oci(other),
    })?;
    Ok(bytes)
}

/// Resolves and downloads, the archive and the config at once: once the manifest is read, the
/// layer is fetched on a second connection of the same session (its credentials and token
/// included) while the config is fetched and checked. Nothing downloaded is used unless both
/// pass; a registry's per-request latency is paid once instead of twice. The price: an artifact
/// refused for its config is still downloaded (within the 18 MiB import limit) before the
/// refusal, so callers that must judge before downloading (a signature policy, `--expect-*`)
/// use [`resolve`] and [`download`] instead.
pub fn fetch(
    client: &crate::http::Client,
    reference: &Reference,
    transfers: &(dyn Transfers + Sync),
) -> Result<(Resolved, Vec<u8>), ShareError> {
    let mut session = Repository::new(client, reference, Access::Pull, Credentials::Configured);
    let (reference, fetched) = manifest_of(&mut session, reference)?;
    let (manifest, layer) = read_manifest(&reference, &fetched)?;
    let pinned = reference.repository_only().with_digest(&fetched.digest);
    let label = format!("Downloading {}", pinned.repository);
    let mut layer_session = session.clone();
    let (resolved, bytes) = std::thread::scope(|scope| {
        let download =
            scope.spawn(|| download_layer(&mut layer_session, &pinned, &layer, &label, transfers));
        let resolved = check_config(&mut session, &reference, fetched, &manifest, layer.clone());
        let bytes = download
            .join()
            .unwrap_or_else(|_| Err(refused(&pinned, "the download stopped unexpectedly")));
        (resolved, bytes)
    });
    // The config's verdict first: a layer is only ever judged as the package it names.
    let resolved = resolved?;
    Ok((resolved, bytes?))
}

/// Checks that downloaded archive bytes hold the package the config names: the archive is
/// readable within the import limits, wraps `<namespace>/<id>`, and its package digest is
/// the config's.
pub fn verify_archive(resolved: &Resolved, bytes: &[u8]) -> Result<(), ShareError> {
    let package = crate::archive::reader::read_package(bytes, &Limits::REFERENCE)
        .map_err(|error| refused(&resolved.pinned, format!("the archive: {error}")))?;
    let config = &resolved.config;
    if let Some((namespace, id)) = &package.wrapper {
        if *namespace != config.namespace || *id != config.id {
            return Err(refused(
                &resolved.pinned,
                format!(
                    "the archive holds {namespace}/{id}, not {}/{}",
                    config.namespace, config.id
                ),
            ));
        }
    }
    // The config's identity is what the repository and its tags claim; the manifest's is what
    // gets installed. They must be one, or a registry could serve another squad under a name.
    let declared = package
        .files
        .iter()
        .find(|(path, _)| path == crate::manifest::MANIFEST_FILE)
        .and_then(|(_, text)| crate::manifest::declared(&String::from_utf8_lossy(text)))
        .unwrap_or_default();
    let claimed = (
        Some(config.namespace.as_str()),
        Some(config.id.as_str()),
        Some(config.version.as_str()),
    );
    let holds = (
        declared.namespace.as_deref(),
        declared.id.as_deref(),
        declared.version.as_deref(),
    );
    if holds != claimed {
        let shown = |value: Option<&str>| {
            value.map_or("?".to_owned(), |value| crate::text::remote(value, 80))
        };
        return Err(refused(
            &resolved.pinned,
            format!(
                "the archive's manifest declares {}/{} {}, but the config says {}/{} {}",
                shown(holds.0),
                shown(holds.1),
                shown(holds.2),
                config.namespace,
                config.id,
                config.version
            ),
        ));
    }
    let digest = crate::digest::digest_entries(&package.files).hex();
    if digest != config.package_digest {
        return Err(refused(
            &resolved.pinned,
            format!(
                "the archive's package digest is {digest}, but the config says {}",
                config.package_digest
            ),
        ));
    }
    Ok(())
}

/// The repository's tags that are squad versions, newest first.
fn version_tags(session: &mut Repository<'_>) -> Result<Vec<Version>, ShareError> {
    let Some(tags) = session.tags_of_repository()? else {
        return Err(no_repository(session));
    };
    Ok(versions_of(&tags))
}

/// The tags that are squad versions, newest first.
fn versions_of(tags: &[String]) -> Vec<Version> {
    let mut versions: Vec<Version> = tags
        .iter()
        .filter_map(|tag| Version::parse(tag).ok())
        .collect();
    versions.sort_by(|a, b| b.cmp(a));
    versions.dedup();
    versions
}

/// The session's repository does not exist: said with the registry's nearest repository, when
/// its catalog answers.
fn no_repository(session: &mut Repository<'_>) -> ShareError {
    let reference = session.reference.repository_only();
    let wanted = reference.repository.clone();
    let close = session.catalog().and_then(|names| {
        crate::text::closest(&wanted, names.iter().map(String::as_str)).map(|name| {
            Reference {
                repository: name.to_owned(),
                ..reference.clone()
            }
            .to_string()
        })
    });
    ShareError::NoRepository {
        repository: reference.to_string(),
        close: close.map(|close| crate::text::shown(&close)),
    }
}

/// One published version.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Listed {
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifest_digest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package_digest: Option<String>,
    /// Why the tag is not a squad package, when digests were asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// The versions published at `reference` (`oci://HOST/BASE/<namespace>/<id>`), newest first;
/// with `digests`, each one's manifest and package digest.
pub fn versions(
    client: &crate::http::Client,
    reference: &Reference,
    digests: bool,
) -> Result<Vec<Listed>, ShareError> {
    if reference.tag.is_some() || reference.digest.is_some() {
        return Err(ShareError::Reference(format!(
            "`{reference}` names a tag or digest; versions takes the repository (oci://HOST/BASE/<namespace>/<id>)"
        )));
    }
    let mut session = Repository::new(client, reference, Access::Pull, Credentials::Configured);
    let mut listed = Vec::new();
    for version in version_tags(&mut session)? {
        let version = version.to_string();
        let mut entry = Listed {
            version: version.clone(),
            manifest_digest: None,
            package_digest: None,
            problem: None,
        };
        if digests {
            match resolve(&mut session, &reference.with_tag(&version)) {
                Ok(resolved) => {
                    entry.manifest_digest = Some(resolved.manifest_digest);
                    entry.package_digest = Some(resolved.config.package_digest);
                }
                Err(ShareError::Refused { message, .. }) => entry.problem = Some(message),
                Err(error) => return Err(error),
            }
        }
        listed.push(entry);
    }
    Ok(listed)
}

/// What a registry holds of one squad: its newest version, and the version asked for (or the
/// newest) resolved and checked.
#[derive(Debug, Clone, Default)]
pub struct Lookup {
    /// The newest version tag, when there is any.
    pub newest: Option<String>,
    /// The version asked for (without one, the newest), when it is published.
    pub resolved: Option<Resolved>,
}

/// Looks up the squad `<namespace>/<id>` under `base`: its newest version, and `version` (or
/// the newest) resolved to its manifest and config. A repository that does not exist holds
/// nothing, which is no error.
pub fn lookup(
    client: &crate::http::Client,
    base: &Reference,
    namespace: &str,
    id: &str,
    version: Option<&str>,
) -> Result<Lookup, ShareError> {
    let repository = base.join(&[namespace, id]);
    let mut session = Repository::new(client, &repository, Access::Pull, Credentials::Configured);
    // A repository that does not exist holds nothing yet: no error here.
    let Some(tags) = session.tags_of_repository()? else {
        return Ok(Lookup::default());
    };
    let tags = versions_of(&tags);
    let newest = tags.first().map(Version::to_string);
    let wanted = match version {
        Some(version) => tags
            .iter()
            .any(|tag| tag.to_string() == version)
            .then(|| version.to_owned()),
        None => newest.clone(),
    };
    let resolved = match wanted {
        Some(tag) => Some(resolve(&mut session, &repository.with_tag(&tag))?),
        None => None,
    };
    Ok(Lookup { newest, resolved })
}
