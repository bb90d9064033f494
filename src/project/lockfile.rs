//! `<project>/.opencorvus/squads.lock`: the exact bytes each declared squad resolved to, written
//! only by squad (PLK-1…PLK-4). It is JSON with a `lock_version`, its squads sorted by name and
//! its keys in a fixed order, one per line, so a change reads as a small diff; it is replaced
//! atomically (a synced temporary file in the same directory, renamed over it).
//!
//! Reading is strict: an unknown key or a `lock_version` this squad does not know is refused,
//! so a lock written by a newer squad (one that records, say, the key that verified each
//! signature) is never silently rewritten without what it recorded. Such an addition is a new
//! optional field of [`Locked`] and a new [`LOCK_VERSION`] that still reads the older ones.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::diag::{Code, Diagnostic};
use crate::digest::Sha256Digest;

use super::declared::{Declaration, Name};
use crate::acquire::source::Source;

/// The file, relative to the project, as diagnostics name it.
pub const FILE: &str = ".opencorvus/squads.lock";
/// The newest lock format this squad writes and reads: 2 adds `signed_by`, 3 adds
/// `capabilities`. A lock is written with the lowest version that holds what it records, so
/// older squads read what they can.
pub const LOCK_VERSION: u32 = 3;

/// One squad as locked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Locked {
    /// The source as `squads.jsonc` wrote it when it was resolved: an edit re-resolves.
    pub source: String,
    /// What the source resolved to: `oci://…@sha256:<manifest digest>` for a registry, the
    /// archive URL for `https://` sources and install links, the path for local ones.
    pub resolved: String,
    pub version: String,
    pub package_digest: Sha256Digest,
    /// The archive's SHA-256; absent for a folder, which has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive_sha256: Option<Sha256Digest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive_bytes: Option<u64>,
    /// The minisign key id whose signature verified this entry under the project's policy
    /// (lock_version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_by: Option<String>,
    /// The grants the project accepted for this entry (lock_version 3): the squad's total
    /// grants when it was locked, or as `--accept-grants` took them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<crate::capability::accepted::Accepted>,
}

impl Locked {
    /// The manifest digest a registry source resolved to.
    pub fn manifest_digest(&self) -> Option<&str> {
        self.resolved
            .starts_with(crate::oci::reference::SCHEME)
            .then(|| self.resolved.rsplit_once('@').map(|(_, digest)| digest))
            .flatten()
    }

    /// Whether this lock entry is still what `declaration` asks for: the same source text, and
    /// the declared version, tag, digest and SHA-256 where it names them.
    ///
    /// What the entry resolved to must be the declared source's own (the declared repository
    /// at a digest, the declared URL, the declared path): a lock naming another registry or
    /// another URL is not believed, it disagrees.
    pub fn agrees_with(&self, declaration: &Declaration) -> bool {
        let pinned = match &declaration.source {
            Source::Registry(reference) => {
                let repository = format!("{}@", reference.repository_only());
                reference
                    .tag
                    .as_ref()
                    .is_none_or(|tag| *tag == self.version)
                    && reference
                        .digest
                        .as_ref()
                        .is_none_or(|digest| Some(digest.as_str()) == self.manifest_digest())
                    && self.resolved.starts_with(&repository)
                    && self
                        .manifest_digest()
                        .is_some_and(crate::oci::reference::is_valid_digest)
                    && self.archive_sha256.is_some()
            }
            Source::Https(url) => self.resolved == url.as_str() && self.archive_sha256.is_some(),
            Source::Link(link) => {
                self.resolved == link.archive_url.as_str()
                    && self.archive_sha256 == Some(link.archive_sha256)
                    && self.package_digest == link.package_digest
                    && self.version == link.version
            }
            // Whatever the index resolved it to, pinned: a registry manifest, or an archive's
            // SHA-256.
            Source::Index => {
                self.archive_sha256.is_some()
                    && match Source::parse(&self.resolved) {
                        Ok(Source::Registry(reference)) => reference
                            .digest
                            .as_deref()
                            .is_some_and(crate::oci::reference::is_valid_digest),
                        Ok(Source::Https(_)) => true,
                        _ => false,
                    }
            }
            Source::Folder(path) => self.resolved == *path,
            Source::Archive(path) => self.resolved == *path && self.archive_sha256.is_some(),
        };
        self.source == declaration.source_text
            && pinned
            && declaration
                .version
                .as_ref()
                .is_none_or(|version| *version == self.version)
            && declaration
                .sha256
                .is_none_or(|sha256| Some(sha256) == self.archive_sha256)
    }
}

