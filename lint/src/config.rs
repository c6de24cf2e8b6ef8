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
//!
//! [servers.github]                    # more surfaces, each under its hosts' prefixes
//! tools_list = "captured.json"        # or catalog = "...", or manifest = "..."
//! prefixes = ["mcp__github__", "github/"]   # default: see `servers::default_prefixes`
//! removed = ["enable_toolset"]        # tools gone without a replacement
//! [servers.github.formerly]           # renames the surface cannot declare itself
//! get_issue = { tool = "issue_read", set = { method = "get" } }
//! write_label = "label_write"
//! [servers.github.formerly.fields.list_issues]   # field renames, as a catalog's
//! perPage = ["per_page"]              # `formerly.fields`: new name = [former names]
//!
//! [[audit.allow]]                     # `toolgate audit`: a finding allowed on one tool
//! rule = "exfiltration-target"
//! tool = "report_status"
//! server = "status"                   # optional: that server's tool only
//! reason = "posts to our own status page, by design"   # required
//! ```
//!
//! Unprefixed names belong to the server `unprefixed = "NAME"` names; by default the only
//! server when there is one. The top-level `catalog` / `manifest` is such a server.
//!
//! Globs are matched against paths relative to the folder holding the file.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::rules::{Rule, Severity};
use crate::servers::{FieldRenames, Rename, ServerSpec, Source};

/// The file name looked for.
pub const FILE_NAME: &str = "toolgate.toml";

/// The files walked when the configuration names none: what hosts read as agent
/// instructions (skills, Claude Code agents, commands, rules, memory files and settings,
/// plugin folders, VS Code's custom agents, chat modes, prompt and instruction files,
/// AGENTS.md, CLAUDE.md), and the host configurations whose tool lists choose a server's
/// tools (Codex, Gemini CLI, opencode, Roo Code); docs/lint.md cites where each host documents them.
pub const DEFAULT_INCLUDE: &[&str] = &[
    "**/SKILL.md",
    "**/skills/**/*.md",
    "**/.claude/agents/**/*.md",
    "**/.claude/commands/**/*.md",
    "**/.claude/skills/**/*.md",
    "**/.claude/settings.json",
    "**/.claude/settings.local.json",
    "**/agents/*.md",
    "**/commands/**/*.md",
    "**/.claude/rules/**/*.md",
    "**/.github/agents/*.agent.md",
    "**/.github/chatmodes/*.chatmode.md",
    "**/.github/prompts/*.prompt.md",
    "**/.github/instructions/**/*.instructions.md",
    "**/.github/copilot-instructions.md",
    "**/AGENTS.md",
    "**/CLAUDE.md",
    "**/CLAUDE.local.md",
    "**/.codex/config.toml",
    "**/.gemini/settings.json",
    "**/opencode.json",
    "**/opencode.jsonc",
    "**/.roo/mcp.json",
];

/// The default includes as one regular expression in the syntax pre-commit's `files:` uses
/// (Python's `re`, searched in a path relative to the repository): `.pre-commit-hooks.yaml`
/// holds exactly this, and a test keeps the two equal. Only the glob forms the defaults use
/// are translated: a leading `**/`, `/**/`, `*` and literal text.
pub fn include_pattern(globs: &[&str]) -> String {
    let alternatives: Vec<String> = globs
        .iter()
        .map(|g| {
            let g = g.strip_prefix("**/").unwrap_or(g);
            let mut out = String::new();
            let mut rest = g;
            while !rest.is_empty() {
                if let Some(r) = rest.strip_prefix("**/") {
                    out.push_str("(.+/)?");
                    rest = r;
                } else if let Some(r) = rest.strip_prefix('*') {
                    out.push_str("[^/]*");
                    rest = r;
                } else {
                    let c = rest.chars().next().unwrap_or_default();
                    if ".+?()[]{}|^$\\".contains(c) {
                        out.push('\\');
                    }
                    out.push(c);
                    rest = &rest[c.len_utf8()..];
                }
            }
            out
        })
        .collect();
    format!("(^|/)({})$", alternatives.join("|"))
}

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
    #[serde(default)]
    servers: std::collections::BTreeMap<String, ServerFile>,
    unprefixed: Option<String>,
    discover: Option<bool>,
    #[serde(default)]
    audit: AuditFile,
}

