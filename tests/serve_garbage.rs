//! `toolgate serve` and a client that sends garbage: lines that are not JSON, JSON that is
//! not a JSON-RPC message, truncated messages, argument objects of 10 MB, a line past the
//! limit. The server must not crash, must answer each as the MCP specification asks, and must
//! go on answering valid calls:
//!
//! - what is not JSON, or not UTF-8: `-32700 Parse error`;
//! - JSON that is not a JSON-RPC message (a batch among them): `-32600 Invalid request`;
//! - a known method whose params do not read (`tools/call` without a name, or with
//!   non-object arguments): `-32602`, by the request's id;
//! - a line past the 16 MiB limit: `-32600`, dropped without being buffered.
//!
//! An error whose id cannot be read has no `id` member at all: JSON-RPC 2.0 writes
//! `"id": null` there, but MCP's schema has no null request id (its error response makes
//! `id` optional instead). rmcp's own stdio transport drops unparsable lines in silence;
//! toolgate's transport answers them (`toolgate_serve`'s `protocol` module).

mod mcp_support;

use mcp_support::RawClient;
use serde_json::{Value, json};

/// Sends `bytes`, then a `ping`: what the server wrote in between (its answer to `bytes`,
/// if any). The ping must be answered.
fn answer_to(c: &mut RawClient, bytes: &[u8]) -> Vec<Value> {
    c.send_raw(bytes);
    let (others, pong) = c.request_and_others("ping", json!({}));
    assert_eq!(pong["result"], json!({}), "{pong}");
    others
}

/// The one error answered, without an id: its code.
fn code_without_id(answer: &[Value]) -> i64 {
    assert_eq!(answer.len(), 1, "{answer:?}");
    assert!(answer[0].get("id").is_none(), "{answer:?}");
    assert_eq!(answer[0]["jsonrpc"], "2.0");
    answer[0]["error"]["code"].as_i64().expect("an error code")
}

