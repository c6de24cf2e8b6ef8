//! `catalog!`: expands a toolgate catalog folder into Rust at compile time.
//!
//! The macro is a thin shell: it finds the folder, asks `toolgate-schema` to load and check
//! it, and returns the tokens of the generator (`toolgate_codegen::generate`), or every
//! catalog error at once, each naming the file and line:column and pointed at the macro
//! call.
//!
//! ```ignore
//! pub mod tatara {
//!     toolgate_macros::catalog!("schema/tatara");
//! }
//! ```
//!
//! The path is relative to the invoking crate's `CARGO_MANIFEST_DIR`. When no folder is
//! there (trybuild, for one, compiles test cases in a crate of its own under `target/`), the
//! path is tried relative to the environment variable `TOOLGATE_CATALOG_ROOT`. Messages
//! always name files by the path as written, never by an absolute path of the machine.
//!
//! Options after the path, separated by commas:
//! - `schemars`: also implement `schemars::JsonSchema` for every argument type and the types
//!   in it, unions and constants included (the crate then needs `schemars`);
//! - `crate = path`: the path by which the generated code names `toolgate-runtime`, where the
//!   invoking crate renamed it in its `Cargo.toml` or re-exports it (as serde's
//!   `#[serde(crate = "...")]`): `catalog!("schema/demo", crate = ::my_sdk::runtime)`.
//!
//! What the loader warns about (an annotation key outside MCP's list, say) is shown as a
//! warning at the macro call, the `deprecated` lint of a constant whose note is the
//! warning: `#[allow(deprecated)]` on the module holding the call silences it.
//!
//! The generated code refers to `::toolgate_runtime` (or the `crate` path), `::serde` and
//! `::serde_json`, which the invoking crate must depend on: a proc-macro crate cannot
//! re-export them. It needs nothing of the catalog loader at run time. The compiler rebuilds it when a catalog file changes (each
//! file is read with `include_bytes!`); to see a file added or removed, give the crate a
//! `build.rs` that prints `cargo::rerun-if-changed=<catalog folder>`.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

use std::path::{Path, PathBuf};

use proc_macro::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};
use toolgate_codegen::{Input, Options, generate};
use toolgate_schema::{Diagnostic, Errors};

/// The variable naming a folder that catalog paths are tried against when they are not found
/// under `CARGO_MANIFEST_DIR`.
const ROOT_VAR: &str = "TOOLGATE_CATALOG_ROOT";

struct Args {
    path: LitStr,
    options: Options,
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let path: LitStr = input.parse()?;
        let mut options = Options::default();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            if input.peek(Token![crate]) {
                input.parse::<Token![crate]>()?;
                input.parse::<Token![=]>()?;
                let path: syn::Path = input.parse()?;
                // Path tokens are identifiers and `::`: their text without spaces is the
                // path again, usable inside serde's string attributes too.
                options.runtime = quote::quote!(#path).to_string().replace(' ', "");
                continue;
            }
            let option: Ident = input.parse()?;
            match option.to_string().as_str() {
                "schemars" => options.schemars = true,
                other => {
                    return Err(syn::Error::new(
                        option.span(),
                        format!("unknown option `{other}` (known: schemars, crate = path)"),
                    ));
                }
            }
        }
        Ok(Args { path, options })
    }
}

/// Expands the catalog folder at the given path, relative to the invoking crate's
/// `CARGO_MANIFEST_DIR` (or to `TOOLGATE_CATALOG_ROOT` when it is not found there): argument
/// types per tool, the `Profile` type and sessions, one handler trait per profile, dispatch,
/// and the manifest and `tools/list` constants. See the crate documentation.
#[proc_macro]
pub fn catalog(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    match expand(&args) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn catalog_dir(rel: &str) -> PathBuf {
    let base = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let dir = base.join(rel);
    if !dir.exists()
        && let Some(root) = std::env::var_os(ROOT_VAR)
    {
        let alt = Path::new(&root).join(rel);
        if alt.exists() {
            return alt;
        }
    }
    dir
}

fn errors_at(span: proc_macro2::Span, errors: &[Diagnostic]) -> syn::Error {
    let mut all: Option<syn::Error> = None;
    for d in errors {
        let e = syn::Error::new(span, d.to_string());
        match &mut all {
            Some(a) => a.combine(e),
            None => all = Some(e),
        }
    }
    all.unwrap_or_else(|| syn::Error::new(span, "the catalog could not be loaded"))
}

fn expand(args: &Args) -> syn::Result<proc_macro2::TokenStream> {
    let span = args.path.span();
    let rel = args.path.value();
    let dir = catalog_dir(&rel);
    let display = Path::new(&rel);
    let (sources, mut read_errors) = toolgate_schema::load::read_dir_sources(&dir, display);
    let catalog = match toolgate_schema::load_sources(display, sources.clone()) {
        Ok(c) if read_errors.is_empty() => c,
        Ok(_) => return Err(errors_at(span, &Errors(read_errors).sorted().0)),
        Err(Errors(mut errors)) => {
            errors.append(&mut read_errors);
            return Err(errors_at(span, &Errors(errors).sorted().0));
        }
    };
    let abs = std::path::absolute(&dir).unwrap_or_else(|_| dir.clone());
    let include: Vec<(String, String)> = sources
        .iter()
        .map(|s| {
            (
                s.rel.clone(),
                abs.join(&s.rel).to_string_lossy().into_owned(),
            )
        })
        .collect();
    let input = Input {
        catalog: &catalog,
        display,
        sources: &sources,
        include: &include,
        options: &args.options,
    };
    let tokens = generate(&input).map_err(|Errors(errors)| errors_at(span, &errors))?;
    let warnings = warnings_at(span, &catalog.warnings);
    Ok(quote::quote! {
        #warnings
        #tokens
    })
}

/// The loader's warnings (an annotation key outside MCP's list, a default its schema
/// refuses, ...) as compiler warnings at the macro call. Stable Rust lets a proc macro emit
/// only errors, so each warning is the note of a `#[deprecated]` constant that a `const _`
/// uses, spanned at the catalog path: the compiler reports the use as a `deprecated`
/// warning, which `#[allow(deprecated)]` on the module holding the call silences (as CI's
/// `clippy -D warnings` needs, once a warning is known and accepted).
fn warnings_at(span: proc_macro2::Span, warnings: &[Diagnostic]) -> proc_macro2::TokenStream {
    let items = warnings.iter().enumerate().map(|(i, d)| {
        let name = quote::format_ident!("toolgate_catalog_warning_{}", i, span = span);
        let note = format!("catalog warning: {d}");
        quote::quote_spanned! {span=>
            const _: () = {
                #[deprecated(note = #note)]
                #[allow(non_upper_case_globals)]
                const #name: () = ();
                #name
            };
        }
    });
    quote::quote!(#(#items)*)
}
