//! toolgate-serve: the typed handlers that `catalog!` generates, behind an MCP server.
//!
//! This crate is the only library of toolgate that depends on an MCP SDK (`rmcp`, the
//! official Rust SDK) and on an async runtime; the core crates (`toolgate-runtime`,
//! `toolgate-schema`, `toolgate-macros`, `toolgate-lint`) do not. It knows no bundled
//! catalog: the `toolgate` binary hands it one, and includes it through its default `serve`
//! feature.
//!
//! It has two parts:
//!
//! - [`ToolServer`]: an `rmcp` [`ServerHandler`] over any [`Backend`] (a function from a tool
//!   name and JSON arguments to a reply). It serves a fixed `tools/list`, parsed once from the
//!   text a catalog's constants hold, and answers `tools/call` the way the MCP specification
//!   asks: a tool the session does not list is JSON-RPC error -32602 with one message whether
//!   or not the tool exists elsewhere; arguments that fail the schema are a tool result with
//!   `isError: true` and a message naming the field.
//! - [`echo`]: the backend of `toolgate serve`, a contract test double that validates each
//!   call (through the generated types of a catalog expanded by `catalog!`, with the run-time
//!   validator for a catalog folder) and answers with the arguments it parsed.
//!
//! With the `client` feature, the `client` module is the other side: an MCP client that spawns a stdio
//! server and lists its tools (for `toolgate import --server`).
//!
//! Wiring a real handler for one profile takes the generated dispatch function of that
//! profile:
//!
//! ```no_run
//! use toolgate_generated::tatara;
//! use toolgate_serve::{ToolServer, run_stdio};
//!
//! let server = ToolServer::new(tatara::Profile::Refine.tools_list_json(), |tool: &str, arguments: &toolgate_serve::JsonObject| {
//!     tatara::dispatch_refine(&tatara::EchoHandler, tool, arguments)
//! })
//! .expect("the compiled-in tools/list parses");
//! run_stdio(server).expect("the session ends cleanly");
//! ```

//!
//! A handler that waits (a database, an API, the client) implements the generated
//! asynchronous traits (`tatara::AlwaysOnAsyncHandler`, `tatara::RefineAsyncHandler`, ...,
//! or `AsyncHandler` for all of them); an [`AsyncBackend`] hands each call's [`CallContext`]
//! to the generated asynchronous dispatch as the handler's context
//! ([`CallContext::handler_context`]), and the same [`ToolServer`] serves it on stdio or
//! over HTTP (`serve/examples/tatara_http.rs` implements three tatara tools this way):
//!
//! ```no_run
//! use toolgate_generated::tatara;
//! use toolgate_runtime::CallError;
//! use toolgate_serve::{AsyncBackend, CallContext, JsonObject, Reply, ToolServer, serve_stdio};
//!
//! /// Any `tatara::AsyncHandler` (here the echo, a synchronous handler, which is one).
//! struct Tools {
//!     session: tatara::Session,
//! }
//!
//! impl AsyncBackend for Tools {
//!     async fn call_async(
//!         &self,
//!         tool: &str,
//!         arguments: &JsonObject,
//!         context: &CallContext,
//!     ) -> Result<Reply, CallError> {
//!         let context = context.handler_context(&self.session);
//!         let answer = tatara::dispatch_async(&tatara::EchoHandler, context, tool, arguments);
//!         answer.await.map(Reply::from)
//!     }
//! }
//!
//! let session = tatara::Session::of(&[tatara::Profile::Review]);
//! let list = session.tools_list_json();
//! let server = ToolServer::new(&list, Tools { session }).expect("the tools/list parses");
//! serve_stdio(server).expect("the session ends cleanly");
//! ```

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod authored;
#[cfg(feature = "http")]
mod authored_http;
pub mod checked;
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "client-http")]
pub mod client_http;
mod context;
pub mod echo;
#[cfg(feature = "gate")]
pub mod gate;
#[cfg(feature = "http")]
pub mod http;
mod log;
mod protocol;
mod shutdown;
mod stdio;
#[cfg(feature = "http")]
pub mod tokens;

use std::collections::HashSet;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeRequestParams, InitializeResult, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, ServerResult, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use toolgate_schema::runtime::CallError;

