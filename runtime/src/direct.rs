//! The direct path: generated argument types read from JSON text without going through
//! serde's visitors.
//!
//! A call whose arguments arrive as JSON text ([`super::RawArguments`] for `&str`) is first
//! read by [`read`]: the generated [`ReadDirect`] impl of the argument type walks the text
//! once, matching the field names it knows as bytes and building the typed value as it goes.
//! It takes only the common, plain shape of a call: every field at most once, no escapes in
//! field names or enum values, integers written as integers, no unknown field where the
//! struct denies them. Anything else gives [`Fallback`], and the caller parses the same text
//! with `serde_json` and the type's derived `Deserialize`, which decides and words any
//! refusal.
//!
//! So the direct path never decides on its own that arguments are wrong, and what it accepts
//! it reads to exactly the value serde would: strings borrowed, or unescaped by `serde_json`
//! itself; numbers with a fraction or an exponent converted by `serde_json`; free JSON
//! (`serde_json::Value`) built as `serde_json` builds it; nesting well within serde_json's
//! limit. `generated/tests/direct.rs` and the `dispatch_args` fuzz target hold it to that
//! with [`compare`]: whenever it gives a value, serde gives an equal one.

use std::borrow::Cow;
use std::collections::BTreeMap;

/// The direct path does not take this text: parse it with serde instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fallback;

/// What a direct read gives.
pub type Direct<T> = Result<T, Fallback>;

/// Nesting (objects and arrays, the root object included) beyond which the direct path
/// leaves the text to serde. `serde_json` refuses more than 127 levels; stopping well before
/// that keeps the two from ever disagreeing on where the limit falls.
const MAX_DEPTH: u32 = 100;

/// A cursor over JSON text, for the generated [`ReadDirect`] impls.
pub struct Reader<'a> {
    text: &'a str,
    pos: usize,
    depth: u32,
}

/// A type the direct path can read: the generated argument types, their enums and nested
/// structs, and the field types they use.
pub trait ReadDirect<'a>: Sized {
    /// Reads one value at the cursor (whitespace before it already skipped), or gives
    /// [`Fallback`] when the text is not of the plain shape the direct path takes.
    fn read(r: &mut Reader<'a>) -> Direct<Self>;
}

