//! Reading a schema into the typed model: the [`SchemaParser`] methods for what [`Kind`]
//! holds (one `type`, string enums, bounds, properties, `required`, the one `if`/`then`
//! shape), resolving `$ref`s and reporting their cycles. Every other keyword goes to
//! `subset` (`SchemaParser::raw_keyword`); a default is judged by `validate`
//! (`SchemaParser::check_default`), the one step that needs the validator.

use std::collections::BTreeSet;

use crate::json::{Map, Number, Value};
use crate::locate::Pointer;
use crate::model::{
    Additional, ArrayRules, Conditional, Kind, NumberRules, ObjectRules, Schema, SchemaParser,
    StringRules, walk,
};
use crate::subset::{Dialect, check_type, strip, validation_shape};

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
/// The one shape of `if` the typed model holds, as its errors state it.
const IF_SHAPE: &str = "`if` must have the shape {\"properties\": {\"field\": {\"const\": value}}, \"required\": [\"field\"]}";
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

/// The keywords of one schema object, sorted by [`SchemaParser::sort_keywords`].
struct Sorted {
    /// The keywords the typed kind holds, read into it next.
    typed: Map,
    /// The raw keywords that validate ([`Schema::extra`]).
    extra: Vec<(String, Value)>,
    /// The annotations ([`Schema::annotations`]).
    annotations: Vec<(String, Value)>,
    /// `title`.
    title: Option<String>,
    /// `description`.
    description: Option<String>,
    /// Whether no keyword was malformed.
    ok: bool,
}

