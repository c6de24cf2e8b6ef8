//! A whole lint run as a library call: configuration, walk, then each file scanned and
//! checked (and fixed, and held against a baseline) on every core; the caller gets one
//! [`FileReport`] per file, in order, and renders or counts it.
//!
//! ```no_run
//! use std::path::PathBuf;
//! use toolgate_lint::run::{FixMode, Plan, Run};
//! use toolgate_lint::Linter;
//! use toolgate_lint::render::Format;
//!
//! # fn surface() -> toolgate_schema::Surface { unimplemented!() }
//! let plan = Plan::new(&[PathBuf::from("skills")], None).expect("toolgate.toml reads");
//! let surface = surface();
//! let linters = plan
//!     .configs
//!     .iter()
//!     .map(|c| Some(Linter::new(&surface, c.settings())))
//!     .collect();
//! let run = Run { plan: &plan, linters, format: Format::Concise, fix: FixMode::Off, record_baseline: false };
//! run.lint(None, |report| print!("{}", report.rendered));
//! ```
//!
//! What has no surface (the caller could not load one for a configuration) is reported as
//! not checked, never skipped silently.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use crate::baseline::{self, Baseline, Record};
use crate::config::{self, Config};
use crate::finding::Finding;
use crate::fix;
use crate::lint::{FileLint, Linter};
use crate::render::{self, Format, Totals};
use crate::rules::Severity;
use crate::walk;

/// What to do with the rewrites findings carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixMode {
    /// Report only.
    Off,
    /// Rewrite the files.
    Write,
    /// Print a diff.
    Diff,
}

/// One linted file, ready to print.
#[derive(Default, Debug)]
pub struct FileReport {
    /// The file as messages name it.
    pub path: String,
    /// Why it could not be checked at all.
    pub error: Option<String>,
    /// Its findings and what else the lint said of it.
    pub lint: FileLint,
    /// Its findings rendered in the run's format (or the diff `--diff` prints).
    pub rendered: String,
    /// Its findings as a baseline records them (when recording one).
    pub records: Vec<Record>,
    /// Its findings with their SARIF fingerprints (SARIF output).
    pub sarif: Vec<(Finding, String)>,
    /// Findings the baseline hid.
    pub baselined: usize,
    /// Findings repaired (or, with [`FixMode::Diff`], that would be).
    pub fixed: usize,
}

/// How many times a fix re-lints and rewrites one file at most.
const MAX_FIX_PASSES: usize = 8;

/// How many files the workers may lint ahead of the last report handed out (in order), so
/// that memory stays bounded whatever the number of files.
const WINDOW: usize = 512;

/// Which files to lint, and with which configuration each.
#[derive(Debug)]
pub struct Plan {
    /// The paths given (`.` when none was).
    pub paths: Vec<PathBuf>,
    /// The files, sorted.
    pub files: Vec<PathBuf>,
    /// What could not be walked.
    pub walk_errors: Vec<walk::WalkError>,
    /// The configurations in use; the first is the one of the first path (or `--config`).
    pub configs: Vec<Config>,
    /// The file each configuration was read from.
    pub config_files: Vec<Option<PathBuf>>,
    /// Configurations that did not load (their files are reported as not checked).
    pub broken: Vec<Option<String>>,
    /// For each file, the index of its configuration.
    pub config_of: Vec<usize>,
}

