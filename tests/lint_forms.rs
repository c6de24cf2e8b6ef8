//! `lint --fix` rewrites a declared rename in every form a call or a name is written in:
//! object-style and JSON calls (the name, and the field the rename sets), YAML-style calls,
//! `<tool>` tags, settings permissions and hook-matcher alternations; no line is added or
//! removed.

mod common;

use common::{copy_tree, repo_root, run, scratch, stderr};

#[test]
fn renames_are_fixed_in_every_form() {
    let dir = scratch("lint_forms_fix");
    let fixtures = repo_root().join("skills-fixtures");
    std::fs::copy(fixtures.join("toolgate.toml"), dir.join("toolgate.toml")).unwrap();
    for case in [
        "object-calls",
        "yaml-calls",
        "tool-tags",
        "hook-alternations",
    ] {
        copy_tree(&fixtures.join(case), &dir.join(case));
    }
    let o = run(&[
        "lint",
        dir.to_str().unwrap(),
        "--fix",
        "--format",
        "concise",
    ]);
    // Findings that no rename repairs stay: exit 1.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));

    let expect = [
        (
            "object-calls/SKILL.md",
            25,
            "Older notes still use the former reader, `issue_read { method: \"get\", repo: \"acme/web\", number: 3 }`,",
        ),
        (
            "object-calls/SKILL.md",
            38,
            r#"{"name": "issue_read", "arguments": {"method": "get", "repo": "acme/web", "number": 5}}"#,
        ),
        (
            "yaml-calls/SKILL.md",
            27,
            "issue_read method: \"get\"  repo: \"acme/web\"  number: 4",
        ),
        (
            "tool-tags/.claude/agents/sorter.md",
            15,
            "    <tool>issue_read</tool>",
        ),
        (
            "hook-alternations/.claude/settings.json",
            3,
            r#"    "allow": ["mcp__tracker__issue_list", "mcp__tracker__issue_read"]"#,
        ),
        (
            "hook-alternations/.claude/settings.json",
            7,
            r#"      { "matcher": "mcp__tracker__(issue_list|issue_read|issue_close)", "hooks": [] },"#,
        ),
    ];
    for (path, line, text) in expect {
        let fixed = std::fs::read_to_string(dir.join(path)).unwrap();
        let original = std::fs::read_to_string(fixtures.join(path)).unwrap();
        assert_eq!(fixed.lines().count(), original.lines().count(), "{path}");
        assert_eq!(fixed.lines().nth(line - 1), Some(text), "{path}:{line}");
    }

    // After the fix no rename is left to report.
    let o = run(&["lint", dir.to_str().unwrap(), "--format", "concise"]);
    let out = common::stdout(&o);
    assert!(!out.contains("renamed to"), "{out}");
}
