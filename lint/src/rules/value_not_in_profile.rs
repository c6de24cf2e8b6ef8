//! `value-not-in-profile`: valid for some profile, not for any of the skill's.

/// The stable name.
pub const NAME: &str = "value-not-in-profile";

/// One line.
pub const SUMMARY: &str = "a value or field is valid for another profile, not for the skill's";

/// The explanation `toolgate explain value-not-in-profile` prints.
pub const EXPLANATION: &str = "# value-not-in-profile

## What it reports
A value, or a field, that the tool accepts for some profile but for none of the skill's
profiles. This happens where a tool's schema varies by profile (tatara's `submit_outcome` has
one variant per agent kind) and where a profile's cell is restricted (tatara's refine profile
may only send `mr_write(action=\"comment\")`). A manifest that lists the union of every
profile's values cannot see this; the lint checks each profile's own schema.

It is also reported when every pair of a call is valid for one of the skill's profiles, but no
single profile accepts the whole call.

## Why it matters
The server of the skill's profile refuses the call.

## Example
```text
---
profiles: [\"refine\"]
---
mr_write(action=\"open\", repo=\"docs\")     # refine may only comment
```

## How to fix it
Use a value the skill's profile may send, or move the call to a skill of a profile that may.
";

/// The message for a value.
pub fn value_message(
    tool: &str,
    field: &str,
    value: &str,
    profiles: &[String],
    allowed_here: &[String],
    allowed_for: &[String],
) -> String {
    let here = if allowed_here.is_empty() {
        String::new()
    } else {
        format!(" (allowed there: {})", super::code_list(allowed_here))
    };
    format!(
        "`{field}=\"{value}\"` of `{tool}` is not allowed for {}{here}; it is for {}",
        super::profiles_phrase(profiles),
        allowed_for.join(", ")
    )
}

/// The message for a field of another profile's schema.
pub fn field_message(
    tool: &str,
    field: &str,
    profiles: &[String],
    allowed_for: &[String],
) -> String {
    let (whose, verb) = if allowed_for.len() == 1 {
        ("profile", "has")
    } else {
        ("profiles", "have")
    };
    format!(
        "`{tool}` has no field `{field}` for {}; only {whose} {} {verb} it",
        super::profiles_phrase(profiles),
        allowed_for.join(", ")
    )
}

/// The message for a call no single profile can make.
pub fn mixed_message(tool: &str, profiles: &[String]) -> String {
    format!(
        "no single profile of this skill can make this `{tool}` call: each of its pairs is valid for one of {}, but not all for the same one",
        super::profiles_phrase(profiles)
    )
}
