//! Argument types: one Rust module per tool, holding a struct per variant and per
//! restricted cell, and the nested structs and enums they use.
//!
//! The mapping from the schema subset:
//!
//! | schema | Rust |
//! |---|---|
//! | object with properties (or `additionalProperties: false`, or the root) | a struct; `#[serde(deny_unknown_fields)]` exactly when `additionalProperties` is `false`; an `additionalProperties` schema next to properties is a flattened `additional_properties` map |
//! | object without properties | `BTreeMap<Cow<'a, str>, T>` for an `additionalProperties` schema, else `serde_json::Map` |
//! | string with `enum` | an enum whose variants keep their wire names (`#[serde(rename)]`) |
//! | string, integer, number, boolean | `Cow<'a, str>`, `i64`, `f64`, `bool` |
//! | array | `Vec<T>` (`Vec<serde_json::Value>` without `items`) |
//! | no `type` | `serde_json::Value` |
//! | `$ref` to a definition (`#/$defs/Node`) | the definition's named type (`Node`), one per definition, `Box<Node>` where a recursive one closes its cycle ([`defs`]) |
//! | `anyOf`, `oneOf`, nullable, `type` list, `const` | an enum of alternatives, `Option<T>`, a unit type ([`combinators`]) |
//! | `pattern`, `allOf`, `not`, `if`/`then`/`else`, `patternProperties`, ..., keywords without a `type`, a local `$ref` that is not a definition (`#`) | see `checked`: the most specific type and a run-time check of the rest |
//!
//! Zero-copy: a type that holds strings (directly, or in arrays, maps and nested structs) has
//! a lifetime, `Args<'a>`, and borrows them from the arguments it is parsed from, JSON text
//! or a `serde_json::Value`; only a string with escapes is copied. Map keys are
//! `Cow<'a, str>` too; free JSON (`serde_json::Value`, `serde_json::Map`) is owned. Every
//! struct has `into_owned()`, which gives the same type with `'static` (`Args<'static>`) for
//! keeping past the call. A string default is a `Cow::Borrowed` of a literal.
//!
//! A required field is `T`; an optional one with a `default` that the generated code can
//! write (scalars, enums, arrays of scalars, free JSON) is `T` filled with the default; any
//! other optional field is `Option<T>`, where JSON `null` is refused as the validator refuses
//! it. A field that a `then` requires, or that an `if` tests for the value of its own default,
//! keeps `Option<T>` even with a default, so that "absent" stays visible to the check. An
//! `i64` field takes `3.0` as the validator does (not yet inside arrays and maps). Lengths,
//! bounds, sizes and the conditional requirement are checked after deserialization by the
//! generated `Check` impl.
//!
//! A struct reads only a JSON object and an enum only a JSON string: their `Deserialize`
//! impls wrap serde's derive (`#[serde(remote = "Self")]` and `runtime::de::Object`), which
//! would also read a struct from an array and an enum from `{"value": null}`.
//!
//! Every struct and enum also implements `runtime::direct::ReadDirect`: reading JSON text in
//! one pass, members matched by their names as bytes into one local per field, the struct
//! built from the locals; whatever that pass does not take (see `runtime::direct`) goes to
//! serde's derived `Deserialize`.

mod checked;
mod combinators;
mod defs;
mod json_schema;

pub(crate) use checked::untypable;

use std::collections::BTreeSet;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};

use super::naming::{
    Scope, camel, camel_ident_text, ident, sign_name, snake_ident_text, spell_signs, type_name,
};
use super::{Errs, Loc, Options};
use toolgate_schema::json::{Number, Value, to_compact};
use toolgate_schema::load::{Catalog, Tool, Variant};
use toolgate_schema::model::{Additional, Kind, ObjectRules, Schema};
use toolgate_schema::surface::{SurfaceTool, variant_input};

/// A Rust type for a schema.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    Bool,
    Int,
    Num,
    /// `Cow<'a, str>`.
    Str,
    Any,
    FreeObject,
    /// A generated struct, and whether it borrows (has the lifetime `'a`).
    Struct(String, bool),
    Enum(String),
    Vec(Box<Ty>),
    /// `BTreeMap<Cow<'a, str>, T>`.
    Map(Box<Ty>),
    /// `Option<T>` for a nullable schema (`null` is `None`), with the schema of `T`.
    Nullable(Box<Ty>, Box<Schema>),
    /// A generated enum of `anyOf`/`oneOf` alternatives or `type` list members, and
    /// whether it borrows.
    Union(String, bool),
    /// A generated `const` unit type or checked `enum` value.
    Literal(String),
    /// `Box<T>`: a recursive `$ref`'s named type.
    Boxed(Box<Ty>),
}

