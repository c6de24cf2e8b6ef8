//! What a file is checked against: the `toolgate.toml` nearest to it (upward, as the CLI
//! finds it) and the surfaces it names, loaded as `toolgate lint` loads them, except that a
//! catalog folder's files open in the editor are read from their buffers: a tool file being
//! edited is the surface the agent files are checked against. The servers the project's host
//! configurations name join them with their surfaces from `toolgate.lock`, as `toolgate lint`
//! adds them (`toolgate_lint::discovered`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use toolgate_lint::config::Config;
use toolgate_lint::discovered::{self, LockedSurface};
use toolgate_lint::servers::{self, ServerSpec, Source};
use toolgate_lint::{Linter, hosts};
use toolgate_schema::{Catalog, Errors, Surface};

/// What the embedding binary knows that the libraries do not: its bundled catalogs.
#[derive(Clone, Copy)]
pub struct Host {
    /// The bundled catalog of a name, loaded (`None`: there is none of that name).
    pub bundled: fn(&str) -> Option<Result<Catalog, Errors>>,
}

/// The text of open buffers, by absolute path: read instead of the file on disk.
pub type Overlay<'a> = &'a dyn Fn(&Path) -> Option<String>;

/// One server of a configuration: a surface and the names its tools are written under.
#[derive(Debug)]
pub struct Server {
    /// Its name (`[servers.NAME]`, or the catalog's).
    pub name: String,
    /// The prefixes its tools are written under.
    pub prefixes: Vec<String>,
    /// Its tools removed without a replacement.
    pub removed: Vec<String>,
    /// What it serves.
    pub surface: Surface,
    /// The catalog folder it was loaded from (absolute), when it is one.
    pub catalog_dir: Option<PathBuf>,
    /// Each tool's file (absolute), when the surface comes from a catalog folder.
    pub tool_files: HashMap<String, PathBuf>,
    /// What its history (`toolgate.history.json`) says beyond the surface; empty without one.
    pub notes: toolgate_lint::history::apply::Notes,
}

/// A configuration with its servers loaded; the first server is the one unprefixed names
/// belong to.
#[derive(Debug)]
pub struct Env {
    /// The configuration (the defaults when no toolgate.toml is found).
    pub config: Config,
    /// The servers.
    pub servers: Vec<Server>,
}

impl Env {
    /// The lint over these servers, as `toolgate lint` sets it up.
    pub fn linter(&self) -> Linter<'_> {
        // The first server's name and prefixes as they were resolved (for a configured one
        // the same as the settings give; for a discovered one, its id and hosts' prefixes).
        let mut settings = self.config.settings();
        settings.server = Some(self.servers[0].name.clone());
        settings.prefixes = Some(self.servers[0].prefixes.clone());
        let mut linter = Linter::new(&self.servers[0].surface, settings);
        for s in &self.servers[1..] {
            linter.add_server(&s.name, &s.prefixes, &s.removed, &s.surface);
        }
        for s in self
            .servers
            .iter()
            .filter(|s| s.notes != Default::default())
        {
            linter.set_past(&s.name, s.notes.clone());
        }
        linter
    }

    /// Whether this configuration reads the catalog folder `dir` (absolute).
    pub fn reads_catalog(&self, dir: &Path) -> bool {
        self.servers
            .iter()
            .any(|s| s.catalog_dir.as_deref() == Some(dir))
    }
}

/// Where a document's configuration comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The nearest `toolgate.toml` above it.
    File(PathBuf),
    /// There is none: the defaults, with this folder as the project (where the host
    /// configurations and `toolgate.lock` are looked for, and what `include` is matched
    /// against), as `toolgate lint` run in it would have them.
    Defaults(PathBuf),
}

impl Origin {
    /// The folder paths are matched against.
    pub fn base(&self) -> PathBuf {
        match self {
            Origin::File(f) => f.parent().map(Path::to_path_buf).unwrap_or_default(),
            Origin::Defaults(base) => base.clone(),
        }
    }
}

/// Loads the configuration a document has and its servers.
pub fn load(origin: &Origin, host: Host, overlay: Overlay<'_>) -> Result<Env, String> {
    let config = match origin {
        Origin::File(p) => match overlay(p) {
            Some(text) => Config::parse(p, &text)?,
            None => Config::load(p)?,
        },
        Origin::Defaults(base) => Config::defaults(base.clone()),
    };
    let found = discover(&config)?;
    let mut found = found.into_iter();
    let main = match main_server(&config, host, overlay) {
        Ok(main) => main,
        // Nothing configured names the surface of unprefixed names: the only discovered
        // server is it; with several, none is (each is reached through its prefixes).
        Err(_) if found.len() == 1 => found.next().map(from_locked).ok_or("no server")?,
        Err(_) if found.len() > 1 => Server {
            name: String::new(),
            prefixes: Vec::new(),
            removed: Vec::new(),
            surface: discovered::empty_surface(),
            catalog_dir: None,
            tool_files: HashMap::new(),
            notes: Default::default(),
        },
        Err(e) => return Err(e),
    };
    if main.surface.tools.is_empty() && !main.name.is_empty() {
        return Err(format!(
            "{}: the surface has no tool; failing closed",
            main.name
        ));
    }
    let mut servers = vec![main];
    servers.extend(found.map(from_locked));
    let unprefixed = config.unprefixed.as_deref();
    for spec in config
        .servers
        .iter()
        .filter(|s| Some(s.name.as_str()) != unprefixed)
    {
        servers.push(spec_server(spec, host, overlay)?);
    }
    Ok(Env { config, servers })
}

