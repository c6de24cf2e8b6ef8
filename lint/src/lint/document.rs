//! One document on its way through the lint's stages: its text, what the configuration says
//! of it, and what each stage has found so far. The first stage (front matter and profiles)
//! and the last (findings placed, with severities, markers and positions) live here.

use crate::check::SkillProfiles;
use crate::finding::Finding;
use crate::frontmatter::{self, Declared, Decoded};
use crate::markers::{self, Allowances};
use crate::rules::Problem;
use crate::rules::{self, Rule};
use crate::scan::{self, FrontMatter, Region};
use crate::text::{LineIndex, OffsetLines, Position, Span};

use super::{FileLint, Linter, Marks, is_settings_file};

/// One file's text and what the stages of [`Linter::document`] found in it.
#[derive(Debug)]
pub struct Document<'t> {
    /// The path the file is shown as.
    pub(super) path: &'t str,
    /// The file's content.
    pub(super) text: &'t str,
    /// A Claude Code settings file: JSON, where only names count (no body, no front matter).
    pub(super) settings_file: bool,
    /// Which strings that let a stage be skipped the text holds.
    pub(super) marks: Marks,
    /// The front matter block.
    pub(super) front: Option<FrontMatter>,
    /// 3 after a UTF-8 byte order mark, else 0.
    pub(super) bom: usize,
    /// Where the Markdown body starts.
    pub(super) body_start: usize,
    /// The front matter decoded.
    pub(super) decoded: Option<Decoded>,
    /// The profiles the file is checked against.
    pub(super) skill: SkillProfiles,
    /// The body's regions, once a stage needed them (computed at most once).
    pub(super) regions: Option<Vec<Region>>,
    /// Every problem found, with the span of the call (or name) it is in.
    pub(super) problems: Vec<(Problem, Span)>,
    /// Tools of a server named in the body: (server, tool name, the name as written).
    pub(super) used: Vec<(usize, Span, Span)>,
    /// Where the names of the calls already checked start, so that no later stage reports
    /// them again.
    pub(super) called: Vec<usize>,
    /// Current tools named outside calls, where parameters may follow them.
    pub(super) mentions: Vec<Span>,
    /// The result: calls counted, errors, warnings, and (last) the findings.
    pub(super) lint: FileLint,
}

/// A current tool a document names, in a call or outside one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToolRef {
    /// The server ([`Linter::server_name`]; 0 is the one unprefixed names belong to).
    pub server: usize,
    /// The tool's name, its prefix left out.
    pub name: Span,
    /// The name as written, prefix included.
    pub written: Span,
}

impl<'t> Document<'t> {
    /// The path the file is shown as.
    pub fn path(&self) -> &'t str {
        self.path
    }

    /// The file's content.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The current tools the document names, in the order the stages found them.
    pub fn tool_refs(&self) -> impl Iterator<Item = ToolRef> + '_ {
        self.used.iter().map(|&(server, name, written)| ToolRef {
            server,
            name,
            written,
        })
    }

    /// The tool reference whose written name holds byte `offset` (its end included, as an
    /// editor's cursor right after a name is still on it).
    pub fn tool_at(&self, offset: usize) -> Option<ToolRef> {
        self.tool_refs()
            .find(|r| r.written.start <= offset && offset <= r.written.end)
    }

    /// The findings, sorted by position.
    pub fn findings(&self) -> &[Finding] {
        &self.lint.findings
    }

    /// What [`Linter::lint_text`] returns for the document.
    pub fn into_lint(self) -> FileLint {
        self.lint
    }

    /// The body's regions, scanned the first time a stage asks for them. A stage that
    /// pushes to the document while it reads them takes them with [`Document::take_regions`].
    pub(super) fn regions(&mut self) -> &[Region] {
        let (text, from) = (self.text, self.body_start);
        self.regions
            .get_or_insert_with(|| scan::regions(text, from))
    }

    /// The body's regions, scanned if no stage has yet, taken out of the document: give
    /// them back with [`Document::put_regions`].
    pub(super) fn take_regions(&mut self) -> Vec<Region> {
        self.regions
            .take()
            .unwrap_or_else(|| scan::regions(self.text, self.body_start))
    }

    /// Gives back what [`Document::take_regions`] took.
    pub(super) fn put_regions(&mut self, regions: Vec<Region>) {
        self.regions = Some(regions);
    }

    /// The body: from the end of the front matter (or of the byte order mark) to the end.
    pub(super) fn body(&self) -> Span {
        Span::new(self.body_start, self.text.len())
    }
}

