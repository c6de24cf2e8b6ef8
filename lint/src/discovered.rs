//! The lint's servers when the repository's host configurations name them: each discovered
//! server under its hosts' prefixes, its surface from `toolgate.lock`. Never starts a server:
//! a server the configurations name but the lock lacks is an error that says to run
//! `toolgate lock`.

use std::path::Path;

use toolgate_schema::Surface;

use crate::hosts::{self, Discovery};
use crate::lock::{self, Lock};

/// One discovered server with its locked surface.
#[derive(Clone, Debug)]
pub struct LockedSurface {
    /// Its id (the lock's key).
    pub id: String,
    /// The prefixes of the hosts that read its file.
    pub prefixes: Vec<String>,
    /// Its tools as locked, with the renames its history (`toolgate.history.json`) implies.
    pub surface: Surface,
    /// What its history says beyond the surface (versions, removals); empty without one.
    pub notes: crate::history::apply::Notes,
}

/// The servers the host configurations of the project at `root` name, with their surfaces
/// from `root/toolgate.lock`; `skip` names servers `toolgate.toml` defines itself (it wins).
pub fn load(root: &Path, skip: &[String]) -> Result<Vec<LockedSurface>, String> {
    let discovery = hosts::discover(root).map_err(|e| e.join("\nerror: "))?;
    let wanted: Vec<&hosts::HostServer> = discovery
        .servers
        .iter()
        .filter(|s| !skip.contains(&s.id))
        .collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let path = root.join(lock::FILE_NAME);
    if !path.is_file() {
        let names: Vec<String> = wanted
            .iter()
            .map(|s| format!("`{}` ({})", s.id, s.declared[0]))
            .collect();
        return Err(format!(
            "the host configurations name {} but there is no {}: run `toolgate lock` to capture their tools",
            names.join(", "),
            lock::FILE_NAME
        ));
    }
    let lock = lock::read(&path)?;
    surfaces(&discovery, &lock, skip, &path)
}

/// The locked surface of each discovered server not in `skip`.
pub fn surfaces(
    discovery: &Discovery,
    lock: &Lock,
    skip: &[String],
    lock_path: &Path,
) -> Result<Vec<LockedSurface>, String> {
    let history = crate::history::file::beside(lock_path)?;
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for s in discovery.servers.iter().filter(|s| !skip.contains(&s.id)) {
        let Some(locked) = lock.servers.get(&s.id) else {
            missing.push(format!("`{}` ({})", s.id, s.declared[0]));
            continue;
        };
        let shown = lock_path.join(&s.id);
        let mut surface = crate::servers::tools_list_surface(&shown, &locked.tools_list_bytes())
            .map_err(|e| format!("{}: servers.{}: {e}", lock_path.display(), s.id))?;
        let notes = match history.as_ref().and_then(|h| h.servers.get(&s.id)) {
            Some(h) => crate::history::apply::apply(&mut surface, &h.past(&locked.tool_names())),
            None => crate::history::apply::Notes::default(),
        };
        out.push(LockedSurface {
            id: s.id.clone(),
            prefixes: s.prefixes(),
            surface,
            notes,
        });
    }
    if !missing.is_empty() {
        return Err(format!(
            "{}: has no server {}, which the host configurations name: run `toolgate lock`",
            lock_path.display(),
            missing.join(", ")
        ));
    }
    Ok(out)
}

/// A surface with no tool: the first server of a lint whose servers are all behind their
/// prefixes (unprefixed names belong to none of them).
pub fn empty_surface() -> Surface {
    Surface {
        catalog: String::new(),
        description: None,
        selector: None,
        profiles: Vec::new(),
        fail_closed: Vec::new(),
        tools: Vec::new(),
        origin: toolgate_schema::Origin::Full,
        assert_formats: false,
    }
}
