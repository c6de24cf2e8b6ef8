//! The reference forms that are not `name(...)`: JSON tool calls, YAML-style calls and
//! `<tool>` tags. (Object-style calls, `name { ... }` and `name({...})`, are found by
//! [`crate::scan::candidates_before`] and read by [`crate::args::parse_object`].)
//!
//! Pure functions over a file's text, like the scanner: each returns exact byte spans, and
//! the lint decides which names are tools.

use memchr::memmem;

use crate::args::{self, ArgKind, Args, Outcome, ParseOptions, ValueKind};
use crate::text::Span;

/// A JSON tool call: `{"name": "x", "arguments": {...}}`, alone or as the `params` of a
/// `{"method": "tools/call", ...}` request (MCP's `CallToolRequest`).
#[derive(Clone, Debug, PartialEq)]
pub struct JsonCall {
    /// The tool name: the content of the `"name"` string.
    pub name: Span,
    /// The members of the `"arguments"` object, as pairs; `close` is its `}`.
    pub args: Args,
    /// The offset of the arguments object's `{`.
    pub args_open: usize,
}

/// How far back the `{` of a JSON call's object is looked for.
const JSON_LOOKBACK: usize = 4096;

/// Finds every JSON tool call in `range` of `text`. Only an object with both a string
/// `"name"` and an object `"arguments"` is one: a tools/list entry (`"name"` and
/// `"inputSchema"`) or a function call whose arguments are a string is not.
pub fn json_calls(text: &str, range: Span) -> Vec<JsonCall> {
    let bytes = text.as_bytes();
    let end = range.end.min(bytes.len());
    let start = range.start.min(end);
    let mut out = Vec::new();
    let opts = ParseOptions {
        comments: true,
        ..ParseOptions::default()
    };
    for at in memmem::find_iter(&bytes[start..end], b"\"name\"").map(|i| start + i) {
        let mut i = at + 6;
        while i < end && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if bytes.get(i) != Some(&b':') {
            continue;
        }
        let Some(open) = enclosing_brace(bytes, start, at) else {
            continue;
        };
        let object = args::parse_object(text, open, end, opts);
        if object.outcome != Outcome::Closed {
            continue;
        }
        let mut name = None;
        let mut arguments = None;
        for (key, value) in object.pairs() {
            match key.of(text) {
                "name" if key.start == at + 1 => {
                    if let ValueKind::Str {
                        content,
                        escapes: false,
                        ..
                    } = value.kind
                    {
                        name = Some(content);
                    }
                }
                "arguments" if value.kind == ValueKind::Object => {
                    arguments = Some(value.span);
                }
                _ => {}
            }
        }
        let (Some(name), Some(arguments)) = (name, arguments) else {
            continue;
        };
        if name.is_empty() || !name.of(text).bytes().all(is_tool_byte) {
            continue;
        }
        let args = args::parse_object(text, arguments.start, arguments.end, opts);
        if args.outcome != Outcome::Closed {
            continue;
        }
        out.push(JsonCall {
            name,
            args,
            args_open: arguments.start,
        });
    }
    out
}

/// The `{` of the JSON object a key at `at` is a member of, looked for backwards (strings
/// skipped, nested objects and lists counted), at most [`JSON_LOOKBACK`] bytes and not
/// before `floor`.
fn enclosing_brace(bytes: &[u8], floor: usize, at: usize) -> Option<usize> {
    let limit = at.saturating_sub(JSON_LOOKBACK).max(floor);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut j = at;
    while j > limit {
        j -= 1;
        let c = bytes[j];
        if in_string {
            if c == b'"' && !escaped(bytes, j, limit) {
                in_string = false;
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'}' | b']' => depth += 1,
            b'{' if depth == 0 => return Some(j),
            b'[' if depth == 0 => return None,
            b'{' | b'[' => depth -= 1,
            _ => {}
        }
    }
    None
}

fn escaped(bytes: &[u8], at: usize, floor: usize) -> bool {
    let mut n = 0;
    let mut j = at;
    while j > floor && bytes[j - 1] == b'\\' {
        n += 1;
        j -= 1;
    }
    n % 2 == 1
}

/// Bytes of a tool name as written, prefix included (`mcp__github__x`, `github/x`).
pub fn is_tool_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'/' | b'.')
}

/// A YAML-style call: a tool name that starts a line of a code block, followed by
/// `key: value` pairs on the same line, on the more indented lines under it, or both.
#[derive(Clone, Debug, PartialEq)]
pub struct YamlCall {
    /// The name as written (prefix included).
    pub name: Span,
    /// The pairs; `close` is the last byte of the last value.
    pub args: Args,
    /// Whether there are pairs on the name's own line.
    pub same_line: bool,
}

