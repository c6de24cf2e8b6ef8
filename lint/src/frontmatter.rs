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
    simple(text, yaml).unwrap_or_else(|| decode_yaml(text, yaml))
}

/// Decodes front matter written in the plainest form, which nearly every skill uses: one
/// `key: value` per line, the value a plain one-line scalar, a double-quoted string without
/// escapes, or a one-line list of such strings and simple words (`["implement", review]`).
/// It gives what [`decode_yaml`] gives, spans included (a test holds them equal on every
/// fixture, on the real corpus and on generated front matter), and `None` for anything
/// else, which saphyr then reads. Hand-written because a YAML parse is about 30,000
/// instructions for a 200-byte front matter, more than the rest of a file's lint on
/// average; what this accepts is deliberately far narrower than YAML.
fn simple(text: &str, yaml: Span) -> Option<Decoded> {
    let src = text.get(yaml.range())?;
    let mut out = Decoded::default();
    let mut start = 0;
    while start < src.len() {
        let end = src[start..].find('\n').map_or(src.len(), |i| start + i);
        simple_line(src, start, end, yaml.start, &mut out)?;
        start = end + 1;
    }
    Some(out)
}

/// Reads the line `src[start..end]` (of YAML starting at `base` in the file) into `out`.
fn simple_line(src: &str, start: usize, end: usize, base: usize, out: &mut Decoded) -> Option<()> {
    let line = &src[start..end];
    let bytes = line.as_bytes();
    let first = *bytes.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let key_len = bytes
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))?;
    if !line[key_len..].starts_with(": ") {
        return None;
    }
    let key = &line[..key_len];
    let key_span = Span::new(base + start, base + start + key_len);
    let value_at = key_len + 2;
    let value = &line[value_at..];
    let at = |from: usize, to: usize| Span::new(base + start + from, base + start + to);
    let profiles_key = key == "profiles" || key == "profile";
    if let Some(list) = value.strip_prefix('[') {
        let inner = list.strip_suffix(']')?;
        let inner_at = value_at + 1;
        if profiles_key {
            out.profiles = Some(Declared {
                key: (key.to_string(), key_span),
                names: Vec::new(),
            });
        }
        if inner.bytes().all(|b| b == b' ') {
            return Some(());
        }
        let mut from = 0;
        for item in inner.split(',') {
            let lead = item.len() - item.trim_start_matches(' ').len();
            let word = item.trim_matches(' ');
            let item_at = inner_at + from + lead;
            from += item.len() + 1;
            let (value, style, span) = simple_scalar(word, true)?;
            let span = at(item_at + span.start, item_at + span.end);
            push_simple(
                out,
                value,
                style,
                span,
                profiles_key,
                text_of(src, base, span),
            )?;
        }
        return Some(());
    }
    let (value, style, span) = simple_scalar(value, false)?;
    let span = at(value_at + span.start, value_at + span.end);
    if profiles_key {
        let mut d = Declared {
            key: (key.to_string(), key_span),
            names: Vec::new(),
        };
        if !is_plain_null(value, style) {
            d.names.push((value.to_string(), span));
        }
        out.profiles = Some(d);
    }
    push_simple(out, value, style, span, false, text_of(src, base, span))
}

fn text_of(src: &str, base: usize, span: Span) -> &str {
    src.get(span.start - base..span.end - base).unwrap_or("")
}

/// A value [`simple`] reads: a double-quoted string without escapes, or a plain scalar that
/// cannot be anything else (no indicator first, no `: `, `#`, tab or control character, no
/// space at either end; in a list, only a simple word); with its style and its span within
/// `raw`, quotes included.
fn simple_scalar(raw: &str, in_list: bool) -> Option<(&str, ScalarStyle, Span)> {
    if let Some(rest) = raw.strip_prefix('"') {
        let content = rest.strip_suffix('"')?;
        if content.contains(['"', '\\']) || !content.chars().all(simple_char) {
            return None;
        }
        return Some((content, ScalarStyle::DoubleQuoted, Span::new(0, raw.len())));
    }
    let first = raw.chars().next()?;
    let ok = if in_list {
        raw.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
            && (first.is_ascii_alphanumeric() || first == '_')
    } else {
        !first.is_whitespace()
            && !"-?:,[]{}#&*!|>'\"%@`".contains(first)
            && !raw.contains(": ")
            && !raw.contains('#')
            && !raw.ends_with([':', ' '])
            && raw.chars().all(simple_char)
    };
    ok.then_some((raw, ScalarStyle::Plain, Span::new(0, raw.len())))
}

