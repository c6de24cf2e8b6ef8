//! Shared inputs of the toolgate benchmarks: a mixed set of real tool calls of both bundled
//! catalogs, as JSON text, the schemas they are served, and handlers that do nothing with
//! what they receive; and calls of [`wild`], a surface with the shapes real MCP servers
//! write (shared `$defs`, `anyOf`/`oneOf`, nullable fields, type lists, `const` tags).

use std::collections::HashMap;
use std::hint::black_box;

use toolgate_generated::{maetra, tatara};

/// `catalogs/wild`, written for this benchmark in the shapes of real servers' tools (a
/// knowledge graph's entities, a step of sequential thinking, an issue's labels that are
/// strings or objects, a git branch with a nullable base, a shape tagged by a `const`).
#[allow(missing_docs)]
pub mod wild {
    toolgate_macros::catalog!("catalogs/wild");
}

/// One call: catalog, tool, arguments as JSON text.
pub struct Call {
    /// `tatara` (profile `implement`) or `maetra` (all three capabilities).
    pub catalog: &'static str,
    /// The tool.
    pub tool: &'static str,
    /// The arguments.
    pub arguments: &'static str,
}

/// Valid calls, as agents send them: short and long, flat and nested, enums and arrays.
pub const CALLS: &[Call] = &[
    Call {
        catalog: "tatara",
        tool: "task_get",
        arguments: r#"{"task":"task-8841"}"#,
    },
    Call {
        catalog: "tatara",
        tool: "task_note",
        arguments: r#"{"task":"task-8841","kind":"plan","body":"1. Reproduce the flaky retry test. 2. Bound the backoff. 3. Add a regression test."}"#,
    },
    Call {
        catalog: "tatara",
        tool: "code_search",
        arguments: r#"{"repo":"payments-api","q":"retry backoff","type":"function","limit":20}"#,
    },
    Call {
        catalog: "tatara",
        tool: "scm_read",
        arguments: r#"{"kind":"mr","repo":"payments-api","state":"open","since":"2026-01-04T10:00:00Z","limit":50}"#,
    },
    Call {
        catalog: "tatara",
        tool: "mr_write",
        arguments: r#"{"action":"open","repo":"payments-api","title":"Bound the retry backoff","body":"Caps the exponential backoff at 30 s and adds a regression test for the flaky case."}"#,
    },
    Call {
        catalog: "tatara",
        tool: "memory_write",
        arguments: r#"{"text":"The payments API retries card captures with exponential backoff.","metadata":{"area":"payments","kind":"fact"}}"#,
    },
    Call {
        catalog: "tatara",
        tool: "report_internal_issue",
        arguments: r#"{"category":"tool_error","description":"scm_read(kind=ci) timed out twice","offending_tool":"scm_read"}"#,
    },
    Call {
        catalog: "tatara",
        tool: "submit_outcome",
        arguments: r#"{"task":"task-8841","action":"approved","reason":"The maintainer approved the plan in the issue thread.","approving_maintainer":"jdoe","plan_note_id":"note-17","approval_citations":[{"id":"c-991","quote":"Looks good, go ahead"},{"id":"c-992","quote":"Please keep the cap configurable"}]}"#,
    },
    Call {
        catalog: "maetra",
        tool: "get_mcp_access",
        arguments: r#"{}"#,
    },
    Call {
        catalog: "maetra",
        tool: "check_action",
        arguments: r#"{"mcp_access_token":"tok-5f2a","content":"rm -rf build/ && cargo build --release","scan_type":"tool_call","tool_name":"shell","agent_id":"agent-7"}"#,
    },
    Call {
        catalog: "maetra",
        tool: "start_task",
        arguments: r#"{"mcp_access_token":"tok-5f2a","session_ref":"sess-42","objective":"Refund order 1182 and notify the customer","idempotency_key":"start-sess-42-1","title":"Refund 1182","constraints":["no refunds above 500 EUR","notify by email only"],"success_criteria":["refund issued","customer notified"],"host_type":"CLAUDE","integration_mode":"ENFORCED","confirmation_capable":true}"#,
    },
    Call {
        catalog: "maetra",
        tool: "check_task_alignment",
        arguments: r#"{"mcp_access_token":"tok-5f2a","session_ref":"sess-42","action":"Issue a refund of 120 EUR on order 1182","action_type":"execute","target":"payments","effects":["money leaves the account"],"effect":"TRANSFER","tool_name":"refunds.create","estimated_cost":120.0,"reversible":false,"resource":{"order":"1182"}}"#,
    },
    Call {
        catalog: "maetra",
        tool: "request_approval",
        arguments: r#"{"mcp_access_token":"tok-5f2a","action":"refunds.create","payload":{"order":"1182","amount":120,"currency":"EUR"},"agent_id":"agent-7","reasoning":"The customer was charged twice.","autonomy_level":"L2","timeout_seconds":600,"idempotency_key":"appr-1182"}"#,
    },
    Call {
        catalog: "maetra",
        tool: "record_execution_attempt",
        arguments: r#"{"mcp_access_token":"tok-5f2a","execution_id":"exec-77","attempt_number":1,"request":{"order":"1182","amount":120},"response":{"id":"re_123","status":"succeeded"},"status":"succeeded","started_at":"2026-01-04T10:00:00Z","completed_at":"2026-01-04T10:00:02Z"}"#,
    },
];

