//! `import`: catalogs written from captured `tools/list` results, read back through the loader
//! where it accepts them (tatara, maetra), and compared with the source objects on the wild
//! surfaces (`../shared/anchors/wild/`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use toolgate_schema::import::{Capture, Existing, Options, Plan, plan};
use toolgate_schema::json::{Value, to_pretty};
use toolgate_schema::load::read_dir_sources;
use toolgate_schema::{Surface, load_dir, load_sources};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The shared anchors, beside the repository (`../shared`), when they are checked out.
fn wild_dir() -> Option<PathBuf> {
    let dir = root().join("../../shared/anchors/wild");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "skipped: {} is not here (the shared anchors are not checked out)",
            dir.display()
        );
        None
    }
}

fn bundled(name: &str) -> Surface {
    Surface::from_catalog(&load_dir(&root().join(name)).expect("the bundled catalog loads"))
}

/// What a server for `surface` serves each profile, and an unknown one, as captures.
fn captures_of(surface: &Surface) -> Vec<Capture> {
    let mut out = Vec::new();
    let unknown = surface.tools_list_json(&surface.resolve("no-such-profile"));
    out.push(capture(None, &unknown));
    for p in &surface.profiles {
        let list = surface.tools_list_json(&surface.resolve(&p.name));
        out.push(capture(Some(&p.name), &list));
    }
    out
}

fn capture(profile: Option<&str>, list: &Value) -> Capture {
    let path = format!("{}.tools.json", profile.unwrap_or("unknown"));
    Capture::from_file(profile, Path::new(&path), to_pretty(list).as_bytes())
        .expect("a tools/list result reads")
}

fn load(plan: &Plan) -> Surface {
    match load_sources(Path::new("imported"), plan.sources()) {
        Ok(c) => Surface::from_catalog(&c),
        Err(e) => panic!("the imported catalog does not load:\n{e}"),
    }
}

fn text(plan: &Plan, rel: &str) -> String {
    String::from_utf8(plan.files[rel].clone()).expect("UTF-8")
}

/// Imports what `name`'s server serves, then checks that the imported catalog serves every
/// profile, and an unknown one, exactly the same tools/list.
fn round_trip(name: &str, env: &str, combine: bool) -> Plan {
    let original = bundled(name);
    let options = Options {
        name: name.into(),
        selector_env: Some(env.into()),
        combine,
    };
    let p = plan(&options, &captures_of(&original), None).expect("import");
    let imported = load(&p);
    let mut requests: Vec<String> = original.profiles.iter().map(|p| p.name.clone()).collect();
    requests.push("no-such-profile".into());
    requests.push(String::new());
    for r in &requests {
        assert_eq!(
            to_pretty(&imported.tools_list_json(&imported.resolve(r))),
            to_pretty(&original.tools_list_json(&original.resolve(r))),
            "{name}, profile {r:?}"
        );
    }
    p
}

#[test]
fn tatara_round_trips_every_profile_and_the_fail_closed_session() {
    let p = round_trip("tatara", "TATARA_TOOL_PROFILE", false);
    let m = text(&p, "profiles.json");
    // The six always-on tools, in the order the server listed them (by name).
    assert!(m.contains("\"always_on\": [\n    \"project_get\",\n    \"repo_list\",\n    \"report_internal_issue\",\n    \"task_context\",\n    \"task_get\",\n    \"task_note\"\n  ],"), "{m}");
    // submit_outcome: six variants, upgrade sharing documentation's; mr_write: refine's
    // restricted cell is a variant of its own.
    assert!(m.contains("\"upgrade\": \"documentation\""), "{m}");
    assert!(p.files.contains_key("tools/mr_write.refine.json"));
    assert!(p.files.contains_key("tools/mr_write.implement.json"));
    let submit = p
        .files
        .keys()
        .filter(|f| f.starts_with("tools/submit_outcome."))
        .count();
    assert_eq!(submit, 6);
    assert!(m.contains("\"all\": [\n      \"*\"\n    ]"), "{m}");
    assert!(p.grant_rows <= 12, "{} rows", p.grant_rows);
}

