//! The reference page of a catalog (`toolgate docs`, its library half): the pages of the
//! bundled catalogs, their region inside a hand-written page, and pages of shapes the bundled
//! catalogs do not have (a hand-written catalog, a surface found in the wild).

use std::path::{Path, PathBuf};

use toolgate_schema::docs::{BEGIN_MARKER, END_MARKER, check_region, render, write_region};
use toolgate_schema::{Catalog, SourceFile, load_dir, load_sources};

fn catalog_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn load(dir: &Path) -> Catalog {
    match load_dir(dir) {
        Ok(c) => c,
        Err(e) => panic!("catalog {} does not load:\n{e}", dir.display()),
    }
}

fn page(name: &str) -> String {
    render(&load(&catalog_dir(name)))
}

/// The cells of a table row, split at the pipes Markdown sees (an escaped `\|` is not one).
fn cells(line: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut backslashes = 0usize;
    for c in line.chars() {
        if c == '|' && backslashes.is_multiple_of(2) {
            cells.push(String::new());
        } else if let Some(last) = cells.last_mut() {
            last.push(c);
        }
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
    }
    // The text before the first pipe and after the last one is not a cell.
    cells.remove(0);
    cells.pop();
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}

/// The rows (header first, separator left out) of the table that follows `heading`.
fn table_after(page: &str, heading: &str) -> Vec<Vec<String>> {
    let start = page
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} in the page"));
    page[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter(|l| !l.starts_with("|---"))
        .map(cells)
        .collect()
}

/// Every table of the page has rows of as many cells as its header, and no line of it is a
/// region marker.
fn assert_well_formed(page: &str) {
    let mut width = None;
    for (i, line) in page.lines().enumerate() {
        assert!(
            line.trim() != BEGIN_MARKER && line.trim() != END_MARKER,
            "line {}: a marker",
            i + 1
        );
        if !line.starts_with('|') {
            width = None;
            continue;
        }
        let n = cells(line).len();
        match width {
            None => width = Some(n),
            Some(w) => assert_eq!(n, w, "line {}: {line}", i + 1),
        }
    }
    assert!(page.ends_with('\n') && !page.ends_with("\n\n"));
}

#[test]
fn bundled_pages_match_their_snapshots() {
    for name in ["tatara", "maetra"] {
        let page = page(name);
        assert_well_formed(&page);
        assert_eq!(page, render(&load(&catalog_dir(name))), "deterministic");
        insta::assert_snapshot!(name, page);
    }
}

#[test]
fn tatara_profiles_table_holds_the_derived_counts() {
    let rows = table_after(&page("tatara"), "## Profiles");
    assert_eq!(rows[0], ["profile", "description", "tools"]);
    let counts: Vec<(String, usize)> = rows[1..]
        .iter()
        .map(|r| {
            let count = r[2]
                .parse()
                .unwrap_or_else(|_| panic!("not a bare number: {r:?}"));
            (r[0].trim_matches('`').to_string(), count)
        })
        .collect();
    let expected = [
        ("brainstorm", 17),
        ("incident", 18),
        ("implement", 18),
        ("review", 16),
        ("refine", 13),
        ("documentation", 18),
        ("upgrade", 16),
    ];
    let expected: Vec<(String, usize)> =
        expected.iter().map(|(p, n)| (p.to_string(), *n)).collect();
    assert_eq!(counts, expected);
}

/// Every property of `schema` as the page names it: `name`, `parent.child`, `list[].child`.
fn property_paths(schema: &serde_json::Value, prefix: &str, out: &mut Vec<String>) {
    if let Some(props) = schema.get("properties").and_then(|p| p.as_object()) {
        for (name, prop) in props {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            out.push(path.clone());
            property_paths(prop, &path, out);
        }
    }
    if let Some(items) = schema.get("items") {
        property_paths(items, &format!("{prefix}[]"), out);
    }
}

#[test]
fn every_tatara_parameter_is_on_the_page() {
    let page = page("tatara");
    let mut checked = 0;
    let tools = catalog_dir("tatara").join("tools");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&tools)
        .expect("tatara/tools")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("a tool file");
        let tool: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let name = tool["name"].as_str().expect("a name");
        assert!(page.contains(&format!("\n### `{name}`\n")), "{name}");
        let mut paths = Vec::new();
        property_paths(&tool["inputSchema"], "", &mut paths);
        for path in paths {
            assert!(
                page.contains(&format!("\n| `{path}` | ")),
                "{}: parameter {path} is not on the page",
                file.display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 150, "{checked}");
    for named in ["in_reply_to", "since_days", "approval_citations[].quote"] {
        assert!(page.contains(&format!("| `{named}` |")), "{named}");
    }
}

