//! An equivalent of a tool's input schema that a stack accepts, and the decoding of calls made
//! against it.
//!
//! Lossless rewrites first, for every stack: local `$ref`s inlined (a recursive one kept),
//! `oneOf` as `anyOf` where no value can match two branches (each of its own type). Then per
//! stack:
//!
//! - `gemini-schema`: `const` as a one-value `enum`, `nullable: true` as `null` in the type,
//!   `exclusiveMinimum`/`exclusiveMaximum` on an integer as `minimum`/`maximum` one past;
//!   every keyword `JSONSchema` lacks, `additionalProperties`, `uniqueItems`, a non-string
//!   `enum` and an overlapping `oneOf` taken out and written into the description.
//! - `anthropic-strict`: a type list as `anyOf` of one type each (each branch with the
//!   keywords of its type, `enum`/`const` values shared out by type), an empty schema or
//!   `true` as `anyOf` of the seven types; an open object's `additionalProperties` written
//!   into the description (the stack closes every object). What transform_schema moves into
//!   the description it moves itself.
//! - `openai-strict`: the root as a plain object; a free-form object (one that declares no
//!   property and is not closed) below the root sent as a JSON string ([`decode`] parses it
//!   back); an open object with properties closed, what else it accepts written into the
//!   description; every optional property that does not accept `null` made required with
//!   `null` allowed ([`decode`] reads a `null` there as the property left out).
//!
//! A schema with no equivalent (a recursive one for openai-strict, a `false` subschema, a
//! union at the root) is `inexpressible`, with the reason. Calls are always validated against
//! the authored schema, after [`decode`]: what the rewritten schema allows and the authored
//! one does not is still refused.

use serde_json::{Map, Value, json};

use super::walk::{
    INLINE_BUDGET, MANY, MAP, ONE, disjoint, has_ref, inline_within, is_null_schema,
};
use super::{Stack, gemini};

/// A schema rewritten for a stack.
#[derive(Clone, Debug, PartialEq)]
pub struct Adapted {
    /// The schema to serve.
    pub schema: Value,
    /// Why no acceptable equivalent exists, when none does (then `schema` is the authored one
    /// and must not be served).
    pub inexpressible: Option<String>,
}

/// The equivalent of `schema` that `stack` accepts.
pub fn adapt(stack: Stack, schema: &Value) -> Adapted {
    let Some(inlined) = inline_within(schema) else {
        return inexpressible(
            schema,
            &format!(
                "its `$ref`s inline to more than {INLINE_BUDGET} subschemas: too large to serve"
            ),
        );
    };
    if has_ref(&inlined) && !only_local_refs(&inlined) {
        return inexpressible(
            schema,
            "a `$ref` outside the document: no stack here fetches one",
        );
    }
    if stack == Stack::OpenAiStrict && has_ref(&inlined) {
        return inexpressible(
            schema,
            "a recursive `$ref`: strict mode needs every `$ref` resolved, and a recursive one never is",
        );
    }
    let mut out = rewrite(stack, &inlined, true);
    if let Err(why) = root_shape(stack, &mut out) {
        return inexpressible(schema, &why);
    }
    if contains_false(&out) {
        return inexpressible(
            schema,
            "a `false` subschema (no value is valid there): no stack's subset can say it",
        );
    }
    Adapted {
        schema: out,
        inexpressible: None,
    }
}

/// Whether every `$ref` left is local (`#...`).
fn only_local_refs(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            m.get("$ref")
                .is_none_or(|r| r.as_str().is_some_and(|r| r.starts_with('#')))
                && m.values().all(only_local_refs)
        }
        Value::Array(a) => a.iter().all(only_local_refs),
        _ => true,
    }
}

fn inexpressible(schema: &Value, why: &str) -> Adapted {
    Adapted {
        schema: schema.clone(),
        inexpressible: Some(why.to_string()),
    }
}

