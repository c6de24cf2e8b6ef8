//! A catalog that loads (run-time validation serves it) but uses keywords `catalog!` cannot
//! type yet fails the build with an error naming each keyword and its place.

mod untyped {
    toolgate_macros::catalog!("tests/ui/catalogs/untyped");
}

fn main() {}
