//! Completion, hover, quick fixes and definitions over the in-memory connection, against a
//! copy of `skills-fixtures/renames-declared` (a catalog declaring renames), with snapshots;
//! and the catalog's own diagnostics, configurations that do not load, positions in UTF-16.

mod support;

use std::path::{Path, PathBuf};

use insta::assert_snapshot;
use lsp_types::NumberOrString;
use serde_json::{Value, json};
use support::{Client, repo_root, scratch, uri};

/// A copy of the renames case in a scratch folder, and a client whose root it is.
fn case(name: &str) -> (PathBuf, Client) {
    let dir = scratch(name);
    copy(&repo_root().join("skills-fixtures/renames-declared"), &dir);
    let client = Client::start(&dir, json!({}));
    (dir, client)
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        if e.path().is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
        }
    }
}

/// A JSON answer as stable text: the scratch folder's URI replaced.
fn shown(dir: &Path, v: &Value) -> String {
    let base = uri(dir).as_str().to_string();
    serde_json::to_string_pretty(v)
        .expect("json")
        .replace(&base, "file://[case]")
}

/// The position of the first `marker` in `text` (the place just after it), in UTF-16.
fn after(text: &str, marker: &str) -> Value {
    let at = text.find(marker).expect("marker") + marker.len();
    let line = text[..at].matches('\n').count();
    let col: usize = text[..at]
        .rsplit('\n')
        .next()
        .unwrap_or_default()
        .encode_utf16()
        .count();
    json!({"line": line, "character": col})
}

const SKILL: &str = "---\nname: drafting\ndescription: Notes.\nprofiles: [\"reader\", ]\n---\n\nFirst `note_search(text=\"deploy\", scope=\"\")`.\nThen `note_search()`.\nOr `note_` something.\nAnd `note_serch(text=\"x\")`.\n";

fn labels(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|i| {
            format!(
                "{} ({})",
                i["label"].as_str().unwrap_or(""),
                i["detail"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[test]
fn completion_offers_tools_fields_values_and_profiles() {
    let (dir, mut c) = case("completion");
    let skill = dir.join("SKILL.md");
    c.open(&skill, SKILL);
    let u = uri(&skill);
    let mut complete = |marker: &str| {
        let v = c.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": u}, "position": after(SKILL, marker)}),
        );
        labels(&v)
    };
    let values = complete("scope=\"");
    let fields = complete("Then `note_search(");
    let not_written = complete("text=\"deploy\", ");
    let tools = complete("Or `note_");
    let profiles = complete("[\"reader\", ");
    assert_snapshot!(
        "completion",
        format!(
            "values: {values:?}\nfields: {fields:?}\nnot written: {not_written:?}\ntools: {tools:?}\nprofiles: {profiles:?}"
        )
    );
    let _ = dir;
}

#[test]
fn hover_describes_a_tool_and_a_field() {
    let (dir, mut c) = case("hover");
    let skill = dir.join("SKILL.md");
    c.open(&skill, SKILL);
    let u = uri(&skill);
    let tool = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": u}, "position": after(SKILL, "First `note_")}),
    );
    let field = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": u}, "position": after(SKILL, "deploy\", sco")}),
    );
    assert_snapshot!(
        "hover_tool",
        tool["contents"]["value"].as_str().unwrap_or("")
    );
    assert_snapshot!(
        "hover_field",
        field["contents"]["value"].as_str().unwrap_or("")
    );
}

#[test]
fn quick_fixes_carry_the_rename_and_the_did_you_mean_as_edits() {
    let (dir, mut c) = case("actions");
    let skill = dir.join("SKILL.md");
    let original = std::fs::read_to_string(&skill).expect("skill");
    let text = format!("{original}\nAlso `note_serch(text=\"x\")`.\n");
    let diags = c.open(&skill, &text);
    assert_eq!(diags.len(), 4, "{diags:?}");
    let u = uri(&skill);
    let lines = text.matches('\n').count();
    let v = c.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": u},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}},
            "context": {"diagnostics": []},
        }),
    );
    assert_snapshot!("code_actions", shown(&dir, &v));
}

#[test]
fn definition_goes_to_the_tool_file() {
    let (dir, mut c) = case("definition");
    let skill = dir.join("SKILL.md");
    c.open(&skill, SKILL);
    let v = c.request(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri(&skill)}, "position": after(SKILL, "First `note_s")}),
    );
    assert_snapshot!("definition", shown(&dir, &v));
}

