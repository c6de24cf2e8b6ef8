//! toolgate-lint: the skill lint and the `toolgate` command line.
//!
//! The lint engine, one module per concern: [`scan`] (where calls can be in Markdown),
//! [`args`] (the argument parser), [`frontmatter`] (YAML), [`check`] (a call against the
//! surface), [`rules`] (names and explanations), [`negation`] and [`markers`] (what does not
//! count), [`lint`] (one file), [`fix`] (`--fix`, `--diff`), [`config`], [`walk`],
//! [`baseline`] and [`render`].

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

pub mod args;
pub mod baseline;
pub mod check;
pub mod cli;
pub mod config;
pub mod finding;
pub mod fix;
pub mod frontmatter;
pub mod lint;
pub mod markers;
pub mod negation;
pub mod render;
pub mod rules;
pub mod scan;
pub mod servers;
pub mod text;
pub mod toollist;
pub mod walk;

pub use finding::{Edit, Finding};
pub use lint::{FileLint, Linter, Settings};
pub use rules::{Rule, Severity};
pub use text::{Position, Span};
