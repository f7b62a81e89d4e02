//! Byte offsets (what spans hold) to LSP positions (line and UTF-16 code unit) and back.
//!
//! LSP counts columns in UTF-16 code units unless the client negotiates otherwise, and every
//! client we target speaks UTF-16: a character outside the Basic Multilingual Plane counts two.

use lsp_types::{Position, Range};

/// The line starts of one text, to turn offsets into positions without rescanning the text.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i as u32 + 1));
        LineIndex { line_starts }
    }

    /// The position of byte `offset` (clamped to the text, rounded down to a character).
    pub fn position(&self, text: &str, offset: u32) -> Position {
        let offset = floor_boundary(text, offset as usize);
        let line = self.line_starts.partition_point(|&s| s as usize <= offset) - 1;
        let start = self.line_starts[line] as usize;
        let character = text[start..offset].encode_utf16().count() as u32;
        Position::new(line as u32, character)
    }

    pub fn range(&self, text: &str, start: u32, end: u32) -> Range {
        Range::new(self.position(text, start), self.position(text, end))
    }

    /// The byte offset of `position`; a column past the end of its line is the line's end, a
    /// line past the end of the text is the text's end, and a column inside a surrogate pair
    /// is the start of its character.
    pub fn offset(&self, text: &str, position: Position) -> u32 {
        let Some(&start) = self.line_starts.get(position.line as usize) else {
            return text.len() as u32;
        };
        let line = &text[start as usize..];
        let line = &line[..line.find('\n').unwrap_or(line.len())];
        let mut units = 0;
        for (i, c) in line.char_indices() {
            units += c.len_utf16() as u32;
            if units > position.character {
                return start + i as u32;
            }
        }
        start + line.len() as u32
    }
}

fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_utf16_code_units() {
        let text = "ab\né𝄞x\n";
        let index = LineIndex::new(text);
        // `x` is after `é` (2 bytes, 1 unit) and `𝄞` (4 bytes, 2 units).
        let x = text.find('x').unwrap() as u32;
        assert_eq!(index.position(text, x), Position::new(1, 3));
        assert_eq!(index.offset(text, Position::new(1, 3)), x);
        assert_eq!(index.offset(text, Position::new(1, 2)), x - 4);
        assert_eq!(index.offset(text, Position::new(0, 99)), 2);
        assert_eq!(index.offset(text, Position::new(9, 0)), text.len() as u32);
        assert_eq!(index.position(text, 999), Position::new(2, 0));
    }
}
