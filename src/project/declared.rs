//! `<project>/.opencorvus/squads.jsonc`: the squads a project declares, written by people and
//! by `squad add`, `remove` and `update`, which edit it in place ([`crate::jsonc::edit`]) so
//! comments and formatting survive. Reading it reports every problem at once as diagnostics
//! with `file:line:col`; the keys it may hold are one table, [`KEYS`], which the checks, the
//! error hints and docs/project-files.md all read.

use std::ops::Range;

use crate::diag::{Code, Diagnostic, Severity, Suggestion};
use crate::digest::Sha256Digest;
use crate::jsonc::{self, Kind, Member, Node, edit};
use crate::version::Version;

use crate::acquire::source::Source;

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

/// PRJ-13: the audit policy. Entries with problems are reported and left out.
fn read_audit(
    severity: Option<&Member>,
    accepted: Option<&Member>,
    diagnostics: &mut Vec<Diagnostic>,
) -> AuditPolicy {
    let invalid = |span: Range<usize>, pointer: String, message: String| {
        diagnostic(Code::SquadsInvalidAudit, span, message)
            .pointer(pointer)
            .help("see docs/capabilities.md, \"The project policy\": `audit` is `error`, `warning`, `note` or `off`; an accepted finding names the squad, its package digest (`squad digest`), the code `squad audit` printed and a reason")
    };
    let mut policy = AuditPolicy::default();
    if let Some(member) = severity {
        match member.value.as_str() {
            Some("error") => policy.deny_at = Some(Severity::Error),
            Some("warning") => policy.deny_at = Some(Severity::Warning),
            Some("note") => policy.deny_at = Some(Severity::Note),
            Some("off") => policy.deny_at = None,
            Some(other) => diagnostics.push(invalid(
                member.value.span.clone(),
                "/audit".to_owned(),
                format!("`audit` is `{other}`, not `error`, `warning`, `note` or `off`"),
            )),
            None => {}
        }
    }
    let Some(Kind::Array(items)) = accepted.map(|member| &member.value.kind) else {
        return policy;
    };
    for (index, item) in items.iter().enumerate() {
        let pointer = format!("/accepted_findings/{index}");
        let Kind::Object(fields) = &item.kind else {
            diagnostics.push(invalid(
                item.span.clone(),
                pointer,
                format!(
                    "an accepted finding is an object, not {}",
                    item.kind.type_name()
                ),
            ));
            continue;
        };
        let field = |key: &str| fields.iter().rev().find(|field| field.key == key);
        if let Some(unknown) = fields.iter().find(|field| {
            !["squad", "package_digest", "code", "reason"].contains(&field.key.as_str())
        }) {
            diagnostics.push(invalid(
                unknown.key_span.clone(),
                format!("{pointer}/{}", unknown.key),
                format!("unknown key `{}` in an accepted finding", unknown.key),
            ));
            continue;
        }
        let text = |key: &str| field(key).and_then(|field| field.value.as_str());
        let squad = text("squad").and_then(|squad| Name::parse(squad).ok());
        let digest = text("package_digest").and_then(crate::digest::Sha256Digest::parse);
        let code = text("code")
            .and_then(Code::from_name)
            .filter(|code| code.rules().starts_with("AUD-"));
        let reason = text("reason").filter(|reason| !reason.trim().is_empty());
        let (Some(squad), Some(package_digest), Some(code), Some(reason)) =
            (squad, digest, code, reason)
        else {
            let missing: Vec<&str> = [
                (
                    "squad",
                    text("squad").and_then(|s| Name::parse(s).ok()).is_none(),
                ),
                (
                    "package_digest",
                    text("package_digest")
                        .and_then(crate::digest::Sha256Digest::parse)
                        .is_none(),
                ),
                (
                    "code",
                    text("code")
                        .and_then(Code::from_name)
                        .filter(|c| c.rules().starts_with("AUD-"))
                        .is_none(),
                ),
                (
                    "reason",
                    text("reason").filter(|r| !r.trim().is_empty()).is_none(),
                ),
            ]
            .into_iter()
            .filter(|(_, bad)| *bad)
            .map(|(key, _)| key)
            .collect();
            diagnostics.push(invalid(
                item.span.clone(),
                pointer,
                format!(
                    "an accepted finding needs a squad (`<namespace>/<id>`), a package digest (64 lowercase hex), an audit code and a reason: {} {} not",
                    missing.iter().map(|key| format!("`{key}`")).collect::<Vec<_>>().join(", "),
                    if missing.len() == 1 { "is" } else { "are" }
                ),
            ));
            continue;
        };
        policy.accepted.push(AcceptedFinding {
            squad,
            package_digest,
            code,
            reason: reason.to_owned(),
        });
    }
    policy
}

