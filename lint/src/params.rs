//! Parameters written without call syntax: a tool named in prose, a code span, a comment or a
//! tag, with its parameters next to it in a form of their own (the `+params` forms of real
//! agent files):
//!
//! - **bullets**: ``Use `issue_read` with:`` then list items `- method: get`,
//!   `` - repo: `"acme/web"` ``, `` - `number`: 3 ``, or `` - `method: get` (a remark) ``;
//! - **inline spans**: `` `issue_read` (`method: get`) ``, ``issue_read` (method `get`)``,
//!   `` (`issue_read`, `method: "get"`) ``, `` `issue_write` with `method: create` ``;
//! - **a fenced block** after ``Use `issue_write` with:``: a JSON object, YAML `key: value`
//!   lines, or only names (`owner, repo, issue_number (required)`);
//! - **sibling tags**: `<tool>issue_read</tool>` with `<method>get</method>` beside it;
//! - **comment lines** in code: `# Use issue_write` then `# method: create`, `# repo: $REPO`;
//! - **a table column** of names under a header that says parameters:
//!   `` | `issue_read` | ... | `owner`, `repo` | ``.
//!
//! Only an unambiguous association is taken: the tool is the only one named where the
//! parameters are introduced, the parameters follow it at once, and where the keys are prose
//! rather than syntax (a word before a code span, a tag, a comment without `with:`, a list
//! after a bare `tool:`) only the fields the tool declares count, so that a remark is never
//! taken for an unknown field. A value that describes rather than gives one (`string`,
//! `integer`, `required`, `optional`) is a placeholder. `owner/repo/issue_number` after a
//! name is not read: it is as often a repository path as a list of fields.
//!
//! Pure functions over a file's text, like [`crate::forms`]: they return exact spans, and the
//! lint decides which names are tools (through [`Tools`]) and checks the pairs like a call's.
//! Hand-written: the forms are line-oriented Markdown conventions no parser crate reads, and
//! they reuse the lint's own region scanner and value reader.

use crate::args::{self, Arg, ArgKind, Args, Outcome, ParseOptions, Value, ValueKind};
use crate::forms;
use crate::scan::{self, Context, Region, region_of};
use crate::text::Span;

/// How the parameters were written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamForm {
    /// `tool with:` then `- key: value` list items.
    Bullets,
    /// `` `tool` (`key: value`) ``, ``(key `value`)``, `` `tool` with `key: value` ``.
    InlineSpans,
    /// `tool with:` then a fenced JSON object or YAML `key: value` lines.
    Block,
    /// `tool with:` then a fenced block of names only.
    NamesBlock,
    /// `<tool>name</tool>` then `<key>value</key>` siblings.
    SiblingTags,
    /// `# Use tool` then `# key: value` comment lines.
    CommentLines,
    /// A table column of backticked names under a "parameters" header.
    Names,
}

/// Parameters attached to a tool named without call syntax.
#[derive(Clone, Debug, PartialEq)]
pub struct Attached {
    /// The tool name as written (its prefix included).
    pub tool: Span,
    /// The pairs (a name-only form's values are empty placeholders); `close` is the last
    /// byte of the last one.
    pub args: Args,
    /// The form.
    pub form: ParamForm,
}

/// What the lint knows about names: which are tools whose parameters are checked, and which
/// fields they declare.
pub trait Tools {
    /// Whether `written` (a prefix included) is such a tool.
    fn is_tool(&self, written: &str) -> bool;
    /// Whether the tool written `written` declares property `field`.
    fn declares(&self, written: &str, field: &str) -> bool;
}

/// Words that describe a parameter rather than give its value (`- state: optional`,
/// `` (`owner: string`) ``): placeholders.
const DESCRIPTIVE: &[&str] = &[
    "string", "str", "number", "integer", "int", "boolean", "bool", "array", "list", "object",
    "dict", "map", "any", "required", "optional",
];

/// At most this many lines of parameters are read after one tool.
const MAX_LINES: usize = 64;

/// The most bytes of a line looked at on either side of a position.
const MAX_LINE: usize = 4096;

/// Finds the parameters attached to each of `mentions` (the spans of tool names as written,
/// sorted, outside calls: the lint gives only names `tools` knows), and to each
/// `<tool>name</tool>` tag of the body (from `body_start`). `regions` are the body's.
pub fn attached(
    text: &str,
    body_start: usize,
    regions: &[Region],
    mentions: &[Span],
    tools: &impl Tools,
) -> Vec<Attached> {
    let mut out = Vec::new();
    let f = Finder {
        text,
        b: text.as_bytes(),
        regions,
        mentions,
        tools,
    };
    for &m in mentions {
        let Some(region) = region_of(regions, m) else {
            continue;
        };
        let found = match region.context {
            Context::FencedCode | Context::IndentedCode => {
                f.comment_lines(m).map(|a| (a, ParamForm::CommentLines))
            }
            Context::Prose => f.prose(m, m.start, m.end),
            Context::InlineCode => match f.exact_code(region, m) {
                Some((before, after)) => f.prose(m, before, after),
                None => None,
            },
            Context::TableCode => match f.exact_code(region, m) {
                Some(_) => f.table_names(m).map(|a| (a, ParamForm::Names)),
                None => None,
            },
            Context::TableCell | Context::FrontMatter => None,
        };
        if let Some((items, form)) = found {
            out.push(attach(m, items, form));
        }
    }
    // Comment lines of code blocks that end with an unprefixed tool name (`# Use
    // issue_list with:`): prefixed ones are mentions already.
    for r in regions.iter().filter(|r| r.context.is_block_code()) {
        let mut pos = r.span.start;
        while pos < r.span.end {
            let line = line_at(f.b, pos);
            pos = line.next;
            let Some(m) = f.comment_tail_name(line) else {
                continue;
            };
            if mentions.binary_search(&m).is_ok() || !tools.is_tool(m.of(text)) {
                continue;
            }
            if let Some(items) = f.comment_lines(m) {
                out.push(attach(m, items, ParamForm::CommentLines));
            }
        }
    }
    if memchr::memmem::find(&f.b[body_start.min(f.b.len())..], b"<tool").is_some() {
        for tag in forms::tags(text, Span::new(body_start, text.len())) {
            if let Some(items) = f.sibling_tags(tag) {
                out.push(attach(tag, items, ParamForm::SiblingTags));
            }
        }
    }
    out
}

