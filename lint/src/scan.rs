//! Where calls can be: the Markdown structure of a skill file, as far as the lint needs it.
//!
//! A full CommonMark parse costs about 2.2 times what ripgrep needs to search the same files
//! (DESIGN.md), so this module does the least that tells where a call sits: one pass over the
//! lines finds front matter, fenced and indented code blocks, tables and paragraphs; code
//! spans are paired only inside paragraphs, with CommonMark's rule (a run of N backticks
//! closes at the next run of exactly N). The result is a list of [`Region`]s; a test compares
//! it with pulldown-cmark on the fixtures and the real corpus.
//!
//! Finding candidates is a separate, cheaper pass ([`candidates`]): every `(` preceded by a
//! name. Files without one never get their structure computed.

use crate::args::{is_name_byte, is_name_start, name_end};
use crate::text::Span;

/// The Markdown context of a piece of text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Context {
    /// A string of the YAML front matter.
    FrontMatter,
    /// Inside a fenced code block.
    FencedCode,
    /// Inside an indented code block.
    IndentedCode,
    /// Inside a code span.
    InlineCode,
    /// Inside a code span in a table cell.
    TableCode,
    /// Text of a table cell.
    TableCell,
    /// Text of a paragraph, heading or list item.
    Prose,
}

impl Context {
    /// Whether text here is written as code.
    pub fn is_code(self) -> bool {
        matches!(
            self,
            Context::FencedCode | Context::IndentedCode | Context::InlineCode | Context::TableCode
        )
    }

    /// Whether text here is in a table cell (where `\|` is an escaped pipe).
    pub fn in_table(self) -> bool {
        matches!(self, Context::TableCode | Context::TableCell)
    }

    /// Whether text here is in a code block (where `#` comments make sense).
    pub fn is_block_code(self) -> bool {
        matches!(self, Context::FencedCode | Context::IndentedCode)
    }

    /// A short name, for tests and debugging.
    pub fn name(self) -> &'static str {
        match self {
            Context::FrontMatter => "front-matter",
            Context::FencedCode => "fenced-code",
            Context::IndentedCode => "indented-code",
            Context::InlineCode => "inline-code",
            Context::TableCode => "table-code",
            Context::TableCell => "table-cell",
            Context::Prose => "prose",
        }
    }
}

/// A stretch of text in one context. A call must start and end inside one region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// The bytes.
    pub span: Span,
    /// Where they are.
    pub context: Context,
}

/// The front matter block: `---` on the first line, up to a line `---` or `...`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrontMatter {
    /// The YAML text between the two fence lines.
    pub yaml: Span,
    /// Where the Markdown body starts.
    pub body_start: usize,
}

/// Finds the front matter, after an optional UTF-8 byte order mark.
pub fn front_matter(text: &str) -> Option<FrontMatter> {
    let start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let rest = text.get(start..)?;
    let first_end = rest.find('\n')?;
    if rest[..first_end].trim_end() != "---" {
        return None;
    }
    let yaml_start = start + first_end + 1;
    let mut pos = yaml_start;
    while pos < text.len() {
        let line_end =
            memchr::memchr(b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |i| pos + i);
        let line = text[pos..line_end].trim_end();
        if line == "---" || line == "..." {
            return Some(FrontMatter {
                yaml: Span::new(yaml_start, pos),
                body_start: (line_end + 1).min(text.len()),
            });
        }
        pos = line_end + 1;
    }
    None
}

/// A `name(` found by the pre-filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The name.
    pub name: Span,
    /// The offset of `(`.
    pub open: usize,
    /// Whether a `.`, `:`, `>`, `$` or `@` comes right before the name (a method, a path).
    pub qualified: bool,
    /// The word before the name on its line, when it is a definition keyword (`def`, `fn`).
    pub after_keyword: bool,
    /// Whether white space separates the name from `(`.
    pub spaced: bool,
}

/// Finds every `name(` and `name (` in `range` of `text` for which `keep(name, open)` says
/// yes. `keep` sees the name and the offset of the `(`, so it can look ahead cheaply.
pub fn candidates(
    text: &str,
    range: Span,
    keep: impl FnMut(&str, usize) -> bool,
) -> Vec<Candidate> {
    candidates_before(text, range, b'(', keep)
}

/// [`is_name_byte`] as a table, for the loops that run for every `(` of a file: 0 for other
/// bytes, 1 for letters, digits and `_`, 3 for `-`.
static NAME_BYTE: [u8; 256] = {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || c == b'_' {
            t[b] = 1;
        } else if c == b'-' {
            t[b] = 3;
        }
        b += 1;
    }
    t
};

