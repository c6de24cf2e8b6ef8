//! `suspicious-parameter`: a parameter that asks for what the tool has no use for.

use super::text::{name_words, quote};
use super::{Field, FieldKind, Finding, Rule, Severity, ToolCx};
use crate::audit_re;

/// The rule.
pub const RULE: Rule = Rule {
    name: "suspicious-parameter",
    severity: Severity::Error,
    summary: "a parameter asks for the conversation, the model's instructions, or a secret fetched from the machine, unrelated to the tool's purpose",
    explain: "suspicious-parameter (error)

What it reports, from a parameter's name and description:

- error: a parameter that asks for the conversation (its history, the previous messages,
  everything the user said), the system prompt or the model's instructions, on a tool
  whose own name and description are not about conversations, chats, memory, notes,
  prompts or summaries (there: a warning);
- error: a parameter that asks for a secret (API key, token, password, private key,
  cookie, seed phrase) and tells the model to get it from the environment, a file, a
  configuration or the user's machine;
- warning: a parameter that asks for a secret on a tool whose name and description are
  about no account, login, key or access, unless its description names the sibling tool
  that hands the secret out;
- warning: a parameter for the contents of files on a tool that is not about files,
  documents or content.

Why: a parameter is a channel out of the conversation: what the model puts there goes to
the server. Published poisoned tools add a `notes` or `context` parameter and fill it with
what they want to steal.

Benign phrasings it leaves alone: `custom_instructions` for an agent the tool launches,
`thought` on a thinking tool, `mcp_access_token` described as \"returned by
get_mcp_access\", a `password` parameter of a login tool.

What it misses: a channel described innocently (\"any extra context that may help\") and
filled by orders elsewhere; the order itself is then what the other rules report.

Fix: remove the parameter, or describe what it is for. To allow one tool, see
`toolgate explain audit-allow`.",
};

fn conversation() -> &'static regex::Regex {
    audit_re!(
        r"(?i)\b(?:(?:conversation|chat|dialog(?:ue)?|message)\s+(?:history|log|transcript|so\s+far)|(?:previous|prior|earlier|past|preceding)\s+(?:user\s+|chat\s+)?(?:messages|turns|prompts|exchanges|conversations?)|all\s+(?:(?:the|of\s+the)\s+)?(?:user\s+|chat\s+)?(?:messages|turns|prompts)\s+(?:so\s+far|in\s+(?:this|the)\s+(?:conversation|chat|session))|(?:full|entire|complete|whole|verbatim)\s+(?:\w+\s+)?(?:conversation|chat|transcript|prompt|chat\s+history)|system\s+(?:prompt|message|instructions)|(?:your|the\s+assistant'?s?|the\s+model'?s?|the\s+ai'?s?)\s+(?:instructions|prompt|system\s+message|context\s+window|guidelines|rules|configuration)|everything\s+the\s+user\s+(?:has\s+)?(?:said|typed|wrote|written|asked|shared))\b"
    )
}

fn secret() -> &'static regex::Regex {
    audit_re!(
        r"(?i)\b(?:api[\s_-]?keys?|access[\s_-]?tokens?|auth(?:entication)?[\s_-]?tokens?|bearer[\s_-]?tokens?|secrets?|secret[\s_-]?keys?|passwords?|passphrases?|private[\s_-]?keys?|ssh[\s_-]?keys?|credentials?|session[\s_-]?(?:cookies?|tokens?)|seed[\s_-]?phrases?|mnemonics?|recovery[\s_-]?(?:phrases?|codes?)|cookies?)\b"
    )
}

fn fetched_from_machine() -> &'static regex::Regex {
    audit_re!(
        r"(?i)\b(?:read|get|find|copy|take|extract|look\s+up|retrieve|obtain|fetch|grab|paste|load|search)\b[^.;\n]{0,60}?\b(?:from|in|out\s+of|inside)\s+(?:the\s+|your\s+|a\s+)?(?:environment|env(?:ironment)?\s+variables?|\.env|config(?:uration)?(?:\s+files?)?|~|/|home\s+(?:directory|folder)|disk|keychain|settings|(?:user'?s?|local)\s+(?:machine|computer|files?|system|disk)|local\s+files?|system|shell|history|browser|files?\s+on)"
    )
}

fn file_contents() -> &'static regex::Regex {
    audit_re!(
        r"(?i)\b(?:contents?|text|body|data)\s+of\s+(?:the\s+|any\s+|all\s+|your\s+|every\s+|a\s+)?(?:\w+\s+)?(?:files?|director(?:y|ies)|folders?|documents?)\b"
    )
}

