//! A broken catalog: every kind of error is reported, each with its file and line:column, all
//! in one run.

use std::path::Path;

use toolgate_schema::{SourceFile, load_sources};

fn file(rel: &str, text: &str) -> SourceFile {
    SourceFile {
        rel: rel.to_string(),
        bytes: text.as_bytes().to_vec(),
    }
}

const MATRIX: &str = r#"{
  "catalog": "demo",
  "selector": { "env": "DEMO_PROFILE" },
  "profiles": { "alpha": "First.", "beta": "Second." },
  "groups": { "main": {} },
  "always_on": ["ping"],
  "grants": {
    "write": ["alpha", "beta"],
    "ghost": ["alpha"],
    "outcome": ["*"]
  },
  "variants": {
    "outcome": { "alpha": "alpha", "beta": "gamma" }
  },
  "restrictions": { "write": { "beta": { "mode": ["append", "truncate"] } } }
}
"#;

fn broken_catalog() -> Vec<SourceFile> {
    vec![
        file("profiles.json", MATRIX),
        file(
            "tools/ping.json",
            r#"{"name": "ping", "group": "main", "description": "Ping.",
 "inputSchema": {"type": "object", "properties": {}}}
"#,
        ),
        // Bad JSON: a trailing comma.
        file(
            "tools/broken.json",
            "{\"name\": \"broken\", \"group\": \"main\",\n  \"description\": \"x\",\n}\n",
        ),
        // A keyword outside the accepted subset.
        file(
            "tools/write.json",
            r#"{"name": "write", "group": "main", "description": "Write.",
 "inputSchema": {"type": "object",
   "properties": {
     "mode": {"type": "string", "enum": ["append", "replace"]},
     "path": {"type": "string", "$anchor": "p"}
   }}}
"#,
        ),
        // A duplicate tool name (the file name says `write2`, the content says `write`: the
        // `name` key counts), and two unknown keys, both reported.
        file(
            "tools/write2.json",
            r#"{"name": "write", "group": "main", "description": "Again.",
 "inputSchema": {"type": "object"}, "colour": 1, "titel": "x"}
"#,
        ),
        file(
            "tools/outcome.alpha.json",
            r##"{"name": "outcome", "variant": "alpha", "group": "main", "description": "Done.",
 "inputSchema": {"type": "object", "properties": {"why": {"$ref": "#/$defs/reason"}}}}
"##,
        ),
    ]
}

#[test]
fn every_error_is_reported_with_file_and_position() {
    let errors = load_sources(Path::new("schema/demo"), broken_catalog()).unwrap_err();
    let lines: Vec<String> = errors.0.iter().map(ToString::to_string).collect();
    let expected = [
        "schema/demo/profiles.json:9:5: at /grants/ghost: no tool file or group is named `ghost`",
        "schema/demo/profiles.json:13:36: at /variants/outcome/beta: tool `outcome` has no variant `gamma` (no file tools/outcome.gamma.json)",
        "schema/demo/profiles.json:15:61: at /restrictions/write/beta/mode/1: \"truncate\" is not a value of `write.mode` (its enum: append, replace)",
        "schema/demo/tools/broken.json:3:1: invalid JSON: trailing comma",
        "schema/demo/tools/outcome.alpha.json:2:59: at /inputSchema/properties/why/$ref: `$ref` \"#/$defs/reason\" points at nothing in this file",
        "schema/demo/tools/write.json:5:33: at /inputSchema/properties/path/$anchor: keyword `$anchor`: anchors are outside the accepted subset; reference `#/$defs/...` instead",
        "schema/demo/tools/write2.json:1:2: at /name: duplicate tool `write`: also declared in schema/demo/tools/write.json",
        "schema/demo/tools/write2.json:2:37: at /colour: unknown key `colour` in a tool file (expected one of: name, title, description, inputSchema, outputSchema, annotations, icons, _meta, execution, $schema, variant, group, extends, formerly)",
        "schema/demo/tools/write2.json:2:50: at /titel: unknown key `titel` in a tool file (expected one of: name, title, description, inputSchema, outputSchema, annotations, icons, _meta, execution, $schema, variant, group, extends, formerly) (did you mean `title`?)",
    ];
    for want in expected {
        assert!(
            lines.iter().any(|l| l == want),
            "missing:\n  {want}\ngot:\n  {}",
            lines.join("\n  ")
        );
    }
    // Sorted by file, then position; nothing else slipped in unnoticed.
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines.len(), expected.len(), "{}", lines.join("\n"));
}

#[test]
fn a_missing_matrix_and_an_empty_folder_are_errors() {
    let errors = load_sources(Path::new("c"), Vec::new()).unwrap_err();
    let text = errors.to_string();
    assert!(text.contains("c/profiles.json: is missing"), "{text}");
    assert!(text.contains("c/tools: holds no tool files"), "{text}");
}

#[test]
fn wrong_shapes_are_named() {
    let errors = load_sources(
        Path::new("c"),
        vec![
            file("profiles.json", "[1, 2]\n"),
            file("tools/a.json", "[]\n"),
            file("tools/b.json", ""),
            file("tools/c.json", "{\"name\": \"c\", \"group\": 3}"),
        ],
    )
    .unwrap_err();
    let lines: Vec<String> = errors.0.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "c/profiles.json:1:1: not a profile matrix: expected a JSON object, found an array",
            "c/tools/a.json:1:1: not a tool file: expected a JSON object, found an array",
            "c/tools/b.json: is empty; expected a tool file",
            "c/tools/c.json:1:24: not a tool file: invalid type: integer `3`, expected a string",
        ]
    );
}
