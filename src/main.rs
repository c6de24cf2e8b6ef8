//! The `toolgate` binary: the command line over the toolgate libraries, one small module per
//! subcommand (`cli`). clap lives here and nowhere else.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
