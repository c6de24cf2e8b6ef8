//! `--format concise`: `path:line:col: rule: message`, one finding a line.

use crate::finding::Finding;

/// Renders findings, one a line.
pub fn render(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&format!(
            "{}:{}:{}: {}: {}\n",
            f.path, f.start.line, f.start.column, f.rule, f.message
        ));
    }
    out
}
