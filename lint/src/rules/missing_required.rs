//! `missing-required`: a call that sets fields but leaves out one the tool requires.

/// The stable name.
pub const NAME: &str = "missing-required";

/// One line.
pub const SUMMARY: &str = "a call sets fields but omits one the tool requires";

/// The explanation `toolgate explain missing-required` prints.
pub const EXPLANATION: &str = "# missing-required

## What it reports
A call written in full call syntax, `tool(field=value, ...)` or `tool({ field: value })`,
that sets at least one field and leaves out a field the tool's input schema lists in
`required`. A call that says it is not complete is left alone: one with `...` (or `…`)
among its arguments or in a value, a placeholder value (`<id>`), a positional argument, or
no field at all (`tool()` names the tool rather than showing a call).

## Why it matters
The server refuses the call with a schema error, so an agent that copies it fails at run
time, or, worse, guesses the missing value.

## Example
```text
merge_pull_request(owner=\"acme\", repo=\"web\", merge_method=\"squash\")
```
`merge_pull_request` requires `pullNumber`.

## How to fix it
Add the field, or write `...` to show the call is abridged.
";

/// The message for a call missing required fields.
pub fn message(tool: &str, missing: &[&str]) -> String {
    let list = super::code_list(missing);
    let what = if missing.len() == 1 {
        "field"
    } else {
        "fields"
    };
    format!("`{tool}` requires {what} {list}, which this call does not set")
}
