//! `diff`: the real tatara history, renames, and the three kinds of input.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolgate_schema::diff::{Bump, Change, Diff, diff};
use toolgate_schema::json::to_pretty;
use toolgate_schema::load::read_dir_sources;
use toolgate_schema::{SourceFile, Surface, load_sources};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The files of a bundled catalog, to be edited in memory.
fn files(name: &str) -> Vec<SourceFile> {
    let (sources, errors) = read_dir_sources(&root().join(name), Path::new(name));
    assert!(errors.is_empty(), "{errors:?}");
    sources
}

fn surface(files: Vec<SourceFile>) -> Surface {
    match load_sources(Path::new("copy"), files) {
        Ok(c) => Surface::from_catalog(&c),
        Err(e) => panic!("catalog does not load:\n{e}"),
    }
}

fn edit(files: &mut [SourceFile], rel: &str, f: impl FnOnce(&mut Value)) {
    let file = files
        .iter_mut()
        .find(|s| s.rel == rel)
        .unwrap_or_else(|| panic!("no file {rel}"));
    let mut v: Value = serde_json::from_slice(&file.bytes).unwrap();
    f(&mut v);
    file.bytes = serde_json::to_vec_pretty(&v).unwrap();
}

fn add_file(files: &mut Vec<SourceFile>, rel: &str, v: &Value) {
    files.push(SourceFile {
        rel: rel.to_string(),
        bytes: serde_json::to_vec_pretty(v).unwrap(),
    });
}

fn remove_value(list: &mut Value, value: &str) {
    list.as_array_mut().unwrap().retain(|v| v != value);
}

fn find<'a>(d: &'a Diff, rule: &str, tool: &str, field: Option<&str>) -> &'a Change {
    d.changes
        .iter()
        .find(|c| c.rule == rule && c.tool.as_deref() == Some(tool) && c.field.as_deref() == field)
        .unwrap_or_else(|| {
            panic!(
                "no {rule} for {tool} {field:?} in:\n{}",
                toolgate_schema::diff::to_human(d)
            )
        })
}

#[test]
fn a_surface_against_itself_is_empty_whatever_the_input_kind() {
    for name in ["tatara", "maetra"] {
        let folder = surface(files(name));
        let d = diff(&folder, &folder);
        assert_eq!(d.bump, Bump::None);
        assert!(d.changes.is_empty());
        let json = toolgate_schema::json::to_compact(&toolgate_schema::diff::to_json(&d));
        assert_eq!(
            json,
            r#"{"bump":"none","risk":"none","changes":[],"skipped":[]}"#
        );
        // The same surface read back from its manifest.
        let manifest = to_pretty(&folder.manifest_json());
        let read = Surface::from_manifest(Path::new("m.json"), manifest.as_bytes()).unwrap();
        assert!(diff(&folder, &read).changes.is_empty());
        assert!(diff(&read, &folder).changes.is_empty());
    }
}

/// The brainstorm and incident outcome schemas as the seed's page shows them, before the code
/// gained `exhausted`, `comment_issue`, the `comment` object and `issue.parent` (rebuilt here
/// from today's files by removing what was added).
fn seed_era_tatara() -> Vec<SourceFile> {
    let mut f = files("tatara");
    edit(&mut f, "tools/submit_outcome.brainstorm.json", |v| {
        let props = &mut v["inputSchema"]["properties"];
        remove_value(&mut props["action"]["enum"], "exhausted");
        props["reason"]["description"] = json!("Needed when action=skip.");
    });
    edit(&mut f, "tools/submit_outcome.incident.json", |v| {
        let props = &mut v["inputSchema"]["properties"];
        remove_value(&mut props["action"]["enum"], "comment_issue");
        props.as_object_mut().unwrap().remove("comment");
        props["issue"]["properties"]
            .as_object_mut()
            .unwrap()
            .remove("parent");
    });
    f
}

