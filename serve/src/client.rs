//! An MCP client over stdio, for `toolgate import --server` and `toolgate lock`: spawn a
//! server, initialize, list its tools page by page, stop it.
//!
//! rmcp's client speaks the protocol (initialize, requests the server makes of its client,
//! pagination); the tools are taken from the raw bytes of the server's answers, read through
//! a tee on the child's stdout, so that each tool object is exactly what the server wrote:
//! its keys in their order, every field kept, whether or not rmcp's `Tool` type models it.
//! rmcp's typed answer gives the cursor and a count to check the raw pages against.

use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, PaginatedRequestParams};
use rmcp::transport::IntoTransport;
use rmcp::{RoleClient, ServiceExt};
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use toolgate_runtime::json::Value;

/// The most bytes read from a server's stdout in one run.
pub const MAX_OUTPUT: usize = 256 * 1024 * 1024;
/// The most `tools/list` pages followed in one run.
pub const MAX_PAGES: usize = 10_000;
/// How much of a server's stderr is kept to explain a failure (its end).
const STDERR_TAIL: usize = 4096;

/// A server to spawn: the program and its arguments (run without a shell) and the variables
/// added to its environment.
#[derive(Clone, Debug)]
pub struct ServerCommand {
    /// The program, found on `PATH` as the OS does.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for this run.
    pub env: Vec<(String, String)>,
}

/// Why a run failed: what went wrong, and the end of what the server wrote to stderr.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientError {
    /// What went wrong.
    pub message: String,
    /// The last lines the server wrote to stderr (may be empty).
    pub stderr: String,
    /// The server refused the request (HTTP 401 or 403): the caller may say what to do
    /// about a server behind OAuth.
    pub refused: bool,
}

