//! Run-time validation of a value against a [`Schema`].
//!
//! This is the one place that words argument errors. The generated typed handlers use it to
//! explain a rejected call, and a server over a catalog folder (no generated types) uses it
//! to check calls, so both give the same message for the same input.

use std::fmt::Write as _;
use std::rc::Rc;

use crate::json::{Number, Value};
use crate::model::{Additional, Kind, Schema};

/// One way a value fails its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Where in the value, as a field path (`issue.parent.repo`, `proposals[0].kind`);
    /// empty for the value itself.
    pub field: String,
    /// What is wrong, naming the field.
    pub message: String,
}

/// The most violations listed for one value; past it they are counted, and one last
/// violation says how many more there are. A call whose arguments hold a million unknown
/// fields (or an array of a million wrong items) is answered in a few kilobytes, not in
/// hundreds of megabytes of messages.
pub const MAX_LISTED: usize = 100;

/// Every violation of `schema` by `value`, in a stable order (fields in schema order, then
/// undeclared fields by name), up to [`MAX_LISTED`].
pub fn validate(schema: &Schema, value: &Value) -> Vec<Violation> {
    validate_value(schema, value, "the arguments")
}

/// [`validate`], calling the value itself `what` in messages (`"the default"`).
pub fn validate_value(schema: &Schema, value: &Value, what: &str) -> Vec<Violation> {
    let mut out = Out {
        document: definitions_document(schema),
        ..Out::default()
    };
    check(schema, value, "", what, &mut out);
    if out.more > 0 {
        out.list.push(Violation {
            field: String::new(),
            message: format!(
                "and {} more violation{} not listed",
                out.more,
                if out.more == 1 { "" } else { "s" }
            ),
        });
    }
    out.list
}

/// The violations listed so far, and how many more were found past [`MAX_LISTED`]; and what
/// a recursive `$ref` is followed with.
#[derive(Default)]
struct Out {
    list: Vec<Violation>,
    more: usize,
    /// The root schema's JSON when it keeps the definitions of a recursive `$ref` (see
    /// [`Schema::annotations`]): what the reference is resolved against.
    document: Option<Value>,
    /// The references resolved so far (`None`: one that does not resolve).
    resolved: Vec<(String, Option<Rc<Schema>>)>,
    /// How many times a reference was followed: past [`MAX_FOLLOWED`], no more are (the value
    /// bounds the walk anyway; this bounds it whatever the schema).
    followed: usize,
}

/// The most times one validation follows a recursive `$ref`.
const MAX_FOLLOWED: usize = 10_000;

/// The root's JSON, when it keeps `$defs` or `definitions` for its recursive `$ref`s.
fn definitions_document(schema: &Schema) -> Option<Value> {
    schema
        .annotations
        .iter()
        .any(|(k, _)| k == "$defs" || k == "definitions")
        .then(|| schema.to_json())
}

/// Checks `value` against the definition a recursive `$ref` names, when the root kept its
/// definitions: a violation deep inside a recursive type names its field
/// (`tree.children[0].name`) as any other does. A reference that does not resolve adds
/// nothing (left to the jsonschema-backed validator of `toolgate-schema`).
fn follow(reference: &str, value: &Value, path: &str, root: &str, out: &mut Out) {
    if out.followed >= MAX_FOLLOWED {
        return;
    }
    out.followed += 1;
    let known = out
        .resolved
        .iter()
        .find(|(r, _)| r == reference)
        .map(|(_, s)| s.clone());
    let target = match known {
        Some(s) => s,
        None => {
            let s = out
                .document
                .as_ref()
                .and_then(|d| resolve(d, reference))
                .map(Rc::new);
            out.resolved.push((reference.to_string(), s.clone()));
            s
        }
    };
    if let Some(s) = target {
        check(&s, value, path, root, out);
    }
}

/// The schema `reference` names in `document` (its own recursive references kept).
fn resolve(document: &Value, reference: &str) -> Option<Schema> {
    let source = crate::diag::SourceText {
        path: std::path::PathBuf::from("inputSchema"),
        text: String::new(),
    };
    let mut cx = crate::diag::Ctxt::new();
    let mut m = crate::json::Map::new();
    m.insert("$ref", Value::str(reference));
    let parsed =
        crate::model::SchemaParser::new(&source, document, crate::locate::Pointer::root(), &mut cx)
            .parse(&Value::Object(m), &crate::locate::Pointer::root(), false);
    parsed.filter(|_| cx.error_count() == 0)
}

