//! The MCP client over HTTP, for `toolgate lock` and `toolgate import --url`: Streamable HTTP
//! and the legacy HTTP+SSE transport of protocol 2024-11-05, on reqwest (https through rustls
//! with the `ring` provider, the system's roots through `rustls-platform-verifier`, and any
//! extra PEM roots) and `sse-stream`; rmcp's client role speaks the protocol over them
//! ([`crate::client`]'s one session). The gate's `--upstream-url` uses [`http_client`].
//!
//! The transport is written here rather than taken from rmcp, whose Streamable HTTP client
//! folds an answer's status, content type and redirects into errors of its own and keeps no
//! bytes (and which has no legacy SSE client at all): a capture must say which status or
//! content type it got and which header names it sent, follow no redirect to another origin
//! with the configuration's headers, and keep each tool exactly as the server wrote it, as the
//! stdio capture does. It is the client side of the two transports only as far as a capture
//! needs: every message POSTed, each answer read as JSON or as an event stream; no resumption,
//! no standalone GET stream on Streamable HTTP.
//!
//! Legacy SSE (2024-11-05): `GET url` opens an event stream whose first `endpoint` event gives
//! the URI to POST messages to (same origin only); every answer comes back as a `message`
//! event on that stream.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{StatusCode, Url};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use tokio::sync::mpsc;

use crate::client::{Capture, ClientError, MAX_OUTPUT, lock, raw_tools, session};

/// The most redirects followed (each to the same origin).
const MAX_REDIRECTS: usize = 5;
/// Streamable HTTP's session header.
const SESSION_HEADER: &str = "mcp-session-id";
/// The protocol version header of every request after initialize.
const VERSION_HEADER: &str = "mcp-protocol-version";
/// The method of a POSTed request or notification (SEP-2243).
const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
/// The tool, prompt or resource a POSTed request names (SEP-2243).
const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");

/// Makes rustls's `ring` provider the process default, once (reqwest is built without one).
pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A reqwest client trusting the system's roots and the PEM certificates of `extra_roots`,
/// following redirects within the origin of the first URL only (a header that carries a
/// credential must not go to another host).
pub fn http_client(extra_roots: Option<&[u8]>) -> Result<reqwest::Client, String> {
    install_crypto_provider();
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().map(Url::origin);
        if attempt.previous().len() > MAX_REDIRECTS {
            let error = format!("more than {MAX_REDIRECTS} redirects");
            attempt.error(error)
        } else if first.is_some_and(|f| f != attempt.url().origin()) {
            let error = format!(
                "redirected to {}, another origin: not followed, since the configuration's headers would go with it; put the URL it redirects to in the configuration",
                without_query(attempt.url())
            );
            attempt.error(error)
        } else {
            attempt.follow()
        }
    });
    let mut builder = reqwest::Client::builder().redirect(policy);
    if let Some(pem) = extra_roots {
        let certs = reqwest::Certificate::from_pem_bundle(pem)
            .map_err(|e| format!("the CA certificate is not PEM: {e}"))?;
        builder = builder.tls_certs_merge(certs);
    }
    builder
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

/// Which HTTP transport a server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpKind {
    /// Streamable HTTP (`"type": "http"`): every message POSTed to the URL.
    Streamable,
    /// The legacy HTTP+SSE transport (`"type": "sse"`): an event stream from `GET url`.
    Sse,
}

/// A server reached over HTTP: its URL, transport and the headers sent with every request.
#[derive(Clone, Debug)]
pub struct HttpServer {
    /// The endpoint (Streamable HTTP) or the event stream's URL (SSE).
    pub url: String,
    /// Its transport.
    pub kind: HttpKind,
    /// Headers sent with every request, values expanded (never shown: only the names are).
    pub headers: Vec<(String, String)>,
}