impl ClientError {
    /// A failure with nothing more to show than its message.
    pub fn new(message: impl Into<String>) -> ClientError {
        ClientError {
            message: message.into(),
            stderr: String::new(),
            refused: false,
        }
    }
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)?;
        let tail = self.stderr.trim_end();
        if !tail.is_empty() {
            write!(f, "\n  the server's stderr ended with:")?;
            for line in tail.lines() {
                write!(f, "\n  | {line}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for ClientError {}

/// What one run of a server told: its tools and who it said it is.
#[derive(Clone, Debug, Default)]
pub struct Capture {
    /// The tools in the order served, each object as the server wrote it.
    pub tools: Vec<Value>,
    /// `serverInfo.name` of its initialize answer.
    pub server_name: Option<String>,
    /// `serverInfo.version`.
    pub server_version: Option<String>,
    /// The protocol version it answered with.
    pub protocol_version: Option<String>,
}

/// Spawns `command`, lists every page of its tools, stops it, all within `timeout`; the
/// tools in the order served, each object as the server wrote it.
pub fn list_tools(command: &ServerCommand, timeout: Duration) -> Result<Vec<Value>, ClientError> {
    capture(command, None, timeout).map(|c| c.tools)
}

/// [`list_tools`] run in the folder `cwd` (the current one when `None`), with the server's
/// `serverInfo` and protocol version.
pub fn capture(
    command: &ServerCommand,
    cwd: Option<&std::path::Path>,
    timeout: Duration,
) -> Result<Capture, ClientError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ClientError::new(format!("cannot start an async runtime: {e}")))?;
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let result = runtime.block_on(async {
        match tokio::time::timeout(timeout, run(command, cwd, stderr.clone())).await {
            Ok(result) => result,
            Err(_) => Err(format!(
                "the server did not answer initialize and every tools/list page within {}s",
                timeout.as_secs_f64()
            )),
        }
    });
    // The child is killed when its handle drops (kill_on_drop); the runtime's tasks with it.
    drop(runtime);
    result.map_err(|message| ClientError {
        message,
        stderr: String::from_utf8_lossy(&lock(&stderr)).into_owned(),
        refused: false,
    })
}

pub(crate) fn lock<T>(buf: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    buf.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn run(
    command: &ServerCommand,
    cwd: Option<&std::path::Path>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
) -> Result<Capture, String> {
    let mut spawn = tokio::process::Command::new(&command.program);
    if let Some(dir) = cwd {
        spawn.current_dir(dir);
    }
    let mut child = spawn
        .args(&command.args)
        .envs(command.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", command.program))?;
    let (Some(stdin), Some(stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("the server's stdio could not be connected".into());
    };
    let stderr_task = tokio::spawn(async move {
        let mut chunk = [0u8; 4096];
        while let Ok(n @ 1..) = stderr.read(&mut chunk).await {
            let mut tail = lock(&stderr_tail);
            tail.extend_from_slice(&chunk[..n]);
            let excess = tail.len().saturating_sub(STDERR_TAIL);
            tail.drain(..excess);
        }
    });
    let raw = Arc::new(Mutex::new(Vec::new()));
    let tee = Tee {
        inner: stdout,
        log: raw.clone(),
    };
    match session((tee, stdin), "toolgate-import").await {
        Ok((counts, mut capture)) => {
            let _ = child.kill().await;
            let bytes = std::mem::take(&mut *lock(&raw));
            let lines = bytes.split(|b| *b == b'\n');
            capture.tools = raw_tools(lines, &counts)?;
            Ok(capture)
        }
        Err(message) => {
            // Say how the server ended, with the end of its stderr, when it did.
            let grace = Duration::from_millis(500);
            let exited = tokio::time::timeout(grace, child.wait()).await;
            let _ = tokio::time::timeout(grace, stderr_task).await;
            match exited {
                Ok(Ok(status)) => Err(format!("the server exited ({status}): {message}")),
                _ => Err(message),
            }
        }
    }
}

/// Initializes over `transport` (as the client `name`), lists every page, closes; the
/// number of tools rmcp read on each page, and the server's `serverInfo` and protocol
/// version (its tools left empty). Every transport's capture runs this one session.
pub(crate) async fn session<T, E, A>(
    transport: T,
    name: &str,
) -> Result<(Vec<usize>, Capture), String>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let info = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(name, env!("CARGO_PKG_VERSION")),
    );
    let client = info
        .serve(transport)
        .await
        .map_err(|e| format!("initialize failed: {}", short(&e.to_string())))?;
    let info = client.peer().peer_info();
    let capture = Capture {
        tools: Vec::new(),
        server_name: info
            .as_ref()
            .and_then(|i| i.server_info.as_ref())
            .map(|s| s.name.clone()),
        server_version: info
            .as_ref()
            .and_then(|i| i.server_info.as_ref())
            .map(|s| s.version.clone()),
        protocol_version: info.as_ref().map(|i| i.protocol_version.to_string()),
    };
    let mut counts = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = std::collections::HashSet::new();
    loop {
        let params = cursor
            .clone()
            .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let page = client.peer().list_tools(params).await.map_err(|e| {
            format!(
                "tools/list (page {}) failed: {}",
                counts.len() + 1,
                short(&e.to_string())
            )
        })?;
        counts.push(page.tools.len());
        match page.next_cursor {
            Some(next) if !next.is_empty() => {
                if !seen.insert(next.clone()) {
                    return Err(format!(
                        "tools/list gave the cursor {next:?} twice: the pages loop"
                    ));
                }
                if counts.len() >= MAX_PAGES {
                    return Err(format!("tools/list has more than {MAX_PAGES} pages"));
                }
                cursor = Some(next);
            }
            _ => break,
        }
    }
    let _ = client.cancel().await;
    Ok((counts, capture))
}

/// An rmcp error without the transport's type name (`Transport [rmcp::...] error: x`), on
/// one line of at most [`SHORT`] characters: it may carry the server's own error message,
/// of any length, line breaks and terminal escapes included.
fn short(message: &str) -> String {
    let message = match (message.find(" ["), message.find("] error: ")) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &message[..a], &message[b + 1..]),
        _ => message.to_string(),
    };
    let mut shown: String = message
        .chars()
        .take(SHORT)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if message.chars().nth(SHORT).is_some() {
        shown.push('…');
    }
    shown
}

/// The most characters of an rmcp error shown.
const SHORT: usize = 500;