#[test]
fn refine_restriction_is_in_the_gating_table() {
    let page = page("tatara");
    let rows = table_after(&page, "## Gating");
    let refine = rows[0]
        .iter()
        .position(|h| h == "refine")
        .expect("a refine column");
    let row = |tool: &str| {
        rows.iter()
            .find(|r| r[0] == format!("`{tool}`"))
            .unwrap_or_else(|| panic!("no row for {tool}"))
    };
    assert_eq!(row("mr_write")[refine], "✓ `action` = `comment` only");
    let review = rows[0].iter().position(|h| h == "review").expect("review");
    assert_eq!(row("mr_write")[review], "✓");
    assert_eq!(row("code_search")[refine], "");
    assert_eq!(row("submit_outcome")[refine], "✓ variant `refine`");
    let upgrade = rows[0]
        .iter()
        .position(|h| h == "upgrade")
        .expect("upgrade");
    assert_eq!(row("submit_outcome")[upgrade], "✓ variant `documentation`");
    assert_eq!(rows.len(), 1 + 21, "a row per tool");
    assert!(page.contains("Restricted for `refine`: `action` = `comment` only."));
}

#[test]
fn write_then_check_leaves_the_hand_written_text() {
    let generated = page("tatara");
    let before = "# Tatara tools\n\nWritten by hand: read this first.  \n\n";
    let after = "\n## See also\n\nMore hand-written text, with no newline at the end.";
    let stale = format!("{before}{BEGIN_MARKER}\nwhatever was here\n{END_MARKER}\n{after}");
    let written = write_region(Some(&stale), &generated).expect("markers are there");
    assert!(written.starts_with(&format!("{before}{BEGIN_MARKER}\n")));
    assert!(written.ends_with(&format!("\n{END_MARKER}\n{after}")));
    assert_eq!(
        written.len(),
        stale.len() - "whatever was here\n".len() + generated.len()
    );
    assert_eq!(check_region(&written, &generated), Ok(None));
    let diff = check_region(&stale, &generated)
        .expect("markers are there")
        .expect("stale");
    assert!(
        diff.starts_with("--- current\n+++ generated\n@@ "),
        "{diff}"
    );
    assert!(diff.contains("\n-whatever was here\n"), "{diff}");
    // A file that does not exist yet becomes a page holding the region only.
    let fresh = write_region(None, &generated).expect("a new page");
    assert_eq!(check_region(&fresh, &generated), Ok(None));
}

#[test]
fn check_names_the_tool_whose_grant_changed() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let copy = dir.path().join("tatara");
    std::fs::create_dir_all(copy.join("tools")).expect("mkdir");
    let original = catalog_dir("tatara");
    for entry in std::fs::read_dir(original.join("tools")).expect("tools") {
        let path = entry.expect("an entry").path();
        let to = copy.join("tools").join(path.file_name().expect("a name"));
        std::fs::copy(&path, to).expect("copy");
    }
    let matrix = std::fs::read_to_string(original.join("profiles.json")).expect("matrix");
    let granted = r#""mr_write": ["implement", "review", "refine", "documentation", "upgrade"]"#;
    assert!(
        matrix.contains(granted),
        "the matrix changed: update this test"
    );
    let edited = matrix.replace(
        granted,
        r#""mr_write": ["implement", "refine", "documentation", "upgrade"]"#,
    );
    std::fs::write(copy.join("profiles.json"), edited).expect("write");

    let committed = write_region(None, &page("tatara")).expect("a page");
    let drifted = render(&load(&copy));
    let diff = check_region(&committed, &drifted)
        .expect("markers are there")
        .expect("the page is stale");
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| (l.starts_with('-') || l.starts_with('+')) && !l.starts_with("---"))
        .filter(|l| !l.starts_with("+++"))
        .collect();
    assert!(changed.iter().any(|l| l.contains("`mr_write`")), "{diff}");
    // Review lost a tool: its count went from 16 to 15.
    assert!(
        changed
            .iter()
            .any(|l| l.starts_with("-| `review` |") && l.ends_with("| 16 |"))
    );
    assert!(
        changed
            .iter()
            .any(|l| l.starts_with("+| `review` |") && l.ends_with("| 15 |"))
    );
    assert!(diff.lines().any(|l| l.starts_with("@@ -")), "{diff}");
}

fn source(rel: &str, text: &str) -> SourceFile {
    SourceFile {
        rel: rel.to_string(),
        bytes: text.as_bytes().to_vec(),
    }
}

