//! One side of the `dispatch` benchmark in a plain loop, for `perf record` and
//! `valgrind --tool=callgrind` (criterion's own loop is harder to read in a profile):
//!
//! ```sh
//! cargo build --release --example profile
//! ../target/release/examples/profile typed          # N rounds of the 14 calls (N=200000)
//! N=2000 valgrind --tool=callgrind ../target/release/examples/profile typed
//! ONLY=request_approval ../target/release/examples/profile map
//! ```
//!
//! Modes: `typed` and `baseline` (JSON text), `map` and `map-baseline` (arguments already
//! parsed), `skip` (serde_json reading the text into `IgnoredAny`: what any serde_json parse
//! costs at least), `free-json` and `free-json-skip` (the four free JSON objects of the calls
//! read as `serde_json::Value`, or skipped), `wild`, `wild-baseline`, `wild-map` and
//! `wild-map-baseline` (the same four over the calls of the wild shapes, `WILD_CALLS`).
//! `ONLY=tool` keeps one call. It prints the time per round on stderr.

use std::collections::HashMap;
use std::hint::black_box;

use serde::de::IgnoredAny;
use toolgate_benches::{CALLS, Call, WILD_CALLS, typed_dispatch, wild_dispatch};
use toolgate_generated::maetra;

/// The free JSON values (`serde_json::Value` fields) of [`CALLS`].
const FREE_JSON: &[&str] = &[
    r#"{"order":"1182"}"#,
    r#"{"order":"1182","amount":120,"currency":"EUR"}"#,
    r#"{"order":"1182","amount":120}"#,
    r#"{"id":"re_123","status":"succeeded"}"#,
];

fn main() {
    let session = maetra::Session::resolve("task_guard,secure,govern");
    let rounds: u32 = std::env::var("N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let mode = std::env::args().nth(1).unwrap_or_default();
    let only = std::env::var("ONLY").ok();
    let calls: Vec<&Call> = CALLS
        .iter()
        .filter(|c| only.as_deref().is_none_or(|o| o == c.tool))
        .collect();
    let validators: HashMap<(&str, &str), jsonschema::Validator> =
        toolgate_benches::served_schemas(&session)
            .into_iter()
            .map(|(k, schema)| {
                (
                    k,
                    jsonschema::validator_for(&schema).expect("schema compiles"),
                )
            })
            .collect();
    let parsed: Vec<serde_json::Value> = calls
        .iter()
        .map(|c| serde_json::from_str(c.arguments).expect("valid JSON"))
        .collect();
    let validator = |call: &Call| validators.get(&(call.catalog, call.tool));
    let wild_calls: Vec<&Call> = WILD_CALLS
        .iter()
        .filter(|c| only.as_deref().is_none_or(|o| o == c.tool))
        .collect();
    let wild_validators: HashMap<&str, jsonschema::Validator> =
        toolgate_benches::wild_served_schemas()
            .into_iter()
            .map(|(k, schema)| {
                (
                    k,
                    jsonschema::validator_for(&schema).expect("schema compiles"),
                )
            })
            .collect();
    let wild_parsed: Vec<serde_json::Value> = wild_calls
        .iter()
        .map(|c| serde_json::from_str(c.arguments).expect("valid JSON"))
        .collect();
    let start = std::time::Instant::now();
    for _ in 0..rounds {
        match mode.as_str() {
            "typed" => {
                for call in &calls {
                    let r = typed_dispatch(call, &session, black_box(call.arguments));
                    black_box(r.is_ok());
                }
            }
            "baseline" => {
                for call in &calls {
                    let value: serde_json::Value =
                        serde_json::from_str(black_box(call.arguments)).expect("valid JSON");
                    let ok = validator(call).is_some_and(|v| v.is_valid(&value));
                    black_box((ok, value));
                }
            }
            "map" => {
                for (call, value) in calls.iter().zip(&parsed) {
                    let Some(object) = value.as_object() else {
                        continue;
                    };
                    let r = typed_dispatch(call, &session, black_box(object));
                    black_box(r.is_ok());
                }
            }
            "map-baseline" => {
                for (call, value) in calls.iter().zip(&parsed) {
                    black_box(validator(call).is_some_and(|v| v.is_valid(black_box(value))));
                }
            }
            "skip" => {
                for call in &calls {
                    let r = serde_json::from_str::<IgnoredAny>(black_box(call.arguments));
                    black_box(r.is_ok());
                }
            }
            "free-json" => {
                for text in FREE_JSON {
                    let r = serde_json::from_str::<serde_json::Value>(black_box(text));
                    black_box(r.is_ok());
                }
            }
            "free-json-skip" => {
                for text in FREE_JSON {
                    let r = serde_json::from_str::<IgnoredAny>(black_box(text));
                    black_box(r.is_ok());
                }
            }
            "wild" => {
                for call in &wild_calls {
                    let r = wild_dispatch(call, black_box(call.arguments));
                    black_box(r.is_ok());
                }
            }
            "wild-baseline" => {
                for call in &wild_calls {
                    let value: serde_json::Value =
                        serde_json::from_str(black_box(call.arguments)).expect("valid JSON");
                    let ok = wild_validators
                        .get(call.tool)
                        .is_some_and(|v| v.is_valid(&value));
                    black_box((ok, value));
                }
            }
            "wild-map" => {
                for (call, value) in wild_calls.iter().zip(&wild_parsed) {
                    let Some(object) = value.as_object() else {
                        continue;
                    };
                    let r = wild_dispatch(call, black_box(object));
                    black_box(r.is_ok());
                }
            }
            "wild-map-baseline" => {
                for (call, value) in wild_calls.iter().zip(&wild_parsed) {
                    black_box(
                        wild_validators
                            .get(call.tool)
                            .is_some_and(|v| v.is_valid(black_box(value))),
                    );
                }
            }
            _ => {
                eprintln!(
                    "mode: typed, baseline, map, map-baseline, skip, free-json, free-json-skip, wild, wild-baseline, wild-map or wild-map-baseline"
                );
                std::process::exit(2);
            }
        }
    }
    let per_round = start.elapsed().as_secs_f64() * 1e6 / f64::from(rounds.max(1));
    let count = if mode.starts_with("wild") {
        wild_calls.len()
    } else {
        calls.len()
    };
    eprintln!("{mode}: {per_round:.2} µs per round of {count} calls");
}
