//! The files of a static index (docs/index.md): the root, one file per squad, and the search
//! shards; their paths, their exact bytes, and the words a squad is found by.
//!
//! Every file is written as compact, canonical JSON (fields in a fixed order, maps sorted), so
//! that a rebuild from the same squads gives the same bytes and rewrites nothing; the root
//! puts one file per line, so that a change to the index is a few lines of a diff.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::capability::Summary;

/// The root's path in the index.
pub const ROOT: &str = "index.json";
/// The root's detached minisign signature.
pub const ROOT_SIGNATURE: &str = "index.json.minisig";
/// The root's `type`.
pub const ROOT_TYPE: &str = "squad-index-root";
/// The format version every file carries.
pub const SCHEMA_VERSION: u32 = 1;

/// The longest name and label an index keeps, and the longest description (characters): an
/// index file stays small whatever a manifest holds.
pub const MAX_TITLE_CHARS: usize = 200;
pub const MAX_DESCRIPTION_CHARS: usize = 2000;

/// The root: every file of the index with its SHA-256 and size, a version that only grows,
/// and an expiry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Root {
    pub schema_version: u32,
    #[serde(rename = "type")]
    pub kind: String,
    /// One more than the previous build's: a client refuses a lower one than it has seen.
    pub version: u64,
    /// When it was built (`YYYY-MM-DDTHH:MM:SSZ`).
    pub built: String,
    /// After this moment a client refuses it.
    pub expires: String,
    /// How many squads the index holds.
    pub squads: usize,
    /// Every other file of the index, by its path in the index.
    pub files: BTreeMap<String, FileMeta>,
}

/// What the root says of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileMeta {
    /// 64 lowercase hex.
    pub sha256: String,
    pub bytes: u64,
}

impl Root {
    /// The root's bytes: one file per line, sorted.
    pub fn render(&self) -> Vec<u8> {
        let quote = |text: &str| serde_json::to_string(text).unwrap_or_default();
        let mut text = format!(
            "{{\"schema_version\":{},\"type\":{},\"version\":{},\"built\":{},\"expires\":{},\"squads\":{},\"files\":{{",
            self.schema_version,
            quote(&self.kind),
            self.version,
            quote(&self.built),
            quote(&self.expires),
            self.squads
        );
        let mut first = true;
        for (path, meta) in &self.files {
            text.push_str(if first { "\n" } else { ",\n" });
            first = false;
            text.push_str(&format!(
                "{}:{{\"sha256\":\"{}\",\"bytes\":{}}}",
                quote(path),
                meta.sha256,
                meta.bytes
            ));
        }
        text.push_str(if first { "}}\n" } else { "\n}}\n" });
        text.into_bytes()
    }

    /// The trusted comment of the root's signature: what a person reading the `.minisig`
    /// learns without parsing the root.
    pub fn signature_comment(&self) -> String {
        format!(
            "squad index root version {} expires {}",
            self.version, self.expires
        )
    }
}

/// One squad: every version the index knows, newest first, and the newest one's words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SquadFile {
    pub schema_version: u32,
    pub namespace: String,
    pub id: String,
    pub name: Option<String>,
    pub label: Option<String>,
    pub description: Option<String>,
    pub versions: Vec<VersionEntry>,
}

/// One published version of a squad.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionEntry {
    pub version: String,
    /// 64 hex: the package digest (package-tree v1).
    pub package_digest: String,
    /// 64 hex: the archive's SHA-256.
    pub archive_sha256: String,
    pub archive_bytes: u64,
    /// Where the archive is: a pinned `oci://…@sha256:…` reference, or a URL relative to the
    /// index (or an absolute `https://` one).
    pub location: String,
    /// The key ids (16 hex) of the signatures found with it: claims a client checks with its
    /// own keys when it installs.
    pub signatures: Vec<String>,
    /// When the first index build that saw this version ran.
    pub published: String,
    pub yanked: bool,
    pub capabilities: Summary,
}

impl SquadFile {
    pub fn name(&self) -> String {
        format!("{}/{}", self.namespace, self.id)
    }