impl Plan {
    /// Finds the configuration and walks `paths`. With `config_file` (`--config`), one
    /// configuration serves every file; otherwise each PATH is walked with the globs of its
    /// own toolgate.toml (found upward) and each file is linted with the toolgate.toml nearest
    /// to it, as ruff does. Errs when the first configuration does not load.
    pub fn new(paths: &[PathBuf], config_file: Option<&Path>) -> Result<Plan, String> {
        let paths: Vec<PathBuf> = if paths.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            paths.to_vec()
        };
        let config_path = match config_file {
            Some(p) => Some(p.to_path_buf()),
            None => config::find(&paths[0]),
        };
        let config = match &config_path {
            Some(p) => Config::load(p)?,
            None => Config::defaults(PathBuf::from(".")),
        };
        let walked = match config_file {
            Some(_) => walk::walk(&paths, &config),
            None => collect_per_root(&paths, &config, config_path.as_deref()),
        };
        let mut plan = Plan {
            config_of: vec![0; walked.files.len()],
            paths,
            files: walked.files,
            walk_errors: walked.errors,
            configs: vec![config],
            config_files: vec![config_path],
            broken: vec![None],
        };
        if config_file.is_none() {
            plan.assign_nearest_configs(&walked.has_config);
        }
        Ok(plan)
    }

    /// Gives each file the toolgate.toml nearest to it, loading each one once. Folders are
    /// looked up once each, and a folder's answer is its parent's when it holds no
    /// toolgate.toml: one `stat` per folder, not one per folder and ancestor; the walk has
    /// already looked in the folders it walked (`has_config`).
    fn assign_nearest_configs(&mut self, has_config: &HashMap<PathBuf, bool>) {
        let mut found_in: HashMap<PathBuf, Option<PathBuf>> = HashMap::new();
        let mut index_of: HashMap<Option<PathBuf>, usize> = HashMap::new();
        for i in 0..self.files.len() {
            let dir = self.files[i].parent().unwrap_or(Path::new(""));
            // Files of one folder come one after another (the list is sorted): the folder's
            // answer is the last one's.
            if i > 0 && self.files[i - 1].parent().unwrap_or(Path::new("")) == dir {
                self.config_of[i] = self.config_of[i - 1];
                continue;
            }
            let found = nearest_config(dir, has_config, &mut found_in);
            let index = match index_of.get(&found) {
                Some(&k) => k,
                None => {
                    let k = self.config_index(found.clone());
                    index_of.insert(found, k);
                    k
                }
            };
            self.config_of[i] = index;
        }
    }

    /// The index of the configuration found upward from `dir`, loaded when new.
    fn config_index(&mut self, found: Option<PathBuf>) -> usize {
        let canon = |p: &Option<PathBuf>| p.as_ref().map(|p| config::absolute(p));
        if let Some(k) = self
            .config_files
            .iter()
            .position(|c| canon(c) == canon(&found))
        {
            return k;
        }
        let Some(p) = found.clone() else { return 0 };
        match Config::load(&p) {
            Ok(c) => {
                self.configs.push(c);
                self.broken.push(None);
            }
            Err(e) => {
                self.configs.push(Config::defaults(PathBuf::from(".")));
                self.broken.push(Some(e));
            }
        }
        self.config_files.push(found);
        self.configs.len() - 1
    }

    /// For each configuration, whether a file (or, with no file at all, the run itself) uses
    /// it, and so whether it needs a surface.
    pub fn used(&self) -> Vec<bool> {
        let mut used = vec![false; self.configs.len()];
        for &k in &self.config_of {
            used[k] = true;
        }
        used[0] = used[0] || self.files.is_empty();
        used
    }

    /// What the run looked for, for the warning when nothing was found.
    pub fn looked_for(&self) -> String {
        if self.configs[0].path.is_some() {
            "the configuration's `include` globs".to_string()
        } else {
            config::DEFAULT_INCLUDE.join(", ")
        }
    }
}

/// The toolgate.toml nearest to the folder `dir` ([`config::find`]), remembering the answer
/// for `dir` and every folder climbed through on the way.
fn nearest_config(
    dir: &Path,
    has_config: &HashMap<PathBuf, bool>,
    memo: &mut HashMap<PathBuf, Option<PathBuf>>,
) -> Option<PathBuf> {
    // A path that climbs (`../x`) is not inside the current folder: looked up as it is.
    if dir
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        let start = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        return memo
            .entry(dir.to_path_buf())
            .or_insert_with(|| config::find(start))
            .clone();
    }
    let mut climbed: Vec<PathBuf> = Vec::new();
    let mut at = dir.to_path_buf();
    let found = loop {
        if let Some(hit) = memo.get(&at) {
            break hit.clone();
        }
        // Above the first folder of a relative path, the search goes on from the current
        // folder's absolute path, as config::find does.
        if at.as_os_str().is_empty() || at == Path::new(".") {
            let hit = config::find(Path::new("."));
            climbed.push(at);
            break hit;
        }
        let here = match has_config.get(&at) {
            Some(&has) => has,
            None => at.join(config::FILE_NAME).is_file(),
        };
        if here {
            let found = config::absolute(&at.join(config::FILE_NAME));
            climbed.push(at);
            break Some(found);
        }
        let parent = at.parent().map(Path::to_path_buf);
        climbed.push(at);
        match parent {
            Some(p) => at = p,
            None => break None,
        }
    };
    for d in climbed {
        memo.insert(d, found.clone());
    }
    found
}

