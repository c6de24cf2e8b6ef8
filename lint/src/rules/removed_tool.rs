//! `removed-tool`: a tool name the server had before and removed with no successor.

/// The stable name.
pub const NAME: &str = "removed-tool";

/// One line.
pub const SUMMARY: &str = "a reference names a tool the server has removed";

/// The explanation `toolgate explain removed-tool` prints.
pub const EXPLANATION: &str = "# removed-tool

## What it reports
A tool name, wherever the lint reads tool names, that the server once served and has since
removed with nothing in its place: declared in `toolgate.toml` (`removed`), or learned from
the server's history (`toolgate lock --history`), where the message names the package version
that removed it. A tool that left while another arrived is `renamed-tool` only when the
evidence agrees; an ambiguous departure is a removal, never a guess.

## Why it matters
The agent calls or is granted a tool that no longer exists.

## Example
```text
allowed-tools: [mcp__memory__open_nodes_v0]
```

## How to fix it
Drop the reference, or rewrite the step with the tools the server has now.
";
