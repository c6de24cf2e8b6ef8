//! The hosts a catalog is served to, and the limits each puts on a tool surface.
//!
//! [`HOSTS`] is the one table of them: per host the most tools one request may carry, the
//! prefix the host puts before a tool's name, the longest name it accepts (prefix included)
//! and the characters it accepts, each with the place it is written down. A limit no host
//! page or issue thread states is `None`: toolgate checks only what a host is known to
//! refuse, and says so (`toolgate explain host-limits`). The checks here take plain names and
//! counts; [`crate::cost`] runs them over a catalog's profiles.

use std::fmt::Write as _;

use crate::stacks::Stack;

/// A limit and where it is written down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cited<T> {
    /// The limit.
    pub value: T,
    /// Where it comes from: the host's documentation, or an issue thread of the host where
    /// that is the only record.
    pub source: &'static str,
}

/// The OpenAI API's tool count, for `openai` and `openai-strict` alike.
const OPENAI_MAX_TOOLS: Cited<usize> = Cited {
    value: 128,
    source: "OpenAI API reference, chat completions `tools`: \"A max of 128 functions are supported.\"",
};

/// The OpenAI API's name length, for `openai` and `openai-strict` alike.
const OPENAI_MAX_NAME: Cited<usize> = Cited {
    value: 64,
    source: "OpenAI API reference, function `name`: \"Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64.\"",
};

/// The characters a host accepts in a tool's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chars {
    /// `A-Z a-z 0-9 _ -` only: no `.` or `/` (the pattern `^[a-zA-Z0-9_-]+$`).
    Word,
    /// Gemini's function names: `A-Z a-z 0-9 _ . : -`, starting with a letter or `_`.
    Gemini,
}

impl Chars {
    /// The first character of `name` this rule refuses, if any.
    pub fn refused(self, name: &str) -> Option<char> {
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        match self {
            Chars::Word => name.chars().find(|&c| !word(c)),
            Chars::Gemini => {
                let first = name.chars().next()?;
                if !(first.is_ascii_alphabetic() || first == '_') {
                    return Some(first);
                }
                name.chars().find(|&c| !(word(c) || c == '.' || c == ':'))
            }
        }
    }

    /// The rule in words.
    pub fn describe(self) -> &'static str {
        match self {
            Chars::Word => "A-Z a-z 0-9 _ - (no `.`, no `/`)",
            Chars::Gemini => "A-Z a-z 0-9 _ . : -, first a letter or `_`",
        }
    }
}

/// One host and its limits.
#[derive(Clone, Copy, Debug)]
pub struct Host {
    /// The stable id used in `profiles.json` (`hosts`) and `--host`.
    pub id: &'static str,
    /// Its name.
    pub name: &'static str,
    /// The most tools one request (one session) may carry.
    pub max_tools: Option<Cited<usize>>,
    /// What the host puts before a tool's name, `{server}` standing for the server's name
    /// (with every character outside `A-Z a-z 0-9 _ -` made `_`).
    pub prefix: Option<Cited<&'static str>>,
    /// The longest name accepted, the prefix included.
    pub max_name: Option<Cited<usize>>,
    /// The characters accepted in a name.
    pub chars: Option<Cited<Chars>>,
    /// What the host documents nothing about, or does itself (a name it rewrites).
    pub note: &'static str,
    /// The model of what the host's client stack does with a tool's input schema
    /// ([`crate::stacks`]), for the hosts that have one.
    pub schema: Option<Stack>,
}

const CLAUDE_NAMES: &str = "anthropics/claude-code#2326 and #2445 (\"tools.N.custom.name: String should have at most 64 characters\" for an `mcp__SERVER__tool` name); the Claude API's tool `name` pattern `^[a-zA-Z0-9_-]{1,64}$` (Messages API reference, tools[].name)";

