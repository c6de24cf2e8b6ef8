//! Shapes real MCP servers write that the loader once refused or dropped (issue 29),
//! each in a catalog written here: annotation keys outside MCP's `ToolAnnotations` list (a
//! TypeScript SDK v2 server puts `category` and `conditions` on every tool), and a tool's
//! `title` and `execution`, which `diff` compares.

use std::path::Path;

use serde_json::{Value, json};
use toolgate_schema::diff::{Bump, diff};
use toolgate_schema::json::to_compact;
use toolgate_schema::{SourceFile, Surface, load_sources};

fn file(rel: &str, v: &Value) -> SourceFile {
    SourceFile {
        rel: rel.to_string(),
        bytes: serde_json::to_vec_pretty(v).unwrap(),
    }
}

/// A matrix with one profile granted everything; `schemas` as given.
fn matrix(schemas: Option<&str>) -> SourceFile {
    let mut m = json!({
        "catalog": "navigator",
        "selector": { "env": "NAVIGATOR_PROFILE" },
        "profiles": { "all": "Every tool." },
        "groups": { "main": {} },
        "grants": { "main": ["*"] }
    });
    if let Some(s) = schemas {
        m["schemas"] = json!(s);
    }
    file("profiles.json", &m)
}

/// A tool as a TypeScript SDK v2 server lists it: MCP's annotations and two of its own.
fn ts_tool(name: &str, category: &str) -> Value {
    json!({
        "name": name,
        "group": "main",
        "description": format!("Moves the view: {name}."),
        "inputSchema": {
            "type": "object",
            "properties": { "target": { "type": "string" } },
            "required": ["target"]
        },
        "annotations": {
            "title": format!("Go {name}"),
            "readOnlyHint": true,
            "category": category,
            "conditions": [{ "requires": "session", "when": "open" }]
        }
    })
}

fn ts_catalog(schemas: Option<&str>) -> Vec<SourceFile> {
    vec![
        matrix(schemas),
        file("tools/scroll_to.json", &ts_tool("scroll_to", "navigation")),
        file("tools/zoom_in.json", &ts_tool("zoom_in", "view")),
        file("tools/pan_left.json", &ts_tool("pan_left", "navigation")),
    ]
}

/// The `annotations` of each tool in the profile's `tools/list`, by name.
fn served_annotations(surface: &Surface) -> Vec<(String, Value)> {
    let list = surface.tools_list_json(&surface.resolve("all"));
    let list: Value = serde_json::from_str(&to_compact(&list)).unwrap();
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["annotations"].clone(),
            )
        })
        .collect()
}

#[test]
fn annotation_keys_outside_mcps_list_are_kept_served_and_warned_once_per_key() {
    for schemas in [None, Some("resolve")] {
        let catalog = match load_sources(Path::new("navigator"), ts_catalog(schemas)) {
            Ok(c) => c,
            Err(e) => panic!("a TS SDK v2 surface must load ({schemas:?}):\n{e}"),
        };
        // One warning per key, however many tools use it, at its first use.
        let warnings: Vec<String> = catalog.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(warnings.len(), 2, "{warnings:#?}");
        assert!(
            warnings[0].starts_with("navigator/tools/scroll_to.json")
                && warnings[0].contains("at /annotations/category")
                && warnings[0].contains("annotation `category` is not one of MCP's (title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint) (and in 2 more tool files): kept and served as written"),
            "{warnings:#?}"
        );
        assert!(
            warnings[1].contains("annotation `conditions`")
                && warnings[1].contains("(and in 2 more tool files)"),
            "{warnings:#?}"
        );
        // Served as the server wrote them, in either mode.
        let surface = Surface::from_catalog(&catalog);
        let served = served_annotations(&surface);
        assert_eq!(served.len(), 3);
        for (name, annotations) in served {
            let category = if name == "zoom_in" {
                "view"
            } else {
                "navigation"
            };
            assert_eq!(
                annotations,
                ts_tool(&name, category)["annotations"],
                "{name} ({schemas:?})"
            );
        }
    }
}

#[test]
fn a_misspelt_annotation_is_kept_with_a_did_you_mean() {
    let mut tool = ts_tool("scroll_to", "navigation");
    tool["annotations"] = json!({ "readonlyHint": true });
    let catalog = load_sources(
        Path::new("navigator"),
        vec![matrix(None), file("tools/scroll_to.json", &tool)],
    )
    .unwrap();
    let warnings: Vec<String> = catalog.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].ends_with("(did you mean `readOnlyHint`?)"),
        "{warnings:#?}"
    );
}

