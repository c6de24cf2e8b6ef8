//! The surface: what each profile is served, derived from a catalog or read from a manifest.
//!
//! A [`Surface`] is the one model the server, the lint and the diff work from. It holds, for
//! every tool, the distinct schemas profiles receive (variant chosen, restriction applied,
//! group parameters added), each with the profiles that receive it. The toolgate manifest is
//! this model written out, so a manifest and the catalog folder it came from give the same
//! surface.

use crate::diag::{Ctxt, Errors, SourceText};
use crate::files::{Annotations, SchemaMode, Selector};
use crate::json::{Map, Value, to_pretty};
use crate::load::{Access, Catalog, NameLists, Profile, Tool, ValueRenames};
use crate::locate::{Pointer, Position};
use crate::model::{Kind, Schema, SchemaParser};

/// The version of the toolgate manifest format written by [`Surface::manifest_json`].
pub const MANIFEST_FORMAT_VERSION: u64 = 1;

/// Where a surface came from, and so how much it knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A catalog folder or a toolgate manifest: everything is known.
    Full,
    /// A tatara-format manifest: tool names and top-level string enums only; no profiles,
    /// no other fields, no types.
    NamesAndEnums,
}

/// A served tool surface.
#[derive(Clone, Debug, PartialEq)]
pub struct Surface {
    /// The catalog's name.
    pub catalog: String,
    /// What the surface is.
    pub description: Option<String>,
    /// How a server learns its profile (absent from a tatara-format manifest).
    pub selector: Option<Selector>,
    /// The known profiles, in declared order (empty when unknown).
    pub profiles: Vec<Profile>,
    /// The tools every session sees, the fail-closed one included, sorted.
    pub fail_closed: Vec<String>,
    /// Every tool, sorted by name.
    pub tools: Vec<SurfaceTool>,
    /// How much this surface knows.
    pub origin: Origin,
    /// Whether run-time validation asserts `format` (the catalog's `assert_formats`).
    pub assert_formats: bool,
}

/// One tool of a surface.
#[derive(Clone, Debug, PartialEq)]
pub struct SurfaceTool {
    /// The MCP name.
    pub name: String,
    /// Its group, when known.
    pub group: Option<String>,
    /// Whether every session sees it.
    pub always_on: bool,
    /// Names the tool had before.
    pub formerly: Vec<String>,
    /// Former names whose calls by the new name set fields (`get_issue` -> `method: "get"`):
    /// old name, then field and value as JSON text.
    pub formerly_set: crate::load::FormerSets,
    /// The distinct schemas served, ordered by the first profile that receives each.
    pub entries: Vec<Entry>,
}

/// One schema of a tool as served, with the profiles that receive it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The profiles served this schema, in declared order.
    pub profiles: Vec<String>,
    /// The catalog variant it comes from.
    pub variant: Option<String>,
    /// The restriction applied: field and allowed values.
    pub restricted: NameLists,
    /// The description served.
    pub description: String,
    /// The MCP `title`, if any.
    pub title: Option<String>,
    /// The tool as `tools/list` serves it to these profiles: the MCP Tool keys, in the order
    /// the tool file has them (as authored) or in MCP's order (resolved), the input schema
    /// with the matrix's changes.
    pub served: Map,
    /// The input schema served, typed: `$ref`s resolved, parameters added, restriction
    /// applied (what the lint, the diff and the docs read).
    pub input_schema: Schema,
    /// The output schema, if any.
    pub output_schema: Option<Schema>,
    /// MCP annotations, if any.
    pub annotations: Option<Annotations>,
    /// Former names of top-level fields.
    pub formerly_fields: NameLists,
    /// Former values of top-level enum fields.
    pub formerly_values: ValueRenames,
}

/// What a selector value resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// The profiles whose union the session sees (empty when it failed closed).
    pub profiles: Vec<String>,
    /// Whether the session got only the always-on tools.
    pub fail_closed: bool,
    /// Why it failed closed, for a warning on stderr.
    pub warning: Option<String>,
}

/// One tool as a session is served it.
#[derive(Clone, Copy, Debug)]
pub struct Served<'a> {
    /// The tool.
    pub tool: &'a SurfaceTool,
    /// The schema this session receives.
    pub entry: &'a Entry,
}

