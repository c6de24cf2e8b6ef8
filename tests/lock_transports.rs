//! `toolgate lock` and `toolgate import --url` over HTTP: Streamable HTTP (http and https) and
//! the legacy HTTP+SSE transport.
//!
//! Against live servers the test starts: `@playwright/mcp --port` (Streamable HTTP),
//! `@modelcontextprotocol/server-everything` in its `streamableHttp` and `sse` modes (npm,
//! tests/lock/package.json, which `.ci/run` installs under target/e2e/lock-npm), and
//! tests/lock/secure_server.py (the MCP Python SDK under uvicorn with TLS and a bearer token,
//! in the venv `TOOLGATE_PYTHON` names), reached with `--ca-cert`. Those skip with a message
//! when node, the packages or the venv are missing, unless `TOOLGATE_REQUIRE_E2E=1`.
//!
//! Against servers written here on `std::net::TcpListener` (they need nothing): each way an
//! HTTP server can fail a capture (HTML, 401/403, a redirect to another origin, no answer, a
//! stream that breaks off), each an error naming the server, exit 2, no panic, nothing
//! written; and a same-origin redirect followed.

mod common;
mod mcp_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{all_text, everything};
use mcp_support::{python_importing, skip};
use serde_json::{Value, json};

const TOKEN: &str = "records-token-5e0c7b2a";

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

/// A scratch git work tree holding `.vscode/mcp.json` with `text`.
fn repo_with(name: &str, text: &str) -> PathBuf {
    let dir = common::scratch(name);
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir)
        .status()
        .expect("git runs");
    assert!(git.success());
    std::fs::create_dir_all(dir.join(".vscode")).unwrap();
    std::fs::write(dir.join(".vscode/mcp.json"), text).unwrap();
    dir
}

fn toolgate_in(dir: &Path, args: &[&str]) -> Output {
    common::toolgate()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("toolgate runs")
}

// ---------------------------------------------------------------------------------------
// Servers written here: one request read, one answer written, per connection.

/// A request as the server read it.
#[derive(Clone, Debug)]
struct Request {
    method: String,
    path: String,
    /// Header names lowercased, with their values.
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server does with a request.
enum Answer {
    /// Write these bytes and close.
    Bytes(Vec<u8>),
    /// Write these bytes, keep the connection open a while (an event stream), then close.
    Stream(Vec<u8>, Duration),
    /// Never answer (the connection stays open until the client goes).
    Silence,
    /// Write the head, then each text the channel gives (an event stream fed by other
    /// requests' handlers), until it closes.
    Feed(Vec<u8>, std::sync::mpsc::Receiver<String>),
}

fn http(status: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut head = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    Answer::Bytes(head.into_bytes())
}

/// An event stream's head and first bytes, without a length: the stream ends when the
/// connection closes.
fn event_stream(first: &str, open: Duration) -> Answer {
    let text = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n{first}"
    );
    Answer::Stream(text.into_bytes(), open)
}

/// A server on 127.0.0.1 answering each request with `answer`; its port and the requests
/// it read.
fn server(
    answer: impl Fn(&Request, u16) -> Answer + Send + Sync + 'static,
) -> (u16, Arc<Mutex<Vec<Request>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let answer = Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let log = log.clone();
            let answer = answer.clone();
            std::thread::spawn(move || {
                let Some(request) = read_request(&stream) else {
                    return;
                };
                log.lock().unwrap().push(request.clone());
                reply(stream, answer(&request, port));
            });
        }
    });
    (port, seen)
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (n, v) = h.split_once(':')?;
        headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

fn reply(mut stream: TcpStream, answer: Answer) {
    match answer {
        Answer::Bytes(b) => {
            let _ = stream.write_all(&b);
        }
        Answer::Stream(b, open) => {
            let _ = stream.write_all(&b);
            let _ = stream.flush();
            std::thread::sleep(open);
        }
        Answer::Silence => std::thread::sleep(Duration::from_secs(60)),
        Answer::Feed(head, texts) => {
            let _ = stream.write_all(&head);
            for text in texts {
                if stream.write_all(text.as_bytes()).is_err() {
                    break;
                }
                let _ = stream.flush();
            }
        }
    }
}

/// A minimal Streamable HTTP MCP server's answer (JSON bodies): initialize, 202 for
/// notifications, one page of tools whose keys are not in alphabetical order.
fn mcp_json(request: &Request) -> Answer {
    let message: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let id = message["id"].clone();
    let result = match message["method"].as_str() {
        Some("initialize") => {
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "written-here", "version": "0.1.0"}})
        }
        Some("tools/list") => {
            return http(
                "200 OK",
                &[("Content-Type", "application/json")],
                &format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"zeta","inputSchema":{{"type":"object","properties":{{"q":{{"type":"string"}}}}}},"description":"Last in the alphabet, first here.","x-vendor":{{"kept":true}}}}]}}}}"#
                ),
            );
        }
        _ if id.is_null() => return http("202 Accepted", &[], ""),
        _ => return http("400 Bad Request", &[], ""),
    };
    let body = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    http(
        "200 OK",
        &[
            ("Content-Type", "application/json"),
            ("Mcp-Session-Id", "s-1"),
        ],
        &body,
    )
}

