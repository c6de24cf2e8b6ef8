//! Dispatch of the generated code, through the generated `EchoHandler`: a granted tool is
//! called with typed arguments, an ungranted one is answered exactly as an unknown one, and
//! invalid arguments are refused with the run-time validator's words.

use serde_json::{Value, json};
use toolgate_generated::{maetra, tatara};
use toolgate_schema::runtime::{CallError, RawArguments};

fn message(r: Result<Value, CallError>) -> String {
    match r {
        Ok(v) => panic!("accepted: {v}"),
        Err(e) => e.message(),
    }
}

#[test]
fn a_granted_tool_gets_typed_arguments() {
    let h = tatara::EchoHandler;
    let out = tatara::dispatch_implement(
        &h,
        "mr_write",
        &json!({"action": "open", "repo": "api", "title": "Fix"}),
    )
    .unwrap();
    assert_eq!(
        out,
        json!({"tool": "mr_write", "arguments": {"action": "open", "repo": "api", "title": "Fix"}})
    );
    // Always-on tools through a profile's dispatch and through the fail-closed one.
    let args = json!({"project": "p"});
    assert_eq!(
        tatara::dispatch_refine(&h, "project_get", &args).unwrap(),
        tatara::dispatch_always_on(&h, "project_get", &args).unwrap()
    );
}

#[test]
fn typed_values_are_what_the_handler_receives() {
    let raw = json!({"action": "comment", "repo": "api", "number": 3});
    let args: tatara::mr_write::RefineArgs = RawArguments::parse(&raw).unwrap();
    assert_eq!(args.action, tatara::mr_write::RefineAction::Comment);
    assert_eq!(args.number, Some(3));
    let wide: tatara::mr_write::Args = args.into();
    assert_eq!(wide.action, tatara::mr_write::Action::Comment);
    // A default is filled in; JSON null is not "absent".
    let raw = json!({"mcp_access_token": "t", "content": "hi"});
    let check: maetra::check_action::Args = RawArguments::parse(&raw).unwrap();
    assert_eq!(check.scan_type, maetra::check_action::ScanType::PromptInput);
    let raw = json!({"mcp_access_token": "t", "content": "hi", "tool_name": null});
    let null = RawArguments::parse::<maetra::check_action::Args>(&raw);
    assert_eq!(
        null.unwrap_err().message(),
        "field `tool_name` must be a string, found null"
    );
}

/// Whether `s` points into `input`.
fn within(s: &str, input: &str) -> bool {
    input.as_bytes().as_ptr_range().contains(&s.as_ptr())
}

#[test]
fn strings_borrow_from_the_request_unless_escaped() {
    use std::borrow::Cow;
    // Plain, optional, in an array and in a map, from JSON text.
    let text = r#"{"mcp_access_token":"t","session_ref":"s","objective":"o","idempotency_key":"k","constraints":["a","b\"c"]}"#;
    let start: maetra::start_task::Args = RawArguments::parse(text).unwrap();
    assert!(matches!(start.objective, Cow::Borrowed(s) if within(s, text)));
    let constraints = start.constraints.as_deref().unwrap();
    assert!(matches!(&constraints[0], Cow::Borrowed(s) if within(s, text)));
    // An escaped string is unescaped into an owned one.
    assert!(matches!(&constraints[1], Cow::Owned(s) if s == "b\"c"));
    let text = r#"{"text":"t","metadata":{"area":"payments"}}"#;
    let write: tatara::memory_write::Args = RawArguments::parse(text).unwrap();
    let (k, v) = write.metadata.as_ref().unwrap().iter().next().unwrap();
    assert!(within(k, text) && within(v, text), "{k} {v}");
    // From a parsed value, and from its object.
    let value: serde_json::Value = serde_json::from_str(text).unwrap();
    let from_value: tatara::memory_write::Args = RawArguments::parse(&value).unwrap();
    assert!(matches!(from_value.text, Cow::Borrowed(_)));
    let object = value.as_object().unwrap();
    let from_map: tatara::memory_write::Args = RawArguments::parse(object).unwrap();
    assert!(
        matches!(from_map.text, Cow::Borrowed(s) if std::ptr::eq(s, value["text"].as_str().unwrap()))
    );
    assert_eq!(from_value, write);
    assert_eq!(from_map, write);
    // `into_owned` keeps the value and drops the borrow.
    let owned: tatara::memory_write::Args<'static> = write.clone().into_owned();
    assert!(matches!(owned.text, Cow::Owned(_)));
    assert_eq!(owned, write);
}

