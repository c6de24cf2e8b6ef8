//! What `toolgate lock --check` and `lock --update` say: per server, each change between the
//! locked tools and the captured ones with its rule and bump (`toolgate_schema::diff`, as
//! `toolgate diff` words them), and for each tool or field that is gone, every agent-file
//! line it breaks: the lint's findings against the new surfaces that the old ones did not
//! have (prefixed names, calls, tool lists, fields set), and every line that names a removed
//! tool bare, in prose or a table.

use std::collections::BTreeSet;
use std::path::Path;

use toolgate_schema::Surface;
use toolgate_schema::diff::{Bump, Change, Risk, diff};
use toolgate_schema::json::{Map, Value, to_pretty};

use crate::finding::Finding;
use crate::lint::{Linter, Settings};
use crate::lock::{Lock, LockedServer};
use crate::render::Format;
use crate::run::{FixMode, Plan, Run};

/// One agent-file line a change breaks.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Broken {
    /// The file, as the lint shows it.
    pub file: String,
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
    /// What breaks there.
    pub what: String,
}

/// What happened to one server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerReport {
    /// The server's id.
    pub server: String,
    /// `added` (not in the lock), `removed` (no longer configured) or `changed`.
    pub status: &'static str,
    /// Its changes, with rule and bump.
    pub changes: Vec<Change>,
    /// Its overall bump.
    pub bump: Bump,
    /// Its highest risk (`toolgate_schema::diff_risk`): a server added or removed is
    /// `review`.
    pub risk: Risk,
    /// Other differences: server version, protocol version, how it is reached.
    pub notes: Vec<String>,
    /// The agent-file lines its changes break.
    pub broken: Vec<Broken>,
}

/// Every server that differs, sorted by id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The servers that differ.
    pub servers: Vec<ServerReport>,
}

impl Report {
    /// Whether anything differs.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }
}

fn surface(name: &str, s: &LockedServer) -> Result<Surface, String> {
    crate::servers::tools_list_surface(Path::new(name), &s.tools_list_bytes())
}

/// Compares `old` with `new`, server by server; agent files under `root` (the lint's
/// includes of its toolgate.toml) are searched for what the changes break. `prefixes`
/// gives each server's prefixes.
pub fn compare(
    old: &Lock,
    new: &Lock,
    root: &Path,
    prefixes: &dyn Fn(&str) -> Vec<String>,
) -> Result<Report, String> {
    let names: BTreeSet<&String> = old.servers.keys().chain(new.servers.keys()).collect();
    let mut report = Report::default();
    for name in names {
        let r = match (old.servers.get(name), new.servers.get(name)) {
            (Some(o), Some(n)) => changed(name, o, n)?,
            (None, Some(_)) => Some(bare(
                name,
                "added",
                Bump::Minor,
                "the server is not in the lock yet",
            )),
            (Some(_), None) => Some(bare(
                name,
                "removed",
                Bump::Major,
                "no host configuration names the server any more",
            )),
            (None, None) => None,
        };
        report.servers.extend(r);
    }
    if report.servers.iter().any(|s| s.changes.iter().any(breaks)) {
        let broken = broken_lines(old, new, root, prefixes, &report)?;
        for s in &mut report.servers {
            s.broken = broken
                .iter()
                .filter(|(id, _)| *id == s.server)
                .map(|(_, b)| b.clone())
                .collect();
        }
    }
    Ok(report)
}

fn bare(name: &str, status: &'static str, bump: Bump, note: &str) -> ServerReport {
    ServerReport {
        server: name.to_string(),
        status,
        changes: Vec::new(),
        bump,
        risk: Risk::Review,
        notes: vec![note.to_string()],
        broken: Vec::new(),
    }
}

fn changed(name: &str, o: &LockedServer, n: &LockedServer) -> Result<Option<ServerReport>, String> {
    let d = diff(&surface(name, o)?, &surface(name, n)?);
    let mut notes = Vec::new();
    let pair = |what: &str, a: &Option<String>, b: &Option<String>, notes: &mut Vec<String>| {
        if a != b {
            let show = |v: &Option<String>| v.clone().unwrap_or_else(|| "(none)".into());
            notes.push(format!("{what}: {} -> {}", show(a), show(b)));
        }
    };
    pair(
        "server version",
        &o.server_version,
        &n.server_version,
        &mut notes,
    );
    pair(
        "protocol version",
        &o.protocol_version,
        &n.protocol_version,
        &mut notes,
    );
    if o.reached != n.reached {
        notes.push("how the server is reached changed".into());
    }
    if d.changes.is_empty() && o.tools != n.tools {
        notes.push(
            "the tools as sent differ in what no rule compares (key order, an annotation's place)"
                .into(),
        );
    }
    if d.changes.is_empty() && notes.is_empty() {
        return Ok(None);
    }
    Ok(Some(ServerReport {
        server: name.to_string(),
        status: "changed",
        bump: d.bump.max(if notes.is_empty() {
            Bump::None
        } else {
            Bump::Patch
        }),
        risk: d.risk,
        changes: high_first(d.changes),
        notes,
        broken: Vec::new(),
    }))
}