/// The tools of the `tools/list` responses among the messages the server sent (each a
/// JSON-RPC message or a batch of them), page by page, checked against what rmcp counted.
pub(crate) fn raw_tools<'a>(
    messages: impl IntoIterator<Item = &'a [u8]>,
    counts: &[usize],
) -> Result<Vec<Value>, String> {
    let mut pages: Vec<Vec<Value>> = Vec::new();
    for line in messages {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // rmcp read every message it acted on; one we cannot read is not a tools/list answer.
        let batch = match serde_json::from_slice::<Value>(line) {
            Ok(Value::Array(batch)) => batch,
            Ok(message) => vec![message],
            Err(_) => continue,
        };
        for message in batch {
            let Value::Object(message) = message else {
                continue;
            };
            if !message.contains_key("id") {
                continue;
            }
            if let Some(Value::Object(result)) = message.get("result")
                && let Some(Value::Array(tools)) = result.get("tools")
            {
                pages.push(tools.clone());
            }
        }
    }
    let raw: Vec<usize> = pages.iter().map(Vec::len).collect();
    if raw != counts {
        return Err(format!(
            "the server's tools/list answers as read ({raw:?} tools per page) do not match what the client received ({counts:?})"
        ));
    }
    Ok(pages.into_iter().flatten().collect())
}

/// Copies what a reader yields into a log, up to [`MAX_OUTPUT`] bytes.
struct Tee<R> {
    inner: R,
    log: Arc<Mutex<Vec<u8>>>,
}

impl<R: AsyncRead + Unpin> AsyncRead for Tee<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &poll {
            let mut log = lock(&self.log);
            log.extend_from_slice(&buf.filled()[before..]);
            if log.len() > MAX_OUTPUT {
                return Poll::Ready(Err(std::io::Error::other(format!(
                    "the server wrote more than {MAX_OUTPUT} bytes"
                ))));
            }
        }
        poll
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_rmcp_error_is_one_short_line() {
        assert_eq!(
            short("Transport [rmcp::x::Y] error: gone\nnow"),
            "Transport error: gone now"
        );
        let long = format!("Mcp error: -32603: {}", "x".repeat(5000));
        assert_eq!(short(&long).chars().count(), SHORT + 1);
    }

    #[test]
    fn raw_pages_keep_key_order_and_must_match_the_counts() {
        let out = concat!(
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}}}}\n",
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"b\",\"inputSchema\":{}}],\"nextCursor\":\"2\"}}\r\n",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"inputSchema\":{},\"name\":\"a\"}]}}\n",
        );
        let lines = || out.as_bytes().split(|b| *b == b'\n');
        let tools = raw_tools(lines(), &[1, 1]).unwrap();
        let text: Vec<String> = tools.iter().map(Value::to_string).collect();
        assert_eq!(
            text,
            [
                r#"{"name":"b","inputSchema":{}}"#,
                r#"{"inputSchema":{},"name":"a"}"#
            ]
        );
        let e = raw_tools(lines(), &[1]).unwrap_err();
        assert!(e.contains("do not match"), "{e}");
    }

    #[test]
    fn a_program_that_cannot_start_is_a_clear_error() {
        let command = ServerCommand {
            program: "/nonexistent/toolgate-no-such-server".into(),
            args: vec![],
            env: vec![],
        };
        let e = list_tools(&command, Duration::from_secs(5)).unwrap_err();
        assert!(
            e.message
                .starts_with("cannot start `/nonexistent/toolgate-no-such-server`"),
            "{e}"
        );
    }

    #[test]
    fn a_server_that_never_answers_times_out() {
        let command = ServerCommand {
            program: "sleep".into(),
            args: vec!["30".into()],
            env: vec![],
        };
        let started = std::time::Instant::now();
        let e = list_tools(&command, Duration::from_millis(300)).unwrap_err();
        assert!(e.message.contains("within 0.3s"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_server_that_exits_reports_its_stderr() {
        let command = ServerCommand {
            program: "sh".into(),
            args: vec!["-c".into(), "echo 'no token given' >&2; exit 3".into()],
            env: vec![],
        };
        let e = list_tools(&command, Duration::from_secs(10)).unwrap_err();
        assert!(
            e.message
                .starts_with("the server exited (exit status: 3): initialize failed"),
            "{e}"
        );
        assert!(!e.message.contains("rmcp::"), "{e}");
        assert!(e.to_string().contains("| no token given"), "{e}");
    }
}
