//! `toolgate tools-list` and `manifest` answer a bundled catalog from the constants compiled
//! in by `catalog!`, and a catalog folder by the run-time path: the same bytes either way.

mod common;

use common::{run, stderr, stdout};

fn same(bundled: &[&str], folder: &[&str]) {
    let a = run(bundled);
    let b = run(folder);
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b), "{bundled:?}");
    assert_eq!(stderr(&a), stderr(&b), "{bundled:?}");
}

#[test]
fn bundled_constants_equal_the_folder_output() {
    let cases: [(&str, &[&str]); 2] = [
        (
            "tatara",
            &[
                "brainstorm",
                "incident",
                "implement",
                "review",
                "refine",
                "documentation",
                "upgrade",
                "",
                "clarify",
            ],
        ),
        (
            "maetra",
            &[
                "task_guard",
                "secure,govern",
                "govern,task_guard,secure",
                "",
                "x,govern",
            ],
        ),
    ];
    for (catalog, profiles) in cases {
        let dir = format!("schema/{catalog}");
        for profile in profiles {
            same(
                &["tools-list", "--catalog", catalog, "--profile", profile],
                &["tools-list", "--catalog", &dir, "--profile", profile],
            );
        }
        for format in ["toolgate", "tatara"] {
            same(
                &["manifest", "--catalog", catalog, "--format", format],
                &["manifest", "--catalog", &dir, "--format", format],
            );
        }
    }
}

/// The README's first set-up command prints the summary the README shows.
#[test]
fn the_readme_main_job_summary_is_what_the_lint_prints() {
    let o = common::run(&["lint", "skills-fixtures"]);
    assert_eq!(o.status.code(), Some(1), "{}", common::stderr(&o));
    let out = common::stdout(&o);
    let summary = out.lines().last().unwrap_or_default();
    assert!(summary.starts_with("Found "), "{summary}");
    let readme = std::fs::read_to_string(common::repo_root().join("README.md")).expect("README");
    assert!(
        readme.contains(&format!("\n{summary}\n")),
        "README.md does not show the summary `{summary}`"
    );
}
