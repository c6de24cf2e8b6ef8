//! Served as authored: a tool file's MCP keys in its own order, `$schema`, `$defs` and `$ref`
//! kept, only the matrix changing a schema; the manifest keeps every MCP Tool field and reads
//! back; `"schemas": "resolve"` inlines; a recursive schema loads and is served as written.

use std::path::Path;

use serde_json::{Value, json};
use toolgate_schema::json::to_compact;
use toolgate_schema::{SourceFile, Surface, load_sources};

fn file(rel: &str, v: &Value) -> SourceFile {
    SourceFile {
        rel: rel.to_string(),
        bytes: serde_json::to_vec_pretty(v).unwrap(),
    }
}

fn catalog(schemas: &str, tool_text: &str) -> Surface {
    let matrix = json!({
        "catalog": "c", "selector": {"env": "P"}, "schemas": schemas,
        "profiles": {"a": "A.", "b": "B."},
        "parameters": {"token": {"required": true, "schema": {"type": "string"}}},
        "groups": {"g": {"add_parameters": ["token"]}},
        "grants": {"g": ["a", "b"]},
        "restrictions": {"t.x": {"b": {"mode": ["fast"]}}}
    });
    let files = vec![
        file("profiles.json", &matrix),
        SourceFile {
            rel: "tools/anything.json".to_string(),
            bytes: tool_text.as_bytes().to_vec(),
        },
    ];
    match load_sources(Path::new("c"), files) {
        Ok(c) => Surface::from_catalog(&c),
        Err(e) => panic!("{e}"),
    }
}

const TOOL: &str = r##"{
  "title": "T",
  "name": "t.x",
  "group": "g",
  "description": "T.",
  "execution": {"taskSupport": "optional"},
  "_meta": {"k": 1},
  "inputSchema": {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
      "mode": {"type": "string", "enum": ["fast", "slow"], "default": "slow"},
      "node": {"$ref": "#/$defs/node"}
    },
    "$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
    "x-ui": {"order": 1}
  },
  "annotations": {"readOnlyHint": true, "title": "T!"}
}"##;

#[test]
fn tools_are_served_as_authored_with_only_the_matrix_changes() {
    let s = catalog("as-authored", TOOL);
    let a = s.tools_list_json(&s.resolve("a"));
    let text = to_compact(&a);
    // The file's key order, `$schema`, `$defs`, `$ref` and the `x-` annotation kept; the
    // group's parameter first.
    assert!(
        text.starts_with(r#"{"tools":[{"title":"T","name":"t.x","description":"T.","execution":{"taskSupport":"optional"},"_meta":{"k":1},"inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"token":{"type":"string"},"mode""#),
        "{text}"
    );
    assert!(text.contains(r##""$ref":"#/$defs/node""##), "{text}");
    assert!(text.contains(r#""x-ui":{"order":1}"#), "{text}");
    assert!(text.contains(r#""required":["token"]"#), "{text}");
    assert!(
        text.ends_with(r#""annotations":{"readOnlyHint":true,"title":"T!"}}]}"#),
        "{text}"
    );
    // Profile b's restriction narrows the enum and drops the default it no longer allows.
    let b = to_compact(&s.tools_list_json(&s.resolve("b")));
    assert!(
        b.contains(r#""mode":{"type":"string","enum":["fast"]}"#),
        "{b}"
    );
}

#[test]
fn the_manifest_keeps_every_field_and_reads_back() {
    let s = catalog("as-authored", TOOL);
    let text = toolgate_schema::json::to_pretty(&s.manifest_json());
    let back = Surface::from_manifest(Path::new("m.json"), text.as_bytes()).unwrap();
    for p in ["a", "b"] {
        assert_eq!(
            to_compact(&back.tools_list_json(&back.resolve(p)))
                .parse::<String>()
                .map(|t| serde_json::from_str::<Value>(&t).unwrap())
                .unwrap(),
            serde_json::from_str::<Value>(&to_compact(&s.tools_list_json(&s.resolve(p)))).unwrap(),
            "{p}"
        );
    }
}

#[test]
fn resolve_inlines_refs_unless_they_recurse() {
    let plain = TOOL.replace(
        r##""node": {"$ref": "#/$defs/node"}"##,
        r##""node": {"$ref": "#/$defs/leaf"}"##,
    );
    let plain = plain.replace(
        r#""$defs": {"node""#,
        r#""$defs": {"leaf": {"type": "integer"}, "node""#,
    );
    let s = catalog("resolve", &plain);
    let text = to_compact(&s.tools_list_json(&s.resolve("a")));
    assert!(!text.contains("$ref"), "{text}");
    assert!(text.contains(r#""node":{"type":"integer"}"#), "{text}");
    // A recursive schema has no self-contained form: it is served as written.
    let s = catalog("resolve", TOOL);
    let text = to_compact(&s.tools_list_json(&s.resolve("a")));
    assert!(text.contains(r##""$ref":"#/$defs/node""##), "{text}");
}
