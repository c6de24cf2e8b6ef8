use std::path::Path;

use rmcp::model::{CallToolResult, ErrorCode};
use serde_json::{Value, json};
use toolgate_generated::tatara;

use super::echo::{self, EchoSession};
use super::*;

/// The echo session of a bundled catalog, as the CLI builds it.
fn bundled(
    catalog: &str,
    requested: &str,
    source: toolgate_schema::runtime::Source<'_>,
) -> Option<Result<EchoSession, ServeError>> {
    toolgate_generated::bundled_echo!(echo::generated, catalog, requested, source)
}

fn catalog_dir(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schema")
        .join(name)
}

/// The source of a selector value read from the catalog's environment variable.
fn env(catalog: &str) -> toolgate_schema::runtime::Source<'static> {
    toolgate_schema::runtime::Source::Env(
        toolgate_generated::selector_env(catalog).unwrap_or("NO_SUCH_CATALOG"),
    )
}

fn surface(name: &str) -> toolgate_schema::Surface {
    let catalog = toolgate_schema::load_dir(&catalog_dir(name)).expect("bundled catalog loads");
    toolgate_schema::Surface::from_catalog(&catalog)
}

fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn served_tools(server: &ToolServer<impl Backend>) -> Value {
    serde_json::to_value(server.tools()).expect("tools serialize")
}

fn constant_tools(text: &str) -> Value {
    let v: Value = serde_json::from_str(text).expect("constant parses");
    v["tools"].clone()
}

#[test]
fn served_tools_are_the_constants_tools() {
    for (profile, list) in tatara::TOOLS_LISTS {
        let session = bundled("tatara", profile, env("tatara")).unwrap().unwrap();
        assert!(session.warning.is_none());
        assert_eq!(
            served_tools(&session.server),
            constant_tools(list),
            "{profile}"
        );
    }
    let closed = bundled("tatara", "", env("tatara")).unwrap().unwrap();
    assert!(closed.warning.is_some());
    assert_eq!(
        served_tools(&closed.server),
        constant_tools(tatara::FAIL_CLOSED_TOOLS_LIST_JSON)
    );
    // And the folder path serves the same tools as the constants (one writer).
    let s = surface("tatara");
    for (profile, list) in tatara::TOOLS_LISTS {
        let folder = echo::folder(&s, profile, env("tatara")).unwrap();
        assert_eq!(
            served_tools(&folder.server),
            constant_tools(list),
            "{profile}"
        );
    }
    let s = surface("maetra");
    for requested in [
        "task_guard",
        "secure,govern",
        "govern,task_guard,secure",
        "nope",
    ] {
        let bundled = bundled("maetra", requested, env("maetra"))
            .unwrap()
            .unwrap();
        let folder = echo::folder(&s, requested, env("maetra")).unwrap();
        assert_eq!(served_tools(&bundled.server), served_tools(&folder.server));
        assert_eq!(bundled.warning, folder.warning, "{requested}");
    }
}

#[test]
fn tool_order_and_names_follow_the_surface() {
    let s = surface("tatara");
    for p in &s.profiles {
        let session = bundled("tatara", &p.name, env("tatara")).unwrap().unwrap();
        let names: Vec<String> = session
            .server
            .tools()
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        let expected: Vec<String> = s
            .served(&s.resolve(&p.name))
            .iter()
            .map(|t| t.tool.name.clone())
            .collect();
        assert_eq!(names, expected);
    }
}

fn both(catalog: &str, requested: &str) -> [EchoSession; 2] {
    [
        bundled(catalog, requested, env(catalog)).unwrap().unwrap(),
        echo::folder(&surface(catalog), requested, env(catalog)).unwrap(),
    ]
}

