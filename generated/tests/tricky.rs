//! The generated code compiles, dispatches and checks like the run-time validator for names
//! and shapes the bundled catalogs do not have (`tests/catalogs/tricky`): keywords and digits
//! in tool, field, value and profile names; a restricted free string; an `additionalProperties`
//! schema next to properties; integer and boolean conditionals, one whose tested constant is
//! the field's default; exclusive bounds; defaults of every kind.

use serde_json::{Value, json};
use toolgate_schema::runtime::{ArgumentType, RawArguments, check_arguments, schema_from_json};

#[allow(missing_docs)]
mod tricky {
    toolgate_macros::catalog!("tests/catalogs/tricky");
}

fn argument_type(type_name: &str) -> &'static ArgumentType {
    tricky::ARGUMENT_TYPES
        .iter()
        .find(|t| t.type_name == type_name)
        .unwrap_or_else(|| panic!("no {type_name}"))
}

/// The typed parse and the run-time validator agree on `args`.
fn agree(type_name: &str, args: Value) -> Result<Value, String> {
    let t = argument_type(type_name);
    let schema = schema_from_json(t.input_schema_json);
    let typed = (t.parse)(&args);
    let runtime = check_arguments(t.tool, &schema, &args);
    match (&typed, &runtime) {
        (Ok(_), Ok(())) => {}
        (Err(a), Err(b)) => assert_eq!(a, b, "{type_name} {args}"),
        _ => panic!("{type_name} {args}: typed {typed:?}, validator {runtime:?}"),
    }
    typed.map_err(|e| e.message())
}

#[test]
fn names_become_rust_names_and_profiles_resolve() {
    assert_eq!(
        tricky::Profile::ALL,
        [tricky::Profile::V1st, tricky::Profile::Type]
    );
    assert_eq!(
        tricky::Session::resolve("type").profile(),
        Some(tricky::Profile::Type)
    );
    let all = tricky::r#match::Type::ALL;
    assert_eq!(
        all.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        ["self", "Other", "2d"]
    );
    assert_eq!(tricky::TOOL_NAMES, ["do-it", "match", "ping"]);
}

#[test]
fn a_restricted_free_string_becomes_an_enum() {
    let h = tricky::EchoHandler;
    assert_eq!(
        tricky::dispatch_type(&h, "match", &json!({"mode": "fast"}))
            .unwrap_err()
            .message(),
        "field `mode`: \"fast\" is not one of \"slow\""
    );
    let slow = json!({"mode": "slow"});
    let narrow: tricky::r#match::TypeArgs = RawArguments::parse(&slow).unwrap();
    let wide: tricky::r#match::Args = narrow.into();
    assert_eq!(wide.mode, "slow");
    // The wide type keeps its default; the narrow one lost it (not an allowed value).
    let empty = json!({});
    let wide: tricky::r#match::Args = RawArguments::parse(&empty).unwrap();
    assert_eq!(wide.mode, "fast");
    let narrow: tricky::r#match::TypeArgs = RawArguments::parse(&empty).unwrap();
    assert_eq!(narrow.mode, None);
    assert!(tricky::dispatch_1st(&h, "match", &json!({"mode": "fast"})).is_ok());
}

