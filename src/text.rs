//! Small lexical helpers shared by several rules: JavaScript's notion of whitespace and trimming
//! (the reference trims with `String.prototype.trim`), the kebab-case id pattern, and code-unit
//! string order.

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
