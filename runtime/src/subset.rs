//! The accepted JSON Schema subset, keyword by keyword, for the parts of a schema the typed
//! model does not hold.
//!
//! [`crate::model::SchemaParser`] types what generated code can type (one `type`, string
//! enums, bounds, properties, ...). Every other keyword of the subset (`anyOf`, `const`,
//! `pattern`, a `type` list, ...) is checked here: its value's shape, its subschemas, its
//! `$ref`s (local, resolvable; recursive ones kept as references). What it holds is kept in
//! [`crate::model::Schema::extra`] with `$ref`s inlined, served, and validated at run time by
//! the jsonschema-backed validator of `toolgate-schema`. A keyword outside the subset (`$id`,
//! `$anchor`, `$dynamicRef`, `unevaluated*`, ...) is an error at its place; a key no
//! vocabulary of the dialect defines (`x-...`, OpenAPI's `nullable`) is an annotation: kept,
//! served, not validated, and named in a warning.

use crate::json::{Map, Value};
use crate::locate::Pointer;
use crate::model::{Kind, Schema, SchemaParser, walk};

/// The dialect, kept under its former path (it is a fact of the model).
pub use crate::model::Dialect;

/// What a keyword's value must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One subschema.
    Schema,
    /// A non-empty array of subschemas.
    SchemaArray,
    /// An object of subschemas.
    SchemaMap,
    /// `items`: a subschema (or, in draft-07, an array of them).
    Items,
    /// draft-07 `dependencies`: per property, a subschema or a list of property names.
    Dependencies,
    /// A non-negative integer.
    Count,
    /// A number.
    Number,
    /// A number greater than 0.
    Positive,
    /// `true` or `false`.
    Bool,
    /// A string.
    Text,
    /// A regular expression.
    Pattern,
    /// An array of distinct strings.
    Names,
    /// An object of arrays of distinct strings.
    NamesMap,
    /// Any JSON value.
    Anything,
    /// An array of any JSON values.
    Values,
    /// `type`: one type name or a non-empty list of distinct ones.
    Type,
    /// `$ref`: a local reference.
    Ref,
}

/// Keywords of 2020-12 (and draft-07) that validate: the typed model holds some of them,
/// the rest go to `extra`.
pub(crate) fn validation_shape(key: &str, dialect: Dialect) -> Option<Shape> {
    use Shape::*;
    Some(match key {
        "not" | "if" | "then" | "else" | "additionalProperties" | "propertyNames" | "contains" => {
            Schema
        }
        "anyOf" | "oneOf" | "allOf" => SchemaArray,
        "properties" | "patternProperties" => SchemaMap,
        // 2019-09 keywords: draft-07 has no such keywords (jsonschema's draft-07 ignores them).
        "prefixItems" if dialect == Dialect::Draft202012 => SchemaArray,
        "dependentSchemas" if dialect == Dialect::Draft202012 => SchemaMap,
        "dependentRequired" if dialect == Dialect::Draft202012 => NamesMap,
        "minContains" | "maxContains" if dialect == Dialect::Draft202012 => Count,
        "items" => Items,
        "additionalItems" if dialect == Dialect::Draft07 => Schema,
        "dependencies" if dialect == Dialect::Draft07 => Dependencies,
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            Count
        }
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => Number,
        "multipleOf" => Positive,
        "uniqueItems" => Bool,
        "pattern" => Pattern,
        "required" => Names,
        "const" => Anything,
        "enum" => Values,
        "type" => Type,
        "$ref" => Ref,
        _ => return None,
    })
}

/// Annotation keywords: kept and served, never validated (`format` is asserted only where
/// a catalog opts in, as 2020-12 says).
pub(crate) fn annotation_shape(key: &str) -> Option<Shape> {
    use Shape::*;
    Some(match key {
        "title" | "description" | "$comment" | "format" | "contentMediaType"
        | "contentEncoding" => Text,
        "default" => Anything,
        "examples" => Values,
        "deprecated" | "readOnly" | "writeOnly" => Bool,
        _ => return None,
    })
}

