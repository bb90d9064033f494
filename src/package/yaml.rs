//! YAML as js-yaml 4 `load` reads frontmatter: the default schema (core types plus timestamps,
//! binary, merge keys, sets and pairs), duplicate keys refused, unknown tags refused,
//! non-printable characters refused, exactly one document.
//!
//! `yaml-rust2` does the scanning; values are resolved here from its events, because its own
//! loader resolves scalars by the YAML 1.2 core schema only and loses whether a scalar was
//! quoted (js-yaml turns a plain `2024-01-01` into a Date, not a string).

use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// A resolved YAML value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    /// A timestamp; js-yaml gives a `Date`.
    Date,
    /// `!!binary`; js-yaml gives bytes.
    Binary,
    Sequence(Vec<Value>),
    Mapping(Vec<(String, Value)>),
}

impl Value {
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Date => "date",
            Value::Binary => "binary",
            Value::Sequence(_) => "array",
            Value::Mapping(_) => "object",
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Mapping(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(text) => Some(text),
            _ => None,
        }
    }
}

/// A YAML error: the character index it was found at, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// Byte offset in the text.
    pub offset: usize,
    pub message: String,
    /// Refused before parsing for its nesting ([`MAX_FLOW_DEPTH`], [`MAX_BLOCK_INDENT`]), not
    /// a syntax error: callers word it differently.
    pub too_deep: bool,
}

/// Flow collections (`[`, `{`) nested deeper than this are refused.
pub const MAX_FLOW_DEPTH: usize = 64;
/// Lines indented (by spaces and block-sequence dashes) wider than this are refused.
pub const MAX_BLOCK_INDENT: usize = 256;

/// Loads one YAML document. An empty document is `Null`.
pub fn load(text: &str) -> Result<Value, YamlError> {
    if let Some(offset) = nesting_too_deep(text) {
        return Err(YamlError {
            offset,
            message: "YAML nested too deeply".to_owned(),
            too_deep: true,
        });
    }
    if let Some((offset, c)) = text.char_indices().find(|(_, c)| is_non_printable(*c)) {
        return Err(YamlError {
            offset,
            message: format!(
                "the stream contains non-printable character U+{:04X}",
                c as u32
            ),
            too_deep: false,
        });
    }
    // js-yaml accepts a tab as the separator after a mapping colon; yaml-rust2 does not. A tab
    // there is only separation whitespace, so a space means the same (and keeps every offset).
    let prepared = text.replace(":\t", ": ");
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(&prepared);
    let scanned = parser.load(&mut builder, true);
    let offset_of = |index: usize| {
        prepared
            .char_indices()
            .nth(index)
            .map_or(prepared.len(), |(at, _)| at)
    };
    if let Err(error) = scanned {
        return Err(YamlError {
            offset: offset_of(error.marker().index()),
            message: error.info().to_owned(),
            too_deep: false,
        });
    }
    if let Some((index, message)) = builder.error {
        return Err(YamlError {
            offset: offset_of(index),
            message,
            too_deep: false,
        });
    }
    match builder.documents.len() {
        0 => Ok(Value::Null),
        1 => Ok(builder.documents.pop().unwrap_or(Value::Null)),
        _ => Err(YamlError {
            offset: 0,
            message: "expected a single document in the stream, but found more".to_owned(),
            too_deep: false,
        }),
    }
}

