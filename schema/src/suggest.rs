//! "Did you mean" hints, shared by the catalog checks, the lint and the diff.

/// The candidate closest to `word`, if one is close enough to be a likely typo or rename.
///
/// Close enough: a Jaro-Winkler similarity of at least 0.8 (a typo), or one name a prefix or
/// suffix of the other (`from_entity` and `from`), not merely inside it (`properties` and
/// `op`). Ties go to the first candidate in order.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(&str, f64)> = None;
    for c in candidates {
        if c == word || c.is_empty() {
            continue;
        }
        let mut score = strsim::jaro_winkler(word, c);
        let (short, long) = if c.len() < word.len() {
            (c, word)
        } else {
            (word, c)
        };
        if short.len() >= 2 && (long.starts_with(short) || long.ends_with(short)) {
            score = score.max(0.85);
        }
        if score >= 0.8 && best.is_none_or(|(_, s)| score > s) {
            best = Some((c, score));
        }
    }
    best.map(|(c, _)| c)
}

/// `" (did you mean `x`?)"` when a close candidate exists, else the empty string.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates)
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_typos_and_contained_names() {
        assert_eq!(
            closest("mr_wrte", ["mr_write", "issue_write"]),
            Some("mr_write")
        );
        assert_eq!(
            closest("from_entity", ["op", "from", "to", "relation"]),
            Some("from")
        );
        assert_eq!(closest("zzz", ["mr_write"]), None);
        assert_eq!(closest("properties", ["op", "id"]), None);
        assert_eq!(did_you_mean("quer", ["query"]), " (did you mean `query`?)");
    }
}