/// A name byte other than `-`: ASCII letters, digits and `_`.
static WORD_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    t
};

/// Like [`candidates`], for every name before an `opener` byte: `(` for calls, `{` for
/// object-style calls (`create_issue { title: "x" }`).
pub fn candidates_before(
    text: &str,
    range: Span,
    opener: u8,
    mut keep: impl FnMut(&str, usize) -> bool,
) -> Vec<Candidate> {
    let bytes = text.as_bytes();
    let end = range.end.min(bytes.len());
    let start = range.start.min(end);
    let mut out = Vec::new();
    for open in memchr::memchr_iter(opener, &bytes[start..end]).map(|i| start + i) {
        let mut i = open;
        // At most two spaces or tabs between the name and `(`.
        let mut spaces = 0;
        while i > start && matches!(bytes[i - 1], b' ' | b'\t') && spaces < 2 {
            i -= 1;
            spaces += 1;
        }
        let name_stop = i;
        // One backward pass over the name bytes (at most 128), noting a `-`: this loop runs
        // for every `(` of every file, so it tests bytes with a table (1 for a name byte, 3
        // for `-`).
        let floor = start.max(name_stop.saturating_sub(128));
        let mut seen = 0u8;
        while i > floor {
            let t = NAME_BYTE[usize::from(bytes[i - 1])];
            if t == 0 {
                break;
            }
            seen |= t;
            i -= 1;
        }
        let dash = seen & 2 != 0;
        // A name starts with a letter or `_` (never a digit or `-`), right after a byte that
        // is not a name byte: `9x(` and `-g(` are not names, nor the end of a longer one.
        if i >= name_stop
            || !is_name_start(bytes[i])
            || (i > start && is_name_byte(bytes[i - 1]))
            || (dash && name_end(bytes, i, name_stop) != name_stop)
        {
            continue;
        }
        let name = &text[i..name_stop];
        if !keep(name, open) {
            continue;
        }
        let qualified = i > start && matches!(bytes[i - 1], b'.' | b':' | b'>' | b'$' | b'@');
        if out.is_empty() {
            out.reserve(16);
        }
        out.push(Candidate {
            name: Span::new(i, name_stop),
            open,
            qualified,
            after_keyword: after_keyword(bytes, start, i),
            spaced: spaces > 0,
        });
    }
    out
}

#[inline]
fn after_keyword(bytes: &[u8], floor: usize, name_start: usize) -> bool {
    let mut j = name_start;
    let mut saw_space = false;
    while j > floor && matches!(bytes[j - 1], b' ' | b'\t') {
        j -= 1;
        saw_space = true;
    }
    if !saw_space {
        return false;
    }
    let word_end = j;
    // The keywords are 2 to 9 bytes long: a longer word is none of them.
    while j > floor && is_name_byte(bytes[j - 1]) && word_end - j < 10 {
        j -= 1;
    }
    // By length first: this runs for every candidate written after white space.
    let word = &bytes[j..word_end];
    match word.len() {
        2 => word == b"fn",
        3 => matches!(word, b"def" | b"new" | b"sub" | b"mod"),
        4 => matches!(word, b"func" | b"impl" | b"enum"),
        5 => matches!(word, b"class" | b"macro" | b"trait"),
        6 => word == b"struct",
        8 => word == b"function",
        9 => matches!(word, b"interface" | b"namespace"),
        _ => false,
    }
}

/// Whether an unknown name's `(` is followed by `name=` (after white space): the cheap test
/// that lets the pre-filter skip most code samples.
pub fn pair_follows(text: &str, open: usize) -> bool {
    let bytes = text.as_bytes();
    let mut i = open + 1;
    let stop = bytes.len().min(open + 256);
    while i < stop && matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    if i >= stop || !is_name_start(bytes[i]) {
        return false;
    }
    // The name's letters, digits and `_` by table (this runs for most `(` of a file); a `-`
    // after them is left to `name_end`, which knows where a name may hold one.
    while i < stop && WORD_BYTE[usize::from(bytes[i])] {
        i += 1;
    }
    if i < stop && bytes[i] == b'-' {
        i = name_end(bytes, i, stop);
    }
    while i < stop && matches!(bytes[i], b' ' | b'\t') {
        i += 1;
    }
    i < stop && bytes[i] == b'=' && bytes.get(i + 1) != Some(&b'=')
}

// ---- Block structure ----

