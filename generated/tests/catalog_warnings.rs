//! `catalog!` shows the loader's warnings at the call, on stable Rust, and a user can
//! silence them there: a scratch crate expanding `tests/catalogs/server_shapes` (whose
//! annotation keys outside MCP's list the loader warns about) is checked offline twice,
//! once as written (each warning is reported, naming the file, its place and the key) and
//! once with `#[allow(deprecated)]` on the module holding the call under
//! `#![deny(warnings)]` (it builds, warning-free, as CI's `clippy -D warnings` needs).

mod support;

use std::path::Path;

use support::{cargo, repo_root, scratch_crate, target_root};

/// Copies the catalog folder `from` to `to`.
fn copy_catalog(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    for rel in [
        "profiles.json",
        "tools/scroll_to.json",
        "tools/read_table.json",
    ] {
        let dest = to.join(rel);
        std::fs::create_dir_all(dest.parent().expect("parent")).expect("mkdir");
        std::fs::copy(from.join(rel), dest).expect("copy");
    }
}

#[test]
fn loader_warnings_are_compiler_warnings_a_user_can_allow() {
    let catalog = repo_root().join("generated/tests/catalogs/server_shapes");
    let dir = target_root().join("scratch-crates/catalog-warnings");
    copy_catalog(&catalog, &dir.join("catalog"));

    let shown = "//! Expanded as written.\n#![allow(missing_docs)]\n\npub mod shapes {\n    toolgate_macros::catalog!(\"catalog\");\n}\n";
    scratch_crate(&dir, shown, None);
    let (out, _) = cargo(&dir, &["check", "--lib"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo check failed:\n{stderr}");
    for key in ["category", "conditions"] {
        let note = format!(
            "catalog warning: catalog/tools/scroll_to.json:15:5: at /annotations/{key}: annotation `{key}` is not one of MCP's"
        );
        let note = if key == "conditions" {
            note.replace("15:5", "16:5")
        } else {
            note
        };
        assert!(stderr.contains(&note), "no `{note}` in:\n{stderr}");
    }
    assert_eq!(
        stderr
            .matches("warning: use of deprecated constant")
            .count(),
        2,
        "{stderr}"
    );

    let allowed = "//! The warnings accepted at the call.\n#![deny(warnings)]\n#![allow(missing_docs)]\n\n#[allow(deprecated)]\npub mod shapes {\n    toolgate_macros::catalog!(\"catalog\");\n}\n";
    scratch_crate(&dir, allowed, None);
    let (out, _) = cargo(&dir, &["check", "--lib"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo check failed:\n{stderr}");
    assert!(!stderr.contains("catalog warning"), "{stderr}");
}