/// The failures of a capture over HTTP, all in one run (the captures run at once): each an
/// error naming the server and what went wrong, exit 2, no panic, nothing written; with
/// --keep-going the one good server is written and the exit is 1.
#[test]
fn every_http_failure_is_a_located_error_and_nothing_is_written() {
    let html = |_: &Request, _| {
        http(
            "200 OK",
            &[("Content-Type", "text/html")],
            "<html><body>Sign in</body></html>",
        )
    };
    let (html_port, _) = server(html);
    let (sse_html_port, _) = server(html);
    let (unauthorized, seen_401) = server(|_, _| {
        http(
            "401 Unauthorized",
            &[("WWW-Authenticate", "Bearer realm=\"x\"")],
            "",
        )
    });
    let (forbidden, _) = server(|_, _| http("403 Forbidden", &[], ""));
    let (silent, _) = server(|_, _| Answer::Silence);
    // Streamable HTTP: initialize answered with an event stream that breaks off.
    let (broken, _) = server(|_, _| {
        event_stream(
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"res",
            Duration::from_millis(100),
        )
    });
    // A JSON answer shorter than its Content-Length: the connection closes mid-body.
    let (cut, _) = server(|_, _| {
        Answer::Bytes(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":0,"
                .to_vec(),
        )
    });
    // Legacy SSE: the endpoint event, the POST accepted, then the stream closes.
    let (sse_broken, _) = server(|r, _| match r.method.as_str() {
        "GET" => event_stream(
            "event: endpoint\ndata: /messages?session=1\n\n",
            Duration::from_millis(300),
        ),
        _ => http("202 Accepted", &[], ""),
    });
    let (elsewhere, seen_elsewhere) = server(|r, _| mcp_json(r));
    let (redirects, _) = server(move |_, _| {
        let to = format!("http://localhost:{elsewhere}/mcp");
        http("307 Temporary Redirect", &[("Location", to.as_str())], "")
    });
    let (good, _) = server(|r, _| mcp_json(r));
    let config = format!(
        r#"{{"servers": {{
            "html": {{"type": "http", "url": "http://127.0.0.1:{html_port}/mcp"}},
            "sse-html": {{"type": "sse", "url": "http://127.0.0.1:{sse_html_port}/sse"}},
            "unauthorized": {{"type": "http", "url": "http://127.0.0.1:{unauthorized}/mcp", "headers": {{"Authorization": "Bearer ${{input:token}}", "X-Team": "docs"}}}},
            "forbidden": {{"type": "http", "url": "http://127.0.0.1:{forbidden}/mcp"}},
            "silent": {{"type": "http", "url": "http://127.0.0.1:{silent}/mcp"}},
            "broken": {{"type": "http", "url": "http://127.0.0.1:{broken}/mcp"}},
            "sse-broken": {{"type": "sse", "url": "http://127.0.0.1:{sse_broken}/sse"}},
            "cut": {{"type": "http", "url": "http://127.0.0.1:{cut}/mcp"}},
            "sse-refused": {{"type": "sse", "url": "http://127.0.0.1:{unauthorized}/sse?key=${{input:token}}"}},
            "sse-spaced": {{"type": "sse", "url": "http://127.0.0.1:{unauthorized}?key=${{input:spaced}}"}},
            "redirects": {{"type": "http", "url": "http://127.0.0.1:{redirects}/mcp", "headers": {{"Authorization": "Bearer ${{input:token}}"}}}},
            "good": {{"type": "http", "url": "http://127.0.0.1:{good}/mcp"}}
        }}}}"#
    );
    let dir = repo_with("lock-http-failures", &config);
    let token = format!("token={TOKEN}");
    let started = Instant::now();
    // A value a URL encodes (`%20`): only the URL as written keeps it out of a message.
    let spaced = "spaced=tok en-9f2";
    let o = toolgate_in(
        &dir,
        &["lock", "--timeout", "3", "--env", &token, "--env", spaced],
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(code(&o), 2, "{}", everything(&o));
    let err = common::stderr(&o);
    let line_of = |id: &str| -> String {
        let start = format!("error: server `{id}` (.vscode/mcp.json: servers.{id}): ");
        err.lines()
            .find(|l| l.starts_with(&start))
            .unwrap_or_else(|| panic!("no error for `{id}`: {err}"))
            .to_string()
    };
    let expected: &[(&str, &[&str])] = &[
        (
            "html",
            &[&format!(
                "POST http://127.0.0.1:{html_port}/mcp (initialize) answered text/html, not JSON or an event stream"
            )],
        ),
        (
            "sse-html",
            &[&format!(
                "GET http://127.0.0.1:{sse_html_port}/sse answered text/html, not an event stream"
            )],
        ),
        (
            "unauthorized",
            &[
                "HTTP 401 Unauthorized from POST",
                "headers sent: Authorization, X-Team",
            ],
        ),
        (
            "forbidden",
            &["HTTP 403 Forbidden from POST", "headers sent: none"],
        ),
        (
            "silent",
            &["the server did not answer initialize and every tools/list page within 3s"],
        ),
        (
            "broken",
            &["the server closed the event stream before answering initialize"],
        ),
        (
            "sse-broken",
            &[&format!(
                "GET http://127.0.0.1:{sse_broken}/sse: the server closed the event stream before answering initialize"
            )],
        ),
        (
            "sse-refused",
            &[&format!(
                "HTTP 401 Unauthorized from GET http://127.0.0.1:{unauthorized}/sse?key=${{input:token}}"
            )],
        ),
        (
            "sse-spaced",
            &[&format!(
                "HTTP 401 Unauthorized from GET http://127.0.0.1:{unauthorized}?key=${{input:spaced}}"
            )],
        ),
        (
            "redirects",
            &[&format!(
                "redirected to http://localhost:{elsewhere}/mcp, another origin: not followed"
            )],
        ),
    ];
    for (id, parts) in expected {
        let line = line_of(id);
        for part in *parts {
            assert!(
                line.contains(part),
                "`{id}`: {part:?} not in {line:?}\n{err}"
            );
        }
    }
    // A refusal says what to do about OAuth, for that server.
    assert!(err.contains("a server behind OAuth cannot be captured unattended: give it a captured surface instead, `[servers.unauthorized] tools_list = \"FILE\"`"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("good"), "{err}");
    assert!(err.contains("nothing written"), "{err}");
    assert!(!dir.join("toolgate.lock").exists());
    // The header went to the server it was written for, and to no other origin.
    let sent = seen_401.lock().unwrap().clone();
    let bearer = format!("Bearer {TOKEN}");
    let post = sent.iter().find(|r| r.method == "POST").expect("the POST");
    assert_eq!(post.header("authorization"), Some(bearer.as_str()));
    let get = sent.iter().find(|r| r.method == "GET").expect("the GET");
    assert_eq!(get.header("authorization"), None);
    assert!(
        seen_elsewhere.lock().unwrap().is_empty(),
        "the redirect was followed"
    );
    // The token is in no output.
    assert!(!everything(&o).contains(TOKEN), "{}", everything(&o));
    assert!(!everything(&o).contains("en-9f2"), "{}", everything(&o));

    // --keep-going: the good server written, exit 1.
    let o = toolgate_in(
        &dir,
        &[
            "lock",
            "--timeout",
            "3",
            "--env",
            &token,
            "--env",
            spaced,
            "--keep-going",
        ],
    );
    assert_eq!(code(&o), 1, "{}", everything(&o));
    assert!(!common::stderr(&o).contains("panicked"));
    let lock: Value =
        serde_json::from_slice(&std::fs::read(dir.join("toolgate.lock")).unwrap()).unwrap();
    assert_eq!(
        lock["servers"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["good"]
    );
    // The tool as the server wrote it: its key order and a key MCP does not define.
    let text = std::fs::read_to_string(dir.join("toolgate.lock")).unwrap();
    let tool = &lock["servers"]["good"]["tools"][0];
    assert_eq!(tool["x-vendor"], json!({"kept": true}), "{text}");
    let name_at = text.find("\"name\": \"zeta\"").expect("the tool");
    let schema_at = text[name_at..].find("\"inputSchema\"").expect("its schema");
    let description_at = text[name_at..]
        .find("\"description\"")
        .expect("its description");
    assert!(schema_at < description_at, "keys as served: {text}");
    assert!(!all_text(&dir).contains(TOKEN));
}

/// A redirect within the origin is followed, headers and all.
#[test]
fn a_same_origin_redirect_is_followed() {
    let (port, seen) = server(|r, _| {
        if r.path == "/mcp" {
            http("308 Permanent Redirect", &[("Location", "/v2/mcp")], "")
        } else {
            mcp_json(r)
        }
    });
    let dir = repo_with(
        "lock-http-redirect",
        &format!(
            r#"{{"servers": {{"moved": {{"type": "http", "url": "http://127.0.0.1:{port}/mcp", "headers": {{"X-Api-Key": "${{env:TOOLGATE_TEST_KEY}}"}}}}}}}}"#
        ),
    );
    let o = common::toolgate()
        .current_dir(&dir)
        .args(["lock", "--timeout", "10"])
        .env("TOOLGATE_TEST_KEY", TOKEN)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", everything(&o));
    let lock: Value =
        serde_json::from_slice(&std::fs::read(dir.join("toolgate.lock")).unwrap()).unwrap();
    assert_eq!(lock["servers"]["moved"]["tools"][0]["name"], "zeta");
    assert_eq!(
        lock["servers"]["moved"]["reached"],
        json!({"transport": "http", "url": format!("http://127.0.0.1:{port}/mcp"), "headers": ["X-Api-Key"]})
    );
    let seen = seen.lock().unwrap();
    assert!(
        seen.iter()
            .any(|r| r.path == "/v2/mcp" && r.header("x-api-key") == Some(TOKEN))
    );
    // The session the server gave is sent back.
    assert!(
        seen.iter()
            .any(|r| r.header("mcp-session-id") == Some("s-1"))
    );
    assert!(!all_text(&dir).contains(TOKEN));
    assert!(!everything(&o).contains(TOKEN));
}

/// A Streamable HTTP server using what the spec lets it: the initialize answer on an event
/// stream that carries a log notification and a ping first, its id as a numeric string, the
/// stream left open after it; tools/list in two pages (`nextCursor`), the second on an event
/// stream. Every POST accepts both answer types and names its method (`Mcp-Method`), every
/// one after initialize carries the session and the protocol version, the ping is answered,
/// the session is deleted at the end.
fn spec_shapes(request: &Request) -> Answer {
    let message: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let id = &message["id"];
    let stream = |events: &str, open: Duration| {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: s-42\r\nConnection: close\r\n\r\n";
        Answer::Stream(format!("{head}{events}").into_bytes(), open)
    };
    match (request.method.as_str(), message["method"].as_str()) {
        ("DELETE", _) => http("200 OK", &[], ""),
        ("POST", Some("initialize")) => {
            let answer = json!({"jsonrpc": "2.0", "id": id.to_string(), "result": {
                "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "spec-shapes", "version": "1.0.0"}}});
            stream(
                &format!(
                    "event: message\ndata: {}\n\ndata: {}\n\nid: e-3\nevent: message\ndata: {answer}\n\n",
                    json!({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "starting"}}),
                    json!({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}),
                ),
                Duration::from_secs(30),
            )
        }
        ("POST", Some("tools/list")) if message["params"]["cursor"] == "page-2" => {
            let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                {"name": "beta", "inputSchema": {"type": "object"}}]}});
            stream(&format!("data: {answer}\n\n"), Duration::ZERO)
        }
        ("POST", Some("tools/list")) => {
            let answer = json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                {"name": "alpha", "inputSchema": {"type": "object"}}], "nextCursor": "page-2"}});
            http(
                "200 OK",
                &[("Content-Type", "application/json")],
                &answer.to_string(),
            )
        }
        ("POST", _) if id.is_null() || message.get("result").is_some() => {
            http("202 Accepted", &[], "")
        }
        _ => http("400 Bad Request", &[], ""),
    }
}

