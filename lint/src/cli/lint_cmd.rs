//! `toolgate lint`: check every literal tool call in skill and agent files.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use clap::{Args, ValueEnum};
use toolgate_schema::{Origin, Surface};

use super::{CatalogArg, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, SurfaceSource};
use crate::baseline::{self, Baseline, Record};
use crate::config::{self, Config};
use crate::finding::Finding;
use crate::fix;
use crate::lint::{FileLint, Linter};
use crate::render::{self, Format, Totals};
use crate::rules::Severity;
use crate::walk;

/// `--format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    /// rustc-style snippets with the span underlined (the default).
    Full,
    /// `path:line:col: rule: message`, one a line.
    Concise,
    /// A JSON array of findings.
    Json,
    /// GitHub Actions annotations.
    Github,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
}

/// `--color` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ColorArg {
    /// Colour when standard output is a terminal and `NO_COLOR` is unset or empty.
    Auto,
    /// Always colour (ANSI escapes), even into a pipe or a file.
    Always,
    /// Never colour.
    Never,
}

impl ColorArg {
    /// Whether the snippets are coloured.
    fn enabled(self) -> bool {
        use std::io::IsTerminal;
        match self {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stdout().is_terminal()
            }
        }
    }
}

impl FormatArg {
    fn format(self, color: ColorArg) -> Format {
        match self {
            FormatArg::Full => Format::Full {
                color: color.enabled(),
            },
            FormatArg::Concise => Format::Concise,
            FormatArg::Json => Format::Json,
            FormatArg::Github => Format::Github,
            FormatArg::Sarif => Format::Sarif,
        }
    }
}

/// Arguments of `toolgate lint`.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  toolgate lint --catalog tatara skills/\n  toolgate lint --manifest tool-manifest.json --format github\n  toolgate lint --format sarif > toolgate.sarif\n  toolgate explain unknown-field\n\nFolders are walked for SKILL.md and .claude/agents/*.md (see toolgate.toml's `include`), skipping .git, target, node_modules and what .gitignore ignores.\n\nExit codes: 0 no error findings, 1 error findings, 2 could not check everything (no or bad surface, bad configuration, a file that could not be read or decoded); 2 wins over 1, and the findings of the files that were checked are still printed."
)]
pub struct LintArgs {
    /// Files or folders to lint (default: the current folder).
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// The surface: a bundled catalog (tatara, maetra) or a catalog folder.
    #[arg(long, value_name = "NAME|DIR", conflicts_with = "manifest")]
    catalog: Option<String>,
    /// The surface: a toolgate manifest, or a tatara-format one (names and enums only: fewer
    /// checks, and the run says which were skipped).
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    /// The configuration file for every PATH (default: the toolgate.toml nearest to each file,
    /// looked for upward).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The output format.
    #[arg(long, value_enum, default_value = "full")]
    format: FormatArg,
    /// Colour the `full` format's snippets.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    color: ColorArg,
    /// Report only findings not recorded in FILE; when FILE does not exist, record today's
    /// findings in it and pass (exit 2 still when a file could not be checked).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Rewrite the baseline FILE with today's findings.
    #[arg(long, requires = "baseline")]
    update_baseline: bool,
    /// A missing, unreadable or empty manifest is a warning and the run passes (exit 0),
    /// instead of failing closed (exit 2).
    #[arg(long)]
    allow_missing_manifest: bool,
    /// Rewrite, in place, every call that uses a name the catalog declares as former
    /// (`formerly`): only those bytes change. Ambiguous rewrites are left as findings.
    #[arg(long, conflicts_with_all = ["diff", "baseline"])]
    fix: bool,
    /// Print what --fix would change, as a unified diff, without writing; exit 1 when there is
    /// anything to change or any error finding would remain.
    #[arg(long, conflicts_with = "baseline")]
    diff: bool,
}

/// What to do with the rewrites findings carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FixMode {
    /// Report only.
    Off,
    /// Rewrite the files.
    Write,
    /// Print a diff.
    Diff,
}

