//! `unknown-tool`: a call to a tool the surface does not have.

/// The stable name.
pub const NAME: &str = "unknown-tool";

/// One line.
pub const SUMMARY: &str = "a call names a tool the surface does not have";

/// The explanation `toolgate explain unknown-tool` prints.
pub const EXPLANATION: &str = "# unknown-tool

## What it reports
A call, such as `review_verdict(decision=\"approve\")`, to a tool that the surface (the
catalog or manifest the lint was given) does not have: a tool that was removed, renamed, or
misspelt. When the catalog declares the tool's former name (`formerly.names`), the message says
what it was renamed to; otherwise it suggests the closest known name.

A known tool's name is checked wherever it is written. An unknown name is only taken for a
call when it is written as code (a fenced or indented block, or a code span) and all of its
arguments are `name=literal` pairs, so that JavaScript or Python samples in a skill
(`for (let i = 0; ...)`, `print(\"ci=\" + x)`) are not mistaken for tool calls.

## Why it matters
An agent that follows the skill calls a tool its server does not serve, and the turn fails.
A line that forbids the call (\"do not call ...\") does not excuse it: the skill still names a
tool that is gone.

## Example
```text
memory_search(q=\"auth\")      # no such tool
```

## How to fix it
Use the tool the surface has now (`memory_query(...)`), or remove the call.
";

/// The message for a former name: "unknown tool `get_issue`: it was renamed to `issue_read`
/// (method="get")", with " in PKG V" when the history knows the release that renamed it.
pub fn renamed_in(
    tool: &str,
    new: &str,
    set: &[(String, String)],
    release: Option<&str>,
) -> String {
    let mut out = format!("unknown tool `{tool}`: it was renamed to `{new}`");
    if !set.is_empty() {
        let pairs: Vec<String> = set.iter().map(|(k, v)| format!("{k}={v}")).collect();
        out.push_str(&format!(" ({})", pairs.join(", ")));
    }
    if let Some(r) = release {
        out.push_str(&format!(" in {r}"));
    }
    out
}

/// The message for a removed tool, with the release that removed it when the history
/// knows it.
pub fn removed_in(tool: &str, release: Option<&str>) -> String {
    match release {
        Some(r) => format!("unknown tool `{tool}`: it was removed in {r}, with no replacement"),
        None => {
            format!("unknown tool `{tool}`: it was removed from the server, with no replacement")
        }
    }
}

/// The message for a pattern in a host's tool list (opencode's `tools` map) that selects
/// none of its server's tools.
pub fn pattern_matches_none(pattern: &str, server: &str) -> String {
    format!("`{pattern}` matches none of the tools of the server `{server}`")
}

/// The message for an unknown tool.
pub fn message(tool: &str, renamed_to: Option<&str>, suggestion: Option<&str>) -> String {
    match (renamed_to, suggestion) {
        (Some(new), _) => format!("unknown tool `{tool}`: it was renamed to `{new}`"),
        (None, Some(s)) => format!("unknown tool `{tool}` (did you mean `{s}`?)"),
        (None, None) => format!("unknown tool `{tool}`"),
    }
}
