//! Linting one file's text: find the calls, check them, place the findings.
//!
//! [`Linter::lint_text`] is a pure function of the text (and of the profiles the
//! configuration maps the file's path to); reading files, walking folders and printing live
//! elsewhere.

use toolgate_schema::Surface;

use crate::args::{ArgKind, Args, Outcome, ParseOptions, ValueKind, parse_args};
use crate::check::{Checker, NameKind, Problem, SkillProfiles};
use crate::finding::{Edit, Finding};
use crate::frontmatter::{self, Declared};
use crate::markers;
use crate::negation;
use crate::rules::{self, Rule, Severity};
use crate::scan::{self, Context, region_of};
use crate::text::{LineIndex, Span};

/// Settings that come from the configuration.
#[derive(Clone, Debug)]
pub struct Settings {
    /// More words or phrases that forbid a call (lower case).
    pub negation_words: Vec<String>,
    /// Each rule's severity; `None` turns the rule off.
    pub severities: Vec<(Rule, Option<Severity>)>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            negation_words: Vec::new(),
            severities: Rule::ALL
                .iter()
                .map(|r| (*r, Some(Severity::Error)))
                .collect(),
        }
    }
}

impl Settings {
    /// The severity of `rule`, `None` when it is off.
    pub fn severity(&self, rule: Rule) -> Option<Severity> {
        self.severities
            .iter()
            .find(|(r, _)| *r == rule)
            .map_or(Some(Severity::Error), |(_, s)| *s)
    }
}

/// What linting one file found.
#[derive(Clone, Debug, Default)]
pub struct FileLint {
    /// The findings, sorted by position.
    pub findings: Vec<Finding>,
    /// How many calls were checked.
    pub calls: usize,
    /// Why the file could not be checked completely (invalid front matter): the run is
    /// incomplete.
    pub errors: Vec<String>,
    /// Problems that do not stop the check (a marker naming an unknown rule).
    pub warnings: Vec<String>,
}

/// The lint, set up with a surface and settings; shared by every worker thread.
#[derive(Debug)]
pub struct Linter<'s> {
    checker: Checker<'s>,
    settings: Settings,
}

/// A call found in a text, ready to check.
struct FoundCall {
    name: Span,
    args: Args,
}

/// Keywords that are never tool names, whatever follows them.
const KEYWORDS: &[&str] = &[
    "if", "for", "while", "switch", "return", "catch", "elif", "with", "match", "assert", "and",
    "or", "not", "in", "typeof", "sizeof", "await", "yield",
];

impl<'s> Linter<'s> {
    /// The lint for `surface`.
    pub fn new(surface: &'s Surface, settings: Settings) -> Linter<'s> {
        Linter {
            checker: Checker::new(surface),
            settings,
        }
    }

    /// The surface's index.
    pub fn checker(&self) -> &Checker<'s> {
        &self.checker
    }

