//! The accepted JSON Schema subset as a typed model, its parser and its canonical writer.
//!
//! The subset is what the bundled surfaces use and no more (see `docs/catalog-format.md`).
//! Parsing resolves local `$ref`s, so a [`Schema`] is always self-contained; anything outside
//! the subset is an error at its JSON pointer.

use std::collections::BTreeSet;

use crate::diag::{Ctxt, SourceText};
use crate::json::{Map, Number, Value};
use crate::locate::{Pointer, Seg};
use crate::subset::{Dialect, check_type, strip, validation_shape};
use crate::validate;

/// Whether `literal` could pass keyword `key` of value `v` (a raw keyword of `extra`).
fn raw_admits(key: &str, v: &Value, literal: &Value) -> bool {
    match key {
        "const" => v == literal,
        "enum" => v.as_array().is_none_or(|e| e.contains(literal)),
        "type" => check_type(v).map_or(true, |types| {
            types.iter().any(|t| {
                *t == literal.type_name() || (*t == "number" && literal.type_name() == "integer")
            })
        }),
        "anyOf" | "oneOf" => v
            .as_array()
            .is_none_or(|alts| alts.iter().any(|a| raw_schema_admits(a, literal))),
        "allOf" => v
            .as_array()
            .is_none_or(|alts| alts.iter().all(|a| raw_schema_admits(a, literal))),
        _ => true,
    }
}

/// The strings raw keyword `key` of value `v` limits a value to, if it does.
fn raw_strings(key: &str, v: &Value) -> Option<Vec<String>> {
    match key {
        "const" => v.as_str().map(|s| vec![s.to_string()]),
        "enum" => v
            .as_array()?
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect(),
        "anyOf" | "oneOf" => {
            let mut out = Vec::new();
            for alt in v.as_array()? {
                let strings = alt
                    .as_object()?
                    .iter()
                    .find_map(|(k, v)| raw_strings(k, v))?;
                out.extend(strings);
            }
            Some(out)
        }
        _ => None,
    }
}

/// Whether `literal` could match the raw schema `schema` (see [`Schema::admits_literal`]).
fn raw_schema_admits(schema: &Value, literal: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(o) => o.iter().all(|(k, v)| raw_admits(k, v, literal)),
        _ => true,
    }
}

/// Warns about each name of an object's `required` that `properties` does not declare
/// (legal JSON Schema, and often a mistake); `false` when there is one, so `required` is
/// kept raw.
fn required_all_declared(obj: &Map, at: &Pointer, parser: &mut SchemaParser<'_>) -> bool {
    let declared = props_of(obj);
    let has_declaring = DECLARING_KEYS.iter().any(|k| obj.contains_key(k));
    let mut ok = true;
    if let Some(Value::Array(req)) = obj.get("required") {
        for (i, r) in req.iter().enumerate() {
            if let Some(name) = r.as_str()
                && !declared.contains(name)
            {
                ok = false;
                if !has_declaring {
                    parser.warn(
                        &at.index(i),
                        format!("required field `{name}` is not declared in `properties`"),
                    );
                }
            }
        }
    }
    ok
}

/// Whether an `if`/`then` has the one shape the typed model holds:
/// `"if": {"properties": {F: {"const": V}}, "required": [F]}, "then": {"required": [...]}`,
/// every field declared, at least one tested and one required.
fn conditional_fits(obj: &Map, when: &Value, then: &Value, declared: &BTreeSet<&str>) -> bool {
    let (Some(w), Some(t)) = (when.as_object(), then.as_object()) else {
        return false;
    };
    if w.keys().any(|k| k != "properties" && k != "required") || t.keys().any(|k| k != "required") {
        return false;
    }
    let Some(Value::Object(props)) = w.get("properties") else {
        return false;
    };
    let names = |v: Option<&Value>| -> Option<Vec<String>> {
        v?.as_array()?
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect()
    };
    let (Some(req), Some(then_req)) = (names(w.get("required")), names(t.get("required"))) else {
        return false;
    };
    let consts_ok = !props.is_empty()
        && props.iter().all(|(f, c)| {
            declared.contains(f)
                && req.iter().any(|r| r == f)
                && c.as_object()
                    .is_some_and(|c| c.len() == 1 && c.contains_key("const"))
                && const_can_match(obj, f, c)
        });
    consts_ok
        && req.iter().all(|r| props.contains_key(r))
        && !then_req.is_empty()
        && then_req.iter().all(|r| declared.contains(r.as_str()))
}

/// Whether the constant tested for `field` is one its declared schema could hold (a string
/// against a string enum: one of its values; otherwise not ruled out).
fn const_can_match(obj: &Map, field: &str, c: &Value) -> bool {
    let Some(value) = c.as_object().and_then(|c| c.get("const")) else {
        return false;
    };
    let Some(prop) = obj
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|p| p.get(field))
        .and_then(Value::as_object)
    else {
        return true;
    };
    match (prop.get("type").and_then(Value::as_str), prop.get("enum")) {
        (Some("string"), Some(Value::Array(values))) => values.contains(value),
        (Some("string"), _) => value.as_str().is_some(),
        _ => true,
    }
}

/// A schema of the accepted subset, with every `$ref` resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    /// `title`
    pub title: Option<String>,
    /// `description`
    pub description: Option<String>,
    /// `default`
    pub default: Option<Value>,
    /// What values the schema accepts, as far as the typed model holds it.
    pub kind: Kind,
    /// Keywords of the accepted subset that the typed model does not hold (`anyOf`, `const`,
    /// `pattern`, a `type` list, ...), in authored order, `$ref`s inlined (a recursive one
    /// kept): served, validated at run time by the jsonschema-backed validator of
    /// `toolgate-schema`, and refused by codegen naming the keyword. The typed validator
    /// ([`crate::validate`]) does not look at them.
    pub extra: Vec<(String, Value)>,
    /// Annotations kept and served but never validated: `$schema`, `$comment`, `format`,
    /// `examples`, `deprecated`, `readOnly`, `writeOnly`, keys no vocabulary defines
    /// (`x-...`, OpenAPI's `nullable`), a default its own schema refuses, and at the root of
    /// a recursive schema its `$defs`/`definitions` (which its kept `$ref`s point into).
    pub annotations: Vec<(String, Value)>,
}

/// The type-specific part of a [`Schema`].
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// No `type`: any JSON value.
    Any,
    /// `"type": "boolean"`
    Boolean,
    /// `"type": "string"`
    String(StringRules),
    /// `"type": "integer"`
    Integer(NumberRules),
    /// `"type": "number"`
    Number(NumberRules),
    /// `"type": "array"`
    Array(ArrayRules),
    /// `"type": "object"`
    Object(ObjectRules),
}