/// A character a simple scalar may hold: printable, and never one YAML reads as a break,
/// a tab or a byte order mark.
fn simple_char(c: char) -> bool {
    !(c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        ))
}

fn is_plain_null(value: &str, style: ScalarStyle) -> bool {
    style == ScalarStyle::Plain && matches!(value, "" | "~" | "null" | "Null" | "NULL")
}

/// Records a string value as [`decode_yaml`] does (a plain null is no string; a list item
/// under `profiles` is a profile name too).
fn push_simple(
    out: &mut Decoded,
    value: &str,
    style: ScalarStyle,
    span: Span,
    profile_item: bool,
    raw: &str,
) -> Option<()> {
    if is_plain_null(value, style) {
        return Some(());
    }
    if profile_item && let Some(d) = &mut out.profiles {
        d.names.push((value.to_string(), span));
    }
    out.scalars.push(Scalar {
        value: value.to_string(),
        raw: span,
        verbatim: raw == value,
        style,
    });
    Some(())
}

/// Decodes the YAML text at `yaml` in `text` with saphyr.
fn decode_yaml(text: &str, yaml: Span) -> Decoded {
    let mut reader = YamlReader::new(text, yaml);
    let mut parser = Parser::new_from_str(yaml.of(text));
    while let Some(next) = parser.next_event() {
        let step = match next {
            Ok((event, span)) => {
                let at = Span::new(
                    reader.byte(span.start.index()),
                    reader.byte(span.end.index()),
                );
                reader.event(event, at)
            }
            Err(e) => Err((reader.byte(e.marker().index()), e.info().to_string())),
        };
        if let Err(error) = step {
            reader.out.error = Some(error);
            return reader.out;
        }
    }
    reader.out
}

/// Where [`YamlReader`] is: in a mapping (expecting a key or a value) or a sequence.
enum Frame {
    Map { expect_key: bool },
    Seq,
}

/// What [`decode_yaml`] keeps between saphyr's events: the open collections, the last
/// top-level key, and what is decoded so far.
struct YamlReader<'t> {
    text: &'t str,
    yaml: Span,
    /// saphyr reports positions in characters: each character's byte offset in the YAML
    /// text (`None` when it is ASCII, where they are the same).
    char_to_byte: Option<Vec<usize>>,
    stack: Vec<Frame>,
    top_key: Option<(String, Span)>,
    out: Decoded,
}

/// Why a front matter is not valid YAML (or not a mapping), with where.
type YamlError = (usize, String);

