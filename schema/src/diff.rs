//! The diff of two surfaces: every change, its stable rule name, and the version bump it
//! requires.
//!
//! Modelled on buf's breaking-change rules and cargo-semver-checks: a change that can break
//! an existing caller (an agent, or a skill that teaches a call) is major; a change that only
//! adds is minor; a change of text only is patch. Changes are computed per profile on the
//! schemas each profile is served, so a change that affects only some profiles says which.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::json::Value;
use crate::model::{Additional, ArrayRules, Kind, NumberRules, ObjectRules, Schema, StringRules};
use crate::surface::{Entry, Origin, Surface, SurfaceTool};

pub mod risk;

pub use risk::Risk;

/// How much a version must move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bump {
    /// Nothing changed.
    None,
    /// Text only (descriptions, titles).
    Patch,
    /// Additions that no existing caller can notice.
    Minor,
    /// A change that can break an existing caller.
    Major,
}

impl Bump {
    /// `none`, `patch`, `minor` or `major`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

impl fmt::Display for Bump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every diff rule: its stable name, the bump it requires and what it means.
pub const RULES: &[(&str, Bump, &str)] = &[
    (
        "profile-removed",
        Bump::Major,
        "a profile no longer exists; agents started with it now fail closed",
    ),
    ("profile-added", Bump::Minor, "a new profile exists"),
    ("tool-removed", Bump::Major, "a tool no longer exists"),
    (
        "tool-renamed",
        Bump::Major,
        "a tool has a new name (declared with `formerly.names`); calls by the old name fail",
    ),
    ("tool-added", Bump::Minor, "a new tool exists"),
    (
        "tool-removed-from-profile",
        Bump::Major,
        "a profile no longer sees a tool it saw",
    ),
    (
        "tool-granted-to-profile",
        Bump::Minor,
        "a profile now sees a tool it did not see",
    ),
    (
        "always-on-removed",
        Bump::Major,
        "a tool left the always-on set that even a fail-closed session sees",
    ),
    (
        "always-on-added",
        Bump::Minor,
        "a tool joined the always-on set",
    ),
    (
        "field-removed",
        Bump::Major,
        "a field no longer exists; calls that send it are refused",
    ),
    (
        "field-renamed",
        Bump::Major,
        "a field has a new name (declared with `formerly.fields`)",
    ),
    (
        "required-field-added",
        Bump::Major,
        "a new field is required; calls without it are refused",
    ),
    ("field-added", Bump::Minor, "a new optional field exists"),
    (
        "field-became-required",
        Bump::Major,
        "an optional field became required",
    ),
    (
        "field-became-optional",
        Bump::Minor,
        "a required field became optional",
    ),
    ("type-changed", Bump::Major, "a field's type changed"),
    (
        "enum-value-removed",
        Bump::Major,
        "an enum value no longer exists",
    ),
    (
        "enum-value-renamed",
        Bump::Major,
        "an enum value has a new name (declared with `formerly.values`)",
    ),
    (
        "enum-value-added",
        Bump::Minor,
        "an enum accepts a new value",
    ),
    (
        "enum-added",
        Bump::Major,
        "a free string field is now limited to an enum",
    ),
    (
        "enum-dropped",
        Bump::Minor,
        "an enum field now accepts any string",
    ),
    (
        "restriction-tightened",
        Bump::Major,
        "a profile's restricted cell allows fewer values",
    ),
    (
        "restriction-loosened",
        Bump::Minor,
        "a profile's restricted cell allows more values",
    ),
    (
        "constraint-tightened",
        Bump::Major,
        "a bound (minimum, maxLength, minItems, ...) refuses values it accepted",
    ),
    (
        "constraint-loosened",
        Bump::Minor,
        "a bound accepts values it refused",
    ),
    (
        "additional-properties-forbidden",
        Bump::Major,
        "an object now refuses fields it does not declare",
    ),
    (
        "additional-properties-allowed",
        Bump::Minor,
        "an object now accepts fields it does not declare",
    ),
    (
        "conditional-requirement-added",
        Bump::Major,
        "a field is now required under a condition",
    ),
    (
        "conditional-requirement-removed",
        Bump::Minor,
        "a conditional requirement was dropped",
    ),
    (
        "keyword-changed",
        Bump::Major,
        "a keyword the typed model does not hold (`anyOf`, `const`, `pattern`, a `type` list, ...) was added, removed or changed (compared with `$ref`s resolved: moving a definition is no change)",
    ),
    (
        "annotation-changed",
        Bump::Patch,
        "an annotation (`format`, `examples`, `deprecated`, an `x-...` key, ...) was added, removed or changed",
    ),
    (
        "default-changed",
        Bump::Patch,
        "a field's default changed (callers that send the field see no change)",
    ),
    (
        "description-changed",
        Bump::Patch,
        "a tool's or a field's description or title changed",
    ),
    (
        "title-changed",
        Bump::Patch,
        "a tool's `title` (the name a host shows) was added, removed or changed",
    ),
    (
        "icons-changed",
        Bump::Patch,
        "a tool's `icons` were added, removed or changed",
    ),
    (
        "meta-changed",
        Bump::Patch,
        "a tool's `_meta` was added, removed or changed",
    ),
    (
        "tool-annotations-changed",
        Bump::Patch,
        "a tool's `annotations` (readOnlyHint, destructiveHint, idempotentHint, openWorldHint, title) were added, removed or changed: what hosts decide confirmations by",
    ),
    (
        "execution-changed",
        Bump::Minor,
        "a tool's `execution` (whether it may be called as a task) was added, removed or changed",
    ),
    (
        "tasks-required",
        Bump::Major,
        "a tool now requires being called as a task (`execution.taskSupport` `required`): clients that do not run tasks can no longer call it",
    ),
];

/// The bump a rule requires.
pub fn rule_bump(rule: &str) -> Bump {
    RULES
        .iter()
        .find(|(name, _, _)| *name == rule)
        .map_or(Bump::Major, |(_, b, _)| *b)
}

/// One change between two surfaces.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Change {
    /// The stable rule name.
    pub rule: &'static str,
    /// The bump this change requires.
    pub bump: Bump,
    /// What it does to the text the model reads and the hints hosts decide by
    /// ([`risk`]).
    pub risk: Risk,
    /// The tool concerned, if any.
    pub tool: Option<String>,
    /// The field concerned, as a path (`issue.parent`, `proposals[].kind`), if any.
    pub field: Option<String>,
    /// The profiles concerned; empty when the change concerns every profile (or the surface
    /// does not know profiles).
    pub profiles: Vec<String>,
    /// What changed, in one sentence.
    pub message: String,
}

