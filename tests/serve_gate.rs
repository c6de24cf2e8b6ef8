//! `toolgate serve --upstream`: the gate in front of a real third-party MCP server, PyPI
//! `mcp-server-time` (pinned in tests/mcp/requirements.txt, installed by `.ci/run` into
//! target/e2e/venv; `TOOLGATE_PYTHON` names that venv's python).
//!
//! Its surface is captured here (initialize + tools/list over its stdio) and imported with
//! `toolgate import` into profiles `full` (both tools) and `limited` (`get_current_time`
//! only, `timezone` restricted to `UTC` by the matrix's `restrictions`).
//!
//! - `limited_lists_one_tool_and_refuses_without_forwarding`
//! - `full_forwards_convert_time`
//! - `a_tool_the_upstream_lacks_or_a_changed_description_is_drift`
//! - `a_killed_upstream_is_a_tool_error_then_restarted`
//! - `the_gate_over_http_with_tokens_in_front_of_a_stdio_upstream` (and a second gate in
//!   front of it over `--upstream-url`: the client's token is not what reaches the upstream)
//! - `progress_cancellation_client_requests_prompts_and_list_changed_pass_through` and
//!   `a_hung_upstream_times_out_then_restarts`: against tests/mcp/gate_upstream.py, a fixture
//!   on the MCP Python SDK (progress, cancellation, sampling, elicitation, roots, prompts,
//!   resources, a tool that changes its own description)
//! - `the_gate_serves_a_hosts_schemas_and_decodes_its_calls`: `--host openai-strict` and
//!   `--host gemini-schema` in front of tests/mcp/host_upstream.py (an optional integer, a
//!   nullable string, a free-form object): tools/list is `stacks::adapt`'s equivalent, a call
//!   in the rewritten form is forwarded as the authored call, one the authored schema refuses
//!   is refused
//! - `gate_overhead` (ignored): the benchmark of scripts/bench-gate.sh
//!
//! Each skips with a message when the python or the package is missing, unless
//! `TOOLGATE_REQUIRE_E2E=1`. Every server binds 127.0.0.1; every wait is bounded.

mod common;
mod mcp_support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_support::http::{self, HttpServer, HttpSession};
use mcp_support::line::LineClient;
use mcp_support::{RawClient, python_importing, skip};
use serde_json::{Value, json};

/// The python with `mcp_server_time`; `None` (after the skip message) without it.
fn python() -> Option<PathBuf> {
    let python = python_importing("mcp_server_time");
    if python.is_none() {
        skip("PyPI `mcp-server-time` is not installed for TOOLGATE_PYTHON or python3");
    }
    python
}

/// The upstream command line: the time server with a fixed local zone, so its descriptions
/// (which name the local zone) are the same on every machine.
fn upstream(python: &Path) -> String {
    format!(
        "{} -m mcp_server_time --local-timezone UTC",
        shlex::try_quote(&python.to_string_lossy()).expect("a path without NUL")
    )
}

/// One initialize + tools/list exchange with the real server: its `tools/list` response.
fn capture(python: &Path) -> Value {
    capture_of(
        python,
        &["-m", "mcp_server_time", "--local-timezone", "UTC"],
    )
}

