//! `toolgate serve --upstream 'CMD ARGS' | --upstream-url URL`: the catalog's profiles in
//! front of an existing MCP server, through `toolgate_serve::gate`.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use toolgate_schema::runtime::Source;
use toolgate_schema::{Catalog, Session, SourceFile};
use toolgate_serve::client::ServerCommand;
use toolgate_serve::gate::{self, Audit, GateCatalog, GateOptions, Upstream};

use super::{EXIT_ERROR, ServeArgs, finish};
use crate::cli::CatalogArg;

/// `toolgate serve --upstream ...`
pub(super) fn serve(args: &ServeArgs) -> u8 {
    match run(args) {
        Ok(code) => code,
        Err(message) => {
            // Empty: the reason is already printed (an unreadable --tokens file).
            if !message.is_empty() {
                eprintln!("{message}");
            }
            EXIT_ERROR
        }
    }
}

fn run(args: &ServeArgs) -> Result<u8, String> {
    let (catalog, sources) = open(&args.catalog)?;
    let gate_catalog = GateCatalog::new(&catalog, &sources).map_err(|errors| {
        let mut m: Vec<String> = errors.iter().map(|e| format!("error: {e}")).collect();
        m.push(format!(
            "error: cannot gate with `{}`: it is not a gate catalog",
            args.catalog
        ));
        m.join("\n")
    })?;
    let options = Arc::new(options(args)?);
    let surface = gate_catalog.surface();
    // Who is served: one selector value, or one per grant of the tokens.
    let grants = grants(args, surface)?;
    let sessions: Vec<Session> = grants
        .iter()
        .map(|(value, source)| surface.resolve_from(value, source.as_source()))
        .collect();
    let found = gate::preflight(&gate_catalog, &sessions, &options).map_err(|e| {
        format!(
            "error: the upstream server {}: {e}",
            options.upstream.label()
        )
    })?;
    let hidden: HashSet<String> = found.drift.iter().map(|d| d.tool.clone()).collect();
    for d in &found.drift {
        let level = if args.allow_drift { "warning" } else { "error" };
        eprintln!("{level}: drift: {d}");
    }
    if !found.drift.is_empty() {
        if !args.allow_drift {
            return Err(format!(
                "error: the upstream server {} drifted from catalog `{}` ({} tool{}); nothing is served (--allow-drift serves the others)",
                options.upstream.label(),
                surface.catalog,
                found.drift.len(),
                if found.drift.len() == 1 { "" } else { "s" }
            ));
        }
        eprintln!("warning: the drifted tools are not listed and their calls are refused");
    }
    if !found.unknown.is_empty() {
        eprintln!(
            "toolgate: the upstream's tools the catalog does not know are not exposed: {}",
            found.unknown.join(", ")
        );
    }
    let label = options.upstream.label();
    let mut servers = Vec::new();
    for (value, source) in &grants {
        let session = gate::session(
            &gate_catalog,
            value,
            source.as_source(),
            &hidden,
            &options,
            &found.capabilities,
        )
        .map_err(|e| format!("error: {e}"))?;
        if let Some(w) = &session.warning {
            if matches!(source, Given::Tokens) {
                return Err(format!("error: a token maps to `{value}`: {w}"));
            }
            eprintln!("warning: {w}");
        }
        servers.push((value.clone(), session));
    }
    serve_sessions(args, &surface.catalog, &label, servers)
}

#[cfg(feature = "http")]
fn serve_sessions(
    args: &ServeArgs,
    catalog: &str,
    label: &str,
    servers: Vec<(String, gate::GateSession)>,
) -> Result<u8, String> {
    if let Some(addr) = args.http {
        for (_, s) in &servers {
            eprintln!("toolgate: {}", s.summary_on(catalog, label, "HTTP"));
        }
        let options = super::http::options(args);
        return Ok(match &args.tokens {
            Some(path) => {
                let tokens = super::http::read_tokens(path).ok_or(String::new())?;
                let servers = servers.into_iter().map(|(g, s)| (g, s.server)).collect();
                finish(toolgate_serve::http::serve_http_with_tokens(
                    addr, tokens, servers, options,
                ))
            }
            None => {
                let Some((_, s)) = servers.into_iter().next() else {
                    return Err("error: no session to serve".into());
                };
                finish(toolgate_serve::http::serve_http(addr, s.server, options))
            }
        });
    }
    serve_stdio(catalog, label, servers)
}

#[cfg(not(feature = "http"))]
fn serve_sessions(
    _args: &ServeArgs,
    catalog: &str,
    label: &str,
    servers: Vec<(String, gate::GateSession)>,
) -> Result<u8, String> {
    serve_stdio(catalog, label, servers)
}

