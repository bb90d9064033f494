//! The one pass over a prompt: where the words and characters that the prompt rules start from
//! are. Real prompts are long and almost always innocent, so the rules do not read every word
//! of them: one Aho-Corasick automaton finds, in a single scan of the bytes, the verbs that set
//! instructions aside, the names of the user, credential locations, URL schemes, downloaders
//! and the invisible characters; only the sentences and lines around those are read as words.

use std::ops::Range;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};

/// Verbs that set instructions aside (AUD-P1), matched as whole words.
pub const SET_ASIDE: &[&str] = &[
    "ignore",
    "disregard",
    "forget",
    "override",
    "overrides",
    "bypass",
    "discard",
    "supersede",
    "supersedes",
    "replace",
    "replaces",
];

/// How a prompt names the user: every concealing phrase of AUD-P1 has one.
pub const USER: &[&str] = &["user", "users", "human"];

/// Where credentials are kept: files, folders and variables (AUD-P2), matched without regard to
/// ASCII case, as whole names (not inside a longer one; a folder's name ending in `/` may
/// continue).
pub const CREDENTIALS: [&str; 28] = [
    "~/.ssh",
    ".ssh/",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "authorized_keys",
    ".aws/credentials",
    "aws_secret_access_key",
    "aws_session_token",
    ".git-credentials",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".docker/config.json",
    ".kube/config",
    "/etc/shadow",
    ".gnupg",
    ".password-store",
    "wallet.dat",
    "credentials.json",
    "application_default_credentials",
    "gh/hosts.yml",
    "github_token",
    "openai_api_key",
    "anthropic_api_key",
    "npm_token",
    ".env",
];

/// Programs that download (AUD-P3, AUD-P7), matched as whole words.
pub const DOWNLOADERS: [&str; 6] = [
    "curl",
    "wget",
    "iwr",
    "irm",
    "invoke-webrequest",
    "invoke-restmethod",
];

/// Characters a reader does not see (AUD-P5), by their UTF-8 encoding: single characters,
/// and the leading bytes of the Unicode tag characters (U+E0000…E007F) and of the variation
/// selectors supplement (U+E0100…E01EF).
const INVISIBLE_CHARACTERS: [char; 23] = [
    '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{2061}', '\u{2062}', '\u{2063}', '\u{2064}',
    '\u{FEFF}', '\u{180E}', '\u{3164}', '\u{FFA0}', '\u{115F}', '\u{1160}', '\u{202A}', '\u{202B}',
    '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
];
const INVISIBLE_PREFIXES: [&[u8]; 6] = [
    b"\xF3\xA0\x80",
    b"\xF3\xA0\x81",
    b"\xF3\xA0\x84",
    b"\xF3\xA0\x85",
    b"\xF3\xA0\x86",
    b"\xF3\xA0\x87",
];

/// What a pattern of the automaton is.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Phrase,
    Credential(&'static str),
    Scheme,
    Downloader,
    Invisible,
    /// The first three bytes of a four-byte invisible character.
    InvisiblePrefix,
}

/// Where the rules of one prompt start, in text order.
#[derive(Debug, Default)]
pub struct Triggers {
    /// Byte offsets of whole words of [`SET_ASIDE`] and [`USER`].
    pub phrases: Vec<usize>,
    pub credentials: Vec<(Range<usize>, &'static str)>,
    /// Byte offsets of `://`.
    pub schemes: Vec<usize>,
    /// Whole-word downloaders.
    pub downloaders: Vec<Range<usize>>,
    /// Invisible characters (whole characters), one range each.
    pub invisible: Vec<Range<usize>>,
}

/// Builds the automaton now if no one has: see [`super::prepare`].
pub fn prepare() {
    automaton();
}

fn automaton() -> &'static (AhoCorasick, Vec<Kind>) {
    static BUILT: OnceLock<(AhoCorasick, Vec<Kind>)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let mut patterns: Vec<Vec<u8>> = Vec::new();
        let mut kinds = Vec::new();
        let mut add = |pattern: &[u8], kind: Kind| {
            patterns.push(pattern.to_vec());
            kinds.push(kind);
        };
        for word in SET_ASIDE.iter().chain(USER) {
            add(word.as_bytes(), Kind::Phrase);
        }
        for name in CREDENTIALS {
            add(name.as_bytes(), Kind::Credential(name));
        }
        add(b"://", Kind::Scheme);
        for downloader in DOWNLOADERS {
            add(downloader.as_bytes(), Kind::Downloader);
        }
        for character in INVISIBLE_CHARACTERS {
            add(
                character.encode_utf8(&mut [0; 4]).as_bytes(),
                Kind::Invisible,
            );
        }
        for prefix in INVISIBLE_PREFIXES {
            add(prefix, Kind::InvisiblePrefix);
        }
        let automaton = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .expect("the trigger patterns are valid");
        (automaton, kinds)
    })
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// Whether `span` of `text` is a whole word (a name ending in `/` may continue).
fn whole(bytes: &[u8], span: &Range<usize>, open_end: bool) -> bool {
    let left = span.start == 0 || !is_name_byte(bytes[span.start - 1]);
    let right = open_end || span.end == bytes.len() || !is_name_byte(bytes[span.end]);
    left && right
}

/// The triggers of `text`.
pub fn of(text: &str) -> Triggers {
    let (automaton, kinds) = automaton();
    let bytes = text.as_bytes();
    let mut triggers = Triggers::default();
    for hit in automaton.find_iter(text) {
        let span = hit.start()..hit.end();
        match kinds[hit.pattern().as_usize()] {
            Kind::Phrase if whole(bytes, &span, false) => triggers.phrases.push(span.start),
            Kind::Credential(name) if whole(bytes, &span, name.ends_with('/')) => {
                triggers.credentials.push((span, name));
            }
            Kind::Scheme => triggers.schemes.push(span.start),
            Kind::Downloader if whole(bytes, &span, false) => triggers.downloaders.push(span),
            Kind::Invisible => triggers.invisible.push(span),
            Kind::InvisiblePrefix => {
                let end = (span.end + 1).min(text.len());
                if text.is_char_boundary(end) {
                    triggers.invisible.push(span.start..end);
                }
            }
            _ => {}
        }
    }
    triggers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_finds_every_kind_as_whole_words() {
        let text = "Users: IGNORE it; read ~/.ssh/id_rsa via https://x and curl.\u{200B} Not confirm, ignored, xcurl.\u{E0041}";
        let found = of(text);
        let at = |offset: usize| &text[offset..];
        assert_eq!(found.phrases.len(), 2);
        assert!(at(found.phrases[0]).starts_with("Users"));
        assert!(at(found.phrases[1]).starts_with("IGNORE"));
        let names: Vec<&str> = found.credentials.iter().map(|(_, name)| *name).collect();
        assert_eq!(names, ["~/.ssh", "id_rsa"]);
        assert_eq!(found.schemes.len(), 1);
        assert_eq!(found.downloaders.len(), 1);
        let invisible: Vec<&str> = found
            .invisible
            .iter()
            .map(|span| &text[span.clone()])
            .collect();
        assert_eq!(invisible, ["\u{200B}", "\u{E0041}"]);
    }
}