/// The hosts' limits, one row per host: the only place they are written in the code.
pub const HOSTS: &[Host] = &[
    Host {
        id: "claude-code",
        name: "Claude Code",
        max_tools: None,
        prefix: Some(Cited {
            value: "mcp__{server}__",
            source: "Claude Code docs, MCP and permissions (tools are named `mcp__<server>__<tool>`; characters outside A-Z a-z 0-9 _ - in the server name become `_`)",
        }),
        max_name: Some(Cited {
            value: 64,
            source: CLAUDE_NAMES,
        }),
        chars: Some(Cited {
            value: Chars::Word,
            source: "anthropics/claude-code#2257 (a `/` in a tool name: \"String should match pattern '^[a-zA-Z0-9_-]{1,64}$'\"; the check is the Claude API's)",
        }),
        note: "No tool count is documented (Claude Code defers MCP tools behind a tool search when they are many).",
        schema: None,
    },
    Host {
        id: "vscode",
        name: "VS Code (GitHub Copilot Chat)",
        max_tools: Some(Cited {
            value: 128,
            source: "microsoft/vscode#258890 and microsoft/vscode-copilot-release#11653 (\"Cannot have more than 128 tools per request.\", thrown by Copilot Chat when `tools.length > 128`)",
        }),
        prefix: None,
        max_name: None,
        chars: None,
        note: "Names with `.` get a warning (\"Tools names may only contain [a-z0-9_-]\") and are remapped, not refused (github/copilot-cli#2581); no name length is documented.",
        schema: None,
    },
    Host {
        id: "cursor",
        name: "Cursor",
        max_tools: Some(Cited {
            value: 40,
            source: "Cursor docs, Model Context Protocol, Limitations (\"Currently, Cursor will only send the first 40 tools to the Agent.\", quoted in bun913/mcp-testrail#6 and RyanCardin15/AzureDevOps-MCP#8); later versions warn at 80 (Snowflake-Labs/mcp#77)",
        }),
        prefix: None,
        max_name: None,
        chars: None,
        note: "Tools past the limit are dropped, not refused. No name length or character rule is documented (a tutorial's \"server name + tool name <= 60\" is not in Cursor's docs).",
        schema: None,
    },
    Host {
        id: "windsurf",
        name: "Windsurf (Cascade)",
        max_tools: Some(Cited {
            value: 100,
            source: "Windsurf docs, Cascade > Model Context Protocol (\"Cascade has a limit of 100 total tools\", as quoted by desplega.ai's deep dive of that page)",
        }),
        prefix: None,
        max_name: None,
        chars: None,
        note: "No name length or character rule is documented.",
        schema: None,
    },
    Host {
        id: "openai",
        name: "OpenAI API (function tools)",
        max_tools: Some(OPENAI_MAX_TOOLS),
        prefix: None,
        max_name: Some(OPENAI_MAX_NAME),
        chars: Some(Cited {
            value: Chars::Word,
            source: "OpenAI API reference, function `name` (as above); openai/codex#8174 (\"Invalid 'tools[48].name': ... '^[a-zA-Z0-9_-]+$'\" for a dotted MCP name)",
        }),
        note: "The API adds no prefix; a client that does (Codex: `mcp__server__tool`) counts it in the 64.",
        schema: None,
    },
    Host {
        id: "gemini",
        name: "Gemini API (function declarations)",
        max_tools: Some(Cited {
            value: 512,
            source: "google-gemini/gemini-cli#19083 (the API's \"At most 512 function declarations can be specified.\")",
        }),
        prefix: None,
        max_name: Some(Cited {
            value: 64,
            source: "google-gemini/gemini-cli#12425 (the API's \"Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots and dashes, with a maximum length of 64.\")",
        }),
        chars: Some(Cited {
            value: Chars::Gemini,
            source: "google-gemini/gemini-cli#12425 (as above); kaitranntt/ccs#25 (the same message naming colons)",
        }),
        note: "Gemini CLI rewrites names that break these rules (google-gemini/gemini-cli#602); the API refuses them.",
        schema: None,
    },
    Host {
        id: "copilot-cli",
        name: "GitHub Copilot CLI",
        max_tools: None,
        prefix: None,
        max_name: Some(Cited {
            value: 128,
            source: "github/copilot-cli#1879 and #454 (\"tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'\")",
        }),
        chars: Some(Cited {
            value: Chars::Word,
            source: "github/copilot-cli#1879 (`.` and `/` in MCP tool names fail every prompt) and #2581 (dots: 400 Bad Request)",
        }),
        note: "No tool count is documented; the prefix it adds, if any, is not (the 128 is checked on the name alone).",
        schema: None,
    },
    Host {
        id: "openai-strict",
        name: "OpenAI strict function calling (OpenAI Agents SDK, MCP tools with convert_schemas_to_strict)",
        max_tools: Some(OPENAI_MAX_TOOLS),
        prefix: None,
        max_name: Some(OPENAI_MAX_NAME),
        chars: Some(Cited {
            value: Chars::Word,
            source: "OpenAI API reference, function `name` (as above)",
        }),
        note: "A schema strict mode cannot hold is not refused by the SDK: the tool is served non-strict (the model's arguments are then not held to the schema), logged at info level only.",
        schema: Some(Stack::OpenAiStrict),
    },
    Host {
        id: "gemini-schema",
        name: "Gemini `parameters` (the google-genai `Schema` subset, as the Google SDKs, LangChain, LiteLLM and ADK convert)",
        max_tools: Some(Cited {
            value: 512,
            source: "google-gemini/gemini-cli#19083 (the API's \"At most 512 function declarations can be specified.\")",
        }),
        prefix: None,
        max_name: Some(Cited {
            value: 64,
            source: "google-gemini/gemini-cli#12425 (the API's function name rule, as for `gemini`)",
        }),
        chars: Some(Cited {
            value: Chars::Gemini,
            source: "google-gemini/gemini-cli#12425 (as for `gemini`)",
        }),
        note: "Gemini CLI itself sends `parametersJsonSchema` (host `gemini`); this id is for the stacks that convert to `Schema`.",
        schema: Some(Stack::GeminiSchema),
    },
    Host {
        id: "anthropic-strict",
        name: "Claude strict tool use (the Anthropic SDK's transform_schema)",
        max_tools: None,
        prefix: None,
        max_name: Some(Cited {
            value: 64,
            source: "the Claude API's tool `name` pattern `^[a-zA-Z0-9_-]{1,64}$` (Messages API reference, tools[].name)",
        }),
        chars: Some(Cited {
            value: Chars::Word,
            source: "the Claude API's tool `name` pattern (as above)",
        }),
        note: "No tool count is documented. What transform_schema does not support it writes into the description, where no validator reads it.",
        schema: Some(Stack::AnthropicStrict),
    },
];