#[test]
fn a_tool_file_being_edited_is_the_surface_open_agent_files_are_checked_against() {
    let (dir, mut c) = case("catalog-edit");
    let skill = dir.join("SKILL.md");
    let text =
        "---\nprofiles: [\"reader\"]\n---\n\nCall `note_search(text=\"a\", color=\"red\")`.\n";
    let before = c.open(&skill, text);
    let codes: Vec<_> = before.iter().map(|d| d.code.clone()).collect();
    assert_eq!(
        codes,
        vec![Some(NumberOrString::String("unknown-field".into()))],
        "{before:?}"
    );
    let tool = dir.join("catalog/tools/note_search.json");
    let json_text = std::fs::read_to_string(&tool).expect("tool");
    // The buffer is broken first: the catalog's error at its place, and the agent file
    // says it cannot be checked.
    let broken = json_text.replace("\"type\": \"integer\"", "\"type\": \"integr\"");
    let errors = c.open(&tool, &broken);
    assert_eq!(errors.len(), 1, "{errors:?}");
    let line = broken[..broken.find("integr").expect("there")]
        .matches('\n')
        .count() as u32;
    assert_eq!(errors[0].range.start.line, line, "{errors:?}");
    assert_eq!(errors[0].code, Some(NumberOrString::String("check".into())));
    let unchecked = c.diagnostics(&uri(&skill), Some(1));
    assert!(
        unchecked.len() == 1 && unchecked[0].message.starts_with("not checked: "),
        "{unchecked:?}"
    );
    // Then the field is added: the catalog is clean and the call is right.
    let fixed = json_text.replace(
        "\"limit\": { \"type\": \"integer\" }",
        "\"limit\": { \"type\": \"integer\" },\n      \"color\": { \"type\": \"string\" }",
    );
    assert_ne!(fixed, json_text);
    assert_eq!(c.change(&tool, 2, &fixed), vec![]);
    assert_eq!(c.diagnostics(&uri(&skill), Some(1)), vec![]);
    assert_eq!(c.shutdown(), toolgate_lsp::Ended::Clean);
}

#[test]
fn a_broken_configuration_is_a_diagnostic_and_a_message_not_a_crash() {
    let (dir, mut c) = case("broken-config");
    let toml = dir.join("toolgate.toml");
    let skill = dir.join("SKILL.md");
    let skill_diags = c.open(&skill, "Call `note_search(text=\"a\")`.\n");
    assert_eq!(skill_diags, vec![]);
    let diags = c.open(
        &toml,
        "catalog = \"catalog\"\nseverity = { no-such-rule = \"off\" }\n",
    );
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(diags[0].message.contains("no-such-rule"), "{diags:?}");
    let skill_diags = c.diagnostics(&uri(&skill), Some(1));
    assert!(
        skill_diags[0].message.starts_with("not checked: "),
        "{skill_diags:?}"
    );
    let shown_messages = c
        .inbox
        .iter()
        .filter(|n| n.method == "window/showMessage")
        .count();
    assert_eq!(shown_messages, 1);
}

#[test]
fn columns_are_utf16_by_default() {
    let (dir, mut c) = case("utf16");
    let skill = dir.join("SKILL.md");
    let diags = c.open(
        &skill,
        "---\nprofiles: [\"reader\"]\n---\n\n😀 é `find_notes(text=\"a\")`.\n",
    );
    assert_eq!(diags.len(), 1, "{diags:?}");
    // 😀 is two UTF-16 units, é one: the name starts at unit 6.
    assert_eq!(diags[0].range.start.character, 6, "{diags:?}");
    assert_eq!(diags[0].range.start.line, 4);
}

#[test]
fn a_file_without_configuration_says_it_is_not_checked() {
    let dir = std::env::temp_dir().join(format!("toolgate-lsp-noconfig-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let mut c = Client::start(&dir, json!({}));
    let diags = c.open(&dir.join("SKILL.md"), "Call `note_search(text=\"a\")`.\n");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert!(diags[0].message.contains("toolgate.toml"), "{diags:?}");
    assert_eq!(
        diags[0].severity,
        Some(lsp_types::DiagnosticSeverity::INFORMATION)
    );
}

#[test]
fn exit_without_shutdown_is_not_clean() {
    let (_dir, c) = case("abrupt");
    assert_eq!(c.exit(), toolgate_lsp::Ended::Abrupt);
}
