//! `toolgate serve` and a client that sends garbage: lines that are not JSON, JSON that is
//! not a JSON-RPC message, truncated messages, argument objects of 10 MB, a line past the
//! SDK's limit. The server must not crash, must answer each as the pinned SDK (rmcp ~3.11)
//! answers such input (silence for what does not parse as JSON, `-32600 Invalid request`
//! for JSON of the wrong shape), and must go on answering valid calls.

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

fn invalid_request() -> Vec<Value> {
    vec![json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid request"}})]
}

#[test]
fn garbage_truncated_messages_and_huge_arguments_then_a_valid_call() {
    let mut c = RawClient::start(&["--catalog", "tatara", "--profile", "refine"], &[]);

    // Not JSON: ignored, as the other official SDKs do (no id to answer).
    for garbage in [
        &b"this is not json\n"[..],
        b"\xff\xfe\x00\x01garbage\n",
        b"{]\n",
        b"\r\n",
        b"\n\n\n",
    ] {
        assert_eq!(
            answer_to(&mut c, garbage),
            Vec::<Value>::new(),
            "{garbage:?}"
        );
    }
    // Truncated messages, ended by a line break: not JSON either.
    let call = br#"{"jsonrpc":"2.0","id":"cut","method":"tools/call","params":{"name":"task_get","arguments":{"task":"t-1"}}}"#;
    for cut in [10, 40, 80, call.len() - 1] {
        let mut line = call[..cut].to_vec();
        line.push(b'\n');
        assert_eq!(answer_to(&mut c, &line), Vec::<Value>::new(), "{cut}");
    }
    // JSON that is not a JSON-RPC message: Invalid request, without an id.
    for wrong in [
        &b"{\"hello\": \"world\"}\n"[..],
        b"[1, 2, 3]\n",
        b"\"a string\"\n",
        b"null\n",
        b"{\"jsonrpc\": \"1.0\", \"id\": 1, \"method\": \"ping\"}\n",
    ] {
        assert_eq!(answer_to(&mut c, wrong), invalid_request(), "{wrong:?}");
    }
    // A request whose params do not read is answered by its id (rmcp: method not found).
    assert_eq!(
        answer_to(
            &mut c,
            b"{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"tools/call\",\"params\":{\"name\":1}}\n"
        ),
        vec![json!({"jsonrpc": "2.0", "id": "p", "error": {"code": -32601, "message": "tools/call"}})]
    );

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

    // 10 MB of nesting: past serde_json's depth limit, so not JSON: ignored.
    let mut deep = br#"{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"task_get","arguments":{"task":"#.to_vec();
    deep.extend(std::iter::repeat_n(b'[', 5 << 20));
    deep.extend(std::iter::repeat_n(b']', 5 << 20));
    deep.extend_from_slice(b"}}}\n");
    assert_eq!(answer_to(&mut c, &deep), Vec::<Value>::new());
    drop(deep);

    // A line longer than the SDK reads (16 MiB): dropped, whatever it holds.
    let mut long = br#"{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"task_get","arguments":{"task":""#.to_vec();
    long.extend(std::iter::repeat_n(b'y', 17 << 20));
    long.extend_from_slice(b"\"}}}\n");
    assert_eq!(answer_to(&mut c, &long), Vec::<Value>::new());
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