    /// Lints `text`, the content of the file shown as `path`. `mapped` are the profiles the
    /// configuration gives the file's path, used when its front matter names none.
    pub fn lint_text(&self, path: &str, text: &str, mapped: Option<&[String]>) -> FileLint {
        let mut out = FileLint::default();
        let fm = scan::front_matter(text);
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let body_start = fm.map_or(bom, |f| f.body_start);
        let decoded = fm.map(|f| frontmatter::decode(text, f.yaml));
        if let Some(d) = &decoded
            && let Some((at, why)) = &d.error
        {
            let pos = LineIndex::new(text).position(text, *at);
            out.errors.push(format!(
                "{path}:{}:{}: the front matter is not valid YAML: {why}; its profiles are unknown, so the skill was checked against every profile",
                pos.line, pos.column
            ));
        }
        let mut problems: Vec<(Problem, Span)> = Vec::new();
        let (skill, profile_problem) =
            self.skill_profiles(decoded.as_ref().and_then(|d| d.profiles.as_ref()), mapped);
        if let Some(p) = profile_problem {
            let span = p.span;
            problems.push((p, span));
        }

        // The body.
        let body = Span::new(body_start, text.len());
        let cands = scan::candidates(text, body, |name, open| match self.checker.lookup(name) {
            NameKind::Known | NameKind::Former(_) => true,
            NameKind::Unknown => scan::pair_follows(text, open),
        });
        if !cands.is_empty() {
            let regions = scan::regions(text, body_start);
            for c in cands {
                let Some(region) = region_of(&regions, Span::new(c.name.start, c.open + 1)) else {
                    continue;
                };
                let Some(call) = self.call_at(text, c, region.span.end, region.context) else {
                    continue;
                };
                out.calls += 1;
                let found = self.checker.check_call(text, call.name, &call.args, &skill);
                if found.is_empty() {
                    continue;
                }
                let line_start = memchr::memrchr(b'\n', &text.as_bytes()[..call.name.start])
                    .map_or(0, |i| i + 1);
                let negated = negation::forbids(
                    &text[line_start..call.name.start],
                    &self.settings.negation_words,
                );
                let call_span = Span::new(
                    call.name.start,
                    call.args.close.map_or(call.name.end, |c| c + 1),
                );
                for p in found {
                    if negated && p.rule.negation_applies() {
                        continue;
                    }
                    problems.push((p, call_span));
                }
            }
        }

        // Strings of the front matter: a known tool is checked wherever it is written.
        if let Some(d) = &decoded {
            for scalar in &d.scalars {
                let value = scalar.value.as_str();
                let cands = scan::candidates(value, Span::new(0, value.len()), |name, _| {
                    self.checker.lookup(name) == NameKind::Known
                });
                for c in cands {
                    let args = parse_args(value, c.open, value.len(), ParseOptions::default());
                    out.calls += 1;
                    let found = self.checker.check_call(value, c.name, &args, &skill);
                    if found.is_empty() {
                        continue;
                    }
                    let line_start = value[..c.name.start].rfind('\n').map_or(0, |i| i + 1);
                    let negated = negation::forbids(
                        &value[line_start..c.name.start],
                        &self.settings.negation_words,
                    );
                    let map = |s: Span| {
                        let start = scalar.raw_offset(text, s.start);
                        let end = if s.end > s.start {
                            let last = value[..s.end].chars().next_back().map_or(1, char::len_utf8);
                            scalar.raw_offset(text, s.end - last) + last
                        } else {
                            start
                        };
                        Span::new(start, end.max(start))
                    };
                    let call_span = map(Span::new(
                        c.name.start,
                        args.close.map_or(c.name.end, |e| e + 1),
                    ));
                    for mut p in found {
                        if negated && p.rule.negation_applies() {
                            continue;
                        }
                        let local = p.span;
                        p.span = map(local);
                        p.fix = p.fix.and_then(|f| {
                            let raw = map(f.span);
                            (raw.of(text) == f.span.of(value)).then_some(Edit {
                                span: raw,
                                replacement: f.replacement,
                            })
                        });
                        problems.push((p, call_span));
                    }
                }
            }
        }

        if problems.is_empty() {
            return out;
        }
        let lines = LineIndex::new(text);
        let allowances = markers::read(text, &lines);
        for w in &allowances.problems {
            out.warnings.push(format!("{path}: {w}"));
        }
        for (p, call_span) in problems {
            let Some(severity) = self.settings.severity(p.rule) else {
                continue;
            };
            let line = lines.line_of(p.span.start);
            let call_line = lines.line_of(call_span.start);
            if allowances.allows(p.rule, line) || allowances.allows(p.rule, call_line) {
                continue;
            }
            out.findings.push(Finding {
                rule: p.rule,
                severity,
                message: p.message,
                path: path.to_string(),
                span: p.span,
                call: call_span,
                start: lines.position(text, p.span.start),
                end: lines.position(text, p.span.end),
                tool: p.tool,
                field: p.field,
                value: p.value,
                suggestion: p.suggestion,
                fix: p.fix,
            });
        }
        out.findings
            .sort_by(|a, b| (a.span, a.rule, &a.message).cmp(&(b.span, b.rule, &b.message)));
        out.findings.dedup();
        out
    }

