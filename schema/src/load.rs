//! Loading a catalog folder: read every file, check it, and build the [`Catalog`] model.
//!
//! Every error is collected; loading goes on past a broken file so that one run reports all
//! of them. Nothing here panics on input.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::diag::{Ctxt, Errors, SourceText};
use crate::files::{
    ANNOTATION_KEYS, Annotations, Formerly, MatrixFile, OrderedMap, SchemaMode, Selector,
    TOOL_FILE_KEYS, ToolFile,
};
use crate::json::{Map, Value};
use crate::locate::{Pointer, Position};
use crate::model::{Kind, ObjectRules, Schema, SchemaParser};
use crate::suggest::did_you_mean;

/// The name of the matrix file inside a catalog folder.
pub const MATRIX_FILE: &str = "profiles.json";
/// The folder of tool files inside a catalog folder.
pub const TOOLS_DIR: &str = "tools";

/// Names mapped to lists of names: a field's former names, an enum value's former values, or
/// a restricted field's allowed values.
pub type NameLists = Vec<(String, Vec<String>)>;

/// Per top-level enum field, each value's former values.
pub type ValueRenames = Vec<(String, NameLists)>;

/// One file of a catalog, as bytes, with its path relative to the catalog folder.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Relative path, with `/` separators (`tools/mr_write.json`).
    pub rel: String,
    /// The raw bytes.
    pub bytes: Vec<u8>,
}

/// A checked catalog.
#[derive(Clone, Debug)]
pub struct Catalog {
    /// The catalog's name (from the matrix).
    pub name: String,
    /// What the surface is.
    pub description: Option<String>,
    /// How a server learns its profile.
    pub selector: Selector,
    /// The known profiles, in declared order.
    pub profiles: Vec<Profile>,
    /// The groups, in declared order.
    pub groups: Vec<Group>,
    /// The tools, sorted by name.
    pub tools: Vec<Tool>,
    /// Every file read, relative to the catalog folder, sorted.
    pub sources: Vec<String>,
    /// How the catalog serves its schemas (the matrix's `schemas`).
    pub schemas: SchemaMode,
    /// Whether run-time validation asserts `format` (the matrix's `assert_formats`).
    pub assert_formats: bool,
    /// What loading found worth saying that is not an error (annotations no vocabulary
    /// defines, a default its schema refuses, ...), sorted.
    pub warnings: Vec<crate::diag::Diagnostic>,
    /// The matrix's budgets, hosts and server name (`crate::limits`).
    pub limits: crate::limits::Limits,
}

/// A known profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Its name.
    pub name: String,
    /// One line about it.
    pub description: String,
}

/// A group of tools.
#[derive(Clone, Debug)]
pub struct Group {
    /// Its name.
    pub name: String,
    /// What it is for.
    pub description: Option<String>,
    /// Parameters added to each of its tools: name, schema, required.
    pub parameters: Vec<(String, Schema, bool)>,
}

/// Who may see a tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// Every session, the fail-closed one included.
    AlwaysOn,
    /// These profiles, in declared order.
    Profiles(Vec<String>),
}

/// A tool, with all its variants.
#[derive(Clone, Debug)]
pub struct Tool {
    /// The MCP name.
    pub name: String,
    /// Its group.
    pub group: String,
    /// Who sees it.
    pub access: Access,
    /// Its variants sorted by name; a tool without variants has one, unnamed.
    pub variants: Vec<Variant>,
    /// For a tool with variants: the index into `variants` for each profile that sees it.
    pub variant_for: BTreeMap<String, usize>,
    /// Restricted cells: profile, then field and allowed values.
    pub restrictions: BTreeMap<String, NameLists>,
    /// Names the tool had before.
    pub formerly: Vec<String>,
    /// Former names whose calls by the new name set fields: old name, then field and value
    /// (JSON text).
    pub formerly_set: FormerSets,
}

/// Former tool names that set fields: old name, then field and value as JSON text.
pub type FormerSets = Vec<(String, Vec<(String, String)>)>;

/// One schema of a tool (its only one, or one per-profile variant).
#[derive(Clone, Debug)]
pub struct Variant {
    /// The variant's name; `None` for a tool without variants.
    pub name: Option<String>,
    /// The file it comes from, relative to the catalog folder.
    pub file: String,
    /// The description served.
    pub description: String,
    /// The MCP `title`, if any.
    pub title: Option<String>,
    /// The tool file's top-level object as written (key order kept): what is served as
    /// authored, the MCP Tool keys of it.
    pub authored: Map,
    /// Whether a schema of this variant holds a recursive `$ref` (so it has no
    /// self-contained resolved form and is served as authored in every mode).
    pub recursive: bool,
    /// The input schema: `$ref`s resolved and `extends` applied, without group parameters.
    pub input: Schema,
    /// The output schema, if any.
    pub output: Option<Schema>,
    /// MCP annotations.
    pub annotations: Option<Annotations>,
    /// Former names of top-level fields.
    pub formerly_fields: NameLists,
    /// Former values of top-level enum fields: field, then value and what it replaced.
    pub formerly_values: ValueRenames,
}

impl Catalog {
    /// The tool named `name`.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools
            .binary_search_by(|t| t.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.tools[i])
    }

    /// The group named `name`.
    pub fn group(&self, name: &str) -> Option<&Group> {
        self.groups.iter().find(|g| g.name == name)
    }

    /// The names of the profiles that see `tool`.
    pub fn profiles_of<'a>(&'a self, tool: &'a Tool) -> Vec<&'a str> {
        match &tool.access {
            Access::AlwaysOn => self.profiles.iter().map(|p| p.name.as_str()).collect(),
            Access::Profiles(ps) => ps.iter().map(String::as_str).collect(),
        }
    }
}

/// Whether `name` is acceptable as an MCP tool name (2025-11-25): 1 to 128 of ASCII letters,
/// digits, `_`, `-` and `.`.
pub fn valid_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

/// Whether `name` is acceptable as a variant, profile or group name.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Loads the catalog folder `dir`; paths in errors start with `dir` as given.
pub fn load_dir(dir: &Path) -> Result<Catalog, Errors> {
    load_dir_as(dir, dir)
}

/// Loads the catalog folder `dir`, naming files in errors as if the folder were `display`
/// (the proc-macro shows paths relative to the crate, never the machine's absolute path).
pub fn load_dir_as(dir: &Path, display: &Path) -> Result<Catalog, Errors> {
    let (sources, mut read_errors) = read_dir_sources(dir, display);
    if sources.is_empty() && !read_errors.is_empty() {
        // Not a readable folder at all: its missing parts are not further errors.
        return Err(Errors(read_errors).sorted());
    }
    match load_sources(display, sources) {
        Ok(catalog) if read_errors.is_empty() => Ok(catalog),
        Ok(_) => Err(Errors(read_errors).sorted()),
        Err(Errors(mut errors)) => {
            errors.append(&mut read_errors);
            Err(Errors(errors).sorted())
        }
    }
}

