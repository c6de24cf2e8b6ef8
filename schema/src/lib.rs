//! toolgate-schema: the catalog. Load a catalog folder with located errors, check it,
//! resolve profiles, build what is served from it (each profile's `tools/list`, the
//! manifest) and diff two surfaces. It builds on `toolgate-runtime`'s schema model and
//! generates no code (that is `toolgate-codegen`).
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

pub mod audit;
pub mod cost;
pub mod diff;
pub mod docs;
pub mod files;
pub mod hosts;
pub mod import;
pub mod limits;
pub mod load;
pub mod stacks;
pub mod suggest;
pub mod surface;
pub mod validator;

// The schema model, its JSON value, located errors and the validator belong to the run time
// (generated code needs them without the loader); the catalog builds on them under the same
// paths.
pub use toolgate_runtime as runtime;
pub use toolgate_runtime::{diag, json, locate, model, validate};

pub use diag::{Diagnostic, Errors};
/// The risk of a diff's changes (`diff::risk`), under the name the gate and the docs use.
pub use diff::risk as diff_risk;
pub use load::{Catalog, SourceFile, load_dir, load_dir_as, load_sources};
pub use surface::{Entry, Origin, Served, Session, Surface, SurfaceTool};