/// `[audit]`: the audit's findings allowed, each for one tool and with a reason.
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct AuditFile {
    #[serde(default)]
    allow: Vec<AllowFile>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct AllowFile {
    rule: String,
    tool: String,
    server: Option<String>,
    reason: Option<String>,
}

/// One `[[audit.allow]]`: the findings of `rule` on `tool` (of `server`, when given) are
/// not reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditAllow {
    /// The audit rule's name.
    pub rule: String,
    /// The tool's name, exactly.
    pub tool: String,
    /// The server (a lock's key), when the allow is for one server's tool only.
    pub server: Option<String>,
    /// Why it is allowed (required).
    pub reason: String,
}

impl AuditAllow {
    /// Whether this allow covers a finding of `rule` on `tool` of `server`.
    pub fn covers(&self, rule: &str, tool: &str, server: Option<&str>) -> bool {
        self.rule == rule
            && self.tool == tool
            && self.server.as_deref().is_none_or(|s| Some(s) == server)
    }
}

/// The `[[audit.allow]]` entries, each checked: a known rule (`is_rule`) and a reason.
fn audit_allows(
    shown: &str,
    file: AuditFile,
    is_rule: &dyn Fn(&str) -> bool,
) -> Result<Vec<AuditAllow>, String> {
    let mut out = Vec::new();
    for (i, a) in file.allow.into_iter().enumerate() {
        let at = format!("{shown}: audit.allow[{i}]");
        if !is_rule(&a.rule) {
            return Err(format!(
                "{at}: unknown audit rule `{}` (`toolgate explain` lists them)",
                a.rule
            ));
        }
        let reason = a.reason.map(|r| r.trim().to_string()).unwrap_or_default();
        if reason.is_empty() {
            return Err(format!(
                "{at}: allowing `{}` on `{}` needs a `reason` (say why the finding is not a danger)",
                a.rule, a.tool
            ));
        }
        out.push(AuditAllow {
            rule: a.rule,
            tool: a.tool,
            server: a.server,
            reason,
        });
    }
    Ok(out)
}

#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
struct ServerFile {
    catalog: Option<String>,
    manifest: Option<String>,
    tools_list: Option<String>,
    prefixes: Option<Vec<String>>,
    #[serde(default)]
    formerly: std::collections::BTreeMap<String, RenameFile>,
    #[serde(default)]
    removed: Vec<String>,
}