/// PRJ-11: the signature policy. Entries with problems are reported and left out.
/// `index` (a URL an index can be read from) and `index_key` (a minisign public key).
fn read_index(
    index: Option<&Member>,
    key: Option<&Member>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<IndexConfig> {
    let key = key.and_then(|member| {
        let text = member.value.as_str()?;
        match crate::sign::PublicKey::parse(text) {
            Ok(key) => Some(key),
            Err(error) => {
                diagnostics.push(
                    diagnostic(
                        Code::SquadsInvalidTrust,
                        member.value.span.clone(),
                        format!("`index_key` is not a minisign public key: {error}"),
                    )
                    .pointer("/index_key")
                    .help("the key is the `RW…` line of the index publisher's minisign .pub file"),
                );
                None
            }
        }
    });
    let member = index?;
    let url = member.value.as_str()?;
    if let Err(error) = crate::index::fetch::base_url(url) {
        diagnostics.push(
            diagnostic(
                Code::SquadsInvalidSource,
                member.value.span.clone(),
                format!("`index`: {error}"),
            )
            .pointer("/index"),
        );
        return None;
    }
    Some(IndexConfig {
        url: url.to_owned(),
        key,
    })
}

fn read_policy(
    require: Option<&Member>,
    trust: Option<&Member>,
    revoked: Option<&Member>,
    diagnostics: &mut Vec<Diagnostic>,
) -> crate::sign::Policy {
    use crate::sign::{KeyId, PublicKey, Trusted, policy::ANY_NAMESPACE};
    let mut policy = crate::sign::Policy {
        require_signatures: matches!(
            require.map(|member| &member.value.kind),
            Some(Kind::Bool(true))
        ),
        ..crate::sign::Policy::default()
    };
    let invalid = |span: Range<usize>, message: String| {
        diagnostic(Code::SquadsInvalidTrust, span, message)
            .help("a key is the `RW…` line of a minisign .pub file (`squad trust add` writes it); see docs/signatures.md")
    };
    if let Some(Kind::Object(namespaces)) = trust.map(|member| &member.value.kind) {
        for (index, namespace) in namespaces.iter().enumerate() {
            // Two lists for one namespace would both be trusted, and an edit of one would leave
            // the other: the file is refused until there is one.
            if let Some(first) = namespaces[..index]
                .iter()
                .find(|earlier| earlier.key == namespace.key)
            {
                diagnostics.push(
                    diagnostic(
                        Code::SquadsDuplicate,
                        namespace.key_span.clone(),
                        format!(
                            "`trust` lists the namespace `{}` twice; give its keys in one list",
                            namespace.key
                        ),
                    )
                    .label(first.key_span.clone(), "first listed here")
                    .pointer(format!(
                        "/trust/{}",
                        namespace.key.replace('~', "~0").replace('/', "~1")
                    ))
                    .help(
                        "move the keys of the second list into the first, then delete the second",
                    ),
                );
                continue;
            }
            if namespace.key != ANY_NAMESPACE {
                if let Some((_, problem)) =
                    crate::manifest::id_problem(&namespace.key, crate::manifest::IdKind::Package)
                {
                    diagnostics.push(invalid(
                        namespace.key_span.clone(),
                        format!("`{}` is not a namespace or `*`: {problem}", namespace.key),
                    ));
                    continue;
                }
            }
            let Kind::Array(keys) = &namespace.value.kind else {
                diagnostics.push(invalid(
                    namespace.value.span.clone(),
                    format!(
                        "the keys trusted for `{}` are a list, not {}",
                        namespace.key,
                        namespace.value.kind.type_name()
                    ),
                ));
                continue;
            };
            for node in keys {
                let (key_text, key_span, expires) = match &node.kind {
                    Kind::String(_) => (node.as_str().unwrap_or_default(), node.span.clone(), None),
                    Kind::Object(fields) => {
                        let field =
                            |name: &str| fields.iter().rev().find(|field| field.key == name);
                        if let Some((later, first)) =
                            fields.iter().enumerate().find_map(|(at, later)| {
                                fields[..at]
                                    .iter()
                                    .find(|earlier| earlier.key == later.key)
                                    .map(|first| (later, first))
                            })
                        {
                            diagnostics.push(
                                diagnostic(
                                    Code::SquadsDuplicate,
                                    later.key_span.clone(),
                                    format!("`{}` is given twice; give it once", later.key),
                                )
                                .label(first.key_span.clone(), "first given here"),
                            );
                            continue;
                        }
                        if let Some(other) = fields
                            .iter()
                            .find(|field| field.key != "key" && field.key != "expires")
                        {
                            diagnostics.push(invalid(
                                other.key_span.clone(),
                                format!(
                                    "unknown key `{}`: a trusted key has `key` and `expires`",
                                    other.key
                                ),
                            ));
                            continue;
                        }
                        let Some(key) = field("key").filter(|key| key.value.as_str().is_some())
                        else {
                            diagnostics.push(invalid(
                                node.span.clone(),
                                "a trusted key object needs `key`, a string".to_owned(),
                            ));
                            continue;
                        };
                        let expires = match field("expires") {
                            None => None,
                            Some(expires) => {
                                let text = expires.value.as_str().unwrap_or_default();
                                match crate::version::Date::parse(text) {
                                    Some(date) => Some(date),
                                    None => {
                                        diagnostics.push(invalid(
                                            expires.value.span.clone(),
                                            format!("`expires` is `{text}`, not a YYYY-MM-DD date"),
                                        ));
                                        continue;
                                    }
                                }
                            }
                        };
                        (
                            key.value.as_str().unwrap_or_default(),
                            key.value.span.clone(),
                            expires,
                        )
                    }
                    other => {
                        diagnostics.push(invalid(
                            node.span.clone(),
                            format!(
                                "a trusted key is a string or an object, not {}",
                                other.type_name()
                            ),
                        ));
                        continue;
                    }
                };
                match PublicKey::parse(key_text) {
                    Ok(key) => policy.trusted.push(Trusted {
                        key,
                        namespace: namespace.key.clone(),
                        expires,
                    }),
                    Err(error) => diagnostics.push(invalid(
                        key_span,
                        format!("not a minisign public key: {error}"),
                    )),
                }
            }
        }
    }
    if let Some(Kind::Array(entries)) = revoked.map(|member| &member.value.kind) {
        for node in entries {
            let text = node.as_str().unwrap_or_default();
            let id = KeyId::parse(text).or_else(|| PublicKey::parse(text).ok().map(|key| key.id));
            match id {
                Some(id) => policy.revoked.push(id),
                None => diagnostics.push(invalid(
                    node.span.clone(),
                    "a revoked key is a key id (16 hex digits) or a minisign public key".to_owned(),
                )),
            }
        }
    }
    policy
}

/// `text` trusting `key` for `namespace` (`*`: all), until `expires` when given, and
/// requiring signatures when `require`: the `trust` object and the namespace's list are
/// created when absent, the key appended to the list; everything else keeps its bytes.
/// Returns the text unchanged when the key is trusted there already (with that expiry).
pub fn add_trusted(
    text: &str,
    namespace: &str,
    key: &crate::sign::PublicKey,
    expires: Option<crate::version::Date>,
    require: bool,
) -> Result<String, String> {
    let mut text = text.to_owned();
    if require {
        let root = parse_object(&text)?;
        let already = matches!(
            edit::member(&root, "require_signatures").map(|member| &member.value.kind),
            Some(Kind::Bool(true))
        );
        if !already {
            text = edit::set_member(&text, &root, "require_signatures", "true");
        }
    }
    let root = parse_object(&text)?;
    match edit::member(&root, "trust").map(|member| &member.value.kind) {
        Some(Kind::Object(_)) => {}
        Some(other) => return Err(format!("`trust` is {}, not an object", other.type_name())),
        None => text = edit::set_member(&text, &root, "trust", "{}"),
    }
    let entry = match expires {
        Some(date) => format!(
            "{{ \"key\": {}, \"expires\": \"{date}\" }}",
            serde_json::to_string(&key.base64).unwrap_or_default()
        ),
        None => serde_json::to_string(&key.base64).unwrap_or_default(),
    };
    let root = parse_object(&text)?;
    let trust = &edit::member(&root, "trust").expect("added above").value;
    let Some(list) = edit::member(trust, namespace) else {
        return Ok(edit::set_member(
            &text,
            trust,
            namespace,
            &format!("[{entry}]"),
        ));
    };
    let Kind::Array(items) = &list.value.kind else {
        return Err(format!("`trust.{namespace}` is not a list"));
    };
    let (policy, _) = parse(&text);
    if policy.policy.trusted.iter().any(|trusted| {
        trusted.namespace == namespace && trusted.key.id == key.id && trusted.expires == expires
    }) {
        return Ok(text);
    }
    Ok(match items.last() {
        Some(last) => edit::splice(&text, last.span.end..last.span.end, &format!(", {entry}")),
        None => edit::splice(&text, list.value.span.clone(), &format!("[{entry}]")),
    })
}

/// `text` without `key` in the trust lists of `namespace` (every namespace when `None`): each
/// entry of that key, a string or an object, is removed with its comma; everything else keeps
/// its bytes. Returns the text and how many entries went.
pub fn remove_trusted(
    text: &str,
    key: crate::sign::KeyId,
    namespace: Option<&str>,
) -> Result<(String, usize), String> {
    let is_key = |node: &Node| {
        let text = match &node.kind {
            Kind::Object(_) => edit::member(node, "key").and_then(|member| member.value.as_str()),
            _ => node.as_str(),
        };
        text.and_then(|text| crate::sign::PublicKey::parse(text).ok())
            .is_some_and(|parsed| parsed.id == key)
    };
    let root = parse_object(text)?;
    let Some(trust) = edit::member(&root, "trust") else {
        return Ok((text.to_owned(), 0));
    };
    let Kind::Object(lists) = &trust.value.kind else {
        return Err("`trust` is not an object".to_owned());
    };
    let names: Vec<String> = lists
        .iter()
        .map(|list| list.key.clone())
        .filter(|name| namespace.is_none_or(|wanted| wanted == name))
        .collect();
    let (mut text, mut removed) = (text.to_owned(), 0);
    for name in names {
        // Parsed again for each list: an edit moves the spans after it.
        let root = parse_object(&text)?;
        let trust = &edit::member(&root, "trust").expect("seen above").value;
        let list = &edit::member(trust, &name).expect("seen above").value;
        if let Kind::Array(entries) = &list.kind {
            removed += entries.iter().filter(|node| is_key(node)).count();
            text = edit::remove_elements(&text, list, &is_key);
        }
    }
    Ok((text, removed))
}

/// `text` with `key` in its `revoked` list (created when absent), everything else keeping its
/// bytes. Returns the text unchanged when the key is revoked there already.
pub fn add_revoked(text: &str, key: crate::sign::KeyId) -> Result<String, String> {
    let (policy, _) = parse(text);
    if policy.policy.revoked.contains(&key) {
        return Ok(text.to_owned());
    }
    let mut text = text.to_owned();
    let root = parse_object(&text)?;
    match edit::member(&root, "revoked").map(|member| &member.value.kind) {
        Some(Kind::Array(_)) => {}
        Some(other) => return Err(format!("`revoked` is {}, not a list", other.type_name())),
        None => text = edit::set_member(&text, &root, "revoked", "[]"),
    }
    let root = parse_object(&text)?;
    let list = &edit::member(&root, "revoked").expect("added above").value;
    Ok(edit::push_element(&text, list, &format!("\"{key}\"")))
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

/// The `squads.jsonc` of a project that declares no squad yet (`squad init`).
pub const EMPTY_FILE: &str = "\
// The squads this project uses. `squad add`, `squad remove` and `squad update` edit this
// file in place and keep your comments; `squad sync` installs exactly what squads.lock
// records. Commit both files.
{
  \"squads\": {
  }
}
";

/// A new `squads.jsonc` declaring one squad.
pub fn new_file(name: &Name, declaration: &Declaration) -> String {
    set_entry(EMPTY_FILE, name, declaration).unwrap_or_else(|_| EMPTY_FILE.to_owned())
}

fn parse_object(text: &str) -> Result<Node, String> {
    let root = jsonc::parse(text)
        .map_err(|error| format!("squads.jsonc is not valid JSONC ({})", error.code))?;
    if !matches!(root.kind, Kind::Object(_)) {
        return Err("squads.jsonc is not an object".to_owned());
    }
    Ok(root)
}

/// The `squads` object of a file's text, added when absent.
fn with_squads(text: &str) -> Result<String, String> {
    let root = parse_object(text)?;
    if edit::member(&root, "squads").is_some() {
        return Ok(text.to_owned());
    }
    Ok(edit::set_member(text, &root, "squads", "{}"))
}

/// `text` declaring `name` with `declaration`: an existing entry keeps its comments and has
/// only its keys rewritten; a new one goes on a line of its own at its sorted place, with a
/// trailing comma, so an add changes no other line and two adds on two branches merge
/// (docs/project-files.md, "Committing and merging").
pub fn set_entry(text: &str, name: &Name, declaration: &Declaration) -> Result<String, String> {
    let mut text = with_squads(text)?;
    let key = name.to_string();
    let entry = |text: &str| -> Result<Option<Node>, String> {
        let root = parse_object(text)?;
        let squads = edit::member(&root, "squads").map(|member| member.value.clone());
        Ok(squads.and_then(|squads| edit::member(&squads, &key).map(|m| m.value.clone())))
    };
    match entry(&text)? {
        Some(existing) if matches!(existing.kind, Kind::Object(_)) => {
            let fields = match declaration.source {
                Source::Index => [
                    ("index", Some("true".to_owned())),
                    (
                        "version",
                        declaration.version.clone().map(|v| quote_json(&v)),
                    ),
                    ("source", None),
                ],
                _ => [
                    ("source", Some(quote_json(&declaration.source_text))),
                    (
                        "version",
                        declaration.version.clone().map(|v| quote_json(&v)),
                    ),
                    (
                        "sha256",
                        declaration.sha256.map(|digest| quote_json(&digest.hex())),
                    ),
                ],
            };
            for (field, value) in fields {
                let Some(object) = entry(&text)? else { break };
                text = match value {
                    Some(value) => edit::set_member(&text, &object, field, &value),
                    None => edit::remove_member(&text, &object, field),
                };
            }
            Ok(text)
        }
        _ => {
            let root = parse_object(&text)?;
            let squads = &edit::member(&root, "squads").expect("added above").value;
            Ok(edit::insert_member_sorted(
                &text,
                squads,
                &key,
                &declaration.to_json(),
            ))
        }
    }
}

fn quote_json(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// `text` without the entry `name` (its comments stay).
pub fn remove_entry(text: &str, name: &Name) -> Result<String, String> {
    let root = parse_object(text)?;
    match edit::member(&root, "squads") {
        Some(squads) => Ok(edit::remove_member(text, &squads.value, &name.to_string())),
        None => Ok(text.to_owned()),
    }
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