/// Reads `text` as a `T` (whitespace around it allowed, nothing else after it).
#[inline]
pub fn read<'a, T: ReadDirect<'a>>(text: &'a str) -> Direct<T> {
    let mut r = Reader {
        text,
        pos: 0,
        depth: 0,
    };
    r.skip_ws();
    let value = T::read(&mut r)?;
    r.skip_ws();
    if r.pos == r.text.len() {
        Ok(value)
    } else {
        Err(Fallback)
    }
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` that equals `b` (exact for the lowest one).
#[inline(always)]
fn bytes_eq(x: u64, b: u8) -> u64 {
    let y = x ^ (LO * u64::from(b));
    y.wrapping_sub(LO) & !y & HI
}

impl<'a> Reader<'a> {
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    #[inline(always)]
    fn skip_ws(&mut self) {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// Consumes `b` (after whitespace), or falls back.
    #[inline(always)]
    fn expect(&mut self, b: u8) -> Direct<()> {
        self.skip_ws();
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Fallback)
        }
    }

    #[inline(always)]
    fn enter(&mut self) -> Direct<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(Fallback)
        } else {
            Ok(())
        }
    }

    /// Where the next `"`, `\` or control character is, from `from` (the text's length when
    /// there is none). Eight bytes at a time, then byte by byte.
    #[inline(always)]
    fn string_stop(&self, from: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = from;
        while let Some(chunk) = bytes.get(i..i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let x = u64::from_le_bytes(word);
            // Bytes below 0x20: subtracting 0x20 borrows into the high bit, which `!x` keeps
            // only for bytes that were below 0x80.
            let control = x.wrapping_sub(LO * 0x20) & !x & HI;
            let hits = control | bytes_eq(x, b'"') | bytes_eq(x, b'\\');
            if hits != 0 {
                return i + (hits.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        while let Some(&b) = bytes.get(i) {
            if b == b'"' || b == b'\\' || b < 0x20 {
                return i;
            }
            i += 1;
        }
        i
    }

    /// A string without escapes, at the cursor: its contents. An escape falls back.
    #[inline(always)]
    fn plain_str(&mut self) -> Direct<&'a str> {
        if self.peek() != Some(b'"') {
            return Err(Fallback);
        }
        let start = self.pos + 1;
        let end = self.string_stop(start);
        if self.text.as_bytes().get(end) != Some(&b'"') {
            return Err(Fallback);
        }
        self.pos = end + 1;
        self.text.get(start..end).ok_or(Fallback)
    }

    /// A string at the cursor, borrowed when it has no escapes, else decoded by
    /// `serde_json` (which also refuses a bad escape).
    #[inline]
    fn cow_str(&mut self) -> Direct<Cow<'a, str>> {
        if self.peek() != Some(b'"') {
            return Err(Fallback);
        }
        let start = self.pos + 1;
        let end = self.string_stop(start);
        match self.text.as_bytes().get(end) {
            Some(b'"') => {
                self.pos = end + 1;
                self.text.get(start..end).map(Cow::Borrowed).ok_or(Fallback)
            }
            Some(b'\\') => {
                let close = self.string_end(self.pos)?;
                let quoted = self.text.get(self.pos..close).ok_or(Fallback)?;
                let s: String = serde_json::from_str(quoted).map_err(|_| Fallback)?;
                self.pos = close;
                Ok(Cow::Owned(s))
            }
            _ => Err(Fallback),
        }
    }

    /// From the opening quote of a string, the position just past its closing quote
    /// (escapes skipped, not checked).
    fn string_end(&self, open: usize) -> Direct<usize> {
        let bytes = self.text.as_bytes();
        let mut i = open + 1;
        loop {
            i = self.string_stop(i);
            match bytes.get(i) {
                Some(b'"') => return Ok(i + 1),
                Some(b'\\') => i += 2,
                Some(_) => i += 1,
                None => return Err(Fallback),
            }
        }
    }

    /// The name of a member and its `:`, at the cursor: the name as bytes, for a generated
    /// `match`. A name with escapes falls back.
    #[inline(always)]
    pub fn key(&mut self) -> Direct<&'a [u8]> {
        self.skip_ws();
        let key = self.plain_str()?;
        self.expect(b':')?;
        self.skip_ws();
        Ok(key.as_bytes())
    }

    /// `{`: whether a member follows (`false` for `{}`, which is consumed whole).
    #[inline]
    pub fn object_start(&mut self) -> Direct<bool> {
        if self.peek() != Some(b'{') {
            return Err(Fallback);
        }
        self.pos += 1;
        self.enter()?;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            Ok(false)
        } else {
            Ok(true)
        }
    }

    /// After a member: `,` (another follows, `true`) or `}` (the object ends, `false`).
    #[inline]
    pub fn object_next(&mut self) -> Direct<bool> {
        self.skip_ws();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(b'}') => {
                self.pos += 1;
                self.depth -= 1;
                Ok(false)
            }
            _ => Err(Fallback),
        }
    }

    /// Reads a member's value into `slot`; a member given twice falls back (serde refuses a
    /// duplicate field).
    #[inline]
    pub fn once<T: ReadDirect<'a>>(&mut self, slot: &mut Option<T>) -> Direct<()> {
        if slot.is_some() {
            return Err(Fallback);
        }
        *slot = Some(T::read(self)?);
        Ok(())
    }

    /// A member the struct has no field for, which it ignores: read as free JSON and
    /// dropped (serde's `IgnoredAny` also reads it whole, refusing what is not JSON).
    pub fn ignore(&mut self) -> Direct<()> {
        self.json_value().map(drop)
    }

    /// An integer written as one (`-?(0|[1-9][0-9]*)`, at most 18 digits, so it fits `i64`).
    /// A fraction, an exponent or more digits fall back (serde decides).
    #[inline]
    fn integer(&mut self) -> Direct<i64> {
        let bytes = self.text.as_bytes();
        let mut i = self.pos;
        let negative = bytes.get(i) == Some(&b'-');
        if negative {
            i += 1;
        }
        let first = i;
        let mut n: i64 = 0;
        while let Some(&b) = bytes.get(i) {
            if b.is_ascii_digit() {
                if i - first == 18 {
                    return Err(Fallback);
                }
                n = n * 10 + i64::from(b - b'0');
                i += 1;
            } else {
                break;
            }
        }
        let digits = i - first;
        // `-0` is a float to serde_json, which a plain `i64` refuses.
        if digits == 0
            || (negative && n == 0)
            || (digits > 1 && bytes.get(first) == Some(&b'0'))
            || matches!(bytes.get(i), Some(b'.' | b'e' | b'E'))
        {
            return Err(Fallback);
        }
        self.pos = i;
        Ok(if negative { -n } else { n })
    }

    /// A number as `f64`: an integer of at most 15 digits exactly (as serde_json converts
    /// it), anything else by `serde_json` from the number's own text.
    #[inline]
    fn number(&mut self) -> Direct<f64> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let mut i = start;
        let negative = bytes.get(i) == Some(&b'-');
        if negative {
            i += 1;
        }
        let first = i;
        let mut n: u64 = 0;
        while let Some(&b) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
            n = n.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
            i += 1;
        }
        let digits = i - first;
        if digits == 0 || (digits > 1 && bytes.get(first) == Some(&b'0')) {
            return Err(Fallback);
        }
        if digits <= 15 && !matches!(bytes.get(i), Some(b'.' | b'e' | b'E')) {
            self.pos = i;
            // serde_json gives `-0` as -0.0 and other negatives as `i64`, both converted
            // exactly here.
            #[allow(clippy::cast_precision_loss)]
            let x = n as f64;
            return Ok(if negative { -x } else { x });
        }
        let end = self.number_end(i);
        let text = self.text.get(start..end).ok_or(Fallback)?;
        let x: f64 = serde_json::from_str(text).map_err(|_| Fallback)?;
        self.pos = end;
        Ok(x)
    }

    /// Where the characters a JSON number may hold stop, from `from` (the text handed to
    /// `serde_json`, which checks the number's grammar).
    fn number_end(&self, from: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = from;
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        {
            i += 1;
        }
        i
    }

    /// A string without escapes, for matching against an enum's wire names.
    #[inline]
    pub fn enum_name(&mut self) -> Direct<&'a [u8]> {
        self.plain_str().map(str::as_bytes)
    }
}

