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
    // Every rule (`toolgate explain` lists ten).
    assert_eq!(
        run0["tool"]["driver"]["rules"].as_array().unwrap().len(),
        10
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
    // The ten rules, then `host-limits` (the hosts' limits `check` applies), then the audit's
    // rules and `audit-allow` after a blank line and a heading.
    let out = stdout(&o);
    let (lint_part, audit_part) = out.split_once("\n\n").expect("two sections");
    assert_eq!(lint_part.lines().count(), 11);
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
