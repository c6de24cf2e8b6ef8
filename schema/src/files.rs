//! The two kinds of catalog file as Rust types: the matrix (`profiles.json`) and a tool file.
//!
//! Their shape is checked by serde (unknown keys are errors); their meaning is checked by
//! [`crate::load`]. The JSON Schemas committed as `schema/profiles.schema.json` and
//! `schema/tool.schema.json` are derived from these types with schemars ([`file_schemas`]).

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};

use crate::json::Value;

/// A JSON object read in source order, each key once.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderedMap<V>(pub Vec<(String, V)>);

impl<V> Default for OrderedMap<V> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<V> OrderedMap<V> {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &V)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for OrderedMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V2<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V2<V> {
            type Value = OrderedMap<V>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut out: Vec<(String, V)> = Vec::new();
                while let Some(key) = access.next_key::<String>()? {
                    if out.iter().any(|(k, _)| *k == key) {
                        return Err(de::Error::custom(format_args!("duplicate key `{key}`")));
                    }
                    let value = access.next_value()?;
                    out.push((key, value));
                }
                Ok(OrderedMap(out))
            }
        }
        deserializer.deserialize_map(V2(PhantomData))
    }
}

impl<V: JsonSchema> JsonSchema for OrderedMap<V> {
    fn schema_name() -> Cow<'static, str> {
        format!("Map_of_{}", V::schema_name()).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "additionalProperties": generator.subschema_for::<V>(),
        })
    }
}

fn any_json_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "A JSON Schema of the subset toolgate accepts (see docs/catalog-format.md).",
        "$ref": "https://json-schema.org/draft/2020-12/schema"
    })
}

/// The top-level keys a tool file may hold: the MCP Tool's own, then toolgate's.
pub const TOOL_FILE_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "_meta",
    "execution",
    "$schema",
    "variant",
    "group",
    "extends",
    "formerly",
];

/// The keys of a tool file that are the MCP Tool's own: served in `tools/list`, in the order
/// the file has them.
pub const MCP_TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "_meta",
    "execution",
];

/// A tool file: `tools/<name>.json` or `tools/<name>.<variant>.json` (the file name is a
/// convention; the `name` and `variant` keys are what count).
///
/// Every field of an MCP 2025-11-25 Tool is kept and served as written. Unknown keys are
/// errors, each reported with its place (the loader checks them before serde reads the
/// known ones, so one run shows them all).
#[derive(Clone, Debug, serde::Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
#[schemars(title = "toolgate tool file")]
pub struct ToolFile {
    /// The JSON Schema of this file, for editors.
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    /// The MCP tool name: 1 to 128 of `A-Z a-z 0-9 _ - .`.
    pub name: String,
    /// A human-readable title, served in `tools/list`.
    #[serde(default)]
    pub title: Option<String>,
    /// The variant, when the tool's schema varies by profile (the matrix says which profile
    /// gets which variant).
    #[serde(default)]
    pub variant: Option<String>,
    /// The group this tool belongs to; grants and added parameters can be given per group.
    pub group: String,
    /// What the tool does, as served in `tools/list` (MCP makes it optional: a file without
    /// one is served without one as authored, and with `""` when resolved).
    #[serde(default)]
    pub description: String,
    /// The tool's arguments: a JSON Schema of the accepted subset, `"type": "object"` at the root.
    #[serde(rename = "inputSchema")]
    #[schemars(schema_with = "any_json_schema")]
    pub input_schema: Value,
    /// The tool's structured result, when it declares one.
    #[serde(rename = "outputSchema", default)]
    #[schemars(schema_with = "any_json_schema")]
    pub output_schema: Option<Value>,
    /// MCP tool annotations.
    #[serde(default)]
    pub annotations: Option<Annotations>,
    /// MCP icons: served as written.
    #[serde(default)]
    #[schemars(with = "Option<Vec<serde_json::Value>>")]
    pub icons: Option<Value>,
    /// MCP `_meta`: served as written.
    #[serde(rename = "_meta", default)]
    #[schemars(with = "Option<std::collections::BTreeMap<String, serde_json::Value>>")]
    pub meta: Option<Value>,
    /// MCP 2025-11-25 `execution` (task support): served as written.
    #[serde(default)]
    pub execution: Option<Execution>,
    /// Take the properties of another tool that this one does not declare.
    #[serde(default)]
    pub extends: Option<Extends>,
    /// Names this tool, its fields or its enum values had before; the diff reports them as
    /// renames and `lint --fix` rewrites calls that still use them.
    #[serde(default)]
    pub formerly: Option<Formerly>,
}

