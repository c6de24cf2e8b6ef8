//! The tool lists of host configurations: where a configuration chooses which of a server's
//! tools an agent sees. A name there that the server does not have is dropped by the host
//! without a word, and the agent quietly loses the tool, so each entry is a tool reference
//! like any other (the lint's host-list stage checks them; docs/lint.md cites each host's
//! page):
//!
//! - Codex `.codex/config.toml`: `[mcp_servers.NAME]` with `enabled_tools` (an allow list)
//!   and `disabled_tools` (a deny list, applied after it), and the per-tool tables
//!   `[mcp_servers.NAME.tools.TOOL]`; names as the server gives them.
//! - Gemini CLI `.gemini/settings.json`: `mcpServers.NAME` with `includeTools` and
//!   `excludeTools`; names as the server gives them, an `includeTools` entry optionally
//!   followed by `(...)`.
//! - opencode `opencode.json(c)`, `.opencode/opencode.json(c)`: the `tools` map and the
//!   `permission` map opencode merged it into, at the top and per agent (`agent.NAME`, and
//!   the older `mode.NAME`), keyed by the names opencode gives MCP tools, `SERVER_TOOL` (the
//!   server's key and the tool's name with characters outside `A-Za-z0-9_-` made `_`), where
//!   `*` and `?` are wildcards; a pattern whose text before its first wildcard is a server's
//!   name (`my-mcp*`) is that server's. Entries of opencode's own tools (`write`, `bash`)
//!   and patterns that start with no server's name are not references to a server, and are
//!   left alone.
//! - Roo Code `.roo/mcp.json`: `mcpServers.NAME` with `alwaysAllow` (tools run without
//!   asking; `*` is every tool) and `disabledTools` (tools hidden from the agent); names as
//!   the server gives them, compared exactly.
//!
//! Claude Code's `permissions.allow` and `deny` need no reader of their own: their entries
//! are prefixed names (`mcp__github__issue_read`), which the lint finds in any string of a
//! settings file.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::jsonc::{self, Node};
use crate::text::Span;

/// A host configuration file with tool lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Codex `.codex/config.toml`.
    Codex,
    /// Gemini CLI `.gemini/settings.json`.
    Gemini,
    /// opencode `opencode.json` or `opencode.jsonc`.
    OpenCode,
    /// Roo Code `.roo/mcp.json`.
    Roo,
}

/// One entry of a tool list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    /// The server's key in the file.
    pub server: String,
    /// The entry as written (inside its quotes; an `includeTools` entry without its
    /// `(...)`).
    pub written: Span,
    /// What the host reads there: the entry with its escapes decoded (`\u0041` is `A`),
    /// which is the name compared with the server's tools.
    pub value: String,
    /// How many bytes of `value` the host's prefix takes (opencode's `SERVER_`); 0 for a
    /// name as the server gives it, or a pattern that writes the prefix only in part
    /// (`my-mcp*`).
    pub prefix: usize,
    /// The prefix the host writes the server's tools under in this list (`SERVER_`), empty
    /// for the server's own names.
    pub host_prefix: String,
    /// Whether it is a pattern (`*`, `?`), not a name.
    pub glob: bool,
}

/// The format of the file shown as `path`, when it is one with tool lists.
pub fn format_of(path: &str) -> Option<Format> {
    // Asked of every file the lint reads: most are Markdown, and need no copy of their path.
    if ![".toml", ".json", ".jsonc"]
        .iter()
        .any(|e| path.ends_with(e))
    {
        return None;
    }
    let p = path.replace('\\', "/");
    let at = |suffix: &str| p == suffix || p.ends_with(&format!("/{suffix}"));
    if at(".codex/config.toml") {
        Some(Format::Codex)
    } else if at(".gemini/settings.json") {
        Some(Format::Gemini)
    } else if at("opencode.json") || at("opencode.jsonc") {
        Some(Format::OpenCode)
    } else if at(".roo/mcp.json") {
        Some(Format::Roo)
    } else {
        None
    }
}

