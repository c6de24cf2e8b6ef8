//! The argument list of a tool call, parsed: `(repo, op="stats", limit=10)`.
//!
//! A pure function over the file's text: [`parse_args`] starts after a call's `(` and stops at
//! the matching `)`, at the end of the Markdown region the call sits in (a code span, a fenced
//! block, a table cell, a paragraph), or at a fixed budget of bytes and nesting, whichever
//! comes first. Every value keeps its exact byte span, so a finding can point at it and
//! `lint --fix` can rewrite it.
//!
//! What it reads: `field=value` and `field: value` pairs; positional arguments (`repo`, `community?`); `...`;
//! double- and single-quoted strings with backslash escapes, spanning lines; numbers;
//! booleans and null in JSON, Python and YAML spelling; `"a"|"b"` alternatives (and `\|` in a
//! Markdown table, where a bare `|` would end the cell); unquoted placeholders (`<opaque_id>`);
//! nested `[...]`, `{...}` and `(...)`; `#` and `//` comments in code blocks. Anything else is
//! an expression: skipped up to the next top-level `,` or `)`, never checked.

use crate::text::Span;

/// How to read an argument list.
#[derive(Clone, Copy, Debug)]
pub struct ParseOptions {
    /// The call is in a Markdown table cell: `\|` separates alternatives.
    pub table: bool,
    /// The call is in a code block: `#` and `//` after white space start a comment.
    pub comments: bool,
    /// The most bytes an argument list may take, from its `(`.
    pub max_len: usize,
    /// The deepest nesting of brackets inside it.
    pub max_depth: usize,
    /// Backticks quote strings (JavaScript template literals in an object-style call); a
    /// template with `${...}` in it is an expression.
    pub backticks: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            table: false,
            comments: false,
            max_len: 16 * 1024,
            max_depth: 32,
            backticks: false,
        }
    }
}

/// How parsing an argument list ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// At the matching `)`.
    Closed,
    /// The region (code span, block, cell, paragraph) or the text ended first.
    Truncated,
    /// The byte budget ran out first.
    TooLong,
    /// Brackets nested deeper than the budget.
    TooDeep,
}

/// A parsed argument list.
#[derive(Clone, Debug, PartialEq)]
pub struct Args {
    /// The arguments read, in order (those complete before an early end, too).
    pub items: Vec<Arg>,
    /// The offset of the closing `)` (`}` of an object, the last byte of a YAML-style
    /// call), when there is one.
    pub close: Option<usize>,
    /// How it ended.
    pub outcome: Outcome,
}

impl Args {
    /// The `field=value` pairs.
    pub fn pairs(&self) -> impl Iterator<Item = (Span, &Value)> {
        self.items.iter().filter_map(|a| match &a.kind {
            ArgKind::Pair { name, value } => Some((*name, value)),
            _ => None,
        })
    }
}

/// One argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    /// The whole argument.
    pub span: Span,
    /// What it is.
    pub kind: ArgKind,
}

/// The kinds of argument.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgKind {
    /// `name=value`
    Pair {
        /// The field name.
        name: Span,
        /// The value.
        value: Value,
    },
    /// `...` (or `…`) standing for more arguments.
    Ellipsis,
    /// A value without a name: `repo`, `"text"`, `community?`.
    Positional(Value),
}

/// A value, with its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    /// The value as written (quotes included).
    pub span: Span,
    /// What it is.
    pub kind: ValueKind,
}

/// The kinds of value.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    /// A quoted string.
    Str {
        /// `"` or `'`.
        quote: u8,
        /// The text between the quotes, as written.
        content: Span,
        /// Whether the content holds a backslash (so it must be unescaped to be read).
        escapes: bool,
    },
    /// A number.
    Number {
        /// Whether it has no fraction or exponent.
        integer: bool,
    },
    /// `true`/`false` (any of JSON, Python, YAML spellings).
    Bool(bool),
    /// `null`, `None`, `nil`.
    Null,
    /// `<...>`, `...` or `…`: stands for a value the reader fills in.
    Placeholder,
    /// `[...]`, not looked into.
    Array,
    /// `{...}`, not looked into.
    Object,
    /// A bare word such as `comments` or `repo`: a variable as far as the lint knows.
    Bare,
    /// An unquoted YAML scalar (`method: get` in a YAML-style call): a string, checked
    /// against an enum, but never a wrong type (it may stand for a number or a variable).
    Plain,
    /// Anything else: an expression, never checked.
    Expr,
    /// `"a"|"b"`: each alternative is a value of its own.
    Alternatives(Vec<Value>),
}

