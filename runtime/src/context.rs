//! The context of one call, as the generated asynchronous handler traits receive it: the
//! session (its profiles), a cancellation signal, progress reporting when the client asked
//! for it, MCP logging, and requests back to the client (sampling, elicitation).
//!
//! This crate knows no MCP SDK and no async runtime, so the context is a thin view over
//! [`CallHooks`], an object-safe trait that the server implements (toolgate-serve's
//! `CallContext` over rmcp): every asynchronous operation is a boxed future, which costs one
//! allocation where a handler uses it and nothing where it does not. A handler called outside
//! any server (a test, a direct call) gets [`HandlerContext::detached`], whose hooks do
//! nothing.

use std::future::Future;
use std::pin::Pin;

use crate::{CatalogProfile, Session};

/// A boxed future that may be sent between threads: what the hooks return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The level of an MCP log message (`notifications/message`), as RFC 5424 names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed information for debugging.
    Debug,
    /// Normal operational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// What a server provides to the calls it runs: implemented by the server's own context of a
/// call (toolgate-serve's `CallContext`), never by a handler.
pub trait CallHooks: Send + Sync {
    /// Whether the client cancelled the call (`notifications/cancelled`) or the session
    /// ended.
    fn is_cancelled(&self) -> bool;
    /// Resolves when the call is cancelled (never, for a call that cannot be).
    fn cancelled(&self) -> BoxFuture<'_, ()>;
    /// Whether the client asked for progress (sent a `progressToken`).
    fn wants_progress(&self) -> bool;
    /// Sends `notifications/progress` when the client asked for it; else nothing.
    fn progress<'a>(
        &'a self,
        progress: f64,
        total: Option<f64>,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, ()>;
    /// Sends an MCP log message (`notifications/message`) unless the client's
    /// `logging/setLevel` filters it out. `logger` names the source, when there is one.
    fn log<'a>(
        &'a self,
        level: LogLevel,
        logger: Option<&'a str>,
        data: serde_json::Value,
    ) -> BoxFuture<'a, ()>;
    /// Whether the client declared a capability in its `initialize` (`"sampling"`,
    /// `"elicitation"`, `"roots"`).
    fn client_supports(&self, capability: &str) -> bool;
    /// Sends a request to the client (`sampling/createMessage`, `elicitation/create`,
    /// `roots/list`) and waits for its result, or the reason there is none.
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: serde_json::Value,
    ) -> BoxFuture<'a, Result<serde_json::Value, String>>;
}

/// The hooks of a call outside any server: never cancelled, no progress, no client.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoHooks;

impl CallHooks for NoHooks {
    fn is_cancelled(&self) -> bool {
        false
    }

    fn cancelled(&self) -> BoxFuture<'_, ()> {
        Box::pin(std::future::pending())
    }

    fn wants_progress(&self) -> bool {
        false
    }

    fn progress<'a>(&'a self, _: f64, _: Option<f64>, _: Option<&'a str>) -> BoxFuture<'a, ()> {
        Box::pin(std::future::ready(()))
    }

    fn log<'a>(
        &'a self,
        _: LogLevel,
        _: Option<&'a str>,
        _: serde_json::Value,
    ) -> BoxFuture<'a, ()> {
        Box::pin(std::future::ready(()))
    }

    fn client_supports(&self, _: &str) -> bool {
        false
    }

    fn request<'a>(
        &'a self,
        method: &'a str,
        _: serde_json::Value,
    ) -> BoxFuture<'a, Result<serde_json::Value, String>> {
        let why = format!("no client to send `{method}` to");
        Box::pin(std::future::ready(Err(why)))
    }
}

/// What an asynchronous handler may know and do besides its arguments: the session it is
/// called for, and the server's [`CallHooks`]. Cheap to copy; it borrows both.
pub struct HandlerContext<'c, P> {
    session: &'c Session<P>,
    hooks: &'c dyn CallHooks,
}

impl<P> Clone for HandlerContext<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for HandlerContext<'_, P> {}

