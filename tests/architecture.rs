//! The crate graph is the architecture: what each library may not depend on, read from
//! `cargo metadata` (ARCHITECTURE.md says why).

use std::process::Command;

use serde_json::Value;

/// The names of the direct dependencies of `package`, of every kind (normal, build, dev
/// excluded: tests may use what the library must not).
fn dependencies(metadata: &Value, package: &str) -> Vec<String> {
    let packages = metadata["packages"].as_array().expect("packages");
    let p = packages
        .iter()
        .find(|p| p["name"] == package)
        .unwrap_or_else(|| panic!("{package} is a workspace package"));
    p["dependencies"]
        .as_array()
        .expect("dependencies")
        .iter()
        .filter(|d| d["kind"] != "dev")
        .map(|d| d["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn metadata() -> Value {
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

/// serde and serde_json, and the pattern engine: generated code checks `pattern` as the
/// served validator does (jsonschema 0.61 with its `regex` engine), with the same ECMA-262
/// translation (`jsonschema-regex`) and the same engine (`regex`).
#[test]
fn the_runtime_depends_on_serde_and_the_pattern_engine_only() {
    let mut deps = dependencies(&metadata(), "toolgate-runtime");
    deps.sort();
    assert_eq!(
        deps,
        ["jsonschema-regex", "regex", "serde", "serde_json"],
        "toolgate-runtime depends on {deps:?}"
    );
}

#[test]
fn the_lint_has_no_cli_no_mcp_and_no_async_runtime() {
    let deps = dependencies(&metadata(), "toolgate-lint");
    for banned in [
        "clap",
        "rmcp",
        "tokio",
        "toolgate-serve",
        "toolgate-generated",
    ] {
        assert!(
            !deps.iter().any(|d| d == banned),
            "toolgate-lint depends on {banned}"
        );
    }
}

#[test]
fn the_language_server_has_no_cli_no_mcp_and_no_async_runtime() {
    let deps = dependencies(&metadata(), "toolgate-lsp");
    assert!(deps.iter().any(|d| d == "toolgate-lint"), "{deps:?}");
    for banned in [
        "clap",
        "rmcp",
        "tokio",
        "toolgate-serve",
        "toolgate-generated",
    ] {
        assert!(
            !deps.iter().any(|d| d == banned),
            "toolgate-lsp depends on {banned}"
        );
    }
}

#[test]
fn the_catalog_generates_no_code_and_the_generator_parses_no_macro_input() {
    let m = metadata();
    let schema = dependencies(&m, "toolgate-schema");
    for banned in [
        "syn",
        "quote",
        "proc-macro2",
        "toolgate-codegen",
        "clap",
        "rmcp",
        "tokio",
    ] {
        assert!(
            !schema.iter().any(|d| d == banned),
            "toolgate-schema depends on {banned}"
        );
    }
    let codegen = dependencies(&m, "toolgate-codegen");
    assert!(
        !codegen.iter().any(|d| d == "syn"),
        "toolgate-codegen depends on syn"
    );
}

#[test]
fn clap_lives_in_the_cli_only() {
    let m = metadata();
    let packages = m["packages"].as_array().expect("packages");
    for p in packages {
        let name = p["name"].as_str().unwrap_or_default();
        if name == "toolgate" {
            continue;
        }
        assert!(
            !dependencies(&m, name).iter().any(|d| d == "clap"),
            "{name} depends on clap"
        );
    }
}

#[test]
fn every_path_dependency_of_a_library_carries_a_version() {
    let m = metadata();
    for p in m["packages"].as_array().expect("packages") {
        for d in p["dependencies"].as_array().expect("dependencies") {
            if d["path"].is_string() && d["kind"] != "dev" {
                assert!(
                    d["req"] != "*",
                    "{} depends on {} by path without a version",
                    p["name"],
                    d["name"]
                );
            }
        }
    }
}