#[test]
fn the_seed_era_outcome_schemas_are_a_minor_change() {
    let old = surface(seed_era_tatara());
    let new = surface(files("tatara"));
    let d = diff(&old, &new);
    assert_eq!(
        d.bump,
        Bump::Minor,
        "{}",
        toolgate_schema::diff::to_human(&d)
    );
    let c = find(&d, "enum-value-added", "submit_outcome", Some("action"));
    assert!(
        d.changes
            .iter()
            .any(|c| c.message.contains("\"exhausted\"") && c.profiles == ["brainstorm"])
    );
    assert!(
        d.changes
            .iter()
            .any(|c| c.message.contains("\"comment_issue\"") && c.profiles == ["incident"])
    );
    assert_eq!(c.bump, Bump::Minor);
    assert_eq!(
        find(&d, "field-added", "submit_outcome", Some("comment")).profiles,
        ["incident"]
    );
    assert_eq!(
        find(&d, "field-added", "submit_outcome", Some("issue.parent")).profiles,
        ["incident"]
    );
    let text = find(&d, "description-changed", "submit_outcome", Some("reason"));
    assert_eq!(
        (text.bump, text.profiles.as_slice()),
        (Bump::Patch, &["brainstorm".to_string()][..])
    );
    // Nothing else: every change is one of those.
    assert_eq!(
        d.changes.len(),
        5,
        "{}",
        toolgate_schema::diff::to_human(&d)
    );
}

/// tatara just before the `clarify` profile was deleted: the profile, its grants, and its
/// outcome variant with the `decision` field.
fn with_clarify(outcome: Value) -> Vec<SourceFile> {
    let mut f = files("tatara");
    edit(&mut f, "profiles.json", |v| {
        v["profiles"]["clarify"] = json!("Talks with the reporter until the issue is clear.");
        for tool in [
            "scm_read",
            "memory_query",
            "memory_describe",
            "submit_outcome",
        ] {
            let row = &mut v["grants"][tool];
            if row != &json!(["*"]) {
                row.as_array_mut().unwrap().push(json!("clarify"));
            }
        }
        v["grants"]["issue_write"]
            .as_array_mut()
            .unwrap()
            .push(json!("clarify"));
        v["variants"]["submit_outcome"]["clarify"] = json!("clarify");
    });
    add_file(
        &mut f,
        "tools/submit_outcome.clarify.json",
        &json!({
            "name": "submit_outcome", "variant": "clarify", "group": "outcome",
            "description": "End a clarify turn.",
            "inputSchema": outcome
        }),
    );
    f
}

fn clarify_outcome_written_here() -> Value {
    json!({
        "type": "object",
        "properties": {
            "task": {"type": "string"},
            "decision": {"type": "string", "enum": ["implement", "close", "discuss"]},
            "reason": {"type": "string"}
        },
        "required": ["decision", "reason"],
        "additionalProperties": false
    })
}

fn check_clarify_deletion(d: &Diff) {
    assert_eq!(d.bump, Bump::Major);
    let removed = d
        .changes
        .iter()
        .find(|c| c.rule == "profile-removed")
        .expect("profile-removed");
    assert_eq!(removed.profiles, ["clarify"]);
    let decision = find(d, "field-removed", "submit_outcome", Some("decision"));
    assert_eq!(decision.profiles, ["clarify"]);
    // No other profile lost anything.
    let others: Vec<&Change> = d
        .changes
        .iter()
        .filter(|c| c.profiles.iter().any(|p| p != "clarify"))
        .collect();
    assert!(others.is_empty(), "{others:?}");
}

#[test]
fn deleting_the_clarify_profile_is_major() {
    let d = diff(
        &surface(with_clarify(clarify_outcome_written_here())),
        &surface(files("tatara")),
    );
    check_clarify_deletion(&d);
}

fn shared_schema(name: &str) -> Option<Value> {
    let path = root()
        .join("../../shared/anchors/tatara/schemas/history")
        .join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Some(serde_json::from_slice(&bytes).unwrap()),
        Err(_) => {
            eprintln!(
                "skipped: {} is not here (the shared anchors are not checked out)",
                path.display()
            );
            None
        }
    }
}

