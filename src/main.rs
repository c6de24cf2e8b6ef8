//! The `toolgate` binary: the command line over the toolgate libraries, one small module per
//! subcommand (`cli`). clap lives here and nowhere else.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]
// The release build computes the layout of `serve_stdio`'s future over the gate's backend
// (rmcp's service nested in toolgate-serve's) deeper than rustc's default limit of 128
// queries ("queries overflow the depth limit"); debug builds stay under it.
#![recursion_limit = "256"]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
