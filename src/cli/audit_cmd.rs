//! `toolgate audit`: a tool surface judged for danger (`toolgate_schema::audit`): a catalog,
//! a captured `tools/list`, or every server of `toolgate.lock`.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use toolgate_lint::config::{AuditAllow, Config};
use toolgate_lint::{hosts, lock};
use toolgate_schema::audit::{self, AuditSurface, Finding, ForeignTool, render};
use toolgate_schema::json::Value;

use super::{CatalogArg, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, print_stdout};

/// Output formats of `toolgate audit`.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum AuditFormat {
    /// One block per finding, the offending text underlined.
    #[default]
    Human,
    /// `{"findings": [{"rule", "tool", "severity", "message", "path", "span", ...}], ...}`.
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
}

/// Arguments of `toolgate audit`.
#[derive(Args, Debug)]
#[command(
    long_about = "Judge a tool surface for danger: the text a model reads in each tool (name, title, description, parameter descriptions, annotations) is searched for the shapes of the published attacks on MCP: invisible characters, directives aimed at the model (secrecy toward the user, hooks into every other call, overriding its instructions, blocks styled as system messages), orders about other servers' tools, self-promotion, a harmful purpose, places to send data and parameters that carry it, annotations that contradict the tool, and names that collide across servers.\n\nWithout --catalog or --tools-list, every server of toolgate.lock is audited together (so one server's orders about another's tools are seen).",
    after_help = "Examples:\n  toolgate audit                               # every server of toolgate.lock\n  toolgate audit --tools-list github.tools.json\n  toolgate audit --catalog schema/tatara --format sarif > audit.sarif\n  toolgate explain secrecy-directive\n\nAllow one finding in toolgate.toml, with a reason:\n  [[audit.allow]]\n  rule = \"exfiltration-target\"\n  tool = \"report_status\"\n  reason = \"posts to our own status page\"\n\nExit codes: 0 no error finding (warnings may be printed), 1 some error finding, 2 the input cannot be read."
)]
pub struct AuditArgs {
    /// A bundled catalog (tatara, maetra) or a catalog folder.
    #[arg(long, value_name = "NAME|DIR", conflicts_with = "tools_list")]
    catalog: Option<String>,
    /// A captured `tools/list` result (`{"tools": [...]}`, a JSON-RPC response, or an array).
    #[arg(long, value_name = "FILE")]
    tools_list: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: AuditFormat,
    /// The configuration with `[[audit.allow]]` (default: toolgate.toml found upward).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// What is audited: each surface's server, prefixes and tools.
struct Input {
    shown: String,
    surfaces: Vec<(Option<String>, Vec<String>, Vec<Value>)>,
    foreign: Vec<ForeignTool>,
}

/// `toolgate audit`
pub fn run(args: &AuditArgs) -> u8 {
    let input = match read_input(args) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let allows = match allows(args.config.as_deref()) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let findings = audit_input(&input, &allows);
    let shown = render::Shown {
        input: &input.shown,
    };
    let text = match args.format {
        AuditFormat::Human => render::human(&findings, &shown),
        AuditFormat::Json => render::json(&findings),
        AuditFormat::Sarif => render::sarif(&findings, &shown),
    };
    let code = print_stdout(&text);
    if code != EXIT_OK {
        return code;
    }
    if audit::has_errors(&findings) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    }
}

/// The findings of `input`, those `allows` cover left out.
fn audit_input(input: &Input, allows: &[AuditAllow]) -> Vec<Finding> {
    let surfaces: Vec<AuditSurface<'_>> = input
        .surfaces
        .iter()
        .map(|(server, prefixes, tools)| AuditSurface {
            server: server.as_deref(),
            prefixes,
            tools,
        })
        .collect();
    audit::audit(&surfaces, &input.foreign)
        .into_iter()
        .filter(|f| {
            !allows
                .iter()
                .any(|a| a.covers(f.rule, &f.tool, f.server.as_deref()))
        })
        .collect()
}

/// The `[[audit.allow]]` of `--config`, or of the toolgate.toml found upward (none: none).
fn allows(config: Option<&Path>) -> Result<Vec<AuditAllow>, String> {
    let path = match config {
        Some(p) => p.to_path_buf(),
        None => match toolgate_lint::config::find(Path::new(".")) {
            Some(p) => p,
            None => return Ok(Vec::new()),
        },
    };
    Ok(Config::load(&path)?.audit_allows)
}

