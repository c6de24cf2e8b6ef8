//! Checking one call against the surface, for the profiles of the skill it is written in.
//!
//! A skill may serve several profiles; a call is wrong for it only when none of them can make
//! it. So a call first passes when one of the skill's profiles accepts all of its pairs. When
//! none does, each pair (each alternative of `"a"|"b"`) is looked at on its own to say why:
//! the field is unknown, the value is not in the enum, the literal has the wrong type, or it
//! is only valid for another profile.

use std::collections::HashMap;

use toolgate_schema::model::{Additional, Kind, Schema};
use toolgate_schema::{Entry, Origin, Surface, SurfaceTool};

use crate::args::{Args, Value, ValueKind};
use crate::history::apply::Notes;
use crate::rules::{self, Problem, Rule};
use crate::text::{Edit, Span};

/// What a name before `(` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind<'s> {
    /// A tool of the surface.
    Known,
    /// A name a tool of the surface had before (declared in the catalog).
    Former(&'s str),
    /// Anything else.
    Unknown,
}

/// The profiles a skill is checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillProfiles {
    /// The profiles, when the skill names some the surface knows.
    pub names: Vec<String>,
    /// Whether the skill serves every profile (then `names` is empty).
    pub all: bool,
}

impl SkillProfiles {
    /// Every profile.
    pub fn all() -> SkillProfiles {
        SkillProfiles {
            names: Vec::new(),
            all: true,
        }
    }
}

/// The surface, indexed for the lint.
#[derive(Debug)]
pub struct Checker<'s> {
    /// The surface.
    pub surface: &'s Surface,
    former_tools: HashMap<&'s str, &'s str>,
    /// Former names whose new call sets fields: old name -> field and JSON value.
    former_sets: HashMap<&'s str, &'s [(String, String)]>,
    /// Tool names to their index in the surface, with a cheap hash: the pre-filter asks for
    /// every `name(` in every file.
    names: HashMap<&'s str, usize, BuildFnv>,
    /// For each first byte, the lengths (up to 63) of the tool and former names that start
    /// with it: most names the pre-filter asks about are none of them, and this test says so
    /// without hashing.
    lengths_by_start: Box<[u64; 256]>,
    /// Did-you-mean answers already computed: a drifted repository repeats the same wrong
    /// name many times, and string similarity is the costliest part of a finding.
    memo: std::sync::Mutex<HashMap<String, Option<String>>>,
    /// Tools removed with no successor (declared, or from the history).
    removed: Vec<String>,
    /// What the server's history says beyond the surface's renames ([`crate::history`]).
    notes: Notes,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Ok,
    NoField,
    NotInEnum,
    WrongType,
}

