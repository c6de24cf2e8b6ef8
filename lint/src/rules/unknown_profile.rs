//! `unknown-profile`: a skill names a profile the surface does not have.

/// The stable name.
pub const NAME: &str = "unknown-profile";

/// One line.
pub const SUMMARY: &str = "the skill names a profile the surface does not have";

/// The explanation `toolgate explain unknown-profile` prints.
pub const EXPLANATION: &str = "# unknown-profile

## What it reports
A profile named in a skill's front matter (or given to its path in `toolgate.toml`) that the
surface does not have: a deleted profile, or a typo. It is reported once per skill, as the root
cause, instead of one finding per call. The unknown names are then dropped and the skill is
checked against its remaining profiles, or, when none is left, against every profile, so its
calls are still checked for unknown tools, fields and values.

A tatara-format manifest names no profiles, so this rule is skipped with one.

## Why it matters
No agent is served that profile: the skill is installed for nobody, or was written for a
surface that no longer exists, and its calls likely use fields that went with the profile.

## Example
```text
---
profiles: [\"clarify\"]        # tatara deleted the clarify profile
---
```

## How to fix it
Name a profile the surface has, or delete the skill.
";

/// The message.
pub fn message(
    name: &str,
    known: &[String],
    suggestion: Option<&str>,
    remaining: &[String],
) -> String {
    let hint = suggestion
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    let against = if remaining.is_empty() {
        "every profile".to_string()
    } else {
        super::profiles_phrase(remaining)
    };
    format!(
        "unknown profile `{name}`{hint}; known profiles: {}; the skill is checked against {against}",
        known.join(", ")
    )
}