/// The host whose id is `id`.
pub fn host(id: &str) -> Option<&'static Host> {
    HOSTS.iter().find(|h| h.id == id)
}

/// Every host id, in table order.
pub fn ids() -> Vec<&'static str> {
    HOSTS.iter().map(|h| h.id).collect()
}

/// A server name as a prefix carries it: every character outside `A-Z a-z 0-9 _ -` is `_`.
fn prefix_server(server: &str) -> String {
    server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl Host {
    /// The name `tool` has on this host when served by `server`.
    pub fn full_name(&self, server: &str, tool: &str) -> String {
        match &self.prefix {
            Some(p) => format!(
                "{}{tool}",
                p.value.replace("{server}", &prefix_server(server))
            ),
            None => tool.to_string(),
        }
    }
}

/// A limit of a host that a surface breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    /// The host's id.
    pub host: &'static str,
    /// Which limit: `max-tools`, `name-length` or `name-characters`.
    pub limit: &'static str,
    /// The profiles concerned (one for a count; those served the tool for a name).
    pub profiles: Vec<String>,
    /// The tool concerned (for a count, [`crate::cost::check`] sets the costliest one).
    pub tool: Option<String>,
    /// The whole message.
    pub message: String,
}

/// The count limit of `host` against `count` tools served to `profile`.
pub fn check_count(host: &Host, profile: &str, count: usize) -> Option<Broken> {
    let max = host.max_tools?;
    (count > max.value).then(|| Broken {
        host: host.id,
        limit: "max-tools",
        profiles: vec![profile.to_string()],
        tool: None,
        message: format!(
            "host `{}` limit max-tools ({} tools per request): profile `{profile}` serves {count} tools, {} too many (source: {})",
            host.id,
            max.value,
            count - max.value,
            max.source
        ),
    })
}

/// The name limits of `host` against `tool`, served by `server` to `profiles`.
pub fn check_name(host: &Host, server: &str, tool: &str, profiles: &[String]) -> Vec<Broken> {
    let mut out = Vec::new();
    let full = host.full_name(server, tool);
    let served = profiles
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let what = if profiles.len() == 1 {
        format!("profile {served}")
    } else {
        format!("profiles {served}")
    };
    if let Some(max) = host.max_name {
        let len = full.chars().count();
        if len > max.value {
            let with = match host.prefix {
                Some(_) => format!(" as `{full}`"),
                None => String::new(),
            };
            out.push(Broken {
                host: host.id,
                limit: "name-length",
                profiles: profiles.to_vec(),
                tool: Some(tool.to_string()),
                message: format!(
                    "host `{}` limit name-length ({} characters{}): tool `{tool}` ({what}) is {len} characters{with} (source: {})",
                    host.id,
                    max.value,
                    if host.prefix.is_some() { ", its prefix included" } else { "" },
                    max.source
                ),
            });
        }
    }
    if let Some(rule) = host.chars
        && let Some(c) = rule.value.refused(tool)
    {
        out.push(Broken {
            host: host.id,
            limit: "name-characters",
            profiles: profiles.to_vec(),
            tool: Some(tool.to_string()),
            message: format!(
                "host `{}` limit name-characters ({}): tool `{tool}` ({what}) holds `{c}` (source: {})",
                host.id,
                rule.value.describe(),
                rule.source
            ),
        });
    }
    out
}

