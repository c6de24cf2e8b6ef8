//! `tools-list`, `manifest` and `check`.

use clap::{Args, ValueEnum};
use toolgate_schema::json::to_pretty;
use toolgate_schema::runtime::Source;
use toolgate_schema::{Errors, Surface, cost, stacks};

use super::{CatalogArg, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, print_stdout};

/// Arguments of `toolgate tools-list`.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  toolgate tools-list --catalog tatara --profile implement\n  toolgate tools-list --catalog maetra --profile task_guard,govern\n  TATARA_TOOL_PROFILE=review toolgate tools-list --catalog tatara\n  toolgate tools-list --catalog tatara --profile refine --host openai-strict\n\nAn unknown or empty profile fails closed: the always-on tools only, a warning on stderr, exit 0 (as a server would start). With --host, a tool no schema of the host's stack can say is left out and named on stderr (exit 1); an unknown host is exit 2 (docs/hosts.md)."
)]
pub struct ToolsListArgs {
    /// A bundled catalog (tatara, maetra) or a catalog folder.
    #[arg(long, value_name = "NAME|DIR")]
    catalog: String,
    /// The profile served; several separated by commas when the catalog's selector combines
    /// them. Default: the selector's environment variable (TATARA_TOOL_PROFILE for tatara,
    /// MAETRA_CAPABILITIES for maetra).
    #[arg(long, value_name = "PROFILE[,PROFILE...]")]
    profile: Option<String>,
    /// Serve each tool's input schema as this host's client stack accepts it
    /// (`openai-strict`, `gemini-schema`, `anthropic-strict`; `toolgate explain
    /// host-limits`): an equivalent, what it cannot say written into descriptions. A host
    /// without a schema model gets the schemas as authored.
    #[arg(long, value_name = "ID")]
    host: Option<String>,
}

/// The manifest formats.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum ManifestFormat {
    /// toolgate's own, versioned: every tool, each distinct schema and the profiles served it.
    Toolgate,
    /// What `tatara tool-manifest` prints: names and top-level enum values only.
    Tatara,
}

/// Arguments of `toolgate manifest`.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  toolgate manifest --catalog tatara > manifest.json\n  toolgate manifest --catalog tatara --format tatara > tool-manifest.json"
)]
pub struct ManifestArgs {
    /// A bundled catalog (tatara, maetra) or a catalog folder.
    #[arg(long, value_name = "NAME|DIR")]
    catalog: String,
    /// The manifest format.
    #[arg(long, value_enum, default_value = "toolgate")]
    format: ManifestFormat,
}

/// Output formats of `toolgate check`.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum CheckFormat {
    /// The figures on stdout, errors and the summary on stderr.
    #[default]
    Human,
    /// `{"profiles": [{"name", "tools", "bytes", "tokens", "top", ...}], "errors": [...]}`.
    Json,
}

/// Arguments of `toolgate check`.
#[derive(Args, Debug)]
#[command(
    long_about = "Check a catalog folder and print every error at once; then measure what each profile is served (alone and, for a combinable catalog, all combined): the tools of its tools/list, the bytes and the o200k_base tokens of its `tools` array as compact JSON, and the five costliest tools. A profile over its budget (`budgets` in profiles.json) or a limit broken of a host the catalog is served to (`hosts` in profiles.json, or --host) is an error. For a host with a schema model (openai-strict, gemini-schema, anthropic-strict), every input schema is read as that host's client stack reads it: a keyword it rejects is an error, one it drops (the model will not know the constraint) a warning, each with the tool and the schema path (docs/hosts.md).",
    after_help = "Examples:\n  toolgate check --catalog schema/tatara\n  toolgate check --catalog schema/maetra --format json\n  toolgate check --catalog schema/fetch --host claude-code --host vscode\n  toolgate check --catalog schema/tatara --host openai-strict --format json\n\n`toolgate explain host-limits` lists the hosts and their limits.\nThe audit's error rules run on the catalog too (`toolgate audit --catalog` shows its warnings as well; docs/audit.md).\nExit codes: 0 the catalog is valid and within its limits, 1 it has errors (all are printed), 2 the folder cannot be read or a host is unknown."
)]
pub struct CheckArgs {
    /// A catalog folder (or a bundled catalog's name).
    #[arg(long, value_name = "DIR")]
    catalog: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: CheckFormat,
    /// A host to hold the profiles to, beside the matrix's `hosts` (repeatable).
    #[arg(long = "host", value_name = "ID")]
    hosts: Vec<String>,
}

