//! `unknown-field`: a field the tool does not have.

/// The stable name.
pub const NAME: &str = "unknown-field";

/// One line.
pub const SUMMARY: &str = "a call passes a field the tool does not have";

/// The explanation `toolgate explain unknown-field` prints.
pub const EXPLANATION: &str = "# unknown-field

## What it reports
A field a call sets (`field=value`, `field: value`, `{ field: value }`, a `+params` item)
that the tool's input schema does not declare: no `properties` entry, no
`patternProperties`, no `$ref` or combinator (`allOf`/`anyOf`/`oneOf`/`if`/`then`/`else`)
branch names it. This holds whether or not the schema says `additionalProperties: false`;
only `additionalProperties: true`, or a schema for the other properties, keeps such a field
quiet. Typical causes: a field that was removed or renamed, another server's spelling
(`pull_number` for `pullNumber`, `q` for `query`), or a typo. When the catalog declares the
field's former name (`formerly.fields`), the message says what it is called now; otherwise
it suggests a declared field: a case or separator variant first, then the field the name
abbreviates, then the closest spelling.

Every pair of a call is checked, not only the last one.

## Why it matters
With `additionalProperties: false` the server rejects the whole call with a schema error.
Without it, JSON Schema lets the field through, but no server reads a field it does not
declare: Go servers and most Python ones drop it without a word, so what the agent meant to
set (the `labels` of a new issue) never happens, and nothing tells it so.

## Example
```text
memory_edges(op=\"create\", from_entity=\"<A>\", to_entity=\"<B>\", relation=\"uses\")
```
`memory_edges` takes `from` and `to`.

## How to fix it
Use the field's current name, or drop the pair.
";

/// The message for an unknown field; `ignored` when the schema does not refuse other
/// fields (no `additionalProperties: false`), so the server drops it without a word.
pub fn message(
    tool: &str,
    field: &str,
    renamed_to: Option<&str>,
    suggestion: Option<&str>,
    ignored: bool,
) -> String {
    let why = if ignored {
        ", so the server will not read it"
    } else {
        ""
    };
    match (renamed_to, suggestion) {
        (Some(new), _) => format!("`{tool}` has no field `{field}`: it was renamed to `{new}`"),
        (None, Some(s)) => format!("`{tool}` has no field `{field}`{why} (did you mean `{s}`?)"),
        (None, None) => format!("`{tool}` has no field `{field}`{why}"),
    }
}

/// `message` with the release the history says the field left in: "... it was renamed to
/// `new` in PKG V", or, with no successor, "...: it was removed in PKG V".
pub fn in_release(message: &str, renamed_to: Option<&str>, release: &str) -> String {
    match renamed_to {
        Some(_) => format!("{message} in {release}"),
        None => match message.split_once(" (did you mean") {
            Some((head, tail)) => {
                format!("{head}: it was removed in {release} (did you mean{tail}")
            }
            None => format!("{message}: it was removed in {release}"),
        },
    }
}
