//! `system-block`: text styled as a message from the system, the developer or the host.

use super::{Finding, Pattern, Rule, Severity, ToolCx, strongest, text};
use crate::audit_re;

/// The rule.
pub const RULE: Rule = Rule {
    name: "system-block",
    severity: Severity::Error,
    summary: "text styled as a system or developer message (<SYSTEM>, [SYSTEM], chat-template tokens), or an <IMPORTANT> block with orders",
    explain: "system-block (error)

What it reports:

- error: markup that claims the authority of the system, the developer or the host inside
  a tool's text: tags such as `<system>`, `<system-reminder>`, `<admin>`, `<developer>`;
  bracketed labels such as `[SYSTEM]`, `[ADMIN]`; chat-template tokens (`<|im_start|>`,
  `<|system|>`, `[INST]`, `<<SYS>>`); an upper-case `SYSTEM:` or `ADMIN:` label opening a
  line; and emphasis tags (`<IMPORTANT>`, `<CRITICAL>`, `<secret>`, `<hidden>`, ...)
  whose content gives the model orders (must, always, never, before, do not, ...).
- warning: an emphasis tag whose content gives no order.

Why: a model gives system and developer messages more weight than a tool's output or
description; text that dresses up as one borrows that weight. Published tool-poisoning
examples put their orders in such a block.

Benign phrasings it leaves alone: `IMPORTANT:` or `**ONLY**` as plain emphasis, `<file>:<line>`
and other angle-bracket placeholders, `[FILE]` and `[DIR]` labels.

What it misses: a block styled some other way (a Markdown heading \"Note to the AI\").

Fix: write the description as a description. To allow one tool, see
`toolgate explain audit-allow`.",
};

fn patterns() -> [Pattern; 4] {
    [
        (
            audit_re!(
                r"(?i)<\s*/?\s*(?:system|system[-_ ]?(?:prompt|message|reminder|instructions?|note|override|directive)|sys|admin|administrator|developer|developer[-_ ]?(?:message|instructions?|note)|assistant[-_ ]?instructions?|host[-_ ]?(?:message|instructions?))\s*(?:\s[^>]{0,40})?>"
            ),
            Severity::Error,
            "a tag styled as a system or developer message",
        ),
        (
            audit_re!(
                r"(?i)<\|\s*(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\s*\|>|\[/?INST\]|<<\s*/?SYS\s*>>"
            ),
            Severity::Error,
            "a chat-template token",
        ),
        (
            audit_re!(
                r"(?i)\[\s*(?:system|admin|administrator|developer|sys|system\s+(?:message|note|override|instructions?|prompt|alert))\s*\]"
            ),
            Severity::Error,
            "a label styled as a system message",
        ),
        (
            audit_re!(
                r"(?m)^\s*(?:#{1,6}\s*|\*\*)?(?:SYSTEM|ADMIN|DEVELOPER|SYSTEM (?:MESSAGE|NOTE|PROMPT|OVERRIDE|INSTRUCTIONS?))\s*(?:\*\*)?\s*:"
            ),
            Severity::Error,
            "a line styled as a system message",
        ),
    ]
}

/// The emphasis tags, and whether the block's content gives orders.
fn emphasis(cx: &ToolCx<'_>, field: &super::Field<'_>) -> Option<Finding> {
    let tag = audit_re!(
        r"(?i)<\s*(important|critical|urgent|attention|warning|note|notice|instructions?|secret|hidden|mandatory|required|priority|override|must[-_ ]?read|ai[-_ ]?(?:note|instructions?)|model[-_ ]?(?:note|instructions?))\s*>"
    );
    let m = tag.captures(field.text)?;
    let whole = m.get(0)?;
    let name = m.get(1)?.as_str();
    let rest = &field.text[whole.end()..];
    let close = format!("</{}", name.to_ascii_lowercase());
    let body_end = rest
        .to_ascii_lowercase()
        .find(&close)
        .unwrap_or(rest.len().min(600));
    let body = &rest[..body_end];
    let orders = audit_re!(
        r"(?i)\b(?:you\s+(?:must|should|need\s+to|have\s+to|will)|must|always|never|do\s+not|don'?t|make\s+sure|ensure|before|first|remember|required\s+to|instead|only)\b"
    )
    .is_match(body);
    let hidden_kind = matches!(
        name.to_ascii_lowercase().as_str(),
        "secret" | "hidden" | "override"
    );
    let (severity, what) = if orders || hidden_kind {
        (
            Severity::Error,
            "an emphasis block that gives the model orders",
        )
    } else {
        (Severity::Warning, "an emphasis block styled as markup")
    };
    let span = (whole.start(), whole.end() + body_end);
    let msg = format!("{what}: \"{}\"", text::quote(field.text, span));
    Some(cx.finding(&RULE, severity, field, Some(span), msg))
}

/// Each prose field: the authority markup, else an emphasis block.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    let patterns = patterns();
    for field in cx.prose() {
        if let Some(f) = strongest(cx, &RULE, field, &patterns, &|_| false) {
            out.push(f);
        } else if let Some(f) = emphasis(cx, field) {
            out.push(f);
        }
    }
}
