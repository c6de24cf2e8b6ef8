//! OpenAI strict function calling, as PyPI `openai-agents` 0.24.0 converts an MCP tool:
//! `agents.mcp.util.MCPUtil.to_function_tool(tool, server, convert_schemas_to_strict=True)`
//! adds `properties: {}` to a schema without it and calls
//! `agents.strict_schema.ensure_strict_json_schema(schema, _reject_open_objects=schema != {})`;
//! when that raises, the tool is served non-strict (logged at info level only). What that
//! function does, per node it visits (`$defs`, `definitions`, `properties`, an object `items`,
//! `anyOf`, `oneOf`, `allOf`; nothing else is visited, so nothing else is changed):
//!
//! - rejects a `$ref` beside a keyword that constrains (`_REF_NON_CONSTRAINING_SIBLINGS` are
//!   the annotations), a `$ref` alone (left unresolved: `_UNVALIDATED_REF_ERROR`), an
//!   object (`type` object or in a list, or `properties` without `type`) whose
//!   `additionalProperties` is anything but `false`, or that declares no property and does
//!   not close itself (`_OPEN_OBJECT_ERROR`), `additionalProperties` other than `false`
//!   without `type`, `anyOf` or a type list other than `["object"]` at the root, a node that
//!   is not an object (a boolean schema), nesting past 100;
//! - rewrites losslessly: a `$ref` with annotations beside it inlined, a one-entry `allOf`
//!   merged into its parent (rejected where they disagree);
//! - closes every object (`additionalProperties: false`) and makes every property required:
//!   that tightens the schema, it loses no constraint of it;
//! - drops `oneOf`'s exclusivity (written as `anyOf`) and a `null` `default` (not reported:
//!   it says no more than that the property is optional).

use serde_json::{Map, Value};

use super::Finding;
use super::walk::{Sink, disjoint, push, resolve};

/// `_REF_NON_CONSTRAINING_SIBLINGS` of `agents.strict_schema`.
const REF_SIBLINGS: &[&str] = &[
    "$anchor",
    "$comment",
    "$defs",
    "$schema",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "default",
    "definitions",
    "deprecated",
    "description",
    "examples",
    "readOnly",
    "title",
    "writeOnly",
];

/// `_MAX_SCHEMA_DEPTH`.
const MAX_DEPTH: usize = 100;

pub fn judge(schema: &Value) -> Vec<Finding> {
    let mut sink = Sink::default();
    let Some(root) = schema.as_object() else {
        sink.reject("", "", "the input schema is not an object");
        return sink.0;
    };
    if root.is_empty() {
        // `ensure_strict_json_schema({})` is its empty strict object.
        return sink.0;
    }
    let mut with_props = root.clone();
    with_props
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    let value = Value::Object(with_props);
    let mut walker = Walker {
        root: &value,
        sink: &mut sink,
        expanding: Vec::new(),
    };
    walker.node(&value, "", 1, true);
    root_rules(root, &mut sink);
    sink.0
}

/// `_ensure_strict_root`.
fn root_rules(root: &Map<String, Value>, sink: &mut Sink) {
    if root.get("anyOf").is_some_and(Value::is_array) {
        sink.reject(
            "",
            "anyOf",
            "the root of a strict schema must not use `anyOf`",
        );
    }
    if let Some(Value::Array(types)) = root.get("type")
        && types.iter().any(|t| t == "object")
        && types.len() != 1
    {
        sink.reject(
            "",
            "type",
            "the root of a strict schema must be a non-nullable object",
        );
    }
}

struct Walker<'a> {
    root: &'a Value,
    sink: &'a mut Sink,
    /// The `$ref`s being expanded (a cycle would expand until the node budget runs out).
    expanding: Vec<String>,
}