/// A small catalog written for this test, with what the bundled ones lack: `$defs`, objects
/// nested in arrays, annotations, former names, a conditional, a restriction on a variant,
/// and a long description holding `|`, line breaks and a marker.
fn atelier() -> Catalog {
    let matrix = r#"{
      "catalog": "atelier",
      "description": "A workshop's notes and drawings.\nSecond line | with a pipe.",
      "selector": { "env": "ATELIER_ROLE", "combine": false },
      "profiles": {
        "apprentice": "Reads | sketches.",
        "master": "Edits everything."
      },
      "parameters": {
        "bench": { "required": false, "schema": { "type": "string", "description": "Which bench; the nearest when left out." } }
      },
      "groups": {
        "drawings": { "description": "Plans and sketches.", "add_parameters": ["bench"] },
        "notes": { "description": "The notebook." }
      },
      "always_on": ["note_read"],
      "grants": { "drawing_revise": ["master", "apprentice"], "note_write": ["*"] },
      "variants": { "note_write": { "apprentice": "draft", "master": "final" } },
      "restrictions": { "note_write": { "apprentice": { "mode": ["append"] } } }
    }"#;
    let revise = r##"{
      "name": "drawing_revise",
      "group": "drawings",
      "description": "Revise a drawing by a list of strokes.\n\nColumns | of the ledger:\n| stroke | width |\n<!-- toolgate:end -->\nThe last line.",
      "inputSchema": {
        "type": "object",
        "$defs": {
          "Stroke": {
            "type": "object",
            "description": "One stroke of the pen.",
            "properties": {
              "from": { "type": "array", "items": { "type": "number" }, "minItems": 2, "maxItems": 2 },
              "width": { "type": "number", "exclusiveMinimum": 0, "default": 0.5 }
            },
            "required": ["from"]
          }
        },
        "properties": {
          "drawing": { "type": "string", "minLength": 1, "description": "Id of the drawing." },
          "strokes": { "type": "array", "items": { "$ref": "#/$defs/Stroke" } },
          "mode": { "type": "string", "enum": ["add", "erase"], "default": "add" },
          "reason": { "type": "string" },
          "options": {
            "type": "object",
            "properties": {
              "layer": { "type": "integer", "minimum": 0, "maximum": 9 },
              "tags": { "type": "object", "additionalProperties": { "type": "string" } }
            }
          }
        },
        "required": ["drawing", "strokes"],
        "additionalProperties": false,
        "if": { "properties": { "mode": { "const": "erase" } }, "required": ["mode"] },
        "then": { "required": ["reason"] }
      },
      "annotations": { "title": "Revise | redraw", "destructiveHint": true, "idempotentHint": false },
      "formerly": { "names": ["drawing_edit"], "fields": { "strokes": ["lines"] } }
    }"##;
    let read = r#"{
      "name": "note_read",
      "group": "notes",
      "description": "Read the notebook.",
      "inputSchema": { "type": "object", "properties": {} }
    }"#;
    let draft = r#"{
      "name": "note_write", "variant": "draft", "group": "notes",
      "description": "Add a draft note.",
      "inputSchema": {
        "type": "object",
        "properties": { "mode": { "type": "string", "enum": ["append", "replace"] }, "text": { "type": "string" } },
        "required": ["mode", "text"]
      }
    }"#;
    let fin = r#"{
      "name": "note_write", "variant": "final", "group": "notes",
      "description": "Write a final note.",
      "inputSchema": {
        "type": "object",
        "properties": { "text": { "type": "string" }, "signed": { "type": "boolean", "default": true } },
        "required": ["text"]
      }
    }"#;
    let sources = vec![
        source("profiles.json", matrix),
        source("tools/drawing_revise.json", revise),
        source("tools/note_read.json", read),
        source("tools/note_write.draft.json", draft),
        source("tools/note_write.final.json", fin),
    ];
    match load_sources(Path::new("atelier"), sources) {
        Ok(c) => c,
        Err(e) => panic!("the test catalog does not load:\n{e}"),
    }
}

#[test]
fn a_hand_written_catalog_with_defs_and_long_descriptions() {
    let page = render(&atelier());
    assert_well_formed(&page);
    for row in [
        "| `strokes[].from` | array of number | yes |  | items ≥ 2; items ≤ 2 |  |",
        "| `strokes[].width` | number | no | `0.5` | > 0 |  |",
        "| `options.tags` | object of string values | no |  |  |  |",
        "| `bench` | string | no |  |  | Which bench; the nearest when left out. |",
    ] {
        assert!(page.contains(row), "{row}\n{page}");
    }
    assert!(page.contains("When `mode` = `erase`, `reason` is required."));
    assert!(page.contains("Formerly named `drawing_edit`."));
    assert!(page.contains("Field `strokes` was formerly `lines`."));
    assert!(page.contains("title “Revise | redraw”, `destructiveHint` true"));
    assert!(page.contains("&lt;!-- toolgate:end -->"));
    let region = write_region(Some(&format!("x\n{BEGIN_MARKER}\n{END_MARKER}\n")), &page);
    assert!(region.is_ok(), "{region:?}");
    insta::assert_snapshot!("atelier", page);
}

/// The shared anchors, beside the repository (`../shared`), when they are checked out.
fn wild_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/anchors/wild");
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