#[test]
fn the_real_history_schemas() {
    // The deleted clarify profile, with its real schema.
    if let Some(clarify) = shared_schema("submit_outcome.clarify.deleted.2db6d43.schema.json") {
        check_clarify_deletion(&diff(
            &surface(with_clarify(clarify)),
            &surface(files("tatara")),
        ));
    }
    // implement before it gained approved / discuss / rejected: minor.
    if let Some(pre) = shared_schema("submit_outcome.implement.pre-521.2db6d43.schema.json") {
        let mut f = files("tatara");
        edit(&mut f, "tools/submit_outcome.implement.json", |v| {
            v["inputSchema"] = pre
        });
        let d = diff(&surface(f), &surface(files("tatara")));
        assert_eq!(
            d.bump,
            Bump::Minor,
            "{}",
            toolgate_schema::diff::to_human(&d)
        );
        for value in ["approved", "discuss", "rejected"] {
            assert!(
                d.changes.iter().any(|c| c.rule == "enum-value-added"
                    && c.message.contains(&format!("\"{value}\""))
                    && c.profiles == ["implement"]),
                "{value}"
            );
        }
        assert_eq!(
            find(&d, "field-added", "submit_outcome", Some("plan_note_id")).profiles,
            ["implement"]
        );
    }
    // The seed-era brainstorm and incident schemas, as the anchors keep them.
    if let (Some(b), Some(i)) = (
        shared_schema("submit_outcome.brainstorm.pre-exhausted.2db6d43.schema.json"),
        shared_schema("submit_outcome.incident.pre-comment_issue.2db6d43.schema.json"),
    ) {
        let mut f = files("tatara");
        edit(&mut f, "tools/submit_outcome.brainstorm.json", |v| {
            v["inputSchema"] = b
        });
        edit(&mut f, "tools/submit_outcome.incident.json", |v| {
            v["inputSchema"] = i
        });
        let d = diff(&surface(f), &surface(files("tatara")));
        assert_eq!(
            d.bump,
            Bump::Minor,
            "{}",
            toolgate_schema::diff::to_human(&d)
        );
        find(&d, "field-added", "submit_outcome", Some("comment"));
        find(&d, "field-added", "submit_outcome", Some("issue.parent"));
        assert!(d.changes.iter().any(|c| c.rule == "description-changed"));
        assert!(d.changes.iter().all(|c| c.bump <= Bump::Minor));
    }
}

/// A copy of tatara where mr_write's `comment` action is renamed `note`, declared.
pub fn tatara_with_renamed_value() -> Vec<SourceFile> {
    let mut f = files("tatara");
    edit(&mut f, "tools/mr_write.json", |v| {
        v["inputSchema"]["properties"]["action"]["enum"] = json!(["open", "note", "reply"]);
        v["formerly"] = json!({"values": {"action": {"note": ["comment"]}}});
    });
    edit(&mut f, "profiles.json", |v| {
        v["restrictions"]["mr_write"]["refine"]["action"] = json!(["note"]);
    });
    f
}

#[test]
fn a_declared_rename_is_one_major_change() {
    let d = diff(
        &surface(files("tatara")),
        &surface(tatara_with_renamed_value()),
    );
    assert_eq!(d.bump, Bump::Major);
    let renamed: Vec<&Change> = d
        .changes
        .iter()
        .filter(|c| c.tool.as_deref() == Some("mr_write"))
        .collect();
    assert!(
        renamed.iter().all(|c| c.rule == "enum-value-renamed"),
        "{}",
        toolgate_schema::diff::to_human(&d)
    );
    assert_eq!(renamed.len(), 1, "one change, grouped over profiles");
    assert_eq!(
        renamed[0].message,
        "`mr_write.action` value \"comment\" was renamed to \"note\""
    );
    assert_eq!(renamed[0].profiles.len(), 5);
}