/// Walks each root with the globs of the toolgate.toml found upward from it; `first` is the
/// configuration of the first root, already loaded. A configuration that does not load here
/// walks with `first`'s globs: its error is reported when its files are linted.
fn collect_per_root(paths: &[PathBuf], first: &Config, first_path: Option<&Path>) -> walk::Walked {
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
        return walk::walk(paths, first);
    }
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut has_config = HashMap::new();
    for (key, roots) in groups {
        let loaded = match &key {
            Some(p) if key != first_key => Config::load(p).ok(),
            Some(_) => None,
            None => Some(Config::defaults(PathBuf::from("."))),
        };
        let w = walk::walk(&roots, loaded.as_ref().unwrap_or(first));
        files.extend(w.files);
        errors.extend(w.errors);
        has_config.extend(w.has_config);
    }
    files.sort();
    files.dedup();
    errors.sort_by(|a, b| a.path.cmp(&b.path).then(a.message.cmp(&b.message)));
    errors.dedup();
    walk::Walked {
        files,
        errors,
        has_config,
    }
}

/// A planned run: the linter of each configuration (`None`: it has no usable surface) and
/// what to do with the findings.
pub struct Run<'p, 's> {
    /// The files and configurations.
    pub plan: &'p Plan,
    /// One per `plan.configs`.
    pub linters: Vec<Option<Linter<'s>>>,
    /// How findings are rendered into [`FileReport::rendered`].
    pub format: Format,
    /// Whether fixes are applied, shown or neither.
    pub fix: FixMode,
    /// Whether the findings are recorded for a new baseline (then nothing is rendered).
    pub record_baseline: bool,
}

