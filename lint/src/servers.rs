//! Servers and the prefixes under which hosts expose their tools.
//!
//! An MCP client shows a server's tools under a prefix made of the server's name: Claude Code
//! calls the `get_me` tool of a server named `github` `mcp__github__get_me`, and a plugin's
//! server `mcp__plugin_<plugin>_github__get_me`; VS Code agent files list it as `github/get_me`
//! (or `github/*` for the whole server) and its chat names it `mcp_github_get_me`. The lint
//! strips a configured server's prefix and checks the rest against that server's surface.
//!
//! A server's surface comes from a catalog, a manifest or a captured `tools/list` result
//! ([`tools_list_surface`]); `toolgate.toml` may add declared renames and removals to it.

use std::path::{Path, PathBuf};

use toolgate_schema::{Catalog, Errors, Surface};

/// Where a server's surface comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A catalog the caller has built in (see [`Bundled`]), or else a catalog folder relative
    /// to [`ServerSpec::base`], as written.
    Catalog(String),
    /// A toolgate or tatara-format manifest.
    Manifest(PathBuf),
    /// A captured `tools/list` result: `{"tools": [...]}` (or `{"result": {"tools": ...}}`).
    ToolsList(PathBuf),
    /// What `toolgate.lock` (beside the configuration) holds for the server of this name: a
    /// `[servers.NAME]` table with no surface of its own, for its prefixes and renames.
    Locked,
}

/// A rename declared in `toolgate.toml` for a server whose surface cannot say it (a captured
/// `tools/list`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rename {
    /// The old tool name.
    pub old: String,
    /// The tool that replaced it.
    pub new: String,
    /// Fields a call by the new name sets, with their values as JSON text.
    pub set: Vec<(String, String)>,
}

/// The field renames of one tool, in the shape of a catalog's `formerly.fields`: each
/// current field with the names it had before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldRenames {
    /// The tool (its current name).
    pub tool: String,
    /// Each current field and its former names.
    pub fields: Vec<(String, Vec<String>)>,
}

/// One `[servers.NAME]` table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerSpec {
    /// The server's name, as the hosts' configurations name it.
    pub name: String,
    /// Where its surface comes from.
    pub source: Source,
    /// The folder of the configuration file, which relative paths are resolved against.
    pub base: PathBuf,
    /// The prefixes its tools are written under (the defaults unless given).
    pub prefixes: Vec<String>,
    /// Renames declared in the configuration.
    pub renames: Vec<Rename>,
    /// Field renames declared in the configuration (`[servers.NAME.formerly.fields.TOOL]`).
    pub field_renames: Vec<FieldRenames>,
    /// Tools removed without a replacement.
    pub removed: Vec<String>,
}

/// The prefixes hosts give the tools of a server named `name`: Claude Code's `mcp__NAME__`
/// (characters outside `A-Za-z0-9_-` become `_`) and `mcp__plugin_*_NAME__` for a plugin's
/// server, VS Code's `NAME/` in agent tool lists and `mcp_NAME_` in its chat.
pub fn default_prefixes(name: &str) -> Vec<String> {
    let claude: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    vec![
        format!("mcp__{claude}__"),
        format!("mcp__plugin_*_{claude}__"),
        format!("{name}/"),
        format!("mcp_{claude}_"),
    ]
}

/// Whether a prefix is generic: written like a word (`github/`, `github_`) rather than as an
/// `mcp_` (or Roo Code's `mcp--`) name, so that a name behind it is only taken for a tool in
/// code and tool lists.
pub fn is_generic(prefix: &str) -> bool {
    !prefix.starts_with("mcp_") && !prefix.starts_with("mcp--")
}

