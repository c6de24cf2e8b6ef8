//! `--tokens FILE`: bearer tokens mapped to the profile (or capability combination) their
//! sessions are served.
//!
//! ```toml
//! [tokens]
//! "tok-review-7f3a" = "review"
//! "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" = "refine"
//! "tok-maetra" = ["secure", "govern"]
//! ```
//!
//! A key `sha256:<64 hex digits>` stands for the token whose SHA-256 is that digest, so the
//! file need not hold secrets. Every token is kept only as its digest; a presented token is
//! hashed and compared with every entry in constant time (no early exit on the first
//! differing byte, no early exit on the first match). Tokens are never logged.

use sha2::{Digest, Sha256};

/// A SHA-256 digest.
pub type TokenDigest = [u8; 32];

/// The bearer tokens of a `--tokens` file, each with the profile selector value it grants.
#[derive(Clone)]
pub struct TokenTable {
    entries: Vec<(TokenDigest, String)>,
}

impl std::fmt::Debug for TokenTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the digests: a debug print must not help anyone match a token.
        write!(f, "TokenTable({} tokens)", self.entries.len())
    }
}

/// The SHA-256 of a token.
pub fn digest(token: &str) -> TokenDigest {
    Sha256::digest(token.as_bytes()).into()
}

/// Byte-wise equality that takes the same time wherever the inputs differ. Written here
/// because it is four lines; a crate (`subtle`) would add a dependency for them.
fn constant_time_eq(a: &TokenDigest, b: &TokenDigest) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    diff == 0
}

/// The 32 bytes of 64 hexadecimal digits; `None` for anything else.
fn parse_hex_digest(hex: &str) -> Option<TokenDigest> {
    if hex.len() != 64 || !hex.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// The digest a `[tokens]` key stands for: a `sha256:<hex>` key's digest, any other
/// (non-empty) key's own SHA-256; else why not, without the token.
fn key_digest(key: &str) -> Result<TokenDigest, &'static str> {
    match key.strip_prefix("sha256:") {
        Some(hex) => parse_hex_digest(hex).ok_or("a `sha256:` key needs 64 hexadecimal digits"),
        None if key.is_empty() => Err("an empty token"),
        None => Ok(digest(key)),
    }
}

/// The profile selector value a token grants: a name, or an array of names joined with
/// commas (a combination); else why not.
fn grant_of(value: &toml::Value) -> Result<String, &'static str> {
    match value {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Array(items) => items
            .iter()
            .map(|v| v.as_str())
            .collect::<Option<Vec<&str>>>()
            .map(|names| names.join(","))
            .ok_or("a combination is an array of profile names"),
        _ => Err("the value must be a profile name or an array of them"),
    }
}

impl TokenTable {
    /// Reads a `--tokens` file's text: a `[tokens]` table of token (or `sha256:<hex>`) to a
    /// profile name, a comma-separated combination, or an array of profile names. Every
    /// problem is reported, each naming its key's position in the file, never the token.
    pub fn parse(text: &str) -> Result<TokenTable, Vec<String>> {
        // The parser's own rendering quotes the offending line, which may hold a token:
        // only its message and line number are reported.
        let doc: toml::Table = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            vec![match line {
                Some(line) => format!("line {line}: {}", e.message()),
                None => e.message().to_string(),
            }]
        })?;
        let mut errors = Vec::new();
        for key in doc.keys().filter(|k| *k != "tokens") {
            errors.push(format!("unknown table or key `{key}` (only `[tokens]`)"));
        }
        let Some(tokens) = doc.get("tokens") else {
            errors.push("no `[tokens]` table".to_string());
            return Err(errors);
        };
        let Some(tokens) = tokens.as_table() else {
            errors.push("`tokens` must be a table".to_string());
            return Err(errors);
        };
        let mut entries: Vec<(TokenDigest, String)> = Vec::new();
        for (i, (key, value)) in tokens.iter().enumerate() {
            let n = i + 1;
            let entry = key_digest(key).and_then(|d| grant_of(value).map(|grant| (d, grant)));
            match entry {
                Err(why) => errors.push(format!("token #{n}: {why}")),
                Ok((_, grant)) if grant.trim().is_empty() => {
                    errors.push(format!("token #{n}: an empty profile"));
                }
                Ok((digest, _)) if entries.iter().any(|(d, _)| constant_time_eq(d, &digest)) => {
                    errors.push(format!("token #{n}: the same token twice"));
                }
                Ok(entry) => entries.push(entry),
            }
        }
        if entries.is_empty() && errors.is_empty() {
            errors.push("`[tokens]` maps no token".to_string());
        }
        if errors.is_empty() {
            Ok(TokenTable { entries })
        } else {
            Err(errors)
        }
    }

    /// The distinct profile selector values granted, sorted.
    pub fn grants(&self) -> Vec<&str> {
        let mut grants: Vec<&str> = self.entries.iter().map(|(_, g)| g.as_str()).collect();
        grants.sort_unstable();
        grants.dedup();
        grants
    }

    /// The grant of a presented token and its digest, or `None`. Every entry is compared,
    /// whatever matched.
    pub fn grant_for(&self, token: &str) -> Option<(&str, TokenDigest)> {
        let presented = digest(token);
        let mut found = None;
        for (d, grant) in &self.entries {
            if constant_time_eq(d, &presented) {
                found = Some(grant.as_str());
            }
        }
        found.map(|g| (g, presented))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_their_hashes_grant_profiles() {
        let hashed = format!("sha256:{}", hex(&digest("secret-two")));
        let t = TokenTable::parse(&format!(
            "[tokens]\n\"secret-one\" = \"review\"\n\"{hashed}\" = \"refine\"\n\"m\" = [\"secure\", \"govern\"]\n"
        ))
        .expect("parses");
        assert_eq!(t.grant_for("secret-one").map(|g| g.0), Some("review"));
        assert_eq!(t.grant_for("secret-two").map(|g| g.0), Some("refine"));
        assert_eq!(t.grant_for("m").map(|g| g.0), Some("secure,govern"));
        assert_eq!(t.grant_for("secret-on"), None);
        assert_eq!(t.grant_for(""), None);
        assert_eq!(t.grants(), ["refine", "review", "secure,govern"]);
        assert!(!format!("{t:?}").contains("secret"));
    }

    #[test]
    fn bad_files_are_refused_without_showing_tokens() {
        for (text, want) in [
            ("", "no `[tokens]` table"),
            ("[tokens]\n", "maps no token"),
            (
                "[tokens]\n\"sha256:abc\" = \"review\"\n",
                "64 hexadecimal digits",
            ),
            ("[tokens]\n\"hunter2\" = 3\n", "must be a profile name"),
            ("[tokens]\n\"hunter2\" = \"\"\n", "an empty profile"),
            ("[tokenz]\n", "unknown table or key `tokenz`"),
        ] {
            let errors = TokenTable::parse(text).expect_err(text);
            assert!(
                errors.iter().any(|e| e.contains(want)),
                "{text}: {errors:?}"
            );
            assert!(!errors.iter().any(|e| e.contains("hunter2")), "{errors:?}");
        }
    }

    fn hex(d: &TokenDigest) -> String {
        d.iter().map(|b| format!("{b:02x}")).collect()
    }
}