impl Ty {
    pub(crate) fn tokens(&self) -> TokenStream {
        match self {
            Ty::Bool => quote!(bool),
            Ty::Int => quote!(i64),
            Ty::Num => quote!(f64),
            Ty::Str => quote!(::std::borrow::Cow<'a, str>),
            Ty::Any => quote!(::serde_json::Value),
            Ty::FreeObject => {
                quote!(::serde_json::Map<::std::string::String, ::serde_json::Value>)
            }
            Ty::Struct(n, borrows) => {
                let i = ident(n);
                if *borrows { quote!(#i<'a>) } else { quote!(#i) }
            }
            Ty::Enum(n) | Ty::Literal(n) | Ty::Union(n, false) => {
                let i = ident(n);
                quote!(#i)
            }
            Ty::Union(n, true) => {
                let i = ident(n);
                quote!(#i<'a>)
            }
            Ty::Nullable(t, _) => {
                let t = t.tokens();
                quote!(::core::option::Option<#t>)
            }
            Ty::Boxed(t) => {
                let t = t.tokens();
                quote!(::std::boxed::Box<#t>)
            }
            Ty::Vec(t) => {
                let t = t.tokens();
                quote!(::std::vec::Vec<#t>)
            }
            Ty::Map(t) => {
                let t = t.tokens();
                quote!(::std::collections::BTreeMap<::std::borrow::Cow<'a, str>, #t>)
            }
        }
    }

    /// Whether the type has the lifetime `'a` (it holds a string somewhere).
    pub(crate) fn borrows(&self) -> bool {
        match self {
            Ty::Str | Ty::Map(_) => true,
            Ty::Struct(_, b) | Ty::Union(_, b) => *b,
            Ty::Vec(t) | Ty::Nullable(t, _) | Ty::Boxed(t) => t.borrows(),
            _ => false,
        }
    }

    /// Whether serde's derive would copy strings of this type even with `#[serde(borrow)]`
    /// (a `Cow` inside an array or a map), so the field goes through
    /// `runtime::de::borrowing`.
    fn needs_borrowing(&self) -> bool {
        match self {
            Ty::Vec(t) => matches!(**t, Ty::Str) || t.needs_borrowing(),
            Ty::Map(_) => true,
            _ => false,
        }
    }
}

/// An expression that turns `v`, of type `ty` with lifetime `'a`, into the same type with
/// `'static` (copying borrowed strings).
fn owned_expr(ty: &Ty, v: TokenStream) -> TokenStream {
    let cow = quote!(::std::borrow::Cow);
    match ty {
        Ty::Str => quote!(#cow::Owned(#v.into_owned())),
        Ty::Struct(_, true) | Ty::Union(_, true) => quote!(#v.into_owned()),
        Ty::Nullable(t, _) if t.borrows() => {
            let e = owned_expr(t, quote!(x));
            quote!(#v.map(|x| #e))
        }
        Ty::Boxed(t) if t.borrows() => {
            let e = owned_expr(t, quote!(x));
            quote!({ let x = *#v; ::std::boxed::Box::new(#e) })
        }
        Ty::Vec(t) if t.borrows() => {
            let e = owned_expr(t, quote!(x));
            quote!(#v.into_iter().map(|x| #e).collect())
        }
        Ty::Map(t) => {
            let e = owned_expr(t, quote!(x));
            quote!(#v.into_iter().map(|(k, x)| (#cow::Owned(k.into_owned()), #e)).collect())
        }
        _ => v,
    }
}

/// `impl Borrowing` for a generated struct or enum (the value type of a map), with its own
/// `Deserialize`.
fn borrowing_impl(rt: &TokenStream, ty: &Ty) -> TokenStream {
    let (name, generics, lt) = match ty {
        Ty::Struct(n, true) | Ty::Union(n, true) => (n, quote!(<'de: 'a, 'a>), quote!(<'a>)),
        Ty::Struct(n, false) | Ty::Enum(n) | Ty::Union(n, false) | Ty::Literal(n) => {
            (n, quote!(<'de>), quote!())
        }
        _ => return quote!(),
    };
    let t = ident(name);
    quote! {
        impl #generics #rt::de::Borrowing<'de> for #t #lt {
            #[inline]
            fn deserialize_borrowing<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                <Self as ::serde::Deserialize<'de>>::deserialize(deserializer)
            }
        }
    }
}

/// `<'a>` when `borrows`, else nothing: the generics of a generated type.
fn lifetime(borrows: bool) -> TokenStream {
    if borrows { quote!(<'a>) } else { quote!() }
}

/// A generated argument type as other items name it.
#[derive(Clone, Debug)]
pub(crate) struct TypeRef {
    /// Its identifier in the tool's module.
    pub ident: Ident,
    /// Whether it has the lifetime `'a`.
    pub borrows: bool,
}

impl TypeRef {
    /// The type with an elided lifetime (`Args<'_>`) when it has one.
    pub(crate) fn elided(&self) -> TokenStream {
        self.with_lifetime(quote!('_))
    }

    /// The type with the lifetime `'a` when it has one.
    pub(crate) fn with_a(&self) -> TokenStream {
        self.with_lifetime(quote!('a))
    }

    /// The type with `'static` when it has a lifetime.
    pub(crate) fn owned(&self) -> TokenStream {
        self.with_lifetime(quote!('static))
    }

    fn with_lifetime(&self, lifetime: TokenStream) -> TokenStream {
        let i = &self.ident;
        if self.borrows {
            quote!(#i<#lifetime>)
        } else {
            quote!(#i)
        }
    }
}

/// How a field holds its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Repr {
    Required,
    Defaulted,
    Optional,
}

#[derive(Clone, Debug)]
pub(crate) struct FieldInfo {
    pub ident: Ident,
    pub ty: Ty,
    pub repr: Repr,
}

#[derive(Clone, Debug)]
pub(crate) struct StructInfo {
    pub name: String,
    pub fields: Vec<(String, FieldInfo)>,
    /// Whether the struct has the lifetime `'a`.
    pub borrows: bool,
}

impl StructInfo {
    fn type_ref(&self) -> TypeRef {
        TypeRef {
            ident: ident(&self.name),
            borrows: self.borrows,
        }
    }
}

/// What the rest of the generator needs to know about one tool's module.
pub(crate) struct ToolOut {
    /// The tool's name.
    pub name: String,
    /// The module's identifier.
    pub module: Ident,
    /// The module's tokens.
    pub tokens: TokenStream,
    /// For each entry of the surface tool, the type it is served as.
    pub entry_types: Vec<TypeRef>,
    /// Every root argument type of the module, with the profiles it is served to (none for
    /// a variant whose every profile is restricted).
    pub argument_types: Vec<(TypeRef, Vec<String>)>,
}

struct Module<'a> {
    tool: &'a Tool,
    opts: &'a Options,
    errs: &'a mut Errs,
    types: Scope,
    items: Vec<TokenStream>,
    /// Named types already generated: variant, path in the root, schema, type.
    cache: Vec<(usize, String, Schema, Ty)>,
    /// The enums generated: name and (wire value, variant identifier).
    enums: Vec<(String, Vec<(String, Ident)>)>,
    /// Structs whose `check` is not trivially true.
    checked: BTreeSet<String>,
    /// Named types that are values of a map, which `runtime::de::Borrowing` deserializes:
    /// they get an `impl Borrowing` at the end of the module.
    map_values: Vec<Ty>,
    /// The run-time checks of schemas whose keywords their type holds only in part
    /// (`checked`), by schema.
    keyword_checks: Vec<(Schema, checked::Plan)>,
    /// The statics generated for those checks so far (they are numbered).
    statics: usize,
    /// The definitions (`$defs`) typed so far (see [`defs`]).
    defs: Vec<defs::DefType>,
    /// The definitions known to have the lifetime `'a` before this generation: what a
    /// reference closing a cycle names.
    hints: &'a [defs::DefKey],
    /// The definitions found to have the lifetime `'a`.
    found: Vec<defs::DefKey>,
    /// The root properties a restricted cell narrows, while its struct is generated: a
    /// `$ref` there is not the definition's type.
    narrowed: Vec<String>,
    variant: usize,
}

/// How many times a tool with a recursive schema is generated at most to learn which of
/// its definitions hold strings (one more than it has cycles through distinct definitions
/// that gain a lifetime one from another, in practice two).
const MAX_PASSES: usize = 8;

/// Generates the module of `tool`. `module` is its identifier (already checked unique).
pub(crate) fn tool_module(
    catalog: &Catalog,
    tool: &Tool,
    surface_tool: &SurfaceTool,
    module: Ident,
    opts: &Options,
    errs: &mut Errs,
) -> ToolOut {
    // A recursive type names itself, with its lifetime: generate the tool (errors
    // discarded) until the definitions that have one are known (see `defs`).
    let mut hints: Vec<defs::DefKey> = Vec::new();
    if tool.variants.iter().any(|v| v.recursive) {
        for _ in 0..MAX_PASSES {
            let mut scratch = Errs::scratch();
            let (_, mut found) = module_pass(
                catalog,
                tool,
                surface_tool,
                module.clone(),
                opts,
                &mut scratch,
                &hints,
            );
            found.sort();
            found.dedup();
            if found == hints {
                break;
            }
            hints = found;
        }
    }
    module_pass(catalog, tool, surface_tool, module, opts, errs, &hints).0
}

/// One generation of the module of `tool`, given the definitions known to have a lifetime;
/// the module, and the definitions found to have one.
fn module_pass(
    catalog: &Catalog,
    tool: &Tool,
    surface_tool: &SurfaceTool,
    module: Ident,
    opts: &Options,
    errs: &mut Errs,
    hints: &[defs::DefKey],
) -> (ToolOut, Vec<defs::DefKey>) {
    let mut m = Module {
        tool,
        opts,
        errs,
        types: Scope::new(),
        items: Vec::new(),
        cache: Vec::new(),
        enums: Vec::new(),
        checked: BTreeSet::new(),
        map_values: Vec::new(),
        keyword_checks: Vec::new(),
        statics: 0,
        defs: Vec::new(),
        hints,
        found: Vec::new(),
        narrowed: Vec::new(),
        variant: 0,
    };
    let group_params: Vec<&str> = catalog
        .group(&tool.group)
        .map(|g| g.parameters.iter().map(|(n, _, _)| n.as_str()).collect())
        .unwrap_or_default();
    let mut argument_types: Vec<(TypeRef, Vec<String>)> = Vec::new();
    let bases = m.variant_structs(catalog, surface_tool, &group_params, &mut argument_types);
    let entry_types = m.entry_structs(surface_tool, &bases, &group_params, &mut argument_types);
    for ty in std::mem::take(&mut m.map_values) {
        m.items.push(borrowing_impl(&m.opts.runtime_path(), &ty));
    }
    let tokens = module_tokens(tool, opts, &module, &m.items);
    let found = m.found;
    let out = ToolOut {
        name: tool.name.clone(),
        module,
        tokens,
        entry_types,
        argument_types,
    };
    (out, found)
}

/// The `pub mod` of a tool, documented with its description.
fn module_tokens(
    tool: &Tool,
    opts: &Options,
    module: &Ident,
    items: &[TokenStream],
) -> TokenStream {
    let description = tool
        .variants
        .first()
        .map(|v| v.description.clone())
        .unwrap_or_default();
    let doc = format!("`{}`: {description}", tool.name);
    let allow = if opts.schemars {
        quote!(#[allow(missing_docs)])
    } else {
        quote!()
    };
    quote! {
        #[doc = #doc]
        #allow
        pub mod #module {
            #(#items)*
        }
    }
}

/// Where the root properties of a variant come from: the tool file, or the matrix for a
/// group parameter.
struct RootLocs<'a> {
    own: Vec<&'a str>,
    params: &'a [&'a str],
    file_root: Loc,
}

impl<'a> RootLocs<'a> {
    /// The places of `variant`'s root properties: its own `inputSchema`'s, and the matrix's
    /// for the parameters its group adds.
    fn of_variant(variant: &'a Variant, params: &'a [&'a str]) -> RootLocs<'a> {
        let own = variant
            .input
            .as_object()
            .map(|o| o.properties.iter().map(|(n, _)| n.as_str()).collect())
            .unwrap_or_default();
        let file_root = Loc::new(
            &variant.file,
            toolgate_schema::locate::Pointer::root().key("inputSchema"),
        );
        RootLocs {
            own,
            params,
            file_root,
        }
    }

    fn of(&self, property: &str) -> Loc {
        if !self.own.contains(&property) && self.params.contains(&property) {
            Loc::new(
                toolgate_schema::load::MATRIX_FILE,
                toolgate_schema::locate::Pointer::root()
                    .key("parameters")
                    .key(property)
                    .key("schema"),
            )
        } else {
            self.file_root.prop(property)
        }
    }
}

/// The name of a generated type.
fn named(ty: &Ty) -> Option<&String> {
    match ty {
        Ty::Struct(n, _) | Ty::Enum(n) | Ty::Union(n, _) | Ty::Literal(n) => Some(n),
        _ => None,
    }
}

/// The doc comment of a generated type: its schema's `title` (a first line) and
/// `description`, or `fallback` without either.
pub(crate) fn type_doc(schema: &Schema, fallback: impl FnOnce() -> String) -> String {
    match (&schema.title, &schema.description) {
        (Some(t), Some(d)) => format!("{t}\n\n{d}"),
        (Some(t), None) => t.clone(),
        (None, Some(d)) => d.clone(),
        (None, None) => fallback(),
    }
}

fn number_lit(n: Number) -> TokenStream {
    let lit = Literal::f64_suffixed(n.as_f64());
    quote!(#lit)
}

fn opt_u64(v: Option<u64>) -> TokenStream {
    match v {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    }
}

fn opt_num(v: Option<Number>) -> TokenStream {
    match v {
        Some(n) => {
            let lit = number_lit(n);
            quote!(::core::option::Option::Some(#lit))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// A JSON value as tokens in `json!` syntax (for `schemars(extend(...))`).
fn json_tokens(v: &Value) -> TokenStream {
    match v {
        Value::Null => quote!(null),
        Value::Bool(b) => quote!(#b),
        Value::Number(Number::UInt(n)) => {
            let lit = Literal::u64_unsuffixed(*n);
            quote!(#lit)
        }
        Value::Number(Number::Int(n)) => {
            let lit = Literal::u64_unsuffixed(n.unsigned_abs());
            quote!(-#lit)
        }
        Value::Number(Number::Float(f)) => {
            let lit = Literal::f64_unsuffixed(f.abs());
            if *f < 0.0 {
                quote!(-#lit)
            } else {
                quote!(#lit)
            }
        }
        Value::String(s) => quote!(#s),
        Value::Array(items) => {
            let items = items.iter().map(json_tokens);
            quote!([#(#items),*])
        }
        Value::Object(m) => {
            let entries = m.iter().map(|(k, v)| {
                let v = json_tokens(v);
                quote!(#k: #v)
            });
            quote!({#(#entries),*})
        }
    }
}

/// The authored input schema of a variant with recursive `$ref`s (which point into it), as
/// JSON text.
fn recursive_document(variant: &toolgate_schema::load::Variant) -> Option<String> {
    if !variant.recursive {
        return None;
    }
    variant.authored.get("inputSchema").map(to_compact)
}

/// `impl ToolArgs` for a type served to some session: its tool and its input schema (and,
/// for a schema with recursive `$ref`s, the document they point into).
fn served_impl(
    rt: &TokenStream,
    info: &StructInfo,
    tool: &str,
    schema: &Schema,
    document: Option<String>,
) -> TokenStream {
    let t = ident(&info.name);
    let lt = lifetime(info.borrows);
    let text = to_compact(&schema.to_json());
    let (parse, document_fn) = match document {
        Some(doc) => (
            quote!(#rt::cached_schema_in(&SCHEMA, Self::INPUT_SCHEMA_JSON, #doc)),
            quote! {
                fn input_document() -> ::core::option::Option<&'static ::serde_json::Value> {
                    static DOCUMENT: ::std::sync::OnceLock<::serde_json::Value> =
                        ::std::sync::OnceLock::new();
                    ::core::option::Option::Some(#rt::cached_document(&DOCUMENT, #doc))
                }
            },
        ),
        None => (
            quote!(#rt::cached_schema(&SCHEMA, Self::INPUT_SCHEMA_JSON)),
            quote!(),
        ),
    };
    quote! {
        impl #lt #rt::ToolArgs for #t #lt {
            const TOOL: &'static str = #tool;
            const INPUT_SCHEMA_JSON: &'static str = #text;
            fn input_schema() -> &'static #rt::model::Schema {
                static SCHEMA: ::std::sync::OnceLock<#rt::model::Schema> =
                    ::std::sync::OnceLock::new();
                #parse
            }
            #document_fn
        }
    }
}

impl Module<'_> {
    /// One struct per variant, group parameters included (`None` where it could not be
    /// generated: the error is reported); each served type is added to `argument_types`
    /// with the profiles it is served to unrestricted.
    fn variant_structs(
        &mut self,
        catalog: &Catalog,
        surface_tool: &SurfaceTool,
        group_params: &[&str],
        argument_types: &mut Vec<(TypeRef, Vec<String>)>,
    ) -> Vec<Option<StructInfo>> {
        let tool = self.tool;
        let mut bases: Vec<Option<StructInfo>> = Vec::new();
        for (index, variant) in tool.variants.iter().enumerate() {
            self.variant = index;
            let Some(schema) = variant_input(catalog, tool, index) else {
                bases.push(None);
                continue;
            };
            let prefix = match &variant.name {
                Some(v) => camel(v),
                None => String::new(),
            };
            let name = type_name(format!("{prefix}Args"));
            let locs = RootLocs::of_variant(variant, group_params);
            let doc = match &variant.name {
                Some(v) => format!(
                    "Arguments of `{}`, variant `{v}` ({}).",
                    tool.name, variant.file
                ),
                None => format!("Arguments of `{}` ({}).", tool.name, variant.file),
            };
            let info = self.root_struct(&name, &prefix, &schema, &locs, doc);
            if let Some(info) = &info {
                let profiles = surface_tool
                    .entries
                    .iter()
                    .filter(|e| e.variant == variant.name && e.restricted.is_empty())
                    .flat_map(|e| e.profiles.iter().cloned())
                    .collect();
                argument_types.push(self.served_root(info, &schema, variant, profiles));
            }
            bases.push(info);
        }
        bases
    }

    /// For each entry of the surface tool, the type it is served as: its variant's struct,
    /// or for a restricted cell one narrower struct of its own (with a conversion to the
    /// variant's), added to `argument_types`. A type that failed to generate (the error is
    /// reported) is named as `Args`.
    fn entry_structs(
        &mut self,
        surface_tool: &SurfaceTool,
        bases: &[Option<StructInfo>],
        group_params: &[&str],
        argument_types: &mut Vec<(TypeRef, Vec<String>)>,
    ) -> Vec<TypeRef> {
        let tool = self.tool;
        let fallback = || TypeRef {
            ident: ident("Args"),
            borrows: false,
        };
        let mut entry_types: Vec<TypeRef> = Vec::new();
        for entry in &surface_tool.entries {
            let index = tool
                .variants
                .iter()
                .position(|v| v.name == entry.variant)
                .unwrap_or(0);
            let base = bases.get(index).and_then(Option::as_ref);
            if entry.restricted.is_empty() {
                entry_types.push(base.map_or_else(fallback, StructInfo::type_ref));
                continue;
            }
            let Some(variant) = tool.variants.get(index) else {
                entry_types.push(fallback());
                continue;
            };
            self.variant = index;
            entry_types.push(self.restricted_struct(
                entry,
                variant,
                base,
                group_params,
                argument_types,
            ));
        }
        entry_types
    }

    /// The narrower struct of a restricted cell, named after its variant and first profile,
    /// with `From` it to its variant's struct.
    fn restricted_struct(
        &mut self,
        entry: &toolgate_schema::surface::Entry,
        variant: &Variant,
        base: Option<&StructInfo>,
        group_params: &[&str],
        argument_types: &mut Vec<(TypeRef, Vec<String>)>,
    ) -> TypeRef {
        let first = entry.profiles.first().map(String::as_str).unwrap_or("");
        let prefix = format!(
            "{}{}",
            variant.name.as_deref().map(camel).unwrap_or_default(),
            camel(first)
        );
        let name = type_name(format!("{prefix}Args"));
        let locs = RootLocs::of_variant(variant, group_params);
        let cells: Vec<String> = entry
            .restricted
            .iter()
            .map(|(f, vs)| format!("`{f}` only {}", vs.join(", ")))
            .collect();
        let doc = format!(
            "Arguments of `{}` as profile{} {} may send them: {} (a restricted cell of the matrix).",
            self.tool.name,
            if entry.profiles.len() == 1 { "" } else { "s" },
            entry
                .profiles
                .iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", "),
            cells.join("; ")
        );
        self.narrowed = entry.restricted.iter().map(|(f, _)| f.clone()).collect();
        let info = self.root_struct(&name, &prefix, &entry.input_schema, &locs, doc);
        self.narrowed.clear();
        if let Some(info) = &info {
            argument_types.push(self.served_root(
                info,
                &entry.input_schema,
                variant,
                entry.profiles.clone(),
            ));
        }
        if let (Some(narrow), Some(base)) = (&info, base) {
            self.conversion(narrow, base);
        }
        info.as_ref().map_or_else(
            || TypeRef {
                ident: ident(&name),
                borrows: false,
            },
            StructInfo::type_ref,
        )
    }

    /// `impl ToolArgs` for a root struct served as `schema`; the struct as an argument type,
    /// with the profiles it is served to.
    fn served_root(
        &mut self,
        info: &StructInfo,
        schema: &Schema,
        variant: &Variant,
        profiles: Vec<String>,
    ) -> (TypeRef, Vec<String>) {
        self.items.push(served_impl(
            &self.opts.runtime_path(),
            info,
            &self.tool.name,
            schema,
            recursive_document(variant),
        ));
        (info.type_ref(), profiles)
    }

    fn claim_type(&mut self, name: &str, what: &str, loc: &Loc) -> bool {
        if let Err(first) = self.types.claim(name, what) {
            self.errs.at(
                loc,
                format!(
                    "two types of tool `{}` would both be named `{name}`: {first} and {what}; rename one of the JSON names",
                    self.tool.name
                ),
            );
            return false;
        }
        true
    }

    /// The struct of a root argument type named `name` for `schema`, its `allOf` members
    /// merged in where they can be and the rest of its keywords a gate.
    fn root_struct(
        &mut self,
        name: &str,
        prefix: &str,
        schema: &Schema,
        locs: &RootLocs<'_>,
        doc: String,
    ) -> Option<StructInfo> {
        let root = &locs.file_root;
        // `allOf` members merged into the root where they can be.
        let merged = match schema.to_json() {
            toolgate_schema::json::Value::Object(json) => checked::merge_all_of(&json)
                .and_then(|m| self.parse_sub(&toolgate_schema::json::Value::Object(m)))
                .filter(|s| s.as_object().is_some()),
            _ => None,
        };
        let schema = merged.as_ref().unwrap_or(schema);
        schema.as_object()?;
        if !self.claim_type(name, &format!("the arguments of {}", root.file), root) {
            return None;
        }
        let mut base = schema.clone();
        base.extra.clear();
        let gate = self.root_gate(schema, &mut base, root);
        let obj = base.as_object()?.clone();
        Some(self.gen_struct(
            name,
            prefix,
            &obj,
            &base,
            "",
            &|p| locs.of(p),
            root,
            doc,
            gate.as_ref(),
        ))
    }

    /// The type of `schema` found at `path` (in the root) and `loc` (in a file); `hint` is
    /// the name a new named type gets.
    fn ty(&mut self, schema: &Schema, hint: &str, path: &str, loc: &Loc) -> Ty {
        if let Some(t) = self.def_use(schema, path, loc) {
            return t;
        }
        if !combinators::significant(schema).is_empty() {
            return self.ty_extra(schema, hint, path, loc);
        }
        match &schema.kind {
            Kind::Any => Ty::Any,
            Kind::Boolean => Ty::Bool,
            Kind::Integer(_) => Ty::Int,
            Kind::Number(_) => Ty::Num,
            Kind::String(s) => match &s.enum_values {
                None => Ty::Str,
                Some(values) => {
                    if let Some(t) = self.cached(path, schema) {
                        return t;
                    }
                    let t = self.gen_enum(hint, values, path, loc, schema);
                    self.cache
                        .push((self.variant, path.to_string(), schema.clone(), t.clone()));
                    t
                }
            },
            Kind::Array(a) => match &a.items {
                None => Ty::Vec(Box::new(Ty::Any)),
                Some(items) => {
                    let inner = self.ty(
                        items,
                        &type_name(format!("{hint}Item")),
                        &format!("{path}[]"),
                        &loc.key("items"),
                    );
                    Ty::Vec(Box::new(inner))
                }
            },
            Kind::Object(o) => {
                if o.properties.is_empty() && !o.denies_unknown() {
                    return match &o.additional {
                        Additional::Schema(s) => {
                            let inner = self.ty(
                                s,
                                &type_name(format!("{hint}Value")),
                                &format!("{path}{{}}"),
                                &loc.key("additionalProperties"),
                            );
                            self.map_value(&inner);
                            Ty::Map(Box::new(inner))
                        }
                        _ => Ty::FreeObject,
                    };
                }
                if let Some(t) = self.cached(path, schema) {
                    return t;
                }
                let what = format!("`{path}` in {}", loc.file);
                if !self.claim_type(hint, &what, loc) {
                    return Ty::Any;
                }
                let doc = type_doc(schema, || format!("The object `{path}`."));
                let info = self.gen_struct(
                    hint,
                    hint,
                    o,
                    schema,
                    path,
                    &|p| loc.prop(p),
                    loc,
                    doc,
                    None,
                );
                let t = Ty::Struct(info.name, info.borrows);
                self.cache
                    .push((self.variant, path.to_string(), schema.clone(), t.clone()));
                t
            }
        }
    }

    /// Records that `ty` is the value type of a map: the named types in it need
    /// `impl Borrowing` (once each).
    fn map_value(&mut self, ty: &Ty) {
        match ty {
            // Once per name: a recursive definition is also named (as a struct) where a
            // cycle closes.
            Ty::Struct(n, _) | Ty::Enum(n) | Ty::Union(n, _) | Ty::Literal(n)
                if !self.map_values.iter().any(|t| named(t) == Some(n)) =>
            {
                self.map_values.push(ty.clone());
            }
            Ty::Vec(t) | Ty::Nullable(t, _) | Ty::Boxed(t) => self.map_value(t),
            _ => {}
        }
    }

    fn cached(&self, path: &str, schema: &Schema) -> Option<Ty> {
        self.cache
            .iter()
            .find(|(v, p, s, _)| *v == self.variant && p == path && s == schema)
            .map(|(_, _, _, t)| t.clone())
    }

    /// The enum of a string schema with `enum` values, named `name`: a variant per value,
    /// each keeping its wire name.
    fn gen_enum(
        &mut self,
        name: &str,
        values: &[String],
        path: &str,
        loc: &Loc,
        schema: &Schema,
    ) -> Ty {
        let rt = &self.opts.runtime_path();
        let what = format!("the enum `{path}` in {}", loc.file);
        if !self.claim_type(name, &what, loc) {
            return Ty::Str;
        }
        let variants = self.enum_variants(values, loc);
        let ty_ident = ident(name);
        let doc = type_doc(schema, || format!("The values of `{path}` ({}).", loc.file));
        self.items.push(enum_items(
            rt,
            &ty_ident,
            &variants,
            &doc,
            self.opts.schemars,
        ));
        self.items.push(enum_read_direct(rt, &ty_ident, &variants));
        self.enums.push((name.to_string(), variants));
        Ty::Enum(name.to_string())
    }

    /// The variant identifiers of an enum's values, each claimed once. A value with an ASCII
    /// letter or digit is named from its words (its signs spelled out); one without is named
    /// from its characters (`"."` is `Dot`, `""` is `Empty`: [`sign_name`]), or by its
    /// position (`Value2`) when a character has no word or that name is taken. The wire
    /// value stays the exact JSON string (`#[serde(rename)]`). Two values with letters that
    /// make one identifier are an error at the second's place, and it gets no variant.
    fn enum_variants(&mut self, values: &[String], loc: &Loc) -> Vec<(String, Ident)> {
        let mut scope = Scope::new();
        let mut variants: Vec<(String, Ident)> = Vec::new();
        // Values with letters claim their names first, so a name made from characters
        // never takes one from them.
        let mut signs: Vec<(usize, &String)> = Vec::new();
        for (i, v) in values.iter().enumerate() {
            let at = loc.key("enum").index(i);
            let Ok(text) = camel_ident_text(&spell_signs(v)) else {
                signs.push((i, v));
                continue;
            };
            if let Err(first) = scope.claim(&text, &format!("\"{v}\"")) {
                self.errs.at(
                    &at,
                    format!(
                        "enum values {first} and \"{v}\" would both be the Rust variant `{text}`; rename one"
                    ),
                );
                continue;
            }
            variants.push((v.clone(), ident(&text)));
        }
        for (i, v) in signs {
            let what = format!("{v:?}");
            let named = sign_name(v).filter(|n| scope.claim(n, &what).is_ok());
            let text = match named {
                Some(n) => n,
                None => {
                    let positional = format!("Value{i}");
                    if let Err(first) = scope.claim(&positional, &what) {
                        self.errs.at(
                            &loc.key("enum").index(i),
                            format!(
                                "enum values {first} and {what} would both be the Rust variant `{positional}`; rename one"
                            ),
                        );
                        continue;
                    }
                    positional
                }
            };
            variants.push((v.clone(), ident(&text)));
        }
        // Declared order, as `ALL` and the wire list promise.
        variants.sort_by_key(|(wire, _)| values.iter().position(|v| v == wire));
        variants
    }

    fn enum_variant(&self, name: &str, wire: &str) -> Option<Ident> {
        self.enums
            .iter()
            .find(|(n, _)| n == name)?
            .1
            .iter()
            .find(|(w, _)| w == wire)
            .map(|(_, i)| i.clone())
    }

    /// The expression of a default value of type `ty`, when the generated code can write it.
    fn default_expr(&self, ty: &Ty, value: &Value) -> Option<TokenStream> {
        match (ty, value) {
            (Ty::Bool, Value::Bool(b)) => Some(quote!(#b)),
            (Ty::Str, Value::String(s)) => Some(quote!(::std::borrow::Cow::Borrowed(#s))),
            (Ty::Enum(name), Value::String(s)) => {
                let t = ident(name);
                let v = self.enum_variant(name, s)?;
                Some(quote!(#t::#v))
            }
            (Ty::Int, Value::Number(n)) => {
                let i = n.as_i64_exact()?;
                Some(quote!(#i))
            }
            (Ty::Num, Value::Number(n)) => Some(number_lit(*n)),
            (Ty::Nullable(..), Value::Null) => Some(quote!(::core::option::Option::None)),
            (Ty::Nullable(inner, _), v) => {
                let e = self.default_expr(inner, v)?;
                Some(quote!(::core::option::Option::Some(#e)))
            }
            (Ty::Any | Ty::FreeObject, _) => {
                let text = to_compact(value);
                Some(quote!(::serde_json::from_str(#text).unwrap_or_default()))
            }
            (Ty::Vec(inner), Value::Array(items))
                if matches!(
                    **inner,
                    Ty::Bool | Ty::Str | Ty::Int | Ty::Num | Ty::Enum(_)
                ) =>
            {
                let items: Option<Vec<TokenStream>> =
                    items.iter().map(|v| self.default_expr(inner, v)).collect();
                let items = items?;
                Some(quote!(::std::vec![#(#items),*]))
            }
            _ => None,
        }
    }

    /// A boolean expression that `v` (an expression of type `&T`) satisfies the constraints
    /// of `schema`, or `None` when it always does: those of the typed model, and the checks
    /// of the keywords its type holds only in part (`checked`).
    fn check_expr(&self, schema: &Schema, ty: &Ty, v: TokenStream) -> Option<TokenStream> {
        let schema = self.checked_as(schema);
        let keywords = self.keyword_check(schema, ty, &v);
        match (keywords, self.check_typed(schema, ty, v)) {
            (Some(a), Some(b)) => Some(quote!((#a && #b))),
            (a, b) => a.or(b),
        }
    }

    /// The constraints of the typed model in [`Module::check_expr`].
    fn check_typed(&self, schema: &Schema, ty: &Ty, v: TokenStream) -> Option<TokenStream> {
        let rt = &self.opts.runtime_path();
        let rules = quote!(#rt::rules);
        match ty {
            Ty::Nullable(inner, s) => {
                return self
                    .check_expr(s, inner, quote!(x))
                    .map(|c| quote!(#v.as_ref().is_none_or(|x| #c)));
            }
            Ty::Union(name, _) => {
                return self
                    .checked
                    .contains(name)
                    .then(|| quote!(#rt::Check::check(#v)));
            }
            Ty::Literal(_) => return None,
            Ty::Boxed(_) => return Some(quote!(#rt::Check::check(&**#v))),
            _ => {}
        }
        match (&schema.kind, ty) {
            (Kind::String(s), Ty::Str | Ty::Enum(_))
                if s.min_length.is_some() || s.max_length.is_some() =>
            {
                let (min, max) = (opt_u64(s.min_length), opt_u64(s.max_length));
                let text = if *ty == Ty::Str {
                    quote!(::core::convert::AsRef::<str>::as_ref(#v))
                } else {
                    quote!(#v.as_str())
                };
                Some(quote!(#rules::length(#text, #min, #max)))
            }
            (Kind::Integer(n) | Kind::Number(n), Ty::Int | Ty::Num)
                if n.minimum.is_some()
                    || n.maximum.is_some()
                    || n.exclusive_minimum.is_some()
                    || n.exclusive_maximum.is_some() =>
            {
                let x = if *ty == Ty::Int {
                    quote!((*#v as f64))
                } else {
                    quote!(*#v)
                };
                let (a, b, c, d) = (
                    opt_num(n.minimum),
                    opt_num(n.maximum),
                    opt_num(n.exclusive_minimum),
                    opt_num(n.exclusive_maximum),
                );
                Some(quote!(#rules::bounds(#x, #a, #b, #c, #d)))
            }
            (Kind::Array(a), Ty::Vec(inner)) => {
                let count = (a.min_items.is_some() || a.max_items.is_some()).then(|| {
                    let (min, max) = (opt_u64(a.min_items), opt_u64(a.max_items));
                    quote!(#rules::count(#v.len(), #min, #max))
                });
                let each = a
                    .items
                    .as_ref()
                    .and_then(|items| self.check_expr(items, inner, quote!(x)))
                    .map(|c| quote!(#v.iter().all(|x| #c)));
                match (count, each) {
                    (Some(a), Some(b)) => Some(quote!((#a && #b))),
                    (a, b) => a.or(b),
                }
            }
            (Kind::Object(o), Ty::Map(inner)) => match &o.additional {
                Additional::Schema(s) => self
                    .check_expr(s, inner, quote!(x))
                    .map(|c| quote!(#v.values().all(|x| #c))),
                _ => None,
            },
            (Kind::Object(_), Ty::Struct(name, _)) if self.checked.contains(name) => {
                Some(quote!(#rt::Check::check(#v)))
            }
            _ => None,
        }
    }

    /// Generates a struct for `obj`. `prefix` starts the names of its nested types; `path`
    /// is its place in the root (for the type cache); `loc_of` places a property in a file.
    #[allow(clippy::too_many_arguments)]
    fn gen_struct(
        &mut self,
        name: &str,
        prefix: &str,
        obj: &ObjectRules,
        schema: &Schema,
        path: &str,
        loc_of: &dyn Fn(&str) -> Loc,
        loc: &Loc,
        doc: String,
        gate: Option<&checked::RawCheck>,
    ) -> StructInfo {
        let rt = &self.opts.runtime_path();
        let struct_ident = ident(name);
        let StructParts {
            fields,
            field_tokens,
            defaults,
            checks,
            additional,
        } = self.struct_parts(name, prefix, obj, path, loc_of, loc);
        if !checks.is_empty() {
            self.checked.insert(name.to_string());
        }
        let borrows = additional.is_some() || fields.iter().any(|(_, f)| f.ty.borrows());
        let lt = lifetime(borrows);
        let shape = StructShape {
            struct_ident: &struct_ident,
            lt: &lt,
            field_tokens: &field_tokens,
            defaults: &defaults,
            checks: &checks,
        };
        let into_owned = into_owned_fn(name, &struct_ident, borrows, &fields, additional.as_ref());
        let head = self.struct_head(obj, schema, doc);
        // A gate: keywords the struct does not hold, checked on the object as sent.
        let deserialize_body = match gate {
            Some(g) => checked::gated_deserialize(rt, &struct_ident, g, path),
            None => quote!(#struct_ident::deserialize(#rt::de::Object(deserializer))),
        };
        self.items.push(struct_items(
            rt,
            &shape,
            head,
            borrows,
            into_owned,
            deserialize_body,
        ));
        self.items.push(read_direct_impl(
            rt,
            &struct_ident,
            &lt,
            &fields,
            obj.denies_unknown(),
            additional.is_some() || gate.is_some(),
        ));
        StructInfo {
            name: name.to_string(),
            fields,
            borrows,
        }
    }

    /// The fields of a struct for `obj`, in property order, then its flattened map of the
    /// other properties, with their defaults' functions and checks (the conditional's last).
    fn struct_parts(
        &mut self,
        name: &str,
        prefix: &str,
        obj: &ObjectRules,
        path: &str,
        loc_of: &dyn Fn(&str) -> Loc,
        loc: &Loc,
    ) -> StructParts {
        let mut scope = Scope::new();
        let mut parts = StructParts {
            fields: Vec::new(),
            field_tokens: Vec::new(),
            defaults: Vec::new(),
            checks: Vec::new(),
            additional: None,
        };
        for (prop, pschema) in &obj.properties {
            let at = FieldAt {
                struct_name: name,
                prefix,
                path,
                loc: loc_of(prop),
            };
            let Some(field) = self.struct_field(&mut scope, obj, &at, prop, pschema) else {
                continue;
            };
            parts.field_tokens.push(field.tokens);
            parts.defaults.extend(field.default_fn);
            parts.checks.extend(field.check);
            parts.fields.push((prop.clone(), field.info));
        }
        if let Some((tokens, map, check)) =
            self.additional_field(&mut scope, obj, prefix, path, loc)
        {
            parts.field_tokens.push(tokens);
            parts.checks.extend(check);
            parts.additional = Some(map);
        }
        parts
            .checks
            .extend(self.conditional_check(obj, &parts.fields));
        parts
    }

    /// One property's field of a struct: its name claimed in the struct's `scope` (an
    /// identifier collision or a name with nothing to make one of is an error, and no
    /// field), its type, how it holds the value, its attributes and its check.
    fn struct_field(
        &mut self,
        scope: &mut Scope,
        obj: &ObjectRules,
        at: &FieldAt<'_>,
        prop: &String,
        pschema: &Schema,
    ) -> Option<FieldOut> {
        let ploc = &at.loc;
        let text = match snake_ident_text(prop) {
            Ok(t) => t,
            Err(why) => {
                self.errs.at(ploc, format!("property {why}"));
                return None;
            }
        };
        if let Err(first) = scope.claim(&text, &format!("`{prop}`")) {
            self.errs.at(
                ploc,
                format!(
                    "properties {first} and `{prop}` would both be the Rust field `{text}`; rename one"
                ),
            );
            return None;
        }
        let field_ident = ident(&text);
        let child_path = if at.path.is_empty() {
            prop.clone()
        } else {
            format!("{}.{prop}", at.path)
        };
        let hint = type_name(format!("{}{}", at.prefix, camel(prop)));
        let ty = self.ty(pschema, &hint, &child_path, ploc);
        let holding = self.field_holding(obj, prop, pschema, &text, &ty);
        let repr = holding.repr;
        let (field_ty, serde_attr, default_fn) = self.field_serde(at.struct_name, &holding);
        let rename = if text == *prop {
            quote!()
        } else {
            quote!(#[serde(rename = #prop)])
        };
        let doc_attr = self.field_doc(prop, pschema, &ty, repr);
        let tokens = quote! {
            #doc_attr
            #rename
            #serde_attr
            pub #field_ident: #field_ty
        };
        let access = quote!(self.#field_ident);
        let check = match repr {
            Repr::Optional => self
                .check_expr(pschema, &ty, quote!(v))
                .map(|c| quote!(#access.as_ref().is_none_or(|v| #c))),
            _ => self.check_expr(pschema, &ty, quote!((&#access))),
        };
        Some(FieldOut {
            tokens,
            default_fn,
            check,
            info: FieldInfo {
                ident: field_ident,
                ty,
                repr,
            },
        })
    }

    /// How property `prop`, of type `ty`, holds its value: required, filled with a default
    /// the generated code can write, or optional.
    fn field_holding<'t>(
        &self,
        obj: &ObjectRules,
        prop: &str,
        pschema: &Schema,
        text: &'t str,
        ty: &'t Ty,
    ) -> FieldHolding<'t> {
        // A default hides whether a field was sent. The conditional needs to know that of
        // the fields it requires, and of a field it tests for the default's own value.
        let default = obj
            .filled_default(prop, pschema)
            .and_then(|d| self.default_expr(ty, d));
        // A nullable field that may be absent: `None` for both, left out when written.
        let nullable_absent = matches!(ty, Ty::Nullable(..))
            && !obj.is_required(prop)
            && pschema.default.as_ref().is_none_or(|d| *d == Value::Null);
        let default = if nullable_absent {
            Some(quote!(::core::option::Option::None))
        } else {
            default
        };
        let repr = if obj.is_required(prop) {
            Repr::Required
        } else if default.is_some() {
            Repr::Defaulted
        } else {
            Repr::Optional
        };
        FieldHolding {
            text,
            ty,
            repr,
            default,
            nullable_absent,
        }
    }

    /// A field's type as declared (`Option<T>` when optional), its `#[serde(...)]`
    /// attribute, and the function writing its default, when it has one. Strings borrow
    /// from the input: `borrow` gives the impl `'de: 'a`, and makes serde borrow a
    /// `Cow<'a, str>` field itself; inside arrays and maps, and under `Option` (which goes
    /// through `de::some`), `de::borrowing` does it.
    fn field_serde(
        &self,
        struct_name: &str,
        h: &FieldHolding<'_>,
    ) -> (TokenStream, TokenStream, Option<TokenStream>) {
        let ty = h.ty;
        let ty_tokens = ty.tokens();
        let de = format!("{}::de::", self.opts.runtime);
        let mut serde_args: Vec<TokenStream> = Vec::new();
        let mut default_fn = None;
        if ty.borrows() {
            serde_args.push(quote!(borrow));
        }
        let field_ty = match h.repr {
            Repr::Required | Repr::Defaulted => {
                if h.repr == Repr::Defaulted {
                    let fn_ident = format_ident!("__default_{}", h.text.trim_start_matches("r#"));
                    let expr = h.default.clone().unwrap_or_default();
                    default_fn = Some(quote! {
                        #[doc(hidden)]
                        fn #fn_ident() -> #ty_tokens {
                            #expr
                        }
                    });
                    let path = format!("{struct_name}::{fn_ident}");
                    serde_args.push(quote!(default = #path));
                    if h.nullable_absent {
                        serde_args.push(quote!(
                            skip_serializing_if = "::core::option::Option::is_none"
                        ));
                    }
                }
                // An integer field takes `3.0` as the validator does (serde's `i64`
                // would not).
                if *ty == Ty::Int {
                    let with = format!("{de}integer");
                    serde_args.push(quote!(deserialize_with = #with));
                } else if ty.needs_borrowing() {
                    let with = format!("{de}borrowing");
                    serde_args.push(quote!(deserialize_with = #with));
                }
                ty_tokens.clone()
            }
            Repr::Optional => {
                let with = if *ty == Ty::Int {
                    format!("{de}some_integer")
                } else if *ty == Ty::Str || ty.needs_borrowing() {
                    format!("{de}some_borrowing")
                } else {
                    format!("{de}some")
                };
                serde_args.push(quote!(default));
                serde_args.push(quote!(
                    skip_serializing_if = "::core::option::Option::is_none"
                ));
                serde_args.push(quote!(deserialize_with = #with));
                quote!(::core::option::Option<#ty_tokens>)
            }
        };
        let serde_attr = if serde_args.is_empty() {
            quote!()
        } else {
            quote!(#[serde(#(#serde_args),*)])
        };
        (field_ty, serde_attr, default_fn)
    }

    /// A field's documentation: its description as a doc comment, or, with `schemars`,
    /// what schemars should state of it (description, title, the type it stands for,
    /// default and constraints).
    fn field_doc(&self, prop: &str, pschema: &Schema, ty: &Ty, repr: Repr) -> TokenStream {
        if !self.opts.schemars {
            let d = pschema
                .description
                .clone()
                .unwrap_or_else(|| format!("`{prop}`"));
            return quote!(#[doc = #d]);
        }
        let mut attrs = Vec::new();
        if let Some(d) = &pschema.description {
            attrs.push(quote!(#[schemars(description = #d)]));
        }
        if let Some(t) = &pschema.title {
            attrs.push(quote!(#[schemars(title = #t)]));
        }
        if repr == Repr::Optional || *ty == Ty::Int {
            let with = ty.tokens().to_string();
            attrs.push(quote!(#[schemars(with = #with)]));
        }
        if repr == Repr::Optional
            && let Some(d) = &pschema.default
        {
            let d = json_tokens(d);
            attrs.push(quote!(#[schemars(extend("default" = #d))]));
        }
        // A nullable's constraints are its non-null alternative's.
        attrs.extend(constraint_extensions(match ty {
            Ty::Nullable(_, inner) => inner,
            _ => pschema,
        }));
        quote!(#(#attrs)*)
    }

    /// The flattened `additional_properties` map of a struct whose `additionalProperties`
    /// is a schema beside properties: its field's tokens, its type and its check.
    fn additional_field(
        &mut self,
        scope: &mut Scope,
        obj: &ObjectRules,
        prefix: &str,
        path: &str,
        loc: &Loc,
    ) -> Option<(TokenStream, Ty, Option<TokenStream>)> {
        let Additional::Schema(s) = &obj.additional else {
            return None;
        };
        if obj.properties.is_empty() {
            return None;
        }
        let aloc = loc.key("additionalProperties");
        if let Err(first) = scope.claim("additional_properties", "`additionalProperties`") {
            self.errs.at(
                &aloc,
                format!(
                    "property {first} would be the Rust field `additional_properties`, which holds the other properties; rename it"
                ),
            );
            return None;
        }
        let borrowing_path = format!("{}::de::borrowing", self.opts.runtime);
        let child_path = format!("{path}{{}}");
        let ty = self.ty(s, &type_name(format!("{prefix}Value")), &child_path, &aloc);
        self.map_value(&ty);
        let map = Ty::Map(Box::new(ty.clone()));
        let map_tokens = map.tokens();
        let tokens = quote! {
            /// The other properties (`additionalProperties`).
            #[serde(
                flatten,
                borrow,
                deserialize_with = #borrowing_path
            )]
            pub additional_properties: #map_tokens
        };
        let check = self
            .check_expr(s, &ty, quote!(x))
            .map(|c| quote!(self.additional_properties.values().all(|x| #c)));
        Some((tokens, map, check))
    }

    /// The check of an `if`/`then` on a struct: when the `if` holds, each field the `then`
    /// requires is present (none when it requires no optional field).
    fn conditional_check(
        &self,
        obj: &ObjectRules,
        fields: &[(String, FieldInfo)],
    ) -> Option<TokenStream> {
        let c = obj.conditional.as_ref()?;
        let when: Vec<TokenStream> = c
            .when
            .iter()
            .map(|(f, constant)| self.when_test(fields, f, constant))
            .collect();
        let present: Vec<TokenStream> = c
            .then_required
            .iter()
            .filter_map(|f| {
                let (_, info) = fields.iter().find(|(n, _)| n == f)?;
                let id = &info.ident;
                (info.repr == Repr::Optional).then(|| quote!(self.#id.is_some()))
            })
            .collect();
        (!present.is_empty()).then(|| quote!((!(#(#when)&&*) || (#(#present)&&*))))
    }

    /// The attributes above a struct: its doc (or, with `schemars`, the derive and the
    /// `if`/`then` schemars should carry), and `deny_unknown_fields` when it denies them.
    fn struct_head(&self, obj: &ObjectRules, schema: &Schema, doc: String) -> StructHead {
        let deny = if obj.denies_unknown() {
            quote!(#[serde(deny_unknown_fields)])
        } else {
            quote!()
        };
        if !self.opts.schemars {
            return StructHead {
                doc_attr: quote!(#[doc = #doc]),
                derive_schema: quote!(),
                deny,
                extend_if: quote!(),
            };
        }
        let extend_if = match schema.to_json() {
            Value::Object(m) if m.contains_key("if") => {
                let i = m.get("if").map(json_tokens).unwrap_or_default();
                let t = m.get("then").map(json_tokens).unwrap_or_default();
                quote!(#[schemars(extend("if" = #i, "then" = #t))])
            }
            _ => quote!(),
        };
        StructHead {
            doc_attr: quote!(#[allow(missing_docs)]),
            derive_schema: quote!(, ::schemars::JsonSchema),
            deny,
            extend_if,
        }
    }

    /// A boolean expression: field `f` holds `constant` (an `if` test).
    fn when_test(&self, fields: &[(String, FieldInfo)], f: &str, constant: &Value) -> TokenStream {
        let rt = &self.opts.runtime_path();
        let Some((_, info)) = fields.iter().find(|(n, _)| n == f) else {
            return quote!(false);
        };
        let id = &info.ident;
        let optional = info.repr == Repr::Optional;
        let rules = quote!(#rt::rules);
        match (&info.ty, constant) {
            (Ty::Enum(name), Value::String(s)) => {
                let Some(v) = self.enum_variant(name, s) else {
                    // A restricted cell removed the value: the condition cannot hold.
                    return quote!(false);
                };
                let t = ident(name);
                if optional {
                    quote!((self.#id == ::core::option::Option::Some(#t::#v)))
                } else {
                    quote!((self.#id == #t::#v))
                }
            }
            (Ty::Str, Value::String(s)) => {
                if optional {
                    quote!((self.#id.as_deref() == ::core::option::Option::Some(#s)))
                } else {
                    quote!((self.#id == #s))
                }
            }
            (Ty::Bool, Value::Bool(b)) => {
                if optional {
                    quote!((self.#id == ::core::option::Option::Some(#b)))
                } else if *b {
                    quote!(self.#id)
                } else {
                    quote!((!self.#id))
                }
            }
            (Ty::Int | Ty::Num, Value::Number(n)) => {
                let c = number_lit(*n);
                let cast = if info.ty == Ty::Int {
                    quote!(as f64)
                } else {
                    quote!()
                };
                if optional {
                    quote!(self.#id.is_some_and(|v| #rules::same_number(v #cast, #c)))
                } else {
                    quote!(#rules::same_number(self.#id #cast, #c))
                }
            }
            _ => {
                let text = to_compact(constant);
                if optional {
                    quote!(self.#id.as_ref().is_some_and(|v| #rules::equals_json(v, #text)))
                } else {
                    quote!(#rules::equals_json(&self.#id, #text))
                }
            }
        }
    }

    /// `From<narrow>` for the type a restricted cell's enum `narrow` widens to (the base's
    /// enum of which it is a subset, or its string), or `None` when there is none.
    fn widen_enum(&self, narrow: &Ty, base: &Ty) -> Option<TokenStream> {
        let Ty::Enum(from) = narrow else { return None };
        let from_ident = ident(from);
        match base {
            Ty::Enum(to) => {
                let to_ident = ident(to);
                let (_, vars) = self.enums.iter().find(|(n, _)| n == from)?;
                let mut arms = Vec::new();
                for (wire, v) in vars {
                    let bv = self.enum_variant(to, wire)?;
                    arms.push(quote!(#from_ident::#v => #to_ident::#bv));
                }
                let doc = format!("Widens a `{from}` to the `{to}` it is a subset of.");
                Some(quote! {
                    impl ::core::convert::From<#from_ident> for #to_ident {
                        #[doc = #doc]
                        fn from(value: #from_ident) -> #to_ident {
                            match value {
                                #(#arms,)*
                            }
                        }
                    }
                })
            }
            Ty::Str => Some(quote! {
                impl<'a> ::core::convert::From<#from_ident> for ::std::borrow::Cow<'a, str> {
                    /// The value as sent on the wire.
                    fn from(value: #from_ident) -> ::std::borrow::Cow<'a, str> {
                        ::std::borrow::Cow::Borrowed(value.as_str())
                    }
                }
            }),
            _ => None,
        }
    }

    /// `From<narrow> for base` for a restricted struct, and for each narrowed enum.
    fn conversion(&mut self, narrow: &StructInfo, base: &StructInfo) {
        let n_ident = ident(&narrow.name);
        let b_ident = ident(&base.name);
        let mut inits = Vec::new();
        let mut enum_impls = Vec::new();
        for (prop, nf) in &narrow.fields {
            let Some((_, bf)) = base.fields.iter().find(|(p, _)| p == prop) else {
                return;
            };
            let id = &nf.ident;
            if nf.ty == bf.ty && nf.repr == bf.repr {
                inits.push(quote!(#id: narrow.#id));
                continue;
            }
            let Some(widen) = self.widen_enum(&nf.ty, &bf.ty) else {
                return;
            };
            enum_impls.push(widen);
            let init = match (nf.repr, bf.repr) {
                (Repr::Required, Repr::Required) | (Repr::Defaulted, Repr::Defaulted) => {
                    quote!(#id: ::core::convert::Into::into(narrow.#id))
                }
                (Repr::Optional, Repr::Optional) => {
                    quote!(#id: narrow.#id.map(::core::convert::Into::into))
                }
                (Repr::Optional, Repr::Defaulted) => {
                    let f = format_ident!("__default_{}", id.to_string().trim_start_matches("r#"));
                    quote!(#id: narrow.#id.map(::core::convert::Into::into).unwrap_or_else(#b_ident::#f))
                }
                _ => return,
            };
            inits.push(init);
        }
        if base
            .fields
            .iter()
            .any(|(p, _)| !narrow.fields.iter().any(|(q, _)| q == p))
        {
            return;
        }
        let doc = format!(
            "Widens the restricted `{}` to `{}`, so code shared with other profiles can take it.",
            narrow.name, base.name
        );
        // Narrowing turns strings into enums, so the narrow type borrows only if the base does.
        let generics = lifetime(base.borrows);
        let n_lt = lifetime(narrow.borrows);
        let b_lt = lifetime(base.borrows);
        self.items.push(quote! {
            #(#enum_impls)*

            impl #generics ::core::convert::From<#n_ident #n_lt> for #b_ident #b_lt {
                #[doc = #doc]
                fn from(narrow: #n_ident #n_lt) -> #b_ident #b_lt {
                    #b_ident {
                        #(#inits,)*
                    }
                }
            }
        });
    }
}

/// A generated enum of wire values and its impls: `WireEnum` (its `Deserialize` reads
/// only a JSON string), `ALL`, `as_str`, `Display` and a `Check` that always holds.
fn enum_items(
    rt: &TokenStream,
    ty_ident: &Ident,
    variants: &[(String, Ident)],
    doc: &str,
    schemars: bool,
) -> TokenStream {
    let arms = variants.iter().map(|(wire, id)| {
        let doc = format!("`\"{wire}\"`");
        let doc = if schemars {
            quote!()
        } else {
            quote!(#[doc = #doc])
        };
        quote! {
            #doc
            #[serde(rename = #wire)]
            #id
        }
    });
    let (doc, derive_schema) = if schemars {
        (
            quote!(#[allow(missing_docs)]),
            quote!(, ::schemars::JsonSchema),
        )
    } else {
        (quote!(#[doc = #doc]), quote!())
    };
    let impls = enum_impls(rt, ty_ident, variants);
    quote! {
        #doc
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ::serde::Serialize #derive_schema)]
        pub enum #ty_ident {
            #(#arms,)*
        }

        #impls
    }
}

/// The impls of a generated enum ([`enum_items`]).
fn enum_impls(rt: &TokenStream, ty_ident: &Ident, variants: &[(String, Ident)]) -> TokenStream {
    let all = variants.iter().map(|(_, id)| quote!(#ty_ident::#id));
    let as_str = variants
        .iter()
        .map(|(wire, id)| quote!(#ty_ident::#id => #wire));
    let wires = variants.iter().map(|(wire, _)| wire);
    let from_wire = variants
        .iter()
        .map(|(wire, id)| quote!(#wire => ::core::option::Option::Some(#ty_ident::#id)));
    quote! {
        impl #rt::de::WireEnum for #ty_ident {
            const VALUES: &'static [&'static str] = &[#(#wires),*];
            #[inline]
            fn from_wire(value: &str) -> ::core::option::Option<Self> {
                match value {
                    #(#from_wire,)*
                    _ => ::core::option::Option::None,
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #ty_ident {
            #[inline]
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                #rt::de::wire_enum(deserializer)
            }
        }

        impl #ty_ident {
            /// Every value, in declared order.
            pub const ALL: &'static [#ty_ident] = &[#(#all),*];

            /// The value as sent on the wire.
            pub const fn as_str(self) -> &'static str {
                match self {
                    #(#as_str,)*
                }
            }
        }

        impl ::core::fmt::Display for #ty_ident {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl #rt::Check for #ty_ident {
            #[inline]
            fn check(&self) -> bool {
                true
            }
        }

    }
}

/// `impl ReadDirect` for a generated enum: its value matched as bytes.
fn enum_read_direct(
    rt: &TokenStream,
    ty_ident: &Ident,
    variants: &[(String, Ident)],
) -> TokenStream {
    let direct = quote!(#rt::direct);
    let read_arms = variants.iter().map(|(wire, id)| {
        let bytes = Literal::byte_string(wire.as_bytes());
        quote!(#bytes => ::core::result::Result::Ok(#ty_ident::#id))
    });
    quote! {
        impl<'a> #direct::ReadDirect<'a> for #ty_ident {
            #[inline]
            fn read(r: &mut #direct::Reader<'a>) -> #direct::Direct<Self> {
                match r.enum_name()? {
                    #(#read_arms,)*
                    _ => ::core::result::Result::Err(#direct::Fallback),
                }
            }
        }
    }
}

/// What [`Module::struct_parts`] collects for a struct.
struct StructParts {
    fields: Vec<(String, FieldInfo)>,
    field_tokens: Vec<TokenStream>,
    defaults: Vec<TokenStream>,
    checks: Vec<TokenStream>,
    /// The flattened map of the other properties, when there is one.
    additional: Option<Ty>,
}

/// Where a struct's property is: the struct's name (its defaults' functions live in it),
/// the prefix of nested type names, the struct's path in the root, the property's place.
struct FieldAt<'a> {
    struct_name: &'a str,
    prefix: &'a str,
    path: &'a str,
    loc: Loc,
}

/// How a field holds its value, as its attributes need to know it.
struct FieldHolding<'a> {
    /// The field's identifier text.
    text: &'a str,
    ty: &'a Ty,
    repr: Repr,
    /// The default's expression, for a defaulted field.
    default: Option<TokenStream>,
    /// A nullable field that may be absent (`None` for both, left out when written).
    nullable_absent: bool,
}

/// One property's field as [`Module::gen_struct`] writes it.
struct FieldOut {
    tokens: TokenStream,
    /// The function writing its default, for a defaulted field.
    default_fn: Option<TokenStream>,
    check: Option<TokenStream>,
    info: FieldInfo,
}

/// The attributes above a generated struct ([`Module::struct_head`]).
struct StructHead {
    doc_attr: TokenStream,
    derive_schema: TokenStream,
    deny: TokenStream,
    extend_if: TokenStream,
}

/// A struct's parts that [`struct_items`] writes out.
struct StructShape<'a> {
    struct_ident: &'a Ident,
    lt: &'a TokenStream,
    field_tokens: &'a [TokenStream],
    defaults: &'a [TokenStream],
    checks: &'a [TokenStream],
}

/// `into_owned()` of a struct: the same type with `'static`, each borrowed string copied
/// (or the value itself, for a struct that borrows nothing).
fn into_owned_fn(
    name: &str,
    struct_ident: &Ident,
    borrows: bool,
    fields: &[(String, FieldInfo)],
    additional: Option<&Ty>,
) -> TokenStream {
    if !borrows {
        return quote! {
            /// The same arguments: this type borrows nothing (every argument type has
            /// `into_owned`).
            pub fn into_owned(self) -> #struct_ident {
                self
            }
        };
    }
    let owned_fields = fields
        .iter()
        .map(|(_, f)| {
            let id = &f.ident;
            let e = if f.repr == Repr::Optional && f.ty.borrows() {
                let e = owned_expr(&f.ty, quote!(x));
                quote!(self.#id.map(|x| #e))
            } else {
                owned_expr(&f.ty, quote!(self.#id))
            };
            quote!(#id: #e)
        })
        .chain(additional.map(|map| {
            let e = owned_expr(map, quote!(self.additional_properties));
            quote!(additional_properties: #e)
        }));
    let doc = format!(
        "The same arguments owning their strings (`{name}<'static>`), to keep past the call or move into a task."
    );
    quote! {
        #[doc = #doc]
        pub fn into_owned(self) -> #struct_ident<'static> {
            #struct_ident {
                #(#owned_fields,)*
            }
        }
    }
}

/// A generated struct and its impls: the serde derive behind `remote = "Self"` (see the
/// module doc: a struct reads only a JSON object), `Serialize`, `into_owned` and the
/// defaults' functions, and `Check`.
fn struct_items(
    rt: &TokenStream,
    shape: &StructShape<'_>,
    head: StructHead,
    borrows: bool,
    into_owned: TokenStream,
    deserialize_body: TokenStream,
) -> TokenStream {
    let StructShape {
        struct_ident,
        lt,
        field_tokens,
        defaults,
        checks,
    } = shape;
    let StructHead {
        doc_attr,
        derive_schema,
        deny,
        extend_if,
    } = head;
    let check_body = if checks.is_empty() {
        quote!(true)
    } else {
        quote!(#(#checks)&&*)
    };
    let de_generics = if borrows {
        quote!(<'de: 'a, 'a>)
    } else {
        quote!(<'de>)
    };
    quote! {
        #doc_attr
        #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize #derive_schema)]
        #[serde(remote = "Self")]
        #deny
        #extend_if
        pub struct #struct_ident #lt {
            #(#field_tokens,)*
        }

        impl #de_generics ::serde::Deserialize<'de> for #struct_ident #lt {
            #[inline]
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                #deserialize_body
            }
        }

        impl #lt ::serde::Serialize for #struct_ident #lt {
            #[inline]
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                #struct_ident::serialize(self, serializer)
            }
        }

        impl #lt #struct_ident #lt {
            #into_owned

            #(#defaults)*
        }

        impl #lt #rt::Check for #struct_ident #lt {
            #[inline]
            fn check(&self) -> bool {
                #check_body
            }
        }

    }
}

/// `impl ReadDirect` for a generated struct: one pass over the members, each matched by
/// its name as bytes into a local, then the struct built from the locals (a required field
/// missing, a member given twice, or one a struct that denies unknown fields does not know:
/// `Fallback`, and serde decides). A struct with an `additional_properties` map (serde's
/// `flatten`) or a gate (keywords checked on the object as sent) always falls back.
fn read_direct_impl(
    rt: &TokenStream,
    struct_ident: &Ident,
    lt: &TokenStream,
    fields: &[(String, FieldInfo)],
    denies_unknown: bool,
    flattened: bool,
) -> TokenStream {
    let direct = quote!(#rt::direct);
    let ok = quote!(::core::result::Result::Ok);
    let err = quote!(::core::result::Result::Err(#direct::Fallback));
    let body = if flattened {
        quote!(#err)
    } else if fields.is_empty() && denies_unknown {
        quote! {
            if __r.object_start()? {
                return #err;
            }
            #ok(Self {})
        }
    } else {
        let local =
            |f: &FieldInfo| format_ident!("__f_{}", f.ident.to_string().trim_start_matches("r#"));
        let decls = fields.iter().map(|(_, f)| {
            let l = local(f);
            let t = f.ty.tokens();
            quote!(let mut #l: ::core::option::Option<#t> = ::core::option::Option::None;)
        });
        let arms = fields.iter().map(|(prop, f)| {
            let l = local(f);
            let bytes = Literal::byte_string(prop.as_bytes());
            quote!(#bytes => __r.once(&mut #l)?)
        });
        let unknown = if denies_unknown {
            quote!(return #err)
        } else {
            quote!(__r.ignore()?)
        };
        let inits = fields.iter().map(|(_, f)| {
            let l = local(f);
            let id = &f.ident;
            match f.repr {
                Repr::Required => quote!(#id: #l.ok_or(#direct::Fallback)?),
                Repr::Defaulted => {
                    let d = format_ident!("__default_{}", id.to_string().trim_start_matches("r#"));
                    quote!(#id: #l.unwrap_or_else(Self::#d))
                }
                Repr::Optional => quote!(#id: #l),
            }
        });
        quote! {
            #(#decls)*
            let mut __more = __r.object_start()?;
            while __more {
                match __r.key()? {
                    #(#arms,)*
                    _ => #unknown,
                }
                __more = __r.object_next()?;
            }
            #ok(Self {
                #(#inits,)*
            })
        }
    };
    quote! {
        impl<'a> #direct::ReadDirect<'a> for #struct_ident #lt {
            #[inline]
            fn read(__r: &mut #direct::Reader<'a>) -> #direct::Direct<Self> {
                #body
            }
        }
    }
}

/// `schemars(extend(...))` attributes carrying a field's constraints, so that the schema
/// schemars derives from the type states them too.
fn constraint_extensions(schema: &Schema) -> Vec<TokenStream> {
    constraint_extension_values(schema)
        .into_iter()
        .map(|(key, v)| {
            let v = json_tokens(&v);
            quote!(#[schemars(extend(#key = #v))])
        })
        .collect()
}

/// The constraints of `schema` that a Rust type does not state (lengths, bounds, sizes),
/// as keywords and values.
pub(crate) fn constraint_extension_values(schema: &Schema) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    let mut put = |key: &'static str, v: Value| out.push((key, v));
    match &schema.kind {
        Kind::String(s) => {
            if let Some(n) = s.min_length {
                put("minLength", Value::from(n));
            }
            if let Some(n) = s.max_length {
                put("maxLength", Value::from(n));
            }
        }
        Kind::Integer(n) | Kind::Number(n) => {
            for (key, v) in [
                ("minimum", n.minimum),
                ("maximum", n.maximum),
                ("exclusiveMinimum", n.exclusive_minimum),
                ("exclusiveMaximum", n.exclusive_maximum),
            ] {
                if let Some(v) = v {
                    put(key, Value::Number(v));
                }
            }
        }
        Kind::Array(a) => {
            if let Some(n) = a.min_items {
                put("minItems", Value::from(n));
            }
            if let Some(n) = a.max_items {
                put("maxItems", Value::from(n));
            }
        }
        _ => {}
    }
    out
}
