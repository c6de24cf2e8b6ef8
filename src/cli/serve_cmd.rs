//! `toolgate serve`: an MCP server of a profile's tools, on stdio or (feature `http`)
//! Streamable HTTP, gating an upstream server (`gate`) or over the echo backend
//! (`toolgate_serve::echo`).

use clap::Args;
use toolgate_schema::Surface;
use toolgate_schema::runtime::Source;
use toolgate_schema::stacks::Stack;
use toolgate_serve::echo::{self, EchoSession};
use toolgate_serve::{LogLevel, ServeError};

use super::{CatalogArg, EXIT_ERROR, EXIT_OK};

/// Arguments of `toolgate serve`.
#[derive(Args, Debug)]
#[command(
    long_about = "Serve a profile's tools as an MCP server on standard input and output, or over MCP Streamable HTTP at /mcp with --http. tools/list is the profile's, and every tools/call is checked against the catalog before anything answers it.\n\nWith --upstream 'CMD ARGS' (an MCP server over stdio, one started per session) or --upstream-url URL (Streamable HTTP), toolgate is a gate in front of an existing server: arguments are checked before they are forwarded, the upstream's results are passed back unchanged, and an upstream whose definitions drifted from the catalog (a granted tool missing, or its description, inputSchema, outputSchema or annotations changed) is refused at start (exit 2) unless --allow-drift. Prompts and resources pass through; the client's token is never forwarded; --audit writes a line per call.\n\nWithout an upstream, the backend is an echo, a contract test double: every call is validated as a server generated from the catalog validates it (through the generated types for a bundled catalog, with the run-time validator for a catalog folder) and answered with the arguments it parsed, as structured content. Nothing is executed.\n\nA tool the profile is not granted is answered exactly like an unknown tool (JSON-RPC error -32602); arguments that fail the schema are a tool result with isError and a message naming the field. Input that is not JSON is answered -32700, JSON that is not a request -32600, a message over 16 MiB is refused.\n\nOver HTTP, Host and Origin must name the bound address (or --allow-host / --allow-origin): else 421 (Host) or 403 (Origin). With --tokens, each bearer token is served the profile the file maps it to; a request without a valid token gets 401. See docs/serve.md.",
    after_help = "Examples:\n  toolgate serve --catalog tatara --profile refine\n  MAETRA_CAPABILITIES=task_guard,govern toolgate serve --catalog maetra\n  toolgate serve --catalog path/to/catalog --profile implement\n  toolgate serve --catalog tatara --profile implement --http 127.0.0.1:8080\n  toolgate serve --catalog tatara --tokens tokens.toml --http 127.0.0.1:8080\n  toolgate serve --catalog schema/time --profile limited --upstream 'uvx mcp-server-time' --audit gate.jsonl\n\nAn unknown or empty profile fails closed: the always-on tools only, and a warning on stderr. Standard output carries MCP messages only; the stdio server stops when its input closes (exit 0 after a session, exit 2 if it closes before the client initialized one). SIGTERM and Ctrl-C stop either server gracefully: calls in flight finish (at most 3 s), exit 0."
)]
pub struct ServeArgs {
    /// A bundled catalog (tatara, maetra) or a catalog folder.
    #[arg(long, value_name = "NAME|DIR")]
    catalog: String,
    /// The profile served; several separated by commas when the catalog's selector combines
    /// them. Default: the selector's environment variable (TATARA_TOOL_PROFILE for tatara,
    /// MAETRA_CAPABILITIES for maetra).
    #[arg(long, value_name = "PROFILE[,PROFILE...]", conflicts_with = "tokens")]
    profile: Option<String>,
    /// Serve MCP Streamable HTTP at http://ADDR/mcp instead of stdio (port 0 picks one; the
    /// address is printed on stderr).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "IP:PORT")]
    http: Option<std::net::SocketAddr>,
    /// A Host value to accept besides the bound address (`name` for any port, or
    /// `name:port`); repeatable.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "HOST", requires = "http")]
    allow_host: Vec<String>,
    /// An Origin to accept besides the bound address's (`https://app.example.com:443`);
    /// repeatable.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    /// Serve each POST as its own exchange: no session, no initialize needed first, JSON
    /// replies.
    #[cfg(feature = "http")]
    #[arg(long, requires = "http")]
    stateless: bool,
    /// A TOML file whose `[tokens]` table maps bearer tokens (or `sha256:<hex>` of them) to
    /// the profile, or combination, each is served. Requires --http; excludes --profile.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "FILE", requires = "http")]
    tokens: Option<std::path::PathBuf>,
    /// What to log on stderr: off (default: start-up and shutdown only), warn (refusals),
    /// info (also one line per tools/call). Never tokens or arguments.
    #[arg(long, value_name = "LEVEL", default_value = "off")]
    log_level: LogLevel,
    /// Gate an existing MCP server instead of echoing: this command (split like shell words,
    /// run without a shell) is started over stdio once per downstream session.
    #[arg(long, value_name = "'CMD ARGS'", conflicts_with = "upstream_url")]
    upstream: Option<String>,
    /// Gate an MCP server reached over Streamable HTTP at this http:// URL.
    #[arg(long, value_name = "URL")]
    upstream_url: Option<String>,
    /// A header sent with every request to --upstream-url ('Name: value', repeatable): the
    /// upstream's own credentials. The client's token is never forwarded.
    #[arg(long, value_name = "'NAME: VALUE'", requires = "upstream_url")]
    upstream_header: Vec<String>,
    /// The most seconds one upstream exchange may take (start and initialize, or one call);
    /// past it the call gets a tool error and the upstream is started again on the next.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    upstream_timeout: u64,
    /// Serve even when the upstream drifted from the catalog: a warning, and the drifted
    /// tools are not listed.
    #[arg(long)]
    allow_drift: bool,
    /// The highest risk of drift the pinned gate accepts instead of refusing: `none` (white
    /// space and typography only) or `review` (a reworded description, a changed schema).
    /// Drift of risk `high` (an audit error introduced, a hint flipped the unsafe way, a
    /// missing tool) is always refused.
    #[arg(long, value_name = "RISK", default_value = "none", value_parser = ["none", "review"])]
    accept_drift: String,
    /// Append one JSON line per tools/call to FILE (time, session, profile, tool, forwarded
    /// or refused and why, duration).
    #[arg(long, value_name = "FILE")]
    audit: Option<std::path::PathBuf>,
    /// Also write each call's arguments in the audit.
    #[arg(long, requires = "audit")]
    audit_args: bool,
    /// Serve each tool's input schema as this host's client stack accepts it (`toolgate
    /// tools-list --host`: `openai-strict`, `gemini-schema`, `anthropic-strict`): calls are
    /// read back from that form, then checked against the authored schema as always.
    #[arg(long, value_name = "ID")]
    host: Option<String>,
}

