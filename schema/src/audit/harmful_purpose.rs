//! `harmful-purpose`: a tool whose own text states a harmful purpose.

use super::{Finding, Pattern, Rule, Severity, ToolCx, defensive, scan_prose};
use crate::audit_re;

/// The rule.
pub const RULE: Rule = Rule {
    name: "harmful-purpose",
    severity: Severity::Error,
    summary: "a tool's own text states a harmful purpose (exfiltrating data, harvesting credentials, disabling security controls)",
    explain: "harmful-purpose (error)

What it reports: a tool whose name, title or description says it does harm: exfiltrates,
steals, harvests or siphons credentials, tokens, cookies, wallets or data; disables,
bypasses or tampers with security controls (antivirus, firewall, EDR, audit logs,
sandboxing, safety filters); is or installs a keylogger, ransomware, a reverse shell, a
backdoor, a rootkit, a credential stealer, a phishing page; covers tracks or clears audit
logs; works for an attacker. \"Wipe all files\" and the like are warnings.

Why: an openly malicious tool says what it does; the model will do it.

Benign phrasings it leaves alone: a sentence about detecting, scanning, checking,
analysing, blocking, preventing, monitoring, reporting or protecting against these (a
security scanner that flags phishing sites), \"disable a workflow\", \"delete a
repository after the user confirms\".

What it misses: harm described in neutral words (\"sync the keychain to our backup
server\": see `exfiltration-target`), and harm the text does not state.

Fix: do not install the server. To allow one tool, see `toolgate explain audit-allow`.",
};

fn patterns() -> [Pattern; 5] {
    [
        (
            audit_re!(
                r"(?i)\b(?:exfiltrat(?:e|es|ed|ing)|steal(?:s|ing)?|harvest(?:s|ing)?|siphon(?:s|ing)?|skim(?:s|ming)?|pilfer(?:s|ing)?|exfil)\s+(?:(?:the|all|any|every|their|saved|stored|cached|browser|local)\s+|(?:users?|victims?)'?s?\s+)*(?:\w+\s+)?(?:credentials?|passwords?|tokens?|secrets?|keys?|cookies?|sessions?|wallets?|credit\s+cards?|card\s+numbers?|private\s+(?:data|keys?)|personal\s+(?:data|information)|data|files|e-?mails?|contacts|messages|information|info|identit(?:y|ies)|logins?)\b"
            ),
            Severity::Error,
            "the tool states it takes data that is not its to take",
        ),
        (
            audit_re!(
                r"(?i)\b(?:disabl(?:e|es|ed|ing)|turn(?:s|ing)?\s+off|bypass(?:es|ing)?|circumvent(?:s|ing)?|evad(?:e|es|ing)|kill(?:s|ing)?|tamper(?:s|ing)?\s+with|uninstall(?:s|ing)?|defeat(?:s|ing)?|neutrali[sz](?:e|es|ing))\s+(?:the\s+|all\s+|any\s+)?(?:\w+\s+)?(?:antivirus|anti-virus|anti-malware|firewalls?|edr|defender|security\s+(?:software|controls?|monitoring|checks?|features?|policies|protections?|scanners?|tools?|alerts?|agents?)|audit\s+(?:logs?|logging|trail)|sandbox(?:ing)?|selinux|apparmor|gatekeeper|endpoint\s+protection|intrusion\s+detection|content\s+filters?|safety\s+(?:filters?|checks?|guardrails?|settings)|guardrails?|logging\s+of\s+(?:this|these))\b"
            ),
            Severity::Error,
            "the tool states it disables security controls",
        ),
        (
            audit_re!(
                r"(?i)\b(?:keylog(?:ger|ging|s)?|ransomware|reverse\s+shells?|bind\s+shells?|backdoors?|rootkits?|cryptojack\w*|botnets?|credential\s+(?:harvest\w*|theft|stealing|stealer|dump\w*)|password\s+(?:stealer|grabber|sniff\w*)|info-?stealers?|phishing\s+(?:pages?|sites?|e-?mails?|kits?|campaigns?|links?)|session\s+hijack\w*|cover(?:s|ing)?\s+(?:\w+\s+)?tracks|attacker(?:'s|-controlled|\s+(?:server|endpoint|controlled|host|machine|e-?mail|inbox)))\b"
            ),
            Severity::Error,
            "the tool names a malicious purpose",
        ),
        (
            audit_re!(
                r"(?i)\b(?:clear|clears|clearing|delete|deletes|deleting|wipe|wipes|wiping|erase|erases|erasing|tamper\s+with)\s+(?:the\s+|all\s+)?(?:audit|event|security|system|access|shell)\s+(?:logs?|history|trail)\b"
            ),
            Severity::Error,
            "the tool states it removes the traces of what was done",
        ),
        (
            audit_re!(
                r"(?i)\b(?:wipe|wipes|erase|erases|destroy|destroys|shred|shreds|encrypt|encrypts)\s+(?:all|every|the\s+entire|the\s+whole|everything)\s+(?:\w+\s+)?(?:files|disks?|drives?|data|backups?|databases?|systems?|on\s+the)\b"
            ),
            Severity::Warning,
            "the tool states it destroys everything of a kind",
        ),
    ]
}

/// Each prose field (and the name's words), its strongest match outside defensive sentences.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    scan_prose(cx, &RULE, &patterns(), defensive, out);
}
