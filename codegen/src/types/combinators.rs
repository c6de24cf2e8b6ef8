//! The keywords of the subset beyond the typed model that still have a faithful Rust type:
//! `anyOf`/`oneOf` (a Rust enum, tagged by a `const` discriminator property when every
//! alternative has one), nullable (`type: [X, "null"]`, `anyOf: [X, {"type": "null"}]`:
//! `Option<X>`), other `type` lists (an enum per type), `const` (a unit type) and an `enum`
//! of any JSON values (a checked value). Each such type decodes exactly what its schema
//! accepts: an alternative is taken only when it decodes and passes its `Check`; a `oneOf`
//! value that two alternatives take is refused, as the schema refuses it.
//!
//! Every other keyword the typed model does not hold (`pattern`, `allOf`, `not`,
//! `if`/`then`/`else`, ...) is typed by `checked`: the most specific type the schema allows
//! and a run-time check of the rest, so that generated code never accepts what the schema
//! refuses nor refuses what it accepts. A recursive `$ref` to a definition
//! (`#/$defs/NAME`, `#/definitions/NAME`) is its definition's named type, boxed (`defs`);
//! any other recursive local `$ref` (`#`) is a checked value.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::super::Loc;
use super::super::naming::{Scope, camel_ident_text, ident, type_name};
use super::{Module, Ty, lifetime, owned_expr};
use toolgate_schema::json::{Map, Value, to_compact};
use toolgate_schema::model::{Kind, Schema};

/// Keywords of `extra` that need no type or check: `propertyNames` that only says keys
/// are strings (which JSON object keys always are).
fn trivial(key: &str, value: &Value) -> bool {
    if key != "propertyNames" {
        return false;
    }
    match value {
        Value::Bool(true) => true,
        Value::Object(m) => m
            .iter()
            .all(|(k, v)| k == "type" && v.as_str() == Some("string")),
        _ => false,
    }
}

/// The keywords of `schema.extra` that matter for typing.
pub(crate) fn significant(schema: &Schema) -> Vec<(&str, &Value)> {
    schema
        .extra
        .iter()
        .filter(|(k, v)| !trivial(k, v))
        .map(|(k, v)| (k.as_str(), v))
        .collect()
}

/// The types of a `type` list, when `schema` has one.
fn type_list(schema: &Schema) -> Option<Vec<String>> {
    schema
        .extra
        .iter()
        .find_map(|(k, v)| match (k.as_str(), v) {
            ("type", Value::Array(items)) => Some(
                items
                    .iter()
                    .filter_map(|t| t.as_str().map(String::from))
                    .collect(),
            ),
            _ => None,
        })
}

/// Whether the kind beside a combinator adds nothing of its own (no type, or an object
/// type with no rules, which every object alternative restates).
fn bare_kind(schema: &Schema) -> bool {
    match &schema.kind {
        Kind::Any => true,
        Kind::Object(o) => {
            o.properties.is_empty()
                && o.required.is_empty()
                && o.conditional.is_none()
                && matches!(o.additional, toolgate_schema::model::Additional::Unstated)
        }
        _ => false,
    }
}

/// Keywords that apply only to one JSON type (so a `type` list gives each to its type).
fn owner(key: &str) -> Option<&'static str> {
    Some(match key {
        "minLength" | "maxLength" | "pattern" => "string",
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => "number",
        "items" | "minItems" | "maxItems" | "uniqueItems" | "contains" | "prefixItems"
        | "minContains" | "maxContains" | "additionalItems" => "array",
        "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "propertyNames"
        | "minProperties"
        | "maxProperties"
        | "dependentRequired"
        | "dependentSchemas"
        | "dependencies" => "object",
        _ => return None,
    })
}

fn is_null(schema: &Schema) -> bool {
    matches!(schema.kind, Kind::Any)
        && schema.extra.len() == 1
        && schema
            .extra
            .first()
            .is_some_and(|(k, v)| k == "type" && v.as_str() == Some("null"))
}

/// The JSON type name an alternative is named by when it has no `title`.
fn kind_word(schema: &Schema) -> &'static str {
    match &schema.kind {
        Kind::Any => "Value",
        Kind::Boolean => "Boolean",
        Kind::String(_) => "String",
        Kind::Integer(_) => "Integer",
        Kind::Number(_) => "Number",
        Kind::Array(_) => "Array",
        Kind::Object(_) => "Object",
    }
}