/// The table as `toolgate explain host-limits` prints it.
pub fn explain() -> String {
    let mut s = String::from(
        "The limits hosts put on the tools they are served, as `toolgate check` applies them\n\
         (`hosts` in profiles.json, or `check --host ID`). `-` is a limit the host documents\n\
         nothing about: it is not checked. `input schemas` is what the host's client stack\n\
         does with a tool's input schema, read from its own code (docs/hosts.md): `check\n\
         --host ID` reports it per tool and path, `tools-list --host ID` serves what it accepts.\n",
    );
    for h in HOSTS {
        let _ = writeln!(s, "\n{} ({})", h.id, h.name);
        let line = |s: &mut String, what: &str, value: Option<(String, &str)>| match value {
            Some((v, src)) => {
                let _ = writeln!(s, "  {what:<16}{v}\n  {:<16}source: {src}", "");
            }
            None => {
                let _ = writeln!(s, "  {what:<16}-");
            }
        };
        line(
            &mut s,
            "max tools",
            h.max_tools.map(|c| (c.value.to_string(), c.source)),
        );
        line(
            &mut s,
            "name prefix",
            h.prefix.map(|c| (format!("`{}`", c.value), c.source)),
        );
        line(
            &mut s,
            "max name length",
            h.max_name.map(|c| (c.value.to_string(), c.source)),
        );
        line(
            &mut s,
            "name characters",
            h.chars.map(|c| (c.value.describe().to_string(), c.source)),
        );
        let _ = writeln!(s, "  {:<16}{}", "note", h.note);
        if let Some(stack) = h.schema {
            let _ = writeln!(
                s,
                "  {:<16}{}\n  {:<16}source: {}",
                "input schemas",
                stack.summary(),
                "",
                stack.source()
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profiles() -> Vec<String> {
        vec!["all".to_string()]
    }

    #[test]
    fn every_required_host_is_in_the_table_once() {
        for id in [
            "claude-code",
            "vscode",
            "cursor",
            "windsurf",
            "openai",
            "gemini",
            "copilot-cli",
            "openai-strict",
            "gemini-schema",
            "anthropic-strict",
        ] {
            assert_eq!(HOSTS.iter().filter(|h| h.id == id).count(), 1, "{id}");
        }
    }

    #[test]
    fn a_count_fails_one_past_the_limit_only() {
        let vscode = host("vscode").unwrap();
        assert_eq!(check_count(vscode, "all", 128), None);
        let b = check_count(vscode, "all", 129).unwrap();
        assert_eq!((b.host, b.limit), ("vscode", "max-tools"));
        assert!(
            b.message.contains("profile `all` serves 129 tools"),
            "{}",
            b.message
        );
    }

    #[test]
    fn claude_code_counts_its_prefix_with_the_server_name_sanitized() {
        let claude = host("claude-code").unwrap();
        assert_eq!(
            claude.full_name("github.enterprise", "get_me"),
            "mcp__github_enterprise__get_me"
        );
        // 40 characters: 64 with `mcp__github-enterprise__` (24) is exactly the limit.
        let tool = "a".repeat(40);
        assert!(check_name(claude, "github-enterprise", &tool, &profiles()).is_empty());
        let tool = "a".repeat(41);
        let broken = check_name(claude, "github-enterprise", &tool, &profiles());
        assert_eq!(broken.len(), 1);
        assert_eq!(broken[0].limit, "name-length");
        assert!(
            broken[0].message.contains("65 characters"),
            "{}",
            broken[0].message
        );
    }

    #[test]
    fn characters_by_rule() {
        assert_eq!(Chars::Word.refused("get_me-2"), None);
        assert_eq!(Chars::Word.refused("admin.tools.list"), Some('.'));
        assert_eq!(Chars::Word.refused("user/update"), Some('/'));
        assert_eq!(Chars::Gemini.refused("admin.tools:list"), None);
        assert_eq!(Chars::Gemini.refused("2fa"), Some('2'));
        assert_eq!(Chars::Gemini.refused("a/b"), Some('/'));
    }

    #[test]
    fn every_limit_has_a_source() {
        for h in HOSTS {
            for src in [
                h.max_tools.map(|c| c.source),
                h.prefix.map(|c| c.source),
                h.max_name.map(|c| c.source),
                h.chars.map(|c| c.source),
            ]
            .into_iter()
            .flatten()
            {
                assert!(!src.trim().is_empty(), "{}", h.id);
            }
            assert!(!h.note.is_empty(), "{}", h.id);
        }
        assert!(explain().contains("copilot-cli"));
    }
}