#[test]
fn a_streamable_server_using_every_shape_the_spec_allows_is_locked() {
    let (port, seen) = server(|r, _| spec_shapes(r));
    let dir = repo_with(
        "lock-http-spec-shapes",
        &format!(
            r#"{{"servers": {{"shapes": {{"type": "http", "url": "http://127.0.0.1:{port}/mcp"}}}}}}"#
        ),
    );
    let started = Instant::now();
    let o = toolgate_in(&dir, &["lock", "--timeout", "10"]);
    assert_eq!(code(&o), 0, "{}", everything(&o));
    // Done at the answer, not when the initialize stream closes (30 s) or the timeout.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let lock: Value =
        serde_json::from_slice(&std::fs::read(dir.join("toolgate.lock")).unwrap()).unwrap();
    let names: Vec<&Value> = lock["servers"]["shapes"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| &t["name"])
        .collect();
    assert_eq!(names, [&json!("alpha"), &json!("beta")], "{lock}");
    let seen = seen.lock().unwrap().clone();
    let body = |r: &Request| serde_json::from_slice::<Value>(&r.body).unwrap_or(Value::Null);
    let posts: Vec<&Request> = seen.iter().filter(|r| r.method == "POST").collect();
    for r in &posts {
        let accept = r.header("accept").unwrap_or_default();
        assert!(
            accept.contains("application/json") && accept.contains("text/event-stream"),
            "{r:?}"
        );
        // SEP-2243: the method mirrored in a header.
        assert_eq!(r.header("mcp-method"), body(r)["method"].as_str(), "{r:?}");
        if body(r)["method"] != "initialize" {
            assert_eq!(r.header("mcp-session-id"), Some("s-42"), "{r:?}");
            assert_eq!(
                r.header("mcp-protocol-version"),
                Some("2025-06-18"),
                "{r:?}"
            );
        }
    }
    let methods: Vec<Value> = posts.iter().map(|r| body(r)["method"].clone()).collect();
    assert!(
        methods.contains(&json!("notifications/initialized")),
        "{methods:?}"
    );
    assert!(
        posts
            .iter()
            .any(|r| body(r)["id"] == "srv-1" && body(r).get("result").is_some()),
        "the ping is answered: {seen:?}"
    );
    assert!(
        seen.iter().any(|r| r.method == "DELETE"
            && r.header("mcp-session-id") == Some("s-42")
            && r.header("mcp-protocol-version") == Some("2025-06-18")),
        "the session is deleted: {seen:?}"
    );
}