/// Keywords of JSON Schema that toolgate does not accept: an error, never ignored.
pub(crate) fn outside_reason(key: &str, dialect: Dialect) -> Option<&'static str> {
    Some(match key {
        "$id" => "`$id` (schema identifiers and remote resolution) is outside the accepted subset",
        "$anchor" | "$dynamicAnchor" | "$recursiveAnchor" => {
            "anchors are outside the accepted subset; reference `#/$defs/...` instead"
        }
        "$dynamicRef" | "$recursiveRef" => {
            "dynamic references are outside the accepted subset; use `$ref` to `#/$defs/...`"
        }
        "unevaluatedProperties" | "unevaluatedItems" => {
            "`unevaluated*` keywords are outside the accepted subset"
        }
        "$vocabulary" => "`$vocabulary` (custom meta-schemas) is outside the accepted subset",
        "contentSchema" => "`contentSchema` is outside the accepted subset",
        "additionalItems" | "dependencies" if dialect == Dialect::Draft202012 => {
            "this is a draft-07 keyword: name draft-07 in the root `$schema`, or use 2020-12's `prefixItems`/`items` and `dependentRequired`/`dependentSchemas`"
        }
        _ => return None,
    })
}

impl SchemaParser<'_> {
    /// Checks `value`, a subschema at `at` the typed model does not hold, and returns it with
    /// its `$ref`s inlined (a recursive one stays a reference, and the parser notes it).
    pub(crate) fn raw_schema(&mut self, value: &Value, at: &Pointer) -> Value {
        let obj = match value {
            Value::Bool(_) => return value.clone(),
            Value::Object(o) => o,
            other => {
                self.err(
                    at,
                    format!(
                        "a schema must be a JSON object or a boolean, found {}",
                        other.type_name()
                    ),
                );
                return value.clone();
            }
        };
        if let Some(reference) = obj.get("$ref") {
            return self.raw_ref(obj, reference, at);
        }
        let mut out = Map::new();
        for (key, v) in obj.iter() {
            if let Some(kept) = self.raw_keyword(obj, key, v, at) {
                out.insert(key, kept);
            }
        }
        Value::Object(out)
    }

    /// Checks one keyword of a raw schema; `None` drops it from the resolved form (`$defs`).
    pub(crate) fn raw_keyword(
        &mut self,
        obj: &Map,
        key: &str,
        v: &Value,
        at: &Pointer,
    ) -> Option<Value> {
        let p = at.key(key);
        if key == "$defs" || key == "definitions" {
            self.raw_defs(v, &p);
            return None;
        }
        if key == "$schema" {
            if at.0.len() > self.document_at.0.len() {
                self.err(&p, "`$schema` is accepted only at the root of a schema");
            }
            return Some(v.clone());
        }
        if let Some(reason) = outside_reason(key, self.dialect) {
            self.err(&p, format!("keyword `{key}`: {reason}"));
            return None;
        }
        if let Some(shape) = validation_shape(key, self.dialect) {
            return Some(self.raw_value(obj, key, shape, v, &p));
        }
        if let Some(shape) = annotation_shape(key) {
            self.check_shape(key, shape, v, &p);
            return Some(v.clone());
        }
        self.unknown_key(key, &p);
        Some(v.clone())
    }

    /// A key no vocabulary defines: kept as an annotation, with a warning.
    pub(crate) fn unknown_key(&mut self, key: &str, p: &Pointer) {
        self.warn(
            p,
            format!(
                "`{key}` is not a JSON Schema keyword: kept and served as an annotation, never validated"
            ),
        );
    }

    fn raw_defs(&mut self, v: &Value, p: &Pointer) {
        match v {
            Value::Object(defs) => {
                let reached = self.recursive;
                for (name, def) in defs.iter() {
                    let dp = p.key(name);
                    self.stack.push(dp.clone());
                    self.raw_schema(def, &dp);
                    self.stack.pop();
                }
                self.recursive = reached;
            }
            _ => self.err(p, "definitions must be an object of schemas"),
        }
    }

    /// A validation keyword's value, checked by its shape, with its subschemas read raw.
    fn raw_value(&mut self, obj: &Map, key: &str, shape: Shape, v: &Value, p: &Pointer) -> Value {
        match shape {
            Shape::Schema => self.raw_schema(v, p),
            Shape::SchemaArray => match v {
                Value::Array(items) if !items.is_empty() => self.raw_schemas(items, p),
                _ => {
                    self.err(p, format!("`{key}` must be a non-empty array of schemas"));
                    v.clone()
                }
            },
            Shape::SchemaMap => match v {
                Value::Object(m) => Value::Object(
                    m.iter()
                        .map(|(k, s)| (k.to_string(), self.raw_schema(s, &p.key(k))))
                        .collect(),
                ),
                _ => {
                    self.err(p, format!("`{key}` must be an object of schemas"));
                    v.clone()
                }
            },
            Shape::Items => match v {
                Value::Array(items) if self.dialect == Dialect::Draft07 => {
                    self.raw_schemas(items, p)
                }
                Value::Array(_) => {
                    self.err(
                        p,
                        "array-form `items` is draft-07: use `prefixItems` in 2020-12, or name draft-07 in the root `$schema`",
                    );
                    v.clone()
                }
                _ => self.raw_schema(v, p),
            },
            Shape::Dependencies => self.raw_dependencies(key, v, p),
            Shape::Ref => {
                // Only reached for a `$ref` beside other keywords in raw form.
                let _ = obj;
                v.clone()
            }
            other => {
                self.check_shape(key, other, v, p);
                v.clone()
            }
        }
    }

    /// An array of subschemas, each read raw at its index.
    fn raw_schemas(&mut self, items: &[Value], p: &Pointer) -> Value {
        Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, s)| self.raw_schema(s, &p.index(i)))
                .collect(),
        )
    }

    /// draft-07 `dependencies`: per property, a subschema read raw or a list of names.
    fn raw_dependencies(&mut self, key: &str, v: &Value, p: &Pointer) -> Value {
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, d)| {
                        let dp = p.key(k);
                        let out = match d {
                            Value::Array(_) => {
                                self.check_shape(key, Shape::Names, d, &dp);
                                d.clone()
                            }
                            _ => self.raw_schema(d, &dp),
                        };
                        (k.to_string(), out)
                    })
                    .collect(),
            ),
            _ => {
                self.err(
                    p,
                    "`dependencies` must be an object of schemas or property lists",
                );
                v.clone()
            }
        }
    }

    /// Checks a keyword whose value holds no subschema.
    pub(crate) fn check_shape(&mut self, key: &str, shape: Shape, v: &Value, p: &Pointer) {
        let problem: Option<String> = match shape {
            Shape::Count => match v {
                Value::Number(n) if n.as_u64().is_some() => None,
                _ => Some(format!("`{key}` must be a non-negative integer, found {v}")),
            },
            Shape::Number => match v {
                Value::Number(_) => None,
                Value::Bool(_) => Some(format!(
                    "`{key}` must be a number (the boolean form is draft-04, outside the accepted subset)"
                )),
                _ => Some(format!("`{key}` must be a number, found {}", v.type_name())),
            },
            Shape::Positive => match v {
                Value::Number(n) if n.as_f64() > 0.0 => None,
                _ => Some(format!(
                    "`{key}` must be a number greater than 0, found {v}"
                )),
            },
            Shape::Bool => match v {
                Value::Bool(_) => None,
                _ => Some(format!(
                    "`{key}` must be true or false, found {}",
                    v.type_name()
                )),
            },
            Shape::Text | Shape::Pattern => match v {
                Value::String(_) => None,
                _ => Some(format!("`{key}` must be a string, found {}", v.type_name())),
            },
            Shape::Names => self.check_names(key, v, p),
            Shape::NamesMap => match v {
                Value::Object(m) => {
                    for (k, names) in m.iter() {
                        self.check_shape(key, Shape::Names, names, &p.key(k));
                    }
                    None
                }
                _ => Some(format!(
                    "`{key}` must be an object of property-name lists, found {}",
                    v.type_name()
                )),
            },
            Shape::Values => match v {
                Value::Array(_) => None,
                _ => Some(format!("`{key}` must be an array, found {}", v.type_name())),
            },
            Shape::Type => check_type(v).err(),
            Shape::Anything
            | Shape::Schema
            | Shape::SchemaArray
            | Shape::SchemaMap
            | Shape::Items
            | Shape::Dependencies
            | Shape::Ref => None,
        };
        if let Some(m) = problem {
            self.err(p, m);
        }
    }

    /// A list of distinct property names: the last bad item an error at its index, a value
    /// that is no array the problem returned.
    fn check_names(&mut self, key: &str, v: &Value, p: &Pointer) -> Option<String> {
        let Value::Array(items) = v else {
            return Some(format!(
                "`{key}` must be an array of property names, found {}",
                v.type_name()
            ));
        };
        let mut seen = Vec::new();
        let mut bad = None;
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(s) if seen.contains(&s) => {
                    bad = Some((i, format!("`{s}` is listed twice")));
                }
                Some(s) => seen.push(s),
                None => bad = Some((i, "property names must be strings".to_string())),
            }
        }
        if let Some((i, m)) = bad {
            self.err(&p.index(i), m);
        }
        None
    }

    /// A `$ref` in raw form: resolved and inlined, or kept when it is recursive.
    fn raw_ref(&mut self, obj: &Map, reference: &Value, at: &Pointer) -> Value {
        let Some(text) = reference.as_str() else {
            self.err(&at.key("$ref"), "`$ref` must be a string");
            return Value::Object(obj.clone());
        };
        let Some(target_at) = self.ref_target(text, &at.key("$ref")) else {
            return Value::Object(obj.clone());
        };
        let mut siblings = Map::new();
        for (key, v) in obj.iter() {
            if key == "$ref" {
                continue;
            }
            if let Some(kept) = self.raw_keyword(obj, key, v, at) {
                // In draft-07, `$ref` hides the keywords beside it.
                if self.dialect == Dialect::Draft07 && validation_shape(key, self.dialect).is_some()
                {
                    continue;
                }
                siblings.insert(key, kept);
            }
        }
        if self.stack.contains(&target_at) {
            self.recursive = true;
            let mut kept = Map::new();
            kept.insert("$ref", reference.clone());
            for (k, v) in siblings.iter() {
                kept.insert(k, v.clone());
            }
            return Value::Object(kept);
        }
        let Some(target) = walk(self.document, &strip(&target_at, &self.document_at)) else {
            return Value::Object(obj.clone());
        };
        self.stack.push(target_at.clone());
        let resolved = self.raw_schema(target, &target_at);
        self.stack.pop();
        merge_ref(resolved, siblings)
    }

    /// The pointer in the file of the target of `$ref` `text`, or an error at `at`.
    pub(crate) fn ref_target(&mut self, text: &str, at: &Pointer) -> Option<Pointer> {
        let Some(target) = Pointer::parse_fragment(text) else {
            self.err(
                at,
                format!(
                    "`$ref` \"{text}\" is not a local reference; only references into the same file (`#/$defs/name`) are accepted"
                ),
            );
            return None;
        };
        if walk(self.document, &target).is_none() {
            self.err(
                at,
                format!("`$ref` \"{text}\" points at nothing in this file"),
            );
            return None;
        }
        let mut target_at = self.document_at.clone();
        target_at.0.extend(target.0.iter().cloned());
        Some(target_at)
    }
}

