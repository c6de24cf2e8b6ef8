//! Rebuild when a file is added to or removed from a bundled catalog: `include_bytes!` only
//! tracks the files that existed at the last build.
fn main() {
    for dir in [
        "../schema/tatara",
        "../schema/tatara/tools",
        "../schema/maetra",
        "../schema/maetra/tools",
    ] {
        println!("cargo::rerun-if-changed={dir}");
    }
}
