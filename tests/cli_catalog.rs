//! `toolgate tools-list`, `manifest` and `check`, end to end.

mod common;

use common::{copy_tree, repo_root, run, scratch, stderr, stdout, toolgate};
use serde_json::Value;

fn tool_names(json: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(json).expect("tools/list is JSON");
    v["tools"]
        .as_array()
        .expect("tools array")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_string())
        .collect()
}

#[test]
fn tools_list_per_profile() {
    let o = run(&[
        "tools-list",
        "--catalog",
        "tatara",
        "--profile",
        "implement",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(tool_names(&stdout(&o)).len(), 18);
    assert!(stderr(&o).is_empty());

    let o = run(&[
        "tools-list",
        "--catalog",
        "maetra",
        "--profile",
        "task_guard,govern",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(tool_names(&stdout(&o)).len(), 14);

    // The profile from the selector's environment variable, and the same catalog by path.
    let o = toolgate()
        .args(["tools-list", "--catalog", "schema/tatara"])
        .env("TATARA_TOOL_PROFILE", "refine")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let names = tool_names(&stdout(&o));
    assert_eq!(names.len(), 13);
    assert!(!names.contains(&"code_search".to_string()));
}

#[test]
fn unknown_profile_fails_closed_with_a_warning() {
    let o = run(&["tools-list", "--catalog", "tatara", "--profile", "clarify"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(tool_names(&stdout(&o)).len(), 6);
    let err = stderr(&o);
    assert!(
        err.starts_with("warning: unknown profile \"clarify\" (--profile); failing closed"),
        "{err}"
    );
    // The warning names where the value came from: the flag, or the variable.
    let o = toolgate()
        .args(["tools-list", "--catalog", "tatara"])
        .env("TATARA_TOOL_PROFILE", "clarify")
        .output()
        .unwrap();
    assert_eq!(tool_names(&stdout(&o)).len(), 6);
    assert!(
        stderr(&o).starts_with(
            "warning: unknown profile \"clarify\" (TATARA_TOOL_PROFILE); failing closed"
        ),
        "{}",
        stderr(&o)
    );

    let o = run(&["tools-list", "--catalog", "maetra"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(tool_names(&stdout(&o)), ["get_mcp_access"]);
    assert!(stderr(&o).contains("MAETRA_CAPABILITIES is empty or unset"));
    for catalog in ["maetra", "schema/maetra"] {
        let o = run(&["tools-list", "--catalog", catalog, "--profile", ""]);
        assert_eq!(tool_names(&stdout(&o)), ["get_mcp_access"]);
        assert!(
            stderr(&o)
                .starts_with("warning: no profile given (--profile is empty); failing closed"),
            "{catalog}: {}",
            stderr(&o)
        );
    }
    let o = toolgate()
        .args(["tools-list", "--catalog", "schema/tatara"])
        .env("TATARA_TOOL_PROFILE", "clarify")
        .output()
        .unwrap();
    assert!(
        stderr(&o).starts_with("warning: unknown profile \"clarify\" (TATARA_TOOL_PROFILE)"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn manifest_formats() {
    let o = run(&["manifest", "--catalog", "tatara"]);
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["format_version"], 1);
    assert_eq!(v["tools"].as_array().unwrap().len(), 21);

    let o = run(&["manifest", "--catalog", "tatara", "--format", "tatara"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    assert!(text.starts_with(
        "{\n  \"tools\": [\n    {\n      \"name\": \"code_context\",\n      \"enums\": {"
    ));
    if let Some(shared) = common::shared() {
        let real =
            std::fs::read_to_string(shared.join("anchors/tatara/tool-manifest.json")).unwrap();
        assert_eq!(text, real);
    }
}

#[test]
fn check_reports_every_error_and_exits_1() {
    let dir = scratch("check_broken");
    copy_tree(&repo_root().join("schema/tatara"), &dir);
    // Three independent mistakes in three files.
    let matrix = dir.join("profiles.json");
    let text = std::fs::read_to_string(&matrix).unwrap();
    std::fs::write(
        &matrix,
        text.replace("\"action\": [\"comment\"]", "\"action\": [\"merge\"]"),
    )
    .unwrap();
    std::fs::write(dir.join("tools/task_get.json"), "{ not json").unwrap();
    let scm = dir.join("tools/scm_read.json");
    let text = std::fs::read_to_string(&scm).unwrap();
    std::fs::write(
        &scm,
        text.replacen(
            "\"type\": \"integer\"",
            "\"type\": \"integer\", \"unevaluatedProperties\": false",
            1,
        ),
    )
    .unwrap();

    let o = run(&["check", "--catalog", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("profiles.json:"), "{err}");
    assert!(
        err.contains("\"merge\" is not a value of `mr_write.action`"),
        "{err}"
    );
    assert!(
        err.contains("tools/task_get.json:1:3: invalid JSON"),
        "{err}"
    );
    assert!(err.contains("tools/scm_read.json:"), "{err}");
    assert!(
        err.contains("keyword `unevaluatedProperties`: `unevaluated*` keywords are outside the accepted subset"),
        "{err}"
    );
    assert!(err.trim_end().ends_with("3 errors in the catalog"), "{err}");
}

#[test]
fn check_accepts_the_bundled_catalogs() {
    for dir in ["schema/tatara", "schema/maetra"] {
        let o = run(&["check", "--catalog", dir]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let o = run(&["check", "--catalog", "no/such/folder"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no/such/folder: no such catalog folder"));
}

#[test]
fn check_prints_warnings_and_still_exits_0() {
    let dir = scratch("check_warnings").join("warned");
    std::fs::create_dir_all(dir.join("tools")).unwrap();
    std::fs::write(
        dir.join("profiles.json"),
        r#"{"catalog": "warned", "selector": {"env": "P"}, "profiles": {"all": "All."},
            "groups": {"g": {}}, "grants": {"g": ["all"]}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("tools/t.json"),
        r#"{"name": "t", "group": "g", "description": "T.",
 "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "x-unit": "s", "default": "soon"}}}}"#,
    )
    .unwrap();
    let o = run(&["check", "--catalog", dir.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("at /inputSchema/properties/n/x-unit: `x-unit` is not a JSON Schema keyword"),
        "{err}"
    );
    assert!(
        err.contains("at /inputSchema/properties/n/default: the default does not match the schema"),
        "{err}"
    );
    assert!(err.trim_end().ends_with("0 always on, 2 warnings"), "{err}");
}
