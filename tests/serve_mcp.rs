//! `toolgate serve` end to end: a real MCP session over the server's stdio.
//!
//! - `json_rpc_over_stdio`: a minimal JSON-RPC client written here (always runs): the wire
//!   answers, byte for byte where the MCP specification fixes them.
//! - `official_python_sdk`: the official MCP Python SDK (PyPI `mcp`, run by
//!   `tests/mcp/run_client.py`) against every tatara profile, maetra's capability sets and
//!   catalog folders. Every expectation is worked out here from `toolgate-schema`'s surface
//!   and the generated code in process, never from hard-coded lists.
//! - `mcp_inspector_cli`: `@modelcontextprotocol/inspector` in CLI mode (npm).
//!
//! The last two skip with a message when Python's `mcp` or the inspector is missing, and fail
//! instead when `TOOLGATE_REQUIRE_E2E=1` (as `.ci/run` sets it after installing both).

mod common;
mod mcp_support;

use std::path::PathBuf;
use std::process::Command;

use mcp_support::{
    AUTHORED_SHAPES, RawClient, as_python_sdk_keeps, authored_shapes, example, served_names, skip,
    surface,
};
use serde_json::{Value, json};
use toolgate_generated::{maetra, tatara};
use toolgate_schema::runtime::CallError;

/// The tools of a `tools/list` text (a compiled-in constant).
fn tools_of(list_text: &str) -> Value {
    let v: Value = serde_json::from_str(list_text).expect("a tools/list constant parses");
    v["tools"].clone()
}

/// The tools a bundled catalog serves for a selector value, from its compiled-in constants.
fn constant_tools(catalog: &str, requested: &str) -> Value {
    let (text, _) = toolgate_generated::tools_list(
        catalog,
        requested,
        toolgate_schema::runtime::Source::Given("--profile"),
    )
    .expect("bundled");
    tools_of(&text)
}

/// What the generated code answers in process (dispatch through the session, echo handler):
/// the typed echo, or the refusal.
fn in_process(
    catalog: &str,
    requested: &str,
    tool: &str,
    args: &Value,
) -> Result<Value, CallError> {
    match catalog {
        "tatara" => tatara::dispatch(
            &tatara::Session::resolve(requested),
            &tatara::EchoHandler,
            tool,
            args,
        ),
        "maetra" => maetra::dispatch(
            &maetra::Session::resolve(requested),
            &maetra::EchoHandler,
            tool,
            args,
        ),
        other => panic!("not bundled: {other}"),
    }
}

fn names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// `execution` and annotation keys outside MCP's list, which rmcp's `Tool` does not hold,
/// are on the wire as the catalog writes them.
#[test]
fn tools_are_sent_as_authored_over_stdio() {
    let mut c = RawClient::start(&["--catalog", AUTHORED_SHAPES, "--profile", "all"], &[]);
    assert_eq!(c.list(), authored_shapes());
    let (status, stderr) = c.close();
    assert!(status.success(), "{stderr}");
}