struct Line {
    start: usize,
    /// End of the content, before `\r\n` or `\n`.
    end: usize,
    /// Start of the next line.
    next: usize,
}

fn lines(text: &str, from: usize) -> Lines<'_> {
    Lines {
        bytes: text.as_bytes(),
        pos: from,
    }
}

/// The lines of a text from a line start on; [`Lines::seek`] jumps ahead.
struct Lines<'t> {
    bytes: &'t [u8],
    pos: usize,
}

impl Lines<'_> {
    /// Goes on from `pos`, a line start.
    fn seek(&mut self, pos: usize) {
        self.pos = pos;
    }
}

impl Iterator for Lines<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        let (bytes, pos) = (self.bytes, self.pos);
        if pos >= bytes.len() {
            return None;
        }
        let nl = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
        let mut end = nl;
        if end > pos && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        let line = Line {
            start: pos,
            end,
            next: (nl + 1).min(bytes.len()).max(nl),
        };
        self.pos = nl + 1;
        Some(line)
    }
}

/// The start of the first line at or after the line start `pos` whose first byte after
/// spaces and tabs is `ch`: the only lines that can close a fence of `ch`. Found with
/// memchr, so the lines of a code block are not visited one by one.
fn next_line_starting_with(bytes: &[u8], mut pos: usize, ch: u8) -> Option<usize> {
    while pos < bytes.len() {
        let hit = pos + memchr::memchr(ch, &bytes[pos..])?;
        let start = memchr::memrchr(b'\n', &bytes[pos..hit]).map_or(pos, |i| pos + i + 1);
        if bytes[start..hit].iter().all(|&b| b == b' ' || b == b'\t') {
            return Some(start);
        }
        pos = memchr::memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |i| hit + i + 1);
    }
    None
}

/// Leading white space: (columns with tabs to multiples of 4, bytes).
fn indent(line: &[u8]) -> (usize, usize) {
    let mut col = 0;
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            _ => break,
        }
        i += 1;
    }
    (col, i)
}

#[derive(Clone, Copy)]
struct Fence {
    ch: u8,
    len: usize,
    content_start: usize,
}

fn fence_open(rest: &[u8]) -> Option<(u8, usize)> {
    let ch = *rest.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = rest.iter().take_while(|&&c| c == ch).count();
    if n < 3 {
        return None;
    }
    if ch == b'`' && rest[n..].contains(&b'`') {
        return None;
    }
    Some((ch, n))
}

fn fence_close(rest: &[u8], fence: Fence) -> bool {
    let n = rest.iter().take_while(|&&c| c == fence.ch).count();
    n >= fence.len && rest[n..].iter().all(|c| c.is_ascii_whitespace())
}

fn thematic_break(rest: &[u8]) -> bool {
    let Some(&ch) = rest.first() else {
        return false;
    };
    if !matches!(ch, b'-' | b'*' | b'_') {
        return false;
    }
    let mut n = 0;
    for &c in rest {
        if c == ch {
            n += 1;
        } else if c != b' ' && c != b'\t' {
            return false;
        }
    }
    n >= 3
}

fn heading(rest: &[u8]) -> bool {
    let n = rest.iter().take_while(|&&c| c == b'#').count();
    (1..=6).contains(&n) && matches!(rest.get(n), None | Some(b' ' | b'\t'))
}

/// How an HTML block that starts on this line ends (CommonMark's kinds 2, 6 and 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Html {
    /// `<!--`: at a line holding `-->`.
    Comment,
    /// A block tag or a tag alone on its line: at a blank line.
    UntilBlank,
}

const BLOCK_TAGS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "details",
    "dialog",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hr",
    "html",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
];

fn html_start(rest: &[u8], in_paragraph: bool) -> Option<Html> {
    if rest.starts_with(b"<!--") {
        return Some(Html::Comment);
    }
    let inner = rest.strip_prefix(b"<")?;
    let inner = inner.strip_prefix(b"/").unwrap_or(inner);
    let n = inner
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
        .count();
    if n == 0 || !inner[0].is_ascii_alphabetic() {
        return None;
    }
    let name = &inner[..n];
    let after = inner.get(n).copied();
    if BLOCK_TAGS
        .iter()
        .any(|t| t.as_bytes().eq_ignore_ascii_case(name))
        && matches!(after, None | Some(b' ' | b'\t' | b'>' | b'/'))
    {
        return Some(Html::UntilBlank);
    }
    // Kind 7: a complete tag alone on its line; it cannot interrupt a paragraph.
    let trimmed = rest.trim_ascii_end();
    let complete = trimmed.ends_with(b">") && !trimmed[1..trimmed.len() - 1].contains(&b'<');
    (!in_paragraph && complete && matches!(after, Some(b' ' | b'\t' | b'>' | b'/')))
        .then_some(Html::UntilBlank)
}

