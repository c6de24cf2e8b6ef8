//! `toolgate import`: a catalog written from what a server serves, profile by profile.
//!
//! The input is one `tools/list` capture per profile (and, optionally, the capture of a
//! session whose profile is unknown: what the server gives when it fails closed). The output
//! is a catalog folder in memory, relative path to bytes ([`Plan`]):
//!
//! - `tools/<name>.json` per tool: the tool object exactly as the server sent it (same keys,
//!   same key order, schemas untouched), then toolgate's own keys (`variant`, `group`, and a
//!   `formerly` kept from an earlier import). A tool whose object differs between profiles
//!   gets one file per distinct object, `tools/<name>.<variant>.json`, each variant named after
//!   the first profile (in `--profile` order) that is served it.
//! - `profiles.json`: the profiles in the order given, one group per distinct set of profiles
//!   (so that the grant rows group the tools that share that set), a `["*"]` row for the
//!   tools every profile sees, `always_on` exactly the fail-closed capture, the variants.
//!
//! Everything is sorted or in the order of the input, so the same captures give the same
//! bytes. Re-importing over an existing catalog ([`Existing`]) keeps what import does not
//! own (`formerly`, `restrictions`, `budgets`, `hosts`, `server_name`, descriptions, the
//! selector's variable) or refuses with
//! the reason.
//!
//! Two tool objects are the same when they are equal as JSON (key order aside): a server
//! that writes its keys in another order for another profile has not changed the schema.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::diag::{Ctxt, Diagnostic, Errors, SourceText};
use crate::json::{Map, Value, to_pretty};
use crate::load::{MATRIX_FILE, SourceFile, valid_name};
use crate::locate::{Pointer, Position};

/// Keys of a tool file that are toolgate's own: a server's tool object must not carry them.
pub const TOOLGATE_KEYS: &[&str] = &["$schema", "group", "variant", "extends", "formerly"];

/// One `tools/list` capture: the tools one session was served.
#[derive(Clone, Debug)]
pub struct Capture {
    /// The profile of the session; `None` for the fail-closed session (an unknown profile).
    pub profile: Option<String>,
    /// Where the capture comes from (a file, or a server run), with its text when there is
    /// one, to place errors.
    pub source: SourceText,
    /// A short phrase for the profile's description in the matrix (`repos.tools.json`).
    pub origin: String,
    /// The tools, each as its JSON object, in the order served.
    pub tools: Vec<Value>,
    /// Where the tools array is in the source (`/tools`, `/result/tools`, or the root).
    pub base: Pointer,
}

impl Capture {
    /// Reads a capture file: a `tools/list` result (`{"tools": [...]}`), a JSON-RPC response
    /// holding one (`{"jsonrpc": "2.0", "id": 1, "result": {"tools": [...]}}`) or a bare
    /// array of tools. Errors name the file and the place.
    pub fn from_file(profile: Option<&str>, path: &Path, bytes: &[u8]) -> Result<Capture, Errors> {
        let origin = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let fail = |position: Option<Position>, message: String| {
            Errors(vec![Diagnostic {
                path: path.to_path_buf(),
                position,
                pointer: None,
                message,
            }])
        };
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t.strip_prefix('\u{feff}').unwrap_or(t).to_string(),
            Err(e) => {
                return Err(fail(
                    None,
                    format!(
                        "is not UTF-8 text (byte {}); expected a tools/list result in JSON",
                        e.valid_up_to()
                    ),
                ));
            }
        };
        if text.trim().is_empty() {
            return Err(fail(
                None,
                "is empty; expected a tools/list result in JSON".into(),
            ));
        }
        let value: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                let position = (e.line() > 0).then(|| line_column(&text, e.line(), e.column()));
                let full = e.to_string();
                let message = full
                    .rfind(" at line ")
                    .map_or(full.as_str(), |i| &full[..i]);
                return Err(fail(position, format!("invalid JSON: {message}")));
            }
        };
        let source = SourceText {
            path: path.to_path_buf(),
            text,
        };
        let (base, tools) = find_tools(&source, &value)?;
        Ok(Capture {
            profile: profile.map(str::to_string),
            source,
            origin,
            tools,
            base,
        })
    }

    /// A capture received from a running server (no text to place errors in): `label`
    /// names the run in messages (`server run with TATARA_TOOL_PROFILE=review`), and the
    /// profile's description until [`Capture::with_origin`] gives a shorter one.
    pub fn from_tools(profile: Option<&str>, label: &str, tools: Vec<Value>) -> Capture {
        Capture {
            profile: profile.map(str::to_string),
            source: SourceText {
                path: PathBuf::from(label),
                text: String::new(),
            },
            origin: label.to_string(),
            tools,
            base: Pointer::root(),
        }
    }

    /// The same capture, described in the matrix as imported from `origin`.
    pub fn with_origin(mut self, origin: impl Into<String>) -> Capture {
        self.origin = origin.into();
        self
    }

    fn at(&self, index: usize) -> Pointer {
        self.base.index(index)
    }
}

