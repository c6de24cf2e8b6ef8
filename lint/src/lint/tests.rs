//! Each stage of [`Linter::document`] on its own, on a small captured surface (`gh`: two
//! tools, a rename that sets a field, a removed tool) and, for profiles, the bundled tatara.

use toolgate_schema::Surface;

use super::*;
use crate::rules::Problem;
use crate::rules::Rule;
use crate::servers::{Rename, add_renames, tools_list_surface};

/// The surface: `issue_read` (`method` one of `get`/`get_comments`, `number` an integer)
/// and `list_issues` (`state` `OPEN`/`CLOSED`); `get_issue` became `issue_read` with
/// `method="get"`.
fn gh() -> Surface {
    let list = r#"{"tools": [
        {"name": "issue_read", "inputSchema": {"type": "object", "properties": {
            "method": {"type": "string", "enum": ["get", "get_comments"]},
            "number": {"type": "integer"}}}},
        {"name": "list_issues", "inputSchema": {"type": "object", "properties": {
            "state": {"type": "string", "enum": ["OPEN", "CLOSED"]}}}}
    ]}"#;
    let mut s = tools_list_surface(std::path::Path::new("gh.json"), list.as_bytes()).unwrap();
    let rename = Rename {
        old: "get_issue".into(),
        new: "issue_read".into(),
        set: vec![("method".into(), "\"get\"".into())],
    };
    add_renames(&mut s, &[rename]).unwrap();
    s
}

fn settings() -> Settings {
    Settings {
        server: Some("gh".into()),
        removed: vec!["enable_toolset".into()],
        ..Settings::default()
    }
}

/// The rules and texts of a document's problems, in the order the stages found them.
fn problems<'t>(doc: &Document<'t>) -> Vec<(Rule, &'t str)> {
    doc.problems
        .iter()
        .map(|(p, _): &(Problem, _)| (p.rule, p.span.of(doc.text)))
        .collect()
}

#[test]
fn front_matter_stage_finds_the_body_and_warns_on_lenient_yaml() {
    let s = gh();
    let l = Linter::new(&s, settings());
    let text = "---\nname: x\ndescription: a: b\n---\nbody\n";
    let doc = l.read_front_matter("SKILL.md", text, None);
    assert_eq!(&text[doc.body_start..], "body\n");
    assert_eq!(doc.lint.warnings.len(), 1, "{:?}", doc.lint.warnings);
    assert!(doc.lint.warnings[0].starts_with("SKILL.md:3:"));
    // A settings file has no front matter: its body is the whole text.
    let doc = l.read_front_matter(".claude/settings.json", "{}", None);
    assert!(doc.settings_file && doc.front.is_none() && doc.body_start == 0);
}

#[test]
fn front_matter_stage_reads_profiles_and_reports_an_unknown_one() {
    let catalog = toolgate_generated::load_bundled("tatara")
        .and_then(Result::ok)
        .expect("the bundled tatara catalog");
    let s = Surface::from_catalog(&catalog);
    let l = Linter::new(&s, Settings::default());
    let text = "---\nprofiles: [\"refine\", \"clarfy\"]\n---\n";
    let doc = l.read_front_matter("SKILL.md", text, None);
    assert_eq!(doc.skill.names, ["refine"]);
    assert_eq!(problems(&doc), [(Rule::UnknownProfile, "\"clarfy\"")]);
    // From the configuration: no place in the file, and the message says where it came from.
    let mapped = ["nope".to_string()];
    let doc = l.read_front_matter("SKILL.md", "body\n", Some(&mapped));
    assert!(doc.skill.all);
    assert!(
        doc.problems[0]
            .0
            .message
            .ends_with("(the profile comes from toolgate.toml)")
    );
}

#[test]
fn calls_stage_finds_every_form_once() {
    let s = gh();
    let l = Linter::new(&s, settings());
    let text = "Call `issue_read(method=\"get\")`.\n\n```js\nlist_issues { state: \"OPEN\" }\n```\n\n```yaml\nissue_read  method: get_comments\n```\n\n```json\n{\"name\": \"list_issues\", \"arguments\": {\"state\": \"CLOSED\"}}\n```\n";
    let mut doc = l.read_front_matter("SKILL.md", text, None);
    let calls = l.find_calls(&mut doc);
    let forms: Vec<(&str, Form)> = calls
        .iter()
        .map(|(_, c, _)| (c.name.of(text), c.form))
        .collect();
    assert!(matches!(
        forms.as_slice(),
        [
            ("issue_read", Form::Paren),
            ("list_issues", Form::Object { .. }),
            ("issue_read", Form::Yaml),
            ("list_issues", Form::Json { .. }),
        ]
    ));
    l.check_calls(&mut doc, calls);
    assert_eq!(doc.lint.calls, 4);
    assert!(doc.problems.is_empty());
    assert_eq!(doc.used.len(), 4);
}

