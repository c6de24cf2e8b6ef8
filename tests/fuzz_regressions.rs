//! Inputs the fuzz targets (`fuzz/`, see docs/fuzzing.md) found to break an invariant, kept
//! here so that the normal test suite holds the fix.

mod common;

use serde_json::{Value, json};
use toolgate_generated::tatara;
use toolgate_schema::runtime::CallError;

fn message(r: Result<Value, CallError>) -> String {
    match r {
        Ok(v) => panic!("accepted: {v}"),
        Err(e) => e.message(),
    }
}

/// skill_scanner: a folded block scalar with an indentation indicator (`>2`) whose text
/// starts with a quote. The finding pointed past the scalar, at line 6, and its end inside a
/// character (a replacement character, from the fuzzer's invalid UTF-8).
#[test]
fn a_call_in_a_quoted_block_scalar_is_reported_where_it_is() {
    let dir = common::scratch("fuzz-regression-block-scalar");
    let skill = dir.join("SKILL.md");
    std::fs::write(
        &skill,
        "---\nname: front-ma\\\"finished\nsummary: >2\n  '''''''''Foldenumberd text can hold a call too,\n  likprofiles:e mr_write(action=\"close\").\n\u{fffd}\u{fffd}ofiles: [\"implem+ent\"]\n---\n\n  \n",
    )
    .unwrap();
    let out = common::toolgate()
        .current_dir(&dir)
        .args([
            "lint",
            "--catalog",
            "tatara",
            "--format",
            "concise",
            "SKILL.md",
        ])
        .output()
        .unwrap();
    assert_eq!(
        common::stdout(&out),
        "SKILL.md:5:33: invalid-value: `close` is not a valid `action` for `mr_write`; allowed: `open`, `comment` and `reply`\nFound 1 error in 1 file (1 file and 1 call checked).\n"
    );
    assert_eq!(out.status.code(), Some(1), "{}", common::stderr(&out));
}

/// dispatch_args: undeclared fields were named in the order the arguments held them, so
/// the same call as JSON text (written order) and as a `serde_json` object (sorted keys) got
/// two different messages.
#[test]
fn undeclared_fields_get_one_message_whatever_the_argument_form() {
    let text = r#"{"repo": "x", "op": "path", "title": "t", "body": "b", "to": "x"}"#;
    let value: Value = serde_json::from_str(text).unwrap();
    let session = tatara::Session::resolve("brainstorm");
    let h = tatara::EchoHandler;
    let expected = "unknown field `body` (expected one of `repo`, `op`, `from`, `to`, `community`, `id`, `limit`); unknown field `title` (expected one of `repo`, `op`, `from`, `to`, `community`, `id`, `limit`)";
    assert_eq!(
        message(tatara::dispatch(&session, &h, "code_graph", text)),
        expected
    );
    assert_eq!(
        message(tatara::dispatch(&session, &h, "code_graph", &value)),
        expected
    );
    assert_eq!(
        message(tatara::dispatch(
            &session,
            &h,
            "code_graph",
            value.as_object().unwrap()
        )),
        expected
    );
}

/// dispatch_args: an integer the generated `i64` cannot hold was refused by the typed path
/// with serde's words (naming no field, and differing between argument forms) while the
/// run-time validator, and so a server over a catalog folder, accepted it.
#[test]
fn an_integer_past_i64_is_refused_alike_by_both_paths() {
    let h = tatara::EchoHandler;
    for number in ["9223372036854775808", "1e19", "-9.3e18"] {
        let text = format!(r#"{{"action": "comment", "repo": "a", "number": {number}}}"#);
        let value: Value = serde_json::from_str(&text).unwrap();
        let shown = toolgate_schema::json::Value::from_serde(&value["number"]).to_string();
        let expected = format!(
            "field `number` must be an integer from -9223372036854775808 to 9223372036854775807, found {shown}"
        );
        assert_eq!(
            message(tatara::dispatch_refine(&h, "mr_write", text.as_str())),
            expected
        );
        assert_eq!(
            message(tatara::dispatch_refine(&h, "mr_write", &value)),
            expected
        );
        let schema = tatara::ARGUMENT_TYPES
            .iter()
            .find(|t| t.type_name == "mr_write::RefineArgs")
            .unwrap()
            .input_schema_json;
        let schema = toolgate_schema::runtime::schema_from_json(schema);
        let checked = toolgate_schema::runtime::check_arguments("mr_write", &schema, &value);
        assert_eq!(checked.unwrap_err().message(), expected);
    }
    // The largest that fits is accepted by both.
    let fits = json!({"action": "comment", "repo": "a", "number": i64::MAX});
    assert!(tatara::dispatch_refine(&h, "mr_write", &fits).is_ok());
}

/// dispatch_args: serde's derive reads a struct from a JSON array too, its fields in order,
/// so `[]` was accepted as the arguments of a tool whose fields are all optional
/// (`task_get`), and an enum from `{"value": null}`; the input schema refuses both.
#[test]
fn arrays_for_objects_and_objects_for_enum_values_are_refused() {
    let h = tatara::EchoHandler;
    let session = tatara::Session::resolve("");
    let cases = [
        (
            "task_get",
            json!([]),
            "the arguments must be an object, found array",
        ),
        (
            "scm_read",
            json!(["mr", "a"]),
            "the arguments must be an object, found array",
        ),
        (
            "scm_read",
            json!({"kind": {"mr": null}, "repo": "a"}),
            "field `kind` must be a string, found object",
        ),
    ];
    for (tool, args, expected) in cases {
        let text = args.to_string();
        let implement = tatara::Session::resolve("implement");
        let s = if tool == "task_get" {
            &session
        } else {
            &implement
        };
        assert_eq!(
            message(tatara::dispatch(s, &h, tool, text.as_str())),
            expected,
            "{text}"
        );
        assert_eq!(message(tatara::dispatch(s, &h, tool, &args)), expected);
        if let Some(map) = args.as_object() {
            assert_eq!(message(tatara::dispatch(s, &h, tool, map)), expected);
        }
    }
}
