//! The official JSON-Schema-Test-Suite (draft2020-12 and draft7, a copy in
//! `../shared/anchors/json-schema-test-suite/`) through the run-time path of a catalog loaded
//! at run time: toolgate's own located load-time check of the schema (`SchemaParser`), then
//! the call check of `serve --catalog DIR` (`SchemaValidator::check`: the typed validator,
//! then jsonschema). Every case of the files for the supported keywords runs (the files of
//! each draft's folder but those `suite_cases` excludes, as `generated/tests/suite.rs` runs); the test prints
//! the pass counts, each schema the load-time check refuses (with its first error) and each
//! failing case (with its reason). Skipped, with a message, when `../shared` is absent.

use std::path::{Path, PathBuf};

use toolgate_schema::diag::{Ctxt, SourceText};
use toolgate_schema::json::Value;
use toolgate_schema::locate::Pointer;
use toolgate_schema::model::SchemaParser;
use toolgate_schema::runtime::subset::Dialect;
use toolgate_schema::validator::SchemaValidator;

mod suite_cases;

fn suite() -> Option<PathBuf> {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/anchors/json-schema-test-suite");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: {} is not here (the shared corpus is not checked out)",
            dir.display()
        );
        None
    }
}

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: Vec<String>,
    /// Cases the typed validator alone (`check_arguments`, which words refusals) decides
    /// otherwise than the suite: it must never refuse a valid case, and refuses an invalid
    /// one unless it cannot judge it (a recursive `$ref` it cannot follow on its own).
    typed_refuses_valid: Vec<String>,
    typed_accepts_invalid: usize,
    refused_cases: usize,
    refused: Vec<String>,
}

/// The load-time check of `schema` (the text of one test group's schema): its first error.
fn load_check(schema_text: &str, schema: &Value, dialect: Dialect) -> Result<(), String> {
    let source = SourceText {
        path: PathBuf::from("schema.json"),
        text: schema_text.to_string(),
    };
    let mut cx = Ctxt::new();
    let mut parser = SchemaParser::new(&source, schema, Pointer::root(), &mut cx);
    parser.dialect = dialect;
    parser.parse_document(false);
    match cx.finish(()) {
        Ok(()) => Ok(()),
        Err(e) => Err(e.0.first().map(ToString::to_string).unwrap_or_default()),
    }
}

fn run_draft(dir: &Path, files: &[String], dialect: Dialect) -> Tally {
    let draft = match dialect {
        Dialect::Draft202012 => jsonschema::Draft::Draft202012,
        Dialect::Draft07 => jsonschema::Draft::Draft7,
    };
    let mut t = Tally::default();
    for name in files {
        let path = dir.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        let groups: serde_json::Value = serde_json::from_str(&text).unwrap();
        for group in groups.as_array().into_iter().flatten() {
            let desc = group["description"].as_str().unwrap_or("");
            let schema_sj = &group["schema"];
            let schema_text = serde_json::to_string_pretty(schema_sj).unwrap();
            let schema: Value = serde_json::from_str(&schema_text).unwrap();
            let tests = group["tests"].as_array().cloned().unwrap_or_default();
            if let Err(why) = load_check(&schema_text, &schema, dialect) {
                t.refused_cases += tests.len();
                t.refused
                    .push(format!("{name}: \"{desc}\" ({} cases): {why}", tests.len()));
                continue;
            }
            let typed = {
                let source = SourceText {
                    path: PathBuf::from("schema.json"),
                    text: schema_text.clone(),
                };
                let mut cx = Ctxt::new();
                let mut parser = SchemaParser::new(&source, &schema, Pointer::root(), &mut cx);
                parser.dialect = dialect;
                parser.parse_document(false)
            };
            let validator = match SchemaValidator::with_draft(schema_sj, draft, false) {
                Ok(v) => v,
                Err(e) => {
                    t.refused_cases += tests.len();
                    t.refused.push(format!(
                        "{name}: \"{desc}\" ({} cases): jsonschema cannot compile it: {}",
                        tests.len(),
                        e.message
                    ));
                    continue;
                }
            };
            for case in &tests {
                let want = case["valid"].as_bool().unwrap_or(false);
                let data = &case["data"];
                let got = match &typed {
                    Some(typed) => validator.check("t", typed, data).is_ok(),
                    None => validator.is_valid(data),
                };
                if let Some(typed) = &typed {
                    let alone = toolgate_schema::runtime::check_arguments("t", typed, data).is_ok();
                    if !alone && want {
                        t.typed_refuses_valid.push(format!(
                            "{name}: \"{desc}\" / \"{}\"",
                            case["description"].as_str().unwrap_or("")
                        ));
                    } else if alone && !want {
                        t.typed_accepts_invalid += 1;
                    }
                }
                if got == want {
                    t.passed += 1;
                } else {
                    t.failed.push(format!(
                        "{name}: \"{desc}\" / \"{}\": expected {}, got {}{}",
                        case["description"].as_str().unwrap_or(""),
                        if want { "valid" } else { "invalid" },
                        if got { "valid" } else { "invalid" },
                        if validator.is_valid(data) == want {
                            " (the typed validator refuses what jsonschema accepts)"
                        } else {
                            " (jsonschema)"
                        }
                    ));
                }
            }
        }
    }
    t
}

fn print(label: &str, t: &Tally) {
    let total = t.passed + t.failed.len();
    eprintln!(
        "{label}: {}/{total} cases pass through the run-time path; {} schemas ({} cases) refused at load time",
        t.passed,
        t.refused.len(),
        t.refused_cases
    );
    eprintln!(
        "{label}: the typed validator alone refuses {} valid cases and accepts {} invalid ones (it leaves recursive `$ref`s it cannot follow to jsonschema)",
        t.typed_refuses_valid.len(),
        t.typed_accepts_invalid
    );
    for r in &t.typed_refuses_valid {
        eprintln!("  TYPED REFUSES VALID: {r}");
    }
    for r in &t.refused {
        eprintln!("  refused: {r}");
    }
    for f in &t.failed {
        eprintln!("  FAILED: {f}");
    }
}

#[test]
fn json_schema_test_suite_through_the_run_time_path() {
    let Some(dir) = suite() else { return };
    let d2020 = run_draft(
        &dir.join("draft2020-12"),
        &suite_cases::case_files(&dir, "draft2020-12"),
        Dialect::Draft202012,
    );
    let d7 = run_draft(
        &dir.join("draft7"),
        &suite_cases::case_files(&dir, "draft7"),
        Dialect::Draft07,
    );
    print("draft2020-12", &d2020);
    print("draft7", &d7);
    // Every case that runs passes: a failure is a regression to look at, not a count.
    assert!(
        d2020.failed.is_empty() && d7.failed.is_empty(),
        "failing cases are listed above"
    );
    assert!(
        d2020.typed_refuses_valid.is_empty() && d7.typed_refuses_valid.is_empty(),
        "the typed validator refuses valid cases (listed above)"
    );
}
