//! `tool-not-allowed`: an agent's body tells it to call a tool its own `tools:` list omits.

/// The stable name.
pub const NAME: &str = "tool-not-allowed";

/// One line.
pub const SUMMARY: &str = "the agent's `tools:` list does not grant a tool its body calls";

/// The explanation `toolgate explain tool-not-allowed` prints.
pub const EXPLANATION: &str = "# tool-not-allowed

## What it reports
An agent whose front matter restricts its tools, but whose body tells it to use a tool of a
configured server that the list leaves out. Two hosts restrict this way:
- a Claude Code subagent (`.claude/agents/*.md`, a plugin's `agents/*.md`): `tools:` is the
  complete list of tools it may use (omit the key to inherit every tool);
- a GitHub Copilot custom agent (`.github/agents/*.agent.md`): `tools:` lists the tools and
  tool sets it has.

`allowed-tools:` (skills, slash commands) is not a restriction: it pre-approves tools so the
host does not ask before using them, and every other tool stays available. It is never the
reason for this rule.

A list grants a tool by its full name (`mcp__github__get_me`, `github/get_me`), by a server
wildcard (`mcp__github__*`, `mcp__github`, `github/*`, `github`) or with `*`.

## Why it matters
The host never offers the agent the tool: the step that needs it cannot be carried out, and
the agent improvises or stops.

## Example
```text
---
name: triager
tools: Read, Grep, mcp__github__issue_read
---
Label the issue with mcp__github__issue_write(method=\"update\", labels=[\"bug\"]).
```

## How to fix it
Add the tool (or the server's wildcard) to `tools:`, or change the body so it does not need
the tool.
";

/// The message.
pub fn message(tool: &str, shown: &str) -> String {
    format!("`{shown}` is not in this agent's `tools:` list, so the host does not give it `{tool}`")
}
