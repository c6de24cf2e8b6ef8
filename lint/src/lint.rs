//! Linting one file's text: find the calls, check them, place the findings.
//!
//! [`Linter::lint_text`] is a pure function of the text (and of the profiles the
//! configuration maps the file's path to); reading files, walking folders and printing live
//! elsewhere.

use aho_corasick::{AhoCorasick, MatchKind};
use toolgate_schema::Surface;

use crate::args::{ArgKind, Args, Outcome, ParseOptions, ValueKind, parse_args, parse_object};
use crate::check::{Checker, NameKind, Problem, SkillProfiles};
use crate::finding::{Edit, Finding};
use crate::forms;
use crate::frontmatter::{self, Declared};
use crate::markers;
use crate::negation;
use crate::params;
use crate::rules::{self, Rule, Severity};
use crate::scan::{self, Context, region_of};
use crate::servers::{self, Prefix};
use crate::text::{LineIndex, OffsetLines, Position, Span};
use crate::toollist::{self, ListKey};

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
                .map(|r| (*r, Some(Severity::Error)))
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
#[derive(Clone, Copy, Default)]
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
}

/// What a pattern of [`RefIndex`] is.
#[derive(Clone, Copy, Debug)]
enum Pat {
    /// Prefix `prefix` of server `server` (its text before any `*`).
    Prefix { server: usize, prefix: usize },
    /// An unprefixed name of the first server that is a former or removed tool name.
    Stale,
}

