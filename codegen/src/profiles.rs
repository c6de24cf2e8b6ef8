//! Profiles, handler traits, dispatch, and the manifest and `tools/list` constants.
//!
//! Each profile gets a trait with exactly the tools it is granted besides the always-on ones
//! (those live in `AlwaysOnHandler`, its supertrait, written once): a server for that profile
//! that leaves a tool out does not compile, and the argument type of each method is the one
//! the profile is served, so refine's `mr_write` takes the narrower restricted type.
//!
//! Each trait has an asynchronous twin (`AlwaysOnAsyncHandler`, `RefineAsyncHandler`, ...):
//! the same methods, each given the call's `HandlerContext` and returning `impl Future +
//! Send`, with a blanket implementation for every synchronous handler (its answer ready at
//! once) and `dispatch_*_async` functions that parse exactly as the synchronous ones.
//!
//! Dispatch matches the tool name against the profile's tools only: a tool that exists but
//! is not granted falls through to the same `CallError::UnknownTool` as a name that exists
//! nowhere. The constants are written by the same functions as the run-time path
//! ([`Surface::manifest_json`], [`Surface::tools_list_json`], [`to_pretty`]), so the bytes
//! are the same.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::naming::{Scope, camel_ident_text, ident, snake};
use super::types::{ToolOut, TypeRef};
use super::{Errs, Loc, Options};
use toolgate_schema::json::to_pretty;
use toolgate_schema::load::{Catalog, MATRIX_FILE};
use toolgate_schema::locate::Pointer;
use toolgate_schema::surface::{Entry, Surface, SurfaceTool, served_tool_json};

/// Up to this many profiles, a combining catalog gets a compiled-in `tools/list` for every
/// combination (2^6 - 1 = 63 lists); past it, combinations are built at run time from the
/// manifest constant by the same writer.
const MAX_COMBINED_PROFILES: usize = 6;

struct ProfileNames {
    name: String,
    variant: Ident,
    snake: String,
}

struct Method<'a> {
    /// The path of `toolgate-runtime` ([`Options::runtime_path`]).
    rt: &'a TokenStream,
    tool: &'a ToolOut,
    ty: TypeRef,
    entry: &'a Entry,
}

fn method_tokens(m: &Method<'_>) -> TokenStream {
    let module = &m.tool.module;
    let ty = m.ty.elided();
    let doc = format!("`{}`: {}", m.tool.name, m.entry.description);
    quote! {
        #[doc = #doc]
        fn #module(&self, arguments: #module::#ty) -> Self::Output;
    }
}

/// The method of `m` in an asynchronous handler trait: the call's context, the arguments,
/// a future of the output.
fn async_method_tokens(m: &Method<'_>) -> TokenStream {
    let module = &m.tool.module;
    let ty = m.ty.elided();
    let rt = m.rt;
    let doc = format!("`{}`: {}", m.tool.name, m.entry.description);
    quote! {
        #[doc = #doc]
        fn #module(
            &self,
            context: #rt::HandlerContext<'_, Profile>,
            arguments: #module::#ty,
        ) -> impl ::core::future::Future<Output = Self::Output> + ::core::marker::Send;
    }
}

/// The method of `m` in the blanket implementation that makes a synchronous handler an
/// asynchronous one: the sync method's output, ready at once.
fn ready_tokens(sync_trait: &Ident, m: &Method<'_>) -> TokenStream {
    let module = &m.tool.module;
    let ty = m.ty.elided();
    let rt = m.rt;
    quote! {
        #[inline]
        fn #module(
            &self,
            _context: #rt::HandlerContext<'_, Profile>,
            arguments: #module::#ty,
        ) -> impl ::core::future::Future<Output = <H as AlwaysOnHandler>::Output> + ::core::marker::Send {
            ::core::future::ready(<H as #sync_trait>::#module(self, arguments))
        }
    }
}

/// The asynchronous call of `m` through `trait_ident`: parsed as the profile's type, then
/// the handler's future awaited.
fn async_arm_tokens(trait_ident: &Ident, m: &Method<'_>) -> TokenStream {
    let module = &m.tool.module;
    let name = &m.tool.name;
    let ty = m.ty.with_a();
    let rt = m.rt;
    quote! {
        #name => match #rt::RawArguments::handle(
            arguments,
            |arguments: #module::#ty| <H as #trait_ident>::#module(handler, context, arguments),
        ) {
            ::core::result::Result::Ok(future) => ::core::result::Result::Ok(future.await),
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        }
    }
}

fn echo_tokens(m: &Method<'_>) -> TokenStream {
    let module = &m.tool.module;
    let ty = m.ty.elided();
    let name = &m.tool.name;
    let rt = m.rt;
    quote! {
        fn #module(&self, arguments: #module::#ty) -> ::serde_json::Value {
            #rt::echo(#name, &arguments)
        }
    }
}

