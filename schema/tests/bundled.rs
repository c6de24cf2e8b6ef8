//! The bundled catalogs load, and what they serve matches the real surfaces.

use std::path::{Path, PathBuf};

use toolgate_schema::json::Value;
use toolgate_schema::{Surface, load_dir};

fn catalog_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn surface(name: &str) -> Surface {
    match load_dir(&catalog_dir(name)) {
        Ok(c) => Surface::from_catalog(&c),
        Err(e) => panic!("bundled catalog {name} does not load:\n{e}"),
    }
}

fn names(surface: &Surface, profile: &str) -> Vec<String> {
    let session = surface.resolve(profile);
    surface
        .served(&session)
        .iter()
        .map(|s| s.tool.name.clone())
        .collect()
}

#[test]
fn tatara_counts_are_derived_from_the_matrix() {
    let s = surface("tatara");
    assert_eq!(s.tools.len(), 21);
    let expected = [
        ("brainstorm", 17),
        ("incident", 18),
        ("implement", 18),
        ("review", 16),
        ("refine", 13),
        ("documentation", 18),
        ("upgrade", 16),
    ];
    for (profile, count) in expected {
        assert_eq!(names(&s, profile).len(), count, "profile {profile}");
        assert!(s.resolve(profile).warning.is_none());
    }
    for fail in ["", "clarify", "  ", "implement,review"] {
        let session = s.resolve(fail);
        assert!(session.fail_closed, "{fail:?}");
        assert!(session.warning.is_some());
        let served = names(&s, fail);
        assert_eq!(
            served,
            [
                "project_get",
                "repo_list",
                "report_internal_issue",
                "task_context",
                "task_get",
                "task_note"
            ],
            "{fail:?}"
        );
        assert!(!served.contains(&"submit_outcome".to_string()));
    }
}

#[test]
fn maetra_counts_and_combinations() {
    let s = surface("maetra");
    assert_eq!(s.tools.len(), 18);
    for (profile, count) in [
        ("task_guard", 8),
        ("secure", 5),
        ("govern", 7),
        ("task_guard,secure,govern", 18),
        ("govern, task_guard", 14),
        ("", 1),
        ("unknown", 1),
        ("secure,unknown", 1),
    ] {
        assert_eq!(names(&s, profile).len(), count, "capabilities {profile:?}");
    }
    let session = s.resolve("secure,bogus");
    assert!(session.fail_closed);
    let warning = session.warning.unwrap();
    assert!(warning.contains("\"bogus\""), "{warning}");
    assert!(warning.contains("MAETRA_CAPABILITIES"), "{warning}");
}

fn input_schema(s: &Surface, tool: &str, profile: &str) -> Value {
    s.entry_for(tool, profile)
        .unwrap_or_else(|| panic!("{profile} does not see {tool}"))
        .input_schema
        .to_json()
}

