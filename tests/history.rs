//! `toolgate lock --history` and the lint with a history, end to end, against real published
//! versions of `@modelcontextprotocol/server-everything` (2025.12.18 and 2026.1.14, between
//! which it renamed most of its tools from camelCase to kebab-case and removed others),
//! served with their dependencies by a local npm registry this test runs (a few lines of
//! HTTP over what `.ci/run` downloads once with tests/history/fetch-registry.mjs into
//! `TOOLGATE_HISTORY_REGISTRY`). npm and npx are the real ones, pointed at it with
//! `NPM_CONFIG_REGISTRY`; the npm cache and toolgate's cache start cold. No live registry.
//!
//! Skips with a message when npm or the downloaded registry is missing, unless
//! `TOOLGATE_REQUIRE_E2E=1`.

mod common;
mod mcp_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mcp_support::skip;
use serde_json::Value;

/// The downloaded registry folder (packuments/, tarballs/), or `None` after the skip message.
fn registry_files() -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLGATE_HISTORY_REGISTRY")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::repo_root().join("target/e2e/history-registry"));
    let npm = Command::new("npm")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if npm
        && dir
            .join("packuments/%40modelcontextprotocol%2Fserver-everything.json")
            .is_file()
    {
        Some(dir)
    } else {
        skip(
            "npm or the local registry's files are missing (node tests/history/fetch-registry.mjs target/e2e/history-registry)",
        );
        None
    }
}

/// How the local registry misbehaves.
#[derive(Clone, Copy, Default)]
struct Faults {
    /// A version of server-everything added to its packument whose tarball is missing (a
    /// version that cannot start).
    broken: Option<&'static str>,
    /// What `npm view` asks refused: a registry whose listing cannot be read, while installs
    /// (`npx`) still work.
    refuse_listing: bool,
}

/// Serves `dir` as an npm registry on a free port, for the life of the test: `GET /NAME` is
/// the packument (its tarball URLs pointing here), `GET /-/tarballs/...` a tarball.
fn serve_registry(dir: PathBuf) -> String {
    serve_faulty(dir, Faults::default())
}

fn serve_faulty(dir: PathBuf, faults: Faults) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}/", listener.local_addr().expect("addr"));
    let shown = base.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (dir, base) = (dir.clone(), base.clone());
            std::thread::spawn(move || answer(stream, &dir, &base, faults));
        }
    });
    shown
}

fn answer(mut stream: std::net::TcpStream, dir: &Path, base: &str, faults: Faults) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut full = false;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).map_or(true, |n| n == 0) || h == "\r\n" {
            break;
        }
        let h = h.to_ascii_lowercase();
        // npm names its command in a header: `npm view` lists, `npx` (`exec`) installs.
        full |= h.starts_with("npm-command:") && h.contains("view");
    }
    if faults.refuse_listing && full && !line.contains("/-/tarballs/") {
        let _ = stream.write_all(
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/");
    let path = path
        .split('?')
        .next()
        .unwrap_or(path)
        .trim_start_matches('/');
    let (status, body, kind) = if let Some(rel) = path.strip_prefix("-/tarballs/") {
        match std::fs::read(
            dir.join("tarballs")
                .join(rel.replace("%2f", "/").replace("%2F", "/")),
        ) {
            Ok(b) => ("200 OK", b, "application/octet-stream"),
            Err(_) => ("404 Not Found", b"{}".to_vec(), "application/json"),
        }
    } else {
        let name = path.replace("%2f", "/").replace("%2F", "/");
        let file = dir.join("packuments").join(urlencode(&name) + ".json");
        match std::fs::read_to_string(file) {
            Ok(t) => (
                "200 OK",
                match faults.broken {
                    Some(v) if name.ends_with("/server-everything") => with_broken_version(&t, v),
                    _ => t,
                }
                .replace("TARBALLS/", &format!("{base}-/tarballs/"))
                .into_bytes(),
                "application/json",
            ),
            Err(_) => (
                "404 Not Found",
                b"{\"error\":\"not found\"}".to_vec(),
                "application/json",
            ),
        }
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
    let mut rest = Vec::new();
    let _ = reader.read_to_end(&mut rest);
}

/// The packument `text` with version `v` added: a copy of its newest version whose tarball
/// is not there.
fn with_broken_version(text: &str, v: &str) -> String {
    let mut doc: Value = serde_json::from_str(text).expect("packument");
    let mut m = doc["versions"]
        .as_object()
        .and_then(|o| o.values().next_back().cloned())
        .expect("a version");
    m["version"] = Value::String(v.into());
    m["dist"] = serde_json::json!({ "tarball": format!("TARBALLS/missing-{v}.tgz") });
    doc["versions"][v] = m;
    doc["time"][v] = Value::String("2026-01-01T00:00:00.000Z".into());
    doc.to_string()
}

/// `encodeURIComponent` of a package name, as fetch-registry.mjs names its files.
fn urlencode(name: &str) -> String {
    name.replace('@', "%40").replace('/', "%2F")
}

/// A scratch repository whose `.mcp.json` starts server-everything 2026.1.14 through npx,
/// with agent files written against 2025.12.18's names.
fn repository(name: &str) -> PathBuf {
    let dir = common::scratch(name);
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir)
        .status();
    assert!(git.is_ok_and(|s| s.success()), "git init");
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    };
    write(
        ".mcp.json",
        r#"{"mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything@2026.1.14"]}}}"#,
    );
    write(
        "skills/demo/SKILL.md",
        "---\nname: demo\ndescription: adds numbers\nallowed-tools: [getTinyImage, mcp__everything__echo]\n---\nCall `add(a=1, b=2)`, then `sampleLLM(prompt=\"hi\", maxTokens=10)`.\n",
    );
    write(
        ".claude/settings.json",
        "{\"permissions\": {\"allow\": [\"structuredContent\", \"mcp__everything__annotatedMessage\"]}}\n",
    );
    dir
}