#[test]
fn an_ungranted_tool_is_answered_as_an_unknown_one() {
    let h = tatara::EchoHandler;
    let args = json!({"repo": "api", "q": "x"});
    let ungranted = tatara::dispatch_refine(&h, "code_search", &args).unwrap_err();
    assert_eq!(ungranted, CallError::unknown_tool("code_search"));
    let unknown = tatara::dispatch_refine(&h, "code_searc", &args).unwrap_err();
    assert_eq!(unknown, CallError::unknown_tool("code_searc"));
    assert_eq!(ungranted.to_string(), "unknown tool `code_search`");
    // The fail-closed session has no submit_outcome, whatever its arguments.
    let session = tatara::Session::resolve("clarify");
    assert_eq!(
        tatara::dispatch(&session, &h, "submit_outcome", &json!({})).unwrap_err(),
        CallError::unknown_tool("submit_outcome")
    );
    assert!(tatara::dispatch(&session, &h, "task_get", &json!({"task": "t"})).is_ok());
}

#[test]
fn invalid_arguments_name_the_field_and_the_reason() {
    let h = tatara::EchoHandler;
    let cases = [
        (
            json!({"action": "open", "repo": "api"}),
            "field `action`: \"open\" is not one of \"comment\"",
        ),
        (
            json!({"action": "comment", "repo": "api", "labels": "x"}),
            "unknown field `labels` (expected one of `action`, `project`, `repo`, `number`, `title`, `body`, `in_reply_to`)",
        ),
        (
            json!({"action": "comment", "repo": 7}),
            "field `repo` must be a string, found the number 7",
        ),
        (
            json!({"action": "comment"}),
            "missing required field `repo`",
        ),
        (
            json!(["comment"]),
            "the arguments must be an object, found array",
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(
            message(tatara::dispatch_refine(&h, "mr_write", &args)),
            expected,
            "{args}"
        );
    }
    // The same call as JSON text, and as a JSON object, gets the same answer.
    let text = r#"{"action": "open", "repo": "api"}"#;
    assert_eq!(
        message(tatara::dispatch_refine(&h, "mr_write", text)),
        "field `action`: \"open\" is not one of \"comment\""
    );
    let map = json!({"action": "open", "repo": "api"});
    assert_eq!(
        message(tatara::dispatch_refine(
            &h,
            "mr_write",
            map.as_object().unwrap()
        )),
        "field `action`: \"open\" is not one of \"comment\""
    );
    assert_eq!(
        message(tatara::dispatch_refine(&h, "mr_write", "{\"action\":")),
        "the arguments are not valid JSON: EOF while parsing a value at line 1 column 10"
    );
}

#[test]
fn maetra_conditional_requirement_and_token() {
    let h = maetra::EchoHandler;
    let session = maetra::Session::resolve("secure");
    let call = |args: Value| maetra::dispatch(&session, &h, "check_action", &args);
    assert_eq!(
        message(call(
            json!({"mcp_access_token": "t", "content": "x", "scan_type": "tool_call"})
        )),
        "missing field `tool_name`, required when `scan_type` is \"tool_call\""
    );
    assert!(
        call(json!({"mcp_access_token": "t", "content": "x", "scan_type": "tool_call", "tool_name": "rm"}))
            .is_ok()
    );
    assert_eq!(
        message(call(json!({"mcp_access_token": "", "content": "x"}))),
        "field `mcp_access_token` must not be empty"
    );
    assert_eq!(
        message(call(json!({"content": "x"}))),
        "missing required field `mcp_access_token`"
    );
    // A combined session sees the union; get_mcp_access is always on.
    let both = maetra::Session::resolve("task_guard,govern");
    assert!(
        maetra::dispatch(
            &both,
            &h,
            "get_task_context",
            &json!({"mcp_access_token": "t", "session_ref": "s"})
        )
        .is_ok()
    );
    assert!(
        maetra::dispatch(&both, &h, "check_action", &json!({}))
            .unwrap_err()
            .is_unknown_tool()
    );
    assert!(maetra::dispatch(&both, &h, "get_mcp_access", &json!({})).is_ok());
}
