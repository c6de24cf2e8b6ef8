//! toolgate-runtime: what the code that `catalog!` generates calls at run time, and what a
//! server needs to check calls against a catalog without generated types.
//!
//! It owns the schema model ([`model`]), its JSON value with source order ([`json`]), the
//! located error collector ([`diag`], [`locate`]), the accepted subset ([`subset`]), the
//! keywords' evaluation ([`keywords`]), the reading of a schema ([`parse`]) and the validator
//! ([`validate`]); the catalog loader (`toolgate-schema`) builds on these rather than keeping
//! a copy. They are layers, each using only those below it: `json`, `locate` and `diag`, then
//! `model`, `subset`, `keywords`, `parse`, and `validate` on top. A crate that
//! expands `catalog!` depends on this crate, `serde` and `serde_json`, and on nothing of the
//! loader: generated code names this crate by absolute path (`::toolgate_runtime`, or the
//! path given as `catalog!("dir", crate = path)`).
//!
//! What is here besides the model is small on purpose: the error of a refused call
//! ([`CallError`]), how arguments are parsed and explained ([`RawArguments`], [`ToolArgs`],
//! [`Check`]), a resolved session ([`Session`]), and the context an asynchronous handler
//! gets with each call ([`HandlerContext`] over a server's [`CallHooks`]).
//!
//! Generated argument types borrow from the arguments they are parsed from: a string field
//! is a `Cow<'a, str>` that points into the JSON text (or the `serde_json::Value`) unless the
//! string had to be unescaped, so a valid call allocates only for free JSON values. The
//! [`de`] helpers do the borrowing where serde's own derive would copy.
//!
//! From JSON text, the generated types are first read by the [`direct`] path, which takes
//! the plain shape of a call in one pass and leaves everything else to serde.
//!
//! Every refusal is worded by [`validate`]: the typed fast path (the direct path or
//! serde, then [`Check`]) decides, and only when it refuses does the run-time validator look
//! at the value to say which field is wrong and why. So a generated server and a server over a
//! catalog folder ([`check_arguments`]) answer the same input with the same message.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

pub mod context;
pub mod diag;
pub mod json;
pub mod keywords;
pub mod locate;
pub mod model;
pub mod parse;
pub mod subset;
pub mod validate;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

pub use crate::context::{CallHooks, HandlerContext, LogLevel};
use crate::diag::{Ctxt, SourceText};
use crate::json::{Map, Value};
use crate::locate::Pointer;
use crate::model::{Schema, SchemaParser};
pub use crate::validate::Violation;
use crate::validate::validate;

/// Why a tool call was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    /// The session has no tool of that name. A tool that exists but that the session's
    /// profile is not granted gets exactly this answer too, so a client cannot tell the two
    /// apart.
    UnknownTool {
        /// The name the client asked for.
        tool: String,
    },
    /// The arguments do not match the input schema the session is served.
    InvalidArguments {
        /// The tool called.
        tool: String,
        /// Every violation, in schema order; each message names the field.
        violations: Vec<Violation>,
    },
}

impl CallError {
    /// The answer to a call of a tool the session does not have.
    pub fn unknown_tool(tool: &str) -> CallError {
        CallError::UnknownTool {
            tool: tool.to_string(),
        }
    }

    /// Whether this is [`CallError::UnknownTool`].
    pub fn is_unknown_tool(&self) -> bool {
        matches!(self, CallError::UnknownTool { .. })
    }

    /// What a client is told: for invalid arguments, every violation's message joined by
    /// `"; "` (each names its field); for an unknown tool, `unknown tool `name``.
    pub fn message(&self) -> String {
        match self {
            CallError::UnknownTool { tool } => format!("unknown tool `{tool}`"),
            CallError::InvalidArguments { violations, .. } => violations
                .iter()
                .map(|v| v.message.as_str())
                .collect::<Vec<_>>()
                .join("; "),
        }
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::UnknownTool { .. } => f.write_str(&self.message()),
            CallError::InvalidArguments { tool, .. } => {
                write!(f, "invalid arguments for `{tool}`: {}", self.message())
            }
        }
    }
}

impl std::error::Error for CallError {}

/// Constraints that serde's derived deserialization does not enforce: string lengths,
/// number bounds, array sizes, and `if`/`then` conditional requirements. Generated types
/// implement it; `check` is `true` exactly when the run-time validator finds nothing.
pub trait Check {
    /// Whether every constraint holds (nested values included).
    fn check(&self) -> bool;
}

macro_rules! always_valid {
    ($($t:ty),*) => {
        $(impl Check for $t {
            #[inline]
            fn check(&self) -> bool {
                true
            }
        })*
    };
}

always_valid!(
    bool,
    i64,
    f64,
    String,
    Cow<'_, str>,
    serde_json::Value,
    serde_json::Map<String, serde_json::Value>
);

impl<T: Check> Check for Option<T> {
    #[inline]
    fn check(&self) -> bool {
        self.as_ref().is_none_or(Check::check)
    }
}

impl<T: Check + ?Sized> Check for Box<T> {
    #[inline]
    fn check(&self) -> bool {
        (**self).check()
    }
}

impl<T: Check> Check for Vec<T> {
    #[inline]
    fn check(&self) -> bool {
        self.iter().all(Check::check)
    }
}

impl<T: Check> Check for BTreeMap<String, T> {
    #[inline]
    fn check(&self) -> bool {
        self.values().all(Check::check)
    }
}

impl<T: Check> Check for BTreeMap<Cow<'_, str>, T> {
    #[inline]
    fn check(&self) -> bool {
        self.values().all(Check::check)
    }
}

