//! MCP Streamable HTTP (spec 2025-11-25) at `/mcp`: rmcp's `StreamableHttpService` (POST
//! with JSON or SSE replies, GET for the server stream, DELETE to end a session,
//! `Mcp-Session-Id`, `MCP-Protocol-Version` checked), run on hyper connections.
//!
//! In front of rmcp, per request and in this order, a thin door that rmcp does not have:
//!
//! 1. the path: `/mcp` only (404);
//! 2. DNS-rebinding protection: `Host` must name the bound address or an `--allow-host`
//!    (421 Misdirected Request), a present `Origin` must be the bound address's origin or an
//!    `--allow-origin` (403). rmcp is configured with the same lists, Origin enforced (its
//!    default leaves Origin unchecked when no origin is configured);
//! 3. with tokens, `Authorization: Bearer` must name a token of the table (401 with
//!    `WWW-Authenticate`); a session is pinned to the token that opened it (403 for another);
//! 4. a POST body is bounded ([`crate::MAX_MESSAGE_BYTES`], 413); one that rmcp cannot read
//!    (it would answer a plain-text 415) is classified as on stdio: -32700 for what is not
//!    JSON or not UTF-8, -32600 for what is not a message (a batch among them), with HTTP
//!    400. A body that reads is parsed once, by rmcp.
//!
//! Everything else, the sessions and streams included, is rmcp's.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited, combinators::BoxBody};
use hyper::body::Incoming;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Extensions, InitializeRequestParams, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpServerConfig;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio::sync::{Mutex, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::protocol::{self, Classified};
use crate::tokens::{TokenDigest, TokenTable};
use crate::{AsyncBackend, MAX_MESSAGE_BYTES, ServeError, ToolServer, log, shutdown};

/// The path MCP is served at.
pub const MCP_PATH: &str = "/mcp";

/// How many connections are served at once; more wait to be accepted.
const MAX_CONNECTIONS: usize = 1024;

/// How many sessions may be pinned to tokens before the closed ones are swept.
const PIN_SWEEP_AT: usize = 4096;

type Body = BoxBody<Bytes, Infallible>;

/// How [`serve_http`] serves.
#[derive(Default)]
pub struct HttpOptions {
    /// `Host` values allowed besides the bound address (`host` for any port, or
    /// `host:port`).
    pub allowed_hosts: Vec<String>,
    /// `Origin` values allowed besides the bound address's (`scheme://host:port`).
    pub allowed_origins: Vec<String>,
    /// Serve each POST as its own exchange (no session, no `initialize` needed first, JSON
    /// replies), as the SDKs' stateless mode does. Default: sessions.
    pub stateless: bool,
    /// Called once the listener is bound, with its address (port 0 becomes the real one).
    pub on_listening: Option<Box<dyn FnOnce(SocketAddr) + Send>>,
    /// Also shut down gracefully when this resolves (besides SIGTERM and Ctrl-C): for a
    /// server embedded in a larger program, and for tests.
    pub stop: Option<std::pin::Pin<Box<dyn Future<Output = ()> + Send>>>,
}

/// Who is served which tools: one server for every client, or one per token grant.
struct Grants<B> {
    /// By grant: `""` for the one server without tokens, else the profile selector value a
    /// token grants.
    servers: HashMap<String, ToolServer<B>>,
    tokens: Option<TokenTable>,
    info: ServerConfig,
}

/// The grant of a request, put in its extensions by the door for the session handler.
#[derive(Clone, Debug)]
struct Grant(Arc<str>);

/// The rmcp handler of one HTTP session (or one stateless exchange): the server of the
/// request's grant, and this session's `initialize` state.
struct HttpSession<B> {
    grants: Arc<Grants<B>>,
    initialized: AtomicBool,
    client_level: crate::context::ClientLogLevel,
    scope: crate::SessionScope,
}

impl<B: AsyncBackend> HttpSession<B> {
    fn server(&self, extensions: &Extensions) -> Result<&ToolServer<B>, ErrorData> {
        let grant = extensions
            .get::<http::request::Parts>()
            .and_then(|p| p.extensions.get::<Grant>())
            .map_or("", |g| &g.0);
        self.grants
            .servers
            .get(grant)
            .ok_or_else(|| ErrorData::internal_error("no server for this request's grant", None))
    }
}

impl<B: AsyncBackend> ServerHandler for HttpSession<B> {
    fn get_info(&self) -> ServerConfig {
        self.grants.info.clone()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.server(&context.extensions)?.initialize_once(
            self,
            &self.initialized,
            request,
            &context,
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let server = self.server(&context.extensions)?;
        Ok(ListToolsResult::with_all_items(server.tools().to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.server(&context.extensions)?
            .call_logged(&request, &context, &self.client_level, &self.scope)
            .await
    }

    crate::passthrough_handlers!(
        |this, context| this.server(&context.extensions)?,
        &this.client_level,
        &this.scope
    );

    crate::level_and_custom_handlers!(|this| &this.client_level);

    fn get_tool(&self, name: &str) -> Option<Tool> {
        // Without a request there is no grant: only the one server of a tokenless setup.
        if self.grants.tokens.is_some() {
            return None;
        }
        self.grants
            .servers
            .get("")
            .and_then(|s| s.tools().iter().find(|t| t.name == name).cloned())
    }
}

/// The Host and Origin values a request may carry.
#[derive(Clone, Debug)]
struct Allowed {
    hosts: Vec<String>,
    origins: Vec<String>,
}

impl Allowed {
    fn new(bound: SocketAddr, options: &HttpOptions) -> Allowed {
        let port = bound.port();
        let ip = bound.ip();
        let mut names = Vec::new();
        if ip.is_unspecified() || ip.is_loopback() {
            names.push("localhost".to_string());
        }
        if ip.is_unspecified() {
            names.push("127.0.0.1".to_string());
        } else if ip.is_ipv6() {
            names.push(format!("[{ip}]"));
        } else {
            names.push(ip.to_string());
        }
        let mut hosts: Vec<String> = names.iter().map(|n| format!("{n}:{port}")).collect();
        hosts.extend(options.allowed_hosts.iter().map(|h| h.to_ascii_lowercase()));
        let mut origins: Vec<String> = names.iter().map(|n| format!("http://{n}:{port}")).collect();
        origins.extend(
            options
                .allowed_origins
                .iter()
                .map(|o| o.trim_end_matches('/').to_ascii_lowercase()),
        );
        Allowed { hosts, origins }
    }

    fn host_ok(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        let name = match host.rsplit_once(':') {
            Some((name, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
                name
            }
            _ => host.as_str(),
        };
        self.hosts.iter().any(|h| *h == host || *h == name)
    }

    fn origin_ok(&self, origin: &str) -> bool {
        let origin = origin.trim_end_matches('/').to_ascii_lowercase();
        self.origins.contains(&origin)
    }
}

/// The state every connection shares.
struct Door<B> {
    mcp: Mcp<B>,
    allowed: Allowed,
    grants: Arc<Grants<B>>,
    /// Session id -> the digest of the token that opened it.
    pins: Mutex<HashMap<String, TokenDigest>>,
    /// rmcp's sessions (none when stateless), to sweep the pins of closed ones.
    sessions: Option<Arc<LocalSessionManager>>,
}

enum Mcp<B> {
    Sessions(StreamableHttpService<HttpSession<B>, LocalSessionManager>),
    Stateless(StreamableHttpService<HttpSession<B>, NeverSessionManager>),
}

impl<B: AsyncBackend> Mcp<B> {
    async fn handle(&self, request: Request<Full<Bytes>>) -> Response<Body> {
        match self {
            Mcp::Sessions(s) => s.handle(request).await,
            Mcp::Stateless(s) => s.handle(request).await,
        }
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    log::refused(status.as_u16(), text);
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())).boxed());
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

fn unauthorized(error: Option<&'static str>) -> Response<Body> {
    let mut r = plain(
        StatusCode::UNAUTHORIZED,
        "Unauthorized: a valid `Authorization: Bearer` token is required",
    );
    let challenge = match error {
        Some(e) => format!("Bearer realm=\"toolgate\", error=\"{e}\""),
        None => "Bearer realm=\"toolgate\"".to_string(),
    };
    if let Ok(v) = HeaderValue::from_str(&challenge) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    r
}

fn json_rpc_refusal(refusal: protocol::Refusal) -> Response<Body> {
    log::refused(400, refusal.error.message.as_ref());
    let body = serde_json::to_vec(&refusal.message()).unwrap_or_default();
    let mut r = Response::new(Full::new(Bytes::from(body)).boxed());
    *r.status_mut() = StatusCode::BAD_REQUEST;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn session_id(headers: &http::HeaderMap) -> Option<String> {
    headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
}

fn bearer(headers: &http::HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// What JSON-RPC answers for a POST body rmcp refused (415 or 406) before reading it: a
/// message refused for its headers keeps rmcp's answer (`None`), one that does not read is
/// refused as JSON-RPC, a notification that does not read is accepted and never answered.
fn unread_by_rmcp(response: &Response<Body>, bytes: &Bytes) -> Option<Response<Body>> {
    if !matches!(
        response.status(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE | StatusCode::NOT_ACCEPTABLE
    ) {
        return None;
    }
    match protocol::classify(bytes) {
        Classified::Message(_) => None,
        Classified::Refuse(r) => Some(json_rpc_refusal(r)),
        Classified::Ignore => {
            let mut r = Response::new(Full::new(Bytes::new()).boxed());
            *r.status_mut() = StatusCode::ACCEPTED;
            Some(r)
        }
    }
}

impl<B: AsyncBackend> Door<B> {
    /// Answers one HTTP request: the door's checks in order (path, Host and Origin, token,
    /// body size, an empty body), then rmcp, then what rmcp refused that JSON-RPC answers.
    async fn answer(&self, request: Request<Incoming>) -> Response<Body> {
        if let Some(refused) = self.misaddressed(&request) {
            return refused;
        }
        let (mut parts, body) = request.into_parts();
        let session = session_id(&parts.headers);
        let token_digest = match self.authorize(&mut parts, &session).await {
            Ok(digest) => digest,
            Err(refused) => return *refused,
        };
        // Never forwarded: rmcp hands the request's parts to the handler.
        parts.headers.remove(header::AUTHORIZATION);
        let bytes = match Limited::new(body, MAX_MESSAGE_BYTES).collect().await {
            Ok(b) => b.to_bytes(),
            Err(_) => {
                return plain(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "Payload Too Large: a message is at most 16 MiB",
                );
            }
        };
        let post = parts.method == Method::POST;
        if post && bytes.iter().all(u8::is_ascii_whitespace) {
            return json_rpc_refusal(protocol::Refusal {
                error: ErrorData::parse_error("Parse error: an empty body", None),
                id: None,
            });
        }
        let method = parts.method.clone();
        let tools_list = post.then(|| self.tools_list_of(&parts, &bytes)).flatten();
        // rmcp reads the body first: a body it cannot read is answered 415 (or 406, when the
        // Accept header is checked before it), and only then classified, so a well-formed
        // call is parsed once, not twice.
        let response = self
            .mcp
            .handle(Request::from_parts(parts, Full::new(bytes.clone())))
            .await;
        if post && let Some(answer) = unread_by_rmcp(&response, &bytes) {
            return answer;
        }
        if let Some(digest) = token_digest {
            self.pin(session, method, &response, digest).await;
        }
        match tools_list {
            Some((id, lost)) => crate::authored_http::put_back(response, id, lost).await,
            None => response,
        }
    }

    /// For a `tools/list` request whose grant serves tools rmcp's `Tool` cannot hold whole:
    /// its id and what to put back into the answer (`crate::authored`).
    fn tools_list_of(
        &self,
        parts: &http::request::Parts,
        bytes: &Bytes,
    ) -> Option<(serde_json::Value, Arc<crate::Unmodelled>)> {
        let grant = parts.extensions.get::<Grant>().map_or("", |g| &g.0);
        let lost = self.grants.servers.get(grant)?.unmodelled_shared();
        if lost.is_empty() {
            return None;
        }
        let request: serde_json::Value = serde_json::from_slice(bytes).ok()?;
        (request.get("method")?.as_str()? == "tools/list")
            .then(|| Some((request.get("id")?.clone(), lost)))
            .flatten()
    }

    /// The refusal of a request not addressed to this server: another path than `/mcp`, a
    /// Host that does not name it, an Origin not allowed (DNS rebinding).
    fn misaddressed(&self, request: &Request<Incoming>) -> Option<Response<Body>> {
        if request.uri().path() != MCP_PATH {
            return Some(plain(
                StatusCode::NOT_FOUND,
                "Not Found: MCP is served at /mcp",
            ));
        }
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(str::to_string)
            .or_else(|| request.uri().authority().map(|a| a.to_string()));
        if !host.as_deref().is_some_and(|h| self.allowed.host_ok(h)) {
            return Some(plain(
                StatusCode::MISDIRECTED_REQUEST,
                "Misdirected Request: the Host header does not name this server",
            ));
        }
        if let Some(origin) = request.headers().get(header::ORIGIN)
            && !origin.to_str().is_ok_and(|o| self.allowed.origin_ok(o))
        {
            return Some(plain(
                StatusCode::FORBIDDEN,
                "Forbidden: the Origin is not allowed",
            ));
        }
        None
    }

    /// With `--tokens`: the bearer token's grant put in the request's extensions, and its
    /// digest (a session stays with the token that opened it); without, nothing to check.
    async fn authorize(
        &self,
        parts: &mut http::request::Parts,
        session: &Option<String>,
    ) -> Result<Option<TokenDigest>, Box<Response<Body>>> {
        let Some(tokens) = &self.grants.tokens else {
            return Ok(None);
        };
        let Some(token) = bearer(&parts.headers) else {
            return Err(Box::new(unauthorized(None)));
        };
        let Some((grant, digest)) = tokens.grant_for(token) else {
            return Err(Box::new(unauthorized(Some("invalid_token"))));
        };
        if let Some(id) = session
            && let Some(pinned) = self.pins.lock().await.get(id)
            && *pinned != digest
        {
            return Err(Box::new(plain(
                StatusCode::FORBIDDEN,
                "Forbidden: this session was opened with another token",
            )));
        }
        parts.extensions.insert(Grant(grant.into()));
        Ok(Some(digest))
    }

    /// Pins a session a response opened to its token; forgets one a DELETE closed.
    async fn pin(
        &self,
        asked: Option<String>,
        method: Method,
        response: &Response<Body>,
        digest: TokenDigest,
    ) {
        let mut pins = self.pins.lock().await;
        match (asked, session_id(response.headers())) {
            (None, Some(opened)) if response.status().is_success() => {
                if pins.len() >= PIN_SWEEP_AT {
                    self.sweep(&mut pins).await;
                }
                pins.insert(opened, digest);
            }
            (Some(closed), _) if method == Method::DELETE && response.status().is_success() => {
                pins.remove(&closed);
            }
            _ => {}
        }
    }

    /// Forgets the pins of sessions rmcp no longer has (expired or ended).
    async fn sweep(&self, pins: &mut HashMap<String, TokenDigest>) {
        let live: std::collections::HashSet<String> = match &self.sessions {
            Some(m) => m
                .sessions
                .read()
                .await
                .keys()
                .map(|k| k.to_string())
                .collect(),
            None => Default::default(),
        };
        pins.retain(|id, _| live.contains(id));
    }
}

/// Serves `server` to every client over MCP Streamable HTTP at `addr` (path `/mcp`) until
/// SIGTERM or Ctrl-C: then calls in flight finish (at most 3 s), sessions and streams end,
/// and it returns `Ok`.
pub fn serve_http<B: AsyncBackend>(
    addr: SocketAddr,
    server: ToolServer<B>,
    options: HttpOptions,
) -> Result<(), ServeError> {
    let info = server.get_info();
    let grants = Grants {
        servers: HashMap::from([(String::new(), server)]),
        tokens: None,
        info,
    };
    run(addr, grants, options)
}

/// Serves each token of `tokens` the server of its grant (`servers`, by the profile selector
/// value the token maps to), over MCP Streamable HTTP at `addr`. A request without a token
/// of the table is answered 401; a session is pinned to the token that opened it. Every grant
/// of the table must have its server.
pub fn serve_http_with_tokens<B: AsyncBackend>(
    addr: SocketAddr,
    tokens: TokenTable,
    servers: HashMap<String, ToolServer<B>>,
    options: HttpOptions,
) -> Result<(), ServeError> {
    if let Some(missing) = tokens
        .grants()
        .into_iter()
        .find(|g| !servers.contains_key(*g))
    {
        return Err(ServeError::Http(format!(
            "no server for the grant `{missing}` of the tokens"
        )));
    }
    // Before initialize there is no grant: no profile's instructions.
    let mut info = servers
        .values()
        .next()
        .map(|s| s.get_info())
        .ok_or_else(|| ServeError::Http("no server to serve".to_string()))?;
    info.instructions = None;
    let grants = Grants {
        servers,
        tokens: Some(tokens),
        info,
    };
    run(addr, grants, options)
}

fn run<B: AsyncBackend>(
    addr: SocketAddr,
    grants: Grants<B>,
    mut options: HttpOptions,
) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    let result = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| ServeError::Http(format!("cannot listen on {addr}: {e}")))?;
        let bound = listener
            .local_addr()
            .map_err(|e| ServeError::Http(e.to_string()))?;
        let allowed = Allowed::new(bound, &options);
        let stop = CancellationToken::new();
        let grants = Arc::new(grants);
        let factory_grants = grants.clone();
        let factory = move || {
            Ok(HttpSession {
                grants: factory_grants.clone(),
                initialized: AtomicBool::new(false),
                client_level: Default::default(),
                scope: Default::default(),
            })
        };
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(allowed.hosts.clone())
            .with_allowed_origins(allowed.origins.clone())
            .enforce_origin_validation()
            .with_max_request_body_bytes(MAX_MESSAGE_BYTES)
            .with_cancellation_token(stop.child_token());
        let (mcp, sessions) = if options.stateless {
            let mcp = Mcp::Stateless(StreamableHttpService::new(
                factory,
                Arc::new(NeverSessionManager::default()),
                config
                    .with_legacy_session_mode(false)
                    .with_json_response(true),
            ));
            (mcp, None)
        } else {
            let manager = Arc::new(LocalSessionManager::default());
            let mcp = Mcp::Sessions(StreamableHttpService::new(factory, manager.clone(), config));
            (mcp, Some(manager))
        };
        let door = Arc::new(Door {
            mcp,
            allowed,
            grants,
            pins: Mutex::new(HashMap::new()),
            sessions,
        });
        // Listen to the signals before saying so: a SIGTERM the moment the address is
        // announced must take the graceful path.
        let signals = shutdown::Signals::install();
        if let Some(f) = options.on_listening.take() {
            f(bound);
        }
        let asked = options.stop.take();
        accept(listener, door, stop, signals, asked).await;
        Ok(())
    });
    runtime.shutdown_timeout(Duration::from_millis(200));
    result
}

/// Accepts connections until a shutdown signal; then drains.
async fn accept<B: AsyncBackend>(
    listener: tokio::net::TcpListener,
    door: Arc<Door<B>>,
    stop: CancellationToken,
    mut signals: shutdown::Signals,
    asked: Option<std::pin::Pin<Box<dyn Future<Output = ()> + Send>>>,
) {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let signal = async move {
        match asked {
            Some(asked) => tokio::select! {
                () = signals.recv() => {}
                () = asked => {}
            },
            None => signals.recv().await,
        }
    };
    tokio::pin!(signal);
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => match p { Ok(p) => p, Err(_) => break },
            () = &mut signal => break,
        };
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(_) => continue,
            },
            () = &mut signal => break,
        };
        // Replies are small and written at once: no Nagle delay behind a client's delayed ACK.
        let _ = stream.set_nodelay(true);
        let door = door.clone();
        let service = hyper::service::service_fn(move |request| {
            let door = door.clone();
            async move { Ok::<_, Infallible>(door.answer(request).await) }
        });
        let connection = hyper::server::conn::http1::Builder::new()
            .serve_connection(hyper_util::rt::TokioIo::new(stream), service);
        let watched = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = watched.await;
            drop(permit);
        });
    }
    drop(listener);
    shutdown::drain().await;
    stop.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(1), graceful.shutdown()).await;
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::sync::mpsc;
    use std::time::Instant;

    use super::*;
    use crate::{JsonObject, Reply};

    const LIST: &str = r#"{"tools": [{"name": "slow", "inputSchema": {"type": "object"}}]}"#;

    fn post(port: u16, session: Option<&str>, body: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
        let session = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n{session}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).expect("write");
        let mut out = String::new();
        let _ = stream.read_to_string(&mut out);
        out
    }

    /// A `tools/call` request body.
    fn tools_call(id: u64, tool: &str, arguments: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#
        )
    }

    /// `serve_http` on 127.0.0.1:0 in a thread of its own, until [`Running::stop`].
    struct Running {
        port: u16,
        stop: tokio::sync::oneshot::Sender<()>,
        served: std::thread::JoinHandle<Result<(), ServeError>>,
    }

    impl Running {
        fn start<B: crate::AsyncBackend>(server: ToolServer<B>, stateless: bool) -> Running {
            let (port_tx, port_rx) = mpsc::channel();
            let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
            let options = HttpOptions {
                stateless,
                on_listening: Some(Box::new(move |a| {
                    let _ = port_tx.send(a.port());
                })),
                stop: Some(Box::pin(async move {
                    let _ = stop_rx.await;
                })),
                ..HttpOptions::default()
            };
            let served = std::thread::spawn(move || {
                serve_http("127.0.0.1:0".parse().expect("addr"), server, options)
            });
            let port = port_rx
                .recv_timeout(Duration::from_secs(10))
                .expect("listening");
            Running { port, stop, served }
        }

        /// Asks for the shutdown (without waiting): what [`Running::join`] then waits for.
        fn ask_stop(self) -> std::thread::JoinHandle<Result<(), ServeError>> {
            self.stop.send(()).expect("the server waits");
            self.served
        }

        /// Stops the server and waits for its clean return.
        fn stop(self) {
            Running::join(self.ask_stop());
        }

        fn join(served: std::thread::JoinHandle<Result<(), ServeError>>) {
            served
                .join()
                .expect("the server thread")
                .expect("a clean stop");
        }
    }

    /// An asynchronous handler that sleeps 200 ms per call.
    struct Sleeper;

    impl crate::AsyncBackend for Sleeper {
        async fn call_async(
            &self,
            _tool: &str,
            _arguments: &JsonObject,
            context: &crate::CallContext,
        ) -> Result<Reply, toolgate_runtime::CallError> {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(200)) => {}
                () = context.cancelled() => return Ok(Reply::Failed("cancelled".into())),
            }
            Ok(Reply::Structured(serde_json::json!({"slept": true})))
        }
    }

    /// 50 concurrent calls (50 stateless exchanges at once) to a handler that sleeps 200 ms
    /// finish in under 2 s in all: a waiting handler holds no thread.
    #[test]
    fn fifty_concurrent_calls_to_a_sleeping_handler_take_under_2_s() {
        let running = Running::start(ToolServer::new(LIST, Sleeper).expect("list"), true);
        let port = running.port;
        let started = Instant::now();
        let calls: Vec<_> = (0..50)
            .map(|i| std::thread::spawn(move || post(port, None, &tools_call(i, "slow", "{}"))))
            .collect();
        for call in calls {
            let answer = call.join().expect("a call thread");
            assert!(answer.contains(r#"\"slept\":true"#), "{answer}");
        }
        let took = started.elapsed();
        assert!(took < Duration::from_secs(2), "{took:?}");
        eprintln!("50 concurrent 200 ms calls: {took:?}");
        running.stop();
    }

    /// A call in flight when the shutdown is asked for is answered; the server then returns
    /// `Ok` well within 5 s.
    #[test]
    fn a_call_in_flight_finishes_before_the_shutdown() {
        let slow = |_: &str, _: &JsonObject| -> Result<Reply, toolgate_runtime::CallError> {
            std::thread::sleep(Duration::from_millis(800));
            Ok(Reply::Structured(serde_json::json!({"slept": true})))
        };
        let running = Running::start(ToolServer::new(LIST, slow).expect("list"), false);
        let port = running.port;
        let init = post(
            port,
            None,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        );
        let sid = init
            .lines()
            .find_map(|l| l.strip_prefix("mcp-session-id: "))
            .expect("a session")
            .trim()
            .to_string();
        let call = std::thread::spawn(move || post(port, Some(&sid), &tools_call(2, "slow", "{}")));
        std::thread::sleep(Duration::from_millis(200));
        let asked = Instant::now();
        let served = running.ask_stop();
        let answer = call.join().expect("the call thread");
        assert!(answer.contains(r#"\"slept\":true"#), "{answer}");
        Running::join(served);
        assert!(
            asked.elapsed() < Duration::from_secs(5),
            "{:?}",
            asked.elapsed()
        );
    }

    /// tatara's always-on tools written against the generated asynchronous trait: each
    /// answers with the session's profile, and `task_note` reports progress first.
    struct Notes;

    type Context<'c> = toolgate_runtime::HandlerContext<'c, toolgate_generated::tatara::Profile>;

    fn profile_of(context: Context<'_>) -> serde_json::Value {
        serde_json::json!({"profile": context.profile().map(|p| p.name())})
    }

    impl toolgate_generated::tatara::AlwaysOnAsyncHandler for Notes {
        type Output = serde_json::Value;

        async fn task_note(
            &self,
            context: Context<'_>,
            arguments: toolgate_generated::tatara::task_note::Args<'_>,
        ) -> serde_json::Value {
            context.progress(1.0, Some(1.0), Some("noted")).await;
            let mut answer = profile_of(context);
            answer["kind"] = arguments.kind.as_str().into();
            answer
        }

        async fn task_get(
            &self,
            context: Context<'_>,
            _: toolgate_generated::tatara::task_get::Args<'_>,
        ) -> serde_json::Value {
            profile_of(context)
        }

        async fn task_context(
            &self,
            context: Context<'_>,
            _: toolgate_generated::tatara::task_context::Args<'_>,
        ) -> serde_json::Value {
            profile_of(context)
        }

        async fn project_get(
            &self,
            context: Context<'_>,
            _: toolgate_generated::tatara::project_get::Args<'_>,
        ) -> serde_json::Value {
            profile_of(context)
        }

        async fn repo_list(
            &self,
            context: Context<'_>,
            _: toolgate_generated::tatara::repo_list::Args<'_>,
        ) -> serde_json::Value {
            profile_of(context)
        }

        async fn report_internal_issue(
            &self,
            context: Context<'_>,
            _: toolgate_generated::tatara::report_internal_issue::Args<'_>,
        ) -> serde_json::Value {
            profile_of(context)
        }
    }

    struct NotesBackend(toolgate_generated::tatara::Session);

    impl crate::AsyncBackend for NotesBackend {
        async fn call_async(
            &self,
            tool: &str,
            arguments: &JsonObject,
            context: &crate::CallContext,
        ) -> Result<Reply, toolgate_runtime::CallError> {
            let context = context.handler_context(&self.0);
            toolgate_generated::tatara::dispatch_always_on_async(&Notes, context, tool, arguments)
                .await
                .map(Reply::from)
        }
    }

    /// A generated asynchronous handler served over HTTP: it gets the session's profile and
    /// reports progress to a client that sent a `progressToken`; arguments the catalog
    /// refuses never reach it.
    #[test]
    fn a_generated_async_handler_is_served_over_http() {
        use toolgate_generated::tatara;
        let session = tatara::Session::of(&[tatara::Profile::Review]);
        let server = ToolServer::new(tatara::FAIL_CLOSED_TOOLS_LIST_JSON, NotesBackend(session))
            .expect("list");
        let running = Running::start(server, true);
        let port = running.port;
        let answer = post(
            port,
            None,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"task_note","arguments":{"kind":"plan","body":"b"},"_meta":{"progressToken":"p-1"}}}"#,
        );
        assert!(answer.contains("notifications/progress"), "{answer}");
        assert!(answer.contains(r#""progressToken":"p-1""#), "{answer}");
        assert!(answer.contains(r#"\"profile\":\"review\""#), "{answer}");
        assert!(answer.contains(r#"\"kind\":\"plan\""#), "{answer}");
        let refused = post(
            port,
            None,
            &tools_call(2, "task_note", r#"{"kind":"memo","body":"b"}"#),
        );
        assert!(refused.contains(r#""isError":true"#), "{refused}");
        assert!(refused.contains("kind"), "{refused}");
        running.stop();
    }
}
