//! How a squad package is laid out as an OCI artifact (image-spec 1.1 "artifact with config"):
//!
//! - manifest `application/vnd.oci.image.manifest.v1+json`, `artifactType`
//!   [`ARTIFACT_TYPE`], annotations `org.opencontainers.image.{version,title,description,created}`;
//! - config blob [`CONFIG_MEDIA_TYPE`]: [`SquadConfig`];
//! - exactly one layer [`PACKAGE_MEDIA_TYPE`]: the `squad pack` archive, titled with its file
//!   name.
//!
//! Every byte is a pure function of the package: `created` is the version's date at midnight
//! UTC and the JSON is canonical, so publishing the same package twice gives the same
//! manifest digest.

use serde::{Deserialize, Serialize};

use crate::digest::Sha256Digest;
use crate::oci::manifest::{Annotations, Descriptor, IMAGE_MANIFEST, Manifest};
use crate::package::Identity;

pub const ARTIFACT_TYPE: &str = "application/vnd.opencorvus.squad.v1";
pub const CONFIG_MEDIA_TYPE: &str = "application/vnd.opencorvus.squad.config.v1+json";
pub const PACKAGE_MEDIA_TYPE: &str = "application/vnd.opencorvus.squad.package.v1+zip";

pub const TITLE: &str = "org.opencontainers.image.title";
pub const VERSION: &str = "org.opencontainers.image.version";
pub const DESCRIPTION: &str = "org.opencontainers.image.description";
pub const CREATED: &str = "org.opencontainers.image.created";

/// The largest config blob read (it is a few hundred bytes).
pub const MAX_CONFIG_BYTES: u64 = 64 * 1024;

/// The config blob. Fields in byte order, so serialization is canonical.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SquadConfig {
    pub archive_bytes: u64,
    /// 64 hex: the layer's SHA-256 (a transport check).
    pub archive_sha256: String,
    pub id: String,
    pub namespace: String,
    /// 64 hex: the package digest, re-derived after unpacking.
    pub package_digest: String,
    pub schema_version: u32,
    pub version: String,
}

/// A package as the artifact to push.
#[derive(Debug, Clone)]
pub struct Artifact {
    /// The archive (the layer's bytes), when built from one.
    archive: Vec<u8>,
    pub config: SquadConfig,
    pub config_bytes: Vec<u8>,
    pub manifest: Manifest,
    pub manifest_bytes: Vec<u8>,
    pub manifest_digest: String,
}

impl Artifact {
    pub fn layer(&self) -> &Descriptor {
        &self.manifest.layers[0]
    }

    pub fn archive(&self) -> &[u8] {
        &self.archive
    }

    /// The same artifact, keeping the archive bytes it was built from.
    pub fn with_archive(mut self, archive: Vec<u8>) -> Artifact {
        self.archive = archive;
        self
    }
}

impl Artifact {
    /// The artifact a registry holds, as resolved (its archive not downloaded).
    pub fn published(resolved: &super::Resolved) -> Artifact {
        Artifact {
            archive: Vec::new(),
            config: resolved.config.clone(),
            config_bytes: serde_json::to_vec(&resolved.config).unwrap_or_default(),
            manifest: resolved.manifest.clone(),
            manifest_bytes: resolved.manifest_bytes.clone(),
            manifest_digest: resolved.manifest_digest.clone(),
        }
    }
}

/// What the manifest says about the package for people: its label (else name) and
/// description.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct About {
    pub title: Option<String>,
    pub description: Option<String>,
}

impl About {
    /// Read from the manifest text (`label`, else `name`; `description`).
    pub fn from_manifest(text: &str) -> About {
        let Ok(root) = crate::jsonc::parse(text) else {
            return About::default();
        };
        let crate::jsonc::Kind::Object(members) = &root.kind else {
            return About::default();
        };
        let field = |key: &str| {
            members
                .iter()
                .rev()
                .find(|member| member.key == key)
                .and_then(|member| member.value.as_str())
                .map(str::trim)
                .filter(|value| !value.is_empty())
                .map(str::to_owned)
        };
        About {
            title: field("label").or_else(|| field("name")),
            description: field("description"),
        }
    }
}