/// Finds the YAML-style calls in the code block `region` of `text`: a line whose first
/// word (after a list marker) is a name `is_tool` accepts, not followed by `:`, `(` or `{`,
/// with at least one pair.
pub fn yaml_calls(
    text: &str,
    region: Span,
    mut is_tool: impl FnMut(&str) -> bool,
) -> Vec<YamlCall> {
    let bytes = text.as_bytes();
    let end = region.end.min(bytes.len());
    let mut out = Vec::new();
    let opts = ParseOptions {
        comments: true,
        ..ParseOptions::default()
    };
    let mut pos = region.start.min(end);
    while pos < end {
        let line = line_at(bytes, pos, end);
        pos = line.next;
        let (ind, _) = indent_of(bytes, line.span);
        let stop = line.span.end;
        // The name ends the line or white space follows it; it is a tool (a cheap test, and
        // most first words of code lines are not: it goes before reading the rest); then
        // pairs on the line (a `:` after white space), or a more indented line under it.
        let Some(name) = first_word(bytes, line.span) else {
            continue;
        };
        let e = name.end;
        if !is_tool(name.of(text)) {
            continue;
        }
        let same_line = e != stop && memchr::memchr(b':', &bytes[e..stop]).is_some();
        if !same_line && !more_indented(bytes, pos, end, ind) {
            continue;
        }
        let mut spans = Vec::new();
        if same_line {
            spans.push(Span::new(e, stop));
        }
        pair_lines(bytes, pos, end, ind, &mut spans);
        let args = args::parse_yaml(text, &spans, opts);
        if args.items.is_empty()
            || !args
                .items
                .iter()
                .all(|a| matches!(a.kind, ArgKind::Pair { .. }))
        {
            continue;
        }
        // The lines read belong to this call.
        let last = args.close.unwrap_or(e);
        while pos < end && pos <= last {
            pos = line_at(bytes, pos, end).next;
        }
        out.push(YamlCall {
            name,
            args,
            same_line,
        });
    }
    out
}

/// The first word of a code line (after a `- ` or `* ` list marker) when it may be a
/// YAML-style call's name: it ends the line or white space follows it.
fn first_word(bytes: &[u8], line: Span) -> Option<Span> {
    let (_, mut i) = indent_of(bytes, line);
    let stop = line.end;
    if i < stop && matches!(bytes[i], b'-' | b'*') && bytes.get(i + 1) == Some(&b' ') {
        i += 2;
        while i < stop && bytes[i] == b' ' {
            i += 1;
        }
    }
    if i >= stop || !args::is_name_start(bytes[i]) {
        return None;
    }
    let mut e = i;
    while e < stop && is_tool_byte(bytes[e]) {
        e += 1;
    }
    while e > i && matches!(bytes[e - 1], b'.' | b'/' | b'-') {
        e -= 1;
    }
    (e == stop || matches!(bytes.get(e), Some(b' ' | b'\t'))).then_some(Span::new(i, e))
}

/// The lines from `pos` indented deeper than `ind` columns (their text after the
/// indentation), added to `spans`: the pairs under a name. At most 256 lines: a call is
/// short, a file may not be.
fn pair_lines(bytes: &[u8], pos: usize, end: usize, ind: usize, spans: &mut Vec<Span>) {
    let mut j = pos;
    while j < end && spans.len() < 256 {
        let next = line_at(bytes, j, end);
        let (next_ind, next_i) = indent_of(bytes, next.span);
        if next_i >= next.span.end || next_ind <= ind {
            break;
        }
        spans.push(Span::new(next_i, next.span.end));
        j = next.next;
    }
}

/// Whether the line at `pos` is indented deeper than `ind` columns.
fn more_indented(bytes: &[u8], pos: usize, end: usize, ind: usize) -> bool {
    if pos >= end {
        return false;
    }
    let next = line_at(bytes, pos, end);
    let (next_ind, next_i) = indent_of(bytes, next.span);
    next_i < next.span.end && next_ind > ind
}

struct LineAt {
    /// The line, without its line break.
    span: Span,
    /// Where the next line starts.
    next: usize,
}

fn line_at(bytes: &[u8], pos: usize, end: usize) -> LineAt {
    let nl = memchr::memchr(b'\n', &bytes[pos..end]).map_or(end, |i| pos + i);
    let mut e = nl;
    if e > pos && bytes[e - 1] == b'\r' {
        e -= 1;
    }
    LineAt {
        span: Span::new(pos, e),
        next: nl + 1,
    }
}