#[derive(Deserialize, Debug)]
#[serde(untagged)]
enum RenameFile {
    Tool(String),
    Set {
        tool: String,
        #[serde(default)]
        set: toml::Table,
    },
    /// The reserved key `fields`: per tool, each field's former names.
    Fields(std::collections::BTreeMap<String, std::collections::BTreeMap<String, Vec<String>>>),
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
    /// The `[servers.NAME]` tables, sorted by name.
    pub servers: Vec<ServerSpec>,
    /// The server unprefixed names belong to (`unprefixed`, or the only server).
    pub unprefixed: Option<String>,
    /// Whether the servers the repository's host configurations name are linted against,
    /// with their surfaces from `toolgate.lock` (`discover`, default true).
    pub discover: bool,
    /// `[[audit.allow]]`: the audit's findings allowed, each with its reason.
    pub audit_allows: Vec<AuditAllow>,
    /// `base` made absolute, and the `base` it was made from ([`Config::relative`] runs for
    /// every walked file).
    absolute_base: std::sync::OnceLock<(PathBuf, PathBuf)>,
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
                .map(|r| (*r, r.default_severity()))
                .collect(),
            servers: Vec::new(),
            unprefixed: None,
            discover: true,
            audit_allows: Vec::new(),
            absolute_base: std::sync::OnceLock::new(),
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
        config.discover = file.discover.unwrap_or(true);
        let is_rule = |r: &str| toolgate_schema::audit::rule(r).is_some();
        config.audit_allows = audit_allows(&shown.to_string(), file.audit, &is_rule)?;
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
        for (name, server) in file.servers {
            config.servers.push(
                server_spec(&base, &name, server)
                    .map_err(|e| format!("{shown}: servers.{name}: {e}"))?,
            );
        }
        config.unprefixed = match file.unprefixed {
            Some(u) if !config.servers.iter().any(|s| s.name == u) => {
                return Err(format!(
                    "{shown}: unprefixed: `{u}` is not a `[servers.NAME]` table"
                ));
            }
            Some(u) => Some(u),
            None if config.servers.len() == 1
                && config.catalog.is_none()
                && config.manifest.is_none() =>
            {
                config.servers.first().map(|s| s.name.clone())
            }
            None => None,
        };
        Ok(config)
    }

    /// The unprefixed server's table, when it is one of `servers` (not the top-level
    /// `catalog` / `manifest`).
    pub fn unprefixed_server(&self) -> Option<&ServerSpec> {
        let name = self.unprefixed.as_deref()?;
        self.servers.iter().find(|s| s.name == name)
    }

    /// The lint settings this configuration gives: negation words, severities, and the
    /// unprefixed server's name, prefixes and removed tools.
    pub fn settings(&self) -> crate::lint::Settings {
        let server = self.unprefixed_server();
        crate::lint::Settings {
            negation_words: self.negation_words.clone(),
            severities: self.severities.clone(),
            server: server.map(|s| s.name.clone()),
            prefixes: server.map(|s| s.prefixes.clone()),
            removed: server.map(|s| s.removed.clone()).unwrap_or_default(),
        }
    }

    /// Loads the unprefixed server's surface, when it is a `[servers.NAME]` table (`None`
    /// when the top-level `catalog` / `manifest` is the surface, or there is none).
    pub fn load_unprefixed(
        &self,
        bundled: crate::servers::Bundled<'_>,
    ) -> Option<Result<toolgate_schema::Surface, String>> {
        self.unprefixed_server()
            .map(|s| crate::servers::load(s, bundled))
    }

    /// Loads every other server's surface, for [`crate::Linter::add_server`].
    pub fn load_other_servers(
        &self,
        bundled: crate::servers::Bundled<'_>,
    ) -> Result<Vec<(ServerSpec, toolgate_schema::Surface)>, String> {
        let main = self.unprefixed.as_deref();
        self.servers
            .iter()
            .filter(|s| Some(s.name.as_str()) != main)
            .map(|s| crate::servers::load(s, bundled).map(|surface| (s.clone(), surface)))
            .collect()
    }

    /// The path of `path` relative to the configuration's folder, with `/` separators, as
    /// globs see it.
    pub fn relative(&self, path: &Path) -> String {
        // Both relative (to the current folder) and one inside the other: no need to ask the
        // system for the current folder, once per walked file.
        let lexical = (path.is_relative() && self.base.is_relative())
            .then(|| {
                let base = self.base.strip_prefix(".").unwrap_or(&self.base);
                let p = path.strip_prefix(".").unwrap_or(path);
                p.strip_prefix(base).ok()
            })
            .flatten();
        let rel = match lexical.or_else(|| self.relative_to_absolute_base(path)) {
            Some(r) => r.to_path_buf(),
            None => {
                let abs = absolute(path);
                let base = absolute(&self.base);
                abs.strip_prefix(&base)
                    .map(Path::to_path_buf)
                    .unwrap_or(abs)
            }
        };
        let s = rel.to_string_lossy().replace('\\', "/");
        s.trim_start_matches("./").to_string()
    }

    /// What `absolute(path)` stripped of `absolute(base)` is, worked out without building
    /// `absolute(path)`, for a relative `path` without `..` under the current folder when the
    /// absolute base is there too: `path` (its `./` dropped) stripped of the base's part
    /// below the current folder. `None` when that does not apply or does not strip.
    fn relative_to_absolute_base<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        if !path.is_relative()
            || path
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            return None;
        }
        let cwd = current_dir()?;
        let cached = self
            .absolute_base
            .get_or_init(|| (self.base.clone(), absolute(&self.base)));
        let base = if cached.0 == self.base {
            std::borrow::Cow::Borrowed(&cached.1)
        } else {
            std::borrow::Cow::Owned(absolute(&self.base))
        };
        let below = base.strip_prefix(cwd).ok()?;
        let p = path.strip_prefix(".").unwrap_or(path);
        p.strip_prefix(below).ok()
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

