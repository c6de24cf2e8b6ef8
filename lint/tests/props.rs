//! Property tests of the lint: the argument parser reads back any call it is given, and
//! every finding in any Markdown built from the fragments skills are made of points at its
//! token, by byte span and by line and column.

use std::sync::OnceLock;

use proptest::prelude::*;
use toolgate_lint::args::{ArgKind, Value, ValueKind, parse_standalone};
use toolgate_lint::{Linter, Rule, Settings};
use toolgate_schema::Surface;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------------------
// The argument parser: print pairs, parse them back.

/// A literal as a skill writes it.
#[derive(Clone, Debug, PartialEq)]
enum Lit {
    /// A quoted string: the quote and the string it stands for.
    Str(char, String),
    /// A number as written, and whether it is an integer.
    Number(String, bool),
    /// A boolean as written (`true`, `False`, ...).
    Bool(&'static str),
    /// `null`, `None`, ...
    Null(&'static str),
    /// `<...>`, `...` or `…`.
    Placeholder(String),
    /// `"a"|"b"`.
    Alternatives(Vec<Lit>),
    /// `[...]`, nested.
    List(Vec<Lit>),
}

fn string_content() -> impl Strategy<Value = String> {
    // Quotes of both kinds, backslashes, escapes, non-ASCII, brackets, separators.
    proptest::collection::vec(
        prop_oneof![
            6 => proptest::char::range('a', 'z'),
            1 => proptest::sample::select(vec![
                '"', '\'', '\\', '\n', '\t', ' ', ',', ')', '(', '[', ']', '{', '}', '|', '=',
                '#', '<', '>', '.', 'é', '日', '🚀', '\u{2026}',
            ]),
        ],
        0..12,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn scalar() -> impl Strategy<Value = Lit> {
    prop_oneof![
        4 => (proptest::sample::select(vec!['"', '\'']), string_content())
            .prop_map(|(q, s)| Lit::Str(q, s)),
        1 => (any::<i32>()).prop_map(|n| Lit::Number(n.to_string(), true)),
        1 => (-1000i32..1000, 0u32..1000, proptest::option::of(-20i32..20)).prop_map(|(i, f, e)| {
            match e {
                Some(e) => Lit::Number(format!("{i}.{f}e{e}"), false),
                None => Lit::Number(format!("{i}.{f}"), false),
            }
        }),
        1 => proptest::sample::select(vec!["true", "false", "True", "False", "TRUE"]).prop_map(Lit::Bool),
        1 => proptest::sample::select(vec!["null", "None", "nil", "NULL"]).prop_map(Lit::Null),
        1 => prop_oneof![
            "<[a-z_ ]{1,20}>".prop_map(|s| s),
            Just("...".to_string()),
            Just("\u{2026}".to_string()),
        ]
        .prop_map(Lit::Placeholder),
    ]
}

fn literal() -> impl Strategy<Value = Lit> {
    scalar().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            (scalar(), proptest::collection::vec(scalar(), 1..3)).prop_filter_map(
                "alternatives of strings, numbers and booleans",
                |(first, rest)| {
                    let mut all = vec![first];
                    all.extend(rest);
                    all.iter()
                        .all(|l| matches!(l, Lit::Str(..) | Lit::Number(..) | Lit::Bool(_)))
                        .then_some(Lit::Alternatives(all))
                }
            ),
            proptest::collection::vec(inner, 0..4).prop_map(Lit::List),
        ]
    })
}

fn print(lit: &Lit, out: &mut String) {
    match lit {
        Lit::Str(q, s) => {
            out.push(*q);
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    c if c == *q => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push(c),
                }
            }
            out.push(*q);
        }
        Lit::Number(s, _) | Lit::Placeholder(s) => out.push_str(s),
        Lit::Bool(s) | Lit::Null(s) => out.push_str(s),
        Lit::Alternatives(alts) => {
            for (i, a) in alts.iter().enumerate() {
                if i > 0 {
                    out.push_str(if i % 2 == 0 { "|" } else { " | " });
                }
                print(a, out);
            }
        }
        Lit::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print(item, out);
            }
            out.push(']');
        }
    }
}

