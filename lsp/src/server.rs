//! The protocol loop: initialize (the position encoding negotiated), then every message in
//! order on one thread, each request's handler run under `catch_unwind` so that a bug is an
//! error answer and the server goes on; `shutdown` then `exit` ends it cleanly.

use std::panic::{AssertUnwindSafe, catch_unwind};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{self as n, Notification as _};
use lsp_types::request::{self as r, Request as _};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, HoverProviderCapability, InitializeParams, MessageType, OneOf,
    PublishDiagnosticsParams, SaveOptions, ServerCapabilities, ShowMessageParams,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Uri,
};
use serde_json::{Value, json};

use crate::env::Host;
use crate::features;
use crate::state::State;
use crate::text::Encoding;

/// How the session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// `shutdown` then `exit`: exit status 0.
    Clean,
    /// `exit` without `shutdown`, or the client went away: exit status 1.
    Abrupt,
}

/// Serves one session over `connection` until `exit` (or the client closes it).
pub fn serve(connection: &Connection, host: Host) -> Result<Ended, String> {
    let (id, params) = connection
        .initialize_start()
        .map_err(|e| format!("initialize: {e}"))?;
    // A client's initialize that does not parse is taken as offering nothing.
    let params: InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let enc = Encoding::negotiate(
        params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_deref()),
    );
    let root = root_of(&params);
    let result = json!({
        "capabilities": capabilities(enc),
        "serverInfo": {"name": "toolgate", "version": env!("CARGO_PKG_VERSION")},
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| format!("initialize: {e}"))?;
    let mut server = Server {
        conn: connection,
        state: State::new(host, enc, root),
        shutdown: false,
    };
    for msg in &connection.receiver {
        match msg {
            Message::Request(req) => server.request(req),
            Message::Notification(not) if not.method == n::Exit::METHOD => {
                return Ok(if server.shutdown {
                    Ended::Clean
                } else {
                    Ended::Abrupt
                });
            }
            Message::Notification(not) => server.notification(not),
            // Nothing is asked of the client that needs its answer.
            Message::Response(_) => {}
        }
    }
    Ok(Ended::Abrupt)
}

/// What the server offers: full-text sync (any change is accepted), completion, hover,
/// quick fixes, definitions.
fn capabilities(enc: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(enc.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(
                ["_", "/", "(", "{", "\"", "'", ",", " ", "[", "-"]
                    .map(String::from)
                    .to_vec(),
            ),
            ..CompletionOptions::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        definition_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

/// The workspace's root folder: the first workspace folder, else the (deprecated) root URI.
#[allow(deprecated)]
fn root_of(params: &InitializeParams) -> Option<std::path::PathBuf> {
    let uri = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| &f.uri)
        .or(params.root_uri.as_ref())?;
    crate::uri::to_path(uri)
}

struct Server<'c> {
    conn: &'c Connection,
    state: State,
    shutdown: bool,
}

impl Server<'_> {
    fn send(&self, msg: impl Into<Message>) {
        // The client is gone: the loop ends when its channel does.
        let _ = self.conn.sender.send(msg.into());
    }

    fn request(&mut self, req: Request) {
        let id = req.id.clone();
        if self.shutdown {
            self.send(Response::new_err(
                id,
                ErrorCode::InvalidRequest as i32,
                "the server is shutting down".to_string(),
            ));
            return;
        }
        if req.method == r::Shutdown::METHOD {
            self.shutdown = true;
            self.send(Response::new_ok(id, ()));
            return;
        }
        let state = &mut self.state;
        let answer = catch_unwind(AssertUnwindSafe(|| {
            dispatch(state, &req.method, req.params)
        }));
        let response = match answer {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(panic) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!(
                    "toolgate lsp: the {} handler failed ({}); the server goes on",
                    req.method,
                    panic_text(&panic)
                ),
            ),
        };
        self.send(response);
    }

    fn notification(&mut self, not: Notification) {
        let method = not.method.clone();
        let state = &mut self.state;
        let touched = catch_unwind(AssertUnwindSafe(|| on_notification(state, not)));
        match touched {
            Ok(uris) => {
                for uri in uris {
                    self.publish(&uri);
                }
            }
            Err(panic) => self.show(
                MessageType::ERROR,
                format!(
                    "toolgate lsp: handling {method} failed ({}); the server goes on",
                    panic_text(&panic)
                ),
            ),
        }
    }

    fn show(&self, typ: MessageType, message: String) {
        self.send(Notification::new(
            n::ShowMessage::METHOD.to_string(),
            ShowMessageParams { typ, message },
        ));
    }

    /// Checks a document and publishes its diagnostics (for its current version).
    fn publish(&mut self, uri: &Uri) {
        let state = &mut self.state;
        let result = catch_unwind(AssertUnwindSafe(|| state.diagnostics(uri)));
        let (diagnostics, message) = match result {
            Ok(d) => d,
            Err(panic) => {
                self.show(
                    MessageType::ERROR,
                    format!(
                        "toolgate lsp: checking {} failed ({}); the server goes on",
                        uri.as_str(),
                        panic_text(&panic)
                    ),
                );
                return;
            }
        };
        let version = self.state.docs.get(uri).map(|d| d.version);
        if let Some(m) = message
            && self.state.shown.insert(m.clone())
        {
            self.show(MessageType::WARNING, format!("toolgate: {m}"));
        }
        self.send(Notification::new(
            n::PublishDiagnostics::METHOD.to_string(),
            PublishDiagnosticsParams {
                uri: uri.clone(),
                diagnostics,
                version,
            },
        ));
    }
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

type Answer = Result<Value, (ErrorCode, String)>;

fn params<P: serde::de::DeserializeOwned>(value: Value) -> Result<P, (ErrorCode, String)> {
    serde_json::from_value(value).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
}