#[test]
fn garbage_truncated_messages_and_huge_arguments_then_a_valid_call() {
    let mut c = RawClient::start(&["--catalog", "tatara", "--profile", "refine"], &[]);

    // Blank lines: nothing to answer.
    for blank in [&b"\r\n"[..], b"\n\n\n"] {
        assert_eq!(answer_to(&mut c, blank), Vec::<Value>::new(), "{blank:?}");
    }
    // Not JSON, or not UTF-8: a parse error without an id.
    for garbage in [
        &b"this is not json\n"[..],
        b"\xff\xfe\x00\x01garbage\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xff\"}\n",
        b"{]\n",
    ] {
        assert_eq!(
            code_without_id(&answer_to(&mut c, garbage)),
            -32700,
            "{garbage:?}"
        );
    }
    // Truncated messages, ended by a line break: not JSON either.
    let call = br#"{"jsonrpc":"2.0","id":"cut","method":"tools/call","params":{"name":"task_get","arguments":{"task":"t-1"}}}"#;
    for cut in [10, 40, 80, call.len() - 1] {
        let mut line = call[..cut].to_vec();
        line.push(b'\n');
        assert_eq!(code_without_id(&answer_to(&mut c, &line)), -32700, "{cut}");
    }
    // JSON that is not a JSON-RPC message, and batches: Invalid request, without an id.
    for wrong in [
        &b"{\"hello\": \"world\"}\n"[..],
        b"[1, 2, 3]\n",
        b"[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}]\n",
        b"[]\n",
        b"\"a string\"\n",
        b"null\n",
    ] {
        assert_eq!(
            code_without_id(&answer_to(&mut c, wrong)),
            -32600,
            "{wrong:?}"
        );
    }
    // An invalid request whose id reads is answered by that id.
    let r = answer_to(
        &mut c,
        b"{\"jsonrpc\": \"1.0\", \"id\": 1, \"method\": \"ping\"}\n",
    );
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0]["id"], 1);
    assert_eq!(r[0]["error"]["code"], -32600);
    // A notification that does not read is never answered.
    assert_eq!(
        answer_to(
            &mut c,
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":7}\n"
        ),
        Vec::<Value>::new()
    );
    // A tools/call whose params do not read: -32602 by its id, naming what is wrong.
    for (params, why) in [
        (json!({"name": 1}), "`name` must be a string"),
        (json!({"arguments": {}}), "missing the tool's `name`"),
        (
            json!({"name": "task_get", "arguments": [1]}),
            "`arguments` must be an object",
        ),
        (
            json!({"name": "task_get", "arguments": "x"}),
            "`arguments` must be an object",
        ),
    ] {
        let r = c.request("tools/call", params);
        assert_eq!(
            r["error"],
            json!({"code": -32602, "message": format!("invalid params for `tools/call`: {why}")}),
            "{r}"
        );
    }
    // A second initialize is refused.
    let r = c.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "again", "version": "0"}}),
    );
    assert_eq!(r["error"]["code"], -32600, "{r}");

    // A 10 MB argument object of one string: valid, echoed whole.
    let big = "x".repeat(10 << 20);
    let r = c.call("task_get", &json!({"task": big}));
    assert_eq!(r["result"]["isError"], false, "{}", &r.to_string()[..200]);
    assert_eq!(r["result"]["structuredContent"]["arguments"]["task"], big);
    drop(big);

    // A 10 MB argument object of 400,000 fields mr_write does not have: one refusal, its
    // first 100 violations listed (the missing required fields, then unknown fields by
    // name) and the rest counted.
    let mut huge = serde_json::Map::new();
    for i in 0..400_000 {
        huge.insert(format!("field_{i:07}"), json!("value-value"));
    }
    let huge = Value::Object(huge);
    assert!(huge.to_string().len() > 10_000_000);
    let r = c.call("mr_write", &huge);
    assert_eq!(r["result"]["isError"], true);
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "invalid arguments for `mr_write`: missing required field `action`; missing required field `repo`; unknown field `field_0000000` (expected one of `action`, `project`, `repo`, `number`, `title`, `body`, `in_reply_to`); "
        ),
        "{}",
        &text[..300]
    );
    assert!(
        text.ends_with("; and 399902 more violations not listed"),
        "{}",
        &text[text.len() - 300..]
    );
    let violations = r["result"]["structuredContent"]["violations"]
        .as_array()
        .unwrap();
    assert_eq!(violations.len(), 101);
    drop(huge);

    // 10 MB of nesting: past serde_json's depth limit, so not JSON: a parse error.
    let mut deep = br#"{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"task_get","arguments":{"task":"#.to_vec();
    deep.extend(std::iter::repeat_n(b'[', 5 << 20));
    deep.extend(std::iter::repeat_n(b']', 5 << 20));
    deep.extend_from_slice(b"}}}\n");
    assert_eq!(code_without_id(&answer_to(&mut c, &deep)), -32700);
    drop(deep);

    // A line longer than the limit (16 MiB): -32600 without an id, dropped unread.
    let mut long = br#"{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"task_get","arguments":{"task":""#.to_vec();
    long.extend(std::iter::repeat_n(b'y', 17 << 20));
    long.extend_from_slice(b"\"}}}\n");
    let r = answer_to(&mut c, &long);
    assert_eq!(code_without_id(&r), -32600);
    assert_eq!(
        r[0]["error"]["message"],
        "Invalid request: the message is larger than 16777216 bytes"
    );
    drop(long);

    // And then a valid call is answered, and so is everything else.
    let r = c.call("task_get", &json!({"task": "t-1"}));
    assert_eq!(
        r["result"],
        json!({
            "content": [{"type": "text", "text": "{\"arguments\":{\"task\":\"t-1\"},\"tool\":\"task_get\"}"}],
            "structuredContent": {"arguments": {"task": "t-1"}, "tool": "task_get"},
            "isError": false
        })
    );
    let r = c.call("mr_write", &json!({"action": "open", "repo": "api"}));
    assert_eq!(
        r["result"]["content"][0]["text"],
        "invalid arguments for `mr_write`: field `action`: \"open\" is not one of \"comment\""
    );
    assert_eq!(c.list().as_array().map(Vec::len), Some(13));

    let (status, stderr) = c.close();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
