//! toolgate-codegen: the code generator behind `catalog!`, a checked [`Catalog`] in, Rust
//! tokens out.
//!
//! [`generate`] is a plain function returning a [`proc_macro2::TokenStream`], so it is
//! tested here without a compiler; the proc-macro crate (`toolgate-macros`) only parses its
//! input, loads the folder with `toolgate-schema` and hands the result to the compiler. The
//! code it emits names only `toolgate-runtime` (by [`Options::runtime`]), `serde` and
//! `serde_json`. Split as serde_derive and typify are:
//!
//! - [`naming`]: Rust identifiers from JSON names, and the scopes in which two names that
//!   convert to one identifier are an error;
//! - [`types`]: one module per tool with its argument types;
//! - [`profiles`]: the `Profile` enum, one handler trait per profile (synchronous and
//!   asynchronous), dispatch, and the manifest and `tools/list` constants.
//!
//! What the generated code looks like, for a catalog with a profile `implement`:
//!
//! ```text
//! pub const SOURCES, CATALOG, SELECTOR_ENV, MANIFEST_JSON, TATARA_FORMAT_MANIFEST_JSON,
//!           FAIL_CLOSED_TOOLS_LIST_JSON, TOOL_NAMES, ALWAYS_ON, TOOLS_LISTS
//! pub mod mr_write { pub struct Args { .. } pub enum Action { .. } pub struct RefineArgs .. }
//! pub enum Profile { Implement, .. }            // + Session = runtime::Session<Profile>
//! pub trait AlwaysOnHandler { type Output; fn task_get(&self, arguments: task_get::Args) -> Self::Output; .. }
//! pub trait ImplementHandler: AlwaysOnHandler { fn mr_write(&self, arguments: mr_write::Args) -> Self::Output; .. }
//! pub trait Handler: AlwaysOnHandler + ImplementHandler + .. {}
//! pub trait AlwaysOnAsyncHandler { type Output;
//!     fn task_get(&self, context: HandlerContext<'_, Profile>, arguments: task_get::Args)
//!         -> impl Future<Output = Self::Output> + Send; .. }
//! pub trait ImplementAsyncHandler: AlwaysOnAsyncHandler { .. }   // and AsyncHandler
//! impl<H: ImplementHandler> ImplementAsyncHandler for H { .. }  // sync is async, ready at once
//! pub struct EchoHandler;                      // answers each call with its typed arguments
//! pub fn dispatch_implement(handler, tool, arguments) -> Result<Output, CallError>
//! pub fn dispatch(session, handler, tool, arguments) -> Result<Output, CallError>
//! pub async fn dispatch_implement_async(handler, context, tool, arguments) -> Result<..>
//! pub async fn dispatch_async(handler, context, tool, arguments) -> Result<..>
//! ```
//!
//! The asynchronous traits return `impl Future + Send` rather than being `async fn`s, so a
//! multi-threaded server can require the future to be sendable (an implementation may still
//! write `async fn`). Each method gets a `toolgate_runtime::HandlerContext`: the session,
//! cancellation, progress, MCP logging and requests to the client, over hooks the server
//! provides (toolgate-serve's `CallContext`). The synchronous traits and dispatch are
//! unchanged, and every synchronous handler is an asynchronous one through a blanket
//! implementation.

pub mod naming;
pub mod profiles;
pub mod types;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use toolgate_schema::diag::{Ctxt, Errors, SourceText};
use toolgate_schema::load::{Catalog, SourceFile};
use toolgate_schema::locate::Pointer;
use toolgate_schema::surface::Surface;

/// What to generate besides the defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Derive `schemars::JsonSchema` on every argument type (the invoking crate then needs
    /// `schemars`), with the constraints and `if`/`then` carried as schema extensions; the
    /// types serde's derive does not write (unions of alternatives, `const` and `enum`
    /// values) implement it by hand, as the `anyOf`/`oneOf`, `const` or `enum` they decode.
    /// Doc comments are left out of derived types in this mode, since schemars would read
    /// them as descriptions.
    pub schemars: bool,
    /// The path by which generated code names `toolgate-runtime`, written without spaces
    /// (`::toolgate_runtime` unless the invoking crate renames or re-exports it). It is used
    /// both as tokens and inside serde's string attributes (`deserialize_with`).
    pub runtime: String,
}