#[test]
fn calls_stage_checks_values_completes_rename_fixes_and_obeys_negation() {
    let s = gh();
    let l = Linter::new(&s, settings());
    let text = "`list_issues(state=\"open\")`\n\nDo NOT call `list_issues(state=\"shut\")`.\n\n`get_issue(number=3)`\n";
    let mut doc = l.read_front_matter("SKILL.md", text, None);
    let calls = l.find_calls(&mut doc);
    l.check_calls(&mut doc, calls);
    assert_eq!(
        problems(&doc),
        [
            (Rule::InvalidValue, "\"open\""),
            (Rule::RenamedTool, "get_issue")
        ]
    );
    let fix = doc.problems[1].0.fix.as_ref().unwrap();
    assert_eq!(fix.replacement, "issue_read(method=\"get\", ");
    assert_eq!(fix.span.of(text), "get_issue(");
}

#[test]
fn references_stage_reports_stale_names_and_notes_current_ones() {
    let s = gh();
    let l = Linter::new(&s, settings());
    let text = "Use mcp__gh__issue_read, then mcp__gh__get_issue, never enable_toolset; mcp__gh__TOOL is a placeholder and mcp__other__x another server's.\n";
    let mut doc = l.read_front_matter("CLAUDE.md", text, None);
    l.check_references(&mut doc);
    assert_eq!(
        problems(&doc),
        [
            (Rule::RenamedTool, "get_issue"),
            (Rule::RemovedTool, "enable_toolset")
        ]
    );
    assert_eq!(doc.mentions.len(), 1);
    assert_eq!(doc.mentions[0].of(text), "mcp__gh__issue_read");
    assert!(doc.regions.is_some(), "contexts come from the regions");
}

#[test]
fn tags_stage_checks_unprefixed_names_but_not_a_hosts() {
    let s = gh();
    let l = Linter::new(&s, settings());
    let text = "<tool>issue_read</tool> <tool>WebSearch</tool> <tool>issue_raed</tool>\n";
    let mut doc = l.read_front_matter("SKILL.md", text, None);
    l.check_tags(&mut doc);
    assert_eq!(problems(&doc), [(Rule::UnknownTool, "issue_raed")]);
    assert_eq!(doc.used.len(), 1);
}

#[test]
fn parameters_stage_checks_what_is_written_beside_a_name() {
    let s = gh();
    let l = Linter::new(&s, settings());
    let text = "Use `issue_read` with:\n- method: fetch\n- number: 2\n";
    let mut doc = l.read_front_matter("SKILL.md", text, None);
    l.check_parameters(&mut doc);
    assert_eq!(problems(&doc), [(Rule::InvalidValue, "fetch")]);
    assert_eq!(doc.lint.calls, 1);
    // No mention, no tag, no region scanned and no code span naming a tool: nothing read.
    let mut doc = l.read_front_matter("SKILL.md", "Plain prose.\n", None);
    l.check_parameters(&mut doc);
    assert!(doc.regions.is_none() && doc.problems.is_empty());
}

#[test]
fn tools_allowed_stage_holds_an_agent_to_its_list() {
    let s = gh();
    let l = Linter::new(&s, settings());
    let text = "---\ntools: [mcp__gh__list_issues]\n---\nUse mcp__gh__issue_read and mcp__gh__list_issues.\n";
    for (path, expected) in [(".claude/agents/a.md", 1), (".claude/skills/a/SKILL.md", 0)] {
        let mut doc = l.read_front_matter(path, text, None);
        l.check_references(&mut doc);
        l.check_tools_allowed(&mut doc);
        let not_allowed: Vec<_> = problems(&doc)
            .into_iter()
            .filter(|(r, _)| *r == Rule::ToolNotAllowed)
            .collect();
        assert_eq!(not_allowed.len(), expected, "{path}");
        if expected == 1 {
            assert_eq!(not_allowed[0].1, "mcp__gh__issue_read");
        }
    }
}

