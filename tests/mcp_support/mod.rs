//! Helpers for the tests of `toolgate serve`: valid arguments made from a served schema, a
//! minimal JSON-RPC client over the server's stdio, the gate for tests that need Python
//! or npm (and the python they use); [`http`] (the `--http` server, a raw HTTP/1.1 client,
//! a session with a token) and [`line`] (a stdio client of any command that answers the
//! server's requests).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};

use serde_json::{Value, json};
use toolgate_schema::json::Number;

pub mod http;
pub mod line;
use toolgate_schema::model::{Additional, Kind, NumberRules, Schema};

/// Whether `.ci/run` asked for the end-to-end MCP tests to run (`TOOLGATE_REQUIRE_E2E=1`):
/// then a missing Python SDK or inspector fails the test instead of skipping it.
pub fn e2e_required() -> bool {
    std::env::var("TOOLGATE_REQUIRE_E2E").is_ok_and(|v| v == "1")
}

/// Skips (with a message) or, when required, fails.
pub fn skip(why: &str) {
    assert!(
        !e2e_required(),
        "{why}; TOOLGATE_REQUIRE_E2E=1 says this test must run (.ci/run installs what it needs)"
    );
    eprintln!(
        "skipped: {why} (.ci/run installs it; set TOOLGATE_REQUIRE_E2E=1 to make this a failure)"
    );
}

/// The `node_modules` of tests/lock/package.json (`TOOLGATE_LOCK_NPM`, else
/// target/e2e/lock-npm, as `.ci/run` installs it) holding every one of `packages`, with node
/// on PATH; `None` (after [`skip`]) without them.
pub fn lock_npm(packages: &[&str]) -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLGATE_LOCK_NPM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/e2e/lock-npm"))
        .join("node_modules");
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let all = packages
        .iter()
        .all(|p| dir.join(p).join("package.json").is_file());
    if node && all {
        Some(dir)
    } else {
        skip(
            "node or the npm packages of tests/lock/package.json are missing (npm ci --ignore-scripts them under target/e2e/lock-npm)",
        );
        None
    }
}

/// The python that can import `module`: `TOOLGATE_PYTHON` (the venv `.ci/run` makes), else
/// `python3`; `None` when it cannot.
pub fn python_importing(module: &str) -> Option<PathBuf> {
    let python = std::env::var_os("TOOLGATE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"));
    let ok = Command::new(&python)
        .args(["-c", &format!("import {module}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(python)
}

/// A catalog in the shapes real servers write: `execution`, annotation keys outside MCP's
/// list (what rmcp's `Tool` does not hold); its one profile is `all`.
pub const AUTHORED_SHAPES: &str = "generated/tests/catalogs/server_shapes";

/// The tools `toolgate tools-list` prints for [`AUTHORED_SHAPES`]: what a client must be
/// sent, key for key.
pub fn authored_shapes() -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args([
            "tools-list",
            "--catalog",
            AUTHORED_SHAPES,
            "--profile",
            "all",
        ])
        .current_dir(root)
        .output()
        .expect("toolgate runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list: Value = serde_json::from_slice(&out.stdout).expect("tools-list prints JSON");
    let tools = list["tools"].clone();
    let dropped_by_rmcp = tools
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t.get("execution").is_some() && t["annotations"].get("category").is_some());
    assert!(
        dropped_by_rmcp.count() > 0,
        "{AUTHORED_SHAPES} must hold what rmcp's Tool drops"
    );
    tools
}

/// `tools` as the official Python SDK's models keep them: its `ToolAnnotations` reads the
/// hints MCP lists and drops other keys (a client's choice; the wire carries them, as the raw
/// clients of the tests check).
pub fn as_python_sdk_keeps(tools: &Value) -> Value {
    const MCP_HINTS: [&str; 5] = [
        "title",
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    ];
    let mut tools = tools.clone();
    for tool in tools.as_array_mut().into_iter().flatten() {
        if let Some(a) = tool.get_mut("annotations").and_then(Value::as_object_mut) {
            a.retain(|k, _| MCP_HINTS.contains(&k.as_str()));
        }
    }
    tools
}

/// A bundled catalog's folder in the repository.
pub fn catalog_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schema")
        .join(name)
}

/// The surface of a catalog folder, through `toolgate-schema` (not the generated code).
pub fn surface(name: &str) -> toolgate_schema::Surface {
    let catalog = toolgate_schema::load_dir(&catalog_dir(name)).expect("the catalog loads");
    toolgate_schema::Surface::from_catalog(&catalog)
}

/// The names of the tools a selector value is served, from the surface.
pub fn served_names(surface: &toolgate_schema::Surface, requested: &str) -> Vec<String> {
    surface
        .served(&surface.resolve(requested))
        .iter()
        .map(|s| s.tool.name.clone())
        .collect()
}

fn pick_number(rules: &NumberRules, integer: bool) -> Value {
    let f = |n: Option<Number>| n.map(Number::as_f64);
    let mut x = f(rules.minimum)
        .or_else(|| f(rules.exclusive_minimum).map(|m| m + 1.0))
        .unwrap_or(1.0);
    if let Some(max) = f(rules.maximum) {
        x = x.min(max);
    }
    if let Some(max) = f(rules.exclusive_maximum)
        && x >= max
    {
        x = max - 1.0;
    }
    if integer {
        json!(x.ceil() as i64)
    } else {
        json!(x)
    }
}