/// Constraints on a string.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StringRules {
    /// `enum`: the allowed values, in declared order.
    pub enum_values: Option<Vec<String>>,
    /// `minLength`, in characters.
    pub min_length: Option<u64>,
    /// `maxLength`, in characters.
    pub max_length: Option<u64>,
}

/// Bounds on an integer or a number.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NumberRules {
    /// `minimum`
    pub minimum: Option<Number>,
    /// `maximum`
    pub maximum: Option<Number>,
    /// `exclusiveMinimum`
    pub exclusive_minimum: Option<Number>,
    /// `exclusiveMaximum`
    pub exclusive_maximum: Option<Number>,
}

/// Constraints on an array.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArrayRules {
    /// `items`: the schema of every item (absent: any value).
    pub items: Option<Box<Schema>>,
    /// `minItems`
    pub min_items: Option<u64>,
    /// `maxItems`
    pub max_items: Option<u64>,
}

/// Constraints on an object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjectRules {
    /// `properties`, in declared order.
    pub properties: Vec<(String, Schema)>,
    /// `required`, in declared order.
    pub required: Vec<String>,
    /// `additionalProperties`.
    pub additional: Additional,
    /// `if`/`then`: a conditional requirement.
    pub conditional: Option<Conditional>,
}

impl ObjectRules {
    /// The schema of property `name`.
    pub fn property(&self, name: &str) -> Option<&Schema> {
        self.properties
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s)
    }

    /// Mutable access to the schema of property `name`.
    pub fn property_mut(&mut self, name: &str) -> Option<&mut Schema> {
        self.properties
            .iter_mut()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s)
    }

    /// Whether `name` is in `required`.
    pub fn is_required(&self, name: &str) -> bool {
        self.required.iter().any(|r| r == name)
    }

    /// Whether properties other than the declared ones are refused.
    pub fn denies_unknown(&self) -> bool {
        matches!(self.additional, Additional::Forbidden)
    }

    /// Whether the object is free JSON: no properties, other properties allowed, none
    /// described by a schema (the generated type is a `serde_json::Map`, not a struct).
    pub fn is_free(&self) -> bool {
        self.properties.is_empty()
            && matches!(self.additional, Additional::Unstated | Additional::Allowed)
    }

    /// The default a handler receives for property `name` (whose schema is `schema`) when
    /// a call leaves it out: its `default`, unless the property is required, takes part in
    /// the `if`/`then` (where leaving it out means something: it is kept absent), or is of a
    /// type whose default the generated code does not write (an object with properties, a
    /// map, an array of other than scalars). The generated types and the echo of a catalog
    /// folder both follow this.
    pub fn filled_default<'s>(&'s self, name: &str, schema: &'s Schema) -> Option<&'s Value> {
        let default = schema.default.as_ref()?;
        if self.is_required(name) {
            return None;
        }
        if let Some(c) = &self.conditional
            && (c.then_required.iter().any(|f| f == name)
                || c.when.iter().any(|(f, v)| f == name && v == default))
        {
            return None;
        }
        default_is_written(schema, default).then_some(default)
    }
}

/// Whether the generated code writes `default` as the value of a field of schema `schema`.
fn default_is_written(schema: &Schema, default: &Value) -> bool {
    match (&schema.kind, default) {
        (Kind::Any, _)
        | (Kind::Boolean, Value::Bool(_))
        | (Kind::String(_), Value::String(_))
        | (Kind::Number(_), Value::Number(_)) => true,
        (Kind::Integer(_), Value::Number(n)) => n.as_i64_exact().is_some(),
        (Kind::Object(o), _) => o.is_free(),
        (Kind::Array(a), Value::Array(items)) => a.items.as_ref().is_some_and(|i| {
            matches!(
                i.kind,
                Kind::Boolean | Kind::String(_) | Kind::Integer(_) | Kind::Number(_)
            ) && items.iter().all(|v| default_is_written(i, v))
        }),
        _ => false,
    }
}

/// What `additionalProperties` says.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Additional {
    /// Not written: other properties are allowed (and nothing is written back).
    #[default]
    Unstated,
    /// `true`
    Allowed,
    /// `false`
    Forbidden,
    /// A schema every other property must match.
    Schema(Box<Schema>),
}

/// `"if": {"properties": {F: {"const": V}}, "required": [F]}, "then": {"required": [...]}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Conditional {
    /// The fields and the constant each must equal for the condition to hold.
    pub when: Vec<(String, Value)>,
    /// The fields then required.
    pub then_required: Vec<String>,
}

impl Schema {
    /// A schema that accepts anything.
    pub fn any() -> Schema {
        Schema {
            title: None,
            description: None,
            default: None,
            kind: Kind::Any,
            extra: Vec::new(),
            annotations: Vec::new(),
        }
    }

    /// Completes `keywords`, raw keywords of this schema as JSON, for judging them apart from
    /// the typed model: an `additionalProperties` kept raw (beside `patternProperties`) reads
    /// the typed `properties` too, so they are added as `true` schemas when `keywords` has no
    /// `properties` of its own.
    pub fn add_typed_properties(&self, keywords: &mut serde_json::Map<String, serde_json::Value>) {
        if let Kind::Object(o) = &self.kind
            && keywords.contains_key("additionalProperties")
            && !keywords.contains_key("properties")
        {
            let names = o
                .properties
                .iter()
                .map(|(n, _)| (n.clone(), serde_json::Value::Bool(true)))
                .collect();
            keywords.insert("properties".to_string(), serde_json::Value::Object(names));
        }
    }

    /// Every keyword the typed model does not hold, here and in nested schemas, each with
    /// its place relative to this schema (`/properties/q/pattern`): what codegen cannot
    /// type yet.
    pub fn untyped_keywords(&self) -> Vec<(String, Pointer)> {
        let mut out: Vec<(String, Pointer)> = self
            .extra
            .iter()
            .map(|(k, _)| (k.clone(), Pointer::root().key(k)))
            .collect();
        let nested: Vec<(Pointer, &Schema)> = match &self.kind {
            Kind::Array(a) => a
                .items
                .iter()
                .map(|i| (Pointer::root().key("items"), i.as_ref()))
                .collect(),
            Kind::Object(o) => {
                let mut v: Vec<(Pointer, &Schema)> = o
                    .properties
                    .iter()
                    .map(|(n, s)| (Pointer::root().key("properties").key(n), s))
                    .collect();
                if let Additional::Schema(s) = &o.additional {
                    v.push((Pointer::root().key("additionalProperties"), s));
                }
                v
            }
            _ => Vec::new(),
        };
        for (at, s) in nested {
            for (k, inner) in s.untyped_keywords() {
                let mut p = at.clone();
                p.0.extend(inner.0);
                out.push((k, p));
            }
        }
        out
    }

