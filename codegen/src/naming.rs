//! Rust identifiers made from JSON names.
//!
//! A JSON name is cut into words at every character that is not an ASCII letter or digit
//! and at case changes (`isPR` is `is` + `PR`, `HTTPServer` is `HTTP` + `Server`; a digit
//! stays with the word before it). Fields, modules and methods join the words in
//! `snake_case`; types, enum variants and profiles in `UpperCamelCase`. A keyword becomes a
//! raw identifier (`type` is `r#type`), or gets a trailing `_` where Rust has no raw form
//! (`self_`, `Self_`); a name starting with a digit gets a `_` (snake) or `V` (camel) in
//! front. Two JSON names that end up as one identifier in the same scope are an error at the
//! call site, never a silent suffix: see [`Scope`].

use std::collections::BTreeMap;

use proc_macro2::{Ident, Span};

/// Strict and reserved keywords of Rust 2024 (raw identifiers are allowed for these).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

/// The words of a JSON name.
pub fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some(&prev) = cur.chars().last().as_ref() {
            let next = chars.get(i + 1).copied();
            let boundary = (c.is_ascii_uppercase()
                && (prev.is_ascii_lowercase() || prev.is_ascii_digit()))
                || (c.is_ascii_uppercase()
                    && prev.is_ascii_uppercase()
                    && next.is_some_and(|n| n.is_ascii_lowercase()));
            if boundary {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `snake_case` of a JSON name (no keyword handling).
pub fn snake(name: &str) -> String {
    words(name)
        .iter()
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_")
}

/// `UpperCamelCase` of a JSON name (no keyword handling).
pub fn camel(name: &str) -> String {
    words(name)
        .iter()
        .map(|w| {
            let lower = w.to_ascii_lowercase();
            let mut cs = lower.chars();
            match cs.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + cs.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// The identifier text for `snake`-style names (fields, modules, methods), or why there is
/// none.
pub fn snake_ident_text(name: &str) -> Result<String, String> {
    let s = snake(name);
    finish(name, s, "_")
}

/// The identifier text for `UpperCamelCase` names (types, variants), or why there is none.
pub fn camel_ident_text(name: &str) -> Result<String, String> {
    let s = camel(name);
    finish(name, s, "V")
}

fn finish(name: &str, s: String, digit_prefix: &str) -> Result<String, String> {
    if s.is_empty() {
        return Err(format!(
            "`{name}` has no ASCII letter or digit to make a Rust name of"
        ));
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        return Ok(format!("{digit_prefix}{s}"));
    }
    if NOT_RAW.contains(&s.as_str()) {
        return Ok(format!("{s}_"));
    }
    Ok(s)
}

/// An enum value with its signs spelled out, as typify names them: every `+` is the word
/// `plus`, and a `-` right before a digit at the start or after punctuation is `minus`
/// (`"+1"` is `Plus1`, `"-1"` is `Minus1`, `"reactions--1"` is `ReactionsMinus1`); any other
/// `-` stays a word break. A value without such signs is unchanged.
pub fn spell_signs(value: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    let mut out = String::with_capacity(value.len());
    for (i, &c) in chars.iter().enumerate() {
        let before_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
        let after_punct = i == 0 || chars.get(i - 1).is_some_and(|p| !p.is_ascii_alphanumeric());
        match c {
            '+' => out.push_str(" plus "),
            '-' if before_digit && after_punct => out.push_str(" minus "),
            c => out.push(c),
        }
    }
    out
}

/// The name of an enum value with no ASCII letter or digit, made from its characters, one
/// word each (`"."` is `Dot`, `","` is `Comma`, `"\""` is `DoubleQuote`, `"'"` is
/// `SingleQuote`, `"::"` is `ColonColon`, `""` is `Empty`); `None` when a character has no
/// word here (the caller then names the variant by its position).
pub fn sign_name(value: &str) -> Option<String> {
    if value.is_empty() {
        return Some("Empty".to_string());
    }
    value.chars().map(char_word).collect()
}

/// The word for one punctuation or space character of an enum value.
fn char_word(c: char) -> Option<&'static str> {
    Some(match c {
        '.' => "Dot",
        ',' => "Comma",
        '"' => "DoubleQuote",
        '\'' => "SingleQuote",
        '`' => "Backtick",
        ':' => "Colon",
        ';' => "Semicolon",
        '!' => "Bang",
        '?' => "Question",
        '-' => "Dash",
        '_' => "Underscore",
        '+' => "Plus",
        '*' => "Star",
        '/' => "Slash",
        '\\' => "Backslash",
        '|' => "Pipe",
        '&' => "Ampersand",
        '#' => "Hash",
        '@' => "At",
        '$' => "Dollar",
        '%' => "Percent",
        '^' => "Caret",
        '~' => "Tilde",
        '=' => "Equals",
        '<' => "Less",
        '>' => "Greater",
        '(' => "OpenParen",
        ')' => "CloseParen",
        '[' => "OpenBracket",
        ']' => "CloseBracket",
        '{' => "OpenBrace",
        '}' => "CloseBrace",
        ' ' => "Space",
        '\t' => "Tab",
        '\n' => "Newline",
        '\r' => "CarriageReturn",
        _ => return None,
    })
}

/// A type name put together from converted parts (`{prefix}{Field}Item`): a `V` in front
/// when it would start with a digit, a `_` after it when it would be `Self`.
pub fn type_name(joined: String) -> String {
    if joined.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{joined}")
    } else if joined == "Self" {
        "Self_".to_string()
    } else {
        joined
    }
}

/// An identifier for already-converted text: raw when it is a keyword.
pub fn ident(text: &str) -> Ident {
    if KEYWORDS.contains(&text) {
        Ident::new_raw(text, Span::call_site())
    } else {
        Ident::new(text, Span::call_site())
    }
}

/// One namespace in which generated names must be distinct: the fields of a struct, the
/// variants of an enum, the types of a tool's module, the tools of a catalog.
#[derive(Debug, Default)]
pub struct Scope {
    taken: BTreeMap<String, String>,
}

impl Scope {
    /// A new, empty scope.
    pub fn new() -> Self {
        Scope::default()
    }

    /// Claims `text` for `what` (a description of its origin, used in the error). On a
    /// collision, returns the description of what took it first.
    pub fn claim(&mut self, text: &str, what: &str) -> Result<(), String> {
        match self.taken.get(text) {
            Some(first) => Err(first.clone()),
            None => {
                self.taken.insert(text.to_string(), what.to_string());
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_words_at_case_and_punctuation() {
        assert_eq!(words("isPR"), ["is", "PR"]);
        assert_eq!(words("HTTPServer"), ["HTTP", "Server"]);
        assert_eq!(words("GRANT_ACCESS"), ["GRANT", "ACCESS"]);
        assert_eq!(words("v2Api"), ["v2", "Api"]);
        assert_eq!(words("mr-write.x"), ["mr", "write", "x"]);
        assert_eq!(words("L0"), ["L0"]);
        assert_eq!(words("__"), Vec::<String>::new());
    }

    #[test]
    fn converts_case() {
        assert_eq!(snake("isPR"), "is_pr");
        assert_eq!(snake("submit_outcome"), "submit_outcome");
        assert_eq!(camel("prompt_input"), "PromptInput");
        assert_eq!(camel("GRANT_ACCESS"), "GrantAccess");
        assert_eq!(camel("L0"), "L0");
        assert_eq!(camel("task_guard"), "TaskGuard");
    }

    #[test]
    fn handles_keywords_digits_and_empties() {
        assert_eq!(snake_ident_text("type").unwrap(), "type");
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(snake_ident_text("self").unwrap(), "self_");
        assert_eq!(camel_ident_text("self").unwrap(), "Self_");
        assert_eq!(snake_ident_text("1st").unwrap(), "_1st");
        assert_eq!(camel_ident_text("1st").unwrap(), "V1st");
        assert!(snake_ident_text("--").is_err());
        assert_eq!(type_name(format!("{}Args", camel("2"))), "V2Args");
        assert_eq!(type_name(camel("self")), "Self_");
    }

    #[test]
    fn spells_signs_of_values() {
        assert_eq!(camel_ident_text(&spell_signs("+1")).unwrap(), "Plus1");
        assert_eq!(camel_ident_text(&spell_signs("-1")).unwrap(), "Minus1");
        assert_eq!(
            camel_ident_text(&spell_signs("reactions--1")).unwrap(),
            "ReactionsMinus1"
        );
        assert_eq!(
            camel_ident_text(&spell_signs("reactions-+1")).unwrap(),
            "ReactionsPlus1"
        );
        assert_eq!(spell_signs("mr-write"), "mr-write");
        assert_eq!(spell_signs("v-1"), "v-1");
    }

    #[test]
    fn names_values_without_letters_from_their_characters() {
        assert_eq!(sign_name(".").as_deref(), Some("Dot"));
        assert_eq!(sign_name(",").as_deref(), Some("Comma"));
        assert_eq!(sign_name("\"").as_deref(), Some("DoubleQuote"));
        assert_eq!(sign_name("'").as_deref(), Some("SingleQuote"));
        assert_eq!(sign_name("").as_deref(), Some("Empty"));
        assert_eq!(sign_name("::").as_deref(), Some("ColonColon"));
        assert_eq!(sign_name("\u{e9}"), None);
    }

    #[test]
    fn scopes_report_the_first_claimant() {
        let mut s = Scope::new();
        assert!(s.claim("is_pr", "`isPR`").is_ok());
        assert_eq!(s.claim("is_pr", "`is_pr`"), Err("`isPR`".to_string()));
    }
}