impl Run<'_, '_> {
    /// Lints every file, in parallel; `sink` receives each report in file order, as soon as
    /// it and the ones before it are done. With `recorded`, findings it holds are hidden (and
    /// counted as baselined).
    pub fn lint(&self, recorded: Option<&mut Baseline>, mut sink: impl FnMut(FileReport)) {
        let files = &self.plan.files;
        let n = files.len();
        // Each file's part of the baseline, taken out on this thread (it is one map).
        let baselines: Vec<Mutex<Option<Baseline>>> = match recorded {
            Some(b) => files
                .iter()
                .map(|p| Mutex::new(Some(b.split_for(&walk::display(p)))))
                .collect(),
            None => Vec::new(),
        };
        // This thread lints too, between handing out reports: one fewer worker than cores.
        let workers = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(n.max(1))
            - 1;
        let board = Board::new(n);
        let report = |i: usize| {
            let baseline = baselines.get(i).and_then(|b| lock(b).take());
            (i, self.report(i, baseline))
        };
        std::thread::scope(|s| {
            for _ in 0..workers {
                let (board, report) = (&board, &report);
                s.spawn(move || {
                    loop {
                        let i = board.next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        board.wait_for_room(i);
                        let (i, r) = report(i);
                        board.put(i, r);
                    }
                });
            }
            let mut handed = 0;
            while handed < n {
                for r in board.take_ready() {
                    sink(r);
                    handed += 1;
                }
                if handed == n {
                    break;
                }
                // Lint the next file while the window has room; else wait for the report
                // the next one to hand out is.
                let claimed = board
                    .next
                    .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                        (v < n && v < handed + WINDOW).then_some(v + 1)
                    });
                match claimed {
                    Ok(i) => {
                        let (i, r) = report(i);
                        board.put(i, r);
                    }
                    Err(_) => board.wait_for_head(),
                }
            }
        });
    }

    /// The report of file `i`.
    fn report(&self, i: usize, baseline: Option<Baseline>) -> FileReport {
        let path = &self.plan.files[i];
        let k = self.plan.config_of[i];
        match self.linters[k].as_ref() {
            Some(linter) => self.lint_one(path, baseline, linter, &self.plan.configs[k]),
            None => FileReport {
                path: walk::display(path),
                error: Some("not checked: no usable surface for it (see above)".to_string()),
                ..FileReport::default()
            },
        }
    }

    fn lint_one(
        &self,
        path: &Path,
        baseline: Option<Baseline>,
        linter: &Linter<'_>,
        config: &Config,
    ) -> FileReport {
        let shown = walk::display(path);
        let failed = |e: String| FileReport {
            path: shown.clone(),
            error: Some(e),
            ..FileReport::default()
        };
        let (mut text, lossy) = match walk::read_lossy(path) {
            Ok(t) => t,
            Err(e) => return failed(e),
        };
        let profiles = config.mapped_profiles(path);
        let mut lint = linter.lint_text(&shown, &text, profiles);
        if let Some(w) = &lossy {
            lint.warnings.push(format!("{shown}: {w}"));
        }
        let mut fixed = 0;
        let mut diff = String::new();
        // A file read lossily is never rewritten.
        if self.fix != FixMode::Off && lossy.is_none() {
            let original = text.clone();
            fixed = fix_until_stable(&mut text, &mut lint, |t| {
                linter.lint_text(&shown, t, profiles)
            });
            if fixed > 0 {
                match self.fix {
                    FixMode::Write => {
                        if let Err(e) = std::fs::write(path, &text) {
                            return failed(format!("cannot write the fixed file: {e}"));
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
        let mut report = FileReport {
            path: shown.clone(),
            baselined,
            fixed,
            ..FileReport::default()
        };
        if self.record_baseline {
            report.records = records(&lint.findings, &text);
            lint.findings.clear();
        } else if self.fix == FixMode::Diff {
            report.rendered = diff;
        } else {
            (report.rendered, report.sarif) = render_file(self.format, &text, &lint.findings);
        }
        report.lint = lint;
        report
    }
}

/// Where the threads of a run leave the reports of the files they linted, for the one that
/// hands them out in file order. Files are linted at most [`WINDOW`] ahead of the last report
/// handed out, so the reports waiting for an earlier one stay bounded; no thread waits for
/// the others except at that bound, or when everything left is being linted elsewhere.
struct Board {
    /// The next file to take.
    next: AtomicUsize,
    /// A mirror of `Ring::handed`, for the workers' check that there is room.
    handed: AtomicUsize,
    ring: Mutex<Ring>,
    /// A worker waits here for room in the window.
    room: Condvar,
    /// The handing thread waits here for the report it is to hand out next.
    arrived: Condvar,
}

struct Ring {
    /// The report of file `i` at `i % WINDOW`.
    slots: Vec<Option<FileReport>>,
    /// How many reports were handed out.
    handed: usize,
    /// How many workers wait for room.
    wanting_room: usize,
    /// Whether the handing thread waits for the report of file `handed`.
    wanting_head: bool,
}

impl Board {
    fn new(n: usize) -> Board {
        Board {
            next: AtomicUsize::new(0),
            handed: AtomicUsize::new(0),
            ring: Mutex::new(Ring {
                slots: (0..WINDOW.min(n)).map(|_| None).collect(),
                handed: 0,
                wanting_room: 0,
                wanting_head: false,
            }),
            room: Condvar::new(),
            arrived: Condvar::new(),
        }
    }

    /// Waits until file `i` is within the window.
    fn wait_for_room(&self, i: usize) {
        if i < self.handed.load(Ordering::Acquire) + WINDOW {
            return;
        }
        let mut ring = lock(&self.ring);
        ring.wanting_room += 1;
        while i >= ring.handed + WINDOW {
            ring = self.room.wait(ring).unwrap_or_else(|p| p.into_inner());
        }
        ring.wanting_room -= 1;
    }

    /// Leaves the report of file `i` (within the window).
    fn put(&self, i: usize, report: FileReport) {
        let mut ring = lock(&self.ring);
        let at = i % WINDOW;
        ring.slots[at] = Some(report);
        if ring.wanting_head && i == ring.handed {
            self.arrived.notify_one();
        }
    }

    /// The reports that are next in file order and done, counted as handed out.
    fn take_ready(&self) -> Vec<FileReport> {
        let mut ready = Vec::new();
        let mut ring = lock(&self.ring);
        loop {
            let at = ring.handed % WINDOW;
            let Some(r) = ring.slots.get_mut(at).and_then(Option::take) else {
                break;
            };
            ready.push(r);
            ring.handed += 1;
        }
        if !ready.is_empty() {
            self.handed.store(ring.handed, Ordering::Release);
            if ring.wanting_room > 0 {
                self.room.notify_all();
            }
        }
        ready
    }

    /// Waits until the report to hand out next is done.
    fn wait_for_head(&self) {
        let mut ring = lock(&self.ring);
        loop {
            let at = ring.handed % WINDOW;
            if ring.slots.get(at).is_none_or(Option::is_some) {
                break;
            }
            ring.wanting_head = true;
            ring = self.arrived.wait(ring).unwrap_or_else(|p| p.into_inner());
        }
        ring.wanting_head = false;
    }
}

/// Locks `m`, also after a worker panicked holding it.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Applies the fixes the findings carry until nothing changes (a rewrite can reveal the
/// next one: a renamed tool's renamed field is only checked once the tool is known), as ruff
/// does; returns how many were applied.
fn fix_until_stable(
    text: &mut String,
    lint: &mut FileLint,
    relint: impl Fn(&str) -> FileLint,
) -> usize {
    let mut fixed = 0;
    for _ in 0..MAX_FIX_PASSES {
        let repaired = fix::apply(text, &lint.findings);
        if repaired.applied.is_empty() {
            break;
        }
        fixed += repaired.applied.len();
        *text = repaired.text;
        *lint = relint(text);
    }
    fixed
}

/// The baseline records of a file's findings.
fn records(findings: &[Finding], text: &str) -> Vec<Record> {
    findings
        .iter()
        .map(|f| Record {
            key: baseline::key(f, text),
            line: f.start.line,
            message: f.message.clone(),
        })
        .collect()
}

/// A file's findings in `format`: the text to print, or, for SARIF, each finding with its
/// fingerprint (SARIF and JSON are written whole at the end of a run).
fn render_file(
    format: Format,
    text: &str,
    findings: &[Finding],
) -> (String, Vec<(Finding, String)>) {
    match format {
        Format::Full { color } => (render::full::render(text, findings, color), Vec::new()),
        Format::Concise => (render::concise::render(findings), Vec::new()),
        Format::Github => (render::github::render(findings), Vec::new()),
        Format::Json => (String::new(), Vec::new()),
        Format::Sarif => (
            String::new(),
            findings
                .iter()
                .map(|f| (f.clone(), baseline::fingerprint(f, text)))
                .collect(),
        ),
    }
}

impl Totals {
    /// Counts one report; what it says beyond its findings (errors, warnings) is appended
    /// to `messages`. Returns whether the file could not be checked completely.
    pub fn add(&mut self, d: &FileReport, messages: &mut Vec<String>) -> bool {
        if let Some(e) = &d.error {
            messages.push(format!("error: {}: {e}", d.path));
            self.unchecked += 1;
            return true;
        }
        self.files += 1;
        self.calls += d.lint.calls;
        self.baselined += d.baselined;
        self.fixed += d.fixed;
        self.files_fixed += usize::from(d.fixed > 0);
        for e in &d.lint.errors {
            messages.push(format!("error: {e}"));
        }
        if !d.lint.errors.is_empty() {
            self.unchecked += 1;
        }
        for w in &d.lint.warnings {
            messages.push(format!("warning: {w}"));
        }
        if !d.lint.findings.is_empty() {
            self.files_with_findings += 1;
        }
        for f in &d.lint.findings {
            match f.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
            }
        }
        !d.lint.errors.is_empty()
    }
}