/// The argument type of one tool as one session is served it.
///
/// A generated type that holds strings has a lifetime, `Args<'a>`, and implements
/// `Deserialize<'de>` for `'de: 'a`: it borrows from the arguments it is parsed from (see
/// [`RawArguments`]). `Args<'static>` (what the generated `into_owned()` returns) owns its
/// strings.
pub trait ToolArgs: serde::Serialize + Check {
    /// The MCP tool name.
    const TOOL: &'static str;
    /// The input schema served (self-contained, group parameters added, restriction
    /// applied), as compact JSON in the canonical key order.
    const INPUT_SCHEMA_JSON: &'static str;
    /// [`Self::INPUT_SCHEMA_JSON`] as a [`Schema`], parsed once, on the first refused call.
    fn input_schema() -> &'static Schema;
    /// The document the recursive `$ref`s of [`Self::input_schema`] point into (the tool's
    /// authored input schema), for the validator to follow them when it words a refusal;
    /// `None` for a schema without them.
    fn input_document() -> Option<&'static serde_json::Value> {
        None
    }
}

/// One generated argument type, as the generated `ARGUMENT_TYPES` table lists it.
#[derive(Clone, Copy, Debug)]
pub struct ArgumentType {
    /// The tool.
    pub tool: &'static str,
    /// The type's path in the generated module (`mr_write::RefineArgs`).
    pub type_name: &'static str,
    /// The profiles served this type (empty for a variant every profile of which is
    /// restricted).
    pub profiles: &'static [&'static str],
    /// [`ToolArgs::INPUT_SCHEMA_JSON`] of the type.
    pub input_schema_json: &'static str,
    /// Parses arguments as this type and serializes the typed value back (defaults filled
    /// in): [`parse_to_json`] for the type.
    pub parse: fn(&serde_json::Value) -> Result<serde_json::Value, CallError>,
    /// Reads JSON text as this type both by the direct path and by serde, and says whether
    /// they agree: [`direct::compare`] for the type.
    pub compare_direct: fn(&str) -> direct::Agreement,
}

/// Parses `arguments` as `T` (as dispatch does) and serializes the typed value back.
pub fn parse_to_json<'de, T: ToolArgs + serde::Deserialize<'de> + direct::ReadDirect<'de>>(
    arguments: &'de serde_json::Value,
) -> Result<serde_json::Value, CallError> {
    let typed: T = arguments.parse()?;
    Ok(serde_json::to_value(&typed).unwrap_or(serde_json::Value::Null))
}

/// Parses the canonical JSON of a served input schema back into a [`Schema`] (what a
/// generated [`ToolArgs::input_schema`] does once). A text that does not parse, which the
/// generated constants never are, gives a schema that accepts anything.
pub fn schema_from_json(text: &str) -> Schema {
    let Ok(document) = serde_json::from_str::<Value>(text) else {
        return Schema::any();
    };
    let source = SourceText {
        path: Path::new("inputSchema").to_path_buf(),
        text: text.to_string(),
    };
    let mut cx = Ctxt::new();
    let schema = SchemaParser::new(&source, &document, Pointer::root(), &mut cx).parse_root();
    match (schema, cx.is_empty()) {
        (Some(s), true) => s,
        _ => Schema::any(),
    }
}

/// Helper for generated `ToolArgs::input_schema` implementations: the schema in `cell`,
/// parsed from `text` the first time.
pub fn cached_schema(cell: &'static OnceLock<Schema>, text: &str) -> &'static Schema {
    cell.get_or_init(|| schema_from_json(text))
}

/// [`cached_schema`] for a schema with recursive `$ref`s, which point into `document` (the
/// tool's authored input schema, as JSON text).
pub fn cached_schema_in(
    cell: &'static OnceLock<Schema>,
    text: &str,
    document: &str,
) -> &'static Schema {
    cell.get_or_init(|| {
        let (Ok(value), Ok(doc)) = (
            serde_json::from_str::<Value>(text),
            serde_json::from_str::<Value>(document),
        ) else {
            return Schema::any();
        };
        let source = SourceText {
            path: Path::new("inputSchema").to_path_buf(),
            text: text.to_string(),
        };
        let mut cx = Ctxt::new();
        let mut parser = SchemaParser::new(&source, &doc, Pointer::root(), &mut cx);
        if let Some(uri) = doc
            .as_object()
            .and_then(|m| m.get("$schema"))
            .and_then(Value::as_str)
            && let Some(d) = crate::subset::Dialect::from_uri(uri)
        {
            parser.dialect = d;
        }
        match parser.parse(&value, &Pointer::root(), true) {
            Some(s) if cx.error_count() == 0 && s.as_object().is_some() => s,
            _ => Schema::any(),
        }
    })
}

/// Helper for generated `ToolArgs::input_document` implementations: the JSON `text`,
/// parsed into `cell` the first time (`null` if it does not parse, which the generated
/// constants never do).
pub fn cached_document(
    cell: &'static OnceLock<serde_json::Value>,
    text: &str,
) -> &'static serde_json::Value {
    cell.get_or_init(|| serde_json::from_str(text).unwrap_or(serde_json::Value::Null))
}

