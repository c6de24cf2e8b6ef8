//! Gemini's `Schema` (a function declaration's `parameters`), as PyPI `google-genai` 3.6.1
//! converts JSON Schema: `types.JSONSchema(**schema)` (a pydantic model, `extra='forbid'`),
//! `types.Schema.from_json_schema(json_schema=..., raise_error_on_unsupported_field=True)`,
//! then `_transformers.t_schema`. The Google SDKs, LangChain, LiteLLM and ADK's converters
//! apply this subset; Gemini CLI passes schemas through as `parametersJsonSchema` (host
//! `gemini`). `$schema`, `$id` and `$comment` are taken as removed first (every converter
//! does; the pydantic model would refuse them).
//!
//! - rejects a keyword `JSONSchema` does not declare ([`FIELDS`]; `const`, `exclusiveMinimum`,
//!   `propertyNames`, `allOf`, `not`, `prefixItems`, `examples`, `nullable`, ...), a value of
//!   the wrong shape (a boolean subschema, a `type` outside the seven), and, where
//!   `from_json_schema` reaches (`properties`, `items`, `anyOf`, a `$ref`'s target), `oneOf`
//!   and `uniqueItems` (fields `Schema` lacks), and an `enum` with a value that is not a
//!   string (`Schema.enum` is `list[str]`);
//! - rewrites losslessly: `$ref` into `$defs` (resolved), a type list with `null` (nullable),
//!   `anyOf: [X, {"type": "null"}]` (X, nullable), a type list of several types (split into
//!   `anyOf`, each branch with the keywords of its type);
//! - drops `additionalProperties` (never copied into `Schema`), what a split type list's
//!   types do not use (`default` always), a `$ref`'s siblings, and a recursive `$ref`'s
//!   second visit (read as an empty schema).

use serde_json::{Map, Value};

use super::Finding;
use super::walk::{Sink, push};

/// The fields of `types.JSONSchema`, as its camelCase aliases spell them.
pub const FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "default",
    "items",
    "minItems",
    "maxItems",
    "enum",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "additionalProperties",
    "anyOf",
    "uniqueItems",
    "$ref",
    "$defs",
    "oneOf",
];

/// Taken out before conversion.
pub const STRIPPED: &[&str] = &["$schema", "$id", "$comment"];

/// `JSONSchemaType`'s values.
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "integer", "string",
];

/// `related_field_names_by_type` of `from_json_schema`: what a branch of a split type list
/// keeps.
pub fn related(t: &str) -> &'static [&'static str] {
    match t {
        "number" | "integer" => &[
            "description",
            "enum",
            "format",
            "maximum",
            "minimum",
            "title",
        ],
        "string" => &[
            "description",
            "enum",
            "format",
            "maxLength",
            "minLength",
            "pattern",
            "title",
        ],
        "object" => &[
            "anyOf",
            "description",
            "maxProperties",
            "minProperties",
            "properties",
            "required",
            "title",
        ],
        "array" => &["description", "items", "maxItems", "minItems", "title"],
        "boolean" => &["description", "title"],
        _ => &[],
    }
}

pub fn judge(schema: &Value) -> Vec<Finding> {
    let mut sink = Sink::default();
    shapes(schema, "", &mut sink);
    if !sink.0.is_empty() {
        return sink.0;
    }
    let mut visited = Vec::new();
    convert(schema, schema, "", &mut visited, &mut sink);
    sink.0
}

/// What `JSONSchema(**schema)` refuses: keywords it does not declare, values of another shape.
fn shapes(v: &Value, path: &str, sink: &mut Sink) {
    let Some(m) = v.as_object() else {
        sink.reject(path, "", "a boolean schema: `JSONSchema` expects an object");
        return;
    };
    for (k, val) in m {
        if STRIPPED.contains(&k.as_str()) {
            continue;
        }
        if !FIELDS.contains(&k.as_str()) {
            sink.reject(path, k, format!("`{k}` is not a field of google-genai's `JSONSchema` (extra fields are forbidden)"));
            continue;
        }
        let at = push(path, k);
        match (k.as_str(), val) {
            ("items", _) => shapes(val, &at, sink),
            ("properties" | "$defs", Value::Object(o)) => {
                for (n, s) in o {
                    shapes(s, &push(&at, n), sink);
                }
            }
            ("anyOf" | "oneOf", Value::Array(a)) => {
                for (i, s) in a.iter().enumerate() {
                    shapes(s, &push(&at, &i.to_string()), sink);
                }
            }
            ("type", t) if !type_ok(t) => {
                sink.reject(path, "type", "a type outside JSONSchemaType's seven");
            }
            ("properties" | "$defs" | "anyOf" | "oneOf" | "enum" | "required", _)
                if !(val.is_object() || val.is_array()) =>
            {
                sink.reject(
                    path,
                    k,
                    format!("`{k}` of another shape than `JSONSchema`'s"),
                );
            }
            _ => {}
        }
    }
}

