//! Keywords whose meaning a Rust type holds only in part: the most specific type the schema
//! allows, plus a run-time check of the rest, so that a generated type accepts exactly what
//! its schema accepts.
//!
//! | schema | Rust type | checked at run time |
//! |---|---|---|
//! | `allOf` | its members merged into the schema where that keeps the meaning (`properties`, `required`, `type`, bounds, ...): a struct for objects | the members that do not merge |
//! | `anyOf`/`oneOf` beside other keywords | the keywords beside them distributed into each alternative (`S ∧ (A ∨ B)` is `(S ∧ A) ∨ (S ∧ B)`): an enum, as for `anyOf` alone | what each alternative's type does not hold |
//! | `const`/`enum` beside other keywords | a literal of the values the whole schema accepts (judged at expansion time) | nothing more |
//! | `pattern` on a string | `Cow<'a, str>` (or the string enum) | the pattern, with the `regex` crate (`runtime::rules::pattern`) |
//! | `multipleOf` on a number | `i64`/`f64` | `runtime::rules::multiple_of` |
//! | an object with properties and `patternProperties`, `propertyNames`, `dependentRequired`, `dependencies`, `min/maxProperties`, `not`, `if`/`then`/`else`, ... | its struct | those keywords, on the object as sent, before the struct is read (a gate in its `Deserialize`) |
//! | other keywords on a type whose value serializes as it was sent (strings, numbers, enums, arrays and maps of them, free JSON) | that type | the keywords, on the value (`runtime::keywords`) |
//! | other keywords elsewhere, or no `type` at all (`{"minLength": 2}`, `{"not": ...}`) | `serde_json::Value` | the whole schema, on the value |
//!
//! `format` is an annotation (as 2020-12 says) unless the catalog asserts formats, where it
//! is a compile error: generated code has no format checks. A pattern the `regex` crate
//! cannot compile (lookaround, backreferences) is a compile error naming it and its place:
//! the served validator (jsonschema with the `regex` engine) refuses it too.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::super::Loc;
use super::{Module, Ty};
use toolgate_schema::diag::{Ctxt, SourceText};
use toolgate_schema::json::{Map, Value, to_compact};
use toolgate_schema::locate::Pointer;
use toolgate_schema::model::{Additional, Kind, Schema, SchemaParser};
use toolgate_schema::runtime::keywords::{self, Keywords};
use toolgate_schema::runtime::subset::Dialect;

/// The run-time checks of one schema beyond what its Rust type holds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    /// `pattern` on a string: the static holding it compiled, and the pattern.
    pattern: Option<(Ident, String)>,
    /// `multipleOf` on a number.
    multiple_of: Option<f64>,
    /// The other keywords, judged by `runtime::keywords` on the value.
    raw: Option<RawCheck>,
    /// The schema this one was typed as (its `allOf` merged, or the keywords beside its
    /// `anyOf` distributed): its checks are those of that one.
    alias: Option<Box<Schema>>,
}

/// A schema checked by `runtime::keywords`: the static it is compiled into, its JSON text
/// and the text of the document its `$ref`s point into (empty for none).
#[derive(Clone, Debug)]
pub(crate) struct RawCheck {
    cell: Ident,
    schema: String,
    root: String,
    /// The keywords, for messages.
    keywords: Vec<String>,
}

/// A JSON pattern or format that generated code cannot check, at its place in the schema.
pub(crate) struct Untypable {
    pub at: Pointer,
    pub keyword: String,
    pub why: String,
}

/// What generated code cannot check anywhere in `schema`: a pattern the `regex` crate does
/// not compile, and `format` where the catalog asserts formats.
pub(crate) fn untypable(schema: &Schema, assert_formats: bool) -> Vec<Untypable> {
    let json = schema.to_json().to_serde();
    let mut out: Vec<Untypable> = keywords::pattern_errors(&json)
        .into_iter()
        .map(|e| Untypable {
            at: pointer_of(&e.pointer),
            keyword: if e.pointer.ends_with("/pattern") {
                "pattern".to_string()
            } else {
                "patternProperties".to_string()
            },
            why: format!(
                "the pattern \"{}\" cannot be checked: {} (generated code checks patterns as the served validator does, with the `regex` crate)",
                e.pattern, e.message
            ),
        })
        .collect();
    if assert_formats {
        formats(&json, &mut String::new(), &mut out);
    }
    out
}

