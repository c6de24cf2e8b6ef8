//! Every keyword of the accepted subset, evaluated on a `serde_json::Value`: what generated
//! code checks at run time where a schema says more than its Rust type holds (`pattern`,
//! `not`, `if`/`then`/`else`, `patternProperties`, `uniqueItems`, a `oneOf` matched twice,
//! ...), and what the typed validator ([`crate::validate`]) judges those keywords by.
//!
//! Hand-written rather than the `jsonschema` crate: every server built with `catalog!` links
//! this crate, and jsonschema brings URI resolution, formats, big numbers and a dozen crates
//! with them, none of which the accepted subset needs (local `$ref`s only, `format` an
//! annotation). Where the specification leaves room, it answers as jsonschema 0.61 answers
//! with the options `toolgate-schema`'s validator gives it: a `pattern` is ECMA-262
//! translated by `jsonschema-regex` (jsonschema's own translation) and compiled by the
//! `regex` crate, so a pattern with a lookaround or a backreference does not compile;
//! `multipleOf` divides the decimal numbers as written (`0.0075` is a multiple of `0.0001`);
//! numbers compare by value (`1` equals `1.0`). The JSON-Schema-Test-Suite holds the two to
//! the same answers (`generated/tests/suite.rs`, `schema/tests/json_schema_test_suite.rs`).
//!
//! The dialect is the root's `$schema`: in draft-07, `$ref` hides its siblings and the
//! 2019-09 keywords (`prefixItems`, `dependentRequired`, `dependentSchemas`, `minContains`,
//! `maxContains`) are not keywords; array-form `items`, `additionalItems` and
//! `dependencies` are read wherever they appear, since the loader accepts them only in
//! draft-07 schemas.

use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Number, Value};

/// A compiled `pattern` (or `patternProperties` key): an ECMA-262 regular expression,
/// unanchored, as JSON Schema reads it.
#[derive(Clone, Debug)]
pub struct Pattern {
    regex: regex::Regex,
}

impl Pattern {
    /// Compiles `ecma` as jsonschema 0.61 does with its `regex` engine: translated by
    /// `jsonschema-regex`, then compiled by the `regex` crate. The error says why not
    /// (`look-around ... is not supported`).
    pub fn new(ecma: &str) -> Result<Pattern, String> {
        let translated = jsonschema_regex::to_rust_regex(ecma)
            .map_err(|()| "it is not a valid ECMA-262 regular expression".to_string())?;
        regex::Regex::new(&translated)
            .map(|regex| Pattern { regex })
            .map_err(|e| {
                let text = e.to_string();
                let why = text
                    .lines()
                    .find_map(|l| l.strip_prefix("error: "))
                    .unwrap_or(&text)
                    .to_string();
                format!("the `regex` crate cannot compile it: {why}")
            })
    }

    /// Whether `text` holds a match.
    #[inline]
    pub fn is_match(&self, text: &str) -> bool {
        self.regex.is_match(text)
    }

    /// `ecma` compiled once per process (a bounded cache): what the typed validator uses
    /// for the patterns of schemas it was not compiled for. `None` when it does not compile.
    pub fn cached(ecma: &str) -> Option<Arc<Pattern>> {
        type Cache = Mutex<HashMap<String, Option<Arc<Pattern>>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        const MOST: usize = 512;
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = map.get(ecma) {
            return p.clone();
        }
        if map.len() >= MOST {
            map.clear();
        }
        let p = Pattern::new(ecma).ok().map(Arc::new);
        map.insert(ecma.to_string(), p.clone());
        p
    }
}

/// Why a schema cannot be evaluated: a pattern that does not compile, at its JSON pointer
/// inside the schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    /// The JSON pointer of the pattern (`/properties/q/pattern`, `/patternProperties/(?=x)`).
    pub pointer: String,
    /// The pattern.
    pub pattern: String,
    /// Why it does not compile.
    pub message: String,
}

