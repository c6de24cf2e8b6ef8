//! `toolgate lock`: start each server the host configurations name, capture its tools, write
//! `toolgate.lock`; `--check` captures again and reports what changed and which agent-file
//! lines it breaks. Discovery and the lock format are `toolgate_lint::{hosts, lock}`, the
//! client `toolgate_serve::client`, the report `toolgate_lint::lock_report`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};
use toolgate_lint::hosts::vars::{self, Context};
use toolgate_lint::hosts::{self, Discovery, HostServer, Transport};
use toolgate_lint::lock::{self, Lock, LockedServer, Reached};
use toolgate_lint::lock_report::{self, Report};
use toolgate_serve::client::{self, Capture, ServerCommand};
use toolgate_serve::client_http::{HttpKind, HttpServer};

use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, print_stdout};

/// `--format` values of the report.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ReportFormat {
    /// One block per server.
    Human,
    /// JSON.
    Json,
    /// Markdown, for a pull-request comment.
    Markdown,
}

/// Arguments of `toolgate lock`.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  toolgate lock                         # capture every server, write toolgate.lock\n  toolgate lock --update playwright     # capture one again\n  toolgate lock --check --format markdown   # in a scheduled CI job\n  toolgate lock --history                # and each server's past, from its registry\n  toolgate lock --env GITHUB_TOKEN=... --env api-key=...   # a variable, or a VS Code input by id\n  toolgate lock --ca-cert internal-ca.pem   # an https server with a private CA\n\nThe servers are those `toolgate servers` lists. Each stdio server is started without a shell, variables expanded from the environment and --env; an http (Streamable HTTP) or sse (legacy HTTP+SSE) server is reached at its URL with its headers, https trusting the system's roots and --ca-cert; a redirect to another origin is not followed; a server that answers 401/403 (OAuth) takes a `tools_list` capture in toolgate.toml instead. The lock records commands, arguments and URLs as written and the names of variables and headers, never their values.\n\nExit codes: 0 written (or, with --check, equal), 1 with --check a difference (or with --keep-going a server failed), 2 could not capture (a bad config, an unset variable, a server that failed)."
)]
pub struct LockArgs {
    /// Capture only these servers again; the others stay as locked.
    #[arg(long, value_name = "NAME", num_args = 1.., conflicts_with = "check")]
    update: Vec<String>,
    /// Capture every server and compare with toolgate.lock, writing nothing.
    #[arg(long)]
    check: bool,
    /// A variable (or a VS Code input id) for the configurations' `${...}`.
    #[arg(long = "env", value_name = "NAME=VALUE", value_parser = parse_env)]
    env: Vec<(String, String)>,
    /// Seconds each server has to start, initialize and list every page of its tools.
    #[arg(long, value_name = "SECS", default_value = "30")]
    timeout: f64,
    /// Write the servers that were captured when others fail (exit 1).
    #[arg(long, conflicts_with = "check")]
    keep_going: bool,
    /// A PEM certificate trusted for https servers, beside the system's roots.
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<PathBuf>,
    /// The report's format.
    #[arg(long, value_enum, default_value = "human")]
    format: ReportFormat,
    #[command(flatten)]
    history: super::lock_history::HistoryArgs,
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err("expected NAME=VALUE".into()),
    }
}

/// How a prepared server is reached, its variables expanded.
enum Target {
    /// A command over stdio, run in a folder.
    Stdio(ServerCommand, Option<PathBuf>),
    /// A Streamable HTTP or SSE URL and its headers.
    Http(HttpServer),
}

/// A server ready to start.
struct Prepared {
    id: String,
    target: Target,
    reached: Reached,
    /// The expanded values that came from the environment, an input or --env: never printed.
    secrets: Vec<String>,
}