fn toolgate(dir: &Path, registry: &str, args: &[&str]) -> Output {
    common::toolgate()
        .args(args)
        .current_dir(dir)
        .env("NPM_CONFIG_REGISTRY", registry)
        // One npm cache for the tests (npm's own: content-addressed, safe to share); toolgate's
        // cache is each test's own, and starts cold.
        .env(
            "NPM_CONFIG_CACHE",
            common::repo_root().join("target/test-scratch/history-npm-cache"),
        )
        .env("NPM_CONFIG_UPDATE_NOTIFIER", "false")
        .env("TOOLGATE_CACHE_DIR", dir.join(".toolgate-cache"))
        .output()
        .expect("toolgate runs")
}

#[test]
fn lock_history_from_a_local_registry_names_renames_and_removals() {
    let Some(files) = registry_files() else {
        return;
    };
    let registry = serve_registry(files);
    let dir = repository("history-e2e");
    let o = toolgate(&dir, &registry, &["lock", "--history", "--timeout", "120"]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let history: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("toolgate.history.json")).expect("history written"),
    )
    .expect("JSON");
    let s = &history["servers"]["everything"];
    assert_eq!(
        s["package"]["name"],
        "@modelcontextprotocol/server-everything"
    );
    let versions: Vec<&str> = s["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["version"].as_str().unwrap())
        .collect();
    assert_eq!(versions, ["2025.12.18", "2026.1.14"]);
    let step = &s["changes"][1];
    assert_eq!(step["version"], "2026.1.14");
    let renamed: Vec<(&str, &str)> = step["renamed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["old"].as_str().unwrap(), r["new"].as_str().unwrap()))
        .collect();
    for pair in [
        ("add", "get-sum"),
        ("getTinyImage", "get-tiny-image"),
        ("structuredContent", "get-structured-content"),
        ("annotatedMessage", "get-annotated-message"),
    ] {
        assert!(renamed.contains(&pair), "{pair:?} not in {renamed:?}");
    }
    assert!(
        step["removed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "sampleLLM"),
        "{step}"
    );

    // The lint: an unprefixed former name in a call, a front-matter list and a settings list.
    let o = toolgate(&dir, &registry, &["lint", ".", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let findings: Value = serde_json::from_str(&common::stdout(&o)).expect("JSON");
    let by_tool = |t: &str| {
        findings
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["tool"] == t)
            .cloned()
            .unwrap_or_else(|| panic!("no finding for {t}: {findings:#}"))
    };
    for (old, new, file) in [
        ("add", "get-sum", "skills/demo/SKILL.md"),
        ("getTinyImage", "get-tiny-image", "skills/demo/SKILL.md"),
        (
            "structuredContent",
            "get-structured-content",
            ".claude/settings.json",
        ),
    ] {
        let f = by_tool(old);
        assert_eq!(f["rule"], "renamed-tool", "{f}");
        assert_eq!(f["suggestion"], new, "{f}");
        assert_eq!(f["path"], file, "{f}");
        assert!(
            f["message"].as_str().unwrap().ends_with(&format!(
                "renamed to `{new}` in @modelcontextprotocol/server-everything 2026.1.14"
            )),
            "{f}"
        );
    }
    let removed = by_tool("sampleLLM");
    assert_eq!(removed["rule"], "removed-tool");
    assert!(
        removed["message"]
            .as_str()
            .unwrap()
            .contains("removed in @modelcontextprotocol/server-everything 2026.1.14"),
        "{removed}"
    );

    // --fix repairs the renames and leaves the removal.
    let o = toolgate(&dir, &registry, &["lint", ".", "--fix"]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stdout(&o));
    let skill = std::fs::read_to_string(dir.join("skills/demo/SKILL.md")).unwrap();
    assert!(
        skill.contains("`get-sum(a=1, b=2)`") && skill.contains("[get-tiny-image,"),
        "{skill}"
    );
    assert!(skill.contains("sampleLLM("), "{skill}");
    let settings = std::fs::read_to_string(dir.join(".claude/settings.json")).unwrap();
    assert!(
        settings.contains("\"get-structured-content\"")
            && settings.contains("mcp__everything__get-annotated-message"),
        "{settings}"
    );

    // The timeline.
    let o = toolgate(&dir, &registry, &["history", "everything"]);
    let text = common::stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(
        text.contains("2026.1.14 (")
            && text.contains("add -> get-sum")
            && text.contains("removed: "),
        "{text}"
    );
    let o = toolgate(
        &dir,
        &registry,
        &["history", "everything", "--format", "markdown"],
    );
    assert!(
        common::stdout(&o).contains("| 2026.1.14 |"),
        "{}",
        common::stdout(&o)
    );

    // Warm: the captures come from toolgate's cache.
    let start = std::time::Instant::now();
    let o = toolgate(&dir, &registry, &["lock", "--history", "--timeout", "120"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    eprintln!(
        "lock --history, warm: {:.1}s",
        start.elapsed().as_secs_f64()
    );
}

/// A version that cannot be installed is recorded with its error and stepped over; a launch
/// naming no package (toolgate's own stdio server) is said once; the lock is written.
#[test]
fn a_broken_version_and_a_launch_naming_no_package_are_not_fatal() {
    let Some(files) = registry_files() else {
        return;
    };
    let registry = serve_faulty(
        files,
        Faults {
            broken: Some("2026.1.0"),
            refuse_listing: false,
        },
    );
    let dir = repository("history-broken");
    let me = env!("CARGO_BIN_EXE_toolgate").replace('\\', "/");
    std::fs::write(
        dir.join(".mcp.json"),
        format!(r#"{{"mcpServers": {{"everything": {{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything@2026.1.14"]}}, "tatara": {{"command": "{me}", "args": ["serve", "--catalog", "tatara"]}}}}}}"#),
    )
    .unwrap();
    let o = toolgate(&dir, &registry, &["lock", "--history", "--timeout", "120"]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("warning: history skipped").count(), 1, "{err}");
    assert!(
        err.contains("`tatara`: the launch names no npm or PyPI package"),
        "{err}"
    );
    let history: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("toolgate.history.json")).unwrap())
            .unwrap();
    let s = &history["servers"]["everything"];
    let broken = s["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["version"] == "2026.1.0")
        .unwrap_or_else(|| panic!("the broken version is not listed: {s:#}\n{err}"));
    assert!(
        broken["error"].is_string() && broken["tools"].is_null(),
        "{broken}"
    );
    let last = s["changes"].as_array().unwrap().last().unwrap();
    assert_eq!(last["version"], "2026.1.14");
    assert!(
        last["renamed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["old"] == "add" && r["new"] == "get-sum"),
        "{last}"
    );
    assert!(history["servers"].get("tatara").is_none());
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("toolgate.lock")).unwrap()).unwrap();
    assert!(lock["servers"]["tatara"].is_object() && lock["servers"]["everything"].is_object());
}

/// A registry whose listing cannot be read: the history is skipped with one warning and the
/// lock is still written.
#[test]
fn a_registry_that_cannot_be_read_skips_the_history_with_one_warning() {
    let Some(files) = registry_files() else {
        return;
    };
    let registry = serve_faulty(
        files,
        Faults {
            broken: None,
            refuse_listing: true,
        },
    );
    let dir = repository("history-unreadable");
    let o = toolgate(&dir, &registry, &["lock", "--history", "--timeout", "120"]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(err.matches("warning: history skipped").count(), 1, "{err}");
    assert!(err.contains("the registry could not be read"), "{err}");
    assert!(dir.join("toolgate.lock").is_file());
    let history: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("toolgate.history.json")).unwrap())
            .unwrap();
    assert!(
        history["servers"].as_object().unwrap().is_empty(),
        "{history}"
    );
}
