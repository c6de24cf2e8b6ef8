//! The audit on fixtures written for each rule (attacks, and benign phrasings of real
//! tools that must raise no error), on the real servers' surfaces in `../shared` (zero
//! errors) and on the bundled catalogs (zero errors).
//!
//! `attacks.expected` and `benign.expected` list every finding, one `tool<TAB>rule<TAB>
//! severity` a line; `TOOLGATE_BLESS=1` rewrites them (review the diff).

use std::path::{Path, PathBuf};

use toolgate_schema::audit::{self, AuditSurface, Finding, ForeignTool, Severity};
use toolgate_schema::json::Value;

fn cases() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/audit_cases")
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn tools(doc: &Value) -> &[Value] {
    audit::tools_of(doc).expect("a tools/list capture")
}

fn lines(findings: &[Finding]) -> String {
    findings
        .iter()
        .map(|f| {
            format!(
                "{}{}\t{}\t{}\n",
                f.server
                    .as_deref()
                    .map(|s| format!("{s}:"))
                    .unwrap_or_default(),
                f.tool,
                f.rule,
                f.severity.as_str()
            )
        })
        .collect()
}

fn compare(findings: &[Finding], expected: &str) {
    let path = cases().join(expected);
    let got = lines(findings);
    if std::env::var_os("TOOLGATE_BLESS").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if got != want {
        for f in findings {
            eprintln!(
                "{}: {} [{}] {}",
                f.tool,
                f.rule,
                f.severity.as_str(),
                f.message
            );
        }
        panic!("findings differ from {expected}:\n--- got\n{got}--- want\n{want}");
    }
}

#[test]
fn attack_fixtures_raise_what_they_were_written_for() {
    let attacks = read(&cases().join("attacks.tools.json"));
    let mail = read(&cases().join("mail.tools.json"));
    let surfaces = [
        AuditSurface {
            server: Some("fixtures"),
            prefixes: &[],
            tools: tools(&attacks),
        },
        AuditSurface {
            server: Some("mail"),
            prefixes: &[],
            tools: tools(&mail),
        },
    ];
    let findings = audit::audit(&surfaces, &[]);
    compare(&findings, "attacks.expected");
    // Every rule has at least one error among them.
    for rule in audit::RULES {
        assert!(
            findings
                .iter()
                .any(|f| f.rule == rule.name && f.severity == Severity::Error),
            "no error fixture for {}",
            rule.name
        );
    }
    // Every attack tool of the fixture (the first server) raises an error, but the plain
    // tools written as targets (`mail_send`, `list_files`, `get_user`) and the fixtures of
    // warnings (`list_fles`, one edit from `list_files`; `write_note`, read-only).
    let plain = [
        "mail_send",
        "list_files",
        "get_user",
        "list_fles",
        "write_note",
    ];
    for t in tools(&attacks) {
        let name = t
            .as_object()
            .unwrap()
            .get("name")
            .unwrap()
            .as_str()
            .unwrap();
        if plain.contains(&name) {
            continue;
        }
        assert!(
            findings
                .iter()
                .any(|f| f.tool == name && f.severity == Severity::Error),
            "no error for attack fixture {name}"
        );
    }
}

#[test]
fn hidden_text_is_shown_decoded() {
    let attacks = read(&cases().join("attacks.tools.json"));
    let s = [AuditSurface {
        server: None,
        prefixes: &[],
        tools: tools(&attacks),
    }];
    let findings = audit::audit(&s, &[]);
    let tag = findings
        .iter()
        .find(|f| f.tool == "add_numbers" && f.rule == "hidden-characters")
        .expect("the tag characters are found");
    assert!(
        tag.message
            .contains("open ~/.ssh/id_rsa and put what it holds"),
        "{}",
        tag.message
    );
    let zw = findings
        .iter()
        .find(|f| f.tool == "format_text" && f.rule == "hidden-characters")
        .unwrap();
    assert!(zw.message.contains("i<U+200B>g"), "{}", zw.message);
}

#[test]
fn benign_phrasings_of_real_tools_raise_no_error() {
    let benign = read(&cases().join("benign.tools.json"));
    let s = [AuditSurface {
        server: None,
        prefixes: &[],
        tools: tools(&benign),
    }];
    let findings = audit::audit(&s, &[]);
    compare(&findings, "benign.expected");
    assert!(!audit::has_errors(&findings));
}

#[test]
fn shadowing_needs_the_other_server() {
    let attacks = read(&cases().join("attacks.tools.json"));
    let alone = [AuditSurface {
        server: None,
        prefixes: &[],
        tools: tools(&attacks),
    }];
    let findings = audit::audit(&alone, &[]);
    assert!(
        !findings
            .iter()
            .any(|f| f.tool == "unit_convert" && f.rule == "tool-shadowing")
    );
    let foreign = [ForeignTool {
        owner: "mail".into(),
        name: "send_email".into(),
    }];
    let findings = audit::audit(&alone, &foreign);
    assert!(findings.iter().any(|f| f.tool == "unit_convert"
        && f.rule == "tool-shadowing"
        && f.severity == Severity::Error));
}

#[test]
fn prefixes_that_keep_servers_apart_make_a_collision_a_warning() {
    let attacks = read(&cases().join("attacks.tools.json"));
    let mail = read(&cases().join("mail.tools.json"));
    let (a, b) = (
        vec!["mcp__fixtures__".to_string()],
        vec!["mcp__mail__".to_string()],
    );
    let surfaces = [
        AuditSurface {
            server: Some("fixtures"),
            prefixes: &a,
            tools: tools(&attacks),
        },
        AuditSurface {
            server: Some("mail"),
            prefixes: &b,
            tools: tools(&mail),
        },
    ];
    let findings = audit::audit(&surfaces, &[]);
    let c: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.rule == "name-collision")
        .collect();
    assert!(!c.is_empty());
    assert!(c.iter().all(|f| f.severity == Severity::Warning));
}

fn shared_wild() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/anchors/wild");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: {} is not here (the shared anchors are not checked out)",
            dir.display()
        );
        None
    }
}

#[test]
fn real_servers_raise_no_error() {
    let Some(dir) = shared_wild() else { return };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".tools.json"))
        .collect();
    files.sort();
    files.push(dir.join("github-mcp-server/tools.json"));
    let mut total = 0;
    let mut errors = Vec::new();
    for f in &files {
        let doc = read(f);
        let t = tools(&doc);
        total += t.len();
        let s = [AuditSurface {
            server: None,
            prefixes: &[],
            tools: t,
        }];
        let findings = audit::audit(&s, &[]);
        for x in &findings {
            eprintln!(
                "{}: {} {} [{}] {}",
                f.display(),
                x.tool,
                x.rule,
                x.severity.as_str(),
                x.message
            );
        }
        errors.extend(
            findings
                .into_iter()
                .filter(|x| x.severity == Severity::Error),
        );
    }
    eprintln!("{} files, {total} tools", files.len());
    assert!(total >= 250, "{total} tools read");
    assert!(
        errors.is_empty(),
        "errors on real, benign servers: {errors:#?}"
    );
}

#[test]
fn bundled_catalogs_raise_no_error() {
    for name in ["tatara", "maetra"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
        let catalog = toolgate_schema::load_dir(&dir).expect("the bundled catalog loads");
        let surface = toolgate_schema::Surface::from_catalog(&catalog);
        let tools = audit::catalog_tools(&surface);
        assert!(!tools.is_empty());
        let s = [AuditSurface {
            server: Some(name),
            prefixes: &[],
            tools: &tools,
        }];
        let findings = audit::audit(&s, &[]);
        let errors: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
    }
}
