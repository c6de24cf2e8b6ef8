//! `catalog!` on the shapes real MCP servers write (issue 29), in
//! `tests/catalogs/server_shapes`: a TypeScript SDK v2 style tool whose annotations carry
//! keys of the server's own (`category`, `conditions`), served as written, and a Python
//! style tool whose enum values have no letter or digit (`"."`, `","`, `"\""`, `"'"`, `""`),
//! named from their characters and sent back exactly.

use serde_json::{Value, json};
use toolgate_schema::runtime::RawArguments;

// The loader warns about the annotation keys outside MCP's list; `catalog!` shows each as a
// `deprecated` warning at the call, accepted here.
#[allow(deprecated, missing_docs)]
mod shapes {
    toolgate_macros::catalog!("tests/catalogs/server_shapes");
}

use shapes::read_table;

#[test]
fn values_without_letters_are_variants_that_keep_their_wire_value() {
    use read_table::{Decimal, TextQualifier};
    assert_eq!(Decimal::ALL, &[Decimal::Dot, Decimal::Comma]);
    assert_eq!(
        TextQualifier::ALL,
        &[
            TextQualifier::DoubleQuote,
            TextQualifier::SingleQuote,
            TextQualifier::Empty
        ]
    );
    for (q, wire) in [
        (TextQualifier::DoubleQuote, "\""),
        (TextQualifier::SingleQuote, "'"),
        (TextQualifier::Empty, ""),
    ] {
        assert_eq!(q.as_str(), wire);
        let args = json!({"path": "a.csv", "text_qualifier": wire, "decimal": ","});
        let a: read_table::Args<'_> = (&args).parse().expect("valid");
        assert_eq!(a.text_qualifier, q);
        assert_eq!(a.decimal, Decimal::Comma);
        // Written back as sent.
        assert_eq!(serde_json::to_value(&a).unwrap(), args);
        // The one-pass reader of JSON text agrees.
        let text = args.to_string();
        let b: read_table::Args<'_> = RawArguments::parse(text.as_str()).expect("valid text");
        assert_eq!(b, a);
    }
    // The default is the variant of `"."`.
    let args = json!({"path": "a.csv", "text_qualifier": ""});
    let a: read_table::Args<'_> = (&args).parse().expect("valid");
    assert_eq!(a.decimal, Decimal::Dot);
    // A value outside the enum is refused, naming the field.
    let args = json!({"path": "a.csv", "text_qualifier": "`"});
    let refused = (&args).parse::<read_table::Args<'_>>().unwrap_err();
    assert!(
        refused.message().contains("text_qualifier"),
        "{}",
        refused.message()
    );
}

#[test]
fn annotations_and_execution_are_served_as_written() {
    let list: Value = serde_json::from_str(shapes::Profile::All.tools_list_json()).unwrap();
    let tool = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "scroll_to")
        .expect("scroll_to is served");
    let authored: Value =
        serde_json::from_str(include_str!("catalogs/server_shapes/tools/scroll_to.json")).unwrap();
    for key in ["title", "annotations", "execution"] {
        assert_eq!(tool[key], authored[key], "{key}");
    }
}