/// Reads `profiles.json` and every file under `tools/` (hidden files skipped).
pub fn read_dir_sources(
    dir: &Path,
    display: &Path,
) -> (Vec<SourceFile>, Vec<crate::diag::Diagnostic>) {
    let mut cx = Ctxt::new();
    let mut sources = Vec::new();
    match std::fs::metadata(dir) {
        Err(e) => {
            cx.file(
                display,
                None,
                format!("cannot read the catalog folder: {e}"),
            );
            return (sources, errors_of(cx));
        }
        Ok(m) if !m.is_dir() => {
            cx.file(
                display,
                None,
                "is a file, not a catalog folder (expected a folder holding profiles.json and tools/)",
            );
            return (sources, errors_of(cx));
        }
        Ok(_) => {}
    }
    let matrix = dir.join(MATRIX_FILE);
    match std::fs::read(&matrix) {
        Ok(bytes) => sources.push(SourceFile {
            rel: MATRIX_FILE.to_string(),
            bytes,
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => cx.file(
            &display.join(MATRIX_FILE),
            None,
            format!("cannot read: {e}"),
        ),
    }
    let tools_dir = dir.join(TOOLS_DIR);
    match std::fs::read_dir(&tools_dir) {
        Ok(entries) => {
            let mut names: Vec<(String, PathBuf)> = Vec::new();
            for entry in entries {
                match entry {
                    Ok(e) => {
                        let name = e.file_name().to_string_lossy().into_owned();
                        if !name.starts_with('.') {
                            names.push((name, e.path()));
                        }
                    }
                    Err(e) => cx.file(&display.join(TOOLS_DIR), None, format!("cannot list: {e}")),
                }
            }
            names.sort();
            for (name, path) in names {
                let rel = format!("{TOOLS_DIR}/{name}");
                if path.is_dir() {
                    cx.file(
                        &display.join(&rel),
                        None,
                        "is a folder; tool files sit directly in tools/",
                    );
                    continue;
                }
                match std::fs::read(&path) {
                    Ok(bytes) => sources.push(SourceFile { rel, bytes }),
                    Err(e) => cx.file(&display.join(&rel), None, format!("cannot read: {e}")),
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => cx.file(&display.join(TOOLS_DIR), None, format!("cannot read: {e}")),
    }
    (sources, errors_of(cx))
}

fn errors_of(cx: Ctxt) -> Vec<crate::diag::Diagnostic> {
    match cx.finish(()) {
        Ok(()) => Vec::new(),
        Err(Errors(e)) => e,
    }
}

/// Decodes a file as UTF-8 text (a leading byte order mark is dropped).
fn decode(display: &Path, rel: &str, bytes: &[u8], cx: &mut Ctxt) -> Option<SourceText> {
    let path = display.join(rel);
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(SourceText {
            path,
            text: text.to_string(),
        }),
        Err(e) => {
            let valid = &bytes[..e.valid_up_to()];
            let text = String::from_utf8_lossy(valid);
            cx.file(
                &path,
                Some(Position::of_offset(&text, text.len())),
                format!(
                    "is not valid UTF-8 (bad byte at offset {})",
                    e.valid_up_to()
                ),
            );
            None
        }
    }
}

/// Parses `source` as `T`, recording a shape or syntax error at serde_json's position.
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(
    source: &SourceText,
    what: &str,
    cx: &mut Ctxt,
) -> Option<T> {
    if source.text.trim().is_empty() {
        cx.file(&source.path, None, format!("is empty; expected {what}"));
        return None;
    }
    // Name the kind of a top-level non-object from its first character: serde would
    // otherwise try to read a struct from it and complain about its first element.
    let at = source.text.len() - source.text.trim_start().len();
    let found = match source.text[at..].chars().next() {
        Some('[') => Some("an array"),
        Some('"') => Some("a string"),
        Some('t' | 'f') => Some("a boolean"),
        Some('n') => Some("null"),
        Some('-' | '0'..='9') => Some("a number"),
        _ => None,
    };
    if let Some(found) = found {
        cx.file(
            &source.path,
            Some(Position::of_offset(&source.text, at)),
            format!("not {what}: expected a JSON object, found {found}"),
        );
        return None;
    }
    match serde_json::from_str::<T>(&source.text) {
        Ok(v) => Some(v),
        Err(e) => {
            let position =
                (e.line() > 0).then(|| serde_position(&source.text, e.line(), e.column()));
            let full = e.to_string();
            let message = match full.rfind(" at line ") {
                Some(i) => &full[..i],
                None => &full,
            };
            let message = match e.classify() {
                serde_json::error::Category::Data => format!("not {what}: {message}"),
                _ => format!("invalid JSON: {message}"),
            };
            cx.file(&source.path, position, message);
            None
        }
    }
}

/// Converts serde_json's line and byte column into a [`Position`] (columns in characters),
/// moved forward over whitespace so that it points at the value serde was reading.
fn serde_position(text: &str, line: usize, column: usize) -> Position {
    let line_start = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let mut offset = (line_start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let rest = &text[offset..];
    let skipped = rest.len() - rest.trim_start().len();
    if skipped < rest.len() {
        offset += skipped;
    }
    Position::of_offset(text, offset)
}

struct ParsedTool {
    source: SourceText,
    file: ToolFile,
    authored: Map,
    recursive: bool,
    input: Option<Schema>,
    output: Option<Schema>,
}

/// Checks the top-level keys of a tool file, each unknown one an error at its place.
fn check_tool_keys(text: &SourceText, doc: &Map, cx: &mut Ctxt) {
    for key in doc.keys() {
        if !TOOL_FILE_KEYS.contains(&key) {
            cx.at(
                text,
                &Pointer::root().key(key),
                format!(
                    "unknown key `{key}` in a tool file (expected one of: {}){}",
                    TOOL_FILE_KEYS.join(", "),
                    did_you_mean(key, TOOL_FILE_KEYS.iter().copied())
                ),
            );
        }
    }
    if let Some(meta) = doc.get("_meta")
        && !matches!(meta, Value::Object(_))
    {
        cx.at(
            text,
            &Pointer::root().key("_meta"),
            "`_meta` must be an object",
        );
    }
    if let Some(icons) = doc.get("icons")
        && !matches!(icons, Value::Array(_))
    {
        cx.at(
            text,
            &Pointer::root().key("icons"),
            "`icons` must be an array",
        );
    }
}

/// Parses the input and output schemas of a tool file: `(input, output, recursive)`.
fn tool_schemas(
    text: &SourceText,
    doc: &Map,
    cx: &mut Ctxt,
) -> (Option<Schema>, Option<Schema>, bool) {
    let before = cx.error_count();
    let mut recursive = false;
    let mut one = |key: &str, cx: &mut Ctxt| -> Option<Schema> {
        let v = doc.get(key)?;
        let mut parser = SchemaParser::new(text, v, Pointer::root().key(key), cx);
        let s = parser.parse_root();
        recursive |= parser.recursive;
        s
    };
    let input = one("inputSchema", cx);
    let output = one("outputSchema", cx);
    // What the run-time validator cannot compile (a pattern the regex crate refuses, ...) is
    // a located error too; only checked once toolgate's own checks pass.
    if cx.error_count() == before {
        for key in ["inputSchema", "outputSchema"] {
            if let Some(v) = doc.get(key)
                && let Err(e) = crate::validator::SchemaValidator::new(v, false)
            {
                let mut at = Pointer::root().key(key);
                for seg in e.pointer.split('/').skip(1) {
                    at = at.key(&seg.replace("~1", "/").replace("~0", "~"));
                }
                cx.at(
                    text,
                    &at,
                    format!("the run-time validator refuses this schema: {}", e.message),
                );
            }
        }
    }
    (input, output, recursive)
}

/// Loads a catalog from its files (the path of each relative to the catalog folder, which
/// messages show as `display`).
pub fn load_sources(display: &Path, sources: Vec<SourceFile>) -> Result<Catalog, Errors> {
    let mut cx = Ctxt::new();
    let mut files = parse_sources(display, &sources, &mut cx);
    check_folder_shape(display, &sources, &files, &mut cx);
    let by_name = tools_by_name(&files.tools);
    check_identities(&files.tools, &by_name, &mut cx);
    warn_other_annotations(&files.tools, &mut cx);
    apply_extends(&mut files.tools, &by_name, &mut cx);
    let Some((msrc, m)) = files.matrix else {
        // The matrix is missing or broken, and that error is recorded.
        return Err(cx.finish(()).err().unwrap_or_default());
    };
    let mut catalog = build(
        display,
        &msrc,
        &m,
        &files.tools,
        &by_name,
        &files.broken,
        files.read,
        &mut cx,
    );
    catalog.limits = crate::limits::read(&msrc, &m, &mut cx);
    catalog.warnings = cx.warnings();
    cx.finish(catalog)
}

/// A catalog's files decoded and parsed one by one, before any of them is held against
/// another.
struct ParsedFiles {
    /// The matrix, if it could be read and parsed.
    matrix: Option<(SourceText, MatrixFile)>,
    /// Whether a `profiles.json` was among the files at all.
    seen_matrix: bool,
    /// The tool files that parsed.
    tools: Vec<ParsedTool>,
    /// Every file read, relative to the catalog folder.
    read: Vec<String>,
    /// Names of tool files that could not be read: the matrix may name them without that
    /// being a second error.
    broken: BTreeSet<String>,
}

/// What became of one file under `tools/`.
enum ToolSource {
    /// It parsed as a tool file (boxed: the other variants are small).
    Parsed(Box<ParsedTool>),
    /// It is broken; the name (or file stem) of the tool it meant to be.
    Broken(String),
    /// It is not a tool file at all (that error is recorded).
    Skipped,
}

/// Decodes and parses every file, each error recorded, so that one run reports them all.
fn parse_sources(display: &Path, sources: &[SourceFile], cx: &mut Ctxt) -> ParsedFiles {
    let mut files = ParsedFiles {
        matrix: None,
        seen_matrix: false,
        tools: Vec::new(),
        read: Vec::new(),
        broken: BTreeSet::new(),
    };
    for source in sources {
        files.read.push(source.rel.clone());
        if source.rel == MATRIX_FILE {
            files.seen_matrix = true;
            if let Some(text) = decode(display, &source.rel, &source.bytes, cx)
                && let Some(m) = parse_json::<MatrixFile>(&text, "a profile matrix", cx)
            {
                files.matrix = Some((text, m));
            }
            continue;
        }
        let Some(file_name) = source.rel.strip_prefix("tools/") else {
            continue;
        };
        match parse_tool_source(display, source, file_name, cx) {
            ToolSource::Parsed(t) => files.tools.push(*t),
            ToolSource::Broken(name) => {
                files.broken.insert(name);
            }
            ToolSource::Skipped => {}
        }
    }
    files
}

/// Parses one file of `tools/` (`file_name` is its name there), recording every error of
/// it: its unknown keys, the shape of the known ones, and its schemas, whichever fail.
fn parse_tool_source(
    display: &Path,
    source: &SourceFile,
    file_name: &str,
    cx: &mut Ctxt,
) -> ToolSource {
    if !file_name.ends_with(".json") {
        cx.file(
            &display.join(&source.rel),
            None,
            "is not a tool file: files in tools/ must be `<name>.json` or `<name>.<variant>.json`",
        );
        return ToolSource::Skipped;
    }
    let stem = file_name.split('.').next().unwrap_or_default().to_string();
    let Some(text) = decode(display, &source.rel, &source.bytes, cx) else {
        return ToolSource::Broken(stem);
    };
    let Some(Value::Object(doc)) = parse_json::<Value>(&text, "a tool file", cx) else {
        return ToolSource::Broken(stem);
    };
    check_tool_keys(&text, &doc, cx);
    let (input, output, recursive) = tool_schemas(&text, &doc, cx);
    let Some(file) = parse_json::<ToolFile>(&text, "a tool file", cx) else {
        let name = doc.get("name").and_then(Value::as_str).unwrap_or(&stem);
        return ToolSource::Broken(name.to_string());
    };
    check_tool_names(&text, &file, cx);
    ToolSource::Parsed(Box::new(ParsedTool {
        source: text,
        file,
        authored: doc,
        recursive,
        input,
        output,
    }))
}

/// Records a folder without a matrix, or without a single tool file: a catalog needs both.
fn check_folder_shape(display: &Path, sources: &[SourceFile], files: &ParsedFiles, cx: &mut Ctxt) {
    if !files.seen_matrix {
        cx.file(
            &display.join(MATRIX_FILE),
            None,
            "is missing: a catalog folder needs profiles.json (the profile matrix) and tools/",
        );
    }
    if files.tools.is_empty() && !sources.iter().any(|s| s.rel.starts_with("tools/")) {
        cx.file(
            &display.join(TOOLS_DIR),
            None,
            "holds no tool files: a catalog needs at least one tools/<name>.json",
        );
    }
}

/// The tool files grouped by the tool they declare (a tool with variants has several).
fn tools_by_name(parsed: &[ParsedTool]) -> BTreeMap<String, Vec<usize>> {
    let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, t) in parsed.iter().enumerate() {
        by_name.entry(t.file.name.clone()).or_default().push(i);
    }
    by_name
}

/// Checks the identities of each tool's files: all with a variant or none, and no
/// `(name, variant)` declared twice.
fn check_identities(parsed: &[ParsedTool], by_name: &BTreeMap<String, Vec<usize>>, cx: &mut Ctxt) {
    for (name, files) in by_name {
        let with_variant = files
            .iter()
            .filter(|&&i| parsed[i].file.variant.is_some())
            .count();
        if with_variant != 0 && with_variant != files.len() {
            for &i in files {
                if parsed[i].file.variant.is_none() {
                    cx.at(
                        &parsed[i].source,
                        &Pointer::root().key("name"),
                        format!(
                            "tool `{name}` has variant files, so this file needs a `variant` too"
                        ),
                    );
                }
            }
        }
        let mut seen: BTreeMap<Option<&str>, usize> = BTreeMap::new();
        for &i in files {
            let key = parsed[i].file.variant.as_deref();
            if let Some(&first) = seen.get(&key) {
                let what = match key {
                    Some(v) => format!("tool `{name}` variant `{v}`"),
                    None => format!("tool `{name}`"),
                };
                cx.at(
                    &parsed[i].source,
                    &Pointer::root().key("name"),
                    format!(
                        "duplicate {what}: also declared in {}",
                        parsed[first].source.path.display()
                    ),
                );
            } else {
                seen.insert(key, i);
            }
        }
    }
}

/// Checks the tool's name (MCP's characters) and its variant's name (letters, digits, `_`
/// and `-`), each an error at its key.
fn check_tool_names(source: &SourceText, file: &ToolFile, cx: &mut Ctxt) {
    if !valid_tool_name(&file.name) {
        cx.at(
            source,
            &Pointer::root().key("name"),
            format!(
                "tool name \"{}\" must be 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`",
                file.name
            ),
        );
    }
    if let Some(v) = &file.variant
        && !valid_name(v)
    {
        cx.at(
            source,
            &Pointer::root().key("variant"),
            format!(
                "variant name \"{v}\" must be 1 to 128 characters of A-Z, a-z, 0-9, `_` and `-`"
            ),
        );
    }
}

/// One warning per annotation key outside MCP's list, at its first use (hosts ignore such
/// keys, so they are kept and served as written rather than refused).
fn warn_other_annotations(parsed: &[ParsedTool], cx: &mut Ctxt) {
    let mut first: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for (i, t) in parsed.iter().enumerate() {
        for key in t.file.annotations.iter().flat_map(|a| a.other.keys()) {
            first
                .entry(key)
                .and_modify(|(_, n)| *n += 1)
                .or_insert((i, 1));
        }
    }
    for (key, (i, n)) in first {
        let more = match n {
            1 => String::new(),
            2 => " (and in 1 more tool file)".to_string(),
            n => format!(" (and in {} more tool files)", n - 1),
        };
        cx.warn_at(
            &parsed[i].source,
            &Pointer::root().key("annotations").key(key),
            format!(
                "annotation `{key}` is not one of MCP's ({}){more}: kept and served as written, and hosts that do not know it ignore it{}",
                ANNOTATION_KEYS.join(", "),
                did_you_mean(key, ANNOTATION_KEYS.iter().copied())
            ),
        );
    }
}

/// Applies each `extends`: the base tool's top-level fields a file does not declare itself
/// are added to it (its required ones required, unless `optional`; defaults only if asked).
fn apply_extends(parsed: &mut [ParsedTool], by_name: &BTreeMap<String, Vec<usize>>, cx: &mut Ctxt) {
    for i in 0..parsed.len() {
        let Some(ext) = parsed[i].file.extends.clone() else {
            continue;
        };
        let at = Pointer::root().key("extends").key("tool");
        let target = match by_name.get(&ext.tool).map(Vec::as_slice) {
            Some([j]) if parsed[*j].file.variant.is_none() => *j,
            Some(_) => {
                cx.at(
                    &parsed[i].source,
                    &at,
                    format!(
                        "`extends` names `{}`, which has variants; extend a tool with one schema",
                        ext.tool
                    ),
                );
                continue;
            }
            None => {
                let names: Vec<&str> = by_name.keys().map(String::as_str).collect();
                cx.at(
                    &parsed[i].source,
                    &at,
                    format!(
                        "`extends` names `{}`, which is not a tool of this catalog{}",
                        ext.tool,
                        did_you_mean(&ext.tool, names)
                    ),
                );
                continue;
            }
        };
        if target == i {
            cx.at(&parsed[i].source, &at, "a tool cannot extend itself");
            continue;
        }
        if parsed[target].file.extends.is_some() {
            cx.at(
                &parsed[i].source,
                &at,
                format!(
                    "`{}` itself uses `extends`; extend the tool it builds on instead",
                    ext.tool
                ),
            );
            continue;
        }
        let Some(base) = parsed[target].input.clone() else {
            continue;
        };
        let Some(own) = parsed[i].input.as_mut().and_then(Schema::as_object_mut) else {
            continue;
        };
        let Some(base) = base.as_object().cloned() else {
            continue;
        };
        for (name, mut schema) in base.properties {
            if own.property(&name).is_some() {
                continue;
            }
            if !ext.defaults {
                schema.default = None;
            }
            if !ext.optional && base.required.contains(&name) {
                own.required.push(name.clone());
            }
            own.properties.push((name, schema));
        }
        if !ext.optional && own.conditional.is_none() {
            own.conditional = base.conditional;
        }
    }
}

/// Applies the matrix to the parsed tool files: the passes below, run one after another,
/// each recording what it finds in `cx`, and the catalog they build.
#[allow(clippy::too_many_arguments)]
fn build(
    display: &Path,
    msrc: &SourceText,
    m: &MatrixFile,
    parsed: &[ParsedTool],
    by_name: &BTreeMap<String, Vec<usize>>,
    broken: &BTreeSet<String>,
    mut read: Vec<String>,
    cx: &mut Ctxt,
) -> Catalog {
    let p = Passes {
        display,
        msrc,
        m,
        parsed,
        by_name,
        broken,
        profile_names: m.profiles.keys().collect(),
        group_names: m.groups.keys().collect(),
        tool_names: by_name.keys().map(String::as_str).collect(),
    };
    let profiles = p.profiles(cx);
    let parameters = p.parameters(cx);
    let groups = p.groups(&parameters, cx);
    p.check_group_members(&groups, cx);
    let always_on = p.always_on(cx);
    let grants = p.grant_rows(cx);
    let mut tools = Vec::new();
    for (name, files) in by_name {
        tools.push(p.tool(name, files, &always_on, &grants, cx));
    }
    p.restrictions(&mut tools, cx);
    p.check_combine(&tools, cx);
    read.sort();
    Catalog {
        name: m.catalog.clone(),
        description: m.description.clone(),
        selector: m.selector.clone(),
        profiles,
        groups,
        tools,
        sources: read,
        schemas: m.schemas,
        assert_formats: m.assert_formats,
        warnings: Vec::new(),
        limits: Default::default(),
    }
}

/// What every pass of [`build`] reads: the matrix and its source, the parsed tool files and
/// the names declared, so that each pass is a method naming only what it decides.
struct Passes<'a> {
    /// The catalog folder as messages show it.
    display: &'a Path,
    /// The matrix's source, where its errors point.
    msrc: &'a SourceText,
    /// The matrix.
    m: &'a MatrixFile,
    /// The tool files that parsed.
    parsed: &'a [ParsedTool],
    /// The indices into `parsed` of each tool's files.
    by_name: &'a BTreeMap<String, Vec<usize>>,
    /// Names of tool files that could not be read (naming them is not a second error).
    broken: &'a BTreeSet<String>,
    /// The declared profiles, in order.
    profile_names: Vec<&'a str>,
    /// The declared groups, in order.
    group_names: Vec<&'a str>,
    /// The tools there are files of, sorted.
    tool_names: Vec<&'a str>,
}

/// Each `grants` row's profiles, by the tool or group it names.
type GrantRows<'a> = BTreeMap<&'a str, Vec<String>>;

impl<'a> Passes<'a> {
    /// The declared profiles, each name checked (a matrix must declare one), and the
    /// selector's variable, without which no session could name one.
    fn profiles(&self, cx: &mut Ctxt) -> Vec<Profile> {
        let root = Pointer::root();
        if self.m.profiles.0.is_empty() {
            cx.at(self.msrc, &root.key("profiles"), "declares no profile");
        }
        let mut profiles = Vec::new();
        for (name, description) in self.m.profiles.iter() {
            if !valid_name(name) {
                cx.at(
                    self.msrc,
                    &root.key("profiles").key(name),
                    format!("profile name \"{name}\" must be 1 to 128 characters of A-Z, a-z, 0-9, `_` and `-`"),
                );
            }
            profiles.push(Profile {
                name: name.to_string(),
                description: description.clone(),
            });
        }
        if self.m.selector.env.trim().is_empty() {
            cx.at(
                self.msrc,
                &root.key("selector").key("env"),
                "the selector's environment variable is empty",
            );
        }
        profiles
    }

    /// The matrix's shared parameters, each schema parsed (a broken one left out, its error
    /// recorded), with whether it is required.
    fn parameters(&self, cx: &mut Ctxt) -> BTreeMap<&'a str, (Schema, bool)> {
        let root = Pointer::root();
        let mut parameters = BTreeMap::new();
        for (name, p) in self.m.parameters.iter() {
            let at = root.key("parameters").key(name).key("schema");
            let mut parser = SchemaParser::new(self.msrc, &p.schema, at, cx);
            if let Some(s) = parser.parse(
                &p.schema,
                &root.key("parameters").key(name).key("schema"),
                false,
            ) {
                parameters.insert(name, (s, p.required));
            }
        }
        parameters
    }

    /// The groups, each with the shared parameters it adds; a group may not share a tool's
    /// name, or a grant could not tell them apart.
    fn groups(&self, parameters: &BTreeMap<&str, (Schema, bool)>, cx: &mut Ctxt) -> Vec<Group> {
        let root = Pointer::root();
        let mut groups = Vec::new();
        for (name, g) in self.m.groups.iter() {
            let mut params = Vec::new();
            for (i, p) in g.add_parameters.iter().enumerate() {
                match parameters.get(p.as_str()) {
                    Some((s, req)) => params.push((p.clone(), s.clone(), *req)),
                    None if self.m.parameters.contains_key(p) => {}
                    None => cx.at(
                        self.msrc,
                        &root.key("groups").key(name).key("add_parameters").index(i),
                        format!(
                            "no parameter named `{p}` is declared in `parameters`{}",
                            did_you_mean(p, self.m.parameters.keys())
                        ),
                    ),
                }
            }
            groups.push(Group {
                name: name.to_string(),
                description: g.description.clone(),
                parameters: params,
            });
        }
        for g in &self.group_names {
            if self.by_name.contains_key(*g) {
                cx.at(
                    self.msrc,
                    &root.key("groups").key(g),
                    format!(
                        "`{g}` names both a group and a tool; grants could not tell them apart"
                    ),
                );
            }
        }
        groups
    }

    /// Checks each tool file's group: declared in the matrix, and not declaring again a
    /// parameter the group adds.
    fn check_group_members(&self, groups: &[Group], cx: &mut Ctxt) {
        let root = Pointer::root();
        for t in self.parsed {
            if !self.m.groups.contains_key(&t.file.group) {
                cx.at(
                    &t.source,
                    &root.key("group"),
                    format!(
                        "group `{}` is not declared in {}{}",
                        t.file.group,
                        self.msrc.path.display(),
                        did_you_mean(&t.file.group, self.group_names.iter().copied())
                    ),
                );
            } else if let (Some(g), Some(input)) = (
                groups.iter().find(|g| g.name == t.file.group),
                t.input.as_ref().and_then(Schema::as_object),
            ) {
                for (p, _, _) in &g.parameters {
                    if input.property(p).is_some() {
                        cx.at(
                            &t.source,
                            &root.key("inputSchema").key("properties").key(p),
                            format!(
                                "`{p}` is added to every tool of group `{}` by the matrix; do not declare it here too",
                                g.name
                            ),
                        );
                    }
                }
            }
        }
    }

    /// Whether a name in `always_on` or `grants` is a tool or a group: an error (with a
    /// suggestion) unless it is, or unless it names a tool file that is broken.
    fn is_target(&self, at: &Pointer, name: &str, cx: &mut Ctxt) -> bool {
        if self.by_name.contains_key(name) || self.m.groups.contains_key(name) {
            return true;
        }
        if self.broken.contains(name) {
            return false;
        }
        let candidates = self
            .tool_names
            .iter()
            .chain(self.group_names.iter())
            .copied();
        cx.at(
            self.msrc,
            at,
            format!(
                "no tool file or group is named `{name}`{}",
                did_you_mean(name, candidates)
            ),
        );
        false
    }

    /// The tools every session sees: those `always_on` names, and every tool of a group it
    /// names.
    fn always_on(&self, cx: &mut Ctxt) -> BTreeSet<&'a str> {
        let group_of: BTreeMap<&str, &str> = self
            .parsed
            .iter()
            .map(|t| (t.file.name.as_str(), t.file.group.as_str()))
            .collect();
        let mut always_on: BTreeSet<&str> = BTreeSet::new();
        for (i, name) in self.m.always_on.iter().enumerate() {
            if self.is_target(&Pointer::root().key("always_on").index(i), name, cx) {
                if self.m.groups.contains_key(name) {
                    always_on.extend(
                        group_of
                            .iter()
                            .filter(|(_, g)| **g == name.as_str())
                            .map(|(t, _)| *t),
                    );
                } else {
                    always_on.insert(name);
                }
            }
        }
        always_on
    }

    /// Each `grants` row whose name is a tool or a group: the profiles it grants.
    fn grant_rows(&self, cx: &mut Ctxt) -> GrantRows<'a> {
        let mut grant_rows = BTreeMap::new();
        for (name, who) in self.m.grants.iter() {
            let at = Pointer::root().key("grants").key(name);
            if !self.is_target(&at, name, cx) {
                continue;
            }
            grant_rows.insert(name, self.grant_row(name, who, &at, cx));
        }
        grant_rows
    }

    /// One row's profiles, each known and listed once (`*` alone: every profile), in declared
    /// profile order whatever order the row uses.
    fn grant_row(&self, name: &str, who: &[String], at: &Pointer, cx: &mut Ctxt) -> Vec<String> {
        let mut row = Vec::new();
        for (i, p) in who.iter().enumerate() {
            if p == "*" {
                if who.len() > 1 {
                    cx.at(
                        self.msrc,
                        &at.index(i),
                        "`*` already means every profile; list nothing beside it",
                    );
                }
                row = self.profile_names.iter().map(|s| s.to_string()).collect();
                break;
            }
            if !known_profile(cx, self.msrc, &at.index(i), self.m, p) {
            } else if row.contains(p) {
                cx.at(
                    self.msrc,
                    &at.index(i),
                    format!("profile `{p}` is listed twice"),
                );
            } else {
                row.push(p.clone());
            }
        }
        if who.is_empty() {
            cx.at(
                self.msrc,
                at,
                format!("grants `{name}` to no profile; remove the row or name the profiles"),
            );
        }
        row.sort_by_key(|p| self.profile_names.iter().position(|q| q == p));
        row
    }

    /// Builds one tool from its files: its group, who sees it, its variants and which
    /// profile gets which, its former names.
    fn tool(
        &self,
        name: &str,
        files: &[usize],
        always_on: &BTreeSet<&str>,
        grants: &GrantRows<'_>,
        cx: &mut Ctxt,
    ) -> Tool {
        let first = &self.parsed[files[0]];
        let group = self.tool_group(name, files, cx);
        let access = self.tool_access(name, &group, first, always_on, grants, cx);
        let seeing: Vec<&str> = match &access {
            Access::AlwaysOn => self.profile_names.clone(),
            Access::Profiles(ps) => ps.iter().map(String::as_str).collect(),
        };
        let mut ordered: Vec<usize> = files.to_vec();
        ordered.sort_by(|a, b| {
            self.parsed[*a]
                .file
                .variant
                .cmp(&self.parsed[*b].file.variant)
        });
        ordered.dedup_by(|a, b| self.parsed[*a].file.variant == self.parsed[*b].file.variant);
        let variants = self.variants(&ordered, cx);
        let variant_for = self.variant_for(name, first, &ordered, &variants, &seeing, cx);
        if matches!(access, Access::AlwaysOn) && first.file.variant.is_some() {
            cx.at(
                self.msrc,
                &Pointer::root().key("variants").key(name),
                format!("`{name}` is always on, so the fail-closed session needs one schema for it; an always-on tool cannot have variants"),
            );
        }
        let (formerly, formerly_set) = self.tool_formerly(files, cx);
        Tool {
            name: name.to_string(),
            group,
            access,
            variants,
            variant_for,
            restrictions: BTreeMap::new(),
            formerly,
            formerly_set,
        }
    }

    /// The tool's group, that of its first file: every other file must name the same one.
    fn tool_group(&self, name: &str, files: &[usize], cx: &mut Ctxt) -> String {
        let first = &self.parsed[files[0]];
        let group = first.file.group.clone();
        for &i in files {
            if self.parsed[i].file.group != group {
                cx.at(
                    &self.parsed[i].source,
                    &Pointer::root().key("group"),
                    format!(
                        "all files of tool `{name}` must name the same group; {} says `{group}`",
                        first.source.path.display()
                    ),
                );
            }
        }
        group
    }

    /// Who sees the tool: always on, else its own grants row, else its group's; a tool
    /// granted to no one is an error (fail closed: no profile gets it).
    fn tool_access(
        &self,
        name: &str,
        group: &str,
        first: &ParsedTool,
        always_on: &BTreeSet<&str>,
        grants: &GrantRows<'_>,
        cx: &mut Ctxt,
    ) -> Access {
        if always_on.contains(name) {
            if grants.contains_key(name) {
                cx.at(
                    self.msrc,
                    &Pointer::root().key("grants").key(name),
                    format!("`{name}` is always on; a grants row for it has no effect"),
                );
            }
            Access::AlwaysOn
        } else if let Some(row) = grants.get(name) {
            Access::Profiles(row.clone())
        } else if let Some(row) = grants.get(group) {
            Access::Profiles(row.clone())
        } else {
            cx.at(
                &first.source,
                &Pointer::root().key("name"),
                format!(
                    "tool `{name}` is granted to no profile: add a row for it or for group `{group}` to `grants` in {}, or list it in `always_on`",
                    self.msrc.path.display()
                ),
            );
            Access::Profiles(Vec::new())
        }
    }

    /// The tool's variants, one per distinct file in `ordered` (sorted by variant name); a
    /// file whose input schema did not parse is left out (its error is recorded).
    fn variants(&self, ordered: &[usize], cx: &mut Ctxt) -> Vec<Variant> {
        let mut variants = Vec::new();
        for &i in ordered {
            let t = &self.parsed[i];
            let Some(input) = t.input.clone() else {
                continue;
            };
            let (ff, fv) = check_formerly(t, &input, cx);
            variants.push(Variant {
                name: t.file.variant.clone(),
                file: t.source.path.strip_prefix(self.display).map_or_else(
                    |_| t.source.path.display().to_string(),
                    |p| p.to_string_lossy().replace('\\', "/"),
                ),
                description: t.file.description.clone(),
                title: t.file.title.clone(),
                authored: t.authored.clone(),
                recursive: t.recursive,
                input,
                output: t.output.clone(),
                annotations: t.file.annotations.clone(),
                formerly_fields: ff,
                formerly_values: fv,
            });
        }
        variants
    }

    /// Which variant each profile gets: a tool has variant files exactly when `variants` has
    /// a row for it.
    fn variant_for(
        &self,
        name: &str,
        first: &ParsedTool,
        ordered: &[usize],
        variants: &[Variant],
        seeing: &[&str],
        cx: &mut Ctxt,
    ) -> BTreeMap<String, usize> {
        let vat = Pointer::root().key("variants").key(name);
        match (first.file.variant.is_some(), self.m.variants.get(name)) {
            (false, None) => {}
            (false, Some(_)) => cx.at(
                self.msrc,
                &vat,
                format!("tool `{name}` has no variant files (tools/{name}.<variant>.json)"),
            ),
            (true, None) => cx.at(
                &first.source,
                &Pointer::root().key("variant"),
                format!(
                    "tool `{name}` has variant files, but `variants` in {} does not say which profile gets which",
                    self.msrc.path.display()
                ),
            ),
            (true, Some(map)) => {
                return self.assign_variants(name, map, ordered, variants, seeing, cx);
            }
        }
        BTreeMap::new()
    }

    /// A tool's `variants` row checked: each profile known, seeing the tool and given a
    /// variant that has a file; every profile that sees it given one; every file given out.
    fn assign_variants(
        &self,
        name: &str,
        map: &OrderedMap<String>,
        ordered: &[usize],
        variants: &[Variant],
        seeing: &[&str],
        cx: &mut Ctxt,
    ) -> BTreeMap<String, usize> {
        let vat = Pointer::root().key("variants").key(name);
        let mut variant_for = BTreeMap::new();
        let names: Vec<&str> = ordered
            .iter()
            .filter_map(|&i| self.parsed[i].file.variant.as_deref())
            .collect();
        for (profile, variant) in map.iter() {
            let at = vat.key(profile);
            if !known_profile(cx, self.msrc, &at, self.m, profile) {
                continue;
            }
            if !seeing.contains(&profile) {
                cx.at(
                    self.msrc,
                    &at,
                    format!("profile `{profile}` is not granted `{name}`, so it needs no variant"),
                );
                continue;
            }
            match variants.iter().position(|v| v.name.as_deref() == Some(variant)) {
                Some(ix) => {
                    variant_for.insert(profile.to_string(), ix);
                }
                None if names.contains(&variant.as_str()) || self.broken.contains(name) => {}
                None => cx.at(
                    self.msrc,
                    &at,
                    format!(
                        "tool `{name}` has no variant `{variant}` (no file tools/{name}.{variant}.json){}",
                        did_you_mean(variant, names.iter().copied())
                    ),
                ),
            }
        }
        for p in seeing {
            if !map.contains_key(p) {
                cx.at(
                    self.msrc,
                    &vat,
                    format!("profile `{p}` sees `{name}` but is given no variant of it"),
                );
            }
        }
        for v in &names {
            if !map.iter().any(|(_, x)| x == v) {
                cx.at(
                    self.msrc,
                    &vat,
                    format!("variant `{v}` of `{name}` is given to no profile (tools/{name}.{v}.json is unused)"),
                );
            }
        }
        variant_for
    }

    /// The tool's former names from all its files, sorted (none the name of a current tool),
    /// and those whose calls by the new name set fields.
    fn tool_formerly(&self, files: &[usize], cx: &mut Ctxt) -> (Vec<String>, FormerSets) {
        let mut formerly: Vec<String> = Vec::new();
        let mut formerly_set: FormerSets = Vec::new();
        for &i in files {
            let Some(f) = &self.parsed[i].file.formerly else {
                continue;
            };
            for former in &f.names {
                let n = &former.name().to_string();
                let set = former.set_literals();
                if !set.is_empty() && !formerly_set.iter().any(|(o, _)| o == n) {
                    formerly_set.push((n.clone(), set));
                }
                if self.by_name.contains_key(n) {
                    cx.at(
                        &self.parsed[i].source,
                        &Pointer::root().key("formerly").key("names"),
                        format!("former name `{n}` is the name of a current tool"),
                    );
                } else if !formerly.contains(n) {
                    formerly.push(n.clone());
                }
            }
        }
        formerly.sort();
        (formerly, formerly_set)
    }

    /// Applies `restrictions`: per tool and profile, the only values a top-level string
    /// field takes. An always-on tool cannot be restricted (the fail-closed session needs
    /// its one schema).
    fn restrictions(&self, tools: &mut [Tool], cx: &mut Ctxt) {
        for (tool, per_profile) in self.m.restrictions.iter() {
            let at_tool = Pointer::root().key("restrictions").key(tool);
            let Some(t) = tools.iter_mut().find(|t| t.name == tool) else {
                if self.broken.contains(tool) {
                    continue;
                }
                cx.at(
                    self.msrc,
                    &at_tool,
                    format!(
                        "no tool named `{tool}`{}",
                        did_you_mean(tool, self.tool_names.iter().copied())
                    ),
                );
                continue;
            };
            if t.access == Access::AlwaysOn {
                cx.at(
                    self.msrc,
                    &at_tool,
                    format!("`{tool}` is always on; the fail-closed session needs its one schema, so it cannot be restricted"),
                );
                continue;
            }
            for (profile, fields) in per_profile.iter() {
                let cell = self.restriction_cell(t, profile, fields, &at_tool.key(profile), cx);
                if !cell.is_empty() {
                    t.restrictions.insert(profile.to_string(), cell);
                }
            }
        }
    }

    /// One profile's restricted fields of tool `t`, those that hold (the profile known and
    /// granted the tool, each field checked by [`Passes::restricted_field`]).
    fn restriction_cell(
        &self,
        t: &Tool,
        profile: &str,
        fields: &OrderedMap<Vec<String>>,
        at: &Pointer,
        cx: &mut Ctxt,
    ) -> NameLists {
        let sees = matches!(&t.access, Access::Profiles(ps) if ps.iter().any(|p| p == profile));
        if !known_profile(cx, self.msrc, at, self.m, profile) {
            return Vec::new();
        }
        if !sees {
            cx.at(
                self.msrc,
                at,
                format!(
                    "profile `{profile}` is not granted `{}`, so there is nothing to restrict",
                    t.name
                ),
            );
            return Vec::new();
        }
        let variant = match t.variant_for.get(profile) {
            Some(&ix) => t.variants.get(ix),
            None => t.variants.first(),
        };
        let Some(schema) = variant.and_then(|v| v.input.as_object()) else {
            return Vec::new();
        };
        let mut cell = Vec::new();
        for (field, allowed) in fields.iter() {
            if self.restricted_field(&t.name, schema, field, allowed, &at.key(field), cx) {
                cell.push((field.to_string(), allowed.clone()));
            }
        }
        cell
    }

    /// Whether a restriction of `tool.field` to `allowed` holds: a top-level string field,
    /// at least one value, each a value of its enum if it has one.
    fn restricted_field(
        &self,
        tool: &str,
        schema: &ObjectRules,
        field: &str,
        allowed: &[String],
        fat: &Pointer,
        cx: &mut Ctxt,
    ) -> bool {
        let Some(prop) = schema.property(field) else {
            let names: Vec<&str> = schema.properties.iter().map(|(n, _)| n.as_str()).collect();
            cx.at(
                self.msrc,
                fat,
                format!(
                    "`{tool}` has no top-level field `{field}`{}",
                    did_you_mean(field, names)
                ),
            );
            return false;
        };
        if !matches!(prop.kind, Kind::String(_)) {
            cx.at(
                self.msrc,
                fat,
                format!(
                    "`{tool}.{field}` is {}, but a restriction lists string values",
                    prop.type_name()
                ),
            );
            return false;
        }
        if allowed.is_empty() {
            cx.at(
                self.msrc,
                fat,
                "a restriction must allow at least one value",
            );
            return false;
        }
        let mut ok = true;
        if let Some(values) = prop.enum_values() {
            for (i, v) in allowed.iter().enumerate() {
                if !values.contains(v) {
                    cx.at(
                        self.msrc,
                        &fat.index(i),
                        format!(
                            "\"{v}\" is not a value of `{tool}.{field}` (its enum: {}){}",
                            values.join(", "),
                            did_you_mean(v, values.iter().map(String::as_str))
                        ),
                    );
                    ok = false;
                }
            }
        }
        ok
    }

    /// With a combining selector, no tool may have a schema per profile: a combined
    /// session could not pick one.
    fn check_combine(&self, tools: &[Tool], cx: &mut Ctxt) {
        if !self.m.selector.combine {
            return;
        }
        for t in tools {
            if t.variants.len() > 1 || !t.restrictions.is_empty() {
                let first = t
                    .variants
                    .first()
                    .map(|v| v.file.clone())
                    .unwrap_or_default();
                cx.at(
                    self.msrc,
                    &Pointer::root().key("selector").key("combine"),
                    format!(
                        "the selector combines profiles, but `{}` ({first}) has a different schema per profile; a combined session could not pick one",
                        t.name
                    ),
                );
            }
        }
    }
}

