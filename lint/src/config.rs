//! `toolgate.toml`: the lint's configuration, found upward from the linted paths.
//!
//! ```toml
//! catalog = "tatara"                  # a bundled catalog, or a folder (relative to this file)
//! # manifest = "tool-manifest.json"   # or a manifest: toolgate's or tatara's format
//! include = ["**/SKILL.md", "**/.claude/agents/**/*.md"]   # the default
//! exclude = ["template/**"]
//! negation-words = ["refrain from"]   # more words that forbid a call
//!
//! [[profile-map]]                     # profiles of skills whose front matter names none
//! glob = "skills/implement/**"
//! profiles = ["implement"]
//!
//! [severity]                          # error (default), warning or off
//! unknown-profile = "warning"
//! ```
//!
//! Globs are matched against paths relative to the folder holding the file.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::rules::{Rule, Severity};

/// The file name looked for.
pub const FILE_NAME: &str = "toolgate.toml";

/// The files walked when the configuration names none.
pub const DEFAULT_INCLUDE: &[&str] = &["**/SKILL.md", "**/.claude/agents/**/*.md"];

#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct File {
    catalog: Option<String>,
    manifest: Option<String>,
    include: Option<Vec<String>>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    negation_words: Vec<String>,
    #[serde(default)]
    profile_map: Vec<MapEntry>,
    #[serde(default)]
    severity: std::collections::BTreeMap<String, String>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct MapEntry {
    glob: OneOrMany,
    profiles: OneOrMany,
}

#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

/// The configuration, checked.
#[derive(Debug)]
pub struct Config {
    /// The file it was read from (`None`: defaults).
    pub path: Option<PathBuf>,
    /// The folder globs are relative to.
    pub base: PathBuf,
    /// `catalog` as written: a bundled catalog's name, or a folder relative to [`Config::base`]
    /// ([`Config::catalog_for`] tells which).
    pub catalog: Option<String>,
    /// `manifest`, resolved against the file's folder.
    pub manifest: Option<PathBuf>,
    /// Which walked files to lint.
    pub include: GlobSet,
    /// Which to skip.
    pub exclude: GlobSet,
    /// More negation words.
    pub negation_words: Vec<String>,
    /// Path globs and the profiles they give, first match wins.
    pub profile_map: Vec<(GlobSet, Vec<String>)>,
    /// Severity per rule (`None`: off).
    pub severities: Vec<(Rule, Option<Severity>)>,
}

impl Config {
    /// `catalog` as the command line would take it: unchanged when `is_bundled` says it names
    /// a catalog the caller has built in, else a folder resolved against the file's folder.
    /// The lint knows no bundled catalog itself; the CLI does.
    pub fn catalog_for(&self, is_bundled: impl Fn(&str) -> bool) -> Option<String> {
        let c = self.catalog.as_ref()?;
        Some(if is_bundled(c) {
            c.clone()
        } else {
            self.base.join(c).display().to_string()
        })
    }

    /// The defaults, with globs relative to `base`.
    pub fn defaults(base: PathBuf) -> Config {
        Config {
            path: None,
            base,
            catalog: None,
            manifest: None,
            include: build_set(DEFAULT_INCLUDE.iter().copied())
                .unwrap_or_else(|_| GlobSet::empty()),
            exclude: GlobSet::empty(),
            negation_words: Vec::new(),
            profile_map: Vec::new(),
            severities: Rule::ALL
                .iter()
                .map(|r| (*r, Some(Severity::Error)))
                .collect(),
        }
    }

