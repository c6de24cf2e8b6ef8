//! Typed handlers of a wild surface (`tests/catalogs/wild_typed`: github-mcp-server's
//! `update_issue_labels` (a `oneOf` of a string and an object) and `issue_write`,
//! mcp-server-git's `git_create_branch` (a nullable `anyOf`), as the servers serve them, and
//! `tree_edit`, added since no wild surface has one, with a recursive `$ref` and a
//! `const`-tagged `oneOf`, and `route_plan`, with `$defs` each used more than once), called
//! valid and invalid: the handler gets the typed value, or the call is refused naming the
//! field. Each accepted value serializes to arguments the run-time validator (the jsonschema
//! crate) accepts.

use serde_json::{Value, json};
use toolgate_schema::runtime::{CallError, RawArguments};

#[allow(missing_docs)]
mod wild_typed {
    toolgate_macros::catalog!("tests/catalogs/wild_typed");
}

use wild_typed::{git_create_branch, issue_write, route_plan, tree_edit, update_issue_labels};

fn refusal(e: CallError) -> String {
    e.message()
}

/// Parses `args` as `$t` from JSON text (the direct path, then serde) and from a
/// `serde_json::Value`; the two agree. The value, owned, or the refusal's message.
macro_rules! parse {
    ($t:ty, $args:expr) => {{
        let args: Value = $args;
        let text = args.to_string();
        let a: Result<$t, String> = RawArguments::parse(text.as_str()).map_err(refusal);
        let b: Result<$t, String> = RawArguments::parse(&args).map_err(refusal);
        assert_eq!(a.is_ok(), b.is_ok(), "{args}: {a:?} / {b:?}");
        if let (Ok(x), Ok(y)) = (&a, &b) {
            assert_eq!(x, y);
        }
        b.map(|x| x.into_owned())
    }};
}

#[test]
fn a_one_of_of_a_string_and_an_object_decodes_to_its_variant() {
    use update_issue_labels::{Args, LabelsItem};
    let args: Args = parse!(
        Args,
        json!({
            "owner": "o", "repo": "r", "issue_number": 3,
            "labels": ["bug", {"name": "p1", "confidence": "HIGH"}]
        })
    )
    .unwrap();
    assert!(matches!(&args.labels[0], LabelsItem::String(s) if s == "bug"));
    match &args.labels[1] {
        LabelsItem::Object(o) => assert_eq!(o.name, "p1"),
        other => panic!("{other:?}"),
    }
    // An object without `name`, or with a `rationale` too long, is neither alternative.
    let e = parse!(
        Args,
        json!({"owner": "o", "repo": "r", "issue_number": 3, "labels": [{"confidence": "LOW"}]})
    )
    .unwrap_err();
    assert!(e.contains("labels"), "{e}");
    let long = "x".repeat(281);
    let e = parse!(Args, json!({"owner": "o", "repo": "r", "issue_number": 3, "labels": [{"name": "a", "rationale": long}]}))
        .unwrap_err();
    assert!(e.contains("labels"), "{e}");
}

#[test]
fn a_nullable_field_is_an_option_and_takes_null() {
    use git_create_branch::Args;
    let a: Args = parse!(Args, json!({"repo_path": "/r", "branch_name": "b"})).unwrap();
    assert_eq!(a.base_branch, None);
    let a: Args = parse!(
        Args,
        json!({"repo_path": "/r", "branch_name": "b", "base_branch": null})
    )
    .unwrap();
    assert_eq!(a.base_branch, None);
    let a: Args = parse!(
        Args,
        json!({"repo_path": "/r", "branch_name": "b", "base_branch": "main"})
    )
    .unwrap();
    assert_eq!(a.base_branch.as_deref(), Some("main"));
    let e = parse!(
        Args,
        json!({"repo_path": "/r", "branch_name": "b", "base_branch": 7})
    )
    .unwrap_err();
    assert!(e.contains("base_branch"), "{e}");
}

