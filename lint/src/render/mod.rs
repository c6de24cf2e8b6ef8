//! Output formats, behind one entry point per format: `full` (rustc-style snippets, the
//! default), `concise`, `json`, `github` (workflow annotations) and `sarif` (2.1.0).
//!
//! Every format prints findings sorted by path, line and column, and paths relative to the
//! folder the lint was started in. Columns count Unicode code points, from 1; end columns are
//! exclusive (the column after the last character), as in SARIF.

pub mod concise;
pub mod full;
pub mod github;
pub mod json;
pub mod sarif;

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// rustc-style snippets with the span underlined, in colour or not.
    Full {
        /// ANSI colours (annotate-snippets' styled renderer).
        color: bool,
    },
    /// `path:line:col: rule: message`.
    Concise,
    /// A JSON array of findings.
    Json,
    /// GitHub Actions workflow commands (`::error file=...`).
    Github,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
}

impl Format {
    /// Whether the format is for people (and so ends with a summary line).
    pub fn is_human(self) -> bool {
        matches!(self, Format::Full { .. } | Format::Concise)
    }
}

/// Counts for the summary line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Files checked.
    pub files: usize,
    /// Calls checked.
    pub calls: usize,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Files with at least one finding.
    pub files_with_findings: usize,
    /// Files that could not be checked (completely).
    pub unchecked: usize,
    /// Findings hidden because the baseline records them.
    pub baselined: usize,
    /// Findings repaired by `--fix` (or that `--diff` would repair).
    pub fixed: usize,
    /// Files `--fix` rewrote (or that `--diff` would rewrite).
    pub files_fixed: usize,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The summary line printed after the findings in human formats.
pub fn summary(t: &Totals) -> String {
    let checked = format!(
        "{} and {} checked",
        plural(t.files, "file", "files"),
        plural(t.calls, "call", "calls")
    );
    let mut s = if t.errors + t.warnings == 0 && t.unchecked > 0 {
        // Not "passed": the exit code is 2, and the line must not say otherwise.
        format!("No findings in what could be checked: {checked}")
    } else if t.errors + t.warnings == 0 {
        format!("All checks passed: {checked}")
    } else {
        let mut parts = Vec::new();
        if t.errors > 0 {
            parts.push(plural(t.errors, "error", "errors"));
        }
        if t.warnings > 0 {
            parts.push(plural(t.warnings, "warning", "warnings"));
        }
        format!(
            "Found {} in {} ({checked})",
            parts.join(" and "),
            plural(t.files_with_findings, "file", "files")
        )
    };
    if t.fixed > 0 {
        s.push_str(&format!(
            "; applied {} in {}",
            plural(t.fixed, "rename", "renames"),
            plural(t.files_fixed, "file", "files")
        ));
    }
    if t.baselined > 0 {
        s.push_str(&format!(
            "; {} in the baseline not shown",
            plural(t.baselined, "finding", "findings")
        ));
    }
    if t.unchecked > 0 {
        s.push_str(&format!(
            "; {} could not be checked",
            plural(t.unchecked, "file", "files")
        ));
    }
    s.push('.');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_lines() {
        let mut t = Totals {
            files: 49,
            calls: 344,
            ..Totals::default()
        };
        assert_eq!(
            summary(&t),
            "All checks passed: 49 files and 344 calls checked."
        );
        t.unchecked = 1;
        assert_eq!(
            summary(&t),
            "No findings in what could be checked: 49 files and 344 calls checked; 1 file could not be checked."
        );
        t.errors = 3;
        t.warnings = 1;
        t.files_with_findings = 1;
        t.unchecked = 2;
        assert_eq!(
            summary(&t),
            "Found 3 errors and 1 warning in 1 file (49 files and 344 calls checked); 2 files could not be checked."
        );
    }
}