#[test]
fn front_matter_calls_stage_places_problems_in_the_raw_text() {
    let s = gh();
    let l = Linter::new(&s, settings());
    let text = "---\ndescription: >-\n  Runs\n  list_issues(state='done')\n---\n";
    let mut doc = l.read_front_matter("SKILL.md", text, None);
    l.check_front_matter_calls(&mut doc);
    assert_eq!(doc.lint.calls, 1);
    // The decoded value is one line; the span is where the value is written, a line down.
    assert_eq!(problems(&doc), [(Rule::InvalidValue, "'done'")]);
    let at = doc.problems[0].0.span.start;
    assert_eq!(text[..at].matches('\n').count(), 3);
}

#[test]
fn findings_stage_applies_severities_and_markers_then_sorts() {
    let s = gh();
    let mut quiet = settings();
    quiet.severities = vec![(Rule::UnknownField, None)];
    let l = Linter::new(&s, quiet);
    let text = "`list_issues(state=\"x\", colour=1)`\n<!-- toolgate: allow invalid-value -->\n`list_issues(state=\"y\")`\n`issue_read(number=\"z\")`\n";
    let doc = l.document("SKILL.md", text, None);
    let found: Vec<(Rule, usize)> = doc
        .findings()
        .iter()
        .map(|f| (f.rule, f.start.line))
        .collect();
    assert_eq!(found, [(Rule::InvalidValue, 1), (Rule::WrongType, 4)]);
}

#[test]
fn document_gives_the_tool_at_a_position() {
    let s = gh();
    let l = Linter::new(&s, settings());
    let text = "Run `mcp__gh__issue_read(method=\"get\")` and see mcp__gh__list_issues.\n";
    let doc = l.document("SKILL.md", text, None);
    let at = text.find("issue_read").unwrap() + 2;
    let r = doc.tool_at(at).unwrap();
    assert_eq!(r.name.of(text), "issue_read");
    assert_eq!(r.written.of(text), "mcp__gh__issue_read");
    assert_eq!(l.server_name(r.server), Some("gh"));
    let r = doc.tool_at(text.len() - 3).unwrap();
    assert_eq!(r.name.of(text), "list_issues");
    assert!(doc.tool_at(0).is_none());
    assert_eq!(doc.tool_refs().count(), 2);
    // The pipeline is what lint_text returns.
    let lint = l.lint_text("SKILL.md", text, None);
    assert_eq!(lint.calls, doc.into_lint().calls);
}

/// A surface whose schemas leave `additionalProperties` unsaid, as most servers' do:
/// `search_items` (`query` required, `perPage`), `merge_change` (`owner`, `repo`,
/// `changeNumber` required), `open_ticket` with an open `meta` object.
fn open_schemas() -> Surface {
    let list = r#"{"tools": [
        {"name": "search_items", "inputSchema": {"type": "object", "required": ["query"],
            "properties": {"query": {"type": "string"}, "perPage": {"type": "integer"},
                "filters": {"type": "array", "items": {"type": "object", "properties": {
                    "field_name": {"type": "string"}, "value": {"type": "string"}}}}}}},
        {"name": "merge_change", "inputSchema": {"type": "object",
            "required": ["owner", "repo", "changeNumber"],
            "properties": {"owner": {"type": "string"}, "repo": {"type": "string"},
                "changeNumber": {"type": "integer"}, "style": {"type": "string"}}}},
        {"name": "open_ticket", "inputSchema": {"type": "object", "properties": {
            "title": {"type": "string"},
            "meta": {"type": "object", "additionalProperties": true}},
            "additionalProperties": true}}
    ]}"#;
    tools_list_surface(std::path::Path::new("open.json"), list.as_bytes()).unwrap()
}

fn field_findings(l: &Linter<'_>, text: &str) -> Vec<(Rule, String, Option<String>)> {
    l.lint_text("SKILL.md", text, None)
        .findings
        .into_iter()
        .map(|f| (f.rule, f.field.unwrap_or_default(), f.suggestion))
        .collect()
}

