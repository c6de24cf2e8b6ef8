//! Which declared field an unknown one most likely meant, and whether a schema declares a
//! field at all.
//!
//! The did-you-mean of a field is ordered by how agents get field names wrong in practice:
//! a case or separator variant first (`pull_number` for `pullNumber`, `per-page` for
//! `perPage`), then an abbreviation or prefix (`q` for `query`), then a typo
//! ([`toolgate_schema::suggest::closest`], Jaro-Winkler).

use toolgate_schema::json::Value as J;
use toolgate_schema::model::{Additional, Schema};

/// `name` lowercased with `_`, `-` and spaces dropped: `pull_number`, `pullNumber` and
/// `Pull-Number` all read `pullnumber`.
pub fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The candidate `word` most likely stands for: a case/separator variant, else the one
/// candidate `word` abbreviates (a prefix of its folded name, or its initials), else the
/// closest by spelling.
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let folded = fold(word);
    if folded.is_empty() {
        return None;
    }
    if let Some(c) = candidates.iter().find(|c| **c != word && fold(c) == folded) {
        return Some(c);
    }
    let abbreviated: Vec<&'a str> = candidates
        .iter()
        .copied()
        .filter(|c| {
            let f = fold(c);
            f.len() > folded.len() && (f.starts_with(&folded) || initials(c) == folded)
        })
        .collect();
    if abbreviated.len() == 1 {
        return Some(abbreviated[0]);
    }
    toolgate_schema::suggest::closest(word, candidates.iter().copied())
}

/// The first letter of each word of `name` (`per_page` and `perPage` read `pp`).
fn initials(name: &str) -> String {
    let mut out = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        let starts = match prev {
            None => true,
            Some(p) => matches!(p, '_' | '-') || (p.is_lowercase() && c.is_uppercase()),
        };
        if starts && c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        }
        prev = Some(c);
    }
    out
}

/// Whether an object schema whose `additionalProperties` is not written still lets `field`
/// through by one of the keywords the typed model keeps raw: `patternProperties` (any
/// pattern: the lint does not compile them), or an `allOf`/`anyOf`/`oneOf`/`if`/`then`/
/// `else`/`dependentSchemas` branch that declares it, leaves other properties open
/// (`additionalProperties` anything but `false`... when the branch talks of properties at
/// all) or is a `$ref` kept unresolved (recursive).
pub fn declared_raw(schema: &Schema, field: &str) -> bool {
    schema.extra.iter().any(|(k, v)| match k.as_str() {
        "patternProperties" | "$ref" | "$dynamicRef" | "unevaluatedProperties" => true,
        "allOf" | "anyOf" | "oneOf" => v
            .as_array()
            .is_some_and(|branches| branches.iter().any(|b| branch_declares(b, field))),
        "if" | "then" | "else" => branch_declares(v, field),
        "dependentSchemas" => v
            .as_object()
            .is_some_and(|m| m.iter().any(|(_, b)| branch_declares(b, field))),
        _ => false,
    })
}

/// Whether one raw branch schema declares `field` or opens the object to it.
fn branch_declares(branch: &J, field: &str) -> bool {
    let Some(obj) = branch.as_object() else {
        // `true`: declares nothing; `false`: refuses everything.
        return false;
    };
    if obj
        .get("properties")
        .and_then(J::as_object)
        .is_some_and(|p| p.get(field).is_some())
    {
        return true;
    }
    if obj.contains_key("patternProperties") || obj.contains_key("$ref") {
        return true;
    }
    if let Some(a) = obj.get("additionalProperties")
        && !matches!(a, J::Bool(false))
    {
        return true;
    }
    ["allOf", "anyOf", "oneOf"].iter().any(|k| {
        obj.get(k)
            .and_then(J::as_array)
            .is_some_and(|bs| bs.iter().any(|b| branch_declares(b, field)))
    }) || ["if", "then", "else"]
        .iter()
        .any(|k| obj.get(k).is_some_and(|b| branch_declares(b, field)))
}

/// Whether `additional` lets any other property through: only `true` or a schema does.
pub fn opens(additional: &Additional) -> bool {
    matches!(additional, Additional::Allowed | Additional::Schema(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_then_abbreviations_then_typos() {
        let gh = ["owner", "repo", "pullNumber", "perPage", "page", "query"];
        assert_eq!(closest("pull_number", &gh), Some("pullNumber"));
        assert_eq!(closest("per_page", &gh), Some("perPage"));
        assert_eq!(closest("q", &gh), Some("query"));
        assert_eq!(closest("pp", &gh), Some("perPage"));
        assert_eq!(closest("ownr", &gh), Some("owner"));
        assert_eq!(closest("labels", &["owner", "repo", "title", "body"]), None);
        // `p` abbreviates both `page` and `perPage`: no guess from the prefix.
        assert_eq!(closest("p", &gh), None);
    }
}
