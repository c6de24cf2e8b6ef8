//! JSON-Schema-Test-Suite (draft 2020-12 and draft-07, `../shared/anchors/json-schema-test-suite/`)
//! through generated code: every case file of a keyword in the accepted subset (each draft's
//! folder but the files `schema/tests/suite_cases` excludes: the files
//! `schema/tests/json_schema_test_suite.rs` runs through the run-time path), each group's
//! schema a tool's `inputSchema`, expanded with `catalog!` in one scratch crate for both
//! drafts, and the typed decode of each test's data held against the suite's `valid`.
//!
//! An object-rooted schema is the tool's schema as it is; any other is the definition
//! `$defs/root` of a tool whose one property `v` refers to it (its own `$defs` moved beside
//! it, its `$ref`s into itself rewritten to point there), and its data is `{"v": data}`. A
//! draft-07 schema gets draft-07's `$schema`.
//!
//! Prints per file `passed/total`, every failure with its reason and every skipped group
//! with its reason, and asserts: no failure but [`KNOWN_FAILURES`] (none), no skip but
//! [`SKIPPED`] (each a schema the loader refuses as outside the accepted subset), and every
//! refusal of a wrapped case naming the field. Skipped, with a message, when `../shared`
//! is absent.

#[path = "../../schema/tests/suite_cases/mod.rs"]
mod suite_cases;
mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};
use support::{cargo, scratch_crate, shared, target_root};

/// Cases where the typed decode and the suite disagree, with why that is accepted: none.
const KNOWN_FAILURES: &[(&str, &str, &str)] = &[];

/// The groups skipped, by draft, file and description: each a schema the loader refuses,
/// outside the accepted subset (`$id` and anchors, remote `$ref`s, `unevaluated*`), so
/// neither a catalog folder nor `catalog!` takes it.
const SKIPPED: &[(&str, &str, &str)] = &[
    (
        "draft2020-12",
        "defs",
        "validate definition against metaschema",
    ),
    (
        "draft2020-12",
        "not",
        "collect annotations inside a 'not', even if collection is disabled",
    ),
    ("draft2020-12", "ref", "remote ref, containing refs itself"),
    (
        "draft2020-12",
        "ref",
        "Recursive references between schemas",
    ),
    (
        "draft2020-12",
        "ref",
        "ref creates new scope when adjacent to keywords",
    ),
    ("draft2020-12", "ref", "refs with relative uris and defs"),
    (
        "draft2020-12",
        "ref",
        "relative refs with absolute uris and defs",
    ),
    (
        "draft2020-12",
        "ref",
        "$id must be resolved against nearest parent, not just immediate parent",
    ),
    ("draft2020-12", "ref", "order of evaluation: $id and $ref"),
    (
        "draft2020-12",
        "ref",
        "order of evaluation: $id and $anchor and $ref",
    ),
    (
        "draft2020-12",
        "ref",
        "order of evaluation: $id and $ref on nested schema",
    ),
    (
        "draft2020-12",
        "ref",
        "simple URN base URI with $ref via the URN",
    ),
    (
        "draft2020-12",
        "ref",
        "simple URN base URI with JSON pointer",
    ),
    ("draft2020-12", "ref", "URN base URI with NSS"),
    ("draft2020-12", "ref", "URN base URI with r-component"),
    ("draft2020-12", "ref", "URN base URI with q-component"),
    (
        "draft2020-12",
        "ref",
        "URN base URI with URN and JSON pointer ref",
    ),
    (
        "draft2020-12",
        "ref",
        "URN base URI with URN and anchor ref",
    ),
    ("draft2020-12", "ref", "URN ref with nested pointer ref"),
    ("draft2020-12", "ref", "ref to if"),
    ("draft2020-12", "ref", "ref to then"),
    ("draft2020-12", "ref", "ref to else"),
    ("draft2020-12", "ref", "ref with absolute-path-reference"),
    (
        "draft2020-12",
        "ref",
        "$id with file URI still resolves pointers - *nix",
    ),
    (
        "draft2020-12",
        "ref",
        "$id with file URI still resolves pointers - windows",
    ),
    (
        "draft7",
        "definitions",
        "validate definition against metaschema",
    ),
    (
        "draft7",
        "ref",
        "$ref prevents a sibling $id from changing the base uri",
    ),
    ("draft7", "ref", "remote ref, containing refs itself"),
    ("draft7", "ref", "Recursive references between schemas"),
    ("draft7", "ref", "Location-independent identifier"),
    (
        "draft7",
        "ref",
        "Reference an anchor with a non-relative URI",
    ),
    (
        "draft7",
        "ref",
        "Location-independent identifier with base URI change in subschema",
    ),
    ("draft7", "ref", "refs with relative uris and defs"),
    ("draft7", "ref", "relative refs with absolute uris and defs"),
    (
        "draft7",
        "ref",
        "$id must be resolved against nearest parent, not just immediate parent",
    ),
    ("draft7", "ref", "simple URN base URI with $ref via the URN"),
    ("draft7", "ref", "simple URN base URI with JSON pointer"),
    ("draft7", "ref", "URN base URI with NSS"),
    ("draft7", "ref", "URN base URI with r-component"),
    ("draft7", "ref", "URN base URI with q-component"),
    (
        "draft7",
        "ref",
        "URN base URI with URN and JSON pointer ref",
    ),
    ("draft7", "ref", "URN base URI with URN and anchor ref"),
    ("draft7", "ref", "ref to if"),
    ("draft7", "ref", "ref to then"),
    ("draft7", "ref", "ref to else"),
    ("draft7", "ref", "ref with absolute-path-reference"),
    (
        "draft7",
        "ref",
        "$id with file URI still resolves pointers - *nix",
    ),
    (
        "draft7",
        "ref",
        "$id with file URI still resolves pointers - windows",
    ),
];

