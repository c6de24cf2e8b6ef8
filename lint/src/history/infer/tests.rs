use serde_json::json;

use super::*;

fn tool(name: &str, desc: &str, fields: &[(&str, &str)]) -> Value {
    let props: serde_json::Map<String, Value> = fields
        .iter()
        .map(|(f, t)| (f.to_string(), json!({"type": t})))
        .collect();
    json!({"name": name, "description": desc, "inputSchema": {"type": "object", "properties": props}})
}

fn v(version: &str, tools: Vec<Value>) -> Version {
    Version {
        version: version.into(),
        date: None,
        tools: Some(tools),
    }
}

#[test]
fn a_rename_with_agreeing_evidence_is_inferred() {
    let steps = infer(&[
        v(
            "1",
            vec![tool(
                "search_nodes",
                "Search the knowledge graph for nodes",
                &[("query", "string")],
            )],
        ),
        v(
            "2",
            vec![tool(
                "find_entities",
                "Search the knowledge graph for nodes",
                &[("query", "string")],
            )],
        ),
    ]);
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[0].added, ["search_nodes"]);
    assert_eq!(
        steps[1].renamed,
        [ToolRename {
            old: "search_nodes".into(),
            new: "find_entities".into(),
            set: None
        }]
    );
    assert!(steps[1].added.is_empty() && steps[1].removed.is_empty());
}

#[test]
fn two_equally_good_successors_make_a_removal() {
    let steps = infer(&[
        v(
            "1",
            vec![tool(
                "read_file",
                "Read a file from disk",
                &[("path", "string")],
            )],
        ),
        v(
            "2",
            vec![
                tool(
                    "read_text_file",
                    "Read a file from disk",
                    &[("path", "string")],
                ),
                tool(
                    "read_file_text",
                    "Read a file from disk",
                    &[("path", "string")],
                ),
            ],
        ),
    ]);
    assert!(steps[1].renamed.is_empty(), "{:?}", steps[1]);
    assert_eq!(steps[1].removed, ["read_file"]);
    assert_eq!(steps[1].added.len(), 2);
}

#[test]
fn unrelated_tools_are_not_paired() {
    let steps = infer(&[
        v(
            "1",
            vec![tool(
                "get_weather",
                "Current weather for a city",
                &[("city", "string")],
            )],
        ),
        v(
            "2",
            vec![tool(
                "send_mail",
                "Send an email message",
                &[("to", "string"), ("body", "string")],
            )],
        ),
    ]);
    assert!(steps[1].renamed.is_empty());
    assert_eq!(steps[1].removed, ["get_weather"]);
}

#[test]
fn names_that_differ_in_separators_are_a_rename() {
    let steps = infer(&[
        v("1", vec![tool("fetch_page", "x", &[("url", "string")])]),
        v("2", vec![tool("fetch-page", "y", &[("url", "string")])]),
    ]);
    assert_eq!(steps[1].renamed[0].new, "fetch-page");
}

#[test]
fn a_merge_into_an_enum_argument_sets_it() {
    let steps = infer(&[
        v(
            "1",
            vec![
                tool("note_list", "List notes", &[]),
                tool("note_new", "Create a note", &[("title", "string")]),
                tool("note_close", "Close a note", &[("id", "string")]),
            ],
        ),
        v(
            "2",
            vec![
                json!({"name": "note", "description": "Notes", "inputSchema": {"type": "object", "properties": {
                "action": {"type": "string", "enum": ["list", "new", "close"]},
                "title": {"type": "string"}, "id": {"type": "string"}}}}),
            ],
        ),
    ]);
    let r = &steps[1].renamed;
    assert_eq!(r.len(), 3, "{r:?}");
    assert!(r.iter().all(|r| r.new == "note"));
    let list = r.iter().find(|r| r.old == "note_list").unwrap();
    assert_eq!(list.set, Some(("action".into(), "list".into())));
    assert!(steps[1].removed.is_empty() && steps[1].added.is_empty());
}

#[test]
fn one_word_match_into_an_enum_is_not_enough() {
    let steps = infer(&[
        v("1", vec![tool("note_list", "List notes", &[])]),
        v(
            "2",
            vec![
                json!({"name": "note", "inputSchema": {"type": "object", "properties": {
                "mode": {"type": "string", "enum": ["list", "tree"]}}}}),
            ],
        ),
    ]);
    assert!(steps[1].renamed.is_empty(), "{:?}", steps[1]);
}

