//! `<project>/.opencorvus/squads.jsonc`: the squads a project declares, written by people and
//! by `squad add`, `remove` and `update`, which edit it in place ([`crate::jsonc::edit`]) so
//! comments and formatting survive. Reading it reports every problem at once as diagnostics
//! with `file:line:col`; the keys it may hold are one table, [`KEYS`], which the checks, the
//! error hints and docs/project-files.md all read.

use std::ops::Range;

use crate::diag::{Code, Diagnostic, Severity, Suggestion};
use crate::digest::Sha256Digest;
use crate::jsonc::{self, Kind, Member, Node};
use crate::version::Version;

use crate::acquire::source::Source;

mod in_place;
mod policy;

pub use in_place::*;
use policy::*;

/// The file, relative to the project, as diagnostics name it.
pub const FILE: &str = ".opencorvus/squads.jsonc";

/// The objects of the file that have keys of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Object {
    /// The top-level object.
    Root,
    /// One squad, under `squads`, by `<namespace>/<id>`.
    Squad,
}

/// The JSON type a key's value must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueType {
    Object,
    String,
    Bool,
    Array,
}

impl ValueType {
    fn name(self) -> &'static str {
        match self {
            ValueType::Object => "object",
            ValueType::String => "string",
            ValueType::Bool => "boolean",
            ValueType::Array => "array",
        }
    }

    fn matches(self, node: &Node) -> bool {
        matches!(
            (self, &node.kind),
            (ValueType::Object, Kind::Object(_))
                | (ValueType::String, Kind::String(_))
                | (ValueType::Bool, Kind::Bool(_))
                | (ValueType::Array, Kind::Array(_))
        )
    }
}

/// One key the file may hold.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub object: Object,
    pub name: &'static str,
    pub value: ValueType,
    pub about: &'static str,
}

/// Every key of `squads.jsonc` (PRJ-2). A new setting is a row here and its reading below;
/// anything else is reported as `squads-unknown-key`.
pub const KEYS: &[Key] = &[
    Key {
        object: Object::Root,
        name: "squads",
        value: ValueType::Object,
        about: "the squads of the project, each under its `<namespace>/<id>`",
    },
    Key {
        object: Object::Root,
        name: "require_signatures",
        value: ValueType::Bool,
        about: "`true`: `sync`, `add` and `install` into the project refuse a squad without a signature by a key `trust` lists for its namespace (docs/signatures.md)",
    },
    Key {
        object: Object::Root,
        name: "trust",
        value: ValueType::Object,
        about: "the public keys trusted to sign squads, by namespace (`\"*\"`: every namespace): each a list of minisign public keys (`\"RW…\"`) or `{ \"key\": \"RW…\", \"expires\": \"YYYY-MM-DD\" }`, a key trusted through that day (UTC)",
    },
    Key {
        object: Object::Root,
        name: "deny_escalation",
        value: ValueType::Bool,
        about: "`true`: `add`, `update`, `sync` and `install` into the project refuse a squad version that holds grants beyond those `squads.lock` accepted for it (`squad diff`'s rule), unless `squad update NAME --accept-grants` accepts them; `sync --locked` refuses installed bytes whose grants are not the accepted ones (docs/capabilities.md)",
    },
    Key {
        object: Object::Root,
        name: "audit",
        value: ValueType::String,
        about: "the lowest severity of a `squad audit` finding that makes `add`, `update`, `sync` and `install` into the project refuse a squad: `error` (the default), `warning`, `note`, or `off`",
    },
    Key {
        object: Object::Root,
        name: "accepted_findings",
        value: ValueType::Array,
        about: "audit findings the project accepts for one version of a squad, each `{ \"squad\": \"<namespace>/<id>\", \"package_digest\": \"<64 hex>\", \"code\": \"<audit code>\", \"reason\": \"…\" }`: bound to the package digest, so the next version's findings count again",
    },
    Key {
        object: Object::Root,
        name: "revoked",
        value: ValueType::Array,
        about: "keys whose signatures are refused whatever `trust` says: key ids (16 hex digits, as `minisign` prints them) or public keys",
    },
    Key {
        object: Object::Root,
        name: "minimum_release_age",
        value: ValueType::String,
        about: "a cooldown, written `<N>d`, `<N>h` or `<N>m` (days, hours, minutes; `\"3d\"`): `add`, `update`, `sync` and `install` into the project take no version younger than this unless it is named exactly, its age read from the `published` time the project's `index` records for it; a registry squad without such a record is refused unless its version is named (docs/capabilities.md)",
    },
    Key {
        object: Object::Root,
        name: "index",
        value: ValueType::String,
        about: "the URL of a static squad index (docs/index.md): `squad add NAME` takes a squad by name from it (declaring the registry repository and version, or the archive and SHA-256, the index gives), a squad declared with `\"index\": true` is resolved through it at `sync`, and `squad search` reads it",
    },
    Key {
        object: Object::Root,
        name: "index_key",
        value: ValueType::String,
        about: "the minisign public key (`RW…`) that must have signed the index's root; without it the root's signature is not checked (every file is still checked against the root)",
    },
    Key {
        object: Object::Squad,
        name: "source",
        value: ValueType::String,
        about: "where the squad comes from: a folder or `.zip` archive relative to the project, `oci://HOST/BASE/<namespace>/<id>` (with a `:VERSION` tag, an `@sha256:` manifest digest, or neither), an `https://` archive, or an `opencorvus://expert-squad/install?…` link",
    },
    Key {
        object: Object::Squad,
        name: "version",
        value: ValueType::String,
        about: "for an `oci://` source without tag or digest: the exact version (`YYYY.MM.DD.N`); absent, the newest at `add` and `update` time",
    },
    Key {
        object: Object::Squad,
        name: "index",
        value: ValueType::Bool,
        about: "`true`, instead of a `source`: the squad is taken by its name from the project's `index`, at its `version` when given, else the newest that is not yanked; `sync` resolves it there and `squads.lock` pins what it resolved to",
    },
    Key {
        object: Object::Squad,
        name: "sha256",
        value: ValueType::String,
        about: "for an `https://` source, required: the SHA-256 of the archive (64 lowercase hex)",
    },
];

