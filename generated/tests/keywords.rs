//! Typed handlers for schemas with the keywords generated code types only in part
//! (`tests/catalogs/keywords`: `pattern`, `allOf`, `not`, `multipleOf`, `uniqueItems`,
//! `contains`, a schema without a type, `patternProperties`, `propertyNames`,
//! `dependentRequired`, `if`/`then`/`else`, keywords beside `oneOf`, and draft-07's
//! array-form `items` and `dependencies`): the handler gets the most specific type, a call the
//! schema refuses is refused with a message naming the field, and over a corpus of calls the
//! typed decode accepts exactly what the served validator (jsonschema) accepts, from a JSON
//! value and from JSON text alike.

use std::borrow::Cow;

use serde_json::{Value, json};
use toolgate_schema::runtime::direct::Agreement;
use toolgate_schema::runtime::{CallError, RawArguments, check_arguments, schema_from_json};
use toolgate_schema::validator::SchemaValidator;

#[allow(missing_docs)]
mod keywords {
    toolgate_macros::catalog!("tests/catalogs/keywords");
}

use keywords::{configure, pay, plot, search};

fn call(tool: &str, args: Value) -> Result<Value, String> {
    let session = keywords::Session::resolve("user");
    keywords::dispatch(&session, &keywords::EchoHandler, tool, &args)
        .map(|v| v["arguments"].clone())
        .map_err(|e| e.message())
}

#[test]
fn handlers_get_the_most_specific_type() {
    let args = json!({"slug": "serde-json", "limit": 20, "page_size": 30, "tags": ["core", "json"],
        "exclude": "tests", "near": "abc"});
    let a: search::Args<'_> = (&args).parse().expect("valid");
    assert_eq!(a.slug, "serde-json");
    assert_eq!(a.limit, Some(20));
    assert_eq!(a.page_size, Some(30));
    assert_eq!(
        a.tags.as_deref(),
        Some(&[Cow::Borrowed("core"), Cow::Borrowed("json")][..])
    );
    assert_eq!(a.exclude.as_deref(), Some("tests"));
    assert_eq!(a.near, Some(json!("abc")));

    let args = json!({"mode": "remote", "url": "https://example.org", "x-retries": 3});
    let c: configure::Args<'_> = (&args).parse().expect("valid");
    assert_eq!(c.mode, configure::Mode::Remote);
    assert_eq!(c.url.as_deref(), Some("https://example.org"));
    assert_eq!(c.additional_properties.get("x-retries"), Some(&json!(3)));

    let args = json!({"amount": 12.5, "method": {"kind": "card", "number": "4111111111111111"}});
    let p: pay::Args = (&args).parse().expect("valid");
    match p.method {
        pay::Method::Card(card) => assert_eq!(card.number, "4111111111111111"),
        other => panic!("{other:?}"),
    }

    let args = json!({"point": [1.5, -2], "style": null});
    let pl: plot::Args<'_> = (&args).parse().expect("valid");
    assert_eq!(pl.point, vec![json!(1.5), json!(-2)]);
    assert_eq!(pl.style, None);
    // The restricted cell narrows `scope` for `reader`.
    let args = json!({"slug": "a", "scope": "docs"});
    let r: search::ReaderArgs<'_> = (&args).parse().expect("valid");
    assert_eq!(r.scope, Some(search::ReaderScope::Docs));
}

