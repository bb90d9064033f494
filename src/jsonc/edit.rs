//! In-place edits of a JSONC document: a value replaced, a member added or removed, and every
//! other byte kept — comments, blank lines, key order, indentation and line endings — so a file
//! people write (a manifest, `squads.jsonc`, `opencorvus.jsonc`) reads the same after squad
//! edits it. Every edit is a [`splice`] at spans from [`super::parse`]; callers parse again
//! before the next edit.

use std::ops::Range;

use super::{Kind, Member, Node};

/// `text` with `range` replaced by `with`: the one splice every in-place edit goes through.
pub fn splice(text: &str, range: Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..range.start]);
    out.push_str(with);
    out.push_str(&text[range.end..]);
    out
}

/// The effective member `key` of an object: the last one, as the last duplicate key wins.
pub fn member<'a>(object: &'a Node, key: &str) -> Option<&'a Member> {
    match &object.kind {
        Kind::Object(members) => members.iter().rev().find(|member| member.key == key),
        _ => None,
    }
}

/// `text` with the object `object` (a node parsed from `text`) holding `key` set to `value`
/// (JSON text): the value of the effective member is replaced, or a member is appended after
/// the last one, on its own line indented like its siblings, or inline when the object is
/// written on one line. A trailing comma after the last member is kept in style.
pub fn set_member(text: &str, object: &Node, key: &str, value: &str) -> String {
    if let Some(existing) = member(object, key) {
        return splice(text, existing.value.span.clone(), value);
    }
    let Kind::Object(members) = &object.kind else {
        return text.to_owned();
    };
    let key = serde_json::to_string(key).unwrap_or_default();
    let newline = newline_of(text);
    let open = object.span.start;
    let close = object.span.end.saturating_sub(1);
    let inline = !text[open..close].contains('\n');
    let Some(last) = members.last() else {
        let base = indentation_of_line(text, open);
        let unit = indent_unit(text);
        // `{` and `}` on different lines: a new line before the closing brace's line, after
        // any comment inside.
        if !inline && text[line_start(text, close)..close].trim().is_empty() {
            let at = line_start(text, close);
            return splice(
                text,
                at..at,
                &format!("{base}{unit}{key}: {value}{newline}"),
            );
        }
        // `{}` or `{ }`: the blank inside becomes the new member's lines.
        let blank_start = text[..close]
            .trim_end_matches([' ', '\t'])
            .len()
            .max(open + 1);
        return splice(
            text,
            blank_start..close,
            &format!("{newline}{base}{unit}{key}: {value}{newline}{base}"),
        );
    };
    let entry = format!("{key}: {value}");
    append_after(
        text,
        open,
        inline,
        newline,
        last.key_span.start..last.value.span.end,
        &entry,
    )
}

/// `text` with the member `key` set to `value` as [`set_member`] does, except that a new member
/// goes first, so no other member's line changes (not even by a comma).
pub fn prepend_member(text: &str, object: &Node, key: &str, value: &str) -> String {
    let Kind::Object(members) = &object.kind else {
        return text.to_owned();
    };
    let Some(first) = members.first().filter(|_| member(object, key).is_none()) else {
        return set_member(text, object, key, value);
    };
    let quoted = serde_json::to_string(key).unwrap_or_default();
    let open = object.span.start;
    let close = object.span.end.saturating_sub(1);
    if !text[open..close].contains('\n') {
        return splice(text, open + 1..open + 1, &format!(" {quoted}: {value},"));
    }
    let start = line_start(text, first.key_span.start);
    let before = &text[start..first.key_span.start];
    let indent = if before.trim().is_empty() {
        before.to_owned()
    } else {
        format!("{}{}", indentation_of_line(text, open), indent_unit(text))
    };
    let newline = newline_of(text);
    splice(
        text,
        open + 1..open + 1,
        &format!("{newline}{indent}{quoted}: {value},"),
    )
}

