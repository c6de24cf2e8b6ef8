//! `--baseline FILE`: adopt the lint on a repository that already has findings.
//!
//! The first run records today's findings in FILE; later runs report only findings that are
//! not in it. A finding is identified by its path, rule, tool, field, value and a fingerprint
//! of its call's text (white space collapsed), not by its line, so edits elsewhere in the
//! file do not bring recorded findings back. Two identical findings in one file are matched
//! as many times as they were recorded.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::finding::Finding;

/// The baseline file's format version.
pub const VERSION: u64 = 1;

/// The identity of a finding across edits.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    /// The path, as shown.
    pub path: String,
    /// The rule name.
    pub rule: String,
    /// A hash of rule, tool, field, value and the call's text.
    pub fingerprint: String,
}

/// A 64-bit FNV-1a hash, written in hex: stable across Rust versions and platforms, unlike
/// `std`'s default hasher.
fn fnv(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0u8)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The fingerprint of a finding; `text` is its file's text.
pub fn fingerprint(f: &Finding, text: &str) -> String {
    let call: String = f
        .call
        .of(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    fnv(&[
        f.rule.name(),
        f.tool.as_deref().unwrap_or(""),
        f.field.as_deref().unwrap_or(""),
        f.value.as_deref().unwrap_or(""),
        &call,
    ])
}

/// The key of a finding.
pub fn key(f: &Finding, text: &str) -> Key {
    Key {
        path: f.path.clone(),
        rule: f.rule.name().to_string(),
        fingerprint: fingerprint(f, text),
    }
}

/// Recorded findings, counted by key.
#[derive(Clone, Debug, Default)]
pub struct Baseline {
    counts: HashMap<Key, usize>,
}

impl Baseline {
    /// Reads a baseline file's text.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| format!("not a toolgate baseline: {e}"))?;
        if v.get("version").and_then(Value::as_u64) != Some(VERSION) {
            return Err(format!("not a toolgate baseline of version {VERSION}"));
        }
        let mut b = Baseline::default();
        let items = v
            .get("findings")
            .and_then(Value::as_array)
            .ok_or("not a toolgate baseline: no `findings` list")?;
        for item in items {
            let s = |k: &str| item.get(k).and_then(Value::as_str).map(str::to_string);
            let (Some(path), Some(rule), Some(fingerprint)) =
                (s("path"), s("rule"), s("fingerprint"))
            else {
                return Err("a baseline entry lacks `path`, `rule` or `fingerprint`".to_string());
            };
            *b.counts
                .entry(Key {
                    path,
                    rule,
                    fingerprint,
                })
                .or_default() += 1;
        }
        Ok(b)
    }

    /// Takes `key` out of the baseline: `true` when it was recorded (the finding is old).
    pub fn take(&mut self, key: &Key) -> bool {
        match self.counts.get_mut(key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    /// The recorded findings of one path (for a worker that lints that file).
    pub fn split_for(&mut self, path: &str) -> Baseline {
        let keys: Vec<Key> = self
            .counts
            .keys()
            .filter(|k| k.path == path)
            .cloned()
            .collect();
        let mut out = Baseline::default();
        for k in keys {
            if let Some(n) = self.counts.remove(&k) {
                out.counts.insert(k, n);
            }
        }
        out
    }
}

/// One recorded finding, for writing a baseline.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Record {
    /// Its key.
    pub key: Key,
    /// Its line, for people reading the file (not used to match).
    pub line: usize,
    /// Its message, for people.
    pub message: String,
}

/// The text of a baseline file holding `records`.
pub fn write(records: &mut [Record]) -> String {
    records.sort();
    let findings: Vec<Value> = records
        .iter()
        .map(|r| {
            json!({
                "path": r.key.path,
                "line": r.line,
                "rule": r.key.rule,
                "fingerprint": r.key.fingerprint,
                "message": r.message,
            })
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&json!({
        "version": VERSION,
        "findings": findings,
    }))
    .unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_multiset_matching() {
        let k = Key {
            path: "a/SKILL.md".into(),
            rule: "unknown-tool".into(),
            fingerprint: fnv(&["x"]),
        };
        let mut recs = vec![
            Record {
                key: k.clone(),
                line: 3,
                message: "m".into(),
            },
            Record {
                key: k.clone(),
                line: 9,
                message: "m".into(),
            },
        ];
        let text = write(&mut recs);
        let mut b = Baseline::parse(&text).unwrap();
        let mut mine = b.split_for("a/SKILL.md");
        assert!(mine.take(&k));
        assert!(mine.take(&k));
        assert!(!mine.take(&k));
        assert!(Baseline::parse("{}").is_err());
        assert_eq!(fnv(&["a", "b"]), fnv(&["a", "b"]));
        assert_ne!(fnv(&["ab", ""]), fnv(&["a", "b"]));
    }
}
