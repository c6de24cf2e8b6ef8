//! The references stages: tool names written outside calls. Every name behind a configured
//! prefix and every unprefixed former or removed name (found in one pass of [`RefIndex`]),
//! and the unprefixed names of `<tool>` tags; a current tool is noted as used (and as a
//! mention parameters may follow), a stale or unknown one is a problem.
//!
//! [`RefIndex`]: super::RefIndex

use crate::check::NameKind;
use crate::forms;
use crate::rules::{self, Problem};
use crate::scan::{Context, region_of};
use crate::text::Span;

use super::{Document, HOST_TOOLS, Linter, Pat, Reference, Resolved};

impl Linter<'_> {
    /// Stage 3a: the names written outside calls (behind a prefix, or former and removed
    /// names), each checked by [`Linter::check_reference`]; the names of calls already
    /// checked are left alone.
    pub(super) fn check_references(&self, doc: &mut Document<'_>) {
        let text = doc.text;
        let refs = self.references(text, doc.bom, doc.settings_file);
        if refs.is_empty() {
            return;
        }
        let fm_span = doc.front.map(|f| Span::new(doc.bom, f.body_start));
        let regions = doc.take_regions();
        for r in refs {
            if doc.called.contains(&r.name.start) {
                continue;
            }
            if r.pattern {
                let (pattern, prefix) = (r.name.of(text), &text[r.full.start..r.name.start]);
                if let Some(mut p) = self.pattern_problem(r.server, pattern, "", r.name) {
                    p.message = rules::unknown_tool::pattern_matches_none(
                        &format!("{prefix}{pattern}"),
                        &self.servers[r.server].name,
                    );
                    doc.problems.push((p, r.full));
                }
                continue;
            }
            let in_front = fm_span.is_some_and(|f| r.full.start < f.end);
            let context = if doc.settings_file || in_front {
                None
            } else {
                Some(region_of(&regions, r.full).map_or(Context::Prose, |g| g.context))
            };
            self.check_reference(doc, &r, context, in_front);
        }
        doc.put_regions(regions);
    }

    /// One name written outside a call, in `context` (`None`: front matter or a data file):
    /// [`Linter::reference_problem`], noted in the document.
    fn check_reference(
        &self,
        doc: &mut Document<'_>,
        r: &Reference,
        context: Option<Context>,
        in_front: bool,
    ) {
        let tool = r.name.of(doc.text);
        if let Some(p) = self.reference_problem(doc, r, tool, context, in_front) {
            doc.problems.push((p, r.full));
        }
    }

    /// What a name written outside a call is (`tool`, the name `r.name` holds as the host
    /// reads it): a current tool is used (a mention in the body), a former name is
    /// `unknown-tool` with its new name, and an unknown one is `unknown-tool` when it is
    /// removed or written where a tool name is expected (code, a data file, behind a
    /// specific prefix).
    pub(super) fn reference_problem(
        &self,
        doc: &mut Document<'_>,
        r: &Reference,
        tool: &str,
        context: Option<Context>,
        in_front: bool,
    ) -> Option<Problem> {
        let server = &self.servers[r.server];
        // A former name learned from the history, written bare in prose, is only taken for
        // that tool when it cannot be an ordinary word (`echo`, `add`): it joins words.
        let bare_in_prose = r.full == r.name && context.is_some_and(|c| !c.is_code());
        if bare_in_prose && server.checker.notes().version_of(tool).is_some() && !is_compound(tool)
        {
            return None;
        }
        match server.checker.lookup(tool) {
            NameKind::Known => {
                if !in_front {
                    doc.used.push((r.server, r.name, r.full));
                    if context.is_some() {
                        doc.mentions.push(r.full);
                    }
                }
                None
            }
            NameKind::Former(_) => {
                let mut p = server.checker.unknown_tool(tool, r.name);
                p.span = r.name;
                Some(p)
            }
            NameKind::Unknown => {
                let code_like = context.is_none_or(|c| c.is_code());
                let removed = server.checker.removed().iter().any(|n| n == tool);
                if !removed && r.generic && !code_like {
                    return None;
                }
                Some(server.checker.unknown_tool(tool, r.name))
            }
        }
    }

    /// Stage 3b: `<tool>name</tool>`: an unprefixed name in a tag is a tool reference
    /// (prefixed ones were found as references; host tools and names with capitals are a
    /// host's, not an MCP server's).
    pub(super) fn check_tags(&self, doc: &mut Document<'_>) {
        if doc.settings_file || !doc.marks.tool_tag {
            return;
        }
        let text = doc.text;
        for tag in forms::tags(text, doc.body()) {
            let name = tag.of(text);
            if self.resolve(name).is_some() || HOST_TOOLS.contains(&name) {
                continue;
            }
            // MCP tools are named in lower case; `<tool>WebSearch</tool>` is a host's.
            if !name.bytes().all(crate::args::is_name_byte)
                || name.bytes().any(|b| b.is_ascii_uppercase())
            {
                continue;
            }
            let server = &self.servers[0];
            match server.checker.lookup(name) {
                NameKind::Known => doc.used.push((0, tag, tag)),
                // Former and removed names were reported above, as words.
                NameKind::Former(_) => {}
                NameKind::Unknown => {
                    if server.checker.removed().iter().any(|n| n == name) {
                        continue;
                    }
                    doc.problems
                        .push((server.checker.unknown_tool(name, tag), tag));
                }
            }
        }
    }

    /// Every name written behind a configured prefix, and every unprefixed former or removed
    /// name, outside calls or inside them, from `from` on; with `patterns` (a settings file,
    /// where Claude Code's permission rules match `*`), the patterns behind a prefix too
    /// (`mcp__github__get_*`).
    pub(super) fn references(&self, text: &str, from: usize, patterns: bool) -> Vec<Reference> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let hay = &text[from.min(text.len())..];
        for (pattern, m_start, m_end) in self.refs.matches(hay) {
            let start = from + m_start;
            if start > 0 && is_ref_byte(bytes[start - 1]) {
                continue;
            }
            match self.refs.pats.get(pattern) {
                Some(&Pat::Stale { server }) => {
                    let end = from + m_end;
                    if end < bytes.len()
                        && (crate::args::is_name_byte(bytes[end]) || bytes[end] == b'/')
                    {
                        continue;
                    }
                    let span = Span::new(start, end);
                    out.push(Reference {
                        server,
                        full: span,
                        name: span,
                        generic: false,
                        pattern: false,
                    });
                }
                Some(&Pat::Prefix { server, prefix }) => {
                    let at = (server, prefix, start);
                    self.prefixed_reference(text, at, patterns, &mut out);
                }
                None => {}
            }
        }
        // A name inside an alternation is also found as a word: once is enough.
        out.sort_by_key(|r| (r.name.start, r.full.start));
        out.dedup_by_key(|r| r.name.start);
        out
    }

    /// The reference (or the alternation's references) written behind prefix `prefix` of
    /// `server`, whose text starts at `start` (`at`): none for a placeholder
    /// (`mcp__github__NAME`), a pattern (`list_*`; one marked as a pattern with `patterns`),
    /// a path or domain behind a generic prefix, or a longer prefix of another server.
    fn prefixed_reference(
        &self,
        text: &str,
        (server, prefix, start): (usize, usize, usize),
        patterns: bool,
        out: &mut Vec<Reference>,
    ) {
        let bytes = text.as_bytes();
        let p = &self.servers[server].prefixes[prefix];
        let Some(len) = p.len_at(text, start) else {
            return;
        };
        // A longer prefix of any server wins (`github/github-mcp-server/`).
        let name_start = start + len;
        let end = name_end(bytes, name_start);
        // `mcp__github__(issue_read|issue_write)`: a hook matcher's alternation, each
        // alternative a name.
        if end == name_start && bytes.get(name_start) == Some(&b'(') {
            self.alternation(text, server, prefix, start, name_start, out);
            return;
        }
        // `mcp__github__NAME`, `mcp__github__TOOL`: a placeholder.
        let name = &text[name_start..end];
        if end == name_start || !name.bytes().any(|b| b.is_ascii_lowercase()) {
            return;
        }
        let glob = patterns && !p.generic && bytes.get(end) == Some(&b'*');
        if !glob && (is_pattern(bytes, end) || (p.generic && is_path_like(text, name_start, end))) {
            return;
        }
        let end = if glob {
            let mut e = end;
            while e < bytes.len() && (bytes[e] == b'*' || crate::args::is_name_byte(bytes[e])) {
                e += 1;
            }
            e
        } else {
            end
        };
        let full = Span::new(start, end);
        if let Some(Resolved::Server(si, l, generic)) = self.resolve(full.of(text))
            && l == len
        {
            out.push(Reference {
                server: si,
                full,
                name: Span::new(name_start, end),
                generic,
                pattern: glob,
            });
        }
    }

    /// The names of an alternation written after prefix `prefix` of `server` at `start`,
    /// `mcp__github__(a|b)` (its `(` at `open`): one reference each; `full` is the whole
    /// pattern. An alternative that is itself a pattern (`get_.*`) is left alone.
    fn alternation(
        &self,
        text: &str,
        server: usize,
        prefix: usize,
        start: usize,
        open: usize,
        out: &mut Vec<Reference>,
    ) {
        let bytes = text.as_bytes();
        let stop = bytes.len().min(open + 1024);
        let Some(close) = memchr::memchr2(b')', b'\n', &bytes[open..stop]).map(|i| open + i) else {
            return;
        };
        if bytes[close] != b')' {
            return;
        }
        let generic = self.servers[server].prefixes[prefix].generic;
        let full = Span::new(start, close + 1);
        let mut alt_start = open + 1;
        for part in text[open + 1..close].split('|') {
            let alt = Span::new(alt_start, alt_start + part.len());
            alt_start = alt.end + 1;
            if !part.is_empty()
                && part.bytes().any(|b| b.is_ascii_lowercase())
                && part.bytes().all(crate::args::is_name_byte)
            {
                out.push(Reference {
                    server,
                    full,
                    name: alt,
                    generic,
                    pattern: false,
                });
            }
        }
    }
}

