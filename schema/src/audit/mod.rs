//! The audit: a tool surface judged for danger, not for compatibility.
//!
//! A tool's name, title, description and the descriptions of its parameters are text the
//! model reads as instructions. The rules here look there for what the attacks on MCP put
//! there: invisible characters that carry text a reviewer never sees, directives aimed at
//! the model (secrecy toward the user, "before any other tool", "ignore your instructions",
//! blocks styled as system messages), orders about tools the description does not own
//! (shadowing), a tool ranking itself above the others, an openly harmful purpose, places
//! to send data and parameters that exist to carry it out, annotations that contradict the
//! tool, and names that collide across servers.
//!
//! Each rule is a module with a stable name, a default [`Severity`] and the text
//! `toolgate explain RULE` prints, as ruff does it. The input is a list of tools as JSON, as
//! a server sends them in `tools/list` (name, title, description, inputSchema, annotations),
//! grouped by server ([`AuditSurface`]); [`audit`] returns every finding, sorted.
//!
//! The rules are written from the attack classes, not from one data set's phrasing, and
//! hold that real descriptions say "You must", "IMPORTANT" and "before using this" often:
//! a word alone is never an error; an error needs the shape of the attack (an order about
//! the user's knowledge, a secret file named beside a verb that reads or sends it, ...).
//! `schema/tests/audit.rs` holds them to zero errors on the real servers' surfaces in
//! `../shared/anchors/wild/` and on the bundled catalogs.

use crate::audit_re;
use crate::json::Value;

pub mod annotation_contradiction;
pub mod confusable_name;
pub mod cross_tool_directive;
pub mod exfiltration_target;
pub mod harmful_purpose;
pub mod hidden_characters;
pub mod name_collision;
pub mod near_duplicate;
pub mod override_directive;
pub mod preference_manipulation;
pub mod render;
pub mod secrecy_directive;
pub mod sensitive_path;
pub mod suspicious_parameter;
pub mod system_block;
pub mod text;
pub mod tool_shadowing;

pub use text::{Field, FieldKind};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The shape of an attack: `audit` exits 1, `check` refuses the catalog.
    Error,
    /// Worth a look; not an attack by itself.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A rule: its stable name, what it reports and its explanation.
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// The stable name (configuration and CI depend on it).
    pub name: &'static str,
    /// The severity of its strongest findings (some findings of a rule are warnings).
    pub severity: Severity,
    /// One line on what it reports.
    pub summary: &'static str,
    /// What `toolgate explain RULE` prints.
    pub explain: &'static str,
}

/// Every rule, in the order `toolgate explain` lists them.
pub const RULES: &[Rule] = &[
    hidden_characters::RULE,
    confusable_name::RULE,
    secrecy_directive::RULE,
    override_directive::RULE,
    system_block::RULE,
    cross_tool_directive::RULE,
    sensitive_path::RULE,
    tool_shadowing::RULE,
    preference_manipulation::RULE,
    near_duplicate::RULE,
    harmful_purpose::RULE,
    exfiltration_target::RULE,
    suspicious_parameter::RULE,
    annotation_contradiction::RULE,
    name_collision::RULE,
];

/// The rule named `name`.
pub fn rule(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// One finding: a rule, the tool, the place in the tool's JSON and the text at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The rule's stable name.
    pub rule: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// The server the tool belongs to, when the input names one (a lock's server).
    pub server: Option<String>,
    /// The tool's name exactly as the input has it.
    pub tool: String,
    /// A JSON pointer into the tool (`/description`, `/inputSchema/properties/notes/description`).
    pub path: String,
    /// What is wrong, in one sentence (hidden text decoded).
    pub message: String,
    /// The text at `path` (a string field), when the finding is about one.
    pub text: Option<String>,
    /// The bytes of `text` at fault.
    pub span: Option<(usize, usize)>,
}

/// The order findings are reported in: server, tool, place, span, rule.
type SortKey<'a> = (
    &'a Option<String>,
    &'a str,
    &'a str,
    Option<(usize, usize)>,
    &'a str,
);

impl Finding {
    /// The order findings are reported in.
    fn sort_key(&self) -> SortKey<'_> {
        (&self.server, &self.tool, &self.path, self.span, self.rule)
    }
}

/// One server's tools, as sent in `tools/list`.
#[derive(Clone, Copy, Debug)]
pub struct AuditSurface<'a> {
    /// The server's name (a lock's key, a catalog's name), when there is one.
    pub server: Option<&'a str>,
    /// The prefixes hosts show this server's tools under (`mcp__github__`); empty when a
    /// host shows them bare, or when they are not known (for `name-collision`).
    pub prefixes: &'a [String],
    /// The tools.
    pub tools: &'a [Value],
}