/// The call of `m` through `trait_ident`, its arguments parsed as the profile's type.
fn call_tokens(trait_ident: &Ident, m: &Method<'_>) -> TokenStream {
    let module = &m.tool.module;
    // The dispatch function's own `'a` (that of the raw arguments), not a fresh lifetime
    // per arm: one region for the whole match keeps type and borrow checking linear.
    let ty = m.ty.with_a();
    let rt = m.rt;
    quote! {
        #rt::RawArguments::handle(
            arguments,
            |arguments: #module::#ty| <H as #trait_ident>::#module(handler, arguments),
        )
    }
}

fn arm_tokens(trait_ident: &Ident, m: &Method<'_>) -> TokenStream {
    let name = &m.tool.name;
    let call = call_tokens(trait_ident, m);
    quote!(#name => #call)
}

fn method_for<'a>(
    rt: &'a TokenStream,
    tools: &'a [ToolOut],
    surface_tool: &'a SurfaceTool,
    entry_index: usize,
) -> Option<Method<'a>> {
    let tool = tools.iter().find(|t| t.name == surface_tool.name)?;
    Some(Method {
        rt,
        tool,
        ty: tool.entry_types.get(entry_index)?.clone(),
        entry: surface_tool.entries.get(entry_index)?,
    })
}

/// The entries of `toolgate_runtime::ServedEntry` for every tool of the surface, written by
/// the same writer as the `tools/list` constants, so a composed list equals a constant one.
fn served_entries(rt: &TokenStream, surface: &Surface, names: &[ProfileNames]) -> Vec<TokenStream> {
    let mut out = Vec::new();
    for (i, tool) in surface.tools.iter().enumerate() {
        let index = i as u32;
        let always_on = tool.always_on;
        for entry in &tool.entries {
            let mask: u64 = names
                .iter()
                .enumerate()
                .filter(|(_, p)| entry.profiles.contains(&p.name))
                .fold(0, |m, (bit, _)| {
                    m | 1u64.checked_shl(bit as u32).unwrap_or(0)
                });
            let pretty = to_pretty(&served_tool_json(tool, entry));
            // An element of `"tools": [...]` sits two levels deep: four more spaces a line.
            let json = pretty.trim_end().replace('\n', "\n    ");
            out.push(quote! {
                #rt::ServedEntry { tool: #index, mask: #mask, always_on: #always_on, json: #json }
            });
        }
    }
    out
}

/// What every item of the profile code is written from: the catalog, its surface, the tool
/// modules already generated, and the profiles' Rust names.
struct Ctx<'a> {
    /// The path of `toolgate-runtime` ([`Options::runtime_path`]).
    rt: &'a TokenStream,
    catalog: &'a Catalog,
    surface: &'a Surface,
    tools: &'a [ToolOut],
    names: Vec<ProfileNames>,
}

/// What one profile contributes: its two traits, its two dispatch functions, its echo impl,
/// and what the items shared by every profile (constants, `Profile`, `dispatch`) read from it.
struct ProfileOut<'a> {
    trait_ident: Ident,
    async_trait_ident: Ident,
    fn_ident: Ident,
    async_fn_ident: Ident,
    methods: Vec<Method<'a>>,
    trait_tokens: TokenStream,
    async_trait_tokens: TokenStream,
    echo_impl: TokenStream,
    dispatcher: TokenStream,
    async_dispatcher: TokenStream,
    tools_list: String,
    tool_names: Vec<String>,
}

/// The profile items of a catalog.
pub(crate) fn generate(
    catalog: &Catalog,
    surface: &Surface,
    tools: &[ToolOut],
    options: &Options,
    errs: &mut Errs,
) -> TokenStream {
    let rt = &options.runtime_path();
    let names = profile_names(catalog, errs);
    let cx = Ctx {
        rt,
        catalog,
        surface,
        tools,
        names,
    };
    let always_on = always_on_methods(&cx);
    let profiles: Vec<ProfileOut<'_>> = cx
        .names
        .iter()
        .map(|p| profile_items(&cx, p, &always_on))
        .collect();
    let constants = constants(&cx, &profiles);
    let profile_enum = profile_enum(&cx, &profiles);
    let argument_types = argument_types(rt, tools, options);
    let handlers = handler_traits(&cx, options, &always_on, &profiles);
    let dispatch = dispatch_functions(&cx, &always_on, &profiles);
    quote! {
        #constants
        #profile_enum
        #argument_types
        #handlers
        #dispatch
    }
}

