//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `toolgate` binary cargo built for these tests.
pub fn toolgate() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    cmd.current_dir(repo_root());
    for var in ["TATARA_TOOL_PROFILE", "MAETRA_CAPABILITIES"] {
        cmd.env_remove(var);
    }
    cmd
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `toolgate args...` from the repository root.
pub fn run(args: &[&str]) -> Output {
    toolgate().args(args).output().expect("toolgate runs")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh, empty scratch folder under `target/`, named for the test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = repo_root().join("target").join("test-scratch").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Copies a folder tree.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// The shared anchors folder, when it is checked out beside the repository.
pub fn shared() -> Option<PathBuf> {
    let dir = repo_root().join("../shared");
    if dir.join("anchors").is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: ../shared/anchors is not here (the shared corpus is not checked out)");
        None
    }
}

/// A command's standard output and error, labelled, for an assertion's message.
pub fn everything(o: &Output) -> String {
    format!("--- stdout\n{}--- stderr\n{}", stdout(o), stderr(o))
}

/// Every file under `dir` (node_modules and .git left out), as text: what a test greps for
/// a secret that must not have been written.
pub fn all_text(dir: &Path) -> String {
    let mut out = String::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        let name = entry.file_name();
        if name == "node_modules" || name == ".git" {
            continue;
        }
        if p.is_dir() {
            out.push_str(&all_text(&p));
        } else if let Ok(t) = std::fs::read_to_string(&p) {
            out.push_str(&t);
        }
    }
    out
}