/// The end of a name after a prefix, from `start`: letters, digits, `_` and `-`, without
/// the trailing `-`s.
fn name_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while end < bytes.len()
        && (bytes[end].is_ascii_alphanumeric() || matches!(bytes[end], b'_' | b'-'))
    {
        end += 1;
    }
    while end > start && bytes[end - 1] == b'-' {
        end -= 1;
    }
    end
}

/// Whether the name ending at `end` goes on as a pattern, not a name: `mcp__github__get_.*`,
/// `mcp__github__list_*`.
fn is_pattern(bytes: &[u8], end: usize) -> bool {
    let next = bytes.get(end).copied();
    (next == Some(b'*') && bytes[end - 1] == b'_')
        || (next == Some(b'.') && matches!(bytes.get(end + 1), Some(b'*' | b'+')))
}

/// Whether the name at `start..end` behind a generic prefix is a path or a domain
/// (`github/workflows/ci.yml`, `github/github-mcp-server`), not a tool.
fn is_path_like(text: &str, start: usize, end: usize) -> bool {
    let bytes = text.as_bytes();
    let next = bytes.get(end).copied();
    text[start..end].contains('-')
        || matches!(next, Some(b'/' | b'-'))
        || (next == Some(b'.')
            && bytes
                .get(end + 1)
                .is_some_and(|b| b.is_ascii_alphanumeric()))
}

/// Bytes that may not come right before a prefix or a name: a name byte, `/`, `.` (so that
/// `github/` is not the `github/` of `.github/agents/`) or `@`.
fn is_ref_byte(b: u8) -> bool {
    crate::args::is_name_byte(b) || matches!(b, b'/' | b'.' | b'@' | b'$')
}

/// Whether a name joins words (`read_graph`, `fetch-page`, `getThing`): no ordinary word of
/// prose.
fn is_compound(name: &str) -> bool {
    let b = name.as_bytes();
    b.iter().any(|c| matches!(c, b'_' | b'-'))
        || b.windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}
