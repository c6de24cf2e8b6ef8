//! toolgate-lsp: the skill lint as a language server. Diagnostics come from the lint
//! library itself ([`toolgate_lint::Linter::lint_text`] on the editor's buffer, configured
//! as `toolgate lint` configures it), so an editor shows exactly what CI would; catalog
//! files get `toolgate check`'s errors. On top: completion of tool names, fields, values and
//! profiles, hover, quick fixes for renames and did-you-means, go to definition.
//!
//! The protocol loop is `lsp-server` (rust-analyzer's): synchronous, one thread for the
//! state and two for stdio, no async runtime. [`run_stdio`] is what `toolgate lsp` calls;
//! [`serve`] runs a session over any [`lsp_server::Connection`] (tests use
//! `Connection::memory()`).
//!
//! Modules: [`server`] (the loop, dispatch, `catch_unwind`), [`state`] (documents and
//! configurations), [`env`] (surfaces loaded as the CLI loads them, open buffers first),
//! [`diagnostics`], [`features`] (the requests), [`text`] (positions in the negotiated
//! encoding), [`uri`].

#![cfg_attr(not(test), warn(clippy::unwrap_used))]

pub mod diagnostics;
pub mod env;
pub mod features;
pub mod server;
pub mod state;
pub mod text;
pub mod uri;

pub use env::Host;
pub use lsp_server;
pub use server::{Ended, serve};

/// Serves one session on standard input and output; the exit status: 0 after `shutdown`
/// and `exit`, 1 otherwise (the protocol's rule), 2 when the session could not start.
pub fn run_stdio(host: Host) -> u8 {
    let (connection, io) = lsp_server::Connection::stdio();
    let ended = serve(&connection, host);
    drop(connection);
    let joined = io.join();
    match ended {
        Ok(Ended::Clean) => 0,
        Ok(Ended::Abrupt) => 1,
        Err(e) => {
            eprintln!("toolgate lsp: {e}");
            if let Err(e) = joined {
                eprintln!("toolgate lsp: {e}");
            }
            2
        }
    }
}