/// One initialize + tools/list exchange with `python ARGS`: its `tools/list` response.
fn capture_of(python: &Path, args: &[&str]) -> Value {
    let mut child = Command::new(python)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the time server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let send = |stdin: &mut std::process::ChildStdin, v: Value| {
        writeln!(stdin, "{v}").expect("write");
    };
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "toolgate-tests", "version": "0"}}}),
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    );
    let mut found = None;
    for _ in 0..20 {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        if let Ok(v) = serde_json::from_str::<Value>(&line)
            && v["id"] == json!(1)
        {
            found = Some(v);
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    found.expect("the server answered tools/list")
}

/// The `time` catalog: imported from the captures, then `limited` restricted to UTC.
fn time_catalog(python: &Path, name: &str) -> PathBuf {
    let dir = common::scratch(name);
    let full = capture(python);
    let mut limited = full.clone();
    limited["result"]["tools"]
        .as_array_mut()
        .expect("tools")
        .retain(|t| t["name"] == "get_current_time");
    std::fs::write(dir.join("full.json"), full.to_string()).expect("write");
    std::fs::write(dir.join("limited.json"), limited.to_string()).expect("write");
    let out = dir.join("time");
    let o = common::run(&[
        "import",
        "--out",
        out.to_str().expect("utf-8"),
        "--profile-env",
        "TIME_PROFILE",
        "--profile",
        &format!("full={}", dir.join("full.json").display()),
        "--profile",
        &format!("limited={}", dir.join("limited.json").display()),
    ]);
    assert!(o.status.success(), "import: {}", common::stderr(&o));
    let matrix_path = out.join("profiles.json");
    let mut matrix: Value =
        serde_json::from_slice(&std::fs::read(&matrix_path).expect("read")).expect("JSON");
    matrix["restrictions"] = json!({"get_current_time": {"limited": {"timezone": ["UTC"]}}});
    std::fs::write(
        &matrix_path,
        serde_json::to_string_pretty(&matrix).expect("json"),
    )
    .expect("write");
    let o = common::run(&["check", "--catalog", out.to_str().expect("utf-8")]);
    assert!(o.status.success(), "check: {}", common::stderr(&o));
    out
}

fn gate(catalog: &Path, profile: &str, upstream: &str, extra: &[&str]) -> RawClient {
    let mut args = vec![
        "--catalog",
        catalog.to_str().expect("utf-8"),
        "--profile",
        profile,
        "--upstream",
        upstream,
    ];
    args.extend_from_slice(extra);
    RawClient::start(&args, &[])
}

/// Starts the gate for `profile` of `catalog` in front of the time server, expecting it to
/// refuse to start (exit 2); its stderr, for what it says why.
fn refused_at_start(catalog: &Path, profile: &str, python: &Path) -> String {
    let o = common::run(&[
        "serve",
        "--catalog",
        catalog.to_str().expect("utf-8"),
        "--profile",
        profile,
        "--upstream",
        &upstream(python),
    ]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    err
}

fn is_error(response: &Value) -> bool {
    response["result"]["isError"] == json!(true)
}

fn text(response: &Value) -> String {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn audit_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("an audit line is JSON"))
        .collect()
}

#[test]
fn limited_lists_one_tool_and_refuses_without_forwarding() {
    let Some(python) = python() else { return };
    let catalog = time_catalog(&python, "gate-limited");
    let audit = catalog.with_file_name("audit.jsonl");
    let mut client = gate(
        &catalog,
        "limited",
        &upstream(&python),
        &["--audit", audit.to_str().expect("utf-8")],
    );

    let tools = client.list();
    let names: Vec<&str> = tools
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["get_current_time"]);
    assert_eq!(
        tools[0]["inputSchema"]["properties"]["timezone"]["enum"],
        json!(["UTC"])
    );

    // The real server's answer, passed back as it came.
    let r = client.call("get_current_time", &json!({"timezone": "UTC"}));
    assert!(!is_error(&r), "{r}");
    let structured = &r["result"]["structuredContent"];
    assert_eq!(structured["timezone"], "UTC", "{r}");
    let datetime = structured["datetime"].as_str().expect("a datetime");
    assert!(datetime.ends_with("+00:00"), "{datetime}");
    let year: i32 = datetime[..4].parse().expect("a year");
    assert!(year >= 2025, "{datetime}");
    assert!(text(&r).contains("\"day_of_week\""), "{r}");

    // Refused by the gate, naming the field.
    let r = client.call("get_current_time", &json!({"timezone": "Europe/Paris"}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("`timezone`"), "{r}");
    let r = client.call("get_current_time", &json!({"timezone": 7}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("`timezone` must be a string"), "{r}");
    let r = client.call("get_current_time", &json!({}));
    assert!(is_error(&r), "{r}");

    // Ungranted is unknown: the same answer as a tool that exists nowhere.
    let ungranted = client.call(
        "convert_time",
        &json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
    );
    let nowhere = client.call("no_such_tool", &json!({}));
    assert_eq!(ungranted["error"]["code"], json!(-32602), "{ungranted}");
    assert_eq!(
        ungranted["error"]["message"]
            .as_str()
            .map(|m| m.replace("convert_time", "X")),
        nowhere["error"]["message"]
            .as_str()
            .map(|m| m.replace("no_such_tool", "X")),
    );

    let (status, stderr) = client.close();
    assert!(status.success(), "{stderr}");

    // One call reached the upstream; the others were refused before it, and no argument
    // value is in the audit (no --audit-args).
    let lines = audit_lines(&audit);
    let outcomes: Vec<(&str, &str)> = lines
        .iter()
        .map(|l| {
            (
                l["tool"].as_str().unwrap_or_default(),
                l["outcome"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("get_current_time", "forwarded"),
            ("get_current_time", "refused"),
            ("get_current_time", "refused"),
            ("get_current_time", "refused"),
            ("convert_time", "refused"),
            ("no_such_tool", "refused"),
        ],
        "{lines:?}"
    );
    for l in &lines {
        assert_eq!(l["profile"], "limited");
        assert!(l["session"].as_u64().is_some());
        assert!(l["time"].as_str().is_some_and(|t| t.ends_with('Z')));
        assert!(l["duration_ms"].as_f64().is_some());
        assert!(l.get("arguments").is_none(), "{l}");
    }
    let all = std::fs::read_to_string(&audit).expect("audit");
    assert!(!all.contains("Europe/Paris"), "{all}");
    assert_eq!(lines[1]["reason"], "invalid arguments: timezone");
    assert_eq!(lines[4]["reason"], "unknown tool");
}

#[test]
fn full_forwards_convert_time() {
    let Some(python) = python() else { return };
    let catalog = time_catalog(&python, "gate-full");
    let audit = catalog.with_file_name("audit.jsonl");
    let mut client = gate(
        &catalog,
        "full",
        &upstream(&python),
        &["--audit", audit.to_str().expect("utf-8"), "--audit-args"],
    );
    assert_eq!(client.list().as_array().map(Vec::len), Some(2));
    let arguments =
        json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"});
    let r = client.call("convert_time", &arguments);
    assert!(!is_error(&r), "{r}");
    let target = &r["result"]["structuredContent"]["target"];
    assert_eq!(target["timezone"], "Asia/Tokyo");
    assert!(
        target["datetime"]
            .as_str()
            .is_some_and(|d| d.contains("T21:00:00+09:00")),
        "{r}"
    );
    assert_eq!(r["result"]["structuredContent"]["time_difference"], "+9.0h");
    // The upstream's own tool error comes back as it came.
    let r = client.call("get_current_time", &json!({"timezone": "Mars/Olympus"}));
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("Invalid timezone"), "{r}");
    let (status, stderr) = client.close();
    assert!(status.success(), "{stderr}");
    let lines = audit_lines(&audit);
    assert_eq!(lines[0]["arguments"], arguments, "{lines:?}");
    assert_eq!(lines[0]["outcome"], "forwarded");
    assert_eq!(lines[1]["isError"], json!(true));
}

#[test]
fn a_tool_the_upstream_lacks_or_a_changed_description_is_drift() {
    let Some(python) = python() else { return };
    let catalog = time_catalog(&python, "gate-drift");
    // A granted tool the upstream does not have.
    let moon = json!({
        "name": "get_moon_phase", "group": "all", "description": "The moon's phase.",
        "inputSchema": {"type": "object", "properties": {}}
    });
    std::fs::write(
        catalog.join("tools/get_moon_phase.json"),
        serde_json::to_string_pretty(&moon).expect("json"),
    )
    .expect("write");
    let err = refused_at_start(&catalog, "limited", &python);
    assert!(
        err.contains("drift: `get_moon_phase`: the upstream server has no such tool"),
        "{err}"
    );

    // A changed description (how a rug pull arrives) is drift too; --allow-drift serves the
    // rest, without the drifted tools.
    std::fs::remove_file(catalog.join("tools/get_moon_phase.json")).expect("rm");
    let path = catalog.join("tools/convert_time.json");
    let mut tool: Value = serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("j");
    tool["description"] = json!("Convert time between time zones");
    std::fs::write(&path, serde_json::to_string_pretty(&tool).expect("json")).expect("write");
    let err = refused_at_start(&catalog, "full", &python);
    assert!(
        err.contains("drift: `convert_time`: description: the catalog has \"Convert time between time zones\", the upstream \"Convert time between timezones\""),
        "{err}"
    );
    let mut client = gate(&catalog, "full", &upstream(&python), &["--allow-drift"]);
    let names: Vec<String> = client
        .list()
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    assert_eq!(names, ["get_current_time"]);
    let r = client.call(
        "convert_time",
        &json!({"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}),
    );
    assert_eq!(r["error"]["code"], json!(-32602), "{r}");
    let (_, stderr) = client.close();
    assert!(
        stderr.contains("warning: drift: `convert_time`"),
        "{stderr}"
    );

    // A catalog whose group adds parameters is not a gate catalog.
    let mut matrix: Value =
        serde_json::from_slice(&std::fs::read(catalog.join("profiles.json")).expect("r"))
            .expect("json");
    matrix["parameters"] = json!({"token": {"required": true, "schema": {"type": "string"}}});
    matrix["groups"]["all"]["add_parameters"] = json!(["token"]);
    std::fs::write(
        catalog.join("profiles.json"),
        serde_json::to_string_pretty(&matrix).expect("json"),
    )
    .expect("write");
    let err = refused_at_start(&catalog, "full", &python);
    assert!(err.contains("group `all` adds parameters (token)"), "{err}");
}

#[test]
fn a_killed_upstream_is_a_tool_error_then_restarted() {
    let Some(python) = python() else { return };
    let catalog = time_catalog(&python, "gate-restart");
    let pid_file = catalog.with_file_name("upstream.pid");
    // The upstream writes its pid, then becomes the time server (same process).
    let wrapper = format!(
        "sh -c {}",
        shlex::try_quote(&format!(
            "echo $$ > {}; exec {}",
            pid_file.display(),
            upstream(&python)
        ))
        .expect("quotable")
    );
    let mut client = gate(&catalog, "full", &wrapper, &["--upstream-timeout", "20"]);
    let utc = json!({"timezone": "UTC"});
    let r = client.call("get_current_time", &utc);
    assert!(!is_error(&r), "{r}");
    let first = std::fs::read_to_string(&pid_file).expect("the pid");
    let killed = Command::new("kill")
        .args(["-KILL", first.trim()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    // Bounded: the process is gone within 5 s.
    let deadline = Instant::now() + Duration::from_secs(5);
    let alive = |pid: &str| {
        std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|s| {
            !s.lines()
                .any(|l| l.starts_with("State:") && l.contains('Z'))
        })
    };
    while alive(first.trim()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }

    let r = client.call("get_current_time", &utc);
    assert!(is_error(&r), "{r}");
    assert!(text(&r).contains("started again on the next call"), "{r}");

    let r = client.call("get_current_time", &utc);
    assert!(!is_error(&r), "{r}");
    assert_eq!(r["result"]["structuredContent"]["timezone"], "UTC");
    let second = std::fs::read_to_string(&pid_file).expect("the pid");
    assert_ne!(first, second, "a new upstream process");
    let (status, stderr) = client.close();
    assert!(status.success(), "{stderr}");
}

/// The fixture upstream (tests/mcp/gate_upstream.py) and its catalog, imported as one
/// profile `all`.
fn fixture(python: &Path, name: &str) -> (String, PathBuf) {
    fixture_of(python, "tests/mcp/gate_upstream.py", name)
}

/// The upstream `python SCRIPT` and its catalog, imported as one profile `all`.
fn fixture_of(python: &Path, script: &str, name: &str) -> (String, PathBuf) {
    let script = common::repo_root().join(script);
    let script = script.to_str().expect("utf-8");
    let dir = common::scratch(name);
    std::fs::write(
        dir.join("all.json"),
        capture_of(python, &[script]).to_string(),
    )
    .expect("write");
    let out = dir.join("fixture");
    let o = common::run(&[
        "import",
        "--out",
        out.to_str().expect("utf-8"),
        "--profile",
        &format!("all={}", dir.join("all.json").display()),
    ]);
    assert!(o.status.success(), "import: {}", common::stderr(&o));
    let command = format!(
        "{} {}",
        shlex::try_quote(&python.to_string_lossy()).expect("quotable"),
        shlex::try_quote(script).expect("quotable")
    );
    (command, out)
}

#[test]
fn progress_cancellation_client_requests_prompts_and_list_changed_pass_through() {
    let Some(python) = python() else { return };
    let (command, catalog) = fixture(&python, "gate-fixture");
    let log = catalog.with_file_name("fixture.log");
    let toolgate = PathBuf::from(env!("CARGO_BIN_EXE_toolgate"));
    let cat = catalog.to_str().expect("utf-8");
    let wrapped = format!(
        "env GATE_FIXTURE_LOG={} {command}",
        shlex::try_quote(log.to_str().expect("utf-8")).expect("quotable")
    );
    let mut client = LineClient::start(
        &toolgate,
        &[
            "serve",
            "--catalog",
            cat,
            "--profile",
            "all",
            "--upstream",
            &wrapped,
        ],
    );

    // Progress, with the client's own token.
    let r = client.request(
        "tools/call",
        json!({"name": "slow", "arguments": {"n": 3}, "_meta": {"progressToken": "mine-1"}}),
    );
    assert_eq!(
        r["result"]["structuredContent"]["result"], "counted to 3",
        "{r}"
    );
    let progress: Vec<&Value> = client
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3, "{:?}", client.notifications);
    assert!(
        progress
            .iter()
            .all(|n| n["params"]["progressToken"] == "mine-1")
    );
    assert_eq!(progress[2]["params"]["progress"], json!(3.0));

    // Sampling: the upstream's request relayed to this client, its answer relayed back.
    let r = client.request(
        "tools/call",
        json!({"name": "ask", "arguments": {"question": "six times seven?"}}),
    );
    assert_eq!(
        r["result"]["structuredContent"]["result"], "the model said: forty-two",
        "{r}"
    );
    assert_eq!(client.sampled.len(), 1);
    assert_eq!(
        client.sampled[0]["messages"][0]["content"]["text"],
        "six times seven?"
    );

    // Elicitation and roots, relayed the same way.
    let r = client.request("tools/call", json!({"name": "confirm", "arguments": {}}));
    assert_eq!(
        r["result"]["structuredContent"]["result"], "the user said ok=True",
        "{r}"
    );
    assert_eq!(client.sampled[1]["message"], "Proceed?");
    let r = client.request("tools/call", json!({"name": "roots", "arguments": {}}));
    assert_eq!(
        r["result"]["structuredContent"]["result"], "file:///work/project",
        "{r}"
    );

    // Cancellation: the forwarded request is cancelled upstream.
    let id = client.send_request("tools/call", json!({"name": "slow", "arguments": {"n": 0}}));
    std::thread::sleep(Duration::from_millis(300));
    client.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": id, "reason": "enough"}}),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !std::fs::read_to_string(&log).is_ok_and(|l| l.contains("cancelled")) {
        assert!(
            Instant::now() < deadline,
            "the upstream was not told of the cancellation"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // Prompts and resources, unchanged.
    let r = client.request("prompts/list", json!({}));
    assert_eq!(r["result"]["prompts"][0]["name"], "greet", "{r}");
    let r = client.request(
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    );
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"], "Hello, Ada!",
        "{r}"
    );
    let r = client.request("resources/read", json!({"uri": "fixture://motd"}));
    assert_eq!(
        r["result"]["contents"][0]["text"], "gate fixture motd",
        "{r}"
    );

    // tools/list_changed: the drift check again; the changed tool is refused from then on.
    let r = client.request("tools/call", json!({"name": "mutate", "arguments": {}}));
    assert_eq!(r["result"]["isError"], json!(false), "{r}");
    let deadline = Instant::now() + Duration::from_secs(10);
    let refused = loop {
        let r = client.request("tools/call", json!({"name": "mutate", "arguments": {}}));
        if r["result"]["isError"] == json!(true) {
            break r;
        }
        assert!(Instant::now() < deadline, "mutate is still forwarded: {r}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let message = refused["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains("drifted from the catalog (description: the catalog has"),
        "{refused}"
    );
    // The other tools still pass.
    let r = client.request("tools/call", json!({"name": "slow", "arguments": {"n": 1}}));
    assert_eq!(r["result"]["isError"], json!(false), "{r}");
}

#[test]
fn a_hung_upstream_times_out_then_restarts() {
    let Some(python) = python() else { return };
    let (command, catalog) = fixture(&python, "gate-hang");
    let toolgate = PathBuf::from(env!("CARGO_BIN_EXE_toolgate"));
    let cat = catalog.to_str().expect("utf-8");
    let mut client = LineClient::start(
        &toolgate,
        &[
            "serve",
            "--catalog",
            cat,
            "--profile",
            "all",
            "--upstream",
            &command,
            "--upstream-timeout",
            // The bound covers the upstream's start too: long enough for Python to start
            // on a loaded machine.
            "6",
        ],
    );
    let started = Instant::now();
    let r = client.request("tools/call", json!({"name": "slow", "arguments": {"n": 0}}));
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("did not answer within 6s"), "{r}");
    assert!(started.elapsed() < Duration::from_secs(15));
    let r = client.request("tools/call", json!({"name": "slow", "arguments": {"n": 1}}));
    assert_eq!(
        r["result"]["structuredContent"]["result"], "counted to 1",
        "{r}"
    );
}

#[test]
fn the_gate_over_http_with_tokens_in_front_of_a_stdio_upstream() {
    let Some(python) = python() else { return };
    let catalog = time_catalog(&python, "gate-http");
    let tokens = catalog.with_file_name("tokens.toml");
    std::fs::write(
        &tokens,
        "[tokens]\n\"tok-limited\" = \"limited\"\n\"tok-full\" = \"full\"\n",
    )
    .expect("write");
    let front = HttpServer::start(&[
        "--catalog",
        catalog.to_str().expect("utf-8"),
        "--tokens",
        tokens.to_str().expect("utf-8"),
        "--upstream",
        &upstream(&python),
    ]);

    let mut limited = HttpSession::open(front.port, "tok-limited");
    assert_eq!(limited.names(), ["get_current_time"]);
    let r = limited.request(
        "tools/call",
        json!({"name": "get_current_time", "arguments": {"timezone": "UTC"}}),
    );
    assert_eq!(r["result"]["structuredContent"]["timezone"], "UTC", "{r}");
    let r = limited.request(
        "tools/call",
        json!({"name": "get_current_time", "arguments": {"timezone": "Europe/Paris"}}),
    );
    assert!(is_error(&r), "{r}");

    let mut full = HttpSession::open(front.port, "tok-full");
    assert_eq!(full.names(), ["convert_time", "get_current_time"]);
    let r = full.request(
        "tools/call",
        json!({"name": "convert_time", "arguments":
            {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}}),
    );
    assert!(
        r["result"]["structuredContent"]["target"]["datetime"]
            .as_str()
            .is_some_and(|d| d.contains("T21:00")),
        "{r}"
    );

    // No token: 401, nothing served.
    let r = http::post(
        front.port,
        &[("MCP-Protocol-Version", http::PROTOCOL_VERSION)],
        &http::initialize_request(0),
    );
    assert_eq!(r.status, 401);

    // A second gate in front of the first over --upstream-url, with a token of its own:
    // it sends the upstream its configured credential, never the one its client sent.
    let back_tokens = catalog.with_file_name("back-tokens.toml");
    std::fs::write(&back_tokens, "[tokens]\n\"tok-outer\" = \"limited\"\n").expect("write");
    let outer = HttpServer::start(&[
        "--catalog",
        catalog.to_str().expect("utf-8"),
        "--tokens",
        back_tokens.to_str().expect("utf-8"),
        "--upstream-url",
        &format!("http://127.0.0.1:{}/mcp", front.port),
        "--upstream-header",
        "Authorization: Bearer tok-full",
    ]);
    let mut through = HttpSession::open(outer.port, "tok-outer");
    assert_eq!(through.names(), ["get_current_time"]);
    let r = through.request(
        "tools/call",
        json!({"name": "get_current_time", "arguments": {"timezone": "UTC"}}),
    );
    assert_eq!(r["result"]["structuredContent"]["timezone"], "UTC", "{r}");
    // (Had the outer gate passed `tok-outer` through, the front gate would have answered
    // 401 and the call would be a tool error.)
}

/// Per-call latencies of `get_current_time(UTC)`, direct and through the gate, in rounds
/// that alternate the two so that load from elsewhere falls on both alike.
fn latencies(direct: &mut LineClient, gated: &mut LineClient, calls: usize) -> [Vec<f64>; 2] {
    let args = json!({"name": "get_current_time", "arguments": {"timezone": "UTC"}});
    for c in [&mut *direct, &mut *gated] {
        for _ in 0..50 {
            let r = c.request("tools/call", args.clone());
            assert_eq!(r["result"]["isError"], json!(false), "{r}");
        }
    }
    let mut out = [Vec::new(), Vec::new()];
    let rounds = 10;
    for _ in 0..rounds {
        for (i, c) in [&mut *direct, &mut *gated].into_iter().enumerate() {
            for _ in 0..calls / rounds {
                let t = Instant::now();
                let r = c.request("tools/call", args.clone());
                out[i].push(t.elapsed().as_secs_f64() * 1e3);
                assert_eq!(r["result"]["isError"], json!(false), "{r}");
            }
        }
    }
    out
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn report(name: &str, [mut direct, mut gated]: [Vec<f64>; 2]) {
    direct.sort_by(f64::total_cmp);
    gated.sort_by(f64::total_cmp);
    let row = |label: &str, v: &[f64]| {
        println!(
            "{name:<28} {label:<7} calls {:>6}  p50 {:>7.3} ms  p90 {:>7.3} ms  p99 {:>7.3} ms",
            v.len(),
            percentile(v, 0.5),
            percentile(v, 0.9),
            percentile(v, 0.99)
        );
    };
    row("direct", &direct);
    row("gated", &gated);
    println!(
        "{name:<28} gate adds p50 {:+.3} ms",
        percentile(&gated, 0.5) - percentile(&direct, 0.5)
    );
}

/// The gate's overhead per call (scripts/bench-gate.sh, release build): the same call,
/// direct to the upstream and through `toolgate serve --upstream`, over stdio. Two
/// upstreams: `toolgate serve`'s echo of the time catalog (microseconds a call, so the
/// gate's own cost shows) and the real mcp-server-time.
#[test]
#[ignore = "a benchmark: scripts/bench-gate.sh"]
fn gate_overhead() {
    let Some(python) = python() else { return };
    let calls: usize = std::env::var("TOOLGATE_GATE_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5000);
    let catalog = time_catalog(&python, "gate-bench");
    let toolgate = PathBuf::from(env!("CARGO_BIN_EXE_toolgate"));
    let cat = catalog.to_str().expect("utf-8");
    // The echo serves the authored definitions to `full` (`limited`'s are restricted).
    let echo = format!(
        "{} serve --catalog {cat} --profile full",
        toolgate.display()
    );
    let mut direct =
        LineClient::start(&toolgate, &["serve", "--catalog", cat, "--profile", "full"]);
    let mut gated = LineClient::start(
        &toolgate,
        &[
            "serve",
            "--catalog",
            cat,
            "--profile",
            "limited",
            "--upstream",
            &echo,
        ],
    );
    report(
        "echo upstream (Rust)",
        latencies(&mut direct, &mut gated, calls),
    );
    drop((direct, gated));

    let mut direct = LineClient::start(
        &python,
        &["-m", "mcp_server_time", "--local-timezone", "UTC"],
    );
    let mut gated = LineClient::start(
        &toolgate,
        &[
            "serve",
            "--catalog",
            cat,
            "--profile",
            "limited",
            "--upstream",
            &upstream(&python),
        ],
    );
    report(
        "mcp-server-time (Python)",
        latencies(&mut direct, &mut gated, (calls / 5).max(100)),
    );
}

/// Calls `record` and returns what the upstream received (its JSON answer), or `None` when
/// the call came back as an error (then the text says why).
fn recorded(client: &mut RawClient, arguments: Value) -> Result<Value, String> {
    let r = client.call("record", &arguments);
    if is_error(&r) {
        return Err(text(&r));
    }
    let answer = r["result"]["structuredContent"]["result"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| text(&r));
    serde_json::from_str(&answer).map_err(|e| format!("{e}: {r}"))
}

#[test]
fn the_gate_serves_a_hosts_schemas_and_decodes_its_calls() {
    use toolgate_schema::stacks::{self, Stack};
    let Some(python) = python() else { return };
    let (upstream, catalog) = fixture_of(&python, "tests/mcp/host_upstream.py", "gate-host");
    let authored = capture_of(
        &python,
        &[common::repo_root()
            .join("tests/mcp/host_upstream.py")
            .to_str()
            .expect("utf-8")],
    )["result"]["tools"][0]["inputSchema"]
        .clone();
    for stack in [Stack::OpenAiStrict, Stack::GeminiSchema] {
        let id = stack.id();
        let mut client = gate(&catalog, "all", &upstream, &["--host", id]);
        let list = client.list();
        let served = &list[0]["inputSchema"];
        let expected = stacks::adapt(stack, &authored);
        assert_eq!(expected.inexpressible, None, "{id}");
        assert_eq!(
            served, &expected.schema,
            "{id}: tools/list serves the adapted schema"
        );
        assert!(stacks::accepts(stack, served), "{id}: {served}");
        // Authored calls pass as they are, on every host.
        let plain = json!({"text": "hi", "count": 3, "note": "n", "options": {"a": 1}});
        assert_eq!(
            recorded(&mut client, plain.clone()),
            Ok(plain.clone()),
            "{id}"
        );
        // A real string that reads as JSON is never parsed.
        let r = recorded(&mut client, json!({"text": "{\"a\": 1}"})).expect(id);
        assert_eq!(r["text"], "{\"a\": 1}", "{id}");
        // A call the authored schema refuses is refused, in either form.
        for bad in [
            json!({"text": "hi", "count": "3"}),
            json!({"text": "hi", "options": {"a": "x"}}),
            json!({"count": 3}),
        ] {
            let e = recorded(&mut client, bad.clone()).expect_err(&format!("{id}: {bad}"));
            assert!(e.starts_with("invalid arguments for `record`"), "{id}: {e}");
        }
        if stack == Stack::OpenAiStrict {
            assert!(
                !stacks::accepts(stack, &authored),
                "as authored: not strict"
            );
            // openai-agents' strict mode closes every object and lists every property as
            // required: the optional ones are served `null`able, the free-form object as a
            // string.
            let props = &served["properties"];
            assert_eq!(
                props["count"]["anyOf"][1],
                json!({"type": "null"}),
                "{served}"
            );
            assert_eq!(
                props["options"]["anyOf"][0],
                json!({"type": "string"}),
                "{served}"
            );
            assert_eq!(props["note"], authored["properties"]["note"], "{served}");
            // The rewritten form: `null` for the optional integer left out, `null` for the
            // nullable string kept, the free-form object as a string of JSON.
            let encoded =
                json!({"text": "hi", "count": null, "note": null, "options": "{\"b\": 2}"});
            let r = recorded(&mut client, encoded).expect("the encoded call is forwarded");
            assert_eq!(
                r,
                json!({"text": "hi", "count": 1, "note": null, "options": {"b": 2}})
            );
            // Encoded, but refused by the authored schema once read back.
            for bad in [
                json!({"text": "hi", "options": "{\"b\": \"x\"}"}),
                json!({"text": "hi", "options": "[2]"}),
                json!({"text": null}),
            ] {
                let e = recorded(&mut client, bad.clone()).expect_err(&format!("{bad}"));
                assert!(e.starts_with("invalid arguments for `record`"), "{e}");
            }
        } else {
            assert!(
                !served.to_string().contains("additionalProperties"),
                "{served}"
            );
            // No encoding for this host: a `null` for the integer is refused as authored.
            let e = recorded(&mut client, json!({"text": "hi", "count": null}))
                .expect_err("null is no integer");
            assert!(e.starts_with("invalid arguments for `record`"), "{e}");
        }
        let (status, stderr) = client.close();
        assert!(status.success(), "{id}: {stderr}");
    }
}