fn contains_false(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.iter().any(|(k, c)| {
            let schema_kw = ONE.contains(&k.as_str()) && k != "additionalProperties";
            (schema_kw && c == &Value::Bool(false))
                || (MANY.contains(&k.as_str())
                    && c.as_array()
                        .is_some_and(|a| a.contains(&Value::Bool(false))))
                || (MAP.contains(&k.as_str())
                    && c.as_object()
                        .is_some_and(|o| o.values().any(|s| s == &Value::Bool(false))))
                || contains_false(c)
        }),
        Value::Array(a) => a.iter().any(contains_false),
        _ => false,
    }
}

/// The root a stack needs: a plain object for openai-strict.
fn root_shape(stack: Stack, root: &mut Value) -> Result<(), String> {
    let Some(m) = root.as_object_mut() else {
        return Err("the input schema is not an object".into());
    };
    if stack != Stack::OpenAiStrict {
        return Ok(());
    }
    if m.contains_key("anyOf") || m.contains_key("oneOf") {
        return Err("a union at the root: strict mode needs the arguments to be one object".into());
    }
    // Arguments are always an object: a type list at the root says no more than `object`.
    if let Some(Value::Array(types)) = m.get("type")
        && types.iter().any(|t| t == "object")
    {
        m.insert("type".into(), json!("object"));
    }
    if is_free_object(m) {
        // A tool without parameters, or one taking any: closed, said in the description.
        let open = !matches!(
            m.get("additionalProperties"),
            None | Some(Value::Bool(false))
        ) || m.get("properties").is_none();
        m.insert("properties".into(), json!({}));
        if open && m.get("additionalProperties").is_some() {
            let ap = m.remove("additionalProperties").unwrap_or(Value::Null);
            note(m, &format!("Accepts any properties{}.", each_value(&ap)));
        }
        m.insert("additionalProperties".into(), Value::Bool(false));
    }
    Ok(())
}

