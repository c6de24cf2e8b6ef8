//! github-mcp-server's `issue_write`, imported as the server serves it, with a restriction
//! added (`triage` may only `update`): triage's argument type has no `create` to match on.

mod wild_typed {
    toolgate_macros::catalog!("tests/ui/catalogs/wild_typed");
}

use wild_typed::issue_write::{TriageArgs, TriageMethod};

fn handle(arguments: TriageArgs<'_>) -> &'static str {
    match arguments.method {
        TriageMethod::Create => "create an issue",
        TriageMethod::Update => "update an issue",
    }
}

fn main() {}
