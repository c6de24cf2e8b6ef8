//! `lint --fix` and `lint --diff`: rewrite calls that use a declared former name.
//!
//! A finding carries an [`Edit`] only when the catalog declares the rename (`formerly`), so
//! the rewrite is never a guess. Edits replace exactly their byte spans; every other byte of
//! the file stays as it was. Two edits that overlap, or two different rewrites of the same
//! bytes, are ambiguous: neither is applied and both findings stay.

use crate::finding::Finding;
use crate::text::Edit;

/// The result of applying the fixes of one file's findings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixed {
    /// The text with every unambiguous edit applied.
    pub text: String,
    /// Indexes (into the findings given) of the findings the edits repaired.
    pub applied: Vec<usize>,
    /// Indexes of findings whose edit was not applied because it clashed with another.
    pub ambiguous: Vec<usize>,
}

/// Applies the edits of `findings` to `text`.
pub fn apply(text: &str, findings: &[Finding]) -> Fixed {
    // (edit, finding index), sorted by position; identical edits from several findings (one
    // token reported under two rules) are one edit.
    let mut edits: Vec<(&Edit, usize)> = findings
        .iter()
        .enumerate()
        .filter_map(|(i, f)| f.fix.as_ref().map(|e| (e, i)))
        .filter(|(e, _)| text.get(e.span.range()).is_some())
        .collect();
    edits.sort_by_key(|(e, i)| (e.span.start, e.span.end, *i));

    let mut clash = vec![false; edits.len()];
    for a in 0..edits.len() {
        for b in a + 1..edits.len() {
            let (ea, eb) = (edits[a].0, edits[b].0);
            if eb.span.start >= ea.span.end
                && !(ea.span.is_empty() && eb.span.start == ea.span.start)
            {
                break;
            }
            if ea != eb {
                clash[a] = true;
                clash[b] = true;
            }
        }
    }

    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut applied = Vec::new();
    let mut ambiguous = Vec::new();
    let mut last: Option<&Edit> = None;
    for (k, (edit, index)) in edits.iter().enumerate() {
        if clash[k] {
            ambiguous.push(*index);
            continue;
        }
        applied.push(*index);
        if last == Some(*edit) {
            continue;
        }
        out.push_str(&text[at..edit.span.start]);
        out.push_str(&edit.replacement);
        at = edit.span.end;
        last = Some(*edit);
    }
    out.push_str(&text[at..]);
    applied.sort_unstable();
    ambiguous.sort_unstable();
    Fixed {
        text: out,
        applied,
        ambiguous,
    }
}

/// A unified diff of `old` and `new`, which differ only inside lines (renames never add or
/// remove a line break), with `context` lines around each change. Empty when they are equal.
pub fn unified_diff(path: &str, old: &str, new: &str, context: usize) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    if a.len() != b.len() {
        // Not a line-preserving change: show the files whole rather than guess an alignment.
        out.push_str(&format!("@@ -1,{} +1,{} @@\n", a.len(), b.len()));
        for l in &a {
            push_line(&mut out, '-', l);
        }
        for l in &b {
            push_line(&mut out, '+', l);
        }
        return out;
    }
    let changed: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    let mut i = 0;
    while i < changed.len() {
        // A hunk: changes closer than 2 * context lines share their context.
        let mut j = i;
        while j + 1 < changed.len() && changed[j + 1] - changed[j] <= 2 * context + 1 {
            j += 1;
        }
        let start = changed[i].saturating_sub(context);
        let end = (changed[j] + context + 1).min(a.len());
        let n = end - start;
        out.push_str(&format!("@@ -{},{n} +{},{n} @@\n", start + 1, start + 1));
        for k in start..end {
            if a[k] == b[k] {
                push_line(&mut out, ' ', a[k]);
            } else {
                push_line(&mut out, '-', a[k]);
                push_line(&mut out, '+', b[k]);
            }
        }
        i = j + 1;
    }
    out
}

fn push_line(out: &mut String, sign: char, line: &str) {
    out.push(sign);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Rule, Severity};
    use crate::text::{Position, Span};

    fn finding(start: usize, end: usize, replacement: Option<&str>) -> Finding {
        Finding {
            rule: Rule::InvalidValue,
            severity: Severity::Error,
            message: String::new(),
            path: "s.md".into(),
            span: Span::new(start, end),
            call: Span::new(start, end),
            start: Position::default(),
            end: Position::default(),
            tool: None,
            field: None,
            value: None,
            suggestion: None,
            fix: replacement.map(|r| Edit {
                span: Span::new(start, end),
                replacement: r.to_string(),
            }),
        }
    }

    #[test]
    fn rewrites_only_the_spans() {
        let text = "a mr_write(action=\"comment\") b\r\nc \"comment\"\n";
        let f = [finding(19, 26, Some("note")), finding(0, 1, None)];
        let fixed = apply(text, &f);
        assert_eq!(
            fixed.text,
            "a mr_write(action=\"note\") b\r\nc \"comment\"\n"
        );
        assert_eq!(fixed.applied, [0]);
        assert!(fixed.ambiguous.is_empty());
    }

    #[test]
    fn identical_edits_are_one_and_clashing_edits_none() {
        let text = "xx old yy";
        let fixed = apply(
            text,
            &[finding(3, 6, Some("new")), finding(3, 6, Some("new"))],
        );
        assert_eq!(fixed.text, "xx new yy");
        assert_eq!(fixed.applied, [0, 1]);
        let fixed = apply(
            text,
            &[finding(3, 6, Some("new")), finding(4, 6, Some("other"))],
        );
        assert_eq!(fixed.text, text);
        assert_eq!(fixed.ambiguous, [0, 1]);
    }

    #[test]
    fn diff_has_context_and_marks_the_last_line() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\nold";
        let new = "1\nNEW\n3\n4\n5\n6\n7\n8\n9\nnew";
        assert_eq!(
            unified_diff("s.md", old, new, 1),
            "--- a/s.md\n+++ b/s.md\n@@ -1,3 +1,3 @@\n 1\n-2\n+NEW\n 3\n@@ -9,2 +9,2 @@\n 9\n-old\n\\ No newline at end of file\n+new\n\\ No newline at end of file\n"
        );
        assert_eq!(unified_diff("s.md", "same", "same", 3), "");
    }
}