/// ` (each value: SCHEMA)` for an `additionalProperties` schema, else nothing.
fn each_value(ap: &Value) -> String {
    match ap {
        Value::Object(o) if !o.is_empty() => format!(" (each value: {})", compact(ap)),
        _ => String::new(),
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Appends `text` to the node's description.
fn note(m: &mut Map<String, Value>, text: &str) {
    let joined = match m.get("description").and_then(Value::as_str) {
        Some(d) if !d.is_empty() => format!("{d} {text}"),
        _ => text.to_string(),
    };
    m.insert("description".into(), Value::String(joined));
}

/// Whether an object node declares no property and is not closed: free-form.
pub(super) fn is_free_object(m: &Map<String, Value>) -> bool {
    let object = match m.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => {
            ts.iter().any(|t| t == "object") && !ts.iter().any(|t| t == "string")
        }
        _ => false,
    };
    let no_props = m
        .get("properties")
        .is_none_or(|p| p.as_object().is_some_and(Map::is_empty));
    object && no_props && m.get("additionalProperties") != Some(&Value::Bool(false))
}

/// The node rewritten, its subschemas first.
fn rewrite(stack: Stack, v: &Value, is_root: bool) -> Value {
    let m = match v {
        Value::Object(m) => m,
        Value::Bool(true) => return rewrite(stack, &json!({}), is_root),
        _ => return v.clone(),
    };
    let mut out = Map::new();
    for (k, c) in m {
        let child = match c {
            Value::Object(o) if ONE.contains(&k.as_str()) && k != "additionalProperties" => {
                rewrite(stack, &Value::Object(o.clone()), false)
            }
            Value::Bool(true) if ONE.contains(&k.as_str()) && k != "additionalProperties" => {
                rewrite(stack, c, false)
            }
            Value::Array(a) if MANY.contains(&k.as_str()) => {
                Value::Array(a.iter().map(|b| rewrite(stack, b, false)).collect())
            }
            Value::Object(o) if MAP.contains(&k.as_str()) => Value::Object(
                o.iter()
                    .map(|(n, s)| (n.clone(), rewrite(stack, s, false)))
                    .collect(),
            ),
            Value::Object(_) if k == "additionalProperties" => rewrite(stack, c, false),
            _ => c.clone(),
        };
        out.insert(k.clone(), child);
    }
    if let Some(Value::Array(b)) = out.get("oneOf")
        && disjoint(b)
        && !out.contains_key("anyOf")
    {
        let b = out.remove("oneOf").unwrap_or_default();
        out.insert("anyOf".into(), b);
    }
    match stack {
        Stack::GeminiSchema => gemini_node(&mut out),
        Stack::AnthropicStrict => anthropic_node(&mut out),
        Stack::OpenAiStrict => openai_node(&mut out, is_root),
    }
    Value::Object(out)
}

fn gemini_node(m: &mut Map<String, Value>) {
    for k in gemini::STRIPPED {
        m.remove(*k);
    }
    if let Some(c) = m.remove("const") {
        m.insert("enum".into(), Value::Array(vec![c]));
    }
    if m.remove("nullable") == Some(Value::Bool(true)) {
        add_null_type(m);
    }
    integer_exclusive(m);
    if let Some(Value::Array(e)) = m.get("enum")
        && e.iter().any(|v| !v.is_string())
    {
        let e = m.remove("enum").unwrap_or_default();
        let values = e.as_array().map(|a| list(a)).unwrap_or_default();
        note(m, &format!("One of: {values}."));
    }
    if let Some(b) = m.remove("oneOf") {
        note(m, "Exactly one of the alternatives (anyOf) must match.");
        m.insert("anyOf".into(), b);
    }
    let unsupported: Vec<String> = m
        .keys()
        .filter(|k| {
            !gemini::FIELDS.contains(&k.as_str())
                || *k == "uniqueItems"
                || *k == "additionalProperties"
        })
        .cloned()
        .collect();
    for k in unsupported {
        let v = m.remove(&k).unwrap_or_default();
        if let Some(text) = constraint_text(&k, &v) {
            note(m, &text);
        }
    }
}

fn list(values: &[Value]) -> String {
    values.iter().map(compact).collect::<Vec<_>>().join(", ")
}

/// A constraint in words, for the description.
fn constraint_text(k: &str, v: &Value) -> Option<String> {
    Some(match (k, v) {
        ("additionalProperties", Value::Bool(false)) => {
            "No properties other than those listed are accepted.".into()
        }
        ("additionalProperties", Value::Bool(true)) => "Other properties are accepted too.".into(),
        ("additionalProperties", s) => {
            format!("Other properties are accepted too{}.", each_value(s))
        }
        ("uniqueItems", Value::Bool(true)) => "Items must be unique.".into(),
        ("uniqueItems", _) => return None,
        ("exclusiveMinimum", n) => format!("Must be greater than {n}."),
        ("exclusiveMaximum", n) => format!("Must be less than {n}."),
        ("multipleOf", n) => format!("Must be a multiple of {n}."),
        ("examples", e) => format!(
            "Examples: {}.",
            e.as_array().map(|a| list(a)).unwrap_or_else(|| compact(e))
        ),
        ("deprecated", Value::Bool(true)) => "Deprecated.".into(),
        ("deprecated" | "readOnly" | "writeOnly", _) => return None,
        (k, v) => format!("Constraint ({k}): {}.", compact(v)),
    })
}

/// `exclusiveMinimum: n` on an integer is `minimum: floor(n) + 1` (and the maximum likewise).
fn integer_exclusive(m: &mut Map<String, Value>) {
    if m.get("type") != Some(&json!("integer")) {
        return;
    }
    for (ex, plain, step) in [
        ("exclusiveMinimum", "minimum", 1.0),
        ("exclusiveMaximum", "maximum", -1.0),
    ] {
        let Some(n) = m.get(ex).and_then(Value::as_f64) else {
            continue;
        };
        if m.contains_key(plain) || n.fract() != 0.0 || n.abs() > 9.0e15 {
            continue;
        }
        m.remove(ex);
        m.insert(plain.into(), json!((n + step) as i64));
    }
}

fn add_null_type(m: &mut Map<String, Value>) {
    match m.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = t.clone();
            m.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(ts)) if !ts.contains(&json!("null")) => ts.push(json!("null")),
        _ => {}
    }
    if let Some(Value::Array(e)) = m.get_mut("enum")
        && !e.contains(&Value::Null)
    {
        e.push(Value::Null);
    }
}

