//! `--format sarif`: SARIF 2.1.0, for GitHub code scanning and other viewers.
//!
//! Columns are counted in Unicode code points, which the run states with
//! `"columnKind": "unicodeCodePoints"`. Paths are relative URIs (to the folder the lint ran
//! in, normally the repository root), so code scanning places them in the repository.

use serde_json::{Value, json};

use crate::finding::Finding;
use crate::rules::{Rule, Severity};

/// Percent-encodes a relative path for a URI (`/` kept).
fn uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// The SARIF log for `findings`; `fingerprints` holds each finding's baseline fingerprint,
/// reported as a partial fingerprint so that code scanning tracks a finding across edits.
pub fn render(findings: &[(Finding, String)]) -> String {
    let rules: Vec<Value> = Rule::ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.name(),
                "shortDescription": { "text": r.summary() },
                "fullDescription": { "text": r.summary() },
                "help": { "text": r.explanation(), "markdown": r.explanation() },
                "defaultConfiguration": { "level": "error" },
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|(f, fp)| {
            let index = Rule::ALL.iter().position(|r| *r == f.rule).unwrap_or(0);
            json!({
                "ruleId": f.rule.name(),
                "ruleIndex": index,
                "level": level(f.severity),
                "message": { "text": f.message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri(&f.path) },
                        "region": {
                            "startLine": f.start.line,
                            "startColumn": f.start.column,
                            "endLine": f.end.line,
                            "endColumn": f.end.column,
                        }
                    }
                }],
                "partialFingerprints": { "toolgateFingerprint/v1": fp },
            })
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "toolgate",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_encoded() {
        assert_eq!(uri("a b/ç.md"), "a%20b/%C3%A7.md");
    }
}