/// Connects to `server`, initializes, lists every page of its tools, all within `timeout`;
/// each tool as the server wrote it.
pub fn capture_http(
    server: &HttpServer,
    extra_roots: Option<&[u8]>,
    timeout: Duration,
) -> Result<Capture, ClientError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ClientError::new(format!("cannot start an async runtime: {e}")))?;
    let client = http_client(extra_roots).map_err(ClientError::new)?;
    // rmcp's service spawns its tasks: everything runs inside the runtime.
    let result = runtime.block_on(async {
        match tokio::time::timeout(timeout, run(client, server)).await {
            Ok(r) => r,
            Err(_) => Err(Failure::new(format!(
                "the server did not answer initialize and every tools/list page within {}s",
                timeout.as_secs_f64()
            ))),
        }
    });
    // Not `drop`: it waits for every blocking task, and a name lookup (getaddrinfo, on the
    // blocking pool) that hangs would outlast `timeout`.
    runtime.shutdown_timeout(Duration::from_millis(200));
    result.map_err(|f| ClientError {
        message: f.message,
        stderr: String::new(),
        refused: f.refused,
    })
}

/// Why an HTTP exchange failed.
#[derive(Clone, Debug)]
struct Failure {
    message: String,
    /// An HTTP 401 or 403.
    refused: bool,
}

impl Failure {
    fn new(message: impl Into<String>) -> Failure {
        Failure {
            message: message.into(),
            refused: false,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

async fn run(client: reqwest::Client, server: &HttpServer) -> Result<Capture, Failure> {
    let url = Url::parse(&server.url)
        .map_err(|e| Failure::new(format!("`{}` is not a URL: {e}", server.url)))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Failure::new(format!(
            "`{}` is not an http or https URL",
            server.url
        )));
    }
    let mut headers = HeaderMap::new();
    for (name, value) in &server.headers {
        let n = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| Failure::new(format!("header `{name}`: not a valid header name")))?;
        let mut v = HeaderValue::from_str(value)
            .map_err(|_| Failure::new(format!("header `{name}`: not a valid header value")))?;
        // Kept out of reqwest's and hyper's Debug output.
        v.set_sensitive(true);
        headers.insert(n, v);
    }
    let names: Vec<&str> = server.headers.iter().map(|(n, _)| n.as_str()).collect();
    let (tx, rx) = mpsc::unbounded_channel();
    let mut shared = Shared {
        client,
        headers,
        header_names: if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        },
        post_url: url.clone(),
        post_shown: server.url.clone(),
        kind: server.kind,
        state: Mutex::default(),
        incoming: tx,
    };
    let mut reader = None;
    // The URL as given, never reqwest's rendering of it: the caller puts the URL as written
    // in its place (an input in it is a secret).
    let what = format!("GET {}", server.url);
    if server.kind == HttpKind::Sse {
        let (endpoint, events) = shared.open_sse(&url, &what).await?;
        if endpoint != url {
            shared.post_shown = endpoint.to_string();
        }
        shared.post_url = endpoint;
        reader = Some(events);
    }
    let shared = Arc::new(shared);
    let reading = reader.map(|events| {
        let shared = shared.clone();
        tokio::spawn(async move { shared.read_events(events, &what).await })
    });
    let _abort = reading.map(AbortOnDrop);
    let transport = HttpTransport {
        shared: shared.clone(),
        incoming: rx,
    };
    let outcome = session(transport, "toolgate-lock").await;
    // What the transport saw explains a failure better than rmcp's word for it.
    let fatal = lock(&shared.state).fatal.clone();
    let (counts, mut capture) = match (outcome, fatal) {
        (Ok(done), _) => done,
        (Err(_), Some(f)) => return Err(f),
        (Err(e), None) => return Err(Failure::new(e)),
    };
    let raw = std::mem::take(&mut lock(&shared.state).raw);
    capture.tools = raw_tools(raw.iter().map(Vec::as_slice), &counts).map_err(Failure::new)?;
    Ok(capture)
}

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What one incoming message is to the transport.
enum Incoming {
    Message(Box<RxJsonRpcMessage<RoleClient>>),
    /// The exchange failed (the reason is in [`State::fatal`]): no more messages.
    End,
}

