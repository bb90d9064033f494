//! JSONC parsing with byte spans on every node.
//!
//! The dialect is the reference's: JSON plus `//` and `/* */` comments and trailing commas, and
//! nothing else. Only space, tab, CR and LF separate tokens (a BOM or any other Unicode space is an
//! `InvalidSymbol`), so the verdict matches the reference byte for byte. Duplicate keys are kept in
//! the tree; the caller decides that the last one wins and warns about the others.
//!
//! The parser never panics and never recurses deeper than [`MAX_DEPTH`], so hostile input yields a
//! [`SyntaxError`] instead of a stack overflow. [`edit`] changes a document in place from those
//! spans, keeping every byte it does not touch (comments and formatting included).

pub mod edit;

use std::ops::Range;

/// Nesting deeper than this is refused. No valid manifest or MCP declaration comes close: their
/// deepest legal value is five levels down.
pub const MAX_DEPTH: usize = 128;

/// A parsed JSON value and the byte range it covers in the source text.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: Kind,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Null,
    Bool(bool),
    Number(f64),
    String(JsonString),
    Array(Vec<Node>),
    Object(Vec<Member>),
}

/// A decoded string literal. `has_escapes` tells whether byte offsets inside the decoded value
/// still map one-to-one onto the literal in the source.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonString {
    pub value: String,
    pub has_escapes: bool,
}

/// One `"key": value` pair of an object, in source order (duplicates included).
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub key: String,
    pub key_span: Range<usize>,
    pub value: Node,
}

/// The first syntax error of a document. `code` uses the reference parser's error names
/// (`InvalidSymbol`, `CommaExpected`, …) so messages can be compared with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub code: &'static str,
    pub span: Range<usize>,
}

impl SyntaxError {
    /// What is wrong, in words (the reference's `code` names are for comparing with it).
    pub fn message(&self) -> &'static str {
        match self.code {
            "InvalidSymbol" => "unexpected character",
            "InvalidNumberFormat" => "not a number",
            "PropertyNameExpected" => "expected a key in double quotes",
            "ValueExpected" => "expected a value",
            "ColonExpected" => "expected `:` after the key",
            "CommaExpected" => "a comma is missing",
            "CloseBraceExpected" => "an object is not closed: expected `}`",
            "CloseBracketExpected" => "an array is not closed: expected `]`",
            "EndOfFileExpected" => "text after the end of the document",
            "UnexpectedEndOfComment" => "a `/*` comment is never closed",
            "UnexpectedEndOfString" => "a string is never closed",
            "UnexpectedEndOfNumber" => "a number ends too early",
            "InvalidUnicode" => "`\\u` needs four hex digits",
            "InvalidEscapeCharacter" => "invalid escape in a string",
            "InvalidCharacter" => "a control character (such as a tab) inside a string",
            "NestingTooDeep" => "values nested too deeply",
            _ => "syntax error",
        }
    }
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl Kind {
    /// The JSON type name used in "expected X, found Y" messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool(_) => "boolean",
            Kind::Number(_) => "number",
            Kind::String(_) => "string",
            Kind::Array(_) => "array",
            Kind::Object(_) => "object",
        }
    }
}

impl Node {
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::String(s) => Some(&s.value),
            _ => None,
        }
    }
}

/// The tree as a plain JSON value (the last of duplicate keys wins, as in the reference).
pub fn to_value(node: &Node) -> serde_json::Value {
    match &node.kind {
        Kind::Null => serde_json::Value::Null,
        Kind::Bool(flag) => serde_json::Value::Bool(*flag),
        // Integral numbers stay integers, so `1` validates as an integer.
        Kind::Number(number)
            if number.fract() == 0.0 && number.abs() < 9.007_199_254_740_992e15 =>
        {
            serde_json::Value::from(*number as i64)
        }
        Kind::Number(number) => serde_json::Number::from_f64(*number)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        Kind::String(string) => serde_json::Value::String(string.value.clone()),
        Kind::Array(items) => serde_json::Value::Array(items.iter().map(to_value).collect()),
        Kind::Object(members) => {
            let mut map = serde_json::Map::new();
            for member in members {
                map.insert(member.key.clone(), to_value(&member.value));
            }
            serde_json::Value::Object(map)
        }
    }
}