/// Arguments of a tool call as they arrive: a JSON value, a JSON object, or JSON text, each
/// borrowed for `'de`, the lifetime the parsed arguments may borrow from.
pub trait RawArguments<'de>: Copy {
    /// Deserializes the arguments as `T` and checks its constraints; on refusal the
    /// run-time validator words the error.
    #[inline]
    fn parse<T: ToolArgs + serde::Deserialize<'de> + direct::ReadDirect<'de>>(
        self,
    ) -> Result<T, CallError> {
        self.handle(|arguments| arguments)
    }

    /// [`RawArguments::parse`], then `handle` on the accepted arguments: what the generated
    /// dispatch calls, handing the value straight to the handler (one move less).
    fn handle<T: ToolArgs + serde::Deserialize<'de> + direct::ReadDirect<'de>, R>(
        self,
        handle: impl FnOnce(T) -> R,
    ) -> Result<R, CallError>;
}

/// A refusal, worded by the run-time validator on `value` (or `fallback` when it finds
/// nothing). The `refused_*` functions are kept out of line and are not generic, so the
/// accepted path of each argument type stays small.
fn refused(
    tool: &str,
    schema: &Schema,
    document: Option<&serde_json::Value>,
    value: Option<&Value>,
    fallback: String,
) -> CallError {
    let mut violations = match value {
        Some(v) => crate::validate::validate_in(schema, document, v),
        None => Vec::new(),
    };
    if violations.is_empty() {
        // The validator found nothing to say (a number too large for `i64`, say): keep
        // serde's own words rather than an empty message.
        violations.push(Violation {
            field: String::new(),
            message: fallback,
        });
    }
    CallError::InvalidArguments {
        tool: tool.to_string(),
        violations,
    }
}

/// Why serde refused a value (or, with `None`, why [`Check`] did): the fallback message.
fn serde_words(error: Option<serde_json::Error>) -> String {
    match error {
        Some(e) => e.to_string(),
        None => "the arguments do not match the input schema".to_string(),
    }
}

#[cold]
#[inline(never)]
fn refused_value(
    tool: &str,
    schema: &Schema,
    document: Option<&serde_json::Value>,
    value: &serde_json::Value,
    error: Option<serde_json::Error>,
) -> CallError {
    refused(
        tool,
        schema,
        document,
        Some(&Value::from_serde(value)),
        serde_words(error),
    )
}

#[cold]
#[inline(never)]
fn refused_map(
    tool: &str,
    schema: &Schema,
    document: Option<&serde_json::Value>,
    map: &serde_json::Map<String, serde_json::Value>,
    error: Option<serde_json::Error>,
) -> CallError {
    let value = Value::Object(
        map.iter()
            .map(|(k, v)| (k.clone(), Value::from_serde(v)))
            .collect::<Map>(),
    );
    refused(tool, schema, document, Some(&value), serde_words(error))
}

#[cold]
#[inline(never)]
fn refused_text(
    tool: &str,
    schema: &Schema,
    document: Option<&serde_json::Value>,
    text: &str,
    error: Option<serde_json::Error>,
) -> CallError {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => refused(tool, schema, document, Some(&v), serde_words(error)),
        Err(e) => refused(
            tool,
            schema,
            document,
            None,
            format!("the arguments are not valid JSON: {e}"),
        ),
    }
}

/// Arguments serde decoded from `input` (`decoded`), checked: the value, or the refusal
/// `refuse` words from `input` (told serde's error, or `None` when [`Check`] refused). Written
/// once for every form the arguments arrive in.
#[inline]
fn checked<T: ToolArgs, I>(
    decoded: Result<T, serde_json::Error>,
    input: I,
    refuse: impl FnOnce(
        &str,
        &Schema,
        Option<&serde_json::Value>,
        I,
        Option<serde_json::Error>,
    ) -> CallError,
) -> Result<T, CallError> {
    let error = match decoded {
        Ok(t) if t.check() => return Ok(t),
        Ok(_) => None,
        Err(e) => Some(e),
    };
    Err(refuse(
        T::TOOL,
        T::input_schema(),
        T::input_document(),
        input,
        error,
    ))
}

impl<'de> RawArguments<'de> for &'de serde_json::Value {
    #[inline]
    fn handle<T: ToolArgs + serde::Deserialize<'de> + direct::ReadDirect<'de>, R>(
        self,
        handle: impl FnOnce(T) -> R,
    ) -> Result<R, CallError> {
        checked(T::deserialize(self), self, refused_value).map(handle)
    }
}

impl<'de> RawArguments<'de> for &'de serde_json::Map<String, serde_json::Value> {
    #[inline]
    fn handle<T: ToolArgs + serde::Deserialize<'de> + direct::ReadDirect<'de>, R>(
        self,
        handle: impl FnOnce(T) -> R,
    ) -> Result<R, CallError> {
        checked(T::deserialize(self), self, refused_map).map(handle)
    }
}

impl<'de> RawArguments<'de> for &'de str {
    #[inline]
    fn handle<T: ToolArgs + serde::Deserialize<'de> + direct::ReadDirect<'de>, R>(
        self,
        handle: impl FnOnce(T) -> R,
    ) -> Result<R, CallError> {
        // The direct path first; what it does not take, serde reads (and words).
        if let Ok(t) = direct::read::<T>(self)
            && t.check()
        {
            return Ok(handle(t));
        }
        serde_text::<T>(self).map(handle)
    }
}

/// The text the direct path did not take, read by serde: out of line, so the direct path
/// of each argument type stays small.
#[cold]
#[inline(never)]
fn serde_text<'de, T: ToolArgs + serde::Deserialize<'de>>(text: &'de str) -> Result<T, CallError> {
    checked(serde_json::from_str::<T>(text), text, refused_text)
}

