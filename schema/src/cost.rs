//! The context cost of each profile, and the checks a release holds it to.
//!
//! A profile costs what it is served: the `tools` array of its `tools/list`, written as
//! compact JSON (non-ASCII as raw UTF-8, as serde_json writes it), counted in bytes and in
//! `o200k_base` tokens (tiktoken-rs, which embeds the encoding: no download at run time).
//! [`measure`] gives every profile alone and, when the selector combines profiles, all of
//! them combined; [`check`] holds those figures to the matrix's `budgets` and to the limits
//! of the hosts it is served to ([`crate::hosts`]); [`growth`] compares two surfaces'
//! figures for `toolgate diff`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::json;

use crate::files::Budget;
use crate::hosts::{self, Host};
use crate::json::{Value, to_compact};
use crate::load::Catalog;
use crate::stacks::{self, Effect};
use crate::surface::{Origin, Surface, served_tool_json};

/// How many of a profile's costliest tools a report names.
pub const TOP: usize = 5;

/// The o200k_base token count of `text`, read as ordinary text (a special token's spelling
/// counts as the text it is, as in tiktoken's `encode(text, [], [])`).
pub fn tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// One tool's share of a profile's cost: its served object alone, compact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCost {
    /// The tool's name.
    pub name: String,
    /// Bytes of its compact JSON.
    pub bytes: usize,
    /// Its o200k_base tokens.
    pub tokens: usize,
}

/// What one profile (or combination) is served, measured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileCost {
    /// The profile, or the profiles combined joined by `,` (what `--profile` accepts).
    pub name: String,
    /// Whether this is several profiles combined.
    pub combined: bool,
    /// The tools served, sorted by name.
    pub names: Vec<String>,
    /// Bytes of the `tools` array as compact JSON.
    pub bytes: usize,
    /// Its o200k_base tokens.
    pub tokens: usize,
    /// The costliest tools, most tokens first (at most [`TOP`]).
    pub top: Vec<ToolCost>,
    /// The `tools` array as measured (what the tiktoken cross-check counts).
    pub text: String,
}

impl ProfileCost {
    /// The number of tools served.
    pub fn tools(&self) -> usize {
        self.names.len()
    }
}

/// Measures `selector` (a profile, or several joined by `,`) of `surface`.
pub fn measure_one(surface: &Surface, selector: &str) -> ProfileCost {
    let session = surface.resolve(selector);
    let served = surface.served(&session);
    let objects: Vec<Value> = served
        .iter()
        .map(|s| served_tool_json(s.tool, s.entry))
        .collect();
    let mut top: Vec<ToolCost> = objects
        .iter()
        .zip(&served)
        .map(|(o, s)| {
            let text = to_compact(o);
            ToolCost {
                name: s.tool.name.clone(),
                bytes: text.len(),
                tokens: tokens(&text),
            }
        })
        .collect();
    top.sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.name.cmp(&b.name)));
    top.truncate(TOP);
    let text = to_compact(&Value::Array(objects));
    ProfileCost {
        name: selector.to_string(),
        combined: selector.contains(','),
        names: served.iter().map(|s| s.tool.name.clone()).collect(),
        bytes: text.len(),
        tokens: tokens(&text),
        top,
        text,
    }
}

/// Every profile of `surface` alone, in declared order, then (when its selector combines
/// profiles and there are several) all of them combined. Empty for a surface that knows
/// names only (a tatara-format manifest).
pub fn measure(surface: &Surface) -> Vec<ProfileCost> {
    if surface.origin != Origin::Full {
        return Vec::new();
    }
    let mut out: Vec<ProfileCost> = surface
        .profiles
        .iter()
        .map(|p| measure_one(surface, &p.name))
        .collect();
    let combine = surface.selector.as_ref().is_some_and(|s| s.combine);
    if combine && surface.profiles.len() > 1 {
        let all: Vec<&str> = surface.profiles.iter().map(|p| p.name.as_str()).collect();
        out.push(measure_one(surface, &all.join(",")));
    }
    out
}

/// A broken budget or host limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// `budget` or `host`.
    pub kind: &'static str,
    /// The host's id, for a host limit.
    pub host: Option<&'static str>,
    /// The limit: `max_tools`, `max_tokens` (budgets), `max-tools`, `name-length`,
    /// `name-characters` (hosts).
    pub limit: &'static str,
    /// The profiles concerned.
    pub profiles: Vec<String>,
    /// The tool concerned, if one.
    pub tool: Option<String>,
    /// The whole message.
    pub message: String,
}

