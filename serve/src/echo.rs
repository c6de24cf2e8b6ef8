//! The echo backend of `toolgate serve`: a contract test double, not a tool implementation.
//!
//! Every call is validated exactly as a real server generated from the catalog would
//! validate it, and a valid call is answered with the arguments as the handler would have
//! received them: `{"tool": NAME, "arguments": {...}}`. Nothing is executed. Agents, skills
//! and client code can be run against it to check that every call they make is one the
//! profile may make, with arguments the schema accepts.
//!
//! - A bundled catalog (`tatara`, `maetra`) goes through the code `catalog!` generated: the
//!   session's dispatch parses the arguments into the typed argument struct of the tool (the
//!   profile's own type, so refine's `mr_write` cannot hold `action: "open"`), and the
//!   generated `EchoHandler` serializes that typed value back, defaults filled in.
//! - A catalog folder has no generated types: each call is checked against the input schema
//!   the session is served with the run-time validator (`toolgate_schema::validate`), which
//!   words every refusal for the generated code too, so the messages are the same. The
//!   answer echoes the arguments as the generated types would have held them
//!   (`toolgate_schema::runtime::as_typed`: defaults filled in, integers and numbers as
//!   `i64` and `f64`, undeclared properties a struct ignores dropped), so both backends
//!   answer a call alike.

use std::collections::HashMap;

use toolgate_generated::{maetra, tatara};
use toolgate_schema::json::to_pretty;
use toolgate_schema::model::Schema;
use toolgate_schema::runtime::{CallError, Source, as_typed, check_arguments, echo};
use toolgate_schema::{Session, Surface};

use crate::{Backend, JsonObject, Reply, ServeError, ToolServer};

/// The echo backend of one session.
#[derive(Debug)]
pub enum EchoBackend {
    /// The bundled `tatara` catalog, through its generated dispatch and `EchoHandler`.
    Tatara(tatara::Session),
    /// The bundled `maetra` catalog, through its generated dispatch and `EchoHandler`.
    Maetra(maetra::Session),
    /// A catalog folder, through the run-time validator.
    Folder(FolderEcho),
}

impl Backend for EchoBackend {
    fn call(&self, tool: &str, arguments: &JsonObject) -> Result<Reply, CallError> {
        match self {
            EchoBackend::Tatara(session) => {
                tatara::dispatch(session, &tatara::EchoHandler, tool, arguments).map(Reply::from)
            }
            EchoBackend::Maetra(session) => {
                maetra::dispatch(session, &maetra::EchoHandler, tool, arguments).map(Reply::from)
            }
            EchoBackend::Folder(folder) => folder.call(tool, arguments),
        }
    }
}

/// The echo backend of a catalog folder: the input schema each tool of the session is
/// served, checked at run time.
#[derive(Debug)]
pub struct FolderEcho {
    schemas: HashMap<String, Schema>,
}

impl FolderEcho {
    /// The backend of `session` over `surface`.
    pub fn new(surface: &Surface, session: &Session) -> FolderEcho {
        FolderEcho {
            schemas: surface
                .served(session)
                .into_iter()
                .map(|s| (s.tool.name.clone(), s.entry.input_schema.clone()))
                .collect(),
        }
    }

    fn call(&self, tool: &str, arguments: &JsonObject) -> Result<Reply, CallError> {
        let schema = self
            .schemas
            .get(tool)
            .ok_or_else(|| CallError::unknown_tool(tool))?;
        let value = serde_json::Value::Object(arguments.clone());
        check_arguments(tool, schema, &value)?;
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
    /// A one-line description of what is served, for standard error.
    pub fn summary(&self) -> String {
        let who = if self.profiles.is_empty() {
            "no profile (fail closed)".to_string()
        } else {
            format!("profile {}", self.profiles.join(","))
        };
        let n = self.server.tools().len();
        format!(
            "serving catalog `{}`, {who}: {n} tool{} on stdio (echo backend: calls are validated and echoed, never executed)",
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

fn session_of<P: toolgate_schema::runtime::CatalogProfile>(
    catalog: &str,
    session: &toolgate_schema::runtime::Session<P>,
    backend: impl FnOnce() -> EchoBackend,
) -> Result<EchoSession, ServeError> {
    let profiles: Vec<String> = session
        .profiles()
        .iter()
        .map(|p| p.name().to_string())
        .collect();
    let server = ToolServer::new(&session.tools_list_json(), backend())?
        .with_instructions(instructions(catalog, &profiles));
    Ok(EchoSession {
        server,
        warning: session.warning().map(str::to_string),
        profiles,
        catalog: catalog.to_string(),
    })
}

/// The echo session of a bundled catalog for a selector value (`--profile`, or the
/// selector's environment variable: `source`, which a fail-closed warning names), resolved
/// fail closed; `None` when `catalog` is not bundled. `tools/list` is the compiled-in
/// constant of the session.
pub fn bundled(
    catalog: &str,
    requested: &str,
    source: Source<'_>,
) -> Option<Result<EchoSession, ServeError>> {
    match catalog {
        "tatara" => {
            let session = tatara::Session::resolve_from(requested, source);
            Some(session_of(catalog, &session, || {
                EchoBackend::Tatara(session.clone())
            }))
        }
        "maetra" => {
            let session = maetra::Session::resolve_from(requested, source);
            Some(session_of(catalog, &session, || {
                EchoBackend::Maetra(session.clone())
            }))
        }
        _ => None,
    }
}

/// The echo session of a catalog folder's surface for a selector value from `source`,
/// resolved fail closed. `tools/list` is what `toolgate tools-list` prints for the folder.
pub fn folder(
    surface: &Surface,
    requested: &str,
    source: Source<'_>,
) -> Result<EchoSession, ServeError> {
    let session = surface.resolve_from(requested, source);
    let list = to_pretty(&surface.tools_list_json(&session));
    let server = ToolServer::new(
        &list,
        EchoBackend::Folder(FolderEcho::new(surface, &session)),
    )?
    .with_instructions(instructions(&surface.catalog, &session.profiles));
    Ok(EchoSession {
        server,
        profiles: session.profiles.clone(),
        warning: session.warning.clone(),
        catalog: surface.catalog.clone(),
    })
}