/// The keywords that apply to values of one type only.
fn type_keywords(t: &str) -> &'static [&'static str] {
    match t {
        "string" => &[
            "minLength",
            "maxLength",
            "pattern",
            "format",
            "contentEncoding",
            "contentMediaType",
            "contentSchema",
        ],
        "number" | "integer" => &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
        "object" => &[
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "propertyNames",
            "minProperties",
            "maxProperties",
            "dependentRequired",
            "dependentSchemas",
            "unevaluatedProperties",
        ],
        "array" => &[
            "items",
            "prefixItems",
            "minItems",
            "maxItems",
            "uniqueItems",
            "contains",
            "minContains",
            "maxContains",
            "unevaluatedItems",
        ],
        _ => &[],
    }
}

fn anthropic_node(m: &mut Map<String, Value>) {
    let combinator = ["anyOf", "oneOf", "allOf"]
        .iter()
        .any(|k| m.contains_key(*k));
    let literal = m.contains_key("enum") || m.contains_key("const");
    if m.is_empty()
        || (!combinator && !literal && !m.contains_key("type") && !m.contains_key("$ref"))
    {
        let branches: Vec<Value> = ["string", "number", "boolean", "null", "object", "array"]
            .iter()
            .map(|t| json!({"type": t}))
            .collect();
        m.insert("anyOf".into(), Value::Array(branches));
        note(m, "Any JSON value.");
        return;
    }
    if let Some(Value::Array(types)) = m.get("type").cloned()
        && !literal
        && !combinator
    {
        split_types(m, &types);
    }
    if literal && !combinator && !m.contains_key("type") && !primitive_literals(m) {
        type_literals(m);
    }
    if let Some(ap) = m.get("additionalProperties").cloned()
        && ap != Value::Bool(false)
        && m.get("type") == Some(&json!("object"))
    {
        m.remove("additionalProperties");
        if let Some(text) = constraint_text("additionalProperties", &ap) {
            note(m, &text);
        }
    }
}

/// Whether `enum`/`const` hold primitive values only (what transform_schema keeps).
fn primitive_literals(m: &Map<String, Value>) -> bool {
    let primitive = |v: &Value| !(v.is_array() || v.is_object());
    let e = m.get("enum").and_then(Value::as_array);
    let enum_ok = e.is_some_and(|e| !e.is_empty() && e.iter().all(primitive));
    let const_ok = m.get("const").is_some_and(primitive);
    enum_ok || const_ok
}

