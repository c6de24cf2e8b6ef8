//! The committed golden files under `generated/golden/` are what the generated constants
//! say: the manifest in both formats, each profile's `tools/list` and the fail-closed one.
//!
//! Refresh them after a catalog change with:
//!
//! ```sh
//! TOOLGATE_BLESS=1 cargo test -p toolgate-generated
//! ```

use std::path::{Path, PathBuf};

use toolgate_generated::{maetra, tatara};

struct Catalog {
    name: &'static str,
    manifest: &'static str,
    tatara_manifest: &'static str,
    fail_closed: &'static str,
    lists: &'static [(&'static str, &'static str)],
}

const CATALOGS: [Catalog; 2] = [
    Catalog {
        name: tatara::CATALOG,
        manifest: tatara::MANIFEST_JSON,
        tatara_manifest: tatara::TATARA_FORMAT_MANIFEST_JSON,
        fail_closed: tatara::FAIL_CLOSED_TOOLS_LIST_JSON,
        lists: tatara::TOOLS_LISTS,
    },
    Catalog {
        name: maetra::CATALOG,
        manifest: maetra::MANIFEST_JSON,
        tatara_manifest: maetra::TATARA_FORMAT_MANIFEST_JSON,
        fail_closed: maetra::FAIL_CLOSED_TOOLS_LIST_JSON,
        lists: maetra::TOOLS_LISTS,
    },
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("golden")
}

/// Every golden file: path relative to `golden/`, and what the code emits.
fn expected() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for c in &CATALOGS {
        out.push((format!("{}/manifest.json", c.name), c.manifest));
        out.push((
            format!("{}/manifest.tatara.json", c.name),
            c.tatara_manifest,
        ));
        out.push((
            format!("{}/fail-closed.tools-list.json", c.name),
            c.fail_closed,
        ));
        for (profile, list) in c.lists {
            out.push((format!("{}/tools-list/{profile}.json", c.name), list));
        }
    }
    out
}

#[test]
fn golden_files_match_the_generated_constants() {
    let dir = golden_dir();
    let bless = std::env::var_os("TOOLGATE_BLESS").is_some();
    let expected = expected();
    let mut stale = Vec::new();
    for (rel, text) in &expected {
        let path = dir.join(rel);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(committed) if committed == *text => {}
            Ok(_) => stale.push(format!("{rel}: differs")),
            Err(e) => stale.push(format!("{rel}: {e}")),
        }
    }
    // A golden file the code no longer emits (a removed profile) is stale too.
    for catalog in CATALOGS.iter().map(|c| c.name) {
        let lists = dir.join(catalog).join("tools-list");
        for entry in std::fs::read_dir(&lists).into_iter().flatten().flatten() {
            let rel = format!(
                "{catalog}/tools-list/{}",
                entry.file_name().to_string_lossy()
            );
            if !expected.iter().any(|(r, _)| *r == rel) {
                if bless {
                    std::fs::remove_file(entry.path()).unwrap();
                } else {
                    stale.push(format!("{rel}: no longer emitted"));
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "golden files are stale:\n  {}\nrefresh them with: TOOLGATE_BLESS=1 cargo test -p toolgate-generated",
        stale.join("\n  ")
    );
}