/// Finds the tools array in a capture document.
fn find_tools(source: &SourceText, value: &Value) -> Result<(Pointer, Vec<Value>), Errors> {
    let mut cx = Ctxt::new();
    let root = Pointer::root();
    let shape = "expected a tools/list result (`{\"tools\": [...]}`), a JSON-RPC response holding one, or an array of tools";
    let (base, container) = match value {
        Value::Array(tools) => return Ok((root, tools.clone())),
        Value::Object(m) if m.contains_key("tools") => (root, m),
        Value::Object(m) => match (m.get("result"), m.get("error")) {
            (Some(Value::Object(r)), _) if r.contains_key("tools") => (root.key("result"), r),
            (Some(_), _) => {
                cx.at(
                    source,
                    &root.key("result"),
                    format!("the JSON-RPC result has no `tools`; {shape}"),
                );
                return Err(cx.finish(()).err().unwrap_or_default());
            }
            (None, Some(err)) => {
                let message = err
                    .as_object()
                    .and_then(|e| e.get("message"))
                    .and_then(Value::as_str)
                    .unwrap_or("(no message)");
                cx.at(
                    source,
                    &root.key("error"),
                    format!(
                        "is a JSON-RPC error response (\"{message}\"), not a tools/list result"
                    ),
                );
                return Err(cx.finish(()).err().unwrap_or_default());
            }
            (None, None) => {
                cx.file(
                    &source.path,
                    Some(Position { line: 1, column: 1 }),
                    format!("has no `tools`; {shape}"),
                );
                return Err(cx.finish(()).err().unwrap_or_default());
            }
        },
        other => {
            cx.file(
                &source.path,
                None,
                format!("is {} in JSON; {shape}", a_type(other)),
            );
            return Err(cx.finish(()).err().unwrap_or_default());
        }
    };
    if let Some(cursor) = container.get("nextCursor")
        && !matches!(cursor, Value::Null)
    {
        cx.at(
            source,
            &base.key("nextCursor"),
            "has a `nextCursor`: this is one page of several; capture every page and give their tools in one list",
        );
    }
    let tools = match container.get("tools") {
        Some(Value::Array(tools)) => tools.clone(),
        Some(other) => {
            cx.at(
                source,
                &base.key("tools"),
                format!("`tools` is {}; expected an array of tools", a_type(other)),
            );
            Vec::new()
        }
        None => Vec::new(),
    };
    cx.finish((base.key("tools"), tools))
}

fn a_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// serde_json's line and byte column as a [`Position`] (columns in characters).
fn line_column(text: &str, line: usize, column: usize) -> Position {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let mut offset = (line_start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    Position::of_offset(text, offset)
}

/// What to import.
#[derive(Clone, Debug)]
pub struct Options {
    /// The catalog's name (`catalog` in the matrix).
    pub name: String,
    /// The selector's environment variable; `None`: the existing catalog's, else
    /// `<NAME>_TOOL_PROFILE`.
    pub selector_env: Option<String>,
    /// Whether profiles combine (`selector.combine`): a session may name several.
    pub combine: bool,
}

/// The catalog already in the output folder, as raw files (relative path to bytes): what a
/// re-import keeps from it and what it replaces.
#[derive(Clone, Debug, Default)]
pub struct Existing {
    /// Shown in messages as the folder.
    pub dir: PathBuf,
    /// `profiles.json` and every `tools/*.json`, relative path to bytes.
    pub files: BTreeMap<String, Vec<u8>>,
}

/// A catalog to write: every file, and the files of the existing catalog it replaces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// Relative path (`profiles.json`, `tools/x.json`) to the file's bytes, sorted.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Tool files of the existing catalog that the new one no longer has.
    pub remove: Vec<String>,
    /// The number of grant rows written.
    pub grant_rows: usize,
}

impl Plan {
    /// The files as a catalog's sources, for [`crate::load_sources`].
    pub fn sources(&self) -> Vec<SourceFile> {
        self.files
            .iter()
            .map(|(rel, bytes)| SourceFile {
                rel: rel.clone(),
                bytes: bytes.clone(),
            })
            .collect()
    }
}

/// Whether `name` may be an imported tool's name: MCP's tool name characters (letters,
/// digits, `_`, `-`, `.`, 1 to 128), not starting with `.` (the file would be hidden).
pub fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// One tool across the captures: each distinct object and who is served it.
struct Imported {
    /// Distinct objects, in order of the first profile served each.
    objects: Vec<Value>,
    /// Per profile index (in profile order), the index into `objects`.
    served: BTreeMap<usize, usize>,
    /// Where the tool is in each capture, for errors: capture index, tool index.
    places: Vec<(usize, usize)>,
    /// In the fail-closed capture.
    always_on: bool,
}

/// Builds the catalog files from the captures. Every error is reported together.
pub fn plan(
    options: &Options,
    captures: &[Capture],
    existing: Option<&Existing>,
) -> Result<Plan, Errors> {
    let mut cx = Ctxt::new();
    let profiles = check_profiles(options, captures, &mut cx);
    let tools = collect_tools(captures, &profiles, &mut cx);
    check_variants_and_always_on(options, captures, &profiles, &tools, &mut cx);
    let kept = match existing {
        Some(e) => Kept::read(e, &mut cx),
        None => Kept::default(),
    };
    kept.check_formerly(&tools, &mut cx);
    kept.check_restrictions(&tools, &profiles, &mut cx);
    if !cx.is_empty() {
        return Err(cx.finish(()).err().unwrap_or_default());
    }
    let groups = make_groups(&profiles, &tools);
    let mut files = BTreeMap::new();
    write_tools(&tools, &profiles, &groups, &kept, &mut files, &mut cx);
    let matrix = matrix(options, captures, &profiles, &tools, &groups, &kept);
    files.insert(MATRIX_FILE.to_string(), to_pretty(&matrix).into_bytes());
    let remove = existing.map_or_else(Vec::new, |e| {
        e.files
            .keys()
            .filter(|rel| rel.starts_with("tools/") && !files.contains_key(*rel))
            .cloned()
            .collect()
    });
    let grant_rows = groups.iter().filter(|g| g.granted).count();
    cx.finish(Plan {
        files,
        remove,
        grant_rows,
    })
}