/// One linted file, ready to print.
#[derive(Default)]
struct Done {
    path: String,
    error: Option<String>,
    lint: FileLint,
    rendered: String,
    records: Vec<Record>,
    sarif: Vec<(Finding, String)>,
    baselined: usize,
    /// Findings repaired (or, with --diff, that would be).
    fixed: usize,
}

/// How many times `--fix` re-lints and rewrites one file at most.
const MAX_FIX_PASSES: usize = 8;

/// Files linted per batch: the output of a batch is printed, in order, before the next one
/// starts, so memory stays bounded whatever the number of files.
const BATCH: usize = 512;

fn load_surface(args: &LintArgs, config: &Config) -> Result<Surface, u8> {
    let source = if let Some(c) = &args.catalog {
        SurfaceSource::Catalog(CatalogArg::parse(c))
    } else if let Some(m) = &args.manifest {
        SurfaceSource::Manifest(m.clone())
    } else if let Some(c) = &config.catalog {
        SurfaceSource::Catalog(CatalogArg::parse(c))
    } else if let Some(m) = &config.manifest {
        SurfaceSource::Manifest(m.clone())
    } else if let Some(loaded) = config.load_unprefixed() {
        // [servers.NAME] (toolgate-lint): the unprefixed server's surface.
        return loaded.map_err(|e| {
            eprintln!("error: {e}");
            EXIT_ERROR
        });
    } else {
        eprintln!(
            "error: no surface to check against: give --catalog NAME|DIR or --manifest FILE, or set `catalog` or `manifest` in toolgate.toml"
        );
        return Err(EXIT_ERROR);
    };
    let is_manifest = matches!(source, SurfaceSource::Manifest(_));
    let allow = args.allow_missing_manifest && is_manifest;
    match source.load() {
        Ok(s) if s.tools.is_empty() => {
            let what = match &source {
                SurfaceSource::Manifest(p) => {
                    format!("{}: the manifest lists no tool", p.display())
                }
                SurfaceSource::Catalog(_) => "the catalog has no tool".to_string(),
            };
            if allow {
                eprintln!("warning: {what}; nothing checked (--allow-missing-manifest)");
                Err(EXIT_OK)
            } else {
                eprintln!(
                    "error: {what}; failing closed (--allow-missing-manifest makes this a warning)"
                );
                Err(EXIT_ERROR)
            }
        }
        Ok(s) => Ok(s),
        Err(e) => {
            if allow {
                for d in &e.0 {
                    eprintln!("warning: {d}");
                }
                eprintln!("warning: no manifest; nothing checked (--allow-missing-manifest)");
                Err(EXIT_OK)
            } else {
                eprintln!("{e}");
                if is_manifest {
                    eprintln!(
                        "error: cannot check without a surface; failing closed (--allow-missing-manifest makes a missing manifest a warning)"
                    );
                }
                Err(EXIT_ERROR)
            }
        }
    }
}

