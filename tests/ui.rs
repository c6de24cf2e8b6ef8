//! What must compile and what must not, with trybuild: handlers for tatara's `implement`
//! and `refine` profiles, and for a catalog with `pattern` and `allOf`, compile; a handler
//! missing a granted tool, a refine handler matching on `open`, a broken catalog and a
//! `format` in a catalog that asserts formats do not, with the messages in
//! `tests/ui/fail/*.stderr`.
//!
//! Refresh the `.stderr` files (the toolchain is pinned by `rust-toolchain.toml`, so they are
//! stable) with `TRYBUILD=overwrite cargo test --test ui`.

use std::process::Command;

/// trybuild compiles the cases as a crate of its own under `target/`, so `catalog!` paths
/// written relative to this package are found through `TOOLGATE_CATALOG_ROOT` (the macro's
/// documented fallback). The test sets it for a child run of itself.
const ROOT_VAR: &str = "TOOLGATE_CATALOG_ROOT";

#[test]
fn ui() {
    if std::env::var_os(ROOT_VAR).is_none() {
        let exe = std::env::current_exe().expect("the test binary");
        let status = Command::new(exe)
            .args(["ui", "--exact", "--nocapture", "--test-threads=1"])
            .env(ROOT_VAR, env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("the test binary runs");
        assert!(status.success(), "the trybuild cases failed (see above)");
        return;
    }
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