impl Linter<'_> {
    /// Stage 1: the document of `text`, with its front matter found and decoded (a lenient
    /// one only warned about) and the profiles it is checked against (from the front
    /// matter, else `mapped`; an unknown one is an `unknown-profile` problem).
    pub(super) fn read_front_matter<'t>(
        &self,
        path: &'t str,
        text: &'t str,
        mapped: Option<&[String]>,
    ) -> Document<'t> {
        let mut lint = FileLint::default();
        let marks = self.marks(text);
        let settings_file = is_settings_file(path);
        let front = if settings_file {
            None
        } else {
            scan::front_matter(text)
        };
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let body_start = front.map_or(bom, |f| f.body_start);
        let decoded = front.map(|f| frontmatter::decode(text, f.yaml));
        if let Some(d) = &decoded
            && let Some((at, why)) = &d.error
        {
            lint.warnings.push(lenient_warning(path, text, *at, why));
        }
        let mut problems: Vec<(Problem, Span)> = Vec::new();
        let (skill, profile_problem) =
            self.skill_profiles(decoded.as_ref().and_then(|d| d.profiles.as_ref()), mapped);
        if let Some(p) = profile_problem {
            let span = p.span;
            problems.push((p, span));
        }
        Document {
            path,
            text,
            settings_file,
            marks,
            front,
            bom,
            body_start,
            decoded,
            skill,
            regions: None,
            problems,
            used: Vec::new(),
            called: Vec::new(),
            mentions: Vec::new(),
            lint,
        }
    }

    /// The profiles a file is checked against, from its front matter's declaration (else
    /// the configuration's `mapped`), and the `unknown-profile` problem of the names the
    /// surface does not have.
    pub(super) fn skill_profiles(
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
        let (known, unknown) = self.split_profiles(names);
        let skill = if known.is_empty() {
            SkillProfiles::all()
        } else {
            SkillProfiles {
                names: known.clone(),
                all: false,
            }
        };
        let problem = self.unknown_profile(&known, &unknown);
        (skill, problem)
    }

    /// The names (trimmed, each once) the surface has as profiles, and those it has not,
    /// with where each was written.
    fn split_profiles(
        &self,
        names: Vec<(String, Option<Span>)>,
    ) -> (Vec<String>, Vec<(String, Option<Span>)>) {
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
        (known, unknown)
    }

    /// The `unknown-profile` problem of the `unknown` names a file gives beside the `known`
    /// ones, placed at the first (nowhere when the configuration gave it).
    fn unknown_profile(
        &self,
        known: &[String],
        unknown: &[(String, Option<Span>)],
    ) -> Option<Problem> {
        let (first, span) = unknown.first().cloned()?;
        let surface = self.checker().surface;
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
            rules::unknown_profile::message(&label, &all_known, suggestion.as_deref(), known);
        if span.is_none() {
            message.push_str(" (the profile comes from toolgate.toml)");
        }
        Some(Problem {
            rule: Rule::UnknownProfile,
            span: span.unwrap_or_default(),
            message,
            tool: None,
            field: None,
            value: Some(first),
            suggestion,
            fix: None,
        })
    }

    /// The last stage: each problem becomes a finding with its rule's severity (none when
    /// the rule is off) and its positions, unless a marker allows it on its line or its
    /// call's; then sorted by position and deduplicated.
    pub(super) fn place_findings(&self, doc: &mut Document<'_>) {
        if doc.problems.is_empty() {
            return;
        }
        let text = doc.text;
        let (lines, allowances) = lines_and_markers(text, doc.marks.markers, &doc.problems);
        for w in &allowances.problems {
            doc.lint.warnings.push(format!("{}: {w}", doc.path));
        }
        for (p, call_span) in std::mem::take(&mut doc.problems) {
            let Some(severity) = self.settings.severity(p.rule) else {
                continue;
            };
            let line = lines.line_of(text, p.span.start);
            let call_line = lines.line_of(text, call_span.start);
            if allowances.allows(p.rule, line) || allowances.allows(p.rule, call_line) {
                continue;
            }
            doc.lint.findings.push(Finding {
                rule: p.rule,
                severity,
                message: p.message,
                path: doc.path.to_string(),
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
        let findings = &mut doc.lint.findings;
        findings.sort_by(|a, b| (a.span, a.rule, &a.message).cmp(&(b.span, b.rule, &b.message)));
        findings.dedup();
    }
}

/// The warning for front matter that is not strict YAML, at byte `at`: hosts read front
/// matter leniently (an unquoted `: ` in a description), so the rest of the file is still
/// checked.
fn lenient_warning(path: &str, text: &str, at: usize, why: &str) -> String {
    let pos = LineIndex::new(text).position(text, at);
    format!(
        "{path}:{}:{}: the front matter is not strict YAML ({why}); hosts may still read it, and the file was checked, its profiles taken as unknown (every profile)",
        pos.line, pos.column
    )
}

/// The lines of the findings, and the markers that allow some. Markers need every line;
/// otherwise only the findings' offsets get a line, counted in one pass (most files have a
/// few findings, and indexing every line cost more).
fn lines_and_markers(
    text: &str,
    has_markers: bool,
    problems: &[(Problem, Span)],
) -> (Lines, Allowances) {
    if has_markers {
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
            Allowances::default(),
        )
    }
}

/// The lines of a file's findings: every line indexed when markers need them, else only the
/// findings' offsets.
enum Lines {
    Index(LineIndex),
    Offsets(OffsetLines),
}

impl Lines {
    /// The 0-based line of `offset`.
    fn line_of(&self, text: &str, offset: usize) -> usize {
        match self {
            Lines::Index(ix) => ix.line_of(offset),
            Lines::Offsets(o) => o.line_of(text, offset),
        }
    }

    /// The position (line and column) of `offset`.
    fn position(&self, text: &str, offset: usize) -> Position {
        match self {
            Lines::Index(ix) => ix.position(text, offset),
            Lines::Offsets(o) => o.position(text, offset),
        }
    }
}