/// A `const` string discriminator shared by every alternative: the property, and per
/// alternative its value.
fn discriminator(alts: &[Schema]) -> Option<(String, Vec<String>)> {
    let first = alts.first()?.as_object()?;
    'props: for (prop, _) in &first.properties {
        let mut values = Vec::new();
        for alt in alts {
            let o = alt.as_object()?;
            if !o.is_required(prop) {
                continue 'props;
            }
            let Some(p) = o.property(prop) else {
                continue 'props;
            };
            let Some(v) = p
                .extra
                .iter()
                .find_map(|(k, v)| if k == "const" { v.as_str() } else { None })
            else {
                continue 'props;
            };
            if values.iter().any(|x: &String| x == v) {
                continue 'props;
            }
            values.push(v.to_string());
        }
        return Some((prop.clone(), values));
    }
    None
}

/// How a union picks its alternative.
enum Pick {
    /// The first that decodes and checks (`anyOf`, a `type` list).
    First,
    /// Exactly one must decode and check (`oneOf`).
    One,
    /// By the string value of a discriminator property.
    Tag(String, Vec<String>),
}

impl Module<'_> {
    /// The type of a schema with keywords beyond the typed model (`extra`).
    pub(super) fn ty_extra(&mut self, schema: &Schema, hint: &str, path: &str, loc: &Loc) -> Ty {
        let extra = significant(schema);
        if let Some(types) = type_list(schema) {
            // One alternative per type, each with the keywords that apply to it.
            let siblings: Vec<(&str, &Value)> = extra
                .iter()
                .filter(|(k, _)| *k != "type")
                .copied()
                .collect();
            let alts: Vec<Value> = types
                .iter()
                .map(|t| {
                    let mut m = Map::new();
                    m.insert("type", Value::str(t.clone()));
                    for (k, v) in &siblings {
                        let applies = match owner(k) {
                            None => true,
                            Some("number") => t == "number" || t == "integer",
                            Some(o) => o == t,
                        };
                        if applies && t != "null" {
                            m.insert(*k, (*v).clone());
                        }
                    }
                    Value::Object(m)
                })
                .collect();
            return self.alternatives(schema, &alts, Pick::First, "type", hint, path, loc);
        }
        match extra.as_slice() {
            // The values the whole schema accepts (a `type` or bounds beside them).
            [("const", v)] => {
                let values = self.admitted(schema, std::slice::from_ref(*v));
                let unit = !values.is_empty();
                self.literal(schema, &values, unit, hint, path, loc)
            }
            [("enum", Value::Array(vs))] => {
                let values = self.admitted(schema, vs);
                self.literal(schema, &values, false, hint, path, loc)
            }
            [("$ref", Value::String(r))] if names_a_type(r) => self.recursive_ref(r, loc),
            [(k @ ("anyOf" | "oneOf"), Value::Array(alts))] if bare_kind(schema) => {
                let pick = if *k == "anyOf" {
                    Pick::First
                } else {
                    Pick::One
                };
                let k = k.to_string();
                // An object kind beside the combinator: every alternative is an object too.
                let alts: Vec<Value> = alts
                    .iter()
                    .map(|a| match (&schema.kind, a) {
                        (Kind::Object(_), Value::Object(m)) if !m.contains_key("type") => {
                            let mut m = m.clone();
                            m.insert("type", Value::str("object"));
                            Value::Object(m)
                        }
                        _ => a.clone(),
                    })
                    .collect();
                self.alternatives(schema, &alts, pick, &k, hint, path, loc)
            }
            _ => self.ty_checked(schema, hint, path, loc),
        }
    }

    /// A recursive `$ref` (the model keeps it as a reference) where the generator does not
    /// follow the authored schema: the named type of its definition, boxed (see `defs`).
    fn recursive_ref(&mut self, r: &str, loc: &Loc) -> Ty {
        match self.def_type(r) {
            Some(t @ Ty::Boxed(_)) => t,
            Some(t) => Ty::Boxed(Box::new(t)),
            None => {
                self.errs.at(
                    &loc.key("$ref"),
                    format!("catalog! cannot type the recursive `$ref` {r}: only `#/$defs/NAME` and `#/definitions/NAME` name a type"),
                );
                Ty::Any
            }
        }
    }

    /// `const` (a unit type, `unit`) or an `enum` of JSON values (a checked value).
    pub(super) fn literal(
        &mut self,
        schema: &Schema,
        values: &[Value],
        unit: bool,
        hint: &str,
        path: &str,
        loc: &Loc,
    ) -> Ty {
        if let Some(t) = self.cached(path, schema) {
            return t;
        }
        let what = format!(
            "the {} `{path}` in {}",
            if unit { "const" } else { "enum" },
            loc.file
        );
        if !self.claim_type(hint, &what, loc) {
            return Ty::Any;
        }
        let rt = &self.opts.runtime_path();
        let name = ident(hint);
        let texts: Vec<String> = values.iter().map(to_compact).collect();
        let listed = texts.join(", ");
        let doc = super::type_doc(schema, || {
            if unit {
                format!("The constant {listed} (`{path}`).")
            } else {
                format!("One of {listed} (`{path}`).")
            }
        });
        let refusal = if unit {
            format!("`{path}` must be {listed}")
        } else {
            format!("`{path}` must be one of {listed}")
        };
        let tokens = if unit {
            const_tokens(rt, &name, &doc, &texts[0], &refusal)
        } else {
            enum_value_tokens(rt, &name, &doc, &texts, &refusal)
        };
        let accept = if unit {
            let text = &texts[0];
            quote!(#rt::rules::equals_json(&__v, #text).then_some(#name))
        } else {
            quote!(#name::new(__v))
        };
        if self.opts.schemars {
            let (keyword, value) = if unit {
                ("const", values[0].clone())
            } else {
                ("enum", Value::Array(values.to_vec()))
            };
            self.items.push(super::json_schema::literal_impl(
                &name, keyword, value, schema,
            ));
        }
        self.items.push(literal_items(rt, &name, tokens, accept));
        let t = Ty::Literal(hint.to_string());
        self.cache
            .push((self.variant, path.to_string(), schema.clone(), t.clone()));
        t
    }

    /// The type of alternatives (raw subschemas): `Option` for a `null` one, the one left
    /// itself, or a generated enum.
    #[allow(clippy::too_many_arguments)]
    fn alternatives(
        &mut self,
        schema: &Schema,
        raw: &[Value],
        pick: Pick,
        keyword: &str,
        hint: &str,
        path: &str,
        loc: &Loc,
    ) -> Ty {
        if let Some(t) = self.cached(path, schema) {
            return t;
        }
        let mut nullable = false;
        let mut alts: Vec<(Schema, Loc)> = Vec::new();
        for (i, r) in raw.iter().enumerate() {
            let at = if keyword == "type" {
                loc.key("type").index(i)
            } else {
                loc.key(keyword).index(i)
            };
            let Some(mut s) = self.parse_sub(r) else {
                // An alternative the model cannot read on its own: the value, checked.
                return self.checked_value(schema, loc);
            };
            if is_null(&s) {
                nullable = true;
                continue;
            }
            // An alternative's own description names the variant's doc, not the field's.
            if s.description.is_none() {
                s.description.clone_from(&schema.description);
            }
            alts.push((s, at));
        }
        if nullable && matches!(pick, Pick::One) && alts.iter().any(|(s, _)| accepts_null(s)) {
            // `null` would match two alternatives, which `Option` cannot say: the value,
            // checked.
            return self.checked_value(schema, loc);
        }
        let inner = match alts.len() {
            // Only `null`: the constant.
            0 => return self.literal(schema, &[Value::Null], true, hint, path, loc),
            1 => {
                let (s, at) = &alts[0];
                let t = self.ty(s, hint, path, at);
                if !nullable {
                    return t;
                }
                let out = Ty::Nullable(Box::new(t), Box::new(s.clone()));
                self.cache
                    .push((self.variant, path.to_string(), schema.clone(), out.clone()));
                return out;
            }
            _ => {
                let schemas: Vec<Schema> = alts.iter().map(|(s, _)| s.clone()).collect();
                let pick = match pick {
                    Pick::One => match discriminator(&schemas) {
                        Some((p, vs)) => Pick::Tag(p, vs),
                        None => Pick::One,
                    },
                    other => other,
                };
                self.union(schema, &alts, pick, hint, path, loc)
            }
        };
        let out = if nullable {
            Ty::Nullable(Box::new(inner), Box::new(Schema::any()))
        } else {
            inner
        };
        self.cache
            .push((self.variant, path.to_string(), schema.clone(), out.clone()));
        out
    }

    /// The enum of two or more alternatives (`anyOf`, `oneOf`, a `type` list), a variant
    /// per alternative, decoding the value as `pick` says.
    fn union(
        &mut self,
        schema: &Schema,
        alts: &[(Schema, Loc)],
        pick: Pick,
        hint: &str,
        path: &str,
        loc: &Loc,
    ) -> Ty {
        let what = format!("the alternatives of `{path}` in {}", loc.file);
        if !self.claim_type(hint, &what, loc) {
            return Ty::Any;
        }
        let rt = &self.opts.runtime_path();
        let texts = self.union_variant_names(alts, &pick);
        let mut variants: Vec<(Ident, Ty, Schema)> = Vec::new();
        for ((s, at), text) in alts.iter().zip(&texts) {
            let child = type_name(format!("{hint}{text}"));
            let t = self.ty(s, &child, &format!("{path}|{text}"), at);
            variants.push((ident(text), t, s.clone()));
        }
        let name = ident(hint);
        let borrows = variants.iter().any(|(_, t, _)| t.borrows());
        let lt = lifetime(borrows);
        let doc = super::type_doc(schema, || {
            format!("The alternatives of `{path}` ({}).", loc.file)
        });
        let arms = self.union_arms(alts, &variants);
        let (check_arms, any_check) = self.union_checks(&name, &variants);
        if any_check {
            self.checked.insert(hint.to_string());
        }
        let body = union_decode_body(rt, &name, &pick, &variants, path);
        if self.opts.schemars {
            let keyword = match pick {
                Pick::First => "anyOf",
                Pick::One | Pick::Tag(..) => "oneOf",
            };
            self.items.push(super::json_schema::union_impl(
                &name, &lt, keyword, schema, &variants,
            ));
        }
        let shape = UnionShape {
            name: &name,
            lt: &lt,
            borrows,
            variants: &variants,
        };
        self.items
            .push(union_items(rt, &shape, &doc, &arms, &check_arms, &body));
        Ty::Union(hint.to_string(), borrows)
    }

    /// Variant names: a `title`, the discriminator's value, the key of the definition the
    /// alternative is a `$ref` to, or the JSON type; positional when those repeat.
    fn union_variant_names(&self, alts: &[(Schema, Loc)], pick: &Pick) -> Vec<String> {
        let words: Vec<String> = alts
            .iter()
            .enumerate()
            .map(|(i, (s, at))| match (&s.title, pick) {
                (Some(t), _) => t.clone(),
                (None, Pick::Tag(_, vs)) => vs.get(i).cloned().unwrap_or_default(),
                (None, _) => self
                    .definition_name_at(at)
                    .unwrap_or_else(|| kind_word(s).to_string()),
            })
            .collect();
        let mut texts: Vec<String> = Vec::new();
        let mut scope = Scope::new();
        let mut distinct = true;
        for w in &words {
            match camel_ident_text(w) {
                Ok(t) if scope.claim(&t, w).is_ok() => texts.push(t),
                _ => distinct = false,
            }
        }
        if !distinct {
            texts = (0..alts.len()).map(|i| format!("Variant{i}")).collect();
        }
        texts
    }

    /// The variants of a union's enum, each documented by its alternative's title or
    /// description, the definition it is, or its schema.
    fn union_arms(
        &self,
        alts: &[(Schema, Loc)],
        variants: &[(Ident, Ty, Schema)],
    ) -> Vec<TokenStream> {
        // An alternative that is a definition is documented by its name.
        let defined: Vec<Option<String>> = alts
            .iter()
            .map(|(_, at)| self.plain_ref_at(None, at))
            .collect();
        variants
            .iter()
            .zip(&defined)
            .map(|((v, t, s), r)| {
                let tt = t.tokens();
                let d = match (&s.title, &s.description, r) {
                    (Some(t), _, _) => t.clone(),
                    (None, Some(d), _) => d.clone(),
                    (None, None, Some(r)) => format!("The definition `{r}`."),
                    (None, None, None) => format!("`{}`", to_compact(&s.to_json())),
                };
                quote!(#[doc = #d] #v(#tt))
            })
            .collect()
    }

    /// The arms of a union's `Check`, and whether any alternative checks anything.
    fn union_checks(
        &self,
        name: &Ident,
        variants: &[(Ident, Ty, Schema)],
    ) -> (Vec<TokenStream>, bool) {
        let mut any_check = false;
        let check_arms: Vec<TokenStream> = variants
            .iter()
            .map(|(v, t, s)| match self.check_expr(s, t, quote!(x)) {
                Some(c) => {
                    any_check = true;
                    quote!(#name::#v(x) => #c)
                }
                None => quote!(#name::#v(_) => true),
            })
            .collect();
        (check_arms, any_check)
    }
}

/// A union's enum as [`union_items`] writes it: its name, generics and variants.
struct UnionShape<'a> {
    name: &'a Ident,
    lt: &'a TokenStream,
    borrows: bool,
    variants: &'a [(Ident, Ty, Schema)],
}

/// `into_owned()` of a union: the same value owning its strings.
fn union_into_owned(name: &Ident, borrows: bool, variants: &[(Ident, Ty, Schema)]) -> TokenStream {
    if !borrows {
        return quote! {
            /// The same value: this type borrows nothing.
            pub fn into_owned(self) -> #name {
                self
            }
        };
    }
    let arms = variants.iter().map(|(v, t, _)| {
        let e = owned_expr(t, quote!(x));
        quote!(#name::#v(x) => #name::#v(#e))
    });
    quote! {
        /// The same value owning its strings.
        pub fn into_owned(self) -> #name<'static> {
            match self {
                #(#arms,)*
            }
        }
    }
}

/// Decoding one alternative from the buffered value: `Some` when it decodes and passes its
/// check.
fn decode_alternative(
    rt: &TokenStream,
    name: &Ident,
    v: &Ident,
    t: &Ty,
    s: &Schema,
) -> TokenStream {
    let tt = t.tokens();
    // An alternative of one JSON type takes no value of another: not cloned and
    // decoded to learn that (exact: serde refuses a value of another type).
    let value = quote!(::serde_json::Value);
    let fits = match &s.kind {
        Kind::Any => quote!(true),
        Kind::Boolean => quote!(::core::matches!(__v, #value::Bool(_))),
        Kind::String(_) => quote!(::core::matches!(__v, #value::String(_))),
        Kind::Integer(_) | Kind::Number(_) => {
            quote!(::core::matches!(__v, #value::Number(_)))
        }
        Kind::Array(_) => quote!(::core::matches!(__v, #value::Array(_))),
        Kind::Object(_) => quote!(::core::matches!(__v, #value::Object(_))),
    };
    let read = if *t == Ty::Int {
        quote!(#rt::de::integer(__v.clone()))
    } else {
        quote!(<#tt as ::serde::Deserialize<'static>>::deserialize(__v.clone()))
    };
    quote! {
        if !(#fits) {
            ::core::option::Option::None
        } else {
            match #read {
                ::core::result::Result::Ok(x) => {
                    let c = #name::#v(x);
                    if #rt::Check::check(&c) { ::core::option::Option::Some(c) } else { ::core::option::Option::None }
                }
                ::core::result::Result::Err(_) => ::core::option::Option::None,
            }
        }
    }
}

/// The body of a union's `__decode`: the first alternative that decodes (`anyOf`), exactly
/// one (`oneOf`), or the one its tag names.
fn union_decode_body(
    rt: &TokenStream,
    name: &Ident,
    pick: &Pick,
    variants: &[(Ident, Ty, Schema)],
    path: &str,
) -> TokenStream {
    let decode = |v: &Ident, t: &Ty, s: &Schema| decode_alternative(rt, name, v, t, s);
    let names: Vec<String> = variants.iter().map(|(v, _, _)| v.to_string()).collect();
    let none_msg = format!(
        "`{path}` matches none of its alternatives ({})",
        names.join(", ")
    );
    match pick {
        Pick::First => {
            let tries = variants.iter().map(|(v, t, s)| {
                let d = decode(v, t, s);
                quote!(if let ::core::option::Option::Some(c) = #d { return ::core::result::Result::Ok(c); })
            });
            quote! {
                #(#tries)*
                ::core::result::Result::Err((#none_msg))
            }
        }
        Pick::One => {
            let tries = variants.iter().map(|(v, t, s)| {
                let d = decode(v, t, s);
                quote!(if let ::core::option::Option::Some(c) = #d { __n += 1; if __found.is_none() { __found = ::core::option::Option::Some(c); } })
            });
            let many = format!("`{path}` matches more than one of its `oneOf` alternatives");
            quote! {
                let mut __found: ::core::option::Option<Self> = ::core::option::Option::None;
                let mut __n = 0usize;
                #(#tries)*
                match __found {
                    ::core::option::Option::Some(c) if __n == 1 => ::core::result::Result::Ok(c),
                    ::core::option::Option::Some(_) => ::core::result::Result::Err((#many)),
                    ::core::option::Option::None => ::core::result::Result::Err((#none_msg)),
                }
            }
        }
        Pick::Tag(prop, values) => {
            let arms = variants.iter().zip(values).map(|((v, t, s), value)| {
                let d = decode(v, t, s);
                let bad = format!("`{path}` is not a valid `{value}` (tagged by `{prop}`)");
                quote!(::core::option::Option::Some(#value) => match #d {
                    ::core::option::Option::Some(c) => ::core::result::Result::Ok(c),
                    ::core::option::Option::None => ::core::result::Result::Err((#bad)),
                })
            });
            let quoted: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
            let unknown = format!("`{path}.{prop}` must be one of {}", quoted.join(", "));
            quote! {
                match __v.get(#prop).and_then(::serde_json::Value::as_str) {
                    #(#arms,)*
                    _ => ::core::result::Result::Err((#unknown)),
                }
            }
        }
    }
}

/// A union's enum and its impls: `__decode` (what serde and the direct path both read it
/// by), `Deserialize`, `Serialize`, `Check` and `ReadDirect`.
fn union_items(
    rt: &TokenStream,
    shape: &UnionShape<'_>,
    doc: &str,
    arms: &[TokenStream],
    check_arms: &[TokenStream],
    body: &TokenStream,
) -> TokenStream {
    let UnionShape {
        name,
        lt,
        borrows,
        variants,
    } = shape;
    let owned = union_into_owned(name, *borrows, variants);
    let de_generics = if *borrows {
        quote!(<'de: 'a, 'a>)
    } else {
        quote!(<'de>)
    };
    let serialize_and_check = union_impls(rt, name, lt, variants, check_arms);
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq)]
        pub enum #name #lt {
            #(#arms,)*
        }

        impl #lt #name #lt {
            #owned

            /// The value from its JSON: what serde and the direct path both read it by.
            #[doc(hidden)]
            pub fn __decode(
                __v: ::serde_json::Value,
            ) -> ::core::result::Result<Self, &'static str> {
                #body
            }
        }

        impl #de_generics ::serde::Deserialize<'de> for #name #lt {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let __v = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                Self::__decode(__v).map_err(<D::Error as ::serde::de::Error>::custom)
            }
        }

        #serialize_and_check
    }
}

/// A union's `Serialize` (the alternative's value as it is), `Check` and `ReadDirect`.
fn union_impls(
    rt: &TokenStream,
    name: &Ident,
    lt: &TokenStream,
    variants: &[(Ident, Ty, Schema)],
    check_arms: &[TokenStream],
) -> TokenStream {
    let ser_arms = variants
        .iter()
        .map(|(v, _, _)| quote!(#name::#v(x) => ::serde::Serialize::serialize(x, serializer)));
    let direct = quote!(#rt::direct);
    quote! {
        impl #lt ::serde::Serialize for #name #lt {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                match self {
                    #(#ser_arms,)*
                }
            }
        }

        impl #lt #rt::Check for #name #lt {
            #[inline]
            fn check(&self) -> bool {
                match self {
                    #(#check_arms,)*
                }
            }
        }

        // The value read as free JSON in the same pass (as serde buffers it), then
        // decoded as serde decodes it; a refusal is left to serde, which words it.
        impl<'a> #direct::ReadDirect<'a> for #name #lt {
            #[inline]
            fn read(__r: &mut #direct::Reader<'a>) -> #direct::Direct<Self> {
                let __v = <::serde_json::Value as #direct::ReadDirect<'a>>::read(__r)?;
                Self::__decode(__v).map_err(|_| #direct::Fallback)
            }
        }
    }
}

/// A literal's type (`tokens`) with its `Check`, which always holds, and `ReadDirect`:
/// read as free JSON and compared, as its `Deserialize` does (`accept`).
fn literal_items(
    rt: &TokenStream,
    name: &Ident,
    tokens: TokenStream,
    accept: TokenStream,
) -> TokenStream {
    let direct = quote!(#rt::direct);
    quote! {
        #tokens

        impl #rt::Check for #name {
            #[inline]
            fn check(&self) -> bool {
                true
            }
        }

        // Read as free JSON and compared, as its `Deserialize` does; a refusal is left
        // to serde.
        impl<'a> #direct::ReadDirect<'a> for #name {
            #[inline]
            fn read(__r: &mut #direct::Reader<'a>) -> #direct::Direct<Self> {
                let __v = <::serde_json::Value as #direct::ReadDirect<'a>>::read(__r)?;
                #accept.ok_or(#direct::Fallback)
            }
        }
    }
}

/// The unit type of a `const`: it decodes only its value, and writes it.
fn const_tokens(
    rt: &TokenStream,
    name: &Ident,
    doc: &str,
    text: &str,
    refusal: &str,
) -> TokenStream {
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct #name;

        impl #name {
            /// The constant, as JSON text.
            pub const JSON: &'static str = #text;
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let v = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                if #rt::rules::equals_json(&v, #text) {
                    ::core::result::Result::Ok(#name)
                } else {
                    ::core::result::Result::Err(<D::Error as ::serde::de::Error>::custom(#refusal))
                }
            }
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                let v: ::serde_json::Value = ::serde_json::from_str(#text)
                    .map_err(<S::Error as ::serde::ser::Error>::custom)?;
                ::serde::Serialize::serialize(&v, serializer)
            }
        }
    }
}

/// The checked value of an `enum` of JSON values: a `serde_json::Value` that is one of
/// them, refused otherwise.
fn enum_value_tokens(
    rt: &TokenStream,
    name: &Ident,
    doc: &str,
    texts: &[String],
    refusal: &str,
) -> TokenStream {
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq)]
        pub struct #name(::serde_json::Value);

        impl #name {
            /// The values allowed, as JSON text.
            pub const VALUES_JSON: &'static [&'static str] = &[#(#texts),*];

            /// The value, one of [`Self::VALUES_JSON`].
            pub fn value(&self) -> &::serde_json::Value {
                &self.0
            }

            /// The value if it is one of [`Self::VALUES_JSON`].
            pub fn new(value: ::serde_json::Value) -> ::core::option::Option<Self> {
                Self::VALUES_JSON
                    .iter()
                    .any(|t| #rt::rules::equals_json(&value, t))
                    .then_some(#name(value))
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::core::result::Result<Self, D::Error> {
                let v = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                #name::new(v).ok_or_else(|| <D::Error as ::serde::de::Error>::custom(#refusal))
            }
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::core::result::Result<S::Ok, S::Error> {
                ::serde::Serialize::serialize(&self.0, serializer)
            }
        }
    }
}

/// Whether a recursive `$ref` names a definition, which becomes a named type (any other
/// local `$ref`, `#` say, is a value checked against the schema it points at).
fn names_a_type(r: &str) -> bool {
    r.strip_prefix("#/$defs/")
        .or_else(|| r.strip_prefix("#/definitions/"))
        .is_some_and(|k| !k.is_empty() && !k.contains('/'))
}

/// Whether an alternative may take `null` (no type, or a type list with it).
fn accepts_null(s: &Schema) -> bool {
    matches!(s.kind, Kind::Any) && !is_null(s)
}
