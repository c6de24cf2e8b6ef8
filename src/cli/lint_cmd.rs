//! `toolgate lint`: check every literal tool call in skill and agent files. The run itself
//! is `toolgate_lint::run`; this module reads the flags, loads the surfaces (it knows the
//! bundled catalogs), prints and picks the exit code.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use toolgate_lint::Linter;
use toolgate_lint::baseline::{self, Baseline, Record};
use toolgate_lint::config::Config;
use toolgate_lint::finding::Finding;
use toolgate_lint::render::{self, Format, Totals};
use toolgate_lint::run::{FileReport, FixMode, Plan, Run};
use toolgate_lint::servers::ServerSpec;
use toolgate_schema::{Origin, Surface};

use super::{CatalogArg, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, SurfaceSource};

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

/// Whether the command line or the configuration names the surface of unprefixed names.
fn args_name_surface(args: &LintArgs, config: &Config) -> bool {
    args.catalog.is_some()
        || args.manifest.is_some()
        || config.catalog.is_some()
        || config.manifest.is_some()
        || config.unprefixed_server().is_some()
}

fn load_surface(
    args: &LintArgs,
    config: &Config,
    discovered: &super::lint_discovered::Discovered,
) -> Result<Surface, u8> {
    let source = if let Some(c) = &args.catalog {
        SurfaceSource::Catalog(CatalogArg::parse(c))
    } else if let Some(m) = &args.manifest {
        SurfaceSource::Manifest(m.clone())
    } else if let Some(c) = config.catalog_for(super::source::is_bundled) {
        SurfaceSource::Catalog(CatalogArg::parse(&c))
    } else if let Some(m) = &config.manifest {
        SurfaceSource::Manifest(m.clone())
    } else if let Some(loaded) = config.load_unprefixed(&super::source::load_bundled) {
        // A [servers.NAME] table: the surface of the server unprefixed names belong to.
        return loaded.map_err(|e| {
            eprintln!("error: {e}");
            EXIT_ERROR
        });
    } else if let Some(main) = discovered.main_surface(config) {
        // The servers the host configurations name, their surfaces from toolgate.lock.
        return Ok(main);
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
    let plan = match Plan::new(&args.paths, args.config.as_deref()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let mut broken = plan.broken.clone();
    let discovered = match super::lint_discovered::load(
        &plan,
        args.catalog.is_some() || args.manifest.is_some(),
    ) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let surfaces = match load_surfaces(args, &plan, &mut broken, &discovered) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let others = match load_other_servers(&plan, &surfaces) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let linters: Vec<Option<Linter<'_>>> = surfaces
        .iter()
        .zip(&plan.configs)
        .zip(&others)
        .map(|((s, c), o)| {
            s.as_ref().map(|s| {
                let (settings, main) = discovered.settings(args_name_surface(args, c), c);
                let mut l = Linter::new(s, settings);
                for (spec, surface) in o {
                    l.add_server(&spec.name, &spec.prefixes, &spec.removed, surface);
                }
                discovered.add_to(&mut l, c, main);
                l
            })
        })
        .collect();
    let (mut recorded, write_baseline) = match read_baseline(args) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let run = Run {
        plan: &plan,
        linters,
        format: args.format.format(args.color),
        fix: fix_mode(args),
        record_baseline: write_baseline,
    };
    let mut printer = Printer::new(run.format, run.fix, write_baseline);
    printer.incomplete = !plan.walk_errors.is_empty();
    printer.totals.unchecked += plan.walk_errors.len();
    printer.messages = plan
        .walk_errors
        .iter()
        .map(|e| format!("error: {}: {}", e.path, e.message))
        .collect();
    for e in broken.iter().flatten() {
        printer.messages.push(format!("error: {e}"));
        printer.incomplete = true;
    }
    run.lint(recorded.as_mut(), |report| printer.take(report));
    printer.finish(args, &plan)
}

/// The other `[servers.NAME]` of each configuration that has a surface (a server that does
/// not load ends the run: its references could not be checked).
fn load_other_servers(
    plan: &Plan,
    surfaces: &[Option<Surface>],
) -> Result<Vec<Vec<(ServerSpec, Surface)>>, u8> {
    let mut others = Vec::new();
    for (k, c) in plan.configs.iter().enumerate() {
        match surfaces[k]
            .as_ref()
            .map(|_| c.load_other_servers(&super::source::load_bundled))
        {
            Some(Err(e)) => {
                eprintln!("error: {e}");
                return Err(EXIT_ERROR);
            }
            Some(Ok(o)) => others.push(o),
            None => others.push(Vec::new()),
        }
    }
    Ok(others)
}

fn fix_mode(args: &LintArgs) -> FixMode {
    if args.fix {
        FixMode::Write
    } else if args.diff {
        FixMode::Diff
    } else {
        FixMode::Off
    }
}

/// The surface of each configuration the plan uses (the command line's flags win, loaded
/// once); a configuration whose surface does not load is marked broken, unless it is the
/// only one or the flags name the surface, which ends the run.
fn load_surfaces(
    args: &LintArgs,
    plan: &Plan,
    broken: &mut [Option<String>],
    discovered: &super::lint_discovered::Discovered,
) -> Result<Vec<Option<Surface>>, u8> {
    let used = plan.used();
    let flag = args.catalog.is_some() || args.manifest.is_some();
    let mut surfaces: Vec<Option<Surface>> = Vec::new();
    let mut shared: Option<Surface> = None;
    for (k, c) in plan.configs.iter().enumerate() {
        if !used[k] || broken[k].is_some() {
            surfaces.push(None);
            continue;
        }
        if flag && let Some(s) = &shared {
            surfaces.push(Some(s.clone()));
            continue;
        }
        match load_surface(args, c, discovered) {
            Ok(s) => {
                if s.origin == Origin::NamesAndEnums {
                    eprintln!(
                        "note: a tatara-format manifest lists only tool names and enum values: checked unknown-tool, invalid-value and wrong-type (enum fields only); skipped unknown-field, missing-required, tool-not-in-profile, value-not-in-profile and unknown-profile"
                    );
                }
                if flag {
                    shared = Some(s.clone());
                }
                surfaces.push(Some(s));
            }
            Err(code) if plan.configs.len() == 1 || flag => return Err(code),
            Err(_) => {
                broken[k] = Some(match &plan.config_files[k] {
                    Some(p) => format!("{}: no usable surface (see above)", p.display()),
                    None => "files with no toolgate.toml above them have no surface (see above)"
                        .to_string(),
                });
                surfaces.push(None);
            }
        }
    }
    Ok(surfaces)
}

/// `--baseline FILE`: the findings it records, or (when it does not exist yet, or with
/// `--update-baseline`) that this run records them.
fn read_baseline(args: &LintArgs) -> Result<(Option<Baseline>, bool), u8> {
    let Some(b) = &args.baseline else {
        return Ok((None, false));
    };
    if b.is_dir() {
        eprintln!(
            "error: {}: is a folder; --baseline takes a baseline file (JSON, written by the first run)",
            b.display()
        );
        return Err(EXIT_ERROR);
    }
    if args.update_baseline || !b.exists() {
        return Ok((None, true));
    }
    match std::fs::read_to_string(b)
        .map_err(|e| e.to_string())
        .and_then(|t| Baseline::parse(&t))
    {
        Ok(bl) => Ok((Some(bl), false)),
        Err(e) => {
            eprintln!("error: {}: cannot read the baseline: {e}", b.display());
            Err(EXIT_ERROR)
        }
    }
}

/// What a run prints, counts and says, as its reports arrive.
struct Printer {
    out: Output,
    format: Format,
    fix: FixMode,
    /// Whether this run writes the baseline file.
    record_baseline: bool,
    totals: Totals,
    incomplete: bool,
    messages: Vec<String>,
    json: render::json::Writer,
    sarif: Vec<(Finding, String)>,
    records: Vec<Record>,
}

impl Printer {
    fn new(format: Format, fix: FixMode, record_baseline: bool) -> Printer {
        Printer {
            out: Output::new(),
            format,
            fix,
            record_baseline,
            totals: Totals::default(),
            incomplete: false,
            messages: Vec::new(),
            json: render::json::Writer::default(),
            sarif: Vec::new(),
            records: Vec::new(),
        }
    }

    /// Counts one file's report and prints (or keeps, for JSON and SARIF) its findings.
    fn take(&mut self, d: FileReport) {
        self.incomplete |= self.totals.add(&d, &mut self.messages);
        if d.error.is_some() {
            return;
        }
        match (self.fix, self.format) {
            (FixMode::Diff, _) => self.out.write(&d.rendered),
            (_, Format::Json) => self.out.write(&self.json.push(&d.lint.findings)),
            (_, Format::Sarif) => self.sarif.extend(d.sarif),
            _ => self.out.write(&d.rendered),
        }
        self.records.extend(d.records);
    }

    /// Ends the output, writes the baseline, prints the summary and the messages, and
    /// returns the exit code.
    fn finish(mut self, args: &LintArgs, plan: &Plan) -> u8 {
        match (self.fix, self.format) {
            (FixMode::Diff, _) => {}
            (_, Format::Json) => self.out.write(&self.json.finish()),
            (_, Format::Sarif) => self.out.write(&render::sarif::render(&self.sarif)),
            _ => {}
        }
        self.out.flush();
        if self.record_baseline
            && let Some(b) = &args.baseline
            && let Err(code) = self.write_baseline(b)
        {
            return code;
        }
        if plan.files.is_empty() && plan.walk_errors.is_empty() {
            self.messages.push(format!(
                "warning: no file to lint under {} (looked for {})",
                plan.paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                plan.looked_for()
            ));
        }
        if self.fix == FixMode::Diff {
            // The diff is the output; the summary goes to stderr so a patch can be piped.
            self.messages.push(diff_summary(&self.totals));
        } else if self.format.is_human() {
            let line = format!("{}\n", render::summary(&self.totals));
            self.out.write(&line);
        }
        self.out.flush();
        for m in &self.messages {
            eprintln!("{m}");
        }
        if self.out.failed || self.incomplete {
            EXIT_ERROR
        } else if self.totals.errors > 0 || (self.fix == FixMode::Diff && self.totals.fixed > 0) {
            EXIT_FINDINGS
        } else {
            EXIT_OK
        }
    }

    fn write_baseline(&mut self, b: &std::path::Path) -> Result<(), u8> {
        let n = self.records.len();
        let text = baseline::write(&mut self.records);
        if let Err(e) = std::fs::write(b, text) {
            eprintln!("error: {}: cannot write the baseline: {e}", b.display());
            return Err(EXIT_ERROR);
        }
        eprintln!(
            "baseline: recorded {n} finding{} in {}; later runs with --baseline report only new ones",
            if n == 1 { "" } else { "s" },
            b.display()
        );
        self.totals.errors = 0;
        self.totals.warnings = 0;
        self.totals.baselined = n;
        Ok(())
    }
}

/// What `--diff` would do, for standard error.
fn diff_summary(totals: &Totals) -> String {
    format!(
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
    )
}

/// Standard output, where a closed pipe ends output quietly. Into a pipe or a file it is
/// written in blocks (one `write` per 64 KiB, not one per file with findings); to a
/// terminal, each file's findings as they come.
struct Output {
    out: std::io::BufWriter<std::io::Stdout>,
    terminal: bool,
    closed: bool,
    failed: bool,
}

impl Output {
    fn new() -> Output {
        use std::io::IsTerminal;
        let out = std::io::stdout();
        Output {
            terminal: out.is_terminal(),
            out: std::io::BufWriter::with_capacity(64 * 1024, out),
            closed: false,
            failed: false,
        }
    }

    fn write(&mut self, s: &str) {
        if self.closed || s.is_empty() {
            return;
        }
        let mut written = self.out.write_all(s.as_bytes());
        if self.terminal {
            written = written.and_then(|()| self.out.flush());
        }
        self.check(written);
    }

    /// Writes out what is buffered (before the messages on standard error, so that they
    /// still come after the findings when both go to one place).
    fn flush(&mut self) {
        if !self.closed {
            let flushed = self.out.flush();
            self.check(flushed);
        }
    }

    fn check(&mut self, result: std::io::Result<()>) {
        if let Err(e) = result {
            self.closed = true;
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("error: cannot write to standard output: {e}");
                self.failed = true;
            }
        }
    }
}