impl Value {
    /// The string a `Str` value stands for (escapes resolved), else `None`.
    pub fn string<'t>(&self, text: &'t str) -> Option<std::borrow::Cow<'t, str>> {
        if self.kind == ValueKind::Plain {
            return Some(std::borrow::Cow::Borrowed(self.span.of(text)));
        }
        let ValueKind::Str {
            content, escapes, ..
        } = &self.kind
        else {
            return None;
        };
        let raw = content.of(text);
        if !*escapes {
            return Some(std::borrow::Cow::Borrowed(raw));
        }
        let mut out = String::with_capacity(raw.len());
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            }
        }
        Some(std::borrow::Cow::Owned(out))
    }

    /// Whether the value only stands for one: `<...>`, `...`, or a string that is exactly
    /// `...` or `<...>`.
    pub fn is_placeholder(&self, text: &str) -> bool {
        match &self.kind {
            ValueKind::Placeholder => true,
            ValueKind::Str { .. } => self.string(text).is_some_and(|s| is_placeholder_text(&s)),
            _ => false,
        }
    }
}

/// Whether a string's content is a placeholder: `...`, `…`, or `<anything>`.
pub fn is_placeholder_text(s: &str) -> bool {
    let s = s.trim();
    s.is_empty()
        || s == "..."
        || s == "…"
        || (s.len() >= 2 && s.starts_with('<') && s.ends_with('>'))
}

/// Whether `b` may be part of a name (tool, field, bare word).
pub fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Whether `b` may start a name.
pub fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

