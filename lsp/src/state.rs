//! The open documents and the configurations they are checked with: what each document is
//! (a file the lint reads, a catalog file, a `toolgate.toml`, or none of these), its
//! diagnostics, and which documents to check again when a catalog or configuration changes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use lsp_types::{Diagnostic, DiagnosticSeverity, Uri};
use toolgate_lint::config::{self, Config};
use toolgate_lint::walk;

use crate::diagnostics::{self, Text};
use crate::env::{self, Env, Host, Origin};
use crate::text::{Encoding, Lines};

/// What a document is to the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A file the lint reads (the configuration's `include`, or a skill's linked file).
    Lint,
    /// A file of the catalog folder `dir` (absolute): `profiles.json` or under `tools/`.
    Catalog(PathBuf),
    /// A `toolgate.toml`.
    Config,
    /// Nothing the server checks.
    Other,
}

/// One open document.
#[derive(Debug)]
pub struct Doc {
    /// Its URI.
    pub uri: Uri,
    /// Its path, for a `file:` URI.
    pub path: Option<PathBuf>,
    /// The buffer's text (never the file on disk).
    pub text: String,
    /// The buffer's version.
    pub version: i32,
    /// Its line starts.
    pub lines: Lines,
    /// What it is.
    pub kind: Kind,
    /// A problem with the file on disk found when it was opened (not UTF-8).
    pub on_disk: Option<String>,
}

/// The configuration of a file (its toolgate.toml, or the defaults) and what loading it gave.
type Loaded = Result<Rc<Env>, String>;

/// Documents, configurations and servers.
pub struct State {
    /// The embedding binary's bundled catalogs.
    pub host: Host,
    /// The negotiated position encoding.
    pub enc: Encoding,
    /// The workspace's root folder, when the client gave one: paths are shown (and matched
    /// as the lint matches them) relative to it, as `toolgate lint` run there shows them.
    pub root: Option<PathBuf>,
    /// Open documents by URI.
    pub docs: HashMap<Uri, Doc>,
    by_path: HashMap<PathBuf, Uri>,
    envs: HashMap<Origin, Loaded>,
    /// Configuration errors already shown with `window/showMessage`.
    pub shown: HashSet<String>,
}

impl State {
    /// No document open yet.
    pub fn new(host: Host, enc: Encoding, root: Option<PathBuf>) -> State {
        State {
            host,
            enc,
            root,
            docs: HashMap::new(),
            by_path: HashMap::new(),
            envs: HashMap::new(),
            shown: HashSet::new(),
        }
    }

    /// Opens (or replaces) a document.
    pub fn open(&mut self, uri: Uri, text: String, version: i32) {
        let path = crate::uri::to_path(&uri).map(|p| config::absolute(&p));
        let on_disk = path.as_deref().and_then(disk_problem);
        let mut doc = Doc {
            uri: uri.clone(),
            lines: Lines::new(&text),
            kind: Kind::Other,
            path,
            text,
            version,
            on_disk,
        };
        doc.kind = self.kind_of(&doc);
        if let Some(p) = &doc.path {
            self.by_path.insert(p.clone(), uri.clone());
        }
        self.docs.insert(uri, doc);
    }

    /// Replaces a document's text.
    pub fn change(&mut self, uri: &Uri, text: String, version: i32) -> bool {
        match self.docs.get_mut(uri) {
            Some(doc) => {
                doc.lines = Lines::new(&text);
                doc.text = text;
                doc.version = version;
                true
            }
            None => false,
        }
    }

    /// Closes a document.
    pub fn close(&mut self, uri: &Uri) -> Option<Doc> {
        let doc = self.docs.remove(uri)?;
        if let Some(p) = &doc.path {
            self.by_path.remove(p);
        }
        Some(doc)
    }

    /// The buffer of the file at `path` (absolute), when it is open.
    pub fn buffer(&self, path: &Path) -> Option<String> {
        let uri = self.by_path.get(path)?;
        self.docs.get(uri).map(|d| d.text.clone())
    }

    /// What a document is.
    fn kind_of(&mut self, doc: &Doc) -> Kind {
        let Some(path) = &doc.path else {
            return Kind::Other;
        };
        if path.file_name().is_some_and(|n| n == config::FILE_NAME) {
            return Kind::Config;
        }
        if let Some(dir) = catalog_dir_of(path) {
            return Kind::Catalog(dir);
        }
        let origin = self.origin_of(path);
        match self.env(&origin) {
            Ok(env) if lints(&env.config, path) => Kind::Lint,
            Err(_) if lints(&Config::defaults(origin.base()), path) => Kind::Lint,
            _ => Kind::Other,
        }
    }