fn keys_of(object: Object) -> impl Iterator<Item = &'static Key> {
    KEYS.iter().filter(move |key| key.object == object)
}

/// The docs/project-files.md table of [`KEYS`] (a test keeps the page in step).
pub fn keys_markdown() -> String {
    let mut text = String::from("| object | key | type | meaning |\n|---|---|---|---|\n");
    for key in KEYS {
        let object = match key.object {
            Object::Root => "top level",
            Object::Squad => "a squad",
        };
        text.push_str(&format!(
            "| {object} | `{}` | {} | {} |\n",
            key.name,
            key.value.name(),
            key.about
        ));
    }
    text
}

/// A squad's name: `<namespace>/<id>`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name {
    pub namespace: String,
    pub id: String,
}

impl Name {
    pub fn parse(text: &str) -> Result<Name, String> {
        let (namespace, id) = crate::manifest::squad_name(text)?;
        Ok(Name {
            namespace: namespace.to_owned(),
            id: id.to_owned(),
        })
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.id)
    }
}

/// What one squad's entry says, apart from its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    pub source: Source,
    /// The source exactly as written (the lock records it to notice edits).
    pub source_text: String,
    pub version: Option<String>,
    pub sha256: Option<Sha256Digest>,
}

impl Declaration {
    /// The entry's JSON object, on one line, as `squad add` writes it.
    pub fn to_json(&self) -> String {
        let quote = |text: &str| serde_json::to_string(text).unwrap_or_default();
        let mut members = match self.source {
            Source::Index => vec!["\"index\": true".to_owned()],
            _ => vec![format!("\"source\": {}", quote(&self.source_text))],
        };
        if let Some(version) = &self.version {
            members.push(format!("\"version\": {}", quote(version)));
        }
        if let Some(sha256) = &self.sha256 {
            members.push(format!("\"sha256\": {}", quote(&sha256.hex())));
        }
        format!("{{ {} }}", members.join(", "))
    }
}

/// One declared squad.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: Name,
    pub declaration: Declaration,
    /// The entry's name in the file, for diagnostics.
    pub span: Range<usize>,
}

/// The project's index (`index`, `index_key`).
#[derive(Debug, Clone, PartialEq)]
pub struct IndexConfig {
    pub url: String,
    pub key: Option<crate::sign::PublicKey>,
}