/// Every tool list entry of `text`, a file of `format`, in the order written; an error (the
/// file does not parse, a Codex list that is not a list of strings) names the line and
/// column. What of a JSON file's lists cannot be read is [`unread`]'s.
pub fn read(format: Format, text: &str) -> Result<Vec<Listed>, String> {
    let mut out = match format {
        Format::Codex => read_codex(text)?,
        Format::Gemini | Format::OpenCode | Format::Roo => {
            super::formats::parse_json("", text, true)
                .map_err(|e| e.trim_start_matches(':').to_string())?;
            let root = jsonc::tree(&jsonc::strip(text))
                .ok_or_else(|| "cannot read its tool lists".to_string())?;
            match format {
                Format::Gemini => read_named(text, &root, &["includeTools", "excludeTools"]),
                Format::Roo => read_named(text, &root, &["alwaysAllow", "disabledTools"]),
                _ => read_opencode(&root),
            }
        }
    };
    out.sort_by_key(|l| l.written.start);
    Ok(out)
}

/// What of the tool lists of `text`, a JSON file of `format` that parses, is not read, each
/// named by its key (`mcpServers.git.includeTools[1]`) with why: a list that is not an
/// array, an entry that is not a string, an opencode map that is not an object. [`read`]
/// leaves these out; the caller says they were not checked.
pub fn unread(format: Format, text: &str) -> Vec<String> {
    let Some(root) = jsonc::tree(&jsonc::strip(text)) else {
        return Vec::new();
    };
    let keys: &[&str] = match format {
        Format::Gemini => &["includeTools", "excludeTools"],
        Format::Roo => &["alwaysAllow", "disabledTools"],
        Format::OpenCode => {
            let not_maps = ["tools", "permission"]
                .into_iter()
                .filter(|k| root.get(k).is_some_and(|m| !matches!(m, Node::Object(_))));
            return not_maps
                .map(|k| format!("`{k}` is not an object"))
                .collect();
        }
        Format::Codex => return Vec::new(),
    };
    let mut out = Vec::new();
    let Some(Node::Object(servers)) = root.get("mcpServers") else {
        return out;
    };
    for (server, _, def) in servers {
        for &key in keys {
            match def.get(key) {
                None => {}
                Some(Node::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        if !matches!(item, Node::String(..)) {
                            out.push(format!("`mcpServers.{server}.{key}[{i}]` is not a string"));
                        }
                    }
                }
                Some(_) => out.push(format!("`mcpServers.{server}.{key}` is not a list")),
            }
        }
    }
    out
}

/// The name a host gives the tool `name` of a server behind the server's prefix: with
/// `spelled` (opencode), each character outside `A-Za-z0-9_-` made `_`, as it does the
/// server's name; otherwise the name as the server gives it.
pub fn host_tool_name(name: &str, spelled: bool) -> String {
    if spelled {
        super::claude_name(name)
    } else {
        name.to_string()
    }
}

/// Whether `name` matches the opencode pattern `pattern`: `*` any run of characters, `?` any
/// one, everything else itself.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // The classic two-pointer match, with the last `*` to fall back to.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[derive(Deserialize)]
struct CodexFile {
    #[serde(default)]
    mcp_servers: BTreeMap<String, CodexServer>,
}

#[derive(Deserialize)]
struct CodexServer {
    #[serde(default)]
    enabled_tools: Vec<Spanned<String>>,
    #[serde(default)]
    disabled_tools: Vec<Spanned<String>>,
    #[serde(default)]
    tools: BTreeMap<Spanned<String>, toml::Value>,
}

fn read_codex(text: &str) -> Result<Vec<Listed>, String> {
    let file: CodexFile = toml::from_str(text).map_err(|e| {
        let place = e
            .span()
            .map(|s| {
                let before = text.get(..s.start).unwrap_or(text);
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
                format!("{line}:{column}: ")
            })
            .unwrap_or_default();
        format!("{place}{}", e.message())
    })?;
    let mut out = Vec::new();
    for (server, def) in file.mcp_servers {
        let names = def.enabled_tools.iter().chain(&def.disabled_tools);
        for name in names.chain(def.tools.keys()) {
            out.push(Listed {
                server: server.clone(),
                written: toml_inner(text, name.span()),
                value: name.get_ref().clone(),
                prefix: 0,
                host_prefix: String::new(),
                glob: false,
            });
        }
    }
    Ok(out)
}