/// `text` with the member `key` set to `value` (JSON text) in the object `object`, a new member
/// going on a line of its own at its sorted place and ending with a comma: before the first
/// member whose key sorts after it (and before the comment lines directly above that member),
/// else after the last one. No other line changes (a last member without a trailing comma
/// gets one only when the new member goes after it), so two branches that each add a member
/// merge without a conflict unless no member sorts between the two. An existing member has
/// its value replaced; an object written on one line gets [`set_member`]'s inline style.
pub fn insert_member_sorted(text: &str, object: &Node, key: &str, value: &str) -> String {
    let Kind::Object(members) = &object.kind else {
        return text.to_owned();
    };
    let open = object.span.start;
    let close = object.span.end.saturating_sub(1);
    if member(object, key).is_some() || !text[open..close].contains('\n') {
        return set_member(text, object, key, value);
    }
    let newline = newline_of(text);
    let entry = format!(
        "{}: {value},",
        serde_json::to_string(key).unwrap_or_default()
    );
    let own_line = |member: &Member| {
        let start = line_start(text, member.key_span.start);
        (start > open && text[start..member.key_span.start].trim().is_empty()).then_some(start)
    };
    let indent = members
        .iter()
        .find_map(|member| own_line(member).map(|start| &text[start..member.key_span.start]))
        .map_or_else(
            || format!("{}{}", indentation_of_line(text, open), indent_unit(text)),
            str::to_owned,
        );
    if let Some(start) = members
        .iter()
        .find(|member| member.key.as_str() > key)
        .and_then(own_line)
    {
        let at = comments_above(text, start, open);
        return splice(text, at..at, &format!("{indent}{entry}{newline}"));
    }
    let Some(last) = members.last() else {
        let at = line_start(text, close);
        if text[at..close].trim().is_empty() {
            return splice(text, at..at, &format!("{indent}{entry}{newline}"));
        }
        return set_member(text, object, key, value);
    };
    let value_end = last.value.span.end;
    let next = skip_trivia(text, value_end);
    let comma = text.as_bytes().get(next) == Some(&b',');
    let after = if comma { next + 1 } else { value_end };
    let Some(line_end) = rest_of_line_is_trivia(text, after) else {
        return set_member(text, object, key, value);
    };
    let inserted = splice(
        text,
        line_end..line_end,
        &format!("{newline}{indent}{entry}"),
    );
    if comma {
        inserted
    } else {
        splice(&inserted, value_end..value_end, ",")
    }
}

/// Where the `//` comment lines directly above the line starting at `start` begin (no blank
/// line between), staying below the line of `open`: a member's comment moves with it.
fn comments_above(text: &str, start: usize, open: usize) -> usize {
    let mut at = start;
    while at > 0 {
        let previous = line_start(text, at - 1);
        if previous <= open || !text[previous..at].trim_start().starts_with("//") {
            break;
        }
        at = previous;
    }
    at
}

/// `text` with `value` (JSON text) appended to the array `array` (a node parsed from `text`),
/// in the array's style: on its own line indented like the elements before it when the array
/// spans lines, else inline after a comma. A trailing comma is kept in style, and a comment
/// that ends the last element's line stays with that element.
pub fn push_element(text: &str, array: &Node, value: &str) -> String {
    let Kind::Array(items) = &array.kind else {
        return text.to_owned();
    };
    let newline = newline_of(text);
    let open = array.span.start;
    let close = array.span.end.saturating_sub(1);
    let inline = !text[open..close].contains('\n');
    let Some(last) = items.last() else {
        // `[]` stays on one line in a document that writes its arrays on one line.
        if inline && !writes_arrays_on_lines(text) {
            return splice(text, open + 1..close, value);
        }
        if inline {
            let base = indentation_of_line(text, open);
            let unit = indent_unit(text);
            return splice(
                text,
                open + 1..close,
                &format!("{newline}{base}{unit}{value}{newline}{base}"),
            );
        }
        let base = indentation_of_line(text, open);
        let unit = indent_unit(text);
        let at = line_start(text, close);
        if text[at..close].trim().is_empty() {
            return splice(text, at..at, &format!("{base}{unit}{value}{newline}"));
        }
        return splice(
            text,
            close..close,
            &format!("{newline}{base}{unit}{value}{newline}{base}"),
        );
    };
    append_after(text, open, inline, newline, last.span.clone(), value)
}

