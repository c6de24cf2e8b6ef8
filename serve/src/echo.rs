//! The echo backend of `toolgate serve`: a contract test double, not a tool implementation.
//!
//! Every call is validated exactly as a real server generated from the catalog would
//! validate it, and a valid call is answered with the arguments as the handler would have
//! received them: `{"tool": NAME, "arguments": {...}}`. Nothing is executed. Agents, skills
//! and client code can be run against it to check that every call they make is one the
//! profile may make, with arguments the schema accepts.
//!
//! - A catalog expanded by `catalog!` (the CLI's bundled `tatara` and `maetra`) goes through
//!   its generated code ([`generated`]): the session's dispatch parses the arguments into the
//!   typed argument struct of the tool (the profile's own type, so refine's `mr_write` cannot
//!   hold `action: "open"`), and the generated `EchoHandler` serializes that typed value
//!   back, defaults filled in.
//! - A catalog folder has no generated types: each call is checked against the input schema
//!   the session is served with the run-time validator (`toolgate_schema::validate`), which
//!   words every refusal for the generated code too, so the messages are the same. The
//!   answer echoes the arguments as the generated types would have held them
//!   (`toolgate_schema::runtime::as_typed`: defaults filled in, integers and numbers as
//!   `i64` and `f64`, undeclared properties a struct ignores dropped), so both backends
//!   answer a call alike.

use toolgate_runtime::{CallError, CatalogProfile, Source, as_typed, echo};
use toolgate_schema::json::to_pretty;
use toolgate_schema::stacks::{self, Stack};
use toolgate_schema::{Session, Surface};

use crate::checked::ServedSchemas;
use crate::{Backend, JsonObject, Reply, ServeError, ToolServer};

/// A generated catalog's dispatch for one session, with its `EchoHandler`.
type GeneratedDispatch =
    Box<dyn Fn(&str, &JsonObject) -> Result<serde_json::Value, CallError> + Send + Sync>;

/// The echo backend of one session.
pub enum EchoBackend {
    /// A catalog expanded by `catalog!`, through its generated dispatch and `EchoHandler`.
    Generated(GeneratedDispatch),
    /// A catalog folder, through the run-time validator.
    Folder(FolderEcho),
}

impl std::fmt::Debug for EchoBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EchoBackend::Generated(_) => f.write_str("EchoBackend::Generated(..)"),
            EchoBackend::Folder(folder) => {
                f.debug_tuple("EchoBackend::Folder").field(folder).finish()
            }
        }
    }
}

impl Backend for EchoBackend {
    fn call(&self, tool: &str, arguments: &JsonObject) -> Result<Reply, CallError> {
        match self {
            EchoBackend::Generated(dispatch) => dispatch(tool, arguments).map(Reply::from),
            EchoBackend::Folder(folder) => folder.call(tool, arguments),
        }
    }
}

/// The echo backend of a catalog folder: the input schema each tool of the session is
/// served, checked at run time ([`ServedSchemas`]).
#[derive(Debug)]
pub struct FolderEcho {
    schemas: ServedSchemas,
}

impl FolderEcho {
    /// The backend of `session` over `surface`.
    pub fn new(surface: &Surface, session: &Session) -> FolderEcho {
        FolderEcho {
            schemas: ServedSchemas::new(surface, session, |_| true),
        }
    }

    /// The backend of `session` over `surface`, its client served `stack`'s equivalents of
    /// the schemas: calls decoded, then checked against the authored schemas.
    /// A tool in `left_out` (no equivalent the stack accepts) is not served.
    pub fn for_host(
        surface: &Surface,
        session: &Session,
        stack: Stack,
        left_out: &[String],
    ) -> FolderEcho {
        FolderEcho {
            schemas: ServedSchemas::new(surface, session, |t| !left_out.iter().any(|l| l == t))
                .for_host(surface, session, stack),
        }
    }

    /// A call as serve answers it: decoded (with a host), checked, echoed.
    pub fn call(&self, tool: &str, arguments: &JsonObject) -> Result<Reply, CallError> {
        let value = self
            .schemas
            .decode(tool, serde_json::Value::Object(arguments.clone()));
        let schema = self.schemas.check(tool, &value)?;
        Ok(Reply::Structured(echo(tool, &as_typed(schema, &value))))
    }
}

