//! Signatures attached to a published squad as OCI referrers (image-spec 1.1): an artifact
//! manifest of type [`ARTIFACT_TYPE`] whose `subject` is the squad's manifest, with an empty
//! config and one layer, the `.minisig` text. Registries with the referrers API index it
//! themselves; for those without (CNCF distribution 2.8 answers 404), squad keeps the
//! referrers tag schema: an image index tagged `sha256-<subject hex>` listing the referrers.

use crate::oci::manifest::{
    Annotations, Descriptor, EMPTY_BYTES, EMPTY_MEDIA_TYPE, IMAGE_INDEX, IMAGE_MANIFEST, Index,
    Manifest,
};
use crate::oci::{OciError, Repository};
use crate::sign::Signature;

use super::ShareError;

pub const ARTIFACT_TYPE: &str = "application/vnd.opencorvus.squad.signature.v1";
pub const LAYER_MEDIA_TYPE: &str = "application/vnd.opencorvus.squad.signature.v1+minisign";
/// The minisign key id of the signature, for people and for not attaching one twice.
pub const KEY_ID_ANNOTATION: &str = "org.opencorvus.squad.signature.key-id";
/// The `.minisig` text again, as an annotation: the referrers API (and the tag-schema index)
/// copy a referrer's annotations into its descriptor, so a reader gets the signature from the
/// index alone, without two more requests. It is checked like any other signature.
pub const SIGNATURE_ANNOTATION: &str = "org.opencorvus.squad.signature.minisig";
/// The largest signature read (a minisign signature is about 300 bytes).
pub const MAX_SIGNATURE_BYTES: u64 = 16 * 1024;
/// The most signature referrers read for one squad.
pub const MAX_REFERRERS: usize = 32;

/// The referrers tag schema's tag for a manifest digest: `sha256-<hex>`.
pub fn referrers_tag(digest: &str) -> String {
    digest.replacen(':', "-", 1)
}

/// The referrer manifest of a signature over the manifest `subject`.
pub fn build(subject: &Descriptor, signature: &Signature, title: &str) -> (Manifest, Vec<u8>) {
    let mut layer = Descriptor::of(LAYER_MEDIA_TYPE, signature.text().as_bytes());
    layer.annotations = Some(Annotations::from([(
        super::artifact::TITLE.to_owned(),
        title.to_owned(),
    )]));
    let manifest = Manifest {
        annotations: Some(Annotations::from([
            (KEY_ID_ANNOTATION.to_owned(), signature.key_id.to_string()),
            (SIGNATURE_ANNOTATION.to_owned(), signature.text().to_owned()),
        ])),
        artifact_type: Some(ARTIFACT_TYPE.to_owned()),
        config: Descriptor::of(EMPTY_MEDIA_TYPE, EMPTY_BYTES),
        layers: vec![layer],
        media_type: Some(IMAGE_MANIFEST.to_owned()),
        schema_version: 2,
        subject: Some(Descriptor {
            annotations: None,
            artifact_type: None,
            digest: subject.digest.clone(),
            media_type: IMAGE_MANIFEST.to_owned(),
            size: subject.size,
        }),
    };
    let bytes = manifest.to_canonical_json();
    (manifest, bytes)
}

/// Reads an image index of referrers (a fuzzing entry point).
pub fn parse_referrers(bytes: &[u8]) -> Result<Vec<Descriptor>, String> {
    let index: Index = serde_json::from_slice(bytes)
        .map_err(|error| format!("the referrers index is not valid: {error}"))?;
    if index.schema_version != 2 {
        return Err(format!(
            "the referrers index has schemaVersion {}, not 2",
            index.schema_version
        ));
    }
    Ok(index.manifests)
}

/// The referrer descriptors of `subject` with the signature artifact type: through the
/// referrers API, else the tag schema.
fn signature_referrers(
    session: &mut Repository<'_>,
    subject: &str,
) -> Result<Vec<Descriptor>, ShareError> {
    let refused = |message: String| ShareError::Refused {
        reference: session_reference(subject),
        message,
    };
    let registry = session.registry().to_owned();
    let probe = !without_referrers_api(&registry, None);
    let answered = match probe {
        true => session.referrers(subject, ARTIFACT_TYPE)?,
        false => None,
    };
    if probe && answered.is_none() {
        without_referrers_api(&registry, Some(true));
    }
    let listed = match answered {
        Some(bytes) => parse_referrers(&bytes).map_err(refused)?,
        None => match session.manifest_of_type(&referrers_tag(subject), IMAGE_INDEX)? {
            Some(fetched) => parse_referrers(&fetched.bytes).map_err(refused)?,
            None => Vec::new(),
        },
    };
    Ok(listed
        .into_iter()
        .filter(|descriptor| descriptor.artifact_type.as_deref() == Some(ARTIFACT_TYPE))
        .take(MAX_REFERRERS)
        .collect())
}