    /// Decides whether the candidate is a call, and parses it.
    fn call_at(
        &self,
        text: &str,
        c: scan::Candidate,
        bound: usize,
        context: Context,
    ) -> Option<FoundCall> {
        let name = c.name.of(text);
        let kind = self.checker.lookup(name);
        if kind != NameKind::Known && !context.is_code() {
            return None;
        }
        // An unknown name is a call only when written tight against its `(`: prose inside a
        // code block ("clears as Done (flag=true)") is not a call.
        if kind == NameKind::Unknown
            && (c.qualified || c.after_keyword || c.spaced || KEYWORDS.contains(&name))
        {
            return None;
        }
        let opts = ParseOptions {
            table: context.in_table(),
            comments: context.is_block_code(),
            ..ParseOptions::default()
        };
        let args = parse_args(text, c.open, bound, opts);
        let is_call = match kind {
            NameKind::Known => true,
            NameKind::Former(_) => {
                args.outcome == Outcome::Closed
                    && args.items.iter().all(|a| match &a.kind {
                        ArgKind::Pair { .. } | ArgKind::Ellipsis => true,
                        ArgKind::Positional(v) => {
                            matches!(v.kind, ValueKind::Bare | ValueKind::Placeholder)
                        }
                    })
            }
            NameKind::Unknown => {
                args.outcome == Outcome::Closed
                    && args.pairs().next().is_some()
                    && args.items.iter().all(|a| match &a.kind {
                        ArgKind::Pair { value, .. } => is_literal(&value.kind),
                        ArgKind::Ellipsis => true,
                        ArgKind::Positional(_) => false,
                    })
            }
        };
        is_call.then_some(FoundCall { name: c.name, args })
    }

    fn skill_profiles(
        &self,
        declared: Option<&Declared>,
        mapped: Option<&[String]>,
    ) -> (SkillProfiles, Option<Problem>) {
        if !self.checker.knows_profiles() {
            return (SkillProfiles::all(), None);
        }
        let names: Vec<(String, Option<Span>)> = match (declared, mapped) {
            (Some(d), _) => d.names.iter().map(|(n, s)| (n.clone(), Some(*s))).collect(),
            (None, Some(m)) => m.iter().map(|n| (n.clone(), None)).collect(),
            (None, None) => Vec::new(),
        };
        if names.is_empty() || names.iter().any(|(n, _)| n.trim() == "*") {
            return (SkillProfiles::all(), None);
        }
        let surface = self.checker.surface;
        let mut known: Vec<String> = Vec::new();
        let mut unknown: Vec<(String, Option<Span>)> = Vec::new();
        for (n, s) in names {
            let n = n.trim().to_string();
            if surface.has_profile(&n) {
                if !known.contains(&n) {
                    known.push(n);
                }
            } else if !unknown.iter().any(|(u, _)| *u == n) {
                unknown.push((n, s));
            }
        }
        let skill = if known.is_empty() {
            SkillProfiles::all()
        } else {
            SkillProfiles {
                names: known.clone(),
                all: false,
            }
        };
        let Some((first, span)) = unknown.first().cloned() else {
            return (skill, None);
        };
        let all_known: Vec<String> = surface.profiles.iter().map(|p| p.name.clone()).collect();
        let label = unknown
            .iter()
            .map(|(u, _)| u.as_str())
            .collect::<Vec<_>>()
            .join("`, `");
        let suggestion = if unknown.len() == 1 {
            toolgate_schema::suggest::closest(&first, all_known.iter().map(String::as_str))
                .map(str::to_string)
        } else {
            None
        };
        let mut message =
            rules::unknown_profile::message(&label, &all_known, suggestion.as_deref(), &known);
        if span.is_none() {
            message.push_str(" (the profile comes from toolgate.toml)");
        }
        let span = span.unwrap_or_default();
        (
            skill,
            Some(Problem {
                rule: Rule::UnknownProfile,
                span,
                message,
                tool: None,
                field: None,
                value: Some(first),
                suggestion,
                fix: None,
            }),
        )
    }
}

fn is_literal(kind: &ValueKind) -> bool {
    match kind {
        ValueKind::Str { .. }
        | ValueKind::Number { .. }
        | ValueKind::Bool(_)
        | ValueKind::Null
        | ValueKind::Placeholder
        | ValueKind::Array
        | ValueKind::Object => true,
        ValueKind::Alternatives(alts) => alts.iter().all(|a| is_literal(&a.kind)),
        ValueKind::Bare | ValueKind::Expr => false,
    }
}
