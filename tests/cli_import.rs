//! `toolgate import`, end to end: from a live server (the toolgate binary serving tatara),
//! from captured lists (github-mcp-server's toolsets, the wild surfaces), re-import, bad
//! input.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{run, scratch, shared, stderr, stdout};
use serde_json::Value;

const TATARA: [&str; 7] = [
    "brainstorm",
    "incident",
    "implement",
    "review",
    "refine",
    "documentation",
    "upgrade",
];

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// `tools-list` of a catalog for a profile, as JSON.
fn tools_list(catalog: &str, profile: &str) -> Value {
    let o = run(&["tools-list", "--catalog", catalog, "--profile", profile]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    json(&stdout(&o))
}

/// Every file under `dir`, relative path to bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// The live import of tatara: the toolgate binary serving the bundled catalog, run once per
/// profile and once with an unknown one.
fn import_tatara_live(out: &Path) -> std::process::Output {
    let server = format!("{} serve --catalog tatara", env!("CARGO_BIN_EXE_toolgate"));
    let mut args = vec![
        "import",
        "--out",
        path(out),
        "--server",
        &server,
        "--profile-env",
        "TATARA_TOOL_PROFILE",
        "--fail-closed",
    ];
    for p in TATARA {
        args.extend(["--profile", p]);
    }
    run(&args)
}

#[test]
fn live_import_of_tatara_serves_what_tatara_serves() {
    let out = scratch("import_live").join("tatara");
    let o = import_tatara_live(&out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("wrote "), "{}", stderr(&o));
    let check = run(&["check", "--catalog", path(&out)]);
    assert_eq!(check.status.code(), Some(0), "{}", stderr(&check));
    for profile in TATARA.iter().copied().chain(["no-such-kind", ""]) {
        assert_eq!(
            tools_list(path(&out), profile),
            tools_list("tatara", profile),
            "profile {profile:?}"
        );
    }
    // Re-importing the same server changes nothing, and says so as `toolgate diff` does.
    let before = tree(&out);
    let o = import_tatara_live(&out);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "no change\nrequired bump: none\nrisk: none\n");
    assert_eq!(tree(&out), before);
}

#[test]
fn a_server_run_that_fails_writes_nothing() {
    let dir = scratch("import_server_fails");
    let out = dir.join("cat");
    let o = run(&[
        "import",
        "--out",
        path(&out),
        "--server",
        "sh -c 'echo started >&2; exit 4'",
        "--profile-env",
        "X_PROFILE",
        "--profile",
        "a",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("with X_PROFILE=a: the server exited (exit status: 4): initialize failed"),
        "{e}"
    );
    assert!(
        e.contains("| started") && e.contains("nothing was written"),
        "{e}"
    );
    assert!(!out.exists());
    // A server that never answers is stopped at the timeout.
    let o = run(&[
        "import",
        "--out",
        path(&out),
        "--server",
        "sleep 30",
        "--profile-env",
        "X",
        "--profile",
        "a",
        "--timeout",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("within 1s"), "{}", stderr(&o));
    assert!(!out.exists());
}

/// Captures of tatara's profiles, written as files by `tools-list`.
fn tatara_captures(dir: &Path) -> Vec<String> {
    let mut args = Vec::new();
    for p in TATARA {
        let file = dir.join(format!("{p}.json"));
        std::fs::write(
            &file,
            run(&["tools-list", "--catalog", "tatara", "--profile", p]).stdout,
        )
        .unwrap();
        args.push("--profile".to_string());
        args.push(format!("{p}={}", path(&file)));
    }
    let unknown = dir.join("unknown.json");
    std::fs::write(
        &unknown,
        run(&["tools-list", "--catalog", "tatara", "--profile", "x"]).stdout,
    )
    .unwrap();
    args.push("--fail-closed".into());
    args.push(path(&unknown).into());
    args.push("--profile-env".into());
    args.push("TATARA_TOOL_PROFILE".into());
    args
}

fn import_files(out: &Path, captures: &[String]) -> std::process::Output {
    let mut args: Vec<&str> = vec!["import", "--out", path(out)];
    args.extend(captures.iter().map(String::as_str));
    run(&args)
}

#[test]
fn import_is_deterministic_and_re_import_prints_the_diff() {
    let dir = scratch("import_files");
    let captures = tatara_captures(&dir);
    let (a, b) = (dir.join("a/tatara"), dir.join("b/tatara"));
    for out in [&a, &b] {
        let o = import_files(out, &captures);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), "", "a first import prints no diff");
    }
    assert_eq!(tree(&a), tree(&b));
    for p in TATARA {
        assert_eq!(tools_list(path(&a), p), tools_list("tatara", p));
    }

    // The server drops memory_edges from incident, and review's capture gains a tool: the
    // re-import prints the change, its rules and the bump.
    let incident = dir.join("incident.json");
    let mut v = json(&std::fs::read_to_string(&incident).unwrap());
    v["tools"]
        .as_array_mut()
        .unwrap()
        .retain(|t| t["name"] != "memory_edges");
    std::fs::write(&incident, serde_json::to_vec(&v).unwrap()).unwrap();
    let review = dir.join("review.json");
    let mut v = json(&std::fs::read_to_string(&review).unwrap());
    v["tools"].as_array_mut().unwrap().push(serde_json::json!({
        "name": "review_summary",
        "description": "Summarize a review.",
        "inputSchema": {"type": "object", "properties": {"mr": {"type": "string"}}}
    }));
    std::fs::write(&review, serde_json::to_vec(&v).unwrap()).unwrap();
    let o = import_files(&a, &captures);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let diff = stdout(&o);
    assert!(
        diff.starts_with("major (1):\n  tool-removed-from-profile: "),
        "{diff}"
    );
    assert!(
        diff.contains("memory_edges") && diff.contains("[incident]"),
        "{diff}"
    );
    assert!(
        diff.contains("minor (1):\n") && diff.contains("review_summary"),
        "{diff}"
    );
    assert!(
        diff.ends_with("required bump: major\nrisk: review\n"),
        "{diff}"
    );
    // `toolgate diff` between the two imports says the same.
    let d = run(&["diff", path(&b), path(&a)]);
    let d = stdout(&d);
    // ... and then the token change of the two profiles whose tools changed.
    assert!(d.starts_with(&diff), "{d}");
    assert!(
        d[diff.len()..].contains("\n  incident: -") && d[diff.len()..].contains("\n  review: +"),
        "{d}"
    );
}

