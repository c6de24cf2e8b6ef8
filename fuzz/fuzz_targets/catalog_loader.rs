//! The catalog loader on arbitrary matrix and tool files: it must report errors, never panic.
//!
//! The input is split on NUL bytes: the first part is `profiles.json`, each further part a
//! tool file. When the catalog loads, its surface, manifests and tools/list are built too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_schema::{SourceFile, Surface, load_sources};

fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&b| b == 0);
    let mut files = vec![SourceFile {
        rel: "profiles.json".to_string(),
        bytes: parts.next().unwrap_or_default().to_vec(),
    }];
    for (i, part) in parts.enumerate().take(64) {
        // Name each file after the tool it declares, when it declares one, so that files
        // get past the file-name check and reach the deeper checks.
        let name = std::str::from_utf8(part)
            .ok()
            .and_then(|t| t.split("\"name\"").nth(1))
            .and_then(|rest| rest.split('"').nth(1))
            .filter(|n| !n.is_empty() && !n.contains('/'))
            .map_or_else(|| format!("t{i}"), str::to_string);
        files.push(SourceFile {
            rel: format!("tools/{name}.json"),
            bytes: part.to_vec(),
        });
    }
    if let Ok(catalog) = load_sources("fuzz".as_ref(), files) {
        let surface = Surface::from_catalog(&catalog);
        let _ = toolgate_schema::json::to_pretty(&surface.manifest_json());
        let _ = toolgate_schema::json::to_pretty(&surface.tatara_manifest_json());
        for p in &surface.profiles {
            let _ = surface.tools_list_json(&surface.resolve(&p.name));
        }
        let _ = surface.tools_list_json(&surface.resolve(""));
    }
});
