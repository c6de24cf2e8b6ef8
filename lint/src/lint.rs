//! Linting one file's text: find the references, check them, place the findings.
//!
//! [`Linter::lint_text`] is a pure function of the text (and of the profiles the
//! configuration maps the file's path to); reading files, walking folders and printing live
//! elsewhere. It runs the stages of [`Linter::document`] one after another over one
//! [`Document`], each stage in its own child module and testable alone:
//!
//! 1. front matter ([`document`]: the YAML decoded, the file's profiles),
//! 2. calls ([`calls`]: regions, then every call form found and checked),
//! 3. references ([`lists`]: the tool lists of host configurations; [`refs`]: prefixed,
//!    former and removed names outside calls, tags),
//! 4. parameters ([`mentions`]: parameters written beside a tool's name),
//! 5. agent restrictions and front matter strings ([`front`]),
//! 6. findings ([`document`]: severities, markers, positions).
//!
//! The language server runs the same stages on a buffer's text.

mod calls;
mod document;
mod front;
mod lists;
mod mentions;
mod refs;
mod shaped;

use aho_corasick::{AhoCorasick, MatchKind};
use toolgate_schema::Surface;

use crate::args::Args;
use crate::check::{Checker, NameKind};
use crate::finding::Finding;
use crate::rules::{Rule, Severity};
use crate::servers::{self, Prefix};
use crate::text::Span;

pub use document::{Document, ToolRef};

/// Settings that come from the configuration.
#[derive(Clone, Debug)]
pub struct Settings {
    /// More words or phrases that forbid a call (lower case).
    pub negation_words: Vec<String>,
    /// Each rule's severity; `None` turns the rule off.
    pub severities: Vec<(Rule, Option<Severity>)>,
    /// The name of the server the surface is (default: the surface's catalog name).
    pub server: Option<String>,
    /// The prefixes its tools are written under (default:
    /// [`servers::default_prefixes`] of its name).
    pub prefixes: Option<Vec<String>>,
    /// Tools the configuration declares removed without a replacement.
    pub removed: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            negation_words: Vec::new(),
            severities: Rule::ALL
                .iter()
                .map(|r| (*r, r.default_severity()))
                .collect(),
            server: None,
            prefixes: None,
            removed: Vec::new(),
        }
    }
}

impl Settings {
    /// The severity of `rule`, `None` when it is off.
    pub fn severity(&self, rule: Rule) -> Option<Severity> {
        self.severities
            .iter()
            .find(|(r, _)| *r == rule)
            .map_or(rule.default_severity(), |(_, s)| *s)
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
    /// The servers; the first is the surface unprefixed names belong to.
    servers: Vec<Server<'s>>,
    settings: Settings,
    /// Finds every prefix and every unprefixed former or removed name in one pass.
    refs: RefIndex,
    /// The bytes a prefix (or `mcp_`) may start with: a name starting with another byte is
    /// unprefixed, without trying every prefix.
    prefix_starts: [bool; 256],
    /// The first two bytes of every prefix and of `mcp_`, when every prefix has two before
    /// any `*` (`None`: [`Linter::resolve`] tries the prefixes on every name `prefix_starts`
    /// lets through).
    prefix_pairs: Option<Vec<[u8; 2]>>,
    /// [`MARKS`] as one SIMD searcher (when the cpu has one): one pass over a file instead
    /// of one per string.
    marks: Option<aho_corasick::packed::Searcher>,
    /// Every word a YAML-style call may start with ([`Linter::is_yaml_call_name`]): the
    /// first server's tool and former names and every prefix. A code block that holds none
    /// has no such call, and its lines are not read one by one. `None` when there are too
    /// many for the searcher (or none): every block is read.
    call_words: Option<aho_corasick::packed::Searcher>,
}

/// Strings whose presence lets a file skip a pass: JSON calls (`"arguments"`), `<tool>`
/// tags, `toolgate:` markers.
const MARKS: [&str; 3] = ["\"arguments\"", "<tool", "toolgate:"];

/// Which of [`MARKS`] a file holds.
#[derive(Clone, Copy, Debug, Default)]
struct Marks {
    arguments: bool,
    tool_tag: bool,
    markers: bool,
}

/// One server: its surface and the prefixes its tools are written under.
#[derive(Debug)]
struct Server<'s> {
    name: String,
    prefixes: Vec<Prefix>,
    removed: Vec<String>,
    checker: Checker<'s>,
    /// The naming pattern its tools share ([`servers::tool_shape`]), if any.
    shape: Option<String>,
}

