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