/// The place of what a TOML string or key holds: inside its quotes (one, or three for a
/// multi-line string), or the bare key itself.
fn toml_inner(text: &str, span: std::ops::Range<usize>) -> Span {
    let raw = text.get(span.clone()).unwrap_or("");
    let quotes = if raw.starts_with("\"\"\"") || raw.starts_with("'''") {
        3
    } else if raw.starts_with('"') || raw.starts_with('\'') {
        1
    } else {
        0
    };
    if raw.len() < 2 * quotes {
        return Span::new(span.start, span.end);
    }
    Span::new(span.start + quotes, span.end - quotes)
}

/// The lists `keys` of each `mcpServers` entry of `text`, of names as the server gives
/// them.
fn read_named(text: &str, root: &Node, keys: &[&str]) -> Vec<Listed> {
    let mut out = Vec::new();
    let Some(Node::Object(servers)) = root.get("mcpServers") else {
        return out;
    };
    for (server, _, def) in servers {
        for &key in keys {
            for (value, span) in strings(def.get(key)) {
                // Roo Code reads `*` in `alwaysAllow` as every tool of the server.
                if key == "alwaysAllow" && value == "*" {
                    continue;
                }
                // `name(...)` in an include list selects the tool `name` (the `(` found in
                // the value as read, and in the text as written, escapes and all).
                let (value, end) = match (key, value.find('(')) {
                    ("includeTools", Some(i)) => {
                        let raw = span.of(text);
                        let cut = raw.find('(').unwrap_or(raw.len());
                        (value[..i].to_string(), span.start + cut)
                    }
                    _ => (value, span.end),
                };
                out.push(Listed {
                    server: server.clone(),
                    written: Span::new(span.start, end),
                    value,
                    prefix: 0,
                    host_prefix: String::new(),
                    glob: false,
                });
            }
        }
    }
    out
}

fn read_opencode(root: &Node) -> Vec<Listed> {
    let mut servers: Vec<(String, String)> = Vec::new();
    if let Some(Node::Object(mcp)) = root.get("mcp") {
        let nested = match mcp.iter().find(|(k, _, _)| k == "servers") {
            Some((_, _, Node::Object(inner))) => Some(inner),
            _ => None,
        };
        for (name, _, _) in nested.unwrap_or(mcp) {
            servers.push((name.clone(), format!("{}_", super::claude_name(name))));
        }
    }
    // The longest name first: `gh_enterprise_` before `gh_`.
    servers.sort_by_key(|(_, p)| std::cmp::Reverse(p.len()));
    // `tools` (true or false per name) and, since opencode merged it into them,
    // `permission` (allow, ask or deny per name), at the top, per agent and per mode.
    let mut maps: Vec<&Node> = Vec::new();
    for key in ["tools", "permission"] {
        maps.extend(root.get(key));
        for section in ["agent", "mode"] {
            if let Some(Node::Object(agents)) = root.get(section) {
                maps.extend(agents.iter().filter_map(|(_, _, a)| a.get(key)));
            }
        }
    }
    let mut out = Vec::new();
    for map in maps {
        let Node::Object(entries) = map else { continue };
        for (key, span, _) in entries {
            if let Some(l) = opencode_entry(&servers, key, *span) {
                out.push(l);
            }
        }
    }
    out
}

/// The entry `key` of an opencode map, when it names a tool of one of `servers` (key,
/// prefix): written behind the server's prefix (`clock_now`, `clock_*`), or a pattern
/// whose text before its first wildcard is the server's name (`my-mcp*`).
fn opencode_entry(servers: &[(String, String)], key: &str, span: Span) -> Option<Listed> {
    let glob = key.contains(['*', '?']);
    let (server, prefix, taken) = match servers.iter().find(|(_, p)| key.starts_with(p.as_str())) {
        Some((s, p)) => (s, p, p.len()),
        None if glob => {
            let head = &key[..key.find(['*', '?']).unwrap_or(key.len())];
            let (s, p) = servers
                .iter()
                .find(|(_, p)| !head.is_empty() && p.strip_suffix('_') == Some(head))?;
            (s, p, 0)
        }
        None => return None,
    };
    Some(Listed {
        server: server.clone(),
        written: span,
        value: key.to_string(),
        prefix: taken,
        host_prefix: prefix.clone(),
        glob,
    })
}

