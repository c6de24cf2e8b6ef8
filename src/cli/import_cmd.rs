//! `toolgate import`: write a catalog from captured `tools/list` results, or from a running
//! server listed once per profile (the logic is `toolgate_schema::import`; the MCP client is
//! `toolgate_serve::client`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;
use toolgate_schema::diff::{diff, to_human};
use toolgate_schema::import::{Capture, Existing, Options, Plan, plan};
use toolgate_schema::load::MATRIX_FILE;
use toolgate_schema::{Errors, Surface, load_dir, load_sources};

use super::{EXIT_ERROR, EXIT_OK, print_stdout};

/// What `toolgate import --help` says before the options (the subcommand's doc comment is
/// its one-line `about`).
pub const LONG_ABOUT: &str = "Write a catalog folder from what a server serves each profile.\n\n\
From captured lists: give each profile's tools/list result as --profile NAME=FILE. A FILE is \
a tools/list result ({\"tools\": [...]}), a JSON-RPC response holding one, or a bare array of \
tools. From a running server: --server 'CMD ARGS' is started over stdio once per --profile \
NAME with --profile-env VAR=NAME in its environment; every tools/list page is read. From a \
live HTTP server: --url URL (Streamable HTTP; with --sse, the legacy HTTP+SSE transport), its \
--header NAME=VALUE sent with every request, listed once as one profile (--profile NAME, \
default `all`); `toolgate lock` reaches servers with the same client.\n\n\
Each tool file holds the tool object exactly as the server sent it (same keys, same order, \
schemas untouched) plus its `group`. A tool whose object differs between profiles gets one \
file per variant. The matrix groups the tools that share a set of profiles (one grant row \
each); a tool every profile sees is granted [\"*\"]; always_on is exactly what the fail-closed \
session was served (what an unknown profile gets; empty without --fail-closed).\n\n\
Over an existing catalog, the change is printed as `toolgate diff OLD NEW` prints it, and \
what import does not own is kept: `formerly` in tool files, `restrictions`, descriptions, \
the selector's variable. A re-import that would lose one of them (its tool is gone) is \
refused with the reason. Nothing is written when any input or run fails.";

/// Arguments of `toolgate import`.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  toolgate import --out schema/fetch --profile all=fetch.tools.json\n  toolgate import --out schema/github --combine --profile-env GITHUB_TOOLSETS \\\n      --profile repos=repos.json --profile issues=issues.json\n  toolgate import --out schema/tatara --server 'toolgate serve --catalog tatara' \\\n      --profile-env TATARA_TOOL_PROFILE --fail-closed \\\n      --profile brainstorm --profile implement --profile review\n  toolgate import --out schema/docs --url https://mcp.example.com/mcp \\\n      --header \"Authorization=Bearer $DOCS_TOKEN\"\n  toolgate check --catalog schema/tatara\n\nExit codes: 0 the catalog was written, 2 nothing was written (bad usage, an unreadable or invalid capture, a server run that failed, a re-import refused)."
)]
pub struct ImportArgs {
    /// The catalog folder to write (created if missing; a catalog there is re-imported).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The catalog's name. Default: the last component of --out.
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Profiles combine: a session may name several, separated by commas, and sees their
    /// union (selector.combine). A tool must then be the same in every profile.
    #[arg(long)]
    combine: bool,
    /// What an unknown profile is served: a captured FILE; with --server, no FILE (the
    /// server is run once more with an unknown profile). Its tools become always_on.
    #[arg(long, value_name = "FILE", num_args = 0..=1)]
    fail_closed: Option<Option<PathBuf>>,
    /// A profile: NAME=FILE from captured lists, NAME alone with --server. Repeat it; the
    /// matrix lists the profiles in this order.
    #[arg(
        long = "profile",
        value_name = "NAME=FILE|NAME",
        required_unless_present_any = ["lock", "url"]
    )]
    profiles: Vec<String>,
    /// Run this server over stdio, once per profile: a command line split like shell words
    /// and run without a shell. With --lock: the name of a server in the lock.
    #[arg(long, value_name = "'CMD ARGS'|NAME", conflicts_with = "url")]
    server: Option<String>,
    /// List the tools of a live server over HTTP (Streamable HTTP; --sse for the legacy
    /// HTTP+SSE transport), once, as one profile.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// With --url: a header sent with every request (repeat it). Its value is never printed.
    #[arg(long = "header", value_name = "NAME=VALUE", requires = "url", value_parser = parse_header)]
    headers: Vec<(String, String)>,
    /// With --url: the URL is a legacy HTTP+SSE event stream (protocol 2024-11-05).
    #[arg(long, requires = "url")]
    sse: bool,
    /// With --url: a PEM certificate trusted for https, beside the system's roots.
    #[arg(long, value_name = "FILE", requires = "url")]
    ca_cert: Option<PathBuf>,
    /// Import a server of this toolgate.lock (`--server NAME`): its locked tools, served to
    /// each --profile NAME (default: one profile, `all`).
    #[arg(long, value_name = "FILE", requires = "server")]
    lock: Option<PathBuf>,
    /// The environment variable that selects the server's profile (selector.env). Required
    /// with --server. Default without it: the existing catalog's, else <NAME>_TOOL_PROFILE.
    #[arg(long, value_name = "VAR")]
    profile_env: Option<String>,
    /// With --server or --url: the most seconds one run (start, initialize, every
    /// tools/list page) may take.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    timeout: u64,
}

