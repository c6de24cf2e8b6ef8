//! The ten wild surfaces of `../shared/anchors/wild/` as catalogs: for each, a catalog
//! folder made of its tools (one tool file per tool, as the server sent it plus toolgate's
//! `group`, every tool granted to one profile `all`) passes `toolgate check`, and
//! `toolgate tools-list --profile all` serves every tool JSON-equal to the source on every
//! MCP Tool field, and so does `toolgate serve` on the wire (its `tools/list` over stdio; a
//! surface with a tool that requires tasks, which serve does not implement, must be refused
//! instead). Skipped, with a message, when `../shared` is absent.

mod common;
mod mcp_support;

use std::collections::BTreeSet;
use std::path::Path;

use common::{run, scratch, shared, stderr, stdout};
use serde_json::{Value, json};

/// The MCP Tool fields compared.
const FIELDS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "_meta",
    "execution",
];

/// Writes a catalog folder named `name` under `root` serving `tools` to profile `all`.
fn write_catalog(root: &Path, name: &str, tools: &[Value]) -> std::path::PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("tools")).unwrap();
    let matrix = json!({
        "catalog": name,
        "selector": {"env": "WILD_PROFILE"},
        "profiles": {"all": "Every tool of the server."},
        "groups": {"all": {"description": "Every tool."}},
        "grants": {"all": ["all"]}
    });
    std::fs::write(
        dir.join("profiles.json"),
        serde_json::to_string_pretty(&matrix).unwrap(),
    )
    .unwrap();
    for (i, t) in tools.iter().enumerate() {
        let mut t = t.clone();
        t.as_object_mut()
            .unwrap()
            .insert("group".to_string(), json!("all"));
        std::fs::write(
            dir.join("tools").join(format!("{i:03}.json")),
            serde_json::to_string_pretty(&t).unwrap(),
        )
        .unwrap();
    }
    dir
}

/// For one captured surface: (tools accepted and served equal, tools in the file, report).
fn measure(file: &Path, scratch_root: &Path) -> (Vec<String>, usize, String) {
    let source: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    let tools = source["tools"].as_array().cloned().unwrap_or_default();
    let name = file
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace(".tools.json", "")
        .replace('.', "-");
    let dir = write_catalog(scratch_root, &name, &tools);
    let d = dir.to_str().unwrap();
    let check = run(&["check", "--catalog", d]);
    if check.status.code() != Some(0) {
        return (Vec::new(), tools.len(), stderr(&check));
    }
    let listed = run(&["tools-list", "--catalog", d, "--profile", "all"]);
    let served: Value = serde_json::from_str(&stdout(&listed)).unwrap_or(Value::Null);
    let served = served["tools"].as_array().cloned().unwrap_or_default();
    let wire = over_stdio(scratch_root, &name, d, &tools);
    let mut ok = Vec::new();
    let mut report = String::new();
    for t in &tools {
        let tname = t["name"].as_str().unwrap_or_default();
        let mut differs = Vec::new();
        let ways = [("tools-list", Some(&served)), ("serve", wire.as_ref())];
        for (way, served) in ways
            .into_iter()
            .filter(|(way, _)| *way != "serve" || !requires_tasks(t))
        {
            let Some(served) = served else { continue };
            let Some(s) = served.iter().find(|s| s["name"] == t["name"]) else {
                differs.push(format!("not served by {way}"));
                continue;
            };
            let fields = FIELDS.iter().filter(|f| t.get(**f) != s.get(**f));
            differs.extend(fields.map(|f| format!("{way} differs on {f}")));
        }
        if differs.is_empty() {
            ok.push(tname.to_string());
        } else {
            report.push_str(&format!("{tname}: {}\n", differs.join(", ")));
        }
    }
    (ok, tools.len(), report)
}

fn requires_tasks(tool: &Value) -> bool {
    tool.pointer("/execution/taskSupport") == Some(&json!("required"))
}

/// The tools `toolgate serve` sends over stdio for catalog `dir`. A surface with a tool that
/// requires tasks (which serve does not implement) must be refused (exit 2, naming the tool);
/// then the same surface without those tools is served and read.
fn over_stdio(root: &Path, name: &str, dir: &str, tools: &[Value]) -> Option<Vec<Value>> {
    let mut dir = dir.to_string();
    if let Some(t) = tools.iter().find(|t| requires_tasks(t)) {
        let out = run(&["serve", "--catalog", &dir, "--profile", "all"]);
        assert_eq!(out.status.code(), Some(2), "{dir}: {}", stderr(&out));
        let tname = t["name"].as_str().unwrap_or_default();
        assert!(stderr(&out).contains(&format!("tool `{tname}` requires task-augmented")));
        let rest: Vec<Value> = tools
            .iter()
            .filter(|t| !requires_tasks(t))
            .cloned()
            .collect();
        let trimmed = write_catalog(root, &format!("{name}-served"), &rest);
        dir = trimmed.to_string_lossy().into_owned();
    }
    let mut client = mcp_support::RawClient::start(&["--catalog", &dir, "--profile", "all"], &[]);
    let listed = client.list();
    let (status, err) = client.close();
    assert!(status.success(), "{dir}: {err}");
    Some(listed.as_array().cloned().unwrap_or_default())
}

#[test]
fn every_wild_tool_is_a_catalog_entry_served_as_authored() {
    let Some(shared) = shared() else { return };
    let wild = shared.join("anchors/wild");
    let mut files: Vec<_> = std::fs::read_dir(&wild)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".tools.json"))
        .collect();
    files.sort();
    files.push(wild.join("github-mcp-server/tools.json"));
    let root = scratch("wild_surfaces");
    let (mut accepted, mut entries) = (0, 0);
    let mut distinct_ok: BTreeSet<(bool, String)> = BTreeSet::new();
    let mut distinct_all: BTreeSet<(bool, String)> = BTreeSet::new();
    let mut failures = String::new();
    for f in &files {
        let github = f.to_string_lossy().contains("github-mcp-server");
        let source: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        for t in source["tools"].as_array().into_iter().flatten() {
            distinct_all.insert((github, t["name"].as_str().unwrap_or("").to_string()));
        }
        let (ok, total, report) = measure(f, &root);
        eprintln!(
            "{}: {}/{total} tools accepted and served equal",
            f.file_name().unwrap().to_string_lossy(),
            ok.len()
        );
        accepted += ok.len();
        entries += total;
        distinct_ok.extend(ok.into_iter().map(|n| (github, n)));
        if !report.is_empty() {
            failures.push_str(&format!("{}:\n{report}", f.display()));
        }
    }
    eprintln!(
        "wild surfaces: {accepted}/{entries} entries, {}/{} distinct tools accepted and served equal",
        distinct_ok.len(),
        distinct_all.len()
    );
    assert!(failures.is_empty(), "{failures}");
}
