//! Which files to lint: the paths given, folders walked in parallel with the `ignore` crate
//! (`.gitignore` rules honoured, `.git`, `target` and `node_modules` skipped, hidden folders
//! such as `.claude/agents/` walked), filtered by the configuration's globs.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

use crate::config::Config;

/// Folders never walked.
pub const SKIPPED_DIRS: &[&str] = &[".git", "target", "node_modules"];

/// A path that could not be walked, with why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkError {
    /// The path, as shown.
    pub path: String,
    /// Why.
    pub message: String,
}

/// The files to lint under `paths`, sorted, each once; and what could not be walked.
pub fn collect(paths: &[PathBuf], config: &Config) -> (Vec<PathBuf>, Vec<WalkError>) {
    let walked = walk(paths, config);
    (walked.files, walked.errors)
}

/// What [`walk`] found.
#[derive(Debug, Default)]
pub struct Walked {
    /// The files to lint, sorted, each once.
    pub files: Vec<PathBuf>,
    /// What could not be walked.
    pub errors: Vec<WalkError>,
    /// Every folder walked, and whether it holds a `toolgate.toml` file: looked up by the
    /// walk's threads, so that finding each file's configuration does not `stat` every
    /// folder again on one thread.
    pub has_config: HashMap<PathBuf, bool>,
}

/// What one walking thread found; merged into the shared lists when the thread is done, so
/// that the threads do not take a lock for every entry.
#[derive(Default)]
struct Found {
    files: Vec<PathBuf>,
    errors: Vec<WalkError>,
    /// Skill files, and the folders that hold something else: only a skill whose folder
    /// holds more than its SKILL.md can link a file of its own, so only those are read.
    skills: Vec<PathBuf>,
    crowded: Vec<PathBuf>,
    has_config: Vec<(PathBuf, bool)>,
}

impl Found {
    fn merge(&mut self, other: Found) {
        self.files.extend(other.files);
        self.errors.extend(other.errors);
        self.skills.extend(other.skills);
        self.crowded.extend(other.crowded);
        self.has_config.extend(other.has_config);
    }
}

struct Visitor<'a> {
    config: &'a Config,
    found: Found,
    into: &'a Mutex<Found>,
}

impl ignore::ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> WalkState {
        let e = match entry {
            Ok(e) => e,
            Err(err) => {
                self.found.errors.push(walk_error(&err));
                return WalkState::Continue;
            }
        };
        let skill = e.file_name() == "SKILL.md";
        if !skill
            && e.depth() > 0
            && let Some(parent) = e.path().parent()
            // Entries of one folder come one after another: it is recorded once.
            && self.found.crowded.last().is_none_or(|last| last != parent)
        {
            self.found.crowded.push(parent.to_path_buf());
        }
        let Some(kind) = e.file_type() else {
            return WalkState::Continue;
        };
        if kind.is_dir() {
            let has = e.path().join(crate::config::FILE_NAME).is_file();
            self.found.has_config.push((e.into_path(), has));
        } else if kind.is_file() {
            let rel = self.config.relative(e.path());
            if self.config.include.is_match(&rel) && !self.config.exclude.is_match(&rel) {
                if skill {
                    self.found.skills.push(e.path().to_path_buf());
                }
                self.found.files.push(e.into_path());
            }
        }
        WalkState::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let found = std::mem::take(&mut self.found);
        match self.into.lock() {
            Ok(mut g) => g.merge(found),
            Err(p) => p.into_inner().merge(found),
        }
    }
}

struct Visitors<'a> {
    config: &'a Config,
    into: &'a Mutex<Found>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Visitors<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Visitor {
            config: self.config,
            found: Found::default(),
            into: self.into,
        })
    }
}

