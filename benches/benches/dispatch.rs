//! Typed dispatch of the generated code against `serde_json::Value` parsing plus validation
//! with the `jsonschema` crate, on the same mixed set of real calls (the handler reached or
//! the call refused). Validators are compiled once, outside the loop.
//!
//! Two inputs: the arguments as JSON text, and the arguments already parsed into a
//! `serde_json::Map`, which is what rmcp hands an MCP server. A third group runs the calls of
//! the wild shapes (`catalogs/wild`: `$defs`, unions, nullable fields, `const` tags) both ways.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde::de::IgnoredAny;
use toolgate_benches::{
    CALLS, WILD_CALLS, argument_type, served_schemas, typed_dispatch, wild_argument_type,
    wild_dispatch, wild_served_schemas,
};
use toolgate_generated::maetra;
use toolgate_schema::runtime::direct::Agreement;

fn dispatch(c: &mut Criterion) {
    let maetra_session = maetra::Session::resolve("task_guard,secure,govern");
    let validators: HashMap<(&str, &str), jsonschema::Validator> = served_schemas(&maetra_session)
        .into_iter()
        .map(|(k, schema)| (k, jsonschema::validator_for(&schema).unwrap()))
        .collect();
    let parsed: Vec<serde_json::Value> = CALLS
        .iter()
        .map(|c| serde_json::from_str(c.arguments).unwrap())
        .collect();
    // Every call is valid for both paths, from both inputs, and as text it is read by the
    // generated direct path (to the value serde reads), not left to serde.
    for (call, value) in CALLS.iter().zip(&parsed) {
        assert_eq!(
            (argument_type(call).compare_direct)(call.arguments),
            Agreement::Same,
            "{}",
            call.tool
        );
        assert!(
            validators[&(call.catalog, call.tool)].is_valid(value),
            "{}",
            call.tool
        );
        let object = value.as_object().unwrap();
        let text = typed_dispatch(call, &maetra_session, call.arguments);
        let map = typed_dispatch(call, &maetra_session, object);
        assert!(text.is_ok(), "{}: {text:?}", call.tool);
        assert!(map.is_ok(), "{}: {map:?}", call.tool);
    }

    let mut group = c.benchmark_group("mixed calls");
    group.throughput(Throughput::Elements(CALLS.len() as u64));
    group.bench_function("typed dispatch (generated)", |b| {
        b.iter(|| {
            for call in CALLS {
                let r = typed_dispatch(call, &maetra_session, black_box(call.arguments));
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
    // The floor of any serde_json parse of these texts: reading them, building nothing.
    group.bench_function("serde_json skipping the text (IgnoredAny)", |b| {
        b.iter(|| {
            for call in CALLS {
                let r = serde_json::from_str::<IgnoredAny>(black_box(call.arguments));
                black_box(r.is_ok());
            }
        })
    });
    group.finish();

    // What an MCP server gets from rmcp: the arguments already parsed into a JSON object.
    // jsonschema validates the same object, as a `Value`.
    let mut group = c.benchmark_group("mixed calls, arguments already parsed");
    group.throughput(Throughput::Elements(CALLS.len() as u64));
    group.bench_function("typed dispatch (generated)", |b| {
        b.iter(|| {
            for (call, value) in CALLS.iter().zip(&parsed) {
                let Some(object) = value.as_object() else {
                    continue;
                };
                let r = typed_dispatch(call, &maetra_session, black_box(object));
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

    // The wild shapes: a union is read as free JSON in the same pass, then decoded as serde
    // decodes it (each alternative of its JSON type tried on the value).
    let wild_validators: HashMap<&str, jsonschema::Validator> = wild_served_schemas()
        .into_iter()
        .map(|(k, schema)| (k, jsonschema::validator_for(&schema).unwrap()))
        .collect();
    let wild_parsed: Vec<serde_json::Value> = WILD_CALLS
        .iter()
        .map(|c| serde_json::from_str(c.arguments).unwrap())
        .collect();
    for (call, value) in WILD_CALLS.iter().zip(&wild_parsed) {
        assert_eq!(
            (wild_argument_type(call).compare_direct)(call.arguments),
            Agreement::Same,
            "{}",
            call.tool
        );
        assert!(wild_validators[call.tool].is_valid(value), "{}", call.tool);
        let text = wild_dispatch(call, call.arguments);
        let map = wild_dispatch(call, value.as_object().unwrap());
        assert!(text.is_ok(), "{}: {text:?}", call.tool);
        assert!(map.is_ok(), "{}: {map:?}", call.tool);
    }
    let mut group = c.benchmark_group("wild shapes");
    group.throughput(Throughput::Elements(WILD_CALLS.len() as u64));
    group.bench_function("typed dispatch (generated)", |b| {
        b.iter(|| {
            for call in WILD_CALLS {
                let r = wild_dispatch(call, black_box(call.arguments));
                black_box(r.is_ok());
            }
        })
    });
    group.bench_function("serde_json::Value + jsonschema", |b| {
        b.iter(|| {
            for call in WILD_CALLS {
                let value: serde_json::Value =
                    serde_json::from_str(black_box(call.arguments)).unwrap();
                let ok = wild_validators
                    .get(call.tool)
                    .is_some_and(|v| v.is_valid(&value));
                black_box((ok, value));
            }
        })
    });
    group.bench_function("typed dispatch from the serde_json::Map", |b| {
        b.iter(|| {
            for (call, value) in WILD_CALLS.iter().zip(&wild_parsed) {
                let Some(object) = value.as_object() else {
                    continue;
                };
                let r = wild_dispatch(call, black_box(object));
                black_box(r.is_ok());
            }
        })
    });
    group.bench_function("jsonschema on the parsed value", |b| {
        b.iter(|| {
            for (call, value) in WILD_CALLS.iter().zip(&wild_parsed) {
                let ok = wild_validators
                    .get(call.tool)
                    .is_some_and(|v| v.is_valid(black_box(value)));
                black_box(ok);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
