//! Small lexical helpers shared by several rules: JavaScript's notion of whitespace and trimming
//! (the reference trims with `String.prototype.trim`), the kebab-case id pattern, and code-unit
//! string order, and text from elsewhere made safe to show ([`remote`]).

use std::cmp::Ordering;

/// Whitespace as JavaScript's `trim` defines it (WhiteSpace and LineTerminator). Unlike
/// `char::is_whitespace` it includes U+FEFF and excludes U+0085.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{B}' | '\u{C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

pub fn js_trim(text: &str) -> &str {
    text.trim_matches(is_js_whitespace)
}

/// `s` unless there is exactly one.
pub fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// `^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$` (ID-1), without the length limit.
pub fn is_kebab_id(text: &str) -> bool {
    let bytes = text.as_bytes();
    let Some(first) = bytes.first() else {
        return false;
    };
    if !first.is_ascii_lowercase() || bytes.last() == Some(&b'-') {
        return false;
    }
    let mut previous_dash = false;
    for &byte in bytes {
        match byte {
            b'a'..=b'z' | b'0'..=b'9' => previous_dash = false,
            b'-' if !previous_dash => previous_dash = true,
            _ => return false,
        }
    }
    true
}

/// The one candidate that `word` is most likely a misspelling of, for "did you mean" hints:
/// the nearest by edit distance (a swap of two neighbours counts as one edit, case is
/// ignored), within a third of the word's length and never more than three edits, as rustc
/// judges typos. `None` when nothing is close, or when two candidates are equally close.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word_lower = word.to_lowercase();
    let limit = (word.chars().count().max(3) / 3).min(3);
    let mut best: Option<(usize, &'a str)> = None;
    let mut tied = false;
    for candidate in candidates {
        if candidate == word {
            continue;
        }
        let distance = edit_distance(&word_lower, &candidate.to_lowercase());
        if distance > limit {
            continue;
        }
        match best {
            Some((best_distance, best_candidate)) if distance == best_distance => {
                tied |= best_candidate != candidate;
            }
            Some((best_distance, _)) if distance > best_distance => {}
            _ => {
                best = Some((distance, candidate));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, candidate)| candidate)
}

/// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
/// adjacent characters each cost one.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut rows = vec![0usize; (a.len() + 1) * width];
    for (j, cell) in rows.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        rows[i * width] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut value = (rows[(i - 1) * width + j] + 1)
                .min(rows[i * width + j - 1] + 1)
                .min(rows[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                value = value.min(rows[(i - 2) * width + j - 2] + 1);
            }
            rows[i * width + j] = value;
        }
    }
    rows[a.len() * width + b.len()]
}

/// `text` as a lower-kebab-case id, when one can be made of it: `Incident Review`,
/// `incident_review` and `incidentReview` all become `incident-review`.
pub fn to_kebab_id(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut previous: Option<char> = None;
    for c in text.trim().chars() {
        if c.is_ascii_alphanumeric() {
            let boundary = c.is_ascii_uppercase()
                && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit());
            if boundary && !out.ends_with('-') {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        previous = Some(c);
    }
    let out = out.trim_end_matches('-').to_owned();
    is_kebab_id(&out).then_some(out)
}

/// JavaScript's default string comparison: lexicographic over UTF-16 code units. It differs from
/// Rust's byte order only between U+E000..U+FFFF and characters above U+FFFF.
pub fn cmp_code_units(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// The most characters of a server's words squad shows in one place.
pub const REMOTE_TEXT_CHARS: usize = 300;

/// Whether `c` can change what a terminal shows beyond its own glyph, or hide what a name
/// really is: a control character (C0, DEL, C1: line breaks, carriage returns, escape
/// sequences), a bidirectional override or isolate (text that reads in another order than it
/// is stored), or another invisible format character (zero-width, soft hyphen, joiners).
/// The archive reader refuses entry names with any of them, so a name it accepts is shown as
/// it is.
pub fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{AD}' | '\u{600}'..='\u{605}' | '\u{61C}' | '\u{6DD}' | '\u{70F}' | '\u{180E}'
            | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
}

/// Text that came from elsewhere (a server's error message, a header, a tag name, a realm),
/// made safe to put in a line squad prints: every character that could move the cursor, start
/// an escape sequence, break the line or reorder it is written as an escape (`\n`, `\r`,
/// `\t`, `\u{1b}`), and the text is cut to `max` characters with an ellipsis. A server can
/// then neither forge a line of squad's output nor flood the terminal.
pub fn remote(text: &str, max: usize) -> String {
    let mut shown = String::with_capacity(text.len().min(max.saturating_mul(2)));
    for (count, c) in text.chars().enumerate() {
        if count == max {
            shown.push('…');
            break;
        }
        match c {
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            c if is_invisible(c) => shown.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => shown.push(c),
        }
    }
    shown
}

/// A name or value squad did not write (a file's, a folder's, a manifest's, an archive's, a
/// server's), as one line of squad's output quotes it: [`remote`] at [`REMOTE_TEXT_CHARS`].
pub fn shown(text: &str) -> String {
    remote(text, REMOTE_TEXT_CHARS)
}

/// A path squad found on disk, whose names are whoever made the files': every character
/// [`remote`] escapes is escaped, and nothing is cut (the file system bounds a path's length,
/// and a cut path would name another file).
pub fn shown_path(path: &std::path::Path) -> String {
    remote(&path.display().to_string(), usize::MAX)
}

/// `text` with its lines kept: every other character [`remote`] escapes is escaped. The last
/// line of defence of the printer, for a message whose lines are squad's own.
pub fn lines_safe_to_show(text: &str) -> std::borrow::Cow<'_, str> {
    if !text
        .chars()
        .any(|c| c != '\n' && c != '\t' && is_invisible(c))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| remote(line, usize::MAX).replace("\\t", "\t"))
        .collect();
    std::borrow::Cow::Owned(lines.join("\n"))
}