/// A legacy HTTP+SSE server (2024-11-05) whose `endpoint` event is relative to the SSE URL's
/// folder (`messages?sessionId=7` from `/mcp/sse`) and whose answers come on the GET stream.
#[test]
fn a_legacy_sse_endpoint_is_resolved_against_the_sse_url() {
    let feed: Arc<Mutex<Option<std::sync::mpsc::Sender<String>>>> = Arc::default();
    let (port, seen) = server(move |r, _| {
        if r.method == "GET" {
            let (tx, rx) = std::sync::mpsc::channel();
            let _ = tx.send("event: endpoint\ndata: messages?sessionId=7\n\n".to_string());
            *feed.lock().unwrap() = Some(tx);
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
            return Answer::Feed(head.as_bytes().to_vec(), rx);
        }
        let message: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        let result = match message["method"].as_str() {
            Some("initialize") => json!({"protocolVersion": "2024-11-05",
                "capabilities": {"tools": {}}, "serverInfo": {"name": "old-sse", "version": "1"}}),
            Some("tools/list") => json!({"tools": [{"name": "zeta", "inputSchema": {}}]}),
            _ => return http("202 Accepted", &[], ""),
        };
        let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
        if let Some(tx) = feed.lock().unwrap().as_ref() {
            let _ = tx.send(format!("event: message\ndata: {answer}\n\n"));
        }
        http("202 Accepted", &[], "")
    });
    let dir = repo_with(
        "lock-sse-relative",
        &format!(
            r#"{{"servers": {{"old": {{"type": "sse", "url": "http://127.0.0.1:{port}/mcp/sse", "headers": {{"X-Api-Key": "${{input:key}}"}}}}}}}}"#
        ),
    );
    let key = format!("key={TOKEN}");
    let o = toolgate_in(&dir, &["lock", "--timeout", "10", "--env", &key]);
    assert_eq!(code(&o), 0, "{}", everything(&o));
    let lock: Value =
        serde_json::from_slice(&std::fs::read(dir.join("toolgate.lock")).unwrap()).unwrap();
    assert_eq!(lock["servers"]["old"]["tools"][0]["name"], "zeta", "{lock}");
    assert_eq!(
        lock["servers"]["old"]["reached"]["transport"], "sse",
        "{lock}"
    );
    let seen = seen.lock().unwrap().clone();
    let posts: Vec<&Request> = seen.iter().filter(|r| r.method == "POST").collect();
    assert!(
        posts.len() >= 3,
        "initialize, initialized, tools/list: {seen:?}"
    );
    for r in &posts {
        assert_eq!(r.path, "/mcp/messages?sessionId=7", "{r:?}");
        assert_eq!(r.header("x-api-key"), Some(TOKEN), "{r:?}");
    }
    assert!(seen.iter().all(|r| r.header("mcp-session-id").is_none()));
    assert!(!everything(&o).contains(TOKEN));
    assert!(!all_text(&dir).contains(TOKEN));
}

