//! The YAML front matter: which profiles a skill declares, and its strings, decoded.
//!
//! Front matter is YAML, so it is decoded as YAML (with saphyr-parser: YAML 1.2, two small
//! dependencies, and a span for every event) before anything in it is scanned: a call inside
//! a double-quoted description (`task_note(kind=\"plan\")`) is read with its escapes resolved,
//! and a folded (`>`) description is read as the one line it stands for. Each decoded string
//! keeps its raw span, and [`Scalar::raw_offset`] maps an offset in the decoded string back to
//! the file, so findings in front matter point at the right bytes.

use saphyr_parser::{Event, Parser, ScalarStyle};

use crate::text::Span;

/// What the lint needs from a front matter block.
#[derive(Clone, Debug, Default)]
pub struct Decoded {
    /// The `profiles:` (or `profile:`) declaration, when there is one.
    pub profiles: Option<Declared>,
    /// Every string value (mapping keys excluded), decoded.
    pub scalars: Vec<Scalar>,
    /// Why the block is not valid YAML, with where.
    pub error: Option<(usize, String)>,
}

/// The profiles a skill names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Declared {
    /// The key as written (`profiles` or `profile`), and where.
    pub key: (String, Span),
    /// Each name and where it is written.
    pub names: Vec<(String, Span)>,
}

/// One decoded string of the front matter.
#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    /// The decoded value.
    pub value: String,
    /// Where it is written in the file (quotes and block indicators included).
    pub raw: Span,
    /// Whether the raw text is the value itself, byte for byte (a plain one-line scalar).
    pub verbatim: bool,
    /// How it is written. What the raw text starts with depends on it: an opening quote,
    /// or a block header, which saphyr leaves out of the span when the header carries an
    /// indentation indicator (`>2`).
    pub style: ScalarStyle,
}

