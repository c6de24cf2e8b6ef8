//! The generator, tested on token text: no compiler needed.

use std::path::{Path, PathBuf};

use super::{Input, Options, generate};
use toolgate_schema::load::{SourceFile, load_sources, read_dir_sources};

fn bundled(name: &str) -> (toolgate_schema::Catalog, Vec<SourceFile>, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schema")
        .join(name);
    let display = PathBuf::from("schema").join(name);
    let (sources, errors) = read_dir_sources(&dir, &display);
    assert!(errors.is_empty(), "{errors:?}");
    let catalog = load_sources(&display, sources.clone()).expect("bundled catalog loads");
    (catalog, sources, display)
}

fn expand(name: &str) -> String {
    let (catalog, sources, display) = bundled(name);
    let input = Input {
        catalog: &catalog,
        display: &display,
        sources: &sources,
        include: &[],
        options: &Options::default(),
    };
    match generate(&input) {
        Ok(tokens) => tokens.to_string(),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn tatara_expands() {
    let text = expand("tatara");
    assert!(text.contains("pub struct RefineArgs"), "{text}");
}

#[test]
fn async_traits_return_sendable_futures_and_sync_handlers_are_async_ones() {
    let text = expand("tatara");
    for item in [
        "pub trait AlwaysOnAsyncHandler",
        "pub trait RefineAsyncHandler : AlwaysOnAsyncHandler",
        "pub trait AsyncHandler : AlwaysOnAsyncHandler",
        "impl < H : AlwaysOnHandler + ? Sized > AlwaysOnAsyncHandler for H",
        "impl < H : RefineHandler + ? Sized > RefineAsyncHandler for H",
        "pub async fn dispatch_async",
        "pub async fn dispatch_refine_async",
        "pub async fn dispatch_always_on_async",
        // A method of an async trait: the context, the profile's argument type, a future
        // that can be sent.
        "fn mr_write (& self , context : :: toolgate_runtime :: HandlerContext < '_ , Profile > , arguments : mr_write :: RefineArgs < '_ > ,) -> impl :: core :: future :: Future < Output = Self :: Output > + :: core :: marker :: Send ;",
    ] {
        assert!(text.contains(item), "missing `{item}`");
    }
    // Not a bare `async fn` in a public trait: its future's `Send` could not be named.
    assert!(
        !text.contains("async fn mr_write"),
        "an async fn in a trait"
    );
}

/// `TOOLGATE_DUMP=dir cargo test -p toolgate-schema --features codegen dump` writes the
/// expansions (format them with rustfmt to read them).
#[test]
fn dump() {
    if let Some(dir) = std::env::var_os("TOOLGATE_DUMP") {
        for name in ["tatara", "maetra"] {
            std::fs::write(Path::new(&dir).join(format!("{name}.rs")), expand(name)).unwrap();
        }
    }
}

fn file(rel: &str, text: &str) -> SourceFile {
    SourceFile {
        rel: rel.to_string(),
        bytes: text.as_bytes().to_vec(),
    }
}

const MATRIX: &str = r#"{
  "catalog": "demo",
  "selector": { "env": "DEMO_PROFILE" },
  "profiles": { "alpha": "First.", "beta": "Second." },
  "groups": { "main": {} },
  "grants": { "main": ["*"] }
}
"#;

fn tool(name: &str, input: &str) -> SourceFile {
    file(
        &format!("tools/{name}.json"),
        &format!(
            "{{\"name\": \"{name}\", \"group\": \"main\", \"description\": \"D.\",\n \"inputSchema\": {input}}}\n"
        ),
    )
}

/// Expands an in-memory catalog: the token text, or every error as text.
fn expand_files(files: Vec<SourceFile>) -> Result<String, Vec<String>> {
    let display = PathBuf::from("demo");
    let catalog = load_sources(&display, files.clone())
        .map_err(|e| e.0.iter().map(ToString::to_string).collect::<Vec<_>>())?;
    let input = Input {
        catalog: &catalog,
        display: &display,
        sources: &files,
        include: &[(
            "profiles.json".to_string(),
            "/abs/demo/profiles.json".to_string(),
        )],
        options: &Options::default(),
    };
    generate(&input)
        .map(|t| t.to_string())
        .map_err(|e| e.0.iter().map(ToString::to_string).collect())
}

/// Token text without the spaces `TokenStream::to_string` puts between tokens.
fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn the_restricted_cell_has_its_own_narrower_type() {
    let text = squeeze(&expand("tatara"));
    assert!(
        text.contains(
            "pubenumRefineAction{#[doc=\"`\\\"comment\\\"`\"]#[serde(rename=\"comment\")]Comment,}"
        ),
        "{text}"
    );
    assert!(text.contains("fnmr_write(&self,arguments:mr_write::RefineArgs<'_>)->Self::Output;"));
    assert!(text.contains("fnmr_write(&self,arguments:mr_write::Args<'_>)->Self::Output;"));
    assert!(text.contains("impl<'a>::core::convert::From<RefineArgs<'a>>forArgs<'a>"));
    // submit_outcome: one type per variant; upgrade shares documentation's.
    assert!(
        text.contains("fnsubmit_outcome(&self,arguments:submit_outcome::DocumentationArgs<'_>)")
    );
    assert!(!text.contains("UpgradeArgs"));
}

#[test]
fn maps_the_schema_subset_to_rust_types() {
    let text = squeeze(&expand("tatara"));
    // Strings borrow from the input: serde borrows a `Cow` field itself.
    assert!(text.contains("#[serde(borrow)]pubtext:::std::borrow::Cow<'a,str>"));
    // additionalProperties as a schema: a map, whose keys and values borrow through
    // `de::some_borrowing` (serde's `Cow` impl inside a map would copy).
    assert!(text.contains(
        "deserialize_with=\"::toolgate_runtime::de::some_borrowing\")]pubmetadata:::core::option::Option<::std::collections::BTreeMap<::std::borrow::Cow<'a,str>,::std::borrow::Cow<'a,str>>>"
    ));
    assert!(text.contains("pubfninto_owned(self)->Args<'static>"));
    // A free object, free JSON, nested structs, arrays with bounds.
    assert!(text.contains("pubpatch:::core::option::Option<::serde_json::Map<::std::string::String,::serde_json::Value>>"));
    assert!(text.contains("pubparent:::core::option::Option<IncidentIssueParent<'a>>"));
    assert!(text.contains("self.proposals.as_ref().is_none_or(|v|::toolgate_runtime::rules::count(v.len(),::core::option::Option::Some(1u64),::core::option::Option::Some(5u64)))"));
    // A default the code can write is filled in.
    assert!(text.contains("#[serde(default=\"Args::__default_severity\")]pubseverity:Severity"));
    // deny_unknown_fields exactly where additionalProperties is false: incident's nested
    // `issue` allows other properties.
    assert!(text.contains("pubstructIncidentIssue<'a>{"));
    assert!(!text.contains("#[serde(deny_unknown_fields)]pubstructIncidentIssue"));
    assert!(text.contains("#[serde(deny_unknown_fields)]pubstructIncidentArgs"));
    let maetra = squeeze(&expand("maetra"));
    assert!(maetra.contains("pubrequest:::serde_json::Value,"));
    assert!(
        maetra.contains("#[serde(default=\"Args::__default_scan_type\")]pubscan_type:ScanType")
    );
}

#[test]
fn json_names_become_rust_names() {
    let text = expand_files(vec![
        file("profiles.json", MATRIX),
        tool(
            "do-it",
            r#"{"type": "object", "properties": {"isPR": {"type": "boolean"}, "type": {"type": "string", "enum": ["GRANT_ACCESS", "L0", "1x"]}}}"#,
        ),
    ])
    .unwrap();
    let text = squeeze(&text);
    assert!(text.contains("pubmoddo_it{"), "{text}");
    assert!(text.contains("#[serde(rename=\"isPR\")]"));
    assert!(text.contains("pubis_pr:"));
    assert!(text.contains("pubr#type:"));
    assert!(text.contains("GrantAccess,"));
    assert!(text.contains("V1x,"));
    assert!(text.contains("::core::include_bytes!(\"/abs/demo/profiles.json\")"));
}

#[test]
fn name_collisions_are_errors_naming_the_file_all_at_once() {
    let errors = expand_files(vec![
        file("profiles.json", MATRIX),
        tool(
            "a",
            "{\"type\": \"object\", \"properties\": {\n  \"isPR\": {\"type\": \"boolean\"},\n  \"is_pr\": {\"type\": \"boolean\"},\n  \"k\": {\"type\": \"string\", \"enum\": [\"a-b\", \"a_b\"]}}}",
        ),
        tool(
            "b",
            "{\"type\": \"object\", \"properties\": {\n  \"x_y\": {\"type\": \"string\", \"enum\": [\"p\"]},\n  \"x\": {\"type\": \"object\", \"properties\": {\"y\": {\"type\": \"string\", \"enum\": [\"q\"]}}}}}",
        ),
        tool("mr-write", r#"{"type": "object"}"#),
        tool("mr_write", r#"{"type": "object"}"#),
    ])
    .unwrap_err();
    assert_eq!(
        errors,
        vec![
            "demo/tools/a.json:4:3: at /inputSchema/properties/is_pr: properties `isPR` and `is_pr` would both be the Rust field `is_pr`; rename one",
            "demo/tools/a.json:5:43: at /inputSchema/properties/k/enum/1: enum values \"a-b\" and \"a_b\" would both be the Rust variant `AB`; rename one",
            "demo/tools/b.json:4:42: at /inputSchema/properties/x/properties/y: two types of tool `b` would both be named `XY`: the enum `x_y` in tools/b.json and the enum `x.y` in tools/b.json; rename one of the JSON names",
            "demo/tools/mr_write.json:1:2: at /name: tools `mr-write` (tools/mr-write.json) and `mr_write` (tools/mr_write.json) would both be the Rust module and method `mr_write`; rename one",
        ]
    );
}

#[test]
fn names_that_start_with_a_digit_or_are_keywords_still_make_types() {
    let text = expand_files(vec![
        file("profiles.json", MATRIX),
        tool(
            "t",
            r#"{"type": "object", "properties": {"2d": {"type": "object", "properties": {"x": {"type": "string", "enum": ["a"]}}}, "self": {"type": "string", "enum": ["b"]}}}"#,
        ),
    ])
    .unwrap();
    let text = squeeze(&text);
    assert!(text.contains("pubstructV2d{"), "{text}");
    assert!(text.contains("pubenumV2dX{"), "{text}");
    assert!(text.contains("pubenumSelf_{"), "{text}");
    assert!(text.contains("pub_2d:"), "{text}");
    assert!(text.contains("pubself_:"), "{text}");
}

#[test]
fn dotted_tool_names_make_identifiers_and_collide_by_name() {
    let errors = expand_files(vec![
        file("profiles.json", MATRIX),
        tool("admin.tools.list", r#"{"type": "object"}"#),
        tool("admin_tools_list", r#"{"type": "object"}"#),
    ])
    .unwrap_err();
    assert_eq!(
        errors,
        vec![
            "demo/tools/admin_tools_list.json:1:2: at /name: tools `admin.tools.list` (tools/admin.tools.list.json) and `admin_tools_list` (tools/admin_tools_list.json) would both be the Rust module and method `admin_tools_list`; rename one",
        ]
    );
}

#[test]
fn a_definition_used_twice_is_one_named_type_documented_by_its_schema() {
    let text = expand_files(vec![
        file("profiles.json", MATRIX),
        tool(
            "trip",
            r##"{"type": "object", "$defs": {
              "stop_point": {"type": "object", "title": "Stop", "description": "A place to stop.",
                "properties": {"name": {"type": "string"}, "kind": {"type": "string", "enum": ["town", "camp"]}}, "required": ["name"]},
              "legs": {"type": "array", "items": {"$ref": "#/$defs/stop_point"}},
              "alias": {"$ref": "#/$defs/stop_point"}},
              "properties": {
                "start": {"$ref": "#/$defs/stop_point", "description": "Where it starts."},
                "end": {"$ref": "#/$defs/alias"},
                "via": {"$ref": "#/$defs/legs"},
                "near": {"$ref": "#/$defs/stop_point", "minProperties": 1}}}"##,
        ),
    ]);
    // `near` has a keyword of its own beside the `$ref`: not the definition's type but one
    // of its own, named after its place, which checks `minProperties` at run time.
    let text = text.unwrap();
    let text = squeeze(&text);
    assert_eq!(text.matches("pubstructStopPoint<'a>{").count(), 1, "{text}");
    // Nested types are named after the definition.
    assert!(text.contains("pubenumStopPointKind{"), "{text}");
    assert!(
        text.contains("#[doc=\"Stop\\n\\nAplacetostop.\"]"),
        "{text}"
    );
    assert!(text.contains("#[doc=\"Whereitstarts.\"]"), "{text}");
    assert!(
        text.contains("pubstart:::core::option::Option<StopPoint<'a>>"),
        "{text}"
    );
    assert!(
        text.contains("pubend:::core::option::Option<StopPoint<'a>>"),
        "{text}"
    );
    assert!(
        text.contains("pubvia:::core::option::Option<::std::vec::Vec<StopPoint<'a>>>"),
        "{text}"
    );
    assert!(!text.contains("pubstructStart"), "{text}");
    assert!(text.contains("pubstructNear<'a>{"), "{text}");
    assert!(
        text.contains("pubnear:::core::option::Option<Near<'a>>"),
        "{text}"
    );
    assert!(text.contains("(`minProperties`)"), "{text}");
}

#[test]
fn a_definition_named_as_another_type_is_an_error_naming_both() {
    let errors = expand_files(vec![
        file("profiles.json", MATRIX),
        tool(
            "t",
            r##"{"type": "object", "$defs": {
              "Node": {"type": "object", "properties": {"n": {"type": "integer"}}},
              "tree_node": {"type": "object", "properties": {"a": {"type": "boolean"}}},
              "TreeNode": {"type": "object", "properties": {"b": {"type": "boolean"}}}},
              "properties": {
                "node": {"type": "object", "properties": {"m": {"type": "integer"}}},
                "x": {"$ref": "#/$defs/Node"},
                "y": {"$ref": "#/$defs/tree_node"},
                "z": {"$ref": "#/$defs/TreeNode"}}}"##,
        ),
    ])
    .unwrap_err();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].contains("at /inputSchema/$defs/Node: two types of tool `t` would both be named `Node`: `node` in tools/t.json and `#/$defs/Node` in tools/t.json"),
        "{errors:?}"
    );
    assert!(
        errors[1].contains("at /inputSchema/$defs/TreeNode: two types of tool `t` would both be named `TreeNode`: `#/$defs/tree_node` in tools/t.json and `#/$defs/TreeNode` in tools/t.json"),
        "{errors:?}"
    );
}