/// The result of a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    /// The changes, sorted: tool, field, rule, then profiles.
    pub changes: Vec<Change>,
    /// The overall bump.
    pub bump: Bump,
    /// The highest risk of a change.
    pub risk: Risk,
    /// The profiles both surfaces know (a change listing all of them concerns everyone).
    pub profiles: Vec<String>,
    /// Checks that could not be made because a side carries too little (a tatara-format
    /// manifest has no profiles, no types, no fields without an enum).
    pub skipped: Vec<String>,
}

/// Compares `old` with `new`.
pub fn diff(old: &Surface, new: &Surface) -> Diff {
    let mut cx = DiffCx::default();
    let partial = old.origin == Origin::NamesAndEnums || new.origin == Origin::NamesAndEnums;
    if partial {
        for (side, s) in [("old", old), ("new", new)] {
            if s.origin == Origin::NamesAndEnums {
                cx.skipped.push(format!(
                    "the {side} side is a tatara-format manifest (tool names and enum values only): profile visibility, fields without an enum, types, required fields, bounds and descriptions were not compared"
                ));
            }
        }
        names_and_enums(old, new, &mut cx);
    } else {
        full(old, new, &mut cx);
    }
    let common = old
        .profiles
        .iter()
        .filter(|p| new.has_profile(&p.name))
        .map(|p| p.name.clone())
        .collect();
    let mut d = cx.finish(common);
    risk::assess(old, new, &mut d);
    d
}

/// What identifies a change before its profiles are merged: rule, tool, field, message.
type ChangeKey = (&'static str, Option<String>, Option<String>, String);

#[derive(Default)]
struct DiffCx {
    changes: BTreeMap<ChangeKey, BTreeSet<String>>,
    all_profile_marker: BTreeSet<ChangeKey>,
    skipped: Vec<String>,
}

impl DiffCx {
    fn add(
        &mut self,
        rule: &'static str,
        tool: Option<&str>,
        field: Option<&str>,
        profile: Option<&str>,
        message: String,
    ) {
        let key = (
            rule,
            tool.map(str::to_string),
            field.map(str::to_string),
            message,
        );
        let entry = self.changes.entry(key.clone()).or_default();
        match profile {
            Some(p) => {
                entry.insert(p.to_string());
            }
            None => {
                self.all_profile_marker.insert(key);
            }
        }
    }

    fn finish(self, profiles: Vec<String>) -> Diff {
        let mut changes: Vec<Change> = self
            .changes
            .into_iter()
            .map(|((rule, tool, field, message), profiles)| {
                let key_all = self.all_profile_marker.contains(&(
                    rule,
                    tool.clone(),
                    field.clone(),
                    message.clone(),
                ));
                Change {
                    rule,
                    bump: rule_bump(rule),
                    risk: Risk::Review,
                    tool,
                    field,
                    profiles: if key_all {
                        Vec::new()
                    } else {
                        profiles.into_iter().collect()
                    },
                    message,
                }
            })
            .collect();
        changes.sort_by(|a, b| {
            (&a.tool, &a.field, a.rule, &a.profiles, &a.message).cmp(&(
                &b.tool,
                &b.field,
                b.rule,
                &b.profiles,
                &b.message,
            ))
        });
        let bump = changes.iter().map(|c| c.bump).max().unwrap_or(Bump::None);
        Diff {
            changes,
            bump,
            risk: Risk::None,
            profiles,
            skipped: self.skipped,
        }
    }
}

/// The tool of `new` that declares `old_name` as a former name.
fn renamed_to<'a>(new: &'a Surface, old_name: &str) -> Option<&'a SurfaceTool> {
    new.tools
        .iter()
        .find(|t| t.formerly.iter().any(|f| f == old_name))
}

