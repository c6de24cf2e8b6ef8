//! Quick fixes: for every finding under the asked range, the rewrite `--fix` makes there (a
//! declared rename) or the did-you-mean put in place, each as a `WorkspaceEdit` (no
//! command, so any client applies it).

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, Diagnostic, TextEdit,
    WorkspaceEdit,
};
use toolgate_lint::Finding;

use crate::diagnostics::{self, Text};
use crate::state::State;

/// `textDocument/codeAction`.
pub fn code_actions(state: &mut State, p: &CodeActionParams) -> Option<Vec<CodeActionOrCommand>> {
    let uri = &p.text_document.uri;
    let findings = super::at::findings(state, uri)?;
    let doc = state.docs.get(uri)?;
    let t = Text {
        text: &doc.text,
        lines: &doc.lines,
        enc: state.enc,
    };
    let start = doc.lines.offset(&doc.text, p.range.start, state.enc);
    let end = doc.lines.offset(&doc.text, p.range.end, state.enc);
    let mut out = Vec::new();
    for f in &findings {
        if f.span.end < start || f.span.start > end {
            continue;
        }
        let Some((title, edit, preferred)) = fix_of(f, doc.text.as_str()) else {
            continue;
        };
        let diagnostic = matching(&p.context.diagnostics, &diagnostics::of_finding(&t, f));
        let range = doc.lines.range(&doc.text, edit.0, edit.1, state.enc);
        let changes = HashMap::from([(uri.clone(), vec![TextEdit::new(range, edit.2)])]);
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diagnostic]),
            edit: Some(WorkspaceEdit::new(changes)),
            is_preferred: Some(preferred),
            ..CodeAction::default()
        }));
    }
    Some(out)
}

type Rewrite = (usize, usize, String);

/// The title, the rewrite and whether it is the preferred fix (a declared rename is; a
/// guess is not).
fn fix_of(f: &Finding, text: &str) -> Option<(String, Rewrite, bool)> {
    if let Some(e) = &f.fix {
        let old = text.get(e.span.range()).unwrap_or_default();
        let title = format!("Replace `{old}` with `{}` (renamed)", e.replacement);
        return Some((
            title,
            (e.span.start, e.span.end, e.replacement.clone()),
            true,
        ));
    }
    let s = f.suggestion.as_ref()?;
    let written = text.get(f.span.range())?;
    // The span may hold the quotes of a value: the suggestion replaces what is inside.
    let (start, end) = match written.strip_prefix(['"', '\'']) {
        Some(inner) if inner.ends_with(['"', '\'']) && inner.len() >= 1 => {
            (f.span.start + 1, f.span.end - 1)
        }
        _ => (f.span.start, f.span.end),
    };
    // A prefixed name (`mcp__tatara__note_serch`): the suggestion is the bare tool name.
    let written_inner = &text[start..end];
    let start = match f.tool.as_deref() {
        Some(tool) if written_inner.ends_with(tool) && f.field.is_none() && f.value.is_none() => {
            end - tool.len()
        }
        _ => start,
    };
    let old = &text[start..end];
    if old == s {
        return None;
    }
    Some((
        format!("Replace `{old}` with `{s}` (did you mean)"),
        (start, end, s.clone()),
        false,
    ))
}

/// The client's diagnostic this fix answers, when it sent it; else the server's own.
fn matching(sent: &[Diagnostic], ours: &Diagnostic) -> Diagnostic {
    sent.iter()
        .find(|d| d.range == ours.range && d.code == ours.code)
        .cloned()
        .unwrap_or_else(|| ours.clone())
}
