//! toolgate-lint: the skill lint as a library, with one entry point ([`run`]: configuration
//! -> walk -> scan -> check -> findings), rendering apart ([`render`]). It knows no command
//! line, no MCP transport and no bundled catalog: the `toolgate` CLI gives it a surface.
//!
//! The lint engine, one module per concern: [`scan`] (where calls can be in Markdown),
//! [`args`] (the argument parser), [`frontmatter`] (YAML), [`check`] (a call against the
//! surface), [`rules`] (names and explanations), [`negation`] and [`markers`] (what does not
//! count), [`params`] (parameters written without call syntax), [`lint`] (one file, as a
//! pipeline of stages over a [`Document`]), [`fix`] (`--fix`, `--diff`), [`config`],
//! [`walk`], [`baseline`], [`run`] and [`render`]; [`hosts`] (the servers a repository's host
//! configurations name) and [`lock`] (`toolgate.lock`, their captured surfaces).

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

pub mod args;
pub mod baseline;
pub mod check;
pub mod config;
pub mod discovered;
pub mod fieldname;
pub mod finding;
pub mod fix;
pub mod forms;
pub mod frontmatter;
pub mod history;
pub mod hosts;
pub mod lint;
pub mod lock;
pub mod lock_report;
pub mod markers;
pub mod negation;
pub mod params;
pub mod render;
pub mod rules;
pub mod run;
pub mod scan;
pub mod servers;
pub mod text;
pub mod toollist;
pub mod walk;

pub use finding::Finding;
pub use lint::{Document, FileLint, Linter, Settings, ToolRef};
pub use rules::{Rule, Severity};
pub use text::{Edit, Position, Span};