impl<'s> Checker<'s> {
    /// Indexes `surface`.
    pub fn new(surface: &'s Surface) -> Checker<'s> {
        let mut former_tools = HashMap::new();
        for t in &surface.tools {
            for old in &t.formerly {
                if surface.tool(old).is_none() {
                    former_tools.insert(old.as_str(), t.name.as_str());
                }
            }
        }
        let mut former_sets = HashMap::new();
        for t in &surface.tools {
            for (old, set) in &t.formerly_set {
                if former_tools.contains_key(old.as_str()) {
                    former_sets.insert(old.as_str(), set.as_slice());
                }
            }
        }
        let names = surface
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.as_str(), i))
            .collect();
        let mut lengths_by_start = Box::new([0u64; 256]);
        for n in surface
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .chain(former_tools.keys().copied())
        {
            if let Some(b) = n.bytes().next() {
                lengths_by_start[usize::from(b)] |= 1u64 << n.len().min(63);
            }
        }
        Checker {
            surface,
            lengths_by_start,
            former_tools,
            former_sets,
            names,
            memo: std::sync::Mutex::new(HashMap::new()),
            removed: Vec::new(),
            notes: Notes::default(),
        }
    }

    /// Sets the tools removed with no successor (`removed`, declared) and what the server's
    /// history says (`notes`: its removals join them).
    pub fn set_past(&mut self, removed: &[String], notes: Notes) {
        self.removed = removed.to_vec();
        for name in notes.removed.keys() {
            if !self.removed.contains(name) {
                self.removed.push(name.clone());
            }
        }
        self.notes = notes;
    }

    /// The tools removed with no successor.
    pub fn removed(&self) -> &[String] {
        &self.removed
    }

    /// What the server's history says.
    pub fn notes(&self) -> &Notes {
        &self.notes
    }

    /// The fields a call by the new name of the former tool `old` sets (empty when none).
    pub fn former_set(&self, old: &str) -> &'s [(String, String)] {
        self.former_sets.get(old).copied().unwrap_or(&[])
    }

    /// The names the surface's tools had before, with the tool each is now.
    pub fn former_names(&self) -> impl Iterator<Item = (&'s str, &'s str)> + '_ {
        self.former_tools.iter().map(|(o, n)| (*o, *n))
    }

    /// Whether the surface knows profiles (a tatara-format manifest does not).
    pub fn knows_profiles(&self) -> bool {
        self.surface.origin == Origin::Full && !self.surface.profiles.is_empty()
    }

    /// What `name` is.
    pub fn lookup(&self, name: &str) -> NameKind<'s> {
        let first = name.bytes().next().map_or(0, usize::from);
        if self.lengths_by_start[first] & (1u64 << name.len().min(63)) == 0 {
            return NameKind::Unknown;
        }
        if self.names.contains_key(name) {
            NameKind::Known
        } else if let Some(new) = self.former_tools.get(name) {
            NameKind::Former(new)
        } else {
            NameKind::Unknown
        }
    }

    /// Whether tool `tool` declares property `field` in its input schema, for some
    /// profile. (Not whether it accepts it: a schema that allows other properties accepts any
    /// field, but declares only its own.)
    pub fn declares(&self, tool: &str, field: &str) -> bool {
        self.names
            .get(tool)
            .and_then(|&i| self.surface.tools.get(i))
            .is_some_and(|t| {
                t.entries.iter().any(|e| {
                    e.input_schema
                        .as_object()
                        .is_some_and(|o| o.property(field).is_some())
                })
            })
    }

    /// The problems of the call `name(args)`; `text` is what the spans point into: those of
    /// its fields, then the keys inside its object and list literals that the schema of the
    /// field does not declare, at any depth (`field_filters[].ref`).
    pub fn check_call(
        &self,
        text: &str,
        name: Span,
        args: &Args,
        skill: &SkillProfiles,
    ) -> Vec<Problem> {
        let mut out = self.check_fields(text, name, args, skill);
        let nested = args
            .pairs()
            .any(|(_, v)| matches!(v.kind, ValueKind::Object | ValueKind::Array));
        if nested && let Some(tool) = self.surface.tool(name.of(text)) {
            for (f, v) in args.pairs() {
                let field = f.of(text);
                let schemas: Vec<&Schema> = tool
                    .entries
                    .iter()
                    .filter_map(|e| e.input_schema.as_object()?.property(field))
                    .collect();
                if !schemas.is_empty() {
                    self.nested_keys(text, &tool.name, field, &schemas, v, 0, &mut out);
                }
            }
        }
        out
    }

    /// The keys of the object or list literal `value` (at `path`, such as `field_filters[]`)
    /// that none of `schemas` declares, and recursively inside them, at most 8 deep.
    #[allow(clippy::too_many_arguments)]
    fn nested_keys(
        &self,
        text: &str,
        tool: &str,
        path: &str,
        schemas: &[&Schema],
        value: &Value,
        depth: usize,
        out: &mut Vec<Problem>,
    ) {
        use crate::args::{ArgKind, ParseOptions, parse_array, parse_object};
        if depth > 8 {
            return;
        }
        let opts = ParseOptions {
            backticks: true,
            ..ParseOptions::default()
        };
        match value.kind {
            ValueKind::Array => {
                let items: Vec<&Schema> = schemas
                    .iter()
                    .filter_map(|s| match &s.kind {
                        Kind::Array(a) => a.items.as_deref(),
                        _ => None,
                    })
                    .collect();
                if items.is_empty() || items.len() < schemas.len() {
                    return;
                }
                let list = parse_array(text, value.span.start, value.span.end, opts);
                let at = format!("{path}[]");
                for a in &list.items {
                    if let ArgKind::Positional(v) = &a.kind {
                        self.nested_keys(text, tool, &at, &items, v, depth + 1, out);
                    }
                }
            }
            ValueKind::Object => {
                let members = parse_object(text, value.span.start, value.span.end, opts);
                for (k, v) in members.pairs() {
                    let key = k.of(text);
                    let declared: Vec<Option<&Schema>> =
                        schemas.iter().map(|s| key_schema(s, key)).collect();
                    if declared.iter().all(Option::is_none) {
                        let names: Vec<&str> = schemas
                            .iter()
                            .filter_map(|s| s.as_object())
                            .flat_map(|o| o.properties.iter().map(|(n, _)| n.as_str()))
                            .collect();
                        let suggestion = crate::fieldname::closest(key, &names).map(str::to_string);
                        let shown = format!("{path}.{key}");
                        out.push(Problem {
                            rule: Rule::UnknownField,
                            span: k,
                            message: rules::unknown_field::message(
                                tool,
                                &shown,
                                None,
                                suggestion.as_deref(),
                                !schemas
                                    .iter()
                                    .any(|s| s.as_object().is_some_and(|o| o.denies_unknown())),
                            ),
                            tool: Some(tool.to_string()),
                            field: Some(key.to_string()),
                            value: None,
                            suggestion,
                            fix: None,
                        });
                        continue;
                    }
                    let inner: Vec<&Schema> = declared.into_iter().flatten().collect();
                    let at = format!("{path}.{key}");
                    self.nested_keys(text, tool, &at, &inner, v, depth + 1, out);
                }
            }
            _ => {}
        }
    }

    /// The problems of the fields of the call `name(args)`.
    fn check_fields(
        &self,
        text: &str,
        name: Span,
        args: &Args,
        skill: &SkillProfiles,
    ) -> Vec<Problem> {
        let tool_name = name.of(text);
        let Some(tool) = self
            .names
            .get(tool_name)
            .and_then(|&i| self.surface.tools.get(i))
        else {
            let mut p = self.unknown_tool(tool_name, name);
            if let Some(f) = self.field_the_successor_lacks(text, tool_name, args) {
                p.fix = None;
                p.message = format!(
                    "{} (not fixed: `{}` has no field `{f}`)",
                    p.message,
                    self.former_tools
                        .get(tool_name)
                        .copied()
                        .unwrap_or_default()
                );
            }
            return vec![p];
        };
        let profile_mode = !skill.all && self.knows_profiles();
        let words = signature_words(text, args);
        if !words.is_empty()
            && words
                .iter()
                .any(|w| tool.entries.iter().any(|e| declares(e, w.of(text))))
        {
            // Signature style, `create_issue(owner, repo, title)`: the words are field names.
            let mut out = Vec::new();
            let scope = Scope::of(tool, skill, profile_mode, name, &mut out);
            for w in words {
                let field = w.of(text);
                if !scope
                    .entries
                    .iter()
                    .any(|e| field_schema(e, field).is_some())
                {
                    out.push(self.field_problem(&scope, w, field));
                }
            }
            return out;
        }
        // The common case first, without allocating: a profile of the skill accepts it all.
        let sees = |e: &Entry| !profile_mode || e.profiles.iter().any(|p| skill.names.contains(p));
        if tool.entries.iter().any(|e| {
            sees(e)
                && args
                    .pairs()
                    .all(|(f, v)| accepts_all(e, f.of(text), v, text))
        }) {
            return Vec::new();
        }
        let mut out = Vec::new();
        let scope = Scope::of(tool, skill, profile_mode, name, &mut out);
        let pairs: Vec<(Span, &Value)> = args.pairs().collect();
        if out.is_empty()
            && scope.entries.iter().any(|e| {
                pairs
                    .iter()
                    .all(|(f, v)| accepts_all(e, f.of(text), v, text))
            })
        {
            return out;
        }
        let before = out.len();
        for (field_span, value) in &pairs {
            self.check_pair(text, &scope, *field_span, value, &mut out);
        }
        if scope.profile_mode && out.len() == before && !pairs.is_empty() {
            // Each pair is valid for some profile of the skill, but no profile takes them all.
            let call_span = Span::new(name.start, args.close.map_or(name.end, |c| c + 1));
            out.push(Problem {
                rule: Rule::ValueNotInProfile,
                span: call_span,
                message: rules::value_not_in_profile::mixed_message(tool_name, &skill.names),
                tool: Some(tool_name.to_string()),
                field: None,
                value: None,
                suggestion: None,
                fix: None,
            });
        }
        out
    }

    /// [`toolgate_schema::suggest::closest`], remembered.
    fn suggest<'c>(
        &self,
        word: &str,
        candidates: impl IntoIterator<Item = &'c str>,
    ) -> Option<String> {
        let candidates: Vec<&str> = candidates.into_iter().collect();
        let mut key = String::with_capacity(word.len() + 64);
        key.push_str(word);
        for c in &candidates {
            key.push('\0');
            key.push_str(c);
        }
        if let Ok(memo) = self.memo.lock()
            && let Some(hit) = memo.get(&key)
        {
            return hit.clone();
        }
        let answer = toolgate_schema::suggest::closest(word, candidates).map(str::to_string);
        if let Ok(mut memo) = self.memo.lock() {
            memo.insert(key, answer.clone());
        }
        answer
    }

    /// The problem of the name at `name` in a text that is no current tool: `renamed-tool`
    /// for a former name, `removed-tool` for a removed one, else `unknown-tool` with a
    /// did-you-mean ([`Checker::did_you_mean`]).
    pub fn unknown_tool(&self, tool_name: &str, name: Span) -> Problem {
        if let Some(new) = self.former_tools.get(tool_name).copied() {
            return self.renamed_tool(tool_name, new, name);
        }
        if self.removed.iter().any(|n| n == tool_name) {
            let version = self.notes.removed.get(tool_name);
            return Problem {
                rule: Rule::RemovedTool,
                span: name,
                message: rules::unknown_tool::removed_in(
                    tool_name,
                    version.map(|v| self.notes.release(v)).as_deref(),
                ),
                tool: Some(tool_name.to_string()),
                field: None,
                value: None,
                suggestion: None,
                fix: None,
            };
        }
        let suggestion = self.did_you_mean(tool_name);
        Problem {
            rule: Rule::UnknownTool,
            span: name,
            message: rules::unknown_tool::message(tool_name, None, suggestion.as_deref()),
            tool: Some(tool_name.to_string()),
            field: None,
            value: None,
            suggestion,
            fix: None,
        }
    }

    /// The did-you-mean of an unknown tool name: the current tool it names with other
    /// separators or case (`getThing`, `get-thing` for `get_thing`), or the successor of the
    /// former name it so names; else the closest spelling.
    fn did_you_mean(&self, tool_name: &str) -> Option<String> {
        let key = crate::history::words::normalized(tool_name);
        if !key.is_empty() {
            let same = |n: &str| crate::history::words::normalized(n) == key;
            if let Some(t) = self.surface.tools.iter().find(|t| same(&t.name)) {
                return Some(t.name.clone());
            }
            if let Some((_, new)) = self.former_tools.iter().find(|(o, _)| same(o)) {
                return Some(new.to_string());
            }
        }
        self.suggest(
            tool_name,
            self.surface.tools.iter().map(|t| t.name.as_str()),
        )
    }

    /// The `renamed-tool` problem of the former name `tool_name` of `new`: its message names
    /// the version when the history knows it; its suggestion is the successor with the
    /// fields a merge sets; its fix rewrites the name.
    fn renamed_tool(&self, tool_name: &str, new: &str, name: Span) -> Problem {
        let set = self.former_set(tool_name);
        let release = self
            .notes
            .renamed
            .get(tool_name)
            .map(|v| self.notes.release(v));
        let suggestion = if set.is_empty() {
            new.to_string()
        } else {
            let pairs: Vec<String> = set.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{new}({})", pairs.join(", "))
        };
        Problem {
            rule: Rule::RenamedTool,
            span: name,
            message: rules::unknown_tool::renamed_in(tool_name, new, set, release.as_deref()),
            tool: Some(tool_name.to_string()),
            field: None,
            value: None,
            suggestion: Some(suggestion),
            fix: Some(Edit {
                span: name,
                replacement: new.to_string(),
            }),
        }
    }

    /// For a call by the former name `old` (renamed from the history), the first field it
    /// sets that its successor has under no name: then `--fix` leaves the call.
    fn field_the_successor_lacks<'t>(
        &self,
        text: &'t str,
        old: &str,
        args: &Args,
    ) -> Option<&'t str> {
        let new = *self.former_tools.get(old)?;
        self.notes.renamed.get(old)?;
        let tool = self.surface.tool(new)?;
        let set = self.former_set(old);
        args.pairs().map(|(f, _)| f.of(text)).find(|f| {
            !set.iter().any(|(k, _)| k == f)
                && !tool.entries.iter().any(|e| {
                    e.input_schema
                        .as_object()
                        .is_some_and(|o| o.property(f).is_some())
                        || e.formerly_fields
                            .iter()
                            .any(|(_, olds)| olds.iter().any(|o| o == f))
                })
        })
    }

    /// The `missing-required` problem of a call to a current tool in full call syntax that
    /// sets at least one field, says nothing that marks it abridged (no `...` or `…`, no
    /// placeholder value, no positional argument) and leaves out a field every entry the
    /// skill's profiles see requires. The missing fields are those of the entry missing
    /// the fewest.
    pub fn missing_required(
        &self,
        text: &str,
        name: Span,
        args: &Args,
        skill: &SkillProfiles,
    ) -> Option<Problem> {
        use crate::args::{ArgKind, Outcome};
        let tool = self.surface.tool(name.of(text))?;
        if args.outcome != Outcome::Closed || args.pairs().next().is_none() {
            return None;
        }
        let abridged = args.items.iter().any(|a| match &a.kind {
            ArgKind::Pair { value, .. } => {
                value.is_placeholder(text)
                    || matches!(value.kind, ValueKind::Expr)
                    || value.span.of(text).contains("...")
                    || value.span.of(text).contains('…')
            }
            ArgKind::Ellipsis | ArgKind::Positional(_) => true,
        });
        let close = args.close?;
        let whole = text.get(name.end..close)?;
        if abridged || whole.contains("...") || whole.contains('…') {
            return None;
        }
        let profile_mode = !skill.all && self.knows_profiles();
        let set: Vec<&str> = args.pairs().map(|(f, _)| f.of(text)).collect();
        let mut best: Option<Vec<&str>> = None;
        for e in &tool.entries {
            if profile_mode && !e.profiles.iter().any(|p| skill.names.contains(p)) {
                continue;
            }
            let obj = e.input_schema.as_object()?;
            let missing: Vec<&str> = obj
                .required
                .iter()
                .map(String::as_str)
                .filter(|r| !set.contains(r))
                .collect();
            if missing.is_empty() {
                return None;
            }
            if best.as_ref().is_none_or(|b| missing.len() < b.len()) {
                best = Some(missing);
            }
        }
        let missing = best?;
        Some(Problem {
            rule: Rule::MissingRequired,
            span: name,
            message: rules::missing_required::message(&tool.name, &missing),
            tool: Some(tool.name.clone()),
            field: Some(missing[0].to_string()),
            value: None,
            suggestion: None,
            fix: None,
        })
    }

    /// The problems of one pair `field=value` of a call, against the entries in `scope`:
    /// the field unknown (or only another profile's), else each alternative of the value
    /// judged on its own.
    fn check_pair(
        &self,
        text: &str,
        scope: &Scope<'_, '_>,
        field_span: Span,
        value: &Value,
        out: &mut Vec<Problem>,
    ) {
        let field = field_span.of(text);
        if !scope
            .entries
            .iter()
            .any(|e| field_schema(e, field).is_some())
        {
            out.push(self.field_problem(scope, field_span, field));
            return;
        }
        let alternatives: Vec<&Value> = match &value.kind {
            ValueKind::Alternatives(alts) => alts.iter().collect(),
            _ => vec![value],
        };
        for alt in alternatives {
            if let Some(p) = self.value_problem(text, scope, field, alt) {
                out.push(p);
            }
        }
    }

    /// The problem of a field no entry in scope has: `value-not-in-profile` when another
    /// profile's entry has it, else `unknown-field` (with the field's new name when the
    /// tool declares it renamed, else the closest declared one).
    fn field_problem(&self, scope: &Scope<'_, '_>, field_span: Span, field: &str) -> Problem {
        let tool = scope.tool;
        let elsewhere: Vec<String> = scope
            .others
            .iter()
            .filter(|e| field_schema(e, field).is_some())
            .flat_map(|e| e.profiles.iter().cloned())
            .collect();
        if scope.profile_mode && !elsewhere.is_empty() {
            return Problem {
                rule: Rule::ValueNotInProfile,
                span: field_span,
                message: rules::value_not_in_profile::field_message(
                    &tool.name,
                    field,
                    &scope.skill.names,
                    &elsewhere,
                ),
                tool: Some(tool.name.clone()),
                field: Some(field.to_string()),
                value: None,
                suggestion: None,
                fix: None,
            };
        }
        let renamed = tool.entries.iter().find_map(|e| {
            e.formerly_fields
                .iter()
                .find(|(_, olds)| olds.iter().any(|o| o == field))
                .map(|(new, _)| new.as_str())
        });
        let suggestion = renamed.map(str::to_string).or_else(|| {
            crate::fieldname::closest(field, &declared_fields(&scope.entries)).map(str::to_string)
        });
        let mut message = rules::unknown_field::message(
            &tool.name,
            field,
            renamed,
            if renamed.is_some() {
                None
            } else {
                suggestion.as_deref()
            },
            !scope.entries.iter().any(|e| {
                e.input_schema
                    .as_object()
                    .is_some_and(|o| o.denies_unknown())
            }),
        );
        if let Some((version, _)) = self
            .notes
            .fields
            .get(&(tool.name.clone(), field.to_string()))
        {
            message =
                rules::unknown_field::in_release(&message, renamed, &self.notes.release(version));
        }
        Problem {
            rule: Rule::UnknownField,
            span: field_span,
            message,
            tool: Some(tool.name.clone()),
            field: Some(field.to_string()),
            value: None,
            suggestion,
            fix: renamed.map(|new| Edit {
                span: field_span,
                replacement: new.to_string(),
            }),
        }
    }

    /// The problem of one alternative `alt` of a known field's value, when no entry in
    /// scope accepts it: `value-not-in-profile` when another profile's does, else
    /// `invalid-value` (not in the enum) or `wrong-type`.
    fn value_problem(
        &self,
        text: &str,
        scope: &Scope<'_, '_>,
        field: &str,
        alt: &Value,
    ) -> Option<Problem> {
        let verdicts: Vec<Verdict> = scope
            .entries
            .iter()
            .map(|e| verdict(e, field, alt, text))
            .collect();
        if verdicts.contains(&Verdict::Ok) {
            return None;
        }
        let shown = alt
            .string(text)
            .map_or_else(|| alt.span.of(text).to_string(), |s| s.into_owned());
        let ok_elsewhere: Vec<String> = scope
            .others
            .iter()
            .filter(|e| verdict(e, field, alt, text) == Verdict::Ok)
            .flat_map(|e| e.profiles.iter().cloned())
            .collect();
        let tool = scope.tool;
        Some(if scope.profile_mode && !ok_elsewhere.is_empty() {
            let here = enum_union(&scope.entries, field);
            Problem {
                rule: Rule::ValueNotInProfile,
                span: alt.span,
                message: rules::value_not_in_profile::value_message(
                    &tool.name,
                    field,
                    &shown,
                    &scope.skill.names,
                    &here,
                    &ok_elsewhere,
                ),
                tool: Some(tool.name.clone()),
                field: Some(field.to_string()),
                value: Some(shown),
                suggestion: None,
                fix: None,
            }
        } else if verdicts.contains(&Verdict::NotInEnum) {
            self.invalid_value(scope, field, alt, shown)
        } else {
            wrong_type(scope, field, alt, shown)
        })
    }

    /// The `invalid-value` problem of a string not in the field's enum, with the value's
    /// new spelling (and a fix) when the tool declares it renamed, else the closest allowed.
    fn invalid_value(
        &self,
        scope: &Scope<'_, '_>,
        field: &str,
        alt: &Value,
        shown: String,
    ) -> Problem {
        let tool = scope.tool;
        let allowed = enum_union(&scope.entries, field);
        let renamed = tool.entries.iter().find_map(|e| {
            e.formerly_values
                .iter()
                .filter(|(f, _)| f == field)
                .flat_map(|(_, values)| values.iter())
                .find(|(_, olds)| olds.contains(&shown))
                .map(|(new, _)| new.clone())
        });
        let suggestion = renamed
            .clone()
            .or_else(|| self.suggest(&shown, allowed.iter().map(String::as_str)));
        let fix = match (&renamed, &alt.kind) {
            (
                Some(new),
                ValueKind::Str {
                    content,
                    escapes: false,
                    ..
                },
            ) => Some(Edit {
                span: *content,
                replacement: new.clone(),
            }),
            (Some(new), ValueKind::Plain) => Some(Edit {
                span: alt.span,
                replacement: new.clone(),
            }),
            _ => None,
        };
        Problem {
            rule: Rule::InvalidValue,
            span: alt.span,
            message: rules::invalid_value::message(
                &tool.name,
                field,
                &shown,
                &allowed,
                renamed.as_deref(),
            ),
            tool: Some(tool.name.clone()),
            field: Some(field.to_string()),
            value: Some(shown),
            suggestion,
            fix,
        }
    }
}