/// A tool of another surface: a locked server or a catalog the audited one is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignTool {
    /// Its server or catalog.
    pub owner: String,
    /// Its name.
    pub name: String,
}

/// What a rule sees of one tool: the tool, its text fields, and its surroundings.
pub struct ToolCx<'a> {
    /// The tool's JSON object.
    pub tool: &'a crate::json::Map,
    /// Its name (empty when it has none).
    pub name: &'a str,
    /// Its server.
    pub server: Option<&'a str>,
    /// Every string of the tool, with its place.
    pub fields: Vec<Field<'a>>,
    /// The names of every tool of the same surface, this one's included.
    pub siblings: &'a [&'a str],
    /// The names of every tool of the surface, to find them in text.
    pub sibling_index: &'a NameIndex,
    /// Tools of other surfaces.
    pub foreign: &'a [ForeignTool],
    /// Their names, to find them in text.
    pub foreign_index: &'a NameIndex,
}

/// A set of tool names found in text in one pass (one regular expression of literals,
/// longest first, so `send_email_v2` wins over `send_email`).
#[derive(Debug)]
pub struct NameIndex {
    re: Option<regex::Regex>,
}

impl NameIndex {
    /// An index of `names`.
    pub fn new<'n>(names: impl IntoIterator<Item = &'n str>) -> NameIndex {
        let mut names: Vec<&str> = names.into_iter().filter(|n| !n.is_empty()).collect();
        names.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        names.dedup();
        if names.is_empty() {
            return NameIndex { re: None };
        }
        let alternation: Vec<String> = names.iter().map(|n| regex::escape(n)).collect();
        let re = regex::RegexBuilder::new(&alternation.join("|"))
            .size_limit(64 << 20)
            .build()
            .ok();
        NameIndex { re }
    }

    /// Every name of the index in `text` as a whole word, with its byte range.
    pub fn find_all<'t>(&self, text: &'t str) -> Vec<(usize, usize, &'t str)> {
        let Some(re) = &self.re else {
            return Vec::new();
        };
        re.find_iter(text)
            .filter(|m| {
                text::mentions(&text[m.start()..], m.as_str()) == Some((0, m.len())) && {
                    let before = text[..m.start()].chars().next_back();
                    before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'))
                }
            })
            .map(|m| (m.start(), m.end(), m.as_str()))
            .collect()
    }
}

impl ToolCx<'_> {
    /// A finding of `rule` about this tool at `field`'s bytes `span`.
    pub fn finding(
        &self,
        rule: &Rule,
        severity: Severity,
        field: &Field<'_>,
        span: Option<(usize, usize)>,
        message: String,
    ) -> Finding {
        Finding {
            rule: rule.name,
            severity,
            server: self.server.map(str::to_string),
            tool: self.name.to_string(),
            path: field.path.clone(),
            message,
            text: Some(field.text.to_string()),
            span,
        }
    }

    /// The tool's own description (empty when it has none).
    pub fn description(&self) -> &str {
        self.tool
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// The fields the model reads as prose: title, description, parameters' descriptions.
    pub fn prose(&self) -> impl Iterator<Item = &Field<'_>> {
        self.fields.iter().filter(|f| f.kind.is_prose())
    }
}

/// Audits `surfaces`, with `foreign` the tools of surfaces outside them (other catalogs):
/// every finding, sorted by server, tool, place and rule.
pub fn audit(surfaces: &[AuditSurface<'_>], foreign: &[ForeignTool]) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, s) in surfaces.iter().enumerate() {
        // The tools of the other servers audited together are foreign to this one.
        let mut others: Vec<ForeignTool> = foreign.to_vec();
        for (j, o) in surfaces.iter().enumerate() {
            if i != j {
                others.extend(names(o.tools).map(|n| ForeignTool {
                    owner: o.server.unwrap_or("another server").to_string(),
                    name: n.to_string(),
                }));
            }
        }
        audit_surface(s, &others, &mut out);
    }
    name_collision::check(surfaces, &mut out);
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    out.dedup();
    out
}

fn names(tools: &[Value]) -> impl Iterator<Item = &str> {
    tools
        .iter()
        .filter_map(|t| t.as_object()?.get("name")?.as_str())
}

/// Every per-tool rule over one surface, then the rules over the surface as a whole.
fn audit_surface(s: &AuditSurface<'_>, foreign: &[ForeignTool], out: &mut Vec<Finding>) {
    let all: Vec<&str> = names(s.tools).collect();
    let sibling_index = NameIndex::new(all.iter().copied());
    let foreign_index = NameIndex::new(
        foreign
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| !all.contains(n)),
    );
    let mut cxs = Vec::new();
    for tool in s.tools {
        let Some(map) = tool.as_object() else {
            continue;
        };
        let name = map.get("name").and_then(Value::as_str).unwrap_or("");
        let cx = ToolCx {
            tool: map,
            name,
            server: s.server,
            fields: text::fields(map),
            siblings: &all,
            sibling_index: &sibling_index,
            foreign,
            foreign_index: &foreign_index,
        };
        check_tool(&cx, out);
        cxs.push(cx);
    }
    near_duplicate::check(&cxs, out);
}