/// (columns, offset of the first other byte) of a line's leading white space.
fn indent_of(bytes: &[u8], line: Span) -> (usize, usize) {
    let mut col = 0;
    let mut i = line.start;
    while i < line.end {
        match bytes[i] {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            _ => break,
        }
        i += 1;
    }
    (col, i)
}

/// The names written as `<tool>NAME</tool>` or `<tool_name>NAME</tool_name>` in `range`: the
/// spans of NAME.
pub fn tags(text: &str, range: Span) -> Vec<Span> {
    let bytes = text.as_bytes();
    let end = range.end.min(bytes.len());
    let start = range.start.min(end);
    let mut out = Vec::new();
    for at in memmem::find_iter(&bytes[start..end], b"<tool").map(|i| start + i) {
        let after = &bytes[at + 5..end];
        let open_len = if after.starts_with(b">") {
            6
        } else if after.starts_with(b"_name>") {
            11
        } else {
            continue;
        };
        let mut i = at + open_len;
        while i < end && bytes[i] == b' ' {
            i += 1;
        }
        let name_start = i;
        while i < end && i - name_start < 200 && is_tool_byte(bytes[i]) {
            i += 1;
        }
        let name_end = i;
        while i < end && bytes[i] == b' ' {
            i += 1;
        }
        if name_end > name_start && bytes[i..end].starts_with(b"</tool") {
            out.push(Span::new(name_start, name_end));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &str, args: &Args) -> Vec<(String, String)> {
        args.pairs()
            .map(|(k, v)| (k.of(text).to_string(), v.span.of(text).to_string()))
            .collect()
    }

    #[test]
    fn json_calls_alone_and_in_a_request() {
        let text = r#"{"jsonrpc": "2.0", "method": "tools/call", "params": {
  "name": "check_task", "arguments": {"token": "<t>", "n": 2}}}
{"name": "x", "inputSchema": {}}
{"name": "f", "arguments": "{\"a\": 1}"}
{ "arguments": {}, "name": "get_mcp_access" }"#;
        let calls = json_calls(text, Span::new(0, text.len()));
        let names: Vec<&str> = calls.iter().map(|c| c.name.of(text)).collect();
        assert_eq!(names, ["check_task", "get_mcp_access"]);
        assert_eq!(
            pairs(text, &calls[0].args),
            [
                ("token".to_string(), "\"<t>\"".to_string()),
                ("n".into(), "2".into())
            ]
        );
    }

    #[test]
    fn yaml_calls_on_one_line_and_below() {
        let text = "search_issues  query: \"repo:a/b x\"  # a comment\nlist_issues    labels: [\"epic\"] state: open\nissue_read\n  method: get\n  issue_number: 3\nnext_thing: 1\nissue_read: not a call\n";
        let calls = yaml_calls(text, Span::new(0, text.len()), |n| n != "next_thing");
        let got: Vec<(&str, Vec<(String, String)>)> = calls
            .iter()
            .map(|c| (c.name.of(text), pairs(text, &c.args)))
            .collect();
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(
            got[0].1,
            [("query".to_string(), "\"repo:a/b x\"".to_string())]
        );
        assert_eq!(
            got[1].1,
            [
                ("labels".to_string(), "[\"epic\"]".to_string()),
                ("state".into(), "open".into())
            ]
        );
        assert_eq!(got[2].0, "issue_read");
        assert_eq!(
            got[2].1,
            [
                ("method".to_string(), "get".to_string()),
                ("issue_number".into(), "3".into())
            ]
        );
        let ArgKind::Pair { value, .. } = &calls[1].args.items[1].kind else {
            panic!()
        };
        assert_eq!(value.kind, ValueKind::Plain);
    }

    #[test]
    fn tags_hold_names() {
        let text = "<tool>mcp__a__b</tool> <tool_name> get_me </tool_name> <tools>x</tools> <tool>a b</tool>";
        let got: Vec<&str> = tags(text, Span::new(0, text.len()))
            .iter()
            .map(|s| s.of(text))
            .collect();
        assert_eq!(got, ["mcp__a__b", "get_me"]);
    }

    #[test]
    fn bounded_on_hostile_input() {
        let text = format!("{}{}", "{\"name\": 1, ".repeat(20_000), "}".repeat(10));
        let t = std::time::Instant::now();
        let _ = json_calls(&text, Span::new(0, text.len()));
        let text = "<tool".repeat(50_000);
        let _ = tags(&text, Span::new(0, text.len()));
        assert!(t.elapsed().as_secs() < 5);
    }
}