    /// The strings this schema is limited to, when it is: a string `enum`, or a `const`,
    /// an `enum`, or `anyOf`/`oneOf` alternatives of those kept raw (what the lint offers
    /// as the allowed values of a field).
    pub fn allowed_strings(&self) -> Option<Vec<String>> {
        if let Some(values) = self.enum_values() {
            return Some(values.to_vec());
        }
        self.extra.iter().find_map(|(k, v)| raw_strings(k, v))
    }

    /// Whether a literal could match this schema, judged only from what a literal can show
    /// (its type, `const` and `enum`), never from patterns or bounds: what the lint checks a
    /// literal in an agent file against. `true` when unsure.
    pub fn admits_literal(&self, literal: &Value) -> bool {
        let typed_ok = match (&self.kind, literal) {
            (Kind::Any, _) => true,
            (Kind::Boolean, Value::Bool(_)) => true,
            (Kind::String(r), Value::String(s)) => {
                r.enum_values.as_ref().is_none_or(|e| e.contains(s))
            }
            (Kind::Integer(_), Value::Number(n)) => n.is_integer(),
            (Kind::Number(_), Value::Number(_)) => true,
            (Kind::Array(_), Value::Array(_)) | (Kind::Object(_), Value::Object(_)) => true,
            _ => false,
        };
        typed_ok && self.extra.iter().all(|(k, v)| raw_admits(k, v, literal))
    }

    /// The object rules, when this is an object schema.
    pub fn as_object(&self) -> Option<&ObjectRules> {
        match &self.kind {
            Kind::Object(o) => Some(o),
            _ => None,
        }
    }

    /// Mutable object rules, when this is an object schema.
    pub fn as_object_mut(&mut self) -> Option<&mut ObjectRules> {
        match &mut self.kind {
            Kind::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The enum values, when this is a string schema with an `enum`.
    pub fn enum_values(&self) -> Option<&[String]> {
        match &self.kind {
            Kind::String(s) => s.enum_values.as_deref(),
            _ => None,
        }
    }

    /// The JSON Schema type name (`"any"` when there is none).
    pub fn type_name(&self) -> &'static str {
        match &self.kind {
            Kind::Any => "any",
            Kind::Boolean => "boolean",
            Kind::String(_) => "string",
            Kind::Integer(_) => "integer",
            Kind::Number(_) => "number",
            Kind::Array(_) => "array",
            Kind::Object(_) => "object",
        }
    }

    /// The schema as JSON, keys in one fixed order: this is the canonical form every output
    /// of toolgate uses.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        let ty = self.type_name();
        if ty != "any" {
            m.insert("type", Value::str(ty));
        }
        if let Some(t) = &self.title {
            m.insert("title", Value::str(t.clone()));
        }
        if let Some(d) = &self.description {
            m.insert("description", Value::str(d.clone()));
        }
        if let Kind::String(s) = &self.kind
            && let Some(values) = &s.enum_values
        {
            m.insert(
                "enum",
                Value::Array(values.iter().map(|v| Value::str(v.clone())).collect()),
            );
        }
        if let Some(d) = &self.default {
            m.insert("default", d.clone());
        }
        match &self.kind {
            Kind::Any | Kind::Boolean => {}
            Kind::String(s) => {
                put_u64(&mut m, "minLength", s.min_length);
                put_u64(&mut m, "maxLength", s.max_length);
            }
            Kind::Integer(n) | Kind::Number(n) => {
                put_num(&mut m, "minimum", n.minimum);
                put_num(&mut m, "exclusiveMinimum", n.exclusive_minimum);
                put_num(&mut m, "maximum", n.maximum);
                put_num(&mut m, "exclusiveMaximum", n.exclusive_maximum);
            }
            Kind::Array(a) => {
                if let Some(items) = &a.items {
                    m.insert("items", items.to_json());
                }
                put_u64(&mut m, "minItems", a.min_items);
                put_u64(&mut m, "maxItems", a.max_items);
            }
            Kind::Object(o) => {
                let props: Map = o
                    .properties
                    .iter()
                    .map(|(k, s)| (k.clone(), s.to_json()))
                    .collect();
                m.insert("properties", Value::Object(props));
                if !o.required.is_empty() {
                    m.insert(
                        "required",
                        Value::Array(o.required.iter().map(|r| Value::str(r.clone())).collect()),
                    );
                }
                match &o.additional {
                    Additional::Unstated => {}
                    Additional::Allowed => m.insert("additionalProperties", Value::Bool(true)),
                    Additional::Forbidden => m.insert("additionalProperties", Value::Bool(false)),
                    Additional::Schema(s) => m.insert("additionalProperties", s.to_json()),
                }
                if let Some(c) = &o.conditional {
                    let mut when_props = Map::new();
                    for (field, value) in &c.when {
                        let mut constant = Map::new();
                        constant.insert("const", value.clone());
                        when_props.insert(field.clone(), Value::Object(constant));
                    }
                    let mut when = Map::new();
                    when.insert("properties", Value::Object(when_props));
                    when.insert(
                        "required",
                        Value::Array(c.when.iter().map(|(f, _)| Value::str(f.clone())).collect()),
                    );
                    let mut then = Map::new();
                    then.insert(
                        "required",
                        Value::Array(
                            c.then_required
                                .iter()
                                .map(|r| Value::str(r.clone()))
                                .collect(),
                        ),
                    );
                    m.insert("if", Value::Object(when));
                    m.insert("then", Value::Object(then));
                }
            }
        }
        // `$comment` included: resolving `$ref`s keeps what the author wrote for readers.
        for (k, v) in self.extra.iter().chain(&self.annotations) {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }
}

fn put_u64(m: &mut Map, key: &str, v: Option<u64>) {
    if let Some(v) = v {
        m.insert(key, Value::from(v));
    }
}

fn put_num(m: &mut Map, key: &str, v: Option<Number>) {
    if let Some(v) = v {
        m.insert(key, Value::Number(v));
    }
}

/// Parses schemas of one file into the model, resolving `$ref`s against that file.
pub struct SchemaParser<'a> {
    /// The file the schemas come from (for error positions).
    pub source: &'a SourceText,
    /// The document `$ref` fragments are resolved against.
    pub document: &'a Value,
    /// The pointer of `document` inside the file (a tool file nests it under `inputSchema`).
    pub document_at: Pointer,
    /// Where errors go.
    pub cx: &'a mut Ctxt,
    /// The dialect, from the root `$schema` ([`SchemaParser::parse_root`] sets it).
    pub dialect: Dialect,
    /// Whether a `$ref` was found to be recursive (kept as a reference, so the schema is not
    /// self-contained once resolved).
    pub recursive: bool,
    pub(crate) stack: Vec<Pointer>,
    cycles: BTreeSet<Vec<Pointer>>,
}