#[test]
fn json_rpc_over_stdio() {
    let mut c = RawClient::start(&["--catalog", "tatara", "--profile", "refine"], &[]);
    // tools/list: the constant's tools, in its order, the same on every call.
    let first = c.list();
    assert_eq!(first, constant_tools("tatara", "refine"));
    assert_eq!(names(&first), served_names(&surface("tatara"), "refine"));
    assert_eq!(c.list(), first);
    // Unknown and ungranted: JSON-RPC -32602, the same words.
    let args = json!({"repo": "api", "q": "x"});
    for tool in ["code_search", "code_searcher"] {
        let r = c.call(tool, &args);
        assert_eq!(
            r["error"],
            json!({"code": -32602, "message": format!("unknown tool `{tool}`")}),
            "{r}"
        );
        assert!(r.get("result").is_none());
    }
    // Invalid arguments: a tool result with isError and the field named.
    let r = c.call("mr_write", &json!({"action": "open", "repo": "api"}));
    assert_eq!(r["result"]["isError"], json!(true), "{r}");
    assert_eq!(
        r["result"]["content"],
        json!([{"type": "text", "text": "invalid arguments for `mr_write`: field `action`: \"open\" is not one of \"comment\""}])
    );
    assert_eq!(
        r["result"]["structuredContent"]["violations"][0]["field"],
        "action"
    );
    // A valid call: its typed arguments, as structured content and as text.
    let r = c.call(
        "mr_write",
        &json!({"action": "comment", "repo": "api", "number": 3}),
    );
    let echoed =
        json!({"tool": "mr_write", "arguments": {"action": "comment", "repo": "api", "number": 3}});
    assert_eq!(r["result"]["isError"], json!(false), "{r}");
    assert_eq!(r["result"]["structuredContent"], echoed);
    let text = r["result"]["content"][0]["text"].as_str().expect("text");
    assert_eq!(
        serde_json::from_str::<Value>(text).expect("JSON text"),
        echoed
    );
    // No arguments at all is an empty object.
    let r = c.request("tools/call", json!({"name": "task_get"}));
    assert_eq!(
        r["result"]["structuredContent"],
        json!({"tool": "task_get", "arguments": {}})
    );
    let (status, stderr) = c.close();
    assert!(status.success(), "exit {status}; stderr: {stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    // The profile from the selector variable; fail closed on an empty one, with a warning.
    let mut c = RawClient::start(
        &["--catalog", "tatara"],
        &[("TATARA_TOOL_PROFILE", "review")],
    );
    assert_eq!(c.list(), constant_tools("tatara", "review"));
    let (status, stderr) = c.close();
    assert!(status.success() && !stderr.contains("warning"), "{stderr}");
    let mut c = RawClient::start(&["--catalog", "tatara"], &[("TATARA_TOOL_PROFILE", "")]);
    assert_eq!(c.list(), tools_of(tatara::FAIL_CLOSED_TOOLS_LIST_JSON));
    assert_eq!(
        c.call("submit_outcome", &json!({}))["error"]["code"],
        json!(-32602)
    );
    let (_, stderr) = c.close();
    assert!(
        stderr.contains(
            "warning: no profile given (TATARA_TOOL_PROFILE is empty or unset); failing closed"
        ),
        "{stderr}"
    );

    // A catalog folder: the same list, checked at run time with the same words.
    let mut c = RawClient::start(&["--catalog", "schema/tatara", "--profile", "refine"], &[]);
    assert_eq!(c.list(), constant_tools("tatara", "refine"));
    let r = c.call("mr_write", &json!({"action": "open", "repo": "api"}));
    assert_eq!(
        r["result"]["content"][0]["text"],
        "invalid arguments for `mr_write`: field `action`: \"open\" is not one of \"comment\""
    );
    assert_eq!(
        c.call("code_search", &args)["error"]["message"],
        "unknown tool `code_search`"
    );
    let (status, _) = c.close();
    assert!(status.success());
}

#[test]
fn a_broken_or_missing_catalog_is_refused_before_serving() {
    let out = common::run(&["serve", "--catalog", "target/no-such-catalog"]);
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    assert!(
        err.contains("cannot serve `target/no-such-catalog`"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty(), "stdout is for MCP messages only");
}

// ---------------------------------------------------------------------------------------
// The official Python SDK.

/// What one step must give.
enum Expect {
    /// `tools/list`: these tools, exactly (the compiled-in constant), with these names (the
    /// surface's).
    List { names: Vec<String>, tools: Value },
    /// A tool result with this structured content, holding every argument sent.
    Echo { sent: Value, structured: Value },
    /// A tool result with `isError`, this text, and the first violation on this field.
    ToolError { text: String, field: String },
    /// JSON-RPC error -32602 with this message.
    Unknown { tool: String },
}

struct Session {
    name: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    mode: &'static str,
    /// A warning on stderr must (Some) or must not (None) contain this.
    warning: Option<String>,
    steps: Vec<(Value, Expect)>,
}

impl Session {
    fn new(name: &str, args: &[&str], mode: &'static str) -> Session {
        Session {
            name: name.to_string(),
            args: args.iter().map(|s| s.to_string()).collect(),
            env: Vec::new(),
            mode,
            warning: None,
            steps: Vec::new(),
        }
    }

    fn list(&mut self, names: Vec<String>, tools: Value) {
        self.steps
            .push((json!({"op": "list"}), Expect::List { names, tools }));
    }

    fn call(&mut self, tool: &str, arguments: Value, expect: Expect) {
        self.steps.push((
            json!({"op": "call", "tool": tool, "arguments": arguments}),
            expect,
        ));
    }

    /// A valid call of `served` from its generated example (every property filled in with
    /// `full`, else only the required ones), expecting the typed echo.
    fn call_example(
        &mut self,
        catalog: &str,
        requested: &str,
        served: &toolgate_schema::Served<'_>,
        full: bool,
    ) {
        let args = example(&served.entry.input_schema, full);
        let expect = expect_bundled(catalog, requested, &served.tool.name, &args);
        assert!(
            matches!(expect, Expect::Echo { .. }),
            "the generated example for {} ({requested}) is refused: {args}",
            served.tool.name
        );
        self.call(&served.tool.name, args, expect);
    }
}

/// The expectation for a call, from the generated code in process (bundled catalogs) or
/// from the folder rule (echo of what was sent).
fn expect_bundled(catalog: &str, requested: &str, tool: &str, args: &Value) -> Expect {
    match in_process(catalog, requested, tool, args) {
        Ok(structured) => Expect::Echo {
            sent: args.clone(),
            structured,
        },
        Err(e @ CallError::InvalidArguments { .. }) => {
            let field = match &e {
                CallError::InvalidArguments { violations, .. } => violations[0].field.clone(),
                CallError::UnknownTool { .. } => unreachable!(),
            };
            Expect::ToolError {
                text: e.to_string(),
                field,
            }
        }
        Err(CallError::UnknownTool { tool }) => Expect::Unknown { tool },
    }
}

/// A session of a bundled catalog: list twice (the list does not change), then a valid call
/// of every tool served (every property filled in), checked against the typed echo.
fn bundled_session(catalog: &str, requested: &str, by_env: bool, mode: &'static str) -> Session {
    let s = surface(catalog);
    let env = s
        .selector
        .as_ref()
        .map(|x| x.env.clone())
        .unwrap_or_default();
    let name = format!(
        "{catalog} {requested:?}{}",
        if by_env { " (env)" } else { "" }
    );
    let mut session = if by_env {
        let mut x = Session::new(&name, &["serve", "--catalog", catalog], mode);
        x.env.push((env, requested.to_string()));
        x
    } else {
        Session::new(
            &name,
            &["serve", "--catalog", catalog, "--profile", requested],
            mode,
        )
    };
    // The warning names where the value came from: the variable or `--profile`.
    let resolved = if by_env {
        s.resolve(requested)
    } else {
        s.resolve_from(
            requested,
            toolgate_schema::runtime::Source::Given("--profile"),
        )
    };
    session.warning = resolved.warning.clone();
    let tools = constant_tools(catalog, requested);
    session.list(served_names(&s, requested), tools.clone());
    for served in s.served(&resolved) {
        session.call_example(catalog, requested, &served, true);
    }
    session.list(served_names(&s, requested), tools);
    session
}

fn plan() -> Vec<Session> {
    let mut sessions = Vec::new();
    let tatara_surface = surface("tatara");
    let mut profiles: Vec<String> = tatara_surface
        .profiles
        .iter()
        .map(|p| p.name.clone())
        .collect();
    profiles.push(String::new());
    profiles.push("clarify".to_string());
    for (i, p) in profiles.iter().enumerate() {
        // Both protocol eras: the 2026-07-28 discover probe and the initialize handshake.
        let mode = if i % 2 == 0 { "auto" } else { "legacy" };
        let by_env = p.is_empty() || p == "review";
        let mut session = bundled_session("tatara", p, by_env, mode);
        let mut check = |tool: &str, args: Value| {
            let expect = expect_bundled("tatara", p, tool, &args);
            session.call(tool, args, expect);
        };
        match p.as_str() {
            "refine" => {
                check("no_such_tool", json!({"repo": "api"}));
                check("code_search", json!({"repo": "api", "q": "x"}));
                check(
                    "mr_write",
                    json!({"action": "open", "repo": "api", "title": "t"}),
                );
            }
            "implement" => {
                check(
                    "mr_write",
                    json!({"action": "open", "repo": "api", "labels": ["x"]}),
                );
                check("mr_write", json!({"action": "merge", "repo": "api"}));
                check("mr_write", json!({"repo": "api"}));
                check("task_get", json!({"task": 7}));
                check("submit_outcome", json!({"outcome": 3, "surprise": true}));
                // The required fields only: defaults filled in by the typed path.
                for served in tatara_surface.served(&tatara_surface.resolve(p)) {
                    let args = example(&served.entry.input_schema, false);
                    check(&served.tool.name, args);
                }
            }
            "" | "clarify" => {
                check("submit_outcome", json!({}));
                check("code_search", json!({"repo": "api", "q": "x"}));
            }
            _ => {}
        }
        sessions.push(session);
    }

    let maetra_surface = surface("maetra");
    let caps: Vec<String> = maetra_surface
        .profiles
        .iter()
        .map(|p| p.name.clone())
        .collect();
    let mut sets: Vec<String> = Vec::new();
    for mask in 1u32..(1 << caps.len()) {
        let set: Vec<&str> = caps
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0)
            .map(|(_, c)| c.as_str())
            .collect();
        sets.push(set.join(","));
    }
    sets.extend([
        "".to_string(),
        "nope".to_string(),
        "secure,nope".to_string(),
    ]);
    for (i, set) in sets.iter().enumerate() {
        let mode = if i % 2 == 0 { "legacy" } else { "auto" };
        let by_env = set.is_empty() || set.contains("govern") && set.contains("task_guard");
        let mut session = bundled_session("maetra", set, by_env, mode);
        let resolved = maetra_surface.resolve(set);
        for served in maetra_surface.served(&resolved) {
            let schema = &served.entry.input_schema;
            let takes_token = schema
                .as_object()
                .is_some_and(|o| o.is_required("mcp_access_token"));
            let mut check = |args: Value| {
                let expect = expect_bundled("maetra", set, &served.tool.name, &args);
                session.call(&served.tool.name, args, expect);
            };
            if takes_token {
                // A capability tool with an empty token, and with none.
                let mut args = example(schema, false);
                args["mcp_access_token"] = json!("");
                check(args.clone());
                if let Some(o) = args.as_object_mut() {
                    o.remove("mcp_access_token");
                }
                check(args);
            }
            if served.tool.name == "check_action" {
                let mut args = example(schema, false);
                args["scan_type"] = json!("tool_call");
                check(args);
            }
        }
        sessions.push(session);
    }

    // Catalog folders: no generated types; the same lists, messages and echoes (defaults
    // filled in, numbers typed) as the generated code gives in process.
    for (dir, catalog, requested) in [
        ("schema/tatara", "tatara", "refine"),
        ("schema/maetra", "maetra", "secure,govern"),
    ] {
        let s = surface(catalog);
        let mut session = Session::new(
            &format!("folder {dir} {requested}"),
            &["serve", "--catalog", dir, "--profile", requested],
            "auto",
        );
        session.list(
            served_names(&s, requested),
            constant_tools(catalog, requested),
        );
        for served in s.served(&s.resolve(requested)) {
            for full in [true, false] {
                session.call_example(catalog, requested, &served, full);
            }
        }
        let (tool, args) = if catalog == "tatara" {
            ("mr_write", json!({"action": "open", "repo": "api"}))
        } else {
            (
                "check_action",
                json!({"mcp_access_token": "t", "content": "x", "scan_type": "tool_call"}),
            )
        };
        let expect = expect_bundled(catalog, requested, tool, &args);
        assert!(matches!(expect, Expect::ToolError { .. }));
        session.call(tool, args, expect);
        let expect = expect_bundled(catalog, requested, "no_such_tool", &json!({}));
        session.call("no_such_tool", json!({}), expect);
        sessions.push(session);
    }

    // Keys rmcp's `Tool` does not hold (`execution`, annotation keys outside MCP's list) reach
    // the client as the catalog writes them, in both protocol eras.
    for mode in ["auto", "legacy"] {
        let tools = as_python_sdk_keeps(&authored_shapes());
        let args = ["serve", "--catalog", AUTHORED_SHAPES, "--profile", "all"];
        let mut session = Session::new(&format!("server shapes ({mode})"), &args, mode);
        session.list(names(&tools), tools);
        sessions.push(session);
    }
    sessions
}

/// The Python with the `mcp` package: `TOOLGATE_PYTHON`, else `python3`.
fn python_with_sdk() -> Option<(PathBuf, String)> {
    let python = std::env::var_os("TOOLGATE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"));
    let out = Command::new(&python)
        .args([
            "-c",
            "from importlib.metadata import version; import mcp; print(version('mcp'))",
        ])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some((
        python,
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
    ))
}