#[test]
fn re_import_keeps_restrictions_and_formerly_or_refuses() {
    let dir = scratch("import_keeps");
    let captures = tatara_captures(&dir);
    let out = dir.join("tatara");
    assert_eq!(import_files(&out, &captures).status.code(), Some(0));
    // Hand edits that import does not own.
    let matrix = out.join("profiles.json");
    let text = std::fs::read_to_string(&matrix).unwrap().replacen(
        "\n  \"grants\":",
        "\n  \"restrictions\": { \"issue_write\": { \"refine\": { \"action\": [\"comment\"] } } },\n  \"grants\":",
        1,
    );
    std::fs::write(&matrix, text).unwrap();
    let task_list = out.join("tools/task_list.json");
    let text = std::fs::read_to_string(&task_list).unwrap().replace(
        "\n  \"group\":",
        "\n  \"formerly\": { \"names\": [\"tasks\"] },\n  \"group\":",
    );
    std::fs::write(&task_list, text).unwrap();
    let o = import_files(&out, &captures);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The restriction narrows refine's issue_write: the re-import shows it as the change
    // between the edited catalog and ... nothing, since both sides keep it.
    assert_eq!(stdout(&o), "no change\nrequired bump: none\nrisk: none\n");
    let kept = std::fs::read_to_string(&task_list).unwrap();
    assert!(
        kept.contains("\"formerly\": {\n    \"names\": [\n      \"tasks\"\n    ]\n  }"),
        "{kept}"
    );
    assert!(
        std::fs::read_to_string(&matrix)
            .unwrap()
            .contains("\"restrictions\": {\n    \"issue_write\"")
    );

    // The server no longer serves task_list: its former names would be lost, so the
    // re-import is refused and nothing changes.
    let before = tree(&out);
    for p in ["brainstorm", "incident", "refine"] {
        let f = dir.join(format!("{p}.json"));
        let mut v = json(&std::fs::read_to_string(&f).unwrap());
        v["tools"]
            .as_array_mut()
            .unwrap()
            .retain(|t| t["name"] != "task_list");
        std::fs::write(&f, serde_json::to_vec(&v).unwrap()).unwrap();
    }
    let o = import_files(&out, &captures);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("tools/task_list.json:")
            && e.contains("tool `task_list` declares former names but is no longer served"),
        "{e}"
    );
    assert!(e.contains("nothing was written"), "{e}");
    assert_eq!(tree(&out), before);
}

