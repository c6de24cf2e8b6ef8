//! Errors about a catalog: each names the file, the JSON pointer and the line:column.
//!
//! Loading collects every error it finds instead of stopping at the first (the pattern of
//! serde_derive's `Ctxt`), so one run of `toolgate check` or one failed build shows them all.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::locate::{Pointer, Position, locate};

/// One problem in a catalog.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    /// The file, as the user named the catalog folder (never made absolute by toolgate).
    pub path: PathBuf,
    /// Where in the file, when known.
    pub position: Option<Position>,
    /// The JSON pointer of the value at fault, when there is one.
    pub pointer: Option<Pointer>,
    /// What is wrong, and where useful what would be right.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(pos) = self.position {
            write!(f, ":{}:{}", pos.line, pos.column)?;
        }
        f.write_str(": ")?;
        if let Some(pointer) = &self.pointer {
            write!(f, "at {pointer}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// Every error found while loading a catalog.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Errors(pub Vec<Diagnostic>);

impl Errors {
    /// The errors sorted by file, line and column, duplicates removed.
    pub fn sorted(mut self) -> Self {
        self.0.sort();
        self.0.dedup();
        self
    }
}

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "error: {d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Errors {}

/// The text of one catalog file, used to place errors.
#[derive(Clone, Debug)]
pub struct SourceText {
    /// The path shown in messages.
    pub path: PathBuf,
    /// The file's text (empty when it could not be read or decoded).
    pub text: String,
}

/// Collects diagnostics while a catalog is loaded and checked.
#[derive(Debug, Default)]
pub struct Ctxt {
    errors: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
}

impl Ctxt {
    /// A new, empty collector.
    pub fn new() -> Self {
        Ctxt::default()
    }

    /// Records an error at `pointer` inside `source`.
    pub fn at(&mut self, source: &SourceText, pointer: &Pointer, message: impl Into<String>) {
        self.errors.push(Diagnostic {
            path: source.path.clone(),
            position: locate(&source.text, pointer),
            pointer: Some(pointer.clone()),
            message: message.into(),
        });
    }

    /// Records a warning at `pointer` inside `source`: something a catalog may hold (an
    /// annotation no vocabulary defines, a default its own schema refuses) that is still
    /// worth saying. Warnings never fail a load.
    pub fn warn_at(&mut self, source: &SourceText, pointer: &Pointer, message: impl Into<String>) {
        self.warnings.push(Diagnostic {
            path: source.path.clone(),
            position: locate(&source.text, pointer),
            pointer: Some(pointer.clone()),
            message: message.into(),
        });
    }

    /// The warnings recorded so far, sorted, duplicates removed (they stay recorded).
    pub fn warnings(&self) -> Vec<Diagnostic> {
        let mut w = self.warnings.clone();
        w.sort();
        w.dedup();
        w
    }

    /// Moves the warnings of `other` into this collector.
    pub fn take_warnings(&mut self, other: &mut Vec<Diagnostic>) {
        self.warnings.append(other);
    }

    /// Records an error about a whole file, or at a position already known.
    pub fn file(&mut self, path: &Path, position: Option<Position>, message: impl Into<String>) {
        self.errors.push(Diagnostic {
            path: path.to_path_buf(),
            position,
            pointer: None,
            message: message.into(),
        });
    }

    /// How many errors have been recorded.
    pub fn error_count(&self) -> usize {
        self.errors.len()
    }

    /// Whether nothing has been recorded.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// `Ok(value)` when no error was recorded, else every error, sorted.
    pub fn finish<T>(self, value: T) -> Result<T, Errors> {
        if self.errors.is_empty() {
            Ok(value)
        } else {
            Err(Errors(self.errors).sorted())
        }
    }
}
