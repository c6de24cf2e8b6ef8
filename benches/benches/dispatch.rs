//! Typed dispatch of the generated code against `serde_json::Value` parsing plus validation
//! with the `jsonschema` crate, on the same mixed set of real calls (JSON text in, the
//! handler reached or the call refused). Validators are compiled once, outside the loop.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use toolgate_benches::{CALLS, MaetraSink, Sink};
use toolgate_generated::{maetra, tatara};

/// The input schema each (catalog, tool) is served in the benchmarked sessions.
fn served_schemas() -> HashMap<(&'static str, &'static str), serde_json::Value> {
    let mut out = HashMap::new();
    for (catalog, lists) in [
        (
            "tatara",
            tatara::Profile::Implement.tools_list_json().to_string(),
        ),
        (
            "maetra",
            maetra::Session::resolve("task_guard,secure,govern")
                .tools_list_json()
                .into_owned(),
        ),
    ] {
        let v: serde_json::Value = serde_json::from_str(&lists).unwrap();
        for t in v["tools"].as_array().unwrap() {
            let name = t["name"].as_str().unwrap().to_string();
            let name: &'static str = Box::leak(name.into_boxed_str());
            out.insert((catalog, name), t["inputSchema"].clone());
        }
    }
    out
}

fn dispatch(c: &mut Criterion) {
    let maetra_session = maetra::Session::resolve("task_guard,secure,govern");
    // Every call is valid for both paths.
    let validators: HashMap<(&str, &str), jsonschema::Validator> = served_schemas()
        .into_iter()
        .map(|(k, schema)| (k, jsonschema::validator_for(&schema).unwrap()))
        .collect();
    for call in CALLS {
        let v: serde_json::Value = serde_json::from_str(call.arguments).unwrap();
        assert!(
            validators[&(call.catalog, call.tool)].is_valid(&v),
            "{}",
            call.tool
        );
        let typed = match call.catalog {
            "tatara" => tatara::dispatch_implement(&Sink, call.tool, call.arguments),
            _ => maetra::dispatch(&maetra_session, &MaetraSink, call.tool, call.arguments),
        };
        assert!(typed.is_ok(), "{}: {typed:?}", call.tool);
    }

    let mut group = c.benchmark_group("mixed calls");
    group.throughput(Throughput::Elements(CALLS.len() as u64));
    group.bench_function("typed dispatch (generated)", |b| {
        b.iter(|| {
            for call in CALLS {
                let r = match call.catalog {
                    "tatara" => {
                        tatara::dispatch_implement(&Sink, call.tool, black_box(call.arguments))
                    }
                    _ => maetra::dispatch(
                        &maetra_session,
                        &MaetraSink,
                        call.tool,
                        black_box(call.arguments),
                    ),
                };
                black_box(r.is_ok());
            }
        })
    });
    group.bench_function("serde_json::Value + jsonschema", |b| {
        b.iter(|| {
            for call in CALLS {
                let value: serde_json::Value =
                    serde_json::from_str(black_box(call.arguments)).unwrap();
                let ok = validators
                    .get(&(call.catalog, call.tool))
                    .is_some_and(|v| v.is_valid(&value));
                black_box((ok, value));
            }
        })
    });
    group.bench_function("serde_json::Value only (no validation)", |b| {
        b.iter(|| {
            for call in CALLS {
                let value: serde_json::Value =
                    serde_json::from_str(black_box(call.arguments)).unwrap();
                black_box(value);
            }
        })
    });
    group.finish();

    // What an MCP server gets from rmcp: arguments already parsed into a JSON object.
    let parsed: Vec<serde_json::Value> = CALLS
        .iter()
        .map(|c| serde_json::from_str(c.arguments).unwrap())
        .collect();
    let mut group = c.benchmark_group("mixed calls, arguments already parsed");
    group.throughput(Throughput::Elements(CALLS.len() as u64));
    group.bench_function("typed dispatch (generated)", |b| {
        b.iter(|| {
            for (call, value) in CALLS.iter().zip(&parsed) {
                let r = match call.catalog {
                    "tatara" => tatara::dispatch_implement(&Sink, call.tool, black_box(value)),
                    _ => {
                        maetra::dispatch(&maetra_session, &MaetraSink, call.tool, black_box(value))
                    }
                };
                black_box(r.is_ok());
            }
        })
    });
    group.bench_function("jsonschema", |b| {
        b.iter(|| {
            for (call, value) in CALLS.iter().zip(&parsed) {
                let ok = validators
                    .get(&(call.catalog, call.tool))
                    .is_some_and(|v| v.is_valid(black_box(value)));
                black_box(ok);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