impl ServeArgs {
    fn gates(&self) -> bool {
        self.upstream.is_some() || self.upstream_url.is_some()
    }

    /// The stack of `--host` (`None` without one, or for a host without a schema model);
    /// exit 2 for an unknown id.
    fn stack(&self) -> Result<Option<Stack>, u8> {
        match &self.host {
            Some(id) => super::catalog_cmds::host_stack(id),
            None => Ok(None),
        }
    }
}

mod gate;

/// A catalog opened for serving: bundled (generated dispatch) or a folder's surface, with the
/// stack of `--host` if any (then a bundled catalog is served from its files, as a folder).
enum Opened {
    Bundled(String),
    Folder(Surface, Option<Stack>),
}

fn open(arg: &str, host: Option<Stack>) -> Result<Opened, u8> {
    if let CatalogArg::Bundled(name) = CatalogArg::parse(arg)
        && toolgate_generated::selector_env(&name).is_some()
        && host.is_none()
    {
        return Ok(Opened::Bundled(name));
    }
    match CatalogArg::parse(arg).load() {
        Ok(c) => Ok(Opened::Folder(Surface::from_catalog(&c), host)),
        Err(errors) => {
            eprintln!("{errors}");
            eprintln!("error: cannot serve `{arg}`: the catalog has errors");
            Err(EXIT_ERROR)
        }
    }
}

