//! toolgate-lint: the skill lint and the `toolgate` command line.

pub mod cli;
