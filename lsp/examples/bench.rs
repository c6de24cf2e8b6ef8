//! Drives `toolgate lsp` over stdio as an editor would and times it (docs/benchmarks.md):
//!
//! - a 2,000-line agent file with a tool reference on every tenth line: after each
//!   one-character full-text `didChange`, the time from the write to the
//!   `publishDiagnostics` for that version (no debounce), its median and 95th percentile;
//! - 500 open files of 200 lines: the server's peak resident memory (`VmHWM`).
//!
//! `cargo run --release -p toolgate-lsp --example bench -- target/release/toolgate [ROUNDS]`

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::{Value, json};

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(bin: &Path, root: &Path) -> Server {
        let mut child = Command::new(bin)
            .args(["lsp", "--stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("toolgate lsp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut s = Server {
            child,
            stdin,
            stdout,
        };
        let uri = toolgate_lsp::uri::from_path(root).expect("uri");
        s.send(Message::Request(Request::new(
            RequestId::from(1),
            "initialize".into(),
            json!({"processId": null, "rootUri": uri, "capabilities": {}}),
        )));
        s.until(|m| matches!(m, Message::Response(_)));
        s.notify("initialized", json!({}));
        s
    }

    fn send(&mut self, m: Message) {
        m.write(&mut self.stdin).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(Message::Notification(Notification::new(
            method.into(),
            params,
        )));
    }

    fn until(&mut self, want: impl Fn(&Message) -> bool) -> Message {
        loop {
            let m = Message::read(&mut self.stdout)
                .expect("read")
                .expect("the server is running");
            if want(&m) {
                return m;
            }
        }
    }

    /// Waits for the diagnostics of `uri` at `version`; how many there were.
    fn diagnostics(&mut self, uri: &str, version: i32) -> usize {
        let m = self.until(|m| match m {
            Message::Notification(n) => {
                n.method == "textDocument/publishDiagnostics"
                    && n.params["uri"] == uri
                    && n.params["version"] == version
            }
            _ => false,
        });
        match m {
            Message::Notification(n) => n.params["diagnostics"].as_array().map_or(0, Vec::len),
            _ => 0,
        }
    }

    fn open(&mut self, path: &Path, text: &str) -> String {
        let uri = toolgate_lsp::uri::from_path(path)
            .expect("uri")
            .as_str()
            .to_string();
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
        );
        uri
    }

    fn peak_rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    fn stop(mut self) {
        self.send(Message::Request(Request::new(
            RequestId::from(2),
            "shutdown".into(),
            Value::Null,
        )));
        self.until(|m| matches!(m, Message::Response(_)));
        self.notify("exit", Value::Null);
        let status = self.child.wait().expect("exits");
        assert!(status.success(), "exit status {status}");
    }
}

/// An agent file of `lines` lines with a tool reference (a call of a tatara tool) on every
/// tenth line, one of them to a renamed or unknown tool so there is something to report.
fn agent_file(lines: usize, tools: &[String]) -> String {
    let mut out = String::from("---\nname: bench\ndescription: A long agent file.\n---\n\n");
    for i in 0..lines {
        if i % 10 == 0 {
            let t = &tools[(i / 10) % tools.len()];
            out.push_str(&format!("{i}. Call `{t}()` when the step needs it.\n"));
        } else {
            out.push_str(&format!(
                "{i}. Prose about the task, with nothing to check in it at all.\n"
            ));
        }
    }
    out.push_str("Then call `no_such_tool(x=1)`.\n");
    out
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let bin = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "target/release/toolgate".into()),
    );
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(200);
    let catalog = toolgate_generated::load_bundled("tatara")
        .expect("bundled")
        .expect("loads");
    let tools: Vec<String> = catalog.tools.iter().map(|t| t.name.clone()).collect();
    let root = std::env::temp_dir().join(format!("toolgate-lsp-bench-{}", std::process::id()));
    let agents = root.join(".claude/agents");
    std::fs::create_dir_all(&agents).expect("scratch");
    std::fs::write(root.join("toolgate.toml"), "catalog = \"tatara\"\n").expect("config");

    let mut server = Server::start(&bin, &root);
    let path = agents.join("long.md");
    let mut text = agent_file(2000, &tools);
    let uri = server.open(&path, &text);
    let found = server.diagnostics(&uri, 1);
    let mut times = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let version = i32::try_from(round).unwrap_or(i32::MAX - 2) + 2;
        // One character typed (then taken back on the next round), the whole text sent.
        if round % 2 == 0 {
            text.insert(text.len() / 2, 'x');
        } else {
            text.remove(text.len() / 2);
        }
        let t0 = Instant::now();
        server.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
        server.diagnostics(&uri, version);
        times.push(t0.elapsed());
    }
    times.sort();
    println!(
        "2,000-line agent file, {} lines with a reference, {found} diagnostics; {rounds} one-character didChange: median {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        2000 / 10,
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.95).as_secs_f64() * 1e3,
        times.last().map_or(0.0, |t| t.as_secs_f64() * 1e3),
    );
    server.stop();

    let mut server = Server::start(&bin, &root);
    let t0 = Instant::now();
    for i in 0..500 {
        let p = agents.join(format!("agent-{i:03}.md"));
        let last = server.open(&p, &agent_file(200, &tools));
        // Read each file's diagnostics as an editor does: a client that stops reading fills
        // the pipe, and the server then waits on its write.
        server.diagnostics(&last, 1);
    }
    let opened = t0.elapsed();
    println!(
        "500 open files of 200 lines: opened and checked in {:.0} ms, peak RSS {:.1} MiB",
        opened.as_secs_f64() * 1e3,
        server.peak_rss_kib().unwrap_or(0) as f64 / 1024.0
    );
    server.stop();
    let _ = std::fs::remove_dir_all(&root);
}
