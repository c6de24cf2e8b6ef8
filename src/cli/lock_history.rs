//! `toolgate lock --history`: each locked server's published versions, from the registry its
//! launcher would use, each captured as the configuration starts it but pinned to that
//! version, and what changed in each (`toolgate_lint::history`), written to
//! `toolgate.history.json` beside the lock. The client is `toolgate_serve::client::capture`,
//! the one the lock uses; captures are cached in the platform's cache folder (outside the
//! repository), run a few at a time, each within `--timeout`, all within
//! `--history-budget`. A version that fails is recorded and skipped; a registry that cannot be
//! reached skips that server's history with a warning. Nothing here fails the lock.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::Args;
use toolgate_lint::history::file::{
    self, HistoryFile, Package, ServerHistory, StepRecord, VersionRecord,
};
use toolgate_lint::history::launch::{self, Launched, Registry};
use toolgate_lint::history::{self, bisect};
use toolgate_lint::lock::{self, Lock};
use toolgate_serve::client::{self, ServerCommand};

/// The history flags of `toolgate lock`.
#[derive(Args, Debug, Clone)]
pub struct HistoryArgs {
    /// Also learn each server's past from its registry (npm, PyPI) and write
    /// toolgate.history.json: every considered version captured when there are at most N
    /// (default 50), else enough of them, by bisection, to find each version that changed
    /// the tools.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "50", require_equals = true)]
    pub history: Option<usize>,
    /// How many of the newest published versions the history considers.
    #[arg(long, value_name = "N", default_value = "50")]
    pub history_versions: usize,
    /// Seconds the whole history may take; versions not reached by then are recorded as such.
    #[arg(long, value_name = "SECS", default_value = "600")]
    pub history_budget: f64,
    /// Count prereleases (`1.0.0-beta.1`, `2.0rc1`) among the versions.
    #[arg(long)]
    pub prereleases: bool,
}

/// A server to learn the past of: its lock name, how it is started, in which folder.
pub struct Started<'a> {
    /// The lock's name.
    pub id: &'a str,
    /// The expanded command.
    pub command: &'a ServerCommand,
    /// Its folder.
    pub cwd: Option<&'a Path>,
}