/// A JSON-RPC error answering tools/list (HTTP 200, as the spec has it) is the server's error,
/// its message shown, also when it has no id (the server could not read it) and comes on
/// an event stream left open; HTTP 500 with a JSON-RPC error body shows that message too.
#[test]
fn a_json_rpc_error_is_shown_as_the_server_wrote_it() {
    let answer = |r: &Request, status: &'static str| {
        let message: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        if message["method"] != "tools/list" {
            return mcp_json(r);
        }
        let stream = status == "stream";
        let id = if stream {
            Value::Null
        } else {
            message["id"].clone()
        };
        let error = json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32603, "message": "the tool index is rebuilding"}});
        if stream {
            return event_stream(&format!("data: {error}\n\n"), Duration::from_secs(30));
        }
        http(
            status,
            &[("Content-Type", "application/json")],
            &error.to_string(),
        )
    };
    let (ok_port, _) = server(move |r, _| answer(r, "200 OK"));
    let (failing, _) = server(move |r, _| answer(r, "500 Internal Server Error"));
    let (streaming, _) = server(move |r, _| answer(r, "stream"));
    let dir = repo_with(
        "lock-http-jsonrpc-error",
        &format!(
            r#"{{"servers": {{
                "rpc": {{"type": "http", "url": "http://127.0.0.1:{ok_port}/mcp"}},
                "status": {{"type": "http", "url": "http://127.0.0.1:{failing}/mcp"}},
                "no-id": {{"type": "http", "url": "http://127.0.0.1:{streaming}/mcp"}}
            }}}}"#
        ),
    );
    let started = Instant::now();
    let o = toolgate_in(&dir, &["lock", "--timeout", "10"]);
    assert_eq!(code(&o), 2, "{}", everything(&o));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let err = common::stderr(&o);
    let line = |id: &str| {
        err.lines()
            .find(|l| l.starts_with(&format!("error: server `{id}`")))
            .unwrap_or_else(|| panic!("no error for `{id}`: {err}"))
            .to_string()
    };
    for id in ["rpc", "no-id"] {
        let rpc = line(id);
        assert!(rpc.contains("tools/list (page 1) failed"), "{rpc}");
        assert!(rpc.contains("the tool index is rebuilding"), "{rpc}");
    }
    let status = line("status");
    assert!(
        status.contains("HTTP 500 Internal Server Error from POST")
            && status.contains("(tools/list)")
            && status.contains(": the tool index is rebuilding"),
        "{status}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(!dir.join("toolgate.lock").exists());
}

