//! Literals in agent files against schema keywords the typed model does not hold: `anyOf`,
//! `const`, a `type` list, a `$ref`.

use std::path::Path;

use toolgate_lint::{Linter, Settings};
use toolgate_schema::{SourceFile, Surface, load_sources};

fn surface() -> Surface {
    let matrix = r#"{"catalog": "c", "selector": {"env": "P"}, "profiles": {"all": "All."},
        "groups": {"g": {}}, "grants": {"g": ["all"]}}"#;
    let tool = r##"{"name": "pick", "group": "g", "description": "Pick.", "inputSchema": {
        "type": "object", "$defs": {"mode": {"anyOf": [{"const": "fast"}, {"const": "slow"}]}},
        "properties": {
            "mode": {"$ref": "#/$defs/mode"},
            "limit": {"type": ["integer", "null"]},
            "kind": {"const": "one"}
        }}}"##;
    let files = vec![
        SourceFile {
            rel: "profiles.json".into(),
            bytes: matrix.as_bytes().to_vec(),
        },
        SourceFile {
            rel: "tools/pick.json".into(),
            bytes: tool.as_bytes().to_vec(),
        },
    ];
    Surface::from_catalog(&load_sources(Path::new("c"), files).unwrap())
}

fn findings(text: &str) -> Vec<String> {
    let s = surface();
    let linter = Linter::new(&s, Settings::default());
    linter
        .lint_text("SKILL.md", text, None)
        .findings
        .iter()
        .map(|f| f.message.clone())
        .collect()
}

#[test]
fn literals_are_checked_against_any_of_const_type_lists_and_refs() {
    assert!(findings("Call `pick(mode=\"fast\", limit=3, kind=\"one\")`.\n").is_empty());
    let bad = findings("Call `pick(mode=\"quick\")`.\n");
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert!(bad[0].contains("fast"), "{bad:?}");
    let bad = findings("Call `pick(limit=\"ten\")`.\n");
    assert_eq!(bad.len(), 1, "{bad:?}");
    let bad = findings("Call `pick(kind=\"two\")`.\n");
    assert_eq!(bad.len(), 1, "{bad:?}");
}
