//! `toolgate lsp` end to end with a real client outside the project: pytest-lsp (PyPI, on
//! pygls) runs `tests/lsp/test_rename_fix.py`, which starts the binary, opens a skill
//! calling a renamed tool, receives the diagnostic, applies the quick fix's edit and sees
//! the diagnostic go; pytest-lsp's session ends with `shutdown` and `exit`.
//!
//! Skips with a message when Python's `pytest_lsp` is missing, and fails instead when
//! `TOOLGATE_REQUIRE_E2E=1` (as `.ci/run` sets it after installing tests/lsp/requirements.txt
//! into the venv `TOOLGATE_PYTHON` names).

mod common;
mod mcp_support;

use std::process::Command;

use common::{copy_tree, repo_root, scratch};
use mcp_support::{python_importing, skip};

#[test]
fn pytest_lsp_sees_a_renamed_tool_reported_and_fixed() {
    let Some(python) = python_importing("pytest_lsp") else {
        skip("Python's pytest-lsp is not installed");
        return;
    };
    let case = scratch("lsp-e2e-renames");
    copy_tree(&repo_root().join("skills-fixtures/renames-declared"), &case);
    let out = Command::new(python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/lsp/test_rename_fix.py",
        ])
        .current_dir(repo_root())
        .env("TOOLGATE_BIN", env!("CARGO_BIN_EXE_toolgate"))
        .env("TOOLGATE_CASE", &case)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "pytest failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("1 passed"), "{stdout}");
}
