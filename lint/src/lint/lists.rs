//! The host-lists stage: the tool lists of host configurations (Codex's `enabled_tools`,
//! Gemini CLI's `includeTools`, opencode's `tools` map, ...; [`toollists`] reads them). Each
//! entry names a tool of the server the list belongs to, and is judged as every other name
//! written outside a call ([`Linter::reference_problem`]: a former name is renamed, a
//! removed or unknown one is `unknown-tool`); a pattern that matches none of the server's
//! tools is `unknown-tool` too. The lists of a server the lint has no surface for are left
//! unchecked, with a warning that says so.

use crate::check::NameKind;
use crate::hosts::toollists::{self, Listed};
use crate::rules::{self, Problem};
use crate::text::Span;

use super::{Document, Linter, Reference};

impl Linter<'_> {
    /// Stage 3c: the entries of a host configuration's tool lists, each reported once (the
    /// references stage, which finds prefixed names in any data file, leaves them alone).
    pub(super) fn check_host_lists(&self, doc: &mut Document<'_>) {
        let Some(format) = toollists::format_of(doc.path) else {
            return;
        };
        let listed = match toollists::read(format, doc.text) {
            Ok(l) => l,
            Err(e) => {
                doc.lint.errors.push(format!(
                    "{}:{e}: its tool lists could not be checked",
                    doc.path
                ));
                return;
            }
        };
        for what in toollists::unread(format, doc.text) {
            doc.lint.warnings.push(format!(
                "{}: {what}: that tool list is not checked",
                doc.path
            ));
        }
        let mut unknown_servers: Vec<&str> = Vec::new();
        for entry in &listed {
            let Some(si) = self.servers.iter().position(|s| s.name == entry.server) else {
                if !unknown_servers.contains(&entry.server.as_str()) {
                    unknown_servers.push(&entry.server);
                }
                continue;
            };
            doc.called.push(entry.written.start + entry.prefix);
            let problem = if entry.glob {
                self.pattern_problem(si, &entry.value, &entry.host_prefix, entry.written)
            } else {
                self.list_name_problem(doc, si, entry)
            };
            if let Some(mut p) = problem {
                p.tool = Some(entry.written.of(doc.text).to_string());
                p.span = entry.written;
                doc.problems.push((p, entry.written));
            }
        }
        for server in unknown_servers {
            doc.lint.warnings.push(format!(
                "{}: the tool lists of the server `{server}` are not checked: no surface is named `{server}` (name it in toolgate.toml, or lock it from a host configuration)",
                doc.path
            ));
        }
    }

    /// A name entry: [`Linter::reference_problem`] of the name behind the list's prefix, as
    /// the host reads it; said in the list's own spelling (opencode's `SERVER_TOOL`).
    fn list_name_problem(
        &self,
        doc: &mut Document<'_>,
        si: usize,
        entry: &Listed,
    ) -> Option<Problem> {
        let tool = entry.value.get(entry.prefix..).unwrap_or("");
        let checker = &self.servers[si].checker;
        if !entry.host_prefix.is_empty() {
            // opencode names a tool with what it cannot take made `_` (`files.read` is
            // `SERVER_files_read`), and compares keys with that name only.
            let spelled = |t: &str| toollists::host_tool_name(t, true);
            if checker
                .surface
                .tools
                .iter()
                .any(|t| spelled(&t.name) == tool)
            {
                return None;
            }
            if spelled(tool) != tool && matches!(checker.lookup(tool), NameKind::Known) {
                let name = spelled(tool);
                let mut p = checker.unknown_tool(tool, entry.written);
                p.message = rules::unknown_tool::message(tool, None, Some(&name));
                p.suggestion = Some(name);
                return Some(in_list_spelling(p, entry));
            }
        }
        let r = Reference {
            server: si,
            full: entry.written,
            name: Span::new(entry.written.start + entry.prefix, entry.written.end),
            generic: false,
            pattern: false,
        };
        let mut p = self.reference_problem(doc, &r, tool, None, false)?;
        if entry.written.of(doc.text) != entry.value {
            // Escapes in the entry: its bytes are not the name's, and a rewrite could miss.
            p.fix = None;
        }
        Some(in_list_spelling(p, entry))
    }

    /// `unknown-tool` for `pattern`, written at `span` (`*` any run of characters, `?` any
    /// one), when it matches none of server `si`'s tools each written behind `host_prefix`
    /// (and, behind a host's prefix, in that host's spelling of tool names).
    pub(super) fn pattern_problem(
        &self,
        si: usize,
        pattern: &str,
        host_prefix: &str,
        span: Span,
    ) -> Option<Problem> {
        let server = &self.servers[si];
        let spelled = !host_prefix.is_empty();
        let hit = server.checker.surface.tools.iter().any(|t| {
            let name = toollists::host_tool_name(&t.name, spelled);
            toollists::glob_matches(pattern, &format!("{host_prefix}{name}"))
        });
        if hit {
            return None;
        }
        let mut p = server.checker.unknown_tool(pattern, span);
        p.message = rules::unknown_tool::pattern_matches_none(pattern, &server.name);
        p.suggestion = None;
        p.fix = None;
        Some(p)
    }
}

/// `p`, which names tools by the server's names, said in the list's own spelling
/// (opencode's `SERVER_TOOL`).
fn in_list_spelling(mut p: Problem, entry: &Listed) -> Problem {
    if !entry.host_prefix.is_empty() {
        let host_prefix = &entry.host_prefix;
        p.suggestion = p.suggestion.map(|s| format!("{host_prefix}{s}"));
        p.message = respelled(&p.message, host_prefix);
    }
    p
}

/// `message`, which names a tool and the tools it suggests by the server's own names (each
/// in backticks), with each of those names behind `host_prefix`.
fn respelled(message: &str, host_prefix: &str) -> String {
    let mut out = String::with_capacity(message.len() + 2 * host_prefix.len());
    let mut rest = message;
    // Every backticked name in the message is a tool's.
    while let Some(open) = rest.find('`') {
        let Some(close) = rest[open + 1..].find('`').map(|c| open + 1 + c) else {
            break;
        };
        out.push_str(&rest[..=open]);
        let name = &rest[open + 1..close];
        if !name.is_empty() && !name.contains(' ') {
            out.push_str(host_prefix);
        }
        out.push_str(name);
        out.push('`');
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_message_is_respelled_with_the_hosts_prefix() {
        assert_eq!(
            super::respelled(
                "unknown tool `convert` (did you mean `convert_time`?)",
                "time_"
            ),
            "unknown tool `time_convert` (did you mean `time_convert_time`?)"
        );
        assert_eq!(
            super::respelled("unknown tool `a`: it was renamed to `b`", "s_"),
            "unknown tool `s_a`: it was renamed to `s_b`"
        );
    }
}