impl Surface {
    /// Derives the surface of a checked catalog.
    pub fn from_catalog(catalog: &Catalog) -> Surface {
        let tools = catalog
            .tools
            .iter()
            .map(|t| surface_tool(catalog, t))
            .collect();
        let mut fail_closed: Vec<String> = catalog
            .tools
            .iter()
            .filter(|t| t.access == Access::AlwaysOn)
            .map(|t| t.name.clone())
            .collect();
        fail_closed.sort();
        Surface {
            catalog: catalog.name.clone(),
            description: catalog.description.clone(),
            selector: Some(catalog.selector.clone()),
            profiles: catalog.profiles.clone(),
            fail_closed,
            tools,
            origin: Origin::Full,
            assert_formats: catalog.assert_formats,
        }
    }

    /// The tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&SurfaceTool> {
        self.tools
            .binary_search_by(|t| t.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.tools[i])
    }

    /// Whether `name` is a known profile.
    pub fn has_profile(&self, name: &str) -> bool {
        self.profiles.iter().any(|p| p.name == name)
    }

    /// Resolves a selector value (`--profile`, or the selector's environment variable),
    /// failing closed: empty, unknown, or (for a combining selector) a list naming any
    /// unknown profile gives the always-on tools only, with a warning.
    /// A warning names the selector's environment variable as the value's source.
    pub fn resolve(&self, requested: &str) -> Session {
        match &self.selector {
            Some(s) => self.resolve_from(requested, crate::runtime::Source::Env(&s.env)),
            None => self.resolve_from(requested, crate::runtime::Source::Given("the profile")),
        }
    }

    /// [`Surface::resolve`] for a value from `source` (a warning names it: `--profile`).
    pub fn resolve_from(&self, requested: &str, source: crate::runtime::Source<'_>) -> Session {
        let combine = self.selector.as_ref().is_some_and(|s| s.combine);
        let known: Vec<&str> = self.profiles.iter().map(|p| p.name.as_str()).collect();
        match crate::runtime::resolve_profiles_from(
            &known,
            combine,
            source,
            self.fail_closed.len(),
            requested,
        ) {
            Ok(indices) => Session {
                profiles: indices
                    .iter()
                    .filter_map(|&i| known.get(i).map(|k| k.to_string()))
                    .collect(),
                fail_closed: false,
                warning: None,
            },
            Err(warning) => Session {
                profiles: Vec::new(),
                fail_closed: true,
                warning: Some(warning),
            },
        }
    }

    /// The tools a session sees, sorted by name, each with the schema it receives.
    pub fn served(&self, session: &Session) -> Vec<Served<'_>> {
        let mut out = Vec::new();
        for tool in &self.tools {
            let entry = if session.fail_closed {
                if tool.always_on {
                    tool.entries.first()
                } else {
                    None
                }
            } else {
                tool.entries
                    .iter()
                    .find(|e| e.profiles.iter().any(|p| session.profiles.contains(p)))
            };
            if let Some(entry) = entry {
                out.push(Served { tool, entry });
            }
        }
        out
    }

    /// The entry of `tool` served to `profile`, if that profile sees the tool.
    pub fn entry_for(&self, tool: &str, profile: &str) -> Option<&Entry> {
        self.tool(tool)?
            .entries
            .iter()
            .find(|e| e.profiles.iter().any(|p| p == profile))
    }

    /// The MCP `tools/list` result for a session: `{"tools": [...]}`.
    pub fn tools_list_json(&self, session: &Session) -> Value {
        let tools = self
            .served(session)
            .into_iter()
            .map(|s| served_tool_json(s.tool, s.entry))
            .collect();
        let mut m = Map::new();
        m.insert("tools", Value::Array(tools));
        Value::Object(m)
    }

    /// The toolgate manifest: every tool, every distinct schema and who receives it.
    pub fn manifest_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("format_version", Value::from(MANIFEST_FORMAT_VERSION));
        m.insert("catalog", Value::str(self.catalog.clone()));
        if let Some(d) = &self.description {
            m.insert("description", Value::str(d.clone()));
        }
        if let Some(s) = &self.selector {
            let mut sel = Map::new();
            sel.insert("env", Value::str(s.env.clone()));
            sel.insert("combine", Value::Bool(s.combine));
            m.insert("selector", Value::Object(sel));
        }
        m.insert(
            "profiles",
            Value::Array(
                self.profiles
                    .iter()
                    .map(|p| {
                        let mut o = Map::new();
                        o.insert("name", Value::str(p.name.clone()));
                        o.insert("description", Value::str(p.description.clone()));
                        Value::Object(o)
                    })
                    .collect(),
            ),
        );
        m.insert("fail_closed", strings(&self.fail_closed));
        let tools = self.tools.iter().map(manifest_tool_json).collect();
        m.insert("tools", Value::Array(tools));
        Value::Object(m)
    }

    /// The manifest in the format of `tatara tool-manifest`: tool names and the values of
    /// top-level string enums, each list sorted, values united over every schema of a tool.
    pub fn tatara_manifest_json(&self) -> Value {
        let tools = self
            .tools
            .iter()
            .map(|t| {
                let mut fields: Vec<(String, Vec<String>)> = Vec::new();
                for e in &t.entries {
                    let Some(obj) = e.input_schema.as_object() else {
                        continue;
                    };
                    for (name, prop) in &obj.properties {
                        let Some(values) = prop.enum_values().map(<[String]>::to_vec) else {
                            continue;
                        };
                        match fields.iter_mut().find(|(f, _)| f == name) {
                            Some((_, vs)) => vs.extend(values),
                            None => fields.push((name.clone(), values)),
                        }
                    }
                }
                fields.sort_by(|a, b| a.0.cmp(&b.0));
                let mut o = Map::new();
                o.insert("name", Value::str(t.name.clone()));
                if !fields.is_empty() {
                    let enums: Map = fields
                        .into_iter()
                        .map(|(f, mut vs)| {
                            vs.sort();
                            vs.dedup();
                            (f, strings(&vs))
                        })
                        .collect();
                    o.insert("enums", Value::Object(enums));
                }
                Value::Object(o)
            })
            .collect();
        let mut m = Map::new();
        m.insert("tools", Value::Array(tools));
        Value::Object(m)
    }

    /// Reads a manifest: toolgate's own format (it has `format_version`) or tatara's.
    /// `path` is only used to name the file in errors.
    pub fn from_manifest(path: &std::path::Path, bytes: &[u8]) -> Result<Surface, Errors> {
        let mut cx = Ctxt::new();
        let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t.to_string(),
            Err(e) => {
                cx.file(
                    path,
                    None,
                    format!(
                        "is not valid UTF-8 (bad byte at offset {})",
                        e.valid_up_to()
                    ),
                );
                return Err(cx.finish(()).err().unwrap_or_default());
            }
        };
        let source = SourceText {
            path: path.to_path_buf(),
            text,
        };
        let Some(value) = crate::load::parse_json::<Value>(&source, "a manifest", &mut cx) else {
            return Err(cx.finish(()).err().unwrap_or_default());
        };
        let surface = match value.as_object() {
            Some(o) if o.contains_key("format_version") => read_toolgate(&source, &value, &mut cx),
            Some(o) if o.contains_key("tools") => read_tatara(&source, &value, &mut cx),
            _ => {
                cx.file(
                    path,
                    Some(Position { line: 1, column: 1 }),
                    "is not a manifest: expected a toolgate manifest (with `format_version`) or a tatara tool manifest (`{\"tools\": [...]}`)",
                );
                None
            }
        };
        if let Some(s) = &surface
            && s.tools.is_empty()
        {
            cx.file(
                path,
                None,
                "is a manifest with no tools; there is nothing to check against",
            );
        }
        match surface {
            Some(s) => cx.finish(s),
            None => Err(cx.finish(()).err().unwrap_or_default()),
        }
    }
}