impl Walker<'_> {
    fn node(&mut self, v: &Value, path: &str, depth: usize, is_root: bool) {
        if depth > MAX_DEPTH {
            self.sink.reject(path, "", "nested past 100 levels");
            return;
        }
        if self.sink.spent(path) {
            return;
        }
        let Some(m) = v.as_object() else {
            self.sink.reject(
                path,
                "",
                "a boolean schema: ensure_strict_json_schema expects a dictionary",
            );
            return;
        };
        if let Some(r) = m.get("$ref") {
            self.reference(m, r, path, depth, is_root);
            return;
        }
        for defs in ["$defs", "definitions"] {
            if let Some(Value::Object(d)) = m.get(defs) {
                for (name, s) in d {
                    self.node(s, &push(&push(path, defs), name), depth + 1, false);
                }
            }
        }
        self.object_rules(m, path);
        self.children(m, path, depth);
    }

    /// A `$ref`: beside constraints, alone, or beside annotations only (inlined).
    fn reference(
        &mut self,
        m: &Map<String, Value>,
        r: &Value,
        path: &str,
        depth: usize,
        is_root: bool,
    ) {
        let mut siblings: Vec<&str> = m
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "$ref" && !REF_SIBLINGS.contains(k) && !(is_root && *k == "$id"))
            .collect();
        // `properties: {}` is what MCPUtil adds to the root, not the author.
        if is_root && m.get("properties") == Some(&Value::Object(Map::new())) {
            siblings.retain(|k| *k != "properties");
        }
        if !siblings.is_empty() {
            let reason = format!(
                "a `$ref` beside {}: ensure_strict_json_schema cannot merge them without changing which values are valid",
                siblings.join(", ")
            );
            self.sink.reject(path, "$ref", reason);
            return;
        }
        if m.len() == 1 {
            self.sink.reject(path, "$ref", "a `$ref` alone, which ensure_strict_json_schema leaves unresolved (`_UNVALIDATED_REF_ERROR`): the tool is served non-strict");
            return;
        }
        let Some(target) = r.as_str().and_then(|r| resolve(self.root, r)) else {
            self.sink.reject(
                path,
                "$ref",
                "a `$ref` that does not resolve in the document",
            );
            return;
        };
        let r = r.as_str().unwrap_or_default().to_string();
        if self.expanding.contains(&r) {
            self.sink.reject(path, "$ref", "a recursive `$ref` beside annotations: ensure_strict_json_schema expands it until its node budget runs out");
            return;
        }
        let mut merged = target.as_object().cloned().unwrap_or_default();
        for (k, v) in m {
            if k != "$ref" {
                merged.insert(k.clone(), v.clone());
            }
        }
        self.expanding.push(r);
        self.node(&Value::Object(merged), path, depth + 1, false);
        self.expanding.pop();
    }

    fn object_rules(&mut self, m: &Map<String, Value>, path: &str) {
        let props = m.get("properties");
        let ap = m.get("additionalProperties");
        let typ = m.get("type");
        let open_ap = ap.is_some_and(|a| a != &Value::Bool(false));
        let is_object = match typ {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
            None => props.is_some_and(Value::is_object),
            _ => false,
        };
        if typ.is_none() && !props.is_some_and(Value::is_object) && open_ap {
            self.sink.reject(path, "additionalProperties", "`additionalProperties` other than false with no `type`: strict mode cannot hold it");
        } else if is_object && open_ap {
            self.sink.reject(
                path,
                "additionalProperties",
                "an object that allows undeclared properties: strict mode closes every object",
            );
        } else if is_object
            && ap.is_none()
            && props.is_none_or(|p| p.as_object().is_some_and(Map::is_empty))
        {
            self.sink.reject(path, "properties", "an object that declares no property and is not closed: strict mode would allow only `{}` (`_OPEN_OBJECT_ERROR`)");
        }
    }

    fn children(&mut self, m: &Map<String, Value>, path: &str, depth: usize) {
        if let Some(Value::Object(props)) = m.get("properties") {
            for (name, s) in props {
                self.node(s, &push(&push(path, "properties"), name), depth + 1, false);
            }
        }
        if let Some(items @ Value::Object(_)) = m.get("items") {
            self.node(items, &push(path, "items"), depth + 1, false);
        }
        for k in ["anyOf", "oneOf", "allOf"] {
            if let Some(Value::Array(branches)) = m.get(k) {
                for (i, b) in branches.iter().enumerate() {
                    self.node(b, &push(&push(path, k), &i.to_string()), depth + 1, false);
                }
                if k == "oneOf" && !disjoint(branches) {
                    self.sink.drop_kw(path, "oneOf", "written as `anyOf`: a value that matches two branches is no longer refused");
                }
                if k == "allOf" && branches.len() == 1 {
                    self.merge_conflicts(m, &branches[0], path);
                }
            }
        }
    }

    /// `_merge_single_all_of`: a keyword of the parent and of the one entry that differ.
    fn merge_conflicts(&mut self, parent: &Map<String, Value>, entry: &Value, path: &str) {
        let Some(e) = entry.as_object() else { return };
        for (k, v) in parent {
            if k == "allOf" || k == "additionalProperties" || REF_SIBLINGS.contains(&k.as_str()) {
                continue;
            }
            let empty = (k == "properties" && v == &Value::Object(Map::new()))
                || (k == "required" && v == &Value::Array(Vec::new()));
            if let Some(ev) = e.get(k)
                && ev != v
                && !empty
            {
                let reason = format!(
                    "`{k}` of a one-entry `allOf` and of its parent differ: ensure_strict_json_schema cannot merge them"
                );
                self.sink.reject(path, "allOf", reason);
            }
        }
    }
}
