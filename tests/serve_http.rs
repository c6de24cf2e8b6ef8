//! `toolgate serve --http`: MCP Streamable HTTP end to end, bound to 127.0.0.1 only.
//!
//! - `http_door`: a raw HTTP/1.1 client (`tests/mcp_support/http.rs`; always runs): DNS-rebinding
//!   protection (Host 421, Origin 403), the path, -32700 / -32600 as JSON-RPC bodies, the
//!   session header, a second `initialize` refused, the protocol-version header checked.
//! - `tokens_map_bearers_to_profiles`: `--tokens`: 401 with `WWW-Authenticate` without a
//!   valid token, a session pinned to its token, start-up errors (exit 2).
//! - `sigterm_ends_stdio_and_http_within_5_s`: graceful shutdown, exit 0.
//! - `official_python_sdk_over_http`: the official MCP Python SDK's Streamable HTTP client
//!   (`tests/mcp/http_client.py`): 18 tools for implement, a valid `task_note` call, 50
//!   concurrent sessions; 16 and 13 tools through two tokens, 401 without; stateless mode.
//!   Skips without the SDK unless `TOOLGATE_REQUIRE_E2E=1`.

mod common;
mod mcp_support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_support::http::{HttpServer, HttpSession, initialize_body, post, send, sigterm};
use mcp_support::{
    AUTHORED_SHAPES, RawClient, as_python_sdk_keeps, authored_shapes, example, python_importing,
    served_names, skip, surface,
};
use serde_json::{Value, json};

