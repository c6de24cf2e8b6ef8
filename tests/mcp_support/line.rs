//! A stdio MCP client of any command (an upstream server, `toolgate serve`, the gate), which
//! answers the server's own requests itself.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

/// A stdio MCP client of any command: newline-delimited JSON-RPC, one request in flight.
/// It declares sampling, elicitation and roots and answers them itself: "forty-two" (model
/// `test-model`), accept with `{"ok": true}`, one root `file:///work/project`; the
/// notifications it reads are kept.
pub struct LineClient {
    child: Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next: u64,
    /// The notifications read so far.
    pub notifications: Vec<Value>,
    /// The params of the sampling and elicitation requests answered so far.
    pub sampled: Vec<Value>,
}

impl LineClient {
    /// Starts `program ARGS` from the repository root and does the `initialize` handshake.
    pub fn start(program: &Path, args: &[&str]) -> LineClient {
        let mut child = Command::new(program)
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut c = LineClient {
            child,
            stdin,
            stdout,
            next: 0,
            notifications: Vec::new(),
            sampled: Vec::new(),
        };
        let init = c.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25",
                   "capabilities": {"sampling": {}, "elicitation": {}, "roots": {}},
                   "clientInfo": {"name": "toolgate-tests", "version": "0"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    /// Writes the message and its newline in one write, as a client's transport does.
    pub fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).expect("write");
    }

    /// Sends a request without waiting: its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> u64 {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// Reads until the answer to `id`, answering the server's requests meanwhile.
    pub fn answer_of(&mut self, id: u64) -> Value {
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).expect("read") > 0,
                "closed"
            );
            let v: Value = serde_json::from_str(&line).expect("JSON");
            if v.get("method").is_some() && v.get("id").is_some() {
                let result = if v["method"] == "sampling/createMessage" {
                    self.sampled.push(v["params"].clone());
                    json!({"role": "assistant", "model": "test-model",
                           "content": {"type": "text", "text": "forty-two"}})
                } else if v["method"] == "elicitation/create" {
                    self.sampled.push(v["params"].clone());
                    json!({"action": "accept", "content": {"ok": true}})
                } else if v["method"] == "roots/list" {
                    json!({"roots": [{"uri": "file:///work/project", "name": "project"}]})
                } else {
                    json!({})
                };
                self.send(&json!({"jsonrpc": "2.0", "id": v["id"], "result": result}));
            } else if v.get("method").is_some() {
                self.notifications.push(v);
            } else if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// Sends a request and reads until its answer.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.answer_of(id)
    }
}

impl Drop for LineClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