impl SchemaParser<'_> {
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
        let ty = self.typed_type(obj, at)?;
        let mut sorted = self.sort_keywords(obj, at, ty, is_root);
        let kind = self.kind(ty, &sorted.typed, at, &mut sorted.ok)?;
        // A recursive `$ref` stays a reference: the root keeps the definitions beside it (as
        // annotations), so its resolved form is still self-contained and the run-time
        // validator can follow the reference (`validate`).
        if is_root && self.recursive {
            for key in ["$defs", "definitions"] {
                if let Some(defs) = obj.get(key) {
                    sorted.annotations.push((key.to_string(), defs.clone()));
                }
            }
        }
        let mut schema = Schema {
            title: sorted.title,
            description: sorted.description,
            default: obj.get("default").cloned(),
            kind,
            extra: sorted.extra,
            annotations: sorted.annotations,
        };
        self.check_default(&mut schema, at);
        // An error is recorded in `cx`; the schema is still returned so that checks of the
        // enclosing schema do not cascade into errors that only restate this one.
        let _ = sorted.ok;
        Some(schema)
    }

    /// The one `type` the typed model holds (`None`: none, or a `type` list kept raw), or
    /// `None` (outer) when `type` is malformed, which is an error here.
    fn typed_type<'v>(&mut self, obj: &'v Map, at: &Pointer) -> Option<Option<&'v str>> {
        match obj.get("type") {
            None => Some(None),
            Some(Value::String(t))
                if matches!(
                    t.as_str(),
                    "object" | "string" | "integer" | "number" | "boolean" | "array"
                ) =>
            {
                Some(Some(t.as_str()))
            }
            Some(v) => match check_type(v) {
                Ok(_) => Some(None),
                Err(m) => {
                    self.err(&at.key("type"), m);
                    None
                }
            },
        }
    }

    /// Sorts the keywords of `obj` into what the typed kind of `ty` holds, the raw ones
    /// (checked by `subset`) and the annotations, with a warning for a keyword that has no
    /// effect on a schema of this type.
    fn sort_keywords(
        &mut self,
        obj: &Map,
        at: &Pointer,
        ty: Option<&str>,
        is_root: bool,
    ) -> Sorted {
        let typed = self.typed_keys(obj, ty);
        let mut s = Sorted {
            typed: Map::new(),
            extra: Vec::new(),
            annotations: Vec::new(),
            title: None,
            description: None,
            ok: true,
        };
        for (key, v) in obj.iter() {
            let p = at.key(key);
            match key {
                "type" => {
                    if ty.is_none() {
                        s.extra.push((key.to_string(), v.clone()));
                    }
                }
                "title" => s.title = self.opt_string(obj, key, at, &mut s.ok),
                "description" => s.description = self.opt_string(obj, key, at, &mut s.ok),
                "default" => {}
                "$defs" | "definitions" if is_root => {}
                "$schema" if is_root => s.annotations.push((key.to_string(), v.clone())),
                k if typed.contains(&k) => s.typed.insert(k, v.clone()),
                "required" if ty == Some("object") && !required_all_declared(obj, &p, self) => {
                    if let Some(kept) = self.raw_keyword(obj, key, v, at) {
                        s.extra.push((key.to_string(), kept));
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
                            s.extra.push((k.to_string(), kept));
                        } else {
                            s.annotations.push((k.to_string(), kept));
                        }
                    }
                }
            }
        }
        s
    }

    /// The typed kind of `ty`, read from the keywords it holds (`typed`).
    fn kind(&mut self, ty: Option<&str>, typed: &Map, at: &Pointer, ok: &mut bool) -> Option<Kind> {
        Some(match ty {
            None => Kind::Any,
            Some("boolean") => Kind::Boolean,
            Some("string") => Kind::String(self.string_rules(typed, at, ok)),
            Some("integer") => Kind::Integer(self.number_rules(typed, at, ok)),
            Some("number") => Kind::Number(self.number_rules(typed, at, ok)),
            Some("array") => Kind::Array(self.array_rules(typed, at, ok)?),
            Some("object") => Kind::Object(self.object_rules(typed, at, ok)?),
            Some(_) => return None,
        })
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
        let (min_length, max_length) = self.count_range(obj, ["minLength", "maxLength"], at, ok);
        let mut rules = StringRules {
            enum_values: None,
            min_length,
            max_length,
        };
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
        let (min_items, max_items) = self.count_range(obj, ["minItems", "maxItems"], at, ok);
        Some(ArrayRules {
            items,
            min_items,
            max_items,
        })
    }

    /// A lower and an upper count (`minLength`/`maxLength`, `minItems`/`maxItems`), an error
    /// at the lower when it is greater than the upper.
    fn count_range(
        &mut self,
        obj: &Map,
        [min, max]: [&str; 2],
        at: &Pointer,
        ok: &mut bool,
    ) -> (Option<u64>, Option<u64>) {
        let range = (
            self.opt_count(obj, min, at, ok),
            self.opt_count(obj, max, at, ok),
        );
        if let (Some(lo), Some(hi)) = range
            && lo > hi
        {
            self.err(
                &at.key(min),
                format!("`{min}` {lo} is greater than `{max}` {hi}"),
            );
            *ok = false;
        }
        range
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

    /// The one `if`/`then` shape the typed model holds (see `conditional_fits`), read with
    /// an error for each way `when` or `then` strays from it.
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
        let conditions = self.if_conditions(when, &at.key("if"), rules, declared, ok)?;
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
                &at.key("if"),
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

    /// The fields `if` tests, each with its constant, every one of them listed in the `if`'s
    /// `required` (else the condition would hold whenever the field is absent).
    fn if_conditions(
        &mut self,
        when: &Value,
        if_at: &Pointer,
        rules: &ObjectRules,
        declared: &BTreeSet<&str>,
        ok: &mut bool,
    ) -> Option<Vec<(String, Value)>> {
        let Some(when) = when.as_object() else {
            self.err(if_at, IF_SHAPE);
            *ok = false;
            return None;
        };
        for key in when.keys() {
            if key != "properties" && key != "required" {
                self.err(
                    &if_at.key(key),
                    format!("keyword `{key}` inside `if`: {IF_SHAPE}"),
                );
                *ok = false;
                return None;
            }
        }
        let Some(Value::Object(props)) = when.get("properties") else {
            self.err(if_at, IF_SHAPE);
            *ok = false;
            return None;
        };
        let mut conditions = Vec::new();
        for (field, cond) in props.iter() {
            let p = if_at.key("properties").key(field);
            conditions.extend(self.if_condition(field, cond, &p, rules, declared, ok));
        }
        let tested: BTreeSet<&str> = props.keys().collect();
        let required = self.name_list(when, "required", if_at, &tested, "tested", ok);
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
        Some(conditions)
    }

    /// One field `if` tests (at `p`): a declared property, tested by a `const` its schema
    /// could hold.
    fn if_condition(
        &mut self,
        field: &str,
        cond: &Value,
        p: &Pointer,
        rules: &ObjectRules,
        declared: &BTreeSet<&str>,
        ok: &mut bool,
    ) -> Option<(String, Value)> {
        if !declared.contains(field) {
            self.err(
                p,
                format!("`if` tests `{field}`, which is not a declared property"),
            );
            *ok = false;
            return None;
        }
        match cond.as_object() {
            Some(c) if c.len() == 1 && c.contains_key("const") => {
                let value = c.get("const").cloned().unwrap_or(Value::Null);
                let violation = rules
                    .property(field)
                    .and_then(|property| Self::first_refusal(property, &value, "the constant"));
                if let Some(v) = violation {
                    self.err(
                        &p.key("const"),
                        format!("this constant can never match `{field}`: {}", v.message),
                    );
                    *ok = false;
                }
                Some((field.to_string(), value))
            }
            _ => {
                self.err(p, IF_SHAPE);
                *ok = false;
                None
            }
        }
    }
}

fn props_of(obj: &Map) -> BTreeSet<&str> {
    obj.get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().collect())
        .unwrap_or_default()
}
/// Whether keyword `key` applies to values of JSON type `ty` (an object keyword beside
/// `"type": "object"` has an effect; beside `"type": "string"` it has none).
fn owner_is(key: &str, ty: &str) -> bool {
    (STRING_KEYS.contains(&key) && ty == "string")
        || (NUMBER_KEYS.contains(&key) && matches!(ty, "integer" | "number"))
        || (ARRAY_KEYS.contains(&key) && ty == "array")
        || (OBJECT_KEYS.contains(&key) && ty == "object")
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
    use crate::diag::{Ctxt, SourceText};
    use crate::json::to_compact;
    use std::path::PathBuf;

    fn parse(text: &str) -> (Option<Schema>, Vec<String>) {
        let (schema, errors, _) = parse_warn(text);
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