/// Checks `arguments` of `tool` against `schema` with the run-time validator: what a server
/// over a catalog folder (no generated types) does, with the same messages as
/// [`RawArguments::parse`].
pub fn check_arguments(
    tool: &str,
    schema: &Schema,
    arguments: &serde_json::Value,
) -> Result<(), CallError> {
    let violations = validate(schema, &Value::from_serde(arguments));
    if violations.is_empty() {
        Ok(())
    } else {
        Err(CallError::InvalidArguments {
            tool: tool.to_string(),
            violations,
        })
    }
}

/// Arguments that `schema` accepts, as the generated argument type holds them and writes
/// them back: the defaults the handler receives filled in
/// ([`crate::model::ObjectRules::filled_default`]), integers as `i64` and numbers as `f64`,
/// and properties dropped where the type has no field for them (an object with properties
/// and no `additionalProperties` schema ignores undeclared ones). What a server over a
/// catalog folder, which has no generated types, echoes; for arguments `schema` refuses the
/// result means nothing.
pub fn as_typed(schema: &Schema, arguments: &serde_json::Value) -> serde_json::Value {
    // The root is a struct even without properties (where a nested object would be a map).
    struct_view(schema, arguments).unwrap_or_else(|| typed_value(schema, arguments))
}

/// A float without a fractional part that fits `i64`, as an integer field takes it.
fn float_as_i64(v: f64) -> Option<i64> {
    // 2^63 is the first f64 past i64::MAX.
    (v.fract() == 0.0 && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&v))
        .then_some(v as i64)
}

/// `value` as the generated type of `schema` holds it.
fn typed_value(schema: &Schema, value: &serde_json::Value) -> serde_json::Value {
    use crate::model::Kind;
    match (&schema.kind, value) {
        (Kind::Integer(_), serde_json::Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().and_then(float_as_i64))
            .map_or_else(|| value.clone(), serde_json::Value::from),
        (Kind::Number(_), serde_json::Value::Number(n)) => n
            .as_f64()
            .map_or_else(|| value.clone(), serde_json::Value::from),
        (Kind::Array(a), serde_json::Value::Array(items)) => match &a.items {
            Some(item) => items.iter().map(|v| typed_value(item, v)).collect(),
            None => value.clone(),
        },
        (Kind::Object(o), serde_json::Value::Object(_)) if o.is_free() => value.clone(),
        (Kind::Object(_), _) => struct_view(schema, value).unwrap_or_else(|| value.clone()),
        _ => value.clone(),
    }
}

/// An object of `schema` as a generated struct writes it back (`None` when `schema` is not
/// an object schema or `value` not an object).
fn struct_view(schema: &Schema, value: &serde_json::Value) -> Option<serde_json::Value> {
    use crate::model::{Additional, Kind};
    let (Kind::Object(o), serde_json::Value::Object(given)) = (&schema.kind, value) else {
        return None;
    };
    let mut out = serde_json::Map::new();
    for (name, prop) in &o.properties {
        match given.get(name) {
            Some(v) => {
                out.insert(name.clone(), typed_value(prop, v));
            }
            None => {
                if let Some(d) = o.filled_default(name, prop) {
                    out.insert(name.clone(), typed_value(prop, &d.to_serde()));
                }
            }
        }
    }
    if let Additional::Schema(extra) = &o.additional {
        for (name, v) in given {
            if o.property(name).is_none() {
                out.insert(name.clone(), typed_value(extra, v));
            }
        }
    }
    Some(serde_json::Value::Object(out))
}

/// What the generated `EchoHandler` answers: `{"tool": tool, "arguments": arguments}`, the
/// arguments serialized from their typed form (defaults filled in).
pub fn echo<T: serde::Serialize>(tool: &str, arguments: &T) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    m.insert("tool".to_string(), serde_json::Value::from(tool));
    m.insert(
        "arguments".to_string(),
        serde_json::to_value(arguments).unwrap_or(serde_json::Value::Null),
    );
    serde_json::Value::Object(m)
}

pub mod direct;

