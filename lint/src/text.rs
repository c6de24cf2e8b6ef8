//! Byte spans and their line:column positions.
//!
//! Every finding carries the exact byte span of the token at fault, so that `lint --fix` can
//! rewrite it without touching anything else, and a 1-based line and column for people and
//! CI annotations. Columns count Unicode scalar values (code points) from the start of the
//! line, the unit SARIF calls `unicodeCodePoints`.

/// A half-open byte range `start..end` into a file's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// The first byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The span `start..end`.
    pub const fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// The text the span covers, or `""` when it is out of bounds or not on a char boundary.
    pub fn of(self, text: &str) -> &str {
        text.get(self.start..self.end).unwrap_or("")
    }

    /// Whether the span covers no byte.
    pub fn is_empty(self) -> bool {
        self.end <= self.start
    }

    /// The span as a range.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start..self.end
    }
}

/// A 1-based line and column (the column counts code points).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in code points.
    pub column: usize,
}

/// The start of every line of a text, to turn byte offsets into positions.
#[derive(Clone, Debug)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes `text`. A line ends after `\n`; a `\r` before it belongs to the line.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// The 0-based line holding byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// The byte range of 0-based line `line`, without its line break (nor, on the first
    /// line, a byte order mark).
    pub fn line_span(&self, text: &str, line: usize) -> Span {
        let mut start = self.starts.get(line).copied().unwrap_or(text.len());
        if line == 0 {
            start = bom_len(text);
        }
        let mut end = self
            .starts
            .get(line + 1)
            .map_or(text.len(), |next| next.saturating_sub(1));
        let bytes = text.as_bytes();
        if end > start && bytes.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        Span::new(start, end.max(start))
    }

    /// The position of byte `offset` (clamped to the text; a split char counts once).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = offset.min(text.len());
        let line = self.line_of(offset);
        let mut start = self.starts.get(line).copied().unwrap_or(0);
        if line == 0 {
            start = bom_len(text).min(offset);
        }
        let column = text.get(start..).map_or(0, |rest| {
            rest.char_indices()
                .take_while(|(i, _)| start + i < offset)
                .count()
        });
        Position {
            line: line + 1,
            column: column + 1,
        }
    }
}

/// The length of the UTF-8 byte order mark `text` starts with (0 or 3). A byte order mark
/// is an encoding signature, not text: the first line's columns count from after it, as
/// editors show them (and SARIF asks).
fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{feff}') { 3 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_code_points_and_ignore_cr() {
        let text = "ab\r\nçé(x\nlast";
        let ix = LineIndex::new(text);
        assert_eq!(ix.position(text, 0), Position { line: 1, column: 1 });
        assert_eq!(ix.position(text, 4), Position { line: 2, column: 1 });
        // `(` is after two 2-byte chars.
        assert_eq!(ix.position(text, 8), Position { line: 2, column: 3 });
        assert_eq!(ix.line_span(text, 0).of(text), "ab");
        assert_eq!(ix.line_span(text, 2).of(text), "last");
        assert_eq!(ix.position(text, 999), Position { line: 3, column: 5 });
    }

    #[test]
    fn a_byte_order_mark_is_not_a_column() {
        let text = "\u{feff}`f(x)`\nab";
        let ix = LineIndex::new(text);
        assert_eq!(ix.position(text, 3), Position { line: 1, column: 1 });
        assert_eq!(ix.position(text, 5), Position { line: 1, column: 3 });
        assert_eq!(ix.position(text, 0), Position { line: 1, column: 1 });
        assert_eq!(ix.position(text, 10), Position { line: 2, column: 1 });
        assert_eq!(ix.line_span(text, 0).of(text), "`f(x)`");
    }
}