#[test]
fn bad_input_is_named_and_nothing_is_written() {
    let dir = scratch("import_bad");
    let out = dir.join("cat");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\n  \"tools\": [\n    {\"name\": \"a\",}\n  ]\n}\n").unwrap();
    let array = dir.join("array.json");
    std::fs::write(
        &array,
        r#"[{"name":"a","inputSchema":{"type":"object"}},{"description":"x"}]"#,
    )
    .unwrap();
    let missing = dir.join("missing.json");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![format!("a={}", path(&bad))],
            "bad.json:3:18: invalid JSON: trailing comma",
        ),
        (
            vec![format!("a={}", path(&array))],
            "array.json:1:47: at /1: this tool has no `name`",
        ),
        (
            vec![format!("a={}", path(&missing))],
            "missing.json: cannot read the capture",
        ),
        (vec!["a".into()], "--profile a: give NAME=FILE"),
        (
            vec![format!("a,b={}", path(&array))],
            "profile name \"a,b\" must be",
        ),
    ];
    for (profiles, want) in cases {
        let mut args: Vec<&str> = vec!["import", "--out", path(&out)];
        for p in &profiles {
            args.extend(["--profile", p]);
        }
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{profiles:?}");
        let e = stderr(&o);
        assert!(e.contains(want), "{profiles:?}: missing {want:?} in\n{e}");
        assert!(e.contains("nothing was written"), "{e}");
        assert!(!out.exists(), "{profiles:?}");
    }
    // Usage: --server without its variable, a file to --fail-closed with --server, a
    // non-empty folder that is not a catalog.
    let o = run(&[
        "import",
        "--out",
        path(&out),
        "--server",
        "x",
        "--profile",
        "a",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--server needs --profile-env VAR"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "import",
        "--out",
        path(&out),
        "--server",
        "x",
        "--profile-env",
        "V",
        "--fail-closed",
        "f.json",
        "--profile",
        "a",
    ]);
    assert!(
        stderr(&o).contains("--fail-closed takes no FILE"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "import",
        "--out",
        path(&out),
        "--server",
        "'unclosed",
        "--profile-env",
        "V",
        "--profile",
        "a",
    ]);
    assert!(stderr(&o).contains("an unclosed quote"), "{}", stderr(&o));
    let o = run(&[
        "import",
        "--out",
        path(&dir),
        "--profile",
        &format!("a={}", path(&array)),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not empty and holds no catalog"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    let o = run(&["import", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("Exit codes: 0 the catalog was written, 2 nothing was written"));
}

/// The wild captures (`../shared/anchors/wild/*.tools.json`) and github-mcp-server's snapshots.
fn wild_files() -> Option<Vec<PathBuf>> {
    let wild = shared()?.join("anchors/wild");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&wild)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".tools.json"))
        .collect();
    files.sort();
    files.push(wild.join("github-mcp-server/tools.json"));
    Some(files)
}

fn tools_of(file: &Path) -> Vec<Value> {
    json(&std::fs::read_to_string(file).unwrap())["tools"]
        .as_array()
        .unwrap()
        .clone()
}

fn import_all(file: &Path, out: &Path) {
    let o = run(&[
        "import",
        "--out",
        path(out),
        "--profile",
        &format!("all={}", path(file)),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}: {}",
        file.display(),
        stderr(&o)
    );
}

/// Import-side: every tool file holds the source object, keys in the source's order.
#[test]
fn wild_surfaces_import_as_the_servers_sent_them() {
    let Some(files) = wild_files() else { return };
    let dir = scratch("import_wild");
    let mut entries = 0;
    for (i, file) in files.iter().enumerate() {
        let out = dir.join(format!("w{i}"));
        import_all(file, &out);
        for tool in tools_of(file) {
            let name = tool["name"].as_str().unwrap();
            let text = std::fs::read_to_string(out.join(format!("tools/{name}.json"))).unwrap();
            // Without toolgate's `group`, the file is the object as sent: compare the text,
            // which holds the key order too.
            let as_sent = toolgate_schema::json::to_pretty(
                &serde_json::from_str::<toolgate_schema::json::Value>(&text)
                    .map(|v| strip_group(&v))
                    .unwrap(),
            );
            let source = source_text(file, name);
            assert_eq!(as_sent, source, "{} {name}", file.display());
            entries += 1;
        }
    }
    assert_eq!(entries, 256);
}

