//! The `toolgate` binary: a thin shell over `toolgate_lint::cli`.

fn main() -> std::process::ExitCode {
    toolgate_lint::cli::main()
}
