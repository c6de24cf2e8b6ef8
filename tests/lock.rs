//! `toolgate servers`, `toolgate lock` and `toolgate lint` with no toolgate.toml, against real
//! third-party servers: PyPI `mcp-server-time` (tests/mcp/requirements.txt, in the venv
//! `TOOLGATE_PYTHON` names) and, from npm, `@modelcontextprotocol/server-memory`,
//! `@modelcontextprotocol/server-everything` and `@playwright/mcp` (tests/lock/package.json,
//! which `.ci/run` installs with `--ignore-scripts` under target/e2e/lock-npm: Playwright's
//! `tools/list` needs no browser, and its tools follow `--caps`).
//!
//! The fixture repository (tests/lock/fixture) declares them in `.mcp.json` and
//! `.vscode/mcp.json` and calls them from AGENTS.md and a VS Code agent file; each test copies
//! it into a scratch git work tree with the npm packages linked in as `node_modules`.
//!
//! The end-to-end tests skip with a message when node or the packages are missing, unless
//! `TOOLGATE_REQUIRE_E2E=1`. The others need nothing but `sh` and `sleep`.

mod common;
mod mcp_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::{all_text, everything};
use mcp_support::{python_importing, skip};
use serde_json::Value;

const SECRET_INPUT: &str = "input-secret-7f3a9c";
const SECRET_ENV: &str = "env-secret-41d2e8";

/// The npm packages' `node_modules`; `None` (after the skip message) without them.
fn node_modules() -> Option<PathBuf> {
    mcp_support::lock_npm(&[
        "@modelcontextprotocol/server-memory",
        "@modelcontextprotocol/server-everything",
        "@playwright/mcp",
    ])
}

/// A scratch git work tree holding the fixture repository.
fn fixture(name: &str, node_modules: Option<&Path>) -> PathBuf {
    let dir = common::scratch(name);
    common::copy_tree(&common::repo_root().join("tests/lock/fixture"), &dir);
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir)
        .status()
        .expect("git runs");
    assert!(git.success());
    if let Some(nm) = node_modules {
        std::os::unix::fs::symlink(nm, dir.join("node_modules")).expect("symlink node_modules");
    }
    dir
}

/// A scratch git work tree holding only `.mcp.json` with `text`.
fn repo_with(name: &str, file: &str, text: &str) -> PathBuf {
    let dir = common::scratch(name);
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir)
        .status()
        .expect("git runs");
    assert!(git.success());
    let path = dir.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    dir
}

fn toolgate_in(dir: &Path, args: &[&str], python: Option<&Path>) -> Output {
    let mut cmd = common::toolgate();
    cmd.current_dir(dir)
        .args(args)
        .env("TOOLGATE_TEST_TOKEN", SECRET_ENV);
    if let Some(p) = python {
        cmd.env("TOOLGATE_TEST_PYTHON", p);
    }
    cmd.output().expect("toolgate runs")
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

#[test]
fn servers_lists_every_host_file_with_its_prefixes() {
    let dir = fixture("lock-servers", None);
    let o = toolgate_in(&dir, &["servers"], None);
    assert_eq!(code(&o), 0, "{}", everything(&o));
    let out = common::stdout(&o);
    assert!(
        out.contains(
            "memory\n  declared:  .mcp.json (mcpServers.memory), .vscode/mcp.json (servers.memory)"
        ),
        "{out}"
    );
    assert!(
        out.contains("  prefixes:  mcp__memory__ memory/ mcp_memory_\n"),
        "{out}"
    );
    assert!(
        out.contains("everything\n  declared:  .vscode/mcp.json (servers.everything)"),
        "{out}"
    );
    assert!(
        out.contains("  prefixes:  everything/ mcp_everything_\n"),
        "{out}"
    );
    // Values as written: the input is not asked for, nothing is expanded.
    assert!(
        out.contains("${workspaceFolder}/node_modules/@modelcontextprotocol/server-everything"),
        "{out}"
    );
    let o = toolgate_in(&dir, &["servers", "--format", "json"], None);
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["everything", "memory", "playwright", "time"]);
    assert_eq!(
        v[0]["env"],
        serde_json::json!(["EVERYTHING_API_KEY", "EVERYTHING_TOKEN"])
    );
    // Deterministic: the same bytes twice.
    assert_eq!(
        toolgate_in(&dir, &["servers", "--format", "json"], None).stdout,
        o.stdout
    );
}

