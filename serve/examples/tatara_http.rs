//! Three tatara tools implemented for real (a task-notes store, not an echo), served over MCP
//! Streamable HTTP with asynchronous handlers:
//!
//! ```sh
//! cargo run -p toolgate-serve --features http --example tatara_http -- 127.0.0.1:8080
//! ```
//!
//! `task_note` records a note on a task, `task_get` answers a task with its note count,
//! `task_context` its notes (the recent three, or all). `catalog!` types the arguments, so a
//! `kind` outside `note|plan|handoff` never reaches the handler; each handler returns a
//! future (its `Output`), awaited by the server without holding a thread.

mod tatara {
    toolgate_macros::catalog!("../schema/tatara");
}

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Value, json};
use tatara::{project_get, repo_list, report_internal_issue, task_context, task_get, task_note};
use tokio::sync::Mutex;
use toolgate_runtime::CallError;
use toolgate_serve::http::{HttpOptions, serve_http};
use toolgate_serve::{AsyncBackend, CallContext, JsonObject, Reply, ToolServer};

/// The tools this example serves, out of tatara's always-on ones.
const SERVED: [&str; 3] = ["task_get", "task_note", "task_context"];

/// What a handler answers: a future of the result (an `Err` is a tool error).
type Answer = Pin<Box<dyn Future<Output = Result<Value, String>> + Send>>;

#[derive(Clone, Debug)]
struct Note {
    kind: String,
    body: String,
}

/// The store behind the tools: notes by task, behind an async lock (a database would be
/// awaited the same way).
#[derive(Clone, Default)]
struct Tasks {
    notes: Arc<Mutex<HashMap<String, Vec<Note>>>>,
}

/// The task a call names, or the session's current one.
fn task_name(task: Option<impl ToString>) -> String {
    task.map_or_else(|| "current".to_string(), |t| t.to_string())
}

fn not_served(tool: &str) -> Answer {
    let message = format!("`{tool}` is not served by this example");
    Box::pin(async move { Err(message) })
}

impl tatara::AlwaysOnHandler for Tasks {
    type Output = Answer;

    fn task_note(&self, arguments: task_note::Args) -> Answer {
        // The arguments borrow from the request: take what the future needs.
        let notes = self.notes.clone();
        let task = task_name(arguments.task);
        let note = Note {
            kind: arguments.kind.as_str().to_string(),
            body: arguments.body.to_string(),
        };
        Box::pin(async move {
            let mut notes = notes.lock().await;
            let list = notes.entry(task.clone()).or_default();
            list.push(note);
            Ok(json!({ "task": task, "notes": list.len() }))
        })
    }

    fn task_get(&self, arguments: task_get::Args) -> Answer {
        let notes = self.notes.clone();
        let task = task_name(arguments.task);
        Box::pin(async move {
            let notes = notes.lock().await;
            let count = notes.get(&task).map_or(0, Vec::len);
            Ok(json!({ "task": task, "notes": count }))
        })
    }

    fn task_context(&self, arguments: task_context::Args) -> Answer {
        let notes = self.notes.clone();
        let task = task_name(arguments.task);
        let all = arguments
            .notes
            .as_ref()
            .is_some_and(|n| n.as_str() == "all");
        Box::pin(async move {
            let notes = notes.lock().await;
            let list = notes.get(&task).cloned().unwrap_or_default();
            let skip = if all { 0 } else { list.len().saturating_sub(3) };
            let shown: Vec<Value> = list[skip..]
                .iter()
                .map(|n| json!({ "kind": n.kind, "body": n.body }))
                .collect();
            Ok(json!({ "task": task, "notes": shown }))
        })
    }

    fn project_get(&self, _: project_get::Args) -> Answer {
        not_served("project_get")
    }

    fn repo_list(&self, _: repo_list::Args) -> Answer {
        not_served("repo_list")
    }

    fn report_internal_issue(&self, _: report_internal_issue::Args) -> Answer {
        not_served("report_internal_issue")
    }
}

/// The server's backend: the generated dispatch checks and types the arguments, then the
/// handler's future is awaited.
struct TaskTools(Tasks);

impl AsyncBackend for TaskTools {
    async fn call_async(
        &self,
        tool: &str,
        arguments: &JsonObject,
        context: &CallContext,
    ) -> Result<Reply, CallError> {
        let answer = tatara::dispatch_always_on(&self.0, tool, arguments)?;
        tokio::select! {
            result = answer => Ok(Reply::from(result)),
            () = context.cancelled() => Ok(Reply::Failed("cancelled by the client".to_string())),
        }
    }
}

/// The always-on tools/list, narrowed to the tools served.
fn tools_list() -> Result<String, serde_json::Error> {
    let mut list: Value = serde_json::from_str(tatara::FAIL_CLOSED_TOOLS_LIST_JSON)?;
    if let Some(tools) = list["tools"].as_array_mut() {
        tools.retain(|t| t["name"].as_str().is_some_and(|n| SERVED.contains(&n)));
    }
    serde_json::to_string(&list)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".to_string())
        .parse()?;
    let server = ToolServer::new(&tools_list()?, TaskTools(Tasks::default()))?;
    let options = HttpOptions {
        on_listening: Some(Box::new(|bound| {
            eprintln!("tatara tasks: listening on http://{bound}/mcp");
        })),
        ..HttpOptions::default()
    };
    serve_http(addr, server, options)?;
    Ok(())
}
