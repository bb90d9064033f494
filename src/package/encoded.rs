//! Long text in a tool's source that is base64 or hex rather than words or code, and what it
//! decodes to. A payload carried this way cannot be reviewed by reading the tool, so the audit
//! reports it, more loudly when it decodes to code or names a URL.

use base64::Engine;

/// How long (in characters, white space left out) a literal must be before it is looked at:
/// shorter runs are hashes, ids and keys, which are opaque by nature and carry no program.
pub const MIN_LENGTH: usize = 200;

/// How a literal is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Base64,
    Hex,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Base64 => "base64",
            Encoding::Hex => "hex",
        }
    }
}

/// What the decoded bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoded {
    /// Text that reads as a program: JavaScript, a shell script, an HTML script, or a
    /// WebAssembly or native executable.
    Code,
    /// Text that names a URL.
    Url,
    /// Other text.
    Text,
    /// An image, font or other media file (a `data:image/…` URI, or bytes with such a file's
    /// signature): opaque, but no program.
    Media,
    /// Bytes of no recognised kind (compressed or encrypted data, say).
    Binary,
}

/// A literal found to be encoded, with what it decodes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub encoding: Encoding,
    /// Characters of the encoded text.
    pub length: usize,
    pub decoded: Decoded,
    /// The start of the decoded text (printable ASCII, the rest as `.`), for a message; empty
    /// when it is not text.
    pub preview: String,
}

/// Whether `value` is a long run of base64 or hex, and what it decodes to. Text with words
/// (spaces inside), or that does not decode, is not.
pub fn recognise(value: &str) -> Option<Found> {
    if value.len() < MIN_LENGTH {
        return None;
    }
    let (media, payload) = match data_uri(value) {
        Some((mime, payload)) => (is_media_type(mime), payload),
        None => (false, value),
    };
    let compact: String = payload
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    // Line-wrapped base64 has a line break every 64 or 76 characters; prose has spaces.
    if compact.len() < MIN_LENGTH || payload.contains(' ') {
        return None;
    }
    // Encoded bytes use much of the alphabet; a run of one character encodes nothing.
    let distinct = compact
        .bytes()
        .collect::<std::collections::BTreeSet<u8>>()
        .len();
    if distinct < 8 {
        return None;
    }
    let (encoding, bytes) =
        if compact.len().is_multiple_of(2) && compact.bytes().all(|b| b.is_ascii_hexdigit()) {
            (Encoding::Hex, hex(&compact)?)
        } else if looks_like_base64(&compact) {
            (Encoding::Base64, base64_bytes(&compact)?)
        } else {
            return None;
        };
    let (decoded, preview) = if media {
        (Decoded::Media, String::new())
    } else {
        classify(&bytes)
    };
    Some(Found {
        encoding,
        length: compact.len(),
        decoded,
        preview,
    })
}

/// `data:<type>;base64,<payload>` split into its media type and payload.
fn data_uri(value: &str) -> Option<(&str, &str)> {
    let rest = value.strip_prefix("data:")?;
    let (head, payload) = rest.split_once(',')?;
    let mime = head.strip_suffix(";base64")?;
    Some((mime, payload))
}

fn is_media_type(mime: &str) -> bool {
    let mime = mime.to_ascii_lowercase();
    // An SVG is XML that may hold a script: judged by its content like any text.
    ["image/", "font/", "audio/", "video/"]
        .iter()
        .any(|prefix| mime.starts_with(prefix))
        && !mime.starts_with("image/svg")
}

/// Base64's alphabet (standard or URL-safe), padding only at the end, and the mix of cases and
/// digits that encoded bytes have (a run of one letter is not base64 of anything worth hiding).
fn looks_like_base64(text: &str) -> bool {
    let body = text.trim_end_matches('=');
    text.len() - body.len() <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'))
        && body.bytes().any(|b| b.is_ascii_uppercase())
        && body.bytes().any(|b| b.is_ascii_lowercase())
        && body.bytes().any(|b| b.is_ascii_digit())
}

fn base64_bytes(text: &str) -> Option<Vec<u8>> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(text).ok())
}

fn hex(text: &str) -> Option<Vec<u8>> {
    let digit = |b: u8| (b as char).to_digit(16);
    text.as_bytes()
        .chunks(2)
        .map(|pair| Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8))
        .collect()
}

/// File signatures: media that holds no program, and executables that are one.
const MEDIA_SIGNATURES: [&[u8]; 7] = [
    b"\x89PNG",
    b"\xFF\xD8\xFF",
    b"GIF8",
    b"wOFF",
    b"wOF2",
    b"OggS",
    b"ID3",
];
const EXECUTABLE_SIGNATURES: [&[u8]; 4] = [b"\0asm", b"\x7FELF", b"MZ", b"\xCF\xFA\xED\xFE"];

