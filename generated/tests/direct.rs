//! The direct path (`toolgate_schema::runtime::direct`) against serde, for every argument
//! type of both bundled catalogs, of the tricky one and of the wild shapes (unions,
//! nullables, constants, `$defs`: `tests/catalogs/wild_typed`): JSON texts written from each input
//! schema with every form JSON allows (escapes, whitespace, number spellings, member order,
//! repeated and unknown members, wrong types, broken syntax), each read both ways. Whenever
//! the direct path reads a text, serde must read it to the same value; the direct path must
//! take the plain calls, and leave the others to serde.
//!
//! The texts come from a fixed-seed generator, so a failure names a text that reproduces.

use std::fmt::Write as _;

use toolgate_generated::{maetra, tatara};
use toolgate_schema::model::{Additional, Kind, Schema};
use toolgate_schema::runtime::direct::Agreement;
use toolgate_schema::runtime::{ArgumentType, schema_from_json};

#[allow(missing_docs)]
mod tricky {
    toolgate_macros::catalog!("tests/catalogs/tricky");
}

#[allow(missing_docs)]
mod wild_typed {
    toolgate_macros::catalog!("tests/catalogs/wild_typed");
}

/// xorshift64*: a fixed sequence, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// How much the generator departs from a plain call: 0 writes calls an agent would send
/// (compact or pretty, no escapes), higher values mix in every other form.
#[derive(Clone, Copy)]
struct Mode {
    odd: usize,
}

fn ws(rng: &mut Rng, mode: Mode, out: &mut String) {
    if rng.chance(30) {
        out.push_str(rng.pick(&[" ", "\n  ", "\t", "\r\n", "  "]));
    }
    if mode.odd > 0 && rng.chance(1) {
        // Not JSON whitespace: both paths must refuse it.
        out.push('\u{a0}');
    }
}

fn string(rng: &mut Rng, mode: Mode, content: &str, out: &mut String) {
    out.push('"');
    for c in content.chars() {
        let escape = mode.odd > 0 && rng.chance(mode.odd);
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' if mode.odd > 0 && rng.chance(5) => out.push('\n'), // raw: not JSON
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if escape && (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c if escape => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
            c => out.push(c),
        }
    }
    if mode.odd > 0 && rng.chance(1) {
        out.push_str(rng.pick(&["\\x", "\\ud800", "\\u12"]));
    }
    out.push('"');
}

const WORDS: &[&str] = &[
    "payments-api",
    "task-8841",
    "a",
    "",
    "Refund 1182, then notify",
    "é",
    "日本語",
    "\u{1F600} emoji",
    "quote \" inside",
    "back\\slash",
    "line\nbreak",
    "tab\tand\u{1}control",
    "üüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüü",
];

fn integer_text(rng: &mut Rng, mode: Mode) -> String {
    if mode.odd == 0 || rng.chance(60) {
        return rng
            .pick(&["0", "1", "3", "20", "500", "-7", "86400"])
            .to_string();
    }
    rng.pick(&[
        "-0",
        "3.0",
        "1e2",
        "2E+1",
        "-4.0e0",
        "2.5",
        "01",
        "-",
        "1.",
        "123456789012345678",
        "-123456789012345678",
        "1234567890123456789",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "18446744073709551616",
        "1e19",
        "0.0000",
    ])
    .to_string()
}

fn number_text(rng: &mut Rng, mode: Mode) -> String {
    if mode.odd == 0 || rng.chance(40) {
        return rng
            .pick(&["0", "1", "120", "-3", "120.0", "0.5"])
            .to_string();
    }
    rng.pick(&[
        "-0",
        "-0.0",
        "1e-7",
        "1E+2",
        "0.1e1",
        "123456789012345",
        "1234567890123456",
        "-9007199254740993",
        "18446744073709551616",
        "3.141592653589793238",
        "1e400",
        "2.2250738585072011e-308",
        "1.7976931348623157e308",
        "00.5",
        ".5",
        "5.",
        "1e",
        "--1",
    ])
    .to_string()
}