impl<'t> YamlReader<'t> {
    /// Nothing read yet of the YAML at `yaml`.
    fn new(text: &'t str, yaml: Span) -> YamlReader<'t> {
        let src = yaml.of(text);
        let char_to_byte = if src.is_ascii() {
            None
        } else {
            let mut v: Vec<usize> = src.char_indices().map(|(i, _)| i).collect();
            v.push(src.len());
            Some(v)
        };
        YamlReader {
            text,
            yaml,
            char_to_byte,
            stack: Vec::new(),
            top_key: None,
            out: Decoded::default(),
        }
    }

    /// The byte offset in the file of saphyr's character offset `chars`.
    fn byte(&self, chars: usize) -> usize {
        let len = self.yaml.of(self.text).len();
        self.yaml.start
            + match &self.char_to_byte {
                None => chars.min(len),
                Some(v) => v.get(chars).copied().unwrap_or(len),
            }
    }

    /// One event, at `at`.
    fn event(&mut self, event: Event<'_>, at: Span) -> Result<(), YamlError> {
        match event {
            Event::MappingStart(..) => self.open(false, at),
            Event::SequenceStart(..) => self.open(true, at),
            Event::MappingEnd | Event::SequenceEnd => {
                self.stack.pop();
                Ok(())
            }
            Event::Scalar(value, style, ..) => self.scalar(value, style, at),
            Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd
            | Event::Alias(_)
            | Event::Nothing => Ok(()),
        }
    }

    /// A mapping or (`seq`) a sequence opens: the root must be a mapping; a sequence under
    /// `profiles:` is the profile declaration.
    fn open(&mut self, seq: bool, at: Span) -> Result<(), YamlError> {
        let depth = self.stack.len();
        if depth == 0 && seq {
            return Err((
                at.start,
                "front matter must be a mapping of keys to values, not a list".into(),
            ));
        }
        if let Some(Frame::Map { expect_key }) = self.stack.last_mut() {
            *expect_key = true;
        }
        if depth == 1
            && seq
            && let Some((k, ks)) = &self.top_key
            && (k == "profiles" || k == "profile")
        {
            self.out.profiles = Some(Declared {
                key: (k.clone(), *ks),
                names: Vec::new(),
            });
        }
        self.stack.push(if seq {
            Frame::Seq
        } else {
            Frame::Map { expect_key: true }
        });
        Ok(())
    }

    /// A scalar: a key (the top-level one remembered), or a value, kept as a string of the
    /// front matter (plain nulls left out) and, under `profiles:`, as a profile name.
    fn scalar(
        &mut self,
        value: std::borrow::Cow<'_, str>,
        style: ScalarStyle,
        at: Span,
    ) -> Result<(), YamlError> {
        let depth = self.stack.len();
        if depth == 0 {
            if !value.trim().is_empty() {
                return Err((
                    at.start,
                    "front matter must be a mapping of keys to values".into(),
                ));
            }
            return Ok(());
        }
        if let Some(Frame::Map { expect_key }) = self.stack.last_mut() {
            let was_key = *expect_key;
            *expect_key = !was_key;
            if was_key {
                if depth == 1 {
                    self.top_key = Some((value.to_string(), at));
                }
                return Ok(());
            }
        }
        let plain_null = style == ScalarStyle::Plain
            && matches!(value.as_ref(), "" | "~" | "null" | "Null" | "NULL");
        self.profile_value(&value, at, plain_null);
        if plain_null {
            return Ok(());
        }
        let verbatim = at.of(self.text) == value.as_ref();
        self.out.scalars.push(Scalar {
            value: value.into_owned(),
            raw: at,
            verbatim,
            style,
        });
        Ok(())
    }

    /// A value under the top-level key `profiles:` (or `profile:`): the one name, or an
    /// item of its list.
    fn profile_value(&mut self, value: &str, at: Span, plain_null: bool) {
        let depth = self.stack.len();
        let Some((k, ks)) = &self.top_key else {
            return;
        };
        if k != "profiles" && k != "profile" {
            return;
        }
        if depth == 1 {
            let mut d = Declared {
                key: (k.clone(), *ks),
                names: Vec::new(),
            };
            if !plain_null {
                d.names.push((value.to_string(), at));
            }
            self.out.profiles = Some(d);
        } else if depth == 2
            && matches!(self.stack.last(), Some(Frame::Seq))
            && let Some(d) = &mut self.out.profiles
            && !plain_null
        {
            d.names.push((value.to_string(), at));
        }
    }
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

    /// The two decoders, side by side: `simple` either declines or gives what saphyr gives.
    fn agrees(yaml: &str) -> bool {
        let text = format!("---\n{yaml}---\nbody\n");
        let span = Span::new(4, 4 + yaml.len());
        let Some(fast) = simple(&text, span) else {
            return false;
        };
        let full = decode_yaml(&text, span);
        assert_eq!(format!("{fast:?}"), format!("{full:?}"), "for {yaml:?}");
        true
    }

    #[test]
    fn the_simple_reading_is_saphyrs() {
        for yaml in [
            "name: x\ndescription: Calls f(a=\"b\") and more, [really] {yes}.\nprofiles: [\"implement\", refine]\n",
            "profile: review\n",
            "profiles: []\n",
            "profiles: [ ]\n",
            "profiles: [\"*\"]\n",
            "profiles: null\nname: ~\n",
            "profiles: [null, a]\n",
            "description: \"Quoted: with a colon # and a hash\"\n",
            "description: Consignes en français — une ligne.\n",
            "tools: [Read, Grep, mcp__github__get_me]\n",
            "url: https://example.com/x\n",
            "",
        ] {
            assert!(agrees(yaml), "declined {yaml:?}");
        }
        // Declined, for saphyr: what YAML reads in more than one way.
        for yaml in [
            "a:  two spaces\n",
            "a: b: c\n",
            "a: b # comment\n",
            "a: 'single'\n",
            "a: \"esc\\\"aped\"\n",
            "a: |\n  block\n",
            "a:\n  - x\n",
            "a: x\n  more\n",
            "- a\n",
            "a: [b, ]\n",
            "a: *alias\n",
            "a: x\r\n",
            "\n",
        ] {
            assert!(!agrees(yaml), "accepted {yaml:?}");
        }
    }

    /// Every fixture's front matter, and the real corpus's when `../shared` is here.
    #[test]
    fn the_simple_reading_is_saphyrs_on_real_files() {
        fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let p = e.path();
                if p.is_dir() {
                    files(&p, out);
                } else if p.extension().is_some_and(|x| x == "md") {
                    out.push(p);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut all = Vec::new();
        files(&root.join("skills-fixtures"), &mut all);
        for shared in ["../shared/anchors/tatara", "../shared/anchors/wild-agents"] {
            if root.join(shared).is_dir() {
                files(&root.join(shared), &mut all);
            } else {
                eprintln!("skipped {shared}: not here");
            }
        }
        let mut simple_ones = 0;
        for f in &all {
            let Ok(text) = std::fs::read_to_string(f) else {
                continue;
            };
            if let Some(fm) = crate::scan::front_matter(&text)
                && let Some(fast) = simple(&text, fm.yaml)
            {
                let full = decode_yaml(&text, fm.yaml);
                assert_eq!(format!("{fast:?}"), format!("{full:?}"), "{}", f.display());
                simple_ones += 1;
            }
        }
        assert!(simple_ones > 10, "only {simple_ones} simple front matters");
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 3000, ..Default::default() })]
        /// Front matter made of lines close to the simple form (keys, plain and quoted
        /// values with YAML's special characters, lists): wherever `simple` reads one, it
        /// reads it as saphyr does.
        #[test]
        fn generated_front_matter_agrees(lines in proptest::collection::vec(line(), 0..5)) {
            agrees(&lines.concat());
        }
    }

    fn line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let word = proptest::string::string_regex("[a-z_][a-z0-9_-]{0,6}").unwrap();
        let chars = || {
            proptest::string::string_regex("[a-zA-Z0-9 :#,\\[\\]{}'\"*&!|>%@`?.~/\\\\é—\\t-]{0,12}")
                .unwrap()
        };
        let item = prop_oneof![
            chars().prop_map(|c| format!("\"{c}\"")),
            chars(),
            Just("null".to_string()),
        ];
        let value = prop_oneof![
            chars(),
            chars().prop_map(|c| format!("\"{c}\"")),
            proptest::collection::vec(item, 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            Just("~".to_string()),
        ];
        let key = prop_oneof![
            word,
            Just("profiles".to_string()),
            Just("profile".to_string())
        ];
        (key, value).prop_map(|(k, v)| format!("{k}: {v}\n"))
    }

    #[test]
    fn invalid_yaml_is_an_error_with_a_place() {
        let (_, d) = fm("a: [unclosed\n");
        assert!(d.error.is_some());
        let (_, d) = fm("- a\n- b\n");
        assert!(d.error.unwrap().1.contains("mapping"));
    }
}
