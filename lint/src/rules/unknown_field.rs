//! `unknown-field`: a field the tool does not have.

/// The stable name.
pub const NAME: &str = "unknown-field";

/// One line.
pub const SUMMARY: &str = "a call passes a field the tool does not have";

/// The explanation `toolgate explain unknown-field` prints.
pub const EXPLANATION: &str = "# unknown-field

## What it reports
A `field=value` pair whose field the tool's input schema does not declare, for a tool whose
schema refuses other properties (`additionalProperties: false`). Typical causes: a field that
was removed or renamed, or a typo. When the catalog declares the field's former name
(`formerly.fields`), the message says what it is called now; otherwise it suggests the closest
field of the tool.

Every pair of a call is checked, not only the last one.

## Why it matters
The server rejects the whole call with a schema error, so an agent that follows the skill
fails at run time.

## Example
```text
memory_edges(op=\"create\", from_entity=\"<A>\", to_entity=\"<B>\", relation=\"uses\")
```
`memory_edges` takes `from` and `to`.

## How to fix it
Use the field's current name, or drop the pair.
";

/// The message for an unknown field.
pub fn message(
    tool: &str,
    field: &str,
    renamed_to: Option<&str>,
    suggestion: Option<&str>,
) -> String {
    match (renamed_to, suggestion) {
        (Some(new), _) => format!("`{tool}` has no field `{field}`: it was renamed to `{new}`"),
        (None, Some(s)) => format!("`{tool}` has no field `{field}` (did you mean `{s}`?)"),
        (None, None) => format!("`{tool}` has no field `{field}`"),
    }
}
