//! OCI image manifests and descriptors (image-spec 1.1), with canonical serialization: keys
//! in byte order, no whitespace. The structs declare their fields in that order and maps are
//! `BTreeMap`s, so `serde_json` writes canonical JSON and a manifest's bytes (hence its digest)
//! are a pure function of its content.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub const IMAGE_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
pub const IMAGE_INDEX: &str = "application/vnd.oci.image.index.v1+json";
/// Largest manifest squad reads or writes (the distribution spec's "at least 4 MB" floor).
pub const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;

pub type Annotations = BTreeMap<String, String>;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Descriptor {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    #[serde(
        default,
        rename = "artifactType",
        skip_serializing_if = "Option::is_none"
    )]
    pub artifact_type: Option<String>,
    pub digest: String,
    #[serde(rename = "mediaType")]
    pub media_type: String,
    pub size: u64,
}

impl Descriptor {
    /// The descriptor of `bytes` with `media_type`.
    pub fn of(media_type: &str, bytes: &[u8]) -> Descriptor {
        Descriptor {
            annotations: None,
            artifact_type: None,
            digest: sha256_digest(bytes),
            media_type: media_type.to_owned(),
            size: bytes.len() as u64,
        }
    }

    /// The annotation `key`, if present.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations.as_ref()?.get(key).map(String::as_str)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    #[serde(
        default,
        rename = "artifactType",
        skip_serializing_if = "Option::is_none"
    )]
    pub artifact_type: Option<String>,
    pub config: Descriptor,
    pub layers: Vec<Descriptor>,
    #[serde(default, rename = "mediaType", skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(rename = "schemaVersion")]
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<Descriptor>,
}

impl Manifest {
    /// The canonical bytes.
    pub fn to_canonical_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// image-spec 1.1: the artifact's type is `artifactType`, or the config's media type when
    /// absent (artifacts pushed by tools that predate 1.1).
    pub fn effective_artifact_type(&self) -> &str {
        self.artifact_type
            .as_deref()
            .unwrap_or(&self.config.media_type)
    }
}

/// An image index (image-spec 1.1), as the referrers API and its tag schema serve one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index {
    #[serde(default)]
    pub manifests: Vec<Descriptor>,
    #[serde(default, rename = "mediaType", skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(rename = "schemaVersion")]
    pub schema_version: u32,
}

impl Index {
    pub fn empty() -> Index {
        Index {
            manifests: Vec::new(),
            media_type: Some(IMAGE_INDEX.to_owned()),
            schema_version: 2,
        }
    }

    /// The canonical bytes.
    pub fn to_canonical_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// The empty config blob of artifacts without config (image-spec 1.1).
pub const EMPTY_MEDIA_TYPE: &str = "application/vnd.oci.empty.v1+json";
pub const EMPTY_BYTES: &[u8] = b"{}";

/// `sha256:<hex>` of some bytes.
pub fn sha256_digest(bytes: &[u8]) -> String {
    format!("sha256:{}", crate::digest::Sha256Digest::of(bytes).hex())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_and_omits_absent_fields() {
        let config = Descriptor::of("application/x.config", b"{}");
        let mut layer = Descriptor::of("application/x.layer", b"zip");
        layer.annotations = Some(Annotations::from([(
            "org.opencontainers.image.title".to_owned(),
            "a.zip".to_owned(),
        )]));
        let manifest = Manifest {
            annotations: Some(Annotations::from([
                ("z".to_owned(), "1".to_owned()),
                ("a".to_owned(), "2".to_owned()),
            ])),
            artifact_type: Some("application/x.artifact".to_owned()),
            config,
            layers: vec![layer],
            media_type: Some(IMAGE_MANIFEST.to_owned()),
            schema_version: 2,
            subject: None,
        };
        let text = String::from_utf8(manifest.to_canonical_json()).unwrap();
        assert!(text.starts_with(r#"{"annotations":{"a":"2","z":"1"},"artifactType":"application/x.artifact","config":{"digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","mediaType":"application/x.config","size":2},"layers":[{"annotations""#), "{text}");
        assert!(
            text.ends_with(
                r#""mediaType":"application/vnd.oci.image.manifest.v1+json","schemaVersion":2}"#
            ),
            "{text}"
        );
        let back: Manifest = serde_json::from_slice(text.as_bytes()).unwrap();
        assert_eq!(back, manifest);
        assert_eq!(back.effective_artifact_type(), "application/x.artifact");
    }

    #[test]
    fn without_artifact_type_the_config_media_type_is_the_type() {
        let manifest: Manifest = serde_json::from_str(
            r#"{"schemaVersion":2,"config":{"mediaType":"application/x.config","digest":"sha256:00","size":2},"layers":[],"extra":1}"#,
        )
        .unwrap();
        assert_eq!(manifest.effective_artifact_type(), "application/x.config");
    }
}