pub use authored::{AsAuthored, AuthoredTools, Unmodelled};
pub use context::{AsyncBackend, CallContext, Passthrough, SessionScope};
pub use log::{LogLevel, set_log_level};
pub use stdio::{MAX_MESSAGE_BYTES, serve_stdio, serve_stdio_announcing};

/// The arguments of a tool call, as MCP carries them: a JSON object.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// What a handler answered for a call it accepted.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// A result: sent as structured content, and as its JSON text in a text block (what the
    /// MCP specification asks of a tool that returns structured content).
    Structured(serde_json::Value),
    /// The tool ran and failed: a tool result with `isError: true` and this message.
    Failed(String),
    /// Content blocks as MCP spells them (`{"type": "text", "text": ...}`, `image` and
    /// `audio` with `data` and `mimeType`, `resource` with an embedded resource,
    /// `resource_link`), with `isError` when `is_error`: for a tool whose answer is not (only)
    /// a JSON value. A block that is not MCP content makes the reply a tool error saying so.
    Content {
        /// The blocks, in order.
        content: Vec<serde_json::Value>,
        /// Whether the tool failed.
        is_error: bool,
    },
    /// A result to send as it is (content, structured content, `isError`): what a gate
    /// passes back from the server behind it.
    Passed(CallToolResult),
}

impl From<serde_json::Value> for Reply {
    fn from(value: serde_json::Value) -> Reply {
        Reply::Structured(value)
    }
}

impl<T: serde::Serialize, E: fmt::Display> From<Result<T, E>> for Reply {
    fn from(result: Result<T, E>) -> Reply {
        match result {
            Ok(value) => match serde_json::to_value(value) {
                Ok(v) => Reply::Structured(v),
                Err(e) => Reply::Failed(format!("the tool's result cannot be serialized: {e}")),
            },
            Err(e) => Reply::Failed(e.to_string()),
        }
    }
}

/// What answers the calls of a [`ToolServer`]: a generated dispatch function with its
/// handler, or any function of the same shape.
///
/// A call of a tool the session does not list never reaches the backend (the server answers
/// it as unknown first), so a backend that dispatches more widely than the list cannot widen
/// what a session may call.
pub trait Backend: Send + Sync + 'static {
    /// Answers one call: [`CallError::UnknownTool`] for a tool it does not have,
    /// [`CallError::InvalidArguments`] for arguments that do not match the schema.
    fn call(&self, tool: &str, arguments: &JsonObject) -> Result<Reply, CallError>;
}

impl<F, O> Backend for F
where
    F: Fn(&str, &JsonObject) -> Result<O, CallError> + Send + Sync + 'static,
    O: Into<Reply>,
{
    fn call(&self, tool: &str, arguments: &JsonObject) -> Result<Reply, CallError> {
        self(tool, arguments).map(Into::into)
    }
}