/// The whole lock: squads by `<namespace>/<id>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lock {
    pub squads: BTreeMap<String, Locked>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    lock_version: u32,
    squads: BTreeMap<String, Locked>,
}

/// The second member of an object whose key an earlier member has already.
fn first_duplicate(object: &crate::jsonc::Node) -> Option<&crate::jsonc::Member> {
    let crate::jsonc::Kind::Object(members) = &object.kind else {
        return None;
    };
    let mut seen = std::collections::HashSet::new();
    members
        .iter()
        .find(|member| !seen.insert(member.key.as_str()))
}

/// The byte offset of a 1-based line and column (as serde_json reports them).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let mut offset = start + column.saturating_sub(1);
    offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// How to get a readable lock back.
const RESTORE: &str = "squads.lock is written by squad only: restore it from version control (`git checkout -- .opencorvus/squads.lock`); a merge's conflict markers are resolved by `squad sync`";

fn invalid(span: Range<usize>, message: impl Into<String>) -> Diagnostic {
    newer(span, message).help(RESTORE)
}

/// A lock this squad is too old for: restoring it would not help.
fn newer(span: Range<usize>, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Code::SquadsLockInvalid, FILE, message).span(span)
}

/// A lock read in one pass, its squads refused when one is named twice (serde keeps the last).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SoundDocument {
    lock_version: u32,
    squads: UniqueSquads,
}

struct UniqueSquads(BTreeMap<String, Locked>);

impl<'de> Deserialize<'de> for UniqueSquads {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = UniqueSquads;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("squads by name")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<UniqueSquads, A::Error> {
                let mut squads = BTreeMap::new();
                while let Some((name, locked)) = map.next_entry::<String, Locked>()? {
                    if squads.insert(name, locked).is_some() {
                        return Err(serde::de::Error::custom("a squad appears twice"));
                    }
                }
                Ok(UniqueSquads(squads))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// What is wrong with a lock that reads as JSON: a name that is not one, a record of accepted
/// grants that was edited, a version that is not one.
enum Fault {
    Name,
    Capabilities,
    Version,
}

/// The first fault of `squads`, looked for in that order (every name, then every record, then
/// every version), with the squad it is in: what both reads of a lock refuse.
fn first_fault(squads: &BTreeMap<String, Locked>) -> Option<(&str, Fault)> {
    let find = |fault: Fault, faulty: &dyn Fn(&String, &Locked) -> bool| {
        squads
            .iter()
            .find(|(name, locked)| faulty(name, locked))
            .map(|(name, _)| (name.as_str(), fault))
    };
    find(Fault::Name, &|name, _| Name::parse(name).is_err())
        .or_else(|| {
            find(Fault::Capabilities, &|_, locked| {
                locked
                    .capabilities
                    .as_ref()
                    .is_some_and(|accepted| !accepted.is_consistent())
            })
        })
        .or_else(|| {
            find(Fault::Version, &|_, locked| {
                crate::version::Version::parse(&locked.version).is_err()
            })
        })
}

impl Lock {
    /// Reads a lock's text; the diagnostic points at what is wrong.
    pub fn parse(text: &str) -> Result<Lock, Box<Diagnostic>> {
        // Every `sync` reads the lock: a sound one is read in one pass, and the syntax tree
        // that places a diagnostic is built only for a lock with something wrong.
        match Lock::parse_sound(text) {
            Some(lock) => Ok(lock),
            None => Lock::parse_reporting(text),
        }
    }