/// Every pattern of `schema` that does not compile, with its JSON pointer: a `pattern`
/// value or a `patternProperties` key, anywhere a subschema can be.
pub fn pattern_errors(schema: &Value) -> Vec<SchemaError> {
    let mut out = Vec::new();
    let mut seen = HashMap::new();
    walk_patterns(schema, &mut String::new(), &mut |pointer, p| {
        let verdict = seen
            .entry(p.to_string())
            .or_insert_with(|| Pattern::new(p).err())
            .clone();
        if let Some(message) = verdict {
            out.push(SchemaError {
                pointer: pointer.to_string(),
                pattern: p.to_string(),
                message,
            });
        }
    });
    out
}

/// Calls `f` with the pointer and text of every pattern in `schema`.
fn walk_patterns(schema: &Value, at: &mut String, f: &mut dyn FnMut(&str, &str)) {
    let Value::Object(m) = schema else {
        return;
    };
    let len = at.len();
    for (k, v) in m {
        push_token(at, k);
        match (k.as_str(), v) {
            ("pattern", Value::String(p)) => f(at, p),
            ("patternProperties", Value::Object(pp)) => {
                for (p, s) in pp {
                    let l = at.len();
                    push_token(at, p);
                    f(at, p);
                    walk_patterns(s, at, f);
                    at.truncate(l);
                }
            }
            ("properties" | "$defs" | "definitions" | "dependentSchemas" | "dependencies", _) => {
                if let Value::Object(subs) = v {
                    for (name, s) in subs {
                        let l = at.len();
                        push_token(at, name);
                        walk_patterns(s, at, f);
                        at.truncate(l);
                    }
                }
            }
            ("const" | "enum" | "default" | "examples", _) => {}
            (_, Value::Array(items)) => {
                for (i, s) in items.iter().enumerate() {
                    let l = at.len();
                    let _ = write!(at, "/{i}");
                    walk_patterns(s, at, f);
                    at.truncate(l);
                }
            }
            (_, Value::Object(_)) => walk_patterns(v, at, f),
            _ => {}
        }
        at.truncate(len);
    }
}

fn push_token(at: &mut String, token: &str) {
    at.push('/');
    at.push_str(&token.replace('~', "~0").replace('/', "~1"));
}

/// A schema ready to evaluate: its patterns compiled, the document its `$ref`s point into.
#[derive(Debug)]
pub struct Keywords {
    schema: Value,
    root: Option<Value>,
    draft7: bool,
    patterns: HashMap<String, Pattern>,
}

/// Whether a `$schema` URI names draft-07.
fn is_draft7(document: &Value) -> bool {
    document
        .get("$schema")
        .and_then(Value::as_str)
        .and_then(crate::subset::Dialect::from_uri)
        == Some(crate::subset::Dialect::Draft07)
}

impl Keywords {
    /// `schema`, whose `$ref`s point into `root` (the schema itself when `None`), in the
    /// dialect of `root`'s (or else `schema`'s) `$schema`.
    pub fn new(schema: Value, root: Option<Value>) -> Result<Keywords, SchemaError> {
        let mut patterns = HashMap::new();
        for doc in std::iter::once(&schema).chain(root.as_ref()) {
            let mut first_error = None;
            walk_patterns(doc, &mut String::new(), &mut |pointer, p| {
                if patterns.contains_key(p) || first_error.is_some() {
                    return;
                }
                match Pattern::new(p) {
                    Ok(c) => {
                        patterns.insert(p.to_string(), c);
                    }
                    Err(message) => {
                        first_error = Some(SchemaError {
                            pointer: pointer.to_string(),
                            pattern: p.to_string(),
                            message,
                        });
                    }
                }
            });
            if let Some(e) = first_error {
                return Err(e);
            }
        }
        let draft7 = is_draft7(root.as_ref().unwrap_or(&schema));
        Ok(Keywords {
            schema,
            root,
            draft7,
            patterns,
        })
    }

    /// [`Keywords::new`] from JSON text (`root` empty for none).
    pub fn from_json(schema: &str, root: &str) -> Option<Keywords> {
        let schema = serde_json::from_str(schema).ok()?;
        let root = if root.is_empty() {
            None
        } else {
            Some(serde_json::from_str(root).ok()?)
        };
        Keywords::new(schema, root).ok()
    }

