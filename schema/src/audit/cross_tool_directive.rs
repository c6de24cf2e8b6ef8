//! `cross-tool-directive`: text that gives orders about every other tool call or request.

use super::{Finding, Pattern, Rule, Severity, ToolCx, scan_prose};
use crate::audit_re;

/// The rule.
pub const RULE: Rule = Rule {
    name: "cross-tool-directive",
    severity: Severity::Error,
    summary: "a description gives orders about all other tool calls or requests (before using any other tool, call this first)",
    explain: "cross-tool-directive (error)

What it reports:

- error: a tool's text that orders something before, after or instead of any other tool
  call, request or answer (\"before using any other tool\", \"every time you call a tool\",
  \"before responding to any request\"), or that this tool must be called before or with
  every other one.
- warning: an order about all subsequent or future calls, requests or messages.

Why: a tool describes itself. A description that hooks itself into every other call is the
shape of a poisoned tool that makes the model run it (or read a file, or send data) first,
whatever the user asked.

Benign phrasings it leaves alone: \"call list_issue_types before setting a type\" (a named
tool of the same server, in order), \"use this before requesting a human reviewer\", \"call
browser_stop_recording when the user says they are done\".

What it misses: an order about one named tool of another server (see `tool-shadowing`).

Fix: describe when the tool is useful instead. To allow one tool, see
`toolgate explain audit-allow`.",
};

fn patterns() -> [Pattern; 4] {
    [
        (
            audit_re!(
                r"(?i)\b(?:before|prior\s+to|after|whenever|every\s+time|each\s+time|instead\s+of)\s+(?:you\s+)?(?:use|using|call|calling|invoke|invoking|run|running|execute|executing|respond|responding|answer|answering|reply|replying|make|making)\s+(?:to\s+)?(?:any|every|all|each|another|other|a)\s+(?:other\s+|single\s+)?(?:tools?|tool\s+calls?|functions?|function\s+calls?|commands?|requests?|queries|questions?|messages?|mcp\s+servers?|servers?)\b"
            ),
            Severity::Error,
            "an order hooked into every other tool call or request",
        ),
        (
            audit_re!(
                r"(?i)\b(?:always|first|must|should)\s+(?:\w+\s+){0,3}?(?:call|use|invoke|run|execute)\s+(?:this\s+tool|me|this\s+function|this)\s+(?:before|first\s+before|prior\s+to|ahead\s+of)\s+(?:any|every|all|each|using\s+any|calling\s+any|other)\b"
            ),
            Severity::Error,
            "an order to call this tool before any other",
        ),
        (
            audit_re!(
                r"(?i)\b(?:must|should|needs?\s+to|has\s+to)\s+(?:always\s+)?be\s+(?:called|used|run|invoked|executed)\s+(?:before|after|alongside|together\s+with|with|first\s+before)\s+(?:any|every|all|each)\s+(?:other\s+)?(?:tools?|calls?|functions?|requests?|actions?)\b"
            ),
            Severity::Error,
            "an order to call this tool with every other",
        ),
        (
            audit_re!(
                r"(?i)\b(?:for|on|in|with|to)\s+(?:all|every|each|any)\s+(?:subsequent|future|following|later|other|remaining)\s+(?:tool\s+)?(?:calls?|requests?|responses?|invocations?|messages?|conversations?|turns?|answers?)\b"
            ),
            Severity::Warning,
            "an order about all later calls or messages",
        ),
    ]
}

/// Each prose field, its strongest match.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    scan_prose(cx, &RULE, &patterns(), |_| false, out);
}