/// `{"name": ["a", "b"], ...}`
fn name_lists(lists: &NameLists) -> Value {
    Value::Object(
        lists
            .iter()
            .map(|(k, vs)| (k.clone(), strings(vs)))
            .collect(),
    )
}

fn strings(items: &[String]) -> Value {
    Value::Array(items.iter().map(|s| Value::str(s.clone())).collect())
}

fn annotations_json(a: &Annotations) -> Value {
    let mut o = Map::new();
    if let Some(t) = &a.title {
        o.insert("title", Value::str(t.clone()));
    }
    for (key, v) in [
        ("readOnlyHint", a.read_only_hint),
        ("destructiveHint", a.destructive_hint),
        ("idempotentHint", a.idempotent_hint),
        ("openWorldHint", a.open_world_hint),
    ] {
        if let Some(b) = v {
            o.insert(key, Value::Bool(b));
        }
    }
    for (key, v) in &a.other {
        o.insert(key.clone(), v.clone());
    }
    Value::Object(o)
}

fn formerly_json(e: &Entry) -> Value {
    let mut o = Map::new();
    if !e.formerly_fields.is_empty() {
        o.insert("fields", name_lists(&e.formerly_fields));
    }
    if !e.formerly_values.is_empty() {
        let f: Map = e
            .formerly_values
            .iter()
            .map(|(k, per)| (k.clone(), name_lists(per)))
            .collect();
        o.insert("values", Value::Object(f));
    }
    Value::Object(o)
}