/// The artifact of a packed package.
pub fn build(
    identity: &Identity,
    package_digest: Sha256Digest,
    archive: &[u8],
    archive_name: &str,
    about: &About,
) -> Artifact {
    let config = SquadConfig {
        archive_bytes: archive.len() as u64,
        archive_sha256: Sha256Digest::of(archive).hex(),
        id: identity.id.clone(),
        namespace: identity.namespace.clone(),
        package_digest: package_digest.hex(),
        schema_version: 1,
        version: identity.version.clone(),
    };
    let config_bytes = serde_json::to_vec(&config).unwrap_or_default();
    let mut layer = Descriptor::of(PACKAGE_MEDIA_TYPE, archive);
    layer.annotations = Some(Annotations::from([(
        TITLE.to_owned(),
        archive_name.to_owned(),
    )]));
    let mut annotations = Annotations::from([
        (VERSION.to_owned(), identity.version.clone()),
        (
            TITLE.to_owned(),
            about
                .title
                .clone()
                .unwrap_or_else(|| format!("{}/{}", identity.namespace, identity.id)),
        ),
    ]);
    if let Some(description) = &about.description {
        annotations.insert(DESCRIPTION.to_owned(), description.clone());
    }
    if let Ok(version) = crate::version::Version::parse(&identity.version) {
        annotations.insert(
            CREATED.to_owned(),
            format!(
                "{:04}-{:02}-{:02}T00:00:00Z",
                version.year, version.month, version.day
            ),
        );
    }
    let manifest = Manifest {
        annotations: Some(annotations),
        artifact_type: Some(ARTIFACT_TYPE.to_owned()),
        config: Descriptor::of(CONFIG_MEDIA_TYPE, &config_bytes),
        layers: vec![layer],
        media_type: Some(IMAGE_MANIFEST.to_owned()),
        schema_version: 2,
        subject: None,
    };
    let manifest_bytes = manifest.to_canonical_json();
    let manifest_digest = crate::oci::manifest::sha256_digest(&manifest_bytes);
    Artifact {
        archive: Vec::new(),
        config,
        config_bytes,
        manifest,
        manifest_bytes,
        manifest_digest,
    }
}

/// Checks that a fetched manifest is a squad artifact and returns its one package layer.
/// `artifactType`, when absent, falls back to the config's media type (image-spec 1.1), so
/// artifacts pushed by tools without `artifactType` (such as `oras` 0.x) are accepted.
pub fn check_manifest(manifest: &Manifest) -> Result<&Descriptor, String> {
    if manifest.schema_version != 2 {
        return Err(format!(
            "schemaVersion is {}, not 2",
            manifest.schema_version
        ));
    }
    if let Some(media_type) = &manifest.media_type {
        if media_type != IMAGE_MANIFEST {
            return Err(format!("it is a `{media_type}`, not an OCI image manifest"));
        }
    }
    let kind = manifest.effective_artifact_type();
    if kind != ARTIFACT_TYPE && kind != CONFIG_MEDIA_TYPE {
        return Err(format!(
            "it is not a squad package: its artifact type is `{kind}`, not `{ARTIFACT_TYPE}`"
        ));
    }
    if manifest.config.media_type != CONFIG_MEDIA_TYPE {
        return Err(format!(
            "its config has media type `{}`, not `{CONFIG_MEDIA_TYPE}`",
            manifest.config.media_type
        ));
    }
    match manifest.layers.as_slice() {
        [layer] if layer.media_type == PACKAGE_MEDIA_TYPE => Ok(layer),
        [layer] => Err(format!(
            "its layer has media type `{}`, not `{PACKAGE_MEDIA_TYPE}`",
            layer.media_type
        )),
        layers => Err(format!(
            "it has {} layers; a squad package has exactly one",
            layers.len()
        )),
    }
}