/// `toolgate import --url` reads a live server through the same client.
#[test]
fn import_from_a_url_writes_the_catalog() {
    let (port, seen) = server(|r, _| mcp_json(r));
    let dir = common::scratch("import-url");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let header = format!("Authorization=Bearer {TOKEN}");
    let import = |url: &str, out: &str| {
        toolgate_in(
            &dir,
            &["import", "--url", url, "--header", &header, "--out", out],
        )
    };
    let o = import(&url, "schema/written");
    assert_eq!(code(&o), 0, "{}", everything(&o));
    let tool = std::fs::read_to_string(dir.join("schema/written/tools/zeta.json")).unwrap();
    assert!(tool.contains("\"x-vendor\""), "{tool}");
    assert!(
        common::stderr(&o).contains(&format!("listed 1 tool from {url}")),
        "{}",
        everything(&o)
    );
    let sent = seen.lock().unwrap().clone();
    assert!(
        sent.iter()
            .all(|r| r.header("authorization") == Some(format!("Bearer {TOKEN}").as_str()))
    );
    assert!(!everything(&o).contains(TOKEN));
    assert!(!all_text(&dir).contains(TOKEN));
    // A refusal is exit 2 with nothing written.
    let (refuses, _) = server(|_, _| http("401 Unauthorized", &[], ""));
    let url = format!("http://127.0.0.1:{refuses}/mcp");
    let o = import(&url, "schema/refused");
    assert_eq!(code(&o), 2, "{}", everything(&o));
    let err = common::stderr(&o);
    assert!(err.contains("HTTP 401 Unauthorized from POST"), "{err}");
    assert!(err.contains("headers sent: Authorization"), "{err}");
    assert!(!err.contains("panicked") && !err.contains(TOKEN), "{err}");
    assert!(!dir.join("schema/refused").exists());
    // A key in the URL is neither shown nor written; the URL without it is.
    let keyed = format!("http://127.0.0.1:{port}/mcp?api_key={TOKEN}");
    let o = import(&keyed, "schema/keyed");
    assert_eq!(code(&o), 0, "{}", everything(&o));
    let err = common::stderr(&o);
    assert!(
        err.contains(&format!("listed 1 tool from http://127.0.0.1:{port}/mcp")),
        "{err}"
    );
    assert!(!everything(&o).contains(TOKEN), "{}", everything(&o));
    assert!(!all_text(&dir).contains(TOKEN));
}

// ---------------------------------------------------------------------------------------
// Live servers.