/// What the pairs of one call to a current tool are checked against.
struct Scope<'a, 's> {
    /// The tool.
    tool: &'s SurfaceTool,
    /// The entries the skill's profiles are served (every entry when they are served none).
    entries: Vec<&'s Entry>,
    /// The tool's other entries.
    others: Vec<&'s Entry>,
    /// Whether the call is judged for the skill's profiles (not when it sees no entry).
    profile_mode: bool,
    /// The skill's profiles.
    skill: &'a SkillProfiles,
}

impl<'a, 's> Scope<'a, 's> {
    /// The scope of a call to `tool` (named at `name`) from a skill serving `skill`: the
    /// entries its profiles see; when they see none, a `tool-not-in-profile` problem in
    /// `out` and every entry, judged without profiles.
    fn of(
        tool: &'s SurfaceTool,
        skill: &'a SkillProfiles,
        profile_mode: bool,
        name: Span,
        out: &mut Vec<Problem>,
    ) -> Scope<'a, 's> {
        let visible: Vec<&Entry> = if profile_mode {
            tool.entries
                .iter()
                .filter(|e| e.profiles.iter().any(|p| skill.names.contains(p)))
                .collect()
        } else {
            tool.entries.iter().collect()
        };
        let (entries, profile_mode) = if visible.is_empty() {
            let served: Vec<String> = tool
                .entries
                .iter()
                .flat_map(|e| e.profiles.iter().cloned())
                .collect();
            out.push(Problem {
                rule: Rule::ToolNotInProfile,
                span: name,
                message: rules::tool_not_in_profile::message(&tool.name, &skill.names, &served),
                tool: Some(tool.name.clone()),
                field: None,
                value: None,
                suggestion: None,
                fix: None,
            });
            (tool.entries.iter().collect::<Vec<_>>(), false)
        } else {
            (visible, profile_mode)
        };
        let others: Vec<&Entry> = tool
            .entries
            .iter()
            .filter(|e| !entries.iter().any(|s| std::ptr::eq(*s, *e)))
            .collect();
        Scope {
            tool,
            entries,
            others,
            profile_mode,
            skill,
        }
    }
}