/// [`validate`] for a `serde_json::Value`.
pub fn validate_serde(schema: &Schema, value: &serde_json::Value) -> Vec<Violation> {
    validate(schema, &Value::from_serde(value))
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

fn subject(path: &str, root: &str) -> String {
    if path.is_empty() {
        root.to_string()
    } else {
        format!("field `{path}`")
    }
}

fn push(out: &mut Out, path: &str, message: String) {
    if out.list.len() < MAX_LISTED {
        out.list.push(Violation {
            field: path.to_string(),
            message,
        });
    } else {
        out.more += 1;
    }
}

fn quoted_list(values: &[String]) -> String {
    let mut s = String::new();
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "\"{v}\"");
    }
    s
}

fn check(schema: &Schema, value: &Value, path: &str, root: &str, out: &mut Out) {
    check_typed(schema, value, path, root, out);
    if !schema.extra.is_empty() {
        check_extra(schema, value, path, root, out);
    }
}

/// Whether `value` satisfies the raw subschema `raw` (a keyword's value kept in
/// [`Schema::extra`]); a subschema the model cannot read counts as satisfied.
fn satisfies(raw: &Value, value: &Value) -> bool {
    let source = crate::diag::SourceText {
        path: std::path::PathBuf::from("subschema"),
        text: String::new(),
    };
    let mut cx = crate::diag::Ctxt::new();
    let parsed =
        crate::model::SchemaParser::new(&source, raw, crate::locate::Pointer::root(), &mut cx)
            .parse(raw, &crate::locate::Pointer::root(), false);
    match parsed {
        Some(s) => {
            let mut inner = Out::default();
            check(&s, value, "", "", &mut inner);
            inner.list.is_empty() && inner.more == 0
        }
        None => true,
    }
}