/// The squads a file declares, sorted by name. Entries with problems are left out (their
/// diagnostics say why).
#[derive(Debug, Clone, Default)]
pub struct Declared {
    pub entries: Vec<Entry>,
    /// What the file says about signatures (PRJ-11).
    pub policy: crate::sign::Policy,
    /// `deny_escalation`: no version may hold grants beyond those the lock accepted.
    pub deny_escalation: bool,
    /// `audit` and `accepted_findings` (PRJ-13).
    pub audit: AuditPolicy,
    /// `index` and `index_key`.
    pub index: Option<IndexConfig>,
    /// `minimum_release_age` (PRJ-14): no version younger than this is taken unnamed.
    pub minimum_release_age: Option<ReleaseAge>,
}

/// `minimum_release_age` (PRJ-14): how old a version must be, by the publish time the
/// project's index records for it, before `add`, `update` and `sync` take it unnamed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseAge {
    /// The age in seconds.
    pub seconds: i64,
    /// As squads.jsonc writes it (`3d`), for messages.
    pub text: String,
}

impl ReleaseAge {
    /// The longest cooldown squads.jsonc may ask for, in days: ten years, far beyond any use,
    /// and small enough that no arithmetic on it can overflow.
    pub const MAX_DAYS: i64 = 3_650;

    /// `<N>d`, `<N>h` or `<N>m`: N a whole number (no sign, no fraction, no space), at most
    /// [`ReleaseAge::MAX_DAYS`] days in all.
    pub fn parse(text: &str) -> Result<ReleaseAge, String> {
        let unit = text.chars().last().unwrap_or(' ');
        let count = &text[..text.len() - unit.len_utf8().min(text.len())];
        let per_unit = match unit {
            'd' => 86_400,
            'h' => 3_600,
            'm' => 60,
            _ => {
                return Err(format!(
                    "`minimum_release_age` is `{}`: write a whole number of days, hours or minutes, such as `3d`, `12h` or `90m`",
                    crate::text::shown(text)
                ));
            }
        };
        let number = (!count.is_empty() && count.len() <= 9 && count.bytes().all(|b| b.is_ascii_digit()))
            .then(|| count.parse::<i64>().ok())
            .flatten()
            .ok_or_else(|| {
                format!(
                    "`minimum_release_age` is `{}`: the number before `{unit}` must be a whole number (digits only), such as `3{unit}`",
                    crate::text::shown(text)
                )
            })?;
        let seconds = number * per_unit;
        if seconds > ReleaseAge::MAX_DAYS * 86_400 {
            return Err(format!(
                "`minimum_release_age` is `{}`, more than {} days",
                crate::text::shown(text),
                ReleaseAge::MAX_DAYS
            ));
        }
        Ok(ReleaseAge {
            seconds,
            text: text.to_owned(),
        })
    }
}

/// What squads.jsonc says about audit findings (PRJ-13).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditPolicy {
    /// The lowest severity that refuses a squad; `None` (`"off"`): no finding does.
    pub deny_at: Option<Severity>,
    pub accepted: Vec<AcceptedFinding>,
}

impl Default for AuditPolicy {
    fn default() -> AuditPolicy {
        AuditPolicy {
            deny_at: Some(Severity::Error),
            accepted: Vec::new(),
        }
    }
}

/// One audit finding accepted for one version of a squad, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedFinding {
    pub squad: Name,
    pub package_digest: crate::digest::Sha256Digest,
    pub code: Code,
    pub reason: String,
}

impl Declared {
    pub fn get(&self, name: &Name) -> Option<&Entry> {
        self.entries.iter().find(|entry| entry.name == *name)
    }

    /// The names declared, for asking of many names whether each is declared ([`Declared::get`]
    /// looks through every entry: a project of 1,000 squads asked it a million times).
    pub fn names(&self) -> std::collections::HashSet<&Name> {
        self.entries.iter().map(|entry| &entry.name).collect()
    }

    /// The entry a command-line name means: `<namespace>/<id>`, or an id alone.
    pub fn find(&self, text: &str) -> Option<&Entry> {
        self.entries.iter().find(|entry| {
            entry.name.to_string() == text || (!text.contains('/') && entry.name.id == text)
        })
    }
}

fn diagnostic(code: Code, span: Range<usize>, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, FILE, message).span(span)
}