/// A variant's former field names and former enum values, as [`check_formerly`] keeps them.
type FormerlyParts = (NameLists, ValueRenames);

/// Records an error unless `name` is a profile the matrix declares; says whether it is.
fn known_profile(
    cx: &mut Ctxt,
    msrc: &SourceText,
    at: &Pointer,
    m: &MatrixFile,
    name: &str,
) -> bool {
    if m.profiles.contains_key(name) {
        return true;
    }
    cx.at(
        msrc,
        at,
        format!(
            "unknown profile `{name}`{}",
            did_you_mean(name, m.profiles.keys())
        ),
    );
    false
}

/// Checks a tool file's `formerly` against its current input schema (`input`): what it
/// keeps of the former field names and values, each naming something that exists.
fn check_formerly(t: &ParsedTool, input: &Schema, cx: &mut Ctxt) -> FormerlyParts {
    let Some(f) = &t.file.formerly else {
        return (Vec::new(), Vec::new());
    };
    let Some(obj) = input.as_object() else {
        return (Vec::new(), Vec::new());
    };
    check_former_sets(t, f, obj, cx);
    (former_fields(t, f, obj, cx), former_values(t, f, obj, cx))
}

/// The names of the top-level fields of `obj`, for suggestions.
fn field_names(obj: &ObjectRules) -> Vec<&str> {
    obj.properties.iter().map(|(n, _)| n.as_str()).collect()
}