    /// The lock when nothing in it is wrong, by the checks of [`Lock::parse_reporting`].
    fn parse_sound(text: &str) -> Option<Lock> {
        let document: SoundDocument = serde_json::from_str(text).ok()?;
        let squads = document.squads.0;
        let sound =
            (1..=LOCK_VERSION).contains(&document.lock_version) && first_fault(&squads).is_none();
        sound.then_some(Lock { squads })
    }

    /// [`Lock::parse`], the diagnostic placed where the text is wrong.
    fn parse_reporting(text: &str) -> Result<Lock, Box<Diagnostic>> {
        let root = crate::jsonc::parse(text).map_err(|error| {
            Box::new(invalid(
                error.span.clone(),
                format!("squads.lock is not valid JSON ({})", error.code),
            ))
        })?;
        let whole = root.span.clone();
        let version = crate::jsonc::edit::member(&root, "lock_version");
        let Some(version) = version else {
            return Err(Box::new(invalid(
                whole.start..whole.start + 1,
                "squads.lock has no `lock_version`",
            )));
        };
        match crate::jsonc::to_value(&version.value).as_u64() {
            Some(found) if (1..=u64::from(LOCK_VERSION)).contains(&found) => {}
            Some(found) if found > u64::from(LOCK_VERSION) => {
                return Err(Box::new(
                    newer(
                        version.value.span.clone(),
                        format!(
                            "squads.lock has lock_version {found}: it was written by a newer squad, which this one (lock_version {LOCK_VERSION}) must not rewrite"
                        ),
                    )
                    .help("upgrade squad to one that reads this lock"),
                ));
            }
            _ => {
                return Err(Box::new(invalid(
                    version.value.span.clone(),
                    format!("`lock_version` must be 1 or {LOCK_VERSION}"),
                )));
            }
        }
        // serde keeps the last of two equal keys, so a second entry for a squad (or a second
        // `squads`) could hide behind the one a reader of the file sees first: refused.
        if let Some(duplicate) = first_duplicate(&root).or_else(|| {
            crate::jsonc::edit::member(&root, "squads")
                .and_then(|squads| first_duplicate(&squads.value))
        }) {
            return Err(Box::new(invalid(
                duplicate.key_span.clone(),
                format!("`{}` appears twice in squads.lock", duplicate.key),
            )));
        }
        let document: Document = serde_json::from_str(text).map_err(|error| {
            let at = offset_of(text, error.line(), error.column());
            let message = error.to_string();
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(message, _)| message);
            Box::new(invalid(
                at..(at + 1).min(text.len()),
                format!("squads.lock: {message}"),
            ))
        })?;
        let Some((name, fault)) = first_fault(&document.squads) else {
            return Ok(Lock {
                squads: document.squads,
            });
        };
        let entry = || {
            crate::jsonc::edit::member(&root, "squads")
                .and_then(|squads| crate::jsonc::edit::member(&squads.value, name))
        };
        let diagnostic = match fault {
            Fault::Name => {
                let span = match &root.kind {
                    crate::jsonc::Kind::Object(_) => {
                        entry().map_or(whole.clone(), |member| member.key_span.clone())
                    }
                    _ => whole.clone(),
                };
                invalid(
                    span,
                    format!("`{name}` is not a squad name (`<namespace>/<id>`)"),
                )
            }
            // A record of accepted grants whose digest is not its set's was edited by hand.
            Fault::Capabilities => invalid(
                entry()
                    .and_then(|entry| crate::jsonc::edit::member(&entry.value, "capabilities"))
                    .map_or(whole.clone(), |member| member.key_span.clone()),
                format!(
                    "the capabilities accepted for `{name}` are not the set their sha256 names: the record was edited"
                ),
            ),
            // A version is shown, compared and used as a registry tag: it must be one.
            Fault::Version => invalid(
                entry()
                    .and_then(|entry| crate::jsonc::edit::member(&entry.value, "version"))
                    .map_or(whole.clone(), |member| member.value.span.clone()),
                format!(
                    "the version locked for `{name}` is not a version (`YYYY.MM.DD.N`): {}",
                    crate::text::remote(&document.squads[name].version, 80)
                ),
            ),
        };
        Err(Box::new(diagnostic))
    }