/// Pairs old and new tools (by name, or by a declared rename) and reports removals and
/// additions.
fn pair_tools<'a>(
    old: &'a Surface,
    new: &'a Surface,
    cx: &mut DiffCx,
) -> Vec<(&'a SurfaceTool, &'a SurfaceTool)> {
    let mut pairs = Vec::new();
    let mut matched_new: BTreeSet<&str> = BTreeSet::new();
    for t in &old.tools {
        if let Some(n) = new.tool(&t.name) {
            pairs.push((t, n));
            matched_new.insert(n.name.as_str());
        } else if let Some(n) = renamed_to(new, &t.name).filter(|n| old.tool(&n.name).is_none()) {
            cx.add(
                "tool-renamed",
                Some(&t.name),
                None,
                None,
                format!("tool `{}` was renamed to `{}`", t.name, n.name),
            );
            pairs.push((t, n));
            matched_new.insert(n.name.as_str());
        } else {
            cx.add(
                "tool-removed",
                Some(&t.name),
                None,
                None,
                format!("tool `{}` was removed", t.name),
            );
        }
    }
    for n in &new.tools {
        if !matched_new.contains(n.name.as_str()) {
            cx.add(
                "tool-added",
                Some(&n.name),
                None,
                None,
                format!("tool `{}` was added", n.name),
            );
        }
    }
    pairs
}

fn names_and_enums(old: &Surface, new: &Surface, cx: &mut DiffCx) {
    for (o, n) in pair_tools(old, new, cx) {
        let oe = enum_union(o);
        let ne = enum_union(n);
        let tool = n.name.as_str();
        for (field, old_values) in &oe {
            match ne.get(field) {
                None => cx.add(
                    "field-removed",
                    Some(tool),
                    Some(field),
                    None,
                    format!("enum field `{field}` of `{tool}` is gone (the manifest cannot tell a removed field from one that lost its enum)"),
                ),
                Some(new_values) => {
                    for v in old_values.difference(new_values) {
                        cx.add("enum-value-removed", Some(tool), Some(field), None, format!("`{tool}.{field}` no longer accepts \"{v}\""));
                    }
                    for v in new_values.difference(old_values) {
                        cx.add("enum-value-added", Some(tool), Some(field), None, format!("`{tool}.{field}` accepts \"{v}\""));
                    }
                }
            }
        }
        for field in ne.keys() {
            if !oe.contains_key(field) {
                cx.add(
                    "field-added",
                    Some(tool),
                    Some(field),
                    None,
                    format!("`{tool}` has a new enum field `{field}` (whether it is required is not known from a tatara manifest)"),
                );
            }
        }
    }
}

fn enum_union(t: &SurfaceTool) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in &t.entries {
        if let Some(obj) = e.input_schema.as_object() {
            for (name, prop) in &obj.properties {
                if let Some(values) = prop.enum_values() {
                    out.entry(name.clone())
                        .or_default()
                        .extend(values.iter().cloned());
                }
            }
        }
    }
    out
}

/// The whole diff of two surfaces: the profiles added and removed, then per tool (paired
/// across renames) its access and, per profile, the schema it is served.
fn full(old: &Surface, new: &Surface, cx: &mut DiffCx) {
    let old_profiles: Vec<&str> = old.profiles.iter().map(|p| p.name.as_str()).collect();
    let new_profiles: Vec<&str> = new.profiles.iter().map(|p| p.name.as_str()).collect();
    profiles_changed(&old_profiles, &new_profiles, cx);
    let common: Vec<&str> = old_profiles
        .iter()
        .copied()
        .filter(|p| new_profiles.contains(p))
        .collect();
    let removed: Vec<&str> = old_profiles
        .iter()
        .copied()
        .filter(|p| !new_profiles.contains(p))
        .collect();
    let no_profiles = old_profiles.is_empty() && new_profiles.is_empty();

    for (o, n) in pair_tools(old, new, cx) {
        let tool = n.name.as_str();
        always_on_changed(tool, o, n, cx);
        for p in &common {
            compare_in_profile(tool, o, n, p, cx);
        }
        if common.is_empty() && no_profiles {
            // Catalogs without profiles: compare the single entries.
            if let (Some(oe), Some(ne)) = (o.entries.first(), n.entries.first()) {
                compare_entries(tool, oe, ne, None, cx);
            }
        }
        // A deleted profile: what only its schemas had is gone from the surface.
        for p in &removed {
            if let Some(oe) = entry_of(o, p) {
                vanished_with_profile(tool, oe, n, p, cx);
            }
        }
    }
}