/// Valid calls of [`wild`] (profile `agent`), in its shapes: `$defs` in arrays and nullable,
/// a type list, a `oneOf` of a string and an object, a nullable string, a `const`-tagged
/// `oneOf` of definitions.
pub const WILD_CALLS: &[Call] = &[
    Call {
        catalog: "wild",
        tool: "graph_add",
        arguments: r#"{"entities":[{"name":"payments-api","kind":"service","facts":["retries card captures","owned by the billing team"]},{"name":"billing","kind":"team","facts":[]}],"merge_into":null}"#,
    },
    Call {
        catalog: "wild",
        tool: "think_step",
        arguments: r#"{"thought":"The flaky test fails only when the retry backoff exceeds the test timeout.","more_needed":true,"step":3,"of":5,"revises":null}"#,
    },
    Call {
        catalog: "wild",
        tool: "issue_label",
        arguments: r#"{"owner":"acme","repo":"payments-api","number":1182,"labels":["bug",{"name":"flaky-test","confidence":"HIGH"},{"name":"p2"}]}"#,
    },
    Call {
        catalog: "wild",
        tool: "branch_create",
        arguments: r#"{"repo_path":"/srv/git/payments-api","branch_name":"fix/bound-backoff","base_branch":"main"}"#,
    },
    Call {
        catalog: "wild",
        tool: "shape_draw",
        arguments: r#"{"shape":{"kind":"rect","width":120,"height":40.5},"fill":{"colour":"blue","opacity":0.8},"outline":{"colour":"black"},"at":[10,20]}"#,
    },
    Call {
        catalog: "wild",
        tool: "think_step",
        arguments: r#"{"thought":"Cap the backoff at 30 s and make the cap configurable.","more_needed":"no","step":4,"of":5,"branch":"cap"}"#,
    },
];

/// The input schema each tool of [`wild`] is served to profile `agent` (as authored:
/// `$defs` and `$ref`s kept), by tool.
pub fn wild_served_schemas() -> HashMap<&'static str, serde_json::Value> {
    let list: serde_json::Value =
        serde_json::from_str(wild::Profile::Agent.tools_list_json()).expect("tools/list parses");
    let mut out = HashMap::new();
    for t in list["tools"].as_array().into_iter().flatten() {
        let Some(name) = t["name"].as_str() else {
            continue;
        };
        let name: &'static str = Box::leak(name.to_string().into_boxed_str());
        out.insert(name, t["inputSchema"].clone());
    }
    out
}

/// Typed dispatch of a [`WILD_CALLS`] call into [`WildSink`] through [`wild`]'s `agent`
/// dispatch.
#[inline]
pub fn wild_dispatch<'a, A: toolgate_schema::runtime::RawArguments<'a>>(
    call: &Call,
    arguments: A,
) -> Result<(), toolgate_schema::runtime::CallError> {
    wild::dispatch_agent(&WildSink, call.tool, arguments)
}

/// The generated argument type a [`WILD_CALLS`] call is read as.
pub fn wild_argument_type(call: &Call) -> &'static toolgate_schema::runtime::ArgumentType {
    wild::ARGUMENT_TYPES
        .iter()
        .find(|t| t.tool == call.tool)
        .unwrap_or_else(|| panic!("no argument type for {}", call.tool))
}

/// The input schema each (catalog, tool) is served in the benchmarked sessions: tatara's
/// `implement` profile, and `maetra_session` (all three capabilities in the benchmarks).
pub fn served_schemas(
    maetra_session: &maetra::Session,
) -> HashMap<(&'static str, &'static str), serde_json::Value> {
    let mut out = HashMap::new();
    for (catalog, lists) in [
        (
            "tatara",
            tatara::Profile::Implement.tools_list_json().to_string(),
        ),
        ("maetra", maetra_session.tools_list_json().into_owned()),
    ] {
        let v: serde_json::Value = serde_json::from_str(&lists).expect("tools/list parses");
        for t in v["tools"].as_array().into_iter().flatten() {
            let Some(name) = t["name"].as_str() else {
                continue;
            };
            let name: &'static str = Box::leak(name.to_string().into_boxed_str());
            out.insert((catalog, name), t["inputSchema"].clone());
        }
    }
    out
}