fn server_spec(base: &Path, name: &str, f: ServerFile) -> Result<ServerSpec, String> {
    let source = match (f.catalog, f.manifest, f.tools_list) {
        (Some(c), None, None) => Source::Catalog(c),
        (None, Some(m), None) => Source::Manifest(base.join(m)),
        (None, None, Some(t)) => Source::ToolsList(base.join(t)),
        (None, None, None) => Source::Locked,
        _ => return Err("give one of `catalog`, `manifest` or `tools_list`, not two".to_string()),
    };
    let prefixes = f
        .prefixes
        .unwrap_or_else(|| crate::servers::default_prefixes(name));
    if let Some(p) = prefixes
        .iter()
        .find(|p| p.is_empty() || p.matches('*').count() > 1)
    {
        return Err(format!("prefixes: `{p}` is empty or has more than one `*`"));
    }
    let mut renames = Vec::new();
    let mut field_renames = Vec::new();
    for (old, r) in f.formerly {
        let (new, set) = match (old.as_str(), r) {
            ("fields", RenameFile::Fields(tools)) => {
                for (tool, fields) in tools {
                    field_renames.push(FieldRenames {
                        tool,
                        fields: fields.into_iter().collect(),
                    });
                }
                continue;
            }
            ("fields", _) => {
                return Err(
                    "formerly.fields: give a table per tool, `new_field = [\"old_field\"]`"
                        .to_string(),
                );
            }
            (_, RenameFile::Fields(_)) => {
                return Err(format!(
                    "formerly.{old}: give the new tool name, or `{{ tool = \"...\", set = {{ ... }} }}`"
                ));
            }
            (_, RenameFile::Tool(t)) => (t, Vec::new()),
            (_, RenameFile::Set { tool, set }) => (
                tool,
                set.iter()
                    .map(|(k, v)| (k.clone(), serde_json::to_string(v).unwrap_or_default()))
                    .collect(),
            ),
        };
        renames.push(Rename { old, new, set });
    }
    Ok(ServerSpec {
        name: name.to_string(),
        source,
        base: base.to_path_buf(),
        prefixes,
        renames,
        field_renames,
        removed: f.removed,
    })
}

fn build_set<'a>(globs: impl Iterator<Item = &'a str>) -> Result<GlobSet, String> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|e| e.to_string())?);
    }
    b.build().map_err(|e| e.to_string())
}

