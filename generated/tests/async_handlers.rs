//! The generated asynchronous handler traits: a synchronous handler is an asynchronous one
//! (the blanket implementation) with the same answers, and a handler written against the
//! asynchronous traits gets the call's context (the session, progress, logging) and typed
//! arguments through the asynchronous dispatch.

use std::future::Future;
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

use serde_json::{Value, json};
use toolgate_generated::tatara::{
    self, project_get, repo_list, report_internal_issue, task_context, task_get, task_note,
};
use toolgate_runtime::context::{BoxFuture, CallHooks};
use toolgate_runtime::{CallError, HandlerContext, LogLevel};

/// Runs a future that never waits on anything outside itself (every future here).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

#[test]
fn a_sync_handler_answers_the_async_dispatch_as_the_sync_one() {
    let session = tatara::Session::of(&[tatara::Profile::Implement]);
    let context = HandlerContext::detached(&session);
    let calls = [
        (
            "mr_write",
            json!({"action": "open", "repo": "api", "title": "Fix"}),
        ),
        ("task_note", json!({"kind": "note", "body": "hi"})),
        ("task_note", json!({"kind": "memo", "body": "hi"})),
        ("issue_write", json!({})),
        ("no_such_tool", json!({})),
    ];
    for (tool, arguments) in &calls {
        let sync = tatara::dispatch(&session, &tatara::EchoHandler, tool, arguments);
        let via_async = block_on(tatara::dispatch_async(
            &tatara::EchoHandler,
            context,
            tool,
            arguments,
        ));
        assert_eq!(sync, via_async, "{tool}");
        let profile = block_on(tatara::dispatch_implement_async(
            &tatara::EchoHandler,
            context,
            tool,
            arguments,
        ));
        assert_eq!(sync, profile, "{tool}");
    }
}

/// What the hooks were asked to do.
#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<String>>,
}

impl Recorder {
    fn push(&self, event: String) {
        if let Ok(mut events) = self.events.lock() {
            events.push(event);
        }
    }
}

impl CallHooks for Recorder {
    fn is_cancelled(&self) -> bool {
        false
    }

    fn cancelled(&self) -> BoxFuture<'_, ()> {
        Box::pin(std::future::pending())
    }

    fn wants_progress(&self) -> bool {
        true
    }

    fn progress<'a>(
        &'a self,
        progress: f64,
        total: Option<f64>,
        _message: Option<&'a str>,
    ) -> BoxFuture<'a, ()> {
        self.push(format!("progress {progress}/{total:?}"));
        Box::pin(std::future::ready(()))
    }

    fn log<'a>(
        &'a self,
        level: LogLevel,
        _logger: Option<&'a str>,
        data: Value,
    ) -> BoxFuture<'a, ()> {
        self.push(format!("log {level:?} {data}"));
        Box::pin(std::future::ready(()))
    }

    fn client_supports(&self, _capability: &str) -> bool {
        false
    }

    fn request<'a>(
        &'a self,
        method: &'a str,
        _params: Value,
    ) -> BoxFuture<'a, Result<Value, String>> {
        Box::pin(std::future::ready(Err(format!("no {method}"))))
    }
}

/// A handler of the always-on tools written against the asynchronous trait.
struct Notes;

impl tatara::AlwaysOnAsyncHandler for Notes {
    type Output = Value;

    async fn task_note(
        &self,
        context: HandlerContext<'_, tatara::Profile>,
        arguments: task_note::Args<'_>,
    ) -> Value {
        context.progress(1.0, Some(2.0), None).await;
        context.log(LogLevel::Info, "noted").await;
        let profile = context.profile().map(tatara::Profile::name);
        json!({"profile": profile, "kind": arguments.kind.as_str(), "body": arguments.body})
    }

    async fn task_get(
        &self,
        _: HandlerContext<'_, tatara::Profile>,
        _: task_get::Args<'_>,
    ) -> Value {
        json!("task")
    }

    async fn task_context(
        &self,
        _: HandlerContext<'_, tatara::Profile>,
        _: task_context::Args<'_>,
    ) -> Value {
        json!("context")
    }

    async fn project_get(
        &self,
        _: HandlerContext<'_, tatara::Profile>,
        _: project_get::Args<'_>,
    ) -> Value {
        json!("project")
    }

    async fn repo_list(
        &self,
        _: HandlerContext<'_, tatara::Profile>,
        _: repo_list::Args<'_>,
    ) -> Value {
        json!("repos")
    }

    async fn report_internal_issue(
        &self,
        _: HandlerContext<'_, tatara::Profile>,
        _: report_internal_issue::Args<'_>,
    ) -> Value {
        json!("reported")
    }
}

/// Requires the dispatch future to be sendable, as a multi-threaded server needs.
fn sendable<F: Future + Send>(future: F) -> F {
    future
}

#[test]
fn an_async_handler_gets_the_context_and_typed_arguments() {
    let session = tatara::Session::of(&[tatara::Profile::Review]);
    let recorder = Recorder::default();
    let context = HandlerContext::new(&session, &recorder);
    let arguments = json!({"kind": "handoff", "body": "over to you"});
    let out = block_on(sendable(tatara::dispatch_always_on_async(
        &Notes,
        context,
        "task_note",
        &arguments,
    )));
    assert_eq!(
        out,
        Ok(json!({"profile": "review", "kind": "handoff", "body": "over to you"}))
    );
    let events = recorder
        .events
        .lock()
        .map(|e| e.clone())
        .unwrap_or_default();
    assert_eq!(events, ["progress 1/Some(2.0)", "log Info \"noted\""]);
    // Refusals come before the handler: bad arguments name the field, an ungranted tool is
    // unknown.
    let bad = block_on(tatara::dispatch_always_on_async(
        &Notes,
        context,
        "task_note",
        &json!({"kind": "memo", "body": "x"}),
    ));
    assert!(
        matches!(bad, Err(CallError::InvalidArguments { .. })),
        "{bad:?}"
    );
    let ungranted = block_on(tatara::dispatch_always_on_async(
        &Notes,
        context,
        "mr_write",
        &json!({}),
    ));
    assert_eq!(ungranted, Err(CallError::unknown_tool("mr_write")));
}