/// The members of `object` that are known keys of the right type (PRJ-2), each given once;
/// every other member is reported.
fn known<'n>(
    object: Object,
    members: &'n [Member],
    pointer: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<(&'static Key, &'n Member)> {
    let mut found = Vec::new();
    for (index, member) in members.iter().enumerate() {
        let member_pointer = format!("{pointer}/{}", member.key);
        let Some(key) = keys_of(object).find(|key| key.name == member.key) else {
            let names: Vec<&str> = keys_of(object).map(|key| key.name).collect();
            let close = crate::text::closest(&member.key, names.iter().copied());
            let unknown = diagnostic(
                Code::SquadsUnknownKey,
                member.key_span.clone(),
                format!("unknown key `{}`", member.key),
            )
            .span_label("squad does not know this key")
            .pointer(member_pointer);
            let unknown = match close {
                // One close key the object lacks: a certain fix (`squad fix`).
                Some(close) if !members.iter().any(|other| other.key == close) => {
                    unknown.suggest(Suggestion::replace(
                        format!("did you mean `{close}`?"),
                        member.key_span.clone(),
                        serde_json::to_string(close).unwrap_or_default(),
                    ))
                }
                Some(close) => unknown.help(format!("did you mean `{close}`?")),
                None => unknown.help(format!(
                    "known keys here: {}",
                    names
                        .iter()
                        .map(|name| format!("`{name}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            };
            diagnostics.push(unknown);
            continue;
        };
        if let Some(later) = members[index + 1..]
            .iter()
            .find(|later| later.key == member.key)
        {
            diagnostics.push(
                diagnostic(
                    Code::SquadsDuplicate,
                    later.key_span.clone(),
                    format!("`{}` is given twice; give it once", member.key),
                )
                .label(member.key_span.clone(), "first given here")
                .pointer(member_pointer),
            );
            continue;
        }
        if !key.value.matches(&member.value) {
            let article = if key.value.name().starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            diagnostics.push(
                diagnostic(
                    Code::SquadsWrongType,
                    member.value.span.clone(),
                    format!(
                        "`{}` must be {article} {}, not {}",
                        member.key,
                        key.value.name(),
                        member.value.kind.type_name()
                    ),
                )
                .pointer(member_pointer),
            );
            continue;
        }
        found.push((key, member));
    }
    found
}

/// Reads the file's text: every problem as a diagnostic, and the entries without problems.
pub fn parse(text: &str) -> (Declared, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let mut declared = Declared::default();
    let root = match jsonc::parse(text) {
        Ok(root) => root,
        Err(error) => {
            diagnostics.push(crate::manifest::syntax_diagnostic_with(
                Code::SquadsSyntax,
                FILE,
                &error,
            ));
            return (declared, diagnostics);
        }
    };
    let Kind::Object(members) = &root.kind else {
        diagnostics.push(diagnostic(
            Code::SquadsWrongType,
            root.span.clone(),
            format!(
                "squads.jsonc must be an object, not {}",
                root.kind.type_name()
            ),
        ));
        return (declared, diagnostics);
    };
    let top = known(Object::Root, members, "", &mut diagnostics);
    let top_member = |name: &str| {
        top.iter()
            .find(|(key, _)| key.name == name)
            .map(|(_, member)| *member)
    };
    declared.deny_escalation = top_member("deny_escalation")
        .is_some_and(|member| matches!(member.value.kind, Kind::Bool(true)));
    declared.audit = read_audit(
        top_member("audit"),
        top_member("accepted_findings"),
        &mut diagnostics,
    );
    declared.policy = read_policy(
        top_member("require_signatures"),
        top_member("trust"),
        top_member("revoked"),
        &mut diagnostics,
    );
    declared.index = read_index(
        top_member("index"),
        top_member("index_key"),
        &mut diagnostics,
    );
    declared.minimum_release_age = top_member("minimum_release_age").and_then(|member| {
        let text = member.value.as_str()?;
        ReleaseAge::parse(text)
            .map_err(|message| {
                diagnostics.push(
                    diagnostic(Code::SquadsInvalidReleaseAge, member.value.span.clone(), message)
                        .pointer("/minimum_release_age")
                        .help("a cooldown is a whole number of days, hours or minutes: `\"3d\"`, `\"12h\"`, `\"90m\"` (docs/project-files.md, PRJ-14)"),
                );
            })
            .ok()
    });
    let Some((_, squads)) = top.iter().find(|(key, _)| key.name == "squads") else {
        return (declared, diagnostics);
    };
    let Kind::Object(squads) = &squads.value.kind else {
        return (declared, diagnostics);
    };
    // The first member of each id, among those whose key is a name: one look-up per member
    // instead of parsing every earlier key again (1,000 squads took 1,000,000 parses).
    let mut first_of_id: std::collections::HashMap<String, usize> =
        std::collections::HashMap::new();
    for (index, member) in squads.iter().enumerate() {
        let pointer = format!(
            "/squads/{}",
            member.key.replace('~', "~0").replace('/', "~1")
        );
        let name = match Name::parse(&member.key) {
            Ok(name) => name,
            Err(problem) => {
                diagnostics.push(
                    diagnostic(Code::SquadsInvalidName, member.key_span.clone(), problem)
                        .pointer(pointer)
                        .help("a squad is named by its manifest's namespace and id: `<namespace>/<id>`, both lower-kebab-case"),
                );
                continue;
            }
        };
        let first = *first_of_id.entry(name.id.clone()).or_insert(index);
        if let Some(earlier) = (first != index).then(|| &squads[first]) {
            let message = if earlier.key == member.key {
                format!("`{name}` is declared twice")
            } else {
                format!(
                    "`{name}` has the id of `{}`: a project scope holds one package per id, whatever its namespace",
                    earlier.key
                )
            };
            diagnostics.push(
                diagnostic(Code::SquadsDuplicate, member.key_span.clone(), message)
                    .label(earlier.key_span.clone(), "first declared here")
                    .pointer(pointer),
            );
            continue;
        }
        let Kind::Object(fields) = &member.value.kind else {
            let message = format!(
                "`{name}` must be an object with a `source`, not {}",
                member.value.kind.type_name()
            );
            diagnostics.push(
                diagnostic(Code::SquadsWrongType, member.value.span.clone(), message)
                    .pointer(pointer),
            );
            continue;
        };
        let before = diagnostics.len();
        let known_fields = known(Object::Squad, fields, &pointer, &mut diagnostics);
        let field = |name: &str| {
            known_fields
                .iter()
                .find(|(key, _)| key.name == name)
                .map(|(_, member)| *member)
        };
        let has_source = fields.iter().any(|field| field.key == "source");
        let fields = Fields {
            source: field("source"),
            index: field("index"),
            version: field("version"),
            sha256: field("sha256"),
        };
        let entry = read_entry(
            &name,
            member,
            &fields,
            has_source,
            &pointer,
            &mut diagnostics,
        );
        if let Some(entry) = entry.filter(|_| diagnostics.len() == before) {
            declared.entries.push(entry);
        }
    }
    declared.entries.sort_by(|a, b| a.name.cmp(&b.name));
    crate::interop::sort_by_span(&mut diagnostics);
    (declared, diagnostics)
}

/// The known members of one squad's entry.
struct Fields<'n> {
    source: Option<&'n Member>,
    index: Option<&'n Member>,
    version: Option<&'n Member>,
    sha256: Option<&'n Member>,
}

/// A squad taken by its name from the project's index: no `source` or `sha256` (the index says
/// where it is), an optional `version`.
fn read_index_entry(
    name: &Name,
    member: &Member,
    fields: &Fields<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Entry> {
    for (key, found) in [("source", fields.source), ("sha256", fields.sha256)] {
        if let Some(found) = found {
            diagnostics.push(
                diagnostic(
                    Code::SquadsInvalidSource,
                    found.key_span.clone(),
                    format!("`{key}` is given with `\"index\": true`, which takes `{name}` from the project's index"),
                )
                .help("give one: a `source`, or `\"index\": true`"),
            );
            return None;
        }
    }
    let version = match fields.version {
        Some(found) => {
            let text = found.value.as_str().unwrap_or_default();
            if let Err(error) = Version::parse(text) {
                diagnostics.push(diagnostic(
                    Code::SquadsInvalidVersion,
                    found.value.span.clone(),
                    format!("`{text}`: {error}"),
                ));
                return None;
            }
            Some(text.to_owned())
        }
        None => None,
    };
    Some(Entry {
        name: name.clone(),
        declaration: Declaration {
            source: Source::Index,
            source_text: INDEX_SOURCE.to_owned(),
            version,
            sha256: None,
        },
        span: member.key_span.clone(),
    })
}

/// What squads.lock records as the `source` of a squad taken from the project's index.
pub const INDEX_SOURCE: &str = "index";

/// PRJ-4…PRJ-9: one squad's source, version and SHA-256, and which source allows which.
fn read_entry(
    name: &Name,
    member: &Member,
    fields: &Fields<'_>,
    has_source: bool,
    pointer: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Entry> {
    if fields
        .index
        .is_some_and(|member| matches!(member.value.kind, Kind::Bool(true)))
    {
        return read_index_entry(name, member, fields, diagnostics);
    }
    let Some(source_member) = fields.source else {
        // A source of the wrong type was reported already.
        if !has_source {
            diagnostics.push(
                diagnostic(
                    Code::SquadsMissingKey,
                    member.key_span.clone(),
                    format!("`{name}` has no `source`"),
                )
                .pointer(pointer.to_owned())
                .help("give where it comes from, e.g. { \"source\": \"oci://ghcr.io/acme/squads/acme/review\" } or a folder relative to the project, or { \"index\": true } to take it from the project's `index`"),
            );
        }
        return None;
    };
    let source_text = source_member.value.as_str().unwrap_or_default().to_owned();
    let source_span = source_member.value.span.clone();
    let source = match Source::parse(&source_text) {
        Ok(source) => source,
        Err(problem) => {
            diagnostics.push(diagnostic(Code::SquadsInvalidSource, source_span, problem));
            return None;
        }
    };
    let version_text = fields
        .version
        .and_then(|member| member.value.as_str().map(str::to_owned));
    if let (Some(member), Some(text)) = (fields.version, &version_text) {
        let problem = match &source {
            Source::Registry(reference) if reference.tag.is_some() => {
                Some("the source names a tag already; give the version in one place".to_owned())
            }
            Source::Registry(reference) if reference.digest.is_some() => Some(
                "the source is pinned by digest, which fixes the version; drop `version`"
                    .to_owned(),
            ),
            Source::Registry(_) => Version::parse(text)
                .err()
                .map(|error| format!("`{text}`: {error}")),
            other => Some(format!(
                "a {} source fixes its own version; `version` is for oci:// sources",
                other.noun()
            )),
        };
        if let Some(problem) = problem {
            let invalid = diagnostic(
                Code::SquadsInvalidVersion,
                member.value.span.clone(),
                problem,
            );
            // A version written without its zeros has one certain writing (`squad fix`).
            let repaired = match &source {
                Source::Registry(reference)
                    if reference.tag.is_none() && reference.digest.is_none() =>
                {
                    crate::version::repaired(text)
                }
                _ => None,
            };
            diagnostics.push(match repaired {
                Some(repaired) => invalid.suggest(Suggestion::replace(
                    format!("write it `{repaired}`"),
                    member.value.span.clone(),
                    serde_json::to_string(&repaired).unwrap_or_default(),
                )),
                None => invalid,
            });
            return None;
        }
    }
    let sha256 = match (fields.sha256, &source) {
        (Some(member), Source::Https(_)) => {
            let text = member.value.as_str().unwrap_or_default();
            let Some(digest) = Sha256Digest::parse(text) else {
                diagnostics.push(diagnostic(
                    Code::SquadsInvalidSource,
                    member.value.span.clone(),
                    format!("`sha256` is `{text}`, not 64 lowercase hex characters"),
                ));
                return None;
            };
            Some(digest)
        }
        (Some(member), other) => {
            diagnostics.push(diagnostic(
                Code::SquadsInvalidSource,
                member.key_span.clone(),
                format!(
                    "`sha256` is for https:// sources; a {} source is checked by its own digests",
                    other.noun()
                ),
            ));
            return None;
        }
        (None, Source::Https(_)) => {
            diagnostics.push(
                diagnostic(
                    Code::SquadsMissingKey,
                    source_span,
                    format!("`{name}` is an https:// archive without its `sha256`"),
                )
                .help("add \"sha256\": \"<64 hex>\", the SHA-256 of the archive the URL serves"),
            );
            return None;
        }
        (None, _) => None,
    };
    let mismatch = match &source {
        Source::Link(link) if link.namespace != name.namespace || link.id != name.id => {
            Some(format!(
                "the install link is for `{}/{}`, not `{name}`",
                link.namespace, link.id
            ))
        }
        Source::Registry(reference) => {
            let path: Vec<&str> = reference.repository.rsplitn(3, '/').collect();
            (path.len() < 2 || path[1] != name.namespace || path[0] != name.id).then(|| {
                format!(
                    "the repository `{}` does not end with `{name}`: a squad is published at BASE/<namespace>/<id>",
                    reference.repository
                )
            })
        }
        _ => None,
    };
    if let Some(problem) = mismatch {
        diagnostics.push(diagnostic(Code::SquadsInvalidSource, source_span, problem));
        return None;
    }
    Some(Entry {
        name: name.clone(),
        declaration: Declaration {
            source,
            source_text,
            version: version_text,
            sha256,
        },
        span: member.key_span.clone(),
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_trusted_key_is_removed_from_its_lists_with_its_commas() {
        let (public, _) = crate::sign::minisig::generate(None).unwrap();
        let (other, _) = crate::sign::minisig::generate(None).unwrap();
        let text = format!(
            "{{\n  // who signs\n  \"trust\": {{\n    \"acme\": [\"{a}\", {{ \"key\": \"{b}\" }}],\n    \"*\": [{{ \"key\": \"{a}\", \"expires\": \"2030-01-01\" }}]\n  }}\n}}\n",
            a = public.base64,
            b = other.base64
        );
        let (only_acme, removed) = remove_trusted(&text, public.id, Some("acme")).unwrap();
        assert_eq!(removed, 1);
        assert!(only_acme.contains("// who signs"), "{only_acme}");
        let (policy, problems) = parse(&only_acme);
        assert!(problems.is_empty(), "{problems:?}\n{only_acme}");
        assert_eq!(policy.policy.trusted.len(), 2);
        let (everywhere, removed) = remove_trusted(&text, public.id, None).unwrap();
        assert_eq!(removed, 2);
        let (policy, problems) = parse(&everywhere);
        assert!(problems.is_empty(), "{problems:?}\n{everywhere}");
        assert_eq!(policy.policy.trusted.len(), 1);
        assert_eq!(policy.policy.trusted[0].key.id, other.id);
        assert_eq!(remove_trusted(&everywhere, public.id, None).unwrap().1, 0);
    }

    #[test]
    fn a_revoked_key_is_added_once_and_the_rest_keeps_its_bytes() {
        let key = crate::sign::KeyId::parse("0A5B0BCCC0DEA6EC").unwrap();
        let text = "// ours\n{\n  \"squads\": {} // none yet\n}\n";
        let once = add_revoked(text, key).unwrap();
        assert!(once.starts_with("// ours\n"), "{once}");
        assert!(once.contains("// none yet"), "{once}");
        assert!(
            once.contains("\"revoked\": [\"0A5B0BCCC0DEA6EC\"]"),
            "{once}"
        );
        assert_eq!(add_revoked(&once, key).unwrap(), once);
        let other = crate::sign::KeyId::parse("1111111111111111").unwrap();
        let twice = add_revoked(&once, other).unwrap();
        let (policy, problems) = parse(&twice);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(policy.policy.revoked, [key, other]);
        assert!(add_revoked("{ \"revoked\": 1 }", key).is_err());
    }
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn codes(text: &str) -> Vec<(&'static str, usize)> {
        let (_, diagnostics) = parse(text);
        let file = crate::source::SourceFile::new(text.to_owned());
        diagnostics
            .iter()
            .map(|diagnostic| {
                let line = diagnostic
                    .span
                    .as_ref()
                    .map_or(0, |span| file.position(span.start).line);
                (diagnostic.code.as_str(), line)
            })
            .collect()
    }

    #[test]
    fn a_file_with_every_source_kind_reads() {
        let text = format!(
            r#"// ours
{{
  "squads": {{
    "acme/local": {{ "source": "squads/local" }},
    "acme/zip": {{ "source": "vendor/zip.zip" }},
    "acme/review": {{ "source": "oci://127.0.0.1:5000/squads/acme/review", "version": "2026.12.01.1" }},
    "acme/newest": {{ "source": "oci://127.0.0.1:5000/squads/acme/newest" }},
    "acme/web": {{ "source": "https://example.com/web.zip", "sha256": "{SHA}" }}, // trailing
  }},
}}"#
        );
        let (declared, diagnostics) = parse(&text);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let names: Vec<String> = declared
            .entries
            .iter()
            .map(|entry| entry.name.to_string())
            .collect();
        assert_eq!(
            names,
            [
                "acme/local",
                "acme/newest",
                "acme/review",
                "acme/web",
                "acme/zip"
            ]
        );
        assert_eq!(declared.find("review").unwrap().name.id, "review");
        assert_eq!(
            declared.find("acme/web").unwrap().declaration.sha256,
            Sha256Digest::parse(SHA)
        );
    }

    #[test]
    fn every_problem_is_reported_at_its_line() {
        assert_eq!(codes("{\n  \"squads\": {,}\n}"), [("squads-syntax", 2)]);
        assert_eq!(codes("[]"), [("squads-wrong-type", 1)]);
        let text = r#"{
  "squadz": {},
  "squads": {
    "Acme/x": { "source": "x" },
    "acme/a": { "sourse": "a" },
    "acme/b": { "source": "/abs" },
    "acme/c": { "source": "oci://r.example/s/acme/c:2026.12.01.1", "version": "2026.12.01.1" },
    "acme/d": { "source": "d", "version": "2026.12.01.1" },
    "acme/e": { "source": "https://example.com/e.zip" },
    "acme/f": { "source": "f", "sha256": "x" },
    "other/f": { "source": "f2" },
    "acme/g": { "source": "oci://r.example/s/acme/other" },
    "acme/h": { "source": 1 },
    "acme/i": "i",
    "acme/j": { "source": "j", "source": "j2" }
  }
}"#;
        assert_eq!(
            codes(text),
            [
                ("squads-unknown-key", 2),
                ("squads-invalid-name", 4),
                ("squads-missing-key", 5),
                ("squads-unknown-key", 5),
                ("squads-invalid-source", 6),
                ("squads-invalid-version", 7),
                ("squads-invalid-version", 8),
                ("squads-missing-key", 9),
                ("squads-invalid-source", 10),
                ("squads-duplicate", 11),
                ("squads-invalid-source", 12),
                ("squads-wrong-type", 13),
                ("squads-wrong-type", 14),
                ("squads-duplicate", 15),
            ]
        );
        let (declared, _) = parse(text);
        assert!(declared.entries.is_empty(), "{:?}", declared.entries);
    }

    #[test]
    fn edits_keep_comments_and_only_touch_their_entry() {
        let name = |text: &str| Name::parse(text).unwrap();
        let declaration = |source: &str, version: Option<&str>| Declaration {
            source: Source::parse(source).unwrap(),
            source_text: source.to_owned(),
            version: version.map(str::to_owned),
            sha256: None,
        };
        let created = new_file(
            &name("acme/a"),
            &declaration("oci://r.example/s/acme/a", Some("2026.12.01.1")),
        );
        assert!(parse(&created).1.is_empty());
        let text = "// mine\n{\n  \"squads\": {\n    // the review squad\n    \"acme/a\": { \"source\": \"a\" /* local */ }\n  } // end\n}\n";
        let added = set_entry(text, &name("acme/b"), &declaration("b", None)).unwrap();
        assert_eq!(
            added,
            "// mine\n{\n  \"squads\": {\n    // the review squad\n    \"acme/a\": { \"source\": \"a\" /* local */ },\n    \"acme/b\": { \"source\": \"b\" },\n  } // end\n}\n"
        );
        // A squad that sorts first goes above the first one and its comment; no line changes.
        let first = set_entry(&added, &name("aa/z"), &declaration("z", None)).unwrap();
        assert_eq!(
            first,
            added.replace(
                "    // the review squad\n",
                "    \"aa/z\": { \"source\": \"z\" },\n    // the review squad\n"
            )
        );
        let moved = set_entry(
            &added,
            &name("acme/a"),
            &declaration("oci://r.example/s/acme/a", Some("2026.12.02.1")),
        )
        .unwrap();
        assert!(moved.contains("\"acme/a\": { \"source\": \"oci://r.example/s/acme/a\", \"version\": \"2026.12.02.1\" /* local */ },"), "{moved}");
        let back = set_entry(&moved, &name("acme/a"), &declaration("a", None)).unwrap();
        assert!(
            back.contains("\"acme/a\": { \"source\": \"a\" /* local */ },"),
            "{back}"
        );
        let removed = remove_entry(&back, &name("acme/b")).unwrap();
        assert_eq!(
            removed,
            text.replace("/* local */ }\n", "/* local */ },\n"),
            "acme/b's line goes, and no other line changes"
        );
        assert!(parse(&removed).1.is_empty());
        let empty = set_entry("{}", &name("acme/a"), &declaration("a", None)).unwrap();
        assert_eq!(parse(&empty).0.entries.len(), 1);
    }

    #[test]
    fn the_keys_table_is_documented() {
        let page = crate::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/docs/project-files.md"
        ))
        .unwrap_or_default();
        assert!(
            page.contains(&keys_markdown()),
            "docs/project-files.md does not hold the keys table:\n{}",
            keys_markdown()
        );
    }
}