/// A value that `schema` accepts: with `full`, every declared property of every object;
/// without, the required ones (and those a condition then requires).
pub fn example(schema: &Schema, full: bool) -> Value {
    match &schema.kind {
        Kind::Any => json!({"free": ["json", 1]}),
        Kind::Boolean => json!(true),
        Kind::String(rules) => {
            if let Some(values) = &rules.enum_values {
                return json!(values.first().cloned().unwrap_or_default());
            }
            let n = rules.min_length.unwrap_or(1).max(1) as usize;
            let n = rules.max_length.map_or(n, |m| n.min(m as usize));
            json!("x".repeat(n))
        }
        Kind::Integer(rules) => pick_number(rules, true),
        Kind::Number(rules) => pick_number(rules, false),
        Kind::Array(rules) => {
            let n = rules.min_items.unwrap_or(1).max(1);
            let n = rules.max_items.map_or(n, |m| n.min(m));
            let item = rules
                .items
                .as_deref()
                .map_or(json!("item"), |s| example(s, full));
            Value::Array((0..n).map(|_| item.clone()).collect())
        }
        Kind::Object(rules) => {
            let mut m = serde_json::Map::new();
            for (name, prop) in &rules.properties {
                if full || rules.is_required(name) {
                    m.insert(name.clone(), example(prop, full));
                }
            }
            if let Some(c) = &rules.conditional {
                let holds = c.when.iter().all(|(f, v)| {
                    m.get(f)
                        .is_some_and(|got| toolgate_schema::json::Value::from_serde(got) == *v)
                });
                if holds {
                    for f in &c.then_required {
                        if let Some(s) = rules.property(f) {
                            m.entry(f.clone()).or_insert_with(|| example(s, full));
                        }
                    }
                }
            }
            if full
                && rules.properties.is_empty()
                && let Additional::Schema(s) = &rules.additional
            {
                m.insert("key".to_string(), example(s, full));
            }
            Value::Object(m)
        }
    }
}

/// A `toolgate serve` process spoken to with newline-delimited JSON-RPC, as an MCP client
/// does over stdio.
pub struct RawClient {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl RawClient {
    /// Starts `toolgate serve ARGS` from the repository root, with `env` set and the
    /// selector variables otherwise unset, and does the `initialize` handshake.
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> RawClient {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolgate"));
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg("serve")
            .args(args)
            .env_remove("TATARA_TOOL_PROFILE")
            .env_remove("MAETRA_CAPABILITIES")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("toolgate serve starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut client = RawClient {
            child,
            stdin,
            stdout,
            next_id: 0,
        };
        let init = client.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "toolgate-tests", "version": "0"}
            }),
        );
        assert!(init.get("result").is_some(), "initialize failed: {init}");
        client.notify("notifications/initialized", json!({}));
        client
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_string(message).expect("serializes");
        line.push('\n');
        self.send_raw(line.as_bytes());
    }

    /// Writes `bytes` to the server as they are: garbage, a truncated message, a line of
    /// any size.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("the session is open");
        stdin.write_all(bytes).expect("the server reads");
        stdin.flush().expect("flush");
    }

    /// Sends a request and returns the whole response (`result` or `error`), skipping any
    /// notification the server sends meanwhile.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.request_and_others(method, params).1
    }

    /// Sends a request: every other message the server wrote before answering it, and the
    /// answer.
    pub fn request_and_others(&mut self, method: &str, params: Value) -> (Vec<Value>, Value) {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut others = Vec::new();
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read a line");
            assert!(
                n > 0,
                "the server closed its output before answering {method}"
            );
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON from the server ({e}): {line}"));
            if message.get("id") == Some(&json!(id)) {
                return (others, message);
            }
            others.push(message);
        }
    }

    /// `tools/list`: the `tools` array.
    pub fn list(&mut self) -> Value {
        let r = self.request("tools/list", json!({}));
        r["result"]["tools"].clone()
    }

    /// `tools/call`: the whole response.
    pub fn call(&mut self, tool: &str, arguments: &Value) -> Value {
        self.request("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// The server's peak resident memory so far (`VmHWM`), in KiB, read from `/proc`.
    pub fn peak_memory_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).ok()?;
        status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    }

    /// Closes the server's input (the end of the session) and waits for it to exit: its
    /// exit status and everything it wrote on standard error.
    pub fn close(mut self) -> (ExitStatus, String) {
        drop(self.stdin.take());
        let status = wait_with_timeout(&mut self.child, std::time::Duration::from_secs(20));
        let mut stderr = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut stderr);
        }
        (status, stderr)
    }
}

impl Drop for RawClient {
    fn drop(&mut self) {
        if self.stdin.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Waits for `child` to exit; kills it and fails the test past `limit`.
pub fn wait_with_timeout(child: &mut Child, limit: std::time::Duration) -> ExitStatus {
    let start = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the server did not exit within {limit:?} after its input closed");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
