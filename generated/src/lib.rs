//! The bundled catalogs, `tatara` and `maetra`, expanded by `catalog!` at compile time.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

/// tatara: 21 tools gated by 7 agent profiles (`TATARA_TOOL_PROFILE`).
pub mod tatara {
    toolgate_macros::catalog!("../schema/tatara");
}

/// maetra: 18 tools gated by 3 capabilities that combine (`MAETRA_CAPABILITIES`).
pub mod maetra {
    toolgate_macros::catalog!("../schema/maetra");
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