/// The profiles removed (every agent started with one now fails closed) and added.
fn profiles_changed(old_profiles: &[&str], new_profiles: &[&str], cx: &mut DiffCx) {
    for p in old_profiles {
        if !new_profiles.contains(p) {
            cx.add(
                "profile-removed",
                None,
                None,
                Some(p),
                format!("profile `{p}` was removed"),
            );
        }
    }
    for p in new_profiles {
        if !old_profiles.contains(p) {
            cx.add(
                "profile-added",
                None,
                None,
                Some(p),
                format!("profile `{p}` was added"),
            );
        }
    }
}

/// Whether `tool` left or joined the always-on set (what even a fail-closed session sees).
fn always_on_changed(tool: &str, o: &SurfaceTool, n: &SurfaceTool, cx: &mut DiffCx) {
    if o.always_on && !n.always_on {
        cx.add(
            "always-on-removed",
            Some(tool),
            None,
            None,
            format!("`{tool}` is no longer always on"),
        );
    }
    if !o.always_on && n.always_on {
        cx.add(
            "always-on-added",
            Some(tool),
            None,
            None,
            format!("`{tool}` is now always on"),
        );
    }
}

/// What profile `p` (in both surfaces) is served of `tool`: no longer, newly, or both
/// schemas compared.
fn compare_in_profile(tool: &str, o: &SurfaceTool, n: &SurfaceTool, p: &str, cx: &mut DiffCx) {
    match (entry_of(o, p), entry_of(n, p)) {
        (Some(_), None) => cx.add(
            "tool-removed-from-profile",
            Some(tool),
            None,
            Some(p),
            format!("profile `{p}` no longer sees `{tool}`"),
        ),
        (None, Some(_)) => cx.add(
            "tool-granted-to-profile",
            Some(tool),
            None,
            Some(p),
            format!("profile `{p}` now sees `{tool}`"),
        ),
        (Some(oe), Some(ne)) => compare_entries(tool, oe, ne, Some(p), cx),
        (None, None) => {}
    }
}

fn entry_of<'a>(t: &'a SurfaceTool, profile: &str) -> Option<&'a Entry> {
    t.entries
        .iter()
        .find(|e| e.profiles.iter().any(|p| p == profile))
}

/// Fields and enum values of a deleted profile's schema that no remaining schema of the tool
/// has: skills written for that profile teach calls that now fail everywhere.
fn vanished_with_profile(
    tool: &str,
    old: &Entry,
    new_tool: &SurfaceTool,
    profile: &str,
    cx: &mut DiffCx,
) {
    let Some(obj) = old.input_schema.as_object() else {
        return;
    };
    let union = enum_union(new_tool);
    for (name, prop) in &obj.properties {
        let exists = new_tool.entries.iter().any(|e| {
            e.input_schema
                .as_object()
                .is_some_and(|o| o.property(name).is_some())
        });
        if !exists {
            cx.add(
                "field-removed",
                Some(tool),
                Some(name),
                Some(profile),
                format!("field `{name}` of `{tool}` is gone with profile `{profile}`: no remaining profile's schema has it"),
            );
            continue;
        }
        if let (Some(values), Some(now)) = (prop.enum_values(), union.get(name)) {
            for v in values {
                if !now.contains(v) {
                    cx.add(
                        "enum-value-removed",
                        Some(tool),
                        Some(name),
                        Some(profile),
                        format!("`{tool}.{name}` value \"{v}\" is gone with profile `{profile}`"),
                    );
                }
            }
        }
    }
}

fn compare_entries(tool: &str, old: &Entry, new: &Entry, profile: Option<&str>, cx: &mut DiffCx) {
    if old.description != new.description {
        cx.add(
            "description-changed",
            Some(tool),
            None,
            profile,
            format!("the description of `{tool}` changed"),
        );
    }
    compare_tool_keys(tool, old, new, profile, cx);
    compare_annotations(tool, old, new, profile, cx);
    let renames = Renames::of(new);
    let restricted_fields: BTreeSet<&str> = old
        .restricted
        .iter()
        .chain(new.restricted.iter())
        .map(|(f, _)| f.as_str())
        .collect();
    let mut sc = SchemaCx {
        tool,
        profile,
        renames: &renames,
        restricted: &restricted_fields,
        cx,
    };
    sc.compare(&old.input_schema, &new.input_schema, "");
}

/// The MCP Tool's own keys beside its description and schemas, as served: `title`,
/// `icons` and `_meta` say how a host shows the tool (patch); `execution` says how it may be
/// called (minor; major when it comes to require tasks).
fn compare_tool_keys(tool: &str, old: &Entry, new: &Entry, profile: Option<&str>, cx: &mut DiffCx) {
    for (key, rule) in [
        ("title", "title-changed"),
        ("icons", "icons-changed"),
        ("_meta", "meta-changed"),
        ("execution", "execution-changed"),
    ] {
        let (was, is) = (old.served.get(key), new.served.get(key));
        if was == is {
            continue;
        }
        let what = match (was, is) {
            (None, Some(_)) => "was added",
            (Some(_), None) => "was removed",
            _ => "changed",
        };
        let rule = if key == "execution" && requires_tasks(is) && !requires_tasks(was) {
            "tasks-required"
        } else {
            rule
        };
        cx.add(
            rule,
            Some(tool),
            None,
            profile,
            format!("the `{key}` of `{tool}` {what}"),
        );
    }
}

