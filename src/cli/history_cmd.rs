//! `toolgate history NAME`: the timeline of a locked server, from `toolgate.history.json`
//! beside `toolgate.lock` (`toolgate lock --history` writes it); the words are
//! `toolgate_lint::history::timeline`.

use std::path::Path;

use clap::{Args, ValueEnum};
use toolgate_lint::history::{file, timeline};
use toolgate_lint::{hosts, lock};

use super::{EXIT_ERROR, print_stdout};

/// `--format` values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    /// One line per version, its changes under it.
    Human,
    /// The history file's record of the server, with its name.
    Json,
    /// A table, for a pull request or a changelog.
    Markdown,
}

/// Arguments of `toolgate history`.
#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  toolgate lock --history          # learn each server's past first\n  toolgate history everything      # version, date, tools added, removed, renamed, fields\n  toolgate history everything --format markdown\n\nExit codes: 0 printed, 2 no history for NAME (run `toolgate lock --history`) or a bad file."
)]
pub struct HistoryArgs {
    /// The server, as toolgate.lock names it.
    name: String,
    /// The output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// `toolgate history`
pub fn run(args: &HistoryArgs) -> u8 {
    let root = hosts::project_root(Path::new("."));
    let lock_path = root.join(lock::FILE_NAME);
    let history = match file::beside(&lock_path) {
        Ok(Some(h)) => h,
        Ok(None) => {
            eprintln!(
                "error: {}: no {} beside it: run `toolgate lock --history`",
                lock_path.display(),
                file::FILE_NAME
            );
            return EXIT_ERROR;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_ERROR;
        }
    };
    let Some(h) = history.servers.get(&args.name) else {
        let known: Vec<&str> = history.servers.keys().map(String::as_str).collect();
        eprintln!(
            "error: {}: no server `{}` (it has: {})",
            file::FILE_NAME,
            args.name,
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        );
        return EXIT_ERROR;
    };
    let text = match args.format {
        Format::Human => timeline::to_human(&args.name, h),
        Format::Json => timeline::to_json(&args.name, h),
        Format::Markdown => timeline::to_markdown(&args.name, h),
    };
    print_stdout(&text)
}
