//! `override-directive`: text that tells the model to set aside its instructions.

use super::{Finding, Pattern, Rule, Severity, ToolCx, scan_prose};
use crate::audit_re;

/// The rule.
pub const RULE: Rule = Rule {
    name: "override-directive",
    severity: Severity::Error,
    summary: "a description tells the model to ignore or replace its instructions, or gives it a new role",
    explain: "override-directive (error)

What it reports: text that tells the model to ignore, disregard, forget or bypass its
previous, system or safety instructions; that claims to take precedence over them; that
gives the model a new role, mode or system prompt (\"you are now\", \"from now on you\",
\"developer mode enabled\"); that orders an act regardless of the user or of other
instructions.

Why: a tool's description has no authority over the model's instructions; text that claims
it is a prompt injection.

Benign phrasings it leaves alone: \"custom_instructions are ignored in this case\", \"if both
are given, code will be ignored\", a description that says a tool gives the model a
capability it did not have.

What it misses: an override said indirectly (\"the earlier guidance was a test\").

Fix: remove the sentence. To allow one tool, see `toolgate explain audit-allow`.",
};

fn patterns() -> [Pattern; 6] {
    [
        (
            audit_re!(
                r"(?i)\b(?:ignore|disregard|forget|override|overrule|bypass|discard|abandon|set\s+aside)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?(?:the\s+|your\s+|its\s+|my\s+)?(?:previous|prior|earlier|above|preceding|former|original|initial|existing|other|system|safety|security|default|old|standing)\s+(?:\w+\s+)?(?:instructions?|guidelines?|rules?|directives?|prompts?|constraints?|policies|policy|restrictions?|guardrails?|messages?|orders?)\b"
            ),
            Severity::Error,
            "an order to set aside the model's instructions",
        ),
        (
            audit_re!(
                r"(?i)\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+|everything\s+)?(?:you\s+(?:were|have\s+been)\s+told|(?:your|the)\s+(?:instructions|guidelines|rules|system\s+prompt|training|programming))\b"
            ),
            Severity::Error,
            "an order to set aside the model's instructions",
        ),
        (
            audit_re!(
                r"(?i)\b(?:supersedes?|overrides?|takes?\s+(?:priority|precedence)\s+over|outranks?|replaces?)\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:other\s+|previous\s+|prior\s+|earlier\s+|system\s+|user\s+|existing\s+|safety\s+)+(?:instructions?|rules?|guidelines?|prompts?|requests?|directives?|policies)\b"
            ),
            Severity::Error,
            "a claim to outrank the model's instructions",
        ),
        (
            audit_re!(
                r"(?i)\b(?:you\s+are\s+now\s+(?:an?\s+|in\s+|the\s+)?(?:\w+\s+)?(?:mode|assistant|agent|ai|admin|administrator|developer|root|dan|unrestricted|jailbroken|unfiltered)|from\s+now\s+on,?\s+(?:you|always|never|the\s+(?:assistant|model|ai))|your\s+new\s+(?:role|instructions?|task|goal|objective|purpose|persona|identity|system\s+prompt|rules?)|new\s+system\s+(?:prompt|instructions?|message)|(?:developer|admin|god|debug|maintenance|unrestricted|jailbreak)\s+mode\s+(?:is\s+)?(?:now\s+)?(?:enabled|activated|on)|no\s+longer\s+(?:bound|restricted|required\s+to\s+follow|limited)\s+by)\b"
            ),
            Severity::Error,
            "a new role or mode for the model",
        ),
        (
            audit_re!(
                r"(?i)\b(?:regardless|irrespective)\s+of\s+(?:what\s+)?(?:the\s+user|any\s+(?:other\s+)?instructions?|(?:previous|prior|other)\s+instructions?|your\s+(?:instructions|guidelines|rules)|the\s+system\s+prompt|safety)"
            ),
            Severity::Error,
            "an order regardless of the user or of the model's instructions",
        ),
        (
            audit_re!(
                r"(?i)\b(?:even\s+if|even\s+when)\s+(?:the\s+user|you\s+are\s+told|your\s+instructions|instructed)\s+(?:\w+\s+){0,3}?(?:not|otherwise|against|forbid|refuse)"
            ),
            Severity::Error,
            "an order against the user's or the model's instructions",
        ),
    ]
}

/// Each prose field, its strongest match.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    scan_prose(cx, &RULE, &patterns(), |_| false, out);
}
