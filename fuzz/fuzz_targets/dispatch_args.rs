//! The server's argument decoding: arbitrary JSON into the typed dispatch that `catalog!`
//! generated for the bundled catalogs, checked against the run-time validator.
//!
//! The input is `catalog<TAB>selector<TAB>tool<LF>arguments`: the first line picks the catalog
//! (`maetra` when it starts with `m`, else `tatara`), the selector value (any string:
//! a profile, a combination, garbage; resolved fail closed) and the tool; the rest is the
//! arguments as JSON text. Every input is checked to be:
//!
//! - resolved alike by the generated `Session` and by `toolgate_schema::Surface` (same
//!   profiles, same warning), and served the same tool names;
//! - read alike by the direct path and by serde, for every argument type of the tool (as
//!   JSON text: whenever the direct path reads it, serde reads the same value);
//! - answered alike as JSON text, as a `serde_json::Value` and as a `Map` (same result or
//!   same message; text that writes a key twice is refused as text and only its parsed
//!   forms are compared);
//! - for a tool the session is not served: the unknown-tool answer, whatever the arguments;
//! - for a served tool: accepted by the typed path exactly when the run-time validator
//!   (`toolgate_schema::validate` on the served schema) finds nothing, and refused with the
//!   validator's messages; text that is not JSON refused as such;
//! - for an accepted call: the echoed typed arguments (defaults filled in) are valid too,
//!   calling again with them echoes the same, and `runtime::as_typed` (the echo of a server
//!   over the catalog folder, which has no types) gives exactly them.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolgate_generated::{maetra, tatara};
use toolgate_schema::runtime::direct::Agreement;
use toolgate_schema::runtime::{ArgumentType, CallError};
use toolgate_schema::{Surface, validate};

/// What one catalog's generated code answers, whatever the argument form.
trait Generated {
    fn resolve(requested: &str) -> Self;
    fn profiles(&self) -> Vec<String>;
    fn warning(&self) -> Option<String>;
    fn tools_list(&self) -> String;
    fn argument_types() -> &'static [ArgumentType];
    fn call_text(&self, tool: &str, arguments: &str) -> Result<Value, CallError>;
    fn call_value(&self, tool: &str, arguments: &Value) -> Result<Value, CallError>;
    fn call_map(
        &self,
        tool: &str,
        arguments: &serde_json::Map<String, Value>,
    ) -> Result<Value, CallError>;
}

macro_rules! generated {
    ($module:ident) => {
        impl Generated for $module::Session {
            fn resolve(requested: &str) -> Self {
                $module::Session::resolve(requested)
            }
            fn profiles(&self) -> Vec<String> {
                $module::Session::profiles(self)
                    .iter()
                    .map(|p| p.name().to_string())
                    .collect()
            }
            fn warning(&self) -> Option<String> {
                $module::Session::warning(self).map(str::to_string)
            }
            fn tools_list(&self) -> String {
                self.tools_list_json().into_owned()
            }
            fn argument_types() -> &'static [ArgumentType] {
                $module::ARGUMENT_TYPES
            }
            fn call_text(&self, tool: &str, arguments: &str) -> Result<Value, CallError> {
                $module::dispatch(self, &$module::EchoHandler, tool, arguments)
            }
            fn call_value(&self, tool: &str, arguments: &Value) -> Result<Value, CallError> {
                $module::dispatch(self, &$module::EchoHandler, tool, arguments)
            }
            fn call_map(
                &self,
                tool: &str,
                arguments: &serde_json::Map<String, Value>,
            ) -> Result<Value, CallError> {
                $module::dispatch(self, &$module::EchoHandler, tool, arguments)
            }
        }
    };
}

generated!(tatara);
generated!(maetra);

fn same(a: &Result<Value, CallError>, b: &Result<Value, CallError>) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => x == y,
        (Err(x), Err(y)) => {
            x.message() == y.message() && x.is_unknown_tool() == y.is_unknown_tool()
        }
        _ => false,
    }
}