fn check_step(
    session: &str,
    step: &Value,
    got: &Value,
    expect: &Expect,
    failures: &mut Vec<String>,
) {
    let mut fail =
        |why: String| failures.push(format!("[{session}] {step}: {why}\n    got: {got}"));
    match expect {
        Expect::List {
            names: want_names,
            tools,
        } => {
            let Some(listed) = got.get("tools") else {
                return fail("expected a tools/list result".into());
            };
            if names(listed) != *want_names {
                fail(format!(
                    "names {:?} != the surface's {want_names:?}",
                    names(listed)
                ));
            } else if listed != tools {
                fail("the tools differ from the compiled-in tools/list constant".into());
            }
        }
        Expect::Echo { sent, structured } => {
            let r = &got["result"];
            if r["isError"] != json!(false) {
                return fail("expected a successful result".into());
            }
            if r["structuredContent"] != *structured {
                fail(format!("structured content != the typed echo {structured}"));
            }
            let echoed = &r["structuredContent"]["arguments"];
            for (k, v) in sent.as_object().into_iter().flatten() {
                if echoed.get(k) != Some(v) {
                    fail(format!("argument `{k}` not echoed as sent"));
                }
            }
            let text = r["content"][0]["text"].as_str().unwrap_or_default();
            if serde_json::from_str::<Value>(text).ok().as_ref() != Some(structured) {
                fail("the text block is not the structured content as JSON".into());
            }
        }
        Expect::ToolError { text, field } => {
            let r = &got["result"];
            if r["isError"] != json!(true) {
                return fail("expected isError: true".into());
            }
            if r["content"][0]["text"] != json!(text) {
                fail(format!("text != {text:?}"));
            }
            if !text.contains(&format!("`{field}`")) {
                fail(format!("the message does not name the field `{field}`"));
            }
            if r["structuredContent"]["violations"][0]["field"] != json!(field) {
                fail(format!("first violation is not on `{field}`"));
            }
        }
        Expect::Unknown { tool } => {
            let want = json!({"code": -32602, "message": format!("unknown tool `{tool}`")});
            if got.get("error") != Some(&want) {
                fail(format!("expected the JSON-RPC error {want}"));
            }
        }
    }
}