#[test]
fn a_recursive_definition_is_boxed_where_its_cycle_closes() {
    let text = expand_files(vec![
        file("profiles.json", MATRIX),
        tool(
            "t",
            r##"{"type": "object", "$defs": {
              "a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}, "n": {"type": "integer"}}},
              "b": {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}, "s": {"type": "string"}}}},
              "properties": {"x": {"$ref": "#/$defs/a"}, "y": {"$ref": "#/$defs/b"}}}"##,
        ),
    ])
    .unwrap();
    let text = squeeze(&text);
    // `b` holds a string, so `a` (which holds a `b`) borrows too, also where `b` names it.
    assert!(text.contains("pubstructA<'a>{"), "{text}");
    assert!(text.contains("pubstructB<'a>{"), "{text}");
    assert!(
        text.contains("pubb:::core::option::Option<B<'a>>"),
        "{text}"
    );
    assert!(
        text.contains("puba:::core::option::Option<::std::boxed::Box<A<'a>>>"),
        "{text}"
    );
    assert!(
        text.contains("pubx:::core::option::Option<A<'a>>"),
        "{text}"
    );
    assert!(
        text.contains("puby:::core::option::Option<B<'a>>"),
        "{text}"
    );
    // A definition that names itself but is no object or union has no Rust type.
    let errors = expand_files(vec![
        file("profiles.json", MATRIX),
        tool(
            "t",
            r##"{"type": "object", "$defs": {"list": {"type": "array", "items": {"$ref": "#/$defs/list"}}},
              "properties": {"x": {"$ref": "#/$defs/list"}}}"##,
        ),
    ])
    .unwrap_err();
    assert!(
        errors[0]
            .contains("cannot type the definition #/$defs/list of tool `t`: it refers to itself"),
        "{errors:?}"
    );
}