/// The typed dispatch the benchmarks measure: `call` with `arguments` (its JSON text, or
/// the object it parses to) into [`Sink`] through tatara's `implement` dispatch, or into
/// [`MaetraSink`] through `maetra_session`'s.
#[inline]
pub fn typed_dispatch<'a, A: toolgate_schema::runtime::RawArguments<'a>>(
    call: &Call,
    maetra_session: &maetra::Session,
    arguments: A,
) -> Result<(), toolgate_schema::runtime::CallError> {
    match call.catalog {
        "tatara" => tatara::dispatch_implement(&Sink, call.tool, arguments),
        _ => maetra::dispatch(maetra_session, &MaetraSink, call.tool, arguments),
    }
}

/// The generated argument type `call` is read as in the benchmarked sessions (tatara's
/// `implement` profile, maetra with every capability).
pub fn argument_type(call: &Call) -> &'static toolgate_schema::runtime::ArgumentType {
    let (types, profile) = match call.catalog {
        "tatara" => (tatara::ARGUMENT_TYPES, "implement"),
        _ => (maetra::ARGUMENT_TYPES, ""),
    };
    types
        .iter()
        .find(|t| t.tool == call.tool && (profile.is_empty() || t.profiles.contains(&profile)))
        .unwrap_or_else(|| panic!("no argument type for {}", call.tool))
}

/// A handler that does nothing with the typed arguments it receives.
pub struct Sink;

macro_rules! sink {
    ($($tool:ident: $ty:ty),* $(,)?) => {
        $(fn $tool(&self, arguments: $ty) -> Self::Output {
            black_box(arguments);
        })*
    };
}

impl tatara::AlwaysOnHandler for Sink {
    type Output = ();
    sink!(
        project_get: tatara::project_get::Args,
        repo_list: tatara::repo_list::Args,
        report_internal_issue: tatara::report_internal_issue::Args,
        task_context: tatara::task_context::Args,
        task_get: tatara::task_get::Args,
        task_note: tatara::task_note::Args,
    );
}

impl tatara::ImplementHandler for Sink {
    sink!(
        code_context: tatara::code_context::Args,
        code_explain: tatara::code_explain::Args,
        code_graph: tatara::code_graph::Args,
        code_search: tatara::code_search::Args,
        issue_write: tatara::issue_write::Args,
        memory_describe: tatara::memory_describe::Args,
        memory_query: tatara::memory_query::Args,
        memory_write: tatara::memory_write::Args,
        mr_takeover_request: tatara::mr_takeover_request::Args,
        mr_write: tatara::mr_write::Args,
        scm_read: tatara::scm_read::Args,
        submit_outcome: tatara::submit_outcome::ImplementArgs,
    );
}

/// [`Sink`] for maetra.
pub struct MaetraSink;

impl maetra::AlwaysOnHandler for MaetraSink {
    type Output = ();
    sink!(get_mcp_access: maetra::get_mcp_access::Args);
}

impl maetra::TaskGuardHandler for MaetraSink {
    sink!(
        check_task_alignment: maetra::check_task_alignment::Args,
        complete_task: maetra::complete_task::Args,
        explain_task_relationship: maetra::explain_task_relationship::Args,
        get_task_context: maetra::get_task_context::Args,
        record_action_effect: maetra::record_action_effect::Args,
        record_task_progress: maetra::record_task_progress::Args,
        start_task: maetra::start_task::Args,
    );
}

impl maetra::SecureHandler for MaetraSink {
    sink!(
        check_action: maetra::check_action::Args,
        create_rule: maetra::create_rule::Args,
        list_active_rules: maetra::list_active_rules::Args,
        update_rule: maetra::update_rule::Args,
    );
}

impl maetra::GovernHandler for MaetraSink {
    sink!(
        authorize_execution: maetra::authorize_execution::Args,
        get_approval_status: maetra::get_approval_status::Args,
        list_active_policies: maetra::list_active_policies::Args,
        record_execution_attempt: maetra::record_execution_attempt::Args,
        record_execution_effect: maetra::record_execution_effect::Args,
        request_approval: maetra::request_approval::Args,
    );
}

/// [`Sink`] for [`wild`].
pub struct WildSink;

impl wild::AlwaysOnHandler for WildSink {
    type Output = ();
}

impl wild::AgentHandler for WildSink {
    sink!(
        branch_create: wild::branch_create::Args,
        graph_add: wild::graph_add::Args,
        issue_label: wild::issue_label::Args,
        shape_draw: wild::shape_draw::Args,
        think_step: wild::think_step::Args,
    );
}