#[test]
fn official_python_sdk() {
    let Some((python, sdk_version)) = python_with_sdk() else {
        return skip(
            "the MCP Python SDK (PyPI `mcp`) is not installed for TOOLGATE_PYTHON or python3",
        );
    };
    let sessions = plan();
    let bin = env!("CARGO_BIN_EXE_toolgate");
    let plan_json = json!({"sessions": sessions.iter().map(|s| json!({
        "name": s.name,
        "command": bin,
        "args": s.args,
        "env": s.env.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<String, Value>>(),
        "mode": s.mode,
        "steps": s.steps.iter().map(|(step, _)| step.clone()).collect::<Vec<_>>(),
    })).collect::<Vec<_>>()});
    let dir = common::scratch("serve-python-sdk");
    let plan_path = dir.join("plan.json");
    let results_path = dir.join("results.json");
    std::fs::write(
        &plan_path,
        serde_json::to_string_pretty(&plan_json).expect("plan"),
    )
    .expect("write plan");
    let script = common::repo_root().join("tests/mcp/run_client.py");
    let out = Command::new(&python)
        .arg(&script)
        .arg(&plan_path)
        .arg(&results_path)
        .current_dir(common::repo_root())
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "run_client.py failed: {}\n{}",
        common::stdout(&out),
        common::stderr(&out)
    );
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(&results_path).expect("results"))
            .expect("results are JSON");
    assert_eq!(results["sdk_version"], json!(sdk_version));
    let mut failures = Vec::new();
    let mut checked = 0;
    for (session, got) in sessions
        .iter()
        .zip(results["sessions"].as_array().expect("sessions"))
    {
        if let Some(e) = got.get("session_exception") {
            failures.push(format!(
                "[{}] the session failed: {}",
                session.name,
                e.as_str().unwrap_or_default()
            ));
            continue;
        }
        let stderr = got["stderr"].as_str().unwrap_or_default();
        match &session.warning {
            Some(w) if !stderr.contains(&format!("warning: {w}")) => failures.push(format!(
                "[{}] no fail-closed warning on stderr: {stderr}",
                session.name
            )),
            None if stderr.contains("warning") => {
                failures.push(format!("[{}] unexpected warning: {stderr}", session.name))
            }
            _ => {}
        }
        if got["server_name"] != json!("toolgate") {
            failures.push(format!(
                "[{}] server name {}",
                session.name, got["server_name"]
            ));
        }
        let steps = got["steps"].as_array().cloned().unwrap_or_default();
        if steps.len() != session.steps.len() {
            failures.push(format!(
                "[{}] {} steps answered of {}",
                session.name,
                steps.len(),
                session.steps.len()
            ));
        }
        for ((step, expect), got) in session.steps.iter().zip(&steps) {
            checked += 1;
            check_step(&session.name, step, got, expect, &mut failures);
        }
    }
    let eras: Vec<&str> = results["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["protocol_version"].as_str())
        .collect();
    eprintln!(
        "mcp {sdk_version}: {} sessions, {checked} steps checked, protocol versions {:?}",
        sessions.len(),
        eras.iter().collect::<std::collections::BTreeSet<_>>()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 300, "only {checked} steps checked");
}