fn to_value(v: impl serde::Serialize) -> Answer {
    serde_json::to_value(v).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

fn dispatch(state: &mut State, method: &str, value: Value) -> Answer {
    match method {
        r::Completion::METHOD => to_value(features::completion(state, &params(value)?)),
        r::HoverRequest::METHOD => to_value(features::hover(state, &params(value)?)),
        r::CodeActionRequest::METHOD => to_value(features::code_actions(state, &params(value)?)),
        r::GotoDefinition::METHOD => to_value(features::definition(state, &params(value)?)),
        #[cfg(test)]
        "toolgate/panic" => panic!("asked to"),
        _ => Err((
            ErrorCode::MethodNotFound,
            format!("toolgate lsp does not answer {method}"),
        )),
    }
}

/// Handles a notification; returns the documents whose diagnostics to publish.
fn on_notification(state: &mut State, not: Notification) -> Vec<Uri> {
    match not.method.as_str() {
        n::DidOpenTextDocument::METHOD => {
            let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(not.params) else {
                return Vec::new();
            };
            let uri = p.text_document.uri;
            state.open(uri.clone(), p.text_document.text, p.text_document.version);
            touched(state, uri)
        }
        n::DidChangeTextDocument::METHOD => {
            let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(not.params) else {
                return Vec::new();
            };
            let uri = p.text_document.uri;
            let Some(doc) = state.docs.get(&uri) else {
                return Vec::new();
            };
            let text = crate::features::apply_changes(doc, state.enc, p.content_changes);
            state.change(&uri, text, p.text_document.version);
            touched(state, uri)
        }
        n::DidCloseTextDocument::METHOD => {
            let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(not.params) else {
                return Vec::new();
            };
            let uri = p.text_document.uri;
            // Closing a catalog or configuration buffer puts the file on disk back.
            let mut again = state.invalidate(&uri);
            state.close(&uri);
            again.retain(|u| state.docs.contains_key(u));
            // Its diagnostics go with it (a closed document publishes none).
            again.push(uri);
            again
        }
        n::DidSaveTextDocument::METHOD => {
            let Ok(p) = serde_json::from_value::<DidSaveTextDocumentParams>(not.params) else {
                return Vec::new();
            };
            let uri = p.text_document.uri;
            // A saved skill can change what its linked files are.
            if state.docs.contains_key(&uri) {
                touched(state, uri)
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

/// A document changed: it, and what its change reaches (a catalog's or configuration's
/// open users), are checked again.
fn touched(state: &mut State, uri: Uri) -> Vec<Uri> {
    let mut out = vec![uri.clone()];
    out.extend(state.invalidate(&uri));
    out
}

#[cfg(test)]
mod tests {
    use lsp_server::{Connection, Message, Notification, Request, RequestId};
    use serde_json::{Value, json};

    use super::*;

    fn answer(client: &Connection, id: i32) -> lsp_server::Response {
        loop {
            match client
                .receiver
                .recv_timeout(std::time::Duration::from_secs(30))
                .expect("an answer")
            {
                Message::Response(r) if r.id == RequestId::from(id) => return r,
                _ => {}
            }
        }
    }

    #[test]
    fn a_panicking_handler_is_an_error_answer_and_the_server_goes_on() {
        let (server, client) = Connection::memory();
        let handle = std::thread::spawn(move || {
            serve(
                &server,
                Host {
                    bundled: toolgate_generated::load_bundled,
                },
            )
        });
        let send = |m: Message| client.sender.send(m).expect("send");
        send(
            Request::new(
                RequestId::from(1),
                "initialize".into(),
                json!({"capabilities": {}}),
            )
            .into(),
        );
        let init = answer(&client, 1);
        assert_eq!(
            init.response_result.expect("result")["capabilities"]["positionEncoding"],
            "utf-16"
        );
        send(Notification::new("initialized".into(), json!({})).into());
        send(Request::new(RequestId::from(2), "toolgate/panic".into(), Value::Null).into());
        let failed = answer(&client, 2);
        let e = failed.response_result.expect_err("an error");
        assert_eq!(e.code, ErrorCode::InternalError as i32);
        assert!(e.message.contains("asked to"), "{}", e.message);
        send(Request::new(RequestId::from(3), "no/such".into(), Value::Null).into());
        assert_eq!(
            answer(&client, 3)
                .response_result
                .expect_err("an error")
                .code,
            ErrorCode::MethodNotFound as i32
        );
        send(Request::new(RequestId::from(4), "shutdown".into(), Value::Null).into());
        assert!(answer(&client, 4).response_result.is_ok());
        send(Request::new(RequestId::from(5), "textDocument/hover".into(), Value::Null).into());
        assert_eq!(
            answer(&client, 5)
                .response_result
                .expect_err("refused")
                .code,
            ErrorCode::InvalidRequest as i32
        );
        send(Notification::new("exit".into(), Value::Null).into());
        assert_eq!(handle.join().expect("no panic"), Ok(Ended::Clean));
    }

    #[test]
    fn utf8_is_chosen_when_offered() {
        let (server, client) = Connection::memory();
        let handle = std::thread::spawn(move || {
            serve(
                &server,
                Host {
                    bundled: toolgate_generated::load_bundled,
                },
            )
        });
        let params =
            json!({"capabilities": {"general": {"positionEncodings": ["utf-16", "utf-8"]}}});
        client
            .sender
            .send(Request::new(RequestId::from(1), "initialize".into(), params).into())
            .expect("send");
        let init = answer(&client, 1);
        assert_eq!(
            init.response_result.expect("result")["capabilities"]["positionEncoding"],
            "utf-8"
        );
        // The client goes away before `initialized`: the session could not start.
        drop(client);
        assert!(handle.join().expect("no panic").is_err());
    }
}