/// Whether [`remote`] would change `text` (short of cutting it).
pub fn is_safe_to_show(text: &str) -> bool {
    !text.chars().any(is_invisible)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kebab_ids() {
        for ok in ["a", "a1", "a-b", "abc-123-x", "a0-0"] {
            assert!(is_kebab_id(ok), "{ok}");
        }
        for bad in ["", "A", "1a", "-a", "a-", "a--b", "a_b", "a b", "é", "a\n"] {
            assert!(!is_kebab_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn closest_finds_one_likely_typo() {
        let roles = ["build", "architect", "fact-check", "deep-research"];
        assert_eq!(closest("biuld", roles), Some("build"));
        assert_eq!(closest("Build", roles), Some("build"));
        assert_eq!(closest("deep_research", roles), Some("deep-research"));
        assert_eq!(closest("fact-checker", roles), Some("fact-check"));
        assert_eq!(closest("developer", roles), None);
        assert_eq!(closest("build", roles), None, "an exact match is no typo");
        assert_eq!(closest("ab", ["ac", "ad"]), None, "a tie is no answer");
        assert_eq!(closest("lable", ["label", "id"]), Some("label"));
        assert_eq!(
            closest("shared/missing-method", ["shared/release-method"]),
            None
        );
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("ab", "ba"), 1);
    }

    #[test]
    fn kebab_ids_are_made_from_names() {
        assert_eq!(
            to_kebab_id("Incident Review").as_deref(),
            Some("incident-review")
        );
        assert_eq!(
            to_kebab_id("incident_review").as_deref(),
            Some("incident-review")
        );
        assert_eq!(
            to_kebab_id("incidentReview").as_deref(),
            Some("incident-review")
        );
        assert_eq!(to_kebab_id("review-").as_deref(), Some("review"));
        assert_eq!(to_kebab_id("2fa").as_deref(), None);
        assert_eq!(to_kebab_id("__").as_deref(), None);
    }

    #[test]
    fn remote_text_cannot_forge_lines_or_escape_sequences() {
        let forged = "boom\r\n     Installed evil/evil 1.0\u{1b}[2K\u{202e}txt\u{200b}";
        let shown = remote(forged, REMOTE_TEXT_CHARS);
        assert_eq!(
            shown,
            "boom\\r\\n     Installed evil/evil 1.0\\u{1b}[2K\\u{202e}txt\\u{200b}"
        );
        assert!(is_safe_to_show(&shown));
        assert!(!is_safe_to_show(forged));
        assert_eq!(remote("é日😀 plain", 300), "é日😀 plain");
        assert_eq!(remote(&"x".repeat(1000), 5), "xxxxx…");
        assert_eq!(remote("\u{85}\u{7f}", 5), "\\u{85}\\u{7f}");
        // Found by the registry_text fuzz target: no bound at all must not overflow.
        assert_eq!(remote("\u{2c2}", usize::MAX), "\u{2c2}");
        assert_eq!(lines_safe_to_show("a\rb\nc"), "a\\rb\nc");
    }

    #[test]
    fn trim_follows_javascript() {
        assert_eq!(js_trim("\u{FEFF} a \u{3000}"), "a");
        assert_eq!(js_trim("\u{85}a"), "\u{85}a");
    }

    #[test]
    fn code_unit_order_differs_from_byte_order() {
        assert_eq!(cmp_code_units("\u{1F600}", "\u{FF21}"), Ordering::Less);
        assert_eq!("\u{1F600}".cmp("\u{FF21}"), Ordering::Greater);
        assert_eq!(cmp_code_units("a", "a-b"), Ordering::Less);
    }
}