/// Parses and checks a config blob against the layer it describes.
pub fn parse_config(bytes: &[u8], layer: &Descriptor) -> Result<SquadConfig, String> {
    let config: SquadConfig = serde_json::from_slice(bytes)
        .map_err(|error| format!("the squad config is not valid: {error}"))?;
    if config.schema_version != 1 {
        return Err(format!(
            "the squad config has schema_version {}; this squad reads 1",
            config.schema_version
        ));
    }
    let hex64 = |text: &str| Sha256Digest::parse(text).is_some();
    if !hex64(&config.package_digest) {
        return Err("the squad config's package_digest is not 64 lowercase hex".to_owned());
    }
    if !hex64(&config.archive_sha256) {
        return Err("the squad config's archive_sha256 is not 64 lowercase hex".to_owned());
    }
    for (what, value) in [("namespace", &config.namespace), ("id", &config.id)] {
        if let Some((_, problem)) =
            crate::manifest::id_problem(value, crate::manifest::IdKind::Package)
        {
            return Err(format!("the squad config's {what} `{value}`: {problem}"));
        }
    }
    crate::version::Version::parse(&config.version)
        .map_err(|error| format!("the squad config's version `{}`: {error}", config.version))?;
    if format!("sha256:{}", config.archive_sha256) != layer.digest
        || config.archive_bytes != layer.size
    {
        return Err(format!(
            "the squad config describes an archive of {} bytes with SHA-256 {}, but the layer is {} bytes with {}",
            config.archive_bytes, config.archive_sha256, layer.size, layer.digest
        ));
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> Identity {
        Identity {
            namespace: "acme".to_owned(),
            id: "review".to_owned(),
            version: "2026.12.01.1".to_owned(),
        }
    }

    #[test]
    fn the_artifact_is_a_pure_function_of_the_package() {
        let about = About {
            title: Some("Review".to_owned()),
            description: Some("Reviews things.".to_owned()),
        };
        let digest = Sha256Digest::of(b"package");
        let one = build(
            &identity(),
            digest,
            b"zip bytes",
            "review-expert-squad.zip",
            &about,
        );
        let two = build(
            &identity(),
            digest,
            b"zip bytes",
            "review-expert-squad.zip",
            &about,
        );
        assert_eq!(one.manifest_bytes, two.manifest_bytes);
        let text = String::from_utf8(one.manifest_bytes.clone()).unwrap();
        assert!(text.contains(r#""org.opencontainers.image.created":"2026-12-01T00:00:00Z""#));
        assert!(text.contains(r#""artifactType":"application/vnd.opencorvus.squad.v1""#));
        assert!(text.contains(
            r#""annotations":{"org.opencontainers.image.title":"review-expert-squad.zip"}"#
        ));
        let config = String::from_utf8(one.config_bytes.clone()).unwrap();
        assert!(
            config.starts_with(r#"{"archive_bytes":9,"archive_sha256":""#),
            "{config}"
        );
        assert!(config.ends_with(r#","schema_version":1,"version":"2026.12.01.1"}"#));
        assert_eq!(check_manifest(&one.manifest).unwrap(), one.layer());
        assert_eq!(
            parse_config(&one.config_bytes, one.layer()).unwrap(),
            one.config
        );
        let other = build(
            &identity(),
            digest,
            b"zip bytes!",
            "review-expert-squad.zip",
            &about,
        );
        assert_ne!(other.manifest_digest, one.manifest_digest);
    }

    #[test]
    fn manifests_that_are_not_squads_are_refused() {
        let artifact = build(
            &identity(),
            Sha256Digest::of(b"p"),
            b"z",
            "z.zip",
            &About::default(),
        );
        let mut legacy = artifact.manifest.clone();
        legacy.artifact_type = None;
        assert!(check_manifest(&legacy).is_ok(), "config type fallback");
        let mut image = artifact.manifest.clone();
        image.artifact_type = Some("application/vnd.example.other".to_owned());
        assert!(
            check_manifest(&image)
                .unwrap_err()
                .contains("not a squad package")
        );
        let mut config = artifact.manifest.clone();
        config.config.media_type = "application/vnd.oci.image.config.v1+json".to_owned();
        assert!(
            check_manifest(&config)
                .unwrap_err()
                .contains("config has media type")
        );
        let mut two = artifact.manifest.clone();
        two.layers.push(two.layers[0].clone());
        assert!(check_manifest(&two).unwrap_err().contains("2 layers"));
        let mut lying = artifact.config.clone();
        lying.archive_bytes += 1;
        let bytes = serde_json::to_vec(&lying).unwrap();
        assert!(
            parse_config(&bytes, artifact.layer())
                .unwrap_err()
                .contains("but the layer is")
        );
    }

    #[test]
    fn about_reads_label_then_name() {
        let about = About::from_manifest(
            r#"{ // c
            "name": "N", "label": "L", "description": " D "}"#,
        );
        assert_eq!(
            about,
            About {
                title: Some("L".to_owned()),
                description: Some("D".to_owned())
            }
        );
        assert_eq!(About::from_manifest("[").title, None);
    }
}
