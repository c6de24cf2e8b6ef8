//! Where a command's surface comes from: a bundled catalog, a catalog folder, or a manifest.

use std::path::{Path, PathBuf};

use toolgate_schema::{Catalog, Errors, Surface};

/// Whether `name` is a catalog compiled into this binary.
pub fn is_bundled(name: &str) -> bool {
    toolgate_generated::BUNDLED.iter().any(|(n, _)| *n == name)
}

/// The bundled catalog of that name, loaded (`None` when there is none): what the lint's
/// `[servers.NAME] catalog = "tatara"` resolves through.
pub fn load_bundled(name: &str) -> Option<Result<Catalog, Errors>> {
    toolgate_generated::load_bundled(name)
}

/// The value of `--catalog`: a bundled catalog's name or a catalog folder.
#[derive(Clone, Debug)]
pub enum CatalogArg {
    /// A catalog compiled into this binary (`tatara`, `maetra`).
    Bundled(String),
    /// A catalog folder.
    Dir(PathBuf),
}

impl CatalogArg {
    /// Reads `--catalog VALUE`: a bundled name unless the value looks like a path (has a
    /// separator, starts with `.`) or is not a bundled name.
    pub fn parse(value: &str) -> CatalogArg {
        let path_like = value.contains('/') || value.contains('\\') || value.starts_with('.');
        if is_bundled(value) && !path_like {
            CatalogArg::Bundled(value.to_string())
        } else {
            CatalogArg::Dir(PathBuf::from(value))
        }
    }

    /// Loads and checks the catalog.
    pub fn load(&self) -> Result<Catalog, Errors> {
        match self {
            CatalogArg::Bundled(name) => match toolgate_generated::load_bundled(name) {
                Some(result) => result,
                None => Err(Errors(vec![toolgate_schema::Diagnostic {
                    path: PathBuf::from(name),
                    position: None,
                    pointer: None,
                    message: "is not a bundled catalog".to_string(),
                }])),
            },
            CatalogArg::Dir(dir) => {
                let dir = if dir.is_file() && dir.file_name().is_some_and(|n| n == "profiles.json")
                {
                    dir.parent().unwrap_or(Path::new(".")).to_path_buf()
                } else {
                    dir.clone()
                };
                toolgate_schema::load_dir(&dir)
            }
        }
    }
}

/// A surface to work from: a catalog (bundled or folder) or a manifest file.
#[derive(Clone, Debug)]
pub enum SurfaceSource {
    /// `--catalog`
    Catalog(CatalogArg),
    /// `--manifest FILE`: a toolgate or tatara-format manifest.
    Manifest(PathBuf),
}

impl SurfaceSource {
    /// Loads the surface.
    pub fn load(&self) -> Result<Surface, Errors> {
        match self {
            SurfaceSource::Catalog(c) => c.load().map(|c| Surface::from_catalog(&c)),
            SurfaceSource::Manifest(path) => match std::fs::read(path) {
                Ok(bytes) => Surface::from_manifest(path, &bytes),
                Err(e) => Err(Errors(vec![toolgate_schema::Diagnostic {
                    path: path.clone(),
                    position: None,
                    pointer: None,
                    message: if path.is_dir() {
                        "is a folder; --manifest takes a manifest file (use --catalog for a catalog folder)".to_string()
                    } else {
                        format!("cannot read the manifest: {e}")
                    },
                }])),
            },
        }
    }
}