/// `text` with `entry` (a member's `key: value`, or an element) added after the last entry of
/// the object or array that opens at `open`, whose span is `last`: inline after a comma when
/// the container is on one line, else on a line of its own indented like the last entry's, after
/// a comment that ends that line (the comment stays with the entry it follows). A trailing comma
/// is kept in style.
fn append_after(
    text: &str,
    open: usize,
    inline: bool,
    newline: &str,
    last: Range<usize>,
    entry: &str,
) -> String {
    let value_end = last.end;
    let next = skip_trivia(text, value_end);
    let trailing_comma = text.as_bytes().get(next) == Some(&b',');
    if inline {
        return if trailing_comma {
            splice(text, next + 1..next + 1, &format!(" {entry},"))
        } else {
            splice(text, value_end..value_end, &format!(", {entry}"))
        };
    }
    let indent = {
        let start = line_start(text, last.start);
        let before = &text[start..last.start];
        if before.trim().is_empty() {
            before.to_owned()
        } else {
            format!("{}{}", indentation_of_line(text, open), indent_unit(text))
        }
    };
    let after = if trailing_comma { next + 1 } else { value_end };
    let at = rest_of_line_is_trivia(text, after).unwrap_or(after);
    let comma = if trailing_comma { "," } else { "" };
    let inserted = splice(text, at..at, &format!("{newline}{indent}{entry}{comma}"));
    if trailing_comma {
        inserted
    } else {
        splice(&inserted, value_end..value_end, ",")
    }
}

/// Whether some array of the document opens a line of its own elements (`[` then a line
/// break before its first element).
fn writes_arrays_on_lines(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find('[') {
        rest = &rest[at + 1..];
        let after = rest.trim_start_matches([' ', '\t']);
        if after.starts_with('\n') || after.starts_with("\r\n") {
            let element = after.trim_start();
            if !element.starts_with(']') {
                return true;
            }
        }
    }
    false
}

/// The indentation a new member of `object` gets: that of its last member's line, or one unit
/// more than the object's own line. What a multi-line value written into it is indented from.
pub fn member_indentation(text: &str, object: &Node) -> String {
    if let Kind::Object(members) = &object.kind {
        if let Some(last) = members.last() {
            let start = line_start(text, last.key_span.start);
            let before = &text[start..last.key_span.start];
            if before.trim().is_empty() {
                return before.to_owned();
            }
        }
    }
    format!(
        "{}{}",
        indentation_of_line(text, object.span.start),
        indent_unit(text)
    )
}

