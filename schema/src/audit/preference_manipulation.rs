//! `preference-manipulation`: a tool that ranks itself above the others.

use super::{Finding, Pattern, Rule, Severity, ToolCx, scan_prose};
use crate::audit_re;

/// The rule.
pub const RULE: Rule = Rule {
    name: "preference-manipulation",
    severity: Severity::Error,
    summary: "a description ranks its tool above all others (the only reliable tool, never use other tools, others are broken)",
    explain: "preference-manipulation (error)

What it reports:

- error: a tool that calls itself the only reliable, trusted, safe or accurate tool; that
  orders the model to use it instead of any other tool, or never to use other, built-in
  or alternative tools; that says other tools are unreliable, deprecated, broken or
  compromised; that says it is better than all other tools.
- warning: \"always use this tool for everything\", \"the best tool available\".

Why: the model picks a tool by its description. A description that disparages the others
steers calls away from trusted tools toward this one, which is how a malicious server
captures requests meant for another.

Benign phrasings it leaves alone: \"prefer this tool over assign_copilot_to_issue when
available\" (a sibling of the same server, named), \"best for finding exact symbols\",
\"this is more efficient than reading files one by one\".

What it misses: ranking said as a comparison with one named tool of another server (see
`tool-shadowing`).

Fix: say what the tool does well. To allow one tool, see `toolgate explain audit-allow`.",
};

fn patterns() -> [Pattern; 6] {
    [
        (
            audit_re!(
                r"(?i)\b(?:the\s+)?only\s+(?:\w+\s+)?(?:reliable|trusted|trustworthy|safe|secure|accurate|legitimate|authori[sz]ed|sanctioned|correct|genuine|real|verified)\s+(?:tool|way|source|method|option|function|server|means|choice)\b"
            ),
            Severity::Error,
            "the tool calls itself the only trustworthy one",
        ),
        (
            audit_re!(
                r"(?i)\b(?:use|call|prefer|choose|pick|select|invoke)\s+(?:this|me)\s*(?:tool|function|server|one)?\s+(?:instead\s+of|over|rather\s+than|in\s+place\s+of)\s+(?:any|all|every|the\s+other|other|another|similar|alternative|competing|built-?in|default|native|standard)\b"
            ),
            Severity::Error,
            "an order to use this tool instead of the others",
        ),
        (
            audit_re!(
                r"(?i)\b(?:never|do\s+not|don'?t|avoid|stop)\s+(?:ever\s+)?(?:using|use|calling|call|invoking|invoke|trusting|trust|choosing|choose|relying\s+on|rely\s+on)\s+(?:any\s+|the\s+)?(?:other|another|alternative|competing|similar|built-?in|default|native|standard)\s+(?:\w+\s+)?(?:tools?|functions?|servers?|options?|methods?|implementations?)\b"
            ),
            Severity::Error,
            "an order not to use other tools",
        ),
        (
            audit_re!(
                r"(?i)\b(?:other|all\s+other|any\s+other|competing|alternative|similar|built-?in|native)\s+(?:\w+\s+)?(?:tools?|servers?|functions?|implementations?)\s+(?:are|is|have\s+been|may\s+be|might\s+be|can\s+be|will\s+be)\s+(?:\w+\s+)?(?:unreliable|deprecated|broken|unsafe|insecure|compromised|malicious|outdated|inaccurate|untrustworthy|dangerous|buggy|disabled|fake|hacked)\b"
            ),
            Severity::Error,
            "other tools disparaged",
        ),
        (
            audit_re!(
                r"(?i)\b(?:better|superior|more\s+(?:reliable|accurate|secure|trusted|trustworthy))\s+(?:than|to)\s+(?:all|any|every|the)?\s*(?:other|competing|alternative|built-?in|similar)\b"
            ),
            Severity::Error,
            "the tool ranks itself above all others",
        ),
        (
            audit_re!(
                r"(?i)\b(?:always\s+(?:use|call|choose|prefer)\s+this\s+tool\s+(?:for\s+)?(?:all|every|any)thing|(?:the\s+)?(?:best|most\s+(?:reliable|trusted|accurate|powerful))\s+(?:tool|choice|option)\s+(?:for\s+(?:all|any|every)\b|available|ever|in\s+the\s+world))"
            ),
            Severity::Warning,
            "the tool ranks itself above others",
        ),
    ]
}

/// Each prose field, its strongest match.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    scan_prose(cx, &RULE, &patterns(), |_| false, out);
}