fn attach(tool: Span, items: Vec<Arg>, form: ParamForm) -> Attached {
    let close = items.iter().map(|a| a.span.end.max(tool.end)).max();
    Attached {
        tool,
        args: Args {
            items,
            close: close.map(|c| c.saturating_sub(1)),
            outcome: Outcome::Closed,
        },
        form,
    }
}

/// A line: its content (without the line break) and where the next one starts.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    next: usize,
}

/// The line holding `pos`. A line longer than [`MAX_LINE`] on either side of `pos` is cut
/// there, so that finding lines stays linear on a file that is one long line.
fn line_at(b: &[u8], pos: usize) -> Line {
    let pos = pos.min(b.len());
    let floor = pos.saturating_sub(MAX_LINE);
    let start = memchr::memrchr(b'\n', &b[floor..pos]).map_or(floor, |i| floor + i + 1);
    let ceil = b.len().min(pos + MAX_LINE);
    let nl = memchr::memchr(b'\n', &b[pos..ceil]).map_or(ceil, |i| pos + i);
    let mut end = nl;
    if end > start && b[end - 1] == b'\r' {
        end -= 1;
    }
    Line {
        start,
        end,
        next: (nl + 1).min(b.len()).max(nl),
    }
}

/// (columns, offset of the first other byte) of a line's leading white space.
fn indent(b: &[u8], line: Line) -> (usize, usize) {
    let mut col = 0;
    let mut i = line.start;
    while i < line.end {
        match b[i] {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            _ => break,
        }
        i += 1;
    }
    (col, i)
}

