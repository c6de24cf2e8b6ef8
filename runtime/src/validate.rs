//! Run-time validation of a value against a [`Schema`].
//!
//! This is the one place that words argument errors. The generated typed handlers use it to
//! explain a rejected call, and a server over a catalog folder (no generated types) uses it
//! to check calls, so both give the same message for the same input.

use std::fmt::Write as _;

use crate::json::{Map, Number, Value};
use crate::locate::Pointer;
use crate::model::{
    Additional, ArrayRules, Conditional, Kind, ObjectRules, Schema, SchemaParser, StringRules,
};

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
    run(schema, None, value, what)
}

/// [`validate`] for a schema whose recursive `$ref`s point into `document` (the tool's
/// authored input schema), which the validator then follows.
pub fn validate_in(
    schema: &Schema,
    document: Option<&serde_json::Value>,
    value: &Value,
) -> Vec<Violation> {
    run(schema, document, value, "the arguments")
}

fn run(
    schema: &Schema,
    document: Option<&serde_json::Value>,
    value: &Value,
    what: &str,
) -> Vec<Violation> {
    // A schema served on its own (no document given) keeps at its root the definitions its
    // recursive `$ref`s point into (see [`Schema::annotations`]): it is its own document.
    let kept = match document {
        None => definitions_document(schema),
        Some(_) => None,
    };
    let document = document.or(kept.as_ref());
    let mut out = Out {
        document,
        tree: document.map(|d| ordered(schema, d)),
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

/// The violations listed so far, and how many more were found past [`MAX_LISTED`]; the
/// document recursive `$ref`s point into, when there is one.
#[derive(Default)]
struct Out<'d> {
    list: Vec<Violation>,
    more: usize,
    document: Option<&'d serde_json::Value>,
    /// [`Out::document`] as read into the model (object keys in their written order where
    /// the root schema keeps them), what followed subschemas are parsed against.
    tree: Option<Value>,
    /// The recursive `$ref`s being followed, each with the field it is followed at: one met
    /// again at the same field is not followed again (a schema cycling without reading into
    /// the value).
    following: Vec<(String, String)>,
}

/// `document` in the model's JSON. A `serde_json::Value` sorts object keys; the definitions
/// the root schema keeps (the same, in written order) replace the document's, so that a
/// refusal inside a recursive type lists expected fields in schema order.
fn ordered(schema: &Schema, document: &serde_json::Value) -> Value {
    let mut tree = Value::from_serde(document);
    if let Value::Object(m) = &mut tree {
        for (k, v) in &schema.annotations {
            if (k == "$defs" || k == "definitions") && document.get(k) == Some(&v.to_serde()) {
                m.insert(k.clone(), v.clone());
            }
        }
    }
    tree
}

/// The root's JSON, when it keeps `$defs` or `definitions` for its recursive `$ref`s.
fn definitions_document(schema: &Schema) -> Option<serde_json::Value> {
    schema
        .annotations
        .iter()
        .any(|(k, _)| k == "$defs" || k == "definitions")
        .then(|| schema.to_json().to_serde())
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

fn push(out: &mut Out<'_>, path: &str, message: String) {
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

fn check(schema: &Schema, value: &Value, path: &str, root: &str, out: &mut Out<'_>) {
    check_typed(schema, value, path, root, out);
    if !schema.extra.is_empty() {
        check_extra(schema, value, path, root, out);
    }
}

/// A raw subschema (a keyword's value kept in [`Schema::extra`]) in the model, to check a
/// value against it with messages that name nested fields: `None` when the model cannot
/// read it on its own (a recursive `$ref` out of reach).
fn parse_raw(raw: &Value, document: Option<&Value>) -> Option<Schema> {
    let source = crate::diag::SourceText {
        path: std::path::PathBuf::from("subschema"),
        text: String::new(),
    };
    let doc = document.unwrap_or(raw);
    for dialect in [
        crate::subset::Dialect::Draft202012,
        crate::subset::Dialect::Draft07,
    ] {
        let mut cx = crate::diag::Ctxt::new();
        let mut parser =
            crate::model::SchemaParser::new(&source, doc, crate::locate::Pointer::root(), &mut cx);
        parser.dialect = dialect;
        let parsed = parser.parse(raw, &crate::locate::Pointer::root(), false);
        if cx.error_count() == 0 {
            return parsed;
        }
    }
    None
}

/// Checks `value` against the raw subschema `raw` at `path`: whether that found something to
/// say.
fn descend(raw: &Value, value: &Value, path: &str, root: &str, out: &mut Out<'_>) -> bool {
    let Some(s) = parse_raw(raw, out.tree.as_ref()) else {
        return false;
    };
    let before = (out.list.len(), out.more);
    check(&s, value, path, root, out);
    (out.list.len(), out.more) != before
}

/// The keywords the typed model does not hold ([`Schema::extra`]), each judged by
/// [`crate::keywords`] exactly as generated code and the jsonschema-backed validator judge
/// it, and worded naming the field (a nested one where the keyword reads into the value).
/// What cannot be judged here (a recursive `$ref`, whose definition is out of reach) counts
/// as satisfied: this validator never refuses what the schema accepts.
fn check_extra(schema: &Schema, value: &Value, path: &str, root: &str, out: &mut Out<'_>) {
    let mut siblings = serde_json::Map::new();
    for (k, v) in &schema.extra {
        siblings.insert(k.clone(), v.to_serde());
    }
    schema.add_typed_properties(&mut siblings);
    let v = value.to_serde();
    for (key, raw) in &schema.extra {
        if crate::keywords::keyword_holds(&siblings, key, &v, out.document) == Some(false) {
            word(key, raw, &siblings, value, path, root, out);
        }
    }
}

fn holds(raw: &Value, value: &Value, document: Option<&serde_json::Value>) -> bool {
    crate::keywords::schema_holds(&raw.to_serde(), &value.to_serde(), document) != Some(false)
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One refused keyword of [`Schema::extra`] and where it was refused: what every wording
/// step reads.
struct Refused<'k> {
    /// The keyword.
    key: &'k str,
    /// Its value in the schema.
    raw: &'k Value,
    /// Every raw keyword of the same schema (`then` beside `if`, `minContains` beside
    /// `contains`, ...).
    siblings: &'k serde_json::Map<String, serde_json::Value>,
    /// The value that fails it.
    value: &'k Value,
    /// The value's field path.
    path: &'k str,
    /// What the value itself is called (`"the arguments"`).
    root: &'k str,
}

impl Refused<'_> {
    /// The field (or the value itself) named at the start of a message.
    fn who(&self) -> String {
        subject(self.path, self.root)
    }

    /// The count a keyword's value states, when it is one.
    fn count(v: &Value) -> Option<u64> {
        match v {
            Value::Number(n) => n.as_u64(),
            _ => None,
        }
    }
}

/// What a wording step made of a refused keyword.
enum Worded {
    /// One message about the value itself, still to be listed.
    Message(String),
    /// The step listed its own violations, which name nested fields.
    Said,
    /// Not this step's keyword, or not for this kind of value: the keyword is named as is.
    NotMine,
}

/// Words keyword `key` (value `raw`), which `value` fails: each family of keywords is worded
/// by its own step, and a keyword none of them words is named as is.
fn word(
    key: &str,
    raw: &Value,
    siblings: &serde_json::Map<String, serde_json::Value>,
    value: &Value,
    path: &str,
    root: &str,
    out: &mut Out<'_>,
) {
    let r = Refused {
        key,
        raw,
        siblings,
        value,
        path,
        root,
    };
    let worded = match key {
        "anyOf" | "oneOf" | "allOf" | "not" | "if" => word_combinator(&r, out),
        "items" | "prefixItems" | "additionalItems" => word_items(&r, out),
        "required" | "dependentRequired" | "dependencies" | "dependentSchemas" => {
            word_dependencies(&r, out)
        }
        "properties" | "patternProperties" | "additionalProperties" => word_properties(&r, out),
        "$ref" => word_ref(&r, out),
        _ => match word_bound(&r).or_else(|| word_count(&r, out.document)) {
            Some(m) => Worded::Message(m),
            None => Worded::NotMine,
        },
    };
    let message = match worded {
        Worded::Message(m) => m,
        Worded::Said => return,
        Worded::NotMine => format!("{} must match the `{key}` keyword", r.who()),
    };
    push(out, path, message);
}

/// The keywords about one value's type, literal or size (`type`, `const`, `enum`,
/// `pattern`, `multipleOf`, the length and number bounds): one message each.
fn word_bound(r: &Refused<'_>) -> Option<String> {
    let who = r.who();
    Some(match (r.key, r.raw, r.value) {
        ("type", Value::String(t), _) => {
            format!("{who} must be {t}, found {}", r.value.type_name())
        }
        ("type", Value::Array(ts), _) => {
            let listed: Vec<String> = ts.iter().map(ToString::to_string).collect();
            format!(
                "{who} must be one of the types {}, found {}",
                listed.join(", "),
                r.value.type_name()
            )
        }
        ("const", c, _) => format!("{who} must be {c}"),
        ("enum", Value::Array(vs), _) => {
            let listed: Vec<String> = vs.iter().map(ToString::to_string).collect();
            format!("{who} must be one of {}", listed.join(", "))
        }
        ("pattern", Value::String(p), _) => format!("{who} must match the pattern `{p}`"),
        ("multipleOf", m, Value::Number(n)) => {
            format!("{who} must be a multiple of {m}, found {n}")
        }
        ("minLength", v, _) if Refused::count(v) == Some(1) => format!("{who} must not be empty"),
        ("minLength", v, _) => format!("{who} must have at least {v} characters"),
        ("maxLength", v, _) => format!("{who} must have at most {v} characters"),
        ("minimum", v, Value::Number(n)) => format!("{who} must be at least {v}, found {n}"),
        ("maximum", v, Value::Number(n)) => format!("{who} must be at most {v}, found {n}"),
        ("exclusiveMinimum", v, Value::Number(n)) => {
            format!("{who} must be greater than {v}, found {n}")
        }
        ("exclusiveMaximum", v, Value::Number(n)) => {
            format!("{who} must be less than {v}, found {n}")
        }
        _ => return None,
    })
}

/// The keywords about how many items or fields a value holds, and which (`minItems`,
/// `uniqueItems`, `contains`, `minProperties`, `propertyNames`, ...): one message each.
fn word_count(r: &Refused<'_>, document: Option<&serde_json::Value>) -> Option<String> {
    let who = r.who();
    let at_least = |v: &Value| plural(Refused::count(v).unwrap_or(0), "item", "items");
    let fields = |v: &Value| plural(Refused::count(v).unwrap_or(0), "field", "fields");
    Some(match (r.key, r.raw, r.value) {
        ("minItems", v, Value::Array(a)) => {
            format!(
                "{who} must have at least {}, found {}",
                at_least(v),
                a.len()
            )
        }
        ("maxItems", v, Value::Array(a)) => {
            format!("{who} must have at most {}, found {}", at_least(v), a.len())
        }
        ("uniqueItems", _, _) => format!("{who} must not hold the same item twice"),
        ("contains", _, _) => word_contains(r),
        ("minProperties", v, Value::Object(m)) => {
            format!("{who} must have at least {}, found {}", fields(v), m.len())
        }
        ("maxProperties", v, Value::Object(m)) => {
            format!("{who} must have at most {}, found {}", fields(v), m.len())
        }
        ("propertyNames", _, Value::Object(m)) => {
            let bad: Vec<&str> = m
                .keys()
                .filter(|k| !holds(r.raw, &Value::String(k.to_string()), document))
                .collect();
            let listed: Vec<String> = bad.iter().map(|k| format!("\"{k}\"")).collect();
            format!(
                "{who} must not have the field {} {} (refused by the `propertyNames` schema)",
                if bad.len() == 1 { "name" } else { "names" },
                listed.join(", ")
            )
        }
        _ => return None,
    })
}

/// `contains`, worded with the `minContains`/`maxContains` beside it.
fn word_contains(r: &Refused<'_>) -> String {
    let who = r.who();
    let min = r
        .siblings
        .get("minContains")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(1);
    match r
        .siblings
        .get("maxContains")
        .and_then(serde_json::Value::as_u64)
    {
        Some(max) if max == min => format!(
            "{who} must hold exactly {} matching the `contains` schema",
            plural(min, "item", "items")
        ),
        Some(max) => {
            format!("{who} must hold from {min} to {max} items matching the `contains` schema")
        }
        None => format!(
            "{who} must hold at least {} matching the `contains` schema",
            plural(min, "item", "items")
        ),
    }
}

/// `anyOf`, `oneOf`, `allOf`, `not` and `if`: a failed `allOf` schema or `if` branch is
/// descended into, so that the refusal names the nested field.
fn word_combinator(r: &Refused<'_>, out: &mut Out<'_>) -> Worded {
    let who = r.who();
    let (path, root, value) = (r.path, r.root, r.value);
    Worded::Message(match (r.key, r.raw, value) {
        ("anyOf", _, _) => format!("{who} matches none of its `anyOf` alternatives"),
        ("oneOf", Value::Array(alts), _) => {
            if alts.iter().any(|a| holds(a, value, out.document)) {
                format!("{who} matches more than one of its `oneOf` alternatives")
            } else {
                format!("{who} matches none of its `oneOf` alternatives")
            }
        }
        ("allOf", Value::Array(alts), _) => {
            let mut said = false;
            for a in alts {
                if !holds(a, value, out.document) {
                    said |= descend(a, value, path, root, out);
                }
            }
            if said {
                return Worded::Said;
            }
            format!("{who} does not match every one of its `allOf` schemas")
        }
        ("not", Value::Object(m), _) if m.is_empty() => {
            format!("{who}: no value is accepted here (the schema is `false`)")
        }
        ("not", Value::Object(m), Value::Object(_))
            if m.len() == 1
                && matches!(m.get("required"), Some(Value::Array(n)) if !n.is_empty()) =>
        {
            word_not_required(m, path, out);
            return Worded::Said;
        }
        ("not", _, _) => format!("{who} must not match the `not` schema"),
        ("if", _, _) => {
            let (branch, then) = if holds(r.raw, value, out.document) {
                ("then", true)
            } else {
                ("else", false)
            };
            if let Some(b) = r.siblings.get(branch).map(Value::from_serde)
                && descend(&b, value, path, root, out)
            {
                return Worded::Said;
            }
            if then {
                format!("{who} must match the `then` schema, as the `if` schema holds")
            } else {
                format!("{who} must match the `else` schema, as the `if` schema does not hold")
            }
        }
        _ => return Worded::NotMine,
    })
}

/// `{"not": {"required": [...]}}`: fields that must not be given (together), named as fields.
fn word_not_required(not: &Map, path: &str, out: &mut Out<'_>) {
    let names: Vec<String> = match not.get("required") {
        Some(Value::Array(n)) => n
            .iter()
            .filter_map(Value::as_str)
            .map(|n| join(path, n))
            .collect(),
        _ => Vec::new(),
    };
    let field = names.first().cloned().unwrap_or_default();
    let message = match names.as_slice() {
        [one] => format!("field `{one}` must not be given"),
        many => format!(
            "fields {} must not all be given",
            many.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    push(out, &field, message);
}

/// `items`, `prefixItems` and `additionalItems` of an array: each failing item named by its
/// index (descended into where the model can read its schema).
fn word_items(r: &Refused<'_>, out: &mut Out<'_>) -> Worded {
    let (key, path) = (r.key, r.path);
    let Value::Array(items) = r.value else {
        return Worded::NotMine;
    };
    let tuple = |k: &str| match r.siblings.get(k) {
        Some(serde_json::Value::Array(t)) => t.len(),
        _ => 0,
    };
    let mut said = false;
    for (i, item) in items.iter().enumerate() {
        let s = match (key, r.raw) {
            ("items" | "prefixItems", Value::Array(t)) => t.get(i),
            ("items", s) if i >= tuple("prefixItems") => Some(s),
            ("additionalItems", s) if i >= tuple("items") => Some(s),
            _ => None,
        };
        if let Some(s) = s
            && !holds(s, item, out.document)
        {
            let at = format!("{path}[{i}]");
            if !descend(s, item, &at, r.root, out) {
                push(
                    out,
                    &at,
                    format!("field `{at}` must match the `{key}` schema"),
                );
            }
            said = true;
        }
    }
    if said {
        return Worded::Said;
    }
    Worded::Message(format!("{} must match the `{key}` schema", r.who()))
}

/// `required`, `dependentRequired`, draft-07 `dependencies` and `dependentSchemas` of an
/// object: each missing field named, each failing dependent schema descended into.
fn word_dependencies(r: &Refused<'_>, out: &mut Out<'_>) -> Worded {
    let Value::Object(m) = r.value else {
        return Worded::NotMine;
    };
    let (path, who) = (r.path, r.who());
    match (r.key, r.raw) {
        ("required", Value::Array(names)) => {
            for n in names.iter().filter_map(Value::as_str) {
                if !m.contains_key(n) {
                    let f = join(path, n);
                    push(out, &f, format!("missing required field `{f}`"));
                }
            }
            Worded::Said
        }
        ("dependentRequired" | "dependencies" | "dependentSchemas", Value::Object(deps)) => {
            let mut said = false;
            for (k, dep) in deps.iter().filter(|(k, _)| m.contains_key(k)) {
                said |= match dep {
                    Value::Array(names) if r.key != "dependentSchemas" => {
                        word_dependent_names(names, k, m, path, out)
                    }
                    s => word_dependent_schema(r, s, k, out),
                };
            }
            if said {
                return Worded::Said;
            }
            Worded::Message(format!("{who} must match the `{}` schemas", r.key))
        }
        _ => Worded::NotMine,
    }
}

/// The fields a given field `k` requires that `m` lacks, each named: whether there was one.
fn word_dependent_names(names: &[Value], k: &str, m: &Map, path: &str, out: &mut Out<'_>) -> bool {
    let mut said = false;
    for n in names.iter().filter_map(Value::as_str) {
        if !m.contains_key(n) {
            let f = join(path, n);
            push(
                out,
                &f,
                format!(
                    "missing field `{f}`, required when `{}` is given",
                    join(path, k)
                ),
            );
            said = true;
        }
    }
    said
}

/// The schema that applies when field `k` is given, if the value fails it: descended into,
/// or named. Whether it failed.
fn word_dependent_schema(r: &Refused<'_>, s: &Value, k: &str, out: &mut Out<'_>) -> bool {
    if holds(s, r.value, out.document) {
        return false;
    }
    if !descend(s, r.value, r.path, r.root, out) {
        push(
            out,
            r.path,
            format!(
                "{} must match the schema that applies when `{}` is given",
                r.who(),
                join(r.path, k)
            ),
        );
    }
    true
}

/// `properties`, `patternProperties` and `additionalProperties` of an object, judged
/// together: each refused field named, and descended into where the model can read the
/// schema it fails.
fn word_properties(r: &Refused<'_>, out: &mut Out<'_>) -> Worded {
    let Value::Object(m) = r.value else {
        return Worded::NotMine;
    };
    let mut together = serde_json::Map::new();
    for (k, v) in r.siblings {
        if matches!(
            k.as_str(),
            "properties" | "patternProperties" | "additionalProperties"
        ) {
            together.insert(k.clone(), v.clone());
        }
    }
    let mut said = false;
    for (name, v) in m.iter() {
        said |= word_property(r, &together, name, v, out);
    }
    if said {
        return Worded::Said;
    }
    Worded::Message(format!("{} must match the `{}` schemas", r.who(), r.key))
}

/// Field `name` (value `v`) of the object, if the keyword (judged with the other property
/// keywords `together`) refuses it: named, or descended into. Whether it was refused.
fn word_property(
    r: &Refused<'_>,
    together: &serde_json::Map<String, serde_json::Value>,
    name: &str,
    v: &Value,
    out: &mut Out<'_>,
) -> bool {
    let key = r.key;
    let mut single = serde_json::Map::new();
    single.insert(name.to_string(), v.to_serde());
    let single = serde_json::Value::Object(single);
    if crate::keywords::keyword_holds(together, key, &single, out.document) != Some(false) {
        return false;
    }
    let f = join(r.path, name);
    let schemas: Vec<Value> = match (key, r.raw) {
        ("properties", Value::Object(p)) => p.get(name).cloned().into_iter().collect(),
        ("patternProperties", Value::Object(pp)) => pp
            .iter()
            .filter(|(p, _)| {
                crate::keywords::Pattern::cached(p).is_some_and(|re| re.is_match(name))
            })
            .map(|(_, s)| s.clone())
            .collect(),
        ("additionalProperties", Value::Bool(false)) => {
            push(out, &f, format!("unknown field `{f}` (not accepted here)"));
            return true;
        }
        ("additionalProperties", s) => vec![s.clone()],
        _ => Vec::new(),
    };
    let mut any = false;
    for s in schemas {
        if !holds(&s, v, out.document) {
            any |= descend(&s, v, &f, r.root, out);
        }
    }
    if !any {
        push(
            out,
            &f,
            format!("field `{f}` must match the `{key}` schema"),
        );
    }
    true
}

/// A recursive `$ref`, followed into the document, so that a refusal deep inside a
/// recursive type names its field (`tree.children[0].name`).
fn word_ref(r: &Refused<'_>, out: &mut Out<'_>) -> Worded {
    let Value::String(reference) = r.raw else {
        return Worded::NotMine;
    };
    let key = (reference.clone(), r.path.to_string());
    if out.tree.is_some() && !out.following.contains(&key) {
        // Parsed against the document, `{"$ref": r}` is the definition itself.
        let mut m = Map::new();
        m.insert("$ref", Value::String(reference.clone()));
        out.following.push(key);
        let said = descend(&Value::Object(m), r.value, r.path, r.root, out);
        out.following.pop();
        if said {
            return Worded::Said;
        }
    }
    Worded::Message(format!("{} must match the schema {reference}", r.who()))
}

/// The typed part of `schema` ([`Kind`]): each kind's rules checked by its own step, and a
/// value of another type refused by name.
fn check_typed(schema: &Schema, value: &Value, path: &str, root: &str, out: &mut Out<'_>) {
    match (&schema.kind, value) {
        (Kind::Any, _) => {}
        (Kind::Boolean, Value::Bool(_)) => {}
        (Kind::String(rules), Value::String(s)) => check_string(rules, s, path, root, out),
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
        (Kind::Array(rules), Value::Array(items)) => check_array(rules, items, path, root, out),
        (Kind::Object(rules), Value::Object(map)) => check_object(rules, map, path, root, out),
        (_, other) => refuse_type(schema.type_name(), other, path, root, out),
    }
}

/// A value of another type than the schema's, named with what it is.
fn refuse_type(expected: &str, other: &Value, path: &str, root: &str, out: &mut Out<'_>) {
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

/// A string's `enum` and length.
fn check_string(rules: &StringRules, s: &str, path: &str, root: &str, out: &mut Out<'_>) {
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

/// An array's size, then each item against `items`.
fn check_array(rules: &ArrayRules, items: &[Value], path: &str, root: &str, out: &mut Out<'_>) {
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

/// An object's declared fields (in schema order), its `if`/`then`, then the fields it does
/// not declare.
fn check_object(rules: &ObjectRules, map: &Map, path: &str, root: &str, out: &mut Out<'_>) {
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
        check_conditional(c, map, path, out);
    }
    check_undeclared(rules, map, path, root, out);
}

/// The fields an `if`/`then` requires, when its condition holds.
fn check_conditional(c: &Conditional, map: &Map, path: &str, out: &mut Out<'_>) {
    let holds = c
        .when
        .iter()
        .all(|(field, constant)| map.get(field) == Some(constant));
    if !holds {
        return;
    }
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

/// The fields the schema does not declare, against `additionalProperties`.
fn check_undeclared(rules: &ObjectRules, map: &Map, path: &str, root: &str, out: &mut Out<'_>) {
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
            let known: Vec<String> = rules.properties.iter().map(|(n, _)| n.clone()).collect();
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
    out: &mut Out<'_>,
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

/// The parser's steps that need the validator: judging a default, and a conditional's tested
/// constant, against their schema. The parser sits below this module (the validator reads raw
/// subschemas with it), so they are written here.
impl SchemaParser<'_> {
    /// The first way `value` fails `schema`, calling it `what` (`"the default"`).
    pub(crate) fn first_refusal(schema: &Schema, value: &Value, what: &str) -> Option<Violation> {
        validate_value(schema, value, what).into_iter().next()
    }

    /// A default its own schema refuses is accepted, as clients accept it, with a warning;
    /// the typed model drops it (generated code could not hold it), the served schema keeps it.
    pub(crate) fn check_default(&mut self, schema: &mut Schema, at: &Pointer) {
        let Some(default) = schema.default.clone() else {
            return;
        };
        let mut without_default = schema.clone();
        without_default.default = None;
        if let Some(v) = Self::first_refusal(&without_default, &default, "the default") {
            self.warn(
                &at.key("default"),
                format!(
                    "the default does not match the schema: {}; it is served as written, and generated code ignores it",
                    v.message
                ),
            );
            schema.default = None;
            schema.annotations.push(("default".to_string(), default));
        }
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
    fn keywords_beyond_the_typed_model_are_judged_and_name_the_nested_field() {
        let s = schema(
            r#"{"type":"object","properties":{
                "slug":{"type":"string","pattern":"^[a-z]+$"},
                "any":{"properties":{"n":{"type":"integer"}},"required":["n"]},
                "pair":{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}},
                "one":{"oneOf":[{"type":"integer"},{"minimum":2}]}},
              "patternProperties":{"^x-":{"type":"integer"}},
              "additionalProperties":false}"#,
        );
        assert_eq!(
            messages(
                &s,
                r#"{"slug":"a","any":{"n":1},"pair":["a",1,2],"one":1,"x-a":1}"#
            ),
            Vec::<String>::new()
        );
        assert_eq!(
            messages(
                &s,
                r#"{"slug":"A","any":{"n":"1"},"pair":[1,"b"],"one":3,"x-a":"s","other":1}"#
            ),
            vec![
                "field `slug` must match the pattern `^[a-z]+$`",
                "field `any.n` must be an integer, found the string \"1\"",
                "field `pair[0]` must be a string, found the number 1",
                "field `pair[1]` must be an integer, found the string \"b\"",
                "field `one` matches more than one of its `oneOf` alternatives",
                "field `x-a` must be an integer, found the string \"s\"",
                "unknown field `other` (not accepted here)",
            ]
        );
        // Something else than an object: the object keywords do not apply.
        assert_eq!(
            messages(&s, r#"{"slug":"a","any":3}"#),
            Vec::<String>::new()
        );
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