/// What a pattern of [`RefIndex`] is.
#[derive(Clone, Copy, Debug)]
enum Pat {
    /// Prefix `prefix` of server `server` (its text before any `*`).
    Prefix { server: usize, prefix: usize },
    /// An unprefixed name that is a former or removed tool name of server `server` (the
    /// first server that has it, and none has it as a current tool).
    Stale { server: usize },
}

#[derive(Debug, Default)]
struct RefIndex {
    ac: Option<AhoCorasick>,
    /// The same patterns as a SIMD searcher (Teddy), when the processor has one: the
    /// automaton's prefilter looks for the patterns' first bytes (`m` and `t` for tatara's
    /// prefixes), which English text holds every few bytes, and it cost a tenth of the lint.
    packed: Option<aho_corasick::packed::Searcher>,
    pats: Vec<Pat>,
    /// Each unprefixed former or removed name and its server.
    stale: std::collections::HashMap<String, usize>,
}

impl RefIndex {
    /// Every match in `hay`, leftmost-longest, not overlapping: (pattern, start, end).
    fn matches(&self, hay: &str) -> Vec<(usize, usize, usize)> {
        if let Some(p) = &self.packed {
            p.find_iter(hay)
                .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
                .collect()
        } else if let Some(ac) = &self.ac {
            ac.find_iter(hay)
                .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
                .collect()
        } else {
            Vec::new()
        }
    }
}

/// A name, resolved against the servers' prefixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resolved {
    /// A configured server's name: the server, the prefix length, whether it is generic.
    Server(usize, usize, bool),
    /// An `mcp__other__` name of a server not configured: out of scope.
    Foreign,
}

/// A reference to a tool found outside a call.
struct Reference {
    server: usize,
    /// The whole name, prefix included.
    full: Span,
    /// The tool name after the prefix.
    name: Span,
    generic: bool,
    /// Whether `name` is a pattern (`get_*` in a settings file's `mcp__github__get_*`).
    pattern: bool,
}

/// A call found in a text, ready to check.
struct FoundCall {
    /// The tool name (its prefix stripped).
    name: Span,
    args: Args,
    form: Form,
}

/// How a call is written: where the fields a rename sets go, and how they are spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// `name(field="v")`.
    Paren,
    /// `name { field: "v" }` or `name({"field": "v"})`, the object's `{` at `brace`.
    Object { brace: usize },
    /// `{"name": "x", "arguments": {...}}`, the arguments' `{` at `brace`.
    Json { brace: usize },
    /// `name  field: v`, or `name` with `field: v` lines under it.
    Yaml,
}

/// Tools the hosts have built in (Claude Code's `Task(...)`, `Agent(...)`, `Bash(...)`):
/// never an MCP server's, so never an unknown tool of one.
const HOST_TOOLS: &[&str] = &[
    "Task",
    "Agent",
    "AskUserQuestion",
    "Bash",
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "Grep",
    "Glob",
    "LS",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "TodoRead",
    "NotebookEdit",
    "NotebookRead",
    "Skill",
    "SlashCommand",
    "ExitPlanMode",
    "KillShell",
    "BashOutput",
];

/// Keywords that are never tool names, whatever follows them.
const KEYWORDS: &[&str] = &[
    "if", "for", "while", "switch", "return", "catch", "elif", "with", "match", "assert", "and",
    "or", "not", "in", "typeof", "sizeof", "await", "yield",
];

impl Settings {
    /// The name of the server of unprefixed names for `surface` (`server`, else the
    /// catalog's) and its prefixes (`prefixes`, else the defaults of that name; none for a
    /// server without a name).
    pub fn server_of(&self, surface: &Surface) -> (String, Vec<String>) {
        let name = self
            .server
            .clone()
            .unwrap_or_else(|| surface.catalog.clone());
        let prefixes = match &self.prefixes {
            Some(p) => p.clone(),
            None if name.is_empty() => Vec::new(),
            None => servers::default_prefixes(&name),
        };
        (name, prefixes)
    }
}