fn type_matches(name: &str, value: &Value) -> bool {
    match (name, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("string", Value::String(_))
        | ("number", Value::Number(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(n)) => n.is_integer(),
        _ => false,
    }
}

/// The keywords the typed model does not hold that have a plain reading: `anyOf`, `oneOf`
/// (matching none), `allOf`, `const`, `enum` of any values, `type` lists (so a refusal by
/// generated code for them names the field). Others (`not`, a `oneOf` matched twice,
/// `pattern`, ...) are left to the jsonschema-backed validator of `toolgate-schema`. A
/// recursive `$ref` is followed into the definitions the root keeps ([`follow`]).
fn check_extra(schema: &Schema, value: &Value, path: &str, root: &str, out: &mut Out) {
    for (key, raw) in &schema.extra {
        if let ("$ref", Value::String(r)) = (key.as_str(), raw) {
            follow(r, value, path, root, out);
            continue;
        }
        let message = match (key.as_str(), raw) {
            ("anyOf", Value::Array(alts)) if !alts.iter().any(|a| satisfies(a, value)) => {
                Some("matches none of its `anyOf` alternatives".to_string())
            }
            // Only "none": `satisfies` counts a subschema it cannot fully judge as satisfied,
            // so it may count two matches where there is one. Two or more matches, and what
            // `not` refuses, are left to the jsonschema-backed validator, which decides them
            // exactly; this one must never refuse what the schema accepts.
            ("oneOf", Value::Array(alts)) if !alts.iter().any(|a| satisfies(a, value)) => {
                Some("matches none of its `oneOf` alternatives".to_string())
            }
            ("allOf", Value::Array(alts)) if !alts.iter().all(|a| satisfies(a, value)) => {
                Some("does not match every one of its `allOf` schemas".to_string())
            }
            ("const", c) if c != value => Some(format!("must be {c}")),
            ("enum", Value::Array(vs)) if !vs.contains(value) => {
                let listed: Vec<String> = vs.iter().map(ToString::to_string).collect();
                Some(format!("must be one of {}", listed.join(", ")))
            }
            ("type", Value::String(t)) if !type_matches(t, value) => {
                Some(format!("must be {t}, found {}", value.type_name()))
            }
            ("type", Value::Array(ts))
                if !ts
                    .iter()
                    .any(|t| t.as_str().is_some_and(|t| type_matches(t, value))) =>
            {
                let listed: Vec<String> = ts.iter().map(ToString::to_string).collect();
                Some(format!(
                    "must be one of the types {}, found {}",
                    listed.join(", "),
                    value.type_name()
                ))
            }
            _ => None,
        };
        if let Some(m) = message {
            push(out, path, format!("{} {m}", subject(path, root)));
        }
    }
}

fn check_typed(schema: &Schema, value: &Value, path: &str, root: &str, out: &mut Out) {
    let expected = schema.type_name();
    match (&schema.kind, value) {
        (Kind::Any, _) => {}
        (Kind::Boolean, Value::Bool(_)) => {}
        (Kind::String(rules), Value::String(s)) => {
            if let Some(values) = &rules.enum_values
                && !values.iter().any(|v| v == s)
            {
                push(
                    out,
                    path,
                    format!(
                        "{}: \"{s}\" is not one of {}",
                        subject(path, root),
                        quoted_list(values)
                    ),
                );
            }
            let len = s.chars().count() as u64;
            if let Some(min) = rules.min_length
                && len < min
            {
                let what = if min == 1 {
                    "must not be empty".to_string()
                } else {
                    format!("must have at least {min} characters")
                };
                push(out, path, format!("{} {what}", subject(path, root)));
            }
            if let Some(max) = rules.max_length
                && len > max
            {
                push(
                    out,
                    path,
                    format!("{} must have at most {max} characters", subject(path, root)),
                );
            }
        }
        (Kind::Integer(_), Value::Number(n)) if n.is_integer() && !fits_i64(*n) => {
            // The generated argument types hold an integer as `i64`: refuse what they cannot
            // hold, here, so that a generated server and a server over a catalog folder
            // agree, with a message that names the field (the dispatch_args fuzz target
            // found them apart).
            push(
                out,
                path,
                format!(
                    "{} must be an integer from {} to {}, found {n}",
                    subject(path, root),
                    i64::MIN,
                    i64::MAX
                ),
            );
        }
        (Kind::Integer(rules), Value::Number(n)) if n.is_integer() => {
            check_bounds(rules, *n, path, root, out)
        }
        (Kind::Number(rules), Value::Number(n)) => check_bounds(rules, *n, path, root, out),
        (Kind::Array(rules), Value::Array(items)) => {
            let len = items.len() as u64;
            if let Some(min) = rules.min_items
                && len < min
            {
                push(
                    out,
                    path,
                    format!(
                        "{} must have at least {min} item{}, found {len}",
                        subject(path, root),
                        if min == 1 { "" } else { "s" }
                    ),
                );
            }
            if let Some(max) = rules.max_items
                && len > max
            {
                push(
                    out,
                    path,
                    format!(
                        "{} must have at most {max} items, found {len}",
                        subject(path, root)
                    ),
                );
            }
            if let Some(item_schema) = &rules.items {
                for (i, item) in items.iter().enumerate() {
                    check(item_schema, item, &format!("{path}[{i}]"), root, out);
                }
            }
        }
        (Kind::Object(rules), Value::Object(map)) => {
            for (name, prop) in &rules.properties {
                match map.get(name) {
                    Some(v) => check(prop, v, &join(path, name), root, out),
                    None if rules.is_required(name) => push(
                        out,
                        &join(path, name),
                        format!("missing required field `{}`", join(path, name)),
                    ),
                    None => {}
                }
            }
            if let Some(c) = &rules.conditional {
                let holds = c
                    .when
                    .iter()
                    .all(|(field, constant)| map.get(field) == Some(constant));
                if holds {
                    for field in &c.then_required {
                        if !map.contains_key(field) {
                            let condition: Vec<String> = c
                                .when
                                .iter()
                                .map(|(f, v)| format!("`{}` is {v}", join(path, f)))
                                .collect();
                            push(
                                out,
                                &join(path, field),
                                format!(
                                    "missing field `{}`, required when {}",
                                    join(path, field),
                                    condition.join(" and ")
                                ),
                            );
                        }
                    }
                }
            }
            // Fields the schema does not declare, sorted by name: the same arguments give
            // the same message whether they arrive as JSON text (keys in written order) or
            // as a `serde_json::Map` (keys sorted), as the generated dispatch accepts both.
            let mut others: Vec<(&str, &Value)> = map
                .iter()
                .filter(|(name, _)| rules.property(name).is_none())
                .collect();
            others.sort_unstable_by(|a, b| a.0.cmp(b.0));
            // What an undeclared field is told, written once.
            let accepted = match (&rules.additional, others.is_empty()) {
                (Additional::Forbidden, false) if rules.properties.is_empty() => {
                    "no fields are accepted".to_string()
                }
                (Additional::Forbidden, false) => {
                    let known: Vec<String> =
                        rules.properties.iter().map(|(n, _)| n.clone()).collect();
                    format!("expected one of {}", backtick_list(&known))
                }
                _ => String::new(),
            };
            for (name, v) in others {
                match &rules.additional {
                    Additional::Forbidden => {
                        push(
                            out,
                            &join(path, name),
                            format!("unknown field `{}` ({accepted})", join(path, name)),
                        );
                    }
                    Additional::Schema(s) => check(s, v, &join(path, name), root, out),
                    Additional::Unstated | Additional::Allowed => {}
                }
            }
        }
        (_, other) => {
            let found = match other {
                Value::String(s) => format!("the string \"{s}\""),
                Value::Number(n) => format!("the number {n}"),
                v => v.type_name().to_string(),
            };
            let article = if expected.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            push(
                out,
                path,
                format!(
                    "{} must be {article} {expected}, found {found}",
                    subject(path, root)
                ),
            );
        }
    }
}

/// Whether a whole number fits `i64` (`3.0` and `-2^63` do; `2^63` does not).
fn fits_i64(n: Number) -> bool {
    // 2^63 is the first f64 past i64::MAX.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    match n {
        Number::UInt(u) => i64::try_from(u).is_ok(),
        Number::Int(_) => true,
        Number::Float(f) => (-LIMIT..LIMIT).contains(&f),
    }
}

