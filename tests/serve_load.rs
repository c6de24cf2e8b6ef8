//! Load check of `toolgate serve` (ignored by default; `scripts/serve-load.sh` runs it on a
//! release build and prints the numbers that `docs/benchmarks.md` records).
//!
//! One client, one stdio session, `TOOLGATE_LOAD_CALLS` (default 10,000) `tools/call`s in a
//! row, cycling through a valid call of every tool of tatara's `implement` profile, arguments
//! that fail the schema in each way the issue names, and tools that are unknown or not
//! granted. Every answer must be the expected one (a typed echo, a tool error naming the
//! field, or JSON-RPC -32602); afterwards the server must still list its tools and answer a
//! call. It reports calls per second and the server's peak resident memory (`VmHWM`). Not a
//! timed test: it fails on a wrong answer, never on a slow one.

mod mcp_support;

use std::time::Instant;

use mcp_support::{RawClient, example, surface};
use serde_json::{Value, json};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Valid,
    Invalid,
    Unknown,
}

#[test]
#[ignore = "a load check: run it with scripts/serve-load.sh"]
fn ten_thousand_calls_in_a_row() {
    let calls: usize = std::env::var("TOOLGATE_LOAD_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let s = surface("tatara");
    let mut mix: Vec<(String, Value, Kind)> = s
        .served(&s.resolve("implement"))
        .iter()
        .map(|t| {
            (
                t.tool.name.clone(),
                example(&t.entry.input_schema, true),
                Kind::Valid,
            )
        })
        .collect();
    for (tool, args) in [
        (
            "mr_write",
            json!({"action": "open", "repo": "api", "labels": ["x"]}),
        ),
        ("mr_write", json!({"action": "merge", "repo": "api"})),
        ("mr_write", json!({"repo": "api"})),
        ("task_get", json!({"task": 7})),
    ] {
        mix.push((tool.to_string(), args, Kind::Invalid));
    }
    mix.push(("memory_edges".into(), json!({"entity": "x"}), Kind::Unknown));
    mix.push(("no_such_tool".into(), json!({}), Kind::Unknown));

    let mut client = RawClient::start(&["--catalog", "tatara", "--profile", "implement"], &[]);
    let listed = client.list();
    let mut counts = [0usize; 3];
    let start = Instant::now();
    for i in 0..calls {
        let (tool, args, kind) = &mix[i % mix.len()];
        let r = client.call(tool, args);
        let got = if r.get("error").is_some() {
            assert_eq!(
                r["error"],
                json!({"code": -32602, "message": format!("unknown tool `{tool}`")}),
                "call {i}"
            );
            Kind::Unknown
        } else if r["result"]["isError"] == json!(true) {
            Kind::Invalid
        } else {
            assert_eq!(
                r["result"]["structuredContent"]["tool"],
                json!(tool),
                "call {i}"
            );
            Kind::Valid
        };
        assert_eq!(got, *kind, "call {i}: {tool} {args} -> {r}");
        counts[got as usize] += 1;
    }
    let elapsed = start.elapsed();
    // Still answering, and still serving the same list.
    assert_eq!(client.list(), listed);
    let r = client.call("task_get", &json!({"task": "t"}));
    assert_eq!(r["result"]["isError"], json!(false), "{r}");
    let peak_kib = client.peak_memory_kib();
    let (status, stderr) = client.close();
    assert!(status.success(), "exit {status}: {stderr}");
    let per_second = calls as f64 / elapsed.as_secs_f64();
    println!(
        "serve load check: {calls} calls ({} valid, {} invalid arguments, {} unknown or ungranted) in {:.2} s: {per_second:.0} calls/s; server peak RSS (VmHWM) {} KiB; still answering afterwards",
        counts[Kind::Valid as usize],
        counts[Kind::Invalid as usize],
        counts[Kind::Unknown as usize],
        elapsed.as_secs_f64(),
        peak_kib.map_or("unknown".to_string(), |k| k.to_string()),
    );
}
