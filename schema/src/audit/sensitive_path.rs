//! `sensitive-path`: a tool's text that points the model at secrets on the user's machine.

use super::text::{quote, sentence_at};
use super::{FieldKind, Finding, Rule, Severity, ToolCx};
use crate::audit_re;

/// The rule.
pub const RULE: Rule = Rule {
    name: "sensitive-path",
    severity: Severity::Error,
    summary: "a tool's text names a secret's location (SSH keys, cloud credentials, .env, MCP configs) beside a verb that reads or sends it",
    explain: "sensitive-path (error)

What it reports: an order to pass the user's secrets on (\"include the user's API tokens
in the response\", \"pass all environment variables\"), an error; and a place where
secrets live named in a tool's description, title, parameter description or default value:

- SSH keys and their folder (`~/.ssh`, `id_rsa`, `id_ed25519`, `authorized_keys`), cloud
  and registry credentials (`~/.aws/credentials`, gcloud's and Azure's folders, `.netrc`,
  `.npmrc`, `.pypirc`, `.git-credentials`, `.docker/config.json`, `.kube/config`),
  `/etc/passwd` and `/etc/shadow`, GnuPG, wallets, shell histories, browsers' saved logins:
  an error when the same sentence reads, passes or sends something (read, include, pass,
  send, attach, contents, ...), or in a default value; a warning otherwise.
- `.env` files and the MCP host configurations (`mcp.json`, `claude_desktop_config.json`,
  `.cursor/`, `.claude/`): an error when the sentence passes or sends them on (pass,
  include, send, attach, upload, append ...); a warning otherwise.

Why: published tool-poisoning examples have the model read a key file or the host's MCP
configuration \"first\" and put it in a parameter. A tool that needs such a file takes its
path from the user; it does not name it in its description.

Benign phrasings it leaves alone: paths of the tool's own domain that hold no secret, and
a dotenv tool that \"loads variables from .env\" (a warning).

What it misses: a secret's location spelled out indirectly (\"the file in your home folder
that starts with a dot and ends in rsa\").

Fix: take the path as a parameter the user fills. To allow one tool, see
`toolgate explain audit-allow`.",
};

fn strong() -> &'static regex::Regex {
    audit_re!(
        r"(?i)(?:~|\$HOME|%USERPROFILE%|/home/[\w.-]+|/Users/[\w.-]+|/root)?/\.ssh\b(?:/[\w.-]*)?|(?:^|[^\w.-])\.ssh/|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?\b|\bauthorized_keys\b|\.aws/(?:credentials|config)\b|\baws[\s_-]credentials\s+file\b|\.azure/|\.config/gcloud\b|application_default_credentials\.json|/etc/(?:passwd|shadow|sudoers)\b|\.netrc\b|\.npmrc\b|\.pypirc\b|\.git-credentials\b|\.docker/config\.json|\.kube/config\b|\.gnupg\b|\bwallet\.dat\b|\.(?:bash|zsh|sh|python|psql|mysql)_history\b|\bLogin\s+Data\b|\.password-store\b|\bkeystore\.jks\b"
    )
}

fn weak() -> &'static regex::Regex {
    audit_re!(
        r#"(?i)(?:^|[\s/'"`(~])\.env(?:\.[a-z]+)?\b|\bmcp\.json\b|claude_desktop_config\.json|\.cursor/|\.claude/|\.codex/|\.gemini/settings\.json|\bkeychain\b"#
    )
}

fn reads_or_sends() -> &'static regex::Regex {
    audit_re!(
        r"(?i)\b(?:read|reads|reading|cat|open|load|include|including|pass|passing|send|sending|attach|upload|copy|provide|paste|append|contents?|submit|forward|extract|dump|print|output|return|fetch|get|grab|collect|transmit|post|put|insert|embed|parse|use|using)\b"
    )
}

fn passes_on() -> &'static regex::Regex {
    audit_re!(
        r"(?i)\b(?:pass|passing|send|sending|attach|attaching|upload|uploading|paste|append|appending|include|including|insert|embed|forward|transmit|post|submit|put\s+(?:it|them|its|their)|as\s+the\s+(?:value|argument)|contents?\s+(?:of|in|into))\b"
    )
}

/// An order to put the user's secrets somewhere (a parameter, the answer, a message).
fn secrets_passed_on() -> &'static regex::Regex {
    audit_re!(
        r"(?i)\b(?:include|pass|send|attach|append|add|put|copy|paste|insert|embed|forward|upload|also\s+(?:return|output|print))\s+(?:\w+\s+){0,4}?(?:the\s+)?(?:user'?s?|their|your|all|any|every)\s+(?:\w+\s+)?(?:api[\s_-]?keys?|access[\s_-]?tokens?|auth(?:entication)?\s+tokens?|tokens|passwords?|credentials?|secrets?|private[\s_-]?keys?|ssh[\s_-]?keys?|session\s+cookies?|cookies|environment\s+variables|env\s+vars?)\b"
    )
}

/// Each string a model reads (prose and default values): the first secret location, or an
/// order to pass the user's secrets on.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    for field in &cx.fields {
        let value = field.kind == FieldKind::Value;
        if !(field.kind.is_prose() || value) {
            continue;
        }
        let text = field.text;
        if field.kind.is_prose()
            && let Some(m) = secrets_passed_on().find(text)
        {
            let msg = format!(
                "an order to pass the user's secrets on: \"{}\"",
                quote(text, (m.start(), m.end()))
            );
            out.push(cx.finding(
                &RULE,
                Severity::Error,
                field,
                Some((m.start(), m.end())),
                msg,
            ));
            continue;
        }
        let mut best: Option<(Severity, (usize, usize))> = None;
        if let Some(m) = strong().find(text) {
            let verb = reads_or_sends().is_match(sentence_at(text, m.start()));
            let sev = if verb || value {
                Severity::Error
            } else {
                Severity::Warning
            };
            best = Some((sev, (m.start(), m.end())));
        }
        if best.is_none_or(|b| b.0 == Severity::Warning)
            && let Some(m) = weak().find(text)
        {
            let passes = passes_on().is_match(sentence_at(text, m.start()));
            if passes || best.is_none() {
                let sev = if passes {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                best = Some((sev, (m.start(), m.end())));
            }
        }
        if let Some((sev, span)) = best {
            let what = if sev == Severity::Error {
                "a secret's location named beside an order that reads or sends it"
            } else {
                "a secret's location named"
            };
            let place = quote(text, span);
            let around = quote(text, sentence_span(text, span.0));
            let msg = format!("{what}: `{place}` in \"{around}\"");
            out.push(cx.finding(&RULE, sev, field, Some(span), msg));
        }
    }
}

fn sentence_span(text: &str, at: usize) -> (usize, usize) {
    super::text::sentences(text)
        .into_iter()
        .find(|&(a, b)| a <= at && at < b)
        .unwrap_or((0, text.len()))
}