#[test]
fn grants_restrictions_and_tools() {
    let mut f = files("tatara");
    edit(&mut f, "profiles.json", |v| {
        remove_value(&mut v["grants"]["mr_write"], "review");
        v["grants"]["task_list"]
            .as_array_mut()
            .unwrap()
            .push(json!("review"));
        v["restrictions"]["mr_write"]["refine"]["action"] = json!(["comment", "reply"]);
    });
    f.retain(|s| s.rel != "tools/code_explain.json");
    let d = diff(&surface(files("tatara")), &surface(f));
    assert_eq!(
        find(&d, "tool-removed-from-profile", "mr_write", None).profiles,
        ["review"]
    );
    assert_eq!(
        find(&d, "tool-granted-to-profile", "task_list", None).profiles,
        ["review"]
    );
    assert_eq!(
        find(&d, "restriction-loosened", "mr_write", Some("action")).profiles,
        ["refine"]
    );
    find(&d, "tool-removed", "code_explain", None);
    assert_eq!(d.bump, Bump::Major);
}

#[test]
fn a_tatara_format_side_says_what_it_could_not_check() {
    let full = surface(files("tatara"));
    let tatara_text = to_pretty(&full.tatara_manifest_json());
    let names_only =
        Surface::from_manifest(Path::new("tool-manifest.json"), tatara_text.as_bytes()).unwrap();
    let d = diff(&names_only, &full);
    assert_eq!(
        d.bump,
        Bump::None,
        "{}",
        toolgate_schema::diff::to_human(&d)
    );
    assert_eq!(d.skipped.len(), 1);
    assert!(d.skipped[0].starts_with("the old side is a tatara-format manifest"));

    // A vanished enum field is major: the manifest cannot tell removed from un-enumed.
    let mut f = files("tatara");
    edit(&mut f, "tools/task_context.json", |v| {
        v["inputSchema"]["properties"]
            .as_object_mut()
            .unwrap()
            .remove("notes");
    });
    let d = diff(&names_only, &surface(f));
    assert_eq!(d.bump, Bump::Major);
    find(&d, "field-removed", "task_context", Some("notes"));
}

/// A catalog of one tool whose input schema is `input`, served as authored.
fn one_tool(input: Value) -> Surface {
    let mut files = Vec::new();
    add_file(
        &mut files,
        "profiles.json",
        &json!({"catalog": "copy", "selector": {"env": "P"}, "profiles": {"all": "All."},
                "groups": {"g": {}}, "grants": {"g": ["all"]}}),
    );
    add_file(
        &mut files,
        "tools/t.json",
        &json!({"name": "t", "group": "g", "description": "T.", "inputSchema": input}),
    );
    surface(files)
}

#[test]
fn refs_are_resolved_on_both_sides_and_untyped_keywords_compared() {
    let inline = one_tool(json!({"type": "object", "properties": {
        "x": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}));
    let moved = one_tool(
        json!({"type": "object", "$defs": {"n": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
        "properties": {"x": {"$ref": "#/$defs/n"}}}),
    );
    let d = diff(&inline, &moved);
    assert!(
        d.changes.is_empty(),
        "{}",
        toolgate_schema::diff::to_human(&d)
    );
    let changed = one_tool(json!({"type": "object", "properties": {
        "x": {"anyOf": [{"type": "string"}, {"type": "integer"}]}}}));
    let d = diff(&inline, &changed);
    let c = find(&d, "keyword-changed", "t", Some("x"));
    assert_eq!(c.bump, Bump::Major);
    let formatted = one_tool(json!({"type": "object", "properties": {
        "x": {"anyOf": [{"type": "string"}, {"type": "null"}], "format": "uri"}}}));
    let d = diff(&inline, &formatted);
    assert_eq!(
        find(&d, "annotation-changed", "t", Some("x")).bump,
        Bump::Patch
    );
}