impl<P: std::fmt::Debug> std::fmt::Debug for HandlerContext<'_, P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandlerContext")
            .field("session", &self.session)
            .field("cancelled", &self.hooks.is_cancelled())
            .field("wants_progress", &self.hooks.wants_progress())
            .finish()
    }
}

impl<'c, P: CatalogProfile> HandlerContext<'c, P> {
    /// The context of a call of `session`, served through `hooks`.
    pub fn new(session: &'c Session<P>, hooks: &'c dyn CallHooks) -> HandlerContext<'c, P> {
        HandlerContext { session, hooks }
    }

    /// The context of a call of `session` outside any server ([`NoHooks`]).
    pub fn detached(session: &'c Session<P>) -> HandlerContext<'c, P> {
        HandlerContext {
            session,
            hooks: &NoHooks,
        }
    }

    /// The session the call is served for.
    pub fn session(&self) -> &'c Session<P> {
        self.session
    }

    /// The session's first profile (its only one, for a selector that does not combine);
    /// `None` when it failed closed.
    pub fn profile(&self) -> Option<P> {
        self.session.profile()
    }

    /// The server's hooks, for what the methods here do not wrap.
    pub fn hooks(&self) -> &'c dyn CallHooks {
        self.hooks
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.hooks.is_cancelled()
    }

    /// Resolves when the call is cancelled: `select` it against the work.
    pub fn cancelled(&self) -> BoxFuture<'c, ()> {
        self.hooks.cancelled()
    }

    /// Whether the client asked for progress.
    pub fn wants_progress(&self) -> bool {
        self.hooks.wants_progress()
    }

    /// Reports progress when the client asked for it (else does nothing).
    pub fn progress<'a>(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, ()>
    where
        'c: 'a,
    {
        self.hooks.progress(progress, total, message)
    }

    /// Logs to the client at `level` (filtered by its `logging/setLevel`).
    pub fn log(&self, level: LogLevel, data: impl Into<serde_json::Value>) -> BoxFuture<'c, ()> {
        self.hooks.log(level, None, data.into())
    }

    /// Whether the client declared `capability` (`"sampling"`, `"elicitation"`).
    pub fn client_supports(&self, capability: &str) -> bool {
        self.hooks.client_supports(capability)
    }

    /// Sends `method` with `params` to the client and waits for its result.
    pub fn request<'a>(
        &self,
        method: &'a str,
        params: serde_json::Value,
    ) -> BoxFuture<'a, Result<serde_json::Value, String>>
    where
        'c: 'a,
    {
        self.hooks.request(method, params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detached_hooks_do_nothing_and_refuse_requests() {
        let hooks = NoHooks;
        assert!(!hooks.is_cancelled());
        assert!(!hooks.wants_progress());
        assert!(!hooks.client_supports("sampling"));
        // A ready future: polled once with a no-op waker.
        let mut request = hooks.request("sampling/createMessage", serde_json::json!({}));
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        match request.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(Err(why)) => assert!(why.contains("sampling/createMessage")),
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct Only;

    impl CatalogProfile for Only {
        const ALL: &'static [Only] = &[Only];
        const SELECTOR_ENV: &'static str = "ONLY_PROFILE";
        const COMBINE: bool = false;
        const ALWAYS_ON: &'static [&'static str] = &[];
        const SERVED: &'static [crate::ServedEntry] = &[];
        fn name(self) -> &'static str {
            "only"
        }
        fn index(self) -> usize {
            0
        }
        fn tools_list_for_mask(_: u64) -> Option<&'static str> {
            None
        }
    }

    #[test]
    fn a_context_gives_the_session_and_borrows_messages_for_the_call_only() {
        let session = Session::of(&[Only]);
        let context = HandlerContext::detached(&session);
        assert_eq!(context.profile(), Some(Only));
        assert!(!context.is_cancelled() && !context.wants_progress());
        // A message built in the handler lives as long as the future, not the context.
        let message = format!("{} of {}", 1, 2);
        let mut progress = context.progress(1.0, Some(2.0), Some(&message));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        assert!(progress.as_mut().poll(&mut cx).is_ready());
    }
}