/// The tool's `annotations` (the typed hints, which every kind of surface carries).
fn compare_annotations(
    tool: &str,
    old: &Entry,
    new: &Entry,
    profile: Option<&str>,
    cx: &mut DiffCx,
) {
    if old.annotations == new.annotations {
        return;
    }
    let what = match (&old.annotations, &new.annotations) {
        (None, Some(_)) => "were added",
        (Some(_), None) => "were removed",
        _ => "changed",
    };
    cx.add(
        "tool-annotations-changed",
        Some(tool),
        None,
        profile,
        format!("the `annotations` of `{tool}` {what}"),
    );
}

/// Whether a served `execution` requires the tool to be called as a task.
fn requires_tasks(execution: Option<&Value>) -> bool {
    let Some(Value::Object(e)) = execution else {
        return false;
    };
    e.get("taskSupport").and_then(Value::as_str) == Some("required")
}

struct Renames<'a> {
    fields: &'a [(String, Vec<String>)],
    values: &'a crate::load::ValueRenames,
}

impl<'a> Renames<'a> {
    fn of(e: &'a Entry) -> Self {
        Renames {
            fields: &e.formerly_fields,
            values: &e.formerly_values,
        }
    }

    /// The current name of top-level field `old`, if it was renamed.
    fn field(&self, old: &str) -> Option<&'a str> {
        self.fields
            .iter()
            .find(|(_, formers)| formers.iter().any(|f| f == old))
            .map(|(n, _)| n.as_str())
    }

    /// The current value that replaced `old` in top-level field `field`.
    fn value(&self, field: &str, old: &str) -> Option<&'a str> {
        self.values
            .iter()
            .filter(|(f, _)| f == field)
            .flat_map(|(_, per)| per.iter())
            .find(|(_, formers)| formers.iter().any(|f| f == old))
            .map(|(v, _)| v.as_str())
    }
}

struct SchemaCx<'a, 'b> {
    tool: &'a str,
    profile: Option<&'a str>,
    renames: &'a Renames<'a>,
    restricted: &'a BTreeSet<&'a str>,
    cx: &'b mut DiffCx,
}

