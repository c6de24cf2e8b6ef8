//! `invalid-value`: a string that is not one of the field's allowed values.

/// The stable name.
pub const NAME: &str = "invalid-value";

/// One line.
pub const SUMMARY: &str = "a string value is not one of the field's allowed values";

/// The explanation `toolgate explain invalid-value` prints.
pub const EXPLANATION: &str = "# invalid-value

## What it reports
A string literal for a field whose schema lists its allowed values (a JSON Schema `enum`),
when the literal is none of them. Each alternative of `\"a\"|\"b\"` is checked on its own, and
so is every pair of a call. Placeholders (`\"<...>\"`, `\"...\"`, `<name>`) are never values and
are not checked. When the catalog declares that the value was renamed (`formerly.values`), the
message names the new value.

## Why it matters
The server refuses the call; an agent that copies it from the skill fails.

## Example
```text
submit_outcome(action=\"merged\")      # implement allows submitted, declined, approved, discuss, rejected
```

## How to fix it
Use one of the listed values.
";

/// The message for a value outside the enum.
pub fn message(
    tool: &str,
    field: &str,
    value: &str,
    allowed: &[String],
    renamed_to: Option<&str>,
) -> String {
    match renamed_to {
        Some(new) => format!(
            "`{value}` is no longer a value of `{field}` of `{tool}`: it was renamed to `{new}`"
        ),
        None => format!(
            "`{value}` is not a valid `{field}` for `{tool}`; allowed: {}",
            super::code_list(allowed)
        ),
    }
}
