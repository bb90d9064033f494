//! The versions record of a tree of squads (`squad-versions.json`, committed beside the
//! package folders): for each squad, the version it was last stamped at and the content digest
//! (CD-1) its files had then. `squad version bump --changed` reads it as its baseline when no
//! registry is named, and writes it back; `squad version check` holds the tree to it. It is the
//! reference's revision baseline (VER-B3), as a file of its own.
//!
//! A record is a claim, never evidence: whoever commits to the repository can write any digest
//! into it. So squad reads it strictly (one document, known keys only, no key twice, every
//! version and digest well formed: a record that breaks any of that is refused, naming the
//! file, line and column), computes every entry it writes from the package's bytes (never
//! copies one from the record it read), and never lets it vouch for what is published:
//! `version check --registry` compares with the registry's own config, and `publish` checks
//! the registry again before it pushes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::digest::Sha256Digest;
use crate::version::Version;

/// The record's file name, in the folder that holds the package folders.
pub const FILE_NAME: &str = "squad-versions.json";

/// The largest record read: a line per squad, for tens of thousands of squads.
pub const MAX_RECORD_BYTES: u64 = 16 * 1024 * 1024;

const COMMENT: &str = "Kept by `squad version bump --changed`: each squad's version and content digest (CD-1, the version masked) when it was last stamped. A claim, not evidence: `squad version check --registry` compares with what is published.";

/// One squad's entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub version: Version,
    pub content_digest: Sha256Digest,
}

/// The record: entries by `<namespace>/<id>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub squads: BTreeMap<String, Recorded>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    schema_version: u32,
    #[serde(default)]
    comment: Option<String>,
    squads: BTreeMap<String, Entry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    version: String,
    content_digest: String,
}

/// Why a record cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot read or write `{}`", .0.display())]
    Io(PathBuf, #[source] std::io::Error),
    #[error("`{}` is {size} bytes, more than the {MAX_RECORD_BYTES} a versions record may be", path.display())]
    TooLarge { path: PathBuf, size: u64 },
    /// The file is not a record squad wrote: where and why.
    #[error("`{}`{at}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        /// `:line:column`, when known.
        at: String,
        message: String,
    },
}

impl RecordError {
    pub fn class(&self) -> crate::error::Class {
        match self {
            RecordError::Io(..) => crate::error::Class::Failed,
            RecordError::TooLarge { .. } | RecordError::Invalid { .. } => {
                crate::error::Class::Refused
            }
        }
    }

    pub fn hint(&self) -> Option<&'static str> {
        match self {
            RecordError::Invalid { .. } | RecordError::TooLarge { .. } => Some(
                "the record is written by `squad version bump --changed` only: restore it from version control, or delete it to record the tree as it is",
            ),
            RecordError::Io(..) => None,
        }
    }
}