#[test]
fn constraints_and_conditionals_agree_with_the_validator() {
    for (type_name, args, expected) in [
        (
            "match::Args",
            json!({"ratio": 0}),
            Some("field `ratio` must be greater than 0, found 0"),
        ),
        ("match::Args", json!({"ratio": 1}), None),
        (
            "match::Args",
            json!({"ratio": 1.5}),
            Some("field `ratio` must be at most 1, found 1.5"),
        ),
        (
            "match::Args",
            json!({"labels": {"owner": "me", "x": 2}}),
            None,
        ),
        (
            "match::Args",
            json!({"labels": {"x": -1}}),
            Some("field `labels.x` must be at least 0, found -1"),
        ),
        (
            "match::Args",
            json!({"labels": {"owner": 3}}),
            Some("field `labels.owner` must be a string, found the number 3"),
        ),
        (
            "match::Args",
            json!({"steps": []}),
            Some("field `steps` must have at least 1 item, found 0"),
        ),
        (
            "match::Args",
            json!({"steps": [{"name": "a"}]}),
            Some("field `steps[0].name` must have at least 2 characters"),
        ),
        (
            "match::Args",
            json!({"steps": [{"name": "ab", "weight": 11}]}),
            Some("field `steps[0].weight` must be at most 10, found 11"),
        ),
        (
            "match::Args",
            json!({"steps": [{"name": "ab", "other": 1}]}),
            Some("unknown field `steps[0].other` (expected one of `name`, `weight`)"),
        ),
        ("match::Args", json!({"type": "2d", "isPR": true}), None),
        // Maps whose values are a struct and an array of an enum.
        (
            "match::Args",
            json!({"owners": {"x": {"name": "n"}}, "modes": {"m": ["a", "b"]}}),
            None,
        ),
        (
            "match::Args",
            json!({"owners": {"x": {"name": ""}}}),
            Some("field `owners.x.name` must not be empty"),
        ),
        (
            "match::Args",
            json!({"owners": {"x": {}}}),
            Some("missing required field `owners.x.name`"),
        ),
        (
            "match::Args",
            json!({"modes": {"m": ["c"]}}),
            Some("field `modes.m[0]`: \"c\" is not one of \"a\", \"b\""),
        ),
        // level defaults to 3, the tested constant: absent, the condition does not hold.
        ("do_it::V1Args", json!({}), None),
        (
            "do_it::V1Args",
            json!({"level": 3}),
            Some("missing field `reason`, required when `level` is 3"),
        ),
        (
            "do_it::V1Args",
            json!({"level": 3.0}),
            Some("missing field `reason`, required when `level` is 3"),
        ),
        ("do_it::V1Args", json!({"level": 3, "reason": "r"}), None),
        ("do_it::V1Args", json!({"level": 3.0, "reason": "r"}), None),
        (
            "do_it::V1Args",
            json!({"level": 2.5}),
            Some("field `level` must be an integer, found the number 2.5"),
        ),
        (
            "match::Args",
            json!({"steps": [{"name": "ab", "weight": 4.0}]}),
            None,
        ),
        ("do_it::V1Args", json!({"level": 4}), None),
        (
            "do_it::V2Args",
            json!({"dry": true}),
            Some("missing field `why`, required when `dry` is true"),
        ),
        ("do_it::V2Args", json!({"dry": false}), None),
        ("do_it::V2Args", json!({"payload": null}), None),
        (
            "ping::Args",
            json!({"x": 1}),
            Some("unknown field `x` (no fields are accepted)"),
        ),
    ] {
        let outcome = agree(type_name, args.clone());
        match expected {
            None => assert!(outcome.is_ok(), "{type_name} {args}: {outcome:?}"),
            Some(m) => assert_eq!(outcome.unwrap_err(), m, "{type_name} {args}"),
        }
    }
}

#[test]
fn defaults_are_filled_in() {
    let v2 = agree("do_it::V2Args", json!({})).unwrap();
    assert_eq!(
        v2,
        json!({"dry": false, "tags": ["a", "b"], "extra": {"k": 1}, "score": 0.5})
    );
    // A JSON null for a free-JSON field is kept, not read as absent.
    let v2 = agree("do_it::V2Args", json!({"payload": null})).unwrap();
    assert_eq!(v2["payload"], Value::Null);
    let null = json!({"payload": null});
    let typed: tricky::do_it::V2Args = RawArguments::parse(&null).unwrap();
    assert_eq!(typed.payload, Some(Value::Null));
}

#[test]
fn map_values_borrow_too() {
    use std::borrow::Cow;
    let text = r#"{"owners":{"x":{"name":"n"}},"modes":{"m":["a"]},"labels":{"owner":"o","k":1}}"#;
    let args: tricky::r#match::Args = RawArguments::parse(text).unwrap();
    let owners = args.owners.as_ref().unwrap();
    let (key, owner) = owners.iter().next().unwrap();
    assert!(matches!(key, Cow::Borrowed(_)) && matches!(owner.name, Cow::Borrowed(_)));
    let labels = args.labels.as_ref().unwrap();
    assert!(matches!(labels.owner, Some(Cow::Borrowed("o"))));
    assert!(matches!(
        labels.additional_properties.keys().next(),
        Some(Cow::Borrowed("k"))
    ));
    let owned: tricky::r#match::Args<'static> = args.clone().into_owned();
    assert_eq!(owned, args);
}
