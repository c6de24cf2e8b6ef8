//! Whether the words before a call forbid it: "Do NOT attempt `mr_write(action="merge")`".
//!
//! Only the words before the call, in the same sentence (a line is cut at `. `, `; `, `! `,
//! `? ` and table cell borders), and outside string literals count: in
//! `decline_reason="no change needed", x(...)` the `no` is part of a value and negates nothing.

/// Words that forbid what follows them (lower case). French elisions (`n'appelez`) and
/// English contractions (`don't`) are recognised by their form.
pub const WORDS: &[&str] = &[
    "not",
    "never",
    "no",
    "cannot",
    "without",
    "nor",
    "avoid",
    "forbidden",
    "ne",
    "pas",
    "jamais",
    "sans",
    "ni",
    "aucun",
    "aucune",
    "interdit",
];

/// Whether `prefix` (the text of the line before the call) forbids the call. `extra` are
/// more words or phrases from the configuration, in lower case.
pub fn forbids(prefix: &str, extra: &[String]) -> bool {
    let clause = last_clause(prefix);
    let words = words_outside_strings(clause);
    if words.iter().any(|w| is_negation(w)) {
        return true;
    }
    if extra.is_empty() {
        return false;
    }
    let joined = format!(" {} ", words.join(" "));
    extra.iter().any(|phrase| {
        let p = phrase.trim().to_lowercase();
        !p.is_empty() && joined.contains(&format!(" {p} "))
    })
}

fn is_negation(w: &str) -> bool {
    WORDS.contains(&w)
        || w.ends_with("n't")
        || w.ends_with("n’t")
        || w.starts_with("n'")
        || w.starts_with("n’")
}

fn last_clause(prefix: &str) -> &str {
    let b = prefix.as_bytes();
    let mut cut = 0;
    for i in 0..b.len() {
        let boundary = match b[i] {
            b'.' | b';' | b'!' | b'?' => b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace()),
            b'|' => i == 0 || b[i - 1] != b'\\',
            _ => false,
        };
        if boundary {
            cut = i + 1;
        }
    }
    &prefix[cut..]
}

fn words_outside_strings(clause: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut prev: Option<char> = None;
    for c in clause.chars() {
        if let Some(q) = quote {
            if c == q && prev != Some('\\') {
                quote = None;
            }
            prev = Some(c);
            continue;
        }
        let apostrophe = c == '\'' || c == '’';
        if c == '"' || (c == '\'' && !prev.is_some_and(char::is_alphanumeric)) {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            quote = Some(c);
        } else if c.is_alphabetic() || ((apostrophe || c == '-') && !word.is_empty()) {
            word.extend(c.to_lowercase());
        } else if !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        prev = Some(c);
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_and_french() {
        assert!(forbids("- Do NOT attempt `", &[]));
        assert!(forbids("Never call ", &[]));
        assert!(forbids("You don't need ", &[]));
        assert!(forbids("N'appelez pas ", &[]));
        assert!(forbids("N’utilisez jamais ", &[]));
        assert!(forbids("Terminez sans ", &[]));
        assert!(!forbids("Call ", &[]));
        assert!(!forbids("Then `", &[]));
    }

    #[test]
    fn only_the_words_of_the_sentence_outside_strings() {
        assert!(!forbids(
            "submit_outcome(decline_reason=\"no change needed\", ",
            &[]
        ));
        assert!(!forbids("Do not retry. Then call ", &[]));
        assert!(!forbids("| never | ", &[]));
        assert!(!forbids("a no-op is fine, call ", &[]));
        assert!(forbids("Under no circumstances call ", &[]));
    }

    #[test]
    fn extra_phrases() {
        assert!(forbids("Refrain from calling ", &["refrain from".into()]));
        assert!(!forbids("Call ", &["refrain from".into()]));
    }
}
