//! `schemars::JsonSchema` for the generated types that serde's derive does not write (so
//! schemars' derive cannot either), with `catalog!(..., schemars)`: a union of alternatives
//! is the `anyOf`/`oneOf` of its variants' schemas (each with the constraints of its
//! alternative that schemars cannot see on a Rust type: lengths, bounds, sizes), a `const`
//! or an `enum` of JSON values is that keyword. Structs and string enums derive it; `Option`
//! (nullable) and `Box` (a recursive definition) are schemars' own.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use super::{Ty, constraint_extension_values, json_tokens};
use toolgate_schema::json::{Map, Value};
use toolgate_schema::model::Schema;

/// `schema_name` and `schema_id` of a generated type: its name, and its path (two tools'
/// modules may each have a type of that name).
fn names(name: &Ident) -> TokenStream {
    let text = name.to_string();
    let text = text.trim_start_matches("r#");
    let cow = quote!(::std::borrow::Cow);
    quote! {
        fn schema_name() -> #cow<'static, str> {
            #cow::Borrowed(#text)
        }

        fn schema_id() -> #cow<'static, str> {
            #cow::Borrowed(::core::concat!(::core::module_path!(), "::", #text))
        }
    }
}

/// `impl JsonSchema` for a `const` unit type or a checked `enum` value: `schema` is what
/// it accepts (`{"const": ...}` or `{"enum": [...]}`), its description added.
pub(super) fn literal_impl(name: &Ident, keyword: &str, value: Value, of: &Schema) -> TokenStream {
    let mut m = Map::new();
    if let Some(d) = &of.description {
        m.insert("description", Value::str(d.clone()));
    }
    m.insert(keyword, value);
    let schema = json_tokens(&Value::Object(m));
    let names = names(name);
    quote! {
        impl ::schemars::JsonSchema for #name {
            fn inline_schema() -> bool {
                true
            }

            #names

            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                ::schemars::json_schema!(#schema)
            }
        }
    }
}

/// `impl JsonSchema` for a union: `keyword` (`anyOf`, `oneOf`) of its variants' schemas,
/// each given the constraints of its alternative's schema.
pub(super) fn union_impl(
    name: &Ident,
    lt: &TokenStream,
    keyword: &str,
    of: &Schema,
    variants: &[(Ident, Ty, Schema)],
) -> TokenStream {
    let json = quote!(::serde_json);
    let alternatives = variants.iter().map(|(_, t, s)| {
        let tt = t.tokens();
        let extend = constraint_extension_values(s).into_iter().map(|(k, v)| {
            let v = json_tokens(&v);
            quote!(m.insert(::std::string::String::from(#k), #json::json!(#v));)
        });
        quote! {{
            let mut s = #json::Value::from(generator.subschema_for::<#tt>());
            if let ::core::option::Option::Some(m) = s.as_object_mut() {
                #(#extend)*
            }
            s
        }}
    });
    let description = of.description.iter().map(
        |d| quote!(m.insert(::std::string::String::from("description"), #json::Value::from(#d));),
    );
    let names = names(name);
    quote! {
        impl #lt ::schemars::JsonSchema for #name #lt {
            #names

            fn json_schema(generator: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                let mut m = #json::Map::new();
                #(#description)*
                m.insert(
                    ::std::string::String::from(#keyword),
                    #json::Value::Array(::std::vec![#(#alternatives),*]),
                );
                ::schemars::Schema::from(m)
            }
        }
    }
}