/// The JSON types of an `enum`/`const` of objects or arrays as the node's `type` (or
/// `anyOf` of them): what transform_schema needs beside values it cannot keep.
fn type_literals(m: &mut Map<String, Value>) {
    let values: Vec<Value> = match (m.get("const"), m.get("enum")) {
        (Some(c), _) => vec![c.clone()],
        (None, Some(Value::Array(e))) => e.clone(),
        _ => return,
    };
    let mut types: Vec<&str> = values.iter().map(json_type).collect();
    types.sort_unstable();
    types.dedup();
    match types.as_slice() {
        [t] => {
            m.insert("type".into(), json!(t));
        }
        ts => {
            let branches: Vec<Value> = ts.iter().map(|t| json!({"type": t})).collect();
            m.insert("anyOf".into(), Value::Array(branches));
        }
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `type: [A, B]` as `anyOf: [{type: A, ...A's keywords}, {type: B, ...}]`.
fn split_types(m: &mut Map<String, Value>, types: &[Value]) {
    let mut branches = Vec::new();
    for t in types.iter().filter_map(Value::as_str) {
        let mut b = Map::new();
        b.insert("type".into(), json!(t));
        for k in type_keywords(t) {
            if let Some(v) = m.get(*k) {
                b.insert((*k).into(), v.clone());
            }
        }
        branches.push(Value::Object(b));
    }
    m.remove("type");
    for t in types.iter().filter_map(Value::as_str) {
        for k in type_keywords(t) {
            m.remove(*k);
        }
    }
    m.insert("anyOf".into(), Value::Array(branches));
}

fn openai_node(m: &mut Map<String, Value>, is_root: bool) {
    if !is_root && is_free_object(m) {
        encode_as_string(m);
        return;
    }
    let object = m.get("type") == Some(&json!("object"))
        || m.get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.contains(&json!("object")))
        || (m.get("type").is_none() && m.get("properties").is_some_and(Value::is_object));
    if !object {
        // `additionalProperties` with no `type`: strict mode cannot hold it (it would close
        // an object that the schema leaves open to other values): said in words.
        if let Some(ap) = m.remove("additionalProperties") {
            let text = match &ap {
                Value::Bool(false) => "An object here has no properties.".to_string(),
                s => format!("An object here may hold any properties{}.", each_value(s)),
            };
            note(m, &text);
        }
        return;
    }
    if let Some(ap) = m.get("additionalProperties").cloned()
        && ap != Value::Bool(false)
    {
        m.remove("additionalProperties");
        if let Some(text) = constraint_text("additionalProperties", &ap) {
            note(m, &text);
        }
    }
    let required: Vec<String> = m
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        for (name, s) in props.iter_mut() {
            if !required.contains(name) && !accepts_null(s) {
                *s = nullable(s);
            }
        }
    }
}

/// A free-form object as a string holding its JSON.
fn encode_as_string(m: &mut Map<String, Value>) {
    let nullable = m
        .get("type")
        .and_then(Value::as_array)
        .is_some_and(|t| t.contains(&json!("null")));
    let ap = m
        .get("additionalProperties")
        .cloned()
        .unwrap_or(Value::Bool(true));
    let description = m.get("description").cloned();
    m.clear();
    m.insert(
        "type".into(),
        if nullable {
            json!(["string", "null"])
        } else {
            json!("string")
        },
    );
    if let Some(d) = description {
        m.insert("description".into(), d);
    }
    note(
        m,
        &format!(
            "A JSON object, written as a string of JSON{}.",
            each_value(&ap)
        ),
    );
}

/// `anyOf: [S, {"type": "null"}]`, the description lifted out.
fn nullable(s: &Value) -> Value {
    let mut inner = s.clone();
    let mut outer = Map::new();
    if let Some(m) = inner.as_object_mut() {
        for k in ["description", "title"] {
            if let Some(d) = m.remove(k) {
                outer.insert(k.into(), d);
            }
        }
    }
    outer.insert("anyOf".into(), json!([inner, {"type": "null"}]));
    Value::Object(outer)
}

/// Whether a subschema may accept `null` as it says plainly (or says nothing of types):
/// then a `null` sent there is the caller's value, not a property left out.
pub(super) fn accepts_null(s: &Value) -> bool {
    let Some(m) = s.as_object() else {
        return s == &Value::Bool(true);
    };
    let typed = [
        "type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "not",
    ]
    .iter()
    .any(|k| m.contains_key(*k));
    if !typed {
        return true;
    }
    let by_type = match m.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => ts.contains(&json!("null")),
        _ => true,
    };
    let by_enum = match (m.get("enum"), m.get("const")) {
        (_, Some(c)) => c.is_null(),
        (Some(Value::Array(e)), _) => e.contains(&Value::Null),
        _ => true,
    };
    let by_union = ["anyOf", "oneOf"].iter().all(|k| match m.get(*k) {
        Some(Value::Array(b)) => b.iter().any(|b| is_null_schema(b) || accepts_null(b)),
        _ => true,
    });
    let opaque = m.contains_key("$ref") || m.contains_key("not") || m.contains_key("allOf");
    (by_type && by_enum && by_union) || opaque
}

