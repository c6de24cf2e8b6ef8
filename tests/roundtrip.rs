//! Round trip between the declared schemas and the generated types, for every tool and
//! variant (and restricted cell) of both bundled catalogs:
//!
//! - the JSON Schema that schemars derives from the generated type is the input schema the
//!   catalog serves, once key order, `$ref`s and schemars' own annotations (`format`,
//!   `title` of the root, `$schema`) are normalised away;
//! - JSON examples that the declared schema accepts deserialize into the type (and come
//!   back out with nothing lost); examples it rejects (unknown field, wrong type, bad enum
//!   value, missing required field, a conditional requirement) are refused with the run-time
//!   validator's message, which names the field.

use serde_json::{Map, Value, json};
use toolgate_schema::model::{Additional, Kind, Schema};
use toolgate_schema::runtime::{ArgumentType, check_arguments, schema_from_json};

#[allow(missing_docs)]
mod tatara {
    toolgate_macros::catalog!("schema/tatara", schemars);
}

#[allow(missing_docs)]
mod maetra {
    toolgate_macros::catalog!("schema/maetra", schemars);
}

/// A catalog's name, its argument types, and the schema schemars derives for each.
type Expanded = (
    &'static str,
    &'static [ArgumentType],
    Vec<(&'static str, Value)>,
);

fn catalogs() -> Vec<Expanded> {
    let derived = |list: Vec<(&'static str, schemars::Schema)>| {
        list.into_iter()
            .map(|(n, s)| (n, serde_json::to_value(s).unwrap()))
            .collect()
    };
    vec![
        (
            "tatara",
            tatara::ARGUMENT_TYPES,
            derived(tatara::argument_json_schemas()),
        ),
        (
            "maetra",
            maetra::ARGUMENT_TYPES,
            derived(maetra::argument_json_schemas()),
        ),
    ]
}

/// Inlines `$ref`s (siblings of a `$ref` win over the target's keys), drops what only
/// schemars says or what means nothing (`format`, `$defs`, `$schema`, `additionalProperties:
/// true`, empty `properties` and `required`), and sorts `required`.
fn normalise(v: &Value, defs: &Map<String, Value>) -> Value {
    match v {
        Value::Bool(true) => json!({}),
        Value::Object(m) => {
            let mut out = Map::new();
            if let Some(Value::String(r)) = m.get("$ref") {
                let name = r.trim_start_matches("#/$defs/");
                let target = defs.get(name).unwrap_or_else(|| panic!("no $def {name}"));
                if let Value::Object(t) = normalise(target, defs) {
                    out.extend(t);
                }
            }
            for (k, v) in m {
                match k.as_str() {
                    "$ref" | "$defs" | "$schema" | "format" => {}
                    "additionalProperties" if *v == Value::Bool(true) => {}
                    "properties" if v.as_object().is_some_and(Map::is_empty) => {}
                    "required" => {
                        let mut r: Vec<String> = v
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|x| x.as_str().unwrap().to_string())
                            .collect();
                        if r.is_empty() {
                            continue;
                        }
                        r.sort();
                        out.insert(k.clone(), json!(r));
                    }
                    "properties" => {
                        let props = v
                            .as_object()
                            .unwrap()
                            .iter()
                            .map(|(p, s)| (p.clone(), normalise(s, defs)))
                            .collect();
                        out.insert(k.clone(), Value::Object(props));
                    }
                    "if" | "then" | "enum" | "default" => {
                        out.insert(k.clone(), v.clone());
                    }
                    _ => {
                        out.insert(k.clone(), normalise(v, defs));
                    }
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[test]
fn derived_schemas_equal_the_declared_ones() {
    let mut checked = 0;
    for (catalog, types, derived) in catalogs() {
        for t in types {
            let (_, schema) = derived
                .iter()
                .find(|(n, _)| *n == t.type_name)
                .unwrap_or_else(|| panic!("no derived schema for {}", t.type_name));
            let defs = schema
                .get("$defs")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let mut derived = normalise(schema, &defs);
            // schemars names the root after the Rust type.
            if let Value::Object(m) = &mut derived {
                m.remove("title");
            }
            let declared: Value = serde_json::from_str(t.input_schema_json).unwrap();
            let declared = normalise(&declared, &Map::new());
            assert_eq!(
                derived, declared,
                "{catalog} {} ({}): derived\n{derived:#}\ndeclared\n{declared:#}",
                t.tool, t.type_name
            );
            checked += 1;
        }
    }
    // 21 + 18 tools, five extra variants of submit_outcome, refine's mr_write.
    assert_eq!(checked, 21 + 5 + 1 + 18);
}

/// A value the schema accepts: with `full`, every property of every object; else only the
/// required ones (and what a conditional then requires).
fn sample(s: &Schema, full: bool) -> Value {
    match &s.kind {
        Kind::Any => json!({"any": [1, "two"]}),
        Kind::Boolean => json!(true),
        Kind::String(r) => match &r.enum_values {
            Some(values) => json!(values[values.len() - 1]),
            None => json!("s".repeat(r.min_length.unwrap_or(1).max(1) as usize)),
        },
        Kind::Integer(n) | Kind::Number(n) => {
            let lo = n
                .minimum
                .map(|m| m.as_f64())
                .or(n.exclusive_minimum.map(|m| m.as_f64().floor() + 1.0))
                .unwrap_or(3.0);
            json!(lo as i64)
        }
        Kind::Array(a) => {
            let n = a.min_items.unwrap_or(1).max(1);
            let n = a.max_items.map_or(n, |m| n.min(m));
            let item = a.items.as_ref().map_or(json!("x"), |i| sample(i, full));
            Value::Array(vec![item; n as usize])
        }
        Kind::Object(o) => {
            let mut m = Map::new();
            for (name, p) in &o.properties {
                if full || o.is_required(name) {
                    m.insert(name.clone(), sample(p, full));
                }
            }
            if let Some(c) = &o.conditional {
                let holds = c.when.iter().all(|(f, v)| m.get(f) == Some(&v.to_serde()));
                if holds {
                    for f in &c.then_required {
                        if let Some(p) = o.property(f) {
                            m.insert(f.clone(), sample(p, full));
                        }
                    }
                }
            }
            if let Additional::Schema(a) = &o.additional {
                m.insert("extra".to_string(), sample(a, full));
            }
            Value::Object(m)
        }
    }
}

/// A value of another JSON type than the schema's.
fn wrong_type(s: &Schema) -> Option<Value> {
    match &s.kind {
        Kind::Any => None,
        Kind::String(_) => Some(json!(7)),
        Kind::Integer(_) => Some(json!(2.5)),
        Kind::Number(_) => Some(json!("7")),
        Kind::Boolean => Some(json!("yes")),
        Kind::Array(_) | Kind::Object(_) => Some(json!("x")),
    }
}

/// Every key of `sent` is in `got` with the same value (`got` may hold defaults too).
fn keeps(sent: &Value, got: &Value) -> bool {
    match (sent, got) {
        (Value::Object(a), Value::Object(b)) => {
            a.iter().all(|(k, v)| b.get(k).is_some_and(|w| keeps(v, w)))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| keeps(x, y))
        }
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (a, b) => a == b,
    }
}

/// Parses `args` as the type and checks the outcome against the run-time validator: both
/// accept, or both refuse with the same message, which names `field`.
fn agree(t: &ArgumentType, schema: &Schema, args: &Value, field: Option<&str>) -> Option<String> {
    let typed = (t.parse)(args);
    let runtime = check_arguments(t.tool, schema, args);
    match (typed, runtime) {
        (Ok(got), Ok(())) => {
            assert!(field.is_none(), "{} accepted {args}", t.type_name);
            assert!(
                keeps(args, &got),
                "{}: sent {args}, typed {got}",
                t.type_name
            );
            None
        }
        (Err(typed), Err(runtime)) => {
            assert_eq!(typed, runtime, "{}: {args}", t.type_name);
            let message = typed.message();
            if let Some(f) = field {
                assert!(
                    message.contains(&format!("`{f}`")),
                    "{}: {args}: `{message}` does not name `{f}`",
                    t.type_name
                );
            }
            Some(message)
        }
        (typed, runtime) => panic!(
            "{}: {args}: typed {typed:?}, run-time validator {runtime:?}",
            t.type_name
        ),
    }
}

#[test]
fn examples_the_schema_accepts_deserialize_and_others_name_the_field() {
    let mut refused = 0;
    for (_, types, _) in catalogs() {
        for t in types {
            let schema = schema_from_json(t.input_schema_json);
            let Some(obj) = schema.as_object() else {
                panic!("{}: root is not an object", t.type_name)
            };
            let minimal = sample(&schema, false);
            let full = sample(&schema, true);
            agree(t, &schema, &minimal, None);
            agree(t, &schema, &full, None);

            if obj.denies_unknown() {
                let mut extra = full.clone();
                extra["no_such_field"] = json!(1);
                agree(t, &schema, &extra, Some("no_such_field"));
                refused += 1;
            }
            for (name, p) in &obj.properties {
                if let Some(bad) = wrong_type(p) {
                    let mut v = full.clone();
                    v[name.as_str()] = bad;
                    agree(t, &schema, &v, Some(name));
                    refused += 1;
                }
                if p.enum_values().is_some() {
                    let mut v = full.clone();
                    v[name.as_str()] = json!("not-a-value");
                    agree(t, &schema, &v, Some(name));
                    refused += 1;
                }
                if obj.is_required(name) {
                    let mut v = full.clone();
                    v.as_object_mut().unwrap().remove(name);
                    agree(t, &schema, &v, Some(name));
                    refused += 1;
                }
                let mut null = minimal.clone();
                null[name.as_str()] = Value::Null;
                if !matches!(p.kind, Kind::Any) {
                    agree(t, &schema, &null, Some(name));
                    refused += 1;
                }
            }
        }
    }
    assert!(refused > 300, "{refused}");
}

#[test]
fn a_conditional_requirement_is_checked_after_deserialization() {
    let t = maetra::ARGUMENT_TYPES
        .iter()
        .find(|t| t.tool == "check_action")
        .unwrap();
    let schema = schema_from_json(t.input_schema_json);
    let base = json!({"mcp_access_token": "t", "content": "rm -rf /"});
    let mut v = base.clone();
    v["scan_type"] = json!("tool_call");
    assert_eq!(
        agree(t, &schema, &v, Some("tool_name")).unwrap(),
        "missing field `tool_name`, required when `scan_type` is \"tool_call\""
    );
    v["tool_name"] = json!("shell");
    assert!(agree(t, &schema, &v, None).is_none());
    // Absent, scan_type takes its default, which does not need tool_name.
    assert_eq!(
        (t.parse)(&base).unwrap()["scan_type"],
        json!("prompt_input")
    );
}