/// A tool as `tools/list` shows it: the entry's served MCP Tool object.
pub fn served_tool_json(tool: &SurfaceTool, entry: &Entry) -> Value {
    let _ = tool;
    Value::Object(entry.served.clone())
}

/// The MCP Tool object in MCP's key order from its parts (a resolved catalog's, or a
/// manifest's): name, title, description, inputSchema, outputSchema, annotations, icons,
/// _meta, execution.
fn served_in_mcp_order(name: &str, description: &str, parts: &Map) -> Map {
    let mut o = Map::new();
    o.insert("name", Value::str(name));
    if let Some(t) = parts.get("title") {
        o.insert("title", t.clone());
    }
    o.insert("description", Value::str(description));
    for key in [
        "inputSchema",
        "outputSchema",
        "annotations",
        "icons",
        "_meta",
        "execution",
    ] {
        if let Some(v) = parts.get(key) {
            o.insert(key, v.clone());
        }
    }
    o
}

/// The served MCP Tool object of variant `index` of `tool` whose typed input schema (matrix
/// applied) is `schema`, for a profile with restriction `cells`.
fn served_object(
    catalog: &Catalog,
    tool: &Tool,
    index: usize,
    schema: &Schema,
    cells: Option<&NameLists>,
) -> Map {
    let variant = &tool.variants[index];
    let as_authored = catalog.schemas == SchemaMode::AsAuthored || variant.recursive;
    let authored_input = variant.authored.get("inputSchema");
    if !as_authored || authored_input.is_none() {
        let mut parts = Map::new();
        if let Some(t) = &variant.title {
            parts.insert("title", Value::str(t.clone()));
        }
        parts.insert("inputSchema", schema.to_json());
        if let Some(o) = &variant.output {
            parts.insert("outputSchema", o.to_json());
        }
        if let Some(a) = &variant.annotations {
            parts.insert("annotations", annotations_json(a));
        }
        for key in ["icons", "_meta", "execution"] {
            if let Some(v) = variant.authored.get(key) {
                parts.insert(key, v.clone());
            }
        }
        return served_in_mcp_order(&tool.name, &variant.description, &parts);
    }
    // As authored: every MCP key as the file has it; only the matrix changes the input
    // schema. A tool built with `extends` has no authored form of its inherited
    // properties, so its input schema is the resolved one.
    let input = if tool_extends(variant) {
        schema.to_json()
    } else {
        let mut input = authored_input.cloned().unwrap_or(Value::Null);
        add_parameters_json(catalog, tool, &mut input);
        if let Some(cells) = cells {
            restrict_json(&mut input, cells);
        }
        input
    };
    let mut o = Map::new();
    for (key, v) in variant.authored.iter() {
        if !crate::files::MCP_TOOL_KEYS.contains(&key) {
            continue;
        }
        match key {
            "inputSchema" => o.insert(key, input.clone()),
            _ => o.insert(key, v.clone()),
        }
    }
    o
}

fn tool_extends(variant: &crate::load::Variant) -> bool {
    variant.authored.contains_key("extends")
}

/// Adds the parameters of the tool's group to an authored input schema (first, before the
/// tool's own properties), as [`variant_input`] does to the typed one.
fn add_parameters_json(catalog: &Catalog, tool: &Tool, input: &mut Value) {
    let Some(group) = catalog.group(&tool.group) else {
        return;
    };
    if group.parameters.is_empty() {
        return;
    }
    let Value::Object(obj) = input else {
        return;
    };
    let mut props: Map = group
        .parameters
        .iter()
        .map(|(n, s, _)| (n.clone(), s.to_json()))
        .collect();
    if let Some(Value::Object(own)) = obj.get("properties") {
        for (k, v) in own.iter() {
            props.insert(k, v.clone());
        }
    }
    let mut required: Vec<Value> = group
        .parameters
        .iter()
        .filter(|(_, _, r)| *r)
        .map(|(n, _, _)| Value::str(n.clone()))
        .collect();
    if let Some(Value::Array(own)) = obj.get("required") {
        required.extend(
            own.iter()
                .filter(|r| !required.contains(r))
                .cloned()
                .collect::<Vec<_>>(),
        );
    }
    let mut out = Map::new();
    let mut placed_props = false;
    for (k, v) in obj.iter() {
        match k {
            "properties" => {
                out.insert(k, Value::Object(props.clone()));
                placed_props = true;
            }
            "required" => out.insert(k, Value::Array(required.clone())),
            _ => out.insert(k, v.clone()),
        }
    }
    if !placed_props {
        out.insert("properties", Value::Object(props));
    }
    if !required.is_empty() && !out.contains_key("required") {
        out.insert("required", Value::Array(required));
    }
    *obj = out;
}

