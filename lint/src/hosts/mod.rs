//! The MCP servers a repository's host configurations name, read as each host documents its
//! files (`docs/lint.md` cites the pages): Claude Code's `.mcp.json` and plugins
//! (`.claude-plugin/plugin.json`, a plugin's `.mcp.json`), VS Code's `.vscode/mcp.json` (VS
//! Code also reads the portable `.mcp.json`), Cursor's `.cursor/mcp.json`, Gemini CLI's
//! `.gemini/settings.json`, opencode's `opencode.json(c)`, Codex's `.codex/config.toml` and
//! Roo Code's `.roo/mcp.json`.
//!
//! Each server keeps where it is declared, how it is reached as written (variables are
//! expanded only by [`vars::expand`], when `toolgate lock` starts it) and the hosts that read
//! its file, whose prefixes its tools are written under. Nothing here starts a server or
//! touches the network. `toollists` reads the tool lists the same files hold (which of a
//! server's tools an agent sees), with the place of each entry, for the lint.

pub mod formats;
pub mod jsonc;
pub mod plugins;
pub mod toollists;
pub mod vars;

use std::path::{Path, PathBuf};

pub use crate::lock::Declared;

/// A host that reads MCP server configurations from a repository.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Host {
    /// Claude Code (`.mcp.json`).
    ClaudeCode,
    /// A Claude Code plugin's server, by the plugin's name.
    ClaudePlugin(String),
    /// VS Code (`.vscode/mcp.json`, and the portable `.mcp.json`).
    VsCode,
    /// Cursor (`.cursor/mcp.json`).
    Cursor,
    /// Gemini CLI (`.gemini/settings.json`).
    GeminiCli,
    /// opencode (`opencode.json`, `opencode.jsonc`, `.opencode/`).
    OpenCode,
    /// Codex (`.codex/config.toml`).
    Codex,
    /// Roo Code (`.roo/mcp.json`).
    RooCode,
}

impl Host {
    /// The host's name, as `toolgate servers` prints it.
    pub fn name(&self) -> String {
        match self {
            Host::ClaudeCode => "claude-code".into(),
            Host::ClaudePlugin(p) => format!("claude-code plugin {p}"),
            Host::VsCode => "vscode".into(),
            Host::Cursor => "cursor".into(),
            Host::GeminiCli => "gemini-cli".into(),
            Host::OpenCode => "opencode".into(),
            Host::Codex => "codex".into(),
            Host::RooCode => "roo-code".into(),
        }
    }

    /// The prefixes this host writes the tools of a server named `name` under: Claude Code
    /// and Codex `mcp__NAME__` (a plugin's `mcp__plugin_PLUGIN_NAME__`), VS Code `NAME/` in
    /// agent tool lists and `mcp_NAME_` in chat, Cursor and Gemini CLI `mcp_NAME_`, opencode
    /// `NAME_`, Roo Code `mcp--NAME--` (with its own spelling of the name, [`roo_name`]).
    pub fn prefixes(&self, name: &str) -> Vec<String> {
        let n = claude_name(name);
        match self {
            Host::ClaudeCode | Host::Codex => vec![format!("mcp__{n}__")],
            Host::ClaudePlugin(p) => vec![format!("mcp__plugin_{}_{n}__", claude_name(p))],
            Host::VsCode => vec![format!("{name}/"), format!("mcp_{n}_")],
            Host::Cursor | Host::GeminiCli => vec![format!("mcp_{n}_")],
            Host::OpenCode => vec![format!("{n}_")],
            Host::RooCode => vec![format!("mcp--{}--", roo_name(name))],
        }
    }
}

/// A name as Claude Code writes it in a tool name: characters outside `A-Za-z0-9_-` become `_`.
fn claude_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A name as Roo Code writes it in a tool's name (`mcp--SERVER--TOOL`): spaces become `_`,
/// other characters outside `A-Za-z0-9_-` are dropped, a run of `-` becomes one, and a name
/// that does not start with a letter or `_` gets a `_` before it.
fn roo_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        let c = if c.is_whitespace() { '_' } else { c };
        if (c.is_ascii_alphanumeric() || c == '_' || c == '-') && !(c == '-' && out.ends_with('-'))
        {
            out.push(c);
        }
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out
}

