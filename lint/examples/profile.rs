//! The lint's phases on a corpus, timed apart, for perf and callgrind:
//!
//!   cargo run --release -p toolgate-lint --example profile -- target/bench-corpus run
//!   cargo run --release -p toolgate-lint --example profile -- target/bench-corpus text 3
//!
//! `run` times a whole run (plan, then every file linted and rendered concise) as
//! `toolgate lint --format concise` does it, with the bundled tatara catalog, and prints the
//! rendered findings to standard output; `text` reads every file into memory first and
//! times only [`Linter::lint_text`] over them, on one thread, N times.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use toolgate_lint::Linter;
use toolgate_lint::render::Format;
use toolgate_lint::run::{FixMode, Plan, Run};
use toolgate_schema::Surface;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = PathBuf::from(args.first().map_or("target/bench-corpus", String::as_str));
    let mode = args.get(1).map_or("run", String::as_str);
    let repeat: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(1);
    let catalog = toolgate_generated::load_bundled("tatara")
        .and_then(Result::ok)
        .expect("the bundled tatara catalog");
    let surface = Surface::from_catalog(&catalog);
    let t = Instant::now();
    let plan = Plan::new(std::slice::from_ref(&root), None).expect("the configuration loads");
    eprintln!("plan: {} files in {:?}", plan.files.len(), t.elapsed());
    let linters: Vec<Option<Linter<'_>>> = plan
        .configs
        .iter()
        .map(|c| Some(Linter::new(&surface, c.settings())))
        .collect();
    match mode {
        "plan" => {
            for _ in 0..repeat {
                let config = toolgate_lint::config::Config::load(&root.join("toolgate.toml"))
                    .expect("the corpus configuration");
                let (t, c) = (Instant::now(), cpu_ns());
                let (files, _) = toolgate_lint::walk::collect(std::slice::from_ref(&root), &config);
                let walked = (t.elapsed(), cpu_ns() - c);
                let t = Instant::now();
                let plan = Plan::new(std::slice::from_ref(&root), None).expect("a plan");
                eprintln!(
                    "walk: {} files in {:?} ({:.1} ms cpu on this thread); whole plan {:?}",
                    files.len().max(plan.files.len()),
                    walked.0,
                    walked.1 as f64 / 1e6,
                    t.elapsed()
                );
            }
        }
        "passes" => passes(&plan.files, linters[0].as_ref().expect("a linter")),
        "text" => {
            let texts: Vec<(String, String)> = plan
                .files
                .iter()
                .map(|p| {
                    (
                        toolgate_lint::walk::display(p),
                        std::fs::read_to_string(p).expect("a UTF-8 file"),
                    )
                })
                .collect();
            let linter = linters[0].as_ref().expect("a linter");
            for _ in 0..repeat {
                let t = Instant::now();
                let c = cpu_ns();
                let mut findings = 0;
                let mut calls = 0;
                for (path, text) in &texts {
                    let lint = linter.lint_text(path, text, None);
                    findings += lint.findings.len();
                    calls += lint.calls;
                }
                eprintln!(
                    "lint_text: {calls} calls, {findings} findings in {:.1} ms cpu, {:?} wall",
                    (cpu_ns() - c) as f64 / 1e6,
                    t.elapsed()
                );
            }
        }
        _ => {
            let run = Run {
                plan: &plan,
                linters,
                format: Format::Concise,
                fix: FixMode::Off,
                record_baseline: false,
            };
            let t = Instant::now();
            let out = std::io::stdout();
            let mut out = out.lock();
            let mut files = 0;
            run.lint(None, |report| {
                files += 1;
                let _ = out.write_all(report.rendered.as_bytes());
            });
            eprintln!("run: {files} files in {:?}", t.elapsed());
        }
    }
}

/// Each pass of the scanner alone over every file, in memory, to see what costs what.
fn passes(files: &[PathBuf], linter: &Linter<'_>) {
    use toolgate_lint::scan;
    use toolgate_lint::text::{LineIndex, Span};
    let texts: Vec<String> = files
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("a UTF-8 file"))
        .collect();
    let time = |what: &str, f: &dyn Fn(&str) -> usize| {
        let t = Instant::now();
        let c = cpu_ns();
        let n: usize = texts.iter().map(|t| f(t)).sum();
        eprintln!(
            "{what:>15}: {:>8.1} ms cpu, {:>8.1} ms wall ({n})",
            (cpu_ns() - c) as f64 / 1e6,
            t.elapsed().as_secs_f64() * 1e3
        );
    };
    let body = |t: &str| scan::front_matter(t).map_or(0, |f| f.body_start);
    time("front_matter", &|t| body(t));
    time("memchr ( iter", &|t| {
        memchr::memchr_iter(b'(', t.as_bytes()).fold(0, |a, i| a ^ i)
    });
    time("memchr nl iter", &|t| {
        memchr::memchr_iter(b'\n', t.as_bytes()).fold(0, |a, i| a ^ i)
    });
    time("memchr nl count", &|t| {
        memchr::memchr_iter(b'\n', t.as_bytes()).count()
    });
    time("fm decode", &|t| {
        scan::front_matter(t).map_or(0, |f| {
            toolgate_lint::frontmatter::decode(t, f.yaml).scalars.len()
        })
    });
    time("paren (all)", &|t| {
        scan::candidates(t, Span::new(body(t), t.len()), |_, _| false).len()
    });
    time("paren (tools)", &|t| {
        scan::candidates(t, Span::new(body(t), t.len()), |n, _| {
            linter.checker().lookup(n) != toolgate_lint::check::NameKind::Unknown
        })
        .len()
    });
    time("brace", &|t| {
        scan::candidates_before(t, Span::new(body(t), t.len()), b'{', |_, _| false).len()
    });
    time("regions", &|t| scan::regions(t, body(t)).len());
    time("yaml", &|t| {
        scan::regions(t, body(t))
            .iter()
            .filter(|r| r.context.is_block_code())
            .map(|r| toolgate_lint::forms::yaml_calls(t, r.span, |_| false).len())
            .sum()
    });
    time("line index", &|t| LineIndex::new(t).line_of(t.len()));
    time("lint_text", &|t| {
        linter.lint_text("x/SKILL.md", t, None).findings.len()
    });
}

/// The calling thread's time on a cpu so far, in nanoseconds (Linux's schedstat; 0
/// elsewhere): wall time on a shared machine moves with the neighbours' load.
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}