/// The hosts to check: the matrix's, then those of `extra` (`--host`) not in it; an error
/// naming the first unknown id of `extra`.
pub fn hosts_of(catalog: &Catalog, extra: &[String]) -> Result<Vec<&'static Host>, String> {
    let mut out: Vec<&'static Host> = Vec::new();
    for id in catalog.limits.hosts.iter().chain(extra) {
        let Some(h) = hosts::host(id) else {
            return Err(format!(
                "no host `{id}`{}; hosts: {}",
                crate::suggest::did_you_mean(id, hosts::ids()),
                hosts::ids().join(", ")
            ));
        };
        if !out.iter().any(|o| o.id == h.id) {
            out.push(h);
        }
    }
    Ok(out)
}

/// The name hosts show for the catalog's server: the matrix's `server_name`, else its name.
pub fn server_name(catalog: &Catalog) -> &str {
    catalog
        .limits
        .server_name
        .as_deref()
        .unwrap_or(&catalog.name)
}

/// Every budget of `catalog` and every limit of `hosts` that the measured `costs` break.
pub fn check(catalog: &Catalog, costs: &[ProfileCost], hosts: &[&Host]) -> Vec<Finding> {
    let mut out = Vec::new();
    for (name, budget) in &catalog.limits.budgets {
        let normalized = normalize(name);
        if let Some(cost) = costs.iter().find(|c| c.name == normalized) {
            out.extend(over_budget(cost, name, budget));
        } else if let Some(cost) = measure_missing(catalog, &normalized) {
            out.extend(over_budget(&cost, name, budget));
        }
    }
    let server = server_name(catalog);
    // Tool -> the single profiles served it, for the name checks.
    let mut served_to: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for c in costs.iter().filter(|c| !c.combined) {
        for n in &c.names {
            served_to.entry(n).or_default().push(c.name.clone());
        }
    }
    for host in hosts {
        for c in costs {
            if let Some(mut b) = hosts::check_count(host, &c.name, c.tools()) {
                // Which tools to move out first: those that cost most.
                b.tool = c.top.first().map(|t| t.name.clone());
                b.message
                    .push_str(&format!("; the tools that cost most: {}", top_list(&c.top)));
                out.push(from_host(b));
            }
        }
        for (tool, profiles) in &served_to {
            out.extend(
                hosts::check_name(host, server, tool, profiles)
                    .into_iter()
                    .map(from_host),
            );
        }
    }
    out
}

/// One keyword of a served input schema that a host's client stack rejects or drops, or a
/// tool with no equivalent it accepts.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SchemaFinding {
    /// The host's id.
    pub host: &'static str,
    /// The tool.
    pub tool: String,
    /// What the stack does, where.
    pub finding: stacks::Finding,
}

impl SchemaFinding {
    /// An error (rejected, inexpressible) rather than a warning (dropped).
    pub fn is_error(&self) -> bool {
        self.finding.effect != Effect::Dropped
    }

    /// The finding in a line.
    pub fn message(&self) -> String {
        let f = &self.finding;
        let at = if f.path.is_empty() {
            "the root".to_string()
        } else {
            format!("`{}`", f.path)
        };
        let what = if f.keyword.is_empty() {
            "the subschema".to_string()
        } else {
            format!("`{}`", f.keyword)
        };
        let tail = match f.effect {
            Effect::Dropped => "; the server still enforces it, the model will not know it",
            Effect::Rejected => "; `toolgate tools-list --host` serves an equivalent it accepts",
            Effect::Inexpressible => "; no schema the stack accepts says the same",
        };
        format!(
            "host `{}`: tool `{}` at {at}: {what} {}: {}{tail}",
            self.host,
            self.tool,
            f.effect.as_str(),
            f.reason
        )
    }

    /// The finding as `check --format json` writes it.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "kind": "schema",
            "host": self.host,
            "tool": self.tool,
            "path": self.finding.path,
            "keyword": self.finding.keyword,
            "effect": self.finding.effect.as_str(),
            "reason": self.finding.reason,
            "message": self.message(),
        })
    }
}

