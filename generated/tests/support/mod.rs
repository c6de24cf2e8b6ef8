//! Shared by the tests that build scratch crates expanding imported catalogs: finding
//! `../shared`, importing a captured `tools/list` as `toolgate import` does, and running
//! `cargo` on a scratch crate that depends on `toolgate-macros` and `toolgate-runtime` only,
//! offline, in a target folder of its own under this build's target folder.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use toolgate_schema::import::{Capture, Options, plan};

/// The checkout's root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(".."))
}

/// `../shared` beside the checkout, when it is there.
pub fn shared() -> Option<PathBuf> {
    let p = repo_root().join("../shared");
    p.join("anchors").exists().then_some(p)
}

/// The build's target folder (`CARGO_TARGET_DIR` or `target/`).
pub fn target_root() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
}

/// Writes the catalog `toolgate import --out DIR --name NAME --profile all=FILE` writes.
pub fn import_all(capture: &Path, name: &str, out: &Path) {
    let bytes = std::fs::read(capture).expect("capture");
    let capture = Capture::from_file(Some("all"), capture, &bytes).expect("capture reads");
    let options = Options {
        name: name.to_string(),
        selector_env: None,
        combine: false,
    };
    let plan = plan(&options, &[capture], None).expect("import plans");
    let _ = std::fs::remove_dir_all(out);
    for (rel, bytes) in &plan.files {
        let path = out.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }
}

/// Writes a scratch crate at `dir` depending on this checkout's `toolgate-macros` and
/// `toolgate-runtime` (plus serde, serde_json), with `lib` as its `src/lib.rs` and `main`,
/// when given, as `src/main.rs`.
pub fn scratch_crate(dir: &Path, lib: &str, main: Option<&str>) {
    let root = repo_root();
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    let manifest = format!(
        r#"[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
toolgate-macros = {{ path = "{macros}" }}
toolgate-runtime = {{ path = "{runtime}" }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = "1"

[workspace]
"#,
        name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scratch".to_string()),
        macros = root.join("macros").display(),
        runtime = root.join("runtime").display(),
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("manifest");
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("lock");
    std::fs::write(dir.join("src/lib.rs"), lib).expect("lib");
    if let Some(main) = main {
        std::fs::write(dir.join("src/main.rs"), main).expect("main");
    }
}

/// Runs `cargo SUBCOMMAND --offline` on the scratch crate at `dir`, in its own target folder;
/// the output and how long it took.
pub fn cargo(dir: &Path, args: &[&str]) -> (Output, Duration) {
    let target = target_root().join("scratch-crates");
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for var in ["CARGO_TARGET_DIR", "TOOLGATE_CATALOG_ROOT", "RUSTC_WRAPPER"] {
        cmd.env_remove(var);
    }
    cmd.args(args)
        .arg("--offline")
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target);
    let start = Instant::now();
    let out = cmd.output().expect("cargo runs");
    (out, start.elapsed())
}
