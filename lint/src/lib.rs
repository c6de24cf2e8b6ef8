//! toolgate-lint: the skill lint and the `toolgate` command line.

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

pub mod cli;
