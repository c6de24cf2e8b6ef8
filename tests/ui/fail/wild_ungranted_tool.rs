//! mcp-server-git's `git_create_branch` is granted to `write` only: `triage`'s handler trait
//! has no method for it, so a triage server cannot implement it.

use serde_json::Value;

mod wild_typed {
    toolgate_macros::catalog!("tests/ui/catalogs/wild_typed");
}

use wild_typed::{AlwaysOnHandler, TriageHandler, git_create_branch, issue_write, tree_edit, update_issue_labels};

struct Triage;

impl AlwaysOnHandler for Triage {
    type Output = Value;
}

impl TriageHandler for Triage {
    fn issue_write(&self, _: issue_write::TriageArgs<'_>) -> Value { Value::Null }
    fn tree_edit(&self, _: tree_edit::Args<'_>) -> Value { Value::Null }
    fn update_issue_labels(&self, _: update_issue_labels::Args<'_>) -> Value { Value::Null }
    fn git_create_branch(&self, _: git_create_branch::Args<'_>) -> Value { Value::Null }
}

fn main() {}