/// What the exchange has learnt so far.
#[derive(Default)]
struct State {
    /// Streamable HTTP's session, from the initialize answer.
    session: Option<String>,
    /// The protocol version the server answered initialize with.
    protocol: Option<String>,
    /// Requests sent and not yet answered: id (as JSON) -> method.
    pending: HashMap<String, String>,
    /// Every message body as received, for the tools as written.
    raw: Vec<Vec<u8>>,
    raw_bytes: usize,
    /// The first failure; the transport ends with it.
    fatal: Option<Failure>,
}

/// The transport's shared half: the client, where to POST, what was received.
struct Shared {
    client: reqwest::Client,
    headers: HeaderMap,
    /// The header names of the configuration, for messages ("none" without any).
    header_names: String,
    /// The URL messages are POSTed to: the URL (Streamable HTTP) or the `endpoint` event's.
    post_url: Url,
    /// `post_url` in messages: the configuration's URL as given (not as reqwest renders it),
    /// else the `endpoint` event's.
    post_shown: String,
    kind: HttpKind,
    state: Mutex<State>,
    incoming: mpsc::UnboundedSender<Incoming>,
}

/// A stream of server-sent events.
type Events =
    std::pin::Pin<Box<dyn futures::Stream<Item = Result<sse_stream::Sse, StreamError>> + Send>>;

/// Why an event stream stopped early.
#[derive(Debug)]
enum StreamError {
    /// Reading or parsing it failed.
    Broke(String),
    /// It went past its bound (in bytes).
    TooLong(usize),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::Broke(e) => f.write_str(e),
            StreamError::TooLong(n) => write!(f, "the event stream went past {n} bytes"),
        }
    }
}

impl std::error::Error for StreamError {}

/// The events of `response`'s body, of at most `limit` bytes in all: a stream that goes on
/// and on fails rather than fill memory (the stdio capture bounds its output the same way).
fn events_of(response: reqwest::Response, limit: usize) -> Events {
    let mut left = limit;
    let bytes = response.bytes_stream().map(move |chunk| {
        let chunk = chunk.map_err(|e| StreamError::Broke(chain(&e.without_url())))?;
        left = left
            .checked_sub(chunk.len())
            .ok_or(StreamError::TooLong(limit))?;
        Ok::<_, StreamError>(chunk)
    });
    let stream = sse_stream::SseStream::from_bytes_stream(bytes);
    Box::pin(stream.map(|e| {
        e.map_err(|e| match e {
            sse_stream::Error::Body(inner) => match inner.downcast::<StreamError>() {
                Ok(ours) => *ours,
                Err(other) => StreamError::Broke(other.to_string()),
            },
            other => StreamError::Broke(other.to_string()),
        })
    }))
}