    /// Whether `value` is valid.
    pub fn is_valid(&self, value: &Value) -> bool {
        let e = Eval {
            root: Some(self.root.as_ref().unwrap_or(&self.schema)),
            draft7: self.draft7,
            patterns: &self.patterns,
            lenient: false,
            undecided: Cell::new(false),
            refs: std::cell::RefCell::new(Vec::new()),
        };
        e.valid(&self.schema, value, 0)
    }
}

/// The compiled schema in `cell`, compiled from the JSON texts the first time (what the
/// generated checks hold in a `static`). `None` when it does not compile, which the
/// generator rules out at expansion time.
pub fn cached<'c>(
    cell: &'c OnceLock<Option<Keywords>>,
    schema: &str,
    root: &str,
) -> Option<&'c Keywords> {
    cell.get_or_init(|| Keywords::from_json(schema, root))
        .as_ref()
}

/// Whether `value` is valid against the schema in `cell` (see [`cached`]); fails closed.
#[inline]
pub fn holds(cell: &OnceLock<Option<Keywords>>, schema: &str, root: &str, value: &Value) -> bool {
    cached(cell, schema, root).is_some_and(|k| k.is_valid(value))
}

/// [`holds`] for a typed value, judged as it serializes (a generated type whose
/// serialization gives back the JSON it was read from: scalars, strings, arrays and maps of
/// them, free JSON).
pub fn holds_as_json<T: serde::Serialize + ?Sized>(
    cell: &OnceLock<Option<Keywords>>,
    schema: &str,
    root: &str,
    value: &T,
) -> bool {
    match serde_json::to_value(value) {
        Ok(v) => holds(cell, schema, root, &v),
        Err(_) => false,
    }
}

/// Whether keyword `key` of the schema object `siblings` holds for `value` (2020-12, with
/// the draft-07 forms read where they appear), its siblings giving it context
/// (`additionalProperties` reads `properties`), `$ref`s resolved in `document`: `None` when
/// it cannot tell (a `$ref` without a document or that does not resolve, a pattern that
/// does not compile). For the typed validator, which words each failing keyword.
pub(crate) fn keyword_holds(
    siblings: &Map<String, Value>,
    key: &str,
    value: &Value,
    document: Option<&Value>,
) -> Option<bool> {
    let Some(kv) = siblings.get(key) else {
        return Some(true);
    };
    let e = Eval::lenient(document);
    let ok = e.keyword(siblings, key, kv, value, 0);
    if e.undecided.get() { None } else { Some(ok) }
}

/// Whether `value` is valid against the subschema `schema` (as [`keyword_holds`] judges).
pub(crate) fn schema_holds(
    schema: &Value,
    value: &Value,
    document: Option<&Value>,
) -> Option<bool> {
    let e = Eval::lenient(document);
    let ok = e.valid(schema, value, 0);
    if e.undecided.get() { None } else { Some(ok) }
}

/// No patterns compiled ahead: [`Pattern::cached`] compiles them.
static NO_PATTERNS: OnceLock<HashMap<String, Pattern>> = OnceLock::new();

/// Nesting of subschemas past which a value is refused (a schema recursing through `$ref`s
/// on a value nested this deep): far past what `serde_json` reads (128 levels).
const MAX_DEPTH: u32 = 1024;

struct Eval<'s> {
    /// The document `$ref`s point into.
    root: Option<&'s Value>,
    draft7: bool,
    patterns: &'s HashMap<String, Pattern>,
    /// Whether what cannot be judged (a `$ref` out of reach, a pattern that does not
    /// compile) counts as satisfied, noted in `undecided`; else it fails.
    lenient: bool,
    undecided: Cell<bool>,
    /// The `$ref`s being followed, each with the value it is followed for: the same pair
    /// twice is a loop that reads no further into the value.
    refs: std::cell::RefCell<Vec<(*const Value, *const Value)>>,
}