/// Reads a captured `tools/list` result into a surface with every tool's input schema, so
/// fields, types and enums are checked. `path` names the file in errors.
pub fn tools_list_surface(path: &Path, bytes: &[u8]) -> Result<Surface, String> {
    let shown = path.display();
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("{shown}: is not a tools/list result (JSON): {e}"))?;
    let tools = value
        .get("tools")
        .or_else(|| value.get("result").and_then(|r| r.get("tools")))
        .and_then(serde_json::Value::as_array)
        .ok_or_else(|| format!("{shown}: is not a tools/list result: no `tools` array"))?;
    let mut out = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let name = t
            .get("name")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| format!("{shown}: tools[{i}] has no `name`"))?;
        let mut entry = serde_json::Map::new();
        entry.insert("profiles".into(), serde_json::Value::Array(Vec::new()));
        entry.insert(
            "description".into(),
            t.get("description")
                .cloned()
                .unwrap_or_else(|| serde_json::Value::String(String::new())),
        );
        let mut input = t
            .get("inputSchema")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"type": "object"}));
        loosen(&mut input, 0);
        entry.insert("inputSchema".into(), input);
        // The hints hosts decide confirmations by: the diff's risk judges their changes.
        if let Some(a) = t.get("annotations").filter(|a| a.is_object()) {
            entry.insert("annotations".into(), a.clone());
        }
        out.push(serde_json::json!({
            "name": name,
            "entries": [serde_json::Value::Object(entry)],
        }));
    }
    out.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    let manifest = serde_json::json!({
        "format_version": toolgate_schema::surface::MANIFEST_FORMAT_VERSION,
        "catalog": path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        "profiles": [],
        "fail_closed": [],
        "tools": out,
    });
    let text = serde_json::to_vec(&manifest).map_err(|e| format!("{shown}: {e}"))?;
    Surface::from_manifest(path, &text).map_err(|e| e.to_string())
}

/// Keywords of a captured schema the catalog model cannot hold yet; a subschema using one
/// is read as "any value" (its field is still known, its value is not checked).
const LOOSENED: &[&str] = &["anyOf", "oneOf", "allOf", "not"];

/// Makes a captured input schema fit the catalog model: subschemas with combinators or a
/// list of types accept any value. Deep schemas (past 32 levels) are cut the same way.
fn loosen(schema: &mut serde_json::Value, depth: usize) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    let loose = depth > 32
        || LOOSENED.iter().any(|k| obj.contains_key(*k))
        || obj.get("type").is_some_and(serde_json::Value::is_array);
    if loose {
        let description = obj.get("description").cloned();
        obj.clear();
        if let Some(d) = description {
            obj.insert("description".into(), d);
        }
        return;
    }
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(props) = obj.get_mut(key).and_then(serde_json::Value::as_object_mut) {
            for v in props.values_mut() {
                loosen(v, depth + 1);
            }
        }
    }
    for key in ["items", "additionalProperties", "if", "then", "else"] {
        if let Some(v) = obj.get_mut(key) {
            loosen(v, depth + 1);
        }
    }
}

/// The catalogs a caller has built in (the CLI's `tatara` and `maetra`): the loaded catalog
/// of a name, or `None` when the name is not one of them. The lint itself knows none.
pub type Bundled<'a> = &'a dyn Fn(&str) -> Option<Result<Catalog, Errors>>;

/// Loads a server's surface and adds the renames the configuration declares.
pub fn load(spec: &ServerSpec, bundled: Bundled<'_>) -> Result<Surface, String> {
    let mut surface = match &spec.source {
        Source::Catalog(c) => {
            let built_in = if c.contains('/') { None } else { bundled(c) };
            let catalog = match built_in {
                Some(loaded) => loaded,
                None => toolgate_schema::load_dir(&spec.base.join(c)),
            };
            catalog
                .map(|c| Surface::from_catalog(&c))
                .map_err(|e| e.to_string())?
        }
        Source::Manifest(p) => {
            let bytes = std::fs::read(p)
                .map_err(|e| format!("{}: cannot read the manifest: {e}", p.display()))?;
            Surface::from_manifest(p, &bytes).map_err(|e| e.to_string())?
        }
        Source::ToolsList(p) => {
            let bytes = std::fs::read(p)
                .map_err(|e| format!("{}: cannot read the tools/list file: {e}", p.display()))?;
            tools_list_surface(p, &bytes)?
        }
        Source::Locked => locked_surface(&spec.base, &spec.name)?,
    };
    add_renames(&mut surface, &spec.renames).map_err(|e| format!("servers.{}: {e}", spec.name))?;
    add_field_renames(&mut surface, &spec.field_renames)
        .map_err(|e| format!("servers.{}: {e}", spec.name))?;
    Ok(surface)
}

