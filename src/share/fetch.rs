//! Fetching: a reference resolved to one manifest, its config and archive checked against each
//! other and against the pins, and the archive downloaded.

use crate::archive::reader::Limits;
use crate::oci::manifest::{Descriptor, IMAGE_MANIFEST, Manifest};
use crate::oci::{Access, Credentials, OciError, Reference, Repository};

use super::*;

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

pub(super) fn refused(reference: &Reference, message: impl Into<String>) -> ShareError {
    ShareError::Refused {
        reference: reference.to_string(),
        message: message.into(),
    }
}

/// Whether a manifest answer's `Content-Type` lets the body speak for itself: the OCI manifest
/// type, or a generic type from a registry or proxy that ignores `Accept` (the body's own
/// `mediaType` is checked next). Another specific type (an index, a Docker manifest) is not
/// one squad published.
pub(super) fn is_manifest_content_type(content_type: &str) -> bool {
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
/// that the package is the one the repository path and tag name): [`resolve`] for a manifest
/// already fetched.
pub fn check_resolved(
    session: &mut Repository<'_>,
    reference: &Reference,
    fetched: crate::oci::FetchedManifest,
) -> Result<Resolved, ShareError> {
    let (manifest, layer) = read_manifest(reference, &fetched)?;
    check_config(session, reference, fetched, &manifest, layer)
}

/// A fetched manifest, checked as a squad artifact's: its media type, its JSON, and the one
/// layer it names.
pub(super) fn read_manifest(
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
pub(super) fn check_config(
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
pub(super) fn manifest_of(
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

pub(super) fn download_layer(
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