/// Narrows the top-level string fields of a restricted cell in an authored input schema
/// (its `enum`, set or narrowed; a default outside it dropped), as [`restrict`] does.
fn restrict_json(input: &mut Value, cells: &NameLists) {
    let Value::Object(obj) = input else {
        return;
    };
    let Some(Value::Object(props)) = obj.get("properties") else {
        return;
    };
    let mut props = props.clone();
    for (field, allowed) in cells {
        let Some(Value::Object(prop)) = props.get(field) else {
            continue;
        };
        let mut prop = prop.clone();
        let narrowed: Vec<Value> = match prop.get("enum") {
            Some(Value::Array(values)) => values
                .iter()
                .filter(|v| v.as_str().is_some_and(|s| allowed.iter().any(|a| a == s)))
                .cloned()
                .collect(),
            _ => allowed.iter().map(|a| Value::str(a.clone())).collect(),
        };
        if let Some(d) = prop.get("default")
            && !narrowed.contains(d)
        {
            prop.remove("default");
        }
        prop.insert("enum", Value::Array(narrowed));
        props.insert(field, Value::Object(prop));
    }
    obj.insert("properties", Value::Object(props));
}

/// The schema `profile` is served for `tool` (`None` for the fail-closed session).
fn effective_schema(
    catalog: &Catalog,
    tool: &Tool,
    profile: Option<&str>,
) -> Option<(usize, Schema)> {
    let index = match profile.and_then(|p| tool.variant_for.get(p)) {
        Some(&i) => i,
        None if tool.variants.len() == 1 => 0,
        None => return None,
    };
    let mut schema = variant_input(catalog, tool, index)?;
    if let Some(cells) = profile.and_then(|p| tool.restrictions.get(p))
        && let Some(obj) = schema.as_object_mut()
    {
        restrict(obj, cells);
    }
    Some((index, schema))
}

/// The input schema of variant `index` of `tool` with its group's parameters added (first,
/// before the tool's own properties): what every profile given that variant without a
/// restriction is served.
pub fn variant_input(catalog: &Catalog, tool: &Tool, index: usize) -> Option<Schema> {
    let variant = tool.variants.get(index)?;
    let mut schema = variant.input.clone();
    if let (Some(group), Some(obj)) = (catalog.group(&tool.group), schema.as_object_mut()) {
        let mut props: Vec<(String, Schema)> = group
            .parameters
            .iter()
            .map(|(n, s, _)| (n.clone(), s.clone()))
            .collect();
        let mut required: Vec<String> = group
            .parameters
            .iter()
            .filter(|(_, _, r)| *r)
            .map(|(n, _, _)| n.clone())
            .collect();
        props.append(&mut obj.properties);
        required.append(&mut obj.required);
        obj.properties = props;
        obj.required = required;
    }
    Some(schema)
}

/// A tool in the manifest: its name, group, whether always on, former names, entries.
fn manifest_tool_json(t: &SurfaceTool) -> Value {
    let mut o = Map::new();
    o.insert("name", Value::str(t.name.clone()));
    if let Some(g) = &t.group {
        o.insert("group", Value::str(g.clone()));
    }
    o.insert("always_on", Value::Bool(t.always_on));
    if !t.formerly.is_empty() {
        o.insert("formerly", former_names_json(t));
    }
    let entries = t.entries.iter().map(manifest_entry_json).collect();
    o.insert("entries", Value::Array(entries));
    Value::Object(o)
}

/// A tool's former names as the tool files write them: a name, or `{"name", "set"}` for
/// one whose calls by the new name set fields.
fn former_names_json(t: &SurfaceTool) -> Value {
    let names = t
        .formerly
        .iter()
        .map(|old| match t.formerly_set.iter().find(|(o, _)| o == old) {
            None => Value::str(old.clone()),
            Some((_, set)) => {
                let mut so = Map::new();
                for (field, json) in set {
                    let v = serde_json::from_str::<serde_json::Value>(json)
                        .map(|v| Value::from_serde(&v))
                        .unwrap_or(Value::Null);
                    so.insert(field.clone(), v);
                }
                let mut fo = Map::new();
                fo.insert("name", Value::str(old.clone()));
                fo.insert("set", Value::Object(so));
                Value::Object(fo)
            }
        })
        .collect();
    Value::Array(names)
}

