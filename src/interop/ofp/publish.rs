//! A squad published on an Open Floor (seed-formats §3.7): one assistant manifest per agent,
//! wrapped in a conversation envelope whose publishManifests event answers `getManifests`.
//! Everything is derived from the package and the flags, so the output is deterministic.

use serde::Serialize;

use super::envelope::PUBLISH;
use crate::diag::{Code, Diagnostic};
use crate::interop::document::join;
use crate::interop::squad::Squad;

/// About five seconds spoken (Assistant Manifest spec).
pub const SYNOPSIS_MAX_CHARS: usize = 75;

/// What the flags say.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The base endpoint; each agent's serviceUrl is `<base>/<namespace>/<squad-id>/<agent-id>`.
    pub service_url: &'a str,
    pub organization: &'a str,
    /// RFC 4151 tagging authority; the service URL's host by default.
    pub authority: Option<&'a str>,
    pub languages: &'a [String],
    pub include_scheduler: bool,
    pub conversation_id: Option<&'a str>,
    pub sender: Option<&'a str>,
    /// `publishManifests` (the spec's spelling) or `publishManifest` (the docs schema's).
    pub event_name: &'a str,
}

/// The result: the envelope (or just its manifests) plus findings about the package, which
/// point into its expert-squad.jsonc. Any error finding means there is no usable output.
#[derive(Debug)]
pub struct Published {
    pub envelope: Envelope,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Envelope {
    #[serde(rename = "openFloor")]
    pub open_floor: OpenFloor,
}

#[derive(Debug, Clone, Serialize)]
pub struct OpenFloor {
    pub schema: SchemaVersion,
    pub conversation: Conversation,
    pub sender: Sender,
    pub events: Vec<Event>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SchemaVersion {
    pub version: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Conversation {
    pub id: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sender {
    pub speaker_uri: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    pub event_type: String,
    pub parameters: Parameters,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Parameters {
    pub servicing_manifests: Vec<Manifest>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Manifest {
    pub identification: Identification,
    pub capabilities: Vec<Capability>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Identification {
    pub speaker_uri: String,
    pub service_url: String,
    pub organization: String,
    pub conversational_name: String,
    pub department: String,
    pub role: String,
    pub synopsis: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capability {
    pub keyphrases: Vec<String>,
    pub descriptions: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<String>,
    pub supported_layers: Layers,
}

#[derive(Debug, Clone, Serialize)]
pub struct Layers {
    pub input: Vec<&'static str>,
    pub output: Vec<&'static str>,
}

impl Envelope {
    pub fn manifests(&self) -> &[Manifest] {
        self.open_floor
            .events
            .first()
            .map_or(&[], |event| &event.parameters.servicing_manifests)
    }
}

/// One agent as a manifest speaks of it.
struct Speaker<'s> {
    id: &'s str,
    label: &'s str,
    description: Option<&'s str>,
    /// Where the description lives (or belongs) in expert-squad.jsonc.
    pointer: String,
}

/// Builds the envelope. `Err` is a usage problem with the flags (exit 2); findings about the
/// package are in [`Published::diagnostics`].
pub fn publish(squad: &Squad, request: &Request) -> Result<Published, String> {
    let base = service_base(request.service_url)?;
    let authority = match request.authority {
        Some(authority) => authority.to_owned(),
        None => base.host.clone().ok_or_else(|| {
            format!(
                "`{}` has no host to use as the tag authority; pass --authority",
                request.service_url
            )
        })?,
    };
    if !is_tag_authority(&authority) {
        return Err(format!(
            "`{authority}` is not a tag authority (RFC 4151: a DNS name or an email address); pass --authority"
        ));
    }
    if request.organization.trim().is_empty() {
        return Err("--organization must not be blank".to_owned());
    }
    for language in request.languages {
        if !is_language_tag(language) {
            return Err(format!("`{language}` is not a BCP 47 language tag"));
        }
    }
    for (flag, value) in [
        ("--conversation-id", request.conversation_id),
        ("--sender", request.sender),
    ] {
        if value.is_some_and(|value| value.trim().is_empty()) {
            return Err(format!("{flag} must not be blank"));
        }
    }
    // The package version is YYYY.MM.DD.N (it passed validation): the tag date is its year,
    // stable across the revisions of a year.
    let year = squad.version.get(..4).unwrap_or("2026");
    let tag = format!("tag:{authority},{year}:{}/{}", squad.namespace, squad.id);

    let mut speakers = Vec::new();
    if request.include_scheduler {
        speakers.push(Speaker {
            id: &squad.id,
            label: &squad.label,
            description: squad.description.as_deref(),
            pointer: "/description".to_owned(),
        });
    }
    let mut agents: Vec<_> = squad.agents.iter().collect();
    agents.sort_by(|a, b| a.id.cmp(&b.id));
    speakers.extend(agents.into_iter().map(|agent| Speaker {
        id: &agent.id,
        label: &agent.label,
        description: agent.description.as_deref(),
        pointer: join(
            &join("/capability_projection/agents", &agent.id),
            "description",
        ),
    }));

    let mut diagnostics = Vec::new();
    let mut manifests = Vec::new();
    for speaker in &speakers {
        let synopsis = speaker.description.map(str::trim).unwrap_or("");
        if synopsis.is_empty() {
            diagnostics.push(
                squad
                    .at(
                        Code::OfpManifestSynopsis,
                        &speaker.pointer,
                        format!(
                            "`{}` has no description, and an assistant manifest's synopsis is mandatory",
                            speaker.id
                        ),
                    )
                    .help("add a one-sentence `description`; it becomes the manifest's synopsis"),
            );
            continue;
        }
        let length = synopsis.chars().count();
        if length > SYNOPSIS_MAX_CHARS {
            diagnostics.push(squad.at(
                Code::OfpSynopsisLong,
                &speaker.pointer,
                format!(
                    "`{}`'s description becomes a synopsis of {length} characters; the spec asks for about {SYNOPSIS_MAX_CHARS} (5 seconds spoken)",
                    speaker.id
                ),
            ));
        }
        manifests.push(manifest(
            squad, speaker, synopsis, &tag, &base.text, request,
        ));
    }
    let envelope = Envelope {
        open_floor: OpenFloor {
            schema: SchemaVersion { version: "1.0.0" },
            conversation: Conversation {
                id: request.conversation_id.map_or_else(
                    || format!("squad:{}/{}@{}", squad.namespace, squad.id, squad.version),
                    str::to_owned,
                ),
            },
            sender: Sender {
                speaker_uri: request.sender.map_or_else(|| tag.clone(), str::to_owned),
            },
            events: vec![Event {
                event_type: request.event_name.to_owned(),
                parameters: Parameters {
                    servicing_manifests: manifests,
                },
            }],
        },
    };
    Ok(Published {
        envelope,
        diagnostics,
    })
}

fn manifest(
    squad: &Squad,
    speaker: &Speaker,
    synopsis: &str,
    tag: &str,
    base: &str,
    request: &Request,
) -> Manifest {
    let mut keyphrases: Vec<String> = Vec::new();
    for phrase in speaker
        .id
        .split('-')
        .chain(std::iter::once(squad.id.as_str()))
    {
        if !phrase.is_empty() && !keyphrases.iter().any(|known| known == phrase) {
            keyphrases.push(phrase.to_owned());
        }
    }
    let mut descriptions: Vec<String> = Vec::new();
    for text in [Some(synopsis), squad.description.as_deref()]
        .into_iter()
        .flatten()
        .map(str::trim)
    {
        if !text.is_empty() && !descriptions.iter().any(|known| known == text) {
            descriptions.push(text.to_owned());
        }
    }
    Manifest {
        identification: Identification {
            speaker_uri: format!("{tag}/{}", speaker.id),
            service_url: format!("{base}/{}/{}/{}", squad.namespace, squad.id, speaker.id),
            organization: request.organization.to_owned(),
            conversational_name: speaker.label.to_owned(),
            department: squad.label.clone(),
            role: speaker.label.to_owned(),
            synopsis: synopsis.to_owned(),
        },
        capabilities: vec![Capability {
            keyphrases,
            descriptions,
            languages: request.languages.to_vec(),
            supported_layers: Layers {
                input: vec!["text"],
                output: vec!["text"],
            },
        }],
    }
}

struct Base {
    /// Without a trailing `/`, so paths can be appended.
    text: String,
    host: Option<String>,
}

fn service_base(text: &str) -> Result<Base, String> {
    let url = url::Url::parse(text)
        .map_err(|error| format!("--service-url `{text}` is not an absolute URL: {error}"))?;
    if url.cannot_be_a_base() {
        return Err(format!("--service-url `{text}` cannot have paths appended"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(format!(
            "--service-url `{text}` has a query or fragment; agent paths are appended to it"
        ));
    }
    Ok(Base {
        text: text.trim_end_matches('/').to_owned(),
        host: url.host_str().map(str::to_owned),
    })
}

/// RFC 4151 `authorityName`: a DNS name, or an email address whose local part is
/// letters, digits, `-`, `.` and `_`.
pub fn is_tag_authority(text: &str) -> bool {
    match text.rsplit_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && local
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || b"-._".contains(&byte))
                && is_dns_name(domain)
        }
        None => is_dns_name(text),
    }
}

fn is_dns_name(text: &str) -> bool {
    !text.is_empty()
        && text.split('.').all(|component| {
            let bytes = component.as_bytes();
            !bytes.is_empty()
                && bytes[0].is_ascii_alphanumeric()
                && bytes[bytes.len() - 1].is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|byte| byte.is_ascii_alphanumeric() || *byte == b'-')
        })
}

/// The shape of a BCP 47 tag: a 2–8 letter primary subtag, then 1–8 alphanumeric subtags.
fn is_language_tag(text: &str) -> bool {
    let mut parts = text.split('-');
    let primary_ok = parts.next().is_some_and(|primary| {
        (2..=8).contains(&primary.len()) && primary.bytes().all(|b| b.is_ascii_alphabetic())
    });
    primary_ok
        && parts.all(|part| {
            (1..=8).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_alphanumeric())
        })
}

/// The default event name.
pub const DEFAULT_EVENT: &str = PUBLISH;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interop::squad::Agent;

    fn squad(descriptions: &[Option<&str>]) -> Squad {
        Squad {
            namespace: "acme".into(),
            id: "code-review".into(),
            version: "2025.03.04.2".into(),
            label: "Code Review".into(),
            description: Some("Reviews code.".into()),
            agents: descriptions
                .iter()
                .enumerate()
                .map(|(index, description)| Agent {
                    id: format!("{}-review-agent", ["style", "api"][index]),
                    label: format!("Agent {index}"),
                    description: description.map(str::to_owned),
                    base_role: "delegated-worker".into(),
                })
                .collect(),
            workflows: Vec::new(),
            manifest: crate::interop::document::Document::parse("{}".to_owned()).unwrap(),
        }
    }

    fn request() -> Request<'static> {
        Request {
            service_url: "https://agents.example.com/ofp/",
            organization: "Acme",
            authority: None,
            languages: &[],
            include_scheduler: false,
            conversation_id: None,
            sender: None,
            event_name: DEFAULT_EVENT,
        }
    }

    #[test]
    fn manifests_follow_the_mapping_table_in_agent_id_order() {
        let published = publish(
            &squad(&[Some("Checks style."), Some("Checks APIs.")]),
            &request(),
        )
        .unwrap();
        assert!(published.diagnostics.is_empty());
        let open_floor = &published.envelope.open_floor;
        assert_eq!(
            open_floor.conversation.id,
            "squad:acme/code-review@2025.03.04.2"
        );
        assert_eq!(
            open_floor.sender.speaker_uri,
            "tag:agents.example.com,2025:acme/code-review"
        );
        let manifests = published.envelope.manifests();
        assert_eq!(manifests.len(), 2);
        let first = &manifests[0];
        assert_eq!(
            first.identification.speaker_uri,
            "tag:agents.example.com,2025:acme/code-review/api-review-agent"
        );
        assert_eq!(
            first.identification.service_url,
            "https://agents.example.com/ofp/acme/code-review/api-review-agent"
        );
        assert_eq!(first.identification.department, "Code Review");
        assert_eq!(
            first.capabilities[0].keyphrases,
            ["api", "review", "agent", "code-review"]
        );
        assert_eq!(
            first.capabilities[0].descriptions,
            ["Checks APIs.", "Reviews code."]
        );
    }

    #[test]
    fn a_missing_description_is_an_error_and_a_long_one_a_warning() {
        let long = "x".repeat(SYNOPSIS_MAX_CHARS + 1);
        let published = publish(&squad(&[Some(&long), None]), &request()).unwrap();
        let codes: Vec<_> = published
            .diagnostics
            .iter()
            .map(|diagnostic| (diagnostic.code, diagnostic.pointer.clone().unwrap()))
            .collect();
        assert_eq!(
            codes,
            [
                (
                    Code::OfpManifestSynopsis,
                    "/capability_projection/agents/api-review-agent/description".to_owned()
                ),
                (
                    Code::OfpSynopsisLong,
                    "/capability_projection/agents/style-review-agent/description".to_owned()
                )
            ]
        );
    }

    #[test]
    fn the_scheduler_comes_first_when_asked_for() {
        let mut with = request();
        with.include_scheduler = true;
        let published = publish(&squad(&[Some("Checks style.")]), &with).unwrap();
        let manifests = published.envelope.manifests();
        assert_eq!(
            manifests[0].identification.conversational_name,
            "Code Review"
        );
        assert_eq!(
            manifests[0].capabilities[0].keyphrases,
            ["code", "review", "code-review"]
        );
        assert_eq!(manifests[0].capabilities[0].descriptions, ["Reviews code."]);
    }

    #[test]
    fn flags_are_checked() {
        let mut bad = request();
        bad.service_url = "not a url";
        assert!(publish(&squad(&[]), &bad).is_err());
        bad.service_url = "https://x.example/?q=1";
        assert!(publish(&squad(&[]), &bad).is_err());
        bad.service_url = "https://[::1]/";
        assert!(
            publish(&squad(&[]), &bad).is_err(),
            "an IP literal is no tag authority"
        );
        bad.authority = Some("ops@x.example");
        assert!(publish(&squad(&[]), &bad).is_ok());
        let languages = ["en-US".to_owned(), "e".to_owned()];
        bad.languages = &languages;
        assert!(publish(&squad(&[]), &bad).is_err());
    }

    #[test]
    fn tag_authorities_and_language_tags() {
        for good in [
            "example.com",
            "a-b.c9",
            "x@example.com",
            "first.last_1@a.io",
        ] {
            assert!(is_tag_authority(good), "{good}");
        }
        for bad in [
            "", "-a.com", "a..com", "a.com.", "[::1]", "@a.com", "a b.com", "a,b",
        ] {
            assert!(!is_tag_authority(bad), "{bad}");
        }
        for good in ["en", "en-US", "zh-Hant-TW", "de-CH-1996"] {
            assert!(is_language_tag(good), "{good}");
        }
        for bad in ["", "e", "en_US", "en-", "toolongprimary"] {
            assert!(!is_language_tag(bad), "{bad}");
        }
    }
}
