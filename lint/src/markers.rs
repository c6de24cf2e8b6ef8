//! Explicit markers that silence named rules, without guessing:
//!
//! ```markdown
//! <!-- toolgate: allow invalid-value -->
//! mr_write(action="merge")             <- this line (the next non-blank one)
//!
//! <!-- toolgate: allow-begin unknown-tool, unknown-field -->
//! ... every line up to the end marker ...
//! <!-- toolgate: allow-end -->
//! ```
//!
//! A marker written at the end of a line with other text applies to that line.

use crate::rules::Rule;
use crate::text::LineIndex;

/// The lines on which rules are silenced.
#[derive(Clone, Debug, Default)]
pub struct Allowances {
    /// (first line, last line, rules), 0-based lines, inclusive.
    ranges: Vec<(usize, usize, Vec<Rule>)>,
    /// Problems with the markers themselves (an unknown rule name), for a warning.
    pub problems: Vec<String>,
}

impl Allowances {
    /// Whether `rule` is silenced on 0-based line `line`.
    pub fn allows(&self, rule: Rule, line: usize) -> bool {
        self.ranges
            .iter()
            .any(|(a, b, rules)| *a <= line && line <= *b && rules.contains(&rule))
    }
}

const PREFIX: &str = "<!--";

/// Reads every marker of `text`.
pub fn read(text: &str, lines: &LineIndex) -> Allowances {
    let mut out = Allowances::default();
    let finder = memchr::memmem::Finder::new("toolgate:");
    let mut open: Option<(usize, Vec<Rule>)> = None;
    for hit in finder.find_iter(text.as_bytes()) {
        let Some(comment_start) = text[..hit].rfind(PREFIX) else {
            continue;
        };
        if !text[comment_start + PREFIX.len()..hit].trim().is_empty() {
            continue;
        }
        let Some(close) = text[hit..].find("-->") else {
            continue;
        };
        let body = text[hit + "toolgate:".len()..hit + close].trim();
        let (verb, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
        let line = lines.line_of(comment_start);
        let mut rules = Vec::new();
        for name in rest.split([',', ' ', '\t']).filter(|s| !s.is_empty()) {
            match Rule::from_name(name) {
                Some(r) => rules.push(r),
                None => out.problems.push(format!(
                    "line {}: unknown rule `{name}` in a toolgate marker (rules: {})",
                    line + 1,
                    Rule::ALL.map(Rule::name).join(", ")
                )),
            }
        }
        match verb {
            "allow" => {
                let line_span = lines.line_span(text, line);
                let before = &text[line_span.start..comment_start];
                let after = text.get(hit + close + 3..line_span.end).unwrap_or("");
                let target = if before.trim().is_empty() && after.trim().is_empty() {
                    next_non_blank(text, lines, line + 1)
                } else {
                    line
                };
                out.ranges.push((target, target, rules));
            }
            "allow-begin" => open = Some((line, rules)),
            "allow-end" => {
                if let Some((from, rules)) = open.take() {
                    out.ranges.push((from, line, rules));
                } else {
                    out.problems.push(format!(
                        "line {}: `allow-end` without an `allow-begin`",
                        line + 1
                    ));
                }
            }
            other => out.problems.push(format!(
                "line {}: unknown toolgate marker `{other}` (use allow, allow-begin or allow-end)",
                line + 1
            )),
        }
    }
    if let Some((from, rules)) = open {
        out.problems.push(format!(
            "line {}: `allow-begin` without an `allow-end`: it applies to the end of the file",
            from + 1
        ));
        out.ranges.push((from, usize::MAX, rules));
    }
    out
}

fn next_non_blank(text: &str, lines: &LineIndex, mut line: usize) -> usize {
    let last = lines.line_of(text.len());
    while line < last && lines.line_span(text, line).of(text).trim().is_empty() {
        line += 1;
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_line_trailing_and_blocks() {
        let text = "a\n<!-- toolgate: allow invalid-value -->\n\nb\nc <!-- toolgate: allow unknown-tool -->\n<!-- toolgate: allow-begin unknown-field, wrong-type -->\nd\n<!-- toolgate: allow-end -->\ne <!-- toolgate: allow nope -->\n";
        let ix = LineIndex::new(text);
        let a = read(text, &ix);
        assert!(!a.allows(Rule::InvalidValue, 0));
        assert!(a.allows(Rule::InvalidValue, 3));
        assert!(!a.allows(Rule::UnknownTool, 3));
        assert!(a.allows(Rule::UnknownTool, 4));
        assert!(a.allows(Rule::WrongType, 6));
        assert!(a.allows(Rule::UnknownField, 7));
        assert!(!a.allows(Rule::UnknownField, 8));
        assert_eq!(a.problems.len(), 1);
    }
}