fn report(errors: &Errors) {
    eprintln!("{errors}");
    let n = errors.0.len();
    eprintln!("{n} error{} in the catalog", if n == 1 { "" } else { "s" });
}

fn load_surface(catalog: &str) -> Result<Surface, u8> {
    match CatalogArg::parse(catalog).load() {
        Ok(c) => Ok(Surface::from_catalog(&c)),
        Err(e) => {
            report(&e);
            Err(EXIT_ERROR)
        }
    }
}

/// `toolgate tools-list`
///
/// A bundled catalog answers from the constants compiled in by `catalog!` (the same bytes as
/// the run-time path, which a folder catalog takes).
pub fn tools_list(args: &ToolsListArgs) -> u8 {
    let stack = match &args.host {
        Some(id) => match host_stack(id) {
            Ok(s) => s,
            Err(code) => return code,
        },
        None => None,
    };
    if let CatalogArg::Bundled(name) = CatalogArg::parse(&args.catalog)
        && stack.is_none()
        && let Some(env) = toolgate_generated::selector_env(&name)
    {
        let (requested, source) = match &args.profile {
            Some(p) => (p.clone(), Source::Given("--profile")),
            None => (std::env::var(env).unwrap_or_default(), Source::Env(env)),
        };
        if let Some((text, warning)) = toolgate_generated::tools_list(&name, &requested, source) {
            if let Some(w) = warning {
                eprintln!("warning: {w}");
            }
            return print_stdout(&text);
        }
    }
    let surface = match load_surface(&args.catalog) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let (requested, env) = super::selector_value(&surface, args.profile.as_deref());
    let session = surface.resolve_from(&requested, super::selector_source(env.as_deref()));
    if let Some(w) = &session.warning {
        eprintln!("warning: {w}");
    }
    let list = surface.tools_list_json(&session);
    let Some(stack) = stack else {
        return print_stdout(&to_pretty(&list));
    };
    let (adapted, refused) = stacks::adapt_tools_list(stack, &list);
    let printed = print_stdout(&to_pretty(&adapted));
    for (tool, why) in &refused {
        eprintln!(
            "error: host `{}`: tool `{tool}` is not served: inexpressible: {why}",
            stack.id()
        );
    }
    if printed != EXIT_OK || refused.is_empty() {
        printed
    } else {
        EXIT_FINDINGS
    }
}

/// The schema model of host `id` (`None` for a host without one); exit 2 for an unknown id,
/// the ids listed.
pub fn host_stack(id: &str) -> Result<Option<stacks::Stack>, u8> {
    match toolgate_schema::hosts::host(id) {
        Some(h) => Ok(h.schema),
        None => {
            eprintln!(
                "error: --host: no host `{id}`{}; hosts: {}",
                toolgate_schema::suggest::did_you_mean(id, toolgate_schema::hosts::ids()),
                toolgate_schema::hosts::ids().join(", ")
            );
            Err(EXIT_ERROR)
        }
    }
}

/// `toolgate manifest`
///
/// A bundled catalog prints the manifest constant compiled in by `catalog!`.
pub fn manifest(args: &ManifestArgs) -> u8 {
    let tatara_format = matches!(args.format, ManifestFormat::Tatara);
    if let CatalogArg::Bundled(name) = CatalogArg::parse(&args.catalog)
        && let Some(text) = toolgate_generated::manifest(&name, tatara_format)
    {
        return print_stdout(text);
    }
    let surface = match load_surface(&args.catalog) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let value = match args.format {
        ManifestFormat::Toolgate => surface.manifest_json(),
        ManifestFormat::Tatara => surface.tatara_manifest_json(),
    };
    print_stdout(&to_pretty(&value))
}

