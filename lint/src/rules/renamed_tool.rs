//! `renamed-tool`: a tool name the server had before, with the tool that took its place.

/// The stable name.
pub const NAME: &str = "renamed-tool";

/// One line.
pub const SUMMARY: &str = "a reference names a tool by a name the server has since renamed";

/// The explanation `toolgate explain renamed-tool` prints.
pub const EXPLANATION: &str = "# renamed-tool

## What it reports
A tool name, in a call, a `tools:` or `allowed-tools:` list, a settings file's permissions, a
table or a code span, that the server served once under that name and serves today under
another. The rename is known from the catalog or `toolgate.toml` (`formerly`), or from the
server's history (`toolgate lock --history`, `toolgate.history.json`): a tool that left in a
published version while another with the same fields and description arrived in it, or
several tools merged into one whose enum argument takes their names. The message names the
successor and, for a rename learned from the history, the package version that made it; the
finding's `suggestion` is the successor, with the argument a merge needs
(`projects_get(method=\"get_project\")`).

## Why it matters
An agent that follows the file calls, or is granted, a tool the server no longer has: the
call fails, or the permission silently grants nothing.

## Example
```text
read_graph()           # renamed in a later release
```

## How to fix it
Use the successor. `toolgate lint --fix` rewrites the name (and adds the argument a merge
sets) when the rename is unambiguous and every other field of the call exists in the
successor; otherwise it leaves the line and the message says why.
";