fn trim(b: &[u8], s: Span) -> Span {
    let (mut start, mut end) = (s.start, s.end.min(b.len()));
    while start < end && b[start].is_ascii_whitespace() {
        start += 1;
    }
    while end > start && b[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    Span::new(start, end)
}

fn skip_spaces(b: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// Whether `s` is a field name as a key of the forms: a name that starts with a letter or
/// `_` (with `-` only inside).
fn is_name(b: &[u8], s: Span) -> bool {
    !s.is_empty() && args::is_name_start(b[s.start]) && args::name_end(b, s.start, s.end) == s.end
}

/// The width of a list item marker and the white space after it at `i`, when there is one.
fn list_marker(b: &[u8], i: usize, end: usize) -> Option<usize> {
    let mut j = i;
    match b.get(j)? {
        b'-' | b'*' | b'+' => j += 1,
        b'0'..=b'9' => {
            while j < end && j - i < 9 && b[j].is_ascii_digit() {
                j += 1;
            }
            if !matches!(b.get(j), Some(b'.' | b')')) {
                return None;
            }
            j += 1;
        }
        _ => return None,
    }
    if j >= end || !matches!(b[j], b' ' | b'\t') {
        return None;
    }
    Some(skip_spaces(b, j, end) - i)
}

fn pair(key: Span, value: Value) -> Arg {
    Arg {
        span: Span::new(key.start, value.span.end.max(key.end)),
        kind: ArgKind::Pair { name: key, value },
    }
}

/// A name-only parameter: the value is an empty placeholder, so only the field is checked.
fn name_only(key: Span) -> Arg {
    pair(
        key,
        Value {
            span: Span::new(key.end, key.end),
            kind: ValueKind::Placeholder,
        },
    )
}

/// A value that only describes (`string`, `optional`) stands for one.
fn descriptive(text: &str, mut v: Value) -> Value {
    let word = match &v.kind {
        ValueKind::Plain => Some(v.span.of(text)),
        ValueKind::Str {
            content,
            escapes: false,
            ..
        } => Some(content.of(text)),
        _ => None,
    };
    if word.is_some_and(|w| DESCRIPTIVE.contains(&w.trim().to_ascii_lowercase().as_str())) {
        v.kind = ValueKind::Placeholder;
    }
    v
}

fn value_in(text: &str, span: Span) -> Value {
    descriptive(text, args::parse_value(text, span, ParseOptions::default()))
}

/// Cuts a remark in parentheses at the end of a value written as the rest of a line
/// (`"acme" (or your fork)`); a value that is only a parenthesis stays whole.
fn cut_remark(b: &[u8], s: Span) -> Span {
    let s = trim(b, s);
    if s.is_empty() || b[s.end - 1] != b')' {
        return s;
    }
    let mut depth = 0usize;
    let mut j = s.end;
    let floor = s.start.max(s.end.saturating_sub(512));
    while j > floor {
        j -= 1;
        match b[j] {
            b')' => depth += 1,
            b'(' => {
                depth -= 1;
                if depth == 0 {
                    let before = trim(b, Span::new(s.start, j));
                    let spaced = j > s.start && matches!(b[j - 1], b' ' | b'\t');
                    return if spaced && !before.is_empty() {
                        before
                    } else {
                        s
                    };
                }
            }
            _ => {}
        }
    }
    s
}

struct Finder<'a, T> {
    text: &'a str,
    b: &'a [u8],
    regions: &'a [Region],
    mentions: &'a [Span],
    tools: &'a T,
}

/// How a tool's parameters are introduced at the end of its line.
#[derive(Clone, Copy)]
struct Intro {
    /// `with:` (or `with parameters:`): what follows is the tool's parameters. A bare
    /// `tool:` may introduce anything, so only declared fields are taken after it.
    with: bool,
    /// Where the next line starts.
    next: usize,
}

impl<T: Tools> Finder<'_, T> {
    /// The code span whose content is exactly `m`: (offset of its opening backticks, offset
    /// after its closing ones).
    fn exact_code(&self, region: Region, m: Span) -> Option<(usize, usize)> {
        if trim(self.b, region.span) != m {
            return None;
        }
        let b = self.b;
        let mut open = region.span.start;
        while open > 0 && b[open - 1] == b'`' {
            open -= 1;
        }
        let n = region.span.start - open;
        let close = region.span.end;
        let run = b[close..].iter().take_while(|&&c| c == b'`').count();
        (n > 0 && run == n).then_some((open, close + n))
    }

    /// The code span that opens at `i` (its backticks): (its content, offset after it).
    fn code_span_at(&self, i: usize) -> Option<(Span, usize)> {
        let b = self.b;
        if b.get(i) != Some(&b'`') {
            return None;
        }
        let n = b[i..].iter().take_while(|&&c| c == b'`').count();
        let inner_start = i + n;
        let r = region_of(self.regions, Span::new(inner_start, inner_start))?;
        if !matches!(r.context, Context::InlineCode | Context::TableCode)
            || r.span.start != inner_start
        {
            return None;
        }
        let run = b[r.span.end..].iter().take_while(|&&c| c == b'`').count();
        (run == n).then_some((r.span, r.span.end + n))
    }

    /// Whether `m` is the only tool named on its line, and no other server's prefixed name
    /// is there.
    fn alone_on_line(&self, m: Span, line: Line) -> bool {
        let from = self.mentions.partition_point(|o| o.start < line.start);
        let to = self.mentions.partition_point(|o| o.start < line.end);
        if self.mentions[from..to].iter().any(|o| *o != m) {
            return false;
        }
        let before = &self.b[line.start..m.start];
        let after = &self.b[m.end.min(line.end)..line.end];
        memchr::memmem::find(before, b"mcp_").is_none()
            && memchr::memmem::find(after, b"mcp_").is_none()
    }

    /// A name in prose or in a code span of its own, `before` and `after` the bytes around
    /// it (backticks included): an introduction followed by parameters, or parameters inline.
    fn prose(&self, m: Span, before: usize, after: usize) -> Option<(Vec<Arg>, ParamForm)> {
        let line = line_at(self.b, m.start);
        if after > line.end {
            return None;
        }
        // An introduction binds the list under it to the one tool its line names; inline
        // spans are bound to the name right before them.
        if let Some(intro) = self.intro(after, line.end) {
            if !self.alone_on_line(m, line) {
                return None;
            }
            let written = m.of(self.text);
            if let Some(found) = self.block(written, intro) {
                return Some(found);
            }
            return self
                .bullets(written, intro)
                .map(|items| (items, ParamForm::Bullets));
        }
        self.inline_spans(m, before, after)
            .map(|items| (items, ParamForm::InlineSpans))
    }

    /// `with:`, `with parameters:` (`with the following arguments:`, `with these fields:`)
    /// or `:` ending the line after a tool name (bold markers allowed around it).
    fn intro(&self, after: usize, line_end: usize) -> Option<Intro> {
        let rest = self.text.get(after..line_end)?;
        let mut r = rest.trim_start_matches(['*', '_']).trim_start();
        if let Some(x) = strip_word(r, "tool") {
            r = x;
        }
        let mut with = false;
        if let Some(x) = strip_word(r, "with") {
            with = true;
            r = x;
            for w in ["the following", "these", "the"] {
                if let Some(x) = strip_word(r, w) {
                    r = x;
                    break;
                }
            }
            for w in [
                "parameters",
                "arguments",
                "params",
                "fields",
                "inputs",
                "input",
            ] {
                if let Some(x) = strip_word(r, w) {
                    r = x;
                    break;
                }
            }
        }
        let r = r.strip_prefix(':')?;
        if !r.trim_matches(['*', '_', ' ', '\t']).is_empty() {
            return None;
        }
        Some(Intro {
            with,
            next: line_at(self.b, line_end).next,
        })
    }

    /// The first non-blank line from `pos`, at most one blank line skipped.
    fn first_line(&self, pos: usize) -> Option<Line> {
        let mut pos = pos;
        for _ in 0..2 {
            if pos >= self.b.len() {
                return None;
            }
            let line = line_at(self.b, pos);
            let (_, i) = indent(self.b, line);
            if i < line.end {
                return Some(line);
            }
            pos = line.next;
        }
        None
    }

    /// Whether a key may be taken: a field name; when `declared_only`, one the tool declares.
    fn key_ok(&self, written: &str, key: Span, declared_only: bool) -> bool {
        is_name(self.b, key) && (!declared_only || self.tools.declares(written, key.of(self.text)))
    }

    /// `key: value` pairs that take all of `inner` (a code span's content, a comment's
    /// text): `method: get`, `owner: "o", repo: r`.
    fn span_pairs(&self, written: &str, inner: Span, declared_only: bool) -> Option<Vec<Arg>> {
        let inner = trim(self.b, inner);
        if inner.is_empty() {
            return None;
        }
        let parsed = args::parse_yaml(self.text, &[inner], ParseOptions::default());
        if parsed.items.is_empty() || parsed.close != Some(inner.end - 1) {
            return None;
        }
        let mut out = Vec::new();
        for a in parsed.items {
            let ArgKind::Pair { name, value } = a.kind else {
                return None;
            };
            if !self.key_ok(written, name, declared_only) {
                return None;
            }
            out.push(pair(name, descriptive(self.text, value)));
        }
        Some(out)
    }

    /// After an introduction: a fenced block holding a JSON object, YAML `key: value` lines
    /// or names. Only after `with:`: a bare `tool:` block is as often an example of output.
    fn block(&self, written: &str, intro: Intro) -> Option<(Vec<Arg>, ParamForm)> {
        if !intro.with {
            return None;
        }
        let line = self.first_line(intro.next)?;
        let (_, i) = indent(self.b, line);
        if !matches!(self.b[i], b'`' | b'~') {
            return None;
        }
        let at = self.regions.partition_point(|r| r.span.start < line.next);
        let region = self
            .regions
            .get(at)
            .filter(|r| r.context == Context::FencedCode && r.span.start == line.next)?;
        let content = trim(self.b, region.span);
        if content.is_empty() {
            return None;
        }
        if self.b[content.start] == b'{' {
            // A JSON tool call (`"name"` and `"arguments"`) is read as one elsewhere.
            if !forms::json_calls(self.text, region.span).is_empty() {
                return None;
            }
            let opts = ParseOptions {
                comments: true,
                ..ParseOptions::default()
            };
            let object = args::parse_object(self.text, content.start, region.span.end, opts);
            if object.outcome != Outcome::Closed || object.close != Some(content.end - 1) {
                return None;
            }
            let mut items = Vec::new();
            for a in object.items {
                match a.kind {
                    ArgKind::Pair { name, value } if is_name(self.b, name) => {
                        items.push(pair(name, descriptive(self.text, value)));
                    }
                    // A spread or a shorthand member: the object is code, not parameters.
                    _ => return None,
                }
            }
            return (!items.is_empty()).then_some((items, ParamForm::Block));
        }
        // YAML lines, or lines of names; every line must be one or the other.
        let mut yaml = Vec::new();
        let mut names = Vec::new();
        let mut pos = region.span.start;
        let mut n = 0;
        while pos < region.span.end && n < MAX_LINES {
            n += 1;
            let l = line_at(self.b, pos);
            pos = l.next;
            let l_span = trim(self.b, Span::new(l.start, l.end.min(region.span.end)));
            if l_span.is_empty() {
                continue;
            }
            if names.is_empty()
                && let Some(p) = self.span_pairs(written, l_span, false)
            {
                yaml.extend(p);
                continue;
            }
            if yaml.is_empty()
                && let Some(p) = self.name_list(l_span)
            {
                names.extend(p);
                continue;
            }
            return None;
        }
        if !yaml.is_empty() {
            return Some((yaml, ParamForm::Block));
        }
        (!names.is_empty()).then_some((names, ParamForm::NamesBlock))
    }

    /// `owner, repo, issue_number (required)`: names separated by commas, a remark in
    /// parentheses at the end allowed.
    fn name_list(&self, s: Span) -> Option<Vec<Arg>> {
        let b = self.b;
        let s = cut_remark(b, s);
        let mut out = Vec::new();
        let mut i = s.start;
        loop {
            i = skip_spaces(b, i, s.end);
            if i >= s.end || !args::is_name_start(b[i]) || b[i].is_ascii_uppercase() {
                return None;
            }
            let e = args::name_end(b, i, s.end);
            out.push(name_only(Span::new(i, e)));
            i = skip_spaces(b, e, s.end);
            if i >= s.end {
                return Some(out);
            }
            if b[i] != b',' {
                return None;
            }
            i += 1;
        }
    }

    /// After an introduction: list items of `key: value` pairs.
    fn bullets(&self, written: &str, intro: Intro) -> Option<Vec<Arg>> {
        let b = self.b;
        let first = self.first_line(intro.next)?;
        let mut pos = first.start;
        let mut item_indent = None;
        let mut items = Vec::new();
        for _ in 0..MAX_LINES {
            if pos >= b.len() {
                break;
            }
            let line = line_at(b, pos);
            pos = line.next;
            let (ind, i) = indent(b, line);
            if i >= line.end {
                break;
            }
            let Some(width) = list_marker(b, i, line.end) else {
                // A line continuing the item above.
                if item_indent.is_some_and(|fi| ind > fi) {
                    continue;
                }
                break;
            };
            match item_indent {
                None => item_indent = Some(ind),
                Some(fi) if ind > fi => continue,
                Some(fi) if ind < fi => break,
                _ => {}
            }
            match self.item_pairs(written, Span::new(i + width, line.end), !intro.with) {
                Some(p) => items.extend(p),
                None => break,
            }
        }
        (!items.is_empty()).then_some(items)
    }

    /// The pairs of one list item: `key: value`, `` `key`: value ``, `` key: `value` ``,
    /// `` base: `main`, head: `x` `` or `` `key: value` (a remark) ``; `None` when the item
    /// is not one (an item `key:` with no value is, with no pair to check).
    fn item_pairs(&self, written: &str, content: Span, declared_only: bool) -> Option<Vec<Arg>> {
        let b = self.b;
        let end = content.end;
        let mut out = Vec::new();
        let mut keyed = false;
        let mut i = content.start;
        loop {
            if i >= end {
                break;
            }
            let key;
            if b[i] == b'`' {
                let Some((inner, after)) = self.code_span_at(i) else {
                    break;
                };
                if let Some(p) = self.span_pairs(written, inner, declared_only) {
                    // What follows the span is a remark.
                    out.extend(p);
                    break;
                }
                let k = trim(b, inner);
                if after < end && b[after] == b':' && self.key_ok(written, k, declared_only) {
                    key = k;
                    i = after + 1;
                } else {
                    break;
                }
            } else {
                if !(b[i].is_ascii_lowercase() || b[i] == b'_') {
                    break;
                }
                let e = args::name_end(b, i, end);
                let k = Span::new(i, e);
                let colon =
                    e < end && b[e] == b':' && (e + 1 == end || matches!(b[e + 1], b' ' | b'\t'));
                if !colon || !self.key_ok(written, k, declared_only) {
                    break;
                }
                key = k;
                i = e + 1;
            }
            keyed = true;
            i = skip_spaces(b, i, end);
            if i >= end {
                // `key:` with nothing after it: no value to check.
                break;
            }
            if b[i] == b'`'
                && let Some((inner, after)) = self.code_span_at(i)
            {
                out.push(pair(key, value_in(self.text, inner)));
                i = skip_spaces(b, after, end);
                if i < end && b[i] == b',' {
                    i = skip_spaces(b, i + 1, end);
                    continue;
                }
                break;
            }
            let v = cut_remark(b, Span::new(i, end));
            out.push(pair(key, value_in(self.text, v)));
            break;
        }
        (keyed || !out.is_empty()).then_some(out)
    }

    /// Parameters right after the name: ` (`key: value`, key `value`)`, ` with `key: value``,
    /// or the name first in a parenthesis: ``(`tool`, `key: value`)``.
    fn inline_spans(&self, m: Span, before: usize, after: usize) -> Option<Vec<Arg>> {
        let b = self.b;
        let written = m.of(self.text);
        let bound = self.paragraph_end(after);
        let mut i = skip_spaces(b, after, bound);
        if i < bound && b[i] == b'(' {
            i += 1;
        } else if self
            .text
            .get(i..bound)
            .is_some_and(|r| r.starts_with("with "))
        {
            i += 5;
        } else if before > 0 && b[before - 1] == b'(' && i < bound && b[i] == b',' {
            i += 1;
        } else {
            return None;
        }
        let mut out = Vec::new();
        loop {
            i = skip_ws(b, i, bound);
            if i >= bound {
                break;
            }
            if b[i] == b'`' {
                let Some((inner, next)) = self.code_span_at(i) else {
                    break;
                };
                let Some(p) = self.span_pairs(written, inner, false) else {
                    break;
                };
                out.extend(p);
                i = next;
            } else if args::is_name_start(b[i]) {
                // `method `get``: the key is a word of prose, so it must be a field.
                let e = args::name_end(b, i, bound);
                let key = Span::new(i, e);
                if e >= bound || b[e] != b' ' || !self.key_ok(written, key, true) {
                    break;
                }
                let Some((inner, next)) = self.code_span_at(e + 1) else {
                    break;
                };
                out.push(pair(key, value_in(self.text, inner)));
                i = next;
            } else {
                break;
            }
            let Some(next) = self.item_separator(i, bound) else {
                break;
            };
            i = next;
        }
        (!out.is_empty()).then_some(out)
    }

    /// The end of the rest of the paragraph from `after`: up to a blank line, a list item
    /// or a heading, at most 1 KiB.
    fn paragraph_end(&self, after: usize) -> usize {
        let b = self.b;
        let mut bound = b.len().min(after + 1024);
        let mut k = after;
        while let Some(nl) = memchr::memchr(b'\n', &b[k..bound]).map(|x| k + x) {
            let next = line_at(b, nl + 1);
            let (_, j) = indent(b, next);
            if nl + 1 >= b.len()
                || j >= next.end
                || b[j] == b'#'
                || list_marker(b, j, next.end).is_some()
            {
                bound = nl;
                break;
            }
            k = nl + 1;
        }
        bound
    }

    /// Where the next inline item starts after the one ending at `i`, when a separator
    /// follows it: `, `, ` and ` or `, and `.
    fn item_separator(&self, i: usize, bound: usize) -> Option<usize> {
        let b = self.b;
        let mut i = skip_ws(b, i, bound);
        let mut separated = false;
        if i < bound && b[i] == b',' {
            i = skip_ws(b, i + 1, bound);
            separated = true;
        }
        if self
            .text
            .get(i..bound)
            .is_some_and(|r| r.starts_with("and "))
        {
            i += 4;
            separated = true;
        }
        separated.then_some(i)
    }

    /// The comment marker (`#`, `//`) a line of code starts with, and where it is.
    fn comment_marker(&self, line: Line) -> Option<(&'static [u8], usize)> {
        let b = self.b;
        let (_, i) = indent(b, line);
        let rest = &b[i..line.end];
        if rest.starts_with(b"//") {
            Some((b"//", i))
        } else if rest.starts_with(b"#") && !rest.starts_with(b"#!") {
            Some((b"#", i))
        } else {
            None
        }
    }

    /// The last word of a comment line, before `with:` or `:` (`# Use issue_list with:`).
    fn comment_tail_name(&self, line: Line) -> Option<Span> {
        let b = self.b;
        let (marker, i) = self.comment_marker(line)?;
        let floor = i + marker.len();
        let mut e = trim(b, Span::new(floor, line.end)).end;
        if e > floor && b[e - 1] == b':' {
            e = trim(b, Span::new(floor, e - 1)).end;
            if e >= floor + 5 && b[e - 4..e].eq_ignore_ascii_case(b"with") && b[e - 5] == b' ' {
                e = trim(b, Span::new(floor, e - 4)).end;
            }
        }
        let mut s = e;
        while s > floor && forms::is_tool_byte(b[s - 1]) {
            s -= 1;
        }
        (s < e && args::is_name_start(b[s]) && matches!(b[s - 1], b' ' | b'\t' | b'#' | b'/'))
            .then_some(Span::new(s, e))
    }

    /// Whether a word of `line` other than `m` is a tool: a comment naming two tools
    /// introduces neither.
    fn other_tool_on_line(&self, m: Span, line: Line) -> bool {
        let b = self.b;
        let mut i = line.start;
        while i < line.end {
            if !forms::is_tool_byte(b[i]) {
                i += 1;
                continue;
            }
            let s = i;
            while i < line.end && forms::is_tool_byte(b[i]) {
                i += 1;
            }
            let word = Span::new(s, i);
            if word != m && self.tools.is_tool(word.of(self.text)) {
                return true;
            }
        }
        false
    }

    /// A name in a comment line of a code block (`# Use tool`, `// call tool with:`) and
    /// the `key: value` comment lines right under it.
    fn comment_lines(&self, m: Span) -> Option<Vec<Arg>> {
        let b = self.b;
        let line = line_at(b, m.start);
        if !self.alone_on_line(m, line) || self.other_tool_on_line(m, line) {
            return None;
        }
        let (ind, _) = indent(b, line);
        let (marker, i) = self.comment_marker(line)?;
        if m.start < i + marker.len() {
            return None;
        }
        let rest = self.text.get(m.end..line.end)?.trim();
        let introduced = match rest {
            "" => false,
            ":" | "with:" => true,
            _ => return None,
        };
        let written = m.of(self.text);
        let mut items = Vec::new();
        let mut pos = line.next;
        for _ in 0..MAX_LINES {
            if pos >= b.len() {
                break;
            }
            let l = line_at(b, pos);
            pos = l.next;
            let (lind, j) = indent(b, l);
            if lind != ind || !b[j..l.end].starts_with(marker) {
                break;
            }
            let content = Span::new(j + marker.len(), l.end);
            let c = trim(b, content);
            if c.is_empty() || !(b[c.start].is_ascii_lowercase() || b[c.start] == b'_') {
                break;
            }
            match self.span_pairs(written, c, !introduced) {
                Some(p) => items.extend(p),
                None => break,
            }
        }
        (!items.is_empty()).then_some(items)
    }

    /// `<tool>name</tool>` alone on its line, and the `<key>value</key>` lines beside it
    /// (same indentation, up to the parent's end) whose key the tool declares.
    fn sibling_tags(&self, tag: Span) -> Option<Vec<Arg>> {
        let b = self.b;
        let text = self.text;
        let line = line_at(b, tag.start);
        let (ind, i) = indent(b, line);
        let whole = text.get(i..line.end)?.trim_end();
        let closes = whole.ends_with("</tool>") || whole.ends_with("</tool_name>");
        if !whole.starts_with("<tool") || !closes {
            return None;
        }
        let written = tag.of(text);
        if !self.tools.is_tool(written) {
            return None;
        }
        let mut items = Vec::new();
        let mut pos = line.next;
        // Siblings opened on a line of their own (`<number>` with children under it), whose
        // closing tags are theirs, not the parent's.
        let mut open: Vec<&[u8]> = Vec::new();
        for _ in 0..MAX_LINES {
            if pos >= b.len() {
                break;
            }
            let l = line_at(b, pos);
            pos = l.next;
            let (lind, j) = indent(b, l);
            if j >= l.end || lind < ind {
                break;
            }
            if lind > ind {
                continue;
            }
            let line_text = trim(b, Span::new(j, l.end));
            let lb = &b[line_text.start..line_text.end];
            if let Some(name) = lb.strip_prefix(b"</") {
                let name = name.strip_suffix(b">").unwrap_or(name);
                if open.last() == Some(&name) {
                    open.pop();
                    continue;
                }
                // The parent's end.
                break;
            }
            let Some((key, value)) = element(b, line_text) else {
                if let Some(rest) = lb.strip_prefix(b"<") {
                    let n = args::name_end(rest, 0, rest.len());
                    if n > 0 && !lb.ends_with(b"/>") {
                        open.push(&rest[..n]);
                    }
                }
                continue;
            };
            if self.key_ok(written, key, true) {
                items.push(pair(key, value_in(text, value)));
            }
        }
        (!items.is_empty()).then_some(items)
    }

    /// A tool in a table row, and the names in the cell of the column whose header says
    /// parameters (`| Tool | Purpose | Parameters |`).
    fn table_names(&self, m: Span) -> Option<Vec<Arg>> {
        let b = self.b;
        let text = self.text;
        let row = line_at(b, m.start);
        if !self.alone_on_line(m, row) {
            return None;
        }
        // Up to the delimiter row, and the header above it.
        let mut pos = row.start;
        let mut header = None;
        for _ in 0..256 {
            if pos == 0 || row.start - pos > 64 * 1024 {
                break;
            }
            let l = line_at(b, pos - 1);
            let span = Span::new(l.start, l.end);
            if !span.of(text).contains('|') {
                break;
            }
            if scan::delimiter_row(text, span).is_some() {
                if l.start > 0 {
                    let h = line_at(b, l.start - 1);
                    header = Some(Span::new(h.start, h.end));
                }
                break;
            }
            pos = l.start;
        }
        let header = scan::cells(text, header?);
        let params: Vec<usize> = header
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                let h = c.of(text).to_ascii_lowercase();
                h.contains("param") || h.contains("argument") || h.contains("input")
            })
            .map(|(k, _)| k)
            .collect();
        let [col] = params.as_slice() else {
            return None;
        };
        let cells = scan::cells(text, Span::new(row.start, row.end));
        let own = cells
            .iter()
            .position(|c| c.start <= m.start && m.end <= c.end)?;
        if own == *col {
            return None;
        }
        let cell = trim(b, *cells.get(*col)?);
        let mut out = Vec::new();
        let mut i = cell.start;
        while i < cell.end {
            let (inner, next) = self.code_span_at(i)?;
            let name = trim(b, inner);
            if !is_name(b, name) {
                return None;
            }
            out.push(name_only(name));
            i = skip_spaces(b, next, cell.end);
            if i < cell.end {
                if b[i] != b',' {
                    return None;
                }
                i = skip_spaces(b, i + 1, cell.end);
            }
        }
        (!out.is_empty()).then_some(out)
    }
}

