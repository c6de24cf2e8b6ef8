//! `wrong-type`: a literal of the wrong JSON type.

/// The stable name.
pub const NAME: &str = "wrong-type";

/// One line.
pub const SUMMARY: &str = "a literal has the wrong type for its field";

/// The explanation `toolgate explain wrong-type` prints.
pub const EXPLANATION: &str = "# wrong-type

## What it reports
A literal whose JSON type the field does not accept: a quoted string for an integer or
boolean field, a number or boolean for a string field, a fraction for an integer, a list for a
string. Bare words (`kind=comments`), expressions and placeholders are not literals and are
not checked.

## Why it matters
MCP arguments are JSON: `number=\"42\"` is a string, and a server whose schema says
`integer` refuses it.

## Example
```text
mr_write(action=\"comment\", number=\"42\")
```

## How to fix it
Write the literal in the field's type: `number=42`.
";

/// The message for a literal of the wrong type.
pub fn message(tool: &str, field: &str, expected: &[&str], found: &str) -> String {
    format!(
        "`{field}` of `{tool}` takes {}, not {found}",
        expected
            .iter()
            .map(|t| article(t))
            .collect::<Vec<_>>()
            .join(" or ")
    )
}

fn article(ty: &str) -> String {
    match ty {
        "integer" => "an integer".to_string(),
        "array" => "a list".to_string(),
        "object" => "an object".to_string(),
        other => format!("a {other}"),
    }
}
