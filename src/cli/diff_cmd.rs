//! `toolgate diff OLD NEW`: how a surface change breaks its consumers.

use std::path::Path;

use clap::{Args, ValueEnum};
use toolgate_schema::Surface;
use toolgate_schema::cost::{self, Growth};
use toolgate_schema::diff::{Bump, diff, to_human, to_json, to_markdown};
use toolgate_schema::json::to_pretty;
use toolgate_schema::json::{Map, Value};

use super::{CatalogArg, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, SurfaceSource, print_stdout};

/// Output formats of `toolgate diff`.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum DiffFormat {
    /// One line per change, grouped by bump.
    Human,
    /// `{"bump": ..., "changes": [...], "skipped": [...]}`.
    Json,
    /// Tables for a release note.
    Markdown,
}

/// A declared bump.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Declared {
    /// Breaking changes allowed.
    Major,
    /// Additions only.
    Minor,
    /// Text only.
    Patch,
}

/// Arguments of `toolgate diff`.
#[derive(Args, Debug)]
#[command(
    after_help = "Each side is a bundled catalog's name (tatara, maetra), a catalog folder, a toolgate manifest or a tatara-format manifest (names and enums only: the diff says which checks it could not make).

Examples:
  toolgate diff old-manifest.json schema/tatara
  toolgate diff release-1.2/schema/tatara schema/tatara --format markdown >> CHANGELOG.md
  toolgate diff old.json schema/tatara --declared minor   # exit 1 if the change needs major

Run `toolgate diff --rules` for every rule and the bump it requires.
Exit codes: 0 done (and, with --declared, the declared bump is enough), 1 the declared bump is too small, 2 a side could not be read."
)]
pub struct DiffArgs {
    /// The surface before.
    #[arg(value_name = "OLD", required_unless_present = "rules")]
    old: Option<String>,
    /// The surface after.
    #[arg(value_name = "NEW", required_unless_present = "rules")]
    new: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: DiffFormat,
    /// The bump the release declares; exit 1 when the change requires more.
    #[arg(long, value_enum)]
    declared: Option<Declared>,
    /// List every rule with the bump it requires, and exit.
    #[arg(long)]
    rules: bool,
    /// Exit 1 when a profile's o200k_base tokens grow by more than PCT percent.
    #[arg(long, value_name = "PCT")]
    max_token_growth: Option<f64>,
}

/// Reads one side: a folder is a catalog, a file a manifest, else a bundled catalog's name.
fn side(value: &str) -> SurfaceSource {
    let path = Path::new(value);
    if path.is_dir() {
        SurfaceSource::Catalog(CatalogArg::Dir(path.to_path_buf()))
    } else if path.exists() {
        SurfaceSource::Manifest(path.to_path_buf())
    } else {
        match CatalogArg::parse(value) {
            c @ CatalogArg::Bundled(_) => SurfaceSource::Catalog(c),
            CatalogArg::Dir(d) => SurfaceSource::Manifest(d),
        }
    }
}

fn load(which: &str, value: &str) -> Result<Surface, u8> {
    if !Path::new(value).exists() && !matches!(CatalogArg::parse(value), CatalogArg::Bundled(_)) {
        eprintln!("error: {which} side `{value}`: no such file, folder or bundled catalog");
        return Err(EXIT_ERROR);
    }
    side(value).load().map_err(|e| {
        eprintln!("{e}");
        eprintln!("error: the {which} side could not be read");
        EXIT_ERROR
    })
}

/// `toolgate diff`
pub fn run(args: &DiffArgs) -> u8 {
    if args.rules {
        let mut text = String::new();
        for (name, bump, what) in toolgate_schema::diff::RULES {
            text.push_str(&format!("{name:<34} {bump:<6} {what}\n"));
        }
        return print_stdout(&text);
    }
    let (Some(old), Some(new)) = (&args.old, &args.new) else {
        eprintln!("error: give OLD and NEW");
        return EXIT_ERROR;
    };
    let old = match load("OLD", old) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let new = match load("NEW", new) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let d = diff(&old, &new);
    let growth = cost::growth(&old, &new);
    let text = match args.format {
        DiffFormat::Human => with_tokens_human(to_human(&d), &growth),
        DiffFormat::Json => to_pretty(&with_tokens_json(to_json(&d), &growth)),
        DiffFormat::Markdown => with_tokens_markdown(to_markdown(&d), &growth),
    };
    let code = print_stdout(&text);
    if code != EXIT_OK {
        return code;
    }
    if let Some(max) = args.max_token_growth
        && token_growth_exceeded(&growth, max)
    {
        return EXIT_FINDINGS;
    }
    if let Some(declared) = args.declared {
        let declared = match declared {
            Declared::Major => Bump::Major,
            Declared::Minor => Bump::Minor,
            Declared::Patch => Bump::Patch,
        };
        if d.bump > declared {
            eprintln!(
                "error: the change requires a {} bump, but {} was declared",
                d.bump, declared
            );
            return EXIT_FINDINGS;
        }
    }
    EXIT_OK
}

/// The human diff, then each profile's token change.
fn with_tokens_human(mut text: String, growth: &[Growth]) -> String {
    if growth.is_empty() {
        return text;
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("\ncontext cost (o200k_base tokens of each profile's tools/list `tools`):\n");
    for g in growth {
        text.push_str(&format!("  {}\n", g.line()));
    }
    text
}

/// The JSON diff with `tokens`: per profile, `old`, `new` and `percent`.
fn with_tokens_json(value: Value, growth: &[Growth]) -> Value {
    let Value::Object(mut m) = value else {
        return value;
    };
    let rows = growth
        .iter()
        .map(|g| {
            let mut o = Map::new();
            o.insert("profile", Value::str(&g.name));
            let n = |v: Option<usize>| serde_json::json!(v);
            o.insert("old", Value::from_serde(&n(g.old)));
            o.insert("new", Value::from_serde(&n(g.new)));
            o.insert(
                "percent",
                Value::from_serde(&serde_json::json!(g.percent())),
            );
            Value::Object(o)
        })
        .collect();
    m.insert("tokens", Value::Array(rows));
    Value::Object(m)
}

/// The Markdown diff, then a table of the token changes.
fn with_tokens_markdown(mut text: String, growth: &[Growth]) -> String {
    if growth.is_empty() {
        return text;
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(
        "\n### Context cost\n\n| profile | change (o200k_base tokens) |\n| --- | --- |\n",
    );
    for g in growth {
        let line = g.line();
        let change = line.split_once(": ").map_or(line.as_str(), |(_, c)| c);
        text.push_str(&format!("| `{}` | {change} |\n", g.name));
    }
    text
}

/// Whether a profile grew by more than `max` percent; says which on stderr.
fn token_growth_exceeded(growth: &[Growth], max: f64) -> bool {
    let over: Vec<&Growth> = growth
        .iter()
        .filter(|g| g.percent().is_some_and(|p| p > max))
        .collect();
    for g in &over {
        eprintln!("error: --max-token-growth {max}%: {}", g.line());
    }
    !over.is_empty()
}
