//! The input schemas a session is served, checked at run time: one checker for the echo
//! backend of a catalog folder and for the gate, so both refuse exactly what the schema
//! refuses.
//!
//! The typed model (`toolgate_runtime::check_arguments`) decides first and words a refusal
//! naming the field; every keyword it does not hold (`anyOf`, `pattern`, ...) is then checked
//! by the `jsonschema`-backed validator of the same served schema. A schema that validator
//! cannot compile is never waved through: calls of that tool are refused.

use std::collections::HashMap;

use toolgate_runtime::model::Schema;
use toolgate_runtime::validate::Violation;
use toolgate_runtime::{CallError, check_arguments};
use toolgate_schema::stacks::{self, Stack};
use toolgate_schema::validator::SchemaValidator;
use toolgate_schema::{Session, Surface};

/// How a tool's arguments are checked.
#[derive(Debug)]
enum Full {
    /// Every keyword, by the jsonschema-backed validator.
    Compiled(Box<SchemaValidator>),
    /// The served schema did not compile (the reason): its calls are refused.
    Refused(String),
}

/// The input schema each tool of a session is served, with its validators.
#[derive(Debug)]
pub struct ServedSchemas {
    schemas: HashMap<String, (Schema, Full)>,
    /// With `--host`: the stack whose rewritten schemas the client was served, and each
    /// tool's authored input schema, which [`ServedSchemas::decode`] reads calls back into.
    host: Option<(Stack, HashMap<String, serde_json::Value>)>,
}

impl ServedSchemas {
    /// The schemas `session` is served over `surface`, for the tools `keep` accepts.
    pub fn new(surface: &Surface, session: &Session, keep: impl Fn(&str) -> bool) -> ServedSchemas {
        let schemas = surface
            .served(session)
            .into_iter()
            .filter(|s| keep(&s.tool.name))
            .map(|s| {
                let full = match s.entry.served.get("inputSchema") {
                    Some(v) => match SchemaValidator::new(v, surface.assert_formats) {
                        Ok(v) => Full::Compiled(Box::new(v)),
                        Err(e) => Full::Refused(format!("{} at {}", e.message, e.pointer)),
                    },
                    None => Full::Refused("the tool is served without an inputSchema".into()),
                };
                (s.tool.name.clone(), (s.entry.input_schema.clone(), full))
            })
            .collect();
        ServedSchemas {
            schemas,
            host: None,
        }
    }

    /// The same schemas, the client served `stack`'s equivalents of them
    /// (`toolgate_schema::stacks::adapt`): calls are decoded before they are checked.
    pub fn for_host(mut self, surface: &Surface, session: &Session, stack: Stack) -> Self {
        let authored = surface
            .served(session)
            .into_iter()
            .filter(|s| self.schemas.contains_key(&s.tool.name))
            .filter_map(|s| {
                let v = s.entry.served.get("inputSchema")?.to_serde();
                Some((s.tool.name.clone(), v))
            })
            .collect();
        self.host = Some((stack, authored));
        self
    }

    /// A call's arguments as the authored schema judges them: with a host, what the client
    /// wrote against the rewritten schema read back (`stacks::decode`); else as they came.
    pub fn decode(&self, tool: &str, arguments: serde_json::Value) -> serde_json::Value {
        match &self.host {
            Some((stack, authored)) => match authored.get(tool) {
                Some(schema) => stacks::decode(*stack, schema, &arguments),
                None => arguments,
            },
            None => arguments,
        }
    }

    /// Checks a call of `tool`: its typed schema when the arguments are valid; an unknown
    /// tool (not served to the session) or the violations, each naming its field.
    pub fn check(&self, tool: &str, arguments: &serde_json::Value) -> Result<&Schema, CallError> {
        let (schema, full) = self
            .schemas
            .get(tool)
            .ok_or_else(|| CallError::unknown_tool(tool))?;
        match full {
            Full::Compiled(v) => v.check(tool, schema, arguments)?,
            Full::Refused(why) => {
                check_arguments(tool, schema, arguments)?;
                return Err(CallError::InvalidArguments {
                    tool: tool.to_string(),
                    violations: vec![Violation {
                        field: String::new(),
                        message: format!(
                            "the arguments of `{tool}` cannot be checked ({why}); refused"
                        ),
                    }],
                });
            }
        }
        Ok(schema)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-tool catalog whose argument has keywords the typed model does not hold.
    fn surface() -> Surface {
        let dir = std::env::temp_dir().join(format!("toolgate-checked-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("tools")).expect("create");
        std::fs::write(
            dir.join("profiles.json"),
            r#"{"catalog": "pick", "selector": {"env": "PICK_PROFILE"},
                "profiles": {"all": "Everyone."},
                "groups": {"main": {"description": "Everything."}},
                "grants": {"main": ["all"]}}"#,
        )
        .expect("matrix");
        std::fs::write(
            dir.join("tools/pick.json"),
            r#"{"name": "pick", "group": "main", "description": "Pick a colour or a number.",
                "inputSchema": {"type": "object", "properties": {
                  "choice": {"anyOf": [{"type": "string", "pattern": "^[a-z]+$"}, {"type": "integer", "minimum": 1}]}
                }, "required": ["choice"]}}"#,
        )
        .expect("tool");
        let catalog = toolgate_schema::load_dir(&dir).expect("the catalog loads");
        let _ = std::fs::remove_dir_all(&dir);
        Surface::from_catalog(&catalog)
    }

    #[test]
    fn keywords_beyond_the_typed_model_are_checked_not_waved_through() {
        let surface = surface();
        let session = surface.resolve("all");
        let schemas = ServedSchemas::new(&surface, &session, |_| true);
        let ok = |v: serde_json::Value| schemas.check("pick", &v).map(|_| ());
        assert!(ok(serde_json::json!({"choice": "teal"})).is_ok());
        assert!(ok(serde_json::json!({"choice": 3})).is_ok());
        for bad in [
            serde_json::json!({"choice": "Teal!"}),
            serde_json::json!({"choice": 0}),
            serde_json::json!({"choice": true}),
            serde_json::json!({}),
        ] {
            let e = ok(bad.clone()).expect_err("refused");
            assert!(e.message().contains("choice"), "{bad}: {}", e.message());
        }
        assert!(
            schemas
                .check("absent", &serde_json::json!({}))
                .unwrap_err()
                .is_unknown_tool()
        );
        let none = ServedSchemas::new(&surface, &session, |_| false);
        assert!(
            none.check("pick", &serde_json::json!({"choice": "a"}))
                .unwrap_err()
                .is_unknown_tool()
        );
    }
}
