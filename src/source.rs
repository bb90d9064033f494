//! Source text of the files that diagnostics point into, and byte offset → line/column mapping.
//!
//! Spans stay byte ranges everywhere; line and column (1-based, columns counted in Unicode
//! scalar values) are computed only when a diagnostic is rendered.

use std::ops::Range;
use std::sync::OnceLock;

/// Bytes per block of the character index of long lines.
const BLOCK: usize = 256;

/// One file's text, as decoded for validation, with the offsets of its line starts.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub text: String,
    /// Boxed: parsed documents hold their source inline, and stay small.
    index: Box<Index>,
}

#[derive(Debug, Clone)]
struct Index {
    /// Where each line starts. Built the first time a position is asked for: most files a
    /// validation or an audit reads (every skill reference) never have one to show.
    line_starts: OnceLock<Vec<usize>>,
    /// How many characters precede each `BLOCK`-byte boundary of the text. Built the first time
    /// a column is asked for far into a line, so that the columns of thousands of diagnostics on
    /// one long line (a minified manifest) cost a block each instead of the line each.
    chars: OnceLock<Vec<usize>>,
}

/// A 1-based line and column, plus the byte offset they were computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
    pub offset: usize,
}

impl SourceFile {
    pub fn new(text: String) -> Self {
        SourceFile {
            text,
            index: Box::new(Index {
                line_starts: OnceLock::new(),
                chars: OnceLock::new(),
            }),
        }
    }

    fn line_starts(&self) -> &[usize] {
        self.index.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(index, _)| index + 1))
                .collect()
        })
    }

    /// The position of a byte offset; offsets past the end or inside a character are clamped.
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line_starts = self.line_starts();
        let line_index = match line_starts.binary_search(&offset) {
            Ok(index) => index,
            Err(index) => index - 1,
        };
        let line_start = line_starts[line_index];
        let column = if offset - line_start <= 2 * BLOCK {
            count_chars(&self.text.as_bytes()[line_start..offset])
        } else {
            self.chars_before(offset) - self.chars_before(line_start)
        } + 1;
        Position {
            line: line_index + 1,
            column,
            offset,
        }
    }

    /// The 1-based line of a byte offset (clamped to the text).
    pub fn line_of(&self, offset: usize) -> usize {
        self.line_starts()
            .partition_point(|start| *start <= offset.min(self.text.len()))
    }

    /// How many characters precede byte `offset` (a character boundary) in the whole text.
    fn chars_before(&self, offset: usize) -> usize {
        let bytes = self.text.as_bytes();
        let index = self.index.chars.get_or_init(|| {
            let mut count = 0;
            let mut index = Vec::with_capacity(bytes.len() / BLOCK + 1);
            index.push(0);
            for block in bytes.chunks(BLOCK) {
                count += count_chars(block);
                index.push(count);
            }
            index
        });
        let block = offset / BLOCK;
        index[block] + count_chars(&bytes[block * BLOCK..offset])
    }

    /// The byte range of 1-based line `line`, without its line terminator (`\n` or `\r\n`).
    pub fn line_range(&self, line: usize) -> Range<usize> {
        let line_starts = self.line_starts();
        let start = line_starts[line - 1];
        let mut end = line_starts
            .get(line)
            .map_or(self.text.len(), |next| next - 1);
        if end > start && self.text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        start..end
    }

    /// The text of 1-based line `line`, without its line terminator.
    pub fn line_text(&self, line: usize) -> &str {
        &self.text[self.line_range(line)]
    }

    /// The line range a span covers.
    pub fn lines_of(&self, span: &Range<usize>) -> (Position, Position) {
        (self.position(span.start), self.position(span.end))
    }
}

/// The number of characters in UTF-8 bytes: every byte that does not continue a character starts
/// one (a slice may begin or end inside a character).
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|byte| (**byte as i8) >= -0x40).count()
}

/// Decodes bytes as UTF-8 the way the reference reads manifests: invalid sequences become U+FFFD.
/// Returns whether anything had to be replaced.
pub fn decode_lossy(bytes: &[u8]) -> (String, bool) {
    match String::from_utf8_lossy(bytes) {
        std::borrow::Cow::Borrowed(text) => (text.to_owned(), false),
        std::borrow::Cow::Owned(text) => (text, true),
    }
}

/// [`decode_lossy`] of bytes read for this: valid UTF-8 (nearly always) becomes the text
/// without a copy.
pub fn decode_lossy_owned(bytes: Vec<u8>) -> (String, bool) {
    match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(error) => (String::from_utf8_lossy(error.as_bytes()).into_owned(), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters() {
        let file = SourceFile::new("ab\néx\r\nz".to_owned());
        assert_eq!(
            file.position(0),
            Position {
                line: 1,
                column: 1,
                offset: 0
            }
        );
        assert_eq!(
            file.position(3),
            Position {
                line: 2,
                column: 1,
                offset: 3
            }
        );
        assert_eq!(
            file.position(5),
            Position {
                line: 2,
                column: 2,
                offset: 5
            }
        );
        assert_eq!(file.position(4).column, 1, "inside é clamps to its start");
        assert_eq!(
            file.position(8),
            Position {
                line: 3,
                column: 1,
                offset: 8
            }
        );
        assert_eq!(file.position(99).line, 3);
        assert_eq!(file.line_text(2), "éx");
    }

    #[test]
    fn columns_far_into_long_lines_match_a_plain_count() {
        let line: String = (0..3000).map(|i| ['a', 'é', '日', '😀'][i % 4]).collect();
        let text = format!("x\n{line}\r\n{line}");
        let file = SourceFile::new(text.clone());
        let mut checked = 0;
        for (offset, _) in text.char_indices().step_by(3) {
            let line_start = text[..offset].rfind('\n').map_or(0, |index| index + 1);
            let position = file.position(offset);
            assert_eq!(
                position.column,
                text[line_start..offset].chars().count() + 1,
                "offset {offset}"
            );
            assert_eq!(position.line, file.line_of(offset));
            checked += 1;
        }
        assert!(checked > 1000);
        assert_eq!(file.line_text(2), line);
        assert_eq!(file.line_range(1), 0..1);
    }
}
