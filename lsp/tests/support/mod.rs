//! A scripted client over lsp-server's in-memory connection: the server runs on a thread
//! of the test, as `toolgate lsp` runs it, with the bundled catalogs.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use lsp_types::{Diagnostic, PublishDiagnosticsParams};
use serde_json::{Value, json};
use toolgate_lsp::lsp_server::{Connection, Message, Notification, Request, RequestId};
use toolgate_lsp::{Ended, Host};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("root")
}

/// A fresh scratch folder under `target/`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = repo_root()
        .join("target")
        .join("test-scratch")
        .join("lsp")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    dir
}

/// The `file:` URI of a path.
pub fn uri(path: &Path) -> lsp_types::Uri {
    toolgate_lsp::uri::from_path(path).expect("a file URI")
}

/// A client talking to a server thread.
pub struct Client {
    conn: Connection,
    server: Option<JoinHandle<Result<Ended, String>>>,
    next: i32,
    /// Notifications received and not yet looked at.
    pub inbox: VecDeque<Notification>,
}

const WAIT: Duration = Duration::from_secs(30);

impl Client {
    /// Starts a server and initializes it with `capabilities` and the workspace `root`.
    pub fn start(root: &Path, capabilities: Value) -> Client {
        let (server, client) = Connection::memory();
        let handle = std::thread::spawn(move || {
            toolgate_lsp::serve(
                &server,
                Host {
                    bundled: toolgate_generated::load_bundled,
                },
            )
        });
        let mut c = Client {
            conn: client,
            server: Some(handle),
            next: 0,
            inbox: VecDeque::new(),
        };
        let init = c.request(
            "initialize",
            json!({"processId": null, "rootUri": uri(root), "capabilities": capabilities}),
        );
        assert!(init["capabilities"].is_object(), "{init}");
        c.notify("initialized", json!({}));
        c
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        self.conn
            .sender
            .send(Message::Notification(Notification::new(
                method.to_string(),
                params,
            )))
            .expect("the server is there");
    }

    /// Sends a request and waits for its answer (the result, or the error as JSON under
    /// `"error"`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.conn
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.to_string(),
                params,
            )))
            .expect("the server is there");
        loop {
            match self
                .conn
                .receiver
                .recv_timeout(WAIT)
                .expect("an answer in time")
            {
                Message::Response(r) if r.id == id => {
                    return match r.response_result {
                        Err(e) => json!({"error": {"code": e.code, "message": e.message}}),
                        Ok(v) => v,
                    };
                }
                Message::Notification(n) => self.inbox.push_back(n),
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    /// Waits for the diagnostics of `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &lsp_types::Uri, version: Option<i32>) -> Vec<Diagnostic> {
        let found = |n: &Notification| {
            n.method == "textDocument/publishDiagnostics"
                && serde_json::from_value::<PublishDiagnosticsParams>(n.params.clone())
                    .is_ok_and(|p| p.uri == *uri && p.version == version)
        };
        loop {
            if let Some(i) = self.inbox.iter().position(found) {
                let n = self.inbox.remove(i).expect("there");
                let p: PublishDiagnosticsParams =
                    serde_json::from_value(n.params).expect("publishDiagnostics");
                return p.diagnostics;
            }
            match self
                .conn
                .receiver
                .recv_timeout(WAIT)
                .expect("diagnostics in time")
            {
                Message::Notification(n) => self.inbox.push_back(n),
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    /// Opens a document with `text`, version 1, and returns its diagnostics.
    pub fn open(&mut self, path: &Path, text: &str) -> Vec<Diagnostic> {
        let u = uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": "markdown", "version": 1, "text": text}}),
        );
        self.diagnostics(&u, Some(1))
    }

    /// Replaces a document's whole text and returns its diagnostics for `version`.
    pub fn change(&mut self, path: &Path, version: i32, text: &str) -> Vec<Diagnostic> {
        let u = uri(path);
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version}, "contentChanges": [{"text": text}]}),
        );
        self.diagnostics(&u, Some(version))
    }

    /// `shutdown`, `exit`, and how the server says it ended.
    pub fn shutdown(mut self) -> Ended {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r, Value::Null);
        self.notify("exit", Value::Null);
        self.server
            .take()
            .expect("running")
            .join()
            .expect("the server thread did not panic")
            .expect("the session ran")
    }

    /// `exit` without `shutdown`, and how the server says it ended.
    pub fn exit(mut self) -> Ended {
        self.notify("exit", Value::Null);
        self.server
            .take()
            .expect("running")
            .join()
            .expect("the server thread did not panic")
            .expect("the session ran")
    }
}