/// One entry of a manifest tool: who receives it, which variant and restriction, and the
/// MCP Tool keys it is served with.
fn manifest_entry_json(e: &Entry) -> Value {
    let mut eo = Map::new();
    eo.insert("profiles", strings(&e.profiles));
    if let Some(v) = &e.variant {
        eo.insert("variant", Value::str(v.clone()));
    }
    if !e.restricted.is_empty() {
        eo.insert("restricted", name_lists(&e.restricted));
    }
    if let Some(t) = &e.title {
        eo.insert("title", Value::str(t.clone()));
    }
    eo.insert("description", Value::str(e.description.clone()));
    for key in [
        "inputSchema",
        "outputSchema",
        "annotations",
        "icons",
        "_meta",
        "execution",
    ] {
        if let Some(v) = e.served.get(key) {
            eo.insert(key, v.clone());
        }
    }
    if !e.formerly_fields.is_empty() || !e.formerly_values.is_empty() {
        eo.insert("formerly", formerly_json(e));
    }
    Value::Object(eo)
}

/// Narrows the top-level string fields of a restricted cell to the values allowed.
fn restrict(obj: &mut crate::model::ObjectRules, cells: &NameLists) {
    for (field, allowed) in cells {
        if let Some(prop) = obj.property_mut(field)
            && let Kind::String(rules) = &mut prop.kind
        {
            let narrowed: Vec<String> = match &rules.enum_values {
                Some(values) => values
                    .iter()
                    .filter(|v| allowed.contains(v))
                    .cloned()
                    .collect(),
                None => allowed.clone(),
            };
            if let Some(Value::String(d)) = &prop.default
                && !narrowed.contains(d)
            {
                prop.default = None;
            }
            if let Kind::String(rules) = &mut prop.kind {
                rules.enum_values = Some(narrowed);
            }
        }
    }
}

/// A tool's surface: one entry per distinct schema (variant and restricted cell) with the
/// profiles served it, or for an always-on tool of a catalog without profiles, its one
/// schema for the fail-closed session.
fn surface_tool(catalog: &Catalog, tool: &Tool) -> SurfaceTool {
    let mut entries: Vec<(usize, NameLists, Entry)> = Vec::new();
    for profile in catalog.profiles_of(tool) {
        let Some((index, schema)) = effective_schema(catalog, tool, Some(profile)) else {
            continue;
        };
        let restricted = tool.restrictions.get(profile).cloned().unwrap_or_default();
        if let Some((_, _, e)) = entries
            .iter_mut()
            .find(|(i, r, _)| *i == index && *r == restricted)
        {
            e.profiles.push(profile.to_string());
            continue;
        }
        let mut entry = variant_entry(catalog, tool, index, schema, Some(&restricted));
        entry.profiles.push(profile.to_string());
        entries.push((index, restricted, entry));
    }
    if entries.is_empty()
        && tool.access == Access::AlwaysOn
        && let Some((index, schema)) = effective_schema(catalog, tool, None)
    {
        // A catalog may have no profile at all; the fail-closed session still needs a schema.
        let entry = variant_entry(catalog, tool, index, schema, None);
        entries.push((index, Vec::new(), entry));
    }
    SurfaceTool {
        name: tool.name.clone(),
        group: Some(tool.group.clone()),
        always_on: tool.access == Access::AlwaysOn,
        formerly: tool.formerly.clone(),
        formerly_set: tool.formerly_set.clone(),
        entries: entries.into_iter().map(|(_, _, e)| e).collect(),
    }
}

/// The entry serving variant `index` of `tool` as `schema` (its effective input schema),
/// narrowed to `restricted` if given; its profiles are for the caller to add.
fn variant_entry(
    catalog: &Catalog,
    tool: &Tool,
    index: usize,
    schema: Schema,
    restricted: Option<&NameLists>,
) -> Entry {
    let variant = &tool.variants[index];
    let served = served_object(catalog, tool, index, &schema, restricted);
    Entry {
        profiles: Vec::new(),
        variant: variant.name.clone(),
        restricted: restricted.cloned().unwrap_or_default(),
        description: variant.description.clone(),
        title: variant.title.clone(),
        served,
        input_schema: schema,
        output_schema: variant.output.clone(),
        annotations: variant.annotations.clone(),
        formerly_fields: variant.formerly_fields.clone(),
        formerly_values: variant.formerly_values.clone(),
    }
}