#[test]
fn refusals_name_the_field() {
    let cases = [
        (
            "search",
            json!({"slug": "Serde"}),
            "field `slug` must match the pattern `^[a-z][a-z0-9-]*$`",
        ),
        (
            "search",
            json!({"slug": "a", "limit": 0}),
            "field `limit` must be at least 1, found 0",
        ),
        (
            "search",
            json!({"slug": "a", "limit": 5, "page_size": 15}),
            "field `page_size` must be a multiple of 10, found 15",
        ),
        (
            "search",
            json!({"slug": "a", "page_size": 10}),
            "missing field `limit`, required when `page_size` is given",
        ),
        (
            "search",
            json!({"slug": "a", "tags": ["core", "core"]}),
            "field `tags` must not hold the same item twice",
        ),
        (
            "search",
            json!({"slug": "a", "tags": ["json"]}),
            "field `tags` must hold exactly 1 item matching the `contains` schema",
        ),
        (
            "search",
            json!({"slug": "a", "exclude": "*"}),
            "field `exclude` must not match the `not` schema",
        ),
        (
            "search",
            json!({"slug": "a", "near": "ab"}),
            "field `near` must have at least 3 characters",
        ),
        (
            "search",
            json!({"slug": "a", "offset": null}),
            "field `offset` matches more than one of its `oneOf` alternatives",
        ),
        (
            "configure",
            json!({"mode": "local", "x-retries": "3"}),
            "field `x-retries` must be an integer, found the string \"3\"",
        ),
        (
            "configure",
            json!({"mode": "local", "port": 1}),
            "unknown field `port` (not accepted here)",
        ),
        (
            "configure",
            json!({"mode": "local", "x-averyverylongname": 1}),
            "the arguments must not have the field name \"x-averyverylongname\" (refused by the `propertyNames` schema)",
        ),
        (
            "configure",
            json!({"mode": "local", "tls_cert": "c"}),
            "missing field `tls_key`, required when `tls_cert` is given",
        ),
        (
            "configure",
            json!({"mode": "remote"}),
            "missing required field `url`",
        ),
        (
            "configure",
            json!({"mode": "local", "url": "u"}),
            "field `url` must not be given",
        ),
        (
            "pay",
            json!({"amount": 1.001, "method": {"kind": "card", "number": "4111111111111111"}}),
            "field `amount` must be a multiple of 0.01, found 1.001",
        ),
        (
            "pay",
            json!({"amount": 1, "method": {"kind": "card", "number": "4111"}}),
            "field `method` matches none of its `oneOf` alternatives",
        ),
        (
            "plot",
            json!({"point": [1, 2, 3]}),
            "field `point[2]`: no value is accepted here (the schema is `false`)",
        ),
        (
            "plot",
            json!({"point": [1, 2000]}),
            "field `point[1]` must be at most 1000, found 2000",
        ),
        (
            "plot",
            json!({"point": [1, 2], "color": "red"}),
            "missing field `label`, required when `color` is given",
        ),
        (
            "plot",
            json!({"point": [1, 2], "label": "a long label"}),
            "field `label` must have at most 8 characters",
        ),
        (
            "plot",
            json!({"point": [1, 2], "style": "dotted"}),
            "field `style` must match the pattern `^(solid|dashed)$`",
        ),
    ];
    for (tool, args, want) in cases {
        match call(tool, args.clone()) {
            Ok(v) => panic!("{tool} {args}: accepted as {v}"),
            Err(message) => assert!(
                message.contains(want),
                "{tool} {args}: {message:?} does not say {want:?}"
            ),
        }
    }
}

/// A small deterministic generator (a linear congruential one): the corpus is the same on
/// every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as usize
    }

    fn pick<'v>(&mut self, items: &'v [Value]) -> &'v Value {
        &items[self.next() % items.len()]
    }
}

/// Values worth trying in any field: each keyword of the catalog has some on either side.
fn pool() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(1),
        json!(5),
        json!(10),
        json!(15),
        json!(20.0),
        json!(100),
        json!(101),
        json!(-2000),
        json!(2.5),
        json!(0.07),
        json!(1.001),
        json!(""),
        json!("ab"),
        json!("abc"),
        json!("Serde"),
        json!("serde-json"),
        json!("a-very-long-slug-that-goes-past-the-limit"),
        json!("all"),
        json!("*"),
        json!("docs"),
        json!("code"),
        json!("local"),
        json!("remote"),
        json!("solid"),
        json!("dotted"),
        json!("https://example.org"),
        json!([]),
        json!(["core"]),
        json!(["core", "json"]),
        json!(["core", "core"]),
        json!(["json"]),
        json!([1, 2]),
        json!([1.5, -3, 7]),
        json!([1, 2000]),
        json!({}),
        json!({"kind": "card", "number": "4111111111111111"}),
        json!({"kind": "card", "number": "4111"}),
        json!({"kind": "transfer", "iban": "DE89370400440532013000"}),
        json!({"kind": "transfer", "iban": "DE89"}),
        json!({"kind": "cash"}),
        json!({"label": 1}),
    ]
}