/// The echo session of a selector value: `Some(value, source)` given, else the catalog's
/// environment variable.
fn session(catalog: &Opened, given: Option<(&str, Source<'_>)>) -> Result<EchoSession, ServeError> {
    match catalog {
        Opened::Bundled(name) => {
            let env = toolgate_generated::selector_env(name).unwrap_or_default();
            let (requested, source) = match given {
                Some((p, source)) => (p.to_string(), source),
                None => (std::env::var(env).unwrap_or_default(), Source::Env(env)),
            };
            bundled(name, &requested, source)
                .unwrap_or_else(|| Err(ServeError::Session(format!("`{name}` is not bundled"))))
        }
        Opened::Folder(surface, host) => match given {
            Some((p, source)) => echo::folder_for_host(surface, p, source, *host),
            None => {
                let (requested, env) = super::selector_value(surface, None);
                let source = super::selector_source(env.as_deref());
                echo::folder_for_host(surface, &requested, source, *host)
            }
        },
    }
}

/// `toolgate serve`
pub fn serve(args: &ServeArgs) -> u8 {
    toolgate_serve::set_log_level(args.log_level);
    if args.gates() {
        return gate::serve(args);
    }
    if args.allow_drift
        || args.audit.is_some()
        || args.upstream_timeout != 30
        || args.accept_drift != "none"
    {
        eprintln!(
            "error: --allow-drift, --accept-drift, --audit and --upstream-timeout need --upstream or --upstream-url"
        );
        return EXIT_ERROR;
    }
    let stack = match args.stack() {
        Ok(s) => s,
        Err(code) => return code,
    };
    let catalog = match open(&args.catalog, stack) {
        Ok(c) => c,
        Err(code) => return code,
    };
    #[cfg(feature = "http")]
    if let Some(addr) = args.http {
        return http::serve(args, &catalog, addr);
    }
    let session = match profile_session(&catalog, args) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let summary = session.summary();
    finish(toolgate_serve::serve_stdio_announcing(
        session.server,
        || {
            eprintln!("toolgate: {summary}");
        },
    ))
}

/// The echo session of `--profile` (else the catalog's environment variable), its warning
/// (a profile that fails closed) printed; the exit code after printing why there is none.
fn profile_session(catalog: &Opened, args: &ServeArgs) -> Result<EchoSession, u8> {
    let given = args
        .profile
        .as_deref()
        .map(|p| (p, Source::Given("--profile")));
    let session = session(catalog, given).map_err(|e| {
        eprintln!("error: {e}");
        EXIT_ERROR
    })?;
    if let Some(w) = &session.warning {
        eprintln!("warning: {w}");
    }
    Ok(session)
}

/// The exit code of a server that has stopped, its error printed.
fn finish(result: Result<(), ServeError>) -> u8 {
    match result {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_ERROR
        }
    }
}

#[cfg(feature = "http")]
mod http {
    use std::collections::HashMap;
    use std::net::SocketAddr;

    use toolgate_schema::runtime::Source;
    use toolgate_serve::http::{HttpOptions, serve_http, serve_http_with_tokens};
    use toolgate_serve::tokens::TokenTable;

    use super::{EXIT_ERROR, Opened, ServeArgs, finish, profile_session, session};

    pub(super) fn options(args: &ServeArgs) -> HttpOptions {
        HttpOptions {
            allowed_hosts: args.allow_host.clone(),
            allowed_origins: args.allow_origin.clone(),
            stateless: args.stateless,
            on_listening: Some(Box::new(|bound| {
                eprintln!("toolgate: listening on http://{bound}/mcp");
            })),
            stop: None,
        }
    }

    /// The token table of `--tokens FILE`; `None` after printing why it does not read.
    pub(super) fn read_tokens(path: &std::path::Path) -> Option<TokenTable> {
        match std::fs::read_to_string(path)
            .map_err(|e| vec![e.to_string()])
            .and_then(|text| TokenTable::parse(&text))
        {
            Ok(t) => Some(t),
            Err(errors) => {
                for e in errors {
                    eprintln!("error: {}: {e}", path.display());
                }
                None
            }
        }
    }

    /// `toolgate serve --http ADDR [--tokens FILE]`
    pub(super) fn serve(args: &ServeArgs, catalog: &Opened, addr: SocketAddr) -> u8 {
        let Some(path) = &args.tokens else {
            let session = match profile_session(catalog, args) {
                Ok(s) => s,
                Err(code) => return code,
            };
            eprintln!("toolgate: {}", session.summary_on("HTTP"));
            return finish(serve_http(addr, session.server, options(args)));
        };
        let Some(tokens) = read_tokens(path) else {
            return EXIT_ERROR;
        };
        let mut servers = HashMap::new();
        for grant in tokens.grants() {
            let session = match session(catalog, Some((grant, Source::Given("--tokens")))) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("error: {e}");
                    return EXIT_ERROR;
                }
            };
            // A token that would fail closed is a mistake in the file, not a session to serve.
            if let Some(w) = &session.warning {
                eprintln!("error: {}: a token maps to `{grant}`: {w}", path.display());
                return EXIT_ERROR;
            }
            eprintln!(
                "toolgate: tokens for `{grant}`: {}",
                session.summary_on("HTTP")
            );
            servers.insert(grant.to_string(), session.server);
        }
        finish(serve_http_with_tokens(addr, tokens, servers, options(args)))
    }
}

/// The echo session of a bundled catalog through its generated dispatch, for a selector
/// value from `source`, resolved fail closed; `None` when `catalog` is not bundled.
fn bundled(
    catalog: &str,
    requested: &str,
    source: Source<'_>,
) -> Option<Result<EchoSession, ServeError>> {
    toolgate_generated::bundled_echo!(echo::generated, catalog, requested, source)
}