// ---------------------------------------------------------------------------------------
// The MCP Inspector, CLI mode.

/// The inspector's CLI: `TOOLGATE_INSPECTOR` (a path to its `mcp-inspector` bin).
fn inspector() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("TOOLGATE_INSPECTOR")?);
    path.exists().then_some(path)
}

#[test]
fn mcp_inspector_cli() {
    let Some(inspector) = inspector() else {
        return skip(
            "the MCP Inspector (npm @modelcontextprotocol/inspector) is not installed: TOOLGATE_INSPECTOR is unset",
        );
    };
    let bin = env!("CARGO_BIN_EXE_toolgate");
    let run = |extra: &[&str]| {
        let out = Command::new(&inspector)
            .arg("--cli")
            .arg(bin)
            .args(["serve", "--catalog", "tatara", "--profile", "refine"])
            .args(extra)
            .current_dir(common::repo_root())
            .env_remove("TATARA_TOOL_PROFILE")
            .output()
            .expect("the inspector runs");
        (
            out.status.code(),
            common::stdout(&out),
            common::stderr(&out),
        )
    };
    // tools/list: the refine profile's constant.
    let (code, out, err) = run(&["--method", "tools/list"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let listed: Value = serde_json::from_str(&out).expect("the inspector prints JSON");
    assert_eq!(listed["tools"], constant_tools("tatara", "refine"));
    // A valid call: the typed echo.
    let (code, out, err) = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "mr_write",
        "--tool-arg",
        "action=comment",
        "--tool-arg",
        "repo=api",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let called: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(called["isError"], json!(false));
    assert_eq!(
        called["structuredContent"],
        in_process(
            "tatara",
            "refine",
            "mr_write",
            &json!({"action": "comment", "repo": "api"})
        )
        .expect("valid")
    );
    // Refine's restricted cell: a tool error naming the field.
    let (code, out, err) = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "mr_write",
        "--tool-arg",
        "action=open",
        "--tool-arg",
        "repo=api",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    let refused: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(refused["isError"], json!(true));
    assert_eq!(
        refused["content"][0]["text"],
        "invalid arguments for `mr_write`: field `action`: \"open\" is not one of \"comment\""
    );
    // An ungranted tool: the inspector reports the JSON-RPC error and fails.
    let (code, out, err) = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "code_search",
        "--tool-arg",
        "repo=api",
        "--tool-arg",
        "q=x",
    ]);
    assert_ne!(code, Some(0), "{out}\n{err}");
    assert!(
        err.contains("MCP error -32602: unknown tool `code_search`"),
        "{err}"
    );
}