/// Why a server could not be set up or run.
#[derive(Debug)]
pub enum ServeError {
    /// The `tools/list` text given to [`ToolServer::new`] is not a `tools/list` result.
    ToolsList(String),
    /// The runtime could not start.
    Runtime(std::io::Error),
    /// The MCP session ended before or during its initialization (the client went away, or
    /// sent something other than an MCP handshake).
    Session(String),
    /// The HTTP listener could not be bound or served.
    Http(String),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::ToolsList(why) => write!(f, "the tools/list to serve does not read: {why}"),
            ServeError::Runtime(e) => write!(f, "cannot start the async runtime: {e}"),
            ServeError::Session(why) => write!(f, "the MCP session failed: {why}"),
            ServeError::Http(why) => write!(f, "cannot serve HTTP: {why}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// Refuses a list holding a tool whose `execution.taskSupport` is `"required"`: tasks are
/// not implemented, so no client could call it.
fn refuse_required_tasks(tools_list_json: &str) -> Result<(), ServeError> {
    let list: serde_json::Value =
        serde_json::from_str(tools_list_json).map_err(|e| ServeError::ToolsList(e.to_string()))?;
    let tools = list.get("tools").and_then(|t| t.as_array());
    for tool in tools.into_iter().flatten() {
        if tool
            .pointer("/execution/taskSupport")
            .and_then(|v| v.as_str())
            == Some("required")
        {
            let name = tool.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            return Err(ServeError::ToolsList(format!(
                "tool `{name}` requires task-augmented execution (`execution.taskSupport: \"required\"`), which toolgate serve does not implement"
            )));
        }
    }
    Ok(())
}

/// An MCP server (an `rmcp` [`ServerHandler`]) serving one fixed list of tools and answering
/// their calls through a [`Backend`].
///
/// The list is parsed once, when the server is built, from the `tools/list` text a catalog's
/// compiled-in constants hold (`Profile::tools_list_json`, `Session::tools_list_json`), or
/// that `toolgate-schema` writes for a catalog folder; it does not change during a session,
/// so the server does not advertise `listChanged`.
///
/// What a client receives is that text's tools, value for value and in its order. The bytes
/// differ in one way: `rmcp` holds each schema as a `serde_json::Map`, which writes object keys
/// sorted (`additionalProperties` before `properties`) where the constant keeps the catalog's
/// order. JSON objects are unordered, so no client can tell; keeping the order would take
/// serde_json's `preserve_order` feature, which cargo would then turn on for every crate of
/// the binary and so reorder the keys of the lint's JSON and SARIF output.
pub struct ToolServer<B> {
    tools: Vec<Tool>,
    /// What of each tool `Tool` does not hold (`execution`, annotation keys outside MCP's
    /// list), sent back in by [`AsAuthored`].
    unmodelled: std::sync::Arc<Unmodelled>,
    names: HashSet<String>,
    backend: B,
    info: ServerConfig,
    /// Whether this session answered its `initialize` (a second one is refused).
    initialized: AtomicBool,
    /// The level this session's client asked for (stdio: the one session).
    client_level: context::ClientLogLevel,
    /// The stdio session (over HTTP each session has its own).
    scope: SessionScope,
}

#[derive(serde::Deserialize)]
struct ToolsListText {
    tools: Vec<serde_json::Value>,
}

impl<B: AsyncBackend> ToolServer<B> {
    /// A server for the tools of `tools_list_json` (an MCP `tools/list` result,
    /// `{"tools": [...]}`), whose calls `backend` answers.
    // MCP logging is deprecated by SEP-2577 (2026-07-28) but is 2025-11-25's: advertised for
    // the clients that speak it, and `CallContext::log` is how a handler logs.
    #[allow(deprecated)]
    pub fn new(tools_list_json: &str, backend: B) -> Result<ToolServer<B>, ServeError> {
        refuse_required_tasks(tools_list_json)?;
        let list: ToolsListText = serde_json::from_str(tools_list_json)
            .map_err(|e| ServeError::ToolsList(e.to_string()))?;
        let tools = list
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| {
                <Tool as serde::Deserialize>::deserialize(t)
                    .map_err(|e| ServeError::ToolsList(format!("tool {i}: {e}")))
            })
            .collect::<Result<Vec<Tool>, ServeError>>()?;
        let unmodelled = std::sync::Arc::new(Unmodelled::of(&list.tools, &tools));
        let names = tools.iter().map(|t| t.name.to_string()).collect();
        let info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_logging()
                .build(),
        )
        .with_server_info(Implementation::new("toolgate", env!("CARGO_PKG_VERSION")));
        Ok(ToolServer {
            tools,
            unmodelled,
            names,
            backend,
            info,
            initialized: AtomicBool::new(false),
            client_level: context::ClientLogLevel::default(),
            scope: SessionScope::default(),
        })
    }

    /// Changes the capabilities advertised at initialization (tools and logging are always
    /// on): a gate adds the prompts and resources of the server it passes them through to.
    pub fn with_capabilities(
        mut self,
        change: impl FnOnce(&mut ServerCapabilities),
    ) -> ToolServer<B> {
        change(&mut self.info.capabilities);
        self
    }

