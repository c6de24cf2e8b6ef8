//! Each model on the shapes its stack's code treats apart (what `tests/host_judges.rs` runs
//! the stacks themselves on, over real captures).

use serde_json::{Value, json};

use super::*;

fn found(stack: Stack, schema: Value) -> Vec<(String, String, Effect)> {
    judge(stack, &schema)
        .into_iter()
        .map(|f| (f.path, f.keyword, f.effect))
        .collect()
}

fn tool(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

#[test]
fn openai_strict_rejects_open_objects_and_bare_refs_and_closes_the_rest() {
    let s = Stack::OpenAiStrict;
    assert!(found(s, tool(json!({"a": {"type": "string", "minLength": 2}}))).is_empty());
    assert!(
        found(s, json!({})).is_empty(),
        "the empty schema is its empty strict object"
    );
    let no_params = found(s, json!({"type": "object"}));
    assert_eq!(
        no_params,
        [(String::new(), "properties".into(), Effect::Rejected)]
    );
    let open = found(
        s,
        tool(json!({"m": {"type": "object", "additionalProperties": {"type": "string"}}})),
    );
    assert_eq!(open[0].1, "additionalProperties");
    assert_eq!(open[0].0, "/properties/m");
    let bare = found(
        s,
        json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "string"}}}),
    );
    assert!(
        bare.iter()
            .any(|f| f.1 == "$ref" && f.2 == Effect::Rejected),
        "{bare:?}"
    );
    let overlapping = found(
        s,
        tool(json!({"a": {"oneOf": [{"type": "string"}, {"minLength": 1}]}})),
    );
    assert!(overlapping.contains(&("/properties/a".into(), "oneOf".into(), Effect::Dropped)));
    let disjoint = found(
        s,
        tool(json!({"a": {"oneOf": [{"type": "string"}, {"type": "integer"}]}})),
    );
    assert!(disjoint.is_empty(), "{disjoint:?}");
}

#[test]
fn gemini_schema_rejects_what_jsonschema_lacks_and_drops_additional_properties() {
    let s = Stack::GeminiSchema;
    let c = found(s, tool(json!({"a": {"const": "x"}})));
    assert_eq!(
        c,
        [("/properties/a".into(), "const".into(), Effect::Rejected)]
    );
    let ints = found(s, tool(json!({"a": {"type": "integer", "enum": [1, 2]}})));
    assert_eq!(ints[0].1, "enum");
    let closed = found(
        s,
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false}),
    );
    assert_eq!(
        closed,
        [(
            String::new(),
            "additionalProperties".into(),
            Effect::Dropped
        )]
    );
    let split = found(
        s,
        tool(json!({"a": {"type": ["string", "integer"], "default": 3, "minLength": 1}})),
    );
    assert_eq!(
        split,
        [("/properties/a".into(), "default".into(), Effect::Dropped)]
    );
    assert!(
        found(
            s,
            tool(json!({"a": {"anyOf": [{"type": "string"}, {"type": "null"}]}}))
        )
        .is_empty()
    );
}

#[test]
fn anthropic_strict_rejects_type_lists_and_untyped_schemas_and_moves_bounds() {
    let s = Stack::AnthropicStrict;
    let list = found(s, tool(json!({"a": {"type": ["string", "null"]}})));
    assert_eq!(
        list,
        [("/properties/a".into(), "type".into(), Effect::Rejected)]
    );
    let any = found(s, tool(json!({"a": {"description": "anything"}})));
    assert_eq!(any[0].2, Effect::Rejected);
    let bounds = found(
        s,
        tool(json!({"n": {"type": "integer", "minimum": 1, "maximum": 9, "default": 2}})),
    );
    let kws: Vec<&str> = bounds.iter().map(|f| f.1.as_str()).collect();
    assert_eq!(kws, ["default", "maximum", "minimum"]);
    assert!(
        found(
            s,
            tool(json!({"e": {"type": "string", "enum": ["a", "b"]}}))
        )
        .is_empty()
    );
    assert!(
        found(
            s,
            tool(json!({"d": {"type": "string", "format": "date-time"}}))
        )
        .is_empty()
    );
}

#[test]
fn every_adapted_schema_is_accepted_and_decodes_back() {
    let schema = json!({
        "type": "object",
        "properties": {
            "kind": {"const": "x"},
            "opt": {"type": ["string", "null"], "maxLength": 3},
            "count": {"type": "integer", "exclusiveMinimum": 0},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "page": {"type": "integer"},
            "any": {}
        },
        "required": ["kind"]
    });
    for stack in Stack::ALL {
        let adapted = adapt(stack, &schema);
        assert_eq!(adapted.inexpressible, None, "{}", stack.id());
        assert!(
            accepts(stack, &adapted.schema),
            "{}: {:?}",
            stack.id(),
            judge(stack, &adapted.schema)
        );
    }
    let openai = adapt(Stack::OpenAiStrict, &schema).schema;
    // Optional, so also null-able; a free-form object, so a string of its JSON.
    assert_eq!(openai["properties"]["labels"]["anyOf"][0]["type"], "string");
    assert_eq!(
        openai["properties"]["labels"]["anyOf"][1],
        json!({"type": "null"})
    );
    let call = json!({"kind": "x", "page": null, "labels": "{\"a\": \"b\"}", "opt": null});
    let decoded = decode(Stack::OpenAiStrict, &schema, &call);
    assert_eq!(
        decoded,
        json!({"kind": "x", "labels": {"a": "b"}, "opt": null})
    );
    assert_eq!(decode(Stack::GeminiSchema, &schema, &call), call);
}