#[test]
fn maetra_round_trips_with_combinable_profiles() {
    let p = round_trip("maetra", "MAETRA_CAPABILITIES", true);
    let m = text(&p, "profiles.json");
    assert!(m.contains("\"combine\": true"), "{m}");
    let imported = load(&p);
    let original = bundled("maetra");
    let union = "task_guard,govern";
    assert_eq!(
        to_pretty(&imported.tools_list_json(&imported.resolve(union))),
        to_pretty(&original.tools_list_json(&original.resolve(union)))
    );
}

#[test]
fn tatara_with_combine_is_refused_naming_the_tools_that_vary() {
    let options = Options {
        name: "tatara".into(),
        selector_env: None,
        combine: true,
    };
    let e = plan(&options, &captures_of(&bundled("tatara")), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tool `mr_write` differs between profiles"),
        "{e}"
    );
    assert!(e.contains("tool `submit_outcome` differs between profiles (brainstorm | incident | implement | review | refine | documentation, upgrade: 6 versions)"), "{e}");
}

#[test]
fn import_is_deterministic() {
    let options = Options {
        name: "tatara".into(),
        selector_env: Some("TATARA_TOOL_PROFILE".into()),
        combine: false,
    };
    let a = plan(&options, &captures_of(&bundled("tatara")), None).unwrap();
    let b = plan(&options, &captures_of(&bundled("tatara")), None).unwrap();
    assert_eq!(a, b);
}

/// The imported tatara catalog, edited by hand: a former name and a restriction added.
fn edited_tatara() -> (Existing, Vec<Capture>) {
    let original = bundled("tatara");
    let captures = captures_of(&original);
    let options = Options {
        name: "tatara".into(),
        selector_env: Some("TATARA_TOOL_PROFILE".into()),
        combine: false,
    };
    let mut files = plan(&options, &captures, None).unwrap().files;
    let task_get = text_of(&files["tools/task_list.json"]).replace(
        "\n  \"group\":",
        "\n  \"formerly\": { \"names\": [\"tasks\"] },\n  \"group\":",
    );
    files.insert("tools/task_list.json".into(), task_get.into_bytes());
    let matrix = text_of(&files["profiles.json"]).replace(
        "\n  \"variants\":",
        "\n  \"restrictions\": { \"issue_write\": { \"refine\": { \"action\": [\"comment\"] } } },\n  \"variants\":",
    );
    files.insert("profiles.json".into(), matrix.into_bytes());
    files.insert(
        "tools/gone.json".into(),
        br#"{"name":"gone","group":"all","description":"d","inputSchema":{"type":"object"}}"#
            .to_vec(),
    );
    (
        Existing {
            dir: PathBuf::from("tatara-imported"),
            files,
        },
        captures,
    )
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn re_import_keeps_formerly_and_restrictions_and_removes_stale_files() {
    let (existing, captures) = edited_tatara();
    let options = Options {
        name: "tatara".into(),
        selector_env: None,
        combine: false,
    };
    let p = plan(&options, &captures, Some(&existing)).expect("re-import");
    assert_eq!(p.remove, ["tools/gone.json"]);
    let task_list = text(&p, "tools/task_list.json");
    assert!(
        task_list.contains("\"formerly\": {\n    \"names\": [\n      \"tasks\"\n    ]\n  }\n}\n"),
        "{task_list}"
    );
    let m = text(&p, "profiles.json");
    assert!(
        m.contains("\"restrictions\": {\n    \"issue_write\""),
        "{m}"
    );
    // The selector's variable is kept from the existing catalog when none is given.
    assert!(m.contains("\"env\": \"TATARA_TOOL_PROFILE\""), "{m}");
    // It loads: the kept restriction applies on the re-imported surface.
    let s = load(&p);
    let refine = by_name(&s.tools_list_json(&s.resolve("refine")));
    let action = pointer(
        &refine["issue_write"],
        &["inputSchema", "properties", "action", "enum"],
    );
    assert_eq!(to_pretty(action), "[\n  \"comment\"\n]\n");
}

fn pointer<'a>(mut v: &'a Value, keys: &[&str]) -> &'a Value {
    for k in keys {
        v = v
            .as_object()
            .and_then(|o| o.get(k))
            .unwrap_or_else(|| panic!("no {k}"));
    }
    v
}

