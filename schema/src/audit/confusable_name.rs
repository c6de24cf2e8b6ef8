//! `confusable-name`: names that look like other names (homoglyphs, mixed scripts).

use super::text::mentions;
use super::{FieldKind, Finding, Rule, Severity, ToolCx};

/// The rule.
pub const RULE: Rule = Rule {
    name: "confusable-name",
    severity: Severity::Error,
    summary: "a tool or parameter name, or a word of a description, that mixes scripts so it reads as another word (homoglyphs)",
    explain: "confusable-name (error)

What it reports:

- error: a tool or parameter name that mixes Latin letters with Cyrillic, Greek, Armenian
  or Cherokee letters, or fullwidth forms, that look like Latin ones (`pаypal_send` with a
  Cyrillic `а`). The finding shows the name as it reads and each letter that is not what
  it looks like.
- warning: a tool name with any other non-ASCII character (hosts, allow-lists and people
  compare names by eye); a word of a description that mixes Latin with look-alike letters.

Why: a look-alike name passes a review and an allow-list written for the real one, and
can shadow a trusted tool of another server.

What it misses: look-alikes within one script (`rn` for `m`, `l` for `I`); names written
entirely in another script are not reported as mixed.

Fix: write the name in one script. To allow one tool, see `toolgate explain audit-allow`.",
};

/// The Latin letter a look-alike of another script reads as.
fn latin_lookalike(c: char) -> Option<char> {
    let l = match c {
        'а' => 'a',
        'е' => 'e',
        'о' => 'o',
        'р' => 'p',
        'с' => 'c',
        'у' => 'y',
        'х' => 'x',
        'і' => 'i',
        'ј' => 'j',
        'ѕ' => 's',
        'ԁ' => 'd',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'һ' => 'h',
        'ӏ' => 'l',
        'ɡ' => 'g',
        'А' => 'A',
        'В' => 'B',
        'Е' => 'E',
        'К' => 'K',
        'М' => 'M',
        'Н' => 'H',
        'О' => 'O',
        'Р' => 'P',
        'С' => 'C',
        'Т' => 'T',
        'Х' => 'X',
        'У' => 'Y',
        'ο' => 'o',
        'α' => 'a',
        'ν' => 'v',
        'ρ' => 'p',
        'τ' => 't',
        'ι' => 'i',
        'κ' => 'k',
        'υ' => 'u',
        'χ' => 'x',
        'ε' => 'e',
        'Α' => 'A',
        'Β' => 'B',
        'Ε' => 'E',
        'Ζ' => 'Z',
        'Η' => 'H',
        'Ι' => 'I',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'Ο' => 'O',
        'Ρ' => 'P',
        'Τ' => 'T',
        'Υ' => 'Y',
        'Χ' => 'X',
        'օ' => 'o',
        'ս' => 'u',
        'հ' => 'h',
        'ո' => 'n',
        'Ꭺ' => 'A',
        'Ꮯ' => 'C',
        'Ꭼ' => 'E',
        'Ꮋ' => 'H',
        'Ꭻ' => 'J',
        'Ꮃ' => 'W',
        _ => {
            let u = c as u32;
            // Fullwidth ASCII (U+FF01..U+FF5E) mirrors U+0021..U+007E.
            if (0xFF01..=0xFF5E).contains(&u) {
                return char::from_u32(u - 0xFF01 + 0x21);
            }
            return None;
        }
    };
    Some(l)
}

/// The word as it reads and its look-alike letters, when it mixes ASCII letters with
/// look-alikes of another script.
pub fn skeleton(word: &str) -> Option<(String, Vec<char>)> {
    let has_ascii = word.chars().any(|c| c.is_ascii_alphabetic());
    let mut odd = Vec::new();
    let read: String = word
        .chars()
        .map(|c| match latin_lookalike(c) {
            Some(l) => {
                odd.push(c);
                l
            }
            None => c,
        })
        .collect();
    // Mixed with ASCII letters, or every letter a look-alike (fullwidth, all-Cyrillic `рор`).
    (!odd.is_empty() && (has_ascii || read.is_ascii())).then_some((read, odd))
}

fn letters(odd: &[char]) -> String {
    odd.iter()
        .map(|c| format!("`{c}` (U+{:04X})", *c as u32))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Names first, then words of prose.
pub fn check(cx: &ToolCx<'_>, out: &mut Vec<Finding>) {
    for field in &cx.fields {
        if field.text.is_ascii() {
            continue;
        }
        match field.kind {
            FieldKind::Name | FieldKind::ParamName => name(cx, field, out),
            FieldKind::Title | FieldKind::Description | FieldKind::ParamText => {
                prose(cx, field, out)
            }
            _ => {}
        }
    }
}

fn name(cx: &ToolCx<'_>, field: &super::Field<'_>, out: &mut Vec<Finding>) {
    let what = if field.kind == FieldKind::Name {
        "tool name"
    } else {
        "parameter name"
    };
    let span = Some((0, field.text.len()));
    match skeleton(field.text) {
        Some((read, odd)) => {
            let also = if cx.siblings.contains(&read.as_str())
                || cx.foreign.iter().any(|f| f.name == read)
            {
                ", the name of another tool".to_string()
            } else {
                String::new()
            };
            let msg = format!(
                "{what} `{}` reads as `{read}`{also}: {} not Latin",
                field.text,
                letters(&odd)
            );
            out.push(cx.finding(&RULE, Severity::Error, field, span, msg));
        }
        None if field.kind == FieldKind::Name => {
            let msg = format!(
                "{what} `{}` has non-ASCII characters; people and allow-lists compare names by eye",
                field.text
            );
            out.push(cx.finding(&RULE, Severity::Warning, field, span, msg));
        }
        None => {}
    }
}

fn prose(cx: &ToolCx<'_>, field: &super::Field<'_>, out: &mut Vec<Finding>) {
    for word in field.text.split(|c: char| !c.is_alphanumeric() && c != '_') {
        if word.is_ascii() || word.len() < 3 {
            continue;
        }
        if let Some((read, odd)) = skeleton(word)
            && word.chars().any(|c| c.is_ascii_alphabetic())
        {
            let span = mentions(field.text, word);
            let msg = format!(
                "`{word}` at `{}` reads as `{read}`: {} not Latin",
                field.path,
                letters(&odd)
            );
            out.push(cx.finding(&RULE, Severity::Warning, field, span, msg));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_scripts_read_as_latin() {
        assert_eq!(skeleton("pаypal").unwrap().0, "paypal");
        assert_eq!(skeleton("ｓｅｎｄ").unwrap().0, "send");
        assert!(skeleton("привет").is_none());
        assert!(skeleton("café").is_none());
        assert!(skeleton("λόγος").is_none());
    }
}