/// Helpers the generated constraint checks call.
pub mod rules {
    /// Whether the length of `s` in characters is within `min..=max`. A character is one
    /// to four bytes, so the byte length decides most cases without counting.
    #[inline]
    pub fn length(s: &str, min: Option<u64>, max: Option<u64>) -> bool {
        let most = s.len() as u64;
        let least = most.div_ceil(4);
        if min.is_none_or(|m| least >= m) && max.is_none_or(|m| most <= m) {
            return true;
        }
        if min.is_some_and(|m| most < m) || max.is_some_and(|m| least > m) {
            return false;
        }
        let n = s.chars().count() as u64;
        min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m)
    }

    /// Whether `n` items are within `min..=max`.
    #[inline]
    pub fn count(n: usize, min: Option<u64>, max: Option<u64>) -> bool {
        let n = n as u64;
        min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m)
    }

    /// Whether `x` satisfies the bounds (compared as `f64`, as the validator does).
    #[inline]
    pub fn bounds(
        x: f64,
        minimum: Option<f64>,
        maximum: Option<f64>,
        exclusive_minimum: Option<f64>,
        exclusive_maximum: Option<f64>,
    ) -> bool {
        minimum.is_none_or(|m| x >= m)
            && maximum.is_none_or(|m| x <= m)
            && exclusive_minimum.is_none_or(|m| x > m)
            && exclusive_maximum.is_none_or(|m| x < m)
    }

    /// Whether `value`, serialized, equals the JSON `constant` (for an `if` test on a field
    /// that is neither a string, an integer nor a boolean).
    pub fn equals_json<T: serde::Serialize>(value: &T, constant: &str) -> bool {
        let Ok(constant) = serde_json::from_str::<serde_json::Value>(constant) else {
            return false;
        };
        match serde_json::to_value(value) {
            Ok(v) => crate::keywords::json_equal(&v, &constant),
            Err(_) => false,
        }
    }

    /// Whether `s` matches the ECMA-262 pattern `ecma` (compiled into `cell` the first
    /// time; a pattern that does not compile, which the generator rules out at expansion
    /// time, matches nothing).
    #[inline]
    pub fn pattern(
        cell: &std::sync::OnceLock<Option<crate::keywords::Pattern>>,
        ecma: &str,
        s: &str,
    ) -> bool {
        cell.get_or_init(|| crate::keywords::Pattern::new(ecma).ok())
            .as_ref()
            .is_some_and(|p| p.is_match(s))
    }

    /// Whether `x` is a multiple of `multiple` (`multipleOf`), as the validator decides it.
    #[inline]
    pub fn multiple_of(x: f64, multiple: f64) -> bool {
        crate::keywords::multiple_of_f64(x, multiple)
    }

    /// [`multiple_of`] for an integer.
    #[inline]
    pub fn multiple_of_integer(x: i64, multiple: f64) -> bool {
        crate::keywords::multiple_of(&serde_json::Number::from(x), &multiple_number(multiple))
    }

    fn multiple_number(m: f64) -> serde_json::Number {
        if m.fract() == 0.0 && (0.0..9_007_199_254_740_992.0).contains(&m) {
            serde_json::Number::from(m as u64)
        } else {
            serde_json::Number::from_f64(m).unwrap_or_else(|| serde_json::Number::from(1u64))
        }
    }

    /// Whether two numbers are equal, compared as `f64` as the validator compares them (an
    /// `if` constant against a number field).
    #[inline]
    #[allow(clippy::float_cmp)]
    pub fn same_number(a: f64, b: f64) -> bool {
        a == b
    }
}

/// Deserialization helpers the generated fields name in `deserialize_with`.
pub mod de {
    use std::borrow::Cow;
    use std::collections::BTreeMap;
    use std::fmt;
    use std::marker::PhantomData;

