//! Context cost, budgets and host limits through the binary (issue 27).
//!
//! - Each profile's token figure is held within 1% of tiktoken's own count of the same bytes
//!   (npm `tiktoken@1.0.22`, pinned in `tests/tiktoken/`, installed by `.ci/run` under
//!   `target/e2e/tiktoken`; skipped with a message when absent, a failure when
//!   `TOOLGATE_REQUIRE_E2E=1`): tatara's and maetra's profiles, and github-mcp-server's
//!   toolsets imported with `--combine` (from `../shared`, skipped when absent).
//! - Each host limit fails once and passes once: 129 tools for a host of 128, a name over 64
//!   characters only with Claude Code's prefix, a dot for a host that refuses it.
//! - Budgets fail a profile over them; `diff` reports and bounds token growth.
//! - The ten wild surfaces, checked against every host: the limits each breaks are printed
//!   and cross-checked against the rules computed here from the names and counts.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{repo_root, run, scratch, shared, stderr, stdout};
use serde_json::{Value, json};

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn check_json(dir: &Path, hosts: &[&str]) -> (Option<i32>, Value, String) {
    let mut args = vec!["check", "--catalog", path(dir), "--format", "json"];
    for h in hosts {
        args.push("--host");
        args.push(h);
    }
    let o = run(&args);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap_or(Value::Null);
    (o.status.code(), v, stderr(&o))
}

/// Writes a catalog folder `name` serving `tools` (MCP Tool objects) to profile `all`, with
/// `extra` merged into its matrix.
fn write_catalog(root: &Path, name: &str, tools: &[Value], extra: Value) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("tools")).unwrap();
    let mut matrix = json!({
        "catalog": name,
        "selector": {"env": "COST_PROFILE"},
        "profiles": {"all": "Every tool."},
        "groups": {"all": {"description": "Every tool."}},
        "grants": {"all": ["all"]}
    });
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        matrix[k] = v;
    }
    std::fs::write(
        dir.join("profiles.json"),
        serde_json::to_string_pretty(&matrix).unwrap(),
    )
    .unwrap();
    for (i, t) in tools.iter().enumerate() {
        let mut t = t.clone();
        t["group"] = json!("all");
        std::fs::write(
            dir.join("tools").join(format!("{i:03}.json")),
            serde_json::to_string_pretty(&t).unwrap(),
        )
        .unwrap();
    }
    dir
}

fn tool(name: &str) -> Value {
    json!({
        "name": name,
        "description": format!("Does {name}."),
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}}
    })
}

fn errors(v: &Value) -> Vec<Value> {
    v["errors"].as_array().cloned().unwrap_or_default()
}

// ---- tiktoken's own count ----

/// `node` and tiktoken's package folder, or why the cross-check cannot run.
fn tiktoken() -> Option<(PathBuf, PathBuf)> {
    let modules = std::env::var_os("TOOLGATE_TIKTOKEN")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/e2e/tiktoken/node_modules"));
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if node_ok && modules.join("tiktoken/package.json").is_file() {
        return Some((PathBuf::from("node"), modules));
    }
    let why = format!(
        "npm tiktoken@1.0.22 is not installed at {} (or node is missing): `npm ci` tests/tiktoken there, as .ci/run does",
        modules.display()
    );
    assert!(
        std::env::var("TOOLGATE_REQUIRE_E2E").as_deref() != Ok("1"),
        "TOOLGATE_REQUIRE_E2E=1: {why}"
    );
    eprintln!("skipped: {why}");
    None
}

/// tiktoken's count of each text.
fn tiktoken_counts(texts: &[String], scratch_dir: &Path) -> Option<Vec<usize>> {
    let (node, modules) = tiktoken()?;
    let mut files = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        let f = scratch_dir.join(format!("tools-{i}.json"));
        std::fs::write(&f, t).unwrap();
        files.push(f);
    }
    let o = Command::new(node)
        .env("NODE_PATH", &modules)
        .arg(repo_root().join("tests/tiktoken/count.js"))
        .args(&files)
        .output()
        .expect("node runs");
    assert!(o.status.success(), "{}", stderr(&o));
    Some(
        stdout(&o)
            .lines()
            .map(|l| l.trim().parse().expect("a count"))
            .collect(),
    )
}