const STRING_KEYS: &[&str] = &["enum", "minLength", "maxLength"];
const NUMBER_KEYS: &[&str] = &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];
const ARRAY_KEYS: &[&str] = &["items", "minItems", "maxItems"];
const OBJECT_KEYS: &[&str] = &[
    "properties",
    "required",
    "additionalProperties",
    "if",
    "then",
];
/// Keywords beside which `required` may name properties `properties` does not declare.
const DECLARING_KEYS: &[&str] = &[
    "allOf",
    "anyOf",
    "oneOf",
    "patternProperties",
    "if",
    "dependentSchemas",
    "dependencies",
    "not",
];

impl<'a> SchemaParser<'a> {
    /// A parser for `document`, found at `document_at` in `source`.
    pub fn new(
        source: &'a SourceText,
        document: &'a Value,
        document_at: Pointer,
        cx: &'a mut Ctxt,
    ) -> Self {
        SchemaParser {
            source,
            document,
            document_at,
            cx,
            dialect: Dialect::default(),
            recursive: false,
            stack: Vec::new(),
            cycles: BTreeSet::new(),
        }
    }

    /// Parses the whole document as a root schema, which must be `"type": "object"`.
    pub fn parse_root(&mut self) -> Option<Schema> {
        let at = self.document_at.clone();
        let schema = self.parse_document(true)?;
        if !matches!(schema.kind, Kind::Object(_)) {
            self.err(
                &at,
                format!(
                    "the root of a tool schema must be `\"type\": \"object\"`, found {}",
                    describe_type(&schema)
                ),
            );
            return None;
        }
        Some(schema)
    }

    /// Parses the whole document as a schema of any type (`$schema` read, `$defs` and
    /// `definitions` checked): the root of a tool schema without its object requirement,
    /// for a schema that is not a tool's (the JSON-Schema-Test-Suite's). A boolean document
    /// is accepted unless `object_only`.
    pub fn parse_document(&mut self, object_only: bool) -> Option<Schema> {
        let document = self.document;
        let at = self.document_at.clone();
        if let Some(uri) = document.as_object().and_then(|m| m.get("$schema")) {
            match uri.as_str().and_then(Dialect::from_uri) {
                Some(d) => self.dialect = d,
                None => self.err(
                    &at.key("$schema"),
                    format!(
                        "`$schema` {uri} is outside the accepted subset (accepted: https://json-schema.org/draft/2020-12/schema and http://json-schema.org/draft-07/schema#)"
                    ),
                ),
            }
        }
        // Definitions are checked on their own; only a recursion reached from the root
        // makes the schema recursive.
        let reached = self.recursive;
        for key in ["$defs", "definitions"] {
            if let Some(defs) = document.as_object().and_then(|m| m.get(key)) {
                match defs {
                    Value::Object(defs) => {
                        for (name, def) in defs.iter() {
                            let p = at.key(key).key(name);
                            self.stack.push(p.clone());
                            self.parse(def, &p, false);
                            self.stack.pop();
                        }
                    }
                    _ => self.err(
                        &at.key(key),
                        format!("`{key}` must be an object of schemas"),
                    ),
                }
            }
        }
        self.recursive = reached;
        if !object_only && let Value::Bool(_) = document {
            return self.parse(document, &at, false);
        }
        self.parse(document, &at, true)
    }

    pub(crate) fn err(&mut self, at: &Pointer, message: impl Into<String>) {
        self.cx.at(self.source, at, message);
    }

    pub(crate) fn warn(&mut self, at: &Pointer, message: impl Into<String>) {
        self.cx.warn_at(self.source, at, message);
    }

    /// Parses one schema at `at` (a pointer inside the file): what the typed model holds goes
    /// into its [`Kind`], every other keyword of the subset into [`Schema::extra`], and
    /// annotations into [`Schema::annotations`].
    pub fn parse(&mut self, value: &Value, at: &Pointer, is_root: bool) -> Option<Schema> {
        let obj = match value {
            Value::Object(obj) => obj,
            Value::Bool(b) if !is_root => {
                let mut s = Schema::any();
                if !b {
                    s.extra.push(("not".to_string(), Value::Object(Map::new())));
                }
                return Some(s);
            }
            _ => {
                self.err(
                    at,
                    format!(
                        "a schema must be a JSON object, found {}",
                        value.type_name()
                    ),
                );
                return None;
            }
        };
        if let Some(reference) = obj.get("$ref") {
            return self.parse_ref(obj, reference, at);
        }
        let ty: Option<&str> = match obj.get("type") {
            None => None,
            Some(Value::String(t))
                if matches!(
                    t.as_str(),
                    "object" | "string" | "integer" | "number" | "boolean" | "array"
                ) =>
            {
                Some(t.as_str())
            }
            Some(v) => match check_type(v) {
                Ok(_) => None,
                Err(m) => {
                    self.err(&at.key("type"), m);
                    return None;
                }
            },
        };
        let typed = self.typed_keys(obj, ty);
        let mut typed_obj = Map::new();
        let mut extra = Vec::new();
        let mut annotations = Vec::new();
        let mut ok = true;
        let mut title = None;
        let mut description = None;
        for (key, v) in obj.iter() {
            let p = at.key(key);
            match key {
                "type" => {
                    if ty.is_none() {
                        extra.push((key.to_string(), v.clone()));
                    }
                }
                "title" => title = self.opt_string(obj, key, at, &mut ok),
                "description" => description = self.opt_string(obj, key, at, &mut ok),
                "default" => {}
                "$defs" | "definitions" if is_root => {}
                "$schema" if is_root => annotations.push((key.to_string(), v.clone())),
                k if typed.contains(&k) => typed_obj.insert(k, v.clone()),
                "required" if ty == Some("object") && !required_all_declared(obj, &p, self) => {
                    if let Some(kept) = self.raw_keyword(obj, key, v, at) {
                        extra.push((key.to_string(), kept));
                    }
                }
                k => {
                    if validation_shape(k, self.dialect).is_some()
                        && let Some(owner) = keyword_owner(k)
                        && ty.is_some_and(|t| !owner_is(k, t))
                    {
                        self.warn(
                            &p,
                            format!(
                                "keyword `{k}` applies to {owner}, but this schema is a {}: it has no effect",
                                ty.unwrap_or("value")
                            ),
                        );
                    }
                    let is_validation = validation_shape(k, self.dialect).is_some();
                    if let Some(kept) = self.raw_keyword(obj, k, v, at) {
                        if is_validation {
                            extra.push((k.to_string(), kept));
                        } else {
                            annotations.push((k.to_string(), kept));
                        }
                    }
                }
            }
        }
        let kind = match ty {
            None => Kind::Any,
            Some("boolean") => Kind::Boolean,
            Some("string") => Kind::String(self.string_rules(&typed_obj, at, &mut ok)),
            Some("integer") => Kind::Integer(self.number_rules(&typed_obj, at, &mut ok)),
            Some("number") => Kind::Number(self.number_rules(&typed_obj, at, &mut ok)),
            Some("array") => Kind::Array(self.array_rules(&typed_obj, at, &mut ok)?),
            Some("object") => Kind::Object(self.object_rules(&typed_obj, at, &mut ok)?),
            Some(_) => return None,
        };
        // A recursive `$ref` stays a reference: the root keeps the definitions beside it (as
        // annotations), so its resolved form is still self-contained and the run-time
        // validator can follow the reference (`validate`).
        if is_root && self.recursive {
            for key in ["$defs", "definitions"] {
                if let Some(defs) = obj.get(key) {
                    annotations.push((key.to_string(), defs.clone()));
                }
            }
        }
        let mut schema = Schema {
            title,
            description,
            default: obj.get("default").cloned(),
            kind,
            extra,
            annotations,
        };
        self.check_default(&mut schema, at);
        // An error is recorded in `cx`; the schema is still returned so that checks of the
        // enclosing schema do not cascade into errors that only restate this one.
        let _ = ok;
        Some(schema)
    }