impl<'s> Eval<'s> {
    /// The evaluator of the typed validator: 2020-12 (or the document's dialect), what it
    /// cannot judge satisfied; without a document, a `$ref` cannot be followed.
    fn lenient(root: Option<&'s Value>) -> Eval<'s> {
        Eval {
            root,
            draft7: root.is_some_and(is_draft7),
            patterns: NO_PATTERNS.get_or_init(HashMap::new),
            lenient: true,
            undecided: Cell::new(false),
            refs: std::cell::RefCell::new(Vec::new()),
        }
    }

    fn unknown(&self) -> bool {
        self.undecided.set(true);
        self.lenient
    }

    fn matches(&self, pattern: &str, text: &str) -> bool {
        if let Some(p) = self.patterns.get(pattern) {
            return p.is_match(text);
        }
        match Pattern::cached(pattern) {
            Some(p) => p.is_match(text),
            None => self.unknown(),
        }
    }

    fn valid(&self, schema: &Value, value: &Value, depth: u32) -> bool {
        match schema {
            Value::Bool(b) => *b,
            Value::Object(m) => {
                if depth > MAX_DEPTH {
                    return false;
                }
                if let Some(r) = m.get("$ref") {
                    if !self.follow(r, value, depth) {
                        return false;
                    }
                    if self.draft7 {
                        return true;
                    }
                }
                m.iter()
                    .all(|(k, kv)| k == "$ref" || self.keyword(m, k, kv, value, depth + 1))
            }
            // Not a schema (the loader refuses it): nothing to hold.
            _ => true,
        }
    }

    fn follow(&self, reference: &Value, value: &Value, depth: u32) -> bool {
        let Some(target) = reference
            .as_str()
            .zip(self.root)
            .and_then(|(r, root)| resolve(root, r))
        else {
            return self.unknown();
        };
        let pair = (target as *const Value, value as *const Value);
        if self.refs.borrow().contains(&pair) {
            return false;
        }
        self.refs.borrow_mut().push(pair);
        let ok = self.valid(target, value, depth + 1);
        self.refs.borrow_mut().pop();
        ok
    }

    /// Whether keyword `key` (value `kv`, beside the other keywords of `m`) holds for
    /// `value`: the keywords that read any value first, then those of the value's type (a
    /// keyword of another type than the value's holds).
    fn keyword(
        &self,
        m: &Map<String, Value>,
        key: &str,
        kv: &Value,
        value: &Value,
        depth: u32,
    ) -> bool {
        let d = depth + 1;
        if let Some(holds) = self.any_value_keyword(m, key, kv, value, d) {
            return holds;
        }
        match value {
            Value::Number(n) => number_keyword(key, kv, n),
            Value::String(s) => self.string_keyword(key, kv, s),
            Value::Array(a) => self.array_keyword(m, key, kv, a, d),
            Value::Object(o) => self.object_keyword(m, key, kv, o, value, d),
            // Annotations, `then`/`else` (read by `if`), `minContains`/`maxContains` (read
            // by `contains`), keywords of another type than the value's.
            Value::Null | Value::Bool(_) => true,
        }
    }

    /// `$ref`, `type`, `enum`, `const` and the combinators, which read a value of any type;
    /// `None` for another keyword.
    fn any_value_keyword(
        &self,
        m: &Map<String, Value>,
        key: &str,
        kv: &Value,
        value: &Value,
        d: u32,
    ) -> Option<bool> {
        Some(match key {
            "$ref" => self.follow(kv, value, d),
            "type" => match kv {
                Value::String(t) => type_matches(t, value),
                Value::Array(ts) => ts
                    .iter()
                    .any(|t| t.as_str().is_some_and(|t| type_matches(t, value))),
                _ => true,
            },
            "enum" => match kv {
                Value::Array(vs) => vs.iter().any(|c| json_equal(c, value)),
                _ => true,
            },
            "const" => json_equal(kv, value),
            "allOf" => subschemas(kv).all(|s| self.valid(s, value, d)),
            "anyOf" => subschemas(kv).any(|s| self.valid(s, value, d)),
            "oneOf" => {
                subschemas(kv)
                    .filter(|s| self.valid(s, value, d))
                    .take(2)
                    .count()
                    == 1
            }
            "not" => !self.valid(kv, value, d),
            "if" => {
                if self.valid(kv, value, d) {
                    m.get("then").is_none_or(|t| self.valid(t, value, d))
                } else {
                    m.get("else").is_none_or(|e| self.valid(e, value, d))
                }
            }
            _ => return None,
        })
    }

    /// The keywords of a string: its length and `pattern`.
    fn string_keyword(&self, key: &str, kv: &Value, s: &str) -> bool {
        match key {
            "minLength" => count(kv).is_none_or(|c| chars(s) >= c),
            "maxLength" => count(kv).is_none_or(|c| chars(s) <= c),
            "pattern" => match kv {
                Value::String(p) => self.matches(p, s),
                _ => true,
            },
            _ => true,
        }
    }

    /// The keywords of an array: its size, uniqueness, items and `contains`.
    fn array_keyword(
        &self,
        m: &Map<String, Value>,
        key: &str,
        kv: &Value,
        a: &[Value],
        d: u32,
    ) -> bool {
        match key {
            "minItems" => count(kv).is_none_or(|c| a.len() as u64 >= c),
            "maxItems" => count(kv).is_none_or(|c| a.len() as u64 <= c),
            "uniqueItems" => kv != &Value::Bool(true) || all_distinct(a),
            "prefixItems" if !self.draft7 => subschemas(kv)
                .zip(a)
                .all(|(s, item)| self.valid(s, item, d)),
            "items" => match kv {
                Value::Array(tuple) => tuple.iter().zip(a).all(|(s, item)| self.valid(s, item, d)),
                s => {
                    let start = if self.draft7 {
                        0
                    } else {
                        m.get("prefixItems")
                            .and_then(Value::as_array)
                            .map_or(0, Vec::len)
                    };
                    a.iter().skip(start).all(|item| self.valid(s, item, d))
                }
            },
            "additionalItems" => match m.get("items") {
                Some(Value::Array(tuple)) => a
                    .iter()
                    .skip(tuple.len())
                    .all(|item| self.valid(kv, item, d)),
                _ => true,
            },
            "contains" => self.contains(m, kv, a, d),
            _ => true,
        }
    }

    /// `contains`, with the `minContains`/`maxContains` beside it (2020-12 only).
    fn contains(&self, m: &Map<String, Value>, kv: &Value, a: &[Value], d: u32) -> bool {
        let (min, max) = if self.draft7 {
            (1, None)
        } else {
            (
                m.get("minContains").and_then(count).unwrap_or(1),
                m.get("maxContains").and_then(count),
            )
        };
        let mut n = 0u64;
        for item in a {
            if self.valid(kv, item, d) {
                n += 1;
                if max.is_some_and(|x| n > x) {
                    return false;
                }
            }
        }
        n >= min
    }

    /// The keywords of an object: `required`, its size, its properties and their names, and
    /// the dependencies (`value` is the object `o` itself, what a dependent schema reads).
    fn object_keyword(
        &self,
        m: &Map<String, Value>,
        key: &str,
        kv: &Value,
        o: &Map<String, Value>,
        value: &Value,
        d: u32,
    ) -> bool {
        match key {
            "required" => names(kv).all(|n| o.contains_key(n)),
            "minProperties" => count(kv).is_none_or(|c| o.len() as u64 >= c),
            "maxProperties" => count(kv).is_none_or(|c| o.len() as u64 <= c),
            "properties" | "patternProperties" | "additionalProperties" => {
                self.properties_keyword(m, key, kv, o, d)
            }
            "propertyNames" => o
                .keys()
                .all(|name| self.valid(kv, &Value::String(name.clone()), d)),
            "dependentRequired" if !self.draft7 => match kv {
                Value::Object(deps) => deps
                    .iter()
                    .all(|(k, need)| !o.contains_key(k) || names(need).all(|n| o.contains_key(n))),
                _ => true,
            },
            "dependentSchemas" if !self.draft7 => match kv {
                Value::Object(deps) => deps
                    .iter()
                    .all(|(k, s)| !o.contains_key(k) || self.valid(s, value, d)),
                _ => true,
            },
            "dependencies" => match kv {
                Value::Object(deps) => deps.iter().all(|(k, dep)| {
                    !o.contains_key(k)
                        || match dep {
                            Value::Array(_) => names(dep).all(|n| o.contains_key(n)),
                            s => self.valid(s, value, d),
                        }
                }),
                _ => true,
            },
            _ => true,
        }
    }

    /// `properties`, `patternProperties` and `additionalProperties` (which reads the other
    /// two: a field either declares is not additional).
    fn properties_keyword(
        &self,
        m: &Map<String, Value>,
        key: &str,
        kv: &Value,
        o: &Map<String, Value>,
        d: u32,
    ) -> bool {
        match (key, kv) {
            ("properties", Value::Object(props)) => props
                .iter()
                .all(|(name, s)| o.get(name).is_none_or(|v| self.valid(s, v, d))),
            ("patternProperties", Value::Object(pp)) => pp.iter().all(|(p, s)| {
                o.iter()
                    .all(|(name, v)| !self.matches(p, name) || self.valid(s, v, d))
            }),
            ("additionalProperties", _) => {
                let props = m.get("properties").and_then(Value::as_object);
                let pp = m.get("patternProperties").and_then(Value::as_object);
                o.iter().all(|(name, v)| {
                    let declared = props.is_some_and(|p| p.contains_key(name))
                        || pp.is_some_and(|pp| pp.keys().any(|p| self.matches(p, name)));
                    declared || self.valid(kv, v, d)
                })
            }
            _ => true,
        }
    }
}

/// The keywords of a number: its bounds and `multipleOf`.
fn number_keyword(key: &str, kv: &Value, n: &Number) -> bool {
    match key {
        "minimum" => cmp_kw(n, kv).is_none_or(|o| o != Ordering::Less),
        "maximum" => cmp_kw(n, kv).is_none_or(|o| o != Ordering::Greater),
        "exclusiveMinimum" => cmp_kw(n, kv).is_none_or(|o| o == Ordering::Greater),
        "exclusiveMaximum" => cmp_kw(n, kv).is_none_or(|o| o == Ordering::Less),
        "multipleOf" => match kv {
            Value::Number(k) => multiple_of(n, k),
            _ => true,
        },
        _ => true,
    }
}

/// The subschemas of an array-valued keyword.
fn subschemas(v: &Value) -> std::slice::Iter<'_, Value> {
    match v {
        Value::Array(items) => items.iter(),
        _ => [].iter(),
    }
}

