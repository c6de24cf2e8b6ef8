//! `toolgate docs`: a catalog's reference page in Markdown (`toolgate_schema::docs`), printed,
//! written into the marked region of a page, or checked against it.

use std::path::{Path, PathBuf};

use clap::Args;
use toolgate_schema::docs;

use super::{CatalogArg, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, print_stdout};

/// Arguments of `toolgate docs`.
#[derive(Args, Debug)]
#[command(
    long_about = "Print the reference page of a catalog in Markdown: its profiles with their derived tool counts, the gating table (granted cells, variants, restrictions), and per tool its description, parameters, group-added parameters, annotations and former names. The output is deterministic.\n\nWith --write FILE, only the region between the lines `<!-- toolgate:begin -->` and `<!-- toolgate:end -->` is replaced (a new FILE is created with the markers); every other byte stays as it was. With --check FILE, nothing is written: exit 0 when the region is what --write would put there, 1 with a unified diff when it drifted.",
    after_help = "Examples:\n  toolgate docs --catalog tatara\n  toolgate docs --catalog schema/tatara --write docs/tatara.md\n  toolgate docs --catalog schema/tatara --check docs/tatara.md   # in CI\n\nExit codes: 0 printed, written or up to date; 1 the region is stale (--check); 2 could not do it (bad catalog, unreadable file, missing or unbalanced markers)."
)]
pub struct DocsArgs {
    /// A bundled catalog (tatara, maetra) or a catalog folder.
    #[arg(long, value_name = "NAME|DIR")]
    catalog: String,
    /// Replace the marked region of FILE with the page (create FILE when it does not exist).
    #[arg(long, value_name = "FILE", conflicts_with = "check")]
    write: Option<PathBuf>,
    /// Exit 1, with a diff, when the marked region of FILE is not the page.
    #[arg(long, value_name = "FILE")]
    check: Option<PathBuf>,
}

/// `toolgate docs`
pub fn run(args: &DocsArgs) -> u8 {
    let catalog = match CatalogArg::parse(&args.catalog).load() {
        Ok(c) => c,
        Err(errors) => {
            eprintln!("{errors}");
            eprintln!("error: cannot document `{}`: the catalog has errors", args.catalog);
            return EXIT_ERROR;
        }
    };
    let page = docs::render(&catalog);
    match (&args.write, &args.check) {
        (Some(file), _) => write(file, &page),
        (None, Some(file)) => check(file, &page, &args.catalog),
        (None, None) => print_stdout(&page),
    }
}

fn read(file: &Path) -> Result<Option<String>, u8> {
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => {
            eprintln!("error: {}: cannot read: {e}", file.display());
            Err(EXIT_ERROR)
        }
    }
}

fn write(file: &Path, page: &str) -> u8 {
    let existing = match read(file) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let text = match docs::write_region(existing.as_deref(), page) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}: {e}", file.display());
            return EXIT_ERROR;
        }
    };
    if existing.as_deref() == Some(text.as_str()) {
        eprintln!("{}: up to date", file.display());
        return EXIT_OK;
    }
    match std::fs::write(file, text) {
        Ok(()) => {
            eprintln!("{}: written", file.display());
            EXIT_OK
        }
        Err(e) => {
            eprintln!("error: {}: cannot write: {e}", file.display());
            EXIT_ERROR
        }
    }
}

fn check(file: &Path, page: &str, catalog: &str) -> u8 {
    let existing = match read(file) {
        Ok(Some(t)) => t,
        Ok(None) => {
            eprintln!(
                "error: {}: no such file (toolgate docs --write creates it)",
                file.display()
            );
            return EXIT_ERROR;
        }
        Err(code) => return code,
    };
    match docs::check_region(&existing, page) {
        Ok(None) => EXIT_OK,
        Ok(Some(diff)) => {
            let code = print_stdout(&diff);
            eprintln!(
                "error: {}: the reference region is stale; run `toolgate docs --catalog {} --write {}`",
                file.display(),
                catalog,
                file.display()
            );
            if code == EXIT_OK { EXIT_FINDINGS } else { code }
        }
        Err(e) => {
            eprintln!("error: {}: {e}", file.display());
            EXIT_ERROR
        }
    }
}
