//! Source files, spans and the line/column arithmetic that turns a byte offset into `LINE:COL`.

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: u32, end: u32) -> Span {
        Span {
            file,
            start,
            end: end.max(start),
        }
    }

    /// The smallest span covering both (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A 1-based line and column (column counted in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Bytes per entry of [`SourceFile`]'s character index.
const CHUNK: usize = 64;

/// One loaded file: its display name, text, the offsets where lines start, and how many
/// characters precede every [`CHUNK`]-th byte, so that a column costs the same whatever the
/// length of its line (a file of one 250 KB line with 50,000 errors in it stays linear).
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<u32>,
    chars_before_chunk: Vec<u32>,
    /// The lines before the text's first line, for an excerpt of a larger file.
    lines_before: u32,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i as u32 + 1));
        let mut chars_before_chunk = vec![0u32];
        for chunk in text.as_bytes().chunks(CHUNK) {
            let last = *chars_before_chunk.last().unwrap();
            chars_before_chunk.push(last + chars_in(chunk));
        }
        SourceFile {
            name: name.into(),
            text,
            line_starts,
            chars_before_chunk,
            lines_before: 0,
        }
    }

    /// A file of which only `text` is known, starting at 1-based line `first_line`: a
    /// streaming reader keeps only the line it stopped at.
    pub fn excerpt(name: impl Into<String>, first_line: u32, text: impl Into<String>) -> Self {
        SourceFile {
            lines_before: first_line.saturating_sub(1),
            ..SourceFile::new(name, text)
        }
    }

    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = offset.min(self.text.len() as u32);
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line] as usize;
        let end = floor_char_boundary(&self.text, offset as usize).max(start);
        let col = self.chars_before(end) - self.chars_before(start) + 1;
        LineCol {
            line: self.lines_before + line as u32 + 1,
            col,
        }
    }

    /// The number of characters before byte `offset` (a character boundary).
    fn chars_before(&self, offset: usize) -> u32 {
        let chunk = offset / CHUNK;
        let bytes = &self.text.as_bytes()[chunk * CHUNK..offset];
        self.chars_before_chunk[chunk] + chars_in(bytes)
    }

    /// The text of 1-based line `line`, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        &self.text[self.line_range(line)]
    }

    /// The byte range of 1-based line `line`, without its newline.
    pub fn line_range(&self, line: u32) -> std::ops::Range<usize> {
        let index = (line.saturating_sub(self.lines_before) as usize)
            .saturating_sub(1)
            .min(self.line_starts.len() - 1);
        let start = self.line_starts[index] as usize;
        let end = self
            .line_starts
            .get(index + 1)
            .map_or(self.text.len(), |&e| e as usize);
        let text = self.text[start..end].trim_end_matches(['\n', '\r']);
        start..start + text.len()
    }
}

/// The characters that start in `bytes`: every byte that is not a UTF-8 continuation byte.
fn chars_in(bytes: &[u8]) -> u32 {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u32
}

pub(crate) fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// Every file loaded in one run, so spans from imports resolve too.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.add_file(SourceFile::new(name, text))
    }

    pub fn add_file(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    /// Every file, in the order added.
    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        let ids = (0..self.files.len() as u32).map(FileId);
        ids.zip(&self.files)
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn find(&self, name: &str) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.name == name)
            .map(|i| FileId(i as u32))
    }

    /// `FILE:LINE:COL` of the start of `span`.
    pub fn position(&self, span: Span) -> String {
        let file = self.get(span.file);
        let at = file.line_col(span.start);
        format!("{}:{}:{}", file.name, at.line, at.col)
    }

    pub fn snippet(&self, span: Span) -> &str {
        let text = &self.get(span.file).text;
        let start = floor_char_boundary(text, span.start as usize);
        let end = floor_char_boundary(text, span.end as usize);
        &text[start..end.max(start)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based_and_count_characters() {
        let file = SourceFile::new("a.pi", "ab\nçd\n");
        assert_eq!(file.line_col(0), LineCol { line: 1, col: 1 });
        assert_eq!(file.line_col(3), LineCol { line: 2, col: 1 });
        assert_eq!(file.line_col(5), LineCol { line: 2, col: 2 });
        assert_eq!(file.line_text(2), "çd");
        assert_eq!(file.line_col(100), LineCol { line: 3, col: 1 });
    }

    #[test]
    fn an_excerpt_keeps_the_line_numbers_of_its_file() {
        let file = SourceFile::excerpt("a.aut", 40, "(0, a 1)");
        assert_eq!(file.line_col(6), LineCol { line: 40, col: 7 });
        assert_eq!(file.line_text(40), "(0, a 1)");
    }

    #[test]
    fn columns_count_characters_across_index_chunks() {
        let line = "é".repeat(100) + "x";
        let file = SourceFile::new("a.pi", format!("ab\n{line}"));
        let x = 3 + 200;
        assert_eq!(file.line_col(x), LineCol { line: 2, col: 101 });
        assert_eq!(file.line_col(x - 1), LineCol { line: 2, col: 100 });
    }
}