/// The surface `toolgate.lock` in `base` holds for the server `name`.
fn locked_surface(base: &Path, name: &str) -> Result<Surface, String> {
    let path = base.join(crate::lock::FILE_NAME);
    if !path.is_file() {
        return Err(format!(
            "servers.{name}: names no catalog, manifest or tools_list, and there is no {}: run `toolgate lock`",
            path.display()
        ));
    }
    let lock = crate::lock::read(&path)?;
    let server = lock.servers.get(name).ok_or_else(|| {
        format!(
            "servers.{name}: {} has no server `{name}`: run `toolgate lock`",
            path.display()
        )
    })?;
    tools_list_surface(&path, &server.tools_list_bytes())
}

/// Declares field renames on `surface`: each former field name of a tool becomes, in every
/// entry of it, a former name of its current field (what a catalog's `formerly.fields`
/// says), so `unknown-field` names the new field and `--fix` rewrites the old one.
pub fn add_field_renames(surface: &mut Surface, renames: &[FieldRenames]) -> Result<(), String> {
    for r in renames {
        let Some(tool) = surface.tools.iter_mut().find(|t| t.name == r.tool) else {
            return Err(format!(
                "formerly.fields.{}: the server has no tool `{}`",
                r.tool, r.tool
            ));
        };
        for (new, olds) in &r.fields {
            let declared = tool.entries.iter().any(|e| {
                e.input_schema
                    .as_object()
                    .is_some_and(|o| o.property(new).is_some())
            });
            if !declared {
                return Err(format!(
                    "formerly.fields.{}: `{}` has no field `{new}`",
                    r.tool, r.tool
                ));
            }
            for e in &mut tool.entries {
                match e.formerly_fields.iter_mut().find(|(n, _)| n == new) {
                    Some((_, have)) => {
                        for o in olds {
                            if !have.contains(o) {
                                have.push(o.clone());
                            }
                        }
                    }
                    None => e.formerly_fields.push((new.clone(), olds.clone())),
                }
            }
        }
    }
    Ok(())
}

/// Declares `renames` on `surface`: each old name becomes a former name of its new tool.
pub fn add_renames(surface: &mut Surface, renames: &[Rename]) -> Result<(), String> {
    for r in renames {
        if surface.tool(&r.old).is_some() {
            return Err(format!(
                "formerly: `{}` is the name of a current tool",
                r.old
            ));
        }
        let Some(tool) = surface.tools.iter_mut().find(|t| t.name == r.new) else {
            return Err(format!(
                "formerly: `{}` -> `{}`: the server has no tool `{}`",
                r.old, r.new, r.new
            ));
        };
        if !tool.formerly.contains(&r.old) {
            tool.formerly.push(r.old.clone());
        }
        if !r.set.is_empty() && !tool.formerly_set.iter().any(|(o, _)| *o == r.old) {
            tool.formerly_set.push((r.old.clone(), r.set.clone()));
        }
    }
    Ok(())
}

/// A prefix, matched at a token boundary; `*` stands for one plugin name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prefix {
    /// The text before `*` (all of it when there is none).
    pub head: String,
    /// The text after `*`, when the prefix has one.
    pub tail: Option<String>,
    /// Whether the prefix is generic ([`is_generic`]).
    pub generic: bool,
}

