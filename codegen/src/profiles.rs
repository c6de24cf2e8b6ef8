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

/// The profile items of a catalog.
pub(crate) fn generate(
    catalog: &Catalog,
    surface: &Surface,
    tools: &[ToolOut],
    options: &Options,
    errs: &mut Errs,
) -> TokenStream {
    let rt = &options.runtime_path();
    let allow = if options.schemars {
        quote!(#[allow(missing_docs)])
    } else {
        quote!()
    };
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

    // The always-on tools: one schema each, seen by every session.
    let always_on: Vec<Method<'_>> = surface
        .tools
        .iter()
        .filter(|t| t.always_on)
        .filter_map(|t| method_for(rt, tools, t, 0))
        .collect();
    let always_trait = format_ident!("AlwaysOnHandler");
    let always_methods = always_on.iter().map(method_tokens);
    let always_echo = always_on.iter().map(echo_tokens);
    let mut echo_impls = Vec::new();
    let always_arms: Vec<TokenStream> = always_on
        .iter()
        .map(|m| arm_tokens(&always_trait, m))
        .collect();
    let always_async_trait = format_ident!("AlwaysOnAsyncHandler");
    let always_async_methods = always_on.iter().map(async_method_tokens);
    let always_readies = always_on.iter().map(|m| ready_tokens(&always_trait, m));
    let always_async_arms: Vec<TokenStream> = always_on
        .iter()
        .map(|m| async_arm_tokens(&always_async_trait, m))
        .collect();
    let always_list: Vec<String> = surface.fail_closed.clone();
    let always_doc = format!(
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
    );

    let mut traits = Vec::new();
    let mut dispatchers = Vec::new();
    // For `dispatch`: each tool a profile is granted besides the always-on ones, with the
    // bits of the profiles granting it; and each profile's index and dispatch function.
    let mut granted: Vec<(&str, u64)> = Vec::new();
    let mut profile_dispatch: Vec<(u32, Ident, Ident)> = Vec::new();
    let mut trait_idents = Vec::new();
    let mut async_traits = Vec::new();
    let mut async_dispatchers = Vec::new();
    let mut async_trait_idents = Vec::new();
    let mut tools_lists = Vec::new();
    let mut tool_names_per_profile = Vec::new();
    for (index, p) in names.iter().enumerate() {
        let trait_ident =
            format_ident!("{}Handler", p.variant.to_string().trim_start_matches("r#"));
        let methods: Vec<Method<'_>> = surface
            .tools
            .iter()
            .filter(|t| !t.always_on)
            .filter_map(|t| {
                let i = t
                    .entries
                    .iter()
                    .position(|e| e.profiles.contains(&p.name))?;
                method_for(rt, tools, t, i)
            })
            .collect();
        let method_tokens = methods.iter().map(method_tokens);
        let echoes = methods.iter().map(echo_tokens);
        echo_impls.push(quote! {
            impl #trait_ident for EchoHandler {
                #(#echoes)*
            }
        });
        let arms = methods.iter().map(|m| arm_tokens(&trait_ident, m));
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
        let description = catalog
            .profiles
            .iter()
            .find(|q| q.name == p.name)
            .map(|q| q.description.clone())
            .unwrap_or_default();
        let doc = format!(
            "A server for profile `{}` ({description}): the tools it is granted besides the always-on ones, {}.",
            p.name,
            if listed.is_empty() {
                "none".to_string()
            } else {
                listed.join(", ")
            }
        );
        traits.push(quote! {
            #[doc = #doc]
            pub trait #trait_ident: AlwaysOnHandler {
                #(#method_tokens)*
            }
        });
        let async_trait_ident = format_ident!(
            "{}AsyncHandler",
            p.variant.to_string().trim_start_matches("r#")
        );
        let async_methods = methods.iter().map(async_method_tokens);
        let readies = methods.iter().map(|m| ready_tokens(&trait_ident, m));
        let async_doc = format!(
            "[`{trait_ident}`] with asynchronous methods, each given the call's context: what a server for profile `{}` implements when its handlers wait (databases, APIs, the client). Every [`{trait_ident}`] is one, its answers ready at once.",
            p.name
        );
        async_traits.push(quote! {
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
        });
        let async_arms = methods
            .iter()
            .map(|m| async_arm_tokens(&async_trait_ident, m));
        let async_fn_ident = format_ident!("dispatch_{}_async", p.snake);
        let async_fn_doc = format!(
            "[`dispatch_{}`] for an asynchronous handler: the arguments checked and typed as there, then the handler's future awaited with the call's `context`.",
            p.snake
        );
        async_dispatchers.push(quote! {
            #[doc = #async_fn_doc]
            pub async fn #async_fn_ident<'a, H, A>(
                handler: &H,
                context: #rt::HandlerContext<'_, Profile>,
                tool: &str,
                arguments: A,
            ) -> ::core::result::Result<<H as AlwaysOnAsyncHandler>::Output, #rt::CallError>
            where
                H: #async_trait_ident + ::core::marker::Sync + ?Sized,
                A: #rt::RawArguments<'a> + ::core::marker::Send,
            {
                match tool {
                    #(#async_arms,)*
                    #(#always_async_arms,)*
                    _ => ::core::result::Result::Err(#rt::CallError::unknown_tool(tool)),
                }
            }
        });
        async_trait_idents.push(async_trait_ident);
        let fn_ident = format_ident!("dispatch_{}", p.snake);
        let fn_doc = format!(
            "Calls `tool` of profile `{}` on `handler`. A tool the profile is not granted is answered exactly as an unknown one; arguments that do not match the schema served to `{}` are refused with a message naming the field.",
            p.name, p.name
        );
        dispatchers.push(quote! {
            #[doc = #fn_doc]
            pub fn #fn_ident<'a, H, A>(
                handler: &H,
                tool: &str,
                arguments: A,
            ) -> ::core::result::Result<<H as AlwaysOnHandler>::Output, #rt::CallError>
            where
                H: #trait_ident + ?Sized,
                A: #rt::RawArguments<'a>,
            {
                match tool {
                    #(#arms,)*
                    #(#always_arms,)*
                    _ => ::core::result::Result::Err(#rt::CallError::unknown_tool(tool)),
                }
            }
        });
        let bit = 1u64.checked_shl(index as u32).unwrap_or(0);
        for m in &methods {
            match granted.iter_mut().find(|(t, _)| *t == m.tool.name) {
                Some((_, bits)) => *bits |= bit,
                None => granted.push((&m.tool.name, bit)),
            }
        }
        profile_dispatch.push((index as u32, fn_ident.clone(), async_fn_ident));
        trait_idents.push(trait_ident);
        let session = surface.resolve(&p.name);
        tools_lists.push(to_pretty(&surface.tools_list_json(&session)));
        tool_names_per_profile.push(
            surface
                .served(&session)
                .iter()
                .map(|s| s.tool.name.clone())
                .collect::<Vec<_>>(),
        );
    }

    // Constants, from the same writers as the run-time path.
    let manifest = to_pretty(&surface.manifest_json());
    let tatara_manifest = to_pretty(&surface.tatara_manifest_json());
    let fail_closed_session = toolgate_schema::surface::Session {
        profiles: Vec::new(),
        fail_closed: true,
        warning: None,
    };
    let fail_closed_list = to_pretty(&surface.tools_list_json(&fail_closed_session));
    let served = served_entries(rt, surface, &names);
    let catalog_name = &catalog.name;
    let env = &catalog.selector.env;
    let combine = catalog.selector.combine;
    let tool_names: Vec<&str> = surface.tools.iter().map(|t| t.name.as_str()).collect();

    let variants: Vec<&Ident> = names.iter().map(|p| &p.variant).collect();
    let profile_names: Vec<&str> = names.iter().map(|p| p.name.as_str()).collect();
    let profile_docs: Vec<String> = names
        .iter()
        .map(|p| {
            catalog
                .profiles
                .iter()
                .find(|q| q.name == p.name)
                .map(|q| q.description.clone())
                .unwrap_or_default()
        })
        .collect();
    let indices: Vec<usize> = (0..names.len()).collect();
    let per_profile_names = tool_names_per_profile.iter().map(|ns| quote!(&[#(#ns),*]));

    let mut mask_arms =
        vec![quote!(0 => ::core::option::Option::Some(FAIL_CLOSED_TOOLS_LIST_JSON))];
    for i in 0..names.len().min(64) {
        let mask = 1u64 << i;
        mask_arms.push(quote!(#mask => ::core::option::Option::Some(TOOLS_LIST_BY_PROFILE[#i])));
    }
    if combine && names.len() <= MAX_COMBINED_PROFILES {
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
            let session = surface.resolve(&chosen.join(","));
            let text = to_pretty(&surface.tools_list_json(&session));
            mask_arms.push(quote!(#mask => ::core::option::Option::Some(#text)));
        }
    }
    let n = names.len();

    let profile_enum_doc = format!(
        "The profiles of `{catalog_name}`, in declared order. A session is resolved from a string or from `{env}` with [`Session::resolve`] and [`Session::from_env`], failing closed."
    );
    let profile_enum = quote! {
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
    };

    let catalog_doc = format!("The catalog's name, `{catalog_name}`.");
    let env_doc = format!("The environment variable a server reads its profile from, `{env}`.");
    let constants = quote! {
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
    };

    // The profiles of the session granted the tool (a constant per tool, and the session's
    // bits); the first of them, in declared order, is the lowest bit.
    let granted_arms: Vec<TokenStream> = granted
        .iter()
        .map(|(tool, bits)| quote!(#tool => #bits))
        .collect();
    let profile_arms = profile_dispatch
        .iter()
        .map(|(index, f, _)| quote!(#index => #f(handler, tool, arguments)));
    let async_profile_arms = profile_dispatch
        .iter()
        .map(|(index, _, f)| quote!(#index => #f(handler, context, tool, arguments).await));
    let session_dispatch = if granted.is_empty() {
        quote! {
            let _ = session;
            dispatch_always_on(handler, tool, arguments)
        }
    } else {
        quote! {
            let granted: u64 = match tool {
                #(#granted_arms,)*
                _ => 0,
            } & session.mask();
            match granted.trailing_zeros() {
                #(#profile_arms,)*
                _ => dispatch_always_on(handler, tool, arguments),
            }
        }
    };
    let async_session_dispatch = if granted.is_empty() {
        quote!(dispatch_always_on_async(handler, context, tool, arguments).await)
    } else {
        quote! {
            let granted: u64 = match tool {
                #(#granted_arms,)*
                _ => 0,
            } & context.session().mask();
            match granted.trailing_zeros() {
                #(#async_profile_arms,)*
                _ => dispatch_always_on_async(handler, context, tool, arguments).await,
            }
        }
    };
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
    let handler_doc = "A handler for every profile: what [`dispatch`] needs to serve any session. Implemented for every type that implements each profile's trait.";
    quote! {
        #constants
        #profile_enum

        /// Every argument type, with its tool, the profiles it is served to and its input
        /// schema, in tool order: for checks that go over all of them.
        pub const ARGUMENT_TYPES: &[#rt::ArgumentType] = &[#(#argument_types),*];

        #json_schemas_fn

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

        impl<T: ?Sized + AlwaysOnAsyncHandler #(+ #async_trait_idents)*> AsyncHandler for T {}

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

        #[doc = #handler_doc]
        pub trait Handler: AlwaysOnHandler #(+ #trait_idents)* {}

        impl<T: ?Sized + AlwaysOnHandler #(+ #trait_idents)*> Handler for T {}

        /// Calls an always-on `tool` on `handler`: what the fail-closed session may do. Any
        /// other name is answered as an unknown tool.
        pub fn dispatch_always_on<'a, H, A>(
            handler: &H,
            tool: &str,
            arguments: A,
        ) -> ::core::result::Result<<H as AlwaysOnHandler>::Output, #rt::CallError>
        where
            H: AlwaysOnHandler + ?Sized,
            A: #rt::RawArguments<'a>,
        {
            match tool {
                #(#always_arms,)*
                _ => ::core::result::Result::Err(#rt::CallError::unknown_tool(tool)),
            }
        }

        #(#dispatchers)*

        /// [`dispatch_always_on`] for an asynchronous handler, the handler's future awaited
        /// with the call's `context`.
        pub async fn dispatch_always_on_async<'a, H, A>(
            handler: &H,
            context: #rt::HandlerContext<'_, Profile>,
            tool: &str,
            arguments: A,
        ) -> ::core::result::Result<<H as AlwaysOnAsyncHandler>::Output, #rt::CallError>
        where
            H: AlwaysOnAsyncHandler + ::core::marker::Sync + ?Sized,
            A: #rt::RawArguments<'a> + ::core::marker::Send,
        {
            match tool {
                #(#always_async_arms,)*
                _ => ::core::result::Result::Err(#rt::CallError::unknown_tool(tool)),
            }
        }

        #(#async_dispatchers)*

        /// [`dispatch`] for an asynchronous handler: the session is the context's
        /// (`HandlerContext::session`), the handler's future is awaited with `context`.
        pub async fn dispatch_async<'a, H, A>(
            handler: &H,
            context: #rt::HandlerContext<'_, Profile>,
            tool: &str,
            arguments: A,
        ) -> ::core::result::Result<<H as AlwaysOnAsyncHandler>::Output, #rt::CallError>
        where
            H: AsyncHandler + ::core::marker::Sync + ?Sized,
            A: #rt::RawArguments<'a> + ::core::marker::Send,
        {
            #async_session_dispatch
        }

        /// Calls `tool` as `session` sees it: through the first of its profiles (declared
        /// order) that is granted the tool, or as an always-on tool when it failed closed.
        /// A tool the session does not see is answered exactly as an unknown one.
        pub fn dispatch<'a, H, A>(
            session: &Session,
            handler: &H,
            tool: &str,
            arguments: A,
        ) -> ::core::result::Result<<H as AlwaysOnHandler>::Output, #rt::CallError>
        where
            H: Handler + ?Sized,
            A: #rt::RawArguments<'a>,
        {
            #session_dispatch
        }
    }
}