/// `value` as JSON text indented by `unit` per level, its lines after the first prefixed with
/// `base` and ended by `newline`: how a generated object is written into a document at a given
/// depth.
pub fn pretty(value: &serde_json::Value, unit: &str, base: &str, newline: &str) -> String {
    use serde::Serialize;
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    if value.serialize(&mut serializer).is_err() {
        return value.to_string();
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    text.lines()
        .enumerate()
        .map(|(index, line)| {
            if index == 0 {
                line.to_owned()
            } else {
                format!("{base}{line}")
            }
        })
        .collect::<Vec<_>>()
        .join(newline)
}

/// `text` with every member `key` of the object `object` removed, with the comma that
/// separated it and the line it leaves blank. Comments are kept, even those beside it: they
/// are people's text, and squad never deletes what it cannot tell is only about the member.
pub fn remove_member(text: &str, object: &Node, key: &str) -> String {
    let Kind::Object(members) = &object.kind else {
        return text.to_owned();
    };
    let items: Vec<Range<usize>> = members
        .iter()
        .map(|member| member.key_span.start..member.value.span.end)
        .collect();
    let mut out = text.to_owned();
    // From the last, so the spans of earlier members stay valid.
    for index in (0..members.len()).rev() {
        if members[index].key != key {
            continue;
        }
        out = remove_at(&out, &items, index);
    }
    out
}

/// `text` with the elements of the array `array` for which `remove` holds taken out, as
/// [`remove_member`] takes out members.
pub fn remove_elements(text: &str, array: &Node, remove: &dyn Fn(&Node) -> bool) -> String {
    let Kind::Array(elements) = &array.kind else {
        return text.to_owned();
    };
    let items: Vec<Range<usize>> = elements.iter().map(|node| node.span.clone()).collect();
    let mut out = text.to_owned();
    for index in (0..elements.len()).rev() {
        if remove(&elements[index]) {
            out = remove_at(&out, &items, index);
        }
    }
    out
}

/// Removes the member or element spanning `items[index]` (a member from its key to the end of
/// its value).
fn remove_at(text: &str, items: &[Range<usize>], index: usize) -> String {
    let bytes = text.as_bytes();
    let mut start = items[index].start;
    let mut end = items[index].end;
    let next = skip_trivia(text, end);
    let mut earlier_comma = None;
    if bytes.get(next) == Some(&b',') {
        end = next + 1;
        while matches!(bytes.get(end), Some(b' ' | b'\t')) {
            end += 1;
        }
    } else if index > 0 {
        // The last member: the comma before it goes, unless a comment sits between them.
        let comma = skip_trivia(text, items[index - 1].end);
        if bytes.get(comma) == Some(&b',') {
            if text[comma + 1..start].trim_matches([' ', '\t']).is_empty() {
                start = comma;
            } else {
                earlier_comma = Some(comma);
            }
        }
    }
    let first = line_start(text, start);
    if text[first..start].trim().is_empty() {
        if let Some(line_end) = rest_of_line_is_blank(text, end) {
            start = first;
            end = line_end;
        }
    }
    let removed = splice(text, start..end, "");
    match earlier_comma {
        Some(comma) => splice(&removed, comma..comma + 1, ""),
        None => removed,
    }
}

/// The first offset at or after `from` that is neither whitespace nor inside a comment.
fn skip_trivia(text: &str, from: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = from;
    loop {
        match bytes.get(at) {
            Some(b' ' | b'\t' | b'\r' | b'\n') => at += 1,
            Some(b'/') if bytes.get(at + 1) == Some(&b'/') => {
                while !matches!(bytes.get(at), None | Some(b'\n')) {
                    at += 1;
                }
            }
            Some(b'/') if bytes.get(at + 1) == Some(&b'*') => match text[at + 2..].find("*/") {
                Some(close) => at += 2 + close + 2,
                None => return text.len(),
            },
            _ => return at,
        }
    }
}

/// When the rest of the line from `from` holds only spaces and comments, where the line
/// ends (before its line terminator).
fn rest_of_line_is_trivia(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    loop {
        match bytes.get(at) {
            Some(b' ' | b'\t') => at += 1,
            None | Some(b'\n') => return Some(at),
            Some(b'\r') if bytes.get(at + 1) == Some(&b'\n') => return Some(at),
            Some(b'/') if bytes.get(at + 1) == Some(&b'/') => {
                while !matches!(bytes.get(at), None | Some(b'\n')) {
                    at += 1;
                }
                if at > from && bytes.get(at - 1) == Some(&b'\r') {
                    at -= 1;
                }
                return Some(at);
            }
            Some(b'/') if bytes.get(at + 1) == Some(&b'*') => {
                let close = text[at + 2..].find("*/")?;
                if text[at..at + 2 + close].contains('\n') {
                    return None;
                }
                at += 2 + close + 2;
            }
            _ => return None,
        }
    }
}

/// When the rest of the line from `from` is blank, the offset just past its line terminator.
fn rest_of_line_is_blank(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\r')) {
        at += 1;
    }
    match bytes.get(at) {
        Some(b'\n') => Some(at + 1),
        None => Some(at),
        _ => None,
    }
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |newline| newline + 1)
}

/// The spaces and tabs a line starts with.
fn indentation_of_line(text: &str, at: usize) -> &str {
    let start = line_start(text, at);
    let rest = &text[start..];
    &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()]
}

/// A tab when the document indents with tabs, else two spaces.
pub fn indent_unit(text: &str) -> &'static str {
    if text.contains("\n\t") { "\t" } else { "  " }
}