    /// Where the configuration of the document at `path` (absolute) comes from: the nearest
    /// toolgate.toml above it; with none, the defaults for the workspace root when the
    /// document is inside it, else for the repository around it (its nearest folder with a
    /// `.git`), never for the folder the server was started in.
    pub fn origin_of(&self, path: &Path) -> Origin {
        if let Some(file) = config::find(path) {
            return Origin::File(file);
        }
        match &self.root {
            Some(root) if path.starts_with(root) => Origin::Defaults(root.clone()),
            _ => Origin::Defaults(toolgate_lint::hosts::project_root(
                path.parent().unwrap_or(path),
            )),
        }
    }

    /// A configuration, loaded once (until it or a catalog it reads changes).
    pub fn env(&mut self, origin: &Origin) -> Loaded {
        if let Some(hit) = self.envs.get(origin) {
            return hit.clone();
        }
        let loaded = {
            let overlay = |p: &Path| self.buffer(p);
            env::load(origin, self.host, &overlay).map(Rc::new)
        };
        self.envs.insert(origin.clone(), loaded.clone());
        loaded
    }

    /// The configuration of the document at `path`.
    pub fn env_of(&mut self, path: &Path) -> Loaded {
        let origin = self.origin_of(path);
        self.env(&origin)
    }

    /// Forgets the configurations a change of the document `uri` may change (it is a
    /// `toolgate.toml` or a catalog file); returns the open documents to check again.
    pub fn invalidate(&mut self, uri: &Uri) -> Vec<Uri> {
        let Some(doc) = self.docs.get(uri) else {
            return Vec::new();
        };
        match &doc.kind {
            Kind::Config => {
                // A configuration can change what any file is, and which surface it reads.
                self.envs.clear();
                let uris: Vec<Uri> = self.docs.keys().cloned().collect();
                for u in &uris {
                    if let Some(d) = self.docs.get(u) {
                        let kind = self.kind_of_path(d.path.clone(), d.uri.clone());
                        if let Some(d) = self.docs.get_mut(u) {
                            d.kind = kind;
                        }
                    }
                }
                uris.into_iter().filter(|u| u != uri).collect()
            }
            Kind::Catalog(dir) => {
                let dir = dir.clone();
                self.envs
                    .retain(|_, e| e.as_ref().is_ok_and(|e| !e.reads_catalog(&dir)) || e.is_err());
                // A configuration that failed may fail because of this catalog.
                self.envs.retain(|_, e| e.is_ok());
                self.docs
                    .values()
                    .filter(|d| d.uri != *uri && matches!(d.kind, Kind::Lint | Kind::Catalog(_)))
                    .map(|d| d.uri.clone())
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    fn kind_of_path(&mut self, path: Option<PathBuf>, uri: Uri) -> Kind {
        let probe = Doc {
            uri,
            path,
            text: String::new(),
            version: 0,
            lines: Lines::default(),
            kind: Kind::Other,
            on_disk: None,
        };
        self.kind_of(&probe)
    }

    /// The path a document is shown (and matched) as: relative to the workspace root when
    /// it is inside it, else absolute.
    pub fn shown(&self, path: &Path) -> String {
        let rel = self
            .root
            .as_deref()
            .and_then(|r| path.strip_prefix(r).ok())
            .unwrap_or(path);
        rel.to_string_lossy().replace('\\', "/")
    }

    /// The diagnostics of a document, and a configuration error to show once.
    pub fn diagnostics(&mut self, uri: &Uri) -> (Vec<Diagnostic>, Option<String>) {
        let Some(doc) = self.docs.get(uri) else {
            return (Vec::new(), None);
        };
        let (kind, path) = (doc.kind.clone(), doc.path.clone());
        let Some(path) = path else {
            return (Vec::new(), None);
        };
        match kind {
            Kind::Lint => self.lint_diagnostics(uri, &path),
            Kind::Catalog(dir) => (self.catalog_diagnostics(uri, &path, &dir), None),
            Kind::Config => self.config_diagnostics(uri, &path),
            Kind::Other => (Vec::new(), None),
        }
    }

    fn lint_diagnostics(&mut self, uri: &Uri, path: &Path) -> (Vec<Diagnostic>, Option<String>) {
        let loaded = self.env_of(path);
        let shown = self.shown(path);
        let Some(doc) = self.docs.get(uri) else {
            return (Vec::new(), None);
        };
        let t = Text {
            text: &doc.text,
            lines: &doc.lines,
            enc: self.enc,
        };
        let mut out = Vec::new();
        if let Some(p) = &doc.on_disk {
            out.push(diagnostics::plain(
                t.range0(),
                DiagnosticSeverity::WARNING,
                p.clone(),
            ));
        }
        if let Some(why) = unreadable(&doc.text) {
            out.push(diagnostics::plain(
                t.range0(),
                DiagnosticSeverity::ERROR,
                why,
            ));
            return (out, None);
        }
        let env = match loaded {
            Ok(env) => env,
            Err(e) => {
                let severity = if config::find(path).is_some() {
                    DiagnosticSeverity::ERROR
                } else {
                    DiagnosticSeverity::INFORMATION
                };
                out.push(diagnostics::plain(
                    t.range0(),
                    severity,
                    format!("not checked: {e}"),
                ));
                return (out, Some(e));
            }
        };
        let linter = env.linter();
        let mapped = env.config.mapped_profiles(path);
        let lint = linter.lint_text(&shown, &doc.text, mapped);
        out.extend(lint.findings.iter().map(|f| diagnostics::of_finding(&t, f)));
        for e in &lint.errors {
            out.push(diagnostics::of_message(
                &t,
                &shown,
                e,
                DiagnosticSeverity::ERROR,
            ));
        }
        for w in &lint.warnings {
            out.push(diagnostics::of_message(
                &t,
                &shown,
                w,
                DiagnosticSeverity::WARNING,
            ));
        }
        (out, None)
    }

    fn catalog_diagnostics(&mut self, uri: &Uri, path: &Path, dir: &Path) -> Vec<Diagnostic> {
        let result = {
            let overlay = |p: &Path| self.buffer(p);
            env::load_catalog(dir, &overlay)
        };
        let Some(doc) = self.docs.get(uri) else {
            return Vec::new();
        };
        let t = Text {
            text: &doc.text,
            lines: &doc.lines,
            enc: self.enc,
        };
        match result {
            Ok(catalog) => diagnostics::of_catalog(
                &t,
                path,
                dir,
                &toolgate_schema::Errors(catalog.warnings),
                DiagnosticSeverity::WARNING,
            ),
            Err(errors) => {
                diagnostics::of_catalog(&t, path, dir, &errors, DiagnosticSeverity::ERROR)
            }
        }
    }

    fn config_diagnostics(&mut self, uri: &Uri, path: &Path) -> (Vec<Diagnostic>, Option<String>) {
        let loaded = self.env(&Origin::File(path.to_path_buf()));
        let Some(doc) = self.docs.get(uri) else {
            return (Vec::new(), None);
        };
        let t = Text {
            text: &doc.text,
            lines: &doc.lines,
            enc: self.enc,
        };
        match loaded {
            Ok(_) => (Vec::new(), None),
            Err(e) => {
                let shown = path.display().to_string();
                let d = diagnostics::of_message(&t, &shown, &e, DiagnosticSeverity::ERROR);
                (vec![d], None)
            }
        }
    }
}

/// Whether the lint reads the file at `path` (absolute) under `config`: its `include` and
/// not its `exclude`, or a Markdown file a skill above it links to.
pub fn lints(config: &Config, path: &Path) -> bool {
    let rel = config.relative(path);
    if config.exclude.is_match(&rel) {
        return false;
    }
    if config.include.is_match(&rel) {
        return true;
    }
    let markdown = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"));
    markdown
        && path.ancestors().skip(1).take(4).any(|dir| {
            let skill = dir.join("SKILL.md");
            skill.is_file()
                && walk::linked_files(&skill)
                    .iter()
                    .any(|l| config::absolute(l) == path)
        })
}

/// The catalog folder a file belongs to: `DIR/profiles.json` or `DIR/tools/**.json`, where
/// `DIR` holds a `profiles.json`.
pub fn catalog_dir_of(path: &Path) -> Option<PathBuf> {
    if path.extension().is_none_or(|e| e != "json") {
        return None;
    }
    if path.file_name().is_some_and(|n| n == "profiles.json") {
        let dir = path.parent()?;
        return dir.join("tools").is_dir().then(|| dir.to_path_buf());
    }
    path.ancestors()
        .skip(1)
        .find(|a| a.file_name().is_some_and(|n| n == "tools"))
        .and_then(Path::parent)
        .filter(|dir| dir.join("profiles.json").is_file())
        .map(Path::to_path_buf)
}

/// Why a buffer is not checked at all: too large, or binary.
fn unreadable(text: &str) -> Option<String> {
    if text.len() as u64 > walk::MAX_FILE_BYTES {
        return Some(format!(
            "not checked: larger than {} MiB",
            walk::MAX_FILE_BYTES / (1024 * 1024)
        ));
    }
    let head = &text.as_bytes()[..text.len().min(8192)];
    head.contains(&0)
        .then(|| "not checked: a binary file (it holds NUL bytes)".to_string())
}

/// A problem with the file on disk the editor's buffer hides: not valid UTF-8 (the editor
/// decoded it somehow; the lint would read it lossily and never rewrite it).
fn disk_problem(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > walk::MAX_FILE_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let e = std::str::from_utf8(&bytes).err()?;
    let line = bytes[..e.valid_up_to()]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1;
    Some(format!(
        "the file on disk is not valid UTF-8 (line {line}); checked as the editor decoded it, and `toolgate lint` reads it with replacement characters"
    ))
}