/// A count bound (`minLength`, `maxItems`, ...) as a number, to compare with [`SchemaCx::bound`].
fn count(bound: Option<u64>) -> Option<f64> {
    bound.map(|v| v as f64)
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

impl SchemaCx<'_, '_> {
    fn add(&mut self, rule: &'static str, field: &str, message: String) {
        let field = (!field.is_empty()).then_some(field);
        self.cx
            .add(rule, Some(self.tool), field, self.profile, message);
    }

    fn subject(&self, path: &str) -> String {
        if path.is_empty() {
            format!("the arguments of `{}`", self.tool)
        } else {
            format!("`{}.{path}`", self.tool)
        }
    }

    /// Compares a schema of the old surface with its counterpart at `path` (empty: a tool's
    /// arguments): its texts, its raw keywords and annotations, then what its type holds.
    fn compare(&mut self, old: &Schema, new: &Schema, path: &str) {
        self.compare_texts(old, new, path);
        self.compare_raw(&old.extra, &new.extra, path, "keyword-changed", "keyword");
        let no_schema = |a: &[(String, Value)]| -> Vec<(String, Value)> {
            a.iter().filter(|(k, _)| k != "$schema").cloned().collect()
        };
        self.compare_raw(
            &no_schema(&old.annotations),
            &no_schema(&new.annotations),
            path,
            "annotation-changed",
            "annotation",
        );
        self.compare_kinds(old, new, path);
    }

    /// A field's description, title and default (a tool's own are its entry's, compared
    /// with the entry).
    fn compare_texts(&mut self, old: &Schema, new: &Schema, path: &str) {
        if !path.is_empty() && (old.description != new.description || old.title != new.title) {
            let s = self.subject(path);
            self.add(
                "description-changed",
                path,
                format!("the description of {s} changed"),
            );
        }
        if old.default != new.default && !path.is_empty() {
            let s = self.subject(path);
            let show = |d: &Option<Value>| {
                d.as_ref()
                    .map_or_else(|| "none".to_string(), ToString::to_string)
            };
            self.add(
                "default-changed",
                path,
                format!(
                    "the default of {s} changed from {} to {}",
                    show(&old.default),
                    show(&new.default)
                ),
            );
        }
    }

    /// What the typed model holds: the same type compared rule by rule, integers widened to
    /// numbers or anything loosened, any other change of type a change of type.
    fn compare_kinds(&mut self, old: &Schema, new: &Schema, path: &str) {
        match (&old.kind, &new.kind) {
            (Kind::Object(o), Kind::Object(n)) => self.compare_objects(o, n, path),
            (Kind::String(o), Kind::String(n)) => self.compare_strings(o, n, path),
            (Kind::Integer(o), Kind::Integer(n)) | (Kind::Number(o), Kind::Number(n)) => {
                self.compare_numbers(o, n, path);
            }
            (Kind::Integer(_), Kind::Number(_)) => {
                let s = self.subject(path);
                self.add(
                    "constraint-loosened",
                    path,
                    format!("{s} now accepts any number, not only integers"),
                );
            }
            (Kind::Array(o), Kind::Array(n)) => self.compare_arrays(o, n, path),
            (Kind::Any, Kind::Any) | (Kind::Boolean, Kind::Boolean) => {}
            (_, Kind::Any) => {
                let s = self.subject(path);
                self.add(
                    "constraint-loosened",
                    path,
                    format!("{s} now accepts any JSON value (was {})", old.type_name()),
                );
            }
            _ => {
                let s = self.subject(path);
                self.add(
                    "type-changed",
                    path,
                    format!(
                        "{s} changed type from {} to {}",
                        old.type_name(),
                        new.type_name()
                    ),
                );
            }
        }
    }

    /// Two strings: their enums (added, dropped, or value by value) and length bounds.
    fn compare_strings(&mut self, o: &StringRules, n: &StringRules, path: &str) {
        match (&o.enum_values, &n.enum_values) {
            (Some(ov), Some(nv)) => self.compare_enums(ov, nv, path),
            (None, Some(nv)) => {
                let s = self.subject(path);
                self.add(
                    "enum-added",
                    path,
                    format!("{s} is now limited to {}", nv.join(", ")),
                );
            }
            (Some(_), None) => {
                let s = self.subject(path);
                self.add("enum-dropped", path, format!("{s} now accepts any string"));
            }
            (None, None) => {}
        }
        self.bound(
            path,
            "minLength",
            count(o.min_length),
            count(n.min_length),
            true,
        );
        self.bound(
            path,
            "maxLength",
            count(o.max_length),
            count(n.max_length),
            false,
        );
    }

    /// Two numbers (or two integers): their four bounds.
    fn compare_numbers(&mut self, o: &NumberRules, n: &NumberRules, path: &str) {
        let f = |x: Option<crate::json::Number>| x.map(|n| n.as_f64());
        self.bound(path, "minimum", f(o.minimum), f(n.minimum), true);
        self.bound(
            path,
            "exclusiveMinimum",
            f(o.exclusive_minimum),
            f(n.exclusive_minimum),
            true,
        );
        self.bound(path, "maximum", f(o.maximum), f(n.maximum), false);
        self.bound(
            path,
            "exclusiveMaximum",
            f(o.exclusive_maximum),
            f(n.exclusive_maximum),
            false,
        );
    }

    /// Two arrays: their length bounds, then their items (`path[]`).
    fn compare_arrays(&mut self, o: &ArrayRules, n: &ArrayRules, path: &str) {
        self.bound(
            path,
            "minItems",
            count(o.min_items),
            count(n.min_items),
            true,
        );
        self.bound(
            path,
            "maxItems",
            count(o.max_items),
            count(n.max_items),
            false,
        );
        match (&o.items, &n.items) {
            (Some(oi), Some(ni)) => self.compare(oi, ni, &format!("{path}[]")),
            (None, Some(_)) => {
                let s = self.subject(path);
                self.add(
                    "type-changed",
                    path,
                    format!("the items of {s} now have a schema"),
                );
            }
            _ => {}
        }
    }

    /// Compares keywords kept raw (`$ref`s inlined on both sides), one change per keyword.
    fn compare_raw(
        &mut self,
        old: &[(String, Value)],
        new: &[(String, Value)],
        path: &str,
        rule: &'static str,
        what: &str,
    ) {
        let mut keys: Vec<&str> = old.iter().chain(new).map(|(k, _)| k.as_str()).collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            let get = |side: &[(String, Value)]| {
                side.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
            };
            let (o, n) = (get(old), get(new));
            if o == n {
                continue;
            }
            let s = self.subject(path);
            let how = match (&o, &n) {
                (None, Some(_)) => "was added to",
                (Some(_), None) => "was removed from",
                _ => "changed in",
            };
            self.add(rule, path, format!("{what} `{key}` {how} {s}"));
        }
    }

    fn bound(&mut self, path: &str, key: &str, old: Option<f64>, new: Option<f64>, is_lower: bool) {
        if old == new {
            return;
        }
        let tighter = match (old, new) {
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(o), Some(n)) => {
                if is_lower {
                    n > o
                } else {
                    n < o
                }
            }
            (None, None) => return,
        };
        let show = |v: Option<f64>| v.map_or_else(|| "none".to_string(), |v| v.to_string());
        let s = self.subject(path);
        let (rule, verb) = if tighter {
            ("constraint-tightened", "tightened")
        } else {
            ("constraint-loosened", "loosened")
        };
        self.add(
            rule,
            path,
            format!("`{key}` of {s} {verb} from {} to {}", show(old), show(new)),
        );
    }

    fn compare_enums(&mut self, old: &[String], new: &[String], path: &str) {
        let top_level = !path.contains(['.', '[']);
        let restricted = top_level && self.restricted.contains(path);
        let s = self.subject(path);
        for v in old {
            if new.contains(v) {
                continue;
            }
            if top_level && let Some(to) = self.renames.value(path, v) {
                self.add(
                    "enum-value-renamed",
                    path,
                    format!("{s} value \"{v}\" was renamed to \"{to}\""),
                );
                continue;
            }
            let rule = if restricted {
                "restriction-tightened"
            } else {
                "enum-value-removed"
            };
            self.add(rule, path, format!("{s} no longer accepts \"{v}\""));
        }
        for v in new {
            if old.contains(v) {
                continue;
            }
            let is_rename_target = top_level
                && old
                    .iter()
                    .any(|o| self.renames.value(path, o) == Some(v.as_str()));
            if is_rename_target {
                continue;
            }
            let rule = if restricted {
                "restriction-loosened"
            } else {
                "enum-value-added"
            };
            self.add(rule, path, format!("{s} accepts \"{v}\""));
        }
    }

    /// Two objects: field by field (renames followed at the top level), then what they say
    /// of undeclared fields and their conditional requirement.
    fn compare_objects(&mut self, o: &ObjectRules, n: &ObjectRules, path: &str) {
        let rename_targets = self.compare_old_fields(o, n, path);
        self.compare_new_fields(o, n, path, &rename_targets);
        self.compare_additional(o, n, path);
        self.compare_conditional(o, n, path);
    }

    /// Each old field: compared with the new one of its name or, at the top level, of the
    /// name it was renamed to, else removed. Returns the names renamed to.
    fn compare_old_fields<'n>(
        &mut self,
        o: &ObjectRules,
        n: &'n ObjectRules,
        path: &str,
    ) -> BTreeSet<&'n str> {
        let top = path.is_empty();
        let mut rename_targets: BTreeSet<&str> = BTreeSet::new();
        for (name, os) in &o.properties {
            let p = join(path, name);
            if let Some(ns) = n.property(name) {
                self.compare_required(o.is_required(name), n.is_required(name), &p);
                self.compare(os, ns, &p);
                continue;
            }
            let renamed = if top {
                self.renames.field(name).filter(|t| n.property(t).is_some())
            } else {
                None
            };
            let Some(to) = renamed else {
                let s = self.subject(&p);
                self.add("field-removed", &p, format!("field {s} was removed"));
                continue;
            };
            let Some((to, ns)) = n.properties.iter().find(|(k, _)| k == to) else {
                continue;
            };
            rename_targets.insert(to.as_str());
            self.add(
                "field-renamed",
                &p,
                format!("field `{}.{p}` was renamed to `{to}`", self.tool),
            );
            self.compare_required(o.is_required(name), n.is_required(to), to);
            self.compare(os, ns, to);
        }
        rename_targets
    }

    /// Each new field that is neither an old one nor a rename's target: added, required or
    /// optional.
    fn compare_new_fields(
        &mut self,
        o: &ObjectRules,
        n: &ObjectRules,
        path: &str,
        rename_targets: &BTreeSet<&str>,
    ) {
        for (name, _) in &n.properties {
            if o.property(name).is_some() || rename_targets.contains(name.as_str()) {
                continue;
            }
            let p = join(path, name);
            let s = self.subject(&p);
            if n.is_required(name) {
                self.add(
                    "required-field-added",
                    &p,
                    format!("new required field {s}"),
                );
            } else {
                self.add("field-added", &p, format!("new optional field {s}"));
            }
        }
    }

    /// Whether undeclared fields became forbidden or allowed.
    fn compare_additional(&mut self, o: &ObjectRules, n: &ObjectRules, path: &str) {
        let forbids = |a: &Additional| matches!(a, Additional::Forbidden);
        if !forbids(&o.additional) && forbids(&n.additional) {
            let s = self.subject(path);
            self.add(
                "additional-properties-forbidden",
                path,
                format!("{s} no longer accept undeclared fields"),
            );
        }
        if forbids(&o.additional) && !forbids(&n.additional) {
            let s = self.subject(path);
            self.add(
                "additional-properties-allowed",
                path,
                format!("{s} now accept undeclared fields"),
            );
        }
    }

    /// Whether the conditional requirement was added (or changed) or dropped.
    fn compare_conditional(&mut self, o: &ObjectRules, n: &ObjectRules, path: &str) {
        if o.conditional == n.conditional {
            return;
        }
        let s = self.subject(path);
        match (&o.conditional, &n.conditional) {
            (_, Some(c)) => {
                let when: Vec<String> = c.when.iter().map(|(f, v)| format!("{f} = {v}")).collect();
                self.add(
                    "conditional-requirement-added",
                    path,
                    format!(
                        "{s}: {} now required when {}",
                        c.then_required.join(", "),
                        when.join(" and ")
                    ),
                );
            }
            (Some(_), None) => self.add(
                "conditional-requirement-removed",
                path,
                format!("{s}: a conditional requirement was dropped"),
            ),
            (None, None) => {}
        }
    }

    fn compare_required(&mut self, was: bool, is: bool, path: &str) {
        let s = self.subject(path);
        if !was && is {
            self.add(
                "field-became-required",
                path,
                format!("{s} is now required"),
            );
        } else if was && !is {
            self.add(
                "field-became-optional",
                path,
                format!("{s} is now optional"),
            );
        }
    }
}

