//! The calls stages: every call form found in a document's body (`name(...)`, object-style
//! `name { ... }`, YAML-style lines in code blocks, JSON `{"name", "arguments"}` blocks),
//! then each call checked against its server's surface once, a rename's fix completed with
//! the fields the rename sets.

use crate::args::{ArgKind, Args, Outcome, ParseOptions, ValueKind, parse_args, parse_object};
use crate::check::NameKind;
use crate::forms;
use crate::negation;
use crate::rules::Problem;
use crate::rules::Rule;
use crate::scan::{self, Context, Region, region_of};
use crate::text::Span;

use super::{Document, Form, FoundCall, HOST_TOOLS, KEYWORDS, Linter, Resolved};

/// A call found in a document: its server, the call, and where its name as written (prefix
/// included) starts.
pub(super) type Located = (usize, FoundCall, usize);

impl Linter<'_> {
    /// Stage 2a: every call in the body, in the order the forms are searched (`name(`,
    /// `name {`, YAML-style, JSON). The regions are scanned only when some form may be there.
    pub(super) fn find_calls(&self, doc: &mut Document<'_>) -> Vec<Located> {
        let text = doc.text;
        let body = doc.body();
        let (cands, object_cands) = if doc.settings_file {
            (Vec::new(), Vec::new())
        } else {
            (
                scan::candidates(text, body, |name, open| self.may_be_call(text, name, open)),
                scan::candidates_before(text, body, b'{', |name, _| self.is_object_call_name(name)),
            )
        };
        // YAML-style calls live in code blocks: a file with no other candidate is structured
        // only when it has a fence.
        let fenced = !doc.settings_file
            && cands.is_empty()
            && object_cands.is_empty()
            && (memchr::memmem::find(text.as_bytes(), b"```").is_some()
                || memchr::memmem::find(text.as_bytes(), b"~~~").is_some());
        let mut calls: Vec<Located> = Vec::new();
        if !cands.is_empty() || !object_cands.is_empty() || fenced {
            let regions = doc.regions();
            self.paren_calls(text, regions, cands, &mut calls);
            for c in object_cands {
                if let Some(found) = self.object_call_at(text, c, regions) {
                    calls.push(found);
                }
            }
            self.yaml_calls(text, regions, &mut calls);
        }
        if !doc.settings_file && doc.marks.arguments {
            self.json_calls(text, body, &mut calls);
        }
        calls
    }

    /// Whether the pre-filter keeps `name` before the `(` at `open`: a tool or former name
    /// of its server, or an unknown one followed by a `field=` pair (behind a generic prefix
    /// only then; behind a specific prefix always).
    fn may_be_call(&self, text: &str, name: &str, open: usize) -> bool {
        match self.resolve(name) {
            Some(Resolved::Foreign) => false,
            Some(Resolved::Server(si, len, generic)) => match name.get(len..) {
                Some(rest) if !rest.is_empty() => match self.servers[si].checker.lookup(rest) {
                    NameKind::Known | NameKind::Former(_) => true,
                    NameKind::Unknown => !generic || scan::pair_follows(text, open),
                },
                _ => false,
            },
            None => match self.unprefixed_owner(name) {
                None => false,
                Some(si) => match self.servers[si].checker.lookup(name) {
                    NameKind::Known | NameKind::Former(_) => true,
                    NameKind::Unknown => si == 0 && scan::pair_follows(text, open),
                },
            },
        }
    }

    /// The `name(...)` calls among the candidates, each inside one region.
    fn paren_calls(
        &self,
        text: &str,
        regions: &[Region],
        cands: Vec<scan::Candidate>,
        calls: &mut Vec<Located>,
    ) {
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
    }

    /// The YAML-style calls of the code blocks that may hold one.
    fn yaml_calls(&self, text: &str, regions: &[Region], calls: &mut Vec<Located>) {
        for region in regions {
            if !region.context.is_block_code() || !self.may_hold_yaml_calls(text, region.span) {
                continue;
            }
            for y in forms::yaml_calls(text, region.span, |name| self.is_yaml_call_name(name)) {
                let Some((si, tool_name, _)) = self.call_target(text, y.name) else {
                    continue;
                };
                let call = FoundCall {
                    name: tool_name,
                    args: y.args,
                    form: Form::Yaml,
                };
                calls.push((si, call, y.name.start));
            }
        }
    }

    /// The JSON calls (`{"name": ..., "arguments": {...}}`) of `body`.
    fn json_calls(&self, text: &str, body: Span, calls: &mut Vec<Located>) {
        for j in forms::json_calls(text, body) {
            let Some((si, tool_name, _)) = self.call_target(text, j.name) else {
                continue;
            };
            let call = FoundCall {
                name: tool_name,
                args: j.args,
                form: Form::Json { brace: j.args_open },
            };
            calls.push((si, call, j.name.start));
        }
    }

    /// Stage 2b: each call checked once (the first form to find a name wins), counted, its
    /// current tool noted as used, a rename's fix completed, a negated line's problems left
    /// out.
    pub(super) fn check_calls(&self, doc: &mut Document<'_>, calls: Vec<Located>) {
        let text = doc.text;
        for (si, call, written) in calls {
            if doc.called.contains(&call.name.start) {
                continue;
            }
            doc.lint.calls += 1;
            doc.called.push(call.name.start);
            let checker = &self.servers[si].checker;
            if checker.lookup(call.name.of(text)) == NameKind::Known {
                doc.used
                    .push((si, call.name, Span::new(written, call.name.end)));
            }
            let mut found = checker.check_call(text, call.name, &call.args, &doc.skill);
            if self.settings.severity(Rule::MissingRequired).is_some()
                && is_full_call(text, &call)
                && let Some(p) = checker.missing_required(text, call.name, &call.args, &doc.skill)
            {
                found.push(p);
            }
            if found.is_empty() {
                continue;
            }
            self.extend_rename_fixes(si, text, &call, &mut found);
            let call_span = Span::new(
                call.name.start,
                call.args.close.map_or(call.name.end, |c| c + 1),
            );
            self.push_unless_negated(text, call.name.start, found, call_span, &mut doc.problems);
        }
    }

    /// Adds the problems `found` of the call spanning `call_span`, whose name starts at
    /// `at`, except those a negation earlier on its line ("do NOT call") takes away.
    pub(super) fn push_unless_negated(
        &self,
        text: &str,
        at: usize,
        found: Vec<Problem>,
        call_span: Span,
        problems: &mut Vec<(Problem, Span)>,
    ) {
        let line_start = memchr::memrchr(b'\n', &text.as_bytes()[..at]).map_or(0, |i| i + 1);
        let negated = negation::forbids(&text[line_start..at], &self.settings.negation_words);
        for p in found {
            if negated && p.rule.negation_applies() {
                continue;
            }
            problems.push((p, call_span));
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
        if !may_call_here(kind, name, &c, context, prefixed) {
            return None;
        }
        let (args, form) = parse_call_args(text, c.open, bound, context);
        holds_as_call(kind, prefixed, &args).then_some(FoundCall {
            name: c.name,
            args,
            form,
        })
    }

    /// The object-style call `name { ... }` of a candidate found before `{`, when it is one:
    /// in code (or behind a specific prefix), not a method or a definition, the object closed
    /// and, for a name the server does not know, made of pairs only.
    fn object_call_at(
        &self,
        text: &str,
        c: scan::Candidate,
        regions: &[Region],
    ) -> Option<Located> {
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
        let call = FoundCall {
            name: tool_name,
            args,
            form: Form::Object { brace: c.open },
        };
        Some((si, call, c.name.start))
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
        let set = self.servers[server].checker.former_set(call.name.of(text));
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
        let Some((at, inserted)) = rename_insertion(text, call, &missing) else {
            return;
        };
        if at < call.name.end || at > text.len() {
            return;
        }
        for p in found.iter_mut() {
            if p.rule != Rule::RenamedTool {
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
}

/// Whether a name of kind `kind` may be a call in `context`: a current tool anywhere, others
/// in code or behind a specific prefix; an unknown name only written tight against its `(`
/// (prose inside a code block, "clears as Done (flag=true)", is not a call), and never a
/// keyword, a method, a definition or a host's own tool.
fn may_call_here(
    kind: NameKind<'_>,
    name: &str,
    c: &scan::Candidate,
    context: Context,
    prefixed: bool,
) -> bool {
    if kind != NameKind::Known && !context.is_code() && !prefixed {
        return false;
    }
    !(kind == NameKind::Unknown
        && (c.qualified
            || c.after_keyword
            || c.spaced
            || KEYWORDS.contains(&name)
            || (!prefixed && HOST_TOOLS.contains(&name))))
}

/// The arguments of the call whose `(` is at `open`, read up to `bound` as `context` allows,
/// and the call's form: `name({"field": "v"})` makes the object's members the call's pairs.
fn parse_call_args(text: &str, open: usize, bound: usize, context: Context) -> (Args, Form) {
    let opts = ParseOptions {
        table: context.in_table(),
        comments: context.is_block_code(),
        ..ParseOptions::default()
    };
    let mut args = parse_args(text, open, bound, opts);
    let mut form = Form::Paren;
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
    (args, form)
}

/// Whether a call is written in full call syntax: `name(...)`, or `name({ ... })` with the
/// object inside parentheses (not the object-style `name { ... }`, YAML or JSON forms).
fn is_full_call(text: &str, call: &FoundCall) -> bool {
    match call.form {
        Form::Paren => true,
        Form::Object { brace } => text
            .get(call.name.end..brace)
            .is_some_and(|between| between.trim_end().ends_with('(')),
        _ => false,
    }
}

/// Whether parsed arguments make a call of a name of kind `kind`: always for a current
/// tool; closed, of pairs and bare words, for a former name; closed behind a specific
/// prefix; otherwise closed and made of literal pairs only.
fn holds_as_call(kind: NameKind<'_>, prefixed: bool, args: &Args) -> bool {
    match kind {
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
    }
}

/// Where the `missing` fields a rename sets go in `call`, and how they are written there:
/// after `(` as `f=v`, at the start of an object (quoted when its keys are), after a
/// YAML-style name as `f: v`. `None` when a call has no `(` after its name.
fn rename_insertion(
    text: &str,
    call: &FoundCall,
    missing: &[&(String, String)],
) -> Option<(usize, String)> {
    let empty = call.args.items.is_empty();
    let bytes = text.as_bytes();
    Some(match call.form {
        Form::Paren => {
            let open = text[call.name.end..].find('(').map(|i| call.name.end + i)?;
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
            let fields: Vec<String> = missing.iter().map(|(f, v)| format!("{f}: {v}")).collect();
            (call.name.end, format!(" {}", fields.join(" ")))
        }
    })
}

/// Whether a value is a literal (or a placeholder, or alternatives of literals): what makes
/// an unknown name with pairs a call rather than code.
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