fn any_value(rng: &mut Rng, mode: Mode, depth: usize, out: &mut String) {
    let choice = if depth > 3 {
        rng.below(4)
    } else {
        rng.below(6)
    };
    match choice {
        0 => out.push_str(rng.pick(&["null", "true", "false"])),
        1 => out.push_str(&number_text(rng, mode)),
        2 | 3 => {
            let w = rng.pick(WORDS);
            string(rng, mode, w, out);
        }
        4 => {
            out.push('[');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push(',');
                }
                ws(rng, mode, out);
                any_value(rng, mode, depth + 1, out);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push(',');
                }
                let k = rng.pick(&["order", "amount", "id", "order"]);
                string(rng, mode, k, out);
                out.push(':');
                ws(rng, mode, out);
                any_value(rng, mode, depth + 1, out);
            }
            out.push('}');
        }
    }
}

fn wrong_value(rng: &mut Rng, out: &mut String) {
    out.push_str(rng.pick(&[
        "null",
        "7",
        "\"x\"",
        "[]",
        "{}",
        "true",
        "[1,]",
        "{\"a\" 1}",
    ]));
}

fn value(s: &Schema, rng: &mut Rng, mode: Mode, depth: usize, out: &mut String) {
    if mode.odd > 0 && rng.chance(2) {
        return wrong_value(rng, out);
    }
    match &s.kind {
        Kind::Any => any_value(rng, mode, depth, out),
        Kind::Boolean => out.push_str(if rng.chance(50) { "true" } else { "false" }),
        Kind::String(r) => match &r.enum_values {
            Some(values) if mode.odd == 0 || rng.chance(90) => {
                let v = &values[rng.below(values.len())];
                string(rng, mode, v, out);
            }
            _ => {
                let mut w = rng.pick(WORDS).to_string();
                if let Some(min) = r.min_length {
                    while (w.chars().count() as u64) < min {
                        w.push('m');
                    }
                }
                if mode.odd == 0 {
                    w.retain(|c| c != '"' && c != '\\' && !c.is_control());
                    if w.is_empty() && r.min_length.is_some_and(|m| m > 0) {
                        w.push('m');
                    }
                }
                string(rng, mode, &w, out);
            }
        },
        Kind::Integer(_) => out.push_str(&integer_text(rng, mode)),
        Kind::Number(_) => out.push_str(&number_text(rng, mode)),
        Kind::Array(a) => {
            out.push('[');
            let n = rng.below(4).max(a.min_items.unwrap_or(0) as usize);
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                ws(rng, mode, out);
                match &a.items {
                    Some(item) => value(item, rng, mode, depth + 1, out),
                    None => any_value(rng, mode, depth + 1, out),
                }
                ws(rng, mode, out);
            }
            if mode.odd > 0 && n > 0 && rng.chance(2) {
                out.push(',');
            }
            out.push(']');
        }
        Kind::Object(o) => {
            let mut members: Vec<(String, Option<&Schema>)> = Vec::new();
            for (name, p) in &o.properties {
                if o.is_required(name) || rng.chance(60) {
                    members.push((name.clone(), Some(p)));
                }
            }
            if !matches!(o.additional, Additional::Forbidden) {
                for _ in 0..rng.below(3) {
                    let k = rng.pick(&["extra", "order", "zz"]).to_string();
                    if mode.odd > 0 || o.property(&k).is_none() {
                        members.push((k, None));
                    }
                }
            }
            if mode.odd > 0 {
                if rng.chance(5) {
                    members.push(("no_such_field".to_string(), None));
                }
                if !members.is_empty() && rng.chance(5) {
                    let twice = members[rng.below(members.len())].clone();
                    members.push(twice);
                }
                if !members.is_empty() && rng.chance(3) {
                    members.remove(rng.below(members.len()));
                }
            }
            // Any order.
            for i in (1..members.len()).rev() {
                members.swap(i, rng.below(i + 1));
            }
            out.push('{');
            for (i, (name, p)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                ws(rng, mode, out);
                string(rng, mode, name, out);
                ws(rng, mode, out);
                out.push(':');
                ws(rng, mode, out);
                match (p, &o.additional) {
                    (Some(p), _) => value(p, rng, mode, depth + 1, out),
                    (None, Additional::Schema(a)) => value(a, rng, mode, depth + 1, out),
                    (None, _) => any_value(rng, mode, depth + 1, out),
                }
                ws(rng, mode, out);
            }
            out.push('}');
        }
    }
}