impl Prefix {
    /// Parses `mcp__github__` or `mcp__plugin_*_github__`.
    pub fn parse(s: &str) -> Prefix {
        match s.split_once('*') {
            Some((h, t)) => Prefix {
                head: h.to_string(),
                tail: Some(t.to_string()),
                generic: is_generic(s),
            },
            None => Prefix {
                head: s.to_string(),
                tail: None,
                generic: is_generic(s),
            },
        }
    }

    /// When `text[at..]` starts with this prefix, its length.
    pub fn len_at(&self, text: &str, at: usize) -> Option<usize> {
        let rest = text.get(at..)?;
        if !rest.starts_with(&self.head) {
            return None;
        }
        let after = &rest[self.head.len()..];
        match &self.tail {
            None => Some(self.head.len()),
            Some(tail) => {
                // The plugin name: name bytes, then the tail; the shortest such match.
                let limit = after.len().min(128);
                (1..=limit)
                    .filter(|&k| after.is_char_boundary(k))
                    .take_while(|&k| {
                        after.as_bytes()[..k]
                            .iter()
                            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
                    })
                    .find(|&k| after[k..].starts_with(tail.as_str()))
                    .map(|k| self.head.len() + k + tail.len())
            }
        }
    }
}

/// Verbs many servers start their tool names with: a server whose tools all begin `get_`
/// shares no pattern another program's `get_weather(...)` could not have too.
const GENERIC_WORDS: &[&str] = &[
    "add", "check", "close", "copy", "create", "delete", "do", "edit", "fetch", "find", "get",
    "list", "make", "move", "open", "post", "put", "query", "read", "remove", "run", "search",
    "send", "set", "show", "start", "stop", "update", "view", "write",
];

/// The naming pattern a server's tools share, when they share one: their common first word
/// with the separator after it (`browser_` for Playwright's, `git_` for mcp-server-git's).
/// Every tool has it, there are at least three, the word has at least three letters and is
/// not a generic verb ([`GENERIC_WORDS`]). An unprefixed name of that shape that is not one
/// of the server's tools names a tool the server does not have.
pub fn tool_shape<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut shape: Option<&str> = None;
    let mut count = 0;
    for name in names {
        let cut = name.find(['_', '-'])?;
        let head = &name[..=cut];
        if name.len() == head.len() || shape.is_some_and(|s| s != head) {
            return None;
        }
        shape = Some(head);
        count += 1;
    }
    let shape = shape?;
    let word = &shape[..shape.len() - 1];
    (count >= 3
        && word.len() >= 3
        && word.bytes().all(|b| b.is_ascii_lowercase())
        && !GENERIC_WORDS.contains(&word))
    .then(|| shape.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_prefixes_follow_the_hosts() {
        assert_eq!(
            default_prefixes("github"),
            [
                "mcp__github__",
                "mcp__plugin_*_github__",
                "github/",
                "mcp_github_"
            ]
        );
        assert_eq!(default_prefixes("my.server")[0], "mcp__my_server__");
    }

    #[test]
    fn wildcard_prefixes_match_one_plugin_name() {
        let p = Prefix::parse("mcp__plugin_*_github__");
        let t = "mcp__plugin_github_github__get_me";
        assert_eq!(p.len_at(t, 0), Some("mcp__plugin_github_github__".len()));
        assert_eq!(p.len_at("mcp__plugin__x", 0), None);
        assert!(!p.generic);
        assert!(Prefix::parse("github/").generic);
    }

    #[test]
    fn a_tools_list_keeps_every_schema() {
        let s = tools_list_surface(
            Path::new("t.json"),
            br#"{"tools":[{"name":"b","inputSchema":{"type":"object","properties":{"n":{"type":"number"}}}},{"name":"a"}]}"#,
        )
        .unwrap();
        assert_eq!(s.tools.len(), 2);
        assert_eq!(s.tools[0].name, "a");
        assert!(tools_list_surface(Path::new("t.json"), b"[]").is_err());
    }
}
