//! What several fuzz targets share (a module of each, not a target).

use std::sync::OnceLock;

use toolgate_schema::Surface;

/// The run-time surfaces of the bundled catalogs, `[tatara, maetra]`, loaded once.
pub fn surfaces() -> &'static [Surface; 2] {
    static SURFACES: OnceLock<[Surface; 2]> = OnceLock::new();
    SURFACES.get_or_init(|| {
        let load = |name: &str| {
            let catalog = toolgate_generated::load_bundled(name)
                .expect("bundled")
                .expect("the bundled catalog loads");
            Surface::from_catalog(&catalog)
        };
        [load("tatara"), load("maetra")]
    })
}