/// A tool in the shape a Python (FastMCP-style) CSV server writes: a decimal separator and
/// a text qualifier whose values have no letter or digit (issue 29).
const CSV_READER: &str = r#"{"type": "object", "properties": {
  "path": {"type": "string"},
  "decimal": {"type": "string", "enum": [".", ","], "default": "."},
  "text_qualifier": {"type": "string", "enum": ["\"", "'", ""]},
  "layout": {"type": "string", "enum": ["wide", "+", "-", "::", "Dot", "."]}
}, "required": ["path"]}"#;

#[test]
fn enum_values_without_letters_are_named_from_their_characters() {
    let text = expand_files(vec![
        file("profiles.json", MATRIX),
        tool("read_csv", CSV_READER),
    ])
    .unwrap();
    let text = squeeze(&text);
    // Each variant keeps its exact wire value.
    for (wire, variant) in [
        ("\".\"", "Dot"),
        ("\",\"", "Comma"),
        ("\"\\\"\"", "DoubleQuote"),
        ("\"'\"", "SingleQuote"),
        ("\"\"", "Empty"),
    ] {
        assert!(
            text.contains(&format!("#[serde(rename={wire})]{variant}")),
            "{variant} for {wire}: {text}"
        );
    }
    // The default names its variant.
    assert!(text.contains("Decimal::Dot"), "{text}");
    // `+` is spelled as before; a name made of characters never takes one a value with
    // letters has (`Dot`), so `.` there is named by its position.
    assert!(text.contains("#[serde(rename=\"+\")]Plus"), "{text}");
    assert!(text.contains("#[serde(rename=\"-\")]Dash"), "{text}");
    assert!(text.contains("#[serde(rename=\"::\")]ColonColon"), "{text}");
    assert!(text.contains("#[serde(rename=\"Dot\")]Dot"), "{text}");
    assert!(text.contains("#[serde(rename=\".\")]Value5"), "{text}");
    // Declared order is kept.
    assert!(
        text.contains(
            "constVALUES:&'static[&'staticstr]=&[\"wide\",\"+\",\"-\",\"::\",\"Dot\",\".\"];"
        ),
        "{text}"
    );
}

#[test]
fn enum_values_named_by_position_still_collide_as_errors() {
    // `Value1` is a value with letters, so the positional name of `é` (no ASCII letter,
    // no word for its character) is taken: an error at its place, not a silent suffix.
    let errors = expand_files(vec![
        file("profiles.json", MATRIX),
        tool(
            "t",
            r#"{"type": "object", "properties": {"k": {"type": "string", "enum": ["Value1", "é"]}}}"#,
        ),
    ])
    .unwrap_err();
    assert_eq!(
        errors,
        vec![
            "demo/tools/t.json:2:94: at /inputSchema/properties/k/enum/1: enum values \"Value1\" and \"é\" would both be the Rust variant `Value1`; rename one",
        ]
    );
}
