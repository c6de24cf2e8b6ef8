//! The README's example of a real handler is `examples/secure_server.rs`, word for word:
//! cargo builds the example, so the README cannot show code that does not compile.

#[test]
fn the_readme_shows_the_example_as_it_is() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../README.md")).expect("README.md");
    let example =
        std::fs::read_to_string(root.join("examples/secure_server.rs")).expect("the example");
    let marker = "<!-- serve/examples/secure_server.rs -->\n```rust\n";
    let start = readme
        .find(marker)
        .map(|i| i + marker.len())
        .expect("the README marks the example");
    let len = readme[start..]
        .find("```\n")
        .expect("the example's code block ends");
    assert_eq!(
        &readme[start..start + len],
        example,
        "README.md's copy of serve/examples/secure_server.rs differs from the file: paste the file into the README"
    );
}