impl<'a> ReadDirect<'a> for bool {
    #[inline]
    fn read(r: &mut Reader<'a>) -> Direct<bool> {
        let rest = r.text.as_bytes().get(r.pos..).unwrap_or_default();
        if rest.starts_with(b"true") {
            r.pos += 4;
            Ok(true)
        } else if rest.starts_with(b"false") {
            r.pos += 5;
            Ok(false)
        } else {
            Err(Fallback)
        }
    }
}

impl<'a> ReadDirect<'a> for i64 {
    #[inline]
    fn read(r: &mut Reader<'a>) -> Direct<i64> {
        r.integer()
    }
}

impl<'a> ReadDirect<'a> for f64 {
    #[inline]
    fn read(r: &mut Reader<'a>) -> Direct<f64> {
        r.number()
    }
}

impl<'a> ReadDirect<'a> for Cow<'a, str> {
    #[inline]
    fn read(r: &mut Reader<'a>) -> Direct<Self> {
        r.cow_str()
    }
}

impl<'a> Reader<'a> {
    /// Free JSON at the cursor, built as `serde_json` builds a `Value`: integers of at most
    /// 18 digits read here (as `serde_json` reads them: positive ones unsigned, negative ones
    /// signed), any other number by `serde_json` from its own text, a repeated key keeping
    /// its last value.
    fn json_value(&mut self) -> Direct<serde_json::Value> {
        use serde_json::Value;
        match self.peek() {
            Some(b'"') => Ok(Value::String(self.cow_str()?.into_owned())),
            Some(b'{') => Ok(Value::Object(self.json_object()?)),
            Some(b'[') => self.array(Self::json_value).map(Value::Array),
            Some(b't') => self.literal(b"true", Value::Bool(true)),
            Some(b'f') => self.literal(b"false", Value::Bool(false)),
            Some(b'n') => self.literal(b"null", Value::Null),
            Some(b'-' | b'0'..=b'9') => {
                if let Ok(n) = self.integer() {
                    return Ok(Value::from(n));
                }
                let start = self.pos;
                let end = self.number_end(start);
                let text = self.text.get(start..end).ok_or(Fallback)?;
                match serde_json::from_str::<Value>(text) {
                    Ok(n @ Value::Number(_)) => {
                        self.pos = end;
                        Ok(n)
                    }
                    _ => Err(Fallback),
                }
            }
            _ => Err(Fallback),
        }
    }