/// The diff as toolgate's JSON: `{"bump": ..., "changes": [...], "skipped": [...]}`.
pub fn to_json(d: &Diff) -> Value {
    use crate::json::Map;
    let mut m = Map::new();
    m.insert("bump", Value::str(d.bump.as_str()));
    m.insert("risk", Value::str(d.risk.as_str()));
    let changes = d
        .changes
        .iter()
        .map(|c| {
            let mut o = Map::new();
            o.insert("rule", Value::str(c.rule));
            o.insert("bump", Value::str(c.bump.as_str()));
            o.insert("risk", Value::str(c.risk.as_str()));
            o.insert("tool", c.tool.clone().map_or(Value::Null, Value::String));
            o.insert("field", c.field.clone().map_or(Value::Null, Value::String));
            o.insert(
                "profiles",
                Value::Array(c.profiles.iter().map(|p| Value::str(p.clone())).collect()),
            );
            o.insert("message", Value::str(c.message.clone()));
            Value::Object(o)
        })
        .collect();
    m.insert("changes", Value::Array(changes));
    m.insert(
        "skipped",
        Value::Array(d.skipped.iter().map(|s| Value::str(s.clone())).collect()),
    );
    Value::Object(m)
}

fn profiles_note(d: &Diff, c: &Change) -> String {
    if c.profiles.is_empty() {
        String::new()
    } else if c.profiles.len() > 1 && c.profiles.len() == d.profiles.len() {
        " [all profiles]".to_string()
    } else {
        format!(" [{}]", c.profiles.join(", "))
    }
}

