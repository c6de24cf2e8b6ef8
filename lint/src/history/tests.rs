use super::*;

fn step(version: &str) -> Step {
    Step {
        version: version.into(),
        ..Step::default()
    }
}

fn rename(old: &str, new: &str) -> ToolRename {
    ToolRename {
        old: old.into(),
        new: new.into(),
        set: None,
    }
}

#[test]
fn a_chain_of_renames_ends_at_the_current_tool() {
    let mut s1 = step("1");
    s1.added = vec!["a".into(), "keep".into()];
    let mut s2 = step("2");
    s2.renamed = vec![rename("a", "b")];
    let mut s3 = step("3");
    s3.renamed = vec![rename("b", "c")];
    let p = past("pkg", &[s1, s2, s3], &["c", "keep"]);
    assert_eq!(p.formers.len(), 2);
    assert_eq!(p.formers[0].name, "a");
    assert_eq!(p.formers[0].successor.as_deref(), Some("c"));
    assert_eq!(p.formers[0].version, "2");
    assert_eq!(p.formers[1].name, "b");
    assert_eq!(p.formers[1].version, "3");
}

#[test]
fn a_rename_into_a_removed_tool_is_a_removal() {
    let mut s2 = step("2");
    s2.renamed = vec![rename("a", "b")];
    let mut s3 = step("3");
    s3.removed = vec!["b".into()];
    let p = past("pkg", &[step("1"), s2, s3], &["x"]);
    let a = &p.formers[0];
    assert_eq!(
        (a.name.as_str(), a.successor.as_deref(), a.version.as_str()),
        ("a", None, "3")
    );
}

#[test]
fn a_name_that_came_back_is_current() {
    let mut s2 = step("2");
    s2.removed = vec!["a".into()];
    let mut s3 = step("3");
    s3.added = vec!["a".into()];
    let p = past("pkg", &[step("1"), s2, s3], &["a"]);
    assert!(p.formers.is_empty());
}

#[test]
fn lost_fields_follow_their_tool_and_successor() {
    let mut s2 = step("2");
    s2.fields = vec![FieldChanges {
        tool: "t".into(),
        renamed: vec![("a".into(), "b".into())],
        removed: vec!["gone".into()],
        ..FieldChanges::default()
    }];
    let mut s3 = step("3");
    s3.renamed = vec![rename("t", "u")];
    s3.fields = vec![FieldChanges {
        tool: "u".into(),
        renamed: vec![("b".into(), "c".into())],
        ..FieldChanges::default()
    }];
    let p = past("pkg", &[step("1"), s2, s3], &["u"]);
    let got: Vec<(&str, &str, Option<&str>)> = p
        .fields
        .iter()
        .map(|f| (f.tool.as_str(), f.field.as_str(), f.successor.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("u", "a", Some("c")),
            ("u", "b", Some("c")),
            ("u", "gone", None)
        ]
    );
}
