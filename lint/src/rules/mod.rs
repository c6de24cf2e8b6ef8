//! The lint's rules: one module per rule, each with a stable name, a one-line summary and an
//! explanation (`toolgate explain RULE`), as ruff does it.
//!
//! The decision of which rule a problem falls under is made in [`crate::check`], from the
//! surface; the modules here own the words.

pub mod invalid_value;
pub mod missing_required;
pub mod removed_tool;
pub mod renamed_tool;
pub mod too_many_tools;
pub mod tool_not_allowed;
pub mod tool_not_in_profile;
pub mod unknown_field;
pub mod unknown_profile;
pub mod unknown_tool;
pub mod value_not_in_profile;
pub mod wrong_type;

use crate::text::{Edit, Span};

/// A lint rule. The names are stable: configuration, markers, baselines and CI depend on
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// A call to a tool the surface does not have.
    UnknownTool,
    /// A field the tool does not have.
    UnknownField,
    /// A string that is not one of the field's allowed values.
    InvalidValue,
    /// A literal of the wrong JSON type for the field.
    WrongType,
    /// A tool none of the skill's profiles is served.
    ToolNotInProfile,
    /// A value (or field) valid for some profile, but for none of the skill's.
    ValueNotInProfile,
    /// A profile the surface does not have, named by a skill.
    UnknownProfile,
    /// A tool the body calls that the agent's own `tools:` list omits.
    ToolNotAllowed,
    /// An agent's `tools:` list selecting more tools than its host accepts.
    TooManyTools,
    /// A call that sets fields but omits one the tool requires.
    MissingRequired,
    /// A tool name the server had before it renamed the tool.
    RenamedTool,
    /// A tool name the server had before it removed the tool.
    RemovedTool,
}

/// A rule broken at one place of a text, before it is placed in a file (a
/// [`Finding`](crate::Finding) once it is): what the checks and the rules that judge a list
/// (`too-many-tools`) return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The rule.
    pub rule: Rule,
    /// The token at fault.
    pub span: Span,
    /// The message.
    pub message: String,
    /// The tool.
    pub tool: Option<String>,
    /// The field.
    pub field: Option<String>,
    /// The value.
    pub value: Option<String>,
    /// A suggestion.
    pub suggestion: Option<String>,
    /// A rewrite declared by the catalog.
    pub fix: Option<Edit>,
}

impl Rule {
    /// Every rule, in the order `toolgate explain` lists them.
    pub const ALL: [Rule; 12] = [
        Rule::UnknownTool,
        Rule::RenamedTool,
        Rule::RemovedTool,
        Rule::UnknownField,
        Rule::InvalidValue,
        Rule::WrongType,
        Rule::ToolNotInProfile,
        Rule::ValueNotInProfile,
        Rule::UnknownProfile,
        Rule::ToolNotAllowed,
        Rule::TooManyTools,
        Rule::MissingRequired,
    ];

    /// The stable name.
    pub fn name(self) -> &'static str {
        match self {
            Rule::UnknownTool => unknown_tool::NAME,
            Rule::UnknownField => unknown_field::NAME,
            Rule::InvalidValue => invalid_value::NAME,
            Rule::WrongType => wrong_type::NAME,
            Rule::ToolNotInProfile => tool_not_in_profile::NAME,
            Rule::ValueNotInProfile => value_not_in_profile::NAME,
            Rule::UnknownProfile => unknown_profile::NAME,
            Rule::ToolNotAllowed => tool_not_allowed::NAME,
            Rule::TooManyTools => too_many_tools::NAME,
            Rule::MissingRequired => missing_required::NAME,
            Rule::RenamedTool => renamed_tool::NAME,
            Rule::RemovedTool => removed_tool::NAME,
        }
    }

    /// The rule named `name`.
    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }

    /// One line on what the rule reports.
    pub fn summary(self) -> &'static str {
        match self {
            Rule::UnknownTool => unknown_tool::SUMMARY,
            Rule::UnknownField => unknown_field::SUMMARY,
            Rule::InvalidValue => invalid_value::SUMMARY,
            Rule::WrongType => wrong_type::SUMMARY,
            Rule::ToolNotInProfile => tool_not_in_profile::SUMMARY,
            Rule::ValueNotInProfile => value_not_in_profile::SUMMARY,
            Rule::UnknownProfile => unknown_profile::SUMMARY,
            Rule::ToolNotAllowed => tool_not_allowed::SUMMARY,
            Rule::TooManyTools => too_many_tools::SUMMARY,
            Rule::MissingRequired => missing_required::SUMMARY,
            Rule::RenamedTool => renamed_tool::SUMMARY,
            Rule::RemovedTool => removed_tool::SUMMARY,
        }
    }

    /// What the rule checks, why, an example and the fix (Markdown).
    pub fn explanation(self) -> &'static str {
        match self {
            Rule::UnknownTool => unknown_tool::EXPLANATION,
            Rule::UnknownField => unknown_field::EXPLANATION,
            Rule::InvalidValue => invalid_value::EXPLANATION,
            Rule::WrongType => wrong_type::EXPLANATION,
            Rule::ToolNotInProfile => tool_not_in_profile::EXPLANATION,
            Rule::ValueNotInProfile => value_not_in_profile::EXPLANATION,
            Rule::UnknownProfile => unknown_profile::EXPLANATION,
            Rule::ToolNotAllowed => tool_not_allowed::EXPLANATION,
            Rule::TooManyTools => too_many_tools::EXPLANATION,
            Rule::MissingRequired => missing_required::EXPLANATION,
            Rule::RenamedTool => renamed_tool::EXPLANATION,
            Rule::RemovedTool => removed_tool::EXPLANATION,
        }
    }

    /// The severity a rule has when the configuration says nothing of it: an error, except
    /// `missing-required`, off (real skills abridge calls by leaving out the fields every
    /// call sets, such as tatara's `repo`: 124 such findings on its corpus, see docs/lint.md).
    pub fn default_severity(self) -> Option<Severity> {
        match self {
            Rule::MissingRequired => None,
            _ => Some(Severity::Error),
        }
    }

    /// Whether a line that forbids the call silences this rule. Never for an unknown tool:
    /// "do not call `old_tool(...)`" still names a tool that is gone.
    pub fn negation_applies(self) -> bool {
        !matches!(
            self,
            Rule::UnknownTool | Rule::RenamedTool | Rule::RemovedTool | Rule::UnknownProfile
        )
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Fails the run (exit 1).
    Error,
    /// Printed, but the run passes.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// `a`, `a and b`, `a, b and c`, each in backticks.
pub(crate) fn code_list(items: &[impl AsRef<str>]) -> String {
    // Written into one string: a drifted file's findings each list a field's values.
    let n = items.len();
    let mut out = String::with_capacity(items.iter().map(|s| s.as_ref().len() + 4).sum());
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(if i == n - 1 { " and " } else { ", " });
        }
        out.push('`');
        out.push_str(item.as_ref());
        out.push('`');
    }
    out
}

/// `profile x` or `profiles x, y`.
pub(crate) fn profiles_phrase(profiles: &[impl AsRef<str>]) -> String {
    let names: Vec<&str> = profiles.iter().map(AsRef::as_ref).collect();
    if names.len() == 1 {
        format!("profile {}", names[0])
    } else {
        format!("profiles {}", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_every_rule_explains_itself() {
        for r in Rule::ALL {
            assert_eq!(Rule::from_name(r.name()), Some(r));
            assert!(r.explanation().contains(r.name()), "{r}");
            assert!(!r.summary().is_empty());
        }
        assert_eq!(Rule::from_name("nope"), None);
    }
}