fn check<G: Generated>(surface: &Surface, selector: &str, tool: &str, text: &str) {
    // Resolution: the generated session and the run-time surface agree.
    let session = G::resolve(selector);
    let resolved = surface.resolve(selector);
    assert_eq!(session.profiles(), resolved.profiles, "{selector:?}");
    assert_eq!(session.warning(), resolved.warning, "{selector:?}");
    let served = surface.served(&resolved);
    let list: Value = serde_json::from_str(&session.tools_list()).expect("tools/list is JSON");
    let listed: Vec<&str> = list["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|t| t["name"].as_str().expect("a name"))
        .collect();
    let names: Vec<&str> = served.iter().map(|s| s.tool.name.as_str()).collect();
    assert_eq!(listed, names, "{selector:?}");

    for t in G::argument_types().iter().filter(|t| t.tool == tool) {
        if let Agreement::Differ(why) = (t.compare_direct)(text) {
            panic!("{}: {text:?}: {why}", t.type_name);
        }
    }
    let by_text = session.call_text(tool, text);
    let value = serde_json::from_str::<Value>(text);
    // JSON text with a key written twice has no one meaning (RFC 8259): `serde_json::Value`
    // keeps the last, toolgate's reader refuses it, a typed struct refuses a declared field
    // twice and ignores an undeclared one. For such text only the parsed forms are checked.
    let one_meaning = serde_json::from_str::<toolgate_schema::json::Value>(text).is_ok();
    let answer = match &value {
        Ok(v) => {
            let by_value = session.call_value(tool, v);
            if one_meaning {
                assert!(same(&by_text, &by_value), "{by_text:?} / {by_value:?}");
            }
            if let Value::Object(m) = v {
                let by_map = session.call_map(tool, m);
                assert!(same(&by_value, &by_map), "{by_value:?} / {by_map:?}");
            }
            by_value
        }
        Err(_) => by_text,
    };

    let Some(entry) = served.iter().find(|s| s.tool.name == tool) else {
        assert_eq!(
            answer,
            Err(CallError::unknown_tool(tool)),
            "{tool:?} is not served"
        );
        return;
    };
    let schema = &entry.entry.input_schema;
    let Ok(value) = value else {
        let message = answer
            .expect_err("text that is not JSON is refused")
            .message();
        assert!(
            message.starts_with("the arguments are not valid JSON: "),
            "{message}"
        );
        return;
    };
    let violations = validate::validate_serde(schema, &value);
    match &answer {
        Ok(echo) => {
            assert!(
                violations.is_empty(),
                "typed accepted what the validator refuses: {violations:?}"
            );
            assert_eq!(echo["tool"], tool);
            let typed = &echo["arguments"];
            // What a server over the catalog folder echoes, with no types.
            assert_eq!(
                &toolgate_schema::runtime::as_typed(schema, &value),
                typed,
                "the untyped echo differs from the typed one"
            );
            let again = validate::validate_serde(schema, typed);
            assert!(
                again.is_empty(),
                "the echoed arguments {typed} are refused: {again:?}"
            );
            let echo_again = session
                .call_value(tool, typed)
                .expect("the echoed arguments are accepted");
            assert_eq!(&echo_again, echo);
        }
        Err(e) => {
            assert!(!e.is_unknown_tool(), "a served tool answered as unknown");
            let expected: Vec<&str> = violations.iter().map(|v| v.message.as_str()).collect();
            assert!(
                !expected.is_empty(),
                "typed refused what the validator accepts: {}",
                e.message()
            );
            assert_eq!(e.message(), expected.join("; "));
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let (header, arguments) = input.split_once('\n').unwrap_or((input, ""));
    let mut fields = header.splitn(3, '\t');
    let catalog = fields.next().unwrap_or_default();
    let selector = fields.next().unwrap_or_default();
    let tool = fields.next().unwrap_or_default();
    let [tatara_surface, maetra_surface] = common::surfaces();
    if catalog.starts_with('m') {
        check::<maetra::Session>(maetra_surface, selector, tool, arguments);
    } else {
        check::<tatara::Session>(tatara_surface, selector, tool, arguments);
    }
});
