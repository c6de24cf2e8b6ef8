//! Three tatara tools implemented for real (a task-notes store, not an echo), served over MCP
//! Streamable HTTP with asynchronous handlers:
//!
//! ```sh
//! cargo run -p toolgate-serve --features http --example tatara_http -- 127.0.0.1:8080
//! ```
//!
//! `task_note` records a note on a task, `task_get` answers a task with its note count and
//! latest kind, `task_context` its notes (the recent three, or all). They implement the
//! generated asynchronous trait `tatara::AlwaysOnAsyncHandler`: each method gets the call's
//! context (the session, cancellation, progress, MCP logging) and arguments that `catalog!`
//! typed and checked, so a `kind` outside `note|plan|handoff` never reaches a handler. The
//! server awaits each handler's future without holding a thread, and drops it when the
//! client cancels.

mod tatara {
    toolgate_macros::catalog!("../schema/tatara");
}

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};
use tatara::{project_get, repo_list, report_internal_issue, task_context, task_get, task_note};
use tokio::sync::Mutex;
use toolgate_runtime::{CallError, HandlerContext, LogLevel};
use toolgate_serve::http::{HttpOptions, serve_http};
use toolgate_serve::{AsyncBackend, CallContext, JsonObject, Reply, ToolServer};

/// The tools this example serves, out of tatara's always-on ones.
const SERVED: [&str; 3] = ["task_get", "task_note", "task_context"];

/// What a handler answers: a value, or a tool error.
type Answer = Result<Value, String>;

/// The context a handler gets.
type Context<'c> = HandlerContext<'c, tatara::Profile>;

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
    Err(format!("`{tool}` is not served by this example"))
}

/// Notes are cut at 4096 bytes, as the tool's description says (on a character boundary).
fn cut(body: &str) -> String {
    let mut end = body.len().min(4096);
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    body[..end].to_string()
}

impl tatara::AlwaysOnAsyncHandler for Tasks {
    type Output = Answer;

    async fn task_note(&self, context: Context<'_>, arguments: task_note::Args<'_>) -> Answer {
        let task = task_name(arguments.task);
        let note = Note {
            kind: arguments.kind.as_str().to_string(),
            body: cut(&arguments.body),
        };
        if note.kind == "handoff" {
            context
                .log(LogLevel::Info, json!({"handoff": task.clone()}))
                .await;
        }
        let mut notes = self.notes.lock().await;
        let list = notes.entry(task.clone()).or_default();
        list.push(note);
        Ok(json!({ "task": task, "notes": list.len() }))
    }

    async fn task_get(&self, _: Context<'_>, arguments: task_get::Args<'_>) -> Answer {
        let task = task_name(arguments.task);
        let notes = self.notes.lock().await;
        let list = notes.get(&task).map(Vec::as_slice).unwrap_or_default();
        let latest = list.last().map(|n| n.kind.clone());
        Ok(json!({ "task": task, "notes": list.len(), "latest": latest }))
    }

    async fn task_context(
        &self,
        context: Context<'_>,
        arguments: task_context::Args<'_>,
    ) -> Answer {
        let task = task_name(arguments.task);
        let all = arguments
            .notes
            .as_ref()
            .is_some_and(|n| n.as_str() == "all");
        let list = self
            .notes
            .lock()
            .await
            .get(&task)
            .cloned()
            .unwrap_or_default();
        let skip = if all { 0 } else { list.len().saturating_sub(3) };
        let total = (list.len() - skip) as f64;
        let mut shown = Vec::new();
        for (i, n) in list[skip..].iter().enumerate() {
            if context.is_cancelled() {
                return Err("cancelled by the client".to_string());
            }
            shown.push(json!({ "kind": n.kind, "body": n.body }));
            context.progress((i + 1) as f64, Some(total), None).await;
        }
        // A handoff is what the next pod reads first.
        shown.sort_by_key(|n| n["kind"] != "handoff");
        Ok(json!({ "task": task, "notes": shown }))
    }

    async fn project_get(&self, _: Context<'_>, _: project_get::Args<'_>) -> Answer {
        not_served("project_get")
    }

    async fn repo_list(&self, _: Context<'_>, _: repo_list::Args<'_>) -> Answer {
        not_served("repo_list")
    }

    async fn report_internal_issue(
        &self,
        _: Context<'_>,
        _: report_internal_issue::Args<'_>,
    ) -> Answer {
        not_served("report_internal_issue")
    }
}

/// The server's backend: the generated asynchronous dispatch checks and types the
/// arguments, then the handler's future is awaited with the call's context, or dropped when
/// the client cancels.
struct TaskTools {
    tasks: Tasks,
    /// The session the handlers are told they serve (the always-on tools fail closed to).
    session: tatara::Session,
}

impl AsyncBackend for TaskTools {
    async fn call_async(
        &self,
        tool: &str,
        arguments: &JsonObject,
        context: &CallContext,
    ) -> Result<Reply, CallError> {
        let handler_context = context.handler_context(&self.session);
        let answer =
            tatara::dispatch_always_on_async(&self.tasks, handler_context, tool, arguments);
        tokio::select! {
            result = answer => result.map(Reply::from),
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
    let backend = TaskTools {
        tasks: Tasks::default(),
        session: tatara::Session::of(&[]),
    };
    let server = ToolServer::new(&tools_list()?, backend)?;
    let options = HttpOptions {
        on_listening: Some(Box::new(|bound| {
            eprintln!("tatara tasks: listening on http://{bound}/mcp");
        })),
        ..HttpOptions::default()
    };
    serve_http(addr, server, options)?;
    Ok(())
}