/// How a host reaches a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// A command started with its standard input and output as the connection.
    Stdio,
    /// Streamable HTTP.
    Http,
    /// The older HTTP+SSE transport.
    Sse,
}

impl Transport {
    /// `stdio`, `http` or `sse`.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Sse => "sse",
        }
    }
}

/// Which variable syntax a file's values are written in ([`vars::expand`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `${VAR}`, `${VAR:-default}`, `${env:VAR}`, `${input:ID}` and the predefined names
    /// (Claude Code, VS Code, Cursor).
    Claude,
    /// Gemini CLI: `$VAR` and `${VAR}`.
    Gemini,
    /// opencode: `{env:VAR}`.
    OpenCode,
    /// Codex: values are literal.
    Literal,
}

/// How a server is reached, as its file writes it (variables not expanded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The transport.
    pub transport: Transport,
    /// The program (stdio).
    pub command: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for it, name and value as written.
    pub env: Vec<(String, String)>,
    /// A file of `NAME=VALUE` lines whose variables are set too (VS Code's `envFile`).
    pub env_file: Option<String>,
    /// The folder it runs in, as written.
    pub cwd: Option<String>,
    /// The URL (HTTP, SSE).
    pub url: Option<String>,
    /// HTTP headers, name and value as written.
    pub headers: Vec<(String, String)>,
    /// The variable syntax of its file.
    pub syntax: Syntax,
}

impl Launch {
    /// What makes two definitions the same server: transport, command, arguments and URL
    /// as written, and the names (not the values) of its variables and headers, whose
    /// values hosts source differently (`${VAR}`, `${input:ID}`).
    fn same_as(&self, other: &Launch) -> bool {
        let names = |v: &[(String, String)]| {
            let mut n: Vec<String> = v.iter().map(|(k, _)| k.to_ascii_lowercase()).collect();
            n.sort();
            n
        };
        self.transport == other.transport
            && self.command == other.command
            && self.args == other.args
            && self.url == other.url
            && names(&self.env) == names(&other.env)
            && names(&self.headers) == names(&other.headers)
    }
}

/// One server the host configurations name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostServer {
    /// Its name in the lock and on the command line: the configuration's key, or
    /// `plugin_PLUGIN_NAME` for a plugin's server.
    pub id: String,
    /// The name hosts give it (the configuration's key).
    pub name: String,
    /// Where it is declared, first the file it was first read from.
    pub declared: Vec<Declared>,
    /// The hosts that read those files.
    pub hosts: Vec<Host>,
    /// How it is reached.
    pub launch: Launch,
    /// The plugin's folder, for a plugin's server.
    pub plugin_root: Option<PathBuf>,
}