    use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer};

    /// A type that deserializes borrowing its strings from the input where it can.
    ///
    /// serde's derive borrows a `Cow<'a, str>` field marked `#[serde(borrow)]`, but not a
    /// `Cow` inside a `Vec` or a map (the `Cow` impl always copies), so the generated fields
    /// of those types go through [`borrowing`] instead. A generated struct or enum that is
    /// the value type of a map implements it with its own `Deserialize`.
    pub trait Borrowing<'de>: Sized {
        /// Deserializes `Self`, borrowing strings that need no unescaping.
        fn deserialize_borrowing<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
    }

    macro_rules! borrowing_as_deserialize {
        ($($t:ty),*) => {
            $(impl<'de> Borrowing<'de> for $t {
                #[inline]
                fn deserialize_borrowing<D: Deserializer<'de>>(
                    deserializer: D,
                ) -> Result<Self, D::Error> {
                    <$t>::deserialize(deserializer)
                }
            })*
        };
    }

    borrowing_as_deserialize!(
        bool,
        i64,
        f64,
        serde_json::Value,
        serde_json::Map<String, serde_json::Value>
    );

    struct CowStr;

    impl<'de> Visitor<'de> for CowStr {
        type Value = Cow<'de, str>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Cow::Borrowed(v))
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v.to_owned()))
        }
        fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(Cow::Owned(v))
        }
    }

    impl<'de: 'a, 'a> Borrowing<'de> for Cow<'a, str> {
        #[inline]
        fn deserialize_borrowing<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_str(CowStr)
        }
    }

    /// [`Borrowing::deserialize_borrowing`] as a [`DeserializeSeed`], for elements.
    struct Seed<T>(PhantomData<T>);

    impl<'de, T: Borrowing<'de>> DeserializeSeed<'de> for Seed<T> {
        type Value = T;
        #[inline]
        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
            T::deserialize_borrowing(deserializer)
        }
    }

    /// Room reserved up front for a sequence or map of `hint` elements: no more than 64 KiB,
    /// whatever the input claims.
    fn cautious<T>(hint: Option<usize>) -> usize {
        let most = 65_536 / std::mem::size_of::<T>().max(1);
        hint.unwrap_or(0).min(most)
    }

    impl<'de, T: Borrowing<'de>> Borrowing<'de> for Vec<T> {
        fn deserialize_borrowing<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Items<T>(PhantomData<T>);
            impl<'de, T: Borrowing<'de>> Visitor<'de> for Items<T> {
                type Value = Vec<T>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("an array")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
                    let mut out = Vec::with_capacity(cautious::<T>(seq.size_hint()));
                    while let Some(item) = seq.next_element_seed(Seed::<T>(PhantomData))? {
                        out.push(item);
                    }
                    Ok(out)
                }
            }
            deserializer.deserialize_seq(Items(PhantomData))
        }
    }

    impl<'de: 'a, 'a, T: Borrowing<'de>> Borrowing<'de> for BTreeMap<Cow<'a, str>, T> {
        fn deserialize_borrowing<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Entries<'a, T>(PhantomData<(Cow<'a, str>, T)>);
            impl<'de: 'a, 'a, T: Borrowing<'de>> Visitor<'de> for Entries<'a, T> {
                type Value = BTreeMap<Cow<'a, str>, T>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                    let mut out = BTreeMap::new();
                    while let Some((k, v)) = map.next_entry_seed(
                        Seed::<Cow<'a, str>>(PhantomData),
                        Seed::<T>(PhantomData),
                    )? {
                        out.insert(k, v);
                    }
                    Ok(out)
                }
            }
            deserializer.deserialize_map(Entries(PhantomData))
        }
    }

    /// A field whose type holds strings inside an array or a map: deserialized by
    /// [`Borrowing`], so that those strings borrow from the input too.
    #[inline]
    pub fn borrowing<'de, D: Deserializer<'de>, T: Borrowing<'de>>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        T::deserialize_borrowing(deserializer)
    }

    /// [`borrowing`] for an optional field (JSON `null` refused, as by [`some`]).
    #[inline]
    pub fn some_borrowing<'de, D: Deserializer<'de>, T: Borrowing<'de>>(
        deserializer: D,
    ) -> Result<Option<T>, D::Error> {
        T::deserialize_borrowing(deserializer).map(Some)
    }

    /// An optional field that, when present, must hold a `T`: JSON `null` is refused (as
    /// the run-time validator refuses it) instead of being read as absent. For a field that
    /// accepts any JSON value, `null` is kept as `Some(Value::Null)`.
    pub fn some<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        deserializer: D,
    ) -> Result<Option<T>, D::Error> {
        T::deserialize(deserializer).map(Some)
    }

    /// An integer field: any JSON number without a fractional part that fits `i64`, `3.0`
    /// included, as the run-time validator counts it an integer.
    pub fn integer<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
        struct Integer;
        impl serde::de::Visitor<'_> for Integer {
            type Value = i64;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an integer")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<i64, E> {
                Ok(v)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<i64, E> {
                i64::try_from(v).map_err(|_| {
                    E::invalid_value(
                        serde::de::Unexpected::Unsigned(v),
                        &"an integer that fits i64",
                    )
                })
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<i64, E> {
                super::float_as_i64(v)
                    .ok_or_else(|| E::invalid_type(serde::de::Unexpected::Float(v), &self))
            }
        }
        deserializer.deserialize_i64(Integer)
    }

    /// A deserializer that gives a generated struct only a JSON object: serde's derive also
    /// reads a struct from an array, its fields in order (`[]` would be a struct whose
    /// fields are all optional), which the input schema refuses. The generated
    /// `Deserialize` of each struct calls its derived one through `Object`.
    pub struct Object<D>(pub D);

    impl<'de, D: Deserializer<'de>> Deserializer<'de> for Object<D> {
        type Error = D::Error;

        #[inline]
        fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.deserialize_any(visitor)
        }

        #[inline]
        fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.deserialize_map(visitor)
        }

        #[inline]
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            _fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, D::Error> {
            self.0.deserialize_map(visitor)
        }

        fn is_human_readable(&self) -> bool {
            self.0.is_human_readable()
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct enum
            identifier ignored_any
        }
    }

    /// A generated enum of string values, as its `Deserialize` reads it ([`wire_enum`]).
    pub trait WireEnum: Sized + 'static {
        /// The wire values, in declared order.
        const VALUES: &'static [&'static str];
        /// The variant whose wire value is `value`.
        fn from_wire(value: &str) -> Option<Self>;
    }

    /// A generated enum: a JSON string that is one of its wire values (serde's derive would
    /// also take `{"value": null}`, which the input schema refuses).
    #[inline]
    pub fn wire_enum<'de, D: Deserializer<'de>, T: WireEnum>(
        deserializer: D,
    ) -> Result<T, D::Error> {
        struct Name<T>(PhantomData<T>);
        impl<T: WireEnum> Visitor<'_> for Name<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "one of {}", T::VALUES.join(", "))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<T, E> {
                T::from_wire(v).ok_or_else(|| E::unknown_variant(v, T::VALUES))
            }
        }
        deserializer.deserialize_str(Name(PhantomData))
    }

    /// [`integer`] for an optional field (JSON `null` refused, as by [`some`]).
    pub fn some_integer<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<i64>, D::Error> {
        integer(deserializer).map(Some)
    }
}

/// Where a selector value came from, as a fail-closed warning names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source<'s> {
    /// The selector's environment variable (`TATARA_TOOL_PROFILE`): unset counts as empty.
    Env(&'s str),
    /// Given some other way, named as the user gave it (`--profile`).
    Given(&'s str),
}

/// [`resolve_profiles_from`] for a value read from the environment variable `var`.
pub fn resolve_profiles(
    known: &[&str],
    combine: bool,
    var: &str,
    always_on: usize,
    requested: &str,
) -> Result<Vec<usize>, String> {
    resolve_profiles_from(known, combine, Source::Env(var), always_on, requested)
}

/// Fail-closed resolution of a selector value (`--profile`, or the selector's environment
/// variable) against the known profiles: the indices of the profiles the session sees, in
/// declared order, or the warning to print when it fails closed (empty, unknown, or for a
/// combining selector a list naming any unknown profile), which names `source`.
/// `toolgate_schema::Surface::resolve` and the generated [`Session`]s both use it, so they agree
/// word for word.
pub fn resolve_profiles_from(
    known: &[&str],
    combine: bool,
    source: Source<'_>,
    always_on: usize,
    requested: &str,
) -> Result<Vec<usize>, String> {
    let var = match source {
        Source::Env(v) | Source::Given(v) => v,
    };
    let wanted: Vec<&str> = if combine {
        requested
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect()
    } else {
        let t = requested.trim();
        if t.is_empty() { Vec::new() } else { vec![t] }
    };
    let fail = |why: String| {
        format!(
            "{why}; failing closed: serving only the {} always-on tool{} (known profiles: {})",
            always_on,
            if always_on == 1 { "" } else { "s" },
            known.join(", ")
        )
    };
    if wanted.is_empty() {
        return Err(fail(match source {
            Source::Env(_) => format!("no profile given ({var} is empty or unset)"),
            Source::Given(_) => format!("no profile given ({var} is empty)"),
        }));
    }
    let unknown: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|w| !known.contains(w))
        .collect();
    if !unknown.is_empty() {
        let names: Vec<String> = unknown.iter().map(|u| format!("\"{u}\"")).collect();
        let what = if combine && wanted.len() > 1 {
            format!(
                "unknown profile {} in the combination \"{}\" ({var})",
                names.join(", "),
                requested.trim()
            )
        } else {
            format!("unknown profile {} ({var})", names.join(", "))
        };
        return Err(fail(what));
    }
    Ok(known
        .iter()
        .enumerate()
        .filter(|(_, k)| wanted.contains(k))
        .map(|(i, _)| i)
        .collect())
}