/// The end of the name starting at `at` (a `-` only inside, before a name byte).
pub fn name_end(bytes: &[u8], at: usize, bound: usize) -> usize {
    let mut i = at;
    while i < bound {
        let b = bytes[i];
        let inner_dash = b == b'-'
            && i + 1 < bound
            && (bytes[i + 1].is_ascii_alphanumeric() || bytes[i + 1] == b'_');
        if b.is_ascii_alphanumeric() || b == b'_' || inner_dash {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// Parses the argument list whose `(` is at byte `open` of `text`, reading no further than
/// `bound`.
pub fn parse_args(text: &str, open: usize, bound: usize, opts: ParseOptions) -> Args {
    parse_list(text, open, bound, opts, b')', Parser::arg)
}

/// Parses the object whose `{` is at byte `open` of `text`, reading no further than `bound`:
/// the members of an object-style call, `{ field: "v", "field": 2 }` (keys bare or quoted,
/// `:` or `=` after them), as pairs. `close` is the offset of its `}`. A member that is not
/// `key: value` is skipped as an expression.
pub fn parse_object(text: &str, open: usize, bound: usize, opts: ParseOptions) -> Args {
    parse_list(text, open, bound, opts, b'}', Parser::member)
}

/// Parses the list whose `[` is at byte `open` of `text`, reading no further than `bound`:
/// its items as positional values (what a key inside an array item is checked from).
pub fn parse_array(text: &str, open: usize, bound: usize, opts: ParseOptions) -> Args {
    parse_list(text, open, bound, opts, b']', Parser::arg)
}

/// The loop of [`parse_args`] and [`parse_object`]: the items `item` reads, separated by `,`,
/// from the byte after `open` up to the matching `close` byte (or an early end).
fn parse_list<'t>(
    text: &'t str,
    open: usize,
    bound: usize,
    opts: ParseOptions,
    close: u8,
    item: impl Fn(&mut Parser<'t>) -> Step<Arg>,
) -> Args {
    let hard = open.saturating_add(1).saturating_add(opts.max_len);
    let bound = bound.min(text.len()).min(hard);
    let mut p = Parser {
        b: text.as_bytes(),
        pos: open + 1,
        bound,
        len_limited: bound == hard && hard < text.len(),
        opts,
        close,
        yaml: false,
    };
    let mut items = Vec::new();
    let outcome = loop {
        if let Err(o) = p.skip_ws() {
            break o;
        }
        match p.peek() {
            None => break p.end_outcome(),
            Some(c) if c == close => {
                return Args {
                    items,
                    close: Some(p.pos),
                    outcome: Outcome::Closed,
                };
            }
            Some(b',') => {
                // An empty item (`f(,)`); skip it.
                p.pos += 1;
                continue;
            }
            Some(_) => {}
        }
        match item(&mut p) {
            Ok(arg) => items.push(arg),
            Err(o) => break o,
        }
        if let Err(o) = p.skip_ws() {
            break o;
        }
        match p.peek() {
            Some(b',') => p.pos += 1,
            Some(c) if c == close => {}
            None => break p.end_outcome(),
            Some(_) => {
                // Something the value reader did not take: skip it as an expression.
                if let Err(o) = p.skip_expr() {
                    break o;
                }
            }
        }
    };
    Args {
        items,
        close: None,
        outcome,
    }
}

/// Parses the `key: value` pairs of a YAML-style call (`search_issues  query: "x"`, or the
/// name alone with the pairs on the indented lines below it): `lines` are the byte ranges to
/// read, each one line (without its line break). A value is a YAML scalar: quoted, a number,
/// a boolean, a list or a mapping, or a plain word ([`ValueKind::Plain`]); an all-capital word
/// is a placeholder, anything else an expression. Pairs on one line may be separated by `,`
/// or white space. Reading stops at the first line that is not `key: value`; `close` is the
/// last byte read.
pub fn parse_yaml(text: &str, lines: &[Span], opts: ParseOptions) -> Args {
    let mut items = Vec::new();
    let mut last = None;
    for line in lines {
        let mut p = Parser {
            b: text.as_bytes(),
            pos: line.start,
            bound: line.end.min(text.len()),
            len_limited: false,
            opts,
            close: 0,
            yaml: true,
        };
        let before = items.len();
        loop {
            if p.skip_ws().is_err() {
                break;
            }
            if p.peek() == Some(b',') {
                p.pos += 1;
                continue;
            }
            let Some((key, after)) = p.key_here() else {
                break;
            };
            p.pos = after;
            if p.skip_ws().is_err() || p.peek().is_none() {
                break;
            }
            let Ok(mut value) = p.value() else {
                break;
            };
            yaml_scalar(text, &mut value);
            last = Some(value.span.end.saturating_sub(1));
            items.push(Arg {
                span: Span::new(key.start, value.span.end),
                kind: ArgKind::Pair { name: key, value },
            });
        }
        if items.len() == before {
            break;
        }
    }
    Args {
        items,
        close: last,
        outcome: Outcome::Closed,
    }
}

/// A bare word read as a YAML scalar: a plain string ([`ValueKind::Plain`]), or a
/// placeholder when it is all capitals (`OWNER`).
fn yaml_scalar(text: &str, value: &mut Value) {
    if value.kind == ValueKind::Bare {
        let word = value.span.of(text);
        value.kind = if word.bytes().any(|b| b.is_ascii_lowercase()) {
            ValueKind::Plain
        } else {
            ValueKind::Placeholder
        };
    }
}

/// Parses the one value that `span` of `text` holds, read as in a YAML-style call (a
/// parameter written without call syntax: `state: open` in a list item, `<state>open</state>`,
/// the content of a code span): quoted, a number, a boolean, null, a list, a mapping, a
/// placeholder, or a plain word ([`ValueKind::Plain`]; all capitals, a placeholder). White
/// space around it is not part of it. When the value does not take all of `span`
/// (`open issues only`, `$OWNER (from step 0)`), the whole span is an expression.
pub fn parse_value(text: &str, span: Span, opts: ParseOptions) -> Value {
    let b = text.as_bytes();
    let mut end = span.end.min(b.len());
    let mut start = span.start.min(end);
    while start < end && b[start].is_ascii_whitespace() {
        start += 1;
    }
    while end > start && b[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    let expr = Value {
        span: Span::new(start, end),
        kind: ValueKind::Expr,
    };
    if start == end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return expr;
    }
    let mut p = Parser {
        b,
        pos: start,
        bound: end,
        len_limited: false,
        opts,
        close: 0,
        yaml: true,
    };
    match p.value() {
        Ok(mut value) if value.span.end == end => {
            yaml_scalar(text, &mut value);
            value
        }
        _ => expr,
    }
}

/// Parses `s` as an argument list written `(...)` (for tests and fuzzing): `s` must start
/// with `(`.
pub fn parse_standalone(s: &str) -> Args {
    parse_args(s, 0, s.len(), ParseOptions::default())
}

struct Parser<'a> {
    b: &'a [u8],
    pos: usize,
    bound: usize,
    len_limited: bool,
    opts: ParseOptions,
    /// The byte that closes the list: `)`, or `}` for an object.
    close: u8,
    /// Reading YAML-style `key: value` lines: a value also ends where the next `key:` starts.
    yaml: bool,
}

type Step<T> = Result<T, Outcome>;

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        if self.pos < self.bound {
            Some(self.b[self.pos])
        } else {
            None
        }
    }

    fn peek_at(&self, i: usize) -> Option<u8> {
        let at = self.pos + i;
        if at < self.bound {
            Some(self.b[at])
        } else {
            None
        }
    }

    fn end_outcome(&self) -> Outcome {
        if self.len_limited {
            Outcome::TooLong
        } else {
            Outcome::Truncated
        }
    }

    fn starts_with(&self, s: &[u8]) -> bool {
        self.pos + s.len() <= self.bound && &self.b[self.pos..self.pos + s.len()] == s
    }

    /// Skips white space and, in code, comments.
    fn skip_ws(&mut self) -> Step<()> {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'#' | b'/' if self.opts.comments && self.comment_here() => {
                    while let Some(c) = self.peek() {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    fn comment_here(&self) -> bool {
        let after_space = self.pos == 0 || matches!(self.b[self.pos - 1], b' ' | b'\t' | b'\n');
        if !after_space {
            return false;
        }
        match self.b[self.pos] {
            b'#' => true,
            b'/' => self.peek_at(1) == Some(b'/'),
            _ => false,
        }
    }

    fn ellipsis_len(&self) -> usize {
        if self.starts_with(b"...") {
            3
        } else if self.starts_with("…".as_bytes()) {
            "…".len()
        } else {
            0
        }
    }

    fn arg(&mut self) -> Step<Arg> {
        let start = self.pos;
        let dots = self.ellipsis_len();
        if dots > 0 {
            let after = self.pos + dots;
            let next = if after < self.bound {
                Some(self.b[after])
            } else {
                None
            };
            if matches!(
                next,
                None | Some(b',' | b')' | b' ' | b'\t' | b'\n' | b'\r')
            ) || next == Some(self.close)
            {
                self.pos = after;
                return Ok(Arg {
                    span: Span::new(start, after),
                    kind: ArgKind::Ellipsis,
                });
            }
        }
        if self.peek().is_some_and(is_name_start) {
            let name_stop = name_end(self.b, self.pos, self.bound);
            let save = self.pos;
            self.pos = name_stop;
            while matches!(self.peek(), Some(b' ' | b'\t')) {
                self.pos += 1;
            }
            // `name=value`, or `name: value` (Python keyword style written with a colon,
            // TypeScript signatures); not `a::b` nor `a:=b`.
            let colon = self.peek() == Some(b':') && !matches!(self.peek_at(1), Some(b':' | b'='));
            if colon || (self.peek() == Some(b'=') && self.peek_at(1) != Some(b'=')) {
                self.pos += 1;
                self.skip_ws()?;
                if matches!(self.peek(), None | Some(b',')) || self.peek() == Some(self.close) {
                    // `name=` with nothing after it: an incomplete pair, not checked.
                    let value = Value {
                        span: Span::new(self.pos, self.pos),
                        kind: ValueKind::Expr,
                    };
                    return Ok(Arg {
                        span: Span::new(start, self.pos),
                        kind: ArgKind::Positional(value),
                    });
                }
                let value = self.value()?;
                return Ok(Arg {
                    span: Span::new(start, value.span.end),
                    kind: ArgKind::Pair {
                        name: Span::new(save, name_stop),
                        value,
                    },
                });
            }
            self.pos = save;
        }
        let value = self.value()?;
        Ok(Arg {
            span: Span::new(start, value.span.end),
            kind: ArgKind::Positional(value),
        })
    }

    /// One member of an object: `key: value`, `"key": value` or `key = value`.
    fn member(&mut self) -> Step<Arg> {
        let start = self.pos;
        let key = match self.peek() {
            Some(q @ (b'"' | b'\'')) => {
                let v = self.string(q)?;
                match v.kind {
                    ValueKind::Str {
                        content,
                        escapes: false,
                        ..
                    } => Some(content),
                    _ => None,
                }
            }
            Some(c) if is_name_start(c) => {
                let end = name_end(self.b, self.pos, self.bound);
                let key = Span::new(self.pos, end);
                self.pos = end;
                Some(key)
            }
            _ => None,
        };
        if let Some(key) = key {
            while matches!(self.peek(), Some(b' ' | b'\t')) {
                self.pos += 1;
            }
            if matches!(self.peek(), Some(b':' | b'=')) && self.peek_at(1) != Some(b':') {
                self.pos += 1;
                self.skip_ws()?;
                if self.peek().is_none() {
                    return Err(self.end_outcome());
                }
                let value = self.value()?;
                return Ok(Arg {
                    span: Span::new(start, value.span.end),
                    kind: ArgKind::Pair { name: key, value },
                });
            }
        }
        // A spread (`...rest`), a shorthand (`{ owner }`) or anything else: not checked.
        self.pos = start;
        let value = self.value()?;
        Ok(Arg {
            span: Span::new(start, value.span.end),
            kind: ArgKind::Positional(value),
        })
    }

    /// A YAML key here (`name:` followed by white space, the end, `[`, `{` or a quote): its
    /// span and the offset after the `:`.
    fn key_here(&self) -> Option<(Span, usize)> {
        let c = self.peek()?;
        if !is_name_start(c) {
            return None;
        }
        let end = name_end(self.b, self.pos, self.bound);
        if end >= self.bound || self.b[end] != b':' {
            return None;
        }
        let next = self.b.get(end + 1).copied();
        let ok = end + 1 >= self.bound
            || matches!(next, Some(b' ' | b'\t' | b'[' | b'{' | b'"' | b'\''));
        ok.then_some((Span::new(self.pos, end), end + 1))
    }

    /// At white space: whether a YAML key follows it.
    fn key_after_space(&self) -> bool {
        let mut i = self.pos;
        while i < self.bound && matches!(self.b[i], b' ' | b'\t') {
            i += 1;
        }
        let probe = Parser {
            b: self.b,
            pos: i,
            bound: self.bound,
            len_limited: false,
            opts: self.opts,
            close: self.close,
            yaml: true,
        };
        probe.key_here().is_some()
    }

    /// Whether an alternatives separator (`|`, or `\|` in a table) follows white space.
    fn alternative_bar(&self) -> Option<usize> {
        let mut i = self.pos;
        while i < self.bound && matches!(self.b[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        if i < self.bound && self.b[i] == b'|' && self.b.get(i + 1) != Some(&b'|') {
            return Some(i + 1);
        }
        if self.opts.table && i + 1 < self.bound && self.b[i] == b'\\' && self.b[i + 1] == b'|' {
            return Some(i + 2);
        }
        None
    }

    fn value(&mut self) -> Step<Value> {
        let start = self.pos;
        let first = self.alt()?;
        let mut value = first;
        if let Some(after) = self.alternative_bar() {
            let mut alts = vec![value];
            let mut next = Some(after);
            while let Some(after) = next {
                self.pos = after;
                self.skip_ws()?;
                if self.peek().is_none() {
                    return Err(self.end_outcome());
                }
                alts.push(self.alt()?);
                next = self.alternative_bar();
            }
            let end = alts.last().map_or(self.pos, |v| v.span.end);
            value = Value {
                span: Span::new(start, end),
                kind: ValueKind::Alternatives(alts),
            };
        }
        // Anything but `,` or `)` next makes the value part of a larger expression.
        let save = self.pos;
        self.skip_ws()?;
        match self.peek() {
            Some(c) if c == b',' || c == self.close => {
                self.pos = save;
                Ok(value)
            }
            None => {
                self.pos = save;
                Ok(value)
            }
            Some(_) if self.yaml && self.key_here().is_some() => {
                self.pos = save;
                Ok(value)
            }
            Some(_) => {
                self.skip_expr()?;
                let mut end = self.pos;
                while end > start && matches!(self.b[end - 1], b' ' | b'\t' | b'\n' | b'\r') {
                    end -= 1;
                }
                Ok(Value {
                    span: Span::new(start, end),
                    kind: ValueKind::Expr,
                })
            }
        }
    }

    /// One value without alternatives.
    fn alt(&mut self) -> Step<Value> {
        let start = self.pos;
        let Some(c) = self.peek() else {
            return Err(self.end_outcome());
        };
        let kind = match c {
            b'"' | b'\'' => return self.string(c),
            b'`' if self.opts.backticks => {
                let v = self.string(c)?;
                let inner = &self.b[v.span.start..v.span.end];
                if inner.windows(2).any(|w| w == b"${") {
                    ValueKind::Expr
                } else {
                    return Ok(v);
                }
            }
            b'<' => self.angled()?,
            b'[' => {
                self.nested()?;
                ValueKind::Array
            }
            b'{' => self.braced()?,
            b'(' => {
                self.nested()?;
                ValueKind::Expr
            }
            _ if self.ellipsis_len() > 0 => {
                self.pos += self.ellipsis_len();
                ValueKind::Placeholder
            }
            b'0'..=b'9' | b'-' | b'+' | b'.' => match self.number() {
                Some(kind) => kind,
                None => {
                    self.skip_expr()?;
                    ValueKind::Expr
                }
            },
            _ if is_name_start(c) => self.word()?,
            _ => {
                self.skip_expr()?;
                ValueKind::Expr
            }
        };
        Ok(Value {
            span: Span::new(start, self.pos),
            kind,
        })
    }

    /// A value starting with `<`: `<placeholder>` closed on its line within 120 bytes, else
    /// an expression.
    fn angled(&mut self) -> Step<ValueKind> {
        let mut i = self.pos + 1;
        while i < self.bound && i - self.pos <= 120 && !matches!(self.b[i], b'<' | b'>' | b'\n') {
            i += 1;
        }
        if i < self.bound && self.b[i] == b'>' && i > self.pos + 1 {
            self.pos = i + 1;
            Ok(ValueKind::Placeholder)
        } else {
            self.skip_expr()?;
            Ok(ValueKind::Expr)
        }
    }

    /// A value starting with `{`: an object, or a template placeholder (`{PR_NUMBER}`,
    /// `{{issue}}`, `{Epic番号}`), which has no `key: value` members and is not empty.
    fn braced(&mut self) -> Step<ValueKind> {
        let from = self.pos;
        self.nested()?;
        let inner = &self.b[from..self.pos];
        let inner = inner.strip_prefix(b"{").unwrap_or(inner);
        let inner = inner.strip_suffix(b"}").unwrap_or(inner);
        let inner = inner.strip_prefix(b"{").unwrap_or(inner);
        let inner = inner.strip_suffix(b"}").unwrap_or(inner);
        if !inner.is_empty()
            && !inner
                .iter()
                .any(|&b| matches!(b, b':' | b'"' | b'\'' | b'{'))
        {
            Ok(ValueKind::Placeholder)
        } else {
            Ok(ValueKind::Object)
        }
    }

    /// A value starting with a name: a call (an expression), a boolean, a null, or a bare
    /// word.
    fn word(&mut self) -> Step<ValueKind> {
        let end = name_end(self.b, self.pos, self.bound);
        let word = &self.b[self.pos..end];
        self.pos = end;
        if self.peek() == Some(b'(') {
            self.nested()?;
            return Ok(ValueKind::Expr);
        }
        Ok(match word {
            b"true" | b"True" | b"TRUE" => ValueKind::Bool(true),
            b"false" | b"False" | b"FALSE" => ValueKind::Bool(false),
            b"null" | b"None" | b"nil" | b"NULL" => ValueKind::Null,
            _ => ValueKind::Bare,
        })
    }

    fn number(&mut self) -> Option<ValueKind> {
        let b = self.b;
        let mut i = self.pos;
        if i < self.bound && matches!(b[i], b'-' | b'+') {
            i += 1;
        }
        let digits_start = i;
        while i < self.bound && b[i].is_ascii_digit() {
            i += 1;
        }
        let mut integer = true;
        if i < self.bound && b[i] == b'.' && i + 1 < self.bound && b[i + 1].is_ascii_digit() {
            integer = false;
            i += 1;
            while i < self.bound && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        if i == digits_start {
            return None;
        }
        if i < self.bound && matches!(b[i], b'e' | b'E') {
            let mut j = i + 1;
            if j < self.bound && matches!(b[j], b'-' | b'+') {
                j += 1;
            }
            let exp_start = j;
            while j < self.bound && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > exp_start {
                integer = false;
                i = j;
            }
        }
        if i < self.bound && (is_name_byte(b[i]) || b[i] == b'.') {
            return None;
        }
        self.pos = i;
        Some(ValueKind::Number { integer })
    }

    fn string(&mut self, quote: u8) -> Step<Value> {
        let start = self.pos;
        let mut i = self.pos + 1;
        let mut escapes = false;
        while i < self.bound {
            let c = self.b[i];
            if c == b'\\' {
                escapes = true;
                i += 2;
                continue;
            }
            if c == quote {
                self.pos = i + 1;
                return Ok(Value {
                    span: Span::new(start, i + 1),
                    kind: ValueKind::Str {
                        quote,
                        content: Span::new(start + 1, i),
                        escapes,
                    },
                });
            }
            i += 1;
        }
        self.pos = self.bound;
        Err(self.end_outcome())
    }

    /// Skips a bracketed group starting at the current byte (any of `([{`), nesting counted
    /// for every kind together.
    fn nested(&mut self) -> Step<()> {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    if depth > self.opts.max_depth {
                        return Err(Outcome::TooDeep);
                    }
                    self.pos += 1;
                }
                b')' | b']' | b'}' => {
                    self.pos += 1;
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Ok(());
                    }
                }
                b'`' if self.opts.backticks => {
                    self.string(c)?;
                }
                b'"' | b'\'' => {
                    // An apostrophe inside a word (`don't`) is not a quote.
                    let in_word =
                        c == b'\'' && self.pos > 0 && self.b[self.pos - 1].is_ascii_alphanumeric();
                    if in_word {
                        self.pos += 1;
                    } else {
                        self.string(c)?;
                    }
                }
                b'#' | b'/' if self.opts.comments && self.comment_here() => self.skip_ws()?,
                _ => self.pos += 1,
            }
        }
        Err(self.end_outcome())
    }

    /// Skips an expression up to the next top-level `,` or `)`.
    fn skip_expr(&mut self) -> Step<()> {
        while let Some(c) = self.peek() {
            if c == b',' || c == self.close {
                return Ok(());
            }
            if self.yaml && c == b' ' && self.key_after_space() {
                return Ok(());
            }
            match c {
                b'`' if self.opts.backticks => {
                    self.string(c)?;
                }
                b'(' | b'[' | b'{' => self.nested()?,
                b'"' | b'\'' => {
                    let in_word =
                        c == b'\'' && self.pos > 0 && self.b[self.pos - 1].is_ascii_alphanumeric();
                    if in_word {
                        self.pos += 1;
                    } else {
                        self.string(c)?;
                    }
                }
                b'#' | b'/' if self.opts.comments && self.comment_here() => self.skip_ws()?,
                _ => self.pos += 1,
            }
        }
        // A YAML value ends with its line.
        if self.yaml {
            return Ok(());
        }
        Err(self.end_outcome())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<String> {
        let a = parse_standalone(s);
        a.items
            .iter()
            .map(|arg| match &arg.kind {
                ArgKind::Pair { name, value } => {
                    format!("{}={}", name.of(s), describe(s, value))
                }
                ArgKind::Ellipsis => "...".to_string(),
                ArgKind::Positional(v) => format!("_{}", describe(s, v)),
            })
            .collect()
    }

    fn describe(s: &str, v: &Value) -> String {
        match &v.kind {
            ValueKind::Str { .. } => format!("str({})", v.string(s).unwrap_or_default()),
            ValueKind::Number { integer } => format!("num({},{integer})", v.span.of(s)),
            ValueKind::Bool(b) => format!("bool({b})"),
            ValueKind::Null => "null".into(),
            ValueKind::Placeholder => format!("ph({})", v.span.of(s)),
            ValueKind::Array => format!("array({})", v.span.of(s)),
            ValueKind::Object => format!("object({})", v.span.of(s)),
            ValueKind::Bare => format!("bare({})", v.span.of(s)),
            ValueKind::Plain => format!("plain({})", v.span.of(s)),
            ValueKind::Expr => format!("expr({})", v.span.of(s)),
            ValueKind::Alternatives(alts) => {
                let parts: Vec<String> = alts.iter().map(|a| describe(s, a)).collect();
                format!("alt[{}]", parts.join(","))
            }
        }
    }

    #[test]
    fn pairs_positional_and_literals() {
        assert_eq!(
            kinds(r#"(repo, op="stats", limit=10, deep=true, ratio=-1.5e3, x=None)"#),
            [
                "_bare(repo)",
                "op=str(stats)",
                "limit=num(10,true)",
                "deep=bool(true)",
                "ratio=num(-1.5e3,false)",
                "x=null"
            ]
        );
        assert_eq!(
            kinds("(action='skip', reason=\"say \\\"no\\\"\")"),
            ["action=str(skip)", "reason=str(say \"no\")"]
        );
        assert_eq!(parse_standalone("()").outcome, Outcome::Closed);
        assert_eq!(parse_standalone("(  )").items, vec![]);
    }

    #[test]
    fn alternatives_placeholders_and_nesting() {
        assert_eq!(
            kinds(r#"(action="approve"|"merge" | 'x', id=<opaque_id>, body=..., rest)"#),
            [
                "action=alt[str(approve),str(merge),str(x)]",
                "id=ph(<opaque_id>)",
                "body=ph(...)",
                "_bare(rest)"
            ]
        );
        assert_eq!(
            kinds(r#"(proposals=[{repo, title, "k": (1)}, ...], patch={"a": ["b"]}, ...)"#),
            [
                r#"proposals=array([{repo, title, "k": (1)}, ...])"#,
                r#"patch=object({"a": ["b"]})"#,
                "..."
            ]
        );
        // In a table, `\|` separates alternatives.
        let s = r#"(action="implement"\|"close")"#;
        let a = parse_args(
            s,
            0,
            s.len(),
            ParseOptions {
                table: true,
                ..ParseOptions::default()
            },
        );
        assert!(matches!(
            &a.items[0].kind,
            ArgKind::Pair { value: Value { kind: ValueKind::Alternatives(v), .. }, .. } if v.len() == 2
        ));
    }

    #[test]
    fn multi_line_calls_with_comments() {
        let s = "(\n  op=\"create\",\n  # a comment, with \"quotes\"\n  properties={\"note\": \"...\"}  # optional\n)";
        let a = parse_args(
            s,
            0,
            s.len(),
            ParseOptions {
                comments: true,
                ..ParseOptions::default()
            },
        );
        assert_eq!(a.outcome, Outcome::Closed);
        let names: Vec<&str> = a.pairs().map(|(n, _)| n.of(s)).collect();
        assert_eq!(names, ["op", "properties"]);
    }

    #[test]
    fn expressions_are_not_values() {
        assert_eq!(
            kinds(r#"("ci=" + x, n = i == 0, f(a=1), community?)"#),
            [
                r#"_expr("ci=" + x)"#,
                "n=expr(i == 0)",
                "_expr(f(a=1))",
                "_expr(community?)"
            ]
        );
        assert_eq!(
            kinds("(let i = 0; i < 3; i++)"),
            ["_expr(let i = 0; i < 3; i++)"]
        );
    }

    #[test]
    fn spans_are_exact() {
        let s = r#"(a="x", b=12)"#;
        let a = parse_standalone(s);
        let (name, value) = a.pairs().nth(1).unwrap();
        assert_eq!(name.of(s), "b");
        assert_eq!(value.span.of(s), "12");
        let ValueKind::Str { content, .. } = a.pairs().next().unwrap().1.kind else {
            panic!()
        };
        assert_eq!(content.of(s), "x");
        assert_eq!(a.close, Some(s.len() - 1));
    }

    #[test]
    fn bounded_on_hostile_input() {
        let s = format!("({}", "(".repeat(200_000));
        let t = std::time::Instant::now();
        let a = parse_standalone(&s);
        assert_eq!(a.outcome, Outcome::TooDeep);
        let s = format!("({}", "\"".repeat(100_001));
        let a = parse_standalone(&s);
        assert!(matches!(a.outcome, Outcome::TooLong | Outcome::Truncated));
        assert!(t.elapsed().as_millis() < 500);
        assert_eq!(parse_standalone("(a=\"open").outcome, Outcome::Truncated);
    }
}
