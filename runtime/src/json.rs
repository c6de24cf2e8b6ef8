//! An order-preserving JSON value and the one canonical writer.
//!
//! Catalog files are read into [`Value`], whose objects keep their keys in source order no
//! matter which features of `serde_json` the build happens to unify (`preserve_order` changes
//! what `serde_json::Value` does; this type does not depend on it). Everything toolgate prints
//! (manifests, `tools/list`) is built as a [`Value`] in a fixed key order and written by
//! [`to_pretty`] or [`to_compact`], so a proc-macro on the host and the binary on the target
//! produce the same bytes.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A JSON number, kept as the kind of number it was read as.
#[derive(Clone, Copy, Debug)]
pub enum Number {
    /// A non-negative integer.
    UInt(u64),
    /// A negative integer.
    Int(i64),
    /// Anything with a fraction or an exponent.
    Float(f64),
}

impl Number {
    /// The value as `f64` (exact for integers up to 2^53).
    pub fn as_f64(self) -> f64 {
        match self {
            Number::UInt(n) => n as f64,
            Number::Int(n) => n as f64,
            Number::Float(f) => f,
        }
    }

    /// The value as `u64` when it is a non-negative integer.
    pub fn as_u64(self) -> Option<u64> {
        match self {
            Number::UInt(n) => Some(n),
            Number::Int(_) => None,
            Number::Float(f) if f >= 0.0 && f.fract() == 0.0 && f <= u64::MAX as f64 => {
                Some(f as u64)
            }
            Number::Float(_) => None,
        }
    }

    /// The value as `i64` when it is an integer that `i64` holds (a float only below 9e15,
    /// where every integer is exact): what a generated integer field takes.
    pub fn as_i64_exact(self) -> Option<i64> {
        match self {
            Number::UInt(u) => i64::try_from(u).ok(),
            Number::Int(i) => Some(i),
            Number::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(f as i64),
            Number::Float(_) => None,
        }
    }

    /// Whether the number has no fractional part.
    pub fn is_integer(self) -> bool {
        match self {
            Number::UInt(_) | Number::Int(_) => true,
            Number::Float(f) => f.is_finite() && f.fract() == 0.0,
        }
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Self) -> bool {
        match (*self, *other) {
            (Number::UInt(a), Number::UInt(b)) => a == b,
            (Number::Int(a), Number::Int(b)) => a == b,
            (a, b) => a.as_f64() == b.as_f64(),
        }
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::UInt(n) => write!(f, "{n}"),
            Number::Int(n) => write!(f, "{n}"),
            Number::Float(x) => {
                let text = serde_json::to_string(x).map_err(|_| fmt::Error)?;
                f.write_str(&text)
            }
        }
    }
}

/// A JSON value whose objects keep their keys in the order they were written or built.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, in key order.
    Object(Map),
}

/// An object: keys in insertion order, each key at most once.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Map {
    entries: Vec<(String, Value)>,
}

