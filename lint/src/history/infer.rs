//! What changed from one published version of a server to the next, renames inferred
//! conservatively from the tools it served.
//!
//! A tool that leaves in a version while another arrives in the same version is taken for
//! its successor only when the evidence agrees ([`agrees`]: the words of the names, the
//! description, the fields with their types), and only when each is the other's one best
//! match: two candidates as good as each other make the tool removed, never a guess. A field
//! of a tool is paired with a new one likewise. Several tools that leave into one tool whose
//! enum argument takes their names (`x_list`, `x_new` -> `x(action=list|new)`) are renamed
//! into it with that argument set ([`merges`]).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::words::{jaccard, name_similarity, name_words, normalized, text_words};

/// One published version and the tools it served (`None`: it could not be captured).
#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    /// The version, as the registry writes it.
    pub version: String,
    /// Its publication date, as the registry writes it.
    pub date: Option<String>,
    /// Its `tools/list` tools, when captured.
    pub tools: Option<Vec<Value>>,
}

/// A tool that left for another.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ToolRename {
    /// Its name before.
    pub old: String,
    /// The tool that took its place.
    pub new: String,
    /// The argument a call by the new name sets to mean the old tool (a merge): field and
    /// value.
    pub set: Option<(String, String)>,
}

/// How one tool's fields changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldChanges {
    /// The tool, by its name in this version.
    pub tool: String,
    /// Fields it gained.
    pub added: Vec<String>,
    /// Fields it lost with no successor.
    pub removed: Vec<String>,
    /// Fields renamed: old, new.
    pub renamed: Vec<(String, String)>,
}

/// What one version changed from the version captured before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    /// The version.
    pub version: String,
    /// Its date.
    pub date: Option<String>,
    /// Tools that arrived (renames' new names left out).
    pub added: Vec<String>,
    /// Tools that left with no successor.
    pub removed: Vec<String>,
    /// Tools that left for a successor.
    pub renamed: Vec<ToolRename>,
    /// Field changes of the tools that stayed or were renamed (by their new name).
    pub fields: Vec<FieldChanges>,
}

/// A tool as the inference sees it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shape {
    name: String,
    desc: BTreeSet<String>,
    fields: BTreeMap<String, Field>,
}

#[derive(Clone, Debug, Default)]
struct Field {
    ty: String,
    desc: BTreeSet<String>,
    values: Vec<String>,
}

impl Shape {
    pub(crate) fn of(tool: &Value) -> Option<Shape> {
        let name = tool.get("name")?.as_str()?.to_string();
        let desc = text_words(
            tool.get("description")
                .and_then(Value::as_str)
                .unwrap_or(""),
        );
        let mut fields = BTreeMap::new();
        let props = tool
            .get("inputSchema")
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object);
        for (k, v) in props.into_iter().flatten() {
            let ty = match v.get("type") {
                Some(Value::String(t)) => t.clone(),
                _ => "any".into(),
            };
            let values = v
                .get("enum")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            let desc = text_words(v.get("description").and_then(Value::as_str).unwrap_or(""));
            fields.insert(k.clone(), Field { ty, desc, values });
        }
        Some(Shape { name, desc, fields })
    }
}

type Shapes = BTreeMap<String, Shape>;

fn shapes(tools: &[Value]) -> Shapes {
    tools
        .iter()
        .filter_map(Shape::of)
        .map(|s| (s.name.clone(), s))
        .collect()
}

/// What each captured version changed, in the order given (oldest first); a version that
/// was not captured is left out, the next one compared with the last captured. The first
/// captured version's step has every tool added.
pub fn infer(versions: &[Version]) -> Vec<Step> {
    let mut out = Vec::new();
    let mut prev: Option<Shapes> = None;
    for v in versions {
        let Some(tools) = &v.tools else { continue };
        let cur = shapes(tools);
        let mut step = match &prev {
            Some(p) => compare(p, &cur),
            None => Step {
                added: cur.keys().cloned().collect(),
                ..Step::default()
            },
        };
        step.version = v.version.clone();
        step.date = v.date.clone();
        out.push(step);
        prev = Some(cur);
    }
    out
}

