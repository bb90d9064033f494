//! Frontmatter the way gray-matter 4 finds and parses it: the text starts with `---` (not
//! `----`); the rest of that line names a language (YAML when empty); the block ends at the next
//! `\n---`, and what follows those four characters (less one CR and one LF) is the content; a
//! block that is empty once `#` comment lines are removed means "no data".

use super::yaml::{self, Value};

/// The frontmatter block of a document, if it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontmatter<'a> {
    /// The language named on the opening line (empty: YAML).
    pub language: &'a str,
    /// The text between the delimiters.
    pub matter: &'a str,
    /// Byte offset of `matter` in the document.
    pub matter_offset: usize,
    /// Whether the block is empty once comment lines are ignored.
    pub is_empty: bool,
    /// The document after the block.
    pub content: &'a str,
}

pub fn split(text: &str) -> Option<Frontmatter<'_>> {
    let bom = if text.starts_with('\u{FEFF}') { 3 } else { 0 };
    let rest = &text[bom..];
    if !rest.starts_with("---") || rest[3..].starts_with('-') {
        return None;
    }
    let after_open = &rest[3..];
    // gray-matter takes the opening line (up to `\r?\n`) as a language name.
    let raw_language = match after_open.find('\n') {
        Some(newline) => after_open[..newline]
            .strip_suffix('\r')
            .unwrap_or(&after_open[..newline]),
        None => {
            // `str.slice(0, -1)` when there is no line break.
            let mut end = after_open.len();
            if let Some((last, _)) = after_open.char_indices().last() {
                end = last;
            }
            &after_open[..end]
        }
    };
    let language = raw_language.trim();
    let skip = if language.is_empty() {
        0
    } else {
        raw_language.len()
    };
    let matter_offset = bom + 3 + skip;
    let block = &text[matter_offset..];
    let close = block.find("\n---");
    let matter = &block[..close.unwrap_or(block.len())];
    let content = match close {
        None => "",
        Some(close) => {
            let after = &block[close + 4..];
            let after = after.strip_prefix('\r').unwrap_or(after);
            after.strip_prefix('\n').unwrap_or(after)
        }
    };
    let is_empty = matter
        .lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .all(|line| line.trim().is_empty());
    Some(Frontmatter {
        language,
        matter,
        matter_offset,
        is_empty,
        content,
    })
}

/// Why frontmatter data could not be read: a byte offset in the document and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterError {
    pub offset: usize,
    pub message: String,
}

impl Frontmatter<'_> {
    /// The block's data: `Mapping([])` for an empty block, as gray-matter gives `{}`.
    pub fn data(&self) -> Result<Value, FrontmatterError> {
        if self.is_empty {
            return Ok(Value::Mapping(Vec::new()));
        }
        match self.language.to_ascii_lowercase().as_str() {
            "" | "yaml" | "yml" => yaml::load(self.matter).map_err(|error| FrontmatterError {
                offset: self.matter_offset + error.offset,
                message: if error.too_deep {
                    error.message
                } else {
                    format!("YAML: {}", error.message)
                },
            }),
            "json" => serde_json::from_str::<serde_json::Value>(self.matter)
                .map(|json| from_json(&json))
                .map_err(|error| FrontmatterError {
                    offset: self.matter_offset,
                    message: format!("JSON: {error}"),
                }),
            other => Err(FrontmatterError {
                offset: self.matter_offset.saturating_sub(other.len()),
                message: format!(
                    "frontmatter engine `{other}` is not supported (only YAML and JSON)"
                ),
            }),
        }
    }
}

fn from_json(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(flag) => Value::Bool(*flag),
        serde_json::Value::Number(number) => Value::Number(number.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(text) => Value::String(text.clone()),
        serde_json::Value::Array(items) => Value::Sequence(items.iter().map(from_json).collect()),
        serde_json::Value::Object(map) => {
            Value::Mapping(map.iter().map(|(k, v)| (k.clone(), from_json(v))).collect())
        }
    }
}

/// The document without its frontmatter block (README.md, TXT-1); the validator takes
/// `content` from the one split it already has.
#[cfg(test)]
pub fn strip(text: &str) -> &str {
    match split(text) {
        Some(frontmatter) => frontmatter.content,
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
        assert_eq!(frontmatter.matter, "\nname: a");
        assert_eq!(frontmatter.matter_offset, 3);
        assert_eq!(frontmatter.content, "# Body\n");
        assert!(!frontmatter.is_empty);
    }

    #[test]
    fn closing_line_remainder_is_content() {
        assert_eq!(split("---\na: 1\n---x").unwrap().content, "x");
        assert_eq!(
            split("---\na: 1\n--- Body text").unwrap().content,
            " Body text"
        );
        assert_eq!(split("---\na: 1\n---\r\nBody").unwrap().content, "Body");
    }

    #[test]
    fn opening_line_names_a_language() {
        let frontmatter = split("--- foo\nname: x\n---\n").unwrap();
        assert_eq!(frontmatter.language, "foo");
        assert!(frontmatter.data().is_err());
        let json = split("---json\n{\"name\": \"x\"}\n---\n").unwrap();
        assert_eq!(
            json.data().unwrap().get("name"),
            Some(&Value::String("x".into()))
        );
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
        assert_eq!(unclosed.content, "");
        assert_eq!(strip("---\ntitle: x\n---\n"), "");
    }
}
