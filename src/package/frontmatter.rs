//! YAML frontmatter the way gray-matter 4 finds it: the text starts with `---` (not `----`),
//! the block ends at the next `\n---`, and a block that is empty once `#` comment lines are
//! removed means "no data".

/// The frontmatter block of a document, if it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontmatter<'a> {
    /// The YAML text between the delimiters.
    pub yaml: &'a str,
    /// Byte offset of `yaml` in the document.
    pub yaml_offset: usize,
    /// Whether the block is empty once comment lines are ignored.
    pub is_empty: bool,
    /// The document after the closing delimiter line.
    pub body: &'a str,
}

pub fn split(text: &str) -> Option<Frontmatter<'_>> {
    let bom = if text.starts_with('\u{FEFF}') { 3 } else { 0 };
    let rest = &text[bom..];
    if !rest.starts_with("---") || rest[3..].starts_with('-') {
        return None;
    }
    // gray-matter treats the rest of the opening line as a language name (e.g. `---yaml`).
    let after_open = &rest[3..];
    let language_len = after_open.find('\n').unwrap_or(after_open.len());
    let language = after_open[..language_len].trim();
    let skip = if language.is_empty() { 0 } else { language_len };
    let block_start = bom + 3 + skip;
    let block_text = &text[block_start..];
    let close = block_text.find("\n---").unwrap_or(block_text.len());
    let yaml = &block_text[..close];
    let after_close = &block_text[close..];
    // Skip "\n---" and the remainder of the closing line.
    let body = match after_close.get(4..) {
        Some(after) => match after.find('\n') {
            Some(newline) => &after[newline + 1..],
            None => "",
        },
        None => "",
    };
    let is_empty = yaml
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .all(|line| line.trim().is_empty());
    Some(Frontmatter {
        yaml,
        yaml_offset: block_start,
        is_empty,
        body,
    })
}

/// The document without its frontmatter block (README.md, TXT-1).
pub fn strip(text: &str) -> &str {
    match split(text) {
        Some(frontmatter) => frontmatter.body,
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_a_block() {
        let text = "---\nname: a\n---\n# Body\n";
        let frontmatter = split(text).unwrap();
        assert_eq!(frontmatter.yaml, "\nname: a");
        assert_eq!(frontmatter.yaml_offset, 3);
        assert_eq!(frontmatter.body, "# Body\n");
        assert!(!frontmatter.is_empty);
    }

    #[test]
    fn no_block_without_opening_delimiter() {
        assert_eq!(split("# x\n---\n"), None);
        assert_eq!(split("----\nx\n"), None);
        assert_eq!(strip("# x"), "# x");
    }

    #[test]
    fn comment_only_block_is_empty_and_unclosed_block_runs_to_end() {
        assert!(split("---\n# c\n---\nbody").unwrap().is_empty);
        let unclosed = split("---\nname: a\n").unwrap();
        assert_eq!(unclosed.body, "");
        assert_eq!(strip("---\ntitle: x\n---\n"), "");
    }
}