/// A server process, killed when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Waits until something accepts connections on `port` (the server's own announcement
/// differs from one server to the next).
fn wait_for_port(port: u16, who: &mut Running) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    while Instant::now() < deadline {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return;
        }
        if let Ok(Some(status)) = who.0.try_wait() {
            panic!("the server on port {port} exited: {status}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("nothing listens on port {port} after 60 s");
}

/// The npm packages' `node_modules`; `None` (after the skip message) without them.
fn node_modules() -> Option<PathBuf> {
    mcp_support::lock_npm(&["@modelcontextprotocol/server-everything", "@playwright/mcp"])
}

fn node(script: &Path, args: &[&str], port: u16) -> Running {
    let child = Command::new("node")
        .arg(script)
        .args(args)
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("node starts");
    Running(child)
}

/// tests/lock/secure_server.py on `port` (a free one when `None`), its certificates in
/// `certs`; the process and its port.
fn secure_server(python: &Path, certs: &Path, port: Option<u16>, toolset: &str) -> (Running, u16) {
    let mut cmd = Command::new(python);
    cmd.arg(common::repo_root().join("tests/lock/secure_server.py"))
        .arg(certs)
        .env("SECURE_TOKEN", TOKEN)
        .env("SECURE_TOOLSET", toolset)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(p) = port {
        cmd.arg(p.to_string());
    }
    let mut child = cmd.spawn().expect("python starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .strip_prefix("port ")
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("secure_server.py said {line:?}"));
    (Running(child), port)
}

const AGENTS: &str = "# Records

Look a record up with `mcp_records_lookup(query=\"invoices\", limit=5)`, then archive it
with `mcp_records_archive(record_id=\"r-1\")`.

An old page wrote `mcp_records_lookup(q=\"invoices\")`.

Echo over Streamable HTTP: `mcp_evhttp_echo(message=\"hi\")`; over SSE:
`mcp_evsse_echo(text=\"hi\")`.

Open the page with `mcp_pw_browser_navigate(url=\"https://example.com\")`.
";

/// The adoption path over HTTP: four servers over Streamable HTTP (two on npm, one https
/// with a bearer token from a VS Code input), and legacy SSE; locked, linted with no
/// toolgate.toml, checked; then one server's tools change and the check names what breaks.
#[test]
fn lock_lint_and_check_over_every_http_transport() {
    let Some(nm) = node_modules() else { return };
    let Some(python) = python_importing("uvicorn, cryptography, mcp.server.mcpserver") else {
        skip(
            "the MCP Python SDK with uvicorn and cryptography is not installed for TOOLGATE_PYTHON or python3",
        );
        return;
    };
    let certs = common::scratch("lock-live-certs");
    let (mut records, records_port) = secure_server(&python, &certs, None, "full");
    let server_everything = nm.join("@modelcontextprotocol/server-everything/dist/index.js");
    let (pw_port, evh_port, evs_port) = (free_port(), free_port(), free_port());
    let pw_port_text = pw_port.to_string();
    let mut pw = node(
        &nm.join("@playwright/mcp/cli.js"),
        &["--headless", "--port", &pw_port_text],
        pw_port,
    );
    let mut evh = node(&server_everything, &["streamableHttp"], evh_port);
    let mut evs = node(&server_everything, &["sse"], evs_port);
    for (port, who) in [
        (pw_port, &mut pw),
        (evh_port, &mut evh),
        (evs_port, &mut evs),
        (records_port, &mut records),
    ] {
        wait_for_port(port, who);
    }
    let config = format!(
        r#"{{
  // The token is asked for once and kept in VS Code's secret storage.
  "inputs": [{{"type": "promptString", "id": "records-token", "description": "Records API token", "password": true}}],
  "servers": {{
    "records": {{"type": "http", "url": "https://localhost:{records_port}/mcp", "headers": {{"Authorization": "Bearer ${{input:records-token}}"}}}},
    "evhttp": {{"type": "http", "url": "http://127.0.0.1:{evh_port}/mcp"}},
    "evsse": {{"type": "sse", "url": "http://127.0.0.1:{evs_port}/sse"}},
    "pw": {{"type": "http", "url": "http://localhost:{pw_port}/mcp"}},
  }},
}}"#
    );
    let dir = repo_with("lock-live-http", &config);
    std::fs::write(dir.join("AGENTS.md"), AGENTS).unwrap();
    let ca = certs.join("ca.pem");
    let ca = ca.to_str().unwrap();
    let input = format!("records-token={TOKEN}");
    let lock_args = ["lock", "--env", &input, "--ca-cert", ca, "--timeout", "60"];
    let o = toolgate_in(&dir, &lock_args);
    assert_eq!(code(&o), 0, "{}", everything(&o));
    let mut outputs = everything(&o);
    let text = std::fs::read_to_string(dir.join("toolgate.lock")).unwrap();
    let lock: Value = serde_json::from_str(&text).unwrap();
    let servers = lock["servers"].as_object().unwrap();
    assert_eq!(
        servers.keys().collect::<Vec<_>>(),
        ["evhttp", "evsse", "pw", "records"]
    );
    let names = |id: &str| -> Vec<String> {
        servers[id]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(names("evhttp").contains(&"echo".to_string()), "{text}");
    assert_eq!(names("evsse"), names("evhttp"));
    assert!(
        names("pw").contains(&"browser_navigate".to_string()),
        "{text}"
    );
    assert_eq!(names("records"), ["lookup", "archive"]);
    assert_eq!(servers["evsse"]["reached"]["transport"], "sse");
    assert_eq!(
        servers["records"]["reached"],
        json!({"transport": "http", "url": format!("https://localhost:{records_port}/mcp"), "headers": ["Authorization"]})
    );
    for id in ["evhttp", "evsse", "pw", "records"] {
        assert!(servers[id]["protocol_version"].is_string(), "{id}: {text}");
    }
    // Without the certificate authority, https is refused; without the token, 401.
    let o = toolgate_in(
        &dir,
        &["lock", "--check", "--env", &input, "--timeout", "60"],
    );
    assert_eq!(code(&o), 2, "{}", everything(&o));
    assert!(
        common::stderr(&o).contains(
            "error: server `records` (.vscode/mcp.json: servers.records): POST https://localhost"
        ),
        "{}",
        everything(&o)
    );
    assert!(
        common::stderr(&o).contains("invalid peer certificate: UnknownIssuer"),
        "{}",
        everything(&o)
    );
    outputs.push_str(&everything(&o));
    let o = toolgate_in(
        &dir,
        &[
            "lock",
            "--check",
            "--env",
            "records-token=wrong",
            "--ca-cert",
            ca,
        ],
    );
    assert_eq!(code(&o), 2, "{}", everything(&o));
    assert!(
        common::stderr(&o).contains("HTTP 401 Unauthorized from POST"),
        "{}",
        everything(&o)
    );

    // The lint, with no toolgate.toml: calls checked against the locked surfaces.
    let o = toolgate_in(&dir, &["lint", "--format", "concise"]);
    assert_eq!(code(&o), 1, "{}", everything(&o));
    let out = common::stdout(&o);
    let findings: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("AGENTS.md:"))
        .collect();
    assert_eq!(findings.len(), 2, "{out}");
    assert!(
        findings[0].starts_with("AGENTS.md:6:") && findings[0].contains("unknown-field"),
        "{out}"
    );
    assert!(
        findings[1].starts_with("AGENTS.md:9:") && findings[1].contains("unknown-field"),
        "{out}"
    );
    outputs.push_str(&everything(&o));

    let check = [
        "lock",
        "--check",
        "--env",
        &input,
        "--ca-cert",
        ca,
        "--timeout",
        "60",
    ];
    let o = toolgate_in(&dir, &check);
    assert_eq!(code(&o), 0, "{}", everything(&o));
    assert!(
        common::stderr(&o).contains("every server is as locked"),
        "{}",
        everything(&o)
    );
    outputs.push_str(&everything(&o));

    // The records server loses `archive`: the check names the tool and the line it breaks.
    drop(records);
    let (mut records, _) = secure_server(&python, &certs, Some(records_port), "smaller");
    wait_for_port(records_port, &mut records);
    let o = toolgate_in(&dir, &check);
    assert_eq!(code(&o), 1, "{}", everything(&o));
    let out = common::stdout(&o);
    assert!(
        out.contains("server `records` (changed): bump major"),
        "{out}"
    );
    assert!(
        out.contains("tool-removed") && out.contains("archive"),
        "{out}"
    );
    assert!(out.contains("breaks AGENTS.md:4:"), "{out}");
    assert!(
        !out.contains("server `evhttp`") && !out.contains("server `pw`"),
        "{out}"
    );
    outputs.push_str(&everything(&o));

    // --update writes the new surface; then every server is as locked again.
    let update = [
        "lock",
        "--update",
        "records",
        "--env",
        &input,
        "--ca-cert",
        ca,
    ];
    let o = toolgate_in(&dir, &update);
    assert_eq!(code(&o), 0, "{}", everything(&o));
    outputs.push_str(&everything(&o));
    let o = toolgate_in(&dir, &check);
    assert_eq!(code(&o), 0, "{}", everything(&o));
    outputs.push_str(&everything(&o));
    let lock: Value =
        serde_json::from_slice(&std::fs::read(dir.join("toolgate.lock")).unwrap()).unwrap();
    assert_eq!(
        lock["servers"]["records"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // import --url reads the same servers with the same client: legacy SSE, and https with
    // the token and the certificate authority.
    let sse = format!("http://127.0.0.1:{evs_port}/sse");
    let o = toolgate_in(
        &dir,
        &[
            "import",
            "--url",
            &sse,
            "--sse",
            "--out",
            "schema/everything",
        ],
    );
    assert_eq!(code(&o), 0, "{}", everything(&o));
    assert!(dir.join("schema/everything/tools/echo.json").is_file());
    let https = format!("https://localhost:{records_port}/mcp");
    let header = format!("Authorization=Bearer {TOKEN}");
    let o = toolgate_in(
        &dir,
        &[
            "import",
            "--url",
            &https,
            "--header",
            &header,
            "--ca-cert",
            ca,
            "--out",
            "schema/records",
        ],
    );
    assert_eq!(code(&o), 0, "{}", everything(&o));
    assert!(dir.join("schema/records/tools/lookup.json").is_file());
    outputs.push_str(&everything(&o));

    // The token is in no file toolgate wrote and in none of its output.
    assert!(!outputs.contains(TOKEN), "{outputs}");
    assert!(!all_text(&dir).contains(TOKEN));
    assert!(
        text.contains("${input:records-token}") || !text.contains("Bearer"),
        "{text}"
    );
}