impl<'s> Linter<'s> {
    /// The lint for `surface`.
    pub fn new(surface: &'s Surface, settings: Settings) -> Linter<'s> {
        let (name, prefixes) = settings.server_of(surface);
        let removed = settings.removed.clone();
        let mut linter = Linter {
            servers: Vec::new(),
            settings,
            refs: RefIndex::default(),
            prefix_starts: [false; 256],
            prefix_pairs: None,
            marks: aho_corasick::packed::Config::new()
                .builder()
                .extend(MARKS)
                .build(),
            call_words: None,
        };
        linter.push_server(name, &prefixes, removed, surface);
        linter
    }

    /// Adds another server: names written under one of `prefixes` are checked against
    /// `surface`. `removed` are its tools removed without a replacement.
    pub fn add_server(
        &mut self,
        name: &str,
        prefixes: &[String],
        removed: &[String],
        surface: &'s Surface,
    ) {
        self.push_server(name.to_string(), prefixes, removed.to_vec(), surface);
    }

    fn push_server(
        &mut self,
        name: String,
        prefixes: &[String],
        removed: Vec<String>,
        surface: &'s Surface,
    ) {
        let mut checker = Checker::new(surface);
        checker.set_past(&removed, crate::history::apply::Notes::default());
        self.servers.push(Server {
            name,
            prefixes: prefixes.iter().map(|p| Prefix::parse(p)).collect(),
            removed,
            checker,
            shape: servers::tool_shape(surface.tools.iter().map(|t| t.name.as_str())),
        });
        self.refs = self.build_refs();
        let mut starts = [false; 256];
        starts[usize::from(b'm')] = true;
        for p in self.servers.iter().flat_map(|s| s.prefixes.iter()) {
            match p.head.bytes().next() {
                Some(b) => starts[usize::from(b)] = true,
                None => starts = [true; 256],
            }
        }
        self.prefix_starts = starts;
        let mut pairs = vec![*b"mc"];
        for p in self.servers.iter().flat_map(|s| s.prefixes.iter()) {
            match p.head.as_bytes() {
                [a, b, ..] => pairs.push([*a, *b]),
                _ => {
                    pairs.clear();
                    break;
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        self.prefix_pairs = (!pairs.is_empty()).then_some(pairs);
        self.call_words = self.build_call_words();
    }

    fn build_call_words(&self) -> Option<aho_corasick::packed::Searcher> {
        let main = self.servers.first()?;
        let mut words: Vec<&str> = Vec::new();
        for p in self.servers.iter().flat_map(|s| s.prefixes.iter()) {
            // A prefix with nothing before its `*` may start any word.
            if p.head.is_empty() {
                return None;
            }
            words.push(&p.head);
        }
        words.extend(main.checker.surface.tools.iter().map(|t| t.name.as_str()));
        words.extend(main.checker.former_names().map(|(old, _)| old));
        if words.iter().any(|w| w.is_empty()) {
            return None;
        }
        aho_corasick::packed::Config::new()
            .builder()
            .extend(&words)
            .build()
    }

    /// Whether the code block `block` may hold a YAML-style call: it holds a word one can
    /// start with.
    fn may_hold_yaml_calls(&self, text: &str, block: Span) -> bool {
        self.call_words.as_ref().is_none_or(|w| {
            text.as_bytes()
                .get(block.range())
                .is_none_or(|b| w.find(b).is_some())
        })
    }

    fn build_refs(&self) -> RefIndex {
        let mut words: Vec<String> = Vec::new();
        let mut pats = Vec::new();
        for (si, server) in self.servers.iter().enumerate() {
            for (pi, p) in server.prefixes.iter().enumerate() {
                if !p.head.is_empty() {
                    words.push(p.head.clone());
                    pats.push(Pat::Prefix {
                        server: si,
                        prefix: pi,
                    });
                }
            }
        }
        let stale = self.stale_names();
        let mut sorted: Vec<(&String, &usize)> = stale.iter().collect();
        sorted.sort();
        for (name, &server) in sorted {
            words.push(name.clone());
            pats.push(Pat::Stale { server });
        }
        let ac = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&words)
            .ok();
        let packed = aho_corasick::packed::Config::new()
            .match_kind(aho_corasick::packed::MatchKind::LeftmostLongest)
            .builder()
            .extend(&words)
            .build();
        RefIndex {
            ac,
            packed,
            pats,
            stale,
        }
    }

    /// Every server's former and removed names that no server has as a current tool, each
    /// with the first server that has it: written without a prefix, such a name is still
    /// that server's, whatever the shape of its tools' names.
    fn stale_names(&self) -> std::collections::HashMap<String, usize> {
        let mut out = std::collections::HashMap::new();
        for (si, server) in self.servers.iter().enumerate() {
            let names = server
                .checker
                .former_names()
                .map(|(o, _)| o)
                .chain(server.checker.removed().iter().map(String::as_str));
            for name in names {
                let current = self
                    .servers
                    .iter()
                    .any(|s| s.checker.lookup(name) == NameKind::Known);
                if !current && !name.is_empty() {
                    out.entry(name.to_string()).or_insert(si);
                }
            }
        }
        out
    }

    /// The server an unprefixed name belongs to: the first server's when it has one,
    /// otherwise the server whose former or removed name it is.
    fn unprefixed_owner(&self, name: &str) -> Option<usize> {
        match self.refs.stale.get(name) {
            Some(&si) if si != 0 || self.unprefixed_checked() => Some(si),
            _ => self.unprefixed_checked().then_some(0),
        }
    }

    /// Puts what the history says of server `name` (its removals and the versions of its
    /// renames, [`crate::history::apply`]) on its checks; `removed` are the removals its
    /// configuration declares. A server not in the lint is ignored.
    pub fn set_past(&mut self, name: &str, notes: crate::history::apply::Notes) {
        let Some(server) = self.servers.iter_mut().find(|s| s.name == name) else {
            return;
        };
        let removed = server.removed.clone();
        server.checker.set_past(&removed, notes);
        self.refs = self.build_refs();
        self.call_words = self.build_call_words();
    }

    /// Which of [`MARKS`] `text` holds.
    fn marks(&self, text: &str) -> Marks {
        let Some(searcher) = &self.marks else {
            let has = |m: &str| memchr::memmem::find(text.as_bytes(), m.as_bytes()).is_some();
            return Marks {
                arguments: has(MARKS[0]),
                tool_tag: has(MARKS[1]),
                markers: has(MARKS[2]),
            };
        };
        let mut found = Marks::default();
        for m in searcher.find_iter(text) {
            match m.pattern().as_usize() {
                0 => found.arguments = true,
                1 => {
                    found.tool_tag = true;
                    // `<toolgate:` holds the third string one byte in, which a search for
                    // matches that do not overlap steps over.
                    found.markers |= text[m.start() + 1..].starts_with(MARKS[2]);
                }
                _ => found.markers = true,
            }
            if found.arguments && found.tool_tag && found.markers {
                break;
            }
        }
        found
    }

    /// The surface's index (of the server unprefixed names belong to).
    pub fn checker(&self) -> &Checker<'s> {
        &self.servers[0].checker
    }

    /// Whether unprefixed names belong to a server: not when the first server has no name
    /// and no tool (several servers named by host configurations, each behind its prefixes).
    fn unprefixed_checked(&self) -> bool {
        let first = &self.servers[0];
        !(first.name.is_empty() && first.checker.surface.tools.is_empty())
    }

    /// Which server a name written `full` belongs to.
    fn resolve(&self, full: &str) -> Option<Resolved> {
        let bytes = full.as_bytes();
        if !bytes
            .first()
            .is_some_and(|&b| self.prefix_starts[usize::from(b)])
        {
            return None;
        }
        // The first two bytes of a prefix (or of `mcp_`): most names that start like one
        // (`memory_edges`, `task_note`) do not go on like one.
        if let Some(pairs) = &self.prefix_pairs
            && !bytes
                .get(..2)
                .is_some_and(|two| pairs.iter().any(|p| p == two))
        {
            return None;
        }
        let mut best: Option<Resolved> = None;
        let mut best_len = 0;
        for (si, server) in self.servers.iter().enumerate() {
            for p in &server.prefixes {
                if let Some(len) = p.len_at(full, 0)
                    && len > best_len
                {
                    best_len = len;
                    best = Some(Resolved::Server(si, len, p.generic));
                }
            }
        }
        if best.is_none() && full.starts_with("mcp_") {
            return Some(Resolved::Foreign);
        }
        best
    }

    /// The server and the tool name of a call's name span (its prefix stripped); `None`
    /// for another server's tool.
    fn call_target(&self, text: &str, name: Span) -> Option<(usize, Span, bool)> {
        match self.resolve(name.of(text)) {
            None => self
                .unprefixed_owner(name.of(text))
                .map(|si| (si, name, false)),
            Some(Resolved::Foreign) => None,
            Some(Resolved::Server(si, len, generic)) => {
                let stripped = Span::new(name.start + len, name.end);
                (!stripped.is_empty()).then_some((si, stripped, generic))
            }
        }
    }

    /// Lints `text`, the content of the file shown as `path`. `mapped` are the profiles the
    /// configuration gives the file's path, used when its front matter names none.
    pub fn lint_text(&self, path: &str, text: &str, mapped: Option<&[String]>) -> FileLint {
        self.document(path, text, mapped).into_lint()
    }

    /// Runs every stage over the file shown as `path`, whose content is `text` (`mapped`: as
    /// for [`Linter::lint_text`]), and keeps what each found: the tool references and the
    /// findings. The order of the stages is the order of the findings before they are sorted.
    pub fn document<'t>(
        &self,
        path: &'t str,
        text: &'t str,
        mapped: Option<&[String]>,
    ) -> Document<'t> {
        let mut doc = self.read_front_matter(path, text, mapped);
        let calls = self.find_calls(&mut doc);
        self.check_calls(&mut doc, calls);
        self.check_host_lists(&mut doc);
        self.check_references(&mut doc);
        self.check_tags(&mut doc);
        self.check_shaped_names(&mut doc);
        self.check_parameters(&mut doc);
        self.check_tools_allowed(&mut doc);
        self.check_too_many_tools(&mut doc);
        self.check_front_matter_calls(&mut doc);
        self.place_findings(&mut doc);
        doc
    }

