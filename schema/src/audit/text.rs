//! The text of a tool the rules read: every string with its JSON pointer and its kind, and
//! the helpers the rules share (sentences, word lists as regular expressions).

use crate::json::{Map, Value};

/// What a string of a tool is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// The tool's `name`.
    Name,
    /// The tool's `title` or `annotations.title`.
    Title,
    /// The tool's `description`.
    Description,
    /// A property's name in a schema.
    ParamName,
    /// A `description` or `title` inside a schema.
    ParamText,
    /// A string value in a schema (`enum`, `const`, `default`, `examples`).
    Value,
    /// Any other string or key (`$schema`, `type`, an `_meta` value, ...).
    Other,
}

impl FieldKind {
    /// Prose the model reads: titles and descriptions, the tool's and its parameters'.
    pub fn is_prose(self) -> bool {
        matches!(
            self,
            FieldKind::Title | FieldKind::Description | FieldKind::ParamText
        )
    }
}

/// One string of a tool.
#[derive(Clone, Debug)]
pub struct Field<'a> {
    /// Its JSON pointer in the tool (for a key: the pointer of the value it names).
    pub path: String,
    /// What it is.
    pub kind: FieldKind,
    /// The text.
    pub text: &'a str,
    /// For a parameter's text: the parameter's name.
    pub param: Option<&'a str>,
}

/// Every string of `tool`, keys included, in the tool's own order.
pub fn fields(tool: &Map) -> Vec<Field<'_>> {
    let mut out = Vec::new();
    for (key, value) in tool.iter() {
        let path = format!("/{}", escape(key));
        match (key, value) {
            ("name", Value::String(s)) => out.push(field(path, FieldKind::Name, s, None)),
            ("title", Value::String(s)) => out.push(field(path, FieldKind::Title, s, None)),
            ("description", Value::String(s)) => {
                out.push(field(path, FieldKind::Description, s, None))
            }
            ("inputSchema" | "outputSchema", v) => schema(v, &path, None, &mut out),
            ("annotations", Value::Object(m)) => {
                for (k, v) in m.iter() {
                    let p = format!("{path}/{}", escape(k));
                    push_key(k, &p, &mut out);
                    match (k, v) {
                        ("title", Value::String(s)) => {
                            out.push(field(p, FieldKind::Title, s, None))
                        }
                        _ => other(v, &p, &mut out),
                    }
                }
            }
            _ => other(value, &path, &mut out),
        }
    }
    out
}

fn field<'a>(path: String, kind: FieldKind, text: &'a str, param: Option<&'a str>) -> Field<'a> {
    Field {
        path,
        kind,
        text,
        param,
    }
}

/// A JSON pointer token.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn push_key<'a>(key: &'a str, path: &str, out: &mut Vec<Field<'a>>) {
    if !key.is_ascii() {
        out.push(field(path.to_string(), FieldKind::Other, key, None));
    }
}

/// The strings of a schema: property names, descriptions and titles, string values.
fn schema<'a>(v: &'a Value, path: &str, param: Option<&'a str>, out: &mut Vec<Field<'a>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter() {
                let p = format!("{path}/{}", escape(k));
                schema_key(k, x, p, param, out);
            }
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                schema(x, &format!("{path}/{i}"), param, out);
            }
        }
        Value::String(s) => out.push(field(path.to_string(), FieldKind::Value, s, param)),
        _ => {}
    }
}