/// Parses a whole JSONC document.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        text,
        pos: 0,
    };
    parser.skip_trivia()?;
    if parser.pos >= parser.bytes.len() {
        return Err(parser.error_at("ValueExpected", parser.pos, 0));
    }
    let node = parser.value(0)?;
    parser.skip_trivia()?;
    if parser.pos < parser.bytes.len() {
        return Err(parser.unexpected("EndOfFileExpected"));
    }
    Ok(node)
}

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// The length in bytes of the character at `pos` (1 at end of input, so spans stay valid).
    fn char_len_at(&self, pos: usize) -> usize {
        self.text
            .get(pos..)
            .and_then(|rest| rest.chars().next())
            .map_or(1, char::len_utf8)
    }

    fn error_at(&self, code: &'static str, start: usize, len: usize) -> SyntaxError {
        let start = start.min(self.bytes.len());
        let end = (start + len).min(self.bytes.len());
        SyntaxError {
            code,
            span: start..end,
        }
    }

    fn error_here(&self, code: &'static str) -> SyntaxError {
        self.error_at(code, self.pos, self.char_len_at(self.pos))
    }

    /// The error for a token that is not the one expected. The reference's scanner reports any
    /// character sequence that is not a JSON token as `InvalidSymbol` before anything else.
    fn unexpected(&self, expected: &'static str) -> SyntaxError {
        if self.pos >= self.bytes.len() || self.at_token_start() {
            self.error_here(expected)
        } else {
            let len = self.unknown_len();
            self.error_at("InvalidSymbol", self.pos, len)
        }
    }

    fn at_token_start(&self) -> bool {
        match self.peek() {
            Some(b'{' | b'}' | b'[' | b']' | b':' | b',' | b'"' | b'-' | b'0'..=b'9') => true,
            Some(b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$') => {
                let word = self.word_len();
                matches!(
                    &self.text[self.pos..self.pos + word],
                    "true" | "false" | "null"
                )
            }
            _ => false,
        }
    }

    fn word_len(&self) -> usize {
        self.bytes[self.pos..]
            .iter()
            .take_while(
                |byte| matches!(byte, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'$'),
            )
            .count()
    }

    fn unknown_len(&self) -> usize {
        match self.word_len() {
            0 => self.char_len_at(self.pos),
            word => word,
        }
    }

    fn skip_trivia(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.pos += 1,
                Some(b'/') => match self.bytes.get(self.pos + 1) {
                    Some(b'/') => {
                        while let Some(byte) = self.peek() {
                            if byte == b'\n' || byte == b'\r' {
                                break;
                            }
                            self.pos += 1;
                        }
                    }
                    Some(b'*') => {
                        let start = self.pos;
                        let rest = &self.text[self.pos + 2..];
                        match rest.find("*/") {
                            Some(end) => self.pos += 2 + end + 2,
                            None => {
                                self.pos = self.bytes.len();
                                return Err(self.error_at(
                                    "UnexpectedEndOfComment",
                                    start,
                                    self.bytes.len() - start,
                                ));
                            }
                        }
                    }
                    _ => return Err(self.error_here("InvalidSymbol")),
                },
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error_here("NestingTooDeep"));
        }
        let start = self.pos;
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => {
                let string = self.string()?;
                Ok(Node {
                    kind: Kind::String(string),
                    span: start..self.pos,
                })
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'$') => self.literal(),
            Some(b'}' | b']' | b',' | b':') | None => Err(self.error_here("ValueExpected")),
            Some(_) => Err(self.error_here("InvalidSymbol")),
        }
    }

    fn literal(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        while let Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'$') = self.peek() {
            self.pos += 1;
        }
        let kind = match &self.text[start..self.pos] {
            "true" => Kind::Bool(true),
            "false" => Kind::Bool(false),
            "null" => Kind::Null,
            _ => return Err(self.error_at("InvalidSymbol", start, self.pos - start)),
        };
        Ok(Node {
            kind,
            span: start..self.pos,
        })
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Node, SyntaxError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error_at("InvalidNumberFormat", start, self.pos - start)),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error_at("UnexpectedEndOfNumber", start, self.pos - start));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error_at("UnexpectedEndOfNumber", start, self.pos - start));
            }
        }
        let value = self.text[start..self.pos]
            .parse::<f64>()
            .unwrap_or(f64::NAN);
        Ok(Node {
            kind: Kind::Number(value),
            span: start..self.pos,
        })
    }

    /// Reads a string literal starting at the opening quote.
    fn string(&mut self) -> Result<JsonString, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut value = String::new();
        let mut has_escapes = false;
        loop {
            let chunk_start = self.pos;
            while let Some(byte) = self.peek() {
                if byte == b'"' || byte == b'\\' || byte < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            value.push_str(&self.text[chunk_start..self.pos]);
            match self.peek() {
                None | Some(b'\r' | b'\n') => {
                    return Err(self.error_at("UnexpectedEndOfString", start, self.pos - start));
                }
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(JsonString { value, has_escapes });
                }
                Some(b'\\') => {
                    has_escapes = true;
                    self.escape(&mut value)?;
                }
                Some(_) => return Err(self.error_here("InvalidCharacter")),
            }
        }
    }

    fn escape(&mut self, value: &mut String) -> Result<(), SyntaxError> {
        let escape_start = self.pos;
        self.pos += 1;
        let simple = match self.peek() {
            Some(b'"') => Some('"'),
            Some(b'\\') => Some('\\'),
            Some(b'/') => Some('/'),
            Some(b'b') => Some('\u{8}'),
            Some(b'f') => Some('\u{c}'),
            Some(b'n') => Some('\n'),
            Some(b'r') => Some('\r'),
            Some(b't') => Some('\t'),
            Some(b'u') => None,
            _ => {
                let len = 1 + self.char_len_at(self.pos);
                return Err(self.error_at("InvalidEscapeCharacter", escape_start, len));
            }
        };
        self.pos += 1;
        if let Some(ch) = simple {
            value.push(ch);
            return Ok(());
        }
        let unit = self.hex4(escape_start)?;
        if (0xD800..0xDC00).contains(&unit)
            && self.bytes.get(self.pos) == Some(&b'\\')
            && self.bytes.get(self.pos + 1) == Some(&b'u')
        {
            let saved = self.pos;
            self.pos += 2;
            let low = self.hex4(saved)?;
            if (0xDC00..0xE000).contains(&low) {
                let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                value.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                return Ok(());
            }
            // A high surrogate followed by something else: JavaScript keeps both units; Rust
            // strings cannot hold a lone surrogate, so it becomes U+FFFD.
            value.push('\u{FFFD}');
            value.push(char::from_u32(low).unwrap_or('\u{FFFD}'));
            return Ok(());
        }
        value.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
        Ok(())
    }

    fn hex4(&mut self, escape_start: usize) -> Result<u32, SyntaxError> {
        let mut unit = 0u32;
        for _ in 0..4 {
            let digit = self.peek().and_then(|byte| (byte as char).to_digit(16));
            match digit {
                Some(digit) => {
                    unit = unit * 16 + digit;
                    self.pos += 1;
                }
                None => {
                    return Err(self.error_at(
                        "InvalidUnicode",
                        escape_start,
                        self.pos - escape_start,
                    ));
                }
            }
        }
        Ok(unit)
    }

    fn array(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut items: Vec<Node> = Vec::new();
        loop {
            self.skip_trivia()?;
            if self.peek() == Some(b']') {
                self.pos += 1;
                break;
            }
            if let Some(previous) = items.last() {
                if self.peek() != Some(b',') {
                    return Err(self.missing_separator(
                        "CommaExpected",
                        "CloseBracketExpected",
                        previous.span.end,
                    ));
                }
                self.pos += 1;
                self.skip_trivia()?;
                // A trailing comma is allowed.
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    break;
                }
            }
            items.push(self.value(depth + 1)?);
        }
        Ok(Node {
            kind: Kind::Array(items),
            span: start..self.pos,
        })
    }

    fn object(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        let mut members: Vec<Member> = Vec::new();
        loop {
            self.skip_trivia()?;
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            if let Some(previous) = members.last() {
                if self.peek() != Some(b',') {
                    return Err(self.missing_separator(
                        "CommaExpected",
                        "CloseBraceExpected",
                        previous.value.span.end,
                    ));
                }
                self.pos += 1;
                self.skip_trivia()?;
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    break;
                }
            }
            if self.peek() != Some(b'"') {
                return Err(if self.pos >= self.bytes.len() {
                    self.error_here("CloseBraceExpected")
                } else {
                    self.unexpected("PropertyNameExpected")
                });
            }
            let key_start = self.pos;
            let key = self.string()?.value;
            let key_span = key_start..self.pos;
            self.skip_trivia()?;
            if self.peek() != Some(b':') {
                return Err(self.unexpected("ColonExpected"));
            }
            self.pos += 1;
            self.skip_trivia()?;
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                key_span,
                value,
            });
        }
        Ok(Node {
            kind: Kind::Object(members),
            span: start..self.pos,
        })
    }

    /// A separator is missing after the value that ends at `previous_end`. A missing comma is
    /// reported where it belongs, right after that value (usually the end of its line), not
    /// at the next token, which is often on the line below.
    fn missing_separator(
        &self,
        inside: &'static str,
        at_end: &'static str,
        previous_end: usize,
    ) -> SyntaxError {
        if self.pos >= self.bytes.len() {
            return self.error_here(at_end);
        }
        let error = self.unexpected(inside);
        if error.code == inside {
            self.error_at(inside, previous_end, 0)
        } else {
            error
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn error_code(text: &str) -> &'static str {
        parse(text).expect_err("expected a syntax error").code
    }

    #[test]
    fn accepts_comments_and_trailing_commas() {
        let node = parse("// c\n{ /* x */ \"a\": [1, 2,], \"b\": {\"c\": true,}, }\n").unwrap();
        let Kind::Object(members) = node.kind else {
            panic!("not an object")
        };
        assert_eq!(members.len(), 2);
        assert_eq!(members[0].key, "a");
        assert_eq!(members[0].key_span, 15..18);
    }

    #[test]
    fn keeps_duplicate_keys_in_order() {
        let node = parse(r#"{"a": 1, "a": 2}"#).unwrap();
        let Kind::Object(members) = node.kind else {
            panic!("not an object")
        };
        assert_eq!(members.len(), 2);
        assert_eq!(members[1].value.kind, Kind::Number(2.0));
    }

    #[test]
    fn decodes_escapes_and_keys() {
        let node = parse(r#"{"\u0069d": "a\nb\ud83d\ude00"}"#).unwrap();
        let Kind::Object(members) = node.kind else {
            panic!("not an object")
        };
        assert_eq!(members[0].key, "id");
        assert_eq!(members[0].value.as_str(), Some("a\nb\u{1F600}"));
    }

    #[test]
    fn rejects_what_the_reference_rejects() {
        assert_eq!(error_code("\u{FEFF}{}"), "InvalidSymbol");
        assert_eq!(error_code("{}\u{A0}"), "InvalidSymbol");
        assert_eq!(error_code("{\u{B}}"), "InvalidSymbol");
        assert_eq!(error_code("{\u{2028}}"), "InvalidSymbol");
        assert_eq!(error_code("# c\n{}"), "InvalidSymbol");
        assert_eq!(error_code("{'a': 1}"), "InvalidSymbol");
        assert_eq!(error_code("{a: 1}"), "InvalidSymbol");
        assert_eq!(error_code("{1: 1}"), "PropertyNameExpected");
        assert_eq!(error_code("[NaN]"), "InvalidSymbol");
        assert_eq!(error_code("[\"a\tb\"]"), "InvalidCharacter");
        assert_eq!(error_code(r#"["\x"]"#), "InvalidEscapeCharacter");
        assert_eq!(error_code(r#"["\u12"]"#), "InvalidUnicode");
        assert_eq!(error_code("{} /* open"), "UnexpectedEndOfComment");
        assert_eq!(error_code(""), "ValueExpected");
        assert_eq!(error_code("  // only a comment\n"), "ValueExpected");
        assert_eq!(error_code("{} x"), "InvalidSymbol");
        assert_eq!(error_code("{} true"), "EndOfFileExpected");
        assert_eq!(error_code("{}{}"), "EndOfFileExpected");
        assert_eq!(error_code("{\"a\" 1}"), "ColonExpected");
        assert_eq!(error_code("{\"a\": 1 \"b\": 2}"), "CommaExpected");
        assert_eq!(error_code("[1 2]"), "CommaExpected");
        assert_eq!(error_code("[01]"), "CommaExpected");
        assert_eq!(error_code("[1.]"), "UnexpectedEndOfNumber");
        assert_eq!(error_code("[-]"), "InvalidNumberFormat");
        assert_eq!(error_code("{\"a\": 1"), "CloseBraceExpected");
        assert_eq!(error_code("[1"), "CloseBracketExpected");
        assert_eq!(error_code("[,]"), "ValueExpected");
        assert_eq!(error_code("{,}"), "PropertyNameExpected");
        assert_eq!(error_code("\"abc"), "UnexpectedEndOfString");
    }

    #[test]
    fn a_missing_comma_is_placed_after_the_value_before_it() {
        let text = "{\n  \"a\": 1\n  \"b\": 2\n}";
        let error = parse(text).unwrap_err();
        assert_eq!(error.code, "CommaExpected");
        assert_eq!(error.span, 10..10, "right after `1`, on its line");
        assert_eq!(parse("[1 2]").unwrap_err().span, 2..2);
        assert_eq!(error.to_string(), "a comma is missing");
    }

    #[test]
    fn numbers_compare_by_value() {
        assert_eq!(parse("1.0").unwrap().kind, Kind::Number(1.0));
        assert_eq!(parse("-1e2").unwrap().kind, Kind::Number(-100.0));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(error_code(&text), "NestingTooDeep");
        let text = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(&text).is_ok());
    }

    #[test]
    fn truncations_never_panic() {
        let text = "{\"a\": [1, {\"b\": \"c\\u00e9é\"}], /* x */ \"d\": null // y\n}";
        assert!(parse(text).is_ok());
        // The object closes only at the last byte, so every proper prefix is an error.
        let mut prefixes = 0;
        for end in (0..text.len()).filter(|end| text.is_char_boundary(*end)) {
            assert!(parse(&text[..end]).is_err(), "{:?} parsed", &text[..end]);
            prefixes += 1;
        }
        assert_eq!(prefixes, text.chars().count());
    }
}
