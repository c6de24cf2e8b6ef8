//! Which case files of the JSON-Schema-Test-Suite the two suite tests run (this crate's
//! `json_schema_test_suite.rs`, through the run-time path, and `generated/tests/suite.rs`,
//! through generated code): every file of a draft's folder but the ones [`EXCLUDED`] lists,
//! so that both run the same cases and a file the suite adds is run without editing a list.
//! Included by both with `mod` (`#[path]` from the other crate).

use std::path::Path;

/// The case files left out, by draft folder, each a keyword outside the accepted subset
/// (`$id` and anchors, `$dynamicRef`, remote `$ref`s, `unevaluated*`, `content*`,
/// `$vocabulary`). The `optional/` folder is not read at all.
const EXCLUDED: &[(&str, &[&str])] = &[
    (
        "draft2020-12",
        &[
            "anchor",
            "content",
            "dynamicRef",
            "refRemote",
            "unevaluatedItems",
            "unevaluatedProperties",
            "vocabulary",
        ],
    ),
    ("draft7", &["refRemote"]),
];

/// The case files to run of `draft` (a folder of the suite at `suite`): the name without
/// `.json` of every file directly in it but the excluded, sorted. Panics when the folder
/// cannot be read or an excluded file is not there (the list has gone stale).
pub fn case_files(suite: &Path, draft: &str) -> Vec<String> {
    let dir = suite.join(draft);
    let excluded = EXCLUDED
        .iter()
        .find(|(d, _)| *d == draft)
        .map_or(&[][..], |(_, files)| files);
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a folder entry").path())
        .filter(|path| path.is_file())
        .filter_map(|path| {
            Some(
                path.file_name()?
                    .to_str()?
                    .strip_suffix(".json")?
                    .to_string(),
            )
        })
        .collect();
    for name in excluded {
        assert!(
            files.iter().any(|f| f == name),
            "{draft}/{name}.json is excluded but not in the suite: take it off the list"
        );
    }
    files.retain(|f| !excluded.contains(&f.as_str()));
    files.sort();
    files
}
