//! The host schema models (`toolgate check --host`, `tools-list --host`, `serve --host`) held
//! to the client stacks' own code, on every tool of `../shared`'s real captures
//! (`anchors/wild/*.tools.json` and github-mcp-server's snapshots):
//!
//! - the judges are `tests/hosts/judge.py` over PyPI `openai-agents` 0.24.0, `google-genai`
//!   3.6.1 and `anthropic` 2.16.0 (`tests/hosts/requirements.txt`, installed by `.ci/run`
//!   into a venv: `TOOLGATE_HOST_JUDGES_PYTHON`): every tool `check --host ID` calls clean
//!   is accepted by that stack without a keyword dropped, at least 99% of the tools it
//!   rejects are reported, every keyword it drops is reported dropped, at most 5% of the
//!   tools it accepts get an error, and `tools-list --host ID` is accepted for at least 95%
//!   of the tools it rejects as authored (at most a tenth of those `inexpressible`);
//! - the MCP TypeScript SDK's `Client.listTools()` (`@modelcontextprotocol/sdk`, the copy
//!   `tests/lock/` pins: `TOOLGATE_LOCK_NPM`) accepts what `serve --host ID` lists;
//! - a call is accepted by serve's validation with `--host ID` exactly when it is without,
//!   for calls made from every real tool and for every case of the JSON-Schema-Test-Suite
//!   (draft 2020-12, the files toolgate's subset covers) as a tool's argument, but for the
//!   calls that hold one of openai-strict's encodings (a `null` at an optional property
//!   that does not accept `null`, a string of JSON where a free-form object is authored):
//!   those are read as the call they encode (docs/hosts.md), and counted.
//!
//! Each test skips with a message when what it needs is missing, and fails instead under
//! `TOOLGATE_REQUIRE_E2E=1`.

mod common;
mod mcp_support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{run, scratch, shared, stdout};
use serde_json::{Value, json};

const HOSTS: [&str; 3] = ["openai-strict", "gemini-schema", "anthropic-strict"];

/// The python with the three stacks, or `None` (skipped or failed) without it.
fn judges_python() -> Option<PathBuf> {
    let Some(python) = std::env::var_os("TOOLGATE_HOST_JUDGES_PYTHON").map(PathBuf::from) else {
        mcp_support::skip(
            "TOOLGATE_HOST_JUDGES_PYTHON is not set (a venv with tests/hosts/requirements.txt)",
        );
        return None;
    };
    let ok = Command::new(&python)
        .args(["-c", "import agents, google.genai, anthropic"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        mcp_support::skip(&format!(
            "{} cannot import agents, google.genai, anthropic",
            python.display()
        ));
        return None;
    }
    Some(python)
}

/// The captures: (server, its tools), github-mcp-server's snapshots last.
fn captures(shared: &Path) -> Vec<(String, Vec<Value>)> {
    let wild = shared.join("anchors/wild");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&wild)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".tools.json"))
        .collect();
    files.sort();
    files.push(wild.join("github-mcp-server/tools.json"));
    files
        .iter()
        .map(|f| {
            let name = f.to_string_lossy();
            let server = if name.contains("github-mcp-server") {
                "github-mcp-server".to_string()
            } else {
                f.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .trim_end_matches(".tools.json")
                    .to_string()
            };
            let v: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
            (server, v["tools"].as_array().cloned().unwrap_or_default())
        })
        .collect()
}

/// A catalog folder `root/name` serving `tools` to its one profile `all`.
fn write_catalog(root: &Path, name: &str, tools: &[Value]) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(dir.join("tools")).unwrap();
    let matrix = json!({
        "catalog": name,
        "selector": {"env": "HOST_JUDGES_PROFILE"},
        "profiles": {"all": "Every tool."},
        "groups": {"all": {"description": "Every tool."}},
        "grants": {"all": ["all"]}
    });
    std::fs::write(dir.join("profiles.json"), matrix.to_string()).unwrap();
    for (i, t) in tools.iter().enumerate() {
        let mut t = t.clone();
        t.as_object_mut()
            .unwrap()
            .insert("group".into(), json!("all"));
        std::fs::write(
            dir.join("tools").join(format!("{i:04}.json")),
            t.to_string(),
        )
        .unwrap();
    }
    dir
}