/// The changes with the high-risk ones first, each group in the diff's order.
fn high_first(changes: Vec<Change>) -> Vec<Change> {
    let (mut high, rest): (Vec<Change>, Vec<Change>) =
        changes.into_iter().partition(|c| c.risk == Risk::High);
    high.extend(rest);
    high
}

/// Whether a change can break an agent-file line.
fn breaks(c: &Change) -> bool {
    matches!(
        c.rule,
        "tool-removed"
            | "tool-renamed"
            | "field-removed"
            | "field-renamed"
            | "enum-value-removed"
            | "enum-value-renamed"
            | "type-changed"
            | "required-field-added"
            | "field-became-required"
    )
}

/// The lint's findings over the agent files under `root` with each server's surface from
/// `lock`, under its prefixes; unprefixed names belong to no server.
fn lint_with(
    lock: &Lock,
    root: &Path,
    prefixes: &dyn Fn(&str) -> Vec<String>,
) -> Result<(Plan, Vec<Finding>), String> {
    let plan = Plan::new(&[root.to_path_buf()], None)?;
    let mut surfaces = Vec::new();
    for (name, s) in &lock.servers {
        surfaces.push((name.clone(), prefixes(name), surface(name, s)?));
    }
    let empty = crate::discovered::empty_surface();
    let linters = plan
        .configs
        .iter()
        .map(|c| {
            let settings = Settings {
                server: Some(String::new()),
                prefixes: Some(Vec::new()),
                removed: Vec::new(),
                ..c.settings()
            };
            let mut l = Linter::new(&empty, settings);
            for (name, p, s) in &surfaces {
                l.add_server(name, p, &[], s);
            }
            Some(l)
        })
        .collect();
    let run = Run {
        plan: &plan,
        linters,
        format: Format::Concise,
        fix: FixMode::Off,
        record_baseline: false,
    };
    let mut findings = Vec::new();
    run.lint(None, |r| findings.extend(r.lint.findings));
    drop(run);
    Ok((plan, findings))
}