/// `<key>value</key>` taking all of `s`: (the key, the value's span). A value holding a
/// tag is not one (`<a><b>x</b></a>`), a placeholder (`<owner>`) is.
fn element(b: &[u8], s: Span) -> Option<(Span, Span)> {
    let s = trim(b, s);
    if s.is_empty() || b[s.start] != b'<' {
        return None;
    }
    let key = Span::new(s.start + 1, args::name_end(b, s.start + 1, s.end));
    if key.is_empty() || b.get(key.end) != Some(&b'>') {
        return None;
    }
    let name = &b[key.start..key.end];
    let close_len = name.len() + 3;
    let value_start = key.end + 1;
    if s.end < value_start + close_len {
        return None;
    }
    let close_at = s.end - close_len;
    let tail = &b[close_at..s.end];
    if !(tail.starts_with(b"</") && &tail[2..2 + name.len()] == name && tail.ends_with(b">")) {
        return None;
    }
    let value = Span::new(value_start, close_at);
    let v = b[value.start..value.end].trim_ascii();
    let placeholder = v.len() >= 2
        && v[0] == b'<'
        && v[v.len() - 1] == b'>'
        && !v[1..v.len() - 1].contains(&b'<');
    if v.contains(&b'<') && !placeholder {
        return None;
    }
    Some((key, value))
}

