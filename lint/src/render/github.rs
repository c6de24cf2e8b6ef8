//! `--format github`: GitHub Actions workflow commands, which show as annotations on the file
//! and line of a pull request.

use crate::finding::Finding;
use crate::rules::Severity;

/// Escapes a workflow command's message.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Renders findings, one command a line.
pub fn render(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        out.push_str(&format!(
            "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
            escape_property(&f.path),
            f.start.line,
            f.start.column,
            f.end.line,
            f.end.column,
            escape_property(&format!("toolgate {}", f.rule)),
            escape_data(&f.message)
        ));
    }
    out
}