/// Walks `paths` ([`collect`]), noting which folders hold a `toolgate.toml`.
pub fn walk(paths: &[PathBuf], config: &Config) -> Walked {
    let shared = Mutex::new(Found::default());
    for root in paths {
        match std::fs::metadata(root) {
            Err(e) => {
                let error = WalkError {
                    path: display(root),
                    message: unreadable_root(root, &e),
                };
                let found = Found {
                    errors: vec![error],
                    ..Found::default()
                };
                push(&shared, found);
            }
            Ok(m) if m.is_file() => {
                let found = Found {
                    files: vec![root.clone()],
                    ..Found::default()
                };
                push(&shared, found);
            }
            Ok(_) => walk_folder(root, config, &shared),
        }
    }
    let found = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut files = found.files;
    // A skill's own files (`references/api.md`) are what an agent reads when the skill
    // links them: they are linted too, unless excluded.
    let crowded: HashSet<PathBuf> = found.crowded.into_iter().collect();
    for skill in found.skills {
        if skill.parent().is_some_and(|d| crowded.contains(d)) {
            for l in linked_files(&skill) {
                if !config.exclude.is_match(config.relative(&l)) {
                    files.push(l);
                }
            }
        }
    }
    sort_paths(&mut files);
    files.dedup();
    let mut errors = found.errors;
    errors.sort_by(|a, b| a.path.cmp(&b.path).then(a.message.cmp(&b.message)));
    errors.dedup();
    Walked {
        files,
        errors,
        has_config: found.has_config.into_iter().collect(),
    }
}

/// Why a path given on the command line cannot be read: a link to nothing, a missing
/// path, or the system's reason.
fn unreadable_root(root: &Path, e: &std::io::Error) -> String {
    if std::fs::symlink_metadata(root).is_ok() {
        format!("cannot follow this link: {e}")
    } else if e.kind() == std::io::ErrorKind::NotFound {
        "no such file or folder".to_string()
    } else {
        e.to_string()
    }
}

/// Walks the folder `root` on every core (hidden files read, `.gitignore` obeyed, links
/// followed, [`SKIPPED_DIRS`] left out), into `shared`.
fn walk_folder(root: &Path, config: &Config, shared: &Mutex<Found>) {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .parents(true)
        .follow_links(true)
        .filter_entry(|e| {
            !(e.depth() > 0
                && e.file_type().is_some_and(|t| t.is_dir())
                && e.file_name()
                    .to_str()
                    .is_some_and(|n| SKIPPED_DIRS.contains(&n)))
        });
    builder.build_parallel().visit(&mut Visitors {
        config,
        into: shared,
    });
}

/// Sorts `paths` in `Path`'s order (component by component), comparing each path's
/// components as one byte string made once per path: `Path`'s comparison parses both
/// paths into components at every step, and sorting the walk's files took longer than the
/// rest of the plan.
pub fn sort_paths(paths: &mut [PathBuf]) {
    paths.sort_by_cached_key(|p| path_key(p));
}

/// Each component as a byte for its kind (in `Component`'s order), its bytes, and a 0 (no
/// path holds one): byte order on these keys is `Path`'s order.
fn path_key(path: &Path) -> Vec<u8> {
    use std::path::Component;
    let mut key = Vec::with_capacity(path.as_os_str().len() + 8);
    for c in path.components() {
        match c {
            Component::Prefix(p) => {
                key.push(1);
                key.extend_from_slice(p.as_os_str().as_encoded_bytes());
            }
            Component::RootDir => key.push(2),
            Component::CurDir => key.push(3),
            Component::ParentDir => key.push(4),
            Component::Normal(n) => {
                key.push(5);
                key.extend_from_slice(n.as_encoded_bytes());
            }
        }
        key.push(0);
    }
    key
}

