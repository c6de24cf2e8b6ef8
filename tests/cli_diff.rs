//! `toolgate diff`, end to end.

mod common;

use common::{copy_tree, repo_root, run, scratch, stderr, stdout};

#[test]
fn folder_manifest_and_bundled_sides_agree() {
    let dir = scratch("diff_sides");
    let manifest = dir.join("manifest.json");
    let o = run(&["manifest", "--catalog", "tatara"]);
    std::fs::write(&manifest, o.stdout).unwrap();
    let m = manifest.to_str().unwrap();
    for (old, new) in [
        ("tatara", "schema/tatara"),
        (m, "schema/tatara"),
        ("schema/tatara", m),
    ] {
        let o = run(&["diff", old, new, "--format", "json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["bump"], "none", "{old} -> {new}");
        assert_eq!(v["changes"], serde_json::json!([]));
    }
}

#[test]
fn declared_bump_gates_the_release() {
    let dir = scratch("diff_declared");
    let new = dir.join("tatara");
    copy_tree(&repo_root().join("schema/tatara"), &new);
    // Take mr_write away from review: a major change for that profile.
    let matrix = new.join("profiles.json");
    let text = std::fs::read_to_string(&matrix).unwrap();
    let edited = text.replace(
        "\"mr_write\": [\"implement\", \"review\", ",
        "\"mr_write\": [\"implement\", ",
    );
    assert_ne!(text, edited);
    std::fs::write(&matrix, edited).unwrap();
    let new = new.to_str().unwrap();

    let o = run(&["diff", "tatara", new]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        "major (1):\n  tool-removed-from-profile: profile `review` no longer sees `mr_write` [review]\nrequired bump: major\nrisk: review\n\ncontext cost (o200k_base tokens of each profile's tools/list `tools`):\n  review: -143 tokens (-7%), 2,102 -> 1,959\n"
    );
    let o = run(&["diff", "tatara", new, "--declared", "minor"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("the change requires a major bump, but minor was declared"));
    let o = run(&[
        "diff",
        "tatara",
        new,
        "--declared",
        "major",
        "--format",
        "markdown",
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains(
        "| `tool-removed-from-profile` | profile `review` no longer sees `mr_write` | review |"
    ));
}

#[test]
fn an_unreadable_side_exits_2() {
    let o = run(&["diff", "tatara", "no/such/thing.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("NEW side `no/such/thing.json`: no such file, folder or bundled catalog")
    );
    let dir = scratch("diff_bad");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"tools\": 3}").unwrap();
    let o = run(&["diff", bad.to_str().unwrap(), "tatara"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.json:1:"), "{}", stderr(&o));
}
