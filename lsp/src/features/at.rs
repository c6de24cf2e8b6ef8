//! What is at a place of a document: the tool name under the cursor (its prefix resolved to
//! a server as the lint resolves it), the call whose parentheses or braces hold the cursor,
//! the field whose quotes hold it, the front matter's `profiles:`. Worked out from the text
//! and the surfaces' public data; the findings come from the lint itself.

use std::rc::Rc;

use lsp_types::{Position, Uri};
use toolgate_lint::Finding;
use toolgate_lint::servers::Prefix;
use toolgate_schema::json::Value;
use toolgate_schema::model::{Kind, Schema};
use toolgate_schema::{Entry, Surface, SurfaceTool};

use crate::env::Env;
use crate::state::{Kind as DocKind, State};

/// The current findings of a document the lint reads.
pub fn findings(state: &mut State, uri: &Uri) -> Option<Vec<Finding>> {
    let doc = state.docs.get(uri)?;
    if doc.kind != DocKind::Lint {
        return None;
    }
    let path = doc.path.clone()?;
    let env = state.env_of(&path).ok()?;
    let shown = state.shown(&path);
    let doc = state.docs.get(uri)?;
    let mapped = env.config.mapped_profiles(&path);
    Some(env.linter().lint_text(&shown, &doc.text, mapped).findings)
}

/// A document the lint reads, with its configuration and a byte offset in it.
pub struct Place {
    /// The configuration's servers.
    pub env: Rc<Env>,
    /// The buffer's text.
    pub text: String,
    /// The offset asked about.
    pub offset: usize,
    /// The profiles the file declares (front matter, else the configuration's map); `None`:
    /// every profile.
    pub profiles: Option<Vec<String>>,
}

/// The place of `pos` in the document `uri`, when the lint reads it and its configuration
/// loads.
pub fn place(state: &mut State, uri: &Uri, pos: Position) -> Option<Place> {
    let doc = state.docs.get(uri)?;
    if doc.kind != DocKind::Lint {
        return None;
    }
    let path = doc.path.clone()?;
    let env = state.env_of(&path).ok()?;
    let doc = state.docs.get(uri)?;
    let offset = doc.lines.offset(&doc.text, pos, state.enc);
    let declared = front_matter(&doc.text).and_then(|(_, yaml)| {
        toolgate_lint::frontmatter::decode(&doc.text, yaml)
            .profiles
            .map(|d| d.names.into_iter().map(|(n, _)| n).collect::<Vec<_>>())
    });
    let profiles = declared.or_else(|| env.config.mapped_profiles(&path).map(<[String]>::to_vec));
    Some(Place {
        env,
        text: doc.text.clone(),
        offset,
        profiles,
    })
}

/// The front matter: where its body starts and its YAML.
pub fn front_matter(text: &str) -> Option<(usize, toolgate_lint::Span)> {
    toolgate_lint::scan::front_matter(text).map(|f| (f.body_start, f.yaml))
}

/// Whether a byte can be part of a tool name as written (prefix included).
pub fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b':')
}

/// The name-like word around `offset`: its start and end (trailing `.`, `:` and `/`
/// dropped, as sentence punctuation).
pub fn word_at(text: &str, offset: usize) -> (usize, usize) {
    let b = text.as_bytes();
    let mut start = offset.min(b.len());
    while start > 0 && name_byte(b[start - 1]) {
        start -= 1;
    }
    let mut end = offset.min(b.len());
    while end < b.len() && name_byte(b[end]) {
        end += 1;
    }
    while end > start && matches!(b[end - 1], b'.' | b':' | b'/') && end > offset {
        end -= 1;
    }
    (start, end)
}

/// A name resolved to a server's tool.
pub struct ToolRef<'e> {
    /// The server's index in [`Env::servers`].
    pub server: usize,
    /// The tool.
    pub tool: &'e SurfaceTool,
}

/// The server a name written `full` belongs to and the prefix's length, as the lint
/// resolves it (the longest prefix of any server; none: the first server).
pub fn server_of(env: &Env, full: &str) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for (si, s) in env.servers.iter().enumerate() {
        for p in &s.prefixes {
            if let Some(len) = Prefix::parse(p).len_at(full, 0)
                && best.is_none_or(|(_, l)| len > l)
            {
                best = Some((si, len));
            }
        }
    }
    match best {
        Some(b) => Some(b),
        None if full.starts_with("mcp_") => None,
        None => Some((0, 0)),
    }
}

/// The tool a written name refers to (by its name or a former one).
pub fn tool_ref<'e>(env: &'e Env, full: &str) -> Option<ToolRef<'e>> {
    let (server, prefix_len) = server_of(env, full)?;
    let name = full.get(prefix_len..)?;
    let surface = &env.servers[server].surface;
    let tool = surface.tool(name).or_else(|| {
        surface
            .tools
            .iter()
            .find(|t| t.formerly.iter().any(|f| f == name))
    })?;
    Some(ToolRef { server, tool })
}

