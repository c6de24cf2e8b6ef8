//! Rebuild when a file is added to or removed from a bundled catalog: `include_bytes!` only
//! tracks the files that existed at the last build. `catalogs/tatara` and `catalogs/maetra`
//! are links to `../schema/`, followed by cargo when it packages the crate.
fn main() {
    for dir in [
        "catalogs/tatara",
        "catalogs/tatara/tools",
        "catalogs/maetra",
        "catalogs/maetra/tools",
    ] {
        println!("cargo::rerun-if-changed={dir}");
    }
}