/// The registries this process found without the referrers API (asked once each: a sync of
/// many squads from one registry then reads only their tag-schema indexes). With `Some`,
/// records the answer.
fn without_referrers_api(registry: &str, found: Option<bool>) -> bool {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static WITHOUT: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    let Ok(mut without) = WITHOUT.get_or_init(|| Mutex::new(HashSet::new())).lock() else {
        return false;
    };
    if found == Some(true) {
        without.insert(registry.to_owned());
    }
    without.contains(registry)
}

fn session_reference(subject: &str) -> String {
    format!("the referrers of {subject}")
}

/// The `.minisig` texts attached to the manifest `subject`. Referrers that are not squad
/// signatures, or not about this manifest, are passed over; what a registry fails to serve is
/// an error.
pub fn find(session: &mut Repository<'_>, subject: &str) -> Result<Vec<String>, ShareError> {
    let mut found = Vec::new();
    for descriptor in signature_referrers(session, subject)? {
        if let Some(text) = descriptor.annotation(SIGNATURE_ANNOTATION) {
            found.push(text.to_owned());
            continue;
        }
        let Some(fetched) = session.manifest(&descriptor.digest)? else {
            continue;
        };
        let Ok(manifest) = serde_json::from_slice::<Manifest>(&fetched.bytes) else {
            continue;
        };
        let about_subject = manifest
            .subject
            .as_ref()
            .is_some_and(|about| about.digest == subject);
        let layer = match manifest.layers.as_slice() {
            [layer] if layer.media_type == LAYER_MEDIA_TYPE => layer.clone(),
            _ => continue,
        };
        if !about_subject || manifest.effective_artifact_type() != ARTIFACT_TYPE {
            continue;
        }
        let mut bytes = Vec::new();
        match session.fetch_blob(&layer, MAX_SIGNATURE_BYTES, &mut bytes, &mut |_| {}) {
            Ok(()) => {}
            Err(OciError::Protocol { .. }) => continue,
            Err(error) => return Err(error.into()),
        }
        if let Ok(text) = String::from_utf8(bytes) {
            found.push(text);
        }
    }
    Ok(found)
}

/// Whether a signature by `key_id` is attached to `subject` already.
fn attached_by(
    session: &mut Repository<'_>,
    subject: &str,
    key_id: &str,
) -> Result<bool, ShareError> {
    Ok(signature_referrers(session, subject)?
        .iter()
        .any(|descriptor| descriptor.annotation(KEY_ID_ANNOTATION) == Some(key_id)))
}

/// What [`attach`] did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Attached {
    /// The referrer's manifest digest (absent when a signature by the key was there already).
    pub manifest_digest: Option<String>,
    pub key_id: String,
    /// The referrers tag squad updated, for a registry without the referrers API.
    pub referrers_tag: Option<String>,
}

/// Attaches `signature` to the manifest `subject` (unless one by the same key is there),
/// keeping the referrers tag schema up to date where the registry does not index subjects.
pub fn attach(
    session: &mut Repository<'_>,
    subject: &Descriptor,
    signature: &Signature,
    title: &str,
) -> Result<Attached, ShareError> {
    let key_id = signature.key_id.to_string();
    if attached_by(session, &subject.digest, &key_id)? {
        return Ok(Attached {
            manifest_digest: None,
            key_id,
            referrers_tag: None,
        });
    }
    let (manifest, bytes) = build(subject, signature, title);
    session.push_blob(&manifest.config, EMPTY_BYTES, &|_| {})?;
    session.push_blob(&manifest.layers[0], signature.text().as_bytes(), &|_| {})?;
    let digest = crate::oci::manifest::sha256_digest(&bytes);
    let (digest, indexed) = session.put_manifest_answered(&digest, &bytes, IMAGE_MANIFEST)?;
    if indexed {
        return Ok(Attached {
            manifest_digest: Some(digest),
            key_id,
            referrers_tag: None,
        });
    }
    let tag = referrers_tag(&subject.digest);
    let mut index = match session.manifest_of_type(&tag, IMAGE_INDEX)? {
        Some(fetched) => Index {
            manifests: parse_referrers(&fetched.bytes).map_err(|message| ShareError::Refused {
                reference: session_reference(&subject.digest),
                message,
            })?,
            ..Index::empty()
        },
        None => Index::empty(),
    };
    let mut descriptor = Descriptor::of(IMAGE_MANIFEST, &bytes);
    descriptor.artifact_type = Some(ARTIFACT_TYPE.to_owned());
    descriptor.annotations = manifest.annotations.clone();
    if !index.manifests.iter().any(|entry| entry.digest == digest) {
        index.manifests.push(descriptor);
    }
    session.put_manifest(&tag, &index.to_canonical_json(), IMAGE_INDEX)?;
    Ok(Attached {
        manifest_digest: Some(digest),
        key_id,
        referrers_tag: Some(tag),
    })
}