fn schema_key<'a>(
    k: &'a str,
    x: &'a Value,
    p: String,
    param: Option<&'a str>,
    out: &mut Vec<Field<'a>>,
) {
    match (k, x) {
        ("description" | "title", Value::String(s)) => {
            out.push(field(p, FieldKind::ParamText, s, param))
        }
        ("properties" | "patternProperties" | "$defs" | "definitions", Value::Object(props)) => {
            for (name, sub) in props.iter() {
                let pp = format!("{p}/{}", escape(name));
                if k == "properties" {
                    out.push(field(pp.clone(), FieldKind::ParamName, name, Some(name)));
                } else {
                    push_key(name, &pp, out);
                }
                let owner = if k == "properties" { Some(name) } else { param };
                schema(sub, &pp, owner, out);
            }
        }
        ("enum" | "const" | "default" | "examples", _) => schema(x, &p, param, out),
        ("required", _) | ("type", _) | ("$schema", _) | ("$ref", _) | ("format", _) => {
            other(x, &p, out)
        }
        (_, Value::Object(_) | Value::Array(_)) => {
            push_key(k, &p, out);
            schema(x, &p, param, out)
        }
        (_, v) => {
            push_key(k, &p, out);
            other(v, &p, out)
        }
    }
}

/// Whether a string that is not prose can hold what the character checks look for (a
/// non-ASCII or control character): the others (`"type": "string"`) are not kept.
fn may_hide(s: &str) -> bool {
    !s.is_ascii()
        || s.bytes()
            .any(|b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7F)
}

/// Strings that are not text the model reads as such, kept for the character checks.
fn other<'a>(v: &'a Value, path: &str, out: &mut Vec<Field<'a>>) {
    match v {
        Value::String(s) if may_hide(s) => {
            out.push(field(path.to_string(), FieldKind::Other, s, None))
        }
        Value::String(_) => {}
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                other(x, &format!("{path}/{i}"), out);
            }
        }
        Value::Object(m) => {
            for (k, x) in m.iter() {
                let p = format!("{path}/{}", escape(k));
                push_key(k, &p, out);
                other(x, &p, out);
            }
        }
        _ => {}
    }
}

/// The sentences of `text` as byte ranges: split after `.`, `!`, `?` or `;` followed by
/// white space, and at line breaks. A sentence is the unit within which the rules ask for
/// two signals together.
pub fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let end_here = b == b'\n'
            || (matches!(b, b'.' | b'!' | b'?' | b';')
                && bytes.get(i + 1).is_some_and(|n| n.is_ascii_whitespace()));
        if end_here {
            if i + 1 > start {
                out.push((start, i + 1));
            }
            start = i + 1;
        }
        i += 1;
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

/// A regular expression compiled once: `re!(r"...")`. Every pattern is a constant of this
/// crate, so a failure to compile is a bug that the unit tests catch.
#[macro_export]
#[doc(hidden)]
macro_rules! audit_re {
    ($pattern:expr) => {{
        static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            #[allow(clippy::unwrap_used)]
            regex::Regex::new(&$crate::audit::text::ascii_classes($pattern)).unwrap()
        });
        &*RE
    }};
}

/// A pattern with its word boundaries, word and space classes made ASCII: every pattern's
/// words are English, and a Unicode `\b` keeps the regex crate's fast engines off any text
/// with a non-ASCII character (measured: docs/benchmarks.md). A character class keeps `\w`
/// as `[0-9A-Za-z_]` inside brackets too.
pub fn ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        if c == '\\' {
            let Some(n) = chars.next() else {
                out.push(c);
                break;
            };
            match (n, in_class) {
                ('b', false) => out.push_str("(?-u:\\b)"),
                ('w', false) => out.push_str("[0-9A-Za-z_]"),
                ('w', true) => out.push_str("0-9A-Za-z_"),
                ('s', false) => out.push_str("[\\t\\n\\r\\x0B\\x0C ]"),
                ('s', true) => out.push_str("\\t\\n\\r\\x0B\\x0C "),
                _ => {
                    out.push(c);
                    out.push(n);
                }
            }
            continue;
        }
        match c {
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            _ => {}
        }
        out.push(c);
    }
    out
}