/// The width of a list item marker and the spaces after it, when `rest` starts with one.
fn list_marker(rest: &[u8]) -> Option<usize> {
    let mut i = 0;
    match rest.first()? {
        b'-' | b'*' | b'+' => i = 1,
        b'0'..=b'9' => {
            while i < rest.len() && i < 9 && rest[i].is_ascii_digit() {
                i += 1;
            }
            if !matches!(rest.get(i), Some(b'.' | b')')) {
                return None;
            }
            i += 1;
        }
        _ => return None,
    }
    match rest.get(i) {
        None => Some(i + 1),
        Some(b' ' | b'\t') => {
            let spaces = rest[i..].iter().take_while(|&&c| c == b' ').count();
            if spaces == 0 || spaces > 4 || i + spaces == rest.len() {
                Some(i + 1)
            } else {
                Some(i + spaces)
            }
        }
        _ => None,
    }
}

/// The regions of the Markdown body that starts at byte `from`, in document order.
pub fn regions(text: &str, from: usize) -> Vec<Region> {
    let bytes = text.as_bytes();
    let mut blocks = Blocks::new(text, from);
    let mut all = lines(text, from);
    while let Some(line) = all.next() {
        if blocks.fence.is_some() {
            if let Some(next) = blocks.fence_line(&line) {
                all.seek(next);
            }
            continue;
        }
        let raw = &bytes[line.start..line.end];
        let (ind, i) = indent(raw);
        let rest = &raw[i..];
        if blocks.html.is_some() {
            blocks.html_line(&line, raw, rest);
            continue;
        }
        blocks.block_line(&line, raw, ind, rest);
    }
    blocks.finish()
}

/// The block structure [`regions`] reads line by line: the open paragraph (or list item,
/// table), fenced block, indented code or raw HTML, and the regions closed so far.
struct Blocks<'t> {
    text: &'t str,
    out: Vec<Region>,
    /// The column a list item's content starts at (0 outside lists).
    list_col: usize,
    prev_blank: bool,
    /// The paragraph being read, whose inline regions come when it ends.
    block: Option<Span>,
    fence: Option<(Fence, usize)>,
    code: Option<Span>,
    html: Option<(Html, usize)>,
    scratch: Scratch,
}