    /// The name of server `index` (0: the server unprefixed names belong to), as
    /// [`ToolRef::server`] gives it.
    pub fn server_name(&self, index: usize) -> Option<&str> {
        self.servers.get(index).map(|s| s.name.as_str())
    }

    /// The server and tool name of a name written `written`, when it is a tool the server
    /// has (not a former name).
    /// The server and tool name of a name written `written`, when it is a tool the server
    /// has (not a former name).
    fn known_target<'w>(&self, written: &'w str) -> Option<(usize, &'w str)> {
        let (si, name) = match self.resolve(written) {
            None => (0, written),
            Some(Resolved::Foreign) => return None,
            Some(Resolved::Server(si, len, _)) => (si, written.get(len..)?),
        };
        (!name.is_empty() && self.servers[si].checker.lookup(name) == NameKind::Known)
            .then_some((si, name))
    }

    /// Whether `name` before `{` may start an object-style call: a tool of a server (or a
    /// former name), or any name behind a specific prefix (`mcp__github__x {`).
    fn is_object_call_name(&self, name: &str) -> bool {
        match self.resolve(name) {
            Some(Resolved::Foreign) => false,
            Some(Resolved::Server(si, len, generic)) => match name.get(len..) {
                Some(rest) if !rest.is_empty() => {
                    !generic || self.servers[si].checker.lookup(rest) != NameKind::Unknown
                }
                _ => false,
            },
            None => self
                .unprefixed_owner(name)
                .is_some_and(|si| self.servers[si].checker.lookup(name) != NameKind::Unknown),
        }
    }

    /// Whether a name that starts a line of a code block may start a YAML-style call.
    fn is_yaml_call_name(&self, name: &str) -> bool {
        self.is_object_call_name(name)
    }
}

/// Whether `path` is a data file: a Claude Code settings file (`.claude/settings.json`,
/// `settings.local.json`) or another host's configuration (`.gemini/settings.json`,
/// `opencode.jsonc`, `.codex/config.toml`): JSON, JSONC or TOML, where every string is a
/// place for a tool name (no front matter, no Markdown body).
pub fn is_settings_file(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.ends_with(".json") || name.ends_with(".jsonc") || name.ends_with(".toml")
}

/// Whether the front matter `tools:` of the file at `path` restricts what the agent may
/// use: a Claude Code subagent (`.claude/agents/`, a plugin's `agents/`) or a Copilot custom
/// agent (`.agent.md`) or a VS Code chat mode (`.chatmode.md`). Skills and commands
/// (`allowed-tools:`) only pre-approve.
pub fn restricts_tools(path: &str) -> bool {
    let p = path.replace('\\', "/");
    p.ends_with(".agent.md")
        || p.ends_with(".chatmode.md")
        || p.contains("/agents/")
        || p.starts_with("agents/")
        || p.contains(".claude/agents/")
}

#[cfg(test)]
mod tests;
