//! `lint --fix` and `lint --diff` follow a rename the catalog declares, and `diff` reports it
//! as one change.

mod common;

use common::{copy_tree, repo_root, run, scratch, stderr, stdout};

/// A copy of tatara where mr_write's `comment` action is renamed `note`, declared with
/// `formerly`, and refine's restricted cell follows it.
fn renamed_catalog(dir: &std::path::Path) -> std::path::PathBuf {
    let catalog = dir.join("tatara");
    copy_tree(&repo_root().join("schema/tatara"), &catalog);
    let tool = catalog.join("tools/mr_write.json");
    let text = std::fs::read_to_string(&tool).unwrap();
    let edited = text
        .replace(
            "\"enum\": [\"open\", \"comment\", \"reply\"]",
            "\"enum\": [\"open\", \"note\", \"reply\"]",
        )
        .replacen(
            "\"inputSchema\"",
            "\"formerly\": {\"values\": {\"action\": {\"note\": [\"comment\"]}}},\n  \"inputSchema\"",
            1,
        );
    assert_ne!(text, edited);
    std::fs::write(&tool, edited).unwrap();
    let matrix = catalog.join("profiles.json");
    let text = std::fs::read_to_string(&matrix).unwrap();
    let edited = text.replace("\"action\": [\"comment\"]", "\"action\": [\"note\"]");
    assert_ne!(text, edited);
    std::fs::write(&matrix, edited).unwrap();
    catalog
}

#[test]
fn a_declared_value_rename_is_diffed_and_fixed() {
    let dir = scratch("fix_rename");
    let catalog = renamed_catalog(&dir);
    let catalog = catalog.to_str().unwrap();

    // The diff: one rename, major.
    let o = run(&["diff", "tatara", catalog]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "major (1):\n  enum-value-renamed: `mr_write.action` value \"comment\" was renamed to \"note\" [documentation, implement, refine, review, upgrade]\nrequired bump: major\nrisk: review\n"
    );

    let fixture = repo_root().join("tests/fixtures/fix-rename");
    let skill = dir.join("skills/review-replies/SKILL.md");
    std::fs::create_dir_all(skill.parent().unwrap()).unwrap();
    let original = std::fs::read(fixture.join("SKILL.md")).unwrap();
    std::fs::write(&skill, &original).unwrap();
    let skills = dir.join("skills");
    let skills = skills.to_str().unwrap();

    // Before: three stale calls, each an invalid-value naming the rename.
    let o = run(&["lint", "--catalog", catalog, skills, "--format", "concise"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let findings = stdout(&o);
    assert_eq!(findings.matches("invalid-value").count(), 3, "{findings}");
    assert_eq!(
        findings.matches("it was renamed to `note`").count(),
        3,
        "{findings}"
    );

    // --diff shows the change and writes nothing.
    let o = run(&["lint", "--catalog", catalog, skills, "--diff"]);
    assert_eq!(o.status.code(), Some(1));
    let patch = stdout(&o);
    assert_eq!(patch.matches("\n-").count(), 3, "{patch}");
    assert!(
        patch.contains("+mr_write(action=\"note\", repo=\"<repo>\""),
        "{patch}"
    );
    assert!(
        stderr(&o).contains("would apply 3 renames in 1 file; 0 findings would remain"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&skill).unwrap(), original);

    // --fix rewrites exactly those bytes.
    let o = run(&["lint", "--catalog", catalog, skills, "--fix"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("applied 3 renames in 1 file"),
        "{}",
        stdout(&o)
    );
    let expected = std::fs::read(fixture.join("expected-fixed.md")).unwrap();
    assert_eq!(
        String::from_utf8(std::fs::read(&skill).unwrap()).unwrap(),
        String::from_utf8(expected).unwrap()
    );

    // A second run is clean, and has nothing left to fix.
    let o = run(&["lint", "--catalog", catalog, skills]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).starts_with("All checks passed"),
        "{}",
        stdout(&o)
    );
    let o = run(&["lint", "--catalog", catalog, skills, "--diff"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "");
}

#[test]
fn undeclared_changes_are_not_fixed() {
    // Against today's tatara a stale value has no declared rename: --fix leaves it alone.
    let dir = scratch("fix_none");
    let skill = dir.join("SKILL.md");
    let text = "---\nname: x\ndescription: y\n---\n\n`mr_write(action=\"merge\", repo=\"r\")`\n";
    std::fs::write(&skill, text).unwrap();
    let o = run(&[
        "lint",
        "--catalog",
        "tatara",
        skill.to_str().unwrap(),
        "--fix",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&skill).unwrap(), text);
}

#[test]
fn a_renamed_tool_then_its_renamed_field_and_value() {
    // The fixture catalog renames a tool, one of its fields and two of its values: fixing
    // the tool name reveals the field and value renames, which a further pass repairs.
    let dir = scratch("fix_chain");
    copy_tree(&repo_root().join("skills-fixtures/renames-declared"), &dir);
    let skill = dir.join("SKILL.md");
    let d = dir.to_str().unwrap();
    let o = run(&["lint", d, "--diff"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("would apply 5 renames in 1 file; 0 findings would remain"),
        "{}",
        stderr(&o)
    );
    let o = run(&["lint", d, "--fix"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    let fixed = std::fs::read_to_string(&skill).unwrap();
    assert!(
        fixed.contains("`note_search(text=\"deploy\", scope=\"everyone\")`"),
        "{fixed}"
    );
    assert!(
        fixed.contains("`note_search(text=\"deploy\", scope=\"team\")`"),
        "{fixed}"
    );
    let o = run(&["lint", d]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}