impl<'t> Blocks<'t> {
    /// Nothing read yet of the body from `from`.
    fn new(text: &'t str, from: usize) -> Blocks<'t> {
        Blocks {
            text,
            // About one region per 80 bytes of a skill: room for them at once, not by
            // doubling.
            out: Vec::with_capacity(text.len().saturating_sub(from) / 80 + 4),
            list_col: 0,
            prev_blank: true,
            block: None,
            fence: None,
            code: None,
            html: None,
            scratch: Scratch::default(),
        }
    }

    /// Ends the paragraph being read: its inline regions (code spans, table cells, prose).
    fn flush(&mut self) {
        if let Some(b) = self.block.take() {
            inline_regions(self.text, b, &mut self.out, &mut self.scratch);
        }
    }

    /// Adds a region.
    fn push(&mut self, span: Span, context: Context) {
        self.out.push(Region { span, context });
    }

    /// A line inside a fenced block, which it may close. When it cannot (it does not start
    /// with the fence's character), where the next line that may starts.
    fn fence_line(&mut self, line: &Line) -> Option<usize> {
        let (f, _) = self.fence?;
        let bytes = self.text.as_bytes();
        let raw = &bytes[line.start..line.end];
        let (_, i) = indent(raw);
        if raw.get(i) != Some(&f.ch) {
            return Some(next_line_starting_with(bytes, line.next, f.ch).unwrap_or(bytes.len()));
        }
        if fence_close(&raw[i..], f) {
            self.push(Span::new(f.content_start, line.start), Context::FencedCode);
            self.fence = None;
            self.prev_blank = false;
        }
        None
    }

    /// A line inside raw HTML, which may end it (a comment at `-->`, others at a blank
    /// line). Raw HTML is not Markdown: a known tool in it is still checked, as prose.
    fn html_line(&mut self, line: &Line, raw: &[u8], rest: &[u8]) {
        let Some((kind, start)) = self.html else {
            return;
        };
        let ends_here = match kind {
            Html::Comment => raw.windows(3).any(|w| w == b"-->"),
            Html::UntilBlank => rest.is_empty(),
        };
        if ends_here {
            self.push(Span::new(start, line.end), Context::Prose);
            self.html = None;
            self.prev_blank = rest.is_empty();
        }
    }

    /// A line outside fences and raw HTML, indented `ind` columns, `rest` after the
    /// indentation: a blank line, indented code, the start of raw HTML or of a fence, a
    /// break, a heading, or a paragraph's (or list item's) line.
    fn block_line(&mut self, line: &Line, raw: &[u8], ind: usize, rest: &[u8]) {
        if rest.is_empty() {
            self.flush();
            self.prev_blank = true;
            return;
        }
        if self.block.is_none()
            && ind >= self.list_col + 4
            && (self.prev_blank || self.code.is_some())
        {
            self.code = Some(Span::new(
                self.code.map_or(line.start, |c| c.start),
                line.end,
            ));
            self.prev_blank = false;
            return;
        }
        if let Some(c) = self.code.take() {
            self.push(c, Context::IndentedCode);
        }
        let marker = if thematic_break(rest) {
            None
        } else {
            list_marker(rest)
        };
        if marker.is_none() && self.prev_blank && ind < self.list_col {
            self.list_col = 0;
        }
        if ind < self.list_col + 4 && self.opens_html(line, raw, rest) {
            return;
        }
        if self.opens_fence(line, rest) {
            return;
        }
        self.prev_blank = false;
        if thematic_break(rest) {
            self.flush();
            return;
        }
        if heading(rest) {
            self.flush();
            self.push(Span::new(line.start, line.end), Context::Prose);
            return;
        }
        if let Some(width) = marker {
            self.flush();
            self.list_col = ind + width;
        }
        self.block = Some(match self.block {
            Some(b) => Span::new(b.start, line.end),
            None => Span::new(line.start, line.end),
        });
    }

    /// Whether the line starts raw HTML (a comment that closes on it is one prose region).
    fn opens_html(&mut self, line: &Line, raw: &[u8], rest: &[u8]) -> bool {
        let Some(kind) = html_start(rest, self.block.is_some()) else {
            return false;
        };
        self.flush();
        let closes_now = kind == Html::Comment && raw.windows(3).any(|w| w == b"-->");
        if closes_now {
            self.push(Span::new(line.start, line.end), Context::Prose);
        } else {
            self.html = Some((kind, line.start));
        }
        self.prev_blank = false;
        true
    }

    /// Whether the line opens a fenced block.
    fn opens_fence(&mut self, line: &Line, rest: &[u8]) -> bool {
        let Some((ch, len)) = fence_open(rest) else {
            return false;
        };
        self.flush();
        let fence = Fence {
            ch,
            len,
            content_start: line.next,
        };
        self.fence = Some((fence, line.start));
        self.prev_blank = false;
        true
    }

    /// The regions, once the last line is read: what is still open ends with the text.
    fn finish(mut self) -> Vec<Region> {
        let len = self.text.len();
        self.flush();
        if let Some((_, start)) = self.html {
            self.push(Span::new(start, len), Context::Prose);
        }
        if let Some((f, _)) = self.fence {
            self.push(
                Span::new(f.content_start.min(len), len),
                Context::FencedCode,
            );
        }
        if let Some(c) = self.code {
            self.push(c, Context::IndentedCode);
        }
        self.out
    }
}

/// The cells of a table row, split at unescaped `|`, outer pipes dropped.
pub(crate) fn cells(text: &str, line: Span) -> Vec<Span> {
    let bytes = text.as_bytes();
    let (_, lead) = indent(&bytes[line.start..line.end]);
    let mut start = line.start + lead;
    let mut end = line.end;
    while end > start && matches!(bytes[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    if start < end && bytes[start] == b'|' {
        start += 1;
    }
    let trailing = end > start && bytes[end - 1] == b'|' && !escaped(bytes, end - 1, start);
    if trailing {
        end -= 1;
    }
    let mut out = Vec::new();
    let mut cell_start = start;
    for i in start..end {
        if bytes[i] == b'|' && !escaped(bytes, i, start) {
            out.push(Span::new(cell_start, i));
            cell_start = i + 1;
        }
    }
    out.push(Span::new(cell_start, end));
    out
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

pub(crate) fn delimiter_row(text: &str, line: Span) -> Option<usize> {
    let raw = line.of(text).trim();
    if !raw.contains('|') || !raw.contains('-') {
        return None;
    }
    let inner = raw.strip_prefix('|').unwrap_or(raw);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut n = 0;
    for cell in inner.split('|') {
        let c = cell.trim();
        let c = c.strip_prefix(':').unwrap_or(c);
        let c = c.strip_suffix(':').unwrap_or(c);
        if c.is_empty() || !c.bytes().all(|b| b == b'-') {
            return None;
        }
        n += 1;
    }
    Some(n)
}

/// Splits a paragraph-like block into table and text regions, code spans included.
fn inline_regions(text: &str, block: Span, out: &mut Vec<Region>, scratch: &mut Scratch) {
    // A table needs a `|` (in its header and delimiter rows): most blocks have none.
    if memchr::memchr(b'|', &text.as_bytes()[block.range()]).is_none() {
        code_spans(
            text,
            block,
            (Context::InlineCode, Context::Prose),
            out,
            scratch,
        );
        return;
    }
    let block_lines: Vec<Span> = lines(text, block.start)
        .take_while(|l| l.start < block.end)
        .map(|l| Span::new(l.start, l.end.min(block.end)))
        .collect();
    let mut table_at = None;
    for k in 1..block_lines.len() {
        if let Some(n) = delimiter_row(text, block_lines[k])
            && block_lines[k - 1].of(text).contains('|')
            && cells(text, block_lines[k - 1]).len() == n
        {
            table_at = Some(k - 1);
            break;
        }
    }
    let Some(header) = table_at else {
        code_spans(
            text,
            block,
            (Context::InlineCode, Context::Prose),
            out,
            scratch,
        );
        return;
    };
    if header > 0 {
        let para = Span::new(block.start, block_lines[header - 1].end);
        code_spans(
            text,
            para,
            (Context::InlineCode, Context::Prose),
            out,
            scratch,
        );
    }
    for (k, row) in block_lines.iter().enumerate().skip(header) {
        if k == header + 1 {
            continue;
        }
        for cell in cells(text, *row) {
            code_spans(
                text,
                cell,
                (Context::TableCode, Context::TableCell),
                out,
                scratch,
            );
        }
    }
}

/// Pairs backtick runs in `span` (CommonMark: a run of N backticks opens a code span that
/// the next run of exactly N closes; a backslash before a run escapes its first backtick).
fn code_spans(
    text: &str,
    span: Span,
    (code, prose): (Context, Context),
    out: &mut Vec<Region>,
    scratch: &mut Scratch,
) {
    let bytes = text.as_bytes();
    // (start, length, escaped)
    let runs = &mut scratch.runs;
    runs.clear();
    let mut i = span.start;
    while let Some(off) = memchr::memchr(b'`', &bytes[i..span.end]) {
        let s = i + off;
        let mut e = s;
        while e < span.end && bytes[e] == b'`' {
            e += 1;
        }
        runs.push((s, e - s, escaped(bytes, s, span.start)));
        i = e;
    }
    if runs.is_empty() {
        out.push(Region {
            span,
            context: prose,
        });
        return;
    }
    let runs = &scratch.runs;
    let mut closers = Closers::new(runs, &mut scratch.next);
    let mut text_start = span.start;
    let mut k = 0;
    while k < runs.len() {
        let (s, len, esc) = runs[k];
        let (open_start, open_len) = if esc { (s + 1, len - 1) } else { (s, len) };
        if open_len == 0 {
            k += 1;
            continue;
        }
        let closer = closers.after(open_len, k);
        match closer {
            Some(j) => {
                if open_start > text_start {
                    out.push(Region {
                        span: Span::new(text_start, open_start),
                        context: prose,
                    });
                }
                let content = Span::new(open_start + open_len, runs[j].0);
                out.push(Region {
                    span: content,
                    context: code,
                });
                text_start = runs[j].0 + runs[j].1;
                k = j + 1;
            }
            None => k += 1,
        }
    }
    if text_start < span.end {
        out.push(Region {
            span: Span::new(text_start, span.end),
            context: prose,
        });
    }
}

/// For each backtick run length, the runs of that length in order and a cursor into them,
/// so that finding each opener's closer (the next run of its length) is linear overall.
/// Runs of up to [`Closers::SHORT`] backticks, nearly all of them, are chained through an
/// array: no hashing and no list per length.
enum Closers<'n> {
    /// `next[k]`: the next run of run k's length; `first[n]`: the cursor for length n.
    Short {
        next: &'n mut Vec<usize>,
        first: [usize; SHORT_RUN + 1],
    },
    Any(std::collections::HashMap<usize, (Vec<usize>, usize)>),
}

/// The longest backtick run [`Closers::Short`] chains.
const SHORT_RUN: usize = 16;

/// Buffers the code-span pairing reuses from one block to the next (a skill has hundreds
/// of blocks, and two allocations each cost more than pairing their backticks).
#[derive(Default)]
struct Scratch {
    runs: Vec<(usize, usize, bool)>,
    next: Vec<usize>,
}

impl Closers<'_> {
    const SHORT: usize = SHORT_RUN;

    /// `next` is a buffer kept from block to block.
    fn new<'n>(runs: &[(usize, usize, bool)], next: &'n mut Vec<usize>) -> Closers<'n> {
        if runs.iter().all(|r| r.1 <= Closers::SHORT) {
            next.clear();
            next.resize(runs.len(), usize::MAX);
            let mut first = [usize::MAX; Closers::SHORT + 1];
            for (k, r) in runs.iter().enumerate().rev() {
                next[k] = first[r.1];
                first[r.1] = k;
            }
            return Closers::Short { next, first };
        }
        let mut by_len: std::collections::HashMap<usize, (Vec<usize>, usize)> =
            std::collections::HashMap::new();
        for (k, r) in runs.iter().enumerate() {
            by_len.entry(r.1).or_default().0.push(k);
        }
        Closers::Any(by_len)
    }

