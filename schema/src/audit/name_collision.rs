//! `name-collision`: the same or a near name on two servers of one project.

use super::near_duplicate::one_edit;
use super::text::normalized;
use super::{AuditSurface, Finding, Rule, Severity};

/// The rule.
pub const RULE: Rule = Rule {
    name: "name-collision",
    severity: Severity::Error,
    summary: "two servers of one project expose the same tool name (an error where a host shows them unprefixed), or names one edit apart",
    explain: "name-collision (error)

What it reports, across the servers audited together (every server of `toolgate.lock`):

- error: two servers expose the same tool name and a host shows both without a prefix, or
  under the same prefix (two server names that a host writes alike);
- warning: two servers expose the same tool name under different prefixes;
- warning: a tool name one edit away from another server's tool (`send_emial` beside
  `send_email`).

Why: a host that does not keep the servers apart calls one of the two, and which one is
up to it; a look-alike name on a second server is how a malicious server catches calls
meant for a trusted one.

What it misses: servers not in the lock, and collisions with a host's built-in tools.

Fix: rename, or give the servers names a host keeps apart. To allow one tool, see
`toolgate explain audit-allow`.",
};

fn names<'a>(s: &AuditSurface<'a>) -> Vec<&'a str> {
    s.tools
        .iter()
        .filter_map(|t| t.as_object()?.get("name")?.as_str())
        .collect()
}

fn finding(s: &AuditSurface<'_>, tool: &str, severity: Severity, message: String) -> Finding {
    Finding {
        rule: RULE.name,
        severity,
        server: s.server.map(str::to_string),
        tool: tool.to_string(),
        path: "/name".to_string(),
        message,
        text: Some(tool.to_string()),
        span: Some((0, tool.len())),
    }
}

/// Every pair of surfaces; each collision reported on the later server's tool.
pub fn check(surfaces: &[AuditSurface<'_>], out: &mut Vec<Finding>) {
    let all: Vec<Vec<&str>> = surfaces.iter().map(names).collect();
    for (j, b) in surfaces.iter().enumerate() {
        for (i, a) in surfaces.iter().enumerate().take(j) {
            let shared_prefix = a.prefixes.is_empty()
                || b.prefixes.is_empty()
                || a.prefixes.iter().any(|p| b.prefixes.contains(p));
            let owner = a.server.unwrap_or("another server");
            for name in &all[j] {
                if all[i].contains(name) {
                    let (sev, how) = if shared_prefix {
                        (Severity::Error, "and a host shows both under the same name")
                    } else {
                        (Severity::Warning, "(the hosts' prefixes keep them apart)")
                    };
                    let msg = format!("`{name}` is also a tool of `{owner}` {how}");
                    out.push(finding(b, name, sev, msg));
                    continue;
                }
                let key = normalized(name);
                if key.len() >= 5
                    && let Some(near) = all[i].iter().find(|n| one_edit(&normalized(n), &key))
                {
                    let msg =
                        format!("`{name}` is one edit away from `{near}`, a tool of `{owner}`");
                    out.push(finding(b, name, Severity::Warning, msg));
                }
            }
        }
    }
}
