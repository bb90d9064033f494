//! The package path rules (PATH-S): every package path is a canonical cross-platform path
//! (P-SDK) and no two paths collide under case folding. It is stricter than the reference
//! Registry, equal to its SDK writer, so a package `squad` accepts can be written, archived and
//! extracted anywhere. Both the validator (`package::paths`, which turns them into
//! diagnostics) and the ZIP reader (`archive::reader`, which refuses an entry) apply them, so
//! they live below both.

use unicode_normalization::{UnicodeNormalization, is_nfc};

use crate::text::js_trim;

/// Why one path segment is not portable, or `None`.
pub fn segment_problem(segment: &str) -> Option<String> {
    if segment.is_empty() || segment == "." || segment == ".." {
        return Some("empty, `.` or `..` segment".to_owned());
    }
    if let Some(bad) = segment.chars().find(|c| {
        matches!(c, '<' | '>' | ':' | '"' | '|' | '?' | '*' | '\\')
            || c.is_control() && (*c as u32) < 0x80
    }) {
        return Some(format!(
            "contains {}, which is not allowed on every platform",
            describe_char(bad)
        ));
    }
    if segment.ends_with('.') || segment.ends_with(' ') {
        return Some("ends with a dot or a space, which Windows drops".to_owned());
    }
    if is_windows_reserved(segment) {
        return Some("is a reserved device name on Windows".to_owned());
    }
    if is_short_name(segment) {
        return Some(
            "looks like a Windows 8.3 short name (`NAME~1`), which can alias another file"
                .to_owned(),
        );
    }
    if !is_nfc(segment) {
        return Some("is not in Unicode NFC form".to_owned());
    }
    None
}

/// P-SDK for a whole `/`-separated relative path.
pub fn path_problem(path: &str) -> Option<String> {
    if path.is_empty() {
        return Some("empty path".to_owned());
    }
    if js_trim(path) != path {
        return Some("starts or ends with whitespace".to_owned());
    }
    if path.starts_with('/') {
        return Some("is absolute".to_owned());
    }
    path.split('/').find_map(segment_problem)
}

fn describe_char(c: char) -> String {
    if c.is_control() {
        format!("the control character U+{:04X}", c as u32)
    } else {
        format!("`{c}`")
    }
}

fn is_windows_reserved(segment: &str) -> bool {
    let stem = segment
        .split('.')
        .next()
        .unwrap_or(segment)
        .to_ascii_uppercase();
    matches!(stem.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((stem.starts_with("COM") || stem.starts_with("LPT"))
            && stem.len() == 4
            && matches!(stem.as_bytes()[3], b'1'..=b'9'))
}

/// `NAME~1`, `PROGRA~12.TXT`: up to six characters, `~`, digits, an optional extension.
fn is_short_name(segment: &str) -> bool {
    let stem = segment.split('.').next().unwrap_or(segment);
    let Some((head, digits)) = stem.rsplit_once('~') else {
        return false;
    };
    !head.is_empty()
        && head.chars().count() <= 6
        && !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Longest file name most filesystems store (ext4 `NAME_MAX`).
pub const MAX_NAME_BYTES: usize = 255;
/// Longest package-relative path that still fits Windows' `MAX_PATH` once installed.
pub const MAX_PATH_CHARS: usize = 240;

/// Why a path is too long to install everywhere, or `None`.
pub fn length_problem(path: &str) -> Option<String> {
    if let Some(name) = path.split('/').find(|name| name.len() > MAX_NAME_BYTES) {
        return Some(format!(
            "has a name of {} bytes (`{}…`), more than {MAX_NAME_BYTES}",
            name.len(),
            name.chars().take(24).collect::<String>()
        ));
    }
    let characters = path.chars().count();
    (characters > MAX_PATH_CHARS)
        .then(|| format!("is {characters} characters long, more than {MAX_PATH_CHARS}"))
}

/// The key two paths collide under: NFC, then lower case, then the full case foldings that
/// lower-casing leaves out (`ß` → `ss`, final sigma, long s), so `Straße` and `STRASSE` collide.
pub fn fold(path: &str) -> String {
    // ASCII is its own NFC and has no folding beyond lower case: nearly every path.
    if path.is_ascii() {
        return path.to_ascii_lowercase();
    }
    let lower = path.nfc().collect::<String>().to_lowercase();
    if lower.is_ascii() {
        return lower;
    }
    lower
        .chars()
        .flat_map(|c| match c {
            'ß' | 'ẞ' => ['s', 's'].into_iter().take(2),
            'ς' => ['σ', '\0'].into_iter().take(1),
            'ſ' => ['s', '\0'].into_iter().take(1),
            other => [other, '\0'].into_iter().take(1),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_path_vectors() {
        for ok in ["a/b", "é", "a.b/c-d_e f", "nul-file", "COM0", "LPT10.txt"] {
            assert_eq!(path_problem(ok), None, "{ok}");
        }
        for bad in [
            "a//b",
            "./a",
            "a/./b",
            "a/../b",
            "/a",
            "C:/a",
            "C:a",
            "a\\b",
            "a:b",
            "a/NUL",
            "a/nul.txt",
            "a/COM1.md",
            "a/b.",
            "a/b ",
            "e\u{301}",
            " a",
            "a/<b>",
            "a/\u{7}",
            "a/b/",
            "CON.d/x",
        ] {
            assert!(path_problem(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn folding_catches_case_and_normalisation() {
        assert_eq!(fold("Tool.ts"), fold("tool.ts"));
        assert_eq!(fold("Agents/Lead/SYSTEM.md"), "agents/lead/system.md");
        assert_eq!(fold("Agents/É.md"), fold("agents/e\u{301}.MD"));
        assert_eq!(fold("É"), fold("e\u{301}"));
        assert_eq!(fold("Straße.md"), fold("STRASSE.md"));
        assert_ne!(fold("a~1"), fold("a-1"));
        assert!(path_problem("PROGRA~1/x.md").is_some());
        assert!(path_problem("notes~draft.md").is_none());
    }
}