/// Profile names in order; checks names, duplicates and that there is at most one
/// fail-closed capture.
fn check_profiles(options: &Options, captures: &[Capture], cx: &mut Ctxt) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut fail_closed = 0;
    for c in captures {
        let Some(p) = &c.profile else {
            fail_closed += 1;
            continue;
        };
        let problem = if !valid_name(p) {
            Some(format!(
                "profile name \"{p}\" must be 1 to 128 characters of A-Z, a-z, 0-9, `_` and `-`"
            ))
        } else if names.contains(p) {
            Some(format!("profile `{p}` is given twice"))
        } else {
            None
        };
        match problem {
            Some(m) => cx.file(&c.source.path, None, m),
            None => names.push(p.clone()),
        }
    }
    if captures.iter().all(|c| c.profile.is_none()) {
        cx.file(
            Path::new(&options.name),
            None,
            "no profile to import: give at least one --profile",
        );
    }
    if fail_closed > 1 {
        cx.file(
            Path::new(&options.name),
            None,
            "more than one fail-closed capture",
        );
    }
    if !valid_name(&options.name) {
        cx.file(
            Path::new(&options.name),
            None,
            format!(
                "catalog name \"{}\" must be 1 to 128 characters of A-Z, a-z, 0-9, `_` and `-` (give --name)",
                options.name
            ),
        );
    }
    names
}

/// Every tool by name, with its distinct objects and who is served each.
fn collect_tools(
    captures: &[Capture],
    profiles: &[String],
    cx: &mut Ctxt,
) -> BTreeMap<String, Imported> {
    let mut tools: BTreeMap<String, Imported> = BTreeMap::new();
    for (ci, c) in captures.iter().enumerate() {
        let profile = c
            .profile
            .as_ref()
            .and_then(|p| profiles.iter().position(|q| q == p));
        if c.profile.is_some() && profile.is_none() {
            continue; // a duplicate or invalid profile, already reported
        }
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for (ti, tool) in c.tools.iter().enumerate() {
            let Some(name) = check_tool(c, ti, tool, cx) else {
                continue;
            };
            if let Some(first) = seen.insert(name, ti) {
                cx.at(
                    &c.source,
                    &c.at(ti).key("name"),
                    format!("tool `{name}` is listed twice (also at {})", c.at(first)),
                );
                continue;
            }
            let entry = tools.entry(name.to_string()).or_insert_with(|| Imported {
                objects: Vec::new(),
                served: BTreeMap::new(),
                places: Vec::new(),
                always_on: false,
            });
            entry.places.push((ci, ti));
            let Some(p) = profile else {
                entry.always_on = true;
                continue;
            };
            let ix = match entry.objects.iter().position(|o| same_tool(o, tool)) {
                Some(ix) => ix,
                None => {
                    entry.objects.push(tool.clone());
                    entry.objects.len() - 1
                }
            };
            entry.served.insert(p, ix);
        }
    }
    // Captures come in profile order, so the distinct objects are in order of the first
    // profile served each: the variants are named so.
    tools
}

/// Checks one tool object of a capture; its name when it can be imported.
fn check_tool<'a>(c: &Capture, ti: usize, tool: &'a Value, cx: &mut Ctxt) -> Option<&'a str> {
    let at = c.at(ti);
    let Value::Object(m) = tool else {
        cx.at(
            &c.source,
            &at,
            format!("a tool must be a JSON object, found {}", a_type(tool)),
        );
        return None;
    };
    let name = match m.get("name") {
        Some(Value::String(n)) => n.as_str(),
        Some(other) => {
            cx.at(
                &c.source,
                &at.key("name"),
                format!("`name` is {}; expected a string", a_type(other)),
            );
            return None;
        }
        None => {
            cx.at(&c.source, &at, "this tool has no `name`");
            return None;
        }
    };
    let mut ok = true;
    if !valid_tool_name(name) {
        cx.at(
            &c.source,
            &at.key("name"),
            format!("tool name \"{name}\" cannot be imported: MCP tool names are 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.` (and a catalog file cannot start with `.`)"),
        );
        ok = false;
    }
    match m.get("inputSchema") {
        Some(Value::Object(_)) => {}
        Some(other) => {
            cx.at(
                &c.source,
                &at.key("inputSchema"),
                format!(
                    "`inputSchema` of `{name}` is {}; expected a JSON Schema object",
                    a_type(other)
                ),
            );
            ok = false;
        }
        None => {
            cx.at(
                &c.source,
                &at,
                format!("tool `{name}` has no `inputSchema` (MCP requires one)"),
            );
            ok = false;
        }
    }
    for key in TOOLGATE_KEYS {
        if m.contains_key(key) {
            cx.at(
                &c.source,
                &at.key(key),
                format!("tool `{name}` has a key `{key}`, which a toolgate tool file uses for itself; it cannot be kept as authored"),
            );
            ok = false;
        }
    }
    ok.then_some(name)
}