#[test]
fn a_field_renamed_in_a_tool_is_paired_by_its_type_and_words() {
    let steps = infer(&[
        v(
            "1",
            vec![tool(
                "list",
                "List",
                &[("perPage", "number"), ("cursor", "string")],
            )],
        ),
        v(
            "2",
            vec![tool(
                "list",
                "List",
                &[
                    ("per_page", "number"),
                    ("page_token", "string"),
                    ("q", "string"),
                ],
            )],
        ),
    ]);
    let f = &steps[1].fields[0];
    assert_eq!(f.tool, "list");
    assert_eq!(f.renamed, [("perPage".to_string(), "per_page".to_string())]);
    assert_eq!(f.removed, ["cursor"]);
    assert_eq!(f.added, ["page_token", "q"]);
}

#[test]
fn a_field_of_another_type_is_no_successor() {
    let steps = infer(&[
        v("1", vec![tool("t", "T", &[("limit", "number")])]),
        v("2", vec![tool("t", "T", &[("limits", "string")])]),
    ]);
    assert!(steps[1].fields[0].renamed.is_empty());
}

#[test]
fn a_version_not_captured_is_stepped_over() {
    let steps = infer(&[
        v("1", vec![tool("a", "A", &[])]),
        Version {
            version: "2".into(),
            date: None,
            tools: None,
        },
        v("3", vec![tool("a", "A", &[]), tool("b", "B", &[])]),
    ]);
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[1].version, "3");
    assert_eq!(steps[1].added, ["b"]);
}

/// github-mcp-server's own record of its consolidation (`deprecated_aliases.json`: old tool
/// -> new) against its tool snapshots: a version before it is today's tools with each merged
/// tool back in its old names (their schemas are not in the data: only their names), and
/// today's. Every alias whose old name is a value of the new tool's enum must be inferred
/// with that value; no old name may get a successor other than the one the project names.
#[test]
fn github_mcp_servers_consolidation_is_inferred() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/anchors/wild/github-mcp-server");
    let (Ok(tools), Ok(aliases)) = (
        std::fs::read_to_string(dir.join("tools.json")),
        std::fs::read_to_string(dir.join("deprecated_aliases.json")),
    ) else {
        eprintln!("skipped: {} is not there", dir.display());
        return;
    };
    let tools: Value = serde_json::from_str(&tools).unwrap();
    let tools = tools["tools"].as_array().unwrap().clone();
    let aliases: BTreeMap<String, String> = serde_json::from_str(&aliases).unwrap();
    let targets: BTreeSet<&str> = aliases.values().map(String::as_str).collect();
    let mut before: Vec<Value> = tools
        .iter()
        .filter(|t| !targets.contains(t["name"].as_str().unwrap()))
        .cloned()
        .collect();
    before.extend(
        aliases
            .keys()
            .map(|old| json!({"name": old, "inputSchema": {"type": "object"}})),
    );
    let steps = infer(&[v("before", before), v("after", tools.clone())]);
    let step = &steps[1];
    let enum_has = |tool: &str, value: &str| {
        tools.iter().any(|t| {
            t["name"] == tool
                && t["inputSchema"]["properties"].as_object().is_some_and(|p| {
                    p.values().any(|f| {
                        f["enum"]
                            .as_array()
                            .is_some_and(|e| e.iter().any(|x| x == value))
                    })
                })
        })
    };
    let mut expected = 0;
    for (old, new) in &aliases {
        let got = step.renamed.iter().find(|r| r.old == *old);
        if enum_has(new, old) {
            expected += 1;
            let got = got.unwrap_or_else(|| panic!("{old} -> {new} not inferred: {step:?}"));
            assert_eq!(got.new, *new);
            assert_eq!(got.set.as_ref().map(|s| s.1.as_str()), Some(old.as_str()));
        } else if let Some(g) = got {
            assert_eq!(g.new, *new, "{old}: a wrong successor");
        }
    }
    assert!(expected >= 20, "only {expected} aliases are enum values");
    eprintln!(
        "github-mcp-server: {} of {} aliases inferred ({expected} are enum values)",
        step.renamed
            .iter()
            .filter(|r| aliases.get(&r.old) == Some(&r.new))
            .count(),
        aliases.len()
    );
}