/// The entry of `tool` a file with `profiles` is served (the first that any of them gets;
/// `None` when none of them gets the tool). Every profile: the first entry.
pub fn entry_for<'s>(tool: &'s SurfaceTool, profiles: Option<&[String]>) -> Option<&'s Entry> {
    match profiles {
        None => tool.entries.first(),
        Some(ps) if ps.is_empty() => tool.entries.first(),
        Some(ps) if tool.always_on => tool
            .entries
            .iter()
            .find(|e| e.profiles.iter().any(|p| ps.contains(p)))
            .or(tool.entries.first()),
        Some(ps) => tool
            .entries
            .iter()
            .find(|e| e.profiles.iter().any(|p| ps.contains(p))),
    }
}

/// Whether a surface knows profiles at all (a tatara-format manifest does not).
pub fn knows_profiles(surface: &Surface) -> bool {
    !surface.profiles.is_empty()
}

/// The top-level properties of an input schema.
pub fn properties(schema: &Schema) -> (&[(String, Schema)], &[String]) {
    match &schema.kind {
        Kind::Object(o) => (&o.properties, &o.required),
        _ => (&[], &[]),
    }
}

/// A call around the cursor: its name's span and where its argument list opens.
pub struct Call {
    /// The name as written (prefix included).
    pub name: (usize, usize),
    /// The `(` or `{`.
    pub open: usize,
    /// The matching close, when written.
    pub close: Option<usize>,
}

/// The call whose `(`/`{` holds `offset` (looked for within the 4 KiB before it, strings
/// skipped roughly: brackets inside quotes on the cursor's side are not counted).
pub fn enclosing_call(text: &str, offset: usize) -> Option<Call> {
    let b = text.as_bytes();
    let floor = offset.saturating_sub(4096);
    let mut depth = 0usize;
    let mut i = offset.min(b.len());
    while i > floor {
        i -= 1;
        match b[i] {
            b')' | b'}' | b']' => depth += 1,
            b'(' | b'{' | b'[' if depth > 0 => depth -= 1,
            b'(' | b'{' => {
                let mut end = i;
                while end > 0 && b[end - 1] == b' ' {
                    end -= 1;
                }
                let (start, _) = word_at(text, end);
                if start == end {
                    return None;
                }
                let close = matching_close(b, i);
                return Some(Call {
                    name: (start, end),
                    open: i,
                    close,
                });
            }
            b'\n' if i + 1 < b.len() && b[i + 1] == b'\n' => return None,
            _ => {}
        }
    }
    None
}

fn matching_close(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    for (i, &c) in b.iter().enumerate().skip(open) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(c),
            (None, b'(' | b'{' | b'[') => depth += 1,
            (None, b')' | b'}' | b']') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            (None, b'\n') if b.get(i + 1) == Some(&b'\n') => return None,
            _ => {}
        }
    }
    None
}

/// The field names written in a call's argument text (`name=`, `name:`, `"name":`).
pub fn written_fields(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = args.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let quoted = b[i] == b'"';
        let s = if quoted { i + 1 } else { i };
        let mut e = s;
        while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_' || b[e] == b'-') {
            e += 1;
        }
        let boundary = i == 0 || matches!(b[i - 1], b'(' | b'{' | b',' | b' ' | b'\n' | b'\t');
        let mut after = if quoted && b.get(e) == Some(&b'"') {
            e + 1
        } else {
            e
        };
        while after < b.len() && b[after] == b' ' {
            after += 1;
        }
        if e > s && boundary && matches!(b.get(after), Some(b'=' | b':')) {
            out.push(args[s..e].to_string());
            i = after + 1;
        } else {
            i = e.max(i + 1);
        }
    }
    out
}

/// When `offset` is inside a quoted value of a call's argument: the field's name.
pub fn field_of_value(text: &str, call: &Call, offset: usize) -> Option<String> {
    let args = &text[call.open + 1..offset];
    // Inside a quote: an odd number of unescaped quotes of one kind before the cursor.
    let (qi, _) = args
        .char_indices()
        .filter(|(_, c)| *c == '"' || *c == '\'')
        .last()?;
    let quotes = args.matches(&args[qi..qi + 1]).count();
    if quotes % 2 == 0 {
        return None;
    }
    let before = args[..qi].trim_end();
    let before = before.strip_suffix(['=', ':'])?.trim_end();
    let before = before.strip_suffix('"').unwrap_or(before);
    let (s, e) = word_at(before, before.len());
    let name = &before[s..e];
    (!name.is_empty()).then(|| name.to_string())
}

/// The values a schema allows as text: its `enum`, or its `const`.
pub fn allowed_values(schema: &Schema) -> Vec<String> {
    if let Kind::String(s) = &schema.kind
        && let Some(v) = &s.enum_values
    {
        return v.clone();
    }
    for (k, v) in &schema.extra {
        match (k.as_str(), v) {
            ("const", Value::String(s)) => return vec![s.clone()],
            ("const", other) => return vec![other.to_string()],
            ("enum", Value::Array(a)) => {
                return a
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect();
            }
            _ => {}
        }
    }
    Vec::new()
}