fn formats(v: &serde_json::Value, at: &mut String, out: &mut Vec<Untypable>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                let len = at.len();
                at.push('/');
                at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                match (k.as_str(), x) {
                    ("format", serde_json::Value::String(f)) => out.push(Untypable {
                        at: pointer_of(at),
                        keyword: "format".to_string(),
                        why: format!(
                            "the catalog asserts formats (`assert_formats`), and generated code has no check for `format` \"{f}\""
                        ),
                    }),
                    ("const" | "enum" | "default" | "examples", _) => {}
                    _ => formats(x, at, out),
                }
                at.truncate(len);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                formats(x, at, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// A JSON pointer's text as a [`Pointer`].
fn pointer_of(text: &str) -> Pointer {
    let mut p = Pointer::root();
    for raw in text.split('/').skip(1) {
        p = p.key(&raw.replace("~1", "/").replace("~0", "~"));
    }
    p
}

/// Annotations: they say nothing about which values are valid.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Keywords of an alternative that give it a shape of its own, so that distributing the
/// keywords beside `anyOf`/`oneOf` into the alternatives gives types worth having; an
/// alternative of none of them only constrains (`{"required": ["a"]}`), and is checked.
const STRUCTURAL: &[&str] = &[
    "type",
    "properties",
    "items",
    "prefixItems",
    "const",
    "enum",
    "$ref",
    "anyOf",
    "oneOf",
    "allOf",
    "title",
];

/// Keywords that read one another: two schemas are merged only when one of them has none
/// of a group.
const GROUPS: &[&[&str]] = &[
    &["properties", "patternProperties", "additionalProperties"],
    &["items", "prefixItems", "additionalItems"],
    &["contains", "minContains", "maxContains"],
    &["if", "then", "else"],
    &["$ref"],
    &["$defs", "definitions"],
];

/// `schema` with its `allOf` members merged into it where that keeps its meaning (the
/// others kept in an `allOf`); `None` when none merges.
pub(crate) fn merge_all_of(schema: &Map) -> Option<Map> {
    let Some(Value::Array(members)) = schema.get("allOf") else {
        return None;
    };
    let mut merged = schema.clone();
    merged.remove("allOf");
    let mut rest = Vec::new();
    let mut any = false;
    for m in members {
        match m {
            Value::Bool(true) => any = true,
            Value::Object(mm) => match merge_pair(&merged, mm) {
                Some(x) => {
                    merged = x;
                    any = true;
                }
                None => rest.push(m.clone()),
            },
            other => rest.push(other.clone()),
        }
    }
    if !any {
        return None;
    }
    if !rest.is_empty() {
        merged.insert("allOf", Value::Array(rest));
    }
    Some(merged)
}

/// One schema that holds exactly when both `a` and `b` do, when their keywords combine.
fn merge_pair(a: &Map, b: &Map) -> Option<Map> {
    let mut out = a.clone();
    for group in GROUPS {
        let in_a = group.iter().any(|k| a.contains_key(k));
        let in_b = group.iter().any(|k| b.contains_key(k));
        if !(in_a && in_b) {
            continue;
        }
        // Two sets of `properties`, nothing else of the group: each property's schemas both.
        let only_properties =
            |m: &Map| group[0] == "properties" && m.keys().all(|k| !group[1..].contains(&k));
        if !(only_properties(a) && only_properties(b)) {
            return None;
        }
    }
    for (k, v) in b.iter() {
        let Some(x) = out.get(k).cloned() else {
            out.insert(k, v.clone());
            continue;
        };
        if x == *v {
            continue;
        }
        let combined = match k {
            "properties" => merge_properties(&x, v)?,
            "required" => union_required(&x, v)?,
            "type" => intersect_types(&x, v)?,
            "enum" => intersect_enums(&x, v)?,
            "minimum" | "exclusiveMinimum" | "minLength" | "minItems" | "minProperties" => {
                extreme(&x, v, true)?
            }
            "maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" | "maxProperties" => {
                extreme(&x, v, false)?
            }
            "uniqueItems" => Value::Bool(true),
            k if ANNOTATIONS.contains(&k) => x,
            _ => return None,
        };
        out.insert(k, combined);
    }
    Some(out)
}

/// Two `properties` keywords as one: each property in both gets the schemas of both.
fn merge_properties(x: &Value, v: &Value) -> Option<Value> {
    let (Value::Object(pa), Value::Object(pb)) = (x, v) else {
        return None;
    };
    let mut p = pa.clone();
    for (name, s) in pb.iter() {
        match p.get(name) {
            None => p.insert(name, s.clone()),
            Some(t) if t == s => {}
            Some(t) => {
                let both = match (t, s) {
                    (Value::Object(x), Value::Object(y)) => merge_pair(x, y).map(Value::Object),
                    _ => None,
                };
                p.insert(
                    name,
                    both.unwrap_or_else(|| all_of(vec![t.clone(), s.clone()])),
                );
            }
        }
    }
    Some(Value::Object(p))
}

/// Two `required` lists as one: every name of either.
fn union_required(x: &Value, v: &Value) -> Option<Value> {
    let (Value::Array(ra), Value::Array(rb)) = (x, v) else {
        return None;
    };
    let mut r = ra.clone();
    for n in rb {
        if !r.contains(n) {
            r.push(n.clone());
        }
    }
    Some(Value::Array(r))
}

/// Two `enum` lists as one: the values in both (none in common: no schema, since no value
/// could hold).
fn intersect_enums(x: &Value, v: &Value) -> Option<Value> {
    let (Value::Array(ea), Value::Array(eb)) = (x, v) else {
        return None;
    };
    let both: Vec<Value> = ea
        .iter()
        .filter(|e| {
            eb.iter()
                .any(|f| keywords::json_equal(&e.to_serde(), &f.to_serde()))
        })
        .cloned()
        .collect();
    if both.is_empty() {
        return None;
    }
    Some(Value::Array(both))
}

/// `anyOf`/`oneOf` (`k`) beside other keywords, with alternatives of a shape of their own:
/// the other keywords distributed into each alternative (the title and description kept
/// outside), or `None` when the alternatives have no shape of their own.
fn distributed(json: &Map, k: &str) -> Option<Map> {
    let Some(Value::Array(alts)) = json.get(k) else {
        return None;
    };
    let structural = alts.iter().any(|a| {
        a.as_object()
            .is_some_and(|m| m.keys().any(|x| STRUCTURAL.contains(&x)))
    });
    if !structural {
        return None;
    }
    let mut siblings = json.clone();
    siblings.remove(k);
    let mut outer = Map::new();
    for a in ANNOTATIONS {
        if let Some(v) = siblings.remove(a)
            && matches!(*a, "title" | "description")
        {
            outer.insert(*a, v);
        }
    }
    let distributed: Vec<Value> = alts
        .iter()
        .map(|a| match a {
            Value::Object(am) => match merge_pair(am, &siblings) {
                Some(m) => Value::Object(m),
                None => all_of(vec![a.clone(), Value::Object(siblings.clone())]),
            },
            other => all_of(vec![other.clone(), Value::Object(siblings.clone())]),
        })
        .collect();
    outer.insert(k, Value::Array(distributed));
    Some(outer)
}

fn all_of(items: Vec<Value>) -> Value {
    let mut m = Map::new();
    m.insert("allOf", Value::Array(items));
    Value::Object(m)
}

/// The larger (`max`) or smaller of two numbers.
fn extreme(a: &Value, b: &Value, max: bool) -> Option<Value> {
    let (Value::Number(x), Value::Number(y)) = (a, b) else {
        return None;
    };
    let first = if max {
        x.as_f64() >= y.as_f64()
    } else {
        x.as_f64() <= y.as_f64()
    };
    Some(Value::Number(if first { *x } else { *y }))
}

/// The types both `type` values allow (`integer` within `number`); `None` when none.
fn intersect_types(a: &Value, b: &Value) -> Option<Value> {
    let list = |v: &Value| -> Option<Vec<String>> {
        match v {
            Value::String(s) => Some(vec![s.clone()]),
            Value::Array(items) => items.iter().map(|i| i.as_str().map(String::from)).collect(),
            _ => None,
        }
    };
    let (la, lb) = (list(a)?, list(b)?);
    let allows = |l: &[String], t: &str| {
        l.iter()
            .any(|x| x == t || (t == "integer" && x == "number"))
    };
    let mut both: Vec<String> = Vec::new();
    for t in la.iter().chain(&lb) {
        if allows(&la, t) && allows(&lb, t) && !both.contains(t) {
            both.push(t.clone());
        }
    }
    // `integer` and `number` both allowed: `number` says it.
    if both.iter().any(|t| t == "number") {
        both.retain(|t| t != "integer");
    }
    match both.len() {
        0 => None,
        1 => Some(Value::str(both[0].clone())),
        _ => Some(Value::Array(both.into_iter().map(Value::str).collect())),
    }
}

/// Whether the typed value serializes as the JSON it was read from (up to what JSON Schema
/// cannot tell apart: key order, `3.0` and `3`), so that a check on it serialized is a
/// check on the value sent. A struct is not (it leaves out unknown fields, writes
/// defaults), nor a union (its alternatives may be structs).
fn faithful(ty: &Ty) -> bool {
    match ty {
        Ty::Bool
        | Ty::Int
        | Ty::Num
        | Ty::Str
        | Ty::Any
        | Ty::FreeObject
        | Ty::Enum(_)
        | Ty::Literal(_) => true,
        Ty::Vec(t) | Ty::Map(t) | Ty::Nullable(t, _) | Ty::Boxed(t) => faithful(t),
        Ty::Struct(..) | Ty::Union(..) => false,
    }
}

impl Module<'_> {
    /// The dialect of the tool's schema.
    fn dialect(&self) -> Dialect {
        self.document()
            .and_then(|d| d.as_object())
            .and_then(|m| m.get("$schema"))
            .and_then(Value::as_str)
            .and_then(Dialect::from_uri)
            .unwrap_or_default()
    }

    /// The tool's authored input schema, which `$ref`s point into.
    fn document(&self) -> Option<&Value> {
        self.tool
            .variants
            .get(self.variant)
            .and_then(|v| v.authored.get("inputSchema"))
    }

    /// Parses a raw subschema (from `extra`, or merged from several) into the model, its
    /// `$ref`s resolved against the tool's schema, in its dialect.
    pub(super) fn parse_sub(&self, raw: &Value) -> Option<Schema> {
        let empty = Value::Object(Map::new());
        let document = self.document().unwrap_or(&empty);
        let source = SourceText {
            path: std::path::PathBuf::from("subschema"),
            text: to_compact(raw),
        };
        let mut cx = Ctxt::new();
        let mut parser = SchemaParser::new(&source, document, Pointer::root(), &mut cx);
        parser.dialect = self.dialect();
        let schema = parser.parse(raw, &Pointer::root(), false);
        if cx.error_count() > 0 { None } else { schema }
    }

    /// `schema` (JSON) made ready for `runtime::keywords`: the dialect named, and the text of
    /// the tool's schema when it holds a `$ref` (empty otherwise).
    fn check_texts(&self, mut schema: serde_json::Value) -> (serde_json::Value, String) {
        if self.dialect() == Dialect::Draft07
            && let serde_json::Value::Object(m) = &mut schema
        {
            m.insert(
                "$schema".to_string(),
                serde_json::Value::from("http://json-schema.org/draft-07/schema#"),
            );
        }
        let text = schema.to_string();
        let root = if text.contains("\"$ref\"") {
            self.document().map(to_compact).unwrap_or_default()
        } else {
            String::new()
        };
        (schema, root)
    }

    /// Registers a check of `schema` (JSON) by `runtime::keywords`: its static, emitted once.
    fn raw_check(
        &mut self,
        schema: serde_json::Value,
        keywords: Vec<String>,
        loc: &Loc,
    ) -> Option<RawCheck> {
        let (schema, root) = self.check_texts(schema);
        let root_value = if root.is_empty() {
            None
        } else {
            serde_json::from_str(&root).ok()
        };
        if let Err(e) = Keywords::new(schema.clone(), root_value) {
            self.errs.at(
                loc,
                format!(
                    "catalog! cannot check the pattern \"{}\" (at {}): {}",
                    e.pattern, e.pointer, e.message
                ),
            );
            return None;
        }
        let cell = format_ident!("__KEYWORDS_{}", self.statics);
        self.statics += 1;
        let rt = self.opts.runtime_path();
        self.items.push(quote! {
            static #cell: ::std::sync::OnceLock<::core::option::Option<#rt::keywords::Keywords>> =
                ::std::sync::OnceLock::new();
        });
        Some(RawCheck {
            cell,
            schema: schema.to_string(),
            root,
            keywords,
        })
    }

    /// The values of `values` that the whole of `schema` accepts (judged now, at expansion
    /// time), for a `const` or `enum` beside other keywords.
    pub(super) fn admitted(&mut self, schema: &Schema, values: &[Value]) -> Vec<Value> {
        let (json, root) = self.check_texts(schema.to_json().to_serde());
        let root = serde_json::from_str(&root).ok();
        match Keywords::new(json, root) {
            Ok(k) => values
                .iter()
                .filter(|v| k.is_valid(&v.to_serde()))
                .cloned()
                .collect(),
            Err(_) => values.to_vec(),
        }
    }

    /// The type of a schema whose keywords beyond the typed model no combinator path takes
    /// (see the module documentation).
    pub(super) fn ty_checked(&mut self, schema: &Schema, hint: &str, path: &str, loc: &Loc) -> Ty {
        let Value::Object(json) = schema.to_json() else {
            return Ty::Any;
        };
        // `allOf`: merged where it can be.
        if let Some(merged) = merge_all_of(&json)
            && let Some(s) = self.parse_sub(&Value::Object(merged))
        {
            return self.ty_as(schema, s, hint, path, loc);
        }
        let extra = super::combinators::significant(schema);
        // `const`, `enum` beside other keywords: the values the whole schema accepts.
        for (k, v) in &extra {
            match (*k, v) {
                ("const", c) => {
                    let values = self.admitted(schema, std::slice::from_ref(*c));
                    let unit = !values.is_empty();
                    return self.literal(schema, &values, unit, hint, path, loc);
                }
                ("enum", Value::Array(vs)) => {
                    let values = self.admitted(schema, vs);
                    return self.literal(schema, &values, false, hint, path, loc);
                }
                _ => {}
            }
        }
        // `anyOf`/`oneOf` beside other keywords, with alternatives of a shape of their own:
        // the other keywords distributed into each alternative.
        for k in ["anyOf", "oneOf"] {
            if let Some(outer) = distributed(&json, k)
                && let Some(s) = self.parse_sub(&Value::Object(outer))
            {
                return self.ty_as(schema, s, hint, path, loc);
            }
        }
        // The typed part, and a check of the rest.
        let mut base = schema.clone();
        base.extra.clear();
        let (mut plan, mut rest) = self.typed_checks(schema, &extra);
        let gate_struct =
            matches!(&base.kind, Kind::Object(o) if !o.properties.is_empty() || o.denies_unknown());
        if !rest.is_empty() {
            schema.add_typed_properties(&mut rest);
            let names: Vec<String> = extra.iter().map(|(k, _)| k.to_string()).collect();
            if gate_struct {
                keep_other_properties(&mut base, &rest);
                let Some(gate) = self.raw_check(serde_json::Value::Object(rest), names, loc) else {
                    return Ty::Any;
                };
                return self.gated_struct(schema, &base, hint, path, loc, gate);
            }
            let ty = self.ty(&base, hint, path, loc);
            if faithful(&ty) {
                plan.raw = self.raw_check(serde_json::Value::Object(rest), names, loc);
                self.keyword_checks.push((schema.clone(), plan));
                return ty;
            }
            // A type that does not give back the value sent: the value itself, checked
            // against the whole schema.
            return self.checked_value(schema, loc);
        }
        let ty = self.ty(&base, hint, path, loc);
        self.keyword_checks.push((schema.clone(), plan));
        ty
    }

    /// The keywords beside a type that generated code checks itself (`pattern`, with a
    /// static for its compiled pattern, and `multipleOf`), and the rest, for a raw check.
    fn typed_checks(
        &mut self,
        schema: &Schema,
        extra: &[(&str, &Value)],
    ) -> (Plan, serde_json::Map<String, serde_json::Value>) {
        let mut plan = Plan::default();
        let mut rest = serde_json::Map::new();
        for (k, v) in extra {
            match (*k, v, &schema.kind) {
                ("pattern", Value::String(p), Kind::String(_)) => {
                    let cell = format_ident!("__PATTERN_{}", self.statics);
                    self.statics += 1;
                    let rt = self.opts.runtime_path();
                    self.items.push(quote! {
                        static #cell: ::std::sync::OnceLock<::core::option::Option<#rt::keywords::Pattern>> =
                            ::std::sync::OnceLock::new();
                    });
                    plan.pattern = Some((cell, p.clone()));
                }
                ("multipleOf", Value::Number(m), Kind::Integer(_) | Kind::Number(_)) => {
                    plan.multiple_of = Some(m.as_f64());
                }
                _ => {
                    rest.insert(k.to_string(), v.to_serde());
                }
            }
        }
        (plan, rest)
    }

    /// `serde_json::Value`, checked against the whole of `schema`: for what no more specific
    /// type says exactly.
    pub(super) fn checked_value(&mut self, schema: &Schema, loc: &Loc) -> Ty {
        let names = super::combinators::significant(schema)
            .iter()
            .map(|(k, _)| k.to_string())
            .collect();
        let plan = Plan {
            raw: self.raw_check(schema.to_json().to_serde(), names, loc),
            ..Plan::default()
        };
        self.keyword_checks.push((schema.clone(), plan));
        Ty::Any
    }

    /// The type of `schema` as that of `other`, which means the same.
    fn ty_as(&mut self, schema: &Schema, other: Schema, hint: &str, path: &str, loc: &Loc) -> Ty {
        let ty = self.ty(&other, hint, path, loc);
        let plan = Plan {
            alias: Some(Box::new(other)),
            ..Plan::default()
        };
        self.keyword_checks.push((schema.clone(), plan));
        ty
    }

    /// The schema whose checks are those of `schema` (itself, or what it was typed as).
    pub(super) fn checked_as<'s>(&'s self, schema: &'s Schema) -> &'s Schema {
        let mut s = schema;
        while let Some(to) = self
            .keyword_checks
            .iter()
            .find(|(x, _)| x == s)
            .and_then(|(_, p)| p.alias.as_deref())
        {
            s = to;
        }
        s
    }

    /// A struct for the object `base`, whose `Deserialize` first checks `gate` on the object
    /// as sent.
    fn gated_struct(
        &mut self,
        schema: &Schema,
        base: &Schema,
        hint: &str,
        path: &str,
        loc: &Loc,
        gate: RawCheck,
    ) -> Ty {
        let Kind::Object(o) = &base.kind else {
            return Ty::Any;
        };
        if let Some(t) = self.cached(path, schema) {
            return t;
        }
        let what = format!("`{path}` in {}", loc.file);
        if !self.claim_type(hint, &what, loc) {
            return Ty::Any;
        }
        let doc = match &schema.description {
            Some(d) => d.clone(),
            None => format!("The object `{path}`."),
        };
        let info = self.gen_struct(
            hint,
            hint,
            o,
            base,
            path,
            &|p| loc.prop(p),
            loc,
            doc,
            Some(&gate),
        );
        let t = Ty::Struct(info.name, info.borrows);
        self.cache
            .push((self.variant, path.to_string(), schema.clone(), t.clone()));
        t
    }

    /// The gate of a root struct: its keywords beyond the typed model (the root is a struct
    /// whatever they are), checked on the arguments as sent; `base`, the struct's schema,
    /// keeps the other properties where `patternProperties` describes them.
    pub(super) fn root_gate(
        &mut self,
        schema: &Schema,
        base: &mut Schema,
        loc: &Loc,
    ) -> Option<RawCheck> {
        let extra = super::combinators::significant(schema);
        if extra.is_empty() {
            return None;
        }
        let mut rest = serde_json::Map::new();
        for (k, v) in &extra {
            rest.insert(k.to_string(), v.to_serde());
        }
        schema.add_typed_properties(&mut rest);
        keep_other_properties(base, &rest);
        let names = extra.iter().map(|(k, _)| k.to_string()).collect();
        self.raw_check(serde_json::Value::Object(rest), names, loc)
    }

    /// The run-time checks registered for `schema` beyond its type, on `v` (an expression of
    /// type `&T`, `T` the type of `ty`).
    pub(super) fn keyword_check(
        &self,
        schema: &Schema,
        ty: &Ty,
        v: &TokenStream,
    ) -> Option<TokenStream> {
        let (_, plan) = self.keyword_checks.iter().find(|(s, _)| s == schema)?;
        let rt = self.opts.runtime_path();
        let mut parts: Vec<TokenStream> = Vec::new();
        if let Some((cell, p)) = &plan.pattern {
            let text = match ty {
                Ty::Enum(_) => quote!(#v.as_str()),
                _ => quote!(::core::convert::AsRef::<str>::as_ref(#v)),
            };
            parts.push(quote!(#rt::rules::pattern(&#cell, #p, #text)));
        }
        if let Some(m) = plan.multiple_of {
            let lit = proc_macro2::Literal::f64_suffixed(m);
            parts.push(match ty {
                Ty::Int => quote!(#rt::rules::multiple_of_integer(*#v, #lit)),
                _ => quote!(#rt::rules::multiple_of(*#v, #lit)),
            });
        }
        if let Some(raw) = &plan.raw {
            let RawCheck {
                cell, schema, root, ..
            } = raw;
            parts.push(if *ty == Ty::Any {
                quote!(#rt::keywords::holds(&#cell, #schema, #root, #v))
            } else {
                quote!(#rt::keywords::holds_as_json(&#cell, #schema, #root, #v))
            });
        }
        match parts.len() {
            0 => None,
            _ => Some(quote!((#(#parts)&&*))),
        }
    }
}

/// Where `patternProperties` describes properties beside the declared ones, the struct of
/// `base` keeps them (its `additional_properties` map, of JSON values), so that a handler
/// can read what the gate checked.
fn keep_other_properties(base: &mut Schema, rest: &serde_json::Map<String, serde_json::Value>) {
    if rest.contains_key("patternProperties")
        && let Some(o) = base.as_object_mut()
    {
        o.additional = Additional::Schema(Box::new(Schema::any()));
    }
}

/// The `Deserialize` body of a struct with a gate: the object as sent, checked, then read.
pub(super) fn gated_deserialize(
    rt: &TokenStream,
    struct_ident: &Ident,
    gate: &RawCheck,
    path: &str,
) -> TokenStream {
    let RawCheck {
        cell,
        schema,
        root,
        keywords,
    } = gate;
    let listed: Vec<String> = keywords.iter().map(|k| format!("`{k}`")).collect();
    let refusal = if path.is_empty() {
        format!(
            "the arguments do not match the schema ({})",
            listed.join(", ")
        )
    } else {
        format!("`{path}` does not match its schema ({})", listed.join(", "))
    };
    quote! {
        let __v = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
        if !#rt::keywords::holds(&#cell, #schema, #root, &__v) {
            return ::core::result::Result::Err(<D::Error as ::serde::de::Error>::custom(#refusal));
        }
        #struct_ident::deserialize(#rt::de::Object(__v))
            .map_err(<D::Error as ::serde::de::Error>::custom)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use toolgate_schema::load::{SourceFile, load_sources};

    use crate::{Input, Options, generate};

    fn matrix(assert_formats: bool) -> String {
        format!(
            r#"{{"catalog": "demo", "selector": {{"env": "DEMO_PROFILE"}},
            "profiles": {{"all": "All."}}, "groups": {{"main": {{}}}}, "grants": {{"main": ["all"]}},
            "assert_formats": {assert_formats}}}"#
        )
    }

    /// Expands a one-tool catalog whose input schema is `input`: the token text without
    /// spaces, or every error.
    fn expand_with(input: &str, assert_formats: bool) -> Result<String, Vec<String>> {
        let files = vec![
            SourceFile {
                rel: "profiles.json".to_string(),
                bytes: matrix(assert_formats).into_bytes(),
            },
            SourceFile {
                rel: "tools/t.json".to_string(),
                bytes: format!(
                    "{{\"name\": \"t\", \"group\": \"main\", \"description\": \"D.\",\n \"inputSchema\": {input}}}\n"
                )
                .into_bytes(),
            },
        ];
        let display = PathBuf::from("demo");
        let catalog = load_sources(&display, files.clone())
            .map_err(|e| e.0.iter().map(ToString::to_string).collect::<Vec<_>>())?;
        let input = Input {
            catalog: &catalog,
            display: &display,
            sources: &files,
            include: &[],
            options: &Options::default(),
        };
        generate(&input)
            .map(|t| {
                t.to_string()
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect()
            })
            .map_err(|e| e.0.iter().map(ToString::to_string).collect())
    }

    fn expand(input: &str) -> String {
        match expand_with(input, false) {
            Ok(text) => text,
            Err(e) => panic!("{input}: {e:?}"),
        }
    }

    #[test]
    fn a_pattern_is_a_string_checked_with_the_regex_crate() {
        let text = expand(
            r#"{"type": "object", "properties": {"q": {"type": "string", "pattern": "^[a-z]+$"}}, "required": ["q"]}"#,
        );
        assert!(
            text.contains("#[serde(borrow)]pubq:::std::borrow::Cow<'a,str>"),
            "{text}"
        );
        assert!(text.contains(
            "::toolgate_runtime::rules::pattern(&__PATTERN_0,\"^[a-z]+$\",::core::convert::AsRef::<str>::as_ref((&self.q)))"
        ));
        // The direct path still reads it: the check runs on the typed value.
        assert!(text.contains("b\"q\"=>__r.once(&mut__f_q)?"));
    }

    #[test]
    fn a_pattern_the_regex_crate_cannot_compile_is_an_error_at_its_place() {
        // The loader refuses it already (the served validator cannot compile it)...
        let errors = expand_with(
            r#"{"type": "object", "properties": {"q": {"type": "string", "pattern": "^(?!admin)[a-z]+$"}}}"#,
            false,
        )
        .unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("at /inputSchema/properties/q/pattern"),
            "{}",
            errors[0]
        );
        assert!(errors[0].contains("^(?!admin)[a-z]+$"), "{}", errors[0]);
        // ... and the generator, for schemas that reach it otherwise (a group's parameter),
        // names the pattern, its place and why.
        let text = r#"{"type": "object", "properties": {"q": {"type": "string", "pattern": "^(?!admin)[a-z]+$"},
            "r": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "(a)\\1"}]}}}"#;
        let doc: toolgate_schema::json::Value = serde_json::from_str(text).unwrap();
        let source = toolgate_schema::diag::SourceText {
            path: PathBuf::from("t.json"),
            text: text.to_string(),
        };
        let mut cx = toolgate_schema::diag::Ctxt::new();
        let schema = toolgate_schema::model::SchemaParser::new(
            &source,
            &doc,
            toolgate_schema::locate::Pointer::root(),
            &mut cx,
        )
        .parse_root()
        .unwrap();
        let found = super::untypable(&schema, false);
        let places: Vec<String> = found.iter().map(|u| u.at.to_string()).collect();
        assert_eq!(
            places,
            ["/properties/q/pattern", "/properties/r/anyOf/1/pattern"]
        );
        assert!(
            found[0].why.contains("\"^(?!admin)[a-z]+$\""),
            "{}",
            found[0].why
        );
        assert!(found[0].why.contains("look-around"), "{}", found[0].why);
        assert!(found[1].why.contains("backreferences"), "{}", found[1].why);
    }

    #[test]
    fn formats_are_annotations_unless_the_catalog_asserts_them() {
        let schema =
            r#"{"type": "object", "properties": {"d": {"type": "string", "format": "date"}}}"#;
        assert!(expand(schema).contains("pubd:::core::option::Option<::std::borrow::Cow<'a,str>>"));
        let errors = expand_with(schema, true).unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].contains("at /inputSchema/properties/d/format"),
            "{}",
            errors[0]
        );
        assert!(errors[0].contains("asserts formats"), "{}", errors[0]);
    }

    #[test]
    fn all_of_objects_merge_into_one_struct() {
        let text = expand(
            r#"{"type": "object", "properties": {"p": {"allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "integer", "minimum": 1}}}]}}}"#,
        );
        assert!(text.contains("pubstructP<'a>{"), "{text}");
        assert!(text.contains("puba:::std::borrow::Cow<'a,str>"));
        assert!(text.contains("pubb:::core::option::Option<i64>"));
        assert!(text.contains("pubp:::core::option::Option<P<'a>>"));
        // Nothing left to check at run time beyond the struct's own bounds.
        assert!(!text.contains("keywords::holds"));
        // Members that do not merge (two `not`s) stay checked.
        let text = expand(
            r#"{"type": "object", "properties": {"n": {"type": "integer", "allOf": [{"not": {"const": 1}}, {"not": {"const": 2}}]}}}"#,
        );
        assert!(text.contains("pubn:::core::option::Option<i64>"), "{text}");
        assert!(
            text.contains(
                "holds_as_json(&__KEYWORDS_0,\"{\\\"allOf\\\":[{\\\"not\\\":{\\\"const\\\":2}}]"
            ),
            "{text}"
        );
    }

    #[test]
    fn not_is_the_type_of_the_rest_and_a_check() {
        let text = expand(
            r#"{"type": "object", "properties": {"tag": {"type": "string", "not": {"const": "admin"}}}, "required": ["tag"]}"#,
        );
        assert!(text.contains("pubtag:::std::borrow::Cow<'a,str>"), "{text}");
        assert!(text.contains(
            "::toolgate_runtime::keywords::holds_as_json(&__KEYWORDS_0,\"{\\\"not\\\":{\\\"const\\\":\\\"admin\\\"}}\",\"\",(&self.tag))"
        ), "{text}");
    }

    #[test]
    fn a_schema_without_a_type_is_a_checked_value() {
        let text = expand(
            r#"{"type": "object", "properties": {"x": {"minLength": 2}, "y": {"properties": {"a": {"type": "integer"}}, "required": ["a"]}}}"#,
        );
        assert!(
            text.contains("pubx:::core::option::Option<::serde_json::Value>"),
            "{text}"
        );
        assert!(text.contains("puby:::core::option::Option<::serde_json::Value>"));
        assert!(text.contains("::toolgate_runtime::keywords::holds(&__KEYWORDS_0,\"{\\\"minLength\\\":2}\",\"\",v)"), "{text}");
    }

    #[test]
    fn object_keywords_gate_the_struct_and_keep_pattern_properties() {
        let text = expand(
            r#"{"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                "dependentRequired": {"a": ["b"]}, "patternProperties": {"^x-": {"type": "integer"}},
                "additionalProperties": false}"#,
        );
        // The root struct reads the arguments as sent, checks them, then reads itself.
        assert!(text.contains(
            "let__v=<::serde_json::Valueas::serde::Deserialize>::deserialize(deserializer)?;if!::toolgate_runtime::keywords::holds(&__KEYWORDS_0,"
        ), "{text}");
        assert!(text.contains("\\\"dependentRequired\\\":{\\\"a\\\":[\\\"b\\\"]}"));
        assert!(
            text.contains("\\\"properties\\\":{\\\"a\\\":true,\\\"b\\\":true}"),
            "{text}"
        );
        // The properties a pattern describes are kept for the handler.
        assert!(text.contains(
            "pubadditional_properties:::std::collections::BTreeMap<::std::borrow::Cow<'a,str>,::serde_json::Value>"
        ));
        assert!(!text.contains("deny_unknown_fields"));
    }

    #[test]
    fn const_and_enum_keep_the_values_the_whole_schema_accepts() {
        let text = expand(
            r#"{"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2, 3, "a"], "minimum": 2}}}"#,
        );
        assert!(
            text.contains("pubconstVALUES_JSON:&'static[&'staticstr]=&[\"2\",\"3\"];"),
            "{text}"
        );
    }

    #[test]
    fn keywords_beside_one_of_are_distributed_into_its_alternatives() {
        let text = expand(
            r#"{"type": "object", "properties": {"shape": {
                "type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"],
                "oneOf": [
                    {"title": "Circle", "properties": {"kind": {"const": "circle"}, "r": {"type": "number"}}, "required": ["r"]},
                    {"title": "Square", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["side"]}
                ]}}}"#,
        );
        // Tagged by `kind`, now a `const` in each alternative.
        assert!(text.contains("pubenumShape{"), "{text}");
        assert!(text.contains("Circle(ShapeCircle)"));
        assert!(text.contains("pubstructShapeCircle{"));
        assert!(text.contains("pubkind:ShapeCircleKind"));
        assert!(text.contains("__v.get(\"kind\").and_then(::serde_json::Value::as_str)"));
        assert!(text.contains("pubr:f64"));
        assert!(text.contains("pubside:f64"));
    }
}