/// What the client stacks of `hosts` do with every served input schema of `surface` (each
/// distinct one once): rejected and dropped keywords, and tools with no equivalent the stack
/// accepts (`inexpressible`). Sorted by host, tool, path, keyword.
pub fn check_schemas(surface: &Surface, hosts: &[&Host]) -> Vec<SchemaFinding> {
    let mut out = Vec::new();
    for host in hosts {
        let Some(stack) = host.schema else { continue };
        for tool in &surface.tools {
            for entry in &tool.entries {
                let Some(schema) = entry.served.get("inputSchema") else {
                    continue;
                };
                let schema = schema.to_serde();
                let found = stacks::judge(stack, &schema);
                let rejected = found.iter().any(|f| f.effect == Effect::Rejected);
                let mut all: Vec<stacks::Finding> = found;
                if rejected && let Some(why) = stacks::adapt(stack, &schema).inexpressible {
                    all.push(stacks::Finding {
                        path: String::new(),
                        keyword: String::new(),
                        effect: Effect::Inexpressible,
                        reason: why,
                    });
                }
                out.extend(all.into_iter().map(|finding| SchemaFinding {
                    host: host.id,
                    tool: tool.name.clone(),
                    finding,
                }));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A combination written in another order or with spaces, as the measured one is named.
fn normalize(name: &str) -> String {
    name.split(',').map(str::trim).collect::<Vec<_>>().join(",")
}

/// A budget's combination that [`measure`] does not give (a subset of the profiles).
fn measure_missing(catalog: &Catalog, selector: &str) -> Option<ProfileCost> {
    let surface = Surface::from_catalog(catalog);
    let session = surface.resolve(selector);
    (!session.fail_closed).then(|| measure_one(&surface, selector))
}

fn from_host(b: hosts::Broken) -> Finding {
    Finding {
        kind: "host",
        host: Some(b.host),
        limit: b.limit,
        profiles: b.profiles,
        tool: b.tool,
        message: b.message,
    }
}

fn over_budget(cost: &ProfileCost, name: &str, budget: &Budget) -> Vec<Finding> {
    let mut out = Vec::new();
    let checks = [
        ("max_tools", budget.max_tools, cost.tools(), "tools"),
        ("max_tokens", budget.max_tokens, cost.tokens, "tokens"),
    ];
    for (limit, max, figure, unit) in checks {
        let Some(max) = max else { continue };
        if figure as u64 <= max {
            continue;
        }
        out.push(Finding {
            kind: "budget",
            host: None,
            limit,
            profiles: vec![cost.name.clone()],
            tool: cost.top.first().map(|t| t.name.clone()),
            message: format!(
                "profile `{name}` is over its budget: {} {unit}, {limit} {} ({} over); the tools that cost most: {}",
                thousands(figure as u64),
                thousands(max),
                thousands(figure as u64 - max),
                top_list(&cost.top)
            ),
        });
    }
    out
}

/// `name` tokens, for the costliest tools: "`a` 1,210, `b` 900".
fn top_list(top: &[ToolCost]) -> String {
    if top.is_empty() {
        return "none".to_string();
    }
    top.iter()
        .map(|t| format!("`{}` {}", t.name, thousands(t.tokens as u64)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `n` with `,` between thousands: 12,345.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The figures as `toolgate check` prints them: one line per profile, then its costliest
/// tools.
pub fn to_text(costs: &[ProfileCost]) -> String {
    let mut s =
        String::from("context cost (tools/list `tools`, compact JSON, o200k_base tokens):\n");
    let width = costs.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for c in costs {
        let _ = writeln!(
            s,
            "  {:<width$}  {:>4} tools  {:>9} bytes  {:>8} tokens   top: {}",
            c.name,
            c.tools(),
            thousands(c.bytes as u64),
            thousands(c.tokens as u64),
            top_list(&c.top)
        );
    }
    s
}

/// The section `toolgate docs` writes: a table of the figures.
pub fn write_markdown(page: &mut String, surface: &Surface) {
    let costs = measure(surface);
    if costs.is_empty() {
        return;
    }
    page.push_str("## Context cost\n\n");
    page.push_str(
        "What each profile's `tools/list` costs a model's context: its `tools` array as compact JSON, in bytes and in `o200k_base` tokens (tiktoken's encoding of OpenAI's current models; other models' tokenizers differ by some percent). `toolgate check` prints the same figures and holds them to the matrix's `budgets`.\n\n",
    );
    page.push_str("| profile | tools | bytes | tokens | costliest tools (tokens) |\n");
    page.push_str("| --- | --- | --- | --- | --- |\n");
    for c in &costs {
        let name = if c.combined {
            "all combined".to_string()
        } else {
            format!("`{}`", c.name)
        };
        let _ = writeln!(
            page,
            "| {name} | {} | {} | {} | {} |",
            c.tools(),
            thousands(c.bytes as u64),
            thousands(c.tokens as u64),
            top_list(&c.top)
        );
    }
    page.push('\n');
}

/// The figures and findings as `toolgate check --format json` prints them.
pub fn to_json(
    catalog: &Catalog,
    costs: &[ProfileCost],
    hosts: &[&Host],
    findings: &[Finding],
    schemas: &[SchemaFinding],
) -> serde_json::Value {
    let budget = |name: &str| {
        catalog
            .limits
            .budgets
            .iter()
            .find(|(k, _)| normalize(k) == name)
            .map(|(_, b)| json!({"max_tools": b.max_tools, "max_tokens": b.max_tokens}))
    };
    let profiles: Vec<serde_json::Value> = costs
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "combined": c.combined,
                "tools": c.tools(),
                "bytes": c.bytes,
                "tokens": c.tokens,
                "budget": budget(&c.name),
                "top": c.top.iter().map(|t| json!({"name": t.name, "bytes": t.bytes, "tokens": t.tokens})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "catalog": catalog.name,
        "server_name": server_name(catalog),
        "encoding": "o200k_base",
        "hosts": hosts.iter().map(|h| h.id).collect::<Vec<_>>(),
        "profiles": profiles,
        "errors": findings
            .iter()
            .map(finding_json)
            .chain(schemas.iter().filter(|f| f.is_error()).map(SchemaFinding::to_json))
            .collect::<Vec<_>>(),
        "warnings": catalog
            .warnings
            .iter()
            .map(|w| json!({"kind": "catalog", "message": w.to_string()}))
            .chain(schemas.iter().filter(|f| !f.is_error()).map(SchemaFinding::to_json))
            .collect::<Vec<_>>(),
    })
}

fn finding_json(f: &Finding) -> serde_json::Value {
    json!({
        "kind": f.kind,
        "host": f.host,
        "limit": f.limit,
        "profiles": f.profiles,
        "tool": f.tool,
        "message": f.message,
    })
}

/// A profile's token change between two surfaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Growth {
    /// The profile (or combination).
    pub name: String,
    /// Tokens before, if the profile existed.
    pub old: Option<usize>,
    /// Tokens after, if the profile still exists.
    pub new: Option<usize>,
}

impl Growth {
    /// The change in percent of the old figure (none for a new or deleted profile, or one
    /// that cost nothing).
    pub fn percent(&self) -> Option<f64> {
        match (self.old, self.new) {
            (Some(o), Some(n)) if o > 0 => Some((n as f64 - o as f64) * 100.0 / o as f64),
            _ => None,
        }
    }

    /// `refine: +1,240 tokens (+14%)`.
    pub fn line(&self) -> String {
        match (self.old, self.new) {
            (Some(o), Some(n)) => {
                let d = n as i64 - o as i64;
                let sign = if d >= 0 { "+" } else { "-" };
                let pct = self
                    .percent()
                    .map(|p| format!(" ({}{:.0}%)", if p >= 0.0 { "+" } else { "" }, p))
                    .unwrap_or_default();
                format!(
                    "{}: {sign}{} tokens{pct}, {} -> {}",
                    self.name,
                    thousands(d.unsigned_abs()),
                    thousands(o as u64),
                    thousands(n as u64)
                )
            }
            (None, Some(n)) => format!("{}: new, {} tokens", self.name, thousands(n as u64)),
            (Some(o), None) => format!(
                "{}: removed (was {} tokens)",
                self.name,
                thousands(o as u64)
            ),
            (None, None) => format!("{}: not measured", self.name),
        }
    }
}

/// Each profile's tokens before and after, in the new surface's order, then the profiles
/// removed. Empty when either side knows names only.
pub fn growth(old: &Surface, new: &Surface) -> Vec<Growth> {
    if old.origin != Origin::Full || new.origin != Origin::Full {
        return Vec::new();
    }
    let before = measure(old);
    let after = measure(new);
    let mut out: Vec<Growth> = after
        .iter()
        .map(|a| Growth {
            name: a.name.clone(),
            old: before.iter().find(|b| b.name == a.name).map(|b| b.tokens),
            new: Some(a.tokens),
        })
        .collect();
    out.extend(
        before
            .iter()
            .filter(|b| !after.iter().any(|a| a.name == b.name))
            .map(|b| Growth {
                name: b.name.clone(),
                old: Some(b.tokens),
                new: None,
            }),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1240), "1,240");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn tokens_of_known_text() {
        // "hello world" is two o200k_base tokens; non-ASCII is counted as its UTF-8 bytes read.
        assert_eq!(tokens("hello world"), 2);
        assert!(tokens("Übersicht über die Änderungen") > 0);
        assert_eq!(tokens(""), 0);
    }

    #[test]
    fn growth_lines() {
        let g = Growth {
            name: "refine".into(),
            old: Some(8860),
            new: Some(10100),
        };
        assert_eq!(g.line(), "refine: +1,240 tokens (+14%), 8,860 -> 10,100");
        let g = Growth {
            name: "review".into(),
            old: Some(200),
            new: Some(100),
        };
        assert_eq!(g.line(), "review: -100 tokens (-50%), 200 -> 100");
        assert_eq!(g.percent(), Some(-50.0));
    }
}
