//! A call is accepted by serve's validation with `--host ID` exactly when it is without:
//! through the echo backend of a catalog folder (`toolgate_serve::echo::FolderEcho`, what
//! `serve --catalog DIR [--host ID]` answers calls with), for calls made from every real
//! tool (a valid call with every property, one with the required ones, and each property
//! alone set to each of a few values of every JSON type, a JSON string among them) and for
//! every JSON-Schema-Test-Suite case of draft 2020-12 that toolgate's subset covers, as the
//! one required argument `v` of a tool.

use std::path::Path;

use serde_json::{Value, json};
use toolgate_schema::stacks::{self, Stack};
use toolgate_serve::echo::FolderEcho;

use super::{HOSTS, captures, write_catalog};
use crate::common::{scratch, shared};

#[path = "../../schema/tests/suite_cases/mod.rs"]
mod suite_cases;

/// One tool and the calls made of it.
struct Case {
    tool: Value,
    calls: Vec<Value>,
}

/// Values of every JSON type, a string of JSON among them.
fn probes() -> Vec<Value> {
    vec![
        Value::Null,
        json!("x"),
        json!("{\"a\": 1}"),
        json!(0),
        json!(1.5),
        json!(true),
        json!({}),
        json!({"a": 1}),
        json!([]),
        json!(["x"]),
    ]
}

fn real_cases(shared: &Path) -> Vec<(String, Vec<Case>)> {
    captures(shared)
        .into_iter()
        .map(|(server, tools)| {
            let cases = tools
                .into_iter()
                .map(|tool| {
                    let mut calls = vec![json!({})];
                    let props = tool["inputSchema"]["properties"]
                        .as_object()
                        .cloned()
                        .unwrap_or_default();
                    for (name, _) in props {
                        for p in probes() {
                            calls.push(json!({ name.clone(): p }));
                        }
                    }
                    Case { tool, calls }
                })
                .collect();
            (server, cases)
        })
        .collect()
}

/// `$ref`s of a schema moved under `/properties/v` (its `$defs` stay at the root).
fn rebase(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| match (k.as_str(), x) {
                    ("$ref", Value::String(r))
                        if r.starts_with('#') && !r.starts_with("#/$defs") =>
                    {
                        (k.clone(), json!(format!("#/properties/v{}", &r[1..])))
                    }
                    _ => (k.clone(), rebase(x)),
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(rebase).collect()),
        _ => v.clone(),
    }
}

/// The suite's schemas as tools (draft 2020-12, but those with `$id`, anchors and dynamic
/// references, which a tool's schema cannot hold here).
pub(super) fn suite_tools(shared: &Path) -> Vec<Value> {
    suite_cases(shared).into_iter().map(|c| c.tool).collect()
}

fn suite_cases(shared: &Path) -> Vec<Case> {
    let dir = shared.join("anchors/json-schema-test-suite");
    let mut out = Vec::new();
    for file in suite_cases::case_files(&dir, "draft2020-12") {
        let text = std::fs::read_to_string(dir.join(format!("draft2020-12/{file}.json"))).unwrap();
        let groups: Value = serde_json::from_str(&text).unwrap();
        for (i, g) in groups.as_array().into_iter().flatten().enumerate() {
            let schema = &g["schema"];
            let text = schema.to_string();
            if text.contains("\"$id\"") || text.contains("\"$anchor\"") || text.contains("$dynamic")
            {
                continue;
            }
            let mut v = rebase(schema);
            let mut input = json!({"type": "object", "required": ["v"]});
            if let Some(m) = v.as_object_mut() {
                m.remove("$schema");
                if let Some(defs) = m.remove("$defs") {
                    input["$defs"] = defs;
                }
            }
            input["properties"] = json!({ "v": v });
            let tool = json!({
                "name": format!("{}_{i}", file.replace(['-', '.'], "_")),
                "description": g["description"],
                "inputSchema": input
            });
            let calls = g["tests"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| json!({"v": t["data"]}))
                .collect();
            out.push(Case { tool, calls });
        }
    }
    out
}