fn names(v: &Value) -> impl Iterator<Item = &str> {
    subschemas(v).filter_map(Value::as_str)
}

fn count(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        }),
        _ => None,
    }
}

fn chars(s: &str) -> u64 {
    s.chars().count() as u64
}

fn cmp_kw(n: &Number, limit: &Value) -> Option<Ordering> {
    match limit {
        Value::Number(l) => compare(n, l),
        _ => None,
    }
}

/// Whether `value` is of JSON Schema type `name` (`3.0` is an integer).
pub fn type_matches(name: &str, value: &Value) -> bool {
    match (name, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("string", Value::String(_))
        | ("number", Value::Number(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_)) => true,
        ("integer", Value::Number(n)) => is_integer(n),
        _ => false,
    }
}

fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// Two numbers by value: exactly when both are integers, else as `f64`.
pub fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    let int = |n: &Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (int(a), int(b)) {
        (Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// JSON equality as JSON Schema reads it: numbers by value, objects whatever their key order.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// Whether no two items are equal ([`json_equal`]), by a canonical text of each: linear in
/// the size of the array, where comparing pairs would be quadratic.
fn all_distinct(items: &[Value]) -> bool {
    let mut seen = HashSet::with_capacity(items.len());
    items.iter().all(|item| {
        let mut text = String::new();
        canonical(item, &mut text);
        seen.insert(text)
    })
}

/// A text equal for two values exactly when they are [`json_equal`].
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if let Some(u) = n.as_u64() {
                let _ = write!(out, "{u}");
            } else if let Some(f) = n.as_f64() {
                // An integer-valued float is written as the integer it equals.
                if f.fract() == 0.0 && f.abs() < 1.8e19 {
                    let _ = write!(out, "{}", f as i128);
                } else {
                    let _ = write!(out, "{f:e}");
                }
            }
        }
        Value::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for k in keys {
                let _ = write!(out, "{:?}:", k);
                if let Some(x) = m.get(k) {
                    canonical(x, out);
                }
                out.push(',');
            }
            out.push('}');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// `multipleOf`: whether `value` divided by `multiple` is an integer, as jsonschema 0.61
/// decides it (integers by integer remainder; other numbers by the decimals they are
/// written with, then exactly in binary where those overflow).
pub fn multiple_of(value: &Number, multiple: &Number) -> bool {
    let Some(m) = multiple.as_f64().filter(|m| *m > 0.0 && m.is_finite()) else {
        return true;
    };
    if m.fract() == 0.0 && m <= 9_007_199_254_740_992.0 {
        let k = m as u64;
        if let Some(v) = value.as_u64() {
            return v % k == 0;
        }
        if let Some(v) = value.as_i64() {
            return v.unsigned_abs() % k == 0;
        }
    }
    let Some(v) = value.as_f64() else {
        return false;
    };
    multiple_of_f64(v, m)
}

/// [`multiple_of`] for two `f64`s (`multiple` greater than 0).
#[allow(clippy::float_cmp)]
pub fn multiple_of_f64(v: f64, m: f64) -> bool {
    if !v.is_finite() {
        return false;
    }
    if v == 0.0 {
        return true;
    }
    if m.fract() == 0.0 && v.fract() != 0.0 {
        return false;
    }
    if v.abs() < m {
        return false;
    }
    if let Some(answer) = divides_in_decimal(v, m) {
        return answer;
    }
    divides_in_binary(v, m)
}

/// The decimal a float prints as (its shortest round-trip text): mantissa and the number of
/// decimals, `0.0075` as `(75, 4)`, `1e20` as `(1, -20)`.
fn decimal_parts(x: f64) -> Option<(i128, i32)> {
    let text = format!("{x:e}");
    let (mantissa, exponent) = text.split_once('e')?;
    let exponent: i32 = exponent.parse().ok()?;
    let negative = mantissa.starts_with('-');
    let mantissa = mantissa.trim_start_matches('-');
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: i128 = format!("{whole}{fraction}").parse().ok()?;
    let decimals = i32::try_from(fraction.len()).ok()? - exponent;
    Some((if negative { -digits } else { digits }, decimals))
}

/// `v / m` in decimals, `None` when the scaled mantissas leave `i128`.
fn divides_in_decimal(v: f64, m: f64) -> Option<bool> {
    let (vm, vd) = decimal_parts(v)?;
    let (mm, md) = decimal_parts(m)?;
    if mm == 0 {
        return None;
    }
    let shared = vd.min(md);
    let scale = |mantissa: i128, decimals: i32| {
        let places = u32::try_from(decimals - shared).ok()?;
        mantissa.checked_mul(10_i128.checked_pow(places)?)
    };
    Some(scale(vm, md)? % scale(mm, vd)? == 0)
}

/// `v / m` exactly, both read as the binary fractions they are: `a * 2^e` with `a` odd.
fn divides_in_binary(v: f64, m: f64) -> bool {
    fn parts(x: f64) -> (u64, i32) {
        let bits = x.abs().to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & ((1 << 52) - 1);
        let (mut a, mut e) = if exp == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), exp - 1075)
        };
        while a != 0 && a % 2 == 0 {
            a /= 2;
            e += 1;
        }
        (a, e)
    }
    let (a, e1) = parts(v);
    let (b, e2) = parts(m);
    b != 0 && a % b == 0 && e1 >= e2
}