/// `toolgate import`
pub fn run(args: &ImportArgs) -> u8 {
    let before_writing = match import(args) {
        Ok(()) => return EXIT_OK,
        Err(Failed::BeforeWriting(message)) => {
            if !message.is_empty() {
                eprintln!("{message}");
            }
            true
        }
        Err(Failed::Writing(message)) => {
            eprintln!("{message}");
            false
        }
    };
    if before_writing {
        eprintln!("error: nothing was written to {}", args.out.display());
    } else {
        eprintln!(
            "error: writing stopped: the catalog in {} may be partly written; run the import again",
            args.out.display()
        );
    }
    EXIT_ERROR
}

/// Why an import stopped.
enum Failed {
    /// Before any file was written (bad usage, input, run, or a refused re-import).
    BeforeWriting(String),
    /// While writing files.
    Writing(String),
}

impl From<String> for Failed {
    fn from(message: String) -> Failed {
        Failed::BeforeWriting(message)
    }
}

fn import(args: &ImportArgs) -> Result<(), Failed> {
    let name = match &args.name {
        Some(n) => n.clone(),
        None => catalog_name(&args.out)?,
    };
    let captures = match (&args.lock, &args.server, &args.url) {
        (Some(lock), Some(server), _) => from_lock(args, lock, server)?,
        (None, Some(server), _) => from_server(args, server)?,
        (_, _, Some(url)) => from_url(args, url)?,
        _ => from_files(args)?,
    };
    let existing = read_existing(&args.out)?;
    let options = Options {
        name,
        selector_env: args.profile_env.clone(),
        combine: args.combine,
    };
    let plan = plan(&options, &captures, existing.as_ref()).map_err(|e| errors(&e))?;
    if let Some(existing) = &existing
        && existing.files.contains_key(MATRIX_FILE)
    {
        print_changes(&args.out, &plan)?;
    }
    write(&args.out, &plan).map_err(Failed::Writing)?;
    let tools = plan
        .files
        .keys()
        .filter(|f| f.starts_with("tools/"))
        .count();
    eprintln!(
        "wrote {}: {tools} tool file{}, {} profile{}, {} grant row{}",
        args.out.display(),
        plural(tools),
        args.profiles.len().max(1),
        plural(args.profiles.len().max(1)),
        plan.grant_rows,
        plural(plan.grant_rows),
    );
    if let Err(e) = load_dir(&args.out) {
        eprintln!(
            "warning: `toolgate check --catalog {}` does not accept the catalog yet ({} error{}); the tools are written as the server sent them",
            args.out.display(),
            e.0.len(),
            plural(e.0.len())
        );
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn errors(e: &Errors) -> String {
    let n = e.0.len();
    format!("{e}\n{n} error{} in the import", plural(n))
}

/// The last component of `--out`, as the catalog's name.
fn catalog_name(out: &Path) -> Result<String, String> {
    let absolute;
    let path = if out.file_name().is_none() {
        // `.` or `..`: name it after the folder it is.
        absolute = std::path::absolute(out).map_err(|e| format!("error: --out: {e}"))?;
        absolute
            .components()
            .next_back()
            .map(|c| PathBuf::from(c.as_os_str()))
            .unwrap_or_default()
    } else {
        out.to_path_buf()
    };
    match path.file_name().and_then(|n| n.to_str()) {
        Some(n) => Ok(n.to_string()),
        None => Err(format!(
            "error: cannot name the catalog after --out {}; give --name",
            out.display()
        )),
    }
}

/// The locked tools of `server`, as each profile's capture.
fn from_lock(args: &ImportArgs, lock: &Path, server: &str) -> Result<Vec<Capture>, String> {
    let locked = toolgate_lint::lock::read(lock).map_err(|e| format!("error: {e}"))?;
    let Some(s) = locked.servers.get(server) else {
        let names: Vec<&str> = locked.servers.keys().map(String::as_str).collect();
        return Err(format!(
            "error: {}: no server `{server}` (it locks: {})",
            lock.display(),
            names.join(", ")
        ));
    };
    if args.fail_closed.is_some() {
        return Err(
            "error: --fail-closed does not go with --lock: a lock holds one surface".into(),
        );
    }
    let bytes = s.tools_list_bytes();
    let profiles = if args.profiles.is_empty() {
        vec!["all".to_string()]
    } else {
        args.profiles.clone()
    };
    profiles
        .iter()
        .map(|p| {
            if p.contains('=') {
                return Err(format!(
                    "error: --profile {p}: with --lock, give the profile's NAME alone"
                ));
            }
            Capture::from_file(Some(p.as_str()), lock, &bytes).map_err(|e| errors(&e))
        })
        .collect()
}

fn from_files(args: &ImportArgs) -> Result<Vec<Capture>, String> {
    let mut inputs: Vec<(Option<String>, PathBuf)> = Vec::new();
    match &args.fail_closed {
        Some(Some(file)) => inputs.push((None, file.clone())),
        Some(None) => {
            return Err("error: --fail-closed takes the FILE an unknown profile was served (without --server)".into());
        }
        None => {}
    }
    for p in &args.profiles {
        let Some((name, file)) = p.split_once('=') else {
            return Err(format!(
                "error: --profile {p}: give NAME=FILE (a captured tools/list), or run a server with --server"
            ));
        };
        inputs.push((Some(name.to_string()), PathBuf::from(file)));
    }
    let mut captures = Vec::new();
    let mut all = Vec::new();
    for (profile, file) in inputs {
        let result = match std::fs::read(&file) {
            Ok(bytes) => Capture::from_file(profile.as_deref(), &file, &bytes),
            Err(e) => Err(Errors(vec![toolgate_schema::Diagnostic {
                path: file.clone(),
                position: None,
                pointer: None,
                message: format!("cannot read the capture: {e}"),
            }])),
        };
        match result {
            Ok(c) => captures.push(c),
            Err(Errors(mut e)) => all.append(&mut e),
        }
    }
    if !all.is_empty() {
        return Err(errors(&Errors(all)));
    }
    Ok(captures)
}

#[cfg(feature = "serve")]
fn from_server(args: &ImportArgs, server: &str) -> Result<Vec<Capture>, String> {
    use std::time::Duration;
    use toolgate_serve::client::{ServerCommand, list_tools};
    /// The selector value of the fail-closed run: a profile no server knows.
    const UNKNOWN_PROFILE: &str = "toolgate-import-unknown-profile";
    let Some(var) = &args.profile_env else {
        return Err("error: --server needs --profile-env VAR: the variable that selects the server's profile".into());
    };
    let words = shlex::split(server).ok_or_else(|| {
        format!("error: --server {server:?}: an unclosed quote or a trailing backslash")
    })?;
    let Some((program, rest)) = words.split_first() else {
        return Err("error: --server is empty; give the command that starts the server".into());
    };
    let mut runs: Vec<Option<String>> = Vec::new();
    match &args.fail_closed {
        Some(Some(_)) => {
            return Err("error: with --server, --fail-closed takes no FILE: the server is run once more with an unknown profile".into());
        }
        Some(None) => runs.push(None),
        None => {}
    }
    for p in &args.profiles {
        if p.contains('=') {
            return Err(format!(
                "error: --profile {p}: with --server, give the profile's NAME alone"
            ));
        }
        runs.push(Some(p.clone()));
    }
    let mut unknown = UNKNOWN_PROFILE.to_string();
    while args.profiles.contains(&unknown) {
        unknown.push('_');
    }
    let mut captures = Vec::new();
    for profile in runs {
        let value = profile.clone().unwrap_or_else(|| unknown.clone());
        // The label names the run in messages; the origin describes the profile.
        let label = format!("`{server}` with {var}={value}");
        let command = ServerCommand {
            program: program.clone(),
            args: rest.to_vec(),
            env: vec![(var.clone(), value)],
        };
        let tools = list_tools(&command, Duration::from_secs(args.timeout))
            .map_err(|e| format!("error: {label}: {e}"))?;
        eprintln!(
            "listed {} tool{} from {label}",
            tools.len(),
            plural(tools.len())
        );
        let origin = format!(
            "the server run with {var}={}",
            profile.as_deref().unwrap_or("(unknown)")
        );
        captures.push(Capture::from_tools(profile.as_deref(), &label, tools).with_origin(origin));
    }
    Ok(captures)
}

fn parse_header(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.to_string())),
        _ => Err("expected NAME=VALUE".into()),
    }
}