/// The profiles' Rust names (`Profile` variants, trait prefixes, `dispatch_` suffixes), each
/// claimed once: a profile whose name makes no identifier, or the same one as another's, is
/// an error at its place in the matrix and gets no items.
fn profile_names(catalog: &Catalog, errs: &mut Errs) -> Vec<ProfileNames> {
    let mut scope = Scope::new();
    scope.claim("AlwaysOn", "the always-on tools").ok();
    scope.claim("Echo", "the echo handler").ok();
    let mut names: Vec<ProfileNames> = Vec::new();
    if catalog.profiles.len() > 64 {
        errs.at(
            &Loc::new(MATRIX_FILE, Pointer::root().key("profiles")),
            format!(
                "{} profiles: the generated code supports at most 64",
                catalog.profiles.len()
            ),
        );
    }
    for p in &catalog.profiles {
        let loc = Loc::new(MATRIX_FILE, Pointer::root().key("profiles").key(&p.name));
        let camel = match camel_ident_text(&p.name) {
            Ok(c) => c,
            Err(why) => {
                errs.at(&loc, format!("profile name {why}"));
                continue;
            }
        };
        if let Err(first) = scope.claim(&camel, &format!("profile `{}`", p.name)) {
            errs.at(
                &loc,
                format!(
                    "{first} and profile `{}` would both be the Rust name `{camel}` (`{camel}Handler`); rename one",
                    p.name
                ),
            );
            continue;
        }
        names.push(ProfileNames {
            name: p.name.clone(),
            variant: ident(&camel),
            // `dispatch_` goes in front, so digits and keywords need no escape.
            snake: snake(&p.name),
        });
    }
    names
}

/// The always-on tools: one schema each, seen by every session, so written once in the
/// supertrait of every profile's trait.
fn always_on_methods<'a>(cx: &Ctx<'a>) -> Vec<Method<'a>> {
    cx.surface
        .tools
        .iter()
        .filter(|t| t.always_on)
        .filter_map(|t| method_for(cx.rt, cx.tools, t, 0))
        .collect()
}

/// The methods of profile `p`'s trait: each tool it is granted besides the always-on ones,
/// typed as the entry the profile is served.
fn profile_methods<'a>(cx: &Ctx<'a>, p: &ProfileNames) -> Vec<Method<'a>> {
    cx.surface
        .tools
        .iter()
        .filter(|t| !t.always_on)
        .filter_map(|t| {
            let i = t
                .entries
                .iter()
                .position(|e| e.profiles.contains(&p.name))?;
            method_for(cx.rt, cx.tools, t, i)
        })
        .collect()
}

/// The matrix's one line about profile `name`.
fn profile_description(catalog: &Catalog, name: &str) -> String {
    catalog
        .profiles
        .iter()
        .find(|q| q.name == name)
        .map(|q| q.description.clone())
        .unwrap_or_default()
}

/// Everything profile `p` contributes (see [`ProfileOut`]).
fn profile_items<'a>(cx: &Ctx<'a>, p: &ProfileNames, always_on: &[Method<'_>]) -> ProfileOut<'a> {
    let variant = p.variant.to_string();
    let variant = variant.trim_start_matches("r#");
    let trait_ident = format_ident!("{}Handler", variant);
    let async_trait_ident = format_ident!("{}AsyncHandler", variant);
    let fn_ident = format_ident!("dispatch_{}", p.snake);
    let async_fn_ident = format_ident!("dispatch_{}_async", p.snake);
    let methods = profile_methods(cx, p);
    let echoes = methods.iter().map(echo_tokens);
    let echo_impl = quote! {
        impl #trait_ident for EchoHandler {
            #(#echoes)*
        }
    };
    let trait_tokens = profile_trait(cx.catalog, p, &trait_ident, &methods);
    let async_trait_tokens = async_profile_trait(p, &trait_ident, &async_trait_ident, &methods);
    let async_dispatcher = profile_async_dispatcher(
        cx.rt,
        p,
        &async_trait_ident,
        &async_fn_ident,
        &methods,
        always_on,
    );
    let dispatcher = profile_dispatcher(cx.rt, p, &trait_ident, &fn_ident, &methods, always_on);
    let session = cx.surface.resolve(&p.name);
    let tools_list = to_pretty(&cx.surface.tools_list_json(&session));
    let tool_names = cx
        .surface
        .served(&session)
        .iter()
        .map(|s| s.tool.name.clone())
        .collect::<Vec<_>>();
    ProfileOut {
        trait_ident,
        async_trait_ident,
        fn_ident,
        async_fn_ident,
        methods,
        trait_tokens,
        async_trait_tokens,
        echo_impl,
        dispatcher,
        async_dispatcher,
        tools_list,
        tool_names,
    }
}

/// Profile `p`'s handler trait, its doc listing the tools (and which are restricted).
fn profile_trait(
    catalog: &Catalog,
    p: &ProfileNames,
    trait_ident: &Ident,
    methods: &[Method<'_>],
) -> TokenStream {
    let listed: Vec<String> = methods
        .iter()
        .map(|m| {
            let restricted = if m.entry.restricted.is_empty() {
                String::new()
            } else {
                " (restricted)".to_string()
            };
            format!("`{}`{restricted}", m.tool.name)
        })
        .collect();
    let description = profile_description(catalog, &p.name);
    let doc = format!(
        "A server for profile `{}` ({description}): the tools it is granted besides the always-on ones, {}.",
        p.name,
        if listed.is_empty() {
            "none".to_string()
        } else {
            listed.join(", ")
        }
    );
    let method_tokens = methods.iter().map(method_tokens);
    quote! {
        #[doc = #doc]
        pub trait #trait_ident: AlwaysOnHandler {
            #(#method_tokens)*
        }
    }
}