/// The diff for a terminal: one line per change, grouped by bump, then the overall bump.
pub fn to_human(d: &Diff) -> String {
    let mut out = String::new();
    if d.changes.is_empty() {
        out.push_str("no change\n");
    }
    let high: Vec<&Change> = d.changes.iter().filter(|c| c.risk == Risk::High).collect();
    if !high.is_empty() {
        out.push_str(&format!("high risk ({}):\n", high.len()));
        for c in high {
            out.push_str(&format!(
                "  {}: {}{}\n",
                c.rule,
                c.message,
                profiles_note(d, c)
            ));
        }
    }
    for bump in [Bump::Major, Bump::Minor, Bump::Patch] {
        let group: Vec<&Change> = d.changes.iter().filter(|c| c.bump == bump).collect();
        if group.is_empty() {
            continue;
        }
        out.push_str(&format!("{bump} ({}):\n", group.len()));
        for c in group {
            out.push_str(&format!(
                "  {}: {}{}\n",
                c.rule,
                c.message,
                profiles_note(d, c)
            ));
        }
    }
    for s in &d.skipped {
        out.push_str(&format!("note: {s}\n"));
    }
    out.push_str(&format!("required bump: {}\n", d.bump));
    out.push_str(&format!("risk: {}\n", d.risk));
    out
}

/// The diff as Markdown, for a release note.
pub fn to_markdown(d: &Diff) -> String {
    let mut out = format!("## Tool surface changes: {}, risk {}\n", d.bump, d.risk);
    if d.changes.is_empty() {
        out.push_str("\nNo change.\n");
    }
    let high: Vec<&Change> = d.changes.iter().filter(|c| c.risk == Risk::High).collect();
    if !high.is_empty() {
        out.push_str("\n### High risk\n\n| rule | change |\n|---|---|\n");
        for c in high {
            out.push_str(&format!(
                "| `{}` | {} |\n",
                c.rule,
                c.message.replace('|', "\\|")
            ));
        }
    }
    for (bump, title) in [
        (Bump::Major, "Breaking (major)"),
        (Bump::Minor, "Added (minor)"),
        (Bump::Patch, "Text (patch)"),
    ] {
        let group: Vec<&Change> = d.changes.iter().filter(|c| c.bump == bump).collect();
        if group.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "\n### {title}\n\n| rule | change | profiles |\n|---|---|---|\n"
        ));
        for c in group {
            let profiles = match profiles_note(d, c).trim() {
                "" | "[all profiles]" => "all".to_string(),
                p => p.trim_start_matches('[').trim_end_matches(']').to_string(),
            };
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                c.rule,
                c.message.replace('|', "\\|"),
                profiles
            ));
        }
    }
    for s in &d.skipped {
        out.push_str(&format!("\n> Note: {s}\n"));
    }
    out
}
