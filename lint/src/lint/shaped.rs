//! The shaped-names stage: an unprefixed name that has the naming pattern of a configured
//! server's tools (`browser_` for Playwright's) but is not one of them, written where a tool
//! name goes: tight against a call's `(`, as the string of a JSON `"tool_name"`, `"name"` or
//! `"tool"` member, or in the front matter's `tools:` list. A bare unknown name cannot be
//! judged in general (it may be any function, or a host's tool); one of the server's shape
//! can.

use crate::args::{is_name_byte, name_end};
use crate::check::NameKind;
use crate::text::Span;

use super::{Document, HOST_TOOLS, Linter};

impl Linter<'_> {
    /// Stage 3c: every name of a server's shape, in a call, a JSON payload or a front matter
    /// tool list, that no server has: `unknown-tool`, with the closest of the server's tools.
    pub(super) fn check_shaped_names(&self, doc: &mut Document<'_>) {
        let text = doc.text;
        let front = doc.front.map(|f| Span::new(doc.bom, f.body_start));
        for server in &self.servers {
            let Some(shape) = &server.shape else { continue };
            for s in memchr::memmem::find_iter(text.as_bytes(), shape.as_bytes()) {
                let Some(name) = self.shaped_unknown(text, s) else {
                    continue;
                };
                if doc.called.contains(&s) || doc.problems.iter().any(|(p, _)| p.span.start == s) {
                    continue;
                }
                let in_front = front.is_some_and(|f| s < f.end);
                let placed = if in_front {
                    in_tools_key(&text[front.map_or(0, |f| f.start)..s])
                } else {
                    text.as_bytes().get(name.end) == Some(&b'(') || is_payload(&text[..s])
                };
                if !placed {
                    continue;
                }
                let mut p = server.checker.unknown_tool(name.of(text), name);
                if p.fix.is_none()
                    && let Some(better) = same_words(name.of(text), shape, server)
                {
                    p.message =
                        crate::rules::unknown_tool::message(name.of(text), None, Some(better));
                    p.suggestion = Some(better.to_string());
                }
                self.push_unless_negated(text, s, vec![p], name, &mut doc.problems);
            }
        }
    }

    /// The name starting at `s` (where a server's shape was found), when it is a whole
    /// unprefixed word no server knows and no host has: not `mcp__x__browser_y`, not
    /// `page.browser_y`, not the pattern `browser_*` or the bare `browser_`.
    fn shaped_unknown(&self, text: &str, s: usize) -> Option<Span> {
        let b = text.as_bytes();
        if s > 0 && (is_name_byte(b[s - 1]) || matches!(b[s - 1], b'.' | b'/' | b'@' | b':')) {
            return None;
        }
        let e = name_end(b, s, b.len());
        let name = &text[s..e];
        if name.ends_with(['_', '-']) || b.get(e) == Some(&b'*') || HOST_TOOLS.contains(&name) {
            return None;
        }
        if self
            .servers
            .iter()
            .any(|sv| sv.checker.lookup(name) != NameKind::Unknown)
        {
            return None;
        }
        Some(Span::new(s, e))
    }
}

/// The one tool of the server whose words, after the shape, include every word of `name`
/// after it (`browser_screenshot` -> `browser_take_screenshot`): a better guess than the
/// closest spelling (`browser_snapshot`) when a server renamed a tool by adding a verb.
fn same_words<'s>(name: &str, shape: &str, server: &super::Server<'s>) -> Option<&'s str> {
    let words: Vec<&str> = name.get(shape.len()..)?.split(['_', '-']).collect();
    let mut found = server.checker.surface.tools.iter().filter(|t| {
        let theirs: Vec<&str> = t
            .name
            .get(shape.len()..)
            .unwrap_or("")
            .split(['_', '-'])
            .collect();
        words.iter().all(|w| !w.is_empty() && theirs.contains(w))
    });
    let first = found.next()?;
    found.next().is_none().then_some(first.name.as_str())
}

/// Whether the text before a name ends like a JSON member naming a tool: `"tool_name": "`,
/// `"name": "`, `"tool": "` (single quotes too).
fn is_payload(before: &str) -> bool {
    let Some(b) = before.strip_suffix(['"', '\'']) else {
        return false;
    };
    let Some(b) = b.trim_end().strip_suffix(':') else {
        return false;
    };
    let b = b.trim_end();
    ["tool_name", "name", "tool", "toolName"].iter().any(|k| {
        b.strip_suffix(['"', '\''])
            .and_then(|b| b.strip_suffix(k))
            .is_some_and(|b| b.ends_with(['"', '\'']))
    })
}

/// Whether the end of `front` (the front matter up to a name) is inside the value of its
/// top-level `tools:` key: the nearest line that starts without indentation is that key.
fn in_tools_key(front: &str) -> bool {
    for line in front.rsplit('\n') {
        let t = line.trim_start_matches('\u{feff}');
        if t.is_empty() || t.starts_with([' ', '\t', '-', '#']) || t == "---" {
            continue;
        }
        return t.starts_with("tools:");
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_members_and_tool_keys() {
        assert!(is_payload("{\"tool_name\": \""));
        assert!(is_payload("{'name':'"));
        assert!(!is_payload("{\"title\": \""));
        assert!(!is_payload("see "));
        assert!(in_tools_key("---\ndescription: x\ntools: ['a', '"));
        assert!(in_tools_key("---\ntools:\n  - a\n  - "));
        assert!(!in_tools_key("---\ntools: [a]\ndescription: use "));
    }
}