/// `toolgate lock`
pub fn run(args: &LockArgs) -> u8 {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        eprintln!("error: --timeout: give a number of seconds above 0");
        return EXIT_ERROR;
    }
    if let Some(ca) = &args.ca_cert
        && !ca.is_file()
    {
        eprintln!("error: --ca-cert {}: not a file", ca.display());
        return EXIT_ERROR;
    }
    let root = hosts::project_root(Path::new("."));
    let discovery = match hosts::discover(&root) {
        Ok(d) => d,
        Err(errors) => {
            for e in errors {
                eprintln!("error: {e}");
            }
            return EXIT_ERROR;
        }
    };
    let lock_path = root.join(lock::FILE_NAME);
    let old = if lock_path.is_file() {
        match lock::read(&lock_path) {
            Ok(l) => Some(l),
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_ERROR;
            }
        }
    } else if args.check || !args.update.is_empty() {
        eprintln!(
            "error: {}: no lock yet; run `toolgate lock` first",
            lock_path.display()
        );
        return EXIT_ERROR;
    } else {
        None
    };
    match capture_lock(args, &root, &discovery, old.as_ref()) {
        Ok((new, failed)) => finish(args, &root, &discovery, old.as_ref(), &new, failed),
        Err(code) => code,
    }
}

/// The new lock (the old one's entries kept for servers not captured) and whether a server
/// failed (`--keep-going`).
fn capture_lock(
    args: &LockArgs,
    root: &Path,
    discovery: &Discovery,
    old: Option<&Lock>,
) -> Result<(Lock, bool), u8> {
    let (prepared, mut new) = prepare_all(args, root, discovery)?;
    let timeout = Duration::from_secs_f64(args.timeout);
    let ca_cert = match &args.ca_cert {
        Some(path) => Some(std::fs::read(path).map_err(|e| {
            eprintln!("error: --ca-cert {}: cannot read: {e}", path.display());
            EXIT_ERROR
        })?),
        None => None,
    };
    let mut failed = false;
    for (p, result) in capture_all(&prepared, timeout, ca_cert.as_deref()) {
        let s = discovery
            .server(&p.id)
            .map(|s| s.declared.clone())
            .unwrap_or_default();
        match result {
            Ok(c) => {
                new.servers
                    .insert(p.id.clone(), locked(s, p.reached.clone(), c));
            }
            Err(mut e) => {
                failed = true;
                // The URL as written, not expanded: an input in it is a secret.
                if let (Target::Http(server), Reached::Http { url, .. }) = (&p.target, &p.reached) {
                    e.message = e.message.replace(&server.url, url);
                }
                let hint = if e.refused {
                    format!(
                        "\n  a server behind OAuth cannot be captured unattended: give it a captured surface instead, `[servers.{}] tools_list = \"FILE\"` in toolgate.toml (FILE: its tools/list result)",
                        p.id
                    )
                } else {
                    String::new()
                };
                eprintln!(
                    "error: server `{}` ({}): {}{hint}",
                    p.id,
                    s.first().map(ToString::to_string).unwrap_or_default(),
                    redact(&e, &p.secrets)
                );
            }
        }
    }
    if failed && !args.keep_going {
        if !args.check {
            eprintln!(
                "error: nothing written (--keep-going writes the servers that were captured)"
            );
        }
        return Err(EXIT_ERROR);
    }
    if let Some(old) = old {
        for (id, s) in &old.servers {
            let not_updated = !args.update.is_empty() && !args.update.contains(id);
            let failed_now = failed && !new.servers.contains_key(id);
            if (not_updated || failed_now) && discovery.server(id).is_some() {
                new.servers.entry(id.clone()).or_insert_with(|| s.clone());
            }
        }
    }
    if args.history.history.is_some() && !args.check {
        history_of(args, root, &prepared, &new, timeout);
    }
    Ok((new, failed))
}

/// `--history`: the past of the servers just captured (`lock_history`); an HTTP server
/// names no package, which that module says.
fn history_of(args: &LockArgs, root: &Path, prepared: &[Prepared], new: &Lock, timeout: Duration) {
    let none = ServerCommand {
        program: String::new(),
        args: Vec::new(),
        env: Vec::new(),
    };
    let started: Vec<super::lock_history::Started<'_>> = prepared
        .iter()
        .map(|p| match &p.target {
            Target::Stdio(c, cwd) => super::lock_history::Started {
                id: &p.id,
                command: c,
                cwd: cwd.as_deref(),
            },
            Target::Http(..) => super::lock_history::Started {
                id: &p.id,
                command: &none,
                cwd: None,
            },
        })
        .collect();
    let lock_path = root.join(lock::FILE_NAME);
    super::lock_history::record(&args.history, timeout, &lock_path, &started, new);
}