/// The document's line terminator: CRLF when it uses it anywhere, else LF.
pub fn newline_of(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonc::{parse, to_value};

    /// Applies `edit` to the object at `path` (keys from the root) and checks the result parses.
    fn edit(text: &str, path: &[&str], edit: impl Fn(&str, &Node) -> String) -> String {
        let root = parse(text).unwrap();
        let mut node = &root;
        for key in path {
            node = &member(node, key).unwrap().value;
        }
        let edited = edit(text, node);
        parse(&edited).unwrap_or_else(|error| panic!("{error:?} in:\n{edited}"));
        edited
    }

    fn insert(text: &str, path: &[&str], key: &str, value: &str) -> String {
        edit(text, path, |text, node| {
            insert_member_sorted(text, node, key, value)
        })
    }

    #[test]
    fn sorted_insertion_adds_one_line_and_touches_no_other() {
        let text = "{\n  \"squads\": {\n    \"b/b\": { \"source\": \"x\" },\n    // the last\n    \"d/d\": { \"source\": \"x\" },\n  }\n}\n";
        let lines = |text: &str| text.lines().map(str::to_owned).collect::<Vec<_>>();
        for (key, at) in [("a/a", 2), ("c/c", 3), ("e/e", 5)] {
            let inserted = insert(text, &["squads"], key, "{}");
            let mut expected = lines(text);
            expected.insert(at, format!("    \"{key}\": {{}},"));
            assert_eq!(lines(&inserted), expected, "{key}:\n{inserted}");
        }
        // An empty object spread over lines, and a last member without a comma.
        assert_eq!(
            insert("{\n  \"squads\": {\n  }\n}\n", &["squads"], "a/a", "{}"),
            "{\n  \"squads\": {\n    \"a/a\": {},\n  }\n}\n"
        );
        assert_eq!(
            insert(
                "{\n  \"s\": {\n    \"a\": 1 // one\n  }\n}\n",
                &["s"],
                "b",
                "2"
            ),
            "{\n  \"s\": {\n    \"a\": 1, // one\n    \"b\": 2,\n  }\n}\n"
        );
        // On one line, the object keeps its style; an existing member is set in place.
        assert_eq!(
            insert("{ \"s\": { \"a\": 1 } }", &["s"], "b", "2"),
            "{ \"s\": { \"a\": 1, \"b\": 2 } }"
        );
        assert_eq!(
            insert("{\n  \"s\": {\n    \"a\": 1,\n  }\n}", &["s"], "a", "3"),
            "{\n  \"s\": {\n    \"a\": 3,\n  }\n}"
        );
    }

    fn set(text: &str, path: &[&str], key: &str, value: &str) -> String {
        edit(text, path, |text, node| set_member(text, node, key, value))
    }

    fn remove(text: &str, path: &[&str], key: &str) -> String {
        edit(text, path, |text, node| remove_member(text, node, key))
    }

    #[test]
    fn a_value_is_replaced_and_nothing_else_moves() {
        let text = "// keep\n{\n  \"a\": 1, /* and */\n  \"a\" :  2 // last wins\n}\n";
        assert_eq!(set(text, &[], "a", "3"), text.replace(":  2", ":  3"));
    }

    #[test]
    fn members_are_appended_like_their_siblings() {
        let text = "{\n    \"a\": 1, // one\n    \"b\": 2 // two\n}\n";
        assert_eq!(
            set(text, &[], "c", "3"),
            "{\n    \"a\": 1, // one\n    \"b\": 2, // two\n    \"c\": 3\n}\n"
        );
        let trailing = "{\n  \"a\": 1,\n}\n";
        assert_eq!(
            set(trailing, &[], "b", "2"),
            "{\n  \"a\": 1,\n  \"b\": 2,\n}\n"
        );
        let inline = "{\"s\": { \"source\": \"x\" }}";
        assert_eq!(
            set(inline, &["s"], "version", "\"v\""),
            "{\"s\": { \"source\": \"x\", \"version\": \"v\" }}"
        );
        let crlf = "{\r\n  \"a\": 1 // c\r\n}\r\n";
        assert_eq!(
            set(crlf, &[], "b", "2"),
            "{\r\n  \"a\": 1, // c\r\n  \"b\": 2\r\n}\r\n"
        );
        let tabs = "{\n\t\"a\": {}\n}";
        assert_eq!(
            set(tabs, &["a"], "b", "1"),
            "{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}"
        );
    }

    #[test]
    fn prepended_members_leave_every_other_line_alone() {
        let prepend = |text: &str, key: &str| {
            edit(text, &[], |text, node| prepend_member(text, node, key, "1"))
        };
        assert_eq!(
            prepend("{\n  \"a\": 0 // keep\n}\n", "b"),
            "{\n  \"b\": 1,\n  \"a\": 0 // keep\n}\n"
        );
        assert_eq!(prepend("{ \"a\": 0 }", "b"), "{ \"b\": 1, \"a\": 0 }");
        assert_eq!(prepend("{}", "b"), "{\n  \"b\": 1\n}");
        assert_eq!(prepend("{\"b\": 0}", "b"), "{\"b\": 1}");
    }

    #[test]
    fn empty_objects_grow_lines_and_keep_their_comments() {
        assert_eq!(set("{}", &[], "a", "1"), "{\n  \"a\": 1\n}");
        assert_eq!(
            set("{\n  \"s\": { }\n}\n", &["s"], "a", "1"),
            "{\n  \"s\": {\n    \"a\": 1\n  }\n}\n"
        );
        let commented = "{\n  \"s\": {\n    // squads go here\n  }\n}\n";
        assert_eq!(
            set(commented, &["s"], "a", "1"),
            "{\n  \"s\": {\n    // squads go here\n    \"a\": 1\n  }\n}\n"
        );
    }

    #[test]
    fn members_are_removed_with_their_comma_and_line() {
        let text = "{\n  // first\n  \"a\": 1,\n  \"b\": 2, // about b\n  \"c\": 3\n}\n";
        assert_eq!(
            remove(text, &[], "a"),
            "{\n  // first\n  \"b\": 2, // about b\n  \"c\": 3\n}\n"
        );
        assert_eq!(
            remove(text, &[], "c"),
            "{\n  // first\n  \"a\": 1,\n  \"b\": 2 // about b\n}\n"
        );
        assert_eq!(
            remove(text, &[], "b"),
            "{\n  // first\n  \"a\": 1,\n  // about b\n  \"c\": 3\n}\n"
        );
        let only = "{\n  \"a\": 1\n}\n";
        assert_eq!(remove(only, &[], "a"), "{\n}\n");
        let inline = "{ \"a\": 1, \"b\": 2 }";
        assert_eq!(remove(inline, &[], "a"), "{ \"b\": 2 }");
        assert_eq!(remove(inline, &[], "b"), "{ \"a\": 1 }");
        let duplicated = "{\"a\": 1, \"b\": 2, \"a\": 3}";
        assert_eq!(
            to_value(&parse(&remove(duplicated, &[], "a")).unwrap()),
            serde_json::json!({"b": 2})
        );
        assert_eq!(remove(only, &[], "zzz"), only);
    }

    fn push(text: &str, path: &[&str], value: &str) -> String {
        edit(text, path, |text, node| push_element(text, node, value))
    }

    #[test]
    fn elements_are_appended_like_their_siblings() {
        assert_eq!(push("{\"a\": []}", &["a"], "1"), "{\"a\": [1]}");
        let pretty = "{\n  \"a\": [],\n  \"b\": [\n    1\n  ]\n}";
        assert_eq!(
            push(pretty, &["a"], "2"),
            "{\n  \"a\": [\n    2\n  ],\n  \"b\": [\n    1\n  ]\n}"
        );
        assert_eq!(push("{\"a\": [1, 2]}", &["a"], "3"), "{\"a\": [1, 2, 3]}");
        assert_eq!(push("{\"a\": [1,]}", &["a"], "2"), "{\"a\": [1, 2,]}");
        let lines = "{\n  \"a\": [\n    \"x\" // first\n  ]\n}\n";
        assert_eq!(
            push(lines, &["a"], "\"y\""),
            "{\n  \"a\": [\n    \"x\", // first\n    \"y\"\n  ]\n}\n"
        );
        let empty_lines = "{\n  \"a\": [\n  ]\n}\n";
        assert_eq!(
            push(empty_lines, &["a"], "1"),
            "{\n  \"a\": [\n    1\n  ]\n}\n"
        );
        let crlf = "{\r\n  \"a\": [\r\n    1,\r\n  ]\r\n}";
        assert_eq!(
            push(crlf, &["a"], "2"),
            "{\r\n  \"a\": [\r\n    1,\r\n    2,\r\n  ]\r\n}"
        );
    }

    #[test]
    fn generated_values_are_indented_for_their_place() {
        let text = "{\n    \"agents\": {\n        \"a\": {}\n    }\n}";
        let root = parse(text).unwrap();
        let agents = &member(&root, "agents").unwrap().value;
        assert_eq!(member_indentation(text, agents), "        ");
        let value = serde_json::json!({"label": "B", "refs": []});
        assert_eq!(
            pretty(&value, "  ", "        ", "\n"),
            "{\n          \"label\": \"B\",\n          \"refs\": []\n        }"
        );
    }

    #[test]
    fn splices_compose_into_any_edit() {
        assert_eq!(splice("abcdef", 2..4, "XY"), "abXYef");
        assert_eq!(splice("abc", 3..3, "d"), "abcd");
    }
}
