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