    /// The lock's text: pretty JSON, sorted, with a final newline.
    pub fn render(&self) -> String {
        let signed = self
            .squads
            .values()
            .any(|locked| locked.signed_by.is_some());
        let accepted = self
            .squads
            .values()
            .any(|locked| locked.capabilities.is_some());
        let document = Document {
            lock_version: if accepted {
                3
            } else if signed {
                2
            } else {
                1
            },
            squads: self.squads.clone(),
        };
        serde_json::to_string_pretty(&document).unwrap_or_default() + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rendered entry of `name` in a rendered lock, from its key to its closing brace.
    fn entry_of<'t>(text: &'t str, name: &str) -> &'t str {
        let start = text.find(&format!("    \"{name}\"")).unwrap();
        let end = text[start..].find("    }").unwrap() + start + 5;
        &text[start..end]
    }

    fn locked(source: &str) -> Locked {
        Locked {
            source: source.to_owned(),
            resolved: format!("{source}@sha256:{}", "c".repeat(64)),
            version: "2026.12.01.1".to_owned(),
            package_digest: Sha256Digest([1; 32]),
            archive_sha256: Some(Sha256Digest([2; 32])),
            archive_bytes: Some(1884),
            signed_by: None,
            capabilities: None,
        }
    }

    #[test]
    fn a_squad_locked_twice_or_a_version_that_is_none_is_refused() {
        let mut lock = Lock::default();
        lock.squads
            .insert("acme/a".to_owned(), locked("oci://r.example/s/acme/a"));
        let text = lock.render();
        let entry = entry_of(&text, "acme/a");
        let twice = text.replace(entry, &format!("{entry},\n{entry}"));
        let refused = Lock::parse(&twice).unwrap_err();
        assert_eq!(refused.message, "`acme/a` appears twice in squads.lock");
        assert!(twice[refused.span.clone().unwrap()].contains("acme/a"));
        let squads_twice = text.replacen("\"squads\"", "\"squads\": {},\n  \"squads\"", 1);
        assert_eq!(
            Lock::parse(&squads_twice).unwrap_err().message,
            "`squads` appears twice in squads.lock"
        );
        let forged = text.replace("2026.12.01.1", "1\\nerror: forged");
        let refused = Lock::parse(&forged).unwrap_err();
        assert!(
            refused
                .message
                .starts_with("the version locked for `acme/a` is not a version"),
            "{}",
            refused.message
        );
        assert!(!refused.message.contains('\n'));
    }