const DRAFT7_URI: &str = "http://json-schema.org/draft-07/schema#";

fn matrix(name: &str) -> Value {
    json!({
        "catalog": name,
        "selector": {"env": "SUITE_PROFILE"},
        "profiles": {"all": "Every case."},
        "groups": {"all": {"description": "Every case."}},
        "grants": {"all": ["all"]}
    })
}

/// Keywords whose values are data, not schemas: a `$ref` inside them is not a reference.
const DATA: &[&str] = &["const", "enum", "default", "examples"];

/// Whether `$ref` `r` is a JSON pointer into its own schema other than to its definitions
/// (`#`, `#/properties/foo`; not `#/$defs/a`, nor an anchor `#foo`).
fn points_into_itself(r: &str) -> bool {
    (r == "#" || r.starts_with("#/"))
        && !r.starts_with("#/$defs/")
        && !r.starts_with("#/definitions/")
}

/// Whether `schema` holds a `$ref` into itself other than to its definitions.
fn refers_to_itself(schema: &Value) -> bool {
    match schema {
        Value::Object(m) => m.iter().any(|(k, v)| match (k.as_str(), v) {
            ("$ref", Value::String(r)) => points_into_itself(r),
            (k, _) if DATA.contains(&k) => false,
            _ => refers_to_itself(v),
        }),
        Value::Array(items) => items.iter().any(refers_to_itself),
        _ => false,
    }
}

