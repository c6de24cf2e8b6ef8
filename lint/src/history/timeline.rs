//! `toolgate history NAME`: a server's timeline as its history file records it, one entry
//! per version (its date, whether it was captured, what it changed), for people (human,
//! Markdown) and programs (JSON: the file's own record of the server).

use super::file::{ServerHistory, StepRecord, VersionRecord};

/// What a version changed, one line per kind, each line `label: items`.
fn changes(step: Option<&StepRecord>) -> Vec<(&'static str, String)> {
    let Some(s) = step else { return Vec::new() };
    let mut out = Vec::new();
    let code = |v: &[String]| {
        v.iter()
            .map(|x| format!("`{x}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !s.added.is_empty() {
        out.push(("added", code(&s.added)));
    }
    if !s.removed.is_empty() {
        out.push(("removed", code(&s.removed)));
    }
    if !s.renamed.is_empty() {
        let r: Vec<String> = s
            .renamed
            .iter()
            .map(|r| {
                let set: Vec<String> = r.set.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
                if set.is_empty() {
                    format!("`{}` -> `{}`", r.old, r.new)
                } else {
                    format!("`{}` -> `{}({})`", r.old, r.new, set.join(", "))
                }
            })
            .collect();
        out.push(("renamed", r.join(", ")));
    }
    for f in &s.fields {
        let mut parts = Vec::new();
        parts.extend(f.added.iter().map(|x| format!("+`{x}`")));
        parts.extend(f.removed.iter().map(|x| format!("-`{x}`")));
        parts.extend(f.renamed.iter().map(|(a, b)| format!("`{a}` -> `{b}`")));
        out.push(("fields", format!("`{}`: {}", f.tool, parts.join(", "))));
    }
    out
}

fn status(v: &VersionRecord) -> String {
    match (&v.error, v.skipped) {
        (Some(e), _) => format!("not captured: {e}"),
        (None, true) => "not captured (the same tools as around it)".into(),
        (None, false) if v.without.is_empty() => format!("{} tools", v.tools.len()),
        (None, false) => format!(
            "{} tools (started without {})",
            v.tools.len(),
            v.without.join(" ")
        ),
    }
}

fn step_of<'h>(h: &'h ServerHistory, version: &str) -> Option<&'h StepRecord> {
    h.changes.iter().find(|s| s.version == version)
}

/// The timeline for a terminal.
pub fn to_human(name: &str, h: &ServerHistory) -> String {
    let mut out = format!(
        "{name}: {} {} ({} versions)\n",
        h.package.registry,
        h.package.name,
        h.versions.len()
    );
    for v in &h.versions {
        let date = v
            .date
            .as_deref()
            .map(|d| d.get(..10).unwrap_or(d))
            .unwrap_or("-");
        out.push_str(&format!("  {} ({date}): {}\n", v.version, status(v)));
        for (label, items) in changes(step_of(h, &v.version)) {
            out.push_str(&format!("    {label}: {}\n", items.replace('`', "")));
        }
    }
    out
}

/// The timeline in Markdown, for a pull request or a changelog.
pub fn to_markdown(name: &str, h: &ServerHistory) -> String {
    let mut out = format!(
        "## `{name}`: {} `{}`\n\n",
        h.package.registry, h.package.name
    );
    out.push_str("| Version | Date | Served | Changes |\n|---|---|---|---|\n");
    for v in &h.versions {
        let date = v
            .date
            .as_deref()
            .map(|d| d.get(..10).unwrap_or(d))
            .unwrap_or("");
        let c: Vec<String> = changes(step_of(h, &v.version))
            .into_iter()
            .map(|(l, i)| format!("{l}: {i}"))
            .collect();
        out.push_str(&format!(
            "| {} | {date} | {} | {} |\n",
            v.version,
            status(v).replace('|', "\\|"),
            c.join("<br>").replace('|', "\\|")
        ));
    }
    out
}

/// The timeline as JSON: `{"server": NAME, ...the file's record}`.
pub fn to_json(name: &str, h: &ServerHistory) -> String {
    let mut v = serde_json::to_value(h).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.insert("server".into(), serde_json::Value::String(name.into()));
    }
    let mut text = serde_json::to_string_pretty(&v).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::super::file::{Package, RenameRecord};
    use super::*;

    #[test]
    fn every_format_names_the_renames() {
        let h = ServerHistory {
            package: Package {
                registry: "npm".into(),
                name: "srv".into(),
            },
            versions: vec![
                VersionRecord {
                    version: "1.0.0".into(),
                    date: Some("2025-01-02T00:00:00Z".into()),
                    ..VersionRecord::default()
                },
                VersionRecord {
                    version: "2.0.0".into(),
                    error: Some("exited".into()),
                    ..VersionRecord::default()
                },
            ],
            changes: vec![StepRecord {
                version: "1.0.0".into(),
                renamed: vec![RenameRecord {
                    old: "a_list".into(),
                    new: "a".into(),
                    set: [("action".to_string(), "list".to_string())].into(),
                }],
                ..StepRecord::default()
            }],
        };
        let human = to_human("s", &h);
        assert!(
            human.contains("1.0.0 (2025-01-02)")
                && human.contains("renamed: a_list -> a(action=\"list\")"),
            "{human}"
        );
        assert!(human.contains("2.0.0 (-): not captured: exited"), "{human}");
        assert!(to_markdown("s", &h).contains("| 1.0.0 | 2025-01-02 |"));
        assert!(to_json("s", &h).contains("\"server\": \"s\""));
    }
}
