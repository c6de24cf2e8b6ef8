//! A crate outside the workspace can use `catalog!` with only `toolgate-macros` and
//! `toolgate-runtime` (plus serde and serde_json; its tests also use schemars and
//! jsonschema, for `catalog!(..., schemars)`): `tests/macro-user/` is copied to a scratch
//! folder, its path dependencies pointed at this checkout, and its own tests run in a target
//! folder of its own (so this never waits on the lock of the `cargo test` running it).

mod common;

use std::process::Command;

use common::{copy_tree, repo_root, scratch};

#[test]
fn a_crate_outside_the_workspace_expands_and_dispatches_a_catalog() {
    let root = repo_root();
    let dir = scratch("macro-user");
    copy_tree(&root.join("tests/macro-user"), &dir);
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    let text = text
        .replace("../../macros", &root.join("macros").display().to_string())
        .replace("../../runtime", &root.join("runtime").display().to_string());
    std::fs::write(&manifest, text).expect("write manifest");
    // The versions this workspace resolved, so an offline build finds them.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("lock");
    let target = root.join("target/test-scratch-targets/macro-user");
    let test = |offline: bool| {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        for var in ["CARGO_TARGET_DIR", "TOOLGATE_CATALOG_ROOT", "RUSTC_WRAPPER"] {
            cmd.env_remove(var);
        }
        cmd.arg("test")
            .arg("--manifest-path")
            .arg(&manifest)
            .env("CARGO_TARGET_DIR", &target);
        if offline {
            cmd.arg("--offline");
        }
        cmd.output().expect("cargo runs")
    };
    let mut out = test(true);
    if !out.status.success() {
        out = test(false);
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "cargo test failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("test result: ok. 3 passed"),
        "the user crate's three tests did not all run:\n{stdout}"
    );
    // `catalog!(..., schemars)` over unions, nullables, constants, recursive `$defs`.
    for test in [
        "unions_nullables_and_constants_have_a_schema",
        "recursive_and_shared_definitions_have_a_schema",
    ] {
        assert!(
            stdout.contains(&format!("test {test} ... ok")),
            "{test} did not pass:\n{stdout}"
        );
    }
    // Its dependency graph holds nothing of the catalog loader, the CLI or the server.
    let tree = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args([
            "tree",
            "--offline",
            "--edges",
            "normal",
            "--prefix",
            "none",
            "--manifest-path",
        ])
        .arg(&manifest)
        .output()
        .expect("cargo tree runs");
    let tree = String::from_utf8_lossy(&tree.stdout);
    assert!(tree.contains("toolgate-runtime"), "{tree}");
    for absent in ["toolgate-lint", "toolgate-serve", "clap", "rmcp", "tokio"] {
        assert!(
            !tree.contains(absent),
            "{absent} in the user crate's graph:\n{tree}"
        );
    }
}
