//! Asynchronous backends and the context of a call: the tools a handler waits in (databases,
//! APIs) without holding a thread, told when the client cancels, able to report progress and
//! to log to the client.

// MCP logging (`notifications/message`) is deprecated by SEP-2577 for the 2026-07-28
// revision; it is still the logging of 2025-11-25, which is what clients speak.
#![allow(deprecated)]

use std::any::Any;
use std::future::Future;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use rmcp::ErrorData;
use rmcp::RoleServer;
use rmcp::model::{
    CustomRequest, ErrorCode, GetPromptRequestParams, LoggingLevel,
    LoggingMessageNotificationParam, PaginatedRequestParams, ProgressNotificationParam,
    ProgressToken, ReadResourceRequestParams, ServerRequest, ServerResult,
};
use rmcp::service::{Peer, RequestContext};
use tokio_util::sync::CancellationToken;
use toolgate_runtime::context::{BoxFuture, CallHooks};
use toolgate_runtime::{CallError, CatalogProfile, HandlerContext, LogLevel, Session};

use crate::{Backend, JsonObject, Reply};

/// What a call's handler may know and do besides its arguments.
#[derive(Clone)]
pub struct CallContext {
    cancellation: CancellationToken,
    progress_token: Option<ProgressToken>,
    peer: Option<Peer<RoleServer>>,
    client_level: ClientLogLevel,
    session: SessionScope,
}

/// The MCP session a call belongs to: a number unique in the process, and one slot where a
/// backend keeps what lives as long as the session (the gate's upstream connection), dropped
/// with it. A stdio server has one session; over HTTP each `Mcp-Session-Id` (or stateless
/// exchange) has its own.
#[derive(Clone)]
pub struct SessionScope(Arc<ScopeInner>);

struct ScopeInner {
    id: u64,
    state: OnceLock<Arc<dyn Any + Send + Sync>>,
}

static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

impl Default for SessionScope {
    fn default() -> SessionScope {
        SessionScope(Arc::new(ScopeInner {
            id: NEXT_SESSION.fetch_add(1, Ordering::Relaxed),
            state: OnceLock::new(),
        }))
    }
}

impl std::fmt::Debug for SessionScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionScope")
            .field("id", &self.0.id)
            .finish_non_exhaustive()
    }
}

impl SessionScope {
    /// The session's number: unique among the sessions of this process, starting at 1.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// The session's state of type `T`, made by `init` on first use. `None` when the slot
    /// already holds a value of another type (one backend per session owns the slot).
    pub fn state<T: Any + Send + Sync>(&self, init: impl FnOnce() -> T) -> Option<Arc<T>> {
        let any = self.0.state.get_or_init(|| Arc::new(init())).clone();
        any.downcast::<T>().ok()
    }
}

/// The level a session's client asked for with `logging/setLevel` (until it does, every
/// message is sent).
#[derive(Clone, Debug)]
pub(crate) struct ClientLogLevel(Arc<AtomicU8>);

const UNSET: u8 = u8::MAX;

fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

impl Default for ClientLogLevel {
    fn default() -> ClientLogLevel {
        ClientLogLevel(Arc::new(AtomicU8::new(UNSET)))
    }
}

impl ClientLogLevel {
    /// Records the client's `logging/setLevel`.
    pub(crate) fn set(&self, level: LoggingLevel) {
        self.0.store(rank(level), Ordering::Relaxed);
    }

    fn admits(&self, level: LoggingLevel) -> bool {
        let min = self.0.load(Ordering::Relaxed);
        min == UNSET || rank(level) >= min
    }
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("cancelled", &self.cancellation.is_cancelled())
            .field("progress_token", &self.progress_token)
            .finish_non_exhaustive()
    }
}

impl CallContext {
    /// The context of a `tools/call` that rmcp hands the server.
    pub(crate) fn of(
        context: &RequestContext<RoleServer>,
        client_level: &ClientLogLevel,
        session: &SessionScope,
    ) -> CallContext {
        CallContext {
            cancellation: context.ct.clone(),
            progress_token: context.meta.get_progress_token(),
            peer: Some(context.peer.clone()),
            client_level: client_level.clone(),
            session: session.clone(),
        }
    }

    /// A context outside any session (tests, direct calls): never cancelled, no progress,
    /// no client to log to.
    pub fn detached() -> CallContext {
        CallContext {
            cancellation: CancellationToken::new(),
            progress_token: None,
            peer: None,
            client_level: ClientLogLevel::default(),
            session: SessionScope::default(),
        }
    }

    /// The session this call belongs to.
    pub fn session(&self) -> &SessionScope {
        &self.session
    }

    /// The client of this call's session (`None` for a detached context): what a backend
    /// relays the requests of a server behind it to (sampling, elicitation, roots).
    pub fn peer(&self) -> Option<&Peer<RoleServer>> {
        self.peer.as_ref()
    }

