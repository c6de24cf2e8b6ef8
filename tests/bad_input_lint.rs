//! Bad input for the lint: each case gives its exact output and exit code, and nothing
//! panics. (The catalog half of the matrix is tests/bad_input_catalog.rs; tests/lint_cli.rs
//! has malformed files mixed in one walk, and a timing check of hostile input.)

mod common;

use std::path::{Path, PathBuf};

use common::{scratch, stderr, stdout, toolgate};

/// `toolgate lint --catalog tatara --format concise ARGS` run in `dir`: exit code, standard
/// output, standard error.
fn lint(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let o = toolgate()
        .current_dir(dir)
        .args(["lint", "--catalog", "tatara", "--format", "concise"])
        .args(args)
        .output()
        .expect("toolgate runs");
    (o.status.code(), stdout(&o), stderr(&o))
}

/// A scratch folder holding `name` with `bytes`.
fn with_file(test: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let dir = scratch(test);
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    dir
}

const INVALID_X: &str = "invalid-value: `x` is not a valid `action` for `mr_write`; allowed: `open`, `comment` and `reply`";

#[test]
fn empty_files() {
    for (name, bytes) in [("empty.md", &b""[..]), ("bom-only.md", b"\xef\xbb\xbf")] {
        let dir = with_file("lint-bad-empty", name, bytes);
        assert_eq!(
            lint(&dir, &[name]),
            (
                Some(0),
                "All checks passed: 1 file and 0 calls checked.\n".to_string(),
                String::new()
            ),
            "{name}"
        );
    }
    // An empty manifest fails closed; an empty baseline is not a baseline; an empty
    // toolgate.toml names no surface.
    let dir = with_file(
        "lint-bad-empty-inputs",
        "SKILL.md",
        b"`mr_write(action=\"x\")`\n",
    );
    std::fs::write(dir.join("empty.json"), b"").unwrap();
    let o = toolgate()
        .current_dir(&dir)
        .args(["lint", "--manifest", "empty.json", "SKILL.md"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: empty.json: is empty; expected a manifest\nerror: cannot check without a surface; failing closed (--allow-missing-manifest makes a missing manifest a warning)\n"
    );
    assert_eq!(
        lint(&dir, &["--baseline", "empty.json", "SKILL.md"]),
        (
            Some(2),
            String::new(),
            "error: empty.json: cannot read the baseline: not a toolgate baseline: EOF while parsing a value at line 1 column 0\n".to_string()
        )
    );
    std::fs::write(dir.join("toolgate.toml"), b"").unwrap();
    let o = toolgate()
        .current_dir(&dir)
        .args(["lint", "SKILL.md"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: no surface to check against: give --catalog NAME|DIR or --manifest FILE, or set `catalog` or `manifest` in toolgate.toml\n"
    );
}

#[test]
fn a_file_that_is_all_open_parentheses() {
    let parens = "(".repeat(200_000);
    for (name, text) in [
        ("prose.md", parens.clone()),
        ("code.md", format!("`{parens}`\n```\n{parens}\n```\n")),
        // A tool's name before them makes one call, with no pair to check.
        ("after-a-name.md", format!("mr_write{parens}")),
    ] {
        let dir = with_file("lint-bad-parens", name, text.as_bytes());
        let calls = if name == "after-a-name.md" {
            "1 call"
        } else {
            "0 calls"
        };
        assert_eq!(
            lint(&dir, &[name]),
            (
                Some(0),
                format!("All checks passed: 1 file and {calls} checked.\n"),
                String::new()
            ),
            "{name}"
        );
    }
}

#[test]
fn ten_thousand_nested_brackets() {
    // Past the parser's nesting budget the argument list ends there: the pairs before it
    // are still checked, and so is the next call.
    let deep = format!(
        "`mr_write(action=\"x\", body={}{})`\n\n`mr_write(action=\"x\", body={}`\n\n```\nmr_write(action=\"x\", labels=({}\n```\n\n`mr_write(action=\"x\")`\n",
        "[".repeat(10_000),
        "]".repeat(10_000),
        "{".repeat(10_000),
        "(".repeat(10_000),
    );
    let dir = with_file("lint-bad-nested", "SKILL.md", deep.as_bytes());
    let (code, out, err) = lint(&dir, &["SKILL.md"]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        out,
        format!(
            "SKILL.md:1:18: {INVALID_X}\nSKILL.md:3:18: {INVALID_X}\nSKILL.md:6:17: {INVALID_X}\nSKILL.md:9:18: {INVALID_X}\nFound 4 errors in 1 file (1 file and 4 calls checked).\n"
        )
    );
    assert_eq!(err, "");
}

#[test]
fn a_one_megabyte_line() {
    let line = format!(
        "{} `mr_write(action=\"x\")` and then `task_note(kind=\"plän\", body=\"b\")` too\n",
        "x".repeat(1 << 20)
    );
    let dir = with_file("lint-bad-long-line", "SKILL.md", line.as_bytes());
    let (code, out, err) = lint(&dir, &["SKILL.md"]);
    assert_eq!(code, Some(1), "{err}");
    // 2^20 x's, a space, a backtick, then `mr_write(action=` (16 characters).
    assert_eq!(
        out,
        format!(
            "SKILL.md:1:1048595: {INVALID_X}\nSKILL.md:1:1048626: invalid-value: `plän` is not a valid `kind` for `task_note`; allowed: `note`, `plan` and `handoff`\nFound 2 errors in 1 file (1 file and 2 calls checked).\n"
        )
    );
}

#[test]
fn crlf_and_mixed_line_endings() {
    // CRLF throughout, front matter included.
    let crlf = "---\r\nprofiles: [\"refine\"]\r\n---\r\n\r\nText.\r\n`mr_write(action=\"open\")`\r\n```\r\nmr_write(\r\n  action=\"x\",\r\n)\r\n```\r\n";
    let dir = with_file("lint-bad-crlf", "SKILL.md", crlf.as_bytes());
    let (code, out, err) = lint(&dir, &["SKILL.md"]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        out,
        "SKILL.md:6:18: value-not-in-profile: `action=\"open\"` of `mr_write` is not allowed for profile refine (allowed there: `comment`); it is for implement, review, documentation, upgrade\nSKILL.md:9:10: invalid-value: `x` is not a valid `action` for `mr_write`; allowed: `comment`\nFound 2 errors in 1 file (1 file and 2 calls checked).\n"
    );
    // LF, CRLF and a lone CR mixed. Lines end at LF (a CRLF's CR belongs to its line), as
    // git and GitHub count them, so annotations land on the line a pull request shows; a
    // lone CR does not end a line.
    let mixed = "A\r\nB\nC\r\n`mr_write(action=\"x\")` and `task_note(kind=\"é\", body=\"b\")`\n\r\nx\r`mr_write(action=\"y\")`\n";
    let dir = with_file("lint-bad-mixed", "SKILL.md", mixed.as_bytes());
    let (code, out, err) = lint(&dir, &["SKILL.md"]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(
        out,
        format!(
            "SKILL.md:4:18: {INVALID_X}\nSKILL.md:4:44: invalid-value: `é` is not a valid `kind` for `task_note`; allowed: `note`, `plan` and `handoff`\nSKILL.md:6:20: invalid-value: `y` is not a valid `action` for `mr_write`; allowed: `open`, `comment` and `reply`\nFound 3 errors in 1 file (1 file and 3 calls checked).\n"
        )
    );
    // The JSON output has the same positions, and end columns.
    let o = toolgate()
        .current_dir(&dir)
        .args([
            "lint",
            "--catalog",
            "tatara",
            "--format",
            "json",
            "SKILL.md",
        ])
        .output()
        .unwrap();
    let findings: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let positions: Vec<[u64; 4]> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| ["line", "column", "end_line", "end_column"].map(|k| f[k].as_u64().unwrap()))
        .collect();
    assert_eq!(positions, [[4, 18, 4, 21], [4, 44, 4, 47], [6, 20, 6, 23]]);
}

#[test]
fn a_utf8_byte_order_mark() {
    // The mark is not a column: the finding is where an editor shows it.
    let dir = with_file(
        "lint-bad-bom",
        "SKILL.md",
        b"\xef\xbb\xbf`mr_write(action=\"x\")`\n",
    );
    assert_eq!(
        lint(&dir, &["SKILL.md"]),
        (
            Some(1),
            format!(
                "SKILL.md:1:18: {INVALID_X}\nFound 1 error in 1 file (1 file and 1 call checked).\n"
            ),
            String::new()
        )
    );
    let o = toolgate()
        .current_dir(&dir)
        .args(["lint", "--catalog", "tatara", "SKILL.md"])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&o),
        format!(
            "error[invalid-value]: {}\n --> SKILL.md:1:18\n  |\n1 | `mr_write(action=\"x\")`\n  |                  ^^^\n\nFound 1 error in 1 file (1 file and 1 call checked).\n",
            INVALID_X.trim_start_matches("invalid-value: ")
        )
    );
    // Front matter after a BOM is front matter.
    let dir = with_file(
        "lint-bad-bom-front-matter",
        "SKILL.md",
        b"\xef\xbb\xbf---\nprofiles: [\"clarify\"]\n---\n`mr_write(action=\"x\")`\n",
    );
    assert_eq!(
        lint(&dir, &["SKILL.md"]),
        (
            Some(1),
            format!(
                "SKILL.md:2:12: unknown-profile: unknown profile `clarify`; known profiles: brainstorm, incident, implement, review, refine, documentation, upgrade; the skill is checked against every profile\nSKILL.md:4:18: {INVALID_X}\nFound 2 errors in 1 file (1 file and 1 call checked).\n"
            ),
            String::new()
        )
    );
}