/// Every selected server expanded and ready to start, and the lock of those captured by
/// hand (`tools_list` in toolgate.toml); every error (an unset variable, a bad capture)
/// is printed and ends the run before anything starts.
fn prepare_all(
    args: &LockArgs,
    root: &Path,
    discovery: &Discovery,
) -> Result<(Vec<Prepared>, Lock), u8> {
    for name in &args.update {
        if discovery.server(name).is_none() {
            eprintln!(
                "error: --update {name}: no host configuration names a server `{name}` (see `toolgate servers`)"
            );
            return Err(EXIT_ERROR);
        }
    }
    let selected: Vec<&HostServer> = discovery
        .servers
        .iter()
        .filter(|s| args.update.is_empty() || args.update.contains(&s.id))
        .collect();
    let captured_by_hand = captured_tools_lists(root)?;
    let given: BTreeMap<String, String> = args.env.iter().cloned().collect();
    let mut prepared = Vec::new();
    let mut errors = Vec::new();
    let mut new = Lock::default();
    for s in &selected {
        if let Some(file) = captured_by_hand.get(&s.id) {
            match hand_captured(root, s, file) {
                Ok(l) => {
                    new.servers.insert(s.id.clone(), l);
                }
                Err(e) => errors.push(e),
            }
            continue;
        }
        if let Some(w) = floating(s) {
            eprintln!(
                "warning: {}: {w}: the lock pins what was captured today, the configuration does not",
                s.declared[0]
            );
        }
        match prepare(s, root, &given) {
            Ok(p) => prepared.push(p),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        for e in errors {
            eprintln!("error: {e}");
        }
        return Err(EXIT_ERROR);
    }
    Ok((prepared, new))
}

/// The `[servers.NAME] tools_list` of the root's toolgate.toml, for servers that cannot be
/// started (OAuth, a private network).
fn captured_tools_lists(root: &Path) -> Result<BTreeMap<String, PathBuf>, u8> {
    let path = root.join(toolgate_lint::config::FILE_NAME);
    if !path.is_file() {
        return Ok(BTreeMap::new());
    }
    let config = toolgate_lint::config::Config::load(&path).map_err(|e| {
        eprintln!("error: {e}");
        EXIT_ERROR
    })?;
    Ok(config
        .servers
        .iter()
        .filter_map(|s| match &s.source {
            toolgate_lint::servers::Source::ToolsList(p) => Some((s.name.clone(), p.clone())),
            _ => None,
        })
        .collect())
}

fn hand_captured(root: &Path, s: &HostServer, file: &Path) -> Result<LockedServer, String> {
    let bytes = std::fs::read(file)
        .map_err(|e| format!("{}: cannot read the tools/list file: {e}", file.display()))?;
    let value: toolgate_schema::json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| format!("{}: is not a tools/list result (JSON): {e}", file.display()))?;
    let tools = value
        .as_object()
        .and_then(|o| {
            o.get("tools")
                .or_else(|| o.get("result")?.as_object()?.get("tools"))
        })
        .and_then(toolgate_schema::json::Value::as_array)
        .ok_or_else(|| {
            format!(
                "{}: is not a tools/list result: no `tools` array",
                file.display()
            )
        })?;
    let shown = file
        .strip_prefix(root)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/");
    Ok(LockedServer {
        declared: s.declared.clone(),
        reached: Reached::Captured { tools_list: shown },
        server_name: None,
        server_version: None,
        protocol_version: None,
        tools: tools.to_vec(),
    })
}

fn locked(declared: Vec<lock::Declared>, reached: Reached, c: Capture) -> LockedServer {
    LockedServer {
        declared,
        reached,
        server_name: c.server_name,
        server_version: c.server_version,
        protocol_version: c.protocol_version,
        tools: c.tools,
    }
}

/// The error with every secret value masked.
fn redact(e: &client::ClientError, secrets: &[String]) -> String {
    let mut message = e.message.clone();
    let lines: Vec<&str> = e.stderr.trim_end().lines().collect();
    let tail = &lines[lines.len().saturating_sub(20)..];
    if !tail.is_empty() {
        message.push_str("\n  the server's stderr ended with:");
        for l in tail {
            message.push_str("\n  | ");
            message.push_str(l);
        }
    }
    for s in secrets.iter().filter(|s| s.len() >= 3) {
        message = message.replace(s.as_str(), "***");
    }
    message
}

