//! The requests: completion, hover, quick fixes and definitions, each over the document's
//! buffer and the lint's findings and surfaces; and applying a `didChange`.

mod actions;
mod at;
mod complete;
mod describe;

use lsp_types::TextDocumentContentChangeEvent;

pub use actions::code_actions;
pub use complete::completion;
pub use describe::{definition, hover};

use crate::state::Doc;
use crate::text::{Encoding, Lines};

/// The document's text after `changes`: a change without a range replaces the whole text
/// (what this server asks for); one with a range is applied too, whatever was advertised.
pub fn apply_changes(
    doc: &Doc,
    enc: Encoding,
    changes: Vec<TextDocumentContentChangeEvent>,
) -> String {
    let mut text = doc.text.clone();
    let mut lines: Option<Lines> = None;
    for c in changes {
        match c.range {
            None => {
                text = c.text;
                lines = None;
            }
            Some(range) => {
                let l = lines.get_or_insert_with(|| Lines::new(&text));
                let start = l.offset(&text, range.start, enc);
                let end = l.offset(&text, range.end, enc).max(start);
                text.replace_range(start..end, &c.text);
                lines = None;
            }
        }
    }
    text
}