/// Field names worth trying: every declared one, and others the schemas treat apart.
const NAMES: &[&str] = &[
    "slug",
    "scope",
    "limit",
    "page_size",
    "tags",
    "exclude",
    "near",
    "offset",
    "mode",
    "url",
    "tls_cert",
    "tls_key",
    "x-retries",
    "x-1",
    "x-averyverylongname",
    "amount",
    "method",
    "point",
    "label",
    "color",
    "style",
    "other",
];

#[test]
fn the_typed_decode_accepts_exactly_what_the_served_validator_accepts() {
    let pool = pool();
    let mut rng = Lcg(0x5eed);
    let (mut accepted, mut refused) = (0usize, 0usize);
    for t in keywords::ARGUMENT_TYPES {
        let served: Value = serde_json::from_str(t.input_schema_json).expect("schema JSON");
        let served = toolgate_schema::json::Value::from_serde(&served);
        let full = SchemaValidator::new(&served, false).expect("jsonschema compiles it");
        let typed_schema = schema_from_json(t.input_schema_json);
        for _ in 0..1500 {
            let mut args = serde_json::Map::new();
            for _ in 0..(rng.next() % 5) {
                let name = NAMES[rng.next() % NAMES.len()];
                args.insert(name.to_string(), rng.pick(&pool).clone());
            }
            // Mostly around a valid call, so that most keywords decide.
            if !rng.next().is_multiple_of(4) {
                let base: &[(&str, Value)] = match t.tool {
                    "search" => &[("slug", json!("serde-json"))],
                    "configure" => &[("mode", json!("local"))],
                    "pay" => &[
                        ("amount", json!(2.5)),
                        (
                            "method",
                            json!({"kind": "card", "number": "4111111111111111"}),
                        ),
                    ],
                    _ => &[("point", json!([1, 2]))],
                };
                for (k, v) in base {
                    args.entry(k.to_string()).or_insert_with(|| v.clone());
                }
            }
            let args = Value::Object(args);
            let want = full.is_valid(&args);
            let got = (t.parse)(&args);
            assert_eq!(
                got.is_ok(),
                want,
                "{} {args}: jsonschema says {want}, the typed decode {got:?}",
                t.type_name
            );
            // The typed validator (what words a refusal, and what a catalog folder checks
            // first) agrees, with the same message.
            let validator = check_arguments(t.tool, &typed_schema, &args);
            match (&got, &validator) {
                (Ok(_), Ok(())) => accepted += 1,
                (Err(CallError::InvalidArguments { violations, .. }), Err(e)) => {
                    assert_eq!(got.as_ref().err(), Some(e), "{} {args}", t.type_name);
                    assert!(
                        violations.iter().all(|v| !v.message.is_empty()),
                        "{args}: {violations:?}"
                    );
                    refused += 1;
                }
                _ => panic!(
                    "{} {args}: typed {got:?}, validator {validator:?}",
                    t.type_name
                ),
            }
            // From JSON text: the direct path reads what serde reads, or leaves it to serde.
            let text = args.to_string();
            if let Agreement::Differ(why) = (t.compare_direct)(&text) {
                panic!("{} {text}: {why}", t.type_name);
            }
        }
    }
    eprintln!("{accepted} calls accepted, {refused} refused, all as jsonschema decides");
    // The corpus decides both ways.
    assert!(
        accepted > 500 && refused > 500,
        "{accepted} accepted, {refused} refused"
    );
}