#[test]
fn invalid_utf8_is_read_lossily_and_nul_bytes_are_not_checked() {
    // Hosts read a file with a bad byte and follow the rest of it, so the lint does too, and
    // says so; a binary file is no agent file.
    let lossy: [(&str, &[u8], &str, &str); 2] = [
        (
            "utf8.md",
            b"---\nname: x\n---\nok \xff\xfe here `mr_write(action=\"x\")`\n",
            "utf8.md:4:29: invalid-value: `x` is not a valid `action` for `mr_write`; allowed: `open`, `comment` and `reply`\n",
            "warning: utf8.md: is not valid UTF-8 (bad byte at offset 19, line 4); read lossily, and --fix leaves it alone\n",
        ),
        (
            "truncated.md",
            "`mr_write(action=\"x\")` é"
                .as_bytes()
                .split_last()
                .unwrap()
                .1,
            "truncated.md:1:18: invalid-value: `x` is not a valid `action` for `mr_write`; allowed: `open`, `comment` and `reply`\n",
            "warning: truncated.md: is not valid UTF-8 (bad byte at offset 23, line 1); read lossily, and --fix leaves it alone\n",
        ),
    ];
    for (name, bytes, finding, warning) in lossy {
        let dir = with_file("lint-bad-bytes", name, bytes);
        assert_eq!(
            lint(&dir, &[name]),
            (
                Some(1),
                format!("{finding}Found 1 error in 1 file (1 file and 1 call checked).\n"),
                warning.to_string()
            ),
            "{name}"
        );
    }
    let dir = with_file(
        "lint-bad-bytes",
        "nul.md",
        b"text\0more `mr_write(action=\"x\")`\n",
    );
    assert_eq!(
        lint(&dir, &["nul.md"]),
        (
            Some(2),
            "No findings in what could be checked: 0 files and 0 calls checked; 1 file could not be checked.\n".to_string(),
            "error: nul.md: is a binary file (it holds NUL bytes); not checked\n".to_string()
        )
    );
}