/// Holds the figures of catalog `dir` to tiktoken's: the CLI's JSON equals the library's,
/// and each is within 1% of tiktoken's count of the same bytes.
fn hold_to_tiktoken(dir: &Path, label: &str, scratch_dir: &Path) -> Vec<(String, usize, usize)> {
    let catalog = toolgate_schema::load_dir(dir).expect("a valid catalog");
    let surface = toolgate_schema::Surface::from_catalog(&catalog);
    let costs = toolgate_schema::cost::measure(&surface);
    let (code, v, err) = check_json(dir, &[]);
    assert_eq!(code, Some(0), "{label}: {err}");
    let listed = v["profiles"].as_array().unwrap();
    assert_eq!(listed.len(), costs.len(), "{label}");
    for (c, l) in costs.iter().zip(listed) {
        assert_eq!(l["name"], json!(c.name), "{label}");
        assert_eq!(l["tokens"], json!(c.tokens), "{label} {}", c.name);
        assert_eq!(l["bytes"], json!(c.text.len()), "{label} {}", c.name);
        assert_eq!(l["tools"], json!(c.names.len()), "{label} {}", c.name);
        // The bytes measured are the tools array `tools-list` serves, compact.
        let served: Value = serde_json::from_str(&stdout(&run(&[
            "tools-list",
            "--catalog",
            path(dir),
            "--profile",
            &c.name,
        ])))
        .unwrap();
        let measured: Value = serde_json::from_str(&c.text).unwrap();
        assert_eq!(measured, served["tools"], "{label} {}", c.name);
        assert!(!c.text.contains("\\u"), "{label}: non-ASCII is raw UTF-8");
    }
    let texts: Vec<String> = costs.iter().map(|c| c.text.clone()).collect();
    let Some(theirs) = tiktoken_counts(&texts, scratch_dir) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for (c, t) in costs.iter().zip(theirs) {
        let off = (c.tokens as f64 - t as f64).abs() / (t.max(1) as f64);
        assert!(
            off <= 0.01,
            "{label} {}: toolgate {} tokens, tiktoken {t} ({:.2}% apart)",
            c.name,
            c.tokens,
            off * 100.0
        );
        eprintln!(
            "{label} {}: {} tools, {} bytes, toolgate {} tokens, tiktoken {t}",
            c.name,
            c.names.len(),
            c.text.len(),
            c.tokens
        );
        rows.push((c.name.clone(), c.tokens, t));
    }
    rows
}

#[test]
fn bundled_profiles_cost_what_tiktoken_counts() {
    let dir = scratch("cost_tiktoken_bundled");
    for c in ["tatara", "maetra"] {
        hold_to_tiktoken(&repo_root().join("schema").join(c), c, &dir);
    }
}

/// github-mcp-server imported with `--combine`: one capture per toolset (the README's and
/// the feature-flagged tools), as tests/cli_import.rs imports it.
fn github_import(root: &Path) -> Option<PathBuf> {
    let gh = shared()?.join("anchors/wild/github-mcp-server");
    let tools: Value = serde_json::from_slice(&std::fs::read(gh.join("tools.json")).ok()?).ok()?;
    let tools = tools["tools"].as_array()?.clone();
    let toolsets: Value =
        serde_json::from_slice(&std::fs::read(gh.join("toolsets.json")).ok()?).ok()?;
    let flagged: Value =
        serde_json::from_slice(&std::fs::read(gh.join("feature_flagged_tools.json")).ok()?).ok()?;
    let mut sets: BTreeMap<String, BTreeSet<String>> = toolsets
        .as_object()?
        .iter()
        .map(|(k, v)| {
            let names = v.as_array().into_iter().flatten();
            (
                k.clone(),
                names
                    .filter_map(|n| n.as_str().map(str::to_string))
                    .collect(),
            )
        })
        .collect();
    sets.insert(
        "feature_flagged".into(),
        flagged.as_object()?.keys().cloned().collect(),
    );
    let mut args: Vec<String> = ["import", "--combine", "--profile-env", "GITHUB_TOOLSETS"]
        .map(String::from)
        .to_vec();
    for (set, names) in &sets {
        let listed: Vec<&Value> = tools
            .iter()
            .filter(|t| names.contains(t["name"].as_str().unwrap_or_default()))
            .collect();
        let file = root.join(format!("{set}.json"));
        std::fs::write(
            &file,
            serde_json::to_vec(&json!({ "tools": listed })).unwrap(),
        )
        .unwrap();
        args.push("--profile".into());
        args.push(format!("{set}={}", path(&file)));
    }
    let out = root.join("github");
    args.extend(["--out".to_string(), path(&out).to_string()]);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(&argv);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    Some(out)
}