/// What a generated `Profile` enum tells the run time about its catalog.
pub trait CatalogProfile: Copy + Eq + fmt::Debug + 'static {
    /// Every profile, in declared order.
    const ALL: &'static [Self];
    /// The environment variable a server reads its profile from.
    const SELECTOR_ENV: &'static str;
    /// Whether the selector may name several profiles, separated by commas.
    const COMBINE: bool;
    /// The tools every session sees, the fail-closed one included, sorted.
    const ALWAYS_ON: &'static [&'static str];
    /// Every schema a tool is served, in tool-name order (the fallback for sessions without a
    /// compiled-in `tools/list`).
    const SERVED: &'static [ServedEntry];
    /// The profile's name in the matrix.
    fn name(self) -> &'static str;
    /// Its position in [`Self::ALL`].
    fn index(self) -> usize;
    /// The `tools/list` of the session seeing the profiles whose bits are set in `mask`
    /// (bit `i` is `ALL[i]`; `0` is the fail-closed session), when compiled in.
    fn tools_list_for_mask(mask: u64) -> Option<&'static str>;
}

/// A resolved session: the profiles it sees (none when it failed closed) and the warning
/// to print when it failed closed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session<P> {
    profiles: Vec<P>,
    /// [`Session::mask`], computed once.
    mask: u64,
    warning: Option<String>,
}

/// The bit set of `profiles` (bit `i` is `P::ALL[i]`).
fn mask_of<P: CatalogProfile>(profiles: &[P]) -> u64 {
    profiles.iter().fold(0, |m, p| {
        m | 1u64.checked_shl(p.index() as u32).unwrap_or(0)
    })
}

impl<P: CatalogProfile> Session<P> {
    /// Resolves a selector value, failing closed (see [`resolve_profiles`]); a warning
    /// names the selector's environment variable as the value's source.
    pub fn resolve(requested: &str) -> Session<P> {
        Session::resolve_from(requested, Source::Env(P::SELECTOR_ENV))
    }

    /// [`Session::resolve`] for a value from `source` (a warning names it: `--profile`).
    pub fn resolve_from(requested: &str, source: Source<'_>) -> Session<P> {
        let known: Vec<&str> = P::ALL.iter().map(|p| p.name()).collect();
        match resolve_profiles_from(&known, P::COMBINE, source, P::ALWAYS_ON.len(), requested) {
            Ok(indices) => {
                let profiles: Vec<P> = indices
                    .into_iter()
                    .filter_map(|i| P::ALL.get(i).copied())
                    .collect();
                Session {
                    mask: mask_of(&profiles),
                    profiles,
                    warning: None,
                }
            }
            Err(warning) => Session {
                profiles: Vec::new(),
                mask: 0,
                warning: Some(warning),
            },
        }
    }

    /// Resolves the selector's environment variable (unset counts as empty).
    pub fn from_env() -> Session<P> {
        Session::resolve(&std::env::var(P::SELECTOR_ENV).unwrap_or_default())
    }

    /// The session of exactly these profiles (declared order, duplicates dropped); with
    /// none, the fail-closed session, without a warning.
    pub fn of(profiles: &[P]) -> Session<P> {
        let profiles: Vec<P> = P::ALL
            .iter()
            .copied()
            .filter(|p| profiles.contains(p))
            .collect();
        Session {
            mask: mask_of(&profiles),
            profiles,
            warning: None,
        }
    }

    /// The profiles the session sees, in declared order (empty when it failed closed).
    pub fn profiles(&self) -> &[P] {
        &self.profiles
    }

    /// The first profile the session sees (the only one, for a selector that does not
    /// combine).
    pub fn profile(&self) -> Option<P> {
        self.profiles.first().copied()
    }

    /// Whether the session sees only the always-on tools.
    pub fn is_fail_closed(&self) -> bool {
        self.profiles.is_empty()
    }

    /// Why it failed closed, for a warning on stderr.
    pub fn warning(&self) -> Option<&str> {
        self.warning.as_deref()
    }

    /// The bit set of [`CatalogProfile::tools_list_for_mask`] (bit `i` is `P::ALL[i]`),
    /// which the generated `dispatch` tests a tool's profiles against.
    #[inline]
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// The session's MCP `tools/list` result, pretty-printed: a compiled-in constant when
    /// there is one (every single profile, the fail-closed session, and each combination of
    /// a combining catalog of up to six profiles), else built from the manifest by the same
    /// writer.
    pub fn tools_list_json(&self) -> Cow<'static, str> {
        match P::tools_list_for_mask(self.mask()) {
            Some(text) => Cow::Borrowed(text),
            None => Cow::Owned(compose_tools_list(P::SERVED, self.mask())),
        }
    }
}