/// MCP 2025-11-25 `execution`: how the tool may be run.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Execution {
    /// Whether the tool may (`optional`), must (`required`) or must not (`forbidden`, the
    /// default) be called as a task. `toolgate serve` refuses a tool that requires tasks.
    #[serde(rename = "taskSupport", default)]
    pub task_support: Option<TaskSupport>,
}

/// `execution.taskSupport`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Never called as a task.
    Forbidden,
    /// May be called as a task or not.
    Optional,
    /// Must be called as a task.
    Required,
}

/// The keys of MCP's `ToolAnnotations` (2025-11-25), in its order.
pub const ANNOTATION_KEYS: &[&str] = &[
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// MCP tool annotations (hints for clients; never enforced). MCP's `ToolAnnotations` is
/// open to other keys and hosts ignore what they do not know, so a key outside its list is
/// kept and served as written; loading warns once per such key.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, JsonSchema)]
pub struct Annotations {
    /// A human-readable title.
    #[serde(default)]
    pub title: Option<String>,
    /// The tool does not change its environment.
    #[serde(rename = "readOnlyHint", default)]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy or overwrite data.
    #[serde(rename = "destructiveHint", default)]
    pub destructive_hint: Option<bool>,
    /// Calling the tool twice with the same arguments has no further effect.
    #[serde(rename = "idempotentHint", default)]
    pub idempotent_hint: Option<bool>,
    /// The tool talks to the world outside the server.
    #[serde(rename = "openWorldHint", default)]
    pub open_world_hint: Option<bool>,
    /// Keys outside MCP's list (a server's own `category`, say), by name: kept and served
    /// as written.
    #[serde(flatten)]
    #[schemars(with = "std::collections::BTreeMap<String, serde_json::Value>")]
    pub other: std::collections::BTreeMap<String, Value>,
}

/// `extends`: inherit the properties of another tool.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Extends {
    /// The tool whose properties are inherited (it must have no variants).
    pub tool: String,
    /// `true`: inherited properties are all optional.
    #[serde(default)]
    pub optional: bool,
    /// `false`: inherited properties lose their `default` (so only the fields sent change).
    #[serde(default = "yes")]
    pub defaults: bool,
}

fn yes() -> bool {
    true
}

/// Declared renames.
#[derive(Clone, Debug, Default, PartialEq, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Formerly {
    /// Names the tool had before: a name, or `{"name": old, "set": {field: value}}` when the
    /// old tool became a value of a field of this one (`get_issue` -> `issue_read` with
    /// `method: "get"`).
    #[serde(default)]
    pub names: Vec<FormerName>,
    /// For a top-level field: the names it had before.
    #[serde(default)]
    pub fields: OrderedMap<Vec<String>>,
    /// For a top-level enum field, for one of its values: the values it replaced.
    #[serde(default)]
    pub values: OrderedMap<OrderedMap<Vec<String>>>,
}

/// One former name of a tool.
#[derive(Clone, Debug, PartialEq, serde::Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FormerName {
    /// The old name alone.
    Name(String),
    /// The old name and the fields a call by the new name sets to do what the old tool did.
    Set {
        /// The old name.
        name: String,
        /// Field -> value a call by the new name adds.
        #[serde(default)]
        #[schemars(with = "std::collections::BTreeMap<String, serde_json::Value>")]
        set: OrderedMap<Value>,
    },
}

impl FormerName {
    /// The old name.
    pub fn name(&self) -> &str {
        match self {
            FormerName::Name(n) | FormerName::Set { name: n, .. } => n,
        }
    }

    /// The fields it sets, each with its value as JSON text (`"get"`, `3`).
    pub fn set_literals(&self) -> Vec<(String, String)> {
        match self {
            FormerName::Name(_) => Vec::new(),
            FormerName::Set { set, .. } => set
                .0
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::to_string(v).unwrap_or_default()))
                .collect(),
        }
    }
}

