//! What each client stack does with a tool's input schema before its model sees it.
//!
//! An MCP server's tool schemas are JSON Schema 2020-12; the stacks that hand them to a model
//! accept less, each in its own way. Each [`Stack`] here is a model of one stack's own code at
//! a pinned version (its package, version and function are in [`Stack::source`]): per keyword
//! and shape, what it accepts, rewrites losslessly, drops (the model no longer sees the
//! constraint; a constraint moved into the description text counts as dropped) or rejects.
//! [`judge`] gives the findings of one authored schema; [`adapt`] writes an equivalent the
//! stack accepts, and [`decode`] turns a call made against that equivalent back into the call
//! the authored schema judges. `tests/host_judges.rs` runs the stacks' own code over the real
//! captures of `../shared` and holds these models to it.
//!
//! Keywords that carry no constraint a validator checks are not reported as dropped
//! ([`STRUCTURAL`]).

mod adapt;
mod anthropic;
mod gemini;
mod openai;
mod walk;

pub use adapt::{Adapted, adapt, decode};

use serde_json::Value;

use crate::json::Value as Json;

/// Keywords never reported as dropped: they carry no constraint a validator checks, or a
/// stack's rewriting of them is lossless (`$ref`/`$defs` inlined).
pub const STRUCTURAL: &[&str] = &[
    "title",
    "$schema",
    "$ref",
    "$defs",
    "definitions",
    "nullable",
    "$id",
    "$comment",
    "format",
    "description",
];

/// A client stack with a schema model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stack {
    /// OpenAI strict function calling, as the OpenAI Agents SDK converts an MCP tool.
    OpenAiStrict,
    /// Gemini's `Schema` (a function declaration's `parameters`), as google-genai converts it.
    GeminiSchema,
    /// Claude strict tool use, as the Anthropic SDK transforms a schema.
    AnthropicStrict,
}

impl Stack {
    /// Every stack, in table order.
    pub const ALL: [Stack; 3] = [
        Stack::OpenAiStrict,
        Stack::GeminiSchema,
        Stack::AnthropicStrict,
    ];

    /// The host id (`--host`, `hosts` in profiles.json).
    pub fn id(self) -> &'static str {
        match self {
            Stack::OpenAiStrict => "openai-strict",
            Stack::GeminiSchema => "gemini-schema",
            Stack::AnthropicStrict => "anthropic-strict",
        }
    }

    /// The stack of a host id.
    pub fn of(id: &str) -> Option<Stack> {
        Stack::ALL.into_iter().find(|s| s.id() == id)
    }

    /// The code the model is read from: package, version, function.
    pub fn source(self) -> &'static str {
        match self {
            Stack::OpenAiStrict => {
                "PyPI openai-agents 0.24.0: agents.mcp.util.MCPUtil.to_function_tool(tool, server, convert_schemas_to_strict=True), over agents.strict_schema.ensure_strict_json_schema(schema, _reject_open_objects=True); a schema it cannot convert is served non-strict"
            }
            Stack::GeminiSchema => {
                "PyPI google-genai 3.6.1: types.JSONSchema(**schema), types.Schema.from_json_schema(json_schema=..., raise_error_on_unsupported_field=True), then _transformers.t_schema (what FunctionDeclaration.parameters goes through)"
            }
            Stack::AnthropicStrict => {
                "PyPI anthropic 2.16.0: anthropic.lib._parse._transform.transform_schema (strict tool use; what it does not support goes into the description text)"
            }
        }
    }

    /// What the model does, in a sentence, for `explain host-limits`.
    pub fn summary(self) -> &'static str {
        match self {
            Stack::OpenAiStrict => {
                "rejects an object that allows undeclared properties or declares none, a `$ref` alone or beside constraints, `anyOf` or a type list at the root; makes every property required and closes every object; reads `oneOf` as `anyOf`"
            }
            Stack::GeminiSchema => {
                "rejects every keyword outside type, format, title, description, default, items, minItems, maxItems, enum (strings only), properties, required, minProperties, maxProperties, minimum, maximum, minLength, maxLength, pattern, additionalProperties, anyOf, $ref, $defs; drops additionalProperties, and what a type list's types do not use"
            }
            Stack::AnthropicStrict => {
                "rejects a type list, a schema with no type, anyOf, oneOf, allOf, enum or const, and a boolean schema; keeps type, enum, const, anyOf (oneOf as anyOf), allOf, properties, required, items, minItems 0 or 1, formats it knows, $ref, $defs; moves the rest into the description; closes every object"
            }
        }
    }
}

/// What a stack does with a keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Effect {
    /// The stack refuses the schema (an error; OpenAI's falls back to non-strict).
    Rejected,
    /// The stack accepts the schema without the constraint: its model will not know it.
    Dropped,
    /// No schema the stack accepts says what the authored one says (for `adapt`).
    Inexpressible,
}

impl Effect {
    /// `rejected`, `dropped`, `inexpressible`.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Rejected => "rejected",
            Effect::Dropped => "dropped",
            Effect::Inexpressible => "inexpressible",
        }
    }
}

/// One keyword a stack rejects or drops, where.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// JSON pointer into the input schema (`""` the root), through inlined `$ref`s at the
    /// place of use.
    pub path: String,
    /// The keyword (`""` for the shape of the whole subschema).
    pub keyword: String,
    /// Rejected or dropped.
    pub effect: Effect,
    /// Why, in the stack's terms.
    pub reason: String,
}

/// Every keyword of `schema` that `stack` rejects or drops, sorted by path and keyword, each
/// once.
pub fn judge(stack: Stack, schema: &Value) -> Vec<Finding> {
    let mut out = match stack {
        Stack::OpenAiStrict => openai::judge(schema),
        Stack::GeminiSchema => gemini::judge(schema),
        Stack::AnthropicStrict => anthropic::judge(schema),
    };
    out.sort();
    out.dedup_by(|a, b| a.path == b.path && a.keyword == b.keyword && a.effect == b.effect);
    out
}

/// Whether a stack accepts `schema` (no finding rejects it).
pub fn accepts(stack: Stack, schema: &Value) -> bool {
    !judge(stack, schema)
        .iter()
        .any(|f| f.effect == Effect::Rejected)
}

/// A `tools/list` result (`{"tools": [...]}`) with each tool's `inputSchema` as `stack`
/// accepts it ([`adapt`]); every other field of a tool as it was, in its order. A tool with no
/// acceptable equivalent is left out, and named with the reason.
pub fn adapt_tools_list(stack: Stack, list: &Json) -> (Json, Vec<(String, String)>) {
    let mut refused = Vec::new();
    let Some(obj) = list.as_object() else {
        return (list.clone(), refused);
    };
    let mut out = obj.clone();
    let mut kept = Vec::new();
    for tool in obj
        .get("tools")
        .and_then(Json::as_array)
        .unwrap_or_default()
    {
        let (Some(t), Some(schema)) = (
            tool.as_object(),
            tool.as_object().and_then(|t| t.get("inputSchema")),
        ) else {
            kept.push(tool.clone());
            continue;
        };
        let adapted = adapt(stack, &schema.to_serde());
        if let Some(why) = adapted.inexpressible {
            let name = match t.get("name") {
                Some(Json::String(n)) => n.clone(),
                _ => String::new(),
            };
            refused.push((name, why));
            continue;
        }
        let mut t = t.clone();
        t.insert("inputSchema", Json::from_serde(&adapted.schema));
        kept.push(Json::Object(t));
    }
    out.insert("tools", Json::Array(kept));
    (Json::Object(out), refused)
}

#[cfg(test)]
mod tests;