/// The `wrong-type` problem of a literal no entry's schema for the field takes, naming the
/// types they expect.
fn wrong_type(scope: &Scope<'_, '_>, field: &str, alt: &Value, shown: String) -> Problem {
    let mut expected: Vec<&str> = Vec::new();
    for e in &scope.entries {
        if let Some(s) = field_schema(e, field) {
            let t = s.type_name();
            if !expected.contains(&t) {
                expected.push(t);
            }
        }
    }
    Problem {
        rule: Rule::WrongType,
        span: alt.span,
        message: rules::wrong_type::message(
            &scope.tool.name,
            field,
            &expected,
            literal_type(&alt.kind),
        ),
        tool: Some(scope.tool.name.clone()),
        field: Some(field.to_string()),
        value: Some(shown),
        suggestion: None,
        fix: None,
    }
}

/// The bare words of a signature-style call, `tool(owner, repo, title)`: every argument a
/// bare word, at least two of them, the list closed. Empty for any other call. (Whether the
/// words are field names is decided by the caller: only when one of them is a declared
/// field of the tool.)
fn signature_words(text: &str, args: &Args) -> Vec<Span> {
    use crate::args::ArgKind;
    if args.outcome != crate::args::Outcome::Closed || args.items.len() < 2 {
        return Vec::new();
    }
    args.items
        .iter()
        .map(|a| match &a.kind {
            ArgKind::Positional(v)
                if v.kind == ValueKind::Bare
                    && v.span.of(text).bytes().all(crate::args::is_name_byte) =>
            {
                Some(v.span)
            }
            _ => None,
        })
        .collect::<Option<Vec<Span>>>()
        .unwrap_or_default()
}