/// The tools of the server at `url`, as the one profile of `--profile NAME` (`all` without).
#[cfg(feature = "serve")]
fn from_url(args: &ImportArgs, url: &str) -> Result<Vec<Capture>, String> {
    use toolgate_serve::client_http::{HttpKind, HttpServer, capture_http, shown_url};
    let profile = match args.profiles.as_slice() {
        [] => "all".to_string(),
        [p] if !p.contains('=') => p.clone(),
        _ => {
            return Err("error: with --url, give one --profile NAME (or none, for `all`): a URL serves one surface; import each profile's captured tools/list with --profile NAME=FILE".into());
        }
    };
    if args.fail_closed.is_some() {
        return Err("error: --fail-closed does not go with --url: a URL serves one surface".into());
    }
    let ca = match &args.ca_cert {
        Some(path) => Some(
            std::fs::read(path)
                .map_err(|e| format!("error: --ca-cert {}: cannot read: {e}", path.display()))?,
        ),
        None => None,
    };
    let server = HttpServer {
        url: url.to_string(),
        kind: if args.sse {
            HttpKind::Sse
        } else {
            HttpKind::Streamable
        },
        headers: args.headers.clone(),
    };
    let timeout = std::time::Duration::from_secs(args.timeout);
    // A key in the URL (`?api_key=`) is a secret too: neither shown nor written.
    let shown = shown_url(url);
    let capture = capture_http(&server, ca.as_deref(), timeout).map_err(|e| {
        // The values of --header are secrets: masked wherever a message might repeat them.
        let mut message = format!("error: {shown}: {}", e.message.replace(url, &shown));
        for (_, v) in args.headers.iter().filter(|(_, v)| v.len() >= 3) {
            message = message.replace(v.as_str(), "***");
        }
        if e.refused {
            message.push_str("\n  a server behind OAuth cannot be listed unattended: save its tools/list result from a client that signs in, and import that with --profile NAME=FILE");
        }
        message
    })?;
    let tools = capture.tools;
    eprintln!(
        "listed {} tool{} from {shown}",
        tools.len(),
        plural(tools.len())
    );
    let origin = format!("the server at {shown}");
    Ok(vec![
        Capture::from_tools(Some(profile.as_str()), &shown, tools).with_origin(origin),
    ])
}