#[test]
fn a_plugin_anywhere_in_the_tree_is_exposed_under_its_name() {
    let dir = repo_with(
        "lock-plugin",
        "plugins/deploy/.claude-plugin/plugin.json",
        r#"{"name": "deploy-tools", "version": "1.0.0"}"#,
    );
    std::fs::write(
        dir.join("plugins/deploy/.mcp.json"),
        r#"{"mcpServers": {"api": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/api", "args": ["--port", "${PORT:-8080}"]}}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("other/.claude-plugin")).unwrap();
    std::fs::write(
        dir.join("other/.claude-plugin/plugin.json"),
        r#"{"name": "inline", "mcpServers": {"db": {"type": "http", "url": "https://db.example/mcp", "headers": {"Authorization": "Bearer ${DB_TOKEN}"}}}}"#,
    )
    .unwrap();
    let o = toolgate_in(&dir, &["servers"], None);
    assert_eq!(code(&o), 0, "{}", everything(&o));
    let out = common::stdout(&o);
    assert!(
        out.contains(
            "plugin_deploy-tools_api\n  declared:  plugins/deploy/.mcp.json (mcpServers.api)"
        ),
        "{out}"
    );
    assert!(
        out.contains("  prefixes:  mcp__plugin_deploy-tools_api__\n"),
        "{out}"
    );
    assert!(out.contains("plugin_inline_db\n  declared:  other/.claude-plugin/plugin.json (mcpServers.db)\n  transport: http: https://db.example/mcp"), "{out}");
}

#[test]
fn bad_host_configs_name_the_file_and_key() {
    let cases: &[(&str, &str, &str)] = &[
        (".mcp.json", "{\"mcpServers\": {\"a\": ", ".mcp.json:1:"),
        (
            ".mcp.json",
            r#"{"mcpServers": {"a": {"type": "websocket", "url": "ws://x"}}}"#,
            ".mcp.json: mcpServers.a: unknown `type` `websocket`",
        ),
        (
            ".cursor/mcp.json",
            r#"{"mcpServers": {"a": {"env": {}}}}"#,
            ".cursor/mcp.json: mcpServers.a: has neither `command` nor `url`",
        ),
        (
            ".vscode/mcp.json",
            r#"{"servers": {"a": {"type": "stdio", "command": ["x"]}}}"#,
            ".vscode/mcp.json: servers.a: `command` is not a string",
        ),
    ];
    for (i, (file, text, expected)) in cases.iter().enumerate() {
        let dir = repo_with(&format!("lock-bad-{i}"), file, text);
        for args in [&["servers"][..], &["lock"], &["lint"]] {
            let o = toolgate_in(&dir, args, None);
            assert_eq!(code(&o), 2, "{args:?} {}", everything(&o));
            assert!(
                common::stderr(&o).contains(expected),
                "{args:?}: {}",
                everything(&o)
            );
            assert!(!dir.join("toolgate.lock").exists());
        }
    }
    // One name, two definitions.
    let dir = repo_with(
        "lock-bad-two",
        ".mcp.json",
        r#"{"mcpServers": {"gh": {"command": "a"}}}"#,
    );
    std::fs::create_dir_all(dir.join(".cursor")).unwrap();
    std::fs::write(
        dir.join(".cursor/mcp.json"),
        r#"{"mcpServers": {"gh": {"command": "b"}}}"#,
    )
    .unwrap();
    let o = toolgate_in(&dir, &["servers"], None);
    assert_eq!(code(&o), 2);
    assert!(common::stderr(&o).contains(".cursor/mcp.json: mcpServers.gh: the server `gh` is defined differently in .mcp.json: mcpServers.gh"), "{}", everything(&o));
}

#[test]
fn an_unset_variable_is_exit_2_naming_it_and_nothing_starts() {
    let dir = fixture("lock-unset", None);
    let mut cmd = common::toolgate();
    let o = cmd
        .current_dir(&dir)
        .arg("lock")
        .env_remove("TOOLGATE_TEST_TOKEN")
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", everything(&o));
    let err = common::stderr(&o);
    assert!(err.contains(".vscode/mcp.json: servers.everything.env.EVERYTHING_API_KEY: the variable `input:api-key` is not set and has no default; set it, or give --env api-key=VALUE"), "{err}");
    assert!(
        err.contains("the variable `env:TOOLGATE_TEST_TOKEN` is not set"),
        "{err}"
    );
    assert!(!dir.join("toolgate.lock").exists());
}

#[test]
fn a_hanging_server_is_bounded_and_an_early_exit_shows_its_stderr_tail() {
    let dir = repo_with(
        "lock-hang",
        ".mcp.json",
        r#"{"mcpServers": {
            "hangs": {"command": "sleep", "args": ["60"]},
            "dies": {"command": "sh", "args": ["-c", "for i in $(seq 1 30); do echo \"stderr line $i\" >&2; done; exit 3"]}
        }}"#,
    );
    let started = Instant::now();
    let o = toolgate_in(&dir, &["lock", "--timeout", "2"], None);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(code(&o), 2, "{}", everything(&o));
    let err = common::stderr(&o);
    assert!(err.contains("error: server `hangs` (.mcp.json: mcpServers.hangs): the server did not answer initialize and every tools/list page within 2s"), "{err}");
    assert!(
        err.contains(
            "error: server `dies` (.mcp.json: mcpServers.dies): the server exited (exit status: 3)"
        ),
        "{err}"
    );
    assert!(
        err.contains("| stderr line 30\n") && err.contains("| stderr line 11\n"),
        "{err}"
    );
    assert!(
        !err.contains("| stderr line 10\n"),
        "only the last 20 lines: {err}"
    );
    assert!(err.contains("nothing written"), "{err}");
    assert!(!dir.join("toolgate.lock").exists());
    // --keep-going writes what was captured (nothing here) and exits 1.
    let o = toolgate_in(&dir, &["lock", "--timeout", "1", "--keep-going"], None);
    assert_eq!(code(&o), 1, "{}", everything(&o));
    let lock: Value =
        serde_json::from_slice(&std::fs::read(dir.join("toolgate.lock")).unwrap()).unwrap();
    assert_eq!(lock["servers"], serde_json::json!({}));
}

