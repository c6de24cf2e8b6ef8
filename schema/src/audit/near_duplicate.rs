//! `near-duplicate`: two tools of one surface that a model cannot tell apart.

use std::collections::HashMap;

use super::text::normalized;
use super::{FieldKind, Finding, Rule, Severity, ToolCx};

/// The rule.
pub const RULE: Rule = Rule {
    name: "near-duplicate",
    severity: Severity::Error,
    summary: "two tools of one surface with names that differ only in case or separators, or by one letter, or with the same description",
    explain: "near-duplicate (error)

What it reports, among the tools of one surface:

- error: two names that are the same once case and separators are dropped (`get_user`,
  `get-user`, `getUser`);
- warning: two names one edit apart (`read_file`, `raed_file`), a plural pair and names
  that differ in a digit aside;
- warning: two tools with the same description under different names.

Why: the model chooses among tools by name and description. A near-copy of a tool is how
a server captures the calls meant for its twin; by accident, it makes the model pick one
at random.

What it misses: twins with different names and reworded descriptions; twins on two
servers (see `name-collision`).

Fix: remove or rename one. To allow one tool, see `toolgate explain audit-allow`.",
};

/// Whether `a` and `b` are one substitution, insertion or deletion apart.
pub fn one_edit(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    if long.len() - short.len() > 1 || a == b {
        return false;
    }
    let p = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    if short.len() == long.len() {
        short[p + 1..] == long[p + 1..]
    } else {
        short[p..] == long[p + 1..]
    }
}

/// A plural pair or a numbered series: one edit apart by design.
fn by_design(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let plural = long.strip_suffix('s') == Some(short);
    let digit = a.len() == b.len()
        && a.chars()
            .zip(b.chars())
            .any(|(x, y)| x != y && x.is_ascii_digit() && y.is_ascii_digit());
    plural || digit
}

fn describe(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Every pair of the surface, each reported on the later tool.
pub fn check(cxs: &[ToolCx<'_>], out: &mut Vec<Finding>) {
    let keys: Vec<String> = cxs.iter().map(|c| normalized(c.name)).collect();
    let mut by_len: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, k) in keys.iter().enumerate() {
        by_len.entry(k.chars().count()).or_default().push(i);
    }
    let mut by_desc: HashMap<String, usize> = HashMap::new();
    for (j, cx) in cxs.iter().enumerate() {
        let n = keys[j].chars().count();
        let mut twin = None;
        for len in [n.saturating_sub(1), n, n + 1] {
            for &i in by_len.get(&len).map_or(&[][..], Vec::as_slice) {
                if i >= j || cxs[i].name == cx.name {
                    continue;
                }
                if keys[i] == keys[j] {
                    twin = Some((i, Severity::Error));
                    break;
                }
                if n >= 5 && one_edit(&keys[i], &keys[j]) && !by_design(&keys[i], &keys[j]) {
                    twin = twin.or(Some((i, Severity::Warning)));
                }
            }
        }
        if let Some((i, sev)) = twin {
            report(cx, cxs[i].name, sev, "a name that reads like", out);
            continue;
        }
        let d = describe(cx.description());
        if d.len() >= 24 {
            match by_desc.get(&d) {
                Some(&i) if cxs[i].name != cx.name => report(
                    cx,
                    cxs[i].name,
                    Severity::Warning,
                    "the same description as",
                    out,
                ),
                _ => {
                    by_desc.insert(d, j);
                }
            }
        }
    }
}

fn report(cx: &ToolCx<'_>, other: &str, sev: Severity, what: &str, out: &mut Vec<Finding>) {
    let Some(field) = cx.fields.iter().find(|f| f.kind == FieldKind::Name) else {
        return;
    };
    let msg = format!(
        "`{}` has {what} `{other}`, another tool of this surface",
        cx.name
    );
    out.push(cx.finding(&RULE, sev, field, Some((0, cx.name.len())), msg));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits() {
        assert!(!one_edit("readfile", "raedfile"));
        assert!(one_edit("readfile", "readfil"));
        assert!(one_edit("readfile", "reedfile"));
        assert!(!one_edit("readfile", "readfile"));
        assert!(by_design("browsernetworkrequest", "browsernetworkrequests"));
        assert!(by_design("step1", "step2"));
    }
}
