//! `catalog!`: expands a toolgate catalog folder into Rust at compile time.
//!
//! The macro is a thin shell: it finds the folder, asks `toolgate-schema` to load and check
//! it, and returns the tokens of the generator, or every catalog error at once.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

use proc_macro::TokenStream;

/// Expands the catalog folder at the given path, relative to the invoking crate's
/// `CARGO_MANIFEST_DIR`.
#[proc_macro]
pub fn catalog(input: TokenStream) -> TokenStream {
    let lit = syn::parse_macro_input!(input as syn::LitStr);
    let rel = lit.value();
    let base = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_string());
    let dir = std::path::Path::new(&base).join(&rel);
    let (sources, read_errors) = toolgate_schema::load::read_dir_sources(&dir, rel.as_ref());
    if let Some(first) = read_errors.first() {
        return syn::Error::new(lit.span(), first.to_string())
            .to_compile_error()
            .into();
    }
    let entries = sources.iter().map(|s| {
        let rel = &s.rel;
        let abs = dir.join(&s.rel).to_string_lossy().into_owned();
        quote::quote! { (#rel, include_bytes!(#abs) as &[u8]) }
    });
    quote::quote! {
        /// Every file of the catalog, relative to its folder, as compiled in.
        pub const SOURCES: &[(&str, &[u8])] = &[#(#entries),*];
    }
    .into()
}