fn read_input(args: &AuditArgs) -> Result<Input, String> {
    if let Some(c) = &args.catalog {
        return catalog_input(c);
    }
    if let Some(p) = &args.tools_list {
        let shown = p.display().to_string();
        let tools = read_tools_list(p)?;
        return Ok(Input {
            shown,
            surfaces: vec![(None, Vec::new(), tools)],
            foreign: Vec::new(),
        });
    }
    lock_input()
}

/// A captured `tools/list`'s tools.
pub fn read_tools_list(path: &Path) -> Result<Vec<Value>, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{shown}: not JSON: {e}"))?;
    audit::tools_of(&doc)
        .map(<[Value]>::to_vec)
        .map_err(|e| format!("{shown}: {e}"))
}

/// A catalog's served tools; the other bundled catalogs' tools are foreign to it.
fn catalog_input(value: &str) -> Result<Input, String> {
    let arg = CatalogArg::parse(value);
    let catalog = arg.load().map_err(|e| format!("{e}"))?;
    let surface = toolgate_schema::Surface::from_catalog(&catalog);
    let tools = audit::catalog_tools(&surface);
    let own = match &arg {
        CatalogArg::Bundled(n) => n.clone(),
        CatalogArg::Dir(d) => d.display().to_string(),
    };
    Ok(Input {
        shown: own.clone(),
        surfaces: vec![(None, Vec::new(), tools)],
        foreign: bundled_foreign(&own),
    })
}

/// The tools of every bundled catalog but `own`.
pub fn bundled_foreign(own: &str) -> Vec<ForeignTool> {
    let mut out = Vec::new();
    for (name, _) in toolgate_generated::BUNDLED {
        if *name == own {
            continue;
        }
        if let Some(Ok(c)) = toolgate_generated::load_bundled(name) {
            for t in toolgate_schema::Surface::from_catalog(&c).tools {
                out.push(ForeignTool {
                    owner: (*name).to_string(),
                    name: t.name,
                });
            }
        }
    }
    out
}

/// Every server of the project's toolgate.lock, under the prefixes its hosts give it.
fn lock_input() -> Result<Input, String> {
    let root = hosts::project_root(Path::new("."));
    let path = root.join(lock::FILE_NAME);
    if !path.is_file() {
        return Err(format!(
            "{}: no such file; give --catalog or --tools-list, or run `toolgate lock` to capture the servers the host configurations name",
            path.display()
        ));
    }
    let locked = lock::read(&path)?;
    // The prefixes are a refinement: a project whose configurations cannot be read is still
    // audited, its collisions judged as if no host kept the servers apart.
    let discovery = hosts::discover(&root).ok();
    let mut surfaces = Vec::new();
    for (id, server) in &locked.servers {
        let prefixes = discovery
            .as_ref()
            .and_then(|d| d.server(id))
            .map(hosts::HostServer::prefixes)
            .unwrap_or_default();
        surfaces.push((Some(id.clone()), prefixes, server.tools.clone()));
    }
    Ok(Input {
        shown: lock::FILE_NAME.to_string(),
        surfaces,
        foreign: Vec::new(),
    })
}

/// The audit's error findings on a catalog's surface, for `toolgate check`: the other
/// bundled catalogs are foreign to it, and the `[[audit.allow]]` of the toolgate.toml found
/// upward apply (one that cannot be read is said, and nothing is allowed: fail closed).
pub fn catalog_errors(surface: &toolgate_schema::Surface, own: &str) -> Vec<Finding> {
    let allows = allows(None).unwrap_or_else(|e| {
        eprintln!("warning: {e}; no audit finding is allowed");
        Vec::new()
    });
    let input = Input {
        shown: own.to_string(),
        surfaces: vec![(None, Vec::new(), audit::catalog_tools(surface))],
        foreign: bundled_foreign(own),
    };
    audit_input(&input, &allows)
        .into_iter()
        .filter(|f| f.severity == audit::Severity::Error)
        .collect()
}
