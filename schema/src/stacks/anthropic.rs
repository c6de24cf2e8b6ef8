//! Claude strict tool use, as PyPI `anthropic` 2.16.0 transforms a schema:
//! `anthropic.lib._parse._transform.transform_schema`. Per node:
//!
//! - rejects a node with no `type`, `anyOf`, `oneOf`, `allOf`, primitive `const` or
//!   non-empty primitive `enum` (`ValueError`: `{}` among them), a `type` list or a type
//!   outside the seven (`assert_never`), a boolean schema (`TypeError`);
//! - keeps `$defs`, `$ref` (alone: its siblings go), `enum` and `const` of primitives,
//!   `anyOf` (else `oneOf`, written as `anyOf`, else `allOf`), `type` (when none of those is
//!   there), `description`, `title`, and by type: `properties`, `required` (objects), `format`
//!   of `SupportedStringFormats` (strings), `items` and `minItems` 0 or 1 (arrays);
//! - closes every object (`additionalProperties: false`, whatever was authored);
//! - moves every other keyword into the description text (`{key: value, ...}`): dropped, as
//!   a model reads prose and no validator does. `type` beside `enum`/`const` goes too (lossless
//!   when every value has that type); so does `oneOf`'s exclusivity (unless its branches are
//!   of different types) and a `oneOf` or `allOf` beside an `anyOf`.

use serde_json::{Map, Value};

use super::Finding;
use super::walk::{Sink, disjoint, push, type_implied};

/// `SupportedStringFormats`.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// `SupportedTypes`.
const TYPES: &[&str] = &[
    "object", "array", "string", "integer", "number", "boolean", "null",
];

pub fn judge(schema: &Value) -> Vec<Finding> {
    let mut sink = Sink::default();
    node(schema, "", &mut sink);
    sink.0
}

fn primitive(v: &Value) -> bool {
    !(v.is_array() || v.is_object())
}

const MOVED: &str = "moved into the description text";

fn node(v: &Value, path: &str, sink: &mut Sink) {
    let Some(m) = v.as_object() else {
        sink.reject(
            path,
            "",
            "a boolean schema: transform_schema expects a mapping",
        );
        return;
    };
    if let Some(Value::Object(defs)) = m.get("$defs") {
        for (n, s) in defs {
            node(s, &push(&push(path, "$defs"), n), sink);
        }
    }
    if m.contains_key("$ref") {
        for (k, v) in m.iter().filter(|(k, _)| *k != "$ref" && *k != "$defs") {
            sink.drop_all(
                path,
                k,
                v,
                "a `$ref`'s sibling: transform_schema keeps the `$ref` alone",
            );
        }
        return;
    }
    let mut left: Map<String, Value> = m.clone();
    for k in ["$defs", "description", "title"] {
        left.remove(k);
    }
    let typ = left.remove("type");
    let literals = literals(&mut left);
    if literals && typ.is_some() && !type_implied(m) {
        sink.drop_kw(path, "type", "a `type` beside `enum`/`const` is left out");
    }
    let combinator = combinators(&mut left, path, sink);
    let type_str = match (&typ, literals) {
        (_, true) => None,
        (Some(Value::String(t)), _) if TYPES.contains(&t.as_str()) => Some(t.as_str()),
        (Some(t), _) => {
            sink.reject(
                path,
                "type",
                format!(
                    "type {t}: transform_schema supports one of the seven types (`assert_never`)"
                ),
            );
            return;
        }
        (None, _) if combinator => None,
        (None, _) => {
            sink.reject(path, "", "no `type`, `anyOf`, `oneOf`, `allOf`, `const` or non-empty `enum`: transform_schema refuses it");
            return;
        }
    };
    if combinator && typ.is_some() && !literals {
        sink.drop_kw(
            path,
            "type",
            "a `type` beside `anyOf`/`oneOf`/`allOf` is left out",
        );
    }
    by_type(type_str, &mut left, path, sink);
    for (k, v) in &left {
        // A null default says no more than that the property is optional.
        if !(k == "default" && v.is_null()) {
            sink.drop_all(path, k, v, MOVED);
        }
    }
}

/// Takes the primitive `enum` and `const` out of `left`; whether there were any.
fn literals(left: &mut Map<String, Value>) -> bool {
    let mut any = false;
    if let Some(Value::Array(e)) = left.get("enum")
        && !e.is_empty()
        && e.iter().all(primitive)
    {
        left.remove("enum");
        any = true;
    }
    if left.get("const").is_some_and(primitive) {
        left.remove("const");
        any = true;
    }
    any
}

/// `anyOf`, else `oneOf`, else `allOf`, each branch transformed; the others popped unused.
fn combinators(left: &mut Map<String, Value>, path: &str, sink: &mut Sink) -> bool {
    let mut used = None;
    for k in ["anyOf", "oneOf", "allOf"] {
        let Some(v) = left.remove(k) else { continue };
        let Value::Array(branches) = &v else { continue };
        if used.is_some() {
            sink.drop_all(
                path,
                k,
                &v,
                "left out: only the first of anyOf, oneOf, allOf is kept",
            );
            continue;
        }
        used = Some(k);
        for (i, b) in branches.iter().enumerate() {
            node(b, &push(&push(path, k), &i.to_string()), sink);
        }
        if k == "oneOf" && !disjoint(branches) {
            sink.drop_kw(
                path,
                "oneOf",
                "written as `anyOf`: a value that matches two branches is no longer refused",
            );
        }
    }
    used.is_some()
}

fn by_type(t: Option<&str>, left: &mut Map<String, Value>, path: &str, sink: &mut Sink) {
    match t {
        Some("object") => {
            if let Some(Value::Object(props)) = left.remove("properties") {
                for (n, s) in &props {
                    node(s, &push(&push(path, "properties"), n), sink);
                }
            }
            if let Some(ap) = left.remove("additionalProperties")
                && ap != Value::Bool(false)
            {
                sink.drop_all(
                    path,
                    "additionalProperties",
                    &ap,
                    "replaced by `false`: every object is closed",
                );
            }
            left.remove("required");
        }
        Some("string")
            if left
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| FORMATS.contains(&f)) =>
        {
            left.remove("format");
        }
        Some("array") => {
            if let Some(items) = left.remove("items") {
                node(&items, &push(path, "items"), sink);
            }
            if left.get("minItems").is_some_and(|n| n == 0 || n == 1) {
                left.remove("minItems");
            }
        }
        _ => {}
    }
}
