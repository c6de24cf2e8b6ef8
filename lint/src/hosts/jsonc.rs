//! JSON with comments and trailing commas, as VS Code, Cursor, Gemini CLI and opencode accept
//! in their MCP configuration files.
//!
//! Written by hand rather than taken from a JSONC crate: it is one pass that blanks comments
//! and trailing commas out with spaces (newlines kept), so that `serde_json` then reads the
//! text and its errors keep the line and column of the file as written. [`tree`] reads the
//! same text again where the places of its strings matter (a host's tool lists, whose stale
//! names are reported at their line and column): `serde_json` keeps no positions, and once
//! it has accepted the text a walk that notes where each string and key starts is all that
//! is left to do.

use crate::text::Span;

/// `text` with `//` and `/* */` comments and the commas before a `}` or `]` replaced by
/// spaces; newlines and every other byte are kept where they are.
pub fn strip(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = bytes.to_vec();
    let mut i = 0;
    let mut in_string = false;
    // The position of a comma that a `}` or `]` may yet make a trailing one.
    let mut pending_comma: Option<usize> = None;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                pending_comma = None;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |k| i + 2 + k + 2);
                for (k, o) in out.iter_mut().enumerate().take(end).skip(i) {
                    if bytes[k] != b'\n' {
                        *o = b' ';
                    }
                }
                i = end;
                continue;
            }
            b',' => pending_comma = Some(i),
            b'}' | b']' => {
                if let Some(c) = pending_comma.take() {
                    out[c] = b' ';
                }
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => pending_comma = None,
        }
        i += 1;
    }
    // Only ASCII bytes were replaced, each by an ASCII space: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A JSON value with the places of its strings, in the text [`tree`] read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// An object: each member's key, the key's place (inside its quotes) and its value.
    Object(Vec<(String, Span, Node)>),
    /// An array.
    Array(Vec<Node>),
    /// A string and its place (inside its quotes).
    String(String, Span),
    /// A number, `true`, `false` or `null`.
    Scalar,
}

impl Node {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Object(members) => members.iter().find(|(k, _, _)| k == key).map(|(_, _, v)| v),
            _ => None,
        }
    }
}

/// The value `text` holds, read with the places of its strings; `text` is JSON that
/// `serde_json` accepted, or JSONC after [`strip`] (whose bytes keep their places). `None`
/// for text that is not (the caller says why, from `serde_json`'s error) or that nests
/// deeper than 128 levels, where `serde_json` stops too.
pub fn tree(text: &str) -> Option<Node> {
    // A UTF-8 byte order mark is no part of the value (serde_json is given the text without it).
    let at = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let mut r = Reader { text, at };
    let node = r.value(0)?;
    r.blank();
    (r.at == text.len()).then_some(node)
}

struct Reader<'t> {
    text: &'t str,
    at: usize,
}

impl Reader<'_> {
    fn blank(&mut self) {
        let b = self.text.as_bytes();
        while self.at < b.len() && matches!(b[self.at], b' ' | b'\t' | b'\r' | b'\n') {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.blank();
        let hit = self.text.as_bytes().get(self.at) == Some(&byte);
        self.at += usize::from(hit);
        hit
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > 128 {
            return None;
        }
        self.blank();
        match *self.text.as_bytes().get(self.at)? {
            b'{' => {
                self.at += 1;
                let mut members = Vec::new();
                if self.eat(b'}') {
                    return Some(Node::Object(members));
                }
                loop {
                    self.blank();
                    let (key, span) = self.string()?;
                    if !self.eat(b':') {
                        return None;
                    }
                    members.push((key, span, self.value(depth + 1)?));
                    if self.eat(b'}') {
                        return Some(Node::Object(members));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Some(Node::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b']') {
                        return Some(Node::Array(items));
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
            }
            b'"' => self.string().map(|(s, span)| Node::String(s, span)),
            _ => {
                let b = self.text.as_bytes();
                let start = self.at;
                while self.at < b.len()
                    && !matches!(
                        b[self.at],
                        b',' | b']' | b'}' | b' ' | b'\t' | b'\r' | b'\n'
                    )
                {
                    self.at += 1;
                }
                (self.at > start).then_some(Node::Scalar)
            }
        }
    }

    /// A string at the reader's place: its value (escapes decoded by `serde_json`) and the
    /// place of what is between its quotes.
    fn string(&mut self) -> Option<(String, Span)> {
        let b = self.text.as_bytes();
        if b.get(self.at) != Some(&b'"') {
            return None;
        }
        let open = self.at;
        let mut i = open + 1;
        while i < b.len() && b[i] != b'"' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        if i >= b.len() {
            return None;
        }
        self.at = i + 1;
        let value: String = serde_json::from_str(self.text.get(open..=i)?).ok()?;
        Some((value, Span::new(open + 1, i)))
    }
}

#[cfg(test)]
mod tests {
    use super::strip;

    #[test]
    fn comments_and_trailing_commas_become_spaces() {
        let text = "{\n  // a server\n  \"a\": [1, 2,], /* x\n y */ \"b\": \"//not\",\n}\n";
        let stripped = strip(text);
        assert_eq!(stripped.len(), text.len());
        assert_eq!(stripped.lines().count(), text.lines().count());
        let v: serde_json::Value = serde_json::from_str(&stripped).unwrap();
        assert_eq!(v["b"], "//not");
        assert_eq!(v["a"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn the_tree_keeps_where_each_string_is() {
        let text = "{\n  // c\n  \"a\": [\"x\\\"y\", 1, null,],\n  \"b\": {\"c\": \"d\"}\n}";
        let stripped = strip(text);
        let t = super::tree(&stripped).unwrap();
        let Some(super::Node::Array(items)) = t.get("a") else {
            panic!("{t:?}")
        };
        let super::Node::String(v, span) = &items[0] else {
            panic!("{items:?}")
        };
        assert_eq!(v, "x\"y");
        assert_eq!(&text[span.range()], "x\\\"y");
        let Some(super::Node::Object(m)) = t.get("b") else {
            panic!()
        };
        assert_eq!(&text[m[0].1.range()], "c");
        assert_eq!(super::tree("{\"a\": }"), None);
        let bom = "\u{feff}{\"k\": \"v\"}";
        let Some(super::Node::String(_, span)) = super::tree(bom).and_then(|t| t.get("k").cloned())
        else {
            panic!()
        };
        assert_eq!(&bom[span.range()], "v");
        assert_eq!(super::tree(&"[".repeat(200)), None);
    }

    #[test]
    fn an_escaped_quote_does_not_end_a_string() {
        let v: serde_json::Value = serde_json::from_str(&strip(r#"{"a": "x\" // y",}"#)).unwrap();
        assert_eq!(v["a"], "x\" // y");
    }
}