/// Splits a tool or parameter name into lower-case words: `deleteFile`, `delete_file`,
/// `delete-file` and `delete.file` all give `["delete", "file"]`.
pub fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// A name reduced to what a reader compares: lower case, separators dropped.
pub fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `name` occurs in `text` as a whole word (not inside a longer identifier).
pub fn mentions(text: &str, name: &str) -> Option<(usize, usize)> {
    if name.is_empty() {
        return None;
    }
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    let mut from = 0;
    while let Some(i) = text[from..].find(name) {
        let start = from + i;
        let end = start + name.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        // A trailing `-` ends a list item or a dash; it does not extend the name.
        let after_ok = match after {
            None => true,
            Some(c) if c.is_alphanumeric() || c == '_' => false,
            Some('-') => !text[end + 1..].starts_with(char::is_alphanumeric),
            Some(_) => true,
        };
        if before.is_none_or(|c| !is_ident(c)) && after_ok {
            return Some((start, end));
        }
        from = start + name.len().max(1);
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    None
}

/// The sentence of `text` around byte `at` (see [`sentences`]).
pub fn sentence_at(text: &str, at: usize) -> &str {
    sentences(text)
        .into_iter()
        .find(|&(a, b)| a <= at && at < b)
        .map_or(text, |(a, b)| &text[a..b])
}

/// The first match of `re` in `text`, as a byte range.
pub fn first(re: &regex::Regex, text: &str) -> Option<(usize, usize)> {
    re.find(text).map(|m| (m.start(), m.end()))
}

/// `text[span]`, cut to 80 characters, for a message.
pub fn quote(text: &str, span: (usize, usize)) -> String {
    let s = text[span.0..span.1].trim();
    let s: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(79).collect();
        format!("{cut}…")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_on_stops_and_lines() {
        let t = "One. Two! e.g. three\nfour";
        let s: Vec<&str> = sentences(t).iter().map(|&(a, b)| &t[a..b]).collect();
        assert_eq!(s, ["One.", " Two!", " e.g.", " three\n", "four"]);
    }

    #[test]
    fn classes_become_ascii() {
        assert_eq!(
            ascii_classes(r"\bab\w+\s[\w.-]"),
            r"(?-u:\b)ab[0-9A-Za-z_]+[\t\n\r\x0B\x0C ][0-9A-Za-z_.-]"
        );
    }

    #[test]
    fn words_of_names() {
        assert_eq!(name_words("deleteFile"), ["delete", "file"]);
        assert_eq!(name_words("delete_file"), ["delete", "file"]);
        assert_eq!(name_words("get-HTTP-page"), ["get", "http", "page"]);
        assert_eq!(normalized("Get_User-Info"), "getuserinfo");
    }

    #[test]
    fn mentions_are_whole_words() {
        assert!(mentions("call send_email first", "send_email").is_some());
        assert!(mentions("call send_email_v2 first", "send_email").is_none());
        assert!(mentions("use `send_email`.", "send_email").is_some());
        assert!(mentions("resend_email", "send_email").is_none());
    }

    #[test]
    fn fields_have_pointers_and_kinds() {
        let v: Value = serde_json::from_str(
            r#"{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"a/b":{"type":"string","description":"x","enum":["e"]}}},"annotations":{"title":"T","readOnlyHint":true}}"#,
        )
        .unwrap();
        let f = fields(v.as_object().unwrap());
        let got: Vec<(&str, FieldKind)> = f.iter().map(|f| (f.path.as_str(), f.kind)).collect();
        assert!(got.contains(&("/name", FieldKind::Name)));
        assert!(got.contains(&("/description", FieldKind::Description)));
        assert!(got.contains(&("/inputSchema/properties/a~1b", FieldKind::ParamName)));
        assert!(got.contains(&(
            "/inputSchema/properties/a~1b/description",
            FieldKind::ParamText
        )));
        assert!(got.contains(&("/inputSchema/properties/a~1b/enum/0", FieldKind::Value)));
        assert!(got.contains(&("/annotations/title", FieldKind::Title)));
        let d = f.iter().find(|f| f.kind == FieldKind::ParamText).unwrap();
        assert_eq!(d.param, Some("a/b"));
    }
}