#[derive(Debug, Default)]
struct RefIndex {
    ac: Option<AhoCorasick>,
    /// The same patterns as a SIMD searcher (Teddy), when the processor has one: the
    /// automaton's prefilter looks for the patterns' first bytes (`m` and `t` for tatara's
    /// prefixes), which English text holds every few bytes, and it cost a tenth of the lint.
    packed: Option<aho_corasick::packed::Searcher>,
    pats: Vec<Pat>,
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

impl<'s> Linter<'s> {
    /// The lint for `surface`.
    pub fn new(surface: &'s Surface, settings: Settings) -> Linter<'s> {
        let name = settings
            .server
            .clone()
            .unwrap_or_else(|| surface.catalog.clone());
        let prefixes = match &settings.prefixes {
            Some(p) => p.clone(),
            None if name.is_empty() => Vec::new(),
            None => servers::default_prefixes(&name),
        };
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
        self.servers.push(Server {
            name,
            prefixes: prefixes.iter().map(|p| Prefix::parse(p)).collect(),
            removed,
            checker: Checker::new(surface),
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
        if let Some(main) = self.servers.first() {
            let mut stale: Vec<&str> = main.checker.former_names().map(|(o, _)| o).collect();
            stale.extend(main.removed.iter().map(String::as_str));
            stale.sort_unstable();
            stale.dedup();
            for name in stale {
                words.push(name.to_string());
                pats.push(Pat::Stale);
            }
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
        RefIndex { ac, packed, pats }
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
            None => self.unprefixed_checked().then_some((0, name, false)),
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
        let mut out = FileLint::default();
        let marks = self.marks(text);
        let settings_file = is_settings_file(path);
        let fm = if settings_file {
            None
        } else {
            scan::front_matter(text)
        };
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let body_start = fm.map_or(bom, |f| f.body_start);
        let decoded = fm.map(|f| frontmatter::decode(text, f.yaml));
        if let Some(d) = &decoded
            && let Some((at, why)) = &d.error
        {
            // Hosts read front matter leniently (an unquoted `: ` in a description): a warning,
            // and the rest of the file is still checked.
            let pos = LineIndex::new(text).position(text, *at);
            out.warnings.push(format!(
                "{path}:{}:{}: the front matter is not strict YAML ({why}); hosts may still read it, and the file was checked, its profiles taken as unknown (every profile)",
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
        // Tool names used in the body (server, tool name span, whole name span), for
        // `tool-not-allowed`.
        let mut used: Vec<(usize, Span, Span)> = Vec::new();
        // Where calls were found, so that a reference pass does not report them again.
        let mut called: Vec<usize> = Vec::new();

        // The body.
        let body = Span::new(body_start, text.len());
        let cands = if settings_file {
            Vec::new()
        } else {
            scan::candidates(text, body, |name, open| match self.resolve(name) {
                Some(Resolved::Foreign) => false,
                Some(Resolved::Server(si, len, generic)) => match name.get(len..) {
                    Some(rest) if !rest.is_empty() => match self.servers[si].checker.lookup(rest) {
                        NameKind::Known | NameKind::Former(_) => true,
                        NameKind::Unknown => !generic || scan::pair_follows(text, open),
                    },
                    _ => false,
                },
                None if !self.unprefixed_checked() => false,
                None => match self.servers[0].checker.lookup(name) {
                    NameKind::Known | NameKind::Former(_) => true,
                    NameKind::Unknown => scan::pair_follows(text, open),
                },
            })
        };
        let object_cands = if settings_file {
            Vec::new()
        } else {
            scan::candidates_before(text, body, b'{', |name, _| self.is_object_call_name(name))
        };
        let mut regions: Option<Vec<scan::Region>> = None;
        // YAML-style calls live in code blocks: a file with no other candidate is structured
        // only when it has a fence.
        let fenced = !settings_file
            && cands.is_empty()
            && object_cands.is_empty()
            && (memchr::memmem::find(text.as_bytes(), b"```").is_some()
                || memchr::memmem::find(text.as_bytes(), b"~~~").is_some());
        // (server, call, where the name as written starts)
        let mut calls: Vec<(usize, FoundCall, usize)> = Vec::new();
        if !cands.is_empty() || !object_cands.is_empty() || fenced {
            let regions = regions.get_or_insert_with(|| scan::regions(text, body_start));
            for c in cands {
                let Some(region) = region_of(regions, Span::new(c.name.start, c.open + 1)) else {
                    continue;
                };
                let Some((si, tool_name, generic)) = self.call_target(text, c.name) else {
                    continue;
                };
                let prefixed = tool_name != c.name;
                let written = c.name;
                let c = scan::Candidate {
                    name: tool_name,
                    ..c
                };
                if let Some(call) = self.call_at(
                    si,
                    text,
                    c,
                    region.span.end,
                    region.context,
                    prefixed && !generic,
                ) {
                    calls.push((si, call, written.start));
                }
            }
            for c in object_cands {
                if let Some((si, call, written)) = self.object_call_at(text, c, regions) {
                    calls.push((si, call, written));
                }
            }
            for region in regions.iter() {
                if !region.context.is_block_code() || !self.may_hold_yaml_calls(text, region.span) {
                    continue;
                }
                for y in forms::yaml_calls(text, region.span, |name| self.is_yaml_call_name(name)) {
                    let Some((si, tool_name, _)) = self.call_target(text, y.name) else {
                        continue;
                    };
                    calls.push((
                        si,
                        FoundCall {
                            name: tool_name,
                            args: y.args,
                            form: Form::Yaml,
                        },
                        y.name.start,
                    ));
                }
            }
        }
        if !settings_file && marks.arguments {
            for j in forms::json_calls(text, body) {
                let Some((si, tool_name, _)) = self.call_target(text, j.name) else {
                    continue;
                };
                calls.push((
                    si,
                    FoundCall {
                        name: tool_name,
                        args: j.args,
                        form: Form::Json { brace: j.args_open },
                    },
                    j.name.start,
                ));
            }
        }
        for (si, call, written) in calls {
            if called.contains(&call.name.start) {
                continue;
            }
            out.calls += 1;
            called.push(call.name.start);
            let checker = &self.servers[si].checker;
            if checker.lookup(call.name.of(text)) == NameKind::Known {
                used.push((si, call.name, Span::new(written, call.name.end)));
            }
            let mut found = checker.check_call(text, call.name, &call.args, &skill);
            if found.is_empty() {
                continue;
            }
            self.extend_rename_fixes(si, text, &call, &mut found);
            let line_start =
                memchr::memrchr(b'\n', &text.as_bytes()[..call.name.start]).map_or(0, |i| i + 1);
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

        // Names written outside calls: behind a prefix, or former and removed names.
        let refs = self.references(text, bom);
        // Tools named in the body outside calls, where parameters may follow them.
        let mut mentions: Vec<Span> = Vec::new();
        if !refs.is_empty() {
            let fm_span = fm.map(|f| Span::new(bom, f.body_start));
            let regions = regions.get_or_insert_with(|| scan::regions(text, body_start));
            for r in refs {
                if called.contains(&r.name.start) {
                    continue;
                }
                let in_front = fm_span.is_some_and(|f| r.full.start < f.end);
                let context = if settings_file || in_front {
                    None
                } else {
                    Some(region_of(regions, r.full).map_or(Context::Prose, |g| g.context))
                };
                let server = &self.servers[r.server];
                let tool = r.name.of(text);
                match server.checker.lookup(tool) {
                    NameKind::Known => {
                        if !in_front {
                            used.push((r.server, r.name, r.full));
                            if context.is_some() {
                                mentions.push(r.full);
                            }
                        }
                    }
                    NameKind::Former(_) => {
                        let mut p = server.checker.unknown_tool(tool, r.name);
                        p.span = r.name;
                        problems.push((p, r.full));
                    }
                    NameKind::Unknown => {
                        let code_like = context.is_none_or(|c| c.is_code());
                        let removed = server.removed.iter().any(|n| n == tool);
                        if !removed && r.generic && !code_like {
                            continue;
                        }
                        let mut p = server.checker.unknown_tool(tool, r.name);
                        if removed {
                            p.message = rules::unknown_tool::removed(tool);
                            p.suggestion = None;
                        }
                        problems.push((p, r.full));
                    }
                }
            }
        }

        // `<tool>name</tool>`: an unprefixed name in a tag is a tool reference (prefixed ones
        // were found above).
        if !settings_file && marks.tool_tag {
            for tag in forms::tags(text, body) {
                let name = tag.of(text);
                if self.resolve(name).is_some() || HOST_TOOLS.contains(&name) {
                    continue;
                }
                // MCP tools are named in lower case; `<tool>WebSearch</tool>` is a host's.
                if !name.bytes().all(crate::args::is_name_byte)
                    || name.bytes().any(|b| b.is_ascii_uppercase())
                {
                    continue;
                }
                let server = &self.servers[0];
                match server.checker.lookup(name) {
                    NameKind::Known => used.push((0, tag, tag)),
                    // Former and removed names were reported above, as words.
                    NameKind::Former(_) => {}
                    NameKind::Unknown => {
                        if server.removed.iter().any(|n| n == name) {
                            continue;
                        }
                        problems.push((server.checker.unknown_tool(name, tag), tag));
                    }
                }
            }
        }

        // Parameters written without call syntax next to a tool's name (`+params` forms).
        if !settings_file {
            let has_tags = memchr::memmem::find(text.as_bytes(), b"<tool").is_some();
            if regions.is_some()
                || !mentions.is_empty()
                || has_tags
                || self.code_span_tool(text, body_start)
            {
                let regions = regions.get_or_insert_with(|| scan::regions(text, body_start));
                self.param_calls(
                    text,
                    body_start,
                    regions,
                    mentions,
                    &mut called,
                    &mut used,
                    &skill,
                    &mut problems,
                    &mut out,
                );
            }
        }

        // `tool-not-allowed`: an agent whose `tools:` restricts it.
        if let Some(f) = fm
            && restricts_tools(path)
        {
            for list in toollist::read(text, f.yaml) {
                if list.key != ListKey::Tools {
                    continue;
                }
                for (si, name, full) in &used {
                    if self.allows(&list.entries, *si, name.of(text)) {
                        continue;
                    }
                    let tool = name.of(text);
                    problems.push((
                        Problem {
                            rule: Rule::ToolNotAllowed,
                            span: *full,
                            message: rules::tool_not_allowed::message(tool, full.of(text)),
                            tool: Some(tool.to_string()),
                            field: None,
                            value: None,
                            suggestion: None,
                            fix: None,
                        },
                        *full,
                    ));
                }
            }
        }

        // Strings of the front matter: a known tool is checked wherever it is written.
        if let Some(d) = &decoded {
            for scalar in &d.scalars {
                let value = scalar.value.as_str();
                let cands = scan::candidates(value, Span::new(0, value.len()), |name, _| {
                    self.checker().lookup(name) == NameKind::Known
                });
                for c in cands {
                    let args = parse_args(value, c.open, value.len(), ParseOptions::default());
                    out.calls += 1;
                    let found = self.checker().check_call(value, c.name, &args, &skill);
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
        // Markers need every line; otherwise only the findings' offsets get a line, counted
        // in one pass (most files have a few findings, and indexing every line cost more).
        let (lines, allowances) = if marks.markers {
            let index = LineIndex::new(text);
            let allowances = markers::read(text, &index);
            (Lines::Index(index), allowances)
        } else {
            let offsets = problems
                .iter()
                .flat_map(|(p, call)| [p.span.start, p.span.end, call.start])
                .collect();
            (
                Lines::Offsets(OffsetLines::new(text, offsets)),
                markers::Allowances::default(),
            )
        };
        for w in &allowances.problems {
            out.warnings.push(format!("{path}: {w}"));
        }
        for (p, call_span) in problems {
            let Some(severity) = self.settings.severity(p.rule) else {
                continue;
            };
            let line = lines.line_of(text, p.span.start);
            let call_line = lines.line_of(text, call_span.start);
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

    /// Whether a code span of the text from `from` holds only the name of a tool of the
    /// server unprefixed names belong to (`` `issue_read` ``): the cheap test that says a file
    /// without other references may still name a tool with parameters beside it.
    fn code_span_tool(&self, text: &str, from: usize) -> bool {
        let bytes = text.as_bytes();
        let from = from.min(bytes.len());
        memchr::memchr_iter(b'`', &bytes[from..]).any(|i| {
            let start = from + i + 1;
            let end = bytes[start..]
                .iter()
                .position(|&b| !crate::args::is_name_byte(b))
                .map_or(bytes.len(), |n| start + n);
            end > start
                && bytes.get(end) == Some(&b'`')
                && self.servers[0].checker.lookup(&text[start..end]) == NameKind::Known
        })
    }

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

    /// The parameters written next to tools named without call syntax
    /// ([`crate::params`]: list items after `with:`, code spans after the name, a fenced
    /// block, sibling tags, comment lines, a table column), checked like a call's. `mentions`
    /// are the prefixed names of current tools outside calls; the code spans holding only an
    /// unprefixed tool name are added here.
    #[allow(clippy::too_many_arguments)]
    fn param_calls(
        &self,
        text: &str,
        body_start: usize,
        regions: &[scan::Region],
        mut mentions: Vec<Span>,
        called: &mut Vec<usize>,
        used: &mut Vec<(usize, Span, Span)>,
        skill: &SkillProfiles,
        problems: &mut Vec<(Problem, Span)>,
        out: &mut FileLint,
    ) {
        let bytes = text.as_bytes();
        for r in regions {
            if !matches!(r.context, Context::InlineCode | Context::TableCode) {
                continue;
            }
            let mut s = r.span;
            while s.start < s.end && bytes[s.start] == b' ' {
                s.start += 1;
            }
            while s.end > s.start && bytes[s.end - 1] == b' ' {
                s.end -= 1;
            }
            let name = s.of(text);
            if !name.is_empty()
                && name.bytes().all(crate::args::is_name_byte)
                && !called.contains(&s.start)
                && self.resolve(name).is_none()
                && self.servers[0].checker.lookup(name) == NameKind::Known
            {
                mentions.push(s);
            }
        }
        mentions.sort_unstable();
        mentions.dedup();
        let tools = ParamTools(self);
        for a in params::attached(text, body_start, regions, &mentions, &tools) {
            let Some((si, name, _)) = self.call_target(text, a.tool) else {
                continue;
            };
            let checker = &self.servers[si].checker;
            if checker.lookup(name.of(text)) != NameKind::Known || called.contains(&name.start) {
                continue;
            }
            out.calls += 1;
            called.push(name.start);
            if !used.iter().any(|(_, n, _)| *n == name) {
                used.push((si, name, a.tool));
            }
            let found = checker.check_call(text, name, &a.args, skill);
            if found.is_empty() {
                continue;
            }
            let line_start = memchr::memrchr(b'\n', &bytes[..a.tool.start]).map_or(0, |i| i + 1);
            let negated = negation::forbids(
                &text[line_start..a.tool.start],
                &self.settings.negation_words,
            );
            let call_span = Span::new(a.tool.start, a.args.close.map_or(a.tool.end, |c| c + 1));
            for p in found {
                if negated && p.rule.negation_applies() {
                    continue;
                }
                problems.push((p, call_span));
            }
        }
    }

    /// Decides whether the candidate is a call, and parses it.
    /// `server` is the server the name belongs to; `prefixed` says it was written behind one
    /// of its specific prefixes (`mcp__github__x(`), which makes it a call wherever it is.
    fn call_at(
        &self,
        server: usize,
        text: &str,
        c: scan::Candidate,
        bound: usize,
        context: Context,
        prefixed: bool,
    ) -> Option<FoundCall> {
        let name = c.name.of(text);
        let kind = self.servers[server].checker.lookup(name);
        if kind != NameKind::Known && !context.is_code() && !prefixed {
            return None;
        }
        // An unknown name is a call only when written tight against its `(`: prose inside a
        // code block ("clears as Done (flag=true)") is not a call.
        if kind == NameKind::Unknown
            && (c.qualified
                || c.after_keyword
                || c.spaced
                || KEYWORDS.contains(&name)
                || (!prefixed && HOST_TOOLS.contains(&name)))
        {
            return None;
        }
        let opts = ParseOptions {
            table: context.in_table(),
            comments: context.is_block_code(),
            ..ParseOptions::default()
        };
        let mut args = parse_args(text, c.open, bound, opts);
        let mut form = Form::Paren;
        // `name({"field": "v"})`: the object's members are the call's pairs.
        if let [
            crate::args::Arg {
                kind: ArgKind::Positional(v),
                ..
            },
        ] = args.items.as_slice()
            && v.kind == ValueKind::Object
            && args.outcome == Outcome::Closed
        {
            let brace = v.span.start;
            let members = parse_object(
                text,
                brace,
                v.span.end,
                ParseOptions {
                    backticks: true,
                    ..opts
                },
            );
            if members.outcome == Outcome::Closed {
                args.items = members.items;
                form = Form::Object { brace };
            }
        }
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
            NameKind::Unknown if prefixed => args.outcome == Outcome::Closed,
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
        is_call.then_some(FoundCall {
            name: c.name,
            args,
            form,
        })
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
            None => self.servers[0].checker.lookup(name) != NameKind::Unknown,
        }
    }

    /// Whether a name that starts a line of a code block may start a YAML-style call.
    fn is_yaml_call_name(&self, name: &str) -> bool {
        self.is_object_call_name(name)
    }

    /// The object-style call `name { ... }` of a candidate found before `{`, when it is one:
    /// in code (or behind a specific prefix), not a method or a definition, the object closed
    /// and, for a name the server does not know, made of pairs only.
    fn object_call_at(
        &self,
        text: &str,
        c: scan::Candidate,
        regions: &[scan::Region],
    ) -> Option<(usize, FoundCall, usize)> {
        let region = region_of(regions, Span::new(c.name.start, c.open + 1))?;
        let (si, tool_name, generic) = self.call_target(text, c.name)?;
        let prefixed = tool_name != c.name && !generic;
        if (!region.context.is_code() && !prefixed) || c.qualified || c.after_keyword {
            return None;
        }
        let opts = ParseOptions {
            table: region.context.in_table(),
            comments: region.context.is_block_code(),
            backticks: true,
            ..ParseOptions::default()
        };
        let args = parse_object(text, c.open, region.span.end, opts);
        if args.outcome != Outcome::Closed {
            return None;
        }
        let kind = self.servers[si].checker.lookup(tool_name.of(text));
        if kind == NameKind::Unknown
            && (args.items.is_empty()
                || !args
                    .items
                    .iter()
                    .all(|a| matches!(a.kind, ArgKind::Pair { .. } | ArgKind::Ellipsis)))
        {
            return None;
        }
        Some((
            si,
            FoundCall {
                name: tool_name,
                args,
                form: Form::Object { brace: c.open },
            },
            c.name.start,
        ))
    }

    /// A renamed tool's fix rewrites the name; when the rename sets fields
    /// (`get_issue` -> `issue_read` with `method="get"`), the fix also adds them after `(`,
    /// unless the call already has them.
    fn extend_rename_fixes(
        &self,
        server: usize,
        text: &str,
        call: &FoundCall,
        found: &mut [Problem],
    ) {
        let checker = &self.servers[server].checker;
        let old = call.name.of(text);
        let set = checker.former_set(old);
        if set.is_empty() {
            return;
        }
        let missing: Vec<&(String, String)> = set
            .iter()
            .filter(|(f, _)| !call.args.pairs().any(|(n, _)| n.of(text) == f))
            .collect();
        if missing.is_empty() {
            return;
        }
        let empty = call.args.items.is_empty();
        let bytes = text.as_bytes();
        // Where the fields go, and how they are written there.
        let (at, inserted) = match call.form {
            Form::Paren => {
                let Some(open) = text[call.name.end..].find('(').map(|i| call.name.end + i) else {
                    return;
                };
                let fields: Vec<String> = missing.iter().map(|(f, v)| format!("{f}={v}")).collect();
                let sep = if empty { "" } else { ", " };
                (open + 1, format!("{}{sep}", fields.join(", ")))
            }
            Form::Object { brace } | Form::Json { brace } => {
                // Quoted keys when the object already quotes them (JSON).
                let quoted = matches!(call.form, Form::Json { .. })
                    || call
                        .args
                        .pairs()
                        .next()
                        .is_some_and(|(k, _)| k.start > 0 && bytes[k.start - 1] == b'"');
                let fields: Vec<String> = missing
                    .iter()
                    .map(|(f, v)| {
                        if quoted {
                            format!("\"{f}\": {v}")
                        } else {
                            format!("{f}: {v}")
                        }
                    })
                    .collect();
                // `{ a: 1 }` gets ` f: v,`; `{"a": 1}` gets `"f": v, `.
                let spaced = bytes.get(brace + 1).is_some_and(u8::is_ascii_whitespace);
                let (lead, tail) = match (empty, spaced) {
                    (true, _) => (" ", " "),
                    (false, true) => (" ", ","),
                    (false, false) => ("", ", "),
                };
                (brace + 1, format!("{lead}{}{tail}", fields.join(", ")))
            }
            Form::Yaml => {
                // Pairs on one line are separated by white space: the one after the name stays.
                let fields: Vec<String> =
                    missing.iter().map(|(f, v)| format!("{f}: {v}")).collect();
                (call.name.end, format!(" {}", fields.join(" ")))
            }
        };
        if at < call.name.end || at > text.len() {
            return;
        }
        for p in found.iter_mut() {
            if p.rule != Rule::UnknownTool {
                continue;
            }
            if let Some(fix) = &mut p.fix
                && fix.span == call.name
            {
                let between = &text[call.name.end..at];
                fix.span = Span::new(call.name.start, at);
                fix.replacement = format!("{}{between}{inserted}", fix.replacement);
            }
        }
    }

    /// Every name written behind a configured prefix, and every unprefixed former or removed
    /// name, outside calls or inside them, from `from` on.
    fn references(&self, text: &str, from: usize) -> Vec<Reference> {
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let hay = &text[from.min(text.len())..];
        for (pattern, m_start, m_end) in self.refs.matches(hay) {
            let start = from + m_start;
            if start > 0 && is_ref_byte(bytes[start - 1]) {
                continue;
            }
            match self.refs.pats.get(pattern) {
                Some(Pat::Stale) => {
                    let end = from + m_end;
                    if end < bytes.len()
                        && (crate::args::is_name_byte(bytes[end]) || bytes[end] == b'/')
                    {
                        continue;
                    }
                    let span = Span::new(start, end);
                    out.push(Reference {
                        server: 0,
                        full: span,
                        name: span,
                        generic: false,
                    });
                }
                Some(&Pat::Prefix { server, prefix }) => {
                    let p = &self.servers[server].prefixes[prefix];
                    let Some(len) = p.len_at(text, start) else {
                        continue;
                    };
                    // A longer prefix of any server wins (`github/github-mcp-server/`).
                    let name_start = start + len;
                    let mut end = name_start;
                    while end < bytes.len()
                        && (bytes[end].is_ascii_alphanumeric() || matches!(bytes[end], b'_' | b'-'))
                    {
                        end += 1;
                    }
                    while end > name_start && bytes[end - 1] == b'-' {
                        end -= 1;
                    }
                    // `mcp__github__(issue_read|issue_write)`: a hook matcher's alternation,
                    // each alternative a name.
                    if end == name_start && bytes.get(name_start) == Some(&b'(') {
                        self.alternation(text, server, prefix, start, name_start, &mut out);
                        continue;
                    }
                    // `mcp__github__NAME`, `mcp__github__TOOL`: a placeholder.
                    let name = &text[name_start..end];
                    if end == name_start || !name.bytes().any(|b| b.is_ascii_lowercase()) {
                        continue;
                    }
                    // A path or a domain behind a generic prefix (`github/workflows/ci.yml`,
                    // `github/github-mcp-server`) is not a tool.
                    let next = bytes.get(end).copied();
                    // `mcp__github__get_.*`, `mcp__github__list_*`: a pattern, not a name.
                    if (next == Some(b'*') && bytes[end - 1] == b'_')
                        || (next == Some(b'.') && matches!(bytes.get(end + 1), Some(b'*' | b'+')))
                    {
                        continue;
                    }
                    if p.generic
                        && (text[name_start..end].contains('-')
                            || matches!(next, Some(b'/' | b'-'))
                            || (next == Some(b'.')
                                && bytes
                                    .get(end + 1)
                                    .is_some_and(|b| b.is_ascii_alphanumeric())))
                    {
                        continue;
                    }
                    let full = Span::new(start, end);
                    match self.resolve(full.of(text)) {
                        Some(Resolved::Server(si, l, generic)) if l == len => out.push(Reference {
                            server: si,
                            full,
                            name: Span::new(name_start, end),
                            generic,
                        }),
                        _ => {}
                    }
                }
                None => {}
            }
        }
        // A name inside an alternation is also found as a word: once is enough.
        out.sort_by_key(|r| (r.name.start, r.full.start));
        out.dedup_by_key(|r| r.name.start);
        out
    }

    /// The names of an alternation written after prefix `prefix` of `server` at `start`,
    /// `mcp__github__(a|b)` (its `(` at `open`): one reference each; `full` is the whole
    /// pattern. An alternative that is itself a pattern (`get_.*`) is left alone.
    fn alternation(
        &self,
        text: &str,
        server: usize,
        prefix: usize,
        start: usize,
        open: usize,
        out: &mut Vec<Reference>,
    ) {
        let bytes = text.as_bytes();
        let stop = bytes.len().min(open + 1024);
        let Some(close) = memchr::memchr2(b')', b'\n', &bytes[open..stop]).map(|i| open + i) else {
            return;
        };
        if bytes[close] != b')' {
            return;
        }
        let generic = self.servers[server].prefixes[prefix].generic;
        let full = Span::new(start, close + 1);
        let mut alt_start = open + 1;
        for part in text[open + 1..close].split('|') {
            let alt = Span::new(alt_start, alt_start + part.len());
            alt_start = alt.end + 1;
            if !part.is_empty()
                && part.bytes().any(|b| b.is_ascii_lowercase())
                && part.bytes().all(crate::args::is_name_byte)
            {
                out.push(Reference {
                    server,
                    full,
                    name: alt,
                    generic,
                });
            }
        }
    }

    /// Whether `entries` (a `tools:` list) grant tool `tool` of server `server`.
    fn allows(&self, entries: &[(String, Span)], server: usize, tool: &str) -> bool {
        let s = &self.servers[server];
        entries.iter().any(|(e, _)| {
            let e = e.trim();
            if e == "*" || e == s.name || e == format!("mcp__{}", s.name) {
                return true;
            }
            if server == 0 && e == tool {
                return true;
            }
            s.prefixes.iter().any(|p| {
                p.len_at(e, 0).is_some_and(|len| {
                    let rest = &e[len..];
                    rest.is_empty() || rest == "*" || rest == tool
                }) || (p.tail.is_none() && p.head.trim_end_matches(['_', '/']) == e)
            })
        })
    }

    fn skill_profiles(
        &self,
        declared: Option<&Declared>,
        mapped: Option<&[String]>,
    ) -> (SkillProfiles, Option<Problem>) {
        if !self.checker().knows_profiles() {
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
        let surface = self.checker().surface;
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

/// The lint's view of names, for [`params::attached`].
struct ParamTools<'l, 's>(&'l Linter<'s>);

impl params::Tools for ParamTools<'_, '_> {
    fn is_tool(&self, written: &str) -> bool {
        self.0.known_target(written).is_some()
    }

    fn declares(&self, written: &str, field: &str) -> bool {
        self.0
            .known_target(written)
            .is_some_and(|(si, name)| self.0.servers[si].checker.declares(name, field))
    }
}

/// The lines of a file's findings: every line indexed when markers need them, else only the
/// findings' offsets.
enum Lines {
    Index(LineIndex),
    Offsets(OffsetLines),
}

impl Lines {
    fn line_of(&self, text: &str, offset: usize) -> usize {
        match self {
            Lines::Index(ix) => ix.line_of(offset),
            Lines::Offsets(o) => o.line_of(text, offset),
        }
    }

    fn position(&self, text: &str, offset: usize) -> Position {
        match self {
            Lines::Index(ix) => ix.position(text, offset),
            Lines::Offsets(o) => o.position(text, offset),
        }
    }
}

/// Bytes that may not come right before a prefix or a name: a name byte, `/`, `.` (so that
/// `github/` is not the `github/` of `.github/agents/`) or `@`.
fn is_ref_byte(b: u8) -> bool {
    crate::args::is_name_byte(b) || matches!(b, b'/' | b'.' | b'@' | b'$')
}

/// Whether `path` is a Claude Code settings file (`.claude/settings.json`,
/// `settings.local.json`): JSON, where every string is a place for a tool name.
pub fn is_settings_file(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.ends_with(".json")
}

/// Whether the front matter `tools:` of the file at `path` restricts what the agent may
/// use: a Claude Code subagent (`.claude/agents/`, a plugin's `agents/`) or a Copilot custom
/// agent (`.agent.md`). Skills and commands (`allowed-tools:`) only pre-approve.
pub fn restricts_tools(path: &str) -> bool {
    let p = path.replace('\\', "/");
    p.ends_with(".agent.md")
        || p.contains("/agents/")
        || p.starts_with("agents/")
        || p.contains(".claude/agents/")
}

fn is_literal(kind: &ValueKind) -> bool {
    match kind {
        ValueKind::Str { .. }
        | ValueKind::Number { .. }
        | ValueKind::Bool(_)
        | ValueKind::Null
        | ValueKind::Placeholder
        | ValueKind::Array
        | ValueKind::Object
        | ValueKind::Plain => true,
        ValueKind::Alternatives(alts) => alts.iter().all(|a| is_literal(&a.kind)),
        ValueKind::Bare | ValueKind::Expr => false,
    }
}
