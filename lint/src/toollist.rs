//! Front matter tool lists (`tools:`, `allowed-tools:`), read from the raw lines.
//!
//! Hosts accept front matter that is not strict YAML (an unquoted `: ` in a description), so
//! the lists are read line by line rather than from the YAML decoder: a key at the start of a
//! line, then a flow list (`[a, 'b']`), a block list (`- a` lines) or a string split on commas
//! and white space outside parentheses (`Read, Bash(git add:*) mcp__github__get_me`).

use crate::text::Span;

/// Which list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKey {
    /// `tools:`: the tools an agent has (a restriction for Claude Code subagents and Copilot
    /// custom agents).
    Tools,
    /// `allowed-tools:`: tools pre-approved, not a restriction.
    AllowedTools,
}

/// A tool list and its entries, each with its span in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolList {
    /// The key.
    pub key: ListKey,
    /// The entries, unquoted.
    pub entries: Vec<(String, Span)>,
}

/// The tool lists of the front matter at `yaml` in `text`.
pub fn read(text: &str, yaml: Span) -> Vec<ToolList> {
    let mut out = Vec::new();
    let mut pos = yaml.start;
    let end = yaml.end.min(text.len());
    let mut current: Option<ToolList> = None;
    while pos < end {
        let line_end = memchr::memchr(b'\n', &text.as_bytes()[pos..end]).map_or(end, |i| pos + i);
        let line = &text[pos..line_end];
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(list) = current.as_mut() {
            if let Some(item) = trimmed
                .strip_prefix("- ")
                .or_else(|| trimmed.strip_prefix('-'))
                && (indent > 0 || trimmed.starts_with('-'))
            {
                let at = pos + indent + (trimmed.len() - item.len());
                split_entries(text, Span::new(at, line_end), &mut list.entries);
                pos = line_end + 1;
                continue;
            }
            if indent > 0 && !trimmed.is_empty() && !trimmed.starts_with('#') {
                // A continuation of a flow list or a string over several lines.
                split_entries(text, Span::new(pos + indent, line_end), &mut list.entries);
                pos = line_end + 1;
                continue;
            }
            if !trimmed.is_empty() {
                out.extend(current.take());
            }
        }
        if indent == 0 {
            let key = if line.starts_with("tools:") {
                Some((ListKey::Tools, "tools:".len()))
            } else if line.starts_with("allowed-tools:") || line.starts_with("allowed_tools:") {
                Some((ListKey::AllowedTools, "allowed-tools:".len()))
            } else {
                None
            };
            if let Some((key, len)) = key {
                let mut list = ToolList {
                    key,
                    entries: Vec::new(),
                };
                split_entries(text, Span::new(pos + len, line_end), &mut list.entries);
                current = Some(list);
            }
        }
        pos = line_end + 1;
    }
    out.extend(current);
    out
}

/// Splits `span` of `text` into entries: separated by commas and white space outside
/// parentheses and quotes; `[`, `]` and quotes are not part of an entry.
fn split_entries(text: &str, span: Span, out: &mut Vec<(String, Span)>) {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut start: Option<usize> = None;
    let mut i = span.start;
    let push = |s: usize, e: usize, out: &mut Vec<(String, Span)>| {
        let raw = &text[s..e];
        if !raw.is_empty() && !raw.starts_with('#') {
            out.push((raw.to_string(), Span::new(s, e)));
        }
    };
    while i < span.end {
        let b = bytes[i];
        match (quote, b) {
            (Some(q), _) if b == q && depth == 0 => {
                if let Some(s) = start.take() {
                    push(s, i, out);
                }
                quote = None;
            }
            (Some(_), _) => {
                if start.is_none() {
                    start = Some(i);
                }
            }
            (None, b'#') if start.is_none() && depth == 0 => break,
            (None, b'"' | b'\'') if start.is_none() && depth == 0 => quote = Some(b),
            (None, b'(') => {
                depth += 1;
                start.get_or_insert(i);
            }
            (None, b')') => depth = depth.saturating_sub(1),
            (None, b',' | b' ' | b'\t' | b'[' | b']' | b'\r') if depth == 0 => {
                if let Some(s) = start.take() {
                    push(s, i, out);
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
        i += 1;
    }
    if let Some(s) = start {
        push(s, span.end, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(ListKey, Vec<String>)> {
        let yaml = Span::new(0, text.len());
        read(text, yaml)
            .into_iter()
            .map(|l| (l.key, l.entries.into_iter().map(|(n, _)| n).collect()))
            .collect()
    }

    #[test]
    fn every_list_shape() {
        assert_eq!(
            names("name: x\ntools: Read, Bash(git add:*), mcp__github__get_me\n"),
            [(
                ListKey::Tools,
                vec![
                    "Read".into(),
                    "Bash(git add:*)".into(),
                    "mcp__github__get_me".into()
                ]
            )]
        );
        assert_eq!(
            names("allowed-tools: Read Grep mcp__github__issue_read\n"),
            [(
                ListKey::AllowedTools,
                vec![
                    "Read".into(),
                    "Grep".into(),
                    "mcp__github__issue_read".into()
                ]
            )]
        );
        assert_eq!(
            names("tools: ['github/*', \"read/readFile\"]\ndescription: a: b\n"),
            [(
                ListKey::Tools,
                vec!["github/*".into(), "read/readFile".into()]
            )]
        );
        assert_eq!(
            names("tools:\n  - Read\n  - mcp__github__get_me # the user\nmodel: x\n"),
            [(
                ListKey::Tools,
                vec!["Read".into(), "mcp__github__get_me".into()]
            )]
        );
    }

    #[test]
    fn spans_point_at_the_entries() {
        let t = "tools: [a, 'bc']\n";
        let l = read(t, Span::new(0, t.len()));
        assert_eq!(l[0].entries[1].1.of(t), "bc");
    }
}
