//! The `toolgate` command line: one subcommand per module.
//!
//! Exit codes, for every command: 0 success, 1 findings (catalog errors for `check`, lint
//! findings, a diff larger than declared), 2 could not do the job (bad usage, unreadable or
//! invalid input).

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use toolgate_schema::Surface;
use toolgate_schema::runtime::Source;

mod audit_cmd;
mod catalog_cmds;
mod diff_cmd;
mod docs_cmd;
mod explain_cmd;
mod history_cmd;
mod import_cmd;
mod lint_cmd;
mod lint_discovered;
#[cfg(feature = "serve")]
mod lock_cmd;
#[cfg(feature = "serve")]
mod lock_history;
mod lsp_cmd;
#[cfg(feature = "serve")]
mod serve_cmd;
mod servers_cmd;
mod source;

pub use source::{CatalogArg, SurfaceSource};

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: the command ran and found problems.
pub const EXIT_FINDINGS: u8 = 1;
/// Exit code: the command could not do its job.
pub const EXIT_ERROR: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "toolgate",
    version,
    about = "One folder of declarative files as the single source of truth for an MCP tool surface that differs by agent profile",
    long_about = "toolgate reads a catalog folder (schema/<catalog>/: profiles.json, the profile \
matrix, and tools/*.json, one JSON Schema per tool) and derives from it what each agent \
profile is served, the release manifest, a lint for the tool calls written in skills, and \
a diff that says how a surface change breaks its consumers.\n\nTwo catalogs are bundled: \
`tatara` (21 tools, 7 agent profiles) and `maetra` (18 tools, 3 combinable capabilities). \
Any command that takes --catalog accepts a bundled name or a catalog folder.",
    after_help = "Examples:\n  toolgate tools-list --catalog tatara --profile refine\n  toolgate tools-list --catalog maetra --profile task_guard,govern\n  toolgate manifest --catalog tatara --format tatara > tool-manifest.json\n  toolgate check --catalog schema/tatara\n  toolgate lint --catalog tatara skills/\n  toolgate audit --tools-list server.tools.json\n  toolgate docs --catalog tatara --check docs/tatara.md\n  toolgate import --out schema/fetch --profile all=fetch.tools.json\n  toolgate serve --catalog tatara --profile refine\n\nExit codes: 0 success, 1 findings, 2 could not do the job."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the MCP `tools/list` result a profile is served.
    ToolsList(catalog_cmds::ToolsListArgs),
    /// Print a catalog's manifest (toolgate's format, or tatara's with --format tatara).
    Manifest(catalog_cmds::ManifestArgs),
    /// Check a catalog folder; print every error at once.
    Check(catalog_cmds::CheckArgs),
    /// Judge a tool surface for danger: hidden characters, directives aimed at the model,
    /// shadowing, exfiltration shapes (a catalog, a tools/list capture, or toolgate.lock).
    #[command(long_about = None)]
    Audit(audit_cmd::AuditArgs),
    /// Compare two surfaces: every change, its rule and the version bump it requires.
    Diff(diff_cmd::DiffArgs),
    /// Print a catalog's reference page in Markdown, or write or check its region in a page.
    Docs(docs_cmd::DocsArgs),
    /// Write a catalog from captured tools/list results, or from a server run once per profile.
    #[command(long_about = import_cmd::LONG_ABOUT)]
    Import(import_cmd::ImportArgs),
    /// Check every literal tool call in SKILL.md and agent files against a surface.
    Lint(lint_cmd::LintArgs),
    /// List the MCP servers the repository's host configurations name (.mcp.json,
    /// .vscode/mcp.json, plugins, ...), with the prefixes their tools are written under.
    Servers(servers_cmd::ServersArgs),
    /// Start each server the host configurations name, capture its tools, write toolgate.lock
    /// (--check: compare with it, and say which agent-file lines a change breaks).
    #[cfg(feature = "serve")]
    Lock(lock_cmd::LockArgs),
    /// Print a locked server's timeline from toolgate.history.json (`lock --history`):
    /// versions, dates, tools added, removed and renamed, fields changed.
    History(history_cmd::HistoryArgs),
    /// Explain a lint rule (without RULE: list the rules).
    Explain(explain_cmd::ExplainArgs),
    /// Run the language server on stdio: the lint's findings, completion, hover and quick
    /// fixes while a skill is written.
    Lsp(lsp_cmd::LspArgs),
    /// Serve a profile's tools over MCP (stdio or Streamable HTTP), gating an upstream server or echoing.
    #[cfg(feature = "serve")]
    Serve(serve_cmd::ServeArgs),
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_ERROR } else { EXIT_OK });
        }
    };
    let code = match cli.command {
        Command::ToolsList(args) => catalog_cmds::tools_list(&args),
        Command::Manifest(args) => catalog_cmds::manifest(&args),
        Command::Check(args) => catalog_cmds::check(&args),
        Command::Audit(args) => audit_cmd::run(&args),
        Command::Diff(args) => diff_cmd::run(&args),
        Command::Docs(args) => docs_cmd::run(&args),
        Command::Import(args) => import_cmd::run(&args),
        Command::Lint(args) => lint_cmd::lint(&args),
        Command::Servers(args) => servers_cmd::run(&args),
        #[cfg(feature = "serve")]
        Command::Lock(args) => lock_cmd::run(&args),
        Command::History(args) => history_cmd::run(&args),
        Command::Explain(args) => explain_cmd::explain(&args),
        Command::Lsp(args) => lsp_cmd::run(&args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve_cmd::serve(&args),
    };
    ExitCode::from(code)
}

/// Writes `text` to standard output; a closed pipe (`| head`) is not an error.
pub(crate) fn print_stdout(text: &str) -> u8 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => EXIT_OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            eprintln!("error: cannot write to standard output: {e}");
            EXIT_ERROR
        }
    }
}

/// The selector value of a catalog folder's session: `--profile` when given, else the
/// selector's environment variable (unset counts as empty), with that variable's name.
fn selector_value(surface: &Surface, flag: Option<&str>) -> (String, Option<String>) {
    match (flag, &surface.selector) {
        (Some(p), _) => (p.to_string(), None),
        (None, Some(s)) => (
            std::env::var(&s.env).unwrap_or_default(),
            Some(s.env.clone()),
        ),
        (None, None) => (String::new(), None),
    }
}

/// Where a selector value came from: the variable [`selector_value`] read, or `--profile`.
fn selector_source(env: Option<&str>) -> Source<'_> {
    env.map_or(Source::Given("--profile"), Source::Env)
}