/// What the parser says a value is, in the terms of [`Lit`] (a list is compared as text).
fn read(value: &Value, text: &str) -> Result<Lit, String> {
    let written = value.span.of(text).to_string();
    Ok(match &value.kind {
        ValueKind::Str { quote, .. } => Lit::Str(
            char::from(*quote),
            value.string(text).ok_or("a string")?.into_owned(),
        ),
        ValueKind::Number { integer } => Lit::Number(written, *integer),
        ValueKind::Bool(_) => match written.as_str() {
            "true" => Lit::Bool("true"),
            "false" => Lit::Bool("false"),
            "True" => Lit::Bool("True"),
            "False" => Lit::Bool("False"),
            "TRUE" => Lit::Bool("TRUE"),
            other => return Err(format!("a boolean written {other:?}")),
        },
        ValueKind::Null => match written.as_str() {
            "null" => Lit::Null("null"),
            "None" => Lit::Null("None"),
            "nil" => Lit::Null("nil"),
            "NULL" => Lit::Null("NULL"),
            other => return Err(format!("a null written {other:?}")),
        },
        ValueKind::Placeholder => Lit::Placeholder(written),
        ValueKind::Alternatives(alts) => Lit::Alternatives(
            alts.iter()
                .map(|a| read(a, text))
                .collect::<Result<_, _>>()?,
        ),
        ValueKind::Array => return Err(format!("list:{written}")),
        other => return Err(format!("{other:?} for {written:?}")),
    })
}

fn name() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,10}"
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_printed_call_parses_back_to_its_pairs(
        positional in proptest::option::of("[a-z][a-z_]{0,6}"),
        pairs in proptest::collection::vec((name(), literal()), 0..6),
        spacing in proptest::sample::select(vec![(", ", "="), (",\n    ", " = "), (",", "=\t"), (" ,  ", " =\n ")]),
    ) {
        let (sep, eq) = spacing;
        let mut text = String::from("(");
        let mut first = true;
        if let Some(p) = &positional {
            text.push_str(p);
            first = false;
        }
        let mut printed = Vec::new();
        for (n, lit) in &pairs {
            if !first {
                text.push_str(sep);
            }
            first = false;
            text.push_str(n);
            text.push_str(eq);
            let mut v = String::new();
            print(lit, &mut v);
            text.push_str(&v);
            printed.push(v);
        }
        text.push(')');

        let args = parse_standalone(&text);
        prop_assert_eq!(args.close, Some(text.len() - 1), "{}", text);
        let got: Vec<(&str, &Value)> = args.pairs().map(|(n, v)| (n.of(&text), v)).collect();
        prop_assert_eq!(got.len(), pairs.len(), "{}", text);
        for ((n, v), ((want_name, want), written)) in got.iter().zip(pairs.iter().zip(&printed)) {
            prop_assert_eq!(*n, want_name.as_str());
            prop_assert_eq!(v.span.of(&text), written.as_str(), "{}", text);
            match (read(v, &text), want) {
                (Err(list), Lit::List(_)) => prop_assert_eq!(list, format!("list:{written}")),
                (got, want) => prop_assert_eq!(got, Ok(want.clone()), "{}", text),
            }
        }
        let positionals = args
            .items
            .iter()
            .filter(|a| matches!(a.kind, ArgKind::Positional(_)))
            .count();
        prop_assert_eq!(positionals, usize::from(positional.is_some()));
    }
}

// ---------------------------------------------------------------------------------------
// Span arithmetic: random Markdown, every finding at its token.

fn surface() -> &'static Surface {
    static SURFACE: OnceLock<Surface> = OnceLock::new();
    SURFACE.get_or_init(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../schema/tatara");
        let catalog = toolgate_schema::load_dir(dir.as_ref()).expect("the bundled catalog loads");
        Surface::from_catalog(&catalog)
    })
}

