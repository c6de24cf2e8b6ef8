//! The generator, tested on token text: no compiler needed.

use std::path::{Path, PathBuf};

use super::{Input, Options, generate};
use crate::load::{SourceFile, load_sources, read_dir_sources};

fn bundled(name: &str) -> (crate::Catalog, Vec<SourceFile>, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    let display = PathBuf::from("schema").join(name);
    let (sources, errors) = read_dir_sources(&dir, &display);
    assert!(errors.is_empty(), "{errors:?}");
    let catalog = load_sources(&display, sources.clone()).expect("bundled catalog loads");
    (catalog, sources, display)
}

fn expand(name: &str) -> String {
    let (catalog, sources, display) = bundled(name);
    let input = Input {
        catalog: &catalog,
        display: &display,
        sources: &sources,
        include: &[],
        options: Options::default(),
    };
    match generate(&input) {
        Ok(tokens) => tokens.to_string(),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn tatara_expands() {
    let text = expand("tatara");
    assert!(text.contains("pub struct RefineArgs"), "{text}");
}

/// `TOOLGATE_DUMP=dir cargo test -p toolgate-schema --features codegen dump` writes the
/// expansions (format them with rustfmt to read them).
#[test]
fn dump() {
    if let Some(dir) = std::env::var_os("TOOLGATE_DUMP") {
        for name in ["tatara", "maetra"] {
            std::fs::write(Path::new(&dir).join(format!("{name}.rs")), expand(name)).unwrap();
        }
    }
}
