//! The bundled catalogs, `tatara` and `maetra`, expanded by `catalog!` at compile time.
//!
//! Each module holds what the macro generates for its catalog: argument types per tool
//! (`tatara::mr_write::Args`, the restricted `tatara::mr_write::RefineArgs`), the `Profile`
//! enum and `Session`, a handler trait per profile (`tatara::ImplementHandler`) and its
//! asynchronous twin (`tatara::ImplementAsyncHandler`, each call given a
//! `toolgate_runtime::HandlerContext`), dispatch (`tatara::dispatch_implement`,
//! `tatara::dispatch`, `tatara::dispatch_async`), and the manifest and `tools/list`
//! constants that `toolgate manifest` and `toolgate tools-list` print for bundled catalogs.
//! The golden files under `generated/golden/` are these constants, kept equal by a test.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

/// tatara: 21 tools gated by 7 agent profiles (`TATARA_TOOL_PROFILE`).
pub mod tatara {
    toolgate_macros::catalog!("catalogs/tatara");
}

/// maetra: 18 tools gated by 3 capabilities that combine (`MAETRA_CAPABILITIES`).
pub mod maetra {
    toolgate_macros::catalog!("catalogs/maetra");
}

/// A catalog's files as compiled in: path relative to the catalog folder, and bytes.
pub type Sources = &'static [(&'static str, &'static [u8])];

/// The bundled catalogs by name, with their files as compiled in.
pub const BUNDLED: &[(&str, Sources)] = &[("tatara", tatara::SOURCES), ("maetra", maetra::SOURCES)];

/// Loads a bundled catalog by name (`None` when there is no such bundled catalog).
pub fn load_bundled(
    name: &str,
) -> Option<Result<toolgate_schema::Catalog, toolgate_schema::Errors>> {
    let (_, files) = BUNDLED.iter().find(|(n, _)| *n == name)?;
    let sources = files
        .iter()
        .map(|(rel, bytes)| toolgate_schema::SourceFile {
            rel: rel.to_string(),
            bytes: bytes.to_vec(),
        })
        .collect();
    Some(toolgate_schema::load_sources(
        std::path::Path::new("schema").join(name).as_path(),
        sources,
    ))
}

/// The environment variable a bundled catalog's selector reads (`None` for an unknown name).
pub fn selector_env(name: &str) -> Option<&'static str> {
    match name {
        "tatara" => Some(tatara::SELECTOR_ENV),
        "maetra" => Some(maetra::SELECTOR_ENV),
        _ => None,
    }
}

/// A bundled catalog's manifest as compiled in: toolgate's format, or with `tatara_format`
/// the format of `tatara tool-manifest` (`None` for an unknown name).
pub fn manifest(name: &str, tatara_format: bool) -> Option<&'static str> {
    match (name, tatara_format) {
        ("tatara", false) => Some(tatara::MANIFEST_JSON),
        ("tatara", true) => Some(tatara::TATARA_FORMAT_MANIFEST_JSON),
        ("maetra", false) => Some(maetra::MANIFEST_JSON),
        ("maetra", true) => Some(maetra::TATARA_FORMAT_MANIFEST_JSON),
        _ => None,
    }
}

/// The `tools/list` a bundled catalog serves for a selector value from `source`, resolved
/// fail closed, with the warning to print when it failed closed (`None` for an unknown name).
pub fn tools_list(
    name: &str,
    requested: &str,
    source: toolgate_schema::runtime::Source<'_>,
) -> Option<(std::borrow::Cow<'static, str>, Option<String>)> {
    fn of<P: toolgate_schema::runtime::CatalogProfile>(
        session: toolgate_schema::runtime::Session<P>,
    ) -> (std::borrow::Cow<'static, str>, Option<String>) {
        (
            session.tools_list_json(),
            session.warning().map(str::to_string),
        )
    }
    match name {
        "tatara" => Some(of(tatara::Session::resolve_from(requested, source))),
        "maetra" => Some(of(maetra::Session::resolve_from(requested, source))),
        _ => None,
    }
}

/// The echo session of a bundled catalog through its generated dispatch (each tool answered
/// by the catalog's `EchoHandler`), for the selector value `$requested` read from `$source`
/// and resolved fail closed; `None` when `$catalog` is not bundled. `$echo` is
/// `toolgate_serve::echo::generated`: this crate does not depend on toolgate-serve, so the
/// CLI and toolgate-serve's tests expand this one list of the bundled catalogs with it.
///
/// ```ignore
/// let session = toolgate_generated::bundled_echo!(echo::generated, "tatara", "implement", source);
/// ```
#[macro_export]
macro_rules! bundled_echo {
    ($echo:path, $catalog:expr, $requested:expr, $source:expr $(,)?) => {{
        let catalog: &str = $catalog;
        match catalog {
            "tatara" => Some($echo(
                catalog,
                $crate::tatara::Session::resolve_from($requested, $source),
                |s, tool, args| {
                    $crate::tatara::dispatch(s, &$crate::tatara::EchoHandler, tool, args)
                },
            )),
            "maetra" => Some($echo(
                catalog,
                $crate::maetra::Session::resolve_from($requested, $source),
                |s, tool, args| {
                    $crate::maetra::dispatch(s, &$crate::maetra::EchoHandler, tool, args)
                },
            )),
            _ => None,
        }
    }};
}

#[cfg(test)]
mod tests {
    use toolgate_schema::runtime::{CallError, CatalogProfile, Session, Source};

    /// Stands for `echo::generated`: the catalog, the profiles resolved and one dispatched
    /// call's answer.
    fn record<P: CatalogProfile>(
        catalog: &str,
        session: Session<P>,
        dispatch: impl Fn(
            &Session<P>,
            &str,
            &serde_json::Map<String, serde_json::Value>,
        ) -> Result<serde_json::Value, CallError>,
    ) -> (String, usize, bool) {
        let answered = dispatch(&session, "no_such_tool", &serde_json::Map::new()).is_err();
        (catalog.to_string(), session.profiles().len(), answered)
    }

    #[test]
    fn bundled_echo_covers_every_bundled_catalog() {
        for (name, _) in crate::BUNDLED {
            let got = bundled_echo!(record, name, "", Source::Env("NO_SUCH_VARIABLE"));
            let (catalog, _, refused) = got.unwrap_or_else(|| panic!("{name} is not echoed"));
            assert_eq!(catalog, *name);
            assert!(refused, "{name}: an unknown tool is refused");
        }
        assert!(bundled_echo!(record, "nope", "x", Source::Env("X")).is_none());
    }
}