/// One schema of a tool as served, for [`compose_tools_list`]: generated from the same
/// surface as the compiled-in `tools/list` constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServedEntry {
    /// The tool's position among the catalog's tools, sorted by name; a tool's entries are
    /// next to each other, in the order a session looks for its own.
    pub tool: u32,
    /// The profiles served this schema (bit `i` is profile `i`).
    pub mask: u64,
    /// Whether the tool is always on (the fail-closed session gets its first entry).
    pub always_on: bool,
    /// The tool as `tools/list` shows it, pretty-printed at the depth of an element of the
    /// `tools` array (every line after the first indented by four spaces).
    pub json: &'static str,
}

/// The `tools/list` result, pretty-printed as the compiled-in constants are, of the session
/// seeing the profiles in `mask` (`0`: the fail-closed session). For each tool, the first
/// entry granted to one of the session's profiles is served.
pub fn compose_tools_list(entries: &[ServedEntry], mask: u64) -> String {
    let mut chosen: Vec<&str> = Vec::new();
    let mut last_tool = None;
    for e in entries {
        if last_tool == Some(e.tool) {
            continue;
        }
        let served = if mask == 0 {
            e.always_on
        } else {
            e.mask & mask != 0
        };
        // The fail-closed session takes an always-on tool's first entry, and so does every
        // session for the first entry that matches: either way the tool is settled.
        if served || mask == 0 {
            last_tool = Some(e.tool);
        }
        if served {
            chosen.push(e.json);
        }
    }
    if chosen.is_empty() {
        return "{\n  \"tools\": []\n}\n".to_string();
    }
    let mut out = String::from("{\n  \"tools\": [\n    ");
    out.push_str(&chosen.join(",\n    "));
    out.push_str("\n  ]\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolution_fails_closed_with_the_reason() {
        let known = ["a", "b", "c"];
        assert_eq!(
            resolve_profiles(&known, true, "V", 1, "c, a"),
            Ok(vec![0, 2])
        );
        assert_eq!(
            resolve_profiles(&known, true, "V", 1, " "),
            Err("no profile given (V is empty or unset); failing closed: serving only the 1 always-on tool (known profiles: a, b, c)".to_string())
        );
        assert_eq!(
            resolve_profiles(&known, true, "V", 2, "a,z"),
            Err("unknown profile \"z\" in the combination \"a,z\" (V); failing closed: serving only the 2 always-on tools (known profiles: a, b, c)".to_string())
        );
        assert_eq!(
            resolve_profiles(&known, false, "V", 2, "a,b"),
            Err("unknown profile \"a,b\" (V); failing closed: serving only the 2 always-on tools (known profiles: a, b, c)".to_string())
        );
        assert_eq!(
            resolve_profiles_from(&known, true, Source::Given("--profile"), 1, ""),
            Err("no profile given (--profile is empty); failing closed: serving only the 1 always-on tool (known profiles: a, b, c)".to_string())
        );
        assert_eq!(
            resolve_profiles_from(&known, false, Source::Given("--profile"), 1, "z"),
            Err("unknown profile \"z\" (--profile); failing closed: serving only the 1 always-on tool (known profiles: a, b, c)".to_string())
        );
    }

    #[test]
    fn call_errors_read_well() {
        let e = CallError::unknown_tool("nope");
        assert_eq!(e.to_string(), "unknown tool `nope`");
        assert!(e.is_unknown_tool());
        let e = CallError::InvalidArguments {
            tool: "t".into(),
            violations: vec![
                Violation {
                    field: "a".into(),
                    message: "missing required field `a`".into(),
                },
                Violation {
                    field: "b".into(),
                    message: "field `b` must be a string, found null".into(),
                },
            ],
        };
        assert_eq!(
            e.to_string(),
            "invalid arguments for `t`: missing required field `a`; field `b` must be a string, found null"
        );
    }

    #[test]
    fn rules() {
        assert!(rules::length("é", Some(1), Some(1)));
        assert!(!rules::length("", Some(1), None));
        // Decided by the byte length, and by counting when it cannot decide.
        for (s, min, max) in [
            ("abcd", Some(1), Some(4)),
            ("abcde", None, Some(4)),
            ("éé", Some(3), None),
            ("éé", None, Some(2)),
            ("éé", None, Some(3)),
            ("€€€", Some(3), Some(3)),
            ("€€€", Some(4), None),
            ("𝄞", Some(1), Some(1)),
            ("𝄞", Some(2), None),
        ] {
            let n = s.chars().count() as u64;
            let counted = min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m);
            assert_eq!(rules::length(s, min, max), counted, "{s} {min:?} {max:?}");
        }
        assert!(rules::count(2, Some(1), Some(5)));
        assert!(!rules::count(6, Some(1), Some(5)));
        assert!(rules::bounds(1.0, Some(1.0), None, None, None));
        assert!(!rules::bounds(1.0, None, None, Some(1.0), None));
        assert!(rules::equals_json(&vec![1, 2], "[1,2]"));
        assert!(!rules::equals_json(&"a", "\"b\""));
    }

    #[test]
    fn schema_text_round_trips() {
        let text = r#"{"type":"object","properties":{"k":{"type":"string","enum":["a","b"],"default":"a"},"t":{"type":"string","minLength":1}},"required":["t"],"additionalProperties":false,"if":{"properties":{"k":{"const":"b"}},"required":["k"]},"then":{"required":["t"]}}"#;
        let schema = schema_from_json(text);
        assert_eq!(schema.to_json().to_string(), text);
        assert_eq!(schema_from_json("not json"), Schema::any());
    }
}