/// `toolgate check`
pub fn check(args: &CheckArgs) -> u8 {
    let arg = CatalogArg::parse(&args.catalog);
    if let CatalogArg::Dir(dir) = &arg
        && !dir.exists()
    {
        eprintln!("error: {}: no such catalog folder", dir.display());
        return EXIT_ERROR;
    }
    let c = match arg.load() {
        Ok(c) => c,
        Err(e) => {
            if matches!(args.format, CheckFormat::Json) {
                let errors: Vec<String> = e.0.iter().map(|d| d.to_string()).collect();
                let v =
                    serde_json::json!({"catalog": args.catalog, "profiles": [], "errors": errors});
                let _ = print_stdout(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&v).unwrap_or_default()
                ));
            }
            report(&e);
            return EXIT_FINDINGS;
        }
    };
    let hosts = match cost::hosts_of(&c, &args.hosts) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: --host: {e}");
            return EXIT_ERROR;
        }
    };
    let surface = Surface::from_catalog(&c);
    let costs = cost::measure(&surface);
    let findings = cost::check(&c, &costs, &hosts);
    let schemas = cost::check_schemas(&surface, &hosts);
    let schema_errors = schemas.iter().filter(|f| f.is_error()).count();
    let audited = super::audit_cmd::catalog_errors(&surface, &c.name);
    let code = if findings.is_empty() && schema_errors == 0 && audited.is_empty() {
        EXIT_OK
    } else {
        EXIT_FINDINGS
    };
    if matches!(args.format, CheckFormat::Json) {
        let mut v = cost::to_json(&c, &costs, &hosts, &findings, &schemas);
        v["audit"] = audited
            .iter()
            .map(toolgate_schema::audit::render::finding_json)
            .collect();
        let printed = print_stdout(&format!(
            "{}\n",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        ));
        return if printed == EXIT_OK { code } else { printed };
    }
    // Warnings never fail the check: what a catalog may hold but is worth saying.
    for w in &c.warnings {
        eprintln!("warning: {w}");
    }
    let printed = print_stdout(&cost::to_text(&costs));
    if printed != EXIT_OK {
        return printed;
    }
    for f in &findings {
        eprintln!("error: {}", f.message);
    }
    for f in &schemas {
        let level = if f.is_error() { "error" } else { "warning" };
        eprintln!("{level}: {}", f.message());
    }
    for f in &audited {
        eprintln!("error[{}]: {}{}: {}", f.rule, f.tool, f.path, f.message);
    }
    summary(&c, &surface, findings.len() + schema_errors, audited.len());
    schema_summary(&schemas);
    code
}

/// What the hosts' stacks make of the input schemas, in a line per host, on stderr.
fn schema_summary(schemas: &[cost::SchemaFinding]) {
    let mut hosts: Vec<&str> = schemas.iter().map(|f| f.host).collect();
    hosts.dedup();
    for host in hosts {
        let tools = |error: bool| {
            let mut t: Vec<&str> = schemas
                .iter()
                .filter(|f| f.host == host && f.is_error() == error)
                .map(|f| f.tool.as_str())
                .collect();
            t.dedup();
            t.len()
        };
        eprintln!(
            "host `{host}`: {} tool(s) rejected, {} with constraints dropped (toolgate tools-list --host {host} serves what it accepts)",
            tools(true),
            tools(false)
        );
    }
}

/// The closing line of a check on stderr: `ok: ...`, or the number of limits broken.
fn summary(c: &toolgate_schema::Catalog, surface: &Surface, broken: usize, audited: usize) {
    let counts: Vec<String> = surface
        .profiles
        .iter()
        .map(|p| {
            let n = surface.served(&surface.resolve(&p.name)).len();
            format!("{} {n}", p.name)
        })
        .collect();
    let warned = match c.warnings.len() {
        0 => String::new(),
        1 => ", 1 warning".to_string(),
        n => format!(", {n} warnings"),
    };
    let what = format!(
        "catalog `{}`: {} tools, {} profiles ({}), {} always on{warned}",
        c.name,
        c.tools.len(),
        c.profiles.len(),
        counts.join(", "),
        surface.fail_closed.len()
    );
    if audited > 0 {
        let s = if audited == 1 { "" } else { "s" };
        eprintln!(
            "error: {what}; {audited} audit error{s} (`toolgate audit --catalog {}` shows them with their spans)",
            c.name
        );
        return;
    }
    match broken {
        0 => eprintln!("ok: {what}"),
        1 => eprintln!("error: {what}; 1 budget or host limit broken"),
        n => eprintln!("error: {what}; {n} budgets or host limits broken"),
    }
}
