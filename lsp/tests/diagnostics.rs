//! The server's diagnostics are the CLI's findings: every `skills-fixtures` case, each file
//! `toolgate lint` walks opened in the server from its text, gives exactly the lines of the
//! case's `expected.txt` (which `tests/lint_fixtures.rs` holds equal to the CLI's output).

mod support;

use std::path::Path;

use lsp_types::NumberOrString;
use serde_json::json;
use support::{Client, repo_root};

/// The text an editor would hold for a file: decoded (lossily), its BOM dropped.
fn editor_text(path: &Path) -> String {
    let bytes = std::fs::read(path).expect("readable");
    let text = String::from_utf8_lossy(&bytes).into_owned();
    text.strip_prefix('\u{feff}')
        .map(str::to_string)
        .unwrap_or(text)
}

#[test]
fn every_fixture_case_gives_the_clis_findings() {
    let root = repo_root();
    // Columns in characters, as the CLI counts them.
    let mut client = Client::start(&root, json!({"general": {"positionEncodings": ["utf-32"]}}));
    let mut cases = 0;
    let mut findings = 0;
    let mut dirs: Vec<_> = std::fs::read_dir(root.join("skills-fixtures"))
        .expect("skills-fixtures")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        cases += 1;
        let expected = std::fs::read_to_string(dir.join("expected.txt")).expect("expected.txt");
        let plan = toolgate_lint::run::Plan::new(std::slice::from_ref(&dir), None)
            .expect("the case's configuration loads");
        let mut got: Vec<String> = Vec::new();
        for file in &plan.files {
            let rel = file.strip_prefix(&dir).expect("inside the case");
            for d in client.open(file, &editor_text(file)) {
                let Some(NumberOrString::String(code)) = &d.code else {
                    continue;
                };
                got.push(format!(
                    "{}:{}:{}: {code}: {}",
                    rel.display(),
                    d.range.start.line + 1,
                    d.range.start.character + 1,
                    d.message
                ));
            }
        }
        findings += got.len();
        let expected: Vec<&str> = expected.lines().collect();
        assert_eq!(got, expected, "case {}", dir.display());
    }
    assert!(cases >= 25, "{cases} cases");
    assert!(findings >= 40, "{findings} findings");
    assert_eq!(client.shutdown(), toolgate_lsp::Ended::Clean);
}