/// `schema` with its `$ref`s into itself (but not to its definitions) pointing under
/// `#/$defs/root` instead.
fn rebase_refs(schema: &mut Value) {
    match schema {
        Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                match (k.as_str(), &mut *v) {
                    ("$ref", Value::String(r)) if points_into_itself(r) => {
                        *r = format!("#/$defs/root{}", &r[1..]);
                    }
                    (k, _) if DATA.contains(&k) => {}
                    _ => rebase_refs(v),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(rebase_refs),
        _ => {}
    }
}

/// The tool schema of a case, and whether its data is wrapped as `{"v": data}`.
fn tool_schema(schema: &Value, draft7: bool) -> (Value, bool) {
    let object_rooted = schema.get("type").and_then(Value::as_str) == Some("object");
    let (mut root, wrapped) = if object_rooted && !refers_to_itself(schema) {
        (schema.clone(), false)
    } else {
        let mut inner = schema.clone();
        let mut root = json!({
            "type": "object",
            "properties": {"v": {"$ref": "#/$defs/root"}},
            "required": ["v"],
        });
        let mut defs = serde_json::Map::new();
        if let Some(m) = inner.as_object_mut() {
            for key in ["$defs", "definitions"] {
                if let Some(Value::Object(d)) = m.remove(key) {
                    let mut d = Value::Object(d);
                    rebase_refs(&mut d);
                    if key == "$defs" {
                        defs.extend(d.as_object().cloned().unwrap_or_default());
                    } else {
                        root["definitions"] = d;
                    }
                }
            }
            if let Some(s) = m.remove("$schema") {
                root["$schema"] = s;
            }
        }
        rebase_refs(&mut inner);
        defs.insert("root".to_string(), inner);
        root["$defs"] = Value::Object(defs);
        (root, true)
    };
    if draft7 {
        root["$schema"] = json!(DRAFT7_URI);
    }
    (root, wrapped)
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

/// The binary: each case decoded by its tool's argument type, from the JSON value (what
/// dispatch does with a `serde_json::Value`) and from the JSON text (the direct path, held to
/// serde's reading); a line per failure and per file.
const MAIN: &str = r#"
fn main() {
    let mut by_file: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    let mut unnamed = 0usize;
    for (file, tool, group, what, valid, wrapped, data, types) in suite::CASES {
        let entry = by_file.entry(file).or_default();
        entry.1 += 1;
        let value: serde_json::Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(e) => { println!("FAIL\t{file}\t{group}\t{what}\tthe data does not parse: {e}"); continue; }
        };
        let Some(t) = types.iter().find(|t| t.tool == *tool) else {
            println!("FAIL\t{file}\t{group}\t{what}\tno argument type for {tool}");
            continue;
        };
        let got = (t.parse)(&value);
        let direct = (t.compare_direct)(data);
        if let toolgate_runtime::direct::Agreement::Differ(why) = direct {
            println!("FAIL\t{file}\t{group}\t{what}\tthe direct path and serde disagree on {data}: {why}");
            continue;
        }
        if got.is_ok() == *valid {
            entry.0 += 1;
        } else {
            let why = match &got {
                Ok(v) => format!("accepted as {v}"),
                Err(e) => format!("refused: {}", e.message()),
            };
            println!("FAIL\t{file}\t{group}\t{what}\tdata {data}: the suite says {}, the typed decode {why}", if *valid { "valid" } else { "invalid" });
            continue;
        }
        if let Err(toolgate_runtime::CallError::InvalidArguments { violations, .. }) = &got {
            let named = violations.iter().all(|v| v.field == "v" || v.field.starts_with("v.") || v.field.starts_with("v["));
            if *wrapped && !named {
                unnamed += 1;
                println!("UNNAMED\t{file}\t{group}\t{what}\t{}", got.as_ref().err().map(|e| e.message()).unwrap_or_default());
            }
        }
    }
    for (file, (pass, total)) in &by_file {
        println!("FILE\t{file}\t{pass}\t{total}");
    }
    println!("UNNAMED-COUNT\t{unnamed}");
}
"#;

#[test]
fn the_test_suite_through_generated_code() {
    let Some(shared) = shared() else {
        eprintln!("skipped: ../shared is absent");
        return;
    };
    let suite = shared.join("anchors/json-schema-test-suite");
    let dir = target_root().join("scratch-crates/suite");
    let _ = std::fs::remove_dir_all(dir.join("suite"));
    let _ = std::fs::create_dir_all(&dir);
    let mut lib = String::from("#![allow(missing_docs, clippy::all)]\n");
    let mut table = String::from(
        "pub const CASES: &[(&str, &str, &str, &str, bool, bool, &str, &[toolgate_runtime::ArgumentType])] = &[\n",
    );
    let mut skipped: BTreeSet<(String, String, String)> = BTreeSet::new();
    let mut skip_lines: Vec<String> = Vec::new();
    let mut counted = 0usize;
    let drafts = ["draft2020-12", "draft7"].map(|d| (d, suite_cases::case_files(&suite, d)));
    for (draft, files) in &drafts {
        let draft = *draft;
        let draft7 = draft == "draft7";
        let short = if draft7 { "d7" } else { "d2020" };
        for file in files {
            let path = suite.join(draft).join(format!("{file}.json"));
            let text = std::fs::read_to_string(&path).expect("case file");
            let groups: Vec<Value> = serde_json::from_str(&text).expect("JSON");
            let name = format!("{short}-{file}");
            let module = format!("{short}_{}", file.replace('-', "_").to_ascii_lowercase());
            let cat = dir.join("suite").join(&name);
            let mut any = false;
            for (i, group) in groups.iter().enumerate() {
                let what = group["description"].as_str().unwrap_or_default();
                let (schema, wrapped) = tool_schema(&group["schema"], draft7);
                let tool_name = format!("c{i:03}");
                let tool = json!({"name": tool_name, "group": "all", "description": what, "inputSchema": schema});
                if let Err(why) = expands(&name, &tool) {
                    skipped.insert((draft.to_string(), file.to_string(), what.to_string()));
                    skip_lines.push(format!("skipped {draft}/{file} #{i} ({what}): {why}"));
                    continue;
                }
                std::fs::create_dir_all(cat.join("tools")).expect("mkdir");
                std::fs::write(
                    cat.join(format!("tools/{tool_name}.json")),
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
                        "    ({:?}, {tool_name:?}, {what:?}, {:?}, {}, {wrapped}, {:?}, {module}::ARGUMENT_TYPES),",
                        format!("{draft}/{file}"),
                        t["description"].as_str().unwrap_or_default(),
                        t["valid"].as_bool().unwrap_or(false),
                        data.to_string()
                    );
                    counted += 1;
                }
            }
            if any {
                std::fs::write(cat.join("profiles.json"), matrix(&name).to_string())
                    .expect("write");
                let _ = writeln!(
                    lib,
                    "pub mod {module} {{ toolgate_macros::catalog!(\"suite/{name}\"); }}"
                );
            }
        }
    }
    table.push_str("];\n");
    lib.push_str(&table);
    scratch_crate(&dir, &lib, Some(MAIN));
    // The binary names the lib crate as `suite`.
    let (out, took) = cargo(&dir, &["run", "--quiet"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the suite crate failed:\n{stderr}");

    let mut per_draft: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut failures: Vec<(String, String, String, String)> = Vec::new();
    let mut unnamed = Vec::new();
    for line in stdout.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        match cols.as_slice() {
            ["FILE", file, pass, total] => {
                let (p, t): (usize, usize) =
                    (pass.parse().unwrap_or(0), total.parse().unwrap_or(0));
                println!("{file}: {p}/{t}");
                let draft = file.split('/').next().unwrap_or_default();
                let e = per_draft
                    .entry(if draft == "draft7" {
                        "draft7"
                    } else {
                        "draft2020-12"
                    })
                    .or_default();
                e.0 += p;
                e.1 += t;
            }
            ["FAIL", file, group, what, why] => {
                println!("FAIL {file} \"{group}\" / \"{what}\": {why}");
                failures.push((
                    file.to_string(),
                    group.to_string(),
                    what.to_string(),
                    why.to_string(),
                ));
            }
            ["UNNAMED", file, group, what, message] => {
                println!("refusal names no field: {file} \"{group}\" / \"{what}\": {message}");
                unnamed.push(line.to_string());
            }
            _ => {}
        }
    }
    for (draft, files) in &drafts {
        for file in files {
            let name = format!("{draft}/{file}");
            if !stdout
                .lines()
                .any(|l| l.starts_with(&format!("FILE\t{name}\t")))
            {
                println!("{name}: 0/0 (every group skipped, as listed below)");
            }
        }
    }
    for s in &skip_lines {
        println!("{s}");
    }
    for (draft, (p, t)) in &per_draft {
        println!("{draft}: {p}/{t} cases pass through generated code");
    }
    println!(
        "built and ran in {took:.2?}; {counted} cases, {} groups skipped",
        skip_lines.len()
    );

    let unexpected: Vec<&(String, String, String, String)> = failures
        .iter()
        .filter(|(f, g, w, _)| {
            !KNOWN_FAILURES
                .iter()
                .any(|(kf, kg, kw)| kf == f && kg == g && kw == w)
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "{} cases fail through generated code (listed above)",
        unexpected.len()
    );
    let listed: BTreeSet<(String, String, String)> = SKIPPED
        .iter()
        .map(|(d, f, g)| (d.to_string(), f.to_string(), g.to_string()))
        .collect();
    let extra: Vec<_> = skipped.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&skipped).collect();
    assert!(
        extra.is_empty(),
        "groups skipped beyond the list: {extra:?}"
    );
    assert!(
        gone.is_empty(),
        "listed skips that now run (take them off the list): {gone:?}"
    );
    assert!(
        unnamed.is_empty(),
        "{} refusals of a wrapped case name no field (listed above)",
        unnamed.len()
    );
}