/// Learns the past of `servers` and writes it beside the lock at `lock_path`, keeping what
/// the file held for other servers the lock still has. Warnings only: never fails the lock.
pub fn record(
    h: &HistoryArgs,
    timeout: Duration,
    lock_path: &Path,
    servers: &[Started<'_>],
    lock: &Lock,
) {
    let path = lock_path.with_file_name(file::FILE_NAME);
    let mut out = match file::beside(lock_path) {
        Ok(Some(f)) => f,
        Ok(None) => HistoryFile::default(),
        Err(e) => {
            eprintln!("warning: {e}: written again");
            HistoryFile::default()
        }
    };
    out.format_version = file::FORMAT_VERSION;
    out.servers.retain(|id, _| lock.servers.contains_key(id));
    let deadline = Instant::now() + Duration::from_secs_f64(h.history_budget.max(0.0));
    let mut no_package = Vec::new();
    let mut unreachable = Vec::new();
    for s in servers {
        let Some(pkg) = launch::launched(&s.command.program, &s.command.args) else {
            no_package.push(format!("`{}`", s.id));
            continue;
        };
        let published = match versions(&pkg, s.cwd, timeout) {
            Ok(v) => select(v, h),
            Err(e) => {
                unreachable.push(format!(
                    "`{}` ({} {}: {e})",
                    s.id,
                    pkg.registry.name(),
                    pkg.name
                ));
                continue;
            }
        };
        let learned = learn(h, timeout, deadline, s, &pkg, &published);
        out.servers.insert(s.id.to_string(), learned);
    }
    if !no_package.is_empty() {
        eprintln!(
            "warning: history skipped for {}: the launch names no npm or PyPI package",
            no_package.join(", ")
        );
    }
    if !unreachable.is_empty() {
        eprintln!(
            "warning: history skipped for {}: the registry could not be read",
            unreachable.join(", ")
        );
    }
    match file::write(&path, &out) {
        Ok(()) => eprintln!(
            "wrote {} ({} server{})",
            file::FILE_NAME,
            out.servers.len(),
            if out.servers.len() == 1 { "" } else { "s" }
        ),
        Err(e) => eprintln!("warning: {e}"),
    }
}

/// The newest `--history-versions`, prereleases left out unless asked, oldest first (in
/// version order: [`launch::version_cmp`]).
fn select(mut v: Vec<(String, Option<String>)>, h: &HistoryArgs) -> Vec<(String, Option<String>)> {
    v.retain(|(ver, _)| h.prereleases || !launch::is_prerelease(ver));
    v.sort_by(|a, b| launch::version_cmp(&a.0, &b.0));
    let skip = v.len().saturating_sub(h.history_versions);
    v.split_off(skip)
}

/// What one capture gave: the tools, or why not, and the options left out.
#[derive(Clone)]
struct Got {
    tools: Result<Vec<toolgate_schema::json::Value>, String>,
    without: Vec<String>,
}

/// Captures the versions bisection asks for, round by round, and writes what they say.
fn learn(
    h: &HistoryArgs,
    timeout: Duration,
    deadline: Instant,
    s: &Started<'_>,
    pkg: &Launched,
    published: &[(String, Option<String>)],
) -> ServerHistory {
    let all = h.history.unwrap_or(50).max(2);
    let mut got: BTreeMap<usize, Got> = BTreeMap::new();
    let mut hashes: BTreeMap<usize, Option<String>> = BTreeMap::new();
    loop {
        let next = bisect::next_round(published.len(), all, &hashes);
        if next.is_empty() {
            break;
        }
        let results = capture_round(&next, timeout, deadline, s, pkg, published);
        for (i, g) in results {
            hashes.insert(i, g.tools.as_ref().ok().map(|t| lock::tools_hash(t)));
            got.insert(i, g);
        }
    }
    let versions: Vec<history::Version> = published
        .iter()
        .enumerate()
        .map(|(i, (v, date))| history::Version {
            version: v.clone(),
            date: date.clone(),
            tools: got.get(&i).and_then(|g| g.tools.as_ref().ok()).map(|t| {
                t.iter()
                    .map(toolgate_schema::json::Value::to_serde)
                    .collect()
            }),
        })
        .collect();
    let steps = history::infer(&versions);
    ServerHistory {
        package: Package {
            registry: pkg.registry.name().into(),
            name: pkg.name.clone(),
        },
        versions: published
            .iter()
            .enumerate()
            .map(|(i, (v, date))| version_record(v, date, got.get(&i)))
            .collect(),
        changes: steps.iter().map(StepRecord::from).collect(),
    }
}

fn version_record(version: &str, date: &Option<String>, got: Option<&Got>) -> VersionRecord {
    let mut r = VersionRecord {
        version: version.to_string(),
        date: date.clone(),
        ..VersionRecord::default()
    };
    match got {
        None => r.skipped = true,
        Some(g) => {
            r.without = g.without.clone();
            match &g.tools {
                Ok(tools) => {
                    for t in tools {
                        let name = t
                            .as_object()
                            .and_then(|o| o.get("name"))
                            .and_then(|n| n.as_str());
                        if let Some(name) = name {
                            r.tools.insert(
                                name.to_string(),
                                lock::tools_hash(std::slice::from_ref(t)),
                            );
                        }
                    }
                }
                Err(e) => r.error = Some(e.clone()),
            }
        }
    }
    r
}

/// Captures the versions `which`, a few at a time (each from the cache when it is there).
fn capture_round(
    which: &[usize],
    timeout: Duration,
    deadline: Instant,
    s: &Started<'_>,
    pkg: &Launched,
    published: &[(String, Option<String>)],
) -> Vec<(usize, Got)> {
    let width = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 4);
    let mut out = Vec::new();
    for chunk in which.chunks(width) {
        std::thread::scope(|scope| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|&i| {
                    (
                        i,
                        scope.spawn(move || {
                            capture_version(timeout, deadline, s, pkg, &published[i].0)
                        }),
                    )
                })
                .collect();
            for (i, h) in handles {
                let g = h.join().unwrap_or_else(|_| Got {
                    tools: Err("the capture thread panicked".into()),
                    without: Vec::new(),
                });
                out.push((i, g));
            }
        });
    }
    out
}

/// One version, pinned: from the cache, or started (again without each option it refuses,
/// at most three times) and cached when it answered.
fn capture_version(
    timeout: Duration,
    deadline: Instant,
    s: &Started<'_>,
    pkg: &Launched,
    version: &str,
) -> Got {
    let mut args = pkg.pinned(&s.command.args, version);
    let cache = cache_file(pkg, version, &args);
    if let Some(tools) = cache.as_deref().and_then(read_cache) {
        return Got {
            tools: Ok(tools),
            without: Vec::new(),
        };
    }
    let mut without = Vec::new();
    for _ in 0..4 {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Got {
                tools: Err("not captured: the history budget ran out".into()),
                without,
            };
        }
        let command = ServerCommand {
            program: s.command.program.clone(),
            args: args.clone(),
            env: s.command.env.clone(),
        };
        match client::capture(&command, s.cwd, timeout.min(left)) {
            Ok(c) => {
                if let Some(path) = &cache {
                    write_cache(path, &c.tools);
                }
                return Got {
                    tools: Ok(c.tools),
                    without,
                };
            }
            Err(e) => match launch::refused_option(&e.stderr, &args).filter(|&i| i != pkg.arg) {
                Some(i) => without.push(args.remove(i)),
                None => {
                    let first = e.message.lines().next().unwrap_or_default().to_string();
                    return Got {
                        tools: Err(first),
                        without,
                    };
                }
            },
        }
    }
    Got {
        tools: Err("refused every option left out".into()),
        without,
    }
}

