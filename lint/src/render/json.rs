//! `--format json`: an array of findings, each an object with exactly the keys `rule`,
//! `severity`, `message`, `path`, `line`, `column`, `end_line`, `end_column`, `tool`,
//! `field`, `value`, `suggestion` (null where not applicable).

use crate::finding::Finding;

fn string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "null".to_string())
}

fn opt(s: &Option<String>) -> String {
    s.as_deref().map_or_else(|| "null".to_string(), string)
}

/// One finding as a JSON object on one line.
pub fn object(f: &Finding) -> String {
    format!(
        "{{\"rule\": {}, \"severity\": {}, \"message\": {}, \"path\": {}, \"line\": {}, \"column\": {}, \"end_line\": {}, \"end_column\": {}, \"tool\": {}, \"field\": {}, \"value\": {}, \"suggestion\": {}}}",
        string(f.rule.name()),
        string(f.severity.name()),
        string(&f.message),
        string(&f.path),
        f.start.line,
        f.start.column,
        f.end.line,
        f.end.column,
        opt(&f.tool),
        opt(&f.field),
        opt(&f.value),
        opt(&f.suggestion),
    )
}

/// Streams an array: call [`Writer::push`] per finding, then [`Writer::finish`].
#[derive(Debug, Default)]
pub struct Writer {
    count: usize,
}

impl Writer {
    /// The text for the next findings.
    pub fn push(&mut self, findings: &[Finding]) -> String {
        let mut out = String::new();
        for f in findings {
            out.push_str(if self.count == 0 { "[\n  " } else { ",\n  " });
            out.push_str(&object(f));
            self.count += 1;
        }
        out
    }

    /// The closing text.
    pub fn finish(&self) -> String {
        if self.count == 0 {
            "[]\n".to_string()
        } else {
            "\n]\n".to_string()
        }
    }
}