/// Whether `entry`'s schema names `field` in its `properties`.
fn declares(entry: &Entry, field: &str) -> bool {
    entry
        .input_schema
        .as_object()
        .is_some_and(|o| o.property(field).is_some())
}

/// The properties the entries declare, each once, in their order: the candidates of an
/// unknown field's did-you-mean.
fn declared_fields<'e>(entries: &[&'e Entry]) -> Vec<&'e str> {
    let mut names: Vec<&str> = Vec::new();
    for e in entries {
        if let Some(obj) = e.input_schema.as_object() {
            for (n, _) in &obj.properties {
                if !names.contains(&n.as_str()) {
                    names.push(n);
                }
            }
        }
    }
    names
}

/// FNV-1a, for the small map of tool names (std's SipHash is built to resist attacks that
/// do not apply to a map of a few dozen fixed keys).
#[derive(Clone, Copy, Debug, Default)]
pub struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// Builds [`Fnv`] hashers.
pub type BuildFnv = std::hash::BuildHasherDefault<Fnv>;

/// The schema a key `key` of an object matching `schema` must match, if the key may be
/// there at all: as for a tool's fields ([`field_schema`]); a schema that is not an object
/// schema judges nothing (any key).
fn key_schema<'s>(schema: &'s Schema, key: &str) -> Option<&'s Schema> {
    static ANY: std::sync::OnceLock<Schema> = std::sync::OnceLock::new();
    let any = ANY.get_or_init(Schema::any);
    let Some(obj) = schema.as_object() else {
        return Some(any);
    };
    if let Some(s) = obj.property(key) {
        return Some(s);
    }
    match &obj.additional {
        Additional::Forbidden => None,
        Additional::Schema(s) => Some(s),
        Additional::Allowed => Some(any),
        Additional::Unstated => (obj.properties.is_empty()
            || crate::fieldname::declared_raw(schema, key))
        .then_some(any),
    }
}

