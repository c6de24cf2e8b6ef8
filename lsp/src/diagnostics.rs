//! Findings as the protocol's diagnostics: the lint's for the files it reads (the same
//! rules, messages and spans as `toolgate lint`; `code` the rule's name, `source`
//! `toolgate`), and `toolgate check`'s errors for a catalog's files at their line and column.

use std::path::Path;

use lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString, Range};
use serde_json::json;
use toolgate_lint::{Finding, Severity};
use toolgate_schema::Errors;

use crate::text::{Encoding, Lines};

/// The `source` of every diagnostic.
pub const SOURCE: &str = "toolgate";

/// A document as the diagnostics read it.
pub struct Text<'a> {
    /// Its content.
    pub text: &'a str,
    /// Its line starts.
    pub lines: &'a Lines,
    /// The negotiated encoding.
    pub enc: Encoding,
}

impl Text<'_> {
    /// The empty range at the start of the text (for what has no place).
    pub fn range0(&self) -> Range {
        self.range(0, 0)
    }

    fn range(&self, start: usize, end: usize) -> Range {
        self.lines.range(self.text, start, end, self.enc)
    }
}

/// The diagnostic of one finding; its `data` carries the rewrite and the suggestion the
/// code actions offer.
pub fn of_finding(t: &Text<'_>, f: &Finding) -> Diagnostic {
    let mut d = plain(
        t.range(f.span.start, f.span.end),
        match f.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        },
        f.message.clone(),
    );
    d.code = Some(NumberOrString::String(f.rule.name().to_string()));
    d.data = Some(json!({
        "span": [f.span.start, f.span.end],
        "suggestion": f.suggestion,
        "fix": f.fix.as_ref().map(|e| json!({
            "span": [e.span.start, e.span.end],
            "replacement": e.replacement,
        })),
    }));
    d
}

/// A diagnostic with no code.
pub fn plain(range: Range, severity: DiagnosticSeverity, message: String) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(severity),
        source: Some(SOURCE.to_string()),
        message,
        ..Diagnostic::default()
    }
}

/// A message the lint words `path:line:col: text` (front matter warnings, errors), placed
/// at that line and column (1-based, in characters); at the start of the file otherwise.
pub fn of_message(
    t: &Text<'_>,
    path: &str,
    message: &str,
    severity: DiagnosticSeverity,
) -> Diagnostic {
    let placed = message
        .strip_prefix(path)
        .and_then(|r| r.strip_prefix(':'))
        .and_then(|r| {
            let mut parts = r.splitn(3, ':');
            let line: usize = parts.next()?.parse().ok()?;
            let col: usize = parts.next()?.parse().ok()?;
            Some((line, col, parts.next()?.trim_start().to_string()))
        });
    match placed {
        Some((line, col, rest)) => {
            let at = char_offset(t, line, col);
            plain(t.range(at, at), severity, rest)
        }
        None => plain(t.range(0, 0), severity, message.to_string()),
    }
}

/// The byte offset of 1-based `line` and `column` (in characters).
fn char_offset(t: &Text<'_>, line: usize, column: usize) -> usize {
    let start = t.lines.offset(
        t.text,
        lsp_types::Position::new(line.saturating_sub(1) as u32, 0),
        Encoding::Utf8,
    );
    let rest = &t.text[start..];
    let line_text = rest.split('\n').next().unwrap_or(rest);
    start
        + line_text
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(line_text.len(), |(i, _)| i)
}

/// The end of the JSON token at `at`: a string to its closing quote, anything else to the
/// next delimiter (so the underline covers the value at fault, not one character).
fn token_end(text: &str, at: usize) -> usize {
    let rest = &text[at..];
    if let Some(body) = rest.strip_prefix('"') {
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => return at + 1 + i + 1,
                '\n' => return at + 1 + i,
                _ => escaped = false,
            }
        }
        return text.len();
    }
    at + rest
        .find([',', '}', ']', '\n', ':'])
        .filter(|&n| n > 0)
        .unwrap_or(rest.chars().next().map_or(0, char::len_utf8))
}

/// The errors (or warnings) of a catalog load that are about the file at `path`, at their
/// places; those about the folder itself go to its `profiles.json`.
pub fn of_catalog(
    t: &Text<'_>,
    path: &Path,
    dir: &Path,
    errors: &Errors,
    severity: DiagnosticSeverity,
) -> Vec<Diagnostic> {
    let is_matrix = path.file_name().is_some_and(|n| n == "profiles.json");
    errors
        .0
        .iter()
        .filter(|e| e.path == path || (is_matrix && e.path == dir))
        .map(|e| {
            let (start, end) = match e.position {
                Some(p) => {
                    let at = char_offset(t, p.line, p.column);
                    (at, token_end(t.text, at))
                }
                None => (0, 0),
            };
            // Worded as `toolgate check` words it, without the place the range gives.
            let message = match &e.pointer {
                Some(ptr) => format!("at {ptr}: {}", e.message),
                None => e.message.clone(),
            };
            let mut d = plain(t.range(start, end), severity, message);
            d.code = Some(NumberOrString::String("check".to_string()));
            d
        })
        .collect()
}