#[test]
fn http_door() {
    let server = HttpServer::start(&["--catalog", "tatara", "--profile", "implement"]);
    let port = server.port;
    let init = initialize_body(1);

    // DNS rebinding: a foreign Host or Origin is never answered 200.
    let r = send(port, "POST", &[("Host", "evil.example.com")], &init);
    assert_eq!(r.status, 421, "{}", r.body);
    let r = send(port, "POST", &[("Host", "evil.example.com:80")], &init);
    assert_eq!(r.status, 421);
    let r = send(
        port,
        "POST",
        &[("Origin", "http://evil.example.com")],
        &init,
    );
    assert_eq!(r.status, 403, "{}", r.body);
    let r = send(port, "GET", &[("Origin", "http://evil.example.com")], b"");
    assert_eq!(r.status, 403);
    // The bound address's own origin, and localhost, are accepted.
    let own = format!("http://127.0.0.1:{port}");
    let r = send(port, "POST", &[("Origin", &own)], &init);
    assert_eq!(r.status, 200, "{}", r.body);
    let localhost = format!("localhost:{port}");
    let r = send(port, "POST", &[("Host", &localhost)], &init);
    assert_eq!(r.status, 200, "{}", r.body);

    // Garbage: JSON-RPC errors in a 400, without an id where none reads.
    for (body, code) in [
        (&b"not json"[..], -32700),
        (b"\xff\xfe", -32700),
        (b"", -32700),
        (
            b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
            -32600,
        ),
        (b"{\"hello\": 1}", -32600),
    ] {
        let r = send(port, "POST", &[], body);
        assert_eq!(r.status, 400, "{body:?}: {}", r.body);
        let m = r.message();
        assert_eq!(m["error"]["code"], code, "{m}");
        assert!(m.get("id").is_none(), "{m}");
    }
    // Past the size limit: 413.
    let big = vec![b' '; (16 << 20) + 1];
    assert_eq!(send(port, "POST", &[], &big).status, 413);

    // A session: initialize gives its id; the version header is checked; a second
    // initialize is refused; the session lists the profile's tools; DELETE ends it.
    let r = send(port, "POST", &[], &init);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.message()["result"]["protocolVersion"], "2025-11-25");
    let sid = r
        .header("mcp-session-id")
        .expect("a session id")
        .to_string();
    let session = [
        ("Mcp-Session-Id", sid.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let r = post(
        port,
        &session,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let r = send(port, "POST", &session, &initialize_body(2));
    assert_eq!(r.message()["error"]["code"], -32600, "{}", r.body);
    let r = post(
        port,
        &session,
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
    );
    let tools = r.message()["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, served_names(&surface("tatara"), "implement"));
    assert_eq!(names.len(), 18);
    let r = post(
        port,
        &session,
        &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "code_searcher"}}),
    );
    assert_eq!(r.message()["error"]["code"], -32602, "{}", r.body);
    let r = post(
        port,
        &session,
        &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": 5}}),
    );
    assert_eq!(r.message()["error"]["code"], -32602, "{}", r.body);
    let bad_version = [
        ("Mcp-Session-Id", sid.as_str()),
        ("MCP-Protocol-Version", "1999-01-01"),
    ];
    let r = post(
        port,
        &bad_version,
        &json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(send(port, "DELETE", &session, b"").status, 202);
    let r = post(
        port,
        &session,
        &json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
    );
    assert_eq!(r.status, 404, "{}", r.body);
    // Only /mcp.
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .write_all(
            format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .expect("write");
    let mut raw = String::new();
    let _ = stream.read_to_string(&mut raw);
    assert!(raw.starts_with("HTTP/1.1 404"), "{raw}");

    let (status, took, stderr) = server.terminate();
    assert!(status.success(), "{status:?} {stderr}");
    assert!(took < Duration::from_secs(5));
    // Nothing per request on stderr by default.
    assert!(!stderr.contains("tools/"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn tokens_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = common::scratch(name);
    let path = dir.join("tokens.toml");
    std::fs::write(&path, text).expect("write tokens");
    path
}

/// The lower-case hex SHA-256 of `s`, through `sha256sum`.
fn sha256_hex(s: &str) -> String {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sha256sum runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(s.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("sha256sum");
    String::from_utf8_lossy(&out.stdout)[..64].to_string()
}

/// A tokens file: `tok-review` for review, refine's token by its hash only.
fn review_refine_tokens() -> std::path::PathBuf {
    tokens_file(
        "serve-http-tokens",
        &format!(
            "[tokens]\n\"tok-review-1\" = \"review\"\n\"sha256:{}\" = \"refine\"\n",
            sha256_hex("tok-refine-2")
        ),
    )
}

#[test]
fn tokens_map_bearers_to_profiles() {
    let path = review_refine_tokens();
    let server = HttpServer::start(&[
        "--catalog",
        "tatara",
        "--tokens",
        path.to_str().expect("utf-8 path"),
    ]);
    let port = server.port;
    let init = initialize_body(1);
    // No token, a wrong one, another scheme: 401 with a challenge.
    for auth in [
        None,
        Some("Bearer nope"),
        Some("Basic dG9rLXJldmlldy0x"),
        Some("Bearer "),
    ] {
        let headers: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
        let r = send(port, "POST", &headers, &init);
        assert_eq!(r.status, 401, "{auth:?}");
        assert!(
            r.header("www-authenticate")
                .is_some_and(|v| v.starts_with("Bearer")),
            "{auth:?}"
        );
    }
    // Each token its profile's tools.
    for (token, count) in [("tok-review-1", 16), ("tok-refine-2", 13)] {
        let bearer = format!("Bearer {token}");
        let r = send(port, "POST", &[("Authorization", &bearer)], &init);
        assert_eq!(r.status, 200, "{}", r.body);
        let sid = r.header("mcp-session-id").expect("session").to_string();
        let headers = [
            ("Authorization", bearer.as_str()),
            ("Mcp-Session-Id", sid.as_str()),
        ];
        let r = post(
            port,
            &headers,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        );
        let n = r.message()["result"]["tools"].as_array().map(Vec::len);
        assert_eq!(n, Some(count), "{token}: {}", r.body);
        // The session is pinned to its token: the other one is refused.
        let other = if token == "tok-review-1" {
            "Bearer tok-refine-2"
        } else {
            "Bearer tok-review-1"
        };
        let r = post(
            port,
            &[("Authorization", other), ("Mcp-Session-Id", &sid)],
            &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        );
        assert_eq!(r.status, 403, "{}", r.body);
    }
    let (status, _, stderr) = server.terminate();
    assert!(status.success(), "{stderr}");
    assert!(!stderr.contains("tok-re"), "a token on stderr: {stderr}");

    // Start-up errors: a token to an unknown profile, --profile with --tokens.
    let bad = tokens_file(
        "serve-http-bad-tokens",
        "[tokens]\n\"tok-x\" = \"reviewer\"\n",
    );
    let bad = bad.to_str().expect("utf-8");
    let out = common::run(&[
        "serve",
        "--catalog",
        "tatara",
        "--tokens",
        bad,
        "--http",
        "127.0.0.1:0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    assert!(err.contains("reviewer"), "{err}");
    assert!(!err.contains("tok-x"), "{err}");
    let path = path.to_str().expect("utf-8");
    let out = common::run(&[
        "serve",
        "--catalog",
        "tatara",
        "--profile",
        "review",
        "--tokens",
        path,
        "--http",
        "127.0.0.1:0",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        common::stderr(&out).contains("cannot be used with"),
        "{}",
        common::stderr(&out)
    );
    let out = common::run(&["serve", "--catalog", "tatara", "--tokens", path]);
    assert_eq!(out.status.code(), Some(2), "--tokens without --http");
}

#[test]
fn sigterm_ends_stdio_and_http_within_5_s() {
    // stdio, mid-session.
    let mut c = RawClient::start(&["--catalog", "tatara", "--profile", "refine"], &[]);
    assert_eq!(c.list().as_array().map(Vec::len), Some(13));
    let started = Instant::now();
    sigterm(c.pid());
    let (status, stderr) = c.close();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(started.elapsed() < Duration::from_secs(5));

    // HTTP, with a session and its open GET stream.
    let server = HttpServer::start(&["--catalog", "tatara", "--profile", "implement"]);
    let port = server.port;
    let r = send(port, "POST", &[], &initialize_body(1));
    let sid = r.header("mcp-session-id").expect("session").to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    stream
        .write_all(
            format!(
                "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
            )
            .as_bytes(),
        )
        .expect("write");
    std::thread::sleep(Duration::from_millis(200));
    let (status, took, stderr) = server.terminate();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

// ---------------------------------------------------------------------------------------
// The official Python SDK.

/// Runs `tests/mcp/http_client.py` with `plan`: its results.
fn run_http_client(python: &std::path::Path, plan: &Value) -> Value {
    // Tests run in parallel: each run has its own folder.
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = common::scratch(&format!("serve-http-python-{run}"));
    let plan_path = dir.join("plan.json");
    let results_path = dir.join("results.json");
    std::fs::write(&plan_path, plan.to_string()).expect("plan");
    let out = Command::new(python)
        .arg(common::repo_root().join("tests/mcp/http_client.py"))
        .arg(&plan_path)
        .arg(&results_path)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "http_client.py failed: {}\n{}",
        common::stdout(&out),
        common::stderr(&out)
    );
    serde_json::from_str(&std::fs::read_to_string(&results_path).expect("results"))
        .expect("results are JSON")
}

#[test]
fn official_python_sdk_over_http() {
    let Some(python) = python_importing("mcp.client.streamable_http") else {
        return skip(
            "the MCP Python SDK (PyPI `mcp`) is not installed for TOOLGATE_PYTHON or python3",
        );
    };
    let s = surface("tatara");
    let resolved = s.resolve("implement");
    let note = s
        .served(&resolved)
        .into_iter()
        .find(|x| x.tool.name == "task_note")
        .expect("implement has task_note");
    let note_args = example(&note.entry.input_schema, true);

    for stateless in [false, true] {
        let mut args = vec!["--catalog", "tatara", "--profile", "implement"];
        if stateless {
            args.push("--stateless");
        }
        let server = HttpServer::start(&args);
        let plan = json!({"url": server.url(), "clients": [
            {"name": "implement", "steps": [
                {"op": "list"},
                {"op": "call", "tool": "task_note", "arguments": note_args},
                {"op": "call", "tool": "code_searcher", "arguments": {}},
            ]},
            {"name": "auto", "mode": "auto", "steps": [
                {"op": "list"},
                {"op": "call", "tool": "task_note", "arguments": note_args},
            ]},
            {"name": "concurrent", "concurrent": 50, "steps": [
                {"op": "list"},
                {"op": "call", "tool": "task_note", "arguments": note_args},
            ]},
        ]});
        let results = run_http_client(&python, &plan);
        let implement = &results["clients"][0];
        assert!(implement.get("exception").is_none(), "{implement}");
        let steps = &implement["sessions"][0]["steps"];
        assert_eq!(
            steps[0]["tools"].as_array().map(Vec::len),
            Some(18),
            "{steps}"
        );
        assert_eq!(steps[1]["result"]["isError"], false, "{steps}");
        assert_eq!(steps[1]["result"]["structuredContent"]["tool"], "task_note");
        assert_eq!(steps[2]["error"]["code"], -32602, "{steps}");
        // The 2026-07-28 revision (server/discover, no session) where the SDK probes for it.
        let auto = &results["clients"][1]["sessions"][0];
        assert!(auto.get("exception").is_none(), "{auto}");
        assert_eq!(auto["protocol_version"], "2026-07-28", "{auto}");
        assert_eq!(auto["steps"][0]["tools"].as_array().map(Vec::len), Some(18));
        assert_eq!(auto["steps"][1]["result"]["isError"], false, "{auto}");
        let concurrent = &results["clients"][2];
        let sessions = concurrent["sessions"].as_array().expect("sessions");
        assert_eq!(sessions.len(), 50);
        for session in sessions {
            assert!(session.get("exception").is_none(), "{session}");
            assert_eq!(
                session["steps"][0]["tools"].as_array().map(Vec::len),
                Some(18)
            );
            assert_eq!(session["steps"][1]["result"]["isError"], false, "{session}");
        }
        eprintln!(
            "mcp {} over HTTP (stateless: {stateless}): protocol {}, 50 concurrent sessions in {} ms",
            results["sdk_version"],
            implement["sessions"][0]["protocol_version"],
            concurrent["elapsed_ms"]
        );
        let (status, _, stderr) = server.terminate();
        assert!(status.success(), "{stderr}");
    }

    // Tokens: review 16 tools, refine 13, and no or a wrong token refused with 401.
    let path = review_refine_tokens();
    let server = HttpServer::start(&[
        "--catalog",
        "tatara",
        "--tokens",
        path.to_str().expect("utf-8"),
    ]);
    let plan = json!({"url": server.url(), "clients": [
        {"name": "review", "token": "tok-review-1", "steps": [{"op": "list"}]},
        {"name": "refine", "token": "tok-refine-2", "steps": [{"op": "list"}]},
        {"name": "none", "steps": [{"op": "list"}]},
        {"name": "wrong", "token": "tok-wrong", "steps": [{"op": "list"}]},
    ]});
    let results = run_http_client(&python, &plan);
    let count = |i: usize| {
        results["clients"][i]["sessions"][0]["steps"][0]["tools"]
            .as_array()
            .map(Vec::len)
    };
    assert_eq!(count(0), Some(16), "{results}");
    assert_eq!(count(1), Some(13), "{results}");
    for i in [2, 3] {
        let session = &results["clients"][i]["sessions"][0];
        assert!(session.get("exception").is_some(), "client {i}: {session}");
        assert_eq!(
            session["http_statuses"],
            json!([401]),
            "client {i}: {session}"
        );
    }
    let (status, _, stderr) = server.terminate();
    assert!(status.success(), "{stderr}");
}

/// `execution` and annotation keys outside MCP's list (what rmcp's `Tool` does not hold)
/// reach an HTTP client as the catalog writes them: in a session's event stream (read raw
/// here) and, through the official Python SDK, in both protocol eras and in the stateless
/// mode's JSON answers.
#[test]
fn tools_are_sent_as_authored_over_http() {
    let tools = authored_shapes();
    let python = python_importing("mcp.client.streamable_http");
    for stateless in [false, true] {
        let mut args = vec!["--catalog", AUTHORED_SHAPES, "--profile", "all"];
        if stateless {
            args.push("--stateless");
        }
        let server = HttpServer::start(&args);
        if !stateless {
            let mut session = HttpSession::open(server.port, "unused");
            let listed = session.request("tools/list", json!({}));
            assert_eq!(listed["result"]["tools"], tools, "{listed}");
        }
        if let Some(python) = &python {
            let plan = json!({"url": server.url(), "clients": [
                {"name": "legacy", "mode": "legacy", "steps": [{"op": "list"}]},
                {"name": "auto", "mode": "auto", "steps": [{"op": "list"}]},
            ]});
            let results = run_http_client(python, &plan);
            let kept = as_python_sdk_keeps(&tools);
            for client in results["clients"].as_array().expect("clients") {
                let session = &client["sessions"][0];
                assert_eq!(session["steps"][0]["tools"], kept, "{session}");
            }
        }
        let (status, _, stderr) = server.terminate();
        assert!(status.success(), "{stderr}");
    }
    if python.is_none() {
        skip("the MCP Python SDK (PyPI `mcp`) is not installed for TOOLGATE_PYTHON or python3");
    }
}
