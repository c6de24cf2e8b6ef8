//! Every case of `skills-fixtures/` gives exactly the findings its `expected.txt` lists.

mod common;

use std::collections::BTreeMap;

use common::{repo_root, run, stderr, stdout};

#[test]
fn every_fixture_gives_exactly_its_expected_findings() {
    let o = run(&["lint", "skills-fixtures", "--format", "concise"]);
    // The fixtures hold drift on purpose: exit 1 (findings), never 2.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let mut lines: Vec<&str> = out.lines().collect();
    let summary = lines.pop().unwrap_or_default();
    assert!(summary.starts_with("Found "), "{summary}");
    let mut actual: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in lines {
        let rest = line
            .strip_prefix("skills-fixtures/")
            .expect("paths relative to the cwd");
        let (case, tail) = rest.split_once('/').expect("a case folder");
        actual
            .entry(case.to_string())
            .or_default()
            .push(tail.to_string());
    }
    let root = repo_root().join("skills-fixtures");
    let mut cases = 0;
    let mut rules_seen = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(&root).expect("skills-fixtures") {
        let dir = entry.expect("entry").path();
        if !dir.is_dir() {
            continue;
        }
        cases += 1;
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        let expected_text = std::fs::read_to_string(dir.join("expected.txt"))
            .unwrap_or_else(|_| panic!("{case}: no expected.txt"));
        let expected: Vec<String> = expected_text.lines().map(str::to_string).collect();
        for line in &expected {
            if let Some(rule) = line.split(": ").nth(1) {
                rules_seen.insert(rule.to_string());
            }
        }
        let got = actual.remove(&case).unwrap_or_default();
        assert_eq!(got, expected, "case {case}");
    }
    assert!(actual.is_empty(), "findings outside the cases: {actual:?}");
    assert!(cases >= 25, "{cases} cases");
    for rule in [
        "unknown-tool",
        "unknown-field",
        "invalid-value",
        "wrong-type",
        "tool-not-in-profile",
        "value-not-in-profile",
        "unknown-profile",
    ] {
        assert!(rules_seen.contains(rule), "no fixture covers {rule}");
    }
    // The tatara-format case says which checks were skipped.
    assert!(
        stderr(&o).contains("skipped unknown-field"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn each_case_alone_gives_the_same_findings() {
    // Linting one case folder finds its own toolgate.toml (upward), so a case gives the
    // same findings alone as with the others.
    for case in [
        "maetra-catalog",
        "renames-declared",
        "profiles-from-config",
        "clean-calls",
    ] {
        let dir = format!("skills-fixtures/{case}");
        let o = run(&["lint", &dir, "--format", "concise"]);
        let expected =
            std::fs::read_to_string(repo_root().join(&dir).join("expected.txt")).unwrap();
        let code = if expected.trim().is_empty() { 0 } else { 1 };
        assert_eq!(o.status.code(), Some(code), "{case}: {}", stderr(&o));
        let got: Vec<String> = stdout(&o)
            .lines()
            .filter(|l| l.starts_with("skills-fixtures/"))
            .map(|l| l[dir.len() + 1..].to_string())
            .collect();
        let want: Vec<String> = expected.lines().map(str::to_string).collect();
        assert_eq!(got, want, "{case}");
    }
}