#[test]
fn a_recursive_ref_is_a_boxed_named_type_and_a_const_tag_picks_the_variant() {
    use tree_edit::{Args, Edit, Node};
    let a: Args = parse!(
        Args,
        json!({
            "tree": {"name": "root", "children": [{"name": "a", "children": [{"name": "b"}]}]},
            "edit": {"op": "rename", "to": "c"}
        })
    )
    .unwrap();
    let children: &Vec<Box<Node>> = a.tree.children.as_ref().unwrap();
    assert_eq!(children[0].name, "a");
    assert_eq!(children[0].children.as_ref().unwrap()[0].name, "b");
    assert!(matches!(&a.edit, Edit::Rename(r) if r.to == "c"));
    let a: Args = parse!(
        Args,
        json!({"tree": {"name": "r"}, "edit": {"op": "remove", "depth": 2}})
    )
    .unwrap();
    assert!(matches!(&a.edit, Edit::Remove(r) if r.depth == Some(2)));
    // A nested node breaking its schema deep down is refused, naming the field and why:
    // the run-time validator follows the recursive `$ref`.
    let e = parse!(
        Args,
        json!({"tree": {"name": "r", "children": [{"name": "a", "children": [{"name": ""}]}]}, "edit": {"op": "remove"}})
    )
    .unwrap_err();
    assert_eq!(
        e,
        "field `tree.children[0].children[0].name` must not be empty"
    );
    let e = parse!(
        Args,
        json!({"tree": {"name": "r", "children": [{"name": "a"}, {"name": 7}]}, "edit": {"op": "remove"}})
    )
    .unwrap_err();
    assert_eq!(
        e,
        "field `tree.children[1].name` must be a string, found the number 7"
    );
    let e = parse!(
        Args,
        json!({"tree": {"name": "r", "children": [{"children": [], "label": "x"}]}, "edit": {"op": "remove"}})
    )
    .unwrap_err();
    assert_eq!(
        e,
        "missing required field `tree.children[0].name`; unknown field `tree.children[0].label` (expected one of `name`, `children`)"
    );
    // An unknown tag, and a tag whose variant does not fit, name the field.
    let e = parse!(Args, json!({"tree": {"name": "r"}, "edit": {"op": "move"}})).unwrap_err();
    assert!(e.contains("edit"), "{e}");
    let e = parse!(
        Args,
        json!({"tree": {"name": "r"}, "edit": {"op": "rename"}})
    )
    .unwrap_err();
    assert!(e.contains("edit"), "{e}");
}

#[test]
fn a_definition_used_twice_is_one_named_type() {
    use route_plan::{Args, ByDistance, ByTime, Limit, Mode, Place, RestAt};
    let a: Args = parse!(
        Args,
        json!({
            "from": {"label": "quay", "lat": 60.39, "lon": 5.32},
            "to": {"label": "summit", "lat": 60.40, "lon": 5.37},
            "via": [{"label": "bridge", "lat": 60.395, "lon": 5.33}],
            "fallback": "bike",
            "limit": {"kind": "time", "minutes": 90},
            "rest_at": {"label": "hut", "lat": 60.401, "lon": 5.36}
        })
    )
    .unwrap();
    // `from`, `to`, the items of `via` and an alternative of `rest_at`: one type, `Place`.
    let places: [&Place; 4] = [
        &a.from,
        &a.to,
        &a.via.as_ref().unwrap()[0],
        match a.rest_at.as_ref().unwrap() {
            RestAt::Place(p) => p,
            other => panic!("{other:?}"),
        },
    ];
    assert_eq!(
        places.map(|p| p.label.as_ref()),
        ["quay", "summit", "bridge", "hut"]
    );
    // `mode` and the nullable `fallback`: one enum, `Mode`, its default filled in.
    assert_eq!(a.mode, Mode::Walk);
    assert_eq!(a.fallback, Some(Mode::Bike));
    // A `oneOf` of two definitions tagged by a `const`: the variants hold their types.
    assert!(matches!(
        &a.limit,
        Some(Limit::Time(ByTime { minutes: 90, .. }))
    ));
    let b: Args = parse!(
        Args,
        json!({
            "from": {"label": "a", "lat": 0, "lon": 0},
            "to": {"label": "b", "lat": 1, "lon": 1},
            "fallback": null,
            "limit": {"kind": "distance", "km": 2.5},
            "rest_at": "anywhere dry"
        })
    )
    .unwrap();
    assert_eq!(b.fallback, None);
    assert!(matches!(&b.limit, Some(Limit::Distance(ByDistance { km, .. })) if *km == 2.5));
    assert!(matches!(&b.rest_at, Some(RestAt::String(s)) if s == "anywhere dry"));

    // Refusals name the field inside the definition, wherever it is used.
    let base = || json!({"from": {"label": "a", "lat": 0, "lon": 0}, "to": {"label": "b", "lat": 1, "lon": 1}});
    let with = |key: &str, v: Value| {
        let mut args = base();
        args[key] = v;
        args
    };
    let e = parse!(Args, with("to", json!({"label": "", "lat": 1, "lon": 1}))).unwrap_err();
    assert_eq!(e, "field `to.label` must not be empty");
    let e = parse!(
        Args,
        with("from", json!({"label": "a", "lat": 91, "lon": 0}))
    )
    .unwrap_err();
    assert_eq!(e, "field `from.lat` must be at most 90, found 91");
    let four = json!([
        {"label": "1", "lat": 0, "lon": 0}, {"label": "2", "lat": 0, "lon": 0},
        {"label": "3", "lat": 0, "lon": 0}, {"label": "4", "lat": 0, "lon": 0}
    ]);
    let e = parse!(Args, with("via", four)).unwrap_err();
    assert_eq!(e, "field `via` must have at most 3 items, found 4");
    let e = parse!(
        Args,
        with("via", json!([{"label": "1", "lat": 0, "lon": 200}]))
    )
    .unwrap_err();
    assert_eq!(e, "field `via[0].lon` must be at most 180, found 200");
    let e = parse!(Args, with("mode", json!("fly"))).unwrap_err();
    assert_eq!(
        e,
        "field `mode`: \"fly\" is not one of \"walk\", \"bike\", \"drive\""
    );
    let e = parse!(Args, with("limit", json!({"kind": "distance", "km": 0}))).unwrap_err();
    assert!(e.contains("limit"), "{e}");
    let e = parse!(Args, with("rest_at", json!(""))).unwrap_err();
    assert!(e.contains("rest_at"), "{e}");
}

