//! The parameters stage: parameters written without call syntax next to a tool's name
//! ([`crate::params`]: list items after `with:`, code spans after the name, a fenced block,
//! sibling tags, comment lines, a table column), checked like a call's.

use crate::check::NameKind;
use crate::params;
use crate::scan::{Context, Region};
use crate::text::Span;

use super::{Document, Linter};

impl Linter<'_> {
    /// Stage 4: the parameters beside the tools the body names. Skipped (the regions not
    /// even scanned) for a file no earlier stage scanned that names no tool outside calls,
    /// holds no tag and no code span holding only a tool's name.
    pub(super) fn check_parameters(&self, doc: &mut Document<'_>) {
        if doc.settings_file {
            return;
        }
        let text = doc.text;
        let has_tags = memchr::memmem::find(text.as_bytes(), b"<tool").is_some();
        if doc.regions.is_none()
            && doc.mentions.is_empty()
            && !has_tags
            && !self.code_span_tool(text, doc.body_start)
        {
            return;
        }
        let regions = doc.take_regions();
        let mut mentions = std::mem::take(&mut doc.mentions);
        mentions.extend(self.code_span_mentions(text, &regions, &doc.called));
        mentions.sort_unstable();
        mentions.dedup();
        self.check_attached(doc, &regions, &mentions);
        doc.mentions = mentions;
        doc.put_regions(regions);
    }

    /// The code spans (and table code cells) that hold only the unprefixed name of a current
    /// tool of the first server, not already a call's name.
    fn code_span_mentions(&self, text: &str, regions: &[Region], called: &[usize]) -> Vec<Span> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        for r in regions {
            if !matches!(r.context, Context::InlineCode | Context::TableCode) {
                continue;
            }
            let mut s = r.span;
            while s.start < s.end && bytes[s.start] == b' ' {
                s.start += 1;
            }
            while s.end > s.start && bytes[s.end - 1] == b' ' {
                s.end -= 1;
            }
            let name = s.of(text);
            if !name.is_empty()
                && name.bytes().all(crate::args::is_name_byte)
                && !called.contains(&s.start)
                && self.resolve(name).is_none()
                && self.servers[0].checker.lookup(name) == NameKind::Known
            {
                out.push(s);
            }
        }
        out
    }

    /// The parameters [`params::attached`] finds beside `mentions`, each group checked as a
    /// call of its current tool (once per name), counted and noted as used.
    fn check_attached(&self, doc: &mut Document<'_>, regions: &[Region], mentions: &[Span]) {
        let text = doc.text;
        let tools = ParamTools(self);
        for a in params::attached(text, doc.body_start, regions, mentions, &tools) {
            let Some((si, name, _)) = self.call_target(text, a.tool) else {
                continue;
            };
            let checker = &self.servers[si].checker;
            if checker.lookup(name.of(text)) != NameKind::Known || doc.called.contains(&name.start)
            {
                continue;
            }
            doc.lint.calls += 1;
            doc.called.push(name.start);
            if !doc.used.iter().any(|(_, n, _)| *n == name) {
                doc.used.push((si, name, a.tool));
            }
            let found = checker.check_call(text, name, &a.args, &doc.skill);
            if found.is_empty() {
                continue;
            }
            let call_span = Span::new(a.tool.start, a.args.close.map_or(a.tool.end, |c| c + 1));
            self.push_unless_negated(text, a.tool.start, found, call_span, &mut doc.problems);
        }
    }

    /// Whether a code span of the text from `from` holds only the name of a tool of the
    /// server unprefixed names belong to (`` `issue_read` ``): the cheap test that says a file
    /// without other references may still name a tool with parameters beside it.
    fn code_span_tool(&self, text: &str, from: usize) -> bool {
        let bytes = text.as_bytes();
        let from = from.min(bytes.len());
        memchr::memchr_iter(b'`', &bytes[from..]).any(|i| {
            let start = from + i + 1;
            let end = bytes[start..]
                .iter()
                .position(|&b| !crate::args::is_name_byte(b))
                .map_or(bytes.len(), |n| start + n);
            end > start
                && bytes.get(end) == Some(&b'`')
                && self.servers[0].checker.lookup(&text[start..end]) == NameKind::Known
        })
    }
}

/// The lint's view of names, for [`params::attached`].
struct ParamTools<'l, 's>(&'l Linter<'s>);

impl params::Tools for ParamTools<'_, '_> {
    fn is_tool(&self, written: &str) -> bool {
        self.0.known_target(written).is_some()
    }

    fn declares(&self, written: &str, field: &str) -> bool {
        self.0
            .known_target(written)
            .is_some_and(|(si, name)| self.0.servers[si].checker.declares(name, field))
    }
}