/// `response`'s body, at most `limit` bytes (more is an error: see [`events_of`]).
async fn body_of(mut response: reqwest::Response, limit: usize) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("the answer broke off: {}", chain(&e.without_url())))?
    {
        if body.len() + chunk.len() > limit {
            return Err(format!("the answer went past {limit} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// A JSON-RPC id as a key of [`State::pending`]: a number and its decimal string are one id,
/// as rmcp matches an answer's `"1"` to the request `1`.
fn id_key(id: &serde_json::Value) -> String {
    match id.as_str() {
        Some(s) if s.parse::<i64>().is_ok() => s.to_string(),
        _ => id.to_string(),
    }
}

impl Shared {
    /// Ends the exchange with `failure` (the first one stays).
    fn fail(&self, failure: Failure) -> Failure {
        let mut state = lock(&self.state);
        state.fatal.get_or_insert(failure.clone());
        let _ = self.incoming.send(Incoming::End);
        failure
    }

    /// `GET url` as an event stream, up to its `endpoint` event: the URL to POST to, same
    /// origin, and the rest of the stream.
    async fn open_sse(&self, url: &Url, what: &str) -> Result<(Url, Events), Failure> {
        let request = self
            .client
            .get(url.clone())
            .headers(self.headers.clone())
            .header(ACCEPT, "text/event-stream");
        let response = request.send().await.map_err(|e| request_error(e, what))?;
        let response = self.checked(response, what).await?;
        let kind = content_type(&response);
        if !kind.starts_with("text/event-stream") {
            return Err(Failure::new(format!(
                "{what} answered {}, not an event stream: is it the server's SSE URL?",
                shown_type(&kind)
            )));
        }
        let mut events = events_of(response, MAX_OUTPUT);
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| match e {
                StreamError::TooLong(_) => Failure::new(format!("{what}: {e}")),
                StreamError::Broke(_) => {
                    Failure::new(format!("{what}: the event stream broke off: {e}"))
                }
            })?;
            if event.event.as_deref() != Some("endpoint") {
                continue;
            }
            let data = event.data.unwrap_or_default();
            let endpoint = url.join(data.trim()).map_err(|e| {
                Failure::new(format!(
                    "{what}: the `endpoint` event's `{}` is not a URI: {e}",
                    excerpt(&data)
                ))
            })?;
            if endpoint.origin() != url.origin() {
                return Err(Failure::new(format!(
                    "{what}: the `endpoint` event names {}, another origin: not used, since the configuration's headers would go with it",
                    without_query(&endpoint)
                )));
            }
            return Ok((endpoint, events));
        }
        Err(Failure::new(format!(
            "{what}: the server closed the event stream before its `endpoint` event"
        )))
    }

    /// The response when its status is a success; else why not.
    async fn checked(
        &self,
        response: reqwest::Response,
        what: &str,
    ) -> Result<reqwest::Response, Failure> {
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN {
            return Err(Failure {
                message: format!(
                    "HTTP {status} from {what}: the server refused the request (headers sent: {})",
                    self.header_names
                ),
                refused: true,
            });
        }
        let kind = content_type(&response);
        let mut message = format!("HTTP {status} from {what} ({})", shown_type(&kind));
        // A JSON-RPC error in the body says why (bounded; never the body otherwise).
        if kind.starts_with("application/json")
            && let Ok(body) = body_of(response, 64 * 1024).await
            && let Ok(v) = serde_json::from_slice::<serde_json::Value>(&body)
            && let Some(m) = v.pointer("/error/message").and_then(|m| m.as_str())
        {
            message.push_str(": ");
            message.push_str(&excerpt(m));
        }
        Err(Failure::new(message))
    }

    /// POSTs one message; its answer (Streamable HTTP) delivered as it comes.
    async fn post(&self, item: TxJsonRpcMessage<RoleClient>) -> Result<(), Failure> {
        let body = serde_json::to_vec(&item).map_err(|e| Failure::new(e.to_string()))?;
        let value: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| Failure::new(e.to_string()))?;
        let method = value
            .get("method")
            .and_then(|m| m.as_str())
            .unwrap_or("a response");
        let id = value.get("id").filter(|_| value.get("method").is_some());
        let what = format!("POST {} ({method})", self.post_shown);
        let mut request = self
            .client
            .post(self.post_url.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(ACCEPT, "application/json, text/event-stream");
        {
            let mut state = lock(&self.state);
            if let Some(id) = id {
                state.pending.insert(id_key(id), method.to_string());
            }
            if self.kind == HttpKind::Streamable {
                if let Some(s) = &state.session {
                    request = request.header(SESSION_HEADER, s);
                }
                if let Some(v) = &state.protocol {
                    request = request.header(VERSION_HEADER, v);
                }
            }
        }
        if self.kind == HttpKind::Streamable {
            request = request.headers(standard_headers(&value));
        }
        let response = request.body(body).send().await;
        let response = response.map_err(|e| request_error(e, &what))?;
        let response = self.checked(response, &what).await?;
        if self.kind == HttpKind::Sse || id.is_none() {
            // SSE answers on the event stream; a notification or response gets 202.
            return Ok(());
        }
        if let Some(s) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        {
            lock(&self.state).session = Some(s.to_string());
        }
        let kind = content_type(&response);
        if kind.starts_with("text/event-stream") {
            let mut events = events_of(response, MAX_OUTPUT);
            return self.read_events_until(&mut events, id, &what).await;
        }
        if !kind.starts_with("application/json") {
            return Err(Failure::new(format!(
                "{what} answered {}, not JSON or an event stream: is it the server's MCP endpoint?",
                shown_type(&kind)
            )));
        }
        let body = body_of(response, MAX_OUTPUT)
            .await
            .map_err(|e| Failure::new(format!("{what}: {e}")))?;
        self.deliver(&body, id, &what)
    }

    /// Delivers the `message` events of `events` until the answer to `id` (every event of
    /// the stream when `None`); the stream ending first is a failure.
    async fn read_events(&self, mut events: Events, what: &str) {
        let _ = self
            .read_events_until(&mut events, None, what)
            .await
            .map_err(|f| self.fail(f));
    }

    async fn read_events_until(
        &self,
        events: &mut Events,
        id: Option<&serde_json::Value>,
        what: &str,
    ) -> Result<(), Failure> {
        let key = id.map(id_key);
        let broke = |detail: String| {
            let waiting = lock(&self.state).pending.values().next().cloned();
            let waiting = waiting.map_or(String::new(), |m| format!(" before answering {m}"));
            Failure::new(format!(
                "{what}: the server closed the event stream{waiting}{detail}"
            ))
        };
        while let Some(event) = events.next().await {
            let event = match event {
                Ok(event) => event,
                Err(e @ StreamError::TooLong(_)) => {
                    return Err(Failure::new(format!("{what}: {e}")));
                }
                Err(e) => return Err(broke(format!(" ({e})"))),
            };
            if !matches!(event.event.as_deref(), None | Some("message")) {
                continue;
            }
            // An event without data primes a resumable stream (its `id`): nothing to deliver.
            let data = event.data.unwrap_or_default();
            if data.trim().is_empty() {
                continue;
            }
            self.deliver(data.as_bytes(), id, what)?;
            if key
                .as_ref()
                .is_some_and(|k| !lock(&self.state).pending.contains_key(k))
            {
                return Ok(());
            }
        }
        Err(broke(String::new()))
    }

    /// Keeps one message body (a message or a batch) and hands its messages to rmcp. On the
    /// answer to the request `answering` (Streamable HTTP), an error without an id (the spec
    /// allows it when the server could not read the id) is that request's: it gets its id,
    /// since rmcp drops an error it cannot route and the request would wait to the timeout.
    fn deliver(
        &self,
        body: &[u8],
        answering: Option<&serde_json::Value>,
        what: &str,
    ) -> Result<(), Failure> {
        let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
            Failure::new(format!(
                "{what}: the server sent something that is not JSON: {e}"
            ))
        })?;
        let messages = match value {
            serde_json::Value::Array(batch) => batch,
            one => vec![one],
        };
        let mut state = lock(&self.state);
        state.raw_bytes += body.len();
        if state.raw_bytes > MAX_OUTPUT {
            return Err(Failure::new(format!(
                "the server sent more than {MAX_OUTPUT} bytes"
            )));
        }
        state.raw.push(body.to_vec());
        for mut m in messages {
            if let Some(id) = answering
                && m.get("error").is_some()
                && m.get("id").is_none_or(serde_json::Value::is_null)
            {
                m["id"] = id.clone();
            }
            if let Some(id) = m.get("id").filter(|_| m.get("method").is_none()) {
                state.pending.remove(&id_key(id));
            }
            if let Some(v) = m
                .pointer("/result/protocolVersion")
                .and_then(|v| v.as_str())
            {
                state.protocol.get_or_insert_with(|| v.to_string());
            }
            let message: RxJsonRpcMessage<RoleClient> = serde_json::from_value(m).map_err(|e| {
                Failure::new(format!(
                    "{what}: the server sent a message that is not JSON-RPC: {e}"
                ))
            })?;
            let _ = self.incoming.send(Incoming::Message(Box::new(message)));
        }
        Ok(())
    }
}

