//! A server for tatara's `implement` profile: the always-on tools once, then exactly the
//! twelve tools `implement` is granted. Dispatch reaches the typed handler.

use serde_json::{Value, json};
use toolgate_generated::tatara::{self, AlwaysOnHandler, ImplementHandler};

struct Implement;

type Reply = Result<Value, String>;

impl AlwaysOnHandler for Implement {
    type Output = Reply;

    fn project_get(&self, arguments: tatara::project_get::Args) -> Reply {
        Ok(json!({ "project": arguments.project }))
    }
    fn repo_list(&self, _: tatara::repo_list::Args) -> Reply {
        Ok(json!([]))
    }
    fn report_internal_issue(&self, arguments: tatara::report_internal_issue::Args) -> Reply {
        // The default is filled in: `severity` is not an Option.
        Ok(json!({ "severity": arguments.severity.as_str() }))
    }
    fn task_context(&self, _: tatara::task_context::Args) -> Reply {
        Ok(Value::Null)
    }
    fn task_get(&self, _: tatara::task_get::Args) -> Reply {
        Ok(Value::Null)
    }
    fn task_note(&self, _: tatara::task_note::Args) -> Reply {
        Ok(Value::Null)
    }
}

impl ImplementHandler for Implement {
    fn code_context(&self, _: tatara::code_context::Args) -> Reply {
        Ok(Value::Null)
    }
    fn code_explain(&self, _: tatara::code_explain::Args) -> Reply {
        Ok(Value::Null)
    }
    fn code_graph(&self, _: tatara::code_graph::Args) -> Reply {
        Ok(Value::Null)
    }
    fn code_search(&self, arguments: tatara::code_search::Args) -> Reply {
        Ok(json!({ "repo": arguments.repo, "q": arguments.q }))
    }
    fn issue_write(&self, _: tatara::issue_write::Args) -> Reply {
        Ok(Value::Null)
    }
    fn memory_describe(&self, _: tatara::memory_describe::Args) -> Reply {
        Ok(Value::Null)
    }
    fn memory_query(&self, _: tatara::memory_query::Args) -> Reply {
        Ok(Value::Null)
    }
    fn memory_write(&self, _: tatara::memory_write::Args) -> Reply {
        Ok(Value::Null)
    }
    fn mr_takeover_request(&self, _: tatara::mr_takeover_request::Args) -> Reply {
        Ok(Value::Null)
    }
    fn mr_write(&self, arguments: tatara::mr_write::Args) -> Reply {
        use tatara::mr_write::Action;
        match arguments.action {
            Action::Open => Ok(json!({ "opened": arguments.repo })),
            Action::Comment | Action::Reply => Ok(json!({ "commented": arguments.number })),
        }
    }
    fn scm_read(&self, _: tatara::scm_read::Args) -> Reply {
        Ok(Value::Null)
    }
    fn submit_outcome(&self, arguments: tatara::submit_outcome::ImplementArgs) -> Reply {
        Ok(json!({ "action": arguments.action.as_str() }))
    }
}

fn main() {
    let out = tatara::dispatch_implement(
        &Implement,
        "mr_write",
        &json!({ "action": "open", "repo": "api" }),
    );
    assert_eq!(out, Ok(Ok(json!({ "opened": "api" }))));
    let refused = tatara::dispatch_implement(&Implement, "task_list", &json!({}));
    assert_eq!(
        refused.unwrap_err().to_string(),
        "unknown tool `task_list`"
    );
}