/// The published versions of `pkg` with their dates, from the registry its launcher uses.
fn versions(
    pkg: &Launched,
    cwd: Option<&Path>,
    timeout: Duration,
) -> Result<Vec<(String, Option<String>)>, String> {
    match pkg.registry {
        Registry::Npm => npm_versions(&pkg.name, cwd, timeout),
        Registry::Pypi => Err("reading PyPI's index is not supported yet".into()),
    }
}

/// `npm view NAME versions time --json`: npm's own configured registry (`.npmrc`,
/// `NPM_CONFIG_REGISTRY`), so a project's mirror or a test's local registry is the one read.
fn npm_versions(
    name: &str,
    cwd: Option<&Path>,
    timeout: Duration,
) -> Result<Vec<(String, Option<String>)>, String> {
    let npm = if cfg!(windows) { "npm.cmd" } else { "npm" };
    let mut cmd = Command::new(npm);
    cmd.args(["view", name, "versions", "time", "--json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let text = run_bounded(cmd, timeout.max(Duration::from_secs(30)))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("npm view: not JSON: {e}"))?;
    let times = v.get("time").and_then(serde_json::Value::as_object);
    let list: Vec<String> = match v.get("versions") {
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str().map(String::from))
            .collect(),
        Some(serde_json::Value::String(one)) => vec![one.clone()],
        _ => return Err("npm view: no `versions`".into()),
    };
    Ok(list
        .into_iter()
        .map(|ver| {
            let date = times
                .and_then(|t| t.get(&ver))
                .and_then(|d| d.as_str())
                .map(String::from);
            (ver, date)
        })
        .collect())
}

/// Runs `cmd` to its end within `timeout`: its standard output, or why not.
fn run_bounded(mut cmd: Command, timeout: Duration) -> Result<String, String> {
    let child = cmd.spawn().map_err(|e| format!("cannot run npm: {e}"))?;
    let (tx, rx) = std::sync::mpsc::channel();
    let id = child.id();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(timeout) {
        Ok(Ok(o)) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).into_owned()),
        Ok(Ok(o)) => {
            let err = String::from_utf8_lossy(&o.stderr);
            Err(err
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("npm view failed")
                .trim()
                .to_string())
        }
        Ok(Err(e)) => Err(format!("npm view: {e}")),
        Err(_) => {
            kill(id);
            Err(format!(
                "npm view did not answer within {}s",
                timeout.as_secs()
            ))
        }
    }
}

fn kill(pid: u32) {
    #[cfg(unix)]
    let _ = Command::new("kill").arg(pid.to_string()).status();
    #[cfg(not(unix))]
    let _ = pid;
}

/// The cache folder: `TOOLGATE_CACHE_DIR`, else the platform's (`$XDG_CACHE_HOME` or
/// `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows), under
/// `toolgate/history`.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = var("TOOLGATE_CACHE_DIR") {
        return Some(d.join("history"));
    }
    let base = if cfg!(windows) {
        var("LOCALAPPDATA")?
    } else if cfg!(target_os = "macos") {
        var("HOME")?.join("Library/Caches")
    } else {
        var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")))?
    };
    Some(base.join("toolgate").join("history"))
}

/// Where one version's capture is cached: by registry, package, version and the arguments
/// it was started with (another option may serve other tools).
fn cache_file(pkg: &Launched, version: &str, args: &[String]) -> Option<PathBuf> {
    let key = lock::tools_hash(&[toolgate_schema::json::Value::str(args.join("\u{0}"))]);
    Some(
        cache_dir()?
            .join(pkg.registry.name())
            .join(file_safe(&pkg.name))
            .join(format!("{}-{}.json", file_safe(version), &key[..16])),
    )
}

/// `name` as one path component: letters, digits, `.` and `-` kept, anything else `_` (a
/// scope's `@` and `/`, a version's `+`).
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn read_cache(path: &Path) -> Option<Vec<toolgate_schema::json::Value>> {
    let text = std::fs::read_to_string(path).ok()?;
    let v: toolgate_schema::json::Value = serde_json::from_str(&text).ok()?;
    v.as_array().map(<[_]>::to_vec)
}

fn write_cache(path: &Path, tools: &[toolgate_schema::json::Value]) {
    if let Some(dir) = path.parent()
        && std::fs::create_dir_all(dir).is_ok()
    {
        let text =
            toolgate_schema::json::to_compact(&toolgate_schema::json::Value::Array(tools.to_vec()));
        let tmp = path.with_extension("tmp");
        if std::fs::write(&tmp, text).is_ok() {
            let _ = std::fs::rename(&tmp, path);
        }
    }
}
