//! `catalog!(..., schemars)` over the shapes real servers write (`catalog-shapes/`: a
//! `oneOf` of a string and an object, nullable fields, a `const`, shared and recursive
//! `$defs`, a `oneOf` of definitions tagged by a `const`): every argument type implements
//! `schemars::JsonSchema`, and the schema schemars derives accepts what the type accepts and
//! refuses what it refuses (checked with the jsonschema crate on examples both ways).

use serde_json::{Value, json};

#[allow(missing_docs)]
mod shapes {
    toolgate_macros::catalog!("catalog-shapes", schemars);
}

/// The derived schema of the argument type of `tool`, compiled.
fn derived(tool: &str) -> (Value, jsonschema::Validator) {
    let t = shapes::ARGUMENT_TYPES
        .iter()
        .find(|t| t.tool == tool)
        .expect("argument type");
    let (_, schema) = shapes::argument_json_schemas()
        .into_iter()
        .find(|(n, _)| *n == t.type_name)
        .expect("derived schema");
    let schema = serde_json::to_value(schema).expect("serializes");
    let validator = jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("{tool}: derived schema does not compile: {e}\n{schema:#}"));
    (schema, validator)
}

/// Each accepted example, as the type serializes it, is valid for the derived schema; each
/// refused one is refused by it too.
fn agrees(tool: &str, accepted: &[Value], refused: &[Value]) {
    let t = shapes::ARGUMENT_TYPES
        .iter()
        .find(|t| t.tool == tool)
        .expect("argument type");
    let (schema, v) = derived(tool);
    for args in accepted {
        let typed = (t.parse)(args).unwrap_or_else(|e| panic!("{tool}: {args}: {}", e.message()));
        assert!(
            v.is_valid(&typed),
            "{tool}: {typed} refused by the derived schema\n{schema:#}"
        );
        assert!(v.is_valid(args), "{tool}: {args} refused by the derived schema");
    }
    for args in refused {
        assert!((t.parse)(args).is_err(), "{tool}: {args} accepted by the type");
        assert!(
            !v.is_valid(args),
            "{tool}: {args} accepted by the derived schema\n{schema:#}"
        );
    }
}

#[test]
fn unions_nullables_and_constants_have_a_schema() {
    let (schema, _) = derived("note_tag");
    let text = schema.to_string();
    assert!(text.contains(r#""oneOf""#), "{schema:#}");
    assert!(text.contains(r#""const":2"#), "{schema:#}");
    agrees(
        "note_tag",
        &[
            json!({"note": "n", "format": 2, "tags": []}),
            json!({"note": "n", "format": 2, "tags": ["todo", {"word": "home", "colour": "red"}], "due": null, "weight": 3}),
            json!({"note": "n", "format": 2, "tags": [], "due": "2026-01-04", "weight": null}),
        ],
        &[
            json!({"note": "n", "format": 3, "tags": []}),
            json!({"note": "", "format": 2, "tags": []}),
            json!({"note": "n", "format": 2, "tags": ["a-very-long-tag"]}),
            json!({"note": "n", "format": 2, "tags": [{"word": "w", "colour": "pink"}]}),
            json!({"note": "n", "format": 2, "tags": ["a", "b", "c", "d", "e"]}),
            json!({"note": "n", "format": 2, "tags": [], "due": "soon"}),
            json!({"note": "n", "format": 2, "tags": [], "weight": -1}),
            json!({"note": "n", "format": 2, "tags": [], "weight": "3"}),
        ],
    );
}

#[test]
fn recursive_and_shared_definitions_have_a_schema() {
    let (schema, _) = derived("outline_edit");
    // One definition for the section type, referred to by both fields and by itself.
    let defs = schema["$defs"].as_object().expect("$defs");
    assert!(defs.contains_key("Section"), "{schema:#}");
    assert_eq!(schema.to_string().matches(r#""heading":{"#).count(), 1, "{schema:#}");
    let outline = json!({"heading": "a", "sections": [{"heading": "b", "sections": [{"heading": "c"}]}]});
    agrees(
        "outline_edit",
        &[
            json!({"outline": outline, "editor": {"kind": "person", "handle": "jo"}}),
            json!({"outline": {"heading": "x"}, "appendix": outline, "editor": {"kind": "robot"}}),
        ],
        &[
            json!({"outline": {"heading": "a", "sections": [{"heading": ""}]}, "editor": {"kind": "robot"}}),
            json!({"outline": {"heading": "a", "sections": [{"title": "b"}]}, "editor": {"kind": "robot"}}),
            json!({"outline": {"heading": "a"}, "editor": {"kind": "person", "handle": "j"}}),
            json!({"outline": {"heading": "a"}, "editor": {"kind": "cat"}}),
        ],
    );
}
