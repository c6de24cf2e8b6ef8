//! The JSON-RPC errors the MCP specification asks for where rmcp answers otherwise or not at
//! all: -32700 for what is not JSON (or not UTF-8), -32600 for JSON that is not a request (a
//! batch among them), -32602 for a known method whose params do not read, a second
//! `initialize` refused.
//!
//! rmcp drops a line that does not parse as JSON (its stdio transport) or answers it with a
//! plain-text 415 (its HTTP transport); both transports here classify a message with
//! [`classify`] before rmcp sees it, and answer with [`Refusal::message`].
//!
//! An error whose request id cannot be read carries no `id` at all: JSON-RPC 2.0 writes
//! `"id": null` there, but MCP's schema (2025-11-25) has no null request id, and its
//! `JSONRPCErrorResponse` makes `id` optional for exactly this case.

use rmcp::model::{
    ClientJsonRpcMessage, CustomRequest, ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage,
};
use serde_json::Value;

/// UTF-8 byte order mark: RFC 8259 lets a parser ignore it, as rmcp's transport does.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// What to do with one incoming message.
#[derive(Debug)]
pub(crate) enum Classified {
    /// A JSON-RPC message rmcp reads: hand it on.
    Message(Box<ClientJsonRpcMessage>),
    /// Nothing to answer: an empty line, or a notification (never answered, even when it
    /// does not read).
    Ignore,
    /// Answer with this error and drop the message.
    Refuse(Refusal),
}

/// A refused message: the error and the request id, when one could be read.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub(crate) error: ErrorData,
    pub(crate) id: Option<RequestId>,
}

impl Refusal {
    /// The JSON-RPC error response.
    pub(crate) fn message(self) -> ServerJsonRpcMessage {
        ServerJsonRpcMessage::error(self.error, self.id)
    }
}

/// Classifies one message's bytes (a line without its line break, or an HTTP body).
pub(crate) fn classify(bytes: &[u8]) -> Classified {
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Classified::Ignore;
    }
    if let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        return Classified::Message(Box::new(message));
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        return refuse(
            ErrorData::parse_error(format!("Parse error: the message is not UTF-8 ({e})"), None),
            None,
        );
    }
    let value = match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => v,
        Err(e) => {
            return refuse(
                ErrorData::parse_error(format!("Parse error: {e}"), None),
                None,
            );
        }
    };
    let object = match value {
        Value::Object(o) => o,
        Value::Array(_) => {
            return refuse(
                ErrorData::invalid_request(
                    "Invalid request: a JSON-RPC batch; MCP (since 2025-06-18) takes one message at a time",
                    None,
                ),
                None,
            );
        }
        _ => {
            return refuse(
                ErrorData::invalid_request("Invalid request: not a JSON-RPC object", None),
                None,
            );
        }
    };
    let id = object
        .get("id")
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    if !object.contains_key("id") && object.get("method").is_some_and(Value::is_string) {
        // A notification that does not read: JSON-RPC never answers a notification.
        return Classified::Ignore;
    }
    let why = if object.get("jsonrpc") != Some(&Value::from("2.0")) {
        "Invalid request: `jsonrpc` must be \"2.0\""
    } else if object.get("method").is_some_and(|m| !m.is_string()) {
        "Invalid request: `method` must be a string"
    } else {
        "Invalid request: not a JSON-RPC request, notification or response"
    };
    refuse(ErrorData::invalid_request(why, None), id)
}

fn refuse(error: ErrorData, id: Option<RequestId>) -> Classified {
    Classified::Refuse(Refusal { error, id })
}

/// The error for a message past the size limit (its id is not read).
pub(crate) fn too_large(limit: usize) -> Refusal {
    Refusal {
        error: ErrorData::invalid_request(
            format!("Invalid request: the message is larger than {limit} bytes"),
            None,
        ),
        id: None,
    }
}

/// The answer to a second `initialize` in one session.
pub(crate) fn already_initialized() -> ErrorData {
    ErrorData::invalid_request(
        "Invalid request: this session is already initialized; a second `initialize` is refused",
        None,
    )
}

/// The request methods of MCP that rmcp reads into typed requests. A request of one of them
/// that reaches `on_custom_request` is one whose params did not read.
const MCP_REQUEST_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/call",
    "tools/list",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/templates/list",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/list",
    "tasks/cancel",
    "tasks/result",
];

/// The answer to a request rmcp did not read as one of its typed requests: -32602 (invalid
/// params) for an MCP method whose params are wrong, naming what is wrong for `tools/call`;
/// -32601 (method not found) for any other method, as rmcp answers.
pub(crate) fn unreadable_request(request: &CustomRequest) -> ErrorData {
    let method = request.method.as_str();
    if !MCP_REQUEST_METHODS.contains(&method) {
        return ErrorData::new(ErrorCode::METHOD_NOT_FOUND, method.to_string(), None);
    }
    let why = if method == "tools/call" {
        tools_call_params_problem(request.params.as_ref())
    } else {
        "they do not match the method's schema"
    };
    ErrorData::invalid_params(format!("invalid params for `{method}`: {why}"), None)
}

fn tools_call_params_problem(params: Option<&Value>) -> &'static str {
    let Some(Value::Object(params)) = params else {
        return "params must be an object with the tool's `name`";
    };
    match params.get("name") {
        None => return "missing the tool's `name`",
        Some(Value::String(_)) => {}
        Some(_) => return "`name` must be a string",
    }
    match params.get("arguments") {
        Some(Value::Object(_)) | Some(Value::Null) | None => {
            "they do not match the schema of `tools/call`"
        }
        Some(_) => "`arguments` must be an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(bytes: &[u8]) -> serde_json::Value {
        match classify(bytes) {
            Classified::Refuse(r) => serde_json::to_value(r.message()).expect("serializes"),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn parse_errors_have_no_id() {
        for bytes in [&b"not json"[..], b"{]", b"\xff\xfe", b"{\"id\": 1, "] {
            let r = refusal(bytes);
            assert_eq!(r["error"]["code"], -32700, "{r}");
            assert!(r.get("id").is_none(), "{r}");
        }
    }

    #[test]
    fn invalid_requests_carry_the_id_they_can() {
        let r = refusal(br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#);
        assert_eq!(r["error"]["code"], -32600);
        assert_eq!(r["id"], 7);
        let r = refusal(br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
        assert!(r.get("id").is_none(), "{r}");
        for bytes in [&b"[1]"[..], b"null", b"\"x\"", b"{}"] {
            assert_eq!(refusal(bytes)["error"]["code"], -32600);
        }
        let r = refusal(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
        assert!(r["error"]["message"].as_str().unwrap().contains("batch"));
    }

    #[test]
    fn notifications_and_blank_lines_are_never_answered() {
        for bytes in [
            &b""[..],
            b"  ",
            br#"{"jsonrpc":"2.0","method":"x/y","params":3}"#,
        ] {
            assert!(matches!(classify(bytes), Classified::Ignore));
        }
    }

    #[test]
    fn tools_call_params_name_the_problem() {
        let call =
            |params: Value| unreadable_request(&CustomRequest::new("tools/call", Some(params)));
        let e = call(serde_json::json!({"name": 1}));
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            e.message,
            "invalid params for `tools/call`: `name` must be a string"
        );
        let e = call(serde_json::json!({"name": "x", "arguments": [1]}));
        assert_eq!(
            e.message,
            "invalid params for `tools/call`: `arguments` must be an object"
        );
        let e = unreadable_request(&CustomRequest::new("x/y", None));
        assert_eq!(e.code, ErrorCode::METHOD_NOT_FOUND);
    }
}