/// The changes from `prev` to `cur`.
pub(crate) fn compare(prev: &Shapes, cur: &Shapes) -> Step {
    let left: Vec<&str> = prev
        .keys()
        .filter(|k| !cur.contains_key(*k))
        .map(String::as_str)
        .collect();
    let arrived: Vec<&str> = cur
        .keys()
        .filter(|k| !prev.contains_key(*k))
        .map(String::as_str)
        .collect();
    let mut renamed = merges(prev, cur, &left);
    let merged: BTreeSet<&str> = renamed.iter().map(|r| r.old.as_str()).collect();
    let targets: BTreeSet<&str> = renamed.iter().map(|r| r.new.as_str()).collect();
    let rest_left: Vec<&Shape> = left
        .iter()
        .filter(|l| !merged.contains(*l))
        .map(|l| &prev[*l])
        .collect();
    let rest_arrived: Vec<&Shape> = arrived
        .iter()
        .filter(|a| !targets.contains(*a))
        .map(|a| &cur[*a])
        .collect();
    let pairs = pair_up(&rest_left, &rest_arrived, |o, n| agrees(o, n));
    let mut fields = Vec::new();
    for (l, a) in &pairs {
        let (old, new) = (rest_left[*l], rest_arrived[*a]);
        renamed.push(ToolRename {
            old: old.name.clone(),
            new: new.name.clone(),
            set: None,
        });
        fields.extend(field_changes(old, new));
    }
    for (name, now) in cur {
        if let Some(before) = prev.get(name) {
            fields.extend(field_changes(before, now));
        }
    }
    renamed.sort();
    fields.sort_by(|a, b| a.tool.cmp(&b.tool));
    let renamed_old: BTreeSet<&str> = renamed.iter().map(|r| r.old.as_str()).collect();
    let renamed_new: BTreeSet<&str> = renamed.iter().map(|r| r.new.as_str()).collect();
    Step {
        added: arrived
            .iter()
            .filter(|a| !renamed_new.contains(*a))
            .map(|s| s.to_string())
            .collect(),
        removed: left
            .iter()
            .filter(|l| !renamed_old.contains(*l))
            .map(|s| s.to_string())
            .collect(),
        renamed,
        fields,
        ..Step::default()
    }
}

/// The score of `new` as the successor of `old`, when the evidence agrees: names equal but
/// for separators and case (and fields not at odds), or two of three signals strong (words
/// of the names, words of the descriptions, fields with their types).
fn agrees(old: &Shape, new: &Shape) -> Option<f64> {
    let name = name_similarity(&old.name, &new.name);
    let desc = jaccard(&old.desc, &new.desc);
    let fields = field_similarity(old, new);
    let same_name = normalized(&old.name) == normalized(&new.name);
    let strong = [
        name >= 0.5,
        desc.is_some_and(|d| d >= 0.4),
        fields.is_some_and(|f| f >= 0.6),
    ];
    let ok = (same_name && fields.is_none_or(|f| f >= 0.3))
        || strong.iter().filter(|s| **s).count() >= 2;
    ok.then(|| name + desc.unwrap_or(0.0) + fields.unwrap_or(0.0))
}

/// The Jaccard index of two tools' fields, by normalized name, a field whose type changed
/// counting half.
fn field_similarity(a: &Shape, b: &Shape) -> Option<f64> {
    let na: BTreeMap<String, &Field> = a.fields.iter().map(|(k, f)| (normalized(k), f)).collect();
    let nb: BTreeMap<String, &Field> = b.fields.iter().map(|(k, f)| (normalized(k), f)).collect();
    let ka: BTreeSet<&String> = na.keys().collect();
    let kb: BTreeSet<&String> = nb.keys().collect();
    let all = ka.union(&kb).count();
    if all == 0 {
        return None;
    }
    let shared: f64 = ka
        .intersection(&kb)
        .map(|k| if na[*k].ty == nb[*k].ty { 1.0 } else { 0.5 })
        .sum();
    Some(shared / all as f64)
}

/// Pairs `olds` with `news` where `score` accepts them and each is the other's one best
/// match (a rival within 0.15 of the best makes both unpaired): (old index, new index).
fn pair_up<T>(
    olds: &[T],
    news: &[T],
    score: impl Fn(&T, &T) -> Option<f64>,
) -> Vec<(usize, usize)> {
    let scores: Vec<Vec<Option<f64>>> = olds
        .iter()
        .map(|o| news.iter().map(|n| score(o, n)).collect())
        .collect();
    let best = |cands: &mut dyn Iterator<Item = (usize, f64)>| -> Option<usize> {
        let mut v: Vec<(usize, f64)> = cands.collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        match v.as_slice() {
            [] => None,
            [(i, _)] => Some(*i),
            [(i, s), (_, t), ..] => (s - t > 0.15).then_some(*i),
        }
    };
    let mut out = Vec::new();
    for (o, row) in scores.iter().enumerate() {
        let Some(n) = best(
            &mut row
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.map(|s| (i, s))),
        ) else {
            continue;
        };
        let back = best(
            &mut scores
                .iter()
                .enumerate()
                .filter_map(|(i, r)| r[n].map(|s| (i, s))),
        );
        if back == Some(o) {
            out.push((o, n));
        }
    }
    out
}

