//! Claude Code plugins anywhere in the project: each `.claude-plugin/plugin.json` names a
//! plugin (`name`), whose servers are its `mcpServers` (an object, or the path of a JSON
//! file, relative to the plugin's folder) or else the plugin folder's `.mcp.json` (an
//! `mcpServers` object, or the servers at its top level). Claude Code exposes their tools as
//! `mcp__plugin_PLUGIN_NAME__TOOL`.

use std::path::Path;

use serde_json::Value;

use super::formats::{Kind, Place, parse_json, read_servers};
use super::{Host, HostServer, Syntax};

/// The servers of every plugin under `root` (what .gitignore ignores skipped, as are `.git`,
/// `node_modules` and `target`).
pub fn read_plugins(root: &Path) -> Result<Vec<HostServer>, Vec<String>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(true)
        .require_git(false)
        .filter_entry(|e| {
            !matches!(
                e.file_name().to_str(),
                Some(".git" | "node_modules" | "target")
            )
        })
        .build();
    let mut manifests: Vec<std::path::PathBuf> = walk
        .flatten()
        .filter(|e| {
            e.file_name() == "plugin.json"
                && e.path()
                    .parent()
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == ".claude-plugin")
        })
        .map(|e| e.into_path())
        .collect();
    manifests.sort();
    for manifest in manifests {
        match read_plugin(root, &manifest) {
            Ok(s) => out.extend(s),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

fn read_plugin(root: &Path, manifest: &Path) -> Result<Vec<HostServer>, Vec<String>> {
    let shown = relative(root, manifest);
    let plugin_root = manifest
        .parent()
        .and_then(Path::parent)
        .unwrap_or(root)
        .to_path_buf();
    let text = std::fs::read_to_string(manifest)
        .map_err(|e| vec![format!("{shown}: cannot read: {e}")])?;
    let value = parse_json(&shown, &text, false).map_err(|e| vec![e])?;
    let Some(name) = value.get("name").and_then(Value::as_str) else {
        return Err(vec![format!(
            "{shown}: name: a plugin manifest needs a `name`"
        )]);
    };
    let (file, parent, servers_value) = match value.get("mcpServers") {
        Some(Value::Object(_)) => (
            shown.clone(),
            "mcpServers".to_string(),
            value["mcpServers"].clone(),
        ),
        Some(Value::String(path)) => {
            let p = plugin_root.join(path.trim_start_matches("./"));
            let shown_p = relative(root, &p);
            let v = read_mcp_file(&p, &shown_p).map_err(|e| vec![e])?;
            servers_of(v, shown_p)
        }
        Some(_) => {
            return Err(vec![format!(
                "{shown}: mcpServers: is neither an object nor a path"
            )]);
        }
        None => {
            let p = plugin_root.join(".mcp.json");
            if !p.is_file() {
                return Ok(Vec::new());
            }
            let shown_p = relative(root, &p);
            let v = read_mcp_file(&p, &shown_p).map_err(|e| vec![e])?;
            servers_of(v, shown_p)
        }
    };
    let Value::Object(servers) = servers_value else {
        return Err(vec![format!("{file}: {parent}: is not an object")]);
    };
    let place = Place {
        file: &file,
        parent: &parent,
        hosts: vec![Host::ClaudePlugin(name.to_string())],
        syntax: Syntax::Claude,
    };
    read_servers(
        &servers,
        &place,
        Kind::McpServers,
        Some((name, plugin_root.as_path())),
    )
}

fn read_mcp_file(path: &Path, shown: &str) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    parse_json(shown, &text, false)
}

/// A plugin `.mcp.json`: its `mcpServers`, or its top level when it has none.
fn servers_of(v: Value, file: String) -> (String, String, Value) {
    match v {
        Value::Object(mut m) if m.contains_key("mcpServers") => {
            let s = m.remove("mcpServers").unwrap_or(Value::Null);
            (file, "mcpServers".into(), s)
        }
        other => (file, String::new(), other),
    }
}