/// `arguments` made against `stack`'s rewritten schema, as the authored `schema` judges them:
/// for openai-strict, a `null` at an optional property that does not accept `null` is the
/// property left out, and a string where a free-form object is authored is that object's
/// JSON (when it parses to an object). Identity for the other stacks.
pub fn decode(stack: Stack, schema: &Value, arguments: &Value) -> Value {
    if stack != Stack::OpenAiStrict {
        return arguments.clone();
    }
    // A schema past the budget is never served (`adapt` calls it inexpressible): the call is
    // then judged as it came.
    let Some(inlined) = inline_within(schema) else {
        return arguments.clone();
    };
    let mut out = arguments.clone();
    decode_in(&inlined, &mut out, true);
    out
}

/// Reads `v` back against the authored node `s`. `outer` holds the property schemas an
/// enclosing node declares for the same object (when `s` is one of its union branches): a
/// `null` is read as left out only where no schema of that object lets `null` stand as a
/// value, so a `null` the authored schema could mean literally is never removed.
fn decode_in(s: &Value, v: &mut Value, is_root: bool) {
    decode_node(s, v, is_root, &Map::new());
}

fn decode_node(s: &Value, v: &mut Value, is_root: bool, outer: &Map<String, Value>) {
    let Some(m) = s.as_object() else { return };
    if !is_root
        && is_free_object(m)
        && let Value::String(text) = v
        && let Ok(parsed @ Value::Object(_)) = serde_json::from_str::<Value>(text)
    {
        *v = parsed;
        return;
    }
    match v {
        Value::Object(obj) => {
            let required: Vec<&str> = m
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let own = m.get("properties").and_then(Value::as_object);
            for (name, ps) in own.into_iter().flatten() {
                let null_is_value = outer.get(name).is_some_and(accepts_null);
                if obj.get(name) == Some(&Value::Null)
                    && !required.contains(&name.as_str())
                    && !accepts_null(ps)
                    && !null_is_value
                {
                    obj.remove(name);
                } else if let Some(pv) = obj.get_mut(name) {
                    decode_in(ps, pv, false);
                }
            }
            if let Some(branch) = one_branch(m, "object") {
                let mut seen = outer.clone();
                seen.extend(own.cloned().unwrap_or_default());
                decode_node(branch, v, false, &seen);
            }
        }
        Value::Array(items) => {
            if let Some(is @ Value::Object(_)) = m.get("items") {
                for item in items.iter_mut() {
                    decode_in(is, item, false);
                }
            }
            if let Some(branch) = one_branch(m, "array") {
                decode_in(branch, v, false);
            }
        }
        Value::String(_) => {
            // Through a union only when no other branch could take a string as it is.
            if let Some(branch) = one_branch(m, "object")
                && only_branch_of(m, branch, |b| !may_be_string(b))
            {
                decode_in(branch, v, false);
            }
        }
        _ => {}
    }
}

/// Whether every `anyOf`/`oneOf` branch of `m` but `branch` satisfies `ok`.
fn only_branch_of(m: &Map<String, Value>, branch: &Value, ok: impl Fn(&Value) -> bool) -> bool {
    let Some(branches) = m
        .get("anyOf")
        .or_else(|| m.get("oneOf"))
        .and_then(Value::as_array)
    else {
        return false;
    };
    branches
        .iter()
        .filter(|b| !std::ptr::eq(*b, branch))
        .all(ok)
}

/// Whether a subschema might accept a string: unless its `type` plainly leaves strings out
/// (an untyped branch, an `enum`, a `not`, a `$ref` may take one).
fn may_be_string(s: &Value) -> bool {
    match s.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
        _ => s != &Value::Bool(false),
    }
}

/// The one `anyOf`/`oneOf` branch of type `t`, when exactly one has it.
fn one_branch<'a>(m: &'a Map<String, Value>, t: &str) -> Option<&'a Value> {
    let branches = m.get("anyOf").or_else(|| m.get("oneOf"))?.as_array()?;
    let mut of_type = branches.iter().filter(|b| {
        b.get("type")
            .is_some_and(|bt| bt == t || bt.as_array().is_some_and(|a| a.contains(&json!(t))))
    });
    let first = of_type.next()?;
    of_type.next().is_none().then_some(first)
}