/// The path generated code names `toolgate-runtime` by when nothing else is said.
pub const DEFAULT_RUNTIME_PATH: &str = "::toolgate_runtime";

impl Default for Options {
    fn default() -> Options {
        Options {
            schemars: false,
            runtime: DEFAULT_RUNTIME_PATH.to_string(),
        }
    }
}

impl Options {
    /// [`Options::runtime`] as tokens.
    pub fn runtime_path(&self) -> TokenStream {
        // The path was built from tokens (or is the default), so it reads back; an
        // unreadable one falls back to the default rather than emitting nothing.
        self.runtime
            .parse()
            .unwrap_or_else(|_| quote!(::toolgate_runtime))
    }
}

/// The generator's input.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// The checked catalog.
    pub catalog: &'a Catalog,
    /// The catalog folder as messages name it (relative to the invoking crate).
    pub display: &'a Path,
    /// The catalog's files, to place errors at a line and column.
    pub sources: &'a [SourceFile],
    /// Each file read, relative to the catalog folder, and the path `include_bytes!` takes
    /// for it (absolute, so the compiler tracks it).
    pub include: &'a [(String, String)],
    /// What to generate.
    pub options: &'a Options,
}

/// A place in a catalog file: the file (relative to the catalog folder) and a JSON pointer.
#[derive(Clone, Debug)]
pub(crate) struct Loc {
    pub file: String,
    pub pointer: Pointer,
}

impl Loc {
    pub(crate) fn new(file: &str, pointer: Pointer) -> Loc {
        Loc {
            file: file.to_string(),
            pointer,
        }
    }

    pub(crate) fn key(&self, key: &str) -> Loc {
        Loc {
            file: self.file.clone(),
            pointer: self.pointer.key(key),
        }
    }

    pub(crate) fn index(&self, i: usize) -> Loc {
        Loc {
            file: self.file.clone(),
            pointer: self.pointer.index(i),
        }
    }

    pub(crate) fn prop(&self, name: &str) -> Loc {
        self.key("properties").key(name)
    }
}

/// Errors found while generating, placed in the catalog's files.
pub(crate) struct Errs {
    cx: Ctxt,
    sources: BTreeMap<String, SourceText>,
    display: PathBuf,
}

impl Errs {
    fn new(input: &Input<'_>) -> Errs {
        let sources = input
            .sources
            .iter()
            .map(|s| {
                let bytes = s
                    .bytes
                    .strip_prefix(&[0xEF, 0xBB, 0xBF])
                    .unwrap_or(&s.bytes);
                (
                    s.rel.clone(),
                    SourceText {
                        path: input.display.join(&s.rel),
                        text: String::from_utf8_lossy(bytes).into_owned(),
                    },
                )
            })
            .collect();
        Errs {
            cx: Ctxt::new(),
            sources,
            display: input.display.to_path_buf(),
        }
    }

    /// A place for errors that are thrown away: those of a generation done only to learn
    /// something about the tool (`types::defs`).
    pub(crate) fn scratch() -> Errs {
        Errs {
            cx: Ctxt::new(),
            sources: BTreeMap::new(),
            display: PathBuf::new(),
        }
    }

    pub(crate) fn at(&mut self, loc: &Loc, message: impl Into<String>) {
        match self.sources.get(&loc.file) {
            Some(source) => self.cx.at(source, &loc.pointer, message),
            None => self
                .cx
                .file(&self.display.join(&loc.file), None, message.into()),
        }
    }
}