/// A tool of a captured `tools/list` as a catalog tool file, in `group`.
fn tool_file(tool: &serde_json::Value, group: &str) -> Option<String> {
    let mut file = serde_json::Map::new();
    file.insert("name".into(), tool.get("name")?.clone());
    file.insert("group".into(), group.into());
    file.insert(
        "description".into(),
        tool.get("description")
            .cloned()
            .unwrap_or_else(|| "".into()),
    );
    file.insert("inputSchema".into(), tool.get("inputSchema")?.clone());
    if let Some(a) = tool.get("annotations") {
        file.insert("annotations".into(), a.clone());
    }
    serde_json::to_string(&file).ok()
}

fn matrix(profiles: &[&str], grants: &serde_json::Value, groups: &[&str]) -> String {
    let profiles: serde_json::Map<_, _> = profiles
        .iter()
        .map(|p| (p.to_string(), format!("The {p} toolset.").into()))
        .collect();
    let groups: serde_json::Map<_, _> = groups
        .iter()
        .map(|g| {
            (
                g.to_string(),
                serde_json::json!({ "description": format!("Tools of {g}.") }),
            )
        })
        .collect();
    serde_json::json!({
        "catalog": "github",
        "description": "github-mcp-server's tools, by toolset.",
        "selector": { "env": "GITHUB_TOOLSETS", "combine": true },
        "profiles": profiles,
        "groups": groups,
        "grants": grants
    })
    .to_string()
}

#[test]
fn a_wild_surface_renders() {
    let Some(wild) = wild_dir() else { return };
    let dir = wild.join("github-mcp-server");
    let read = |name: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(dir.join(name)).expect("a capture file");
        serde_json::from_str(&text).expect("JSON")
    };
    let tools = read("tools.json");
    let toolsets = read("toolsets.json");
    let toolsets = toolsets.as_object().expect("toolset -> tools");
    let tools = tools["tools"].as_array().expect("tools");
    // The first toolset that lists a tool is its group; a tool of no toolset is left out.
    let group_of = |name: &str| {
        toolsets
            .iter()
            .find(|(_, ts)| ts.as_array().is_some_and(|a| a.iter().any(|t| t == name)))
            .map(|(set, _)| set.clone())
    };
    // Keep the tools the loader accepts today, each tried in a catalog of its own.
    let mut kept: Vec<(String, String, String)> = Vec::new();
    for tool in tools {
        let Some(name) = tool["name"].as_str() else {
            continue;
        };
        let Some(group) = group_of(name) else {
            continue;
        };
        let Some(file) = tool_file(tool, &group) else {
            continue;
        };
        let grants = serde_json::json!({ name: [group.as_str()] });
        let alone = vec![
            source("profiles.json", &matrix(&[&group], &grants, &[&group])),
            source(&format!("tools/{name}.json"), &file),
        ];
        if load_sources(Path::new("github"), alone).is_ok() {
            kept.push((name.to_string(), group, file));
        }
    }
    println!("{} of {} github tools load today", kept.len(), tools.len());
    assert!(kept.len() >= 10, "only {} tools load", kept.len());

    let sets: Vec<&str> = toolsets.keys().map(String::as_str).collect();
    let mut groups: Vec<&str> = kept.iter().map(|(_, g, _)| g.as_str()).collect();
    groups.sort();
    groups.dedup();
    let mut grants = serde_json::Map::new();
    for (name, _, _) in &kept {
        let sets: Vec<serde_json::Value> = toolsets
            .iter()
            .filter(|(_, ts)| ts.as_array().is_some_and(|a| a.iter().any(|t| t == name)))
            .map(|(set, _)| set.clone().into())
            .collect();
        grants.insert(name.clone(), sets.into());
    }
    let mut sources = vec![source(
        "profiles.json",
        &matrix(&sets, &grants.into(), &groups),
    )];
    for (name, _, file) in &kept {
        sources.push(source(&format!("tools/{name}.json"), file));
    }
    let catalog = match load_sources(Path::new("github"), sources) {
        Ok(c) => c,
        Err(e) => panic!("the github catalog does not load:\n{e}"),
    };
    let page = render(&catalog);
    assert_well_formed(&page);
    for (name, _, _) in &kept {
        assert!(page.contains(&format!("\n### `{name}`\n")), "{name}");
    }
    let gating = table_after(&page, "## Gating");
    assert_eq!(gating.len(), 1 + kept.len());
    assert_eq!(gating[0].len(), 1 + sets.len());
    // Too many toolsets to list every combination: only all of them together.
    let combos = table_after(&page, "| combination | tools |");
    assert_eq!(combos.len(), 2, "{combos:?}");
    assert_eq!(combos[1][1], kept.len().to_string());
    let written = write_region(None, &page).expect("a page");
    assert_eq!(check_region(&written, &page), Ok(None));
}
