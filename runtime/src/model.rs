//! The accepted JSON Schema subset as a typed model, its parser and its canonical writer.
//!
//! The subset is what the bundled surfaces use and no more (see `docs/catalog-format.md`).
//! Parsing resolves local `$ref`s, so a [`Schema`] is always self-contained; anything outside
//! the subset is an error at its JSON pointer.

use std::collections::BTreeSet;

use crate::diag::{Ctxt, SourceText};
use crate::json::{Map, Number, Value};
use crate::locate::{Pointer, Seg};
use crate::validate;

/// A schema of the accepted subset, with every `$ref` resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    /// `title`
    pub title: Option<String>,
    /// `description`
    pub description: Option<String>,
    /// `default`
    pub default: Option<Value>,
    /// What values the schema accepts.
    pub kind: Kind,
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
        }
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
    stack: Vec<Pointer>,
    cycles: BTreeSet<Vec<Pointer>>,
}

const ANY_KEYS: &[&str] = &[
    "description",
    "title",
    "default",
    "$ref",
    "$defs",
    "$comment",
];
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
            stack: Vec::new(),
            cycles: BTreeSet::new(),
        }
    }

    /// Parses the whole document as a root schema, which must be `"type": "object"`.
    pub fn parse_root(&mut self) -> Option<Schema> {
        let document = self.document;
        let at = self.document_at.clone();
        if let Some(defs) = document.as_object().and_then(|m| m.get("$defs")) {
            match defs {
                Value::Object(defs) => {
                    for (name, def) in defs.iter() {
                        let p = at.key("$defs").key(name);
                        self.stack.push(p.clone());
                        self.parse(def, &p, false);
                        self.stack.pop();
                    }
                }
                _ => self.err(&at.key("$defs"), "`$defs` must be an object of schemas"),
            }
        }
        let schema = self.parse(document, &at, true)?;
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

    fn err(&mut self, at: &Pointer, message: impl Into<String>) {
        self.cx.at(self.source, at, message);
    }

    /// Parses one schema at `at` (a pointer inside the file).
    pub fn parse(&mut self, value: &Value, at: &Pointer, is_root: bool) -> Option<Schema> {
        let Value::Object(obj) = value else {
            self.err(
                at,
                format!(
                    "a schema must be a JSON object, found {}",
                    value.type_name()
                ),
            );
            return None;
        };
        if let Some(reference) = obj.get("$ref") {
            return self.parse_ref(obj, reference, at);
        }
        let mut ok = true;
        let title = self.opt_string(obj, "title", at, &mut ok);
        let description = self.opt_string(obj, "description", at, &mut ok);
        if let Some(c) = obj.get("$comment")
            && c.as_str().is_none()
        {
            self.err(&at.key("$comment"), "`$comment` must be a string");
        }
        if !is_root && obj.contains_key("$defs") {
            self.err(
                &at.key("$defs"),
                "`$defs` is accepted only at the root of a schema",
            );
            ok = false;
        }
        let ty = match obj.get("type") {
            None => None,
            Some(Value::String(t)) => match t.as_str() {
                "object" | "string" | "integer" | "number" | "boolean" | "array" => {
                    Some(t.as_str())
                }
                "null" => {
                    self.err(
                        &at.key("type"),
                        "`\"type\": \"null\"` is outside the accepted subset; leave the field optional instead",
                    );
                    return None;
                }
                other => {
                    self.err(
                        &at.key("type"),
                        format!(
                            "unknown type `{other}` (accepted: object, string, integer, number, boolean, array)"
                        ),
                    );
                    return None;
                }
            },
            Some(Value::Array(_)) => {
                self.err(
                    &at.key("type"),
                    "`type` as a list is outside the accepted subset; use one type",
                );
                return None;
            }
            Some(other) => {
                self.err(
                    &at.key("type"),
                    format!("`type` must be a string, found {}", other.type_name()),
                );
                return None;
            }
        };
        let allowed: &[&str] = match ty {
            None => &[],
            Some("string") => STRING_KEYS,
            Some("integer" | "number") => NUMBER_KEYS,
            Some("array") => ARRAY_KEYS,
            Some("object") => OBJECT_KEYS,
            _ => &[],
        };
        for key in obj.keys() {
            if key == "type" || ANY_KEYS.contains(&key) || allowed.contains(&key) {
                continue;
            }
            ok = false;
            let message = if let Some(owner) = keyword_owner(key) {
                format!(
                    "keyword `{key}` applies to {owner}, but this schema is {}",
                    ty.map_or_else(|| "untyped (any value)".to_string(), |t| format!("a {t}"))
                )
            } else {
                let mut accepted: Vec<&str> = ANY_KEYS.to_vec();
                accepted.push("type");
                accepted.extend_from_slice(allowed);
                format!(
                    "keyword `{key}` is outside the accepted JSON Schema subset (accepted here: {})",
                    accepted.join(", ")
                )
            };
            self.err(&at.key(key), message);
        }
        let kind = match ty {
            None => Kind::Any,
            Some("boolean") => Kind::Boolean,
            Some("string") => Kind::String(self.string_rules(obj, at, &mut ok)),
            Some("integer") => Kind::Integer(self.number_rules(obj, at, &mut ok)),
            Some("number") => Kind::Number(self.number_rules(obj, at, &mut ok)),
            Some("array") => Kind::Array(self.array_rules(obj, at, &mut ok)?),
            Some("object") => Kind::Object(self.object_rules(obj, at, &mut ok)?),
            Some(_) => return None,
        };
        let schema = Schema {
            title,
            description,
            default: obj.get("default").cloned(),
            kind,
        };
        if let Some(default) = &schema.default {
            let mut without_default = schema.clone();
            without_default.default = None;
            if let Some(v) = validate::validate_value(&without_default, default, "the default")
                .into_iter()
                .next()
            {
                self.err(
                    &at.key("default"),
                    format!("the default does not match the schema: {}", v.message),
                );
                ok = false;
            }
        }
        // An error is recorded in `cx`; the schema is still returned so that checks of the
        // enclosing schema do not cascade into errors that only restate this one.
        let _ = ok;
        Some(schema)
    }

    fn parse_ref(&mut self, obj: &Map, reference: &Value, at: &Pointer) -> Option<Schema> {
        for key in obj.keys() {
            if !matches!(
                key,
                "$ref" | "description" | "title" | "default" | "$comment"
            ) {
                self.err(
                    &at.key(key),
                    format!(
                        "keyword `{key}` beside `$ref` is outside the accepted subset (only description, title and default may override)"
                    ),
                );
                return None;
            }
        }
        let Some(text) = reference.as_str() else {
            self.err(&at.key("$ref"), "`$ref` must be a string");
            return None;
        };
        let Some(target) = Pointer::parse_fragment(text) else {
            self.err(
                &at.key("$ref"),
                format!(
                    "`$ref` \"{text}\" is not a local reference; only references into the same file (`#/$defs/name`) are accepted"
                ),
            );
            return None;
        };
        let Some(value) = walk(self.document, &target) else {
            self.err(
                &at.key("$ref"),
                format!("`$ref` \"{text}\" points at nothing in this file"),
            );
            return None;
        };
        let mut target_at = self.document_at.clone();
        target_at.0.extend(target.0.iter().cloned());
        if let Some(start) = self.stack.iter().position(|p| *p == target_at) {
            // Report each cycle once, from its smallest member, whichever member the walk
            // entered it by.
            let mut members: Vec<Pointer> = self.stack[start..].to_vec();
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
                    .map(|p| format!("#{}", strip_prefix(p, &self.document_at)))
                    .collect();
                let at = members[0].key("$ref");
                self.err(&at, format!("`$ref` cycle: {}", names.join(" -> ")));
            }
            return None;
        }
        self.stack.push(target_at.clone());
        let resolved = self.parse(value, &target_at, false);
        self.stack.pop();
        let mut schema = resolved?;
        let mut ok = true;
        if let Some(d) = self.opt_string(obj, "description", at, &mut ok) {
            schema.description = Some(d);
        }
        if let Some(t) = self.opt_string(obj, "title", at, &mut ok) {
            schema.title = Some(t);
        }
        if let Some(d) = obj.get("default") {
            schema.default = Some(d.clone());
        }
        let _ = ok;
        Some(schema)
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

fn strip_prefix(p: &Pointer, prefix: &Pointer) -> Pointer {
    Pointer(p.0.iter().skip(prefix.0.len()).cloned().collect())
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

fn describe_type(schema: &Schema) -> String {
    match schema.type_name() {
        "any" => "a schema without a type".to_string(),
        t => format!("`\"type\": \"{t}\"`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
            "{\"type\":\"object\",\n \"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"x\"},\n \"b\":{\"oneOf\":[]}},\n \"required\":[\"c\"]}",
        );
        assert_eq!(
            errors,
            vec![
                "t.json:2:37: at /properties/a/pattern: keyword `pattern` is outside the accepted JSON Schema subset (accepted here: description, title, default, $ref, $defs, $comment, type, enum, minLength, maxLength)",
                "t.json:3:7: at /properties/b/oneOf: keyword `oneOf` is outside the accepted JSON Schema subset (accepted here: description, title, default, $ref, $defs, $comment, type)",
                "t.json:4:14: at /required/0: required field `c` is not declared in `properties`",
            ]
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
        let joined = errors.join("\n");
        assert!(
            joined.contains("the default does not match the schema"),
            "{joined}"
        );
        assert!(
            joined.contains("this constant can never match `k`"),
            "{joined}"
        );
        assert!(
            joined.contains("must list `k` in its `required`"),
            "{joined}"
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