fn surface_of(files: Vec<SourceFile>) -> Surface {
    match load_sources(Path::new("navigator"), files) {
        Ok(c) => Surface::from_catalog(&c),
        Err(e) => panic!("catalog does not load:\n{e}"),
    }
}

#[test]
fn diff_reports_changed_titles_and_execution() {
    let mut old_tool = ts_tool("scroll_to", "navigation");
    old_tool["title"] = json!("Scroll");
    old_tool["execution"] = json!({ "taskSupport": "forbidden" });
    let mut old_zoom = ts_tool("zoom_in", "view");
    old_zoom["execution"] = json!({ "taskSupport": "optional" });
    let old = surface_of(vec![
        matrix(None),
        file("tools/scroll_to.json", &old_tool),
        file("tools/zoom_in.json", &old_zoom),
    ]);
    let mut new_tool = old_tool.clone();
    new_tool["title"] = json!("Scroll to a target");
    new_tool["execution"] = json!({ "taskSupport": "optional" });
    let mut new_zoom = old_zoom.clone();
    new_zoom["icons"] = json!([{ "src": "https://example.org/zoom.svg" }]);
    let changed = surface_of(vec![
        matrix(None),
        file("tools/scroll_to.json", &new_tool),
        file("tools/zoom_in.json", &new_zoom),
    ]);
    let d = diff(&old, &changed);
    let found: Vec<(&str, &str, Bump)> = d
        .changes
        .iter()
        .map(|c| (c.rule, c.tool.as_deref().unwrap_or(""), c.bump))
        .collect();
    assert_eq!(
        found,
        vec![
            ("execution-changed", "scroll_to", Bump::Minor),
            ("title-changed", "scroll_to", Bump::Patch),
            ("icons-changed", "zoom_in", Bump::Patch),
        ],
        "{}",
        toolgate_schema::diff::to_human(&d)
    );
    assert_eq!(d.bump, Bump::Minor);
    let title = d
        .changes
        .iter()
        .find(|c| c.rule == "title-changed")
        .unwrap();
    assert_eq!(title.message, "the `title` of `scroll_to` changed");

    // Coming to require tasks shuts out every client that does not run them: major.
    let mut tasks = new_tool.clone();
    tasks["execution"] = json!({ "taskSupport": "required" });
    let required = surface_of(vec![
        matrix(None),
        file("tools/scroll_to.json", &tasks),
        file("tools/zoom_in.json", &new_zoom),
    ]);
    let d = diff(&changed, &required);
    assert_eq!(
        d.changes.len(),
        1,
        "{}",
        toolgate_schema::diff::to_human(&d)
    );
    assert_eq!(d.changes[0].rule, "tasks-required");
    assert_eq!(d.bump, Bump::Major);
    // A surface against itself: nothing.
    assert!(diff(&required, &required).changes.is_empty());
}

#[test]
fn resolving_refs_keeps_comments() {
    // An OpenAPI-generated server's shape: definitions commented for readers, used by `$ref`.
    let tool = json!({
        "name": "open_file",
        "group": "main",
        "description": "Opens a file.",
        "inputSchema": {
            "type": "object",
            "$comment": "Generated from the service's OpenAPI document.",
            "$defs": {
                "Path": { "type": "string", "$comment": "POSIX path; no ~ expansion." }
            },
            "properties": { "path": { "$ref": "#/$defs/Path" } },
            "required": ["path"]
        }
    });
    let catalog = load_sources(
        Path::new("navigator"),
        vec![matrix(Some("resolve")), file("tools/open_file.json", &tool)],
    )
    .unwrap();
    let surface = Surface::from_catalog(&catalog);
    let list = surface.tools_list_json(&surface.resolve("all"));
    let list: Value = serde_json::from_str(&to_compact(&list)).unwrap();
    let input = &list["tools"][0]["inputSchema"];
    assert_eq!(input["properties"]["path"]["type"], "string", "{input}");
    assert_eq!(
        input["properties"]["path"]["$comment"], "POSIX path; no ~ expansion.",
        "{input}"
    );
    assert_eq!(
        input["$comment"], "Generated from the service's OpenAPI document.",
        "{input}"
    );
}