#[test]
fn a_restricted_cell_over_a_definition_gets_its_own_narrower_type() {
    use route_plan::{Args, Mode, TriageArgs, TriageMode};
    let t: TriageArgs = parse!(
        TriageArgs,
        json!({"from": {"label": "a", "lat": 0, "lon": 0}, "to": {"label": "b", "lat": 1, "lon": 1}, "mode": "bike"})
    )
    .unwrap();
    assert_eq!(t.mode, TriageMode::Bike);
    // The other fields keep the definitions' types, so the narrow type widens field by field.
    let wide: Args = t.into();
    assert_eq!(wide.mode, Mode::Bike);
    assert_eq!(wide.from.label, "a");
    let e = parse!(
        TriageArgs,
        json!({"from": {"label": "a", "lat": 0, "lon": 0}, "to": {"label": "b", "lat": 1, "lon": 1}, "mode": "drive"})
    )
    .unwrap_err();
    assert!(e.contains("mode"), "{e}");
}

#[test]
fn what_the_types_serialize_the_schema_accepts() {
    let cases: &[(&str, Value)] = &[
        (
            "tree_edit",
            json!({"tree": {"name": "r", "children": [{"name": "x"}]}, "edit": {"op": "rename", "to": "y"}}),
        ),
        (
            "git_create_branch",
            json!({"repo_path": "/r", "branch_name": "b", "base_branch": null}),
        ),
        (
            "update_issue_labels",
            json!({"owner": "o", "repo": "r", "issue_number": 1, "labels": ["a", {"name": "b"}]}),
        ),
        (
            "route_plan",
            json!({
                "from": {"label": "a", "lat": 0, "lon": 0}, "to": {"label": "b", "lat": 1.5, "lon": -1},
                "via": [{"label": "c", "lat": 2, "lon": 2}], "mode": "bike", "fallback": null,
                "limit": {"kind": "distance", "km": 3}, "rest_at": {"label": "d", "lat": 0, "lon": 0}
            }),
        ),
    ];
    for (tool, args) in cases {
        for t in wild_typed::ARGUMENT_TYPES
            .iter()
            .filter(|t| t.tool == *tool)
        {
            let typed = (t.parse)(args).unwrap_or_else(|e| panic!("{tool}: {}", e.message()));
            // The schema as served (authored: `$defs` kept), restriction not applied: every
            // type of the tool is within it.
            let file = format!(
                "{}/tests/catalogs/wild_typed/tools/{tool}.json",
                env!("CARGO_MANIFEST_DIR")
            );
            let tool_file: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
            let schema = toolgate_schema::json::Value::from_serde(&tool_file["inputSchema"]);
            let v = toolgate_schema::validator::SchemaValidator::new(&schema, false).unwrap();
            assert!(v.is_valid(&typed), "{tool}: {typed} refused by its schema");
        }
    }
}

#[test]
fn triage_may_only_update_issues_and_has_no_git_tool() {
    let _: issue_write::TriageArgs = parse!(
        issue_write::TriageArgs,
        json!({"method": "update", "owner": "o", "repo": "r", "issue_number": 1})
    )
    .unwrap();
    let e = parse!(
        issue_write::TriageArgs,
        json!({"method": "create", "owner": "o", "repo": "r", "title": "t"})
    )
    .unwrap_err();
    assert!(e.contains("method"), "{e}");
    let session = wild_typed::Session::resolve("triage");
    let e = wild_typed::dispatch(
        &session,
        &wild_typed::EchoHandler,
        "git_create_branch",
        &json!({"repo_path": "/r", "branch_name": "b"}),
    )
    .unwrap_err();
    assert!(e.is_unknown_tool(), "{e:?}");
}