/// The schema a value of `field` must match in `entry`, if the field may be sent at all.
fn field_schema<'e>(entry: &'e Entry, field: &str) -> Option<&'e Schema> {
    static ANY: std::sync::OnceLock<Schema> = std::sync::OnceLock::new();
    let any = ANY.get_or_init(Schema::any);
    let Some(obj) = entry.input_schema.as_object() else {
        return Some(any);
    };
    if let Some(s) = obj.property(field) {
        return Some(s);
    }
    // No server reads a field its schema does not declare: when `additionalProperties` is
    // not written the field is let through only by a keyword kept raw that may declare it
    // (`patternProperties`, a combinator branch, a recursive `$ref`).
    match &obj.additional {
        Additional::Forbidden => None,
        Additional::Schema(s) => Some(s),
        Additional::Allowed => Some(any),
        // An object schema with no properties at all is a free map: nothing to judge by.
        Additional::Unstated => (obj.properties.is_empty()
            || crate::fieldname::declared_raw(&entry.input_schema, field))
        .then_some(any),
    }
}

fn enum_union(scope: &[&Entry], field: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in scope {
        if let Some(values) = field_schema(e, field).and_then(Schema::allowed_strings) {
            for v in values {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
    }
    out
}

fn accepts_all(entry: &Entry, field: &str, value: &Value, text: &str) -> bool {
    match &value.kind {
        ValueKind::Alternatives(alts) => alts
            .iter()
            .all(|a| verdict(entry, field, a, text) == Verdict::Ok),
        _ => verdict(entry, field, value, text) == Verdict::Ok,
    }
}

fn verdict(entry: &Entry, field: &str, value: &Value, text: &str) -> Verdict {
    let Some(schema) = field_schema(entry, field) else {
        return Verdict::NoField;
    };
    if let ValueKind::Alternatives(alts) = &value.kind {
        return alts
            .iter()
            .map(|a| verdict(entry, field, a, text))
            .find(|v| *v != Verdict::Ok)
            .unwrap_or(Verdict::Ok);
    }
    if value.is_placeholder(text) {
        return Verdict::Ok;
    }
    let ok = |b: bool| if b { Verdict::Ok } else { Verdict::WrongType };
    if !schema.extra.is_empty() {
        // A keyword the typed model does not hold (`anyOf`, `const`, a type list, a
        // recursive `$ref`): the schema model judges what a literal can show.
        return match literal_json(value, text) {
            Some(lit) if !schema.admits_literal(&lit) => {
                let listed = schema.allowed_strings().is_some_and(|v| !v.is_empty());
                match (&value.kind, listed) {
                    (ValueKind::Str { .. }, true) => Verdict::NotInEnum,
                    _ => Verdict::WrongType,
                }
            }
            _ => Verdict::Ok,
        };
    }
    match (&value.kind, &schema.kind) {
        (_, Kind::Any) => Verdict::Ok,
        (ValueKind::Bare | ValueKind::Expr | ValueKind::Null | ValueKind::Placeholder, _) => {
            Verdict::Ok
        }
        (ValueKind::Str { .. } | ValueKind::Plain, Kind::String(rules)) => match &rules.enum_values
        {
            Some(values) => {
                let s = value.string(text).unwrap_or_default();
                if values.iter().any(|v| *v == s) {
                    Verdict::Ok
                } else {
                    Verdict::NotInEnum
                }
            }
            None => Verdict::Ok,
        },
        (ValueKind::Plain, _) => Verdict::Ok,
        (ValueKind::Str { .. }, _) => Verdict::WrongType,
        (ValueKind::Number { integer }, Kind::Integer(_)) => ok(*integer),
        (ValueKind::Number { .. }, Kind::Number(_)) => Verdict::Ok,
        (ValueKind::Bool(_), Kind::Boolean) => Verdict::Ok,
        (ValueKind::Array, Kind::Array(_)) => Verdict::Ok,
        (ValueKind::Object, Kind::Object(_)) => Verdict::Ok,
        (
            ValueKind::Number { .. } | ValueKind::Bool(_) | ValueKind::Array | ValueKind::Object,
            _,
        ) => Verdict::WrongType,
        (ValueKind::Alternatives(_), _) => Verdict::Ok,
    }
}

/// A scalar literal as JSON, for [`Schema::admits_literal`]; `None` for what is not one.
fn literal_json(value: &Value, text: &str) -> Option<toolgate_schema::json::Value> {
    use toolgate_schema::json::Value as J;
    Some(match &value.kind {
        ValueKind::Str { .. } => J::String(value.string(text)?.into_owned()),
        ValueKind::Number { .. } => serde_json::from_str(value.span.of(text)).ok()?,
        ValueKind::Bool(b) => J::Bool(*b),
        _ => return None,
    })
}

fn literal_type(kind: &ValueKind) -> &'static str {
    match kind {
        ValueKind::Str { .. } | ValueKind::Plain => "a string",
        ValueKind::Number { integer: true } => "an integer",
        ValueKind::Number { integer: false } => "a fractional number",
        ValueKind::Bool(_) => "a boolean",
        ValueKind::Array => "a list",
        ValueKind::Object => "an object",
        _ => "this value",
    }
}