/// Profile `p`'s asynchronous trait, and the blanket impl making each of its synchronous
/// handlers one.
fn async_profile_trait(
    p: &ProfileNames,
    trait_ident: &Ident,
    async_trait_ident: &Ident,
    methods: &[Method<'_>],
) -> TokenStream {
    let async_methods = methods.iter().map(async_method_tokens);
    let readies = methods.iter().map(|m| ready_tokens(trait_ident, m));
    let async_doc = format!(
        "[`{trait_ident}`] with asynchronous methods, each given the call's context: what a server for profile `{}` implements when its handlers wait (databases, APIs, the client). Every [`{trait_ident}`] is one, its answers ready at once.",
        p.name
    );
    quote! {
        #[doc = #async_doc]
        pub trait #async_trait_ident: AlwaysOnAsyncHandler {
            #(#async_methods)*
        }

        impl<H: #trait_ident + ?Sized> #async_trait_ident for H
        where
            <H as AlwaysOnHandler>::Output: ::core::marker::Send,
        {
            #(#readies)*
        }
    }
}

/// Whether a dispatch function is synchronous or its asynchronous twin: what differs in
/// their signatures (the context, `async`, the handler's trait, `Sync` and `Send` bounds).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavor {
    Sync,
    Async,
}

/// A dispatch function: one signature for every dispatch function of a flavor, so the four
/// kinds (always-on, per profile, by session, each sync and async) cannot drift apart.
/// `doc` is its doc attributes, `before` what comes before `handler` in its parameters, and
/// `bound` the handler's trait.
fn dispatch_fn(
    rt: &TokenStream,
    flavor: Flavor,
    doc: TokenStream,
    name: &Ident,
    before: TokenStream,
    bound: TokenStream,
    body: TokenStream,
) -> TokenStream {
    match flavor {
        Flavor::Sync => quote! {
            #doc
            pub fn #name<'a, H, A>(
                #before
                handler: &H,
                tool: &str,
                arguments: A,
            ) -> ::core::result::Result<<H as AlwaysOnHandler>::Output, #rt::CallError>
            where
                H: #bound + ?Sized,
                A: #rt::RawArguments<'a>,
            {
                #body
            }
        },
        Flavor::Async => quote! {
            #doc
            pub async fn #name<'a, H, A>(
                #before
                handler: &H,
                context: #rt::HandlerContext<'_, Profile>,
                tool: &str,
                arguments: A,
            ) -> ::core::result::Result<<H as AlwaysOnAsyncHandler>::Output, #rt::CallError>
            where
                H: #bound + ::core::marker::Sync + ?Sized,
                A: #rt::RawArguments<'a> + ::core::marker::Send,
            {
                #body
            }
        },
    }
}

