//! The accepted JSON Schema subset as a typed model: [`Schema`] and its kinds and rules, its
//! canonical writer ([`Schema::to_json`]), the [`Dialect`] a schema is written in, and the
//! state of the [`SchemaParser`] that reads a schema file into it.
//!
//! This is the bottom of the schema modules: it uses only `json`, `locate` and `diag`. Above
//! it, `subset` says which keywords the subset accepts and reads the ones the typed model does
//! not hold, `keywords` evaluates them, `parse` reads the typed part, and `validate`, on top,
//! words a value's refusal (and judges the defaults the parser meets). The parser's methods
//! are written in those modules, each beside what it needs.
//!
//! The subset is what the bundled surfaces use and no more (see `docs/catalog-format.md`).
//! Parsing resolves local `$ref`s, so a [`Schema`] is always self-contained; anything outside
//! the subset is an error at its JSON pointer.

use std::collections::BTreeSet;

use crate::diag::{Ctxt, SourceText};
use crate::json::{Map, Number, Value};
use crate::locate::{Pointer, Seg};

/// The JSON Schema dialect a schema is written in (its root `$schema`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// Draft 2020-12: the default when `$schema` is absent (as MCP 2025-11-25 says).
    #[default]
    Draft202012,
    /// Draft-07: array-form `items`, `additionalItems`, `dependencies` honoured.
    Draft07,
}

impl Dialect {
    /// The dialect a `$schema` URI names, if it is one toolgate accepts.
    pub fn from_uri(uri: &str) -> Option<Dialect> {
        let u = uri.trim_end_matches('#');
        let u = u
            .strip_prefix("https://")
            .or_else(|| u.strip_prefix("http://"))?;
        match u {
            "json-schema.org/draft/2020-12/schema" => Some(Dialect::Draft202012),
            "json-schema.org/draft-07/schema" => Some(Dialect::Draft07),
            _ => None,
        }
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
            m.insert("enum", strings(values));
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
            Kind::Object(o) => put_object(&mut m, o),
        }
        // `$comment` included: resolving `$ref`s keeps what the author wrote for readers.
        for (k, v) in self.extra.iter().chain(&self.annotations) {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }
}

/// The object keywords of [`Schema::to_json`]: `properties`, `required`,
/// `additionalProperties`, and the `if`/`then`.
fn put_object(m: &mut Map, o: &ObjectRules) {
    let props: Map = o
        .properties
        .iter()
        .map(|(k, s)| (k.clone(), s.to_json()))
        .collect();
    m.insert("properties", Value::Object(props));
    if !o.required.is_empty() {
        m.insert("required", strings(&o.required));
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
        then.insert("required", strings(&c.then_required));
        m.insert("if", Value::Object(when));
        m.insert("then", Value::Object(then));
    }
}

/// A list of strings as a JSON array.
fn strings(values: &[String]) -> Value {
    Value::Array(values.iter().map(|v| Value::str(v.clone())).collect())
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

/// Parses schemas of one file into the model, resolving `$ref`s against that file: its
/// state. It reads the typed part in `parse` and the rest of the subset in `subset`.
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
    pub(crate) cycles: BTreeSet<Vec<Pointer>>,
}

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

    pub(crate) fn err(&mut self, at: &Pointer, message: impl Into<String>) {
        self.cx.at(self.source, at, message);
    }

    pub(crate) fn warn(&mut self, at: &Pointer, message: impl Into<String>) {
        self.cx.warn_at(self.source, at, message);
    }
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