/// Two tool objects are the same tool when they are equal as JSON, key order aside.
fn same_tool(a: &Value, b: &Value) -> bool {
    a == b || a.sorted() == b.sorted()
}

fn place(captures: &[Capture], (ci, ti): (usize, usize)) -> (&SourceText, Pointer) {
    (&captures[ci].source, captures[ci].at(ti))
}

fn check_variants_and_always_on(
    options: &Options,
    captures: &[Capture],
    profiles: &[String],
    tools: &BTreeMap<String, Imported>,
    cx: &mut Ctxt,
) {
    for (name, t) in tools {
        if t.objects.len() > 1 && options.combine {
            let who: Vec<String> = t
                .objects
                .iter()
                .enumerate()
                .map(|(ix, _)| {
                    let ps: Vec<&str> = t
                        .served
                        .iter()
                        .filter(|(_, o)| **o == ix)
                        .map(|(p, _)| profiles[*p].as_str())
                        .collect();
                    ps.join(", ")
                })
                .collect();
            let (src, at) = place(captures, t.places[0]);
            cx.at(
                src,
                &at,
                format!(
                    "tool `{name}` differs between profiles ({}: {} versions); with --combine a session may hold several profiles, so each tool needs one schema",
                    who.join(" | "),
                    t.objects.len()
                ),
            );
        }
        if !t.always_on {
            continue;
        }
        let missing: Vec<&str> = (0..profiles.len())
            .filter(|p| !t.served.contains_key(p))
            .map(|p| profiles[p].as_str())
            .collect();
        let fail_closed = t
            .places
            .iter()
            .find(|(ci, _)| captures[*ci].profile.is_none());
        let Some(&fc) = fail_closed else { continue };
        let (src, at) = place(captures, fc);
        if !missing.is_empty() {
            cx.at(
                src,
                &at,
                format!(
                    "tool `{name}` is served to an unknown profile but not to {}; a catalog's always-on tools are served to every profile",
                    missing.join(", ")
                ),
            );
        } else if t.objects.len() > 1 {
            cx.at(
                src,
                &at,
                format!("tool `{name}` is served to an unknown profile, and differs between profiles; an always-on tool has one schema"),
            );
        } else if let Some(obj) = t.objects.first()
            && !captures[fc.0]
                .tools
                .get(fc.1)
                .is_some_and(|v| same_tool(v, obj))
        {
            cx.at(
                src,
                &at,
                format!("tool `{name}` is served to an unknown profile in another form than to the known profiles; an always-on tool has one schema"),
            );
        }
    }
}

/// A group: the tools served to one set of profiles.
struct GroupPlan {
    name: String,
    description: String,
    /// The profile indices; empty for the always-on group.
    profiles: Vec<usize>,
    /// Whether it has a grant row (the always-on group has none).
    granted: bool,
    /// Whether the row is `["*"]`.
    everyone: bool,
}

/// One group per distinct set of profiles, named from it; the always-on group first, then
/// the group of every profile, then the others by their profiles in order.
fn make_groups(profiles: &[String], tools: &BTreeMap<String, Imported>) -> Vec<GroupPlan> {
    let all: Vec<usize> = (0..profiles.len()).collect();
    let mut sets: BTreeSet<Vec<usize>> = BTreeSet::new();
    let mut any_always_on = false;
    for t in tools.values() {
        if t.always_on {
            any_always_on = true;
        } else {
            sets.insert(t.served.keys().copied().collect());
        }
    }
    let mut ordered: Vec<Vec<usize>> = Vec::new();
    if sets.remove(&all) {
        ordered.push(all.clone());
    }
    ordered.extend(sets);
    let mut taken: BTreeSet<String> = tools.keys().cloned().collect();
    let mut groups = Vec::new();
    if any_always_on {
        groups.push(GroupPlan {
            name: claim("always_on".into(), &mut taken),
            description: "Tools every session is served, an unknown profile's too.".into(),
            profiles: Vec::new(),
            granted: false,
            everyone: false,
        });
    }
    let mut shared = 0;
    for set in ordered {
        let names: Vec<&str> = set.iter().map(|&p| profiles[p].as_str()).collect();
        let everyone = set == all;
        let (base, description) = if everyone {
            (
                "all".to_string(),
                "Tools every profile is served.".to_string(),
            )
        } else if let [one] = names.as_slice() {
            (
                one.to_string(),
                format!("Tools only profile `{one}` is served."),
            )
        } else {
            let joined = names.join("_and_");
            let base = if joined.len() <= 64 {
                joined
            } else {
                shared += 1;
                format!("shared_{shared}")
            };
            (base, format!("Tools profiles {} are served.", list(&names)))
        };
        groups.push(GroupPlan {
            name: claim(base, &mut taken),
            description,
            profiles: set,
            granted: true,
            everyone,
        });
    }
    groups
}

/// `base`, or `base_2`, `base_3`, ... : the first that names no tool and no other group.
fn claim(base: String, taken: &mut BTreeSet<String>) -> String {
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

fn list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => format!("`{one}`"),
        [init @ .., last] => {
            let init: Vec<String> = init.iter().map(|n| format!("`{n}`")).collect();
            format!("{} and `{last}`", init.join(", "))
        }
    }
}