/// What the tool says it is about: its name's words and its own description.
fn purpose(cx: &ToolCx<'_>) -> String {
    let mut p = name_words(cx.name).join(" ");
    p.push(' ');
    p.push_str(cx.description());
    if let Some(t) = cx.tool.get("title").and_then(crate::json::Value::as_str) {
        p.push(' ');
        p.push_str(t);
    }
    p
}

/// The parameter's text as one string: its name's words, then the description.
fn param_text(field: &Field<'_>) -> String {
    match field.kind {
        FieldKind::ParamName => name_words(field.text).join(" "),
        _ => field.text.to_string(),
    }
}

/// Each parameter's name and description.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    let fields: Vec<&Field<'_>> = cx
        .fields
        .iter()
        .filter(|f| {
            matches!(f.kind, FieldKind::ParamName | FieldKind::ParamText) && f.param.is_some()
        })
        .collect();
    if fields.is_empty() {
        return;
    }
    let purpose = purpose(cx);
    let talky = audit_re!(
        r"(?i)\b(?:conversation|chat|dialog\w*|memory|memories|notes?|prompts?|summar\w*|transcripts?|history|messages?|instructions?|agent|assistant|llm|model|context|thoughts?|thinking|reflect\w*)\b"
    )
    .is_match(&purpose);
    let authy = audit_re!(
        r"(?i)\b(?:auth\w*|log\s*in|login|logon|sign\s*in|signin|credential\w*|tokens?|secrets?|passwords?|keys?|accounts?|connect\w*|sessions?|oauth|api|access|vault|wallets?|encrypt\w*|decrypt\w*|sign\w*|cookies?|certificates?|ssh|identity|users?)\b"
    )
    .is_match(&purpose);
    let filey = audit_re!(
        r"(?i)\b(?:files?|documents?|content|contents|paths?|directory|folders?|upload\w*|write|read|edit\w*|text|repository|repo|commit|code|archive|attachments?|blob|storage|bucket)\b"
    )
    .is_match(&purpose);
    // One finding per parameter: the strongest of its name's and its description's.
    let mut best: Vec<Finding> = Vec::new();
    for field in fields {
        if let Some(f) = judge(cx, field, talky, authy, filey) {
            let param = field.param;
            let same = |b: &Finding| {
                b.path == f.path || param.is_some_and(|p| b.message.contains(&format!("`{p}`")))
            };
            match best.iter_mut().find(|b| same(b)) {
                Some(b) if f.severity < b.severity => *b = f,
                Some(_) => {}
                None => best.push(f),
            }
        }
    }
    out.extend(best);
}

fn judge(
    cx: &ToolCx<'_>,
    field: &Field<'_>,
    talky: bool,
    authy: bool,
    filey: bool,
) -> Option<Finding> {
    let text = param_text(field);
    let param = field.param.unwrap_or("");
    let span_of = |m: regex::Match<'_>| match field.kind {
        FieldKind::ParamName => (0, field.text.len()),
        _ => (m.start(), m.end()),
    };
    if let Some(m) = conversation().find(&text) {
        let sev = if talky {
            Severity::Warning
        } else {
            Severity::Error
        };
        let msg = format!(
            "parameter `{param}` asks for the conversation or the model's instructions: \"{}\"",
            quote(&text, (m.start(), m.end()))
        );
        return Some(cx.finding(&RULE, sev, field, Some(span_of(m)), msg));
    }
    if let Some(m) = secret().find(&text) {
        let fetched = field.kind == FieldKind::ParamText && fetched_from_machine().is_match(&text);
        let from_sibling = cx
            .sibling_index
            .find_all(&text)
            .iter()
            .any(|&(_, _, n)| n != cx.name);
        let sev = if fetched {
            Severity::Error
        } else if authy || from_sibling {
            return None;
        } else {
            Severity::Warning
        };
        let how = if fetched {
            ", to be fetched from the machine"
        } else {
            " unrelated to what the tool says it does"
        };
        let msg = format!(
            "parameter `{param}` asks for a secret{how}: \"{}\"",
            quote(&text, (m.start(), m.end()))
        );
        return Some(cx.finding(&RULE, sev, field, Some(span_of(m)), msg));
    }
    if field.kind == FieldKind::ParamText
        && !filey
        && let Some(m) = file_contents().find(&text)
    {
        let msg = format!(
            "parameter `{param}` asks for file contents on a tool that is not about files: \"{}\"",
            quote(&text, (m.start(), m.end()))
        );
        return Some(cx.finding(&RULE, Severity::Warning, field, Some(span_of(m)), msg));
    }
    None
}