impl Scalar {
    /// The file offset of byte `offset` of the decoded value. Exact for verbatim scalars;
    /// for quoted and folded ones, found by walking the raw text alongside the value
    /// (escapes and line folds are skipped over).
    pub fn raw_offset(&self, text: &str, offset: usize) -> usize {
        if self.verbatim {
            return self.raw.start + offset.min(self.value.len());
        }
        let raw = self.raw.of(text).as_bytes();
        let value = self.value.as_bytes();
        let mut j = 0;
        // Skip the opening quote or block header, known by the style and not by the first
        // byte: a block scalar's text may itself start with a quote.
        match self.style {
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => j = 1,
            ScalarStyle::Literal | ScalarStyle::Folded
                if matches!(raw.first(), Some(b'|' | b'>')) =>
            {
                j = raw
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(raw.len(), |i| i + 1);
            }
            _ => {}
        }
        let mut i = 0;
        while i < offset.min(value.len()) && j < raw.len() {
            if raw[j] == value[i] {
                i += 1;
            }
            j += 1;
        }
        while j < raw.len() && i < value.len() && raw[j] != value[i] {
            j += 1;
        }
        // The walk is byte-wise: where the value does not follow the raw text it can stop
        // inside a character. Never split one.
        let mut at = self.raw.start + j.min(raw.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }
}

/// Decodes the YAML text at `yaml` in `text`.
pub fn decode(text: &str, yaml: Span) -> Decoded {
    let src = yaml.of(text);
    let mut out = Decoded::default();
    // saphyr reports positions in characters; map them to bytes.
    let char_to_byte: Option<Vec<usize>> = if src.is_ascii() {
        None
    } else {
        let mut v: Vec<usize> = src.char_indices().map(|(i, _)| i).collect();
        v.push(src.len());
        Some(v)
    };
    let byte = |chars: usize| -> usize {
        yaml.start
            + match &char_to_byte {
                None => chars.min(src.len()),
                Some(v) => v.get(chars).copied().unwrap_or(src.len()),
            }
    };
    enum Frame {
        Map { expect_key: bool },
        Seq,
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut top_key: Option<(String, Span)> = None;
    let mut parser = Parser::new_from_str(src);
    let mut root_checked = false;
    while let Some(next) = parser.next_event() {
        let (event, span) = match next {
            Ok(e) => e,
            Err(e) => {
                out.error = Some((byte(e.marker().index()), e.info().to_string()));
                return out;
            }
        };
        let at = Span::new(byte(span.start.index()), byte(span.end.index()));
        let depth = stack.len();
        let is_key = matches!(stack.last(), Some(Frame::Map { expect_key: true }));
        match event {
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                if depth == 0 {
                    root_checked = true;
                    if matches!(event, Event::SequenceStart(..)) {
                        out.error = Some((
                            at.start,
                            "front matter must be a mapping of keys to values, not a list".into(),
                        ));
                        return out;
                    }
                }
                if let Some(Frame::Map { expect_key }) = stack.last_mut() {
                    *expect_key = true;
                }
                if depth == 1
                    && matches!(event, Event::SequenceStart(..))
                    && let Some((k, ks)) = &top_key
                    && (k == "profiles" || k == "profile")
                {
                    out.profiles = Some(Declared {
                        key: (k.clone(), *ks),
                        names: Vec::new(),
                    });
                }
                stack.push(if matches!(event, Event::MappingStart(..)) {
                    Frame::Map { expect_key: true }
                } else {
                    Frame::Seq
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
            }
            Event::Scalar(value, style, ..) => {
                if depth == 0 {
                    root_checked = true;
                    if !value.trim().is_empty() {
                        out.error = Some((
                            at.start,
                            "front matter must be a mapping of keys to values".into(),
                        ));
                        return out;
                    }
                    continue;
                }
                if is_key {
                    if let Some(Frame::Map { expect_key }) = stack.last_mut() {
                        *expect_key = false;
                    }
                    if depth == 1 {
                        top_key = Some((value.to_string(), at));
                    }
                    continue;
                }
                if let Some(Frame::Map { expect_key }) = stack.last_mut() {
                    *expect_key = true;
                }
                let plain_null = style == ScalarStyle::Plain
                    && matches!(value.as_ref(), "" | "~" | "null" | "Null" | "NULL");
                if let Some((k, ks)) = &top_key
                    && (k == "profiles" || k == "profile")
                {
                    if depth == 1 {
                        let mut d = Declared {
                            key: (k.clone(), *ks),
                            names: Vec::new(),
                        };
                        if !plain_null {
                            d.names.push((value.to_string(), at));
                        }
                        out.profiles = Some(d);
                    } else if depth == 2
                        && matches!(stack.last(), Some(Frame::Seq))
                        && let Some(d) = &mut out.profiles
                        && !plain_null
                    {
                        d.names.push((value.to_string(), at));
                    }
                }
                if plain_null {
                    continue;
                }
                let verbatim = at.of(text) == value.as_ref();
                out.scalars.push(Scalar {
                    value: value.into_owned(),
                    raw: at,
                    verbatim,
                    style,
                });
            }
            Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd
            | Event::Alias(_)
            | Event::Nothing => {}
        }
    }
    let _ = root_checked;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fm(yaml: &str) -> (String, Decoded) {
        let text = format!("---\n{yaml}---\n");
        let d = decode(&text, Span::new(4, 4 + yaml.len()));
        (text, d)
    }

    #[test]
    fn profiles_in_every_spelling() {
        let (t, d) = fm("name: x\nprofiles: [\"implement\", refine]\n");
        let p = d.profiles.unwrap();
        assert_eq!(p.key.0, "profiles");
        let names: Vec<(&str, &str)> = p
            .names
            .iter()
            .map(|(n, s)| (n.as_str(), s.of(&t)))
            .collect();
        assert_eq!(
            names,
            [("implement", "\"implement\""), ("refine", "refine")]
        );

        let (_, d) = fm("profile: review\n");
        assert_eq!(d.profiles.unwrap().names[0].0, "review");
        let (_, d) = fm("profiles:\n  - a\n  - b\n");
        assert_eq!(d.profiles.unwrap().names.len(), 2);
        let (_, d) = fm("profiles: []\n");
        assert!(d.profiles.unwrap().names.is_empty());
        let (_, d) = fm("name: x\n");
        assert!(d.profiles.is_none());
    }

    #[test]
    fn strings_are_decoded_and_mapped_back() {
        let (t, d) = fm(
            "description: \"call f(kind=\\\"plan\\\") now\"\nother: >\n  folded f(a=\"b\")\n  text\n",
        );
        assert!(d.error.is_none(), "{:?}", d.error);
        let s = &d.scalars[0];
        assert_eq!(s.value, "call f(kind=\"plan\") now");
        let off = s.value.find("plan").unwrap();
        assert_eq!(&t[s.raw_offset(&t, off)..][..4], "plan");
        let f = &d.scalars[1];
        assert_eq!(f.value, "folded f(a=\"b\") text\n");
        let off = f.value.find("text").unwrap();
        assert_eq!(&t[f.raw_offset(&t, off)..][..4], "text");
    }

    #[test]
    fn a_block_scalar_that_starts_with_a_quote_maps_back() {
        // Found by the skill_scanner fuzz target: with an indentation indicator (`>2`) the
        // scalar's span starts at its text, here a quote, which was taken for an opening
        // quote, so every offset ran past the scalar.
        for header in [">2", ">", "|2", "|-"] {
            let (t, d) = fm(&format!(
                "summary: {header}\n  '''text\n  and mr_write(action=\"close\").\nname: x\n"
            ));
            let s = &d.scalars[0];
            let off = s.value.find("\"close").unwrap();
            assert_eq!(&t[s.raw_offset(&t, off)..][..6], "\"close", "{header}");
        }
    }

    #[test]
    fn invalid_yaml_is_an_error_with_a_place() {
        let (_, d) = fm("a: [unclosed\n");
        assert!(d.error.is_some());
        let (_, d) = fm("- a\n- b\n");
        assert!(d.error.unwrap().1.contains("mapping"));
    }
}
