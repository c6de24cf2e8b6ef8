//! The ten wild surfaces of `../shared/anchors/wild/`, each imported as `toolgate import
//! --out wild/<name> --name <name> --profile all=FILE` writes it, expand with
//! `catalog!("wild/<name>")` and compile: one scratch crate holds all ten modules and is
//! checked offline (`cargo check`) in a target folder of its own. Prints how long the
//! expansion of github-mcp-server's 117 tools takes (load and generate, as the macro runs
//! them) and how long the check of the crate takes. Skipped, with a message, when
//! `../shared` is absent.

mod support;

use std::path::Path;
use std::time::Instant;

use support::{cargo, import_all, scratch_crate, shared, target_root};

/// The surfaces: catalog name and capture file, relative to `anchors/wild/`.
pub const SURFACES: &[(&str, &str)] = &[
    ("github-mcp-server", "github-mcp-server/tools.json"),
    ("mcp-server-fetch", "mcp-server-fetch.tools.json"),
    ("mcp-server-git", "mcp-server-git.tools.json"),
    ("mcp-server-time", "mcp-server-time.tools.json"),
    ("playwright-mcp", "playwright-mcp-allcaps.tools.json"),
    (
        "server-everything",
        "server-everything-clientcaps.tools.json",
    ),
    ("server-filesystem", "server-filesystem.tools.json"),
    ("server-memory", "server-memory.tools.json"),
    (
        "server-sequential-thinking",
        "server-sequential-thinking.tools.json",
    ),
    ("playwright-mcp-core", "playwright-mcp.tools.json"),
];

/// Loads and generates a catalog folder as `catalog!` does, returning the token count.
fn expand(dir: &Path, display: &str) -> usize {
    let display = Path::new(display);
    let (sources, read_errors) = toolgate_schema::load::read_dir_sources(dir, display);
    assert!(read_errors.is_empty(), "{read_errors:?}");
    let catalog = toolgate_schema::load_sources(display, sources.clone()).expect("loads");
    let include: Vec<(String, String)> = sources
        .iter()
        .map(|s| (s.rel.clone(), dir.join(&s.rel).display().to_string()))
        .collect();
    let options = toolgate_codegen::Options::default();
    let input = toolgate_codegen::Input {
        catalog: &catalog,
        display,
        sources: &sources,
        include: &include,
        options: &options,
    };
    match toolgate_codegen::generate(&input) {
        Ok(tokens) => tokens.into_iter().count(),
        Err(e) => panic!(
            "{} does not expand:\n{}",
            display.display(),
            e.0.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

#[test]
fn every_wild_surface_expands_and_compiles() {
    let Some(shared) = shared() else {
        eprintln!("skipped: ../shared is absent");
        return;
    };
    let dir = target_root().join("scratch-crates/wild-surfaces");
    let mut lib =
        String::from("//! The wild surfaces, expanded.\n#![allow(missing_docs, clippy::all)]\n\n");
    for (name, file) in SURFACES {
        let out = dir.join("wild").join(name);
        import_all(&shared.join("anchors/wild").join(file), name, &out);
        let start = Instant::now();
        let tokens = expand(&out, &format!("wild/{name}"));
        let took = start.elapsed();
        println!("expansion of {name}: {took:.2?} ({tokens} top-level token trees)");
        let module = name.replace('-', "_");
        lib.push_str(&format!(
            "pub mod {module} {{\n    toolgate_macros::catalog!(\"wild/{name}\");\n}}\n\n"
        ));
    }
    scratch_crate(&dir, &lib, None);
    let (out, took) = cargo(&dir, &["check", "--lib"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo check failed:\n{stderr}");
    println!("cargo check of the ten modules: {took:.2?}");
}
