//! The audit's outputs: human (the offending span shown), JSON and SARIF 2.1.0.

use serde_json::{Value, json};

use super::{Finding, RULES, Severity};

/// What was audited, as shown: the file findings point into (a tools/list capture, a
/// catalog folder, `toolgate.lock`).
#[derive(Clone, Debug)]
pub struct Shown<'a> {
    /// The input, as given on the command line.
    pub input: &'a str,
}

/// The line of `text` holding `span`, with carets under the span (columns in characters).
fn excerpt(text: &str, span: (usize, usize)) -> String {
    let (start, end) = (span.0.min(text.len()), span.1.min(text.len()));
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = &text[line_start..line_end];
    let shown = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if super::hidden_characters::reveal(&c.to_string(), 0).starts_with("<U+") {
                    '?'
                } else {
                    c
                }
            })
            .collect()
    };
    // Keep a window of 100 characters around the span.
    let before: Vec<char> = shown(&text[line_start..start]).chars().collect();
    let skip = before.len().saturating_sub(40);
    let head: String = before[skip..].iter().collect();
    let marked_end = end.min(line_end).max(start);
    let body = shown(&text[start..marked_end]);
    let tail: String = shown(&line[(marked_end - line_start)..])
        .chars()
        .take(40)
        .collect();
    let lead = if skip > 0 { "…" } else { "" };
    let width = body.chars().count().clamp(1, 80);
    format!(
        "   | {lead}{head}{body}{tail}\n   | {}{}",
        " ".repeat(lead.chars().count() + head.chars().count()),
        "^".repeat(width)
    )
}

/// The human report: one block per finding, then a summary line.
pub fn human(findings: &[Finding], shown: &Shown<'_>) -> String {
    let mut s = String::new();
    for f in findings {
        let server = f
            .server
            .as_deref()
            .map(|x| format!("{x}: "))
            .unwrap_or_default();
        s.push_str(&format!(
            "{}[{}]: {}\n  --> {}: {server}{}{}\n",
            f.severity.as_str(),
            f.rule,
            f.message,
            shown.input,
            f.tool,
            f.path
        ));
        if let (Some(t), Some(span)) = (&f.text, f.span) {
            s.push_str(&excerpt(t, span));
            s.push('\n');
        }
        s.push('\n');
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = findings.len() - errors;
    s.push_str(&format!(
        "{errors} error{}, {warnings} warning{} in {}\n",
        if errors == 1 { "" } else { "s" },
        if warnings == 1 { "" } else { "s" },
        shown.input
    ));
    s
}

/// One finding as JSON (what `--format json` lists).
pub fn finding_json(f: &Finding) -> Value {
    let mut o = json!({
        "rule": f.rule,
        "tool": f.tool,
        "severity": f.severity.as_str(),
        "message": f.message,
        "path": f.path,
    });
    if let Some(server) = &f.server {
        o["server"] = json!(server);
    }
    if let (Some(t), Some((a, b))) = (&f.text, f.span) {
        o["span"] = json!({ "start": a, "end": b });
        o["excerpt"] = json!(t.get(a..b).unwrap_or(""));
    }
    o
}

/// `{"findings": [...], "errors": N, "warnings": N}`.
pub fn json(findings: &[Finding]) -> String {
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let doc = json!({
        "findings": findings.iter().map(finding_json).collect::<Vec<_>>(),
        "errors": errors,
        "warnings": findings.len() - errors,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// A SARIF 2.1.0 log: each finding in the input file, at the tool and JSON pointer as a
/// logical location (a tools/list capture has no line a reviewer edits).
pub fn sarif(findings: &[Finding], shown: &Shown<'_>) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.name,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.summary },
                "help": { "text": r.explain },
                "defaultConfiguration": { "level": r.severity.as_str() },
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let index = RULES.iter().position(|r| r.name == f.rule).unwrap_or(0);
            let qualified = match &f.server {
                Some(s) => format!("{s}/{}{}", f.tool, f.path),
                None => format!("{}{}", f.tool, f.path),
            };
            json!({
                "ruleId": f.rule,
                "ruleIndex": index,
                "level": f.severity.as_str(),
                "message": { "text": f.message },
                "locations": [{
                    "physicalLocation": { "artifactLocation": { "uri": shown.input } },
                    "logicalLocations": [{ "name": f.tool, "fullyQualifiedName": qualified, "kind": "member" }],
                }],
            })
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": { "name": "toolgate", "version": env!("CARGO_PKG_VERSION"), "rules": rules } },
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}