/// How `old`'s fields became `new`'s: a lost field paired with a gained one of a compatible
/// type when their names or descriptions agree; `None` when nothing changed.
fn field_changes(old: &Shape, new: &Shape) -> Option<FieldChanges> {
    let lost: Vec<(&String, &Field)> = old
        .fields
        .iter()
        .filter(|(k, _)| !new.fields.contains_key(*k))
        .collect();
    let gained: Vec<(&String, &Field)> = new
        .fields
        .iter()
        .filter(|(k, _)| !old.fields.contains_key(*k))
        .collect();
    if lost.is_empty() && gained.is_empty() {
        return None;
    }
    let pairs = pair_up(&lost, &gained, |(ka, fa), (kb, fb)| {
        let typed = fa.ty == fb.ty || fa.ty == "any" || fb.ty == "any";
        let name = name_similarity(ka, kb);
        let desc = jaccard(&fa.desc, &fb.desc).unwrap_or(0.0);
        (typed && (name >= 0.5 || desc >= 0.5)).then_some(name + desc)
    });
    let paired_old: BTreeSet<usize> = pairs.iter().map(|p| p.0).collect();
    let paired_new: BTreeSet<usize> = pairs.iter().map(|p| p.1).collect();
    let mut renamed: Vec<(String, String)> = pairs
        .iter()
        .map(|(o, n)| (lost[*o].0.clone(), gained[*n].0.clone()))
        .collect();
    renamed.sort();
    Some(FieldChanges {
        tool: new.name.clone(),
        added: (0..gained.len())
            .filter(|i| !paired_new.contains(i))
            .map(|i| gained[i].0.clone())
            .collect(),
        removed: (0..lost.len())
            .filter(|i| !paired_old.contains(i))
            .map(|i| lost[i].0.clone())
            .collect(),
        renamed,
    })
}

/// Tools of `left` merged into one tool of `cur` whose string enum field gained a value
/// naming each: the value is the old name (but for separators and case), or the old name's
/// words less the new tool's (`x_list` into `x` by `list`). A tool named by one value only,
/// of one field of one tool, is merged; a value match by words needs two such tools into the
/// same field, so that a lone word does not make a rename.
fn merges(prev: &Shapes, cur: &Shapes, left: &[&str]) -> Vec<ToolRename> {
    // (old) -> every (tool, field, value, exact) it could be.
    let mut cands: BTreeMap<&str, Vec<(&str, &str, &str, bool)>> = BTreeMap::new();
    for (tname, t) in cur {
        let twords: BTreeSet<String> = name_words(tname).into_iter().collect();
        for (fname, f) in &t.fields {
            let before = prev.get(tname).and_then(|p| p.fields.get(fname));
            for v in &f.values {
                if before.is_some_and(|b| b.values.contains(v)) {
                    continue;
                }
                for l in left {
                    let exact = normalized(l) == normalized(v);
                    if exact || by_words(l, v, &twords) {
                        cands.entry(l).or_default().push((tname, fname, v, exact));
                    }
                }
            }
        }
    }
    let mut count: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for c in cands.values().filter(|c| c.len() == 1) {
        *count.entry((c[0].0, c[0].1)).or_default() += 1;
    }
    let mut out = Vec::new();
    for (old, c) in &cands {
        if let [(t, f, v, exact)] = c.as_slice()
            && (*exact || count[&(*t, *f)] >= 2)
        {
            out.push(ToolRename {
                old: old.to_string(),
                new: t.to_string(),
                set: Some((f.to_string(), v.to_string())),
            });
        }
    }
    out
}

/// Whether the words of `old` less those of the tool (`twords`) are the value's words, and
/// the tool's words are in `old` (`memory_list` into `memory` by `list`).
fn by_words(old: &str, value: &str, twords: &BTreeSet<String>) -> bool {
    let ow = name_words(old);
    if !ow.iter().any(|w| twords.contains(w)) {
        return false;
    }
    let rest: Vec<&String> = ow.iter().filter(|w| !twords.contains(*w)).collect();
    let vw = name_words(value);
    !vw.is_empty() && rest.len() == vw.len() && rest.iter().zip(&vw).all(|(a, b)| *a == b)
}

#[cfg(test)]
mod tests;