    /// Sets the instructions sent to the client at initialization.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> ToolServer<B> {
        self.info = self.info.with_instructions(instructions);
        self
    }

    /// Sets the name and version the server gives the client.
    pub fn with_server_info(
        mut self,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> ToolServer<B> {
        self.info = self
            .info
            .with_server_info(Implementation::new(name, version));
        self
    }

    /// The tools served, in `tools/list` order, as rmcp's `Tool` holds them.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    pub(crate) fn unmodelled_shared(&self) -> std::sync::Arc<Unmodelled> {
        self.unmodelled.clone()
    }

    /// What [`ToolServer::tools`] does not hold of the tools as authored (`execution`,
    /// annotation keys outside MCP's list), which `tools/list` sends all the same.
    pub fn unmodelled(&self) -> &Unmodelled {
        &self.unmodelled
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// Answers a `tools/call`: the result to send, or the JSON-RPC error.
    ///
    /// - a tool this session does not list (unknown everywhere, or not granted to the
    ///   profile): error -32602 `unknown tool `NAME``, the same words in both cases;
    /// - arguments the backend refuses: a result with `isError: true` whose text names the
    ///   field and the reason, and whose structured content lists each violation
    ///   (`{"tool", "violations": [{"field", "message"}]}`);
    /// - otherwise the backend's reply. Absent arguments are an empty object.
    pub fn call(
        &self,
        tool: &str,
        arguments: Option<&JsonObject>,
    ) -> Result<CallToolResult, ErrorData>
    where
        B: Backend,
    {
        let empty = JsonObject::new();
        let arguments = arguments.unwrap_or(&empty);
        if !self.names.contains(tool) {
            return Err(unknown_tool(tool));
        }
        answer(tool, self.backend.call(tool, arguments))
    }

    /// Answers a `tools/call` as [`ToolServer::call`] does, through an [`AsyncBackend`]
    /// with the call's context.
    pub async fn call_with(
        &self,
        tool: &str,
        arguments: Option<&JsonObject>,
        context: &CallContext,
    ) -> Result<CallToolResult, ErrorData> {
        let empty = JsonObject::new();
        let arguments = arguments.unwrap_or(&empty);
        if !self.names.contains(tool) {
            self.backend.on_unknown_tool(tool, context);
            return Err(unknown_tool(tool));
        }
        answer(
            tool,
            self.backend.call_async(tool, arguments, context).await,
        )
    }
}

/// The answer to a call the backend took.
fn answer(tool: &str, reply: Result<Reply, CallError>) -> Result<CallToolResult, ErrorData> {
    match reply {
        Ok(Reply::Structured(value)) => {
            let text = serde_json::to_string(&value).unwrap_or_default();
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            result.structured_content = Some(value);
            Ok(result)
        }
        Ok(Reply::Failed(message)) => Ok(CallToolResult::error(vec![ContentBlock::text(message)])),
        Ok(Reply::Content { content, is_error }) => Ok(content_result(content, is_error)),
        Ok(Reply::Passed(result)) => Ok(result),
        // The backend does not have a tool the list names: still the one answer a client
        // gets for a tool it may not call.
        Err(CallError::UnknownTool { .. }) => Err(unknown_tool(tool)),
        Err(e @ CallError::InvalidArguments { .. }) => Ok(invalid_arguments(tool, &e)),
    }
}

/// The tool result of a [`Reply::Content`]: its blocks read as MCP content.
fn content_result(content: Vec<serde_json::Value>, is_error: bool) -> CallToolResult {
    let mut blocks = Vec::with_capacity(content.len());
    for (i, block) in content.into_iter().enumerate() {
        match serde_json::from_value::<ContentBlock>(block) {
            Ok(b) => blocks.push(b),
            Err(e) => {
                let why = format!("the tool's content block {i} is not MCP content: {e}");
                return CallToolResult::error(vec![ContentBlock::text(why)]);
            }
        }
    }
    if is_error {
        CallToolResult::error(blocks)
    } else {
        CallToolResult::success(blocks)
    }
}

