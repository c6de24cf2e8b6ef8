//! Typed dispatch of the expanded catalog, as a server would call it.

use macro_user::{Desk, library, via_sdk};

#[test]
fn a_reader_gets_typed_arguments_and_cannot_lend() {
    let session = library::Session::resolve_from("reader", toolgate_runtime::Source::Given("test"));
    let ok = library::dispatch(&session, &Desk, "book_find", r#"{"title": "Dune"}"#);
    assert_eq!(ok.as_deref(), Ok("find Dune (at most 10)"));
    let renew = library::dispatch(
        &session,
        &Desk,
        "loan_write",
        r#"{"action": "renew", "book": "b1"}"#,
    );
    assert_eq!(renew.as_deref(), Ok("renew b1"));
    let lend = library::dispatch(
        &session,
        &Desk,
        "loan_write",
        r#"{"action": "lend", "book": "b1"}"#,
    )
    .expect_err("a reader may only renew");
    assert!(lend.message().contains("action"), "{}", lend.message());
    let missing =
        library::dispatch(&session, &Desk, "book_find", r#"{}"#).expect_err("title is required");
    assert!(missing.message().contains("title"), "{}", missing.message());
}

#[test]
fn an_unknown_profile_fails_closed() {
    let session =
        library::Session::resolve_from("visitor", toolgate_runtime::Source::Given("test"));
    assert!(session.is_fail_closed());
    let refused = library::dispatch(
        &session,
        &Desk,
        "hold_place",
        r#"{"book": "b", "reader": "r"}"#,
    )
    .expect_err("not granted");
    assert!(refused.is_unknown_tool());
    assert!(session.tools_list_json().contains("book_find"));
    assert!(!session.tools_list_json().contains("hold_place"));
}

#[test]
fn the_re_exported_runtime_expands_the_same_catalog() {
    assert_eq!(library::MANIFEST_JSON, via_sdk::MANIFEST_JSON);
    assert_eq!(library::TOOLS_LISTS, via_sdk::TOOLS_LISTS);
    let args: via_sdk::book_find::Args<'_> =
        serde_json::from_str(r#"{"title": "Emma", "limit": 3}"#).expect("valid");
    assert_eq!(args.limit, 3);
}