#[test]
fn re_import_refuses_to_drop_what_it_does_not_own() {
    let (mut existing, captures) = edited_tatara();
    let options = Options {
        name: "tatara".into(),
        selector_env: None,
        combine: false,
    };
    // Without task_list and issue_write the formerly and the restriction have nowhere to go.
    let captures: Vec<Capture> = captures
        .into_iter()
        .map(|mut c| {
            c.tools.retain(|t| {
                let name = t
                    .as_object()
                    .and_then(|o| o.get("name"))
                    .and_then(Value::as_str);
                !matches!(name, Some("task_list" | "issue_write"))
            });
            c
        })
        .collect();
    let matrix = text_of(&existing.files["profiles.json"]).replace(
        "\"catalog\": \"tatara\",",
        "\"catalog\": \"tatara\",\n  \"parameters\": { \"token\": { \"schema\": { \"type\": \"string\" } } },",
    );
    existing
        .files
        .insert("profiles.json".into(), matrix.into_bytes());
    existing
        .files
        .insert("tools/bad.json".into(), b"{ nope".to_vec());
    let e = plan(&options, &captures, Some(&existing))
        .unwrap_err()
        .to_string();
    for want in [
        "tatara-imported/tools/task_list.json:",
        "tool `task_list` declares former names but is no longer served",
        "restrictions on `issue_write` are kept by a re-import, but the server no longer serves `issue_write`",
        "the existing catalog adds parameters",
        "tatara-imported/tools/bad.json: the existing catalog's file is not a JSON object",
    ] {
        assert!(e.contains(want), "missing {want:?} in\n{e}");
    }
}

/// Every `*.tools.json` capture of the wild folder, and github-mcp-server's snapshots.
fn wild_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".tools.json"))
        .collect();
    files.sort();
    files.push(dir.join("github-mcp-server/tools.json"));
    files
}

/// A tool file without toolgate's own keys: the tool object it holds.
fn tool_object(file: &[u8]) -> Value {
    let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(file) else {
        panic!("a tool file is an object");
    };
    let kept = m
        .iter()
        .filter(|(k, _)| !matches!(*k, "group" | "variant" | "formerly"))
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    Value::Object(kept)
}

/// Import-side (no loader needed): `import --profile all=FILE` writes each tool's object
/// exactly as the server sent it (same keys, same order), one file per tool, all granted `*`.
#[test]
fn wild_surfaces_are_written_as_the_servers_sent_them() {
    let Some(dir) = wild_dir() else { return };
    let mut entries = 0;
    for path in wild_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let capture = Capture::from_file(Some("all"), &path, &bytes).unwrap();
        let source = capture.tools.clone();
        let options = Options {
            name: "wild".into(),
            selector_env: None,
            combine: false,
        };
        let p =
            plan(&options, &[capture], None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(p.files.len(), source.len() + 1, "{}", path.display());
        assert_eq!(p.grant_rows, 1);
        for tool in &source {
            let name = tool
                .as_object()
                .and_then(|o| o.get("name"))
                .and_then(Value::as_str)
                .unwrap();
            let file = &p.files[&format!("tools/{name}.json")];
            // Byte-equal as pretty JSON: keys and their order as sent.
            assert_eq!(
                to_pretty(&tool_object(file)),
                to_pretty(tool),
                "{} {name}",
                path.display()
            );
            assert!(text_of(file).ends_with("\"group\": \"all\"\n}\n"));
        }
        entries += source.len();
    }
    assert_eq!(entries, 256);
}