/// The matrix file, `profiles.json`: which profile sees which tool.
#[derive(Clone, Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "toolgate profile matrix")]
pub struct MatrixFile {
    /// The JSON Schema of this file, for editors.
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    /// The catalog's name; must equal its folder's name.
    pub catalog: String,
    /// What the surface is.
    #[serde(default)]
    pub description: Option<String>,
    /// How a server learns its profile.
    pub selector: Selector,
    /// Every known profile, with a one-line description.
    pub profiles: OrderedMap<String>,
    /// Parameters declared once and added by groups to each of their tools.
    #[serde(default)]
    pub parameters: OrderedMap<Parameter>,
    /// Every group.
    pub groups: OrderedMap<GroupDef>,
    /// Tools or groups that every session sees, even an unknown or empty profile's.
    #[serde(default)]
    pub always_on: Vec<String>,
    /// A tool or group name, mapped to the profiles that see it (`"*"`: every known profile).
    #[serde(default)]
    pub grants: OrderedMap<Vec<String>>,
    /// For a tool with variant files: profile to variant.
    #[serde(default)]
    pub variants: OrderedMap<OrderedMap<String>>,
    /// Tool, then profile, then top-level string field, then the only values allowed.
    #[serde(default)]
    pub restrictions: OrderedMap<OrderedMap<OrderedMap<Vec<String>>>>,
    /// How schemas are served: `"as-authored"` (the default: as each file has them, `$ref`s
    /// and `$defs` kept) or `"resolve"` (`$ref`s inlined into one self-contained schema in
    /// toolgate's canonical key order).
    #[serde(default)]
    pub schemas: SchemaMode,
    /// Whether run-time validation asserts `format` (2020-12 makes it an annotation unless
    /// a validator opts in).
    #[serde(default)]
    pub assert_formats: bool,
    /// Context budgets: a profile (or, when profiles combine, several joined by `,`) mapped
    /// to the most tools and tokens its `tools/list` may cost; `toolgate check` fails a
    /// profile over budget.
    #[serde(default)]
    pub budgets: OrderedMap<Budget>,
    /// The hosts the catalog is served to (`claude-code`, `vscode`, `cursor`, `windsurf`,
    /// `openai`, `gemini`, `copilot-cli`, `openai-strict`, `gemini-schema`,
    /// `anthropic-strict`): `toolgate check` holds every profile to their limits and every
    /// input schema to their client stacks (`toolgate explain host-limits`).
    #[serde(default)]
    pub hosts: Vec<String>,
    /// The server's name as hosts see it (Claude Code's `mcp__SERVER__tool`); default: the
    /// catalog's name.
    #[serde(default)]
    pub server_name: Option<String>,
}

/// A profile's context budget: what its `tools/list` may cost at most.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// The most tools the profile may be served.
    #[serde(default)]
    pub max_tools: Option<u64>,
    /// The most o200k_base tokens its `tools` array (compact JSON) may take.
    #[serde(default)]
    pub max_tokens: Option<u64>,
}

/// How a catalog serves its schemas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, JsonSchema)]
pub enum SchemaMode {
    /// As each tool file has them: same keys, same order, `$schema`, `$defs`, `$ref` kept;
    /// only the matrix changes a schema (restriction, added parameters, variant).
    #[default]
    #[serde(rename = "as-authored")]
    AsAuthored,
    /// `$ref`s inlined into one self-contained schema, in toolgate's canonical key order.
    #[serde(rename = "resolve")]
    Resolve,
}

/// How a server learns its profile.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Selector {
    /// The environment variable holding the profile.
    pub env: String,
    /// Whether the variable may name several profiles, separated by commas, whose union the
    /// session sees.
    #[serde(default)]
    pub combine: bool,
}

/// A parameter added to every tool of some groups.
#[derive(Clone, Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// Whether the parameter is required.
    #[serde(default)]
    pub required: bool,
    /// Its schema.
    #[schemars(schema_with = "any_json_schema")]
    pub schema: Value,
}

/// A group of tools.
#[derive(Clone, Debug, Default, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GroupDef {
    /// What the group is for.
    #[serde(default)]
    pub description: Option<String>,
    /// Names of `parameters` added to every tool of the group.
    #[serde(default)]
    pub add_parameters: Vec<String>,
}

/// The JSON Schemas of the matrix file and of a tool file, as committed in `schema/`
/// (`profiles.schema.json`, `tool.schema.json`), each pretty-printed with a final newline.
pub fn file_schemas() -> [(&'static str, String); 2] {
    fn render<T: JsonSchema>() -> String {
        let schema = schemars::schema_for!(T);
        // schemars builds a `serde_json::Value`, whose key order depends on serde_json's
        // features; sorting every object makes the committed bytes independent of them.
        let text = serde_json::to_string(&schema).unwrap_or_default();
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => crate::json::to_pretty(&v.sorted()),
            Err(_) => text,
        }
    }
    [
        ("profiles.schema.json", render::<MatrixFile>()),
        ("tool.schema.json", render::<ToolFile>()),
    ]
}
