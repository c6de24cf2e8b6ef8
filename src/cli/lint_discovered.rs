//! `toolgate lint` with servers from the host configurations: the discovered servers and
//! their surfaces from `toolgate.lock` (`toolgate_lint::discovered`), given to each linter
//! whose configuration does not turn discovery off. When nothing else names the surface of
//! unprefixed names, the only discovered server is it; with several, unprefixed names belong
//! to none (an empty surface) and every server is reached through its prefixes.

use toolgate_lint::config::Config;
use toolgate_lint::discovered::{self, LockedSurface};
use toolgate_lint::run::Plan;
use toolgate_lint::{Linter, Settings, hosts};
use toolgate_schema::Surface;

use super::EXIT_ERROR;

/// The discovered servers of a run.
pub struct Discovered {
    servers: Vec<LockedSurface>,
}

/// Which discovered server a linter's main surface is.
#[derive(Clone, Copy)]
pub enum Main {
    /// The configuration or the command line names it.
    Other,
    /// The discovered server at this index.
    Server(usize),
    /// An empty surface: unprefixed names belong to no server.
    Empty,
}

/// Discovers the servers of the project of the first PATH, unless the command line names
/// the surface (`flag`) or the configuration turns discovery off; an error (a bad host
/// config, a server not locked) ends the run.
pub fn load(plan: &Plan, flag: bool) -> Result<Discovered, u8> {
    let config = &plan.configs[0];
    if flag || !config.discover {
        return Ok(Discovered {
            servers: Vec::new(),
        });
    }
    let root = match &plan.config_files[0] {
        Some(file) => hosts::project_root(file.parent().unwrap_or(std::path::Path::new("."))),
        None => hosts::project_root(&plan.paths[0]),
    };
    let skip: Vec<String> = config.servers.iter().map(|s| s.name.clone()).collect();
    match discovered::load(&root, &skip) {
        Ok(servers) => Ok(Discovered { servers }),
        Err(e) => {
            eprintln!("error: {e}");
            Err(EXIT_ERROR)
        }
    }
}

impl Discovered {
    fn applies(&self, config: &Config) -> bool {
        config.discover && !self.servers.is_empty()
    }

    /// The surface of unprefixed names for a configuration that names none.
    pub fn main_surface(&self, config: &Config) -> Option<Surface> {
        if !self.applies(config) {
            return None;
        }
        Some(match self.servers.as_slice() {
            [only] => only.surface.clone(),
            _ => discovered::empty_surface(),
        })
    }

    /// The settings of a linter (`named`: something else names its main surface), and which
    /// discovered server it is.
    pub fn settings(&self, named: bool, config: &Config) -> (Settings, Main) {
        let mut settings = config.settings();
        if named || !self.applies(config) {
            return (settings, Main::Other);
        }
        match self.servers.as_slice() {
            [only] => {
                settings.server = Some(only.id.clone());
                settings.prefixes = Some(only.prefixes.clone());
                (settings, Main::Server(0))
            }
            _ => {
                settings.server = Some(String::new());
                settings.prefixes = Some(Vec::new());
                (settings, Main::Empty)
            }
        }
    }

    /// Adds every discovered server but the main one to `linter`.
    pub fn add_to<'s>(&'s self, linter: &mut Linter<'s>, config: &Config, main: Main) {
        if !self.applies(config) {
            return;
        }
        for (i, s) in self.servers.iter().enumerate() {
            if !matches!(main, Main::Server(m) if m == i) {
                linter.add_server(&s.id, &s.prefixes, &[], &s.surface);
            }
            // What its history says (`toolgate.history.json`), on the main server too.
            linter.set_past(&s.id, s.notes.clone());
        }
    }
}