impl HostServer {
    /// The prefixes of every host that reads it, in a fixed order, each once.
    pub fn prefixes(&self) -> Vec<String> {
        let mut hosts = self.hosts.clone();
        hosts.sort();
        let mut out: Vec<String> = Vec::new();
        for h in &hosts {
            for p in h.prefixes(&self.name) {
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
        out
    }
}

/// What the host configurations of a project name.
#[derive(Clone, Debug, Default)]
pub struct Discovery {
    /// The project root.
    pub root: PathBuf,
    /// The servers, sorted by id.
    pub servers: Vec<HostServer>,
}

impl Discovery {
    /// The server of an id.
    pub fn server(&self, id: &str) -> Option<&HostServer> {
        self.servers.iter().find(|s| s.id == id)
    }
}

/// The project root of `start`: the nearest folder upward holding `.git` (the git work
/// tree's root), else `start` itself.
pub fn project_root(start: &Path) -> PathBuf {
    let abs = crate::config::absolute(start);
    let mut dir = Some(abs.as_path());
    while let Some(d) = dir {
        if d.join(".git").exists() {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    abs
}

/// Reads every host configuration of the project at `root`. Errors (a file that does not
/// parse, an unknown `type`, a server with neither command nor url, one name with two
/// definitions) are collected, each naming its file and key.
pub fn discover(root: &Path) -> Result<Discovery, Vec<String>> {
    let mut found: Vec<HostServer> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    for file in formats::PROJECT_FILES {
        let path = root.join(file.path);
        if !path.is_file() {
            continue;
        }
        match formats::read_project_file(&path, file) {
            Ok(servers) => found.extend(servers),
            Err(e) => errors.extend(e),
        }
    }
    match plugins::read_plugins(root) {
        Ok(servers) => found.extend(servers),
        Err(e) => errors.extend(e),
    }
    let servers = merge(found, &mut errors);
    if errors.is_empty() {
        Ok(Discovery {
            root: root.to_path_buf(),
            servers,
        })
    } else {
        Err(errors)
    }
}

/// One server per id: the same definition in two files is one server read by both files'
/// hosts; two different definitions of one id are an error.
fn merge(found: Vec<HostServer>, errors: &mut Vec<String>) -> Vec<HostServer> {
    let mut out: Vec<HostServer> = Vec::new();
    for s in found {
        match out.iter_mut().find(|o| o.id == s.id) {
            None => out.push(s),
            Some(o) if o.launch.same_as(&s.launch) => {
                o.declared.extend(s.declared);
                for h in s.hosts {
                    if !o.hosts.contains(&h) {
                        o.hosts.push(h);
                    }
                }
            }
            Some(o) => errors.push(format!(
                "{}: the server `{}` is defined differently in {} (command, args, url, or the names of its env and headers differ); give one definition, or two names",
                s.declared[0], s.id, o.declared[0]
            )),
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_follow_the_hosts_reading_the_file() {
        let s = HostServer {
            id: "gh".into(),
            name: "gh".into(),
            declared: vec![],
            hosts: vec![Host::VsCode, Host::ClaudeCode],
            launch: Launch {
                transport: Transport::Stdio,
                command: Some("x".into()),
                args: vec![],
                env: vec![],
                env_file: None,
                cwd: None,
                url: None,
                headers: vec![],
                syntax: Syntax::Claude,
            },
            plugin_root: None,
        };
        assert_eq!(s.prefixes(), ["mcp__gh__", "gh/", "mcp_gh_"]);
        assert!(
            project_root(Path::new(env!("CARGO_MANIFEST_DIR")))
                .join(".git")
                .exists()
        );
        assert_eq!(
            Host::ClaudePlugin("my.plug".into()).prefixes("api"),
            ["mcp__plugin_my_plug_api__"]
        );
        assert_eq!(Host::RooCode.prefixes("my.db  x--y"), ["mcp--mydb__x-y--"]);
        assert_eq!(Host::RooCode.prefixes("7z"), ["mcp--_7z--"]);
        assert_eq!(Host::RooCode.prefixes("..."), ["mcp--_--"]);
    }

    #[test]
    fn one_server_in_two_files_is_one_server_of_both_hosts() {
        let dir = std::env::temp_dir().join(format!("toolgate-hosts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".vscode")).unwrap();
        std::fs::create_dir_all(dir.join("p/.claude-plugin")).unwrap();
        std::fs::write(
            dir.join(".mcp.json"),
            r#"{"mcpServers": {"gh": {"command": "gh-mcp", "env": {"T": "${T}"}}}}"#,
        )
        .unwrap();
        std::fs::write(
            dir.join(".vscode/mcp.json"),
            "{\"servers\": {\"gh\": {\"type\": \"stdio\", \"command\": \"gh-mcp\", \"env\": {\"T\": \"${input:t}\"}},}} // x\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("p/.claude-plugin/plugin.json"),
            r#"{"name": "p1", "mcpServers": {"gh": {"command": "gh-mcp"}}}"#,
        )
        .unwrap();
        let d = discover(&dir).unwrap();
        let ids: Vec<&str> = d.servers.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["gh", "plugin_p1_gh"]);
        assert_eq!(d.servers[0].declared.len(), 2);
        assert_eq!(d.servers[0].prefixes(), ["mcp__gh__", "gh/", "mcp_gh_"]);
        assert_eq!(d.servers[1].prefixes(), ["mcp__plugin_p1_gh__"]);
        assert_eq!(
            d.servers[1].plugin_root.as_deref(),
            Some(dir.join("p").as_path())
        );
        std::fs::write(
            dir.join(".vscode/mcp.json"),
            r#"{"servers": {"gh": {"type": "stdio", "command": "other"}}}"#,
        )
        .unwrap();
        let e = discover(&dir).unwrap_err();
        assert!(e[0].contains("defined differently"), "{e:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
