//! Run-time validation of a catalog loaded at run time, with the `jsonschema` crate.
//!
//! A catalog folder served without generated code (`toolgate serve --catalog DIR`, the gate)
//! validates each call against the input schema the session is served, every keyword of the
//! accepted subset included (`anyOf`, `pattern`, `$ref`, ...). The typed validator of
//! `toolgate-runtime` words a refusal first, so a call refused for what the typed model holds
//! gets the message generated code gives; what only the full validator sees is worded from
//! its error, naming the field. `jsonschema` runs with its default features off (no network,
//! no file resolution: only references into the same schema resolve) and with the `regex`
//! crate for patterns (see docs/catalog-format.md for how it differs from ECMA-262).
//! `docs/benchmarks.md` measures it against the typed path.

use std::fmt;

use crate::json::Value;
use crate::model::Schema;
use crate::runtime::{CallError, Violation, check_arguments};
use toolgate_runtime::subset::Dialect;

/// A compiled validator for one served input (or output) schema.
pub struct SchemaValidator {
    validator: jsonschema::Validator,
}

impl fmt::Debug for SchemaValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SchemaValidator(..)")
    }
}

/// Why a schema could not be compiled: the message and the JSON pointer, inside the schema,
/// of the keyword at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    /// The JSON pointer inside the schema (`/properties/path/pattern`).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl SchemaValidator {
    /// Compiles `schema` (served JSON: as authored or resolved) for its dialect (its
    /// `$schema`, 2020-12 without one). `assert_formats` makes `format` an assertion.
    pub fn new(schema: &Value, assert_formats: bool) -> Result<SchemaValidator, CompileError> {
        let dialect = schema
            .as_object()
            .and_then(|o| o.get("$schema"))
            .and_then(Value::as_str)
            .and_then(Dialect::from_uri)
            .unwrap_or_default();
        let draft = match dialect {
            Dialect::Draft202012 => jsonschema::Draft::Draft202012,
            Dialect::Draft07 => jsonschema::Draft::Draft7,
        };
        Self::with_draft(&schema.to_serde(), draft, assert_formats)
    }

    /// Compiles a `serde_json` schema for `draft`.
    pub fn with_draft(
        schema: &serde_json::Value,
        draft: jsonschema::Draft,
        assert_formats: bool,
    ) -> Result<SchemaValidator, CompileError> {
        jsonschema::options()
            .with_draft(draft)
            .should_validate_formats(assert_formats)
            .with_pattern_options(jsonschema::PatternOptions::regex())
            .build(schema)
            .map(|validator| SchemaValidator { validator })
            .map_err(|e| CompileError {
                pointer: e.schema_path().to_string(),
                message: e.to_string(),
            })
    }

    /// Whether `value` is valid.
    pub fn is_valid(&self, value: &serde_json::Value) -> bool {
        self.validator.is_valid(value)
    }

    /// Every violation of `value`, each naming its field (`items[0].name`), at most
    /// [`crate::validate::MAX_LISTED`].
    pub fn violations(&self, value: &serde_json::Value) -> Vec<Violation> {
        self.validator
            .iter_errors(value)
            .take(crate::validate::MAX_LISTED)
            .map(|e| {
                let field = field_path(&e.instance_path().to_string(), value);
                let message = if field.is_empty() {
                    format!("the arguments: {e}")
                } else {
                    format!("`{field}`: {e}")
                };
                Violation { field, message }
            })
            .collect()
    }

    /// Checks the arguments of a call to `tool`: refused as the typed validator words it
    /// when `typed` (the typed model of the same schema) refuses them, else as this
    /// validator finds.
    pub fn check(
        &self,
        tool: &str,
        typed: &Schema,
        arguments: &serde_json::Value,
    ) -> Result<(), CallError> {
        check_arguments(tool, typed, arguments)?;
        if self.is_valid(arguments) {
            return Ok(());
        }
        Err(CallError::InvalidArguments {
            tool: tool.to_string(),
            violations: self.violations(arguments),
        })
    }
}

/// A JSON pointer into `value` as a field path: `/a/0/b` is `a[0].b`.
fn field_path(pointer: &str, value: &serde_json::Value) -> String {
    let mut out = String::new();
    let mut cur = Some(value);
    for raw in pointer.split('/').skip(1) {
        let seg = raw.replace("~1", "/").replace("~0", "~");
        match cur {
            Some(serde_json::Value::Array(a)) => {
                let i = seg.parse::<usize>().ok();
                out.push_str(&format!("[{seg}]"));
                cur = i.and_then(|i| a.get(i));
            }
            other => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&seg);
                cur = other.and_then(|v| v.get(&seg));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn validates_every_keyword_and_names_the_field() {
        let schema = v(
            r##"{"type":"object","$defs":{"n":{"anyOf":[{"type":"string","pattern":"^a"},{"type":"null"}]}},
                "properties":{"x":{"$ref":"#/$defs/n"},"items":{"type":"array","items":{"const":1}}}}"##,
        );
        let val = SchemaValidator::new(&schema, false).unwrap();
        assert!(val.is_valid(&serde_json::json!({"x": "abc", "items": [1]})));
        assert!(val.is_valid(&serde_json::json!({"x": null})));
        let bad = val.violations(&serde_json::json!({"x": "b", "items": [1, 2]}));
        let mut fields: Vec<&str> = bad.iter().map(|b| b.field.as_str()).collect();
        fields.sort();
        assert_eq!(fields, ["items[1]", "x"], "{bad:?}");
    }

    #[test]
    fn formats_are_asserted_only_on_opt_in() {
        let schema =
            v(r#"{"type":"object","properties":{"u":{"type":"string","format":"email"}}}"#);
        let call = serde_json::json!({"u": "not an email"});
        assert!(
            SchemaValidator::new(&schema, false)
                .unwrap()
                .is_valid(&call)
        );
        assert!(!SchemaValidator::new(&schema, true).unwrap().is_valid(&call));
    }

    #[test]
    fn remote_refs_do_not_resolve() {
        let schema = v(r#"{"$ref":"https://example.com/s.json"}"#);
        assert!(SchemaValidator::new(&schema, false).is_err());
    }
}

#[cfg(test)]
mod ecma {
    use super::*;

    /// What docs/catalog-format.md says about patterns, checked.
    #[test]
    fn patterns_differ_from_ecma_262_as_documented() {
        let s = |p: &str| -> Value {
            serde_json::from_str(&format!(
                r#"{{"type":"object","properties":{{"s":{{"type":"string","pattern":{}}}}}}}"#,
                serde_json::to_string(p).unwrap()
            ))
            .unwrap()
        };
        let digit = SchemaValidator::new(&s(r"^\d$"), false).unwrap();
        // `\d` is ASCII, as in ECMA-262.
        assert!(!digit.is_valid(&serde_json::json!({"s": "\u{0663}"})));
        assert!(digit.is_valid(&serde_json::json!({"s": "7"})));
        // No look-around, no backreferences: the schema does not compile.
        assert!(SchemaValidator::new(&s(r"^(?=a)a$"), false).is_err());
        assert!(SchemaValidator::new(&s(r"^(a)\1$"), false).is_err());
    }
}