/// The tool result of a call whose arguments fail the schema: `isError`, the violations as
/// text (each names its field) and as structured content.
fn invalid_arguments(tool: &str, error: &CallError) -> CallToolResult {
    let violations = match error {
        CallError::InvalidArguments { violations, .. } => violations
            .iter()
            .map(|v| {
                let mut o = JsonObject::new();
                o.insert("field".into(), v.field.clone().into());
                o.insert("message".into(), v.message.clone().into());
                serde_json::Value::Object(o)
            })
            .collect(),
        CallError::UnknownTool { .. } => Vec::new(),
    };
    let mut structured = JsonObject::new();
    structured.insert("tool".into(), tool.into());
    structured.insert("violations".into(), serde_json::Value::Array(violations));
    let mut result = CallToolResult::error(vec![ContentBlock::text(error.to_string())]);
    result.structured_content = Some(serde_json::Value::Object(structured));
    result
}

/// The one answer to a call of a tool the session does not list, whether the tool exists
/// for another profile or nowhere: JSON-RPC -32602 (invalid params), as the MCP
/// specification asks for an unknown tool.
fn unknown_tool(tool: &str) -> ErrorData {
    ErrorData::invalid_params(CallError::unknown_tool(tool).message(), None)
}

impl<B: AsyncBackend> ToolServer<B> {
    /// Answers `initialize` once per session: the first is negotiated as rmcp does, with this
    /// server's instructions; a second is refused (JSON-RPC -32600), as the lifecycle allows
    /// one handshake per session.
    pub(crate) fn initialize_once(
        &self,
        handler: &impl ServerHandler,
        initialized: &AtomicBool,
        request: InitializeRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        if initialized.swap(true, Ordering::SeqCst) {
            return Err(protocol::already_initialized());
        }
        context.peer.set_peer_info(request.clone());
        let mut result = handler.negotiate_initialize(&request)?;
        result.instructions = self.info.instructions.clone();
        Ok(result)
    }

    /// `tools/call` through rmcp: [`ToolServer::call_with`], counted in flight for the
    /// graceful shutdown, logged at `info`.
    pub(crate) async fn call_logged(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        client_level: &context::ClientLogLevel,
        scope: &SessionScope,
    ) -> Result<CallToolResponse, ErrorData> {
        let _running = shutdown::start_call();
        let started = std::time::Instant::now();
        let context = CallContext::of(context, client_level, scope);
        let answer = self
            .call_with(&request.name, request.arguments.as_ref(), &context)
            .await;
        log::call(&request.name, &answer, started.elapsed());
        answer.map(CallToolResponse::from)
    }

    /// A prompts or resources request through the backend's [`AsyncBackend::passthrough`],
    /// its answer taken by `pick` (a result of another kind is an internal error).
    pub(crate) async fn passthrough<T>(
        &self,
        request: Passthrough,
        context: &RequestContext<RoleServer>,
        client_level: &context::ClientLogLevel,
        scope: &SessionScope,
        pick: fn(ServerResult) -> Option<T>,
    ) -> Result<T, ErrorData> {
        let method = request.method();
        let context = CallContext::of(context, client_level, scope);
        let result = self.backend.passthrough(request, &context).await?;
        pick(result).ok_or_else(|| {
            ErrorData::internal_error(format!("the answer to {method} is of another kind"), None)
        })
    }
}