    /// The first run of length `len` after run `k` (`k` never decreases between calls).
    fn after(&mut self, len: usize, k: usize) -> Option<usize> {
        match self {
            Closers::Short { next, first } => {
                let cursor = first.get_mut(len)?;
                while *cursor != usize::MAX && *cursor <= k {
                    *cursor = next[*cursor];
                }
                (*cursor != usize::MAX).then_some(*cursor)
            }
            Closers::Any(by_len) => by_len.get_mut(&len).and_then(|(list, cursor)| {
                while *cursor < list.len() && list[*cursor] <= k {
                    *cursor += 1;
                }
                list.get(*cursor).copied()
            }),
        }
    }
}

/// The region holding byte range `span`, if one holds all of it.
pub fn region_of(regions: &[Region], span: Span) -> Option<Region> {
    let i = regions.partition_point(|r| r.span.end <= span.start);
    let r = regions.get(i)?;
    (r.span.start <= span.start && span.end <= r.span.end).then_some(*r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contexts(text: &str) -> Vec<(String, &'static str)> {
        regions(text, 0)
            .into_iter()
            .filter(|r| !r.span.of(text).trim().is_empty())
            .map(|r| (r.span.of(text).trim().to_string(), r.context.name()))
            .collect()
    }

    #[test]
    fn blocks_and_spans() {
        let text = "# Title\n\nSay `a(b=1)` and ``x ` y`` here\nstill `para\ngraph`.\n\n```python\ncode(x=1)\n```\n\n    indented(y=2)\n\n| a | `t(k=\"v\"\\|\"w\")` |\n|---|---|\n| c | d |\n";
        assert_eq!(
            contexts(text),
            [
                ("# Title".to_string(), "prose"),
                ("Say".into(), "prose"),
                ("a(b=1)".into(), "inline-code"),
                ("and".into(), "prose"),
                ("x ` y".into(), "inline-code"),
                ("here\nstill".into(), "prose"),
                ("para\ngraph".into(), "inline-code"),
                (".".into(), "prose"),
                ("code(x=1)".into(), "fenced-code"),
                ("indented(y=2)".into(), "indented-code"),
                ("a".into(), "table-cell"),
                ("t(k=\"v\"\\|\"w\")".into(), "table-code"),
                ("c".into(), "table-cell"),
                ("d".into(), "table-cell"),
            ]
        );
    }

    #[test]
    fn lists_fences_and_unclosed_things() {
        let text = "1. Step:\n\n   ```\n   x(a=1)\n   ```\n\n   para `a\n\n   b` after\n\n```\nnever closed";
        let c = contexts(text);
        assert!(c.contains(&("x(a=1)".to_string(), "fenced-code")), "{c:?}");
        // A code span cannot cross a blank line.
        assert!(c.contains(&("para `a".to_string(), "prose")), "{c:?}");
        assert_eq!(c.last(), Some(&("never closed".to_string(), "fenced-code")));
    }

    #[test]
    fn front_matter_needs_a_closing_line() {
        let fm = front_matter("---\nname: x\n---\nbody").unwrap();
        assert_eq!(fm.body_start, 16);
        assert_eq!(fm.yaml, Span::new(4, 12));
        assert!(front_matter("---\nname: x\n").is_none());
        assert!(front_matter("\u{feff}---\r\na: 1\r\n---\r\n").is_some());
    }

    #[test]
    fn candidates_find_names_before_parens() {
        let text = "a.b(x=1) f (y=2) 9x(z) -g(h) def k(a=1) (bare)";
        let c = candidates(text, Span::new(0, text.len()), |_, _| true);
        let names: Vec<(&str, bool, bool)> = c
            .iter()
            .map(|c| (c.name.of(text), c.qualified, c.after_keyword))
            .collect();
        assert_eq!(
            names,
            [("b", true, false), ("f", false, false), ("k", false, true)]
        );
        assert!(pair_follows("f(\n  a = 1)", 1));
        assert!(!pair_follows("f(a == 1)", 1));
    }

    #[test]
    fn many_backticks_stay_linear() {
        let mut text = String::new();
        for n in 1..2000 {
            text.push_str(&"`".repeat(n % 50 + 1));
            text.push('x');
        }
        let t = std::time::Instant::now();
        let _ = regions(&text, 0);
        assert!(t.elapsed().as_millis() < 500);
    }
}

/// The scanner against pulldown-cmark, the reference CommonMark parser: for every `name(` in
/// the fixtures (and in the real corpus when `../shared` is checked out), both must agree on
/// whether it is written as code and whether it is in a table.
#[cfg(test)]
mod reference {
    use super::*;
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Where {
        code: bool,
        table: bool,
    }

    fn by_pulldown(text: &str, body: usize) -> Vec<Where> {
        let mut map = vec![
            Where {
                code: false,
                table: false
            };
            text.len() + 1
        ];
        let src = &text[body..];
        let mut table_depth = 0usize;
        let mut table_start = 0usize;
        for (event, range) in Parser::new_ext(src, Options::ENABLE_TABLES).into_offset_iter() {
            let r = (range.start + body)..(range.end + body);
            match event {
                Event::Start(Tag::CodeBlock(_)) | Event::Code(_) => {
                    for w in &mut map[r] {
                        w.code = true;
                    }
                }
                Event::Start(Tag::Table(_)) => {
                    table_depth += 1;
                    table_start = r.start;
                }
                Event::End(TagEnd::Table) => {
                    table_depth = table_depth.saturating_sub(1);
                    for w in &mut map[table_start..r.end] {
                        w.table = true;
                    }
                }
                _ => {}
            }
        }
        map
    }

    fn by_scanner(text: &str, body: usize) -> Vec<Where> {
        let mut map = vec![
            Where {
                code: false,
                table: false
            };
            text.len() + 1
        ];
        for r in regions(text, body) {
            for w in &mut map[r.span.range()] {
                w.code = r.context.is_code();
                w.table = r.context.in_table();
            }
        }
        map
    }

    /// Disagreements on `name(` positions of one file, as `line: ours vs pulldown`.
    fn compare(text: &str) -> Vec<String> {
        let body = front_matter(text).map_or(0, |f| f.body_start);
        let ours = by_scanner(text, body);
        let theirs = by_pulldown(text, body);
        let cands = candidates(text, Span::new(body, text.len()), |_, _| true);
        let mut out = Vec::new();
        for c in cands {
            let (a, b) = (ours[c.name.start], theirs[c.name.start]);
            if a != b {
                let line = text[..c.name.start].matches('\n').count() + 1;
                out.push(format!(
                    "line {line} `{}`: scanner {a:?}, pulldown-cmark {b:?}",
                    c.name.of(text)
                ));
            }
        }
        out
    }

    fn markdown_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                markdown_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }

    #[test]
    fn agrees_with_pulldown_cmark_on_fixtures_and_corpus() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        markdown_files(&root.join("skills-fixtures"), &mut files);
        let shared = root.join("../shared/anchors/tatara");
        if shared.is_dir() {
            markdown_files(&shared, &mut files);
        } else {
            eprintln!("skipped the real corpus: ../shared/anchors is not here");
        }
        assert!(!files.is_empty());
        let mut disagreements = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            for d in compare(&text) {
                disagreements.push(format!("{}: {d}", f.display()));
            }
        }
        assert!(
            disagreements.is_empty(),
            "{} disagreements:\n{}",
            disagreements.len(),
            disagreements.join("\n")
        );
    }
}