/// A resolved echo session, ready to run.
pub struct EchoSession {
    /// The server.
    pub server: ToolServer<EchoBackend>,
    /// The profiles the session sees (empty when it failed closed).
    pub profiles: Vec<String>,
    /// Why the session failed closed, to print on standard error.
    pub warning: Option<String>,
    /// The catalog's name.
    pub catalog: String,
}

impl EchoSession {
    /// A one-line description of what is served on stdio, for standard error.
    pub fn summary(&self) -> String {
        self.summary_on("stdio")
    }

    /// A one-line description of what is served on `transport`, for standard error.
    pub fn summary_on(&self, transport: &str) -> String {
        let who = if self.profiles.is_empty() {
            "no profile (fail closed)".to_string()
        } else {
            format!("profile {}", self.profiles.join(","))
        };
        let n = self.server.tools().len();
        format!(
            "serving catalog `{}`, {who}: {n} tool{} on {transport} (echo backend: calls are validated and echoed, never executed)",
            self.catalog,
            if n == 1 { "" } else { "s" }
        )
    }
}

fn instructions(catalog: &str, profiles: &[String]) -> String {
    let who = if profiles.is_empty() {
        "no profile (the session failed closed: only the always-on tools)".to_string()
    } else {
        format!("profile {}", profiles.join(", "))
    };
    format!(
        "toolgate echo server for catalog `{catalog}`, {who}. A contract test double: every call is checked against the schema this session is served and answered with the arguments as a handler would receive them; nothing is executed."
    )
}

/// The echo session of a catalog expanded by `catalog!`, for a resolved `session`:
/// `tools/list` is the session's compiled-in constant, and each call goes through `dispatch`
/// (the catalog's generated `dispatch` with its `EchoHandler`:
/// `|s, tool, args| tatara::dispatch(s, &tatara::EchoHandler, tool, args)`).
pub fn generated<P, F>(
    catalog: &str,
    session: toolgate_runtime::Session<P>,
    dispatch: F,
) -> Result<EchoSession, ServeError>
where
    P: CatalogProfile + Send + Sync,
    F: Fn(&toolgate_runtime::Session<P>, &str, &JsonObject) -> Result<serde_json::Value, CallError>
        + Send
        + Sync
        + 'static,
{
    let profiles: Vec<String> = session
        .profiles()
        .iter()
        .map(|p| p.name().to_string())
        .collect();
    let warning = session.warning().map(str::to_string);
    let list = session.tools_list_json().into_owned();
    let backend = EchoBackend::Generated(Box::new(move |tool, arguments| {
        dispatch(&session, tool, arguments)
    }));
    let server =
        ToolServer::new(&list, backend)?.with_instructions(instructions(catalog, &profiles));
    Ok(EchoSession {
        server,
        warning,
        profiles,
        catalog: catalog.to_string(),
    })
}

/// The echo session of a catalog folder's surface for a selector value from `source`,
/// resolved fail closed. `tools/list` is what `toolgate tools-list` prints for the folder.
pub fn folder(
    surface: &Surface,
    requested: &str,
    source: Source<'_>,
) -> Result<EchoSession, ServeError> {
    folder_for_host(surface, requested, source, None)
}

/// [`folder`], with `Some(stack)`: `tools/list` is what `toolgate tools-list --host` prints
/// (each input schema as the stack accepts it; a tool with no equivalent left out), and calls
/// are decoded before they are checked against the authored schemas.
pub fn folder_for_host(
    surface: &Surface,
    requested: &str,
    source: Source<'_>,
    host: Option<Stack>,
) -> Result<EchoSession, ServeError> {
    let session = surface.resolve_from(requested, source);
    let authored = surface.tools_list_json(&session);
    let (list, backend) = match host {
        Some(stack) => {
            let (list, refused) = stacks::adapt_tools_list(stack, &authored);
            let list = to_pretty(&list);
            let left_out: Vec<String> = refused.into_iter().map(|(t, _)| t).collect();
            (
                list,
                FolderEcho::for_host(surface, &session, stack, &left_out),
            )
        }
        None => (to_pretty(&authored), FolderEcho::new(surface, &session)),
    };
    let server = ToolServer::new(&list, EchoBackend::Folder(backend))?
        .with_instructions(instructions(&surface.catalog, &session.profiles));
    Ok(EchoSession {
        server,
        profiles: session.profiles.clone(),
        warning: session.warning.clone(),
        catalog: surface.catalog.clone(),
    })
}
