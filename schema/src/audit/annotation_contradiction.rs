//! `annotation-contradiction`: annotations that say a tool is safer than its name says.

use super::text::name_words;
use super::{Field, FieldKind, Finding, Rule, Severity, ToolCx};
use crate::json::Value;

/// The rule.
pub const RULE: Rule = Rule {
    name: "annotation-contradiction",
    severity: Severity::Error,
    summary: "annotations contradict the tool: a delete_* tool marked read-only or not destructive, a write tool marked read-only",
    explain: "annotation-contradiction (error)

What it reports, from the tool's name and its `annotations`:

- error: a tool whose name starts with a verb that destroys (delete, remove, drop,
  destroy, purge, wipe, erase, truncate, revoke, kill, terminate, uninstall, unlink,
  shred, overwrite) marked `readOnlyHint: true`, or `destructiveHint: false`;
- error: a tool whose description says it deletes, or cannot be undone, marked
  `readOnlyHint: true`;
- warning: a tool whose name starts with a verb that writes (create, update, write, set,
  add, send, push, post, put, edit, modify, move, rename, insert, upload, merge, commit,
  publish, execute, run, install, deploy) marked `readOnlyHint: true`.

Why: hosts decide from these hints whether to ask the user before a call; a destructive
tool that calls itself read-only is run without asking. The hints are the server's word,
and this rule holds them to the tool's own name.

What it misses: a tool whose name hides what it does (`sync`, `apply`), and hints left out
(the MCP defaults, not read-only and destructive, are the safe reading).

Fix: correct the annotations. To allow one tool, see `toolgate explain audit-allow`.",
};

const DESTROYS: &[&str] = &[
    "delete",
    "del",
    "remove",
    "rm",
    "drop",
    "destroy",
    "purge",
    "wipe",
    "erase",
    "truncate",
    "revoke",
    "kill",
    "terminate",
    "uninstall",
    "unlink",
    "shred",
    "overwrite",
];
const WRITES: &[&str] = &[
    "create", "update", "write", "set", "add", "send", "push", "post", "put", "edit", "modify",
    "move", "rename", "insert", "upload", "merge", "commit", "publish", "execute", "exec", "run",
    "install", "deploy", "patch", "replace", "transfer", "pay", "submit",
];

fn hint(cx: &ToolCx<'_>, key: &str) -> Option<bool> {
    match cx.tool.get("annotations")?.as_object()?.get(key)? {
        Value::Bool(b) => Some(*b),
        _ => None,
    }
}

/// The tool's name and annotations.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    let Some(name_field) = cx.fields.iter().find(|f| f.kind == FieldKind::Name) else {
        return;
    };
    let read_only = hint(cx, "readOnlyHint");
    let destructive = hint(cx, "destructiveHint");
    if read_only.is_none() && destructive.is_none() {
        return;
    }
    let words = name_words(cx.name);
    // The verb: the first word, or for a destroying one the second after a namespace
    // (`repo_delete_branch`); `get_commit` is not a write.
    let verb_of = |set: &[&str], n: usize| {
        words
            .iter()
            .take(n)
            .find(|w| set.contains(&w.as_str()))
            .cloned()
    };
    let span = Some((0, cx.name.len()));
    let f = |sev, msg: String| cx.finding(&RULE, sev, name_field, span, msg);
    if let Some(v) = verb_of(DESTROYS, 2) {
        if read_only == Some(true) {
            out.push(f(
                Severity::Error,
                format!(
                    "`{}` {v}s, yet its annotations say `readOnlyHint: true`",
                    cx.name
                ),
            ));
            return;
        }
        if destructive == Some(false) {
            out.push(f(
                Severity::Error,
                format!(
                    "`{}` {v}s, yet its annotations say `destructiveHint: false`",
                    cx.name
                ),
            ));
            return;
        }
    }
    if read_only == Some(true) && says_it_deletes(cx.description()) {
        let field = cx
            .fields
            .iter()
            .find(|f| f.kind == FieldKind::Description)
            .unwrap_or(name_field);
        out.push(description_finding(cx, field));
        return;
    }
    if read_only == Some(true)
        && let Some(v) = verb_of(WRITES, 1)
    {
        out.push(f(
            Severity::Warning,
            format!(
                "`{}` starts with `{v}`, yet its annotations say `readOnlyHint: true`",
                cx.name
            ),
        ));
    }
}

fn says_it_deletes(description: &str) -> bool {
    crate::audit_re!(
        r"(?i)\b(?:permanently\s+(?:delete|remove|erase)s?|(?:deletes|erases|destroys|wipes)\s+(?:the|a|an|all|this|these|its|their|every|files?|records?|data|repositor(?:y|ies)|branch(?:es)?)|cannot\s+be\s+undone|irreversibl[ey]|overwrites)\b"
    )
    .is_match(description)
}

fn description_finding(cx: &ToolCx<'_>, field: &Field<'_>) -> Finding {
    let msg = format!(
        "`{}` says it deletes or cannot be undone, yet its annotations say `readOnlyHint: true`",
        cx.name
    );
    cx.finding(&RULE, Severity::Error, field, None, msg)
}