    /// Which keywords of `obj` the typed kind of `ty` holds; the rest are raw.
    fn typed_keys(&self, obj: &Map, ty: Option<&str>) -> Vec<&'static str> {
        let mut keys: Vec<&'static str> = match ty {
            Some("string") => STRING_KEYS.to_vec(),
            Some("integer" | "number") => NUMBER_KEYS.to_vec(),
            Some("array") => ARRAY_KEYS.to_vec(),
            Some("object") => OBJECT_KEYS.to_vec(),
            _ => Vec::new(),
        };
        let keep = |k: &str, fits: bool, keys: &mut Vec<&'static str>| {
            if !fits {
                keys.retain(|x| *x != k);
            }
        };
        if let Some(e) = obj.get("enum") {
            let fits = match e {
                Value::Array(items) if !items.is_empty() => {
                    let strings: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                    let distinct: BTreeSet<&str> = strings.iter().copied().collect();
                    strings.len() == items.len() && distinct.len() == items.len()
                }
                _ => true,
            };
            keep("enum", fits, &mut keys);
        }
        if let Some(items) = obj.get("items") {
            // Beside `prefixItems`, `items` is the schema of the items after them, which the
            // typed model (one schema for every item) cannot hold.
            let beside_prefix =
                obj.contains_key("prefixItems") && self.dialect == Dialect::Draft202012;
            let fits = !(matches!(items, Value::Array(_)) || beside_prefix);
            keep("items", fits, &mut keys);
        }
        // Beside `patternProperties`, `additionalProperties` is about the properties no
        // pattern matches either: both stay raw, judged together.
        if obj.contains_key("patternProperties") {
            keep("additionalProperties", false, &mut keys);
        }
        if ty == Some("object") {
            let declared = props_of(obj);
            let has_declaring = DECLARING_KEYS.iter().any(|k| obj.contains_key(k));
            if let Some(Value::Array(req)) = obj.get("required") {
                let all_declared = req
                    .iter()
                    .all(|r| r.as_str().is_some_and(|n| declared.contains(n)));
                keep("required", all_declared, &mut keys);
                let _ = has_declaring;
            }
            let fits = match (obj.get("if"), obj.get("then")) {
                (Some(w), Some(t)) => {
                    !obj.contains_key("else") && conditional_fits(obj, w, t, &declared)
                }
                _ => false,
            };
            keep("if", fits, &mut keys);
            keep("then", fits, &mut keys);
        }
        keys
    }

    /// A default its own schema refuses is accepted, as clients accept it, with a warning;
    /// the typed model drops it (generated code could not hold it), the served schema keeps it.
    fn check_default(&mut self, schema: &mut Schema, at: &Pointer) {
        let Some(default) = schema.default.clone() else {
            return;
        };
        let mut without_default = schema.clone();
        without_default.default = None;
        if let Some(v) = validate::validate_value(&without_default, &default, "the default")
            .into_iter()
            .next()
        {
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

    fn parse_ref(&mut self, obj: &Map, reference: &Value, at: &Pointer) -> Option<Schema> {
        let Some(text) = reference.as_str() else {
            self.err(&at.key("$ref"), "`$ref` must be a string");
            return None;
        };
        let target_at = self.ref_target(text, &at.key("$ref"))?;
        let value = walk(self.document, &strip(&target_at, &self.document_at))?;
        let mut schema = if let Some(start) = self.stack.iter().position(|p| *p == target_at) {
            let members: Vec<Pointer> = self.stack[start..].to_vec();
            let only_refs = members.iter().all(|m| {
                walk(self.document, &strip(m, &self.document_at))
                    .and_then(Value::as_object)
                    .is_some_and(|o| o.contains_key("$ref"))
            });
            if only_refs {
                self.report_cycle(members);
                return None;
            }
            // A recursive definition: the typed model cannot hold it; it stays a reference.
            self.recursive = true;
            let mut s = Schema::any();
            s.extra.push(("$ref".to_string(), reference.clone()));
            s
        } else {
            self.stack.push(target_at.clone());
            let resolved = self.parse(value, &target_at, false);
            self.stack.pop();
            resolved?
        };
        let mut ok = true;
        for (key, v) in obj.iter() {
            match key {
                "$ref" => {}
                "description" => {
                    if let Some(d) = self.opt_string(obj, key, at, &mut ok) {
                        schema.description = Some(d);
                    }
                }
                "title" => {
                    if let Some(t) = self.opt_string(obj, key, at, &mut ok) {
                        schema.title = Some(t);
                    }
                }
                "default" => {
                    schema.default = Some(v.clone());
                    schema.annotations.retain(|(k, _)| k != "default");
                }
                k => {
                    // In draft-07, `$ref` hides the keywords beside it: they are kept and
                    // served, not validated.
                    let is_validation = validation_shape(k, self.dialect).is_some()
                        && self.dialect != Dialect::Draft07;
                    if let Some(kept) = self.raw_keyword(obj, k, v, at) {
                        if is_validation {
                            schema.extra.push((k.to_string(), kept));
                        } else {
                            schema.annotations.push((k.to_string(), kept));
                        }
                    }
                }
            }
        }
        self.check_default(&mut schema, at);
        Some(schema)
    }

    fn report_cycle(&mut self, mut members: Vec<Pointer>) {
        // Report each cycle once, from its smallest member, whichever member the walk
        // entered it by.
        let first = members
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.cmp(b.1))
            .map_or(0, |(i, _)| i);
        members.rotate_left(first);
        if self.cycles.insert(members.clone()) {
            let names: Vec<String> = members
                .iter()
                .chain(members.first())
                .map(|p| format!("#{}", strip(p, &self.document_at)))
                .collect();
            let at = members[0].key("$ref");
            self.err(&at, format!("`$ref` cycle: {}", names.join(" -> ")));
        }
    }
    fn opt_string(&mut self, obj: &Map, key: &str, at: &Pointer, ok: &mut bool) -> Option<String> {
        match obj.get(key)? {
            Value::String(s) => Some(s.clone()),
            other => {
                self.err(
                    &at.key(key),
                    format!("`{key}` must be a string, found {}", other.type_name()),
                );
                *ok = false;
                None
            }
        }
    }

    fn opt_count(&mut self, obj: &Map, key: &str, at: &Pointer, ok: &mut bool) -> Option<u64> {
        let v = obj.get(key)?;
        match v {
            Value::Number(n) if n.as_u64().is_some() => n.as_u64(),
            _ => {
                self.err(
                    &at.key(key),
                    format!("`{key}` must be a non-negative integer, found {v}"),
                );
                *ok = false;
                None
            }
        }
    }

    fn opt_number(&mut self, obj: &Map, key: &str, at: &Pointer, ok: &mut bool) -> Option<Number> {
        match obj.get(key)? {
            Value::Number(n) => Some(*n),
            other => {
                self.err(
                    &at.key(key),
                    format!("`{key}` must be a number, found {}", other.type_name()),
                );
                *ok = false;
                None
            }
        }
    }

    fn string_rules(&mut self, obj: &Map, at: &Pointer, ok: &mut bool) -> StringRules {
        let mut rules = StringRules {
            enum_values: None,
            min_length: self.opt_count(obj, "minLength", at, ok),
            max_length: self.opt_count(obj, "maxLength", at, ok),
        };
        if let (Some(lo), Some(hi)) = (rules.min_length, rules.max_length)
            && lo > hi
        {
            self.err(
                &at.key("minLength"),
                format!("`minLength` {lo} is greater than `maxLength` {hi}"),
            );
            *ok = false;
        }
        if let Some(e) = obj.get("enum") {
            let p = at.key("enum");
            match e {
                Value::Array(items) if !items.is_empty() => {
                    let mut values = Vec::with_capacity(items.len());
                    let mut seen = BTreeSet::new();
                    for (i, item) in items.iter().enumerate() {
                        match item {
                            Value::String(s) => {
                                if !seen.insert(s.as_str()) {
                                    self.err(
                                        &p.index(i),
                                        format!("enum value \"{s}\" is listed twice"),
                                    );
                                    *ok = false;
                                }
                                values.push(s.clone());
                            }
                            other => {
                                self.err(
                                    &p.index(i),
                                    format!(
                                        "enum values must be strings, found {}",
                                        other.type_name()
                                    ),
                                );
                                *ok = false;
                            }
                        }
                    }
                    rules.enum_values = Some(values);
                }
                Value::Array(_) => {
                    self.err(&p, "`enum` must list at least one value");
                    *ok = false;
                }
                other => {
                    self.err(
                        &p,
                        format!("`enum` must be an array, found {}", other.type_name()),
                    );
                    *ok = false;
                }
            }
        }
        rules
    }

    fn number_rules(&mut self, obj: &Map, at: &Pointer, ok: &mut bool) -> NumberRules {
        let rules = NumberRules {
            minimum: self.opt_number(obj, "minimum", at, ok),
            maximum: self.opt_number(obj, "maximum", at, ok),
            exclusive_minimum: self.opt_number(obj, "exclusiveMinimum", at, ok),
            exclusive_maximum: self.opt_number(obj, "exclusiveMaximum", at, ok),
        };
        if let (Some(lo), Some(hi)) = (rules.minimum, rules.maximum)
            && lo.as_f64() > hi.as_f64()
        {
            self.err(
                &at.key("minimum"),
                format!("`minimum` {lo} is greater than `maximum` {hi}"),
            );
            *ok = false;
        }
        rules
    }

    fn array_rules(&mut self, obj: &Map, at: &Pointer, ok: &mut bool) -> Option<ArrayRules> {
        let items = match obj.get("items") {
            None => None,
            Some(v) => Some(Box::new(self.parse(v, &at.key("items"), false)?)),
        };
        let rules = ArrayRules {
            items,
            min_items: self.opt_count(obj, "minItems", at, ok),
            max_items: self.opt_count(obj, "maxItems", at, ok),
        };
        if let (Some(lo), Some(hi)) = (rules.min_items, rules.max_items)
            && lo > hi
        {
            self.err(
                &at.key("minItems"),
                format!("`minItems` {lo} is greater than `maxItems` {hi}"),
            );
            *ok = false;
        }
        Some(rules)
    }

    fn object_rules(&mut self, obj: &Map, at: &Pointer, ok: &mut bool) -> Option<ObjectRules> {
        let mut rules = ObjectRules::default();
        match obj.get("properties") {
            None => {}
            Some(Value::Object(props)) => {
                let p = at.key("properties");
                for (name, value) in props.iter() {
                    match self.parse(value, &p.key(name), false) {
                        Some(s) => rules.properties.push((name.to_string(), s)),
                        None => *ok = false,
                    }
                }
            }
            Some(other) => {
                self.err(
                    &at.key("properties"),
                    format!(
                        "`properties` must be an object of schemas, found {}",
                        other.type_name()
                    ),
                );
                *ok = false;
            }
        }
        let declared: BTreeSet<&str> = props_of(obj);
        rules.required = self.name_list(obj, "required", at, &declared, "required", ok);
        rules.additional = match obj.get("additionalProperties") {
            None => Additional::Unstated,
            Some(Value::Bool(true)) => Additional::Allowed,
            Some(Value::Bool(false)) => Additional::Forbidden,
            Some(v @ Value::Object(_)) => Additional::Schema(Box::new(self.parse(
                v,
                &at.key("additionalProperties"),
                false,
            )?)),
            Some(other) => {
                self.err(
                    &at.key("additionalProperties"),
                    format!(
                        "`additionalProperties` must be true, false or a schema, found {}",
                        other.type_name()
                    ),
                );
                *ok = false;
                Additional::Unstated
            }
        };
        match (obj.get("if"), obj.get("then")) {
            (None, None) => {}
            (Some(_), None) => {
                self.err(&at.key("if"), "`if` needs a `then`");
                *ok = false;
            }
            (None, Some(_)) => {
                self.err(&at.key("then"), "`then` needs an `if`");
                *ok = false;
            }
            (Some(when), Some(then)) => {
                rules.conditional = self.conditional(when, then, at, &rules, &declared, ok);
            }
        }
        Some(rules)
    }

    fn name_list(
        &mut self,
        obj: &Map,
        key: &str,
        at: &Pointer,
        declared: &BTreeSet<&str>,
        what: &str,
        ok: &mut bool,
    ) -> Vec<String> {
        let Some(v) = obj.get(key) else {
            return Vec::new();
        };
        let p = at.key(key);
        let Value::Array(items) = v else {
            self.err(
                &p,
                format!(
                    "`{key}` must be an array of property names, found {}",
                    v.type_name()
                ),
            );
            *ok = false;
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(name) if !declared.contains(name) => {
                    self.err(
                        &p.index(i),
                        format!("{what} field `{name}` is not declared in `properties`"),
                    );
                    *ok = false;
                }
                Some(name) if out.iter().any(|o| o == name) => {
                    self.err(&p.index(i), format!("`{name}` is listed twice"));
                    *ok = false;
                }
                Some(name) => out.push(name.to_string()),
                None => {
                    self.err(&p.index(i), "property names must be strings");
                    *ok = false;
                }
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn conditional(
        &mut self,
        when: &Value,
        then: &Value,
        at: &Pointer,
        rules: &ObjectRules,
        declared: &BTreeSet<&str>,
        ok: &mut bool,
    ) -> Option<Conditional> {
        let shape = "`if` must have the shape {\"properties\": {\"field\": {\"const\": value}}, \"required\": [\"field\"]}";
        let if_at = at.key("if");
        let Some(when) = when.as_object() else {
            self.err(&if_at, shape);
            *ok = false;
            return None;
        };
        for key in when.keys() {
            if key != "properties" && key != "required" {
                self.err(
                    &if_at.key(key),
                    format!("keyword `{key}` inside `if`: {shape}"),
                );
                *ok = false;
                return None;
            }
        }
        let Some(Value::Object(props)) = when.get("properties") else {
            self.err(&if_at, shape);
            *ok = false;
            return None;
        };
        let mut conditions = Vec::new();
        for (field, cond) in props.iter() {
            let p = if_at.key("properties").key(field);
            if !declared.contains(field) {
                self.err(
                    &p,
                    format!("`if` tests `{field}`, which is not a declared property"),
                );
                *ok = false;
                continue;
            }
            match cond.as_object() {
                Some(c) if c.len() == 1 && c.contains_key("const") => {
                    let value = c.get("const").cloned().unwrap_or(Value::Null);
                    let violation = rules.property(field).and_then(|property| {
                        validate::validate_value(property, &value, "the constant")
                            .into_iter()
                            .next()
                    });
                    if let Some(v) = violation {
                        self.err(
                            &p.key("const"),
                            format!("this constant can never match `{field}`: {}", v.message),
                        );
                        *ok = false;
                    }
                    conditions.push((field.to_string(), value));
                }
                _ => {
                    self.err(&p, shape);
                    *ok = false;
                }
            }
        }
        let tested: BTreeSet<&str> = props.keys().collect();
        let required = self.name_list(when, "required", &if_at, &tested, "tested", ok);
        for (field, _) in &conditions {
            if !required.contains(field) {
                self.err(
                    &if_at.key("required"),
                    format!(
                        "`if` must list `{field}` in its `required`, else the condition holds whenever the field is absent"
                    ),
                );
                *ok = false;
            }
        }
        let then_at = at.key("then");
        let Some(then) = then.as_object() else {
            self.err(&then_at, "`then` must be {\"required\": [...]}");
            *ok = false;
            return None;
        };
        for key in then.keys() {
            if key != "required" {
                self.err(
                    &then_at.key(key),
                    format!("keyword `{key}` inside `then`: only `required` is accepted"),
                );
                *ok = false;
            }
        }
        let then_required = self.name_list(then, "required", &then_at, declared, "required", ok);
        if conditions.is_empty() || then_required.is_empty() {
            self.err(
                &if_at,
                "an `if`/`then` must test at least one field and require at least one",
            );
            *ok = false;
            return None;
        }
        Some(Conditional {
            when: conditions,
            then_required,
        })
    }
}

fn props_of(obj: &Map) -> BTreeSet<&str> {
    obj.get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().collect())
        .unwrap_or_default()
}

/// Follows `pointer` inside `value`.
pub fn walk<'v>(value: &'v Value, pointer: &Pointer) -> Option<&'v Value> {
    let mut cur = value;
    for seg in &pointer.0 {
        cur = match (seg, cur) {
            (Seg::Key(k), Value::Object(m)) => m.get(k)?,
            (Seg::Key(k), Value::Array(a)) => a.get(k.parse::<usize>().ok()?)?,
            (Seg::Index(i), Value::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn keyword_owner(key: &str) -> Option<&'static str> {
    if STRING_KEYS.contains(&key) {
        Some("a string (`\"type\": \"string\"`)")
    } else if NUMBER_KEYS.contains(&key) {
        Some("an integer or a number")
    } else if ARRAY_KEYS.contains(&key) {
        Some("an array (`\"type\": \"array\"`)")
    } else if OBJECT_KEYS.contains(&key) {
        Some("an object (`\"type\": \"object\"`)")
    } else {
        None
    }
}

/// Whether keyword `key` applies to values of JSON type `ty` (an object keyword beside
/// `"type": "object"` has an effect; beside `"type": "string"` it has none).
fn owner_is(key: &str, ty: &str) -> bool {
    (STRING_KEYS.contains(&key) && ty == "string")
        || (NUMBER_KEYS.contains(&key) && matches!(ty, "integer" | "number"))
        || (ARRAY_KEYS.contains(&key) && ty == "array")
        || (OBJECT_KEYS.contains(&key) && ty == "object")
}

fn describe_type(schema: &Schema) -> String {
    match schema.type_name() {
        "any" => "a schema without a type".to_string(),
        t => format!("`\"type\": \"{t}\"`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::to_compact;
    use std::path::PathBuf;

    fn parse(text: &str) -> (Option<Schema>, Vec<String>) {
        let source = SourceText {
            path: PathBuf::from("t.json"),
            text: text.to_string(),
        };
        let doc: Value = serde_json::from_str(text).unwrap();
        let mut cx = Ctxt::new();
        let schema = SchemaParser::new(&source, &doc, Pointer::root(), &mut cx).parse_root();
        let errors = match cx.finish(()) {
            Ok(()) => Vec::new(),
            Err(e) => e.0.iter().map(ToString::to_string).collect(),
        };
        (schema, errors)
    }

    #[test]
    fn resolves_refs_and_writes_canonical_order() {
        let (schema, errors) = parse(
            r##"{"additionalProperties":false,"type":"object","$defs":{"s":{"enum":["a","b"],"type":"string"}},
                "properties":{"x":{"$ref":"#/$defs/s","description":"X"}},"required":["x"]}"##,
        );
        assert!(errors.is_empty(), "{errors:?}");
        let json = schema.unwrap().to_json();
        assert_eq!(
            json.to_string(),
            r#"{"type":"object","properties":{"x":{"type":"string","description":"X","enum":["a","b"]}},"required":["x"],"additionalProperties":false}"#
        );
    }

    #[test]
    fn reports_every_error_with_position() {
        let (_, errors) = parse(
            "{\"type\":\"object\",\n \"properties\":{\"a\":{\"type\":\"string\",\"$id\":\"x\"},\n \"b\":{\"oneOf\":[]}},\n \"required\":[\"c\"]}",
        );
        assert_eq!(
            errors,
            vec![
                "t.json:2:37: at /properties/a/$id: keyword `$id`: `$id` (schema identifiers and remote resolution) is outside the accepted subset",
                "t.json:3:7: at /properties/b/oneOf: `oneOf` must be a non-empty array of schemas",
            ]
        );
        // A required field `properties` does not declare is legal JSON Schema: a warning.
        let (_, _, warnings) = parse_warn(r#"{"type":"object","required":["c"]}"#);
        assert_eq!(
            warnings,
            vec!["t.json:1:30: at /required/0: required field `c` is not declared in `properties`"]
        );
    }

    fn parse_warn(text: &str) -> (Option<Schema>, Vec<String>, Vec<String>) {
        let source = SourceText {
            path: PathBuf::from("t.json"),
            text: text.to_string(),
        };
        let doc: Value = serde_json::from_str(text).unwrap();
        let mut cx = Ctxt::new();
        let schema = SchemaParser::new(&source, &doc, Pointer::root(), &mut cx).parse_root();
        let warnings = cx.warnings().iter().map(ToString::to_string).collect();
        let errors = match cx.finish(()) {
            Ok(()) => Vec::new(),
            Err(e) => e.0.iter().map(ToString::to_string).collect(),
        };
        (schema, errors, warnings)
    }

    #[test]
    fn keeps_what_the_typed_model_does_not_hold() {
        let (schema, errors, warnings) = parse_warn(
            r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
                "properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}],"x-ui":1},
                "b":{"type":"string","pattern":"^a","format":"uri","nullable":true},
                "c":{"type":["integer","null"]},"d":{"const":3}},"propertyNames":{"pattern":"^[a-z]$"}}"##,
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].contains("`x-ui` is not a JSON Schema keyword"),
            "{warnings:?}"
        );
        let schema = schema.unwrap();
        let obj = schema.as_object().unwrap();
        assert_eq!(obj.property("a").unwrap().extra[0].0, "anyOf");
        assert_eq!(obj.property("b").unwrap().extra[0].0, "pattern");
        assert_eq!(schema.extra[0].0, "propertyNames");
        let untyped: Vec<(String, String)> = schema
            .untyped_keywords()
            .into_iter()
            .map(|(k, p)| (k, p.to_string()))
            .collect();
        assert_eq!(
            untyped[0],
            ("propertyNames".to_string(), "/propertyNames".to_string())
        );
        assert!(untyped.contains(&("pattern".to_string(), "/properties/b/pattern".to_string())));
        let d = obj.property("d").unwrap();
        assert!(d.admits_literal(&Value::from(3u64)));
        assert!(!d.admits_literal(&Value::str("3")));
        assert!(obj.property("a").unwrap().admits_literal(&Value::Null));
        assert!(
            !obj.property("a")
                .unwrap()
                .admits_literal(&Value::Bool(true))
        );
    }

    #[test]
    fn recursive_refs_and_draft7() {
        let (schema, errors, _) = parse_warn(
            r##"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
                "definitions":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/definitions/node"}}}}},
                "properties":{"root":{"$ref":"#/definitions/node"},"pair":{"type":"array","items":[{"type":"string"}],"additionalItems":false}}}"##,
        );
        assert!(errors.is_empty(), "{errors:?}");
        let schema = schema.unwrap();
        assert!(!schema.untyped_keywords().is_empty());
        // The resolved form keeps the definitions its kept `$ref` points into, so it reads
        // back on its own (and a non-recursive schema does not carry them).
        let resolved = to_compact(&schema.to_json());
        assert!(resolved.contains(r#""definitions":{"node""#), "{resolved}");
        let (again, errors, _) = parse_warn(&resolved);
        assert!(errors.is_empty(), "{errors:?}");
        assert!(again.is_some());
        let (flat, _, _) = parse_warn(
            r##"{"type":"object","$defs":{"s":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/s"}}}"##,
        );
        assert!(!to_compact(&flat.unwrap().to_json()).contains("$defs"));
        let (_, errors, _) = parse_warn(
            r#"{"type":"object","properties":{"pair":{"type":"array","items":[{"type":"string"}]}}}"#,
        );
        assert!(
            errors[0].contains("array-form `items` is draft-07"),
            "{errors:?}"
        );
    }

    #[test]
    fn detects_ref_cycles_and_missing_targets() {
        let (_, errors) = parse(
            r##"{"type":"object","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},
                "properties":{"x":{"$ref":"#/$defs/a"},"y":{"$ref":"#/$defs/nope"},"z":{"$ref":"other.json#/a"}}}"##,
        );
        let joined = errors.join("\n");
        assert!(
            joined.contains("`$ref` cycle: #/$defs/a -> #/$defs/b -> #/$defs/a"),
            "{joined}"
        );
        assert!(
            joined.contains("`$ref` \"#/$defs/nope\" points at nothing"),
            "{joined}"
        );
        assert!(joined.contains("is not a local reference"), "{joined}");
    }

    #[test]
    fn checks_conditionals_and_defaults() {
        let (schema, errors) = parse(
            r#"{"type":"object","properties":{"k":{"type":"string","enum":["a","b"],"default":"a"},"t":{"type":"string"}},
                "if":{"properties":{"k":{"const":"b"}},"required":["k"]},"then":{"required":["t"]}}"#,
        );
        assert!(errors.is_empty(), "{errors:?}");
        let c = schema
            .unwrap()
            .as_object()
            .unwrap()
            .conditional
            .clone()
            .unwrap();
        assert_eq!(c.when, vec![("k".to_string(), Value::str("b"))]);
        let (_, errors) = parse(
            r#"{"type":"object","properties":{"k":{"type":"string","enum":["a"],"default":"z"}},
                "if":{"properties":{"k":{"const":"q"}}},"then":{"required":["k"]}}"#,
        );
        // Both are legal JSON Schema: the default is a warning, the `if`/`then` is kept raw.
        assert!(errors.is_empty(), "{errors:?}");
        let (schema, _, warnings) = parse_warn(
            r#"{"type":"object","properties":{"k":{"type":"string","enum":["a"],"default":"z"}},
                "if":{"properties":{"k":{"const":"q"}}},"then":{"required":["k"]}}"#,
        );
        assert!(
            warnings
                .join("\n")
                .contains("the default does not match the schema"),
            "{warnings:?}"
        );
        let schema = schema.unwrap();
        assert_eq!(schema.extra[0].0, "if");
        assert_eq!(
            schema.as_object().unwrap().property("k").unwrap().default,
            None
        );
    }

    #[test]
    fn root_must_be_an_object() {
        let (_, errors) = parse(r#"{"type":"string"}"#);
        assert_eq!(
            errors,
            vec![
                "t.json:1:1: at (root): the root of a tool schema must be `\"type\": \"object\"`, found `\"type\": \"string\"`"
            ]
        );
    }
}