/// `path` made absolute like [`std::path::absolute`], with the current folder asked of the
/// system once per run (it does not change during one), not once per walked file.
pub fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.components().collect();
    }
    match current_dir() {
        Some(cwd) => cwd.join(path).components().collect(),
        None => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

/// The current folder, asked for once.
fn current_dir() -> Option<&'static Path> {
    static CWD: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    CWD.get_or_init(|| std::env::current_dir().ok()).as_deref()
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
    #[test]
    fn the_pre_commit_hook_follows_the_default_includes() {
        let pattern = include_pattern(DEFAULT_INCLUDE);
        assert!(pattern.starts_with("(^|/)(SKILL\\.md|skills/(.+/)?[^/]*\\.md|"));
        let hooks = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.pre-commit-hooks.yaml"),
        )
        .unwrap();
        let line = format!("  files: '{pattern}'");
        assert!(
            hooks.lines().any(|l| l == line),
            ".pre-commit-hooks.yaml should hold\n{line}"
        );
    }

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
        assert!(c.include.is_match(".claude/commands/gitops/pr.md"));
        assert!(c.include.is_match(".claude/settings.local.json"));
        assert!(c.include.is_match(".github/agents/dev.agent.md"));
        assert!(c.include.is_match(".github/chatmodes/review.chatmode.md"));
        assert!(c.include.is_match(".github/prompts/release.prompt.md"));
        assert!(
            c.include
                .is_match(".github/instructions/rust.instructions.md")
        );
        assert!(
            c.include
                .is_match(".github/instructions/backend/api.instructions.md")
        );
        assert!(c.include.is_match(".claude/rules/testing.md"));
        assert!(c.include.is_match("CLAUDE.local.md"));
        assert!(!c.include.is_match(".github/instructions/notes.md"));
        assert!(!c.include.is_match(".github/chatmodes/README.md"));
        assert!(c.include.is_match("AGENTS.md"));
        assert!(!c.include.is_match("README.md"));
        assert!(!c.include.is_match(".github/workflows/ci.yml"));
    }

    #[test]
    fn servers_with_prefixes_and_renames() {
        let c = Config::parse(
            Path::new("repo/toolgate.toml"),
            "[servers.github]\ntools_list = \"gh.json\"\nprefixes = [\"mcp__github__\", \"github/\"]\nremoved = [\"enable_toolset\"]\n[servers.github.formerly]\nget_issue = { tool = \"issue_read\", set = { method = \"get\" } }\nwrite_label = \"label_write\"\n",
        )
        .unwrap();
        assert_eq!(c.unprefixed.as_deref(), Some("github"));
        let s = c.unprefixed_server().unwrap();
        assert_eq!(s.source, Source::ToolsList(PathBuf::from("repo/gh.json")));
        assert_eq!(s.prefixes, ["mcp__github__", "github/"]);
        assert_eq!(
            s.renames[0].set,
            [("method".to_string(), "\"get\"".to_string())]
        );
        assert_eq!(s.renames[1].new, "label_write");
        let c = Config::parse(
            Path::new("t.toml"),
            "catalog = \"tatara\"\n[servers.gh]\nmanifest = \"m.json\"\n",
        )
        .unwrap();
        assert_eq!(c.unprefixed, None);
        assert_eq!(c.servers[0].prefixes[0], "mcp__gh__");
        let c = Config::parse(
            Path::new("t.toml"),
            "[servers.gh]\ntools_list = \"gh.json\"\n[servers.gh.formerly]\nget_issue = \"issue_read\"\n[servers.gh.formerly.fields.list_issues]\nperPage = [\"per_page\", \"limit\"]\n",
        )
        .unwrap();
        let s = &c.servers[0];
        assert_eq!(s.renames[0].new, "issue_read");
        assert_eq!(s.field_renames[0].tool, "list_issues");
        assert_eq!(
            s.field_renames[0].fields,
            [(
                "perPage".to_string(),
                vec!["per_page".to_string(), "limit".to_string()]
            )]
        );
        let e = Config::parse(
            Path::new("t.toml"),
            "[servers.gh]\ntools_list = \"gh.json\"\n[servers.gh.formerly]\nfields = \"x\"\n",
        )
        .unwrap_err();
        assert!(e.contains("formerly.fields"), "{e}");
        let c = Config::parse(Path::new("t.toml"), "[servers.gh]\ndiscover = false\n");
        assert!(c.unwrap_err().contains("unknown field `discover`"));
        let c = Config::parse(Path::new("t.toml"), "discover = false\n[servers.gh]\n").unwrap();
        assert_eq!(c.servers[0].source, Source::Locked);
        assert!(!c.discover);
        let e = Config::parse(
            Path::new("t.toml"),
            "[servers.gh]\ncatalog = \"a\"\nmanifest = \"b\"\n",
        )
        .unwrap_err();
        assert!(e.contains("servers.gh"), "{e}");
        let e = Config::parse(Path::new("t.toml"), "unprefixed = \"x\"\n").unwrap_err();
        assert!(e.contains("unprefixed"), "{e}");
    }

    #[test]
    fn audit_allows_need_a_known_rule_and_a_reason() {
        let ok = Config::parse(
            Path::new("t.toml"),
            "[[audit.allow]]\nrule = \"exfiltration-target\"\ntool = \"report\"\nreason = \"our own status page\"\n",
        )
        .unwrap();
        assert_eq!(ok.audit_allows.len(), 1);
        assert!(ok.audit_allows[0].covers("exfiltration-target", "report", Some("any")));
        let e = Config::parse(
            Path::new("t.toml"),
            "[[audit.allow]]\nrule = \"exfiltration-target\"\ntool = \"report\"\n",
        )
        .unwrap_err();
        assert!(
            e.contains("t.toml: audit.allow[0]") && e.contains("needs a `reason`"),
            "{e}"
        );
        let e = Config::parse(
            Path::new("t.toml"),
            "[[audit.allow]]\nrule = \"nope\"\ntool = \"x\"\nreason = \"r\"\n",
        )
        .unwrap_err();
        assert!(e.contains("unknown audit rule `nope`"), "{e}");
    }
}
