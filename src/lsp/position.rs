//! LSP positions and byte offsets. A position is a 0-based line and a column counted in the
//! units the client and server agreed on at `initialize`: UTF-16 code units unless the client
//! offers UTF-8 first (LSP 3.17 `positionEncodings`). Spans stay byte ranges everywhere else.

use std::ops::Range;

use lsp_types::{Position, Range as LspRange};

/// The column unit of positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    /// The encoding to use given the client's `general.positionEncodings`, in its order of
    /// preference; UTF-16 when it names none squad speaks (every client must accept it).
    pub fn negotiate(offered: Option<&[lsp_types::PositionEncodingKind]>) -> Encoding {
        for kind in offered.unwrap_or_default() {
            if *kind == lsp_types::PositionEncodingKind::UTF8 {
                return Encoding::Utf8;
            }
            if *kind == lsp_types::PositionEncodingKind::UTF16 {
                return Encoding::Utf16;
            }
        }
        Encoding::Utf16
    }

    pub fn kind(self) -> lsp_types::PositionEncodingKind {
        match self {
            Encoding::Utf8 => lsp_types::PositionEncodingKind::UTF8,
            Encoding::Utf16 => lsp_types::PositionEncodingKind::UTF16,
        }
    }

    fn width(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
        }
    }
}

/// The line starts of one text, for converting between offsets and positions.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    encoding: Encoding,
}

impl LineIndex {
    pub fn new(text: &str, encoding: Encoding) -> LineIndex {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        LineIndex {
            line_starts,
            encoding,
        }
    }

    /// The position of byte `offset` of `text` (clamped to the text and to a character start).
    #[cfg(test)]
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|start| *start <= offset) - 1;
        let start = self.line_starts[line];
        let column: usize = text[start..offset]
            .chars()
            .map(|c| self.encoding.width(c))
            .sum();
        Position::new(clamp_u32(line), clamp_u32(column))
    }

    /// The positions of many offsets of `text`, each line walked once however many offsets
    /// fall on it (a minified manifest has thousands of diagnostics on one line).
    pub fn positions(&self, text: &str, offsets: &[usize]) -> Vec<Position> {
        let mut order: Vec<usize> = (0..offsets.len()).collect();
        order.sort_by_key(|index| offsets[*index]);
        let mut out = vec![Position::new(0, 0); offsets.len()];
        let mut line = 0;
        let mut at = 0;
        let mut column = 0usize;
        for index in order {
            let mut offset = offsets[index].min(text.len());
            while !text.is_char_boundary(offset) {
                offset -= 1;
            }
            let target_line = self.line_starts.partition_point(|start| *start <= offset) - 1;
            if target_line != line || offset < at {
                line = target_line;
                at = self.line_starts[line];
                column = 0;
            }
            column += text[at..offset]
                .chars()
                .map(|c| self.encoding.width(c))
                .sum::<usize>();
            at = offset;
            out[index] = Position::new(clamp_u32(line), clamp_u32(column));
        }
        out
    }

    pub fn range(&self, text: &str, span: &Range<usize>) -> LspRange {
        let positions = self.positions(text, &[span.start, span.end]);
        LspRange::new(positions[0], positions[1])
    }

    /// The byte offset of `position` in `text`. A line past the end is the end of the text; a
    /// column past the line's end is its end (before the line break); a column inside a
    /// character is that character's start.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let line = position.line as usize;
        let Some(start) = self.line_starts.get(line).copied() else {
            return text.len();
        };
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(text.len(), |next| next - 1);
        let mut units = 0usize;
        for (at, c) in text[start..end].char_indices() {
            if c == '\r' && start + at + 1 == end {
                return start + at;
            }
            let width = self.encoding.width(c);
            if units + width > position.character as usize {
                return start + at;
            }
            units += width;
        }
        end
    }

    /// The byte range of an LSP range.
    pub fn span(&self, text: &str, range: LspRange) -> Range<usize> {
        let start = self.offset(text, range.start);
        let end = self.offset(text, range.end).max(start);
        start..end
    }
}

fn clamp_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_utf16_code_units_by_default() {
        // é is 2 bytes and 1 UTF-16 unit; 😀 is 4 bytes and 2 units (a surrogate pair).
        let text = "a\né😀x\r\nz";
        let index = LineIndex::new(text, Encoding::Utf16);
        let x = text.find('x').unwrap();
        assert_eq!(index.position(text, x), Position::new(1, 3));
        assert_eq!(index.offset(text, Position::new(1, 3)), x);
        // Inside the surrogate pair: the character's start.
        assert_eq!(
            index.offset(text, Position::new(1, 2)),
            text.find('😀').unwrap()
        );
        // Past the line's end: before its \r\n.
        assert_eq!(index.offset(text, Position::new(1, 99)), x + 1);
        assert_eq!(index.offset(text, Position::new(9, 0)), text.len());
        let utf8 = LineIndex::new(text, Encoding::Utf8);
        assert_eq!(utf8.position(text, x), Position::new(1, 6));
        assert_eq!(utf8.offset(text, Position::new(1, 6)), x);
    }

    #[test]
    fn many_offsets_on_one_line_agree_with_one_at_a_time() {
        let line: String = (0..2000).map(|i| ['a', 'é', '日', '😀'][i % 4]).collect();
        let text = format!("x\n{line}\n{line}");
        let index = LineIndex::new(&text, Encoding::Utf16);
        let offsets: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .rev()
            .step_by(7)
            .chain([1, 9999999])
            .collect();
        let batch = index.positions(&text, &offsets);
        let mut checked = 0;
        for (offset, position) in offsets.iter().zip(&batch) {
            assert_eq!(*position, index.position(&text, *offset), "offset {offset}");
            if *offset <= text.len() {
                assert_eq!(index.offset(&text, *position), *offset);
            }
            checked += 1;
        }
        assert_eq!(checked, offsets.len());
        assert!(checked > 500, "{checked}");
    }
}
