//! `too-many-tools`: an agent's front matter `tools:` list selects more tools than its host
//! accepts in one request.
//!
//! The host is known from where the file lives (`.claude/agents/` is Claude Code;
//! `.github/agents/*.agent.md` and chat modes are VS Code), and its limit comes from the one
//! table of host limits, `toolgate_schema::hosts::HOSTS`. What a list selects is counted as
//! the lint's `tool-not-allowed` reads a list: each tool of a configured server the list
//! grants (a full name, a server wildcard, `*`), plus one for each entry that names no
//! configured server's tool (a host's own tool, or a tool set, which is at least one).

use toolgate_schema::hosts::{self, Host};

use crate::rules::Problem;
use crate::rules::Rule;
use crate::text::Span;
use crate::toollist::{self, ListKey};

/// The stable name.
pub const NAME: &str = "too-many-tools";

/// One line.
pub const SUMMARY: &str = "the agent's `tools:` list selects more tools than its host accepts";

/// The explanation `toolgate explain too-many-tools` prints.
pub const EXPLANATION: &str = "# too-many-tools

## What it reports
An agent whose front matter `tools:` list selects more tools than the host that runs it
accepts in one request. The host is known from where the file lives:
- `.github/agents/*.agent.md` and chat modes (`*.chatmode.md`, `.github/chatmodes/`) run
  in VS Code, which refuses a request of more than 128 tools (\"Cannot have more than 128
  tools per request.\");
- `.claude/agents/*.md` runs in Claude Code, which documents no tool count: the rule never
  fires there.

A list selects every tool of a configured server it grants (`mcp__github__*`, `github/*`,
`github`, `*`), each tool it names, and at least one tool for each other entry (a host's own
tool or a tool set). `toolgate explain host-limits` prints the hosts' limits and their
sources.

## Why it matters
The host refuses the request, or drops the tools past its limit: the agent fails on its
first message, or cannot see tools its body relies on.

## Example
```text
---
name: reviewer
tools: ['github/*', 'playwright/*', 'codebase']
---
```
with a github server of 117 tools and a playwright server of 21: 139 tools for a host that
takes 128.

## How to fix it
Name the tools the agent needs instead of whole servers, or serve it a smaller profile.
";

/// The host that runs the agent file at `path` and the limit it checks, if one.
pub fn host_of(path: &str) -> Option<&'static Host> {
    let p = path.replace('\\', "/");
    let vscode = p.ends_with(".agent.md")
        || p.ends_with(".chatmode.md")
        || p.contains(".github/agents/")
        || p.contains(".github/chatmodes/");
    if vscode {
        return hosts::host("vscode");
    }
    if p.contains(".claude/agents/") {
        return hosts::host("claude-code");
    }
    None
}

/// The message.
pub fn message(host: &Host, selected: usize, max: usize) -> String {
    format!(
        "this `tools:` list selects {selected} tools, but {} ({}) accepts at most {max} per request",
        host.name, host.id
    )
}

/// The `too-many-tools` problems of the front matter at `yaml` in `text`, for an agent of
/// `host`: `servers` servers whose tool names `tools(i)` gives, `allows(entries, i, tool)`
/// saying whether a list grants tool `tool` of server `i`.
pub fn check<'a, I>(
    text: &str,
    yaml: Span,
    host: &Host,
    servers: usize,
    tools: impl Fn(usize) -> I,
    allows: impl Fn(&[(String, Span)], usize, &str) -> bool,
) -> Vec<(Problem, Span)>
where
    I: Iterator<Item = &'a str>,
{
    let Some(max) = host.max_tools else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for list in toollist::read(text, yaml) {
        if list.key != ListKey::Tools || list.entries.is_empty() {
            continue;
        }
        let mut selected = 0;
        for si in 0..servers {
            selected += tools(si).filter(|t| allows(&list.entries, si, t)).count();
        }
        // An entry granting no configured server's tool is a host tool or a tool set.
        for entry in &list.entries {
            let one = std::slice::from_ref(entry);
            if !(0..servers).any(|si| tools(si).any(|t| allows(one, si, t))) {
                selected += 1;
            }
        }
        if selected <= max.value {
            continue;
        }
        let first = list.entries[0].1;
        let last = list.entries[list.entries.len() - 1].1;
        let span = Span::new(first.start, last.end.max(first.start));
        out.push((
            Problem {
                rule: Rule::TooManyTools,
                span,
                message: message(host, selected, max.value),
                tool: None,
                field: None,
                value: None,
                suggestion: Some(format!("limit source: {}", max.source)),
                fix: None,
            },
            span,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_from_paths() {
        assert_eq!(
            host_of(".github/agents/review.agent.md").map(|h| h.id),
            Some("vscode")
        );
        assert_eq!(
            host_of(".github/chatmodes/plan.chatmode.md").map(|h| h.id),
            Some("vscode")
        );
        assert_eq!(
            host_of("x/.claude/agents/a.md").map(|h| h.id),
            Some("claude-code")
        );
        assert!(host_of("skills/a/SKILL.md").is_none());
    }

    fn run(list: &str, tools: usize) -> Vec<(Problem, Span)> {
        let text = format!("---\nname: a\ntools: {list}\n---\nbody\n");
        let yaml = Span::new(4, text.find("\n---\nbody").unwrap());
        let names: Vec<String> = (0..tools).map(|i| format!("t{i:03}")).collect();
        let vscode = hosts::host("vscode").unwrap();
        check(
            &text,
            yaml,
            vscode,
            1,
            |_| names.iter().map(String::as_str),
            |entries, _, tool| {
                entries
                    .iter()
                    .any(|(e, _)| e == "gh/*" || e.strip_prefix("gh/") == Some(tool))
            },
        )
    }

    #[test]
    fn a_wildcard_over_the_limit_fails_and_at_the_limit_passes() {
        // 127 tools of the server and one host tool: 128, the limit.
        assert!(run("['gh/*', 'codebase']", 127).is_empty());
        // 128 and one host tool: 129.
        let p = run("['gh/*', 'codebase']", 128);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].0.rule, Rule::TooManyTools);
        assert!(
            p[0].0.message.contains("selects 129 tools"),
            "{}",
            p[0].0.message
        );
        assert!(p[0].0.message.contains("at most 128"), "{}", p[0].0.message);
        // Naming two tools of the big server selects two.
        assert!(run("['gh/t001', 'gh/t002']", 300).is_empty());
    }
}