    #[test]
    fn the_lock_is_stable_sorted_and_reads_back() {
        let mut lock = Lock::default();
        lock.squads
            .insert("acme/b".to_owned(), locked("oci://r.example/s/acme/b"));
        lock.squads.insert(
            "acme/a".to_owned(),
            Locked {
                archive_sha256: None,
                archive_bytes: None,
                signed_by: None,
                capabilities: None,
                resolved: "squads/a".to_owned(),
                ..locked("squads/a")
            },
        );
        let text = lock.render();
        assert!(text.starts_with("{\n  \"lock_version\": 1,\n  \"squads\": {\n    \"acme/a\": {\n      \"source\": \"squads/a\",\n      \"resolved\": \"squads/a\",\n      \"version\": \"2026.12.01.1\",\n      \"package_digest\": \"0101"), "{text}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(value["squads"]["acme/a"].get("archive_sha256").is_none());
        assert!(text.ends_with("}\n"));
        assert_eq!(Lock::parse(&text).unwrap(), lock);
        assert_eq!(Lock::parse(&text).unwrap().render(), text);
        assert_eq!(
            lock.squads["acme/b"].manifest_digest(),
            Some(format!("sha256:{}", "c".repeat(64)).as_str())
        );
        assert_eq!(lock.squads["acme/a"].manifest_digest(), None);
    }

    /// The one-pass read accepts a lock only where the reporting read does, and gives the same.
    #[test]
    fn the_sound_read_and_the_reporting_read_agree() {
        let mut lock = Lock::default();
        lock.squads
            .insert("acme/a".to_owned(), locked("oci://r.example/s/acme/a"));
        lock.squads
            .insert("acme/b".to_owned(), locked("oci://r.example/s/acme/b"));
        let text = lock.render();
        let entry = entry_of(&text, "acme/a");
        let cases = [
            text.clone(),
            text.replace(entry, &format!("{entry},\n{entry}")),
            text.replacen("\"squads\"", "\"squads\": {},\n  \"squads\"", 1),
            text.replace("2026.12.01.1", "1\\nerror: forged"),
            text.replace("\"lock_version\": 1", "\"lock_version\": 0"),
            text.replace("\"lock_version\": 1", "\"lock_version\": 4"),
            text.replace("\"acme/a\"", "\"Acme\""),
            text.replace("\"source\"", "\"extra\": 1, \"source\""),
            text.replacen("{", "{\"extra\": 1, ", 1),
            text.replace("\"squads\": {", "\"squads\": { // a comment\n"),
            "{\"lock_version\": 1, \"squads\": {}}".to_owned(),
            "{\"lock_version\": 1, \"squads\": []}".to_owned(),
            String::new(),
        ];
        for (index, case) in cases.iter().enumerate() {
            let reporting = Lock::parse_reporting(case).ok();
            assert_eq!(Lock::parse_sound(case), reporting, "case {index}: {case}");
        }
        assert!(Lock::parse_sound(&cases[0]).is_some());
        assert!(Lock::parse_sound(&cases[10]).is_some());
    }

    #[test]
    fn a_lock_squad_cannot_read_is_refused_where_it_is_wrong() {
        let line = |text: &str| {
            let diagnostic = Lock::parse(text).unwrap_err();
            let file = crate::source::SourceFile::new(text.to_owned());
            (
                file.position(diagnostic.span.unwrap().start).line,
                diagnostic.message,
            )
        };
        assert_eq!(line("{\n  \"lock_version\": 1,\n  ]").0, 3);
        assert!(line("{\"squads\": {}}").1.contains("no `lock_version`"));
        let newer = line("{\n  \"lock_version\": 4,\n  \"squads\": {}, \"signed_by\": {}\n}");
        assert_eq!(newer.0, 2);
        assert!(newer.1.contains("newer squad"), "{}", newer.1);
        let unknown = line("{\n  \"lock_version\": 1,\n  \"squads\": {},\n  \"extra\": 1\n}");
        assert_eq!(unknown.0, 4);
        assert!(unknown.1.contains("unknown field `extra`"), "{}", unknown.1);
        let bad_digest = line(
            "{\"lock_version\": 1, \"squads\": {\"acme/a\": {\"source\": \"a\", \"resolved\": \"a\",\n\"version\": \"v\", \"package_digest\": \"xyz\"}}}",
        );
        assert_eq!(bad_digest.0, 2);
        let bad_name = line(
            "{\"lock_version\": 1, \"squads\": {\n\"Acme\": {\"source\": \"a\", \"resolved\": \"a\", \"version\": \"v\", \"package_digest\": \"0101010101010101010101010101010101010101010101010101010101010101\"}}}",
        );
        assert_eq!(bad_name.0, 2);
    }

    #[test]
    fn a_lock_entry_agrees_with_what_its_declaration_still_asks() {
        let declaration = |source: &str, version: Option<&str>| Declaration {
            source: Source::parse(source).unwrap(),
            source_text: source.to_owned(),
            version: version.map(str::to_owned),
            sha256: None,
        };
        let entry = locked("oci://r.example/s/acme/b");
        assert!(entry.agrees_with(&declaration("oci://r.example/s/acme/b", None)));
        assert!(entry.agrees_with(&declaration(
            "oci://r.example/s/acme/b",
            Some("2026.12.01.1")
        )));
        assert!(!entry.agrees_with(&declaration(
            "oci://r.example/s/acme/b",
            Some("2026.12.02.1")
        )));
        assert!(!entry.agrees_with(&declaration("oci://r.example/t/acme/b", None)));
    }
}