impl Map {
    /// An empty object.
    pub fn new() -> Self {
        Map::default()
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key`, replacing its value in place when it exists, else appending it.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// Removes `key` and returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let at = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(at).1)
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_str())
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the object is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl FromIterator<(String, Value)> for Map {
    /// Collects entries as [`Map::insert`] would (a repeated key keeps its first place and
    /// its last value), in linear time: past a few entries, keys are found through a hash
    /// index instead of a scan, so that a tool call's arguments of a million keys are not
    /// a quadratic amount of work.
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        const SCAN: usize = 32;
        let mut map = Map::new();
        let mut index: Option<std::collections::HashMap<String, usize>> = None;
        for (k, v) in iter {
            let Some(ix) = &mut index else {
                map.insert(k, v);
                if map.entries.len() >= SCAN {
                    index = Some(
                        map.entries
                            .iter()
                            .enumerate()
                            .map(|(i, (k, _))| (k.clone(), i))
                            .collect(),
                    );
                }
                continue;
            };
            match ix.get(&k) {
                Some(&i) => map.entries[i].1 = v,
                None => {
                    ix.insert(k.clone(), map.entries.len());
                    map.entries.push((k, v));
                }
            }
        }
        map
    }
}

impl Value {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The JSON type name, as JSON Schema spells it (`integer` for whole numbers).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_integer() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    /// A copy with the keys of every object sorted (for output whose order carries no meaning).
    pub fn sorted(&self) -> Value {
        match self {
            Value::Array(a) => Value::Array(a.iter().map(Value::sorted).collect()),
            Value::Object(m) => {
                let mut entries: Vec<(String, Value)> =
                    m.iter().map(|(k, v)| (k.to_string(), v.sorted())).collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Value::Object(Map { entries })
            }
            other => other.clone(),
        }
    }

    /// Shorthand for a string value.
    pub fn str(s: impl Into<String>) -> Value {
        Value::String(s.into())
    }

    /// Converts from `serde_json::Value`. Object order is whatever that map gives, so use
    /// this only where order does not matter (values received from a client).
    pub fn from_serde(value: &serde_json::Value) -> Value {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => Value::Number(if let Some(u) = n.as_u64() {
                Number::UInt(u)
            } else if let Some(i) = n.as_i64() {
                Number::Int(i)
            } else {
                Number::Float(n.as_f64().unwrap_or(0.0))
            }),
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(a) => Value::Array(a.iter().map(Value::from_serde).collect()),
            // A `serde_json::Map` has each key once: no need to look for duplicates (which
            // `Map::insert` does in linear time, so quadratic for a large object).
            serde_json::Value::Object(m) => Value::Object(Map {
                entries: m
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::from_serde(v)))
                    .collect(),
            }),
        }
    }

    /// Converts to `serde_json::Value` (for APIs that want one, such as an MCP SDK).
    pub fn to_serde(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(Number::UInt(n)) => serde_json::Value::from(*n),
            Value::Number(Number::Int(n)) => serde_json::Value::from(*n),
            Value::Number(Number::Float(f)) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Array(a) => serde_json::Value::Array(a.iter().map(Value::to_serde).collect()),
            Value::Object(m) => serde_json::Value::Object(
                m.iter()
                    .map(|(k, v)| (k.to_string(), v.to_serde()))
                    .collect(),
            ),
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Number(Number::UInt(n))
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Object(m)
    }
}

impl From<Vec<Value>> for Value {
    fn from(a: Vec<Value>) -> Self {
        Value::Array(a)
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(Number::UInt(n)) => serializer.serialize_u64(*n),
            Value::Number(Number::Int(n)) => serializer.serialize_i64(*n),
            Value::Number(Number::Float(f)) => serializer.serialize_f64(*f),
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(a) => {
                let mut seq = serializer.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Value::Object(m) => {
                let mut map = serializer.serialize_map(Some(m.len()))?;
                for (k, v) in m.iter() {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(if v >= 0 {
            Number::UInt(v as u64)
        } else {
            Number::Int(v)
        }))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(Number::UInt(v)))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Number(Number::Float(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Deserialize::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        // Duplicate keys are found by a linear scan while the object is small (catalog
        // files), and through a hash set past that, so that a hostile object of a million
        // keys (a tool call's arguments) is read in linear time.
        const SCAN: usize = 32;
        let mut seen: Option<std::collections::HashSet<String>> = None;
        while let Some(key) = access.next_key::<String>()? {
            let duplicate = match &mut seen {
                Some(set) => !set.insert(key.clone()),
                None => map.contains_key(&key),
            };
            if duplicate {
                return Err(de::Error::custom(format_args!("duplicate key `{key}`")));
            }
            let value: Value = access.next_value()?;
            map.entries.push((key, value));
            if seen.is_none() && map.entries.len() >= SCAN {
                seen = Some(map.keys().map(str::to_string).collect());
            }
        }
        Ok(Value::Object(map))
    }
}

/// Writes `value` as JSON indented by two spaces, with one trailing newline.
pub fn to_pretty(value: &Value) -> String {
    // Serializing our own types cannot fail: keys are strings and floats are finite.
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes `value` as compact JSON on one line, without a trailing newline.
pub fn to_compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&to_compact(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_source_order_and_rejects_duplicate_keys() {
        let v: Value = serde_json::from_str(r#"{"b":1,"a":{"z":true,"y":null}}"#).unwrap();
        assert_eq!(to_compact(&v), r#"{"b":1,"a":{"z":true,"y":null}}"#);
        let err = serde_json::from_str::<Value>(r#"{"a":1,"a":2}"#).unwrap_err();
        assert!(err.to_string().contains("duplicate key `a`"), "{err}");
    }

    #[test]
    fn collecting_keeps_the_first_place_and_the_last_value() {
        for n in [3, 100] {
            let mut entries: Vec<(String, Value)> =
                (0..n).map(|i| (format!("k{i}"), Value::from(i))).collect();
            entries.push(("k1".into(), Value::from("last")));
            let map: Map = entries.into_iter().collect();
            assert_eq!(map.len(), n as usize);
            assert_eq!(map.keys().nth(1), Some("k1"));
            assert_eq!(map.get("k1"), Some(&Value::from("last")));
        }
    }

    #[test]
    fn a_large_object_keeps_its_order_and_its_duplicates_are_found() {
        let keys: Vec<String> = (0..1000).rev().map(|i| format!("\"k{i}\":{i}")).collect();
        let text = format!("{{{}}}", keys.join(","));
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(to_compact(&v), text);
        // A duplicate past the linear scan, and one of the first keys repeated late.
        for dup in ["\"k5\":0", "\"k999\":0"] {
            let text = format!("{{{},{dup}}}", keys.join(","));
            let err = serde_json::from_str::<Value>(&text).unwrap_err();
            let key = dup.split('"').nth(1).unwrap();
            assert!(
                err.to_string().contains(&format!("duplicate key `{key}`")),
                "{err}"
            );
        }
        // From serde_json (keys unique, sorted), order kept as given.
        let s: serde_json::Value = serde_json::from_str(&text).unwrap();
        let back = Value::from_serde(&s);
        let keys: Vec<&str> = back.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 1000);
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn pretty_output_has_two_space_indent_and_newline() {
        let v: Value = serde_json::from_str(r#"{"t":[1,-2,0.5]}"#).unwrap();
        assert_eq!(
            to_pretty(&v),
            "{\n  \"t\": [\n    1,\n    -2,\n    0.5\n  ]\n}\n"
        );
    }
}