#[test]
fn a_recursive_schema_is_inexpressible_for_openai_strict_only() {
    let schema = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/node"}},
        "$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}}
    });
    let a = adapt(Stack::OpenAiStrict, &schema);
    assert!(a.inexpressible.is_some_and(|w| w.contains("recursive")));
    assert_eq!(adapt(Stack::AnthropicStrict, &schema).inexpressible, None);
}

/// A decoding applies only where the openai-strict schema changed the field: a `null` the
/// authored schema may take as a value, a string it may take as a string, stay as sent.
#[test]
fn decode_leaves_what_the_authored_schema_may_mean_literally() {
    let schema = json!({
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "either": {"type": ["object", "string"]},
            "untyped_or_object": {"anyOf": [{"type": "object"}, {"pattern": "^\\{"}]},
            "int_or_object": {"anyOf": [{"type": "object"}, {"type": "integer"}]},
            "int_or_null": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "anything": {},
            "null_in_enum": {"enum": [1, null]},
            "needed": {"type": "integer"},
            "plain": {"type": "integer"},
            "outer": {
                "type": "object",
                "properties": {"x": {"type": ["string", "null"]}, "y": {"type": "string"}},
                "anyOf": [
                    {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}}},
                    {"type": "string"}
                ]
            }
        },
        "required": ["needed"]
    });
    let json_text = "{\"a\": 1}";
    let call = json!({
        "text": json_text,
        "either": json_text,
        "untyped_or_object": json_text,
        "int_or_object": json_text,
        "int_or_null": null,
        "anything": null,
        "null_in_enum": null,
        "needed": null,
        "plain": null,
        "outer": {"x": null, "y": null}
    });
    let decoded = decode(Stack::OpenAiStrict, &schema, &call);
    let mut expected = call.clone();
    // Only these were rewritten: an object no other branch takes as a string, an optional
    // integer, a `y` no schema of `outer` lets be `null`.
    expected["int_or_object"] = json!({"a": 1});
    expected.as_object_mut().map(|m| m.remove("plain"));
    expected["outer"] = json!({"x": null});
    assert_eq!(decoded, expected);
    // What the adapted schema serves agrees: only those fields were made `null`able or strings.
    let adapted = adapt(Stack::OpenAiStrict, &schema).schema;
    let props = &adapted["properties"];
    for unchanged in ["int_or_null", "anything", "null_in_enum", "needed"] {
        assert_eq!(
            props[unchanged], schema["properties"][unchanged],
            "{unchanged}"
        );
    }
    // Optional and refusing `null`: `null`able, the string and the string-or-object kept.
    for wrapped in ["plain", "text", "either"] {
        assert_eq!(
            props[wrapped]["anyOf"][0], schema["properties"][wrapped],
            "{wrapped}"
        );
        assert_eq!(
            props[wrapped]["anyOf"][1],
            json!({"type": "null"}),
            "{wrapped}"
        );
    }
}

/// Definitions that each name the next twice inline to 2^40 subschemas: adapt says so (the
/// tool is not served) instead of taking the machine, and decode leaves the call as it came.
#[test]
fn a_ref_fan_out_past_the_budget_is_inexpressible_not_a_hang() {
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(
            format!("d{i}"),
            json!({"anyOf": [{"$ref": next}, {"type": "array", "items": {"$ref": next}}]}),
        );
    }
    defs.insert("d40".into(), json!({"type": "string"}));
    let schema = json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/d0"}, "n": {"type": "integer"}},
        "$defs": defs
    });
    let started = std::time::Instant::now();
    for stack in Stack::ALL {
        let adapted = adapt(stack, &schema);
        let why = adapted.inexpressible.expect("past the budget");
        assert!(why.contains("subschemas"), "{why}");
        let _ = judge(stack, &schema);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{}",
            stack.id()
        );
    }
    // Gemini's judge follows `$ref`s: past the budget it stops, saying so.
    assert!(!accepts(Stack::GeminiSchema, &schema));
    let call = json!({"n": null});
    assert_eq!(decode(Stack::OpenAiStrict, &schema, &call), call);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

/// A finding under a union branch is at `.../anyOf/N`, a JSON Pointer like every other path.
#[test]
fn a_branch_path_is_a_json_pointer() {
    let schema = json!({
        "type": "object",
        "properties": {"x": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]}},
        "required": ["x"],
        "additionalProperties": false,
        "$defs": {"a": {"type": "string"}}
    });
    let paths: Vec<String> = found(Stack::OpenAiStrict, schema)
        .into_iter()
        .map(|(p, _, _)| p)
        .collect();
    assert!(
        paths.contains(&"/properties/x/anyOf/0".to_string()),
        "{paths:?}"
    );
}
