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
        let start = self.starts.get(line).copied().unwrap_or(0);
        position_in_line(text, line, start, offset)
    }
}

/// The position of `offset` on 0-based line `line`, which starts at byte `start`.
fn position_in_line(text: &str, line: usize, mut start: usize, offset: usize) -> Position {
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

/// The lines of a few byte offsets of a text, known in advance: what a file's findings need.
/// [`LineIndex`] records the start of every line, which costs more than the rest of the lint
/// on a file with a handful of findings; this counts the line breaks between the sorted
/// offsets instead (memchr counts them many bytes at a time), in one pass. It answers for any
/// offset, like [`LineIndex`] (an offset it was not given is counted from the nearest one
/// before it).
#[derive(Clone, Debug)]
pub struct OffsetLines {
    /// (offset, 0-based line, start of that line), sorted by offset; the first is (0, 0, 0).
    known: Vec<(usize, usize, usize)>,
}

impl OffsetLines {
    /// Counts the lines of `offsets` (in any order, clamped to the text) in `text`.
    pub fn new(text: &str, mut offsets: Vec<usize>) -> OffsetLines {
        let bytes = text.as_bytes();
        for o in &mut offsets {
            *o = (*o).min(bytes.len());
        }
        offsets.sort_unstable();
        offsets.dedup();
        let mut known = Vec::with_capacity(offsets.len() + 1);
        known.push((0, 0, 0));
        for o in offsets {
            let next = Self::step(bytes, *known.last().unwrap_or(&(0, 0, 0)), o);
            known.push(next);
        }
        OffsetLines { known }
    }

    /// (offset, line, line start) of `to`, counted from the known `from` before it.
    fn step(bytes: &[u8], from: (usize, usize, usize), to: usize) -> (usize, usize, usize) {
        let (at, line, start) = from;
        let between = &bytes[at..to];
        let breaks = memchr::memchr_iter(b'\n', between).count();
        let start = if breaks == 0 {
            start
        } else {
            memchr::memrchr(b'\n', between).map_or(start, |i| at + i + 1)
        };
        (to, line + breaks, start)
    }

    fn locate(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let i = self.known.partition_point(|k| k.0 <= offset);
        let base = self.known[i.saturating_sub(1)];
        if base.0 == offset {
            return (base.1, base.2);
        }
        let (_, line, start) = Self::step(text.as_bytes(), base, offset);
        (line, start)
    }

    /// The 0-based line holding byte `offset`.
    pub fn line_of(&self, text: &str, offset: usize) -> usize {
        self.locate(text, offset).0
    }

    /// The position of byte `offset`, as [`LineIndex::position`] gives it.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = offset.min(text.len());
        let (line, start) = self.locate(text, offset);
        position_in_line(text, line, start, offset)
    }
}

/// The length of the UTF-8 byte order mark `text` starts with (0 or 3). A byte order mark
/// is an encoding signature, not text: the first line's columns count from after it, as
/// editors show them (and SARIF asks).
fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{feff}') { 3 } else { 0 }
}

/// Replace the bytes of `span` with `replacement`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// The bytes to replace.
    pub span: Span,
    /// What to write there.
    pub replacement: String,
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

    /// The sparse lines agree with the full index at every offset of texts with line breaks
    /// in every place (first, last, doubled, `\r\n`), multibyte chars and a byte order mark.
    #[test]
    fn offset_lines_agree_with_the_index() {
        for text in [
            "",
            "\n",
            "ab\r\nçé(x\nlast",
            "\u{feff}`f(x)`\nab\n\n\nc",
            "\n\nx\r\n\u{feff}y\n",
            "one line, no break",
        ] {
            let ix = LineIndex::new(text);
            let all: Vec<usize> = (0..=text.len() + 2).collect();
            let given: Vec<usize> = all.iter().copied().filter(|o| o % 3 == 0).collect();
            let sparse = OffsetLines::new(text, given);
            for &o in &all {
                assert_eq!(
                    sparse.position(text, o),
                    ix.position(text, o),
                    "{text:?} at {o}"
                );
                assert_eq!(
                    sparse.line_of(text, o),
                    ix.line_of(o.min(text.len())),
                    "{text:?} at {o}"
                );
            }
        }
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
