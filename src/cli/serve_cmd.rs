//! `toolgate serve`: an MCP server on stdio over the echo backend (`toolgate_serve::echo`).

use clap::Args;
use toolgate_generated::{maetra, tatara};
use toolgate_schema::Surface;
use toolgate_schema::runtime::Source;
use toolgate_serve::ServeError;
use toolgate_serve::echo::{self, EchoSession};

use super::{CatalogArg, EXIT_ERROR, EXIT_OK};

/// Arguments of `toolgate serve`.
#[derive(Args, Debug)]
#[command(
    long_about = "Serve a profile's tools as an MCP server on standard input and output.\n\nThe backend is an echo, a contract test double: every call is validated as a server generated from the catalog validates it (through the generated types for a bundled catalog, with the run-time validator for a catalog folder) and answered with the arguments it parsed, as structured content. Nothing is executed.\n\nA tool the profile is not granted is answered exactly like an unknown tool (JSON-RPC error -32602); arguments that fail the schema are a tool result with isError and a message naming the field.",
    after_help = "Examples:\n  toolgate serve --catalog tatara --profile refine\n  MAETRA_CAPABILITIES=task_guard,govern toolgate serve --catalog maetra\n  toolgate serve --catalog path/to/catalog --profile implement\n\nAn unknown or empty profile fails closed: the always-on tools only, and a warning on stderr. Standard output carries MCP messages only; the server stops when its input closes (exit 0 after a session, exit 2 if it closes before the client initialized one)."
)]
pub struct ServeArgs {
    /// A bundled catalog (tatara, maetra) or a catalog folder.
    #[arg(long, value_name = "NAME|DIR")]
    catalog: String,
    /// The profile served; several separated by commas when the catalog's selector combines
    /// them. Default: the selector's environment variable (TATARA_TOOL_PROFILE for tatara,
    /// MAETRA_CAPABILITIES for maetra).
    #[arg(long, value_name = "PROFILE[,PROFILE...]")]
    profile: Option<String>,
}

/// `toolgate serve`
pub fn serve(args: &ServeArgs) -> u8 {
    let prepared = match CatalogArg::parse(&args.catalog) {
        CatalogArg::Bundled(name) => {
            let env = toolgate_generated::selector_env(&name).unwrap_or_default();
            let (requested, source) = match &args.profile {
                Some(p) => (p.clone(), Source::Given("--profile")),
                None => (std::env::var(env).unwrap_or_default(), Source::Env(env)),
            };
            bundled(&name, &requested, source)
        }
        CatalogArg::Dir(_) => None,
    };
    let prepared = match prepared {
        Some(p) => p,
        None => {
            let catalog = match CatalogArg::parse(&args.catalog).load() {
                Ok(c) => c,
                Err(errors) => {
                    eprintln!("{errors}");
                    eprintln!(
                        "error: cannot serve `{}`: the catalog has errors",
                        args.catalog
                    );
                    return EXIT_ERROR;
                }
            };
            let surface = Surface::from_catalog(&catalog);
            let (requested, env) = super::selector_value(&surface, args.profile.as_deref());
            echo::folder(&surface, &requested, super::selector_source(env.as_deref()))
        }
    };
    let session = match prepared {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    if let Some(w) = &session.warning {
        eprintln!("warning: {w}");
    }
    eprintln!("toolgate: {}", session.summary());
    match toolgate_serve::run_stdio(session.server) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_ERROR
        }
    }
}

/// The echo session of a bundled catalog through its generated dispatch, for a selector
/// value from `source`, resolved fail closed; `None` when `catalog` is not bundled.
fn bundled(
    catalog: &str,
    requested: &str,
    source: Source<'_>,
) -> Option<Result<EchoSession, ServeError>> {
    match catalog {
        "tatara" => Some(echo::generated(
            catalog,
            tatara::Session::resolve_from(requested, source),
            |s, tool, args| tatara::dispatch(s, &tatara::EchoHandler, tool, args),
        )),
        "maetra" => Some(echo::generated(
            catalog,
            maetra::Session::resolve_from(requested, source),
            |s, tool, args| maetra::dispatch(s, &maetra::EchoHandler, tool, args),
        )),
        _ => None,
    }
}
