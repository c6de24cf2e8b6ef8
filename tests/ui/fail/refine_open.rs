//! Refine's `mr_write` may only comment: its argument type has no `open` to match on.

use toolgate_generated::tatara::mr_write::{RefineAction, RefineArgs};

fn handle(arguments: RefineArgs) -> &'static str {
    match arguments.action {
        RefineAction::Open => "open a merge request",
        RefineAction::Comment => "comment",
    }
}

fn main() {}
