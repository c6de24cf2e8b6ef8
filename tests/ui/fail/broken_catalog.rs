//! A catalog with broken files fails the build with every error at once, each naming the
//! file (as written, relative to the crate) and the line:column, at the macro call.

mod broken {
    toolgate_macros::catalog!("tests/ui/catalogs/broken");
}

fn main() {}