fn group_of<'a>(t: &Imported, groups: &'a [GroupPlan]) -> &'a str {
    let set: Vec<usize> = t.served.keys().copied().collect();
    groups
        .iter()
        .find(|g| {
            if t.always_on {
                !g.granted
            } else {
                g.granted && g.profiles == set
            }
        })
        .map_or("", |g| g.name.as_str())
}

/// The variant name of each distinct object: the first profile served it.
fn variant_names(t: &Imported, profiles: &[String]) -> Vec<String> {
    (0..t.objects.len())
        .map(|ix| {
            t.served
                .iter()
                .find(|(_, o)| **o == ix)
                .map_or_else(String::new, |(p, _)| profiles[*p].clone())
        })
        .collect()
}

fn write_tools(
    tools: &BTreeMap<String, Imported>,
    profiles: &[String],
    groups: &[GroupPlan],
    kept: &Kept,
    files: &mut BTreeMap<String, Vec<u8>>,
    cx: &mut Ctxt,
) {
    let mut folded: BTreeMap<String, String> = BTreeMap::new();
    for (name, t) in tools {
        let group = group_of(t, groups);
        let variants = (t.objects.len() > 1).then(|| variant_names(t, profiles));
        for (ix, object) in t.objects.iter().enumerate() {
            let Value::Object(m) = object else { continue };
            let mut out: Map = m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
            let variant = variants.as_ref().map(|v| v[ix].clone());
            if let Some(v) = &variant {
                out.insert("variant", Value::str(v));
            }
            out.insert("group", Value::str(group));
            if let Some(f) = kept.formerly(name, variant.as_deref()) {
                out.insert("formerly", f.clone());
            }
            let rel = match &variant {
                Some(v) => format!("tools/{name}.{v}.json"),
                None => format!("tools/{name}.json"),
            };
            // Two names can make one file (`a.b` and `a` variant `b`), or two files that a
            // case-insensitive file system takes for one.
            if let Some(other) = folded.insert(rel.to_lowercase(), name.clone()) {
                cx.file(
                    Path::new(&rel),
                    None,
                    format!("tools `{other}` and `{name}` would be written to the same file (or to files a case-insensitive file system cannot tell apart)"),
                );
            }
            files.insert(rel, to_pretty(&Value::Object(out)).into_bytes());
        }
    }
}

/// The imported catalog's `profiles.json`: its name and selector, then each part of the
/// matrix in the order a reader of the file meets them.
fn matrix(
    options: &Options,
    captures: &[Capture],
    profiles: &[String],
    tools: &BTreeMap<String, Imported>,
    groups: &[GroupPlan],
    kept: &Kept,
) -> Value {
    let mut m = Map::new();
    m.insert("catalog", Value::str(&options.name));
    let description = kept.description.clone().unwrap_or_else(|| {
        format!(
            "The tools of {}, imported by toolgate import.",
            options.name
        )
    });
    m.insert("description", Value::str(description));
    let env = options
        .selector_env
        .clone()
        .or_else(|| kept.selector_env.clone())
        .unwrap_or_else(|| default_env(&options.name));
    let mut selector = Map::new();
    selector.insert("env", Value::str(env));
    selector.insert("combine", Value::Bool(options.combine));
    m.insert("selector", selector.into());
    m.insert("profiles", matrix_profiles(captures, profiles, kept));
    m.insert("groups", matrix_groups(groups, kept));
    // Exactly the fail-closed capture, in its order.
    let always_on: Vec<Value> = captures
        .iter()
        .filter(|c| c.profile.is_none())
        .flat_map(|c| c.tools.iter())
        .filter_map(|t| t.as_object()?.get("name")?.as_str().map(Value::str))
        .collect();
    m.insert("always_on", Value::Array(always_on));
    m.insert("grants", matrix_grants(profiles, groups));
    let variants = matrix_variants(profiles, tools);
    if !variants.is_empty() {
        m.insert("variants", variants.into());
    }
    if let Some((_, r)) = &kept.restrictions {
        m.insert("restrictions", Value::Object(r.clone()));
    }
    for (key, v) in &kept.limits {
        m.insert(*key, v.clone());
    }
    Value::Object(m)
}

/// Each profile with the description kept from an earlier import, else where it was
/// captured from.
fn matrix_profiles(captures: &[Capture], profiles: &[String], kept: &Kept) -> Value {
    let mut ps = Map::new();
    for p in profiles {
        let origin = captures
            .iter()
            .find(|c| c.profile.as_deref() == Some(p.as_str()))
            .map_or("", |c| c.origin.as_str());
        let d = kept
            .profile_descriptions
            .get(p)
            .cloned()
            .unwrap_or_else(|| format!("Imported from {origin}."));
        ps.insert(p.clone(), Value::str(d));
    }
    ps.into()
}

/// Each group with the description kept from an earlier import, else the planned one.
fn matrix_groups(groups: &[GroupPlan], kept: &Kept) -> Value {
    let mut gs = Map::new();
    for g in groups {
        let d = kept
            .group_descriptions
            .get(&g.name)
            .cloned()
            .unwrap_or_else(|| g.description.clone());
        let mut def = Map::new();
        def.insert("description", Value::str(d));
        gs.insert(g.name.clone(), def.into());
    }
    gs.into()
}

