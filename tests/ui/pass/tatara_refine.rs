//! A server for tatara's `refine` profile. Its `mr_write` receives the restricted type,
//! whose `action` can only be `comment`; it widens to the full type for shared code.

use serde_json::{Value, json};
use toolgate_generated::tatara::{self, AlwaysOnHandler, RefineHandler};

struct Refine;

impl AlwaysOnHandler for Refine {
    type Output = Value;

    fn project_get(&self, _: tatara::project_get::Args) -> Value {
        Value::Null
    }
    fn repo_list(&self, _: tatara::repo_list::Args) -> Value {
        Value::Null
    }
    fn report_internal_issue(&self, _: tatara::report_internal_issue::Args) -> Value {
        Value::Null
    }
    fn task_context(&self, _: tatara::task_context::Args) -> Value {
        Value::Null
    }
    fn task_get(&self, _: tatara::task_get::Args) -> Value {
        Value::Null
    }
    fn task_note(&self, _: tatara::task_note::Args) -> Value {
        Value::Null
    }
}

fn post(arguments: tatara::mr_write::Args) -> Value {
    json!({ "action": arguments.action.as_str(), "repo": arguments.repo })
}

impl RefineHandler for Refine {
    fn issue_write(&self, _: tatara::issue_write::Args) -> Value {
        Value::Null
    }
    fn memory_describe(&self, _: tatara::memory_describe::Args) -> Value {
        Value::Null
    }
    fn memory_query(&self, _: tatara::memory_query::Args) -> Value {
        Value::Null
    }
    fn mr_write(&self, arguments: tatara::mr_write::RefineArgs) -> Value {
        match arguments.action {
            tatara::mr_write::RefineAction::Comment => post(arguments.into()),
        }
    }
    fn scm_read(&self, _: tatara::scm_read::Args) -> Value {
        Value::Null
    }
    fn submit_outcome(&self, arguments: tatara::submit_outcome::RefineArgs) -> Value {
        json!({ "folds": arguments.folds.map_or(0, |f| f.len()) })
    }
    fn task_list(&self, _: tatara::task_list::Args) -> Value {
        Value::Null
    }
}

fn main() {
    let session = tatara::Session::resolve("refine");
    assert_eq!(session.profile(), Some(tatara::Profile::Refine));
    let ok = tatara::dispatch_refine(&Refine, "mr_write", &json!({ "action": "comment", "repo": "api" }));
    assert_eq!(ok, Ok(json!({ "action": "comment", "repo": "api" })));
    let open = tatara::dispatch_refine(&Refine, "mr_write", &json!({ "action": "open", "repo": "api" }));
    assert_eq!(
        open.unwrap_err().to_string(),
        "invalid arguments for `mr_write`: field `action`: \"open\" is not one of \"comment\""
    );
}