/// The target of a local `$ref` (`#`, `#/$defs/a`, percent-encoded, `~0`/`~1` escaped).
fn resolve<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
    let fragment = reference.strip_prefix('#')?;
    let fragment = percent_decode(fragment)?;
    if fragment.is_empty() {
        return Some(root);
    }
    let mut cur = root;
    for raw in fragment.strip_prefix('/')?.split('/') {
        let token = raw.replace("~1", "/").replace("~0", "~");
        cur = match cur {
            Value::Object(m) => m.get(&token)?,
            Value::Array(a) => a.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_string());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid(schema: Value, value: Value) -> bool {
        Keywords::new(schema, None).unwrap().is_valid(&value)
    }

    #[test]
    fn multiple_of_reads_decimals_as_written() {
        let n = |v: Value| match v {
            Value::Number(n) => n,
            _ => unreachable!(),
        };
        assert!(multiple_of(&n(json!(0.0075)), &n(json!(0.0001))));
        assert!(!multiple_of(&n(json!(0.00751)), &n(json!(0.0001))));
        assert!(multiple_of(&n(json!(4.5)), &n(json!(1.5))));
        assert!(!multiple_of(&n(json!(35)), &n(json!(1.5))));
        assert!(multiple_of(&n(json!(10)), &n(json!(2))));
        assert!(!multiple_of(&n(json!(7)), &n(json!(2))));
        assert!(multiple_of(&n(json!(-8)), &n(json!(2))));
        assert!(!multiple_of(&n(json!(1e308)), &n(json!(0.123456789))));
        assert!(multiple_of(&n(json!(19.99)), &n(json!(0.01))));
    }

    #[test]
    fn patterns_are_ecma_translated_and_lookaround_refused() {
        assert!(valid(json!({"pattern": "^\\d+$"}), json!("123")));
        // ECMA-262 `\d` is ASCII only.
        assert!(!valid(json!({"pattern": "^\\d+$"}), json!("١٢٣")));
        assert!(valid(json!({"pattern": "^a"}), json!(12)));
        let e =
            Keywords::new(json!({"properties": {"a": {"pattern": "(?=x)"}}}), None).unwrap_err();
        assert_eq!(e.pointer, "/properties/a/pattern");
        assert!(e.message.contains("look-around"), "{}", e.message);
        let errors = pattern_errors(&json!({"patternProperties": {"(?<!a)b": {}}}));
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].pointer, "/patternProperties/(?<!a)b");
    }

    #[test]
    fn applicators_and_their_context() {
        let s = json!({
            "properties": {"a": {"type": "integer"}},
            "patternProperties": {"^x": {"type": "string"}},
            "additionalProperties": false
        });
        assert!(valid(s.clone(), json!({"a": 1, "x1": "s"})));
        assert!(!valid(s.clone(), json!({"a": 1, "y": 0})));
        assert!(!valid(s, json!({"x1": 2})));
        let t = json!({"prefixItems": [{"type": "integer"}], "items": {"type": "string"}});
        assert!(valid(t.clone(), json!([1, "a", "b"])));
        assert!(!valid(t, json!([1, 2])));
        let c = json!({"contains": {"const": 1}, "minContains": 2, "maxContains": 3});
        assert!(!valid(c.clone(), json!([1, 2])));
        assert!(valid(c.clone(), json!([1, 1])));
        assert!(!valid(c, json!([1, 1, 1, 1])));
        let o = json!({"oneOf": [{"type": "integer"}, {"minimum": 2}]});
        assert!(valid(o.clone(), json!(1)));
        assert!(!valid(o, json!(3)));
        let i =
            json!({"if": {"const": 1}, "then": {"type": "integer"}, "else": {"type": "string"}});
        assert!(valid(i.clone(), json!("a")));
        assert!(!valid(i, json!(2)));
        assert!(valid(
            json!({"uniqueItems": true}),
            json!([1, "1", {"a": 1}, {"a": 2}])
        ));
        assert!(!valid(json!({"uniqueItems": true}), json!([1.0, 1])));
        assert!(!valid(
            json!({"uniqueItems": true}),
            json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}])
        ));
    }

    #[test]
    fn refs_resolve_and_loops_fail_closed() {
        let tree = json!({
            "$defs": {"node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
            "$ref": "#/$defs/node"
        });
        assert!(valid(tree.clone(), json!({"children": [{"children": []}]})));
        assert!(!valid(tree, json!({"children": [{"children": 3}]})));
        let lp = json!({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"});
        assert!(!valid(lp, json!(1)));
        // In draft-07, `$ref` hides its siblings.
        let d7 = json!({"$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"a": {"type": "array"}}, "properties": {"f": {"$ref": "#/definitions/a", "maxItems": 1}}});
        assert!(valid(d7, json!({"f": [1, 2]})));
    }
}