#[cfg(not(feature = "serve"))]
fn from_url(_: &ImportArgs, _: &str) -> Result<Vec<Capture>, String> {
    Err(
        "error: --url needs an MCP client, and this toolgate was built without the `serve` feature"
            .into(),
    )
}

#[cfg(not(feature = "serve"))]
fn from_server(_: &ImportArgs, _: &str) -> Result<Vec<Capture>, String> {
    Err("error: --server needs an MCP client, and this toolgate was built without the `serve` feature".into())
}

/// The catalog already in `out`, as raw files; `None` when the folder does not exist or is
/// empty. A folder that holds something else is refused.
fn read_existing(out: &Path) -> Result<Option<Existing>, String> {
    let entries = match std::fs::read_dir(out) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if out.is_file() => {
            return Err(format!(
                "error: --out {}: is a file, not a folder ({e})",
                out.display()
            ));
        }
        Err(e) => {
            return Err(format!(
                "error: --out {}: cannot read it: {e}",
                out.display()
            ));
        }
    };
    let names: Vec<String> = entries
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    if names.is_empty() {
        return Ok(None);
    }
    if !names.iter().any(|n| n == MATRIX_FILE) {
        return Err(format!(
            "error: --out {} is not empty and holds no catalog (no {MATRIX_FILE}); import into a new or empty folder, or into a catalog to re-import it",
            out.display()
        ));
    }
    let mut files = BTreeMap::new();
    let read = |rel: &str| {
        std::fs::read(out.join(rel)).map_err(|e| format!("error: {}: {e}", out.join(rel).display()))
    };
    files.insert(MATRIX_FILE.to_string(), read(MATRIX_FILE)?);
    if let Ok(tools) = std::fs::read_dir(out.join("tools")) {
        for entry in tools.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".json") && !name.starts_with('.') && entry.path().is_file() {
                let rel = format!("tools/{name}");
                files.insert(rel.clone(), read(&rel)?);
            }
        }
    }
    Ok(Some(Existing {
        dir: out.to_path_buf(),
        files,
    }))
}

