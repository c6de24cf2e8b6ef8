//! `exfiltration-target`: a place to send data to, named in a tool's text.

use super::text::{quote, sentence_at};
use super::{FieldKind, Finding, Rule, Severity, ToolCx};
use crate::audit_re;

/// The rule.
pub const RULE: Rule = Rule {
    name: "exfiltration-target",
    severity: Severity::Error,
    summary: "a URL, host, e-mail address or webhook in a tool's text that the model is told to send data to",
    explain: "exfiltration-target (error)

What it reports, in a tool's description, title, parameter descriptions and default
values:

- error: a request-capture, tunnel or paste service (webhook.site, requestbin, pipedream,
  ngrok, trycloudflare, interactsh and other out-of-band hosts, Slack and Discord
  webhooks, Telegram bot URLs, pastebin, transfer.sh); an e-mail address the model is told
  to copy, BCC, forward or send to; a URL, e-mail address or IP address in a sentence that
  orders the model (must, always, also, make sure, you, ...) to send, post, upload, forward
  or copy data (conversation, credentials, keys, file contents, results ...) to it.
- warning: an e-mail address, or a URL to a bare IP address, named without such an order.

A URL alone (a documentation link, an example) is not reported.

Why: data leaves through a destination the attacker controls. A tool that talks to its
own service has that address in its code, not in the text the model reads.

Benign phrasings it leaves alone: \"More information can be found at https://docs...\",
`example.com` in an example, \"Author username or email address to filter commits by\".

What it misses: a destination written indirectly (split across words, or looked up by the
model at run time), and data sent through a parameter the tool itself forwards.

Fix: remove the address. To allow one tool, see `toolgate explain audit-allow`.",
};

fn capture_host() -> &'static regex::Regex {
    audit_re!(
        r"(?i)\b(?:[\w-]+\.)*(?:webhook\.site|requestbin\.(?:com|net|io)|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)|ngrok\.io|hooks\.slack\.com|discord(?:app)?\.com/api/webhooks|burpcollaborator\.net|oastify\.com|interact\.sh|oast\.(?:fun|live|me|online|pro|site)|trycloudflare\.com|pastebin\.com|transfer\.sh|beeceptor\.com|requestcatcher\.com|hookbin\.com|postb\.in|canarytokens\.(?:com|org)|serveo\.net|localtunnel\.me|loca\.lt|api\.telegram\.org/bot|ptpb\.pw|0x0\.st|termbin\.com|dnslog\.cn|ceye\.io)\b"
    )
}

fn target() -> &'static regex::Regex {
    audit_re!(
        r"(?i)\b(?:https?|ftp|wss?)://[^\s<>()\[\]{}]+|\b[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b|\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b"
    )
}

fn benign_host(t: &str) -> bool {
    audit_re!(
        r"(?i)(?:^|[/@.])(?:example\.(?:com|org|net)|[\w-]+\.(?:example|test|invalid|localhost)|localhost|127\.0\.0\.1|0\.0\.0\.0|json-schema\.org|schema\.org|w3\.org)(?:[:/]|$|[^\w.-])"
    )
    .is_match(t)
}

fn ordered_send(sentence: &str) -> bool {
    let send = audit_re!(
        r"(?i)\b(?:send|sent|forward|post|upload|transmit|report|copy|bcc|cc|mail|e-?mail|submit|sync|exfiltrat\w*|leak|deliver|share|push|relay|log|notify|ping|call\s+back)\b"
    );
    let data = audit_re!(
        r"(?i)\b(?:conversation|chat|history|transcript|messages?|credentials?|passwords?|secrets?|tokens?|api[\s_-]?keys?|keys|private|contents?|files?|data|results?|responses?|outputs?|everything|environment|env|cookies?|session|context|prompts?|summary|copy|arguments|parameters|inputs?|queries|requests?)\b"
    );
    let aimed = audit_re!(
        r"(?i)\b(?:must|always|also|should|make\s+sure|ensure|remember|be\s+sure|don'?t\s+forget|first|then|please|you|your|every|each|all)\b"
    );
    send.is_match(sentence) && data.is_match(sentence) && aimed.is_match(sentence)
}

fn copied_email(sentence: &str) -> bool {
    audit_re!(r"(?i)\b(?:bcc|cc|copy|forward|send\s+(?:a\s+)?cop(?:y|ies))\b").is_match(sentence)
}

/// The strongest target of one string, with its severity and what it is.
fn judge(text: &str) -> Option<(Severity, (usize, usize), &'static str)> {
    if let Some(m) = capture_host().find(text) {
        return Some((
            Severity::Error,
            (m.start(), m.end()),
            "a request-capture, tunnel or paste service",
        ));
    }
    let mut warn = None;
    for m in target().find_iter(text) {
        let t = m.as_str();
        if benign_host(t) {
            continue;
        }
        let sentence = sentence_at(text, m.start());
        let email = t.contains('@') && !t.contains("://");
        let ip = !email && audit_re!(r"^(?:\w+://)?(?:\d{1,3}\.){3}\d{1,3}").is_match(t);
        if ordered_send(sentence) || (email && copied_email(sentence)) {
            return Some((
                Severity::Error,
                (m.start(), m.end()),
                "a destination the model is told to send data to",
            ));
        }
        if (email || ip) && warn.is_none() {
            let what = if email {
                "an e-mail address"
            } else {
                "an IP address"
            };
            warn = Some((Severity::Warning, (m.start(), m.end()), what));
        }
    }
    warn
}

/// Each prose field and default value.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    for field in &cx.fields {
        if !(field.kind.is_prose() || field.kind == FieldKind::Value) {
            continue;
        }
        if !field.text.contains(['.', '@']) {
            continue;
        }
        if let Some((sev, span, what)) = judge(field.text) {
            let msg = format!("{what}: `{}`", quote(field.text, span));
            out.push(cx.finding(&RULE, sev, field, Some(span), msg));
        }
    }
}
