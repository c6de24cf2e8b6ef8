//! What the stack models share: paths, local `$ref`s, the findings they collect, and the
//! shapes every model reads the same way.

use serde_json::{Map, Value};

use super::{Effect, Finding, STRUCTURAL};

/// Keywords whose value is one subschema.
pub const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
];
/// Keywords whose value is a list of subschemas.
pub const MANY: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
/// Keywords whose value is a map of subschemas.
pub const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

/// `path` with one more reference token, `~` and `/` escaped.
pub fn push(path: &str, token: &str) -> String {
    format!("{path}/{}", token.replace('~', "~0").replace('/', "~1"))
}

/// The findings of one judgement, and the subschemas visited so far.
#[derive(Default)]
pub struct Sink(pub Vec<Finding>, pub usize);

impl Sink {
    /// Counts one visited subschema: `true` (after one rejection at `path`) once more than
    /// [`INLINE_BUDGET`] were visited, for a judge that follows `$ref`s: definitions that fan
    /// out grow exponentially when followed, and no stack expands them that far either.
    pub fn spent(&mut self, path: &str) -> bool {
        self.1 += 1;
        if self.1 == INLINE_BUDGET + 1 {
            self.reject(
                path,
                "$ref",
                format!("its `$ref`s expand to more than {INLINE_BUDGET} subschemas"),
            );
        }
        self.1 > INLINE_BUDGET
    }

    pub fn reject(&mut self, path: &str, keyword: &str, reason: impl Into<String>) {
        self.add(path, keyword, Effect::Rejected, reason.into());
    }

    /// A dropped keyword; structural ones are not reported.
    pub fn drop_kw(&mut self, path: &str, keyword: &str, reason: impl Into<String>) {
        if !STRUCTURAL.contains(&keyword) {
            self.add(path, keyword, Effect::Dropped, reason.into());
        }
    }

    /// A dropped keyword and, when its value holds subschemas, every keyword in them.
    pub fn drop_all(&mut self, path: &str, keyword: &str, value: &Value, reason: &str) {
        self.drop_kw(path, keyword, reason);
        let at = push(path, keyword);
        let mut inner = |p: &str, s: &Value| {
            if let Value::Object(m) = s {
                for (k, v) in m {
                    self.drop_all(p, k, v, reason);
                }
            }
        };
        match value {
            Value::Object(_) if ONE.contains(&keyword) => inner(&at, value),
            Value::Array(a) if MANY.contains(&keyword) => {
                for (i, s) in a.iter().enumerate() {
                    inner(&push(&at, &i.to_string()), s);
                }
            }
            Value::Object(o) if MAP.contains(&keyword) => {
                for (n, s) in o {
                    inner(&push(&at, n), s);
                }
            }
            _ => {}
        }
    }

    fn add(&mut self, path: &str, keyword: &str, effect: Effect, reason: String) {
        self.0.push(Finding {
            path: path.to_string(),
            keyword: keyword.to_string(),
            effect,
            reason,
        });
    }
}

/// The subschema a local `$ref` (`#/...`) points at.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    let decoded = percent_decode(pointer);
    root.pointer(&decoded)
}

/// `%XX` escapes of a URI fragment decoded (a `$ref` is a URI).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(h) = s.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(h, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Subschemas an inlined schema may hold: `$ref`s that fan out (each definition naming the
/// next twice) grow exponentially when inlined, and a hostile schema must not take the
/// machine with it. Far past any real tool's (the largest real ones inline to a few
/// thousand).
pub const INLINE_BUDGET: usize = 20_000;