    /// The `progressToken` the client sent with the call, if any.
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.progress_token.as_ref()
    }

    /// Resolves when the client cancels the call (`notifications/cancelled`) or the session
    /// ends.
    pub async fn cancelled(&self) {
        self.cancellation.cancelled().await;
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Whether the client asked for progress (sent a `progressToken`).
    pub fn wants_progress(&self) -> bool {
        self.progress_token.is_some()
    }

    /// Reports progress (`notifications/progress`) when the client asked for it; else
    /// nothing. A client gone away is not an error of the call.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let (Some(token), Some(peer)) = (&self.progress_token, &self.peer) else {
            return;
        };
        let mut param = ProgressNotificationParam::new(token.clone(), progress);
        param.total = total;
        param.message = message.map(str::to_string);
        let _ = peer.notify_progress(param).await;
    }

    /// Logs to the client (`notifications/message`), unless the client asked for a higher
    /// level with `logging/setLevel`. A client gone away is not an error of the call.
    pub async fn log(&self, level: LoggingLevel, data: serde_json::Value) {
        self.log_from(level, None, data).await;
    }

    async fn log_from(&self, level: LoggingLevel, logger: Option<&str>, data: serde_json::Value) {
        let Some(peer) = &self.peer else {
            return;
        };
        if !self.client_level.admits(level) {
            return;
        }
        let mut param = LoggingMessageNotificationParam::new(level, data);
        param.logger = logger.map(str::to_string);
        let _ = peer.notify_logging_message(param).await;
    }

    /// Whether the client declared `capability` in its `initialize` (`"sampling"`,
    /// `"elicitation"`, `"roots"`); `false` outside a session or before the handshake.
    pub fn client_supports(&self, capability: &str) -> bool {
        let Some(info) = self.peer.as_ref().and_then(Peer::peer_info) else {
            return false;
        };
        let c = &info.capabilities;
        match capability {
            "sampling" => c.sampling.is_some(),
            "elicitation" => c.elicitation.is_some(),
            "roots" => c.roots.is_some(),
            _ => false,
        }
    }

    /// Sends a request to the client (`sampling/createMessage`, `elicitation/create`,
    /// `roots/list`, ...) and waits for its result as JSON, or says why there is none (no
    /// client, an error answer, the session gone).
    pub async fn request(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, String> {
        let Some(peer) = &self.peer else {
            return Err(format!("no client to send `{method}` to"));
        };
        let request = ServerRequest::CustomRequest(CustomRequest::new(method, Some(params)));
        let result = peer
            .send_request(request)
            .await
            .map_err(|e| format!("`{method}` failed: {e}"))?;
        serde_json::to_value(result).map_err(|e| format!("`{method}` answered: {e}"))
    }

    /// The context a generated asynchronous handler receives for a call of `session`
    /// (`dispatch_async` and the `dispatch_*_async` functions take it), over this call's
    /// cancellation, progress, logging and client.
    pub fn handler_context<'c, P: CatalogProfile>(
        &'c self,
        session: &'c Session<P>,
    ) -> HandlerContext<'c, P> {
        HandlerContext::new(session, self)
    }
}

fn logging_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// The hooks generated handlers reach through their [`HandlerContext`].
impl CallHooks for CallContext {
    fn is_cancelled(&self) -> bool {
        CallContext::is_cancelled(self)
    }

    fn cancelled(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.cancellation.cancelled())
    }

    fn wants_progress(&self) -> bool {
        CallContext::wants_progress(self)
    }

    fn progress<'a>(
        &'a self,
        progress: f64,
        total: Option<f64>,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(CallContext::progress(self, progress, total, message))
    }

    fn log<'a>(
        &'a self,
        level: LogLevel,
        logger: Option<&'a str>,
        data: serde_json::Value,
    ) -> BoxFuture<'a, ()> {
        Box::pin(self.log_from(logging_level(level), logger, data))
    }

    fn client_supports(&self, capability: &str) -> bool {
        CallContext::client_supports(self, capability)
    }

    fn request<'a>(
        &'a self,
        method: &'a str,
        params: serde_json::Value,
    ) -> BoxFuture<'a, Result<serde_json::Value, String>> {
        Box::pin(CallContext::request(self, method, params))
    }
}

/// What answers the calls of a [`crate::ToolServer`] asynchronously: each call gets its
/// [`CallContext`]. Every [`Backend`] (a generated dispatch function with its handler) is
/// one, answering at once.
pub trait AsyncBackend: Send + Sync + 'static {
    /// Answers one call, as [`Backend::call`] does.
    fn call_async(
        &self,
        tool: &str,
        arguments: &JsonObject,
        context: &CallContext,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send;

    /// Told of a call of a tool the session does not list, which the server answers as
    /// unknown without calling [`AsyncBackend::call_async`] (for an audit). Default: nothing.
    fn on_unknown_tool(&self, tool: &str, context: &CallContext) {
        let _ = (tool, context);
    }

    /// Answers a request about prompts or resources, for a backend that passes them through
    /// to a server behind it. Default: method not found, as a server without them answers.
    fn passthrough(
        &self,
        request: Passthrough,
        context: &CallContext,
    ) -> impl Future<Output = Result<ServerResult, ErrorData>> + Send {
        let _ = context;
        std::future::ready(Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            request.method(),
            None,
        )))
    }
}

/// A request of the client about prompts or resources: what a gate passes through to the
/// server behind it unchanged.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Passthrough {
    /// `prompts/list`
    ListPrompts(Option<PaginatedRequestParams>),
    /// `prompts/get`
    GetPrompt(GetPromptRequestParams),
    /// `resources/list`
    ListResources(Option<PaginatedRequestParams>),
    /// `resources/templates/list`
    ListResourceTemplates(Option<PaginatedRequestParams>),
    /// `resources/read`
    ReadResource(ReadResourceRequestParams),
}

impl Passthrough {
    /// The JSON-RPC method.
    pub fn method(&self) -> &'static str {
        match self {
            Passthrough::ListPrompts(_) => "prompts/list",
            Passthrough::GetPrompt(_) => "prompts/get",
            Passthrough::ListResources(_) => "resources/list",
            Passthrough::ListResourceTemplates(_) => "resources/templates/list",
            Passthrough::ReadResource(_) => "resources/read",
        }
    }
}

impl<B: Backend> AsyncBackend for B {
    fn call_async(
        &self,
        tool: &str,
        arguments: &JsonObject,
        _context: &CallContext,
    ) -> impl Future<Output = Result<Reply, CallError>> + Send {
        std::future::ready(self.call(tool, arguments))
    }
}