fn broken_lines(
    old: &Lock,
    new: &Lock,
    root: &Path,
    prefixes: &dyn Fn(&str) -> Vec<String>,
    report: &Report,
) -> Result<Vec<(String, Broken)>, String> {
    let (_, before) = lint_with(old, root, prefixes)?;
    let (plan, after) = lint_with(new, root, prefixes)?;
    let key = |f: &Finding| (f.path.clone(), f.start, f.rule, f.message.clone());
    let known: BTreeSet<_> = before.iter().map(key).collect();
    let mut out: Vec<(String, Broken)> = Vec::new();
    for f in after.iter().filter(|f| !known.contains(&key(f))) {
        let Some(server) = server_of(report, f) else {
            continue;
        };
        out.push((
            server,
            Broken {
                file: f.path.clone(),
                line: f.start.line,
                column: f.start.column,
                what: format!("{}: {}", f.rule.name(), f.message),
            },
        ));
    }
    for s in &report.servers {
        let removed: Vec<&str> = s
            .changes
            .iter()
            .filter(|c| matches!(c.rule, "tool-removed" | "tool-renamed"))
            .filter_map(|c| c.tool.as_deref())
            .collect();
        for file in &plan.files {
            bare_names(file, &removed, &s.server, &mut out);
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out.dedup_by(|a, b| {
        a.0 == b.0 && a.1.file == b.1.file && a.1.line == b.1.line && same_tool(&a.1, &b.1)
    });
    Ok(out)
}

fn same_tool(a: &Broken, b: &Broken) -> bool {
    let tool = |w: &str| w.split('`').nth(1).map(str::to_string);
    tool(&a.what) == tool(&b.what)
}

/// The server a new finding is about: one whose changes name its tool.
fn server_of(report: &Report, f: &Finding) -> Option<String> {
    let tool = f.tool.as_deref()?;
    report
        .servers
        .iter()
        .find(|s| {
            s.changes
                .iter()
                .any(|c| breaks(c) && c.tool.as_deref() == Some(tool))
        })
        .map(|s| s.server.clone())
}

/// Every whole-word mention of a removed tool's name in `file`.
fn bare_names(file: &Path, removed: &[&str], server: &str, out: &mut Vec<(String, Broken)>) {
    if removed.is_empty() {
        return;
    }
    let Ok(text) = std::fs::read_to_string(file) else {
        return;
    };
    let shown = crate::walk::display(file);
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    for (i, line) in text.lines().enumerate() {
        for name in removed {
            let mut from = 0;
            while let Some(k) = line[from..].find(name) {
                let at = from + k;
                let end = at + name.len();
                let before_ok = at == 0 || !word(line.as_bytes()[at - 1]);
                let after_ok = end >= line.len() || !word(line.as_bytes()[end]);
                if before_ok && after_ok {
                    out.push((
                        server.to_string(),
                        Broken {
                            file: shown.clone(),
                            line: i + 1,
                            column: line[..at].chars().count() + 1,
                            what: format!(
                                "names `{name}`, which the server `{server}` no longer has"
                            ),
                        },
                    ));
                }
                from = end;
            }
        }
    }
}

/// The report as text, one block per server.
pub fn to_human(r: &Report) -> String {
    let mut out = String::new();
    for s in &r.servers {
        out.push_str(&format!(
            "server `{}` ({}): bump {}, risk {}\n",
            s.server,
            s.status,
            s.bump.as_str(),
            s.risk.as_str()
        ));
        for n in &s.notes {
            out.push_str(&format!("  note: {n}\n"));
        }
        for c in &s.changes {
            out.push_str(&format!(
                "  {} {} {}: {}\n",
                c.bump.as_str(),
                c.risk.as_str(),
                c.rule,
                c.message
            ));
        }
        for b in &s.broken {
            out.push_str(&format!(
                "  breaks {}:{}:{}: {}\n",
                b.file, b.line, b.column, b.what
            ));
        }
    }
    out
}

/// The report as Markdown, for a pull-request comment.
pub fn to_markdown(r: &Report) -> String {
    let mut out = String::from("## toolgate lock --check\n\n");
    for s in &r.servers {
        out.push_str(&format!(
            "### `{}`: {} (bump **{}**, risk **{}**)\n\n",
            s.server,
            s.status,
            s.bump.as_str(),
            s.risk.as_str()
        ));
        for n in &s.notes {
            out.push_str(&format!("- {n}\n"));
        }
        if !s.changes.is_empty() {
            out.push_str("\n| bump | risk | rule | change |\n| --- | --- | --- | --- |\n");
            for c in &s.changes {
                out.push_str(&format!(
                    "| {} | {} | `{}` | {} |\n",
                    c.bump.as_str(),
                    c.risk.as_str(),
                    c.rule,
                    c.message.replace('|', "\\|")
                ));
            }
        }
        if !s.broken.is_empty() {
            out.push_str("\nAgent-file lines this breaks:\n\n");
            for b in &s.broken {
                out.push_str(&format!(
                    "- `{}:{}:{}`: {}\n",
                    b.file,
                    b.line,
                    b.column,
                    b.what.replace('|', "\\|")
                ));
            }
        }
        out.push('\n');
    }
    out
}

/// The report as JSON: `{"servers": [{"server", "status", "bump", "risk", "notes", "changes",
/// "broken"}]}`, each change with its `risk`.
pub fn to_json(r: &Report) -> String {
    let servers = r
        .servers
        .iter()
        .map(|s| {
            let mut m = Map::new();
            m.insert("server", Value::str(s.server.as_str()));
            m.insert("status", Value::str(s.status));
            m.insert("bump", Value::str(s.bump.as_str()));
            m.insert("risk", Value::str(s.risk.as_str()));
            m.insert(
                "notes",
                Value::Array(s.notes.iter().map(|n| Value::str(n.as_str())).collect()),
            );
            m.insert(
                "changes",
                Value::Array(
                    s.changes
                        .iter()
                        .map(|c| {
                            let mut o = Map::new();
                            o.insert("rule", Value::str(c.rule));
                            o.insert("bump", Value::str(c.bump.as_str()));
                            o.insert("risk", Value::str(c.risk.as_str()));
                            o.insert("tool", c.tool.as_deref().map_or(Value::Null, Value::str));
                            o.insert("field", c.field.as_deref().map_or(Value::Null, Value::str));
                            o.insert("message", Value::str(c.message.as_str()));
                            Value::Object(o)
                        })
                        .collect(),
                ),
            );
            m.insert(
                "broken",
                Value::Array(
                    s.broken
                        .iter()
                        .map(|b| {
                            let mut o = Map::new();
                            o.insert("file", Value::str(b.file.as_str()));
                            o.insert("line", Value::from(b.line as u64));
                            o.insert("column", Value::from(b.column as u64));
                            o.insert("what", Value::str(b.what.as_str()));
                            Value::Object(o)
                        })
                        .collect(),
                ),
            );
            Value::Object(m)
        })
        .collect();
    let mut root = Map::new();
    root.insert("servers", Value::Array(servers));
    to_pretty(&Value::Object(root))
}