    /// An array at the cursor, each item read by `item`.
    fn array<T>(&mut self, mut item: impl FnMut(&mut Self) -> Direct<T>) -> Direct<Vec<T>> {
        if self.peek() != Some(b'[') {
            return Err(Fallback);
        }
        self.pos += 1;
        self.enter()?;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(items);
        }
        loop {
            self.skip_ws();
            items.push(item(self)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(items);
                }
                _ => return Err(Fallback),
            }
        }
    }

    fn literal(&mut self, word: &[u8], value: serde_json::Value) -> Direct<serde_json::Value> {
        if self
            .text
            .as_bytes()
            .get(self.pos..)
            .is_some_and(|rest| rest.starts_with(word))
        {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(Fallback)
        }
    }

    fn json_object(&mut self) -> Direct<serde_json::Map<String, serde_json::Value>> {
        let mut map = serde_json::Map::new();
        let mut more = self.object_start()?;
        while more {
            self.skip_ws();
            let key = self.cow_str()?.into_owned();
            self.expect(b':')?;
            self.skip_ws();
            let value = self.json_value()?;
            map.insert(key, value);
            more = self.object_next()?;
        }
        Ok(map)
    }
}

impl<'a> ReadDirect<'a> for serde_json::Value {
    #[inline]
    fn read(r: &mut Reader<'a>) -> Direct<Self> {
        r.json_value()
    }
}

impl<'a> ReadDirect<'a> for serde_json::Map<String, serde_json::Value> {
    #[inline]
    fn read(r: &mut Reader<'a>) -> Direct<Self> {
        r.json_object()
    }
}

/// A boxed value (a recursive type).
impl<'a, T: ReadDirect<'a>> ReadDirect<'a> for Box<T> {
    #[inline]
    fn read(r: &mut Reader<'a>) -> Direct<Self> {
        T::read(r).map(Box::new)
    }
}

/// A nullable value (`Option<T>`): `null` is `None`, anything else `T`'s, as serde_json
/// reads an `Option`.
impl<'a, T: ReadDirect<'a>> ReadDirect<'a> for Option<T> {
    #[inline]
    fn read(r: &mut Reader<'a>) -> Direct<Self> {
        if r.peek() == Some(b'n') {
            r.literal(b"null", serde_json::Value::Null)?;
            return Ok(None);
        }
        T::read(r).map(Some)
    }
}

impl<'a, T: ReadDirect<'a>> ReadDirect<'a> for Vec<T> {
    #[inline]
    fn read(r: &mut Reader<'a>) -> Direct<Self> {
        r.array(T::read)
    }
}

impl<'a, T: ReadDirect<'a>> ReadDirect<'a> for BTreeMap<Cow<'a, str>, T> {
    fn read(r: &mut Reader<'a>) -> Direct<Self> {
        let mut out = BTreeMap::new();
        let mut more = r.object_start()?;
        while more {
            r.skip_ws();
            let key = r.cow_str()?;
            r.expect(b':')?;
            r.skip_ws();
            // A repeated key keeps the last value, as the serde path does.
            out.insert(key, T::read(r)?);
            more = r.object_next()?;
        }
        Ok(out)
    }
}

/// How the direct path and serde read one text: what [`compare`] finds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// The direct path read it, to the value serde reads.
    Same,
    /// The direct path left it to serde.
    FellBack,
    /// The direct path read it, and serde refused it or read another value: a bug.
    Differ(String),
}

