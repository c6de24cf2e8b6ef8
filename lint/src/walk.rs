//! Which files to lint: the paths given, folders walked in parallel with the `ignore` crate
//! (`.gitignore` rules honoured, `.git`, `target` and `node_modules` skipped, hidden folders
//! such as `.claude/agents/` walked), filtered by the configuration's globs.

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
    let found = Mutex::new(Vec::new());
    let errors = Mutex::new(Vec::new());
    // Skill files, and the folders that hold something else: only a skill whose folder holds
    // more than its SKILL.md can link a file of its own, so only those are read here.
    let skills = Mutex::new(Vec::new());
    let crowded = Mutex::new(Vec::new());
    for root in paths {
        let meta = std::fs::metadata(root);
        match meta {
            Err(e) => {
                let message = if std::fs::symlink_metadata(root).is_ok() {
                    format!("cannot follow this link: {e}")
                } else if e.kind() == std::io::ErrorKind::NotFound {
                    "no such file or folder".to_string()
                } else {
                    e.to_string()
                };
                push(
                    &errors,
                    WalkError {
                        path: display(root),
                        message,
                    },
                );
                continue;
            }
            Ok(m) if m.is_file() => {
                push(&found, root.clone());
                continue;
            }
            Ok(_) => {}
        }
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
        builder.build_parallel().run(|| {
            let found = &found;
            let errors = &errors;
            let skills = &skills;
            let crowded = &crowded;
            Box::new(move |entry| {
                match entry {
                    Ok(e) => {
                        let skill = e.file_name() == "SKILL.md";
                        if !skill
                            && e.depth() > 0
                            && let Some(parent) = e.path().parent()
                        {
                            push(crowded, parent.to_path_buf());
                        }
                        if e.file_type().is_some_and(|t| t.is_file()) {
                            let rel = config.relative(e.path());
                            if config.include.is_match(&rel) && !config.exclude.is_match(&rel) {
                                if skill {
                                    push(skills, e.path().to_path_buf());
                                }
                                push(found, e.into_path());
                            }
                        }
                    }
                    Err(err) => push(errors, walk_error(&err)),
                }
                WalkState::Continue
            })
        });
    }
    let mut files = found.into_inner().unwrap_or_else(|e| e.into_inner());
    // A skill's own files (`references/api.md`) are what an agent reads when the skill
    // links them: they are linted too, unless excluded.
    let crowded: std::collections::HashSet<PathBuf> = crowded
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .collect();
    for skill in skills.into_inner().unwrap_or_else(|e| e.into_inner()) {
        if skill.parent().is_some_and(|d| crowded.contains(d)) {
            for l in linked_files(&skill) {
                if !config.exclude.is_match(config.relative(&l)) {
                    files.push(l);
                }
            }
        }
    }
    files.sort();
    files.dedup();
    let mut errs = errors.into_inner().unwrap_or_else(|e| e.into_inner());
    errs.sort_by(|a, b| a.path.cmp(&b.path).then(a.message.cmp(&b.message)));
    errs.dedup();
    (files, errs)
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

fn push<T>(m: &Mutex<Vec<T>>, v: T) {
    match m.lock() {
        Ok(mut g) => g.push(v),
        Err(p) => p.into_inner().push(v),
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
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
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
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
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