    /// Reads the configuration at `path`.
    pub fn load(path: &Path) -> Result<Config, String> {
        let shown = path.display();
        if path.is_dir() {
            return Err(format!(
                "{shown}: is a folder; --config takes a {FILE_NAME} file"
            ));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{shown}: cannot read the configuration: {e}"))?;
        Config::parse(path, &text)
    }

    /// Parses configuration text read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Config, String> {
        let shown = path.display();
        let file: File =
            toml::from_str(text).map_err(|e| format!("{shown}: {}", e.to_string().trim_end()))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let base = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir.clone()
        };
        let mut config = Config::defaults(base.clone());
        config.path = Some(path.to_path_buf());
        if file.catalog.is_some() && file.manifest.is_some() {
            return Err(format!("{shown}: give `catalog` or `manifest`, not both"));
        }
        config.catalog = file.catalog;
        config.manifest = file.manifest.map(|m| base.join(m));
        if let Some(include) = file.include {
            config.include = build_set(include.iter().map(String::as_str))
                .map_err(|e| format!("{shown}: include: {e}"))?;
        }
        config.exclude = build_set(file.exclude.iter().map(String::as_str))
            .map_err(|e| format!("{shown}: exclude: {e}"))?;
        config.negation_words = file
            .negation_words
            .iter()
            .map(|w| w.to_lowercase())
            .collect();
        for (i, entry) in file.profile_map.into_iter().enumerate() {
            let globs = entry.glob.into_vec();
            let set = build_set(globs.iter().map(String::as_str))
                .map_err(|e| format!("{shown}: profile-map[{i}]: {e}"))?;
            config.profile_map.push((set, entry.profiles.into_vec()));
        }
        for (rule, level) in file.severity {
            let Some(r) = Rule::from_name(&rule) else {
                return Err(format!(
                    "{shown}: severity: unknown rule `{rule}` (rules: {})",
                    Rule::ALL.map(Rule::name).join(", ")
                ));
            };
            let s = match level.as_str() {
                "error" => Some(Severity::Error),
                "warning" => Some(Severity::Warning),
                "off" => None,
                other => {
                    return Err(format!(
                        "{shown}: severity: `{other}` for `{rule}` is not error, warning or off"
                    ));
                }
            };
            for entry in config.severities.iter_mut() {
                if entry.0 == r {
                    entry.1 = s;
                }
            }
        }
        Ok(config)
    }

    /// The path of `path` relative to the configuration's folder, with `/` separators, as
    /// globs see it.
    pub fn relative(&self, path: &Path) -> String {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let base = std::path::absolute(&self.base).unwrap_or_else(|_| self.base.clone());
        let rel = abs
            .strip_prefix(&base)
            .map(Path::to_path_buf)
            .unwrap_or(abs);
        let s = rel.to_string_lossy().replace('\\', "/");
        s.trim_start_matches("./").to_string()
    }

    /// The profiles the mapping gives `path`, if any.
    pub fn mapped_profiles(&self, path: &Path) -> Option<&[String]> {
        if self.profile_map.is_empty() {
            return None;
        }
        let rel = self.relative(path);
        self.profile_map
            .iter()
            .find(|(set, _)| set.is_match(&rel))
            .map(|(_, p)| p.as_slice())
    }
}

fn build_set<'a>(globs: impl Iterator<Item = &'a str>) -> Result<GlobSet, String> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|e| e.to_string())?);
    }
    b.build().map_err(|e| e.to_string())
}

/// Looks for `toolgate.toml` in `start` (a folder, or a file's folder) and its parents.
pub fn find(start: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(start).ok()?;
    let mut dir = if abs.is_dir() {
        Some(abs.as_path())
    } else {
        abs.parent()
    };
    while let Some(d) = dir {
        let candidate = d.join(FILE_NAME);
        if candidate.is_file() {
            return Some(candidate);
        }
        dir = d.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_key() {
        let c = Config::parse(
            Path::new("repo/toolgate.toml"),
            "catalog = \"tatara\"\nexclude = [\"template/**\"]\nnegation-words = [\"Refrain from\"]\n[[profile-map]]\nglob = \"skills/impl/**\"\nprofiles = [\"implement\"]\n[severity]\nunknown-profile = \"warning\"\nwrong-type = \"off\"\n",
        )
        .unwrap();
        assert_eq!(c.catalog.as_deref(), Some("tatara"));
        assert_eq!(c.negation_words, ["refrain from"]);
        assert_eq!(
            c.mapped_profiles(Path::new("repo/skills/impl/x/SKILL.md")),
            Some(&["implement".to_string()][..])
        );
        assert!(c.exclude.is_match("template/SKILL.md"));
        assert!(
            c.severities
                .contains(&(Rule::UnknownProfile, Some(Severity::Warning)))
        );
        assert!(c.severities.contains(&(Rule::WrongType, None)));
    }

    #[test]
    fn errors_name_the_file_and_the_key() {
        let e = Config::parse(Path::new("t.toml"), "catalogue = 1").unwrap_err();
        assert!(e.starts_with("t.toml:") && e.contains("catalogue"), "{e}");
        let e = Config::parse(Path::new("t.toml"), "[severity]\nnope = \"off\"").unwrap_err();
        assert!(e.contains("unknown rule `nope`"), "{e}");
        let e =
            Config::parse(Path::new("t.toml"), "catalog = \"a\"\nmanifest = \"b\"").unwrap_err();
        assert!(e.contains("not both"), "{e}");
    }

    #[test]
    fn default_includes() {
        let c = Config::defaults(PathBuf::from("."));
        assert!(c.include.is_match("SKILL.md"));
        assert!(c.include.is_match("a/b/SKILL.md"));
        assert!(c.include.is_match(".claude/agents/x.md"));
        assert!(!c.include.is_match("README.md"));
    }
}
