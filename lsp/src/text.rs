//! A document's text and the protocol's positions: byte offsets (what the lint's spans
//! are) to line and column in the negotiated encoding (UTF-16 code units unless the client
//! asked for UTF-8 or UTF-32), and back.

use lsp_types::{Position, PositionEncodingKind, Range};

/// How columns are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Bytes of UTF-8.
    Utf8,
    /// UTF-16 code units (the protocol's default).
    Utf16,
    /// Unicode scalar values.
    Utf32,
}

impl Encoding {
    /// The first encoding of the client's `general.positionEncodings` this server speaks
    /// (UTF-8 preferred, as it is what the lint counts in), else UTF-16.
    pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        let offered = offered.unwrap_or_default();
        let has = |k: &PositionEncodingKind| offered.iter().any(|o| o == k);
        if has(&PositionEncodingKind::UTF8) {
            Encoding::Utf8
        } else if has(&PositionEncodingKind::UTF16) || offered.is_empty() {
            Encoding::Utf16
        } else if has(&PositionEncodingKind::UTF32) {
            Encoding::Utf32
        } else {
            Encoding::Utf16
        }
    }

    /// The protocol's name of the encoding.
    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }

    fn width(self, c: char) -> u32 {
        match self {
            Encoding::Utf8 => c.len_utf8() as u32,
            Encoding::Utf16 => c.len_utf16() as u32,
            Encoding::Utf32 => 1,
        }
    }
}

/// Where each line of a text starts.
#[derive(Clone, Debug, Default)]
pub struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    /// The line starts of `text` (a line ends after `\n`; a `\r` before it stays on the line,
    /// as the protocol counts `\r\n` as one line break and columns before it).
    pub fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(memchr_lines(text));
        Lines { starts }
    }

    /// The position of byte `offset` (clamped to the text, and back to a character
    /// boundary).
    pub fn position(&self, text: &str, offset: usize, enc: Encoding) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let column = match enc {
            Encoding::Utf8 => (offset - start) as u32,
            _ => text[start..offset].chars().map(|c| enc.width(c)).sum(),
        };
        Position::new(line as u32, column)
    }

    /// The range of bytes `start..end`.
    pub fn range(&self, text: &str, start: usize, end: usize, enc: Encoding) -> Range {
        Range::new(
            self.position(text, start, enc),
            self.position(text, end.max(start), enc),
        )
    }

    /// The byte offset of `pos` (a column past the line's end is its end, a line past the
    /// text's end is the text's end, a column inside a character is that character's start).
    pub fn offset(&self, text: &str, pos: Position, enc: Encoding) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return text.len();
        };
        let end = self
            .starts
            .get(pos.line as usize + 1)
            .copied()
            .unwrap_or(text.len());
        let line = &text[start..end];
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let mut counted = 0u32;
        for (i, c) in line.char_indices() {
            let w = enc.width(c);
            if counted + w > pos.character {
                return start + i;
            }
            counted += w;
        }
        start + line.len()
    }
}

fn memchr_lines(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.bytes()
        .enumerate()
        .filter(|(_, b)| *b == b'\n')
        .map(|(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_in_the_negotiated_encoding() {
        let text = "a😀é x\r\nsecond";
        let lines = Lines::new(text);
        let x = text.find('x').expect("x");
        assert_eq!(lines.position(text, x, Encoding::Utf8), Position::new(0, 8));
        assert_eq!(
            lines.position(text, x, Encoding::Utf16),
            Position::new(0, 5)
        );
        assert_eq!(
            lines.position(text, x, Encoding::Utf32),
            Position::new(0, 4)
        );
        for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            let p = lines.position(text, x, enc);
            assert_eq!(lines.offset(text, p, enc), x);
        }
        // Past the end of a line: its end, before the `\r\n`.
        assert_eq!(
            lines.offset(text, Position::new(0, 99), Encoding::Utf16),
            x + 1
        );
        assert_eq!(
            lines.offset(text, Position::new(9, 0), Encoding::Utf16),
            text.len()
        );
        assert_eq!(
            lines.position(text, text.len(), Encoding::Utf16),
            Position::new(1, 6)
        );
        assert_eq!(
            Encoding::negotiate(Some(&[PositionEncodingKind::UTF32])),
            Encoding::Utf32
        );
        assert_eq!(Encoding::negotiate(None), Encoding::Utf16);
    }
}