/// Generates the Rust code of a catalog, or every error found, each naming its file,
/// JSON pointer and line:column (identifier collisions, names with nothing to make an
/// identifier of).
pub fn generate(input: &Input<'_>) -> Result<TokenStream, Errors> {
    let catalog = input.catalog;
    let options = input.options;
    let surface = Surface::from_catalog(catalog);
    let mut errs = Errs::new(input);

    let mut modules = naming::Scope::new();
    let mut tools: Vec<types::ToolOut> = Vec::new();
    for (tool, surface_tool) in catalog.tools.iter().zip(&surface.tools) {
        let file = tool
            .variants
            .first()
            .map(|v| v.file.clone())
            .unwrap_or_default();
        let loc = Loc::new(&file, Pointer::root().key("name"));
        let text = match naming::snake_ident_text(&tool.name) {
            Ok(t) => t,
            Err(why) => {
                errs.at(&loc, format!("tool name {why}"));
                continue;
            }
        };
        if let Err(first) = modules.claim(&text, &format!("`{}` ({file})", tool.name)) {
            errs.at(
                &loc,
                format!(
                    "tools {first} and `{}` ({file}) would both be the Rust module and method `{text}`; rename one",
                    tool.name
                ),
            );
            continue;
        }
        if !typable(catalog, tool, &mut errs) {
            continue;
        }
        let module: Ident = naming::ident(&text);
        tools.push(types::tool_module(
            catalog,
            tool,
            surface_tool,
            module,
            options,
            &mut errs,
        ));
    }
    let profile_items = profiles::generate(catalog, &surface, &tools, options, &mut errs);
    let sources = sources_const(input.include);
    errs.cx.finish(())?;

    let tool_tokens = tools.iter().map(|t| &t.tokens);
    Ok(quote! {
        #sources
        #(#tool_tokens)*
        #profile_items
    })
}

/// Whether every schema of `tool` is one the generator can type and check; otherwise an
/// error for each place it cannot, naming the keyword, its place and why: a `pattern` (or
/// `patternProperties` key) the `regex` crate does not compile (a lookaround, a
/// backreference), and `format` in a catalog that asserts formats. Such a catalog still
/// loads and is served with run-time validation (`toolgate serve --catalog DIR`).
fn typable(catalog: &Catalog, tool: &toolgate_schema::load::Tool, errs: &mut Errs) -> bool {
    let mut ok = true;
    let params = catalog
        .group(&tool.group)
        .map(|g| g.parameters.as_slice())
        .unwrap_or_default();
    for (name, schema, _) in params {
        for u in types::untypable(schema, catalog.assert_formats) {
            let mut pointer = Pointer::root().key("parameters").key(name).key("schema");
            pointer.0.extend(u.at.0.iter().cloned());
            errs.at(
                &Loc::new(toolgate_schema::load::MATRIX_FILE, pointer),
                format!(
                    "catalog! cannot type keyword `{}` of parameter `{name}` (added to tool `{}`): {}",
                    u.keyword, tool.name, u.why
                ),
            );
            ok = false;
        }
    }
    for variant in &tool.variants {
        for u in types::untypable(&variant.input, catalog.assert_formats) {
            let mut pointer = Pointer::root().key("inputSchema");
            pointer.0.extend(u.at.0.iter().cloned());
            errs.at(
                &Loc::new(&variant.file, pointer.clone()),
                format!(
                    "catalog! cannot type keyword `{}` of tool `{}`: {}; the catalog loads and `toolgate serve --catalog DIR` serves it",
                    u.keyword, tool.name, u.why
                ),
            );
            ok = false;
        }
    }
    ok
}

fn sources_const(include: &[(String, String)]) -> TokenStream {
    let entries = include
        .iter()
        .map(|(rel, abs)| quote!((#rel, ::core::include_bytes!(#abs) as &[u8])));
    quote! {
        /// Every file of the catalog, relative to its folder, as compiled in. The
        /// `include_bytes!` also makes the compiler rebuild this code when a file changes.
        pub const SOURCES: &[(&str, &[u8])] = &[#(#entries),*];
    }
}

#[cfg(test)]
mod tests;
