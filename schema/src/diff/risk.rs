//! The risk of each change of a diff, beside its bump: what a change does to the text the
//! model reads and to the hints hosts decide by, judged with the audit.
//!
//! - `none`: nothing the model reads changed beyond white space and typography (curly
//!   quotes, dashes, ellipses, non-breaking spaces), or only what a host shows (icons,
//!   `_meta`);
//! - `review`: any other change of words, a schema widened or narrowed, an annotation
//!   changed, a tool added or removed;
//! - `high`: the change introduces an audit error on the tool; `readOnlyHint` or
//!   `destructiveHint` flipped the unsafe way (now read-only, or no longer destructive); a
//!   tool removed while a similar one (a name one edit away, or the same description)
//!   arrives: the rename that defeats a pin by name.

use std::collections::BTreeSet;
use std::fmt;

use super::{Change, Diff};
use crate::audit::near_duplicate::one_edit;
use crate::audit::text::normalized;
use crate::audit::{self, AuditSurface, FieldKind, Severity};
use crate::json::Value;
use crate::surface::{Entry, Surface};

/// How much a change needs a person's eyes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Risk {
    /// Nothing the model reads changed beyond white space and typography.
    None,
    /// Words, a schema or an annotation changed; a tool came or went.
    Review,
    /// The change introduces an audit error, makes a hint claim more safety, or swaps a
    /// tool for a look-alike.
    High,
}

impl Risk {
    /// `none`, `review` or `high`.
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::None => "none",
            Risk::Review => "review",
            Risk::High => "high",
        }
    }

    /// The risk named `s`.
    pub fn parse(s: &str) -> Option<Risk> {
        match s {
            "none" => Some(Risk::None),
            "review" => Some(Risk::Review),
            "high" => Some(Risk::High),
            _ => None,
        }
    }
}

impl fmt::Display for Risk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Text with typography folded (quotes, dashes, ellipses, spaces) and white space collapsed.
pub fn folded(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '`' => s.push('\''),
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => s.push('"'),
            '\u{2010}'..='\u{2015}' | '\u{2212}' => s.push('-'),
            '\u{2026}' => s.push_str("..."),
            c if c.is_whitespace() => s.push(' '),
            c => s.push(c),
        }
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text the model reads of a served tool, folded: name, titles, descriptions.
fn model_text(tool: &Value) -> Vec<(String, String)> {
    let Some(map) = tool.as_object() else {
        return Vec::new();
    };
    audit::text::fields(map)
        .into_iter()
        .filter(|f| f.kind.is_prose() || matches!(f.kind, FieldKind::ParamName | FieldKind::Name))
        .map(|f| (f.path, folded(f.text)))
        .collect()
}

/// The tools of `s` whose audit has an error, each with its error rules.
fn audit_errors(s: &Surface) -> BTreeSet<(String, &'static str)> {
    let tools = audit::catalog_tools(s);
    let surface = [AuditSurface {
        server: None,
        prefixes: &[],
        tools: &tools,
    }];
    audit::audit(&surface, &[])
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| (f.tool, f.rule))
        .collect()
}

fn entry<'a>(s: &'a Surface, tool: &str, profiles: &[String]) -> Option<&'a Entry> {
    profiles
        .first()
        .and_then(|p| s.entry_for(tool, p))
        .or_else(|| s.tool(tool)?.entries.first())
}

fn served(e: &Entry) -> Value {
    Value::Object(e.served.clone())
}

fn hint(e: &Entry, key: &str) -> Option<bool> {
    let a = e.annotations.as_ref()?;
    match key {
        "readOnlyHint" => a.read_only_hint,
        _ => a.destructive_hint,
    }
}

/// Whether the hints now claim more safety: read-only where they did not, or no longer
/// destructive where they did not say so.
fn unsafe_flip(old: &Entry, new: &Entry) -> bool {
    let ro = hint(old, "readOnlyHint") != Some(true) && hint(new, "readOnlyHint") == Some(true);
    let de =
        hint(old, "destructiveHint") != Some(false) && hint(new, "destructiveHint") == Some(false);
    ro || de
}

/// Removed and added tools that look alike: both sides of each such pair.
fn lookalike_swaps(d: &Diff, old: &Surface, new: &Surface) -> BTreeSet<String> {
    let names = |rule: &str| -> Vec<&str> {
        d.changes
            .iter()
            .filter(|c| c.rule == rule)
            .filter_map(|c| c.tool.as_deref())
            .collect()
    };
    let desc = |s: &Surface, t: &str| {
        s.tool(t)
            .and_then(|t| t.entries.first())
            .map(|e| folded(&e.description).to_lowercase())
            .unwrap_or_default()
    };
    let mut out = BTreeSet::new();
    for r in names("tool-removed") {
        for a in names("tool-added") {
            let (nr, na) = (normalized(r), normalized(a));
            let same_desc = {
                let (x, y) = (desc(old, r), desc(new, a));
                x.len() >= 16 && x == y
            };
            if nr == na || (nr.len() >= 5 && one_edit(&nr, &na)) || same_desc {
                out.insert(r.to_string());
                out.insert(a.to_string());
            }
        }
    }
    out
}

/// Sets the risk of every change of `d` (old and new are the surfaces it compares) and the
/// diff's overall risk.
pub fn assess(old: &Surface, new: &Surface, d: &mut Diff) {
    let before = audit_errors(old);
    let introduced: BTreeSet<String> = audit_errors(new)
        .into_iter()
        .filter(|e| !before.contains(e))
        .map(|(t, _)| t)
        .collect();
    let swaps = lookalike_swaps(d, old, new);
    for c in &mut d.changes {
        c.risk = risk_of(c, old, new, &introduced, &swaps);
    }
    d.risk = d.changes.iter().map(|c| c.risk).max().unwrap_or(Risk::None);
}

fn risk_of(
    c: &Change,
    old: &Surface,
    new: &Surface,
    introduced: &BTreeSet<String>,
    swaps: &BTreeSet<String>,
) -> Risk {
    let tool = c.tool.as_deref().unwrap_or("");
    if introduced.contains(tool) || swaps.contains(tool) {
        return Risk::High;
    }
    let (o, n) = (entry(old, tool, &c.profiles), entry(new, tool, &c.profiles));
    match c.rule {
        "icons-changed" | "meta-changed" => Risk::None,
        "description-changed" | "title-changed" => match (o, n) {
            (Some(o), Some(n)) if model_text(&served(o)) == model_text(&served(n)) => Risk::None,
            _ => Risk::Review,
        },
        "tool-annotations-changed" => match (o, n) {
            (Some(o), Some(n)) if unsafe_flip(o, n) => Risk::High,
            _ => Risk::Review,
        },
        _ => Risk::Review,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typography_folds() {
        assert_eq!(
            folded("It\u{2019}s  a \u{201C}test\u{201D} \u{2014} ok\u{2026}"),
            "It's a \"test\" - ok..."
        );
        assert_ne!(folded("Reads a file"), folded("Reads the file"));
        assert_eq!(Risk::parse("review"), Some(Risk::Review));
        assert!(Risk::High > Risk::Review && Risk::Review > Risk::None);
    }
}
