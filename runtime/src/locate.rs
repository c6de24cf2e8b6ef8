//! JSON pointers and where they point in the source text.
//!
//! Written by hand: `serde_json` reports a position only for syntax and shape errors, and no
//! crate maps an RFC 6901 pointer back to a line and column of the text it was parsed from.
//! [`locate`] re-scans the text (it is already known to be valid JSON) and walks the pointer.

use std::fmt;

/// One step of a JSON pointer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Seg {
    /// An object key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// An RFC 6901 JSON pointer, built step by step while walking a document.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pointer(pub Vec<Seg>);

impl Pointer {
    /// The pointer to the whole document.
    pub fn root() -> Self {
        Pointer(Vec::new())
    }

    /// This pointer followed by an object key.
    pub fn key(&self, key: &str) -> Self {
        let mut segs = self.0.clone();
        segs.push(Seg::Key(key.to_string()));
        Pointer(segs)
    }

    /// This pointer followed by an array index.
    pub fn index(&self, index: usize) -> Self {
        let mut segs = self.0.clone();
        segs.push(Seg::Index(index));
        Pointer(segs)
    }

    /// Parses the fragment of a local `$ref` (`#/$defs/x`), unescaping `~1` and `~0`.
    pub fn parse_fragment(fragment: &str) -> Option<Self> {
        let rest = fragment.strip_prefix('#')?;
        if rest.is_empty() {
            return Some(Pointer::root());
        }
        let rest = rest.strip_prefix('/')?;
        Some(Pointer(
            rest.split('/')
                .map(|s| Seg::Key(percent_decode(s).replace("~1", "/").replace("~0", "~")))
                .collect(),
        ))
    }
}

/// Decodes the `%XX` escapes of a URI fragment (`percent%25field` is `percent%field`); an
/// escape that does not decode to UTF-8 is kept as written.
fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(root)");
        }
        for seg in &self.0 {
            match seg {
                Seg::Key(k) => write!(f, "/{}", k.replace('~', "~0").replace('/', "~1"))?,
                Seg::Index(i) => write!(f, "/{i}")?,
            }
        }
        Ok(())
    }
}

/// A 1-based line and column (the column counts characters, not bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1, in characters.
    pub column: usize,
}

impl Position {
    /// The position of byte `offset` in `text`.
    pub fn of_offset(text: &str, offset: usize) -> Position {
        let offset = offset.min(text.len());
        let before = &text.as_bytes()[..offset];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        Position { line, column }
    }
}

/// Where `pointer` points in `text`: the key of the last step when it is an object key
/// (that is where a reader looks for a wrong keyword), else the value. `None` when the
/// pointer does not resolve in the text. When it resolves only partway, the deepest
/// position reached is returned, so a message still points near its subject.
pub fn locate(text: &str, pointer: &Pointer) -> Option<Position> {
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        at: 0,
    };
    // A UTF-8 byte order mark is not part of the JSON text.
    if scanner.bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        scanner.at = 3;
    }
    scanner.skip_ws();
    let mut best = scanner.at;
    for seg in &pointer.0 {
        match (seg, scanner.peek()?) {
            (Seg::Key(want), b'{') => {
                scanner.at += 1;
                let mut found = false;
                loop {
                    scanner.skip_ws();
                    match scanner.peek()? {
                        b'}' => break,
                        b',' => {
                            scanner.at += 1;
                            continue;
                        }
                        b'"' => {}
                        _ => return Some(Position::of_offset(text, best)),
                    }
                    let key_at = scanner.at;
                    let key = scanner.string()?;
                    scanner.skip_ws();
                    if scanner.peek()? != b':' {
                        return Some(Position::of_offset(text, best));
                    }
                    scanner.at += 1;
                    scanner.skip_ws();
                    if key == *want {
                        best = key_at;
                        found = true;
                        break;
                    }
                    scanner.skip_value()?;
                }
                if !found {
                    return Some(Position::of_offset(text, best));
                }
            }
            (Seg::Index(want), b'[') => {
                scanner.at += 1;
                let mut index = 0;
                let mut found = false;
                loop {
                    scanner.skip_ws();
                    match scanner.peek()? {
                        b']' => break,
                        b',' => {
                            scanner.at += 1;
                            continue;
                        }
                        _ => {}
                    }
                    if index == *want {
                        best = scanner.at;
                        found = true;
                        break;
                    }
                    scanner.skip_value()?;
                    index += 1;
                }
                if !found {
                    return Some(Position::of_offset(text, best));
                }
            }
            _ => return Some(Position::of_offset(text, best)),
        }
    }
    Some(Position::of_offset(text, best))
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Reads a string literal starting at `"` and returns it unescaped.
    fn string(&mut self) -> Option<String> {
        let start = self.at;
        self.skip_string()?;
        serde_json::from_slice(&self.bytes[start..self.at]).ok()
    }

    fn skip_string(&mut self) -> Option<()> {
        if self.peek()? != b'"' {
            return None;
        }
        self.at += 1;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                _ => self.at += 1,
            }
        }
    }

    /// Skips one value without recursion (depth is tracked with a counter).
    fn skip_value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            self.skip_ws();
            match self.peek()? {
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.at += 1;
                }
                b'"' => self.skip_string()?,
                b',' | b':' if depth > 0 => self.at += 1,
                _ => {
                    while let Some(b) = self.peek() {
                        if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                            break;
                        }
                        self.at += 1;
                    }
                }
            }
            if depth == 0 {
                return Some(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "{\n  \"a\": [1, {\"b\": \"x\"}],\n  \"c\\/d\": {\"e\": true}\n}";

    #[test]
    fn points_at_keys_and_array_items() {
        let p = Pointer::root().key("a").index(1).key("b");
        assert_eq!(
            locate(DOC, &p),
            Some(Position {
                line: 2,
                column: 13
            })
        );
        let p = Pointer::root().key("c/d").key("e");
        assert_eq!(
            locate(DOC, &p),
            Some(Position {
                line: 3,
                column: 12
            })
        );
        let p = Pointer::root().key("a").index(0);
        assert_eq!(locate(DOC, &p), Some(Position { line: 2, column: 9 }));
    }

    #[test]
    fn a_missing_step_returns_the_deepest_position_reached() {
        let p = Pointer::root().key("c/d").key("nope");
        assert_eq!(locate(DOC, &p), Some(Position { line: 3, column: 3 }));
    }

    #[test]
    fn displays_and_parses_rfc6901() {
        let p = Pointer::root().key("$defs").key("a/b~c");
        assert_eq!(p.to_string(), "/$defs/a~1b~0c");
        assert_eq!(Pointer::parse_fragment("#/$defs/a~1b~0c"), Some(p));
        assert_eq!(Pointer::parse_fragment("other.json#/x"), None);
    }

    #[test]
    fn columns_count_characters() {
        let text = "{\"é\": {\"k\": 1}}";
        let p = Pointer::root().key("é").key("k");
        assert_eq!(locate(text, &p), Some(Position { line: 1, column: 8 }));
    }
}
