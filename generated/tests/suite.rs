//! JSON-Schema-Test-Suite (draft 2020-12, `../shared/anchors/json-schema-test-suite/`)
//! through generated code: for one case file per keyword the typed model or the
//! combinators type, each case's schema is a tool's `inputSchema` (an object-rooted schema as
//! it is; any other is wrapped as the property `v` of an object, `$defs` moved to the root,
//! and its data as `{"v": data}`), expanded with `catalog!` in a scratch crate, and the typed
//! decode of each test's data is held against the suite's `valid`. Prints the pass counts
//! and every failure with its reason; cases the loader or the generator refuses are listed
//! as skipped with their reason. Skipped, with a message, when `../shared` is absent.

mod support;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};
use support::{cargo, scratch_crate, shared, target_root};

/// The case files: one per keyword generated code types.
const FILES: &[&str] = &[
    "anyOf",
    "oneOf",
    "const",
    "enum",
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "default",
    "ref",
    "boolean_schema",
];

fn matrix(name: &str) -> Value {
    json!({
        "catalog": name,
        "selector": {"env": "SUITE_PROFILE"},
        "profiles": {"all": "Every case."},
        "groups": {"all": {"description": "Every case."}},
        "grants": {"all": ["all"]}
    })
}

/// The tool schema of a case, and whether its data is wrapped as `{"v": data}`.
fn tool_schema(schema: &Value) -> Result<(Value, bool), String> {
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        return Ok((schema.clone(), false));
    }
    let text = schema.to_string();
    if text.contains("\"$ref\":\"#\"") || text.contains("$id") || text.contains("$anchor") {
        return Err("refers to its own root or by `$id`/`$anchor`: not wrappable".to_string());
    }
    let mut inner = schema.clone();
    let mut root = json!({"type": "object", "properties": {}, "required": ["v"]});
    if let Some(m) = inner.as_object_mut() {
        for key in ["$defs", "definitions", "$schema"] {
            if let Some(d) = m.remove(key) {
                root[key] = d;
            }
        }
    }
    root["properties"]["v"] = inner;
    Ok((root, true))
}

/// Loads and generates a one-tool catalog in memory: `Ok` when `catalog!` would expand it.
fn expands(name: &str, tool: &Value) -> Result<(), String> {
    let sources = vec![
        toolgate_schema::SourceFile {
            rel: "profiles.json".to_string(),
            bytes: matrix(name).to_string().into_bytes(),
        },
        toolgate_schema::SourceFile {
            rel: "tools/case.json".to_string(),
            bytes: tool.to_string().into_bytes(),
        },
    ];
    let display = Path::new(name);
    let first =
        |e: toolgate_schema::Errors| e.0.first().map(|d| d.message.clone()).unwrap_or_default();
    let catalog = toolgate_schema::load_sources(display, sources.clone())
        .map_err(|e| format!("the loader refuses it: {}", first(e)))?;
    let options = toolgate_codegen::Options::default();
    let input = toolgate_codegen::Input {
        catalog: &catalog,
        display,
        sources: &sources,
        include: &[],
        options: &options,
    };
    toolgate_codegen::generate(&input)
        .map(|_| ())
        .map_err(|e| format!("catalog! refuses it: {}", first(e)))
}

#[test]
fn the_test_suite_through_generated_code() {
    let Some(shared) = shared() else {
        eprintln!("skipped: ../shared is absent");
        return;
    };
    let suite = shared.join("anchors/json-schema-test-suite/draft2020-12");
    let dir = target_root().join("scratch-crates/suite");
    let _ = std::fs::remove_dir_all(dir.join("suite"));
    let _ = std::fs::create_dir_all(&dir);
    let mut lib = String::from("#![allow(missing_docs, clippy::all)]\n");
    let mut table = String::from(
        "pub const CASES: &[(&str, &str, &str, bool, &str, &[toolgate_runtime::ArgumentType])] = &[\n",
    );
    let mut skipped: Vec<String> = Vec::new();
    let mut counted: BTreeMap<&str, usize> = BTreeMap::new();
    for file in FILES {
        let text = std::fs::read_to_string(suite.join(format!("{file}.json"))).expect("case file");
        let groups: Vec<Value> = serde_json::from_str(&text).expect("JSON");
        let module = format!("k_{}", file.to_ascii_lowercase());
        let cat = dir.join("suite").join(file);
        let mut any = false;
        for (i, group) in groups.iter().enumerate() {
            let what = group["description"].as_str().unwrap_or_default();
            let (schema, wrapped) = match tool_schema(&group["schema"]) {
                Ok(s) => s,
                Err(why) => {
                    skipped.push(format!("{file} #{i} ({what}): {why}"));
                    continue;
                }
            };
            let name = format!("c{i:03}");
            let tool =
                json!({"name": name, "group": "all", "description": what, "inputSchema": schema});
            if let Err(why) = expands(file, &tool) {
                skipped.push(format!("{file} #{i} ({what}): {why}"));
                continue;
            }
            std::fs::create_dir_all(cat.join("tools")).expect("mkdir");
            std::fs::write(
                cat.join(format!("tools/{name}.json")),
                serde_json::to_string_pretty(&tool).expect("json"),
            )
            .expect("write");
            any = true;
            for t in group["tests"].as_array().into_iter().flatten() {
                let data = if wrapped {
                    json!({"v": t["data"]})
                } else {
                    t["data"].clone()
                };
                let _ = writeln!(
                    table,
                    "    ({file:?}, {name:?}, {:?}, {}, {:?}, {module}::ARGUMENT_TYPES),",
                    t["description"].as_str().unwrap_or_default(),
                    t["valid"].as_bool().unwrap_or(false),
                    data.to_string()
                );
                *counted.entry(file).or_default() += 1;
            }
        }
        if any {
            std::fs::write(cat.join("profiles.json"), matrix(file).to_string()).expect("write");
            let _ = writeln!(
                lib,
                "pub mod {module} {{ toolgate_macros::catalog!(\"suite/{file}\"); }}"
            );
        }
    }
    table.push_str("];\n");
    lib.push_str(&table);
    let main = r#"
fn main() {
    let mut by_file: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for (file, tool, what, valid, data, types) in suite::CASES {
        let value: serde_json::Value = serde_json::from_str(data).unwrap_or_default();
        let entry = by_file.entry(file).or_default();
        entry.1 += 1;
        let Some(t) = types.iter().find(|t| t.tool == *tool) else { continue };
        let got = (t.parse)(&value);
        if got.is_ok() == *valid {
            entry.0 += 1;
        } else {
            let why = match &got { Ok(v) => format!("accepted as {v}"), Err(e) => format!("refused: {}", e.message()) };
            println!("FAIL {file} {tool} {what}: data {data}, suite says valid={valid}, typed decode {why}");
        }
    }
    let (mut p, mut n) = (0, 0);
    for (file, (pass, total)) in &by_file {
        println!("{file}: {pass}/{total}");
        p += pass; n += total;
    }
    println!("total: {p}/{n}");
}
"#;
    scratch_crate(&dir, &lib, Some(main));
    // The binary names the lib crate as `suite`.
    let (out, took) = cargo(&dir, &["run", "--quiet"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    for s in &skipped {
        println!("skipped {s}");
    }
    println!(
        "built and ran in {took:.2?}; {} tests in {} files",
        counted.values().sum::<usize>(),
        counted.len()
    );
    assert!(out.status.success(), "the suite crate failed:\n{stderr}");
}