fn type_ok(t: &Value) -> bool {
    match t {
        Value::String(s) => TYPES.contains(&s.as_str()),
        Value::Array(a) => a
            .iter()
            .all(|t| t.as_str().is_some_and(|s| TYPES.contains(&s))),
        _ => false,
    }
}

/// The non-null types of a `type`.
fn non_null(m: &Map<String, Value>) -> Vec<&str> {
    match m.get("type") {
        Some(Value::String(t)) if t != "null" => vec![t.as_str()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => Vec::new(),
    }
}

/// `convert_json_schema`: the node (its `$ref` resolved), then what it recurses into.
fn convert(v: &Value, root: &Value, path: &str, visited: &mut Vec<String>, sink: &mut Sink) {
    let Some(mut m) = v.as_object() else { return };
    if sink.spent(path) {
        return;
    }
    let mut reference = None;
    if let Some(Value::String(r)) = m.get("$ref") {
        if visited.contains(r) {
            sink.drop_kw(
                path,
                "$ref",
                "a recursive `$ref` visited again is read as an empty schema",
            );
            return;
        }
        let Some(Value::Object(t)) = resolve_as_gemini(root, r) else {
            sink.reject(path, "$ref", "a `$ref` that does not resolve into the root");
            return;
        };
        for (k, v) in m.iter().filter(|(k, _)| *k != "$ref") {
            sink.drop_all(
                path,
                k,
                v,
                "a `$ref`'s sibling: the target replaces the node",
            );
        }
        if t.contains_key("$ref") {
            // The target is read as it is, its own `$ref` not followed: what that points at
            // never reaches `Schema`.
            let mut end = t;
            let mut hops = 0;
            while let Some(Value::String(next)) = end.get("$ref")
                && let Some(Value::Object(n)) = resolve_as_gemini(root, next)
                && hops < 32
            {
                end = n;
                hops += 1;
            }
            for (k, v) in end.iter().filter(|(k, _)| *k != "$ref") {
                sink.drop_all(
                    path,
                    k,
                    v,
                    "behind a `$ref` to a `$ref`, which is not followed",
                );
            }
            return;
        }
        visited.push(r.clone());
        reference = Some(r.clone());
        m = t;
    }
    for (k, why) in [
        ("oneOf", "`Schema` has no `oneOf`"),
        ("uniqueItems", "`Schema` has no `uniqueItems`"),
    ] {
        if m.get(k).is_some_and(|v| !v.is_null()) {
            sink.reject(path, k, format!("{why} (raise_error_on_unsupported_field)"));
        }
    }
    if let Some(Value::Array(e)) = m.get("enum")
        && e.iter().any(|v| !v.is_string())
    {
        sink.reject(
            path,
            "enum",
            "an enum value that is not a string: `Schema.enum` is a list of strings",
        );
    }
    if let Some(ap) = m.get("additionalProperties") {
        sink.drop_all(
            path,
            "additionalProperties",
            ap,
            "never copied into `Schema`",
        );
    }
    let types = non_null(m);
    if types.len() > 1 {
        for (k, v) in m {
            let kept = (k == "default" && v.is_null())
                || k == "type"
                || types.iter().any(|t| related(t).contains(&k.as_str()));
            if !kept {
                sink.drop_all(path, k, v, "a type list of several types is split into `anyOf`, each branch with its type's keywords only");
            }
        }
    }
    children(m, root, path, visited, sink);
    if let Some(r) = reference {
        visited.retain(|x| x != &r);
    }
}

fn children(
    m: &Map<String, Value>,
    root: &Value,
    path: &str,
    visited: &mut Vec<String>,
    sink: &mut Sink,
) {
    let types = non_null(m);
    let split = types.len() > 1;
    let keeps = |k: &str| !split || types.iter().any(|t| related(t).contains(&k));
    if let Some(items) = m.get("items").filter(|_| keeps("items"))
        && items.as_object().is_some_and(|o| !o.is_empty())
    {
        convert(items, root, &push(path, "items"), visited, sink);
    }
    if let Some(Value::Array(a)) = m.get("anyOf").filter(|_| keeps("anyOf")) {
        for (i, s) in a.iter().enumerate() {
            convert(
                s,
                root,
                &push(&push(path, "anyOf"), &i.to_string()),
                visited,
                sink,
            );
        }
    }
    if let Some(Value::Object(p)) = m.get("properties").filter(|_| keeps("properties")) {
        for (n, s) in p {
            convert(s, root, &push(&push(path, "properties"), n), visited, sink);
        }
    }
}

/// `_resolve_ref` of `from_json_schema`: the reference with its leading `#` and `/` taken
/// off, split at `/`, each part a key as it is (no `~` or `%` escapes read).
fn resolve_as_gemini<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let mut node = root;
    for part in reference.trim_start_matches(['#', '/']).split('/') {
        node = node.as_object()?.get(part)?;
    }
    Some(node)
}