/// The strings of an array (its other items left out).
fn strings(node: Option<&Node>) -> Vec<(String, Span)> {
    match node {
        Some(Node::Array(items)) => items
            .iter()
            .filter_map(|i| match i {
                Node::String(s, span) => Some((s.clone(), *span)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(text: &str, l: &[Listed]) -> Vec<(String, String, usize, bool)> {
        // The host's prefix is the written one wherever the entry writes it whole.
        assert!(
            l.iter()
                .all(|x| x.prefix == 0 || x.host_prefix.len() == x.prefix)
        );
        l.iter()
            .map(|x| {
                (
                    x.server.clone(),
                    x.written.of(text).to_string(),
                    x.prefix,
                    x.glob,
                )
            })
            .collect()
    }

    #[test]
    fn codex_lists_and_tool_tables() {
        let text = "[mcp_servers.pw]\ncommand = \"npx\"\nenabled_tools = [\"open\", 'shot']\ndisabled_tools = [\"\"\"gone\"\"\"]\n\n[mcp_servers.pw.tools.\"click\"]\napproval_mode = \"approve\"\n[mcp_servers.pw.tools.type]\n";
        let l = read(Format::Codex, text).unwrap();
        let w = written(text, &l);
        let names: Vec<&str> = w.iter().map(|x| x.1.as_str()).collect();
        assert_eq!(names, ["open", "shot", "gone", "click", "type"]);
        assert!(l.iter().all(|x| x.server == "pw" && x.prefix == 0));
        let e = read(
            Format::Codex,
            "[mcp_servers.pw]\nenabled_tools = \"open\"\n",
        )
        .unwrap_err();
        assert!(e.starts_with("2:17: "), "{e}");
    }

    #[test]
    fn entries_are_read_as_the_host_reads_them_and_placed_as_written() {
        // A multi-line TOML array with comments and escapes, after a line of non-ASCII text.
        let text =
            "# café ☕\n[mcp_servers.pw]\nenabled_tools = [\n  \"op\\u0065n\", # é\n  'shot',\n]\n";
        let l = read(Format::Codex, text).unwrap();
        let got: Vec<(&str, &str)> = l
            .iter()
            .map(|x| (x.value.as_str(), x.written.of(text)))
            .collect();
        assert_eq!(got, [("open", "op\\u0065n"), ("shot", "shot")]);
        let ix = crate::text::LineIndex::new(text);
        let at = |x: &Listed| ix.position(text, x.written.start);
        assert_eq!((at(&l[0]).line, at(&l[0]).column), (4, 4));
        assert_eq!((at(&l[1]).line, at(&l[1]).column), (5, 4));
        // JSON escapes, a comment with non-ASCII text before, and `(...)` cut from both.
        let text = "{\"mcpServers\": {/* é */ \"g\": {\"includeTools\": [\"\\u0067it_log(n)\"], \"excludeTools\": [\"a\\\"b\"]}}}";
        let l = read(Format::Gemini, text).unwrap();
        let got: Vec<(&str, &str)> = l
            .iter()
            .map(|x| (x.value.as_str(), x.written.of(text)))
            .collect();
        assert_eq!(got, [("git_log", "\\u0067it_log"), ("a\"b", "a\\\"b")]);
    }

    #[test]
    fn hostile_input_is_an_error_or_nothing_never_a_panic() {
        let deep_json = format!(
            "{{\"mcpServers\": {}{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let deep_toml = format!("[mcp_servers.a]\nenabled_tools = {}\n", "[".repeat(100_000));
        let texts = [
            "",
            "\"",
            "{\"mcpServers\": {\"a\": {\"includeTools\": [\"x\\",
            "{\"mcpServers\": {\"a\": {\"includeTools\": [\"\\ud800\"]}}}",
            "{\"mcpServers\": {\"a\": {\"includeTools\": \"x\", \"alwaysAllow\": [[\"x\"]]}}}",
            "{\"mcp\": {\"a\": 1}, \"tools\": {\"a_*?\": 1, \"\": 2}, \"agent\": 3}",
            "/* never closed",
            "\u{feff}",
            "[mcp_servers.a]\nenabled_tools = [\"\"\"",
            "[mcp_servers.a]\ndisabled_tools = ['']\n[mcp_servers.a.tools.'']\n",
            &deep_json,
            &deep_toml,
        ];
        for text in texts {
            for format in [Format::Codex, Format::Gemini, Format::OpenCode, Format::Roo] {
                if let Ok(l) = read(format, text) {
                    assert!(l.iter().all(|x| text.get(x.written.range()).is_some()));
                }
            }
        }
    }

    #[test]
    fn what_cannot_be_read_is_named() {
        let text = r#"{"mcpServers": {"g": {"includeTools": ["a", 3], "excludeTools": "b"}}}"#;
        assert_eq!(
            unread(Format::Gemini, text),
            [
                "`mcpServers.g.includeTools[1]` is not a string",
                "`mcpServers.g.excludeTools` is not a list"
            ]
        );
        assert!(unread(Format::Roo, text).is_empty());
        let text = r#"{"tools": ["a"], "permission": "deny"}"#;
        assert_eq!(
            unread(Format::OpenCode, text),
            ["`tools` is not an object", "`permission` is not an object"]
        );
    }

    #[test]
    fn gemini_lists_with_an_argument_suffix() {
        let text = "{\"mcpServers\": {\"git\": {\"command\": \"x\", // c\n \"includeTools\": [\"git_log(x)\", 3], \"excludeTools\": [\"git_push\"]}}}";
        let l = read(Format::Gemini, text).unwrap();
        let w = written(text, &l);
        assert_eq!(w[0].1, "git_log");
        assert_eq!(w[1].1, "git_push");
        let e = read(Format::Gemini, "{\"mcpServers\": }").unwrap_err();
        assert!(e.starts_with("1:"), "{e}");
    }

    #[test]
    fn roo_code_lists() {
        let text = r#"{"mcpServers": {"db": {"command": "x", "alwaysAllow": ["query"], "disabledTools": ["drop(x)"]}}}"#;
        let l = read(Format::Roo, text).unwrap();
        let w = written(text, &l);
        // Only Gemini CLI's include list reads `(...)` as arguments.
        assert_eq!(w[0].1, "query");
        assert_eq!(w[1].1, "drop(x)");
    }

    #[test]
    fn opencode_keys_behind_a_server_name() {
        let text = r#"{"mcp": {"my.srv": {"type": "local", "command": ["x"]}, "my": {"type": "local", "command": ["y"]}},
            "tools": {"write": false, "my_srv_a": true, "my_*": false, "*": false},
            "permission": {"my*": "deny", "bash": {"*": "ask"}},
            "agent": {"r": {"tools": {"my_srv_b?": true}}}}"#;
        let l = read(Format::OpenCode, text).unwrap();
        let w = written(text, &l);
        assert_eq!(
            w,
            [
                ("my.srv".to_string(), "my_srv_a".to_string(), 7, false),
                ("my".to_string(), "my_*".to_string(), 3, true),
                ("my".to_string(), "my*".to_string(), 0, true),
                ("my.srv".to_string(), "my_srv_b?".to_string(), 7, true),
            ]
        );
    }

    #[test]
    fn globs_match_as_opencode_reads_them() {
        assert!(glob_matches("a_*", "a_b"));
        assert!(glob_matches("*_b", "a_b"));
        assert!(glob_matches("a?c", "abc"));
        assert!(glob_matches("a*b*c", "axxbyyc"));
        assert!(!glob_matches("a*b", "ac"));
        assert!(!glob_matches("a_?", "a_"));
        assert!(glob_matches("*", ""));
    }

    #[test]
    fn formats_by_path() {
        assert_eq!(format_of(".codex/config.toml"), Some(Format::Codex));
        assert_eq!(format_of("x/.gemini/settings.json"), Some(Format::Gemini));
        assert_eq!(
            format_of(".opencode/opencode.jsonc"),
            Some(Format::OpenCode)
        );
        assert_eq!(format_of(".roo/mcp.json"), Some(Format::Roo));
        assert_eq!(format_of("config.toml"), None);
        assert_eq!(format_of(".claude/settings.json"), None);
    }
}