/// The servers the host configurations of the configuration's project name, with their
/// locked surfaces (none when `discover = false`); a server not locked is an error, as in
/// `toolgate lint`.
fn discover(config: &Config) -> Result<Vec<LockedSurface>, String> {
    if !config.discover {
        return Ok(Vec::new());
    }
    let root = hosts::project_root(&config.base);
    let skip: Vec<String> = config.servers.iter().map(|s| s.name.clone()).collect();
    discovered::load(&root, &skip)
}

fn from_locked(s: LockedSurface) -> Server {
    Server {
        name: s.id,
        prefixes: s.prefixes,
        removed: Vec::new(),
        surface: s.surface,
        catalog_dir: None,
        tool_files: HashMap::new(),
        notes: s.notes,
    }
}

/// The surface unprefixed names belong to, found as `toolgate lint` finds it with no flag:
/// `catalog`, else `manifest`, else the `[servers.NAME]` table `unprefixed` names.
fn main_server(config: &Config, host: Host, overlay: Overlay<'_>) -> Result<Server, String> {
    let settings = config.settings();
    let (surface, catalog_dir, tool_files) = if let Some(c) = &config.catalog {
        catalog_surface(c, &config.base, host, overlay)?
    } else if let Some(m) = &config.manifest {
        (manifest_surface(m, overlay)?, None, HashMap::new())
    } else if let Some(spec) = config.unprefixed_server() {
        let s = spec_server(spec, host, overlay)?;
        (s.surface, s.catalog_dir, s.tool_files)
    } else {
        return Err(match &config.path {
            Some(p) => format!(
                "{}: no surface to check against: set `catalog` or `manifest`, or a [servers.NAME] table",
                p.display()
            ),
            None => format!(
                "no {} above this file: nothing to check it against",
                toolgate_lint::config::FILE_NAME
            ),
        });
    };
    let (name, prefixes) = settings.server_of(&surface);
    Ok(Server {
        name,
        prefixes,
        removed: settings.removed,
        surface,
        catalog_dir,
        tool_files,
        notes: Default::default(),
    })
}

type Loaded = (Surface, Option<PathBuf>, HashMap<String, PathBuf>);

fn spec_server(spec: &ServerSpec, host: Host, overlay: Overlay<'_>) -> Result<Server, String> {
    let (mut surface, catalog_dir, tool_files) = match &spec.source {
        Source::Catalog(c) => catalog_surface(c, &spec.base, host, overlay)?,
        _ => (
            servers::load(spec, &|n| (host.bundled)(n))?,
            None,
            HashMap::new(),
        ),
    };
    if matches!(spec.source, Source::Catalog(_)) {
        servers::add_renames(&mut surface, &spec.renames)
            .map_err(|e| format!("servers.{}: {e}", spec.name))?;
    }
    Ok(Server {
        name: spec.name.clone(),
        prefixes: spec.prefixes.clone(),
        removed: spec.removed.clone(),
        surface,
        catalog_dir,
        tool_files,
        notes: Default::default(),
    })
}

/// A `catalog = "..."`: a bundled name (no separator, not starting with `.`), else a
/// folder relative to `base`.
fn catalog_surface(
    c: &str,
    base: &Path,
    host: Host,
    overlay: Overlay<'_>,
) -> Result<Loaded, String> {
    let path_like = c.contains('/') || c.contains('\\') || c.starts_with('.');
    if !path_like && let Some(loaded) = (host.bundled)(c) {
        let catalog = loaded.map_err(|e| e.to_string())?;
        return Ok((Surface::from_catalog(&catalog), None, HashMap::new()));
    }
    let mut dir = base.join(c);
    if dir.is_file() && dir.file_name().is_some_and(|n| n == "profiles.json") {
        dir = dir.parent().unwrap_or(Path::new(".")).to_path_buf();
    }
    let dir = toolgate_lint::config::absolute(&dir);
    let catalog = load_catalog(&dir, overlay).map_err(|e| e.to_string())?;
    let tool_files = catalog
        .tools
        .iter()
        .filter_map(|t| Some((t.name.clone(), dir.join(&t.variants.first()?.file))))
        .collect();
    Ok((Surface::from_catalog(&catalog), Some(dir), tool_files))
}

/// Loads the catalog folder `dir` as `toolgate check` does, each file read from its buffer
/// when one is open.
pub fn load_catalog(dir: &Path, overlay: Overlay<'_>) -> Result<Catalog, Errors> {
    let (mut sources, mut read_errors) = toolgate_schema::load::read_dir_sources(dir, dir);
    if sources.is_empty() && !read_errors.is_empty() {
        return Err(Errors(read_errors).sorted());
    }
    for s in &mut sources {
        if let Some(text) = overlay(&dir.join(&s.rel)) {
            s.bytes = text.into_bytes();
        }
    }
    match toolgate_schema::load::load_sources(dir, sources) {
        Ok(catalog) if read_errors.is_empty() => Ok(catalog),
        Ok(_) => Err(Errors(read_errors).sorted()),
        Err(Errors(mut errors)) => {
            errors.append(&mut read_errors);
            Err(Errors(errors).sorted())
        }
    }
}

fn manifest_surface(path: &Path, overlay: Overlay<'_>) -> Result<Surface, String> {
    let bytes = match overlay(&toolgate_lint::config::absolute(path)) {
        Some(t) => t.into_bytes(),
        None => std::fs::read(path)
            .map_err(|e| format!("{}: cannot read the manifest: {e}", path.display()))?,
    };
    Surface::from_manifest(path, &bytes).map_err(|e| e.to_string())
}
