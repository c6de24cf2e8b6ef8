//! `toolgate.history.json`: each locked server's published versions, what each served (a
//! hash per tool) and what changed in each, written by `toolgate lock --history` beside
//! `toolgate.lock`.
//!
//! A file of its own rather than a key of the lock: the lock is what is served today and is
//! checked against it (`lock --check`); the history is what was served before, learned from
//! a registry, regenerated at will and never compared with a running server. Keeping it
//! apart leaves the lock's format and hash as they are, and a repository that wants no
//! history simply has no such file. It holds no secret: package names, versions, dates,
//! tool and field names and hashes only (never a registry URL, which may carry a token).
//!
//! ```json
//! {
//!   "format_version": 1,
//!   "servers": {
//!     "memory": {
//!       "package": { "registry": "npm", "name": "@modelcontextprotocol/server-memory" },
//!       "versions": [
//!         { "version": "0.6.2", "date": "2025-05-08T02:03:10Z", "tools": { "read_graph": "…" } },
//!         { "version": "0.6.3", "error": "exited before answering `initialize`" }
//!       ],
//!       "changes": [ { "version": "0.6.2", "added": ["read_graph"] } ]
//!     }
//!   }
//! }
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{FieldChanges, Step, ToolRename};

/// The file name, beside `toolgate.lock`.
pub const FILE_NAME: &str = "toolgate.history.json";
/// The format this build writes and reads.
pub const FORMAT_VERSION: u64 = 1;

/// The whole file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryFile {
    /// [`FORMAT_VERSION`].
    pub format_version: u64,
    /// Servers by the lock's name.
    pub servers: BTreeMap<String, ServerHistory>,
}

/// One server's history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerHistory {
    /// The package its launch names.
    pub package: Package,
    /// The versions considered, oldest first.
    pub versions: Vec<VersionRecord>,
    /// What each captured version changed, oldest first.
    pub changes: Vec<StepRecord>,
}

/// A registry package.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Package {
    /// `npm` or `pypi`.
    pub registry: String,
    /// The package name.
    pub name: String,
}

/// One version: what it served, or why it could not be captured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionRecord {
    /// The version.
    pub version: String,
    /// Its publication date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Each tool's name and the SHA-256 of its RFC 8785 form.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, String>,
    /// Why it was not captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Options of the configured launch this version refused, left out to capture it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub without: Vec<String>,
    /// Not captured: between two captures that served the same tools (bisection skipped it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
}

/// [`Step`] as written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepRecord {
    /// The version.
    pub version: String,
    /// Its date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Tools added.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<String>,
    /// Tools removed with no successor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// Tools renamed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renamed: Vec<RenameRecord>,
    /// Field changes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldRecord>,
}

/// A tool rename as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenameRecord {
    /// The old name.
    pub old: String,
    /// The new one.
    pub new: String,
    /// The argument a merge sets: field -> value.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub set: BTreeMap<String, String>,
}

/// A tool's field changes as written.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldRecord {
    /// The tool.
    pub tool: String,
    /// Fields added.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<String>,
    /// Fields removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// Fields renamed: old -> new.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub renamed: BTreeMap<String, String>,
}

impl From<&Step> for StepRecord {
    fn from(s: &Step) -> Self {
        StepRecord {
            version: s.version.clone(),
            date: s.date.clone(),
            added: s.added.clone(),
            removed: s.removed.clone(),
            renamed: s
                .renamed
                .iter()
                .map(|r| RenameRecord {
                    old: r.old.clone(),
                    new: r.new.clone(),
                    set: r.set.iter().cloned().collect(),
                })
                .collect(),
            fields: s
                .fields
                .iter()
                .map(|f| FieldRecord {
                    tool: f.tool.clone(),
                    added: f.added.clone(),
                    removed: f.removed.clone(),
                    renamed: f.renamed.iter().cloned().collect(),
                })
                .collect(),
        }
    }
}

impl From<&StepRecord> for Step {
    fn from(s: &StepRecord) -> Self {
        Step {
            version: s.version.clone(),
            date: s.date.clone(),
            added: s.added.clone(),
            removed: s.removed.clone(),
            renamed: s
                .renamed
                .iter()
                .map(|r| ToolRename {
                    old: r.old.clone(),
                    new: r.new.clone(),
                    set: r.set.iter().next().map(|(k, v)| (k.clone(), v.clone())),
                })
                .collect(),
            fields: s
                .fields
                .iter()
                .map(|f| FieldChanges {
                    tool: f.tool.clone(),
                    added: f.added.clone(),
                    removed: f.removed.clone(),
                    renamed: f
                        .renamed
                        .iter()
                        .map(|(a, b)| (a.clone(), b.clone()))
                        .collect(),
                })
                .collect(),
        }
    }
}

impl ServerHistory {
    /// The steps, as [`super::past`] reads them.
    pub fn steps(&self) -> Vec<Step> {
        self.changes.iter().map(Step::from).collect()
    }

    /// Its past, for a server whose tools today are `current`.
    pub fn past(&self, current: &[&str]) -> super::Past {
        super::past(&self.package.name, &self.steps(), current)
    }
}

/// Reads the history file at `path`: its format version checked, every error naming it.
pub fn read(path: &Path) -> Result<HistoryFile, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let file: HistoryFile = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{shown}:{}:{}: not a toolgate history: {e}",
            e.line(),
            e.column()
        )
    })?;
    if file.format_version != FORMAT_VERSION {
        return Err(format!(
            "{shown}: format_version {} is not {FORMAT_VERSION}: run `toolgate lock --history` again",
            file.format_version
        ));
    }
    Ok(file)
}

/// The file's text: pretty JSON, keys in a fixed order, a final newline.
pub fn render(file: &HistoryFile) -> String {
    let mut text = serde_json::to_string_pretty(file).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes `file` to `path`.
pub fn write(path: &Path, file: &HistoryFile) -> Result<(), String> {
    std::fs::write(path, render(file)).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

/// The history file beside the lock `lock_path`, read when it exists: `Ok(None)` when there
/// is none.
pub fn beside(lock_path: &Path) -> Result<Option<HistoryFile>, String> {
    let path = lock_path.with_file_name(FILE_NAME);
    if !path.is_file() {
        return Ok(None);
    }
    read(&path).map(Some)
}
