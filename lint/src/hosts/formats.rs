//! The project files of each host and how each writes a server.
//!
//! - Claude Code `.mcp.json` (also read by VS Code): `mcpServers.NAME` with `command`, `args`,
//!   `env`, or `type` `http`/`sse` with `url` and `headers`; strict JSON.
//! - VS Code `.vscode/mcp.json`: `servers.NAME` (`type` `stdio` with `command`, `args`,
//!   `env`, `envFile`, `cwd`; `http`/`sse` with `url`, `headers`) and `inputs`; JSONC.
//! - Cursor `.cursor/mcp.json`: `mcpServers.NAME`, as Claude Code's; JSONC.
//! - Gemini CLI `.gemini/settings.json`: `mcpServers.NAME` with `command`, `args`, `env`,
//!   `cwd`, or `url` (SSE), or `httpUrl` (Streamable HTTP), and `headers`; JSONC.
//! - opencode `opencode.json(c)` and `.opencode/opencode.json(c)`: `mcp.NAME` (or
//!   `mcp.servers.NAME`) with `type` `local` (`command` an array, `environment`) or `remote`
//!   (`url`, `headers`), `enabled`; JSONC.
//! - Codex `.codex/config.toml`: `[mcp_servers.NAME]` with `command`, `args`, `env`, or `url`
//!   and `http_headers`, `enabled`.
//! - Roo Code `.roo/mcp.json`: `mcpServers.NAME` with `command`, `args`, `env`, `cwd`, or
//!   `type` `sse`/`streamable-http` with `url` and `headers`, `disabled`; `${env:VAR}` and
//!   `${workspaceFolder}`; strict JSON (Roo Code reads it with `JSON.parse`).

use std::path::Path;

use serde_json::{Map, Value};

use super::{Declared, Host, HostServer, Launch, Syntax, Transport, jsonc};

/// How a file lists its servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `mcpServers.NAME` (Claude Code, Cursor, Gemini CLI, Roo Code).
    McpServers,
    /// `servers.NAME` (VS Code).
    VsCode,
    /// `mcp.NAME` or `mcp.servers.NAME` (opencode).
    OpenCode,
    /// `[mcp_servers.NAME]` (Codex, TOML).
    Codex,
}

/// A project file hosts read servers from.
#[derive(Clone, Copy, Debug)]
pub struct ProjectFile {
    /// Its path from the project root.
    pub path: &'static str,
    /// The hosts that read it.
    pub hosts: &'static [Host],
    /// How it lists servers.
    pub kind: Kind,
    /// Whether comments and trailing commas are accepted.
    pub jsonc: bool,
    /// Its variable syntax.
    pub syntax: Syntax,
}

/// Every project file, in the order they are read.
pub const PROJECT_FILES: &[ProjectFile] = &[
    ProjectFile {
        path: ".mcp.json",
        hosts: &[Host::ClaudeCode, Host::VsCode],
        kind: Kind::McpServers,
        jsonc: false,
        syntax: Syntax::Claude,
    },
    ProjectFile {
        path: ".vscode/mcp.json",
        hosts: &[Host::VsCode],
        kind: Kind::VsCode,
        jsonc: true,
        syntax: Syntax::Claude,
    },
    ProjectFile {
        path: ".cursor/mcp.json",
        hosts: &[Host::Cursor],
        kind: Kind::McpServers,
        jsonc: true,
        syntax: Syntax::Claude,
    },
    ProjectFile {
        path: ".gemini/settings.json",
        hosts: &[Host::GeminiCli],
        kind: Kind::McpServers,
        jsonc: true,
        syntax: Syntax::Gemini,
    },
    ProjectFile {
        path: "opencode.json",
        hosts: &[Host::OpenCode],
        kind: Kind::OpenCode,
        jsonc: true,
        syntax: Syntax::OpenCode,
    },
    ProjectFile {
        path: "opencode.jsonc",
        hosts: &[Host::OpenCode],
        kind: Kind::OpenCode,
        jsonc: true,
        syntax: Syntax::OpenCode,
    },
    ProjectFile {
        path: ".opencode/opencode.json",
        hosts: &[Host::OpenCode],
        kind: Kind::OpenCode,
        jsonc: true,
        syntax: Syntax::OpenCode,
    },
    ProjectFile {
        path: ".opencode/opencode.jsonc",
        hosts: &[Host::OpenCode],
        kind: Kind::OpenCode,
        jsonc: true,
        syntax: Syntax::OpenCode,
    },
    ProjectFile {
        path: ".codex/config.toml",
        hosts: &[Host::Codex],
        kind: Kind::Codex,
        jsonc: false,
        syntax: Syntax::Literal,
    },
    ProjectFile {
        path: ".roo/mcp.json",
        hosts: &[Host::RooCode],
        kind: Kind::McpServers,
        jsonc: false,
        syntax: Syntax::Claude,
    },
];

