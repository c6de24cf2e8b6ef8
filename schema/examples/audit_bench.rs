//! Times `audit::audit` on 1,000 tools: the real servers' tools of `../shared/anchors/wild`
//! (or, without them, the audit fixtures), renamed and repeated up to 1,000, audited as one
//! surface (so the surface-wide rules, near-duplicates, see 1,000 names).
//!
//!   cargo run --release -p toolgate-schema --example audit_bench
//!
//! Prints the fastest, the median and the slowest of 20 runs (the fastest is the one a
//! loaded machine disturbs least); docs/benchmarks.md has the figures.

use std::path::Path;
use std::time::Instant;

use toolgate_schema::audit::{self, AuditSurface};
use toolgate_schema::json::Value;

fn read_tools(path: &Path) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let Ok(doc) = serde_json::from_str::<Value>(&text) else {
        return Vec::new();
    };
    audit::tools_of(&doc)
        .map(<[Value]>::to_vec)
        .unwrap_or_default()
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wild = root.join("../../shared/anchors/wild");
    let mut base = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&wild) {
        let mut files: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        files.push(wild.join("github-mcp-server/tools.json"));
        for f in files
            .iter()
            .filter(|f| f.to_string_lossy().ends_with(".json"))
        {
            base.extend(read_tools(f));
        }
    }
    if base.is_empty() {
        base = read_tools(&root.join("tests/audit_cases/attacks.tools.json"));
        base.extend(read_tools(
            &root.join("tests/audit_cases/benign.tools.json"),
        ));
    }
    let mut tools = Vec::new();
    for i in 0..1000 {
        let mut t = base[i % base.len()].clone();
        if let Value::Object(m) = &mut t {
            let name = m
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("t")
                .to_string();
            m.insert("name", Value::str(format!("{name}_{}", i / base.len())));
        }
        tools.push(t);
    }
    let surface = [AuditSurface {
        server: None,
        prefixes: &[],
        tools: &tools,
    }];
    let mut times = Vec::new();
    let mut n = 0;
    for _ in 0..20 {
        let start = Instant::now();
        n = audit::audit(&surface, &[]).len();
        times.push(start.elapsed());
    }
    times.sort();
    println!(
        "audit of {} tools ({} distinct bases): fastest {:.1} ms, median {:.1} ms, slowest {:.1} ms, {n} findings",
        tools.len(),
        base.len(),
        times[0].as_secs_f64() * 1e3,
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3
    );
}
