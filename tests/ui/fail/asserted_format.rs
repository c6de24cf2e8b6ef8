//! A catalog that asserts formats (`assert_formats`) and has a `format` fails the build with
//! an error naming the keyword and its place: generated code has no format checks, so it
//! would accept what the served validator refuses.

mod asserted {
    toolgate_macros::catalog!("tests/ui/catalogs/asserted");
}

fn main() {}