/// Each host's figures: calls judged, calls in an openai-strict encoding, differences.
#[derive(Default)]
struct Figures {
    calls: usize,
    encoded: usize,
    differ: Vec<String>,
}

/// The cases whose tool the catalog loader accepts (one catalog per tool, so one refusal
/// leaves the others), each judged by serve without and with every host.
fn judge_cases(
    root: &Path,
    label: &str,
    cases: &[Case],
    figures: &mut [Figures; 3],
) -> (usize, usize) {
    let (mut tools, mut skipped) = (0, 0);
    for case in cases {
        let dir = write_catalog(root, label, std::slice::from_ref(&case.tool));
        let catalog = match toolgate_schema::load_dir(&dir) {
            Ok(c) => c,
            Err(e) => {
                if std::env::var_os("HOST_JUDGES_DEBUG").is_some() {
                    eprintln!(
                        "refused: {}: {}",
                        case.tool["name"],
                        e.0.first().map(ToString::to_string).unwrap_or_default()
                    );
                }
                skipped += 1;
                continue;
            }
        };
        let _ = std::fs::remove_dir_all(&dir);
        tools += 1;
        let surface = toolgate_schema::Surface::from_catalog(&catalog);
        let session = surface.resolve("all");
        let plain = FolderEcho::new(&surface, &session);
        let name = case.tool["name"].as_str().unwrap();
        for (h, host) in HOSTS.iter().enumerate() {
            let stack = Stack::of(host).unwrap();
            let with = FolderEcho::for_host(&surface, &session, stack, &[]);
            for call in &case.calls {
                compare(
                    &plain,
                    &with,
                    stack,
                    name,
                    &case.tool["inputSchema"],
                    call,
                    &mut figures[h],
                );
            }
        }
    }
    (tools, skipped)
}

fn compare(
    plain: &FolderEcho,
    with: &FolderEcho,
    stack: Stack,
    name: &str,
    schema: &Value,
    call: &Value,
    f: &mut Figures,
) {
    let Value::Object(args) = call else { return };
    f.calls += 1;
    let without = plain.call(name, args).is_ok();
    let decoded = stacks::decode(stack, schema, call);
    if &decoded != call {
        // An encoding: judged as the call it encodes, exactly.
        f.encoded += 1;
        let Value::Object(d) = &decoded else { return };
        if with.call(name, args).is_ok() != plain.call(name, d).is_ok() {
            f.differ
                .push(format!("{name} {call} (encoded as {decoded})"));
        }
        return;
    }
    if with.call(name, args).is_ok() != without {
        f.differ
            .push(format!("{name} {call}: without --host {without}"));
    }
}

#[test]
fn serve_host_accepts_a_call_exactly_when_serve_does() {
    let Some(shared) = shared() else { return };
    let root = scratch("host_judges_equivalence");
    let mut figures: [Figures; 3] = Default::default();
    let mut real = (0, 0);
    for (server, cases) in real_cases(&shared) {
        let (t, s) = judge_cases(&root, &server, &cases, &mut figures);
        real = (real.0 + t, real.1 + s);
    }
    let suite = judge_cases(&root, "suite", &suite_cases(&shared), &mut figures);
    eprintln!(
        "real tools: {} judged, {} refused by the loader; suite schemas: {} judged, {} refused by the loader",
        real.0, real.1, suite.0, suite.1
    );
    let mut failures = Vec::new();
    for (h, host) in HOSTS.iter().enumerate() {
        let f = &figures[h];
        eprintln!(
            "{host}: {} calls, {} in an encoding of the host's form, {} judged otherwise than without --host",
            f.calls,
            f.encoded,
            f.differ.len()
        );
        for d in f.differ.iter().take(20) {
            eprintln!("  {host}: DIFFERS: {d}");
        }
        if !f.differ.is_empty() {
            failures.push(format!("{host}: {} calls judged otherwise", f.differ.len()));
        }
    }
    assert!(real.0 > 0 && suite.0 > 0, "nothing was judged");
    assert!(failures.is_empty(), "{}", failures.join("; "));
}
