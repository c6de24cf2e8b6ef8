//! A server for `implement` that forgets `code_search`, which the profile grants: the
//! compiler names the missing tool.

use serde_json::Value;
use toolgate_generated::tatara::{self, AlwaysOnHandler, ImplementHandler};

struct Implement;

impl AlwaysOnHandler for Implement {
    type Output = Value;
    fn project_get(&self, _: tatara::project_get::Args) -> Value { Value::Null }
    fn repo_list(&self, _: tatara::repo_list::Args) -> Value { Value::Null }
    fn report_internal_issue(&self, _: tatara::report_internal_issue::Args) -> Value { Value::Null }
    fn task_context(&self, _: tatara::task_context::Args) -> Value { Value::Null }
    fn task_get(&self, _: tatara::task_get::Args) -> Value { Value::Null }
    fn task_note(&self, _: tatara::task_note::Args) -> Value { Value::Null }
}

impl ImplementHandler for Implement {
    fn code_context(&self, _: tatara::code_context::Args) -> Value { Value::Null }
    fn code_explain(&self, _: tatara::code_explain::Args) -> Value { Value::Null }
    fn code_graph(&self, _: tatara::code_graph::Args) -> Value { Value::Null }
    fn issue_write(&self, _: tatara::issue_write::Args) -> Value { Value::Null }
    fn memory_describe(&self, _: tatara::memory_describe::Args) -> Value { Value::Null }
    fn memory_query(&self, _: tatara::memory_query::Args) -> Value { Value::Null }
    fn memory_write(&self, _: tatara::memory_write::Args) -> Value { Value::Null }
    fn mr_takeover_request(&self, _: tatara::mr_takeover_request::Args) -> Value { Value::Null }
    fn mr_write(&self, _: tatara::mr_write::Args) -> Value { Value::Null }
    fn scm_read(&self, _: tatara::scm_read::Args) -> Value { Value::Null }
    fn submit_outcome(&self, _: tatara::submit_outcome::ImplementArgs) -> Value { Value::Null }
}

fn main() {}