    pub fn render(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// The newest version that is not yanked.
    pub fn newest(&self) -> Option<&VersionEntry> {
        self.versions.iter().find(|entry| !entry.yanked)
    }

    /// The words the squad is found by, each with the fields it is in ([`Field`] bits).
    pub fn words(&self) -> BTreeMap<String, u8> {
        let mut words = BTreeMap::new();
        let mut add = |text: &str, field: u8| {
            for word in tokens(text) {
                *words.entry(word).or_insert(0) |= field;
            }
        };
        add(&self.id, Field::ID);
        add(&self.namespace, Field::NAMESPACE);
        for title in [&self.name, &self.label].into_iter().flatten() {
            add(title, Field::TITLE);
        }
        if let Some(description) = &self.description {
            add(description, Field::DESCRIPTION);
        }
        words
    }
}

/// The fields a word is found in, as bits of a posting.
pub struct Field;

impl Field {
    pub const DESCRIPTION: u8 = 1;
    pub const TITLE: u8 = 2;
    pub const ID: u8 = 4;
    pub const NAMESPACE: u8 = 8;

    /// How much a match in the heaviest of `fields` counts.
    pub fn weight(fields: u8) -> u32 {
        if fields & Field::ID != 0 {
            8
        } else if fields & Field::TITLE != 0 {
            4
        } else if fields & Field::NAMESPACE != 0 {
            3
        } else if fields & Field::DESCRIPTION != 0 {
            1
        } else {
            0
        }
    }
}

/// A search shard: the words that start with its two characters, each with the squads that
/// hold it and in which fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    pub schema_version: u32,
    pub words: BTreeMap<String, Vec<(String, u8)>>,
}

impl Shard {
    pub fn render(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }
}

/// The path of a squad's file.
pub fn squad_path(namespace: &str, id: &str) -> String {
    format!("squads/{namespace}/{id}.json")
}

/// The path of the shard that holds `word` (at least two characters of `[a-z0-9]`).
pub fn shard_path(word: &str) -> String {
    let prefix: String = word.chars().take(2).collect();
    format!("search/{prefix}.json")
}

/// The words of a text, as search sees them: runs of ASCII letters and digits, lowercased, at
/// least two characters long. Other characters separate words.
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| word.len() >= 2)
        .map(str::to_ascii_lowercase)
        .collect()
}

/// `text`, cut to `max` characters.
pub fn bounded(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => text[..at].to_owned(),
        None => text.to_owned(),
    }
}

/// The name, label and description a manifest's text declares (each trimmed, bounded, absent
/// when empty or not a string).
pub fn about(manifest: &str) -> (Option<String>, Option<String>, Option<String>) {
    let Ok(root) = crate::jsonc::parse(manifest) else {
        return (None, None, None);
    };
    let crate::jsonc::Kind::Object(members) = &root.kind else {
        return (None, None, None);
    };
    let field = |key: &str, max: usize| {
        members
            .iter()
            .rev()
            .find(|member| member.key == key)
            .and_then(|member| member.value.as_str())
            .map(str::trim)
            .filter(|value| !value.is_empty())
            .map(|value| bounded(value, max))
    };
    (
        field("name", MAX_TITLE_CHARS),
        field("label", MAX_TITLE_CHARS),
        field("description", MAX_DESCRIPTION_CHARS),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowercase_runs_of_letters_and_digits() {
        assert_eq!(
            tokens("Release-Review: PR checks, v2 & a"),
            ["release", "review", "pr", "checks", "v2"]
        );
        assert_eq!(shard_path("review"), "search/re.json");
        assert_eq!(bounded("héllo", 2), "hé");
    }

    #[test]
    fn a_root_reads_back_from_its_bytes() {
        let root = Root {
            schema_version: 1,
            kind: ROOT_TYPE.to_owned(),
            version: 3,
            built: "2026-12-01T00:00:00Z".to_owned(),
            expires: "2026-12-31T00:00:00Z".to_owned(),
            squads: 1,
            files: BTreeMap::from([(
                "squads/acme/review.json".to_owned(),
                FileMeta {
                    sha256: "0".repeat(64),
                    bytes: 10,
                },
            )]),
        };
        let bytes = root.render();
        assert_eq!(serde_json::from_slice::<Root>(&bytes).unwrap(), root);
        assert_eq!(bytes.iter().filter(|byte| **byte == b'\n').count(), 3);
        let empty = Root {
            files: BTreeMap::new(),
            ..root
        };
        assert_eq!(
            serde_json::from_slice::<Root>(&empty.render()).unwrap(),
            empty
        );
    }
}
