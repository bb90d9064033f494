//! What an offset of a JSONC text is on, found by a tolerant scan: the manifest is being typed,
//! so the text after the cursor (and often before it) does not parse. The scan walks the tokens
//! up to the cursor keeping the stack of open objects and arrays, which gives the JSON path of
//! the cursor and whether a key or a value may be typed there.

use std::ops::Range;

/// Where the cursor is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    /// The keys and array indices from the root to the value or member the cursor is in: for a
    /// key, the object's path; for a value, the path of the value itself.
    pub path: Vec<String>,
    pub at: At,
    /// The keys of the innermost object that come before the cursor.
    pub siblings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum At {
    /// Inside a key's string literal; `span` is the literal with its quotes.
    Key { text: String, span: Range<usize> },
    /// Between members of an object, where a key may start.
    KeySlot,
    /// Inside a string value; `span` is the literal with its quotes (to the end of the line
    /// when it is not closed yet).
    Value { text: String, span: Range<usize> },
    /// Where a value may start (after a `:`, or in an array).
    ValueSlot,
    /// Anywhere else (on a number, a comment, a brace).
    Other,
}

enum Frame {
    Object {
        key: Option<String>,
        after_colon: bool,
        keys: Vec<String>,
    },
    Array {
        index: usize,
    },
}

/// The cursor at byte `offset` of `text`.
pub fn locate(text: &str, offset: usize) -> Cursor {
    let bytes = text.as_bytes();
    let offset = offset.min(bytes.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut at = 0;
    let result = |stack: &Vec<Frame>, target: At| cursor_of(stack, target);
    while at < bytes.len() {
        if at >= offset && !matches!(bytes[at], b'"') {
            break;
        }
        match bytes[at] {
            b' ' | b'\t' | b'\r' | b'\n' => at += 1,
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                let end = text[at..].find('\n').map_or(bytes.len(), |end| at + end);
                if offset > at && offset <= end {
                    return result(&stack, At::Other);
                }
                at = end;
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                let end = text[at + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |end| at + 2 + end + 2);
                if offset > at && offset < end {
                    return result(&stack, At::Other);
                }
                at = end;
            }
            b'{' => {
                stack.push(Frame::Object {
                    key: None,
                    after_colon: false,
                    keys: Vec::new(),
                });
                at += 1;
            }
            b'[' => {
                stack.push(Frame::Array { index: 0 });
                at += 1;
            }
            b'}' | b']' => {
                stack.pop();
                at += 1;
            }
            b':' => {
                if let Some(Frame::Object { after_colon, .. }) = stack.last_mut() {
                    *after_colon = true;
                }
                at += 1;
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Object {
                        key, after_colon, ..
                    }) => {
                        *key = None;
                        *after_colon = false;
                    }
                    Some(Frame::Array { index }) => *index += 1,
                    None => {}
                }
                at += 1;
            }
            b'"' => {
                let (end, closed) = string_end(bytes, at);
                let inside = offset > at && (offset < end || (!closed && offset <= end));
                let content_end = if closed { end - 1 } else { end };
                let raw = &text[at + 1..content_end.max(at + 1)];
                let is_key = matches!(
                    stack.last(),
                    Some(Frame::Object {
                        after_colon: false,
                        ..
                    })
                );
                if inside {
                    let span = at..end;
                    let text = unescape(raw);
                    return result(
                        &stack,
                        if is_key {
                            At::Key { text, span }
                        } else {
                            At::Value { text, span }
                        },
                    );
                }
                if at >= offset {
                    break;
                }
                if let Some(Frame::Object {
                    key,
                    after_colon: false,
                    keys,
                }) = stack.last_mut()
                {
                    let name = unescape(raw);
                    keys.push(name.clone());
                    *key = Some(name);
                }
                at = end;
            }
            _ => {
                let end = at
                    + bytes[at..]
                        .iter()
                        .position(|byte| b" \t\r\n,:{}[]\"/".contains(byte))
                        .unwrap_or(bytes.len() - at)
                        .max(1);
                if offset > at && offset <= end {
                    return result(&stack, At::Other);
                }
                at = end;
            }
        }
    }
    let slot = match stack.last() {
        Some(Frame::Object {
            after_colon: false, ..
        }) => At::KeySlot,
        Some(_) => At::ValueSlot,
        None => At::Other,
    };
    result(&stack, slot)
}

fn cursor_of(stack: &[Frame], target: At) -> Cursor {
    let mut path = Vec::new();
    let last = stack.len().saturating_sub(1);
    for (depth, frame) in stack.iter().enumerate() {
        match frame {
            Frame::Object {
                key, after_colon, ..
            } => {
                // The innermost object's key is part of the path only for a value.
                let in_value = depth < last || !matches!(target, At::Key { .. } | At::KeySlot);
                if let (Some(key), true) = (key, *after_colon && in_value) {
                    path.push(key.clone());
                }
            }
            Frame::Array { index } => path.push(index.to_string()),
        }
    }
    let siblings = match stack.last() {
        Some(Frame::Object { keys, .. }) => keys.clone(),
        _ => Vec::new(),
    };
    Cursor {
        path,
        at: target,
        siblings,
    }
}

/// The end of the string literal starting at `start` (past its closing quote) and whether it
/// is closed; an unclosed one ends at the end of its line.
fn string_end(bytes: &[u8], start: usize) -> (usize, bool) {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return (at + 1, true),
            b'\n' | b'\r' => return (at, false),
            _ => at += 1,
        }
    }
    (bytes.len(), false)
}

/// The text of a string literal's content: JSON's escapes decoded where they are complete.
fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_owned();
    }
    serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_else(|_| raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(text_with_bar: &str, path: &[&str], at: &str) {
        let offset = text_with_bar.find('|').unwrap();
        let text = text_with_bar.replacen('|', "", 1);
        let cursor = locate(&text, offset);
        assert_eq!(cursor.path, path, "{text_with_bar}");
        let shown = match &cursor.at {
            At::Key { text, .. } => format!("key {text}"),
            At::KeySlot => "key slot".to_owned(),
            At::Value { text, .. } => format!("value {text}"),
            At::ValueSlot => "value slot".to_owned(),
            At::Other => "other".to_owned(),
        };
        assert_eq!(shown, at, "{text_with_bar}");
    }

    #[test]
    fn keys_values_and_slots() {
        check(r#"{"a": {"b|"#, &["a"], "key b");
        check(r#"{"a": {"b": "x|y"}}"#, &["a", "b"], "value xy");
        check(r#"{"a": {"b": |}}"#, &["a", "b"], "value slot");
        check(r#"{"a": {"b": 1, |}}"#, &["a"], "key slot");
        check(r#"{"a": ["x", "y", "|"]}"#, &["a", "2"], "value ");
        check(r#"{"a": ["x", |"#, &["a", "1"], "value slot");
        check(r#"{"a": 12|3}"#, &["a"], "other");
        check("{// \"a\": |\n}", &[], "other");
        check(
            "{\"a\": [1],\n  \"b\": {\"c\": [\"d\", \"e|",
            &["b", "c", "1"],
            "value e",
        );
        // A cursor after a closed string is not inside it.
        check(r#"{"a": "x"|}"#, &["a"], "value slot");
    }

    #[test]
    fn siblings_are_the_keys_before_the_cursor() {
        let text = r#"{"a": 1, "b": {"x": 2}, "#;
        let cursor = locate(text, text.len());
        assert_eq!(cursor.siblings, ["a", "b"]);
        assert_eq!(cursor.at, At::KeySlot);
    }
}
