//! Publishing: a package validated, packed and pushed (with its signature when asked), or a
//! look at what the registry already holds for it before anything is copied.

use std::path::{Path, PathBuf};

use crate::archive::reader::Limits;
use crate::oci::manifest::{Descriptor, IMAGE_MANIFEST};
use crate::oci::{Access, Credentials, OciError, Reference, Repository};
use crate::package::Identity;

use super::*;

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
    let (session, repository, existing) = ask_version(
        client,
        base,
        &prepared.identity,
        &prepared.artifact.config.package_digest,
        dry_run,
    )?;
    Ok(Planned {
        session,
        prepared,
        repository,
        existing,
    })
}

/// The registry's answer for `identity`'s version in its repository below `base`: not there
/// (`None`), or there with `package_digest` (its resolution); there with another package digest
/// is [`ShareError::Conflict`]. A dry run reads the tag with pull access only.
fn ask_version<'c>(
    client: &'c crate::http::Client,
    base: &Reference,
    identity: &Identity,
    package_digest: &str,
    dry_run: bool,
) -> Result<(Repository<'c>, Reference, Option<Resolved>), ShareError> {
    let repository = base.join(&[&identity.namespace, &identity.id]);
    let access = if dry_run { Access::Pull } else { Access::Push };
    let mut session = Repository::new(client, &repository, access, Credentials::Configured);
    let tagged = repository.with_tag(&identity.version);
    let existing = match session.manifest(&identity.version) {
        // Registries that answer 401 or 403 to a pull from a repository that does not exist
        // yet (Docker Hub among them): a real publish creates it, so a dry run goes on.
        Err(OciError::Unauthorized { .. } | OciError::Denied { .. }) if dry_run => None,
        other => other?,
    };
    let Some(existing) = existing else {
        return Ok((session, repository, None));
    };
    let resolved = check_resolved(&mut session, &tagged, existing)?;
    if resolved.config.package_digest != package_digest {
        return Err(ShareError::Conflict {
            reference: tagged.to_string(),
            published: resolved.config.package_digest,
            local: package_digest.to_owned(),
        });
    }
    Ok((session, repository, Some(resolved)))
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
    let (session, repository, existing) = ask_version(
        client,
        base,
        &look.identity,
        &look.package_digest.hex(),
        dry_run,
    )?;
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

pub(super) fn signature_title(identity: &Identity) -> String {
    crate::sign::default_signature_name(&identity.id, &identity.version)
}

/// Signs the statement of a package about to be published.
pub(super) fn sign_published(
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
/// repository has no such tag ([`Repository::manifest_digest`]: the registry's word, for
/// `outdated` and messages).
pub fn tag_digest(session: &mut Repository<'_>, tag: &str) -> Result<Option<String>, ShareError> {
    Ok(session.manifest_digest(tag)?)
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