/// Where a server's definition sits, for its errors and its [`Declared`].
pub struct Place<'a> {
    /// The file, relative to the project root.
    pub file: &'a str,
    /// The key of the object holding the servers (`mcpServers`).
    pub parent: &'a str,
    /// The hosts that read it.
    pub hosts: Vec<Host>,
    /// Its variable syntax.
    pub syntax: Syntax,
}

/// Reads the servers of one project file.
pub fn read_project_file(path: &Path, file: &ProjectFile) -> Result<Vec<HostServer>, Vec<String>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| vec![format!("{}: cannot read: {e}", file.path)])?;
    let value = if file.kind == Kind::Codex {
        let table: toml::Table = toml::from_str(&text)
            .map_err(|e| vec![format!("{}: {}", file.path, e.to_string().trim_end())])?;
        serde_json::to_value(table).map_err(|e| vec![format!("{}: {e}", file.path)])?
    } else {
        parse_json(file.path, &text, file.jsonc).map_err(|e| vec![e])?
    };
    let (parent, servers) = match servers_object(&value, file.kind) {
        Ok(Some(s)) => s,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(vec![format!("{}: {e}", file.path)]),
    };
    if file.hosts == [Host::RooCode] {
        roo_types(servers).map_err(|e| vec![format!("{}: {parent}.{e}", file.path)])?;
    }
    let place = Place {
        file: file.path,
        parent: &parent,
        hosts: file.hosts.to_vec(),
        syntax: file.syntax,
    };
    read_servers(servers, &place, file.kind, None)
}

/// Roo Code infers no transport from a `url`: such a server must say `type` (`sse` or
/// `streamable-http`), or Roo Code does not load it; the first that does not, named.
fn roo_types(servers: &Map<String, Value>) -> Result<(), String> {
    for (name, def) in servers {
        if def.get("url").is_some() && def.get("type").is_none() {
            return Err(format!(
                "{name}: has `url` but no `type` (`sse` or `streamable-http`), which Roo Code requires"
            ));
        }
    }
    Ok(())
}

/// Parses JSON (or JSONC) text; an error names the file, line and column.
pub fn parse_json(file: &str, text: &str, jsonc: bool) -> Result<Value, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let stripped;
    let text = if jsonc {
        stripped = jsonc::strip(text);
        stripped.as_str()
    } else {
        text
    };
    serde_json::from_str(text)
        .map_err(|e| format!("{file}:{}:{}: invalid JSON: {e}", e.line(), e.column()))
}

/// The key of a file's servers object, and the object.
type ServersObject<'v> = (String, &'v Map<String, Value>);

/// The object holding the servers and its key, `None` when the file names none.
fn servers_object(value: &Value, kind: Kind) -> Result<Option<ServersObject<'_>>, String> {
    let root = value
        .as_object()
        .ok_or_else(|| "is not a JSON object".to_string())?;
    let (key, v) = match kind {
        Kind::McpServers => ("mcpServers".to_string(), root.get("mcpServers")),
        Kind::VsCode => ("servers".to_string(), root.get("servers")),
        Kind::Codex => ("mcp_servers".to_string(), root.get("mcp_servers")),
        Kind::OpenCode => match root.get("mcp") {
            Some(Value::Object(m)) if m.get("servers").is_some_and(Value::is_object) => {
                ("mcp.servers".to_string(), m.get("servers"))
            }
            other => ("mcp".to_string(), other),
        },
    };
    match v {
        None => Ok(None),
        Some(Value::Object(m)) => Ok(Some((key, m))),
        Some(_) => Err(format!("{key}: is not an object")),
    }
}