/// Reads `text` as `T` both ways, directly and with serde, and says whether they agree: for
/// the tests and fuzz targets that hold the direct path to serde's reading (the generated
/// `ARGUMENT_TYPES` table has it for every argument type). Values are compared with `==`
/// and as the JSON they serialize to (which tells `-0.0` from `0.0`).
pub fn compare<'de, T>(text: &'de str) -> Agreement
where
    T: ReadDirect<'de> + serde::Deserialize<'de> + serde::Serialize + PartialEq + std::fmt::Debug,
{
    let Ok(direct) = read::<T>(text) else {
        return Agreement::FellBack;
    };
    match serde_json::from_str::<T>(text) {
        Ok(serde)
            if serde == direct
                && serde_json::to_string(&serde).ok() == serde_json::to_string(&direct).ok() =>
        {
            Agreement::Same
        }
        Ok(serde) => Agreement::Differ(format!("direct read {direct:?}, serde {serde:?}")),
        Err(e) => Agreement::Differ(format!("direct read {direct:?}, serde refused: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same<'a, T>(text: &'a str) -> bool
    where
        T: ReadDirect<'a> + serde::Deserialize<'a> + serde::Serialize + PartialEq + std::fmt::Debug,
    {
        match compare::<T>(text) {
            Agreement::Same => true,
            Agreement::FellBack => false,
            Agreement::Differ(why) => panic!("{text}: {why}"),
        }
    }

    #[test]
    fn strings_borrow_unless_escaped_and_bad_ones_fall_back() {
        assert_eq!(read::<Cow<str>>(r#" "plain" "#), Ok(Cow::Borrowed("plain")));
        let long = format!("\"{}\"", "é".repeat(20));
        assert!(matches!(read::<Cow<str>>(&long), Ok(Cow::Borrowed(_))));
        assert_eq!(
            read::<Cow<str>>(r#""a\"b\\c\u00e9\n\ud83d\ude00""#),
            Ok(Cow::Owned("a\"b\\cé\n\u{1F600}".to_string()))
        );
        for text in [
            r#""a\"b\\c""#,
            r#""\u0041""#,
            "\"an escape at the end\\n\"",
            r#""x""#,
        ] {
            assert!(same::<Cow<str>>(text), "{text}");
        }
        for text in [
            "\"raw\ncontrol\"",
            "\"tab\there\"",
            r#""bad \x escape""#,
            r#""lone \ud800""#,
            r#""unterminated"#,
            r#""ends with a backslash\"#,
            "'single'",
            "\"a\" \"b\"",
        ] {
            assert!(!same::<Cow<str>>(text), "{text}");
        }
    }

    #[test]
    fn integers_are_read_when_written_as_integers() {
        assert_eq!(read::<i64>("0"), Ok(0));
        assert_eq!(read::<i64>("-7"), Ok(-7));
        assert_eq!(
            read::<i64>("123456789012345678"),
            Ok(123_456_789_012_345_678)
        );
        for text in [
            "-0",
            "3.0",
            "1e2",
            "01",
            "-",
            "",
            "1234567890123456789",
            "+1",
            " 1 x",
        ] {
            assert_eq!(read::<i64>(text), Err(Fallback), "{text}");
        }
        // `-0` is a float to serde_json: a plain `i64` refuses it, so the direct path must
        // not read it either.
        assert!(!same::<Vec<i64>>("[-0]"));
        assert!(same::<Vec<i64>>("[ 1 , -2,3 ]"));
    }

    #[test]
    fn numbers_convert_as_serde_json_converts_them() {
        for text in [
            "0",
            "-0",
            "-0.0",
            "120",
            "120.0",
            "0.1",
            "1e-7",
            "1E+2",
            "123456789012345",
            "1234567890123456789",
            "-9007199254740993",
            "3.141592653589793238",
            "2.2250738585072011e-308",
            "1.7976931348623157e308",
        ] {
            assert!(same::<f64>(text), "{text}");
        }
        assert_eq!(read::<f64>("-0").map(f64::is_sign_negative), Ok(true));
        for text in ["1e400", "00.5", ".5", "5.", "1e", "--1", "1.5x"] {
            assert!(!same::<f64>(text), "{text}");
        }
    }

    #[test]
    fn containers_free_json_and_nesting() {
        assert!(same::<Vec<Cow<str>>>(r#"[ "a", "b\n" ]"#));
        assert!(same::<Vec<bool>>("[]"));
        assert!(!same::<Vec<bool>>("[true,]"));
        assert!(!same::<Vec<bool>>("[truex]"));
        // A repeated key of a map keeps the last value, on both paths.
        assert!(same::<BTreeMap<Cow<str>, i64>>(r#"{"a": 1, "a": 2}"#));
        assert!(same::<serde_json::Value>(
            r#"{"a": [1, 2.5, "x", null, {"b": {}}], "c": "d\"e"}"#
        ));
        assert!(same::<serde_json::Map<String, serde_json::Value>>(
            r#"{"a":{"b":[]}}"#
        ));
        assert!(!same::<serde_json::Map<String, serde_json::Value>>("[]"));
        assert!(!same::<serde_json::Value>(r#"{"a": [1, }"#));
        // Deep free JSON is left to serde, which has the last word on its nesting limit.
        let deep = format!("{}{}", "[".repeat(150), "]".repeat(150));
        assert_eq!(read::<serde_json::Value>(&deep), Err(Fallback));
        let shallow = format!("{}{}", "[".repeat(50), "]".repeat(50));
        assert!(same::<serde_json::Value>(&shallow));
    }
}