/// The parser recurses per nesting level, so every document it reads (SKILL.md and README
/// frontmatter alike) is refused here, before it can exhaust the stack, when nested deeper than
/// frontmatter ever is. The byte offset where a limit is crossed.
fn nesting_too_deep(text: &str) -> Option<usize> {
    let mut depth: usize = 0;
    for (offset, byte) in text.bytes().enumerate() {
        match byte {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_FLOW_DEPTH {
                    return Some(offset);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.len() - line.trim_start_matches([' ', '-']).len() > MAX_BLOCK_INDENT {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

/// js-yaml's non-printable set (C0 controls but tab/LF/CR, DEL, C1 but NEL, U+FFFE, U+FFFF).
fn is_non_printable(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{B}' | '\u{C}' | '\u{E}'..='\u{1F}' | '\u{7F}'..='\u{84}' | '\u{86}'..='\u{9F}' | '\u{FFFE}' | '\u{FFFF}')
}

enum Frame {
    Sequence(usize, Vec<Value>),
    /// Anchor, entries, and a key waiting for its value.
    Mapping(usize, Vec<(String, Value)>, Option<String>),
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    documents: Vec<Value>,
    anchors: HashMap<usize, Value>,
    error: Option<(usize, String)>,
}

impl Builder {
    fn fail(&mut self, mark: Marker, message: String) {
        if self.error.is_none() {
            self.error = Some((mark.index(), message));
        }
    }

    fn push_value(&mut self, value: Value, anchor: usize, mark: Marker) {
        if anchor > 0 {
            self.anchors.insert(anchor, value.clone());
        }
        match self.stack.last_mut() {
            None => self.documents.push(value),
            Some(Frame::Sequence(_, items)) => items.push(value),
            Some(Frame::Mapping(_, entries, pending)) => {
                match pending.take() {
                    None => {
                        let key = key_text(&value);
                        *pending = Some(key);
                    }
                    Some(key) if key == "<<" => {
                        // Merge keys: entries of the merged mapping(s) that are not already present.
                        let merged: Vec<(String, Value)> = match value {
                            Value::Mapping(merged) => merged,
                            Value::Sequence(items) => items
                                .into_iter()
                                .flat_map(|item| match item {
                                    Value::Mapping(merged) => merged,
                                    _ => Vec::new(),
                                })
                                .collect(),
                            _ => {
                                self.fail(mark, "cannot merge mappings; the provided source object is unacceptable".to_owned());
                                return;
                            }
                        };
                        for (key, value) in merged {
                            if !entries.iter().any(|(k, _)| *k == key) {
                                entries.push((key, value));
                            }
                        }
                    }
                    Some(key) => {
                        if entries.iter().any(|(k, _)| *k == key) {
                            self.fail(mark, format!("duplicated mapping key `{key}`"));
                            return;
                        }
                        entries.push((key, value));
                    }
                }
            }
        }
    }
}

/// Mapping keys are compared as strings, as js-yaml does (`1` and `'1'` are the same key).
fn key_text(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) if number.fract() == 0.0 && number.is_finite() => {
            format!("{}", *number as i64)
        }
        Value::Number(number) => number.to_string(),
        Value::String(text) => text.clone(),
        Value::Date => "[date]".to_owned(),
        Value::Binary => "[binary]".to_owned(),
        Value::Sequence(_) | Value::Mapping(_) => "[object Object]".to_owned(),
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        match event {
            Event::Scalar(text, style, anchor, tag) => match resolve(&text, style, tag.as_ref()) {
                Ok(value) => self.push_value(value, anchor, mark),
                Err(message) => self.fail(mark, message),
            },
            Event::SequenceStart(anchor, tag) => {
                if let Some(message) =
                    collection_tag_problem(tag.as_ref(), &["seq", "omap", "pairs"])
                {
                    self.fail(mark, message);
                }
                self.stack.push(Frame::Sequence(anchor, Vec::new()));
            }
            Event::MappingStart(anchor, tag) => {
                if let Some(message) = collection_tag_problem(tag.as_ref(), &["map", "set"]) {
                    self.fail(mark, message);
                }
                self.stack.push(Frame::Mapping(anchor, Vec::new(), None));
            }
            Event::SequenceEnd => {
                if let Some(Frame::Sequence(anchor, items)) = self.stack.pop() {
                    self.push_value(Value::Sequence(items), anchor, mark);
                }
            }
            Event::MappingEnd => {
                if let Some(Frame::Mapping(anchor, entries, _)) = self.stack.pop() {
                    self.push_value(Value::Mapping(entries), anchor, mark);
                }
            }
            Event::Alias(anchor) => match self.anchors.get(&anchor).cloned() {
                Some(value) => self.push_value(value, 0, mark),
                None => self.fail(mark, "unidentified alias".to_owned()),
            },
            Event::DocumentEnd => {
                // An empty document between `---` markers still counts as one.
                if self.documents.is_empty() && self.stack.is_empty() {
                    self.documents.push(Value::Null);
                }
            }
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentStart => {}
        }
    }
}

fn standard_suffix(tag: &Tag) -> Option<&str> {
    match tag.handle.as_str() {
        "!!" | "tag:yaml.org,2002:" => Some(tag.suffix.as_str()),
        _ => None,
    }
}

fn collection_tag_problem(tag: Option<&Tag>, allowed: &[&str]) -> Option<String> {
    let tag = tag?;
    match standard_suffix(tag) {
        Some(suffix) if allowed.contains(&suffix) => None,
        _ => Some(format!("unknown tag !<{}{}>", tag.handle, tag.suffix)),
    }
}

fn resolve(text: &str, style: TScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    if let Some(tag) = tag {
        return match standard_suffix(tag) {
            Some("str") => Ok(Value::String(text.to_owned())),
            Some("binary") => Ok(Value::Binary),
            Some("timestamp") if is_timestamp(text) => Ok(Value::Date),
            Some("null") if is_null(text) => Ok(Value::Null),
            Some("bool") => bool_value(text)
                .map(Value::Bool)
                .ok_or_else(|| format!("cannot resolve `{text}` as !!bool")),
            Some("int" | "float") => number_value(text)
                .map(Value::Number)
                .ok_or_else(|| format!("cannot resolve `{text}` as a number")),
            // A non-specific tag `!` on a scalar means "string".
            None if tag.handle == "!" && tag.suffix.is_empty() => {
                Ok(Value::String(text.to_owned()))
            }
            _ => Err(format!("unknown tag !<{}{}>", tag.handle, tag.suffix)),
        };
    }
    if style != TScalarStyle::Plain {
        return Ok(Value::String(text.to_owned()));
    }
    if is_null(text) {
        return Ok(Value::Null);
    }
    if let Some(flag) = bool_value(text) {
        return Ok(Value::Bool(flag));
    }
    if let Some(number) = number_value(text) {
        return Ok(Value::Number(number));
    }
    if is_timestamp(text) {
        return Ok(Value::Date);
    }
    Ok(Value::String(text.to_owned()))
}

fn is_null(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

fn bool_value(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// js-yaml 4.3's int and float forms. Underscores between digits (YAML 1.1, and js-yaml before
/// 4.3) make a string there: `1_000` is the text "1_000".
fn number_value(text: &str) -> Option<f64> {
    if text.contains('_') {
        return None;
    }
    let (sign, body) = match text.as_bytes().first()? {
        b'-' => (-1.0, &text[1..]),
        b'+' => (1.0, &text[1..]),
        _ => (1.0, text),
    };
    match body {
        ".inf" | ".Inf" | ".INF" => return Some(sign * f64::INFINITY),
        ".nan" | ".NaN" | ".NAN" if sign > 0.0 && !text.starts_with('+') => return Some(f64::NAN),
        _ => {}
    }
    let radix = |digits: &str, radix: u32| -> Option<f64> {
        // `from_str_radix` would take a sign of its own.
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return None;
        }
        i128::from_str_radix(digits, radix)
            .ok()
            .map(|value| sign * value as f64)
    };
    if let Some(digits) = body.strip_prefix("0x") {
        return radix(digits, 16);
    }
    if let Some(digits) = body.strip_prefix("0o") {
        return radix(digits, 8);
    }
    if let Some(digits) = body.strip_prefix("0b") {
        return radix(digits, 2);
    }
    // Decimal int or float: digits, optional fraction, optional exponent.
    let bytes = body.as_bytes();
    let mut at = 0;
    let digits = |at: &mut usize| {
        let start = *at;
        while *at < bytes.len() && bytes[*at].is_ascii_digit() {
            *at += 1;
        }
        *at - start
    };
    let whole = digits(&mut at);
    let mut fraction = 0;
    if at < bytes.len() && bytes[at] == b'.' {
        at += 1;
        fraction = digits(&mut at);
    }
    if whole == 0 && fraction == 0 {
        return None;
    }
    if at < bytes.len() && (bytes[at] == b'e' || bytes[at] == b'E') {
        at += 1;
        if at < bytes.len() && (bytes[at] == b'+' || bytes[at] == b'-') {
            at += 1;
        }
        let start = at;
        while at < bytes.len() && bytes[at].is_ascii_digit() {
            at += 1;
        }
        if at == start {
            return None;
        }
    }
    if at != bytes.len() {
        return None;
    }
    body.parse::<f64>().ok().map(|value| sign * value)
}

/// YAML 1.1 timestamps, as js-yaml resolves them.
fn is_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit_run = |from: usize, min: usize, max: usize| -> Option<usize> {
        let count = bytes[from.min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        (count >= min && count <= max).then_some(from + count)
    };
    let Some(at) = digit_run(0, 4, 4) else {
        return false;
    };
    if bytes.get(at) != Some(&b'-') {
        return false;
    }
    let Some(month_end) = digit_run(at + 1, 1, 2) else {
        return false;
    };
    if bytes.get(month_end) != Some(&b'-') {
        return false;
    }
    let Some(day_end) = digit_run(month_end + 1, 1, 2) else {
        return false;
    };
    if day_end == bytes.len() {
        // The date-only form needs two-digit month and day.
        return month_end - at == 3 && day_end - month_end == 3;
    }
    // Date and time: `T`, `t` or spaces, then hh:mm:ss with optional fraction and zone.
    let rest = &text[day_end..];
    let rest = match rest.strip_prefix(['T', 't']) {
        Some(rest) => rest,
        None if rest.starts_with([' ', '\t']) => rest.trim_start_matches([' ', '\t']),
        None => return false,
    };
    let time = rest.as_bytes();
    let hour = time.iter().take_while(|b| b.is_ascii_digit()).count();
    if !(1..=2).contains(&hour) || time.get(hour) != Some(&b':') {
        return false;
    }
    let minute_ok = time.len() >= hour + 6
        && time[hour + 1].is_ascii_digit()
        && time[hour + 2].is_ascii_digit()
        && time[hour + 3] == b':'
        && time[hour + 4].is_ascii_digit()
        && time[hour + 5].is_ascii_digit();
    if !minute_ok {
        return false;
    }
    let mut at = hour + 6;
    if time.get(at) == Some(&b'.') {
        at += 1;
        while at < time.len() && time[at].is_ascii_digit() {
            at += 1;
        }
    }
    let zone = rest[at..].trim_start_matches([' ', '\t']);
    zone.is_empty() || zone == "Z" || {
        let zone_bytes = zone.as_bytes();
        matches!(zone_bytes[0], b'+' | b'-')
            && zone_bytes[1..]
                .iter()
                .all(|b| b.is_ascii_digit() || *b == b':')
            && zone.len() >= 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Value {
        load(text).unwrap()
    }

    #[track_caller]
    fn error(text: &str) -> String {
        load(text).unwrap_err().message
    }

    #[test]
    fn refuses_deep_nesting_before_parsing() {
        let error = load(&format!("{}x", "- ".repeat(200_000))).unwrap_err();
        assert!(error.too_deep && error.offset == 0, "{error:?}");
        let flow = format!("a: {}", "[".repeat(MAX_FLOW_DEPTH + 1));
        let error = load(&flow).unwrap_err();
        assert!(error.too_deep, "{error:?}");
        assert_eq!(error.offset, flow.len() - 1);
        assert!(load("a: [[1]]\nb:\n  - - c\n").is_ok());
    }

    #[test]
    fn resolves_like_js_yaml() {
        assert_eq!(value("a: 2024-01-01").get("a"), Some(&Value::Date));
        assert_eq!(
            value("a: '2024-01-01'").get("a"),
            Some(&Value::String("2024-01-01".into()))
        );
        assert_eq!(
            value("a: 2001-12-14t21:59:43.10-05:00").get("a"),
            Some(&Value::Date)
        );
        assert_eq!(value("a: Null").get("a"), Some(&Value::Null));
        assert_eq!(value("a:").get("a"), Some(&Value::Null));
        assert_eq!(value("a: yes").get("a"), Some(&Value::String("yes".into())));
        assert_eq!(value("a: TRUE").get("a"), Some(&Value::Bool(true)));
        assert_eq!(value("a: 0x1F").get("a"), Some(&Value::Number(31.0)));
        for underscored in ["1_000", "0_1", "1_000.5", "0x1_F", "-1_0", "1_0e3"] {
            assert_eq!(
                value(&format!("a: {underscored}")).get("a"),
                Some(&Value::String(underscored.into())),
                "js-yaml 4.3.1 reads {underscored} as a string"
            );
        }
        assert_eq!(value("a: 1e3").get("a"), Some(&Value::Number(1000.0)));
        assert_eq!(
            value("a: .inf").get("a"),
            Some(&Value::Number(f64::INFINITY))
        );
        assert_eq!(
            value("a: 1.2.3").get("a"),
            Some(&Value::String("1.2.3".into()))
        );
        assert_eq!(
            value("a: !!str 12").get("a"),
            Some(&Value::String("12".into()))
        );
        assert_eq!(value("a: !!binary aGVsbG8=").get("a"), Some(&Value::Binary));
        assert_eq!(
            value("name:\tx").get("name"),
            Some(&Value::String("x".into()))
        );
        assert_eq!(
            value("a: &x {b: 1}\nc:\n  <<: *x\n  d: 2").get("c"),
            Some(&Value::Mapping(vec![
                ("b".into(), Value::Number(1.0)),
                ("d".into(), Value::Number(2.0))
            ]))
        );
        assert_eq!(value("# only a comment"), Value::Null);
    }

    #[test]
    fn refuses_like_js_yaml() {
        assert!(error("a: 1\na: 2").contains("duplicated"));
        assert!(error("1: a\n'1': b").contains("duplicated"));
        assert!(error("a: !foo x").contains("unknown tag"));
        assert!(error("a: b\u{1}").contains("non-printable"));
        assert!(error("a: 1\n...\nbody").contains("single document"));
        assert!(error("a: [1").len() > 3);
        assert!(error("a: *missing").len() > 3);
    }
}
