//! Surface history: what a server served in each of its published versions, what left in
//! which version, and what took its place.
//!
//! [`infer`] compares each captured version with the one before (renames inferred
//! conservatively), [`past`] folds those steps into what the lint needs of today's surface
//! (every former tool name with its current successor or the version that removed it, every
//! field a current tool lost), and [`file`] is `toolgate.history.json`, where `toolgate lock
//! --history` keeps it beside `toolgate.lock`. Renames declared with `formerly` win over
//! inferred ones where the lint applies them ([`apply`]).

pub mod apply;
pub mod bisect;
pub mod file;
pub mod infer;
pub mod launch;
pub mod timeline;
pub mod words;

use std::collections::{BTreeMap, BTreeSet};

pub use infer::{FieldChanges, Step, ToolRename, Version, infer};

/// A tool name the server had and no longer has.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Former {
    /// The old name.
    pub name: String,
    /// The version it left in.
    pub version: String,
    /// The current tool that took its place, when one did (through every later rename).
    pub successor: Option<String>,
    /// The fields a call by the successor sets to mean the old tool (a merge).
    pub set: Vec<(String, String)>,
}

/// A field a current tool had and lost.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LostField {
    /// The tool, by its current name.
    pub tool: String,
    /// The old field name.
    pub field: String,
    /// The version it left in.
    pub version: String,
    /// The field that took its place, when one did.
    pub successor: Option<String>,
}

/// What the lint knows of a server's past.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Past {
    /// The package the versions are of (`@scope/name`, `name`), for messages.
    pub package: String,
    /// Former tool names, sorted.
    pub formers: Vec<Former>,
    /// Lost fields of current tools, sorted.
    pub fields: Vec<LostField>,
}

#[derive(Clone, Debug)]
enum Fate {
    Renamed {
        to: String,
        version: String,
        set: Vec<(String, String)>,
    },
    Removed {
        version: String,
    },
}

/// Folds `steps` (oldest first) into the former names and lost fields of a server whose
/// tools today are `current`. A name that came back is current; a chain of renames ends at
/// the current tool, or at the version that removed its last name.
pub fn past(package: &str, steps: &[Step], current: &[&str]) -> Past {
    let current: BTreeSet<&str> = current.iter().copied().collect();
    let mut fate: BTreeMap<String, Fate> = BTreeMap::new();
    let mut lost = LostFields::default();
    for s in steps {
        for a in s.added.iter().chain(s.renamed.iter().map(|r| &r.new)) {
            fate.remove(a);
        }
        for r in &s.renamed {
            let set = r.set.iter().cloned().collect();
            let to = r.new.clone();
            let version = s.version.clone();
            fate.insert(r.old.clone(), Fate::Renamed { to, version, set });
            if r.set.is_none() {
                lost.rename_tool(&r.old, &r.new);
            }
        }
        for r in &s.removed {
            fate.insert(
                r.clone(),
                Fate::Removed {
                    version: s.version.clone(),
                },
            );
            lost.drop_tool(r);
        }
        for f in &s.fields {
            lost.apply(f, &s.version);
        }
    }
    let mut formers: Vec<Former> = fate
        .keys()
        .filter(|n| !current.contains(n.as_str()))
        .map(|n| resolve(n, &fate, &current))
        .collect();
    formers.sort();
    let mut fields: Vec<LostField> = lost
        .0
        .into_iter()
        .filter(|((t, _), _)| current.contains(t.as_str()))
        .map(|((tool, field), (version, successor))| LostField {
            tool,
            field,
            version,
            successor,
        })
        .collect();
    fields.sort();
    Past {
        package: package.to_string(),
        formers,
        fields,
    }
}

/// Where the former name `name` ended: the current tool its renames lead to, or removed.
fn resolve(name: &str, fate: &BTreeMap<String, Fate>, current: &BTreeSet<&str>) -> Former {
    let first_version = match &fate[name] {
        Fate::Renamed { version, .. } | Fate::Removed { version } => version.clone(),
    };
    let mut at = name;
    let mut set: Vec<(String, String)> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut removed_in = first_version.clone();
    while seen.insert(at) {
        match fate.get(at) {
            Some(Fate::Renamed {
                to,
                set: s,
                version,
            }) => {
                for (k, v) in s {
                    if !set.iter().any(|(h, _)| h == k) {
                        set.push((k.clone(), v.clone()));
                    }
                }
                removed_in = version.clone();
                at = to;
                if current.contains(at) {
                    return Former {
                        name: name.to_string(),
                        version: first_version,
                        successor: Some(at.to_string()),
                        set,
                    };
                }
            }
            Some(Fate::Removed { version }) => {
                removed_in = version.clone();
                break;
            }
            None => break,
        }
    }
    // The chain ends at a name neither current nor renamed further: gone, as of the version
    // that removed it (or, when it just stopped being seen, the first departure).
    Former {
        name: name.to_string(),
        version: if at == name {
            first_version
        } else {
            removed_in
        },
        successor: None,
        set: Vec::new(),
    }
}

/// Lost fields by (tool as named now, field): the version they left in and their successor.
#[derive(Default)]
struct LostFields(BTreeMap<(String, String), (String, Option<String>)>);

impl LostFields {
    fn rename_tool(&mut self, old: &str, new: &str) {
        let keys: Vec<(String, String)> =
            self.0.keys().filter(|(t, _)| t == old).cloned().collect();
        for k in keys {
            if let Some(v) = self.0.remove(&k) {
                self.0.insert((new.to_string(), k.1), v);
            }
        }
    }

    fn drop_tool(&mut self, tool: &str) {
        self.0.retain(|(t, _), _| t != tool);
    }

    fn apply(&mut self, f: &FieldChanges, version: &str) {
        for a in &f.added {
            self.0.remove(&(f.tool.clone(), a.clone()));
        }
        for (old, new) in &f.renamed {
            self.0.remove(&(f.tool.clone(), new.clone()));
            for ((t, _), (_, succ)) in self.0.iter_mut() {
                if *t == f.tool && succ.as_deref() == Some(old) {
                    *succ = Some(new.clone());
                }
            }
            self.0.insert(
                (f.tool.clone(), old.clone()),
                (version.to_string(), Some(new.clone())),
            );
        }
        for r in &f.removed {
            for ((t, _), (_, succ)) in self.0.iter_mut() {
                if *t == f.tool && succ.as_deref() == Some(r) {
                    *succ = None;
                }
            }
            self.0
                .insert((f.tool.clone(), r.clone()), (version.to_string(), None));
        }
    }
}

#[cfg(test)]
mod tests;
