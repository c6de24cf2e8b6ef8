//! The stages that read the front matter again once the body is known: an agent's `tools:`
//! list against the tools its body uses (`tool-not-allowed`), and calls written inside the
//! front matter's strings (a `description:` that shows a call), mapped back to the file.

use crate::args::{ParseOptions, parse_args};
use crate::check::NameKind;
use crate::frontmatter::Scalar;
use crate::negation;
use crate::rules::Problem;
use crate::rules::{self, Rule};
use crate::scan;
use crate::text::Edit;
use crate::text::Span;
use crate::toollist::{self, ListKey};

use super::{Document, Linter, restricts_tools};

impl Linter<'_> {
    /// Stage 5a: `tool-not-allowed`: an agent whose `tools:` restricts it uses a tool the
    /// list does not grant.
    pub(super) fn check_tools_allowed(&self, doc: &mut Document<'_>) {
        let Some(f) = doc.front else {
            return;
        };
        if !restricts_tools(doc.path) {
            return;
        }
        let text = doc.text;
        for list in toollist::read(text, f.yaml) {
            if list.key != ListKey::Tools {
                continue;
            }
            for (si, name, full) in &doc.used {
                if self.allows(&list.entries, *si, name.of(text)) {
                    continue;
                }
                let tool = name.of(text);
                let problem = Problem {
                    rule: Rule::ToolNotAllowed,
                    span: *full,
                    message: rules::tool_not_allowed::message(tool, full.of(text)),
                    tool: Some(tool.to_string()),
                    field: None,
                    value: None,
                    suggestion: None,
                    fix: None,
                };
                doc.problems.push((problem, *full));
            }
        }
    }

    /// Stage 5b: `too-many-tools`: a `tools:` list selecting more tools than the file's host
    /// takes (the host known from where the file lives).
    pub(super) fn check_too_many_tools(&self, doc: &mut Document<'_>) {
        let Some(f) = doc.front else {
            return;
        };
        let Some(host) = rules::too_many_tools::host_of(doc.path) else {
            return;
        };
        let tools = |si: usize| {
            self.servers[si]
                .checker
                .surface
                .tools
                .iter()
                .map(|t| t.name.as_str())
        };
        let allows = |e: &[(String, Span)], si: usize, t: &str| self.allows(e, si, t);
        let n = self.servers.len();
        doc.problems.extend(rules::too_many_tools::check(
            doc.text, f.yaml, host, n, tools, allows,
        ));
    }

    /// Whether `entries` (a `tools:` list) grant tool `tool` of server `server`.
    fn allows(&self, entries: &[(String, Span)], server: usize, tool: &str) -> bool {
        let s = &self.servers[server];
        entries.iter().any(|(e, _)| {
            let e = e.trim();
            if e == "*" || e == s.name || e == format!("mcp__{}", s.name) {
                return true;
            }
            if server == 0 && e == tool {
                return true;
            }
            s.prefixes.iter().any(|p| {
                p.len_at(e, 0).is_some_and(|len| {
                    let rest = &e[len..];
                    rest.is_empty() || rest == "*" || rest == tool
                }) || (p.tail.is_none() && p.head.trim_end_matches(['_', '/']) == e)
            })
        })
    }

    /// Stage 5c: strings of the front matter: a current tool is checked wherever it is
    /// written, its problems placed where the string's raw text is.
    pub(super) fn check_front_matter_calls(&self, doc: &mut Document<'_>) {
        let Some(decoded) = doc.decoded.take() else {
            return;
        };
        for scalar in &decoded.scalars {
            self.check_scalar_calls(doc, scalar);
        }
        doc.decoded = Some(decoded);
    }

    /// The calls of current tools in one decoded front matter string.
    fn check_scalar_calls(&self, doc: &mut Document<'_>, scalar: &Scalar) {
        let text = doc.text;
        let value = scalar.value.as_str();
        let cands = scan::candidates(value, Span::new(0, value.len()), |name, _| {
            self.checker().lookup(name) == NameKind::Known
        });
        for c in cands {
            let args = parse_args(value, c.open, value.len(), ParseOptions::default());
            doc.lint.calls += 1;
            let found = self.checker().check_call(value, c.name, &args, &doc.skill);
            if found.is_empty() {
                continue;
            }
            let line_start = value[..c.name.start].rfind('\n').map_or(0, |i| i + 1);
            let negated = negation::forbids(
                &value[line_start..c.name.start],
                &self.settings.negation_words,
            );
            let map = |s: Span| raw_span(text, scalar, s);
            let call_span = map(Span::new(
                c.name.start,
                args.close.map_or(c.name.end, |e| e + 1),
            ));
            for mut p in found {
                if negated && p.rule.negation_applies() {
                    continue;
                }
                let local = p.span;
                p.span = map(local);
                // A fix is kept only where the raw text is the decoded text, byte for byte.
                p.fix = p.fix.and_then(|f| {
                    let raw = map(f.span);
                    (raw.of(text) == f.span.of(value)).then_some(Edit {
                        span: raw,
                        replacement: f.replacement,
                    })
                });
                doc.problems.push((p, call_span));
            }
        }
    }
}

/// The span of the file's raw text that the span `s` of the decoded `scalar` comes from.
fn raw_span(text: &str, scalar: &Scalar, s: Span) -> Span {
    let value = scalar.value.as_str();
    let start = scalar.raw_offset(text, s.start);
    let end = if s.end > s.start {
        let last = value[..s.end].chars().next_back().map_or(1, char::len_utf8);
        scalar.raw_offset(text, s.end - last) + last
    } else {
        start
    };
    Span::new(start, end.max(start))
}