/// Skips spaces, tabs and line breaks (a paragraph's own, not a blank line: the caller
/// bounds it).
fn skip_ws(b: &[u8], mut i: usize, end: usize) -> usize {
    while i < end && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// `s` without a leading `word` (ASCII case-insensitive, a whole word), and the white space
/// after it.
fn strip_word<'s>(s: &'s str, word: &str) -> Option<&'s str> {
    let head = s.get(..word.len())?;
    if !head.eq_ignore_ascii_case(word) {
        return None;
    }
    let rest = &s[word.len()..];
    if rest
        .bytes()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
    {
        return None;
    }
    Some(rest.trim_start())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two tools, `issue_read` and `issue_list`, also written behind `mcp__t__`.
    struct Two;

    fn strip(written: &str) -> &str {
        written.strip_prefix("mcp__t__").unwrap_or(written)
    }

    impl Tools for Two {
        fn is_tool(&self, written: &str) -> bool {
            matches!(strip(written), "issue_read" | "issue_list")
        }
        fn declares(&self, written: &str, field: &str) -> bool {
            match strip(written) {
                "issue_read" => matches!(field, "method" | "repo" | "number"),
                "issue_list" => matches!(field, "repo" | "state" | "labels" | "limit"),
                _ => false,
            }
        }
    }

    /// The mentions the lint would give: code spans holding only a tool name, and prefixed
    /// names anywhere.
    fn mentions(text: &str, regions: &[Region]) -> Vec<Span> {
        let mut out = Vec::new();
        for r in regions {
            let t = trim(text.as_bytes(), r.span);
            if matches!(r.context, Context::InlineCode | Context::TableCode)
                && Two.is_tool(t.of(text))
                && !t.of(text).starts_with("mcp__")
            {
                out.push(t);
            }
        }
        for (i, _) in text.match_indices("mcp__t__") {
            let e = text[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(text.len(), |n| i + n);
            out.push(Span::new(i, e));
        }
        out.sort_unstable();
        out
    }

    /// (form, tool as written, [(key, value as written, value kind)]) of every attachment.
    #[allow(clippy::type_complexity)]
    fn found(text: &str) -> Vec<(ParamForm, String, Vec<(String, String, &'static str)>)> {
        let regions = scan::regions(text, 0);
        let m = mentions(text, &regions);
        attached(text, 0, &regions, &m, &Two)
            .into_iter()
            .map(|a| {
                let pairs = a
                    .args
                    .pairs()
                    .map(|(k, v)| {
                        let kind = match v.kind {
                            ValueKind::Str { .. } => "str",
                            ValueKind::Number { .. } => "num",
                            ValueKind::Plain => "plain",
                            ValueKind::Placeholder => "ph",
                            ValueKind::Array => "array",
                            ValueKind::Object => "object",
                            ValueKind::Expr => "expr",
                            _ => "other",
                        };
                        (k.of(text).to_string(), v.span.of(text).to_string(), kind)
                    })
                    .collect();
                (a.form, a.tool.of(text).to_string(), pairs)
            })
            .collect()
    }

    fn kv(k: &str, v: &str, kind: &'static str) -> (String, String, &'static str) {
        (k.to_string(), v.to_string(), kind)
    }

    /// What [`found`] gives for the parameters `pairs` of `tool` written in `form`.
    fn found_as(
        form: ParamForm,
        tool: &str,
        pairs: Vec<(String, String, &'static str)>,
    ) -> (ParamForm, String, Vec<(String, String, &'static str)>) {
        (form, tool.to_string(), pairs)
    }

    #[test]
    fn bullets_after_with_and_after_a_bare_colon() {
        let text = "Use `issue_list` with:\n- repo: `\"a/b\"`\n- `state`: open\n- limit: 3 (at most)\n- labels: [x], or more\n- note: anything\n\nmcp__t__issue_read:\n\n- method: get\n- purpose: a remark\n- repo: never read\n";
        assert_eq!(
            found(text),
            [
                found_as(
                    ParamForm::Bullets,
                    "issue_list",
                    vec![
                        kv("repo", "\"a/b\"", "str"),
                        kv("state", "open", "plain"),
                        kv("limit", "3", "num"),
                        kv("labels", "[x], or more", "expr"),
                        kv("note", "anything", "plain"),
                    ]
                ),
                found_as(
                    ParamForm::Bullets,
                    "mcp__t__issue_read",
                    vec![kv("method", "get", "plain")]
                ),
            ]
        );
    }

    #[test]
    fn bullets_need_one_tool_and_a_list_right_after() {
        for text in [
            "Use `issue_list` or `issue_read` with:\n- state: open\n",
            "Use `issue_list` with:\n\n\n- state: open\n",
            "Use `issue_list` with care:\n- state: open\n",
            "Use `issue_list` with:\nSome prose.\n- state: open\n",
            "Use `issue_list` with:\n- State: open\n",
            "Use `mcp__other__x` or `issue_list` with:\n- state: open\n",
        ] {
            assert_eq!(found(text), [], "{text}");
        }
        // `- key:` with nothing after it gives nothing to check; the next item still counts.
        let text = "Use `issue_list` with:\n- repo:\n- state: `OPEN`, limit: 2\n";
        assert_eq!(
            found(text)[0].2,
            [kv("state", "OPEN", "ph"), kv("limit", "2", "num")]
        );
    }

    #[test]
    fn inline_spans_beside_a_name() {
        let text = "Read it with `issue_read` (`method: get`, `number: 2`) first.\n\nThen (`mcp__t__issue_list`, `state: \"OPEN\"`) and `issue_list` with `limit: 5` and `state: closed`, then more.\n\nAlso `issue_read` (method `get_comments`, see `repo`).\n\nBut `issue_read` (see `repo` below) and `issue_list` (`owner: string`).\n";
        assert_eq!(
            found(text),
            [
                found_as(
                    ParamForm::InlineSpans,
                    "issue_read",
                    vec![kv("method", "get", "plain"), kv("number", "2", "num")]
                ),
                found_as(
                    ParamForm::InlineSpans,
                    "mcp__t__issue_list",
                    vec![kv("state", "\"OPEN\"", "str")]
                ),
                found_as(
                    ParamForm::InlineSpans,
                    "issue_list",
                    vec![kv("limit", "5", "num"), kv("state", "closed", "plain")]
                ),
                found_as(
                    ParamForm::InlineSpans,
                    "issue_read",
                    vec![kv("method", "get_comments", "plain")]
                ),
                // `see` is not a field of `issue_read`: nothing; a type is a placeholder.
                found_as(
                    ParamForm::InlineSpans,
                    "issue_list",
                    vec![kv("owner", "string", "ph")]
                ),
            ]
        );
    }

    #[test]
    fn inline_spans_with_a_descriptive_value_are_placeholders() {
        let text = "Call `issue_list` (`state: string`, `limit: integer`).\n";
        assert_eq!(
            found(text)[0].2,
            [kv("state", "string", "ph"), kv("limit", "integer", "ph")]
        );
    }

    #[test]
    fn fenced_blocks_after_with() {
        let text = "Call `issue_list` with:\n\n```json\n{\"repo\": \"a/b\", \"limit\": \"3\"}\n```\n\nCall `issue_read` with these fields:\n```\nmethod, repo (required)\nnumber\n```\n\nCall `issue_read` with:\n```yaml\nmethod: get\nnumber: 1.5\n```\n";
        let got = found(text);
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0].0, ParamForm::Block);
        assert_eq!(
            got[0].2,
            [kv("repo", "\"a/b\"", "str"), kv("limit", "\"3\"", "str")]
        );
        assert_eq!(got[1].0, ParamForm::NamesBlock);
        let names: Vec<&str> = got[1].2.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(names, ["method", "repo", "number"]);
        assert!(got[1].2.iter().all(|p| p.1.is_empty() && p.2 == "ph"));
        assert_eq!(
            got[2].2,
            [kv("method", "get", "plain"), kv("number", "1.5", "num")]
        );
        // A bare `tool:` before a block may show its output; a tool call is read elsewhere;
        // a block of something else is not parameters.
        for text in [
            "`issue_list`:\n```json\n{\"items\": []}\n```\n",
            "Call `issue_read` with:\n```json\n{\"name\": \"issue_read\", \"arguments\": {}}\n```\n",
            "Call `issue_read` with:\n```bash\ngit fetch origin && make\n```\n",
            "Call `issue_read` with:\n```js\n{ ...defaults, method }\n```\n",
        ] {
            assert_eq!(found(text), [], "{text}");
        }
    }

    #[test]
    fn sibling_tags_take_declared_fields_only() {
        let text = "<step>\n  <tool>mcp__t__issue_read</tool>\n  <purpose>why</purpose>\n  <method>get</method>\n  <number>\n    <from>x</from>\n  </number>\n  <repo><owner></repo>\n  <number>2</number>\n</step>\n<method>never</method>\n";
        assert_eq!(
            found(text),
            [found_as(
                ParamForm::SiblingTags,
                "mcp__t__issue_read",
                vec![
                    kv("method", "get", "plain"),
                    kv("repo", "<owner>", "ph"),
                    kv("number", "2", "num")
                ]
            )]
        );
        // The tag must be alone on its line.
        assert_eq!(
            found("<tool>issue_read</tool> <method>get</method>\n<method>x</method>\n"),
            []
        );
    }

    #[test]
    fn comment_lines_in_code() {
        let text = "```sh\n# Use issue_list with:\n# repo: $REPO\n# colour: red\n# state: open\nrun\n\n  // then mcp__t__issue_read\n  // method: get\n  // colour: red\n  // number: 3\n# issue_list and issue_read\n# state: open\n```\n";
        assert_eq!(
            found(text),
            [
                found_as(
                    ParamForm::CommentLines,
                    "mcp__t__issue_read",
                    vec![kv("method", "get", "plain")]
                ),
                found_as(
                    ParamForm::CommentLines,
                    "issue_list",
                    vec![
                        kv("repo", "$REPO", "expr"),
                        kv("colour", "red", "plain"),
                        kv("state", "open", "plain")
                    ]
                ),
            ]
        );
    }

    #[test]
    fn a_table_column_of_parameters() {
        let text = "| Tool | Does | Parameters |\n|---|---|---|\n| `issue_list` | lists | `repo`, `page` |\n| `issue_read` | reads | `method` (always) |\n\n| Tool | Returns |\n|---|---|\n| `issue_list` | `items` |\n";
        let got = found(text);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, ParamForm::Names);
        let names: Vec<&str> = got[0].2.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(names, ["repo", "page"]);
    }

    #[test]
    fn spans_are_exact() {
        let text = "Use `issue_list` with:\n- state: `\"x\"`\n";
        let regions = scan::regions(text, 0);
        let m = mentions(text, &regions);
        let a = attached(text, 0, &regions, &m, &Two);
        let (k, v) = a[0].args.pairs().next().unwrap();
        assert_eq!(k, Span::new(25, 30));
        assert_eq!(v.span, Span::new(33, 36));
        assert_eq!(a[0].args.close, Some(35));
        assert_eq!(a[0].tool, Span::new(5, 15));
    }

    #[test]
    fn bounded_on_hostile_input() {
        let mut text = String::new();
        for _ in 0..5_000 {
            text.push_str("Use `issue_list` with:\n- state: `open` (");
        }
        text.push_str(&"`issue_read` (`a: b`, ".repeat(5_000));
        text.push_str(&"<tool>issue_read</tool>\n".repeat(5_000));
        // One long line of names, and a long comment line.
        text.push_str(&"`issue_list` with:".repeat(20_000));
        text.push_str("\n```\n# ");
        text.push_str(&"issue_list ".repeat(20_000));
        text.push_str("\n```\n");
        let t = std::time::Instant::now();
        let _ = found(&text);
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
    }
}