#[test]
fn undeclared_fields_are_reported_in_every_call_style() {
    let s = open_schemas();
    let l = Linter::new(&s, Settings::default());
    let unknown =
        |field: &str, s: &str| (Rule::UnknownField, field.to_string(), Some(s.to_string()));
    // `field=value`, `field: value`, one object argument, signature style.
    assert_eq!(
        field_findings(&l, "`search_items(q=\"bug\", per_page=5)`\n"),
        [unknown("q", "query"), unknown("per_page", "perPage")]
    );
    assert_eq!(
        field_findings(&l, "`search_items(query: \"bug\", per_page: 5)`\n"),
        [unknown("per_page", "perPage")]
    );
    assert_eq!(
        field_findings(&l, "`search_items({ query: \"bug\", pp: 5 })`\n"),
        [unknown("pp", "perPage")]
    );
    assert_eq!(
        field_findings(&l, "`search_items(query, per_page)`\n"),
        [unknown("per_page", "perPage")]
    );
    // Bare words none of which is a field may be variables: not read as fields.
    assert!(field_findings(&l, "`search_items(a, b)`\n").is_empty());
    // `additionalProperties: true` keeps any field quiet.
    assert!(field_findings(&l, "`open_ticket(title=\"x\", labels=[\"bug\"])`\n").is_empty());
    // Keys inside list items and nested objects, at any depth.
    let text = "`search_items(query=\"x\", filters=[{\"field_name\": \"P\", \"ref\": \"y\"}])`\n";
    let lint = l.lint_text("SKILL.md", text, None);
    assert_eq!(lint.findings.len(), 1, "{:?}", lint.findings);
    let f = &lint.findings[0];
    assert_eq!(f.rule, Rule::UnknownField);
    assert_eq!(f.field.as_deref(), Some("ref"));
    assert_eq!(f.span.of(text), "ref");
    assert!(f.message.contains("`filters[].ref`"), "{}", f.message);
    assert!(field_findings(&l, "`open_ticket({ meta: { any: 1 }, title: \"t\" })`\n").is_empty());
    // The message says the server will not read the field.
    let lint = l.lint_text("SKILL.md", "`search_items(q=\"bug\")`\n", None);
    assert!(
        lint.findings[0]
            .message
            .contains("the server will not read it"),
        "{}",
        lint.findings[0].message
    );
    assert_eq!(lint.findings[0].tool.as_deref(), Some("search_items"));
}

#[test]
fn missing_required_only_for_complete_calls() {
    let s = open_schemas();
    // Off by default: nothing.
    let off = Linter::new(&s, Settings::default());
    let text = "`merge_change(owner=\"a\", repo=\"b\")`\n";
    assert!(off.lint_text("SKILL.md", text, None).findings.is_empty());
    let on = Settings {
        severities: vec![(Rule::MissingRequired, Some(crate::Severity::Error))],
        ..Settings::default()
    };
    let l = Linter::new(&s, on);
    let rules = |text: &str| -> Vec<Rule> {
        l.lint_text("SKILL.md", text, None)
            .findings
            .iter()
            .map(|f| f.rule)
            .collect()
    };
    assert_eq!(
        rules("`merge_change(owner=\"a\", repo=\"b\", style=\"squash\")`\n"),
        [Rule::MissingRequired]
    );
    let lint = l.lint_text(
        "SKILL.md",
        "`merge_change(owner=\"a\", repo=\"b\")`\n",
        None,
    );
    assert!(lint.findings[0].message.contains("`changeNumber`"));
    // Abridged or placeholder calls, and calls that set nothing, are left alone.
    for quiet in [
        "`merge_change(owner=\"a\", ...)`\n",
        "`merge_change(owner=\"a\", repo=\"<repo>\")`\n",
        "`merge_change(owner=\"a\", repo=\"b\", changeNumber=3)`\n",
        "`merge_change()`\n",
        "`merge_change(owner, repo)`\n",
    ] {
        assert!(rules(quiet).is_empty(), "{quiet}");
    }
}