#[test]
fn a_lock_from_a_newer_format_or_edited_by_hand_is_refused() {
    let dir = repo_with(
        "lock-edited",
        ".mcp.json",
        r#"{"mcpServers": {"x": {"command": "x"}}}"#,
    );
    std::fs::write(
        dir.join("toolgate.lock"),
        "{\"format_version\": 7, \"servers\": {}}\n",
    )
    .unwrap();
    for args in [&["lint"][..], &["lock", "--check"]] {
        let o = toolgate_in(&dir, args, None);
        assert_eq!(code(&o), 2, "{}", everything(&o));
        assert!(
            common::stderr(&o)
                .contains("toolgate.lock: format_version: 7 is newer than this toolgate reads (1)"),
            "{}",
            everything(&o)
        );
    }
    let hash = "0".repeat(64);
    std::fs::write(
        dir.join("toolgate.lock"),
        format!("{{\"format_version\": 1, \"servers\": {{\"x\": {{\"reached\": {{\"transport\": \"stdio\", \"command\": \"x\"}}, \"tools_sha256\": \"{hash}\", \"tools\": [{{\"name\": \"t\"}}]}}}}}}\n"),
    )
    .unwrap();
    let o = toolgate_in(&dir, &["lint"], None);
    assert_eq!(code(&o), 2, "{}", everything(&o));
    assert!(
        common::stderr(&o)
            .contains("toolgate.lock: servers.x: tools_sha256: does not match the tools"),
        "{}",
        everything(&o)
    );
}

#[test]
fn lint_with_a_configured_but_unlocked_server_says_to_run_lock() {
    let dir = repo_with(
        "lock-unlocked",
        ".mcp.json",
        r#"{"mcpServers": {"gh": {"command": "gh-mcp"}}}"#,
    );
    std::fs::write(dir.join("AGENTS.md"), "Call `mcp__gh__get_me()`.\n").unwrap();
    let o = toolgate_in(&dir, &["lint"], None);
    assert_eq!(code(&o), 2, "{}", everything(&o));
    assert!(
        common::stderr(&o).contains(
            "`gh` (.mcp.json: mcpServers.gh) but there is no toolgate.lock: run `toolgate lock`"
        ),
        "{}",
        everything(&o)
    );
    // discover = false: the host configs are not read; toolgate.toml names the surface.
    std::fs::write(
        dir.join("toolgate.toml"),
        "discover = false\ncatalog = \"tatara\"\n",
    )
    .unwrap();
    let o = toolgate_in(&dir, &["lint"], None);
    assert_eq!(code(&o), 0, "{}", everything(&o));
}