/// Expands one server's values, keeping every unset variable (each an error naming the
/// variable, the file and the key) and every value that may be a secret.
struct Expander<'a> {
    server: &'a HostServer,
    cx: Context<'a>,
    errors: Vec<String>,
    secrets: Vec<String>,
}

impl Expander<'_> {
    fn expand(&mut self, text: &str, what: &str) -> String {
        let place = &self.server.declared[0];
        match vars::expand(text, self.server.launch.syntax, &self.cx) {
            Ok(e) => {
                if e.secret {
                    self.secrets.push(e.value.clone());
                }
                e.value
            }
            Err(u) => {
                self.errors.push(format!(
                    "{}: {}.{what}: the variable `{}` is not set and has no default; set it, or give --env {}=VALUE",
                    place.file,
                    place.key,
                    u.variable,
                    u.variable.trim_start_matches("env:").trim_start_matches("input:")
                ));
                String::new()
            }
        }
    }

    fn finish(self, id: &str, target: Target, reached: Reached) -> Result<Prepared, String> {
        if !self.errors.is_empty() {
            return Err(self.errors.join("\nerror: "));
        }
        Ok(Prepared {
            id: id.to_string(),
            target,
            reached,
            secrets: self.secrets,
        })
    }
}

/// Expands a server's launch; an unset variable names the variable, the file and the key.
fn prepare(
    s: &HostServer,
    root: &Path,
    given: &BTreeMap<String, String>,
) -> Result<Prepared, String> {
    let env = |k: &str| std::env::var(k).ok();
    let mut x = Expander {
        server: s,
        cx: Context {
            env: &env,
            given,
            root,
            plugin_root: s.plugin_root.as_deref(),
        },
        errors: Vec::new(),
        secrets: Vec::new(),
    };
    let kind = match s.launch.transport {
        Transport::Stdio => return prepare_stdio(s, root, x),
        Transport::Http => HttpKind::Streamable,
        Transport::Sse => HttpKind::Sse,
    };
    let written = s.launch.url.clone().unwrap_or_default();
    let url = x.expand(&written, "url");
    let headers = s
        .launch
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), x.expand(v, &format!("headers.{k}"))))
        .collect();
    let names = s.launch.headers.iter().map(|(k, _)| k.clone()).collect();
    let reached = Reached::Http {
        transport: match kind {
            HttpKind::Streamable => "http",
            HttpKind::Sse => "sse",
        }
        .into(),
        url: written,
        headers: names,
    };
    let server = HttpServer { url, kind, headers };
    x.finish(&s.id, Target::Http(server), reached)
}

fn prepare_stdio(s: &HostServer, root: &Path, mut x: Expander<'_>) -> Result<Prepared, String> {
    let written = s.launch.command.clone().unwrap_or_default();
    let program = x.expand(&written, "command");
    let args = s
        .launch
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| x.expand(a, &format!("args[{i}]")))
        .collect();
    let mut env_vars = Vec::new();
    let mut names = Vec::new();
    if let Some(file) = &s.launch.env_file {
        let path = root.join(x.expand(file, "envFile"));
        let place = &s.declared[0];
        match read_env_file(&path) {
            Ok(vars) => {
                for (k, v) in vars {
                    x.secrets.push(v.clone());
                    names.push(k.clone());
                    env_vars.push((k, v));
                }
            }
            Err(e) => x
                .errors
                .push(format!("{}: {}.envFile: {e}", place.file, place.key)),
        }
    }
    for (k, v) in &s.launch.env {
        env_vars.push((k.clone(), x.expand(v, &format!("env.{k}"))));
        names.push(k.clone());
    }
    let cwd = match &s.launch.cwd {
        Some(c) => root.join(x.expand(c, "cwd")),
        None => s.plugin_root.clone().unwrap_or_else(|| root.to_path_buf()),
    };
    names.sort();
    names.dedup();
    let reached = Reached::Stdio {
        command: written,
        args: s.launch.args.clone(),
        env: names,
    };
    let command = ServerCommand {
        program,
        args,
        env: env_vars,
    };
    x.finish(&s.id, Target::Stdio(command, Some(cwd)), reached)
}

