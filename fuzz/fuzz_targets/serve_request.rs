//! The rmcp adapter's request handling, without the async transport: one line of input
//! decoded as rmcp's stdio transport decodes it (a `ClientJsonRpcMessage`), and a
//! `tools/list` or `tools/call` answered by the pure entry points of `toolgate serve`
//! (`ToolServer::tools`, `ToolServer::call`).
//!
//! The input is `catalog<TAB>selector<LF>message`. Each message is answered by two servers
//! of the same session: the bundled one (generated typed dispatch) and the one over the
//! catalog folder (run-time validator, what `toolgate serve --catalog DIR` runs). They must
//! list the same tools and answer every call alike: the same JSON-RPC error, or a tool
//! result with the same `isError`, text and structured content (violations, or the echo:
//! the folder's untyped echo must equal the typed one, defaults and number types included).
//! Every answer must serialize as a JSON-RPC response.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rmcp::model::{
    CallToolResult, ClientJsonRpcMessage, ClientRequest, ErrorData, JsonRpcMessage, RequestId,
    ServerJsonRpcMessage, ServerResult,
};
use toolgate_schema::runtime::Source;
use toolgate_serve::echo;

fn text(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .map(|c| c.as_text().map(|t| t.text.clone()).unwrap_or_default())
        .collect()
}

/// The answer serializes as the JSON-RPC response rmcp would write.
fn writes(id: &RequestId, answer: &Result<CallToolResult, ErrorData>) {
    let message: ServerJsonRpcMessage = match answer {
        Ok(result) => {
            JsonRpcMessage::response(ServerResult::CallToolResult(result.clone()), id.clone())
        }
        Err(error) => JsonRpcMessage::error(error.clone(), Some(id.clone())),
    };
    serde_json::to_string(&message).expect("the answer serializes");
}

fuzz_target!(|data: &[u8]| {
    let (header, line) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let header = String::from_utf8_lossy(header);
    let (catalog, selector) = header.split_once('\t').unwrap_or((&header, ""));
    let (name, surface) = if catalog.starts_with('m') {
        ("maetra", &common::surfaces()[1])
    } else {
        ("tatara", &common::surfaces()[0])
    };
    // What rmcp's transport does with a line: drop a BOM and a CR, then serde.
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(line) else {
        return;
    };
    let JsonRpcMessage::Request(request) = message else {
        return;
    };
    // The value as `--profile` gives it: both sessions must word a warning alike.
    let source = Source::Given("--profile");
    let bundled = bundled(name, selector, source).expect("its tools/list reads");
    let folder = echo::folder(surface, selector, source).expect("its tools/list reads");
    assert_eq!(bundled.profiles, folder.profiles);
    assert_eq!(bundled.warning, folder.warning);
    let tools =
        |s: &echo::EchoSession| serde_json::to_value(s.server.tools()).expect("tools serialize");
    match request.request {
        ClientRequest::ListToolsRequest(_) => {
            assert_eq!(tools(&bundled), tools(&folder));
        }
        ClientRequest::CallToolRequest(call) => {
            let params = &call.params;
            let a = bundled.server.call(&params.name, params.arguments.as_ref());
            let b = folder.server.call(&params.name, params.arguments.as_ref());
            writes(&request.id, &a);
            writes(&request.id, &b);
            match (&a, &b) {
                (Err(x), Err(y)) => {
                    assert_eq!((x.code, &x.message), (y.code, &y.message));
                }
                (Ok(x), Ok(y)) => {
                    assert_eq!(x.is_error, y.is_error, "{x:?} / {y:?}");
                    assert_eq!(x.structured_content, y.structured_content);
                    assert_eq!(text(x), text(y));
                }
                _ => panic!("the two servers disagree: {a:?} / {b:?}"),
            }
        }
        _ => {}
    }
});

/// The echo session of a bundled catalog through its generated dispatch, as the CLI builds it.
fn bundled(
    name: &str,
    selector: &str,
    source: Source<'_>,
) -> Result<echo::EchoSession, toolgate_serve::ServeError> {
    use toolgate_generated::{maetra, tatara};
    if name == "tatara" {
        echo::generated(
            name,
            tatara::Session::resolve_from(selector, source),
            |s, tool, args| tatara::dispatch(s, &tatara::EchoHandler, tool, args),
        )
    } else {
        echo::generated(
            name,
            maetra::Session::resolve_from(selector, source),
            |s, tool, args| maetra::dispatch(s, &maetra::EchoHandler, tool, args),
        )
    }
}
