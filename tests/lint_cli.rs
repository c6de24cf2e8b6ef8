//! `toolgate lint` and `toolgate explain`, end to end: the real corpus, malformed files,
//! output formats, exit codes, configuration and baselines.

mod common;

use std::path::Path;

use common::{repo_root, run, scratch, shared, stderr, stdout, toolgate};
use serde_json::Value;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const DRIFT: &str =
    "---\nprofiles: [\"implement\"]\n---\n\nCall `submit_outcome(action=\"shipped\")`.\n";

#[test]
fn real_corpus_has_no_false_positive_and_the_memory_edges_drift() {
    let Some(shared) = shared() else { return };
    let corpus = shared.join("anchors/tatara/tatara-agent-skills@8b51c62");
    let o = run(&[
        "lint",
        "--catalog",
        "tatara",
        corpus.to_str().unwrap(),
        "--format",
        "concise",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let findings: Vec<&str> = out
        .lines()
        .filter(|l| {
            l.contains(": unknown-")
                || l.contains(": invalid-")
                || l.contains(": wrong-")
                || l.contains("-not-in-")
        })
        .collect();
    let tail: Vec<String> = findings
        .iter()
        .map(|l| {
            l.split("tatara-agent-skills@8b51c62/")
                .nth(1)
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        tail,
        [
            "skills/mcp/tatara-mcp-memory/SKILL.md:146:6: unknown-field: `memory_edges` has no field `from_entity` (did you mean `from`?)",
            "skills/mcp/tatara-mcp-memory/SKILL.md:147:6: unknown-field: `memory_edges` has no field `to_entity` (did you mean `to`?)",
            "skills/mcp/tatara-mcp-memory/SKILL.md:149:6: unknown-field: `memory_edges` has no field `properties`",
        ]
    );
    assert!(
        out.ends_with("Found 3 errors in 1 file (49 files and 424 calls checked).\n"),
        "{out}"
    );

    // With tatara's own manifest format, the same corpus passes: the drift is a field
    // name, which that format cannot hold.
    let manifest = shared.join("anchors/tatara/tool-manifest.json");
    let o = run(&[
        "lint",
        "--manifest",
        manifest.to_str().unwrap(),
        corpus.to_str().unwrap(),
        "--format",
        "concise",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("skipped unknown-field"));
}

#[test]
fn history_drift_is_caught() {
    let Some(shared) = shared() else { return };
    let history = shared.join("anchors/tatara/history");
    // Before the clarify profile was deleted: every skill naming it, and every
    // `submit_outcome(decision=...)` call.
    let o = run(&[
        "lint",
        "--catalog",
        "tatara",
        "--format",
        "json",
        history
            .join("tatara-agent-skills@3a01267")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let items = v.as_array().unwrap();
    let count = |rule: &str, field: Option<&str>| {
        items
            .iter()
            .filter(|f| f["rule"] == rule && field.is_none_or(|x| f["field"] == x))
            .count()
    };
    assert_eq!(count("unknown-profile", None), 6);
    assert_eq!(count("unknown-field", Some("decision")), 11);
    assert_eq!(count("unknown-field", None), 14);
    assert_eq!(items.len(), 20);
    // Before the rewrite: calls to tools that are gone.
    let o = run(&[
        "lint",
        "--catalog",
        "tatara",
        "--format",
        "json",
        history
            .join("tatara-agent-skills@63b8432")
            .to_str()
            .unwrap(),
    ]);
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let tools: std::collections::BTreeSet<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "unknown-tool")
        .map(|f| f["tool"].as_str().unwrap())
        .collect();
    for gone in [
        "review_verdict",
        "issue_outcome",
        "decline_implementation",
        "code_callers",
        "comment_on_issue",
        "query",
        "describe",
    ] {
        assert!(tools.contains(gone), "{gone} not reported: {tools:?}");
    }
}

#[test]
fn malformed_files_are_reported_and_the_run_goes_on() {
    let dir = scratch("lint-malformed");
    write(&dir.join("good/SKILL.md"), DRIFT);
    std::fs::create_dir_all(dir.join("utf8")).unwrap();
    std::fs::write(
        dir.join("utf8/SKILL.md"),
        b"---\nname: x\n---\nok \xff\xfe here\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("binary")).unwrap();
    std::fs::write(dir.join("binary/SKILL.md"), b"\x7fELF\x00\x00\x01binary").unwrap();
    std::fs::create_dir_all(dir.join("huge")).unwrap();
    let huge = std::fs::File::create(dir.join("huge/SKILL.md")).unwrap();
    huge.set_len(100 * 1024 * 1024).unwrap();
    std::fs::create_dir_all(dir.join("loop")).unwrap();
    std::os::unix::fs::symlink("../loop", dir.join("loop/back")).unwrap();
    std::os::unix::fs::symlink("SKILL.md", dir.join("loop/SKILL.md")).unwrap();
    write(
        &dir.join("yaml/SKILL.md"),
        "---\nprofiles: [unclosed\n---\n`mr_write(action=\"x\")`\n",
    );
    let o = run(&[
        "lint",
        "--catalog",
        "tatara",
        "--format",
        "concise",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("warning: ")
            && err.contains(
                "utf8/SKILL.md: is not valid UTF-8 (bad byte at offset 19, line 4); read lossily"
            ),
        "{err}"
    );
    assert!(err.contains("binary/SKILL.md: is a binary file"), "{err}");
    assert!(
        err.contains("huge/SKILL.md: is 100.0 MiB, more than the 16 MiB"),
        "{err}"
    );
    assert!(err.contains("loop/"), "{err}");
    assert!(
        err.contains("yaml/SKILL.md:3:1:") && err.contains("not strict YAML"),
        "{err}"
    );
    let out = stdout(&o);
    // The readable files were still checked and their findings printed.
    assert!(out.contains("good/SKILL.md:5:29: invalid-value"), "{out}");
    assert!(out.contains("yaml/SKILL.md:4:18: invalid-value"), "{out}");
    assert!(out.contains("could not be checked"), "{out}");

    // An unreadable file (not testable as root, who reads everything).
    let locked = dir.join("locked/SKILL.md");
    write(&locked, DRIFT);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&locked).is_err() {
        let o = run(&["lint", "--catalog", "tatara", locked.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        assert!(stderr(&o).contains("cannot read it"), "{}", stderr(&o));
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
}

#[test]
fn hostile_input_is_linted_quickly() {
    let dir = scratch("lint-hostile");
    let mut text = String::from("---\nprofiles: [\"*\"]\n---\n");
    text.push_str(&"(".repeat(200_000));
    text.push_str("\n`submit_outcome(");
    text.push_str(&"a(".repeat(50_000));
    text.push_str("`\n```\n");
    text.push_str(&"x=\"".repeat(20_000));
    text.push('\n');
    text.push_str(&"`".repeat(30_000));
    write(&dir.join("SKILL.md"), &text);
    let t = std::time::Instant::now();
    let o = run(&["lint", "--catalog", "tatara", dir.to_str().unwrap()]);
    let took = t.elapsed();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(took.as_millis() < 1500, "took {took:?}");
}

#[test]
fn json_has_exactly_the_documented_keys() {
    let o = run(&["lint", "skills-fixtures/wrong-type", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let first = &v.as_array().unwrap()[0];
    let mut keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "column",
            "end_column",
            "end_line",
            "field",
            "line",
            "message",
            "path",
            "rule",
            "severity",
            "suggestion",
            "tool",
            "value"
        ]
    );
    assert_eq!(first["path"], "skills-fixtures/wrong-type/SKILL.md");
    assert_eq!(first["rule"], "wrong-type");
    assert_eq!(first["value"], "42");
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(8), Some(47))
    );
    assert_eq!(first["end_column"], 51);
    assert!(first["suggestion"].is_null());
    // Clean: an empty array.
    let o = run(&["lint", "skills-fixtures/clean-calls", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "[]\n");
}

#[test]
fn sarif_and_github_formats() {
    let o = run(&["lint", "skills-fixtures/unknown-tool", "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run0 = &v["runs"][0];
    assert_eq!(run0["columnKind"], "unicodeCodePoints");
    // Every rule (`toolgate explain` lists twelve).
    assert_eq!(
        run0["tool"]["driver"]["rules"].as_array().unwrap().len(),
        12
    );
    let r = &run0["results"][0];
    assert_eq!(r["ruleId"], "unknown-tool");
    assert_eq!(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "skills-fixtures/unknown-tool/SKILL.md"
    );
    assert_eq!(
        r["locations"][0]["physicalLocation"]["region"]["startLine"],
        7
    );

    let o = run(&["lint", "skills-fixtures/unknown-tool", "--format", "github"]);
    let out = stdout(&o);
    assert!(
        out.starts_with("::error file=skills-fixtures/unknown-tool/SKILL.md,line=7,col=25,endLine=7,endColumn=35,title=toolgate unknown-tool::unknown tool `code_serch` (did you mean `code_search`?)\n"),
        "{out}"
    );
}

#[test]
fn full_format_underlines_the_span() {
    let o = run(&["lint", "skills-fixtures/restricted-cell"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert_eq!(
        out,
        "error[value-not-in-profile]: `action=\"open\"` of `mr_write` is not allowed for profile refine (allowed there: `comment`); it is for implement, review, documentation, upgrade\n --> skills-fixtures/restricted-cell/SKILL.md:9:41\n  |\n9 | Then open a follow-up: `mr_write(action=\"open\", repo=\"web\", title=\"Follow-up\")`.\n  |                                         ^^^^^^\n\nFound 1 error in 1 file (1 file and 2 calls checked).\n"
    );
}

#[test]
fn paths_are_relative_to_the_starting_folder() {
    let abs = repo_root().join("skills-fixtures/unknown-tool");
    let o = toolgate()
        .current_dir(repo_root().join("skills-fixtures"))
        .args(["lint", abs.to_str().unwrap(), "--format", "concise"])
        .output()
        .unwrap();
    assert!(
        stdout(&o).starts_with("unknown-tool/SKILL.md:7:25: "),
        "{}",
        stdout(&o)
    );
}

#[test]
fn surface_problems_fail_closed_unless_allowed() {
    let dir = scratch("lint-manifest");
    write(&dir.join("s/SKILL.md"), DRIFT);
    let missing = dir.join("nope.json");
    let o = run(&[
        "lint",
        "--manifest",
        missing.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("cannot read the manifest"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "lint",
        "--manifest",
        missing.to_str().unwrap(),
        "--allow-missing-manifest",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("warning:"));
    let empty = dir.join("empty.json");
    write(&empty, "{\"tools\": []}\n");
    let o = run(&[
        "lint",
        "--manifest",
        empty.to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no tools"), "{}", stderr(&o));
    let o = run(&[
        "lint",
        "--manifest",
        empty.to_str().unwrap(),
        "--allow-missing-manifest",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    // No surface at all.
    let o = toolgate()
        .current_dir(&dir)
        .args(["lint"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no surface"), "{}", stderr(&o));
    // A broken configuration.
    write(
        &dir.join("toolgate.toml"),
        "catalog = \"tatara\"\nsevertiy = 1\n",
    );
    let o = toolgate()
        .current_dir(&dir)
        .args(["lint"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("toolgate.toml"), "{}", stderr(&o));
}

#[test]
fn the_hosts_documented_agent_files_are_walked_by_default() {
    let dir = scratch("lint-host-files");
    write(&dir.join("toolgate.toml"), "catalog = \"tatara\"\n");
    let kept = [
        ".claude/rules/style.md",
        ".github/chatmodes/triage.chatmode.md",
        ".github/instructions/api/backend.instructions.md",
        ".github/prompts/release.prompt.md",
        "CLAUDE.local.md",
    ];
    for p in kept {
        write(&dir.join(p), DRIFT);
    }
    // Not an agent file: a note beside the instructions.
    write(&dir.join(".github/instructions/notes.md"), DRIFT);
    let o = toolgate()
        .current_dir(&dir)
        .args(["lint", "--format", "concise"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let files: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split(':').next())
        .filter(|p| p.ends_with(".md"))
        .collect();
    assert_eq!(files, kept, "{out}");
}

#[test]
fn configured_field_renames_are_reported_and_fixed() {
    let dir = scratch("lint-field-renames");
    // A captured surface, in this test's words: `find_notes` took `limit` before `pageSize`.
    write(
        &dir.join("notes.json"),
        r#"{"tools": [{"name": "find_notes", "inputSchema": {"type": "object",
            "properties": {"text": {"type": "string"}, "pageSize": {"type": "integer"}}}}]}"#,
    );
    write(
        &dir.join("toolgate.toml"),
        "[servers.notes]\ntools_list = \"notes.json\"\n[servers.notes.formerly.fields.find_notes]\npageSize = [\"limit\"]\n",
    );
    let skill = dir.join("SKILL.md");
    write(
        &skill,
        "Run `mcp__notes__find_notes(text=\"x\", limit=5)`.\n\nUse `find_notes` with:\n- text: y\n- limit: 2\n",
    );
    let o = toolgate()
        .current_dir(&dir)
        .args(["lint", "--format", "concise"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("renamed to `pageSize`"),
        "{}",
        stdout(&o)
    );
    let o = toolgate()
        .current_dir(&dir)
        .args(["lint", "--fix"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&skill).unwrap(),
        "Run `mcp__notes__find_notes(text=\"x\", pageSize=5)`.\n\nUse `find_notes` with:\n- text: y\n- pageSize: 2\n"
    );
}

#[test]
fn walking_honours_gitignore_and_skips_build_folders() {
    let dir = scratch("lint-walk");
    write(
        &dir.join("toolgate.toml"),
        "catalog = \"tatara\"\n[severity]\ninvalid-value = \"warning\"\n",
    );
    write(&dir.join(".gitignore"), "ignored/\n");
    for p in [
        "ignored/SKILL.md",
        "target/SKILL.md",
        "node_modules/x/SKILL.md",
        ".git/SKILL.md",
        "notes/README.md",
    ] {
        write(&dir.join(p), DRIFT);
    }
    write(&dir.join("kept/SKILL.md"), DRIFT);
    write(&dir.join(".claude/agents/helper.md"), DRIFT);
    let o = toolgate()
        .current_dir(&dir)
        .args(["lint", "--format", "concise"])
        .output()
        .unwrap();
    // Warnings only: exit 0.
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let files: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split(':').next())
        .filter(|p| p.ends_with(".md"))
        .collect();
    assert_eq!(
        files,
        [".claude/agents/helper.md", "kept/SKILL.md"],
        "{out}"
    );
    assert!(
        out.ends_with("Found 2 warnings in 2 files (2 files and 2 calls checked).\n"),
        "{out}"
    );
}

#[test]
fn baseline_reports_only_new_findings() {
    let dir = scratch("lint-baseline");
    write(&dir.join("toolgate.toml"), "catalog = \"tatara\"\n");
    write(&dir.join("a/SKILL.md"), DRIFT);
    let base = dir.join("baseline.json");
    let lint = || {
        toolgate()
            .current_dir(&dir)
            .args(["lint", "--format", "concise", "--baseline", "baseline.json"])
            .output()
            .unwrap()
    };
    let o = lint();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("recorded 1 finding"));
    assert!(base.is_file());
    // Unchanged: still clean, even after an edit above the call moves it down.
    write(
        &dir.join("a/SKILL.md"),
        &DRIFT.replace("\nCall", "\nIntro.\n\nCall"),
    );
    let o = lint();
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("1 finding in the baseline not shown"));
    // A new finding is reported.
    write(&dir.join("b/SKILL.md"), DRIFT);
    let o = lint();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).starts_with("b/SKILL.md:5:29: invalid-value"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn explain_prints_each_rule() {
    let o = run(&["explain", "unknown-field"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with("# unknown-field\n"));
    let o = run(&["explain"]);
    // The twelve rules, then `host-limits` (the hosts' limits `check` applies), then the audit's
    // rules and `audit-allow` after a blank line and a heading.
    let out = stdout(&o);
    let (lint_part, audit_part) = out.split_once("\n\n").expect("two sections");
    assert_eq!(lint_part.lines().count(), 13);
    assert_eq!(
        audit_part.lines().count(),
        1 + toolgate_schema::audit::RULES.len() + 1,
        "{audit_part}"
    );
    assert!(stdout(&o).contains("too-many-tools"));
    assert!(stdout(&o).contains("missing-required"));
    let o = run(&["explain", "unknown-field"]);
    assert!(stdout(&o).contains("additionalProperties: true"));
    let o = run(&["explain", "unknown-feild"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("did you mean `unknown-field`?"),
        "{}",
        stderr(&o)
    );
}

/// Removes ANSI SGR sequences (`ESC [ ... m`).
fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn color_is_opt_in_outside_a_terminal_and_changes_nothing_but_escapes() {
    let dir = scratch("lint-color");
    write(&dir.join("s/SKILL.md"), DRIFT);
    let lint = |extra: &[&str], no_color: Option<&str>| {
        let mut cmd = toolgate();
        cmd.args(["lint", "--catalog", "tatara"])
            .args(extra)
            .arg(dir.to_str().unwrap());
        match no_color {
            Some(v) => cmd.env("NO_COLOR", v),
            None => cmd.env_remove("NO_COLOR"),
        };
        let o = cmd.output().expect("toolgate runs");
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        stdout(&o)
    };
    // Into a pipe, `auto` (the default) does not colour.
    let plain = lint(&[], None);
    assert!(!plain.contains('\u{1b}'), "{plain}");
    assert!(plain.contains("invalid-value"), "{plain}");
    assert_eq!(lint(&["--color", "never"], None), plain);
    assert_eq!(lint(&["--color", "auto"], Some("1")), plain);
    // `always` colours even into a pipe and even with NO_COLOR set; only escapes differ.
    for no_color in [None, Some("1")] {
        let colored = lint(&["--color", "always"], no_color);
        assert!(colored.contains("\u{1b}["), "{colored}");
        assert_eq!(strip_ansi(&colored), plain);
    }
    // Machine formats never colour.
    let json = lint(&["--color", "always", "--format", "json"], None);
    assert!(!json.contains('\u{1b}'), "{json}");
}

#[test]
fn each_path_is_walked_with_its_own_configuration_globs() {
    let dir = scratch("lint-per-root-globs");
    // Repository a lints its guides; repository b keeps the default globs (SKILL.md).
    write(
        &dir.join("a/toolgate.toml"),
        "catalog = \"tatara\"\ninclude = [\"guides/*.md\"]\n",
    );
    write(&dir.join("a/guides/x.md"), DRIFT);
    write(&dir.join("a/s/SKILL.md"), DRIFT);
    write(&dir.join("b/toolgate.toml"), "catalog = \"tatara\"\n");
    write(&dir.join("b/guides/x.md"), DRIFT);
    write(&dir.join("b/s/SKILL.md"), DRIFT);
    let lint = |paths: &[&str], extra: &[&str]| {
        let mut cmd = toolgate();
        cmd.current_dir(&dir)
            .args(["lint", "--format", "concise"])
            .args(extra)
            .args(paths);
        let o = cmd.output().expect("toolgate runs");
        let files: Vec<String> = stdout(&o)
            .lines()
            .filter(|l| l.contains(": invalid-value:"))
            .map(|l| l.split(':').next().unwrap_or_default().to_string())
            .collect();
        (o.status.code(), files)
    };
    assert_eq!(
        lint(&["a", "b"], &[]),
        (
            Some(1),
            vec!["a/guides/x.md".to_string(), "b/s/SKILL.md".to_string()]
        )
    );
    assert_eq!(
        lint(&["b", "a"], &[]),
        (
            Some(1),
            vec!["a/guides/x.md".to_string(), "b/s/SKILL.md".to_string()]
        )
    );
    // --config names one configuration for every path, globs included.
    assert_eq!(
        lint(&["a", "b"], &["--config", "b/toolgate.toml"]),
        (
            Some(1),
            vec!["a/s/SKILL.md".to_string(), "b/s/SKILL.md".to_string()]
        )
    );
}

/// (path, rule, tool, line, column) of each finding of a `--format json` run.
fn placed(o: &std::process::Output) -> Vec<(String, String, String, u64, u64)> {
    let v: Value =
        serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {}", stdout(o)));
    v.as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
                f["tool"].as_str().unwrap_or("").to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Every stale entry of the hosts' tool lists in `skills-fixtures/host-tool-lists/` (each
/// file written as its host documents it), as `(file, tool as written, line, column)`.
/// Each stale entry of the fixture's host tool lists: file, name as written, line, column, and
/// the rule it gets where toolgate.toml declares it (a rename or a removal; `unknown-tool`
/// everywhere else, and with no toolgate.toml).
const STALE_LIST_ENTRIES: &[(&str, &str, u64, u64, Option<&str>)] = &[
    // Claude Code's permission rules, prefixed names: `tool` is the name behind the prefix.
    (".claude/settings.json", "tab_*", 4, 28, None),
    (".claude/settings.json", "browser_run_code", 5, 29, None),
    (
        ".codex/config.toml",
        "browser_snapshot",
        5,
        39,
        Some("renamed-tool"),
    ),
    (".codex/config.toml", "browser_clik", 5, 59, None),
    (".codex/config.toml", "browser_type*", 5, 75, None),
    (
        ".codex/config.toml",
        "browser_install",
        6,
        20,
        Some("removed-tool"),
    ),
    (".codex/config.toml", "browser_screenshot", 11, 29, None),
    (".gemini/settings.json", "git_show", 7, 61, None),
    (".gemini/settings.json", "git_diff*", 7, 73, None),
    (".gemini/settings.json", "git_push", 8, 39, None),
    (".roo/mcp.json", "git_stat", 6, 38, None),
    (".roo/mcp.json", "git_reset", 7, 26, None),
    ("opencode.json", "clock_zone_*", 9, 6, None),
    ("opencode.json", "clock_convert", 13, 50, None),
    ("opencode.json", "clock_now", 16, 36, None),
];

fn expected_list_findings(base: &str, declared: bool) -> Vec<(String, String, String, u64, u64)> {
    STALE_LIST_ENTRIES
        .iter()
        .map(|(file, tool, line, column, rule)| {
            (
                format!("{base}{file}"),
                rule.filter(|_| declared)
                    .unwrap_or("unknown-tool")
                    .to_string(),
                tool.to_string(),
                *line,
                *column,
            )
        })
        .collect()
}

/// `git init` in `dir`, so that it is a project root.
fn git_init(dir: &Path) {
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir)
        .status()
        .expect("git runs");
    assert!(git.success());
}

/// `toolgate ARGS` run in `dir`.
fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    toolgate()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("toolgate runs")
}

#[test]
fn host_tool_lists_are_references_at_their_place() {
    // Codex's enabled_tools, disabled_tools and tool tables, Gemini CLI's includeTools and
    // excludeTools, Roo Code's alwaysAllow and disabledTools, opencode's tools map (a
    // pattern that matches nothing included), walked by default and checked against the
    // servers toolgate.toml captures.
    let o = run(&[
        "lint",
        "skills-fixtures/host-tool-lists",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        placed(&o),
        expected_list_findings("skills-fixtures/host-tool-lists/", true)
    );
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let by_tool = |t: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|f| f["tool"] == t)
            .unwrap()
            .clone()
    };
    assert_eq!(
        by_tool("browser_snapshot")["suggestion"],
        "browser_page_snapshot",
        "a declared rename"
    );
    assert!(
        by_tool("browser_install")["message"]
            .as_str()
            .unwrap()
            .contains("removed")
    );
    // opencode's names are said as opencode writes them.
    assert_eq!(by_tool("clock_convert")["suggestion"], "clock_convert_time");
    assert_eq!(
        by_tool("clock_zone_*")["message"],
        "`clock_zone_*` matches none of the tools of the server `clock`"
    );
    assert_eq!(by_tool("clock_zone_*")["end_column"], 18);
    // `--fix` rewrites a declared rename in the host's list, and nothing else there.
    let dir = scratch("host-tool-lists-fix");
    common::copy_tree(&repo_root().join("skills-fixtures/host-tool-lists"), &dir);
    let before = std::fs::read_to_string(dir.join(".codex/config.toml")).unwrap();
    let o = run_in(&dir, &["lint", ".", "--fix", "--format", "concise"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let after = std::fs::read_to_string(dir.join(".codex/config.toml")).unwrap();
    assert_eq!(
        after,
        before.replace("\"browser_snapshot\"", "\"browser_page_snapshot\"")
    );
}

#[test]
fn host_tool_lists_are_checked_with_no_toolgate_toml_against_the_lock() {
    // The same files at a repository's root: `toolgate lock` pins the servers (from the
    // captures toolgate.toml names, as for a server that cannot start in CI); then, with no
    // toolgate.toml at all, the servers come from the host configurations and their
    // surfaces from toolgate.lock, and the lists are checked the same way.
    let dir = scratch("host-tool-lists-zero-config");
    common::copy_tree(&repo_root().join("skills-fixtures/host-tool-lists"), &dir);
    std::fs::remove_file(dir.join("expected.txt")).unwrap();
    git_init(&dir);
    let lock = run_in(&dir, &["lock"]);
    assert_eq!(lock.status.code(), Some(0), "{}", stderr(&lock));
    std::fs::remove_file(dir.join("toolgate.toml")).unwrap();
    let o = run_in(&dir, &["lint", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // Without toolgate.toml nothing declares the rename or the removal: both are unknown.
    assert_eq!(placed(&o), expected_list_findings("", false));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v[2]["tool"], "browser_snapshot", "{v}");
    assert_eq!(v[2]["suggestion"], "browser_page_snapshot", "{v}");
    // Fixed at the host file, the lint is clean there.
    let codex = std::fs::read_to_string(dir.join(".codex/config.toml")).unwrap();
    let fixed = codex
        .replace("\"browser_snapshot\"", "\"browser_page_snapshot\"")
        .replace("browser_clik", "browser_click")
        .replace("browser_type*", "browser_type")
        .replace(
            "disabled_tools = [\"browser_install\"]",
            "disabled_tools = []",
        )
        .replace("\"browser_screenshot\"", "\"browser_click\"");
    std::fs::write(dir.join(".codex/config.toml"), fixed).unwrap();
    let o = run_in(&dir, &["lint", ".codex", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn a_host_config_that_does_not_parse_is_exit_2_naming_the_place() {
    let dir = scratch("host-tool-lists-bad");
    write(
        &dir.join("toolgate.toml"),
        "discover = false\n\n[servers.git]\ntools_list = \"git.tools.json\"\n",
    );
    std::fs::copy(
        repo_root().join("skills-fixtures/host-tool-lists/git.tools.json"),
        dir.join("git.tools.json"),
    )
    .unwrap();
    write(
        &dir.join(".codex/config.toml"),
        "[mcp_servers.git]\ncommand = \"uvx\"\nenabled_tools = \"git_status\"\n",
    );
    let o = run_in(&dir, &["lint", ".", "--format", "concise"]);
    assert_eq!(o.status.code(), Some(2), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains(".codex/config.toml:3:17:"),
        "{}",
        stderr(&o)
    );
    // The lists of a server no surface is named after are not checked, and the run says so.
    std::fs::remove_file(dir.join(".codex/config.toml")).unwrap();
    write(
        &dir.join(".gemini/settings.json"),
        r#"{"mcpServers": {"tracker": {"command": "t", "includeTools": ["anything"]}}}"#,
    );
    let o = run_in(&dir, &["lint", ".", "--format", "concise"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("the tool lists of the server `tracker` are not checked"),
        "{}",
        stderr(&o)
    );
}

/// Line and column (1-based, in code points) of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (u64, u64) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line as u64, column as u64)
}

#[test]
fn real_host_tool_lists_of_wild_agents_are_checked_at_their_place() {
    // Every file of ../shared/anchors/wild-agents that holds a host's tool lists (those
    // repositories' Claude Code settings, the one host of this corpus whose lists are in
    // the repository), placed where its host reads it and linted against the real
    // github-mcp-server surface. The expected findings are worked out here on their own:
    // each `mcp__github__NAME` permission entry whose NAME the surface lacks (or, for a
    // pattern, matches none of its tools) is one `unknown-tool` at the entry's name.
    let Some(shared) = shared() else { return };
    let anchors = shared.join("anchors");
    let index: Value = serde_json::from_str(
        &std::fs::read_to_string(anchors.join("wild-agents/index.json")).unwrap(),
    )
    .unwrap();
    let surface = anchors.join("wild/github-mcp-server/tools.json");
    let tools: Value = serde_json::from_str(&std::fs::read_to_string(&surface).unwrap()).unwrap();
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let glob = |p: &str, n: &str| {
        let (head, tail) = p.split_once('*').unwrap_or((p, ""));
        n.starts_with(head) && n[head.len()..].ends_with(tail.trim_start_matches('*'))
    };
    let mut checked = 0;
    for row in index.as_array().unwrap() {
        let path = row["path"].as_str().unwrap();
        let host_list_file = path.ends_with(".claude/settings.json")
            || path.ends_with(".claude/settings.local.json")
            || path.ends_with(".codex/config.toml")
            || path.ends_with(".gemini/settings.json")
            || path.ends_with("opencode.json")
            || path.ends_with(".roo/mcp.json");
        if !host_list_file {
            continue;
        }
        assert!(
            path.contains(".claude/"),
            "{path}: a host config this test does not place yet"
        );
        let text = std::fs::read_to_string(
            anchors
                .join("wild-agents/files")
                .join(row["saved_as"].as_str().unwrap()),
        )
        .unwrap();
        let dir = scratch(&format!("wild-host-lists-{checked}"));
        write(&dir.join(path), &text);
        write(
            &dir.join("toolgate.toml"),
            &format!(
                "discover = false\n\n[servers.github]\ntools_list = {:?}\n",
                surface.display().to_string()
            ),
        );
        let o = run_in(&dir, &["lint", path, "--format", "json"]);
        assert!(
            matches!(o.status.code(), Some(0 | 1)),
            "{path}: {}",
            stderr(&o)
        );
        let settings: Value = serde_json::from_str(&text).unwrap();
        // Every permission entry of the server, at its name; the stale ones are wanted.
        let mut entries = Vec::new();
        let mut want = Vec::new();
        let mut from = 0;
        for key in ["allow", "deny", "ask"] {
            for entry in settings["permissions"][key]
                .as_array()
                .into_iter()
                .flatten()
            {
                let Some(name) = entry.as_str().and_then(|e| e.strip_prefix("mcp__github__"))
                else {
                    continue;
                };
                let quoted = format!("\"mcp__github__{name}\"");
                let at = from + text[from..].find(&quoted).unwrap();
                from = at + quoted.len();
                let (line, column) = line_column(&text, at + 1 + "mcp__github__".len());
                entries.push((line, column));
                let stale = if name.contains('*') {
                    !name.starts_with('*') && !names.iter().any(|n| glob(name, n))
                } else {
                    !name.is_empty() && !names.contains(&name)
                };
                if stale {
                    want.push((
                        path.to_string(),
                        "unknown-tool".to_string(),
                        name.to_string(),
                        line,
                        column,
                    ));
                }
            }
        }
        let mut got: Vec<_> = placed(&o)
            .into_iter()
            .filter(|f| entries.contains(&(f.3, f.4)))
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{path}");
        println!(
            "{path}: {} permission entries, {} stale",
            entries.len(),
            want.len()
        );
        checked += 1;
    }
    println!("wild-agents host tool-list files checked: {checked}");
    assert!(checked >= 4, "{checked}");
}

#[test]
fn lock_check_names_the_host_tool_list_entries_a_server_change_breaks() {
    // The host lists are references like any other: when a pinned server drops a tool,
    // `lock --check` names each list entry that named it, at its line and column.
    let dir = scratch("host-tool-lists-lock-check");
    common::copy_tree(&repo_root().join("skills-fixtures/host-tool-lists"), &dir);
    git_init(&dir);
    let o = run_in(&dir, &["lock"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let capture = dir.join("git.tools.json");
    let mut tools: Value =
        serde_json::from_str(&std::fs::read_to_string(&capture).unwrap()).unwrap();
    tools["tools"]
        .as_array_mut()
        .unwrap()
        .retain(|t| t["name"] != "git_status");
    std::fs::write(&capture, tools.to_string()).unwrap();
    let o = run_in(&dir, &["lock", "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let out = stdout(&o);
    for place in [".gemini/settings.json:7:25:", ".roo/mcp.json:6:24:"] {
        assert!(
            out.contains(&format!("breaks {place} names `git_status`")),
            "{out}"
        );
    }
}

#[test]
fn roo_code_servers_are_locked_and_their_lists_checked_with_no_toolgate_toml() {
    // A repository whose only host configuration is Roo Code's `.roo/mcp.json`: `toolgate
    // lock` pins its server (from a capture toolgate.toml names, as for a server that cannot
    // start in CI); then, with no toolgate.toml, its `alwaysAllow`/`disabledTools` entries
    // and the agent files' `mcp--clock--TOOL` names are checked against the lock.
    let dir = scratch("roo-code-zero-config");
    std::fs::create_dir_all(dir.join(".roo")).unwrap();
    std::fs::copy(
        repo_root().join("skills-fixtures/host-tool-lists/clock.tools.json"),
        dir.join("clock.tools.json"),
    )
    .unwrap();
    std::fs::write(
        dir.join(".roo/mcp.json"),
        "{\n  \"mcpServers\": {\n    \"clock\": {\n      \"command\": \"uvx\",\n      \"args\": [\"mcp-server-time==2025.8.4\"],\n      \"alwaysAllow\": [\"*\", \"get_current_time\", \"get_time\"],\n      \"disabledTools\": [\"convert_time\"]\n    },\n    \"off\": {\"command\": \"x\", \"disabled\": true, \"alwaysAllow\": [\"y\"]}\n  }\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("AGENTS.md"),
        "Ask `mcp--clock--get_current_time`, then `mcp--clock--convert`.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("toolgate.toml"),
        "[servers.clock]\ntools_list = \"clock.tools.json\"\n",
    )
    .unwrap();
    git_init(&dir);
    let lock = run_in(&dir, &["lock"]);
    assert_eq!(lock.status.code(), Some(0), "{}", stderr(&lock));
    let locked = std::fs::read_to_string(dir.join("toolgate.lock")).unwrap();
    assert!(locked.contains(".roo/mcp.json"), "{locked}");
    std::fs::remove_file(dir.join("toolgate.toml")).unwrap();
    let o = run_in(&dir, &["lint", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let expected: Vec<(String, String, String, u64, u64)> = [
        (".roo/mcp.json", "get_time", 6, 49),
        ("AGENTS.md", "convert", 1, 55),
    ]
    .iter()
    .map(|(f, t, l, c)| {
        (
            f.to_string(),
            "unknown-tool".to_string(),
            t.to_string(),
            *l,
            *c,
        )
    })
    .collect();
    assert_eq!(placed(&o), expected);
    // The disabled server is not locked: its list is not checked, and the run says so.
    assert!(
        stderr(&o).contains("the tool lists of the server `off` are not checked"),
        "{}",
        stderr(&o)
    );
}