/// Checks that each field a former name's call sets is a current field of the tool.
fn check_former_sets(t: &ParsedTool, f: &Formerly, obj: &ObjectRules, cx: &mut Ctxt) {
    let at = Pointer::root().key("formerly").key("names");
    for (i, former) in f.names.iter().enumerate() {
        for (field, _) in former.set_literals() {
            if obj.property(&field).is_none() {
                cx.at(
                    &t.source,
                    &at.index(i).key("set").key(&field),
                    format!(
                        "`{field}` is not a current field of this tool{}",
                        did_you_mean(&field, field_names(obj))
                    ),
                );
            }
        }
    }
}

/// The former names of current fields (`formerly.fields`): each field current, none of its
/// former names still one.
fn former_fields(t: &ParsedTool, f: &Formerly, obj: &ObjectRules, cx: &mut Ctxt) -> NameLists {
    let mut fields = Vec::new();
    for (field, old) in f.fields.iter() {
        let at = Pointer::root().key("formerly").key("fields").key(field);
        if obj.property(field).is_none() {
            cx.at(
                &t.source,
                &at,
                format!(
                    "`{field}` is not a current field of this tool{}",
                    did_you_mean(field, field_names(obj))
                ),
            );
            continue;
        }
        for (i, o) in old.iter().enumerate() {
            if obj.property(o).is_some() {
                cx.at(
                    &t.source,
                    &at.index(i),
                    format!("former name `{o}` is still a current field"),
                );
            }
        }
        fields.push((field.to_string(), old.clone()));
    }
    fields
}

