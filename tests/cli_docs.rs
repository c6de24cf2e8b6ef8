//! `toolgate docs`, end to end: the page, `--write` into a hand-written page, `--check`.

mod common;

use common::{copy_tree, repo_root, run, scratch, stderr, stdout};

#[test]
fn the_tatara_page_has_counts_rows_restrictions_and_parameters() {
    let o = run(&["docs", "--catalog", "tatara"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = stdout(&o);
    for (profile, count) in [
        ("brainstorm", 17),
        ("incident", 18),
        ("implement", 18),
        ("review", 16),
        ("refine", 13),
        ("documentation", 18),
        ("upgrade", 16),
    ] {
        let row = page
            .lines()
            .find(|l| l.starts_with(&format!("| `{profile}` |")))
            .unwrap_or_else(|| panic!("no row for {profile}"));
        let last = row.trim_end_matches('|').rsplit('|').next().unwrap_or("");
        assert_eq!(last.trim(), count.to_string(), "{row}");
    }
    let catalog = toolgate_schema::load_dir(&repo_root().join("schema/tatara")).expect("tatara");
    for tool in &catalog.tools {
        assert!(
            page.contains(&format!("| `{}`", tool.name)),
            "no gating row for {}",
            tool.name
        );
    }
    assert!(page.contains("`action` = `comment` only"), "{page}");
    for parameter in ["in_reply_to", "since_days"] {
        assert!(page.contains(&format!("`{parameter}`")), "{parameter}");
    }
}

#[test]
fn write_keeps_the_hand_written_text_and_check_passes_then_catches_a_lost_grant() {
    let dir = scratch("cli-docs");
    copy_tree(&repo_root().join("schema/tatara"), &dir.join("tatara"));
    let page = dir.join("page.md");
    let before = "# Our tools\n\nWritten by hand.\n\n<!-- toolgate:begin -->\nold\n<!-- toolgate:end -->\n\nAlso by hand.\n";
    std::fs::write(&page, before).expect("write page");
    let catalog = dir.join("tatara").display().to_string();
    let page_arg = page.display().to_string();

    let o = run(&["docs", "--catalog", &catalog, "--write", &page_arg]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let written = std::fs::read_to_string(&page).expect("read page");
    assert!(written.starts_with("# Our tools\n\nWritten by hand.\n\n<!-- toolgate:begin -->\n"));
    assert!(written.ends_with("<!-- toolgate:end -->\n\nAlso by hand.\n"));
    assert!(!written.contains("\nold\n"));
    let o = run(&["docs", "--catalog", &catalog, "--check", &page_arg]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // Review loses mr_write.
    let matrix = dir.join("tatara/profiles.json");
    let text = std::fs::read_to_string(&matrix).expect("matrix");
    let edited = text.replace(
        r#""mr_write": ["implement", "review", "refine", "documentation", "upgrade"]"#,
        r#""mr_write": ["implement", "refine", "documentation", "upgrade"]"#,
    );
    assert_ne!(text, edited, "the grant row was found");
    std::fs::write(&matrix, edited).expect("edit matrix");
    let o = run(&["docs", "--catalog", &catalog, "--check", &page_arg]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let diff = stdout(&o);
    assert!(
        diff.lines()
            .any(|l| l.starts_with('-') && l.contains("`mr_write`")),
        "{diff}"
    );
    assert!(stderr(&o).contains("stale"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&page).expect("read page"),
        written,
        "--check writes nothing"
    );
}

#[test]
fn a_page_without_markers_or_a_missing_page_could_not_be_checked() {
    let dir = scratch("cli-docs-markers");
    let page = dir.join("page.md");
    std::fs::write(&page, "no markers here\n").expect("write");
    let p = page.display().to_string();
    for flag in ["--write", "--check"] {
        let o = run(&["docs", "--catalog", "maetra", flag, &p]);
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        assert!(stderr(&o).contains("page.md"), "{}", stderr(&o));
    }
    let missing = dir.join("missing.md").display().to_string();
    let o = run(&["docs", "--catalog", "maetra", "--check", &missing]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = run(&["docs", "--catalog", "maetra", "--write", &missing]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run(&["docs", "--catalog", "maetra", "--check", &missing]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn the_committed_reference_pages_are_current() {
    for c in ["tatara", "maetra"] {
        let o = run(&[
            "docs",
            "--catalog",
            &format!("schema/{c}"),
            "--check",
            &format!("docs/{c}.md"),
        ]);
        assert_eq!(o.status.code(), Some(0), "docs/{c}.md: {}", stdout(&o));
    }
}