/// Loader-side: each wild surface imported, loaded and served is JSON-equal to its source.
#[test]
fn wild_surfaces_load_and_serve_as_authored() {
    let Some(dir) = wild_dir() else { return };
    for path in wild_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let capture = Capture::from_file(Some("all"), &path, &bytes).unwrap();
        let source = capture.tools.clone();
        let options = Options {
            name: "wild".into(),
            selector_env: None,
            combine: false,
        };
        let p = plan(&options, &[capture], None).unwrap();
        let s = load(&p);
        let served = s.tools_list_json(&s.resolve("all"));
        assert_eq!(
            by_name(&served),
            by_name_list(&source),
            "{}",
            path.display()
        );
    }
}

fn by_name(list: &Value) -> BTreeMap<String, Value> {
    let tools = list
        .as_object()
        .and_then(|o| o.get("tools"))
        .and_then(Value::as_array)
        .unwrap();
    by_name_list(tools)
}

fn by_name_list(tools: &[Value]) -> BTreeMap<String, Value> {
    tools
        .iter()
        .map(|t| {
            let name = t
                .as_object()
                .and_then(|o| o.get("name"))
                .and_then(Value::as_str)
                .unwrap();
            (name.to_string(), t.sorted())
        })
        .collect()
}

/// github-mcp-server's 21 toolsets and its feature-flagged tools as a 22nd profile.
fn github_captures(dir: &Path) -> (Vec<Capture>, BTreeMap<String, BTreeSet<String>>) {
    let gh = dir.join("github-mcp-server");
    let all: Value =
        serde_json::from_slice(&std::fs::read(gh.join("tools.json")).unwrap()).unwrap();
    let tools = all
        .as_object()
        .unwrap()
        .get("tools")
        .unwrap()
        .as_array()
        .unwrap();
    let toolsets: Value =
        serde_json::from_slice(&std::fs::read(gh.join("toolsets.json")).unwrap()).unwrap();
    let flagged: Value =
        serde_json::from_slice(&std::fs::read(gh.join("feature_flagged_tools.json")).unwrap())
            .unwrap();
    let mut sets: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (set, names) in toolsets.as_object().unwrap().iter() {
        let names = names
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string());
        sets.insert(set.to_string(), names.collect());
    }
    sets.insert(
        "feature_flagged".into(),
        flagged
            .as_object()
            .unwrap()
            .keys()
            .map(str::to_string)
            .collect(),
    );
    let captures = sets
        .iter()
        .map(|(set, names)| {
            let listed: Vec<Value> = tools
                .iter()
                .filter(|t| {
                    names.contains(
                        t.as_object()
                            .unwrap()
                            .get("name")
                            .unwrap()
                            .as_str()
                            .unwrap(),
                    )
                })
                .cloned()
                .collect();
            let mut m = toolgate_schema::json::Map::new();
            m.insert("tools", Value::Array(listed));
            capture(Some(set), &Value::Object(m))
        })
        .collect();
    (captures, sets)
}

fn github_plan(dir: &Path) -> (Plan, BTreeMap<String, BTreeSet<String>>) {
    let (captures, sets) = github_captures(dir);
    assert_eq!(captures.len(), 22);
    let options = Options {
        name: "github".into(),
        selector_env: Some("GITHUB_TOOLSETS".into()),
        combine: true,
    };
    (
        plan(&options, &captures, None).expect("github imports"),
        sets,
    )
}