fn strip_group(v: &toolgate_schema::json::Value) -> toolgate_schema::json::Value {
    let m = v.as_object().unwrap();
    toolgate_schema::json::Value::Object(
        m.iter()
            .filter(|(k, _)| *k != "group")
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

/// The source object of `name` in `file`, pretty-printed in its own key order.
fn source_text(file: &Path, name: &str) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let v: toolgate_schema::json::Value = serde_json::from_str(&text).unwrap();
    let tools = v
        .as_object()
        .unwrap()
        .get("tools")
        .unwrap()
        .as_array()
        .unwrap();
    let tool = tools
        .iter()
        .find(|t| t.as_object().unwrap().get("name").unwrap().as_str() == Some(name))
        .unwrap();
    toolgate_schema::json::to_pretty(tool)
}

/// Loader-side: `check` accepts each imported wild surface and `tools-list` serves every tool
/// JSON-equal to the source on every MCP Tool field.
#[test]
fn wild_surfaces_check_and_serve_as_authored() {
    let Some(files) = wild_files() else { return };
    let dir = scratch("import_wild_served");
    for (i, file) in files.iter().enumerate() {
        let out = dir.join(format!("w{i}"));
        import_all(file, &out);
        let check = run(&["check", "--catalog", path(&out)]);
        assert_eq!(
            check.status.code(),
            Some(0),
            "{}: {}",
            file.display(),
            stderr(&check)
        );
        let served = by_name(tools_list(path(&out), "all")["tools"].as_array().unwrap());
        let source = by_name(&tools_of(file));
        assert_eq!(served, source, "{}", file.display());
    }
}

fn by_name(tools: &[Value]) -> BTreeMap<String, Value> {
    tools
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_string(), t.clone()))
        .collect()
}

/// github-mcp-server: one capture per toolset and one for the feature-flagged tools.
fn github_import(dir: &Path) -> Option<(PathBuf, BTreeMap<String, BTreeSet<String>>)> {
    let gh = shared()?.join("anchors/wild/github-mcp-server");
    let tools = tools_of(&gh.join("tools.json"));
    let toolsets = json(&std::fs::read_to_string(gh.join("toolsets.json")).unwrap());
    let flagged = json(&std::fs::read_to_string(gh.join("feature_flagged_tools.json")).unwrap());
    let mut sets: BTreeMap<String, BTreeSet<String>> = toolsets
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let names = v
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap().to_string());
            (k.clone(), names.collect())
        })
        .collect();
    sets.insert(
        "feature_flagged".into(),
        flagged.as_object().unwrap().keys().cloned().collect(),
    );
    let mut args = vec![
        "import".to_string(),
        "--combine".into(),
        "--profile-env".into(),
        "GITHUB_TOOLSETS".into(),
    ];
    for (set, names) in &sets {
        let listed: Vec<&Value> = tools
            .iter()
            .filter(|t| names.contains(t["name"].as_str().unwrap()))
            .collect();
        let file = dir.join(format!("{set}.json"));
        std::fs::write(
            &file,
            serde_json::to_vec(&serde_json::json!({ "tools": listed })).unwrap(),
        )
        .unwrap();
        args.push("--profile".into());
        args.push(format!("{set}={}", path(&file)));
    }
    let out = dir.join("github");
    args.push("--out".into());
    args.push(path(&out).into());
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(&argv);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    Some((out, sets))
}

/// Import-side: 22 combinable profiles, 117 tool files, at most 40 grant rows.
#[test]
fn github_toolsets_import_combinable_in_few_rows() {
    let dir = scratch("import_github");
    let Some((out, sets)) = github_import(&dir) else {
        return;
    };
    assert_eq!(sets.len(), 22);
    let matrix = json(&std::fs::read_to_string(out.join("profiles.json")).unwrap());
    assert_eq!(matrix["selector"]["combine"], true);
    assert_eq!(matrix["profiles"].as_object().unwrap().len(), 22);
    let rows = matrix["grants"].as_object().unwrap().len();
    assert!(rows <= 40, "{rows} grant rows");
    assert_eq!(std::fs::read_dir(out.join("tools")).unwrap().count(), 117);
}

/// Loader-side: each toolset's tools-list is that toolset with the source schemas;
/// `repos,issues,pull_requests` the union.
#[test]
fn github_toolsets_serve_as_authored() {
    let dir = scratch("import_github_served");
    let Some((out, sets)) = github_import(&dir) else {
        return;
    };
    let gh = shared().unwrap().join("anchors/wild/github-mcp-server");
    let source = by_name(&tools_of(&gh.join("tools.json")));
    for (set, names) in &sets {
        let served = by_name(tools_list(path(&out), set)["tools"].as_array().unwrap());
        let want: BTreeMap<String, Value> = names
            .iter()
            .map(|n| (n.clone(), source[n].clone()))
            .collect();
        assert_eq!(served, want, "{set}");
    }
    let union: BTreeSet<String> = ["repos", "issues", "pull_requests"]
        .iter()
        .flat_map(|s| sets[*s].iter().cloned())
        .collect();
    let served = by_name(
        tools_list(path(&out), "repos,issues,pull_requests")["tools"]
            .as_array()
            .unwrap(),
    );
    assert_eq!(served.keys().cloned().collect::<BTreeSet<_>>(), union);
    for (name, tool) in &served {
        assert_eq!(tool, &source[name]);
    }
}