/// The whole adoption path on the real servers: lock, lint with no toolgate.toml, check,
/// a launch change that removes tools, check again, update.
#[test]
fn lock_lint_and_check_against_real_servers() {
    let Some(nm) = node_modules() else { return };
    let Some(python) = python_importing("mcp_server_time") else {
        skip("PyPI `mcp-server-time` is not installed for TOOLGATE_PYTHON or python3");
        return;
    };
    let dir = fixture("lock-e2e", Some(&nm));
    let input = format!("api-key={SECRET_INPUT}");
    let lock_args = ["lock", "--env", input.as_str(), "--timeout", "60"];
    let o = toolgate_in(&dir, &lock_args, Some(&python));
    assert_eq!(code(&o), 0, "{}", everything(&o));
    let text = std::fs::read_to_string(dir.join("toolgate.lock")).unwrap();
    let lock: Value = serde_json::from_str(&text).unwrap();
    let servers = lock["servers"].as_object().unwrap();
    assert_eq!(
        servers.keys().collect::<Vec<_>>(),
        ["everything", "memory", "playwright", "time"]
    );
    let memory = &servers["memory"];
    assert_eq!(memory["server"]["name"], "memory-server");
    assert_eq!(
        memory["declared"][1],
        serde_json::json!({"file": ".vscode/mcp.json", "key": "servers.memory"})
    );
    assert_eq!(
        memory["reached"]["env"],
        serde_json::json!(["MEMORY_FILE_PATH"])
    );
    assert!(
        memory["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "create_entities")
    );
    assert_eq!(
        servers["everything"]["reached"]["args"][0],
        "${workspaceFolder}/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
    );
    let names = |s: &Value| -> Vec<String> {
        s["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(names(&servers["playwright"]).contains(&"browser_mouse_click_xy".to_string()));
    assert!(names(&servers["time"]).contains(&"get_current_time".to_string()));
    assert!(servers["time"]["protocol_version"].is_string());
    // The secrets appear nowhere: not in the lock, the output, or any file written.
    for secret in [SECRET_INPUT, SECRET_ENV] {
        assert!(!everything(&o).contains(secret), "{}", everything(&o));
        assert!(!all_text(&dir).contains(secret));
    }
    // Deterministic: a second run writes the same bytes.
    let again = toolgate_in(&dir, &lock_args, Some(&python));
    assert_eq!(code(&again), 0, "{}", everything(&again));
    assert_eq!(
        std::fs::read_to_string(dir.join("toolgate.lock")).unwrap(),
        text
    );

    // The lint, with no toolgate.toml: prefixed calls checked against the locked schemas.
    let o = toolgate_in(&dir, &["lint", "--format", "concise"], None);
    assert_eq!(code(&o), 1, "{}", everything(&o));
    let out = common::stdout(&o);
    assert!(out.contains("AGENTS.md:10:30: unknown-field:"), "{out}");
    // A prefixed name the server does not have is reported even where the text says not to
    // call it: the reader still learns a tool name that does not exist.
    assert!(
        out.contains("AGENTS.md:21:27: unknown-tool: unknown tool `forget_everything`"),
        "{out}"
    );
    assert_eq!(
        out.lines()
            .filter(|l| l.contains(": error") || l.contains("unknown-"))
            .count(),
        2,
        "only the bad call and the missing tool: {out}"
    );

    // The language server finds the same servers and locked surfaces: its diagnostics of the
    // file open in the editor are the lint's. The project is the workspace the client opens,
    // not the folder the editor started the server in (here, once the project and once a
    // folder outside it).
    for cwd in [dir.clone(), std::env::temp_dir()] {
        let diagnostics = lsp_diagnostics(&dir, "AGENTS.md", &cwd);
        let codes: Vec<(u64, u64, &str)> = diagnostics
            .iter()
            .map(|d| {
                (
                    d["range"]["start"]["line"].as_u64().unwrap(),
                    d["range"]["start"]["character"].as_u64().unwrap(),
                    d["code"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            codes,
            [(9, 29, "unknown-field"), (20, 26, "unknown-tool")],
            "started in {}: {diagnostics:?}",
            cwd.display()
        );
    }

    // Nothing changed: --check exits 0.
    let o = toolgate_in(
        &dir,
        &[
            "lock",
            "--check",
            "--env",
            input.as_str(),
            "--timeout",
            "60",
        ],
        Some(&python),
    );
    assert_eq!(code(&o), 0, "{}", everything(&o));
    assert!(
        common::stderr(&o).contains("every server is as locked"),
        "{}",
        everything(&o)
    );

    // Playwright without `--caps vision`: its coordinate tools are gone.
    let mcp = std::fs::read_to_string(dir.join(".mcp.json")).unwrap();
    std::fs::write(
        dir.join(".mcp.json"),
        mcp.replace(", \"--caps\", \"vision\"", ""),
    )
    .unwrap();
    let o = toolgate_in(
        &dir,
        &[
            "lock",
            "--check",
            "--env",
            input.as_str(),
            "--timeout",
            "60",
        ],
        Some(&python),
    );
    assert_eq!(code(&o), 1, "{}", everything(&o));
    let out = common::stdout(&o);
    assert!(
        out.contains("server `playwright` (changed): bump major, risk "),
        "{out}"
    );
    assert!(
        (out.contains("major review tool-removed:") || out.contains("major high tool-removed:"))
            && out.contains("browser_mouse_click_xy"),
        "{out}"
    );
    assert!(
        out.contains("breaks AGENTS.md:13:19: unknown-tool:"),
        "{out}"
    );
    assert!(out.contains("breaks AGENTS.md:18:22: names `browser_mouse_move_xy`, which the server `playwright` no longer has"), "{out}");
    assert!(
        out.contains("breaks .github/agents/tester.agent.md:3:"),
        "{out}"
    );
    assert!(!out.contains("server `memory`"), "{out}");
    let o = toolgate_in(
        &dir,
        &[
            "lock",
            "--check",
            "--format",
            "json",
            "--env",
            input.as_str(),
        ],
        Some(&python),
    );
    assert_eq!(code(&o), 1);
    let report: Value = serde_json::from_slice(&o.stdout).expect("JSON report");
    assert_eq!(report["servers"][0]["server"], "playwright");
    assert_eq!(report["servers"][0]["bump"], "major");
    assert!(report["servers"][0]["risk"].is_string());
    let changes = report["servers"][0]["changes"].as_array().unwrap();
    assert!(
        changes
            .iter()
            .all(|c| matches!(c["risk"].as_str(), Some("none" | "review" | "high")))
    );
    assert!(report["servers"][0]["broken"].as_array().unwrap().len() >= 3);
    let o = toolgate_in(
        &dir,
        &[
            "lock",
            "--check",
            "--format",
            "markdown",
            "--env",
            input.as_str(),
        ],
        Some(&python),
    );
    assert!(
        common::stdout(&o).contains("### `playwright`: changed (bump **major**, risk **"),
        "{}",
        everything(&o)
    );

    // --update writes the new surface and prints the same report; then all is as locked.
    let o = toolgate_in(
        &dir,
        &["lock", "--update", "playwright", "--timeout", "60"],
        Some(&python),
    );
    assert_eq!(code(&o), 0, "{}", everything(&o));
    assert!(
        common::stdout(&o).contains("breaks AGENTS.md:13:19: unknown-tool:"),
        "{}",
        everything(&o)
    );
    let o = toolgate_in(
        &dir,
        &[
            "lock",
            "--check",
            "--env",
            input.as_str(),
            "--timeout",
            "60",
        ],
        Some(&python),
    );
    assert_eq!(code(&o), 0, "{}", everything(&o));
    let o = toolgate_in(&dir, &["lint", "--format", "concise"], None);
    assert!(
        common::stdout(&o).contains("AGENTS.md:13:19: unknown-tool:"),
        "{}",
        everything(&o)
    );
    for secret in [SECRET_INPUT, SECRET_ENV] {
        assert!(!all_text(&dir).contains(secret));
    }
}

/// A server that cannot start in CI (OAuth, a private network) is locked from a capture
/// `toolgate.toml` names; the lock then imports into a catalog the gate can serve.
#[test]
fn a_server_that_cannot_start_in_ci_is_locked_from_a_capture_and_imports() {
    let dir = repo_with(
        "lock-captured",
        ".mcp.json",
        r#"{"mcpServers": {"crm": {"type": "http", "url": "https://crm.internal.example/mcp", "headers": {"Authorization": "Bearer ${CRM_TOKEN}"}}}}"#,
    );
    std::fs::write(
        dir.join("toolgate.toml"),
        "[servers.crm]\ntools_list = \"crm.tools.json\"\nprefixes = [\"mcp__crm__\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("crm.tools.json"),
        r#"{"tools": [{"name": "find_contact", "description": "Find a contact", "inputSchema": {"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]}}]}"#,
    )
    .unwrap();
    std::fs::write(dir.join("AGENTS.md"), "Look people up with `mcp__crm__find_contact(email=\"a@b.c\")`; an old page wrote `mcp__crm__find_contact(mail=\"a@b.c\")`.\n").unwrap();
    let o = toolgate_in(&dir, &["lock"], None);
    assert_eq!(code(&o), 0, "{}", everything(&o));
    let lock: Value =
        serde_json::from_slice(&std::fs::read(dir.join("toolgate.lock")).unwrap()).unwrap();
    assert_eq!(
        lock["servers"]["crm"]["reached"],
        serde_json::json!({"transport": "captured", "tools_list": "crm.tools.json"})
    );
    let o = toolgate_in(&dir, &["lint", "--format", "concise"], None);
    assert_eq!(code(&o), 1, "{}", everything(&o));
    assert!(
        common::stdout(&o).contains("AGENTS.md:1:104: unknown-field:"),
        "{}",
        everything(&o)
    );
    let o = toolgate_in(
        &dir,
        &[
            "import",
            "--lock",
            "toolgate.lock",
            "--server",
            "crm",
            "--out",
            "schema/crm",
        ],
        None,
    );
    assert_eq!(code(&o), 0, "{}", everything(&o));
    assert!(dir.join("schema/crm/tools/find_contact.json").is_file());
    let o = toolgate_in(
        &dir,
        &["tools-list", "--catalog", "schema/crm", "--profile", "all"],
        None,
    );
    assert_eq!(code(&o), 0, "{}", everything(&o));
    assert!(common::stdout(&o).contains("\"find_contact\""));
    let o = toolgate_in(
        &dir,
        &[
            "import",
            "--lock",
            "toolgate.lock",
            "--server",
            "nope",
            "--out",
            "schema/x",
        ],
        None,
    );
    assert_eq!(code(&o), 2);
    assert!(
        common::stderr(&o).contains("no server `nope` (it locks: crm)"),
        "{}",
        everything(&o)
    );
}

/// Starts `toolgate lsp` in `cwd` with `dir` as the workspace, opens `file` (in `dir`) and
/// returns the diagnostics published for it (LSP's framing written here: a header and a JSON
/// body per message; every read bounded by the server's exit when its input closes).
fn lsp_diagnostics(dir: &Path, file: &str, cwd: &Path) -> Vec<Value> {
    use std::io::{BufReader, Write};
    use std::process::Stdio;
    let mut child = common::toolgate()
        .current_dir(cwd)
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("toolgate lsp starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let path = dir.join(file).canonicalize().expect("the file");
    let uri = format!("file://{}", path.display());
    let root = format!("file://{}", dir.canonicalize().expect("the dir").display());
    let text = std::fs::read_to_string(&path).expect("the file");
    let messages = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"processId": null, "rootUri": root, "capabilities": {}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params":
            {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}}),
    ];
    for m in &messages {
        let body = m.to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
    }
    stdin.flush().expect("flush");
    let found = published(&mut out, &uri);
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    found.unwrap_or_else(|e| panic!("{e}"))
}

/// Reads messages from `out` until the diagnostics of `uri`.
fn published(out: &mut impl std::io::BufRead, uri: &str) -> Result<Vec<Value>, String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let mut length = 0;
        loop {
            let mut line = String::new();
            if out.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err("the server closed".into());
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = n.parse().map_err(|_| format!("a bad length: {line}"))?;
            }
        }
        let mut body = vec![0; length];
        out.read_exact(&mut body).map_err(|e| e.to_string())?;
        let m: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
        if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
            return Ok(m["params"]["diagnostics"]
                .as_array()
                .cloned()
                .unwrap_or_default());
        }
    }
    Err(format!("no diagnostics for {uri} within 60 s"))
}
