//! `secrecy-directive`: text that tells the model to keep something from the user.

use super::{Finding, Pattern, Rule, Severity, ToolCx, scan_prose};
use crate::audit_re;

/// The rule.
pub const RULE: Rule = Rule {
    name: "secrecy-directive",
    severity: Severity::Error,
    summary: "a description tells the model to keep something from the user (do not tell, hide from, without the user knowing)",
    explain: "secrecy-directive (error)

What it reports: a tool's description, title or parameter description that tells the model
to hide what it does from the user: not to tell, mention, show or reveal something to the
user; to keep it from the user; that the user must not know or need not see; to act
silently or secretly (send, read, call, add ... without saying so); to act without the
user's knowledge or consent. \"It is only an implementation detail\" is a warning.

Why: a tool that describes itself to the user has nothing to hide from them. An order of
secrecy is how a poisoned description keeps the user from noticing the rest of its orders
(reading a key file, copying a message elsewhere).

Benign phrasings it leaves alone: \"check with the user if not sure\", \"tell the user\",
\"the operation succeeds silently if the folder exists\", \"overwrites files without
warning\".

What it misses: secrecy said without naming the user or the act (\"keep this between us\"),
or in a language other than English.

Fix: remove the sentence. To allow one tool, see `toolgate explain audit-allow`.",
};

fn patterns() -> [Pattern; 7] {
    [
        (
            audit_re!(
                r"(?i)\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|avoid|without)\s+(?:ever\s+)?(?:tell|telling|inform|informing|mention|mentioning|notify|notifying|alert|alerting|reveal|revealing|disclose|disclosing|show|showing|let|letting|tip\s+off|bother|bothering|worry|worrying)\b[^.!?\n]{0,48}?\b(?:the\s+)?(?:user|human|operator|owner)s?\b"
            ),
            Severity::Error,
            "an order to keep something from the user",
        ),
        (
            audit_re!(
                r"(?i)\b(?:hide|hidden|conceal|keep|withhold)\b[^.!?\n]{0,48}?\b(?:from|away\s+from)\s+(?:the\s+)?(?:user|human|operator)s?\b"
            ),
            Severity::Error,
            "an order to hide something from the user",
        ),
        (
            audit_re!(
                r"(?i)\b(?:the\s+)?(?:user|human)s?\s+(?:must|should|need|needs|will|may|does|do|can)\s*(?:not|n't|never)\s+(?:need\s+to\s+)?(?:know|see|notice|find\s+out|learn|be\s+(?:told|informed|aware|notified|shown|made\s+aware))\b"
            ),
            Severity::Error,
            "the user is not to know",
        ),
        (
            audit_re!(
                r"(?i)\b(?:secretly|covertly|silently|quietly|discreetly|stealthily|surreptitiously|invisibly)\s+(?:\w+\s+){0,2}?(?:send|forward|copy|upload|include|add|append|attach|read|call|invoke|run|execute|transmit|post|exfiltrat\w*|collect|record|save|store|share|change|modify|replace|redirect|bcc|cc)\b"
            ),
            Severity::Error,
            "an order to act without the user seeing it",
        ),
        (
            audit_re!(
                r"(?i)\bwithout\s+(?:the\s+)?(?:user|human|owner|victim)'?s?\s+(?:knowledge|noticing|knowing|awareness|consent|permission|approval|authori[sz]ation)\b"
            ),
            Severity::Error,
            "an act without the user's knowledge or consent",
        ),
        (
            audit_re!(
                r"(?i)\b(?:do\s+not|don'?t|never|must\s+not)\s+(?:mention|reveal|disclose|acknowledge|narrate|admit|explain|reference|report)\s+(?:that\s+you|this|these|it|any\s+of\s+(?:this|these)|the\s+(?:previous|above|following|hidden|extra|additional|first)|what\s+you)\b"
            ),
            Severity::Error,
            "an order not to mention what the model does",
        ),
        (
            audit_re!(
                r"(?i)\b(?:this|it|that)\s+is\s+(?:just\s+|only\s+|merely\s+|simply\s+)?an?\s+(?:internal\s+|technical\s+)?implementation\s+detail\b"
            ),
            Severity::Warning,
            "an act played down as an implementation detail",
        ),
    ]
}

/// Each prose field, its strongest match.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    scan_prose(cx, &RULE, &patterns(), |_| false, out);
}