/// The five passthrough methods of an rmcp `ServerHandler` whose `$server` expression gives
/// the [`ToolServer`] of a request context `$cx` (stdio: itself; HTTP: the grant's).
macro_rules! passthrough_handlers {
    (|$this:ident, $cx:ident| $server:expr, $level:expr, $scope:expr) => {
        async fn list_prompts(
            &self,
            request: Option<rmcp::model::PaginatedRequestParams>,
            $cx: rmcp::service::RequestContext<rmcp::RoleServer>,
        ) -> Result<rmcp::model::ListPromptsResult, rmcp::ErrorData> {
            let $this = self;
            let r = $crate::Passthrough::ListPrompts(request);
            $server
                .passthrough(r, &$cx, $level, $scope, |r| match r {
                    rmcp::model::ServerResult::ListPromptsResult(x) => Some(x),
                    _ => None,
                })
                .await
        }

        async fn get_prompt(
            &self,
            request: rmcp::model::GetPromptRequestParams,
            $cx: rmcp::service::RequestContext<rmcp::RoleServer>,
        ) -> Result<rmcp::model::GetPromptResponse, rmcp::ErrorData> {
            let $this = self;
            let r = $crate::Passthrough::GetPrompt(request);
            $server
                .passthrough(r, &$cx, $level, $scope, |r| match r {
                    rmcp::model::ServerResult::GetPromptResult(x) => Some(x.into()),
                    _ => None,
                })
                .await
        }

        async fn list_resources(
            &self,
            request: Option<rmcp::model::PaginatedRequestParams>,
            $cx: rmcp::service::RequestContext<rmcp::RoleServer>,
        ) -> Result<rmcp::model::ListResourcesResult, rmcp::ErrorData> {
            let $this = self;
            let r = $crate::Passthrough::ListResources(request);
            $server
                .passthrough(r, &$cx, $level, $scope, |r| match r {
                    rmcp::model::ServerResult::ListResourcesResult(x) => Some(x),
                    _ => None,
                })
                .await
        }

        async fn list_resource_templates(
            &self,
            request: Option<rmcp::model::PaginatedRequestParams>,
            $cx: rmcp::service::RequestContext<rmcp::RoleServer>,
        ) -> Result<rmcp::model::ListResourceTemplatesResult, rmcp::ErrorData> {
            let $this = self;
            let r = $crate::Passthrough::ListResourceTemplates(request);
            $server
                .passthrough(r, &$cx, $level, $scope, |r| match r {
                    rmcp::model::ServerResult::ListResourceTemplatesResult(x) => Some(x),
                    _ => None,
                })
                .await
        }

        async fn read_resource(
            &self,
            request: rmcp::model::ReadResourceRequestParams,
            $cx: rmcp::service::RequestContext<rmcp::RoleServer>,
        ) -> Result<rmcp::model::ReadResourceResponse, rmcp::ErrorData> {
            let $this = self;
            let r = $crate::Passthrough::ReadResource(request);
            $server
                .passthrough(r, &$cx, $level, $scope, |r| match r {
                    rmcp::model::ServerResult::ReadResourceResult(x) => Some(x.into()),
                    _ => None,
                })
                .await
        }
    };
}
#[cfg(feature = "http")]
pub(crate) use passthrough_handlers;

/// The two methods of an rmcp `ServerHandler` that every transport answers alike: MCP
/// logging's `set_level` (kept in the `ClientLevel` that `$level` gives) and the refusal of a
/// request no method reads.
macro_rules! level_and_custom_handlers {
    (|$this:ident| $level:expr) => {
        #[allow(deprecated)] // MCP logging: deprecated by SEP-2577, still 2025-11-25's
        async fn set_level(
            &self,
            request: rmcp::model::SetLevelRequestParams,
            _context: rmcp::service::RequestContext<rmcp::RoleServer>,
        ) -> Result<(), rmcp::ErrorData> {
            let $this = self;
            $level.set(request.level);
            Ok(())
        }

        async fn on_custom_request(
            &self,
            request: rmcp::model::CustomRequest,
            _context: rmcp::service::RequestContext<rmcp::RoleServer>,
        ) -> Result<rmcp::model::CustomResult, rmcp::ErrorData> {
            Err($crate::protocol::unreadable_request(&request))
        }
    };
}
#[cfg(feature = "http")]
pub(crate) use level_and_custom_handlers;

impl<B: AsyncBackend> AuthoredTools for ToolServer<B> {
    fn unmodelled(
        &self,
        _context: &RequestContext<RoleServer>,
    ) -> Option<std::sync::Arc<Unmodelled>> {
        Some(self.unmodelled.clone())
    }
}

impl<B: AsyncBackend> ServerHandler for ToolServer<B> {
    fn get_info(&self) -> ServerConfig {
        self.info.clone()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.initialize_once(self, &self.initialized, request, &context)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // One page: the lists are small, and a cursor would only add a way to get it wrong.
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call_logged(&request, &context, &self.client_level, &self.scope)
            .await
    }

    passthrough_handlers!(|this, context| this, &this.client_level, &this.scope);

    level_and_custom_handlers!(|this| &this.client_level);

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }
}

/// Runs `server` as an MCP server on standard input and output: [`serve_stdio`], under its
/// former name.
pub fn run_stdio<B: AsyncBackend>(server: ToolServer<B>) -> Result<(), ServeError> {
    serve_stdio(server)
}

#[cfg(test)]
mod tests;
