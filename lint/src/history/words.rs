//! The words of tool and field names and of descriptions, and how alike two lists of them
//! are: the evidence [`super::infer`] weighs.

use std::collections::BTreeSet;

/// The words of a name, lower case: split at `_`, `-`, `.`, `/`, spaces and a lower-to-upper
/// case change (`getThing`, `get-thing` and `get_thing` are `get`, `thing`).
pub fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A name with its separators and case taken out: `get_thing`, `get-thing` and `getThing`
/// are all `getthing`.
pub fn normalized(name: &str) -> String {
    name_words(name).concat()
}

/// Words too common in descriptions to say two tools do the same thing.
const STOP: &[&str] = &[
    "the",
    "and",
    "for",
    "with",
    "from",
    "that",
    "this",
    "are",
    "can",
    "will",
    "into",
    "its",
    "use",
    "when",
    "not",
    "all",
    "any",
    "you",
    "your",
    "which",
    "one",
    "each",
    "such",
    "also",
    "tool",
    "tools",
    "given",
    "returns",
    "return",
    "optional",
    "specified",
    "should",
    "has",
    "have",
    "was",
    "were",
    "been",
    "them",
    "their",
    "only",
    "more",
    "than",
    "may",
    "must",
];

/// The content words of a description: lower-case alphanumeric runs of three or more
/// characters that are not [`STOP`] words, a trailing `s` taken off.
pub fn text_words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 3 && !STOP.contains(&w.as_str()))
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 => stem.to_string(),
            _ => w,
        })
        .collect()
}

/// The Jaccard index of two sets: shared over all; `None` when both are empty (no evidence).
pub fn jaccard<T: Ord>(a: &BTreeSet<T>, b: &BTreeSet<T>) -> Option<f64> {
    if a.is_empty() && b.is_empty() {
        return None;
    }
    let shared = a.intersection(b).count();
    let all = a.union(b).count();
    Some(shared as f64 / all as f64)
}

/// How alike two names are: 1 when they differ only in separators or case, else the
/// Jaccard index of their words.
pub fn name_similarity(a: &str, b: &str) -> f64 {
    if normalized(a) == normalized(b) {
        return 1.0;
    }
    let wa: BTreeSet<String> = name_words(a).into_iter().collect();
    let wb: BTreeSet<String> = name_words(b).into_iter().collect();
    jaccard(&wa, &wb).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_at_separators_and_case() {
        assert_eq!(name_words("get_thing"), ["get", "thing"]);
        assert_eq!(name_words("getThing"), ["get", "thing"]);
        assert_eq!(name_words("get-thing"), ["get", "thing"]);
        assert_eq!(name_words("HTTPServer_v2"), ["httpserver", "v2"]);
        assert_eq!(normalized("per_page"), normalized("perPage"));
    }

    #[test]
    fn similarity_is_one_for_other_separators() {
        assert_eq!(name_similarity("read_file", "read-file"), 1.0);
        assert!((name_similarity("read_file", "read_text_file") - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(name_similarity("search_nodes", "open_item"), 0.0);
    }

    #[test]
    fn text_words_drop_the_common_ones() {
        let w = text_words("Reads the files of a directory");
        assert!(w.contains("read") && w.contains("file") && w.contains("directory"));
        assert!(!w.contains("the"));
        assert_eq!(jaccard::<String>(&BTreeSet::new(), &BTreeSet::new()), None);
    }
}