// ---- Reading manifests ----

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    format_version: u64,
    catalog: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    selector: Option<Selector>,
    profiles: Vec<ManifestProfile>,
    fail_closed: Vec<String>,
    tools: Vec<ManifestTool>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestProfile {
    name: String,
    description: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestTool {
    name: String,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    always_on: bool,
    #[serde(default)]
    formerly: Vec<crate::files::FormerName>,
    entries: Vec<ManifestEntry>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestEntry {
    profiles: Vec<String>,
    #[serde(default)]
    variant: Option<String>,
    #[serde(default)]
    restricted: crate::files::OrderedMap<Vec<String>>,
    #[serde(default)]
    title: Option<String>,
    description: String,
    #[serde(rename = "inputSchema")]
    input_schema: Value,
    #[serde(rename = "outputSchema", default)]
    output_schema: Option<Value>,
    #[serde(default)]
    annotations: Option<Value>,
    #[serde(default)]
    icons: Option<Value>,
    #[serde(rename = "_meta", default)]
    meta: Option<Value>,
    #[serde(default)]
    execution: Option<Value>,
    #[serde(default)]
    formerly: Option<ManifestFormerly>,
}

#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ManifestFormerly {
    #[serde(default)]
    fields: crate::files::OrderedMap<Vec<String>>,
    #[serde(default)]
    values: crate::files::OrderedMap<crate::files::OrderedMap<Vec<String>>>,
}

/// Reads a toolgate manifest (what `manifest_json` writes) back into a surface, every
/// error located: a version this toolgate does not read, unknown profiles, broken schemas.
fn read_toolgate(source: &SourceText, _value: &Value, cx: &mut Ctxt) -> Option<Surface> {
    let m: ManifestFile = crate::load::parse_json(source, "a toolgate manifest", cx)?;
    if m.format_version != MANIFEST_FORMAT_VERSION {
        cx.at(
            source,
            &Pointer::root().key("format_version"),
            format!(
                "manifest format version {} is not supported (this toolgate reads version {MANIFEST_FORMAT_VERSION})",
                m.format_version
            ),
        );
        return None;
    }
    let known: Vec<&str> = m.profiles.iter().map(|p| p.name.as_str()).collect();
    let mut tools = Vec::new();
    for (ti, t) in m.tools.iter().enumerate() {
        let tat = Pointer::root().key("tools").index(ti);
        let mut entries = Vec::new();
        for (ei, e) in t.entries.iter().enumerate() {
            let eat = tat.key("entries").index(ei);
            if let Some(entry) = read_manifest_entry(source, &t.name, e, &eat, &known, cx) {
                entries.push(entry);
            }
        }
        tools.push(SurfaceTool {
            name: t.name.clone(),
            group: t.group.clone(),
            always_on: t.always_on,
            formerly: t.formerly.iter().map(|f| f.name().to_string()).collect(),
            formerly_set: t
                .formerly
                .iter()
                .map(|f| (f.name().to_string(), f.set_literals()))
                .filter(|(_, s)| !s.is_empty())
                .collect(),
            entries,
        });
    }
    check_sorted_unique(source, &tools, cx);
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    Some(Surface {
        catalog: m.catalog,
        description: m.description,
        selector: m.selector,
        profiles: m
            .profiles
            .into_iter()
            .map(|p| Profile {
                name: p.name,
                description: p.description,
            })
            .collect(),
        fail_closed: m.fail_closed,
        tools,
        origin: Origin::Full,
        assert_formats: false,
    })
}

/// One entry of a manifest's tool `tool` (at `eat`): its profiles among the `known` ones,
/// its schemas parsed (none if its input schema is broken) and annotations read.
fn read_manifest_entry(
    source: &SourceText,
    tool: &str,
    e: &ManifestEntry,
    eat: &Pointer,
    known: &[&str],
    cx: &mut Ctxt,
) -> Option<Entry> {
    for (pi, p) in e.profiles.iter().enumerate() {
        if !known.contains(&p.as_str()) {
            cx.at(
                source,
                &eat.key("profiles").index(pi),
                format!("profile `{p}` is not among the manifest's `profiles`"),
            );
        }
    }
    let input = SchemaParser::new(source, &e.input_schema, eat.key("inputSchema"), cx).parse_root();
    let output = match &e.output_schema {
        Some(doc) => SchemaParser::new(source, doc, eat.key("outputSchema"), cx).parse_root(),
        None => None,
    };
    let input = input?;
    let annotations = match &e.annotations {
        None => None,
        Some(a) => match serde_json::from_str::<Annotations>(&crate::json::to_compact(a)) {
            Ok(a) => Some(a),
            Err(err) => {
                cx.at(
                    source,
                    &eat.key("annotations"),
                    format!("not MCP tool annotations: {err}"),
                );
                None
            }
        },
    };
    let f = e.formerly.as_ref();
    Some(Entry {
        profiles: e.profiles.clone(),
        variant: e.variant.clone(),
        restricted: e.restricted.0.clone(),
        description: e.description.clone(),
        title: e.title.clone(),
        served: served_in_mcp_order(tool, &e.description, &manifest_entry_parts(e)),
        input_schema: input,
        output_schema: output,
        annotations,
        formerly_fields: f.map(|f| f.fields.0.clone()).unwrap_or_default(),
        formerly_values: f
            .map(|f| {
                f.values
                    .0
                    .iter()
                    .map(|(k, v)| (k.clone(), v.0.clone()))
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// The MCP Tool keys a manifest entry holds, as written, for [`served_in_mcp_order`].
fn manifest_entry_parts(e: &ManifestEntry) -> Map {
    let mut parts = Map::new();
    if let Some(t) = &e.title {
        parts.insert("title", Value::str(t.clone()));
    }
    parts.insert("inputSchema", e.input_schema.clone());
    for (key, v) in [
        ("outputSchema", &e.output_schema),
        ("annotations", &e.annotations),
        ("icons", &e.icons),
        ("_meta", &e.meta),
        ("execution", &e.execution),
    ] {
        if let Some(v) = v {
            parts.insert(key, v.clone());
        }
    }
    parts
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TataraManifest {
    tools: Vec<TataraTool>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TataraTool {
    name: String,
    #[serde(default)]
    enums: crate::files::OrderedMap<Vec<String>>,
}

fn read_tatara(source: &SourceText, _value: &Value, cx: &mut Ctxt) -> Option<Surface> {
    let m: TataraManifest = crate::load::parse_json(source, "a tatara tool manifest", cx)?;
    let mut tools = Vec::new();
    for t in m.tools {
        let mut obj = crate::model::ObjectRules::default();
        for (field, values) in t.enums.iter() {
            obj.properties.push((
                field.to_string(),
                Schema {
                    kind: Kind::String(crate::model::StringRules {
                        enum_values: Some(values.clone()),
                        ..Default::default()
                    }),
                    ..Schema::any()
                },
            ));
        }
        // Other fields are unknown, not forbidden.
        obj.additional = crate::model::Additional::Allowed;
        let input_schema = Schema {
            kind: Kind::Object(obj),
            ..Schema::any()
        };
        let mut parts = Map::new();
        parts.insert("inputSchema", input_schema.to_json());
        let served = served_in_mcp_order(&t.name, "", &parts);
        tools.push(SurfaceTool {
            name: t.name,
            group: None,
            always_on: false,
            formerly: Vec::new(),
            formerly_set: Vec::new(),
            entries: vec![Entry {
                profiles: Vec::new(),
                variant: None,
                restricted: Vec::new(),
                description: String::new(),
                title: None,
                served,
                input_schema,
                output_schema: None,
                annotations: None,
                formerly_fields: Vec::new(),
                formerly_values: Vec::new(),
            }],
        });
    }
    check_sorted_unique(source, &tools, cx);
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    Some(Surface {
        catalog: String::new(),
        description: None,
        selector: None,
        profiles: Vec::new(),
        fail_closed: Vec::new(),
        tools,
        origin: Origin::NamesAndEnums,
        assert_formats: false,
    })
}

fn check_sorted_unique(source: &SourceText, tools: &[SurfaceTool], cx: &mut Ctxt) {
    let mut seen = std::collections::BTreeSet::new();
    for (i, t) in tools.iter().enumerate() {
        if !seen.insert(t.name.as_str()) {
            cx.at(
                source,
                &Pointer::root().key("tools").index(i).key("name"),
                format!("tool `{}` is listed twice", t.name),
            );
        }
    }
}

/// `tools/list` of `session` as pretty JSON text (what `toolgate tools-list` prints).
pub fn tools_list_text(surface: &Surface, session: &Session) -> String {
    to_pretty(&surface.tools_list_json(session))
}