#[test]
fn unknown_and_ungranted_tools_get_one_answer() {
    for session in both("tatara", "refine") {
        let server = &session.server;
        let args = object(json!({"repo": "api", "q": "x"}));
        let ungranted = server.call("code_search", Some(&args)).unwrap_err();
        let unknown = server.call("code_searcher", Some(&args)).unwrap_err();
        assert_eq!(ungranted.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(unknown.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(ungranted.message, "unknown tool `code_search`");
        assert_eq!(unknown.message, "unknown tool `code_searcher`");
        assert_eq!(ungranted.data, None);
        assert_eq!(unknown.data, None);
    }
    // Fail closed: no submit_outcome, with any arguments.
    for session in both("tatara", "clarify") {
        let e = session.server.call("submit_outcome", None).unwrap_err();
        assert_eq!(e.message, "unknown tool `submit_outcome`");
    }
}

#[test]
fn invalid_arguments_are_tool_errors_naming_the_field() {
    let cases = [
        (
            "tatara",
            "refine",
            "mr_write",
            json!({"action": "open", "repo": "api"}),
            "action",
            "invalid arguments for `mr_write`: field `action`: \"open\" is not one of \"comment\"",
        ),
        (
            "tatara",
            "implement",
            "mr_write",
            json!({"action": "open", "repo": "api", "labels": ["x"]}),
            "labels",
            "invalid arguments for `mr_write`: unknown field `labels` (expected one of `action`, `project`, `repo`, `number`, `title`, `body`, `in_reply_to`)",
        ),
        (
            "tatara",
            "implement",
            "task_get",
            json!({"task": 7}),
            "task",
            "invalid arguments for `task_get`: field `task` must be a string, found the number 7",
        ),
        (
            "tatara",
            "implement",
            "mr_write",
            json!({"repo": "api"}),
            "action",
            "invalid arguments for `mr_write`: missing required field `action`",
        ),
        (
            "maetra",
            "secure",
            "check_action",
            json!({"mcp_access_token": "t", "content": "x", "scan_type": "tool_call"}),
            "tool_name",
            "invalid arguments for `check_action`: missing field `tool_name`, required when `scan_type` is \"tool_call\"",
        ),
        (
            "maetra",
            "secure",
            "check_action",
            json!({"mcp_access_token": "", "content": "x"}),
            "mcp_access_token",
            "invalid arguments for `check_action`: field `mcp_access_token` must not be empty",
        ),
    ];
    for (catalog, profile, tool, args, field, message) in cases {
        for session in both(catalog, profile) {
            let result = session
                .server
                .call(tool, Some(&object(args.clone())))
                .unwrap();
            assert_eq!(result.is_error, Some(true), "{tool} {args}");
            let got = text(&result);
            if catalog == "tatara" && tool == "mr_write" && field == "labels" {
                // The expected list of fields is the catalog's; only its shape is fixed here.
                assert!(
                    got.starts_with("invalid arguments for `mr_write`: unknown field `labels`"),
                    "{got}"
                );
            } else {
                assert_eq!(got, message);
            }
            let structured = result.structured_content.unwrap();
            assert_eq!(structured["tool"], tool);
            assert_eq!(structured["violations"][0]["field"], field);
        }
    }
}

#[test]
fn valid_calls_echo_typed_arguments() {
    let [bundled, folder] = both("maetra", "secure");
    let args = object(json!({"mcp_access_token": "t", "content": "hi"}));
    let typed = bundled.server.call("check_action", Some(&args)).unwrap();
    assert_eq!(typed.is_error, Some(false));
    // The typed path fills in the default, and so does the folder path, which has no types.
    let expected = json!({"tool": "check_action", "arguments": {"mcp_access_token": "t", "content": "hi", "scan_type": "prompt_input"}});
    assert_eq!(typed.structured_content, Some(expected.clone()));
    assert_eq!(text(&typed), serde_json::to_string(&expected).unwrap());
    let untyped = folder.server.call("check_action", Some(&args)).unwrap();
    assert_eq!(untyped.structured_content, Some(expected));
}

#[test]
fn a_folder_echoes_what_the_typed_handler_would_receive() {
    // Numbers as the field's type holds them (`5.0` for an integer, `600` for a number),
    // undeclared properties of an object that allows them dropped (the struct has no field
    // for them), defaults filled in.
    for (catalog, requested, tool, args, arguments) in [
        (
            "tatara",
            "implement",
            "code_search",
            json!({"repo": "api", "q": "fn main", "limit": 5.0}),
            json!({"repo": "api", "q": "fn main", "limit": 5}),
        ),
        (
            "tatara",
            "implement",
            "project_get",
            json!({"project": "p", "extra": [1, 2]}),
            json!({"project": "p"}),
        ),
        (
            "maetra",
            "govern",
            "request_approval",
            json!({"mcp_access_token": "t", "action": "refunds.create", "timeout_seconds": 600}),
            json!({"mcp_access_token": "t", "action": "refunds.create", "timeout_seconds": 600.0, "executor_audience": "maetra-executor"}),
        ),
    ] {
        let [bundled, folder] = both(catalog, requested);
        let args = object(args);
        let typed = bundled.server.call(tool, Some(&args)).unwrap();
        let untyped = folder.server.call(tool, Some(&args)).unwrap();
        assert_eq!(typed.is_error, Some(false), "{tool}: {}", text(&typed));
        let expected = json!({"tool": tool, "arguments": arguments});
        assert_eq!(typed.structured_content, Some(expected.clone()), "{tool}");
        assert_eq!(untyped.structured_content, Some(expected), "{tool}");
        assert_eq!(text(&typed), text(&untyped), "{tool}");
    }
}

#[test]
fn a_backend_can_be_a_closure_over_one_profiles_dispatch() {
    let server = ToolServer::new(
        tatara::Profile::Refine.tools_list_json(),
        |tool: &str, arguments: &JsonObject| {
            tatara::dispatch_refine(&tatara::EchoHandler, tool, arguments)
        },
    )
    .unwrap();
    let ok = server
        .call(
            "mr_write",
            Some(&object(json!({"action": "comment", "repo": "api"}))),
        )
        .unwrap();
    assert_eq!(ok.is_error, Some(false));
    // A backend wider than the list cannot widen the session: the list decides.
    let wide = ToolServer::new(
        tatara::Profile::Refine.tools_list_json(),
        |tool: &str, a: &JsonObject| tatara::dispatch_implement(&tatara::EchoHandler, tool, a),
    )
    .unwrap();
    assert_eq!(
        wide.call("code_search", Some(&object(json!({"repo": "a", "q": "b"}))))
            .unwrap_err()
            .message,
        "unknown tool `code_search`"
    );
}

#[test]
fn replies_from_results() {
    let ok: Result<Vec<u8>, String> = Ok(vec![1, 2]);
    assert_eq!(Reply::from(ok), Reply::Structured(json!([1, 2])));
    let failed: Result<(), String> = Err("the forge is down".into());
    assert_eq!(
        Reply::from(failed),
        Reply::Failed("the forge is down".into())
    );
    let server = ToolServer::new(
        tatara::FAIL_CLOSED_TOOLS_LIST_JSON,
        |_: &str, _: &JsonObject| -> Result<Result<Value, String>, CallError> {
            Ok(Err("the forge is down".into()))
        },
    )
    .unwrap();
    let r = server.call("task_get", None).unwrap();
    assert_eq!(r.is_error, Some(true));
    assert_eq!(text(&r), "the forge is down");
}

#[test]
fn a_bad_tools_list_is_an_error_not_a_panic() {
    let backend = |_: &str, _: &JsonObject| -> Result<Value, CallError> { Ok(Value::Null) };
    assert!(matches!(
        ToolServer::new("{", backend),
        Err(ServeError::ToolsList(_))
    ));
    assert!(matches!(
        ToolServer::new(r#"{"tools": [{"name": 3}]}"#, backend),
        Err(ServeError::ToolsList(_))
    ));
    assert!(bundled("nope", "x", env("nope")).is_none());
}

#[test]
fn content_replies_are_mcp_content_blocks() {
    let server = ToolServer::new(
        tatara::FAIL_CLOSED_TOOLS_LIST_JSON,
        |tool: &str, _: &JsonObject| -> Result<Reply, CallError> {
            let image = json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"});
            Ok(match tool {
                "task_get" => Reply::Content {
                    content: vec![json!({"type": "text", "text": "a picture:"}), image],
                    is_error: false,
                },
                "task_note" => Reply::Content {
                    content: vec![json!({"type": "text", "text": "no"})],
                    is_error: true,
                },
                _ => Reply::Content {
                    content: vec![json!({"type": "hologram"})],
                    is_error: false,
                },
            })
        },
    )
    .unwrap();
    let r = server.call("task_get", None).unwrap();
    assert_eq!(r.is_error, Some(false));
    let sent = serde_json::to_value(&r.content).unwrap();
    assert_eq!(sent[1]["type"], "image");
    assert_eq!(sent[1]["mimeType"], "image/png");
    assert_eq!(text(&r), "a picture:");
    let r = server.call("task_note", None).unwrap();
    assert_eq!(r.is_error, Some(true));
    // A block that is not MCP content is the tool's error, not a panic or a protocol error.
    let r = server.call("task_context", None).unwrap();
    assert_eq!(r.is_error, Some(true));
    assert!(text(&r).contains("content block 0"), "{}", text(&r));
}

/// The hooks a generated async handler reaches: outside a session they do nothing and
/// refuse requests to the client.
#[test]
fn a_detached_call_context_is_the_handlers_context() {
    use toolgate_runtime::CallHooks;
    let call = CallContext::detached();
    let session = tatara::Session::of(&[tatara::Profile::Review]);
    let handler = call.handler_context(&session);
    assert_eq!(handler.profile(), Some(tatara::Profile::Review));
    assert!(!handler.wants_progress() && !handler.is_cancelled());
    assert!(!CallHooks::client_supports(&call, "sampling"));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let refused = runtime.block_on(handler.request("sampling/createMessage", json!({})));
    assert!(refused.unwrap_err().contains("no client"));
    runtime.block_on(handler.log(toolgate_runtime::LogLevel::Info, "nobody listens"));
}

#[test]
fn a_tool_that_requires_tasks_is_refused() {
    let list = r#"{"tools":[{"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]}"#;
    let backend = echo::EchoBackend::Generated(Box::new(|_, _| Ok(Value::Null)));
    let err = ToolServer::new(list, backend).err().map(|e| e.to_string());
    assert_eq!(
        err.as_deref(),
        Some(
            "the tools/list to serve does not read: tool `slow` requires task-augmented execution (`execution.taskSupport: \"required\"`), which toolgate serve does not implement"
        )
    );
    let optional = list.replace("required", "optional");
    let backend = echo::EchoBackend::Generated(Box::new(|_, _| Ok(Value::Null)));
    assert!(ToolServer::new(&optional, backend).is_ok());
}

#[test]
fn a_catalog_folder_validates_every_keyword_at_run_time() {
    let matrix = r#"{"catalog": "c", "selector": {"env": "P"}, "profiles": {"all": "All."},
        "groups": {"g": {}}, "grants": {"g": ["all"]}}"#;
    let tool = r##"{"name": "find", "group": "g", "description": "Find.", "inputSchema": {
        "$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
        "properties": {"q": {"type": "string", "pattern": "^[a-z]+$"},
                       "limit": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]}},
        "required": ["q"]}}"##;
    let files = vec![
        toolgate_schema::SourceFile {
            rel: "profiles.json".into(),
            bytes: matrix.as_bytes().to_vec(),
        },
        toolgate_schema::SourceFile {
            rel: "tools/find.json".into(),
            bytes: tool.as_bytes().to_vec(),
        },
    ];
    let catalog = toolgate_schema::load_sources(Path::new("c"), files).unwrap();
    let surface = toolgate_schema::Surface::from_catalog(&catalog);
    let session = surface.resolve("all");
    let backend = echo::EchoBackend::Folder(echo::FolderEcho::new(&surface, &session));
    assert!(
        backend
            .call("find", &object(json!({"q": "abc", "limit": null})))
            .is_ok()
    );
    let refused = |args: Value| match backend.call("find", &object(args)) {
        Err(CallError::InvalidArguments { violations, .. }) => violations
            .iter()
            .map(|v| v.field.clone())
            .collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(refused(json!({"q": "ABC"})), ["q"]);
    assert_eq!(refused(json!({"q": "abc", "limit": 0})), ["limit"]);
    // What the typed model holds keeps the generated code's message.
    assert_eq!(refused(json!({})), ["q"]);
}