/// `p` without the leading `prefix`.
pub(crate) fn strip(p: &Pointer, prefix: &Pointer) -> Pointer {
    Pointer(p.0.iter().skip(prefix.0.len()).cloned().collect())
}

/// The inlined form of `{"$ref": target, ...siblings}`: the target with annotation siblings
/// overriding its own, or `{"allOf": [target], ...siblings}` when a sibling validates.
pub(crate) fn merge_ref(target: Value, siblings: Map) -> Value {
    if siblings.is_empty() {
        return target;
    }
    let only_annotations = siblings.keys().all(|k| annotation_shape(k).is_some());
    match target {
        Value::Object(mut t) if only_annotations => {
            for (k, v) in siblings.iter() {
                t.insert(k, v.clone());
            }
            Value::Object(t)
        }
        other => {
            let mut m = Map::new();
            m.insert("allOf", Value::Array(vec![other]));
            for (k, v) in siblings.iter() {
                m.insert(k, v.clone());
            }
            Value::Object(m)
        }
    }
}

/// The type names a `type` value lists, or why it is not one.
pub(crate) fn check_type(v: &Value) -> Result<Vec<&str>, String> {
    const TYPES: &[&str] = &[
        "object", "string", "integer", "number", "boolean", "array", "null",
    ];
    let names: Vec<&Value> = match v {
        Value::String(_) => vec![v],
        Value::Array(items) if !items.is_empty() => items.iter().collect(),
        Value::Array(_) => return Err("`type` must list at least one type".to_string()),
        other => {
            return Err(format!(
                "`type` must be a type name or a list of them, found {}",
                other.type_name()
            ));
        }
    };
    let mut out = Vec::new();
    for n in names {
        match n.as_str() {
            Some(t) if TYPES.contains(&t) => {
                if out.contains(&t) {
                    return Err(format!("type `{t}` is listed twice"));
                }
                out.push(t);
            }
            Some(t) => {
                return Err(format!(
                    "unknown type `{t}` (accepted: object, string, integer, number, boolean, array, null)"
                ));
            }
            None => return Err("type names must be strings".to_string()),
        }
    }
    Ok(out)
}

impl Schema {
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
}

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

/// Whether `literal` could match the raw schema `schema` (see [`Schema::admits_literal`]).
fn raw_schema_admits(schema: &Value, literal: &Value) -> bool {
    match schema {
        Value::Bool(b) => *b,
        Value::Object(o) => o.iter().all(|(k, v)| raw_admits(k, v, literal)),
        _ => true,
    }
}
