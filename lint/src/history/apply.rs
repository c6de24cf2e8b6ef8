//! A server's [`Past`] put on its surface, the one mechanism `formerly` already feeds: each
//! former name with a current successor becomes a former name of that tool (with the
//! argument a merge sets), each lost field with a successor a former name of that field.
//! What the surface cannot say (the version, a removal) goes into [`Notes`], which the lint's
//! messages read. A rename declared in `toolgate.toml` or the catalog wins: a name or field
//! already declared is left as declared.

use std::collections::{BTreeMap, BTreeSet};

use toolgate_schema::Surface;

use super::Past;

/// What the lint says of a server's past beyond the surface's renames.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Notes {
    /// The package, for messages (`renamed to X in PKG V`).
    pub package: String,
    /// Former tool names put on the surface: old -> the version it left in.
    pub renamed: BTreeMap<String, String>,
    /// Former tool names with no current successor: old -> the version that removed it.
    pub removed: BTreeMap<String, String>,
    /// Lost fields of current tools: (tool, field) -> the version and the successor field.
    pub fields: BTreeMap<(String, String), (String, Option<String>)>,
}

impl Notes {
    /// The version `name` left in, when the history knows it.
    pub fn version_of(&self, name: &str) -> Option<&str> {
        self.renamed
            .get(name)
            .or_else(|| self.removed.get(name))
            .map(String::as_str)
    }

    /// `PKG V`, for messages.
    pub fn release(&self, version: &str) -> String {
        if self.package.is_empty() {
            version.to_string()
        } else {
            format!("{} {version}", self.package)
        }
    }
}

fn declares(surface: &Surface, tool: &str, field: &str) -> bool {
    surface.tool(tool).is_some_and(|t| {
        t.entries.iter().any(|e| {
            e.input_schema
                .as_object()
                .is_some_and(|o| o.property(field).is_some())
        })
    })
}