/// A grants row per granted group: `*` when every profile saw it, else the profiles that did.
fn matrix_grants(profiles: &[String], groups: &[GroupPlan]) -> Value {
    let mut grants = Map::new();
    for g in groups.iter().filter(|g| g.granted) {
        let row: Vec<Value> = if g.everyone {
            vec![Value::str("*")]
        } else {
            g.profiles
                .iter()
                .map(|&p| Value::str(&profiles[p]))
                .collect()
        };
        grants.insert(g.name.clone(), Value::Array(row));
    }
    grants.into()
}

/// For each tool served differently to different profiles: which profile gets which variant.
fn matrix_variants(profiles: &[String], tools: &BTreeMap<String, Imported>) -> Map {
    let mut variants = Map::new();
    for (name, t) in tools.iter().filter(|(_, t)| t.objects.len() > 1) {
        let names = variant_names(t, profiles);
        let row: Map = t
            .served
            .iter()
            .map(|(p, ix)| (profiles[*p].clone(), Value::str(&names[*ix])))
            .collect();
        variants.insert(name.clone(), row.into());
    }
    variants
}

/// `<NAME>_TOOL_PROFILE`, the name upper-cased with `-` as `_`.
pub fn default_env(name: &str) -> String {
    let mut env: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    env.push_str("_TOOL_PROFILE");
    env
}

/// What a re-import keeps from the existing catalog.
#[derive(Default)]
struct Kept {
    description: Option<String>,
    selector_env: Option<String>,
    profile_descriptions: BTreeMap<String, String>,
    group_descriptions: BTreeMap<String, String>,
    /// The matrix's `restrictions`, with its source to place errors.
    restrictions: Option<(SourceText, Map)>,
    /// Tool name, then (variant, formerly, the file).
    formerly: BTreeMap<String, Vec<(Option<String>, Value, SourceText)>>,
    /// The matrix's `budgets`, `hosts` and `server_name`, as written (`crate::limits`).
    limits: Vec<(&'static str, Value)>,
}

impl Kept {
    fn read(e: &Existing, cx: &mut Ctxt) -> Kept {
        let mut kept = Kept::default();
        for (rel, bytes) in &e.files {
            let source = SourceText {
                path: e.dir.join(rel),
                text: String::from_utf8_lossy(bytes).into_owned(),
            };
            let value: Value = match serde_json::from_str(&source.text) {
                Ok(Value::Object(m)) => Value::Object(m),
                Ok(_) | Err(_) => {
                    cx.file(
                        &source.path,
                        None,
                        "the existing catalog's file is not a JSON object, so a re-import cannot tell what to keep from it; fix or remove it",
                    );
                    continue;
                }
            };
            let Some(m) = value.as_object() else { continue };
            if rel == MATRIX_FILE {
                kept.read_matrix(&source, m, cx);
            } else {
                kept.read_tool(&source, m, cx);
            }
        }
        kept
    }