/// A call, with the finding it must produce (rule and token as written), whatever the
/// skill's profile (each uses always-on tools or no tool at all).
struct Call {
    text: &'static str,
    expect: Option<(Rule, &'static str)>,
    /// The name is not a tool: a call only where it is written as code.
    code_only: bool,
}

const CALLS: &[Call] = &[
    Call {
        text: r#"task_note(kind="plän", body="x")"#,
        expect: Some((Rule::InvalidValue, r#""plän""#)),
        code_only: false,
    },
    Call {
        text: r#"task_note(kind='plan', bodi="x")"#,
        expect: Some((Rule::UnknownField, "bodi")),
        code_only: false,
    },
    Call {
        text: r#"report_internal_issue(category="auth", description=3)"#,
        expect: Some((Rule::WrongType, "3")),
        code_only: false,
    },
    Call {
        text: r#"task_note(kind="plan"|"todo", body="日本語")"#,
        expect: Some((Rule::InvalidValue, r#""todo""#)),
        code_only: false,
    },
    Call {
        text: r#"nosuch_tool(kind="x")"#,
        expect: Some((Rule::UnknownTool, "nosuch_tool")),
        code_only: true,
    },
    Call {
        text: r#"task_note(kind="handoff", body="Ünïcödé 🚀")"#,
        expect: None,
        code_only: false,
    },
    Call {
        text: "task_get(task=<task_id>)",
        expect: None,
        code_only: false,
    },
];

/// Where a call is written.
#[derive(Clone, Copy, Debug)]
enum Context {
    Inline,
    Prose,
    Fence,
    Tilde,
    Table,
    List,
    Indented,
    MultiLineFence,
}

fn place(call: &Call, context: Context) -> (String, bool) {
    let c = call.text;
    match context {
        Context::Inline => (format!("Call `{c}` now, ça va."), true),
        Context::Prose => (format!("Then {c} — done."), false),
        Context::Fence => (format!("```\n{c}\n```"), true),
        Context::Tilde => (format!("~~~python\n# a comment\n{c}\n~~~"), true),
        Context::Table => (
            format!(
                "| step | call |\n| --- | --- |\n| 1 ü | `{}` |",
                c.replace('|', "\\|")
            ),
            true,
        ),
        Context::List => (format!("- use `{c}`\n- then stop"), true),
        // After a paragraph that ends any list above (else it would continue the list).
        Context::Indented => (format!("Example:\n\n    {c}"), true),
        Context::MultiLineFence => (
            format!(
                "```text\n{}\n```",
                c.replacen('(', "(\n    ", 1).replace(", ", ",\n    ")
            ),
            true,
        ),
    }
}

const FILLERS: &[&str] = &[
    "# A skill ✨",
    "Ünïcödé prose — 日本語, emoji 🚀, and *emphasis*.",
    "Some `inline code` and **bold**, no call here.",
    "<!-- a comment -->",
    "> A quote with task words.",
];

/// Front matter: the profiles line, and whether it holds a call (single-quoted or folded).
fn front_matter(profiles: usize, call: usize) -> (String, Vec<(Rule, &'static str)>) {
    let (line, mut expect) = match profiles {
        0 => (String::new(), vec![]),
        1 => ("profiles: [\"*\"]\n".to_string(), vec![]),
        2 => (
            "profiles: [\"refine\", \"implement\"]\n".to_string(),
            vec![],
        ),
        _ => (
            "profiles: [\"clarify\", refine]\n".to_string(),
            vec![(Rule::UnknownProfile, "\"clarify\"")],
        ),
    };
    let description = match call {
        0 => "description: A skill, façade.\n",
        1 => "description: 'Use task_note(kind=\"plän\", body=\"x\") here.'\n",
        _ => "description: >\n  Use task_note(kind=\"plän\",\n  body=\"x\") here.\n",
    };
    if call > 0 {
        expect.push((Rule::InvalidValue, "\"plän\""));
    }
    (
        format!("---\nname: prop-skill\n{line}{description}---\n"),
        expect,
    )
}

/// Line and column (1-based, code points) of byte `at`, the slow, obvious way.
/// A byte order mark is not a column.
fn position(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let line_start = before.rfind('\n').map_or(bom.min(at), |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

fn context() -> impl Strategy<Value = Context> {
    proptest::sample::select(vec![
        Context::Inline,
        Context::Prose,
        Context::Fence,
        Context::Tilde,
        Context::Table,
        Context::List,
        Context::Indented,
        Context::MultiLineFence,
    ])
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_finding_points_at_its_token(
        bom in any::<bool>(),
        fm in proptest::option::of((0usize..4, 0usize..3)),
        blocks in proptest::collection::vec(
            prop_oneof![
                3 => (0..CALLS.len(), context()).prop_map(|(c, x)| (Some(c), x, 0)),
                1 => (0..FILLERS.len()).prop_map(|f| (None, Context::Prose, f)),
            ],
            0..10,
        ),
        crlf in proptest::collection::vec(any::<bool>(), 1..16),
    ) {
        let mut text = String::new();
        let mut expect: Vec<(Rule, String)> = Vec::new();
        if bom {
            text.push('\u{feff}');
        }
        if let Some((profiles, call)) = fm {
            let (block, e) = front_matter(profiles, call);
            text.push_str(&block);
            expect.extend(e.into_iter().map(|(r, t)| (r, t.to_string())));
        }
        for (i, (call, ctx, filler)) in blocks.iter().enumerate() {
            // Blocks apart by a blank line; the first one on the file's first line when
            // there is no front matter.
            if i > 0 {
                text.push('\n');
            }
            match call {
                Some(c) => {
                    let call = &CALLS[*c];
                    let (block, as_code) = place(call, *ctx);
                    text.push_str(&block);
                    if let Some((rule, token)) = call.expect
                        && (as_code || !call.code_only)
                    {
                        expect.push((rule, token.to_string()));
                    }
                }
                None => text.push_str(FILLERS[*filler]),
            }
            text.push('\n');
        }
        // Line endings: LF or CRLF, mixed, line by line.
        let mut mixed = String::with_capacity(text.len() + 64);
        for (i, line) in text.split_inclusive('\n').enumerate() {
            match line.strip_suffix('\n') {
                Some(body) if crlf[i % crlf.len()] => {
                    mixed.push_str(body);
                    mixed.push_str("\r\n");
                }
                _ => mixed.push_str(line),
            }
        }
        let text = mixed;

        let linter = Linter::new(surface(), Settings::default());
        let result = linter.lint_text("SKILL.md", &text, None);
        prop_assert!(result.errors.is_empty(), "{:?}\n{}", result.errors, text);
        let mut got: Vec<(Rule, String)> = Vec::new();
        for f in &result.findings {
            prop_assert!(f.span.start < f.span.end && f.span.end <= text.len(), "{:?}", f);
            prop_assert!(text.is_char_boundary(f.span.start) && text.is_char_boundary(f.span.end));
            prop_assert_eq!((f.start.line, f.start.column), position(&text, f.span.start), "{:?}\n{}", f, text);
            prop_assert_eq!((f.end.line, f.end.column), position(&text, f.span.end), "{:?}\n{}", f, text);
            let token = &text[f.span.range()];
            // The token the finding names.
            let named = match f.rule {
                Rule::UnknownTool | Rule::RenamedTool | Rule::RemovedTool | Rule::ToolNotInProfile => {
                    f.tool.clone()
                }
                Rule::UnknownField => f.field.clone(),
                _ => f.value.clone(),
            };
            let bare = token.trim_matches(|c| c == '"' || c == '\'');
            prop_assert_eq!(Some(bare), named.as_deref(), "{:?}\n{}", f, text);
            got.push((f.rule, token.to_string()));
        }
        got.sort();
        expect.sort();
        prop_assert_eq!(got, expect, "{}", text);
    }
}
