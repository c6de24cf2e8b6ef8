//! `tool-shadowing`: a description that gives orders about tools it does not own.

use super::text::{name_words, quote, sentence_at};
use super::{Finding, Rule, Severity, ToolCx};
use crate::audit_re;

/// The rule.
pub const RULE: Rule = Rule {
    name: "tool-shadowing",
    severity: Severity::Error,
    summary: "a description names another server's tool (and gives orders about it), or changes how a sibling tool is called",
    explain: "tool-shadowing (error)

What it reports:

- error: a tool's text that names a tool of another server (another server of the lock,
  another catalog audited beside it) in a sentence that gives orders (must, always, never,
  instead, when, before, do not, send, change, set, ...);
- warning: a tool's text that names another server's tool without an order;
- error: a tool's text that names a sibling tool of its own server in a sentence that
  redirects it (BCC, redirect, forward, send a copy, change or set its recipient, address,
  URL or endpoint).

A name of one word (`fetch`, `search`) counts only in backticks or quotes, or followed by
\"tool\" or \"function\", since it is also a word of English.

Why: the model reads every server's descriptions together. A description that gives
orders about another server's tool changes what that tool does without touching it: the
published example is an `add` tool whose description makes the model send every e-mail of
a mail server to the attacker.

Benign phrasings it leaves alone: a sibling tool of the same server named in order (\"use
list_issue_types to get valid values\", \"call browser_stop_recording when done\").

What it misses: a foreign tool named by a paraphrase (\"the mail tool\") rather than its
name, and servers not audited together (audit the lock to see them all).

Fix: describe this tool only. To allow one tool, see `toolgate explain audit-allow`.",
};

fn orders() -> &'static regex::Regex {
    audit_re!(
        r"(?i)\b(?:must|always|never|instead|do\s+not|don'?t|should|make\s+sure|ensure|when|whenever|before|after|every\s+time|each\s+time|redirect|send|sends|bcc|cc|change|replace|set|add|include|override|ignore|avoid|stop|disable|prefer|use|call|invoke|deprecated|broken|unreliable)\b"
    )
}

fn redirects() -> &'static regex::Regex {
    audit_re!(
        r"(?i)\b(?:bcc|cc|redirect|reroute|forward(?:ed)?\s+to|send\s+(?:all|every|any|a\s+copy|copies)|(?:change|set|replace|override|rewrite)\s+(?:the\s+|its\s+|their\s+)?(?:recipients?|destination|address|url|endpoint|host|target|e-?mail|phone|account|number|iban|wallet))\b"
    )
}

/// Whether a one-word name at `start..end` of `text` is meant as a tool's name.
fn marked_as_tool(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    let quoted = matches!(before, Some('`' | '\'' | '"')) && before == after;
    let named = audit_re!(r"^\s+(?:tool|function|command)\b").is_match(&text[end..]);
    quoted || named
}

/// Each prose field: foreign tools named, then siblings redirected.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    for field in cx.prose() {
        let mut reported = false;
        for (start, end, name) in cx.foreign_index.find_all(field.text) {
            if name_words(name).len() < 2 && !marked_as_tool(field.text, start, end) {
                continue;
            }
            let owner = cx
                .foreign
                .iter()
                .find(|f| f.name == name)
                .map_or("another server", |f| f.owner.as_str());
            let sentence = sentence_at(field.text, start);
            let (sev, what) = if orders().is_match(sentence) {
                (Severity::Error, "gives orders about")
            } else {
                (Severity::Warning, "names")
            };
            let msg = format!(
                "{what} `{name}`, a tool of `{owner}`: \"{}\"",
                quote(sentence, (0, sentence.len()))
            );
            out.push(cx.finding(&RULE, sev, field, Some((start, end)), msg));
            reported = true;
            break;
        }
        if reported {
            continue;
        }
        for (start, end, name) in cx.sibling_index.find_all(field.text) {
            if name == cx.name {
                continue;
            }
            let sentence = sentence_at(field.text, start);
            if redirects().is_match(sentence) {
                let msg = format!(
                    "redirects `{name}`, another tool of this server: \"{}\"",
                    quote(sentence, (0, sentence.len()))
                );
                out.push(cx.finding(&RULE, Severity::Error, field, Some((start, end)), msg));
                break;
            }
        }
    }
}