fn all_types() -> Vec<&'static ArgumentType> {
    tatara::ARGUMENT_TYPES
        .iter()
        .chain(maetra::ARGUMENT_TYPES)
        .chain(tricky::ARGUMENT_TYPES)
        .collect()
}

/// Texts of every form: never a disagreement, and both outcomes common.
#[test]
fn the_direct_path_reads_what_serde_reads_or_falls_back() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut same, mut fell_back) = (0usize, 0usize);
    // The wild shapes too: the texts follow the typed part of their schemas only (a union
    // gets any JSON), so most fall back, and those the direct path reads must agree.
    for t in all_types().into_iter().chain(wild_typed::ARGUMENT_TYPES) {
        let schema = schema_from_json(t.input_schema_json);
        for round in 0..400 {
            let mode = Mode {
                odd: [2, 5, 20][round % 3],
            };
            let mut text = String::new();
            ws(&mut rng, mode, &mut text);
            value(&schema, &mut rng, mode, 0, &mut text);
            ws(&mut rng, mode, &mut text);
            if rng.chance(1) {
                text.push_str(rng.pick(&["x", "}", ",", "{}"]));
            }
            match (t.compare_direct)(&text) {
                Agreement::Same => same += 1,
                Agreement::FellBack => fell_back += 1,
                Agreement::Differ(why) => panic!("{}: {text:?}: {why}", t.type_name),
            }
        }
    }
    eprintln!("direct reads: {same}, fallbacks: {fell_back}");
    assert!(same > 2_000, "direct reads: {same}, fallbacks: {fell_back}");
    assert!(
        fell_back > 2_000,
        "direct reads: {same}, fallbacks: {fell_back}"
    );
}

/// A plain call, compact or pretty, is read by the direct path, not by serde.
#[test]
fn plain_calls_take_the_direct_path() {
    let mut rng = Rng(7);
    for t in all_types() {
        let schema = schema_from_json(t.input_schema_json);
        for _ in 0..50 {
            let mut text = String::new();
            value(&schema, &mut rng, Mode { odd: 0 }, 0, &mut text);
            if t.tool == "match" && text.contains("\"labels\"") {
                // An object with properties and an `additionalProperties` schema (serde's
                // `flatten`) is always left to serde.
                assert_eq!((t.compare_direct)(&text), Agreement::FellBack, "{text}");
                continue;
            }
            assert_eq!(
                (t.compare_direct)(&text),
                Agreement::Same,
                "{}: {text}",
                t.type_name
            );
        }
    }
}

/// Calls of the wild shapes, as an agent sends them: a struct holding a union, a nullable, a
/// constant or a recursive definition is read by the direct path too, to the value serde
/// reads.
#[test]
fn calls_of_the_wild_shapes_take_the_direct_path() {
    let calls: &[(&str, &str)] = &[
        (
            "update_issue_labels",
            r#"{"owner":"o","repo":"r","issue_number":3,"labels":["bug",{"name":"p1","confidence":"HIGH"}]}"#,
        ),
        (
            "git_create_branch",
            r#"{"repo_path":"/r","branch_name":"b","base_branch":null}"#,
        ),
        (
            "git_create_branch",
            r#"{ "repo_path": "/r", "branch_name": "b", "base_branch": "main" }"#,
        ),
        (
            "tree_edit",
            r#"{"tree":{"name":"root","children":[{"name":"a","children":[{"name":"b"}]}]},"edit":{"op":"rename","to":"c"}}"#,
        ),
        (
            "tree_edit",
            r#"{"tree":{"name":"r"},"edit":{"op":"remove","depth":2}}"#,
        ),
        (
            "route_plan",
            r#"{"from":{"label":"a","lat":0,"lon":0},"to":{"label":"b","lat":1.5,"lon":-1},"via":[{"label":"c","lat":2,"lon":2}],"mode":"bike","fallback":null,"limit":{"kind":"distance","km":3},"rest_at":"by the lake"}"#,
        ),
    ];
    for (tool, text) in calls {
        let t = wild_typed::ARGUMENT_TYPES
            .iter()
            .find(|t| t.tool == *tool && !t.profiles.is_empty() && t.type_name.ends_with("::Args"))
            .unwrap_or_else(|| panic!("no argument type for {tool}"));
        assert_eq!((t.compare_direct)(text), Agreement::Same, "{tool}: {text}");
    }
}