/// The former values of current enum fields (`formerly.values`): each field a current enum,
/// each value one of its values, none of the former values still one.
fn former_values(t: &ParsedTool, f: &Formerly, obj: &ObjectRules, cx: &mut Ctxt) -> ValueRenames {
    let mut values = Vec::new();
    for (field, per_value) in f.values.iter() {
        let at = Pointer::root().key("formerly").key("values").key(field);
        let Some(current) = obj.property(field).and_then(Schema::enum_values) else {
            cx.at(
                &t.source,
                &at,
                format!("`{field}` is not a current enum field of this tool"),
            );
            continue;
        };
        let mut list = Vec::new();
        for (value, old) in per_value.iter() {
            if !current.iter().any(|c| c == value) {
                cx.at(
                    &t.source,
                    &at.key(value),
                    format!(
                        "\"{value}\" is not a current value of `{field}`{}",
                        did_you_mean(value, current.iter().map(String::as_str))
                    ),
                );
                continue;
            }
            for (i, o) in old.iter().enumerate() {
                if current.iter().any(|c| c == o) {
                    cx.at(
                        &t.source,
                        &at.key(value).index(i),
                        format!("former value \"{o}\" is still a current value of `{field}`"),
                    );
                }
            }
            list.push((value.to_string(), old.clone()));
        }
        values.push((field.to_string(), list));
    }
    values
}
