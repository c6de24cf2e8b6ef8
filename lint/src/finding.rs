//! A finding: one problem in one file, with the exact bytes at fault.

use crate::rules::{Rule, Severity};
use crate::text::{Edit, Position, Span};

/// One problem found by the lint.
///
/// `span` is the token at fault (the tool name, the field name, the value with its quotes,
/// one alternative of `"a"|"b"`, or a profile name in the front matter); `call` is the whole
/// call, from its name to its `)` (or to where parsing stopped). Both are byte ranges of the
/// file as read, so `lint --fix` can rewrite exactly those bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The rule.
    pub rule: Rule,
    /// Its severity (from the configuration).
    pub severity: Severity,
    /// What is wrong, and what would be right.
    pub message: String,
    /// The file, as shown (relative to the folder the lint was started in).
    pub path: String,
    /// The token at fault.
    pub span: Span,
    /// The whole call (for `unknown-profile`, the profile name again).
    pub call: Span,
    /// Where `span` starts.
    pub start: Position,
    /// Where `span` ends (exclusive: the column after its last character).
    pub end: Position,
    /// The tool called, when the finding is about a call.
    pub tool: Option<String>,
    /// The field, when the finding is about a field or its value.
    pub field: Option<String>,
    /// The value (a profile name for `unknown-profile`).
    pub value: Option<String>,
    /// What to write instead, when there is one candidate.
    pub suggestion: Option<String>,
    /// A safe rewrite: set only where the catalog declares the rename (`formerly`), so it is
    /// unambiguous.
    pub fix: Option<Edit>,
}

impl Finding {
    /// The order findings are reported in: path, line, column, then rule and message.
    pub fn sort_key(&self) -> (&str, Position, Rule, &str) {
        (&self.path, self.start, self.rule, &self.message)
    }
}
