//! Editing, adding and removing a schema file rebuilds the generated code, with no
//! `cargo clean`: a small crate that uses `catalog!` on a copy of tatara (with the
//! `build.rs` the README asks for) is built, its catalog edited, and built again in its own
//! target folder (so this test never waits on the lock of the `cargo test` running it).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{copy_tree, repo_root, scratch};

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for var in ["CARGO_TARGET_DIR", "TOOLGATE_CATALOG_ROOT", "RUSTC_WRAPPER"] {
        cmd.env_remove(var);
    }
    cmd
}

/// Builds the demo crate (offline first: the dependencies are those of this workspace, so
/// they are normally in the local registry already) and runs it; returns its output.
fn build_and_run(dir: &Path, target: &Path) -> String {
    let manifest = dir.join("Cargo.toml");
    let build = |offline: bool| {
        let mut cmd = cargo();
        cmd.arg("build")
            .arg("--quiet")
            .arg("--manifest-path")
            .arg(&manifest)
            .env("CARGO_TARGET_DIR", target);
        if offline {
            cmd.arg("--offline");
        }
        cmd.output().expect("cargo runs")
    };
    let mut out = build(true);
    if !out.status.success() {
        out = build(false);
    }
    assert!(
        out.status.success(),
        "cargo build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let exe = target.join("debug").join("rebuild-demo");
    let run = Command::new(&exe).output().expect("the demo runs");
    assert!(run.status.success());
    String::from_utf8_lossy(&run.stdout).into_owned()
}

fn write(path: PathBuf, text: &str) {
    std::fs::write(path, text).expect("write");
}

#[test]
fn editing_adding_and_removing_a_schema_file_rebuilds() {
    let dir = scratch("macro-rebuild");
    // Outside the folder `scratch` empties, so a second run reuses the dependencies.
    let target = repo_root()
        .join("target")
        .join("test-scratch-targets")
        .join("macro-rebuild");
    copy_tree(&repo_root().join("schema/tatara"), &dir.join("catalog"));
    let root = repo_root();
    write(
        dir.join("Cargo.toml"),
        &format!(
            r#"[package]
name = "rebuild-demo"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
toolgate-runtime = {{ path = "{runtime}" }}
toolgate-macros = {{ path = "{macros}" }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[workspace]
"#,
            runtime = root.join("runtime").display(),
            macros = root.join("macros").display(),
        ),
    );
    // The versions this workspace resolved, so an offline build finds them.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("lock");
    write(
        dir.join("build.rs"),
        "fn main() {\n    println!(\"cargo::rerun-if-changed=catalog\");\n}\n",
    );
    std::fs::create_dir_all(dir.join("src")).expect("src");
    write(
        dir.join("src/main.rs"),
        r#"mod catalog {
    toolgate_macros::catalog!("catalog");
}

fn main() {
    for name in catalog::TOOL_NAMES {
        println!("tool {name}");
    }
    for action in catalog::mr_write::Action::ALL {
        println!("mr_write.action {action}");
    }
}
"#,
    );

    let first = build_and_run(&dir, &target);
    assert!(first.contains("tool mr_write\n"), "{first}");
    assert!(first.contains("mr_write.action open\n"), "{first}");
    assert!(!first.contains("code_owners"), "{first}");

    // Edit an enum value, add a tool file.
    let mr_write = dir.join("catalog/tools/mr_write.json");
    let text = std::fs::read_to_string(&mr_write).expect("read");
    write(
        mr_write.clone(),
        &text.replace(
            r#""enum": ["open", "comment", "reply"]"#,
            r#""enum": ["create", "comment", "reply"]"#,
        ),
    );
    write(
        dir.join("catalog/tools/code_owners.json"),
        r#"{
  "name": "code_owners",
  "group": "code",
  "description": "List who owns a path in a repository.",
  "inputSchema": {
    "type": "object",
    "properties": { "repo": { "type": "string" }, "path": { "type": "string" } },
    "required": ["repo", "path"],
    "additionalProperties": false
  }
}
"#,
    );
    let second = build_and_run(&dir, &target);
    assert!(second.contains("tool code_owners\n"), "{second}");
    assert!(second.contains("mr_write.action create\n"), "{second}");
    assert!(!second.contains("mr_write.action open\n"), "{second}");

    // Remove it again.
    std::fs::remove_file(dir.join("catalog/tools/code_owners.json")).expect("remove");
    let third = build_and_run(&dir, &target);
    assert!(!third.contains("code_owners"), "{third}");
    assert!(third.contains("mr_write.action create\n"), "{third}");
}