/// A `match` on the tool name over `arms`, any other name an unknown tool.
fn tool_match(rt: &TokenStream, arms: impl Iterator<Item = TokenStream>) -> TokenStream {
    quote! {
        match tool {
            #(#arms,)*
            _ => ::core::result::Result::Err(#rt::CallError::unknown_tool(tool)),
        }
    }
}

/// `dispatch_<profile>`: the profile's tools, then the always-on ones.
fn profile_dispatcher(
    rt: &TokenStream,
    p: &ProfileNames,
    trait_ident: &Ident,
    fn_ident: &Ident,
    methods: &[Method<'_>],
    always_on: &[Method<'_>],
) -> TokenStream {
    let fn_doc = format!(
        "Calls `tool` of profile `{}` on `handler`. A tool the profile is not granted is answered exactly as an unknown one; arguments that do not match the schema served to `{}` are refused with a message naming the field.",
        p.name, p.name
    );
    let always_trait = format_ident!("AlwaysOnHandler");
    let arms = methods
        .iter()
        .map(|m| arm_tokens(trait_ident, m))
        .chain(always_on.iter().map(|m| arm_tokens(&always_trait, m)));
    dispatch_fn(
        rt,
        Flavor::Sync,
        quote!(#[doc = #fn_doc]),
        fn_ident,
        quote!(),
        quote!(#trait_ident),
        tool_match(rt, arms),
    )
}

/// `dispatch_<profile>_async`: as [`profile_dispatcher`], the handler's future awaited.
fn profile_async_dispatcher(
    rt: &TokenStream,
    p: &ProfileNames,
    async_trait_ident: &Ident,
    async_fn_ident: &Ident,
    methods: &[Method<'_>],
    always_on: &[Method<'_>],
) -> TokenStream {
    let async_fn_doc = format!(
        "[`dispatch_{}`] for an asynchronous handler: the arguments checked and typed as there, then the handler's future awaited with the call's `context`.",
        p.snake
    );
    let always_async_trait = format_ident!("AlwaysOnAsyncHandler");
    let arms = methods
        .iter()
        .map(|m| async_arm_tokens(async_trait_ident, m))
        .chain(
            always_on
                .iter()
                .map(|m| async_arm_tokens(&always_async_trait, m)),
        );
    dispatch_fn(
        rt,
        Flavor::Async,
        quote!(#[doc = #async_fn_doc]),
        async_fn_ident,
        quote!(),
        quote!(#async_trait_ident),
        tool_match(rt, arms),
    )
}

/// The constants: catalog name, selector, manifests, every `tools/list` and served entry,
/// from the same writers as the run-time path.
fn constants(cx: &Ctx<'_>, profiles: &[ProfileOut<'_>]) -> TokenStream {
    let surface = cx.surface;
    let rt = cx.rt;
    let manifest = to_pretty(&surface.manifest_json());
    let tatara_manifest = to_pretty(&surface.tatara_manifest_json());
    let fail_closed_session = toolgate_schema::surface::Session {
        profiles: Vec::new(),
        fail_closed: true,
        warning: None,
    };
    let fail_closed_list = to_pretty(&surface.tools_list_json(&fail_closed_session));
    let served = served_entries(rt, surface, &cx.names);
    let catalog_name = &cx.catalog.name;
    let env = &cx.catalog.selector.env;
    let tool_names: Vec<&str> = surface.tools.iter().map(|t| t.name.as_str()).collect();
    let always_list = &surface.fail_closed;
    let n = cx.names.len();
    let tools_lists = profiles.iter().map(|p| &p.tools_list);
    let profile_names: Vec<&str> = cx.names.iter().map(|p| p.name.as_str()).collect();
    let indices: Vec<usize> = (0..n).collect();
    let catalog_doc = format!("The catalog's name, `{catalog_name}`.");
    let env_doc = format!("The environment variable a server reads its profile from, `{env}`.");
    quote! {
        #[doc = #catalog_doc]
        pub const CATALOG: &str = #catalog_name;
        #[doc = #env_doc]
        pub const SELECTOR_ENV: &str = #env;
        /// The toolgate manifest (`toolgate manifest`), pretty-printed, byte for byte what
        /// `toolgate-schema` writes at run time.
        pub const MANIFEST_JSON: &str = #manifest;
        /// The manifest in the format of `tatara tool-manifest` (`toolgate manifest --format
        /// tatara`): tool names and top-level enum values.
        pub const TATARA_FORMAT_MANIFEST_JSON: &str = #tatara_manifest;
        /// The `tools/list` of the fail-closed session (an empty or unknown profile).
        pub const FAIL_CLOSED_TOOLS_LIST_JSON: &str = #fail_closed_list;
        /// Every tool name, sorted.
        pub const TOOL_NAMES: &[&str] = &[#(#tool_names),*];
        /// The tools every session sees, the fail-closed one included, sorted.
        pub const ALWAYS_ON: &[&str] = &[#(#always_list),*];
        const TOOLS_LIST_BY_PROFILE: [&str; #n] = [#(#tools_lists),*];
        /// Each profile's name and its `tools/list`, in declared order.
        pub const TOOLS_LISTS: &[(&str, &str)] = &[#((#profile_names, TOOLS_LIST_BY_PROFILE[#indices])),*];
        /// Every schema a tool is served, for the sessions without a compiled-in
        /// `tools/list` (`runtime::compose_tools_list`).
        const SERVED: &[#rt::ServedEntry] = &[#(#served),*];
    }
}

/// The arms of `CatalogProfile::tools_list_for_mask`: the fail-closed list, each profile's,
/// and, for a combining catalog of few profiles, every combination's.
fn mask_arms(cx: &Ctx<'_>) -> Vec<TokenStream> {
    let names = &cx.names;
    let mut mask_arms =
        vec![quote!(0 => ::core::option::Option::Some(FAIL_CLOSED_TOOLS_LIST_JSON))];
    for i in 0..names.len().min(64) {
        let mask = 1u64 << i;
        mask_arms.push(quote!(#mask => ::core::option::Option::Some(TOOLS_LIST_BY_PROFILE[#i])));
    }
    if cx.catalog.selector.combine && names.len() <= MAX_COMBINED_PROFILES {
        for mask in 1u64..(1u64 << names.len()) {
            if mask.count_ones() < 2 {
                continue;
            }
            let chosen: Vec<&str> = names
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, p)| p.name.as_str())
                .collect();
            let session = cx.surface.resolve(&chosen.join(","));
            let text = to_pretty(&cx.surface.tools_list_json(&session));
            mask_arms.push(quote!(#mask => ::core::option::Option::Some(#text)));
        }
    }
    mask_arms
}

/// The `Profile` enum, its methods, its `CatalogProfile` impl, and the `Session` alias.
fn profile_enum(cx: &Ctx<'_>, profiles: &[ProfileOut<'_>]) -> TokenStream {
    let catalog_name = &cx.catalog.name;
    let env = &cx.catalog.selector.env;
    let variants: Vec<&Ident> = cx.names.iter().map(|p| &p.variant).collect();
    let profile_names: Vec<&str> = cx.names.iter().map(|p| p.name.as_str()).collect();
    let profile_docs: Vec<String> = cx
        .names
        .iter()
        .map(|p| profile_description(cx.catalog, &p.name))
        .collect();
    let indices: Vec<usize> = (0..cx.names.len()).collect();
    let per_profile_names = profiles.iter().map(|p| {
        let ns = &p.tool_names;
        quote!(&[#(#ns),*])
    });
    let catalog_profile = catalog_profile_impl(cx, &variants, &indices);
    let profile_enum_doc = format!(
        "The profiles of `{catalog_name}`, in declared order. A session is resolved from a string or from `{env}` with [`Session::resolve`] and [`Session::from_env`], failing closed."
    );
    quote! {
        #[doc = #profile_enum_doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Profile {
            #(#[doc = #profile_docs] #variants,)*
        }

        impl Profile {
            /// Every profile, in declared order.
            pub const ALL: &'static [Profile] = &[#(Profile::#variants),*];

            /// The profile's name in the matrix.
            pub const fn name(self) -> &'static str {
                match self {
                    #(Profile::#variants => #profile_names,)*
                }
            }

            /// The matrix's one line about the profile.
            pub const fn description(self) -> &'static str {
                match self {
                    #(Profile::#variants => #profile_docs,)*
                }
            }

            /// The profile named exactly `name` (no fail-closed fallback: see
            /// [`Session::resolve`] for that).
            pub fn from_name(name: &str) -> ::core::option::Option<Profile> {
                match name {
                    #(#profile_names => ::core::option::Option::Some(Profile::#variants),)*
                    _ => ::core::option::Option::None,
                }
            }

            /// The MCP `tools/list` result this profile is served, pretty-printed, as
            /// `toolgate tools-list` prints it.
            pub const fn tools_list_json(self) -> &'static str {
                match self {
                    #(Profile::#variants => TOOLS_LIST_BY_PROFILE[#indices],)*
                }
            }

            /// The names of the tools this profile is served, sorted.
            pub const fn tool_names(self) -> &'static [&'static str] {
                match self {
                    #(Profile::#variants => #per_profile_names,)*
                }
            }
        }

        #catalog_profile
    }
}

/// `Display` for `Profile`, its `CatalogProfile` impl (what the runtime's sessions and
/// composed lists read), and the `Session` alias.
fn catalog_profile_impl(cx: &Ctx<'_>, variants: &[&Ident], indices: &[usize]) -> TokenStream {
    let rt = cx.rt;
    let combine = cx.catalog.selector.combine;
    let mask_arms = mask_arms(cx);
    quote! {
        impl ::core::fmt::Display for Profile {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl #rt::CatalogProfile for Profile {
            const ALL: &'static [Profile] = Profile::ALL;
            const SELECTOR_ENV: &'static str = SELECTOR_ENV;
            const COMBINE: bool = #combine;
            const ALWAYS_ON: &'static [&'static str] = ALWAYS_ON;
            const SERVED: &'static [#rt::ServedEntry] = SERVED;

            fn name(self) -> &'static str {
                Profile::name(self)
            }

            fn index(self) -> usize {
                match self {
                    #(Profile::#variants => #indices,)*
                }
            }

            fn tools_list_for_mask(mask: u64) -> ::core::option::Option<&'static str> {
                match mask {
                    #(#mask_arms,)*
                    _ => ::core::option::Option::None,
                }
            }
        }

        /// A resolved session of this catalog: the profiles it sees, or none when it failed
        /// closed (with the warning to print).
        pub type Session = #rt::Session<Profile>;
    }
}

/// `ARGUMENT_TYPES` (every argument type with its tool, profiles and schema) and, with
/// `schemars`, `argument_json_schemas`.
fn argument_types(rt: &TokenStream, tools: &[ToolOut], options: &Options) -> TokenStream {
    let mut argument_types = Vec::new();
    let mut json_schemas = Vec::new();
    for t in tools {
        let module = &t.module;
        for (ty_ref, profiles) in &t.argument_types {
            let name = &t.name;
            let type_name = format!(
                "{}::{}",
                module.to_string().trim_start_matches("r#"),
                ty_ref.ident.to_string().trim_start_matches("r#")
            );
            let ty = ty_ref.elided();
            let owned = ty_ref.owned();
            argument_types.push(quote! {
                #rt::ArgumentType {
                    tool: #name,
                    type_name: #type_name,
                    profiles: &[#(#profiles),*],
                    input_schema_json: <#module::#owned as #rt::ToolArgs>::INPUT_SCHEMA_JSON,
                    parse: |arguments| #rt::parse_to_json::<#module::#ty>(arguments),
                    compare_direct: |text| #rt::direct::compare::<#module::#ty>(text),
                }
            });
            json_schemas.push(quote!((#type_name, ::schemars::schema_for!(#module::#owned))));
        }
    }
    let json_schemas_fn = if options.schemars {
        quote! {
            /// The JSON Schema that schemars derives from each argument type, by the type's
            /// name in [`ARGUMENT_TYPES`].
            pub fn argument_json_schemas() -> ::std::vec::Vec<(&'static str, ::schemars::Schema)> {
                ::std::vec![#(#json_schemas),*]
            }
        }
    } else {
        quote!()
    };
    quote! {
        /// Every argument type, with its tool, the profiles it is served to and its input
        /// schema, in tool order: for checks that go over all of them.
        pub const ARGUMENT_TYPES: &[#rt::ArgumentType] = &[#(#argument_types),*];

        #json_schemas_fn
    }
}

/// The doc of `AlwaysOnHandler`, naming the always-on tools.
fn always_on_doc(always_list: &[String]) -> String {
    format!(
        "The tools every session sees, the fail-closed one included ({}), and the type a handler returns. Every profile's trait has this one as its supertrait, so these are written once.",
        if always_list.is_empty() {
            "none".to_string()
        } else {
            always_list
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    )
}

/// The handler traits in the order a reader meets them: always-on, each profile's, their
/// asynchronous twins, the echo handler, and `Handler`.
fn handler_traits(
    cx: &Ctx<'_>,
    options: &Options,
    always_on: &[Method<'_>],
    profiles: &[ProfileOut<'_>],
) -> TokenStream {
    let allow = if options.schemars {
        quote!(#[allow(missing_docs)])
    } else {
        quote!()
    };
    let always_doc = always_on_doc(&cx.surface.fail_closed);
    let always_methods = always_on.iter().map(method_tokens);
    let traits = profiles.iter().map(|p| &p.trait_tokens);
    let async_traits = always_on_async_traits(&allow, always_on, profiles);
    let echo = echo_handler(always_on, profiles);
    let trait_idents = profiles.iter().map(|p| &p.trait_ident);
    let trait_idents2 = trait_idents.clone();
    let handler_doc = "A handler for every profile: what [`dispatch`] needs to serve any session. Implemented for every type that implements each profile's trait.";
    quote! {
        #[doc = #always_doc]
        #allow
        pub trait AlwaysOnHandler {
            /// What a handler returns for a call: a value, a `Result`, or a future of one.
            /// The arguments borrow from the request, so a future that outlives the call
            /// takes `arguments.into_owned()`.
            type Output;
            #(#always_methods)*
        }

        #(#traits)*

        #async_traits

        #echo

        #[doc = #handler_doc]
        pub trait Handler: AlwaysOnHandler #(+ #trait_idents)* {}

        impl<T: ?Sized + AlwaysOnHandler #(+ #trait_idents2)*> Handler for T {}
    }
}

/// `AlwaysOnAsyncHandler` with its blanket impl, each profile's asynchronous trait, and
/// `AsyncHandler`.
fn always_on_async_traits(
    allow: &TokenStream,
    always_on: &[Method<'_>],
    profiles: &[ProfileOut<'_>],
) -> TokenStream {
    let always_trait = format_ident!("AlwaysOnHandler");
    let always_async_methods = always_on.iter().map(async_method_tokens);
    let always_readies = always_on.iter().map(|m| ready_tokens(&always_trait, m));
    let async_traits = profiles.iter().map(|p| &p.async_trait_tokens);
    let async_trait_idents = profiles.iter().map(|p| &p.async_trait_ident);
    let async_trait_idents2 = async_trait_idents.clone();
    quote! {
        /// [`AlwaysOnHandler`] with asynchronous methods, each given the call's context (the
        /// session, cancellation, progress, logging, requests to the client): what a server
        /// implements when its handlers wait on databases, APIs or the client. Every
        /// [`AlwaysOnHandler`] whose output can be sent between threads is one, its answers
        /// ready at once, so a synchronous handler serves wherever an asynchronous one is
        /// asked for.
        #allow
        pub trait AlwaysOnAsyncHandler {
            /// What a handler's future resolves to (for a synchronous handler, its `Output`).
            type Output;
            #(#always_async_methods)*
        }

        impl<H: AlwaysOnHandler + ?Sized> AlwaysOnAsyncHandler for H
        where
            <H as AlwaysOnHandler>::Output: ::core::marker::Send,
        {
            type Output = <H as AlwaysOnHandler>::Output;
            #(#always_readies)*
        }

        #(#async_traits)*

        /// An asynchronous handler for every profile: what [`dispatch_async`] needs.
        /// Implemented for every type that implements each profile's asynchronous trait.
        pub trait AsyncHandler: AlwaysOnAsyncHandler #(+ #async_trait_idents)* {}

        impl<T: ?Sized + AlwaysOnAsyncHandler #(+ #async_trait_idents2)*> AsyncHandler for T {}
    }
}

/// `EchoHandler`, which implements every profile's trait by echoing the typed arguments.
fn echo_handler(always_on: &[Method<'_>], profiles: &[ProfileOut<'_>]) -> TokenStream {
    let always_echo = always_on.iter().map(echo_tokens);
    let echo_impls = profiles.iter().map(|p| &p.echo_impl);
    quote! {
        /// A handler for every profile that answers each call with the typed arguments it
        /// received, serialized (`{"tool": name, "arguments": {...}}`): a contract test
        /// double for clients and skills, not a backend.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct EchoHandler;

        impl AlwaysOnHandler for EchoHandler {
            type Output = ::serde_json::Value;
            #(#always_echo)*
        }

        #(#echo_impls)*
    }
}

/// For `dispatch`: each tool a profile is granted besides the always-on ones, with the bits
/// of the profiles granting it (the first of them, in declared order, is the lowest bit).
fn granted_bits<'a>(profiles: &'a [ProfileOut<'_>]) -> Vec<(&'a str, u64)> {
    let mut granted: Vec<(&str, u64)> = Vec::new();
    for (index, p) in profiles.iter().enumerate() {
        let bit = 1u64.checked_shl(index as u32).unwrap_or(0);
        for m in &p.methods {
            match granted.iter_mut().find(|(t, _)| *t == m.tool.name) {
                Some((_, bits)) => *bits |= bit,
                None => granted.push((&m.tool.name, bit)),
            }
        }
    }
    granted
}

/// The body of `dispatch` (or `dispatch_async`): the session's bits of the profiles granted
/// the tool pick the first profile's dispatch function, or the always-on one.
fn session_dispatch(flavor: Flavor, profiles: &[ProfileOut<'_>]) -> TokenStream {
    let granted = granted_bits(profiles);
    let (fallback, mask) = match flavor {
        Flavor::Sync => (
            quote!(dispatch_always_on(handler, tool, arguments)),
            quote!(session.mask()),
        ),
        Flavor::Async => (
            quote!(dispatch_always_on_async(handler, context, tool, arguments).await),
            quote!(context.session().mask()),
        ),
    };
    if granted.is_empty() {
        return match flavor {
            Flavor::Sync => quote! {
                let _ = session;
                #fallback
            },
            Flavor::Async => fallback,
        };
    }
    let granted_arms = granted.iter().map(|(tool, bits)| quote!(#tool => #bits));
    let profile_arms = profiles.iter().enumerate().map(|(index, p)| {
        let index = index as u32;
        match flavor {
            Flavor::Sync => {
                let f = &p.fn_ident;
                quote!(#index => #f(handler, tool, arguments))
            }
            Flavor::Async => {
                let f = &p.async_fn_ident;
                quote!(#index => #f(handler, context, tool, arguments).await)
            }
        }
    });
    quote! {
        let granted: u64 = match tool {
            #(#granted_arms,)*
            _ => 0,
        } & #mask;
        match granted.trailing_zeros() {
            #(#profile_arms,)*
            _ => #fallback,
        }
    }
}

/// Every dispatch function: always-on, each profile's, by session; synchronous ones, then
/// asynchronous ones.
fn dispatch_functions(
    cx: &Ctx<'_>,
    always_on: &[Method<'_>],
    profiles: &[ProfileOut<'_>],
) -> TokenStream {
    let rt = cx.rt;
    let always_trait = format_ident!("AlwaysOnHandler");
    let always_async_trait = format_ident!("AlwaysOnAsyncHandler");
    let dispatch_always_on = dispatch_fn(
        rt,
        Flavor::Sync,
        quote! {
            /// Calls an always-on `tool` on `handler`: what the fail-closed session may do. Any
            /// other name is answered as an unknown tool.
        },
        &format_ident!("dispatch_always_on"),
        quote!(),
        quote!(AlwaysOnHandler),
        tool_match(rt, always_on.iter().map(|m| arm_tokens(&always_trait, m))),
    );
    let dispatch_always_on_async = dispatch_fn(
        rt,
        Flavor::Async,
        quote! {
            /// [`dispatch_always_on`] for an asynchronous handler, the handler's future awaited
            /// with the call's `context`.
        },
        &format_ident!("dispatch_always_on_async"),
        quote!(),
        quote!(AlwaysOnAsyncHandler),
        tool_match(
            rt,
            always_on
                .iter()
                .map(|m| async_arm_tokens(&always_async_trait, m)),
        ),
    );
    let dispatch_async = dispatch_fn(
        rt,
        Flavor::Async,
        quote! {
            /// [`dispatch`] for an asynchronous handler: the session is the context's
            /// (`HandlerContext::session`), the handler's future is awaited with `context`.
        },
        &format_ident!("dispatch_async"),
        quote!(),
        quote!(AsyncHandler),
        session_dispatch(Flavor::Async, profiles),
    );
    let dispatch = dispatch_fn(
        rt,
        Flavor::Sync,
        quote! {
            /// Calls `tool` as `session` sees it: through the first of its profiles (declared
            /// order) that is granted the tool, or as an always-on tool when it failed closed.
            /// A tool the session does not see is answered exactly as an unknown one.
        },
        &format_ident!("dispatch"),
        quote!(session: &Session,),
        quote!(Handler),
        session_dispatch(Flavor::Sync, profiles),
    );
    let dispatchers = profiles.iter().map(|p| &p.dispatcher);
    let async_dispatchers = profiles.iter().map(|p| &p.async_dispatcher);
    quote! {
        #dispatch_always_on
        #(#dispatchers)*
        #dispatch_always_on_async
        #(#async_dispatchers)*
        #dispatch_async
        #dispatch
    }
}
