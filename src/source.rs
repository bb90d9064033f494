//! Source text of the files that diagnostics point into, and byte offset → line/column mapping.
//!
//! Spans stay byte ranges everywhere; line and column (1-based, columns counted in Unicode
//! scalar values) are computed only when a diagnostic is rendered.

use std::ops::Range;

/// One file's text, as decoded for validation, with the offsets of its line starts.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub text: String,
    line_starts: Vec<usize>,
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
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(index, _)| index + 1))
            .collect();
        SourceFile { text, line_starts }
    }

    /// The position of a byte offset; offsets past the end or inside a character are clamped.
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line_index = match self.line_starts.binary_search(&offset) {
            Ok(index) => index,
            Err(index) => index - 1,
        };
        let line_start = self.line_starts[line_index];
        let column = self.text[line_start..offset].chars().count() + 1;
        Position {
            line: line_index + 1,
            column,
            offset,
        }
    }

    /// The text of 1-based line `line`, without its line terminator.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |next| next - 1);
        self.text[start..end].trim_end_matches('\r')
    }

    /// The line range a span covers.
    pub fn lines_of(&self, span: &Range<usize>) -> (Position, Position) {
        (self.position(span.start), self.position(span.end))
    }
}

/// Decodes bytes as UTF-8 the way the reference reads manifests: invalid sequences become U+FFFD.
/// Returns whether anything had to be replaced.
pub fn decode_lossy(bytes: &[u8]) -> (String, bool) {
    match String::from_utf8_lossy(bytes) {
        std::borrow::Cow::Borrowed(text) => (text.to_owned(), false),
        std::borrow::Cow::Owned(text) => (text, true),
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
}
