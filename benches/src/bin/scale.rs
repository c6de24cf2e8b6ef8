//! Macro expansion time and build time for synthetic catalogs of 100 and 1,000 tools.
//!
//! ```sh
//! cd benches && cargo run --release --bin scale
//! ```
//!
//! For each size it writes a catalog (four profiles in two groups, one always-on tool; each
//! tool with a string, a bounded integer, an enum, an array, a nested object and a default)
//! under `target/scale/`, then measures:
//!
//! - expansion: reading and checking the folder and running the generator (what `catalog!`
//!   does inside the compiler), in this process, best of five;
//! - build: `cargo build` (debug) of a crate that expands the catalog, its dependencies
//!   already built, so the time is the expansion plus compiling the generated code.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use toolgate_codegen::{Input, Options, generate};
use toolgate_schema::load::{load_sources, read_dir_sources};

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("folder");
    }
    std::fs::write(path, text).expect("write");
}

fn catalog(dir: &Path, tools: usize) {
    let _ = std::fs::remove_dir_all(dir);
    write(
        &dir.join("profiles.json"),
        r#"{
  "catalog": "synthetic",
  "selector": { "env": "SYNTHETIC_PROFILE" },
  "profiles": { "p1": "One.", "p2": "Two.", "p3": "Three.", "p4": "Four." },
  "groups": { "a": { "description": "A." }, "b": { "description": "B." }, "core": { "description": "Core." } },
  "always_on": ["tool_0000"],
  "grants": { "a": ["p1", "p2"], "b": ["p3", "p4"] }
}
"#,
    );
    for i in 0..tools {
        let group = if i == 0 {
            "core"
        } else if i % 2 == 0 {
            "a"
        } else {
            "b"
        };
        write(
            &dir.join(format!("tools/tool_{i:04}.json")),
            &format!(
                r#"{{
  "name": "tool_{i:04}",
  "group": "{group}",
  "description": "Synthetic tool number {i}.",
  "inputSchema": {{
    "type": "object",
    "properties": {{
      "repo": {{ "type": "string", "minLength": 1, "description": "Repository." }},
      "limit": {{ "type": "integer", "minimum": 1, "maximum": 500, "default": 100 }},
      "mode": {{ "type": "string", "enum": ["fast", "full", "dry_run"], "default": "fast" }},
      "tags": {{ "type": "array", "items": {{ "type": "string" }}, "maxItems": 10 }},
      "target": {{
        "type": "object",
        "properties": {{ "path": {{ "type": "string" }}, "line": {{ "type": "integer" }} }},
        "required": ["path"]
      }},
      "force": {{ "type": "boolean" }}
    }},
    "required": ["repo"],
    "additionalProperties": false
  }}
}}
"#
            ),
        );
    }
}

fn expansion(dir: &Path) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut size = 0;
    for _ in 0..5 {
        let start = Instant::now();
        let display = PathBuf::from("catalog");
        let (sources, errors) = read_dir_sources(dir, &display);
        assert!(errors.is_empty());
        let catalog = load_sources(&display, sources.clone()).expect("valid");
        let include: Vec<(String, String)> = sources
            .iter()
            .map(|s| (s.rel.clone(), dir.join(&s.rel).display().to_string()))
            .collect();
        let tokens = generate(&Input {
            catalog: &catalog,
            display: &display,
            sources: &sources,
            include: &include,
            options: &Options::default(),
        })
        .expect("generates");
        size = tokens.to_string().len();
        best = best.min(start.elapsed());
    }
    (best, size)
}

fn build(crate_dir: &Path, target: &Path) -> Duration {
    let start = Instant::now();
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["build", "--quiet", "--offline", "--manifest-path"])
        .arg(crate_dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo runs");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn demo_crate(dir: &Path, catalog: &Path, repo: &Path) {
    write(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"scale-demo\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\ntoolgate-runtime = {{ path = \"{}\" }}\ntoolgate-macros = {{ path = \"{}\" }}\nserde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = \"1\"\n\n[workspace]\n",
            repo.join("runtime").display(),
            repo.join("macros").display()
        ),
    );
    let _ = std::fs::copy(repo.join("Cargo.lock"), dir.join("Cargo.lock"));
    write(
        &dir.join("src/main.rs"),
        &format!(
            "mod synthetic {{\n    toolgate_macros::catalog!(\"{}\");\n}}\n\nfn main() {{\n    println!(\"{{}}\", synthetic::TOOL_NAMES.len());\n}}\n",
            catalog.display()
        ),
    );
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("repo")
        .to_path_buf();
    let work = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/scale");
    let target = work.join("target");
    let sizes = [10usize, 100, 1000];
    println!("| tools | expansion | per tool | generated code | cargo build | per tool |");
    println!("|---:|---:|---:|---:|---:|---:|");
    let mut warmed = false;
    for n in sizes {
        let cat = work.join(format!("catalog-{n}"));
        catalog(&cat, n);
        let (expand, size) = expansion(&cat);
        let crate_dir = work.join("demo");
        demo_crate(&crate_dir, &cat, &repo);
        if !warmed {
            // Dependencies once, so the timed builds compile only the demo crate.
            build(&crate_dir, &target);
            warmed = true;
            demo_crate(&crate_dir, &cat, &repo);
            // A change to main.rs so the crate itself is rebuilt.
            write(
                &crate_dir.join("src/main.rs"),
                &(std::fs::read_to_string(crate_dir.join("src/main.rs")).expect("read") + "\n"),
            );
        }
        let took = build(&crate_dir, &target);
        println!(
            "| {n} | {:.1} ms | {:.0} µs | {:.1} MB | {:.1} s | {:.0} ms |",
            expand.as_secs_f64() * 1e3,
            expand.as_secs_f64() * 1e6 / n as f64,
            size as f64 / 1e6,
            took.as_secs_f64(),
            took.as_secs_f64() * 1e3 / n as f64
        );
    }
}