#[test]
fn paths_with_spaces_and_non_ascii_names() {
    let dir = with_file(
        "lint-bad-names",
        "my skills/ünï cödé/SKILL.md",
        b"`mr_write(action=\"x\")`\n",
    );
    let expected = format!(
        "my skills/ünï cödé/SKILL.md:1:18: {INVALID_X}\nFound 1 error in 1 file (1 file and 1 call checked).\n"
    );
    // Walked from its folder, and named directly.
    for arg in ["my skills", "my skills/ünï cödé/SKILL.md"] {
        assert_eq!(
            lint(&dir, &[arg]),
            (Some(1), expected.clone(), String::new()),
            "{arg}"
        );
    }
    let o = toolgate()
        .current_dir(&dir)
        .args([
            "lint",
            "--catalog",
            "tatara",
            "--format",
            "github",
            "my skills",
        ])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&o),
        format!(
            "::error file=my skills/ünï cödé/SKILL.md,line=1,col=18,endLine=1,endColumn=21,title=toolgate invalid-value::{}\n",
            INVALID_X.trim_start_matches("invalid-value: ")
        )
    );
    let o = toolgate()
        .current_dir(&dir)
        .args([
            "lint",
            "--catalog",
            "tatara",
            "--format",
            "json",
            "my skills",
        ])
        .output()
        .unwrap();
    let findings: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(findings[0]["path"], "my skills/ünï cödé/SKILL.md");
    // A manifest and a configuration under such names.
    std::fs::create_dir_all(dir.join("sürface dir")).unwrap();
    std::fs::write(
        dir.join("sürface dir/mänifest v1.json"),
        toolgate_generated::manifest("tatara", false).unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.join("sürface dir/my config.toml"),
        "manifest = \"mänifest v1.json\"\n",
    )
    .unwrap();
    for args in [
        ["--manifest", "sürface dir/mänifest v1.json", "my skills"],
        ["--config", "sürface dir/my config.toml", "my skills"],
    ] {
        let o = toolgate()
            .current_dir(&dir)
            .args(["lint", "--format", "concise"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert_eq!(stdout(&o), expected, "{args:?}");
    }
}

#[test]
fn a_folder_where_a_file_is_expected_and_the_reverse() {
    let dir = with_file("lint-bad-kinds", "SKILL.md", b"`mr_write(action=\"x\")`\n");
    std::fs::create_dir_all(dir.join("a folder")).unwrap();
    let run = |args: &[&str]| {
        let o = toolgate()
            .current_dir(&dir)
            .arg("lint")
            .args(args)
            .output()
            .unwrap();
        (o.status.code(), stdout(&o), stderr(&o))
    };
    let refused = |message: &str| (Some(2), String::new(), format!("{message}\n"));
    assert_eq!(
        run(&["--manifest", "a folder", "SKILL.md"]),
        refused(
            "error: a folder: is a folder; --manifest takes a manifest file (use --catalog for a catalog folder)\nerror: cannot check without a surface; failing closed (--allow-missing-manifest makes a missing manifest a warning)"
        )
    );
    assert_eq!(
        run(&["--catalog", "tatara", "--config", "a folder", "SKILL.md"]),
        refused("error: a folder: is a folder; --config takes a toolgate.toml file")
    );
    for extra in [&[][..], &["--update-baseline"][..]] {
        let mut args = vec!["--catalog", "tatara", "--baseline", "a folder", "SKILL.md"];
        args.extend_from_slice(extra);
        assert_eq!(
            run(&args),
            refused(
                "error: a folder: is a folder; --baseline takes a baseline file (JSON, written by the first run)"
            ),
            "{extra:?}"
        );
    }
    // A file where a catalog folder is expected.
    assert_eq!(
        run(&["--catalog", "SKILL.md", "SKILL.md"]),
        refused(
            "error: SKILL.md: is a file, not a catalog folder (expected a folder holding profiles.json and tools/)"
        )
    );
    // A folder that is not a catalog.
    assert_eq!(
        run(&["--catalog", "a folder", "SKILL.md"]),
        refused(
            "error: a folder/profiles.json: is missing: a catalog folder needs profiles.json (the profile matrix) and tools/\nerror: a folder/tools: holds no tool files: a catalog needs at least one tools/<name>.json"
        )
    );
    // A path that does not exist, next to one that does: the one is still checked.
    assert_eq!(
        run(&[
            "--catalog",
            "tatara",
            "--format",
            "concise",
            "missing.md",
            "SKILL.md"
        ]),
        (
            Some(2),
            format!(
                "SKILL.md:1:18: {INVALID_X}\nFound 1 error in 1 file (1 file and 1 call checked); 1 file could not be checked.\n"
            ),
            "error: missing.md: no such file or folder\n".to_string()
        )
    );
}