/// `NAME=VALUE` lines (`#` comments, `export ` and quotes accepted), as VS Code's `envFile`.
fn read_env_file(path: &Path) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        if let Some((k, v)) = line.split_once('=') {
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(v);
            out.push((k.trim().to_string(), v.to_string()));
        }
    }
    Ok(out)
}

/// Why a launch floats, if it does: `npx pkg@latest` or `npx pkg` without a version, `uvx pkg`
/// without `==` or `@`.
fn floating(s: &HostServer) -> Option<String> {
    let command = s.launch.command.as_deref()?;
    let program = Path::new(command).file_name()?.to_str()?;
    let package = s.launch.args.iter().find(|a| !a.starts_with('-'))?;
    let versioned = match program {
        "npx" | "bunx" | "pnpx" => {
            let name = package.strip_prefix('@').map_or(package.as_str(), |p| p);
            name.split_once('@')
                .is_some_and(|(_, v)| !v.is_empty() && v != "latest" && v != "next")
        }
        "uvx" | "pipx" => {
            package.contains("==")
                || package
                    .split_once('@')
                    .is_some_and(|(_, v)| !v.is_empty() && v != "latest")
        }
        _ => return None,
    };
    (!versioned).then(|| format!("`{program} {package}` runs whatever version is newest"))
}

/// Runs every capture at once, each on its own thread.
fn capture_all<'p>(
    prepared: &'p [Prepared],
    timeout: Duration,
    ca_cert: Option<&[u8]>,
) -> Vec<(&'p Prepared, Result<Capture, client::ClientError>)> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = prepared
            .iter()
            .map(|p| {
                (
                    p,
                    scope.spawn(move || match &p.target {
                        Target::Stdio(command, cwd) => {
                            client::capture(command, cwd.as_deref(), timeout)
                        }
                        Target::Http(server) => {
                            toolgate_serve::client_http::capture_http(server, ca_cert, timeout)
                        }
                    }),
                )
            })
            .collect();
        handles
            .into_iter()
            .map(|(p, h)| {
                // A last defence: a panic in capture is a bug, reported as this server's error.
                let r = h.join().unwrap_or_else(|_| {
                    Err(client::ClientError::new(
                        "the capture thread panicked (a bug in toolgate: please report it)",
                    ))
                });
                (p, r)
            })
            .collect()
    })
}

/// The project root as the lint should walk it: `.` when it is the current folder, so that
/// the report names files as `toolgate lint` does.
fn shown_root(root: &Path) -> PathBuf {
    match std::env::current_dir() {
        Ok(cwd) if toolgate_lint::config::absolute(&cwd) == root => PathBuf::from("."),
        _ => root.to_path_buf(),
    }
}

/// Writes (or, with --check, compares) and reports.
fn finish(
    args: &LockArgs,
    root: &Path,
    discovery: &Discovery,
    old: Option<&Lock>,
    new: &Lock,
    failed: bool,
) -> u8 {
    let prefixes = |id: &str| {
        discovery
            .server(id)
            .map(HostServer::prefixes)
            .unwrap_or_default()
    };
    let report = match old {
        Some(old) => match lock_report::compare(old, new, &shown_root(root), &prefixes) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_ERROR;
            }
        },
        None => Report::default(),
    };
    if !args.check {
        let path = root.join(lock::FILE_NAME);
        if let Err(e) = std::fs::write(&path, lock::write(new)) {
            eprintln!("error: {}: cannot write: {e}", path.display());
            return EXIT_ERROR;
        }
        eprintln!(
            "wrote {} ({} server{})",
            lock::FILE_NAME,
            new.servers.len(),
            if new.servers.len() == 1 { "" } else { "s" }
        );
    }
    let text = match args.format {
        ReportFormat::Human => lock_report::to_human(&report),
        ReportFormat::Json => lock_report::to_json(&report),
        ReportFormat::Markdown => lock_report::to_markdown(&report),
    };
    if print_stdout(&text) != EXIT_OK {
        return EXIT_ERROR;
    }
    if args.check && report.is_empty() {
        eprintln!("{}: every server is as locked", lock::FILE_NAME);
    }
    if failed || (args.check && !report.is_empty()) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}