/// Prints the change from the catalog in `out` to the plan, as `toolgate diff` does.
fn print_changes(out: &Path, plan: &Plan) -> Result<(), String> {
    let old = match load_dir(out) {
        Ok(c) => Surface::from_catalog(&c),
        Err(e) => {
            eprintln!(
                "warning: the catalog in {} does not load ({} error{}), so the change cannot be shown",
                out.display(),
                e.0.len(),
                plural(e.0.len())
            );
            return Ok(());
        }
    };
    let new = match load_sources(out, plan.sources()) {
        Ok(c) => Surface::from_catalog(&c),
        Err(e) => {
            eprintln!(
                "warning: the imported catalog does not load yet ({} error{}), so the change cannot be shown",
                e.0.len(),
                plural(e.0.len())
            );
            return Ok(());
        }
    };
    match print_stdout(&to_human(&diff(&old, &new))) {
        EXIT_OK => Ok(()),
        _ => Err(String::new()),
    }
}

/// Writes every file of the plan (each through a temporary file, renamed into place) and
/// removes the tool files it no longer has.
fn write(out: &Path, plan: &Plan) -> Result<(), String> {
    let fail = |path: &Path, e: std::io::Error| format!("error: {}: {e}", path.display());
    let tools = out.join("tools");
    std::fs::create_dir_all(&tools).map_err(|e| fail(&tools, e))?;
    for (rel, bytes) in &plan.files {
        let path = out.join(rel);
        if std::fs::read(&path).is_ok_and(|old| &old == bytes) {
            continue;
        }
        let tmp = out.join(format!("{rel}.toolgate-import.tmp"));
        std::fs::write(&tmp, bytes).map_err(|e| fail(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| fail(&path, e))?;
    }
    for rel in &plan.remove {
        let path = out.join(rel);
        std::fs::remove_file(&path).map_err(|e| fail(&path, e))?;
    }
    Ok(())
}