/// The rules that judge one tool by itself.
fn check_tool(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    hidden_characters::check(cx, out);
    confusable_name::check(cx, out);
    secrecy_directive::check(cx, out);
    override_directive::check(cx, out);
    system_block::check(cx, out);
    cross_tool_directive::check(cx, out);
    sensitive_path::check(cx, out);
    tool_shadowing::check(cx, out);
    preference_manipulation::check(cx, out);
    harmful_purpose::check(cx, out);
    exfiltration_target::check(cx, out);
    suspicious_parameter::check(cx, out);
    annotation_contradiction::check(cx, out);
}

/// One pattern of a rule: its expression, the severity of a match and what a match means.
pub type Pattern = (&'static regex::Regex, Severity, &'static str);

/// Reports, for each prose field of the tool, the strongest pattern that matches (the
/// first error pattern, else the first warning one), unless `skip` says the sentence
/// around the match is benign.
pub fn scan_prose(
    cx: &ToolCx<'_>,
    rule: &Rule,
    patterns: &[Pattern],
    skip: impl Fn(&str) -> bool,
    out: &mut Vec<Finding>,
) {
    for field in cx.prose() {
        if let Some(f) = strongest(cx, rule, field, patterns, &skip) {
            out.push(f);
        }
    }
}

/// The finding of the strongest pattern of `patterns` in `field`.
pub fn strongest(
    cx: &ToolCx<'_>,
    rule: &Rule,
    field: &Field<'_>,
    patterns: &[Pattern],
    skip: &impl Fn(&str) -> bool,
) -> Option<Finding> {
    let mut best: Option<(Severity, (usize, usize), &str)> = None;
    for (re, severity, what) in patterns {
        if best.is_some_and(|b| b.0 <= *severity) {
            continue;
        }
        for m in re.find_iter(field.text) {
            // The sentence without the match: a defensive word inside the match
            // ("endpoint protection") does not make the sentence defensive.
            let sentence = text::sentence_at(field.text, m.start());
            let base = sentence.as_ptr() as usize - field.text.as_ptr() as usize;
            let (a, b) = (m.start() - base, (m.end() - base).min(sentence.len()));
            let rest = format!("{} {}", &sentence[..a], &sentence[b..]);
            if !skip(&rest) {
                best = Some((*severity, (m.start(), m.end()), what));
                break;
            }
        }
    }
    best.map(|(severity, span, what)| {
        let msg = format!("{what}: \"{}\"", text::quote(field.text, span));
        cx.finding(rule, severity, field, Some(span), msg)
    })
}

/// A sentence that describes detecting or defending against something, not doing it.
pub fn defensive(sentence: &str) -> bool {
    audit_re!(
        r"(?i)\b(?:detect\w*|scan\w*|check\w*|analy[sz]\w*|identif\w*|block\w*|prevent\w*|protect\w*|classif\w*|flag\w*|monitor\w*|investigat\w*|remediat\w*|defen[cds]\w*|audit\w*|report\w*\s+(?:on|whether)|whether|is\s+(?:a|an)\s+known|against|mitigat\w*|quarantin\w*|simulat\w*|train\w*|awareness)\b"
    )
    .is_match(sentence)
}

/// Every tool of a catalog's surface as served: each distinct entry (variant) of each tool,
/// so that a text that only one profile is served is audited too.
pub fn catalog_tools(surface: &crate::Surface) -> Vec<Value> {
    let mut out = Vec::new();
    for tool in &surface.tools {
        for entry in &tool.entries {
            let v = crate::surface::served_tool_json(tool, entry);
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// Whether any finding is an error.
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

/// A `tools/list` capture's tools: `{"tools": [...]}`, a JSON-RPC response whose `result`
/// holds them, or a bare array.
pub fn tools_of(doc: &Value) -> Result<&[Value], String> {
    if let Some(a) = doc.as_array() {
        return Ok(a);
    }
    let obj = doc
        .as_object()
        .ok_or_else(|| format!("is a JSON {}, not a tools/list result", doc.type_name()))?;
    let holder = match obj.get("result") {
        Some(r) => r.as_object().ok_or("`result` is not an object")?,
        None => obj,
    };
    match holder.get("tools") {
        Some(t) => t
            .as_array()
            .ok_or_else(|| "`tools` is not an array".to_string()),
        None => Err("has no `tools` array (a tools/list result holds one)".to_string()),
    }
}