/// Words that a decoded program has and decoded prose rarely does: one of the strong ones, or
/// two of the others.
const STRONG_CODE_MARKERS: [&str; 12] = [
    "#!/",
    "/bin/sh",
    "/bin/bash",
    "child_process",
    "eval(",
    "require(",
    "import(",
    "<script",
    "powershell",
    "new function(",
    "process.env",
    "bun.spawn",
];
const CODE_MARKERS: [&str; 12] = [
    "function", "=>", "const ", "let ", "var ", "return ", "import ", "export ", "await ",
    "fetch(", "exec", "curl ",
];
const URL_MARKERS: [&str; 5] = ["http://", "https://", "ws://", "wss://", "ftp://"];

/// What decoded bytes are, with the start of their text.
pub fn classify(bytes: &[u8]) -> (Decoded, String) {
    if EXECUTABLE_SIGNATURES
        .iter()
        .any(|signature| bytes.starts_with(signature))
    {
        return (Decoded::Code, String::new());
    }
    let webp = bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP";
    if webp
        || MEDIA_SIGNATURES
            .iter()
            .any(|signature| bytes.starts_with(signature))
    {
        return (Decoded::Media, String::new());
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return (Decoded::Binary, String::new());
    };
    let printable = text
        .chars()
        .filter(|c| !c.is_control() || c.is_whitespace())
        .count();
    if printable * 20 < text.chars().count() * 19 {
        return (Decoded::Binary, String::new());
    }
    let preview: String = text
        .chars()
        .take(60)
        .map(|c| {
            if c == ' ' || c.is_ascii_graphic() {
                c
            } else {
                '.'
            }
        })
        .collect();
    let lower = text.to_lowercase();
    let strong = STRONG_CODE_MARKERS
        .iter()
        .any(|marker| lower.contains(marker));
    let weak = CODE_MARKERS
        .iter()
        .filter(|marker| lower.contains(*marker))
        .count();
    if strong || weak >= 2 {
        (Decoded::Code, preview)
    } else if URL_MARKERS.iter().any(|marker| lower.contains(marker)) {
        (Decoded::Url, preview)
    } else {
        (Decoded::Text, preview)
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;

    use super::*;

    fn padded(text: &str) -> String {
        // Long enough to be looked at, whatever the sample.
        let mut long = text.to_owned();
        while long.len() < 300 {
            long.push_str(" // padding padding padding");
        }
        long
    }

    #[test]
    fn base64_of_code_is_code_and_of_a_url_is_a_url() {
        let code = STANDARD.encode(padded("require('child_process').exec('id')"));
        let found = recognise(&code).expect("base64");
        assert_eq!(
            (found.encoding, found.decoded),
            (Encoding::Base64, Decoded::Code)
        );
        assert!(found.preview.starts_with("require('child_process')"));
        let url = STANDARD.encode(padded("see https://collector.example.net/x"));
        assert_eq!(recognise(&url).unwrap().decoded, Decoded::Url);
        let prose = STANDARD.encode(padded("just some words"));
        assert_eq!(recognise(&prose).unwrap().decoded, Decoded::Text);
    }

    #[test]
    fn hex_is_recognised_before_base64() {
        let text = padded("fetch('https://x.example') ; const a = 1");
        let encoded: String = text.bytes().map(|b| format!("{b:02x}")).collect();
        let found = recognise(&encoded).unwrap();
        assert_eq!(
            (found.encoding, found.decoded),
            (Encoding::Hex, Decoded::Code)
        );
    }

    #[test]
    fn short_texts_prose_and_media_are_not_payloads() {
        assert_eq!(recognise(&STANDARD.encode("function(){}")), None);
        assert_eq!(recognise(&"word ".repeat(100)), None);
        assert_eq!(recognise(&"a".repeat(400)), None);
        let varied: Vec<u8> = (0..=255u8).chain(0..=80).collect();
        let png = [b"\x89PNG\r\n\x1a\n".as_slice(), &varied].concat();
        assert_eq!(
            recognise(&STANDARD.encode(&png)).unwrap().decoded,
            Decoded::Media
        );
        let uri = format!("data:image/png;base64,{}", STANDARD.encode(&varied));
        assert_eq!(recognise(&uri).unwrap().decoded, Decoded::Media);
        let svg = format!(
            "data:image/svg+xml;base64,{}",
            STANDARD.encode(padded("<svg><script>fetch('https://x')</script></svg>"))
        );
        assert_eq!(recognise(&svg).unwrap().decoded, Decoded::Code);
        let gzip = [b"\x1F\x8B\x08".as_slice(), &varied].concat();
        assert_eq!(
            recognise(&STANDARD.encode(&gzip)).unwrap().decoded,
            Decoded::Binary
        );
        let wasm = [b"\0asm\x01\0\0\0".as_slice(), &varied].concat();
        assert_eq!(
            recognise(&STANDARD.encode(&wasm)).unwrap().decoded,
            Decoded::Code
        );
    }

    #[test]
    fn wrapped_base64_is_read_whole() {
        let encoded = STANDARD.encode(padded("eval(atob(x))"));
        let wrapped: String = encoded
            .as_bytes()
            .chunks(76)
            .map(|line| String::from_utf8_lossy(line).into_owned())
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(recognise(&wrapped).unwrap().decoded, Decoded::Code);
    }
}