/// Import-side: 117 tool files, at most 40 grant rows, and the matrix grants each toolset
/// exactly its tools (read from the files, without the loader).
#[test]
fn github_toolsets_import_in_few_rows() {
    let Some(dir) = wild_dir() else { return };
    let (p, sets) = github_plan(&dir);
    assert_eq!(p.files.len(), 117 + 1);
    assert!(p.grant_rows <= 40, "{} rows", p.grant_rows);
    assert_eq!(
        p.grant_rows, 23,
        "21 toolsets, the flagged tools, and get_label in two"
    );
    let matrix: Value = serde_json::from_slice(&p.files["profiles.json"]).unwrap();
    let grants = matrix
        .as_object()
        .unwrap()
        .get("grants")
        .unwrap()
        .as_object()
        .unwrap();
    let mut granted: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, bytes) in p.files.iter().filter(|(r, _)| r.starts_with("tools/")) {
        let file: Value = serde_json::from_slice(bytes).unwrap();
        let o = file.as_object().unwrap();
        let name = o.get("name").unwrap().as_str().unwrap();
        assert_eq!(rel, &format!("tools/{name}.json"), "no variants");
        let group = o.get("group").unwrap().as_str().unwrap();
        for who in grants.get(group).unwrap().as_array().unwrap() {
            granted
                .entry(who.as_str().unwrap().to_string())
                .or_default()
                .insert(name.to_string());
        }
    }
    assert_eq!(granted, sets);
    assert!(
        text(&p, "profiles.json")
            .contains("\"issues_and_labels\": [\n      \"issues\",\n      \"labels\"\n    ]")
    );
}

/// Loader-side: each toolset's tools/list is that toolset with the source schemas, and a
/// combined selector the union.
#[test]
fn github_toolsets_serve_as_authored() {
    let Some(dir) = wild_dir() else { return };
    let (p, _) = github_plan(&dir);
    let (captures, sets) = github_captures(&dir);
    let s = load(&p);
    for c in &captures {
        let profile = c.profile.clone().unwrap();
        let served = s.tools_list_json(&s.resolve(&profile));
        assert_eq!(by_name(&served), by_name_list(&c.tools), "{profile}");
    }
    let union: BTreeSet<&String> = ["repos", "issues", "pull_requests"]
        .iter()
        .flat_map(|s| &sets[*s])
        .collect();
    let served = by_name(&s.tools_list_json(&s.resolve("repos,issues,pull_requests")));
    assert_eq!(served.keys().collect::<BTreeSet<_>>(), union);
}

/// The wild tools that today's loader accepts round-trip through it already.
#[test]
fn wild_tools_the_loader_accepts_round_trip() {
    let Some(dir) = wild_dir() else { return };
    let mut accepted = 0;
    let mut total = 0;
    for path in wild_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let capture = Capture::from_file(Some("all"), &path, &bytes).unwrap();
        for tool in &capture.tools {
            total += 1;
            let one = Capture::from_tools(Some("all"), "one", vec![tool.clone()]);
            let options = Options {
                name: "wild".into(),
                selector_env: None,
                combine: false,
            };
            let p = plan(&options, &[one], None).unwrap();
            let Ok(c) = load_sources(Path::new("wild"), p.sources()) else {
                continue;
            };
            accepted += 1;
            let s = Surface::from_catalog(&c);
            let served = s.tools_list_json(&s.resolve("all"));
            let served = by_name(&served);
            let want = by_name_list(std::slice::from_ref(tool));
            // Today's loader serves its own fields only, and inlines $refs: compare those.
            for (name, got) in &served {
                let want = want[name].as_object().unwrap();
                for key in ["name", "description", "inputSchema", "annotations"] {
                    if let Some(w) = want.get(key) {
                        assert_eq!(
                            got.as_object().unwrap().get(key),
                            Some(w),
                            "{} {name} {key}",
                            path.display()
                        );
                    }
                }
            }
        }
    }
    println!("today's loader accepts {accepted} of {total} wild tool entries");
    assert!(accepted > 0);
}

#[test]
fn the_tatara_folder_is_what_read_dir_sources_reads() {
    // Sanity for the helpers above: the bundled catalog reads without errors.
    let (sources, errors) = read_dir_sources(&root().join("tatara"), Path::new("tatara"));
    assert!(errors.is_empty() && !sources.is_empty());
}