/// The judges' verdicts on `tools` (each `(key, tool)`), for `hosts`: host -> key ->
/// `{"accepted", "reason", "dropped"}`. One run of the judges for them all.
fn judge(python: &Path, tools: &[(String, Value)], hosts: &[&str]) -> Value {
    let input: Vec<Value> = tools
        .iter()
        .map(|(key, t)| json!({"name": key, "inputSchema": t["inputSchema"]}))
        .collect();
    let script = common::repo_root().join("tests/hosts/judge.py");
    let mut child = Command::new(python)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the judges start");
    let body = json!({"tools": input, "hosts": hosts}).to_string();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), body.as_bytes()).unwrap();
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the judges failed");
    serde_json::from_slice(&out.stdout).expect("the judges print JSON")
}

/// What `check --host` says per tool: (errors, dropped keywords).
#[derive(Default)]
struct Said {
    errors: BTreeMap<String, Vec<String>>,
    dropped: BTreeMap<String, BTreeSet<String>>,
}

/// `check --host` of the three hosts at once, per host.
fn check_hosts(dir: &Path) -> BTreeMap<&'static str, Said> {
    let mut args = vec![
        "check".to_string(),
        "--catalog".into(),
        dir.to_string_lossy().into(),
        "--format".into(),
        "json".into(),
    ];
    for h in HOSTS {
        args.extend(["--host".to_string(), h.to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let v: Value = serde_json::from_str(&stdout(&run(&args))).expect("check --format json");
    let mut said: BTreeMap<&'static str, Said> =
        HOSTS.iter().map(|h| (*h, Said::default())).collect();
    let host_of = |f: &Value| HOSTS.iter().copied().find(|h| f["host"] == *h);
    for e in v["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["kind"] == "schema")
    {
        for k in ["host", "tool", "path", "keyword", "effect"] {
            assert!(e.get(k).is_some(), "an error without `{k}`: {e}");
        }
        let s = said.get_mut(host_of(e).expect("a host of --host")).unwrap();
        let tool = e["tool"].as_str().unwrap().to_string();
        s.errors
            .entry(tool)
            .or_default()
            .push(format!("{} {} {}", e["effect"], e["path"], e["keyword"]));
    }
    for w in v["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|w| w["kind"] == "schema")
    {
        assert_eq!(w["effect"], "dropped", "{w}");
        let s = said.get_mut(host_of(w).expect("a host of --host")).unwrap();
        let tool = w["tool"].as_str().unwrap().to_string();
        s.dropped
            .entry(tool)
            .or_default()
            .insert(w["keyword"].as_str().unwrap().to_string());
    }
    said
}

/// One host's figures over every capture.
#[derive(Default, Debug)]
struct Tally {
    tools: usize,
    judge_rejected: usize,
    reported: usize,
    judge_accepted: usize,
    false_errors: usize,
    clean: usize,
    drops: usize,
    missed_drops: Vec<String>,
    false_clean: Vec<String>,
    missed_rejections: Vec<String>,
    adapted_accepted: usize,
    inexpressible: usize,
    adapted_lost: Vec<String>,
}

fn tally_tool(t: &mut Tally, name: &str, verdict: &Value, said: &Said) {
    t.tools += 1;
    let errors = said.errors.get(name).map_or(0, Vec::len);
    let dropped = said.dropped.get(name).cloned().unwrap_or_default();
    let judge_dropped: BTreeSet<String> = verdict["dropped"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|k| k.as_str().map(str::to_string))
        .collect();
    if verdict["accepted"] == true {
        t.judge_accepted += 1;
        t.false_errors += usize::from(errors > 0);
        t.drops += judge_dropped.len();
        let missed: Vec<&String> = judge_dropped.difference(&dropped).collect();
        if !missed.is_empty() {
            t.missed_drops.push(format!("{name}: {missed:?}"));
        }
    } else {
        t.judge_rejected += 1;
        if errors > 0 {
            t.reported += 1;
        } else {
            t.missed_rejections
                .push(format!("{name}: {}", verdict["reason"]));
        }
    }
    if errors == 0 && dropped.is_empty() {
        t.clean += 1;
        if verdict["accepted"] != true || !judge_dropped.is_empty() {
            t.false_clean.push(format!("{name}: {verdict}"));
        }
    }
}

/// `tools-list --host` of a catalog: its tools, keyed `server/name`.
fn adapted(dir: &Path, server: &str, host: &str) -> Vec<(String, Value)> {
    let out = run(&[
        "tools-list",
        "--catalog",
        &dir.to_string_lossy(),
        "--profile",
        "all",
        "--host",
        host,
    ]);
    let served: Value = serde_json::from_str(&stdout(&out)).expect("tools-list --host prints JSON");
    served["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                format!("{server}/{}", t["name"].as_str().unwrap_or_default()),
                t.clone(),
            )
        })
        .collect()
}

/// The tools the judge rejected as authored, judged again as `tools-list --host` serves them.
fn tally_adapted(t: &mut Tally, host: &str, verdicts: &Value, again: &Value) {
    for (key, v) in verdicts[host].as_object().unwrap() {
        if v["accepted"] == true {
            continue;
        }
        match again[host].get(key) {
            None => t.inexpressible += 1,
            Some(a) if a["accepted"] == true => t.adapted_accepted += 1,
            Some(a) => t.adapted_lost.push(format!("{key}: {}", a["reason"])),
        }
    }
}

fn percent(n: usize, of: usize) -> f64 {
    if of == 0 {
        100.0
    } else {
        n as f64 * 100.0 / of as f64
    }
}

#[test]
fn check_host_agrees_with_each_stacks_own_code() {
    let Some(shared) = shared() else { return };
    let Some(python) = judges_python() else {
        return;
    };
    let root = scratch("host_judges");
    let mut authored = Vec::new();
    let mut served: BTreeMap<&str, Vec<(String, Value)>> = BTreeMap::new();
    let mut said: BTreeMap<&str, Said> = BTreeMap::new();
    for (server, tools) in captures(&shared) {
        let dir = write_catalog(&root, &server, &tools);
        authored.extend(tools.iter().map(|t| {
            (
                format!("{server}/{}", t["name"].as_str().unwrap_or_default()),
                t.clone(),
            )
        }));
        for host in HOSTS {
            served
                .entry(host)
                .or_default()
                .extend(adapted(&dir, &server, host));
        }
        for (host, s) in check_hosts(&dir) {
            let all = said.entry(host).or_default();
            for (tool, e) in s.errors {
                all.errors.insert(format!("{server}/{tool}"), e);
            }
            for (tool, d) in s.dropped {
                all.dropped.insert(format!("{server}/{tool}"), d);
            }
        }
    }
    let verdicts = judge(&python, &authored, &HOSTS);
    let mut failures = Vec::new();
    for host in HOSTS {
        let again = judge(&python, &served[host], &[host]);
        let mut t = Tally::default();
        for (key, v) in verdicts[host].as_object().unwrap() {
            tally_tool(&mut t, key, v, &said[host]);
        }
        tally_adapted(&mut t, host, &verdicts, &again);
        report(host, &t);
        failures.extend(thresholds(host, &t));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn report(host: &str, t: &Tally) {
    eprintln!(
        "{host}: {} tools; judge rejects {} (check --host reports {}, {:.1}%), accepts {} ({} of them get an error, {:.1}%); {} keyword drops by the judge, {} missed; {} tools called clean, {} of them wrongly; tools-list --host: {}/{} rejected tools accepted ({:.1}%), {} inexpressible",
        t.tools,
        t.judge_rejected,
        t.reported,
        percent(t.reported, t.judge_rejected),
        t.judge_accepted,
        t.false_errors,
        percent(t.false_errors, t.judge_accepted),
        t.drops,
        t.missed_drops.len(),
        t.clean,
        t.false_clean.len(),
        t.adapted_accepted,
        t.judge_rejected,
        percent(t.adapted_accepted, t.judge_rejected),
        t.inexpressible,
    );
    for (label, list) in [
        ("MISSED REJECTION", &t.missed_rejections),
        ("MISSED DROP", &t.missed_drops),
        ("FALSE CLEAN", &t.false_clean),
        ("STILL REJECTED AFTER tools-list --host", &t.adapted_lost),
    ] {
        for l in list {
            eprintln!("  {host}: {label}: {l}");
        }
    }
}

fn thresholds(host: &str, t: &Tally) -> Vec<String> {
    let mut out = Vec::new();
    if !t.false_clean.is_empty() {
        out.push(format!(
            "{host}: {} tools called clean that the judge rejects or strips",
            t.false_clean.len()
        ));
    }
    if !t.missed_drops.is_empty() {
        out.push(format!(
            "{host}: {} tools with a dropped keyword not reported",
            t.missed_drops.len()
        ));
    }
    if percent(t.reported, t.judge_rejected) < 99.0 {
        out.push(format!(
            "{host}: {} of {} rejected tools reported",
            t.reported, t.judge_rejected
        ));
    }
    if percent(t.false_errors, t.judge_accepted) > 5.0 {
        out.push(format!(
            "{host}: {} of {} accepted tools get an error",
            t.false_errors, t.judge_accepted
        ));
    }
    if percent(t.adapted_accepted, t.judge_rejected) < 95.0 {
        out.push(format!(
            "{host}: tools-list --host accepted for {} of {} rejected tools",
            t.adapted_accepted, t.judge_rejected
        ));
    }
    if t.inexpressible * 10 > t.judge_rejected {
        out.push(format!(
            "{host}: {} of {} rejected tools inexpressible",
            t.inexpressible, t.judge_rejected
        ));
    }
    out
}

#[test]
fn an_unknown_host_is_exit_2_naming_the_ids() {
    for args in [
        &[
            "check",
            "--catalog",
            "schema/tatara",
            "--host",
            "opneai-strict",
        ][..],
        &[
            "tools-list",
            "--catalog",
            "schema/tatara",
            "--profile",
            "review",
            "--host",
            "opneai-strict",
        ][..],
        &[
            "serve",
            "--catalog",
            "schema/tatara",
            "--profile",
            "review",
            "--host",
            "opneai-strict",
        ][..],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = common::stderr(&out);
        for id in HOSTS {
            assert!(err.contains(id), "{args:?}: {err}");
        }
    }
}

/// The SDK's folder: `TOOLGATE_LOCK_NPM`'s copy (tests/lock/ pins it).
fn typescript_sdk() -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLGATE_LOCK_NPM")
        .map(|d| PathBuf::from(d).join("node_modules/@modelcontextprotocol/sdk"))
        .filter(|d| d.join("dist/esm/client/index.js").is_file());
    if dir.is_none() {
        mcp_support::skip(
            "TOOLGATE_LOCK_NPM has no @modelcontextprotocol/sdk (tests/lock/ installs it)",
        );
    }
    dir
}

/// `Client.listTools()` of `serve --catalog DIR --profile all ARGS...`: the tools, or the
/// failure.
fn sdk_list(sdk: &Path, dir: &str, extra: &[&str]) -> Result<Value, String> {
    let script = common::repo_root().join("tests/hosts/list_tools.mjs");
    let out = Command::new("node")
        .arg(&script)
        .arg(sdk)
        .arg(env!("CARGO_BIN_EXE_toolgate"))
        .args(["serve", "--catalog", dir, "--profile", "all"])
        .args(extra)
        .output()
        .expect("node runs");
    if !out.status.success() {
        return Err(common::stderr(&out));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())
}

#[test]
fn the_typescript_sdk_lists_what_serve_host_serves() {
    let Some(shared) = shared() else { return };
    let Some(sdk) = typescript_sdk() else { return };
    let root = scratch("host_judges_sdk");
    let mut listed = 0;
    for (server, tools) in captures(&shared) {
        let dir = write_catalog(&root, &server, &tools);
        let dir = dir.to_string_lossy().to_string();
        // A surface serve does not serve as authored (a tool that requires tasks) is not
        // served with a host either.
        if let Err(e) = sdk_list(&sdk, &dir, &[]) {
            eprintln!(
                "{server}: not served without --host either, left out: {}",
                e.lines().next().unwrap_or("")
            );
            continue;
        }
        for host in HOSTS {
            let expected: Value = serde_json::from_str(&stdout(&run(&[
                "tools-list",
                "--catalog",
                &dir,
                "--profile",
                "all",
                "--host",
                host,
            ])))
            .unwrap();
            let got = sdk_list(&sdk, &dir, &["--host", host])
                .unwrap_or_else(|e| panic!("{server} --host {host}: {e}"));
            let names = |v: &Value| -> Vec<String> {
                v["tools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t["name"].to_string())
                    .collect()
            };
            assert_eq!(names(&got), names(&expected), "{server} --host {host}");
            for (g, e) in got["tools"]
                .as_array()
                .unwrap()
                .iter()
                .zip(expected["tools"].as_array().unwrap())
            {
                assert_eq!(
                    g["inputSchema"], e["inputSchema"],
                    "{server} --host {host}: {}",
                    g["name"]
                );
            }
            listed += got["tools"].as_array().unwrap().len();
        }
    }
    assert!(listed > 0, "no surface was listed");
    eprintln!("the TypeScript SDK's listTools() accepted {listed} tools served with --host");
}

#[path = "host_judges/equivalence.rs"]
mod equivalence;

/// The models against the stacks on schemas no server wrote: every JSON-Schema-Test-Suite
/// (draft 2020-12) schema as a tool's argument, judged by the library (`stacks::judge`), the
/// catalog loader not asked. The same figures as for the captures, the same bars.
#[test]
fn the_models_agree_with_the_stacks_on_the_test_suite_schemas() {
    let Some(shared) = shared() else { return };
    let Some(python) = judges_python() else {
        return;
    };
    let tools: Vec<(String, Value)> = equivalence::suite_tools(&shared)
        .into_iter()
        .map(|t| (t["name"].as_str().unwrap_or_default().to_string(), t))
        .collect();
    let verdicts = judge(&python, &tools, &HOSTS);
    let mut failures = Vec::new();
    for host in HOSTS {
        let stack = toolgate_schema::stacks::Stack::of(host).unwrap();
        let mut said = Said::default();
        let mut served = Vec::new();
        for (key, t) in &tools {
            for f in toolgate_schema::stacks::judge(stack, &t["inputSchema"]) {
                match f.effect {
                    toolgate_schema::stacks::Effect::Dropped => {
                        said.dropped
                            .entry(key.clone())
                            .or_default()
                            .insert(f.keyword);
                    }
                    _ => said.errors.entry(key.clone()).or_default().push(f.reason),
                }
            }
            let a = toolgate_schema::stacks::adapt(stack, &t["inputSchema"]);
            if a.inexpressible.is_none() {
                served.push((key.clone(), json!({"inputSchema": a.schema})));
            }
        }
        let again = judge(&python, &served, &[host]);
        let mut t = Tally::default();
        for (key, v) in verdicts[host].as_object().unwrap() {
            tally_tool(&mut t, key, v, &said);
        }
        tally_adapted(&mut t, host, &verdicts, &again);
        report(&format!("{host} (suite schemas)"), &t);
        // The bars of rejections: what the models miss of these shapes (a one-entry `allOf`
        // beside the same keyword, a `$ref` to a `$ref`) is listed above and in
        // docs/hosts.md, and `tools-list --host` is held to its bar on real tools only.
        if percent(t.reported, t.judge_rejected) < 99.0 {
            failures.push(format!(
                "{host}: {} of {} rejected suite schemas reported",
                t.reported, t.judge_rejected
            ));
        }
        if percent(t.false_errors, t.judge_accepted) > 5.0 {
            failures.push(format!(
                "{host}: {} of {} accepted suite schemas get an error",
                t.false_errors, t.judge_accepted
            ));
        }
        if t.false_clean.len() * 20 > t.clean {
            failures.push(format!(
                "{host}: {} of {} suite schemas called clean wrongly",
                t.false_clean.len(),
                t.clean
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
