//! Bad input for the catalog loader and the manifest reader: each case gives its exact
//! message and exit code, and nothing panics.

mod common;

use std::path::{Path, PathBuf};

use common::{copy_tree, repo_root, run, scratch, stderr};

/// A copy of the tatara catalog in a scratch folder named `name`.
fn tatara_copy(name: &str) -> PathBuf {
    let dir = scratch(name).join("tatara");
    copy_tree(&repo_root().join("schema/tatara"), &dir);
    dir
}

fn check(dir: &Path) -> (Option<i32>, String) {
    let o = run(&["check", "--catalog", dir.to_str().unwrap()]);
    (o.status.code(), stderr(&o))
}

/// The error lines, with the scratch folder replaced by `CAT`.
fn errors(dir: &Path, text: &str) -> Vec<String> {
    let prefix = dir.to_str().unwrap();
    text.lines()
        .filter(|l| l.starts_with("error: "))
        .map(|l| l.replace(prefix, "CAT"))
        .collect()
}

fn one_error(dir: &Path, rel: &str, bytes: &[u8]) -> String {
    std::fs::write(dir.join(rel), bytes).unwrap();
    let (code, err) = check(dir);
    assert_eq!(code, Some(1), "{err}");
    let lines = errors(dir, &err);
    assert_eq!(lines.len(), 1, "{err}");
    lines[0].clone()
}

#[test]
fn empty_files() {
    let dir = tatara_copy("bad_empty");
    assert_eq!(
        one_error(&dir, "tools/task_get.json", b""),
        "error: CAT/tools/task_get.json: is empty; expected a tool file"
    );
    let dir = tatara_copy("bad_empty_matrix");
    assert_eq!(
        one_error(&dir, "profiles.json", b"  \n"),
        "error: CAT/profiles.json: is empty; expected a profile matrix"
    );
}

#[test]
fn a_file_that_is_all_open_brackets_and_deep_nesting() {
    let dir = tatara_copy("bad_brackets");
    assert_eq!(
        one_error(&dir, "tools/task_get.json", &[b'('; 200_000]),
        "error: CAT/tools/task_get.json:1:1: invalid JSON: expected value"
    );
    let dir = tatara_copy("bad_nesting");
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(
        one_error(&dir, "tools/task_get.json", deep.as_bytes()),
        "error: CAT/tools/task_get.json:1:1: not a tool file: expected a JSON object, found an array"
    );
    let deep = format!("{{\"name\": {}{}}}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(
        one_error(&dir, "tools/task_get.json", deep.as_bytes()),
        // Read as JSON first (to report every error of the file), so the nesting limit is met.
        "error: CAT/tools/task_get.json:1:136: invalid JSON: recursion limit exceeded"
    );
}