/// `schema` with every local `$ref` replaced by its target, the `$ref`'s siblings kept over
/// the target's (a cycle, or a `$ref` that points nowhere, left as it is), `$defs` and
/// `definitions` removed once nothing points into them.
/// `None` when the result would hold more than [`INLINE_BUDGET`] subschemas.
pub fn inline_within(schema: &Value) -> Option<Value> {
    let mut seen = Vec::new();
    let mut budget = INLINE_BUDGET;
    let out = inline_in(schema, schema, &mut seen, &mut budget);
    if budget == 0 {
        return None;
    }
    if has_ref(&out) {
        // A cycle kept its `$ref`: its definitions stay with it.
        let mut out = out;
        if let (Some(m), Some(src)) = (out.as_object_mut(), schema.as_object()) {
            for k in ["$defs", "definitions"] {
                if let Some(d) = src.get(k) {
                    m.insert(k.to_string(), d.clone());
                }
            }
        }
        return Some(out);
    }
    Some(out)
}

fn inline_in(node: &Value, root: &Value, seen: &mut Vec<String>, budget: &mut usize) -> Value {
    let Some(m) = node.as_object() else {
        return node.clone();
    };
    if *budget == 0 {
        return Value::Null;
    }
    *budget -= 1;
    let mut out = Map::new();
    let mut own = m.clone();
    if let Some(Value::String(r)) = m.get("$ref")
        && !seen.contains(r)
        && let Some(target) = resolve(root, r)
    {
        seen.push(r.clone());
        if let Value::Object(t) = inline_in(target, root, seen, budget) {
            out = t;
        }
        seen.pop();
        own.remove("$ref");
    }
    for (k, v) in own {
        if k == "$defs" || k == "definitions" {
            continue;
        }
        out.insert(
            k.clone(),
            map_children(&k, &v, |c| inline_in(c, root, seen, budget)),
        );
    }
    Value::Object(out)
}

/// `value` of keyword `k` with each subschema it holds mapped by `f`.
pub fn map_children(k: &str, v: &Value, mut f: impl FnMut(&Value) -> Value) -> Value {
    match v {
        Value::Object(o) if ONE.contains(&k) => f(&Value::Object(o.clone())),
        Value::Array(a) if MANY.contains(&k) => Value::Array(a.iter().map(&mut f).collect()),
        Value::Object(o) if MAP.contains(&k) => {
            Value::Object(o.iter().map(|(n, s)| (n.clone(), f(s))).collect())
        }
        _ => v.clone(),
    }
}

/// Whether a `$ref` is left anywhere in `v`.
pub fn has_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(has_ref),
        Value::Array(a) => a.iter().any(has_ref),
        _ => false,
    }
}

/// The one JSON type every value of `node` has when it says so plainly (`integer` read as
/// `number`, which holds it).
fn plain_type(node: &Value) -> Option<&str> {
    match node.get("type")? {
        Value::String(t) if t == "integer" => Some("number"),
        Value::String(t) => Some(t),
        _ => None,
    }
}

/// Whether no value can match two of `branches`: each of its own, different type. Then
/// `oneOf` and `anyOf` accept the same values.
pub fn disjoint(branches: &[Value]) -> bool {
    let types: Vec<Option<&str>> = branches.iter().map(plain_type).collect();
    let mut distinct: Vec<&str> = types.iter().flatten().copied().collect();
    distinct.sort_unstable();
    distinct.dedup();
    !types.contains(&None) && distinct.len() == types.len()
}

/// Whether `value` has JSON Schema type `t`.
pub fn has_type(value: &Value, t: &str) -> bool {
    match t {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64()
                || value.is_u64()
                || value
                    .as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.is_finite())
        }
        _ => false,
    }
}

/// Whether `node`'s `type` says nothing its `enum` or `const` does not: every listed value
/// has that type (so a stack that keeps the values and drops the type loses nothing).
pub fn type_implied(node: &Map<String, Value>) -> bool {
    let Some(Value::String(t)) = node.get("type") else {
        return false;
    };
    let values: Vec<&Value> = match (node.get("enum"), node.get("const")) {
        (_, Some(c)) => vec![c],
        (Some(Value::Array(e)), None) if !e.is_empty() => e.iter().collect(),
        _ => return false,
    };
    values.iter().all(|v| has_type(v, t))
}

/// Whether `v` is `anyOf: [X, {"type": "null"}]`'s `{"type": "null"}`.
pub fn is_null_schema(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| m.len() == 1 && m.get("type") == Some(&Value::String("null".into())))
}