fn backtick_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_bounds(
    rules: &crate::model::NumberRules,
    n: Number,
    path: &str,
    root: &str,
    out: &mut Out,
) {
    let x = n.as_f64();
    if let Some(min) = rules.minimum
        && x < min.as_f64()
    {
        push(
            out,
            path,
            format!("{} must be at least {min}, found {n}", subject(path, root)),
        );
    }
    if let Some(max) = rules.maximum
        && x > max.as_f64()
    {
        push(
            out,
            path,
            format!("{} must be at most {max}, found {n}", subject(path, root)),
        );
    }
    if let Some(min) = rules.exclusive_minimum
        && x <= min.as_f64()
    {
        push(
            out,
            path,
            format!(
                "{} must be greater than {min}, found {n}",
                subject(path, root)
            ),
        );
    }
    if let Some(max) = rules.exclusive_maximum
        && x >= max.as_f64()
    {
        push(
            out,
            path,
            format!("{} must be less than {max}, found {n}", subject(path, root)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Ctxt, SourceText};
    use crate::locate::Pointer;
    use crate::model::SchemaParser;

    fn schema(text: &str) -> Schema {
        let source = SourceText {
            path: "t.json".into(),
            text: text.into(),
        };
        let doc: Value = serde_json::from_str(text).unwrap();
        let mut cx = Ctxt::new();
        let s = SchemaParser::new(&source, &doc, Pointer::root(), &mut cx).parse_root();
        cx.finish(()).unwrap();
        s.unwrap()
    }

    fn messages(s: &Schema, value: &str) -> Vec<String> {
        let v: Value = serde_json::from_str(value).unwrap();
        validate(s, &v).into_iter().map(|v| v.message).collect()
    }

    #[test]
    fn names_the_field_and_the_reason() {
        let s = schema(
            r#"{"type":"object","properties":{
                "action":{"type":"string","enum":["open","comment"]},
                "number":{"type":"integer","minimum":1},
                "tags":{"type":"array","items":{"type":"string"},"minItems":1},
                "issue":{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]},
                "scan_type":{"type":"string"},"tool_name":{"type":"string","minLength":1}},
              "required":["action"],"additionalProperties":false,
              "if":{"properties":{"scan_type":{"const":"tool_call"}},"required":["scan_type"]},
              "then":{"required":["tool_name"]}}"#,
        );
        assert_eq!(messages(&s, r#"{"action":"open"}"#), Vec::<String>::new());
        assert_eq!(
            messages(
                &s,
                r#"{"action":"merge","number":"3","tags":[],"issue":{},"scan_type":"tool_call","extra":1}"#
            ),
            vec![
                "field `action`: \"merge\" is not one of \"open\", \"comment\"",
                "field `number` must be an integer, found the string \"3\"",
                "field `tags` must have at least 1 item, found 0",
                "missing required field `issue.repo`",
                "missing field `tool_name`, required when `scan_type` is \"tool_call\"",
                "unknown field `extra` (expected one of `action`, `number`, `tags`, `issue`, `scan_type`, `tool_name`)",
            ]
        );
        assert_eq!(
            messages(&s, r#"{"number":0,"tool_name":""}"#),
            vec![
                "missing required field `action`",
                "field `number` must be at least 1, found 0",
                "field `tool_name` must not be empty",
            ]
        );
        assert_eq!(
            messages(&s, r#"[1]"#),
            vec!["the arguments must be an object, found array"]
        );
    }

    // Regressions found by the dispatch_args fuzz target: the typed path and the validator
    // gave different answers.
    #[test]
    fn undeclared_fields_are_named_in_sorted_order() {
        let s = schema(
            r#"{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}"#,
        );
        let expected = vec![
            "unknown field `body` (expected one of `a`)",
            "unknown field `title` (expected one of `a`)",
        ];
        assert_eq!(messages(&s, r#"{"title":1,"body":2}"#), expected);
        assert_eq!(messages(&s, r#"{"body":2,"title":1}"#), expected);
    }

    #[test]
    fn a_recursive_ref_is_followed_and_names_the_field_deep_inside() {
        let s = schema(
            r##"{"type":"object","$defs":{"Node":{"type":"object","properties":{"name":{"type":"string","minLength":1},
                "children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["name"],"additionalProperties":false}},
                "properties":{"tree":{"$ref":"#/$defs/Node"}},"required":["tree"]}"##,
        );
        assert_eq!(
            messages(
                &s,
                r#"{"tree":{"name":"r","children":[{"name":"a","children":[{"name":""},{"name":"b","x":1}]},{}]}}"#
            ),
            vec![
                "field `tree.children[0].children[0].name` must not be empty",
                "unknown field `tree.children[0].children[1].x` (expected one of `name`, `children`)",
                "missing required field `tree.children[1].name`",
            ]
        );
        assert_eq!(
            messages(
                &s,
                r#"{"tree":{"name":"r","children":[{"name":"a","children":[{"name":"b"}]}]}}"#
            ),
            Vec::<String>::new()
        );
        // The same through the served (resolved) form, which keeps the definitions.
        let again = schema(&crate::json::to_compact(&s.to_json()));
        assert_eq!(
            messages(
                &again,
                r#"{"tree":{"name":"r","children":[{"name":"a","children":[{"name":7}]}]}}"#
            ),
            vec!["field `tree.children[0].children[0].name` must be a string, found the number 7"]
        );
    }

    #[test]
    fn past_a_hundred_violations_they_are_counted() {
        let s = schema(
            r#"{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}"#,
        );
        let keys: Vec<String> = (0..150).map(|i| format!("\"k{i:03}\":1")).collect();
        let m = messages(&s, &format!(r#"{{"a":[1,2],{}}}"#, keys.join(",")));
        assert_eq!(m.len(), MAX_LISTED + 1);
        assert_eq!(m[0], "field `a[0]` must be a string, found the number 1");
        assert_eq!(m[2], "unknown field `k000` (expected one of `a`)");
        assert_eq!(
            m[MAX_LISTED - 1],
            "unknown field `k097` (expected one of `a`)"
        );
        assert_eq!(m[MAX_LISTED], "and 52 more violations not listed");
    }

    #[test]
    fn an_integer_must_fit_64_bits() {
        let s = schema(r#"{"type":"object","properties":{"n":{"type":"integer"}}}"#);
        for fits in [
            "9223372036854775807",
            "-9223372036854775808",
            "-9.223372036854775808e18",
            "3.0",
        ] {
            assert_eq!(
                messages(&s, &format!(r#"{{"n":{fits}}}"#)),
                Vec::<String>::new(),
                "{fits}"
            );
        }
        assert_eq!(
            messages(&s, r#"{"n":9223372036854775808}"#),
            vec![
                "field `n` must be an integer from -9223372036854775808 to 9223372036854775807, found 9223372036854775808"
            ]
        );
        assert_eq!(
            messages(&s, r#"{"n":1e19}"#),
            vec![
                "field `n` must be an integer from -9223372036854775808 to 9223372036854775807, found 1e+19"
            ]
        );
    }
}
