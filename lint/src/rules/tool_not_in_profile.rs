//! `tool-not-in-profile`: a tool none of the skill's profiles is served.

/// The stable name.
pub const NAME: &str = "tool-not-in-profile";

/// One line.
pub const SUMMARY: &str = "the skill's profiles are not served the tool";

/// The explanation `toolgate explain tool-not-in-profile` prints.
pub const EXPLANATION: &str = "# tool-not-in-profile

## What it reports
A call to a tool that exists, but that none of the skill's profiles is served. A skill's
profiles come from its front matter (`profiles: [\"implement\", \"refine\"]`, or
`profile: review`), else from the `[profiles]` path mapping of `toolgate.toml`, else they are
all the profiles. A skill may serve several profiles: the call is reported only when none of
them sees the tool.

The call's fields and values are still checked against every profile's schema.

## Why it matters
An agent of that profile does not see the tool in its `tools/list`; a call to it is answered
like a call to an unknown tool.

## Example
```text
---
profiles: [\"review\"]
---
memory_edges(op=\"list\")        # served to incident and documentation only
```

## How to fix it
Remove the call from this skill, move it to a skill of a profile that has the tool, or add the
profile to the skill's front matter if the skill really serves it.
";

/// The message.
pub fn message(tool: &str, profiles: &[String], served_to: &[String]) -> String {
    if served_to.is_empty() {
        format!(
            "`{tool}` is not served to {}",
            super::profiles_phrase(profiles)
        )
    } else {
        format!(
            "`{tool}` is not served to {} (it is served to {})",
            super::profiles_phrase(profiles),
            served_to.join(", ")
        )
    }
}