impl Record {
    /// The record at `path`; `None` when there is no file.
    pub fn read(path: &Path) -> Result<Option<Record>, RecordError> {
        let metadata = match crate::fs::symlink_metadata(path) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(RecordError::Io(path.to_path_buf(), error)),
        };
        if metadata.len() > MAX_RECORD_BYTES {
            return Err(RecordError::TooLarge {
                path: path.to_path_buf(),
                size: metadata.len(),
            });
        }
        let bytes = crate::fs::read_regular(path)
            .map_err(|error| RecordError::Io(path.to_path_buf(), error))?;
        Record::parse(path, &bytes).map(Some)
    }

    /// Reads a record's bytes; `path` names it in errors.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Record, RecordError> {
        let invalid = |offset: Option<usize>, text: &str, message: String| {
            let at = offset.map_or_else(String::new, |offset| {
                let position = crate::source::SourceFile::new(text.to_owned()).position(offset);
                format!(":{}:{}", position.line, position.column)
            });
            RecordError::Invalid {
                path: path.to_path_buf(),
                at,
                message,
            }
        };
        let text = std::str::from_utf8(bytes)
            .map_err(|_| invalid(None, "", "not UTF-8 text".to_owned()))?;
        // Duplicate keys first: serde would keep the last one silently.
        let root = crate::jsonc::parse(text)
            .map_err(|error| invalid(Some(error.span.start), text, error.message().to_owned()))?;
        let mut objects = vec![&root];
        while let Some(node) = objects.pop() {
            if let crate::jsonc::Kind::Object(members) = &node.kind {
                let mut seen = std::collections::HashSet::new();
                for member in members {
                    if !seen.insert(member.key.as_str()) {
                        return Err(invalid(
                            Some(member.key_span.start),
                            text,
                            format!("`{}` is given twice", crate::text::remote(&member.key, 120)),
                        ));
                    }
                    objects.push(&member.value);
                }
            }
        }
        let document: Document = serde_json::from_str(text).map_err(|error| {
            let offset = offset_of(text, error.line(), error.column());
            invalid(Some(offset), text, strip_position(&error.to_string()))
        })?;
        if document.schema_version != 1 {
            return Err(invalid(
                None,
                text,
                format!(
                    "schema_version {} is not one this squad reads (1)",
                    document.schema_version
                ),
            ));
        }
        let mut squads = BTreeMap::new();
        for (name, entry) in document.squads {
            let shown = crate::text::remote(&name, 120);
            crate::manifest::squad_name(&name)
                .map_err(|problem| invalid(None, text, format!("squad `{shown}`: {problem}")))?;
            let version = Version::parse(&entry.version).map_err(|error| {
                invalid(
                    None,
                    text,
                    format!(
                        "squad `{shown}`: version `{}`: {error}",
                        crate::text::remote(&entry.version, 40)
                    ),
                )
            })?;
            let content_digest = Sha256Digest::parse(&entry.content_digest).ok_or_else(|| {
                invalid(
                    None,
                    text,
                    format!("squad `{shown}`: content_digest is not 64 lowercase hex"),
                )
            })?;
            squads.insert(
                name,
                Recorded {
                    version,
                    content_digest,
                },
            );
        }
        Ok(Record { squads })
    }

    /// The record's text: one entry per line, sorted, so that a change is one line of a diff.
    pub fn render(&self) -> String {
        let mut text = format!(
            "{{\n  \"schema_version\": 1,\n  \"comment\": {},\n  \"squads\": {{",
            serde_json::to_string(COMMENT).unwrap_or_default()
        );
        let mut first = true;
        for (name, recorded) in &self.squads {
            text.push_str(if first { "\n" } else { ",\n" });
            first = false;
            text.push_str(&format!(
                "    {}: {{ \"version\": \"{}\", \"content_digest\": \"{}\" }}",
                serde_json::to_string(name).unwrap_or_default(),
                recorded.version,
                recorded.content_digest.hex()
            ));
        }
        text.push_str(if first { "}\n}\n" } else { "\n  }\n}\n" });
        text
    }

    /// Writes the record atomically, unless the file holds exactly these bytes already.
    /// Returns whether it wrote.
    pub fn write(&self, path: &Path) -> Result<bool, RecordError> {
        let text = self.render();
        if crate::fs::read_regular(path).is_ok_and(|bytes| bytes == text.as_bytes()) {
            return Ok(false);
        }
        crate::fs::replace_file(path, text.as_bytes())
            .map_err(|error| RecordError::Io(path.to_path_buf(), error))?;
        Ok(true)
    }
}

/// The byte offset of a 1-based line and column (as serde_json reports them).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let mut offset = (start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// serde_json's message without its ` at line L column C` (the error names the place itself).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Record {
        Record {
            squads: BTreeMap::from([(
                "acme/review".to_owned(),
                Recorded {
                    version: Version::parse("2026.12.01.1").unwrap(),
                    content_digest: Sha256Digest::of(b"content"),
                },
            )]),
        }
    }

    #[test]
    fn a_record_reads_back_what_it_wrote() {
        let text = record().render();
        assert_eq!(
            Record::parse(Path::new("r.json"), text.as_bytes()).unwrap(),
            record()
        );
        assert_eq!(
            Record::parse(Path::new("r.json"), Record::default().render().as_bytes()).unwrap(),
            Record::default()
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        assert!(record().write(&path).unwrap());
        assert!(
            !record().write(&path).unwrap(),
            "the same bytes are not rewritten"
        );
        assert_eq!(Record::read(&path).unwrap(), Some(record()));
        assert_eq!(Record::read(&dir.path().join("absent.json")).unwrap(), None);
    }

    #[test]
    fn a_record_that_squad_did_not_write_is_refused_with_its_place() {
        let check = |text: &str| {
            Record::parse(Path::new("r.json"), text.as_bytes())
                .unwrap_err()
                .to_string()
        };
        let good = record().render();
        let twice = good.replacen(
            "\"squads\": {",
            "\"squads\": {\n    \"acme/review\": { \"version\": \"2026.12.01.1\", \"content_digest\": \"00\" },",
            1,
        );
        assert_eq!(check(&twice), "`r.json`:6:5: `acme/review` is given twice");
        assert!(
            check(&good.replace("content_digest\": \"", "content_digest\": \"x"))
                .contains("content_digest is not 64 lowercase hex")
        );
        assert!(
            check(&good.replace("2026.12.01.1", "2026.12.1.1")).contains("version `2026.12.1.1`")
        );
        assert!(
            check(&good.replace("\"comment\"", "\"extra\": 1, \"comment\""))
                .contains("unknown field `extra`")
        );
        assert!(check(&good.replace("acme/review", "Acme/review")).contains("squad `Acme/review`"));
        assert!(check("{").starts_with("`r.json`:1:2:"), "{}", check("{"));
    }
}
