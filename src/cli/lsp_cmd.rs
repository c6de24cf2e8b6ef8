//! `toolgate lsp`: the language server on stdio (`toolgate_lsp`), given the bundled
//! catalogs.

use clap::Args;

/// Arguments of `toolgate lsp`.
#[derive(Args, Debug)]
#[command(
    after_help = "Editors start it themselves; see docs/lsp.md for VS Code, Neovim, Helix and Zed.\n\nExit codes: 0 after the client's shutdown and exit, 1 when the client exits without shutdown, 2 when the session could not start."
)]
pub struct LspArgs {
    /// Talk over standard input and output (the only transport; accepted because editor
    /// clients pass it).
    #[arg(long)]
    stdio: bool,
}

/// `toolgate lsp`
pub fn run(args: &LspArgs) -> u8 {
    let _ = args.stdio;
    toolgate_lsp::run_stdio(toolgate_lsp::Host {
        bundled: super::source::load_bundled,
    })
}