fn serve_stdio(
    catalog: &str,
    label: &str,
    servers: Vec<(String, gate::GateSession)>,
) -> Result<u8, String> {
    let Some((_, s)) = servers.into_iter().next() else {
        return Err("error: no session to serve".into());
    };
    let summary = s.summary_on(catalog, label, "stdio");
    Ok(finish(toolgate_serve::serve_stdio_announcing(
        s.server,
        || {
            eprintln!("toolgate: {summary}");
        },
    )))
}

/// Where a selector value came from.
enum Given {
    Profile,
    Env(String),
    Tokens,
}

impl Given {
    fn as_source(&self) -> Source<'_> {
        match self {
            Given::Profile => Source::Given("--profile"),
            Given::Env(v) => Source::Env(v),
            Given::Tokens => Source::Given("--tokens"),
        }
    }
}

/// The selector values to serve: `--profile`, the selector's variable, or each grant of
/// `--tokens`.
fn grants(
    args: &ServeArgs,
    surface: &toolgate_schema::Surface,
) -> Result<Vec<(String, Given)>, String> {
    #[cfg(feature = "http")]
    if let Some(path) = &args.tokens {
        let tokens = super::http::read_tokens(path).ok_or(String::new())?;
        return Ok(tokens
            .grants()
            .into_iter()
            .map(|g| (g.to_string(), Given::Tokens))
            .collect());
    }
    Ok(vec![match &args.profile {
        Some(p) => (p.clone(), Given::Profile),
        None => match surface.selector.as_ref().map(|s| s.env.clone()) {
            Some(var) => (std::env::var(&var).unwrap_or_default(), Given::Env(var)),
            None => (String::new(), Given::Profile),
        },
    }])
}

fn options(args: &ServeArgs) -> Result<GateOptions, String> {
    let upstream = match (&args.upstream, &args.upstream_url) {
        (Some(command), None) => {
            let words = shlex::split(command).ok_or_else(|| {
                format!("error: --upstream {command:?}: an unclosed quote or a trailing backslash")
            })?;
            let Some((program, rest)) = words.split_first() else {
                return Err(
                    "error: --upstream is empty; give the command that starts the server".into(),
                );
            };
            Upstream::Command(ServerCommand {
                program: program.clone(),
                args: rest.to_vec(),
                env: Vec::new(),
            })
        }
        (None, Some(url)) => {
            if !url.starts_with("http://") {
                return Err(format!(
                    "error: --upstream-url {url}: give an http:// URL (this build has no TLS client; reach an https server through a local proxy)"
                ));
            }
            let mut headers = Vec::new();
            for h in &args.upstream_header {
                let Some((name, value)) = h.split_once(':') else {
                    return Err(format!(
                        "error: --upstream-header {h:?}: give 'Name: value'"
                    ));
                };
                headers.push((name.trim().to_string(), value.trim().to_string()));
            }
            Upstream::Url {
                url: url.clone(),
                headers,
            }
        }
        _ => return Err("error: give --upstream or --upstream-url".into()),
    };
    let audit = match &args.audit {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("error: --audit {}: {e}", path.display()))?;
            Some(Audit::new(Box::new(file), args.audit_args))
        }
        None => None,
    };
    if args.upstream_timeout == 0 {
        return Err("error: --upstream-timeout must be at least 1 second".into());
    }
    let host = args.stack().map_err(|_| String::new())?;
    let accept_drift =
        toolgate_schema::diff_risk::Risk::parse(&args.accept_drift).ok_or_else(|| {
            format!(
                "error: --accept-drift: `{}` is not none or review",
                args.accept_drift
            )
        })?;
    Ok(GateOptions {
        upstream,
        timeout: Duration::from_secs(args.upstream_timeout),
        audit,
        host,
        accept_drift,
    })
}

/// The catalog and its files (the tool files as written: what the gate pins).
fn open(arg: &str) -> Result<(Catalog, Vec<SourceFile>), String> {
    let catalog_arg = CatalogArg::parse(arg);
    let catalog = catalog_arg.load().map_err(|errors| {
        format!("{errors}\nerror: cannot serve `{arg}`: the catalog has errors")
    })?;
    let sources = match &catalog_arg {
        CatalogArg::Bundled(name) => toolgate_generated::BUNDLED
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, files)| {
                files
                    .iter()
                    .map(|(rel, bytes)| SourceFile {
                        rel: rel.to_string(),
                        bytes: bytes.to_vec(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        CatalogArg::Dir(dir) => {
            let dir = if dir.is_file() {
                dir.parent().map(|p| p.to_path_buf()).unwrap_or_default()
            } else {
                dir.clone()
            };
            let mut files = Vec::new();
            for rel in &catalog.sources {
                let bytes = std::fs::read(dir.join(rel))
                    .map_err(|e| format!("error: {}: {e}", dir.join(rel).display()))?;
                files.push(SourceFile {
                    rel: rel.clone(),
                    bytes,
                });
            }
            files
        }
    };
    Ok((catalog, sources))
}