/// Reads each entry of a servers object; errors name the file and key.
pub fn read_servers(
    servers: &Map<String, Value>,
    place: &Place<'_>,
    kind: Kind,
    plugin: Option<(&str, &Path)>,
) -> Result<Vec<HostServer>, Vec<String>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (name, def) in servers {
        let key = if place.parent.is_empty() {
            name.clone()
        } else {
            format!("{}.{name}", place.parent)
        };
        match read_server(def, kind, place.syntax) {
            Ok(Some(launch)) => out.push(HostServer {
                id: match plugin {
                    Some((p, _)) => format!("plugin_{p}_{name}"),
                    None => name.clone(),
                },
                name: name.clone(),
                declared: vec![Declared {
                    file: place.file.to_string(),
                    key,
                }],
                hosts: place.hosts.clone(),
                launch,
                plugin_root: plugin.map(|(_, root)| root.to_path_buf()),
            }),
            Ok(None) => {}
            Err(e) => errors.push(format!("{}: {key}: {e}", place.file)),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// One server's definition; `None` when it is switched off (`enabled: false`, `disabled:
/// true`).
fn read_server(def: &Value, kind: Kind, syntax: Syntax) -> Result<Option<Launch>, String> {
    let obj = def.as_object().ok_or("is not an object")?;
    if obj.get("enabled") == Some(&Value::Bool(false))
        || obj.get("disabled") == Some(&Value::Bool(true))
    {
        return Ok(None);
    }
    let mut launch = Launch {
        transport: Transport::Stdio,
        command: None,
        args: Vec::new(),
        env: Vec::new(),
        env_file: string(obj, "envFile")?,
        cwd: string(obj, "cwd")?,
        url: string(obj, "url")?,
        headers: Vec::new(),
        syntax,
    };
    let declared_type = string(obj, "type")?;
    if kind == Kind::OpenCode {
        read_opencode(obj, declared_type.as_deref(), &mut launch)?;
    } else {
        launch.command = string(obj, "command")?;
        launch.args = strings(obj, "args")?;
        launch.env = pairs(obj, "env")?;
        launch.headers = pairs(
            obj,
            if kind == Kind::Codex {
                "http_headers"
            } else {
                "headers"
            },
        )?;
        if kind == Kind::McpServers
            && let Some(u) = string(obj, "httpUrl")?
        {
            launch.url = Some(u);
            launch.transport = Transport::Http;
        } else if launch.url.is_some() {
            // Gemini CLI's `url` is SSE; the others' `url` is Streamable HTTP unless `type`
            // says `sse`.
            launch.transport = if syntax == Syntax::Gemini {
                Transport::Sse
            } else {
                Transport::Http
            };
        }
        match declared_type.as_deref() {
            None => {}
            Some("stdio") => launch.transport = Transport::Stdio,
            Some("http" | "streamable-http" | "streamableHttp") => {
                launch.transport = Transport::Http
            }
            Some("sse") => launch.transport = Transport::Sse,
            Some(other) => {
                return Err(format!("unknown `type` `{other}` (stdio, http or sse)"));
            }
        }
    }
    match (launch.transport, &launch.command, &launch.url) {
        (_, None, None) => Err("has neither `command` nor `url`".into()),
        (Transport::Stdio, None, Some(_)) => Err("is `stdio` but has no `command`".into()),
        (Transport::Http | Transport::Sse, _, None) => Err(format!(
            "is `{}` but has no `url`",
            launch.transport.as_str()
        )),
        _ => Ok(Some(launch)),
    }
}

fn read_opencode(
    obj: &Map<String, Value>,
    ty: Option<&str>,
    launch: &mut Launch,
) -> Result<(), String> {
    match ty {
        Some("local") => {
            let mut command = strings(obj, "command")?;
            if command.is_empty() {
                return Err("is `local` but `command` is empty or missing".into());
            }
            launch.command = Some(command.remove(0));
            launch.args = command;
            launch.env = pairs(obj, "environment")?;
            launch.url = None;
        }
        Some("remote") => {
            launch.transport = Transport::Http;
            launch.headers = pairs(obj, "headers")?;
        }
        Some(other) => return Err(format!("unknown `type` `{other}` (local or remote)")),
        None => return Err("has no `type` (local or remote)".into()),
    }
    Ok(())
}

fn string(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` is not a string")),
    }
}

fn strings(obj: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("`{key}[{i}]` is not a string"))
            })
            .collect(),
        Some(_) => Err(format!("`{key}` is not an array of strings")),
    }
}

fn pairs(obj: &Map<String, Value>, key: &str) -> Result<Vec<(String, String)>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                Value::Bool(b) => Ok((k.clone(), b.to_string())),
                _ => Err(format!("`{key}.{k}` is not a string")),
            })
            .collect(),
        Some(_) => Err(format!("`{key}` is not an object")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(kind: Kind, syntax: Syntax, text: &str) -> Result<Vec<HostServer>, Vec<String>> {
        let v = parse_json("f.json", text, true).map_err(|e| vec![e])?;
        let (parent, servers) = servers_object(&v, kind).map_err(|e| vec![e])?.unwrap();
        let place = Place {
            file: "f.json",
            parent: &parent,
            hosts: vec![Host::VsCode],
            syntax,
        };
        read_servers(servers, &place, kind, None)
    }

    #[test]
    fn every_transport_of_each_format() {
        let s = read(
            Kind::VsCode,
            Syntax::Claude,
            r#"{"inputs": [], "servers": {
                // a comment
                "a": {"type": "stdio", "command": "npx", "args": ["-y", "pkg@1.0.0"], "envFile": "${workspaceFolder}/.env"},
                "b": {"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer ${input:tok}"}},
            }}"#,
        )
        .unwrap();
        assert_eq!(s[0].launch.args, ["-y", "pkg@1.0.0"]);
        assert_eq!(
            s[0].launch.env_file.as_deref(),
            Some("${workspaceFolder}/.env")
        );
        assert_eq!(s[1].launch.transport, Transport::Http);
        assert_eq!(s[1].declared[0].key, "servers.b");
        let g = read(
            Kind::McpServers,
            Syntax::Gemini,
            r#"{"mcpServers": {"h": {"httpUrl": "http://h/mcp"}, "s": {"url": "http://s/sse"}}}"#,
        )
        .unwrap();
        assert_eq!(g[0].launch.transport, Transport::Http);
        assert_eq!(g[1].launch.transport, Transport::Sse);
        let o = read(
            Kind::OpenCode,
            Syntax::OpenCode,
            r#"{"mcp": {"l": {"type": "local", "command": ["uvx", "mcp-server-time==1"]}, "off": {"type": "remote", "url": "u", "enabled": false}}}"#,
        )
        .unwrap();
        assert_eq!(o.len(), 1);
        assert_eq!(o[0].launch.command.as_deref(), Some("uvx"));
    }

    #[test]
    fn bad_definitions_name_the_file_and_key() {
        let e = read(
            Kind::McpServers,
            Syntax::Claude,
            r#"{"mcpServers": {"x": {"type": "ws", "url": "u"}}}"#,
        )
        .unwrap_err();
        assert!(
            e[0].starts_with("f.json: mcpServers.x: unknown `type` `ws`"),
            "{e:?}"
        );
        let e = read(
            Kind::McpServers,
            Syntax::Claude,
            r#"{"mcpServers": {"x": {"args": []}}}"#,
        )
        .unwrap_err();
        assert!(e[0].contains("neither `command` nor `url`"), "{e:?}");
        let roo: Value =
            serde_json::from_str(r#"{"a": {"command": "x"}, "b": {"url": "http://h/mcp"}}"#)
                .unwrap();
        let e = roo_types(roo.as_object().unwrap()).unwrap_err();
        assert!(e.starts_with("b: has `url` but no `type`"), "{e}");
        let e = parse_json("f.json", "{\"a\": }", false).unwrap_err();
        assert!(
            e.starts_with("f.json:1:") && e.contains("invalid JSON"),
            "{e}"
        );
    }
}