#[test]
fn declared_field_renames_say_the_new_name_and_fix_it() {
    let mut s = open_schemas();
    crate::servers::add_field_renames(
        &mut s,
        &[crate::servers::FieldRenames {
            tool: "search_items".into(),
            fields: vec![("perPage".into(), vec!["limit".into()])],
        }],
    )
    .unwrap();
    let l = Linter::new(&s, Settings::default());
    let text = "`search_items(query=\"x\", limit=5)`\n";
    let lint = l.lint_text("SKILL.md", text, None);
    assert_eq!(lint.findings.len(), 1, "{:?}", lint.findings);
    assert!(lint.findings[0].message.contains("renamed to `perPage`"));
    let fixed = crate::fix::apply(text, &lint.findings);
    assert_eq!(fixed.text, "`search_items(query=\"x\", perPage=5)`\n");
    // In a `+params` form too: the list item's key is rewritten in place.
    let text = "Use `search_items` with:\n- query: bugs\n- limit: 5\n";
    let lint = l.lint_text("SKILL.md", text, None);
    assert_eq!(lint.findings.len(), 1, "{:?}", lint.findings);
    let fixed = crate::fix::apply(text, &lint.findings);
    assert_eq!(
        fixed.text,
        "Use `search_items` with:\n- query: bugs\n- perPage: 5\n"
    );
    // A rename to a field the tool does not have is refused.
    let e = crate::servers::add_field_renames(
        &mut s,
        &[crate::servers::FieldRenames {
            tool: "search_items".into(),
            fields: vec![("nope".into(), vec!["x".into()])],
        }],
    )
    .unwrap_err();
    assert!(e.contains("no field `nope`"), "{e}");
}

#[test]
fn host_lists_stage_reads_names_as_the_host_does() {
    let list = r#"{"tools": [
        {"name": "files.read", "inputSchema": {"type": "object"}},
        {"name": "issue_read", "inputSchema": {"type": "object"}}
    ]}"#;
    let s = tools_list_surface(std::path::Path::new("gh.json"), list.as_bytes()).unwrap();
    let l = Linter::new(&s, settings());
    // opencode spells `files.read` `gh_files_read`; a pattern matches that spelling too.
    let text = r#"{"mcp": {"gh": {"type": "local", "command": ["x"]}},
        "tools": {"gh_files_read": false, "gh_files_*": false, "gh_files.read": true, "gh_nope": true}}"#;
    let mut doc = l.read_front_matter("opencode.json", text, None);
    l.check_host_lists(&mut doc);
    assert_eq!(
        problems(&doc),
        [
            (Rule::UnknownTool, "gh_files.read"),
            (Rule::UnknownTool, "gh_nope")
        ]
    );
    // An escape is read as its character: `issue\u005fread` is `issue_read`; a stale name
    // written with one is reported, with no rewrite offered for its bytes.
    let text = r#"{"mcpServers": {"gh": {"command": "x",
        "includeTools": ["issue\u005fread", "\u0066iles.read(x)", "get\u005fissue"]}}}"#;
    let mut doc = l.read_front_matter(".gemini/settings.json", text, None);
    l.check_host_lists(&mut doc);
    assert_eq!(problems(&doc), [(Rule::UnknownTool, "get\\u005fissue")]);
    assert_eq!(doc.problems[0].0.tool.as_deref(), Some("get\\u005fissue"));
    // Roo Code's `alwaysAllow: ["*"]` is every tool; a `*` in `disabledTools` is a name.
    let text =
        r#"{"mcpServers": {"gh": {"command": "x", "alwaysAllow": ["*"], "disabledTools": ["*"]}}}"#;
    let mut doc = l.read_front_matter(".roo/mcp.json", text, None);
    l.check_host_lists(&mut doc);
    assert_eq!(problems(&doc), [(Rule::UnknownTool, "*")]);
}

#[test]
fn claude_permission_rules_for_a_whole_server_are_never_findings() {
    let s = gh();
    let l = Linter::new(&s, settings());
    // Claude Code's three MCP rule shapes: the server (`mcp__gh`), every tool of it
    // (`mcp__gh__*`) and one tool; a pattern after the prefix matches tool names.
    let text = r#"{"permissions": {"allow": ["mcp__gh", "mcp__gh__*", "mcp__gh__issue_*", "mcp__gh__list_issues"], "deny": ["mcp__gh__nope_*", "mcp__gh__nope"]}}"#;
    let mut doc = l.read_front_matter(".claude/settings.json", text, None);
    l.check_host_lists(&mut doc);
    l.check_references(&mut doc);
    assert_eq!(
        problems(&doc),
        [(Rule::UnknownTool, "nope_*"), (Rule::UnknownTool, "nope")]
    );
}
