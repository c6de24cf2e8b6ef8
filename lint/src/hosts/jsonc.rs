//! JSON with comments and trailing commas, as VS Code, Cursor, Gemini CLI and opencode accept
//! in their MCP configuration files.
//!
//! Written by hand rather than taken from a JSONC crate: it is one pass that blanks comments
//! and trailing commas out with spaces (newlines kept), so that `serde_json` then reads the
//! text and its errors keep the line and column of the file as written.

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
    fn an_escaped_quote_does_not_end_a_string() {
        let v: serde_json::Value = serde_json::from_str(&strip(r#"{"a": "x\" // y",}"#)).unwrap();
        assert_eq!(v["a"], "x\" // y");
    }
}