/// The Markdown files in the folder of the skill file `skill` (or below it) that it links to
/// with a relative link: `[the API](references/api.md)`, `[api]: ./references/api.md`. A link
/// with a scheme, an absolute path, or a path that leaves the skill's folder is not followed.
pub fn linked_files(skill: &Path) -> Vec<PathBuf> {
    let Some(dir) = skill.parent() else {
        return Vec::new();
    };
    let Ok(text) = read(skill) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for target in link_targets(&text) {
        let Some(path) = within(dir, target) else {
            continue;
        };
        let markdown = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"));
        if markdown && path.is_file() && !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// The targets of a Markdown text's inline links (`](target)`) and link reference
/// definitions (`[label]: target` at the start of a line), fragments and titles dropped.
pub fn link_targets(text: &str) -> Vec<&str> {
    fn clean(raw: &str) -> Option<&str> {
        let raw = raw.trim();
        // `<a b.md>` may hold spaces; otherwise a space starts the title.
        let raw = match raw.strip_prefix('<') {
            Some(r) => r.split('>').next().unwrap_or(r),
            None => raw.split([' ', '\t']).next().unwrap_or(raw),
        };
        let raw = raw.split(['#', '?']).next().unwrap_or(raw);
        (!raw.is_empty()).then_some(raw)
    }
    let mut out = Vec::new();
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        let Some(end) = rest.find([')', '\n']) else {
            continue;
        };
        if let Some(t) = clean(&rest[..end]) {
            out.push(t);
        }
    }
    for line in text.lines() {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix('[')
            && let Some((_, target)) = rest.split_once("]:")
            && let Some(t) = clean(target)
        {
            out.push(t);
        }
    }
    out
}

/// `dir` joined with the relative link `target`, when it stays inside `dir`.
fn within(dir: &Path, target: &str) -> Option<PathBuf> {
    if target.contains("://")
        || target.starts_with('/')
        || target.starts_with('\\')
        || target.contains(':')
    {
        return None;
    }
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for c in Path::new(target).components() {
        match c {
            std::path::Component::Normal(p) => parts.push(p),
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                parts.pop()?;
            }
            _ => return None,
        }
    }
    if parts.is_empty() {
        return None;
    }
    let mut path = dir.to_path_buf();
    path.extend(parts);
    Some(path)
}

fn push(m: &Mutex<Found>, found: Found) {
    match m.lock() {
        Ok(mut g) => g.merge(found),
        Err(p) => p.into_inner().merge(found),
    }
}

fn walk_error(err: &ignore::Error) -> WalkError {
    fn inner(err: &ignore::Error) -> (Option<PathBuf>, String) {
        match err {
            ignore::Error::WithPath { path, err } => (Some(path.clone()), inner(err).1),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                inner(err)
            }
            ignore::Error::Loop { child, ancestor } => (
                Some(child.clone()),
                format!(
                    "a symbolic link loop (it leads back to {})",
                    display(ancestor)
                ),
            ),
            ignore::Error::Io(e) => (None, e.to_string()),
            other => (None, other.to_string()),
        }
    }
    let (path, message) = inner(err);
    WalkError {
        path: path.map_or_else(|| "?".to_string(), |p| display(&p)),
        message,
    }
}

/// A path as shown: relative to the current folder when it is under it, `./` dropped.
pub fn display(path: &Path) -> String {
    let shown = if path.is_absolute() {
        std::env::current_dir()
            .ok()
            .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
            .unwrap_or_else(|| path.to_path_buf())
    } else {
        path.to_path_buf()
    };
    let s = shown.to_string_lossy().into_owned();
    let mut s = s.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.to_string()
}