#[test]
fn github_toolsets_cost_what_tiktoken_counts() {
    let dir = scratch("cost_tiktoken_github");
    let Some(catalog) = github_import(&dir) else {
        return;
    };
    let (_, v, _) = check_json(&catalog, &[]);
    let profiles = v["profiles"].as_array().unwrap();
    // 22 toolsets alone, then all of them combined: every tool.
    assert_eq!(profiles.len(), 23);
    let all = profiles.last().unwrap();
    assert_eq!(all["tools"], json!(117));
    assert_eq!(all["name"].as_str().unwrap().split(',').count(), 22);
    hold_to_tiktoken(&catalog, "github", &dir);
}

// ---- host limits: each fails once and passes once ----

#[test]
fn a_host_limited_to_128_tools_refuses_129() {
    let root = scratch("cost_host_count");
    let many: Vec<Value> = (0..129).map(|i| tool(&format!("tool_{i:03}"))).collect();
    let dir = write_catalog(&root, "many", &many, json!({"hosts": ["vscode"]}));
    let (code, v, err) = check_json(&dir, &[]);
    assert_eq!(code, Some(1), "{err}");
    let errs = errors(&v);
    assert_eq!(errs.len(), 1, "{errs:?}");
    let e = &errs[0];
    assert_eq!(
        (e["host"].as_str(), e["limit"].as_str()),
        (Some("vscode"), Some("max-tools"))
    );
    assert_eq!(e["profiles"], json!(["all"]));
    let m = e["message"].as_str().unwrap();
    for part in [
        "`vscode`",
        "max-tools",
        "128",
        "profile `all` serves 129 tools",
        "`tool_",
    ] {
        assert!(m.contains(part), "{part}: {m}");
    }
    // The human output says the same on stderr.
    let o = run(&["check", "--catalog", path(&dir)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("profile `all` serves 129 tools"),
        "{}",
        stderr(&o)
    );

    let dir = write_catalog(&root, "enough", &many[..128], json!({"hosts": ["vscode"]}));
    let (code, v, err) = check_json(&dir, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(errors(&v).is_empty());
}

#[test]
fn a_name_over_64_only_with_claude_codes_prefix() {
    let root = scratch("cost_host_name");
    // 52 characters: within OpenAI's 64, over Claude Code's once `mcp__github-enterprise__`
    // (24) is put before it.
    let long = "list_repository_security_advisories_for_organization";
    assert_eq!(long.len(), 52);
    let matrix = json!({"server_name": "github-enterprise", "hosts": ["openai"]});
    let dir = write_catalog(&root, "ghe", &[tool(long), tool("get_me")], matrix);
    let (code, v, err) = check_json(&dir, &[]);
    assert_eq!(code, Some(0), "openai takes a 52-character name: {err}");
    assert_eq!(v["server_name"], json!("github-enterprise"));

    let (code, v, _) = check_json(&dir, &["claude-code"]);
    assert_eq!(code, Some(1));
    let errs = errors(&v);
    assert_eq!(errs.len(), 1, "{errs:?}");
    let e = &errs[0];
    assert_eq!(
        (e["host"].as_str(), e["limit"].as_str(), e["tool"].as_str()),
        (Some("claude-code"), Some("name-length"), Some(long))
    );
    let m = e["message"].as_str().unwrap();
    for part in [
        "76 characters",
        "mcp__github-enterprise__list_",
        "profile `all`",
        "64",
    ] {
        assert!(m.contains(part), "{part}: {m}");
    }
}

#[test]
fn a_dot_for_a_host_that_refuses_it() {
    let root = scratch("cost_host_chars");
    let dir = write_catalog(
        &root,
        "dotted",
        &[tool("admin.tools.list"), tool("get_me")],
        json!({"hosts": ["gemini", "vscode"]}),
    );
    // Gemini takes dots; VS Code remaps them.
    let (code, _, err) = check_json(&dir, &[]);
    assert_eq!(code, Some(0), "{err}");
    let (code, v, _) = check_json(&dir, &["copilot-cli"]);
    assert_eq!(code, Some(1));
    let errs = errors(&v);
    assert_eq!(errs.len(), 1, "{errs:?}");
    let e = &errs[0];
    assert_eq!(
        (e["host"].as_str(), e["limit"].as_str(), e["tool"].as_str()),
        (
            Some("copilot-cli"),
            Some("name-characters"),
            Some("admin.tools.list")
        )
    );
    let m = e["message"].as_str().unwrap();
    assert!(
        m.contains("holds `.`") && m.contains("profile `all`"),
        "{m}"
    );
}

#[test]
fn an_unknown_host_is_refused_with_its_place() {
    let root = scratch("cost_host_unknown");
    let dir = write_catalog(&root, "h", &[tool("get_me")], json!({"hosts": ["vs-code"]}));
    let o = run(&["check", "--catalog", path(&dir)]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("profiles.json") && err.contains("no host `vs-code`"),
        "{err}"
    );
    assert!(err.contains("vscode"), "did you mean: {err}");
    let dir = write_catalog(&root, "ok", &[tool("get_me")], json!({}));
    let o = run(&["check", "--catalog", path(&dir), "--host", "nope"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn explain_host_limits_prints_the_table_with_sources() {
    let o = run(&["explain", "host-limits"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for id in toolgate_schema::hosts::ids() {
        assert!(text.contains(&format!("\n{id} (")), "{id}");
    }
    assert!(text.contains("source: "));
    assert!(text.contains("mcp__{server}__"));
}

// ---- budgets ----

fn tatara_with(root: &Path, budgets: Value) -> PathBuf {
    let dir = root.join("tatara");
    common::copy_tree(&repo_root().join("schema/tatara"), &dir);
    let file = dir.join("profiles.json");
    let mut m: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    m["budgets"] = budgets;
    std::fs::write(&file, serde_json::to_string_pretty(&m).unwrap()).unwrap();
    dir
}

#[test]
fn a_profile_over_budget_fails_naming_the_figure_and_the_costliest_tools() {
    let root = scratch("cost_budget");
    let dir = tatara_with(
        &root,
        json!({"refine": {"max_tools": 15, "max_tokens": 1000}}),
    );
    let (code, v, err) = check_json(&dir, &[]);
    assert_eq!(code, Some(1), "{err}");
    let refine = v["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "refine")
        .unwrap()
        .clone();
    let tokens = refine["tokens"].as_u64().unwrap();
    assert!(tokens > 1000, "{tokens}");
    assert_eq!(refine["budget"]["max_tokens"], json!(1000));
    let errs = errors(&v);
    let e = errs
        .iter()
        .find(|e| e["limit"] == "max_tokens")
        .expect("the token budget is broken");
    let m = e["message"].as_str().unwrap();
    let top = refine["top"][0]["name"].as_str().unwrap();
    assert!(m.contains("profile `refine` is over its budget"), "{m}");
    assert!(m.contains(&toolgate_schema::cost::thousands(tokens)), "{m}");
    assert!(m.contains(&format!("`{top}`")), "{m}");
    // The tool budget holds (refine has fewer than 15 tools).
    assert!(refine["tools"].as_u64().unwrap() <= 15);
    assert!(!errs.iter().any(|e| e["limit"] == "max_tools"), "{errs:?}");

    let dir = tatara_with(
        &scratch("cost_budget_ok"),
        json!({"refine": {"max_tokens": tokens}}),
    );
    let (code, _, err) = check_json(&dir, &[]);
    assert_eq!(code, Some(0), "exactly at the budget passes: {err}");
}

#[test]
fn a_budget_of_an_unknown_profile_is_an_error_with_its_place() {
    let root = scratch("cost_budget_unknown");
    let dir = tatara_with(&root, json!({"refyne": {"max_tokens": 10}}));
    let o = run(&["check", "--catalog", path(&dir)]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("/budgets/refyne") && err.contains("`refine`"),
        "{err}"
    );
}

// ---- diff ----

#[test]
fn diff_reports_token_growth_and_bounds_it() {
    let root = scratch("cost_diff");
    let new = root.join("tatara");
    common::copy_tree(&repo_root().join("schema/tatara"), &new);
    // A longer description of one tool every profile sees.
    let (file, mut t) = std::fs::read_dir(new.join("tools"))
        .unwrap()
        .filter_map(|e| {
            let p = e.ok()?.path();
            let t: Value = serde_json::from_slice(&std::fs::read(&p).ok()?).ok()?;
            Some((p, t))
        })
        .find(|(_, t)| t["name"] == "mr_write")
        .expect("tatara has mr_write");
    let d = t["description"].as_str().unwrap().to_string();
    t["description"] = json!(format!(
        "{d} {}",
        "Say what the change does and why. ".repeat(30)
    ));
    std::fs::write(&file, serde_json::to_string_pretty(&t).unwrap()).unwrap();
    let old = repo_root().join("schema/tatara");
    let o = run(&["diff", path(&old), path(&new)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("refine: +"))
        .unwrap_or_else(|| panic!("no token line for refine: {text}"));
    assert!(line.contains(" tokens (+") && line.contains("%)"), "{line}");
    let o = run(&["diff", path(&old), path(&new), "--max-token-growth", "1"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--max-token-growth 1%: refine: +"),
        "{}",
        stderr(&o)
    );
    let o = run(&["diff", path(&old), path(&new), "--max-token-growth", "1000"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["diff", path(&old), path(&new), "--format", "json"]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let refine = v["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["profile"] == "refine")
        .unwrap();
    assert!(refine["new"].as_u64() > refine["old"].as_u64());
}

// ---- the wild surfaces against every host ----

/// The limits a surface breaks, computed here from names and counts alone: (host, limit).
fn expected_breaks(names: &[String]) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for h in toolgate_schema::hosts::HOSTS {
        if h.max_tools.is_some_and(|m| names.len() > m.value) {
            out.insert((h.id.to_string(), "max-tools".to_string()));
        }
        for n in names {
            if h.max_name
                .is_some_and(|m| h.full_name("wild", n).chars().count() > m.value)
            {
                out.insert((h.id.to_string(), "name-length".to_string()));
            }
            if h.chars.is_some_and(|c| c.value.refused(n).is_some()) {
                out.insert((h.id.to_string(), "name-characters".to_string()));
            }
        }
    }
    out
}

#[test]
fn wild_surfaces_against_every_host() {
    let Some(shared) = shared() else { return };
    let wild = shared.join("anchors/wild");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&wild)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".tools.json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 10, "the ten wild surfaces");
    let root = scratch("cost_wild_hosts");
    let hosts = toolgate_schema::hosts::ids();
    let mut report = String::new();
    for f in &files {
        let source: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        let tools = source["tools"].as_array().cloned().unwrap_or_default();
        let label = f
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".tools.json", "");
        // The server name `wild` for every surface: the prefix is the same length for all.
        let dir = write_catalog(
            &root,
            &label.replace('.', "-"),
            &tools,
            json!({"server_name": "wild"}),
        );
        let (code, v, err) = check_json(&dir, &hosts);
        assert_eq!(
            code,
            Some(if errors(&v).is_empty() { 0 } else { 1 }),
            "{label}: {err}"
        );
        // The limits of counts and names; what the hosts' stacks make of the schemas
        // (`kind: schema`) is tests/host_judges.rs's.
        let errs: Vec<Value> = errors(&v)
            .into_iter()
            .filter(|e| e["kind"] != "schema")
            .collect();
        let found: BTreeSet<(String, String)> = errs
            .iter()
            .map(|e| {
                (
                    e["host"].as_str().unwrap().to_string(),
                    e["limit"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let names: Vec<String> = tools
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect();
        assert_eq!(found, expected_breaks(&names), "{label}");
        let all = &v["profiles"][0];
        let broken: Vec<String> = found.iter().map(|(h, l)| format!("{h} {l}")).collect();
        report.push_str(&format!(
            "{label}: {} tools, {} tokens; breaks: {}\n",
            all["tools"],
            all["tokens"],
            if broken.is_empty() {
                "none".to_string()
            } else {
                broken.join(", ")
            }
        ));
    }
    eprint!("{report}");
}