/// rmcp's transport over [`Shared`].
struct HttpTransport {
    shared: Arc<Shared>,
    incoming: mpsc::UnboundedReceiver<Incoming>,
}

impl rmcp::transport::Transport<RoleClient> for HttpTransport {
    type Error = Failure;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Failure>> + Send + 'static {
        let shared = self.shared.clone();
        async move { shared.post(item).await.map_err(|f| shared.fail(f)) }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        match self.incoming.recv().await? {
            Incoming::Message(m) => Some(*m),
            Incoming::End => None,
        }
    }

    async fn close(&mut self) -> Result<(), Failure> {
        // Streamable HTTP: end the session (best effort, briefly).
        let (session, protocol) = {
            let state = lock(&self.shared.state);
            (state.session.clone(), state.protocol.clone())
        };
        if let Some(s) = session {
            let mut request = self
                .shared
                .client
                .delete(self.shared.post_url.clone())
                .headers(self.shared.headers.clone())
                .header(SESSION_HEADER, s);
            // Every request after initialize names the protocol version, this one too.
            if let Some(v) = protocol {
                request = request.header(VERSION_HEADER, v);
            }
            let _ = tokio::time::timeout(Duration::from_secs(2), request.send()).await;
        }
        Ok(())
    }
}

/// The headers SEP-2243 (HTTP header standardization) has a Streamable HTTP client mirror
/// from a message it POSTs, which a server enforcing it requires: `Mcp-Method`, the method
/// (none on a response), and `Mcp-Name`, the `params.name` or `params.uri` where there is
/// one; a value a header cannot hold is left out.
fn standard_headers(message: &serde_json::Value) -> HeaderMap {
    let mut headers = HeaderMap::new();
    let params = message.get("params");
    let name = params.and_then(|p| p.get("name").or_else(|| p.get("uri")));
    for (header, value) in [(METHOD_HEADER, message.get("method")), (NAME_HEADER, name)] {
        if let Some(v) = value
            .and_then(serde_json::Value::as_str)
            .and_then(|v| HeaderValue::from_str(v).ok())
        {
            headers.insert(header, v);
        }
    }
    headers
}

