//! toolgate-schema: load a catalog folder, check it, resolve profiles, and build what is
//! served from it (each profile's `tools/list`, the manifest).
//!
//! A catalog is one folder: `profiles.json` (the matrix: which profile sees which tool) and
//! `tools/*.json` (one JSON Schema per tool, or per variant). The format is described in
//! `docs/catalog-format.md`.
//!
//! ```no_run
//! use toolgate_schema::{Surface, load_dir};
//!
//! let catalog = load_dir("schema/tatara".as_ref()).expect("a valid catalog");
//! let surface = Surface::from_catalog(&catalog);
//! let session = surface.resolve("refine");
//! for served in surface.served(&session) {
//!     println!("{}", served.tool.name);
//! }
//! ```

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

#[cfg(feature = "codegen")]
pub mod codegen;
pub mod diag;
pub mod diff;
pub mod docs;
pub mod files;
pub mod json;
pub mod load;
pub mod locate;
pub mod model;
pub mod runtime;
pub mod suggest;
pub mod surface;
pub mod validate;

pub use diag::{Diagnostic, Errors};
pub use load::{Catalog, SourceFile, load_dir, load_dir_as, load_sources};
pub use surface::{Entry, Origin, Served, Session, Surface, SurfaceTool};