/// Puts `past` on `surface` and returns what only the messages need.
pub fn apply(surface: &mut Surface, past: &Past) -> Notes {
    let mut notes = Notes {
        package: past.package.clone(),
        ..Notes::default()
    };
    let declared: BTreeSet<String> = surface
        .tools
        .iter()
        .flat_map(|t| t.formerly.iter().cloned())
        .collect();
    for f in &past.formers {
        if surface.tool(&f.name).is_some() || declared.contains(&f.name) {
            continue;
        }
        let Some(tool) = f
            .successor
            .as_deref()
            .and_then(|s| surface.tools.iter_mut().find(|t| t.name == s))
        else {
            notes.removed.insert(f.name.clone(), f.version.clone());
            continue;
        };
        tool.formerly.push(f.name.clone());
        if !f.set.is_empty() {
            let set = f
                .set
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()).to_string()))
                .collect();
            tool.formerly_set.push((f.name.clone(), set));
        }
        notes.renamed.insert(f.name.clone(), f.version.clone());
    }
    for lf in &past.fields {
        if surface.tool(&lf.tool).is_none() || declares(surface, &lf.tool, &lf.field) {
            continue;
        }
        let Some(tool) = surface.tools.iter_mut().find(|t| t.name == lf.tool) else {
            continue;
        };
        let already = tool.entries.iter().any(|e| {
            e.formerly_fields
                .iter()
                .any(|(_, olds)| olds.contains(&lf.field))
        });
        if already {
            continue;
        }
        let successor = lf.successor.clone().filter(|s| {
            tool.entries.iter().any(|e| {
                e.input_schema
                    .as_object()
                    .is_some_and(|o| o.property(s).is_some())
            })
        });
        if let Some(new) = &successor {
            for e in &mut tool.entries {
                match e.formerly_fields.iter_mut().find(|(n, _)| n == new) {
                    Some((_, olds)) => olds.push(lf.field.clone()),
                    None => e
                        .formerly_fields
                        .push((new.clone(), vec![lf.field.clone()])),
                }
            }
        }
        notes.fields.insert(
            (lf.tool.clone(), lf.field.clone()),
            (lf.version.clone(), successor),
        );
    }
    notes
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::history::{Former, LostField};
    use crate::lint::{Linter, Settings};
    use crate::rules::Rule;

    /// A server whose history renamed `fetch_page` to `fetch-page`, merged `note_list` into
    /// `note(action="list")`, removed `legacy_dump`, renamed the field `maxLen` of
    /// `fetch-page` to `max_length` and dropped its `raw`: the lint, with no naming shape to
    /// go by, names each with its successor and version, and `--fix` rewrites what it can.
    #[test]
    fn the_lint_names_the_past_of_a_server() {
        let mut surface = crate::servers::tools_list_surface(
            Path::new("srv.json"),
            br#"{"tools":[{"name":"fetch-page","inputSchema":{"type":"object","properties":{"url":{"type":"string"},"max_length":{"type":"number"}}}},
            {"name":"note","inputSchema":{"type":"object","properties":{"action":{"type":"string","enum":["list"]}}}}]}"#,
        )
        .unwrap();
        let former = |name: &str, to: Option<&str>, set: &[(&str, &str)]| Former {
            name: name.into(),
            version: "2.0.0".into(),
            successor: to.map(String::from),
            set: set
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        };
        let lost = |field: &str, to: Option<&str>| LostField {
            tool: "fetch-page".into(),
            field: field.into(),
            version: "1.5.0".into(),
            successor: to.map(String::from),
        };
        let past = Past {
            package: "srv-pkg".into(),
            formers: vec![
                former("fetch_page", Some("fetch-page"), &[]),
                former("legacy_dump", None, &[]),
                former("note_list", Some("note"), &[("action", "list")]),
            ],
            fields: vec![lost("maxLen", Some("max_length")), lost("raw", None)],
        };
        let notes = apply(&mut surface, &past);
        let settings = Settings {
            server: Some("srv".into()),
            ..Settings::default()
        };
        let mut linter = Linter::new(&surface, settings);
        linter.set_past("srv", notes);
        let text = "---\nallowed-tools: [legacy_dump]\n---\n`fetch_page(url=\"x\", maxLen=3)` then `note_list()`, \
                    `fetch-page(url=\"x\", raw=true)`, `fetchPage(url=\"x\")`, \
                    `fetch-page(url=\"y\", maxLen=4)`.\n";
        let lint = linter.lint_text("SKILL.md", text, None);
        let got: Vec<(Rule, &str, &str)> = lint
            .findings
            .iter()
            .map(|f| {
                (
                    f.rule,
                    f.message.as_str(),
                    f.suggestion.as_deref().unwrap_or(""),
                )
            })
            .collect();
        let has = |rule: Rule, msg: &str, sugg: &str| {
            assert!(
                got.iter()
                    .any(|(r, m, s)| *r == rule && m.contains(msg) && *s == sugg),
                "no {rule} `{msg}` -> `{sugg}` in {got:#?}"
            );
        };
        has(
            Rule::RemovedTool,
            "`legacy_dump`: it was removed in srv-pkg 2.0.0",
            "",
        );
        has(
            Rule::RenamedTool,
            "`fetch_page`: it was renamed to `fetch-page` in srv-pkg 2.0.0",
            "fetch-page",
        );
        has(
            Rule::RenamedTool,
            "renamed to `note` (action=\"list\") in srv-pkg 2.0.0",
            "note(action=\"list\")",
        );
        has(
            Rule::UnknownField,
            "no field `raw`, so the server will not read it: it was removed in srv-pkg 1.5.0",
            "",
        );
        has(Rule::UnknownTool, "unknown tool `fetchPage`", "fetch-page");
        has(
            Rule::UnknownField,
            "`maxLen`: it was renamed to `max_length` in srv-pkg 1.5.0",
            "max_length",
        );
        let fixed = crate::fix::apply(text, &lint.findings).text;
        assert!(
            fixed.contains("`fetch-page(url=\"x\", maxLen=3)`") || fixed.contains("max_length=3"),
            "{fixed}"
        );
        assert!(fixed.contains("`note(action=\"list\")`"), "{fixed}");
        assert!(
            fixed.contains("`fetch-page(url=\"y\", max_length=4)`"),
            "{fixed}"
        );
    }
}