/// `toolgate lint`
pub fn lint(args: &LintArgs) -> u8 {
    let paths: Vec<PathBuf> = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let config_path = match &args.config {
        Some(p) => Some(p.clone()),
        None => config::find(&paths[0]),
    };
    let config = match &config_path {
        Some(p) => match Config::load(p) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_ERROR;
            }
        },
        None => Config::defaults(PathBuf::from(".")),
    };
    // Which files: each PATH is walked with the include/exclude globs of its own
    // toolgate.toml (found upward from it), unless --config names one for all.
    let (files, walk_errors) = match &args.config {
        Some(_) => walk::collect(&paths, &config),
        None => collect_per_root(&paths, &config, config_path.as_deref()),
    };

    // Each file is linted with the toolgate.toml nearest to it (as ruff does), unless
    // --config names one: a repository may hold skills for several surfaces.
    let mut configs: Vec<Config> = vec![config];
    let mut config_files: Vec<Option<PathBuf>> = vec![config_path.clone()];
    let mut broken: Vec<Option<String>> = vec![None];
    let mut config_of: Vec<usize> = vec![0; files.len()];
    if args.config.is_none() {
        let mut by_dir: std::collections::HashMap<PathBuf, usize> =
            std::collections::HashMap::new();
        for (i, f) in files.iter().enumerate() {
            let dir = f.parent().map(Path::to_path_buf).unwrap_or_default();
            let index = match by_dir.get(&dir) {
                Some(&k) => k,
                None => {
                    let found = config::find(if dir.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        &dir
                    });
                    let canon =
                        |p: &Option<PathBuf>| p.as_ref().and_then(|p| std::path::absolute(p).ok());
                    let k = match config_files.iter().position(|c| canon(c) == canon(&found)) {
                        Some(k) => k,
                        None if found.is_none() => 0,
                        None => {
                            let p = found.clone().unwrap_or_default();
                            match Config::load(&p) {
                                Ok(c) => {
                                    configs.push(c);
                                    broken.push(None);
                                }
                                Err(e) => {
                                    configs.push(Config::defaults(PathBuf::from(".")));
                                    broken.push(Some(e));
                                }
                            }
                            config_files.push(found);
                            configs.len() - 1
                        }
                    };
                    by_dir.insert(dir, k);
                    k
                }
            };
            config_of[i] = index;
        }
    }
    // The surfaces, one per configuration in use (the command line's flags win).
    let mut used: Vec<bool> = vec![false; configs.len()];
    for &k in &config_of {
        used[k] = true;
    }
    used[0] = used[0] || files.is_empty();
    let mut surfaces: Vec<Option<Surface>> = Vec::new();
    let mut shared: Option<Surface> = None;
    for (k, c) in configs.iter().enumerate() {
        if !used[k] || broken[k].is_some() {
            surfaces.push(None);
            continue;
        }
        let flag = args.catalog.is_some() || args.manifest.is_some();
        if flag && let Some(s) = &shared {
            surfaces.push(Some(s.clone()));
            continue;
        }
        match load_surface(args, c) {
            Ok(s) => {
                if s.origin == Origin::NamesAndEnums {
                    eprintln!(
                        "note: a tatara-format manifest lists only tool names and enum values: checked unknown-tool, invalid-value and wrong-type (enum fields only); skipped unknown-field, tool-not-in-profile, value-not-in-profile and unknown-profile"
                    );
                }
                if flag {
                    shared = Some(s.clone());
                }
                surfaces.push(Some(s));
            }
            Err(code) if configs.len() == 1 || flag => return code,
            Err(_) => {
                broken[k] = Some(match &config_files[k] {
                    Some(p) => format!("{}: no usable surface (see above)", p.display()),
                    None => "files with no toolgate.toml above them have no surface (see above)"
                        .to_string(),
                });
                surfaces.push(None);
            }
        }
    }
    // The other [servers.NAME] of each configuration (toolgate-lint).
    let mut others: Vec<Vec<(crate::servers::ServerSpec, Surface)>> = Vec::new();
    for (k, c) in configs.iter().enumerate() {
        match surfaces[k].as_ref().map(|_| c.load_other_servers()) {
            Some(Err(e)) => {
                eprintln!("error: {e}");
                return EXIT_ERROR;
            }
            Some(Ok(o)) => others.push(o),
            None => others.push(Vec::new()),
        }
    }
    let linters: Vec<Option<Linter<'_>>> = surfaces
        .iter()
        .zip(&configs)
        .zip(&others)
        .map(|((s, c), o)| {
            s.as_ref().map(|s| {
                let mut l = Linter::new(s, c.settings());
                for (spec, surface) in o {
                    l.add_server(&spec.name, &spec.prefixes, &spec.removed, surface);
                }
                l
            })
        })
        .collect();

    let mut recorded: Option<Baseline> = None;
    let mut write_baseline = false;
    if let Some(b) = &args.baseline {
        if b.is_dir() {
            eprintln!(
                "error: {}: is a folder; --baseline takes a baseline file (JSON, written by the first run)",
                b.display()
            );
            return EXIT_ERROR;
        }
        if args.update_baseline || !b.exists() {
            write_baseline = true;
        } else {
            match std::fs::read_to_string(b)
                .map_err(|e| e.to_string())
                .and_then(|t| Baseline::parse(&t))
            {
                Ok(bl) => recorded = Some(bl),
                Err(e) => {
                    eprintln!("error: {}: cannot read the baseline: {e}", b.display());
                    return EXIT_ERROR;
                }
            }
        }
    }

    let format = args.format.format(args.color);
    let fix_mode = if args.fix {
        FixMode::Write
    } else if args.diff {
        FixMode::Diff
    } else {
        FixMode::Off
    };
    let mut out = Output::new();
    let mut totals = Totals::default();
    let mut incomplete = !walk_errors.is_empty();
    let mut json = render::json::Writer::default();
    let mut sarif: Vec<(Finding, String)> = Vec::new();
    let mut records: Vec<Record> = Vec::new();
    let mut messages: Vec<String> = walk_errors
        .iter()
        .map(|e| format!("error: {}: {}", e.path, e.message))
        .collect();
    totals.unchecked += walk_errors.len();

    for e in broken.iter().flatten() {
        messages.push(format!("error: {e}"));
        incomplete = true;
    }
    for (b, batch) in files.chunks(BATCH).enumerate() {
        let baselines: Vec<Option<Baseline>> = batch
            .iter()
            .map(|p| recorded.as_mut().map(|b| b.split_for(&walk::display(p))))
            .collect();
        let setups: Vec<(Option<&Linter<'_>>, &Config)> = (0..batch.len())
            .map(|i| {
                let k = config_of[b * BATCH + i];
                (linters[k].as_ref(), &configs[k])
            })
            .collect();
        let done = lint_batch(batch, baselines, &setups, format, write_baseline, fix_mode);
        for d in done {
            if let Some(e) = &d.error {
                messages.push(format!("error: {}: {e}", d.path));
                incomplete = true;
                totals.unchecked += 1;
                continue;
            }
            totals.files += 1;
            totals.calls += d.lint.calls;
            totals.baselined += d.baselined;
            totals.fixed += d.fixed;
            totals.files_fixed += usize::from(d.fixed > 0);
            for e in &d.lint.errors {
                messages.push(format!("error: {e}"));
                incomplete = true;
            }
            if !d.lint.errors.is_empty() {
                totals.unchecked += 1;
            }
            for w in &d.lint.warnings {
                messages.push(format!("warning: {w}"));
            }
            if !d.lint.findings.is_empty() {
                totals.files_with_findings += 1;
            }
            for f in &d.lint.findings {
                match f.severity {
                    Severity::Error => totals.errors += 1,
                    Severity::Warning => totals.warnings += 1,
                }
            }
            match (fix_mode, format) {
                (FixMode::Diff, _) => out.write(&d.rendered),
                (_, Format::Json) => out.write(&json.push(&d.lint.findings)),
                (_, Format::Sarif) => sarif.extend(d.sarif),
                _ => out.write(&d.rendered),
            }
            records.extend(d.records);
        }
    }
    match (fix_mode, format) {
        (FixMode::Diff, _) => {}
        (_, Format::Json) => out.write(&json.finish()),
        (_, Format::Sarif) => out.write(&render::sarif::render(&sarif)),
        _ => {}
    }
    if write_baseline && let Some(b) = &args.baseline {
        let n = records.len();
        let text = baseline::write(&mut records);
        if let Err(e) = std::fs::write(b, text) {
            eprintln!("error: {}: cannot write the baseline: {e}", b.display());
            return EXIT_ERROR;
        }
        eprintln!(
            "baseline: recorded {n} finding{} in {}; later runs with --baseline report only new ones",
            if n == 1 { "" } else { "s" },
            b.display()
        );
        totals.errors = 0;
        totals.warnings = 0;
        totals.baselined = n;
    }
    if files.is_empty() && walk_errors.is_empty() {
        messages.push(format!(
            "warning: no file to lint under {} (looked for {})",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            if configs[0].path.is_some() {
                "the configuration's `include` globs".to_string()
            } else {
                config::DEFAULT_INCLUDE.join(", ")
            }
        ));
    }
    if fix_mode == FixMode::Diff {
        // The diff is the output; the summary goes to stderr so a patch can be piped.
        messages.push(format!(
            "would apply {} in {}; {} would remain",
            if totals.fixed == 1 {
                "1 rename".to_string()
            } else {
                format!("{} renames", totals.fixed)
            },
            if totals.files_fixed == 1 {
                "1 file".to_string()
            } else {
                format!("{} files", totals.files_fixed)
            },
            match totals.errors + totals.warnings {
                1 => "1 finding".to_string(),
                n => format!("{n} findings"),
            }
        ));
    } else if format.is_human() {
        out.write(&format!("{}\n", render::summary(&totals)));
    }
    let write_failed = out.failed;
    for m in &messages {
        eprintln!("{m}");
    }
    if write_failed {
        return EXIT_ERROR;
    }
    if incomplete {
        EXIT_ERROR
    } else if totals.errors > 0 || (fix_mode == FixMode::Diff && totals.fixed > 0) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

/// Walks each root with the globs of the toolgate.toml found upward from it; `first` is the
/// configuration of the first root, already loaded. A configuration that does not load here
/// walks with `first`'s globs: its error is reported when its files are linted.
fn collect_per_root(
    paths: &[PathBuf],
    first: &Config,
    first_path: Option<&Path>,
) -> (Vec<PathBuf>, Vec<walk::WalkError>) {
    let canon = |p: Option<&Path>| p.and_then(|p| std::path::absolute(p).ok());
    let first_key = canon(first_path);
    let mut groups: Vec<(Option<PathBuf>, Vec<PathBuf>)> = Vec::new();
    for root in paths {
        let key = canon(config::find(root).as_deref());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, roots)) => roots.push(root.clone()),
            None => groups.push((key, vec![root.clone()])),
        }
    }
    if groups.len() == 1 {
        return walk::collect(paths, first);
    }
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for (key, roots) in groups {
        let loaded = match &key {
            Some(p) if key != first_key => Config::load(p).ok(),
            Some(_) => None,
            None => Some(Config::defaults(PathBuf::from("."))),
        };
        let (f, e) = walk::collect(&roots, loaded.as_ref().unwrap_or(first));
        files.extend(f);
        errors.extend(e);
    }
    files.sort();
    files.dedup();
    errors.sort_by(|a, b| a.path.cmp(&b.path).then(a.message.cmp(&b.message)));
    errors.dedup();
    (files, errors)
}

