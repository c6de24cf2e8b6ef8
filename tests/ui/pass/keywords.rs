//! A catalog whose schemas use `pattern` and `allOf` compiles: `q` is a string checked
//! against its pattern, `limit` the integer its `allOf` merges to, with its bound.

mod keywords {
    toolgate_macros::catalog!("tests/ui/catalogs/keywords");
}

use keywords::{AlphaHandler, AlwaysOnHandler};

struct Search;

impl AlwaysOnHandler for Search {
    type Output = String;
}

impl AlphaHandler for Search {
    fn search(&self, arguments: keywords::search::Args<'_>) -> String {
        let limit: Option<i64> = arguments.limit;
        format!("{} {limit:?}", arguments.q)
    }
}

fn main() {
    let session = keywords::Session::resolve("alpha");
    let call = |args: serde_json::Value| keywords::dispatch(&session, &Search, "search", &args);
    assert_eq!(call(serde_json::json!({"q": "abc", "limit": 3})).unwrap(), "abc Some(3)");
    let refused = call(serde_json::json!({"q": "ABC"})).unwrap_err().message();
    assert_eq!(refused, "field `q` must match the pattern `^[a-z]+$`");
    let refused = call(serde_json::json!({"q": "abc", "limit": -1})).unwrap_err().message();
    assert_eq!(refused, "field `limit` must be at least 0, found -1");
}