/// The largest file linted; a skill is a few kilobytes.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Reads a file to lint, or says why it cannot be read.
pub fn read(path: &Path) -> Result<String, String> {
    // Opened first, then asked what it is: one lookup of the path per file (a `stat` by name
    // before `std::fs::read` cost a second one). Without blocking, so that a FIFO is told
    // apart, not waited on.
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let opened = options
        .open(path)
        .and_then(|f| f.metadata().map(|m| (f, m)));
    let (mut file, meta) = match opened {
        Ok(fm) => fm,
        // A socket cannot be opened at all: it is still "not a regular file".
        Err(e) => {
            return Err(match std::fs::metadata(path) {
                Ok(m) if !m.is_file() => "is not a regular file".to_string(),
                _ => format!("cannot read it: {e}"),
            });
        }
    };
    if !meta.is_file() {
        return Err("is not a regular file".to_string());
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "is {:.1} MiB, more than the {} MiB a skill file may have; not checked",
            meta.len() as f64 / (1024.0 * 1024.0),
            MAX_FILE_BYTES / (1024 * 1024)
        ));
    }
    let bytes = read_sized(&mut file, usize::try_from(meta.len()).unwrap_or(0))
        .map_err(|e| format!("cannot read it: {e}"))?;
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Err("is a binary file (it holds NUL bytes); not checked".to_string());
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        format!("is not valid UTF-8 (bad byte at offset {at}, line {line}); not checked")
    })
}

/// Reads the regular file `file`, `size` bytes long when it was opened: one `read` when it
/// still is (the size is asked for a byte more, and coming short means the end), where
/// `read_to_end` makes a second one to see the end. A file that grew is read to its end.
fn read_sized(file: &mut std::fs::File, size: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = vec![0; size + 1];
    let mut filled = 0;
    loop {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        if filled == size {
            break;
        }
        if filled == bytes.len() {
            bytes.truncate(filled);
            file.read_to_end(&mut bytes)?;
            return Ok(bytes);
        }
    }
    bytes.truncate(filled);
    Ok(bytes)
}

/// Reads a file to lint like [`read`], but a file that is not valid UTF-8 is decoded lossily
/// (each bad byte becomes U+FFFD) and comes back with a warning; `--fix` must not rewrite it.
pub fn read_lossy(path: &Path) -> Result<(String, Option<String>), String> {
    match read(path) {
        Ok(t) => Ok((t, None)),
        Err(e) if e.starts_with("is not valid UTF-8") => {
            let bytes = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
            let at = std::str::from_utf8(&bytes)
                .err()
                .map_or(0, |e| e.valid_up_to());
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            Ok((
                String::from_utf8_lossy(&bytes).into_owned(),
                Some(format!(
                    "is not valid UTF-8 (bad byte at offset {at}, line {line}); read lossily, and --fix leaves it alone"
                )),
            ))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_sort_as_path_does() {
        let mut paths: Vec<PathBuf> = [
            "a/b",
            "a-b",
            "a/b/c",
            "a",
            "./a",
            "a//b/./c",
            "/x",
            "../y",
            "a/b-c",
            "a/b/c.md",
            "ab",
            "a/\u{1}",
            ".hidden/x",
            "-x",
            "a/B",
            "a/é",
            "skills/s/SKILL.md",
            "skills/s/references/api.md",
            "skills/s-2/SKILL.md",
            "skills/s.x/SKILL.md",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let mut by_path = paths.clone();
        by_path.sort();
        sort_paths(&mut paths);
        assert_eq!(paths, by_path);
    }

    #[test]
    fn link_targets_and_where_they_lead() {
        let text = "See [the API](references/api.md#calls), [x](<a b.md> \"t\"), [w](https://x.y/z.md).\n[ref]: ./more/notes.md\n";
        assert_eq!(
            link_targets(text),
            [
                "references/api.md",
                "a b.md",
                "https://x.y/z.md",
                "./more/notes.md"
            ]
        );
        let dir = Path::new("skills/s");
        assert_eq!(
            within(dir, "./more/notes.md"),
            Some(PathBuf::from("skills/s/more/notes.md"))
        );
        assert_eq!(within(dir, "../other/SKILL.md"), None);
        assert_eq!(within(dir, "https://x.y/z.md"), None);
        assert_eq!(within(dir, "/etc/passwd"), None);
        assert_eq!(
            within(dir, "a/../b.md"),
            Some(PathBuf::from("skills/s/b.md"))
        );
    }
}
