//! `toolgate serve --http` for the tests: the server process (with the port it bound), a
//! minimal HTTP/1.1 client that shows every byte of the exchange (status, headers, the
//! de-chunked body), and an MCP session over it with a bearer token. Hand-written on
//! `TcpStream` on purpose: the door tests send requests a client library would refuse to
//! write (a wrong Host, an oversized body, no session).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::wait_with_timeout;

/// The MCP protocol version the sessions of these tests speak.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// A `toolgate serve ... --http 127.0.0.1:0` process and the port it bound.
pub struct HttpServer {
    child: Child,
    /// The port it listens on.
    pub port: u16,
    stderr: mpsc::Receiver<String>,
}

impl HttpServer {
    /// Starts `toolgate serve ARGS --http 127.0.0.1:0` from the repository root (the
    /// selector variables unset) and waits (at most 30 s) for its "listening" line.
    pub fn start(args: &[&str]) -> HttpServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg("serve")
            .args(args)
            .args(["--http", "127.0.0.1:0"])
            .env_remove("TATARA_TOOL_PROFILE")
            .env_remove("MAETRA_CAPABILITIES")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("toolgate serve starts");
        let (tx, rx) = mpsc::channel();
        let stderr = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = Vec::new();
        let port = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no listening line on stderr: {seen:?}"));
            if let Some(rest) = line.strip_prefix("toolgate: listening on http://127.0.0.1:") {
                break rest.trim_end_matches("/mcp").parse().expect("a port");
            }
            seen.push(line);
        };
        HttpServer {
            child,
            port,
            stderr: rx,
        }
    }

    /// The endpoint's URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// Sends SIGTERM and waits (at most 5 s) for the exit: its status, how long it took, and
    /// what it wrote on stderr since it started listening.
    pub fn terminate(mut self) -> (ExitStatus, Duration, String) {
        let started = Instant::now();
        sigterm(self.child.id());
        let status = wait_with_timeout(&mut self.child, Duration::from_secs(5));
        let took = started.elapsed();
        let rest: Vec<String> = self.stderr.try_iter().collect();
        (status, took, rest.join("\n"))
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends SIGTERM to the process `pid`.
pub fn sigterm(pid: u32) {
    let ok = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(ok.success());
}

/// A response: status, headers (lower-case names), body (de-chunked).
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The headers, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body, de-chunked.
    pub body: String,
}

impl Reply {
    /// The value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC message of the body: JSON, or the last SSE `data:` line that is JSON;
    /// `None` when there is none (a 202, an error page).
    pub fn json(&self) -> Option<Value> {
        if let Ok(v) = serde_json::from_str(self.body.trim()) {
            return Some(v);
        }
        self.body
            .lines()
            .filter_map(|l| l.trim().strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .next_back()
    }

    /// The JSON-RPC message of the body, which must have one.
    pub fn message(&self) -> Value {
        self.json()
            .unwrap_or_else(|| panic!("no JSON-RPC message in {:?}", self.body))
    }
}

fn dechunk(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = raw;
    while let Some(i) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&rest[..i]).unwrap_or("0").trim(), 16)
            .unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = i + 2;
        let end = (start + size).min(rest.len());
        out.extend_from_slice(&rest[start..end]);
        rest = &rest[(end + 2).min(rest.len())..];
    }
    out
}

/// One HTTP/1.1 request to `/mcp` on a fresh connection (`Connection: close`), read to its
/// end. `Host`, `Accept` and `Content-Type` get the usual values unless `headers` set them.
pub fn send(port: u16, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut head = format!("{method} /mcp HTTP/1.1\r\n");
    let has = |n: &str| headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(n));
    if !has("host") {
        head.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    if !has("accept") {
        head.push_str("Accept: application/json, text/event-stream\r\n");
    }
    if !has("content-type") {
        head.push_str("Content-Type: application/json\r\n");
    }
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    stream.write_all(head.as_bytes()).expect("write");
    stream.write_all(body).expect("write");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&body).to_string(),
    }
}

/// A POST of the JSON-RPC message `body`.
pub fn post(port: u16, headers: &[(&str, &str)], body: &Value) -> Reply {
    send(port, "POST", headers, body.to_string().as_bytes())
}

/// An `initialize` request with id `id`.
pub fn initialize_request(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
        "clientInfo": {"name": "toolgate-tests", "version": "0"}}})
}

/// [`initialize_request`] as the bytes of a body.
pub fn initialize_body(id: u64) -> Vec<u8> {
    initialize_request(id).to_string().into_bytes()
}

/// An MCP session over HTTP with a bearer token.
pub struct HttpSession {
    port: u16,
    auth: String,
    session: String,
    next: u64,
}

impl HttpSession {
    /// Initializes a session on `port` with `Authorization: Bearer TOKEN`.
    pub fn open(port: u16, token: &str) -> HttpSession {
        let auth = format!("Bearer {token}");
        let init = post(
            port,
            &[
                ("Authorization", &auth),
                ("MCP-Protocol-Version", PROTOCOL_VERSION),
            ],
            &initialize_request(0),
        );
        assert_eq!(init.status, 200, "{}", init.body);
        let session = init
            .header("mcp-session-id")
            .expect("a session id")
            .to_string();
        let s = HttpSession {
            port,
            auth,
            session,
            next: 1,
        };
        let r = s.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(r.status, 202);
        s
    }

    fn post(&self, body: &Value) -> Reply {
        post(
            self.port,
            &[
                ("Authorization", &self.auth),
                ("Mcp-Session-Id", &self.session),
                ("MCP-Protocol-Version", PROTOCOL_VERSION),
            ],
            body,
        )
    }

    /// Sends a request in the session: the response (`result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let r = self
            .post(&json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params}));
        let message = r.json().unwrap_or(Value::Null);
        assert_eq!(r.status, 200, "{message}");
        message
    }

    /// The names `tools/list` gives.
    pub fn names(&mut self) -> Vec<String> {
        let r = self.request("tools/list", json!({}));
        r["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect()
    }
}