#[test]
fn a_one_megabyte_line_loads() {
    let dir = tatara_copy("bad_long_line");
    let path = dir.join("tools/task_get.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let long = "x".repeat(1 << 20);
    let one_line = text.replace('\n', " ").replacen("Read", &long, 1);
    assert!(one_line.len() > 1 << 20);
    std::fs::write(&path, one_line).unwrap();
    let (code, err) = check(&dir);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn line_endings_and_bom_keep_positions_right() {
    for (name, eol, bom) in [
        ("crlf", "\r\n", false),
        ("mixed", "\n", false),
        ("bom", "\n", true),
    ] {
        let dir = tatara_copy(&format!("bad_eol_{name}"));
        let text = "{\n  \"name\": \"task_get\",\n  \"group\": \"platform\",\n  \"description\": \"Get a task.\",\n  \"inputSchema\": {\n    \"type\": \"object\",\n    \"properties\": {\"task\": {\"type\": \"string\", \"$anchor\": \"uuid\"}}\n  }\n}\n";
        let mut body = if name == "mixed" {
            // Every other line ends with CRLF.
            text.split_inclusive('\n')
                .enumerate()
                .map(|(i, l)| {
                    if i % 2 == 0 {
                        l.replace('\n', "\r\n")
                    } else {
                        l.to_string()
                    }
                })
                .collect::<String>()
        } else {
            text.replace('\n', eol)
        };
        if bom {
            body.insert(0, '\u{feff}');
        }
        assert_eq!(
            one_error(&dir, "tools/task_get.json", body.as_bytes()),
            "error: CAT/tools/task_get.json:7:47: at /inputSchema/properties/task/$anchor: keyword `$anchor`: anchors are outside the accepted subset; reference `#/$defs/...` instead",
            "{name}"
        );
    }
}

#[test]
fn invalid_utf8_and_nul_bytes() {
    let dir = tatara_copy("bad_utf8");
    assert_eq!(
        one_error(&dir, "tools/task_get.json", b"{\"name\": \"task\xff_get\"}"),
        "error: CAT/tools/task_get.json:1:15: is not valid UTF-8 (bad byte at offset 14)"
    );
    let dir = tatara_copy("bad_nul");
    assert_eq!(
        one_error(&dir, "tools/task_get.json", b"{\"name\": \"task\0_get\"}"),
        "error: CAT/tools/task_get.json:1:15: invalid JSON: control character (\\u0000-\\u001F) found while parsing a string"
    );
}

#[test]
fn a_matrix_of_the_wrong_shape_and_a_tool_file_that_is_an_array() {
    let dir = tatara_copy("bad_shapes");
    assert_eq!(
        one_error(
            &dir,
            "profiles.json",
            b"{\"catalog\": \"tatara\", \"profiles\": [\"implement\"]}"
        ),
        "error: CAT/profiles.json:1:35: not a profile matrix: invalid type: sequence, expected an object"
    );
    let dir = tatara_copy("bad_array_tool");
    assert_eq!(
        one_error(&dir, "tools/task_get.json", b"[{\"name\": \"task_get\"}]"),
        "error: CAT/tools/task_get.json:1:1: not a tool file: expected a JSON object, found an array"
    );
}

#[test]
fn a_ref_cycle() {
    let dir = tatara_copy("bad_ref_cycle");
    let body = r##"{"name": "task_get", "group": "platform", "description": "Get a task.",
 "inputSchema": {"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
  "properties": {"task": {"$ref": "#/$defs/a"}}}}"##;
    std::fs::write(dir.join("tools/task_get.json"), body).unwrap();
    let (code, err) = check(&dir);
    assert_eq!(code, Some(1));
    let lines = errors(&dir, &err);
    assert_eq!(
        lines,
        [
            "error: CAT/tools/task_get.json:2:52: at /inputSchema/$defs/a/$ref: `$ref` cycle: #/$defs/a -> #/$defs/b -> #/$defs/a"
        ]
    );
}

#[test]
fn an_enum_of_ten_thousand_values_and_a_catalog_of_ten_thousand_tools() {
    let dir = tatara_copy("big_enum");
    let values: Vec<String> = (0..10_000).map(|i| format!("\"v{i}\"")).collect();
    let body = format!(
        "{{\"name\": \"task_get\", \"group\": \"platform\", \"description\": \"Get.\", \"inputSchema\": {{\"type\": \"object\", \"properties\": {{\"k\": {{\"type\": \"string\", \"enum\": [{}]}}}}}}}}",
        values.join(", ")
    );
    std::fs::write(dir.join("tools/task_get.json"), body).unwrap();
    assert_eq!(check(&dir).0, Some(0));

    let dir = tatara_copy("big_catalog");
    for i in 0..10_000 {
        let body = format!(
            "{{\"name\": \"code_extra_{i}\", \"group\": \"code\", \"description\": \"Extra {i}.\", \"inputSchema\": {{\"type\": \"object\", \"properties\": {{\"repo\": {{\"type\": \"string\"}}}}, \"required\": [\"repo\"]}}}}"
        );
        std::fs::write(dir.join(format!("tools/code_extra_{i}.json")), body).unwrap();
    }
    let (code, err) = check(&dir);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.starts_with("ok: catalog `tatara`: 10021 tools"),
        "{err}"
    );
}

#[test]
fn paths_with_spaces_and_non_ascii_names() {
    let base = scratch("bad_paths").join("my catalogs").join("tätara é");
    copy_tree(&repo_root().join("schema/tatara"), &base);
    assert_eq!(check(&base).0, Some(0));
    let o = run(&[
        "tools-list",
        "--catalog",
        base.to_str().unwrap(),
        "--profile",
        "review",
    ]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn a_folder_where_a_file_is_expected_and_the_reverse() {
    let dir = tatara_copy("bad_kinds");
    // A catalog "folder" that is a file.
    let file = dir.join("tools/task_get.json");
    let o = run(&["check", "--catalog", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        errors(&dir, &stderr(&o)),
        [
            "error: CAT/tools/task_get.json: is a file, not a catalog folder (expected a folder holding profiles.json and tools/)"
        ]
    );
    // A tool "file" that is a folder.
    std::fs::create_dir(dir.join("tools/extra.json")).unwrap();
    let (code, err) = check(&dir);
    assert_eq!(code, Some(1));
    assert_eq!(
        errors(&dir, &err),
        ["error: CAT/tools/extra.json: is a folder; tool files sit directly in tools/"]
    );
    // The matrix file where the catalog folder is expected: its folder is meant.
    std::fs::remove_dir(dir.join("tools/extra.json")).unwrap();
    let matrix = dir.join("profiles.json");
    let o = run(&[
        "tools-list",
        "--catalog",
        matrix.to_str().unwrap(),
        "--profile",
        "refine",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}