    fn read_matrix(&mut self, source: &SourceText, m: &Map, cx: &mut Ctxt) {
        let root = Pointer::root();
        self.description = m
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_string);
        self.selector_env = m
            .get("selector")
            .and_then(Value::as_object)
            .and_then(|s| s.get("env"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let strings = |key: &str| -> BTreeMap<String, String> {
            m.get(key)
                .and_then(Value::as_object)
                .map(|o| {
                    o.iter()
                        .filter_map(|(k, v)| {
                            let d = match v {
                                Value::String(s) => Some(s.as_str()),
                                Value::Object(g) => g.get("description").and_then(Value::as_str),
                                _ => None,
                            };
                            d.map(|d| (k.to_string(), d.to_string()))
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        self.profile_descriptions = strings("profiles");
        self.group_descriptions = strings("groups");
        if m.get("parameters")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty())
        {
            cx.at(
                source,
                &root.key("parameters"),
                "the existing catalog adds parameters to its groups' tools; a server serves them inside each tool's schema, so a re-import would declare them twice: import into an empty folder and move them back by hand",
            );
        }
        if let Some(Value::Object(r)) = m.get("restrictions")
            && !r.is_empty()
        {
            self.restrictions = Some((source.clone(), r.clone()));
        }
        for key in ["budgets", "hosts", "server_name"] {
            if let Some(v) = m.get(key) {
                self.limits.push((key, v.clone()));
            }
        }
    }

    fn read_tool(&mut self, source: &SourceText, m: &Map, cx: &mut Ctxt) {
        if m.contains_key("extends") {
            cx.at(
                source,
                &Pointer::root().key("extends"),
                "this tool `extends` another; a server serves the inherited properties inside its schema, so a re-import cannot keep `extends`: remove it, or import into an empty folder",
            );
        }
        let (Some(name), Some(formerly)) =
            (m.get("name").and_then(Value::as_str), m.get("formerly"))
        else {
            return;
        };
        let variant = m.get("variant").and_then(Value::as_str).map(str::to_string);
        self.formerly.entry(name.to_string()).or_default().push((
            variant,
            formerly.clone(),
            source.clone(),
        ));
    }

    /// The `formerly` to keep on a tool's file: the same variant's, else the tool's first.
    fn formerly(&self, name: &str, variant: Option<&str>) -> Option<&Value> {
        let all = self.formerly.get(name)?;
        all.iter()
            .find(|(v, _, _)| v.as_deref() == variant)
            .or_else(|| all.first())
            .map(|(_, f, _)| f)
    }

    /// Refuses to drop the `formerly` of a tool that is no longer served.
    fn check_formerly(&self, tools: &BTreeMap<String, Imported>, cx: &mut Ctxt) {
        for (name, entries) in &self.formerly {
            if tools.contains_key(name) {
                continue;
            }
            for (_, _, source) in entries {
                cx.at(
                    source,
                    &Pointer::root().key("formerly"),
                    format!("tool `{name}` declares former names but is no longer served; a re-import would lose them: move them to the tool that replaces it, or delete this file"),
                );
            }
        }
    }

    /// Checks the restrictions kept against the new surface: each names a tool still
    /// served, not always on, to the profile the cell is for.
    fn check_restrictions(
        &self,
        tools: &BTreeMap<String, Imported>,
        profiles: &[String],
        cx: &mut Ctxt,
    ) {
        let Some((source, r)) = self.restrictions.as_ref() else {
            return;
        };
        let at = Pointer::root().key("restrictions");
        for (tool, cells) in r.iter() {
            let Some(t) = tools.get(tool) else {
                cx.at(source, &at.key(tool), format!("restrictions on `{tool}` are kept by a re-import, but the server no longer serves `{tool}`: remove them"));
                continue;
            };
            if t.always_on {
                cx.at(source, &at.key(tool), format!("`{tool}` is now always on, and an always-on tool cannot be restricted: remove its restrictions"));
                continue;
            }
            for (profile, _) in cells
                .as_object()
                .map(|c| c.iter().collect::<Vec<_>>())
                .unwrap_or_default()
            {
                let served = profiles
                    .iter()
                    .position(|p| p == profile)
                    .is_some_and(|p| t.served.contains_key(&p));
                if !served {
                    cx.at(source, &at.key(tool).key(profile), format!("the restriction of `{tool}` for `{profile}` is kept by a re-import, but `{profile}` is no longer served `{tool}`: remove it"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Capture, Errors> {
        Capture::from_file(Some("p"), Path::new("cap.json"), text.as_bytes())
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    const TOOL: &str = r#"{"name":"t","inputSchema":{"type":"object"}}"#;

    #[test]
    fn reads_the_three_shapes() {
        for (text, base) in [
            (format!(r#"{{"tools":[{TOOL}]}}"#), "/tools"),
            (
                format!(r#"{{"jsonrpc":"2.0","id":2,"result":{{"tools":[{TOOL}]}}}}"#),
                "/result/tools",
            ),
            (format!("[{TOOL}]"), "(root)"),
        ] {
            let c = parse(&text).unwrap();
            assert_eq!(c.tools.len(), 1);
            assert_eq!(c.base.to_string(), base, "{text}");
        }
    }

    #[test]
    fn bad_shapes_are_named_with_their_place() {
        assert!(
            err("{\n  \"tools\": [1,]\n}").starts_with("error: cap.json:2:"),
            "{}",
            err("{\"tools\": [1,]}")
        );
        assert!(err("").contains("is empty"));
        assert!(err("42").contains("is a number in JSON; expected a tools/list result"));
        assert!(err(r#"{"x":1}"#).contains("has no `tools`"));
        assert!(err(r#"{"tools":{}}"#).contains("`tools` is an object; expected an array"));
        let e =
            err(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#);
        assert!(
            e.contains("JSON-RPC error response (\"Method not found\")"),
            "{e}"
        );
        let e = err(r#"{"tools":[],"nextCursor":"2"}"#);
        assert!(
            e.contains("cap.json:1:") && e.contains("one page of several"),
            "{e}"
        );
        assert!(
            Capture::from_file(None, Path::new("x"), b"\xff\xfe")
                .unwrap_err()
                .to_string()
                .contains("not UTF-8")
        );
    }

    fn options(combine: bool) -> Options {
        Options {
            name: "demo".into(),
            selector_env: None,
            combine,
        }
    }

    fn plan_of(combine: bool, caps: &[(Option<&str>, &str)]) -> Result<Plan, Errors> {
        let captures: Vec<Capture> = caps
            .iter()
            .map(|(p, text)| {
                Capture::from_file(
                    *p,
                    Path::new(&format!("{}.json", p.unwrap_or("unknown"))),
                    text.as_bytes(),
                )
            })
            .collect::<Result<_, _>>()?;
        plan(&options(combine), &captures, None)
    }

    #[test]
    fn bad_tools_are_all_reported_with_their_place() {
        let e = plan_of(
            false,
            &[(
                Some("a"),
                r#"{"tools":[
  {"name":"ok","inputSchema":{}},
  {"inputSchema":{}},
  {"name":"ok","inputSchema":{}},
  {"name":"../x","inputSchema":{}},
  {"name":"g","group":"x","inputSchema":{}},
  {"name":"n"},
  7
]}"#,
            )],
        )
        .unwrap_err()
        .to_string();
        for want in [
            "a.json:3:3: at /tools/1: this tool has no `name`",
            "a.json:4:4: at /tools/2/name: tool `ok` is listed twice (also at /tools/0)",
            "at /tools/3/name: tool name \"../x\" cannot be imported",
            "at /tools/4/group: tool `g` has a key `group`",
            "at /tools/5: tool `n` has no `inputSchema`",
            "at /tools/6: a tool must be a JSON object, found a number",
        ] {
            assert!(e.contains(want), "missing {want:?} in\n{e}");
        }
    }

    const A: &str = r#"{"name":"a","description":"A","inputSchema":{"type":"object"}}"#;
    const B1: &str = r#"{"name":"b","description":"B","inputSchema":{"type":"object"}}"#;
    const B2: &str = r#"{"name":"b","description":"B, narrower","inputSchema":{"type":"object"}}"#;

    #[test]
    fn a_tool_that_differs_gets_a_file_per_variant_named_after_its_first_profile() {
        let p = plan_of(
            false,
            &[
                (Some("x"), &format!("[{A},{B1}]")),
                (Some("y"), &format!("[{A},{B2}]")),
                (Some("z"), &format!("[{B2}]")),
            ],
        )
        .unwrap();
        let names: Vec<&str> = p.files.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "profiles.json",
                "tools/a.json",
                "tools/b.x.json",
                "tools/b.y.json"
            ]
        );
        let m = String::from_utf8(p.files["profiles.json"].clone()).unwrap();
        assert!(
            m.contains(
                "\"b\": {\n      \"x\": \"x\",\n      \"y\": \"y\",\n      \"z\": \"y\"\n    }"
            ),
            "{m}"
        );
        let b = String::from_utf8(p.files["tools/b.y.json"].clone()).unwrap();
        assert!(
            b.ends_with("\"variant\": \"y\",\n  \"group\": \"all\"\n}\n"),
            "{b}"
        );
        // With --combine, the same captures are refused, naming the tool and who sees what.
        let e = plan_of(
            true,
            &[
                (Some("x"), &format!("[{B1}]")),
                (Some("y"), &format!("[{B2}]")),
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("tool `b` differs between profiles (x | y: 2 versions); with --combine"),
            "{e}"
        );
    }

    #[test]
    fn key_order_alone_is_no_variant() {
        let reordered = r#"{"inputSchema":{"type":"object"},"description":"A","name":"a"}"#;
        let p = plan_of(
            false,
            &[
                (Some("x"), &format!("[{A}]")),
                (Some("y"), &format!("[{reordered}]")),
            ],
        )
        .unwrap();
        assert!(p.files.contains_key("tools/a.json"));
        assert_eq!(p.files.len(), 2);
    }

    #[test]
    fn always_on_is_the_fail_closed_capture_and_must_be_everywhere() {
        let p = plan_of(
            false,
            &[
                (None, &format!("[{A}]")),
                (Some("x"), &format!("[{A},{B1}]")),
                (Some("y"), &format!("[{A}]")),
            ],
        )
        .unwrap();
        let m = String::from_utf8(p.files["profiles.json"].clone()).unwrap();
        assert!(m.contains("\"always_on\": [\n    \"a\"\n  ]"), "{m}");
        assert!(
            m.contains("\"grants\": {\n    \"x\": [\n      \"x\"\n    ]\n  }"),
            "{m}"
        );
        assert_eq!(p.grant_rows, 1);
        let e = plan_of(
            false,
            &[
                (None, &format!("[{A}]")),
                (Some("x"), &format!("[{A}]")),
                (Some("y"), "[]"),
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(
                "unknown.json:1:2: at /0: tool `a` is served to an unknown profile but not to y"
            ),
            "{e}"
        );
        let plain = plan_of(false, &[(Some("x"), &format!("[{A}]"))]).unwrap();
        let m = String::from_utf8(plain.files["profiles.json"].clone()).unwrap();
        assert!(
            m.contains("\"always_on\": [],") && m.contains("\"all\": [\n      \"*\"\n    ]"),
            "{m}"
        );
    }

    #[test]
    fn profiles_and_names_are_checked() {
        let e = plan_of(
            false,
            &[(Some("a,b"), "[]"), (Some("x"), "[]"), (Some("x"), "[]")],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("profile name \"a,b\" must be"), "{e}");
        assert!(e.contains("profile `x` is given twice"), "{e}");
        let e = plan_of(false, &[(None, "[]")]).unwrap_err().to_string();
        assert!(e.contains("no profile to import"), "{e}");
        let same_file = r#"[{"name":"a.x","inputSchema":{}},{"name":"a","inputSchema":{}}]"#;
        let other = r#"[{"name":"a","inputSchema":{"type":"object"}}]"#;
        let e = plan_of(false, &[(Some("x"), same_file), (Some("y"), other)])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("tools `a` and `a.x` would be written to the same file")
                || e.contains("tools `a.x` and `a`"),
            "{e}"
        );
    }

    #[test]
    fn groups_are_named_from_their_profiles_and_never_after_a_tool() {
        let all = r#"{"name":"all","inputSchema":{}}"#;
        let p = plan_of(
            false,
            &[
                (Some("x"), &format!("[{all},{A}]")),
                (Some("y"), &format!("[{all},{A},{B1}]")),
                (Some("z"), &format!("[{all},{B1}]")),
            ],
        )
        .unwrap();
        let m = String::from_utf8(p.files["profiles.json"].clone()).unwrap();
        assert!(
            m.contains("\"all_2\": [\n      \"*\"\n    ],\n    \"x_and_y\": [")
                && m.contains("\"y_and_z\""),
            "{m}"
        );
        assert!(
            m.contains("\"description\": \"Tools profiles `x` and `y` are served.\""),
            "{m}"
        );
    }

    #[test]
    fn default_env_is_the_name_upper_cased() {
        assert_eq!(default_env("github-mcp"), "GITHUB_MCP_TOOL_PROFILE");
    }
}