fn enum_of(schema: &Value, field: &str) -> Vec<String> {
    let props = schema.as_object().unwrap().get("properties").unwrap();
    let values = props
        .as_object()
        .unwrap()
        .get(field)
        .unwrap()
        .as_object()
        .unwrap();
    values
        .get("enum")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn refine_mr_write_is_restricted_in_what_it_is_served() {
    let s = surface("tatara");
    assert_eq!(
        enum_of(&input_schema(&s, "mr_write", "refine"), "action"),
        ["comment"]
    );
    assert_eq!(
        enum_of(&input_schema(&s, "mr_write", "implement"), "action"),
        ["open", "comment", "reply"]
    );
    // The served tools/list text says the same.
    let list = toolgate_schema::json::to_compact(&s.tools_list_json(&s.resolve("refine")));
    assert!(
        list.contains(r#""action":{"type":"string","enum":["comment"]}"#),
        "{list}"
    );
}

#[test]
fn submit_outcome_variants() {
    let s = surface("tatara");
    let implement = input_schema(&s, "submit_outcome", "implement");
    let review = input_schema(&s, "submit_outcome", "review");
    assert_ne!(implement, review);
    assert_eq!(
        input_schema(&s, "submit_outcome", "upgrade"),
        input_schema(&s, "submit_outcome", "documentation")
    );
    let tool = s.tool("submit_outcome").unwrap();
    assert_eq!(
        tool.entries.len(),
        6,
        "six distinct schemas for seven profiles"
    );
    assert_eq!(
        enum_of(&input_schema(&s, "submit_outcome", "brainstorm"), "action"),
        ["propose", "skip", "exhausted"]
    );
    assert!(
        enum_of(&input_schema(&s, "submit_outcome", "incident"), "action")
            .contains(&"comment_issue".to_string())
    );
}

#[test]
fn maetra_token_is_added_to_every_capability_tool() {
    let s = surface("maetra");
    let all = s.resolve("task_guard,secure,govern");
    for served in s.served(&all) {
        let obj = served.entry.input_schema.as_object().unwrap();
        if served.tool.name == "get_mcp_access" {
            assert!(obj.property("mcp_access_token").is_none());
        } else {
            assert!(obj.is_required("mcp_access_token"), "{}", served.tool.name);
            assert_eq!(obj.properties[0].0, "mcp_access_token");
        }
    }
    // update_rule takes create_rule's fields by reference: all optional, no defaults.
    let update = s
        .entry_for("update_rule", "secure")
        .unwrap()
        .input_schema
        .clone();
    let create = s
        .entry_for("create_rule", "secure")
        .unwrap()
        .input_schema
        .clone();
    let (u, c) = (update.as_object().unwrap(), create.as_object().unwrap());
    assert_eq!(u.required, ["mcp_access_token", "id"]);
    for (name, schema) in &c.properties {
        let inherited = u
            .property(name)
            .unwrap_or_else(|| panic!("update_rule lacks {name}"));
        assert_eq!(inherited.default, None, "{name}");
        assert_eq!(inherited.kind, schema.kind, "{name}");
    }
    assert!(c.property("status").unwrap().default.is_some());
    // check_action's conditional requirement is served.
    let check = s
        .entry_for("check_action", "secure")
        .unwrap()
        .input_schema
        .to_json();
    let text = toolgate_schema::json::to_compact(&check);
    assert!(text.contains(r#""if":{"properties":{"scan_type":{"const":"tool_call"}},"required":["scan_type"]},"then":{"required":["tool_name"]}"#), "{text}");
}

#[test]
fn served_schemas_are_self_contained_and_client_safe() {
    for name in ["tatara", "maetra"] {
        let s = surface(name);
        for tool in &s.tools {
            for entry in &tool.entries {
                let text = toolgate_schema::json::to_compact(&entry.input_schema.to_json());
                for banned in ["$ref", "$defs", "allOf", "anyOf", "oneOf"] {
                    assert!(!text.contains(banned), "{name}/{}: {banned}", tool.name);
                }
                assert!(text.starts_with(r#"{"type":"object""#));
            }
        }
    }
}

#[test]
fn manifest_round_trips_through_the_reader() {
    for name in ["tatara", "maetra"] {
        let s = surface(name);
        let text = toolgate_schema::json::to_pretty(&s.manifest_json());
        let back = Surface::from_manifest(Path::new("m.json"), text.as_bytes()).unwrap();
        assert_eq!(back, s, "{name}");
    }
}

#[test]
fn tatara_format_manifest_equals_the_real_one() {
    let real = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/anchors/tatara/tool-manifest.json");
    let Ok(expected) = std::fs::read_to_string(&real) else {
        eprintln!(
            "skipped: {} is not here (the shared anchors are not checked out)",
            real.display()
        );
        return;
    };
    let s = surface("tatara");
    let ours = toolgate_schema::json::to_pretty(&s.tatara_manifest_json());
    assert_eq!(ours, expected);
    let back = Surface::from_manifest(Path::new("t.json"), ours.as_bytes()).unwrap();
    assert_eq!(back.tools.len(), 21);
    assert_eq!(back.origin, toolgate_schema::Origin::NamesAndEnums);
}

#[test]
fn committed_file_schemas_are_current() {
    for (name, text) in toolgate_schema::files::file_schemas() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
        if std::env::var_os("TOOLGATE_BLESS").is_some() {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "schema/{name} is out of date; refresh it with: TOOLGATE_BLESS=1 cargo test -p toolgate-schema --test bundled"
        );
    }
}