fn lint_batch(
    batch: &[PathBuf],
    baselines: Vec<Option<Baseline>>,
    setups: &[(Option<&Linter<'_>>, &Config)],
    format: Format,
    write_baseline: bool,
    fix_mode: FixMode,
) -> Vec<Done> {
    let next = AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<(Option<Baseline>, Option<Done>)>> = baselines
        .into_iter()
        .map(|b| std::sync::Mutex::new((b, None)))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(batch.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = batch.get(i) else { break };
                    let mut slot = match slots[i].lock() {
                        Ok(g) => g,
                        Err(p) => p.into_inner(),
                    };
                    let baseline = slot.0.take();
                    let (linter, config) = setups[i];
                    slot.1 = Some(match linter {
                        Some(linter) => lint_one(
                            path,
                            baseline,
                            linter,
                            config,
                            format,
                            write_baseline,
                            fix_mode,
                        ),
                        None => Done {
                            path: walk::display(path),
                            error: Some(
                                "not checked: no usable surface for it (see above)".to_string(),
                            ),
                            ..Done::default()
                        },
                    });
                }
            });
        }
    });
    slots
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|p| p.into_inner())
                .1
                .unwrap_or_default()
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn lint_one(
    path: &Path,
    baseline: Option<Baseline>,
    linter: &Linter<'_>,
    config: &Config,
    format: Format,
    write_baseline: bool,
    fix_mode: FixMode,
) -> Done {
    let shown = walk::display(path);
    let (text, lossy) = match walk::read_lossy(path) {
        Ok(t) => t,
        Err(e) => {
            return Done {
                path: shown,
                error: Some(e),
                ..Done::default()
            };
        }
    };
    let mut text = text;
    let mut lint = linter.lint_text(&shown, &text, config.mapped_profiles(path));
    if let Some(w) = &lossy {
        lint.warnings.push(format!("{shown}: {w}"));
    }
    let mut fixed = 0;
    let mut diff = String::new();
    // A file read lossily is never rewritten.
    if fix_mode != FixMode::Off && lossy.is_none() {
        // A rewrite can reveal the next one (a renamed tool's renamed field is only checked
        // once the tool is known), so fix until nothing changes, as ruff does.
        let original = text.clone();
        for _ in 0..MAX_FIX_PASSES {
            let repaired = fix::apply(&text, &lint.findings);
            if repaired.applied.is_empty() {
                break;
            }
            fixed += repaired.applied.len();
            text = repaired.text;
            lint = linter.lint_text(&shown, &text, config.mapped_profiles(path));
        }
        if fixed > 0 {
            match fix_mode {
                FixMode::Write => {
                    if let Err(e) = std::fs::write(path, &text) {
                        return Done {
                            path: shown,
                            error: Some(format!("cannot write the fixed file: {e}")),
                            ..Done::default()
                        };
                    }
                }
                FixMode::Diff => diff = fix::unified_diff(&shown, &original, &text, 3),
                FixMode::Off => {}
            }
        }
    }
    let mut baselined = 0;
    if let Some(mut b) = baseline {
        lint.findings.retain(|f| {
            let old = b.take(&baseline::key(f, &text));
            baselined += usize::from(old);
            !old
        });
    }
    let mut records = Vec::new();
    if write_baseline {
        records = lint
            .findings
            .iter()
            .map(|f| Record {
                key: baseline::key(f, &text),
                line: f.start.line,
                message: f.message.clone(),
            })
            .collect();
    }
    let (rendered, sarif) = if write_baseline {
        (String::new(), Vec::new())
    } else if fix_mode == FixMode::Diff {
        (diff, Vec::new())
    } else {
        match format {
            Format::Full { color } => (
                render::full::render(&text, &lint.findings, color),
                Vec::new(),
            ),
            Format::Concise => (render::concise::render(&lint.findings), Vec::new()),
            Format::Github => (render::github::render(&lint.findings), Vec::new()),
            Format::Json => (String::new(), Vec::new()),
            Format::Sarif => (
                String::new(),
                lint.findings
                    .iter()
                    .map(|f| (f.clone(), baseline::fingerprint(f, &text)))
                    .collect(),
            ),
        }
    };
    if write_baseline {
        lint.findings.clear();
    }
    Done {
        path: shown,
        error: None,
        lint,
        rendered,
        records,
        sarif,
        baselined,
        fixed,
    }
}

/// Standard output, where a closed pipe ends output quietly.
struct Output {
    out: std::io::Stdout,
    closed: bool,
    failed: bool,
}

impl Output {
    fn new() -> Output {
        Output {
            out: std::io::stdout(),
            closed: false,
            failed: false,
        }
    }

    fn write(&mut self, s: &str) {
        if self.closed || s.is_empty() {
            return;
        }
        let mut lock = self.out.lock();
        if let Err(e) = lock.write_all(s.as_bytes()).and_then(|()| lock.flush()) {
            self.closed = true;
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("error: cannot write to standard output: {e}");
                self.failed = true;
            }
        }
    }
}