/// The response's content type, lowercased (empty when it has none).
fn content_type(response: &reqwest::Response) -> String {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

fn shown_type(kind: &str) -> String {
    if kind.is_empty() {
        "no content type".to_string()
    } else {
        kind.split(';').next().unwrap_or(kind).trim().to_string()
    }
}

/// `url` for a message or a written file when the caller has only the URL as given (`import
/// --url`): without user, password, query and fragment, where a key often rides
/// (`?api_key=`); as given when it is not a URL.
pub fn shown_url(url: &str) -> String {
    Url::parse(url).map_or_else(|_| url.to_string(), |u| without_query(&u))
}

/// A URL the server gave (a redirect's, an endpoint's), for a message: without its user,
/// password, query and fragment, which may repeat a secret of the configuration's URL in a
/// form (percent-encoded) the caller's masking cannot see.
fn without_query(url: &Url) -> String {
    let mut shown = url.clone();
    shown.set_query(None);
    shown.set_fragment(None);
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.to_string()
}

/// The start of a text the server sent, for a one-line message: at most 200 characters, a
/// control character (a line break, a terminal escape) shown as a space.
fn excerpt(text: &str) -> String {
    let mut shown: String = text
        .trim()
        .chars()
        .take(200)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.trim().chars().nth(200).is_some() {
        shown.push('…');
    }
    shown
}

/// A request that got no answer: the reason, a redirect refused included (without the URL
/// as reqwest renders it: `what` names it as given).
fn request_error(e: reqwest::Error, what: &str) -> Failure {
    Failure::new(format!("{what}: {}", chain(&e.without_url())))
}

/// An error with its causes, each said once (`a: b: c`).
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(e);
    while let Some(e) = next {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = e.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A response whose body never ends: the same chunk again and again.
    fn endless() -> reqwest::Response {
        let chunks = futures::stream::repeat_with(|| {
            Ok::<_, std::io::Error>(b"data: {\"x\": 1}\n\n".to_vec())
        });
        let response = http::Response::builder()
            .header(CONTENT_TYPE, "text/event-stream")
            .body(reqwest::Body::wrap_stream(chunks))
            .unwrap();
        reqwest::Response::from(response)
    }

    fn block_on<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(f)
    }

    #[test]
    fn a_body_that_never_ends_stops_at_its_bound() {
        let e = block_on(body_of(endless(), 4096)).unwrap_err();
        assert_eq!(e, "the answer went past 4096 bytes");
        let body = reqwest::Response::from(http::Response::new(b"{}".to_vec()));
        assert_eq!(block_on(body_of(body, 2)).unwrap(), b"{}");
    }

    #[test]
    fn an_event_stream_that_never_ends_stops_at_its_bound() {
        let (seen, last) = block_on(async {
            let mut events = events_of(endless(), 4096);
            let mut seen = 0;
            loop {
                match events.next().await {
                    Some(Ok(_)) => seen += 1,
                    Some(Err(e)) => return (seen, Some(e)),
                    None => return (seen, None),
                }
            }
        });
        assert!(seen > 0 && seen < 4096, "{seen}");
        let last = last.expect("an error, not the end").to_string();
        assert!(
            last.contains("the event stream went past 4096 bytes"),
            "{last}"
        );
    }

    #[test]
    fn a_server_text_is_shown_on_one_short_line() {
        assert_eq!(excerpt(" busy\n\u{1b}[2J now "), "busy  [2J now");
        let long = "x".repeat(10_000);
        assert_eq!(excerpt(&long).chars().count(), 201);
    }

    #[test]
    fn a_url_the_server_gave_is_shown_without_query_or_user() {
        let url = Url::parse("https://u:p@mcp.example:8443/v2/mcp?key=a%20b#top").unwrap();
        assert_eq!(without_query(&url), "https://mcp.example:8443/v2/mcp");
    }

    #[test]
    fn a_post_mirrors_its_method_and_name_in_headers() {
        use serde_json::json;
        let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "lookup", "arguments": {}}});
        let h = standard_headers(&call);
        assert_eq!(h.get("mcp-method").unwrap(), "tools/call");
        assert_eq!(h.get("mcp-name").unwrap(), "lookup");
        let read = json!({"method": "resources/read", "params": {"uri": "file:///a"}});
        assert_eq!(
            standard_headers(&read).get("mcp-name").unwrap(),
            "file:///a"
        );
        let answer = json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}});
        assert!(standard_headers(&answer).is_empty());
        let odd = json!({"method": "tools/call", "params": {"name": "line\nbreak"}});
        assert!(standard_headers(&odd).get("mcp-name").is_none());
    }

    #[test]
    fn a_numeric_string_id_answers_the_number() {
        use serde_json::json;
        assert_eq!(id_key(&json!(3)), id_key(&json!("3")));
        assert_ne!(id_key(&json!("a")), id_key(&json!("\"a\"")));
        assert_ne!(id_key(&json!("3")), id_key(&json!("03x")));
    }
}
